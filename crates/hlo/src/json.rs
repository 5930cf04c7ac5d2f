//! The JSON form of an analysis, as `rangefinder hlo --json` prints it
//! (and the Python package returns it).

use crate::operand_indexing::{InstructionIndexing, OperandEntry, OperandIndexing, OperandMap};
use serde::Serialize;

/// The JSON form of an analysis.
#[derive(Serialize)]
pub struct JsonReport<'a> {
    /// The analysed instruction.
    pub instruction: &'a str,
    /// `output_to_input` or `input_to_output`.
    pub direction: &'static str,
    /// Warnings, such as an ambiguous instruction name.
    pub warnings: &'a [String],
    /// One entry per operand (or output, for input-to-output maps).
    pub operands: Vec<OperandReport<'a>>,
}

/// One operand (output, parameter) and its maps.
#[derive(Serialize)]
pub struct OperandReport<'a> {
    /// The operand's position.
    pub index: usize,
    /// The operand's instruction name.
    pub name: &'a str,
    /// The maps in XLA's text form.
    pub maps: Vec<String>,
    /// The same maps with what XLA's text leaves out.
    pub details: Vec<MapReport<'a>>,
    /// Why there are no maps (XLA's "unknown indexing").
    pub unsupported: Option<&'a str>,
}

/// One map with its tuple element, runtime variables and replica map.
#[derive(Serialize)]
pub struct MapReport<'a> {
    /// The map in XLA's text form.
    pub map: String,
    /// For a tuple-shaped operand, the element the map indexes.
    pub tuple_element: Option<usize>,
    /// Whether an oversized expression was widened (the map over-approximates).
    pub widened: bool,
    /// Whether the map is exact (neither widened nor conservative).
    pub exact: bool,
    /// Why the map over-approximates by construction, if it does.
    pub conservative: Option<&'a str>,
    /// The runtime variables `rt0, rt1, ...` of the map.
    pub runtime_variables: Vec<RuntimeReport<'a>>,
    /// The map of replicated operands (all-gather), if any.
    pub replica: Option<String>,
}

/// One runtime variable `rtK` of a map.
#[derive(Serialize)]
pub struct RuntimeReport<'a> {
    /// `rtK`.
    pub name: String,
    /// The source as XLA prints it (`parameter(1)`, `constant(3)`, a name).
    pub source: &'a str,
    /// Which operand (parameter) of the analysed instruction holds the value.
    pub operand: Option<usize>,
    /// The name of that operand.
    pub operand_name: Option<&'a str>,
    /// From the map's dimensions to the index read in the source; its own
    /// range variables are named `rtK.sN`.
    pub map: String,
}

impl<'a> JsonReport<'a> {
    /// The JSON form of `r`.
    pub fn of(r: &'a InstructionIndexing) -> JsonReport<'a> {
        JsonReport {
            instruction: &r.instruction,
            direction: r.direction.as_str(),
            warnings: &r.warnings,
            operands: r.operands.iter().map(OperandReport::of).collect(),
        }
    }
}

impl<'a> OperandReport<'a> {
    /// The JSON form of `e`.
    pub fn of(e: &'a OperandEntry) -> OperandReport<'a> {
        let (maps, unsupported): (&[OperandMap], _) = match &e.indexing {
            OperandIndexing::Maps(maps) => (maps, None),
            OperandIndexing::Unsupported(reason) => (&[], Some(reason.message.as_str())),
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
    /// The JSON form of `m`.
    pub fn of(m: &'a OperandMap) -> MapReport<'a> {
        MapReport {
            map: m.map.to_string(),
            tuple_element: m.element,
            widened: m.widened,
            exact: m.is_exact(),
            conservative: m.conservative.as_deref(),
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
