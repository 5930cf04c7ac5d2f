//! Thousands of mutated TC sources (token deletions, duplications, swaps,
//! truncations, random bytes) and very deep or very long inputs: each
//! gives a result with diagnostics, never a panic or a stack overflow.
//! Every span of a diagnostic lies inside the source.

use std::collections::HashMap;

const SEEDS: &[&str] = &[
    "def matmul(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,r_k) * B(r_k,n) }",
    "def stencil(float(N) B, float(L) K) -> (A) { A(i) +=! B(i + k) * K(k) }",
    "def f(float(I) B, float(K) C, float(J) D) -> (A) { A(i, j) = B(i) * C(i + j) * D(j) }",
    "def lut(float(J) B, int32(I) C) -> (A) { A(i) = B(max(min(C(i), J-1), 0)) }",
    "def p(float(I) B) -> A { A(i) +=! B(2*i + k) where k in 0:2 }",
    "def c(float(N) A, float c) -> (B) { B(i) = c where exists A(i) }",
    "def w(float(N) a) -> (b) { b(i) = 2*foo where foo = a(i), i in 1:N }",
    "def t(float(N, D) I) -> (m, O) { m(n) max=! I(n, d) O(n, d) = I(n, d) > m(n) ? exp(I(n, d)) : -1.5e-3 }",
    "def g(float(N,G,C,H,W) I, float(G,F,C,KH,KW) W1) -> (O) {\n  O(n,g,f,h,w) +=! I(n,g,c,2*h+kh,w+kw) * W1(g,f,c,kh,kw) # conv\n  O(n,g,f,h,w) = O(n,g,f,h,w) / 3\n}",
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Runs everything on `src`: analysis, sizes, and for small error-free
/// programs lowering and running.
fn exercise(src: &str) {
    let a = tc::analyze(src);
    if let Some(e) = &a.syntax_error {
        assert!(
            e.span.start <= e.span.end && e.span.end <= src.len(),
            "{src:?}: {e:?}"
        );
    }
    for (d, ast) in a.defs.iter().zip(&a.program.defs) {
        for x in d.all_diagnostics() {
            assert!(
                x.span.start <= x.span.end && x.span.end <= src.len(),
                "{src:?}: {x:?}"
            );
            assert!(!x.message.is_empty());
        }
        let sizes: HashMap<String, i64> = d.sizes.iter().map(|(n, _)| (n.clone(), 3)).collect();
        let _ = tc::bind_sizes(d, &sizes);
        if !d.has_errors() && src.len() < 400 {
            let _ = tc::lower::run(ast, d, &sizes, 1);
        }
    }
}

fn tokens(src: &str) -> Vec<&str> {
    match tc::lex(src) {
        Ok(ts) => ts
            .iter()
            .filter(|t| t.span.end > t.span.start)
            .map(|t| &src[t.span.range()])
            .collect(),
        Err(_) => vec![src],
    }
}

#[test]
fn mutated_sources_give_diagnostics() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut count = 0;
    for seed in SEEDS {
        let toks = tokens(seed);
        for _ in 0..400 {
            let mut t: Vec<&str> = toks.clone();
            for _ in 0..1 + rng.below(3) {
                let n = t.len();
                match rng.below(5) {
                    0 if n > 0 => {
                        t.remove(rng.below(n));
                    }
                    1 if n > 1 => {
                        let (a, b) = (rng.below(n), rng.below(n));
                        t.swap(a, b);
                    }
                    2 if n > 0 => {
                        let k = rng.below(n);
                        let x = t[rng.below(n)];
                        t.insert(k, x);
                    }
                    3 => t.truncate(rng.below(n + 1)),
                    _ => {
                        let k = rng.below(n + 1);
                        t.insert(
                            k,
                            [
                                "(", ")", "?", ":", "where", "in", "0", "-", "exists", ",", "+=!",
                                "#", ".", "def",
                            ][rng.below(14)],
                        );
                    }
                }
            }
            exercise(&t.join(" "));
            count += 1;
        }
        // Byte truncations, including inside tokens.
        for cut in 0..seed.len() {
            if seed.is_char_boundary(cut) {
                exercise(&seed[..cut]);
                count += 1;
            }
        }
    }
    assert!(count > 3000, "{count}");
}

#[test]
fn deep_nesting_is_a_diagnostic() {
    for depth in [150, 199, 201, 1000, 100_000] {
        for (open, close) in [
            ("(", ")"),
            ("-(", ")"),
            ("exp(", ")"),
            ("min(1, ", ")"),
            ("A(", ")"),
        ] {
            let body = format!("{}i{}", open.repeat(depth), close.repeat(depth));
            let src = format!("def f(float(N) A) -> (O) {{ O(i) = A(i) + {body} }}");
            exercise(&src);
            let a = tc::analyze(&src);
            if depth > tc::MAX_NESTING {
                let e = a.syntax_error.expect("too deep");
                assert!(e.message.contains("nests more than"), "{}", e.message);
            }
        }
        let tern = format!("{}0", "i < 1 ? 1 : ".repeat(depth));
        exercise(&format!(
            "def f(float(N) A) -> (O) {{ O(i) = A(i) * ({tern}) }}"
        ));
        let unary = format!("{}A(i)", "-".repeat(depth));
        exercise(&format!("def f(float(N) A) -> (O) {{ O(i) = {unary} }}"));
    }
}

