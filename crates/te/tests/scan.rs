//! `te.scan`: bounds, lowering and runs of scans (TVM's scan tutorial and
//! `test_schedule_scan`, `test_bound_scan`).

use arith::{Expr, Var};
use std::collections::HashMap;
use te::{compute_named, create_schedule, lower, placeholder, scan, Tensor};
use tir::DataType;

/// The tutorial's cumulative sum: `s_state[t, i] = s_state[t - 1, i] + X[t, i]`.
fn cumsum(m: Expr, n: Expr) -> (Tensor, Tensor, Tensor, Tensor, Tensor) {
    let x = placeholder([m.clone(), n.clone()], "X", DataType::Float32).unwrap();
    let state = placeholder([m.clone(), n.clone()], "s_state", DataType::Float32).unwrap();
    let init = compute_named(
        [Expr::int(1), n.clone()],
        &["_", "i"],
        |i| x.at([Expr::int(0), i[1].clone()]),
        "s_init",
    )
    .unwrap();
    let update = compute_named(
        [m, n],
        &["t", "i"],
        |i| state.at([i[0].clone() - 1, i[1].clone()]) + x.at([&i[0], &i[1]]),
        "s_update",
    )
    .unwrap();
    let s_scan = scan(&init, &update, &state, &[x.clone()], "scan").unwrap();
    (x, state, init, update, s_scan)
}

#[test]
fn print_symbolic() {
    let (m, n) = (Var::new("m"), Var::new("n"));
    let (x, _, _, _, s_scan) = cumsum(m.expr(), n.expr());
    let s = create_schedule(&[s_scan.clone()]);
    let f = lower(&s, &[x, s_scan]).unwrap();
    println!("{f}");
    let r = te::report(&s, &[]).map(|r| format!("{:#?}", r.stages));
    println!("{r:?}");
}

#[test]
fn check_concrete() {
    let (x, _, _, _, s_scan) = cumsum(Expr::int(5), Expr::int(3));
    let s = create_schedule(&[s_scan.clone()]);
    let r = te::check(&s, &[x, s_scan], &HashMap::new(), 1).unwrap();
    println!("{r:#?}");
}
