//! `cache_read` and `cache_write`: the cache stages TVM adds, their names,
//! their loops, bounds and lowered programs, checked by running them.
#![allow(clippy::cloned_ref_to_slice_refs)]

use te::{
    check, compute_named, create_schedule, infer_bound, lower, placeholder, reduce_axis, sum,
};
use tir::DataType;

#[test]
fn cache_read_at_a_split_loop_copies_one_tile() {
    let a = placeholder([8, 8], "A", DataType::Float32).unwrap();
    let b = compute_named([8, 8], &["i", "j"], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let aa = s.cache_read(&a, "shared", &[&b]).unwrap();
    let (xo, _) = s.split(&b, &b.op().axis()[0], 4).unwrap();
    s.compute_at(&aa, &b, &xo).unwrap();
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    println!("{text}");
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("A.shared").unwrap().runs, 64);
}

#[test]
fn cache_write_of_a_reduction_moves_it_to_the_local_stage() {
    let a = placeholder([8, 6], "A", DataType::Float32).unwrap();
    let w = placeholder([6, 4], "W", DataType::Float32).unwrap();
    let k = reduce_axis((0, 6), "k");
    let c = compute_named(
        [8, 4],
        &["i", "j"],
        |i| {
            sum(
                a.at([&i[0], &k.expr()]) * w.at([&k.expr(), &i[1]]),
                &[k.clone()],
            )
        },
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let cl = s.cache_write(&c, "local").unwrap();
    let (xo, _) = s.split(&c, &c.op().axis()[0], 4).unwrap();
    s.compute_at(&cl, &c, &xo).unwrap();
    let b = infer_bound(&s).unwrap();
    println!("{:?}", b.range(&cl.op().axis()[0]));
    let text = lower(&s, &[a.clone(), w.clone(), c.clone()])
        .unwrap()
        .to_string();
    println!("{text}");
    let r = check(&s, &[a, w, c], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}
