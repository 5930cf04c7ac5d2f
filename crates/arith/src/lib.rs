//! Integer index arithmetic for tensor compilers.
//!
//! Everything rangefinder says about indices is computed here: expressions
//! ([`Expr`]), their canonical range-aware simplification
//! ([`Analyzer::simplify`]), constant bounds ([`ConstBound`]), alignment
//! ([`Modular`]), symbolic interval sets, solving conditions for one
//! variable, and iterator-map detection.
//!
//! Division and modulo are floor division and floor modulo throughout.
//! Arithmetic on constants is checked: overflow is an error, never a wrapped
//! value.
//!
//! ```
//! use arith::{Analyzer, Expr, Range};
//! let (e, scope) = arith::parse_with_scope("(x * 16 + y) // 8").unwrap();
//! let mut an = Analyzer::new();
//! an.bind(scope.get("y").unwrap(), Range::half_open(Expr::int(0), Expr::int(8)));
//! assert_eq!(an.simplify(&e).unwrap().to_string(), "x * 2");
//! ```
#![warn(missing_docs)]
// `Expr::add`, `Expr::mul`, ... are raw node constructors, deliberately not
// the operator traits (which are also implemented, with the same meaning).
#![allow(clippy::should_implement_trait)]

mod analyzer;
mod batch;
mod bound;
mod compiled;
mod error;
mod eval;
mod expr;
mod id_hash;
mod linear;
mod modular;
pub mod num;
mod parse;
mod print;
mod range;
mod scope;
mod simplify;
mod walk;

pub use analyzer::Analyzer;
pub use batch::{Batch, BatchCase};
pub use bound::{ConstBound, NEG_INF, POS_INF};
pub use compiled::{Compiled, Stack, Undefined};
pub use error::{line_column, ArithError, ErrorKind, Result};
pub use expr::{CmpOp, Expr, ExprKind, Type, Var};
pub use id_hash::{IdHasher, IdMap, IdSet};
pub use linear::LinearForm;
pub use modular::Modular;
pub use parse::{
    parse, parse_case, parse_in, parse_range_spec, parse_range_specs, parse_with_scope,
    split_range_specs, Case, MAX_NESTING,
};
pub use range::Range;
pub use scope::Scope;
pub use simplify::rules::rule_hits;
pub use simplify::Info;
pub mod int_set;
pub mod iter_map;
pub mod solve;
pub mod stack;
