//! What `rangefinder tc` reports for a source: per definition the inferred
//! ranges and shapes, numeric values under given sizes, the diagnostics, and
//! with a run the comparison of the lowered program with direct evaluation.
//! The command line and the Python package print the same report.

use crate::diag::{line_column, Diagnostic, Severity};
use crate::infer::DefAnalysis;
use crate::lower::RunReport;
use crate::sizes::{bind_sizes, SizeCheck};
use crate::Analysis;
use serde_json::{json, Value as Json};
use std::collections::HashMap;

/// Largest difference between program and definition still counted equal
/// (elements are stored as `float32`).
pub const TOLERANCE: f64 = 1e-4;

/// Sizes to bind, and whether to run.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Values of size symbols (`--size N=64`).
    pub sizes: HashMap<String, i64>,
    /// Lower, run on random inputs and compare with direct evaluation.
    pub run: bool,
    /// Seed of the random inputs.
    pub seed: u64,
}

/// The report of one definition.
#[derive(Clone, Debug)]
pub struct DefReport {
    /// The values of ranges and shapes under the given sizes, if any.
    pub check: Option<SizeCheck>,
    /// Every diagnostic (size-dependent ones decided when sizes are given;
    /// a failure to run last).
    pub diagnostics: Vec<Diagnostic>,
    /// The run, when asked for and the definition has no error.
    pub run: Option<RunReport>,
}

/// The report of a whole source.
#[derive(Clone, Debug)]
pub struct SourceReport {
    /// The analysis of the source.
    pub analysis: Analysis,
    /// One per definition of `analysis`, in order.
    pub defs: Vec<DefReport>,
}

impl SourceReport {
    /// Whether any error was reported or a run was not clean.
    pub fn failed(&self) -> bool {
        self.analysis.syntax_error.is_some()
            || self.defs.iter().any(|d| {
                d.diagnostics.iter().any(|x| x.severity == Severity::Error)
                    || d.run.as_ref().is_some_and(|r| !r.is_clean(TOLERANCE))
            })
    }

    /// The JSON `rangefinder tc --json` prints for `source`.
    pub fn to_json(&self, source: &str) -> Json {
        let defs: Vec<Json> = self
            .analysis
            .defs
            .iter()
            .zip(&self.defs)
            .map(|(def, r)| def_json(def, r, source))
            .collect();
        let mut root = json!({ "defs": defs });
        if let Some(e) = &self.analysis.syntax_error {
            root["diagnostics"] = json!([diagnostic_json(e, source)]);
        }
        root
    }
}

/// Analyses `source`, binds `options.sizes` and runs each error-free
/// definition when `options.run` is set.
///
/// ```
/// let source = "def f(float(N) A) -> (B) { B(i) = A(i + 1) }";
/// let options = tc::ReportOptions { sizes: [("N".to_string(), 8)].into(), ..Default::default() };
/// let r = tc::report(source, &options);
/// let json = r.to_json(source);
/// assert_eq!(json["defs"][0]["ranges"][0]["upper_value"], 7);
/// ```
pub fn report(source: &str, options: &ReportOptions) -> SourceReport {
    let analysis = crate::analyze(source);
    let defs = analysis
        .defs
        .iter()
        .zip(&analysis.program.defs)
        .map(|(def, ast)| {
            let check = (!options.sizes.is_empty()).then(|| bind_sizes(def, &options.sizes));
            let mut diagnostics = match &check {
                Some(c) => c.diagnostics.clone(),
                None => def.all_diagnostics(),
            };
            // A precondition that fails for the given sizes does not stop
            // the run: it shows the out-of-bounds reads.
            let mut run = None;
            if options.run && !def.has_errors() {
                match crate::lower::run(ast, def, &options.sizes, options.seed) {
                    Ok(r) => run = Some(r),
                    Err(e) => diagnostics.push(e),
                }
            }
            DefReport {
                check,
                diagnostics,
                run,
            }
        })
        .collect();
    SourceReport { analysis, defs }
}

/// A diagnostic as JSON, with its 1-based line and column.
pub fn diagnostic_json(d: &Diagnostic, source: &str) -> Json {
    let (line, column) = line_column(source, d.span.start);
    json!({
        "severity": d.severity.name(),
        "message": d.message,
        "span": {"start": d.span.start, "end": d.span.end},
        "line": line,
        "column": column,
    })
}

fn def_json(def: &DefAnalysis, r: &DefReport, source: &str) -> Json {
    let check = r.check.as_ref();
    let mut ranges = Vec::new();
    for (si, st) in def.stmts.iter().enumerate() {
        for (ri, range) in st.ranges.iter().enumerate() {
            let mut obj = json!({
                "statement": si,
                "var": range.name,
                "lower": range.lower.to_string(),
                "upper": range.upper.to_string(),
            });
            if let Some((lo, hi)) = check
                .and_then(|c| c.ranges.get(si))
                .and_then(|rs| rs.get(ri).copied().flatten())
            {
                obj["lower_value"] = json!(lo);
                obj["upper_value"] = json!(hi);
            }
            ranges.push(obj);
        }
    }
    let outputs: Vec<Json> = def
        .outputs
        .iter()
        .enumerate()
        .map(|(oi, o)| {
            let mut obj = json!({
                "name": o.name,
                "shape": o.shape.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
            });
            if let Some(v) = check.and_then(|c| c.shapes.get(oi).cloned().flatten()) {
                obj["shape_value"] = json!(v);
            }
            obj
        })
        .collect();
    let mut obj = json!({
        "name": def.name,
        "ranges": ranges,
        "outputs": outputs,
        "diagnostics": r.diagnostics.iter().map(|d| diagnostic_json(d, source)).collect::<Vec<_>>(),
    });
    if let Some(run) = &r.run {
        obj["run"] = json!({
            "lowered": run.lowered,
            "not_lowered": run.not_lowered,
            "compared": run.compared,
            "max_abs_error": run.max_abs_error,
            "out_of_bounds": run.out_of_bounds,
            "ok": run.is_clean(TOLERANCE),
        });
    }
    obj
}
