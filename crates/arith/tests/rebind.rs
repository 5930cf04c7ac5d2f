//! Binding a variable once, and replacing its range: every fact the
//! analyzer keeps about a variable (constant bounds, alignment, symbolic
//! and declared ends, bounds of variables whose ranges use it) follows the
//! new range alone, as if the old one had never been bound.

use arith::{Analyzer, ConstBound, Expr, Range, Var};
use proptest::prelude::*;

fn x() -> Var {
    Var::new("x")
}

#[test]
fn an_override_replaces_the_range_instead_of_intersecting_it() {
    let x = x();
    let mut an = Analyzer::new();
    an.try_bind(&x, Range::inclusive(0, 7)).unwrap();
    an.rebind(&x, Range::inclusive(100, 107));
    assert_eq!(an.var_bound(&x), ConstBound::new(100, 107));
    let xe = Expr::var(x.clone());
    assert!(!an.can_prove(&Expr::lt(xe.clone(), Expr::int(8))));
    assert!(an.can_prove(&Expr::ge(xe.clone(), Expr::int(100))));
    assert_eq!(
        an.const_int_bound(&Expr::mul(xe, Expr::int(2))),
        ConstBound::new(200, 214)
    );
}

#[test]
fn binding_the_same_range_twice_is_fine_and_a_different_one_is_an_error() {
    let x = x();
    let mut an = Analyzer::new();
    an.try_bind(&x, Range::inclusive(0, 7)).unwrap();
    an.try_bind(&x, Range::inclusive(0, 7)).unwrap();
    let err = an.try_bind(&x, Range::inclusive(100, 107)).unwrap_err();
    assert!(err.message.contains("`x`"), "{}", err.message);
    assert!(err.message.contains("[0, 7]"), "{}", err.message);
    assert!(err.message.contains("[100, 107]"), "{}", err.message);
    // The refused binding changed nothing.
    assert_eq!(an.var_bound(&x), ConstBound::new(0, 7));
    assert!(an.try_update_bound(&x, ConstBound::new(0, 10)).is_err());
    an.try_update_bound(&x, ConstBound::new(0, 7)).unwrap();
}

#[test]
fn set_bound_replaces_a_symbolic_range() {
    let (x, n) = (x(), Var::new("n"));
    let mut an = Analyzer::new();
    an.try_bind(&n, Range::inclusive(1, 8)).unwrap();
    an.try_bind(&x, Range::half_open(Expr::int(0), Expr::var(n.clone())))
        .unwrap();
    assert!(an.var_symbolic_bounds(&x).is_some());
    an.set_bound(&x, ConstBound::new(50, 60));
    assert!(an.var_symbolic_bounds(&x).is_none());
    assert_eq!(an.var_bound(&x), ConstBound::new(50, 60));
    let xe = Expr::var(x);
    assert!(an.can_prove(&Expr::ge(xe, Expr::var(n))));
}

#[test]
fn ranges_that_use_an_overridden_variable_follow_it() {
    let (i, n) = (Var::new("i"), Var::new("n"));
    let mut an = Analyzer::new();
    an.try_bind(&n, Range::inclusive(1, 8)).unwrap();
    an.try_bind(&i, Range::half_open(Expr::int(0), Expr::var(n.clone())))
        .unwrap();
    assert_eq!(an.var_bound(&i), ConstBound::new(0, 7));
    an.rebind(&n, Range::inclusive(1, 100));
    assert_eq!(an.var_bound(&i), ConstBound::new(0, 99));
    // Binding `n` after `i` gives `i` the same facts.
    let mut later = Analyzer::new();
    later
        .try_bind(&i, Range::half_open(Expr::int(0), Expr::var(n.clone())))
        .unwrap();
    later.try_bind(&n, Range::inclusive(1, 100)).unwrap();
    assert_eq!(later.var_bound(&i), ConstBound::new(0, 99));
}

/// Expressions over `x` (and `y`, bound once to `[0, 5]`) whose every
/// analysis depends on the range of `x`.
fn expr_over_x() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        Just(Expr::var(Var::new("x"))),
        Just(Expr::var(Var::new("y"))),
        (-20i64..20).prop_map(Expr::int),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::add(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::sub(a, b)),
            (inner.clone(), -4i64..5).prop_map(|(a, c)| Expr::mul(a, Expr::int(c))),
            (inner.clone(), 1i64..9).prop_map(|(a, c)| Expr::floor_div(a, Expr::int(c))),
            (inner.clone(), 1i64..9).prop_map(|(a, c)| Expr::floor_mod(a, Expr::int(c))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::min(a, b)),
            (inner.clone(), inner).prop_map(|(a, b)| Expr::max(a, b)),
        ]
    })
}

/// A constant range or, in a few cases, a single point.
fn range() -> impl Strategy<Value = (i64, i64)> {
    prop_oneof![
        (-200i64..200, 0i64..40).prop_map(|(lo, n)| (lo, lo + n)),
        (-200i64..200).prop_map(|v| (v, v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn an_override_answers_as_a_fresh_analyzer(
        first in range(),
        second in range(),
        by_bound in any::<bool>(),
        e in expr_over_x(),
        c in -250i64..250,
    ) {
        let x = Var::new("x");
        let y = Var::new("y");
        let mut over = Analyzer::new();
        over.try_bind(&y, Range::inclusive(0, 5)).unwrap();
        over.try_bind(&x, Range::inclusive(first.0, first.1)).unwrap();
        // Warm up anything derived from the first range.
        let _ = over.simplify(&e);
        let mut fresh = Analyzer::new();
        fresh.try_bind(&y, Range::inclusive(0, 5)).unwrap();
        if by_bound {
            over.set_bound(&x, ConstBound::new(second.0, second.1));
            fresh.set_bound(&x, ConstBound::new(second.0, second.1));
        } else {
            over.rebind(&x, Range::inclusive(second.0, second.1));
            fresh.try_bind(&x, Range::inclusive(second.0, second.1)).unwrap();
        }
        prop_assert_eq!(over.var_bound(&x), fresh.var_bound(&x));
        prop_assert_eq!(over.const_int_bound(&e), fresh.const_int_bound(&e));
        let (mo, mf) = (over.modular_set(&e), fresh.modular_set(&e));
        prop_assert_eq!((mo.coeff, mo.base), (mf.coeff, mf.base));
        prop_assert_eq!(
            over.simplify(&e).map(|s| s.to_string()),
            fresh.simplify(&e).map(|s| s.to_string())
        );
        prop_assert_eq!(over.may_overflow(&e), fresh.may_overflow(&e));
        let none = std::collections::HashMap::new();
        let (so, sf) = (over.int_set(&e, &none), fresh.int_set(&e, &none));
        prop_assert_eq!(
            (so.min().map(|m| m.to_string()), so.max().map(|m| m.to_string())),
            (sf.min().map(|m| m.to_string()), sf.max().map(|m| m.to_string()))
        );
        for cond in [
            Expr::lt(e.clone(), Expr::int(c)),
            Expr::ge(e.clone(), Expr::int(c)),
            Expr::eq(e.clone(), Expr::int(c)),
        ] {
            prop_assert_eq!(over.can_prove(&cond), fresh.can_prove(&cond));
            prop_assert_eq!(over.decide(&cond), fresh.decide(&cond));
        }
    }
}
