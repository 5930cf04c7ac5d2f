//! `rangefinder te FILE.py [--json] [--run] [--seed N] [--max-steps N]
//! [--print legacy|tvmscript] [--html OUT.html] [--svg OUT.svg]
//! [--at NAME=VALUE]...`.

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
    /// The most loop iterations and stores the run may take; a program
    /// whose loops take more is refused before it runs.
    #[arg(long, value_name = "N", default_value_t = te::DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    /// How the lowered program is printed: `legacy` (TVM's
    /// `str(tvm.lower(...))` text) or `tvmscript` (TVM v0.19's
    /// `tvm.lower(...).script()`).
    #[arg(long, value_name = "FORM", default_value = "legacy")]
    pub print: PrintArg,
    /// Also write the report as one HTML page (`-` for stdout after the
    /// report): the stage graph, each stage's IterVar graph and ranges,
    /// the work per stage (with `--run`) and the lowered program.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Also write the region pictures to this file (`-` for stdout): each
    /// stage computed at a loop, at an iteration of its attach loops, its
    /// elements coloured computed-and-read, computed-never-read, untouched.
    #[arg(long, value_name = "OUT.svg")]
    pub svg: Option<PathBuf>,
    /// The iteration the pictures show: an attach loop and its value (the
    /// loop counts from 0, as the lowered program prints it); repeat for
    /// several loops. Loops left out are at their first iteration; without
    /// any, the first and a middle iteration of the outermost loop.
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_at)]
    pub at: Vec<(String, i64)>,
}

/// Parses `--at NAME=VALUE`.
fn parse_at(text: &str) -> Result<(String, i64), String> {
    let (name, value) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE (e.g. `i.outer=3`)"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{text}` names no loop (e.g. `i.outer=3`)"));
    }
    let value = value
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("the value in `{text}` is not an integer"))?;
    Ok((name.to_string(), value))
}

/// The values of `--print`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PrintArg {
    /// TVM's legacy text.
    Legacy,
    /// TVMScript.
    Tvmscript,
}

/// Runs the subcommand. Long flat chains need no large stack: the walkers
/// of bodies and programs continue on heap-allocated stack segments
/// (`tir::stack`), so the analysis runs on the main thread.
pub fn run(args: TeArgs) -> ExitCode {
    let name = args.file.display().to_string();
    if args.json && args.svg.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        return crate::diagnostics::fail(
            "`--svg -` would mix the picture into the JSON on stdout: write it to a file (`--svg OUT.svg`)",
        );
    }
    let source = match crate::input::read_text(&args.file) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::fail(e),
    };
    let script = match script::Script::parse(&source) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::report(&name, &source, &e.message, Some(e.span)),
    };
    let outcome = match script.run() {
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
            let json = NoSchedule {
                note,
                stages: Vec::new(),
            };
            let text = serde_json::to_string_pretty(&json).unwrap_or_default();
            let _ = writeln!(std::io::stdout(), "{text}");
        } else {
            let _ = writeln!(std::io::stdout(), "# {note}");
        }
        if let Some(path) = &args.html {
            eprintln!(
                "note: no HTML report was written to {}: {note}",
                path.display()
            );
        }
        return ExitCode::SUCCESS;
    };
    let options = te::ReportOptions {
        run: args.run,
        seed: args.seed,
        max_steps: Some(args.max_steps),
        interrupt: None,
    };
    let report =
        match te::run_report_reusing(&target.schedule, &target.args, &options, target.lowering) {
            Ok(r) => r,
            Err(e) => return crate::diagnostics::report(&name, &source, &e.message, None),
        };
    if args.json {
        let json = serde_json::to_string_pretty(&report.to_json());
        let _ = writeln!(std::io::stdout(), "{}", json.unwrap_or_default());
    } else {
        let form = match args.print {
            PrintArg::Legacy => te::PrintForm::Legacy,
            PrintArg::Tvmscript => te::PrintForm::TvmScript,
        };
        match report.to_text_in(form) {
            Ok(text) => {
                let _ = std::io::stdout().write_all(text.as_bytes());
            }
            Err(e) => return crate::diagnostics::report(&name, &source, &e.message, None),
        }
    }
    let limits = te::RunLimits {
        max_steps: args.max_steps,
        interrupt: None,
    };
    if args.svg.is_none() && args.html.is_none() && !args.at.is_empty() {
        return crate::diagnostics::fail(
            "`--at` chooses the iteration of the pictures: give `--svg OUT.svg` or `--html OUT.html` too",
        );
    }
    let draw_error = |e: te::TeError| {
        crate::diagnostics::report(
            &name,
            &source,
            &format!("cannot draw the regions: {}", e.message),
            None,
        )
    };
    if let Some(path) = &args.html {
        let regions = match picture::region_drawings(
            &target.schedule,
            &target.args,
            &report,
            &args.at,
            &limits,
        ) {
            Ok(r) => r,
            Err(e) => return draw_error(e),
        };
        let title = format!("rangefinder te {name}");
        let page = picture::te_page(&title, &target.schedule, &report, &regions).finish();
        if let Err(e) = crate::output_file::write_output("the HTML report", path, &page) {
            return crate::diagnostics::fail(e);
        }
    }
    if let Some(path) = &args.svg {
        let drawing = match picture::te_regions_svg(
            &target.schedule,
            &target.args,
            &report,
            &args.at,
            &limits,
        ) {
            Ok(d) => d,
            Err(e) => return draw_error(e),
        };
        if let Err(e) = crate::output_file::write_output("the picture", path, &drawing.svg) {
            return crate::diagnostics::fail(e);
        }
    }
    let code = if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    // The process ends here: freeing the parsed script, the schedule and
    // the report node by node would cost a tenth of the whole run, and the
    // operating system takes the memory back at once.
    std::mem::forget((
        script,
        outcome.schedules,
        target.schedule,
        target.args,
        report,
    ));
    code
}

/// What `rangefinder te --json` prints for a script without a schedule.
#[derive(serde::Serialize)]
struct NoSchedule<'a> {
    /// Why there is nothing to analyse.
    note: &'a str,
    /// No stages (always empty; the key is there so that readers of a
    /// report find the list they expect).
    stages: Vec<()>,
}
