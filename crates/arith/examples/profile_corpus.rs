//! Simplifies every line of the simplifier corpus over and over, for a
//! profiler: `cargo run --release -p arith --example profile_corpus -- [ROUNDS]`.

use arith::{Analyzer, Scope};

#[path = "../benches/common/simplify_corpus.rs"]
mod simplify_corpus;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let text = std::fs::read_to_string(simplify_corpus::corpus_path()).expect("corpus");
    let mut scope = Scope::new();
    let cases: Vec<_> = text
        .lines()
        .filter_map(|line| {
            let case = arith::parse_case(line, &mut scope).ok()?;
            let mut an = Analyzer::new();
            an.bind_all(&case.ranges);
            Some((case.expr, an))
        })
        .collect();
    let start = std::time::Instant::now();
    let mut nodes = 0;
    for _ in 0..rounds {
        for (e, an) in &cases {
            if let Ok(s) = an.simplify(e) {
                nodes += s.node_count();
            }
        }
    }
    let per = start.elapsed().as_nanos() as f64 / (rounds * cases.len()) as f64;
    println!(
        "{} cases, {per:.0} ns mean per simplify ({nodes} nodes)",
        cases.len()
    );
}
