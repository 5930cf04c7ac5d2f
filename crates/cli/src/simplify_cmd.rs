//! `rangefinder simplify EXPR [--range NAME=LO:HI]... [--json]` and
//! `rangefinder simplify --batch FILE`.

use crate::diagnostics;
use arith::{Analyzer, ArithError, Expr, Range, Scope, Var, NEG_INF, POS_INF};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `rangefinder simplify`.
#[derive(clap::Args)]
pub struct SimplifyArgs {
    /// The expression, e.g. `(x * 4 + y) // 4`.
    #[arg(required_unless_present = "batch")]
    pub expr: Option<String>,
    /// A variable range `NAME=LO:HI`, half-open; LO and HI may be expressions.
    #[arg(long = "range", value_name = "NAME=LO:HI")]
    pub ranges: Vec<String>,
    /// JSON output with the proven bounds (with `--batch`, one JSON object
    /// per line).
    #[arg(long)]
    pub json: bool,
    /// One case per line: `EXPR` or `EXPR | NAME=LO:HI ...`.
    #[arg(long, conflicts_with = "expr")]
    pub batch: Option<PathBuf>,
}

/// Where an error came from, for rendering it against the right text.
enum Failure {
    InExpr(ArithError),
    InRange(usize, ArithError),
}

struct Case {
    input: Expr,
    simplified: Expr,
    analyzer: Analyzer,
}

/// Parses the expression and ranges (ranges bound twice, so that ends may
/// use variables whose ranges come later) and simplifies.
fn solve<'a>(expr: &str, ranges: impl Iterator<Item = &'a str>) -> Result<Case, Failure> {
    let mut scope = Scope::new();
    let input = arith::parse_in(expr, &mut scope).map_err(Failure::InExpr)?;
    let mut specs = Vec::new();
    for (i, r) in ranges.enumerate() {
        specs.push(arith::parse_range_spec(r, &mut scope).map_err(|e| Failure::InRange(i, e))?);
    }
    simplify_under(input, &specs)
}

/// Simplifies `input` with the variables bound to `specs`.
fn simplify_under(input: Expr, specs: &[(Var, Range)]) -> Result<Case, Failure> {
    let mut analyzer = Analyzer::new();
    analyzer.bind_all(specs);
    let simplified = analyzer.simplify(&input).map_err(Failure::InExpr)?;
    Ok(Case {
        input,
        simplified,
        analyzer,
    })
}

fn bound_json(v: i64) -> serde_json::Value {
    if v == NEG_INF || v == POS_INF {
        serde_json::Value::Null
    } else {
        serde_json::Value::from(v)
    }
}

/// Runs the subcommand.
pub fn run(args: SimplifyArgs) -> ExitCode {
    if let Some(path) = &args.batch {
        return run_batch(path, args.json);
    }
    let expr = args.expr.as_deref().unwrap_or_default();
    let case = match solve(expr, args.ranges.iter().map(String::as_str)) {
        Ok(c) => c,
        Err(Failure::InExpr(e)) => return diagnostics::report("EXPR", expr, &e.message, e.span),
        Err(Failure::InRange(i, e)) => {
            return diagnostics::report("--range", &args.ranges[i], &e.message, e.span)
        }
    };
    if args.json {
        let b = case.analyzer.const_int_bound(&case.input);
        let out = serde_json::json!({
            "input": case.input.to_string(),
            "simplified": case.simplified.to_string(),
            "min": bound_json(b.min),
            "max": bound_json(b.max),
        });
        println!("{out}");
    } else {
        println!("{}", case.simplified);
    }
    ExitCode::SUCCESS
}

/// One output line per input line: the result, or `error: MESSAGE`
/// ([`arith::Batch`]: one scope for the file, each line under its own
/// ranges only). With `json`, each line is an object: the fields of
/// `simplify --json` and the line's number, or the line's number, the
/// error and its byte span in the line.
fn run_batch(path: &Path, json: bool) -> ExitCode {
    let text = match crate::input::read_text(path) {
        Ok(t) => t,
        Err(e) => return diagnostics::fail(e),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut batch = arith::Batch::new();
    let mut line_out = String::new();
    let mut failed = false;
    for (number, line) in text.lines().enumerate() {
        line_out.clear();
        let ok = if json {
            batch_json_line(&mut batch, line, number + 1, &mut line_out)
        } else {
            batch_text_line(&mut batch, line, &mut line_out)
        };
        failed |= !ok;
        line_out.push('\n');
        if out.write_all(line_out.as_bytes()).is_err() {
            return ExitCode::from(1);
        }
    }
    let _ = out.flush();
    if failed {
        ExitCode::from(diagnostics::BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes one line's result or `error: MESSAGE` into `out`; false on error.
fn batch_text_line(batch: &mut arith::Batch, line: &str, out: &mut String) -> bool {
    match batch.simplify_line(line) {
        Ok(simplified) => {
            simplified.print_into(out);
            true
        }
        Err(e) => {
            out.push_str("error: ");
            out.push_str(&e.message);
            false
        }
    }
}

/// Writes one line's JSON object into `out`; false on error.
fn batch_json_line(batch: &mut arith::Batch, line: &str, number: usize, out: &mut String) -> bool {
    let (value, ok) = match batch.analyze_line(line) {
        Ok(case) => (
            serde_json::json!({
                "line": number,
                "input": case.input.to_string(),
                "simplified": case.simplified.to_string(),
                "min": bound_json(case.bound.min),
                "max": bound_json(case.bound.max),
            }),
            true,
        ),
        Err(e) => (
            serde_json::json!({
                "line": number,
                "error": e.message,
                "span": e.span.map(|s| [s.start, s.end]),
            }),
            false,
        ),
    };
    out.push_str(&value.to_string());
    ok
}
