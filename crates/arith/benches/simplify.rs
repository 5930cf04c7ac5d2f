//! `cargo bench -p arith --bench simplify`: simplification of TVM's
//! simplifier corpus (`shared/conformance/tvm/arith_simplify.batch`, or the
//! bundled `examples/simplify/index_exprs.batch` when the corpus is absent).
//!
//! Prints the median time per `simplify` over all expressions (each timed
//! over many repetitions), then runs divan's benchmarks of the whole corpus.

use arith::{Analyzer, Expr, Scope};
use std::path::PathBuf;
use std::time::Instant;

fn corpus_path() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../../../shared"))
        .join("conformance/tvm/arith_simplify.batch");
    if shared.exists() {
        shared
    } else {
        root.join("../../examples/simplify/index_exprs.batch")
    }
}

/// Every line of the batch file as an expression with its analyzer.
fn cases() -> Vec<(Expr, Analyzer)> {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let (expr, ranges) = line.split_once('|').unwrap_or((line, ""));
            let mut scope = Scope::new();
            let e = arith::parse_in(expr, &mut scope).ok()?;
            let mut an = Analyzer::new();
            for spec in ranges.split_whitespace() {
                let (v, r) = arith::parse_range_spec(spec, &mut scope).ok()?;
                an.bind(&v, r);
            }
            Some((e, an))
        })
        .collect()
}

/// The median over expressions of each expression's own time, which is the
/// median of 51 samples of 20 back-to-back simplifications (medians, so that
/// a busy machine's interruptions do not count).
///
/// With `RANGEFINDER_BENCH_SLOWEST=N` set, also prints the `N` slowest
/// expressions with their times, which is where a profile should start.
fn median_per_expression(cases: &[(Expr, Analyzer)]) -> f64 {
    const BATCH: u32 = 20;
    let mut per: Vec<(f64, usize)> = cases
        .iter()
        .map(|(e, an)| {
            let mut samples: Vec<f64> = (0..51)
                .map(|_| {
                    let start = Instant::now();
                    for _ in 0..BATCH {
                        let _ = divan::black_box(an.simplify(divan::black_box(e)));
                    }
                    start.elapsed().as_nanos() as f64 / BATCH as f64
                })
                .collect();
            samples.sort_by(|a, b| a.total_cmp(b));
            samples[samples.len() / 2]
        })
        .zip(0..)
        .collect();
    per.sort_by(|a, b| a.0.total_cmp(&b.0));
    let slowest: usize = std::env::var("RANGEFINDER_BENCH_SLOWEST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    for (t, i) in per.iter().rev().take(slowest) {
        println!("{t:>9.0} ns  {}", cases[*i].0);
    }
    per[per.len() / 2].0
}

fn main() {
    let cs = cases();
    let median = median_per_expression(&cs);
    let total: f64 = {
        let start = Instant::now();
        for _ in 0..20 {
            for (e, an) in &cs {
                let _ = divan::black_box(an.simplify(e));
            }
        }
        start.elapsed().as_nanos() as f64 / 20.0 / cs.len() as f64
    };
    println!(
        "simplify over {} expressions: median {:.0} ns, mean {:.0} ns per expression",
        cs.len(),
        median,
        total
    );
    divan::main();
}

#[divan::bench]
fn whole_corpus(bencher: divan::Bencher) {
    let cs = cases();
    bencher.bench(|| {
        for (e, an) in &cs {
            let _ = divan::black_box(an.simplify(e));
        }
    });
}
