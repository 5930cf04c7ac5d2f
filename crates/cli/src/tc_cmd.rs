//! `rangefinder tc FILE [--size NAME=VALUE]... [--json] [--run] [--seed N]
//! [--svg PATH]`.

use crate::diagnostics::Level;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `rangefinder tc`.
#[derive(clap::Args)]
pub struct TcArgs {
    /// A Tensor Comprehensions source (one or more `def`s).
    pub file: PathBuf,
    /// Binds a size symbol (`--size N=64`); repeatable.
    #[arg(long = "size", value_name = "NAME=VALUE")]
    pub sizes: Vec<String>,
    /// JSON output.
    #[arg(long)]
    pub json: bool,
    /// Lower to TE, run on random inputs and compare with direct evaluation
    /// (every size symbol needs `--size`).
    #[arg(long)]
    pub run: bool,
    /// Seed for the random inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also draw each variable's range and the bound each access imposes
    /// as SVG to this path (`-` for standard output), at the `--size`
    /// values (symbolic bounds are written out).
    #[arg(long, value_name = "PATH")]
    pub svg: Option<PathBuf>,
}

/// Runs the subcommand.
pub fn run(args: TcArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let source = match crate::input::read_text(&args.file) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::fail(e),
    };
    let sizes = match tc::parse_sizes(args.sizes.iter().map(String::as_str)) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::fail(format!("--size {e}")),
    };
    let analysis = tc::analyze(&source);
    let mut known: Vec<&str> = analysis
        .defs
        .iter()
        .flat_map(|d| d.sizes.iter().map(|(n, _)| n.as_str()))
        .collect();
    known.sort();
    known.dedup();
    let mut unknown: Vec<&String> = sizes
        .keys()
        .filter(|n| !known.contains(&n.as_str()))
        .collect();
    unknown.sort();
    for n in unknown {
        // Not fatal: one set of sizes may serve several files.
        eprintln!("warning: `--size {n}=...`: no definition has a size symbol `{n}`");
    }
    if args.run {
        let mut missing: Vec<&str> = known
            .iter()
            .copied()
            .filter(|n| !sizes.contains_key(*n))
            .collect();
        missing.sort();
        missing.dedup();
        if !missing.is_empty() {
            return crate::diagnostics::fail(format!(
                "--run needs a value for every size symbol: add {}",
                missing
                    .iter()
                    .map(|n| format!("--size {n}=..."))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    let color = !args.json && std::io::stdout().is_terminal();
    let options = tc::ReportOptions {
        sizes,
        run: args.run,
        seed: args.seed,
    };
    let report = tc::report(&source, &options);
    if args.json {
        let text = serde_json::to_string_pretty(&report.to_json(&source)).unwrap_or_default();
        let _ = writeln!(std::io::stdout(), "{text}");
    } else {
        let mut out = String::new();
        if let Some(e) = &report.analysis.syntax_error {
            out.push_str(&render(&name, &source, e, color));
        }
        for (def, r) in report.analysis.defs.iter().zip(&report.defs) {
            def_text(&mut out, def, r, &options.sizes, args.seed);
            for d in &r.diagnostics {
                out.push_str(&render(&name, &source, d, color));
            }
        }
        let _ = std::io::stdout().write_all(out.as_bytes());
    }
    if let Some(path) = &args.svg {
        let drawing = picture::tc_picture(&source, &report.analysis, &options.sizes);
        if let Err(e) = crate::output_file::write_output("the picture", path, &drawing.svg) {
            return crate::diagnostics::fail(e);
        }
    }
    if report.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// One diagnostic with its source line and a caret, as the other commands
/// render errors.
fn render(name: &str, source: &str, d: &tc::Diagnostic, color: bool) -> String {
    let level = match d.severity {
        tc::Severity::Error => Level::Error,
        tc::Severity::Warning => Level::Warning,
        tc::Severity::Note => Level::Note,
    };
    let label = d.severity.name();
    crate::diagnostics::render(
        level,
        name,
        source,
        &d.message,
        label,
        d.span.range(),
        color,
    )
}

fn shape_text(shape: &[arith::Expr]) -> String {
    if shape.is_empty() {
        return "scalar".to_string();
    }
    shape
        .iter()
        .map(|e| {
            let s = e.to_string();
            if s.contains(' ') && shape.len() > 1 {
                format!("({s})")
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(" x ")
}

fn def_text(
    out: &mut String,
    def: &tc::DefAnalysis,
    report: &tc::DefReport,
    sizes: &HashMap<String, i64>,
    seed: u64,
) {
    let check = report.check.as_ref();
    let run = report.run.as_ref();
    let _ = writeln!(out, "def {}", def.name);
    let several = def.stmts.len() > 1;
    for (si, st) in def.stmts.iter().enumerate() {
        let indent = if several {
            let _ = writeln!(out, "  statement {} ({}):", si + 1, st.tensor);
            "    "
        } else {
            "  "
        };
        for (ri, r) in st.ranges.iter().enumerate() {
            let value = check
                .and_then(|c| c.ranges.get(si))
                .and_then(|rs| rs.get(ri).copied().flatten())
                .map(|(lo, hi)| format!("    ({lo} <= {} < {hi})", r.name))
                .unwrap_or_default();
            let origin = if r.from_where { "  (where)" } else { "" };
            let _ = writeln!(
                out,
                "{indent}{} <= {} < {}{origin}{value}",
                r.lower, r.name, r.upper
            );
        }
    }
    for (oi, o) in def.outputs.iter().enumerate() {
        let value = check
            .and_then(|c| c.shapes.get(oi).cloned().flatten())
            .map(|v| {
                let s: Vec<String> = v.iter().map(i64::to_string).collect();
                if s.is_empty() {
                    "    (scalar)".to_string()
                } else {
                    format!("    ({})", s.join(" x "))
                }
            })
            .unwrap_or_default();
        let _ = writeln!(out, "  {}: {}{value}", o.name, shape_text(&o.shape));
    }
    if let Some(r) = run {
        let mut sized: Vec<String> = def
            .sizes
            .iter()
            .filter_map(|(n, _)| sizes.get(n).map(|v| format!("{n} = {v}")))
            .collect();
        sized.sort();
        let with = if sized.is_empty() {
            String::new()
        } else {
            format!(", {}", sized.join(", "))
        };
        let _ = writeln!(out, "  run (seed {seed}{with}):");
        match &r.not_lowered {
            None => {
                let _ = writeln!(
                    out,
                    "    lowered to te and run: {} output elements equal direct evaluation \
                     within {:.1e}; out-of-bounds reads {}",
                    r.compared, r.max_abs_error, r.out_of_bounds
                );
            }
            Some(why) => {
                let _ = writeln!(out, "    not lowered to te ({why})");
                let _ = writeln!(
                    out,
                    "    direct evaluation only: out-of-bounds reads {}",
                    r.out_of_bounds
                );
            }
        }
        for v in &r.violations {
            let _ = writeln!(out, "    violation: {v}");
        }
        let verdict = if r.is_clean(tc::TOLERANCE) {
            "ok"
        } else {
            "MISMATCH"
        };
        let _ = writeln!(out, "    {verdict}");
    }
}
