//! Simplifies one batch line many times, for profiling:
//! `cargo run --release -p arith --example profile_one -- 'EXPR | x=0:4' [N]`.

use arith::{Analyzer, Scope};

fn main() {
    let mut args = std::env::args().skip(1);
    let line = args.next().expect("a batch line: EXPR | NAME=LO:HI ...");
    let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let (expr, ranges) = line.split_once('|').unwrap_or((&line, ""));
    let mut scope = Scope::new();
    let e = arith::parse_in(expr, &mut scope).expect("parses");
    let mut an = Analyzer::new();
    for (v, r) in arith::parse_range_specs(ranges, &mut scope).expect("ranges") {
        an.bind(&v, r);
    }
    let start = std::time::Instant::now();
    let mut out = None;
    for _ in 0..n {
        out = Some(an.simplify(&e));
    }
    let per = start.elapsed().as_nanos() as f64 / n as f64;
    println!(
        "{}  ({per:.0} ns per simplify)",
        out.expect("ran").expect("simplifies")
    );
}
