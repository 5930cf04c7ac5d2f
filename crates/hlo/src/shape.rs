//! HLO shapes: arrays with an element type, dimensions and an optional
//! layout, and tuples of shapes.

use crate::element_type::ElementType;
use std::fmt;

/// An array shape such as `f32[10,20]{1,0}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayShape {
    /// The element type as written (`f32`, `bf16`, `pred`, `s32`, `token`, ...).
    pub element_type: String,
    /// The size of each dimension, major to minor in logical order.
    pub dims: Vec<i64>,
    /// The layout's `minor_to_major` list, when the text gives one.
    pub layout: Option<Vec<usize>>,
}

/// An HLO shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A dense array (a scalar has no dimensions).
    Array(ArrayShape),
    /// A tuple of shapes, e.g. the result of a variadic reduce.
    Tuple(Vec<Shape>),
}

impl ArrayShape {
    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The element type, or `None` for `token`, `opaque` and unknown
    /// spellings.
    pub fn element(&self) -> Option<ElementType> {
        ElementType::parse(&self.element_type)
    }

    /// The number of elements, or `None` when it overflows `i64`.
    pub fn element_count(&self) -> Option<i64> {
        self.dims
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
    }

    /// The layout's `minor_to_major` order, defaulting to row-major
    /// (`{rank-1, ..., 1, 0}`) when none was written.
    pub fn minor_to_major(&self) -> Vec<usize> {
        match &self.layout {
            Some(l) if l.len() == self.dims.len() => l.clone(),
            _ => (0..self.dims.len()).rev().collect(),
        }
    }
}

impl Shape {
    /// The array shape, or `None` for a tuple.
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            Shape::Tuple(_) => None,
        }
    }

    /// The `index`-th element of a tuple shape, or the shape itself for
    /// `index == 0` of an array (single-output instructions).
    pub fn output(&self, index: usize) -> Option<&Shape> {
        match self {
            Shape::Tuple(elems) => elems.get(index),
            Shape::Array(_) if index == 0 => Some(self),
            Shape::Array(_) => None,
        }
    }

    /// The number of outputs: the tuple's length, or 1 for an array.
    pub fn output_count(&self) -> usize {
        match self {
            Shape::Tuple(elems) => elems.len(),
            Shape::Array(_) => 1,
        }
    }
}

impl fmt::Display for ArrayShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.element_type)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")?;
        if let Some(layout) = &self.layout {
            f.write_str("{")?;
            for (i, d) in layout.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{d}")?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => a.fmt(f),
            Shape::Tuple(elems) => {
                f.write_str("(")?;
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    e.fmt(f)?;
                }
                f.write_str(")")
            }
        }
    }
}
