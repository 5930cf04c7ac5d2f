//! Python's operators on script values.
//!
//! Plain integers follow Python (floor `//` and `%`), limited to 64 bits:
//! overflow is an error. As soon as one side is symbolic (a [`Value::Index`])
//! or a TVM object, the operator is [`tvm_api`]'s (`tvm_api::binary`).

use crate::budget::{check_len, check_sum};
use crate::error::{Eval, Raised};
use crate::objects;
use crate::value::Value;
use arith::CmpOp;
use std::ops::Range;
use tvm_api::ErrorClass;

pub(crate) use tvm_api::{as_index, as_int, BinaryOp};

/// `lhs op rhs`.
pub(crate) fn binary(op: BinaryOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Eval<Value> {
    use Value::*;
    if crate::pynumpy::as_array(lhs).is_some() || crate::pynumpy::as_array(rhs).is_some() {
        return crate::pynumpy::binary(op, lhs, rhs, span);
    }
    match (lhs, rhs) {
        (Int(a), Int(b)) => int_binary(op, *a, *b, span),
        (Bool(_), Int(_) | Bool(_)) | (Int(_), Bool(_)) => {
            int_binary(op, as_int(lhs).unwrap_or(0), as_int(rhs).unwrap_or(0), span)
        }
        (Float(_), Int(_) | Float(_)) | (Int(_), Float(_)) => {
            let (a, b) = (as_float(lhs).unwrap_or(0.0), as_float(rhs).unwrap_or(0.0));
            float_binary(op, a, b, span)
        }
        (Tuple(a), Tuple(b)) if op == BinaryOp::Add => {
            check_sum(a.len(), b.len(), "`+` would build", span)?;
            Ok(Value::tuple(a.iter().chain(b.iter()).cloned().collect()))
        }
        (List(a), List(b)) if op == BinaryOp::Add => {
            check_sum(a.borrow().len(), b.borrow().len(), "`+` would build", span)?;
            let items = a
                .borrow()
                .iter()
                .chain(b.borrow().iter())
                .cloned()
                .collect();
            Ok(Value::list(items))
        }
        (Str(a), Str(b)) if op == BinaryOp::Add => {
            check_sum(a.len(), b.len(), "`+` would build", span)?;
            Ok(Value::str(&format!("{a}{b}")))
        }
        (Str(fmt), _) if op == BinaryOp::Mod => {
            Ok(Value::str(&crate::pyformat::percent(fmt, rhs, span)?))
        }
        (Str(_) | Tuple(_) | List(_), Int(_) | Bool(_)) if op == BinaryOp::Mul => {
            repeat(lhs, as_int(rhs).unwrap_or(0), span)
        }
        (Int(_) | Bool(_), Str(_) | Tuple(_) | List(_)) if op == BinaryOp::Mul => {
            repeat(rhs, as_int(lhs).unwrap_or(0), span)
        }
        _ if objects::is_api_value(lhs) || objects::is_api_value(rhs) => {
            tvm_api::binary(op, lhs, rhs).map_err(|e| Raised::api(span, e))
        }
        _ => Err(unsupported(op, lhs, rhs, span)),
    }
}

/// `seq * n`: the sequence repeated, empty for `n <= 0`.
fn repeat(seq: &Value, n: i64, span: Range<usize>) -> Eval<Value> {
    let times = usize::try_from(n).unwrap_or(0);
    let len = match seq {
        Value::Str(s) => s.len(),
        _ => seq.sequence().map_or(0, |items| items.len()),
    };
    check_len(len.checked_mul(times), "`*` would build", span)?;
    Ok(match seq {
        Value::Str(s) => Value::str(&s.repeat(times)),
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .cycle()
                .take(items.len() * times)
                .cloned()
                .collect(),
        ),
        _ => {
            let items = seq.sequence().unwrap_or_default();
            Value::list(
                items
                    .iter()
                    .cycle()
                    .take(items.len() * times)
                    .cloned()
                    .collect(),
            )
        }
    })
}

