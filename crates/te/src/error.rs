//! Errors of building, scheduling, bounding, lowering and checking.

use std::fmt;
use std::ops::Range;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A shape, index list or body that does not fit its tensor.
    InvalidDefinition,
    /// A schedule primitive applied to the wrong stage or axis, or a
    /// schedule whose attachments cannot be honoured.
    InvalidSchedule,
    /// Integer arithmetic failed; arith's own kind says how (overflow,
    /// division by zero, a malformed range, ...).
    Arith(arith::ErrorKind),
    /// The lowered program could not be built or run.
    Lowering,
    /// Valid TVM that rangefinder does not model (a reduction of several
    /// values across threads): refused rather than answered wrongly.
    Unsupported,
}

impl ErrorKind {
    /// A short snake_case name of the kind (`invalid_schedule`,
    /// `overflow`, `division_by_zero`, ...), for callers that report or
    /// dispatch on it outside Rust. Arithmetic errors are named by arith's
    /// kind.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::InvalidDefinition => "invalid_definition",
            ErrorKind::InvalidSchedule => "invalid_schedule",
            ErrorKind::Lowering => "lowering",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Arith(k) => match k {
                arith::ErrorKind::Syntax => "syntax",
                arith::ErrorKind::UnknownName => "unknown_name",
                arith::ErrorKind::Type => "type",
                arith::ErrorKind::Overflow => "overflow",
                arith::ErrorKind::DivisionByZero => "division_by_zero",
                arith::ErrorKind::Unbound => "unbound",
                arith::ErrorKind::Invalid => "invalid",
                arith::ErrorKind::TooDeep => "too_deep",
            },
        }
    }
}

/// An error of this crate: a category and a message that says what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeError {
    /// The category.
    pub kind: ErrorKind,
    /// What is wrong and how to fix it.
    pub message: String,
    /// Byte range in the text the failing expression was parsed from, when
    /// it came from text (kept from arith's error).
    pub span: Option<Range<usize>>,
}

impl TeError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> TeError {
        TeError {
            kind,
            message: message.into(),
            span: None,
        }
    }

    pub(crate) fn definition(message: impl Into<String>) -> TeError {
        TeError::new(ErrorKind::InvalidDefinition, message)
    }

    pub(crate) fn schedule(message: impl Into<String>) -> TeError {
        TeError::new(ErrorKind::InvalidSchedule, message)
    }

    pub(crate) fn lowering(message: impl Into<String>) -> TeError {
        TeError::new(ErrorKind::Lowering, message)
    }
}

impl fmt::Display for TeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TeError {}

impl From<arith::ArithError> for TeError {
    fn from(e: arith::ArithError) -> TeError {
        TeError {
            kind: ErrorKind::Arith(e.kind),
            message: e.message,
            span: e.span,
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = TeError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arith_errors_keep_kind_and_span() {
        let e =
            arith::ArithError::new(arith::ErrorKind::DivisionByZero, "division by zero").at(4..10);
        let t = TeError::from(e);
        assert_eq!(t.kind, ErrorKind::Arith(arith::ErrorKind::DivisionByZero));
        assert_eq!(t.kind.name(), "division_by_zero");
        assert_eq!(t.span, Some(4..10));
        assert_eq!(t.message, "division by zero");
    }
}
