//! XLA-style indexing maps (seed 002).
//!
//! An [`IndexingMap`] says which indices of one tensor an index of another
//! tensor touches: `(d0, d1)[s0] -> (d0 + s0, d1)` with an inclusive range for
//! every dimension `d`, range variable `s` and runtime variable `rt`, plus
//! constraints `expr in [lb, ub]`. Maps parse from and print to XLA's text
//! form, compose ([`compose`]), simplify with range-aware arithmetic
//! ([`IndexingMap::simplify`]), drop unused variables, rescale strided
//! symbols, evaluate at points, enumerate their domains and the image of
//! one dimension point ([`IndexingMap::image_at`]); two maps are
//! compared by what they denote with [`semantically_equal`].
//!
//! ```
//! use indexing::{compose, IndexingMap};
//! // reshape f32[10,10,10] -> f32[50,20] -> f32[10,10,10], output to input
//! let second = IndexingMap::parse(
//!     "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, (d0 * 100 + d1 * 10 + d2) mod 20), \
//!      domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
//! ).unwrap();
//! let first = IndexingMap::parse(
//!     "(d0, d1) -> ((d0 * 20 + d1) floordiv 100, ((d0 * 20 + d1) mod 100) floordiv 10, d1 mod 10), \
//!      domain: d0 in [0, 49], d1 in [0, 19]",
//! ).unwrap();
//! let mut map = compose(&second, &first).unwrap();
//! map.simplify();
//! assert_eq!(map.to_string(), "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]");
//! ```
//!
//! # Where this differs from XLA
//! - `/` is floor division and `mod` floor modulo, as in XLA, but a `mod` by
//!   a negative constant follows floor semantics (XLA leaves it undefined).
//! - Constraint rewriting is exact: `s0 / -3 in [-11, -5]` gives
//!   `s0 in [13, 33]`; XLA answers `[15, 35]`, which is right only for
//!   truncating division.
//! - A constraint that no value in the ranges can satisfy makes the map
//!   `KNOWN EMPTY` (XLA keeps, e.g., `d0 mod 8 in [45, 49]`).
//! - Results are simplified by `arith`'s canonical simplifier and then put in
//!   XLA's term order, so simplified maps usually print as XLA prints them,
//!   but not always the same expression when both are minimal.
#![warn(missing_docs)]

pub mod build;
mod compare;
mod compose;
mod constraints;
mod eval;
mod image;
mod interval;
mod map;
mod order;
mod parse;
mod print;
mod rescale;
mod simplify;
mod variable;
mod vars;
mod widen;

pub use compare::{semantically_equal, semantically_equal_sampled};
pub use compose::compose;
pub use image::Image;
pub use interval::Interval;
pub use map::{Constraint, IndexingMap};
pub use print::print_expr;
pub use variable::{VarKind, Variable};
pub use widen::{Widening, EXPRESSION_BUDGET};
