//! Interval sets: TVM's `test_arith_intset.py` cases ported by hand, golden
//! cases for the set operations, and property tests against enumeration.
//!
//! TVM checks each end with `can_prove_equal`; so do these tests. TVM's
//! truncating `tdiv`/`tmod` are written as floor `//`/`%`: every such case has
//! a non-negative dividend and a positive divisor, where the two agree.

use arith::int_set::{union_all, IntSet};
use arith::{Analyzer, ConstBound, Expr, Range, Scope, Var};
use proptest::prelude::*;
use std::collections::HashMap;

/// One `IntSetChecker`: an analyzer, a scope for the text, a domain map.
struct Checker {
    an: Analyzer,
    scope: Scope,
    dom: HashMap<Var, IntSet>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            an: Analyzer::new(),
            scope: Scope::new(),
            dom: HashMap::new(),
        }
    }

    fn expr(&mut self, text: &str) -> Expr {
        arith::parse_in(text, &mut self.scope).unwrap()
    }

    fn var(&mut self, name: &str) -> Var {
        self.scope.get_or_create(name)
    }

    /// `analyzer.update(name, ConstIntBound(lo, hi))`
    fn update(mut self, name: &str, lo: i64, hi: i64) -> Checker {
        let v = self.var(name);
        self.an.update_bound(&v, ConstBound::new(lo, hi));
        self
    }

    /// `analyzer.bind(name, Range.from_min_extent(min, extent))`
    fn bind(mut self, name: &str, min: i64, extent: i64) -> Checker {
        let v = self.var(name);
        self.an
            .bind(&v, Range::new(Expr::int(min), Expr::int(extent)));
        self
    }

    /// `dom_map[name] = IntervalSet(lo, hi)`; `-inf`/`+inf` for infinite ends.
    fn dom(mut self, name: &str, lo: &str, hi: &str) -> Checker {
        let v = self.var(name);
        let lo = self.end(lo);
        let hi = self.end(hi);
        self.dom.insert(v, IntSet::interval(lo, hi));
        self
    }

    fn end(&mut self, text: &str) -> Option<Expr> {
        (!text.ends_with("inf")).then(|| self.expr(text))
    }

    fn eval(&mut self, input: &str) -> IntSet {
        let e = self.expr(input);
        self.an.int_set(&e, &self.dom)
    }

    /// `ck.verify(input, dom, (lo, hi))`: each end provably equal.
    fn verify(&mut self, input: &str, lo: &str, hi: &str) {
        let s = self.eval(input);
        let (want_lo, want_hi) = (self.end(lo), self.end(hi));
        for (got, want, which) in [(s.min(), want_lo, "min"), (s.max(), want_hi, "max")] {
            let ok = match (got, &want) {
                (None, None) => true,
                (Some(g), Some(w)) => self.an.can_prove(&Expr::eq(g.clone(), w.clone())),
                _ => false,
            };
            assert!(ok, "int_set({input}) = {s}: {which} should be {want:?}");
        }
    }
}

// ------------------------------------------------------ TVM test_basic

#[test]
fn intset_0000_interval_set() {
    let s = IntSet::interval(Expr::int(2), Expr::int(3));
    assert_eq!(
        (s.min().unwrap().as_int(), s.max().unwrap().as_int()),
        (Some(2), Some(3))
    );
}

#[test]
fn intset_0001_single_point() {
    let s = IntSet::single_point(Expr::int(2));
    assert_eq!(
        (s.min().unwrap().as_int(), s.max().unwrap().as_int()),
        (Some(2), Some(2))
    );
    assert_eq!(s.as_single_point(), Some(&Expr::int(2)));
}

// ------------------------------------------------------ TVM test_add_sub

#[test]
fn intset_0004_add_symbolic() {
    Checker::new()
        .dom("x", "0", "10")
        .verify("x + y", "y", "10 + y");
}

#[test]
fn intset_0005_add() {
    Checker::new()
        .dom("x", "0", "10")
        .dom("y", "1", "11")
        .verify("x + y", "1", "21");
}

#[test]
fn intset_0006_sub() {
    Checker::new()
        .dom("x", "0", "10")
        .dom("y", "1", "11")
        .verify("x - y", "-11", "9");
}

// ------------------------------------------------------ TVM test_mul_div

fn mul_div_checker() -> Checker {
    Checker::new().update("y", 1, 100)
}

#[test]
fn intset_0007_mul_symbolic() {
    mul_div_checker()
        .dom("x", "0", "10")
        .verify("x * y", "0", "10 * y");
}

