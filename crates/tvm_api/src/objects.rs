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
/// arithmetic): a tensor element, or a tensor of no dimensions, which TVM
/// takes as its one element (`x[i] * scale`, `flag.equal(1)`).
pub(crate) fn is_element(v: &Value) -> bool {
    match v {
        Value::Object(Object::Element(_) | Object::PartialLoad(..)) => true,
        Value::Object(Object::Tensor(t)) => t.ndim() == 0,
        _ => false,
    }
}

/// An iteration variable used where an index is expected is its variable,
/// as in TVM; other values are unchanged.
pub(crate) fn promote(v: &Value) -> Value {
    match v {
        // TVM's IterVar is an expression of its variable (`ExprOp`).
        Value::Object(Object::IterVar(iv) | Object::ThreadAxis(iv)) => Value::Index(iv.expr()),
        other => other.clone(),
    }
}

/// `lhs op rhs` where one side is a tensor element.
pub(crate) fn element_binary(op: BinaryOp, lhs: &Value, rhs: &Value, span: At) -> ApiResult<Value> {
    let a = to_element(lhs, span.clone())?;
    let b = to_element(rhs, span.clone())?;
    let (a, b) = (match_float(a.clone(), &b), match_float(b, &a));
    let integer = a.dtype().is_int() && b.dtype().is_int();
    if let (false, Some(x), Some(y)) = (integer, element_constant(&a), element_constant(&b)) {
        // TVM folds arithmetic on two float constants (in double, as its
        // `FloatImm` holds them): `28 / float32(14)` is the constant `2f`,
        // whose `.value` a program may read.
        let folded = match op {
            BinaryOp::Add => Some(x + y),
            BinaryOp::Sub => Some(x - y),
            BinaryOp::Mul => Some(x * y),
            BinaryOp::Div if y != 0.0 => Some(x / y),
            _ => None,
        };
        if let Some(r) = folded {
            return Ok(element(float_constant(r, a.dtype().promote(b.dtype()))));
        }
    }
    let te_op = match op {
        BinaryOp::Add => te::BinaryOp::Add,
        BinaryOp::Sub => te::BinaryOp::Sub,
        BinaryOp::Mul => te::BinaryOp::Mul,
        BinaryOp::Div if !integer => te::BinaryOp::Div,
        BinaryOp::FloorDiv if integer => te::BinaryOp::Div,
        BinaryOp::Mod => te::BinaryOp::Mod,
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

/// `v` cast to `other`'s float type when `v` is an integer expression that
/// is not a constant and `other` is a float, as TVM matches the types of a
/// binary operator's sides (`x - int32(floor(x))` subtracts
/// `float32(int32(floor(x)))`). Integer constants stay as they are: they
/// take the float type when evaluated, and print as TVM prints them.
fn match_float(v: te::Value, other: &te::Value) -> te::Value {
    let constant = matches!(v.kind(), te::ValueKind::Index(e) if e.as_int().is_some());
    if v.dtype().is_int() && other.dtype().is_float() && !constant {
        te::Value::cast(other.dtype(), v)
    } else {
        v
    }
}

/// The value of an element expression that is a constant: a float, an
/// integer index constant, or a constant cast to a float type.
pub(crate) fn element_constant(v: &te::Value) -> Option<f64> {
    match v.kind() {
        te::ValueKind::Float(f) => Some(*f),
        te::ValueKind::Index(e) => e.as_int().map(|i| i as f64),
        te::ValueKind::Cast(dt, inner) if dt.is_float() => element_constant(inner),
        _ => None,
    }
}

/// A float constant of type `dt` (`float32` constants are plain floats).
pub(crate) fn float_constant(x: f64, dt: tir::DataType) -> te::Value {
    if dt == tir::DataType::Float32 || !dt.is_float() {
        te::Value::float(x)
    } else {
        te::Value::cast(dt, te::Value::float(x))
    }
}

pub(crate) fn element(v: te::Value) -> Value {
    Value::Object(Object::Element(v))
}

/// A value as a tensor element expression.
pub(crate) fn to_element(v: &Value, span: At) -> ApiResult<te::Value> {
    match promote(v) {
        Value::Object(Object::Element(e)) => Ok(e),
        Value::Object(Object::Tensor(t)) if t.ndim() == 0 => Ok(t.at(Vec::<Expr>::new())),
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

/// A program argument: a tensor as given (the second output of an
/// operation with several stays the second), or an operation's first output.
pub(crate) fn to_arg_tensor(a: &Given) -> ApiResult<te::Tensor> {
    match &a.value {
        Value::Object(Object::Tensor(t)) => Ok(t.clone()),
        _ => to_op(a).map(|op| op.output()),
    }
}

/// The items of a tuple, list or Python-iterable TE value.
pub(crate) fn unpack(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Object(Object::Tensor(t)) if t.ndim() == 0 => None,
        Value::Object(Object::Bounds(b)) => bounds_entries(b, "keys").sequence(),
        Value::Object(Object::AutotvmConfig(c)) => Some(c.borrow().knob_names()),
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

/// `isinstance(v, class)` for the TVM classes, with TVM's hierarchy: an
/// `IntImm` or a `Var` is a `PrimExpr`, a tensor element expression is a
/// `PrimExpr`, an `IterVar` is not. Python ints and floats stand for
/// TVM's constants (shape sizes, `tvm.tir.const`), so they are `IntImm`s
/// and `FloatImm`s too.
pub(crate) fn is_instance(v: &Value, class: Class) -> bool {
    let op = |v: &Value| match v {
        Value::Object(Object::Op(op)) => Some(op.clone()),
        _ => None,
    };
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
        // Type names are strings here, not objects of their own.
        Class::DataType => false,
        Class::Singleton => matches!(
            v,
            Value::Object(Object::Relation(te::Relation::Singleton { .. }))
        ),
        Class::Var => match v {
            Value::Index(e) => e.as_var().is_some(),
            Value::Object(Object::Element(e)) => e.as_param().is_some(),
            _ => false,
        },
        Class::StringImm => matches!(v, Value::Object(Object::StringImm(_))),
        // Variables do not record whether `te.size_var` made them.
        Class::SizeVar | Class::AnyDim => false,
        Class::IntImm => match v {
            Value::Int(_) => true,
            Value::Index(e) => e.ty() != arith::Type::Bool && e.as_int().is_some(),
            _ => false,
        },
        Class::FloatImm => match v {
            Value::Float(_) => true,
            Value::Object(Object::Element(e)) => {
                matches!(e.kind(), te::ValueKind::Float(_)) && e.dtype().is_float()
            }
            _ => false,
        },
        // A Python float is not a `PrimExpr`: TOPI keeps a `PrimExpr`
        // padding value and makes a float default (`pad_value=0.0`) a
        // constant of the data's type, which for integer data is an
        // integer. Integers stay `PrimExpr`s: shape sizes are ints here
        // where TVM has `IntImm`s.
        Class::PrimExpr => matches!(
            v,
            Value::Int(_) | Value::Index(_) | Value::Object(Object::Element(_))
        ),
        Class::Operation => op(v).is_some(),
        Class::ComputeOp => op(v).is_some_and(|op| op.as_compute().is_some()),
        Class::PlaceholderOp => {
            op(v).is_some_and(|op| matches!(op.kind(), te::OpKind::Placeholder))
        }
        Class::ExternOp(hybrid) => {
            op(v).is_some_and(|op| te::extern_of(&op).is_some_and(|e| e.hybrid == hybrid))
        }
        Class::TensorComputeOp => op(v).is_some_and(|op| te::tensor_compute_of(&op).is_some()),
        Class::ScanOp => op(v).is_some_and(|op| te::scan_op(&op).is_some()),
        Class::TensorSlice => matches!(v, Value::Object(Object::TensorSlice(..))),
        Class::TensorIntrin => matches!(v, Value::Object(Object::TensorIntrin(_))),
        Class::TensorIntrinCall => matches!(v, Value::Object(Object::IntrinCall(_))),
        Class::ForKind => false,
        Class::Stage => matches!(v, Value::Object(Object::Stage(..))),
        Class::Schedule => matches!(v, Value::Object(Object::Schedule(_))),
        Class::Range => matches!(v, Value::Object(Object::Range(_))),
        Class::Target => matches!(v, Value::Object(Object::Target(_))),
        Class::PassContext => matches!(v, Value::Object(Object::PassContext(_))),
        Class::Analyzer => matches!(v, Value::Object(Object::Analyzer)),
        Class::Object => match v {
            Value::Index(_) => true,
            Value::Object(o) => !matches!(
                o,
                Object::Module(_)
                    | Object::Class(_)
                    | Object::TagScope(_)
                    | Object::Tagged(..)
                    | Object::HybridFunction(_)
                    | Object::PartialLoad(..)
                    | Object::Mark(_)
                    | Object::MarkedTest(_)
            ),
            _ => false,
        },
        Class::Stmt(name) => crate::lowered::is_stmt(v, name),
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
    if name == "same_as" && matches!(value, Value::Index(_) | Value::Object(_)) {
        return method("same_as");
    }
    if name == "__hash__" && matches!(value, Value::Object(_)) {
        return method("__hash__");
    }
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
            "astype" => method("astype"),
            "equal" => method("equal"),
            _ => Err(no_attribute(
                value,
                name,
                span,
                "it has .value, .name, .dtype, .astype and .equal",
            )),
        },
        // Python ints and floats stand for TVM's IntImm and FloatImm
        // constants (shape sizes, `tvm.tir.const`).
        Value::Int(_) | Value::Float(_) => match name {
            "value" => Ok(value.clone()),
            "dtype" => Ok(Value::str(if matches!(value, Value::Int(_)) {
                "int32"
            } else {
                "float32"
            })),
            "astype" => method("astype"),
            "equal" => method("equal"),
            _ => Err(crate::error::error(
                crate::ErrorClass::AttributeError,
                span,
                format!("a {} has no attribute `{name}`", value.type_name()),
            )),
        },
        Value::Object(obj) => match (obj, name) {
            (Object::Unsupported(path), _) => Err(crate::ApiError::not_supported(format!(
                "`{path}.{name}` is not supported by rangefinder"
            ))),
            (Object::Tensor(t), "op") => Ok(Value::Object(Object::Op(t.op().clone()))),
            (Object::Tensor(t), "shape") => Ok(shape_value(t.shape())),
            (Object::Tensor(t), "dtype") => Ok(Value::str(t.dtype().name())),
            (Object::Tensor(t), "name") => Ok(Value::str(t.name())),
            (Object::Tensor(t), "ndim") => Ok(Value::Int(t.ndim() as i64)),
            (Object::Tensor(t), "value_index") => Ok(Value::Int(t.value_index() as i64)),
            (Object::Tensor(_), "astype") => method("astype"),
            (Object::Tensor(t), "equal") if t.ndim() == 0 => method("equal"),
            (Object::Tensor(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .op, .shape, .dtype, .name, .ndim and .astype",
            )),
            (Object::Op(op), "axis") => Ok(iter_var_list(op.axis())),
            (Object::Op(op), "reduce_axis") => Ok(iter_var_list(op.reduce_axis())),
            (Object::Op(op), "name") => Ok(Value::str(op.name())),
            (Object::Op(op), "tag") => Ok(Value::str(op.tag())),
            (Object::Op(op), "attrs") => Ok(crate::tags::attrs_value(op.attrs())),
            (Object::Op(op), "input_tensors") => Ok(Value::list(
                op.input_tensors()
                    .into_iter()
                    .map(|t| Value::Object(Object::Tensor(t)))
                    .collect(),
            )),
            (Object::Op(_), "output") => method("output"),
            (Object::HybridModule(m), "name") => Ok(Value::str(&m.name)),
            (Object::HybridModule(m), "source") => Ok(Value::str(&m.source)),
            // An extern or hybrid operation's tensors read whole, and its
            // statement.
            (Object::Op(op), "inputs") if te::extern_of(op).is_some() => Ok(Value::list(
                te::extern_of(op)
                    .expect("an extern operation")
                    .inputs
                    .iter()
                    .map(|t| Value::Object(Object::Tensor(t.clone())))
                    .collect(),
            )),
            (Object::Op(op), "body") if te::extern_of(op).is_some() => {
                let e = te::extern_of(op).expect("an extern operation");
                let mut params = e.input_buffers.clone();
                params.extend(e.output_buffers.iter().cloned());
                let module = crate::lowered::LoweredModule::new(
                    op.name().to_string(),
                    e.body.to_string(),
                    tir::PrimFunc::new(op.name(), params, e.body.clone()),
                );
                Ok(Value::Object(Object::Stmt(crate::lowered::StmtRef::body(
                    &Rc::new(module),
                ))))
            }
            (Object::Analyzer, "simplify" | "rewrite_simplify" | "canonical_simplify") => {
                method("simplify")
            }
            (Object::Analyzer, "can_prove") => method("can_prove"),
            (Object::Analyzer, "can_prove_equal") => method("can_prove_equal"),
            (Object::Op(op), "body") if op.as_compute().is_some() => Ok(Value::list(
                op.bodies()
                    .into_iter()
                    .map(|b| Value::Object(Object::Element(b.clone())))
                    .collect(),
            )),
            (Object::Op(op), "num_outputs") => Ok(Value::Int(op.num_outputs() as i64)),
            (Object::Op(op), _)
                if te::tensor_compute_of(op).is_some_and(|tc| {
                    crate::tensor_slices::tensor_compute_attribute(tc, name).is_some()
                }) =>
            {
                let tc = te::tensor_compute_of(op).expect("a tensor compute");
                Ok(crate::tensor_slices::tensor_compute_attribute(tc, name).expect("checked"))
            }
            (Object::Op(op), "spatial_axis_") if te::scan_op(op).is_some() => Ok(iter_var_list(
                &te::scan_op(op).expect("a scan").spatial_axis,
            )),
            (Object::Op(op), "scan_axis") if te::scan_op(op).is_some() => Ok(Value::Object(
                Object::IterVar(te::scan_op(op).expect("a scan").scan_axis.clone()),
            )),
            (Object::Op(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .axis, .reduce_axis, .name, .tag, .attrs, .input_tensors and .output(0)",
            )),
            (Object::IterVar(iv), "var") => Ok(Value::Index(iv.expr())),
            (Object::IterVar(iv), "dom") => Ok(iv
                .dom()
                .map_or(Value::None, |d| Value::Object(Object::Range(d.clone())))),
            (Object::IterVar(_), "astype") => method("astype"),
            (Object::IterVar(iv) | Object::ThreadAxis(iv), "iter_type") => Ok(Value::Int(
                iter_type(iv, matches!(obj, Object::ThreadAxis(_))),
            )),
            (Object::IterVar(_) | Object::ThreadAxis(_), "equal") => method("equal"),
            (Object::IterVar(iv), "thread_tag") => Ok(Value::str(
                &iv.thread_tag().map(|t| t.to_string()).unwrap_or_default(),
            )),
            (Object::IterVar(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .var, .dom, .iter_type, .thread_tag and .equal",
            )),
            (Object::ThreadAxis(iv), "thread_tag") => Ok(Value::str(iv.name())),
            (Object::ThreadAxis(iv), "var") => Ok(Value::Index(iv.expr())),
            (Object::ThreadAxis(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .thread_tag, .var, .iter_type and .equal; pass it to `s[T].bind`",
            )),
            (Object::Range(r), "min") => Ok(Value::Index(r.min.clone())),
            (Object::Range(r), "extent") => Ok(Value::Index(r.extent.clone())),
            (Object::Range(_), _) => {
                Err(no_attribute(value, name, span, "it has .min and .extent"))
            }
            (Object::Schedule(s), "schedule_record") => Ok(Value::list(
                s.borrow()
                    .record()
                    .iter()
                    .map(|(_, copy)| {
                        Value::Object(Object::Schedule(Rc::new(std::cell::RefCell::new(
                            copy.clone(),
                        ))))
                    })
                    .collect(),
            )),
            (Object::Schedule(s), "primitive_record") => Ok(Value::list(
                s.borrow()
                    .record()
                    .iter()
                    .map(|(name, _)| Value::str(name))
                    .collect(),
            )),
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
            (Object::Schedule(s), "groups") => Ok(Value::list(
                s.borrow()
                    .groups()
                    .into_iter()
                    .map(|g| Value::Object(Object::Group(s.clone(), g)))
                    .collect(),
            )),
            (Object::Schedule(s), "outputs") => Ok(Value::list(
                s.borrow()
                    .outputs()
                    .iter()
                    .map(|op| Value::Object(Object::Op(op.clone())))
                    .collect(),
            )),
            (Object::Schedule(s), "stage_map") => {
                let ops = s
                    .borrow()
                    .stages()
                    .iter()
                    .map(|st| st.op().clone())
                    .collect::<Vec<_>>();
                Ok(Value::Dict(
                    ops.into_iter()
                        .map(|op| {
                            (
                                Value::Object(Object::Op(op.clone())),
                                Value::Object(Object::Stage(s.clone(), op)),
                            )
                        })
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
            // The stage's operation as the schedule has it now: `rfactor`
            // and `cache_write` rewrite it (new reduction axes).
            (Object::Stage(s, op), "op") => Ok(Value::Object(Object::Op(
                s.borrow()
                    .stage(op)
                    .map_or_else(|_| op.clone(), |st| st.op().clone()),
            ))),
            (Object::Stage(s, op), "group") => Ok(s
                .borrow()
                .group_of(op)
                .map_or(Value::None, |g| Value::Object(Object::Group(s.clone(), g)))),
            (Object::Stage(_, op), "origin_op") => Ok(Value::Object(Object::Op(op.clone()))),
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
            (Object::Stage(s, op), "is_output") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| tvm_error(span.clone(), e.message))?;
                Ok(Value::Bool(stage.is_output()))
            }
            (Object::Stage(s, op), "iter_var_attrs") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| tvm_error(span.clone(), e.message))?;
                Ok(iter_var_attrs(stage))
            }
            (Object::Stage(s, op), "attach_type" | "attach_stage" | "attach_ivar") => {
                let sched = s.borrow();
                let stage = sched
                    .stage(op)
                    .map_err(|e| tvm_error(span.clone(), e.message))?;
                Ok(attach_attribute(s, stage, name))
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
            (Object::Element(e), "dtype") => Ok(Value::str(e.dtype().name())),
            // A scalar parameter is a `tir.Var`, named.
            (Object::Element(e), "name") if e.as_param().is_some() => {
                Ok(Value::str(e.as_param().expect("a parameter").0.name()))
            }
            // A constant's value, as `FloatImm.value` reads it.
            (Object::Element(e), "value") if element_constant(e).is_some() => {
                let x = element_constant(e).unwrap_or(0.0);
                Ok(if e.dtype().is_float() {
                    Value::Float(x)
                } else {
                    Value::Int(x as i64)
                })
            }
            // A reduction's parts, as TVM's `tir.Reduce` has them.
            (Object::Element(e), "axis") if e.as_reduce().is_some() => {
                let r = e.as_reduce().expect("a reduction");
                Ok(iter_var_list(&r.axes))
            }
            (Object::Element(e), "source") if e.as_reduce().is_some() => {
                let r = e.as_reduce().expect("a reduction");
                Ok(Value::list(vec![element(r.source.clone())]))
            }
            (Object::Element(e), "condition") if e.as_reduce().is_some() => {
                let r = e.as_reduce().expect("a reduction");
                Ok(Value::Index(
                    r.condition.clone().unwrap_or_else(|| Expr::bool(true)),
                ))
            }
            (Object::Element(e), "value_index") if e.as_reduce().is_some() => Ok(Value::Int(0)),
            (Object::Element(_), "astype" | "equal") => {
                method(if name == "astype" { "astype" } else { "equal" })
            }
            (Object::Target(t), _) => crate::target::attribute(t, name).ok_or_else(|| {
                no_attribute(
                    value,
                    name,
                    span,
                    "it has .kind, .keys, .attrs, .max_num_threads, .arch and .host",
                )
            }),
            (Object::TargetKind(k), "name") => Ok(Value::Str(k.clone())),
            (Object::Class(Class::Range), "from_min_extent") => {
                Ok(Value::Function(crate::Function::RangeFromMinExtent))
            }
            (Object::Class(crate::Class::Target), "current") => {
                Ok(Value::Function(crate::Function::TargetCurrent))
            }
            (Object::Class(crate::Class::PassContext), "current") => {
                Ok(Value::Function(crate::Function::PassContextCurrent))
            }
            (Object::PassContext(c), _) => {
                crate::pass_context::attribute(c, name).ok_or_else(|| {
                    no_attribute(
                        value,
                        name,
                        span,
                        "it has .opt_level, .config, .required_pass and .disabled_pass",
                    )
                })
            }
            (Object::TagScope(t), "tag") => Ok(Value::Str(t.clone())),
            (Object::TensorIr(o), _) => match crate::tensor_ir::method_name(o, name) {
                Some(m) => method(m),
                None => crate::tensor_ir::attribute(o, name).unwrap_or_else(|| {
                    Err(no_attribute(
                        value,
                        name,
                        span,
                        "see the README for what TensorIR objects have",
                    ))
                }),
            },
            (Object::Lowered(m), "body") => Ok(Value::Object(Object::Stmt(
                crate::lowered::StmtRef::body(m),
            ))),
            (Object::Lowered(_), "script") => method("script"),
            (Object::Lowered(m), "params") => Ok(Value::list(
                m.func
                    .params
                    .iter()
                    .map(|b| Value::Object(Object::Buffer(b.clone())))
                    .collect(),
            )),
            (Object::Stmt(st), _) => crate::lowered::stmt_attribute(st, name).ok_or_else(|| {
                no_attribute(value, name, span, "see TVM's attributes of this statement")
            }),
            (Object::Buffer(b), "name") => Ok(Value::str(b.name())),
            (Object::Buffer(b), "dtype") => Ok(Value::str(b.dtype().name())),
            (Object::Buffer(b), "shape") => Ok(shape_value(b.shape())),
            (Object::NDArray(a), "shape") => Ok(Value::tuple(
                a.borrow()
                    .shape
                    .iter()
                    .map(|d| Value::Int(*d as i64))
                    .collect(),
            )),
            (Object::NDArray(a), "dtype") => Ok(Value::str(a.borrow().dtype.name())),
            (Object::NDArray(_), "numpy" | "asnumpy") => method("numpy"),
            (Object::NDArray(_), "copyto") => method("copyto"),
            (Object::NDArray(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .shape, .dtype, .numpy() and .copyto()",
            )),
            (Object::Bounds(_), "keys" | "values" | "items") => method(match name {
                "keys" => "keys",
                "values" => "values",
                _ => "items",
            }),
            (Object::Class(Class::ForKind), _) if for_kind_constant(name).is_some() => {
                Ok(Value::Int(for_kind_constant(name).unwrap_or_default()))
            }
            (Object::Class(Class::IterVar), _) if iter_type_constant(name).is_some() => {
                Ok(Value::Int(iter_type_constant(name).unwrap_or_default()))
            }
            (Object::StringImm(s), "value") => Ok(Value::Str(s.clone())),
            (Object::StringImm(_), "dtype") => Ok(Value::str("handle")),
            (Object::StringImm(_), _) => Err(no_attribute(value, name, span, "it has .value")),
            (Object::IterVarAttr(a), _) => iter_var_attr_attribute(a, name).ok_or_else(|| {
                no_attribute(
                    value,
                    name,
                    span,
                    "it has .iter_type, .bind_thread, .pragma_keys, .pragma_values \
                     and .tensor_intrin",
                )
            }),
            (Object::Relation(r), _) => relation_attribute(r, name).ok_or_else(|| {
                let has = match r {
                    te::Relation::Split { .. } => {
                        "it has .parent, .outer, .inner, .factor and .nparts"
                    }
                    te::Relation::Fuse { .. } => "it has .outer, .inner and .fused",
                    te::Relation::Singleton { .. } => "it has .iter",
                };
                no_attribute(value, name, span, has)
            }),
            (
                Object::Element(_)
                | Object::PartialLoad(..)
                | Object::TagScope(_)
                | Object::Tagged(..)
                | Object::HybridFunction(_)
                | Object::AutotvmTemplate(_)
                | Object::GenericRegistrar(_)
                | Object::HybridModule(_)
                | Object::Mark(_)
                | Object::MarkedTest(_)
                | Object::Analyzer
                | Object::TargetKind(_)
                | Object::Device(..)
                | Object::TimeEvaluator(_)
                | Object::PackedRegistrar(..)
                | Object::PackedFunc(_)
                | Object::Lowered(_)
                | Object::Buffer(_)
                | Object::Bounds(_)
                | Object::AxisSeparator,
                _,
            ) => Err(no_attribute(value, name, span, "it has no attributes")),
            (Object::Group(..), _) => crate::dataflow::group_attribute(value, name, span),
            (Object::DeclBuffer(..), _) => crate::extern_api::attribute(value, name, span),
            (Object::IrBuilder(_) | Object::BufferVar(_) | Object::IrScope(_), _) => {
                crate::ir_builder::attribute(value, name, span)
            }
            (Object::AutotvmConfig(c), _) => crate::autotvm::config_attribute(c, value, name),
            (Object::GenericFunc(g), _) => crate::generic_func::attribute(g, value, name),
            (Object::AutotvmEntity(e), _) => crate::autotvm::entity_attribute(e, value, name),
            (Object::TensorIntrin(t), _) => crate::tensor_slices::intrin_attribute(t, name)
                .ok_or_else(|| {
                    no_attribute(
                        value,
                        name,
                        span,
                        "it has .name, .op, .inputs, .buffers, .scalar_params, .body, \
                         .reduce_init and .reduce_update",
                    )
                }),
            (Object::TensorSlice(t, region), _) => {
                crate::tensor_slices::slice_attribute(t, region, name).ok_or_else(|| {
                    no_attribute(value, name, span, "it has .tensor, .shape and .dtype")
                })
            }
            (Object::Built(f), "entry_name") => Ok(Value::str(f.name())),
            (Object::Built(_), "time_evaluator") => method("time_evaluator"),
            (Object::Built(_), "save") => method("save"),
            (Object::Built(_), "export_library") => method("export_library"),
            (Object::Built(f), "imported_modules") => crate::module_file::imported_modules(f)
                .map_err(|e| ApiError {
                    arg: span.clone(),
                    ..e
                }),
            (Object::Built(_), _) => Err(no_attribute(
                value,
                name,
                span,
                "it has .entry_name, .time_evaluator, .save, .export_library and \
                 .imported_modules",
            )),
            (Object::TempDirectory(d), _) => crate::module_file::tempdir_attribute(value, d, name)
                .ok_or_else(|| {
                    no_attribute(
                        value,
                        name,
                        span,
                        "it has .temp_dir, .relpath, .listdir and .remove",
                    )
                }),
            (Object::TimeResult(r), _) => {
                crate::build::time_result_attribute(r, name).ok_or_else(|| {
                    no_attribute(
                        value,
                        name,
                        span,
                        "it has .mean, .median, .min, .max, .std and .results",
                    )
                })
            }
            (Object::Call(c), _) => crate::extern_api::call_attribute(c, name)
                .ok_or_else(|| no_attribute(value, name, span, "it has .op and .args")),
            (
                Object::ReadGraph(_)
                | Object::IrStmt(_)
                | Object::Reducer(_)
                | Object::Slice(..)
                | Object::IntrinCall(_)
                | Object::Bytes(_),
                _,
            ) => Err(no_attribute(value, name, span, "it has no attributes")),
            (Object::Module(_) | Object::Class(_), _) => Err(ApiError::attribute_error(format!(
                "a {} has no attribute `{name}`",
                value.type_name()
            ))),
        },
        Value::Function(crate::Function::Range) if name == "from_min_extent" => {
            Ok(Value::Function(crate::Function::RangeFromMinExtent))
        }
        _ => Err(type_error(
            span,
            format!("a {} has no attribute `{name}`", value.type_name()),
        )),
    }
}

/// `s[T].iter_var_attrs`: a map from each loop with something recorded
/// (a way to run, a pragma, a thread, a tensor intrinsic) to TVM's
/// `IterVarAttr` for it.
fn iter_var_attrs(stage: &te::Stage) -> Value {
    let tensorized = stage.tensorized();
    let mut entries = Vec::new();
    for iv in stage.all_iter_vars() {
        let annotation = stage.annotation(iv);
        let thread = stage.bound_thread(iv).cloned();
        let intrin = tensorized
            .filter(|(t, _)| *t == iv)
            .map(|(_, intrin)| intrin.clone());
        if annotation.is_none() && thread.is_none() && intrin.is_none() {
            continue;
        }
        let kind = match annotation.map(|a| &a.kind) {
            Some(tir::ForKind::Unrolled) => "Unrolled",
            Some(tir::ForKind::Vectorized) => "Vectorized",
            Some(tir::ForKind::Parallel) => "Parallelized",
            _ if intrin.is_some() => "Tensorized",
            _ if thread.is_some() => "ThreadIndex",
            _ if iv.kind() == te::IterKind::Reduce => "CommReduce",
            _ => "DataPar",
        };
        let pragmas = annotation.map(|a| a.pragmas.as_slice()).unwrap_or_default();
        let attr = crate::object::IterVarAttr {
            iter_type: iter_type_constant(kind).unwrap_or_default(),
            bind_thread: thread,
            pragma_keys: pragmas.iter().map(|(k, _)| Rc::from(k.as_str())).collect(),
            pragma_values: pragmas
                .iter()
                .map(|(_, v)| match v {
                    tir::PragmaValue::Int(i) => Value::Int(*i),
                    tir::PragmaValue::Str(s) => {
                        Value::Object(Object::StringImm(Rc::from(s.as_str())))
                    }
                })
                .collect(),
            tensor_intrin: intrin,
        };
        entries.push((
            Value::Object(Object::IterVar(iv.clone())),
            Value::Object(Object::IterVarAttr(Rc::new(attr))),
        ));
    }
    Value::Dict(entries.into())
}

/// An attribute of an `IterVarAttr`.
fn iter_var_attr_attribute(a: &crate::object::IterVarAttr, name: &str) -> Option<Value> {
    Some(match name {
        "iter_type" => Value::Int(a.iter_type),
        "bind_thread" => a
            .bind_thread
            .clone()
            .map_or(Value::None, |iv| Value::Object(Object::IterVar(iv))),
        "pragma_keys" => Value::list(
            a.pragma_keys
                .iter()
                .map(|k| Value::Object(Object::StringImm(k.clone())))
                .collect(),
        ),
        "pragma_values" => Value::list(a.pragma_values.clone()),
        "tensor_intrin" => a
            .tensor_intrin
            .clone()
            .map_or(Value::None, |t| Value::Object(Object::TensorIntrin(t))),
        _ => return None,
    })
}

/// `s[T].attach_type` (TVM's `AttachType`: 1 at the root, 2 inlined, 4
/// inside another stage's loop), `attach_stage` and `attach_ivar` (the
/// stage and loop it is computed in, or `None`).
fn attach_attribute(s: &crate::ScheduleRef, stage: &te::Stage, name: &str) -> Value {
    match (stage.attach(), name) {
        (te::Attach::Root, "attach_type") => Value::Int(1),
        (te::Attach::Inline, "attach_type") => Value::Int(2),
        (te::Attach::At { .. }, "attach_type") => Value::Int(4),
        (te::Attach::At { parent, .. }, "attach_stage") => {
            Value::Object(Object::Stage(s.clone(), parent.clone()))
        }
        (te::Attach::At { axis, .. }, "attach_ivar") => {
            Value::Object(Object::IterVar(axis.clone()))
        }
        _ => Value::None,
    }
}

/// TVM's integer kinds of iteration variables (`IterVar.DataPar`...), in
/// TVM's order.
const ITER_TYPES: [&str; 9] = [
    "DataPar",
    "ThreadIndex",
    "CommReduce",
    "Ordered",
    "Opaque",
    "Unrolled",
    "Vectorized",
    "Parallelized",
    "Tensorized",
];

/// `IterVar.DataPar` and the other kind constants of TVM's `IterVar`.
fn iter_type_constant(name: &str) -> Option<i64> {
    ITER_TYPES.iter().position(|t| *t == name).map(|i| i as i64)
}

/// `iv.iter_type`: a thread axis, or an axis that carries a thread tag, is
/// `ThreadIndex`; a reduction axis `CommReduce`; any other `DataPar`.
fn iter_type(iv: &te::IterVar, thread_axis: bool) -> i64 {
    let kind = if thread_axis || iv.thread_tag().is_some() {
        "ThreadIndex"
    } else {
        match iv.kind() {
            te::IterKind::DataPar => "DataPar",
            te::IterKind::Reduce => "CommReduce",
        }
    };
    iter_type_constant(kind).unwrap_or_default()
}

/// The entries of an InferBound map, in its order: `keys()`, `values()`
/// or `items()`.
fn bounds_entries(b: &te::Bounds, name: &str) -> Value {
    Value::list(
        b.iter()
            .map(|(iv, r)| {
                let key = Value::Object(Object::IterVar(iv.clone()));
                let range = Value::Object(Object::Range(r.clone()));
                match name {
                    "keys" => key,
                    "values" => range,
                    _ => Value::tuple(vec![key, range]),
                }
            })
            .collect(),
    )
}

/// `.parent`, `.outer`, `.inner`, `.factor`, `.nparts` of a split and
/// `.outer`, `.inner`, `.fused` of a fuse, as TVM's `Split` and `Fuse`
/// nodes have them (the factor of a split by parts is `None`, and the
/// reverse).
fn relation_attribute(r: &te::Relation, name: &str) -> Option<Value> {
    let iv = |iv: &te::IterVar| Value::Object(Object::IterVar(iv.clone()));
    match (r, name) {
        (te::Relation::Split { parent, .. }, "parent") => Some(iv(parent)),
        (te::Relation::Split { outer, .. }, "outer") => Some(iv(outer)),
        (te::Relation::Split { inner, .. }, "inner") => Some(iv(inner)),
        (te::Relation::Split { by, .. }, "factor" | "nparts") => Some(match (by, name) {
            (te::SplitBy::Factor(f), "factor") | (te::SplitBy::NParts(f), "nparts") => {
                Value::Index(f.clone())
            }
            _ => Value::None,
        }),
        (te::Relation::Fuse { outer, .. }, "outer") => Some(iv(outer)),
        (te::Relation::Fuse { inner, .. }, "inner") => Some(iv(inner)),
        (te::Relation::Fuse { fused, .. }, "fused") => Some(iv(fused)),
        (te::Relation::Singleton { iter }, "iter") => Some(iv(iter)),
        _ => None,
    }
}

fn iter_var_list(ivs: &[te::IterVar]) -> Value {
    Value::list(
        ivs.iter()
            .map(|iv| Value::Object(Object::IterVar(iv.clone())))
            .collect(),
    )
}

/// A shape as Python sees it: a list of integers and expressions (TVM's
/// `Array`, which a slice turns into a Python list: `[1] * k +
/// A.shape[:-2]` works).
pub(crate) fn shape_value(dims: &[Expr]) -> Value {
    Value::list(
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
    if let Value::Object(Object::BufferVar(v)) = value {
        return v.load(index).map_err(|e| match &index_span {
            Some(at) => e.or_at(at),
            None => e,
        });
    }
    if let Value::Object(Object::AutotvmConfig(c)) = value {
        return crate::autotvm::config_get(c, index).map_err(|e| match index_span.clone() {
            Some(at) => e.at(at),
            None => e,
        });
    }
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
        Value::Object(Object::Tensor(t)) if crate::tensor_slices::has_slice(index) => {
            crate::tensor_slices::tensor_slice(t, &[], index)
        }
        Value::Object(Object::PartialLoad(t, first)) if crate::tensor_slices::has_slice(index) => {
            crate::tensor_slices::tensor_slice(t, first, index)
        }
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
        Value::Object(Object::Lowered(m)) => crate::lowered::function(m, index),
        // `seq[k]` of a `SeqStmt`.
        Value::Object(Object::Stmt(s)) if matches!(s.stmt(), tir::Stmt::Seq(_)) => {
            let items = crate::lowered::stmt_attribute(s, "seq")
                .and_then(|v| v.sequence())
                .unwrap_or_default();
            let k = crate::operators::as_int(index).ok_or_else(|| {
                type_error(index_span.clone(), "a SeqStmt is indexed by an integer")
            })?;
            let n = items.len() as i64;
            let k = if k < 0 { k + n } else { k };
            usize::try_from(k)
                .ok()
                .and_then(|k| items.get(k).cloned())
                .ok_or_else(|| {
                    crate::error::error(
                        crate::ErrorClass::IndexError,
                        index_span,
                        "SeqStmt index out of range",
                    )
                })
        }
        // `op.attrs["k"]`, `target.attrs["mcpu"]`: TVM's maps are dicts here.
        Value::Dict(pairs) => pairs
            .iter()
            .find(|(k, _)| crate::operators::values_equal(k, index))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| {
                crate::error::error(
                    crate::ErrorClass::IndexError,
                    index_span,
                    format!("KeyError: {}", crate::repr(index)),
                )
            }),
        Value::Object(Object::Schedule(_)) if matches!(index, Value::Object(Object::Group(..))) => {
            Ok(index.clone())
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
        Value::Object(Object::Group(..)) => Ok(value.clone()),
        Value::Object(Object::ReadGraph(g)) => crate::dataflow::read_graph_item(
            g,
            &Given {
                value: index.clone(),
                at: ArgRef::Positional(0),
            },
        ),
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
        return Err(crate::error::error(
            crate::ErrorClass::IndexError,
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
        return Err(crate::error::error(
            crate::ErrorClass::IndexError,
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
        Value::Object(Object::Tensor(_)) => {
            // `A(i, j)` is `A[i, j]`, element indices included (`T(I(i))`).
            let pos = args.positional_only("Tensor")?;
            let index = Value::tuple(pos.into_iter().map(|g| g.value).collect());
            subscript(callee, &index, Some(ArgRef::Positional(0)), None)
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
        Value::Object(Object::Analyzer) if name == "simplify" => {
            let a = args.bind("simplify", &["expr", "steps"])?;
            let e = a.required("expr")?;
            Ok(match promote(&e.value) {
                Value::Index(x) => Value::Index(Analyzer::new().simplify(&x).unwrap_or(x)),
                other => other,
            })
        }
        Value::Object(Object::Analyzer) if name == "can_prove_equal" => {
            // TVM's `CanProveEqual`: two constants compare, else `lhs -
            // rhs == 0` must be provable.
            let a = args.bind("can_prove_equal", &["lhs", "rhs"])?;
            let (l, r) = (a.required("lhs")?, a.required("rhs")?);
            let (x, y) = (to_index(l)?, to_index(r)?);
            Ok(Value::Bool(
                Analyzer::new().decide(&Expr::eq(Expr::sub(x, y), Expr::int(0))) == Some(true),
            ))
        }
        Value::Object(Object::Analyzer) if name == "can_prove" => {
            let a = args.bind("can_prove", &["cond", "strength"])?;
            let c = a.required("cond")?;
            Ok(Value::Bool(match promote(&c.value) {
                Value::Bool(b) => b,
                Value::Index(x) => Analyzer::new().decide(&x) == Some(true),
                other => {
                    return Err(type_error(
                        c.place(),
                        format!(
                            "`can_prove` needs a condition, found a {}",
                            other.type_name()
                        ),
                    ))
                }
            }))
        }
        Value::Object(Object::AutotvmConfig(c)) => crate::autotvm::config_method(c, name, args),
        Value::Object(Object::GenericFunc(g)) if name == "register" => {
            crate::generic_func::register(g, args)
        }
        Value::Object(Object::AutotvmEntity(e)) if name == "apply" => {
            crate::autotvm::entity_apply(host, e, args)
        }
        Value::Object(Object::Stage(s, op)) if name == "transform_layout" => {
            crate::layout::transform_layout(host, s, op, args)
        }
        Value::Object(Object::Op(op)) if name == "output" => {
            let bound = args.bind("output", &["index"])?;
            let i = bound.required("index")?;
            let k = crate::operators::as_int(&i.value).ok_or_else(|| {
                type_error(
                    i.place(),
                    format!("`output` takes an integer, found a {}", i.value.type_name()),
                )
            })?;
            let out = usize::try_from(k).ok().and_then(|k| op.output_at(k));
            let out = out.ok_or_else(|| {
                crate::error::error(
                    crate::ErrorClass::IndexError,
                    i.place(),
                    format!(
                        "`{}` has {} output(s): `output` takes 0 to {}",
                        op.name(),
                        op.num_outputs(),
                        op.num_outputs() - 1
                    ),
                )
            })?;
            Ok(Value::Object(Object::Tensor(out)))
        }
        Value::Object(Object::Built(f)) if name == "time_evaluator" => {
            crate::build::time_evaluator(f, args)
        }
        Value::Object(Object::Built(f)) if matches!(name, "save" | "export_library") => {
            crate::module_file::save(f, name, args)
        }
        Value::Object(Object::TempDirectory(d)) => {
            crate::module_file::tempdir_method(d, name, args)
        }
        Value::Object(Object::TensorIr(o))
            if !matches!(o, crate::tensor_ir::TirObject::PrimFunc(_)) || name == "script" =>
        {
            crate::tensor_ir::call_method(o, name, args)
        }
        Value::Object(Object::Lowered(m)) if name == "script" => {
            args.bind("script", &[])?;
            te::tvmscript(&m.func)
                .map(|t| Value::str(&t))
                .map_err(|e| ApiError::new(crate::ErrorClass::TVMError, e.to_string()))
        }
        Value::Object(Object::NDArray(a)) if name == "numpy" => {
            args.bind("numpy", &[])?;
            Ok(a.borrow().to_value())
        }
        Value::Object(Object::NDArray(a)) if name == "copyto" => {
            // `x.copyto(target)`: the values into an array of as many
            // elements (TVM copies bytes between arrays of one size).
            let b = args.bind("copyto", &["target", "mem_scope"])?;
            let target = b.required("target")?;
            let Value::Object(Object::NDArray(t)) = &target.value else {
                return Err(type_error(
                    target.place(),
                    format!(
                        "`copyto` copies into a tvm.nd.array, not a {}",
                        target.value.type_name()
                    ),
                ));
            };
            let data = a.borrow().data.clone();
            let mut t_ref = t.borrow_mut();
            if data.len() != t_ref.data.len() {
                return Err(crate::error::error(
                    crate::ErrorClass::ValueError,
                    target.place(),
                    format!(
                        "cannot copy an array of {} elements into one of {}",
                        data.len(),
                        t_ref.data.len()
                    ),
                ));
            }
            let dtype = t_ref.dtype;
            t_ref.data = data.into_iter().map(|x| dtype.round(x)).collect();
            drop(t_ref);
            Ok(target.value.clone())
        }
        _ if name == "astype" => crate::casts::astype(&promote(receiver), args),
        Value::Object(o) if name == "__hash__" => {
            args.bind("__hash__", &[])?;
            // Python's hashes are machine integers: keep the value an int.
            Ok(Value::Int((o.identity_hash() >> 1) as i64))
        }
        _ if name == "same_as" => {
            let a = args.bind("same_as", &["other"])?;
            let other = &a.required("other")?.value;
            let same = match (receiver, other) {
                (Value::Index(x), Value::Index(y)) => x == y,
                _ => crate::operators::equal(receiver, other),
            };
            Ok(Value::Bool(same))
        }
        _ if name == "equal" => {
            let a = args.bind("equal", &["other", "span"])?;
            let other = a.required("other")?;
            // `Tensor.equal` compares a rank-0 tensor's value, where `==`
            // compares the tensor.
            let lhs = match receiver {
                Value::Object(Object::Tensor(t)) if t.ndim() == 0 => {
                    element(t.at(Vec::<Expr>::new()))
                }
                _ => receiver.clone(),
            };
            crate::operators::compare(arith::CmpOp::Eq, &lhs, &other.value)
                .map_err(|e| e.or_at(&other.at))
        }
        Value::Object(Object::DeclBuffer(..)) => {
            crate::extern_api::call_method(receiver, name, args)
        }
        Value::Object(Object::IrBuilder(b)) => crate::ir_builder::call_method(b, name, args),
        Value::Object(Object::BufferVar(v)) if name == "asobject" => {
            args.bind("asobject", &[])?;
            Ok(Value::Object(Object::DeclBuffer(
                v.buffer().clone(),
                Rc::from(Vec::new()),
            )))
        }
        Value::Object(Object::Schedule(s)) => {
            crate::dataflow::call_schedule_method(host, s, name, args)
        }
        Value::Object(Object::Group(s, g)) => crate::dataflow::call_group_method(s, *g, name, args),
        Value::Object(Object::Bounds(b)) if matches!(name, "keys" | "values" | "items") => {
            args.bind(name, &[])?;
            Ok(bounds_entries(b, name))
        }
        Value::Object(Object::Stage(s, op)) => {
            let steps = crate::schedule::recorded_steps(name, &args);
            let out = crate::schedule::call_stage_method(s, op, name, args)?;
            let mut schedule = s.borrow_mut();
            for step in steps {
                schedule.record_step(step);
            }
            Ok(out)
        }
        other => Err(type_error(
            None,
            format!("a {} has no method `{name}`", other.type_name()),
        )),
    }
}

/// TVM's `tvm.tir.ForKind` constants.
fn for_kind_constant(name: &str) -> Option<i64> {
    Some(match name {
        "SERIAL" => 0,
        "PARALLEL" => 1,
        "VECTORIZED" => 2,
        "UNROLLED" => 3,
        "THREAD_BINDING" => 4,
        _ => return None,
    })
}

/// The `tvm.tir.ForKind` constant of a loop kind.
pub(crate) fn for_kind_value(kind: &tir::ForKind) -> i64 {
    match kind {
        tir::ForKind::Serial => 0,
        tir::ForKind::Parallel => 1,
        tir::ForKind::Vectorized => 2,
        tir::ForKind::Unrolled => 3,
        tir::ForKind::Thread(_) => 4,
    }
}
