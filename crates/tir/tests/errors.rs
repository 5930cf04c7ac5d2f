//! Invalid programs and accesses are reported as errors naming the buffer,
//! the indices and the statement; nothing panics.

mod common;

use arith::{Expr, Range, Var};
use std::collections::HashMap;
use tir::{
    AccessKind, Buffer, DataType, Interpreter, PrimFunc, Problem, RunError, Stmt, Tensor, Value,
};

fn no_sizes() -> HashMap<Var, i64> {
    HashMap::new()
}

/// `B[i + shift] = A[i]` for `i` in `[0, 4)`, with A and B of 4 elements.
fn shifted_copy(shift: i64) -> (PrimFunc, Buffer, Buffer) {
    let a = Buffer::new("A", DataType::Float32, [4i64]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let i = Var::new("i");
    let body = Stmt::for_range(
        &i,
        0,
        4,
        Stmt::store(&b, [i.expr() + shift], Value::load(&a, [i.expr()])),
    );
    (
        PrimFunc::new("shift", vec![a.clone(), b.clone()], body),
        a,
        b,
    )
}

fn ones(n: usize) -> Tensor {
    Tensor::new(vec![n], vec![1.0; n]).unwrap()
}

#[test]
fn store_outside_shape_names_buffer_indices_and_statement() {
    let (f, a, _) = shifted_copy(1);
    let err = tir::run(&f, &HashMap::from([(a, ones(4))]), &no_sizes()).unwrap_err();
    let RunError::Access(v) = &err else {
        panic!("expected an access error, got {err}")
    };
    assert_eq!(v.kind, AccessKind::Store);
    assert_eq!(v.buffer, "B");
    assert_eq!(v.indices, [4]);
    assert_eq!(v.problem, Problem::OutsideShape { shape: vec![4] });
    assert_eq!(v.stmt, "B[(i + 1)] = A[i]");
    assert_eq!(
        err.to_string(),
        "out-of-bounds access: store to B[4] is outside the buffer's shape [4] in `B[(i + 1)] = A[i]`"
    );
}

#[test]
fn keep_going_counts_every_violation() {
    let (f, a, b) = shifted_copy(-2);
    let out = Interpreter::new()
        .keep_going(true)
        .max_reported(1)
        .run(&f, &HashMap::from([(a, ones(4))]), &no_sizes())
        .unwrap();
    assert_eq!(out.violation_count(), 2);
    assert_eq!(out.violations().len(), 1);
    assert_eq!(out.violations()[0].indices, [-2]);
    // The two valid stores happened; the invalid ones were skipped.
    assert_eq!(out.tensor(&b).unwrap().data(), &[1.0, 1.0, 0.0, 0.0]);
    assert_eq!(out.unwritten(&b), Some(2));
    assert_eq!(out.runs("B"), 4);
}

/// Seed Ex. 4 with C read one element to the right of its realized region.
#[test]
fn load_outside_realized_region() {
    let d = Buffer::new("D", DataType::Int32, [5i64, 16]);
    let c = Buffer::new("C", DataType::Int32, [5i64, 16]);
    let (dj, dk) = (Var::new("dj"), Var::new("dk"));
    let region = vec![
        Range::new(dj.expr(), Expr::int(1)),
        Range::new(dk.expr(), Expr::int(1)),
    ];
    let body = Stmt::seq([
        Stmt::store(&c, [dj.expr(), dk.expr()], Value::i32(5)),
        Stmt::store(
            &d,
            [dj.expr(), dk.expr()],
            Value::load(&c, [dj.expr(), Expr::min(dk.expr() + 1, Expr::int(15))]),
        ),
    ]);
    let loops = Stmt::for_range(
        &dj,
        0,
        5,
        Stmt::for_range(&dk, 0, 16, Stmt::realize(&c, region, body)),
    );
    let f = PrimFunc::new("ex4_bad", vec![d], loops);
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    let RunError::Access(v) = err else {
        panic!("expected an access error")
    };
    assert_eq!(
        (v.kind, v.buffer.as_str(), &v.indices[..]),
        (AccessKind::Load, "C", &[0, 1][..])
    );
    assert_eq!(
        v.problem,
        Problem::OutsideRegion {
            min: vec![0, 0],
            extent: vec![1, 1]
        }
    );
    assert_eq!(v.stmt, "D[dj, dk] = C[dj, min((dk + 1), 15)]");
}

#[test]
fn read_of_unwritten_element() {
    let (f, a, c) = common::ex6_rows();
    // Reading C (an output) before anything wrote it.
    let i = Var::new("i");
    let spy = Buffer::new("S", DataType::Float32, [1i64]);
    let body = Stmt::seq([
        f.body.clone(),
        Stmt::for_range(
            &i,
            0,
            1,
            Stmt::store(&spy, [i.expr()], Value::load(&c, [i.expr()])),
        ),
    ]);
    let ok = PrimFunc::new("ok", vec![a.clone(), c.clone(), spy.clone()], body);
    assert!(tir::run(&ok, &HashMap::from([(a.clone(), ones(16))]), &no_sizes()).is_ok());
    let early = PrimFunc::new(
        "early",
        vec![a.clone(), c.clone(), spy.clone()],
        Stmt::store(&spy, [Expr::int(0)], Value::load(&c, [Expr::int(3)])),
    );
    let err = tir::run(&early, &HashMap::from([(a, ones(16))]), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::Access(v) if v.problem == Problem::Uninitialized && v.indices == [3]),
        "{err}"
    );
}

