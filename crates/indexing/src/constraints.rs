//! Constraint simplification: XLA's `SimplifyConstraintExprs`,
//! `SimplifyConstraintRanges` and `MergeModConstraints`, made exact.
//!
//! Each rule rewrites `e in [lb, ub]` into an equivalent constraint, a
//! narrower variable range, nothing (when it always holds) or an empty map
//! (when it never holds).

use crate::interval::Interval;
use crate::map::{Constraint, IndexingMap, State};
use crate::order::to_xla_order;
use crate::simplify::simplify_expr;
use crate::variable::VarKind;
use arith::LinearForm;
use arith::{Analyzer, Expr, ExprKind, Var};

/// The work budget of the constraint fixed points, in rounds. Every round
/// is an exact rewrite (the constraints hold at the same points after it),
/// so stopping at the budget leaves a correct map, only less simplified;
/// the budget bounds the work when two rules would undo each other.
const ROUND_BUDGET: usize = 32;

impl IndexingMap {
    /// Runs the constraint rules to a fixed point.
    pub(crate) fn simplify_constraints(&mut self) {
        for _ in 0..ROUND_BUDGET {
            let merged = self.merge_mod_constraints();
            let rewritten = self.rewrite_constraints();
            if self.state != State::Defined || !(merged || rewritten) {
                return;
            }
        }
    }

    /// Simplifies every constraint and applies the interval rules; returns
    /// whether anything changed.
    fn rewrite_constraints(&mut self) -> bool {
        let an = self.analyzer(true);
        let rank = self.rank_fn();
        let old = std::mem::take(&mut self.constraints);
        let mut changed = false;
        for c in &old {
            let e = simplify_expr(&an, &c.expr, &rank);
            let (e, iv) = normalize(&an, e, c.interval, &rank);
            if e != c.expr || iv != c.interval {
                changed = true;
            }
            if iv.is_empty() {
                self.mark_known_empty();
                return true;
            }
            if let Some(v) = e.as_int() {
                changed = true;
                if !iv.contains(v) {
                    self.mark_known_empty();
                    return true;
                }
                continue;
            }
            if let Some(var) = e.as_var() {
                if let Some((kind, i)) = self.find_var(var) {
                    changed = true;
                    self.restrict(kind, i, iv);
                    if self.state != State::Defined {
                        return true;
                    }
                    continue;
                }
            }
            let range = Interval::from_bound(an.const_int_bound(&e));
            if iv.contains_interval(range) {
                changed = true;
                continue;
            }
            if range.intersect(iv).is_empty() {
                self.mark_known_empty();
                return true;
            }
            match self.constraints.iter_mut().find(|k| k.expr == e) {
                Some(k) => {
                    changed = true;
                    k.interval = k.interval.intersect(iv);
                    if k.interval.is_empty() {
                        self.mark_known_empty();
                        return true;
                    }
                }
                None => self.constraints.push(Constraint {
                    expr: e,
                    interval: iv,
                }),
            }
        }
        changed
    }

    /// `x mod a in [r, r]` and `x mod b in [r, r]` become `x mod lcm(a, b) in
    /// [r, r]`; a variable `x` with `x mod m in [lo, hi]` gets its range ends
    /// moved to the nearest values that satisfy it. Returns whether anything
    /// changed.
    pub(crate) fn merge_mod_constraints(&mut self) -> bool {
        let mut changed = false;
        // Group point-remainder constraints by (dividend, remainder).
        let mut groups: Vec<((Expr, i64), Vec<usize>)> = Vec::new();
        for (i, c) in self.constraints.iter().enumerate() {
            let Some((x, m)) = as_mod_const(&c.expr) else {
                continue;
            };
            let Some(r) = c.interval.as_point() else {
                continue;
            };
            if r < 0 || r >= m {
                continue;
            }
            match groups.iter_mut().find(|((gx, gr), _)| *gx == x && *gr == r) {
                Some((_, members)) => members.push(i),
                None => groups.push(((x, r), vec![i])),
            }
        }
        let mut remove = vec![false; self.constraints.len()];
        let mut added = Vec::new();
        for ((x, r), members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
            let mut l: Option<i64> = Some(1);
            for &i in &members {
                let m = as_mod_const(&self.constraints[i].expr).map_or(1, |(_, m)| m);
                l = l.and_then(|l| arith::num::lcm(l, m));
            }
            let Some(l) = l else { continue };
            for &i in &members {
                remove[i] = true;
            }
            added.push(Constraint {
                expr: Expr::floor_mod(x, Expr::int(l)),
                interval: Interval::point(r),
            });
            changed = true;
        }
        if changed {
            let mut k = 0;
            self.constraints.retain(|_| {
                k += 1;
                !remove[k - 1]
            });
            self.constraints.extend(added);
        }
        // Move variable range ends onto values allowed by their mod constraints.
        let mut narrowed: Vec<(VarKind, usize, Interval)> = Vec::new();
        for c in &self.constraints {
            let Some((x, m)) = as_mod_const(&c.expr) else {
                continue;
            };
            let Some((kind, i)) = x.as_var().and_then(|v| self.find_var(v)) else {
                continue;
            };
            let iv = c.interval.intersect(Interval::new(0, m - 1));
            if iv.is_empty() {
                continue;
            }
            let b = self.vars_of(kind)[i].bounds();
            let nb = Interval::new(
                next_with_residue(b.lower, m, iv, true).unwrap_or(b.lower),
                next_with_residue(b.upper, m, iv, false).unwrap_or(b.upper),
            );
            if nb != b {
                narrowed.push((kind, i, nb));
            }
        }
        for (kind, i, nb) in narrowed {
            changed = true;
            self.restrict(kind, i, nb);
        }
        changed
    }
}

