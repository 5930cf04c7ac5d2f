//! Value nodes beyond arithmetic: intrinsic calls, comparisons of values,
//! casts, products, data-dependent indices; and unused placeholders among
//! the arguments of `lower`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use arith::{CmpOp, Expr};
use std::collections::HashMap;
use te::{
    compute_named, create_schedule, infer_bound, lower, placeholder, prod, reduce_axis, Reducer,
    Reference, Tensor, Value,
};
use tir::{DataType, Intrinsic};

/// Runs the lowered program of `outputs` on `inputs` and compares each
/// output element with the reference evaluator.
fn run_and_compare(args: &[Tensor], inputs: &[(Tensor, Vec<f64>)]) -> tir::RunResult {
    let outs: Vec<Tensor> = args
        .iter()
        .filter(|t| t.op().as_compute().is_some())
        .cloned()
        .collect();
    run_schedule_and_compare(&create_schedule(&outs), args, inputs)
}

/// [`run_and_compare`] for the program of schedule `s`.
fn run_schedule_and_compare(
    s: &te::Schedule,
    args: &[Tensor],
    inputs: &[(Tensor, Vec<f64>)],
) -> tir::RunResult {
    let f = lower(s, args).unwrap();
    let mut by_buffer = HashMap::new();
    let mut by_op = HashMap::new();
    for (t, data) in inputs {
        let k = args.iter().position(|a| a == t).unwrap();
        let shape: Vec<usize> = t
            .op()
            .shape()
            .iter()
            .map(|d| d.as_int().unwrap() as usize)
            .collect();
        let x = tir::Tensor::new(shape, data.clone()).unwrap();
        by_buffer.insert(f.params[k].clone(), x.clone());
        by_op.insert(t.op().id(), x);
    }
    let sizes = HashMap::new();
    let out = tir::Interpreter::new()
        .keep_going(true)
        .run(&f, &by_buffer, &sizes)
        .unwrap();
    let mut reference = Reference::new(&by_op, &sizes);
    for (k, t) in args.iter().enumerate() {
        if t.op().as_compute().is_none() {
            continue;
        }
        let got = out.tensor(&f.params[k]).unwrap();
        let n = got.shape()[0];
        for i in 0..n {
            let want = reference.element(t.op(), &[i as i64]).unwrap();
            assert_eq!(got.data()[i], want, "{}[{i}]", t.name());
        }
    }
    out
}

#[test]
fn intrinsics_selects_on_values_casts_and_modulo_evaluate_as_the_reference() {
    let a = placeholder([6], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [6],
        &["i"],
        |i| {
            let x = a.at([&i[0]]);
            let e = Value::call(Intrinsic::Exp, vec![x.clone()]);
            let c = Value::cmp(CmpOp::Gt, x.clone(), Value::float(0.0));
            let t = Value::cast(DataType::Int32, x.clone() * 4.0);
            Value::select_value(
                c,
                e,
                Value::binary(te::BinaryOp::Mod, t, Value::int(3)) + 0.5,
            )
        },
        "B",
    )
    .unwrap();
    assert_eq!(
        b.op().as_compute().unwrap().body.to_string(),
        "if_then_else((A[i] > 0.0), exp(A[i]), int32(A[i] * 4.0) % 3 + 0.5)"
    );
    let out = run_and_compare(
        &[a.clone(), b.clone()],
        &[(a, vec![-1.5, -0.3, 0.0, 0.2, 1.0, -2.6])],
    );
    assert_eq!(out.violation_count(), 0);
}

#[test]
fn a_product_reduction_starts_at_one() {
    let a = placeholder([3, 4], "A", DataType::Float32).unwrap();
    let k = reduce_axis((0, 4), "k");
    let b = compute_named(
        [3],
        &["i"],
        |i| prod(a.at([i[0].clone(), k.expr()]), &[k.clone()]),
        "B",
    )
    .unwrap();
    let body = b.op().as_compute().unwrap().body.clone();
    assert_eq!(body.as_reduce().unwrap().reducer, Reducer::Prod);
    assert_eq!(body.to_string(), "prod(A[i, k], axis=[k])");
    let data: Vec<f64> = (0..12).map(|x| 0.5 + x as f64 / 4.0).collect();
    run_and_compare(&[a.clone(), b], &[(a, data)]);
}

