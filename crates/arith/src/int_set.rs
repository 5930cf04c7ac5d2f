//! Symbolic integer interval sets (TVM's `IntervalSet`) and the evaluation of
//! an expression over variable domains (TVM's `EvalSet`).
//!
//! An [`IntSet`] is an inclusive interval `[min, max]` whose ends are
//! expressions, `None` standing for an infinite end, or the empty set. Ends
//! may be symbolic (`[0, n - 1]`); where symbolic ends cross (`max < min`)
//! for some values of their variables, the set is empty for those values.
//!
//! [`Analyzer::int_set`] relaxes some variables of an expression to sets and
//! returns a set holding every value the expression can take. It is sound
//! (it never misses a value) and exact for linear expressions in which each
//! relaxed variable occurs once; elsewhere it over-approximates.

use crate::analyzer::Analyzer;
use crate::bound::{ConstBound, NEG_INF, POS_INF};
use crate::expr::{CmpOp, Expr, ExprKind, Type, Var};
use crate::linear::LinearForm;
use crate::num;
use crate::range::Range;
use crate::IdMap;
use std::collections::HashMap;
use std::fmt;

/// An inclusive interval of integers with symbolic ends, or the empty set.
///
/// ```
/// use arith::{int_set::IntSet, Analyzer};
/// let (e, scope) = arith::parse_with_scope("x + 3").unwrap();
/// let x = scope.get("x").unwrap().expr();
/// let an = Analyzer::new();
/// let a = IntSet::interval(x.clone(), an.simplify(&e).unwrap());
/// let b = IntSet::interval(x.clone() + 2, x.clone() + 9);
/// assert_eq!(a.union(&b, &an).to_string(), "[x, x + 9]");
/// assert_eq!(a.intersect(&b, &an).to_string(), "[x + 2, x + 3]");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntSet {
    repr: Repr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Repr {
    Empty,
    /// Inclusive ends; `None` is `-inf` for the first and `+inf` for the second.
    Interval(Option<Expr>, Option<Expr>),
}

impl IntSet {
    /// Every integer: `[-inf, +inf]`.
    pub fn everything() -> IntSet {
        IntSet {
            repr: Repr::Interval(None, None),
        }
    }

    /// The empty set.
    pub fn nothing() -> IntSet {
        IntSet { repr: Repr::Empty }
    }

    /// The single value `e`.
    pub fn single_point(e: Expr) -> IntSet {
        IntSet {
            repr: Repr::Interval(Some(e.clone()), Some(e)),
        }
    }

    /// `[min, max]`, inclusive; `None` makes an end infinite. Constant ends
    /// with `min > max` give the empty set.
    ///
    /// ```
    /// use arith::{int_set::IntSet, Expr};
    /// assert_eq!(IntSet::interval(Expr::int(0), None).to_string(), "[0, +inf]");
    /// assert!(IntSet::interval(Expr::int(3), Expr::int(2)).is_nothing());
    /// ```
    pub fn interval(min: impl Into<Option<Expr>>, max: impl Into<Option<Expr>>) -> IntSet {
        let (min, max) = (min.into(), max.into());
        let crossed = matches!(
            (min.as_ref().and_then(Expr::as_int), max.as_ref().and_then(Expr::as_int)),
            (Some(a), Some(b)) if a > b
        );
        if crossed {
            return IntSet::nothing();
        }
        IntSet {
            repr: Repr::Interval(min, max),
        }
    }

    /// The values of a TVM range `[min, min + extent)`; a constant extent
    /// `<= 0` gives the empty set.
    ///
    /// ```
    /// use arith::{int_set::IntSet, Expr, Range, Var};
    /// let n = Var::new("n");
    /// let s = IntSet::from_range(&Range::from_extent(n.expr()));
    /// assert_eq!(s.to_string(), "[0, n - 1]");
    /// ```
    pub fn from_range(range: &Range) -> IntSet {
        if range.extent.as_int().is_some_and(|e| e <= 0) {
            return IntSet::nothing();
        }
        let an = Analyzer::new();
        let raw = Expr::sub(
            Expr::add(range.min.clone(), range.extent.clone()),
            Expr::int(1),
        );
        let max = match an.simplify(&raw) {
            Ok(e) => e,
            // The last value does not fit in 64 bits: the set is unbounded above.
            Err(_) => return IntSet::interval(range.min.clone(), None),
        };
        IntSet::interval(range.min.clone(), max)
    }

    /// The lower end; `None` when it is `-inf` or the set is empty.
    pub fn min(&self) -> Option<&Expr> {
        match &self.repr {
            Repr::Interval(lo, _) => lo.as_ref(),
            Repr::Empty => None,
        }
    }

    /// The upper end; `None` when it is `+inf` or the set is empty.
    pub fn max(&self) -> Option<&Expr> {
        match &self.repr {
            Repr::Interval(_, hi) => hi.as_ref(),
            Repr::Empty => None,
        }
    }

    /// Whether this is the empty set (as constructed or proved; a set whose
    /// symbolic ends merely may cross is not reported empty).
    pub fn is_nothing(&self) -> bool {
        self.repr == Repr::Empty
    }

    /// Whether both ends are infinite.
    pub fn is_everything(&self) -> bool {
        self.repr == Repr::Interval(None, None)
    }

