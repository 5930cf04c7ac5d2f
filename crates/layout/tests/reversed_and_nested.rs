//! Golden answers for maps outside plain split form: reversals (`4 - i`,
//! `n - 1 - i`), a split of a remainder (`(i % 10) // 9`) and digits fused
//! again with another index (`(k * 6 + j) % 2 * 4 + i`), digits of an
//! offset source or top digits fused under a radix above their values
//! (`(x + 3) % 2 * 5 + (x + 3) // 2`, `x1 * 9 + x0` with `x0` in `[0, 7)`),
//! each also checked by enumeration; and the collision reported for a
//! symbolic shape.

mod common;

use arith::{Expr, Scope};
use common::{eval_expr, ints, shape};
use layout::{for_each_point, ErrorKind, IndexMap, Layout};
use std::collections::HashSet;

/// The transformed shape, inverse and padding predicate of `map` on
/// `dims`, after checking them by enumeration.
fn answers(map: &str, dims: &[i64]) -> (Vec<i64>, String, Option<String>) {
    let m = IndexMap::parse(map).unwrap();
    let l = Layout::new(shape(dims), Some(m.clone())).unwrap_or_else(|e| panic!("{map}: {e}"));
    let tshape = ints(l.transformed_shape());
    let inv = l.inverse().unwrap();
    let mut reached = HashSet::new();
    for_each_point(dims, |x| {
        let t = m.map_point(x).unwrap();
        assert!(t.iter().zip(&tshape).all(|(v, e)| (0..*e).contains(v)));
        assert_eq!(inv.map_point(&t).unwrap(), x.to_vec(), "{map} at {x:?}");
        assert!(reached.insert(t), "{map}: not injective");
    });
    let vars = inv.initial_indices().to_vec();
    for_each_point(&tshape, |t| {
        let padded = l
            .padding_predicate()
            .is_some_and(|p| eval_expr(p, &vars, t, &[]) != 0);
        assert_eq!(padded, !reached.contains(t), "{map}: padding at {t:?}");
    });
    (
        tshape,
        inv.to_string(),
        l.padding_predicate().map(|p| p.to_string()),
    )
}

#[test]
fn a_reversal_is_a_bijection() {
    assert_eq!(
        answers("lambda i: [4 - i]", &[5]),
        (vec![5], "lambda i0: [4 - i0]".into(), None)
    );
    // Reversed digits: the inner index counts down within each tile.
    assert_eq!(
        answers("lambda i: [i // 4, 3 - i % 4]", &[14]),
        (
            vec![4, 4],
            "lambda i0, i1: [i0 * 4 + (3 - i1)]".into(),
            Some("i0 * 4 + (3 - i1) >= 14".into())
        )
    );
}

#[test]
fn a_symbolic_reversal_keeps_its_extent() {
    let mut scope = Scope::new();
    let n = scope.get_or_create("n");
    let map = IndexMap::parse_with("lambda i: [n - 1 - i]", &scope).unwrap();
    let (inverse, padding) = map.non_surjective_inverse(&[n.expr()]).unwrap();
    assert_eq!(map.map_shape(&[n.expr()]).unwrap(), vec![n.expr()]);
    assert_eq!(inverse.to_string(), "lambda i0: [n - 1 - i0]");
    assert!(padding.is_none());
    for size in 1..20 {
        for i in 0..size {
            let t = map.map_indices(&[Expr::int(i)]).unwrap()[0]
                .eval(&|v| (*v == n).then_some(size))
                .unwrap();
            let back = inverse.final_indices()[0]
                .eval(&|v| {
                    if *v == n {
                        Some(size)
                    } else {
                        Some(t)
                    }
                })
                .unwrap();
            assert!((0..size).contains(&t));
            assert_eq!(back, i);
        }
    }
}

#[test]
fn a_stride_pads_the_points_between() {
    assert_eq!(
        answers("lambda i: [i * 2]", &[4]),
        (
            vec![7],
            "lambda i0: [i0 // 2]".into(),
            Some("i0 % 2 != 0".into())
        )
    );
}

#[test]
fn a_split_of_a_remainder_pads_exactly() {
    assert_eq!(
        answers("lambda i: [i // 10, (i % 10) // 9, i % 10 % 9]", &[20]),
        (
            vec![2, 2, 9],
            "lambda i0, i1, i2: [i0 * 10 + (i1 * 9 + i2)]".into(),
            Some("i1 * 9 + i2 >= 10".into())
        )
    );
}

#[test]
fn digits_fused_with_another_index_invert() {
    assert_eq!(
        answers(
            "lambda i, k, j: [(k * 6 + j) // 2, (k * 6 + j) % 2 * 4 + i]",
            &[4, 3, 6]
        ),
        (
            vec![9, 8],
            "lambda i0, i1: [i1 % 4, (i0 * 2 + i1 // 4) // 6, (i0 * 2 + i1 // 4) % 6]".into(),
            None
        )
    );
}

