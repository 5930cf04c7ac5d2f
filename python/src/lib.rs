//! The `rangefinder` Python package's native module (`rangefinder._native`).
//!
//! The Python package (`python/rangefinder/`) arranges these functions and
//! classes into the public API: `rangefinder.simplify`, `Analyzer`,
//! `IndexingMap`, `rangefinder.hlo.analyze`, `rangefinder.report`, and
//! `rangefinder.tvm`, a stand-in for TVM's TE.

use pyo3::prelude::*;

mod arith_api;
mod error;
mod hlo_api;
mod host;
mod layout_api;
mod maps_api;
mod object;
mod tc_api;
mod te_api;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    error::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    arith_api::register(m)?;
    maps_api::register(m)?;
    hlo_api::register(m)?;
    te_api::register(m)?;
    layout_api::register(m)?;
    tc_api::register(m)?;
    Ok(())
}
