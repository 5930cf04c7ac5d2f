//! `rangefinder.hlo.analyze`: the indexing maps of an HLO instruction.

use crate::error::{error, error_at};
use crate::maps_api::IndexingMap;
use pyo3::prelude::*;

/// Registers the function on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hlo_analyze, m)?)
}

/// The maps of `instruction` (default: the entry computation's ROOT) of the
/// HLO module `text`: the JSON text `rangefinder hlo --json` prints, and
/// per operand its maps as `IndexingMap` objects. `physical` maps physical
/// positions (layout order and tiles), as `--physical` does.
#[pyfunction]
#[pyo3(signature = (text, instruction=None, output=0, input_to_output=false, to_parameters=false, physical=false))]
fn hlo_analyze(
    py: Python<'_>,
    text: &str,
    instruction: Option<String>,
    output: usize,
    input_to_output: bool,
    to_parameters: bool,
    physical: bool,
) -> PyResult<(String, Vec<Vec<IndexingMap>>)> {
    let module = hlo::parse_module(text)
        .map_err(|e| error_at(py, text, &e.message, Some(e.span.clone())))?;
    let query = hlo::Query {
        instruction,
        output,
        input_to_output,
        to_parameters,
        physical_layout: physical,
    };
    let result =
        hlo::analyze(&module, &query).map_err(|e| error_at(py, text, &e.to_string(), e.span()))?;
    let json =
        serde_json::to_string(&hlo::JsonReport::of(&result)).map_err(|e| error(e.to_string()))?;
    // Output-to-input maps are drawn over the instruction's shapes; the
    // others, alone, over their ranges.
    let scene = hlo::map_shapes(&module, &query)
        .ok()
        .and_then(|shapes| picture::hlo_scene(&result, &shapes).ok());
    let maps = result
        .operands
        .iter()
        .enumerate()
        .map(|(k, e)| match &e.indexing {
            hlo::OperandIndexing::Maps(maps) => maps
                .iter()
                .enumerate()
                .map(|(j, m)| IndexingMap {
                    map: m.map.clone(),
                    scene: scene.as_ref().and_then(|s| scene_of(s, k, j, maps)),
                })
                .collect(),
            hlo::OperandIndexing::Unsupported(_) => Vec::new(),
        })
        .collect();
    Ok((json, maps))
}

/// The scene of map `j` of operand `k` alone. The scene holds only the maps
/// of one tuple element per operand, so `j` counts among those.
fn scene_of(
    scene: &picture::MapScene,
    k: usize,
    j: usize,
    maps: &[hlo::OperandMap],
) -> Option<picture::MapScene> {
    let element = maps.first().and_then(|m| m.element);
    if maps[j].element != element {
        return None;
    }
    let position = maps[..j].iter().filter(|m| m.element == element).count();
    scene.only(k, position)
}
