//! What `rangefinder tc` reports for a source: per definition the inferred
//! ranges and shapes, numeric values under given sizes, the diagnostics, and
//! with a run the comparison of the lowered program with direct evaluation.
//! The command line and the Python package print the same report.

use crate::diag::{Diagnostic, Severity};
use crate::infer::DefAnalysis;
use crate::lower::RunReport;
use crate::sizes::{bind_sizes, SizeCheck};
use crate::Analysis;
use arith::line_column;
use arith::Expr;
use serde::Serialize;
use serde_json::Value as Json;
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
        let view = SourceJson {
            defs: self
                .analysis
                .defs
                .iter()
                .zip(&self.defs)
                .map(|(def, r)| def_json(def, r, source))
                .collect(),
            diagnostics: self
                .analysis
                .syntax_error
                .as_ref()
                .map(|e| vec![DiagnosticJson::of(e, source)]),
        };
        // Through a `Value`, whose objects keep their keys sorted: the
        // order the command has always printed.
        to_json(&view)
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
    to_json(&DiagnosticJson::of(d, source))
}

/// A serialisation view as a JSON value.
fn to_json(view: &impl Serialize) -> Json {
    serde_json::to_value(view).expect("a report serialises to JSON")
}

/// The JSON form of a [`SourceReport`]; `diagnostics` holds the syntax
/// error, when there is one.
#[derive(Serialize)]
struct SourceJson<'a> {
    defs: Vec<DefJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostics: Option<Vec<DiagnosticJson<'a>>>,
}

/// The JSON form of a [`Diagnostic`].
#[derive(Serialize)]
struct DiagnosticJson<'a> {
    column: usize,
    line: usize,
    message: &'a str,
    severity: &'static str,
    span: SpanJson,
}

/// A byte span.
#[derive(Serialize)]
struct SpanJson {
    end: usize,
    start: usize,
}

impl<'a> DiagnosticJson<'a> {
    fn of(d: &'a Diagnostic, source: &str) -> DiagnosticJson<'a> {
        let (line, column) = line_column(source, d.span.start);
        DiagnosticJson {
            column,
            line,
            message: &d.message,
            severity: d.severity.name(),
            span: SpanJson {
                end: d.span.end,
                start: d.span.start,
            },
        }
    }
}

/// The JSON form of one definition's report.
#[derive(Serialize)]
struct DefJson<'a> {
    diagnostics: Vec<DiagnosticJson<'a>>,
    name: &'a str,
    outputs: Vec<OutputJson<'a>>,
    ranges: Vec<RangeJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<RunJson<'a>>,
}

/// An inferred range of an index variable; with sizes, its values.
#[derive(Serialize)]
struct RangeJson<'a> {
    #[serde(serialize_with = "as_text")]
    lower: &'a Expr,
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_value: Option<i64>,
    statement: usize,
    #[serde(serialize_with = "as_text")]
    upper: &'a Expr,
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_value: Option<i64>,
    var: &'a str,
}

/// An output's inferred shape; with sizes, its value.
#[derive(Serialize)]
struct OutputJson<'a> {
    name: &'a str,
    #[serde(serialize_with = "all_as_text")]
    shape: &'a [Expr],
    #[serde(skip_serializing_if = "Option::is_none")]
    shape_value: Option<Vec<i64>>,
}

/// The JSON form of a run.
#[derive(Serialize)]
struct RunJson<'a> {
    compared: u64,
    lowered: bool,
    max_abs_error: f64,
    not_lowered: &'a Option<String>,
    ok: bool,
    out_of_bounds: u64,
}

/// Serialises a value as its `Display` text (expressions print as TC does).
fn as_text<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Serialises a list as the `Display` texts of its elements.
fn all_as_text<T: std::fmt::Display, S: serde::Serializer>(
    v: &[T],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|x| x.to_string()))
}

fn def_json<'a>(def: &'a DefAnalysis, r: &'a DefReport, source: &str) -> DefJson<'a> {
    let check = r.check.as_ref();
    let mut ranges = Vec::new();
    for (si, st) in def.stmts.iter().enumerate() {
        for (ri, range) in st.ranges.iter().enumerate() {
            let values = check
                .and_then(|c| c.ranges.get(si))
                .and_then(|rs| rs.get(ri).copied().flatten());
            ranges.push(RangeJson {
                lower: &range.lower,
                lower_value: values.map(|v| v.0),
                statement: si,
                upper: &range.upper,
                upper_value: values.map(|v| v.1),
                var: &range.name,
            });
        }
    }
    DefJson {
        diagnostics: r
            .diagnostics
            .iter()
            .map(|d| DiagnosticJson::of(d, source))
            .collect(),
        name: &def.name,
        outputs: def
            .outputs
            .iter()
            .enumerate()
            .map(|(oi, o)| OutputJson {
                name: &o.name,
                shape: &o.shape,
                shape_value: check.and_then(|c| c.shapes.get(oi).cloned().flatten()),
            })
            .collect(),
        ranges,
        run: r.run.as_ref().map(|run| RunJson {
            compared: run.compared,
            lowered: run.lowered,
            max_abs_error: run.max_abs_error,
            not_lowered: &run.not_lowered,
            ok: run.is_clean(TOLERANCE),
            out_of_bounds: run.out_of_bounds,
        }),
    }
}
