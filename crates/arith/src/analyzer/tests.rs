//! Property tests of the shortcuts against the simplifier.

use super::*;
use proptest::prelude::*;

/// The variables of [`small_expr`].
fn xy() -> &'static (Var, Var) {
    static XY: std::sync::OnceLock<(Var, Var)> = std::sync::OnceLock::new();
    XY.get_or_init(|| (Var::new("x"), Var::new("y")))
}

/// A small expression over `x` and `y`, often of a trivial form.
fn small_expr() -> impl Strategy<Value = Expr> {
    let (x, y) = xy().clone();
    let leaf = prop_oneof![
        (-3i64..70).prop_map(Expr::int),
        Just(x.expr()),
        Just(y.expr()),
        any::<bool>().prop_map(Expr::bool),
    ];
    let deep = leaf.clone().prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::add(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::sub(a, b)),
            (inner.clone(), inner).prop_map(|(a, b)| Expr::mul(a, b)),
        ]
    });
    // The shapes the shortcut looks for, with constants on both sides
    // of its conditions.
    let term = prop_oneof![
        leaf.clone(),
        (leaf.clone(), -2i64..70).prop_map(|(a, c)| Expr::mul(a, Expr::int(c))),
    ];
    let near = prop_oneof![
        term.clone(),
        (term.clone(), -3i64..70).prop_map(|(t, k)| Expr::add(t, Expr::int(k))),
        (term, -3i64..70).prop_map(|(t, k)| Expr::sub(t, Expr::int(k))),
    ];
    // Chains of constants after a term (`x * 64 + 66 - 1`).
    let chain = (near.clone(), -3i64..70, any::<bool>()).prop_map(|(t, k, add)| {
        if add {
            Expr::add(t, Expr::int(k))
        } else {
            Expr::sub(t, Expr::int(k))
        }
    });
    prop_oneof![deep, near, chain]
}

/// How often the property test met a trivial form (it must, to test
/// anything).
static TRIVIAL_HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static LINEAR_HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[test]
fn the_property_test_meets_trivial_forms() {
    trivial_forms_agree_with_the_simplifier();
    assert!(TRIVIAL_HITS.load(std::sync::atomic::Ordering::Relaxed) > 500);
    assert!(LINEAR_HITS.load(std::sync::atomic::Ordering::Relaxed) > 500);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    /// Where the shortcut answers, the simplifier gives the same
    /// expression.
    #[test]
    fn trivial_forms_agree_with_the_simplifier(
        e in small_expr(),
        xr in (-5i64..5, 1i64..4),
        yr in prop::option::of((-5i64..5, 1i64..4)),
    ) {
        let (x, y) = xy();
        let mut an = Analyzer::new();
        an.bind(x, Range::new(Expr::int(xr.0), Expr::int(xr.1)));
        if let Some((m, n)) = yr {
            an.bind(y, Range::new(Expr::int(m), Expr::int(n)));
        }
        if let Some(fast) = an.simplify_trivial(&e) {
            TRIVIAL_HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            prop_assert_eq!(Ok(fast), an.simplify_full(&e), "{}", e);
        }
        if let Some(fast) = an.plain_linear_form(&e) {
            LINEAR_HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let fast = an.keep_where_defined(&e, fast);
            prop_assert_eq!(Ok(fast), an.simplify_full(&e), "{}", e);
        }
    }
}

/// A leaf of any magnitude: constants and variables whose ranges
/// reach from a few values to most of `i64`.
fn wide_expr() -> impl Strategy<Value = Expr> {
    let (x, y) = xy().clone();
    let leaf = prop_oneof![
        (0u32..63, any::<bool>()).prop_map(|(b, neg)| {
            let v = (1i64 << b) - 1;
            Expr::int(if neg { -v } else { v })
        }),
        Just(x.expr()),
        Just(y.expr()),
        any::<bool>().prop_map(Expr::bool),
    ];
    leaf.prop_recursive(4, 16, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::add(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::sub(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::mul(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::floor_div(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::floor_mod(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::ceil_div(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::max(a, b)),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Expr::select(
                Expr::lt(c, a.clone()),
                a,
                b
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    /// Whenever the leaves' magnitudes clear a tree, the interval walk
    /// finds no node that may overflow either.
    #[test]
    fn magnitude_bits_never_clear_an_overflow(
        e in wide_expr(),
        xb in 0u32..63,
        yb in 0u32..63,
    ) {
        let (x, y) = xy();
        let mut an = Analyzer::new();
        an.bind(x, Range::new(Expr::int(-(1i64 << xb)), Expr::int((1i64 << xb) - 1)));
        an.bind(y, Range::new(Expr::int(0), Expr::int((1i64 << yb) - 1)));
        if an.magnitude_bits(&e).is_some() {
            prop_assert!(!an.may_overflow_by_intervals(&e), "{}", e);
        }
    }
}

#[test]
fn trivial_forms_are_recognised() {
    let x = Var::new("x");
    let mut an = Analyzer::new();
    an.bind(&x, Range::new(Expr::int(0), Expr::int(17)));
    for e in [
        Expr::mul(x.expr(), Expr::int(64)),
        Expr::add(Expr::mul(x.expr(), Expr::int(64)), Expr::int(63)),
        Expr::sub(x.expr(), Expr::int(1)),
    ] {
        assert_eq!(an.simplify_trivial(&e), Some(e));
    }
    let x64 = Expr::mul(x.expr(), Expr::int(64));
    let cases = [
        (
            Expr::add(x.expr(), Expr::int(-1)),
            Expr::sub(x.expr(), Expr::int(1)),
        ),
        (
            Expr::sub(Expr::add(x64.clone(), Expr::int(66)), Expr::int(1)),
            Expr::add(x64.clone(), Expr::int(65)),
        ),
        (
            Expr::sub(Expr::add(x64.clone(), Expr::int(1)), Expr::int(1)),
            x64,
        ),
        (
            Expr::sub(Expr::add(Expr::int(0), Expr::int(64)), Expr::int(1)),
            Expr::int(63),
        ),
    ];
    for (e, want) in cases {
        assert_eq!(an.simplify_trivial(&e), Some(want), "{e}");
    }
    for e in [
        Expr::mul(Expr::int(64), x.expr()),
        Expr::add(Expr::int(0), x.expr()),
        Expr::add(x.expr(), x.expr()),
    ] {
        assert_eq!(an.simplify_trivial(&e), None, "{e}");
    }
}
