//! Long flat sums and products (50,000 terms, as a parser builds them: a
//! left-deep chain of binary nodes) through every analysis: no stack
//! overflow, and answers checked against what the sum must be.
//!
//! Each test runs on a thread with 8 MiB of stack, the size of a program's
//! main thread, where the command-line tool runs.

use arith::int_set::IntSet;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;

const N: usize = 50_000;

fn on_main_sized_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// `t(0) + t(1) + ... + t(n - 1)`, left-deep.
fn chain(n: usize, t: impl Fn(usize) -> Expr, op: fn(Expr, Expr) -> Expr) -> Expr {
    let mut acc = t(0);
    for i in 1..n {
        acc = op(acc, t(i));
    }
    acc
}

#[test]
fn a_sum_of_one_variable_collects() {
    on_main_sized_stack(|| {
        let x = Var::new("x");
        let e = chain(N, |_| x.expr(), Expr::add);
        let an = Analyzer::new();
        assert_eq!(an.simplify(&e).unwrap().to_string(), format!("x * {N}"));
        let e = chain(
            N,
            |i| if i % 2 == 0 { x.expr() } else { Expr::int(3) },
            Expr::add,
        );
        assert_eq!(
            an.simplify(&e).unwrap().to_string(),
            format!("x * {} + {}", N / 2, 3 * (N / 2))
        );
        let e = chain(N, |_| x.expr(), Expr::sub);
        assert_eq!(
            an.simplify(&e).unwrap().to_string(),
            format!("x * -{}", N - 2)
        );
    });
}

#[test]
fn a_sum_of_distinct_variables_keeps_every_term_and_bounds_it() {
    on_main_sized_stack(|| {
        let vars: Vec<Var> = (0..N).map(|i| Var::new(format!("v{i}"))).collect();
        let e = chain(N, |i| Expr::mul(vars[i].expr(), Expr::int(2)), Expr::add);
        let mut an = Analyzer::new();
        for v in &vars {
            an.bind(v, Range::half_open(Expr::int(0), Expr::int(4)));
        }
        let s = an.simplify(&e).unwrap();
        assert!(s.node_count() <= e.node_count());
        assert_eq!(
            an.const_int_bound(&e),
            arith::ConstBound::new(0, 6 * N as i64)
        );
        let m = an.modular_set(&e);
        assert_eq!((m.coeff, m.base), (2, 0));
        // Every term cancels against the same sum subtracted.
        let zero = Expr::sub(e.clone(), e.clone());
        assert_eq!(an.simplify(&zero).unwrap().to_string(), "0");
        assert!(an.can_prove(&Expr::ge(e.clone(), Expr::int(0))));
        // The interval set over the same domains.
        let dom: HashMap<Var, IntSet> = vars
            .iter()
            .map(|v| (v.clone(), IntSet::interval(Expr::int(0), Expr::int(3))))
            .collect();
        let set = Analyzer::new().int_set(&e, &dom);
        assert_eq!(set.to_string(), format!("[0, {}]", 6 * N));
        std::mem::forget(dom);
    });
}

#[test]
fn a_long_product_collects() {
    on_main_sized_stack(|| {
        let x = Var::new("x");
        let y = Var::new("y");
        let e = chain(
            N,
            |i| if i % 2 == 0 { x.expr() } else { Expr::int(1) },
            Expr::mul,
        );
        let s = Analyzer::new().simplify(&e).unwrap();
        assert_eq!(s.node_count(), N / 2 * 2 - 1);
        let e = chain(
            N,
            |i| if i % 2 == 0 { y.expr() } else { x.expr() },
            Expr::mul,
        );
        let s = Analyzer::new().simplify(&e).unwrap();
        assert_eq!(s.node_count(), N * 2 - 1);
        assert!(matches!(s.kind(), arith::ExprKind::Mul(..)));
    });
}

#[test]
fn a_long_sum_under_a_division_and_a_comparison() {
    on_main_sized_stack(|| {
        let x = Var::new("x");
        let sum = chain(
            N,
            |i| {
                if i == 0 {
                    Expr::mul(x.expr(), Expr::int(8))
                } else {
                    Expr::int(0)
                }
            },
            Expr::add,
        );
        let e = Expr::floor_div(Expr::add(sum.clone(), Expr::int(3)), Expr::int(8));
        let mut an = Analyzer::new();
        an.bind(&x, Range::half_open(Expr::int(0), Expr::int(10)));
        assert_eq!(an.simplify(&e).unwrap().to_string(), "x");
        assert!(an.can_prove(&Expr::lt(sum, Expr::int(80))));
    });
}

