//! Iterator-map detection, ported from TVM's
//! `tests/python/arith/test_arith_iter_affine_map.py` (the `iter_map.*`
//! records of `shared/conformance/tvm/arith_cases.jsonl`; each test names the
//! record ids it ports), plus a property test over random fuse/split indices.
//!
//! Every detected map is also checked against an oracle by enumeration over
//! the (small) domain: each rewritten index evaluates to the original one at
//! every point that satisfies the predicate; every index lies in
//! `base + scale * [0, extent)`; the index tuples reach every point of the
//! product of the extents (surjective) and, for bijective maps, each exactly
//! once.

use arith::iter_map::{
    detect_iter_map_with, iter_map_simplify_with, normalize_to_iter_sum, CheckLevel, DetectOptions,
    IterMapResult, IterMark, IterSplit, IterSum, MarkSource,
};
use arith::{parse_in, Analyzer, ConstBound, Expr, Range, Scope, Var, POS_INF};
use proptest::prelude::*;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

const SURJ: DetectOptions = DetectOptions {
    check_level: CheckLevel::Surjective,
    simplify_trivial_iterators: true,
    offset_marks: false,
    widen_top_digits: false,
};
const BIJ: DetectOptions = DetectOptions {
    check_level: CheckLevel::Bijective,
    simplify_trivial_iterators: true,
    offset_marks: false,
    widen_top_digits: false,
};

/// Iterators with their extents, positive symbolic sizes, and a scope in
/// which every other name is a free variable.
struct Env {
    scope: RefCell<Scope>,
    dom: HashMap<Var, Range>,
    iters: Vec<Var>,
    params: Vec<Var>,
    an: Analyzer,
}

/// Values of the symbolic sizes and free variables, with every iterator
/// point of the domain under them.
type Assignments = Vec<(HashMap<Var, i64>, Vec<HashMap<Var, i64>>)>;

/// Largest number of domain points the oracle enumerates.
const MAX_POINTS: u64 = 300_000;

impl Env {
    /// `params`: symbolic sizes (known to be at least one, TVM's `SizeVar`);
    /// `iters`: iterator names with extent texts (ranges start at zero).
    fn new(params: &[&str], iters: &[(&str, &str)]) -> Env {
        let mut scope = Scope::new();
        let mut an = Analyzer::new();
        let params: Vec<Var> = params
            .iter()
            .map(|p| {
                let v = scope.get_or_create(p);
                an.update_bound(&v, ConstBound::new(1, POS_INF));
                v
            })
            .collect();
        let mut dom = HashMap::new();
        let mut vars = Vec::new();
        for (name, ext) in iters {
            let v = scope.get_or_create(name);
            let e = parse_in(ext, &mut scope).unwrap();
            dom.insert(v.clone(), Range::from_extent(e));
            vars.push(v);
        }
        Env {
            scope: RefCell::new(scope),
            dom,
            iters: vars,
            params,
            an,
        }
    }

