//! Ranges of integer variables.

use crate::expr::Expr;
use std::fmt;

/// A TVM-style range: the integers `min, min + 1, ..., min + extent - 1`.
/// Both ends may be symbolic.
///
/// ```
/// use arith::{Expr, Range};
/// let r = Range::half_open(Expr::int(2), Expr::int(10));
/// assert_eq!(r.extent, Expr::int(8));
/// assert_eq!(r.to_string(), "[2, 10)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    /// The first value.
    pub min: Expr,
    /// How many values (`<= 0` means none).
    pub extent: Expr,
}

impl Range {
    /// `[min, min + extent)`.
    pub fn new(min: Expr, extent: Expr) -> Range {
        Range { min, extent }
    }

    /// `[lo, hi)`, as TC writes `lo:hi`; constant ends are folded.
    pub fn half_open(lo: Expr, hi: Expr) -> Range {
        let extent = match (lo.as_int(), hi.as_int()) {
            (Some(a), Some(b)) if b.checked_sub(a).is_some() => Expr::int(b - a),
            _ if lo.is_int(0) => hi.clone(),
            _ => Expr::sub(hi, lo.clone()),
        };
        Range { min: lo, extent }
    }

    /// `[lo, hi]`, inclusive as XLA writes it.
    pub fn inclusive(lo: i64, hi: i64) -> Range {
        Range {
            min: Expr::int(lo),
            extent: Expr::int(hi.saturating_sub(lo).saturating_add(1)),
        }
    }

    /// `[0, extent)`.
    pub fn from_extent(extent: Expr) -> Range {
        Range {
            min: Expr::int(0),
            extent,
        }
    }

    /// The exclusive upper end `min + extent` (folded when constant).
    pub fn end(&self) -> Expr {
        match (self.min.as_int(), self.extent.as_int()) {
            (Some(a), Some(b)) if a.checked_add(b).is_some() => Expr::int(a + b),
            (Some(0), _) => self.extent.clone(),
            _ => Expr::add(self.min.clone(), self.extent.clone()),
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", self.min, self.end())
    }
}
