//! Which access decided each range, and in which round (seed 004's worked
//! examples): `VarRange::bounds` and `VarRange::round`, checked against
//! the seed's text and, for strided stencils, against enumeration.

use proptest::prelude::*;
use tc::{AccessBound, DefAnalysis, VarRange};

fn def(source: &str) -> DefAnalysis {
    let a = tc::analyze(source);
    assert!(a.syntax_error.is_none(), "{:?}", a.syntax_error);
    let d = a.defs.into_iter().next().unwrap();
    SOURCE.with(|s| *s.borrow_mut() = source.to_string());
    d
}

thread_local! {
    /// The source last analysed, to show accesses as written.
    static SOURCE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The access as written in the source.
fn written(b: &AccessBound) -> String {
    if b.access.starts_with("where ") {
        return b.access.clone();
    }
    SOURCE.with(|s| s.borrow()[b.span.range()].to_string())
}

fn range<'a>(d: &'a DefAnalysis, name: &str) -> &'a VarRange {
    d.stmts[0].ranges.iter().find(|r| r.name == name).unwrap()
}

/// `access: [lower, upper) decides` lines, for comparison as text.
fn lines(r: &VarRange) -> Vec<String> {
    r.bounds
        .iter()
        .map(|b: &AccessBound| {
            let end =
                |e: &Option<arith::Expr>| e.as_ref().map_or("-".to_string(), |e| e.to_string());
            let mut s = format!("{}: [{}, {})", written(b), end(&b.lower), end(&b.upper));
            if b.decides_lower {
                s.push_str(" lower");
            }
            if b.decides_upper {
                s.push_str(" upper");
            }
            s
        })
        .collect()
}

#[test]
fn a_stencil_takes_each_end_from_a_different_access() {
    let d = def("def f(float(N) B, float(N) C) -> (A) { A(i) = B(i) + C(i - 2) }");
    let r = range(&d, "i");
    assert_eq!(
        (r.lower.to_string(), r.upper.to_string()),
        ("2".into(), "N".into())
    );
    assert_eq!(
        lines(r),
        ["B(i): [0, N) upper", "C(i - 2): [2, N + 2) lower"]
    );
    assert_eq!(r.round, Some(1));
}

#[test]
fn the_convolution_decides_k_in_round_one_and_i_in_round_two() {
    let d = def("def stencil(float(N) B, float(L) K) -> (A) { A(i) +=! B(i + k) * K(k) }");
    let k = range(&d, "k");
    assert_eq!(k.round, Some(1));
    assert_eq!(lines(k), ["K(k): [0, L) lower upper"]);
    let i = range(&d, "i");
    assert_eq!(i.round, Some(2));
    assert_eq!(lines(i), ["B(i + k): [0, N - L + 1) lower upper"]);
}

#[test]
fn inverted_indexing_is_bounded_by_its_one_access() {
    // `0 <= 10 - i < I` is `10 - I < i <= 10` (the seed's text says
    // `9 - I`, one too low: `i = 10 - I` reads `B(I)`).
    let d = def("def reverted(float(I) B) -> (A) { A(i) = B(10 - i) }");
    let r = range(&d, "i");
    assert_eq!(lines(r), ["B(10 - i): [11 - I, 11) lower upper"]);
}

#[test]
fn average_pooling_takes_its_upper_end_from_the_odd_read() {
    let d = def("def average_pool_2(float(I) B) -> (A) { A(i) = B(2*i) + B(2*i + 1) }");
    let r = range(&d, "i");
    assert_eq!(r.upper.to_string(), "I // 2");
    assert_eq!(
        lines(r),
        [
            "B(2*i): [0, (I + 1) // 2) lower",
            "B(2*i + 1): [0, I // 2) lower upper"
        ]
    );
}

