//! The `tvm` namespaces and the functions, classes and constants they hold.
//!
//! TVM has renamed its Python API several times (`tvm.compute`,
//! `tvm.te.compute`, `te.compute`; `tvm.schedule.InferBound`,
//! `tvm.te.schedule.InferBound`); every spelling resolves here to one
//! [`Function`], so the rest of the API sees a single name per function.

use crate::error::ErrorClass;
use crate::function::{Class, Function};
use crate::object::Object;
use crate::value::Value;

/// The modules a script may import, by dotted path.
const MODULES: &[&str] = &[
    "tvm",
    "tvm.te",
    "tvm.tir",
    "tvm.te.schedule",
    "tvm.schedule",
    "tvm.runtime",
    "tvm.testing",
    "tvm.container",
    "tvm.tir.stmt_functor",
    "tvm.error",
];

/// The module called `path`, if scripts may use it.
pub(crate) fn module(path: &str) -> Option<Value> {
    MODULES
        .iter()
        .find(|m| **m == path)
        .map(|m| Value::Object(Object::Module(m)))
}

/// `module.name`: a submodule or a function, in any of TVM's spellings.
pub(crate) fn module_attr(module_path: &str, name: &str) -> Option<Value> {
    let full = format!("{module_path}.{name}");
    if let Some(m) = module(&full) {
        return Some(m);
    }
    // The TE functions live in `tvm.te`, and in `tvm` itself in old releases.
    let te_level = matches!(module_path, "tvm" | "tvm.te");
    let tir_level = matches!(module_path, "tvm" | "tvm.tir" | "tvm.te");
    if name == "AXIS_SEPARATOR" && te_level {
        return Some(Value::Object(Object::AxisSeparator));
    }
    let function = match name {
        "placeholder" if te_level => Function::Placeholder,
        "compute" if te_level => Function::Compute,
        "var" if te_level || module_path == "tvm.tir" => Function::Var,
        "size_var" if te_level || module_path == "tvm.tir" => Function::SizeVar,
        "reduce_axis" if te_level => Function::ReduceAxis,
        "thread_axis" if te_level => Function::ThreadAxis,
        "sum" if te_level => Function::Sum,
        "max" if tir_level => Function::MaxReducer,
        "min" if tir_level => Function::MinReducer,
        "create_schedule" if te_level => Function::CreateSchedule,
        "const" if tir_level => Function::Const,
        "lower" if module_path == "tvm" => Function::Lower,
        "InferBound" if matches!(module_path, "tvm.te.schedule" | "tvm.schedule") => {
            Function::InferBound
        }
        "convert" if matches!(module_path, "tvm" | "tvm.runtime") => Function::Convert,
        "floordiv" | "indexdiv" if tir_level => Function::FloorDiv,
        "floormod" | "indexmod" if tir_level => Function::FloorMod,
        "truncdiv" if tir_level => Function::TruncDiv,
        "truncmod" if tir_level => Function::TruncMod,
        "if_then_else" if tir_level => Function::IfThenElse,
        "all" if tir_level => Function::All,
        "any" if tir_level => Function::Any,
        "assert_prim_expr_equal" if module_path == "tvm.testing" => Function::AssertPrimExprEqual,
        "substitute" if module_path == "tvm.tir.stmt_functor" => Function::Substitute,
        "Map" if module_path == "tvm.container" => {
            return Some(Value::Object(Object::Class(Class::Map)))
        }
        "Var" if module_path == "tvm.tir" => return Some(Value::Object(Object::Class(Class::Var))),
        "IterVar" if module_path == "tvm.tir" => {
            return Some(Value::Object(Object::Class(Class::IterVar)))
        }
        "Tensor" if te_level => return Some(Value::Object(Object::Class(Class::Tensor))),
        "Split" if module_path == "tvm.te.schedule" => {
            return Some(Value::Object(Object::Class(Class::Split)))
        }
        "Fuse" if module_path == "tvm.te.schedule" => {
            return Some(Value::Object(Object::Class(Class::Fuse)))
        }
        "TVMError" if module_path == "tvm.error" => {
            return Some(Value::Object(Object::Class(Class::Error(
                ErrorClass::TVMError,
            ))))
        }
        _ if tir_level => Function::Intrinsic(tir::Intrinsic::from_tvm_name(name)?),
        _ => return None,
    };
    Some(Value::Function(function))
}

/// What dotted `path` names; `te.` and `tir.` stand for `tvm.te.` and
/// `tvm.tir.`, as programs import them.
pub(crate) fn resolve(path: &str) -> Option<Value> {
    let full;
    let path =
        if path == "te" || path == "tir" || path.starts_with("te.") || path.starts_with("tir.") {
            full = format!("tvm.{path}");
            full.as_str()
        } else {
            path
        };
    if let Some(m) = module(path) {
        return Some(m);
    }
    let (parent, name) = path.rsplit_once('.')?;
    match resolve(parent)? {
        Value::Object(Object::Module(m)) => module_attr(m, name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(path: &str, name: &str) -> Option<Function> {
        match module_attr(path, name) {
            Some(Value::Function(n)) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn old_and_new_spellings_resolve_to_the_same_function() {
        assert_eq!(native("tvm", "compute"), Some(Function::Compute));
        assert_eq!(native("tvm.te", "compute"), Some(Function::Compute));
        assert_eq!(
            native("tvm.schedule", "InferBound"),
            Some(Function::InferBound)
        );
        assert_eq!(
            native("tvm.te.schedule", "InferBound"),
            Some(Function::InferBound)
        );
        assert_eq!(native("tvm.tir", "indexdiv"), Some(Function::FloorDiv));
        assert_eq!(native("tvm.tir", "compute"), None);
        assert_eq!(
            native("tvm.te", "exp"),
            Some(Function::Intrinsic(tir::Intrinsic::Exp))
        );
        assert_eq!(native("tvm.tir", "exp"), native("tvm.te", "exp"));
        assert_eq!(native("tvm.tir", "no_such_function"), None);
        assert!(matches!(
            resolve("te.compute"),
            Some(Value::Function(Function::Compute))
        ));
        assert!(matches!(
            resolve("tvm.compute"),
            Some(Value::Function(Function::Compute))
        ));
        assert!(matches!(
            resolve("tvm.te.schedule.InferBound"),
            Some(Value::Function(Function::InferBound))
        ));
        assert!(matches!(
            resolve("tvm.error.TVMError"),
            Some(Value::Object(Object::Class(Class::Error(
                ErrorClass::TVMError
            ))))
        ));
        assert!(resolve("tvm.nothing").is_none());
        assert!(matches!(
            module_attr("tvm", "te"),
            Some(Value::Object(Object::Module("tvm.te")))
        ));
    }
}
