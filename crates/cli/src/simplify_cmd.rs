//! `rangefinder simplify EXPR [--range NAME=LO:HI]... [--json]` and `--batch FILE`.

use std::path::PathBuf;
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

/// Runs the subcommand.
pub fn run(_args: SimplifyArgs) -> ExitCode {
    crate::diagnostics::fail("`rangefinder simplify` is being built")
}
