//! `rangefinder hlo FILE ...`: indexing maps of an instruction of an HLO
//! module, in XLA's text form or as JSON.

use hlo::{InstructionIndexing, OperandEntry, OperandIndexing, OperandMap, Query};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `rangefinder hlo`.
#[derive(clap::Args)]
pub struct HloArgs {
    /// An HLO text module.
    pub file: PathBuf,
    /// The instruction to analyse, `NAME` or `COMPUTATION/NAME` (default:
    /// the ROOT of the entry computation).
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
/// read or parsed or the query names nothing in it. Warnings (an ambiguous
/// instruction name) go to standard error.
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
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        match serde_json::to_string(&Report::of(&result)) {
            Ok(text) => emit(&format!("{text}\n")),
            Err(e) => return crate::diagnostics::fail(format!("cannot write JSON: {e}")),
        }
    } else {
        emit(&result.to_string());
    }
    ExitCode::SUCCESS
}

/// Writes `text` to standard output; a reader that closed the pipe early
/// (`| head`) is not an error.
pub(crate) fn emit(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// The JSON form of an analysis.
#[derive(Serialize)]
struct Report<'a> {
    instruction: &'a str,
    direction: &'static str,
    warnings: &'a [String],
    operands: Vec<OperandReport<'a>>,
}

/// One operand (output, parameter) and its maps.
#[derive(Serialize)]
struct OperandReport<'a> {
    index: usize,
    name: &'a str,
    /// The maps in XLA's text form.
    maps: Vec<String>,
    /// The same maps with what XLA's text leaves out.
    details: Vec<MapReport<'a>>,
    /// Why there are no maps (XLA's "unknown indexing").
    unsupported: Option<&'a str>,
}

/// One map with its tuple element, runtime variables and replica map.
#[derive(Serialize)]
struct MapReport<'a> {
    map: String,
    /// For a tuple-shaped operand, the element the map indexes.
    tuple_element: Option<usize>,
    /// Whether an oversized expression was widened (the map over-approximates).
    widened: bool,
    runtime_variables: Vec<RuntimeReport<'a>>,
    replica: Option<String>,
}

/// One runtime variable `rtK` of a map.
#[derive(Serialize)]
struct RuntimeReport<'a> {
    name: String,
    /// The source as XLA prints it (`parameter(1)`, `constant(3)`, a name).
    source: &'a str,
    /// Which operand (parameter) of the analysed instruction holds the value.
    operand: Option<usize>,
    operand_name: Option<&'a str>,
    /// From the map's dimensions to the index read in the source; its own
    /// range variables are named `rtK.sN`.
    map: String,
}

impl<'a> Report<'a> {
    fn of(r: &'a InstructionIndexing) -> Report<'a> {
        Report {
            instruction: &r.instruction,
            direction: r.direction.as_str(),
            warnings: &r.warnings,
            operands: r.operands.iter().map(OperandReport::of).collect(),
        }
    }
}

impl<'a> OperandReport<'a> {
    fn of(e: &'a OperandEntry) -> OperandReport<'a> {
        let (maps, unsupported): (&[OperandMap], _) = match &e.indexing {
            OperandIndexing::Maps(maps) => (maps, None),
            OperandIndexing::Unsupported(reason) => (&[], Some(reason.as_str())),
        };
        OperandReport {
            index: e.index,
            name: &e.name,
            maps: maps.iter().map(|m| m.map.to_string()).collect(),
            details: maps.iter().map(MapReport::of).collect(),
            unsupported,
        }
    }
}

impl<'a> MapReport<'a> {
    fn of(m: &'a OperandMap) -> MapReport<'a> {
        MapReport {
            map: m.map.to_string(),
            tuple_element: m.element,
            widened: m.widened,
            runtime_variables: m
                .runtime
                .iter()
                .enumerate()
                .map(|(k, rt)| RuntimeReport {
                    name: format!("rt{k}"),
                    source: &rt.source,
                    operand: rt.operand,
                    operand_name: rt.operand_name.as_deref(),
                    map: rt.display_map(k).to_string(),
                })
                .collect(),
            replica: m.replica.as_ref().map(|r| r.to_string()),
        }
    }
}
