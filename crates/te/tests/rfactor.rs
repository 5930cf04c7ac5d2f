//! `rfactor`: TVM's factored reduction stage `B.rf`, its shape and axes,
//! the reduction that remains, and the lowered programs run against the
//! definitions.
#![allow(clippy::cloned_ref_to_slice_refs)]

use proptest::prelude::*;
use te::{check, compute_named, create_schedule, lower, placeholder, reduce_axis, sum, IterKind};
use tir::DataType;

/// TVM's `test_rfactor` shape: a sum over 1024 split by 16, factored on
/// the inner loop.
#[test]
fn rfactor_of_a_split_sum_factors_the_inner_loop() {
    let a = placeholder([1024], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 1024), "k");
    let b = compute_named([1], &["i"], |_| sum(a.at([k.expr()]), &[k.clone()]), "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (ko, ki) = s.split(&b, &k, 16).unwrap();
    let bf = s.rfactor(&b, &ki, 0).unwrap();
    let shape: Vec<String> = bf.shape().iter().map(|e| e.to_string()).collect();
    assert_eq!(shape, ["16", "1"]);
    // The factored loop is a data axis of B.rf with the same variable; the
    // other loop of `k` is its reduction.
    assert_eq!(bf.op().axis()[0].var(), ki.var());
    assert_eq!(bf.op().axis()[0].kind(), IterKind::DataPar);
    assert_eq!(bf.op().reduce_axis()[0].var(), ko.var());
    let b_op = s.stage(&b).unwrap().op().clone();
    assert_eq!(b_op.axis()[0].name(), "ax0");
    assert_eq!(b_op.reduce_axis()[0].name(), "k.inner.v");
    assert_eq!(s.stage(&b).unwrap().leaf_iter_vars().len(), 2);
    let names: Vec<&str> = s.stages().iter().map(|st| st.name()).collect();
    assert_eq!(names, ["A", "B.rf", "B"]);
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    let want = "\
// attr [B.rf] storage_scope = \"global\"
allocate B.rf[float32 * 16 * 1]
produce B.rf {
  for (k.inner, 0, 16) {
    B.rf[k.inner, 0] = 0.000000f
    for (k.outer, 0, 64) {
      B.rf[k.inner, 0] = (B.rf[k.inner, 0] + A[((k.outer*16) + k.inner)])
    }
  }
}
produce B {
  B[0] = 0.000000f
  for (k.inner.v, 0, 16) {
    B[0] = (B[0] + B.rf[k.inner.v, 0])
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
    assert_eq!(r.stage("B.rf").unwrap().runs, 1024);
    assert_eq!(r.stage("B").unwrap().runs, 16);
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
    let bf = s.rfactor(&b, &ki, -1).unwrap();
    let shape: Vec<String> = bf.shape().iter().map(|e| e.to_string()).collect();
    assert_eq!(shape, ["4", "16"]);
    let rv = s.stage(&b).unwrap().op().reduce_axis()[0].clone();
    s.compute_at(&bf, &b, &rv).unwrap();
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    let want = "\
produce B {
  for (ax0, 0, 4) {
    B[ax0] = 0.000000f
    for (k.inner.v, 0, 16) {
      // attr [B.rf] storage_scope = \"global\"
      allocate B.rf[float32 * 1 * 1]
      produce B.rf {
        B.rf[0, 0] = 0.000000f
        for (k.outer, 0, 63) {
          if ((((k.outer*16) + k.inner.v) <= 999)) {
            B.rf[0, 0] = (B.rf[0, 0] + A[ax0, ((k.outer*16) + k.inner.v)])
          }
        }
      }
      B[ax0] = (B[ax0] + B.rf[0, 0])
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
    assert_eq!(r.stage("B.rf").unwrap().runs, 4000);
}

/// TVM's `test_rfactor` with two reduction axes: factoring one root axis
/// keeps the other as the factored stage's reduction.
#[test]
fn rfactor_of_one_of_two_reduction_axes() {
    let a = placeholder([3, 5, 4], "A", DataType::Float32).unwrap();
    let k1 = reduce_axis((0, 5), "k1");
    let k2 = reduce_axis((0, 4), "k2");
    let b = compute_named(
        [3],
        &["i"],
        |i| {
            sum(
                a.at([&i[0], &k1.expr(), &k2.expr()]),
                &[k1.clone(), k2.clone()],
            )
        },
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let bf = s.rfactor(&b, &k1, 0).unwrap();
    let shape: Vec<String> = bf.shape().iter().map(|e| e.to_string()).collect();
    assert_eq!(shape, ["5", "3"]);
    assert_eq!(bf.op().reduce_axis(), &[k2]);
    assert_eq!(s.stage(&b).unwrap().all_iter_vars().len(), 2);
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
}

#[test]
fn rfactor_of_a_fused_reduction_loop_factors_both_axes() {
    let a = placeholder([2, 3, 4], "A", DataType::Float32).unwrap();
    let k1 = reduce_axis((0, 3), "k1");
    let k2 = reduce_axis((1, 5), "k2");
    let b = compute_named(
        [2],
        &["i"],
        |i| {
            sum(
                a.at([i[0].clone(), k1.expr(), k2.expr() - 1]),
                &[k1.clone(), k2.clone()],
            )
        },
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let f = s.fuse(&b, &k1, &k2).unwrap();
    let (_fo, fi) = s.split(&b, &f, 5).unwrap();
    let bf = s.rfactor(&b, &fi, 1).unwrap();
    assert_eq!(bf.op().reduce_axis()[0].name(), "k1.k2.fused.outer");
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
}

#[test]
fn rfactor_errors_say_what_to_factor() {
    let a = placeholder([4, 8], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 8), "k");
    let b = compute_named(
        [4],
        &["i"],
        |i| sum(a.at([&i[0], &k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let c = compute_named([4], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let i = b.op().axis()[0].clone();
    let e = s.rfactor(&b, &i, 0).unwrap_err();
    assert!(e.message.contains("only a reduction loop"), "{}", e.message);
    let e = s.rfactor(&c, &k, 0).unwrap_err();
    assert!(e.message.contains("is not a reduction"), "{}", e.message);
    let e = s.rfactor(&b, &k, 2).unwrap_err();
    assert!(
        e.message.contains("factor_axis 2 is out of range"),
        "{}",
        e.message
    );
    let f = s.fuse(&b, &i, &k).unwrap();
    let e = s.rfactor(&b, &f, 0).unwrap_err();
    assert!(e.message.contains("data axis `i`"), "{}", e.message);
    assert_eq!(s.stages().len(), 3);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any split of a reduction, factored on either loop at either
    /// position, computed at the root or inside the remaining reduction,
    /// computes the sum of the definition.
    #[test]
    fn rfactor_computes_the_definition(
        rows in 1i64..4,
        n in 1i64..40,
        factor in 1i64..9,
        inner in any::<bool>(),
        factor_axis in -2i64..2,
        attach in any::<bool>(),
    ) {
        let a = placeholder([rows, n], "A", DataType::Float32).unwrap();
        let k = reduce_axis((0, n), "k");
        let b = compute_named([rows], &["i"], |i| sum(a.at([&i[0], &k.expr()]), &[k.clone()]), "B").unwrap();
        let c = compute_named([rows], &["i"], |i| b.at([&i[0]]) + 1.0, "C").unwrap();
        let mut s = create_schedule(&[c.clone()]);
        let (ko, ki) = s.split(&b, &k, factor).unwrap();
        let bf = s.rfactor(&b, if inner { &ki } else { &ko }, factor_axis).unwrap();
        if attach {
            let rv = s.stage(&b).unwrap().op().reduce_axis()[0].clone();
            s.compute_at(&bf, &b, &rv).unwrap();
        }
        let r = check(&s, &[a, c], &Default::default(), 7).unwrap();
        prop_assert!(r.is_clean(1e-5), "{:?}", r);
        prop_assert_eq!(r.stage("B.rf").unwrap().runs, (rows * n) as u64);
    }
}

/// TVM's `test_rfactor` with a symbolic size: the factored stage reduces
/// over `ceildiv(n, 4)` with the axis kept below `n`.
#[test]
fn rfactor_of_a_symbolic_reduction() {
    let n = te::var("n");
    let a = placeholder([n.expr()], "A", DataType::Float32).unwrap();
    let k = reduce_axis((arith::Expr::int(0), n.expr()), "k");
    let b = compute_named([1], &["i"], |_| sum(a.at([k.expr()]), &[k.clone()]), "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (ko, ki) = s.split(&b, &k, 4).unwrap();
    let bf = s.rfactor(&b, &ki, 0).unwrap();
    let ko_dom = bf.op().reduce_axis()[0].dom().unwrap().to_string();
    assert_eq!(bf.op().reduce_axis()[0].var(), ko.var());
    assert_eq!(ko_dom, "[0, ceildiv(n, 4))");
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert!(
        text.contains(
            "for (k.outer, 0, ceildiv(n, 4)) {\n      if ((((k.outer*4) + k.inner) < n)) {"
        ),
        "{text}"
    );
    for size in [0, 1, 7, 8, 13] {
        let sizes = std::collections::HashMap::from([(n.clone(), size)]);
        let r = check(&s, &[a.clone(), b.clone()], &sizes, 3).unwrap();
        assert!(r.is_clean(1e-5), "n = {size}: {r:?}");
    }
}

/// TVM's cross-thread reduction schedule: the remaining reduction bound to
/// `threadIdx.x`, the factored stage computed per thread.
#[test]
fn rfactor_with_the_remaining_reduction_bound_to_threads() {
    let a = placeholder([8, 64], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 64), "k");
    let b = compute_named(
        [8],
        &["i"],
        |i| sum(a.at([&i[0], &k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (_ko, ki) = s.split(&b, &k, 16).unwrap();
    let bf = s.rfactor(&b, &ki, 0).unwrap();
    let b_op = s.stage(&b).unwrap().op().clone();
    let tx = te::IterVar::thread_axis("threadIdx.x").unwrap();
    let bx = te::IterVar::thread_axis("blockIdx.x").unwrap();
    s.bind(&b, &b_op.reduce_axis()[0], &tx).unwrap();
    s.bind(&b, &b_op.axis()[0], &bx).unwrap();
    s.compute_at(&bf, &b, &b_op.reduce_axis()[0]).unwrap();
    let rep = te::report(&s, &[a.clone(), b.clone()]).unwrap();
    let rf = rep.stages.iter().find(|st| st.name == "B.rf").unwrap();
    assert_eq!(rf.attach_path, ["k.inner.v", "ax0"]);
    let alloc: Vec<String> = rf.allocation.iter().map(|e| e.to_string()).collect();
    assert_eq!(alloc, ["1", "1"]);
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
    assert_eq!(r.stage("B.rf").unwrap().runs, 512);
}

/// TVM's `test_rfactor` (tests/python/te/test_te_schedule.py), with its
/// shapes and assertions; the programs also run at `n = 5`.
#[test]
fn tvm_test_rfactor() {
    let n = te::var("n");
    let k1 = reduce_axis((arith::Expr::int(0), n.expr()), "k1");
    let k2 = reduce_axis((arith::Expr::int(0), n.expr()), "k2");
    let a = placeholder([n.expr(), n.expr(), n.expr()], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [n.expr()],
        &["i"],
        |i| {
            sum(
                a.at([i[0].clone(), k1.expr(), k2.expr()]),
                &[k1.clone(), k2.clone()],
            )
        },
        "B",
    )
    .unwrap();
    let sizes = std::collections::HashMap::from([(n.clone(), 5)]);
    let shape =
        |t: &te::Tensor| -> Vec<String> { t.shape().iter().map(|e| e.to_string()).collect() };
    // Normal schedule.
    let mut s = create_schedule(&[b.clone()]);
    let bf = s.rfactor(&b, &k1, 0).unwrap();
    assert_eq!(shape(&bf), ["n", "n"]);
    assert_eq!(bf.op().reduce_axis(), &[k2.clone()]);
    let b_op = s.stage(&b).unwrap().op().clone();
    assert_eq!(b_op.reduce_axis()[0].dom().unwrap().extent.to_string(), "n");
    assert_eq!(s.stage(&b).unwrap().all_iter_vars().len(), 2);
    let r = check(&s, &[a.clone(), b.clone()], &sizes, 1).unwrap();
    assert!(r.is_clean(1e-5), "{r:?}");
    // With splits, factor_axis 0 and 1.
    for factor_axis in [0, 1] {
        let mut s = create_schedule(&[b.clone()]);
        let (ko, ki) = s.split(&b, &k1, 4).unwrap();
        s.split(&b, &b.op().axis()[0], 8).unwrap();
        let bf = s.rfactor(&b, &ki, factor_axis).unwrap();
        let want = if factor_axis == 0 {
            ["4", "n"]
        } else {
            ["n", "4"]
        };
        assert_eq!(shape(&bf), want);
        assert_eq!(bf.op().reduce_axis()[0], k2);
        assert_eq!(bf.op().reduce_axis()[1].var(), ko.var());
        let b_op = s.stage(&b).unwrap().op().clone();
        assert_eq!(b_op.reduce_axis()[0].dom().unwrap().extent.to_string(), "4");
        let r = check(&s, &[a.clone(), b.clone()], &sizes, 1).unwrap();
        assert!(r.is_clean(1e-5), "{r:?}");
    }
}
