//! `Layout::logical_at` and `Layout::unflatten` against enumeration: every
//! logical index is found at its own transformed and physical point, and
//! exactly the points no logical index reaches are padding.

mod common;

use common::{ints, shape};
use layout::{for_each_point, IndexMap, Layout};
use proptest::prelude::*;
use std::collections::HashMap;

/// Maps of seed 001 and beyond: splits that pad, separators, reorders,
/// reversals.
const MAPS: &[(&str, usize)] = &[
    ("lambda i: [i // 4, i % 4]", 1),
    ("lambda i: [i // 4, te.AXIS_SEPARATOR, i % 4]", 1),
    ("lambda i, j: [j, i]", 2),
    ("lambda i, j: [j // 3, i, te.AXIS_SEPARATOR, j % 3]", 2),
    (
        "lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]",
        4,
    ),
    ("lambda i, j: [i, 5 - 1 - j]", 2),
    ("lambda i: [i + 2]", 1),
];

fn check(text: &str, dims: &[i64]) {
    let map = IndexMap::parse(text).unwrap();
    let l = Layout::new(shape(dims), Some(map)).unwrap();
    let tdims = ints(l.transformed_shape());
    let pdims = ints(l.physical_shape());
    // Oracle: where each logical index lands, by the forward map alone.
    let mut at: HashMap<Vec<i64>, Vec<i64>> = HashMap::new();
    for_each_point(dims, |p| {
        let t = l.map().unwrap().map_point(p).unwrap();
        at.insert(t, p.to_vec());
    });
    let mut padding = 0usize;
    for_each_point(&tdims, |t| {
        let stored = l.logical_at(t).unwrap();
        assert_eq!(stored.as_ref(), at.get(t), "{text} at transformed {t:?}");
        padding += usize::from(stored.is_none());
    });
    let points = |d: &[i64]| d.iter().product::<i64>() as usize;
    assert_eq!(padding, points(&tdims) - points(dims), "{text}");
    for_each_point(dims, |p| {
        let phys = l.physical_point(p).unwrap();
        let t = l.unflatten(&phys).unwrap();
        assert_eq!(
            l.logical_at(&t).unwrap(),
            Some(p.to_vec()),
            "{text} at {p:?}"
        );
    });
    // Every physical point unflattens into the transformed shape.
    for_each_point(&pdims, |q| {
        let t = l.unflatten(q).unwrap();
        assert!(t.iter().zip(&tdims).all(|(a, d)| (0..*d).contains(a)));
    });
}

#[test]
fn the_padded_split_of_fourteen_stores_nothing_at_the_last_two_places() {
    let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    let l = Layout::new(shape(&[14]), Some(map)).unwrap();
    assert_eq!(l.logical_at(&[3, 1]).unwrap(), Some(vec![13]));
    assert_eq!(l.logical_at(&[3, 2]).unwrap(), None);
    assert_eq!(l.logical_at(&[3, 3]).unwrap(), None);
    assert_eq!(l.unflatten(&[15]).unwrap(), vec![3, 3]);
    check("lambda i: [i // 4, i % 4]", &[14]);
}

#[test]
fn points_outside_the_shapes_and_symbolic_shapes_are_errors() {
    let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    let l = Layout::new(shape(&[14]), Some(map.clone())).unwrap();
    assert!(l.logical_at(&[4, 0]).is_err());
    assert!(l.logical_at(&[0]).is_err());
    assert!(l.unflatten(&[16]).is_err());
    assert!(l.unflatten(&[-1]).is_err());
    let mut scope = arith::Scope::new();
    let n = scope.get_or_create("n").expr();
    let l = Layout::new(vec![n], Some(map)).unwrap();
    assert!(l.logical_at(&[0, 0]).is_err());
}

#[test]
fn no_transform_stores_each_index_at_itself() {
    let l = Layout::new(shape(&[2, 3]), None).unwrap();
    assert_eq!(l.logical_at(&[1, 2]).unwrap(), Some(vec![1, 2]));
    assert_eq!(l.unflatten(&[5]).unwrap(), vec![1, 2]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn stored_points_agree_with_the_forward_map(which in 0..MAPS.len(), a in 1i64..10, b in 1i64..6, c in 1i64..4) {
        let (text, rank) = MAPS[which];
        let dims: Vec<i64> = match rank {
            1 => vec![a],
            2 => vec![a, b.min(5)],
            _ => vec![c, b.min(3), c, a],
        };
        // The reversal needs its extent.
        let dims = if text.contains("5 - 1 - j") { vec![a, 5] } else { dims };
        check(text, &dims);
    }
}
