//! Times every line of a simplifier batch file and lists the slowest, with
//! their share of the total: where the simplifier's time goes, case by
//! case. `cargo run --release -p arith --example slowest_cases -- [FILE]
//! [N]`; the file defaults to TVM's corpus
//! (`shared/conformance/tvm/arith_simplify.batch`, or the bundled
//! `examples/simplify/index_exprs.batch` without it), and `N` lines are
//! listed (25 by default). Each line's time is the best of 200 runs.

use arith::{Analyzer, Scope};
use std::path::PathBuf;
use std::time::Instant;

#[path = "../benches/common/simplify_corpus.rs"]
mod simplify_corpus;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .map_or_else(simplify_corpus::corpus_path, PathBuf::from);
    let shown: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(25);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
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
            let start = Instant::now();
            let r = an.simplify(&case.expr);
            std::hint::black_box(&r);
            drop(r);
            best = best.min(start.elapsed().as_secs_f64() * 1e9);
        }
        times.push((best, line.to_string()));
    }
    let total: f64 = times.iter().map(|t| t.0).sum();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("{:.0} ns over {} cases", total, times.len());
    let mut cumulative = 0.0;
    for (t, line) in times.iter().take(shown) {
        cumulative += t;
        let head: String = line.chars().take(120).collect();
        println!(
            "{t:8.0} ns ({:4.1}% with the slower ones) {head}",
            cumulative / total * 100.0
        );
    }
}