#[test]
fn intset_0008_mul_const() {
    mul_div_checker()
        .dom("x", "1", "10")
        .verify("x * 2", "2", "20");
}

#[test]
fn intset_0009_mul_negative() {
    mul_div_checker()
        .dom("x", "1", "10")
        .verify("x * -2", "-20", "-2");
}

#[test]
fn intset_0010_tdiv_symbolic() {
    mul_div_checker()
        .dom("x", "0", "10")
        .verify("x // y", "0", "10 // y");
}

#[test]
fn intset_0011_tdiv_const() {
    mul_div_checker()
        .dom("x", "1", "10")
        .verify("x // 2", "0", "5");
}

#[test]
fn intset_0012_floordiv_symbolic() {
    mul_div_checker()
        .dom("x", "0", "10")
        .verify("floordiv(x, y)", "0", "floordiv(10, y)");
}

#[test]
fn intset_0013_floordiv_negative_dividend() {
    mul_div_checker()
        .dom("x", "-1", "10")
        .verify("floordiv(x, 2)", "-1", "5");
}

// ------------------------------------------------------ TVM test_mod

#[test]
fn intset_0014_tmod_symbolic() {
    // TVM: (0, y - 1). Tighter here: a non-negative dividend also bounds
    // the remainder, and x <= 10.
    mul_div_checker()
        .dom("x", "0", "10")
        .verify("x % y", "0", "min(y - 1, 10)");
}

#[test]
fn intset_0015_tmod_const() {
    mul_div_checker()
        .dom("x", "1", "10")
        .verify("x % 10", "0", "9");
}

#[test]
fn intset_0016_floormod_across_zero() {
    mul_div_checker()
        .dom("x", "-10", "10")
        .verify("floormod(x, 10)", "0", "9");
}

#[test]
fn intset_0017_floormod_inside_first_block() {
    mul_div_checker()
        .dom("x", "3", "5")
        .verify("floormod(x, 10)", "3", "5");
}

#[test]
fn intset_0018_floormod_inside_second_block() {
    mul_div_checker()
        .dom("x", "13", "15")
        .verify("floormod(x, 10)", "3", "5");
}

#[test]
fn intset_0019_floormod_two_blocks() {
    mul_div_checker()
        .dom("x", "3", "15")
        .verify("floormod(x, 10)", "0", "9");
}

#[test]
fn intset_0020_floormod_block_edge() {
    mul_div_checker()
        .dom("x", "3", "11")
        .verify("floormod(x, 10)", "0", "9");
}

#[test]
fn intset_0021_floormod_three_blocks() {
    mul_div_checker()
        .dom("x", "1", "21")
        .verify("floormod(x, 10)", "0", "9");
}

#[test]
fn intset_0022_floormod_symbolic_block() {
    // y's analyzer bound [1, 100] is replaced by its domain.
    mul_div_checker()
        .bind("x", 0, 3)
        .dom("y", "z * 8 + x * 4", "z * 8 + x * 4 + 3")
        .verify(
            "floormod(y, 8)",
            "z * 8 + x * 4 - 8 * floordiv(z * 8 + x * 4, 8)",
            "z * 8 + x * 4 + 3 - 8 * floordiv(z * 8 + x * 4, 8)",
        );
}

#[test]
fn intset_0023_floormod_symbolic_block_first() {
    Checker::new()
        .bind("x", 0, 2)
        .dom("y", "z * 8 + x * 4", "z * 8 + x * 4 + 3")
        .verify("floormod(y, 8)", "x * 4", "x * 4 + 3");
}

// ------------------------------------------------------ TVM test_max_min

#[test]
fn intset_0024_max() {
    Checker::new()
        .dom("x", "0", "10")
        .verify("max(x, x + 1)", "1", "11");
}

#[test]
fn intset_0025_min() {
    Checker::new()
        .dom("x", "0", "10")
        .verify("min(x - 1, x + 1)", "-1", "9");
}

#[test]
fn intset_0026_min_unrelaxed() {
    Checker::new().verify("min(x, y)", "min(x, y)", "min(x, y)");
}

#[test]
fn intset_0027_max_unrelaxed() {
    Checker::new().verify("max(x, y)", "max(x, y)", "max(x, y)");
}

// ------------------------------------------------------ TVM test_select

#[test]
fn intset_0028_select() {
    Checker::new()
        .dom("x", "0", "10")
        .verify("select(x > 0, x - 1, x + 1)", "-1", "11");
}

// ------------------------------------------------------ union_lower_bound

