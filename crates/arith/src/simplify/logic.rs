//! Rules for `and`, `or` and `not`.
//!
//! Comparisons of the same linear form against constants are read as
//! intervals, so `x < 0 and x > 1` is `False`, `x >= 1 or x < 1` is `True` and
//! `x < 5 and x < 3` is `x < 3`.

use super::rules::PatOp;
use super::sum::Sum;
use super::{Info, Out, Simplifier};
use crate::bound::{ConstBound, NEG_INF, POS_INF};
use crate::error::Result;
use crate::expr::{CmpOp, Expr, ExprKind};
use crate::num;

impl Simplifier<'_> {
    pub(super) fn visit_and(&mut self, a: &Expr, b: &Expr) -> Out {
        let (a, _) = self.visit(a)?;
        match a.as_bool() {
            Some(false) => return Ok((a, Info::exact(0))),
            Some(true) => return self.visit(b),
            None => {}
        }
        let (b, _) = self.visit(b)?;
        self.and_simplified(a, b)
    }

    pub(super) fn visit_or(&mut self, a: &Expr, b: &Expr) -> Out {
        let (a, _) = self.visit(a)?;
        match a.as_bool() {
            Some(true) => return Ok((a, Info::exact(1))),
            Some(false) => return self.visit(b),
            None => {}
        }
        let (b, _) = self.visit(b)?;
        self.or_simplified(a, b)
    }

    pub(super) fn visit_not(&mut self, a: &Expr) -> Out {
        let (a, _) = self.visit(a)?;
        self.not_simplified(a)
    }

    /// `not a` for a simplified operand.
    pub(crate) fn not_simplified(&mut self, a: Expr) -> Out {
        if let Some(r) = logic_rule(PatOp::Not, &[&a], || Expr::not(a.clone())) {
            return Ok((r, Info::BOOL));
        }
        match a.kind() {
            ExprKind::Bool(v) => Ok((Expr::bool(!v), Info::exact(!v as i64))),
            ExprKind::Cmp(op, x, y) => self.cmp_simplified(op.negated(), x, y),
            _ => Ok((Expr::not(a), Info::BOOL)),
        }
    }

    /// `a and b` for simplified operands.
    pub(crate) fn and_simplified(&mut self, a: Expr, b: Expr) -> Out {
        match (a.as_bool(), b.as_bool()) {
            (Some(false), _) | (_, Some(false)) => return Ok((Expr::bool(false), Info::exact(0))),
            (Some(true), _) => return Ok((b, Info::BOOL)),
            (_, Some(true)) => return Ok((a, Info::BOOL)),
            _ => {}
        }
        if let Some(r) = logic_rule(PatOp::And, &[&a, &b], || Expr::and(a.clone(), b.clone())) {
            return Ok((r, Info::BOOL));
        }
        if a == b || conjuncts(&a).contains(&&b) {
            return Ok((a, Info::BOOL));
        }
        // `a and (.. and a and ..)`: `a` stays first, because evaluation
        // stops at the first false operand and later ones may be undefined
        // there (`x != 0 and y // x > 2`).
        if conjuncts(&b).contains(&&a) {
            let rest: Vec<Expr> = conjuncts(&b)
                .into_iter()
                .filter(|c| **c != a)
                .cloned()
                .collect();
            let e = rest.into_iter().fold(a, Expr::and);
            return Ok((e, Info::BOOL));
        }
        if self.is_negation(&a, &b)? {
            return Ok((Expr::bool(false), Info::exact(0)));
        }
        if let (Some(ia), Some(ib)) = (self.as_interval(&a)?, self.as_interval(&b)?) {
            if ia.form_eq(&ib) {
                let r = ConstBound::new(ia.lo.max(ib.lo), ia.hi.min(ib.hi));
                return self.interval_cond(&ia.form, r);
            }
        }
        if let Some(r) = self.div_mod_pair(&a, &b)? {
            return Ok(r);
        }
        // Under `x == c`, the other side is evaluated at `c`.
        for (p, q) in [(&a, &b), (&b, &a)] {
            if let Some((v, c)) = var_equals(p, CmpOp::Eq) {
                let (qc, _) =
                    self.visit(&q.substitute(&mut |w| (*w == v).then(|| Expr::int(c))))?;
                match qc.as_bool() {
                    Some(true) => return Ok((p.clone(), Info::BOOL)),
                    Some(false) => return Ok((Expr::bool(false), Info::exact(0))),
                    None => {}
                }
            }
        }
        Ok((Expr::and(a, b), Info::BOOL))
    }

    /// `a or b` for simplified operands.
    pub(crate) fn or_simplified(&mut self, a: Expr, b: Expr) -> Out {
        match (a.as_bool(), b.as_bool()) {
            (Some(true), _) | (_, Some(true)) => return Ok((Expr::bool(true), Info::exact(1))),
            (Some(false), _) => return Ok((b, Info::BOOL)),
            (_, Some(false)) => return Ok((a, Info::BOOL)),
            _ => {}
        }
        if let Some(r) = logic_rule(PatOp::Or, &[&a, &b], || Expr::or(a.clone(), b.clone())) {
            return Ok((r, Info::BOOL));
        }
        if a == b || disjuncts(&a).contains(&&b) {
            return Ok((a, Info::BOOL));
        }
        // `a or (.. or a or ..)`: `a` stays first (see `and_simplified`).
        if disjuncts(&b).contains(&&a) {
            let rest: Vec<Expr> = disjuncts(&b)
                .into_iter()
                .filter(|c| **c != a)
                .cloned()
                .collect();
            let e = rest.into_iter().fold(a, Expr::or);
            return Ok((e, Info::BOOL));
        }
        if self.is_negation(&a, &b)? {
            return Ok((Expr::bool(true), Info::exact(1)));
        }
        if let (Some(ia), Some(ib)) = (self.as_interval(&a)?, self.as_interval(&b)?) {
            if ia.form_eq(&ib) {
                // The union is an interval when they overlap or touch.
                let touch = ia.lo.max(ib.lo) <= ia.hi.min(ib.hi).saturating_add(1);
                if touch {
                    let r = ConstBound::new(ia.lo.min(ib.lo), ia.hi.max(ib.hi));
                    return self.interval_cond(&ia.form, r);
                }
            }
        }
        // Outside `x != c` only `x == c` matters for the other side.
        for (p, q) in [(&a, &b), (&b, &a)] {
            if let Some((v, c)) = var_equals(p, CmpOp::Ne) {
                let (qc, _) =
                    self.visit(&q.substitute(&mut |w| (*w == v).then(|| Expr::int(c))))?;
                match qc.as_bool() {
                    Some(true) => return Ok((Expr::bool(true), Info::exact(1))),
                    Some(false) => return Ok((p.clone(), Info::BOOL)),
                    None => {}
                }
            }
        }
        // Re-associate to the left so that chains print flat.
        if let ExprKind::Or(x, y) = b.kind() {
            let (l, _) = self.or_simplified(a, x.clone())?;
            return self.or_simplified(l, y.clone());
        }
        Ok((Expr::or(a, b), Info::BOOL))
    }

    fn is_negation(&self, a: &Expr, b: &Expr) -> Result<bool> {
        if let ExprKind::Not(x) = a.kind() {
            return Ok(x == b);
        }
        if let ExprKind::Not(x) = b.kind() {
            return Ok(x == a);
        }
        // Simplified comparisons are canonical, so a negation shows in the
        // structure: `x < y` against `y <= x` (other pairs are intervals).
        if let (ExprKind::Cmp(op, x, y), ExprKind::Cmp(op2, x2, y2)) = (a.kind(), b.kind()) {
            let n = op.negated();
            return Ok(
                (*op2 == n && x == x2 && y == y2) || (*op2 == n.swapped() && x == y2 && y == x2)
            );
        }
        Ok(false)
    }

    /// `lo <= form <= hi` for a comparison of a linear form with a constant.
    pub(super) fn as_interval(&mut self, e: &Expr) -> Result<Option<Interval>> {
        let ExprKind::Cmp(op, x, y) = e.kind() else {
            return Ok(None);
        };
        if matches!(op, CmpOp::Ne) {
            return Ok(None);
        }
        let mut d = Sum::of(x)?;
        d.add_expr(y, -1)?;
        if d.terms.is_empty() {
            return Ok(None);
        }
        let k = d.konst;
        d.konst = 0;
        let flip = d.terms[0].coeff < 0;
        if flip {
            d.scale(-1)?;
        }
        // form + k (op) 0, or -form + k (op) 0 when flipped
        let (lo, hi) = match (op, flip) {
            (CmpOp::Eq, _) => {
                let v = if flip { k } else { num::neg(k)? };
                (v, v)
            }
            (CmpOp::Lt, false) => (NEG_INF, num::sub(num::neg(k)?, 1)?),
            (CmpOp::Le, false) => (NEG_INF, num::neg(k)?),
            (CmpOp::Gt, false) => (num::add(num::neg(k)?, 1)?, POS_INF),
            (CmpOp::Ge, false) => (num::neg(k)?, POS_INF),
            // -F + k < 0 <=> F > k
            (CmpOp::Lt, true) => (num::add(k, 1)?, POS_INF),
            (CmpOp::Le, true) => (k, POS_INF),
            (CmpOp::Gt, true) => (NEG_INF, num::sub(k, 1)?),
            (CmpOp::Ge, true) => (NEG_INF, k),
            (CmpOp::Ne, _) => return Ok(None),
        };
        Ok(Some(Interval { form: d, lo, hi }))
    }

    fn interval_cond(&mut self, form: &Sum, r: ConstBound) -> Out {
        if r.is_empty() {
            return Ok((Expr::bool(false), Info::exact(0)));
        }
        let f = form.rebuild();
        if r.min == NEG_INF && r.max == POS_INF {
            return Ok((Expr::bool(true), Info::exact(1)));
        }
        if r.min == r.max {
            return self.cmp_simplified(CmpOp::Eq, &f, &Expr::int(r.min));
        }
        if r.min == NEG_INF {
            return self.cmp_simplified(CmpOp::Le, &f, &Expr::int(r.max));
        }
        if r.max == POS_INF {
            return self.cmp_simplified(CmpOp::Ge, &f, &Expr::int(r.min));
        }
        let (l, _) = self.cmp_simplified(CmpOp::Le, &Expr::int(r.min), &f)?;
        let (h, _) = self.cmp_simplified(CmpOp::Le, &f, &Expr::int(r.max))?;
        if l.as_bool().is_some() || h.as_bool().is_some() {
            return self.and_simplified(l, h);
        }
        let both = Expr::and(l, h);
        // An optional form: an overflow while building it keeps the other.
        match self.interval_as_quotient(form, r) {
            Ok(Some((q, qi))) if q.node_count() < both.node_count() => Ok((q, qi)),
            Err(e) if e.kind != crate::error::ErrorKind::Overflow => Err(e),
            _ => Ok((both, Info::BOOL)),
        }
    }

    /// `lo <= R - c * Y <= lo + c - 1`, an interval exactly `c` wide on a
    /// form with a term `Y` scaled by `-c` (or `c`), is `Y == (R - lo) // c`
    /// (or `-Y == ...`): floor division puts `R - lo` in exactly one block
    /// of `c`. `0 <= x - y * 5 and x - y * 5 < 5` is `y == x // 5`.
    fn interval_as_quotient(&mut self, form: &Sum, r: ConstBound) -> Result<Option<(Expr, Info)>> {
        let Some(c) = r.max.checked_sub(r.min).and_then(|w| w.checked_add(1)) else {
            return Ok(None);
        };
        if c < 2 {
            return Ok(None);
        }
        let mut best: Option<(Expr, Info)> = None;
        for (i, t) in form.terms.iter().enumerate() {
            if t.coeff != c && Some(t.coeff) != c.checked_neg() {
                continue;
            }
            let mut rest = form.clone();
            rest.terms.remove(i);
            rest.konst = num::sub(rest.konst, r.min)?;
            // R - lo - c * Y in [0, c); for a term `c * Y`, -Y plays `Y`.
            let y = if t.coeff < 0 {
                t.atom.clone()
            } else {
                Expr::mul(t.atom.clone(), Expr::int(-1))
            };
            let (q, _) = self.floor_div_simplified(
                rest.rebuild(),
                self.sum_info(&rest),
                Expr::int(c),
                Info::exact(c),
            )?;
            let (e, ei) = self.cmp_simplified(CmpOp::Eq, &y, &q)?;
            if best
                .as_ref()
                .is_none_or(|(b, _)| e.node_count() < b.node_count())
            {
                best = Some((e, ei));
            }
        }
        Ok(best)
    }

    /// `X // c == q` with an interval on `X % c` is an interval on `X`:
    /// `x // 10 == 5 and x % 10 < 7` is `50 <= x and x < 57`.
    fn div_eq_and_mod_interval(&mut self, a: &Expr, b: &Expr) -> Result<Option<(Expr, Info)>> {
        for (p, q) in [(a, b), (b, a)] {
            let ExprKind::Cmp(CmpOp::Eq, l, r) = p.kind() else {
                continue;
            };
            let (ExprKind::FloorDiv(x, c), Some(qv)) = (l.kind(), r.as_int()) else {
                continue;
            };
            let Some(c) = c.as_int().filter(|&c| c > 0) else {
                continue;
            };
            let Some(iv) = self.as_interval(q)? else {
                continue;
            };
            let [t] = iv.form.terms.as_slice() else {
                continue;
            };
            let is_mod = matches!(t.atom.kind(), ExprKind::FloorMod(y, m) if y == x && m.is_int(c));
            if !is_mod || t.coeff != 1 {
                continue;
            }
            let lo = iv.lo.max(0);
            let hi = iv.hi.min(c - 1);
            let base = num::mul(qv, c)?;
            let r = ConstBound::new(num::add(base, lo)?, num::add(base, hi)?);
            let form = Sum::of(x)?;
            let plain = Expr::and(a.clone(), b.clone()).node_count();
            let (alt, ai) = self.interval_cond(&form, r)?;
            if alt.node_count() <= plain {
                return Ok(Some((alt, ai)));
            }
        }
        Ok(None)
    }

    /// `X % c == r and X // c == q` is `X == q*c + r`.
    fn div_mod_pair(&mut self, a: &Expr, b: &Expr) -> Result<Option<(Expr, Info)>> {
        if let Some(r) = self.div_eq_and_mod_interval(a, b)? {
            return Ok(Some(r));
        }
        let eq_parts = |e: &Expr| -> Option<(Expr, i64)> {
            match e.kind() {
                ExprKind::Cmp(CmpOp::Eq, l, r) => r.as_int().map(|v| (l.clone(), v)),
                _ => None,
            }
        };
        let (Some((l1, v1)), Some((l2, v2))) = (eq_parts(a), eq_parts(b)) else {
            return Ok(None);
        };
        let pick = |m: &Expr, d: &Expr| -> Option<(Expr, i64)> {
            match (m.kind(), d.kind()) {
                (ExprKind::FloorMod(x, c), ExprKind::FloorDiv(y, c2)) if x == y && c == c2 => {
                    c.as_int().filter(|&c| c > 0).map(|c| (x.clone(), c))
                }
                _ => None,
            }
        };
        let (x, c, r, q) = if let Some((x, c)) = pick(&l1, &l2) {
            (x, c, v1, v2)
        } else if let Some((x, c)) = pick(&l2, &l1) {
            (x, c, v2, v1)
        } else {
            return Ok(None);
        };
        if r < 0 || r >= c {
            return Ok(Some((Expr::bool(false), Info::exact(0))));
        }
        let v = num::add(num::mul(q, c)?, r)?;
        Ok(Some(self.cmp_simplified(CmpOp::Eq, &x, &Expr::int(v))?))
    }
}

