//! `te.scan`: bounds, lowering and runs of scans (TVM's scan tutorial,
//! `test_schedule_scan` and `test_bound_scan`).

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{compute_named, create_schedule, lower, placeholder, scan, Schedule, Tensor};
use tir::DataType;

struct Cumsum {
    x: Tensor,
    init: Tensor,
    update: Tensor,
    scan: Tensor,
}

/// The tutorial's cumulative sum, `s_state[t, i] = s_state[t - 1, i] +
/// X[t, i]`; `reverse` reads the previous row backwards instead
/// (`s_state[t - 1, n - 1 - i]`), so the spatial axis is no fix point.
fn cumsum(m: Expr, n: Expr, reverse: bool) -> Cumsum {
    let x = placeholder([m.clone(), n.clone()], "X", DataType::Float32).unwrap();
    let state = placeholder([m.clone(), n.clone()], "s_state", DataType::Float32).unwrap();
    let init = compute_named(
        [Expr::int(1), n.clone()],
        &["_", "i"],
        |i| x.at([Expr::int(0), i[1].clone()]),
        "s_init",
    )
    .unwrap();
    let last = n.clone() - 1;
    let update = compute_named(
        [m, n],
        &["t", "i"],
        |i| {
            let col = if reverse {
                last.clone() - i[1].clone()
            } else {
                i[1].clone()
            };
            state.at([i[0].clone() - 1, col]) + x.at([&i[0], &i[1]])
        },
        "s_update",
    )
    .unwrap();
    let s_scan = scan(&init, &update, &state, std::slice::from_ref(&x), "scan").unwrap();
    Cumsum {
        x,
        init,
        update,
        scan: s_scan,
    }
}

/// Every stage's iteration variables with their ranges, one line each.
fn ranges(s: &Schedule, args: &[Tensor]) -> String {
    let r = te::report(s, args).unwrap();
    let mut out = String::new();
    for st in &r.stages {
        for iv in &st.iter_vars {
            let leaf = if iv.leaf { "" } else { " (not a loop)" };
            out += &format!(
                "{}: {} [{}, +{}){leaf}\n",
                st.name, iv.name, iv.min, iv.extent
            );
        }
    }
    out
}

fn sizes(pairs: &[(&Var, i64)]) -> HashMap<Var, i64> {
    pairs.iter().map(|(v, x)| ((*v).clone(), *x)).collect()
}

#[test]
fn the_tutorial_scan_lowers_to_the_init_then_the_scan_loop_as_tvm_prints_it() {
    let (m, n) = (Var::new("m"), Var::new("n"));
    let c = cumsum(m.expr(), n.expr(), false);
    let s = create_schedule(std::slice::from_ref(&c.scan));
    let f = lower(&s, &[c.x.clone(), c.scan.clone()]).unwrap();
    assert_eq!(
        f.to_string(),
        "\
produce scan {
  for (i, 0, n) {
    scan[0, i] = X[0, i]
  }
  for (scan.idx, 0, (m - 1)) {
    for (i, 0, n) {
      scan[(scan.idx + 1), i] = (scan[scan.idx, i] + X[(scan.idx + 1), i])
    }
  }
}
"
    );
    let r = te::check(&s, &[c.x, c.scan], &sizes(&[(&m, 6), (&n, 4)]), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 24);
    assert_eq!(r.stage("s_init").unwrap().runs, 4);
    assert_eq!(r.stage("s_update").unwrap().runs, 20);
}

#[test]
fn infer_bound_of_the_tutorial_scan() {
    let (m, n) = (Var::new("m"), Var::new("n"));
    let c = cumsum(m.expr(), n.expr(), false);
    let s = create_schedule(std::slice::from_ref(&c.scan));
    // test_schedule_scan: the scan axis starts after the init's rows.
    let b = te::infer_bound(&s).unwrap();
    let axis = &te::scan_op(c.scan.op()).unwrap().scan_axis;
    assert_eq!(b.range(axis).unwrap().min, Expr::int(1));
    assert_eq!(
        ranges(&s, &[c.x, c.scan]),
        "\
s_init: _ [0, +1)
s_init: i [0, +n)
s_update: t [scan.idx, +1)
s_update: i [0, +n)
scan: scan.idx [1, +m - 1)
scan: scan.out0.i1 [0, +n) (not a loop)
"
    );
}

