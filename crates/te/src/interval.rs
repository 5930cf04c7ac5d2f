//! Symbolic intervals of index expressions: the sets InferBound passes
//! between stages (TVM's `IntervalSet`).
//!
//! Ends are inclusive expressions; `None` is an infinite end. The evaluator
//! here keeps what InferBound needs beyond TVM (the minimal box of `%` per
//! iteration) and is combined with `arith::int_set` (see [`eval`]).

use arith::int_set::IntSet;
use arith::{Analyzer, ConstBound, Expr, ExprKind, Var, NEG_INF, POS_INF};
use std::collections::HashMap;

/// An inclusive interval `[lo, hi]` whose ends may be symbolic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub lo: Option<Expr>,
    pub hi: Option<Expr>,
}

/// Variables relaxed to intervals.
pub(crate) type DomMap = HashMap<Var, Interval>;

impl Interval {
    pub fn point(e: Expr) -> Interval {
        Interval {
            lo: Some(e.clone()),
            hi: Some(e),
        }
    }

    pub fn new(lo: Expr, hi: Expr) -> Interval {
        Interval {
            lo: Some(lo),
            hi: Some(hi),
        }
    }

    fn from_const(b: ConstBound) -> Interval {
        Interval {
            lo: (b.min != NEG_INF).then(|| Expr::int(b.min)),
            hi: (b.max != POS_INF).then(|| Expr::int(b.max)),
        }
    }

    fn to_const(&self, an: &Analyzer) -> ConstBound {
        let lo = self
            .lo
            .as_ref()
            .map(|e| const_bound(e, an).min)
            .unwrap_or(NEG_INF);
        let hi = self
            .hi
            .as_ref()
            .map(|e| const_bound(e, an).max)
            .unwrap_or(POS_INF);
        ConstBound::new(lo, hi)
    }

    pub fn is_point(&self) -> bool {
        matches!((&self.lo, &self.hi), (Some(a), Some(b)) if a == b)
    }

    pub fn is_bounded(&self) -> bool {
        self.lo.is_some() && self.hi.is_some()
    }

    /// The smallest interval holding both (per end `min`/`max`, simplified).
    pub fn union(&self, other: &Interval, an: &Analyzer) -> Interval {
        let lo = match (&self.lo, &other.lo) {
            (Some(a), Some(b)) => Some(simp(an, Expr::min(a.clone(), b.clone()))),
            _ => None,
        };
        let hi = match (&self.hi, &other.hi) {
            (Some(a), Some(b)) => Some(simp(an, Expr::max(a.clone(), b.clone()))),
            _ => None,
        };
        Interval { lo, hi }
    }

    pub fn simplified(self, an: &Analyzer) -> Interval {
        Interval {
            lo: self.lo.map(|e| simp(an, e)),
            hi: self.hi.map(|e| simp(an, e)),
        }
    }
}

/// The largest expression, in nodes, handed to the simplifier: its cost
/// grows much faster than the size of `min`/`max`-heavy bounds, and a bound
/// this large is widened by InferBound anyway (see `bound::BOUND_BUDGET`).
pub(crate) const SIMPLIFY_LIMIT: usize = 48;

/// The constant bounds of `e`, or everything when `e` is over
/// [`SIMPLIFY_LIMIT`] (the analyzer simplifies before bounding).
fn const_bound(e: &Expr, an: &Analyzer) -> ConstBound {
    if e.node_count() > SIMPLIFY_LIMIT {
        return ConstBound::EVERYTHING;
    }
    an.const_int_bound(e)
}

/// Simplifies, keeping the input when simplification fails (it only fails on
/// constant overflow, which later evaluation reports) or when the input is
/// over [`SIMPLIFY_LIMIT`].
pub(crate) fn simp(an: &Analyzer, e: Expr) -> Expr {
    if e.node_count() > SIMPLIFY_LIMIT {
        return e;
    }
    an.simplify(&e).unwrap_or(e)
}

fn uses_dom(e: &Expr, dom: &DomMap) -> bool {
    if dom.is_empty() {
        return false;
    }
    let mut found = false;
    e.for_each_var(&mut |v| found |= dom.contains_key(v));
    found
}

