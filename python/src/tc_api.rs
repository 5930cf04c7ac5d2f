//! `rangefinder.tc.infer`: Tensor Comprehensions range inference.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;

/// Registers the function on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tc_report, m)?)?;
    m.add_function(wrap_pyfunction!(tc_svg, m)?)
}

/// Size values from a Python mapping, each checked.
fn size_values(sizes: Option<&Bound<'_, PyDict>>) -> PyResult<HashMap<String, i64>> {
    let mut values = HashMap::new();
    if let Some(sizes) = sizes {
        for (k, v) in sizes.iter() {
            let name: String = k.extract()?;
            let value: i64 = v.extract()?;
            tc::check_size(&name, value).map_err(crate::error::error)?;
            values.insert(name, value);
        }
    }
    Ok(values)
}

/// The picture of the ranges inferred for `source` as SVG text, at the
/// values of `sizes` (symbolic bounds are written out).
#[pyfunction]
#[pyo3(signature = (source, sizes=None))]
fn tc_svg(source: &str, sizes: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
    let values = size_values(sizes)?;
    Ok(picture::tc_picture(source, &tc::analyze(source), &values).svg)
}

/// The report `rangefinder tc --json` prints for `source`, as JSON text.
#[pyfunction]
#[pyo3(signature = (source, sizes=None, run=false, seed=0))]
fn tc_report(
    source: &str,
    sizes: Option<&Bound<'_, PyDict>>,
    run: bool,
    seed: u64,
) -> PyResult<(String, bool)> {
    let values = size_values(sizes)?;
    let options = tc::ReportOptions {
        sizes: values,
        run,
        seed,
    };
    let report = tc::report(source, &options);
    Ok((report.to_json(source).to_string(), report.failed()))
}
