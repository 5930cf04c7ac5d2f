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
    let (q, inexact) = wide_trunc_div(a, b);
    if inexact && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Ceiling division of widened values, `b != 0`.
#[inline]
fn wide_ceil_div(a: i128, b: i128) -> i128 {
    let (q, inexact) = wide_trunc_div(a, b);
    if inexact && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    }
}

/// `a / b` rounded toward zero, and whether it was inexact, `b != 0`. The
/// corners of interval division are mostly `i64` values, or an `i64` value
/// over an infinity: those take a 64-bit division or none, since a 128-bit
/// one costs several times as much.
#[inline]
fn wide_trunc_div(a: i128, b: i128) -> (i128, bool) {
    if a.unsigned_abs() < b.unsigned_abs() {
        return (0, a != 0);
    }
    match (i64::try_from(a), i64::try_from(b)) {
        (Ok(x), Ok(y)) if y != -1 => ((x / y) as i128, x % y != 0),
        _ => (a / b, a % b != 0),
    }
}

/// An interval in the widened arithmetic: ends in `i128`, with
/// infinities at `±2^100`, far beyond any `i64`. It is the one interval
/// evaluator of the crate: [`ConstBound`]'s operations are these, rounded
/// outward to `i64` ends; the overflow analysis reads them unrounded, where
/// an end past `i64` is a value the node cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wide {
    /// The lower end (`-2^100` for negative infinity).
    pub lo: i128,
    /// The upper end (`2^100` for positive infinity).
    pub hi: i128,
}

impl Wide {
    /// The values `lo..=hi` exactly: both ends are values, `i64::MIN` and
    /// `i64::MAX` included (not infinities, as in a [`ConstBound`]).
    #[inline]
    pub fn exact(lo: i64, hi: i64) -> Wide {
        Wide {
            lo: lo as i128,
            hi: hi as i128,
        }
    }

    /// A bound read with its infinities.
    #[inline]
    pub fn of(b: ConstBound) -> Wide {
        Wide {
            lo: lo(b.min),
            hi: hi(b.max),
        }
    }

    /// Rounded outward to `i64` ends.
    #[inline]
    pub fn narrow(self) -> ConstBound {
        ConstBound {
            min: to_lo(self.lo),
            max: to_hi(self.hi),
        }
    }

    /// Whether both ends are inside `i64` (so no value is lost).
    #[inline]
    pub fn fits_i64(self) -> bool {
        self.lo >= i64::MIN as i128 && self.hi <= i64::MAX as i128
    }

    /// Cut to `i64`: the values a node that did not overflow can hold.
    #[inline]
    pub fn clamp_i64(self) -> Wide {
        let (lo, hi) = (i64::MIN as i128, i64::MAX as i128);
        Wide {
            lo: self.lo.clamp(lo, hi),
            hi: self.hi.clamp(lo, hi),
        }
    }

    fn is_empty(self) -> bool {
        self.lo > self.hi
    }

    /// `a + b`.
    #[inline]
    pub fn add(self, o: Wide) -> Wide {
        Wide {
            lo: (self.lo + o.lo).clamp(-INF, INF),
            hi: (self.hi + o.hi).clamp(-INF, INF),
        }
    }

