//! Operations with several outputs: `te.compute` returning a tuple, and
//! tuple reductions by a `te.comm_reducer` (argmax), lowered in one loop
//! nest and checked against the definitions.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{CmpOp, Expr};
use te::{
    check, create_schedule, lower, placeholder, reduce_axis, try_compute_multi, CommReducer,
    TeError, Tensor, Value,
};
use tir::DataType;

fn at(t: &Tensor, i: &[Expr]) -> Value {
    t.at(i.iter().cloned())
}

/// `C.v0 = A + B`, `C.v1 = A * B` over `[n, m]`.
fn two_outputs(n: i64, m: i64) -> (Tensor, Tensor, Vec<Tensor>) {
    let a = placeholder([n, m], "A", DataType::Float32).unwrap();
    let b = placeholder([n, m], "B", DataType::Float32).unwrap();
    let c = try_compute_multi(
        [n, m],
        &["i", "j"],
        |i| Ok::<_, TeError>(vec![at(&a, i) + at(&b, i), at(&a, i) * at(&b, i)]),
        "C",
    )
    .unwrap();
    (a, b, c)
}

/// argmax over `(index, value)` pairs, identity `(-1, lowest float32)`.
fn argmax() -> CommReducer {
    let dtypes = [DataType::Int32, DataType::Float32];
    let x = CommReducer::operands("x", &dtypes);
    let y = CommReducer::operands("y", &dtypes);
    let keep = Value::cmp(CmpOp::Ge, x[1].clone(), y[1].clone());
    let result = vec![
        Value::select_value(keep, x[0].clone(), y[0].clone()),
        Value::max(x[1].clone(), y[1].clone()),
    ];
    let identity = vec![Value::int(-1), Value::float(f32::MIN as f64)];
    CommReducer::new("argmax", &x, &y, result, identity).unwrap()
}

/// `T.v0[i], T.v1[i] = argmax((k, A[i, k]), axis=k)`.
fn row_argmax(n: i64, m: i64) -> (Tensor, Vec<Tensor>, te::IterVar) {
    let a = placeholder([n, m], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, m), "k");
    let r = argmax();
    let t = try_compute_multi(
        [n],
        &["i"],
        |i| {
            let src = vec![Value::index(k.expr()), at(&a, &[i[0].clone(), k.expr()])];
            r.reduce(src, &[k.clone()], None)
        },
        "T",
    )
    .unwrap();
    (a, t, k)
}

#[test]
fn a_compute_returning_a_tuple_has_one_output_per_value_named_as_tvm_names_them() {
    let (_, _, c) = two_outputs(4, 4);
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].name(), c[1].name()), ("C.v0", "C.v1"));
    assert_eq!(c[1].value_index(), 1);
    assert_eq!(c[0].op(), c[1].op());
    assert_ne!(c[0], c[1]);
    assert_eq!(c[0].op().num_outputs(), 2);
    assert_eq!(c[0].op().output_at(1).as_ref(), Some(&c[1]));
    assert!(c[0].op().output_at(2).is_none());
    // One stage for both outputs.
    let s = create_schedule(&c);
    assert_eq!(s.stages().len(), 3);
    assert_eq!(s.default_args().len(), 4);
}