fn unsupported(op: BinaryOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Raised {
    Raised::at(
        span,
        format!(
            "`{}` is not supported between {} and {}",
            op.symbol(),
            lhs.type_name(),
            rhs.type_name()
        ),
    )
}

fn overflow(span: Range<usize>) -> Raised {
    Raised::at(span, "integer overflow: the result does not fit in 64 bits")
}

fn int_binary(op: BinaryOp, a: i64, b: i64, span: Range<usize>) -> Eval<Value> {
    let zero = || {
        Raised::python(
            ErrorClass::ZeroDivisionError,
            span.clone(),
            "division by zero",
        )
    };
    let v = match op {
        BinaryOp::Add => a.checked_add(b),
        BinaryOp::Sub => a.checked_sub(b),
        BinaryOp::Mul => a.checked_mul(b),
        BinaryOp::Div => {
            if b == 0 {
                return Err(zero());
            }
            return Ok(Value::Float(a as f64 / b as f64));
        }
        BinaryOp::FloorDiv | BinaryOp::Mod if b == 0 => return Err(zero()),
        BinaryOp::FloorDiv => arith::num::floor_div(a, b).ok(),
        BinaryOp::Mod => arith::num::floor_mod(a, b).ok(),
        BinaryOp::Pow => {
            let exp = u32::try_from(b).map_err(|_| {
                Raised::at(span.clone(), "negative or huge exponents are not supported")
            })?;
            a.checked_pow(exp)
        }
    };
    v.map(Value::Int).ok_or_else(|| overflow(span))
}

fn float_binary(op: BinaryOp, a: f64, b: f64, span: Range<usize>) -> Eval<Value> {
    let v = match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Mod if b == 0.0 => {
            return Err(Raised::python(
                ErrorClass::ZeroDivisionError,
                span,
                "float division by zero",
            ))
        }
        BinaryOp::Div => a / b,
        BinaryOp::FloorDiv => (a / b).floor(),
        BinaryOp::Mod => a - b * (a / b).floor(),
        BinaryOp::Pow => a.powf(b),
    };
    Ok(Value::Float(v))
}

/// `-v`.
pub(crate) fn negate(v: &Value, span: Range<usize>) -> Eval<Value> {
    match v {
        Value::Int(a) => a
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| overflow(span)),
        Value::Bool(b) => Ok(Value::Int(-i64::from(*b))),
        Value::Float(a) => Ok(Value::Float(-a)),
        _ if objects::is_api_value(v) => {
            tvm_api::unary(tvm_api::UnaryOp::Neg, v).map_err(|e| Raised::api(span, e))
        }
        _ => Err(Raised::at(
            span,
            format!("cannot negate a {}", v.type_name()),
        )),
    }
}

/// `~v`: Python's bitwise not of an integer, or the logical not of a
/// condition (TVM's `~` on a boolean `PrimExpr`).
pub(crate) fn invert(v: &Value, span: Range<usize>) -> Eval<Value> {
    match v {
        Value::Int(a) => Ok(Value::Int(!a)),
        Value::Bool(b) => Ok(Value::Int(!i64::from(*b))),
        _ if objects::is_api_value(v) => {
            tvm_api::unary(tvm_api::UnaryOp::Not, v).map_err(|e| Raised::api(span, e))
        }
        _ => Err(Raised::at(
            span,
            format!("`~` is not supported on a {}", v.type_name()),
        )),
    }
}