#[test]
fn a_long_sum_in_a_condition_solves() {
    on_main_sized_stack(|| {
        let i = Var::new("i");
        let vars: Vec<Var> = (0..N).map(|k| Var::new(format!("w{k}"))).collect();
        let mut an = Analyzer::new();
        for v in &vars {
            an.bind(v, Range::half_open(Expr::int(0), Expr::int(1)));
        }
        // i + w0 + w1 + ... < 10 with every w fixed at 0: i < 10.
        let sum = chain(
            N,
            |k| if k == 0 { i.expr() } else { vars[k].expr() },
            Expr::add,
        );
        let cond = Expr::and(
            Expr::ge(i.expr(), Expr::int(0)),
            Expr::lt(sum, Expr::int(10)),
        );
        let s = an.solve_for_inner_interval(&cond, &i).unwrap();
        assert_eq!(s.to_string(), "[0, 9]");
        std::mem::forget(an);
    });
}

/// A long product whose constant overflows has no value: the error is
/// found once, not retried by every enclosing product (which took time
/// exponential in the factors past the overflow).
#[test]
fn overflowing_long_product_fails_fast() {
    let text = vec!["(x * 1 + -6)"; 60].join(" * ");
    let mut scope = arith::Scope::new();
    let e = arith::parse_in(&text, &mut scope).unwrap();
    let (x, _) = arith::parse_range_spec("x=0:1", &mut scope).unwrap();
    let mut an = arith::Analyzer::new();
    an.bind(
        &x,
        arith::Range::new(arith::Expr::int(0), arith::Expr::int(1)),
    );
    let err = an.simplify(&e).unwrap_err();
    assert_eq!(err.kind, arith::ErrorKind::Overflow);
}

/// A long sum whose collection overflows (coefficients past `i64`) is kept
/// as written over its simplified operands, each operand once: a sum kept
/// one node at a time would collect every partial sum again (quadratic in
/// the length; 2,000 terms took minutes). The result keeps the input's
/// value wherever the input has one.
#[test]
fn a_long_sum_whose_collection_overflows_keeps_its_operands_simplified_once() {
    on_main_sized_stack(|| {
        let (x, y) = (Var::new("x"), Var::new("y"));
        // x * 2^62 + (y + 1) // 2 * 2 - y % 2, over and over.
        let unit = |_| {
            let half = Expr::floor_div(Expr::add(y.expr(), Expr::int(1)), Expr::int(2));
            Expr::sub(
                Expr::add(
                    Expr::mul(x.expr(), Expr::int(1 << 62)),
                    Expr::mul(half, Expr::int(2)),
                ),
                Expr::floor_mod(y.expr(), Expr::int(2)),
            )
        };
        let e = chain(2_000, unit, Expr::sub);
        let mut an = Analyzer::new();
        an.bind(&x, Range::new(Expr::int(-1), Expr::int(3)));
        an.bind(&y, Range::new(Expr::int(0), Expr::int(8)));
        let s = an.simplify(&e).unwrap();
        for (xv, yv) in [(0, 0), (0, 5), (0, 7), (1, 3), (-1, 2)] {
            let at = |v: &Var| Some(if *v == x { xv } else { yv });
            if let Ok(want) = e.eval(&at) {
                assert_eq!(s.eval(&at).ok(), Some(want), "x = {xv}, y = {yv}");
            }
        }
    });
}

