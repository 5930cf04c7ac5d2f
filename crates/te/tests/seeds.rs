//! The TVM InferBound golden cases of `conformance/seeds.md` (T1-T11),
//! built with the Rust API: attach paths, regions, run counts, and a clean
//! run of the lowered program against the definitions.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{check, compute_named, create_schedule, placeholder, report, Schedule, Tensor, Value};
use tir::DataType;

fn at(t: &Tensor, i: &[Expr]) -> Value {
    t.at(i.iter().cloned())
}

/// `C = (5,16) const 5`, `D = C * 2` (seed Ex. 1-3, 5).
fn c_d() -> (Tensor, Tensor, Schedule) {
    let c = compute_named([5, 16], &["i", "j"], |_| Value::int(5), "C").unwrap();
    let d = compute_named([5, 16], &["i", "j"], |i| at(&c, i) * 2, "D").unwrap();
    let s = create_schedule(&[d.clone()]);
    (c, d, s)
}

fn region(r: &te::Report, name: &str) -> Vec<String> {
    r.stage(name)
        .unwrap()
        .region
        .iter()
        .map(|x| x.to_string())
        .collect()
}

fn clean(s: &Schedule, args: &[Tensor]) -> te::CheckReport {
    let r = check(s, args, &HashMap::new(), 42).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
    r
}

#[test]
fn t1_no_attach_computes_all_of_c() {
    let (_, d, s) = c_d();
    let r = report(&s, &[d.clone()]).unwrap();
    assert_eq!(region(&r, "C"), ["[0, 5)", "[0, 16)"]);
    assert!(r.stage("C").unwrap().attach_path.is_empty());
    assert_eq!(clean(&s, &[d]).stage("C").unwrap().runs, 80);
}

#[test]
fn t2_compute_at_inner_axis_gives_one_element() {
    let (c, d, mut s) = c_d();
    s.compute_at(&c, &d, &d.op().axis()[1]).unwrap();
    let r = report(&s, &[d.clone()]).unwrap();
    assert_eq!(region(&r, "C"), ["[i, i + 1)", "[j, j + 1)"]);
    assert_eq!(r.stage("C").unwrap().attach_path, ["j", "i"]);
    assert_eq!(
        r.stage("C").unwrap().allocation,
        [Expr::int(1), Expr::int(1)]
    );
    assert_eq!(clean(&s, &[d]).stage("C").unwrap().runs, 80);
}

#[test]
fn t3_compute_at_outer_axis_gives_one_row() {
    let (c, d, mut s) = c_d();
    s.compute_at(&c, &d, &d.op().axis()[0]).unwrap();
    let r = report(&s, &[d.clone()]).unwrap();
    assert_eq!(region(&r, "C"), ["[i, i + 1)", "[0, 16)"]);
    assert_eq!(r.stage("C").unwrap().attach_path, ["i"]);
    assert_eq!(clean(&s, &[d]).stage("C").unwrap().runs, 80);
}

#[test]
fn t4_attach_path_includes_unused_outer_loops() {
    let c = compute_named([5, 16], &["i", "j"], |_| Value::int(5), "C").unwrap();
    let d = compute_named(
        [4, 5, 16],
        &["di", "dj", "dk"],
        |i| at(&c, &i[1..]) * 2,
        "D",
    )
    .unwrap();
    let mut s = create_schedule(&[d.clone()]);
    s.compute_at(&c, &d, &d.op().axis()[2]).unwrap();
    let r = report(&s, &[d.clone()]).unwrap();
    assert_eq!(region(&r, "C"), ["[dj, dj + 1)", "[dk, dk + 1)"]);
    assert_eq!(r.stage("C").unwrap().attach_path, ["dk", "dj", "di"]);
    assert_eq!(clean(&s, &[d]).stage("C").unwrap().runs, 4 * 80);
}

#[test]
fn t5_attach_after_split() {
    let (c, d, mut s) = c_d();
    let (_jo, ji) = s.split(&d, &d.op().axis()[1], 8).unwrap();
    s.compute_at(&c, &d, &ji).unwrap();
    let r = report(&s, &[d.clone()]).unwrap();
    assert_eq!(
        r.stage("C").unwrap().attach_path,
        ["j.inner", "j.outer", "i"]
    );
    assert_eq!(
        r.stage("C").unwrap().allocation,
        [Expr::int(1), Expr::int(1)]
    );
    assert_eq!(clean(&s, &[d]).stage("C").unwrap().runs, 80);
}

