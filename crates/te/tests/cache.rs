//! `cache_read` and `cache_write`: the cache stages TVM adds, their names,
//! their loops, bounds and lowered programs, checked by running them
//! against the definitions.
#![allow(clippy::cloned_ref_to_slice_refs)]

use proptest::prelude::*;
use te::{
    check, compute_named, create_schedule, infer_bound, lower, placeholder, reduce_axis, sum,
    Tensor,
};
use tir::DataType;

fn matmul(n: i64, m: i64, l: i64) -> (Tensor, Tensor, Tensor, te::IterVar) {
    let a = placeholder([n, l], "A", DataType::Float32).unwrap();
    let w = placeholder([l, m], "W", DataType::Float32).unwrap();
    let k = reduce_axis((0, l), "k");
    let c = compute_named(
        [n, m],
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
    (a, w, c, k)
}

#[test]
fn cache_read_at_a_split_loop_copies_one_tile() {
    let a = placeholder([8, 8], "A", DataType::Float32).unwrap();
    let b = compute_named([8, 8], &["i", "j"], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let aa = s.cache_read(&a, "shared", &[&b]).unwrap();
    let names: Vec<&str> = s.stages().iter().map(|st| st.name()).collect();
    assert_eq!(names, ["A", "A.shared", "B"]);
    assert_eq!(
        s.stage(&aa).unwrap().scope(),
        Some(te::StorageScope::Shared)
    );
    let (xo, _) = s.split(&b, &b.op().axis()[0], 4).unwrap();
    s.compute_at(&aa, &b, &xo).unwrap();
    let bounds = infer_bound(&s).unwrap();
    assert_eq!(
        bounds.range(&aa.op().axis()[0]).unwrap().to_string(),
        "[i.outer * 4, i.outer * 4 + 4)"
    );
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    let want = "\
produce B {
  for (i.outer, 0, 2) {
    // attr [A.shared] storage_scope = \"shared\"
    allocate A.shared[float32 * 4 * 8]
    produce A.shared {
      for (ax0, 0, 4) {
        for (ax1, 0, 8) {
          A.shared[ax0, ax1] = A[((i.outer*4) + ax0), ax1]
        }
      }
    }
    for (i.inner, 0, 4) {
      for (j, 0, 8) {
        B[((i.outer*4) + i.inner), j] = (A.shared[i.inner, j]*2.000000f)
      }
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("A.shared").unwrap().runs, 64);
    assert_eq!(r.stage("A.shared").unwrap().largest_region, Some(32));
}

#[test]
fn cache_read_redirects_only_the_readers_given() {
    let a = placeholder([6], "A", DataType::Float32).unwrap();
    let b = compute_named([6], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([6], &["i"], |i| a.at([&i[0]]) * b.at([&i[0]]), "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let al = s.cache_read(&a, "local", &[&c]).unwrap();
    assert_eq!(s.stage(&b).unwrap().op().input_tensors(), vec![a.clone()]);
    assert_eq!(
        s.stage(&c).unwrap().op().input_tensors(),
        vec![al.clone(), b.clone()]
    );
    // A second cache of A in the same scope gets TVM's `.d` name.
    let al2 = s.cache_read(&a, "local", &[&b]).unwrap();
    assert_eq!(al2.name(), "A.d.local");
    let r = check(&s, &[a, c], &Default::default(), 5).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("A.local").unwrap().runs, 6);
    assert_eq!(r.stage("A.d.local").unwrap().runs, 6);
}

#[test]
fn cache_read_of_a_tensor_a_reader_does_not_read_is_an_error() {
    let a = placeholder([6], "A", DataType::Float32).unwrap();
    let b = compute_named([6], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let c = compute_named([6], &["i"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let e = s.cache_read(&a, "shared", &[&c]).unwrap_err();
    assert!(e.message.contains("`C` does not read it"), "{}", e.message);
    let e = s.cache_read(&a, "sharde", &[&b]).unwrap_err();
    assert!(e.message.contains("sharde"), "{}", e.message);
    // Nothing changed.
    assert_eq!(s.stages().len(), 3);
}

#[test]
fn cache_write_of_a_reduction_moves_it_to_the_local_stage() {
    let (a, w, c, k) = matmul(8, 4, 6);
    let mut s = create_schedule(&[c.clone()]);
    let cl = s.cache_write(&c, "local").unwrap();
    let names: Vec<&str> = s.stages().iter().map(|st| st.name()).collect();
    assert_eq!(names, ["A", "W", "C.local", "C"]);
    assert_eq!(cl.op().reduce_axis(), &[k]);
    assert!(s.stage(&c).unwrap().op().reduce_axis().is_empty());
    let (xo, _) = s.split(&c, &c.op().axis()[0], 4).unwrap();
    s.compute_at(&cl, &c, &xo).unwrap();
    let text = lower(&s, &[a.clone(), w.clone(), c.clone()])
        .unwrap()
        .to_string();
    let want = "\
produce C {
  for (i.outer, 0, 2) {
    // attr [C.local] storage_scope = \"local\"
    allocate C.local[float32 * 4 * 4]
    produce C.local {
      for (i.c, 0, 4) {
        for (j.c, 0, 4) {
          C.local[i.c, j.c] = 0.000000f
          for (k, 0, 6) {
            C.local[i.c, j.c] = (C.local[i.c, j.c] + (A[((i.outer*4) + i.c), k]*W[k, j.c]))
          }
        }
      }
    }
    for (i.inner, 0, 4) {
      for (j, 0, 4) {
        C[((i.outer*4) + i.inner), j] = C.local[i.inner, j]
      }
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &[a, w, c], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}

#[test]
fn cache_write_after_reorder_transposes_the_cache() {
    let a = placeholder([3, 5], "A", DataType::Float32).unwrap();
    let b = compute_named([3, 5], &["i", "j"], |i| a.at([&i[0], &i[1]]) + 1.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    let (i, j) = (b.op().axis()[0].clone(), b.op().axis()[1].clone());
    s.reorder(&b, &[j, i]).unwrap();
    let bl = s.cache_write(&b, "local").unwrap();
    assert_eq!(
        bl.shape().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        ["5", "3"]
    );
    let text = lower(&s, &[a.clone(), b.clone()]).unwrap().to_string();
    assert!(
        text.contains("B.local[j.c, i.c] = (A[i.c, j.c] + 1.000000f)"),
        "{text}"
    );
    assert!(text.contains("B[i, j] = B.local[j, i]"), "{text}");
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}

#[test]
fn cache_write_of_a_placeholder_or_a_split_reduction_is_an_error() {
    let (a, _w, c, k) = matmul(4, 4, 4);
    let mut s = create_schedule(&[c.clone()]);
    assert!(s.cache_write(&a, "local").is_err());
    s.split(&c, &k, 2).unwrap();
    let e = s.cache_write(&c, "local").unwrap_err();
    assert!(
        e.message.contains("loop `k.outer` runs a reduction axis"),
        "{}",
        e.message
    );
    let e = s
        .cache_write_outputs(&[c.clone(), c.clone()], "local")
        .unwrap_err();
    assert!(
        e.message
            .contains("pass every output of the operation (1), in order"),
        "{}",
        e.message
    );
    assert_eq!(s.stages().len(), 3);
}

/// TVM relays the cache out along the loops: a split data axis gives the
/// cache one axis per loop, and a split that does not divide guards the
/// definition.
#[test]
fn cache_write_after_a_split_relays_out_the_cache() {
    let (a, w, c, _) = matmul(10, 4, 3);
    let mut s = create_schedule(&[c.clone()]);
    let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (io, ii) = s.split(&c, &i, 4).unwrap();
    s.reorder(&c, &[io, j, ii]).unwrap();
    let cl = s.cache_write(&c, "local").unwrap();
    let axes: Vec<&str> = cl.op().axis().iter().map(|a| a.name()).collect();
    assert_eq!(axes, ["i.outer.c", "j.c", "i.inner.c"]);
    let shape: Vec<String> = cl.shape().iter().map(|e| e.to_string()).collect();
    assert_eq!(shape, ["3", "4", "4"]);
    assert_eq!(s.stage(&c).unwrap().leaf_iter_vars(), c.op().axis());
    let text = lower(&s, &[a.clone(), w.clone(), c.clone()])
        .unwrap()
        .to_string();
    let want = "\
// attr [C.local] storage_scope = \"local\"
allocate C.local[float32 * 3 * 4 * 4]
produce C.local {
  for (i.outer.c, 0, 3) {
    for (j.c, 0, 4) {
      for (i.inner.c, 0, 4) {
        C.local[i.outer.c, j.c, i.inner.c] = 0.000000f
        for (k, 0, 3) {
          if ((((i.outer.c*4) + i.inner.c) <= 9)) {
            C.local[i.outer.c, j.c, i.inner.c] = (C.local[i.outer.c, j.c, i.inner.c] + (A[((i.outer.c*4) + i.inner.c), k]*W[k, j.c]))
          }
        }
      }
    }
  }
}
produce C {
  for (i, 0, 10) {
    for (j, 0, 4) {
      C[i, j] = C.local[floordiv(i, 4), j, floormod(i, 4)]
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &[a, w, c], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}

/// An element-wise stage split by a factor that does not divide: the
/// cache is zero outside the tensor.
#[test]
fn cache_write_of_an_elementwise_stage_after_an_uneven_split() {
    let a = placeholder([7], "A", DataType::Float32).unwrap();
    let b = compute_named([7], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let mut s = create_schedule(&[b.clone()]);
    s.split(&b, &b.op().axis()[0], 3).unwrap();
    let bl = s.cache_write(&b, "local").unwrap();
    let body = bl.op().as_compute().unwrap().body.to_string();
    assert!(body.contains("i.outer.c * 3 + i.inner.c < 7"), "{body}");
    let r = check(&s, &[a, b], &Default::default(), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}

/// TVM's tiled matrix multiply for GPUs (the `cache_read`/`cache_write`
/// tutorial shape): shared and local copies of both inputs, computed
/// inside the tiles of the local accumulator.
#[test]
fn tiled_matmul_with_shared_and_local_caches_runs_clean() {
    let (a, w, c, k) = matmul(16, 16, 12);
    let mut s = create_schedule(&[c.clone()]);
    let cl = s.cache_write(&c, "local").unwrap();
    let aa = s.cache_read(&a, "shared", &[&cl]).unwrap();
    let ww = s.cache_read(&w, "shared", &[&cl]).unwrap();
    let al = s.cache_read(&aa, "local", &[&cl]).unwrap();
    let wl = s.cache_read(&ww, "local", &[&cl]).unwrap();
    let names: Vec<&str> = s.stages().iter().map(|st| st.name()).collect();
    assert_eq!(
        names,
        [
            "A",
            "A.shared",
            "A.shared.local",
            "W",
            "W.shared",
            "W.shared.local",
            "C.local",
            "C"
        ]
    );
    let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
    let (bx, by, tx, ty) = s.tile(&c, &i, &j, 4, 4).unwrap();
    let _ = (bx, tx, ty);
    s.compute_at(&cl, &c, &by).unwrap();
    let (ko, ki) = s.split(&cl, &k, 4).unwrap();
    let (ic, jc) = (cl.op().axis()[0].clone(), cl.op().axis()[1].clone());
    s.reorder(&cl, &[ko.clone(), ki.clone(), ic, jc]).unwrap();
    s.compute_at(&aa, &cl, &ko).unwrap();
    s.compute_at(&ww, &cl, &ko).unwrap();
    s.compute_at(&al, &cl, &ki).unwrap();
    s.compute_at(&wl, &cl, &ki).unwrap();
    let rep = te::report(&s, &[a.clone(), w.clone(), c.clone()]).unwrap();
    let shared = rep.stages.iter().find(|st| st.name == "A.shared").unwrap();
    // InferBound: per (i.outer, j.outer, k.outer), a 4x4 tile of A.
    assert_eq!(shared.attach_path, ["k.outer", "j.outer", "i.outer"]);
    let region: Vec<String> = shared.region.iter().map(|r| r.to_string()).collect();
    assert_eq!(
        region,
        [
            "[i.outer * 4, i.outer * 4 + 4)",
            "[k.outer * 4, k.outer * 4 + 4)"
        ]
    );
    let alloc: Vec<String> = shared.allocation.iter().map(|e| e.to_string()).collect();
    assert_eq!(alloc, ["4", "4"]);
    let r = check(&s, &[a, w, c], &Default::default(), 9).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
    // Per tile of 4x4 outputs, per ko: a 4x4 tile of each input.
    assert_eq!(r.stage("A.shared").unwrap().largest_region, Some(16));
    assert_eq!(r.stage("W.shared").unwrap().largest_region, Some(16));
    assert_eq!(r.stage("A.shared.local").unwrap().largest_region, Some(4));
    assert_eq!(r.stage("C.local").unwrap().largest_region, Some(16));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Any split (and order) of a matrix product's data loops, then
    /// `cache_write`, then the copy split again with the cache computed
    /// inside it or at the root, and a `cache_read` of one input at the
    /// cache's loop: the program computes the definition.
    #[test]
    fn caches_compute_the_definition(
        n in 1i64..9,
        m in 1i64..7,
        l in 1i64..5,
        factor in 1i64..5,
        swap in any::<bool>(),
        second in 1i64..5,
        attach in any::<bool>(),
        read in any::<bool>(),
    ) {
        let (a, w, c, _) = matmul(n, m, l);
        let mut s = create_schedule(&[c.clone()]);
        let (i, j) = (c.op().axis()[0].clone(), c.op().axis()[1].clone());
        let (io, ii) = s.split(&c, &i, factor).unwrap();
        if swap {
            s.reorder(&c, &[j.clone(), ii, io]).unwrap();
        }
        let cl = s.cache_write(&c, "local").unwrap();
        let (xo, _) = s.split(&c, &i, second).unwrap();
        if attach {
            s.compute_at(&cl, &c, &xo).unwrap();
        }
        if read {
            let aa = s.cache_read(&a, "shared", &[&cl]).unwrap();
            let first = s.stage(&cl).unwrap().leaf_iter_vars()[0].clone();
            s.compute_at(&aa, &cl, &first).unwrap();
        }
        let r = check(&s, &[a, w, c], &Default::default(), 11).unwrap();
        prop_assert!(r.is_clean(1e-6), "{:?}", r);
    }
}

/// A binding of an axis that stays a loop of the copy stays, as in TVM;
/// the cache computed per block covers one block's elements.
#[test]
fn cache_write_keeps_the_binding_of_an_axis_of_the_copy() {
    let (a, w, c, _) = matmul(4, 8, 3);
    let mut s = create_schedule(&[c.clone()]);
    let bx = te::IterVar::thread_axis("blockIdx.x").unwrap();
    let i = c.op().axis()[0].clone();
    s.bind(&c, &i, &bx).unwrap();
    let cl = s.cache_write(&c, "local").unwrap();
    assert_eq!(
        s.stage(&c).unwrap().thread_tag(&i),
        Some(te::ThreadTag::BlockIdx(0))
    );
    s.compute_at(&cl, &c, &i).unwrap();
    let rep = te::report(&s, &[a.clone(), w.clone(), c.clone()]).unwrap();
    let local = rep.stages.iter().find(|st| st.name == "C.local").unwrap();
    let alloc: Vec<String> = local.allocation.iter().map(|e| e.to_string()).collect();
    assert_eq!(alloc, ["1", "8"]);
    let r = check(&s, &[a, w, c], &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}

/// A reduction by a program's reducer (`te.comm_reducer`) whose extent,
/// combiner and identity use the compute's own axis `n`, as TVM's
/// `test_loop_dep_reduce_cache_write` writes it: `cache_write` keeps the
/// reduction loop (over `n.c`) and renames `n` everywhere, and the program
/// computes what the definition says.
#[test]
fn cache_write_of_a_loop_dependent_program_reducer_keeps_its_loop() {
    let x = placeholder([10], "x", DataType::Float32).unwrap();
    let y = te::try_compute_tagged::<te::TeError>(
        [10],
        &["n"],
        |i| {
            let n = i[0].clone();
            let rv = reduce_axis((arith::Expr::int(0), n.clone()), "rv");
            let f32 = DataType::Float32;
            let lhs = te::CommReducer::operands("a", &[f32]);
            let rhs = te::CommReducer::operands("b", &[f32]);
            let as_float = te::Value::cast(f32, te::Value::index(n.clone()));
            let combined = te::Value::max(lhs[0].clone() + rhs[0].clone(), as_float.clone());
            let identity = te::Value::select(
                arith::Expr::gt(n.clone(), arith::Expr::int(1)),
                te::Value::float(0.0),
                as_float,
            );
            let reducer = te::CommReducer::new("sum", &lhs, &rhs, vec![combined], vec![identity])?;
            let mut out = reducer.reduce(vec![x.at([rv.expr()])], &[rv], None)?;
            Ok(out.remove(0))
        },
        "y",
        "",
        Default::default(),
    )
    .unwrap();
    let mut s = create_schedule(&[y.clone()]);
    s.cache_write(&y, "local").unwrap();
    let text = lower(&s, &[x.clone(), y.clone()]).unwrap().to_string();
    assert!(text.contains("for (rv, 0, n.c) {"), "{text}");
    assert!(text.contains("float32(n.c)"), "{text}");
    assert!(!text.contains("float32(n))"), "{text}");
    let report = check(&s, &[x, y], &Default::default(), 3).unwrap();
    assert!(report.is_clean(0.0), "{report:?}");
}
