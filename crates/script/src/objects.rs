//! TVM objects in the interpreter: the [`tvm_api`] protocol with its errors
//! placed at the script's spans.

use crate::error::{Eval, Raised};
use crate::value::Value;
use std::ops::Range;

/// The items of a value a script unpacks or loops over.
pub(crate) fn unpack(v: &Value) -> Option<Vec<Value>> {
    tvm_api::iter(v)
}

/// `value.name` (modules included).
pub(crate) fn attribute(value: &Value, name: &str, span: Range<usize>) -> Eval<Value> {
    if let Some(path) = crate::native::module_path(value) {
        return crate::native::module_attr(path, name).ok_or_else(|| {
            Raised::at(
                span,
                format!("`{path}.{name}` is not supported by rangefinder"),
            )
        });
    }
    tvm_api::get_attr(value, name).map_err(|e| Raised::api(span, e))
}

/// `value[index]` for TVM objects; an error about the index points at
/// `index_span`.
pub(crate) fn subscript(
    value: &Value,
    index: &Value,
    index_span: Range<usize>,
    span: Range<usize>,
) -> Eval<Value> {
    tvm_api::subscript(value, index).map_err(|e| {
        let at = if e.arg.is_some() { index_span } else { span };
        Raised::api(at, e)
    })
}

/// Whether a value is one the API computes with (a `PrimExpr` or a TVM
/// object), as opposed to a plain Python value.
pub(crate) fn is_api_value(v: &Value) -> bool {
    matches!(v, Value::Index(_) | Value::Object(_))
}
