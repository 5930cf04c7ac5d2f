//! `rangefinder.tc.infer`: Tensor Comprehensions range inference.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;

/// Registers the function on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tc_report, m)?)
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
    let mut values = HashMap::new();
    if let Some(sizes) = sizes {
        for (k, v) in sizes.iter() {
            let name: String = k.extract()?;
            let value: i64 = v.extract()?;
            tc::check_size(&name, value).map_err(crate::error::error)?;
            values.insert(name, value);
        }
    }
    let options = tc::ReportOptions {
        sizes: values,
        run,
        seed,
    };
    let report = tc::report(source, &options);
    Ok((report.to_json(source).to_string(), report.failed()))
}
