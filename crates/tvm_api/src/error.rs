//! Errors of the API: a Python exception class, a message, and the argument
//! it is about.

use std::fmt;

/// Which argument of a call an error is about, so that a front end can
/// point at it (the script interpreter turns it into the argument's span).
///
/// For [`crate::subscript`], `Positional(0)` is the index; for
/// [`crate::binary`] and [`crate::compare`], `Positional(0)` and
/// `Positional(1)` are the left and right operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgRef {
    /// The positional argument at this index (after `*` unpacking).
    Positional(usize),
    /// The keyword argument of this name.
    Keyword(String),
}

/// The Python exception class an error is raised as.
///
/// Of the API's errors, the script interpreter lets `except` catch
/// [`ErrorClass::TVMError`] and [`ErrorClass::AssertionError`] only; the
/// other classes are mistakes in a script or limits of rangefinder, which no
/// script should silently depend on. Python exceptions a script raises, or
/// Python raises for it (a missing dict key), use the same classes and are
/// caught by Python's hierarchy ([`ErrorClass::is_base_of`]). The Python
/// package raises each as the Python exception of that name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// Python's `Exception`: as a class to catch, everything.
    Exception,
    /// Python's `RuntimeError`, which `TVMError` derives from.
    RuntimeError,
    /// `tvm.error.TVMError`: an invalid schedule or definition, as TVM
    /// raises it.
    TVMError,
    /// A failed check (`assert`, `tvm.testing.assert_prim_expr_equal`).
    AssertionError,
    /// A value of the wrong type for an argument or an operator.
    TypeError,
    /// A `TypeError` that TVM itself raises for a valid call, as part of
    /// its documented behaviour (`te.create_prim_func` of a scan): a script
    /// may catch it, unlike [`ErrorClass::TypeError`], which may stand for
    /// a limit of rangefinder's model.
    TvmTypeError,
    /// A value of the right type that is not acceptable.
    ValueError,
    /// An index out of range.
    IndexError,
    /// A missing dict key.
    KeyError,
    /// The base of `IndexError` and `KeyError`.
    LookupError,
    /// An attribute that does not exist (or that rangefinder does not model).
    AttributeError,
    /// A name that is not defined.
    NameError,
    /// Division by zero of plain numbers.
    ZeroDivisionError,
    /// A plain integer result beyond 64 bits.
    OverflowError,
    /// Valid TVM that rangefinder does not support (Python's
    /// `NotImplementedError`).
    NotSupported,
    /// A file that cannot be read or written (Python's `OSError`).
    OSError,
    /// An error raised by front-end code that the API called back through
    /// [`crate::Host::call`] (a script's lambda): the front end keeps the
    /// original error and re-raises it as it was.
    Host,
}

impl ErrorClass {
    /// The name a script writes for the class, and that messages show.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Exception => "Exception",
            ErrorClass::RuntimeError => "RuntimeError",
            ErrorClass::TVMError => "tvm.error.TVMError",
            ErrorClass::AssertionError => "AssertionError",
            ErrorClass::TypeError | ErrorClass::TvmTypeError => "TypeError",
            ErrorClass::ValueError => "ValueError",
            ErrorClass::IndexError => "IndexError",
            ErrorClass::KeyError => "KeyError",
            ErrorClass::LookupError => "LookupError",
            ErrorClass::AttributeError => "AttributeError",
            ErrorClass::NameError => "NameError",
            ErrorClass::ZeroDivisionError => "ZeroDivisionError",
            ErrorClass::OverflowError => "OverflowError",
            ErrorClass::NotSupported => "NotImplementedError",
            ErrorClass::OSError => "OSError",
            ErrorClass::Host => "Exception",
        }
    }

    /// The Python exception class a program writes as `name`.
    pub fn named(name: &str) -> Option<ErrorClass> {
        Some(match name {
            "Exception" => ErrorClass::Exception,
            "RuntimeError" => ErrorClass::RuntimeError,
            "AssertionError" => ErrorClass::AssertionError,
            "TypeError" => ErrorClass::TypeError,
            "ValueError" => ErrorClass::ValueError,
            "IndexError" => ErrorClass::IndexError,
            "KeyError" => ErrorClass::KeyError,
            "LookupError" => ErrorClass::LookupError,
            "AttributeError" => ErrorClass::AttributeError,
            "NameError" => ErrorClass::NameError,
            "ZeroDivisionError" => ErrorClass::ZeroDivisionError,
            "OverflowError" => ErrorClass::OverflowError,
            "NotImplementedError" => ErrorClass::NotSupported,
            "OSError" | "IOError" => ErrorClass::OSError,
            _ => return None,
        })
    }

    /// Whether `except self` catches an error of class `raised`, by
    /// Python's class hierarchy.
    pub fn is_base_of(self, raised: ErrorClass) -> bool {
        match self {
            ErrorClass::Exception => true,
            ErrorClass::RuntimeError => matches!(
                raised,
                ErrorClass::RuntimeError | ErrorClass::TVMError | ErrorClass::NotSupported
            ),
            ErrorClass::LookupError => matches!(
                raised,
                ErrorClass::LookupError | ErrorClass::IndexError | ErrorClass::KeyError
            ),
            ErrorClass::TypeError => {
                matches!(raised, ErrorClass::TypeError | ErrorClass::TvmTypeError)
            }
            other => other == raised,
        }
    }
}

