//! Errors of parsing, evaluation and constant folding.

use std::fmt;
use std::ops::Range;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not a well-formed expression.
    Syntax,
    /// A name that is not a known function or variable.
    UnknownName,
    /// An integer where a condition is needed, or the other way round.
    Type,
    /// Integer arithmetic on constants left the 64-bit range.
    Overflow,
    /// A division or modulo by zero.
    DivisionByZero,
    /// A variable without a value during evaluation.
    Unbound,
    /// A malformed argument (for example a range whose bounds are unusable).
    Invalid,
    /// Text nested deeper than the parser's limit ([`crate::MAX_NESTING`]).
    TooDeep,
}

/// An error with an optional byte span into the text it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArithError {
    /// The category, for callers that react differently to each.
    pub kind: ErrorKind,
    /// A message that says what is wrong and what to do.
    pub message: String,
    /// Byte range in the source text, when the error came from text.
    pub span: Option<Range<usize>>,
}

impl ArithError {
    /// An error without a span.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ArithError {
        ArithError {
            kind,
            message: message.into(),
            span: None,
        }
    }

    /// The same error, pointing at `span`.
    pub fn at(mut self, span: Range<usize>) -> ArithError {
        self.span = Some(span);
        self
    }

    /// The same error with every span moved right by `offset` bytes (for
    /// text that was cut out of a larger source).
    pub fn shifted(mut self, offset: usize) -> ArithError {
        if let Some(s) = &mut self.span {
            *s = s.start + offset..s.end + offset;
        }
        self
    }

    pub(crate) fn overflow(what: &str) -> ArithError {
        ArithError::new(
            ErrorKind::Overflow,
            format!("integer overflow in {what}: the result does not fit in 64 bits"),
        )
    }
}

impl fmt::Display for ArithError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.span {
            Some(s) => write!(f, "{} (at bytes {}..{})", self.message, s.start, s.end),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ArithError {}

/// Shorthand for results of this crate.
pub type Result<T, E = ArithError> = std::result::Result<T, E>;

/// The 1-based line and column (in characters, as editors count them) of
/// byte `offset` of `source`: where every front end's error spans are
/// reported. An offset inside a character is that character's; one past
/// the end is the end.
///
/// ```
/// let src = "a = 1\nbé = x\n";
/// assert_eq!(arith::line_column(src, 0), (1, 1));
/// // `=` after a two-byte character is the fourth character of line 2.
/// assert_eq!(arith::line_column(src, src.find("= x").unwrap()), (2, 4));
/// assert_eq!(arith::line_column(src, 1000), (3, 1));
/// ```
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    (line, source[line_start..offset].chars().count() + 1)
}
