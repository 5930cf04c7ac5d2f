//! Thread binding and storage scopes in bound inference (TVM's `NeedRelax`
//! and `InferStorageScope`): what one iteration of the attach point
//! computes, checked against running the lowered program (`te::check`:
//! equal outputs, no out-of-bounds access, how often each stage runs).
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use te::{
    compute_named, create_schedule, infer_bound, placeholder, IterVar, Schedule, StorageScope,
    Tensor, ThreadTag,
};
use tir::DataType;

/// `B = A + 1` computed at the innermost loop of `C = B * 2`, whose 64
/// rows are split into 4 blocks (`blockIdx.x`) of 16 threads
/// (`threadIdx.x`), with `B` in `scope` (inferred when `None`).
fn blocked(scope: Option<&str>) -> (Schedule, Tensor, Tensor, Tensor) {
    let a = placeholder([64], "A", DataType::Float32).unwrap();
    let b = compute_named([64], &["bi"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([64], &["ci"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (bx, tx) = s.split(&c, &c.op().axis()[0], 16).unwrap();
    s.bind(&c, &bx, &IterVar::thread_axis("blockIdx.x").unwrap())
        .unwrap();
    s.bind(&c, &tx, &IterVar::thread_axis("threadIdx.x").unwrap())
        .unwrap();
    if let Some(scope) = scope {
        s.set_scope(&b, scope).unwrap();
    }
    s.compute_at(&b, &c, &tx).unwrap();
    (s, a, b, c)
}

fn extent_of_b(scope: Option<&str>) -> i64 {
    let (s, _, b, _) = blocked(scope);
    let bounds = infer_bound(&s).unwrap();
    bounds
        .range(&b.op().axis()[0])
        .unwrap()
        .extent
        .as_int()
        .unwrap()
}

#[test]
fn storage_shared_by_the_threads_covers_all_of_them() {
    // Shared storage holds what the 16 threads of the block read; global
    // storage what all 64 threads read; local storage one thread's element.
    assert_eq!(extent_of_b(Some("shared")), 16);
    assert_eq!(extent_of_b(Some("global")), 64);
    assert_eq!(extent_of_b(Some("local")), 1);
    // Warp storage is shared along threadIdx.x only.
    assert_eq!(extent_of_b(Some("warp")), 16);
    // Without set_scope, inside threadIdx.x the scope is local (TVM's
    // InferStorageScope).
    assert_eq!(extent_of_b(None), 1);
}

#[test]
fn relaxed_producers_compute_their_region_once_per_thread_and_stay_correct() {
    // Run sequentially, every iteration computes B's whole region: 16
    // elements per thread when shared, 1 when local, always equal results.
    for (scope, runs) in [("shared", 64 * 16), ("global", 64 * 64), ("local", 64)] {
        let (s, a, b, c) = blocked(Some(scope));
        let r = te::check(&s, &[a, c], &Default::default(), 3).unwrap();
        assert!(r.is_clean(0.0), "{scope}: {r:?}");
        assert_eq!(r.stage(b.name()).unwrap().runs, runs, "{scope}");
    }
}

#[test]
fn lowering_prints_the_scope_of_each_allocation() {
    for (scope, printed) in [(Some("shared"), "shared"), (None, "local")] {
        let (s, a, _, c) = blocked(scope);
        let text = te::lower(&s, &[a, c]).unwrap().to_string();
        let want = format!("// attr [B] storage_scope = \"{printed}\"");
        assert!(text.contains(&want), "{text}");
    }
}

#[test]
fn inferred_scope_follows_the_enclosing_threads() {
    let (blk, thr) = (ThreadTag::BlockIdx(0), ThreadTag::ThreadIdx(1));
    assert_eq!(StorageScope::inferred([]), StorageScope::Global);
    assert_eq!(StorageScope::inferred([&blk]), StorageScope::Shared);
    assert_eq!(StorageScope::inferred([&blk, &thr]), StorageScope::Local);
    assert_eq!(
        StorageScope::inferred([&ThreadTag::VThread]),
        StorageScope::Local
    );
}

#[test]
fn a_loop_bound_to_an_enclosing_thread_shares_its_index() {
    // B is shared at C's threadIdx.x loop, and B's own loop is bound to the
    // same thread axis: each thread computes its own element of B (TVM's
    // cooperative pattern), so B runs 64 times, not 64 * 16.
    let a = placeholder([64], "A", DataType::Float32).unwrap();
    let b = compute_named([64], &["bi"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([64], &["ci"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let thread_x = IterVar::thread_axis("threadIdx.x").unwrap();
    let (bx, tx) = s.split(&c, &c.op().axis()[0], 16).unwrap();
    s.bind(&c, &bx, &IterVar::thread_axis("blockIdx.x").unwrap())
        .unwrap();
    s.bind(&c, &tx, &thread_x).unwrap();
    s.set_scope(&b, "shared").unwrap();
    s.compute_at(&b, &c, &tx).unwrap();
    s.bind(&b, &b.op().axis()[0], &thread_x).unwrap();
    let bounds = infer_bound(&s).unwrap();
    assert_eq!(
        bounds.range(&b.op().axis()[0]).unwrap().extent.as_int(),
        Some(16)
    );
    let r = te::check(&s, &[a, c], &Default::default(), 5).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("B").unwrap().runs, 64);
}

#[test]
fn a_thread_loop_longer_than_the_enclosing_one_is_rejected() {
    let a = placeholder([64], "A", DataType::Float32).unwrap();
    let b = compute_named([64], &["bi"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([64], &["ci"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let thread_x = IterVar::thread_axis("threadIdx.x").unwrap();
    let (bo, _) = s.split(&c, &c.op().axis()[0], 16).unwrap();
    let (_, ti) = s.split(&c, &bo, 2).unwrap();
    s.bind(&c, &ti, &thread_x).unwrap();
    // B (local) covers the 16 elements of the inner loop per iteration; its
    // loop of 16 cannot share the index of a loop of 2.
    s.compute_at(&b, &c, &ti).unwrap();
    s.bind(&b, &b.op().axis()[0], &thread_x).unwrap();
    let err = infer_bound(&s).err().expect("extent mismatch");
    assert!(err.message.contains("may exceed"), "{}", err.message);
}

#[test]
fn bad_tags_and_scopes_are_errors() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    assert!(IterVar::thread_axis("threadIdx.w").is_err());
    assert!(s.set_scope(&b, "texture").is_err());
    assert!(s.set_scope(&a, "shared").is_err());
    let k = te::reduce_axis((0, 8), "k");
    assert!(s
        .bind(&b, &k, &IterVar::thread_axis("vthread").unwrap())
        .is_err());
    assert!(s.bind(&b, &b.op().axis()[0], &k).is_err());
    // A bound loop keeps its binding: splitting it would drop it.
    let i = b.op().axis()[0].clone();
    s.bind(&b, &i, &IterVar::thread_axis("threadIdx.x").unwrap())
        .unwrap();
    let err = s.split(&b, &i, 2).unwrap_err();
    assert!(
        err.message.contains("split first, then bind"),
        "{}",
        err.message
    );
}