    /// The single value, when both ends are the same expression.
    pub fn as_single_point(&self) -> Option<&Expr> {
        match &self.repr {
            Repr::Interval(Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// The ends, or `None` for the empty set.
    fn ends(&self) -> Option<(&Option<Expr>, &Option<Expr>)> {
        match &self.repr {
            Repr::Interval(lo, hi) => Some((lo, hi)),
            Repr::Empty => None,
        }
    }

    /// The ends of a set known to be non-empty (operators check that first);
    /// the empty set would read as unbounded, which stays sound.
    fn bounds(&self) -> (&Option<Expr>, &Option<Expr>) {
        static UNBOUNDED: Option<Expr> = None;
        self.ends().unwrap_or((&UNBOUNDED, &UNBOUNDED))
    }

    /// The smallest interval holding both sets; symbolic ends are combined
    /// with `min`/`max` and simplified.
    pub fn union(&self, other: &IntSet, an: &Analyzer) -> IntSet {
        let (Some((al, ah)), Some((bl, bh))) = (self.ends(), other.ends()) else {
            return if self.is_nothing() {
                other.clone()
            } else {
                self.clone()
            };
        };
        let lo = match (al, bl) {
            (Some(a), Some(b)) => Some(min_of(a, b, an)),
            _ => None,
        };
        let hi = match (ah, bh) {
            (Some(a), Some(b)) => Some(max_of(a, b, an)),
            _ => None,
        };
        IntSet::interval(lo, hi)
    }

    /// The values in both sets; the empty set when the analyzer proves that
    /// the ends cross.
    pub fn intersect(&self, other: &IntSet, an: &Analyzer) -> IntSet {
        let (Some((al, ah)), Some((bl, bh))) = (self.ends(), other.ends()) else {
            return IntSet::nothing();
        };
        let lo = match (al, bl) {
            (Some(a), Some(b)) => Some(max_of(a, b, an)),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let hi = match (ah, bh) {
            (Some(a), Some(b)) => Some(min_of(a, b, an)),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        // Constant ends that cross are caught by `interval`.
        if let (Some(l), Some(h)) = (&lo, &hi) {
            let symbolic = l.as_int().is_none() || h.as_int().is_none();
            if symbolic && an.can_prove(&Expr::lt(h.clone(), l.clone())) {
                return IntSet::nothing();
            }
        }
        IntSet::interval(lo, hi)
    }

    /// A TVM range `[min, min + extent)` covering the values of this set that
    /// lie in `fallback`: an infinite end is replaced by the corresponding
    /// end of `fallback`, and the empty set gives an extent of zero.
    ///
    /// ```
    /// use arith::{int_set::IntSet, Analyzer, Expr, Range};
    /// let an = Analyzer::new();
    /// let s = IntSet::interval(Expr::int(2), None);
    /// let r = s.cover_range(&Range::half_open(Expr::int(0), Expr::int(10)), &an);
    /// assert_eq!(r.to_string(), "[2, 10)");
    /// ```
    pub fn cover_range(&self, fallback: &Range, an: &Analyzer) -> Range {
        let Some((lo, hi)) = self.ends() else {
            return Range::new(fallback.min.clone(), Expr::int(0));
        };
        if lo.is_none() && hi.is_none() {
            return fallback.clone();
        }
        let lo = lo.clone().unwrap_or_else(|| fallback.min.clone());
        let hi = hi.clone().unwrap_or_else(|| {
            Expr::sub(
                Expr::add(fallback.min.clone(), fallback.extent.clone()),
                Expr::int(1),
            )
        });
        let raw = Expr::add(Expr::sub(hi, lo.clone()), Expr::int(1));
        match (an.simplify(&lo), an.simplify(&raw)) {
            (Ok(min), Ok(extent)) => Range::new(min, extent),
            _ => fallback.clone(),
        }
    }

    /// `max + 1`, simplified: the exclusive upper end as TC writes ranges
    /// (`lo <= i < hi`). `None` when the upper end is infinite or the set is
    /// empty.
    ///
    /// ```
    /// use arith::{int_set::IntSet, Analyzer, Expr};
    /// let (hi, _) = arith::parse_with_scope("(I - 1) // 2").unwrap();
    /// let s = IntSet::interval(Expr::int(0), hi);
    /// assert_eq!(s.exclusive_max(&Analyzer::new()).unwrap().to_string(), "(I + 1) // 2");
    /// ```
    pub fn exclusive_max(&self, an: &Analyzer) -> Option<Expr> {
        let hi = self.max()?;
        an.simplify(&Expr::add(hi.clone(), Expr::int(1))).ok()
    }
}

impl fmt::Display for IntSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Empty => f.write_str("{}"),
            Repr::Interval(lo, hi) => {
                match lo {
                    Some(e) => write!(f, "[{e}, ")?,
                    None => f.write_str("[-inf, ")?,
                }
                match hi {
                    Some(e) => write!(f, "{e}]"),
                    None => f.write_str("+inf]"),
                }
            }
        }
    }
}

/// The union of all `sets` (the empty set when there are none).
///
/// ```
/// use arith::{int_set::{union_all, IntSet}, Analyzer, Expr};
/// let an = Analyzer::new();
/// let sets = [IntSet::interval(None, Expr::int(0)), IntSet::interval(Expr::int(1), None)];
/// assert!(union_all(&sets, &an).is_everything());
/// ```
pub fn union_all(sets: &[IntSet], an: &Analyzer) -> IntSet {
    sets.iter()
        .fold(IntSet::nothing(), |acc, s| acc.union(s, an))
}

fn min_of(a: &Expr, b: &Expr, an: &Analyzer) -> Expr {
    combine_ends(a, b, an, true)
}

fn max_of(a: &Expr, b: &Expr, an: &Analyzer) -> Expr {
    combine_ends(a, b, an, false)
}

/// `min(a, b)` or `max(a, b)`, simplified; the plain tree when simplification
/// fails (it is exact either way).
fn combine_ends(a: &Expr, b: &Expr, an: &Analyzer, is_min: bool) -> Expr {
    if a == b {
        return a.clone();
    }
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        return Expr::int(if is_min { x.min(y) } else { x.max(y) });
    }
    // Ends that differ by a constant (the loads `x`, `x + 1`, `x + 2` of a
    // stencil) are ordered by their constants, without simplifying: first
    // when both are one base plus a constant, else by their linear forms.
    if let (Some((ba, ka)), Some((bb, kb))) = (offset_form(a), offset_form(b)) {
        if ba == bb {
            let a_first = (ka <= kb) == is_min;
            return if a_first { a.clone() } else { b.clone() };
        }
    }
    if let (Ok(la), Ok(lb)) = (LinearForm::of(a), LinearForm::of(b)) {
        if la.terms == lb.terms {
            let a_first = (la.constant <= lb.constant) == is_min;
            return if a_first { a.clone() } else { b.clone() };
        }
    }
    let raw = if is_min {
        Expr::min(a.clone(), b.clone())
    } else {
        Expr::max(a.clone(), b.clone())
    };
    an.simplify(&raw).unwrap_or(raw)
}

/// `e` as `base + k`: `(b, k)` for `b + k` and `b - k` with a constant
/// `k`, else `(e, 0)`; `None` when `-k` overflows.
fn offset_form(e: &Expr) -> Option<(&Expr, i64)> {
    match e.kind() {
        ExprKind::Add(b, k) => match k.as_int() {
            Some(k) => Some((b, k)),
            None => Some((e, 0)),
        },
        ExprKind::Sub(b, k) => match k.as_int() {
            Some(k) => Some((b, k.checked_neg()?)),
            None => Some((e, 0)),
        },
        _ => Some((e, 0)),
    }
}

/// A divisor range that holds zero, split into its negative and positive
/// parts (division by zero has no value, so zero itself is dropped); `None`
/// when the range excludes zero or is unbounded.
fn nonzero_parts(b: ConstBound) -> Option<Vec<IntSet>> {
    if !b.is_finite() || !b.contains(0) {
        return None;
    }
    let mut parts = Vec::new();
    if b.min <= -1 {
        parts.push(IntSet::interval(Expr::int(b.min), Expr::int(-1)));
    }
    if b.max >= 1 {
        parts.push(IntSet::interval(Expr::int(1), Expr::int(b.max)));
    }
    Some(parts)
}

/// The node budget of [`Analyzer::int_set`]: far above the ends of
/// ordinary index expressions, low enough that hostile ones stay
/// near-linear.
pub const INT_SET_BUDGET: usize = 1024;

impl Analyzer {
    /// The set of values `e` takes when each variable in `dom` ranges over
    /// its set (TVM's `EvalSet`). Variables not in `dom` stay symbolic, and
    /// what the analyzer knows about them is used; the sets in `dom` replace
    /// whatever the analyzer knows about their variables. A domain end may
    /// mention other variables of `dom` (they are relaxed in turn); a cycle
    /// of such references makes the affected end infinite.
    ///
    /// The result is sound: it holds every value `e` takes. It is exact for
    /// sums of relaxed variables scaled by constants (after simplification,
    /// so `x - x` is `[0, 0]`). Elsewhere it follows interval arithmetic:
    /// products and quotients at the corners of their operands (a divisor
    /// range holding zero is split around it; a symbolic divisor of unknown
    /// sign gives everything), `%` by a constant `c` gives `[0, c - 1]`
    /// narrowed by the operand's alignment unless the operand provably stays
    /// in one block of `c` values (a symbolic divisor `d >= 1` likewise;
    /// when staying in one block is undecided, each end is a `select` on
    /// it, the minimal box for every value of the symbols), `select` with
    /// an undecided condition
    /// joins both branches. A condition evaluates to `1`, `0`, or `[0, 1]`
    /// when undecided. An end that would overflow 64 bits is infinite.
    ///
    /// Exact ends can grow exponentially with the depth of `e` (each end of
    /// a product of undecided sign is a `min`/`max` of corners that repeat
    /// the ends below), so this is [`Analyzer::int_set_within`] with the
    /// generous budget [`INT_SET_BUDGET`]: ends beyond it are widened to
    /// their constant bounds. Use `int_set_within` to learn whether that
    /// happened, or to choose another budget.
    ///
    /// ```
    /// use arith::{int_set::IntSet, Analyzer, Expr};
    /// use std::collections::HashMap;
    /// let (e, scope) = arith::parse_with_scope("x * 4 + y // 8").unwrap();
    /// let (x, y) = (scope.get("x").unwrap().clone(), scope.get("y").unwrap().clone());
    /// let dom = HashMap::from([
    ///     (x, IntSet::interval(Expr::int(0), Expr::int(3))),
    ///     (y, IntSet::interval(Expr::int(0), Expr::int(15))),
    /// ]);
    /// assert_eq!(Analyzer::new().int_set(&e, &dom).to_string(), "[0, 13]");
    /// ```
    pub fn int_set(&self, e: &Expr, dom: &HashMap<Var, IntSet>) -> IntSet {
        self.int_set_within(e, dom, INT_SET_BUDGET).0
    }

