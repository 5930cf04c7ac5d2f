//! Calls from the API back into the front end.

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

    /// The parameters of `f`, or `None` when `f` is not a front-end
    /// function.
    fn parameters(&self, f: &Value) -> Option<Parameters>;

    /// What the program has built so far.
    fn session(&mut self) -> &mut Session;
}
