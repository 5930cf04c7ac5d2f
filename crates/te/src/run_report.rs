//! What `rangefinder te` prints for a schedule, as text or JSON: the bound
//! report, and with a run the check of the lowered program.
//!
//! The command line and the Python package print the same report, so it
//! lives here rather than in either front end.

use crate::check::{check_limited, CheckReport, RunLimits, DEFAULT_MAX_STEPS};
use crate::error::Result;
use crate::lower::Lowering;
use crate::operation::Tensor;
use crate::report::{report, report_lowered, Placement, Report, StageReport};
use crate::schedule::Schedule;
use arith::{Expr, Var};
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The value every symbolic size takes when the program is run: odd, so that
/// splits by powers of two leave a tail.
pub const RUN_SIZE: i64 = 7;

/// Largest difference between program and definitions still counted equal,
/// relative to the expected value (at least 1): the program stores `float32`
/// elements and may sum in another order, so its values are rounded where
/// the definitions' are not, by about the `float32` epsilon times the number
/// of terms; a wrong element differs by far more.
pub const TOLERANCE: f64 = 1e-3;

/// Whether and how [`run_report`] runs the program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportOptions {
    /// Run the lowered program on random inputs and check it.
    pub run: bool,
    /// Seed of the random inputs.
    pub seed: u64,
    /// The most steps (loop iterations and stores) the run may take;
    /// `None` for [`DEFAULT_MAX_STEPS`]. A program whose loops take more is
    /// refused before it runs.
    pub max_steps: Option<u64>,
    /// Called now and then during the run; `true` stops it (see
    /// [`tir::Interpreter::interrupt`]).
    pub interrupt: Option<tir::Interrupt>,
}

/// A schedule's [`Report`], and the [`CheckReport`] of a run.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Bounds, regions, storage and the lowered program.
    pub report: Report,
    /// The check, when the program was run.
    pub check: Option<CheckReport>,
    /// The value each symbolic size took in the run.
    pub sizes: Vec<(Var, i64)>,
    /// The seed of the run's inputs.
    pub seed: u64,
}

/// Infers, lowers and (with `options.run`) runs schedule `s` with `args`,
/// giving every symbolic size the value [`RUN_SIZE`] for the run.
///
/// ```
/// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
/// let s = te::create_schedule(&[b.clone()]);
/// let options = te::ReportOptions { run: true, ..Default::default() };
/// let r = te::run_report(&s, &[a, b], &options).unwrap();
/// assert!(r.is_clean());
/// assert_eq!(r.to_json()["stages"][1]["runs"], 8);
/// ```
pub fn run_report(s: &Schedule, args: &[Tensor], options: &ReportOptions) -> Result<RunReport> {
    run_report_reusing(s, args, options, None)
}

/// [`run_report`], reusing `earlier` (a lowering made while the schedule
/// was being built, as by a script's `tvm.lower`) when it is the lowering of
/// `s` as it is now with `args`; otherwise the schedule is lowered again.
pub fn run_report_reusing(
    s: &Schedule,
    args: &[Tensor],
    options: &ReportOptions,
    earlier: Option<Lowering>,
) -> Result<RunReport> {
    let report = match earlier {
        Some(l) if l.is_current(s, args) => report_lowered(s, l)?,
        _ => report(s, args)?,
    };
    let sizes: Vec<(Var, i64)> = s
        .symbolic_sizes()
        .into_iter()
        .map(|v| (v, RUN_SIZE))
        .collect();
    let check = if options.run {
        let by_var: HashMap<Var, i64> = sizes.iter().cloned().collect();
        let limits = RunLimits {
            max_steps: options.max_steps.unwrap_or(DEFAULT_MAX_STEPS),
            interrupt: options.interrupt,
        };
        Some(check_limited(s, args, &by_var, options.seed, &limits)?)
    } else {
        None
    };
    Ok(RunReport {
        report,
        check,
        sizes,
        seed: options.seed,
    })
}

impl RunReport {
    /// False when the run found an invalid access or a wrong output.
    pub fn is_clean(&self) -> bool {
        self.check.as_ref().is_none_or(|c| c.is_clean(TOLERANCE))
    }

    /// The report as `rangefinder te` prints it.
    pub fn to_text(&self) -> String {
        // The legacy text cannot fail.
        self.to_text_in(crate::PrintForm::Legacy)
            .unwrap_or_default()
    }

