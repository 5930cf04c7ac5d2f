use std::time::Instant;
fn main() {
    let text =
        std::fs::read_to_string("../../../shared/conformance/tvm/arith_simplify.batch").unwrap();
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
        let t = Instant::now();
        for _ in 0..20 {
            let _ = an.simplify(&e);
        }
        v.push((t.elapsed().as_nanos() / 20, line.to_string()));
    }
    v.sort();
    for (t, l) in v.iter().rev().take(25) {
        println!("{t:>9} {}", &l[..l.len().min(110)]);
    }
}
