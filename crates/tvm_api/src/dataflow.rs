//! Primitives that add or rearrange stages (`s.cache_read`,
//! `s.cache_write`, `s.rfactor`, `s.create_group` and its group stage,
//! `s.normalize()`), and the dataflow functions of `te.schedule`
//! (`AutoInlineInjective` and the other AutoInline rules,
//! `CreateReadGraph`, `PostDFSOrder`, `ScheduleOps`).

use crate::args::{Args, Bound, Given};
use crate::error::te_error;
use crate::error::{not_supported, type_error, ApiResult, At};
use crate::function::Function;
use crate::object::{Object, ScheduleRef};
use crate::objects::{to_iter_var, to_op};
use crate::operators::as_int;
use crate::value::Value;
use crate::Host;
use std::cell::RefCell;
use std::rc::Rc;

/// The schedule methods this module answers.
pub(crate) const SCHEDULE_METHODS: &[&str] = &[
    "cache_read",
    "cache_write",
    "rfactor",
    "create_group",
    "normalize",
];

fn tensor(t: te::Tensor) -> Value {
    Value::Object(Object::Tensor(t))
}

/// One tensor argument (a tensor, not its operation: the primitives here
/// act on one output).
fn to_tensor(a: &Given) -> ApiResult<te::Tensor> {
    match &a.value {
        Value::Object(Object::Tensor(t)) => Ok(t.clone()),
        Value::Object(Object::Op(op)) if op.num_outputs() == 1 => Ok(op.output()),
        other => Err(type_error(
            a.place(),
            format!("expected a tensor, found a {}", other.type_name()),
        )),
    }
}

/// A tensor or a list of tensors, as TVM's functions take them.
pub(crate) fn tensor_list(a: &Given) -> ApiResult<Vec<te::Tensor>> {
    match a.value.sequence() {
        Some(items) => items.into_iter().map(|v| to_tensor(&a.item(v))).collect(),
        None => Ok(vec![to_tensor(a)?]),
    }
}

/// An operation or tensor, or a list of them, as operations.
fn op_list(a: &Given) -> ApiResult<Vec<te::Operation>> {
    match a.value.sequence() {
        Some(items) => items.into_iter().map(|v| to_op(&a.item(v))).collect(),
        None => Ok(vec![to_op(a)?]),
    }
}

fn scope_name(a: &Given) -> ApiResult<String> {
    match &a.value {
        Value::Str(s) => Ok(s.to_string()),
        other => Err(type_error(
            a.place(),
            format!(
                "expected a storage scope such as \"shared\" or \"local\", found a {}",
                other.type_name()
            ),
        )),
    }
}

fn bool_arg(a: Option<&Given>, default: bool) -> ApiResult<bool> {
    match a.map(|g| (&g.value, g)) {
        None => Ok(default),
        Some((Value::Bool(b), _)) => Ok(*b),
        Some((Value::Int(i), _)) => Ok(*i != 0),
        Some((other, g)) => Err(type_error(
            g.place(),
            format!("expected True or False, found a {}", other.type_name()),
        )),
    }
}