/// An error of an API call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The exception class.
    pub class: ErrorClass,
    /// What is wrong and what to do about it; the same text in every front
    /// end.
    pub message: String,
    /// The argument the error is about; `None` for the call (or expression)
    /// as a whole.
    pub arg: Option<ArgRef>,
    /// For an error of `te`, its category (`"invalid_schedule"`,
    /// `"overflow"`, ...: `te::ErrorKind::name`), which the Python package
    /// exposes as the exception's `kind`.
    pub kind: Option<&'static str>,
}

impl ApiError {
    /// An error of `class` about the call as a whole.
    pub fn new(class: ErrorClass, message: impl Into<String>) -> ApiError {
        ApiError {
            class,
            message: message.into(),
            arg: None,
            kind: None,
        }
    }

    /// The `TVMError` of an error of `te`, with its category.
    pub fn te(e: te::TeError) -> ApiError {
        let class = match e.kind {
            te::ErrorKind::Unsupported => ErrorClass::NotSupported,
            _ => ErrorClass::TVMError,
        };
        ApiError {
            kind: Some(e.kind.name()),
            ..ApiError::new(class, e.message)
        }
    }

    /// A `TVMError`.
    pub fn tvm(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorClass::TVMError, message)
    }

    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorClass::TypeError, message)
    }

    /// A `ValueError`.
    pub fn value_error(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorClass::ValueError, message)
    }

    /// Something TVM accepts that rangefinder does not support.
    pub fn not_supported(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorClass::NotSupported, message)
    }

    /// An `AttributeError`.
    pub fn attribute_error(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorClass::AttributeError, message)
    }

    /// A failed check.
    pub fn assertion(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorClass::AssertionError, message)
    }

    /// The same error, about argument `arg`.
    pub fn at(mut self, arg: ArgRef) -> ApiError {
        self.arg = Some(arg);
        self
    }

    /// The same error, about `arg` unless it already names an argument.
    pub fn or_at(mut self, arg: &ArgRef) -> ApiError {
        if self.arg.is_none() {
            self.arg = Some(arg.clone());
        }
        self
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}

/// Result of an API call.
pub type ApiResult<T> = Result<T, ApiError>;

/// Where an error points: an argument, or the call as a whole (`None`).
pub(crate) type At = Option<ArgRef>;

/// A `te` error about the argument at `at`: a `TVMError` that keeps te's
/// category ([`ApiError::kind`]).
pub(crate) fn te_error(at: &At, e: te::TeError) -> ApiError {
    ApiError {
        arg: at.clone(),
        ..ApiError::te(e)
    }
}

/// A `TypeError` at `at`: a value the operation does not take.
pub(crate) fn type_error(at: At, message: impl Into<String>) -> ApiError {
    ApiError {
        class: ErrorClass::TypeError,
        message: message.into(),
        arg: at,
        kind: None,
    }
}

/// An error of `class` at `at`.
pub(crate) fn error(class: ErrorClass, at: At, message: impl Into<String>) -> ApiError {
    ApiError {
        class,
        message: message.into(),
        arg: at,
        kind: None,
    }
}

/// A `TVMError` at `at`.
pub(crate) fn tvm_error(at: At, message: impl Into<String>) -> ApiError {
    error(ErrorClass::TVMError, at, message)
}

/// Valid TVM that rangefinder does not support, at `at`.
pub(crate) fn not_supported(at: At, message: impl Into<String>) -> ApiError {
    error(ErrorClass::NotSupported, at, message)
}
