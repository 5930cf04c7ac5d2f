//! `te.extern`: opaque operations read their inputs whole, write their
//! whole output, lower to their call over the tensors' buffers, and are
//! reported as not evaluable by a check (TVM's extern tutorial).

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{compute_named, create_schedule, decl_buffer, extern_op, lower, placeholder, Tensor};
use tir::{CallArg, DataType, OpaqueCall, Stmt, Value};

/// `te.extern((n, m), [A, B], lambda ins, outs:
/// tvm.tir.call_packed("tvm.contrib.cblas.matmul", ins[0], ins[1], outs[0],
/// False, False), name="C")`, with `A` doubled first.
fn matmul(n: Expr, l: Expr, m: Expr, in_buffers: bool) -> (Tensor, Tensor, Tensor, Tensor) {
    matmul_calling("tvm.contrib.cblas.matmul", n, l, m, in_buffers)
}

/// `C = A2 * B` by an extern stage calling `func`, with `A2 = A * 2`.
fn matmul_calling(
    func: &str,
    n: Expr,
    l: Expr,
    m: Expr,
    in_buffers: bool,
) -> (Tensor, Tensor, Tensor, Tensor) {
    let a = placeholder([n.clone(), l.clone()], "A", DataType::Float32).unwrap();
    let b = placeholder([l.clone(), m.clone()], "B", DataType::Float32).unwrap();
    let a2 = compute_named(
        [n.clone(), l.clone()],
        &["i", "k"],
        |i| a.at([&i[0], &i[1]]) * 2.0,
        "A2",
    )
    .unwrap();
    let bufs = in_buffers.then(|| {
        vec![
            decl_buffer([n.clone(), l.clone()], DataType::Float32, "Ab").unwrap(),
            decl_buffer([l.clone(), m.clone()], DataType::Float32, "Bb").unwrap(),
        ]
    });
    let c = extern_op(
        [n, m],
        &[a2.clone(), b.clone()],
        |ins, outs| {
            let no = Value::constant(0.0, DataType::Bool);
            let args = vec![
                CallArg::Buffer(ins[0].clone()),
                CallArg::Buffer(ins[1].clone()),
                CallArg::Buffer(outs[0].clone()),
                CallArg::Value(no.clone()),
                CallArg::Value(no),
            ];
            Ok::<_, te::TeError>(Stmt::opaque(OpaqueCall::packed(func, args), true))
        },
        "C",
        None,
        bufs,
        None,
    )
    .unwrap();
    (a, b, a2, c)
}

#[test]
fn an_extern_call_lowers_over_the_tensors_buffers_as_tvm_prints_it() {
    let (n, l, m) = (Var::new("n"), Var::new("l"), Var::new("m"));
    let (a, b, _, c) = matmul(n.expr(), l.expr(), m.expr(), true);
    let d = compute_named(
        [n.expr(), m.expr()],
        &["i", "j"],
        |i| c.at([&i[0], &i[1]]) + 1.0,
        "D",
    )
    .unwrap();
    let s = create_schedule(std::slice::from_ref(&d));
    let f = lower(&s, &[a, b, d]).unwrap();
    assert_eq!(
        f.to_string(),
        "\
// attr [A2] storage_scope = \"global\"
allocate A2[float32 * n * l]
produce A2 {
  for (i, 0, n) {
    for (k, 0, l) {
      A2[i, k] = (A[i, k]*2.000000f)
    }
  }
}
// attr [C] storage_scope = \"global\"
allocate C[float32 * n * m]
produce C {
  // attr [0] extern_scope = 0
  tvm_call_packed(\"tvm.contrib.cblas.matmul\", tvm_stack_make_array(A2, tvm_stack_make_shape(n, l), 0, 2, 0.000000f, 0), tvm_stack_make_array(B, tvm_stack_make_shape(l, m), 0, 2, 0.000000f, 0), tvm_stack_make_array(C, tvm_stack_make_shape(n, m), 0, 2, 0.000000f, 0), (bool)0, (bool)0)
}
produce D {
  for (i, 0, n) {
    for (j, 0, m) {
      D[i, j] = (C[i, j] + 1.000000f)
    }
  }
}
"
    );
}

/// A consumer reading a corner of the extern's output, split, with the
/// producer of an input computed at the root: the input and the output
/// are still whole (TVM's rule for opaque bodies).
#[test]
fn infer_bound_gives_an_extern_whole_inputs_and_a_whole_output() {
    let (a, b, a2, c) = matmul(Expr::int(16), Expr::int(8), Expr::int(12), false);
    let d = compute_named([4, 4], &["i", "j"], |i| c.at([&i[0], &i[1]]) + 1.0, "D").unwrap();
    let mut s = create_schedule(std::slice::from_ref(&d));
    s.split(&d, &d.op().axis()[0], 2).unwrap();
    let r = te::report(&s, &[a.clone(), b.clone(), d.clone()]).unwrap();
    let region = |name: &str| {
        r.stage(name)
            .unwrap()
            .region
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" x ")
    };
    assert_eq!(region("A2"), "[0, 16) x [0, 8)");
    assert_eq!(region("C"), "[0, 16) x [0, 12)");
    assert_eq!(region("D"), "[0, 4) x [0, 4)");
    assert!(r.stage("C").unwrap().iter_vars.is_empty());
    let b2 = te::infer_bound(&s).unwrap();
    assert_eq!(b2.range(&a2.op().axis()[0]).unwrap().to_string(), "[0, 16)");

    // Computed at a loop of D, A2 would not enclose its reader C.
    s.compute_at(&a2, &d, &d.op().axis()[1]).unwrap();
    let e = lower(&s, &[a, b, d]).unwrap_err();
    assert!(
        e.message.contains("does not enclose its consumer `C`"),
        "{}",
        e.message
    );
}