#[test]
fn a_where_clause_decides_its_variable_before_any_round() {
    let d = def("def average_pool_2(float(I) B) -> (A) { A(i) = B(2*i + k) where k in 0:2 }");
    let k = range(&d, "k");
    assert_eq!(k.round, None);
    assert_eq!(lines(k), ["where k in 0:2: [0, 2) lower upper"]);
    let i = range(&d, "i");
    assert_eq!(i.round, Some(1));
    assert_eq!(lines(i), ["B(2*i + k): [0, I // 2) lower upper"]);
}

#[test]
fn a_lookup_table_is_bounded_by_the_index_read_alone() {
    let d = def("def lut(float(J) B, int32(I) C) -> (A) { A(i) = B(C(i)) }");
    let r = range(&d, "i");
    assert_eq!(lines(r), ["C(i): [0, I) lower upper"]);
}

#[test]
fn two_reads_with_the_same_bound_both_decide_it() {
    let d = def("def f(float(N) B, float(N) D) -> (A) { A(i) = B(i) + D(i) }");
    let r = range(&d, "i");
    assert_eq!(
        lines(r),
        ["B(i): [0, N) lower upper", "D(i): [0, N) lower upper"]
    );
    // Matrix multiply: r_k is bounded by both reads, as the seed says.
    let d = def("def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,r_k) * B(r_k,n) }");
    let r = range(&d, "r_k");
    assert_eq!(
        lines(r),
        [
            "A(m,r_k): [0, K) lower upper",
            "B(r_k,n): [0, K) lower upper"
        ]
    );
}

/// `c * i + d` written as TC source.
fn index(c: i64, d: i64) -> String {
    match d {
        0 => format!("{c}*i"),
        d if d > 0 => format!("{c}*i + {d}"),
        d => format!("{c}*i - {}", -d),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Each access's bound is exactly the set of `i` it reads in bounds
    /// (by enumeration at a size), the range is their intersection, an
    /// access said to decide an end has that end, and under the size the
    /// deciding accesses are exactly those whose ends are the range's.
    #[test]
    fn bounds_are_what_each_access_allows(
        c1 in 1i64..4, d1 in -6i64..6, c2 in 1i64..4, d2 in -6i64..6, n in 8i64..40,
    ) {
        let src = format!(
            "def f(float(N) B) -> (A) {{ A(i) = B({}) + B({}) }}",
            index(c1, d1),
            index(c2, d2)
        );
        let d = def(&src);
        let nv = d.size("N").unwrap().clone();
        let at = |e: &arith::Expr| e.eval(&|v: &arith::Var| (v == &nv).then_some(n)).unwrap();
        let r = range(&d, "i");
        prop_assert_eq!(r.round, Some(1));
        let (lo, hi) = (at(&r.lower), at(&r.upper));
        let accesses = [(c1, d1), (c2, d2)];
        prop_assert_eq!(r.bounds.len(), 2);
        let (mut lows, mut highs) = (Vec::new(), Vec::new());
        for b in &r.bounds {
            let (bl, bh) = (at(b.lower.as_ref().unwrap()), at(b.upper.as_ref().unwrap()));
            let (c, off) = accesses
                .iter()
                .copied()
                .find(|&(c, off)| written(b) == format!("B({})", index(c, off)))
                .unwrap_or_else(|| panic!("{} in {src}", written(b)));
            for i in -60..60 {
                let inside = (0..n).contains(&(c * i + off));
                prop_assert_eq!(inside, (bl..bh).contains(&i), "{} at i = {}", b.access, i);
            }
            prop_assert!(!b.decides_lower || bl == lo);
            prop_assert!(!b.decides_upper || bh == hi);
            lows.push(bl);
            highs.push(bh);
        }
        prop_assert_eq!(lo, *lows.iter().max().unwrap());
        prop_assert_eq!(hi, *highs.iter().min().unwrap());
        let sizes = std::collections::HashMap::from([("N".to_string(), n)]);
        let under = r.deciding_under(&sizes);
        for (k, (dl, du)) in under.into_iter().enumerate() {
            prop_assert_eq!(dl, lows[k] == lo);
            prop_assert_eq!(du, highs[k] == hi);
        }
    }
}
