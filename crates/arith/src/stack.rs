//! Recursion as deep as an expression is long.
//!
//! Walkers that recurse once per level of a tree (the simplifier's visit of
//! a chain like `a // 4 * a // 4 * ...`, the program walkers of `tir` and
//! `te`) meet trees as deep as their input is long: a flat chain of 100,000
//! operations is a left-deep tree that deep. Each recursive step goes
//! through [`grow`], which continues on a fresh heap-allocated stack segment
//! when the current one runs low, so the walks work on an ordinary thread
//! stack.

/// Room that must be left on the stack before a recursive step starts.
///
/// A step may call walkers that recurse without growing the stack, on
/// trees of at most [`RECURSION_NODES`] nodes (a few hundred bytes per
/// level, less than a megabyte at that depth even in debug builds), so the
/// room is that and more.
const RED_ZONE: usize = 1024 * 1024;

/// Walkers may recurse plainly (without [`grow`]) over trees of at most
/// this many nodes, whose depth is at most this; larger trees are walked
/// on an explicit stack.
pub const RECURSION_NODES: usize = 1024;
/// The size of each stack segment added when the room runs out.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, first moving to a new stack segment when fewer than
/// `RED_ZONE` (1 MiB) bytes are left.
///
/// ```
/// fn depth(n: u32) -> u32 {
///     arith::stack::grow(|| if n == 0 { 0 } else { 1 + depth(n - 1) })
/// }
/// assert_eq!(depth(100_000), 100_000);
/// ```
#[inline]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
