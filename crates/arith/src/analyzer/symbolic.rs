//! Constant bounds under symbolic variable ranges (`i - n` with `i` in
//! `[0, n)` is at most `-1`).

use super::Analyzer;
use crate::bound::ConstBound;
use crate::expr::Expr;
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
            let sym = t
                .atom
                .as_var()
                .and_then(|v| self.vars.get(v))
                .and_then(|f| f.symbolic.as_ref());
            match sym {
                Some((lo, hi)) if depth < 4 => {
                    let end = if (t.coeff > 0) == upper { hi } else { lo };
                    out.add_expr(end, t.coeff).ok()?;
                    replaced = true;
                }
                _ => out.add_atom(&t.atom, t.coeff).ok()?,
            }
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
}
