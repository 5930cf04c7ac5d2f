//! `cargo bench -p arith --bench simplify`: simplification of TVM's
//! simplifier corpus (`shared/conformance/tvm/arith_simplify.batch`, or the
//! bundled `examples/simplify/index_exprs.batch` when the corpus is absent).
//!
//! Prints the median time per `simplify` over all expressions (each timed
//! over many repetitions), the cost of the front end alone, and the whole
//! of `rangefinder simplify --batch` per line without process start-up,
//! then runs divan's benchmarks of the whole corpus.

use arith::{Analyzer, Expr, Scope};
use std::time::Instant;

#[path = "common/simplify_corpus.rs"]
mod simplify_corpus;
use simplify_corpus::corpus_path;

/// Every line of the batch file as an expression with its analyzer, read
/// as `rangefinder simplify --batch` reads it.
fn cases() -> Vec<(Expr, Analyzer)> {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus");
    let mut scope = Scope::new();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let case = arith::parse_case(line, &mut scope).ok()?;
            let mut an = Analyzer::new();
            an.bind_all(&case.ranges);
            Some((case.expr, an))
        })
        .collect()
}

/// The mean time per line of everything `rangefinder simplify --batch`
/// does besides simplifying: reading the line, binding its ranges,
/// printing a result (the input itself) and dropping it all.
fn front_end_per_line() -> f64 {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus");
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut best = f64::INFINITY;
    for _ in 0..21 {
        let start = Instant::now();
        let mut scope = Scope::new();
        for line in &lines {
            out.clear();
            if let Ok(case) = arith::parse_case(divan::black_box(line), &mut scope) {
                let mut an = Analyzer::new();
                an.bind_all(&case.ranges);
                divan::black_box(&an);
                case.expr.print_into(&mut out);
            }
            divan::black_box(&out);
        }
        best = best.min(start.elapsed().as_nanos() as f64 / lines.len() as f64);
    }
    best
}

/// The mean time per line of `rangefinder simplify --batch` without the
/// process around it: each of 21 runs reads the whole corpus with a fresh
/// [`arith::Batch`] (so every context is met for the first time once per
/// run), simplifies every line and prints each result; the best run counts.
fn end_to_end_per_line() -> f64 {
    let text = std::fs::read_to_string(corpus_path()).expect("corpus");
    let mut out = String::new();
    let mut best = f64::INFINITY;
    for _ in 0..21 {
        let start = Instant::now();
        let mut batch = arith::Batch::new();
        for line in divan::black_box(text.as_str()).lines() {
            out.clear();
            match batch.simplify_line(line) {
                Ok(e) => e.print_into(&mut out),
                Err(e) => out.push_str(&e.message),
            }
            divan::black_box(&out);
        }
        best = best.min(start.elapsed().as_nanos() as f64 / text.lines().count() as f64);
    }
    best
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
    println!(
        "front end (read, bind, print, drop; no simplification): {:.0} ns per line",
        front_end_per_line()
    );
    println!(
        "end to end (read, parse, simplify, print; as `simplify --batch`): {:.0} ns per line",
        end_to_end_per_line()
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
