//! Errors for HLO text: where in the text, and what was expected.

use std::fmt;
use std::ops::Range;

/// What kind of problem a [`ParseError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text does not follow HLO's grammar.
    Syntax,
    /// A name (operand, computation, opcode) that is not defined.
    Undefined,
    /// Something defined twice (an instruction, a parameter, ROOT, ENTRY).
    Duplicate,
    /// Well-formed text that breaks an opcode's rules (found by the verifier).
    Invalid,
    /// Nesting deeper than the documented limit.
    TooDeep,
}

/// A syntax or consistency error in an HLO module, with its place in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What kind of problem it is.
    pub kind: ErrorKind,
    /// What went wrong and what was expected instead.
    pub message: String,
    /// Byte range of the offending text.
    pub span: Range<usize>,
    /// 1-based line of `span.start`.
    pub line: usize,
    /// 1-based column (in characters) of `span.start`.
    pub column: usize,
}

impl ParseError {
    /// An error at `span` of `source`, with line and column computed from it.
    pub fn new(source: &str, span: Range<usize>, message: impl Into<String>) -> ParseError {
        let start = floor_char_boundary(source, span.start.min(source.len()));
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        ParseError {
            kind: ErrorKind::Syntax,
            message: message.into(),
            span,
            line,
            column,
        }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The same error, of kind `kind`.
    pub fn with_kind(mut self, kind: ErrorKind) -> ParseError {
        self.kind = kind;
        self
    }
}
