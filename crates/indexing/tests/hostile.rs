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
