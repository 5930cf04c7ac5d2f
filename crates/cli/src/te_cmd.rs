//! `rangefinder te FILE.py [--json] [--run] [--seed N]`.

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `rangefinder te`.
#[derive(clap::Args)]
pub struct TeArgs {
    /// A TE script in TVM's Python syntax.
    pub file: PathBuf,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
    /// Run the lowered program on random inputs and check it.
    #[arg(long)]
    pub run: bool,
    /// Seed for the random inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// The value every symbolic size takes when the program is run: odd, so that
/// splits by powers of two leave a tail.
const RUN_SIZE: i64 = 7;

/// Largest difference between program and definitions still counted equal,
/// relative to the expected value (at least 1): the program stores `float32`
/// elements and may sum in another order, so its values are rounded where
/// the definitions' are not, by about the `float32` epsilon times the number
/// of terms; a wrong element differs by far more.
const TOLERANCE: f64 = 1e-3;

/// The stack the analysis runs on: the walkers of bodies and programs
/// recurse as deep as an expression is nested, and a flat sum of 50,000
/// terms is nested that deep. Only the pages used are committed.
const ANALYSIS_STACK: usize = 1 << 30;

/// Runs the subcommand (on a thread with an [`ANALYSIS_STACK`]-byte stack
/// when one can be started).
pub fn run(args: TeArgs) -> ExitCode {
    let worker = std::thread::Builder::new()
        .name("te".to_owned())
        .stack_size(ANALYSIS_STACK);
    let seed = args.seed;
    let (file, json, run_it) = (args.file.clone(), args.json, args.run);
    match worker.spawn(move || analyse(args)) {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(_) => analyse(TeArgs {
            file,
            json,
            run: run_it,
            seed,
        }),
    }
}

fn analyse(args: TeArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let source = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::fail(format!("cannot read {name}: {e}")),
    };
    let outcome = match script::run(&source) {
        Ok(o) => o,
        Err(e) => return crate::diagnostics::report(&name, &source, &e.message, Some(e.span)),
    };
    // Writes ignore errors: a closed pipe (`| head`) is not a failure of the
    // analysis. The script's own output goes first, as it ran; with `--json`
    // to stderr, so that stdout stays JSON.
    if args.json {
        let _ = std::io::stderr().write_all(outcome.printed.as_bytes());
    } else {
        let _ = std::io::stdout().write_all(outcome.printed.as_bytes());
    }
    let Some(target) = outcome.target else {
        // A script that only builds tensors is valid TVM: it ran, and there
        // is no schedule to analyse.
        let note = "the script creates no schedule: nothing to analyse (call `te.create_schedule(...)` to get bounds)";
        if args.json {
            let json = serde_json::to_string_pretty(&json!({"stages": [], "note": note}));
            let _ = writeln!(std::io::stdout(), "{}", json.unwrap_or_default());
        } else {
            let _ = writeln!(std::io::stdout(), "# {note}");
        }
        return ExitCode::SUCCESS;
    };
    let report = match te::report(&target.schedule, &target.args) {
        Ok(r) => r,
        Err(e) => return crate::diagnostics::report(&name, &source, &e.message, None),
    };
    let sizes: HashMap<arith::Var, i64> = target
        .symbolic_sizes()
        .into_iter()
        .map(|v| (v, RUN_SIZE))
        .collect();
    let check = if args.run {
        match te::check(&target.schedule, &target.args, &sizes, args.seed) {
            Ok(c) => Some(c),
            Err(e) => return crate::diagnostics::report(&name, &source, &e.message, None),
        }
    } else {
        None
    };
    if args.json {
        let json = serde_json::to_string_pretty(&to_json(&report, check.as_ref()));
        let _ = writeln!(std::io::stdout(), "{}", json.unwrap_or_default());
    } else {
        let text = to_text(&report, check.as_ref(), &sizes, args.seed);
        let _ = std::io::stdout().write_all(text.as_bytes());
    }
    match &check {
        Some(c) if !c.is_clean(TOLERANCE) => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

fn range_text(min: &arith::Expr, extent: &arith::Expr) -> String {
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

/// The number of elements of an allocation: a number when the shape is
/// constant, else the product as an expression.
fn elements(shape: &[arith::Expr]) -> Json {
    let product = shape
        .iter()
        .try_fold(1i64, |acc, d| d.as_int().and_then(|v| acc.checked_mul(v)));
    match product {
        Some(n) => json!(n),
        None => {
            let parts: Vec<String> = shape.iter().map(|d| format!("({d})")).collect();
            json!(parts.join(" * "))
        }
    }
}

/// The elements a stage's storage holds: an input's whole shape, a computed
/// stage's largest region, nothing for an inlined stage.
fn allocation(st: &te::StageReport) -> Json {
    if matches!(st.placement, te::Placement::Inline) {
        return json!(0);
    }
    if matches!(st.placement, te::Placement::Input) {
        let shape: Vec<arith::Expr> = st.region.iter().map(|r| r.extent.clone()).collect();
        return elements(&shape);
    }
    elements(&st.allocation)
}

fn placement_text(p: &te::Placement) -> String {
    match p {
        te::Placement::Input => "input".to_owned(),
        te::Placement::Root => "computed at the root".to_owned(),
        te::Placement::Inline => "inlined into its consumers".to_owned(),
        te::Placement::At { stage, axis } => format!("computed at {stage}.{axis}"),
    }
}

fn to_text(
    report: &te::Report,
    check: Option<&te::CheckReport>,
    sizes: &HashMap<arith::Var, i64>,
    seed: u64,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# ranges are [min, extent), as TVM's Range");
    for st in &report.stages {
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
        if !matches!(st.placement, te::Placement::Inline) {
            let _ = writeln!(out, "  realize: {}", region_text(&st.region));
        }
        if !matches!(st.placement, te::Placement::Inline) {
            let elements = match allocation(st) {
                Json::String(e) => e,
                n => n.to_string(),
            };
            let _ = writeln!(out, "  allocation: {elements} elements");
        }
        if !st.widened.is_empty() {
            let _ = writeln!(
                out,
                "  widened: {} (exact bound over {} nodes; the whole axis is used)",
                st.widened.join(", "),
                te::BOUND_BUDGET
            );
        }
    }
    let _ = writeln!(out, "lowered:");
    let _ = write!(out, "{}", report.program);
    if let Some(c) = check {
        let mut sized: Vec<String> = sizes
            .iter()
            .map(|(v, n)| format!("{} = {n}", v.name()))
            .collect();
        sized.sort();
        let with = if sized.is_empty() {
            String::new()
        } else {
            format!(", {}", sized.join(", "))
        };
        let _ = writeln!(out, "run (seed {seed}{with}):");
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
        let verdict = if c.is_clean(TOLERANCE) {
            "ok"
        } else {
            "MISMATCH"
        };
        let _ = writeln!(out, "  {verdict}");
    }
    out
}

fn to_json(report: &te::Report, check: Option<&te::CheckReport>) -> Json {
    let stages: Vec<Json> = report
        .stages
        .iter()
        .map(|st| {
            let iter_vars: Vec<Json> = st
                .iter_vars
                .iter()
                .map(|iv| json!({"name": iv.name, "min": iv.min.to_string(), "extent": iv.extent.to_string()}))
                .collect();
            let realize: Vec<Json> = st
                .region
                .iter()
                .map(|r| json!({"min": r.min.to_string(), "extent": r.extent.to_string()}))
                .collect();
            let mut obj = json!({
                "name": st.name,
                "iter_vars": iter_vars,
                "attach_path": st.attach_path,
                "realize": realize,
                "allocation": allocation(st),
            });
            if !st.widened.is_empty() {
                obj["widened"] = json!(st.widened);
            }
            if let Some(c) = check {
                let runs = c.stage(&st.name).map_or(0, |s| s.runs);
                obj["runs"] = json!(runs);
            }
            obj
        })
        .collect();
    let mut out = json!({"stages": stages, "lowered": report.program.to_string()});
    if let Some(c) = check {
        out["check"] = json!({"max_abs_error": c.max_abs_error, "max_rel_error": c.max_rel_error, "out_of_bounds": c.out_of_bounds});
    }
    out
}
