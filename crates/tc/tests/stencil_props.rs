//! Random 1-d and 2-d stencil-like programs (affine indices with strides,
//! offsets, reversed indices, kernels, `where` clauses): at concrete sizes
//! every inferred range never reads out of bounds, and is maximal: one more
//! value at either end reads out of bounds (for some values of the other
//! variables) or leaves a `where` range. Checked by enumeration against the
//! generator's own description of the accesses.

use proptest::prelude::*;
use std::collections::HashMap;

/// One dimension of an access: `coef * v + r + konst` (`r` optional).
#[derive(Clone, Debug)]
struct IndexTerm {
    coef: i64,
    var: usize,
    red: Option<usize>,
    konst: i64,
}

#[derive(Clone, Debug)]
enum RedSource {
    /// `K_d(r_d)` with size `L_d`.
    Kernel,
    /// `where r_d in 0:w`.
    Where(i64),
}

#[derive(Clone, Debug)]
struct Program {
    dims: usize,
    reds: Vec<Option<RedSource>>,
    accesses: Vec<Vec<IndexTerm>>,
    /// `where v_d in lo:hi` on output variables.
    lhs_where: Vec<Option<(i64, i64)>>,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}

const VARS: [&str; 2] = ["i", "j"];
const REDS: [&str; 2] = ["r", "s"];

fn generate(seed: u64) -> Program {
    let mut g = Rng(seed | 1);
    let dims = g.int(1, 2) as usize;
    let reds = (0..dims)
        .map(|_| match g.int(0, 3) {
            0 | 1 => None,
            2 => Some(RedSource::Kernel),
            _ => Some(RedSource::Where(g.int(1, 3))),
        })
        .collect::<Vec<_>>();
    let n_acc = g.int(1, 2) as usize;
    let accesses = (0..n_acc)
        .map(|_| {
            (0..dims)
                .map(|d| IndexTerm {
                    coef: [1, 1, 2, 3, -1][g.int(0, 4) as usize],
                    var: d,
                    red: if reds[d].is_some() && g.int(0, 2) > 0 {
                        Some(d)
                    } else {
                        None
                    },
                    konst: g.int(-2, 2),
                })
                .collect()
        })
        .collect::<Vec<Vec<IndexTerm>>>();
    let lhs_where = (0..dims)
        .map(|_| {
            if g.int(0, 5) == 0 {
                let lo = g.int(-1, 2);
                Some((lo, lo + g.int(0, 5)))
            } else {
                None
            }
        })
        .collect();
    let mut p = Program {
        dims,
        reds,
        accesses,
        lhs_where,
    };
    // Every reduction variable is used by some access.
    for d in 0..dims {
        if p.reds[d].is_some() && !p.accesses.iter().any(|a| a[d].red == Some(d)) {
            p.accesses[0][d].red = Some(d);
        }
    }
    p
}

fn source(p: &Program) -> String {
    let sizes: Vec<String> = (0..p.dims).map(|d| format!("N{d}")).collect();
    let mut params = vec![format!("float({}) A", sizes.join(", "))];
    let mut wheres = Vec::new();
    let mut factors = Vec::new();
    for (d, r) in p.reds.iter().enumerate() {
        match r {
            Some(RedSource::Kernel) => {
                params.push(format!("float(L{d}) K{d}"));
                factors.push(format!("K{d}({})", REDS[d]));
            }
            Some(RedSource::Where(w)) => wheres.push(format!("{} in 0:{w}", REDS[d])),
            None => {}
        }
    }
    for (d, w) in p.lhs_where.iter().enumerate() {
        if let Some((lo, hi)) = w {
            wheres.push(format!("{} in {lo}:{hi}", VARS[d]));
        }
    }
    for a in &p.accesses {
        let idx: Vec<String> = a
            .iter()
            .map(|t| {
                let mut s = match t.coef {
                    1 => VARS[t.var].to_string(),
                    -1 => format!("-{}", VARS[t.var]),
                    c => format!("{c}*{}", VARS[t.var]),
                };
                if let Some(r) = t.red {
                    s += &format!(" + {}", REDS[r]);
                }
                if t.konst != 0 {
                    s += &format!(" + {}", t.konst);
                }
                s
            })
            .collect();
        factors.push(format!("A({})", idx.join(", ")));
    }
    let lhs: Vec<&str> = VARS[..p.dims].to_vec();
    let op = if p.reds.iter().any(Option::is_some) {
        "+=!"
    } else {
        "="
    };
    let w = if wheres.is_empty() {
        String::new()
    } else {
        format!(" where {}", wheres.join(", "))
    };
    format!(
        "def f({}) -> (O) {{ O({}) {op} {}{w} }}",
        params.join(", "),
        lhs.join(", "),
        factors.join(" * ")
    )
}

