//! Python's operators on `PrimExpr`s, iteration variables and tensor
//! elements.
//!
//! As soon as one side is symbolic (a [`Value::Index`]) the result is an
//! index expression built with `arith`'s raw constructors, as TVM builds a
//! `PrimExpr`; a side that is a tensor element makes an element expression.
//! Operators on plain Python numbers are the front end's.

use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::objects::{element_binary, is_element, promote};
use crate::value::Value;
use crate::{BinaryOp, UnaryOp};
use arith::{CmpOp, Expr};

/// `lhs op rhs`; see [`crate::binary`].
pub(crate) fn binary(op: BinaryOp, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    let (lhs, rhs) = (&promote(lhs), &promote(rhs));
    match (lhs, rhs) {
        (Value::Index(_), Value::Int(_) | Value::Index(_)) | (Value::Int(_), Value::Index(_)) => {
            let (a, b) = (as_index(lhs).expect("index"), as_index(rhs).expect("index"));
            index_binary(op, a, b)
        }
        (Value::Object(Object::Tensor(_)), _) | (_, Value::Object(Object::Tensor(_))) => {
            crate::topi_ops::broadcast(op, lhs, rhs)
        }
        _ if is_element(lhs) || is_element(rhs) => element_binary(op, lhs, rhs, None),
        (Value::Index(_), Value::Float(_)) | (Value::Float(_), Value::Index(_)) => {
            element_binary(op, &index_as_float(lhs), &index_as_float(rhs), None)
        }
        _ => Err(unsupported(op.symbol(), lhs, rhs)),
    }
}

/// An index expression met by a Python float (`(x + 0.5) * scale`, TOPI's
/// image coordinates) as TVM converts it: cast to `float32`, the float's
/// type. Anything else as it is.
fn index_as_float(v: &Value) -> Value {
    match v {
        Value::Index(e) => crate::objects::element(te::Value::cast(
            tir::DataType::Float32,
            te::Value::index(e.clone()),
        )),
        other => other.clone(),
    }
}

fn unsupported(symbol: &str, lhs: &Value, rhs: &Value) -> ApiError {
    type_error(
        None,
        format!(
            "`{symbol}` is not supported between {} and {}",
            lhs.type_name(),
            rhs.type_name()
        ),
    )
}

fn index_binary(op: BinaryOp, a: Expr, b: Expr) -> ApiResult<Value> {
    // Python integers never wrap: arithmetic on two constants whose result
    // does not fit in 64 bits is an error, not an expression that would
    // overflow wherever it is evaluated.
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        let fits = match op {
            BinaryOp::Add => x.checked_add(y).is_some(),
            BinaryOp::Sub => x.checked_sub(y).is_some(),
            BinaryOp::Mul => x.checked_mul(y).is_some(),
            _ => true,
        };
        if !fits {
            return Err(ApiError::new(
                ErrorClass::OverflowError,
                format!(
                    "integer overflow: {x} {} {y} does not fit in 64 bits",
                    op.symbol()
                ),
            ));
        }
    }
    let e = match op {
        BinaryOp::Add => Expr::add(a, b),
        BinaryOp::Sub => Expr::sub(a, b),
        BinaryOp::Mul => Expr::mul(a, b),
        BinaryOp::FloorDiv => Expr::floor_div(a, b),
        BinaryOp::Mod => Expr::floor_mod(a, b),
        BinaryOp::Div => {
            return Err(type_error(
                None,
                "`/` on index expressions is ambiguous; write `//` (floor division)",
            ))
        }
        BinaryOp::Pow => {
            return Err(ApiError::not_supported(
                "`**` is not supported on index expressions",
            ))
        }
    };
    Ok(Value::Index(e))
}

