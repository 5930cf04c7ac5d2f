//! AutoTVM's fallback configurations, as TOPI's tunable operators use them
//! when no tuning log is loaded: what `@autotvm.register_topi_compute`
//! and `@autotvm.register_topi_schedule` templates (TOPI's x86 and CUDA
//! convolutions, dense, batch_matmul, depthwise) need to run.
//!
//! A template's compute is called with a configuration for its workload
//! (the task name and the arguments, tensors by shape and dtype) under
//! the current target; its schedule finds the workload among the
//! operations it is given and gets the same configuration, so the values
//! the compute chose (`cfg["tile_k"] = SplitEntity([...])` when
//! `cfg.is_fallback`) are the ones the schedule applies. As in TVM without
//! a log, every configuration is a fallback one: `define_split` defaults to
//! `[-1, 1, ..., 1]`, `define_knob` to its first candidate,
//! `define_reorder` to the identity and `define_annotate` to no
//! annotation; `fallback_with_reference_log` of the empty log that
//! `autotvm.tophub.load_reference_log` gives here (TVM downloads it)
//! changes nothing.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use std::cell::RefCell;
use std::rc::Rc;

/// A function registered with `register_topi_compute(task)` or
/// `register_topi_schedule(task)`, or the decorator that registers one
/// (`func` is `None`).
pub struct Template {
    task: Rc<str>,
    schedule: bool,
    func: Option<Value>,
}

/// One knob's value in a configuration.
#[derive(Clone)]
pub enum Entity {
    /// `SplitEntity(size)`: the extents of the parts of a split, outermost
    /// first; `-1` for "the rest".
    Split(Vec<i64>),
    /// `OtherOptionEntity(val)`.
    Other(Value),
    /// `ReorderEntity(perm)`.
    Reorder(Vec<usize>),
    /// `AnnotateEntity(anns)`: `"none"`, `"unroll"` or `"vec"` per axis.
    Annotate(Vec<String>),
}

/// A knob's value as the configuration holds it: shared, so that
/// `cfg["unroll_explicit"].val = 0` changes the configuration, as it does
/// in TVM.
pub type EntityRef = Rc<RefCell<Entity>>;

/// A fallback configuration: the knobs defined so far, with their values.
#[derive(Default)]
pub struct FallbackConfig {
    knobs: Vec<(String, EntityRef)>,
    flop: f64,
    /// Attributes a template stores on `cfg` (`cfg.stride = stride` in
    /// TOPI's CUDA `conv2d_transpose`).
    attrs: Vec<(String, Value)>,
}

impl FallbackConfig {
    /// The names of the knobs defined so far, in order: what iterating a
    /// configuration gives, so `"tile_ic" in cfg` asks whether a knob is
    /// defined, as on TVM's `ConfigSpace`.
    pub(crate) fn knob_names(&self) -> Vec<Value> {
        self.knobs.iter().map(|(n, _)| Value::str(n)).collect()
    }

    /// The sizes of the split knob `name` (`cfg[name].size`).
    pub(crate) fn split_size(&self, name: &str) -> Option<Vec<i64>> {
        match &*self.get(name)?.borrow() {
            Entity::Split(size) => Some(size.clone()),
            _ => None,
        }
    }

    /// The value of the option knob `name` (`cfg[name].val`).
    pub(crate) fn option(&self, name: &str) -> Option<Value> {
        match &*self.get(name)?.borrow() {
            Entity::Other(v) => Some(v.clone()),
            _ => None,
        }
    }

    /// `cfg[name] = entity`.
    pub(crate) fn assign(&mut self, name: &str, entity: Entity) {
        self.set(name, Rc::new(RefCell::new(entity)));
    }

    fn get(&self, name: &str) -> Option<&EntityRef> {
        self.knobs.iter().find(|(n, _)| n == name).map(|(_, e)| e)
    }

    fn set(&mut self, name: &str, entity: EntityRef) {
        match self.knobs.iter_mut().find(|(n, _)| n == name) {
            Some((_, e)) => *e = entity,
            None => self.knobs.push((name.to_string(), entity)),
        }
    }

