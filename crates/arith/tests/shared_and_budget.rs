//! Shared subexpressions are simplified once, and int-set answers under a
//! growth budget stay sound and say when they were widened.

use arith::int_set::{IntSet, Precision};
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;

/// `t(k + 1) = max(t(k) // 2, t(k) % 3 + k)`: every level uses the one below
/// twice, so the tree has about `3 * 2^depth` nodes while the graph has
/// `3 * depth`. Simplifying it visit by visit would take hours at depth 26.
#[test]
fn a_subexpression_shared_many_times_is_simplified_once() {
    let x = Var::new("x");
    let depth = 26;
    let mut t = Expr::floor_div(x.expr(), Expr::int(3));
    for k in 0..depth {
        t = Expr::max(
            Expr::floor_div(t.clone(), Expr::int(2)),
            Expr::add(Expr::floor_mod(t.clone(), Expr::int(3)), Expr::int(k)),
        );
    }
    let mut an = Analyzer::new();
    an.bind(&x, Range::half_open(Expr::int(0), Expr::int(1000)));
    let s = an.simplify(&t).unwrap();
    for xv in [0, 1, 7, 500, 999] {
        let mut v = xv / 3;
        for k in 0..depth {
            v = (v / 2).max(v % 3 + k);
        }
        let got = s.eval(&|w: &Var| (w == &x).then_some(xv)).unwrap();
        assert_eq!(got, v, "x = {xv}: {s}");
    }
}

/// `sum(min(a_i, b_i))` over symbolic domains: exact ends grow with the
/// number of terms; under a budget they are widened, soundly.
#[test]
fn int_sets_widened_to_a_budget_still_hold_every_value() {
    let n = Var::new("n");
    let terms = 6;
    let a: Vec<Var> = (0..terms).map(|i| Var::new(format!("a{i}"))).collect();
    let b: Vec<Var> = (0..terms).map(|i| Var::new(format!("b{i}"))).collect();
    let mut e = Expr::int(0);
    let mut dom = HashMap::new();
    for i in 0..terms {
        e = Expr::add(e, Expr::min(a[i].expr(), b[i].expr()));
        let k = i as i64;
        dom.insert(
            a[i].clone(),
            IntSet::interval(Expr::int(k), Expr::add(n.expr(), Expr::int(k))),
        );
        dom.insert(
            b[i].clone(),
            IntSet::interval(Expr::int(-k), Expr::sub(n.expr(), Expr::int(k))),
        );
    }
    let mut an = Analyzer::new();
    an.bind(&n, Range::half_open(Expr::int(0), Expr::int(4)));
    let (exact, p) = an.int_set_within(&e, &dom, 10_000);
    assert_eq!(p, Precision::Exact);
    assert_eq!(exact, an.int_set(&e, &dom));
    let (coarse, p) = an.int_set_within(&e, &dom, 3);
    assert_eq!(p, Precision::Widened);
    assert!(coarse.min().is_none_or(|m| m.node_count() <= 3), "{coarse}");
    assert!(coarse.max().is_none_or(|m| m.node_count() <= 3), "{coarse}");
    // Every value of the sum lies in the widened set: the extreme sums,
    // for each n, are the sums of the extreme mins.
    for nv in 0..4 {
        let (mut lo, mut hi) = (0, 0);
        for i in 0..terms as i64 {
            lo += i.min(-i);
            hi += (nv + i).min(nv - i);
        }
        let at =
            |end: Option<&Expr>| end.map(|e| e.eval(&|w: &Var| (w == &n).then_some(nv)).unwrap());
        assert!(
            at(coarse.min()).is_none_or(|m| m <= lo),
            "{coarse} at n={nv}"
        );
        assert!(
            at(coarse.max()).is_none_or(|m| m >= hi),
            "{coarse} at n={nv}"
        );
    }
}

/// A graph of shared nodes standing for a tree of more than `2^64` nodes
/// (`e = e + e` and `e = min(e, e + 1)` in turn, 70 levels, as a program
/// builds one): its size saturates instead of wrapping, and simplifying
/// and bounding it take time in the size of the graph.
#[test]
fn a_graph_standing_for_an_astronomical_tree_is_analysed_by_its_size() {
    let x = Var::new("x");
    let mut e = x.expr();
    for i in 0..70 {
        e = if i % 2 == 1 {
            Expr::add(e.clone(), e.clone())
        } else {
            Expr::min(e.clone(), Expr::add(e.clone(), Expr::int(1)))
        };
    }
    assert_eq!(e.node_count(), u32::MAX as usize);
    let mut an = Analyzer::new();
    an.bind(&x, Range::half_open(Expr::int(0), Expr::int(4)));
    // 35 doublings: x * 2^35, and min(e, e + 1) is e.
    let want = Expr::mul(x.expr(), Expr::int(1 << 35));
    assert_eq!(an.simplify(&e).unwrap(), want);
    let b = an.const_int_bound(&e);
    assert!(b.min <= 0 && b.max >= 3 << 35, "{b:?}");
    // Deeper, the values leave i64 except at `x = 0`: the answer is kept
    // over simplified operands, still a graph the size of the input's
    // (writing it out, or evaluating it as a tree, would never end).
    for _ in 0..60 {
        e = Expr::add(e.clone(), e.clone());
    }
    let s = an.simplify(&e).unwrap();
    assert!(s != Expr::int(0) && s.node_count() <= e.node_count());
    let b = an.const_int_bound(&e);
    assert!(b.min <= 0 && b.max >= 0, "{b:?}");
    assert!(e.uses_var(&x) && !e.uses_var(&Var::new("y")));
}

/// The walks every analysis uses on expressions it is handed (variables,
/// evaluation, substitution, ordering) take time in the size of a shared
/// graph, not of the tree it stands for: 100 doublings of `x` stand for a
/// tree of `2^100` nodes.
#[test]
fn walks_over_a_shared_graph_take_time_in_its_size() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let doubled = |leaf: Expr| {
        let mut e = leaf;
        for i in 0..100 {
            e = if i % 3 == 2 {
                Expr::min(e.clone(), Expr::add(e.clone(), Expr::int(1)))
            } else {
                Expr::add(e.clone(), e.clone())
            };
        }
        e
    };
    let e = doubled(Expr::add(x.expr(), Expr::int(0)));
    assert_eq!(e.vars(), vec![x.clone()]);
    let mut met = 0;
    e.for_each_var(&mut |_| met += 1);
    assert!(met <= 4 * 100, "{met} variable visits");
    // At x = 0 every node is 0 or 1 short of a power of two times 0.
    assert_eq!(e.eval_with(&[(&x, 0)]).unwrap(), 0);
    assert!(e.eval_with(&[(&x, 1)]).is_err(), "2^67 leaves i64");
    // Renamed: the same graph over y, shared the same way.
    let r = e.substitute(&mut |v| (v == &x).then(|| y.expr()));
    assert_eq!(r.vars(), vec![y.clone()]);
    assert_eq!(r.node_count(), e.node_count());
    assert_eq!(r.eval_with(&[(&y, 0)]).unwrap(), 0);
    // Two graphs built apart are equal, and ordered by their leaves.
    let same = doubled(Expr::add(x.expr(), Expr::int(0)));
    assert!(!same.ptr_eq(&e));
    assert_eq!(e.structural_cmp(&same), std::cmp::Ordering::Equal);
    let later = doubled(Expr::add(x.expr(), Expr::int(1)));
    assert_eq!(e.structural_cmp(&later), std::cmp::Ordering::Less);
    assert_eq!(later.structural_cmp(&e), std::cmp::Ordering::Greater);
}
