//! The object protocol on TVM objects: attributes, subscripts, calls and
//! methods of tensors, operations, iteration variables, ranges, schedules,
//! stages and bound maps, and the conversions of values to what `te` takes.

use crate::args::{Args, Given};
use crate::error::{not_supported, tvm_error, type_error, ApiError, ApiResult, ArgRef, At};
use crate::function::Class;
use crate::object::Object;
use crate::value::Value;
use crate::{BinaryOp, Host};
use arith::{Analyzer, Expr};
use std::rc::Rc;

/// Whether `v` takes part in element arithmetic (as opposed to index
/// arithmetic).
pub(crate) fn is_element(v: &Value) -> bool {
    matches!(
        v,
        Value::Object(Object::Element(_) | Object::PartialLoad(..))
    )
}

/// An iteration variable used where an index is expected is its variable,
/// as in TVM; other values are unchanged.
pub(crate) fn promote(v: &Value) -> Value {
    match v {
        Value::Object(Object::IterVar(iv)) => Value::Index(iv.expr()),
        other => other.clone(),
    }
}

/// `lhs op rhs` where one side is a tensor element.
pub(crate) fn element_binary(op: BinaryOp, lhs: &Value, rhs: &Value, span: At) -> ApiResult<Value> {
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
            return Err(not_supported(
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
    Value::Object(Object::Element(v))
}

/// A value as a tensor element expression.
pub(crate) fn to_element(v: &Value, span: At) -> ApiResult<te::Value> {
    match promote(v) {
        Value::Object(Object::Element(e)) => Ok(e),
        Value::Int(i) => Ok(te::Value::int(i)),
        Value::Bool(b) => Ok(te::Value::int(i64::from(b))),
        Value::Float(f) => Ok(te::Value::float(f)),
        Value::Index(e) => Ok(te::Value::index(e)),
        Value::Object(Object::PartialLoad(t, idx)) => Err(type_error(
            span,
            format!(
                "`{}` has {} dimensions but only {} indices were given",
                t.name(),
                t.ndim(),
                idx.len()
            ),
        )),
        other => Err(type_error(
            span,
            format!(
                "expected a tensor element or a number, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// An argument as an index expression.
pub(crate) fn to_index(a: &Given) -> ApiResult<Expr> {
    match promote(&a.value) {
        Value::Int(i) => Ok(Expr::int(i)),
        Value::Bool(b) => Ok(Expr::int(i64::from(b))),
        Value::Index(e) => Ok(e),
        other => Err(type_error(
            a.place(),
            format!(
                "expected an integer or index expression, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// An argument as an iteration variable.
pub(crate) fn to_iter_var(a: &Given) -> ApiResult<te::IterVar> {
    match &a.value {
        Value::Object(Object::IterVar(iv)) => Ok(iv.clone()),
        other => Err(type_error(
            a.place(),
            format!(
                "expected an IterVar (such as `C.op.axis[0]` or a result of `split`), found a {}",
                other.type_name()
            ),
        )),
    }
}

/// An argument as an operation: a tensor, its `.op`, or a stage.
pub(crate) fn to_op(a: &Given) -> ApiResult<te::Operation> {
    match &a.value {
        Value::Object(Object::Tensor(t)) => Ok(t.op().clone()),
        Value::Object(Object::Op(op)) | Value::Object(Object::Stage(_, op)) => Ok(op.clone()),
        other => Err(type_error(
            a.place(),
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
        Value::Object(Object::Tensor(t)) if t.ndim() == 0 => None,
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

/// `isinstance(v, class)` for the TVM classes.
pub(crate) fn is_instance(v: &Value, class: Class) -> bool {
    match class {
        Class::Map => matches!(v, Value::Object(Object::Bounds(_))),
        Class::IterVar => matches!(v, Value::Object(Object::IterVar(_))),
        Class::Tensor => matches!(v, Value::Object(Object::Tensor(_))),
        Class::Split => matches!(
            v,
            Value::Object(Object::Relation(te::Relation::Split { .. }))
        ),
        Class::Fuse => matches!(
            v,
            Value::Object(Object::Relation(te::Relation::Fuse { .. }))
        ),
        Class::Var => matches!(v, Value::Index(e) if e.as_var().is_some()),
        Class::Error(_) => false,
    }
}

fn no_attribute(value: &Value, name: &str, span: At, has: &str) -> ApiError {
    crate::error::error(
        crate::ErrorClass::AttributeError,
        span,
        format!(
            "a {} has no attribute `{name}` that rangefinder supports ({has})",
            value.type_name()
        ),
    )
}

/// `value.name`.
pub(crate) fn attribute(value: &Value, name: &str, span: At) -> ApiResult<Value> {
    let method = |n: &'static str| Ok(Value::Method(Rc::new(value.clone()), n));
    match value {
        Value::Index(e) => match name {
            "value" => constant_value(e).map(Value::Int).ok_or_else(|| {
                type_error(
                    span,
                    format!("`.value` needs a constant, but the expression is `{e}`"),
                )
            }),
            "name" => e.as_var().map(|v| Value::str(v.name())).ok_or_else(|| {
                type_error(span, format!("`{e}` is not a variable and has no name"))
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
        Value::Object(obj) => match (obj, name) {
            (Object::Tensor(t), "op") => Ok(Value::Object(Object::Op(t.op().clone()))),
            (Object::Tensor(t), "shape") => Ok(shape_value(t.shape())),
            (Object::Tensor(t), "dtype") => Ok(Value::str(t.dtype().name())),
            (Object::Tensor(t), "name") => Ok(Value::str(t.name())),
            (Object::Tensor(t), "ndim") => Ok(Value::Int(t.ndim() as i64)),
            (Object::Tensor(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .op, .shape, .dtype, .name and .ndim",
            )),
            (Object::Op(op), "axis") => Ok(iter_var_list(op.axis())),
            (Object::Op(op), "reduce_axis") => Ok(iter_var_list(op.reduce_axis())),
            (Object::Op(op), "name") => Ok(Value::str(op.name())),
            (Object::Op(op), "input_tensors") => Ok(Value::list(
                op.input_tensors()
                    .into_iter()
                    .map(|t| Value::Object(Object::Tensor(t)))
                    .collect(),
            )),
            (Object::Op(_), "output") => method("output"),
            (Object::Op(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .axis, .reduce_axis, .name, .input_tensors and .output(0)",
            )),
            (Object::IterVar(iv), "var") => Ok(Value::Index(iv.expr())),
            (Object::IterVar(iv), "dom") => Ok(iv
                .dom()
                .map_or(Value::None, |d| Value::Object(Object::Range(d.clone())))),
            (Object::IterVar(_), _) => Err(no_attribute(value, name, span, "it has .var and .dom")),
            (Object::ThreadAxis(iv), "thread_tag") => Ok(Value::str(iv.name())),
            (Object::ThreadAxis(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .thread_tag; pass it to `s[T].bind`",
            )),
            (Object::Range(r), "min") => Ok(Value::Index(r.min.clone())),
            (Object::Range(r), "extent") => Ok(Value::Index(r.extent.clone())),
            (Object::Range(_), _) => {
                Err(no_attribute(value, name, span, "it has .min and .extent"))
            }
            (Object::Schedule(s), "stages") => {
                let stages = s
                    .borrow()
                    .stages()
                    .iter()
                    .map(|st| st.op().clone())
                    .collect::<Vec<_>>();
                Ok(Value::list(
                    stages
                        .into_iter()
                        .map(|op| Value::Object(Object::Stage(s.clone(), op)))
                        .collect(),
                ))
            }
            (Object::Schedule(_), _) => crate::schedule::schedule_method(name)
                .map(|n| Value::Method(Rc::new(value.clone()), n))
                .ok_or_else(|| {
                    crate::error::error(
                        crate::ErrorClass::AttributeError,
                        span,
                        crate::schedule::unsupported_schedule_method(name),
                    )
                }),
            (Object::Stage(_, op), "op") => Ok(Value::Object(Object::Op(op.clone()))),
            (Object::Stage(s, op), "leaf_iter_vars" | "all_iter_vars") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| tvm_error(span.clone(), e.message))?;
                let ivs = if name == "leaf_iter_vars" {
                    stage.leaf_iter_vars()
                } else {
                    stage.all_iter_vars()
                };
                Ok(iter_var_list(ivs))
            }
            (Object::Stage(s, op), "relations") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| tvm_error(span.clone(), e.message))?;
                let relations = stage.relations().iter().cloned();
                Ok(Value::list(
                    relations
                        .map(|r| Value::Object(Object::Relation(r)))
                        .collect(),
                ))
            }
            (Object::Stage(..), _) => crate::schedule::stage_method(name)
                .map(|n| Value::Method(Rc::new(value.clone()), n))
                .ok_or_else(|| {
                    crate::error::error(
                        crate::ErrorClass::AttributeError,
                        span,
                        crate::schedule::unsupported_stage_method(name),
                    )
                }),
            (
                Object::Element(_)
                | Object::PartialLoad(..)
                | Object::Bounds(_)
                | Object::Relation(_)
                | Object::AxisSeparator,
                _,
            ) => Err(no_attribute(value, name, span, "it has no attributes")),
            (Object::Module(_) | Object::Class(_), _) => Err(ApiError::attribute_error(format!(
                "a {} has no attribute `{name}`",
                value.type_name()
            ))),
        },
        _ => Err(type_error(
            span,
            format!("a {} has no attribute `{name}`", value.type_name()),
        )),
    }
}

fn iter_var_list(ivs: &[te::IterVar]) -> Value {
    Value::list(
        ivs.iter()
            .map(|iv| Value::Object(Object::IterVar(iv.clone())))
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
    index_span: At,
    span: At,
) -> ApiResult<Value> {
    let indices = || -> ApiResult<Vec<Expr>> {
        let items = match index {
            Value::Tuple(t) => t.to_vec(),
            other => vec![other.clone()],
        };
        items
            .iter()
            .map(|v| {
                to_index(&Given {
                    value: v.clone(),
                    at: ArgRef::Positional(0),
                })
            })
            .collect()
    };
    match value {
        Value::Object(Object::Tensor(t)) => match element_indices(index) {
            // `B[A[i]]`: indices computed from tensor elements.
            Some(values) => gather(t, values, index_span, span),
            None => Ok(load(t, indices()?, span)?),
        },
        Value::Object(Object::PartialLoad(t, first)) => {
            let mut all = first.clone();
            all.extend(indices()?);
            Ok(load(t, all, span)?)
        }
        Value::Object(Object::Schedule(s)) => {
            let op = to_op(&Given {
                value: index.clone(),
                at: ArgRef::Positional(0),
            })?;
            s.borrow()
                .stage(&op)
                .map_err(|e| tvm_error(index_span, e.message))?;
            Ok(Value::Object(Object::Stage(s.clone(), op)))
        }
        Value::Object(Object::Bounds(b)) => {
            let iv = to_iter_var(&Given {
                value: index.clone(),
                at: ArgRef::Positional(0),
            })?;
            let range = b.range(&iv).ok_or_else(|| {
                type_error(
                    index_span,
                    format!("InferBound has no range for `{}`", iv.name()),
                )
            })?;
            Ok(Value::Object(Object::Range(range.clone())))
        }
        other => Err(type_error(
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
        .any(|v| matches!(promote(v), Value::Object(Object::Element(_))))
        .then_some(items)
}

/// `t[indices]` with indices computed from elements: a gather, which needs
/// every index at once and integer indices.
fn gather(t: &te::Tensor, items: Vec<Value>, index_span: At, span: At) -> ApiResult<Value> {
    if items.len() != t.ndim() {
        return Err(type_error(
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
            return Err(type_error(
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
fn load(t: &te::Tensor, indices: Vec<Expr>, span: At) -> ApiResult<Value> {
    if indices.len() > t.ndim() {
        return Err(type_error(
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
        return Ok(Value::Object(Object::PartialLoad(t.clone(), indices)));
    }
    Ok(element(t.at(indices)))
}

/// `callee(args)` for callable TE objects: `A(i, j)` reads an element.
pub(crate) fn call_object(callee: &Value, args: Args) -> ApiResult<Value> {
    match callee {
        Value::Object(Object::Tensor(t)) => {
            let pos = args.positional_only(t.name())?;
            let span: At = None;
            let indices = pos.iter().map(to_index).collect::<ApiResult<Vec<_>>>()?;
            load(t, indices, span)
        }
        other => Err(type_error(
            None,
            format!("a {} is not callable", other.type_name()),
        )),
    }
}

/// `receiver.name(args)`.
pub(crate) fn call_method(
    host: &mut dyn Host,
    receiver: &Value,
    name: &str,
    args: Args,
) -> ApiResult<Value> {
    match receiver {
        Value::Object(Object::Stage(s, op)) if name == "transform_layout" => {
            crate::layout::transform_layout(host, s, op, args)
        }
        Value::Object(Object::Op(op)) if name == "output" => {
            let bound = args.bind("output", &["index"])?;
            let i = bound.required("index")?;
            if !matches!(i.value, Value::Int(0)) {
                return Err(type_error(
                    i.place(),
                    "operations have one output: use `output(0)`",
                ));
            }
            Ok(Value::Object(Object::Tensor(op.output())))
        }
        Value::Object(Object::Schedule(s)) => crate::schedule::call_schedule_method(s, name, args),
        Value::Object(Object::Stage(s, op)) => {
            crate::schedule::call_stage_method(s, op, name, args)
        }
        other => Err(type_error(
            None,
            format!("a {} has no method `{name}`", other.type_name()),
        )),
    }
}
