//! The stencil chain of the `chain` benchmark and the `stencil_phases`
//! example.

use te::{compute_named, create_schedule, placeholder, Schedule, Tensor};
use tir::DataType;

/// `Sk[x, y] = S(k-1)[x, y] + S(k-1)[x + 1, y] + S(k-1)[x + 2, y + 1]`, the
/// output tiled 64x64 and every stage computed at its inner tile loop (the
/// Halide-style stencil chain): the work of `rangefinder te` on it, the
/// report of every stage and the program printed as `tvm.lower` does.
pub fn stencil_chain(stages: usize) -> (Schedule, Vec<Tensor>) {
    let (w, h) = (1024 + 2 * stages as i64, 1024 + stages as i64);
    let a = placeholder([w, h], "S0", DataType::Float32).unwrap();
    let mut all = vec![a.clone()];
    for k in 1..=stages {
        let prev = all[k - 1].clone();
        let (w, h) = (w - 2 * k as i64, h - k as i64);
        let t = compute_named(
            [w, h],
            &["x", "y"],
            |i| {
                let (x, y) = (i[0].clone(), i[1].clone());
                prev.at([x.clone(), y.clone()])
                    + prev.at([x.clone() + 1, y.clone()])
                    + prev.at([x + 2, y + 1])
            },
            &format!("S{k}"),
        )
        .unwrap();
        all.push(t);
    }
    let out = all[stages].clone();
    let mut s = create_schedule(std::slice::from_ref(&out));
    let ax = out.op().axis().to_vec();
    let (_, yo, _, _) = s.tile(&out, &ax[0], &ax[1], 64, 64).unwrap();
    for t in &all[1..stages] {
        s.compute_at(t, &out, &yo).unwrap();
    }
    (s, vec![a, out])
}