#[test]
fn a_concrete_scan_runs_clean_and_matches_the_cumulative_sum() {
    let c = cumsum(Expr::int(5), Expr::int(3), false);
    let s = create_schedule(std::slice::from_ref(&c.scan));
    let r = te::check(&s, &[c.x, c.scan], &HashMap::new(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 15);
    assert_eq!(r.stage("s_update").unwrap().needed, 12);
}

/// A consumer of the first three rows and two columns: the scan stops
/// after its second step, and the column axis, a fix point, is cut to the
/// two columns.
#[test]
fn a_scan_read_in_part_runs_only_the_steps_and_columns_read() {
    let c = cumsum(Expr::int(6), Expr::int(5), false);
    let out = compute_named(
        [3, 2],
        &["a", "b"],
        |i| c.scan.at([&i[0], &i[1]]) * 2.0,
        "C",
    )
    .unwrap();
    let s = create_schedule(std::slice::from_ref(&out));
    assert_eq!(
        ranges(&s, &[c.x.clone(), out.clone()]),
        "\
s_init: _ [0, +1)
s_init: i [0, +2)
s_update: t [scan.idx, +1)
s_update: i [0, +2)
scan: scan.idx [1, +2)
scan: scan.out0.i1 [0, +2) (not a loop)
C: a [0, +3)
C: b [0, +2)
"
    );
    let f = lower(&s, &[c.x.clone(), out.clone()]).unwrap();
    assert!(
        f.to_string().contains("allocate scan[float32 * 3 * 2]"),
        "{f}"
    );
    let r = te::check(&s, &[c.x, out], &HashMap::new(), 2).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("s_update").unwrap().runs, 4);
}

/// The same consumer of a scan whose step reads the previous row
/// backwards: its column axis is no fix point (two columns of a step need
/// other columns of the step before), so every column is computed.
#[test]
fn a_spatial_axis_that_is_no_fix_point_is_computed_whole() {
    let c = cumsum(Expr::int(6), Expr::int(5), true);
    let scan = te::scan_op(c.scan.op()).unwrap();
    assert_eq!(scan.fix_points(), vec![false]);
    assert_eq!(
        te::scan_op(cumsum(Expr::int(6), Expr::int(5), false).scan.op())
            .unwrap()
            .fix_points(),
        vec![true]
    );
    let out = compute_named([3, 2], &["a", "b"], |i| c.scan.at([&i[0], &i[1]]), "C").unwrap();
    let s = create_schedule(std::slice::from_ref(&out));
    let b = te::infer_bound(&s).unwrap();
    assert_eq!(
        b.range(&scan.spatial_axis[0]).unwrap().to_string(),
        "[0, 5)"
    );
    assert_eq!(b.range(&scan.scan_axis).unwrap().to_string(), "[1, 3)");
    let r = te::check(&s, &[c.x, out], &HashMap::new(), 4).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("s_update").unwrap().runs, 10);
}

