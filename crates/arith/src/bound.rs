//! Constant interval bounds (TVM's `ConstIntBound`, Halide's
//! `ConstantInterval`).
//!
//! A lower end of `i64::MIN` stands for negative infinity and an upper end of
//! `i64::MAX` for positive infinity; every other end is a finite value, so a
//! lower end of `i64::MAX` or an upper end of `i64::MIN` means exactly that
//! value. (As sets of `i64` values the two readings agree; the distinction
//! matters in arithmetic: the constant `i64::MAX` is `[i64::MAX, +inf]`, and
//! `x + i64::MAX` with `x` in `[-i64::MAX, 0]` has the finite lower end `0`.)
//! Every operation computes its corners in `i128` with infinities far beyond
//! `i64`, then rounds each end outward, so bounds are sound and never wrap.

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

/// Infinity in the widened arithmetic of [`lo`]/[`hi`]: far beyond any
/// `i64`, and far enough below `i128::MAX` that sums of a few never wrap.
const INF: i128 = 1 << 100;

/// A lower end as a widened value: `i64::MIN` is negative infinity, every
/// other value (including `i64::MAX`) is itself.
#[inline]
fn lo(v: i64) -> i128 {
    if v == NEG_INF {
        -INF
    } else {
        v as i128
    }
}

/// An upper end as a widened value: `i64::MAX` is positive infinity, every
/// other value (including `i64::MIN`) is itself.
#[inline]
fn hi(v: i64) -> i128 {
    if v == POS_INF {
        INF
    } else {
        v as i128
    }
}

/// A widened lower end back as an `i64`: below `i64::MIN + 1` it is
/// negative infinity; above `i64::MAX` no `i64` value reaches it, so
/// `i64::MAX` (finite as a lower end) is as good.
#[inline]
fn to_lo(v: i128) -> i64 {
    if v <= NEG_INF as i128 {
        NEG_INF
    } else if v >= POS_INF as i128 {
        POS_INF
    } else {
        v as i64
    }
}

/// A widened upper end back as an `i64` (the mirror of [`to_lo`]).
#[inline]
fn to_hi(v: i128) -> i64 {
    if v >= POS_INF as i128 {
        POS_INF
    } else if v <= NEG_INF as i128 {
        NEG_INF
    } else {
        v as i64
    }
}

/// `a * b` for widened values; infinities keep their sign and `0 * inf` is
/// `0` (the interval product of `{0}` and anything is `{0}`).
#[inline]
fn wide_mul(a: i128, b: i128) -> i128 {
    if a == 0 || b == 0 {
        return 0;
    }
    a.saturating_mul(b).clamp(-INF, INF)
}

