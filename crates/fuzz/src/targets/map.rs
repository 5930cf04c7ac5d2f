//! `map`: XLA indexing maps in XLA's text form, generated (index-like
//! results over dimensions and range variables, constraints) and sometimes
//! mutated, parsed and simplified.
//!
//! Oracles: the simplified map is semantically equal to the parsed one (by
//! enumeration of the domain), and the printed map parses back to a map
//! semantically equal to it.

use super::{Failure, Target};
use crate::mutate::mutate;
use crate::rng::Rng;
use indexing::{semantically_equal, IndexingMap};

/// The indexing-map target.
pub struct MapTarget;

/// Enumeration budget per comparison; larger maps are skipped.
const LIMIT: u64 = 50_000;

const TOKENS: &[&str] = &[
    " + ",
    " - ",
    " * ",
    " floordiv ",
    " mod ",
    " ceildiv ",
    "(",
    ")",
    "min(",
    "max(",
    ", ",
    " in ",
    "[0, 3]",
    "d0",
    "s0",
    "rt0",
    "domain: ",
    "->",
    "-9223372036854775808",
    "KNOWN EMPTY",
];

fn constant(rng: &mut Rng) -> i64 {
    match rng.below(16) {
        0 => *rng.pick(&[i64::MAX, i64::MIN, 1 << 62, -(1 << 62)]),
        1..=4 => *rng.pick(&[2, 4, 8, 16, 3, 6, 32]),
        _ => rng.range(-8, 16),
    }
}

/// A divisor: rarely zero (which leaves the map undefined).
fn divisor(rng: &mut Rng) -> i64 {
    match constant(rng) {
        0 if rng.chance(90) => 4,
        c => c,
    }
}

fn expr(rng: &mut Rng, vars: &[String], depth: u32) -> String {
    if depth == 0 || rng.chance(20) {
        return if rng.chance(75) {
            rng.pick(vars).clone()
        } else {
            constant(rng).to_string()
        };
    }
    let d = depth - 1;
    match rng.below(10) {
        0..=2 => {
            let n = 1 + rng.index(3);
            let mut parts: Vec<String> = (0..n)
                .map(|_| format!("{} * {}", expr(rng, vars, d), constant(rng)))
                .collect();
            if rng.chance(50) {
                parts.push(constant(rng).to_string());
            }
            format!("({})", parts.join(" + "))
        }
        3 | 4 => format!("({} mod {})", expr(rng, vars, d), divisor(rng)),
        5 | 6 => format!("({} floordiv {})", expr(rng, vars, d), divisor(rng)),
        7 => format!("({} ceildiv {})", expr(rng, vars, d), divisor(rng)),
        8 => format!(
            "{}({}, {})",
            rng.pick(&["min", "max"]),
            expr(rng, vars, d),
            expr(rng, vars, d)
        ),
        _ => format!(
            "({} {} {})",
            expr(rng, vars, d),
            rng.pick(&["+", "-", "*"]),
            expr(rng, vars, d)
        ),
    }
}