/// Whether every access is in bounds and every `where` holds at `point`
/// (values of i, j, r, s).
fn valid(p: &Program, sizes: &HashMap<String, i64>, point: &HashMap<&str, i64>) -> bool {
    for a in &p.accesses {
        for (d, t) in a.iter().enumerate() {
            let mut x = t.coef * point[VARS[t.var]] + t.konst;
            if let Some(r) = t.red {
                x += point[REDS[r]];
            }
            if x < 0 || x >= sizes[&format!("N{d}")] {
                return false;
            }
        }
    }
    for (d, r) in p.reds.iter().enumerate() {
        let Some(&v) = point.get(REDS[d]) else {
            continue;
        };
        match r {
            Some(RedSource::Kernel) if v < 0 || v >= sizes[&format!("L{d}")] => return false,
            Some(RedSource::Where(w)) if v < 0 || v >= *w => return false,
            _ => {}
        }
    }
    for (d, w) in p.lhs_where.iter().enumerate() {
        if let Some((lo, hi)) = w {
            let v = point[VARS[d]];
            if v < *lo || v >= *hi {
                return false;
            }
        }
    }
    true
}

/// Every point of the box `ranges` (name -> [lo, hi)).
fn points<'a>(ranges: &[(&'a str, i64, i64)]) -> Vec<HashMap<&'a str, i64>> {
    let mut out = vec![HashMap::new()];
    for (n, lo, hi) in ranges {
        let mut next = Vec::new();
        for p in &out {
            for v in *lo..*hi {
                let mut q = p.clone();
                q.insert(*n, v);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// Checks one program; `Ok(true)` when the full check (safety and
/// maximality) ran.
fn check(seed: u64, size_seed: u64) -> Result<bool, TestCaseError> {
    let p = generate(seed);
    let src = source(&p);
    let a = tc::analyze(&src);
    prop_assert!(a.syntax_error.is_none(), "{src}");
    let d = &a.defs[0];
    let errors: Vec<_> = d
        .all_diagnostics()
        .into_iter()
        .filter(|x| x.severity == tc::Severity::Error)
        .collect();
    // The only errors: accesses that always read out of bounds, and
    // variables no value of which satisfies its accesses (TC's "inferred an
    // empty range"; two accesses such as `A(1 - i)` and `A(i - 2)`).
    prop_assert!(
        errors
            .iter()
            .all(|e| e.message.contains("reads out of bounds") || e.message.contains("empty range")),
        "{src}: {errors:?}"
    );
    if errors.iter().any(|e| e.message.contains("empty range")) {
        return Ok(false);
    }
    let mut g = Rng(size_seed | 1);
    let sizes: HashMap<String, i64> = d
        .sizes
        .iter()
        .map(|(n, _)| (n.clone(), g.int(2, 12)))
        .collect();
    let c = tc::bind_sizes(d, &sizes);
    let broken_here = c
        .diagnostics
        .iter()
        .any(|x| x.severity == tc::Severity::Error);
    let ranges: Vec<(&str, i64, i64, bool)> = d.stmts[0]
        .ranges
        .iter()
        .zip(&c.ranges[0])
        .map(|(r, v)| {
            let (lo, hi) = v.expect("ranges evaluate");
            (r.name.as_str(), lo, hi, r.from_where)
        })
        .collect();
    prop_assert_eq!(
        ranges.len(),
        p.dims + p.reds.iter().flatten().count(),
        "{}",
        src
    );
    let bx: Vec<(&str, i64, i64)> = ranges.iter().map(|r| (r.0, r.1, r.2)).collect();
    if bx.iter().any(|(_, lo, hi)| hi <= lo) {
        return Ok(false);
    }
    // An error for these sizes: then some point of the ranges is invalid.
    if broken_here {
        let bad = points(&bx).iter().any(|pt| !valid(&p, &sizes, pt));
        prop_assert!(
            bad,
            "{src} with {sizes:?}: reported out of bounds, but every point is valid"
        );
        return Ok(false);
    }
    // Never out of bounds.
    for pt in points(&bx) {
        prop_assert!(
            valid(&p, &sizes, &pt),
            "{src} with {sizes:?}: {pt:?} is invalid; ranges {bx:?}"
        );
    }
    // Maximal: one more value at either end breaks something.
    for (k, (name, lo, hi, _)) in ranges.iter().enumerate() {
        for edge in [lo - 1, *hi] {
            let mut b2 = bx.clone();
            b2[k] = (name, edge, edge + 1);
            let broken = points(&b2).iter().any(|pt| !valid(&p, &sizes, pt));
            prop_assert!(
                broken,
                "{src} with {sizes:?}: `{name}` = {edge} is valid too; ranges {bx:?}"
            );
        }
    }
    Ok(true)
}

/// The generator is not vacuous: most programs get the full check.
#[test]
fn most_programs_are_fully_checked() {
    let full = (0..300u64)
        .filter(|&k| check(k * 7919 + 1, k * 104729 + 3).expect("property holds"))
        .count();
    assert!(full >= 120, "only {full} of 300 fully checked");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn inferred_ranges_are_safe_and_maximal(seed in any::<u64>(), size_seed in any::<u64>()) {
        check(seed, size_seed)?;
    }
}
