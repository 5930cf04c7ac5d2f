//! TE objects as script values: tensors, operations, iteration variables,
//! element expressions, schedules, stages and bound maps; their attributes,
//! subscripts and conversions.

use crate::args::{Args, Spanned};
use crate::error::{Eval, Raised};
use crate::native::Native;
use crate::operators::BinaryOp;
use crate::value::Value;
use arith::{Analyzer, Expr};
use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::rc::Rc;

/// A schedule shared by every script value that refers to it: Python
/// schedules are mutable objects, and `s[C].split(...)` changes `s`.
pub(crate) type ScheduleRef = Rc<RefCell<te::Schedule>>;

/// A TE object held by a script value.
#[derive(Clone)]
pub(crate) enum TeObject {
    Tensor(te::Tensor),
    /// `T.op`.
    Op(te::Operation),
    IterVar(te::IterVar),
    /// `te.thread_axis(tag)`: what `s[T].bind` binds a loop to.
    ThreadAxis(te::IterVar),
    /// An element expression: what a compute lambda returns.
    Element(te::Value),
    /// `A[i]` of a tensor with more dimensions, waiting for `[j]`
    /// (`A[i][j]` is `A[i, j]`).
    PartialLoad(te::Tensor, Vec<Expr>),
    /// A `Range` with `.min` and `.extent`.
    Range(arith::Range),
    Schedule(ScheduleRef),
    /// `s[T]`: the stage of `T`'s operation in schedule `s`.
    Stage(ScheduleRef, te::Operation),
    /// What `InferBound` returns: indexable by iteration variables.
    Bounds(Rc<te::Bounds>),
    /// A split or fuse of a stage (`s[T].relations`).
    Relation(te::Relation),
    /// `te.AXIS_SEPARATOR`, in the result of a `transform_layout` function.
    AxisSeparator,
}

