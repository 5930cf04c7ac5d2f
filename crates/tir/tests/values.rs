//! Intrinsic calls and data-dependent indices: printing, evaluation, and
//! run-time checks of indices read from buffers.

use arith::Var;
use std::collections::HashMap;
use tir::{Buffer, DataType, Interpreter, Intrinsic, PrimFunc, Stmt, Tensor, Value};

#[test]
fn intrinsic_calls_print_as_tvm_and_evaluate() {
    let a = Buffer::new("A", DataType::Float32, [3i64]);
    let b = Buffer::new("B", DataType::Float32, [3i64]);
    let i = Var::new("i");
    let v = Value::call(
        Intrinsic::Fmax,
        vec![
            Value::call(Intrinsic::Exp, vec![Value::load(&a, [i.expr()])]),
            Value::f32(2.0),
        ],
    );
    assert_eq!(v.to_string(), "fmax(exp(A[i]), 2.000000f)");
    assert_eq!(v.dtype(), DataType::Float32);
    let f = PrimFunc::new(
        "f",
        vec![a.clone(), b.clone()],
        Stmt::for_range(&i, 0, 3, Stmt::store(&b, [i.expr()], v)),
    );
    let inputs = HashMap::from([(a, Tensor::new(vec![3], vec![0.0, 1.0, -1.0]).unwrap())]);
    let out = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    let want: Vec<f64> = [0.0f64, 1.0, -1.0]
        .iter()
        .map(|x| (x.exp() as f32 as f64).max(2.0))
        .collect();
    assert_eq!(out.tensor(&b).unwrap().data(), &want[..]);
}

#[test]
fn an_integer_argument_makes_a_float32_call() {
    let v = Value::call(Intrinsic::Sqrt, vec![Value::i32(4)]);
    assert_eq!(v.dtype(), DataType::Float32);
    let b = Buffer::new("B", DataType::Float64, [1i64]);
    let f = PrimFunc::new("f", vec![b.clone()], Stmt::store(&b, [0i64], v));
    let out = tir::run(&f, &HashMap::new(), &HashMap::new()).unwrap();
    assert_eq!(out.tensor(&b).unwrap().data(), &[2.0]);
}

/// `C[i] = B[A[i]]` with `A` holding `idx`.
fn gather(idx: Vec<f64>) -> (PrimFunc, Buffer, HashMap<Buffer, Tensor>) {
    let a = Buffer::new("A", DataType::Int32, [3i64]);
    let b = Buffer::new("B", DataType::Float32, [4i64]);
    let c = Buffer::new("C", DataType::Float32, [3i64]);
    let i = Var::new("i");
    let k = Var::new("k");
    let v = Value::let_in(
        &k,
        Value::load(&a, [i.expr()]),
        Value::load(&b, [k.expr() + 1]),
    );
    let f = PrimFunc::new(
        "f",
        vec![a.clone(), b.clone(), c.clone()],
        Stmt::for_range(&i, 0, 3, Stmt::store(&c, [i.expr()], v)),
    );
    let inputs = HashMap::from([
        (a, Tensor::new(vec![3], idx).unwrap()),
        (
            b,
            Tensor::new(vec![4], vec![10.0, 11.0, 12.0, 13.0]).unwrap(),
        ),
    ]);
    (f, c, inputs)
}

#[test]
fn data_dependent_indices_print_inline_and_read_the_indexed_element() {
    let (f, c, inputs) = gather(vec![2.0, 0.0, 1.0]);
    assert_eq!(
        f.to_string(),
        "for (i, 0, 3) {\n  C[i] = B[(A[i] + 1)]\n}\n"
    );
    let out = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    assert_eq!(out.tensor(&c).unwrap().data(), &[13.0, 11.0, 12.0]);
}

#[test]
fn a_data_dependent_index_out_of_range_is_a_reported_violation() {
    let (f, _, inputs) = gather(vec![0.0, 3.0, -2.0]);
    let out = Interpreter::new()
        .keep_going(true)
        .run(&f, &inputs, &HashMap::new())
        .unwrap();
    assert_eq!(out.violation_count(), 2);
    assert_eq!(
        out.violations()[0].to_string(),
        "load of B[4] is outside the buffer's shape [4] in `C[i] = B[(A[i] + 1)]`"
    );
    let err = tir::run(&f, &inputs, &HashMap::new()).unwrap_err();
    assert!(err.to_string().contains("load of B[4]"), "{err}");
}

#[test]
fn flattening_keeps_the_bound_index() {
    let (f, _, _) = gather(vec![0.0, 0.0, 0.0]);
    let flat = tir::flatten(&f).unwrap();
    assert!(
        flat.func.to_string().contains("B[(A[i] + 1)]"),
        "{}",
        flat.func
    );
}

/// `B[P[i]] = i`: a scatter, the destination bound by a `let` of a value
/// read at run time.
fn scatter() -> (Buffer, Buffer, PrimFunc) {
    let p = Buffer::new("P", DataType::Int32, [4i64]);
    let b = Buffer::new("B", DataType::Int32, [4i64]);
    let (i, dst) = (Var::new("i"), Var::new("dst"));
    let body = Stmt::for_range(
        &i,
        0,
        4,
        Stmt::LetValue {
            var: dst.clone(),
            value: Value::load(&p, [i.expr()]),
            body: Box::new(Stmt::store(&b, [dst.expr()], Value::index(i.expr()))),
        },
    );
    let f = PrimFunc::new("invert", vec![p.clone(), b.clone()], body);
    (p, b, f)
}

#[test]
fn a_let_of_a_value_read_at_run_time_indexes_a_scatter() {
    let (p, b, f) = scatter();
    assert_eq!(
        f.body.to_string(),
        "for (i, 0, 4) {\n  let dst = P[i]\n  B[dst] = i\n}\n"
    );
    let inputs = HashMap::from([(p, Tensor::new(vec![4], vec![2.0, 0.0, 3.0, 1.0]).unwrap())]);
    let out = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    assert_eq!(out.tensor(&b).unwrap().data(), &[1.0, 3.0, 0.0, 2.0]);
    assert!(tir::verify_bound_vars(&f, &|_| false).is_ok());
}

#[test]
fn a_scatter_outside_its_buffer_is_caught_at_run_time() {
    let (p, _, f) = scatter();
    let inputs = HashMap::from([(p, Tensor::new(vec![4], vec![2.0, 0.0, 7.0, 1.0]).unwrap())]);
    let err = tir::run(&f, &inputs, &HashMap::new()).unwrap_err();
    assert!(
        err.to_string()
            .contains("store to B[7] is outside the buffer's shape [4]"),
        "{err}"
    );
}
