//! `infer_bound` + `schedule_ops` on chains of element-wise stages, each
//! split by 8 and computed at its consumer's outer loop. The cost must grow
//! linearly with the number of stages.

use te::{
    compute_named, create_schedule, infer_bound, placeholder, schedule_ops, Schedule, StorageStyle,
    Tensor,
};
use tir::DataType;

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
