//! Sound widening of maps whose expressions outgrow a size budget.
//!
//! Composing maps substitutes whole result expressions for the producer's
//! dimensions; a reshape uses each incoming result twice (in `floordiv` and
//! `mod`), so an alternating chain of transposes and reshapes doubles the
//! tree size at every op. The trees share their subexpressions, but the
//! simplifier and the printer see trees, so an exact answer would cost
//! exponential time. Instead, a result whose tree exceeds the budget is
//! replaced by a fresh range variable spanning every value the result can
//! take, and a constraint that exceeds it is dropped: both can only add
//! points to the map, never remove one, so the widened map is a sound
//! over-approximation. Ranges are computed over the shared graph (memoised
//! per node), so widening costs time linear in the graph, not the tree.

use crate::interval::Interval;
use crate::map::{IndexingMap, State};
use crate::variable::{VarKind, Variable};
use arith::{ConstBound, Expr, ExprKind, Var};
use std::collections::HashMap;

/// The largest expression tree (in nodes) a composed result or constraint
/// may have before [`IndexingMap::widen_oversized`] replaces it.
pub const EXPRESSION_BUDGET: usize = 128;

/// What [`IndexingMap::widen_oversized`] gave up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Widening {
    /// Results replaced by a range variable over their values.
    pub results: usize,
    /// Constraints dropped.
    pub constraints: usize,
}

impl Widening {
    /// Whether nothing was widened.
    pub fn is_exact(self) -> bool {
        self.results == 0 && self.constraints == 0
    }
}

impl IndexingMap {
    /// Replaces every result whose expression tree has more than `budget`
    /// nodes by a new range variable over the values that result can take,
    /// and drops every constraint over `budget` nodes. The new map contains
    /// every point of the old one (it may contain more); runs in time linear
    /// in the size of the shared expression graph.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let mut map = IndexingMap::parse("(d0) -> (d0 * 3 + 1, d0), domain: d0 in [0, 9]").unwrap();
    /// let w = map.widen_oversized(3);
    /// assert_eq!(w.results, 1);
    /// assert_eq!(map.to_string(), "(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [1, 28]");
    /// ```
    pub fn widen_oversized(&mut self, budget: usize) -> Widening {
        let mut widening = Widening::default();
        if self.state != State::Defined {
            return widening;
        }
        let oversized = |e: &Expr| e.node_count() > budget;
        if !self.results.iter().any(oversized)
            && !self.constraints.iter().any(|c| oversized(&c.expr))
        {
            return widening;
        }
        let before = self.constraints.len();
        self.constraints.retain(|c| !oversized(&c.expr));
        widening.constraints = before - self.constraints.len();
        let mut ranges = GraphRanges::new(self);
        for i in 0..self.results.len() {
            if !oversized(&self.results[i]) {
                continue;
            }
            let range = ranges.of(&self.results[i]);
            let symbol = Variable::new(Interval::from_bound(range));
            self.results[i] = symbol.expr();
            self.symbols.push(symbol);
            widening.results += 1;
        }
        widening
    }
}

/// Constant ranges of expressions over a map's variables, memoised per
/// shared node.
struct GraphRanges {
    vars: HashMap<Var, ConstBound>,
    /// Keyed by structural hash; entries are matched by node identity.
    memo: HashMap<u64, Vec<(Expr, ConstBound)>>,
}

impl GraphRanges {
    fn new(map: &IndexingMap) -> GraphRanges {
        let vars = [VarKind::Dim, VarKind::Symbol, VarKind::Runtime]
            .into_iter()
            .flat_map(|k| map.vars_of(k).iter())
            .map(|v| (v.var().clone(), v.bounds().to_bound()))
            .collect();
        GraphRanges {
            vars,
            memo: HashMap::new(),
        }
    }

    /// The range of `e`, visiting each shared node once (an explicit stack,
    /// so deep graphs do not exhaust the call stack).
    fn of(&mut self, e: &Expr) -> ConstBound {
        let mut stack: Vec<(Expr, bool)> = vec![(e.clone(), false)];
        while let Some((node, children_done)) = stack.pop() {
            if self.lookup(&node).is_some() {
                continue;
            }
            if !children_done {
                stack.push((node.clone(), true));
                for c in node.children() {
                    if self.lookup(c).is_none() {
                        stack.push((c.clone(), false));
                    }
                }
                continue;
            }
            let range = self.combine(&node);
            self.memo
                .entry(node.structural_hash())
                .or_default()
                .push((node, range));
        }
        self.lookup(e).unwrap_or(ConstBound::EVERYTHING)
    }

    fn lookup(&self, e: &Expr) -> Option<ConstBound> {
        match e.kind() {
            ExprKind::Int(v) => return Some(ConstBound::point(*v)),
            ExprKind::Var(v) => {
                return Some(self.vars.get(v).copied().unwrap_or(ConstBound::EVERYTHING))
            }
            _ => {}
        }
        self.memo
            .get(&e.structural_hash())?
            .iter()
            .find(|(n, _)| n.ptr_eq(e))
            .map(|&(_, r)| r)
    }

    /// The range of `node` from the ranges of its children (all memoised).
    fn combine(&self, node: &Expr) -> ConstBound {
        let r = |c: &Expr| self.lookup(c).unwrap_or(ConstBound::EVERYTHING);
        match node.kind() {
            ExprKind::Add(a, b) => r(a).add(r(b)),
            ExprKind::Sub(a, b) => r(a).sub(r(b)),
            ExprKind::Mul(a, b) => r(a).mul(r(b)),
            ExprKind::FloorDiv(a, b) => r(a).floor_div(r(b)),
            ExprKind::CeilDiv(a, b) => r(a).ceil_div(r(b)),
            ExprKind::FloorMod(a, b) => r(a).floor_mod(r(b)),
            ExprKind::Min(a, b) => r(a).min_with(r(b)),
            ExprKind::Max(a, b) => r(a).max_with(r(b)),
            _ => ConstBound::EVERYTHING,
        }
    }
}