#[test]
fn intset_0045_union_halves() {
    let an = Analyzer::new();
    let sets = [
        IntSet::interval(None, Expr::int(0)),
        IntSet::interval(Expr::int(1), None),
    ];
    let u = union_all(&sets, &an);
    assert!(u.min().is_none() && u.max().is_none() && u.is_everything());
}

#[test]
fn intset_0046_union_with_empty() {
    // TVM's IntervalSet(pos_inf, neg_inf) is the empty set.
    let an = Analyzer::new();
    let sets = [
        IntSet::interval(None, Expr::int(0)),
        IntSet::interval(Expr::int(1), None),
        IntSet::nothing(),
    ];
    assert!(union_all(&sets, &an).is_everything());
}

// ------------------------------------------------------ HEAD-only cases

#[test]
fn intset_0047_modular_set() {
    Checker::new()
        .dom("x", "0", "128")
        .dom("y", "0", "3584")
        .verify("(x * 2048 + y * 16) % 7168", "0", "7152");
}

#[test]
fn intset_0048_deep_variable_dependency_chain() {
    let n = 64;
    let mut ck = Checker::new();
    for i in 0..n {
        ck = ck.dom(
            &format!("x{i}"),
            &format!("x{} - 1", i + 1),
            &format!("x{} + 1", i + 1),
        );
    }
    ck = ck.dom(&format!("x{n}"), "0", "100");
    ck.verify("x0", &format!("-{n}"), &format!("100 + {n}"));
}

#[test]
fn intset_0049_cyclic_variable_dependency() {
    // TVM only asks for an answer; a cycle says nothing, so it is everything.
    let mut ck = Checker::new().dom("x", "y", "y").dom("y", "x", "x");
    assert!(ck.eval("x").is_everything());
}

#[test]
fn self_referencing_domains() {
    // `x -> [x, x]` leaves x as it is (TVM's convention) ...
    let mut ck = Checker::new().dom("x", "x", "x");
    assert_eq!(ck.eval("x * 2 + 1").to_string(), "[x * 2 + 1, x * 2 + 1]");
    // ... while a domain defined through itself says nothing.
    let mut ck = Checker::new().dom("x", "x - 1", "x + 1");
    assert!(ck.eval("x").is_everything());
    // A chain through three domains back to the first is a cycle too; the
    // variable outside it is still relaxed.
    let mut ck = Checker::new()
        .dom("a", "b", "b + 1")
        .dom("b", "c", "c")
        .dom("c", "a", "a")
        .dom("d", "0", "4");
    let s = ck.eval("a + d");
    assert!(s.is_everything(), "{s}");
    assert_eq!(ck.eval("d * 3").to_string(), "[0, 12]");
}

/// Every case of the kinds this file ports is ported (when the corpus is
/// present).
#[test]
fn conformance_cases_are_all_ported() {
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
        });
    let path = shared.join("conformance/tvm/arith_cases.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("note: shared/conformance is absent; skipping the coverage check");
        return;
    };
    let ported: Vec<&str> = include_str!("int_set.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("fn intset_"))
        .map(|l| &l[..4])
        .collect();
    let kinds = [
        "int_set",
        "result_asserts.int_set",
        "result_asserts.IntervalSet",
        "result_asserts.single_point",
    ];
    let mut missing = Vec::new();
    let mut total = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        if !kinds.contains(&case["kind"].as_str().unwrap_or("")) {
            continue;
        }
        total += 1;
        let id = case["id"].as_str().unwrap();
        let number = id.strip_prefix("intset#").unwrap_or(id);
        if !ported.contains(&number) {
            missing.push(id.to_string());
        }
    }
    assert_eq!(total, 32, "the corpus changed");
    assert!(missing.is_empty(), "not ported: {missing:?}");
}

// ------------------------------------------------------ set operations

#[test]
fn union_of_symbolic_ends_is_simplified() {
    let mut ck = Checker::new();
    let a = IntSet::interval(ck.expr("x"), ck.expr("x + 3"));
    let b = IntSet::interval(ck.expr("x + 2"), ck.expr("x + 9"));
    assert_eq!(a.union(&b, &ck.an).to_string(), "[x, x + 9]");
    assert_eq!(b.union(&a, &ck.an).to_string(), "[x, x + 9]");
    assert_eq!(a.union(&IntSet::nothing(), &ck.an), a);
    assert!(a.union(&IntSet::everything(), &ck.an).is_everything());
}