impl TeObject {
    pub fn type_name(&self) -> &'static str {
        match self {
            TeObject::Tensor(_) => "Tensor",
            TeObject::Op(_) => "Operation",
            TeObject::IterVar(_) => "IterVar",
            TeObject::ThreadAxis(_) => "thread axis",
            TeObject::Element(_) => "tensor element expression",
            TeObject::PartialLoad(..) => "partially indexed tensor",
            TeObject::Range(_) => "Range",
            TeObject::Schedule(_) => "Schedule",
            TeObject::Stage(..) => "Stage",
            TeObject::Bounds(_) => "Map",
            TeObject::Relation(te::Relation::Split { .. }) => "Split",
            TeObject::Relation(te::Relation::Fuse { .. }) => "Fuse",
            TeObject::AxisSeparator => "AXIS_SEPARATOR",
        }
    }

    /// Python `is` / `==` on TE objects: the same object.
    pub fn same_as(&self, other: &TeObject) -> bool {
        match (self, other) {
            (TeObject::Tensor(a), TeObject::Tensor(b)) => a == b,
            (TeObject::Op(a), TeObject::Op(b)) => a == b,
            (TeObject::IterVar(a), TeObject::IterVar(b)) => a == b,
            (TeObject::ThreadAxis(a), TeObject::ThreadAxis(b)) => a == b,
            (TeObject::Range(a), TeObject::Range(b)) => a == b,
            (TeObject::Schedule(a), TeObject::Schedule(b)) => Rc::ptr_eq(a, b),
            (TeObject::Stage(s, a), TeObject::Stage(t, b)) => Rc::ptr_eq(s, t) && a == b,
            (TeObject::Bounds(a), TeObject::Bounds(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Display for TeObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeObject::Tensor(t) => write!(
                f,
                "Tensor(shape={}, op.name={})",
                shape_text(t.shape()),
                t.name()
            ),
            TeObject::Op(op) => write!(f, "compute({})", op.name()),
            TeObject::IterVar(iv) => match iv.dom() {
                Some(d) => write!(f, "IterVar({}, {d})", iv.name()),
                None => write!(f, "IterVar({})", iv.name()),
            },
            TeObject::ThreadAxis(iv) => write!(f, "IterVar({})", iv.name()),
            TeObject::Element(v) => write!(f, "{v}"),
            TeObject::PartialLoad(t, idx) => write!(f, "{}[{}]", t.name(), shape_text(idx)),
            TeObject::Range(r) => write!(f, "range(min={}, ext={})", r.min, r.extent),
            TeObject::Schedule(_) => f.write_str("Schedule"),
            TeObject::Stage(_, op) => write!(f, "stage({})", op.name()),
            TeObject::Bounds(_) => f.write_str("Map(IterVar -> Range)"),
            TeObject::Relation(te::Relation::Split {
                parent,
                outer,
                inner,
                ..
            }) => {
                write!(f, "split({parent}, {outer}, {inner})")
            }
            TeObject::Relation(te::Relation::Fuse {
                outer,
                inner,
                fused,
            }) => {
                write!(f, "fuse({outer}, {inner}, {fused})")
            }
            TeObject::AxisSeparator => f.write_str("AXIS_SEPARATOR"),
        }
    }
}

fn shape_text(dims: &[Expr]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// What the script created that the report needs.
#[derive(Default)]
pub(crate) struct Session {
    /// Every schedule, in order of creation.
    pub schedules: Vec<ScheduleRef>,
    /// Every `tvm.lower(s, args)`, in order.
    pub lowered: Vec<(ScheduleRef, Vec<te::Tensor>, te::Lowering)>,
    /// The variables of every `te.reduce_axis`, to reject bodies that use
    /// one outside its reduction.
    pub reduce_vars: std::collections::HashSet<arith::Var>,
}

/// Whether `v` takes part in element arithmetic (as opposed to index
/// arithmetic).
pub(crate) fn is_element(v: &Value) -> bool {
    matches!(
        v,
        Value::Te(TeObject::Element(_) | TeObject::PartialLoad(..))
    )
}

/// An iteration variable used where an index is expected is its variable,
/// as in TVM; other values are unchanged.
pub(crate) fn promote(v: &Value) -> Value {
    match v {
        Value::Te(TeObject::IterVar(iv)) => Value::Index(iv.expr()),
        other => other.clone(),
    }
}

/// `lhs op rhs` where one side is a tensor element.
pub(crate) fn element_binary(
    op: BinaryOp,
    lhs: &Value,
    rhs: &Value,
    span: Range<usize>,
) -> Eval<Value> {
    let a = to_element(lhs, span.clone())?;
    let b = to_element(rhs, span.clone())?;
    let integer = a.dtype().is_int() && b.dtype().is_int();
    let te_op = match op {
        BinaryOp::Add => te::BinaryOp::Add,
        BinaryOp::Sub => te::BinaryOp::Sub,
        BinaryOp::Mul => te::BinaryOp::Mul,
        BinaryOp::Div if !integer => te::BinaryOp::Div,
        BinaryOp::FloorDiv if integer => te::BinaryOp::Div,
        _ => {
            return Err(Raised::at(
                span,
                format!(
                "`{}` is not supported on {} tensor elements; use + - * and / (float) or // (int)",
                op.symbol(),
                if integer { "integer" } else { "float" }
            ),
            ))
        }
    };
    Ok(element(te::Value::binary(te_op, a, b)))
}

pub(crate) fn element(v: te::Value) -> Value {
    Value::Te(TeObject::Element(v))
}

/// A value as a tensor element expression.
pub(crate) fn to_element(v: &Value, span: Range<usize>) -> Eval<te::Value> {
    match promote(v) {
        Value::Te(TeObject::Element(e)) => Ok(e),
        Value::Int(i) => Ok(te::Value::int(i)),
        Value::Bool(b) => Ok(te::Value::int(i64::from(b))),
        Value::Float(f) => Ok(te::Value::float(f)),
        Value::Index(e) => Ok(te::Value::index(e)),
        Value::Te(TeObject::PartialLoad(t, idx)) => Err(Raised::at(
            span,
            format!(
                "`{}` has {} dimensions but only {} indices were given",
                t.name(),
                t.ndim(),
                idx.len()
            ),
        )),
        other => Err(Raised::at(
            span,
            format!(
                "expected a tensor element or a number, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// An argument as an index expression.
pub(crate) fn to_index(a: &Spanned) -> Eval<Expr> {
    match promote(&a.value) {
        Value::Int(i) => Ok(Expr::int(i)),
        Value::Bool(b) => Ok(Expr::int(i64::from(b))),
        Value::Index(e) => Ok(e),
        other => Err(Raised::at(
            a.span.clone(),
            format!(
                "expected an integer or index expression, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// An argument as an iteration variable.
pub(crate) fn to_iter_var(a: &Spanned) -> Eval<te::IterVar> {
    match &a.value {
        Value::Te(TeObject::IterVar(iv)) => Ok(iv.clone()),
        other => Err(Raised::at(
            a.span.clone(),
            format!(
                "expected an IterVar (such as `C.op.axis[0]` or a result of `split`), found a {}",
                other.type_name()
            ),
        )),
    }
}

/// An argument as an operation: a tensor, its `.op`, or a stage.
pub(crate) fn to_op(a: &Spanned) -> Eval<te::Operation> {
    match &a.value {
        Value::Te(TeObject::Tensor(t)) => Ok(t.op().clone()),
        Value::Te(TeObject::Op(op)) | Value::Te(TeObject::Stage(_, op)) => Ok(op.clone()),
        other => Err(Raised::at(
            a.span.clone(),
            format!(
                "expected a tensor or its `.op`, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// The items of a tuple, list or Python-iterable TE value.
pub(crate) fn unpack(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Te(TeObject::Tensor(t)) if t.ndim() == 0 => None,
        _ => v.sequence(),
    }
}

/// The constant an index expression simplifies to, if any.
pub(crate) fn constant_value(e: &Expr) -> Option<i64> {
    if let Some(v) = e.as_int() {
        return Some(v);
    }
    Analyzer::new().simplify(e).ok().and_then(|s| s.as_int())
}

/// Decides a condition without knowing its variables: `Some` when it holds
/// or fails for every value of them.
pub(crate) fn decide(e: &Expr) -> Option<bool> {
    Analyzer::new().decide(e)
}

/// `isinstance(v, ty)` for the TVM types; `None` for types this does not know.
pub(crate) fn is_instance(v: &Value, ty: Native) -> Option<bool> {
    Some(match ty {
        Native::MapType => matches!(v, Value::Te(TeObject::Bounds(_))),
        Native::IterVarType => matches!(v, Value::Te(TeObject::IterVar(_))),
        Native::TensorType => matches!(v, Value::Te(TeObject::Tensor(_))),
        Native::SplitType => matches!(v, Value::Te(TeObject::Relation(te::Relation::Split { .. }))),
        Native::FuseType => matches!(v, Value::Te(TeObject::Relation(te::Relation::Fuse { .. }))),
        _ => return None,
    })
}

fn no_attribute(value: &Value, name: &str, span: Range<usize>, has: &str) -> Raised {
    Raised::at(
        span,
        format!(
            "a {} has no attribute `{name}` that rangefinder supports ({has})",
            value.type_name()
        ),
    )
}

/// `value.name`.
pub(crate) fn attribute(value: &Value, name: &str, span: Range<usize>) -> Eval<Value> {
    let method = |n: &'static str| Ok(Value::Method(Rc::new(value.clone()), n));
    match value {
        Value::Index(e) => match name {
            "value" => constant_value(e).map(Value::Int).ok_or_else(|| {
                Raised::at(
                    span,
                    format!("`.value` needs a constant, but the expression is `{e}`"),
                )
            }),
            "name" => e.as_var().map(|v| Value::str(v.name())).ok_or_else(|| {
                Raised::at(span, format!("`{e}` is not a variable and has no name"))
            }),
            "dtype" => Ok(Value::str(if e.ty() == arith::Type::Bool {
                "bool"
            } else {
                "int32"
            })),
            _ => Err(no_attribute(
                value,
                name,
                span,
                "it has .value, .name and .dtype",
            )),
        },
        Value::Te(obj) => match (obj, name) {
            (TeObject::Tensor(t), "op") => Ok(Value::Te(TeObject::Op(t.op().clone()))),
            (TeObject::Tensor(t), "shape") => Ok(shape_value(t.shape())),
            (TeObject::Tensor(t), "dtype") => Ok(Value::str(t.dtype().name())),
            (TeObject::Tensor(t), "name") => Ok(Value::str(t.name())),
            (TeObject::Tensor(t), "ndim") => Ok(Value::Int(t.ndim() as i64)),
            (TeObject::Tensor(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .op, .shape, .dtype, .name and .ndim",
            )),
            (TeObject::Op(op), "axis") => Ok(iter_var_list(op.axis())),
            (TeObject::Op(op), "reduce_axis") => Ok(iter_var_list(op.reduce_axis())),
            (TeObject::Op(op), "name") => Ok(Value::str(op.name())),
            (TeObject::Op(op), "input_tensors") => Ok(Value::list(
                op.input_tensors()
                    .into_iter()
                    .map(|t| Value::Te(TeObject::Tensor(t)))
                    .collect(),
            )),
            (TeObject::Op(_), "output") => method("output"),
            (TeObject::Op(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .axis, .reduce_axis, .name, .input_tensors and .output(0)",
            )),
            (TeObject::IterVar(iv), "var") => Ok(Value::Index(iv.expr())),
            (TeObject::IterVar(iv), "dom") => Ok(iv
                .dom()
                .map_or(Value::None, |d| Value::Te(TeObject::Range(d.clone())))),
            (TeObject::IterVar(_), _) => {
                Err(no_attribute(value, name, span, "it has .var and .dom"))
            }
            (TeObject::ThreadAxis(iv), "thread_tag") => Ok(Value::str(iv.name())),
            (TeObject::ThreadAxis(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .thread_tag; pass it to `s[T].bind`",
            )),
            (TeObject::Range(r), "min") => Ok(Value::Index(r.min.clone())),
            (TeObject::Range(r), "extent") => Ok(Value::Index(r.extent.clone())),
            (TeObject::Range(_), _) => {
                Err(no_attribute(value, name, span, "it has .min and .extent"))
            }
            (TeObject::Schedule(s), "stages") => {
                let stages = s
                    .borrow()
                    .stages()
                    .iter()
                    .map(|st| st.op().clone())
                    .collect::<Vec<_>>();
                Ok(Value::list(
                    stages
                        .into_iter()
                        .map(|op| Value::Te(TeObject::Stage(s.clone(), op)))
                        .collect(),
                ))
            }
            (TeObject::Schedule(_), _) => crate::schedule_api::schedule_method(name)
                .map(|n| Value::Method(Rc::new(value.clone()), n))
                .ok_or_else(|| {
                    Raised::at(span, crate::schedule_api::unsupported_schedule_method(name))
                }),
            (TeObject::Stage(_, op), "op") => Ok(Value::Te(TeObject::Op(op.clone()))),
            (TeObject::Stage(s, op), "leaf_iter_vars" | "all_iter_vars") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| Raised::tvm(span.clone(), e.message))?;
                let ivs = if name == "leaf_iter_vars" {
                    stage.leaf_iter_vars()
                } else {
                    stage.all_iter_vars()
                };
                Ok(iter_var_list(ivs))
            }
            (TeObject::Stage(s, op), "relations") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| Raised::tvm(span.clone(), e.message))?;
                let relations = stage.relations().iter().cloned();
                Ok(Value::list(
                    relations
                        .map(|r| Value::Te(TeObject::Relation(r)))
                        .collect(),
                ))
            }
            (TeObject::Stage(..), _) => crate::schedule_api::stage_method(name)
                .map(|n| Value::Method(Rc::new(value.clone()), n))
                .ok_or_else(|| {
                    Raised::at(span, crate::schedule_api::unsupported_stage_method(name))
                }),
            (
                TeObject::Element(_)
                | TeObject::PartialLoad(..)
                | TeObject::Bounds(_)
                | TeObject::Relation(_)
                | TeObject::AxisSeparator,
                _,
            ) => Err(no_attribute(value, name, span, "it has no attributes")),
        },
        _ => Err(Raised::at(
            span,
            format!("a {} has no attribute `{name}`", value.type_name()),
        )),
    }
}

fn iter_var_list(ivs: &[te::IterVar]) -> Value {
    Value::list(
        ivs.iter()
            .map(|iv| Value::Te(TeObject::IterVar(iv.clone())))
            .collect(),
    )
}

/// A shape as Python sees it: a tuple of integers and expressions.
pub(crate) fn shape_value(dims: &[Expr]) -> Value {
    Value::tuple(
        dims.iter()
            .map(|d| {
                d.as_int()
                    .map_or_else(|| Value::Index(d.clone()), Value::Int)
            })
            .collect(),
    )
}

/// `value[index]` for TE objects.
pub(crate) fn subscript(
    value: &Value,
    index: &Value,
    index_span: Range<usize>,
    span: Range<usize>,
) -> Eval<Value> {
    let indices = || -> Eval<Vec<Expr>> {
        let items = match index {
            Value::Tuple(t) => t.to_vec(),
            other => vec![other.clone()],
        };
        items
            .iter()
            .map(|v| {
                to_index(&Spanned {
                    value: v.clone(),
                    span: index_span.clone(),
                })
            })
            .collect()
    };
    match value {
        Value::Te(TeObject::Tensor(t)) => match element_indices(index) {
            // `B[A[i]]`: indices computed from tensor elements.
            Some(values) => gather(t, values, index_span, span),
            None => Ok(load(t, indices()?, span)?),
        },
        Value::Te(TeObject::PartialLoad(t, first)) => {
            let mut all = first.clone();
            all.extend(indices()?);
            Ok(load(t, all, span)?)
        }
        Value::Te(TeObject::Schedule(s)) => {
            let op = to_op(&Spanned {
                value: index.clone(),
                span: index_span.clone(),
            })?;
            s.borrow()
                .stage(&op)
                .map_err(|e| Raised::tvm(index_span, e.message))?;
            Ok(Value::Te(TeObject::Stage(s.clone(), op)))
        }
        Value::Te(TeObject::Bounds(b)) => {
            let iv = to_iter_var(&Spanned {
                value: index.clone(),
                span: index_span.clone(),
            })?;
            let range = b.range(&iv).ok_or_else(|| {
                Raised::at(
                    index_span,
                    format!("InferBound has no range for `{}`", iv.name()),
                )
            })?;
            Ok(Value::Te(TeObject::Range(range.clone())))
        }
        other => Err(Raised::at(
            span,
            format!("a {} cannot be indexed", other.type_name()),
        )),
    }
}

/// The indices of a subscript as element values, when one of them is
/// computed from tensor elements (a data-dependent read, `B[A[i]]`).
fn element_indices(index: &Value) -> Option<Vec<Value>> {
    let items = match index {
        Value::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    items
        .iter()
        .any(|v| matches!(promote(v), Value::Te(TeObject::Element(_))))
        .then_some(items)
}

/// `t[indices]` with indices computed from elements: a gather, which needs
/// every index at once and integer indices.
fn gather(
    t: &te::Tensor,
    items: Vec<Value>,
    index_span: Range<usize>,
    span: Range<usize>,
) -> Eval<Value> {
    if items.len() != t.ndim() {
        return Err(Raised::at(
            span,
            format!(
                "`{}` has {} dimensions but {} indices were given: a read at indices \
                 computed from tensor elements takes every index at once",
                t.name(),
                t.ndim(),
                items.len()
            ),
        ));
    }
    let mut indices = Vec::with_capacity(items.len());
    for v in &items {
        let x = to_element(v, index_span.clone())?;
        if !x.dtype().is_int() {
            return Err(Raised::at(
                index_span,
                format!(
                    "an index of `{}` is a {} tensor element: indices must be integers \
                     (read them from an integer tensor, or cast with `.astype(\"int32\")`)",
                    t.name(),
                    x.dtype()
                ),
            ));
        }
        indices.push(x);
    }
    Ok(element(te::Value::gather(t, indices)))
}

/// `t[indices]`: an element, or a partial load while indices are missing.
fn load(t: &te::Tensor, indices: Vec<Expr>, span: Range<usize>) -> Eval<Value> {
    if indices.len() > t.ndim() {
        return Err(Raised::at(
            span,
            format!(
                "`{}` has {} dimensions but {} indices were given",
                t.name(),
                t.ndim(),
                indices.len()
            ),
        ));
    }
    if indices.len() < t.ndim() {
        return Ok(Value::Te(TeObject::PartialLoad(t.clone(), indices)));
    }
    Ok(element(t.at(indices)))
}

/// `callee(args)` for callable TE objects: `A(i, j)` reads an element.
pub(crate) fn call_object(callee: &Value, args: Args) -> Eval<Value> {
    match callee {
        Value::Te(TeObject::Tensor(t)) => {
            let (pos, span) = args.positional_only(t.name())?;
            let indices = pos.iter().map(to_index).collect::<Eval<Vec<_>>>()?;
            load(t, indices, span)
        }
        other => Err(Raised::at(
            args.span,
            format!("a {} is not callable", other.type_name()),
        )),
    }
}

/// `receiver.name(args)`.
pub(crate) fn call_method(receiver: &Value, name: &str, args: Args) -> Eval<Value> {
    match receiver {
        Value::Te(TeObject::Op(op)) if name == "output" => {
            let bound = args.bind("output", &["index"])?;
            let i = bound.required("index")?;
            if !matches!(i.value, Value::Int(0)) {
                return Err(Raised::at(
                    i.span.clone(),
                    "operations have one output: use `output(0)`",
                ));
            }
            Ok(Value::Te(TeObject::Tensor(op.output())))
        }
        Value::Te(TeObject::Schedule(s)) => {
            crate::schedule_api::call_schedule_method(s, name, args)
        }
        Value::Te(TeObject::Stage(s, op)) => {
            crate::schedule_api::call_stage_method(s, op, name, args)
        }
        other => Err(Raised::at(
            args.span,
            format!("a {} has no method `{name}`", other.type_name()),
        )),
    }
}