#[test]
fn both_outputs_are_stored_in_one_loop_nest() {
    let (a, b, c) = two_outputs(4, 8);
    let mut s = create_schedule(&[c[0].clone()]);
    let (jo, ji) = s.split(&c[0], &c[0].op().axis()[1], 4).unwrap();
    let _ = (jo, ji);
    let args = [a, b, c[0].clone(), c[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    let want = "\
produce C {
  for (i, 0, 4) {
    for (j.outer, 0, 2) {
      for (j.inner, 0, 4) {
        C.v0[i, ((j.outer*4) + j.inner)] = (A[i, ((j.outer*4) + j.inner)] + B[i, ((j.outer*4) + j.inner)])
        C.v1[i, ((j.outer*4) + j.inner)] = (A[i, ((j.outer*4) + j.inner)]*B[i, ((j.outer*4) + j.inner)])
      }
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &args, &Default::default(), 1).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 64);
    assert_eq!(r.stage("C").unwrap().runs, 32);
}

#[test]
fn a_consumer_of_both_outputs_bounds_the_producer_by_the_union_of_its_reads() {
    let (a, b, c) = two_outputs(6, 8);
    let d = te::compute_named(
        [6, 7],
        &["di", "dj"],
        |i| at(&c[0], &[i[0].clone(), i[1].clone()]) - at(&c[1], &[i[0].clone(), i[1].clone() + 1]),
        "D",
    )
    .unwrap();
    let mut s = create_schedule(&[d.clone()]);
    s.compute_at(&c[0], &d, &d.op().axis()[0]).unwrap();
    let bounds = te::infer_bound(&s).unwrap();
    // Column j of C.v0 and column j + 1 of C.v1: 8 columns of one row.
    let cj = &c[0].op().axis()[1];
    assert_eq!(bounds.range(cj).unwrap().to_string(), "[0, 8)");
    let ci = &c[0].op().axis()[0];
    assert_eq!(bounds.range(ci).unwrap().to_string(), "[di, di + 1)");
    let args = [a, b, d];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains("allocate C.v0[float32 * 1 * 8]"), "{text}");
    assert!(text.contains("allocate C.v1[float32 * 1 * 8]"), "{text}");
    let r = check(&s, &args, &Default::default(), 3).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("C").unwrap().runs, 48);
}

#[test]
fn argmax_lowers_to_tvms_tuple_update_and_matches_the_definition() {
    let (a, t, _) = row_argmax(3, 5);
    let s = create_schedule(&t);
    let args = [a, t[0].clone(), t[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    let want = "\
produce T {
  for (i, 0, 3) {
    T.v0[i] = -1
    T.v1[i] = -3.40282e+38f
    for (k, 0, 5) {
      T.v0[i] = if_then_else((T.v1[i] >= A[i, k]), T.v0[i], k)
      T.v1[i] = max(T.v1[i], A[i, k])
    }
  }
}
";
    assert_eq!(text, want);
    let r = check(&s, &args, &Default::default(), 7).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 6);
    assert_eq!(r.stage("T").unwrap().runs, 15);
}

#[test]
fn argmax_with_a_split_reduction_and_a_consumer_is_checked_against_the_definition() {
    let (a, t, k) = row_argmax(6, 10);
    // The position plus the value, read by a consumer computed at the root.
    let d = te::compute_named(
        [6],
        &["d"],
        |i| Value::cast(DataType::Float32, at(&t[0], i)) + at(&t[1], i),
        "D",
    )
    .unwrap();
    let mut s = create_schedule(&[d.clone()]);
    let (ko, ki) = s.split(&t[0], &k, 4).unwrap();
    s.reorder(&t[0], &[ko, t[0].op().axis()[0].clone(), ki])
        .unwrap();
    let (dout, _) = s.split(&d, &d.op().axis()[0], 2).unwrap();
    s.compute_at(&t[0], &d, &dout).unwrap();
    let args = [a, d];
    let r = check(&s, &args, &Default::default(), 11).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.stage("T").unwrap().runs, 60);
}

