use std::time::Instant;
fn main() {
    let text = std::fs::read_to_string("../../../shared/conformance/tvm/arith_simplify.batch").unwrap();
    let mut v = vec![];
    for line in text.lines() {
        let (expr, ranges) = line.split_once('|').unwrap_or((line, ""));
        let mut scope = arith::Scope::new();
        let e = arith::parse_in(expr, &mut scope).unwrap();
        let mut an = arith::Analyzer::new();
        for spec in ranges.split_whitespace() {
            let (var, r) = arith::parse_range_spec(spec, &mut scope).unwrap();
            an.bind(&var, r);
        }
        let mut best = u128::MAX;
        for _ in 0..31 {
            let t = Instant::now();
            for _ in 0..10 { let _ = an.simplify(&e); }
            best = best.min(t.elapsed().as_nanos() / 10);
        }
        v.push((best, expr.to_string()));
    }
    v.sort();
    let n = v.len();
    println!("median(min) = {} ns", v[n / 2].0);
    for (t, l) in &v[n * 2 / 5..n * 3 / 5] { println!("{t:>7} {}", &l[..l.len().min(90)]); }
}