/// test_bound_scan: a stage of the scan's body computed at a loop of the
/// update is computed per step and per tile of four columns.
#[test]
fn a_body_stage_at_a_split_loop_of_the_update_is_one_tile_per_step() {
    let (m, n) = (Expr::int(5), Expr::int(8));
    let x = placeholder([m.clone(), n.clone()], "X", DataType::Float32).unwrap();
    let state = placeholder([m.clone(), n.clone()], "s_state", DataType::Float32).unwrap();
    let xx = compute_named(
        [m.clone(), n.clone()],
        &["p", "q"],
        |i| x.at([&i[0], &i[1]]) * 3.0,
        "XX",
    )
    .unwrap();
    let init = compute_named(
        [Expr::int(1), n.clone()],
        &["_", "i"],
        |i| x.at([Expr::int(0), i[1].clone()]),
        "s_init",
    )
    .unwrap();
    let update = compute_named(
        [m, n],
        &["t", "i"],
        |i| state.at([i[0].clone() - 1, i[1].clone()]) + xx.at([&i[0], &i[1]]),
        "s_update",
    )
    .unwrap();
    let res = scan(&init, &update, &state, std::slice::from_ref(&x), "scan").unwrap();
    let mut s = create_schedule(std::slice::from_ref(&res));
    let (xo, _xi) = s.split(&update, &update.op().axis()[1], 4).unwrap();
    s.compute_at(&xx, &update, &xo).unwrap();
    let b = te::infer_bound(&s).unwrap();
    assert_eq!(b.range(&xx.op().axis()[1]).unwrap().extent, Expr::int(4));
    assert_eq!(b.range(&xx.op().axis()[0]).unwrap().extent, Expr::int(1));
    let f = lower(&s, &[x.clone(), res.clone()]).unwrap();
    assert_eq!(
        f.to_string(),
        "\
produce scan {
  for (i, 0, 8) {
    scan[0, i] = X[0, i]
  }
  for (scan.idx, 0, 4) {
    for (i.outer, 0, 2) {
      // attr [XX] storage_scope = \"global\"
      allocate XX[float32 * 1 * 4]
      produce XX {
        for (q, 0, 4) {
          XX[0, q] = (X[(scan.idx + 1), ((i.outer*4) + q)]*3.000000f)
        }
      }
      for (i.inner, 0, 4) {
        scan[(scan.idx + 1), ((i.outer*4) + i.inner)] = (scan[scan.idx, ((i.outer*4) + i.inner)] + XX[0, i.inner])
      }
    }
  }
}
"
    );
    let r = te::check(&s, &[x, res], &HashMap::new(), 5).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("XX").unwrap().runs, 32);
}

#[test]
fn the_init_and_update_of_a_scan_are_placed_by_the_scan() {
    let c = cumsum(Expr::int(4), Expr::int(3), false);
    let mut s = create_schedule(std::slice::from_ref(&c.scan));
    let axis = te::scan_op(c.scan.op()).unwrap().scan_axis.clone();
    let e = s.compute_at(&c.update, &c.scan, &axis).unwrap_err();
    assert!(
        e.message.contains("it is the update of scan `scan`"),
        "{}",
        e.message
    );
    let e = s.compute_inline(&c.init).unwrap_err();
    assert!(
        e.message.contains("it is the init of scan `scan`"),
        "{}",
        e.message
    );
    // compute_root keeps the update in the scan's loop.
    s.compute_root(&c.update).unwrap();
    assert!(lower(&s, &[c.x.clone(), c.scan.clone()]).is_ok());
    assert_eq!(s.default_args(), vec![c.x, c.scan]);
}

#[test]
fn scans_with_mismatched_parts_are_refused_with_what_to_fix() {
    let x = placeholder([4, 3], "X", DataType::Float32).unwrap();
    let state = placeholder([4, 3], "s_state", DataType::Float32).unwrap();
    let init = compute_named(
        [1, 3],
        &["_", "i"],
        |i| x.at([Expr::int(0), i[1].clone()]),
        "s_init",
    )
    .unwrap();
    let narrow = compute_named(
        [4, 2],
        &["t", "i"],
        |i| state.at([i[0].clone() - 1, i[1].clone()]),
        "u",
    )
    .unwrap();
    let e = scan(&init, &narrow, &state, &[], "scan").unwrap_err();
    assert!(
        e.message.contains("dimension 1 of `update` (`u`) is `2`"),
        "{}",
        e.message
    );
    let update = compute_named(
        [4, 3],
        &["t", "i"],
        |i| state.at([i[0].clone() - 1, i[1].clone()]),
        "u",
    )
    .unwrap();
    let e = scan(&init, &update, &x.clone(), &[], "scan");
    assert!(e.is_ok(), "a placeholder state is accepted");
    let e = scan(&init, &update, &init, &[], "scan").unwrap_err();
    assert!(e.message.contains("must be a placeholder"), "{}", e.message);
    let ints = placeholder([4, 3], "s_int", DataType::Int32).unwrap();
    let e = scan(&init, &update, &ints, &[], "scan").unwrap_err();
    assert!(
        e.message
            .contains("is float32 but the state `s_int` is int32"),
        "{}",
        e.message
    );
}

