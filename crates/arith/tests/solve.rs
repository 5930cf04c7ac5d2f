#[test]
fn scratch() {
    let an = arith::Analyzer::new();
    let mut sc = arith::Scope::new();
    for t in ["(I - 1) // 2 + 1", "(I + 1) // 2 - 1", "min((I + 1) // 2 - 1, I // 2 - 1)", "min((I - 1) // 2, (I - 2) // 2)",
              "min(I // 2, (I + 1) // 2)", "I // 2 <= (I + 1) // 2", "0 - (0 - I) // 2", "(0 - I) // -2", "ceildiv(I, 2)", "ceildiv(I - 1, 2)",
              "0 <= 2 * i", "2*i < I", "2*i + 1 < I", "0 <= 10 - i and 10 - i < I", "max(11 - I, 0)", "(x*4) % 8", "(z*8 + x*4) % 8",
              "(z * 8 + x * 4 + 3) // 8", "(z*8+x*4) // 8", "x*4 % 8 - (z * 8 + x * 4 - 8 * ((z * 8 + x * 4) // 8))", "(I - 2) // 2 + 1", "min(x, x + 2)", "max(x + 3, x + 9)", "x*y", "min(0 - I, 0)"] {
        let e = arith::parse_in(t, &mut sc).unwrap();
        println!("{t:40} => {}", an.simplify(&e).map(|e| e.to_string()).unwrap_or_else(|e| e.to_string()));
    }
}
