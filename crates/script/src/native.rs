//! Built-in functions and the `tvm` namespaces that hold them.
//!
//! TVM has renamed its Python API several times (`tvm.compute`,
//! `tvm.te.compute`, `te.compute`; `tvm.schedule.InferBound`,
//! `tvm.te.schedule.InferBound`); every spelling resolves here to one
//! [`Native`], so the rest of the interpreter sees a single name per
//! function.

use crate::error::RaisedKind;
use crate::value::Value;

/// A function implemented by the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Native {
    // Python builtins.
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
    /// An exception class, for `except` and `pytest.raises`.
    Error(ErrorClass),
    /// `pytest.raises(E)`: a context that expects the error `E`.
    PytestRaises,
    // Types that only `isinstance` uses.
    MapType,
    VarType,
    IterVarType,
    TensorType,
    SplitType,
    FuseType,
    // TE: tensors and expressions.
    Placeholder,
    Compute,
    Var,
    SizeVar,
    ReduceAxis,
    ThreadAxis,
    Sum,
    /// `te.max`: a reduction with `axis=`, else the larger of two values.
    MaxReducer,
    /// `te.min`: a reduction with `axis=`, else the smaller of two values.
    MinReducer,
    Const,
    Convert,
    FloorDiv,
    FloorMod,
    TruncDiv,
    TruncMod,
    IfThenElse,
    All,
    Any,
    /// A math function of `tvm.tir` / `te` (`te.exp`, `tvm.tir.sigmoid`).
    Intrinsic(tir::Intrinsic),
    // TE: schedules.
    CreateSchedule,
    InferBound,
    Lower,
    // Testing helpers of TVM's own tests.
    AssertPrimExprEqual,
    Substitute,
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
            Native::Error(class) => class.name(),
            Native::PytestRaises => "pytest.raises",
            Native::SplitType => "tvm.te.schedule.Split",
            Native::FuseType => "tvm.te.schedule.Fuse",
            Native::MapType => "tvm.container.Map",
            Native::VarType => "tvm.tir.Var",
            Native::IterVarType => "tvm.tir.IterVar",
            Native::TensorType => "te.Tensor",
            Native::Placeholder => "te.placeholder",
            Native::Compute => "te.compute",
            Native::Var => "te.var",
            Native::SizeVar => "te.size_var",
            Native::ReduceAxis => "te.reduce_axis",
            Native::ThreadAxis => "te.thread_axis",
            Native::Sum => "te.sum",
            Native::MaxReducer => "te.max",
            Native::MinReducer => "te.min",
            Native::Const => "tvm.tir.const",
            Native::Convert => "tvm.runtime.convert",
            Native::FloorDiv => "tvm.tir.floordiv",
            Native::FloorMod => "tvm.tir.floormod",
            Native::TruncDiv => "tvm.tir.truncdiv",
            Native::TruncMod => "tvm.tir.truncmod",
            Native::IfThenElse => "tvm.tir.if_then_else",
            Native::All => "tvm.tir.all",
            Native::Any => "tvm.tir.any",
            Native::Intrinsic(f) => f.name(),
            Native::CreateSchedule => "te.create_schedule",
            Native::InferBound => "tvm.te.schedule.InferBound",
            Native::Lower => "tvm.lower",
            Native::AssertPrimExprEqual => "tvm.testing.assert_prim_expr_equal",
            Native::Substitute => "tvm.tir.stmt_functor.substitute",
            Native::Builtin(b) => b.name(),
        }
    }

    /// The Python builtin called `name`.
    pub fn builtin(name: &str) -> Option<Native> {
        Some(match name {
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
            "Exception" => Native::Error(ErrorClass::Exception),
            "RuntimeError" => Native::Error(ErrorClass::RuntimeError),
            "AssertionError" => Native::Error(ErrorClass::AssertionError),
            _ => {
                return ErrorClass::python(name)
                    .map(Native::Error)
                    .or_else(|| crate::builtins::Builtin::named(name).map(Native::Builtin))
            }
        })
    }
}

/// The exception classes scripts catch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorClass {
    Exception,
    RuntimeError,
    /// `tvm.error.TVMError`, a `RuntimeError`.
    TvmError,
    AssertionError,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    /// The base of `KeyError` and `IndexError`.
    LookupError,
    /// A `RuntimeError`.
    NotImplementedError,
    ZeroDivisionError,
    AttributeError,
    OverflowError,
}

