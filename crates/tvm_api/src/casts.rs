//! Element types of expressions: `x.astype(dtype)`, `tvm.tir.Cast`,
//! `.dtype`, `te.min_value`/`te.max_value`, `tvm.tir.Select` and
//! `tvm.tir.div`.
//!
//! Index expressions are `int32`; a cast of one to another integer type
//! keeps it an index expression (indices are integers whatever their
//! width), a cast to a float type makes an element expression, as TVM's
//! `Cast` node does.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiResult, At};
use crate::object::Object;
use crate::objects::{element, promote, to_element, to_index};
use crate::value::Value;
use arith::Expr;
use tir::DataType;

/// A dtype argument: TVM's type name.
pub(crate) fn dtype_arg(a: &Given) -> ApiResult<DataType> {
    let Value::Str(s) = &a.value else {
        return Err(type_error(
            a.place(),
            format!(
                "expected a type name such as \"float32\", found a {}",
                a.value.type_name()
            ),
        ));
    };
    s.parse::<DataType>().map_err(|e| {
        type_error(
            a.place(),
            format!("{e}: use a TVM type name such as \"float32\", \"int8\" or \"int32\""),
        )
    })
}

/// The element type of a value as TVM reports it (`x.dtype`), if it has
/// one.
pub(crate) fn dtype_of(v: &Value) -> Option<DataType> {
    match promote(v) {
        Value::Int(_) => Some(DataType::Int32),
        Value::Bool(_) => Some(DataType::Bool),
        Value::Float(_) => Some(DataType::Float32),
        Value::Index(e) if e.ty() == arith::Type::Bool => Some(DataType::Bool),
        Value::Index(_) => Some(DataType::Int32),
        Value::Object(Object::Element(e)) => Some(e.dtype()),
        _ => None,
    }
}

/// `value.astype(dtype)` / `tvm.tir.Cast(dtype, value)`.
pub(crate) fn cast(value: &Value, dt: DataType, span: At) -> ApiResult<Value> {
    if dtype_of(value) == Some(dt) {
        return Ok(promote(value));
    }
    match promote(value) {
        // An integer index cast to another integer type stays an index.
        Value::Int(_) | Value::Index(_) if matches!(dt, DataType::Int32 | DataType::Int64) => {
            Ok(promote(value))
        }
        // A constant cast to a float type is a float constant, as TVM's
        // `cast` makes it.
        Value::Int(i) if dt == DataType::Float32 => Ok(element(te::Value::float(i as f64))),
        Value::Index(e) if dt == DataType::Float32 && e.as_int().is_some() => {
            Ok(element(te::Value::float(e.as_int().unwrap_or(0) as f64)))
        }
        Value::Int(i) if dt.is_float() => Ok(element(te::Value::cast(dt, te::Value::int(i)))),
        Value::Float(f) if dt.is_float() => Ok(element(te::Value::cast(dt, te::Value::float(f)))),
        other => {
            let e = to_element(&other, span)?;
            Ok(element(te::Value::cast(dt, e)))
        }
    }
}

/// `tvm.tir.Cast(dtype, value)`.
pub(crate) fn cast_function(args: Args) -> ApiResult<Value> {
    let a = args.bind("Cast", &["dtype", "value", "span"])?;
    let dt = dtype_arg(a.required("dtype")?)?;
    let v = a.required("value")?;
    cast(&v.value, dt, v.place())
}

/// `x.astype(dtype)`; of a tensor, TOPI's element-wise cast (TOPI binds
/// `Tensor.astype` to `topi.cast`).
pub(crate) fn astype(receiver: &Value, args: Args) -> ApiResult<Value> {
    let a = args.bind("astype", &["dtype", "span"])?;
    let dt = dtype_arg(a.required("dtype")?)?;
    match receiver {
        Value::Object(crate::object::Object::Tensor(t)) => crate::topi_ops::cast_tensor(t, dt),
        _ => cast(receiver, dt, None),
    }
}

/// `topi.cast(x, dtype)`: a tensor cast element by element, or an
/// expression cast.
pub(crate) fn topi_cast(args: Args) -> ApiResult<Value> {
    let a = args.bind("cast", &["x", "dtype", "span"])?;
    let dt = dtype_arg(a.required("dtype")?)?;
    let x = a.required("x")?;
    match &x.value {
        Value::Object(crate::object::Object::Tensor(t)) => crate::topi_ops::cast_tensor(t, dt),
        other => cast(other, dt, x.place()),
    }
}

