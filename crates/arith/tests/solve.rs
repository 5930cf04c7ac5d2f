//! Solving conditions for one variable: the Tensor Comprehensions range
//! inference examples C5-C8 of `shared/conformance/seeds.md` as golden tests
//! checked by brute force, and property tests against enumeration.

use arith::int_set::IntSet;
use arith::{Analyzer, CmpOp, ErrorKind, Expr, Range, Scope, Var};
use proptest::prelude::*;

/// A condition parsed with its variables, and an analyzer.
struct Problem {
    scope: Scope,
    an: Analyzer,
    cond: Expr,
}

impl Problem {
    fn new(cond: &str) -> Problem {
        let mut scope = Scope::new();
        let cond = arith::parse_in(cond, &mut scope).unwrap();
        Problem {
            scope,
            an: Analyzer::new(),
            cond,
        }
    }

    fn var(&mut self, name: &str) -> Var {
        self.scope.get_or_create(name)
    }

    /// `text` parsed in this problem's scope and simplified.
    fn simplified(&mut self, text: &str) -> Expr {
        let e = arith::parse_in(text, &mut self.scope).unwrap();
        self.an.simplify(&e).unwrap()
    }

    fn solve(&mut self, var: &str) -> IntSet {
        let v = self.var(var);
        self.an.solve_for_inner_interval(&self.cond, &v).unwrap()
    }

    /// Asserts `lo <= var < hi_exclusive` in printed form (both sides
    /// simplified), and by brute force for `I` in `0..40`: the interval is
    /// exactly the set of values of `var` where the condition holds.
    fn check(&mut self, set: &IntSet, var: &str, lo: &str, hi_exclusive: &str) {
        let got_lo = set.min().expect("a finite lower end").clone();
        let got_hi = set.exclusive_max(&self.an).expect("a finite upper end");
        assert_eq!(got_lo, self.simplified(lo), "lower end of {set}");
        assert_eq!(got_hi, self.simplified(hi_exclusive), "upper end of {set}");
        assert_eq!(got_lo.to_string(), lo, "printed lower end");
        assert_eq!(got_hi.to_string(), hi_exclusive, "printed upper end");
        let (v, size) = (self.var(var), self.var("I"));
        for n in 0..40 {
            let l = got_lo.eval_with(&[(&size, n)]).unwrap();
            let h = got_hi.eval_with(&[(&size, n)]).unwrap();
            for i in -100..100 {
                let holds = self.cond.eval_with(&[(&v, i), (&size, n)]).unwrap() == 1;
                assert_eq!(
                    holds,
                    l <= i && i < h,
                    "I = {n}, {var} = {i}: `{}` vs [{l}, {h})",
                    self.cond
                );
            }
        }
    }
}

#[test]
fn c5_inverted_indexing() {
    // def reverted(float(I) B) -> A { A(i) = B(10 - i) }
    let mut p = Problem::new("0 <= 10 - i and 10 - i < I");
    let s = p.solve("i");
    p.check(&s, "i", "11 - I", "11");
}

#[test]
fn c6_strided_indexing() {
    // def subsample_2(float(I) B) -> A { A(i) = B(2*i) }
    let mut p = Problem::new("0 <= 2*i and 2*i < I");
    let s = p.solve("i");
    p.check(&s, "i", "0", "(I + 1) // 2");
}

#[test]
fn c7_strided_indexing_with_offsets() {
    // def average_pool_2(float(I) B) -> A { A(i) = B(2*i) + B(2*i + 1) }
    let mut p = Problem::new("0 <= 2*i and 2*i < I");
    let first = p.solve("i");
    p.check(&first, "i", "0", "(I + 1) // 2");
    let mut q = Problem::new("0 <= 2*i + 1 and 2*i + 1 < I");
    let second = q.solve("i");
    q.check(&second, "i", "0", "I // 2");
    // Both accesses at once: the intersection.
    let mut both = Problem::new("0 <= 2*i and 2*i < I and 0 <= 2*i + 1 and 2*i + 1 < I");
    let s = both.solve("i");
    both.check(&s, "i", "0", "I // 2");
}

