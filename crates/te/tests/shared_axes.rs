//! A reduce axis given to two computes: each stage lowers with its own
//! loops over it (a split in one stage leaves the other's plain loop), as
//! TVM keeps the relations of each stage apart. The lowering checks that
//! every variable it uses is bound (`tir::verify_bound_vars`, run on every
//! lowering in debug builds); runs compare with the definitions.
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use proptest::prelude::*;
use std::collections::HashMap;
use te::{
    compute_named, create_schedule, lower, placeholder, reduce_axis, sum, IterVar, Schedule, Tensor,
};
use tir::DataType;

/// `B[i] = sum(A[i, k])` and `D[i] = sum(A[i, k] * 2)` over one `k` in
/// `[lo, lo + extent)`, scheduled together (D first, as
/// `create_schedule([D.op, B.op])`).
fn two_sums(lo: i64, extent: i64) -> (Tensor, Tensor, Tensor, IterVar, Schedule) {
    let a = placeholder([4, lo + extent], "A", DataType::Float32).unwrap();
    let k = reduce_axis((lo, lo + extent), "k");
    let b = compute_named(
        [4],
        &["i"],
        |i| sum(a.at([i[0].clone(), k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let d = compute_named(
        [4],
        &["i"],
        |i| sum(a.at([i[0].clone(), k.expr()]) * 2.0, &[k.clone()]),
        "D",
    )
    .unwrap();
    let s = create_schedule(&[d.clone(), b.clone()]);
    (a, b, d, k, s)
}

/// The text of the `produce name` block of a printed program.
fn produce_block<'t>(text: &'t str, name: &str) -> &'t str {
    let start = text
        .find(&format!("produce {name} {{"))
        .expect("the stage is produced");
    let rest = &text[start..];
    let end = rest.find("\n}").map_or(rest.len(), |e| e + 2);
    &rest[..end]
}

fn assert_runs_as_defined(s: &Schedule, args: &[Tensor]) {
    for seed in 0..2 {
        let r = te::check(s, args, &HashMap::new(), seed).unwrap();
        assert!(r.is_clean(1e-4), "{r:?}");
    }
}

#[test]
fn a_split_of_a_shared_reduce_axis_stays_in_its_stage() {
    let (a, b, d, k, mut s) = two_sums(0, 8);
    assert_eq!(&b.op().reduce_axis()[0], &k);
    s.split(&b, &b.op().reduce_axis()[0], 3).unwrap();
    let text = lower(&s, &[a.clone(), b.clone(), d.clone()])
        .unwrap()
        .to_string();
    let d_text = produce_block(&text, "D");
    assert!(!d_text.contains("k.outer"), "{text}");
    assert!(d_text.contains("for (k, 0, 8)"), "{text}");
    assert!(d_text.contains("A[i, k]"), "{text}");
    let b_text = produce_block(&text, "B");
    assert!(b_text.contains("A[i, ((k.outer*3) + k.inner)]"), "{text}");
    assert_runs_as_defined(&s, &[a, b, d]);
}

#[test]
fn a_shared_reduce_axis_split_differently_in_each_stage() {
    let (a, b, d, k, mut s) = two_sums(0, 8);
    s.split(&b, &k, 3).unwrap();
    s.split(&d, &k, 4).unwrap();
    let text = lower(&s, &[a.clone(), b.clone(), d.clone()])
        .unwrap()
        .to_string();
    assert!(
        produce_block(&text, "D").contains("((k.outer*4) + k.inner)"),
        "{text}"
    );
    assert!(
        produce_block(&text, "B").contains("((k.outer*3) + k.inner)"),
        "{text}"
    );
    assert_runs_as_defined(&s, &[a, b, d]);
}

#[test]
fn a_shared_reduce_axis_not_starting_at_zero_gets_a_loop_per_stage() {
    // Both loops count from 0 with `k + 1` in the body: each stage's loop
    // variable is its own.
    let (a, b, d, _, s) = two_sums(1, 7);
    let f = lower(&s, &[a.clone(), b.clone(), d.clone()]).unwrap();
    let text = f.to_string();
    assert_eq!(text.matches("for (k, 0, 7)").count(), 2, "{text}");
    assert!(tir::verify_bound_vars(&f, &|_| false).is_ok());
    assert_runs_as_defined(&s, &[a, b, d]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any split of the shared axis in either stage, with D computed at the
    /// root or at B's data loop: the lowering binds every variable it uses
    /// and computes what the definitions say.
    #[test]
    fn shared_reduce_axes_lower_per_stage(
        lo in 0i64..3,
        extent in 1i64..9,
        split_b in proptest::option::of(1i64..5),
        split_d in proptest::option::of(1i64..5),
        nest_d_in_b in any::<bool>(),
    ) {
        let (a, b, d, k, mut s) = two_sums(lo, extent);
        if let Some(f) = split_b {
            s.split(&b, &k, f).unwrap();
        }
        if let Some(f) = split_d {
            s.split(&d, &k, f).unwrap();
        }
        // D is an output, so it is only attached when B is its own root.
        let args = [a.clone(), b.clone(), d.clone()];
        let f = lower(&s, &args).unwrap();
        // Every size is a constant: no variable is free.
        let free = |_: &arith::Var| false;
        prop_assert!(tir::verify_bound_vars(&f, &free).is_ok(), "{}", f);
        if nest_d_in_b {
            // A third stage reading both, with D's loops inside it.
            let e = compute_named([4], &["j"], |i| b.at([&i[0]]) + d.at([&i[0]]), "E").unwrap();
            let mut s2 = create_schedule(&[e.clone()]);
            if let Some(f) = split_b {
                s2.split(&b, &k, f).unwrap();
            }
            if let Some(f) = split_d {
                s2.split(&d, &k, f).unwrap();
            }
            s2.compute_at(&d, &e, &e.op().axis()[0]).unwrap();
            s2.compute_at(&b, &e, &e.op().axis()[0]).unwrap();
            let args2 = [a.clone(), e.clone()];
            let f2 = lower(&s2, &args2).unwrap();
            prop_assert!(tir::verify_bound_vars(&f2, &free).is_ok(), "{}", f2);
            assert_runs_as_defined(&s2, &args2);
        }
        assert_runs_as_defined(&s, &args);
    }
}