    /// `cfg.define_split(name, axis, num_outputs=parts)`: the fallback
    /// split `[-1, 1, ..., 1]` unless `name` has a value.
    pub(crate) fn define_split(&mut self, name: &str, parts: usize) {
        let mut size = vec![1; parts.max(1)];
        size[0] = -1;
        self.define(name, Entity::Split(size));
    }

    /// `cfg.add_flop(flop)`.
    pub(crate) fn add_flop(&mut self, flop: f64) {
        self.flop += flop;
    }

    /// Defines `name` with `default` unless it already has a value (a
    /// second call of the compute, or a value set before).
    pub(crate) fn define(&mut self, name: &str, default: Entity) {
        if self.get(name).is_none() {
            self.knobs
                .push((name.to_string(), Rc::new(RefCell::new(default))));
        }
    }
}

impl Template {
    /// A template whose function is native (TOPI's templates that
    /// rangefinder builds itself, such as `topi.cuda.conv2d_nchw`).
    pub(crate) fn native(task: &str, schedule: bool, func: crate::Function) -> Template {
        Template {
            task: Rc::from(task),
            schedule,
            func: Some(Value::Function(func)),
        }
    }
}

/// A shared configuration, as `cfg` in a template.
pub type ConfigRef = Rc<RefCell<FallbackConfig>>;

/// `autotvm.register_topi_compute(task_name, func=None)` (`schedule`
/// false) or `register_topi_schedule`.
pub(crate) fn register(args: Args, schedule: bool) -> ApiResult<Value> {
    let name = if schedule {
        "register_topi_schedule"
    } else {
        "register_topi_compute"
    };
    let a = args.bind(name, &["task_name", "func"])?;
    let task = string(a.required("task_name")?)?;
    let func = a.get("func").map(|g| g.value.clone());
    Ok(Value::Object(Object::AutotvmTemplate(Rc::new(Template {
        task: Rc::from(task),
        schedule,
        func,
    }))))
}

/// Calls a template object: the decorator given the function, or the
/// registered compute or schedule.
pub(crate) fn call_template(host: &mut dyn Host, t: &Template, args: Args) -> ApiResult<Value> {
    let Some(func) = &t.func else {
        let a = args.bind("decorator", &["func"])?;
        let f = a.required("func")?;
        return Ok(Value::Object(Object::AutotvmTemplate(Rc::new(Template {
            task: t.task.clone(),
            schedule: t.schedule,
            func: Some(f.value.clone()),
        }))));
    };
    if !args.keywords.is_empty() {
        return Err(ApiError::type_error(
            "Do not support kwargs in template function call",
        ));
    }
    let positional: Vec<Value> = args.positional.clone();
    let target = host
        .session()
        .targets
        .last()
        .map_or_else(String::new, |t| t.to_string());
    if !t.schedule {
        let key = format!("{target}|{}", workload_key(&t.task, &positional));
        let cfg = config_for(host, &key);
        let workload = workload(&t.task, &positional)?;
        let mut call = vec![Value::Object(Object::AutotvmConfig(cfg))];
        call.extend(positional);
        let out = with_workload(crate::call(host, func, Args::positional(call))?, workload)?;
        let ops = output_ops(&out);
        let session = host.session();
        for op in ops {
            session
                .autotvm_workloads
                .push((op, t.task.clone(), key.clone()));
        }
        return Ok(out);
    }
    let Some(outs) = positional.first() else {
        return Err(ApiError::type_error(format!(
            "the schedule of `{}` takes the outputs",
            t.task
        )));
    };
    let key = find_workload(host, outs, &t.task).ok_or_else(|| {
        ApiError::new(
            ErrorClass::RuntimeError,
            format!(
                "Cannot find TOPI workload {}. Is it registered with `register_topi_compute`?",
                t.task
            ),
        )
    })?;
    let cfg = config_for(host, &key);
    let mut call = vec![Value::Object(Object::AutotvmConfig(cfg))];
    call.extend(positional);
    crate::call(host, func, Args::positional(call))
}