#[test]
fn union_of_ends_one_base_apart_orders_them_by_the_constants() {
    let mut ck = Checker::new();
    let a = IntSet::interval(ck.expr("x * 64 - 2"), ck.expr("x * 64 + 65"));
    let b = IntSet::interval(ck.expr("x * 64"), ck.expr("x * 64 + 67"));
    assert_eq!(a.union(&b, &ck.an).to_string(), "[x * 64 - 2, x * 64 + 67]");
    assert_eq!(b.union(&a, &ck.an).to_string(), "[x * 64 - 2, x * 64 + 67]");
    // Different bases are compared by the simplifier.
    let c = IntSet::interval(ck.expr("x * 64 + y"), ck.expr("x * 64 + y + 1"));
    let u = b.union(&c, &ck.an);
    assert_eq!(u.min().unwrap().to_string(), "x * 64 + min(y, 0)");
}

#[test]
fn union_of_unordered_ends_keeps_min_and_max() {
    let mut ck = Checker::new();
    let a = IntSet::single_point(ck.expr("x"));
    let b = IntSet::single_point(ck.expr("y"));
    assert_eq!(a.union(&b, &ck.an).to_string(), "[min(x, y), max(x, y)]");
}

#[test]
fn intersection() {
    let mut ck = Checker::new().bind("n", 1, 100);
    let a = IntSet::interval(Expr::int(0), ck.expr("n - 1"));
    let b = IntSet::interval(Expr::int(-5), None);
    assert_eq!(a.intersect(&b, &ck.an), a);
    let c = IntSet::interval(ck.expr("n"), None);
    assert!(
        a.intersect(&c, &ck.an).is_nothing(),
        "[0, n-1] and [n, inf) are disjoint"
    );
    let d = IntSet::interval(Expr::int(3), Expr::int(7));
    let e = IntSet::interval(Expr::int(8), Expr::int(9));
    assert!(d.intersect(&e, &ck.an).is_nothing());
    assert!(d.intersect(&IntSet::nothing(), &ck.an).is_nothing());
    assert_eq!(IntSet::everything().intersect(&d, &ck.an), d);
}

#[test]
fn constructors_and_accessors() {
    assert!(IntSet::everything().is_everything());
    assert!(IntSet::nothing().is_nothing());
    assert!(!IntSet::nothing().is_everything());
    assert!(IntSet::interval(Expr::int(1), Expr::int(0)).is_nothing());
    assert_eq!(IntSet::interval(None, None), IntSet::everything());
    assert_eq!(IntSet::nothing().to_string(), "{}");
    assert_eq!(
        IntSet::interval(None, Expr::int(4)).to_string(),
        "[-inf, 4]"
    );
    assert!(IntSet::interval(Expr::int(1), Expr::int(2))
        .as_single_point()
        .is_none());
    assert!(IntSet::from_range(&Range::new(Expr::int(3), Expr::int(0))).is_nothing());
    assert_eq!(
        IntSet::from_range(&Range::new(Expr::int(3), Expr::int(4))).to_string(),
        "[3, 6]"
    );
}

#[test]
fn cover_range() {
    let mut ck = Checker::new();
    let n = ck.expr("n");
    let fallback = Range::from_extent(n.clone());
    let s = IntSet::interval(ck.expr("i * 4"), ck.expr("i * 4 + 3"));
    assert_eq!(
        s.cover_range(&fallback, &ck.an).to_string(),
        "[i * 4, i * 4 + 4)"
    );
    assert_eq!(s.cover_range(&fallback, &ck.an).extent, Expr::int(4));
    assert_eq!(
        IntSet::everything().cover_range(&fallback, &ck.an),
        fallback
    );
    let empty = IntSet::nothing().cover_range(&fallback, &ck.an);
    assert_eq!(empty.extent, Expr::int(0));
    let upper_open = IntSet::interval(Expr::int(2), None).cover_range(&fallback, &ck.an);
    assert_eq!(upper_open.min, Expr::int(2));
    assert_eq!(upper_open.extent.to_string(), "n - 2");
    let halves = IntSet::interval(Expr::int(0), ck.expr("(I - 1) // 2"));
    assert_eq!(
        halves.cover_range(&fallback, &ck.an).extent.to_string(),
        "(I + 1) // 2"
    );
}

#[test]
fn range_domains_from_symbolic_extents() {
    let mut ck = Checker::new();
    let (i, n) = (ck.var("i"), ck.expr("n"));
    ck.dom.insert(i, IntSet::from_range(&Range::from_extent(n)));
    assert_eq!(ck.eval("i * 2 + 1").to_string(), "[1, n * 2 - 1]");
    assert_eq!(ck.eval("n - 1 - i").to_string(), "[0, n - 1]");
    assert_eq!(ck.eval("i - i").to_string(), "[0, 0]");
}

