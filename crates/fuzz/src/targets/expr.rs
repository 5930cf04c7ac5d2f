//! `expr`: expression text, generated to look like index code (sums of
//! scaled variables plus constants under `%` and `//`, nested, min/max,
//! select, comparisons, values near the ends of `i64`), sometimes mutated
//! into garbage, parsed and simplified under small random ranges.
//!
//! Oracles: the printed input parses back to the same tree; on every point
//! of the (small) range box where the input is defined, the simplified
//! expression is defined and equal, and the constant bounds contain the
//! value.

use super::{Failure, Target};
use crate::mutate::mutate;
use crate::rng::Rng;
use arith::{Analyzer, Expr, Scope, Type, Var, NEG_INF, POS_INF};

/// The expression target.
pub struct ExprTarget;

const VARS: [&str; 3] = ["x", "y", "z"];

const TOKENS: &[&str] = &[
    " + ",
    " - ",
    " * ",
    " // ",
    " % ",
    "(",
    ")",
    "min(",
    "max(",
    "select(",
    ", ",
    " < ",
    " == ",
    " and ",
    " or ",
    "not ",
    "-",
    "x",
    "y",
    "z",
    "9223372036854775807",
    "-9223372036854775808",
    "ceildiv(",
    "True",
    "é",
];

/// A constant: mostly small, sometimes near the ends of `i64`.
fn constant(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => rng
            .pick(&[
                i64::MAX,
                i64::MIN,
                i64::MAX - 1,
                i64::MIN + 1,
                1 << 62,
                -(1 << 62),
            ])
            .to_string(),
        1 => rng.range(-1 << 31, 1 << 31).to_string(),
        2..=5 => (*rng.pick(&[2, 4, 8, 16, 3, 6, 32, 64])).to_string(),
        _ => rng.range(-9, 16).to_string(),
    }
}

/// The scale of a term: what strides look like.
fn scale(rng: &mut Rng) -> String {
    if rng.chance(80) {
        (*rng.pick(&[1, 2, 3, 4, 8, 16, -1, -2, -4, 6])).to_string()
    } else {
        constant(rng)
    }
}

/// A divisor: mostly a small power of two, as tile sizes are.
fn modulus(rng: &mut Rng) -> String {
    if rng.chance(80) {
        (*rng.pick(&[2, 4, 8, 16, 3, 6, -4, -8])).to_string()
    } else {
        constant(rng)
    }
}

/// An index-like integer expression of roughly `depth` levels.
fn int_expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.chance(15) {
        return if rng.chance(70) {
            rng.pick(&VARS).to_string()
        } else {
            constant(rng)
        };
    }
    let d = depth - 1;
    match rng.below(14) {
        // the everyday index pattern: strides, an offset and a tile size
        // sharing a factor, `(x * 2 + y * 8 + 2) % 16`
        12 | 13 => {
            let g = *rng.pick(&[1, 2, 4, 3]);
            let n = 1 + rng.index(3);
            let mut parts: Vec<String> = (0..n)
                .map(|_| {
                    let atom = if rng.chance(80) {
                        rng.pick(&VARS).to_string()
                    } else {
                        int_expr(rng, d)
                    };
                    format!(
                        "{atom} * {}",
                        g * rng.range(1, 4) * if rng.chance(15) { -1 } else { 1 }
                    )
                })
                .collect();
            if rng.chance(70) {
                parts.push((g * rng.range(-2, 4)).to_string());
            }
            let m = g * *rng.pick(&[2, 4, 8, 3]);
            format!("({}) {} {m}", parts.join(" + "), rng.pick(&["%", "//"]))
        }
        // sum of scaled variables plus a constant, as index code has
        0..=2 => {
            let n = 1 + rng.index(3);
            let mut parts: Vec<String> = (0..n)
                .map(|_| {
                    let atom = if rng.chance(70) {
                        rng.pick(&VARS).to_string()
                    } else {
                        int_expr(rng, d)
                    };
                    format!("{atom} * {}", scale(rng))
                })
                .collect();
            if rng.chance(60) {
                parts.push(constant(rng));
            }
            format!("({})", parts.join(" + "))
        }
        3 | 4 => format!("({} % {})", int_expr(rng, d), modulus(rng)),
        5 | 6 => format!("({} // {})", int_expr(rng, d), modulus(rng)),
        7 => format!(
            "{}({}, {})",
            rng.pick(&["min", "max"]),
            int_expr(rng, d),
            int_expr(rng, d)
        ),
        8 => format!(
            "select({}, {}, {})",
            bool_expr(rng, d),
            int_expr(rng, d),
            int_expr(rng, d)
        ),
        9 => format!(
            "({} {} {})",
            int_expr(rng, d),
            rng.pick(&["+", "-", "*", "%", "//"]),
            int_expr(rng, d)
        ),
        10 => format!("ceildiv({}, {})", int_expr(rng, d), constant(rng)),
        _ => format!("-{}", int_expr(rng, d)),
    }
}

fn bool_expr(rng: &mut Rng, depth: u32) -> String {
    let d = depth.saturating_sub(1);
    match rng.below(6) {
        0 => format!("({} and {})", bool_expr(rng, d), bool_expr(rng, d)),
        1 => format!("({} or {})", bool_expr(rng, d), bool_expr(rng, d)),
        2 => format!("not {}", bool_expr(rng, d)),
        _ => format!(
            "{} {} {}",
            int_expr(rng, d),
            rng.pick(&["<", "<=", ">", ">=", "==", "!="]),
            int_expr(rng, d)
        ),
    }
}