#[test]
fn a_check_reports_an_extern_call_as_not_evaluable_without_running_it() {
    let (a, b, _, c) = matmul_calling(
        "example.gemm",
        Expr::int(4),
        Expr::int(3),
        Expr::int(5),
        false,
    );
    let d = compute_named([4, 5], &["i", "j"], |i| c.at([&i[0], &i[1]]) + 1.0, "D").unwrap();
    let s = create_schedule(std::slice::from_ref(&d));
    let r = te::check(&s, &[a.clone(), b.clone(), d.clone()], &HashMap::new(), 1).unwrap();
    assert_eq!(
        r.not_evaluable,
        vec![("C".to_string(), "example.gemm".to_string())]
    );
    assert_eq!(r.compared, 0);
    let options = te::ReportOptions {
        run: true,
        ..Default::default()
    };
    let text = te::run_report(&s, &[a.clone(), b.clone(), d.clone()], &options)
        .unwrap()
        .to_text();
    assert!(
        text.contains("not evaluable: `C` calls `example.gemm`"),
        "{text}"
    );
    assert!(text.contains("  not run\n"), "{text}");
    // The interpreter refuses the call rather than guessing its values.
    let f = lower(&s, &[a, b, d]).unwrap();
    let e = tir::run(&f, &HashMap::new(), &HashMap::new()).unwrap_err();
    assert_eq!(
        e,
        tir::RunError::Opaque {
            func: "example.gemm".into()
        }
    );
}