/// A step that reads its own row is reported, not evaluated forever.
#[test]
fn a_step_reading_its_own_row_is_an_error_not_a_hang() {
    let x = placeholder([4, 3], "X", DataType::Float32).unwrap();
    let state = placeholder([4, 3], "s_state", DataType::Float32).unwrap();
    let init = compute_named(
        [1, 3],
        &["_", "i"],
        |i| x.at([Expr::int(0), i[1].clone()]),
        "s_init",
    )
    .unwrap();
    let update =
        compute_named([4, 3], &["t", "i"], |i| state.at([&i[0], &i[1]]) + 1.0, "u").unwrap();
    let res = scan(&init, &update, &state, std::slice::from_ref(&x), "scan").unwrap();
    let s = create_schedule(std::slice::from_ref(&res));
    let e = te::check(&s, &[x, res], &HashMap::new(), 1).unwrap_err();
    assert!(e.message.contains("reads its own row"), "{}", e.message);
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Scans of random sizes, read in part or whole, with a split
        /// update, run clean against step-by-step evaluation.
        #[test]
        fn random_scans_run_clean(
            m in 2i64..7, n in 1i64..7, rows in 1i64..7, cols in 1i64..7,
            reverse in any::<bool>(), factor in 1i64..5, seed in 0u64..1000,
        ) {
            let (rows, cols) = (rows.min(m), cols.min(n));
            let c = cumsum(Expr::int(m), Expr::int(n), reverse);
            let out = compute_named([rows, cols], &["a", "b"], |i| c.scan.at([&i[0], &i[1]]) + 1.0, "C").unwrap();
            let mut s = create_schedule(std::slice::from_ref(&out));
            s.split(&c.update, &c.update.op().axis()[1], factor).unwrap();
            let r = te::check(&s, &[c.x, out], &HashMap::new(), seed).unwrap();
            prop_assert!(r.is_clean(0.0), "{:?}", r);
            // Only the steps read run (rows after the init's one).
            let cols_run = if reverse { n } else { cols };
            prop_assert_eq!(r.stage("s_update").unwrap().runs, ((rows - 1) * cols_run) as u64);
        }
    }
}

/// ScheduleOps' form (test_schedule_scan): the scan's buffer realized over
/// the rows up to its last step and the fix-point columns read.
#[test]
fn schedule_ops_realizes_the_scan_over_its_rows_and_the_columns_read() {
    let c = cumsum(Expr::int(6), Expr::int(5), false);
    let out = compute_named(
        [3, 2],
        &["a", "b"],
        |i| c.scan.at([&i[0], &i[1]]) * 2.0,
        "C",
    )
    .unwrap();
    let s = create_schedule(std::slice::from_ref(&out));
    let b = te::infer_bound(&s).unwrap();
    let f = te::schedule_ops(&s, &b, &[c.x, out], te::StorageStyle::Realize).unwrap();
    assert_eq!(
        f.to_string(),
        "\
realize scan([0, 3], [0, 2]) {
  produce scan {
    for (i, 0, 2) {
      scan[0, i] = X[0, i]
    }
    for (scan.idx, 0, 2) {
      for (i, 0, 2) {
        scan[(scan.idx + 1), i] = (scan[scan.idx, i] + X[(scan.idx + 1), i])
      }
    }
  }
  produce C {
    for (a, 0, 3) {
      for (b, 0, 2) {
        C[a, b] = (scan[a, b]*2.000000f)
      }
    }
  }
}
"
    );
}

#[test]
fn a_scan_loop_cannot_be_split_or_the_scan_inlined() {
    let c = cumsum(Expr::int(6), Expr::int(5), false);
    let out = compute_named([6, 5], &["a", "b"], |i| c.scan.at([&i[0], &i[1]]), "C").unwrap();
    let mut s = create_schedule(std::slice::from_ref(&out));
    let axis = te::scan_op(c.scan.op()).unwrap().scan_axis.clone();
    let e = s.split(&c.scan, &axis, 2).unwrap_err();
    assert!(e.message.contains("is a scan"), "{}", e.message);
    assert!(s.compute_inline(&c.scan).is_err());
    let _ = (&c.init, &c.update);
}

