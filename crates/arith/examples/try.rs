fn main() {
    for t in std::env::args().skip(1) {
        let (e, _) = arith::parse_with_scope(&t).unwrap();
        let an = arith::Analyzer::new();
        println!("{} => {:?}", e, an.simplify(&e).map(|x| x.to_string()));
    }
}