/// `lhs op rhs` for a comparison operator. Symbolic operands give a
/// condition expression; everything else a Python bool.
pub(crate) fn compare(op: CmpOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Eval<Value> {
    use Value::*;
    if crate::pynumpy::as_array(lhs).is_some() || crate::pynumpy::as_array(rhs).is_some() {
        return crate::pynumpy::compare(op, lhs, rhs, span);
    }
    if objects::is_api_value(lhs) || objects::is_api_value(rhs) {
        return tvm_api::compare(op, lhs, rhs).map_err(|e| Raised::api(span, e));
    }
    match (lhs, rhs) {
        (Int(_) | Bool(_), Int(_) | Bool(_)) => Ok(Bool(
            op.apply(as_int(lhs).unwrap_or(0), as_int(rhs).unwrap_or(0)),
        )),
        (Int(_) | Float(_) | Bool(_), Int(_) | Float(_) | Bool(_)) => {
            let (a, b) = (as_float(lhs).unwrap_or(0.0), as_float(rhs).unwrap_or(0.0));
            Ok(Bool(match op {
                CmpOp::Eq => a == b,
                CmpOp::Ne => a != b,
                CmpOp::Lt => a < b,
                CmpOp::Le => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::Ge => a >= b,
            }))
        }
        _ if matches!(op, CmpOp::Eq | CmpOp::Ne) => {
            let same = crate::collections::py_eq(lhs, rhs);
            crate::collections::check_depth(span)?;
            Ok(Bool(same == (op == CmpOp::Eq)))
        }
        (Str(_), Str(_)) | (Tuple(_), Tuple(_)) | (List(_), List(_)) => {
            let order = crate::collections::py_cmp(lhs, rhs);
            crate::collections::check_depth(span.clone())?;
            match order {
                Some(order) => Ok(Bool(op.apply(order as i64, 0))),
                Option::None => Err(Raised::python(
                    ErrorClass::TypeError,
                    span,
                    format!(
                        "`{}` is not supported between the items of a {} and a {}",
                        op.symbol(),
                        lhs.type_name(),
                        rhs.type_name()
                    ),
                )),
            }
        }
        _ => Err(Raised::at(
            span,
            format!(
                "`{}` is not supported between {} and {}",
                op.symbol(),
                lhs.type_name(),
                rhs.type_name()
            ),
        )),
    }
}

/// Python `==` for values that are not numbers: same string, same items, or
/// the same TVM object.
pub(crate) fn equal(lhs: &Value, rhs: &Value) -> bool {
    match (lhs, rhs) {
        (Value::Tuple(_) | Value::List(_), Value::Tuple(_) | Value::List(_))
            if std::mem::discriminant(lhs) == std::mem::discriminant(rhs) =>
        {
            let (a, b) = (
                lhs.sequence().unwrap_or_default(),
                rhs.sequence().unwrap_or_default(),
            );
            a.len() == b.len()
                && a.iter()
                    .zip(&b)
                    .all(|(x, y)| crate::collections::py_eq(x, y))
        }
        _ => tvm_api::equal(lhs, rhs),
    }
}

fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        // Python converts exactly only up to 2^53; scripts use small numbers.
        _ => as_int(v).map(|i| i as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_follow_python_floor_semantics() {
        let r = |op, a, b| match binary(op, &Value::Int(a), &Value::Int(b), 0..1) {
            Ok(Value::Int(v)) => v,
            _ => panic!("not an int"),
        };
        assert_eq!(r(BinaryOp::FloorDiv, -7, 2), -4);
        assert_eq!(r(BinaryOp::Mod, -7, 2), 1);
        assert_eq!(r(BinaryOp::Mod, 7, -2), -1);
        assert_eq!(r(BinaryOp::Pow, 2, 10), 1024);
    }

    #[test]
    fn overflow_and_division_by_zero_are_errors() {
        let big = Value::Int(i64::MAX);
        assert!(binary(BinaryOp::Add, &big, &Value::Int(1), 3..4).is_err());
        assert!(negate(&Value::Int(i64::MIN), 0..1).is_err());
        let Err(e) = binary(BinaryOp::FloorDiv, &Value::Int(1), &Value::Int(0), 5..6) else {
            panic!("division by zero succeeded");
        };
        assert_eq!(e.span, 5..6);
    }

    #[test]
    fn symbolic_operands_build_index_expressions() {
        let x = arith::Var::new("x");
        let v = binary(BinaryOp::Mul, &Value::Index(x.expr()), &Value::Int(4), 0..1).unwrap();
        let Value::Index(e) = v else {
            panic!("not an index")
        };
        assert_eq!(e.eval_with(&[(&x, 3)]).unwrap(), 12);
        let c = compare(CmpOp::Lt, &Value::Index(x.expr()), &Value::Int(2), 0..1).unwrap();
        let Value::Index(c) = c else {
            panic!("not a condition")
        };
        assert_eq!(c.eval_with(&[(&x, 1)]).unwrap(), 1);
    }
}