fn lift2(a: &Option<Expr>, b: &Option<Expr>, f: impl Fn(Expr, Expr) -> Expr) -> Option<Expr> {
    Some(f(a.clone()?, b.clone()?))
}

/// The sign of a point expression, when known: `Some(true)` positive,
/// `Some(false)` negative, `None` unknown or zero.
fn sign(e: &Expr, an: &Analyzer) -> Option<bool> {
    let b = const_bound(e, an);
    if b.min > 0 {
        Some(true)
    } else if b.max < 0 {
        Some(false)
    } else {
        None
    }
}

/// The set of values `e` takes when each variable in `dom` ranges over its
/// interval (others are fixed). Sound: never smaller than the true set.
///
/// Two sound evaluators are combined, each end taking the provably tighter
/// one: this module's, which keeps the per-iteration minimal cover of `%`
/// and `//` over symbolic intervals, and `arith`'s [`Analyzer::int_set`],
/// which simplifies first and is exact for sums in which a relaxed variable
/// occurs more than once (`i + (0 - i)`).
pub(crate) fn eval(e: &Expr, dom: &DomMap, an: &Analyzer) -> Interval {
    let own = eval_raw(e, dom, an).simplified(an);
    if own.is_point()
        || !uses_dom(e, dom)
        || too_large(&own)
        || large_dom(e, dom)
        || exact_affine(e, dom)
    {
        return own;
    }
    let sets: HashMap<Var, IntSet> = dom
        .iter()
        .map(|(v, i)| (v.clone(), IntSet::interval(i.lo.clone(), i.hi.clone())))
        .collect();
    let other = an.int_set(e, &sets);
    if other.is_nothing() {
        // Only when a domain is empty; `own` is a sound superset anyway.
        return own;
    }
    Interval {
        lo: tighter(own.lo, other.min(), true, an),
        hi: tighter(own.hi, other.max(), false, an),
    }
}

/// Whether `e` is built of `+`, `-` and `*` alone with each relaxed variable
/// occurring once: interval arithmetic is then exact, and the second,
/// simplifying evaluation cannot do better (the common index `x + 1`).
fn exact_affine(e: &Expr, dom: &DomMap) -> bool {
    let mut seen: Vec<&Var> = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x.kind() {
            ExprKind::Int(_) => {}
            ExprKind::Var(v) => {
                if let Some((k, _)) = dom.get_key_value(v) {
                    if seen.contains(&k) {
                        return false;
                    }
                    seen.push(k);
                }
            }
            ExprKind::Add(a, b) | ExprKind::Sub(a, b) => {
                stack.push(a);
                stack.push(b);
            }
            // A product is exact when one side is fixed (a point).
            ExprKind::Mul(a, b) if !uses_dom(a, dom) || !uses_dom(b, dom) => {
                stack.push(a);
                stack.push(b);
            }
            _ => return false,
        }
    }
    true
}

/// Whether an end of `set` is over [`SIMPLIFY_LIMIT`].
fn too_large(set: &Interval) -> bool {
    [&set.lo, &set.hi]
        .into_iter()
        .flatten()
        .any(|e| e.node_count() > SIMPLIFY_LIMIT)
}

/// Whether the sets of the variables of `e` relaxed in `dom` are together
/// over [`SIMPLIFY_LIMIT`] (a second, simplifying evaluation would cost more
/// than it gives).
fn large_dom(e: &Expr, dom: &DomMap) -> bool {
    let mut total = 0;
    e.for_each_var(&mut |v| {
        if let Some(i) = dom.get(v) {
            total += [&i.lo, &i.hi]
                .into_iter()
                .flatten()
                .map(Expr::node_count)
                .sum::<usize>();
        }
    });
    total > SIMPLIFY_LIMIT
}

/// Of two sound ends, the one provably tighter (`own` when undecided).
fn tighter(own: Option<Expr>, other: Option<&Expr>, lower: bool, an: &Analyzer) -> Option<Expr> {
    let (Some(m), Some(o)) = (&own, other) else {
        return own.or_else(|| other.cloned());
    };
    if m == o || m.node_count() + o.node_count() > SIMPLIFY_LIMIT {
        return own;
    }
    if let (Some(a), Some(b)) = (m.as_int(), o.as_int()) {
        return Some(Expr::int(if lower { a.max(b) } else { a.min(b) }));
    }
    let other_tighter = if lower {
        Expr::ge(o.clone(), m.clone())
    } else {
        Expr::le(o.clone(), m.clone())
    };
    if an.can_prove(&other_tighter) {
        Some(o.clone())
    } else {
        own
    }
}