#[test]
fn c8_where_clause_eliminated_over_domain() {
    // A(i) = B(2*i + k) where k in 0:2
    let mut p = Problem::new("0 <= 2*i + k and 2*i + k < I");
    let k = p.var("k");
    let over_k =
        p.an.and_condition_over_domain(&p.cond, &k, &Range::from_extent(Expr::int(2)))
            .unwrap();
    assert_eq!(over_k, p.simplified("0 <= 2*i and 2*i + 1 < I"));
    let mut q = Problem { cond: over_k, ..p };
    let s = q.solve("i");
    q.check(&s, "i", "0", "I // 2");
}

#[test]
fn c2_stencil_second_round() {
    // A(i) += B(i + k) * K(k) with float(N) B, float(L) K: k in [0, L).
    let mut p = Problem::new("0 <= i + k and i + k < N");
    let (k, l) = (p.var("k"), p.var("L"));
    let c =
        p.an.and_condition_over_domain(&p.cond, &k, &Range::from_extent(l.expr()))
            .unwrap();
    assert_eq!(c.to_string(), "L <= 0 or 0 <= i and L + i <= N");
    // Knowing L >= 1 removes the empty-domain case.
    p.an.bind(&l, Range::new(Expr::int(1), Expr::int(1000)));
    let c =
        p.an.and_condition_over_domain(&p.cond, &k, &Range::from_extent(l.expr()))
            .unwrap();
    let mut q = Problem { cond: c, ..p };
    let s = q.solve("i");
    assert_eq!(s.min(), Some(&Expr::int(0)));
    assert_eq!(s.exclusive_max(&q.an).unwrap(), q.simplified("N - L + 1"));
}

#[test]
fn equality_pins_one_value() {
    let mut p = Problem::new("3*i == 12");
    assert_eq!(p.solve("i").to_string(), "[4, 4]");
    let mut p = Problem::new("3*i == 13");
    assert!(p.solve("i").is_nothing());
    let mut p = Problem::new("i - n == 2");
    assert_eq!(p.solve("i").to_string(), "[n + 2, n + 2]");
}

#[test]
fn one_sided_conditions_leave_an_infinite_end() {
    let mut p = Problem::new("i * 3 >= n");
    let s = p.solve("i");
    assert!(s.max().is_none());
    assert_eq!(s.min().unwrap().to_string(), "(n + 2) // 3");
    let mut p = Problem::new("True");
    assert!(p.solve("i").is_everything());
}

#[test]
fn facts_about_parameters_are_used_and_facts_about_the_variable_are_not() {
    let mut p = Problem::new("0 <= i and i < n and n >= 1");
    let n = p.var("n");
    p.an.bind(&n, Range::new(Expr::int(1), Expr::int(50)));
    assert_eq!(p.solve("i").to_string(), "[0, n - 1]");
    let i = p.var("i");
    p.an.bind(&i, Range::new(Expr::int(0), Expr::int(3)));
    assert_eq!(p.solve("i").to_string(), "[0, n - 1]");
}

#[test]
fn provably_false_conjunct_gives_the_empty_set() {
    let mut p = Problem::new("0 <= i and i < n and n < 0");
    let n = p.var("n");
    p.an.bind(&n, Range::new(Expr::int(0), Expr::int(50)));
    assert!(p.solve("i").is_nothing());
}

/// A linear condition the simplifier writes in a form that is not linear
/// in `k` (`0 <= 3i + 3k + 2n < 2` is `n + (i + k) * 3 // 2 == 0`) is still
/// eliminated over `k`, exactly; over no values of `k` it holds.
#[test]
fn a_linear_condition_is_solved_whatever_form_the_simplifier_gives_it() {
    let (i, k, n) = (Var::new("i"), Var::new("k"), Var::new("n"));
    let x = Expr::add(
        Expr::add(
            Expr::mul(Expr::int(3), i.expr()),
            Expr::mul(Expr::int(3), k.expr()),
        ),
        Expr::mul(Expr::int(2), n.expr()),
    );
    let cond = Expr::and(Expr::le(Expr::int(0), x.clone()), Expr::lt(x, Expr::int(2)));
    let an = Analyzer::new();
    for extent in [0, 1, 2] {
        let range = Range::new(Expr::int(0), Expr::int(extent));
        let got = an.and_condition_over_domain(&cond, &k, &range).unwrap();
        for nv in -6..=6 {
            for iv in -6..=6 {
                let want = (0..extent)
                    .all(|kv| cond.eval_with(&[(&i, iv), (&k, kv), (&n, nv)]).unwrap() == 1);
                let have = got.eval_with(&[(&i, iv), (&n, nv)]).unwrap() == 1;
                assert_eq!(have, want, "{got} over k < {extent} at i = {iv}, n = {nv}");
            }
        }
    }
}

