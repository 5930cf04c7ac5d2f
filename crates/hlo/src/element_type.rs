//! HLO element types as far as the analysis needs them: the width in bits
//! (for `bitcast-convert`) and, for integers, the values the type holds
//! and XLA's two's-complement wrap-around (for every value folded into a
//! map).

use std::fmt;

/// The kind of values an element type holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    /// `pred`: `false` and `true` (0 and 1).
    Pred,
    /// A two's-complement signed integer (`s2` ... `s64`).
    Signed,
    /// An unsigned integer (`u2` ... `u64`).
    Unsigned,
    /// A real floating-point type (`f16`, `bf16`, `f32`, `f8e4m3fn`, ...).
    Float,
    /// A complex type (`c64`, `c128`).
    Complex,
}

/// An array element type with a known width, e.g. `s8` or `f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementType {
    /// What the bits mean.
    pub kind: ElementKind,
    /// The width in bits, as XLA counts it for `bitcast-convert` (`pred`
    /// takes a byte).
    pub bits: u32,
}

impl ElementType {
    /// The type spelled `name`, or `None` for `token`, `opaque` and
    /// unknown spellings.
    pub fn parse(name: &str) -> Option<ElementType> {
        use ElementKind::*;
        let (kind, bits) = match name {
            "pred" => (Pred, 8),
            "c64" => (Complex, 64),
            "c128" => (Complex, 128),
            "bf16" => (Float, 16),
            "f8e5m2" | "f8e4m3" | "f8e4m3fn" | "f8e4m3b11fnuz" | "f8e5m2fnuz" | "f8e4m3fnuz"
            | "f8e3m4" | "f8e8m0fnu" => (Float, 8),
            "f6e2m3fn" | "f6e3m2fn" => (Float, 6),
            "f4e2m1fn" => (Float, 4),
            _ => {
                let kind = match name.as_bytes().first() {
                    Some(b's') => Signed,
                    Some(b'u') => Unsigned,
                    Some(b'f') => Float,
                    _ => return None,
                };
                let bits: u32 = name[1..].parse().ok()?;
                let valid = match kind {
                    Float => matches!(bits, 16 | 32 | 64),
                    _ => matches!(bits, 1 | 2 | 4 | 8 | 16 | 32 | 64),
                };
                if !valid || name[1..].starts_with('0') {
                    return None;
                }
                (kind, bits)
            }
        };
        Some(ElementType { kind, bits })
    }

    /// Whether the type holds integers (`pred` counts, as 0 and 1).
    pub fn is_integer(self) -> bool {
        matches!(
            self.kind,
            ElementKind::Pred | ElementKind::Signed | ElementKind::Unsigned
        )
    }

    /// The smallest and largest value of an integer type.
    pub fn integer_range(self) -> Option<(i128, i128)> {
        let b = self.bits;
        match self.kind {
            ElementKind::Pred => Some((0, 1)),
            ElementKind::Signed => Some((-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)),
            ElementKind::Unsigned => Some((0, (1i128 << b) - 1)),
            ElementKind::Float | ElementKind::Complex => None,
        }
    }

    /// Whether `value` is a value of this integer type.
    pub fn fits(self, value: i128) -> bool {
        self.integer_range()
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&value))
    }

    /// `value` as this integer type holds it: the low `bits` bits, read as
    /// two's complement for a signed type (XLA's integer arithmetic and
    /// integer-to-integer `convert`); `pred` is `value != 0`. `None` for a
    /// non-integer type, or a `u64` value above `i64::MAX` (which no index
    /// can be).
    pub fn wrap(self, value: i128) -> Option<i64> {
        let (lo, _) = self.integer_range()?;
        if self.kind == ElementKind::Pred {
            return Some(i64::from(value != 0));
        }
        let modulus = 1i128 << self.bits;
        let wrapped = (value - lo).rem_euclid(modulus) + lo;
        i64::try_from(wrapped).ok()
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            ElementKind::Pred => return f.write_str("pred"),
            ElementKind::Signed => "s",
            ElementKind::Unsigned => "u",
            ElementKind::Float => "f",
            ElementKind::Complex => "c",
        };
        write!(f, "{prefix}{}", self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_is_twos_complement() {
        let s8 = ElementType::parse("s8").unwrap();
        assert_eq!(s8.wrap(150), Some(-106));
        assert_eq!(s8.wrap(-129), Some(127));
        assert_eq!(s8.wrap(127), Some(127));
        let u8 = ElementType::parse("u8").unwrap();
        assert_eq!(u8.wrap(256), Some(0));
        assert_eq!(u8.wrap(-1), Some(255));
        let pred = ElementType::parse("pred").unwrap();
        assert_eq!(pred.wrap(2), Some(1));
        assert_eq!(ElementType::parse("f32").unwrap().wrap(1), None);
        let u64 = ElementType::parse("u64").unwrap();
        assert_eq!(u64.wrap(-1), None);
        assert_eq!(
            ElementType::parse("s64").unwrap().wrap(1 << 63),
            Some(i64::MIN)
        );
    }

    #[test]
    fn widths() {
        for (name, bits) in [
            ("f32", 32),
            ("bf16", 16),
            ("f8e4m3fn", 8),
            ("c128", 128),
            ("s4", 4),
            ("pred", 8),
        ] {
            assert_eq!(ElementType::parse(name).unwrap().bits, bits, "{name}");
        }
        for name in ["token", "opaque", "s3", "f8x", "s08", "x32"] {
            assert!(ElementType::parse(name).is_none(), "{name}");
        }
    }
}
