//! Element types of buffers and values.

use std::fmt;
use std::str::FromStr;

/// The element type of a buffer or a value, named as TVM names it
/// (`"float32"`, `"int32"`, ...).
///
/// ```
/// use tir::DataType;
/// let t: DataType = "float32".parse().unwrap();
/// assert_eq!(t, DataType::Float32);
/// assert!(t.is_float());
/// assert_eq!(DataType::Int8.to_string(), "int8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    /// `bool`: 0 or 1.
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `int32`, TVM's default integer type.
    Int32,
    /// `int64`
    Int64,
    /// `uint8`
    UInt8,
    /// `uint16`
    UInt16,
    /// `uint32`
    UInt32,
    /// `float16`: half precision (values are rounded to it when stored).
    Float16,
    /// `float32`, TVM's default float type.
    Float32,
    /// `float64`
    Float64,
}

impl DataType {
    /// Every type, in declaration order.
    pub const ALL: [DataType; 11] = [
        DataType::Bool,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
    ];

    /// TVM's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Bool => "bool",
            DataType::Int8 => "int8",
            DataType::Int16 => "int16",
            DataType::Int32 => "int32",
            DataType::Int64 => "int64",
            DataType::UInt8 => "uint8",
            DataType::UInt16 => "uint16",
            DataType::UInt32 => "uint32",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
        }
    }

    /// Whether this is `float16`, `float32` or `float64`.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        )
    }

    /// `x` as this type holds a float: rounded to the nearest value of
    /// single or half precision (ties to even, beyond the largest finite
    /// value an infinity); other types keep `x`.
    pub fn round(self, x: f64) -> f64 {
        match self {
            DataType::Float32 => x as f32 as f64,
            DataType::Float16 => round_half(x),
            _ => x,
        }
    }

    /// Whether arithmetic (`+`, `-`, `*`, negation) in this integer type
    /// wraps around on overflow in the code TVM generates: the unsigned
    /// types, and the signed ones narrower than 32 bits (LLVM's plain
    /// `add`, `sub`, `mul`, as C's promotion to `int` makes them). `int32`
    /// and `int64` arithmetic carries LLVM's `nsw` flag: its overflow is
    /// undefined, and an error when a program is run here.
    pub fn wraps(self) -> bool {
        matches!(
            self,
            DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::Int8
                | DataType::Int16
        )
    }

    /// The integer `x` as this type holds it after a conversion: its low
    /// bits, read unsigned or two's complement (LLVM's `trunc`, `sext` and
    /// `zext`; every integer conversion is defined). A boolean is `x != 0`;
    /// 64-bit and float types keep `x`.
    pub fn wrap_int(self, x: i64) -> i64 {
        match self {
            DataType::Bool => i64::from(x != 0),
            DataType::Int8 => x as i8 as i64,
            DataType::Int16 => x as i16 as i64,
            DataType::Int32 => x as i32 as i64,
            DataType::UInt8 => x as u8 as i64,
            DataType::UInt16 => x as u16 as i64,
            DataType::UInt32 => x as u32 as i64,
            DataType::Int64 | DataType::Float16 | DataType::Float32 | DataType::Float64 => x,
        }
    }

    /// [`Self::wrap_int`] of an integer held in a float (as direct
    /// evaluation holds values); a value that is not an integer of at most
    /// 2^63 in size is kept.
    pub fn wrap_integral(self, x: f64) -> f64 {
        if self.is_float() || x.fract() != 0.0 || x.abs() >= 9.223_372_036_854_776e18 {
            return x;
        }
        self.wrap_int(x as i64) as f64
    }

    /// Whether this is an integer or boolean type.
    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    /// Width in bits (`bool` counts as 1).
    pub fn bits(self) -> u32 {
        match self {
            DataType::Bool => 1,
            DataType::Int8 | DataType::UInt8 => 8,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 => 16,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 32,
            DataType::Int64 | DataType::Float64 => 64,
        }
    }

    /// The inclusive range of an integer type, `None` for floats.
    pub fn int_range(self) -> Option<(i64, i64)> {
        Some(match self {
            DataType::Bool => (0, 1),
            DataType::Int8 => (i8::MIN as i64, i8::MAX as i64),
            DataType::Int16 => (i16::MIN as i64, i16::MAX as i64),
            DataType::Int32 => (i32::MIN as i64, i32::MAX as i64),
            DataType::Int64 => (i64::MIN, i64::MAX),
            DataType::UInt8 => (0, u8::MAX as i64),
            DataType::UInt16 => (0, u16::MAX as i64),
            DataType::UInt32 => (0, u32::MAX as i64),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => return None,
        })
    }

    /// The type of `a op b` for an arithmetic `op`: the float type if either
    /// side is a float (the wider one if both are), otherwise the wider integer
    /// type. TVM would ask for an explicit cast; promoting keeps hand-built
    /// programs short and never loses a value the narrower type could hold.
    pub fn promote(self, other: DataType) -> DataType {
        match (self.is_float(), other.is_float()) {
            (true, false) => self,
            (false, true) => other,
            _ if other.bits() > self.bits() => other,
            _ => self,
        }
    }
}

/// `x` rounded to IEEE half precision (10 mantissa bits, exponents down
/// to -14, subnormals below), ties to even.
fn round_half(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    // 65520 is halfway between the largest half (65504) and the next
    // power of two: from there on the value rounds to infinity.
    if x.abs() >= 65520.0 {
        return f64::INFINITY.copysign(x);
    }
    let exponent = (x.abs().log2().floor() as i32).max(-14);
    let quantum = 2f64.powi(exponent - 10);
    (x / quantum).round_ties_even() * quantum
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown type name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownDataType(pub String);

impl fmt::Display for UnknownDataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = DataType::ALL.iter().map(|t| t.name()).collect();
        write!(
            f,
            "unknown data type `{}`: use one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownDataType {}

impl FromStr for DataType {
    type Err = UnknownDataType;

    /// A type's name, or TVM's short names: `int`, `uint` and `float`
    /// without a width are 32 bits.
    fn from_str(s: &str) -> Result<DataType, UnknownDataType> {
        match s {
            "int" => return Ok(DataType::Int32),
            "uint" => return Ok(DataType::UInt32),
            "float" => return Ok(DataType::Float32),
            _ => {}
        }
        DataType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownDataType(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_32_bits_as_in_tvm() {
        assert_eq!("float".parse(), Ok(DataType::Float32));
        assert_eq!("int".parse(), Ok(DataType::Int32));
        assert_eq!("uint".parse(), Ok(DataType::UInt32));
        assert!("float7".parse::<DataType>().is_err());
    }

    #[test]
    fn half_precision_rounds_as_ieee_binary16() {
        let h = |x: f64| DataType::Float16.round(x);
        assert_eq!(h(1.0), 1.0);
        assert_eq!(h(1.0 + 1.0 / 2048.0), 1.0); // a tie rounds to even
        assert_eq!(h(1.0 + 3.0 / 2048.0), 1.0 + 2.0 / 1024.0);
        assert_eq!(h(0.1), 0.0999755859375);
        assert_eq!(h(65504.0), 65504.0);
        assert_eq!(h(65519.0), 65504.0);
        assert_eq!(h(65520.0), f64::INFINITY);
        assert_eq!(h(2f64.powi(-24)), 2f64.powi(-24)); // the smallest subnormal
        assert_eq!(h(2f64.powi(-26)), 0.0);
        assert_eq!(h(-3.3), -3.30078125);
        assert_eq!("float16".parse::<DataType>(), Ok(DataType::Float16));
    }
}