#[test]
fn realize_storage_does_not_survive_its_scope() {
    let t = Buffer::new("T", DataType::Float32, [2i64]);
    let o = Buffer::new("O", DataType::Float32, [2i64]);
    let r = || vec![Range::from_extent(Expr::int(2))];
    let body = Stmt::seq([
        Stmt::realize(&t, r(), Stmt::store(&t, [Expr::int(0)], Value::f32(1.0))),
        Stmt::realize(
            &t,
            r(),
            Stmt::store(&o, [Expr::int(0)], Value::load(&t, [Expr::int(0)])),
        ),
    ]);
    let f = PrimFunc::new("scoped", vec![o], body);
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::Access(v) if v.problem == Problem::Uninitialized),
        "{err}"
    );
}

#[test]
fn static_mistakes_are_reported_before_running() {
    let a = Buffer::new("A", DataType::Float32, [4i64]);
    let t = Buffer::new("T", DataType::Float32, [4i64]);
    let (i, j) = (Var::new("i"), Var::new("j"));

    // A loop variable used outside its loop.
    let f = PrimFunc::new(
        "unbound",
        vec![a.clone()],
        Stmt::store(&a, [j.expr()], Value::f32(0.0)),
    );
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert_eq!(
        err,
        RunError::UnboundVariable {
            var: "j".into(),
            stmt: "A[j] = 0.000000f".into()
        }
    );
    assert!(err.to_string().contains("pass it in the sizes"));

    // An intermediate buffer without realize.
    let f = PrimFunc::new(
        "no_realize",
        vec![a.clone()],
        Stmt::for_range(
            &i,
            0,
            4,
            Stmt::store(&a, [i.expr()], Value::load(&t, [i.expr()])),
        ),
    );
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::BufferNotAllocated { buffer, .. } if buffer == "T"),
        "{err}"
    );

    // Two indices into a one-axis buffer.
    let f = PrimFunc::new(
        "arity",
        vec![a.clone()],
        Stmt::store(&a, [Expr::int(0), Expr::int(0)], Value::f32(0.0)),
    );
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(matches!(
        err,
        RunError::Arity {
            expected: 1,
            got: 2,
            ..
        }
    ));

    // A float constant of an integer type.
    let f = PrimFunc::new(
        "typed",
        vec![a.clone()],
        Stmt::store(&a, [Expr::int(0)], Value::Float(1.5, DataType::Int32)),
    );
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::Value { message, .. } if message.contains("Value::Int")),
        "{err}"
    );

    // A parameter listed twice.
    let f = PrimFunc::new("twice", vec![a.clone(), a.clone()], Stmt::no_op());
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(err.to_string().contains("listed twice"), "{err}");

    // A symbolic size without a value.
    let n = Var::new("n");
    let s = Buffer::new("S", DataType::Float32, [n.expr()]);
    let f = PrimFunc::new("size", vec![s], Stmt::no_op());
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::UnboundVariable { var, .. } if var == "n"),
        "{err}"
    );
}

#[test]
fn arithmetic_failures_are_errors() {
    let a = Buffer::new("A", DataType::Int32, [4i64]);
    let i = Var::new("i");
    let run = |body: Stmt| {
        tir::run(
            &PrimFunc::new("f", vec![a.clone()], body),
            &HashMap::new(),
            &no_sizes(),
        )
    };

    // Index overflow: in bounds at i = 0, overflowing at i = 1.
    let big = Expr::int(i64::MAX) + i.expr() - Expr::int(i64::MAX);
    let err = run(Stmt::for_range(
        &i,
        0,
        2,
        Stmt::store(&a, [big], Value::i32(0)),
    ))
    .unwrap_err();
    assert!(
        matches!(&err, RunError::Index { message, .. } if message.contains("overflow")),
        "{err}"
    );

    // Index division by zero.
    let err = run(Stmt::for_range(
        &i,
        0,
        2,
        Stmt::store(&a, [Expr::floor_div(Expr::int(1), i.expr())], Value::i32(0)),
    ))
    .unwrap_err();
    assert!(matches!(&err, RunError::Index { .. }), "{err}");

    // int32 value overflow.
    let v = Value::i32(i32::MAX as i64) + Value::index(i.expr());
    let err = run(Stmt::for_range(&i, 0, 2, Stmt::store(&a, [i.expr()], v))).unwrap_err();
    assert!(
        matches!(&err, RunError::Value { message, .. } if message.contains("int32")),
        "{err}"
    );

    // A float too large for int32 stored into an int32 buffer.
    let err = run(Stmt::store(&a, [Expr::int(0)], Value::f32(1e10))).unwrap_err();
    assert!(matches!(&err, RunError::Value { .. }), "{err}");
}

