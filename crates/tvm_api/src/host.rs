//! Calls from the API back into the front end.

use crate::args::Args;
use crate::error::ApiError;
use crate::session::Session;
use crate::value::Value;

/// The names of a front-end function's positional parameters, and whether
/// it takes `*args`: `te.compute` names its axes after them (`lambda *i`
/// gives `i0, i1, ...`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parameters {
    /// The positional parameters, in order.
    pub names: Vec<String>,
    /// Whether the function also takes `*args`.
    pub varargs: bool,
}

/// The front end, as the API sees it: it runs the functions a program
/// passes to the API (a compute's lambda, a layout's mapping function) and
/// holds the [`Session`].
pub trait Host {
    /// Calls the front-end function `f` with positional `args`.
    ///
    /// An error about the call itself (wrong number of arguments) is an
    /// [`ApiError`] with no argument; the API points it at the argument that
    /// gave `f`. An error raised while `f` runs keeps its own place: the
    /// front end stores it and returns an error of class
    /// [`crate::ErrorClass::Host`], which the API passes through unchanged.
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Result<Value, ApiError>;

    /// Calls `f` with positional and keyword arguments (a decorated
    /// function called as the program calls it). By default keywords are
    /// refused and positionals go to [`Host::call`].
    fn call_args(&mut self, f: &Value, args: Args) -> Result<Value, ApiError> {
        let name = "a decorated function";
        let positional = args.positional_only(name)?;
        self.call(f, positional.into_iter().map(|g| g.value).collect())
    }

    /// The parameters of `f`, or `None` when `f` is not a front-end
    /// function.
    fn parameters(&self, f: &Value) -> Option<Parameters>;

    /// What the program has built so far.
    fn session(&mut self) -> &mut Session;

    /// The layout map a front-end value stands for (a Python
    /// `IndexMap` object), for `transform_layout`; `None` when `v` is not
    /// one. Front ends without such objects keep the default.
    fn index_map(&self, _v: &Value) -> Option<layout::IndexMap> {
        None
    }

    /// The dotted path of the TVM module `v` is (`"tvm.script.tir"`),
    /// when it is one: how a script's `T` is recognised.
    fn module_path(&mut self, v: &Value) -> Option<String> {
        match v {
            Value::Object(crate::Object::Module(path)) => Some(path.to_string()),
            _ => None,
        }
    }

    /// The definition of front-end function `f`, for a hybrid script
    /// (`@te.hybrid.script`). By default hybrid scripts are refused.
    fn hybrid_source(&mut self, _f: &Value) -> Result<crate::HybridSource, ApiError> {
        Err(ApiError::not_supported(
            "hybrid scripts are not supported by this front end",
        ))
    }

    /// The value of `name` where front-end function `f` was defined (a
    /// global or a variable it closes over), if it has one: what a hybrid
    /// script reads without defining.
    fn free_variable(&mut self, _f: &Value, _name: &str) -> Option<Value> {
        None
    }
}
