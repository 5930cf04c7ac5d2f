//! The overflow analysis: whether some node may leave `i64` for values
//! inside the variables' ranges, and simplification that keeps the nodes
//! that may overflow as written.

use super::Analyzer;
use crate::bound::Wide;
use crate::expr::{Expr, ExprKind, Var};
use smallvec::SmallVec;

/// The exact interval of a node's values (ends are values, cut to `i64`
/// once judged), `None` over unbounded variables: what
/// [`Analyzer::may_overflow`] tracks per node.
type W = Option<Wide>;

impl Analyzer {
    /// Whether `e` provably evaluates without overflow for every value of
    /// its variables inside their ranges: every intermediate value of every
    /// node stays inside `i64`. Variables without a finite range make this
    /// `false`. For such expressions [`Analyzer::simplify`] guarantees its
    /// result is overflow-free too; for others, the result agrees with the
    /// input wherever both are defined.
    ///
    /// ```
    /// use arith::{Analyzer, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x % 4 * 3 + x").unwrap();
    /// let mut an = Analyzer::new();
    /// let x = scope.get("x").unwrap();
    /// an.bind(x, Range::half_open(Expr::int(0), Expr::int(1 << 40)));
    /// assert!(an.is_overflow_free(&e));
    /// let mut wide = Analyzer::new();
    /// wide.bind(x, Range::half_open(Expr::int(0), Expr::int(i64::MAX)));
    /// assert!(!wide.is_overflow_free(&e));
    /// ```
    pub fn is_overflow_free(&self, e: &Expr) -> bool {
        let mut finite = true;
        crate::walk::any_node(e, |n| {
            if let Some(v) = n.as_var() {
                finite &= self.var_bound(v).is_finite();
            }
            false
        });
        finite && !self.may_overflow(e)
    }

    /// How many bits bound the magnitude of every node of `e` (each node's
    /// values lie strictly inside `±2^bits`), from the leaves' magnitudes
    /// alone: a sum needs one bit more than its larger operand, a product
    /// the bits of both, and division, modulo, `min`, `max` and `select`
    /// no more than their operands (one more for a division's rounding).
    /// `None` when some node may need more than 62 bits or a variable is
    /// unbounded: then only the interval walk of
    /// [`Analyzer::may_overflow`] can tell.
    pub(super) fn magnitude_bits(&self, e: &Expr) -> Option<u32> {
        use ExprKind::*;
        const LIMIT: u32 = 62;
        let bits_of = |m: u128| 128 - m.leading_zeros();
        let bits = match e.kind() {
            Int(v) => bits_of(v.unsigned_abs() as u128),
            Bool(_) => 1,
            Var(v) => {
                let w = self.overflow_var_interval(v)?;
                bits_of(w.lo.unsigned_abs().max(w.hi.unsigned_abs()))
            }
            Not(a) => self.magnitude_bits(a).map(|_| 1)?,
            Cmp(_, a, b) | And(a, b) | Or(a, b) => {
                self.magnitude_bits(a)?;
                self.magnitude_bits(b)?;
                1
            }
            Add(a, b) | Sub(a, b) => self.magnitude_bits(a)?.max(self.magnitude_bits(b)?) + 1,
            Mul(a, b) => self.magnitude_bits(a)? + self.magnitude_bits(b)?,
            FloorDiv(a, b) | FloorMod(a, b) | CeilDiv(a, b) => {
                self.magnitude_bits(a)?.max(self.magnitude_bits(b)?) + 1
            }
            Min(a, b) | Max(a, b) => self.magnitude_bits(a)?.max(self.magnitude_bits(b)?),
            Select(c, a, b) => {
                self.magnitude_bits(c)?;
                self.magnitude_bits(a)?.max(self.magnitude_bits(b)?)
            }
        };
        (bits <= LIMIT).then_some(bits)
    }

    /// The values a variable takes as [`Analyzer::may_overflow`] judges
    /// them: its declared range, else its finite bounds.
    pub(super) fn overflow_var_interval(&self, v: &Var) -> Option<Wide> {
        match self.vars.get(v).and_then(|f| f.declared) {
            Some((lo, hi)) => Some(Wide::exact(lo, hi)),
            None => {
                let b = self.var_bound(v);
                b.is_finite().then(|| Wide::exact(b.min, b.max))
            }
        }
    }

    /// Whether some node of `e` may leave the `i64` range for variable
    /// values inside their (finite) ranges. Nodes over unbounded variables
    /// are not judged. Each distinct node is visited once, without
    /// recursion. A rewrite of an expression for which this is `false` must
    /// keep it `false`, or it may fail where the input has a value.
    ///
    /// ```
    /// use arith::{Analyzer, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x * 4611686018427387904").unwrap();
    /// let x = scope.get("x").unwrap();
    /// let mut an = Analyzer::new();
    /// an.bind(x, Range::half_open(Expr::int(-1), Expr::int(2)));
    /// assert!(!an.may_overflow(&e));
    /// let mut wide = Analyzer::new();
    /// wide.bind(x, Range::half_open(Expr::int(0), Expr::int(4)));
    /// assert!(wide.may_overflow(&e));
    /// assert!(!Analyzer::new().may_overflow(&e)); // unbounded: not judged
    /// ```
    pub fn may_overflow(&self, e: &Expr) -> bool {
        // Most trees are decided by their leaves' magnitudes alone (index
        // arithmetic over 32-bit ranges stays far below 2^63); the interval
        // walk is for the rest.
        if e.node_count() <= crate::stack::RECURSION_NODES && self.magnitude_bits(e).is_some() {
            return false;
        }
        self.may_overflow_by_intervals(e)
    }