/// The runtime library's matrix product is built into the interpreter:
/// the program runs, and the check compares its consumers.
#[test]
fn a_call_of_the_library_matmul_runs() {
    let (a, b, _, c) = matmul(Expr::int(2), Expr::int(3), Expr::int(2), false);
    let d = compute_named([2, 2], &["i", "j"], |i| c.at([&i[0], &i[1]]) + 1.0, "D").unwrap();
    let s = create_schedule(std::slice::from_ref(&d));
    let args = [a.clone(), b.clone(), d.clone()];
    let r = te::check(&s, &args, &HashMap::new(), 1).unwrap();
    assert!(r.not_evaluable.is_empty(), "{r:?}");
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 4);
    let f = lower(&s, &args).unwrap();
    let buffer = |name: &str| f.params.iter().find(|p| p.name() == name).unwrap().clone();
    let inputs = HashMap::from([
        (
            buffer("A"),
            tir::Tensor::new(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap(),
        ),
        (
            buffer("B"),
            tir::Tensor::new(vec![3, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap(),
        ),
    ]);
    let out = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    // (2A) B + 1, by hand.
    assert_eq!(
        out.tensor(&buffer("D")).unwrap().data(),
        &[9.0, 11.0, 21.0, 23.0]
    );
}

#[test]
fn extern_buffers_that_do_not_match_their_tensors_are_refused() {
    let a = placeholder([4, 3], "A", DataType::Float32).unwrap();
    let wrong = decl_buffer([3, 4], DataType::Float32, "Ab").unwrap();
    let e = extern_op(
        [4, 3],
        std::slice::from_ref(&a),
        |_, _| Ok::<_, te::TeError>(Stmt::no_op()),
        "C",
        None,
        Some(vec![wrong]),
        None,
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("buffer `Ab` (float32 of shape (3, 4)) does not match input `A`"),
        "{}",
        e.message
    );
    let e = extern_op(
        [4, 3],
        &[a],
        |_, _| Ok::<_, te::TeError>(Stmt::no_op()),
        "C",
        None,
        Some(vec![]),
        None,
    )
    .unwrap_err();
    assert!(
        e.message.contains("0 input buffers for 1 inputs"),
        "{}",
        e.message
    );
    assert!(decl_buffer([-1], DataType::Float32, "X").is_err());
}

/// A body of loops and stores over the buffers (as `tvm.tir.ir_builder`
/// builds) runs: the program and the reference both run it, on the
/// tensors' buffers and on the evaluated inputs.
#[test]
fn an_extern_body_of_loops_and_stores_runs_and_is_checked() {
    let n = Var::new("n");
    let a = placeholder([n.expr(), Expr::int(3)], "A", DataType::Float32).unwrap();
    let a2 = compute_named(
        [n.expr(), Expr::int(3)],
        &["i", "k"],
        |i| a.at([&i[0], &i[1]]) + 1.0,
        "A2",
    )
    .unwrap();
    let c = extern_op(
        [Expr::int(3), n.expr()],
        std::slice::from_ref(&a2),
        |ins, outs| {
            // outs[0][j, i] = ins[0][i, j] * 2: a transpose.
            let (i, j) = (Var::new("i"), Var::new("j"));
            let v = Value::load(&ins[0], [i.expr(), j.expr()]) * Value::f32(2.0);
            let store = Stmt::store(&outs[0], [j.expr(), i.expr()], v);
            let body = Stmt::for_loop(&i, 0, n.expr(), Stmt::for_range(&j, 0, 3, store));
            Ok::<_, te::TeError>(body)
        },
        "C",
        None,
        Some(vec![decl_buffer(
            [n.expr(), Expr::int(3)],
            DataType::Float32,
            "Ab",
        )
        .unwrap()]),
        Some(decl_buffer([Expr::int(3), n.expr()], DataType::Float32, "Cb").unwrap()),
    )
    .unwrap();
    let d = compute_named(
        [Expr::int(3), n.expr()],
        &["p", "q"],
        |i| c.at([&i[0], &i[1]]) - 1.0,
        "D",
    )
    .unwrap();
    let s = create_schedule(std::slice::from_ref(&d));
    let f = lower(&s, &[a.clone(), d.clone()]).unwrap();
    assert!(
        f.to_string()
            .contains("      C[j, i] = (A2[i, j]*2.000000f)"),
        "{f}"
    );
    let sizes: HashMap<Var, i64> = [(n.clone(), 5)].into_iter().collect();
    let r = te::check(&s, &[a, d], &sizes, 7).unwrap();
    assert!(r.not_evaluable.is_empty());
    assert!(r.is_clean(0.0), "{r:?}");
    assert_eq!(r.compared, 15);
    assert_eq!(r.stage("C").unwrap().runs, 15);
}

#[test]
fn an_extern_operation_cannot_be_inlined_or_split() {
    let (a, b, _, c) = matmul(Expr::int(4), Expr::int(3), Expr::int(5), false);
    let d = compute_named([4, 5], &["i", "j"], |i| c.at([&i[0], &i[1]]), "D").unwrap();
    let mut s = create_schedule(std::slice::from_ref(&d));
    let e = s.compute_inline(&c).unwrap_err();
    assert!(e.message.contains("cannot inline `C`"), "{}", e.message);
    assert!(s.split(&c, &d.op().axis()[0], 2).is_err());
    let _ = (a, b);
}