#[test]
fn limits_and_inputs() {
    let (f, a, _) = shifted_copy(0);
    let err = Interpreter::new().max_steps(3).run(
        &f,
        &HashMap::from([(a.clone(), ones(4))]),
        &no_sizes(),
    );
    // 4 iterations and 4 stores: refused before running, with the count.
    assert_eq!(
        err.unwrap_err(),
        RunError::TooManySteps { steps: 8, limit: 3 }
    );
    // A symbolic extent is counted with the size it is given.
    let n = Var::new("n");
    let (b, i) = (Buffer::new("B", DataType::Float32, [8i64]), Var::new("i"));
    let open = PrimFunc::new(
        "open",
        vec![b.clone()],
        Stmt::for_loop(
            &i,
            0,
            n.expr(),
            Stmt::store(
                &b,
                [Expr::floor_mod(i.expr(), Expr::int(8))],
                Value::f32(1.0),
            ),
        ),
    );
    let err = Interpreter::new().max_steps(3).run(
        &open,
        &HashMap::new(),
        &HashMap::from([(n.clone(), 100)]),
    );
    assert_eq!(
        err.unwrap_err(),
        RunError::TooManySteps {
            steps: 200,
            limit: 3
        }
    );

    // The interrupt hook is asked every INTERRUPT_INTERVAL steps; `true`
    // stops the run there.
    let long = PrimFunc::new(
        "long",
        vec![b.clone()],
        Stmt::for_range(
            &i,
            0,
            1 << 20,
            Stmt::store(
                &b,
                [Expr::floor_mod(i.expr(), Expr::int(8))],
                Value::f32(1.0),
            ),
        ),
    );
    let err = Interpreter::new().interrupt(tir::Interrupt(|| true)).run(
        &long,
        &HashMap::new(),
        &no_sizes(),
    );
    assert_eq!(
        err.unwrap_err(),
        RunError::Interrupted {
            steps: tir::INTERRUPT_INTERVAL
        }
    );
    let done = Interpreter::new().interrupt(tir::Interrupt(|| false)).run(
        &long,
        &HashMap::new(),
        &no_sizes(),
    );
    assert!(done.is_ok());

    let err = tir::run(&f, &HashMap::from([(a.clone(), ones(5))]), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::Input { buffer, .. } if buffer == "A"),
        "{err}"
    );

    let stranger = Buffer::new("A", DataType::Float32, [4i64]);
    let err = tir::run(&f, &HashMap::from([(stranger, ones(4))]), &no_sizes()).unwrap_err();
    assert!(err.to_string().contains("not a parameter"), "{err}");

    let t = Buffer::new("T", DataType::Float32, [1i64 << 40]);
    let g = PrimFunc::new(
        "huge",
        vec![],
        Stmt::realize(
            &t,
            vec![Range::from_extent(Expr::int(1 << 40))],
            Stmt::no_op(),
        ),
    );
    let err = tir::run(&g, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::Allocation { buffer, .. } if buffer == "T"),
        "{err}"
    );

    let i8buf = Buffer::new("I", DataType::Int8, [1i64]);
    let h = PrimFunc::new("narrow", vec![i8buf.clone()], Stmt::no_op());
    let err = tir::run(
        &h,
        &HashMap::from([(i8buf.clone(), Tensor::new(vec![1], vec![300.0]).unwrap())]),
        &no_sizes(),
    );
    assert!(matches!(err, Err(RunError::Input { .. })));
    let out = tir::run(
        &h,
        &HashMap::from([(i8buf.clone(), Tensor::new(vec![1], vec![-2.6]).unwrap())]),
        &no_sizes(),
    );
    assert_eq!(out.unwrap().tensor(&i8buf).unwrap().data(), &[-3.0]);
}

#[test]
fn extreme_region_bounds_are_violations_not_panics() {
    let a = Buffer::new("A", DataType::Int32, [4i64]);
    let far = vec![Range::new(Expr::int(i64::MIN + 1), Expr::int(i64::MAX))];
    let f = PrimFunc::new(
        "far",
        vec![a.clone()],
        Stmt::realize(&a, far, Stmt::store(&a, [Expr::int(3)], Value::i32(1))),
    );
    let err = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap_err();
    assert!(
        matches!(&err, RunError::Access(v) if matches!(v.problem, Problem::OutsideRegion { .. })),
        "{err}"
    );
}