fn eval_raw(e: &Expr, dom: &DomMap, an: &Analyzer) -> Interval {
    tir::stack::grow(|| eval_raw_step(e, dom, an))
}

/// One level of [`eval_raw`], on the stack [`tir::stack::grow`] left room on.
fn eval_raw_step(e: &Expr, dom: &DomMap, an: &Analyzer) -> Interval {
    if !uses_dom(e, dom) {
        return Interval::point(e.clone());
    }
    let (a, b) = match e.kind() {
        ExprKind::Var(v) => {
            return dom
                .get(v)
                .cloned()
                .unwrap_or_else(|| Interval::point(e.clone()))
        }
        ExprKind::Select(_, a, b) => {
            let (x, y) = (eval_raw(a, dom, an), eval_raw(b, dom, an));
            return Interval {
                lo: lift2(&x.lo, &y.lo, Expr::min),
                hi: lift2(&x.hi, &y.hi, Expr::max),
            };
        }
        ExprKind::Int(_) | ExprKind::Bool(_) => return Interval::point(e.clone()),
        ExprKind::Cmp(..) | ExprKind::And(..) | ExprKind::Or(..) | ExprKind::Not(_) => {
            return Interval::new(Expr::int(0), Expr::int(1))
        }
        ExprKind::Add(a, b)
        | ExprKind::Sub(a, b)
        | ExprKind::Mul(a, b)
        | ExprKind::FloorDiv(a, b)
        | ExprKind::CeilDiv(a, b)
        | ExprKind::FloorMod(a, b)
        | ExprKind::Min(a, b)
        | ExprKind::Max(a, b) => (a, b),
    };
    let (x, y) = (eval_raw(a, dom, an), eval_raw(b, dom, an));
    if x.is_point() && y.is_point() {
        // Variables relaxed to single points: the value is one point too,
        // whatever the signs.
        return Interval::point(e.with_children(&[x.lo.unwrap(), y.lo.unwrap()]));
    }
    match e.kind() {
        ExprKind::Add(..) => Interval {
            lo: lift2(&x.lo, &y.lo, Expr::add),
            hi: lift2(&x.hi, &y.hi, Expr::add),
        },
        ExprKind::Sub(..) => Interval {
            lo: lift2(&x.lo, &y.hi, Expr::sub),
            hi: lift2(&x.hi, &y.lo, Expr::sub),
        },
        ExprKind::Mul(..) => {
            let scale = |iv: &Interval, p: &Expr| match sign(p, an) {
                Some(true) => Some(Interval {
                    lo: iv.lo.clone().map(|l| Expr::mul(l, p.clone())),
                    hi: iv.hi.clone().map(|h| Expr::mul(h, p.clone())),
                }),
                Some(false) => Some(Interval {
                    lo: iv.hi.clone().map(|h| Expr::mul(h, p.clone())),
                    hi: iv.lo.clone().map(|l| Expr::mul(l, p.clone())),
                }),
                None if p.is_int(0) => Some(Interval::point(Expr::int(0))),
                None => None,
            };
            let by_point = if y.is_point() {
                scale(&x, y.lo.as_ref().unwrap())
            } else if x.is_point() {
                scale(&y, x.lo.as_ref().unwrap())
            } else {
                None
            };
            by_point.unwrap_or_else(|| Interval::from_const(x.to_const(an).mul(y.to_const(an))))
        }
        ExprKind::FloorDiv(..) | ExprKind::CeilDiv(..) => {
            let ceil = matches!(e.kind(), ExprKind::CeilDiv(..));
            let op = |v: Expr, d: Expr| {
                if ceil {
                    Expr::ceil_div(v, d)
                } else {
                    Expr::floor_div(v, d)
                }
            };
            if y.is_point() {
                let d = y.lo.clone().unwrap();
                match sign(&d, an) {
                    Some(true) => {
                        return Interval {
                            lo: x.lo.map(|l| op(l, d.clone())),
                            hi: x.hi.map(|h| op(h, d.clone())),
                        }
                    }
                    Some(false) => {
                        return Interval {
                            lo: x.hi.map(|h| op(h, d.clone())),
                            hi: x.lo.map(|l| op(l, d.clone())),
                        }
                    }
                    None => {}
                }
            }
            let (cx, cy) = (x.to_const(an), y.to_const(an));
            Interval::from_const(if ceil {
                cx.ceil_div(cy)
            } else {
                cx.floor_div(cy)
            })
        }
        ExprKind::FloorMod(..) => match &y.lo {
            Some(d) if y.is_point() && sign(d, an) == Some(true) => floor_mod_interval(&x, d, an),
            _ => Interval::from_const(x.to_const(an).floor_mod(y.to_const(an))),
        },
        ExprKind::Min(..) => {
            let hi = match (&x.hi, &y.hi) {
                (Some(p), Some(q)) => Some(Expr::min(p.clone(), q.clone())),
                (Some(p), None) | (None, Some(p)) => Some(p.clone()),
                (None, None) => None,
            };
            Interval {
                lo: lift2(&x.lo, &y.lo, Expr::min),
                hi,
            }
        }
        ExprKind::Max(..) => {
            let lo = match (&x.lo, &y.lo) {
                (Some(p), Some(q)) => Some(Expr::max(p.clone(), q.clone())),
                (Some(p), None) | (None, Some(p)) => Some(p.clone()),
                (None, None) => None,
            };
            Interval {
                lo,
                hi: lift2(&x.hi, &y.hi, Expr::max),
            }
        }
        _ => unreachable!("binary kinds only"),
    }
}