    /// The report with the lowered program printed in `form` (`rangefinder
    /// te --print tvmscript`). Fails only when the program cannot be
    /// flattened for TVMScript.
    pub fn to_text_in(&self, form: crate::PrintForm) -> Result<String> {
        let mut out = String::new();
        let _ = writeln!(out, "# ranges are [min, extent), as TVM's Range");
        for st in &self.report.stages {
            let _ = writeln!(out, "stage {}: {}", st.name, placement_text(&st.placement));
            for iv in &st.iter_vars {
                let leaf = if iv.leaf { "  (loop)" } else { "" };
                let _ = writeln!(
                    out,
                    "  {} {}{leaf}",
                    iv.name,
                    range_text(&iv.min, &iv.extent)
                );
            }
            if !st.attach_path.is_empty() {
                let _ = writeln!(out, "  attach path: {}", st.attach_path.join(", "));
            }
            if !matches!(st.placement, Placement::Inline) {
                let _ = writeln!(out, "  realize: {}", region_text(&st.region));
                if let Some(p) = &st.physical_shape {
                    let dims: Vec<String> = p.iter().map(ToString::to_string).collect();
                    let _ = writeln!(out, "  physical shape: [{}]", dims.join(", "));
                }
                let _ = writeln!(out, "  allocation: {} elements", allocation(st));
            }
            if !st.widened.is_empty() {
                let _ = writeln!(
                    out,
                    "  widened: {} (exact bound over {} nodes; the whole axis is used)",
                    st.widened.join(", "),
                    crate::BOUND_BUDGET
                );
            }
        }
        let _ = writeln!(out, "lowered:");
        match form {
            crate::PrintForm::Legacy => {
                let _ = write!(out, "{}", self.report.program);
            }
            crate::PrintForm::TvmScript => out.push_str(&crate::tvmscript(&self.report.program)?),
        }
        if let Some(c) = &self.check {
            let mut sized: Vec<String> = self
                .sizes
                .iter()
                .map(|(v, n)| format!("{} = {n}", v.name()))
                .collect();
            sized.sort();
            let with = if sized.is_empty() {
                String::new()
            } else {
                format!(", {}", sized.join(", "))
            };
            let _ = writeln!(out, "run (seed {}{with}):", self.seed);
            for sc in &c.stages {
                let _ = writeln!(out, "  {}: runs {}, needed {}", sc.name, sc.runs, sc.needed);
            }
            let _ = writeln!(
                out,
                "  compared {} output elements, largest absolute error {}, largest relative error {}, out-of-bounds accesses {}",
                c.compared, c.max_abs_error, c.max_rel_error, c.out_of_bounds
            );
            for v in &c.violations {
                let _ = writeln!(out, "  violation: {v}");
            }
            for (stage, call) in &c.not_evaluable {
                let _ = writeln!(
                    out,
                    "  not evaluable: `{stage}` calls `{call}`, which cannot be run; nothing was compared"
                );
            }
            let verdict = if !c.not_evaluable.is_empty() {
                "not run"
            } else if c.is_clean(TOLERANCE) {
                "ok"
            } else {
                "MISMATCH"
            };
            let _ = writeln!(out, "  {verdict}");
        }
        Ok(out)
    }

    /// The report as `rangefinder te --json` prints it.
    pub fn to_json(&self) -> Json {
        // Through a `Value`, whose objects keep their keys sorted: the
        // order the command has always printed.
        serde_json::to_value(self.json_view()).expect("a report serialises to JSON")
    }

    /// The serialisation view behind [`RunReport::to_json`].
    fn json_view(&self) -> RunReportJson<'_> {
        let check = self.check.as_ref();
        RunReportJson {
            check: check.map(|c| CheckJson {
                max_abs_error: c.max_abs_error,
                max_rel_error: c.max_rel_error,
                out_of_bounds: c.out_of_bounds,
                not_evaluable: c.not_evaluable.iter().map(|(s, _)| s.as_str()).collect(),
            }),
            lowered: self.report.program.to_string(),
            stages: self
                .report
                .stages
                .iter()
                .map(|st| StageJson {
                    allocation: allocation(st),
                    attach_path: &st.attach_path,
                    iter_vars: st
                        .iter_vars
                        .iter()
                        .map(|iv| IterVarJson {
                            extent: &iv.extent,
                            min: &iv.min,
                            name: &iv.name,
                        })
                        .collect(),
                    name: &st.name,
                    physical_shape: st
                        .physical_shape
                        .as_ref()
                        .map(|p| p.iter().map(ToString::to_string).collect()),
                    realize: st
                        .region
                        .iter()
                        .map(|r| RangeJson {
                            extent: &r.extent,
                            min: &r.min,
                        })
                        .collect(),
                    runs: check.map(|c| c.stage(&st.name).map_or(0, |s| s.runs)),
                    widened: &st.widened,
                })
                .collect(),
        }
    }
}

