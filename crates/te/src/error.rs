//! Errors of building, scheduling, bounding, lowering and checking.

use std::fmt;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A shape, index list or body that does not fit its tensor.
    InvalidDefinition,
    /// A schedule primitive applied to the wrong stage or axis, or a
    /// schedule whose attachments cannot be honoured.
    InvalidSchedule,
    /// Integer arithmetic failed (overflow, division by zero).
    Arith,
    /// The lowered program could not be built or run.
    Lowering,
}

/// An error of this crate: a category and a message that says what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeError {
    /// The category.
    pub kind: ErrorKind,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl TeError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> TeError {
        TeError {
            kind,
            message: message.into(),
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
        TeError::new(ErrorKind::Arith, e.message)
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = TeError> = std::result::Result<T, E>;