#[test]
fn the_outputs_of_a_reduction_must_all_be_returned_in_order() {
    let a = placeholder([4, 4], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 4), "k");
    let r = argmax();
    let src = |i: &[Expr]| vec![Value::index(k.expr()), at(&a, &[i[0].clone(), k.expr()])];
    let swapped = try_compute_multi(
        [4],
        &["i"],
        |i| {
            let mut v = r.reduce(src(i), &[k.clone()], None)?;
            v.swap(0, 1);
            Ok::<_, TeError>(v)
        },
        "T",
    );
    let e = swapped.unwrap_err();
    assert!(e.message.contains("in order"), "{}", e.message);
    let one = try_compute_multi(
        [4],
        &["i"],
        |i| Ok::<_, TeError>(r.reduce(src(i), &[k.clone()], None)?[..1].to_vec()),
        "T",
    );
    let e = one.unwrap_err();
    assert!(
        e.message.contains("returns 1 of the 2 values"),
        "{}",
        e.message
    );
    let wrong = r.reduce(vec![at(&a, &[Expr::int(0), k.expr()])], &[k.clone()], None);
    assert!(wrong
        .unwrap_err()
        .message
        .contains("reduces tuples of (int32, float32)"));
    let mixed = try_compute_multi(
        [4],
        &["i"],
        |i| {
            let mut v = vec![at(&a, &[i[0].clone(), Expr::int(0)])];
            v.push(te::sum(at(&a, &[i[0].clone(), k.expr()]), &[k.clone()]));
            Ok::<_, TeError>(v)
        },
        "T",
    );
    assert!(mixed
        .unwrap_err()
        .message
        .contains("either all reductions or none"));
}

/// `te.comm_reducer(lambda x, y: x + y, lambda t: init[i])`: a sum that
/// starts from a tensor's element at the compute's axis (TVM's
/// loop-aware initial value). The reduction reads that tensor: it is an
/// input of the stage, bounded, lowered into the init and redirected by
/// `cache_read`.
#[test]
fn an_identity_may_read_a_tensor_at_the_computes_axes() {
    let a = placeholder([5, 6], "A", DataType::Float32).unwrap();
    let b = placeholder([5], "B", DataType::Float32).unwrap();
    let ax = reduce_axis((0, 6), "ax");
    let t = try_compute_multi(
        [5],
        &["i"],
        |i| {
            let x = CommReducer::operands("x", &[DataType::Float32]);
            let y = CommReducer::operands("y", &[DataType::Float32]);
            let identity = vec![at(&b, &[i[0].clone()])];
            let r = CommReducer::new(
                "sum_from",
                &x,
                &y,
                vec![x[0].clone() + y[0].clone()],
                identity,
            )?;
            r.reduce(
                vec![at(&a, &[i[0].clone(), ax.expr()])],
                &[ax.clone()],
                None,
            )
        },
        "T",
    )
    .unwrap();
    assert_eq!(t[0].op().input_tensors(), [a.clone(), b.clone()]);
    let args = [a.clone(), b.clone(), t[0].clone()];
    let mut s = create_schedule(&t);
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains("T[i] = B[i]"), "{text}");
    let r = check(&s, &args, &Default::default(), 3).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
    // A copy of B read by the identity: the init reads the copy.
    let bb = s.cache_read(&b, "local", &[&t[0]]).unwrap();
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains(&format!("T[i] = {}[", bb.name())), "{text}");
    let r = check(&s, &args, &Default::default(), 4).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}

#[test]
fn a_combiner_may_only_read_its_operands() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let x = CommReducer::operands("x", &[DataType::Float32]);
    let y = CommReducer::operands("y", &[DataType::Float32]);
    let e = CommReducer::new(
        "r",
        &x,
        &y,
        vec![x[0].clone() + at(&a, &[Expr::int(0)])],
        vec![Value::float(0.0)],
    )
    .unwrap_err();
    assert!(e.message.contains("reads `A`"), "{}", e.message);
    let e = CommReducer::new("r", &x, &y, vec![x[0].clone() + y[0].clone()], vec![]).unwrap_err();
    assert!(e.message.contains("same length"), "{}", e.message);
    // The identity is what there is before anything is combined.
    let e = CommReducer::new(
        "r",
        &x,
        &y,
        vec![x[0].clone() + y[0].clone()],
        vec![y[0].clone()],
    )
    .unwrap_err();
    assert!(
        e.message.contains("an argument of its combiner"),
        "{}",
        e.message
    );
}