/// The JSON form of a [`RunReport`] (fields in the order they print).
#[derive(Serialize)]
struct RunReportJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<CheckJson<'a>>,
    lowered: String,
    stages: Vec<StageJson<'a>>,
}

/// The JSON form of a run's check.
#[derive(Serialize)]
struct CheckJson<'a> {
    max_abs_error: f64,
    max_rel_error: f64,
    /// Stages whose values cannot be computed (the program was not run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    not_evaluable: Vec<&'a str>,
    out_of_bounds: u64,
}

/// The JSON form of one stage of a [`Report`]: its storage as
/// `allocation`, its region as `realize`, and with a run how often it ran.
#[derive(Serialize)]
struct StageJson<'a> {
    allocation: Elements,
    attach_path: &'a [String],
    iter_vars: Vec<IterVarJson<'a>>,
    name: &'a str,
    /// The physical shape of a tensor with a layout transform.
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_shape: Option<Vec<String>>,
    realize: Vec<RangeJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<u64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    widened: &'a [String],
}

/// An iteration variable with its range, expressions printed as text.
#[derive(Serialize)]
struct IterVarJson<'a> {
    #[serde(serialize_with = "as_text")]
    extent: &'a Expr,
    #[serde(serialize_with = "as_text")]
    min: &'a Expr,
    name: &'a str,
}

/// A range `[min, min + extent)`, expressions printed as text.
#[derive(Serialize)]
struct RangeJson<'a> {
    #[serde(serialize_with = "as_text")]
    extent: &'a Expr,
    #[serde(serialize_with = "as_text")]
    min: &'a Expr,
}

/// Serialises a value as its `Display` text (expressions print as TVM does).
fn as_text<T: std::fmt::Display, S: serde::Serializer>(
    v: &T,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(v)
}

fn range_text(min: &Expr, extent: &Expr) -> String {
    format!("[{min}, {extent})")
}

fn region_text(region: &[arith::Range]) -> String {
    if region.is_empty() {
        return "scalar".to_owned();
    }
    let parts: Vec<String> = region
        .iter()
        .map(|r| range_text(&r.min, &r.extent))
        .collect();
    parts.join(" x ")
}

fn placement_text(p: &Placement) -> String {
    match p {
        Placement::Input => "input".to_owned(),
        Placement::Root => "computed at the root".to_owned(),
        Placement::Inline => "inlined into its consumers".to_owned(),
        Placement::At { stage, axis } => format!("computed at {stage}.{axis}"),
    }
}

/// The number of elements of a storage: a number when the shape is
/// constant, else the product as an expression.
#[derive(Serialize)]
#[serde(untagged)]
enum Elements {
    Count(i64),
    Product(String),
}

impl std::fmt::Display for Elements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Elements::Count(n) => write!(f, "{n}"),
            Elements::Product(p) => f.write_str(p),
        }
    }
}

fn elements(shape: &[Expr]) -> Elements {
    let product = shape
        .iter()
        .try_fold(1i64, |acc, d| d.as_int().and_then(|v| acc.checked_mul(v)));
    match product {
        Some(n) => Elements::Count(n),
        None => {
            let parts: Vec<String> = shape.iter().map(|d| format!("({d})")).collect();
            Elements::Product(parts.join(" * "))
        }
    }
}

/// The elements a stage's storage holds: an input's whole (physical)
/// shape, a computed stage's largest region, nothing for an inlined stage.
fn allocation(st: &StageReport) -> Elements {
    match st.placement {
        Placement::Inline => Elements::Count(0),
        _ => elements(&st.allocation),
    }
}
