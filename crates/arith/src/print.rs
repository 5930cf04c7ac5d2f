//! Printing in the same Python-subset syntax that [`crate::parse`] reads:
//! whatever is printed parses back to the same tree.

use crate::expr::{Expr, ExprKind};
use std::fmt;

/// Binding strength, loosest first, as in Python.
fn level(e: &Expr) -> u8 {
    use ExprKind::*;
    match e.kind() {
        Or(..) => 1,
        And(..) => 2,
        Not(..) => 3,
        Cmp(..) => 4,
        Add(..) | Sub(..) => 5,
        Mul(..) | FloorDiv(..) | FloorMod(..) => 6,
        Int(v) if *v < 0 => 7,
        _ => 8,
    }
}

fn child(f: &mut fmt::Formatter<'_>, e: &Expr, min_level: u8) -> fmt::Result {
    if level(e) < min_level {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

/// Left-associative binary operator at `lv`: the right child binds tighter.
fn binary(f: &mut fmt::Formatter<'_>, a: &Expr, op: &str, b: &Expr, lv: u8) -> fmt::Result {
    child(f, a, lv)?;
    write!(f, " {op} ")?;
    child(f, b, lv + 1)
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ExprKind::*;
        match self.kind() {
            Int(v) => write!(f, "{v}"),
            Bool(true) => f.write_str("True"),
            Bool(false) => f.write_str("False"),
            Var(v) => f.write_str(v.name()),
            Add(a, b) => binary(f, a, "+", b, 5),
            Sub(a, b) => binary(f, a, "-", b, 5),
            Mul(a, b) => binary(f, a, "*", b, 6),
            FloorDiv(a, b) => binary(f, a, "//", b, 6),
            FloorMod(a, b) => binary(f, a, "%", b, 6),
            Cmp(op, a, b) => {
                child(f, a, 5)?;
                write!(f, " {} ", op.symbol())?;
                child(f, b, 5)
            }
            And(a, b) => binary(f, a, "and", b, 2),
            Or(a, b) => binary(f, a, "or", b, 1),
            Not(a) => {
                f.write_str("not ")?;
                child(f, a, 3)
            }
            CeilDiv(a, b) => write!(f, "ceildiv({a}, {b})"),
            Min(a, b) => write!(f, "min({a}, {b})"),
            Max(a, b) => write!(f, "max({a}, {b})"),
            Select(c, a, b) => write!(f, "select({c}, {a}, {b})"),
        }
    }
}
