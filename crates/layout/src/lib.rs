//! Buffer physical layouts (TVM RFC 0039): one compute definition, many
//! memory layouts.
//!
//! An [`IndexMap`] sends logical indices to transformed indices
//! (`lambda n, h, w, c: [n, c // 4, h, w, c % 4]`), possibly with axis
//! separators. It gives the transformed shape of a logical shape
//! ([`IndexMap::map_shape`], `ceildiv` where a split does not divide), its
//! inverse ([`IndexMap::inverse`] for bijections,
//! [`IndexMap::non_surjective_inverse`] with the padding predicate), and
//! rejects maps that send two logical indices to one place, naming them.
//! A [`Layout`] then flattens the transformed axes between separators into
//! the physical buffer's axes, row-major, and says which logical index is
//! stored at each transformed or physical place ([`Layout::logical_at`],
//! [`Layout::unflatten`]; `None` on padding).
//!
//! Maps are analysed as *digits of sources*: every transformed index is
//! `(v // lower) % modulus` of a fusion `v` of logical indices plus an
//! offset. Layout transforms (splits, fusions, offsets, reorders) have this
//! form, and for it injectivity, extents, inverse and padding follow exactly
//! from constant arithmetic, with `arith`'s analyzer used only for symbolic
//! facts. Maps outside that form (a reversal `n - 1 - i`, a split of a
//! split `(i % 10) // 9`, digits fused again with another index `(k * 6 +
//! j) % 2 * 4 + i`, a stride `i * 2`) are analysed as `arith`'s iterator-map
//! marks, with the same exact inverse and padding.
#![warn(missing_docs)]

mod analysis;
mod error;
mod fold;
mod index_map;
pub mod lambda;
mod list;
mod nested;
mod physical;
mod reversal;
mod split_form;

pub use analysis::{AxisPlan, SourcePlan, SplitPlan};
pub use error::{ErrorKind, LayoutError, Result};
pub use index_map::{for_each_point, Collision, IndexMap};
pub use list::{index_beyond_shape, parse_index, parse_shape};
pub use physical::Layout;
