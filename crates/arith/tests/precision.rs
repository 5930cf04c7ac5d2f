//! Precision the core gives on small cases found by brute force: each
//! result is checked by evaluation at every point of its box, and must be
//! the expected (smaller) form.

use arith::{Analyzer, Expr, Range, Scope, Var};

/// Simplifies `text` with half-open `ranges`, checks the result against
/// evaluation at every point of the box, and returns its text.
fn simplified(text: &str, ranges: &[(&str, i64, i64)]) -> String {
    let mut scope = Scope::new();
    let e = arith::parse_in(text, &mut scope).unwrap();
    let mut an = Analyzer::new();
    let vars: Vec<(Var, i64, i64)> = ranges
        .iter()
        .map(|&(n, lo, hi)| {
            let v = scope
                .get(n)
                .unwrap_or_else(|| panic!("{n} not in {text}"))
                .clone();
            an.bind(&v, Range::half_open(Expr::int(lo), Expr::int(hi)));
            (v, lo, hi)
        })
        .collect();
    assert_eq!(
        vars.len(),
        e.vars().len(),
        "{text}: every variable needs a range"
    );
    let s = an.simplify(&e).unwrap();
    let mut point = vec![0i64; vars.len()];
    let total: i64 = vars.iter().map(|(_, lo, hi)| hi - lo).product();
    for mut k in 0..total {
        for (i, (_, lo, hi)) in vars.iter().enumerate() {
            point[i] = lo + k % (hi - lo);
            k /= hi - lo;
        }
        let env = |w: &Var| vars.iter().position(|(v, ..)| v == w).map(|i| point[i]);
        if let Ok(want) = e.eval(&env) {
            assert_eq!(s.eval(&env).ok(), Some(want), "{text} => {s} at {point:?}");
        }
    }
    s.to_string()
}

#[test]
fn modulo_by_a_negative_constant_uses_ranges() {
    assert_eq!(simplified("x % -8", &[("x", -7, 1)]), "x");
    assert_eq!(simplified("x * 16 % -4", &[("x", -5, 5)]), "0");
}

#[test]
fn ceiling_divisions_fold() {
    assert_eq!(simplified("ceildiv(0, x)", &[("x", 1, 9)]), "0");
    assert_eq!(simplified("ceildiv(x, -8)", &[("x", 1, 8)]), "0");
    assert_eq!(simplified("ceildiv(x, x)", &[("x", 1, 9)]), "1");
    assert_eq!(simplified("ceildiv(x, x)", &[("x", -9, 9)]), "1");
}

#[test]
fn select_of_the_equal_operands_is_the_other() {
    assert_eq!(
        simplified("select(y == x, y, x)", &[("x", -3, 3), ("y", -3, 3)]),
        "x"
    );
    assert_eq!(
        simplified("select(x == y, y, x)", &[("x", -3, 3), ("y", -3, 3)]),
        "x"
    );
    assert_eq!(
        simplified("select(x != y, x, y)", &[("x", -3, 3), ("y", -3, 3)]),
        "x"
    );
}

#[test]
fn comparisons_true_on_the_whole_box() {
    assert_eq!(
        simplified("z % y < y", &[("y", 1, 9), ("z", -9, 9)]),
        "True"
    );
    assert_eq!(
        simplified("x * y >= y + x", &[("x", 2, 8), ("y", 4, 6)]),
        "True"
    );
}

#[test]
fn division_and_max_by_ranges() {
    assert_eq!(simplified("7 // x", &[("x", -20, -8)]), "-1");
    assert_eq!(
        simplified("max(z % y, y)", &[("y", 1, 9), ("z", -9, 9)]),
        "y"
    );
    assert_eq!(
        simplified("min(z % y, y)", &[("y", 1, 9), ("z", -9, 9)]),
        "z % y"
    );
}

/// The bound-based rule behind TVM's `TestFloorModTwo`: a numerator whose
/// atom takes two values is affine in it.
#[test]
fn divisions_of_two_valued_numerators_are_affine() {
    assert_eq!(simplified("(x % 2 + 1) // 2", &[("x", -6, 6)]), "x % 2");
    assert_eq!(simplified("(x % 2 + 3) // 2", &[("x", -6, 6)]), "x % 2 + 1");
    assert_eq!(
        simplified("(x % 2 * 3 + 4) // 2", &[("x", -6, 6)]),
        "x % 2 + 2"
    );
    assert_eq!(simplified("(1 - x % 2) // 2", &[("x", -6, 6)]), "0");
    assert_eq!(simplified("(y + 1) // 2", &[("y", 4, 6)]), "y - 2");
}

/// A comparison of a product with a sum is decided at the corners of the
/// box also when the difference has been factored (`x * (y - 2048)`): the
/// product of a variable and a linear sum of others is still multilinear
/// (TVM's `TestComparisonOfProductAndSum`). A variable multiplied by a sum
/// holding itself is not, and is not decided by corners.
#[test]
fn products_with_sum_factors_are_bounded_at_the_corners() {
    assert_eq!(
        simplified("x * y < (x + y) * 64", &[("x", 1, 64), ("y", 1, 200)]),
        "True"
    );
    assert_eq!(
        simplified("x * y * 8 < (y + x) * 512", &[("x", 1, 128), ("y", 1, 128)]),
        "True"
    );
    // Interval arithmetic gives [-18, 0]; the corners give [-9, 0].
    assert_eq!(
        simplified("x * (y - 3) - y * 3 >= -9", &[("x", 0, 4), ("y", 0, 4)]),
        "True"
    );
    // x * (x - 3) is -2 at x = 1 and 2, 0 at the corners 0 and 3.
    let s = simplified("x * (x - 3) >= 0", &[("x", 0, 4)]);
    assert_ne!(s, "True");
}

