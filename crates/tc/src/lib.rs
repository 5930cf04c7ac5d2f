//! The Tensor Comprehensions language (seed 004): parsing, semantic checks,
//! range inference as TC's `tc2halide.cc` does it, and lowering to `te` so
//! that TC programs can be scheduled, lowered and run.
//!
//! ```
//! let a = tc::analyze("def matmul(float(M,K) A, float(K,N) B) -> (C) {
//!     C(m,n) +=! A(m,r_k) * B(r_k,n)
//! }");
//! let d = &a.defs[0];
//! let r: Vec<String> = d.stmts[0].ranges.iter()
//!     .map(|r| format!("{} <= {} < {}", r.lower, r.name, r.upper)).collect();
//! assert_eq!(r, ["0 <= m < M", "0 <= n < N", "0 <= r_k < K"]);
//! assert_eq!(d.outputs[0].shape[1].to_string(), "N");
//! ```
#![warn(missing_docs)]

pub mod ast;
mod diag;
mod division;
pub mod eval;
pub mod index;
mod infer;
mod lexer;
pub mod lower;
mod parser;
mod report;
pub mod sema;
mod sizes;
mod types;

pub use diag::{Diagnostic, Severity, Span};
pub use infer::{
    analyze_def, AccessBound, DefAnalysis, OutputShape, Precondition, Status, StmtAnalysis,
    VarRange,
};
pub use lexer::{lex, Tok, Token};
pub use parser::{parse, MAX_NESTING};
pub use report::{diagnostic_json, report, DefReport, ReportOptions, SourceReport, TOLERANCE};
pub use sizes::{bind_sizes, check_size, parse_sizes, SizeCheck};

/// A whole source analysed: its syntax tree, one analysis per definition,
/// and a syntax error if there was one (then there are no definitions).
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The parsed program (empty on a syntax error).
    pub program: ast::Program,
    /// One per definition, in order.
    pub defs: Vec<DefAnalysis>,
    /// The syntax error, if any.
    pub syntax_error: Option<Diagnostic>,
}

impl Analysis {
    /// Whether any error was found.
    pub fn has_errors(&self) -> bool {
        self.syntax_error.is_some() || self.defs.iter().any(DefAnalysis::has_errors)
    }
}

/// Parses `source` and analyses every definition.
pub fn analyze(source: &str) -> Analysis {
    match parse(source) {
        Ok(program) => {
            let defs = program.defs.iter().map(analyze_def).collect();
            Analysis {
                program,
                defs,
                syntax_error: None,
            }
        }
        Err(e) => Analysis {
            program: ast::Program::default(),
            defs: Vec::new(),
            syntax_error: Some(e),
        },
    }
}