    /// [`Analyzer::int_set`] under a growth budget: every end of every
    /// intermediate set with more than `max_nodes` nodes is widened to its
    /// constant bound (or made infinite), so the work and the answer stay
    /// near-linear in the size of `e` however the exact ends would grow.
    /// The answer is still sound; [`Precision::Widened`] says that some
    /// precision was given up, so that a caller can report it.
    ///
    /// ```
    /// use arith::int_set::{IntSet, Precision};
    /// use arith::{Analyzer, Expr};
    /// use std::collections::HashMap;
    /// let (e, scope) = arith::parse_with_scope("min(x, y) + min(y, z)").unwrap();
    /// let var = |n: &str| scope.get(n).unwrap().clone();
    /// let nv = arith::Var::new("n");
    /// let n = nv.expr();
    /// let dom = HashMap::from([
    ///     (var("x"), IntSet::interval(Expr::int(0), n.clone())),
    ///     (var("y"), IntSet::interval(Expr::int(1), n.clone() + 1)),
    ///     (var("z"), IntSet::interval(Expr::int(2), n.clone() + 2)),
    /// ]);
    /// let mut an = Analyzer::new();
    /// an.bind(&nv, arith::Range::half_open(Expr::int(0), Expr::int(100)));
    /// let (exact, p) = an.int_set_within(&e, &dom, 64);
    /// assert_eq!((exact.to_string().as_str(), p), ("[1, n * 2 + 1]", Precision::Exact));
    /// let (coarse, p) = an.int_set_within(&e, &dom, 2);
    /// assert_eq!((coarse.to_string().as_str(), p), ("[1, 199]", Precision::Widened));
    /// ```
    pub fn int_set_within(
        &self,
        e: &Expr,
        dom: &HashMap<Var, IntSet>,
        max_nodes: usize,
    ) -> (IntSet, Precision) {
        if let Some(set) = self.affine_set(e, dom) {
            return set.within_budget(self, max_nodes);
        }
        let mut ev = SetEval {
            an: self,
            dom,
            alias: IdMap::default(),
            origin: IdMap::default(),
            relaxed: IdMap::default(),
            active: Vec::new(),
            mentions: IdMap::default(),
            budget: Some(max_nodes.max(1)),
            widened: false,
        };
        let renamed = ev.rename(e);
        let simplified = self.simplify(&renamed).unwrap_or(renamed);
        let set = ev.eval(&simplified);
        let set = ev.finish(set);
        let (set, w) = set.within_budget(self, max_nodes);
        let widened = ev.widened || w == Precision::Widened;
        (
            set,
            if widened {
                Precision::Widened
            } else {
                Precision::Exact
            },
        )
    }
}

/// The largest expression [`Analyzer::affine_set`] takes on: large
/// expressions rarely qualify, and each end is simplified afterwards.
const AFFINE_LIMIT: usize = 64;

impl Analyzer {
    /// The set of `e` without evaluating it node by node, when interval
    /// arithmetic on it is exact as written: `e` is built of `+`, `-` and
    /// `*` by a factor of known sign that mentions no relaxed variable,
    /// each relaxed variable occurs once, and its domain has finite ends
    /// that mention no relaxed variable (the common index `x + 1`). Each
    /// end is then `e` with every relaxed variable replaced by the end of
    /// its domain that the sign of its coefficient selects, simplified
    /// once. `None` when `e` does not qualify (the general evaluation
    /// follows); the answer is the same set either way.
    fn affine_set(&self, e: &Expr, dom: &HashMap<Var, IntSet>) -> Option<IntSet> {
        if e.node_count() > AFFINE_LIMIT {
            return None;
        }
        let mut seen: Vec<&Var> = Vec::new();
        let (lo, hi) = match self.affine_ends(e, dom, &mut seen)? {
            Some(ends) => ends,
            None => (e.clone(), e.clone()),
        };
        let end = |raw: Expr| -> Option<Expr> { self.simplify(&raw).ok() };
        if lo == hi {
            return Some(IntSet::single_point(end(lo)?));
        }
        Some(IntSet::interval(end(lo)?, end(hi)?))
    }