/// `lo <= form <= hi` (either end may be infinite).
pub(super) struct Interval {
    pub form: Sum,
    pub lo: i64,
    pub hi: i64,
}

impl Interval {
    fn form_eq(&self, o: &Interval) -> bool {
        self.form.terms.len() == o.form.terms.len()
            && self
                .form
                .terms
                .iter()
                .zip(&o.form.terms)
                .all(|(a, b)| a.coeff == b.coeff && a.atom == b.atom)
    }
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e.kind() {
        ExprKind::And(a, b) => {
            let mut v = conjuncts(a);
            v.extend(conjuncts(b));
            v
        }
        _ => vec![e],
    }
}

fn disjuncts(e: &Expr) -> Vec<&Expr> {
    match e.kind() {
        ExprKind::Or(a, b) => {
            let mut v = disjuncts(a);
            v.extend(disjuncts(b));
            v
        }
        _ => vec![e],
    }
}

/// `(x, c)` when `e` is `x op c` for a variable `x` and a constant `c`.
fn var_equals(e: &Expr, op: CmpOp) -> Option<(crate::expr::Var, i64)> {
    match e.kind() {
        ExprKind::Cmp(o, l, r) if *o == op => {
            match (l.as_var(), r.as_int(), r.as_var(), l.as_int()) {
                (Some(v), Some(c), _, _) | (_, _, Some(v), Some(c)) => Some((v.clone(), c)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The result of the first rule of the logic table (`rules.rs`) that
/// matches `op(kids)`: one of the operands, already simplified.
fn logic_rule(op: PatOp, kids: &[&Expr], node: impl FnOnce() -> Expr) -> Option<Expr> {
    super::rules::apply_to(super::rules::logic_rules(), op, kids, node)
}