impl ErrorClass {
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Exception => "Exception",
            ErrorClass::RuntimeError => "RuntimeError",
            ErrorClass::TvmError => "tvm.error.TVMError",
            ErrorClass::AssertionError => "AssertionError",
            ErrorClass::ValueError => "ValueError",
            ErrorClass::TypeError => "TypeError",
            ErrorClass::KeyError => "KeyError",
            ErrorClass::IndexError => "IndexError",
            ErrorClass::LookupError => "LookupError",
            ErrorClass::NotImplementedError => "NotImplementedError",
            ErrorClass::ZeroDivisionError => "ZeroDivisionError",
            ErrorClass::AttributeError => "AttributeError",
            ErrorClass::OverflowError => "OverflowError",
        }
    }

    /// The Python exception class called `name`, beyond the classes TVM
    /// raises.
    pub fn python(name: &str) -> Option<ErrorClass> {
        Some(match name {
            "ValueError" => ErrorClass::ValueError,
            "TypeError" => ErrorClass::TypeError,
            "KeyError" => ErrorClass::KeyError,
            "IndexError" => ErrorClass::IndexError,
            "LookupError" => ErrorClass::LookupError,
            "NotImplementedError" => ErrorClass::NotImplementedError,
            "ZeroDivisionError" => ErrorClass::ZeroDivisionError,
            "AttributeError" => ErrorClass::AttributeError,
            "OverflowError" => ErrorClass::OverflowError,
            _ => return None,
        })
    }

    /// Whether `self` is `base` or derives from it, in Python's hierarchy.
    pub fn is_subclass_of(self, base: ErrorClass) -> bool {
        use ErrorClass as E;
        self == base
            || base == E::Exception
            || matches!(
                (self, base),
                (E::KeyError | E::IndexError, E::LookupError)
                    | (E::NotImplementedError | E::TvmError, E::RuntimeError)
            )
    }

    /// Whether `except self` catches an error of `kind`.
    pub fn catches(self, kind: RaisedKind) -> bool {
        match (self, kind) {
            (_, RaisedKind::Script) => false,
            (ErrorClass::Exception, _) => true,
            (ErrorClass::RuntimeError | ErrorClass::TvmError, RaisedKind::Tvm) => true,
            (ErrorClass::AssertionError, RaisedKind::Assertion) => true,
            (class, RaisedKind::Python(raised)) => raised.is_subclass_of(class),
            _ => false,
        }
    }
}

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
    "pytest",
];

/// The module called `path`, if scripts may use it.
pub(crate) fn module(path: &str) -> Option<Value> {
    MODULES
        .iter()
        .find(|m| **m == path)
        .map(|m| Value::Module(m))
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
        return Some(Value::Te(crate::objects::TeObject::AxisSeparator));
    }
    let native = match name {
        "placeholder" if te_level => Native::Placeholder,
        "compute" if te_level => Native::Compute,
        "var" if te_level || module_path == "tvm.tir" => Native::Var,
        "size_var" if te_level || module_path == "tvm.tir" => Native::SizeVar,
        "reduce_axis" if te_level => Native::ReduceAxis,
        "thread_axis" if te_level => Native::ThreadAxis,
        "sum" if te_level => Native::Sum,
        "max" if tir_level => Native::MaxReducer,
        "min" if tir_level => Native::MinReducer,
        "create_schedule" if te_level => Native::CreateSchedule,
        "const" if tir_level => Native::Const,
        "lower" if module_path == "tvm" => Native::Lower,
        "InferBound" if matches!(module_path, "tvm.te.schedule" | "tvm.schedule") => {
            Native::InferBound
        }
        "convert" if matches!(module_path, "tvm" | "tvm.runtime") => Native::Convert,
        "floordiv" | "indexdiv" if tir_level => Native::FloorDiv,
        "floormod" | "indexmod" if tir_level => Native::FloorMod,
        "truncdiv" if tir_level => Native::TruncDiv,
        "truncmod" if tir_level => Native::TruncMod,
        "if_then_else" if tir_level => Native::IfThenElse,
        "all" if tir_level => Native::All,
        "any" if tir_level => Native::Any,
        "assert_prim_expr_equal" if module_path == "tvm.testing" => Native::AssertPrimExprEqual,
        "substitute" if module_path == "tvm.tir.stmt_functor" => Native::Substitute,
        "Map" if module_path == "tvm.container" => Native::MapType,
        "Var" if module_path == "tvm.tir" => Native::VarType,
        "IterVar" if module_path == "tvm.tir" => Native::IterVarType,
        "Tensor" if te_level => Native::TensorType,
        "Split" if module_path == "tvm.te.schedule" => Native::SplitType,
        "Fuse" if module_path == "tvm.te.schedule" => Native::FuseType,
        "TVMError" if module_path == "tvm.error" => Native::Error(ErrorClass::TvmError),
        "raises" if module_path == "pytest" => Native::PytestRaises,
        "main" if matches!(module_path, "pytest" | "tvm.testing") => {
            Native::Builtin(crate::builtins::Builtin::TestMain)
        }
        _ if tir_level => Native::Intrinsic(tir::Intrinsic::from_tvm_name(name)?),
        _ => return None,
    };
    Some(Value::Native(native))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(path: &str, name: &str) -> Option<Native> {
        match module_attr(path, name) {
            Some(Value::Native(n)) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn old_and_new_spellings_resolve_to_the_same_function() {
        assert_eq!(native("tvm", "compute"), Some(Native::Compute));
        assert_eq!(native("tvm.te", "compute"), Some(Native::Compute));
        assert_eq!(
            native("tvm.schedule", "InferBound"),
            Some(Native::InferBound)
        );
        assert_eq!(
            native("tvm.te.schedule", "InferBound"),
            Some(Native::InferBound)
        );
        assert_eq!(native("tvm.tir", "indexdiv"), Some(Native::FloorDiv));
        assert_eq!(native("tvm.tir", "compute"), None);
        assert_eq!(
            native("tvm.te", "exp"),
            Some(Native::Intrinsic(tir::Intrinsic::Exp))
        );
        assert_eq!(native("tvm.tir", "exp"), native("tvm.te", "exp"));
        assert_eq!(native("tvm.tir", "no_such_function"), None);
        assert!(matches!(
            module_attr("tvm", "te"),
            Some(Value::Module("tvm.te"))
        ));
    }
}
