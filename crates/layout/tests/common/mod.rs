//! Helpers shared by the layout tests.
#![allow(dead_code)]

use arith::{Expr, Scope, Var};
use layout::{for_each_point, IndexMap};

/// Integer shape as expressions.
pub fn shape(dims: &[i64]) -> Vec<Expr> {
    dims.iter().map(|&d| Expr::int(d)).collect()
}

/// Constant extents of a shape (panics on symbolic ones: tests only).
pub fn ints(shape: &[Expr]) -> Vec<i64> {
    shape
        .iter()
        .map(|e| e.as_int().expect("constant extent"))
        .collect()
}

/// Evaluates `lambda a, b: BODY` (a predicate or index in arith syntax) at a
/// point, binding its parameters by position, with `extra` values for free
/// symbols.
pub fn eval_lambda(text: &str, point: &[i64], extra: &[(&str, i64)]) -> i64 {
    let rest = text.trim().strip_prefix("lambda").expect("lambda");
    let (params, body) = rest.split_once(':').expect("colon");
    let mut scope = Scope::new();
    let vars: Vec<Var> = params
        .split(',')
        .map(|p| scope.get_or_create(p.trim()))
        .collect();
    let extra_vars: Vec<(Var, i64)> = extra
        .iter()
        .map(|(n, v)| (scope.get_or_create(n), *v))
        .collect();
    let e = arith::parse_in(body.trim(), &mut scope).expect("body parses");
    e.eval(&|v: &Var| {
        vars.iter()
            .position(|w| w == v)
            .map(|k| point[k])
            .or_else(|| extra_vars.iter().find(|(w, _)| w == v).map(|(_, x)| *x))
    })
    .expect("evaluates")
}

/// Evaluates a predicate expression over the variables `vars` at `point`,
/// with `extra` values for other variables by name.
pub fn eval_expr(e: &Expr, vars: &[Var], point: &[i64], extra: &[(&str, i64)]) -> i64 {
    e.eval(&|v: &Var| {
        vars.iter()
            .position(|w| w == v)
            .map(|k| point[k])
            .or_else(|| extra.iter().find(|(n, _)| *n == v.name()).map(|(_, x)| *x))
    })
    .expect("evaluates")
}

/// Every logical point of `dims` and its image.
pub fn images(map: &IndexMap, dims: &[i64]) -> Vec<(Vec<i64>, Vec<i64>)> {
    let mut out = Vec::new();
    for_each_point(dims, |p| {
        out.push((p.to_vec(), map.map_point(p).expect("maps")))
    });
    out
}

pub mod generator;
