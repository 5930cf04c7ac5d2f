//! `infer_bound` + `schedule_ops` on chains of element-wise stages, each
//! split by 8 and computed at its consumer's outer loop. The cost must grow
//! linearly with the number of stages.

use te::{
    compute_named, create_schedule, infer_bound, placeholder, schedule_ops, Schedule, StorageStyle,
    Tensor,
};
use tir::DataType;

#[path = "../examples/common/stencil.rs"]
mod stencil;
use stencil::stencil_chain;

fn main() {
    divan::main();
}

/// `A -> S1 -> ... -> Sn`, `Sk[i] = S(k-1)[i] + 1` over 1024 elements.
fn chain(n: usize) -> (Schedule, Vec<Tensor>) {
    let a = placeholder([1024], "A", DataType::Float32).unwrap();
    let mut stages = vec![a.clone()];
    for k in 1..=n {
        let prev = stages[k - 1].clone();
        let t =
            compute_named([1024], &["i"], |i| prev.at([&i[0]]) + 1.0, &format!("S{k}")).unwrap();
        stages.push(t);
    }
    let out = stages[n].clone();
    let mut s = create_schedule(std::slice::from_ref(&out));
    let mut outer = Vec::with_capacity(n + 1);
    outer.push(None);
    for t in &stages[1..] {
        let (xo, _) = s.split(t, &t.op().axis()[0], 8).unwrap();
        outer.push(Some(xo));
    }
    for k in 1..n {
        let xo = outer[k + 1].clone().unwrap();
        s.compute_at(&stages[k], &stages[k + 1], &xo).unwrap();
    }
    (s, vec![a, out])
}

#[divan::bench(args = [50, 250, 500, 1000])]
fn infer_bound_and_lower(bencher: divan::Bencher, n: usize) {
    let (s, args) = chain(n);
    bencher.bench(|| {
        let b = infer_bound(&s).unwrap();
        schedule_ops(&s, &b, &args, StorageStyle::Allocate).unwrap()
    });
}

/// `Sk[i] = S(k-1)[n - 1 - i] + S(k-1)[i // 2]` over a symbolic `n` (or
/// `n = 64`), each stage split into two parts and computed at the next
/// stage's outer loop: exact bounds nest every consumer's, so this measures
/// that the size budget keeps the work linear.
fn symbolic_chain(stages: usize, concrete: bool) -> (Schedule, Vec<Tensor>) {
    let n: arith::Expr = if concrete {
        arith::Expr::int(64)
    } else {
        te::var("n").expr()
    };
    let a = placeholder([n.clone()], "S0", DataType::Float32).unwrap();
    let mut all = vec![a.clone()];
    for k in 1..=stages {
        let prev = all[k - 1].clone();
        let n = n.clone();
        let t = compute_named(
            [n.clone()],
            &["i"],
            |i| {
                let rev = n.clone() - 1 - i[0].clone();
                let half = arith::Expr::floor_div(i[0].clone(), arith::Expr::int(2));
                prev.at([rev]) + prev.at([half])
            },
            &format!("S{k}"),
        )
        .unwrap();
        all.push(t);
    }
    let out = all[stages].clone();
    let mut s = create_schedule(std::slice::from_ref(&out));
    let mut outer = vec![None];
    for t in &all[1..] {
        let (xo, _) = s.split_nparts(t, &t.op().axis()[0], 2).unwrap();
        outer.push(Some(xo));
    }
    for k in 1..stages {
        let xo = outer[k + 1].clone().unwrap();
        s.compute_at(&all[k], &all[k + 1], &xo).unwrap();
    }
    (s, vec![a, out])
}

#[divan::bench(args = [10, 50, 100])]
fn symbolic_nparts_chain(bencher: divan::Bencher, n: usize) {
    let (s, args) = symbolic_chain(n, false);
    bencher.bench(|| {
        let b = infer_bound(&s).unwrap();
        schedule_ops(&s, &b, &args, StorageStyle::Allocate).unwrap()
    });
}

#[divan::bench(args = [10, 50, 100])]
fn concrete_nparts_chain(bencher: divan::Bencher, n: usize) {
    let (s, args) = symbolic_chain(n, true);
    bencher.bench(|| {
        let b = infer_bound(&s).unwrap();
        schedule_ops(&s, &b, &args, StorageStyle::Allocate).unwrap()
    });
}

#[divan::bench(args = [50, 500])]
fn stencil_chain_lower_and_print(bencher: divan::Bencher, n: usize) {
    let (s, args) = stencil_chain(n);
    bencher.bench(|| te::report(&s, &args).unwrap().program.to_string());
}
