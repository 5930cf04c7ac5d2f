//! `while (cond) { body }`: a loop whose trip count only running it tells
//! (TOPI's binary searches). Oracle: the same search written in Rust.

use arith::{CmpOp, Expr, Var};
use proptest::prelude::*;
use std::collections::HashMap;
use tir::{BinOp, Buffer, DataType, Interpreter, PrimFunc, RunError, Stmt, Tensor, Value};

fn int(v: i64) -> Value {
    Value::constant(v as f64, DataType::Int32)
}

/// For each query `q`, the first position of `seq` whose element is not
/// smaller than `queries[q]`: `lo`/`hi` narrowed by a `while` loop.
fn lower_bound_program(width: i64, queries: i64) -> (PrimFunc, [Buffer; 3]) {
    let seq = Buffer::new("seq", DataType::Float32, [width]);
    let val = Buffer::new("val", DataType::Float32, [queries]);
    let out = Buffer::new("out", DataType::Int32, [queries]);
    let lo = Buffer::new("lo", DataType::Int32, [1i64]).with_scope("local");
    let hi = Buffer::new("hi", DataType::Int32, [1i64]).with_scope("local");
    let q = Var::new("q");
    let at = |b: &Buffer| Value::load(b, [Expr::int(0)]);
    let mid = || {
        Value::binary(
            BinOp::Add,
            at(&lo),
            Value::binary(
                BinOp::FloorDiv,
                Value::binary(BinOp::Sub, at(&hi), at(&lo)),
                int(2),
            ),
        )
    };
    let mid_index = Var::new("mid");
    let step = Stmt::LetValue {
        var: mid_index.clone(),
        value: mid(),
        body: Box::new(Stmt::if_then_else(
            Value::cmp(
                CmpOp::Lt,
                Value::load(&seq, [mid_index.expr()]),
                Value::load(&val, [q.expr()]),
            ),
            Stmt::store(
                &lo,
                [Expr::int(0)],
                Value::binary(BinOp::Add, mid(), int(1)),
            ),
            Stmt::store(&hi, [Expr::int(0)], mid()),
        )),
    };
    let search = Stmt::Seq(vec![
        Stmt::store(&lo, [Expr::int(0)], int(0)),
        Stmt::store(&hi, [Expr::int(0)], int(width)),
        Stmt::while_loop(Value::cmp(CmpOp::Lt, at(&lo), at(&hi)), step),
        Stmt::store(&out, [q.expr()], at(&lo)),
    ]);
    let body = Stmt::for_range(
        &q,
        0,
        queries,
        Stmt::allocate(
            &lo,
            vec![Expr::int(1)],
            Stmt::allocate(&hi, vec![Expr::int(1)], search),
        ),
    );
    let f = PrimFunc::new(
        "lower_bound",
        vec![seq.clone(), val.clone(), out.clone()],
        body,
    );
    (f, [seq, val, out])
}

#[test]
fn a_while_loop_prints_as_tvm_and_runs_until_its_condition_fails() {
    let (f, [seq, val, out]) = lower_bound_program(8, 4);
    let text = f.to_string();
    assert!(
        text.contains("\n  while ((lo[0] < hi[0])) {\n    let mid"),
        "{text}"
    );
    let script = tir::tvmscript(&f).unwrap();
    assert!(script.contains("while lo_1[0] < hi_1[0]:"), "{script}");
    let inputs = HashMap::from([
        (
            seq,
            Tensor::new(vec![8], vec![1.0, 2.0, 2.0, 4.0, 7.0, 9.0, 9.0, 12.0]).unwrap(),
        ),
        (
            val,
            Tensor::new(vec![4], vec![0.0, 2.0, 9.5, 13.0]).unwrap(),
        ),
    ]);
    let r = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    assert_eq!(r.tensor(&out).unwrap().data(), &[0.0, 1.0, 7.0, 8.0]);
}

#[test]
fn a_while_loop_that_never_ends_stops_at_the_step_limit() {
    let x = Buffer::new("x", DataType::Int32, [1i64]);
    let at = || Value::load(&x, [Expr::int(0)]);
    let f = PrimFunc::new(
        "spin",
        vec![x.clone()],
        Stmt::while_loop(
            Value::cmp(CmpOp::Gt, at(), int(0)),
            Stmt::store(&x, [Expr::int(0)], Value::binary(BinOp::Add, at(), int(1))),
        ),
    );
    let inputs = HashMap::from([(x, Tensor::new(vec![1], vec![1.0]).unwrap())]);
    // Not refused before running: how often the loop runs is unknown.
    let e = Interpreter::new()
        .max_steps(1000)
        .run(&f, &inputs, &HashMap::new())
        .unwrap_err();
    assert!(matches!(e, RunError::StepLimit { limit: 1000 }), "{e}");
}

proptest! {
    /// The loop finds what a binary search in Rust finds, for any sorted
    /// row and any queries.
    #[test]
    fn the_search_agrees_with_rust(
        mut row in prop::collection::vec(-20i32..20, 1..12),
        queries in prop::collection::vec(-22i32..22, 1..6),
    ) {
        row.sort();
        let (f, [seq, val, out]) = lower_bound_program(row.len() as i64, queries.len() as i64);
        let inputs = HashMap::from([
            (seq, Tensor::new(vec![row.len()], row.iter().map(|&v| v as f64).collect()).unwrap()),
            (val, Tensor::new(vec![queries.len()], queries.iter().map(|&v| v as f64).collect()).unwrap()),
        ]);
        let r = tir::run(&f, &inputs, &HashMap::new()).unwrap();
        let want: Vec<f64> = queries
            .iter()
            .map(|q| row.partition_point(|x| x < q) as f64)
            .collect();
        prop_assert_eq!(r.tensor(&out).unwrap().data(), want.as_slice());
    }
}