/// `B[i] = A[i] * 2` for 8 elements, `C[i] = B[idx[i] + 1]` for 4.
fn gather() -> (Tensor, Tensor, Tensor, Tensor) {
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let idx = placeholder([4], "idx", DataType::Int32).unwrap();
    let b = compute_named([8], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    let c = compute_named(
        [4],
        &["j"],
        |j| Value::gather(&b, vec![idx.at([&j[0]]) + 1]),
        "C",
    )
    .unwrap();
    (a, idx, b, c)
}

#[test]
fn a_data_dependent_access_needs_the_whole_extent() {
    let (_, _, b, c) = gather();
    assert_eq!(
        c.op().as_compute().unwrap().body.to_string(),
        "B[idx[j] + 1]"
    );
    let s = create_schedule(&[c.clone()]);
    let bounds = infer_bound(&s).unwrap();
    let region = bounds.region(b.op()).unwrap();
    assert_eq!(region[0].min.as_int(), Some(0));
    assert_eq!(region[0].extent.as_int(), Some(8));
    // The same read with an index expression needs 4 elements only.
    let c2 = compute_named([4], &["j"], |j| b.at([j[0].clone() + 1]), "C2").unwrap();
    let s2 = create_schedule(&[c2]);
    let r2 = infer_bound(&s2).unwrap().region(b.op()).unwrap();
    assert_eq!(
        (r2[0].min.as_int(), r2[0].extent.as_int()),
        (Some(1), Some(4))
    );
}

#[test]
fn a_data_dependent_access_lowers_runs_and_reports_out_of_range_values() {
    let (a, idx, _, c) = gather();
    let args = [a.clone(), idx.clone(), c.clone()];
    let a_data: Vec<f64> = (0..8).map(|x| x as f64).collect();
    let out = run_and_compare(
        &args,
        &[
            (a.clone(), a_data.clone()),
            (idx.clone(), vec![6.0, 0.0, 3.0, -1.0]),
        ],
    );
    assert_eq!(out.violation_count(), 0);
    let f = lower(&create_schedule(&[c.clone()]), &args).unwrap();
    assert!(f.to_string().contains("C[j] = B[(idx[j] + 1)]"), "{f}");
    // An index value past the end is reported by the interpreter.
    let mut inputs = HashMap::new();
    inputs.insert(
        f.params[0].clone(),
        tir::Tensor::new(vec![8], a_data).unwrap(),
    );
    inputs.insert(
        f.params[1].clone(),
        tir::Tensor::new(vec![4], vec![0.0, 7.0, 1.0, 1.0]).unwrap(),
    );
    let out = tir::Interpreter::new()
        .keep_going(true)
        .run(&f, &inputs, &HashMap::new())
        .unwrap();
    assert_eq!(out.violation_count(), 1);
    assert!(out.violations()[0]
        .to_string()
        .starts_with("load of B[8] is outside"));
}

#[test]
fn unused_placeholders_are_passed_through() {
    let a = placeholder([4], "A", DataType::Float32).unwrap();
    let unused = placeholder([3, 2], "U", DataType::Int32).unwrap();
    let b = compute_named([4], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    let s = create_schedule(&[b.clone()]);
    let f = lower(&s, &[a.clone(), unused, b]).unwrap();
    assert_eq!(f.params.len(), 3);
    assert_eq!(f.params[1].name(), "U");
    assert_eq!(f.params[1].ndim(), 2);
    // A computed tensor outside the schedule is still an error.
    let other = compute_named([4], &["i"], |i| a.at([&i[0]]) * 2.0, "D").unwrap();
    assert!(lower(&s, &[a, other]).is_err());
}

#[test]
fn snapshot_of_every_new_node_lowered() {
    let a = placeholder([4, 3], "A", DataType::Float32).unwrap();
    let idx = placeholder([4], "idx", DataType::Int32).unwrap();
    let k = reduce_axis((0, 3), "k");
    let p = compute_named(
        [4],
        &["i"],
        |i| {
            prod(
                Value::call(Intrinsic::Tanh, vec![a.at([i[0].clone(), k.expr()])]),
                &[k.clone()],
            )
        },
        "P",
    )
    .unwrap();
    let o = compute_named(
        [4],
        &["j"],
        |j| {
            let g = Value::gather(&p, vec![idx.at([&j[0]])]);
            let c = Value::cmp(CmpOp::Ge, g.clone(), Value::float(0.0));
            Value::select_value(c, Value::cast(DataType::Float32, g.clone()), -g)
        },
        "O",
    )
    .unwrap();
    let s = create_schedule(&[o.clone()]);
    insta::assert_snapshot!(lower(&s, &[a, idx, o]).unwrap().to_string());
}

#[test]
fn an_inlined_tensor_read_at_value_indices_is_its_definition_at_those_values() {
    let (a, idx, b, c) = gather();
    let mut s = create_schedule(&[c.clone()]);
    s.compute_inline(&b).unwrap();
    // As TVM substitutes it: `B[idx[j] + 1]` is `A[idx[j] + 1] * 2`.
    let f = lower(&s, &[a.clone(), idx.clone(), c.clone()]).unwrap();
    assert!(
        f.to_string().contains("C[j] = (A[(idx[j] + 1)]*2.000000f)"),
        "{f}"
    );
    // A needs its whole extent: the indices are data.
    let bounds = infer_bound(&s).unwrap();
    assert!(bounds.region(b.op()).is_none());
    let a_data: Vec<f64> = (0..8).map(|x| x as f64).collect();
    let out = run_schedule_and_compare(
        &s,
        &[a.clone(), idx.clone(), c],
        &[(a, a_data), (idx, vec![6.0, 0.0, 3.0, -1.0])],
    );
    assert_eq!(out.violation_count(), 0);
}

#[test]
fn inlining_binds_value_indices_inside_index_arithmetic_and_conditions() {
    // `B[i] = select(i < 4, A[i // 2], A[7 - i])` inlined at `B[idx[j]]`:
    // the condition and both reads become computations on `idx[j]`.
    let a = placeholder([8], "A", DataType::Float32).unwrap();
    let idx = placeholder([4], "idx", DataType::Int32).unwrap();
    let b = compute_named(
        [8],
        &["i"],
        |i| {
            let i = &i[0];
            Value::select(
                Expr::lt(i.clone(), Expr::int(4)),
                a.at([Expr::floor_div(i.clone(), Expr::int(2))]),
                a.at([Expr::int(7) - i.clone()]),
            )
        },
        "B",
    )
    .unwrap();
    let c = compute_named(
        [4],
        &["j"],
        |j| Value::gather(&b, vec![idx.at([&j[0]])]),
        "C",
    )
    .unwrap();
    let mut s = create_schedule(&[c.clone()]);
    s.compute_inline(&b).unwrap();
    let a_data: Vec<f64> = (0..8).map(|x| 10.0 + x as f64).collect();
    let out = run_schedule_and_compare(
        &s,
        &[a.clone(), idx.clone(), c.clone()],
        &[(a.clone(), a_data), (idx.clone(), vec![0.0, 3.0, 4.0, 7.0])],
    );
    assert_eq!(out.violation_count(), 0);
    let f = lower(&s, &[a, idx, c]).unwrap();
    assert!(!f.to_string().contains("B["), "{f}");
}

/// A scalar parameter a computation reads (`A + x` for a `te.var` `x`, an
/// argument of `tvm.build`) gets a value in the run, as symbolic sizes do:
/// the run and the definitions see the same `x`.
#[test]
fn a_scalar_parameter_of_the_computation_gets_a_value_in_the_run() {
    let x = arith::Var::new("x");
    let a = placeholder([4, 3], "A", DataType::Float32).unwrap();
    let b = compute_named(
        [4, 3],
        &["i", "j"],
        |i| a.at([&i[0], &i[1]]) + Value::index(x.expr()),
        "B",
    )
    .unwrap();
    let s = create_schedule(&[b.clone()]);
    assert_eq!(s.symbolic_sizes(), vec![x]);
    let options = te::ReportOptions {
        run: true,
        ..Default::default()
    };
    let report = te::run_report(&s, &[a, b], &options).unwrap();
    assert!(report.is_clean(), "{}", report.to_text());
}
