//! `rangefinder map TEXT [--json]`.

use std::process::ExitCode;

/// Arguments of `rangefinder map`.
#[derive(clap::Args)]
pub struct MapArgs {
    /// The map in XLA's text form, e.g. `(d0) -> (d0 floordiv 8), domain: d0 in [0, 31]`.
    pub text: String,
    /// Print `{"input": ..., "simplified": ...}`.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(_args: MapArgs) -> ExitCode {
    crate::diagnostics::fail("`rangefinder map` is being built")
}
