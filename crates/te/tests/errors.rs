//! Bad definitions and schedules are errors with a message that says what
//! to do, never panics.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::Expr;
use te::{
    compute_named, create_schedule, infer_bound, lower, placeholder, reduce_axis, sum, ErrorKind,
    Value,
};
use tir::DataType;

#[test]
fn definitions_are_checked() {
    assert_eq!(
        placeholder([-2], "A", DataType::Float32).unwrap_err().kind,
        ErrorKind::InvalidDefinition
    );
    let a = placeholder([4, 4], "A", DataType::Float32).unwrap();
    let e = compute_named([4], &["i"], |i| a.at([&i[0]]), "B").unwrap_err();
    assert!(
        e.message.contains("reads `A` with 1 indices"),
        "{}",
        e.message
    );
    let e = compute_named([4], &["i", "j"], |_| Value::int(0), "B").unwrap_err();
    assert!(e.message.contains("axis names"), "{}", e.message);
    let k = reduce_axis((0, 4), "k");
    let e = compute_named(
        [4],
        &["i"],
        |i| sum(a.at([i[0].clone(), k.expr()]), &[k.clone()]) + 1.0,
        "B",
    )
    .unwrap_err();
    assert!(e.message.contains("whole body"), "{}", e.message);
}

#[test]
fn schedule_primitives_check_their_axes() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([8], &["i"], |i| b.at([&i[0]]) + 1.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let i = c.op().axis()[0].clone();
    assert_eq!(
        s.split(&c, &i, 0).unwrap_err().kind,
        ErrorKind::InvalidSchedule
    );
    assert!(
        s.split(&c, &b.op().axis()[0], 2).is_err(),
        "axis of another stage"
    );
    let (xo, _) = s.split(&c, &i, 2).unwrap();
    assert!(s.split(&c, &i, 2).is_err(), "no longer a loop");
    assert!(s.split(&a, &xo, 2).is_err(), "placeholders have no loops");
    assert!(s.compute_inline(&c).is_err(), "outputs cannot be inlined");
    let other = placeholder([8], "Z", DataType::Float32).unwrap();
    assert!(s.stage(&other).is_err());
}

/// As in TVM, a stage attached to a loop that is split (or fused)
/// afterwards is computed in the loop that now runs its iterations.
#[test]
fn attaching_to_a_loop_that_is_split_or_fused_afterwards_follows_it() {
    let a = placeholder([8, 4], "A", DataType::Float32).unwrap();
    let b = compute_named([8, 4], &["i", "j"], |i| a.at([&i[0], &i[1]]) + 1.0, "B").unwrap();
    let c = compute_named([8, 4], &["i", "j"], |i| b.at([&i[0], &i[1]]) + 1.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    s.compute_at(&b, &c, &i).unwrap();
    let (io, ii) = s.split(&c, &i, 2).unwrap();
    let bounds = infer_bound(&s).unwrap();
    assert_eq!(
        bounds.attach_path(1).first(),
        Some(&ii),
        "B sits in i.inner"
    );
    let r = te::check(&s, &[a.clone(), c.clone()], &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("B").unwrap().runs, 32);
    let fused = s.fuse(&c, &ii, &j).unwrap();
    let bounds = infer_bound(&s).unwrap();
    assert_eq!(bounds.attach_path(1), vec![fused, io]);
    let r = te::check(&s, &[a, c], &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}

#[test]
fn attaching_outside_a_consumer_is_an_error() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([8], &["i"], |i| b.at([&i[0]]) + 1.0, "C").unwrap();
    let d = compute_named([8], &["i"], |i| b.at([&i[0]]) + c.at([&i[0]]), "D").unwrap();
    let mut s = create_schedule(&[d.clone()]);
    // B is read by C and D but computed inside C only.
    s.compute_at(&b, &c, &c.op().axis()[0]).unwrap();
    let e = infer_bound(&s).err().unwrap();
    assert!(
        e.message.contains("does not enclose its consumer `D`"),
        "{}",
        e.message
    );
}

#[test]
fn placeholders_must_be_arguments() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let s = create_schedule(&[b.clone()]);
    let e = lower(&s, &[b]).unwrap_err();
    assert!(e.message.contains("pass it to lower"), "{}", e.message);
    let _ = Expr::int(0);
}

#[test]
fn empty_and_unit_shapes_lower_and_check() {
    for n in [0i64, 1] {
        let a = placeholder([n, 3], "A", DataType::Float32).unwrap();
        let b = compute_named([n, 3], &["i", "j"], |i| a.at([&i[0], &i[1]]) + 1.0, "B").unwrap();
        let c = compute_named([n, 3], &["i", "j"], |i| b.at([&i[0], &i[1]]) * 2.0, "C").unwrap();
        let mut s = create_schedule(&[c.clone()]);
        let (xo, _) = s.split(&c, &c.op().axis()[0], 4).unwrap();
        s.compute_at(&b, &c, &xo).unwrap();
        let r = te::check(&s, &[a, c], &Default::default(), 1).unwrap();
        assert!(r.is_clean(0.0), "{r:?}");
        assert_eq!(r.stage("B").unwrap().runs, (3 * n) as u64);
    }
}

/// An index that divides by zero when evaluated is an arithmetic error of
/// arith's kind, not a bare message.
#[test]
fn arithmetic_errors_keep_their_kind() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [4],
        &["i"],
        |i| a.at([Expr::floor_div(Expr::int(3), i[0].clone())]),
        "B",
    )
    .unwrap();
    let mut inputs = std::collections::HashMap::new();
    inputs.insert(a.op().id(), tir::Tensor::zeros(&[4]));
    let sizes = std::collections::HashMap::new();
    let mut reference = te::Reference::new(&inputs, &sizes);
    let e = reference.element(b.op(), &[0]).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::Arith(arith::ErrorKind::DivisionByZero),
        "{e}"
    );
    assert_eq!(e.kind.name(), "division_by_zero");
    assert!(reference.element(b.op(), &[1]).is_ok());
}
