//! How large a value a script may build.
//!
//! Scripts describe programs; they do not compute with large data. A
//! sequence that doubles at each step of a loop (`s = s + s`,
//! `l.extend(l)`, `f"{s}{s}"`) reaches any memory in a few dozen steps, so
//! every operation that can make a string, list or tuple longer than its
//! inputs checks the length it would build first, and refuses past
//! [`MAX_SEQUENCE_LEN`] with an error at its span.

use crate::error::{Eval, Raised};
use std::ops::Range;

/// The most characters (bytes) of a string or items of a list or tuple an
/// operation may build.
pub(crate) const MAX_SEQUENCE_LEN: usize = 10_000_000;

/// An error when `len` (`None`: past `usize`) is past
/// [`MAX_SEQUENCE_LEN`]; `what` says what would be built
/// (`"\`+\` would build"`).
pub(crate) fn check_len(len: Option<usize>, what: &str, span: Range<usize>) -> Eval<()> {
    match len {
        Some(n) if n <= MAX_SEQUENCE_LEN => Ok(()),
        _ => Err(Raised::at(
            span,
            format!(
                "{what} more than {MAX_SEQUENCE_LEN} items or characters: too large for a \
                 script (is a value doubling in a loop?)"
            ),
        )),
    }
}

/// Appends `part` to `out`, or an error when the text would pass
/// [`MAX_SEQUENCE_LEN`]; `what` as for [`check_len`].
pub(crate) fn push_text(out: &mut String, part: &str, what: &str, span: Range<usize>) -> Eval<()> {
    check_sum(out.len(), part.len(), what, span)?;
    out.push_str(part);
    Ok(())
}

/// [`check_len`] of `a + b`.
pub(crate) fn check_sum(a: usize, b: usize, what: &str, span: Range<usize>) -> Eval<()> {
    check_len(a.checked_add(b), what, span)
}