#[test]
fn tiled_index_is_exact() {
    let mut ck = Checker::new().dom("io", "0", "7").dom("ii", "0", "3");
    assert_eq!(ck.eval("io * 4 + ii").to_string(), "[0, 31]");
    assert_eq!(ck.eval("(io * 4 + ii) // 4").to_string(), "[0, 7]");
    assert_eq!(ck.eval("(io * 4 + ii) % 4").to_string(), "[0, 3]");
}

#[test]
fn relaxing_one_of_two_loops_keeps_the_other_symbolic() {
    let mut ck = Checker::new().bind("io", 0, 8).dom("ii", "0", "3");
    assert_eq!(ck.eval("io * 4 + ii").to_string(), "[io * 4, io * 4 + 3]");
    assert_eq!(ck.eval("(io * 4 + ii) // 4").to_string(), "[io, io]");
}

#[test]
fn infinite_domains() {
    let mut ck = Checker::new()
        .dom("x", "0", "+inf")
        .dom("y", "-inf", "+inf");
    assert_eq!(ck.eval("x * -3 + 1").to_string(), "[-inf, 1]");
    assert_eq!(ck.eval("min(x, 5)").to_string(), "[0, 5]");
    assert_eq!(ck.eval("max(x, 5)").to_string(), "[5, +inf]");
    assert_eq!(ck.eval("x % 7").to_string(), "[0, 6]");
    assert_eq!(ck.eval("x // 7").to_string(), "[0, +inf]");
    assert!(ck.eval("y * 2").is_everything());
    assert_eq!(ck.eval("y % -4").to_string(), "[-3, 0]");
}

#[test]
fn conditions() {
    let mut ck = Checker::new().dom("x", "0", "10");
    assert_eq!(ck.eval("x < 11").to_string(), "[1, 1]");
    assert_eq!(ck.eval("x > 10").to_string(), "[0, 0]");
    assert_eq!(ck.eval("x < 5").to_string(), "[0, 1]");
    assert_eq!(
        ck.eval("select(x >= 0 and x <= 10, x, 100)").to_string(),
        "[0, 10]"
    );
    assert_eq!(
        ck.eval("select(x < 0 or x > 10, 100, x * 2)").to_string(),
        "[0, 20]"
    );
}

#[test]
fn empty_domain_gives_empty_set() {
    let mut ck = Checker::new();
    let x = ck.var("x");
    ck.dom.insert(x, IntSet::nothing());
    assert!(ck.eval("x * 2 + 1").is_nothing());
}

#[test]
fn analyzer_facts_about_relaxed_variables_are_replaced() {
    // x is known to be 3 to the analyzer, but the domain says [0, 10].
    let mut ck = Checker::new().bind("x", 3, 1).dom("x", "0", "10");
    assert_eq!(ck.eval("x // 4").to_string(), "[0, 2]");
}

// ------------------------------------------------------ property tests