/// `s.name(args)` for the methods of [`SCHEDULE_METHODS`].
pub(crate) fn call_schedule_method(
    host: &mut dyn Host,
    s: &ScheduleRef,
    name: &str,
    args: Args,
) -> ApiResult<Value> {
    match name {
        "cache_read" => {
            let a = args.bind("cache_read", &["tensor", "scope", "readers"])?;
            let t = a.required("tensor")?;
            let source = to_tensor(t)?;
            let scope = scope_name(a.required("scope")?)?;
            let readers = op_list(a.required("readers")?)?;
            let copy = s
                .borrow_mut()
                .cache_read(&source, &scope, &readers)
                .map_err(|e| te_error(&a.place(), e))?;
            Ok(tensor(copy))
        }
        "cache_write" => {
            let a = args.bind("cache_write", &["tensor", "scope"])?;
            let t = a.required("tensor")?;
            let scope = scope_name(a.required("scope")?)?;
            if t.value.sequence().is_some() {
                let outputs = tensor_list(t)?;
                let caches = s
                    .borrow_mut()
                    .cache_write_outputs(&outputs, &scope)
                    .map_err(|e| te_error(&a.place(), e))?;
                return Ok(Value::list(caches.into_iter().map(tensor).collect()));
            }
            let source = to_tensor(t)?;
            let cache = s
                .borrow_mut()
                .cache_write(&source, &scope)
                .map_err(|e| te_error(&a.place(), e))?;
            Ok(tensor(cache))
        }
        "rfactor" => {
            let a = args.bind("rfactor", &["tensor", "axis", "factor_axis"])?;
            let t = to_tensor(a.required("tensor")?)?;
            let axis = to_iter_var(a.required("axis")?)?;
            let factor_axis = match a.get("factor_axis") {
                None => 0,
                Some(g) => as_int(&g.value).ok_or_else(|| {
                    type_error(
                        g.place(),
                        format!(
                            "`factor_axis` must be an integer, found a {}",
                            g.value.type_name()
                        ),
                    )
                })?,
            };
            let factored = s
                .borrow_mut()
                .rfactor(&t, &axis, factor_axis)
                .map_err(|e| te_error(&a.place(), e))?;
            // A tuple reduction's factored outputs are a list, as TVM
            // returns them (one is the tensor).
            let outputs = factored.op().outputs();
            Ok(if outputs.len() > 1 {
                Value::list(outputs.into_iter().map(tensor).collect())
            } else {
                tensor(factored)
            })
        }
        "create_group" => {
            let a = args.bind("create_group", &["outputs", "inputs", "include_inputs"])?;
            let outputs = tensor_list(a.required("outputs")?)?;
            let inputs = tensor_list(a.required("inputs")?)?;
            let include = bool_arg(a.get("include_inputs"), false)?;
            let g = s
                .borrow_mut()
                .create_group(&outputs, &inputs, include)
                .map_err(|e| te_error(&a.place(), e))?;
            Ok(Value::Object(Object::Group(s.clone(), g)))
        }
        "normalize" => {
            args.bind("normalize", &[])?;
            // TVM's normalize returns a new schedule; the program's
            // schedule is the one it goes on with.
            let normal = Rc::new(RefCell::new(s.borrow().normalize()));
            host.session().failed_lowering = None;
            host.session().schedules.push(normal.clone());
            Ok(Value::Object(Object::Schedule(normal)))
        }
        _ => Err(not_supported(
            None,
            crate::schedule::unsupported_schedule_method(name),
        )),
    }
}

/// The methods of a group stage.
pub(crate) const GROUP_METHODS: &[&str] = &["compute_at", "compute_root"];

/// `g.name(args)` for a group `g` of schedule `s`.
pub(crate) fn call_group_method(
    s: &ScheduleRef,
    g: te::Group,
    name: &str,
    args: Args,
) -> ApiResult<Value> {
    match name {
        "compute_at" => {
            let a = args.bind("compute_at", &["parent", "scope"])?;
            let parent = crate::schedule::stage_op(s, a.required("parent")?)?;
            let axis = to_iter_var(a.required("scope")?)?;
            s.borrow_mut()
                .compute_group_at(g, &parent, &axis)
                .map_err(|e| te_error(&a.place(), e))?;
            Ok(Value::None)
        }
        "compute_root" => {
            args.bind("compute_root", &[])?;
            s.borrow_mut()
                .compute_group_root(g)
                .map_err(|e| te_error(&None, e))?;
            Ok(Value::None)
        }
        _ => Err(type_error(
            None,
            format!(
                "a group supports {}; `{name}` applies to the stages of its members",
                GROUP_METHODS.join(", ")
            ),
        )),
    }
}

/// `g.name` for a group: its methods, the group it is nested in and how
/// many stages and groups it holds directly.
pub(crate) fn group_attribute(value: &Value, name: &str, span: At) -> ApiResult<Value> {
    let Value::Object(Object::Group(s, g)) = value else {
        unreachable!("group_attribute takes a group")
    };
    match name {
        "compute_at" | "compute_root" => Ok(Value::Method(
            Rc::new(value.clone()),
            if name == "compute_at" {
                "compute_at"
            } else {
                "compute_root"
            },
        )),
        "group" => Ok(s
            .borrow()
            .group_parent(*g)
            .map_or(Value::None, |p| Value::Object(Object::Group(s.clone(), p)))),
        "num_child_stages" => Ok(Value::Int(s.borrow().group_child_count(*g) as i64)),
        "attach_type" | "attach_stage" | "attach_ivar" => {
            let sched = s.borrow();
            Ok(match (sched.group_attach(*g), name) {
                (Some(te::Attach::Root) | None, "attach_type") => Value::Int(1),
                (Some(te::Attach::Inline), "attach_type") => Value::Int(2),
                (Some(te::Attach::At { .. }), "attach_type") => Value::Int(4),
                (Some(te::Attach::At { parent, .. }), "attach_stage") => {
                    Value::Object(Object::Stage(s.clone(), parent.clone()))
                }
                (Some(te::Attach::At { axis, .. }), "attach_ivar") => {
                    Value::Object(Object::IterVar(axis.clone()))
                }
                _ => Value::None,
            })
        }
        _ => Err(crate::error::error(
            crate::ErrorClass::AttributeError,
            span,
            format!(
                "a group stage has no attribute `{name}` that rangefinder supports (it has \
                 .compute_at, .compute_root, .group, .num_child_stages, .attach_type, \
                 .attach_stage and .attach_ivar)"
            ),
        )),
    }
}