/// TVM's `args_to_workload`: the task name, then each argument, a tensor
/// as `("TENSOR", shape, dtype)` and a sequence as a tuple of its items.
fn workload(task: &str, args: &[Value]) -> ApiResult<te::AttrValue> {
    fn encode(v: &Value) -> ApiResult<te::AttrValue> {
        use te::AttrValue as A;
        Ok(match crate::objects::promote(v) {
            Value::Object(Object::Tensor(t)) => A::List(vec![
                A::Str("TENSOR".to_string()),
                A::List(
                    t.shape()
                        .iter()
                        .map(|d| d.as_int().map_or_else(|| A::Expr(d.clone()), A::Int))
                        .collect(),
                ),
                A::Str(t.dtype().name().to_string()),
            ]),
            Value::Tuple(_) | Value::List(_) => A::List(
                v.sequence()
                    .unwrap_or_default()
                    .iter()
                    .map(encode)
                    .collect::<ApiResult<_>>()?,
            ),
            Value::Bool(b) => A::Int(i64::from(b)),
            Value::Int(i) => A::Int(i),
            Value::Float(f) => A::Float(f),
            Value::Str(s) => A::Str(s.to_string()),
            Value::Index(e) => e.as_int().map_or_else(|| A::Expr(e.clone()), A::Int),
            Value::None => A::None,
            other => {
                return Err(ApiError::new(
                    ErrorClass::RuntimeError,
                    format!(
                        "Do not support type \"{}\" in argument. Consider to use primitive \
                         types or tvm.tir.Var only",
                        other.type_name()
                    ),
                ))
            }
        })
    }
    let mut items = vec![te::AttrValue::Str(task.to_string())];
    for a in args {
        items.push(encode(a)?);
    }
    Ok(te::AttrValue::List(items))
}

/// What `register_topi_compute` returns for the tensor a template
/// computed: the first output of a new operation with the same definition
/// and `workload` among its attributes, which TOPI's schedules read
/// (`conv.op.attrs["workload"]`). A list of tensors is returned as it is
/// (TVM's wrapper fails on one); an operation that is neither a compute
/// nor an extern one is refused, as TVM refuses it.
fn with_workload(out: Value, workload: te::AttrValue) -> ApiResult<Value> {
    let Value::Object(Object::Tensor(t)) = &out else {
        return Ok(out);
    };
    let op = t.op();
    if !matches!(op.kind(), te::OpKind::Compute(_) | te::OpKind::Extern(_)) {
        return Err(ApiError::new(
            ErrorClass::RuntimeError,
            format!(
                "Unsupported op type: the template returned `{}`, which is not computed by \
                 `te.compute` or `te.extern`",
                op.name()
            ),
        ));
    }
    let attrs = te::Attrs::from([("workload".to_string(), workload)]);
    Ok(Value::Object(Object::Tensor(
        op.with_more_attrs(attrs).output(),
    )))
}

/// The configuration of a workload, made on first use.
fn config_for(host: &mut dyn Host, key: &str) -> ConfigRef {
    let configs = &mut host.session().autotvm_configs;
    if let Some((_, cfg)) = configs.iter().find(|(k, _)| k == key) {
        return cfg.clone();
    }
    let cfg = ConfigRef::default();
    configs.push((key.to_string(), cfg.clone()));
    cfg
}

/// TVM's workload of a call: the task and its arguments, tensors by shape
/// and dtype (`("TENSOR", shape, dtype)`).
fn workload_key(task: &str, args: &[Value]) -> String {
    let mut key = task.to_string();
    for a in args {
        key.push('|');
        match a {
            Value::Object(Object::Tensor(t)) => {
                let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
                key.push_str(&format!("TENSOR({}){}", dims.join(","), t.dtype().name()));
            }
            other => key.push_str(&other.to_string()),
        }
    }
    key
}

/// The operations a compute returned (a tensor or a list of them).
fn output_ops(out: &Value) -> Vec<te::Operation> {
    match out {
        Value::Object(Object::Tensor(t)) => vec![t.op().clone()],
        other => other
            .sequence()
            .unwrap_or_default()
            .iter()
            .filter_map(|v| match v {
                Value::Object(Object::Tensor(t)) => Some(t.op().clone()),
                _ => None,
            })
            .collect(),
    }
}

