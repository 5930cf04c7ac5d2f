//! Python's builtin functions and the modules a script may import.
//!
//! The `tvm` namespaces and everything in them are [`tvm_api`]'s
//! ([`tvm_api::module`]); this adds Python's builtins and `pytest`.

use crate::value::{ScriptValue, Value};
use std::rc::Rc;
use tvm_api::{Class, ErrorClass, Object};

/// A Python builtin implemented by the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Native {
    Print,
    Range,
    Len,
    Tuple,
    List,
    Int,
    Min,
    Max,
    Abs,
    Isinstance,
    /// Python's `any`.
    AnyOf,
    /// Python's `all`.
    AllOf,
    Zip,
    Enumerate,
    /// `pytest.raises(E)`: a context that expects the error `E`.
    PytestRaises,
    /// A Python builtin or a function of a Python module (`sorted`,
    /// `math.ceil`, `functools.reduce`).
    Builtin(crate::builtins::Builtin),
}

impl Native {
    /// The name a script would use, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Native::Print => "print",
            Native::Range => "range",
            Native::Len => "len",
            Native::Tuple => "tuple",
            Native::List => "list",
            Native::Int => "int",
            Native::Min => "min",
            Native::Max => "max",
            Native::Abs => "abs",
            Native::Isinstance => "isinstance",
            Native::AnyOf => "any",
            Native::AllOf => "all",
            Native::Zip => "zip",
            Native::Enumerate => "enumerate",
            Native::PytestRaises => "pytest.raises",
            Native::Builtin(b) => b.name(),
        }
    }

    /// The Python builtin called `name`: a function or an exception class.
    pub fn builtin(name: &str) -> Option<Value> {
        let native = match name {
            "print" => Native::Print,
            "range" => Native::Range,
            "len" => Native::Len,
            "tuple" => Native::Tuple,
            "list" => Native::List,
            "int" => Native::Int,
            "min" => Native::Min,
            "max" => Native::Max,
            "abs" => Native::Abs,
            "isinstance" => Native::Isinstance,
            "any" => Native::AnyOf,
            "all" => Native::AllOf,
            "zip" => Native::Zip,
            "enumerate" => Native::Enumerate,
            // Python's exception classes; `NameError` is not one a script
            // names (a missing name is a mistake, never caught).
            _ => match ErrorClass::named(name) {
                Some(ErrorClass::NameError) | None => {
                    Native::Builtin(crate::builtins::Builtin::named(name)?)
                }
                Some(class) => return Some(error_class(class)),
            },
        };
        Some(Value::Host(Rc::new(ScriptValue::Builtin(native))))
    }
}

fn error_class(class: ErrorClass) -> Value {
    Value::Object(Object::Class(Class::Error(class)))
}

/// The module called `path`, if scripts may import it.
pub(crate) fn module(path: &str) -> Option<Value> {
    if path == "pytest" {
        return Some(Value::Host(Rc::new(ScriptValue::Module("pytest"))));
    }
    tvm_api::module(path).or_else(|| crate::pymodules::module(path))
}

/// The dotted path of a module value.
pub(crate) fn module_path(v: &Value) -> Option<&'static str> {
    match v {
        Value::Object(Object::Module(path)) => Some(path),
        _ => match crate::value::script_value(v) {
            Some(ScriptValue::Module(path)) => Some(path),
            _ => None,
        },
    }
}

/// `module.name` for the module at `path`: a submodule or a function, in
/// any of TVM's spellings.
pub(crate) fn module_attr(path: &str, name: &str) -> Option<Value> {
    let builtin = |n: Native| Some(Value::Host(Rc::new(ScriptValue::Builtin(n))));
    if name == "main" && matches!(path, "pytest" | "tvm.testing") {
        return builtin(Native::Builtin(crate::builtins::Builtin::TestMain));
    }
    if path == "tvm.testing" {
        match name {
            "parameter" => {
                return builtin(Native::Builtin(crate::builtins::Builtin::TestParameter))
            }
            "parameters" => {
                return builtin(Native::Builtin(crate::builtins::Builtin::TestParameters))
            }
            "fixture" => return builtin(Native::Builtin(crate::builtins::Builtin::TestFixture)),
            _ => {}
        }
    }
    if path == "pytest" {
        return match name {
            "raises" => builtin(Native::PytestRaises),
            "mark" => Some(Value::Host(Rc::new(ScriptValue::Module("pytest.mark")))),
            _ => None,
        };
    }
    if path == "pytest.mark" {
        return Some(tvm_api::pytest_mark(name));
    }
    if tvm_api::module(path).is_none() {
        return crate::pymodules::attribute(path, name);
    }
    let module = tvm_api::module(path)?;
    tvm_api::get_attr(&module, name).ok()
}
