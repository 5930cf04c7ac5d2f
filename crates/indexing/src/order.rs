//! XLA's canonical term order for simplified expressions.
//!
//! `arith` simplifies into its own canonical trees (sums as `a + b - c`,
//! terms sorted by its structural order). XLA's `Canonicalize` flattens sums
//! and sorts the summands by node type (`add < mul < mod < floordiv <
//! ceildiv < max < min < variable < constant`), then by left and right
//! operand, with variables ordered dims before symbols before runtime vars.
//! Negative coefficients stay as `x * -c` (printed `- x * c`), constants go to
//! the right of products. [`to_xla_order`] rewrites a simplified tree into
//! that shape, so a simplified map prints as XLA prints it.

use arith::{Expr, ExprKind, Var};
use std::cmp::Ordering;

/// `e` (already simplified) rebuilt in XLA's canonical order; `rank` gives a
/// variable's position among the map's variables.
pub fn to_xla_order(e: &Expr, rank: &dyn Fn(&Var) -> usize) -> Expr {
    use ExprKind::*;
    match e.kind() {
        Add(..) | Sub(..) => sum_in_order(e, rank),
        Mul(a, b) if a.as_int().is_some() || b.as_int().is_some() => sum_in_order(e, rank),
        Mul(a, b) => {
            let (x, y) = (to_xla_order(a, rank), to_xla_order(b, rank));
            if compare(&y, &x, rank) == Ordering::Less {
                Expr::mul(y, x)
            } else {
                Expr::mul(x, y)
            }
        }
        FloorDiv(a, b) => Expr::floor_div(to_xla_order(a, rank), to_xla_order(b, rank)),
        FloorMod(a, b) => Expr::floor_mod(to_xla_order(a, rank), to_xla_order(b, rank)),
        CeilDiv(a, b) => Expr::ceil_div(to_xla_order(a, rank), to_xla_order(b, rank)),
        Min(a, b) => Expr::min(to_xla_order(a, rank), to_xla_order(b, rank)),
        Max(a, b) => Expr::max(to_xla_order(a, rank), to_xla_order(b, rank)),
        _ => e.clone(),
    }
}

/// Flattens a linear combination into `(atom, coefficient)` terms plus a
/// constant, sorts the terms and rebuilds `t1 + t2 + ... + c`.
fn sum_in_order(e: &Expr, rank: &dyn Fn(&Var) -> usize) -> Expr {
    let mut terms: Vec<(Expr, i64)> = Vec::new();
    let mut konst: i64 = 0;
    if collect(e, 1, &mut terms, &mut konst, rank).is_none() {
        // A coefficient overflowed while flattening: keep the tree as it is.
        return e.clone();
    }
    let mut scaled: Vec<Expr> = terms
        .into_iter()
        .filter(|(_, c)| *c != 0)
        .map(|(atom, c)| {
            if c == 1 {
                atom
            } else {
                Expr::mul(atom, Expr::int(c))
            }
        })
        .collect();
    scaled.sort_by(|a, b| compare(a, b, rank));
    let mut acc: Option<Expr> = None;
    for t in scaled {
        acc = Some(match acc {
            Some(a) => Expr::add(a, t),
            None => t,
        });
    }
    match (acc, konst) {
        (None, k) => Expr::int(k),
        (Some(a), 0) => a,
        (Some(a), k) => Expr::add(a, Expr::int(k)),
    }
}

fn collect(
    e: &Expr,
    coeff: i64,
    terms: &mut Vec<(Expr, i64)>,
    konst: &mut i64,
    rank: &dyn Fn(&Var) -> usize,
) -> Option<()> {
    match e.kind() {
        ExprKind::Int(v) => *konst = konst.checked_add(v.checked_mul(coeff)?)?,
        ExprKind::Add(a, b) => {
            collect(a, coeff, terms, konst, rank)?;
            collect(b, coeff, terms, konst, rank)?;
        }
        ExprKind::Sub(a, b) => {
            collect(a, coeff, terms, konst, rank)?;
            collect(b, coeff.checked_neg()?, terms, konst, rank)?;
        }
        ExprKind::Mul(a, b) if b.as_int().is_some() => {
            collect(a, coeff.checked_mul(b.as_int()?)?, terms, konst, rank)?
        }
        ExprKind::Mul(a, b) if a.as_int().is_some() => {
            collect(b, coeff.checked_mul(a.as_int()?)?, terms, konst, rank)?
        }
        _ => {
            let atom = to_xla_order(e, rank);
            match terms.iter_mut().find(|(t, _)| *t == atom) {
                Some((_, c)) => *c = c.checked_add(coeff)?,
                None => terms.push((atom, coeff)),
            }
        }
    }
    Some(())
}

/// XLA's `SymbolicExpr::operator<`: node type first, then operands.
pub fn compare(a: &Expr, b: &Expr, rank: &dyn Fn(&Var) -> usize) -> Ordering {
    use ExprKind::*;
    let ta = type_rank(a);
    let tb = type_rank(b);
    if ta != tb {
        return ta.cmp(&tb);
    }
    match (a.kind(), b.kind()) {
        (Int(x), Int(y)) => x.cmp(y),
        (Var(x), Var(y)) => rank(x).cmp(&rank(y)),
        _ => {
            let ka = a.children();
            let kb = b.children();
            for (x, y) in ka.iter().zip(kb.iter()) {
                let o = compare(x, y, rank);
                if o != Ordering::Equal {
                    return o;
                }
            }
            ka.len().cmp(&kb.len())
        }
    }
}

/// `add < mul < mod < floordiv < ceildiv < max < min < variable < constant`.
fn type_rank(e: &Expr) -> u8 {
    use ExprKind::*;
    match e.kind() {
        Add(..) | Sub(..) => 0,
        Mul(..) => 1,
        FloorMod(..) => 2,
        FloorDiv(..) => 3,
        CeilDiv(..) => 4,
        Max(..) => 5,
        Min(..) => 6,
        Var(_) => 7,
        Int(_) => 8,
        _ => 9,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arith::Var;

    #[test]
    fn sums_sort_products_first_then_variables_then_the_constant() {
        let d0 = Var::new("d0");
        let s0 = Var::new("s0");
        let rank = |v: &Var| if *v == d0 { 0 } else { 1 };
        // arith's form `d0 + s0 * 3 - 7 + (s0 % 3) * 4`
        let e = Expr::sub(
            Expr::add(
                Expr::add(d0.expr(), Expr::mul(s0.expr(), Expr::int(3))),
                Expr::mul(Expr::floor_mod(s0.expr(), Expr::int(3)), Expr::int(4)),
            ),
            Expr::int(7),
        );
        let ordered = to_xla_order(&e, &rank);
        let text = crate::print_expr(&ordered, &|v| v.name().to_string());
        assert_eq!(text, "(s0 mod 3) * 4 + s0 * 3 + d0 - 7");
    }

    #[test]
    fn negated_terms_keep_their_place() {
        let d0 = Var::new("d0");
        let d1 = Var::new("d1");
        let rank = |v: &Var| if *v == d0 { 0 } else { 1 };
        let e = Expr::sub(Expr::int(16), Expr::add(d0.expr(), d1.expr()));
        let text = crate::print_expr(&to_xla_order(&e, &rank), &|v| v.name().to_string());
        assert_eq!(text, "-d0 - d1 + 16");
    }
}
