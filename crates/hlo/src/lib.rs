//! HLO text modules and the indexing maps of their instructions (XLA's
//! indexing analysis, seed 002).
//!
//! [`parse_module`] reads modules as XLA and JAX print them. [`analyze`]
//! (or [`output_to_input`], [`input_to_output`], [`to_parameters`]) gives,
//! for an instruction, the [`indexing::IndexingMap`]s from its output
//! indices to the indices of each operand it reads (or back), composing
//! through fusions and calls and de-duplicating per operand; [`map_shapes`]
//! gives the shapes each entry's maps go between.
//!
//! Op families: elementwise ops of every arity (incl. `select`, `clamp`,
//! `compare`, `convert`, `copy`, `map`), `broadcast`, `transpose`,
//! `reverse`, variadic `reduce`, `slice`, `reshape`, `bitcast` (through
//! layouts), `bitcast-convert` (also between widths), `concatenate`, `dot`, `scaled-dot`, `pad`, `reduce-window`,
//! `select-and-scatter`, `convolution`, `gather`, `scatter` (variadic), `dynamic-slice`,
//! `dynamic-update-slice`, `all-gather` (with a replica map), `tuple`,
//! `get-tuple-element`, `call`, `fusion`, `while` and `conditional`;
//! `parameter`, `constant` and `iota` have no operands. Any other op gives
//! [`OperandIndexing::Unsupported`] ("unknown indexing"). Gathers and
//! scatters may have explicit batching dimensions.
//!
//! Beyond XLA's analysis: scatters, gathers read backwards (operand to
//! output), loops (a fixpoint over the body's maps, sound for any trip
//! count) and branches (the selector a runtime variable) are mapped; where
//! which elements are read depends on data, a map holds every element that
//! can be read and says so ([`OperandMap::conservative`]).
//!
//! Parsing ends with a verifier: an instruction that breaks its
//! [`Opcode`]'s rules is a [`ParseError`] of kind [`ErrorKind::Invalid`].
//! Maps of a tuple-shaped operand say which element they index
//! ([`OperandMap::element`]); a composed map whose expressions outgrew
//! [`indexing::EXPRESSION_BUDGET`] is widened soundly and says so
//! ([`OperandMap::widened`]).
//!
//! Where the maps over-approximate, they do so as XLA's do: the base of a
//! `dynamic-update-slice` is read everywhere and its update map is not
//! restricted to the window; a convolution with batch groups reads every
//! batch group (its input-to-output map is exact). One place differs from
//! XLA on purpose: a gather or dynamic-slice start taken from an `iota`
//! inside a fusion is clamped to the valid start range, as at run time.
//! Folded iotas and constants take the value their [`ElementType`] holds
//! (an `s8` iota is -106 at 150). Physical maps ([`Query::physical_layout`])
//! of tiled layouts (`{1,0:T(8,128)}`) go to and from tiled positions
//! ([`ArrayShape::physical_dims`]), as XLA's tiled layouts place elements;
//! XLA's indexing analysis permutes by `minor_to_major` and ignores tiles.
//!
//! ```
//! let module = hlo::parse_module(r#"
//! HloModule m
//! f {
//!   p0 = f32[1000, 1000] parameter(0)
//!   transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
//!   ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)
//! }
//! ENTRY e {
//!   p0 = f32[1000, 1000] parameter(0)
//!   ROOT fusion = f32[1000, 1000] fusion(p0), kind=kLoop, calls=f
//! }"#).unwrap();
//! let maps = hlo::analyze(&module, &hlo::Query::default()).unwrap();
//! assert_eq!(maps.to_string(), "operand id = 0\n\
//!     (d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]\n\
//!     (d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]\n");
//! ```
#![warn(missing_docs)]

mod analysis;
pub mod attrs;
mod element_type;
mod error;
mod fusion;
mod hull;
mod json;
mod module;
mod opcode;
mod operand_indexing;
mod ops;
mod parallel;
mod parser;
mod runtime_fold;
mod shape;
mod verify;

pub use analysis::{
    analyze, analyze_with_progress, epilogue_input_to_output, grouped_output_to_input,
    input_to_output, map_shapes, output_to_input, parameters_to_output, to_parameters, EntryShapes,
    Query,
};
pub use element_type::{ElementKind, ElementType};
pub use error::{AnalysisError, AnalysisErrorKind, ErrorKind, ParseError, QueryError};
pub use hull::{map_hull, MAP_BUDGET, RANGE_VARIABLE_BUDGET};
pub use json::{JsonReport, MapReport, OperandReport, RuntimeReport};
pub use module::{CompId, Computation, InstrId, Instruction, Module};
pub use opcode::{Arity, Opcode};
pub use operand_indexing::{
    Direction, InstructionIndexing, OperandEntry, OperandIndexing, OperandMap, RuntimeVar,
};
pub use parser::{parse_module, MAX_SHAPE_NESTING};
pub use shape::{ArrayShape, LayoutAnnotation, Shape, Tile, TileDim};