/// The workload of `task` among the operations `outs` is computed from,
/// found as TVM's `get_workload` finds it: inputs before the operations
/// that read them.
fn find_workload(host: &mut dyn Host, outs: &Value, task: &str) -> Option<String> {
    let mut pending: Vec<te::Operation> = output_ops(outs);
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // An explicit stack: the graph may be deep.
    while let Some(op) = pending.pop() {
        if !seen.insert(op.clone()) {
            continue;
        }
        order.push(op.clone());
        for t in op.input_tensors() {
            pending.push(t.op().clone());
        }
    }
    let of_task: std::collections::HashMap<&te::Operation, &String> = host
        .session()
        .autotvm_workloads
        .iter()
        .filter(|(_, t, _)| &**t == task)
        .map(|(op, _, key)| (op, key))
        .collect();
    order
        .iter()
        .rev()
        .find_map(|op| of_task.get(op).map(|key| (*key).clone()))
}

fn string(g: &Given) -> ApiResult<String> {
    match &g.value {
        Value::Str(s) => Ok(s.to_string()),
        other => Err(type_error(
            g.place(),
            format!("expected a string, found a {}", other.type_name()),
        )),
    }
}

fn int_list(g: &Given, what: &str) -> ApiResult<Vec<i64>> {
    let items = g.value.sequence().ok_or_else(|| {
        type_error(
            g.place(),
            format!("`{what}` needs a list, found a {}", g.value.type_name()),
        )
    })?;
    items
        .iter()
        .map(|v| {
            crate::operators::as_int(v)
                .ok_or_else(|| type_error(g.place(), format!("`{what}` holds integers, found {v}")))
        })
        .collect()
}

/// `SplitEntity(size)`, `OtherOptionEntity(val)`, `ReorderEntity(perm)`,
/// `AnnotateEntity(anns)`.
pub(crate) fn entity(kind: &'static str, args: Args) -> ApiResult<Value> {
    let e = match kind {
        "SplitEntity" => {
            let a = args.bind(kind, &["size"])?;
            Entity::Split(int_list(a.required("size")?, "size")?)
        }
        "OtherOptionEntity" => {
            let a = args.bind(kind, &["val"])?;
            Entity::Other(a.required("val")?.value.clone())
        }
        "ReorderEntity" => {
            let a = args.bind(kind, &["perm"])?;
            let perm = int_list(a.required("perm")?, "perm")?;
            Entity::Reorder(perm.into_iter().map(|p| p.max(0) as usize).collect())
        }
        _ => {
            let a = args.bind(kind, &["anns"])?;
            let g = a.required("anns")?;
            let anns = g.value.sequence().unwrap_or_default();
            Entity::Annotate(
                anns.iter()
                    .map(|v| match v {
                        Value::Str(s) => Ok(s.to_string()),
                        other => Err(type_error(
                            g.place(),
                            format!("annotations are strings, found {other}"),
                        )),
                    })
                    .collect::<ApiResult<_>>()?,
            )
        }
    };
    Ok(Value::Object(Object::AutotvmEntity(Rc::new(RefCell::new(
        e,
    )))))
}

/// The methods of a configuration.
const CONFIG_METHODS: &[&str] = &[
    "define_split",
    "define_knob",
    "define_reorder",
    "define_annotate",
    "add_flop",
    "fallback_with_reference_log",
    "fallback_split",
    "axis",
    "reduce_axis",
];

/// `cfg.name`: `is_fallback`, `flop`, or a method.
pub(crate) fn config_attribute(cfg: &ConfigRef, value: &Value, name: &str) -> ApiResult<Value> {
    match name {
        "is_fallback" => Ok(Value::Bool(true)),
        "flop" => Ok(Value::Float(cfg.borrow().flop)),
        _ if cfg.borrow().attrs.iter().any(|(n, _)| n == name) => Ok(cfg
            .borrow()
            .attrs
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Value::None, |(_, v)| v.clone())),
        _ => CONFIG_METHODS
            .iter()
            .find(|m| **m == name)
            .map(|m| Value::Method(Rc::new(value.clone()), m))
            .ok_or_else(|| {
                ApiError::attribute_error(format!(
                    "a fallback configuration has no attribute `{name}` that rangefinder \
                     supports (it has is_fallback, flop, {})",
                    CONFIG_METHODS.join(", ")
                ))
            }),
    }
}

