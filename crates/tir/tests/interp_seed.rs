//! The interpreter on programs printed in seed 000: outputs against direct
//! evaluation of the compute definitions, and execution counts.

mod common;

use arith::{Expr, Range, Var};
use std::collections::HashMap;
use tir::{Buffer, DataType, PrimFunc, Stmt, Tensor, Value};

fn no_sizes() -> HashMap<Var, i64> {
    HashMap::new()
}

/// `A` of 16 elements with distinct values.
fn input_a() -> Tensor {
    Tensor::from_fn(&[16], |ix| (ix[0] as f64) * 1.5 - 7.0)
}

#[test]
fn ex6_tvm_recomputes_all_of_b_each_outer_iteration() {
    let (f, a, c) = common::ex6_tvm();
    let inputs = HashMap::from([(a, input_a())]);
    let out = tir::run(&f, &inputs, &no_sizes()).unwrap();
    let want: Vec<f64> = input_a().data().iter().map(|x| (x + 2.0) * 3.0).collect();
    assert_eq!(out.tensor(&c).unwrap().data(), &want[..]);
    assert_eq!(out.unwritten(&c), Some(0));
    // TVM's fallback: 16 elements of B per iteration of the outer loop.
    assert_eq!(out.runs("B"), 64);
    assert_eq!(out.runs("C"), 16);
    // Each iteration reads 4 of the 16 elements it computes.
    assert_eq!(out.unused("B"), 48);
    assert_eq!(out.unused("C"), 0);
    assert_eq!(out.largest_region_named("B"), Some(16));
}

#[test]
fn ex6_rows_computes_one_row_per_iteration() {
    let (f, a, c) = common::ex6_rows();
    let inputs = HashMap::from([(a, input_a())]);
    let out = tir::run(&f, &inputs, &no_sizes()).unwrap();
    let want: Vec<f64> = input_a().data().iter().map(|x| (x + 2.0) * 3.0).collect();
    assert_eq!(out.tensor(&c).unwrap().data(), &want[..]);
    assert_eq!(out.runs("B"), 16);
    assert_eq!(out.unused("B"), 0);
    assert_eq!(out.largest_region_named("B"), Some(4));
}

#[test]
fn ex4_realizes_one_element_of_c_per_point_of_d() {
    let (f, d) = common::ex4();
    let out = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap();
    let t = out.tensor(&d).unwrap();
    assert_eq!(t.shape(), &[4, 5, 16]);
    assert!(t.data().iter().all(|&x| x == 10.0));
    assert_eq!(out.unwritten(&d), Some(0));
    assert_eq!(out.runs("C"), 320);
    assert_eq!(out.runs("D"), 320);
    assert_eq!(out.largest_region_named("C"), Some(1));
    assert_eq!(out.largest_region_named("D"), Some(320));
}

#[test]
fn chain_runs_each_stage_once_per_point() {
    let (f, e) = common::chain();
    let out = tir::run(&f, &HashMap::new(), &no_sizes()).unwrap();
    assert!(out.tensor(&e).unwrap().data().iter().all(|&x| x == 40.0));
    assert_eq!(
        out.stage_runs().clone().into_iter().collect::<Vec<_>>(),
        [
            ("C".to_string(), 80),
            ("D".to_string(), 80),
            ("E".to_string(), 80)
        ]
    );
}

/// Seed 000's Ex. 6 with B computed at the fused outer loop and realized on
/// exactly the row that iteration needs (case T8, beyond TVM): absolute
/// indices, `realize B([xo, 1], [0, 4])`.
#[test]
fn ex6_with_exact_per_iteration_region() {
    let a = Buffer::new("A", DataType::Float32, [4i64, 4]);
    let b = Buffer::new("B", DataType::Float32, [4i64, 4]);
    let c = Buffer::new("C", DataType::Float32, [4i64, 4]);
    let [xo, xi, bi, bj] = ["xo", "xi", "bi", "bj"].map(Var::new);
    let fused = xo.expr() * 4 + xi.expr();
    let (ci, cj) = (
        Expr::floor_div(fused.clone(), Expr::int(4)),
        Expr::floor_mod(fused, Expr::int(4)),
    );
    let produce_b = Stmt::produce(
        "B",
        Stmt::for_loop(
            &bi,
            xo.expr(),
            1,
            Stmt::for_range(
                &bj,
                0,
                4,
                Stmt::store(
                    &b,
                    [bi.expr(), bj.expr()],
                    Value::load(&a, [bi.expr(), bj.expr()]) + Value::f32(2.0),
                ),
            ),
        ),
    );
    let consume = Stmt::for_range(
        &xi,
        0,
        4,
        Stmt::store(
            &c,
            [ci.clone(), cj.clone()],
            Value::load(&b, [ci, cj]) * Value::f32(3.0),
        ),
    );
    let region = vec![
        Range::new(xo.expr(), Expr::int(1)),
        Range::from_extent(Expr::int(4)),
    ];
    let body = Stmt::for_range(
        &xo,
        0,
        4,
        Stmt::realize(&b, region, Stmt::seq([produce_b, consume])),
    );
    let f = PrimFunc::new("t8", vec![a.clone(), c.clone()], Stmt::produce("C", body));
    let input = Tensor::from_fn(&[4, 4], |ix| (ix[0] * 4 + ix[1]) as f64);
    let out = tir::run(&f, &HashMap::from([(a, input.clone())]), &no_sizes()).unwrap();
    let want: Vec<f64> = input.data().iter().map(|x| (x + 2.0) * 3.0).collect();
    assert_eq!(out.tensor(&c).unwrap().data(), &want[..]);
    assert_eq!(out.runs("B"), 16);
    assert_eq!(out.largest_region(&b), Some(4));
}

