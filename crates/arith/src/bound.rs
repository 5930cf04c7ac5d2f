//! Constant interval bounds (TVM's `ConstIntBound`, Halide's
//! `ConstantInterval`).
//!
//! `i64::MIN` and `i64::MAX` stand for negative and positive infinity. Every
//! operation is sound: when a corner computation overflows, the bound widens
//! to infinity instead of wrapping.

use crate::num;
use std::fmt;

/// Negative infinity as a bound.
pub const NEG_INF: i64 = i64::MIN;
/// Positive infinity as a bound.
pub const POS_INF: i64 = i64::MAX;

/// An inclusive interval `[min, max]` of integers, possibly unbounded.
///
/// ```
/// use arith::ConstBound;
/// let a = ConstBound::new(0, 9);
/// let b = ConstBound::new(-2, 3);
/// assert_eq!(a.add(b), ConstBound::new(-2, 12));
/// assert_eq!(a.mul(b), ConstBound::new(-18, 27));
/// assert_eq!(a.floor_div(ConstBound::point(4)), ConstBound::new(0, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstBound {
    /// Smallest possible value, or [`NEG_INF`].
    pub min: i64,
    /// Largest possible value, or [`POS_INF`].
    pub max: i64,
}

#[inline]
fn sat_add(a: i64, b: i64) -> i64 {
    if a == NEG_INF || b == NEG_INF {
        return NEG_INF;
    }
    if a == POS_INF || b == POS_INF {
        return POS_INF;
    }
    match a.checked_add(b) {
        Some(v) if v != NEG_INF && v != POS_INF => v,
        _ => {
            if a > 0 {
                POS_INF
            } else {
                NEG_INF
            }
        }
    }
}

#[inline]
fn sat_mul(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        return 0;
    }
    let neg = (a < 0) != (b < 0);
    let inf = a == NEG_INF || a == POS_INF || b == NEG_INF || b == POS_INF;
    if inf {
        return if neg { NEG_INF } else { POS_INF };
    }
    match a.checked_mul(b) {
        Some(v) if v != NEG_INF && v != POS_INF => v,
        _ => {
            if neg {
                NEG_INF
            } else {
                POS_INF
            }
        }
    }
}

#[inline]
fn sat_neg(a: i64) -> i64 {
    match a {
        NEG_INF => POS_INF,
        POS_INF => NEG_INF,
        v => -v,
    }
}

impl ConstBound {
    /// Every integer.
    pub const EVERYTHING: ConstBound = ConstBound {
        min: NEG_INF,
        max: POS_INF,
    };
    /// The values of a condition: `0` or `1`.
    pub const BOOL: ConstBound = ConstBound { min: 0, max: 1 };

    /// `[min, max]`.
    #[inline]
    pub fn new(min: i64, max: i64) -> ConstBound {
        ConstBound { min, max }
    }

    /// The single value `v`.
    #[inline]
    pub fn point(v: i64) -> ConstBound {
        ConstBound { min: v, max: v }
    }

    /// Whether the interval is one finite value.
    #[inline]
    pub fn as_point(self) -> Option<i64> {
        (self.min == self.max && self.min != NEG_INF && self.max != POS_INF).then_some(self.min)
    }

    /// Whether `v` is in the interval.
    #[inline]
    pub fn contains(self, v: i64) -> bool {
        self.min <= v && v <= self.max
    }

    /// Whether every value is `>= v`.
    #[inline]
    pub fn all_ge(self, v: i64) -> bool {
        self.min != NEG_INF && self.min >= v
    }

    /// Whether every value is `<= v`.
    #[inline]
    pub fn all_le(self, v: i64) -> bool {
        self.max != POS_INF && self.max <= v
    }

    /// Whether every value is `< v`.
    #[inline]
    pub fn all_lt(self, v: i64) -> bool {
        self.max != POS_INF && self.max < v
    }

    /// Whether every value is `> v`.
    #[inline]
    pub fn all_gt(self, v: i64) -> bool {
        self.min != NEG_INF && self.min > v
    }

