//! Property tests biased toward what index code looks like: sums of scaled
//! variables plus constants under `%` and `//`, nested, with negative
//! coefficients and small ranges, and constants and range ends at or near
//! `i64::MIN` / `i64::MAX`.
//!
//! The oracle is evaluation at every point of the (small) box:
//! - wherever the input has a value, `simplify` succeeds and the result has
//!   the same value there (a rewrite may not introduce an overflow or an
//!   error the input does not have; for an input that may itself overflow
//!   somewhere in the box, agreement where both are defined);
//! - `const_int_bound` contains every value and `modular_set` holds;
//! - nothing panics.
//!
//! Each test prints, on its first failure, how many cases it took to find
//! it and how long (`cargo test -p arith --test index_props -- --nocapture`).

use arith::{Analyzer, CmpOp, Expr, Range, Var};
use proptest::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const P62: i64 = 1 << 62;

/// An index expression over variables `0..3`.
#[derive(Clone, Debug)]
enum E {
    /// `sum(var * coeff) + konst`.
    Linear(Vec<(usize, i64)>, i64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    MulC(Box<E>, i64),
    Div(Box<E>, i64),
    Mod(Box<E>, i64),
    Min(Box<E>, Box<E>),
    Max(Box<E>, Box<E>),
}

/// Constants: mostly small, sometimes at the ends of `i64`.
fn konst(extremes: bool) -> BoxedStrategy<i64> {
    if extremes {
        prop_oneof![
            3 => -20i64..20,
            1 => prop_oneof![
                Just(i64::MIN),
                Just(i64::MIN + 1),
                Just(i64::MAX),
                Just(i64::MAX - 1),
                Just(P62),
                Just(-P62),
                Just(P62 - 1),
                Just(1 - P62),
            ],
        ]
        .boxed()
    } else {
        (-20i64..20).boxed()
    }
}

fn coeff(extremes: bool) -> BoxedStrategy<i64> {
    let small = prop_oneof![
        -9i64..10,
        Just(16),
        Just(-16),
        Just(32),
        Just(64),
        Just(-4),
        Just(8)
    ];
    if extremes {
        prop_oneof![
            4 => small,
            1 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(-i64::MAX), Just(P62), Just(-P62)],
        ]
        .boxed()
    } else {
        small.boxed()
    }
}

fn divisor(extremes: bool) -> BoxedStrategy<i64> {
    let small = prop_oneof![2i64..10, Just(16), Just(32), Just(64), -9i64..-1];
    if extremes {
        prop_oneof![4 => small, 1 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(-1i64), Just(P62)]]
            .boxed()
    } else {
        small.boxed()
    }
}

fn linear(extremes: bool) -> impl Strategy<Value = E> {
    (
        prop::collection::vec((0usize..3, coeff(extremes)), 1..4),
        konst(extremes),
    )
        .prop_map(|(t, k)| E::Linear(t, k))
}

fn index_expr(extremes: bool) -> impl Strategy<Value = E> {
    linear(extremes).prop_recursive(3, 16, 2, move |inner| {
        prop_oneof![
            3 => (inner.clone(), divisor(extremes)).prop_map(|(a, c)| E::Mod(a.into(), c)),
            3 => (inner.clone(), divisor(extremes)).prop_map(|(a, c)| E::Div(a.into(), c)),
            2 => (inner.clone(), linear(extremes)).prop_map(|(a, b)| E::Add(a.into(), b.into())),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(a.into(), b.into())),
            2 => (inner.clone(), coeff(extremes)).prop_map(|(a, c)| E::MulC(a.into(), c)),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Min(a.into(), b.into())),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Max(a.into(), b.into())),
        ]
    })
}

fn build(e: &E, v: &[Var; 3]) -> Expr {
    match e {
        E::Linear(terms, k) => {
            let mut acc: Option<Expr> = None;
            for &(i, c) in terms {
                let t = if c == 1 {
                    v[i].expr()
                } else {
                    Expr::mul(v[i].expr(), Expr::int(c))
                };
                acc = Some(match acc {
                    Some(a) => Expr::add(a, t),
                    None => t,
                });
            }
            let acc = acc.unwrap_or_else(|| Expr::int(0));
            if *k == 0 {
                acc
            } else {
                Expr::add(acc, Expr::int(*k))
            }
        }
        E::Add(a, b) => Expr::add(build(a, v), build(b, v)),
        E::Sub(a, b) => Expr::sub(build(a, v), build(b, v)),
        E::MulC(a, c) => Expr::mul(build(a, v), Expr::int(*c)),
        E::Div(a, c) => Expr::floor_div(build(a, v), Expr::int(*c)),
        E::Mod(a, c) => Expr::floor_mod(build(a, v), Expr::int(*c)),
        E::Min(a, b) => Expr::min(build(a, v), build(b, v)),
        E::Max(a, b) => Expr::max(build(a, v), build(b, v)),
    }
}

