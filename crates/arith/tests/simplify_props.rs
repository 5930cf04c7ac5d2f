//! Property tests: every analysis against evaluation at every point of small
//! boxes.
//!
//! Random integer and boolean expressions over three variables with random
//! small ranges; for each, every point of the box is enumerated and
//! - `simplify` must give the same value wherever the input is defined (and
//!   be defined there), and be no larger than the input;
//! - `const_int_bound` must contain every value;
//! - `modular_set` must hold for every value.

use arith::{Analyzer, CmpOp, Expr, Range, Var};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Setup {
    ranges: [(i64, i64); 3],
}

fn vars() -> [Var; 3] {
    [Var::new("x"), Var::new("y"), Var::new("z")]
}

/// An integer expression tree, built over variable indices.
#[derive(Clone, Debug)]
enum E {
    Var(usize),
    Int(i64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    MulC(Box<E>, i64),
    Div(Box<E>, i64),
    Mod(Box<E>, i64),
    DivV(Box<E>, usize),
    ModV(Box<E>, usize),
    Min(Box<E>, Box<E>),
    Max(Box<E>, Box<E>),
    Select(Box<B>, Box<E>, Box<E>),
}

#[derive(Clone, Debug)]
enum B {
    Cmp(CmpOp, E, E),
    And(Box<B>, Box<B>),
    Or(Box<B>, Box<B>),
    Not(Box<B>),
}

fn divisor() -> impl Strategy<Value = i64> {
    prop_oneof![1i64..=9, -9i64..=-1, Just(16), Just(64)]
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ]
}

fn int_expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![(0usize..3).prop_map(E::Var), (-12i64..12).prop_map(E::Int)];
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Mul(a.into(), b.into())),
            (inner.clone(), -6i64..7).prop_map(|(a, c)| E::MulC(a.into(), c)),
            (inner.clone(), divisor()).prop_map(|(a, c)| E::Div(a.into(), c)),
            (inner.clone(), divisor()).prop_map(|(a, c)| E::Mod(a.into(), c)),
            (inner.clone(), 0usize..3).prop_map(|(a, v)| E::DivV(a.into(), v)),
            (inner.clone(), 0usize..3).prop_map(|(a, v)| E::ModV(a.into(), v)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Min(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Max(a.into(), b.into())),
            (
                cmp_op(),
                inner.clone(),
                inner.clone(),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, p, q, a, b)| E::Select(
                    Box::new(B::Cmp(op, p, q)),
                    a.into(),
                    b.into()
                )),
        ]
    })
}

fn bool_expr() -> impl Strategy<Value = B> {
    let leaf = (cmp_op(), int_expr(), int_expr()).prop_map(|(op, a, b)| B::Cmp(op, a, b));
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| B::And(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| B::Or(a.into(), b.into())),
            inner.clone().prop_map(|a| B::Not(a.into())),
        ]
    })
}

fn setup() -> impl Strategy<Value = Setup> {
    let range = (-10i64..10, 1i64..9).prop_map(|(lo, w)| (lo, lo + w));
    [range.clone(), range.clone(), range].prop_map(|ranges| Setup { ranges })
}

fn build(e: &E, v: &[Var; 3]) -> Expr {
    match e {
        E::Var(i) => v[*i].expr(),
        E::Int(c) => Expr::int(*c),
        E::Add(a, b) => Expr::add(build(a, v), build(b, v)),
        E::Sub(a, b) => Expr::sub(build(a, v), build(b, v)),
        E::Mul(a, b) => Expr::mul(build(a, v), build(b, v)),
        E::MulC(a, c) => Expr::mul(build(a, v), Expr::int(*c)),
        E::Div(a, c) => Expr::floor_div(build(a, v), Expr::int(*c)),
        E::Mod(a, c) => Expr::floor_mod(build(a, v), Expr::int(*c)),
        E::DivV(a, i) => Expr::floor_div(build(a, v), v[*i].expr()),
        E::ModV(a, i) => Expr::floor_mod(build(a, v), v[*i].expr()),
        E::Min(a, b) => Expr::min(build(a, v), build(b, v)),
        E::Max(a, b) => Expr::max(build(a, v), build(b, v)),
        E::Select(c, a, b) => Expr::select(build_b(c, v), build(a, v), build(b, v)),
    }
}

