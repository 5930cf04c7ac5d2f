//! Python's operators on script values.
//!
//! Plain integers follow Python (floor `//` and `%`), limited to 64 bits:
//! overflow is an error. As soon as one side is symbolic (a [`Value::Index`])
//! the result is an index expression built with `arith`'s raw constructors,
//! as TVM builds a `PrimExpr`. Arithmetic on tensor elements is left to
//! [`crate::objects`].

use crate::error::{Eval, Raised};
use crate::objects;
use crate::value::Value;
use arith::{CmpOp, Expr};
use std::ops::Range;

/// A binary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// `/`: true division.
    Div,
    /// `//`: floor division.
    FloorDiv,
    /// `%`: floor modulo.
    Mod,
    Pow,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::FloorDiv => "//",
            BinaryOp::Mod => "%",
            BinaryOp::Pow => "**",
        }
    }
}

/// `lhs op rhs`.
pub(crate) fn binary(op: BinaryOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Eval<Value> {
    use Value::*;
    let (lhs, rhs) = (&objects::promote(lhs), &objects::promote(rhs));
    match (lhs, rhs) {
        (Int(a), Int(b)) => int_binary(op, *a, *b, span),
        (Bool(_), Int(_) | Bool(_)) | (Int(_), Bool(_)) => {
            int_binary(op, as_int(lhs).unwrap_or(0), as_int(rhs).unwrap_or(0), span)
        }
        (Float(_), Int(_) | Float(_)) | (Int(_), Float(_)) => {
            let (a, b) = (as_float(lhs).unwrap_or(0.0), as_float(rhs).unwrap_or(0.0));
            float_binary(op, a, b, span)
        }
        (Index(_), Int(_) | Index(_)) | (Int(_), Index(_)) => {
            let (a, b) = (as_index(lhs).expect("index"), as_index(rhs).expect("index"));
            index_binary(op, a, b, span)
        }
        (Tuple(a), Tuple(b)) if op == BinaryOp::Add => {
            Ok(Value::tuple(a.iter().chain(b.iter()).cloned().collect()))
        }
        (List(a), List(b)) if op == BinaryOp::Add => {
            let items = a
                .borrow()
                .iter()
                .chain(b.borrow().iter())
                .cloned()
                .collect();
            Ok(Value::list(items))
        }
        (Str(a), Str(b)) if op == BinaryOp::Add => Ok(Value::str(&format!("{a}{b}"))),
        (Str(fmt), _) if op == BinaryOp::Mod => {
            Ok(Value::str(&crate::pyformat::percent(fmt, rhs, span)?))
        }
        (Str(_) | Tuple(_) | List(_), Int(_) | Bool(_)) if op == BinaryOp::Mul => {
            repeat(lhs, as_int(rhs).unwrap_or(0), span)
        }
        (Int(_) | Bool(_), Str(_) | Tuple(_) | List(_)) if op == BinaryOp::Mul => {
            repeat(rhs, as_int(lhs).unwrap_or(0), span)
        }
        _ if objects::is_element(lhs) || objects::is_element(rhs) => {
            objects::element_binary(op, lhs, rhs, span)
        }
        _ => Err(unsupported(op, lhs, rhs, span)),
    }
}

/// The most items (or characters) `seq * n` may build.
const MAX_REPEAT_LEN: usize = 10_000_000;

/// `seq * n`: the sequence repeated, empty for `n <= 0`.
fn repeat(seq: &Value, n: i64, span: Range<usize>) -> Eval<Value> {
    let times = usize::try_from(n).unwrap_or(0);
    let len = match seq {
        Value::Str(s) => s.len(),
        _ => seq.sequence().map_or(0, |items| items.len()),
    };
    if len
        .checked_mul(times)
        .is_none_or(|total| total > MAX_REPEAT_LEN)
    {
        return Err(Raised::at(
            span,
            format!("`*` would build more than {MAX_REPEAT_LEN} items"),
        ));
    }
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
            crate::native::ErrorClass::ZeroDivisionError,
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
                crate::native::ErrorClass::ZeroDivisionError,
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

fn index_binary(op: BinaryOp, a: Expr, b: Expr, span: Range<usize>) -> Eval<Value> {
    let e = match op {
        BinaryOp::Add => Expr::add(a, b),
        BinaryOp::Sub => Expr::sub(a, b),
        BinaryOp::Mul => Expr::mul(a, b),
        BinaryOp::FloorDiv => Expr::floor_div(a, b),
        BinaryOp::Mod => Expr::floor_mod(a, b),
        BinaryOp::Div => {
            return Err(Raised::at(
                span,
                "`/` on index expressions is ambiguous; write `//` (floor division)",
            ))
        }
        BinaryOp::Pow => {
            return Err(Raised::at(
                span,
                "`**` is not supported on index expressions",
            ))
        }
    };
    Ok(Value::Index(e))
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
        Value::Index(e) => Ok(Value::Index(Expr::sub(Expr::int(0), e.clone()))),
        Value::Te(crate::objects::TeObject::IterVar(iv)) => {
            Ok(Value::Index(Expr::sub(Expr::int(0), iv.expr())))
        }
        _ if objects::is_element(v) => {
            objects::element_binary(BinaryOp::Sub, &Value::Int(0), v, span)
        }
        _ => Err(Raised::at(
            span,
            format!("cannot negate a {}", v.type_name()),
        )),
    }
}

/// `lhs op rhs` for a comparison operator. Symbolic operands give a
/// condition expression; everything else a Python bool.
pub(crate) fn compare(op: CmpOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Eval<Value> {
    use Value::*;
    if let (Te(_), Te(_)) = (lhs, rhs) {
        // TE objects compare by identity (`iv == C.op.axis[0]`).
        if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            return Ok(Bool(equal(lhs, rhs) == (op == CmpOp::Eq)));
        }
    }
    let (lhs, rhs) = (&objects::promote(lhs), &objects::promote(rhs));
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
        (Index(_), Int(_) | Index(_)) | (Int(_), Index(_)) => {
            let (a, b) = (as_index(lhs).expect("index"), as_index(rhs).expect("index"));
            Ok(Index(Expr::cmp(op, a, b)))
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
                    crate::native::ErrorClass::TypeError,
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
/// the same TE object.
pub(crate) fn equal(lhs: &Value, rhs: &Value) -> bool {
    match (lhs, rhs) {
        (Value::None, Value::None) => true,
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::Tuple(_) | Value::List(_), Value::Tuple(_) | Value::List(_))
            if std::mem::discriminant(lhs) == std::mem::discriminant(rhs) =>
        {
            let (a, b) = (
                lhs.sequence().unwrap_or_default(),
                rhs.sequence().unwrap_or_default(),
            );
            a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| values_equal(x, y))
        }
        (Value::Module(a), Value::Module(b)) => a == b,
        (Value::Native(a), Value::Native(b)) => a == b,
        (Value::Te(a), Value::Te(b)) => a.same_as(b),
        _ => false,
    }
}

fn values_equal(a: &Value, b: &Value) -> bool {
    crate::collections::py_eq(a, b)
}

/// An integer or bool as an `i64`.
pub(crate) fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        // Python converts exactly only up to 2^53; scripts use small numbers.
        _ => as_int(v).map(|i| i as f64),
    }
}

/// An integer or index expression as an index expression.
pub(crate) fn as_index(v: &Value) -> Option<Expr> {
    match v {
        Value::Index(e) => Some(e.clone()),
        _ => as_int(v).map(Expr::int),
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