#[test]
fn long_flat_chains_work() {
    // 50,000 terms in a value, an index and a where bound: no recursion
    // proportional to the length anywhere.
    let sum = vec!["A(i)"; 50_000].join(" + ");
    let a = tc::analyze(&format!("def f(float(N) A) -> (O) {{ O(i) = {sum} }}"));
    let d = &a.defs[0];
    assert_eq!(d.stmts[0].ranges.len(), 1);
    assert_eq!(d.stmts[0].ranges[0].upper.to_string(), "N");
    let sizes: HashMap<String, i64> = [("N".to_string(), 3)].into();
    let r = tc::lower::run(&a.program.defs[0], d, &sizes, 1).unwrap();
    assert_eq!(r.out_of_bounds, 0);
    assert!(
        r.not_lowered.is_some(),
        "too deep for te: direct evaluation only"
    );
    let idx = vec!["1"; 50_000].join(" + ");
    let a = tc::analyze(&format!(
        "def f(float(N) A) -> (O) {{ O(i) = A(i + {idx} - 50000) }}"
    ));
    let d = &a.defs[0];
    assert_eq!(d.stmts[0].ranges[0].upper.to_string(), "N");
    let prod = vec!["A(i)"; 50_000].join(" * ");
    exercise(&format!("def f(float(N) A) -> (O) {{ O(i) = {prod} }}"));
    let many_stmts: String = (0..2000).map(|k| format!("O(i) = A(i) + {k}\n")).collect();
    exercise(&format!("def f(float(N) A) -> (O) {{ {many_stmts} }}"));
}

/// `a1 = <first>, a2 = a1 + a1, ...`: each let written out is twice the
/// previous one.
fn doubling_lets(first: &str, n: usize) -> String {
    let mut lets = vec![format!("a1 = {first}")];
    lets.extend((2..=n).map(|k| format!("a{k} = a{} + a{}", k - 1, k - 1)));
    lets.join(", ")
}

#[test]
fn doubling_where_lets_are_refused_past_the_budget() {
    // Values and indices, at lengths below, at and far past the budget:
    // each a quick diagnostic (or a quick, correct run), never a tree of
    // `2^n` nodes walked by inference, lowering or evaluation.
    let sizes: HashMap<String, i64> = [("N".to_string(), 4)].into();
    for n in [4, 14, 15, 16, 80, 1000] {
        for src in [
            format!(
                "def f(float(N) A) -> (O) {{ O(i) +=! a{n} where {} }}",
                doubling_lets("A(i) + A(i)", n)
            ),
            format!(
                "def f(float(N) A) -> (O) {{ O(i) +=! A(a{n} % N) where i in 0:N, {} }}",
                doubling_lets("i + i", n)
            ),
        ] {
            let a = tc::analyze(&src);
            let d = &a.defs[0];
            let refused: Vec<_> = d
                .all_diagnostics()
                .into_iter()
                .filter(|x| x.message.contains("written out has"))
                .collect();
            // `a_k` written out has `6 * 2^(k-1) - 1` nodes (values) or
            // `2^(k+1) - 1` (indices): past 65,536 from `a15` on, or in the
            // indices' right-hand side, `A(a15 % N)`, and `a16`.
            assert_eq!(!refused.is_empty(), n >= 15, "{n}: {refused:?}");
            if let Some(x) = refused.first() {
                assert!(
                    x.message.contains("more than the 65536 allowed"),
                    "{}",
                    x.message
                );
                let what = if src.contains("% N") && n == 15 {
                    "the right-hand side"
                } else if src.contains("% N") {
                    "the let `a16`"
                } else {
                    "the let `a15`"
                };
                assert!(x.message.starts_with(what), "{}", x.message);
            }
            if !d.has_errors() {
                let r = tc::lower::run(&a.program.defs[0], d, &sizes, 1).unwrap();
                assert_eq!(r.out_of_bounds, 0);
                assert!(r.lowered && r.is_clean(1e-6), "{n}: {r:?}");
            }
        }
    }
}

#[test]
fn bad_numbers_and_bytes() {
    for src in [
        "def f(float(N) A) -> (O) { O(i) = A(i + 99999999999999999999) }",
        "def f(float(N) A) -> (O) { O(i) = A(i * 9223372036854775807 * 4) }",
        "def f(float(N) A) -> (O) { O(i) = A(i) where i in 0:9223372036854775807 }",
        "def f(float(N) A) -> (O) { O(i) = A(i) where i in -9223372036854775807:9223372036854775807 }",
        "def f(float(N) A) -> (O) { O(i) = A(i / 0) }",
        "def f(float(N) A) -> (O) { O(i) = A(i % 0) }",
        "def f(float(N) A) -> (O) { O(i) = A(i) } \u{0}\u{ff}",
        "def f(float(N) A) -> (O) { O(i) = A(i) é }",
        "def f(float(-3) A) -> (O) { O(i) = A(i) }",
        "def f(float(0) A) -> (O) { O(i) = A(i) }",
        "def f(float(N) A, float(N) A) -> (N) { N(i) = A(i) }",
        "def exp(float(N) exp) -> (O) { O(i) = exp(i) }",
        "",
        "#",
        "def",
    ] {
        exercise(src);
    }
}
