//! Integer division in an index: `O(i) = I(i / 2)` infers `0 <= i < N * 2`
//! as TC does (through Halide's solver). TC's `/` rounds toward negative
//! infinity; the ranges are exact for it: checked against enumeration and
//! by running the lowered program.

mod common;
use common::*;
use std::collections::HashMap;

fn def_of(index: &str) -> String {
    format!("def f(float(N) I) -> (O) {{ O(i) = I({index}) }}")
}

#[test]
fn division_by_a_constant_gives_exact_ranges() {
    for (index, want) in [
        ("i / 2", "0 <= i < N * 2"),
        ("(i + 1) / 2", "-1 <= i < N * 2 - 1"),
        ("(i - 2) / 3", "2 <= i < N * 3 + 2"),
        ("5 - i / 3", "18 - N * 3 <= i < 18"),
        ("(i / 2 + 1) / 3", "-2 <= i < N * 6 - 2"),
    ] {
        let a = analyze(&def_of(index));
        let d = &a.defs[0];
        assert!(!d.has_errors(), "{index}: {:?}", d.all_diagnostics());
        assert_eq!(ranges(d, 0), [want], "{index}");
    }
}

/// Floor division, as TC's `/` on integers.
fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b) - if a.rem_euclid(b) != 0 && b < 0 { 1 } else { 0 }
}

#[test]
fn the_ranges_are_the_in_bounds_indices_by_enumeration() {
    // index(i, N) in Rust, for each form.
    type Index = fn(i64) -> i64;
    let forms: [(&str, Index); 5] = [
        ("i / 2", |i| floor_div(i, 2)),
        ("(i + 1) / 2", |i| floor_div(i + 1, 2)),
        ("(i - 2) / 3", |i| floor_div(i - 2, 3)),
        ("5 - i / 3", |i| 5 - floor_div(i, 3)),
        ("(2 * i + 3) / 4", |i| floor_div(2 * i + 3, 4)),
    ];
    for (index, f) in forms {
        let a = analyze(&def_of(index));
        let d = &a.defs[0];
        let r = &d.stmts[0].ranges[0];
        let n = d.size("N").unwrap().clone();
        for nv in 1..7 {
            let env = |v: &arith::Var| (*v == n).then_some(nv);
            let lo = r.lower.eval(&env).unwrap();
            let hi = r.upper.eval(&env).unwrap();
            let inside: Vec<i64> = (-60..60).filter(|&i| (0..nv).contains(&f(i))).collect();
            assert_eq!(
                (lo, hi),
                (inside[0], inside[inside.len() - 1] + 1),
                "{index} at N = {nv}"
            );
            // A box: every value between is in bounds too.
            assert_eq!(inside.len() as i64, hi - lo, "{index} at N = {nv}");
        }
    }
}

#[test]
fn division_in_an_index_runs_clean() {
    for index in ["i / 2", "(i + 1) / 2", "(i - 2) / 3", "5 - i / 3"] {
        let a = analyze(&def_of(index));
        let sizes: HashMap<String, i64> = [("N".to_string(), 5)].into();
        let r = tc::lower::run(&a.program.defs[0], &a.defs[0], &sizes, 0).unwrap();
        assert!(r.lowered && r.compared > 0, "{index}: {r:?}");
        assert!(r.is_clean(1e-5), "{index}: {r:?}");
        assert_eq!(r.out_of_bounds, 0, "{index}");
    }
}

#[test]
fn division_by_zero_points_at_the_division() {
    let src = "def f(float(N) I) -> (O) { O(i) +=! I(i + k) where k in 0:N/0 }";
    let a = analyze(src);
    let e: Vec<_> = a.defs[0]
        .all_diagnostics()
        .into_iter()
        .filter(|d| d.severity == tc::Severity::Error)
        .collect();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(&src[e[0].span.start..e[0].span.end], "N/0");
    assert!(e[0].message.starts_with("division by zero"), "{e:?}");
}

#[test]
fn an_access_out_of_bounds_for_every_size_says_so() {
    let src = "def f(float(N) I) -> (O) { O(i) = I(i) + I(i + N) where i in 0:N }";
    let a = analyze(src);
    let e = messages(&a.defs[0], tc::Severity::Error);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("always out of bounds"), "{e:?}");
    assert!(!e[0].contains("False"), "{e:?}");
}

/// Every `(a * i + b) / c` with small coefficients: the inferred range is
/// exactly the set of in-bounds `i`, found by enumeration.
#[test]
fn every_small_affine_quotient_matches_enumeration() {
    for a in [-3i64, -2, -1, 1, 2, 3] {
        for b in -4i64..=4 {
            for c in 1i64..=4 {
                let index = format!("({a} * i + {b}) / {c}");
                let an = analyze(&def_of(&index));
                let d = &an.defs[0];
                assert!(!d.has_errors(), "{index}: {:?}", d.all_diagnostics());
                let r = &d.stmts[0].ranges[0];
                let n = d.size("N").unwrap().clone();
                for nv in 1..6 {
                    let env = |v: &arith::Var| (*v == n).then_some(nv);
                    let lo = r.lower.eval(&env).unwrap();
                    let hi = r.upper.eval(&env).unwrap();
                    let inside: Vec<i64> = (-100..100)
                        .filter(|&i| (0..nv).contains(&floor_div(a * i + b, c)))
                        .collect();
                    // `(2 * i + 1) / 1` never reads `I(0)` when `N = 1`.
                    if inside.is_empty() {
                        assert!(hi <= lo, "{index} at N = {nv}: {lo}..{hi}");
                        continue;
                    }
                    let want = (inside[0], inside[inside.len() - 1] + 1);
                    assert_eq!((lo, hi), want, "{index} at N = {nv}");
                }
            }
        }
    }
}
