//! Times the phases of `rangefinder te` on the stencil chain of the `chain`
//! benchmark: `cargo run --release -p te --example stencil_phases -- 500`
//! (`REPS=N` repetitions, 20 by default; for profiling, a larger N).

use std::time::Instant;
#[path = "common/stencil.rs"]
mod stencil;

use stencil::stencil_chain;
use te::{infer_bound, schedule_ops, StorageStyle};

fn main() {
    let stages: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let (s, args) = stencil_chain(stages);

    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
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
