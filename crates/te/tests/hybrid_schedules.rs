//! Property test: a hybrid operation's loop nest (two or three loops, some
//! starting elsewhere than 0) under random splits, fuses, reorders and
//! annotations, with a consumer computed after it. A schedule is either
//! refused with an error, or its lowered program computes exactly what the
//! unscheduled body computes (the reference runs the body as written).

use arith::{Expr, Var};
use proptest::prelude::*;
use std::collections::HashMap;
use te::{
    check, compute_named, create_schedule, hybrid_op, placeholder, IterVar, Schedule, Tensor,
};
use tir::{Buffer, DataType, ForKind, Stmt, Value};

#[derive(Clone, Debug)]
struct Plan {
    dims: Vec<i64>,
    /// Per loop, where it starts (the body reads `var + start`).
    starts: Vec<i64>,
    /// (leaf pick, factor).
    splits: Vec<(usize, i64)>,
    fuse: Option<usize>,
    reorder: Option<u64>,
    /// (leaf pick, 0 parallel / 1 vectorize / 2 unroll).
    annotations: Vec<(usize, u8)>,
}

fn plan() -> impl Strategy<Value = Plan> {
    (2usize..=3)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(1i64..=6, n),
                prop::collection::vec(0i64..=2, n),
                prop::collection::vec((0usize..8, 1i64..=5), 0..=3),
                prop::option::of(0usize..8),
                prop::option::of(any::<u64>()),
                prop::collection::vec((0usize..8, 0u8..3), 0..=2),
            )
        })
        .prop_map(|(dims, starts, splits, fuse, reorder, annotations)| Plan {
            dims,
            starts,
            splits,
            fuse,
            reorder,
            annotations,
        })
}

/// `C[i, j, ...] = A[i, j, ...] * 2 + i - j` over loops that start at
/// `starts` (stored at `var - start`).
fn hybrid(p: &Plan) -> (Tensor, Tensor) {
    let shape: Vec<Expr> = p.dims.iter().map(|&d| Expr::int(d)).collect();
    let a = placeholder(shape.clone(), "A", DataType::Float32).unwrap();
    let a_buf = Buffer::new("A", DataType::Float32, shape.clone());
    let c_buf = Buffer::new("c", DataType::Float32, shape);
    let names = ["i", "j", "k"];
    let vars: Vec<Var> = (0..p.dims.len()).map(|d| Var::new(names[d])).collect();
    let idx: Vec<Expr> = vars
        .iter()
        .zip(&p.starts)
        .map(|(v, &s)| Expr::sub(v.expr(), Expr::int(s)))
        .collect();
    let value = Value::binary(
        tir::BinOp::Add,
        Value::binary(
            tir::BinOp::Mul,
            Value::load(&a_buf, idx.clone()),
            Value::f32(2.0),
        ),
        Value::cast(
            DataType::Float32,
            Value::index(Expr::sub(idx[0].clone(), idx[1].clone())),
        ),
    );
    let mut body = Stmt::store(&c_buf, idx, value);
    for (d, v) in vars.iter().enumerate().rev() {
        let s = p.starts[d];
        body = Stmt::for_kind(v, s, p.dims[d], ForKind::Serial, Vec::new(), body);
    }
    let op = hybrid_op("h", vec![a.clone()], vec![a_buf], vec![c_buf], body).unwrap();
    (a, op.output())
}

fn schedule(p: &Plan, c: &Tensor, s: &mut Schedule) -> te::Result<()> {
    let leaves = |s: &Schedule| -> Vec<IterVar> { s.stage(c).unwrap().leaf_iter_vars().to_vec() };
    for &(pick, factor) in &p.splits {
        let l = leaves(s);
        s.split(c, &l[pick % l.len()], factor)?;
    }
    if let Some(pick) = p.fuse {
        let l = leaves(s);
        if l.len() >= 2 {
            let k = pick % (l.len() - 1);
            s.fuse(c, &l[k], &l[k + 1])?;
        }
    }
    if let Some(seed) = p.reorder {
        let mut l = leaves(s);
        let mut rng = te::XorShift::new(seed);
        for k in (1..l.len()).rev() {
            let j = (rng.next_u64() % (k as u64 + 1)) as usize;
            l.swap(k, j);
        }
        s.reorder(c, &l)?;
    }
    for &(pick, kind) in &p.annotations {
        let l = leaves(s);
        let iv = &l[pick % l.len()];
        match kind {
            0 => s.parallel(c, iv)?,
            1 => s.vectorize(c, iv)?,
            _ => s.unroll(c, iv)?,
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_scheduled_hybrid_operation_computes_what_its_body_computes(p in plan()) {
        let (a, c) = hybrid(&p);
        let d = compute_named(
            c.shape().to_vec(),
            &["x", "y", "z"][..p.dims.len()],
            |x| c.at(x.to_vec()) + 1.0,
            "D",
        )
        .unwrap();
        let mut s = create_schedule(std::slice::from_ref(&d));
        if schedule(&p, &c, &mut s).is_err() {
            return Ok(());
        }
        match check(&s, &[a, d], &HashMap::new(), 3) {
            Err(e) => prop_assert!(
                matches!(e.kind, te::ErrorKind::InvalidSchedule),
                "{e:?} for {p:?}"
            ),
            Ok(report) => prop_assert!(report.is_clean(0.0), "{report:?} for {p:?}"),
        }
    }
}
