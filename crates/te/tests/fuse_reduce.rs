//! Fusing a data-parallel loop with a reduction loop, as TVM allows: the
//! fused loop is a reduction loop, the initialisation runs over the whole
//! fused loop before the update (TVM's `ComputeLoopNest`), and either order
//! of the two loops can be fused. Bounds, the printed program (snapshots)
//! and runs checked against the reference evaluation of the definitions.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use std::collections::HashMap;
use te::{
    compute_named, create_schedule, infer_bound, lower, placeholder, reduce_axis, sum, IterKind,
    Schedule, Tensor,
};
use tir::DataType;

/// `C[i] = sum(A[i, k], k)` over a 4 x 3 input.
fn row_sum() -> (Tensor, Tensor) {
    let a = placeholder([4, 3], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 3), "k");
    let c = compute_named(
        [4],
        &["i"],
        |i| sum(a.at([i[0].clone(), k.expr()]), &[k.clone()]),
        "C",
    )
    .unwrap();
    (a, c)
}

fn assert_runs_as_defined(s: &Schedule, args: &[Tensor]) {
    for seed in 0..3 {
        let r = te::check(s, args, &HashMap::new(), seed).unwrap();
        assert!(r.is_clean(1e-5), "{r:?}");
    }
}

#[test]
fn a_data_loop_fused_with_a_reduction_loop_is_a_reduction_loop() {
    let (a, c) = row_sum();
    let mut s = create_schedule(&[c.clone()]);
    let (i, k) = (c.op().axis()[0].clone(), c.op().reduce_axis()[0].clone());
    let f = s.fuse(&c, &i, &k).unwrap();
    assert_eq!(f.name(), "i.k.fused");
    assert_eq!(f.kind(), IterKind::Reduce);
    let b = infer_bound(&s).unwrap();
    assert_eq!(b.range(&f).unwrap().to_string(), "[0, 12)");
    insta::assert_snapshot!(lower(&s, &[a.clone(), c.clone()]).unwrap().to_string());
    assert_runs_as_defined(&s, &[a, c]);
}

#[test]
fn a_reduction_loop_outside_a_data_loop_fuses_in_either_argument_order() {
    let (a, c) = row_sum();
    let mut s = create_schedule(&[c.clone()]);
    let (i, k) = (c.op().axis()[0].clone(), c.op().reduce_axis()[0].clone());
    s.reorder(&c, &[k.clone(), i.clone()]).unwrap();
    // `k` encloses `i`: TVM fuses them as (k, i) and keeps the name given.
    let f = s.fuse(&c, &i, &k).unwrap();
    assert_eq!(f.name(), "i.k.fused");
    let (fo, fi) = s.split(&c, &f, 5).unwrap();
    let b = infer_bound(&s).unwrap();
    assert_eq!(b.range(&fo).unwrap().to_string(), "[0, 3)");
    assert_eq!(
        b.range(&fi).unwrap().to_string(),
        "[0, min(12 - i.k.fused.outer * 5, 5))"
    );
    insta::assert_snapshot!(lower(&s, &[a.clone(), c.clone()]).unwrap().to_string());
    assert_runs_as_defined(&s, &[a, c]);
}

#[test]
fn a_producer_attached_to_a_fused_reduction_loop_is_computed_per_element() {
    let a = placeholder([2, 4, 3], "A", DataType::Float32).unwrap();
    let p = compute_named(
        [2, 4, 3],
        &["pi", "pj", "pk"],
        |x| a.at(x.to_vec()) * 2.0,
        "P",
    )
    .unwrap();
    let k = reduce_axis((0, 3), "k");
    let c = compute_named(
        [2, 4],
        &["i", "j"],
        |x| sum(p.at([x[0].clone(), x[1].clone(), k.expr()]), &[k.clone()]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (j, k) = (c.op().axis()[1].clone(), c.op().reduce_axis()[0].clone());
    let f = s.fuse(&c, &j, &k).unwrap();
    s.compute_at(&p, &c, &f).unwrap();
    let b = infer_bound(&s).unwrap();
    let axis = p.op().axis();
    assert_eq!(b.range(&axis[0]).unwrap().to_string(), "[i, i + 1)");
    assert_eq!(
        b.range(&axis[1]).unwrap().to_string(),
        "[j.k.fused // 3, j.k.fused // 3 + 1)"
    );
    assert_eq!(
        b.range(&axis[2]).unwrap().to_string(),
        "[j.k.fused % 3, j.k.fused % 3 + 1)"
    );
    insta::assert_snapshot!(lower(&s, &[a.clone(), c.clone()]).unwrap().to_string());
    assert_runs_as_defined(&s, &[a, c]);
}

#[test]
fn loops_that_are_not_adjacent_are_still_refused() {
    let a = placeholder([2, 4, 3], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 3), "k");
    let c = compute_named(
        [2, 4],
        &["i", "j"],
        |x| sum(a.at([x[0].clone(), x[1].clone(), k.expr()]), &[k.clone()]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let i = c.op().axis()[0].clone();
    let e = s.fuse(&c, &i, &k).unwrap_err();
    assert!(
        e.to_string().contains("only adjacent loops can be fused"),
        "{e}"
    );
}

/// `fuse()` of no axes (TVM's `Singleton` relation): a new outermost loop
/// of one iteration; a producer computed at it is computed once, whole,
/// and the reduction below is unchanged.
#[test]
fn fusing_no_axes_adds_an_outermost_loop_of_one_iteration() {
    let (a, c) = row_sum();
    let b2 = compute_named([4], &["i"], |i| c.at([i[0].clone()]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b2.clone()]);
    let one = s.fuse_none(&b2).unwrap();
    assert_eq!(one.name(), "singleton");
    assert_eq!(s.stage(&b2).unwrap().leaf_iter_vars()[0], one);
    assert!(s
        .stage(&b2)
        .unwrap()
        .relations()
        .iter()
        .any(|r| matches!(r, te::Relation::Singleton { .. })));
    s.compute_at(&c, &b2, &one).unwrap();
    let b = infer_bound(&s).unwrap();
    assert_eq!(b.range(&one).unwrap().to_string(), "[0, 1)");
    assert_eq!(b.range(&c.op().axis()[0]).unwrap().to_string(), "[0, 4)");
    assert_runs_as_defined(&s, &[a, b2]);
}
