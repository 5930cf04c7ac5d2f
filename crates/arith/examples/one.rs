fn main() {
    let args: Vec<String> = std::env::args().collect();
    let line = &args[1];
    let (expr, ranges) = line.split_once('|').unwrap_or((line, ""));
    let mut scope = arith::Scope::new();
    let e = arith::parse_in(expr, &mut scope).unwrap();
    let mut an = arith::Analyzer::new();
    for spec in ranges.split_whitespace() {
        let (v, r) = arith::parse_range_spec(spec, &mut scope).unwrap();
        an.bind(&v, r);
    }
    let n: usize = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(1000);
    let mut last = None;
    for _ in 0..n {
        last = Some(an.simplify(&e));
    }
    println!("{:?}", last.unwrap().map(|x| x.to_string()));
}
