//! `rfactor`: TVM's factored reduction stage `B.rf`, its shape and axes,
//! the reduction that remains, and the lowered programs run against the
//! definitions.
#![allow(clippy::cloned_ref_to_slice_refs)]

use te::{check, compute_named, create_schedule, lower, placeholder, reduce_axis, sum};
use tir::DataType;

#[test]
fn rfactor_of_a_split_sum_factors_the_inner_loop() {
    let a = placeholder([1024], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 1024), "k");
    let b = compute_named([1], &["i"], |_| sum(a.at([k.expr()]), &[k.clone()]), "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (_ko, ki) = s.split(&b, &k, 16).unwrap();
    let bf = s.rfactor(&b, &ki, 0).unwrap();
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    println!("{text}");
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
    let _ = bf;
}

#[test]
fn rfactor_of_a_split_that_does_not_divide_keeps_the_axis_in_range() {
    let a = placeholder([4, 1000], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 1000), "k");
    let b = compute_named(
        [4],
        &["i"],
        |i| sum(a.at([&i[0], &k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (_ko, ki) = s.split(&b, &k, 16).unwrap();
    let bf = s.rfactor(&b, &ki, 1).unwrap();
    let rv = s.stage(&b).unwrap().op().reduce_axis()[0].clone();
    s.compute_at(&bf, &b, &rv).unwrap();
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    println!("{text}");
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
}