/// Half-open ranges `[lo, lo + w)`; with `extremes`, some start at or near
/// the ends of `i64` or near `±2^62`.
fn ranges(extremes: bool) -> BoxedStrategy<[(i64, i64); 3]> {
    let small = (-8i64..8, 1i64..6).prop_map(|(lo, w)| (lo, lo + w));
    let r: BoxedStrategy<(i64, i64)> = if extremes {
        prop_oneof![
            2 => small,
            1 => (0i64..4, 1i64..4).prop_map(|(k, w)| (i64::MIN + k, i64::MIN + k + w)),
            1 => (0i64..4, 1i64..4).prop_map(|(k, w)| (i64::MAX - k - w, i64::MAX - k)),
            1 => (-3i64..3, 1i64..4).prop_map(|(k, w)| (P62 + k, P62 + k + w)),
            1 => (-3i64..3, 1i64..4).prop_map(|(k, w)| (-P62 + k, -P62 + k + w)),
        ]
        .boxed()
    } else {
        small.boxed()
    };
    [r.clone(), r.clone(), r].boxed()
}

fn vars() -> [Var; 3] {
    [Var::new("x"), Var::new("y"), Var::new("z")]
}

/// The kinds of failure, each reported once per test.
#[derive(Clone, Copy)]
enum Class {
    Panic = 0,
    WrongValue = 1,
    ErrorWithValue = 2,
    Bound = 3,
    Modular = 4,
}

const CLASS_NAMES: [&str; 5] = [
    "panic",
    "wrong value",
    "error where the input has a value",
    "bound misses a value",
    "modular fact broken",
];

/// Counts cases and reports the first failure of each class once, with how
/// many cases and how long it took to find.
struct Tally {
    cases: AtomicUsize,
    reported: [AtomicBool; 5],
    start: Mutex<Option<Instant>>,
    /// Whether the first failure of each class is printed.
    verbose: bool,
    /// The last failure message.
    last: Mutex<String>,
}

impl Tally {
    const fn new() -> Tally {
        Tally {
            cases: AtomicUsize::new(0),
            reported: [const { AtomicBool::new(false) }; 5],
            start: Mutex::new(None),
            verbose: true,
            last: Mutex::new(String::new()),
        }
    }

    const fn quiet() -> Tally {
        Tally {
            cases: AtomicUsize::new(0),
            reported: [const { AtomicBool::new(false) }; 5],
            start: Mutex::new(None),
            verbose: false,
            last: Mutex::new(String::new()),
        }
    }

    fn case(&self) {
        self.start.lock().unwrap().get_or_insert_with(Instant::now);
        self.cases.fetch_add(1, Ordering::Relaxed);
    }

    fn fail(&self, name: &str, class: Class, msg: String) -> TestCaseError {
        if !self.reported[class as usize].swap(true, Ordering::Relaxed) && self.verbose {
            let t = self.start.lock().unwrap().map(|s| s.elapsed());
            eprintln!(
                "{name}: first {} after {} cases, {:?}: {msg}",
                CLASS_NAMES[class as usize],
                self.cases.load(Ordering::Relaxed),
                t.unwrap_or_default()
            );
        }
        *self.last.lock().unwrap() = msg.clone();
        TestCaseError::fail(msg)
    }
}

