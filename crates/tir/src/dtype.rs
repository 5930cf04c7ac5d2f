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
    /// `float32`, TVM's default float type.
    Float32,
    /// `float64`
    Float64,
}

impl DataType {
    /// Every type, in declaration order.
    pub const ALL: [DataType; 10] = [
        DataType::Bool,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
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
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
        }
    }

    /// Whether this is `float32` or `float64`.
    pub fn is_float(self) -> bool {
        matches!(self, DataType::Float32 | DataType::Float64)
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
            DataType::Int16 | DataType::UInt16 => 16,
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
            DataType::Float32 | DataType::Float64 => return None,
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

    fn from_str(s: &str) -> Result<DataType, UnknownDataType> {
        DataType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownDataType(s.to_string()))
    }
}
