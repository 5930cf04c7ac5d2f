//! Blocks whose threads run together: a thread launch whose body gives a
//! buffer `shared` storage runs each statement for every thread before the
//! next, so a thread reads what the others stored, as on a GPU; buffers
//! that are not shared have a copy per thread.

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

fn input(n: usize) -> Tensor {
    Tensor::new(vec![n], (0..n).map(|x| (x * x) as f64 + 1.0).collect()).unwrap()
}

/// `threadIdx.x` in [0, 8) { allocate S (shared) [8] { S[tx] = A[tx];
/// B[tx] = S[(tx + 1) % 8] } }: each thread reads its neighbour's part.
#[test]
fn threads_read_what_the_other_threads_of_the_block_stored() {
    let a = Buffer::new("A", DataType::Float32, [8i64]);
    let b = Buffer::new("B", DataType::Float32, [8i64]);
    let s = Buffer::new("S", DataType::Float32, [8i64]).with_scope("shared");
    let tx = Var::new("threadIdx.x");
    let next = Expr::floor_mod(tx.expr() + 1, Expr::int(8));
    let body = Stmt::allocate(
        &s,
        vec![Expr::int(8)],
        Stmt::seq([
            Stmt::store(&s, [tx.expr()], Value::load(&a, [tx.expr()])),
            Stmt::store(&b, [tx.expr()], Value::load(&s, [next])),
        ]),
    );
    let f = PrimFunc::new(
        "f",
        vec![a.clone(), b.clone()],
        launch(&tx, "threadIdx.x", 8, body),
    );
    let out = tir::run(&f, &HashMap::from([(a, input(8))]), &HashMap::new()).unwrap();
    let want: Vec<f64> = (0..8)
        .map(|i| (((i + 1) % 8) * ((i + 1) % 8)) as f64 + 1.0)
        .collect();
    assert_eq!(out.tensor(&b).unwrap().data(), &want[..]);
    // Each thread stores its element once.
    assert_eq!(out.runs("S"), 8);
}