/// Checks `e` against evaluation at every point of the box.
fn check(
    e: &Expr,
    r: &[(i64, i64); 3],
    v: &[Var; 3],
    tally: &Tally,
    name: &str,
) -> Result<(), TestCaseError> {
    tally.case();
    let mut an = Analyzer::new();
    for (var, &(lo, hi)) in v.iter().zip(r) {
        an.bind(var, Range::half_open(Expr::int(lo), Expr::int(hi)));
    }
    let analysed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        (an.simplify(e), an.const_int_bound(e), an.modular_set(e))
    }));
    let Ok((simplified, bound, modular)) = analysed else {
        return Err(tally.fail(name, Class::Panic, format!("{e}: panic with {r:?}")));
    };
    let overflow_free = an.is_overflow_free(e);
    for x in r[0].0..r[0].1 {
        for y in r[1].0..r[1].1 {
            for z in r[2].0..r[2].1 {
                let env = |w: &Var| {
                    [x, y, z]
                        .into_iter()
                        .zip(v.iter())
                        .find(|(_, u)| *u == w)
                        .map(|(val, _)| val)
                };
                let Ok(want) = e.eval(&env) else { continue };
                let at = format!("x={x} y={y} z={z}");
                // An input that may itself overflow somewhere in the box
                // only promises agreement where both sides are defined.
                if !overflow_free && matches!(&simplified, Ok(s) if s.eval(&env).is_err()) {
                    continue;
                }
                let s = match &simplified {
                    Ok(s) => s,
                    Err(err) => {
                        return Err(tally.fail(
                            name,
                            Class::ErrorWithValue,
                            format!("{e}: error `{err}` but {want} at {at}"),
                        ))
                    }
                };
                match s.eval(&env) {
                    Ok(got) if got == want => {}
                    got => {
                        return Err(tally.fail(
                            name,
                            Class::WrongValue,
                            format!("{e} => {s}: {want} vs {got:?} at {at}"),
                        ))
                    }
                }
                if !bound.contains(want) {
                    return Err(tally.fail(
                        name,
                        Class::Bound,
                        format!("{e}: {want} outside {bound} at {at}"),
                    ));
                }
                let holds = if modular.coeff == 0 {
                    want == modular.base
                } else {
                    (want as i128 - modular.base as i128).rem_euclid(modular.coeff as i128) == 0
                };
                if !holds {
                    return Err(tally.fail(
                        name,
                        Class::Modular,
                        format!("{e}: {want} breaks {modular:?} at {at}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ]
}

static SMALL: Tally = Tally::new();
static EXTREME: Tally = Tally::new();
static CMP: Tally = Tally::new();

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000)
    ))]

    /// Index patterns with small constants and ranges: the class of
    /// `(x * 2 + y * 8 + 2) % 16`.
    #[test]
    fn index_patterns_agree_with_evaluation(e in index_expr(false), r in ranges(false)) {
        let v = vars();
        check(&build(&e, &v), &r, &v, &SMALL, "index_patterns")?;
    }

    /// Constants, coefficients and range ends at or near the ends of `i64`.
    #[test]
    fn extreme_values_agree_with_evaluation(e in index_expr(true), r in ranges(true)) {
        let v = vars();
        check(&build(&e, &v), &r, &v, &EXTREME, "extreme_values")?;
    }

    /// Comparisons of index expressions, with extremes.
    #[test]
    fn comparisons_agree_with_evaluation(
        op in cmp_op(),
        a in index_expr(true),
        b in index_expr(true),
        r in ranges(true),
    ) {
        let v = vars();
        let e = Expr::cmp(op, build(&a, &v), build(&b, &v));
        check(&e, &r, &v, &CMP, "comparisons")?;
    }
}

/// The measured run behind the issue's "how fast does the generator find
/// each class": draws cases without stopping at failures and prints, per
/// generator and failure class, the first case that hit it and the time to
/// get there. Run it with
/// `cargo test -p arith --test index_props -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_how_fast_each_class_is_found() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let n: usize = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    std::panic::set_hook(Box::new(|p| {
        if std::env::var("SHOW_EXAMPLES").is_ok() {
            eprintln!(
                "PANIC {}",
                p.location().map(|l| l.to_string()).unwrap_or_default()
            );
        }
    }));
    let v = vars();
    let cmp_case = (cmp_op(), index_expr(true), index_expr(true), ranges(true))
        .prop_map(|(op, a, b, r)| (Some(op), a, Some(b), r));
    let plain = |extremes: bool| {
        (index_expr(extremes), ranges(extremes)).prop_map(|(a, r)| (None, a, None, r))
    };
    let gens: [(&str, BoxedStrategy<_>); 3] = [
        ("index_patterns", plain(false).boxed()),
        ("extreme_values", plain(true).boxed()),
        ("comparisons", cmp_case.boxed()),
    ];
    for (name, strategy) in gens {
        let mut runner = TestRunner::deterministic();
        let start = Instant::now();
        let mut first: [Option<(usize, std::time::Duration)>; 5] = [None; 5];
        let mut examples: Vec<String> = Vec::new();
        let mut counts = [0usize; 5];
        let tally = Tally::quiet();
        for i in 0..n {
            let (op, a, b, r) = strategy.new_tree(&mut runner).unwrap().current();
            let e = match (op, b) {
                (Some(op), Some(b)) => Expr::cmp(op, build(&a, &v), build(&b, &v)),
                _ => build(&a, &v),
            };
            for flag in &tally.reported {
                flag.store(false, Ordering::Relaxed);
            }
            if check(&e, &r, &v, &tally, name).is_err() {
                for (c, flag) in tally.reported.iter().enumerate() {
                    if flag.load(Ordering::Relaxed) {
                        counts[c] += 1;
                        first[c].get_or_insert((i + 1, start.elapsed()));
                        if examples.len() < 40 {
                            examples.push(tally.last.lock().unwrap().clone());
                        }
                    }
                }
            }
        }
        if std::env::var("SHOW_EXAMPLES").is_ok() {
            for x in &examples {
                eprintln!("  {x}");
            }
        }
        for c in 0..5 {
            match first[c] {
                Some((k, t)) => eprintln!(
                    "{name}: {}: first at case {k} ({t:?}), {} of {n} cases",
                    CLASS_NAMES[c], counts[c]
                ),
                None => eprintln!("{name}: {}: none in {n} cases", CLASS_NAMES[c]),
            }
        }
    }
    let _ = std::panic::take_hook();
}