fn schedule_of(a: &Bound, param: &str) -> ApiResult<ScheduleRef> {
    let g = a.required(param)?;
    match &g.value {
        Value::Object(Object::Schedule(s)) => Ok(s.clone()),
        other => Err(type_error(
            g.place(),
            format!("expected a schedule, found a {}", other.type_name()),
        )),
    }
}

/// The `te.schedule` dataflow functions.
pub(crate) fn call(native: Function, args: Args) -> ApiResult<Value> {
    match native {
        Function::AutoInlineInjective
        | Function::AutoInlineElemWise
        | Function::AutoInlineBroadcast => {
            let a = args.bind(native.name(), &["sch"])?;
            let s = schedule_of(&a, "sch")?;
            let mut s = s.borrow_mut();
            match native {
                Function::AutoInlineInjective => te::auto_inline_injective(&mut s),
                Function::AutoInlineElemWise => te::auto_inline_elem_wise(&mut s),
                _ => te::auto_inline_broadcast(&mut s),
            };
            Ok(Value::None)
        }
        Function::CreateReadGraph => {
            let a = args.bind("CreateReadGraph", &["roots"])?;
            let roots = op_list(a.required("roots")?)?;
            Ok(Value::Object(Object::ReadGraph(Rc::new(
                te::create_read_graph(&roots),
            ))))
        }
        Function::PostDfsOrder => {
            let a = args.bind("PostDFSOrder", &["roots", "g"])?;
            let roots = op_list(a.required("roots")?)?;
            let g = a.required("g")?;
            let Value::Object(Object::ReadGraph(graph)) = &g.value else {
                return Err(type_error(
                    g.place(),
                    format!(
                        "expected the read graph of `te.schedule.CreateReadGraph`, found a {}",
                        g.value.type_name()
                    ),
                ));
            };
            let order = te::post_order_dfs(&roots, graph).map_err(|e| te_error(&g.place(), e))?;
            Ok(Value::list(
                order
                    .into_iter()
                    .map(|op| Value::Object(Object::Op(op)))
                    .collect(),
            ))
        }
        Function::ScheduleOps => {
            let a = args.bind(
                "ScheduleOps",
                &["sch", "dom_map", "debug_keep_trivial_loop"],
            )?;
            let s = schedule_of(&a, "sch")?;
            let m = a.required("dom_map")?;
            let Value::Object(Object::Bounds(bounds)) = &m.value else {
                return Err(type_error(
                    m.place(),
                    format!(
                        "expected the map of `te.schedule.InferBound(s)`, found a {}",
                        m.value.type_name()
                    ),
                ));
            };
            let s = s.borrow();
            // TVM's ScheduleOps realizes every computed tensor, the outputs
            // too: only the inputs are bound to outside storage.
            let inputs: Vec<te::Tensor> = s
                .default_args()
                .into_iter()
                .filter(|t| matches!(t.op().kind(), te::OpKind::Placeholder))
                .collect();
            let (f, producers) =
                te::schedule_ops_with_tensors(&s, bounds, &inputs, te::StorageStyle::Realize)
                    .map_err(|e| te_error(&a.place(), e))?;
            let module = crate::lowered::LoweredModule {
                name: f.name.clone(),
                text: f.body.to_string(),
                func: f,
                producers: producers.into_iter().map(|(b, t)| (b.id(), t)).collect(),
            };
            Ok(Value::Object(Object::Stmt(crate::lowered::StmtRef::body(
                &Rc::new(module),
            ))))
        }
        _ => unreachable!("dataflow::call covers the dataflow functions"),
    }
}

/// `graph[op]`: the tensors `op` reads.
pub(crate) fn read_graph_item(graph: &te::ReadGraph, index: &Given) -> ApiResult<Value> {
    let op = to_op(index)?;
    let reads = graph.reads(&op).ok_or_else(|| {
        crate::error::error(
            crate::ErrorClass::IndexError,
            index.place(),
            format!("`{}` is not in the read graph", op.name()),
        )
    })?;
    Ok(Value::list(reads.iter().cloned().map(tensor).collect()))
}