/// `cfg.method(args)`.
pub(crate) fn config_method(cfg: &ConfigRef, name: &str, args: Args) -> ApiResult<Value> {
    match name {
        "define_split" => {
            let a = args.bind(
                "define_split",
                &[
                    "name",
                    "axis",
                    "policy",
                    "num_outputs",
                    "max_factor",
                    "filter",
                    "no_tail",
                ],
            )?;
            let knob = string(a.required("name")?)?;
            let parts = match a.get("num_outputs") {
                Some(g) => crate::operators::as_int(&g.value)
                    .filter(|n| (1..=16).contains(n))
                    .ok_or_else(|| type_error(g.place(), "`num_outputs` is a small integer"))?,
                None => 2,
            };
            cfg.borrow_mut().define_split(&knob, parts as usize);
            Ok(axes_value(parts as usize))
        }
        "define_knob" => {
            let a = args.bind("define_knob", &["name", "candidate"])?;
            let knob = string(a.required("name")?)?;
            let c = a.required("candidate")?;
            let first = c
                .value
                .sequence()
                .and_then(|v| v.first().cloned())
                .ok_or_else(|| {
                    type_error(
                        c.place(),
                        "`define_knob` needs a non-empty list of candidates",
                    )
                })?;
            cfg.borrow_mut().define(&knob, Entity::Other(first));
            Ok(Value::None)
        }
        "define_reorder" => {
            // The policy's own arguments (`interval`, `spatial`...) choose among
            // candidates; the fallback is the identity whatever they are.
            let a = args.bind(
                "define_reorder",
                &[
                    "name",
                    "axes",
                    "policy",
                    "candidate",
                    "interval",
                    "spatial",
                    "reduce",
                ],
            )?;
            let knob = string(a.required("name")?)?;
            let n = a.required("axes")?.value.sequence().map_or(0, |v| v.len());
            cfg.borrow_mut()
                .define(&knob, Entity::Reorder((0..n).collect()));
            Ok(Value::None)
        }
        "define_annotate" => {
            let a = args.bind("define_annotate", &["name", "axes", "policy", "num_anchor"])?;
            let knob = string(a.required("name")?)?;
            let n = a.required("axes")?.value.sequence().map_or(0, |v| v.len());
            cfg.borrow_mut()
                .define(&knob, Entity::Annotate(vec!["none".to_string(); n]));
            Ok(Value::None)
        }
        "add_flop" => {
            let a = args.bind("add_flop", &["flop"])?;
            let g = a.required("flop")?;
            let flop = match crate::objects::promote(&g.value) {
                Value::Int(i) => i as f64,
                Value::Float(f) => f,
                // A symbolic count (a dynamic shape) is not counted.
                _ => 0.0,
            };
            cfg.borrow_mut().add_flop(flop);
            Ok(Value::None)
        }
        "fallback_with_reference_log" => {
            let a = args.bind("fallback_with_reference_log", &["ref_log"])?;
            let g = a.required("ref_log")?;
            if g.value.sequence().is_some_and(|v| !v.is_empty()) {
                return Err(ApiError::not_supported(
                    "reading AutoTVM tuning records is not supported: rangefinder keeps the \
                     fallback configuration",
                ));
            }
            Ok(Value::None)
        }
        "fallback_split" => {
            let a = args.bind("fallback_split", &["name", "constraints"])?;
            let knob = string(a.required("name")?)?;
            let constraints = int_list(a.required("constraints")?, "constraints")?;
            let mut size = constraints;
            if let Some(first) = size.first_mut() {
                *first = -1;
            }
            cfg.borrow_mut()
                .set(&knob, Rc::new(RefCell::new(Entity::Split(size))));
            Ok(Value::None)
        }
        // `cfg.axis(x)` / `cfg.reduce_axis(x)`: the axis itself, to split.
        _ => {
            let a = args.bind(name, &["var"])?;
            Ok(a.required("var")?.value.clone())
        }
    }
}

/// What `define_split` returns: one virtual axis per part (TOPI never
/// reads them but may unpack them).
fn axes_value(n: usize) -> Value {
    Value::list((0..n).map(|i| Value::Int(i as i64)).collect())
}