/// Case T10: extent 20 split by 16, the producer computed at the outer loop
/// with inner extent `min(16, 20 - xo*16)`: 20 runs, nothing out of bounds.
#[test]
fn t10_non_divisible_split_with_tight_inner_extent() {
    let n = Var::new("n");
    let a = Buffer::new("A", DataType::Float32, [n.expr()]);
    let p = Buffer::new("P", DataType::Float32, [n.expr()]);
    let c = Buffer::new("C", DataType::Float32, [n.expr()]);
    let [xo, xi, px] = ["xo", "xi", "px"].map(Var::new);
    let inner = Expr::min(Expr::int(16), n.expr() - xo.expr() * 16);
    let idx = |v: &Var| xo.expr() * 16 + v.expr();
    let produce_p = Stmt::produce(
        "P",
        Stmt::for_loop(
            &px,
            0,
            inner.clone(),
            Stmt::store(
                &p,
                [idx(&px)],
                Value::load(&a, [idx(&px)]) * Value::f32(2.0),
            ),
        ),
    );
    let consume = Stmt::for_loop(
        &xi,
        0,
        inner.clone(),
        Stmt::store(
            &c,
            [idx(&xi)],
            Value::load(&p, [idx(&xi)]) + Value::f32(1.0),
        ),
    );
    let region = vec![Range::new(xo.expr() * 16, inner)];
    let body = Stmt::for_loop(
        &xo,
        0,
        Expr::ceil_div(n.expr(), Expr::int(16)),
        Stmt::realize(&p, region, Stmt::seq([produce_p, consume])),
    );
    let f = PrimFunc::new("t10", vec![a.clone(), c.clone()], body);
    let input = Tensor::from_fn(&[20], |ix| ix[0] as f64);
    let out = tir::run(&f, &HashMap::from([(a, input)]), &HashMap::from([(n, 20)])).unwrap();
    let want: Vec<f64> = (0..20).map(|x| x as f64 * 2.0 + 1.0).collect();
    assert_eq!(out.tensor(&c).unwrap().data(), &want[..]);
    assert_eq!(out.runs("P"), 20);
    assert_eq!(out.largest_region(&p), Some(16));
}

/// Values: float32 rounding, integer casts, `select`, true division.
#[test]
fn value_semantics() {
    let i = Var::new("i");
    let a = Buffer::new("A", DataType::Float32, [4i64]);
    let q = Buffer::new("Q", DataType::Float32, [4i64]);
    let t = Buffer::new("T", DataType::Int32, [4i64]);
    let m = Buffer::new("M", DataType::Int32, [4i64]);
    let x = || Value::load(&a, [i.expr()]);
    let body = Stmt::for_range(
        &i,
        0,
        4,
        Stmt::seq([
            Stmt::store(
                &q,
                [i.expr()],
                Value::binary(tir::BinOp::Div, x(), Value::f32(3.0)),
            ),
            Stmt::store(&t, [i.expr()], Value::cast(DataType::Int32, x())),
            // select(A[i] < 0, -A[i], A[i]) as int, then i - 5 floordiv 2.
            Stmt::store(
                &m,
                [i.expr()],
                Value::binary(
                    tir::BinOp::FloorDiv,
                    Value::index(i.expr() - 5),
                    Value::i32(2),
                ) + Value::cast(
                    DataType::Int32,
                    Value::select(
                        Value::cmp(arith::CmpOp::Lt, x(), Value::f32(0.0)),
                        -x(),
                        x(),
                    ),
                ),
            ),
        ]),
    );
    let f = PrimFunc::new(
        "values",
        vec![a.clone(), q.clone(), t.clone(), m.clone()],
        body,
    );
    let input = Tensor::new(vec![4], vec![1.0, -2.5, 2.5, 7.75]).unwrap();
    let out = tir::run(&f, &HashMap::from([(a, input)]), &no_sizes()).unwrap();
    let third: Vec<f64> = [1.0f32, -2.5, 2.5, 7.75]
        .iter()
        .map(|v| (v / 3.0) as f64)
        .collect();
    assert_eq!(out.tensor(&q).unwrap().data(), &third[..]);
    assert_eq!(out.tensor(&t).unwrap().data(), &[1.0, -2.0, 2.0, 7.0]);
    // floordiv(i - 5, 2) for i = 0..4 is -3, -2, -2, -1.
    assert_eq!(out.tensor(&m).unwrap().data(), &[-2.0, 0.0, 0.0, 6.0]);
}