    /// Whether both ends are finite.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.min != NEG_INF && self.max != POS_INF
    }

    /// Whether no value is possible.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.min > self.max
    }

    /// The smallest interval holding both.
    #[inline]
    pub fn union(self, o: ConstBound) -> ConstBound {
        ConstBound {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// The values in both.
    #[inline]
    pub fn intersect(self, o: ConstBound) -> ConstBound {
        ConstBound {
            min: self.min.max(o.min),
            max: self.max.min(o.max),
        }
    }

    /// Bounds of `a + b`.
    #[inline]
    pub fn add(self, o: ConstBound) -> ConstBound {
        ConstBound {
            min: sat_add(self.min, o.min),
            max: sat_add(self.max, o.max),
        }
    }

    /// Bounds of `-a`.
    #[inline]
    pub fn neg(self) -> ConstBound {
        ConstBound {
            min: sat_neg(self.max),
            max: sat_neg(self.min),
        }
    }

    /// Bounds of `a - b`.
    #[inline]
    pub fn sub(self, o: ConstBound) -> ConstBound {
        self.add(o.neg())
    }

    /// Bounds of `a * b`.
    pub fn mul(self, o: ConstBound) -> ConstBound {
        if let Some(c) = o.as_point() {
            return self.mul_const(c);
        }
        if let Some(c) = self.as_point() {
            return o.mul_const(c);
        }
        let c = [
            sat_mul(self.min, o.min),
            sat_mul(self.min, o.max),
            sat_mul(self.max, o.min),
            sat_mul(self.max, o.max),
        ];
        ConstBound {
            min: *c.iter().min().unwrap(),
            max: *c.iter().max().unwrap(),
        }
    }

    /// Bounds of `a * c`.
    #[inline]
    pub fn mul_const(self, c: i64) -> ConstBound {
        let (x, y) = (sat_mul(self.min, c), sat_mul(self.max, c));
        if c >= 0 {
            ConstBound { min: x, max: y }
        } else {
            ConstBound { min: y, max: x }
        }
    }

    /// Bounds of `a // b` (floor division); divisors that may be zero are
    /// excluded from the divisor's range, since division by zero has no value.
    pub fn floor_div(self, o: ConstBound) -> ConstBound {
        self.div_generic(o, |a, b| num::floor_div(a, b).ok())
    }

    /// Bounds of `ceildiv(a, b)`.
    pub fn ceil_div(self, o: ConstBound) -> ConstBound {
        self.div_generic(o, |a, b| num::ceil_div(a, b).ok())
    }

    fn div_generic(self, o: ConstBound, div: impl Fn(i64, i64) -> Option<i64>) -> ConstBound {
        // On each sign part of the divisor the quotient is monotone in both
        // arguments, so the corners bound it.
        let corner = |a: i64, b: i64| -> ConstBound {
            let a_inf = a == NEG_INF || a == POS_INF;
            let b_inf = b == NEG_INF || b == POS_INF;
            let sign_inf = if (a < 0) == (b < 0) { POS_INF } else { NEG_INF };
            match (a_inf, b_inf) {
                (false, false) => div(a, b)
                    .map(ConstBound::point)
                    .unwrap_or(ConstBound::EVERYTHING),
                (true, false) => ConstBound::point(sign_inf),
                // A finite value over an unbounded one: the limit of dividing
                // by ever larger values, which a huge stand-in reproduces.
                (false, true) if a.unsigned_abs() < 1 << 61 => {
                    let huge = if b > 0 { 1i64 << 62 } else { -(1i64 << 62) };
                    div(a, huge)
                        .map(ConstBound::point)
                        .unwrap_or(ConstBound::new(-1, 1))
                }
                (false, true) => ConstBound::new(-1, 1),
                (true, true) => ConstBound::new(0, 0).union(ConstBound::point(sign_inf)),
            }
        };
        let part = |lo: i64, hi: i64| -> Option<ConstBound> {
            (lo <= hi).then(|| {
                corner(self.min, lo)
                    .union(corner(self.min, hi))
                    .union(corner(self.max, lo))
                    .union(corner(self.max, hi))
            })
        };
        match (part(o.min.max(1), o.max), part(o.min, o.max.min(-1))) {
            (Some(a), Some(b)) => a.union(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => ConstBound::EVERYTHING,
        }
    }

    /// Bounds of `a % b` (floor modulo).
    pub fn floor_mod(self, o: ConstBound) -> ConstBound {
        // A zero divisor has no result, so it does not widen the bound.
        let o = if o.min == 0 {
            ConstBound { min: 1, ..o }
        } else if o.max == 0 {
            ConstBound { max: -1, ..o }
        } else {
            o
        };
        if o.min > 0 {
            // Result in [0, b.max - 1]; tighter when `a` is already inside.
            let m = o.max;
            if self.min >= 0 && self.max < o.min {
                return self;
            }
            let hi = if m == POS_INF { POS_INF } else { m - 1 };
            if self.min >= 0 {
                return ConstBound {
                    min: 0,
                    max: hi.min(self.max),
                };
            }
            return ConstBound { min: 0, max: hi };
        }
        if o.max < 0 {
            let lo = if o.min == NEG_INF { NEG_INF } else { o.min + 1 };
            if self.max <= 0 && self.min > o.max {
                return self;
            }
            if self.max <= 0 {
                return ConstBound {
                    min: lo.max(self.min),
                    max: 0,
                };
            }
            return ConstBound { min: lo, max: 0 };
        }
        // Divisor may have either sign: |result| < max |b|.
        let m = o.min.checked_neg().unwrap_or(POS_INF).max(o.max);
        if m == POS_INF {
            return ConstBound::EVERYTHING;
        }
        ConstBound {
            min: -(m - 1),
            max: m - 1,
        }
    }

    /// Bounds of `a % c` for a constant `c > 0` when `a` is known to be
    /// `coeff * k + base`: the result keeps `base` modulo `gcd(coeff, c)`.
    pub fn floor_mod_aligned(self, m: crate::Modular, c: i64) -> ConstBound {
        let plain = self.floor_mod(ConstBound::point(c));
        if c <= 0 || m.coeff == 0 {
            return plain;
        }
        let g = crate::num::gcd(m.coeff, c);
        let r = m.base.rem_euclid(g);
        plain.intersect(ConstBound::new(r, c - g + r))
    }

    /// Bounds of `min(a, b)`.
    #[inline]
    pub fn min_with(self, o: ConstBound) -> ConstBound {
        ConstBound {
            min: self.min.min(o.min),
            max: self.max.min(o.max),
        }
    }

    /// Bounds of `max(a, b)`.
    #[inline]
    pub fn max_with(self, o: ConstBound) -> ConstBound {
        ConstBound {
            min: self.min.max(o.min),
            max: self.max.max(o.max),
        }
    }
}

impl fmt::Display for ConstBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |v: i64| match v {
            NEG_INF => "-inf".to_string(),
            POS_INF => "+inf".to_string(),
            v => v.to_string(),
        };
        write!(f, "[{}, {}]", end(self.min), end(self.max))
    }
}