/// `cfg[name]`.
pub(crate) fn config_get(cfg: &ConfigRef, key: &Value) -> ApiResult<Value> {
    let Value::Str(name) = key else {
        return Err(ApiError::type_error(format!(
            "a configuration is indexed by a knob's name, not a {}",
            key.type_name()
        )));
    };
    cfg.borrow()
        .get(name)
        .map(|e| Value::Object(Object::AutotvmEntity(e.clone())))
        .ok_or_else(|| ApiError::new(ErrorClass::KeyError, format!("'{name}'")))
}

/// `cfg[name] = entity`.
pub(crate) fn config_set(cfg: &ConfigRef, key: &Value, value: &Value) -> ApiResult<()> {
    let (Value::Str(name), Value::Object(Object::AutotvmEntity(e))) = (key, value) else {
        return Err(ApiError::type_error(
            "a configuration's knob is set by name to an entity (`cfg[\"tile_x\"] = \
             SplitEntity([...])`)",
        ));
    };
    cfg.borrow_mut().set(name, e.clone());
    Ok(())
}

/// `cfg.name = value`: an attribute of the template's own (the
/// configuration's properties and methods cannot be replaced).
pub(crate) fn config_set_attr(cfg: &ConfigRef, name: &str, value: &Value) -> ApiResult<()> {
    if name == "is_fallback" || name == "flop" || CONFIG_METHODS.contains(&name) {
        return Err(ApiError::attribute_error(format!(
            "the attribute `{name}` of a configuration cannot be set"
        )));
    }
    let mut c = cfg.borrow_mut();
    match c.attrs.iter_mut().find(|(n, _)| n == name) {
        Some((_, v)) => *v = value.clone(),
        None => c.attrs.push((name.to_string(), value.clone())),
    }
    Ok(())
}

/// `entity.val = v` (and `.size`, `.perm`, `.anns`): the knob's value
/// changes wherever the configuration holds it.
pub(crate) fn entity_set(e: &EntityRef, name: &str, value: &Value) -> ApiResult<()> {
    let mut entity = e.borrow_mut();
    let ints = |what: &str| -> ApiResult<Vec<i64>> {
        value
            .sequence()
            .unwrap_or_default()
            .iter()
            .map(|v| {
                crate::operators::as_int(v).ok_or_else(|| {
                    ApiError::type_error(format!("`{what}` holds integers, found {v}"))
                })
            })
            .collect()
    };
    match (&mut *entity, name) {
        (Entity::Other(v), "val") => *v = value.clone(),
        (Entity::Split(size), "size") => *size = ints("size")?,
        (Entity::Reorder(perm), "perm") => {
            *perm = ints("perm")?
                .into_iter()
                .map(|p| p.max(0) as usize)
                .collect()
        }
        _ => {
            return Err(ApiError::attribute_error(format!(
                "the attribute `{name}` of this AutoTVM entity cannot be set"
            )))
        }
    }
    Ok(())
}

/// `entity.name`: `size`, `val`, `perm`, `anns`, or `apply`.
pub(crate) fn entity_attribute(e: &EntityRef, value: &Value, name: &str) -> ApiResult<Value> {
    match (&*e.borrow(), name) {
        (Entity::Split(size), "size") => {
            Ok(Value::list(size.iter().map(|s| Value::Int(*s)).collect()))
        }
        (Entity::Other(v), "val") => Ok(v.clone()),
        (Entity::Reorder(p), "perm") => Ok(Value::list(
            p.iter().map(|s| Value::Int(*s as i64)).collect(),
        )),
        (Entity::Annotate(a), "anns") => Ok(Value::list(a.iter().map(|s| Value::str(s)).collect())),
        (Entity::Split(_) | Entity::Reorder(_) | Entity::Annotate(_), "apply") => {
            Ok(Value::Method(Rc::new(value.clone()), "apply"))
        }
        _ => Err(ApiError::attribute_error(format!(
            "this AutoTVM entity has no attribute `{name}`"
        ))),
    }
}