/// `C`, `D`, `E` chain of the seed's "Building an Attach Path".
fn c_d_e() -> (Tensor, Tensor, Tensor, Schedule) {
    let c = compute_named([5, 16], &["ci", "cj"], |_| Value::int(5), "C").unwrap();
    let d = compute_named([5, 16], &["di", "dj"], |i| at(&c, i) * 2, "D").unwrap();
    let e = compute_named([5, 16], &["ei", "ej"], |i| at(&d, i) * 4, "E").unwrap();
    let s = create_schedule(&[e.clone()]);
    (c, d, e, s)
}

#[test]
fn t6_nested_attachments() {
    let (c, d, e, mut s) = c_d_e();
    s.compute_at(&c, &d, &d.op().axis()[1]).unwrap();
    s.compute_at(&d, &e, &e.op().axis()[1]).unwrap();
    let r = report(&s, &[e.clone()]).unwrap();
    assert_eq!(r.stage("C").unwrap().attach_path, ["dj", "di", "ej", "ei"]);
    assert_eq!(r.stage("D").unwrap().attach_path, ["ej", "ei"]);
    assert_eq!(
        r.stage("C").unwrap().allocation,
        [Expr::int(1), Expr::int(1)]
    );
    assert_eq!(
        r.stage("D").unwrap().allocation,
        [Expr::int(1), Expr::int(1)]
    );
    let k = clean(&s, &[e]);
    assert_eq!(
        (k.stage("C").unwrap().runs, k.stage("D").unwrap().runs),
        (80, 80)
    );
}

#[test]
fn t7_consumer_attached_elsewhere_relaxes_its_attach_path() {
    let (_, d, e, mut s) = c_d_e();
    s.compute_at(&d, &e, &e.op().axis()[1]).unwrap();
    let r = report(&s, &[e.clone()]).unwrap();
    assert_eq!(region(&r, "C"), ["[0, 5)", "[0, 16)"]);
    assert_eq!(region(&r, "D"), ["[ei, ei + 1)", "[ej, ej + 1)"]);
    let k = clean(&s, &[e]);
    assert_eq!(
        (k.stage("C").unwrap().runs, k.stage("D").unwrap().runs),
        (80, 80)
    );
}

