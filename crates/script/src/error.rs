//! Script errors: a message, the byte span it points at, and its line and
//! column.

use std::fmt;
use std::ops::Range;
use text_size::TextRange;
use tvm_api::ErrorClass;

/// What went wrong while parsing or running a script, and where.
///
/// `line` and `column` are 1-based; the column counts characters, as Python
/// does in its own error messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// What is wrong and what to do about it.
    pub message: String,
    /// Byte span in the script text.
    pub span: Range<usize>,
    /// 1-based line of the span's start.
    pub line: usize,
    /// 1-based column (in characters) of the span's start.
    pub column: usize,
}

impl ScriptError {
    /// An error at `span` of `source`.
    pub fn new(source: &str, span: Range<usize>, message: impl Into<String>) -> ScriptError {
        let (line, column) = arith::line_column(source, span.start);
        ScriptError {
            message: message.into(),
            span,
            line,
            column,
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// An error raised during evaluation, before it is tied to the source text.
///
/// The interpreter works with spans only; the source text is consulted once,
/// when the error leaves the crate, to compute the line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Raised {
    pub message: String,
    pub span: Range<usize>,
    pub kind: RaisedKind,
}

/// Which Python exception an error stands for, so that `try`/`except` and
/// `pytest.raises` catch what TVM would raise and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RaisedKind {
    /// Outside what rangefinder supports, or a mistake in the script (a
    /// `NameError`, a `TypeError`): never caught, so that a script cannot
    /// silently depend on rangefinder's limits.
    Script,
    /// What TVM raises as `TVMError` (a `RuntimeError`): an invalid
    /// schedule or definition.
    Tvm,
    /// A failing `assert` (`AssertionError`).
    Assertion,
    /// A Python exception: one the script raises (`raise ValueError(...)`)
    /// or one Python raises for it (`KeyError` of a missing dict key).
    Python(ErrorClass),
    /// An exception TVM's API raises for a value it refuses (a
    /// `ValueError` of nested tag scopes, an `IndexError` of an axis):
    /// caught as that class, reported in the API's own words.
    Api(ErrorClass),
}

impl RaisedKind {
    /// The kind of an error of the API's `class`.
    pub fn of(class: ErrorClass) -> RaisedKind {
        match class {
            ErrorClass::TVMError => RaisedKind::Tvm,
            ErrorClass::AssertionError => RaisedKind::Assertion,
            // What a valid TVM program may meet and catch. Type, attribute
            // and name errors stay uncatchable: they are as often a limit
            // of rangefinder's model as a mistake of the script.
            ErrorClass::ValueError
            | ErrorClass::IndexError
            | ErrorClass::KeyError
            | ErrorClass::ZeroDivisionError
            | ErrorClass::OverflowError
            | ErrorClass::TvmTypeError
            | ErrorClass::OSError
            | ErrorClass::RuntimeError => RaisedKind::Api(class),
            _ => RaisedKind::Script,
        }
    }

    /// The API's class for an error of this kind.
    pub fn class(self) -> ErrorClass {
        match self {
            RaisedKind::Tvm => ErrorClass::TVMError,
            RaisedKind::Assertion => ErrorClass::AssertionError,
            RaisedKind::Script => ErrorClass::TypeError,
            RaisedKind::Python(class) | RaisedKind::Api(class) => class,
        }
    }
}

/// Which errors an `except` clause catches.
pub(crate) trait Catches {
    /// Whether `except self` catches an error of `kind`: never a
    /// [`RaisedKind::Script`] error.
    fn catches(self, kind: RaisedKind) -> bool;
}

impl Catches for ErrorClass {
    fn catches(self, kind: RaisedKind) -> bool {
        kind != RaisedKind::Script && self.is_base_of(kind.class())
    }
}

impl Raised {
    pub fn at(span: Range<usize>, message: impl Into<String>) -> Raised {
        Raised {
            message: message.into(),
            span,
            kind: RaisedKind::Script,
        }
    }

    /// A failed assertion.
    pub fn assertion(span: Range<usize>, message: impl Into<String>) -> Raised {
        Raised {
            message: message.into(),
            span,
            kind: RaisedKind::Assertion,
        }
    }

    /// The API's error `e`, at `span`.
    pub fn api(span: Range<usize>, e: tvm_api::ApiError) -> Raised {
        Raised {
            message: e.message,
            span,
            kind: RaisedKind::of(e.class),
        }
    }

    /// A Python exception of `class`.
    pub fn python(class: ErrorClass, span: Range<usize>, message: impl Into<String>) -> Raised {
        Raised {
            message: message.into(),
            span,
            kind: RaisedKind::Python(class),
        }
    }

    pub fn into_script_error(self, source: &str) -> ScriptError {
        if let RaisedKind::Python(class) = self.kind {
            let message = format!("{}: {}", class.name(), self.message);
            return ScriptError::new(source, self.span, message);
        }
        ScriptError::new(source, self.span, self.message)
    }
}

/// Result of evaluation steps.
pub(crate) type Eval<T> = Result<T, Raised>;

/// The byte span of a parser node.
pub(crate) fn span_of(range: TextRange) -> Range<usize> {
    usize::from(range.start())..usize::from(range.end())
}
