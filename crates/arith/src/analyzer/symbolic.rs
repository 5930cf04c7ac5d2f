//! Constant bounds under symbolic variable ranges (`i - n` with `i` in
//! `[0, n)` is at most `-1`).

use super::Analyzer;
use crate::bound::ConstBound;
use crate::expr::{Expr, ExprKind};
use crate::simplify::sum::Sum;
use crate::simplify::Simplifier;

impl Analyzer {
    /// Constant bounds of a simplified expression, using symbolic variable
    /// ranges: `i - n` with `i` in `[0, n)` is at most `-1`.
    pub(crate) fn symbolic_bound(&self, e: &Expr, s: &mut Simplifier) -> ConstBound {
        // The simplifier's facts share what earlier questions found about
        // the subtrees (a chain asks about itself at every level).
        let b = s.info(e).bound;
        if !self.has_symbolic(e) {
            return b;
        }
        let hi = self.linear_extreme(e, true, s, 0).unwrap_or(b.max);
        let lo = self.linear_extreme(e, false, s, 0).unwrap_or(b.min);
        b.intersect(ConstBound::new(lo, hi))
    }

    /// Whether any variable has a range with non-constant ends.
    pub(crate) fn has_symbolic_ranges(&self) -> bool {
        self.symbolic_count > 0
    }

    pub(super) fn has_symbolic(&self, e: &Expr) -> bool {
        if self.symbolic_count == 0 {
            return false;
        }
        crate::walk::any_node(e, |n| {
            n.as_var()
                .is_some_and(|v| self.vars.get(v).is_some_and(|f| f.symbolic.is_some()))
        })
    }

    /// The largest (or smallest) value of a linear expression after
    /// replacing variables with symbolic ranges by their extreme ends.
    pub(super) fn linear_extreme(
        &self,
        e: &Expr,
        upper: bool,
        s: &mut Simplifier,
        depth: u32,
    ) -> Option<i64> {
        let sum = Sum::of(e).ok()?;
        let mut out = Sum::constant(sum.konst);
        let mut replaced = false;
        for t in &sum.terms {
            let take_hi = (t.coeff > 0) == upper;
            if depth < 4 {
                if let Some((lo, hi)) = self.symbolic_ends(&t.atom) {
                    out.add_expr(if take_hi { hi } else { lo }, t.coeff).ok()?;
                    replaced = true;
                    continue;
                }
                if let Some(end) = self.monotone_division_end(&t.atom, take_hi) {
                    out.add_expr(&end, t.coeff).ok()?;
                    replaced = true;
                    continue;
                }
            }
            out.add_atom(&t.atom, t.coeff).ok()?;
        }
        let b = if replaced {
            let (ne, _) = s.finish_sum(out).ok()?;
            if ne.as_int().is_some() {
                return ne.as_int();
            }
            return self.linear_extreme(&ne, upper, s, depth + 1).or_else(|| {
                let nb = s.info(&ne).bound;
                Some(if upper { nb.max } else { nb.min })
            });
        } else {
            s.info(e).bound
        };
        let v = if upper { b.max } else { b.min };
        Some(v)
    }

    /// The inclusive symbolic ends of `e` when it is a variable with a
    /// symbolic range.
    fn symbolic_ends(&self, e: &Expr) -> Option<(&Expr, &Expr)> {
        e.as_var()
            .and_then(|v| self.vars.get(v))
            .and_then(|f| f.symbolic.as_ref())
            .map(|(lo, hi)| (lo, hi))
    }

    /// The largest (`hi`) or smallest value of `x // c` or `ceildiv(x, c)`
    /// with `c > 0` and `x` a variable with a symbolic range, as an
    /// expression: both divisions are non-decreasing in `x`, so the value
    /// at `x`'s end bounds them (`o // 2` with `o` in `[0, m * 2)` is at
    /// most `m - 1`, the split of a fused axis). An end whose terms `c`
    /// divides is divided term by term; any other stays a division, an
    /// atom the caller bounds by its facts. No simplification starts here,
    /// so ranges whose ends refer to each other cannot recurse.
    fn monotone_division_end(&self, e: &Expr, hi: bool) -> Option<Expr> {
        let (x, c, ceil) = match e.kind() {
            ExprKind::FloorDiv(x, c) => (x, c, false),
            ExprKind::CeilDiv(x, c) => (x, c, true),
            _ => return None,
        };
        let c = c.as_int().filter(|&c| c > 0)?;
        let (lo, up) = self.symbolic_ends(x)?;
        let end = if hi { up } else { lo };
        let sum = Sum::of(end).ok()?;
        if sum.terms.iter().any(|t| t.coeff % c != 0) {
            let c = Expr::int(c);
            return Some(if ceil {
                Expr::ceil_div(end.clone(), c)
            } else {
                Expr::floor_div(end.clone(), c)
            });
        }
        // (c * s + k) // c == s + k // c, and likewise rounding up.
        let k = if ceil {
            sum.konst.checked_neg()?.div_euclid(c).checked_neg()?
        } else {
            sum.konst.div_euclid(c)
        };
        let mut quotient = Sum::constant(k);
        for t in &sum.terms {
            quotient.add_atom(&t.atom, t.coeff / c).ok()?;
        }
        Some(quotient.rebuild())
    }
}
