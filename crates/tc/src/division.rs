//! Bounds on an index with integer division, rewritten without it.
//!
//! TC's `/` on integers is Halide's: it rounds toward negative infinity
//! (`-1 / 2 == -1`, where C's truncation gives `0`). With floor division by
//! a positive constant `c`, for every integer `x`:
//!
//! - `l <= x / c` holds exactly when `c * l <= x`;
//! - `x / c < h` holds exactly when `x < c * h`.
//!
//! So `0 <= (a*i + b) / c < N` becomes `0 <= a*i + b < c * N`, which the
//! linear solver handles, and the range found is exactly the set of `i`
//! satisfying the original condition (for negative values too: the
//! equivalences above are where floor and truncation differ, and they hold
//! for floor only). This is what TC's solver gives: `O(i) = I(i / 2)`
//! infers `0 <= i < 2 * N`.
//!
//! The division must be one term of a sum, with coefficient `1` or `-1`,
//! whose other terms do not mention the variable solved for; nested
//! divisions (`(i / 2 + 1) / 3`) are peeled one at a time.

use arith::{CmpOp, Expr, ExprKind, Var};

/// How many divisions one condition may peel (each is one nesting level).
const MAX_PEEL: usize = 64;

/// `cond`, a comparison bounding an expression of `var`, without its
/// divisions by positive constants when they can be removed exactly; else
/// `cond` unchanged: `0 <= i // 2` becomes `0 <= i`, `i // 2 < N` becomes
/// `i < 2 * N`.
pub(crate) fn without_division(cond: &Expr, var: &Var) -> Expr {
    let mut cond = cond.clone();
    for _ in 0..MAX_PEEL {
        match peel(&cond, var) {
            Some(next) => cond = next,
            None => break,
        }
    }
    cond
}

/// One bound of the form `lower <= e` or `e < upper`, `e` the side that
/// mentions the variable.
enum Bound {
    Lower(Expr),
    Upper(Expr),
}

/// Removes the outermost division of the variable's side of `cond`.
fn peel(cond: &Expr, var: &Var) -> Option<Expr> {
    let ExprKind::Cmp(op, a, b) = cond.kind() else {
        return None;
    };
    let one = Expr::int(1);
    // Normalised to `lower <= e` or `e < upper` (integers: `l < e` is
    // `l + 1 <= e`, `e <= h` is `e < h + 1`).
    let (bound, e) = match (op, a.uses_var(var), b.uses_var(var)) {
        (CmpOp::Le, false, true) => (Bound::Lower(a.clone()), b),
        (CmpOp::Lt, false, true) => (Bound::Lower(Expr::add(a.clone(), one)), b),
        (CmpOp::Ge, true, false) => (Bound::Lower(b.clone()), a),
        (CmpOp::Gt, true, false) => (Bound::Lower(Expr::add(b.clone(), one)), a),
        (CmpOp::Lt, true, false) => (Bound::Upper(b.clone()), a),
        (CmpOp::Le, true, false) => (Bound::Upper(Expr::add(b.clone(), one)), a),
        (CmpOp::Gt, false, true) => (Bound::Upper(a.clone()), b),
        (CmpOp::Ge, false, true) => (Bound::Upper(Expr::add(a.clone(), one)), b),
        _ => return None,
    };
    let (negative, x, c, rest) = split_division(e, var)?;
    // `e = ±(x / c) + rest`.
    Some(match (bound, negative) {
        // l <= x/c + r  <=>  c*(l - r) <= x
        (Bound::Lower(l), false) => Expr::le(Expr::mul(c, Expr::sub(l, rest)), x),
        // x/c + r < h  <=>  x < c*(h - r)
        (Bound::Upper(h), false) => Expr::lt(x, Expr::mul(c, Expr::sub(h, rest))),
        // l <= r - x/c  <=>  x/c < r - l + 1  <=>  x < c*(r - l + 1)
        (Bound::Lower(l), true) => {
            Expr::lt(x, Expr::mul(c, Expr::add(Expr::sub(rest, l), Expr::int(1))))
        }
        // r - x/c < h  <=>  r - h + 1 <= x/c  <=>  c*(r - h + 1) <= x
        (Bound::Upper(h), true) => {
            Expr::le(Expr::mul(c, Expr::add(Expr::sub(rest, h), Expr::int(1))), x)
        }
    })
}