/// An integer expression over variable indices.
#[derive(Clone, Debug)]
enum E {
    Var(usize),
    Int(i64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    MulC(Box<E>, i64),
    Div(Box<E>, i64),
    Mod(Box<E>, i64),
    DivV(Box<E>, usize),
    ModV(Box<E>, usize),
    Min(Box<E>, Box<E>),
    Max(Box<E>, Box<E>),
    Select(Box<E>, Box<E>, Box<E>, Box<E>),
}

impl E {
    fn build(&self, v: &[Var]) -> Expr {
        let b = |e: &E| e.build(v);
        match self {
            E::Var(i) => v[*i].expr(),
            E::Int(c) => Expr::int(*c),
            E::Add(x, y) => Expr::add(b(x), b(y)),
            E::Sub(x, y) => Expr::sub(b(x), b(y)),
            E::Mul(x, y) => Expr::mul(b(x), b(y)),
            E::MulC(x, c) => Expr::mul(b(x), Expr::int(*c)),
            E::Div(x, c) => Expr::floor_div(b(x), Expr::int(*c)),
            E::Mod(x, c) => Expr::floor_mod(b(x), Expr::int(*c)),
            E::DivV(x, i) => Expr::floor_div(b(x), v[*i].expr()),
            E::ModV(x, i) => Expr::floor_mod(b(x), v[*i].expr()),
            E::Min(x, y) => Expr::min(b(x), b(y)),
            E::Max(x, y) => Expr::max(b(x), b(y)),
            E::Select(p, q, x, y) => Expr::select(Expr::lt(b(p), b(q)), b(x), b(y)),
        }
    }
}

fn divisor() -> impl Strategy<Value = i64> {
    prop_oneof![1i64..=9, -7i64..=-1, Just(16)]
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![(0usize..3).prop_map(E::Var), (-9i64..10).prop_map(E::Int)];
    leaf.prop_recursive(5, 40, 4, |inner| {
        let bx = |e: E| Box::new(e);
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(move |(a, b)| E::Add(bx(a), bx(b))),
            (inner.clone(), inner.clone()).prop_map(move |(a, b)| E::Sub(bx(a), bx(b))),
            (inner.clone(), inner.clone()).prop_map(move |(a, b)| E::Mul(bx(a), bx(b))),
            (inner.clone(), -5i64..6).prop_map(move |(a, c)| E::MulC(bx(a), c)),
            (inner.clone(), divisor()).prop_map(move |(a, c)| E::Div(bx(a), c)),
            (inner.clone(), divisor()).prop_map(move |(a, c)| E::Mod(bx(a), c)),
            (inner.clone(), 0usize..3).prop_map(move |(a, i)| E::DivV(bx(a), i)),
            (inner.clone(), 0usize..3).prop_map(move |(a, i)| E::ModV(bx(a), i)),
            (inner.clone(), inner.clone()).prop_map(move |(a, b)| E::Min(bx(a), bx(b))),
            (inner.clone(), inner.clone()).prop_map(move |(a, b)| E::Max(bx(a), bx(b))),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(p, q, a, b)| E::Select(bx(p), bx(q), bx(a), bx(b))),
        ]
    })
}

/// A sum of scaled variables, each at most once, in a random tree shape.
fn linear() -> impl Strategy<Value = E> {
    (
        proptest::collection::vec(-6i64..7, 3),
        -10i64..10,
        proptest::sample::select(vec![0usize, 1, 2]),
    )
        .prop_map(|(coeffs, konst, shape)| {
            let terms: Vec<E> = coeffs
                .iter()
                .enumerate()
                .filter(|(_, c)| **c != 0)
                .map(|(i, c)| E::MulC(Box::new(E::Var(i)), *c))
                .collect();
            let mut acc = E::Int(konst);
            for (n, t) in terms.into_iter().enumerate() {
                acc = match (shape + n) % 3 {
                    0 => E::Add(Box::new(acc), Box::new(t)),
                    1 => E::Add(Box::new(t), Box::new(acc)),
                    _ => E::Sub(Box::new(acc), Box::new(E::MulC(Box::new(t), -1))),
                };
            }
            acc
        })
}

fn domain() -> impl Strategy<Value = (i64, i64)> {
    (-6i64..7, 0i64..5).prop_map(|(lo, len)| (lo, lo + len))
}

fn points(doms: &[(i64, i64)]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &(lo, hi) in doms {
        out = out
            .into_iter()
            .flat_map(|p| (lo..=hi).map(move |v| [p.clone(), vec![v]].concat()))
            .collect();
    }
    out
}

/// The value of a set end at `env`: `Ok(None)` for an infinite end, `Err`
/// when the end is undefined there (a symbolic divisor that is zero).
fn end_value(e: Option<&Expr>, env: &[(&Var, i64)]) -> Result<Option<i64>, String> {
    match e {
        None => Ok(None),
        Some(e) => e
            .eval_with(env)
            .map(Some)
            .map_err(|err| format!("end `{e}`: {err}")),
    }
}