/// The smallest (`max == false`) or largest value of `dt`: TVM's
/// `min_value` / `max_value`, a constant of that type.
pub(crate) fn limit(dt: DataType, max: bool) -> Value {
    let (lo, hi): (f64, f64) = match dt {
        DataType::Bool => (0.0, 1.0),
        DataType::Int8 => (i8::MIN as f64, i8::MAX as f64),
        DataType::Int16 => (i16::MIN as f64, i16::MAX as f64),
        DataType::Int32 => (i32::MIN as f64, i32::MAX as f64),
        DataType::Int64 => (i64::MIN as f64, i64::MAX as f64),
        DataType::UInt8 => (0.0, u8::MAX as f64),
        DataType::UInt16 => (0.0, u16::MAX as f64),
        DataType::UInt32 => (0.0, u32::MAX as f64),
        DataType::Float16 => (-65504.0, 65504.0),
        DataType::Float32 => (f32::MIN as f64, f32::MAX as f64),
        DataType::Float64 => (f64::MIN, f64::MAX),
    };
    let v = if max { hi } else { lo };
    if dt == DataType::Int32 {
        return Value::Index(Expr::int(v as i64));
    }
    let constant = if dt.is_float() {
        te::Value::float(v)
    } else {
        te::Value::int(if max { hi as i64 } else { lo as i64 })
    };
    if dt == DataType::Float32 {
        return element(constant);
    }
    element(te::Value::cast(dt, constant))
}

/// `te.min_value(dtype)` / `te.max_value(dtype)`.
pub(crate) fn limit_function(args: Args, max: bool) -> ApiResult<Value> {
    let name = if max { "max_value" } else { "min_value" };
    let a = args.bind(name, &["dtype", "span"])?;
    Ok(limit(dtype_arg(a.required("dtype")?)?, max))
}

/// `tvm.tir.Select(cond, t, f)` and `if_then_else`: an index expression
/// when every side is one, else an element expression; a condition on
/// tensor elements selects per element.
pub(crate) fn select(name: &str, args: Args) -> ApiResult<Value> {
    let a = args.bind(name, &["cond", "t", "f", "span"])?;
    let c = a.required("cond")?;
    let (t, f) = (a.required("t")?, a.required("f")?);
    let cond = match promote(&c.value) {
        Value::Bool(b) => Expr::bool(b),
        Value::Index(e) if e.ty() == arith::Type::Bool => e,
        Value::Object(Object::Element(e)) if e.dtype() == DataType::Bool => {
            let (x, y) = branches(name, t, f)?;
            return Ok(element(te::Value::select_value(e, x, y)));
        }
        other => {
            return Err(type_error(
                c.place(),
                format!(
                    "expected a condition such as `i < n`, found a {}",
                    other.type_name()
                ),
            ))
        }
    };
    if let (Ok(x), Ok(y)) = (to_index(t), to_index(f)) {
        return Ok(Value::Index(Expr::select(cond, x, y)));
    }
    let (x, y) = branches(name, t, f)?;
    Ok(element(te::Value::select(cond, x, y)))
}

/// The branches of a select as elements; `if_then_else` matches their
/// types as TVM's arithmetic does.
fn branches(name: &str, t: &Given, f: &Given) -> ApiResult<(te::Value, te::Value)> {
    let x = to_element(&t.value, t.place())?;
    let y = to_element(&f.value, f.place())?;
    Ok(if name == "if_then_else" {
        (float_side(x.clone(), &y), float_side(y, &x))
    } else {
        (x, y)
    })
}

/// `v` in `other`'s float type when `v` is an integer and `other` a float:
/// `if_then_else` matches its branches' types as TVM's arithmetic does
/// (`if_then_else(c, x, 0)` of a float `x` is `if_then_else(c, x, 0f)`).
fn float_side(v: te::Value, other: &te::Value) -> te::Value {
    if !(v.dtype().is_int() && other.dtype().is_float()) {
        return v;
    }
    match v.kind() {
        te::ValueKind::Index(e) => match e.as_int() {
            Some(c) => crate::objects::float_constant(c as f64, other.dtype()),
            None => te::Value::cast(other.dtype(), v),
        },
        _ => te::Value::cast(other.dtype(), v),
    }
}
