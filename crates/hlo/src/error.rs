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
        let (line, column) = arith::line_column(source, span.start);
        ParseError {
            kind: ErrorKind::Syntax,
            message: message.into(),
            span,
            line,
            column,
        }
    }
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

/// Why a query on a parsed module cannot be answered. (An op without maps
/// is not an error: its operands get
/// [`OperandIndexing::Unsupported`](crate::OperandIndexing::Unsupported).)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// No instruction is called that (`spec` as given).
    NoInstruction {
        /// The name or `COMPUTATION/NAME` asked for.
        spec: String,
    },
    /// No computation is called that.
    NoComputation {
        /// The computation name asked for.
        name: String,
    },
    /// `to_parameters` on an instruction that calls no computation.
    NotACall {
        /// The instruction's name.
        instruction: String,
        /// Its opcode.
        opcode: crate::Opcode,
    },
    /// An output number beyond the instruction's outputs.
    NoOutput {
        /// The instruction's name.
        instruction: String,
        /// How many outputs it has.
        outputs: usize,
        /// The output asked for.
        output: usize,
    },
    /// An operand number beyond the instruction's operands.
    NoOperand {
        /// The instruction's name.
        instruction: String,
        /// How many operands it has.
        operands: usize,
        /// The operand asked for.
        operand: usize,
    },
    /// The computation as a whole cannot be analysed (its root is not an
    /// array, calls nest too deep, ...).
    Analysis(AnalysisError),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::NoInstruction { spec } => match spec.split_once('/') {
                Some((c, n)) => write!(f, "computation `{c}` has no instruction `{n}`"),
                None => write!(
                    f,
                    "no instruction `{spec}` in the module; pass the name of one of its instructions"
                ),
            },
            QueryError::NoComputation { name } => {
                write!(f, "no computation `{name}` in the module")
            }
            QueryError::NotACall {
                instruction,
                opcode,
            } => write!(
                f,
                "`--to-parameters` needs a fusion or call instruction; `{instruction}` is a `{opcode}`"
            ),
            QueryError::NoOutput {
                instruction,
                outputs,
                output,
            } => write!(
                f,
                "`{instruction}` has {outputs} output(s); there is no output {output}"
            ),
            QueryError::NoOperand {
                instruction,
                operands,
                operand,
            } => write!(
                f,
                "`{instruction}` has {operands} operand(s); there is no operand {operand}"
            ),
            QueryError::Analysis(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for QueryError {}

impl QueryError {
    /// Byte range in the module text of the instruction the error is about,
    /// when known.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            QueryError::Analysis(e) => e.span.clone(),
            _ => None,
        }
    }
}

impl From<AnalysisError> for QueryError {
    fn from(e: AnalysisError) -> QueryError {
        QueryError::Analysis(e)
    }
}

/// What kind of problem an [`AnalysisError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnalysisErrorKind {
    /// XLA's indexing analysis gives the op no map (`scatter`, `sort`,
    /// `while`, ...).
    UnsupportedOp,
    /// A form of a supported op that the analysis does not handle (nested
    /// tuples, chained collectives, a gather mapped forwards through its
    /// indices, ...).
    UnsupportedForm,
    /// The instruction's shapes or attributes do not fit its op (a missing
    /// attribute, dimension numbers that do not match the shapes, ...).
    Invalid,
    /// A `fusion` or `call` that cannot be followed: it calls no single
    /// computation, passes the wrong number of operands, or calls nest
    /// deeper than the limit.
    Call,
    /// Building or composing maps failed (an arithmetic error, such as an
    /// overflow, inside the indexing maps).
    Composition,
}

/// Why the indexing maps of an instruction are unknown: a kind, the
/// instruction it happened at (with its place in the module text) and a
/// message that says what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisError {
    /// What kind of problem it is.
    pub kind: AnalysisErrorKind,
    /// What went wrong, naming the instruction and what it should be.
    pub message: String,
    /// The name of the instruction the error is about (`None` until the
    /// error leaves the op that raised it).
    pub instruction: Option<String>,
    /// Byte range of that instruction's name in the module text.
    pub span: Option<Range<usize>>,
}

impl AnalysisError {
    /// An error of `kind` with `message`, not yet tied to an instruction.
    pub fn new(kind: AnalysisErrorKind, message: impl Into<String>) -> AnalysisError {
        AnalysisError {
            kind,
            message: message.into(),
            instruction: None,
            span: None,
        }
    }

    /// An [`AnalysisErrorKind::Invalid`] error.
    pub(crate) fn invalid(message: impl Into<String>) -> AnalysisError {
        AnalysisError::new(AnalysisErrorKind::Invalid, message)
    }

    /// An [`AnalysisErrorKind::UnsupportedForm`] error.
    pub(crate) fn unsupported(message: impl Into<String>) -> AnalysisError {
        AnalysisError::new(AnalysisErrorKind::UnsupportedForm, message)
    }

    /// An [`AnalysisErrorKind::Call`] error.
    pub(crate) fn call(message: impl Into<String>) -> AnalysisError {
        AnalysisError::new(AnalysisErrorKind::Call, message)
    }

    /// An [`AnalysisErrorKind::Composition`] error.
    pub(crate) fn composition(message: impl Into<String>) -> AnalysisError {
        AnalysisError::new(AnalysisErrorKind::Composition, message)
    }

    /// The same error, tied to `instr` unless it already names an
    /// instruction (the innermost instruction is the one to fix).
    pub fn at_instruction(mut self, instr: &crate::Instruction) -> AnalysisError {
        if self.instruction.is_none() {
            self.instruction = Some(instr.name.clone());
            self.span = Some(instr.span.clone());
        }
        self
    }
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AnalysisError {}