#[test]
fn unsolvable_conditions_are_errors() {
    for text in [
        "0 <= s*i and s*i < I",
        "i*i < 10",
        "min(i, n) < 2",
        "i % 2 == 0",
        "i < 3 or i > 5",
        "i != 3",
    ] {
        let mut p = Problem::new(text);
        let i = p.var("i");
        let err = p.an.solve_for_inner_interval(&p.cond, &i).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid, "{text}");
        assert!(
            err.message.contains("where i in"),
            "{text}: {}",
            err.message
        );
    }
    let mut p = Problem::new("0 <= i and i < n and n > 4");
    let i = p.var("i");
    let err = p.an.solve_for_inner_interval(&p.cond, &i).unwrap_err();
    assert!(
        err.message.contains("`4 < n` does not mention `i`"),
        "{}",
        err.message
    );
    let mut p = Problem::new("i + 1");
    let i = p.var("i");
    assert_eq!(
        p.an.solve_for_inner_interval(&p.cond, &i).unwrap_err().kind,
        ErrorKind::Type
    );
}

#[test]
fn non_linear_forms_that_simplify_away_are_solved() {
    // The simplifier turns `i // 2 < 5` into `i < 10` ...
    let mut p = Problem::new("0 <= i // 2 and i // 2 < 5");
    assert_eq!(p.solve("i").to_string(), "[0, 9]");
    // ... and `min(i, 3) < 2` into `i < 2`.
    let mut p = Problem::new("min(i, 3) < 2");
    assert_eq!(p.solve("i").to_string(), "[-inf, 1]");
}

#[test]
fn and_condition_over_domain_cases() {
    let mut p = Problem::new("i + k != 5 and j < 4");
    let k = p.var("k");
    let c =
        p.an.and_condition_over_domain(&p.cond, &k, &Range::new(Expr::int(1), Expr::int(3)))
            .unwrap();
    // k in [1, 3]: 5 - i must avoid [1, 3].
    let (i, j) = (p.var("i"), p.var("j"));
    for iv in -5..12 {
        for jv in 0..6 {
            let want = (1..=3).all(|kv| iv + kv != 5) && jv < 4;
            assert_eq!(
                c.eval_with(&[(&i, iv), (&j, jv)]).unwrap() == 1,
                want,
                "{c} at i={iv} j={jv}"
            );
        }
    }
    let mut p = Problem::new("i * k < 4");
    let k = p.var("k");
    assert!(p
        .an
        .and_condition_over_domain(&p.cond, &k, &Range::from_extent(Expr::int(2)))
        .is_err());
    let empty = Range::new(Expr::int(0), Expr::int(0));
    let mut p = Problem::new("i + k < 0");
    let k = p.var("k");
    assert_eq!(
        p.an.and_condition_over_domain(&p.cond, &k, &empty).unwrap(),
        Expr::bool(true)
    );
}

// ------------------------------------------------------ property tests

/// `a*i + b*n + c  op  d*i + e*n + f` with `a != d`.
#[derive(Clone, Debug)]
struct Cmp {
    lhs: [i64; 3],
    op: CmpOp,
    rhs: [i64; 3],
}

fn comparison() -> impl Strategy<Value = Cmp> {
    let op = prop_oneof![
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge),
        Just(CmpOp::Eq)
    ];
    let side = || (-4i64..5, -3i64..4, -10i64..11).prop_map(|(a, b, c)| [a, b, c]);
    (side(), op, side())
        .prop_filter("the variable must not cancel", |(l, _, r)| l[0] != r[0])
        .prop_map(|(lhs, op, rhs)| Cmp { lhs, op, rhs })
}