/// A local accumulator per thread, summing a shared tile the threads fetch
/// together in a loop the same for all (`k`), the fetch guarded per thread
/// and bound to the thread again under a new variable (TVM's cooperative
/// fetch): `B[t] = sum over k of A[k * 4 + (t + 1) % 4]`.
#[test]
fn a_tile_fetched_together_feeds_a_copy_per_thread() {
    let a = Buffer::new("A", DataType::Float32, [12i64]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let s = Buffer::new("S", DataType::Float32, [4i64]).with_scope("shared");
    let acc = Buffer::new("acc", DataType::Float32, [1i64]).with_scope("local");
    let (tx, fetch, k) = (Var::new("tx"), Var::new("tx_1"), Var::new("k"));
    let fetch_body = launch(
        &fetch,
        "threadIdx.x",
        4,
        Stmt::if_then(
            Value::index(Expr::lt(fetch.expr(), Expr::int(4))),
            Stmt::store(
                &s,
                [fetch.expr()],
                Value::load(&a, [k.expr() * 4 + fetch.expr()]),
            ),
        ),
    );
    let neighbour = Expr::floor_mod(tx.expr() + 1, Expr::int(4));
    let body = Stmt::allocate(
        &acc,
        vec![Expr::int(1)],
        Stmt::seq([
            Stmt::store(&acc, [0i64], Value::f32(0.0)),
            Stmt::for_range(
                &k,
                0,
                3,
                Stmt::allocate(
                    &s,
                    vec![Expr::int(4)],
                    Stmt::seq([
                        fetch_body,
                        Stmt::store(
                            &acc,
                            [0i64],
                            Value::load(&acc, [0i64]) + Value::load(&s, [neighbour]),
                        ),
                    ]),
                ),
            ),
            Stmt::store(&b, [tx.expr()], Value::load(&acc, [0i64])),
        ]),
    );
    let f = PrimFunc::new(
        "f",
        vec![a.clone(), b.clone()],
        launch(&tx, "threadIdx.x", 4, body),
    );
    let data = input(12);
    let out = tir::run(&f, &HashMap::from([(a, data.clone())]), &HashMap::new()).unwrap();
    let want: Vec<f64> = (0..4)
        .map(|t| (0..3).map(|k| data.data()[k * 4 + (t + 1) % 4]).sum())
        .collect();
    assert_eq!(out.tensor(&b).unwrap().data(), &want[..]);
    assert_eq!(out.runs("S"), 12);
    assert_eq!(out.largest_region(&acc), Some(1));
}

/// A condition on the thread index covers each statement for the threads
/// it holds for; a `let` of the thread index is each thread's own.
#[test]
fn conditions_and_lets_on_the_thread_index_are_per_thread() {
    let a = Buffer::new("A", DataType::Float32, [8i64]);
    let b = Buffer::new("B", DataType::Float32, [8i64]);
    let s = Buffer::new("S", DataType::Float32, [8i64]).with_scope("shared");
    let (tx, r) = (Var::new("tx"), Var::new("r"));
    let body = Stmt::allocate(
        &s,
        vec![Expr::int(8)],
        Stmt::let_stmt(
            &r,
            Expr::sub(Expr::int(7), tx.expr()),
            Stmt::seq([
                Stmt::store(&s, [r.expr()], Value::load(&a, [tx.expr()])),
                Stmt::if_then_else(
                    Value::index(Expr::lt(tx.expr(), Expr::int(4))),
                    Stmt::store(&b, [tx.expr()], Value::load(&s, [tx.expr()])),
                    Stmt::store(&b, [tx.expr()], Value::f32(-1.0)),
                ),
            ]),
        ),
    );
    let f = PrimFunc::new(
        "f",
        vec![a.clone(), b.clone()],
        launch(&tx, "threadIdx.x", 8, body),
    );
    let data = input(8);
    let out = tir::run(&f, &HashMap::from([(a, data.clone())]), &HashMap::new()).unwrap();
    let want: Vec<f64> = (0..8)
        .map(|t| if t < 4 { data.data()[7 - t] } else { -1.0 })
        .collect();
    assert_eq!(out.tensor(&b).unwrap().data(), &want[..]);
}

/// Without shared storage, threads run one after another, as before.
#[test]
fn a_block_without_shared_storage_runs_thread_after_thread() {
    let a = Buffer::new("A", DataType::Float32, [4i64]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let l = Buffer::new("L", DataType::Float32, [1i64]).with_scope("local");
    let tx = Var::new("tx");
    let body = Stmt::allocate(
        &l,
        vec![Expr::int(1)],
        Stmt::seq([
            Stmt::store(&l, [0i64], Value::load(&a, [tx.expr()]) * Value::f32(2.0)),
            Stmt::store(&b, [tx.expr()], Value::load(&l, [0i64])),
        ]),
    );
    let f = PrimFunc::new(
        "f",
        vec![a.clone(), b.clone()],
        launch(&tx, "threadIdx.x", 4, body),
    );
    let data = input(4);
    let out = tir::run(&f, &HashMap::from([(a, data.clone())]), &HashMap::new()).unwrap();
    let want: Vec<f64> = data.data().iter().map(|x| x * 2.0).collect();
    assert_eq!(out.tensor(&b).unwrap().data(), &want[..]);
}

/// A shared buffer whose size differs per thread cannot be one storage for
/// the block: an error naming it, not a run.
#[test]
fn a_shared_region_that_depends_on_the_thread_is_an_error() {
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let s = Buffer::new("S", DataType::Float32, [4i64]).with_scope("shared");
    let tx = Var::new("tx");
    let body = Stmt::allocate(
        &s,
        vec![tx.expr() + 1],
        Stmt::store(&b, [tx.expr()], Value::f32(1.0)),
    );
    let f = PrimFunc::new("f", vec![b.clone()], launch(&tx, "threadIdx.x", 4, body));
    let err = tir::run(&f, &HashMap::new(), &HashMap::new()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("one storage for all the threads"), "{text}");
}

/// A block too large for a copy per thread of its local buffers is an
/// error, not a run that exhausts memory.
#[test]
fn a_block_of_too_many_threads_for_local_copies_is_an_error() {
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let s = Buffer::new("S", DataType::Float32, [1i64]).with_scope("shared");
    let l = Buffer::new("L", DataType::Float32, [1i64]).with_scope("local");
    let tx = Var::new("tx");
    let body = Stmt::allocate(
        &s,
        vec![Expr::int(1)],
        Stmt::allocate(
            &l,
            vec![Expr::int(1)],
            Stmt::store(&l, [0i64], Value::f32(1.0)),
        ),
    );
    let f = PrimFunc::new("f", vec![b], launch(&tx, "threadIdx.x", 1 << 40, body));
    let text = tir::run(&f, &HashMap::new(), &HashMap::new())
        .unwrap_err()
        .to_string();
    assert!(text.contains("a GPU block has at most 1024"), "{text}");
}