impl Target for MapTarget {
    fn name(&self) -> &'static str {
        "map"
    }

    fn extension(&self) -> &'static str {
        "map"
    }

    fn generate(&self, rng: &mut Rng) -> String {
        let dims: Vec<String> = (0..1 + rng.index(3)).map(|i| format!("d{i}")).collect();
        let syms: Vec<String> = (0..rng.index(3)).map(|i| format!("s{i}")).collect();
        let all: Vec<String> = dims.iter().chain(&syms).cloned().collect();
        let depth = 1 + rng.below(4) as u32;
        let results: Vec<String> = (0..1 + rng.index(3))
            .map(|_| expr(rng, &all, depth))
            .collect();
        let mut bounds: Vec<String> = Vec::new();
        for v in &all {
            let lo = if rng.chance(85) { 0 } else { rng.range(-4, 4) };
            let hi = lo + rng.range(0, 7);
            bounds.push(format!("{v} in [{lo}, {hi}]"));
        }
        for _ in 0..rng.index(5).saturating_sub(2) {
            let lo = rng.range(-4, 8);
            let hi = lo + rng.range(0, 10);
            bounds.push(format!("{} in [{lo}, {hi}]", expr(rng, &all, 2)));
        }
        let syms_text = if syms.is_empty() {
            String::new()
        } else {
            format!("[{}]", syms.join(", "))
        };
        let text = format!(
            "({}){} -> ({}), domain: {}",
            dims.join(", "),
            syms_text,
            results.join(", "),
            bounds.join(", ")
        );
        if rng.chance(25) {
            mutate(&text, TOKENS, rng)
        } else {
            text
        }
    }

    fn check(&self, input: &str) -> Result<bool, Failure> {
        let Ok(map) = IndexingMap::parse(input) else {
            return Ok(false);
        };
        // Only inputs defined everywhere are compared: a constant zero
        // divisor leaves the map undefined, and any answer is then right.
        let exprs = map
            .results()
            .iter()
            .chain(map.constraints().iter().map(|c| &c.expr));
        if exprs.clone().any(divides_by_zero) || !defined_on_box(&map) {
            return Ok(true);
        }
        let printed = map.to_string();
        match IndexingMap::parse(&printed) {
            Ok(back) => {
                if let Ok(false) = semantically_equal(&map, &back, LIMIT) {
                    return Err(Failure::new(
                        "roundtrip",
                        format!("printed as `{printed}`, which parses to a different map"),
                    ));
                }
            }
            Err(e) => {
                return Err(Failure::new(
                    "roundtrip",
                    format!("printed as `{printed}`, which does not parse: {e}"),
                ))
            }
        }
        let mut simplified = map.clone();
        simplified.simplify();
        if let Ok(false) = semantically_equal(&map, &simplified, LIMIT) {
            return Err(Failure::new(
                "unsound",
                format!("`{map}` simplified to `{simplified}`, which differs"),
            ));
        }
        Ok(true)
    }
}

/// Whether `e` divides by the constant zero somewhere.
fn divides_by_zero(e: &arith::Expr) -> bool {
    use arith::ExprKind::*;
    let mut pending = vec![e];
    while let Some(e) = pending.pop() {
        if let FloorDiv(_, d) | FloorMod(_, d) | CeilDiv(_, d) = e.kind() {
            if d.is_int(0) {
                return true;
            }
        }
        pending.extend(e.children());
    }
    false
}

/// Whether every result and constraint has a value (no overflow, no
/// division by zero) at every point of the box of variable ranges; maps
/// too large to enumerate count as undefined (they are not compared).
fn defined_on_box(map: &IndexingMap) -> bool {
    let vars: Vec<(arith::Var, i64, i64)> = map
        .all_vars()
        .map(|v| (v.var().clone(), v.bounds().lower, v.bounds().upper))
        .collect();
    let size = vars.iter().try_fold(1u64, |n, (_, lo, hi)| {
        let len = u64::try_from((*hi as i128 - *lo as i128 + 1).max(0)).ok()?;
        n.checked_mul(len).filter(|&n| n <= LIMIT)
    });
    if size.is_none() {
        return false;
    }
    let exprs: Vec<&arith::Expr> = map
        .results()
        .iter()
        .chain(map.constraints().iter().map(|c| &c.expr))
        .collect();
    let mut point: Vec<i64> = vars.iter().map(|(_, lo, _)| *lo).collect();
    if vars.iter().any(|(_, lo, hi)| lo > hi) {
        return true;
    }
    loop {
        let env = |v: &arith::Var| vars.iter().position(|(w, ..)| w == v).map(|i| point[i]);
        if exprs.iter().any(|e| e.eval(&env).is_err()) {
            return false;
        }
        // Next point, last variable fastest.
        let mut k = vars.len();
        loop {
            if k == 0 {
                return true;
            }
            k -= 1;
            if point[k] < vars[k].2 {
                point[k] += 1;
                break;
            }
            point[k] = vars[k].1;
        }
    }
}
