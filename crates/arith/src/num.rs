//! Checked integer helpers with floor semantics.

use crate::error::{ArithError, ErrorKind, Result};

/// `a + b`, or an overflow error.
#[inline]
pub fn add(a: i64, b: i64) -> Result<i64> {
    a.checked_add(b)
        .ok_or_else(|| ArithError::overflow("addition"))
}

/// `a - b`, or an overflow error.
#[inline]
pub fn sub(a: i64, b: i64) -> Result<i64> {
    a.checked_sub(b)
        .ok_or_else(|| ArithError::overflow("subtraction"))
}

/// `a * b`, or an overflow error.
#[inline]
pub fn mul(a: i64, b: i64) -> Result<i64> {
    a.checked_mul(b)
        .ok_or_else(|| ArithError::overflow("multiplication"))
}

/// `-a`, or an overflow error.
#[inline]
pub fn neg(a: i64) -> Result<i64> {
    a.checked_neg()
        .ok_or_else(|| ArithError::overflow("negation"))
}

fn div_zero() -> ArithError {
    ArithError::new(ErrorKind::DivisionByZero, "division or modulo by zero")
}

/// Floor division, rounding toward negative infinity.
#[inline]
pub fn floor_div(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(div_zero());
    }
    let q = a
        .checked_div(b)
        .ok_or_else(|| ArithError::overflow("division"))?;
    Ok(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Floor modulo: the result has the sign of `b` (or is zero).
#[inline]
pub fn floor_mod(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(div_zero());
    }
    if b == -1 {
        return Ok(0);
    }
    let r = a % b;
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// Ceiling division, rounding toward positive infinity.
#[inline]
pub fn ceil_div(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(div_zero());
    }
    let q = a
        .checked_div(b)
        .ok_or_else(|| ArithError::overflow("division"))?;
    Ok(if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    })
}

/// Greatest common divisor of the absolute values (`gcd(0, 0) = 0`).
///
/// The one value that does not fit, `2^63` (for `gcd(i64::MIN, 0)` and
/// `gcd(i64::MIN, i64::MIN)`), is given as `2^62`: still a common divisor,
/// so callers that divide by it stay exact.
#[inline]
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    if a == 1 || b == 1 {
        return 1;
    }
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    if a > i64::MAX as u64 {
        1 << 62
    } else {
        a as i64
    }
}

/// Least common multiple, or `None` when it does not fit.
#[inline]
pub fn lcm(a: i64, b: i64) -> Option<i64> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / gcd(a, b)).checked_mul(b).map(|v| v.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_semantics() {
        assert_eq!(floor_div(7, 2).unwrap(), 3);
        assert_eq!(floor_div(-7, 2).unwrap(), -4);
        assert_eq!(floor_div(7, -2).unwrap(), -4);
        assert_eq!(floor_div(-7, -2).unwrap(), 3);
        assert_eq!(floor_mod(-7, 2).unwrap(), 1);
        assert_eq!(floor_mod(7, -2).unwrap(), -1);
        assert_eq!(floor_mod(i64::MIN, -1).unwrap(), 0);
        assert_eq!(ceil_div(7, 2).unwrap(), 4);
        assert_eq!(ceil_div(-7, 2).unwrap(), -3);
        assert!(floor_div(i64::MIN, -1).is_err());
        assert!(floor_div(1, 0).is_err());
        assert_eq!(gcd(-12, 18), 6);
        assert_eq!(gcd(i64::MIN, 0), 1 << 62);
        assert_eq!(gcd(i64::MIN, i64::MIN), 1 << 62);
        assert_eq!(gcd(i64::MIN, 6), 2);
        assert_eq!(gcd(i64::MIN, i64::MAX), 1);
    }
}
