//! `rangefinder.hlo.analyze`: the indexing maps of an HLO instruction.

use crate::error::{error, error_at};
use crate::maps_api::IndexingMap;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Registers the function on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hlo_analyze, m)?)
}

/// The maps of `instruction` (default: the entry computation's ROOT) of the
/// HLO module `text`, as `rangefinder hlo --json` gives them, with maps as
/// `IndexingMap` objects.
#[pyfunction]
#[pyo3(signature = (text, instruction=None, output=0, input_to_output=false, to_parameters=false))]
fn hlo_analyze<'py>(
    py: Python<'py>,
    text: &str,
    instruction: Option<String>,
    output: usize,
    input_to_output: bool,
    to_parameters: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let module = hlo::parse_module(text).map_err(|e| error_at(py, text, &e.to_string(), Some(e.span.clone())))?;
    let query = hlo::Query {
        instruction,
        output,
        input_to_output,
        to_parameters,
        physical_layout: false,
    };
    let result = hlo::analyze(&module, &query).map_err(error)?;
    let out = PyDict::new(py);
    out.set_item("instruction", &result.instruction)?;
    out.set_item("direction", result.direction.as_str())?;
    let operands = PyList::empty(py);
    for e in &result.operands {
        let d = PyDict::new(py);
        d.set_item("index", e.index)?;
        d.set_item("name", &e.name)?;
        match &e.indexing {
            hlo::OperandIndexing::Maps(maps) => {
                let list = PyList::new(py, maps.iter().map(|m| IndexingMap { map: m.map.clone() }))?;
                d.set_item("maps", list)?;
                d.set_item("unsupported", py.None())?;
            }
            hlo::OperandIndexing::Unsupported(reason) => {
                d.set_item("maps", PyList::empty(py))?;
                d.set_item("unsupported", reason)?;
            }
        }
        operands.append(d)?;
    }
    out.set_item("operands", operands)?;
    Ok(out)
}