fn build_b(b: &B, v: &[Var; 3]) -> Expr {
    match b {
        B::Cmp(op, x, y) => Expr::cmp(*op, build(x, v), build(y, v)),
        B::And(a, c) => Expr::and(build_b(a, v), build_b(c, v)),
        B::Or(a, c) => Expr::or(build_b(a, v), build_b(c, v)),
        B::Not(a) => Expr::not(build_b(a, v)),
    }
}

fn analyzer(s: &Setup, v: &[Var; 3]) -> Analyzer {
    let mut an = Analyzer::new();
    for (var, (lo, hi)) in v.iter().zip(s.ranges) {
        an.bind(var, Range::half_open(Expr::int(lo), Expr::int(hi)));
    }
    an
}

/// Calls `f` with every point of the box.
fn for_each_point(s: &Setup, v: &[Var; 3], mut f: impl FnMut(&dyn Fn(&Var) -> Option<i64>)) {
    let [(a0, a1), (b0, b1), (c0, c1)] = s.ranges;
    for x in a0..a1 {
        for y in b0..b1 {
            for z in c0..c1 {
                let env = |w: &Var| {
                    if *w == v[0] {
                        Some(x)
                    } else if *w == v[1] {
                        Some(y)
                    } else if *w == v[2] {
                        Some(z)
                    } else {
                        None
                    }
                };
                f(&env);
            }
        }
    }
}

fn check_all(e: &Expr, s: &Setup, v: &[Var; 3]) -> Result<(), TestCaseError> {
    let an = analyzer(s, v);
    let simplified = match an.simplify(e) {
        Ok(x) => x,
        // Overflow or a constant division by zero: the input has no value.
        Err(_) => return Ok(()),
    };
    prop_assert!(
        simplified.node_count() <= e.node_count(),
        "{e} grew into {simplified}"
    );
    let bound = an.const_int_bound(e);
    let modular = an.modular_set(e);
    let mut failure = None;
    for_each_point(s, v, |env| {
        if failure.is_some() {
            return;
        }
        let Ok(want) = e.eval(env) else { return };
        match simplified.eval(env) {
            Ok(got) if got == want => {}
            other => {
                failure = Some(format!(
                    "{e} => {simplified}: {want} vs {other:?} at x={:?} y={:?} z={:?}",
                    env(&v[0]),
                    env(&v[1]),
                    env(&v[2])
                ));
                return;
            }
        }
        if !bound.contains(want) {
            failure = Some(format!("{e}: value {want} outside bound {bound}"));
            return;
        }
        let ok = if modular.coeff == 0 {
            want == modular.base
        } else {
            (want - modular.base).rem_euclid(modular.coeff) == 0
        };
        if !ok {
            failure = Some(format!("{e}: value {want} breaks {modular:?}"));
        }
    });
    match failure {
        Some(f) => Err(TestCaseError::fail(f)),
        None => Ok(()),
    }
}

/// `x` in a constant range, `y` in `[0, x + a)` and `z` in `[y, y + w)`:
/// symbolic range ends.
fn check_symbolic(
    e: &Expr,
    (x0, x1, a, w): (i64, i64, i64, i64),
    v: &[Var; 3],
) -> Result<(), TestCaseError> {
    let mut an = Analyzer::new();
    an.bind(&v[0], Range::half_open(Expr::int(x0), Expr::int(x1)));
    an.bind(
        &v[1],
        Range::half_open(Expr::int(0), Expr::add(v[0].expr(), Expr::int(a))),
    );
    an.bind(
        &v[2],
        Range::half_open(v[1].expr(), Expr::add(v[1].expr(), Expr::int(w))),
    );
    let Ok(simplified) = an.simplify(e) else {
        return Ok(());
    };
    let bound = an.const_int_bound(e);
    for x in x0..x1 {
        for y in 0..x + a {
            for z in y..y + w {
                let env = |u: &Var| {
                    [x, y, z]
                        .into_iter()
                        .zip(v.iter())
                        .find(|(_, w)| *w == u)
                        .map(|(val, _)| val)
                };
                let Ok(want) = e.eval(&env) else { continue };
                let got = simplified.eval(&env);
                prop_assert_eq!(
                    got.ok(),
                    Some(want),
                    "{} => {} at x={} y={} z={}",
                    e,
                    simplified,
                    x,
                    y,
                    z
                );
                prop_assert!(bound.contains(want), "{}: {} outside {}", e, want, bound);
            }
        }
    }
    Ok(())
}