/// `e` as `±(x / c) + rest` with `c` a positive constant and `rest` free of
/// `var`: `(negative, x, c, rest)`.
fn split_division(e: &Expr, var: &Var) -> Option<(bool, Expr, Expr, Expr)> {
    // The terms of the sum, with their signs, walked without recursion.
    let mut terms: Vec<(bool, Expr)> = Vec::new();
    let mut stack = vec![(false, e.clone())];
    while let Some((neg, t)) = stack.pop() {
        match t.kind() {
            ExprKind::Add(a, b) => {
                stack.push((neg, a.clone()));
                stack.push((neg, b.clone()));
            }
            ExprKind::Sub(a, b) => {
                stack.push((neg, a.clone()));
                stack.push((!neg, b.clone()));
            }
            _ => terms.push((neg, t)),
        }
    }
    let mut with_var = terms.iter().filter(|(_, t)| t.uses_var(var));
    let (negative, term) = with_var.next()?.clone();
    if with_var.next().is_some() {
        return None;
    }
    let ExprKind::FloorDiv(x, c) = term.kind() else {
        return None;
    };
    if c.as_int().is_none_or(|c| c <= 0) || !x.uses_var(var) {
        return None;
    }
    let mut rest = Expr::int(0);
    for (neg, t) in terms {
        if t.uses_var(var) {
            continue;
        }
        rest = if neg {
            Expr::sub(rest, t)
        } else {
            Expr::add(rest, t)
        };
    }
    Some((negative, x.clone(), c.clone(), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `i` in a window satisfies the rewritten condition exactly when
    /// it satisfies the original one, for each size value.
    #[test]
    fn rewriting_keeps_the_set_of_solutions() {
        let i = Var::new("i");
        let n = Var::new("N");
        let ie = i.expr();
        let forms = [
            Expr::floor_div(ie.clone(), Expr::int(2)),
            Expr::floor_div(Expr::add(ie.clone(), Expr::int(1)), Expr::int(2)),
            Expr::floor_div(Expr::sub(ie.clone(), Expr::int(2)), Expr::int(3)),
            Expr::sub(Expr::int(5), Expr::floor_div(ie.clone(), Expr::int(3))),
            Expr::add(
                Expr::floor_div(
                    Expr::add(Expr::floor_div(ie.clone(), Expr::int(2)), Expr::int(1)),
                    Expr::int(3),
                ),
                n.expr(),
            ),
            Expr::floor_div(Expr::mul(Expr::int(-3), ie.clone()), Expr::int(4)),
        ];
        for e in forms {
            let conds = [
                Expr::le(Expr::int(0), e.clone()),
                Expr::lt(e.clone(), n.expr()),
                Expr::lt(Expr::int(1), e.clone()),
                Expr::le(e.clone(), n.expr()),
                Expr::cmp(CmpOp::Ge, e.clone(), Expr::int(-1)),
                Expr::cmp(CmpOp::Gt, n.expr(), e.clone()),
            ];
            for cond in conds {
                let r = without_division(&cond, &i);
                assert!(!r.to_string().contains("//"), "{cond} became {r}");
                for nv in 1..5 {
                    for iv in -40..40 {
                        let env = |v: &Var| {
                            if *v == i {
                                Some(iv)
                            } else {
                                Some(nv)
                            }
                        };
                        assert_eq!(
                            cond.eval(&env).ok(),
                            r.eval(&env).ok(),
                            "{cond} vs {r} at i = {iv}, N = {nv}"
                        );
                    }
                }
            }
        }
    }
}
