//! Real TC programs: the examples under `examples/tc/` and the example
//! programs of the TC repository (read from the shared conformance corpus,
//! see `common/repository.rs`) parse and infer without errors; run on
//! concrete sizes, none reads out of bounds and, lowered to te and
//! interpreted, all equal direct evaluation.

mod common;
#[path = "common/repository.rs"]
mod repository;
use common::*;
use std::collections::HashMap;
use tc::Severity;

const TOLERANCE: f64 = 1e-4;

/// Whether `name` is a built-in without an exact reference implementation
/// (no intrinsic): neither direct evaluation nor the lowered program can run
/// a definition calling it.
fn unevaluated(name: &str) -> bool {
    tir::Intrinsic::from_name(name).is_none()
}

/// Runs every definition at the first of a few uniform sizes that keeps
/// every precondition, asserting that it lowers to te and equals direct
/// evaluation; returns how many ran.
fn run_all(src: &str) -> usize {
    let a = analyze(src);
    let mut ran = 0;
    for (d, ast) in a.defs.iter().zip(&a.program.defs) {
        let e = messages(d, Severity::Error);
        assert!(e.is_empty(), "{}: {e:?}", d.name);
        let own_warnings = messages(d, Severity::Warning);
        for n in [5i64, 6, 7, 9, 12] {
            let sizes: HashMap<String, i64> = d.sizes.iter().map(|(s, _)| (s.clone(), n)).collect();
            // Sizes that keep every precondition: no error, and no warning
            // beyond the definition's own (such as a `+=` without `!`).
            let c = tc::bind_sizes(d, &sizes);
            if c.diagnostics.iter().any(|x| {
                x.severity == Severity::Error
                    || x.severity == Severity::Warning && !own_warnings.contains(&x.message)
            }) {
                continue;
            }
            let r = match tc::lower::run(ast, d, &sizes, 7) {
                Ok(r) => r,
                // Built-ins without a reference implementation, and
                // constant sizes too large to evaluate in a test.
                Err(e)
                    if tc::sema::BUILTINS
                        .iter()
                        .any(|(b, _)| unevaluated(b) && e.message.contains(&format!("`{b}`")))
                        || ["steps", "too large"].iter().any(|m| e.message.contains(m)) =>
                {
                    break
                }
                Err(e) => panic!("{} at {n}: {e:?}", d.name),
            };
            assert!(
                r.max_abs_error <= TOLERANCE,
                "{} at size {n}: {r:?}",
                d.name
            );
            // Reads at data-dependent indices depend on the random values;
            // such definitions carry a note saying so.
            let data_dependent = !messages(d, Severity::Note).is_empty();
            assert!(
                r.out_of_bounds == 0 || data_dependent,
                "{} at size {n}: {r:?}",
                d.name
            );
            ran += 1;
            assert!(r.lowered, "{} at size {n} is not lowered: {r:?}", d.name);
            assert!(
                r.compared > 0 || d.outputs.iter().any(|o| o.shape.is_empty()),
                "{}",
                d.name
            );
            break;
        }
    }
    ran
}

#[test]
fn examples_infer_and_run() {
    let dir = format!("{}/../../examples/tc", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tc"))
        .collect();
    files.sort();
    let mut total = 0;
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&f).unwrap();
        if name.starts_with('c') && name.as_bytes()[1].is_ascii_digit() {
            continue; // C1-C10: tests/seeds.rs
        }
        let ran = run_all(&src);
        let defs = tc::analyze(&src).defs.len();
        assert_eq!(ran, defs, "{name}: every def runs");
        total += ran;
    }
    assert!(total >= 12, "{total}");
}

#[test]
fn tc_repository_programs() {
    let Some(corpus) = repository::corpus() else {
        return;
    };
    let src = repository::accepted_source(&repository::programs(&corpus));
    let a = analyze(&src);
    assert_eq!(a.defs.len(), 148, "every program TC accepts");
    for d in &a.defs {
        assert!(!d.has_errors(), "{}: {:?}", d.name, d.all_diagnostics());
        for (k, s) in d.stmts.iter().enumerate() {
            assert!(
                s.ok && !s.ranges.is_empty() || d.checked.stmts[k].vars.is_empty(),
                "{} statement {k}",
                d.name
            );
        }
    }
    let ran = run_all(&src);
    // All but two run at one of the uniform sizes: `dots` needs related
    // sizes (`KP1 = K + 1`; tests/lowering.rs runs it) and `fun` has
    // constant sizes too large to evaluate in a test. None calls a
    // built-in without an intrinsic (`unevaluated`).
    assert_eq!(ran, a.defs.len() - 2);
}

#[test]
fn rejected_repository_programs() {
    let Some(corpus) = repository::corpus() else {
        return;
    };
    let programs = repository::programs(&corpus);
    for (number, fragment) in repository::REJECTED {
        let a = analyze(repository::program(&programs, *number));
        let errors = messages(&a.defs[0], Severity::Error);
        assert!(
            errors.iter().any(|m| m.contains(fragment)),
            "#{number}: {errors:?}"
        );
    }
    for number in repository::SYNTAX_ERRORS {
        let src = repository::program(&programs, *number);
        assert!(tc::parse(src).is_err(), "#{number}: {src}");
    }
}

#[test]
fn run_reports_out_of_bounds_reads() {
    // C3 with a C too small: the program and direct evaluation both read
    // past its end.
    let src =
        "def f(float(I) B, float(K) C, float(J) D) -> (A) { A(i, j) = B(i) * C(i + j) * D(j) }";
    let a = analyze(src);
    let sizes: HashMap<String, i64> = [("I", 3), ("J", 4), ("K", 5)]
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    let r = tc::lower::run(&a.program.defs[0], &a.defs[0], &sizes, 1).unwrap();
    assert!(r.lowered);
    // (i, j) = (2, 3) reads C(5): once in direct evaluation, once in the program.
    assert_eq!(r.out_of_bounds, 2, "{r:?}");
}