/// A linear form held in an interval exactly `c` wide, with a term scaled
/// by `c`, names one quotient (TVM's `TestComparisons`): checked at every
/// point of the box, with either sign of the term and any offset.
#[test]
fn an_interval_one_block_wide_is_a_quotient() {
    let r = [("x", -30, 31), ("y", -8, 9)];
    for (text, want) in [
        ("0 <= x - y * 5 and x - y * 5 < 5", "y == x // 5"),
        ("x - y * 5 < 5 and 0 <= x - y * 5", "y == x // 5"),
        ("3 <= x + y * 4 and x + y * 4 < 7", "(6 - x) // 4 == y"),
        // Narrower than the scale: two comparisons stay.
        (
            "0 <= x - y * 5 and x - y * 5 < 4",
            "y * 5 <= x and x <= y * 5 + 3",
        ),
    ] {
        assert_eq!(simplified(text, &r), want, "{text}");
    }
}

/// Two remainders by one small constant whose numerators differ by a
/// constant add up to a constant when they do for every remainder the
/// first can take (TVM's `TestFloorModTwo`): checked at every point.
#[test]
fn a_pair_of_remainders_with_one_sum_is_that_sum() {
    let r = [("x", -20, 21)];
    assert_eq!(simplified("x % 2 + (x + 1) % 2", &r), "1");
    assert_eq!(simplified("(x + 1) % 2 * 3 + x % 2 * 3 + x", &r), "x + 3");
    assert_eq!(simplified("(x + 7) % 2 + (x + 2) % 2", &r), "1");
    // Modulo 3 the sum takes two values: kept.
    assert_eq!(simplified("x % 3 + (x + 1) % 3", &r), "x % 3 + (x + 1) % 3");
}

/// `X - X // 2` is the ceiling of a half, `(X + 1) // 2`: taken when the
/// sum gets smaller by it (TVM's `TestAddIndex`), kept as written when not.
#[test]
fn a_number_less_its_floor_half_is_its_ceiling_half() {
    let (r, rs) = ([("x", -40, 41)], [("x", -40, 41), ("y", 0, 5)]);
    assert_eq!(simplified("(x % 2 + 7) // 2 + x // 2", &r), "(x + 7) // 2");
    assert_eq!(simplified("x - x // 2 + 3", &r), "(x + 7) // 2");
    assert_eq!(
        simplified("x + y - (x + y) // 2 - 1", &rs),
        "(x + y - 1) // 2"
    );
    assert_eq!(simplified("x - x // 2", &r), "x - x // 2");
}

/// Modulo a symbolic `y`, a remainder by a multiple of `y` (`y * -1`,
/// `y * 2`) differs from its numerator by a multiple of `y`
/// (`(x - x % -y) % y` is 0, from TVM's `TestFloorModPadded`).
#[test]
fn a_remainder_by_a_multiple_of_the_divisor_is_its_numerator() {
    let r = [("x", -12, 13), ("y", 1, 6)];
    assert_eq!(simplified("(x - x % (y * -1)) % y", &r), "0");
    assert_eq!(simplified("(x + x % (y * 2)) % y", &r), "x * 2 % y");
    assert_eq!(
        simplified("(x - x % (y + 1)) % y", &r),
        "(x - x % (y + 1)) % y"
    );
}

/// Terms below the common scale of the others are divided out of a
/// comparison as long as they leave one quotient bound, round after round
/// (TVM's canonical comparison of a fused index with its extent).
#[test]
fn small_terms_leave_a_comparison_round_after_round() {
    let r = [("x", 0, 2), ("y", 0, 22), ("t", 0, 32), ("v", 0, 8)];
    assert_eq!(
        simplified("x * 5632 + ((y * 32 + t) * 8 + v) < 11008", &r),
        "x * 22 + y <= 42"
    );
    // `t` reaches past one block of 32: it stays.
    let r = [("x", 0, 2), ("y", 0, 22), ("t", 0, 33)];
    assert_eq!(
        simplified("x * 704 + y * 32 + t <= 1375", &r),
        "x * 704 + y * 32 + t <= 1375"
    );
}

/// A chain of one operator is pruned operand by operand and comes out in
/// canonical order, as TVM writes it (`TestMinMax` chains).
#[test]
fn a_pruned_chain_comes_out_in_canonical_order() {
    let r = [("x", -4, 5), ("y", -4, 5), ("z", -4, 5)];
    assert_eq!(
        simplified("min(min(min(x, y), z), y)", &r),
        "min(min(x, y), z)"
    );
    assert_eq!(
        simplified("max(max(max(max(x, y), z), x * 2), y)", &r),
        "max(max(max(x, y), z), x * 2)"
    );
}
