//! Rules for `min` and `max`.

use super::product;
use super::sum::Sum;
use super::{Info, Out, Simplifier};
use crate::error::Result;
use crate::expr::{Expr, ExprKind};
use crate::num;
use smallvec::SmallVec;

fn make(is_min: bool, a: Expr, b: Expr) -> Expr {
    if is_min {
        Expr::min(a, b)
    } else {
        Expr::max(a, b)
    }
}

/// The work budget of deciding one comparison by splitting on its `min`
/// and `max` terms: each split doubles the cases, so the budget counts
/// splits over the whole decision, not per level. Past it the comparison
/// is left undecided (sound: the `min` or `max` stays in the result).
const SIGN_BRANCH_BUDGET: u32 = 16;

fn split(e: &Expr, is_min: bool) -> Option<(&Expr, &Expr)> {
    match (e.kind(), is_min) {
        (ExprKind::Min(a, b), true) | (ExprKind::Max(a, b), false) => Some((a, b)),
        _ => None,
    }
}

impl Simplifier<'_> {
    pub(super) fn visit_min_max(&mut self, a: &Expr, b: &Expr, is_min: bool) -> Out {
        let (a, ia) = self.visit(a)?;
        let (b, ib) = self.visit(b)?;
        self.min_max_simplified(a, ia, b, ib, is_min)
    }

    /// `min(a, b)` or `max(a, b)` for simplified operands.
    pub(crate) fn min_max_simplified(
        &mut self,
        a: Expr,
        ia: Info,
        b: Expr,
        ib: Info,
        is_min: bool,
    ) -> Out {
        if a == b {
            return Ok((a, ia));
        }
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            let v = if is_min { x.min(y) } else { x.max(y) };
            return Ok((Expr::int(v), Info::exact(v)));
        }
        // The rule table (`rules.rs`): absorption, common operands,
        // divisions by one constant, selects on one condition. Structural
        // matches, so they go before the comparison of the operands.
        if let Some(r) = super::rules::apply_to(
            super::rules::min_max_rules(),
            if is_min {
                super::rules::PatOp::Min
            } else {
                super::rules::PatOp::Max
            },
            &[&a, &b],
            || make(is_min, a.clone(), b.clone()),
        ) {
            return self.visit(&r);
        }
        // Decided by bounds (before building the linear forms: most are)
        // or by the sign of the difference.
        let by_bounds = compare_bounds(&ia, &ib);
        let (sa, sb) = if by_bounds.is_some() {
            Default::default()
        } else {
            (Sum::of(&a)?, Sum::of(&b)?)
        };
        // A chain of the same operator short enough to be pruned pair by
        // pair below is compared operand by operand there; comparing the
        // whole chain first would do the same comparisons twice (and keep
        // the chain in the order it was found, not the canonical one).
        let chain = (split(&a, is_min).is_some() || split(&b, is_min).is_some())
            && a.node_count() + b.node_count() <= super::MAX_PAIR_RULE_TERMS;
        let decided = match by_bounds {
            Some(o) => Some(o),
            None if chain => None,
            None => self.compare_sums(&sa, &ia, &sb, &ib)?,
        };
        match decided {
            Some(std::cmp::Ordering::Less) | Some(std::cmp::Ordering::Equal) => {
                return Ok(if is_min { (a, ia) } else { (b, ib) })
            }
            Some(std::cmp::Ordering::Greater) => return Ok(if is_min { (b, ib) } else { (a, ia) }),
            None => {}
        }
        // Rules that try another form come back here with the operands of
        // the form they started from (`min(x + y, x + z)` pulls `x` out,
        // and pushing `x + min(y, z)` back in asks for `min(x + y, x + z)`
        // again). Such a re-entry can only repeat the search in progress,
        // so it gets the node as it stands and the search is not nested.
        let active = self
            .min_max_active
            .iter()
            .any(|(x, y, m)| *m == is_min && ((*x == a && *y == b) || (*x == b && *y == a)));
        if active {
            return Ok(canonical(a, ia, b, ib, is_min));
        }
        self.min_max_active.push((a.clone(), b.clone(), is_min));
        let r = self.min_max_rules(a, ia, b, ib, sa, sb, is_min);
        self.min_max_active.pop();
        r
    }

    /// The rewriting rules of [`Simplifier::min_max_simplified`], for
    /// operands that are not decided by their facts.
    #[allow(clippy::too_many_arguments)]
    fn min_max_rules(
        &mut self,
        a: Expr,
        ia: Info,
        b: Expr,
        ib: Info,
        sa: Sum,
        sb: Sum,
        is_min: bool,
    ) -> Out {
        // Flatten nested chains of the same operator, drop duplicates and
        // dominated operands, and merge constants.
        let mut ops: SmallVec<[Expr; 4]> = SmallVec::new();
        flatten(&a, is_min, &mut ops);
        let from_a = ops.len();
        flatten(&b, is_min, &mut ops);
        if ops.len() > 2 {
            let before = ops.len();
            self.prune(&mut ops, from_a, is_min)?;
            if ops.len() < before {
                return self.rebuild_chain(ops, is_min);
            }
        }
        // min(x + c1, y + c2) -> min(x, y + (c2 - c1)) + c1, and terms common
        // to both sides come out: min(y - x, z - x) -> min(y, z) - x.
        if let Some(r) = self.pull_common(&a, &b, &sa, &sb, is_min)? {
            return Ok(r);
        }
        // min(max(p, q), min(.., p, ..)) -> the min chain: it is below p.
        for (x, y, ix, iy) in [(&a, &b, &ia, &ib), (&b, &a, &ib, &ia)] {
            if let Some((p, q)) = split(x, !is_min) {
                let mut chain: SmallVec<[Expr; 4]> = SmallVec::new();
                flatten(y, is_min, &mut chain);
                if chain.iter().any(|e| e == p || e == q) {
                    let _ = ix;
                    return Ok((y.clone(), *iy));
                }
            }
        }
        // Both sides share a scale: max(x * -2, -4) -> min(x, 2) * -2.
        if let Some(r) = self.pull_scale(&a, &b, &sa, &sb, is_min)? {
            return Ok(r);
        }
        Ok(canonical(a, ia, b, ib, is_min))
    }

    /// `Some(ordering)` when `a` and `b` compare the same way everywhere
    /// (`Less` also covers `<=`).
    pub(crate) fn compare(
        &mut self,
        a: &Expr,
        ia: &Info,
        b: &Expr,
        ib: &Info,
    ) -> Result<Option<std::cmp::Ordering>> {
        let (sa, sb) = (Sum::of(a)?, Sum::of(b)?);
        self.compare_sums(&sa, ia, &sb, ib)
    }

    /// [`Simplifier::compare`] for operands already in linear form.
    fn compare_sums(
        &mut self,
        sa: &Sum,
        ia: &Info,
        sb: &Sum,
        ib: &Info,
    ) -> Result<Option<std::cmp::Ordering>> {
        use std::cmp::Ordering::*;
        if let Some(o) = compare_bounds(ia, ib) {
            return Ok(Some(o));
        }
        let mut d = sa.clone();
        if d.add_sum(sb, -1).is_err() {
            return Ok(None);
        }
        let mut budget = SIGN_BRANCH_BUDGET;
        Ok(match self.sign_of(d, &mut budget)? {
            (true, _) => Some(Less),
            (_, true) => Some(Greater),
            _ => None,
        })
    }

    /// What is provable about the sign of `d`: `(d <= 0, d >= 0)`.
    ///
    /// A `min` or `max` term is decided by its operands, with no rewriting:
    /// `min(a, b) + r <= 0` when either `a + r <= 0` or `b + r <= 0`, and
    /// `>= 0` when both are (the other way round for `max` and for negative
    /// coefficients). Each such split spends one unit of `budget`, which
    /// keeps a chain of `n` operands from taking `2^n` steps.
    fn sign_of(&mut self, d: Sum, budget: &mut u32) -> Result<(bool, bool)> {
        let plain = self.relational_bound(&d);
        if plain.all_le(0) || plain.all_ge(0) {
            return Ok((plain.all_le(0), plain.all_ge(0)));
        }
        let branch = d
            .terms
            .iter()
            .position(|t| matches!(t.atom.kind(), ExprKind::Min(..) | ExprKind::Max(..)));
        if let (Some(i), true) = (branch, *budget > 0) {
            *budget -= 1;
            let t = d.terms[i].clone();
            let (a, b, is_min) = match t.atom.kind() {
                ExprKind::Min(a, b) => (a, b, true),
                ExprKind::Max(a, b) => (a, b, false),
                _ => unreachable!("position found a min or max"),
            };
            // c * min(a, b) is min(c * a, c * b) for c > 0, a max for c < 0.
            let is_min = is_min == (t.coeff > 0);
            let mut rest = d;
            rest.add_atom(&t.atom, num::neg(t.coeff)?)?;
            let side = |x: &Expr| -> Option<Sum> {
                let mut r = rest.clone();
                r.add_expr(x, t.coeff).ok().map(|_| r)
            };
            let (Some(su), Some(sv)) = (side(a), side(b)) else {
                return Ok((false, false));
            };
            let (u_le, u_ge) = self.sign_of(su, budget)?;
            let (v_le, v_ge) = self.sign_of(sv, budget)?;
            return Ok(if is_min {
                (u_le || v_le, u_ge && v_ge)
            } else {
                (u_le && v_le, u_ge || v_ge)
            });
        }
        let sign = |db: crate::bound::ConstBound| (db.all_le(0), db.all_ge(0));
        // The rewritten difference (which may turn `(x + 3) // 4 * 4 - x`
        // into `3 - (x + 3) % 4`) only when the plain one is undecided.
        let rewritable = d.terms.iter().any(|t| is_rewritable(&t.atom));
        if !rewritable {
            if !self.an.has_symbolic_ranges() {
                return Ok((false, false));
            }
            let e = d.rebuild();
            return Ok(sign(plain.intersect(self.an.symbolic_bound(&e, self))));
        }
        let rewritten = self.finish_sum(d);
        let Ok((d, _)) = rewritten else {
            return Ok((false, false));
        };
        Ok(sign(self.an.symbolic_bound(&d, self)))
    }

    /// Drops the operands of a flattened chain that another operand
    /// dominates, and merges constants. The first `from_a` operands come
    /// from one simplified operand and the rest from the other; operands
    /// from the same side were pruned against each other when that side
    /// was simplified, so only pairs across the sides are compared (a chain
    /// built one operand at a time costs a linear number of comparisons per
    /// step, not a quadratic one). Chains longer than
    /// [`super::MAX_PAIR_RULE_TERMS`] only lose duplicates.
    fn prune(&mut self, ops: &mut SmallVec<[Expr; 4]>, from_a: usize, is_min: bool) -> Result<()> {
        // The side of each operand: 0 or 1, or 2 for a merged constant,
        // which is new to both sides.
        let mut side: SmallVec<[u8; 4]> = (0..ops.len()).map(|i| u8::from(i >= from_a)).collect();
        // Merge constants.
        let consts: SmallVec<[i64; 2]> = ops.iter().filter_map(|e| e.as_int()).collect();
        if consts.len() > 1 {
            let k = if is_min {
                *consts.iter().min().unwrap()
            } else {
                *consts.iter().max().unwrap()
            };
            let mut keep = ops.iter().map(|e| e.as_int().is_none());
            side.retain(|_| keep.next().unwrap_or(false));
            ops.retain(|e| e.as_int().is_none());
            ops.push(Expr::int(k));
            side.push(2);
        }
        // Longer chains only lose duplicates, as longer sums are only
        // collected: comparing each new operand with all the others would
        // make a chain built one operand at a time quadratic.
        let compare_all = ops.len() <= super::MAX_PAIR_RULE_TERMS;
        let mut infos: SmallVec<[Info; 4]> = if compare_all {
            ops.iter().map(|e| self.info(e)).collect()
        } else {
            SmallVec::new()
        };
        let mut i = 0;
        while i < ops.len() {
            let mut j = 0;
            while j < ops.len() {
                if i != j && (side[i] != side[j] || side[i] == 2) {
                    let dup = ops[i] == ops[j] && j > i;
                    let ord = if dup || !compare_all {
                        None
                    } else {
                        let (x, y) = (ops[i].clone(), ops[j].clone());
                        self.compare(&x, &infos[i], &y, &infos[j])?
                    };
                    // ops[j] is dominated by ops[i]
                    let dominated = dup
                        || matches!(
                            (ord, is_min),
                            (Some(std::cmp::Ordering::Less), true)
                                | (Some(std::cmp::Ordering::Greater), false)
                        );
                    if dominated {
                        ops.remove(j);
                        side.remove(j);
                        if compare_all {
                            infos.remove(j);
                        }
                        if j < i {
                            i -= 1;
                        }
                        continue;
                    }
                }
                j += 1;
            }
            i += 1;
        }
        Ok(())
    }

    /// The chain of pruned operands, in canonical order (constants last).
    fn rebuild_chain(&mut self, mut ops: SmallVec<[Expr; 4]>, is_min: bool) -> Out {
        ops.sort_by(|a, b| match (a.as_int(), b.as_int()) {
            (Some(_), None) => std::cmp::Ordering::Greater,
            (None, Some(_)) => std::cmp::Ordering::Less,
            _ => a.structural_cmp(b),
        });
        let mut it = ops.into_iter();
        let first = it.next().unwrap_or_else(|| Expr::int(0));
        let e = it.fold(first, |acc, x| make(is_min, acc, x));
        let info = self.info(&e);
        Ok((e, info))
    }

    fn pull_common(
        &mut self,
        a: &Expr,
        b: &Expr,
        sa: &Sum,
        sb: &Sum,
        is_min: bool,
    ) -> Result<Option<(Expr, Info)>> {
        if !is_linear_combination(a) && !is_linear_combination(b) {
            return Ok(None);
        }
        if sa.terms.is_empty() && sb.terms.is_empty() {
            return Ok(None);
        }
        let mut common = Sum::default();
        for t in &sa.terms {
            if sb
                .terms
                .iter()
                .any(|u| u.coeff == t.coeff && u.atom == t.atom)
            {
                common.add_atom(&t.atom, t.coeff)?;
            }
        }
        // Between two sums, the constant of the first comes out, which makes
        // `min(x + 10, y + 1) - min(x, y - 9)` collapse; against a constant
        // it stays (`min(16 - o * 3, 3)`, not `min(o * -3, -13) + 16`).
        let k = if sa.konst != 0 && !sa.terms.is_empty() && !sb.terms.is_empty() {
            sa.konst
        } else {
            0
        };
        common.konst = k;
        if common.terms.is_empty() && common.konst == 0 {
            return Ok(None);
        }
        let mut ra = sa.clone();
        ra.add_sum(&common, -1)?;
        let mut rb = sb.clone();
        rb.add_sum(&common, -1)?;
        let before = make(is_min, a.clone(), b.clone()).node_count();
        // Cheap estimate first: the parts can only shrink when simplified.
        // Negated remainders may still shrink by a common sign (`min(-y, -z)`
        // is `-max(y, z)`), so they get the slack of that rewrite.
        let negated = ra.terms.iter().chain(&rb.terms).all(|t| t.coeff < 0);
        let estimate = ra.cost() + rb.cost() + 1 + common.cost() + 1;
        if estimate > before + if negated { 2 } else { 0 } {
            return Ok(None);
        }
        let (ea, ia) = self.finish_sum(ra)?;
        let (eb, ib) = self.finish_sum(rb)?;
        let (m, _) = self.min_max_simplified(ea, ia, eb, ib, is_min)?;
        let mut out = common.clone();
        out.add_expr(&m, 1)?;
        if out.cost() > before {
            return Ok(None);
        }
        Ok(Some(self.finish_sum(out)?))
    }

    fn pull_scale(
        &mut self,
        a: &Expr,
        b: &Expr,
        sa: &Sum,
        sb: &Sum,
        is_min: bool,
    ) -> Result<Option<(Expr, Info)>> {
        if !is_linear_combination(a) || !is_linear_combination(b) {
            return Ok(None);
        }
        let g = num::gcd(
            num::gcd(sa.coeff_gcd(), sb.coeff_gcd()),
            num::gcd(sa.konst, sb.konst),
        );
        // Use a negative scale when every term is negative.
        let neg = sa.terms.iter().chain(&sb.terms).all(|t| t.coeff < 0)
            && !sa.terms.is_empty()
            && !sb.terms.is_empty();
        if g <= 1 && !neg {
            return Ok(None);
        }
        let g = if neg { -g.max(1) } else { g };
        let unscale = |s: &Sum| -> Option<Sum> {
            let mut r = s.clone();
            for t in &mut r.terms {
                t.coeff = t.coeff.checked_div(g)?;
            }
            r.konst = r.konst.checked_div(g)?;
            Some(r)
        };
        let (Some(ua), Some(ub)) = (unscale(sa), unscale(sb)) else {
            return Ok(None);
        };
        let (ea, ia) = self.finish_sum(ua)?;
        let (eb, ib) = self.finish_sum(ub)?;
        let inner_is_min = if g < 0 { !is_min } else { is_min };
        let (m, _) = self.min_max_simplified(ea, ia, eb, ib, inner_is_min)?;
        let mut out = Sum::default();
        out.add_expr(&m, g)?;
        let before = make(is_min, a.clone(), b.clone()).node_count();
        if out.cost() > before {
            return Ok(None);
        }
        Ok(Some(self.finish_sum(out)?))
    }
}