/// `op v`; see [`crate::unary`].
pub(crate) fn unary(op: UnaryOp, v: &Value) -> ApiResult<Value> {
    if op == UnaryOp::Pos {
        return Ok(v.clone());
    }
    if op == UnaryOp::Not {
        return logical_not(v);
    }
    match v {
        Value::Index(e) => Ok(Value::Index(Expr::sub(Expr::int(0), e.clone()))),
        Value::Object(Object::IterVar(iv)) => Ok(Value::Index(Expr::sub(Expr::int(0), iv.expr()))),
        _ if is_element(v) => element_binary(BinaryOp::Sub, &Value::Int(0), v, None),
        _ => Err(type_error(
            None,
            format!("cannot negate a {}", v.type_name()),
        )),
    }
}

/// `~cond`: the negation of a condition (TVM's `tir.Not`); a Python bool
/// is negated too, as `~(a == b)` of two objects compared by identity is.
fn logical_not(v: &Value) -> ApiResult<Value> {
    if is_element(v) {
        let e = crate::objects::to_element(v, None)?;
        // `~x` of an integer element is `bitwise_not`, of a condition its
        // negation.
        return Ok(crate::objects::element(match e.dtype() {
            tir::DataType::Bool => te::Value::new(te::ValueKind::Not(e)),
            t if t.is_float() => {
                return Err(type_error(
                    None,
                    format!(
                        "`~` needs an integer or a condition, found a {} value",
                        t.name()
                    ),
                ))
            }
            _ => te::Value::call(tir::Intrinsic::BitwiseNot, vec![e]),
        }));
    }
    match promote(v) {
        Value::Index(e) if e.ty() == arith::Type::Bool => Ok(Value::Index(Expr::not(e))),
        Value::Bool(b) => Ok(Value::Bool(!b)),
        other => Err(type_error(
            None,
            format!(
                "`~` needs a condition (such as `i < n`), found a {}",
                match &other {
                    Value::Index(_) => "integer expression",
                    o => o.type_name(),
                }
            ),
        )),
    }
}

/// `lhs op rhs` for a comparison; see [`crate::compare`].
pub(crate) fn compare(op: CmpOp, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    // TVM's `Tensor.__eq__`: against a `PrimExpr` (an index, an element,
    // an iteration variable) the comparison of a rank-0 tensor's element;
    // against anything else (a number, a tensor) identity, so `d == 1` is
    // `False` as in TVM, and `d.equal(1)` or `d() == 1` compare the value.
    let tensor = |v: &Value| matches!(v, Value::Object(Object::Tensor(_)));
    if matches!(op, CmpOp::Eq | CmpOp::Ne) && (tensor(lhs) || tensor(rhs)) {
        let other = if tensor(lhs) { rhs } else { lhs };
        let expression =
            matches!(promote(other), Value::Index(_)) || (is_element(other) && !tensor(other));
        if !expression {
            return Ok(Value::Bool(equal(lhs, rhs) == (op == CmpOp::Eq)));
        }
    }
    if let (Value::Object(a), Value::Object(b)) = (lhs, rhs) {
        // Two tensors compare by identity (two of no dimensions too: TVM
        // refuses `==` between them).
        let tensors = matches!((a, b), (Object::Tensor(_), Object::Tensor(_)));
        if !tensors && (is_element(lhs) || is_element(rhs)) {
            return compare_elements(op, lhs, rhs);
        }
        // TVM objects compare by identity (`iv == C.op.axis[0]`).
        if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            return Ok(Value::Bool(equal(lhs, rhs) == (op == CmpOp::Eq)));
        }
    }
    let (lhs, rhs) = (&promote(lhs), &promote(rhs));
    match (lhs, rhs) {
        (Value::Index(_), Value::Int(_) | Value::Index(_)) | (Value::Int(_), Value::Index(_)) => {
            let (a, b) = (as_index(lhs).expect("index"), as_index(rhs).expect("index"));
            Ok(Value::Index(Expr::cmp(op, a, b)))
        }
        _ if is_element(lhs) || is_element(rhs) => compare_elements(op, lhs, rhs),
        _ if matches!(op, CmpOp::Eq | CmpOp::Ne) => {
            let same = equal(lhs, rhs);
            Ok(Value::Bool(same == (op == CmpOp::Eq)))
        }
        _ => Err(unsupported(op.symbol(), lhs, rhs)),
    }
}

