//! Rescaling strided symbols: XLA's `RescaleSymbols`.

use crate::build;
use crate::interval::Interval;
use crate::map::{IndexingMap, State};
use arith::{Expr, ExprKind, Var};
use std::collections::HashMap;

impl IndexingMap {
    /// Replaces every range variable `s` that has a constraint
    /// `s mod c in [r, r]` (`c > 0`) by `s * c + r` with a new range
    /// `[ceil((lo - r) / c), floor((hi - r) / c)]`, dropping that constraint:
    /// the map then enumerates only the values the constraint allowed. When a
    /// symbol has several such constraints that do not merge, only the first
    /// is used and the others are rewritten. Returns whether anything
    /// changed.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let mut map = IndexingMap::parse("(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 41], s0 mod 6 in [3, 3]").unwrap();
    /// assert!(map.rescale_symbols());
    /// assert_eq!(map.to_string(), "(d0)[s0] -> (d0, s0 * 6 + 3), domain: d0 in [0, 3], s0 in [0, 6]");
    /// ```
    pub fn rescale_symbols(&mut self) -> bool {
        if self.state != State::Defined {
            return false;
        }
        let merged = self.merge_mod_constraints();
        let mut replace: HashMap<Var, Expr> = HashMap::new();
        let mut drop = vec![false; self.constraints.len()];
        for (k, c) in self.constraints.iter().enumerate() {
            let Some(shift) = c.interval.as_point() else {
                continue;
            };
            let ExprKind::FloorMod(x, m) = c.expr.kind() else {
                continue;
            };
            let Some(scale) = m.as_int().filter(|m| *m > 0) else {
                continue;
            };
            let Some(var) = x.as_var() else { continue };
            let Some(i) = self.symbols.iter().position(|s| s.var() == var) else {
                continue;
            };
            if replace.contains_key(var) || !(0..scale).contains(&shift) {
                continue;
            }
            let b = self.symbols[i].bounds();
            let (Some(lo), Some(hi)) = (b.lower.checked_sub(shift), b.upper.checked_sub(shift))
            else {
                continue;
            };
            let (Ok(lo), Ok(hi)) = (
                arith::num::ceil_div(lo, scale),
                arith::num::floor_div(hi, scale),
            ) else {
                continue;
            };
            replace.insert(
                var.clone(),
                build::add(build::mul(x.clone(), Expr::int(scale)), Expr::int(shift)),
            );
            self.symbols[i].set_bounds(Interval::new(lo, hi));
            drop[k] = true;
        }
        if replace.is_empty() {
            return merged;
        }
        let apply = |e: &Expr| build::substitute(e, &mut |v| replace.get(v).cloned());
        self.results = self.results.iter().map(apply).collect();
        let old = std::mem::take(&mut self.constraints);
        for (k, c) in old.into_iter().enumerate() {
            if !drop[k] {
                // The expression only gains variables of this map, so this
                // cannot fail.
                let _ = self.add_constraint(apply(&c.expr), c.interval);
            }
        }
        if self.symbols.iter().any(|s| s.bounds().is_empty()) {
            self.mark_known_empty();
        }
        true
    }
}