    fn e(&self, text: &str) -> Expr {
        parse_in(text, &mut self.scope.borrow_mut()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn detect(
        &self,
        indices: &[Expr],
        pred: &Expr,
        opts: DetectOptions,
    ) -> Result<IterMapResult, String> {
        detect_iter_map_with(indices, &self.dom, pred, &opts, &self.an).map_err(|e| e.message)
    }

    /// Every assignment of the symbolic sizes (1..=3 each) and of the free
    /// variables (two choices), each with all iterator points of the domain.
    fn assignments(&self, exprs: &[&Expr]) -> Assignments {
        let mut free: Vec<Var> = Vec::new();
        for e in exprs {
            for v in e.vars() {
                if !self.iters.contains(&v) && !self.params.contains(&v) && !free.contains(&v) {
                    free.push(v);
                }
            }
        }
        let mut outer: Vec<HashMap<Var, i64>> = vec![HashMap::new()];
        for p in &self.params {
            outer = outer
                .into_iter()
                .flat_map(|m| {
                    (1..=3).map(move |val| {
                        let mut m = m.clone();
                        m.insert(p.clone(), val);
                        m
                    })
                })
                .collect();
        }
        let mut with_free = Vec::new();
        for m in outer {
            for val in [2, -3] {
                let mut m = m.clone();
                for f in &free {
                    m.insert(f.clone(), val);
                }
                with_free.push(m);
            }
        }
        let mut out = Vec::new();
        for m in with_free {
            let mut extents = Vec::new();
            let mut total: u64 = 1;
            for v in &self.iters {
                let ext = self.dom[v].extent.eval(&|w| m.get(w).copied()).unwrap();
                total = total.saturating_mul(ext.max(0) as u64);
                extents.push(ext);
            }
            if total > MAX_POINTS {
                continue;
            }
            let mut points = vec![m.clone()];
            for (v, &ext) in self.iters.iter().zip(&extents) {
                points = points
                    .into_iter()
                    .flat_map(|p| {
                        (0..ext).map(move |val| {
                            let mut p = p.clone();
                            p.insert(v.clone(), val);
                            p
                        })
                    })
                    .collect();
            }
            out.push((m, points));
        }
        out
    }

    /// Whether `a` and `b` agree at every point of the domain.
    fn same_value(&self, a: &Expr, b: &Expr, pred: &Expr) -> bool {
        if a == b
            || self
                .an
                .simplify(&Expr::sub(a.clone(), b.clone()))
                .is_ok_and(|d| d.is_int(0))
        {
            return true;
        }
        let sets = self.assignments(&[a, b, pred]);
        assert!(!sets.is_empty(), "no assignment to compare {a} and {b}");
        sets.iter().all(|(_, points)| {
            points.iter().all(|p| {
                let get = |v: &Var| p.get(v).copied();
                pred.eval(&get).unwrap() == 0 || a.eval(&get).unwrap() == b.eval(&get).unwrap()
            })
        })
    }

    /// The oracle: evaluation equality, ranges, surjectivity, bijectivity.
    fn check_semantics(
        &self,
        indices: &[Expr],
        pred: &Expr,
        res: &IterMapResult,
        level: CheckLevel,
    ) {
        assert_eq!(res.indices.len(), indices.len());
        let exprs: Vec<Expr> = res.indices.iter().map(IterSum::to_expr).collect();
        let mut all: Vec<&Expr> = indices.iter().chain(exprs.iter()).collect();
        all.push(pred);
        for (assignment, points) in self.assignments(&all) {
            let at = |e: &Expr| e.eval(&|v: &Var| assignment.get(v).copied()).unwrap();
            let mut tuples: HashSet<Vec<i64>> = HashSet::new();
            let mut count = 0u64;
            for p in &points {
                let get = |v: &Var| p.get(v).copied();
                if pred.eval(&get).unwrap() == 0 {
                    continue;
                }
                count += 1;
                let mut tuple = Vec::with_capacity(indices.len());
                for (i, (orig, sum)) in indices.iter().zip(&res.indices).enumerate() {
                    let want = orig.eval(&get).unwrap();
                    let got = exprs[i].eval(&get).unwrap();
                    assert_eq!(
                        got, want,
                        "index {orig} rewritten as {sum} differs at {p:?}"
                    );
                    let digit = match sum.args.first() {
                        None => 0,
                        Some(a) => {
                            let (scale, extent) =
                                (a.scale.eval(&get).unwrap(), a.extent.eval(&get).unwrap());
                            let off = want - sum.base.eval(&get).unwrap();
                            assert_eq!(off % scale, 0, "{orig} is not base + scale * k at {p:?}");
                            let d = off / scale;
                            assert!(
                                (0..extent).contains(&d),
                                "{orig}: digit {d} outside [0, {extent}) at {p:?}"
                            );
                            d
                        }
                    };
                    tuple.push(digit);
                }
                tuples.insert(tuple);
            }
            if level == CheckLevel::NoCheck || count == 0 {
                continue;
            }
            let product: i64 = res
                .indices
                .iter()
                .map(|s| s.args.first().map_or(1, |a| at(&a.extent)))
                .product();
            assert_eq!(
                tuples.len() as i64,
                product,
                "not surjective onto the index extents at {assignment:?}"
            );
            if level == CheckLevel::Bijective {
                assert_eq!(
                    count,
                    tuples.len() as u64,
                    "not injective at {assignment:?}"
                );
            }
        }
    }

    /// TVM's `assert_iter_sum_pattern`: `(index, extent, base, scale)`.
    fn pattern(
        &self,
        expect: &[(&str, &str, &str, &str)],
        pred: &str,
        opts: DetectOptions,
    ) -> IterMapResult {
        let indices: Vec<Expr> = expect.iter().map(|c| self.e(c.0)).collect();
        let pred = self.e(pred);
        let res = self
            .detect(&indices, &pred, opts)
            .unwrap_or_else(|m| panic!("{:?}: {m}", expect));
        for ((text, extent, base, scale), sum) in expect.iter().zip(&res.indices) {
            let (extent, base, scale) = (self.e(extent), self.e(base), self.e(scale));
            if extent.is_int(1) {
                assert!(
                    sum.args.is_empty(),
                    "{text}: expected no iterator, got {sum}"
                );
            } else {
                assert_eq!(sum.args.len(), 1, "{text}: {sum}");
                assert!(
                    self.same_value(&sum.args[0].extent, &extent, &Expr::bool(true)),
                    "{text}: extent of {sum}, want {extent}"
                );
                assert!(
                    self.same_value(&sum.args[0].scale, &scale, &Expr::bool(true)),
                    "{text}: scale of {sum}, want {scale}"
                );
            }
            assert!(
                self.same_value(&sum.base, &base, &Expr::bool(true)),
                "{text}: base of {sum}, want {base}"
            );
        }
        self.check_semantics(&indices, &pred, &res, opts.check_level);
        res
    }

    /// TVM's `assert_iter_sum_failure`.
    fn failure(&self, indices: &[&str], pred: &str, opts: DetectOptions) {
        let indices: Vec<Expr> = indices.iter().map(|t| self.e(t)).collect();
        match self.detect(&indices, &self.e(pred), opts) {
            Ok(r) => panic!(
                "{indices:?} detected as {:?}",
                r.indices.iter().map(|s| s.to_string()).collect::<Vec<_>>()
            ),
            Err(m) => assert!(!m.is_empty()),
        }
    }

    /// TVM's `assert_iter_map_simplify`: the result must equal the input on
    /// the domain and be no larger than TVM's expected form.
    fn simplify(&self, cases: &[(&str, &str)], pred: &str, opts: DetectOptions) {
        let indices: Vec<Expr> = cases.iter().map(|c| self.e(c.0)).collect();
        let pred = self.e(pred);
        let out = iter_map_simplify_with(&indices, &self.dom, &pred, &opts, &self.an);
        for ((text, expected), got) in cases.iter().zip(&out) {
            let expected = self.e(expected);
            let expected = self.an.simplify(&expected).unwrap();
            assert!(
                self.same_value(got, &self.e(text), &pred),
                "{text} simplified to {got}"
            );
            assert!(
                got.node_count() <= expected.node_count(),
                "{text} simplified to {got}, larger than TVM's {expected}"
            );
        }
    }

    /// TVM's `assert_normalize_to_iter_sum`: `(split value, scale)` per arg.
    fn normalize(&self, index: &str, args: &[(&str, &str)], base: &str) {
        let e = self.e(index);
        let sum = normalize_to_iter_sum(&e, &self.dom, &self.an).unwrap();
        let t = Expr::bool(true);
        assert_eq!(sum.args.len(), args.len(), "{index}: {sum}");
        for (a, (iter, scale)) in sum.args.iter().zip(args) {
            let digits = IterSplit {
                scale: Expr::int(1),
                ..a.clone()
            }
            .to_expr();
            assert!(
                self.same_value(&digits, &self.e(iter), &t),
                "{index}: arg {a} is not {iter}"
            );
            assert!(
                self.same_value(&a.scale, &self.e(scale), &t),
                "{index}: scale of {a} is not {scale}"
            );
        }
        assert!(
            self.same_value(&sum.base, &self.e(base), &t),
            "{index}: base of {sum} is not {base}"
        );
        assert!(
            self.same_value(&sum.to_expr(), &e, &t),
            "{index}: {sum} differs"
        );
    }
}

fn env(iters: &[(&str, &str)]) -> Env {
    Env::new(&[], iters)
}

fn opts(check_level: CheckLevel, simplify_trivial_iterators: bool) -> DetectOptions {
    DetectOptions {
        check_level,
        simplify_trivial_iterators,
        offset_marks: false,
        widen_top_digits: false,
    }
}

// ---------------------------------------------------------------- detect_pattern / detect_failure

/// iter_affine_map#0000-#0005
#[test]
fn trivial() {
    let v = env(&[("x", "3"), ("y", "4"), ("z", "1")]);
    v.pattern(
        &[
            ("x", "3", "0", "1"),
            ("y", "4", "0", "1"),
            ("3", "1", "3", "1"),
        ],
        "True",
        SURJ,
    );
    v.pattern(&[("x", "3", "0", "1"), ("3", "1", "3", "1")], "True", SURJ);
    v.failure(&["x", "x", "3"], "True", SURJ);
    v.pattern(&[("x", "3", "0", "1"), ("y", "4", "0", "1")], "True", BIJ);
    v.pattern(
        &[("x", "3", "0", "1"), ("y", "4", "0", "1")],
        "True",
        opts(CheckLevel::Bijective, false),
    );
    v.failure(&["x", "z"], "True", BIJ);
}

/// iter_affine_map#0006-#0013
#[test]
fn fuse() {
    let v = Env::new(&["c"], &[("x", "3"), ("y", "4")]);
    v.pattern(&[("y * 3 + 1 + c + x", "12", "1 + c", "1")], "True", SURJ);
    // ifuse([(x, 3), (y, 4)])
    v.pattern(&[("(0 * 3 + x) * 4 + y", "12", "0", "1")], "True", SURJ);
    let v = Env::new(&["c"], &[("x", "c"), ("y", "4")]);
    v.pattern(&[("(y + 1) * c + x", "4 * c", "c", "1")], "True", SURJ);
    let v = env(&[("x", "3"), ("y", "4")]);
    v.failure(&["y * 3 + x", "y"], "True", SURJ);
    v.failure(&["y", "x + 1", "y"], "True", SURJ);
    v.failure(&["y * 4 + x"], "True", SURJ);
    let v = env(&[("x", "3"), ("y", "2")]);
    let r = v.pattern(&[("x * 4 + y * 2", "6", "0", "2")], "True", SURJ);
    let t = Expr::bool(true);
    assert!(v.same_value(&r.indices[0].to_expr(), &v.e("(x * 2 + y) * 2"), &t));
    let v = Env::new(&["c0"], &[("x", "3"), ("y", "c0")]);
    let r = v.pattern(&[("x * 2 * c0 + y * 2", "3 * c0", "0", "2")], "True", SURJ);
    assert!(v.same_value(&r.indices[0].to_expr(), &v.e("(x * c0 + y) * 2"), &t));
}

/// iter_affine_map#0014-#0020
#[test]
fn split() {
    let v = Env::new(&["c1"], &[("x", "24")]);
    v.pattern(
        &[
            ("x // 3", "8", "0", "1"),
            ("x % 3 * 2 + c1", "3", "c1", "2"),
        ],
        "True",
        SURJ,
    );
    v.pattern(
        &[
            ("x // 6", "4", "0", "1"),
            ("x % 6 // 2", "3", "0", "1"),
            ("x % 2", "2", "0", "1"),
        ],
        "True",
        SURJ,
    );
    let v = Env::new(&["c0", "c1"], &[("x", "c1 * c0")]);
    v.pattern(
        &[("x // c0", "c1", "0", "1"), ("x % c0", "c0", "0", "1")],
        "True",
        SURJ,
    );
    let v = env(&[("x", "8")]);
    v.pattern(
        &[("x * 2 // 4", "4", "0", "1"), ("x * 2 % 4", "2", "0", "2")],
        "True",
        SURJ,
    );
    v.pattern(
        &[("x * 2 // 4 * 4 + x * 2 % 4", "8", "0", "2")],
        "True",
        SURJ,
    );
    let v = env(&[("x", "24"), ("y", "8")]);
    v.failure(&["x // (y % 8 % 6)"], "True", SURJ);
    // x is free; y has extent one.
    let v = env(&[("y", "1")]);
    v.pattern(
        &[("(x % 49 + y) // 49", "1", "(x % 49 + y) // 49", "1")],
        "True",
        SURJ,
    );
}

/// iter_affine_map#0021 (result_asserts.detect_iter_map): a fused index whose
/// modulo the simplifier rewrote must still split the same fused iterator.
#[test]
fn split_simplified_modulo() {
    for flat in ["i * 192 + j", "j + i * 192"] {
        let v = env(&[("i", "64"), ("j", "192")]);
        let lane = v.an.simplify(&v.e(&format!("({flat}) % 128"))).unwrap();
        let quotient = v.e(&format!("({flat}) // 128"));
        let indices = [lane.clone(), quotient];
        let res = v
            .detect(&indices, &Expr::bool(true), BIJ)
            .unwrap_or_else(|m| panic!("{lane}: {m}"));
        assert_eq!(res.indices.len(), 2);
        v.check_semantics(&indices, &Expr::bool(true), &res, CheckLevel::Bijective);
    }
}

/// The marks of TVM's `test_compound`: `z = ifuse([y // 3, x // 5, y % 3])`.
fn compound_marks(v: &Env) -> IterSum {
    let (x, y) = (v.e("x"), v.e("y"));
    let mx = Arc::new(IterMark {
        source: MarkSource::Iter(x),
        extent: Expr::int(10),
    });
    let my = Arc::new(IterMark {
        source: MarkSource::Iter(y),
        extent: Expr::int(9),
    });
    let split = |m: &Arc<IterMark>, l: i64, e: i64, s: i64| IterSplit {
        source: m.clone(),
        lower_factor: Expr::int(l),
        extent: Expr::int(e),
        scale: Expr::int(s),
    };
    let mz = Arc::new(IterMark {
        source: MarkSource::Fused(IterSum {
            args: vec![
                split(&my, 3, 3, 6),
                split(&mx, 5, 2, 3),
                split(&my, 1, 3, 1),
            ],
            base: Expr::int(0),
        }),
        extent: Expr::int(18),
    });
    IterSum {
        args: vec![split(&mz, 1, 18, 1)],
        base: Expr::int(0),
    }
}

/// iter_affine_map#0022, #0093 (result_asserts.detect_iter_map)
#[test]
fn compound() {
    let v = env(&[("x", "10"), ("y", "9")]);
    // z = ifuse([yo, xo, yi]) with yo, yi = isplit((y, 9), 3), xo, xi = isplit((x, 10), 5)
    let z = "((0 * 3 + y // 3) * 2 + x // 5) * 3 + y % 3";
    let r = v.pattern(
        &[(z, "18", "0", "1"), ("x % 5", "5", "0", "1")],
        "True",
        SURJ,
    );
    assert_eq!(r.indices[0], compound_marks(&v));
    let t = Expr::bool(true);
    assert!(v.same_value(
        &r.indices[0].to_expr(),
        &v.e("y // 3 * 6 + x // 5 * 3 + y % 3"),
        &t
    ));
    assert!(v.same_value(&r.indices[1].to_expr(), &v.e("x % 5"), &t));
}

/// iter_affine_map#0023: a negative scale of an extent-2 split cannot be fused.
#[test]
fn compound_floormod_two_regression() {
    env(&[("x", "8")]).failure(&["x // 2 * 2 - x % 2 + 1"], "True", SURJ);
}

/// iter_affine_map#0024-#0039
#[test]
fn predicate_bounds_on_fused_sums() {
    let v = env(&[("x", "13"), ("y", "10")]);
    v.pattern(&[("x * 10 + y", "128", "0", "1")], "x * 10 + y < 128", SURJ);
    v.pattern(
        &[("x * 10 + y", "128", "0", "1")],
        "x * 10 + y <= 127",
        SURJ,
    );
    v.pattern(&[("x * 10 + y", "124", "6", "1")], "x * 10 + y > 5", SURJ);
    v.pattern(&[("x * 10 + y", "124", "6", "1")], "x * 10 + y >= 6", SURJ);
    v.pattern(
        &[("x * 10 + y", "122", "6", "1")],
        "x * 10 + y > 5 and x * 10 + y < 128",
        SURJ,
    );
    v.pattern(
        &[("x * 10 + y", "122", "6", "1")],
        "x * 10 + y >= 6 and x * 10 + y <= 127",
        SURJ,
    );
    let v = env(&[("x", "16"), ("y", "16"), ("z", "4")]);
    v.pattern(
        &[("x * 64 + y * 4 + z", "16", "16", "1")],
        "x * 64 + y * 4 + z < 32 and 4 <= x * 16 + y",
        SURJ,
    );
    let v = env(&[("i", "11"), ("j", "5"), ("k", "2")]);
    v.pattern(
        &[("i * 8 + j * 2 + k", "88", "1", "1")],
        "1 <= j * 2 + k and j * 2 + k < 9",
        SURJ,
    );
    let v = env(&[("i", "48")]);
    v.pattern(&[("i", "10", "0", "1")], "i < 10", SURJ);
    let v = env(&[("i", "128"), ("j", "128"), ("k", "128")]);
    v.failure(&["i", "j", "k"], "i * 16384 + j * 128 + k < 100", SURJ);
    v.failure(&["i * 128 + j", "k"], "i * 16384 + j * 128 + k < 100", SURJ);
    let v = env(&[("i", "1")]);
    v.pattern(&[("i + j", "1", "j", "1")], "j <= 24", SURJ);
    let v = env(&[("i", "11"), ("j", "5"), ("k", "2")]);
    v.pattern(
        &[("i * 8 + j * 2 + k", "22", "3", "1")],
        "1 <= j * 2 + k and j * 2 + k < 9 and 3 <= i * 8 + j * 2 + k and i * 8 + j * 2 + k < 25",
        SURJ,
    );
    v.pattern(
        &[("i * 6 + j * 2 + k", "66", "2", "1")],
        "1 <= j * 2 + k and 2 <= j * 2 + k and j * 2 + k < 8 and j * 2 + k < 9",
        SURJ,
    );
    v.pattern(
        &[("i * 6 + j * 2 + k", "15", "3", "1")],
        "1 <= j * 2 + k and 2 <= j * 2 + k and j * 2 + k < 8 and j * 2 + k < 9 and 3 <= i * 6 + j * 2 + k \
         and i * 6 + j * 2 + k < 25 and 1 <= i * 6 + j * 2 + k and i * 6 + j * 2 + k < 18",
        SURJ,
    );
    v.failure(
        &["i * 8 + j * 2 + k"],
        "2 <= j * 2 + k and 0 <= i * 4 + j",
        SURJ,
    );
}

/// iter_affine_map#0040-#0047: bounds on splits of fused sums, and sums of
/// several bounded sums.
#[test]
fn predicate_bounds_on_splits() {
    let v = env(&[("i", "12"), ("j", "16")]);
    let r = v.pattern(
        &[(
            "(i * 16 + j) // 23 * 8 + (i * 16 + j) % 23 - 15",
            "64",
            "0",
            "1",
        )],
        "i * 16 + j < 184 and 8 <= (i * 16 + j) % 23 and 15 <= (i * 16 + j) % 23",
        SURJ,
    );
    let pred = v.e("i * 16 + j < 184 and 15 <= (i * 16 + j) % 23");
    assert!(v.same_value(
        &r.indices[0].to_expr(),
        &v.e("(i * 16 + j) // 23 * 8 + ((i * 16 + j) % 23 + -15)"),
        &pred
    ));
    let v = env(&[
        ("i0", "3"),
        ("i1", "4"),
        ("i2", "3"),
        ("i3", "2"),
        ("i4", "3"),
        ("i5", "6"),
    ]);
    v.pattern(
        &[(
            "i0 * 180 + i1 * 60 + i2 * 30 + i3 * 15 + i4 * 6 + i5",
            "540",
            "93",
            "1",
        )],
        "1 <= i1 and 2 <= i2 * 2 + i3 and 3 <= i4 * 6 + i5",
        SURJ,
    );
    let v = env(&[
        ("i0", "3"),
        ("i1", "2"),
        ("i2", "5"),
        ("i3", "3"),
        ("i4", "4"),
    ]);
    v.pattern(
        &[("i0 * 45 + i1 * 45 + i2 * 9 + i3 * 4 + i4", "135", "28", "1")],
        "3 <= i1 * 5 + i2 and i1 * 5 + i2 < 8 and 1 <= i3 * 4 + i4 and i3 * 4 + i4 < 10",
        SURJ,
    );
    let v = env(&[("i", "1024")]);
    v.pattern(
        &[("i % 16", "7", "3", "1"), ("i // 16", "8", "4", "1")],
        "3 <= i % 16 and i % 16 < 10 and 4 <= i // 16 and i // 16 < 12",
        BIJ,
    );
    let v = env(&[("i", "5"), ("j", "32")]);
    v.pattern(
        &[("(i * 32 + j) % 16", "7", "3", "1")],
        "3 <= (i * 32 + j) % 16 and (i * 32 + j) % 16 < 10",
        SURJ,
    );
    v.failure(
        &["(i * 32 + j) % 16"],
        "1 <= i * 32 + j and i * 32 + j <= 32",
        BIJ,
    );
    v.pattern(
        &[("(i * 32 + j) % 16", "16", "0", "1")],
        "1 <= i * 32 + j and i * 32 + j <= 32",
        SURJ,
    );
    v.pattern(
        &[
            ("(i * 32 + j - 1) % 16", "16", "0", "1"),
            ("(i * 32 + j - 1) // 16", "4", "0", "1"),
        ],
        "1 <= i * 32 + j and i * 32 + j <= 64",
        SURJ,
    );
}

/// iter_affine_map#0048-#0056
#[test]
fn predicate_forms() {
    let v = env(&[("x", "13"), ("y", "10")]);
    v.pattern(&[("x * 10 + y", "128", "0", "1")], "x * 10 < 128 - y", SURJ);
    v.pattern(
        &[("x * 10 + y", "64", "0", "1")],
        "x * 10 + y < 128 and x * 10 + y < 64",
        SURJ,
    );
    v.pattern(&[("x * 10 + y", "130", "0", "1")], "x * 10 + y < 140", SURJ);
    let v = env(&[("i1", "7"), ("i2", "2"), ("i3", "4"), ("i4", "3")]);
    let sum = "i1 * 20 + i2 * 10 + i3 * 3 + i4";
    v.pattern(
        &[(sum, "128", "0", "1")],
        &format!("i1 * 2 + i2 < 13 and {sum} < 128 and i3 * 3 + i4 < 10"),
        SURJ,
    );
    v.failure(
        &[sum],
        &format!("i1 * 2 + i2 < 13 and {sum} < 128 and i3 * 3 + i4 < 7"),
        SURJ,
    );
    v.failure(
        &[sum],
        &format!("i1 * 2 + i2 < 13 and {sum} < 128 and i3 * 3 + i4 < 10 and i1 * 4 + i3 < 20"),
        SURJ,
    );
    v.failure(
        &[sum],
        &format!("i1 * 2 + i2 < 13 and {sum} < 128 and i1 * 4 + i3 < 20"),
        SURJ,
    );
    let v = env(&[("xo", "1"), ("xi", "129"), ("y", "128")]);
    v.pattern(
        &[("xo * 129 + xi", "128", "0", "1"), ("y", "128", "0", "1")],
        "xo * 129 + xi < 128",
        SURJ,
    );
    let v = env(&[("xo", "3"), ("xi", "4")]);
    v.pattern(
        &[("xo * 16 + xi * 4", "10", "0", "4")],
        "xo * 4 + xi < 10",
        SURJ,
    );
}

/// The fused iterators of TVM's `test_complex`, as index texts with their
/// predicate-bounded extents.
fn complex_exprs() -> [(&'static str, String); 6] {
    let m0 = "(n0 * 4 + n1)".to_string();
    let l2 = format!("({m0} * 3 + m1)");
    let (k0, k1, k2, k3) = (
        "l0 // 2".to_string(),
        "l1 // 2".to_string(),
        format!("{l2} // 4"),
        "l3 // 4".to_string(),
    );
    let (k4, k5, k6, k7) = (
        "l0 % 2".to_string(),
        "l1 % 2".to_string(),
        format!("{l2} % 4"),
        "l3 % 4".to_string(),
    );
    let j0 = format!("(({k0}) * 4 + {k1})");
    let j1 = format!("(({k2}) * 8 + {k3})");
    let j2 = format!("(({k4}) * 2 + {k5})");
    let j3 = format!("(({k6}) * 4 + {k7})");
    let i0 = format!("{j0} * 32 + {j1}");
    let i1 = format!("{j2} * 15 + {j3}");
    [
        ("m0", m0),
        ("l2", l2),
        ("j0", j0),
        ("j3", j3),
        ("i0", i0),
        ("i1", i1),
    ]
}

/// iter_affine_map#0088, #0089
#[test]
fn complex() {
    let v = env(&[
        ("l0", "4"),
        ("l1", "8"),
        ("n0", "2"),
        ("n1", "4"),
        ("m1", "3"),
        ("l3", "32"),
    ]);
    let e: HashMap<&str, String> = complex_exprs().into_iter().collect();
    let pred = |m0: i64, j3: i64| {
        format!(
            "{} < 200 and {} < 50 and {} < {m0} and {} < 16 and {} < 7 and {} < {j3}",
            e["i0"], e["i1"], e["m0"], e["l2"], e["j0"], e["j3"]
        )
    };
    v.pattern(
        &[(&e["i0"], "200", "0", "1"), (&e["i1"], "50", "0", "1")],
        &pred(6, 15),
        SURJ,
    );
    v.failure(&[&e["i0"], &e["i1"]], &pred(9, 14), SURJ);
}

/// iter_affine_map#0099-#0101: variables outside the domain are free.
#[test]
fn free_variables() {
    let v = env(&[("x", "3"), ("y", "3"), ("z", "3")]);
    v.failure(&["z * 19 + y * 3 + x"], "True", SURJ);
    let v = env(&[("x", "3"), ("y", "3")]);
    v.pattern(&[("z * 19 + y * 3 + x", "9", "z * 19", "1")], "True", SURJ);
    v.pattern(&[("z * z + y * 3 + x", "9", "z * z", "1")], "True", SURJ);
}

/// iter_affine_map#0120-#0128: surjective fusion of overlapping scales.
#[test]
fn overlapped_fuse() {
    let v = env(&[("x", "3"), ("y", "8")]);
    v.pattern(&[("x * 7 + y", "22", "0", "1")], "True", SURJ);
    v.failure(&["x * 7 + y"], "True", BIJ);
    let v = env(&[("x", "2"), ("y", "3"), ("z", "8")]);
    v.pattern(&[("x * 18 + y * 7 + z", "40", "0", "1")], "True", SURJ);
    v.failure(&["x * 7 + y"], "True", BIJ);
    let v = env(&[("x", "3"), ("y", "8")]);
    v.failure(&["x * -7 + y"], "True", SURJ);
    v.failure(&["x * 7 - y"], "True", SURJ);
    let v = env(&[("a", "3"), ("b", "2"), ("x", "2"), ("y", "6"), ("z", "8")]);
    v.pattern(
        &[("a * 40 + b * 20 + x * 18 + y * 3 + z", "125", "6", "1")],
        "z < 4 and 1 < x * 6 + y and x * 6 + y < 10",
        SURJ,
    );
    let v = env(&[("x", "224"), ("a", "7")]);
    v.pattern(&[("x + a", "230", "0", "1")], "True", SURJ);
    let v = env(&[("x", "4"), ("y", "3")]);
    v.failure(&["5 * x + 2 * y"], "True", SURJ);
}

// ---------------------------------------------------------------- padding

/// iter_affine_map#0102-#0113 (TestPadding positive cases).
#[test]
fn padding_positive() {
    let v = env(&[("y", "192")]);
    v.pattern(
        &[
            ("(64 + y) // 32", "6", "2", "1"),
            ("(64 + y) % 32", "32", "0", "1"),
        ],
        "True",
        BIJ,
    );
    let v = env(&[("y", "176")]);
    v.pattern(&[("(80 + y) // 32", "6", "2", "1")], "True", SURJ);
    v.pattern(
        &[
            ("(80 + y) // 2 % 16", "16", "0", "1"),
            ("(80 + y) % 2", "2", "0", "1"),
        ],
        "True",
        SURJ,
    );
    let v = env(&[("x", "5"), ("y", "4")]);
    v.pattern(
        &[
            ("(x * 32 + y * 8) // 16", "10", "0", "1"),
            ("(x * 32 + y * 8) % 16", "2", "0", "8"),
        ],
        "True",
        SURJ,
    );
    let v = env(&[("x", "26")]);
    v.pattern(&[("x // 15", "2", "0", "1")], "True", SURJ);
    v.pattern(
        &[("x // 3 % 5", "5", "0", "1"), ("x % 3", "3", "0", "1")],
        "True",
        SURJ,
    );
    let v = env(&[("x", "45")]);
    v.pattern(&[("(x + 71) // 32", "2", "2", "1")], "True", SURJ);
    v.pattern(
        &[("x // 4 % 8", "8", "0", "1"), ("x % 4", "4", "0", "1")],
        "True",
        SURJ,
    );
    let v = env(&[("y", "360")]);
    v.pattern(
        &[(
            "(x * 360 + y) // 16",
            "23",
            "(x * 360 - x % 2 * 8) // 16",
            "1",
        )],
        "True",
        SURJ,
    );
    v.pattern(&[("(x * 360 + y) % 16", "16", "0", "1")], "True", SURJ);
    let v = env(&[("x", "240")]);
    v.pattern(
        &[
            ("(x + 10) % 3", "3", "0", "1"),
            ("(x + 10) // 3 % 4", "4", "0", "1"),
            ("(x + 10) // 3 // 4 % 5", "5", "0", "1"),
        ],
        "True",
        SURJ,
    );
}

/// iter_affine_map#0113: TVM accepts these three indices; here
/// `(x + 10) // 3` feeds two differently offset padded marks (`+ 1` for the
/// `% 4`, `+ 3` for the `// 4`), which looks like two uses of the same
/// digits, so detection conservatively fails (the map is surjective, but
/// two offsets of the same digits are not independent in general).
#[test]
fn padding_same_digits_under_two_offsets_is_rejected() {
    let v = env(&[("x", "240")]);
    v.failure(
        &[
            "(x + 1) % 3",
            "((x + 10) // 3 + 2) % 4",
            "((x + 10) // 3 // 4 + 3) % 5",
        ],
        "True",
        SURJ,
    );
    // The reason for the caution: two offsets of the same digits are not
    // independent, so this pair reaches only 4 of the 16 tuples.
    let v = env(&[("x", "64")]);
    v.failure(&["(x + 1) % 4", "(x + 3) % 4"], "True", SURJ);
}

/// iter_affine_map#0114-#0118 (TestPadding negative cases).
#[test]
fn padding_negative() {
    let v = env(&[("y", "176")]);
    v.failure(&["(80 + y) // 32", "(80 + y) % 32"], "True", SURJ);
    v.failure(&["(80 + y) // 32", "(80 + y) // 4"], "True", SURJ);
    let v = env(&[("x", "5"), ("y", "4")]);
    v.failure(&["(x * 32 + y * 8) // 5"], "True", SURJ);
    let v = env(&[("x", "240")]);
    v.failure(
        &[
            "(x + 10) % 3",
            "(x + 10) // 3 % 4",
            "(x + 10) // 3 // 4 % 5",
            "(x + 10) // 3 // 4 // 5",
        ],
        "True",
        SURJ,
    );
}

/// iter_affine_map#0118: TVM rejects `x % 16` over `x in [0, 3)` because it
/// pads the digits to 16 values; here `x % 16` is `x`, an exact map onto
/// `[0, 3)`, which the oracle confirms.
#[test]
fn padding_modulo_above_extent_is_identity() {
    let v = env(&[("x", "3")]);
    v.pattern(&[("x % 16", "3", "0", "1")], "True", BIJ);
}

/// iter_affine_map#0119: TVM rejects `(x % 255) // 16` over `x in [0, 255)`,
/// but the map is onto `[0, 16)` (the last value, 15, comes from
/// `x in [240, 255)`), so this port accepts it and the oracle confirms it.
#[test]
fn padding_partial_top_digit_is_surjective() {
    let v = env(&[("x", "255")]);
    v.pattern(&[("x % 255 // 16", "16", "0", "1")], "True", SURJ);
}

/// Padding is reported: `(x + 71) // 32` splits the padded mark `x + 7`.
#[test]
fn padding_is_reported() {
    let v = env(&[("x", "45")]);
    let r = v.pattern(&[("(x + 71) // 32", "2", "2", "1")], "True", SURJ);
    assert_eq!(r.padded.len(), 1);
    assert_eq!(r.padded[0].valid_min, Expr::int(7));
    assert_eq!(r.padded[0].valid_extent, Expr::int(45));
    assert_eq!(r.padded[0].mark.extent, Expr::int(64));
    assert_eq!(*r.indices[0].args[0].source, *r.padded[0].mark);
}

/// With `offset_marks`, `(x + 3) // 2` and `(x + 3) % 2` are digits of the
/// one mark `x + 3` over `[0, 10)` (real values `[3, 10)`), so their fusion
/// with radix 5 chains: by default `(x + 3) // 2` is `(x + 1) // 2 + 1`,
/// whose 4 values leave a gap under the radix 5, and detection fails.
#[test]
fn offset_marks_split_one_offset_mark() {
    let v = env(&[("x", "7")]);
    let fused = "(x + 3) % 2 * 5 + (x + 3) // 2";
    let no_check = opts(CheckLevel::NoCheck, true);
    v.failure(&[fused], "True", no_check);
    let offsets = DetectOptions {
        offset_marks: true,
        ..no_check
    };
    let r = v.pattern(&[(fused, "10", "0", "1")], "True", offsets);
    let split = &r.indices[0].args[0];
    let MarkSource::Fused(sum) = &split.source.source else {
        panic!("{split} does not split a fusion");
    };
    assert_eq!(sum.base, Expr::int(0));
    let digits: Vec<(i64, i64, i64)> = sum
        .args
        .iter()
        .map(|a| {
            (
                a.lower_factor.as_int().unwrap(),
                a.extent.as_int().unwrap(),
                a.scale.as_int().unwrap(),
            )
        })
        .collect();
    assert_eq!(digits, [(1, 2, 5), (2, 5, 1)]);
    assert_eq!(sum.args[0].source, sum.args[1].source);
    assert_eq!(r.padded.len(), 1);
    assert_eq!(*r.padded[0].mark, *sum.args[0].source);
    assert_eq!(r.padded[0].mark.extent, Expr::int(10));
    assert_eq!(r.padded[0].valid_min, Expr::int(3));
    assert_eq!(r.padded[0].valid_extent, Expr::int(7));
    // The fusion misses [0, 3) and more: not surjective onto [0, 10).
    v.failure(
        &[fused],
        "True",
        DetectOptions {
            offset_marks: true,
            ..SURJ
        },
    );
    // A quotient and remainder recombined are the offset mark itself:
    // `(x + 4) // 2 * 2 + (x + 4) % 2` over `[0, 8)` is the mark `x + 4` of
    // 12 values, base 0 (by default `x`, 8 values, plus the base 4).
    let v = env(&[("x", "8")]);
    v.pattern(
        &[("(x + 4) // 2 * 2 + (x + 4) % 2", "12", "0", "1")],
        "True",
        DetectOptions {
            offset_marks: true,
            ..no_check
        },
    );
}

/// With `widen_top_digits`, a whole iterator (`y` of 7 values) or the
/// partial top digit of one (`r // 2` of `r` in `[0, 5)`, 3 values) may sit
/// under a larger radix: the split keeps its value, its extent grows to the
/// radix, and the fused mark has gaps, so it is not surjective.
#[test]
fn widen_top_digits_fuses_under_a_larger_radix() {
    let no_check = opts(CheckLevel::NoCheck, true);
    let widen = |o: DetectOptions| DetectOptions {
        widen_top_digits: true,
        ..o
    };
    let v = env(&[("x", "3"), ("y", "7")]);
    v.failure(&["x * 9 + y"], "True", no_check);
    let r = v.pattern(&[("x * 9 + y", "27", "0", "1")], "True", widen(no_check));
    let MarkSource::Fused(sum) = &r.indices[0].args[0].source.source else {
        panic!("{} does not split a fusion", r.indices[0]);
    };
    let y = sum.args.iter().find(|a| a.scale.is_int(1)).unwrap();
    assert_eq!(
        (y.lower_factor.clone(), y.extent.clone()),
        (Expr::int(1), Expr::int(9))
    );
    assert_eq!(y.source.extent, Expr::int(7));
    v.failure(&["x * 9 + y"], "True", widen(SURJ));
    let v = env(&[("r", "5")]);
    let fused = "r % 2 * 4 + r // 2";
    v.failure(&[fused], "True", no_check);
    v.pattern(&[(fused, "8", "0", "1")], "True", widen(no_check));
    v.failure(&[fused], "True", widen(SURJ));
}

// ---------------------------------------------------------------- simplify

/// iter_affine_map#0129-#0135
#[test]
fn simplify_symbolic() {
    let fuse0 = |x: &str| format!("({x}) // n * n + ({x}) % n");
    let sym0 =
        |x: &str| format!("({x}) // (n * n) % 32 * (n * n) + ({x}) // n % n * n + ({x}) % n");
    let sym1 = |x: &str| {
        format!("(({x}) % (n * n * 32) // (n * n) * n + ({x}) % (n * n) // n) * n + ({x}) % n")
    };
    let sym2 = |x: &str| format!("(({x}) // (n * n) * n + ({x}) % (n * n) // n) * n + ({x}) % n");
    let z = "x * 32 + y";
    let v = Env::new(&["n"], &[("x", "n * 32")]);
    v.simplify(&[(&fuse0("x"), "x")], "True", SURJ);
    let v = Env::new(&["n"], &[("x", "n"), ("y", "32")]);
    v.simplify(&[(&fuse0(z), z)], "True", SURJ);
    let v = Env::new(&["n"], &[("x", "n * n * 32")]);
    v.simplify(&[(&sym0("x"), "x")], "True", SURJ);
    v.simplify(&[(&sym1("x"), "x")], "True", SURJ);
    v.simplify(&[(&sym2("x"), "x")], "True", SURJ);
    let v = Env::new(&["n"], &[("x", "n * n"), ("y", "32")]);
    v.simplify(&[(&sym0(z), z)], "True", SURJ);
    v.simplify(&[(&sym1(z), z)], "True", SURJ);
}

/// iter_affine_map#0136, #0137
#[test]
fn simplify_symbolic_predicate() {
    let v = Env::new(&["n"], &[("x", "(n + 1) // 2"), ("y", "32")]);
    let z = "x * 32 + y";
    v.simplify(
        &[(&format!("({z}) // n * n + ({z}) % n"), z)],
        &format!("{z} < n * 16"),
        SURJ,
    );
    let v = Env::new(&["n"], &[("x", "(n * n + 1) // 2"), ("y", "64")]);
    let z = "x * 64 + y";
    let sym2 = format!("(({z}) // (n * n) * n + ({z}) % (n * n) // n) * n + ({z}) % n");
    v.simplify(&[(&sym2, z)], &format!("{z} < n * n * 32"), SURJ);
}

/// iter_affine_map#0138
#[test]
fn simplify_symbolic_reshape() {
    let v = Env::new(&["n"], &[("fused", "n * 4096")]);
    let (ax0, ax1, ax2) = ("fused // 4096 // n", "fused // 4096 % n", "fused % 4096");
    let rhs = format!("(({ax2}) // 4096 + ({ax0}) * n + ({ax1})) % n * 4096 + ({ax2}) % 4096");
    v.simplify(&[(&rhs, "fused")], "True", SURJ);
}

/// iter_affine_map#0139-#0142
#[test]
fn simplify_unit_loop_order() {
    let keep = opts(CheckLevel::Surjective, false);
    let v = env(&[("x", "1"), ("y", "1"), ("z", "1")]);
    v.simplify(&[("x + y + z", "x + y + z")], "True", keep);
    let v = env(&[("x", "1"), ("y", "1"), ("z", "32")]);
    v.simplify(&[("x + y + z // 4 * 4 + z % 4", "z + x + y")], "True", keep);
    let v = env(&[("x", "6"), ("y", "64")]);
    v.simplify(
        &[("y + 64 - x % 2 * 64", "y + 64 - x % 2 * 64")],
        "True",
        keep,
    );
    let v = env(&[("x", "128"), ("y", "128"), ("z", "1")]);
    v.simplify(&[("x // 128 + y + z", "y + z")], "True", keep);
}

/// iter_affine_map#0154 (result_asserts.simplify): a divisor the analyzer
/// knows the value of.
#[test]
fn simplify_with_bound_divisor() {
    let mut v = env(&[("i", "32")]);
    let tile = v.e("tile").as_var().unwrap().clone();
    v.an.bind(&tile, Range::new(Expr::int(8), Expr::int(1)));
    let out = iter_map_simplify_with(&[v.e("i % tile")], &v.dom, &Expr::bool(true), &SURJ, &v.an);
    assert_eq!(out[0].to_string(), "i % 8");
}

// ---------------------------------------------------------------- normalize_to_iter_sum

/// iter_affine_map#0143-#0149
#[test]
fn normalize() {
    let v = Env::new(&["n"], &[("x", "9"), ("y", "4"), ("z", "3")]);
    v.normalize(
        "z + (y + x * 4 + 2) * n + 3",
        &[("x", "n * 4"), ("y", "n"), ("z", "1")],
        "2 * n + 3",
    );
    v.normalize(
        "max(z, a) + (y + x * 4 + 2) * n + 3",
        &[("x", "n * 4"), ("y", "n")],
        "max(z, a) + 2 * n + 3",
    );
    let v = Env::new(
        &["n", "a"],
        &[("y", "a * n * 4"), ("x", "n * 4"), ("z", "a")],
    );
    v.normalize(
        "z + (y * 4 * a + x * 4 + 2) * n + 3",
        &[("y", "a * n * 4"), ("x", "n * 4"), ("z", "1")],
        "2 * n + 3",
    );
    v.normalize(
        "z + 2 * y * 3 + 4 * x",
        &[("y", "6"), ("x", "4"), ("z", "1")],
        "0",
    );
    v.normalize(
        "z + 2 * y * 3 + 4 * (x // 2)",
        &[("y", "6"), ("x // 2", "4"), ("z", "1")],
        "0",
    );
    v.normalize(
        "z * 2 + 2 * y * 3 + 4 * (x // 4) + x % 4",
        &[("y", "6"), ("z", "2"), ("x", "1")],
        "0",
    );
    let v = env(&[("x", "4096")]);
    let sum = normalize_to_iter_sum(&v.e("x // 5"), &v.dom, &v.an).unwrap();
    assert_eq!(sum.args.len(), 1);
    let a = &sum.args[0];
    assert_eq!(
        (a.lower_factor.clone(), a.extent.clone(), a.scale.clone()),
        (Expr::int(5), Expr::int(820), Expr::int(1))
    );
    assert_eq!(a.source.extent, Expr::int(4096));
}

/// iter_affine_map#0150 (result_asserts.normalize_to_iter_sum): the divisor
/// is a variable the analyzer knows.
#[test]
fn normalize_with_bound_divisor() {
    let mut v = env(&[("i", "16")]);
    let tile = v.e("tile").as_var().unwrap().clone();
    v.an.bind(&tile, Range::new(Expr::int(4), Expr::int(1)));
    let sum = normalize_to_iter_sum(&v.e("i // tile"), &v.dom, &v.an).unwrap();
    assert_eq!(sum.args.len(), 1);
    assert_eq!(sum.args[0].lower_factor, Expr::int(4));
    assert_eq!(sum.args[0].extent, Expr::int(4));
}

// ---------------------------------------------------------------- errors

#[test]
fn errors_name_the_problem() {
    let v = env(&[("x", "4"), ("y", "4")]);
    let err = |s: &str, level| v.detect(&[v.e(s)], &Expr::bool(true), level).unwrap_err();
    assert!(
        err("x * y", SURJ).contains("x * y"),
        "{}",
        err("x * y", SURJ)
    );
    assert!(err("min(x, 2)", SURJ).contains("min(x, 2)"));
    let two = [v.e("x * 4 + y"), v.e("y")];
    let m = v.detect(&two, &Expr::bool(true), SURJ).unwrap_err();
    assert!(m.contains("another index"), "{m}");
    let m = v.detect(&[v.e("x")], &Expr::bool(true), BIJ).unwrap_err();
    assert!(m.contains("iterator y"), "{m}");
}

/// TVM InferBound's fuse-then-split: `fused = i * 5 + j` over 10 values,
/// split by 4 into `o` (3 values, the last partial) and `in` (4 values).
/// Recovering `(i, j)` from `(o, in)` under the guard `o * 4 + in < 10` is
/// a bijection onto `[0, 2) x [0, 5)`.
#[test]
fn fuse_then_split_inverse_is_exact() {
    let v = env(&[("o", "3"), ("inner", "4")]);
    let r = v.pattern(
        &[
            ("(o * 4 + inner) // 5", "2", "0", "1"),
            ("(o * 4 + inner) % 5", "5", "0", "1"),
        ],
        "o * 4 + inner < 10",
        BIJ,
    );
    assert_eq!(r.indices[0].args[0].source, r.indices[1].args[0].source);
    assert_eq!(r.indices[0].args[0].source.extent, Expr::int(10));
}

/// The printed form of a detected map (TVM's notation).
#[test]
fn display_golden() {
    let v = env(&[("x", "3"), ("y", "4")]);
    let r = v
        .detect(
            &[v.e("(x * 4 + y) // 2"), v.e("(x * 4 + y) % 2")],
            &Expr::bool(true),
            BIJ,
        )
        .unwrap();
    assert_eq!(
        r.indices[0].to_string(),
        "sum([split(mark(sum([split(mark(x, 3), 1, 3, 4), split(mark(y, 4), 1, 4, 1)], 0), 12), 2, 6, 1)], 0)"
    );
    assert_eq!(r.indices[1].to_expr().to_string(), "(x * 4 + y) % 2");
    assert_eq!(r.indices[0].to_expr().to_string(), "(x * 4 + y) // 2");
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let v = env(&[("x", "4")]);
    let t = Expr::bool(true);
    let detect = |idx: &str, pred: &str| v.detect(&[v.e(idx)], &v.e(pred), SURJ);
    assert!(detect("x < 3", "True").is_err());
    assert!(detect("x", "x").is_err());
    assert!(detect("x", "x == 2").is_err());
    assert!(detect("x * 4611686018427387904 * 4", "True").is_err());
    assert!(detect("x // 0", "True").is_err());
    assert!(detect("x % y", "True").is_err());
    assert!(detect("x", "x < 0").is_err());
    let empty = Env::new(&[], &[("x", "0")]);
    assert!(empty.detect(&[empty.e("x")], &t, SURJ).is_err());
    let symbolic = env(&[("x", "n")]);
    let m = symbolic.detect(&[symbolic.e("x")], &t, SURJ).unwrap_err();
    assert!(m.contains("not known to be positive"), "{m}");
}

#[test]
fn shifted_domains_and_no_check() {
    let mut v = env(&[("x", "4")]);
    let y = v.e("y").as_var().unwrap().clone();
    v.dom
        .insert(y.clone(), Range::new(Expr::int(3), Expr::int(5)));
    v.iters.push(y);
    let r = v
        .detect(&[v.e("y * 4 + x")], &Expr::bool(true), BIJ)
        .unwrap();
    assert_eq!(r.indices[0].base, Expr::int(12));
    assert_eq!(r.indices[0].args[0].extent, Expr::int(20));
    // Overlapping splits pass without checks, and still evaluate right.
    let idx = [v.e("x"), v.e("x % 2")];
    let r = v
        .detect(&idx, &Expr::bool(true), opts(CheckLevel::NoCheck, true))
        .unwrap();
    v.check_semantics(&idx, &Expr::bool(true), &r, CheckLevel::NoCheck);
}

// ---------------------------------------------------------------- property tests

/// A random fuse/split index list over iterators `x`, `y`, `z`.
#[derive(Clone, Debug)]
struct FuseSplit {
    extents: Vec<i64>,
    /// The iterators fused, outermost first; the others are indices of
    /// their own.
    order: Vec<usize>,
    offset: i64,
    factor: i64,
    inner: i64,
    shape: u8,
    /// `Some((lower, upper))`: the predicate `lower <= fused < upper`.
    bound: Option<(i64, i64)>,
}

fn fuse_split_case() -> impl Strategy<Value = FuseSplit> {
    (
        prop::collection::vec(1i64..=5, 2..=3),
        any::<u64>(),
        1usize..=3,
        0i64..12,
        1i64..=13,
        1i64..=4,
        0u8..7,
        prop::option::weighted(0.3, (0i64..6, 1i64..40)),
    )
        .prop_map(
            |(extents, seed, fused, offset, factor, inner, shape, bound)| {
                let mut order: Vec<usize> = (0..extents.len()).collect();
                let mut s = seed;
                for i in (1..order.len()).rev() {
                    s = s
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    order.swap(i, (s >> 33) as usize % (i + 1));
                }
                order.truncate(fused.min(extents.len()));
                FuseSplit {
                    extents,
                    order,
                    offset,
                    factor,
                    inner,
                    shape,
                    bound,
                }
            },
        )
}

impl FuseSplit {
    fn fused(&self) -> String {
        let names = ["x", "y", "z"];
        let mut fused = String::from("0");
        for &i in &self.order {
            fused = format!("({fused}) * {} + {}", self.extents[i], names[i]);
        }
        fused
    }

    fn indices(&self) -> Vec<String> {
        let (f, c, d, e) = (self.fused(), self.offset, self.factor, self.inner);
        let shifted = format!("({f} + {c})");
        let mut out = match self.shape {
            0 => vec![format!("{shifted} // {d}"), format!("{shifted} % {d}")],
            1 => vec![format!("{shifted} // {d}")],
            2 => vec![format!("{shifted} % {d}")],
            3 => vec![format!("({f}) // {d} * {d} + ({f}) % {d}")],
            4 => vec![format!("({f}) // {d} % {e}"), format!("({f}) % {d}")],
            5 => vec![
                format!("({f}) // {d} // {e}"),
                format!("({f}) // {d} % {e}"),
                format!("({f}) % {d}"),
            ],
            _ => vec![format!("({f}) * {e} + {c}")],
        };
        let names = ["x", "y", "z"];
        let alone = (0..self.extents.len()).filter(|i| !self.order.contains(i));
        out.extend(alone.map(|i| names[i].to_string()));
        out
    }

    fn predicate(&self) -> String {
        match self.bound {
            Some((lo, hi)) => format!("{lo} <= {f} and {f} < {hi}", f = self.fused()),
            None => "True".to_string(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Whatever is detected agrees with enumeration: values, ranges,
    /// surjectivity and bijectivity (`check_semantics`); and the exact
    /// fuse-then-split shapes are always detected.
    #[test]
    fn random_fuse_split_matches_enumeration(case in fuse_split_case()) {
        let names = ["x", "y", "z"];
        let iters: Vec<(&str, String)> =
            case.extents.iter().enumerate().map(|(i, e)| (names[i], e.to_string())).collect();
        let iters_ref: Vec<(&str, &str)> = iters.iter().map(|(n, e)| (*n, e.as_str())).collect();
        let v = env(&iters_ref);
        let indices = case.indices();
        let exprs: Vec<Expr> = indices.iter().map(|t| v.e(t)).collect();
        let pred = v.e(&case.predicate());
        for level in [CheckLevel::NoCheck, CheckLevel::Surjective, CheckLevel::Bijective] {
            for widened in [false, true] {
                let o = DetectOptions {
                    offset_marks: widened,
                    widen_top_digits: widened,
                    ..opts(level, true)
                };
                if let Ok(r) = v.detect(&exprs, &pred, o) {
                    v.check_semantics(&exprs, &pred, &r, level);
                }
            }
        }
        let total: i64 = case.order.iter().map(|&i| case.extents[i]).product();
        let (d, e) = (case.factor, case.inner);
        let exact = case.bound.is_none()
            && match case.shape {
                0 => case.offset == 0 && total % d == 0,
                3 => true,
                5 => total % (d * e) == 0,
                _ => false,
            };
        if exact {
            let r = v.detect(&exprs, &pred, BIJ);
            prop_assert!(r.is_ok(), "{:?}: {:?}", indices, r.err());
        }
        if case.bound.is_none() && case.offset == 0 && total % d == 0 && case.shape <= 2 {
            prop_assert!(v.detect(&exprs, &pred, SURJ).is_ok(), "{:?}", indices);
        }
        if case.bound.is_none() {
            prop_assert!(v.detect(&exprs, &pred, opts(CheckLevel::NoCheck, true)).is_ok(), "{:?}", indices);
        }
    }
}

/// A random expression over `x`, `y`, `z` with `+`, `-`, products with
/// constants, and `//`, `%` by positive constants.
fn affine_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => prop::sample::select(vec!["x", "y", "z"]).prop_map(str::to_string),
        1 => (0i64..5).prop_map(|c| c.to_string()),
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} + {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} - {b})")),
            (inner.clone(), -2i64..6).prop_map(|(a, c)| format!("({a} * {c})")),
            (inner.clone(), 1i64..7).prop_map(|(a, c)| format!("({a} // {c})")),
            (inner, 1i64..7).prop_map(|(a, c)| format!("({a} % {c})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Soundness on arbitrary affine index lists: whatever is detected, at
    /// any check level, agrees with enumeration.
    #[test]
    fn random_affine_indices_match_enumeration(
        texts in prop::collection::vec(affine_text(), 1..=2),
        extents in prop::collection::vec(1i64..=4, 3),
    ) {
        let iters: Vec<(&str, String)> =
            ["x", "y", "z"].iter().zip(&extents).map(|(n, e)| (*n, e.to_string())).collect();
        let iters_ref: Vec<(&str, &str)> = iters.iter().map(|(n, e)| (*n, e.as_str())).collect();
        let v = env(&iters_ref);
        let exprs: Vec<Expr> = texts.iter().map(|t| v.e(t)).collect();
        let t = Expr::bool(true);
        for level in [CheckLevel::NoCheck, CheckLevel::Surjective, CheckLevel::Bijective] {
            for widened in [false, true] {
                let o = DetectOptions {
                    offset_marks: widened,
                    widen_top_digits: widened,
                    ..opts(level, true)
                };
                if let Ok(r) = v.detect(&exprs, &t, o) {
                    v.check_semantics(&exprs, &t, &r, level);
                }
            }
        }
    }
}

/// Every `iter_map.*` record of the TVM corpus is either ported above (its
/// id is named in a test's doc comment) or listed here with the reason.
#[test]
fn every_corpus_record_is_accounted_for() {
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
        });
    let path = shared.join("conformance/tvm/arith_cases.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!(
            "note: {} is absent; skipping the corpus accounting",
            path.display()
        );
        return;
    };
    let not_ported = [
        // test_complex: `subspace_divide`, not part of detection.
        "iter_affine_map#0091",
        "iter_affine_map#0092",
        // test_detect_iter_map_with_bufferload_recursion: buffer loads are
        // not arith expressions.
        "iter_affine_map#0151",
    ];
    let source = include_str!("iter_map.rs");
    let mut ported = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: serde_json::Value = serde_json::from_str(line).expect("valid json line");
        let kind = rec["kind"].as_str().unwrap_or_default();
        let id = rec["id"].as_str().unwrap_or_default();
        let relevant = kind.starts_with("iter_map.")
            || (id.starts_with("iter_affine_map#")
                && matches!(
                    kind,
                    "result_asserts.detect_iter_map"
                        | "result_asserts.normalize_to_iter_sum"
                        | "result_asserts.simplify"
                ));
        if !relevant || not_ported.contains(&id) {
            continue;
        }
        let short = id.trim_start_matches("iter_affine_map");
        let named = covered_by_range(source, short);
        assert!(
            named,
            "corpus record {id} ({kind}) is neither ported nor listed as not ported"
        );
        ported += 1;
    }
    println!(
        "iter_map corpus records ported: {ported}, not ported: {}",
        not_ported.len()
    );
}

/// Whether a doc comment names `#NNNN` or a range `#AAAA-#BBBB` holding it.
fn covered_by_range(source: &str, short: &str) -> bool {
    let Ok(n) = short.trim_start_matches('#').parse::<u32>() else {
        return false;
    };
    let num = |s: &str| {
        s.trim_start_matches("iter_affine_map")
            .strip_prefix('#')
            .and_then(|s| s.parse::<u32>().ok())
    };
    source
        .lines()
        .filter(|l| l.trim_start().starts_with("///"))
        .any(|l| {
            l.split([' ', ',', '(', ')', ':'])
                .any(|w| match w.split_once('-') {
                    Some((a, b)) => {
                        matches!((num(a), num(b)), (Some(a), Some(b)) if a <= n && n <= b)
                    }
                    None => num(w) == Some(n),
                })
        })
}

/// A fused mark padded by a predicate whose splits' last block is partial:
/// 3 <= x*5+y < 10 gives the digit pairs of 3..9 only, 7 of the 9, so the
/// map is not surjective (found by `random_fuse_split_matches_enumeration`).
#[test]
fn partial_block_of_a_padded_fusion_is_not_surjective() {
    let v = env(&[("x", "2"), ("y", "5")]);
    let indices = [v.e("(x * 5 + y) // 3 % 3"), v.e("(x * 5 + y) % 3")];
    let pred = v.e("3 <= x * 5 + y and x * 5 + y < 10");
    let err = v.detect(&indices, &pred, SURJ).unwrap_err();
    assert!(err.contains("7 of the 9"), "{err}");
    // Without the predicate every pair of 0..9 is reached.
    assert!(v.detect(&indices, &v.e("True"), SURJ).is_ok());
}
