//! The `rangefinder` command: one subcommand per front end, text or JSON out.
//!
//! The command only reads files, calls the library crates and prints; every
//! analysis lives in the libraries.

mod diagnostics;
mod hlo_cmd;
mod input;
mod layout_cmd;
mod map_cmd;
mod output_file;
mod simplify_cmd;
mod tc_cmd;
mod te_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Tells a tensor compiler exactly which indices each part of a tensor
/// program touches.
#[derive(Parser)]
#[command(name = "rangefinder", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simplify an index expression under variable ranges.
    Simplify(simplify_cmd::SimplifyArgs),
    /// Parse, simplify and print an XLA indexing map.
    Map(map_cmd::MapArgs),
    /// Indexing maps of an HLO module's instructions.
    Hlo(hlo_cmd::HloArgs),
    /// Bound inference and lowering of a TVM TE script.
    Te(te_cmd::TeArgs),
    /// Range inference, checks and runs of Tensor Comprehensions programs.
    Tc(tc_cmd::TcArgs),
    /// Transformed and physical shapes and indices of a buffer layout.
    Layout(layout_cmd::LayoutArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Simplify(a) => simplify_cmd::run(a),
        Command::Map(a) => map_cmd::run(a),
        Command::Hlo(a) => hlo_cmd::run(a),
        Command::Te(a) => te_cmd::run(a),
        Command::Tc(a) => tc_cmd::run(a),
        Command::Layout(a) => layout_cmd::run(a),
    }
}