    /// `-a`.
    #[inline]
    pub fn neg(self) -> Wide {
        Wide {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    /// `a - b`.
    #[inline]
    pub fn sub(self, o: Wide) -> Wide {
        self.add(o.neg())
    }

    /// `a * b`: the extreme corners.
    pub fn mul(self, o: Wide) -> Wide {
        let c = [
            wide_mul(self.lo, o.lo),
            wide_mul(self.lo, o.hi),
            wide_mul(self.hi, o.lo),
            wide_mul(self.hi, o.hi),
        ];
        Wide {
            lo: *c.iter().min().expect("four corners"),
            hi: *c.iter().max().expect("four corners"),
        }
    }

    /// `a // b` or `ceildiv(a, b)` (`div` rounds), over the divisors other
    /// than zero (division by zero has no value); `None` when zero is the
    /// only divisor.
    pub fn div(self, o: Wide, div: impl Fn(i128, i128) -> i128) -> Option<Wide> {
        if self.is_empty() || o.is_empty() {
            return Some(self);
        }
        // On each sign part of the divisor the quotient is monotone in both
        // arguments, so the corners bound it. Infinite ends are far beyond
        // `i64`, which gives the right limits (a finite value over an
        // infinite one is `0` or `-1`).
        let part = |b0: i128, b1: i128| -> Option<(i128, i128)> {
            (b0 <= b1).then(|| {
                let c = [
                    div(self.lo, b0),
                    div(self.lo, b1),
                    div(self.hi, b0),
                    div(self.hi, b1),
                ];
                (*c.iter().min().unwrap(), *c.iter().max().unwrap())
            })
        };
        let (lo, hi) = match (part(o.lo.max(1), o.hi), part(o.lo, o.hi.min(-1))) {
            (Some(a), Some(b)) => (a.0.min(b.0), a.1.max(b.1)),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return None,
        };
        Some(Wide { lo, hi })
    }

    /// `a // b`.
    pub fn floor_div(self, o: Wide) -> Option<Wide> {
        self.div(o, wide_floor_div)
    }

    /// `ceildiv(a, b)`.
    pub fn ceil_div(self, o: Wide) -> Option<Wide> {
        self.div(o, wide_ceil_div)
    }

    /// `a % b` (floor modulo), over the divisors other than zero; `None`
    /// when zero is the only divisor.
    pub fn floor_mod(self, o: Wide) -> Option<Wide> {
        let (b0, b1) = match (o.lo, o.hi) {
            (0, b1) => (1, b1),
            (b0, 0) => (b0, -1),
            ends => ends,
        };
        let (a0, a1) = (self.lo, self.hi);
        let w = |lo: i128, hi: i128| Some(Wide { lo, hi });
        if b0 > b1 {
            return None;
        }
        if b0 > 0 {
            // In `[0, b.max - 1]`; `a` itself when already inside.
            if a0 >= 0 && a1 < b0 {
                return Some(self);
            }
            return if a0 >= 0 {
                w(0, (b1 - 1).min(a1))
            } else {
                w(0, b1 - 1)
            };
        }
        if b1 < 0 {
            if a1 <= 0 && a0 > b1 {
                return Some(self);
            }
            return if a1 <= 0 {
                w((b0 + 1).max(a0), 0)
            } else {
                w(b0 + 1, 0)
            };
        }
        // A divisor of either sign: |result| < max |b|.
        let m = (-b0).max(b1);
        w(-(m - 1), m - 1)
    }

    /// `min(a, b)`.
    #[inline]
    pub fn min_with(self, o: Wide) -> Wide {
        Wide {
            lo: self.lo.min(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    /// `max(a, b)`.
    #[inline]
    pub fn max_with(self, o: Wide) -> Wide {
        Wide {
            lo: self.lo.max(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// The values in either.
    #[inline]
    pub fn union(self, o: Wide) -> Wide {
        Wide {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
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
            _ => Wide::of(self).add(Wide::of(o)).narrow().min,
        };
        let max = match self.max.checked_add(o.max) {
            Some(v) if self.max != POS_INF && o.max != POS_INF => v,
            _ => Wide::of(self).add(Wide::of(o)).narrow().max,
        };
        ConstBound { min, max }
    }

    /// Bounds of `-a`.
    #[inline]
    pub fn neg(self) -> ConstBound {
        Wide::of(self).neg().narrow()
    }

    /// Bounds of `a - b`.
    #[inline]
    pub fn sub(self, o: ConstBound) -> ConstBound {
        self.add(o.neg())
    }

    /// Bounds of `a * b`.
    pub fn mul(self, o: ConstBound) -> ConstBound {
        Wide::of(self).mul(Wide::of(o)).narrow()
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
        Wide::of(self)
            .div(Wide::of(o), div)
            .map_or(ConstBound::EVERYTHING, Wide::narrow)
    }

    /// Bounds of `a % b` (floor modulo).
    pub fn floor_mod(self, o: ConstBound) -> ConstBound {
        // A zero divisor has no result, so it does not widen the bound.
        Wide::of(self)
            .floor_mod(Wide::of(o))
            .map_or(ConstBound::EVERYTHING, Wide::narrow)
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

    /// Widened values: `i64` values, values past them, and the infinities.
    fn wide_value() -> impl Strategy<Value = i128> {
        prop_oneof![
            -40i128..40,
            any::<i64>().prop_map(i128::from),
            Just(INF),
            Just(-INF),
            Just(i128::from(i64::MIN)),
            Just(i128::from(i64::MAX)),
            (-INF..INF),
        ]
    }

    proptest! {
        /// The fast paths of widened division give what 128-bit division
        /// gives.
        #[test]
        fn widened_division_matches_plain_division(a in wide_value(), b in wide_value()) {
            prop_assume!(b != 0);
            let (q, r) = (a / b, a % b);
            prop_assert_eq!(wide_trunc_div(a, b), (q, r != 0));
            let floor = if r != 0 && ((a < 0) != (b < 0)) { q - 1 } else { q };
            let ceil = if r != 0 && ((a < 0) == (b < 0)) { q + 1 } else { q };
            prop_assert_eq!(wide_floor_div(a, b), floor);
            prop_assert_eq!(wide_ceil_div(a, b), ceil);
        }

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
