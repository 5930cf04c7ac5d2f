//! Range-aware simplification of a map: constraints first (they tighten the
//! variable ranges), then the results under the tightened ranges.

use crate::interval::Interval;
use crate::map::{Constraint, IndexingMap, State};
use crate::order::to_xla_order;
use arith::{Analyzer, Expr, ExprKind, Var};
use std::collections::HashMap;

impl IndexingMap {
    /// Simplifies the map in place, as XLA's `IndexingMap::Simplify`, and
    /// says whether anything changed:
    /// - constraints: `lb <= e (+, -, *, floordiv) c <= ub` becomes a bound
    ///   on `e`; a constraint on one variable narrows its range; `e mod a`
    ///   and `e mod b` constraints with the same remainder merge; constraints
    ///   that always hold are dropped; one that never holds (or an empty
    ///   range) makes the map known-empty;
    /// - results: simplified by [`arith::Analyzer`] with every variable bound
    ///   to its range (so a dimension with a one-point range becomes that
    ///   value), then put in XLA's canonical term order.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let mut map = IndexingMap::parse("(d0) -> (d0), domain: d0 in [0, 99], d0 / 8 in [5, 11]").unwrap();
    /// assert!(map.simplify());
    /// assert_eq!(map.to_string(), "(d0) -> (d0), domain: d0 in [40, 95]");
    /// ```
    pub fn simplify(&mut self) -> bool {
        self.simplify_impl(true)
    }

    /// As [`IndexingMap::simplify`], but a dimension with a one-point range
    /// stays a variable in the results (XLA's
    /// `SimplifyPointDimensions::kPreserve`).
    pub fn simplify_preserving_point_dims(&mut self) -> bool {
        self.simplify_impl(false)
    }

    fn simplify_impl(&mut self, bind_point_dims: bool) -> bool {
        if self.state != State::Defined {
            return false;
        }
        let before = self.snapshot();
        self.simplify_constraints();
        if self.state == State::Defined {
            let an = self.analyzer(bind_point_dims);
            let rank = self.rank_fn();
            let results: Vec<Expr> = self
                .results
                .iter()
                .map(|r| simplify_expr(&an, r, &rank))
                .collect();
            self.results = results;
        }
        self.snapshot() != before
    }

    /// An analyzer with every variable bound to its range (point-range
    /// dimensions left unbound when `bind_point_dims` is false).
    pub(crate) fn analyzer(&self, bind_point_dims: bool) -> Analyzer {
        let mut an = Analyzer::new();
        for (i, v) in self.all_vars().enumerate() {
            let point_dim = i < self.dims.len() && v.bounds().as_point().is_some();
            if point_dim && !bind_point_dims {
                continue;
            }
            an.update_bound(v.var(), v.bounds().to_bound());
        }
        an
    }

    /// The tightest interval the analyzer proves for `e` under the ranges of
    /// this map's variables (constraints are not used).
    ///
    /// ```
    /// use indexing::{IndexingMap, Interval};
    /// let map = IndexingMap::parse("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [-10, -1]").unwrap();
    /// let e = map.parse_expr("d0 * 2 + d1").unwrap();
    /// assert_eq!(map.expression_range(&e), Interval::new(-10, 17));
    /// ```
    pub fn expression_range(&self, e: &Expr) -> Interval {
        Interval::from_bound(self.analyzer(true).const_int_bound(e))
    }

    /// Orders variables as XLA does: dims, then range vars, then rt vars.
    pub(crate) fn rank_fn(&self) -> impl Fn(&Var) -> usize {
        let ranks: HashMap<Var, usize> = self
            .all_vars()
            .enumerate()
            .map(|(i, v)| (v.var().clone(), i))
            .collect();
        move |v: &Var| ranks.get(v).copied().unwrap_or(usize::MAX)
    }

    fn snapshot(&self) -> (Vec<Expr>, Vec<Constraint>, Vec<Interval>, State) {
        (
            self.results.clone(),
            self.constraints.clone(),
            self.all_vars().map(|v| v.bounds()).collect(),
            self.state,
        )
    }
}

/// Simplifies `e` under `an` and puts it in XLA's order. The simplifier's
/// form replaces `e` only when it is simpler by [`Cost`]: `arith` may trade
/// one canonical form for another of the same cost (`(d0 - 1) mod 2` for
/// `(d0 + 1) mod 2`), and then the form the map was built with, the one XLA
/// prints, stays. An expression the simplifier rejects (overflow while
/// folding) is kept.
pub(crate) fn simplify_expr(an: &Analyzer, e: &Expr, rank: &dyn Fn(&Var) -> usize) -> Expr {
    // Reordering a sum can move an overflow to a point where the input
    // has a value (`-2^63 + 5 - 3` is defined, `-2^63 - 3 + 5` is not), so
    // XLA's order is taken only where it stays inside `i64`. An input
    // that may overflow somewhere keeps its own order, and the
    // simplifier's result is defined wherever the input is.
    let risky = an.may_overflow(e);
    let ordered = |f: &Expr| {
        if risky {
            return f.clone();
        }
        let o = to_xla_order(f, rank);
        if an.may_overflow(&o) {
            f.clone()
        } else {
            o
        }
    };
    let kept = ordered(e);
    match an.simplify(e) {
        Ok(s) => {
            let s = ordered(&s);
            if Cost::of(&s) < Cost::of(&kept) {
                s
            } else {
                kept
            }
        }
        Err(_) => kept,
    }
}

/// How complex an index expression is, compared lexicographically: the
/// number of divisions and modulos, the size of what they divide, the number
/// of variable occurrences, then the number of nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Cost {
    divisions: usize,
    dividend_nodes: usize,
    var_uses: usize,
    nodes: usize,
}

impl Cost {
    fn of(e: &Expr) -> Cost {
        let mut c = Cost {
            divisions: 0,
            dividend_nodes: 0,
            var_uses: 0,
            nodes: e.node_count(),
        };
        let mut stack = vec![e];
        while let Some(n) = stack.pop() {
            match n.kind() {
                ExprKind::FloorDiv(a, _) | ExprKind::FloorMod(a, _) | ExprKind::CeilDiv(a, _) => {
                    c.divisions += 1;
                    c.dividend_nodes += a.node_count();
                }
                ExprKind::Var(_) => c.var_uses += 1,
                _ => {}
            }
            stack.extend(n.children());
        }
        c
    }
}