#[test]
fn a_single_value_comm_reducer_is_a_reduction_of_one_output() {
    // `te.comm_reducer(lambda x, y: x * y + x, lambda t: const(1, t))`
    let a = placeholder([3, 4], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 4), "k");
    let x = CommReducer::operands("x", &[DataType::Float32]);
    let y = CommReducer::operands("y", &[DataType::Float32]);
    let r = CommReducer::new(
        "mulacc",
        &x,
        &y,
        vec![x[0].clone() * y[0].clone() + x[0].clone()],
        vec![Value::float(1.0)],
    )
    .unwrap();
    let t = try_compute_multi(
        [3],
        &["i"],
        |i| r.reduce(vec![at(&a, &[i[0].clone(), k.expr()])], &[k.clone()], None),
        "T",
    )
    .unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].name(), "T");
    let s = create_schedule(&t);
    let args = [a, t[0].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains("T[i] = ((T[i]*A[i, k]) + T[i])"), "{text}");
    let r = check(&s, &args, &Default::default(), 5).unwrap();
    assert!(r.is_clean(1e-6), "{r:?}");
}

#[test]
fn a_combiner_reading_an_earlier_overwritten_value_is_refused_rather_than_run_wrong() {
    // value 1 reads accumulated value 0, which the update of value 0 has
    // already replaced when the stores run one after another
    let dtypes = [DataType::Float32, DataType::Float32];
    let x = CommReducer::operands("x", &dtypes);
    let y = CommReducer::operands("y", &dtypes);
    let result = vec![x[0].clone() + y[0].clone(), x[1].clone() + x[0].clone()];
    let r = CommReducer::new(
        "r",
        &x,
        &y,
        result,
        vec![Value::float(0.0), Value::float(0.0)],
    )
    .unwrap();
    let a = placeholder([3, 4], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 4), "k");
    let t = try_compute_multi(
        [3],
        &["i"],
        |i| {
            let v = at(&a, &[i[0].clone(), k.expr()]);
            r.reduce(vec![v.clone(), v], &[k.clone()], None)
        },
        "T",
    )
    .unwrap();
    let s = create_schedule(&t);
    let e = lower(&s, &[a, t[0].clone(), t[1].clone()]).unwrap_err();
    assert!(e.message.contains("already overwritten"), "{}", e.message);
}

#[test]
fn an_operation_of_several_outputs_cannot_be_inlined() {
    let (_, _, c) = two_outputs(4, 4);
    let d = te::compute_named([4, 4], &["i", "j"], |i| at(&c[1], i) * 2.0, "D").unwrap();
    let mut s = create_schedule(&[d]);
    let e = s.compute_inline(&c[0]).unwrap_err();
    assert!(e.message.contains("2 outputs"), "{}", e.message);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// argmax of every row, its reduction split by any factor, computed
        /// at any loop of a consumer split by any factor, equals the
        /// definition (ties keep the first index, as the combiner says).
        #[test]
        fn argmax_under_random_splits_and_attachments_equals_the_definition(
            n in 1i64..7, m in 1i64..9, kf in 1i64..6, df in 1i64..5,
            attach in 0usize..3, reorder in any::<bool>(), seed in 0u64..1000,
        ) {
            let (a, t, k) = row_argmax(n, m);
            let d = te::compute_named(
                [n],
                &["d"],
                |i| Value::cast(DataType::Float32, at(&t[0], i)) * at(&t[1], i),
                "D",
            )
            .unwrap();
            let mut s = create_schedule(&[d.clone()]);
            let (ko, ki) = s.split(&t[0], &k, kf).unwrap();
            if reorder {
                s.reorder(&t[0], &[ko, t[0].op().axis()[0].clone(), ki]).unwrap();
            }
            let (dout, din) = s.split(&d, &d.op().axis()[0], df).unwrap();
            match attach {
                0 => {}
                1 => s.compute_at(&t[1], &d, &dout).unwrap(),
                _ => s.compute_at(&t[0], &d, &din).unwrap(),
            }
            let r = check(&s, &[a, d], &Default::default(), seed).unwrap();
            prop_assert!(r.is_clean(0.0), "{r:?}");
            prop_assert_eq!(r.stage("T").unwrap().runs, (n * m) as u64);
        }

        /// Two outputs read at shifted positions by a consumer, the producer
        /// computed at either loop of the consumer.
        #[test]
        fn two_outputs_read_at_shifted_positions_are_bounded_and_run_right(
            n in 1i64..6, m in 2i64..9, shift in 0i64..2, attach in 0usize..3,
            seed in 0u64..1000,
        ) {
            let (a, b, c) = two_outputs(n, m);
            let d = te::compute_named(
                [n, m - 1],
                &["di", "dj"],
                |i| at(&c[0], &[i[0].clone(), i[1].clone() + shift])
                    + at(&c[1], &[i[0].clone(), i[1].clone() + 1]),
                "D",
            )
            .unwrap();
            let mut s = create_schedule(&[d.clone()]);
            if attach > 0 {
                let axis = d.op().axis()[attach - 1].clone();
                s.compute_at(&c[0], &d, &axis).unwrap();
            }
            let r = check(&s, &[a, b, d], &Default::default(), seed).unwrap();
            prop_assert!(r.is_clean(0.0), "{r:?}");
        }
    }
}

