//! Rules for `select`.

use super::sum::Sum;
use super::{Info, Out, Simplifier};
use crate::analyzer::Analyzer;
use crate::bound::{ConstBound, NEG_INF, POS_INF};
use crate::expr::{CmpOp, Expr, ExprKind, Type, Var};

/// A copy of `an` that also knows `v` lies in `bound`.
fn narrowed(an: &Analyzer, v: &Var, bound: ConstBound) -> Analyzer {
    let mut an = an.clone();
    an.update_bound(v, bound);
    an
}

/// `e` with every subtree equal to `from` replaced by `to`; `e` itself
/// (the same node) when there is none.
fn replace_subtree(e: &Expr, from: &Expr, to: &Expr) -> Expr {
    if e == from {
        return to.clone();
    }
    let kids = e.children();
    if kids.is_empty() || e.node_count() <= from.node_count() {
        return e.clone();
    }
    let new: Vec<Expr> = kids.iter().map(|k| replace_subtree(k, from, to)).collect();
    if new.iter().zip(&kids).all(|(n, k)| n.ptr_eq(k)) {
        return e.clone();
    }
    e.with_children(&new)
}

impl Simplifier<'_> {
    pub(super) fn visit_select(&mut self, c: &Expr, a: &Expr, b: &Expr) -> Out {
        let (c, _) = self.visit(c)?;
        // A decided condition only simplifies the branch it picks: the other
        // one may be undefined there (`select(x != 0, y // x, 0)`).
        match c.as_bool() {
            Some(true) => return self.visit(a),
            Some(false) => return self.visit(b),
            None => {}
        }
        // Each branch is simplified knowing how the condition came out, when
        // the condition bounds one variable: in `select(x > 2, e, f)`, `e`
        // sees `x >= 3` and `f` sees `x <= 2`.
        let (a, b) = match self.var_interval(&c)? {
            Some((v, lo, hi)) => {
                let known = self.an.var_bound(&v);
                let then_an = narrowed(self.an, &v, known.intersect(ConstBound::new(lo, hi)));
                let else_range = if lo == NEG_INF {
                    hi.checked_add(1).map(|h| ConstBound::new(h, POS_INF))
                } else if hi == POS_INF {
                    lo.checked_sub(1).map(|l| ConstBound::new(NEG_INF, l))
                } else {
                    None
                };
                let a = Simplifier::new(&then_an).visit(a)?.0;
                let b = match else_range {
                    Some(r) => {
                        Simplifier::new(&narrowed(self.an, &v, known.intersect(r)))
                            .visit(b)?
                            .0
                    }
                    None => self.visit(b)?.0,
                };
                (a, b)
            }
            None => {
                let (a, b) = (self.visit(a)?.0, self.visit(b)?.0);
                self.pin_branches(&c, a, b)?
            }
        };
        self.make_select(c, a, b)
    }

    /// The branches of `select(c, a, b)` with what `c` pins: when `c`
    /// bounds an index expression `e` (not a lone variable) and, with
    /// `e`'s own bounds, leaves it one value `v` in a branch, `e` is `v`
    /// there: `select(x % 4 < 1, x % 4, 0)` is `select(x % 4 < 1, 0, 0)`,
    /// which is `0`. Terminates: a branch is simplified again only when a
    /// subtree of two or more nodes became a constant.
    fn pin_branches(&mut self, c: &Expr, a: Expr, b: Expr) -> crate::error::Result<(Expr, Expr)> {
        let Some(iv) = self.as_interval(c)? else {
            return Ok((a, b));
        };
        let e = iv.form.rebuild();
        if e.node_count() < 2 {
            return Ok((a, b));
        }
        let known = self.sum_bound(&iv.form);
        let then_bound = known.intersect(ConstBound::new(iv.lo, iv.hi));
        let else_bound = if iv.lo == NEG_INF {
            iv.hi.checked_add(1).map(|h| ConstBound::new(h, POS_INF))
        } else if iv.hi == POS_INF {
            iv.lo.checked_sub(1).map(|l| ConstBound::new(NEG_INF, l))
        } else {
            None
        }
        .map(|r| known.intersect(r));
        let a = match then_bound.as_point() {
            Some(v) => self.replace_and_visit(a, &e, v)?,
            None => a,
        };
        let b = match else_bound.and_then(|r| r.as_point()) {
            Some(v) => self.replace_and_visit(b, &e, v)?,
            None => b,
        };
        Ok((a, b))
    }

    /// `branch` with every subtree equal to `e` replaced by `v`, simplified
    /// again when something was replaced (small branches only: the walk
    /// recurses).
    fn replace_and_visit(&mut self, branch: Expr, e: &Expr, v: i64) -> crate::error::Result<Expr> {
        if branch.node_count() > 64 {
            return Ok(branch);
        }
        let replaced = replace_subtree(&branch, e, &Expr::int(v));
        if replaced.ptr_eq(&branch) {
            return Ok(branch);
        }
        Ok(self.visit(&replaced)?.0)
    }

    /// `(v, lo, hi)` when `c` says exactly `lo <= v <= hi` for a variable.
    fn var_interval(&mut self, c: &Expr) -> crate::error::Result<Option<(Var, i64, i64)>> {
        let Some(iv) = self.as_interval(c)? else {
            return Ok(None);
        };
        match (iv.form.terms.as_slice(), iv.form.konst) {
            ([t], 0) if t.coeff == 1 => Ok(t.atom.as_var().map(|v| (v.clone(), iv.lo, iv.hi))),
            _ => Ok(None),
        }
    }

    /// `select(c, a, b)` for simplified operands.
    pub(crate) fn make_select(&mut self, c: Expr, a: Expr, b: Expr) -> Out {
        match c.as_bool() {
            Some(true) => {
                let i = self.info(&a);
                return Ok((a, i));
            }
            Some(false) => {
                let i = self.info(&b);
                return Ok((b, i));
            }
            None => {}
        }
        // The rule table (`rules.rs`): each result is one of the branches,
        // already simplified.
        if let Some(kept) = super::rules::apply_to(
            super::rules::select_rules(),
            super::rules::PatOp::Select,
            &[&c, &a, &b],
            || Expr::select(c.clone(), a.clone(), b.clone()),
        ) {
            let i = self.info(&kept);
            return Ok((kept, i));
        }
        // select(p == q, p, q) with the comparison normalised to
        // `p - q == 0` (or `q - p == 0`): where the condition picks the
        // other branch, the two are equal.
        if let ExprKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), p, q) = c.kind() {
            if q.is_int(0) {
                let mut d = Sum::of(&a)?;
                d.add_expr(&b, -1)?;
                let mut pd = Sum::of(p)?;
                let same = d.add_sum(&pd, -1).is_ok() && d.terms.is_empty() && d.konst == 0;
                pd.scale(-1)?;
                let mut d2 = Sum::of(&a)?;
                d2.add_expr(&b, -1)?;
                let opposite = d2.add_sum(&pd, -1).is_ok() && d2.terms.is_empty() && d2.konst == 0;
                if same || opposite {
                    let kept = if *op == CmpOp::Eq { b } else { a };
                    let i = self.info(&kept);
                    return Ok((kept, i));
                }
            }
        }
        // select(c1, select(c2, x, y), y) -> select(c1 and c2, x, y)
        if let ExprKind::Select(c2, x, y) = a.kind() {
            if *y == b {
                let (both, _) = self.and_simplified(c.clone(), c2.clone())?;
                let plain = Expr::select(c.clone(), a.clone(), b.clone()).node_count();
                let (alt, ai) = self.make_select(both, x.clone(), b.clone())?;
                if alt.node_count() < plain {
                    return Ok((alt, ai));
                }
            }
        }
        // select(c1, x, select(c2, x, y)) -> select(c1 or c2, x, y)
        if let ExprKind::Select(c2, x, y) = b.kind() {
            if *x == a {
                let (either, _) = self.or_simplified(c.clone(), c2.clone())?;
                let plain = Expr::select(c.clone(), a.clone(), b.clone()).node_count();
                let (alt, ai) = self.make_select(either, a.clone(), y.clone())?;
                if alt.node_count() < plain {
                    return Ok((alt, ai));
                }
            }
        }
        if let ExprKind::Not(inner) = c.kind() {
            return self.make_select(inner.clone(), b, a);
        }
        if a.ty() == Type::Bool {
            match (a.as_bool(), b.as_bool()) {
                (Some(true), Some(false)) => return Ok((c, Info::BOOL)),
                (Some(false), Some(true)) => return self.not_simplified(c),
                (Some(true), None) => return self.or_simplified(c, b),
                (Some(false), None) => {
                    let (nc, _) = self.not_simplified(c)?;
                    return self.and_simplified(nc, b);
                }
                (None, Some(true)) => {
                    let (nc, _) = self.not_simplified(c)?;
                    return self.or_simplified(nc, a);
                }
                (None, Some(false)) => return self.and_simplified(c, a),
                _ => {}
            }
        }
        let ia = self.info(&a);
        let ib = self.info(&b);
        let info = Info {
            bound: ia.bound.union(ib.bound),
            modular: ia.modular.union(ib.modular),
        };
        Ok((Expr::select(c, a, b), info))
    }
}