    /// [`Analyzer::may_overflow`] by interval arithmetic on every node.
    pub(super) fn may_overflow_by_intervals(&self, e: &Expr) -> bool {
        let mut overflow = false;
        let node =
            |n: &Expr, kids: &[W], overflow: &mut bool| self.overflow_interval(n, kids, overflow);
        // Small trees recurse (depth at most their size); large ones are
        // walked on an explicit stack with a memo by node identity. The
        // recursion matches on the node itself rather than collecting
        // `children()`: it runs at the end of every simplification, and the
        // collected vector costs about 6% of the corpus benchmark.
        if e.node_count() <= crate::stack::RECURSION_NODES {
            fn rec(e: &Expr, f: &dyn Fn(&Expr, &[W], &mut bool) -> W, o: &mut bool) -> W {
                use ExprKind::*;
                match e.kind() {
                    Int(_) | Bool(_) | Var(_) => f(e, &[], o),
                    Not(a) => {
                        let x = rec(a, f, o);
                        f(e, &[x], o)
                    }
                    Select(c, a, b) => {
                        let (x, y, z) = (rec(c, f, o), rec(a, f, o), rec(b, f, o));
                        f(e, &[x, y, z], o)
                    }
                    Add(a, b)
                    | Sub(a, b)
                    | Mul(a, b)
                    | FloorDiv(a, b)
                    | FloorMod(a, b)
                    | CeilDiv(a, b)
                    | Min(a, b)
                    | Max(a, b)
                    | Cmp(_, a, b)
                    | And(a, b)
                    | Or(a, b) => {
                        let (x, y) = (rec(a, f, o), rec(b, f, o));
                        f(e, &[x, y], o)
                    }
                }
            }
            rec(e, &node, &mut overflow);
        } else {
            crate::walk::fold(e, &mut crate::IdMap::default(), |n, kids: &[W]| {
                node(n, kids, &mut overflow)
            });
        }
        overflow
    }

    /// The interval of `n`'s values from those of its children, in the
    /// crate's one interval arithmetic ([`Wide`]) read exactly, setting
    /// `overflow` when some value may leave `i64`. `None` for nodes over
    /// unbounded variables.
    pub(super) fn overflow_interval(&self, n: &Expr, kids: &[W], overflow: &mut bool) -> W {
        // A value past `i64` is an overflow; the node's values are then cut
        // to `i64` (the evaluation would have stopped there).
        let judged = |w: Wide, overflow: &mut bool| -> W {
            if !w.fits_i64() {
                *overflow = true;
            }
            Some(w.clamp_i64())
        };
        use ExprKind::*;
        match n.kind() {
            Int(v) => Some(Wide::exact(*v, *v)),
            Bool(_) | Cmp(..) | And(..) | Or(..) | Not(..) => Some(Wide::exact(0, 1)),
            Var(v) => self.overflow_var_interval(v),
            Add(..) => judged(kids[0]?.add(kids[1]?), overflow),
            Sub(..) => judged(kids[0]?.sub(kids[1]?), overflow),
            Mul(..) => judged(kids[0]?.mul(kids[1]?), overflow),
            FloorDiv(..) | FloorMod(..) | CeilDiv(..) => {
                let (a, b) = (kids[0]?, kids[1]?);
                // Only i64::MIN // -1 leaves the range.
                if a.lo == i64::MIN as i128 && b.lo <= -1 && -1 <= b.hi {
                    *overflow = true;
                }
                let w = match n.kind() {
                    FloorMod(..) => a.floor_mod(b)?,
                    FloorDiv(..) => a.floor_div(b)?,
                    _ => a.ceil_div(b)?,
                };
                judged(w, overflow)
            }
            Min(..) => Some(kids[0]?.min_with(kids[1]?)),
            Max(..) => Some(kids[0]?.max_with(kids[1]?)),
            Select(..) => Some(kids[1]?.union(kids[2]?)),
        }
    }

    /// The simplification of an input that may overflow somewhere: the
    /// nodes that may overflow are kept as written, and every largest
    /// subtree that provably stays inside `i64` is simplified on its own.
    /// The result is then defined wherever the input is (the kept nodes
    /// apply the same operations to equal values) and never larger. One
    /// walk, each distinct node once.
    pub(super) fn simplify_where_defined(&self, e: &Expr) -> Expr {
        // (values, subtree may overflow, the subtree rebuilt)
        type Part = (W, bool, Expr);
        let part = |n: &Expr, kids: &[Part]| -> Part {
            let ws: SmallVec<[W; 3]> = kids.iter().map(|k| k.0).collect();
            let mut overflow = kids.iter().any(|k| k.1);
            let w = self.overflow_interval(n, &ws, &mut overflow);
            if !overflow {
                return (w, false, n.clone());
            }
            let rebuilt: SmallVec<[Expr; 3]> = kids
                .iter()
                .zip(n.children())
                .map(|(k, c)| match k.1 {
                    true => k.2.clone(),
                    false => self.simplify(c).unwrap_or_else(|_| c.clone()),
                })
                .collect();
            (w, true, n.with_children(&rebuilt))
        };
        let (_, overflow, rebuilt) = crate::walk::fold(e, &mut crate::IdMap::default(), part);
        if overflow {
            rebuilt
        } else {
            e.clone()
        }
    }
}
