//! Helpers shared by the tests.
#![allow(dead_code)]

use std::collections::HashMap;
use tc::{Analysis, DefAnalysis, Severity};

/// The analysis of a source that must parse.
pub fn analyze(src: &str) -> Analysis {
    let a = tc::analyze(src);
    assert!(a.syntax_error.is_none(), "{src}: {:?}", a.syntax_error);
    a
}

/// `lower <= var < upper` for every range of statement `stmt`.
pub fn ranges(d: &DefAnalysis, stmt: usize) -> Vec<String> {
    d.stmts[stmt]
        .ranges
        .iter()
        .map(|r| format!("{} <= {} < {}", r.lower, r.name, r.upper))
        .collect()
}

/// The shape of output `name`, printed.
pub fn shape(d: &DefAnalysis, name: &str) -> Vec<String> {
    let o = d
        .outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no output {name}"));
    o.shape.iter().map(|e| e.to_string()).collect()
}

/// The messages of the diagnostics of `severity`.
pub fn messages(d: &DefAnalysis, severity: Severity) -> Vec<String> {
    d.all_diagnostics()
        .into_iter()
        .filter(|x| x.severity == severity)
        .map(|x| x.message)
        .collect()
}

/// Whether `got` (an expression over the sizes of `d`) equals `want`
/// (arith syntax over the same names) at many values of the sizes.
pub fn same_value(d: &DefAnalysis, got: &arith::Expr, want: &str) -> bool {
    let mut scope = arith::Scope::new();
    for (_, v) in &d.sizes {
        scope.insert(v.clone());
    }
    let want = arith::parse_in(want, &mut scope).unwrap_or_else(|e| panic!("{want}: {e:?}"));
    let mut seed: u64 = 12345;
    for _ in 0..300 {
        let env: HashMap<arith::Var, i64> = d
            .sizes
            .iter()
            .map(|(_, v)| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (v.clone(), 1 + ((seed >> 33) % 60) as i64)
            })
            .collect();
        let f = |v: &arith::Var| env.get(v).copied();
        match (got.eval(&f), want.eval(&f)) {
            (Ok(a), Ok(b)) if a != b => return false,
            (Ok(_), Err(_)) | (Err(_), Ok(_)) => return false,
            _ => {}
        }
    }
    true
}

/// Checks TC's `mins`/`extents` of output `name` by value.
pub fn check_output(d: &DefAnalysis, name: &str, mins: &[&str], extents: &[&str]) {
    let o = d
        .outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("{}: no output {name}: {:?}", d.name, d.all_diagnostics()));
    assert_eq!(o.lower.len(), mins.len(), "{name}");
    for (k, (got, want)) in o.lower.iter().zip(mins).enumerate() {
        assert!(
            same_value(d, got, want),
            "{name} min {k}: got {got}, want {want}"
        );
    }
    for (k, (got, want)) in o.shape.iter().zip(extents).enumerate() {
        assert!(
            same_value(d, got, want),
            "{name} extent {k}: got {got}, want {want}"
        );
    }
}