/// A long alternating chain of products and divisions (`a // 4 * a // 4
/// ...`): every step's result is a new node over known subtrees, and the
/// facts of each distinct node are found once per simplification (walking
/// each step's whole result again was quadratic: 512 steps took 0.7 s).
#[test]
fn a_long_chain_of_products_and_divisions_finds_each_fact_once() {
    on_main_sized_stack(|| {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let a = Expr::add(Expr::mul(y.expr(), Expr::int(6)), x.expr());
        let mut e = Expr::floor_div(a.clone(), Expr::int(4));
        for _ in 1..2_000 {
            e = Expr::floor_div(Expr::mul(e, a.clone()), Expr::int(4));
        }
        let mut an = Analyzer::new();
        an.bind(&x, Range::new(Expr::int(0), Expr::int(2)));
        an.bind(&y, Range::new(Expr::int(0), Expr::int(2)));
        let s = an.simplify(&e).unwrap();
        let mut values = Vec::new();
        for (xv, yv) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let at = |v: &Var| Some(if *v == x { xv } else { yv });
            if let Ok(want) = e.eval(&at) {
                assert_eq!(s.eval(&at).ok(), Some(want), "x = {xv}, y = {yv}");
                values.push(want);
            }
        }
        // The other analyses walk the same 4,000-level tree.
        let b = an.const_int_bound(&e);
        assert!(values.iter().all(|v| b.min <= *v && *v <= b.max), "{b:?}");
        let dom: HashMap<Var, IntSet> = [(x.clone(), IntSet::interval(Expr::int(0), Expr::int(1)))]
            .into_iter()
            .collect();
        let set = an.int_set(&e, &dom);
        assert!(set.min().is_some() || set.max().is_some() || !set.is_nothing());
    });
}

/// A left-deep `max` chain: each step compares the new operand with the
/// chain so far (not every pair again), and dominated operands go (`v_i` is
/// below `v_i + 1`, and constants merge) while the chain has at most 64
/// operands, as sums have their pair rules; in longer chains each new
/// operand meets only the last 64.
#[test]
fn a_long_min_max_chain_prunes_each_new_operand_once() {
    on_main_sized_stack(|| {
        for (m, repeats) in [(60, 1), (600, 2)] {
            let vars: Vec<Var> = (0..m).map(|i| Var::new(format!("v{i}"))).collect();
            let mut an = Analyzer::new();
            for v in &vars {
                an.bind(v, Range::new(Expr::int(0), Expr::int(100)));
            }
            // v0, v0 + 1, 52, v1, v1 + 1, 55, ...: the plain variables and all
            // constants but the largest, 56, are dominated.
            let operand = |i: usize| match i % 3 {
                0 => vars[i / 3].expr(),
                1 => Expr::add(vars[i / 3].expr(), Expr::int(1)),
                _ => Expr::int(50 + (i % 7) as i64),
            };
            // The long chain has each operand twice.
            let e = chain(m * repeats, |i| operand(i % m), Expr::max);
            let s = an.simplify(&e).unwrap();
            let text = s.to_string();
            let kept = text.matches("max(").count() + 1;
            if m <= 64 {
                assert_eq!(kept, m / 3 + 1, "{text}");
                assert!(text.ends_with(", 56)"), "{text}");
            } else {
                // Operands within reach of each new one were pruned; the
                // rest of the chain is kept as it is.
                assert!(kept < m * repeats, "{kept}");
            }
            let env: HashMap<Var, i64> = vars
                .iter()
                .enumerate()
                .map(|(i, v)| (v.clone(), (i * 37 % 100) as i64))
                .collect();
            let get = |v: &Var| env.get(v).copied();
            assert_eq!(s.eval(&get).unwrap(), e.eval(&get).unwrap());
        }
    });
}

/// A deep chain mixing `min`, division and sums, as a program builds one
/// operation at a time (`e = min(e, x * 2 + i % 5)`, every third step
/// `e = e // 3 + x`): the walks the simplifier calls at each level (facts,
/// overflow checks, flattening a `min` chain) run deep inside its own
/// recursion and must fit in the room it leaves.
#[test]
fn a_deep_mixed_chain_fits_on_the_stack() {
    on_main_sized_stack(|| {
        let x = Var::new("x");
        let mut an = Analyzer::new();
        an.bind(&x, Range::new(Expr::int(0), Expr::int(1000)));
        let mut e = x.expr();
        for i in 0..30_000 {
            e = if i % 3 != 0 {
                Expr::min(
                    e,
                    Expr::add(Expr::mul(x.expr(), Expr::int(2)), Expr::int(i % 5)),
                )
            } else {
                Expr::add(Expr::floor_div(e, Expr::int(3)), x.expr())
            };
        }
        let s = an.simplify(&e).unwrap();
        for v in [0, 1, 7, 999] {
            let get = |_: &Var| Some(v);
            assert_eq!(s.eval(&get).unwrap(), e.eval(&get).unwrap(), "x = {v}");
        }
    });
}
