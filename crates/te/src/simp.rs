//! Simplification under a size limit: the one entry point through which
//! InferBound and lowering simplify, so that no pass hands the simplifier
//! an expression whose cost outgrows what its answer is worth.

use arith::{Analyzer, Expr};

/// The largest expression, in nodes, handed to the simplifier: its cost
/// grows much faster than the size of `min`/`max`-heavy bounds, and a bound
/// this large is widened by InferBound anyway (see `bound::BOUND_BUDGET`).
pub(crate) const SIMPLIFY_LIMIT: usize = 48;

/// Simplifies, keeping the input when simplification fails (it only fails on
/// constant overflow, which later evaluation reports) or when the input is
/// over [`SIMPLIFY_LIMIT`].
pub(crate) fn simp(an: &Analyzer, e: Expr) -> Expr {
    if e.node_count() > SIMPLIFY_LIMIT {
        return e;
    }
    an.simplify(&e).unwrap_or(e)
}
