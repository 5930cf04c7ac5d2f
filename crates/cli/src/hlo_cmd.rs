//! `rangefinder hlo FILE ...`: indexing maps of an instruction of an HLO
//! module, in XLA's text form or as JSON.

use hlo::{JsonReport, Query};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Arguments of `rangefinder hlo`.
#[derive(clap::Args)]
pub struct HloArgs {
    /// An HLO text module.
    pub file: PathBuf,
    /// The instruction to analyse, `NAME` or `COMPUTATION/NAME` (default:
    /// the ROOT of the entry computation).
    #[arg(long)]
    pub instruction: Option<String>,
    /// Which output of a multi-output instruction.
    #[arg(long, default_value_t = 0)]
    pub output: usize,
    /// Input-to-output maps instead of output-to-input.
    #[arg(long)]
    pub input_to_output: bool,
    /// Treat the whole computation as one fusion and map its ROOT to its parameters.
    #[arg(long)]
    pub to_parameters: bool,
    /// Maps between physical positions: each shape's dimensions in its
    /// layout's major-to-minor order, split by its tiles (`{1,0:T(8,128)}`);
    /// tile padding is outside every map's domain.
    #[arg(long)]
    pub physical: bool,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
    /// Also draw one output element and the elements its output-to-input
    /// maps read, per operand, as SVG to PATH (`-`: standard output, instead
    /// of the maps' text).
    #[arg(long, value_name = "PATH")]
    pub svg: Option<PathBuf>,
    /// The output element to draw, `d0=V,d1=V` (or `--at dK=V` repeated);
    /// axes not given take their middle index (default: the middle element).
    #[arg(long, value_name = "dK=V,..", requires = "svg")]
    pub at: Vec<String>,
}

/// Runs the subcommand: exit code 0 on success, 2 when the file cannot be
/// read or parsed or the query names nothing in it. Warnings (an ambiguous
/// instruction name, why an operand's indexing is unknown, pointing at the
/// instruction that has no map) go to standard error.
pub fn run(args: HloArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let source = match crate::input::read_text(&args.file) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::fail(e),
    };
    let module = match hlo::parse_module(&source) {
        Ok(m) => m,
        Err(e) => {
            return crate::diagnostics::report(&name, &source, &e.message, Some(e.span.clone()))
        }
    };
    let query = Query {
        instruction: args.instruction,
        output: args.output,
        input_to_output: args.input_to_output,
        to_parameters: args.to_parameters,
        physical_layout: args.physical,
    };
    let progress = Progress::new(query.to_parameters && std::io::stderr().is_terminal());
    let result =
        hlo::analyze_with_progress(&module, &query, &|done, total| progress.report(done, total));
    progress.finish();
    let result = match result {
        Ok(r) => r,
        Err(e) => return crate::diagnostics::report(&name, &source, &e.to_string(), e.span()),
    };
    let picture = match &args.svg {
        None => None,
        Some(path) => match draw(&module, &query, &result, &args.at) {
            Ok(svg) => Some((path, svg)),
            Err(e) => return crate::diagnostics::fail(e),
        },
    };
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    for e in unknown_indexing_reasons(&result) {
        let message = format!("unknown indexing: {}", e.message);
        match &e.span {
            Some(span) => crate::diagnostics::warn(&name, &source, &message, span.clone()),
            None => eprintln!("warning: {message}"),
        }
    }
    if let Some((path, svg)) = &picture {
        if let Err(e) = crate::output_file::write_output("the picture", path, svg) {
            return crate::diagnostics::fail(e);
        }
        if path.as_os_str() == "-" {
            return ExitCode::SUCCESS;
        }
    }
    if args.json {
        match serde_json::to_string(&JsonReport::of(&result)) {
            Ok(text) => emit(&format!("{text}\n")),
            Err(e) => return crate::diagnostics::fail(format!("cannot write JSON: {e}")),
        }
    } else {
        emit(&result.to_string());
    }
    ExitCode::SUCCESS
}

/// The SVG picture of `result` (the maps of `query`) at the element `at`.
fn draw(
    module: &hlo::Module,
    query: &Query,
    result: &hlo::InstructionIndexing,
    at: &[String],
) -> Result<String, String> {
    let shapes = hlo::map_shapes(module, query).map_err(|e| e.to_string())?;
    let scene = picture::hlo_scene(result, &shapes).map_err(|e| e.message)?;
    let at = if at.is_empty() {
        None
    } else {
        Some(
            picture::parse_at(at, &scene.output_shape)
                .map_err(|e| format!("--at: {}", e.message))?,
        )
    };
    picture::map_picture(&scene, at.as_deref())
        .map(|d| d.svg)
        .map_err(|e| e.message)
}

/// The distinct reasons why operands of `result` have unknown indexing, in
/// operand order (several operands of one unsupported op share one).
fn unknown_indexing_reasons(result: &hlo::InstructionIndexing) -> Vec<&hlo::AnalysisError> {
    let mut reasons: Vec<&hlo::AnalysisError> = Vec::new();
    for entry in &result.operands {
        if let hlo::OperandIndexing::Unsupported(e) = &entry.indexing {
            if !reasons.contains(&e) {
                reasons.push(e);
            }
        }
    }
    reasons
}

/// Writes `text` to standard output; a reader that closed the pipe early
/// (`| head`) is not an error.
pub(crate) fn emit(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// A progress bar on standard error for whole-module queries that run a
/// while: drawn only when standard error is a terminal (never into pipes,
/// files or tests), and only after [`Progress::DELAY`], so quick runs
/// print nothing.
struct Progress {
    enabled: bool,
    start: Instant,
    /// The furthest point reported (parameters finish out of order).
    furthest: AtomicUsize,
    bar: OnceLock<ProgressBar>,
}

impl Progress {
    /// How long a run goes before the bar appears.
    const DELAY: Duration = Duration::from_millis(500);

    fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            start: Instant::now(),
            furthest: AtomicUsize::new(0),
            bar: OnceLock::new(),
        }
    }

    fn report(&self, done: usize, total: usize) {
        if !self.enabled || (self.bar.get().is_none() && self.start.elapsed() < Self::DELAY) {
            return;
        }
        let bar = self.bar.get_or_init(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("mapping {pos}/{len} {wide_bar} {elapsed}")
            {
                bar.set_style(style);
            }
            bar
        });
        let furthest = self.furthest.fetch_max(done, Ordering::Relaxed).max(done);
        bar.set_position(furthest as u64);
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}
