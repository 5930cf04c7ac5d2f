use arith::{Analyzer, Scope};
use std::time::Instant;
fn main() {
    let text =
        std::fs::read_to_string("/work/shared/conformance/tvm/arith_simplify.batch").unwrap();
    let mut scope = Scope::new();
    let mut times = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(case) = arith::parse_case(line, &mut scope) else {
            continue;
        };
        let mut an = Analyzer::new();
        an.bind_all(&case.ranges);
        let mut best = f64::INFINITY;
        for _ in 0..200 {
            let t = Instant::now();
            let r = an.simplify(&case.expr);
            std::hint::black_box(&r);
            drop(r);
            best = best.min(t.elapsed().as_secs_f64() * 1e9);
        }
        times.push((best, line.to_string()));
    }
    let total: f64 = times.iter().map(|t| t.0).sum();
    times.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
    println!("total {:.0} ns over {} cases", total, times.len());
    let mut acc = 0.0;
    for (t, l) in times.iter().take(25) {
        acc += t;
        println!(
            "{:8.0} ns ({:4.1}% cum) {}",
            t,
            acc / total * 100.0,
            &l[..l.len().min(130)]
        );
    }
}