/// A comparison of tensor elements: a condition per element, as TVM
/// builds it.
fn compare_elements(op: CmpOp, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    let a = crate::objects::to_element(lhs, None)?;
    let b = crate::objects::to_element(rhs, None)?;
    let constant = crate::objects::element_constant;
    if let (Some(x), Some(y)) = (constant(&a), constant(&b)) {
        // Two constants compare to a constant condition, as TVM folds them.
        return Ok(Value::Index(Expr::bool(op.apply(x, y))));
    }
    Ok(crate::objects::element(te::Value::cmp(op, a, b)))
}

/// Python `==` for values that are not numbers: same string, same items,
/// the same TVM object or function.
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
        (Value::Function(a), Value::Function(b)) => a == b,
        (Value::Object(a), Value::Object(b)) => a.same_as(b),
        (Value::Host(a), Value::Host(b)) => a.same_as(&**b),
        _ => false,
    }
}

/// Python `==` of two items of a sequence or keys of a dict: numbers by
/// value, expressions by structure, objects by identity.
pub(crate) fn values_equal(a: &Value, b: &Value) -> bool {
    match (as_int(a), as_int(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (a, b) {
            (Value::Index(x), Value::Index(y)) => x == y,
            _ => equal(a, b),
        },
    }
}

/// An integer or bool as an `i64`.
pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// An integer or index expression as an index expression.
pub fn as_index(v: &Value) -> Option<Expr> {
    match v {
        Value::Index(e) => Some(e.clone()),
        _ => as_int(v).map(Expr::int),
    }
}

/// Python truthiness; see [`crate::truth`].
pub(crate) fn truth(v: &Value) -> ApiResult<bool> {
    Ok(match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::Tuple(t) => !t.is_empty(),
        Value::List(l) => !l.borrow().is_empty(),
        Value::Dict(d) => !d.is_empty(),
        Value::MutableDict(d) => !d.borrow().is_empty(),
        Value::Set(s) => !s.borrow().is_empty(),
        Value::Index(e) => match identity_truth(e).or_else(|| crate::objects::decide(e)) {
            Some(b) => b,
            None => return Err(undecided(e)),
        },
        // TVM raises here too: a tensor element has no value in Python.
        Value::Object(Object::Element(e)) => {
            return Err(ApiError::new(
                ErrorClass::ValueError,
                format!(
                    "cannot use `{e}` as a Python bool: tensor elements have no value until \
                     the program runs; use tvm.tir.Select or tvm.tir.if_then_else"
                ),
            ))
        }
        _ => true,
    })
}

/// `bool(a == b)` and `bool(a != b)` where a side is not a constant: TVM's
/// `EqualOp` and `NotEqualOp` answer by node identity (`a.same_as(b)`), so
/// two different variables, or two separately built `x + 1`, are unequal
/// (not an error, and not decided by simplifying). Two constants compare by
/// value.
fn identity_truth(e: &Expr) -> Option<bool> {
    match e.kind() {
        arith::ExprKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), a, b)
            if a.as_int().is_none() || b.as_int().is_none() =>
        {
            let same =
                a.ptr_eq(b) || matches!((a.as_var(), b.as_var()), (Some(x), Some(y)) if x == y);
            Some(same == (*op == CmpOp::Eq))
        }
        _ => None,
    }
}

fn undecided(e: &Expr) -> ApiError {
    ApiError::new(
        ErrorClass::ValueError,
        format!(
            "cannot decide `{e}`: it depends on symbolic values that rangefinder \
             cannot resolve"
        ),
    )
}