/// A reduction: `C[i] = 0; for k: C[i] = C[i] + A[i, k]`, reading its own
/// output.
#[test]
fn reduction_reads_its_own_writes() {
    let a = Buffer::new("A", DataType::Int32, [3i64, 5]);
    let c = Buffer::new("C", DataType::Int32, [3i64]);
    let (i, k) = (Var::new("i"), Var::new("k"));
    let body = Stmt::for_range(
        &i,
        0,
        3,
        Stmt::seq([
            Stmt::store(&c, [i.expr()], Value::i32(0)),
            Stmt::for_range(
                &k,
                0,
                5,
                Stmt::store(
                    &c,
                    [i.expr()],
                    Value::load(&c, [i.expr()]) + Value::load(&a, [i.expr(), k.expr()]),
                ),
            ),
        ]),
    );
    let f = PrimFunc::new("sum", vec![a.clone(), c.clone()], body);
    let input = Tensor::from_fn(&[3, 5], |ix| (ix[0] * 10 + ix[1]) as f64);
    let out = tir::run(&f, &HashMap::from([(a, input)]), &no_sizes()).unwrap();
    assert_eq!(out.tensor(&c).unwrap().data(), &[10.0, 60.0, 110.0]);
    assert_eq!(out.runs("C"), 18);
}

/// Case T11: T (4x4) realized whole for two consumers that read `T[0:2, 0:2]`
/// and `T[2:4, 2:4]`: 16 elements computed, 8 of them wasted.
#[test]
fn t11_per_axis_union_overcomputes_half_of_t() {
    let a = Buffer::new("A", DataType::Float32, [4i64, 4]);
    let t = Buffer::new("T", DataType::Float32, [4i64, 4]);
    let p = Buffer::new("P", DataType::Float32, [2i64, 2]);
    let q = Buffer::new("Q", DataType::Float32, [2i64, 2]);
    let [i, j, pi, pj, qi, qj] = ["i", "j", "pi", "pj", "qi", "qj"].map(Var::new);
    let produce_t = Stmt::produce(
        "T",
        Stmt::for_range(
            &i,
            0,
            4,
            Stmt::for_range(
                &j,
                0,
                4,
                Stmt::store(
                    &t,
                    [i.expr(), j.expr()],
                    Value::load(&a, [i.expr(), j.expr()]) + Value::f32(1.0),
                ),
            ),
        ),
    );
    let consumer = |out: &Buffer, x: &Var, y: &Var, off: i64| {
        Stmt::for_range(
            x,
            0,
            2,
            Stmt::for_range(
                y,
                0,
                2,
                Stmt::store(
                    out,
                    [x.expr(), y.expr()],
                    Value::load(&t, [x.expr() + off, y.expr() + off]),
                ),
            ),
        )
    };
    let region = vec![
        Range::from_extent(Expr::int(4)),
        Range::from_extent(Expr::int(4)),
    ];
    let body = Stmt::realize(
        &t,
        region,
        Stmt::seq([
            produce_t,
            consumer(&p, &pi, &pj, 0),
            consumer(&q, &qi, &qj, 2),
        ]),
    );
    let f = PrimFunc::new("t11", vec![a.clone(), p.clone(), q.clone()], body);
    let input = Tensor::from_fn(&[4, 4], |ix| (ix[0] * 4 + ix[1]) as f64);
    let out = tir::run(&f, &HashMap::from([(a, input)]), &no_sizes()).unwrap();
    assert_eq!(out.tensor(&p).unwrap().data(), &[1.0, 2.0, 5.0, 6.0]);
    assert_eq!(out.tensor(&q).unwrap().data(), &[11.0, 12.0, 15.0, 16.0]);
    assert_eq!(out.runs("T"), 16);
    assert_eq!(out.unused("T"), 8);
    assert_eq!(out.largest_region(&t), Some(16));
}