#[test]
fn the_run_report_of_an_argmax_with_a_symbolic_size_is_clean() {
    // What `--run` does: every size given a value, the report, the check.
    let n = te::var("n");
    let a = placeholder([n.expr(), Expr::int(7)], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 7), "k");
    let r = argmax();
    let t = try_compute_multi(
        [n.expr()],
        &["i"],
        |i| {
            let src = vec![Value::index(k.expr()), at(&a, &[i[0].clone(), k.expr()])];
            r.reduce(src, &[k.clone()], None)
        },
        "T",
    )
    .unwrap();
    let mut s = create_schedule(&t);
    s.split(&t[0], &t[0].op().axis()[0], 4).unwrap();
    let options = te::ReportOptions {
        run: true,
        ..Default::default()
    };
    let report = te::run_report(&s, &[a, t[0].clone(), t[1].clone()], &options).unwrap();
    assert!(report.is_clean(), "{:?}", report.check);
    let text = report.report.program.to_string();
    assert!(
        text.contains("T.v0[((i.outer*4) + i.inner)] = -1"),
        "{text}"
    );
}

#[test]
fn an_output_left_out_of_the_arguments_is_stored_inside_and_the_other_checked() {
    let (a, b, c) = two_outputs(3, 4);
    let s = create_schedule(&[c[0].clone()]);
    let args = [a, b, c[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(
        text.starts_with(
            "// attr [C.v0] storage_scope = \"global\"\nallocate C.v0[float32 * 3 * 4]\n"
        ),
        "{text}"
    );
    let r = check(&s, &args, &Default::default(), 9).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 12);
}

#[test]
fn scheduleops_realizes_every_output_the_first_outermost() {
    let (a, b, c) = two_outputs(2, 3);
    let d = te::compute_named([2, 3], &["di", "dj"], |i| at(&c[0], i) + at(&c[1], i), "D").unwrap();
    let s = create_schedule(&[d.clone()]);
    let bounds = te::infer_bound(&s).unwrap();
    let text = te::schedule_ops(&s, &bounds, &[a, b, d], te::StorageStyle::Realize)
        .unwrap()
        .to_string();
    assert!(
        text.starts_with(
            "realize C.v0([0, 2], [0, 3]) {\n  realize C.v1([0, 2], [0, 3]) {\n    produce C {"
        ),
        "{text}"
    );
}

#[test]
fn a_several_output_stage_reads_inlined_and_attached_producers_in_every_body() {
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let p = te::compute_named([4, 6], &["pi", "pj"], |i| at(&a, i) + 1.0, "P").unwrap();
    let q = te::compute_named([4, 6], &["qi", "qj"], |i| at(&a, i) * 3.0, "Q").unwrap();
    // P only in the second body, Q only in the first.
    let c = try_compute_multi(
        [4, 5],
        &["i", "j"],
        |i| {
            let next = [i[0].clone(), i[1].clone() + 1];
            Ok::<_, TeError>(vec![at(&q, &next), at(&p, i) - at(&p, &next)])
        },
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&c);
    s.compute_inline(&p).unwrap();
    s.compute_at(&q, &c[0], &c[0].op().axis()[0]).unwrap();
    let args = [a, c[0].clone(), c[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains("allocate Q[float32 * 1 * 5]"), "{text}");
    assert!(!text.contains("produce P"), "{text}");
    let r = check(&s, &args, &Default::default(), 13).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}

#[test]
fn argmax_of_an_inlined_producer_reads_its_definition() {
    let a = placeholder([3, 5], "A", DataType::Float32).unwrap();
    let p = te::compute_named([3, 5], &["pi", "pj"], |i| at(&a, i) * -1.0, "P").unwrap();
    let k = reduce_axis((0, 5), "k");
    let r = argmax();
    let t = try_compute_multi(
        [3],
        &["i"],
        |i| {
            let src = vec![Value::index(k.expr()), at(&p, &[i[0].clone(), k.expr()])];
            r.reduce(src, &[k.clone()], None)
        },
        "T",
    )
    .unwrap();
    let mut s = create_schedule(&t);
    s.compute_inline(&p).unwrap();
    let args = [a, t[0].clone(), t[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(
        text.contains("T.v1[i] = max(T.v1[i], (A[i, k]*-1.000000f))"),
        "{text}"
    );
    let r = check(&s, &args, &Default::default(), 17).unwrap();
    assert!(r.is_clean(0.0), "{r:?}");
}

/// `cache_read` with a reader of several outputs that reads the tensor
/// only in its second output (`F, E = C, C * B`): the reader is accepted,
/// and each output reads through the cache where it read the tensor.
#[test]
fn cache_read_redirects_every_output_of_a_reader() {
    let a = placeholder([4, 6], "A", DataType::Float32).unwrap();
    let b = placeholder([4, 6], "B", DataType::Float32).unwrap();
    let f = try_compute_multi(
        [4, 6],
        &["i", "j"],
        |i| Ok::<_, TeError>(vec![at(&a, i) + 1.0, at(&a, i) * at(&b, i)]),
        "F",
    )
    .unwrap();
    let mut s = create_schedule(&f);
    let bl = s.cache_read(&b, "local", &[f[0].op().clone()]).unwrap();
    let args = [a, b, f[0].clone(), f[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains("(A[i, j]*B.local[i, j])"), "{text}");
    assert_eq!(bl.name(), "B.local");
    let report = check(&s, &args, &Default::default(), 3).unwrap();
    assert!(report.is_clean(1e-6), "{report:?}");
}

/// `cache_write([v0, v1], "local")` of an operation of two outputs: the
/// cache computes both in one nest, the outputs copy them, and the program
/// matches the definitions. A partial list is refused.
#[test]
fn cache_write_of_every_output_caches_them_in_one_nest() {
    let (a, b, c) = two_outputs(4, 6);
    let mut s = create_schedule(&c);
    assert!(s.cache_write_outputs(&c[1..], "local").is_err());
    let cached = s.cache_write_outputs(&c, "local").unwrap();
    let names: Vec<&str> = cached.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["C.local.v0", "C.local.v1"]);
    let args = [a, b, c[0].clone(), c[1].clone()];
    let text = lower(&s, &args).unwrap().to_string();
    assert!(text.contains("C.v1[i, j] = C.local.v1["), "{text}");
    let report = check(&s, &args, &Default::default(), 3).unwrap();
    assert!(report.is_clean(1e-6), "{report:?}");
}