proptest! {
    // PROPTEST_CASES raises the count for deeper local runs.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000)
    ))]

    #[test]
    fn integer_expressions_agree_with_evaluation(e in int_expr(), s in setup()) {
        let v = vars();
        check_all(&build(&e, &v), &s, &v)?;
    }

    #[test]
    fn symbolic_ranges_agree_with_evaluation(
        e in int_expr(),
        b in bool_expr(),
        r in (0i64..6, 1i64..6, 0i64..4, 1i64..5).prop_map(|(x0, w0, a, w)| (x0, x0 + w0, a, w)),
    ) {
        let v = vars();
        check_symbolic(&build(&e, &v), r, &v)?;
        check_symbolic(&build_b(&b, &v), r, &v)?;
    }

    #[test]
    fn printed_expressions_parse_back_to_the_same_tree(e in int_expr(), b in bool_expr()) {
        let v = vars();
        for tree in [build(&e, &v), build_b(&b, &v)] {
            let text = tree.to_string();
            let again = arith::parse(&text).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
            prop_assert_eq!(again.to_string(), text);
            prop_assert_eq!(again.node_count(), tree.node_count());
        }
    }

    #[test]
    fn conditions_agree_with_evaluation(b in bool_expr(), s in setup()) {
        let v = vars();
        check_all(&build_b(&b, &v), &s, &v)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any text, including broken expressions and non-ASCII characters, gives
    /// a value or an error with a span inside the text, never a panic.
    #[test]
    fn parsing_and_simplifying_any_text_never_panics(text in "[-+*/%()<>=!a-z0-9_ ,.λé]{0,40}") {
        match arith::parse(&text) {
            Ok(e) => {
                let _ = Analyzer::new().simplify(&e);
            }
            Err(err) => {
                if let Some(span) = err.span {
                    prop_assert!(span.start <= span.end && span.end <= text.len(), "{text:?}: {span:?}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The outer loop of a split over a fused axis: `y` in `[0, x * a + b)`
    /// and terms `y // c` or `ceildiv(y, c)` bounded through `y`'s symbolic
    /// end (`x - y // 2` is at least 1 when `y < x * 2`).
    #[test]
    fn divisions_of_a_symbolically_ranged_variable_agree_with_evaluation(
        (x0, x1) in (1i64..5, 1i64..6).prop_map(|(lo, w)| (lo, lo + w)),
        (a, b, c) in (1i64..5, -2i64..3, 1i64..6),
        (k, d, ceil, use_max) in (-2i64..3, -3i64..4, any::<bool>(), any::<bool>()),
    ) {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let mut an = Analyzer::new();
        an.bind(&x, Range::half_open(Expr::int(x0), Expr::int(x1)));
        let end = Expr::add(Expr::mul(x.expr(), Expr::int(a)), Expr::int(b));
        an.bind(&y, Range::half_open(Expr::int(0), end));
        let div = if ceil {
            Expr::ceil_div(y.expr(), Expr::int(c))
        } else {
            Expr::floor_div(y.expr(), Expr::int(c))
        };
        let sum = Expr::add(Expr::sub(Expr::mul(x.expr(), Expr::int(k)), div), Expr::int(d));
        let clamped = if use_max {
            Expr::max(sum.clone(), Expr::int(0))
        } else {
            Expr::min(sum.clone(), Expr::int(1))
        };
        for e in [clamped, Expr::cmp(CmpOp::Ge, sum, Expr::int(1))] {
            let simplified = an.simplify(&e).map_err(|err| TestCaseError::fail(err.to_string()))?;
            for xv in x0..x1 {
                for yv in 0..xv * a + b {
                    let env = |u: &Var| if *u == x { Some(xv) } else if *u == y { Some(yv) } else { None };
                    let want = e.eval(&env).map_err(|err| TestCaseError::fail(err.to_string()))?;
                    prop_assert_eq!(simplified.eval(&env).ok(), Some(want), "{} => {} at x={} y={}", e, simplified, xv, yv);
                }
            }
        }
    }
}