fn side_expr(s: [i64; 3], i: &Var, n: &Var) -> Expr {
    Expr::add(
        Expr::add(
            Expr::mul(Expr::int(s[0]), i.expr()),
            Expr::mul(Expr::int(s[1]), n.expr()),
        ),
        Expr::int(s[2]),
    )
}

fn conjunction(parts: &[Cmp], i: &Var, n: &Var) -> Expr {
    parts
        .iter()
        .map(|c| Expr::cmp(c.op, side_expr(c.lhs, i, n), side_expr(c.rhs, i, n)))
        .reduce(Expr::and)
        .unwrap()
}

/// `a*i + b*k + c*n + d  op  0`; `!=` only where `k`'s coefficient is `±1`
/// or `0`.
fn comparison_with_k() -> impl Strategy<Value = (i64, i64, i64, i64, CmpOp)> {
    let op = prop_oneof![
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge),
        Just(CmpOp::Eq),
        Just(CmpOp::Ne)
    ];
    (-3i64..4, -3i64..4, -2i64..3, -8i64..9, op)
        .prop_filter("`!=` needs a unit coefficient", |(_, b, _, _, op)| {
            *op != CmpOp::Ne || b.abs() <= 1
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn solved_interval_is_exactly_where_the_condition_holds(
        parts in proptest::collection::vec(comparison(), 1..4),
    ) {
        let (i, n) = (Var::new("i"), Var::new("n"));
        let cond = conjunction(&parts, &i, &n);
        let set = Analyzer::new().solve_for_inner_interval(&cond, &i).unwrap();
        for nv in -6..=6 {
            let at = |e: Option<&Expr>| e.map(|e| e.eval_with(&[(&n, nv)]).unwrap());
            let (lo, hi) = (at(set.min()), at(set.max()));
            for iv in -100..=100 {
                let holds = cond.eval_with(&[(&i, iv), (&n, nv)]).unwrap() == 1;
                let inside = !set.is_nothing()
                    && lo.is_none_or(|l| l <= iv)
                    && hi.is_none_or(|h| iv <= h);
                prop_assert_eq!(holds, inside, "{} at n = {}, i = {}: solved {}", cond, nv, iv, set);
            }
        }
    }

    #[test]
    fn condition_over_domain_holds_exactly_when_it_holds_everywhere(
        parts in proptest::collection::vec(comparison_with_k(), 1..4),
        k_min in -3i64..4,
        k_extent in -1i64..5,
        symbolic in any::<bool>(),
    ) {
        let (i, k, n) = (Var::new("i"), Var::new("k"), Var::new("n"));
        let cond = parts
            .iter()
            .map(|&(a, b, c, d, op)| {
                let lhs = Expr::add(
                    Expr::add(Expr::mul(Expr::int(a), i.expr()), Expr::mul(Expr::int(b), k.expr())),
                    Expr::add(Expr::mul(Expr::int(c), n.expr()), Expr::int(d)),
                );
                Expr::cmp(op, lhs, Expr::int(0))
            })
            .reduce(Expr::and)
            .unwrap();
        // Either a constant range or one that starts at n and has n + c values.
        let range = if symbolic {
            Range::new(Expr::add(n.expr(), Expr::int(k_min)), Expr::add(n.expr(), Expr::int(k_extent)))
        } else {
            Range::new(Expr::int(k_min), Expr::int(k_extent))
        };
        let got = Analyzer::new().and_condition_over_domain(&cond, &k, &range).unwrap();
        prop_assert!(!got.uses_var(&k), "{} still mentions k", got);
        for nv in -4..=4 {
            let start = range.min.eval_with(&[(&n, nv)]).unwrap();
            let count = range.extent.eval_with(&[(&n, nv)]).unwrap();
            for iv in -20..=20 {
                let want = (start..start + count.max(0))
                    .all(|kv| cond.eval_with(&[(&i, iv), (&k, kv), (&n, nv)]).unwrap() == 1);
                let have = got.eval_with(&[(&i, iv), (&n, nv)]).unwrap() == 1;
                prop_assert_eq!(have, want, "{} over k in {}: {} at n = {}, i = {}", cond, range, got, nv, iv);
            }
        }
    }
}

/// Two bounds the simplifier merges into one comparison with a floor
/// division (`i - 4 <= n * 2 <= i - 3` is `n == (i - 3) // 2`) are solved
/// exactly, not refused as non-linear.
#[test]
fn bounds_merged_into_a_floor_division_are_solved() {
    let mut p =
        Problem::new("i * -2 + n * 3 + 4 >= n * -1 - 4 and i * 2 + n * 2 + 3 < i * 4 + n * -2 - 1");
    let (i, n) = (p.var("i"), p.var("n"));
    let set = p.an.solve_for_inner_interval(&p.cond, &i).unwrap();
    assert_eq!(set.to_string(), "[n * 2 + 3, n * 2 + 4]");
    for nv in -5..=5 {
        for iv in -30..=30 {
            let holds = p.cond.eval_with(&[(&i, iv), (&n, nv)]).unwrap() == 1;
            assert_eq!(
                holds,
                (2 * nv + 3..=2 * nv + 4).contains(&iv),
                "n = {nv}, i = {iv}"
            );
        }
    }
}

/// Conjunctions the property test found refused as non-linear (their
/// simplified forms have `i` inside one floor division), checked against
/// enumeration.
#[test]
fn conjunctions_simplified_into_floor_divisions_are_solved_exactly() {
    for text in [
        "i * -3 + n * -3 + 9 < i * -1 + n - 7 and n * 3 - 1 <= i * -1 + n + 9",
        "i * -2 + n * 3 + 4 >= n * -1 - 4 and i * 2 + n * 2 + 3 < i * 4 + n * -2 - 1",
    ] {
        let mut p = Problem::new(text);
        let (i, n) = (p.var("i"), p.var("n"));
        let set = p.an.solve_for_inner_interval(&p.cond, &i).unwrap();
        for nv in -6..=6 {
            let at = |e: Option<&Expr>| e.map(|e| e.eval_with(&[(&n, nv)]).unwrap());
            let (lo, hi) = (at(set.min()), at(set.max()));
            for iv in -100..=100 {
                let holds = p.cond.eval_with(&[(&i, iv), (&n, nv)]).unwrap() == 1;
                let inside =
                    !set.is_nothing() && lo.is_none_or(|l| l <= iv) && hi.is_none_or(|h| iv <= h);
                assert_eq!(holds, inside, "{text} at n = {nv}, i = {iv}: solved {set}");
            }
        }
    }
}

fn any_comparison() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge),
        Just(CmpOp::Eq)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `s * ((a*i + b) // c) op d*n + e`: the variable inside a floor
    /// division by a constant is solved exactly (checked by enumeration).
    #[test]
    fn comparisons_with_a_floor_division_are_solved_exactly(
        a in prop_oneof![-3i64..0, 1i64..4],
        b in -5i64..6,
        c in 1i64..5,
        s in prop_oneof![Just(1i64), Just(-1i64)],
        d in -2i64..3,
        e in -4i64..5,
        op in any_comparison(),
    ) {
        let (i, n) = (Var::new("i"), Var::new("n"));
        let q = Expr::floor_div(
            Expr::add(Expr::mul(Expr::int(a), i.expr()), Expr::int(b)),
            Expr::int(c),
        );
        let lhs = Expr::mul(Expr::int(s), q);
        let rhs = Expr::add(Expr::mul(Expr::int(d), n.expr()), Expr::int(e));
        let cond = Expr::cmp(op, lhs, rhs);
        let set = Analyzer::new().solve_for_inner_interval(&cond, &i).unwrap();
        for nv in -4..=4 {
            let at = |x: Option<&Expr>| x.map(|x| x.eval_with(&[(&n, nv)]).unwrap());
            let (lo, hi) = (at(set.min()), at(set.max()));
            for iv in -60..=60 {
                let holds = cond.eval_with(&[(&i, iv), (&n, nv)]).unwrap() == 1;
                let inside = !set.is_nothing()
                    && lo.is_none_or(|l| l <= iv)
                    && hi.is_none_or(|h| iv <= h);
                prop_assert_eq!(holds, inside, "{} at n = {}, i = {}: solved {}", cond, nv, iv, set);
            }
        }
    }
}
