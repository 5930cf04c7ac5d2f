//! Constant bounds and alignment from one structural walk: the bound and
//! modular rules per operator.

use super::Analyzer;
use crate::bound::ConstBound;
use crate::expr::{Expr, ExprKind};
use crate::modular::Modular;
use crate::simplify::Info;

impl Analyzer {
    /// Constant bounds of `e` from one structural walk (interval
    /// arithmetic over the variables' ranges): sound, never tighter than
    /// [`Analyzer::const_int_bound`], and enough where it already decides a
    /// question (`lo >= 0`), at a fraction of the cost.
    ///
    /// ```
    /// use arith::{Analyzer, ConstBound, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x - x").unwrap();
    /// let mut an = Analyzer::new();
    /// an.bind(scope.get("x").unwrap(), Range::half_open(Expr::int(0), Expr::int(4)));
    /// assert_eq!(an.structural_bound(&e), ConstBound::new(-3, 3));
    /// assert_eq!(an.const_int_bound(&e), ConstBound::point(0));
    /// ```
    pub fn structural_bound(&self, e: &Expr) -> ConstBound {
        self.structural_info(e).bound
    }

    /// Whether the structural facts of `e` are as good as rewriting can
    /// make them: a small tree in which every variable occurs once and has
    /// a constant range, and which has no `select` (whose condition a
    /// rewrite could use) and no modulo.
    pub(super) fn structurally_exact(&self, e: &Expr) -> bool {
        if e.node_count() > 256 {
            return false;
        }
        let mut seen: smallvec::SmallVec<[&crate::expr::Var; 8]> = smallvec::SmallVec::new();
        let mut stack: smallvec::SmallVec<[&Expr; 16]> = smallvec::smallvec![e];
        while let Some(n) = stack.pop() {
            match n.kind() {
                ExprKind::Var(v) => {
                    // A symbolic range could tighten the bound by rewriting.
                    let exact = self
                        .vars
                        .get(v)
                        .is_some_and(|f| f.symbolic.is_none() && f.info.bound.is_finite());
                    if !exact || seen.contains(&v) {
                        return false;
                    }
                    seen.push(v);
                }
                // A modulo over a range that wraps is not monotone: its
                // interval is only a cover (the values of `(n*64 + 61) % 256`
                // for `n` in `[-2, -1]` are 189 and 253, not `[61, 253]`).
                ExprKind::Select(..) | ExprKind::FloorMod(..) => return false,
                _ => stack.extend(n.children()),
            }
        }
        true
    }

    /// Bounds and alignment of `e` from its structure alone.
    pub(crate) fn structural_info(&self, e: &Expr) -> Info {
        // Small trees recurse (their depth is at most their size); large
        // ones, such as long parsed sums, are walked on an explicit stack.
        if e.node_count() <= crate::stack::RECURSION_NODES {
            self.structural_info_small(e)
        } else {
            crate::walk::fold(e, &mut crate::IdMap::default(), |n, kids| {
                self.node_info(n, kids)
            })
        }
    }

    pub(super) fn structural_info_small(&self, e: &Expr) -> Info {
        use ExprKind::*;
        match e.kind() {
            // Leaves are most calls: answered here, without `node_info`.
            Int(v) => Info::exact(*v),
            Bool(v) => Info::exact(*v as i64),
            Var(v) => self.var_info(v),
            Not(_) | Cmp(..) | And(..) | Or(..) => Info::BOOL,
            Select(_, a, b) => {
                let kids = [
                    Info::BOOL,
                    self.structural_info_small(a),
                    self.structural_info_small(b),
                ];
                self.node_info(e, &kids)
            }
            Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | FloorDiv(a, b)
            | FloorMod(a, b)
            | CeilDiv(a, b)
            | Min(a, b)
            | Max(a, b) => {
                let kids = [self.structural_info_small(a), self.structural_info_small(b)];
                self.node_info(e, &kids)
            }
        }
    }

    /// Bounds and alignment of one node from those of its children.
    pub(crate) fn node_info(&self, e: &Expr, kids: &[Info]) -> Info {
        use ExprKind::*;
        let bin = || (kids[0], kids[1]);
        match e.kind() {
            Int(v) => Info::exact(*v),
            Bool(v) => Info::exact(*v as i64),
            Var(v) => self.var_info(v),
            Add(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.add(y.bound),
                    modular: x.modular.add(y.modular),
                }
            }
            Sub(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.sub(y.bound),
                    modular: x.modular.sub(y.modular),
                }
            }
            Mul(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.mul(y.bound),
                    modular: x.modular.mul(y.modular),
                }
            }
            FloorDiv(..) => {
                let (x, y) = bin();
                let modular = match y.modular.as_exact() {
                    Some(c) => x.modular.floor_div_const(c),
                    None => Modular::EVERYTHING,
                };
                Info {
                    bound: x.bound.floor_div(y.bound),
                    modular,
                }
            }
            FloorMod(..) => {
                let (x, y) = bin();
                match y.modular.as_exact() {
                    Some(c) => Info {
                        bound: x.bound.floor_mod_aligned(x.modular, c),
                        modular: x.modular.floor_mod_const(c),
                    },
                    None => Info {
                        bound: x.bound.floor_mod(y.bound),
                        modular: Modular::EVERYTHING,
                    },
                }
            }
            CeilDiv(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.ceil_div(y.bound),
                    modular: Modular::EVERYTHING,
                }
            }
            Min(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.min_with(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Max(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.max_with(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Select(..) => {
                let (x, y) = (kids[1], kids[2]);
                Info {
                    bound: x.bound.union(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Cmp(..) | And(..) | Or(..) | Not(..) => Info::BOOL,
        }
    }
}
