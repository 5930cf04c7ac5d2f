//! The exceptions the package raises.
//!
//! `rangefinder.Error` (a `ValueError`) is raised for bad input of every
//! kind; where the input was text, it carries the position as `line` and
//! `column` (1-based) and `span` (byte offsets). `rangefinder.TVMError`
//! is what TVM raises from schedules and lowering: a subclass of both
//! `rangefinder.Error` and `RuntimeError`, so scripts written against TVM
//! (`except RuntimeError`, `except tvm.error.TVMError`) catch it. Errors
//! of TE objects carry their category as `kind` (see [`te_error`]).

use pyo3::exceptions::{
    PyAssertionError, PyAttributeError, PyException, PyIndexError, PyKeyError, PyLookupError,
    PyNameError, PyNotImplementedError, PyOSError, PyRuntimeError, PyTypeError, PyValueError,
    PyZeroDivisionError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};
use std::ops::Range;
use tvm_api::{ApiError, ErrorClass};

pyo3::create_exception!(
    rangefinder,
    Error,
    PyValueError,
    "Bad input to rangefinder: a message, and where the input was text its `line`, `column` and `span`."
);

/// Creates `TVMError(Error, RuntimeError)` and adds both classes to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<Error>();
    m.add("Error", &base)?;
    let bases = PyTuple::new(
        py,
        [base.into_any(), py.get_type::<PyRuntimeError>().into_any()],
    )?;
    let dict = PyDict::new(py);
    dict.set_item(
        "__doc__",
        "An error TVM raises from schedules and lowering (also a RuntimeError).",
    )?;
    dict.set_item("__module__", "rangefinder")?;
    let tvm_error = py.get_type::<PyType>().call1(("TVMError", bases, dict))?;
    m.add("TVMError", tvm_error)?;
    Ok(())
}

/// A `rangefinder.Error` with a message and no position.
pub fn error(msg: impl Into<String>) -> PyErr {
    Error::new_err(msg.into())
}

/// A `rangefinder.Error` pointing into `source` at `span`.
pub fn error_at(py: Python<'_>, source: &str, msg: &str, span: Option<Range<usize>>) -> PyErr {
    let Some(span) = span else {
        return error(msg.to_owned());
    };
    let start = span.start.min(source.len());
    let (line, column) = arith::line_column(source, start);
    let err = Error::new_err(format!("{line}:{column}: {msg}"));
    let value = err.value(py);
    let _ = value.setattr("line", line);
    let _ = value.setattr("column", column);
    let _ = value.setattr("span", (span.start, span.end));
    err
}

/// A `rangefinder.TVMError` with `msg`.
pub fn tvm_error(py: Python<'_>, msg: impl Into<String>) -> PyErr {
    let msg = msg.into();
    let class = py
        .import("rangefinder._native")
        .and_then(|m| m.getattr("TVMError"));
    match class.and_then(|c| c.call1((msg.clone(),))) {
        Ok(instance) => PyErr::from_value(instance),
        Err(_) => error(msg),
    }
}

/// The Python exception of an API error, with the API's message: a
/// `TVMError` (with its `kind` for errors of `te`), Python's exception of
/// the same name for mistakes in a program, and `rangefinder.Error` (a
/// `ValueError`) for values rangefinder refuses (a `ValueError`, an
/// integer beyond 64 bits).
pub fn api_error(py: Python<'_>, e: ApiError) -> PyErr {
    let message = e.message;
    match e.class {
        ErrorClass::TVMError => {
            let err = tvm_error(py, message);
            if let Some(kind) = e.kind {
                let _ = err.value(py).setattr("kind", kind);
            }
            err
        }
        ErrorClass::RuntimeError => PyRuntimeError::new_err(message),
        ErrorClass::ValueError | ErrorClass::OverflowError => error(message),
        ErrorClass::TypeError | ErrorClass::TvmTypeError => PyTypeError::new_err(message),
        ErrorClass::IndexError => PyIndexError::new_err(message),
        ErrorClass::KeyError => PyKeyError::new_err(message),
        ErrorClass::LookupError => PyLookupError::new_err(message),
        ErrorClass::AttributeError => PyAttributeError::new_err(message),
        ErrorClass::NameError => PyNameError::new_err(message),
        ErrorClass::ZeroDivisionError => PyZeroDivisionError::new_err(message),
        ErrorClass::AssertionError => PyAssertionError::new_err(message),
        ErrorClass::NotSupported => PyNotImplementedError::new_err(message),
        ErrorClass::OSError => PyOSError::new_err(message),
        ErrorClass::Exception | ErrorClass::Host => PyException::new_err(message),
    }
}

/// A `rangefinder.TVMError` for an error of `te`, with its kind as the
/// attribute `kind` (`"invalid_schedule"`, `"overflow"`,
/// `"division_by_zero"`, ...) so that callers can react by kind.
pub fn te_error(py: Python<'_>, e: te::TeError) -> PyErr {
    let err = tvm_error(py, e.message);
    let _ = err.value(py).setattr("kind", e.kind.name());
    err
}
