//! What the script tests share: running a script and checking the program
//! it lowered last against the definitions (`te::check`).

use std::collections::HashMap;

/// Runs `src` and checks the program it lowered last against the
/// definitions, every symbolic size at `size` and the inputs drawn with
/// `seed`, to within `tolerance`; returns what the script printed.
#[allow(dead_code)]
pub fn run_checked(src: &str, size: i64, seed: u64, tolerance: f64) -> String {
    let run = script::run(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let target = run.target.expect("a schedule");
    let sizes = target
        .schedule
        .symbolic_sizes()
        .into_iter()
        .map(|v| (v, size))
        .collect::<HashMap<_, _>>();
    let report =
        te::check(&target.schedule, &target.args, &sizes, seed).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(report.is_clean(tolerance), "{report:?}\n{}", run.printed);
    assert!(report.not_evaluable.is_empty(), "{report:?}");
    run.printed
}

/// The error `src` stops with: line, column and message.
#[allow(dead_code)]
pub fn error_of(src: &str) -> (usize, usize, String) {
    match script::run(src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => (e.line, e.column, e.message),
    }
}

/// Runs `src`, which must run.
#[allow(dead_code)]
pub fn run(src: &str) -> script::ScriptRun {
    script::run(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The message of the error `src` stops with.
#[allow(dead_code)]
pub fn error_message(src: &str) -> String {
    match script::run(src) {
        Ok(r) => panic!("ran without an error:\n{src}\n{}", r.printed),
        Err(e) => e.message,
    }
}