/// Seed Ex. 6: `B`, `C` 4x4, C's axes fused then split by `factor`, B at
/// the outer loop.
fn fuse_split(factor: i64) -> (Tensor, Tensor, Tensor, Schedule) {
    let a = placeholder([4, 4], "A", DataType::Float32).unwrap();
    let b = compute_named([4, 4], &["bi", "bj"], |i| at(&a, i) + 2.0, "B").unwrap();
    let c = compute_named([4, 4], &["ci", "cj"], |i| at(&b, i) * 3.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let f = s.fuse(&c, &c.op().axis()[0], &c.op().axis()[1]).unwrap();
    assert_eq!(f.name(), "ci.cj.fused");
    let (xo, _) = s.split(&c, &f, factor).unwrap();
    assert_eq!(xo.name(), "ci.cj.fused.outer");
    s.compute_at(&b, &c, &xo).unwrap();
    (a, b, c, s)
}

#[test]
fn t8_fuse_then_split_gives_one_row_per_outer_iteration() {
    // Beyond the seed: TVM falls back to all of B (4x4, 64 runs).
    let (a, _, c, s) = fuse_split(4);
    let r = report(&s, &[a.clone(), c.clone()]).unwrap();
    assert_eq!(
        region(&r, "B"),
        ["[ci.cj.fused.outer, ci.cj.fused.outer + 1)", "[0, 4)"]
    );
    assert_eq!(
        r.stage("B").unwrap().allocation,
        [Expr::int(1), Expr::int(4)]
    );
    let k = clean(&s, &[a, c]);
    assert_eq!(k.stage("B").unwrap().runs, 16);
    assert_eq!(k.stage("B").unwrap().largest_region, Some(4));
}

#[test]
fn t9_fuse_then_split_by_three_gives_the_minimal_box_per_iteration() {
    let (a, b, c, s) = fuse_split(3);
    let r = report(&s, &[a.clone(), c.clone()]).unwrap();
    // The largest per-iteration box is 2 rows by 4 columns.
    assert_eq!(
        r.stage("B").unwrap().allocation,
        [Expr::int(2), Expr::int(4)]
    );
    // Per outer iteration, the region is the minimal box around the rows
    // and columns of the fused indices it covers.
    let bounds = te::infer_bound(&s).unwrap();
    let xo: Var = s.stage(&c).unwrap().leaf_iter_vars()[0].var().clone();
    let rows = bounds.range(&b.op().axis()[0]).unwrap().clone();
    let cols = bounds.range(&b.op().axis()[1]).unwrap().clone();
    for x in 0..6 {
        let ev = |e: &Expr| e.eval_with(&[(&xo, x)]).unwrap();
        let fs: Vec<i64> = (3 * x..(3 * x + 3).min(16)).collect();
        let (r0, r1) = (
            fs.iter().map(|f| f / 4).min().unwrap(),
            fs.iter().map(|f| f / 4).max().unwrap(),
        );
        let (c0, c1) = (
            fs.iter().map(|f| f % 4).min().unwrap(),
            fs.iter().map(|f| f % 4).max().unwrap(),
        );
        assert_eq!(
            (ev(&rows.min), ev(&rows.extent)),
            (r0, r1 - r0 + 1),
            "rows at xo = {x}"
        );
        assert_eq!(
            (ev(&cols.min), ev(&cols.extent)),
            (c0, c1 - c0 + 1),
            "cols at xo = {x}"
        );
    }
    let k = clean(&s, &[a, c]);
    assert_eq!(k.stage("B").unwrap().runs, 26);
    assert_eq!(k.stage("B").unwrap().largest_region, Some(8));
}

#[test]
fn t10_split_tail_has_the_remaining_extent() {
    let a = placeholder([20], "A", DataType::Float32).unwrap();
    let b = compute_named([20], &["i"], |i| at(&a, i) + 1.0, "B").unwrap();
    let c = compute_named([20], &["j"], |i| at(&b, i) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (xo, xi) = s.split(&c, &c.op().axis()[0], 16).unwrap();
    s.compute_at(&b, &c, &xo).unwrap();
    let bounds = te::infer_bound(&s).unwrap();
    let ext = &bounds.range(&xi).unwrap().extent;
    let v = xo.var();
    assert_eq!(
        (
            ext.eval_with(&[(v, 0)]).unwrap(),
            ext.eval_with(&[(v, 1)]).unwrap()
        ),
        (16, 4)
    );
    assert!(
        ext.uses_var(v),
        "the inner extent depends on the outer loop: {ext}"
    );
    let k = clean(&s, &[a, c]);
    assert_eq!(k.stage("B").unwrap().runs, 20);
    assert_eq!(k.stage("C").unwrap().runs, 20);
}

#[test]
fn t11_two_consumers_take_the_per_axis_union() {
    let a = placeholder([4, 4], "A", DataType::Float32).unwrap();
    let t = compute_named([4, 4], &["ti", "tj"], |i| at(&a, i) + 1.0, "T").unwrap();
    let p = compute_named([2, 2], &["pi", "pj"], |i| at(&t, i) * 2.0, "P").unwrap();
    let q = compute_named(
        [2, 2],
        &["qi", "qj"],
        |i| at(&t, &[&i[0] + 2, &i[1] + 2]) * 3.0,
        "Q",
    )
    .unwrap();
    let s = create_schedule(&[p.clone(), q.clone()]);
    let r = report(&s, &[a.clone(), p.clone(), q.clone()]).unwrap();
    assert_eq!(region(&r, "T"), ["[0, 4)", "[0, 4)"]);
    let k = clean(&s, &[a, p, q]);
    let tc = k.stage("T").unwrap();
    assert_eq!((tc.runs, tc.needed), (16, 8), "16 computed, 8 needed");
}
