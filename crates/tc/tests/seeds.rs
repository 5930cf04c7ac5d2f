//! C1-C10 of the conformance list (seed 004), from the files under
//! `examples/tc/`, exactly as printed.

mod common;
use common::*;
use std::collections::HashMap;
use tc::Severity;

fn example(name: &str) -> tc::Analysis {
    let path = format!("{}/../../examples/tc/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    analyze(&src)
}

fn sizes(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

#[test]
fn c1_matmul() {
    let a = example("c01_matmul.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= m < M", "0 <= n < N", "0 <= r_k < K"]);
    assert_eq!(shape(d, "C"), ["M", "N"]);
    assert!(d.all_diagnostics().is_empty());
}

#[test]
fn c2_stencil_rounds() {
    let a = example("c02_stencil.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= i < N - L + 1", "0 <= k < L"]);
    assert_eq!(shape(d, "A"), ["N - L + 1"]);
    assert!(d.all_diagnostics().is_empty());
}

#[test]
fn c3_precondition_on_the_size_of_c() {
    let a = example("c03_precondition.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= i < I", "0 <= j < J"]);
    assert_eq!(shape(d, "A"), ["I", "J"]);
    // Symbolic: a warning at `C(i + j)`.
    let diags = d.all_diagnostics();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].severity, Severity::Warning);
    let src = std::fs::read_to_string(format!(
        "{}/../../examples/tc/c03_precondition.tc",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(&src[diags[0].span.range()], "C(i + j)");
    assert!(
        diags[0].message.contains("I + J <= K + 1"),
        "{}",
        diags[0].message
    );
    // Known sizes: proved when I + J - 1 <= K, an error otherwise.
    let ok = tc::bind_sizes(d, &sizes(&[("I", 3), ("J", 4), ("K", 6)]));
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let bad = tc::bind_sizes(d, &sizes(&[("I", 3), ("J", 4), ("K", 5)]));
    assert_eq!(bad.diagnostics.len(), 1);
    assert_eq!(bad.diagnostics[0].severity, Severity::Error);
    assert_eq!(bad.diagnostics[0].span, diags[0].span);
    // Constant sizes in the types: decided without `--size`.
    let c = analyze(
        "def f(float(3) B, float(6) C, float(4) D) -> (A) { A(i, j) = B(i) * C(i + j) * D(j) }",
    );
    assert!(c.defs[0].all_diagnostics().is_empty());
    let c = analyze(
        "def f(float(3) B, float(5) C, float(4) D) -> (A) { A(i, j) = B(i) * C(i + j) * D(j) }",
    );
    assert_eq!(messages(&c.defs[0], Severity::Error).len(), 1);
}

#[test]
fn c4_lookup_table_note_and_clamp() {
    let a = example("c04_lut.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= i < I"]);
    let notes = messages(d, Severity::Note);
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].contains("values of `C`") && notes[0].contains("[0, J)"),
        "{}",
        notes[0]
    );
    assert_eq!(d.all_diagnostics().len(), 1);
    let clamped = &a.defs[1];
    assert_eq!(ranges(clamped, 0), ["0 <= i < I"]);
    assert!(
        clamped.all_diagnostics().is_empty(),
        "{:?}",
        clamped.all_diagnostics()
    );
}

#[test]
fn c5_reverted_corrected() {
    let a = example("c05_reverted.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["11 - I <= i < 11"]);
    assert_eq!(shape(d, "A"), ["I"]);
}

#[test]
fn c6_subsample() {
    let a = example("c06_subsample.tc");
    assert_eq!(ranges(&a.defs[0], 0), ["0 <= i < (I + 1) // 2"]);
}

#[test]
fn c7_average_pool_intersection() {
    let a = example("c07_average_pool.tc");
    assert_eq!(ranges(&a.defs[0], 0), ["0 <= i < I // 2"]);
    assert_eq!(shape(&a.defs[0], "A"), ["I // 2"]);
}

#[test]
fn c8_average_pool_where() {
    let a = example("c08_average_pool_where.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= i < I // 2", "0 <= k < 2"]);
    assert!(d.stmts[0].ranges[1].from_where);
    assert!(d.all_diagnostics().is_empty());
    // The documentation writes it with `=`: the same ranges, and TC's
    // error for a reduction variable without a reduction.
    let doc = analyze("def average_pool_2(float(I) B) -> A { A(i) = B(2*i + k) where k in 0:2 }");
    let d = &doc.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= i < I // 2", "0 <= k < 2"]);
    let e = messages(d, Severity::Error);
    assert_eq!(e.len(), 1);
    assert!(e[0].contains("does not specify a reduction"));
}

#[test]
fn c9_dynamic_stride_needs_where() {
    let a = example("c09_dynamic_stride.tc");
    let d = &a.defs[0];
    let errors: Vec<_> = d
        .all_diagnostics()
        .into_iter()
        .filter(|x| x.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1);
    let src = std::fs::read_to_string(format!(
        "{}/../../examples/tc/c09_dynamic_stride.tc",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(&src[errors[0].span.range()], "S(0)*i");
    assert!(
        errors[0].message.contains("where i in"),
        "{}",
        errors[0].message
    );
    // With the where clause, it is fine.
    let w = analyze("def s(float(I) B, int32(1) S) -> (A) { A(i) = B(S(0)*i) where i in 0:I }");
    assert_eq!(messages(&w.defs[0], Severity::Error), Vec::<String>::new());
}

#[test]
fn c10_constant_fill_exists() {
    let a = example("c10_constant_fill.tc");
    let d = &a.defs[0];
    assert_eq!(ranges(d, 0), ["0 <= i < N"]);
    assert_eq!(shape(d, "B"), ["N"]);
    // A is not read: running it reads nothing of A, and B is all c.
    let r = tc::lower::run(&a.program.defs[0], d, &sizes(&[("N", 5)]), 3).unwrap();
    assert!(r.lowered && r.is_clean(0.0), "{r:?}");
    let l = tc::lower::to_te(&a.program.defs[0], d).unwrap();
    let body = l.outputs[0].1.op().as_compute().unwrap().body.to_string();
    assert!(!body.contains("A["), "{body}");
}
