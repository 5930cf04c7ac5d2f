//! The scalar types of TC expressions, as TC's semantic checks give them.
//!
//! Literals are `int32` or `float`; index variables and sizes are `int32`;
//! a tensor read has the tensor's element type; a cast its target type;
//! comparisons and `&& || !` are `bool`; arithmetic, `min`, `max` and the
//! branches of `?:` combine their operands with [`match_types`]; a
//! built-in's type is `float` matched with its arguments'.
//!
//! Two rules use them: an index must be integral (not floating point), and
//! a statement may store into an output declared with a type only a value
//! whose type matches into that type (`float` into `int32` needs a cast).

use crate::ast::{BinaryOp, ExprArena, ExprId, ExprKind, ScalarType, UnaryOp};
use std::collections::HashMap;

/// The kind and width of a scalar type (`float` and `float32` are one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    UInt,
    Int,
    Float,
}

fn info(t: ScalarType) -> (Code, u32) {
    use ScalarType::*;
    match t {
        Bool => (Code::UInt, 1),
        UInt8 => (Code::UInt, 8),
        UInt16 => (Code::UInt, 16),
        UInt32 => (Code::UInt, 32),
        UInt64 => (Code::UInt, 64),
        Int8 => (Code::Int, 8),
        Int16 => (Code::Int, 16),
        Int32 => (Code::Int, 32),
        Int64 => (Code::Int, 64),
        Float16 => (Code::Float, 16),
        Float32 | Float => (Code::Float, 32),
        Float64 | Double => (Code::Float, 64),
    }
}

fn signed(bits: u32) -> ScalarType {
    match bits {
        0..=8 => ScalarType::Int8,
        9..=16 => ScalarType::Int16,
        17..=32 => ScalarType::Int32,
        _ => ScalarType::Int64,
    }
}

/// Whether two types are the same type (`float` is `float32`).
pub fn same_type(a: ScalarType, b: ScalarType) -> bool {
    info(a) == info(b)
}

/// The type of a binary operation on `a` and `b` (TC's `match_types`): a
/// float operand wins (the wider float if both are), two unsigned give the
/// wider unsigned, otherwise a signed integer as wide as the wider operand.
pub fn match_types(a: ScalarType, b: ScalarType) -> ScalarType {
    let ((ca, ba), (cb, bb)) = (info(a), info(b));
    if (ca, ba) == (cb, bb) {
        return a;
    }
    match (ca, cb) {
        (Code::Float, Code::Float) => {
            if ba > bb {
                a
            } else {
                b
            }
        }
        (Code::Float, _) => a,
        (_, Code::Float) => b,
        (Code::UInt, Code::UInt) => {
            if ba > bb {
                a
            } else {
                b
            }
        }
        _ => signed(ba.max(bb)),
    }
}

/// The type of expression `root`; `name` gives the type of an identifier,
/// `tensor` the element type of a tensor read by a call that is not a
/// built-in (`None` for a built-in). Computed bottom-up without recursion.
pub fn type_of(
    arena: &ExprArena,
    root: ExprId,
    name: &dyn Fn(&str) -> ScalarType,
    tensor: &dyn Fn(&str) -> Option<ScalarType>,
) -> ScalarType {
    let mut ty: HashMap<ExprId, ScalarType> = HashMap::new();
    let order = arena.preorder(root);
    // Reversed preorder visits every node after its descendants.
    for &id in order.iter().rev() {
        let of = |x: &ExprId| ty.get(x).copied().unwrap_or(ScalarType::Int32);
        let t = match &arena.get(id).kind {
            ExprKind::Int(_) => ScalarType::Int32,
            ExprKind::Float(_) => ScalarType::Float,
            ExprKind::Ident(n) => name(n),
            ExprKind::Call(n, args) => match tensor(&n.name) {
                Some(t) => t,
                None => args
                    .iter()
                    .fold(ScalarType::Float, |acc, a| match_types(acc, of(a))),
            },
            ExprKind::Cast(t, _) => *t,
            ExprKind::Unary(UnaryOp::Not, _) => ScalarType::Bool,
            ExprKind::Unary(UnaryOp::Neg, a) => of(a),
            ExprKind::Binary(op, a, b) => {
                if op.is_comparison() || matches!(op, BinaryOp::And | BinaryOp::Or) {
                    ScalarType::Bool
                } else {
                    match_types(of(a), of(b))
                }
            }
            ExprKind::Ternary(_, a, b) => match_types(of(a), of(b)),
        };
        ty.insert(id, t);
    }
    ty.get(&root).copied().unwrap_or(ScalarType::Int32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn match_types_follows_tc() {
        assert_eq!(match_types(Int32, Float), Float);
        assert_eq!(match_types(Double, Float), Double);
        assert_eq!(match_types(UInt8, UInt16), UInt16);
        assert_eq!(match_types(UInt8, Int8), Int8);
        assert_eq!(match_types(UInt32, Int16), Int32);
        assert_eq!(match_types(Bool, Int64), Int64);
        assert_eq!(match_types(Float, Float32), Float);
        // Storing `float` into `int32` matches to `float`: not the output type.
        assert!(!same_type(match_types(Float, Int32), Int32));
        assert!(same_type(match_types(Int32, Int64), Int64));
    }
}