/// `entity.apply(sch, op, axis_or_axes, ...)`: a split by the entity's
/// sizes (the parts, outermost first), a reorder, or annotations.
/// A split entity's `apply` on the schedule itself: `t`'s `axis` split
/// by the product of the sizes after each part, the loops outermost
/// first (TVM's `SplitEntity.apply`).
pub(crate) fn split_by_sizes(
    s: &mut te::Schedule,
    t: &te::Tensor,
    axis: &te::IterVar,
    size: &[i64],
) -> ApiResult<Vec<te::IterVar>> {
    let mut axis = axis.clone();
    let mut parts = Vec::with_capacity(size.len());
    for i in 1..size.len() {
        let factor = split_factor(size, i)?;
        let (outer, inner) = s.split(t, &axis, factor).map_err(ApiError::te)?;
        parts.push(outer);
        axis = inner;
    }
    parts.push(axis);
    Ok(parts)
}

/// The factor of the `i`-th split of a split entity: the product of the
/// sizes from `i` on.
fn split_factor(size: &[i64], i: usize) -> ApiResult<i64> {
    size[i..]
        .iter()
        .try_fold(1i64, |acc, s| acc.checked_mul(*s))
        .ok_or_else(|| {
            ApiError::new(
                ErrorClass::OverflowError,
                format!("the split sizes {size:?} multiply past 64 bits"),
            )
        })
}

pub(crate) fn entity_apply(host: &mut dyn Host, e: &EntityRef, args: Args) -> ApiResult<Value> {
    let e = e.borrow().clone();
    let e = &e;
    let a = args.bind(
        "apply",
        &[
            "sch",
            "op",
            "axes",
            "axis_lens",
            "max_unroll",
            "vec_size",
            "cfg",
            "source",
        ],
    )?;
    let sch = a.required("sch")?.value.clone();
    let op = a.required("op")?.value.clone();
    let axes = a.required("axes")?.value.clone();
    let stage = crate::objects::subscript(&sch, &op, None, None)?;
    let method = |host: &mut dyn Host, name: &'static str, args: Vec<Value>| {
        crate::call_method(host, &stage, name, Args::positional(args))
    };
    match e {
        Entity::Split(size) => {
            let mut axis = axes;
            let mut parts = Vec::with_capacity(size.len());
            for i in 1..size.len() {
                let factor = split_factor(size, i)?;
                let pair = method(host, "split", vec![axis, Value::Int(factor)])?;
                let pair = pair.sequence().unwrap_or_default();
                let [outer, inner] = <[Value; 2]>::try_from(pair)
                    .map_err(|_| ApiError::tvm("a split gives two axes"))?;
                parts.push(outer);
                axis = inner;
            }
            parts.push(axis);
            Ok(Value::list(parts))
        }
        Entity::Reorder(perm) => {
            let items = axes.sequence().unwrap_or_default();
            let order: Vec<Value> = if perm.len() == items.len() {
                perm.iter().filter_map(|&p| items.get(p).cloned()).collect()
            } else {
                items.clone()
            };
            method(host, "reorder", order.clone())?;
            Ok(Value::list(order))
        }
        Entity::Annotate(anns) => {
            let items = axes.sequence().unwrap_or_default();
            for (ann, axis) in anns.iter().zip(items) {
                match ann.as_str() {
                    "none" => {}
                    "unroll" => {
                        method(host, "unroll", vec![axis])?;
                    }
                    "vec" => {
                        method(host, "vectorize", vec![axis])?;
                    }
                    other => {
                        return Err(ApiError::not_supported(format!(
                            "the annotation `{other}` of an AutoTVM configuration is not supported"
                        )))
                    }
                }
            }
            Ok(Value::None)
        }
        Entity::Other(_) => Err(ApiError::attribute_error("an option has no `apply`")),
    }
}

/// `autotvm.tophub.load_reference_log(backend, model, workload_name)`:
/// the reference log TVM downloads; here always the empty log, so that
/// the fallback configuration stays as it is (TVM offline does the same).
pub(crate) fn load_reference_log(args: Args) -> ApiResult<Value> {
    args.bind("load_reference_log", &["backend", "model", "workload_name"])?;
    Ok(Value::list(Vec::new()))
}

