//! Expression constructors that fold the way XLA's builders do.
//!
//! XLA's `SymbolicExpr` operators fold trivial cases as they build: `x + 0`
//! is `x`, `2 * x` is `x * 2`, `x mod 1` is `0`, constants combine. Maps
//! built by the parser, by composition and by rescaling go through these
//! constructors so that their trees (and so their printed text) match XLA's.
//! Nothing here uses variable ranges; that is [`crate::IndexingMap::simplify`].
//! A fold that would overflow is skipped, leaving the exact unfolded tree.

use arith::{Expr, ExprKind};

/// `a + b`.
pub fn add(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => match x.checked_add(y) {
            Some(v) => Expr::int(v),
            None => Expr::add(a, b),
        },
        (Some(0), None) => b,
        (None, Some(0)) => a,
        _ => Expr::add(a, b),
    }
}

/// `-a`, as XLA writes it: a negated constant, a negated coefficient, or
/// `a * -1`.
pub fn neg(a: Expr) -> Expr {
    match a.kind() {
        ExprKind::Int(v) => match v.checked_neg() {
            Some(n) => Expr::int(n),
            None => Expr::mul(a, Expr::int(-1)),
        },
        ExprKind::Mul(x, c) if c.as_int() == Some(-1) => x.clone(),
        ExprKind::Mul(x, c) => match c.as_int().and_then(i64::checked_neg) {
            Some(n) => Expr::mul(x.clone(), Expr::int(n)),
            None => Expr::mul(a, Expr::int(-1)),
        },
        _ => Expr::mul(a, Expr::int(-1)),
    }
}

/// `a - b`, built as `a + (-b)` like XLA.
pub fn sub(a: Expr, b: Expr) -> Expr {
    add(a, neg(b))
}

/// `a * b`, with a constant factor moved to the right.
pub fn mul(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => x
            .checked_mul(y)
            .map(Expr::int)
            .unwrap_or_else(|| Expr::mul(a, b)),
        (Some(_), None) => mul(b, a),
        (None, Some(0)) => b,
        (None, Some(1)) => a,
        (None, Some(c)) => match a.kind() {
            // (x * c1) * c2 -> x * (c1 * c2)
            ExprKind::Mul(x, c1) => match c1.as_int().and_then(|c1| c1.checked_mul(c)) {
                Some(k) => mul(x.clone(), Expr::int(k)),
                None => Expr::mul(a, b),
            },
            _ => Expr::mul(a, b),
        },
        (None, None) => Expr::mul(a, b),
    }
}

/// `a / b`, floor division.
pub fn floor_div(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (_, Some(1)) => a,
        (Some(x), Some(y)) => match arith::num::floor_div(x, y) {
            Ok(v) => Expr::int(v),
            Err(_) => Expr::floor_div(a, b),
        },
        _ => Expr::floor_div(a, b),
    }
}

/// `a ceildiv b`.
pub fn ceil_div(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (_, Some(1)) => a,
        (Some(x), Some(y)) => match arith::num::ceil_div(x, y) {
            Ok(v) => Expr::int(v),
            Err(_) => Expr::ceil_div(a, b),
        },
        _ => Expr::ceil_div(a, b),
    }
}

/// `a mod b`, floor modulo.
pub fn modulo(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (_, Some(1)) | (_, Some(-1)) => Expr::int(0),
        (Some(x), Some(y)) => match arith::num::floor_mod(x, y) {
            Ok(v) => Expr::int(v),
            Err(_) => Expr::floor_mod(a, b),
        },
        _ => Expr::floor_mod(a, b),
    }
}

/// `min(a, b)`.
pub fn min(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(x.min(y)),
        _ => Expr::min(a, b),
    }
}

/// `max(a, b)`.
pub fn max(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(x.max(y)),
        _ => Expr::max(a, b),
    }
}

/// `e` with every variable `v` for which `f(v)` is `Some` replaced, rebuilt
/// bottom-up through the folding constructors above. Non-index nodes
/// (conditions, `select`) are rebuilt unchanged.
pub fn substitute(e: &Expr, f: &mut impl FnMut(&arith::Var) -> Option<Expr>) -> Expr {
    rebuild(e, &mut |leaf: &Expr| match leaf.kind() {
        ExprKind::Var(v) => f(v),
        _ => None,
    })
}

/// Rebuilds `e` through the folding constructors, replacing leaves for which
/// `leaf` returns `Some`.
fn rebuild(e: &Expr, leaf: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    use ExprKind::*;
    let op: fn(Expr, Expr) -> Expr = match e.kind() {
        Int(_) | Bool(_) | Var(_) => return leaf(e).unwrap_or_else(|| e.clone()),
        Add(..) => add,
        Sub(..) => sub,
        Mul(..) => mul,
        FloorDiv(..) => floor_div,
        FloorMod(..) => modulo,
        CeilDiv(..) => ceil_div,
        Min(..) => min,
        Max(..) => max,
        _ => {
            let kids: Vec<Expr> = e.children().into_iter().map(|c| rebuild(c, leaf)).collect();
            return e.with_children(&kids);
        }
    };
    let kids = e.children();
    let a = rebuild(kids[0], leaf);
    let b = rebuild(kids[1], leaf);
    op(a, b)
}

/// `e` rebuilt through the folding constructors (no substitution).
pub fn fold(e: &Expr) -> Expr {
    rebuild(e, &mut |_: &Expr| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arith::Var;

    #[test]
    fn folds_like_xla_builders() {
        let x = Var::new("x").expr();
        assert_eq!(add(x.clone(), Expr::int(0)), x);
        assert_eq!(
            mul(Expr::int(2), x.clone()),
            Expr::mul(x.clone(), Expr::int(2))
        );
        assert_eq!(
            mul(mul(x.clone(), Expr::int(2)), Expr::int(-3)),
            Expr::mul(x.clone(), Expr::int(-6))
        );
        assert_eq!(
            sub(x.clone(), Expr::int(5)),
            Expr::add(x.clone(), Expr::int(-5))
        );
        assert_eq!(neg(neg(x.clone())), x);
        assert_eq!(
            modulo(Expr::add(x.clone(), Expr::int(-5)), Expr::int(1)),
            Expr::int(0)
        );
        assert_eq!(floor_div(Expr::int(-7), Expr::int(2)), Expr::int(-4));
        assert_eq!(ceil_div(Expr::int(-7), Expr::int(2)), Expr::int(-3));
        // an overflowing fold keeps the exact tree
        let big = add(Expr::int(i64::MAX), Expr::int(1));
        assert_eq!(big, Expr::add(Expr::int(i64::MAX), Expr::int(1)));
        // a division by the constant zero is left for evaluation to reject
        assert_eq!(
            floor_div(Expr::int(1), Expr::int(0)),
            Expr::floor_div(Expr::int(1), Expr::int(0))
        );
    }

    #[test]
    fn substitution_refolds() {
        let x = Var::new("x");
        let y = Var::new("y");
        let e = Expr::add(x.expr(), y.expr());
        let out = substitute(&e, &mut |v| (*v == x).then(|| Expr::int(0)));
        assert_eq!(out, y.expr());
    }
}