/// test_scan_inline1 with one state: a body stage between the state and
/// the update, computed in the scan's loop or inlined into the update.
#[test]
fn a_body_stage_runs_in_the_scan_loop_or_inlined() {
    for inline in [false, true] {
        let x = placeholder([5, 4], "X", DataType::Float32).unwrap();
        let state = placeholder([5, 4], "s_state", DataType::Float32).unwrap();
        let init = compute_named(
            [1, 4],
            &["_", "i"],
            |i| x.at([Expr::int(0), i[1].clone()]),
            "s_init",
        )
        .unwrap();
        let x1 = compute_named(
            [5, 4],
            &["t", "i"],
            |i| state.at([i[0].clone() - 1, i[1].clone()]) + x.at([&i[0], &i[1]]),
            "x1",
        )
        .unwrap();
        let update =
            compute_named([5, 4], &["t", "i"], |i| x1.at([&i[0], &i[1]]) * 0.5, "u1").unwrap();
        let res = scan(&init, &update, &state, &[], "scan").unwrap();
        let mut s = create_schedule(std::slice::from_ref(&res));
        assert_eq!(
            s.stage(&x1).unwrap().attach(),
            &te::Attach::At {
                parent: res.op().clone(),
                axis: te::scan_op(res.op()).unwrap().scan_axis.clone()
            }
        );
        if inline {
            s.compute_inline(&x1).unwrap();
        }
        let f = lower(&s, &[x.clone(), res.clone()]).unwrap().to_string();
        assert_eq!(f.contains("produce x1"), !inline, "{f}");
        let r = te::check(&s, &[x, res], &HashMap::new(), 9).unwrap();
        assert!(r.is_clean(0.0), "{r:?}");
        assert_eq!(r.stage("u1").unwrap().runs, 16);
    }
}

/// The body of a scan is a group of the schedule, computed at the scan's
/// update: a body stage may be computed at another, never outside the
/// body; a group made of part of the body nests inside it.
#[test]
fn a_scan_body_is_a_group_at_the_scan_update() {
    let (m, n) = (Expr::int(6), Expr::int(5));
    let x = te::placeholder([m.clone(), n.clone()], "X", DataType::Float32).unwrap();
    let state = te::placeholder([m.clone(), n.clone()], "S", DataType::Float32).unwrap();
    let init = te::compute_named(
        [Expr::int(1), n.clone()],
        &["_", "j"],
        |i| x.at([&Expr::int(0), &i[1]]),
        "init",
    )
    .unwrap();
    let a = te::compute_named(
        [m.clone(), n.clone()],
        &["t", "j"],
        |i| state.at([&(i[0].clone() - Expr::int(1)), &i[1]]) + x.at([&i[0], &i[1]]),
        "a",
    )
    .unwrap();
    let b = te::compute_named(
        [m.clone(), n.clone()],
        &["t", "j"],
        |i| a.at([&i[0], &i[1]]) * 2.0,
        "b",
    )
    .unwrap();
    let scan = scan(&init, &b, &state, std::slice::from_ref(&x), "scan").unwrap();
    let mut s = create_schedule(std::slice::from_ref(&scan));
    let body = s.group_of(&a).expect("the body is a group");
    assert_eq!(s.group_of(&b), Some(body));
    assert_eq!(s.group_of(&init), None);
    assert_eq!(s.group_members(body), &[a.op().clone(), b.op().clone()]);
    let axis = te::scan_op(scan.op()).unwrap().scan_axis.clone();
    assert_eq!(
        s.group_attach(body),
        Some(&te::Attach::At {
            parent: scan.op().clone(),
            axis
        })
    );
    let e = s.compute_at(&a, &init, &init.op().axis()[0]).unwrap_err();
    assert!(
        e.message.contains("in a group that `init` is not in"),
        "{}",
        e.message
    );
    s.compute_at(&a, &b, &b.op().axis()[1]).unwrap();
    let inner = s
        .create_group(std::slice::from_ref(&a), &[state.clone(), x.clone()], false)
        .unwrap();
    assert_eq!(s.group_parent(inner), Some(body));
    let r = te::check(&s, &[x, scan.clone()], &HashMap::new(), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}
