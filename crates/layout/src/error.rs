//! Errors of parsing and analysing layout maps.

use std::fmt;
use std::ops::Range;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The lambda text is malformed.
    Syntax,
    /// A name that is neither a parameter of the lambda nor a shape symbol.
    UnknownName,
    /// The lambda takes a different number of indices than the shape has.
    Arity,
    /// Two logical indices map to the same transformed index.
    NotInjective,
    /// The map is injective but not onto its transformed shape (only from
    /// [`crate::IndexMap::inverse`], which needs a bijection).
    NotBijective,
    /// The map is not built from splits, fusions, offsets and reorders, so
    /// its transformed shape and inverse cannot be derived.
    Unsupported,
    /// A transformed index that can be negative.
    Negative,
    /// Integer overflow or another arithmetic failure.
    Arith,
    /// An index outside its shape.
    OutOfBounds,
}

/// An error with an optional byte span into the lambda text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    /// The category.
    pub kind: ErrorKind,
    /// What is wrong and what to do.
    pub message: String,
    /// Byte range in the lambda text, when there is one.
    pub span: Option<Range<usize>>,
}

impl LayoutError {
    /// An error without a span.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> LayoutError {
        LayoutError {
            kind,
            message: message.into(),
            span: None,
        }
    }

    /// The same error pointing at `span` (kept if it already has one).
    pub fn at(mut self, span: Option<Range<usize>>) -> LayoutError {
        if self.span.is_none() {
            self.span = span;
        }
        self
    }

    /// The same error with its span inside `text` and on character
    /// boundaries (widened to the whole characters it touches): spans are
    /// found by bytes, and a caret must point at characters.
    pub fn within(mut self, text: &str) -> LayoutError {
        if let Some(s) = &self.span {
            let mut start = s.start.min(text.len());
            let mut end = s.end.clamp(start, text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            while !text.is_char_boundary(end) {
                end += 1;
            }
            self.span = Some(start..end);
        }
        self
    }
}

impl From<arith::ArithError> for LayoutError {
    fn from(e: arith::ArithError) -> LayoutError {
        let kind = match e.kind {
            arith::ErrorKind::Syntax | arith::ErrorKind::Type => ErrorKind::Syntax,
            arith::ErrorKind::UnknownName => ErrorKind::UnknownName,
            _ => ErrorKind::Arith,
        };
        LayoutError {
            kind,
            message: e.message,
            span: e.span,
        }
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.span {
            Some(s) => write!(f, "{} (at bytes {}..{})", self.message, s.start, s.end),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LayoutError {}

/// Shorthand for results of this crate.
pub type Result<T, E = LayoutError> = std::result::Result<T, E>;
