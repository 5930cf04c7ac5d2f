//! Golden lowered programs for the seed's examples, in TVM's printed
//! notation (`tvm.lower(s, args, simple_mode=True)` and ScheduleOps'
//! `realize` form).
// `&[t.clone()]` mirrors TVM's `create_schedule([t])`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::Expr;
use te::{
    compute_named, create_schedule, infer_bound, lower, placeholder, schedule_ops, StorageStyle,
    Tensor, Value,
};
use tir::DataType;

fn at(t: &Tensor, i: &[Expr]) -> Value {
    t.at(i.iter().cloned())
}

#[test]
fn seed_ex6_fuse_split_computes_one_row_of_b_per_outer_iteration() {
    let a = placeholder([4, 4], "A", DataType::Float32).unwrap();
    let b = compute_named([4, 4], &["bi", "bj"], |i| at(&a, i) + 2.0, "B").unwrap();
    let c = compute_named([4, 4], &["ci", "cj"], |i| at(&b, i) * 3.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let f = s.fuse(&c, &c.op().axis()[0], &c.op().axis()[1]).unwrap();
    let (xo, _) = s.split(&c, &f, 4).unwrap();
    s.compute_at(&b, &c, &xo).unwrap();
    let text = lower(&s, &[a, c]).unwrap().to_string();
    let want = "\
produce C {
  for (ci.cj.fused.outer, 0, 4) {
    // attr [B] storage_scope = \"global\"
    allocate B[float32 * 1 * 4]
    produce B {
      for (bj, 0, 4) {
        B[0, bj] = (A[ci.cj.fused.outer, bj] + 2.000000f)
      }
    }
    for (ci.cj.fused.inner, 0, 4) {
      C[ci.cj.fused.outer, ci.cj.fused.inner] = (B[0, ci.cj.fused.inner]*3.000000f)
    }
  }
}
";
    assert_eq!(text, want);
}

#[test]
fn seed_ex4_realize_region_names_the_enclosing_loops() {
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
    let b = infer_bound(&s).unwrap();
    let text = schedule_ops(&s, &b, &[d], StorageStyle::Realize)
        .unwrap()
        .to_string();
    let want = "\
produce D {
  for (di, 0, 4) {
    for (dj, 0, 5) {
      for (dk, 0, 16) {
        realize C([dj, 1], [dk, 1]) {
          produce C {
            C[dj, dk] = 5
          }
          D[di, dj, dk] = (C[dj, dk]*2)
        }
      }
    }
  }
}
";
    assert_eq!(text, want);
}

#[test]
fn split_tail_loop_runs_the_remaining_iterations() {
    let a = placeholder([20], "A", DataType::Float32).unwrap();
    let b = compute_named([20], &["i"], |i| at(&a, i) + 1.0, "B").unwrap();
    let c = compute_named([20], &["j"], |i| at(&b, i) * 2.0, "C").unwrap();
    let mut s = create_schedule(&[c.clone()]);
    let (xo, _) = s.split(&c, &c.op().axis()[0], 16).unwrap();
    s.compute_at(&b, &c, &xo).unwrap();
    let f = lower(&s, &[a, c]).unwrap();
    let text = f.to_string();
    assert!(text.contains("allocate B[float32 * 16]"), "{text}");
    // Both B's loop and C's inner loop run 16 times, then 4 (the printed
    // form of `min(16, 20 - j.outer*16)` is arith's canonical one).
    let mut extents = Vec::new();
    f.body.visit(&mut |st| {
        if let tir::Stmt::For {
            var, min, extent, ..
        } = st
        {
            if var.name() != xo.name() {
                assert!(min.is_int(0), "loops count from 0: {text}");
                let at = |v: i64| extent.eval_with(&[(xo.var(), v)]).unwrap();
                extents.push((var.name().to_string(), at(0), at(1)));
            }
        }
    });
    extents.sort();
    assert_eq!(
        extents,
        [("i".to_string(), 16, 4), ("j.inner".to_string(), 16, 4)]
    );
}

/// TVM names every unnamed compute `compute`; lowering tells them apart as
/// `tvm.lower` does (`compute`, `compute_1`), so buffers and run counts of
/// different stages never mix.
#[test]
fn stages_that_share_a_name_get_distinct_buffers_and_counts() {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let b = compute_named([8], &["i"], |i| at(&a, i) + 1.0, "compute").unwrap();
    let c = compute_named([8], &["i"], |i| at(&b, i) * 2.0, "compute").unwrap();
    let s = create_schedule(&[c.clone()]);
    let text = lower(&s, &[a.clone(), c.clone()]).unwrap().to_string();
    assert!(
        text.contains("compute_1[i] = (compute[i]*2.000000f)"),
        "{text}"
    );
    let report = te::check(&s, &[a, c], &Default::default(), 7).unwrap();
    let runs: Vec<(String, u64)> = report
        .stages
        .iter()
        .map(|st| (st.name.clone(), st.runs))
        .collect();
    assert!(runs.contains(&("compute".to_string(), 8)), "{runs:?}");
    assert!(runs.contains(&("compute_1".to_string(), 8)), "{runs:?}");
    assert_eq!(report.out_of_bounds, 0);
}