/// `x % d` for `x` in an interval and a positive `d`: the exact interval when
/// `x` stays in one period of `d`, all of `[0, d)` when it covers a period,
/// and otherwise a `select` on "same period" (the minimal cover, decided per
/// iteration when the ends are symbolic).
fn floor_mod_interval(x: &Interval, d: &Expr, an: &Analyzer) -> Interval {
    let full = Interval::new(Expr::int(0), simp(an, Expr::sub(d.clone(), Expr::int(1))));
    let (Some(lo), Some(hi)) = (&x.lo, &x.hi) else {
        return full;
    };
    let (lo, hi) = (simp(an, lo.clone()), simp(an, hi.clone()));
    let same = simp(
        an,
        Expr::eq(
            Expr::floor_div(lo.clone(), d.clone()),
            Expr::floor_div(hi.clone(), d.clone()),
        ),
    );
    let lo_mod = Expr::floor_mod(lo.clone(), d.clone());
    let hi_mod = Expr::floor_mod(hi.clone(), d.clone());
    match same.as_bool() {
        Some(true) => Interval::new(lo_mod, hi_mod),
        Some(false) => full,
        None => Interval::new(
            Expr::select(same.clone(), lo_mod, Expr::int(0)),
            Expr::select(same, hi_mod, full.hi.clone().unwrap()),
        ),
    }
}

