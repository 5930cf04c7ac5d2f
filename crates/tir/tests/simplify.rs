//! `tir::simplify` against the interpreter: a simplified program touches the
//! same elements and computes the same values as the original.

use arith::{Analyzer, Expr, Var};
use proptest::prelude::*;
use std::collections::HashMap;
use tir::{Buffer, DataType, Interpreter, PrimFunc, RunError, RunResult, Stmt, Tensor, Value};

/// A random index expression over loop variables `v0..v2`.
#[derive(Clone, Debug)]
enum Ix {
    Const(i64),
    Var(usize),
    Add(Box<Ix>, Box<Ix>),
    Sub(Box<Ix>, Box<Ix>),
    Scale(Box<Ix>, i64),
    Div(Box<Ix>, i64),
    Mod(Box<Ix>, i64),
    Min(Box<Ix>, Box<Ix>),
    Max(Box<Ix>, Box<Ix>),
}

impl Ix {
    fn expr(&self, vars: &[Var]) -> Expr {
        match self {
            Ix::Const(c) => Expr::int(*c),
            // Variables past the loop depth read the innermost loop's.
            Ix::Var(k) => vars[(*k).min(vars.len() - 1)].expr(),
            Ix::Add(a, b) => a.expr(vars) + b.expr(vars),
            Ix::Sub(a, b) => a.expr(vars) - b.expr(vars),
            Ix::Scale(a, c) => a.expr(vars) * *c,
            Ix::Div(a, c) => Expr::floor_div(a.expr(vars), Expr::int(*c)),
            Ix::Mod(a, c) => Expr::floor_mod(a.expr(vars), Expr::int(*c)),
            Ix::Min(a, b) => Expr::min(a.expr(vars), b.expr(vars)),
            Ix::Max(a, b) => Expr::max(a.expr(vars), b.expr(vars)),
        }
    }
}

fn ix() -> impl Strategy<Value = Ix> {
    let leaf = prop_oneof![
        (-4i64..=8).prop_map(Ix::Const),
        (0usize..3).prop_map(Ix::Var)
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        let b = Box::new;
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ix::Add(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ix::Sub(b(x), b(y))),
            (inner.clone(), -3i64..=4).prop_map(move |(x, c)| Ix::Scale(b(x), c)),
            (inner.clone(), 1i64..=5).prop_map(move |(x, c)| Ix::Div(b(x), c)),
            (inner.clone(), 1i64..=5).prop_map(move |(x, c)| Ix::Mod(b(x), c)),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ix::Min(b(x), b(y))),
            (inner.clone(), inner).prop_map(move |(x, y)| Ix::Max(b(x), b(y))),
        ]
    })
}

/// What a run did, with statement texts (which simplification changes)
/// left out.
fn outcome(r: Result<RunResult, RunError>, b: &Buffer) -> Result<(Vec<f64>, u64), String> {
    match r {
        Ok(out) => Ok((out.tensor(b).unwrap().data().to_vec(), out.runs("B"))),
        Err(RunError::Access(v)) => Err(format!(
            "{:?} {} {:?} {:?}",
            v.kind, v.buffer, v.indices, v.problem
        )),
        Err(RunError::Index { message, .. }) => Err(message),
        Err(other) => Err(other.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn simplified_programs_behave_the_same(
        loops in proptest::collection::vec((0i64..=2, 0i64..=4), 1..=3),
        store in ix(),
        load in ix(),
        guard in ix(),
    ) {
        let a = Buffer::new("A", DataType::Float32, [12i64]);
        let b = Buffer::new("B", DataType::Float32, [12i64]);
        let vars: Vec<Var> = (0..loops.len()).map(|k| Var::new(format!("v{k}"))).collect();
        let value = Value::load(&a, [load.expr(&vars)]) + Value::index(guard.expr(&vars));
        let mut body = Stmt::if_then(
            Expr::lt(guard.expr(&vars), Expr::int(6)),
            Stmt::store(&b, [store.expr(&vars)], value),
        );
        for (v, &(min, extent)) in vars.iter().zip(&loops).rev() {
            body = Stmt::for_loop(v, min, extent, body);
        }
        let simplified = tir::simplify(&body, &Analyzer::new()).unwrap();
        let f = PrimFunc::new("f", vec![a.clone(), b.clone()], body);
        let g = PrimFunc::new("g", vec![a.clone(), b.clone()], simplified);
        let inputs = HashMap::from([(a, Tensor::from_fn(&[12], |ix| ix[0] as f64 * 3.0))]);
        let it = Interpreter::new();
        let sizes = HashMap::new();
        prop_assert_eq!(outcome(it.run(&f, &inputs, &sizes), &b), outcome(it.run(&g, &inputs, &sizes), &b));
    }
}

/// Seed 000, Ex. 6: the fused-then-split index of C simplifies back to
/// `(xo, xi)`, and the flat index stays as TVM prints it.
#[test]
fn fused_split_indices_simplify_to_the_original_axes() {
    let c = Buffer::new("C", DataType::Float32, [4i64, 4]);
    let (xo, xi) = (Var::new("xo"), Var::new("xi"));
    let fused = xo.expr() * 4 + xi.expr();
    let idx = [
        Expr::floor_div(fused.clone(), Expr::int(4)),
        Expr::floor_mod(fused.clone(), Expr::int(4)),
    ];
    let s = Stmt::for_range(
        &xo,
        0,
        4,
        Stmt::for_range(
            &xi,
            0,
            4,
            Stmt::store(&c, idx, Value::index(Expr::floor_mod(fused, Expr::int(16)))),
        ),
    );
    let t = tir::simplify(&s, &Analyzer::new()).unwrap();
    let mut stores = Vec::new();
    t.visit(&mut |s| {
        if let Stmt::BufferStore { indices, value, .. } = s {
            stores.push((indices.clone(), value.clone()));
        }
    });
    let [(indices, value)] = &stores[..] else {
        panic!("one store expected in {t}")
    };
    assert_eq!(indices, &[xo.expr(), xi.expr()]);
    // The modulo by 16 is gone; how the sum is ordered is the simplifier's
    // choice.
    let Value::Index(v) = value else {
        panic!("an index value expected in {t}")
    };
    assert!(!v.to_string().contains('%'), "{v}");
    for (p, q) in [(0, 0), (3, 3), (2, 1)] {
        assert_eq!(v.eval_with(&[(&xo, p), (&xi, q)]).unwrap(), p * 4 + q);
    }
}