    /// The unsimplified `(lowest, highest)` of `e` for
    /// [`Analyzer::affine_set`], from one walk: `Some(None)` when `e`
    /// mentions no relaxed variable (it is its own lowest and highest),
    /// `None` when `e` does not qualify.
    fn affine_ends<'d>(
        &self,
        e: &Expr,
        dom: &'d HashMap<Var, IntSet>,
        seen: &mut Vec<&'d Var>,
    ) -> Option<Option<(Expr, Expr)>> {
        let mentions = |x: &Expr| {
            let mut found = false;
            x.for_each_var(&mut |v| found |= dom.contains_key(v));
            found
        };
        // Either side as its own ends when it mentions no relaxed variable.
        let ends = |x: &Expr, r: Option<(Expr, Expr)>| r.unwrap_or_else(|| (x.clone(), x.clone()));
        match e.kind() {
            ExprKind::Int(_) => Some(None),
            ExprKind::Var(v) => {
                let Some((key, set)) = dom.get_key_value(v) else {
                    return Some(None);
                };
                if seen.contains(&key) {
                    return None;
                }
                seen.push(key);
                let (lo, hi) = (set.min()?, set.max()?);
                if mentions(lo) || mentions(hi) {
                    return None;
                }
                Some(Some((lo.clone(), hi.clone())))
            }
            ExprKind::Add(a, b) | ExprKind::Sub(a, b) => {
                let ra = self.affine_ends(a, dom, seen)?;
                let rb = self.affine_ends(b, dom, seen)?;
                if ra.is_none() && rb.is_none() {
                    return Some(None);
                }
                let ((al, ah), (bl, bh)) = (ends(a, ra), ends(b, rb));
                Some(Some(match e.kind() {
                    ExprKind::Add(..) => (Expr::add(al, bl), Expr::add(ah, bh)),
                    _ => (Expr::sub(al, bh), Expr::sub(ah, bl)),
                }))
            }
            ExprKind::Mul(a, b) => {
                let ra = self.affine_ends(a, dom, seen)?;
                let rb = self.affine_ends(b, dom, seen)?;
                let (p, (xl, xh)) = match (ra, rb) {
                    (None, None) => return Some(None),
                    (Some(_), Some(_)) => return None,
                    (None, Some(x)) => (a, x),
                    (Some(x), None) => (b, x),
                };
                let nonneg = match p.as_int() {
                    Some(c) => c >= 0,
                    None => {
                        let bp = self.const_int_bound(p);
                        if bp.min >= 0 {
                            true
                        } else if bp.max <= 0 {
                            false
                        } else {
                            return None;
                        }
                    }
                };
                let (l, h) = if nonneg { (xl, xh) } else { (xh, xl) };
                Some(Some((Expr::mul(l, p.clone()), Expr::mul(h, p.clone()))))
            }
            _ if mentions(e) => None,
            _ => Some(None),
        }
    }
}

/// Whether an answer is exact or was widened to stay within a growth
/// budget (see [`Analyzer::int_set_within`] and [`IntSet::within_budget`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// The answer is as precise as the analysis can make it.
    Exact,
    /// Some symbolic end outgrew the budget and was replaced by a constant
    /// bound (or infinity): still sound, less tight.
    Widened,
}

impl IntSet {
    /// This set with every end of more than `max_nodes` nodes replaced by
    /// its constant bound under `an` (the smallest value of a lower end,
    /// the largest of an upper end, infinite when unbounded): a sound
    /// cover, and whether anything was widened. Callers that compose sets
    /// repeatedly (bound inference over many stages, map composition) use
    /// it to keep their expressions from growing without limit.
    pub fn within_budget(&self, an: &Analyzer, max_nodes: usize) -> (IntSet, Precision) {
        let Some((lo, hi)) = self.ends() else {
            return (self.clone(), Precision::Exact);
        };
        let mut widened = false;
        let mut cap = |e: &Option<Expr>, lower: bool| -> Option<Expr> {
            let e = e.as_ref()?;
            if e.node_count() <= max_nodes.max(1) {
                return Some(e.clone());
            }
            widened = true;
            // One structural walk: the end is being given up for its
            // constant bound, and simplifying an end past the budget is
            // exactly the cost the budget is there to avoid.
            let b = an.structural_info(e).bound;
            match (lower, b.min, b.max) {
                (true, NEG_INF, _) | (false, _, POS_INF) => None,
                (true, v, _) | (false, _, v) => Some(Expr::int(v)),
            }
        };
        let set = IntSet::interval(cap(lo, true), cap(hi, false));
        let p = if widened {
            Precision::Widened
        } else {
            Precision::Exact
        };
        (set, p)
    }
}

/// One run of [`Analyzer::int_set`].
///
/// Relaxed variables are renamed to fresh variables first, so that the
/// analyzer's facts about them (which the domain overrides) play no part
/// when expressions are simplified along the way.
struct SetEval<'a> {
    an: &'a Analyzer,
    dom: &'a HashMap<Var, IntSet>,
    /// Relaxed variable -> its fresh stand-in.
    alias: IdMap<Var, Var>,
    /// Fresh stand-in -> the relaxed variable.
    origin: IdMap<Var, Var>,
    /// Memoised sets of stand-ins, with their domain ends relaxed too (this
    /// keeps chains of domains that refer to each other linear).
    relaxed: IdMap<Var, IntSet>,
    /// Stand-ins whose domains are being relaxed, to detect cycles.
    active: Vec<Var>,
    /// Per node: whether it mentions a stand-in.
    mentions: IdMap<usize, (Expr, bool)>,
    /// The most nodes an end may have; larger ends are widened to their
    /// constant bounds.
    budget: Option<usize>,
    /// Whether some end was widened.
    widened: bool,
}

