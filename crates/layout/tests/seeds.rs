//! The buffer-layout cases of seed 001 (L1-L8 of `conformance/seeds.md`).

mod common;

use arith::{Expr, Scope};
use common::{eval_expr, shape};
use layout::{for_each_point, IndexMap, Layout};

fn symbolic(names: &[&str]) -> (Vec<Expr>, Scope) {
    let mut scope = Scope::new();
    let dims = names
        .iter()
        .map(|n| scope.get_or_create(n).expr())
        .collect();
    (dims, scope)
}

fn strings(v: &[Expr]) -> Vec<String> {
    v.iter().map(|e| e.to_string()).collect()
}

#[test]
fn l1_no_transform_flattens_row_major() {
    let l = Layout::new(shape(&[2, 3]), None).unwrap();
    assert_eq!(l.physical_shape(), &shape(&[6])[..]);
    assert_eq!(l.physical_point(&[10, 15]).unwrap(), vec![45]);
    assert_eq!(l.physical_point(&[20, 23]).unwrap(), vec![83]);
}

#[test]
fn l2_transpose_then_flatten() {
    let map = IndexMap::parse("lambda i,j: [j,i]").unwrap();
    let l = Layout::new(shape(&[2, 3]), Some(map)).unwrap();
    assert_eq!(l.transformed_shape(), &shape(&[3, 2])[..]);
    assert_eq!(
        l.transformed_index(&shape(&[10, 15])).unwrap(),
        shape(&[15, 10])
    );
    assert_eq!(
        l.transformed_index(&shape(&[20, 23])).unwrap(),
        shape(&[23, 20])
    );
    assert_eq!(l.physical_shape(), &shape(&[6])[..]);
    assert_eq!(l.physical_point(&[10, 15]).unwrap(), vec![40]);
    assert_eq!(l.physical_point(&[20, 23]).unwrap(), vec![66]);
}

#[test]
fn l3_nhwc_to_nchwc() {
    let map = IndexMap::parse("lambda n,h,w,c: [n, c//4, h, w, c%4]").unwrap();
    let l = Layout::new(shape(&[16, 64, 64, 128]), Some(map)).unwrap();
    assert_eq!(l.transformed_shape(), &shape(&[16, 32, 64, 64, 4])[..]);
    assert_eq!(
        l.transformed_index(&shape(&[11, 37, 23, 101])).unwrap(),
        shape(&[11, 25, 37, 23, 1])
    );
    assert_eq!(l.physical_shape(), &shape(&[8388608])[..]);
    assert_eq!(l.physical_point(&[11, 37, 23, 101]).unwrap(), vec![6186333]);
    assert!(l.is_bijective());
}

#[test]
fn l4_nhwc_to_nchwc_texture() {
    let map = IndexMap::parse("lambda n,h,w,c: [n, c//4, h, te.AXIS_SEPARATOR, w, c%4]").unwrap();
    let l = Layout::new(shape(&[16, 64, 64, 128]), Some(map)).unwrap();
    assert_eq!(l.physical_shape(), &shape(&[32768, 256])[..]);
    assert_eq!(
        l.physical_point(&[11, 37, 23, 101]).unwrap(),
        vec![24165, 93]
    );
}

fn symbolic_layout(text: &str) -> Layout {
    let (dims, scope) = symbolic(&["M", "N", "P", "Q"]);
    let map = IndexMap::parse_with(text, &scope).unwrap();
    Layout::new(dims, Some(map)).unwrap()
}

#[test]
fn l5_symbolic_identity_is_one_flat_axis() {
    let l = symbolic_layout("lambda m,n,p,q: [m,n,p,q]");
    assert_eq!(strings(l.physical_shape()), ["M * N * P * Q"]);
    assert!(l.is_bijective());
}

#[test]
fn l6_one_separator() {
    let l = symbolic_layout("lambda m,n,p,q: [m, n, te.AXIS_SEPARATOR, p, q]");
    assert_eq!(strings(l.physical_shape()), ["M * N", "P * Q"]);
}

#[test]
fn l7_two_separators() {
    let l = symbolic_layout("lambda m,n,p,q: [m, te.AXIS_SEPARATOR, n, p, te.AXIS_SEPARATOR, q]");
    assert_eq!(strings(l.physical_shape()), ["M", "N * P", "Q"]);
}

#[test]
fn l8_split_and_reorder_with_padding() {
    let l = symbolic_layout("lambda m,n,p,q: [m, q//4, n, te.AXIS_SEPARATOR, p, q%4]");
    assert_eq!(
        strings(l.physical_shape()),
        ["M * ceildiv(Q, 4) * N", "P * 4"]
    );
    // Not surjective when 4 does not divide Q: the predicate is true exactly
    // on the transformed points no logical index reaches.
    let pred = l.padding_predicate().expect("a padding predicate").clone();
    let inv = l.inverse().unwrap().clone();
    let vars = inv.initial_indices().to_vec();
    for q in 1..=9 {
        let dims = [2, 2, 1, q];
        let concrete = IndexMap::parse("lambda m,n,p,q: [m, q//4, n, p, q%4]").unwrap();
        let tshape: Vec<i64> = vec![2, (q + 3) / 4, 2, 1, 4];
        let mut reached = std::collections::HashSet::new();
        for_each_point(&dims, |x| {
            reached.insert(concrete.map_point(x).unwrap());
        });
        let mut unreached = 0;
        for_each_point(&tshape, |t| {
            let p = eval_expr(&pred, &vars, t, &[("M", 2), ("N", 2), ("P", 1), ("Q", q)]);
            assert_eq!(p != 0, !reached.contains(t), "Q = {q}, t = {t:?}");
            unreached += usize::from(p != 0);
        });
        assert_eq!(unreached == 0, q % 4 == 0);
    }
}

#[test]
fn non_injective_map_names_two_colliding_indices() {
    let map = IndexMap::parse("lambda i, j: [i + j]").unwrap();
    let err = Layout::new(shape(&[4, 4]), Some(map)).unwrap_err();
    assert_eq!(err.kind, layout::ErrorKind::NotInjective);
    assert!(
        err.message.contains("[0, 1] and [1, 0] both map to [1]"),
        "{}",
        err.message
    );
    assert_eq!(err.span, Some(13..20));
}