#[test]
fn a_remainder_over_a_symbolic_extent_collides_above_it() {
    let mut scope = Scope::new();
    let n = scope.get_or_create("n");
    let map = IndexMap::parse_with("lambda i: [i % 8]", &scope).unwrap();
    let e = map.check_injective(&[n.expr()]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotInjective);
    let c = map.find_collision(&[n.expr()]).unwrap();
    assert_eq!((c.first, c.second, c.image), (vec![0], vec![8], vec![0]));
    assert_eq!(c.symbols, vec![("n".to_string(), 9)]);
    assert_eq!(c.condition.unwrap().to_string(), "8 < n");
    assert!(
        e.message
            .contains("[0] and [8] both map to [0], as they do whenever 8 < n"),
        "{}",
        e.message
    );
}

/// `(x + 3) // 2` takes `[1, 5)`, fused under a radix of 5: as digits of
/// the one offset mark `x + 3` (values `[3, 10)`) the fusion chains, and the
/// points below 3 are the padding.
#[test]
fn digits_of_an_offset_source_fused_above_their_values_invert() {
    assert_eq!(
        answers("lambda x: [((x + 3) % 2) * 5 + (x + 3) // 2]", &[7]),
        (
            vec![10],
            "lambda i0: [i0 % 5 * 2 + i0 // 5 - 3]".into(),
            Some("i0 % 5 * 2 + i0 // 5 < 3".into())
        )
    );
    // A remainder offset by 3 and split again, its quotient (`[1, 4)`)
    // fused under a radix of 4 with the tile index.
    assert_eq!(
        answers(
            "lambda x0: [x0 // 5 * 4 + (x0 % 5 + 3) // 2, (x0 % 5 + 3) % 2]",
            &[8]
        ),
        (
            vec![8, 2],
            "lambda i0, i1: [i0 // 4 * 5 + (i0 % 4 * 2 + i1 - 3)]".into(),
            Some("i0 % 4 * 2 + i1 < 3 or i0 // 4 * 5 + (i0 % 4 * 2 + i1 - 3) >= 8".into())
        )
    );
}

/// A logical index of extent one still gives its offset digit a radix:
/// `(x1 + 3) % 3` is always 0, but `x0 * 3 + (2 - (x1 + 3) % 3)` is a
/// fusion only with that digit kept as one of three values.
#[test]
fn an_offset_digit_of_an_index_of_extent_one_fills_its_radix() {
    assert_eq!(
        answers(
            "lambda x0, x1: [1 - (x0 * 3 + (2 - (x1 + 3) % 3)) // 5, \
             (x0 * 3 + (2 - (x1 + 3) % 3)) % 5, (x1 + 3) // 3]",
            &[2, 1]
        ),
        (
            vec![2, 5, 2],
            "lambda i0, i1, i2: [((1 - i0) * 5 + i1) // 3, i2 * 3 + (2 - ((1 - i0) * 5 + i1) % 3) - 3]".into(),
            Some(
                "(1 - i0) * 5 + i1 >= 6 or i2 * 3 + (2 - ((1 - i0) * 5 + i1) % 3) < 3 \
                 or i2 * 3 + (2 - ((1 - i0) * 5 + i1) % 3) >= 4"
                    .into()
            )
        )
    );
}

/// A whole index (`x0` of 7 values) or the partial top digit of one
/// (`r // 2` of `r` in `[0, 5)`, 3 values) under a radix above its values:
/// the points above its last value are the padding.
#[test]
fn top_digits_fused_under_a_larger_radix_invert() {
    assert_eq!(
        answers(
            "lambda x0, x1: [(5 - x1) * 9 + (x0 // 3 * 3 + x0 % 3)]",
            &[7, 6]
        ),
        (
            vec![54],
            "lambda i0: [i0 % 9, 5 - i0 // 9]".into(),
            Some("i0 % 9 >= 7".into())
        )
    );
    assert_eq!(
        answers(
            "lambda r: [(r % 2 * 4 + r // 2) // 5, (r % 2 * 4 + r // 2) % 5]",
            &[5]
        ),
        (
            vec![2, 5],
            "lambda i0, i1: [(i0 * 5 + i1) % 4 * 2 + (i0 * 5 + i1) // 4]".into(),
            Some("i0 * 5 + i1 >= 8 or (i0 * 5 + i1) % 4 * 2 + (i0 * 5 + i1) // 4 >= 5".into())
        )
    );
}

/// `(x1 + 1) % 4` never wraps (`x1 + 1` is in `[1, 3)`), so under the radix
/// 3 it is the offset mark `x1 + 1` itself, of 3 values.
#[test]
fn an_offset_remainder_that_never_wraps_fits_a_smaller_radix() {
    assert_eq!(
        answers(
            "lambda x0, x1: [x0 // 4, x0 % 4 * 3 + (x1 + 1) % 4]",
            &[5, 2]
        ),
        (
            vec![2, 12],
            "lambda i0, i1: [i0 * 4 + i1 // 3, i1 % 3 - 1]".into(),
            Some("i0 * 4 + i1 // 3 >= 5 or i1 % 3 < 1".into())
        )
    );
}
