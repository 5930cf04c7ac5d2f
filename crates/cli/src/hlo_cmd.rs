//! `rangefinder hlo FILE ...`.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `rangefinder hlo`.
#[derive(clap::Args)]
pub struct HloArgs {
    /// An HLO text module.
    pub file: PathBuf,
    /// The instruction to analyse (default: the ROOT of the entry computation).
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
    /// JSON output.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(_args: HloArgs) -> ExitCode {
    crate::diagnostics::fail("`rangefinder hlo` is being built")
}
