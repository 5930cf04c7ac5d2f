//! The entry to simplification: the shortcuts that answer the smallest
//! inputs without the simplifier, and the contract every result keeps
//! (never larger, defined wherever the input is).

use super::Analyzer;
use crate::error::Result;
use crate::expr::{Expr, ExprKind};
use crate::simplify::sum::Sum;
use crate::simplify::Simplifier;
use smallvec::SmallVec;

impl Analyzer {
    /// The canonical, range-aware simplification of `e`. Constant folding is
    /// checked: overflow and constant division by zero are errors.
    ///
    /// ```
    /// let e = arith::parse("x + 2 + 3 + 4 + x").unwrap();
    /// assert_eq!(arith::Analyzer::new().simplify(&e).unwrap().to_string(), "x * 2 + 9");
    /// ```
    pub fn simplify(&self, e: &Expr) -> Result<Expr> {
        if let Some(done) = self.simplify_trivial(e) {
            return Ok(done);
        }
        if let Some(best) = self.plain_linear_form(e) {
            return Ok(self.keep_where_defined(e, best));
        }
        self.simplify_full(e)
    }

    /// [`Analyzer::simplify`] without its shortcuts.
    pub(super) fn simplify_full(&self, e: &Expr) -> Result<Expr> {
        let mut s = Simplifier::new(self);
        let (best, _) = s.visit(e)?;
        Ok(self.keep_where_defined(e, best))
    }

    /// The canonical linear form of a small sum of variables times
    /// constants (`x + x.outer * 64 + 1 - x.outer * 64` is `x + 1`), when no
    /// variable's range is a single point: no simplifier rule applies to
    /// such a sum beyond collecting it, so it is collected directly.
    /// `None` for anything else (checked against the simplifier by
    /// `trivial_forms_agree_with_the_simplifier`).
    pub(super) fn plain_linear_form(&self, e: &Expr) -> Option<Expr> {
        if e.node_count() > 32 {
            return None;
        }
        let mut plain = true;
        let mut stack: SmallVec<[&Expr; 16]> = smallvec::smallvec![e];
        while let Some(n) = stack.pop() {
            match n.kind() {
                ExprKind::Int(_) => {}
                ExprKind::Var(v) => plain &= self.var_info(v).bound.as_point().is_none(),
                ExprKind::Add(a, b) | ExprKind::Sub(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                ExprKind::Mul(a, b) if b.as_int().is_some() => stack.push(a),
                ExprKind::Mul(a, b) if a.as_int().is_some() => stack.push(b),
                _ => return None,
            }
            if !plain {
                return None;
            }
        }
        let sum = Sum::of(e).ok()?;
        match sum.as_const() {
            Some(c) => Some(Expr::int(c)),
            None => Some(sum.rebuild()),
        }
    }

    /// `best`, a rewrite of `e`, if it keeps the contract: "never larger",
    /// and defined wherever `e` is.
    pub(super) fn keep_where_defined(&self, e: &Expr, best: Expr) -> Expr {
        // The contract is "never larger": canonical forms that come out
        // bigger than what was written give way to the input itself. A
        // result is also only kept when it is defined wherever the input
        // is: a result whose intermediate values may leave `i64` on the
        // ranges (reordered sums near the ends of the range) gives way to
        // the input when the input provably stays inside, and otherwise to
        // the input with only its overflow-free parts simplified.
        if best.node_count() > e.node_count() {
            return e.clone();
        }
        if best.ptr_eq(e) || !self.may_overflow(&best) {
            return best;
        }
        if self.may_overflow(e) {
            self.simplify_where_defined(e)
        } else {
            e.clone()
        }
    }

    /// What [`Analyzer::simplify`] returns for the smallest inputs, which
    /// analyses hand it by the thousand (loop bounds, index offsets), found
    /// without starting the simplifier: a leaf, and the canonical forms of
    /// one variable with a constant (`x * 64`, `x * 64 + 63`, `x - 1`) over
    /// a variable whose range is not a single point, which no rule rewrites,
    /// and sums and products of a few constants.
    /// `None` means "run the simplifier". Checked against the simplifier by
    /// the property test `trivial_forms_agree_with_the_simplifier`.
    pub(crate) fn simplify_trivial(&self, e: &Expr) -> Option<Expr> {
        let plain_var = |x: &Expr| {
            x.as_var()
                .is_some_and(|v| self.var_info(v).bound.as_point().is_none())
        };
        // `x` or `x * c` with `c >= 2`: a term as the canonical sum writes it.
        let term = |x: &Expr| {
            plain_var(x)
                || matches!(x.kind(), ExprKind::Mul(a, c)
                    if plain_var(a) && c.as_int().is_some_and(|c| c >= 2))
        };
        // Sums and products of a few constants fold (`0 + 64 - 1`); an
        // overflow is left to the simplifier, which reports it.
        fn constant(e: &Expr) -> Option<i64> {
            let (a, b) = match e.kind() {
                ExprKind::Int(v) => return Some(*v),
                ExprKind::Add(a, b) | ExprKind::Sub(a, b) | ExprKind::Mul(a, b) => (a, b),
                _ => return None,
            };
            let (a, b) = (constant(a)?, constant(b)?);
            match e.kind() {
                ExprKind::Add(..) => a.checked_add(b),
                ExprKind::Sub(..) => a.checked_sub(b),
                _ => a.checked_mul(b),
            }
        }
        if e.node_count() <= 7 {
            if let Some(v) = constant(e) {
                return Some(Expr::int(v));
            }
        }
        match e.kind() {
            ExprKind::Int(_) | ExprKind::Bool(_) => Some(e.clone()),
            ExprKind::Var(_) | ExprKind::Mul(..) => term(e).then(|| e.clone()),
            ExprKind::Add(..) | ExprKind::Sub(..) => {
                // `t + k1 - k2 ...`: a term, then constants added or
                // subtracted, is `t + k` (`t - k` for `k < 0`, `t` for 0).
                let mut k: i64 = 0;
                let mut at = e;
                for _ in 0..8 {
                    let (l, v) = match at.kind() {
                        ExprKind::Add(l, r) => (l, r.as_int()?),
                        ExprKind::Sub(l, r) => (l, r.as_int()?.checked_neg()?),
                        _ => break,
                    };
                    k = k.checked_add(v)?;
                    at = l;
                }
                if !term(at) {
                    return None;
                }
                Some(match k {
                    0 => at.clone(),
                    _ if ptr_is_canonical(e, at, k) => e.clone(),
                    k if k > 0 => Expr::add(at.clone(), Expr::int(k)),
                    k => Expr::sub(at.clone(), Expr::int(k.checked_neg()?)),
                })
            }
            _ => None,
        }
    }
}

/// Whether `e` already is `t + k` (or `t - |k|`) over the term `t`, so
/// that it can be returned as it is.
fn ptr_is_canonical(e: &Expr, t: &Expr, k: i64) -> bool {
    match e.kind() {
        ExprKind::Add(l, r) => k > 0 && l.ptr_eq(t) && r.as_int() == Some(k),
        ExprKind::Sub(l, r) => k < 0 && l.ptr_eq(t) && r.as_int().map(|v| -v) == Some(k),
        _ => false,
    }
}
