//! `tvm.ir.structural_equal` and `tvm.ir.assert_structural_equal`:
//! expressions, ranges and sequences of them node for node; functions in
//! block form up to the names of what they define
//! ([`tir::block::structural_diff`]).

use crate::args::Args;
use crate::error::{ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use crate::{ApiError, Function};

/// `structural_equal(lhs, rhs)` (a bool) or `assert_structural_equal(lhs,
/// rhs)` (`ValueError` naming the first difference).
pub(crate) fn call(native: Function, args: Args) -> ApiResult<Value> {
    let name = match native {
        Function::AssertStructuralEqual => "assert_structural_equal",
        _ => "structural_equal",
    };
    let a = args.bind(name, &["lhs", "rhs", "map_free_vars"])?;
    let (lhs, rhs) = (&a.required("lhs")?.value, &a.required("rhs")?.value);
    if let Some(e) = crate::tensor_ir::unparsed(lhs).or_else(|| crate::tensor_ir::unparsed(rhs)) {
        return Err(e);
    }
    let diff = match crate::tensor_ir::structural_diff(lhs, rhs) {
        Some(d) => d,
        None if same_structure(lhs, rhs) => Ok(()),
        None => Err(format!("{lhs} != {rhs}")),
    };
    match (native, diff) {
        (Function::AssertStructuralEqual, Ok(())) => Ok(Value::None),
        (Function::AssertStructuralEqual, Err(why)) => Err(ApiError::new(
            ErrorClass::ValueError,
            format!("StructuralEqual check failed: {why}"),
        )),
        (_, d) => Ok(Value::Bool(d.is_ok())),
    }
}

/// Whether `a` and `b` are the same expression, range or sequence of
/// them, node for node.
fn same_structure(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Index(x), Value::Index(y)) => x == y,
        (Value::Index(x), Value::Int(i)) | (Value::Int(i), Value::Index(x)) => {
            x.as_int() == Some(*i)
        }
        (Value::Object(Object::Range(x)), Value::Object(Object::Range(y))) => {
            x.min == y.min && x.extent == y.extent
        }
        (Value::Object(Object::Element(x)), Value::Object(Object::Element(y))) => {
            x.to_string() == y.to_string()
        }
        _ => match (a.sequence(), b.sequence()) {
            (Some(xs), Some(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(&ys).all(|(x, y)| same_structure(x, y))
            }
            _ => crate::equal(a, b) || matches!((a, b), (Value::Int(x), Value::Int(y)) if x == y),
        },
    }
}
