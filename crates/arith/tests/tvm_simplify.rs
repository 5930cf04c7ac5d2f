//! Conformance runner over TVM's scalar simplifier cases
//! (`shared/conformance/tvm/arith_simplify.jsonl`).
//!
//! For every case: the result must be equivalent to the input (checked by
//! evaluation at corner and random points inside the ranges), and its node
//! count is compared with TVM's expected form and with TVM 0.27's own result.
//! Prints the figures and writes the cases that come out larger than TVM's
//! expectation to `target/conformance/tvm_simplify.txt`.

use arith::{Analyzer, Expr, Range, Scope, Var};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    // `RANGEFINDER_SHARED` names the shared directory when it is not beside
    // the checkout.
    let shared = std::env::var_os("RANGEFINDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let p = shared.join("conformance/tvm/arith_simplify.jsonl");
    p.exists().then_some(p)
}

struct Case {
    id: String,
    input: String,
    expected: String,
    tvm: String,
    ranges: Vec<(String, i64, i64)>,
}

fn load(path: &PathBuf) -> Vec<Case> {
    let text = std::fs::read_to_string(path).expect("readable corpus");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("valid json line");
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let ranges = v["ranges"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, r)| (k.clone(), r[0].as_i64().unwrap(), r[1].as_i64().unwrap()))
                        .collect()
                })
                .unwrap_or_default();
            Case {
                id: s("id"),
                input: s("input"),
                expected: s("expected"),
                tvm: s("tvm_0_27"),
                ranges,
            }
        })
        .collect()
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn in_range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128).max(1) as u128;
        (lo as i128 + (self.next() as u128 % span) as i128) as i64
    }
}

/// Values to try for a variable ranging over `[lo, hi)`.
fn candidates(lo: i64, hi: i64, rng: &mut Rng) -> Vec<i64> {
    let mut v = vec![
        lo,
        lo + 1,
        hi - 1,
        hi - 2,
        0,
        1,
        -1,
        2,
        -2,
        7,
        8,
        9,
        -7,
        -8,
        15,
        16,
        17,
        63,
        64,
    ];
    for _ in 0..6 {
        v.push(rng.in_range(lo, hi));
        v.push(rng.in_range(lo.max(-100), hi.min(100)));
    }
    v.retain(|&x| x >= lo && x < hi);
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether `a` and `b` agree wherever `a` is defined, at about 400 points.
fn equivalent(a: &Expr, b: &Expr, vars: &[(Var, i64, i64)], rng: &mut Rng) -> Result<(), String> {
    let cands: Vec<Vec<i64>> = vars
        .iter()
        .map(|(_, lo, hi)| candidates(*lo, *hi, rng))
        .collect();
    for trial in 0..400 {
        let point: HashMap<u64, i64> = vars
            .iter()
            .zip(&cands)
            .map(|((v, _, _), c)| {
                let i = if trial < 40 {
                    trial % c.len()
                } else {
                    (rng.next() as usize) % c.len()
                };
                (v.id(), c[i])
            })
            .collect();
        let env = |v: &Var| point.get(&v.id()).copied();
        let Ok(x) = a.eval(&env) else { continue };
        match b.eval(&env) {
            Ok(y) if y == x => {}
            Ok(y) => {
                let at: Vec<String> = vars
                    .iter()
                    .map(|(v, _, _)| format!("{}={}", v.name(), point[&v.id()]))
                    .collect();
                return Err(format!(
                    "input gives {x}, result gives {y} at {}",
                    at.join(" ")
                ));
            }
            Err(e) => return Err(format!("result undefined where input is {x}: {e}")),
        }
    }
    Ok(())
}

#[test]
fn tvm_simplifier_cases() {
    let Some(path) = corpus() else {
        println!("note: shared/conformance is absent; skipping the TVM simplifier corpus");
        return;
    };
    let cases = load(&path);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut equivalent_n, mut no_larger, mut smaller_than_tvm, mut errors) = (0, 0, 0, 0);
    let mut report = String::new();
    let mut wrong = Vec::new();
    for c in &cases {
        let mut scope = Scope::new();
        let input = arith::parse_in(&c.input, &mut scope).expect("corpus input parses");
        let mut an = Analyzer::new();
        let mut vars = Vec::new();
        for (name, lo, hi) in &c.ranges {
            let v = scope.get_or_create(name);
            an.bind(&v, Range::half_open(Expr::int(*lo), Expr::int(*hi)));
            vars.push((v, *lo, *hi));
        }
        let expected = arith::parse_in(&c.expected, &mut scope).expect("expected form parses");
        let tvm = arith::parse_in(&c.tvm, &mut scope).expect("TVM form parses");
        let out = match an.simplify(&input) {
            Ok(o) => o,
            Err(e) => {
                errors += 1;
                wrong.push(format!("{}: {} -> error {e}", c.id, c.input));
                continue;
            }
        };
        match equivalent(&input, &out, &vars, &mut rng) {
            Ok(()) => equivalent_n += 1,
            Err(why) => {
                wrong.push(format!("{}: {} -> {out}: {why}", c.id, c.input));
                continue;
            }
        }
        let n = out.node_count();
        if n <= expected.node_count() {
            no_larger += 1;
        } else {
            let _ = writeln!(
                report,
                "{}: {}  =>  {} ({n} nodes); TVM expects {} ({} nodes)",
                c.id,
                c.input,
                out,
                c.expected,
                expected.node_count()
            );
        }
        if n < tvm.node_count() {
            smaller_than_tvm += 1;
        }
    }
    let total = cases.len();
    let pct = |k: usize| 100.0 * k as f64 / total.max(1) as f64;
    println!("TVM simplifier corpus ({total} cases):");
    println!(
        "  equivalent to the input:          {equivalent_n}/{total} ({:.1}%)",
        pct(equivalent_n)
    );
    println!(
        "  no larger than TVM's expectation: {no_larger}/{total} ({:.1}%)",
        pct(no_larger)
    );
    println!(
        "  strictly smaller than TVM 0.27:   {smaller_than_tvm}/{total} ({:.1}%)",
        pct(smaller_than_tvm)
    );
    println!("  errors:                           {errors}");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/conformance");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("tvm_simplify.txt"), &report);
    for w in &wrong {
        println!("  WRONG {w}");
    }
    assert!(
        wrong.is_empty(),
        "{} results are not equivalent to their input",
        wrong.len()
    );
    assert!(
        pct(no_larger) >= 90.0,
        "only {:.1}% no larger than TVM's expectation",
        pct(no_larger)
    );
}