/// The interval of the range `[min, min + extent)` with `dom` relaxed.
pub(crate) fn range_interval(min: &Expr, extent: &Expr, dom: &DomMap, an: &Analyzer) -> Interval {
    let last = Expr::sub(Expr::add(min.clone(), extent.clone()), Expr::int(1));
    Interval {
        lo: eval(min, dom, an).lo,
        hi: eval(&last, dom, an).hi,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arith::Range;

    fn check_sound(e: &Expr, v: &Var, lo: i64, hi: i64, an: &Analyzer) -> Interval {
        let mut dom = DomMap::new();
        dom.insert(v.clone(), Interval::new(Expr::int(lo), Expr::int(hi)));
        let iv = eval(e, &dom, an);
        let l = iv.lo.as_ref().unwrap().eval_with(&[]).unwrap();
        let h = iv.hi.as_ref().unwrap().eval_with(&[]).unwrap();
        for x in lo..=hi {
            let val = e.eval_with(&[(v, x)]).unwrap();
            assert!(
                l <= val && val <= h,
                "{e} at {x} = {val} outside [{l}, {h}]"
            );
        }
        iv
    }

    #[test]
    fn mod_of_an_interval_in_one_period_is_exact() {
        let an = Analyzer::new();
        let f = Var::new("f");
        let e = Expr::floor_mod(f.expr(), Expr::int(4));
        let iv = check_sound(&e, &f, 5, 6, &an);
        assert_eq!(
            (iv.lo.unwrap(), iv.hi.unwrap()),
            (Expr::int(1), Expr::int(2))
        );
        let iv = check_sound(&e, &f, 3, 5, &an);
        assert_eq!(
            (iv.lo.unwrap(), iv.hi.unwrap()),
            (Expr::int(0), Expr::int(3))
        );
    }

    #[test]
    fn symbolic_fused_interval_gives_the_minimal_box_per_iteration() {
        let mut an = Analyzer::new();
        let xo = Var::new("xo");
        an.bind(&xo, Range::half_open(Expr::int(0), Expr::int(6)));
        let f = Var::new("f");
        let mut dom = DomMap::new();
        let lo = xo.expr() * 3;
        let hi = Expr::min(xo.expr() * 3 + 2, Expr::int(15));
        dom.insert(f.clone(), Interval::new(lo, hi));
        let cols = eval(&Expr::floor_mod(f.expr(), Expr::int(4)), &dom, &an);
        let rows = eval(&Expr::floor_div(f.expr(), Expr::int(4)), &dom, &an);
        let mut total = 0;
        for x in 0..6 {
            let at = |e: &Option<Expr>| e.as_ref().unwrap().eval_with(&[(&xo, x)]).unwrap();
            let (r0, r1, c0, c1) = (at(&rows.lo), at(&rows.hi), at(&cols.lo), at(&cols.hi));
            for p in (3 * x)..(3 * x + 3).min(16) {
                assert!(r0 <= p / 4 && p / 4 <= r1 && c0 <= p % 4 && p % 4 <= c1);
            }
            total += (r1 - r0 + 1) * (c1 - c0 + 1);
        }
        assert_eq!(total, 26);
    }
}

#[cfg(test)]
mod soundness {
    use super::*;
    use proptest::prelude::*;

    /// Random index expressions over `x`, `y` (relaxed) and `z` (fixed).
    fn expr(vars: [Var; 3]) -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            (-5i64..6).prop_map(Expr::int),
            (0usize..3).prop_map(move |k| vars[k].expr()),
        ];
        leaf.prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| a + b),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| a - b),
                (inner.clone(), -3i64..4).prop_map(|(a, c)| a * c),
                (inner.clone(), 1i64..5).prop_map(|(a, c)| Expr::floor_div(a, Expr::int(c))),
                (inner.clone(), 1i64..5).prop_map(|(a, c)| Expr::floor_mod(a, Expr::int(c))),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::min(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::max(a, b)),
            ]
        })
    }

    fn vars() -> &'static [Var; 3] {
        static VARS: std::sync::OnceLock<[Var; 3]> = std::sync::OnceLock::new();
        VARS.get_or_init(|| [Var::new("x"), Var::new("y"), Var::new("z")])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        /// Every value the expression takes over the relaxed variables lies
        /// in the evaluated interval, at every value of the fixed one.
        #[test]
        fn eval_is_sound(
            e in expr(vars().clone()),
            xl in -4i64..4, xw in 0i64..5, yl in -4i64..4, yw in 0i64..5, z in -3i64..4,
        ) {
            let vars = vars();
            let an = Analyzer::new();
            let mut dom = DomMap::new();
            dom.insert(vars[0].clone(), Interval::new(Expr::int(xl), Expr::int(xl + xw)));
            dom.insert(vars[1].clone(), Interval::new(Expr::int(yl), Expr::int(yl + yw)));
            let iv = eval(&e, &dom, &an);
            let at_z = |b: &Option<Expr>| b.as_ref().map(|b| b.eval_with(&[(&vars[2], z)]).unwrap());
            let (lo, hi) = (at_z(&iv.lo), at_z(&iv.hi));
            for x in xl..=xl + xw {
                for y in yl..=yl + yw {
                    let v = e.eval_with(&[(&vars[0], x), (&vars[1], y), (&vars[2], z)]).unwrap();
                    prop_assert!(lo.is_none_or(|l| l <= v) && hi.is_none_or(|h| v <= h),
                        "{e} = {v} at x={x} y={y} z={z}, outside [{lo:?}, {hi:?}]");
                }
            }
        }
    }
}