/// `(x, m)` when `e` is `x mod m` with a constant `m > 0`.
fn as_mod_const(e: &Expr) -> Option<(Expr, i64)> {
    match e.kind() {
        ExprKind::FloorMod(x, m) => m.as_int().filter(|m| *m > 0).map(|m| (x.clone(), m)),
        _ => None,
    }
}

/// The nearest `y >= x` (or `y <= x` when `!upward`) with `y mod m` in
/// `allowed` (a sub-interval of `[0, m - 1]`).
fn next_with_residue(x: i64, m: i64, allowed: Interval, upward: bool) -> Option<i64> {
    let r = x.rem_euclid(m);
    if allowed.contains(r) {
        return Some(x);
    }
    if upward {
        // Past the allowed residues: to the next period's first one
        // (`m - (r - lower)`, which cannot overflow as `m - r + lower` can).
        let step = if r < allowed.lower {
            allowed.lower - r
        } else {
            m - (r - allowed.lower)
        };
        x.checked_add(step)
    } else {
        let step = if r > allowed.upper {
            r - allowed.upper
        } else {
            m - (allowed.upper - r)
        };
        x.checked_sub(step)
    }
}

/// Peels constant offsets, common factors, constant divisors and
/// range-limited remainders off a constraint `e in iv`, exactly: the result
/// `e' in iv'` holds at the same points.
fn normalize(
    an: &Analyzer,
    mut e: Expr,
    mut iv: Interval,
    rank: &dyn Fn(&Var) -> usize,
) -> (Expr, Interval) {
    for _ in 0..ROUND_BUDGET {
        match peel(an, &e, iv) {
            Some((ne, niv)) => {
                e = to_xla_order(&ne, rank);
                iv = niv;
                if iv.is_empty() {
                    break;
                }
            }
            None => break,
        }
    }
    (e, iv)
}

/// One exact rewrite step of `e in iv`, if any applies.
fn peel(an: &Analyzer, e: &Expr, iv: Interval) -> Option<(Expr, Interval)> {
    // e / c in [lo, hi]
    if let ExprKind::FloorDiv(x, c) = e.kind() {
        let c = c.as_int()?;
        let niv = if c > 0 {
            // x in [lo * c, hi * c + c - 1]
            Interval::new(
                iv.lower.checked_mul(c)?,
                iv.upper.checked_mul(c)?.checked_add(c - 1)?,
            )
        } else if c < 0 {
            // floor(x / c) = q  <=>  (q + 1) * c < x <= q * c
            Interval::new(
                iv.upper.checked_add(1)?.checked_mul(c)?.checked_add(1)?,
                iv.lower.checked_mul(c)?,
            )
        } else {
            return None;
        };
        return Some((x.clone(), niv));
    }
    let lin = LinearForm::of(e).ok()?;
    if lin.terms.is_empty() {
        return None;
    }
    // e + k in [lo, hi]  ->  e in [lo - k, hi - k]
    if lin.constant != 0 {
        let niv = Interval::new(
            iv.lower.checked_sub(lin.constant)?,
            iv.upper.checked_sub(lin.constant)?,
        );
        let rest = LinearForm {
            terms: lin.terms,
            constant: 0,
        };
        return Some((rest.to_expr(), niv));
    }
    // g * e in [lo, hi]  ->  e in [ceil(lo / g), floor(hi / g)]
    let g = lin.coeff_gcd();
    let sign = if lin.terms.iter().all(|(_, c)| *c < 0) {
        -1
    } else {
        1
    };
    let g = g.checked_mul(sign)?;
    if g != 1 && g != 0 {
        // `i64::MIN / -1` has no value: such a constraint is left as it is.
        let terms = lin
            .terms
            .iter()
            .map(|(a, c)| c.checked_div(g).map(|q| (a.clone(), q)))
            .collect::<Option<Vec<_>>>()?;
        let (lo, hi) = if g > 0 {
            (iv.lower, iv.upper)
        } else {
            (iv.upper, iv.lower)
        };
        let niv = Interval::new(
            arith::num::ceil_div(lo, g).ok()?,
            arith::num::floor_div(hi, g).ok()?,
        );
        return Some((LinearForm { terms, constant: 0 }.to_expr(), niv));
    }
    // g * a + r in [g * p, g * q + g - 1] with r in [0, g - 1]  ->  a in [p, q]
    let mut sorted = lin.terms.clone();
    sorted.sort_by_key(|(_, c)| std::cmp::Reverse(c.unsigned_abs()));
    for k in 1..sorted.len() {
        let g = sorted[..k]
            .iter()
            .fold(0, |g, (_, c)| arith::num::gcd(g, *c));
        if g <= 1 {
            continue;
        }
        let rest = LinearForm {
            terms: sorted[k..].to_vec(),
            constant: 0,
        }
        .to_expr();
        let r = an.const_int_bound(&rest);
        let fits = r.min >= 0 && r.max < g;
        let aligned = iv.lower.rem_euclid(g) == 0 && iv.upper.checked_add(1)?.rem_euclid(g) == 0;
        if fits && aligned {
            let terms = sorted[..k]
                .iter()
                .map(|(a, c)| (a.clone(), c / g))
                .collect();
            let niv = Interval::new(iv.lower / g, (iv.upper + 1) / g - 1);
            return Some((LinearForm { terms, constant: 0 }.to_expr(), niv));
        }
    }
    None
}
