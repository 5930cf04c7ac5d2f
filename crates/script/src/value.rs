//! Values of the Python subset: [`tvm_api::Value`], whose front-end values
//! ([`Value::Host`]) are the interpreter's own: functions a script defines,
//! Python's builtins, the `pytest` module and `pytest.raises` contexts.

use crate::function::Function;
use crate::native::Native;
use std::any::Any;
use std::fmt;
use std::rc::Rc;
pub(crate) use tvm_api::Value;
use tvm_api::{ErrorClass, HostValue};

/// A value only the interpreter understands.
pub(crate) enum ScriptValue {
    /// A `def` or lambda.
    Function(Function),
    /// A Python builtin such as `print` or `range`.
    Builtin(Native),
    /// A module that is not TVM's (`pytest`), by its dotted path.
    Module(&'static str),
    /// `pytest.raises(E)`: a `with` context that expects the error `E`.
    ExpectError(ErrorClass),
    /// `size = tvm.testing.parameter(1, 10)`: the values a test taking
    /// `size` runs with (see `Interpreter::run_test_functions`).
    Parameter(Parameter),
    /// `@tvm.testing.fixture def f(...)`: a pytest fixture, the function
    /// that computes it. `tvm.testing.main()` does not compute fixtures.
    Fixture(Value),
    /// A class the script defines: its attributes (what its body bound),
    /// read as `Class.name`. Making instances needs CPython.
    Class(Class),
    /// What `pickle.dumps` returns (Python's `bytes`): the `save_json`
    /// document of the object, which only `pickle.loads` reads.
    Pickled(Rc<str>),
    /// A compiled regular expression (`re.compile(...)`).
    RePattern(Rc<crate::pyre::Pattern>),
    /// A match of a regular expression (`re.search(...)`).
    ReMatch(Rc<crate::pyre::Match>),
    /// A one-dimensional numpy array (`np.array([...])`).
    NdArray(crate::pynumpy::NdArray),
    /// A type `collections.namedtuple(...)` declared; its instances are
    /// tuples (see [`crate::namedtuple`]).
    NamedTupleType(Rc<crate::namedtuple::NamedTupleType>),
}

/// A class defined by a `class` statement.
pub(crate) struct Class {
    /// The class name.
    pub name: String,
    /// What the class body bound, by name.
    pub attributes: std::collections::HashMap<String, Value>,
}

/// A test parameter of `tvm.testing.parameter` or `tvm.testing.parameters`.
pub(crate) struct Parameter {
    /// Its values, one per run.
    pub values: Vec<Value>,
    /// The `tvm.testing.parameters` call it came from, if any: parameters of
    /// one call take their values together (the `k`th run of each), not in
    /// every combination.
    pub group: Option<usize>,
}

impl HostValue for ScriptValue {
    fn type_name(&self) -> &'static str {
        match self {
            ScriptValue::Function(_) => "function",
            ScriptValue::Builtin(_) => "builtin function",
            ScriptValue::Module(_) => "module",
            ScriptValue::ExpectError(_) => "pytest.raises context",
            ScriptValue::Parameter(_) => "pytest fixture",
            ScriptValue::Class(_) => "class",
            ScriptValue::Pickled(_) => "bytes",
            ScriptValue::RePattern(_) => "re.Pattern",
            ScriptValue::ReMatch(_) => "re.Match",
            ScriptValue::NdArray(_) => "numpy.ndarray",
            ScriptValue::Fixture(_) => "pytest fixture",
            ScriptValue::NamedTupleType(_) => "type",
        }
    }

    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScriptValue::Function(func) => write!(f, "<function {}>", func.name),
            ScriptValue::Builtin(n) => match crate::builtins::class_name(*n) {
                Some(class) => write!(f, "<class '{class}'>"),
                None => write!(f, "<built-in function {}>", n.name()),
            },
            ScriptValue::Module(path) => write!(f, "<module '{path}'>"),
            ScriptValue::ExpectError(class) => write!(f, "<pytest.raises({})>", class.name()),
            ScriptValue::Parameter(p) => {
                write!(f, "<tvm.testing.parameter of {} values>", p.values.len())
            }
            ScriptValue::Class(c) => write!(f, "<class '__main__.{}'>", c.name),
            ScriptValue::Fixture(func) => write!(f, "<fixture {func}>"),
            ScriptValue::Pickled(text) => write!(f, "<pickled object, {} bytes>", text.len()),
            ScriptValue::RePattern(_) | ScriptValue::ReMatch(_) => crate::pyre::fmt(self, f),
            ScriptValue::NdArray(a) => crate::pynumpy::fmt(a, f),
            ScriptValue::NamedTupleType(t) => write!(f, "<class '__main__.{}'>", t.name),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// Builtins and modules are equal by name; functions and contexts are
    /// never equal, not even to themselves (as before they were values of
    /// this API).
    fn same_as(&self, other: &dyn HostValue) -> bool {
        match (self, other.as_any().downcast_ref::<ScriptValue>()) {
            (ScriptValue::Builtin(a), Some(ScriptValue::Builtin(b))) => a == b,
            (ScriptValue::Module(a), Some(ScriptValue::Module(b))) => a == b,
            _ => false,
        }
    }
}

/// A function value.
pub(crate) fn function(f: Function) -> Value {
    Value::Host(Rc::new(ScriptValue::Function(f)))
}

/// The interpreter's own value in `v`, if any.
pub(crate) fn script_value(v: &Value) -> Option<&ScriptValue> {
    v.as_host::<ScriptValue>()
}

/// The exception class `pytest.raises(E)` expects, if `v` is such a context.
pub(crate) fn expected_error(v: &Value) -> Option<ErrorClass> {
    match script_value(v) {
        Some(ScriptValue::ExpectError(class)) => Some(*class),
        _ => None,
    }
}
