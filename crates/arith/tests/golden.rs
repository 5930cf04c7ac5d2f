//! Golden tests: the worked examples of the seeds and the soundness cases
//! where TVM 0.27 is wrong (`shared/conformance/seeds.md`, S1-S4, W1-W3).

use arith::{Analyzer, Expr, Range, Scope};

/// Simplifies `input` with `ranges` (`name`, inclusive `lo`, inclusive `hi`)
/// and checks the printed result against `expected` (parsed and printed the
/// same way, so spacing does not matter).
fn check(input: &str, ranges: &[(&str, i64, i64)], expected: &str) {
    let mut scope = Scope::new();
    let mut an = Analyzer::new();
    for (name, lo, hi) in ranges {
        let v = scope.get_or_create(name);
        an.bind(&v, Range::inclusive(*lo, *hi));
    }
    let e = arith::parse_in(input, &mut scope).unwrap();
    let want = arith::parse_in(expected, &mut scope).unwrap();
    let got = an.simplify(&e).unwrap();
    assert_eq!(got.to_string(), want.to_string(), "simplify({input})");
}

const INT32: (i64, i64) = (-2147483648, 2147483647);

#[test]
fn s1_div_mod_of_a_sum_collapses() {
    let r = [("d0", 0, 6), ("d1", 0, 14)];
    check("d0 + d1 // 16", &r, "d0");
    check("d1 % 16", &r, "d1");
}

#[test]
fn s2_three_level_delinearisation() {
    let r = [("d0", 0, 9), ("d1", 0, 9), ("d2", 0, 9)];
    check("(100*d0 + 10*d1 + d2) // 100", &r, "d0");
    check("((100*d0 + 10*d1 + d2) % 100) // 10", &r, "d1");
    check("d2 % 10", &r, "d2");
}

#[test]
fn s3_partial_extraction() {
    let r = [("d0", 0, 9), ("d1", 0, 9), ("d2", 0, 9)];
    check(
        "(16*d0 + 4*d1 + d2) // 8",
        &r,
        "d0 * 2 + (d1 * 4 + d2) // 8",
    );
    check("(16*d0 + 4*d1 + d2) % 8", &r, "(d1 * 4 + d2) % 8");
}

#[test]
fn s4_negated_division() {
    check(
        "-((-11*d0 - d1 + 109) // 11) + 9",
        &[("d0", 0, 9), ("d1", 0, 10)],
        "d0",
    );
}

#[test]
fn w1_w2_the_most_negative_int32_is_not_lost() {
    let r = [("x", INT32.0, INT32.1)];
    check("-2147483648 - x == 0", &r, "x == -2147483648");
    check("x * -1 + -2147483648 == 0", &r, "x == -2147483648");
}

#[test]
fn w3_a_comparison_that_does_not_reduce() {
    let (e, scope) = arith::parse_with_scope("x*8 + y - z < 16").unwrap();
    let mut an = Analyzer::new();
    let [x, y, z] = ["x", "y", "z"].map(|n| scope.get(n).unwrap().clone());
    an.bind(&x, Range::inclusive(INT32.0, INT32.1));
    an.bind(&y, Range::half_open(Expr::int(0), Expr::int(8)));
    an.bind(&z, Range::half_open(Expr::int(0), Expr::int(2)));
    let got = an.simplify(&e).unwrap();
    // x = 2, y = 0, z = 1 gives 15 < 16: the result must hold there.
    assert_eq!(
        got.eval_with(&[(&x, 2), (&y, 0), (&z, 1)]).unwrap(),
        1,
        "{got}"
    );
    assert_ne!(got.to_string(), "x < 2");
}

#[test]
fn overflow_is_an_error_not_a_wrapped_value() {
    let e = arith::parse("9223372036854775807 + 1").unwrap();
    let err = Analyzer::new().simplify(&e).unwrap_err();
    assert_eq!(err.kind, arith::ErrorKind::Overflow);
    // Constants folding to a value outside i64 are an error; a product that
    // has a value somewhere (here at x = 0) is not, and folding its
    // constants (2^62 * 4) would leave the range, so it stays as written.
    let (e, scope) = arith::parse_with_scope("x * 4611686018427387904 * 4").unwrap();
    let x = scope.get("x").unwrap().clone();
    let s = Analyzer::new().simplify(&e).unwrap();
    assert_eq!(s.eval(&|v: &arith::Var| (v == &x).then_some(0)).unwrap(), 0);
}

#[test]
fn constant_division_by_zero_is_an_error() {
    for text in ["x // 0", "x % 0", "7 // (3 - 3)"] {
        let e = arith::parse(text).unwrap();
        let err = Analyzer::new().simplify(&e).unwrap_err();
        assert_eq!(err.kind, arith::ErrorKind::DivisionByZero, "{text}");
    }
}

#[test]
fn symbolic_ranges_decide_comparisons() {
    let (e, scope) = arith::parse_with_scope("i < n and 0 <= i").unwrap();
    let mut an = Analyzer::new();
    let (i, n) = (
        scope.get("i").unwrap().clone(),
        scope.get("n").unwrap().clone(),
    );
    an.bind(&n, Range::half_open(Expr::int(1), Expr::int(1 << 20)));
    an.bind(&i, Range::half_open(Expr::int(0), n.expr()));
    assert_eq!(an.simplify(&e).unwrap(), Expr::bool(true));
    let m = arith::parse_in("min(i, n - 1)", &mut scope.clone()).unwrap();
    assert_eq!(an.simplify(&m).unwrap().to_string(), "i");
}

#[test]
fn printing_round_trips() {
    for text in [
        "x * 4 + y // 8",
        "x % 16",
        "x + -3",
        "min(a, b) - max(c, 2)",
        "select(x < 2 and not y == 3, a, b)",
        "(x + y) * -2",
        "x - (y - z)",
        "x // (y // z)",
        "not (a < b or c != d)",
        "-9223372036854775808",
        "True or False",
        "ceildiv(x, 4)",
    ] {
        let e = arith::parse(text).unwrap();
        let again = arith::parse(&e.to_string()).unwrap();
        assert_eq!(e.to_string(), again.to_string(), "{text}");
        assert_eq!(e.node_count(), again.node_count(), "{text}");
    }
}

#[test]
fn parse_errors_carry_spans_and_say_what_was_expected() {
    let cases = [
        ("x + * 2", 4..5, "expected an expression"),
        ("min(x)", 0..6, "takes 2 arguments"),
        ("foo(x, 1)", 0..3, "unknown function"),
        ("x / 2", 2..3, "use `//`"),
        ("(x + 1", 6..6, "expected `)`"),
        ("x < y < z", 6..7, "chained comparisons"),
        ("x + (y < 2)", 4..11, "needs an integer"),
        ("99999999999999999999", 0..20, "does not fit"),
    ];
    for (text, span, msg) in cases {
        let err = arith::parse(text).unwrap_err();
        assert_eq!(err.span, Some(span), "{text}: {err}");
        assert!(err.message.contains(msg), "{text}: {}", err.message);
    }
}

#[test]
fn expressions_and_analyzers_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Expr>();
    assert_send_sync::<Analyzer>();
    let (e, scope) = arith::parse_with_scope("(x * 4 + y) // 4 + x % 2").unwrap();
    let mut an = Analyzer::new();
    an.bind(
        scope.get("y").unwrap(),
        Range::half_open(Expr::int(0), Expr::int(4)),
    );
    let results: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| an.simplify(&e).unwrap().to_string()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.iter().all(|r| r == "x + x % 2"), "{results:?}");
}
