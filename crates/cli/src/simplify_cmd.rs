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
    /// JSON output with the proven bounds.
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
        return run_batch(path);
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
/// ranges only).
fn run_batch(path: &Path) -> ExitCode {
    let text = match crate::input::read_text(path) {
        Ok(t) => t,
        Err(e) => return diagnostics::fail(e),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut batch = arith::Batch::new();
    let mut line_out = String::new();
    let mut failed = false;
    for line in text.lines() {
        line_out.clear();
        let result = batch.simplify_line(line);
        match result {
            Ok(simplified) => simplified.print_into(&mut line_out),
            Err(e) => {
                failed = true;
                line_out.push_str("error: ");
                line_out.push_str(&e.message);
            }
        }
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