/// Relaxes all three variables over constant domains, or (when `shift` is
/// set) the first one over `[n + lo, n + hi]` with a symbolic `n`.
fn check_sound(tree: &E, doms: &[(i64, i64)], shift: bool) -> Result<(), TestCaseError> {
    let v = [Var::new("x"), Var::new("y"), Var::new("z")];
    let n = Var::new("n");
    let e = tree.build(&v);
    let mut dom = HashMap::new();
    for (i, &(lo, hi)) in doms.iter().enumerate() {
        let (l, h) = if shift && i == 0 {
            (
                Expr::add(n.expr(), Expr::int(lo)),
                Expr::add(n.expr(), Expr::int(hi)),
            )
        } else {
            (Expr::int(lo), Expr::int(hi))
        };
        dom.insert(v[i].clone(), IntSet::interval(l, h));
    }
    let set = Analyzer::new().int_set(&e, &dom);
    let shifts: &[i64] = if shift { &[-3, 0, 5] } else { &[0] };
    for &nv in shifts {
        let lo = end_value(set.min(), &[(&n, nv)]);
        let hi = end_value(set.max(), &[(&n, nv)]);
        for p in points(doms) {
            let x0 = if shift { p[0] + nv } else { p[0] };
            let env = [(&v[0], x0), (&v[1], p[1]), (&v[2], p[2])];
            let Ok(value) = e.eval_with(&env) else {
                continue;
            };
            prop_assert!(
                !set.is_nothing(),
                "{e} = {value} at {p:?} but the set is empty"
            );
            // An end may be undefined only where the expression is.
            let (lo, hi) = match (&lo, &hi) {
                (Ok(lo), Ok(hi)) => (lo, hi),
                (Err(err), _) | (_, Err(err)) => {
                    return Err(TestCaseError::fail(format!(
                        "{e} = {value} at {p:?}, but {err}"
                    )))
                }
            };
            prop_assert!(
                lo.is_none_or(|l| l <= value) && hi.is_none_or(|h| value <= h),
                "{e} = {value} at {p:?} (n = {nv}) is outside {set}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn int_set_contains_every_value(tree in expr(), doms in proptest::array::uniform3(domain())) {
        check_sound(&tree, &doms, false)?;
    }

    #[test]
    fn int_set_with_symbolic_domain_contains_every_value(
        tree in expr(),
        doms in proptest::array::uniform3(domain()),
    ) {
        check_sound(&tree, &doms, true)?;
    }

    #[test]
    fn int_set_of_linear_expressions_is_exact(tree in linear(), doms in proptest::array::uniform3(domain())) {
        let v = [Var::new("x"), Var::new("y"), Var::new("z")];
        let e = tree.build(&v);
        let dom: HashMap<Var, IntSet> = doms
            .iter()
            .enumerate()
            .map(|(i, &(lo, hi))| (v[i].clone(), IntSet::interval(Expr::int(lo), Expr::int(hi))))
            .collect();
        let set = Analyzer::new().int_set(&e, &dom);
        let values: Vec<i64> = points(&doms)
            .iter()
            .map(|p| e.eval_with(&[(&v[0], p[0]), (&v[1], p[1]), (&v[2], p[2])]).unwrap())
            .collect();
        let want = (values.iter().min().copied(), values.iter().max().copied());
        let got = (set.min().and_then(Expr::as_int), set.max().and_then(Expr::as_int));
        prop_assert_eq!(got, want, "{} over {:?} gave {}", e, doms, set);
    }

    #[test]
    fn union_and_intersection_agree_with_membership(
        a in domain(), b in domain(), probe in -8i64..12,
    ) {
        let an = Analyzer::new();
        let sa = IntSet::interval(Expr::int(a.0), Expr::int(a.1));
        let sb = IntSet::interval(Expr::int(b.0), Expr::int(b.1));
        let contains = |s: &IntSet, v: i64| {
            !s.is_nothing()
                && s.min().and_then(Expr::as_int).is_none_or(|l| l <= v)
                && s.max().and_then(Expr::as_int).is_none_or(|h| v <= h)
        };
        let in_a = contains(&sa, probe);
        let in_b = contains(&sb, probe);
        prop_assert_eq!(contains(&sa.intersect(&sb, &an), probe), in_a && in_b);
        // The union is the hull: it holds both sets and nothing beyond them.
        let u = sa.union(&sb, &an);
        prop_assert!(!(in_a || in_b) || contains(&u, probe));
        let hull = (a.0.min(b.0), a.1.max(b.1));
        prop_assert_eq!(contains(&u, probe), hull.0 <= probe && probe <= hull.1);
    }
}

/// How much `int_set` over-approximates on random expressions: the share of
/// cases whose set is exactly the hull of the values, and the mean number of
/// extra values. Deterministic, so the floors below catch regressions.
#[test]
fn over_approximation_is_measured() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (expr(), proptest::array::uniform3(domain()));
    let v = [Var::new("x"), Var::new("y"), Var::new("z")];
    let (mut cases, mut exact, mut extra, mut unbounded) = (0u32, 0u32, 0i64, 0u32);
    while cases < 2000 {
        let (tree, doms) = strategy.new_tree(&mut runner).unwrap().current();
        let e = tree.build(&v);
        let values: Vec<i64> = points(&doms)
            .iter()
            .filter_map(|p| {
                e.eval_with(&[(&v[0], p[0]), (&v[1], p[1]), (&v[2], p[2])])
                    .ok()
            })
            .collect();
        let (Some(&lo), Some(&hi)) = (values.iter().min(), values.iter().max()) else {
            continue;
        };
        let dom: HashMap<Var, IntSet> = doms
            .iter()
            .enumerate()
            .map(|(i, &(l, h))| (v[i].clone(), IntSet::interval(Expr::int(l), Expr::int(h))))
            .collect();
        let set = Analyzer::new().int_set(&e, &dom);
        cases += 1;
        match (
            set.min().and_then(Expr::as_int),
            set.max().and_then(Expr::as_int),
        ) {
            (Some(l), Some(h)) => {
                exact += (l == lo && h == hi) as u32;
                extra += (lo - l) + (h - hi);
            }
            _ => {
                unbounded += 1;
            }
        }
    }
    let exact_share = f64::from(exact) / f64::from(cases);
    let mean_extra = extra as f64 / f64::from(cases - unbounded);
    println!(
        "int_set over {cases} random expressions: {:.1}% exact, {mean_extra:.2} extra values \
         on average where finite, {unbounded} with an infinite end",
        exact_share * 100.0
    );
    assert!(exact_share >= 0.9, "exactness regressed: {exact_share}");
    assert!(
        mean_extra <= 0.5,
        "over-approximation regressed: {mean_extra}"
    );
    assert!(unbounded <= 5, "infinite ends regressed: {unbounded}");
}

/// `x % d` with a symbolic divisor `d >= 1` and `x` over `[o * k, o * k + w]`
/// for a symbolic `o`: at every `(o, d)` the set holds every value, and it
/// is the exact hull whenever the interval stays in one block of `d`
/// values (InferBound's per-iteration box of a fused-then-split axis).
#[test]
fn mod_by_a_symbolic_divisor_is_the_minimal_box_per_block() {
    let (o, d, x) = (Var::new("o"), Var::new("d"), Var::new("x"));
    for k in 1..5i64 {
        for w in 0..4i64 {
            let mut an = Analyzer::new();
            an.bind(&o, Range::from_extent(Expr::int(6)));
            an.update_bound(&d, ConstBound::new(1, 7));
            let lo = Expr::mul(o.expr(), Expr::int(k));
            let hi = Expr::add(lo.clone(), Expr::int(w));
            let dom = HashMap::from([(x.clone(), IntSet::interval(lo, hi))]);
            let e = Expr::floor_mod(x.expr(), d.expr());
            let set = an.int_set(&e, &dom);
            for ov in 0..6 {
                for dv in 1..=7 {
                    let env = [(&o, ov), (&d, dv)];
                    let at = |end: Option<&Expr>| end.map(|e| e.eval_with(&env).unwrap());
                    let (Some(sl), Some(sh)) = (at(set.min()), at(set.max())) else {
                        panic!("{e} over [{}, {}] gave {set}", ov * k, ov * k + w);
                    };
                    let values: Vec<i64> =
                        (ov * k..=ov * k + w).map(|v| v.rem_euclid(dv)).collect();
                    let (vl, vh) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
                    assert!(sl <= vl && vh <= sh, "{set} at o={ov} d={dv}: [{vl}, {vh}]");
                    if (ov * k).div_euclid(dv) == (ov * k + w).div_euclid(dv) {
                        assert_eq!((sl, sh), (vl, vh), "{set} at o={ov} d={dv}");
                    }
                }
            }
        }
    }
}

/// The union of sets whose ends differ by constants (a stencil's loads
/// `x`, `x + 1`, `x + 2`) is their hull at every value of the symbols.
#[test]
fn union_of_shifted_symbolic_sets_is_the_hull() {
    let an = Analyzer::new();
    let (x, n) = (Var::new("x"), Var::new("n"));
    let base = x.expr() * 64 + n.expr();
    let shifted = |lo: i64, hi: i64| IntSet::interval(base.clone() + lo, base.clone() + hi);
    let sets = [
        shifted(0, 63),
        shifted(1, 64),
        shifted(2, 65),
        shifted(-3, 10),
    ];
    let u = union_all(&sets, &an);
    for xv in -2..3 {
        for nv in -5..5 {
            let env = [(&x, xv), (&n, nv)];
            let at = |e: Option<&Expr>| e.unwrap().eval_with(&env).unwrap();
            let b = 64 * xv + nv;
            assert_eq!((at(u.min()), at(u.max())), (b - 3, b + 65), "{u}");
        }
    }
    // Different terms still go through the simplifier.
    let other = IntSet::interval(x.expr(), x.expr() + 1);
    let v = shifted(0, 1).union(&other, &an);
    assert!(v.min().unwrap().to_string().contains("min"), "{v}");
}