impl std::fmt::Display for Entity {
    /// As TVM's entities print: their list or value.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |items: Vec<String>| format!("[{}]", items.join(", "));
        match self {
            Entity::Split(s) => f.write_str(&list(s.iter().map(i64::to_string).collect())),
            Entity::Other(v) => write!(f, "{v}"),
            Entity::Reorder(p) => f.write_str(&list(p.iter().map(usize::to_string).collect())),
            Entity::Annotate(a) => f.write_str(&list(a.iter().map(|s| format!("'{s}'")).collect())),
        }
    }
}

/// The x86 processors whose features TOPI's x86 schedules ask about, by
/// LLVM's `-mcpu` name: those with AVX-512 (F and BW), and those with
/// AVX2 only. Any other CPU (LLVM's `generic`, the default) has neither.
const AVX512_CPUS: &[&str] = &[
    "skylake-avx512",
    "cascadelake",
    "cooperlake",
    "cannonlake",
    "icelake-client",
    "icelake-server",
    "tigerlake",
    "sapphirerapids",
    "graniterapids",
    "znver4",
    "znver5",
];
const AVX2_CPUS: &[&str] = &[
    "haswell",
    "broadwell",
    "skylake",
    "core-avx2",
    "alderlake",
    "znver1",
    "znver2",
    "znver3",
];

/// Whether an LLVM target with `mcpu` and `mattr` has the x86 feature.
fn cpu_has_feature(mcpu: &str, mattr: &str, feature: &str) -> bool {
    let attr = mattr
        .split(',')
        .any(|a| a.trim().strip_prefix('+') == Some(feature));
    let by_cpu = match feature {
        "avx512f" | "avx512bw" | "avx512cd" | "avx512dq" | "avx512vl" => {
            AVX512_CPUS.contains(&mcpu)
        }
        "avx2" | "fma" | "avx" | "sse4.2" | "ssse3" => {
            AVX512_CPUS.contains(&mcpu) || AVX2_CPUS.contains(&mcpu)
        }
        "avx512vnni" => AVX512_CPUS.contains(&mcpu) && !matches!(mcpu, "skylake-avx512"),
        "amx-int8" | "amx-tile" | "amx-bf16" => matches!(mcpu, "sapphirerapids" | "graniterapids"),
        _ => false,
    };
    attr || by_cpu
}

/// `tvm.target.codegen.target_has_features(cpu_features, target=None)`:
/// whether the target (else the current one) has every feature, from its
/// `-mcpu` and `-mattr` (no CPU given: LLVM's generic CPU, which has none
/// of the vector extensions).
pub(crate) fn target_has_features(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("target_has_features", &["cpu_features", "target"])?;
    let g = a.required("cpu_features")?;
    let features: Vec<String> = match &g.value {
        Value::Str(s) => vec![s.to_string()],
        other => other
            .sequence()
            .unwrap_or_default()
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s.to_string()),
                other => Err(type_error(
                    g.place(),
                    format!("a CPU feature is a string, found {other}"),
                )),
            })
            .collect::<ApiResult<_>>()?,
    };
    let target = match a.get("target").map(|t| &t.value) {
        Some(Value::Object(Object::Target(t))) => Some(t.clone()),
        _ => host.session().targets.last().cloned(),
    };
    let text = |name: &str| {
        target
            .as_ref()
            .and_then(|t| t.attr(name).map(|v| v.to_string()))
            .unwrap_or_default()
    };
    let (mcpu, mattr) = (text("mcpu"), text("mattr"));
    Ok(Value::Bool(
        features.iter().all(|f| cpu_has_feature(&mcpu, &mattr, f)),
    ))
}

/// `tvm.target.x86.get_simd_32bit_lanes()`: 16 with AVX-512, 8 with AVX2,
/// else 4, for the current target.
pub(crate) fn simd_32bit_lanes(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    args.bind("get_simd_32bit_lanes", &[])?;
    let has = |host: &mut dyn Host, f: &[&str]| -> ApiResult<bool> {
        let features = Value::list(f.iter().map(|s| Value::str(s)).collect());
        crate::operators::truth(&target_has_features(
            host,
            Args::positional(vec![features]),
        )?)
    };
    Ok(Value::Int(if has(host, &["avx512bw", "avx512f"])? {
        16
    } else if has(host, &["avx2"])? {
        8
    } else {
        4
    }))
}
