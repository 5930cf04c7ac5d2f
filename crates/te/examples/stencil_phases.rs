//! Times the phases of `rangefinder te` on the stencil chain of the `chain`
//! benchmark: `cargo run --release -p te --example stencil_phases -- 500`.

use std::time::Instant;
use te::{compute_named, create_schedule, infer_bound, placeholder, schedule_ops, StorageStyle};
use tir::DataType;

fn main() {
    let stages: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
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
    let args = [a, out];

    let reps = 20;
    let (mut tb, mut tl, mut tp, mut tr) = (0.0, 0.0, 0.0, 0.0);
    for _ in 0..reps {
        let t0 = Instant::now();
        let b = infer_bound(&s).unwrap();
        let t1 = Instant::now();
        let f = schedule_ops(&s, &b, &args, StorageStyle::Allocate).unwrap();
        let t2 = Instant::now();
        let text = f.to_string();
        let t3 = Instant::now();
        let r = te::report(&s, &args).unwrap();
        let t4 = Instant::now();
        std::hint::black_box((text, r));
        tb += (t1 - t0).as_secs_f64();
        tl += (t2 - t1).as_secs_f64();
        tp += (t3 - t2).as_secs_f64();
        tr += (t4 - t3).as_secs_f64();
    }
    let ms = |t: f64| t / reps as f64 * 1e3;
    println!(
        "{stages} stages: infer_bound {:.3} ms, schedule_ops {:.3} ms, print {:.3} ms, report {:.3} ms",
        ms(tb),
        ms(tl),
        ms(tp),
        ms(tr)
    );
}