/// A range for one variable: `lo:hi` half-open, small, sometimes near the
/// ends of `i64`.
fn range(rng: &mut Rng) -> (i64, i64) {
    let extent = 1 + rng.range(0, 5);
    let lo = match rng.below(12) {
        0 => i64::MAX - extent - rng.range(0, 2),
        1 => i64::MIN + rng.range(0, 2),
        2 => (1 << 62) - rng.range(0, 3),
        3..=7 => 0,
        _ => rng.range(-8, 8),
    };
    (lo, lo + extent)
}

impl Target for ExprTarget {
    fn name(&self) -> &'static str {
        "expr"
    }

    fn extension(&self) -> &'static str {
        "batch"
    }

    /// A batch line: `EXPR | x=LO:HI y=LO:HI z=LO:HI`.
    fn generate(&self, rng: &mut Rng) -> String {
        let depth = 1 + rng.below(5) as u32;
        let mut e = if rng.chance(85) {
            int_expr(rng, depth)
        } else {
            bool_expr(rng, depth)
        };
        if rng.chance(3) {
            // A long flat chain (longer ones are in `arith`'s tests; the
            // simplifier's time on them grows faster than linearly).
            let n = 1 + rng.index(400);
            let sep = *rng.pick(&[" + ", " - ", " * ", " and "]);
            e = vec![e.as_str(); n].join(sep);
        }
        if rng.chance(25) {
            e = mutate(&e, TOKENS, rng);
        }
        let ranges: Vec<String> = VARS
            .iter()
            .map(|v| {
                let (lo, hi) = range(rng);
                format!("{v}={lo}:{hi}")
            })
            .collect();
        // Keep the line one line.
        format!("{} | {}", e.replace('\n', " "), ranges.join(" "))
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let (text, ranges) = input.rsplit_once(" | ").unwrap_or((input, ""));
        let mut scope = Scope::new();
        let Ok(e) = arith::parse_in(text, &mut scope) else {
            return Ok(false);
        };
        // The printer's contract: what is printed parses back to the tree.
        let printed = e.to_string();
        match arith::parse_in(&printed, &mut scope) {
            Ok(back) if back == e => {}
            Ok(back) => {
                return Err(Failure::new(
                    "roundtrip",
                    format!("`{printed}` parses back as `{back}`"),
                ))
            }
            Err(err) => {
                return Err(Failure::new(
                    "roundtrip",
                    format!("printed `{printed}` does not parse: {err}"),
                ))
            }
        }
        let Ok(specs) = arith::parse_range_specs(ranges, &mut scope) else {
            return Ok(false);
        };
        let mut an = Analyzer::new();
        for (v, r) in &specs {
            an.bind(v, r.clone());
        }
        let Ok(simplified) = an.simplify(&e) else {
            // An error (overflow, division by zero) is an answer.
            return Ok(true);
        };
        if simplified.ty() != e.ty() {
            return Err(Failure::new(
                "type",
                format!(
                    "`{e}` ({:?}) became `{simplified}` ({:?})",
                    e.ty(),
                    simplified.ty()
                ),
            ));
        }
        let bound = an.const_int_bound(&e);
        let vars: Vec<(Var, i64, i64)> = specs
            .iter()
            .filter_map(|(v, r)| {
                let lo = r.min.as_int()?;
                let hi = lo.checked_add(r.extent.as_int()?)?;
                Some((v.clone(), lo, hi))
            })
            .collect();
        if vars.len() != specs.len() || e.vars().iter().any(|v| !vars.iter().any(|(w, ..)| w == v))
        {
            return Ok(true);
        }
        let mut point = vec![0i64; vars.len()];
        check_box(&vars, 0, &mut point, &e, &simplified, bound, e.ty())?;
        Ok(true)
    }
}

fn check_box(
    vars: &[(Var, i64, i64)],
    k: usize,
    point: &mut Vec<i64>,
    e: &Expr,
    s: &Expr,
    bound: arith::ConstBound,
    ty: Type,
) -> Result<(), Failure> {
    if k < vars.len() {
        let (_, lo, hi) = vars[k];
        let mut v = lo;
        while v < hi {
            point[k] = v;
            check_box(vars, k + 1, point, e, s, bound, ty)?;
            v += 1;
        }
        return Ok(());
    }
    let env = |v: &Var| vars.iter().position(|(w, ..)| w == v).map(|i| point[i]);
    let at = || {
        vars.iter()
            .zip(point.iter())
            .map(|((v, ..), x)| format!("{v}={x}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Ok(want) = e.eval(&env) else {
        return Ok(());
    };
    match s.eval(&env) {
        Ok(got) if got == want => {}
        Ok(got) => {
            return Err(Failure::new(
                "unsound",
                format!(
                    "`{e}` simplified to `{s}`: at {} the input is {want}, the result {got}",
                    at()
                ),
            ))
        }
        Err(err) => {
            return Err(Failure::new(
                "undefined",
                format!(
                    "`{e}` simplified to `{s}`: at {} the input is {want}, the result fails: {err}",
                    at()
                ),
            ))
        }
    }
    let lo_ok = bound.min == NEG_INF || bound.min <= want;
    let hi_ok = bound.max == POS_INF || want <= bound.max;
    if ty == Type::Int && !(lo_ok && hi_ok) {
        return Err(Failure::new(
            "bound",
            format!(
                "`{e}`: bound [{}, {}] misses the value {want} at {}",
                bound.min,
                bound.max,
                at()
            ),
        ));
    }
    Ok(())
}