/// Floor division of widened values, `b != 0`.
#[inline]
fn wide_floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Ceiling division of widened values, `b != 0`.
#[inline]
fn wide_ceil_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
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
        // The common case in i64; the widened arithmetic only for
        // infinities and overflow.
        let min = match self.min.checked_add(o.min) {
            Some(v) if self.min != NEG_INF && o.min != NEG_INF => v,
            _ => to_lo(lo(self.min) + lo(o.min)),
        };
        let max = match self.max.checked_add(o.max) {
            Some(v) if self.max != POS_INF && o.max != POS_INF => v,
            _ => to_hi(hi(self.max) + hi(o.max)),
        };
        ConstBound { min, max }
    }

    /// Bounds of `-a`.
    #[inline]
    pub fn neg(self) -> ConstBound {
        ConstBound {
            min: to_lo(-hi(self.max)),
            max: to_hi(-lo(self.min)),
        }
    }

    /// Bounds of `a - b`.
    #[inline]
    pub fn sub(self, o: ConstBound) -> ConstBound {
        self.add(o.neg())
    }

    /// Bounds of `a * b`.
    pub fn mul(self, o: ConstBound) -> ConstBound {
        let c = [
            wide_mul(lo(self.min), lo(o.min)),
            wide_mul(lo(self.min), hi(o.max)),
            wide_mul(hi(self.max), lo(o.min)),
            wide_mul(hi(self.max), hi(o.max)),
        ];
        ConstBound {
            min: to_lo(*c.iter().min().unwrap()),
            max: to_hi(*c.iter().max().unwrap()),
        }
    }

    /// Bounds of `a * c`.
    #[inline]
    pub fn mul_const(self, c: i64) -> ConstBound {
        if c == 1 {
            return self;
        }
        if self.is_finite() {
            if let (Some(x), Some(y)) = (self.min.checked_mul(c), self.max.checked_mul(c)) {
                let (x, y) = if c >= 0 { (x, y) } else { (y, x) };
                return ConstBound {
                    min: to_lo(x as i128),
                    max: to_hi(y as i128),
                };
            }
        }
        let (x, y) = (
            wide_mul(lo(self.min), c as i128),
            wide_mul(hi(self.max), c as i128),
        );
        let (x, y) = if c >= 0 { (x, y) } else { (y, x) };
        ConstBound {
            min: to_lo(x),
            max: to_hi(y),
        }
    }

    /// Bounds of `a // b` (floor division); divisors that may be zero are
    /// excluded from the divisor's range, since division by zero has no value.
    pub fn floor_div(self, o: ConstBound) -> ConstBound {
        // Division of finite ends by a positive constant (most divisions in
        // index code) is monotone: the ends alone, in `i64`.
        if let Some(c) = self.finite_over_positive(o) {
            return ConstBound {
                min: self.min.div_euclid(c),
                max: self.max.div_euclid(c),
            };
        }
        self.div_generic(o, wide_floor_div)
    }

    /// Bounds of `ceildiv(a, b)`.
    pub fn ceil_div(self, o: ConstBound) -> ConstBound {
        if let Some(c) = self.finite_over_positive(o) {
            // Finite ends are above `i64::MIN`, so they negate.
            return ConstBound {
                min: -(-self.min).div_euclid(c),
                max: -(-self.max).div_euclid(c),
            };
        }
        self.div_generic(o, wide_ceil_div)
    }

    /// The divisor when it is one positive constant and `self` is a
    /// non-empty interval with finite ends: the case with an exact answer
    /// in `i64` (the quotient's ends are the ends' quotients, and neither
    /// reaches an infinity, since `|a / c| <= |a|`).
    #[inline]
    fn finite_over_positive(self, o: ConstBound) -> Option<i64> {
        if self.is_empty() || self.min == NEG_INF || self.max == POS_INF {
            return None;
        }
        o.as_point().filter(|&c| c > 0)
    }

    fn div_generic(self, o: ConstBound, div: impl Fn(i128, i128) -> i128) -> ConstBound {
        if self.is_empty() || o.is_empty() {
            return self;
        }
        // On each sign part of the divisor the quotient is monotone in both
        // arguments, so the corners bound it. Infinite ends are widened
        // values far beyond `i64`, which gives the right limits (a finite
        // value over an infinite one is `0` or `-1`).
        let (a0, a1) = (lo(self.min), hi(self.max));
        let part = |b0: i128, b1: i128| -> Option<(i128, i128)> {
            (b0 <= b1).then(|| {
                let c = [div(a0, b0), div(a0, b1), div(a1, b0), div(a1, b1)];
                (*c.iter().min().unwrap(), *c.iter().max().unwrap())
            })
        };
        let (b0, b1) = (lo(o.min), hi(o.max));
        let r = match (part(b0.max(1), b1), part(b0, b1.min(-1))) {
            (Some(a), Some(b)) => (a.0.min(b.0), a.1.max(b.1)),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return ConstBound::EVERYTHING,
        };
        ConstBound {
            min: to_lo(r.0),
            max: to_hi(r.1),
        }
    }

    /// Bounds of `a % b` (floor modulo).
    pub fn floor_mod(self, o: ConstBound) -> ConstBound {
        // A zero divisor has no result, so it does not widen the bound.
        let (b0, b1) = (lo(o.min), hi(o.max));
        let (b0, b1) = if b0 == 0 {
            (1, b1)
        } else if b1 == 0 {
            (b0, -1)
        } else {
            (b0, b1)
        };
        let (a0, a1) = (lo(self.min), hi(self.max));
        let wide = |x: i128, y: i128| ConstBound {
            min: to_lo(x),
            max: to_hi(y),
        };
        if b0 > b1 {
            return ConstBound::EVERYTHING;
        }
        if b0 > 0 {
            // Result in [0, b.max - 1]; tighter when `a` is already inside.
            if a0 >= 0 && a1 < b0 {
                return self;
            }
            let top = b1 - 1;
            return if a0 >= 0 {
                wide(0, top.min(a1))
            } else {
                wide(0, top)
            };
        }
        if b1 < 0 {
            let bottom = b0 + 1;
            if a1 <= 0 && a0 > b1 {
                return self;
            }
            return if a1 <= 0 {
                wide(bottom.max(a0), 0)
            } else {
                wide(bottom, 0)
            };
        }
        // Divisor may have either sign: |result| < max |b|.
        let m = (-b0).max(b1);
        wide(-(m - 1), m - 1)
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
        plain.intersect(ConstBound::new(r, to_hi(c as i128 - g as i128 + r as i128)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Interval ends: small values, values near the ends of `i64`, and the
    /// infinities.
    fn end() -> impl Strategy<Value = i64> {
        prop_oneof![
            -40i64..40,
            Just(NEG_INF),
            Just(POS_INF),
            Just(NEG_INF + 1),
            Just(POS_INF - 1),
            any::<i64>(),
        ]
    }

    proptest! {
        /// The constant-divisor shortcut gives what the corner analysis
        /// gives.
        #[test]
        fn division_by_a_positive_constant_matches_the_corners(
            a in end(), b in end(), c in prop_oneof![1i64..20, Just(POS_INF - 1), 1i64..i64::MAX],
        ) {
            let x = ConstBound::new(a.min(b), a.max(b));
            let d = ConstBound::point(c);
            prop_assert_eq!(x.floor_div(d), x.div_generic(d, wide_floor_div));
            prop_assert_eq!(x.ceil_div(d), x.div_generic(d, wide_ceil_div));
        }
    }
}
