//! Thread indices are kernel-wide: a statement of a kernel that reads a
//! thread's index outside that thread's launch runs for every thread, as
//! on a GPU (TOPI's CUDA reductions guard their last store with
//! `threadIdx.x == 0` after the launch of `threadIdx.x` closed).

use arith::CmpOp;
use arith::{Expr, Var};
use std::collections::HashMap;
use tir::{Buffer, DataType, ForKind, PrimFunc, Stmt, Tensor, ThreadLaunch, Value};

fn launch(var: &Var, tag: &str, extent: i64, body: Stmt) -> Stmt {
    let kind = ForKind::Thread(ThreadLaunch {
        tag: tag.to_string(),
        dom: None,
    });
    Stmt::for_kind(var, 0, extent, kind, Vec::new(), body)
}

fn is_zero(v: &Var) -> Value {
    Value::cmp(
        CmpOp::Eq,
        Value::index(v.expr()),
        Value::index(Expr::int(0)),
    )
}

/// `blockIdx.x` in [0, 4) { `threadIdx.x` in [0, 8) { T[bx, tx] = A[bx, tx] * 2 };
/// if (threadIdx.x == 0) { B[bx] = T[bx, 7] } }: the guard reads the thread
/// index after its launch closed; thread 0 of each block stores.
#[test]
fn a_guard_after_the_launch_reads_the_thread_index() {
    let a = Buffer::new("A", DataType::Float32, [4i64, 8]);
    let t = Buffer::new("T", DataType::Float32, [4i64, 8]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let bx = Var::new("blockIdx.x");
    let tx = Var::new("threadIdx.x");
    // The guard's index is the thread axis's own variable, not the loop's.
    let guard_tx = Var::new("threadIdx.x");
    let inner = launch(
        &tx,
        "threadIdx.x",
        8,
        Stmt::store(
            &t,
            [bx.expr(), tx.expr()],
            Value::load(&a, [bx.expr(), tx.expr()]) * Value::f32(2.0),
        ),
    );
    let guarded = Stmt::if_then(
        is_zero(&guard_tx),
        Stmt::store(&b, [bx.expr()], Value::load(&t, [bx.expr(), Expr::int(7)])),
    );
    let body = launch(&bx, "blockIdx.x", 4, Stmt::seq([inner, guarded]));
    let f = PrimFunc::new("f", vec![a.clone(), t.clone(), b.clone()], body);
    let data = Tensor::new(vec![4, 8], (0..32).map(f64::from).collect()).unwrap();
    let out = tir::run(&f, &HashMap::from([(a, data)]), &HashMap::new()).unwrap();
    assert_eq!(out.tensor(&b).unwrap().data(), &[14.0, 30.0, 46.0, 62.0]);
    // One store per block: the guard held for one thread of each.
    assert_eq!(out.runs("B"), 4);
    // The program prints as written: the launch is added for the run only.
    assert_eq!(
        f.body.to_string().matches("thread_extent").count(),
        2,
        "{}",
        f.body
    );
}

/// Inside the launch of `threadIdx.x` (its loop variable `tx`), a read of
/// the variable `threadIdx.x` is that launch's index.
#[test]
fn inside_its_launch_the_thread_index_is_the_launchs() {
    let b = Buffer::new("B", DataType::Int32, [8i64]);
    let tx = Var::new("tx");
    let free = Var::new("threadIdx.x");
    let body = launch(
        &tx,
        "threadIdx.x",
        8,
        Stmt::store(&b, [tx.expr()], Value::index(free.expr() * 3)),
    );
    let f = PrimFunc::new("f", vec![b.clone()], body);
    let out = tir::run(&f, &HashMap::new(), &HashMap::new()).unwrap();
    let want: Vec<f64> = (0..8).map(|i| f64::from(i * 3)).collect();
    assert_eq!(out.tensor(&b).unwrap().data(), &want[..]);
}

/// Outside every kernel a thread index has no value, and where the
/// thread's launches disagree on its range the statement cannot be given
/// one: both stay errors naming the index.
#[test]
fn a_thread_index_outside_its_kernel_or_of_an_ambiguous_range_is_an_error() {
    let b = Buffer::new("B", DataType::Float32, [8i64]);
    let tx = Var::new("threadIdx.x");
    let free = Var::new("threadIdx.x");
    let store = |i: Expr| Stmt::store(&b, [i], Value::f32(1.0));

    let outside = Stmt::seq([
        launch(&tx, "threadIdx.x", 8, store(tx.expr())),
        Stmt::if_then(is_zero(&free), store(Expr::int(0))),
    ]);
    let f = PrimFunc::new("f", vec![b.clone()], outside);
    let e = tir::run(&f, &HashMap::new(), &HashMap::new()).unwrap_err();
    assert!(e.to_string().contains("`threadIdx.x` has no value"), "{e}");

    let (bx, tx2) = (Var::new("blockIdx.x"), Var::new("threadIdx.x"));
    let ambiguous = launch(
        &bx,
        "blockIdx.x",
        1,
        Stmt::seq([
            launch(&tx, "threadIdx.x", 8, store(tx.expr())),
            launch(&tx2, "threadIdx.x", 4, store(tx2.expr())),
            Stmt::if_then(is_zero(&free), store(Expr::int(0))),
        ]),
    );
    let f = PrimFunc::new("f", vec![b.clone()], ambiguous);
    let e = tir::run(&f, &HashMap::new(), &HashMap::new()).unwrap_err();
    assert!(e.to_string().contains("`threadIdx.x` has no value"), "{e}");
}
