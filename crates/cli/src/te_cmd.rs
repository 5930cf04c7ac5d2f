//! `rangefinder te FILE.py ...`.

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

/// Runs the subcommand.
pub fn run(_args: TeArgs) -> ExitCode {
    crate::diagnostics::fail("`rangefinder te` is being built")
}