/// `Less` (which covers `<=`) or `Greater` when the constant bounds alone
/// order `a` and `b`.
fn compare_bounds(ia: &Info, ib: &Info) -> Option<std::cmp::Ordering> {
    use crate::bound::{NEG_INF, POS_INF};
    let (a, b) = (ia.bound, ib.bound);
    if a.max != POS_INF && b.min != NEG_INF && a.max <= b.min {
        Some(std::cmp::Ordering::Less)
    } else if b.max != POS_INF && a.min != NEG_INF && b.max <= a.min {
        Some(std::cmp::Ordering::Greater)
    } else {
        None
    }
}

/// `min(a, b)` or `max(a, b)` as it stands, in canonical operand order
/// (constants last), so that `min(x, y)` and `min(y, x)` are one term.
fn canonical(a: Expr, ia: Info, b: Expr, ib: Info, is_min: bool) -> (Expr, Info) {
    let info = Info {
        bound: if is_min {
            ia.bound.min_with(ib.bound)
        } else {
            ia.bound.max_with(ib.bound)
        },
        modular: ia.modular.union(ib.modular),
    };
    let swap = a.as_int().is_some() || (b.as_int().is_none() && product::before(&b, &a));
    let (a, b) = if swap { (b, a) } else { (a, b) };
    (make(is_min, a, b), info)
}

