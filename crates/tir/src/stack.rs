//! Recursion as deep as an expression is long.
//!
//! The walkers of values, statements and index expressions recurse once per
//! level of the tree, and a flat chain (`A[i] + A[i] + ...`, 100,000 terms)
//! is a left-deep tree that deep. Each recursive step goes through [`grow`],
//! which continues on a fresh heap-allocated stack segment when the current
//! one runs low, so the walks work on an ordinary thread stack.

/// Room that must be left on the stack before a recursive step starts.
const RED_ZONE: usize = 128 * 1024;
/// The size of each stack segment added when the room runs out.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, first moving to a new stack segment when fewer than
/// [`RED_ZONE`] bytes are left.
#[inline]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