impl SetEval<'_> {
    fn rename(&mut self, e: &Expr) -> Expr {
        let dom = self.dom;
        let (alias, origin) = (&mut self.alias, &mut self.origin);
        crate::walk::substitute(e, &mut |v| {
            if !dom.contains_key(v) {
                return None;
            }
            let fresh = alias.entry(v.clone()).or_insert_with(|| {
                let f = Var::new(v.name());
                origin.insert(f.clone(), v.clone());
                f
            });
            Some(fresh.expr())
        })
    }

    /// Whether `e` mentions a relaxed variable; memoised per node, so the
    /// walk over a whole expression stays linear in its size.
    fn mentions_relaxed(&mut self, e: &Expr) -> bool {
        if self.origin.is_empty() {
            return false;
        }
        let origin = &self.origin;
        crate::walk::fold(e, &mut self.mentions, |n, kids: &[bool]| {
            kids.iter().any(|&k| k) || n.as_var().is_some_and(|v| origin.contains_key(v))
        })
    }

    /// Maps stand-ins back and simplifies the ends.
    fn finish(&self, set: IntSet) -> IntSet {
        let Some((lo, hi)) = set.ends() else {
            return set;
        };
        let end = |e: &Option<Expr>| -> Option<Expr> {
            let e =
                crate::walk::substitute(e.as_ref()?, &mut |v| self.origin.get(v).map(Var::expr));
            self.an.simplify(&e).ok()
        };
        IntSet::interval(end(lo), end(hi))
    }

    fn simp(&self, e: Expr) -> Option<Expr> {
        self.an.simplify(&e).ok()
    }

    /// `f(a, b)` simplified when both ends are finite; `None` (infinite) when
    /// either is infinite or the result overflows.
    fn lift(&self, a: &Option<Expr>, b: &Option<Expr>, f: fn(Expr, Expr) -> Expr) -> Option<Expr> {
        match (a, b) {
            (Some(a), Some(b)) => self.simp(f(a.clone(), b.clone())),
            _ => None,
        }
    }

    fn point(&self, raw: Expr) -> IntSet {
        match self.simp(raw) {
            Some(e) => IntSet::single_point(e),
            None => IntSet::everything(),
        }
    }

    /// Constant bounds of all values of a set.
    fn const_bound(&self, s: &IntSet) -> ConstBound {
        match s.ends() {
            None => ConstBound::new(POS_INF, NEG_INF),
            Some((lo, hi)) => ConstBound::new(
                lo.as_ref()
                    .map_or(NEG_INF, |e| self.an.const_int_bound(e).min),
                hi.as_ref()
                    .map_or(POS_INF, |e| self.an.const_int_bound(e).max),
            ),
        }
    }

    fn prove(&self, cond: Expr) -> bool {
        self.an.can_prove(&cond)
    }

    /// The set of `e`, its ends kept within the budget when there is one.
    fn eval(&mut self, e: &Expr) -> IntSet {
        let set = self.eval_node(e);
        match self.budget {
            Some(n) => {
                let (set, p) = set.within_budget(self.an, n);
                self.widened |= p == Precision::Widened;
                set
            }
            None => set,
        }
    }

    fn eval_node(&mut self, e: &Expr) -> IntSet {
        if !self.mentions_relaxed(e) {
            return IntSet::single_point(e.clone());
        }
        use ExprKind::*;
        if matches!(e.kind(), Add(..) | Sub(..)) && e.node_count() > 64 {
            return self.eval_linear_chain(e);
        }
        match e.kind() {
            Int(_) | Bool(_) => IntSet::single_point(e.clone()),
            Var(v) => self.relax_var(v),
            Add(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::add, |s, x, y| s.add(x, y))
            }
            Sub(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::sub, |s, x, y| s.sub(x, y))
            }
            Mul(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::mul, |s, x, y| s.mul(x, y))
            }
            FloorDiv(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::floor_div, |s, x, y| {
                    s.div(x, y, Expr::floor_div)
                })
            }
            CeilDiv(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::ceil_div, |s, x, y| {
                    s.div(x, y, Expr::ceil_div)
                })
            }
            FloorMod(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                let operand = a.clone();
                self.binary(&x, &y, Expr::floor_mod, move |s, x, y| {
                    s.modulo(x, y, &operand)
                })
            }
            Min(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::min, |s, x, y| s.min_max(x, y, true))
            }
            Max(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                self.binary(&x, &y, Expr::max, |s, x, y| s.min_max(x, y, false))
            }
            Select(c, a, b) => match self.truth(c) {
                Some(true) => self.eval(a),
                Some(false) => self.eval(b),
                None => {
                    let (x, y) = (self.eval(a), self.eval(b));
                    let (x, y) = (self.defined_ends(x), self.defined_ends(y));
                    x.union(&y, self.an)
                }
            },
            Cmp(..) | And(..) | Or(..) | Not(..) => match self.truth(e) {
                Some(v) => IntSet::single_point(Expr::int(v as i64)),
                None => IntSet::interval(Expr::int(0), Expr::int(1)),
            },
        }
    }

    /// The set of a long chain of `+` and `-` (a parsed sum is a deep
    /// left-nested tree): its leaves are walked on an explicit stack, each
    /// leaf's set is taken once, and each end is summed and simplified
    /// once, instead of simplifying a growing end at every node.
    fn eval_linear_chain(&mut self, e: &Expr) -> IntSet {
        let mut lo: Option<Vec<(Expr, i64)>> = Some(Vec::new());
        let mut hi: Option<Vec<(Expr, i64)>> = Some(Vec::new());
        let mut stack: Vec<(&Expr, i64)> = vec![(e, 1)];
        while let Some((n, sign)) = stack.pop() {
            match n.kind() {
                ExprKind::Add(a, b) => {
                    stack.push((b, sign));
                    stack.push((a, sign));
                }
                ExprKind::Sub(a, b) => {
                    stack.push((b, -sign));
                    stack.push((a, sign));
                }
                _ => {
                    let set = self.eval(n);
                    let Some((l, h)) = set.ends() else {
                        return IntSet::nothing();
                    };
                    let (l, h) = if sign > 0 { (l, h) } else { (h, l) };
                    match (l, lo.as_mut()) {
                        (Some(x), Some(v)) => v.push((x.clone(), sign)),
                        _ => lo = None,
                    }
                    match (h, hi.as_mut()) {
                        (Some(x), Some(v)) => v.push((x.clone(), sign)),
                        _ => hi = None,
                    }
                    if lo.is_none() && hi.is_none() {
                        return IntSet::everything();
                    }
                }
            }
        }
        let total = |parts: Option<Vec<(Expr, i64)>>| -> Option<Expr> {
            let mut acc: Option<Expr> = None;
            for (x, sign) in parts? {
                acc = Some(match (acc, sign > 0) {
                    (None, true) => x,
                    (None, false) => Expr::sub(Expr::int(0), x),
                    (Some(a), true) => Expr::add(a, x),
                    (Some(a), false) => Expr::sub(a, x),
                });
            }
            self.simp(acc.unwrap_or_else(|| Expr::int(0)))
        };
        IntSet::interval(total(lo), total(hi))
    }

    /// The set with every end that may be undefined made infinite. A branch
    /// of a `select` is only evaluated where it is chosen, so its ends (such
    /// as `1 // x`) may divide by zero where the other branch is taken; once
    /// the branches are merged, such an end must not be left to evaluate.
    fn defined_ends(&self, s: IntSet) -> IntSet {
        let Some((lo, hi)) = s.ends() else { return s };
        let keep = |e: &Option<Expr>| e.clone().filter(|e| self.always_defined(e));
        IntSet::interval(keep(lo), keep(hi))
    }

    /// Whether every division and modulo in `e` has a divisor that is
    /// provably non-zero.
    fn always_defined(&self, e: &Expr) -> bool {
        let divisor_ok = match e.kind() {
            ExprKind::FloorDiv(_, d) | ExprKind::FloorMod(_, d) | ExprKind::CeilDiv(_, d) => {
                let b = self.an.const_int_bound(d);
                b.all_gt(0) || b.all_lt(0)
            }
            _ => true,
        };
        divisor_ok && e.children().iter().all(|c| self.always_defined(c))
    }

    /// Shared shape of binary operators: an empty operand gives the empty
    /// set, two single points give the simplified point, the rest is `op`.
    fn binary(
        &mut self,
        x: &IntSet,
        y: &IntSet,
        raw: fn(Expr, Expr) -> Expr,
        op: impl FnOnce(&mut Self, &IntSet, &IntSet) -> IntSet,
    ) -> IntSet {
        if x.is_nothing() || y.is_nothing() {
            return IntSet::nothing();
        }
        if let (Some(p), Some(q)) = (x.as_single_point(), y.as_single_point()) {
            return self.point(raw(p.clone(), q.clone()));
        }
        op(self, x, y)
    }

    /// The set of a relaxed variable (given as its stand-in), with domain
    /// ends that mention other relaxed variables relaxed in turn.
    fn relax_var(&mut self, v: &Var) -> IntSet {
        let Some(orig) = self.origin.get(v).cloned() else {
            return IntSet::single_point(v.expr());
        };
        if let Some(s) = self.relaxed.get(v) {
            return s.clone();
        }
        if self.active.contains(v) {
            return IntSet::everything();
        }
        let Some(dom_set) = self.dom.get(&orig) else {
            return IntSet::single_point(v.expr());
        };
        let Some((lo, hi)) = dom_set.ends() else {
            return IntSet::nothing();
        };
        // `x -> [x, x]` means "x itself", as in TVM.
        if dom_set.as_single_point().and_then(Expr::as_var) == Some(&orig) {
            return IntSet::single_point(v.expr());
        }
        let (lo, hi) = (lo.clone(), hi.clone());
        self.active.push(v.clone());
        let lo = lo.and_then(|m| self.relax_end(&m, true));
        let hi = hi.and_then(|m| self.relax_end(&m, false));
        self.active.pop();
        let set = IntSet::interval(lo, hi);
        self.relaxed.insert(v.clone(), set.clone());
        set
    }

    fn relax_end(&mut self, end: &Expr, lower: bool) -> Option<Expr> {
        let end = self.rename(end);
        if !self.mentions_relaxed(&end) {
            return Some(end);
        }
        let simplified = self.an.simplify(&end).unwrap_or(end);
        let s = self.eval(&simplified);
        if lower {
            s.min().cloned()
        } else {
            s.max().cloned()
        }
    }

    fn add(&self, x: &IntSet, y: &IntSet) -> IntSet {
        let ((xl, xh), (yl, yh)) = (x.bounds(), y.bounds());
        IntSet::interval(self.lift(xl, yl, Expr::add), self.lift(xh, yh, Expr::add))
    }

    fn sub(&self, x: &IntSet, y: &IntSet) -> IntSet {
        let ((xl, xh), (yl, yh)) = (x.bounds(), y.bounds());
        IntSet::interval(self.lift(xl, yh, Expr::sub), self.lift(xh, yl, Expr::sub))
    }

    fn negate(&self, x: &IntSet) -> IntSet {
        self.scale(x, -1)
    }

    /// `x * c` for a constant `c`.
    fn scale(&self, x: &IntSet, c: i64) -> IntSet {
        let Some((lo, hi)) = x.ends() else {
            return IntSet::nothing();
        };
        if c == 0 {
            return IntSet::single_point(Expr::int(0));
        }
        let f = |e: &Option<Expr>| {
            e.as_ref()
                .and_then(|e| self.simp(Expr::mul(e.clone(), Expr::int(c))))
        };
        if c > 0 {
            IntSet::interval(f(lo), f(hi))
        } else {
            IntSet::interval(f(hi), f(lo))
        }
    }

    /// `x * p` for a single point `p` of known sign; infinite ends stay
    /// infinite.
    fn scale_symbolic(&self, x: &IntSet, p: &Expr, nonneg: bool) -> IntSet {
        let (lo, hi) = x.bounds();
        let f = |e: &Option<Expr>| {
            e.as_ref()
                .and_then(|e| self.simp(Expr::mul(e.clone(), p.clone())))
        };
        if nonneg {
            IntSet::interval(f(lo), f(hi))
        } else {
            IntSet::interval(f(hi), f(lo))
        }
    }

    fn mul(&self, x: &IntSet, y: &IntSet) -> IntSet {
        if let Some(c) = y.as_single_point().and_then(Expr::as_int) {
            return self.scale(x, c);
        }
        if let Some(c) = x.as_single_point().and_then(Expr::as_int) {
            return self.scale(y, c);
        }
        if let Some(s) = self.corners(x, y, Expr::mul) {
            return s;
        }
        let (bx, by) = (self.const_bound(x), self.const_bound(y));
        for (point_set, other, b) in [(x, y, bx), (y, x, by)] {
            if let Some(p) = point_set.as_single_point() {
                if b.all_ge(0) || b.all_le(0) {
                    return self.scale_symbolic(other, p, b.all_ge(0));
                }
            }
        }
        if bx.all_ge(0) && by.all_ge(0) {
            let ((xl, xh), (yl, yh)) = (x.bounds(), y.bounds());
            return IntSet::interval(self.lift(xl, yl, Expr::mul), self.lift(xh, yh, Expr::mul));
        }
        IntSet::everything()
    }

    /// The smallest and largest of `f` at the four corners of `x` × `y`,
    /// when every end is finite. Exact for `*`; sound for division by a
    /// divisor of constant sign, which is monotone in each argument.
    fn corners(&self, x: &IntSet, y: &IntSet, f: fn(Expr, Expr) -> Expr) -> Option<IntSet> {
        let ((Some(xl), Some(xh)), (Some(yl), Some(yh))) = (x.ends()?, y.ends()?) else {
            return None;
        };
        let mut values: Vec<Expr> = Vec::with_capacity(4);
        for (a, b) in [(xl, yl), (xl, yh), (xh, yl), (xh, yh)] {
            // An overflowing corner leaves both directions unknown.
            let Some(v) = self.simp(f(a.clone(), b.clone())) else {
                return Some(IntSet::everything());
            };
            if !values.contains(&v) {
                values.push(v);
            }
        }
        let lo = values
            .iter()
            .skip(1)
            .fold(values[0].clone(), |acc, v| min_of(&acc, v, self.an));
        let hi = values
            .iter()
            .skip(1)
            .fold(values[0].clone(), |acc, v| max_of(&acc, v, self.an));
        Some(IntSet::interval(lo, hi))
    }

    /// Floor or ceiling division: monotone in the dividend, and at the
    /// corners when the divisor keeps one sign.
    fn div(&self, x: &IntSet, y: &IntSet, f: fn(Expr, Expr) -> Expr) -> IntSet {
        let (xl, xh) = x.bounds();
        let by = self.const_bound(y);
        if let Some(parts) = nonzero_parts(by) {
            return self.union_over(parts, |part| self.div(x, part, f));
        }
        let positive = by.all_ge(1);
        if !positive && !by.all_le(-1) {
            return IntSet::everything();
        }
        if let Some(p) = y.as_single_point() {
            let g = |e: &Option<Expr>| e.as_ref().and_then(|e| self.simp(f(e.clone(), p.clone())));
            return if positive {
                IntSet::interval(g(xl), g(xh))
            } else {
                IntSet::interval(g(xh), g(xl))
            };
        }
        self.corners(x, y, f).unwrap_or_else(IntSet::everything)
    }

    /// Floor modulo; `operand` is the dividend expression (for alignment).
    fn modulo(&self, x: &IntSet, y: &IntSet, operand: &Expr) -> IntSet {
        if let Some(c) = y.as_single_point().and_then(Expr::as_int) {
            return match c {
                0 | i64::MIN => IntSet::everything(),
                c if c > 0 => self.mod_const(x, c, Some(operand)),
                // x % c == -((-x) % -c)
                c => self.negate(&self.mod_const(&self.negate(x), -c, None)),
            };
        }
        let by = self.const_bound(y);
        if let Some(parts) = nonzero_parts(by) {
            return self.union_over(parts, |part| self.modulo(x, part, operand));
        }
        let (yl, yh) = y.bounds();
        let (xl, xh) = x.bounds();
        let proves = |e: &Option<Expr>, test: &dyn Fn(Expr) -> Expr| {
            e.as_ref().is_some_and(|e| self.prove(test(e.clone())))
        };
        let zero = || Expr::int(0);
        if by.all_ge(1) {
            // 0 <= x < y.min: x % y is x.
            let x_nonneg = proves(xl, &|l| Expr::ge(l, zero()));
            if x_nonneg
                && yl
                    .as_ref()
                    .is_some_and(|m| proves(xh, &|h| Expr::lt(h, m.clone())))
            {
                return x.clone();
            }
            let mut hi = yh
                .as_ref()
                .and_then(|h| self.simp(Expr::sub(h.clone(), Expr::int(1))));
            // A non-negative dividend is its own upper bound.
            if let (true, Some(top)) = (x_nonneg, xh) {
                hi = Some(hi.map_or(top.clone(), |h| min_of(&h, top, self.an)));
            }
            let cover = IntSet::interval(zero(), hi);
            return match y.as_single_point() {
                Some(d) => self.mod_in_block(x, d, cover),
                None => cover,
            };
        }
        if by.all_le(-1) {
            // y.max < x <= 0: x % y is x.
            let x_nonpos = proves(xh, &|h| Expr::le(h, zero()));
            if x_nonpos
                && yh
                    .as_ref()
                    .is_some_and(|m| proves(xl, &|l| Expr::gt(l, m.clone())))
            {
                return x.clone();
            }
            let mut lo = yl
                .as_ref()
                .and_then(|l| self.simp(Expr::add(l.clone(), Expr::int(1))));
            if let (true, Some(bottom)) = (x_nonpos, xl) {
                lo = Some(lo.map_or(bottom.clone(), |l| max_of(&l, bottom, self.an)));
            }
            return IntSet::interval(lo, zero());
        }
        IntSet::everything()
    }

    /// `x % d` for a symbolic divisor `d >= 1`, given `cover`, the set for
    /// `x` in any block: inside one block of `d` values the modulo is a
    /// shift of `x`, so the set is exact when `x` provably stays in one
    /// block, `cover` when it provably does not, and when that is undecided
    /// each end is a `select` on "same block" between the shifted end and
    /// `[0, d - 1]` (the minimal cover for every value of the symbols, as
    /// for a constant divisor in `mod_const`).
    fn mod_in_block(&self, x: &IntSet, d: &Expr, cover: IntSet) -> IntSet {
        let (Some(l), Some(h)) = (x.min(), x.max()) else {
            return cover;
        };
        let block = |e: &Expr| self.simp(Expr::floor_div(e.clone(), d.clone()));
        let (Some(ql), Some(qh)) = (block(l), block(h)) else {
            return cover;
        };
        let residue = |e: &Expr| self.simp(Expr::floor_mod(e.clone(), d.clone()));
        let (Some(lm), Some(hm)) = (residue(l), residue(h)) else {
            return cover;
        };
        if ql == qh || self.prove(Expr::eq(ql.clone(), qh.clone())) {
            return IntSet::interval(lm, hm);
        }
        // A dividend from the start of a block (`[0, h]`) already has its
        // box in `cover` (`[0, min(d - 1, h)]`).
        if lm.is_int(0) || self.prove(Expr::ne(ql.clone(), qh.clone())) {
            return cover;
        }
        // Across blocks, `[0, d - 1]`: a dividend that spans two blocks
        // takes every residue up to `d - 1` unless it is negative, and the
        // smaller ends keep the `select`s small.
        let Some(last) = self.simp(Expr::sub(d.clone(), Expr::int(1))) else {
            return cover;
        };
        let same = Expr::eq(ql, qh);
        let lo = self.simp(Expr::select(same.clone(), lm, Expr::int(0)));
        let hi = self.simp(Expr::select(same, hm, last));
        match (lo, hi) {
            (Some(lo), Some(hi)) => IntSet::interval(lo, hi),
            _ => cover,
        }
    }

    fn union_over(&self, parts: Vec<IntSet>, f: impl Fn(&IntSet) -> IntSet) -> IntSet {
        let sets: Vec<IntSet> = parts.iter().map(f).collect();
        union_all(&sets, self.an)
    }

    /// `x % c` for a constant `c > 0`.
    fn mod_const(&self, x: &IntSet, c: i64, operand: Option<&Expr>) -> IntSet {
        let Some((xl, xh)) = x.ends() else {
            return IntSet::nothing();
        };
        // Inside one block of c values the modulo is a shift: exact. When
        // that depends on symbolic ends, the ends are `select`s on "same
        // block", which is the minimal cover for every value of the symbols
        // (InferBound's per-iteration box of a fused-then-split axis).
        let mut same_block = None;
        if let (Some(l), Some(h)) = (xl, xh) {
            let block = |e: &Expr| self.simp(Expr::floor_div(e.clone(), Expr::int(c)));
            if let (Some(ql), Some(qh)) = (block(l), block(h)) {
                if ql == qh || self.prove(Expr::eq(ql.clone(), qh.clone())) {
                    let lo = self.simp(Expr::floor_mod(l.clone(), Expr::int(c)));
                    let width = Expr::sub(h.clone(), l.clone());
                    let hi = lo
                        .as_ref()
                        .and_then(|lo| self.simp(Expr::add(lo.clone(), width)));
                    if let (Some(lo), Some(hi)) = (lo, hi) {
                        return IntSet::interval(lo, hi);
                    }
                } else if !self.prove(Expr::ne(ql.clone(), qh.clone())) {
                    let lm = self.simp(Expr::floor_mod(l.clone(), Expr::int(c)));
                    let hm = self.simp(Expr::floor_mod(h.clone(), Expr::int(c)));
                    if let (Some(lm), Some(hm)) = (lm, hm) {
                        same_block = Some((Expr::eq(ql, qh), lm, hm));
                    }
                }
            }
        }
        // Otherwise every residue may occur, except those the alignment of
        // the operand rules out: (x*2048 + y*16) % 7168 is a multiple of 16.
        let (mut lo, mut hi) = (0, c - 1);
        if let Some(op) = operand {
            let m = self.an.modular_set(op);
            let g = num::gcd(m.coeff, c);
            if g > 1 {
                lo = m.base.rem_euclid(g);
                hi = c - g + lo;
            }
        }
        // A non-negative operand is its own upper bound.
        let bx = self.const_bound(x);
        if bx.all_ge(0) && bx.max != POS_INF && bx.max >= lo {
            hi = hi.min(bx.max);
        }
        match same_block {
            Some((same, lm, hm)) => {
                let lo_end = self.simp(Expr::select(same.clone(), lm, Expr::int(lo)));
                let hi_end = self.simp(Expr::select(same, hm, Expr::int(hi)));
                match (lo_end, hi_end) {
                    (Some(a), Some(b)) => IntSet::interval(a, b),
                    _ => IntSet::interval(Expr::int(lo), Expr::int(hi)),
                }
            }
            None => IntSet::interval(Expr::int(lo), Expr::int(hi)),
        }
    }

    fn min_max(&self, x: &IntSet, y: &IntSet, is_min: bool) -> IntSet {
        let ((xl, xh), (yl, yh)) = (x.bounds(), y.bounds());
        let both = |a: &Option<Expr>, b: &Option<Expr>| match (a, b) {
            (Some(a), Some(b)) => Some(combine_ends(a, b, self.an, is_min)),
            _ => None,
        };
        // The side that an infinite end cannot move keeps the finite one.
        let either = |a: &Option<Expr>, b: &Option<Expr>| match (a, b) {
            (Some(a), Some(b)) => Some(combine_ends(a, b, self.an, is_min)),
            (Some(a), None) | (None, Some(a)) => Some(a.clone()),
            (None, None) => None,
        };
        if is_min {
            IntSet::interval(both(xl, yl), either(xh, yh))
        } else {
            IntSet::interval(either(xl, yl), both(xh, yh))
        }
    }

    /// Whether a condition is true, false, or undecided (`None`) over the
    /// relaxed domains.
    fn truth(&mut self, cond: &Expr) -> Option<bool> {
        if let Some(b) = cond.as_bool() {
            return Some(b);
        }
        if !self.mentions_relaxed(cond) {
            if self.prove(cond.clone()) {
                return Some(true);
            }
            if self.prove(Expr::not(cond.clone())) {
                return Some(false);
            }
            return None;
        }
        match cond.kind() {
            ExprKind::Cmp(op, a, b) if a.ty() == Type::Int => {
                let raw = Expr::sub(a.clone(), b.clone());
                let diff = self.an.simplify(&raw).unwrap_or(raw);
                let d = self.eval(&diff);
                self.decide(*op, &d)
            }
            ExprKind::And(a, b) => match (self.truth(a), self.truth(b)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            ExprKind::Or(a, b) => match (self.truth(a), self.truth(b)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            ExprKind::Not(a) => self.truth(a).map(|v| !v),
            _ => None,
        }
    }

    /// Decides `d op 0` for every value of the set `d`.
    fn decide(&self, op: CmpOp, d: &IntSet) -> Option<bool> {
        let (lo, hi) = d.ends()?;
        let holds = |end: &Option<Expr>, op: CmpOp| {
            end.as_ref()
                .is_some_and(|e| self.prove(Expr::cmp(op, e.clone(), Expr::int(0))))
        };
        let (all_lt, all_le) = (holds(hi, CmpOp::Lt), holds(hi, CmpOp::Le));
        let (all_gt, all_ge) = (holds(lo, CmpOp::Gt), holds(lo, CmpOp::Ge));
        let all_zero = all_le && all_ge;
        let never_zero = all_lt || all_gt;
        let (yes, no) = match op {
            CmpOp::Lt => (all_lt, all_ge),
            CmpOp::Le => (all_le, all_gt),
            CmpOp::Gt => (all_gt, all_le),
            CmpOp::Ge => (all_ge, all_lt),
            CmpOp::Eq => (all_zero, never_zero),
            CmpOp::Ne => (never_zero, all_zero),
        };
        if yes {
            Some(true)
        } else if no {
            Some(false)
        } else {
            None
        }
    }
}
