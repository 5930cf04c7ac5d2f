//! Closed integer intervals `[lower, upper]`, XLA's range convention.

use arith::ConstBound;
use std::fmt;

/// The closed interval `[lower, upper]` of 64-bit integers. It is empty when
/// `lower > upper`.
///
/// ```
/// use indexing::Interval;
/// let a = Interval::new(0, 9);
/// assert_eq!(a.intersect(Interval::new(5, 20)), Interval::new(5, 9));
/// assert!(Interval::new(1, 0).is_empty());
/// assert_eq!(a.to_string(), "[0, 9]");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    /// The smallest member.
    pub lower: i64,
    /// The largest member.
    pub upper: i64,
}

impl Interval {
    /// `[lower, upper]`.
    pub const fn new(lower: i64, upper: i64) -> Interval {
        Interval { lower, upper }
    }

    /// `[v, v]`.
    pub const fn point(v: i64) -> Interval {
        Interval { lower: v, upper: v }
    }

    /// `[0, size - 1]`, the index range of a dimension of `size` elements.
    pub fn of_size(size: i64) -> Interval {
        Interval {
            lower: 0,
            upper: size.saturating_sub(1),
        }
    }

    /// Whether the interval has no members.
    pub fn is_empty(self) -> bool {
        self.lower > self.upper
    }

    /// The single member, if there is exactly one.
    pub fn as_point(self) -> Option<i64> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// Whether `v` is a member.
    pub fn contains(self, v: i64) -> bool {
        self.lower <= v && v <= self.upper
    }

    /// Whether every member of `other` is a member of `self` (an empty
    /// `other` is contained in everything).
    pub fn contains_interval(self, other: Interval) -> bool {
        other.is_empty() || (self.lower <= other.lower && other.upper <= self.upper)
    }

    /// The members common to both.
    pub fn intersect(self, other: Interval) -> Interval {
        Interval {
            lower: self.lower.max(other.lower),
            upper: self.upper.min(other.upper),
        }
    }

    /// The smallest interval holding both.
    pub fn hull(self, other: Interval) -> Interval {
        if self.is_empty() {
            return other;
        }
        if other.is_empty() {
            return self;
        }
        Interval {
            lower: self.lower.min(other.lower),
            upper: self.upper.max(other.upper),
        }
    }

    /// The number of members (0 when empty), as a `u128` so that
    /// `[i64::MIN, i64::MAX]` fits.
    pub fn len(self) -> u128 {
        if self.is_empty() {
            0
        } else {
            (self.upper as i128 - self.lower as i128 + 1) as u128
        }
    }

    /// The constant bound with the same members.
    pub fn to_bound(self) -> ConstBound {
        ConstBound::new(self.lower, self.upper)
    }

    /// The interval with the same members as `b` (infinite ends become
    /// `i64::MIN` / `i64::MAX`).
    pub fn from_bound(b: ConstBound) -> Interval {
        Interval {
            lower: b.min,
            upper: b.max,
        }
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.lower, self.upper)
    }
}
