//! `rangefinder hlo FILE ...`: indexing maps of an instruction of an HLO
//! module, in XLA's text form or as JSON.

use hlo::{InstructionIndexing, OperandIndexing, Query};
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

/// Runs the subcommand: exit code 0 on success, 2 when the file cannot be
/// read or parsed or the query names nothing in it.
pub fn run(args: HloArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let source = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => return crate::diagnostics::fail(format!("cannot read {name}: {e}")),
    };
    let module = match hlo::parse_module(&source) {
        Ok(m) => m,
        Err(e) => {
            return crate::diagnostics::report(&name, &source, &e.to_string(), Some(e.span.clone()))
        }
    };
    let query = Query {
        instruction: args.instruction,
        output: args.output,
        input_to_output: args.input_to_output,
        to_parameters: args.to_parameters,
        physical_layout: false,
    };
    let result = match hlo::analyze(&module, &query) {
        Ok(r) => r,
        Err(e) => return crate::diagnostics::fail(e),
    };
    if args.json {
        println!("{}", to_json(&result));
    } else {
        print!("{result}");
    }
    ExitCode::SUCCESS
}

fn to_json(r: &InstructionIndexing) -> serde_json::Value {
    let operands: Vec<serde_json::Value> = r
        .operands
        .iter()
        .map(|e| {
            let (maps, unsupported) = match &e.indexing {
                OperandIndexing::Maps(maps) => (maps.iter().map(|m| m.map.to_string()).collect::<Vec<_>>(), None),
                OperandIndexing::Unsupported(reason) => (Vec::new(), Some(reason.clone())),
            };
            serde_json::json!({ "index": e.index, "name": e.name, "maps": maps, "unsupported": unsupported })
        })
        .collect();
    serde_json::json!({ "instruction": r.instruction, "direction": r.direction.as_str(), "operands": operands })
}
