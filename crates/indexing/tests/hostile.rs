//! Hostile map text: long flat sums parse and simplify; deep nesting is
//! refused with a clear error instead of exhausting the stack.

use indexing::IndexingMap;

#[test]
fn a_sum_of_fifty_thousand_terms_parses_and_simplifies() {
    let n = 50_000;
    let text = format!(
        "(d0, d1) -> ({}), domain: d0 in [0, 9], d1 in [0, 3]",
        vec!["d0 - d1 * 2 + 1"; n].join(" + ")
    );
    let mut map = IndexingMap::parse(&text).unwrap();
    assert_eq!(map.evaluate(&[5, 1]).unwrap(), vec![n as i64 * 4]);
    map.simplify();
    assert_eq!(
        map.to_string(),
        "(d0, d1) -> (d0 * 50000 - d1 * 100000 + 50000), domain: d0 in [0, 9], d1 in [0, 3]"
    );
}

#[test]
fn short_sums_keep_their_written_shape() {
    let map = IndexingMap::parse("(d0) -> (d0 + 1 + d0 * 2 - 3), domain: d0 in [0, 9]").unwrap();
    assert_eq!(
        map.to_string(),
        "(d0) -> (d0 + 1 + d0 * 2 - 3), domain: d0 in [0, 9]"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for (open, close) in [("(", ")"), ("min(", ", 3)"), ("-", "")] {
        let n = 50_000;
        let text = format!(
            "(d0) -> ({}d0{}), domain: d0 in [0, 9]",
            open.repeat(n),
            close.repeat(n)
        );
        let e = IndexingMap::parse(&text).unwrap_err();
        assert!(e.to_string().contains("nests more than"), "{e}");
    }
}

/// XLA's text drops the grouping of sums and turns `+ x * -c` into `- x * c`,
/// which is exact arithmetic but can move an overflow near the ends of
/// `i64` to a point where the map has a value. Such expressions print with
/// their grouping and signs, so the text parses back to the same map.
#[test]
fn sums_near_the_ends_of_i64_keep_their_grouping_when_printed() {
    let text = "(d0)[s0, s1] -> (min(d0, -9223372036854775808) + (s0 * 6 + s1 * -1 + 14)), \
                domain: d0 in [0, 5], s0 in [0, 2], s1 in [0, 7]";
    let map = IndexingMap::parse(text).unwrap();
    let printed = map.to_string();
    assert_eq!(
        printed,
        "(d0)[s0, s1] -> (min(d0, -9223372036854775808) + (s0 * 6 + -s1 + 14)), \
         domain: d0 in [0, 5], s0 in [0, 2], s1 in [0, 7]"
    );
    let back = IndexingMap::parse(&printed).unwrap();
    assert!(indexing::semantically_equal(&map, &back, 1 << 16).unwrap());
    assert_eq!(
        map.evaluate(&[0, 0, 7]).unwrap(),
        back.evaluate(&[0, 0, 7]).unwrap()
    );
    // Away from the ends, the same shape prints in XLA's flat form.
    let small = IndexingMap::parse(
        "(d0)[s0, s1] -> (min(d0, -9) + (s0 * 6 + s1 * -1 + 14)), \
         domain: d0 in [0, 5], s0 in [0, 2], s1 in [0, 7]",
    )
    .unwrap();
    assert_eq!(
        small.to_string(),
        "(d0)[s0, s1] -> (min(d0, -9) + s0 * 6 - s1 + 14), domain: d0 in [0, 5], s0 in [0, 2], s1 in [0, 7]"
    );
}

/// A `mod` constraint with a modulus near `i64::MAX`: moving a bound to the
/// next allowed residue computed `m - r + lower`, which overflowed (a
/// wrapped value in release builds). Found by `fuzz map` built with
/// overflow checks.
#[test]
fn a_mod_constraint_with_a_huge_modulus_tightens_without_overflow() {
    let text = "(d0, d1, d2)[s0] -> (((d2 mod -7) floordiv -7)), domain: d0 in [0, 3], \
                d1 in [0, 5], d2 in [0, 6], s0 in [0, 6], (d1 mod 9223372036854775807) in [8, 8]";
    let mut map = IndexingMap::parse(text).unwrap();
    map.simplify();
    // No d1 in [0, 5] has d1 mod (2^63 - 1) = 8: the map is empty.
    assert!(map.is_known_empty(), "{map}");
}