/// Appends the operands of the chain of `min` (or `max`) nodes at `e` to
/// `out`, left to right. At most [`super::MAX_PAIR_RULE_TERMS`] operands are
/// taken apart: the rest of a longer chain stays one operand (a chain built
/// one operand at a time would otherwise be flattened whole at every step),
/// and the walk keeps its own stack, not the thread's.
fn flatten(e: &Expr, is_min: bool, out: &mut SmallVec<[Expr; 4]>) {
    let mut pending: SmallVec<[&Expr; 8]> = smallvec::smallvec![e];
    let mut split_count = 0;
    while let Some(n) = pending.pop() {
        match split(n, is_min) {
            Some((a, b)) if split_count < super::MAX_PAIR_RULE_TERMS => {
                split_count += 1;
                pending.push(b);
                pending.push(a);
            }
            _ => out.push(n.clone()),
        }
    }
}

/// Whether `e` is a sum, a scaled term or a constant (so that pulling terms
/// or factors out of it can change anything).
fn is_linear_combination(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Add(..) | ExprKind::Sub(..) | ExprKind::Int(_) => true,
        ExprKind::Mul(a, b) => a.as_int().is_some() || b.as_int().is_some(),
        _ => false,
    }
}

/// Whether rewriting a difference with this term can decide its sign
/// (`min` and `max` terms are split instead, see `sign_of`).
fn is_rewritable(e: &Expr) -> bool {
    matches!(e.kind(), ExprKind::FloorDiv(..) | ExprKind::FloorMod(..))
}
