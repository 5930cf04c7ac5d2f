//! HLO shapes: arrays with an element type, dimensions and an optional
//! layout, and tuples of shapes.

use crate::element_type::ElementType;
use crate::error::AnalysisError;
use indexing::IndexingMap;
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
    /// The layout's tiles (`T(8,128)(2,1)`), the first applied first; empty
    /// for an untiled layout.
    pub tiles: Vec<Tile>,
    /// The layout's other annotations after the `:`, in the order written.
    pub annotations: Vec<LayoutAnnotation>,
}

/// One level of a tiled layout: `(8,128)` in `T(8,128)(2,1)`. It tiles the
/// most minor physical dimensions of the shape it applies to (the last
/// `dims.len()`), as XLA's tiled layouts do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// The tile's sizes, major to minor.
    pub dims: Vec<TileDim>,
}

/// One dimension of a [`Tile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileDim {
    /// A tile size (positive).
    Size(i64),
    /// `*`: the dimension is combined with the next more minor one before
    /// tiling.
    Combine,
}

/// An annotation of a layout other than its tiles, as XLA prints it after
/// the `:` (`{1,0:T(8,128)E(4)S(1)}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutAnnotation {
    /// `E(n)`: elements take `n` bits (packed sub-byte types).
    ElementSizeInBits(i64),
    /// `S(n)`: the memory space the array lives in.
    MemorySpace(i64),
    /// `L(n)`: the element count is padded at the end to a multiple of `n`.
    TailPadding(i64),
    /// `M(n)`: bytes of dynamic-shape metadata before the elements.
    MetadataPrefixBytes(i64),
    /// Any other annotation, as written: `D(...)` dimension level types,
    /// `#(...)`/`*(...)` index and pointer types, `SC(...)` split
    /// configurations, `P(...)` a physical shape.
    Other(String),
}

impl LayoutAnnotation {
    /// Whether the annotation leaves every element where the dimension
    /// order and tiles put it: element size, memory space, tail padding,
    /// metadata prefix, split configurations (they cut the buffer, not
    /// reorder it) and all-dense dimension level types do; sparse level
    /// types, physical shapes and unknown annotations may not.
    pub fn keeps_positions(&self) -> bool {
        match self {
            LayoutAnnotation::Other(text) => {
                if let Some(levels) = text.strip_prefix("D(") {
                    levels
                        .trim_end_matches(')')
                        .split(',')
                        .all(|l| l.trim() == "D")
                } else {
                    text.starts_with("SC(") || text.starts_with("#(") || text.starts_with("*(")
                }
            }
            _ => true,
        }
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match d {
                TileDim::Size(n) => write!(f, "{n}")?,
                TileDim::Combine => f.write_str("*")?,
            }
        }
        f.write_str(")")
    }
}

impl fmt::Display for LayoutAnnotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutAnnotation::ElementSizeInBits(n) => write!(f, "E({n})"),
            LayoutAnnotation::MemorySpace(n) => write!(f, "S({n})"),
            LayoutAnnotation::TailPadding(n) => write!(f, "L({n})"),
            LayoutAnnotation::MetadataPrefixBytes(n) => write!(f, "M({n})"),
            LayoutAnnotation::Other(text) => f.write_str(text),
        }
    }
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

    /// The physical shape, major to minor: the dimensions in the layout's
    /// order, then tiled by each of its tiles (`f32[1000,300]{1,0:T(8,128)}`
    /// is `[125, 3, 8, 128]`). Fails for layouts whose element positions are
    /// not known (sparse, combined tile dimensions).
    pub fn physical_dims(&self) -> Result<Vec<i64>, AnalysisError> {
        crate::ops::physical_dims(self)
    }

    /// The map from logical indices to physical positions (see
    /// [`ArrayShape::physical_dims`]).
    pub fn logical_to_physical(&self) -> Result<IndexingMap, AnalysisError> {
        crate::ops::logical_to_physical(self)
    }

    /// The map from physical positions to logical indices; positions of
    /// tile padding are outside its domain.
    pub fn physical_to_logical(&self) -> Result<IndexingMap, AnalysisError> {
        crate::ops::physical_to_logical(self)
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
        let annotated = !self.tiles.is_empty() || !self.annotations.is_empty();
        if self.layout.is_some() || annotated {
            f.write_str("{")?;
            for (i, d) in self.layout.iter().flatten().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{d}")?;
            }
            if annotated {
                f.write_str(":")?;
                // XLA prints dimension level types before the tiles.
                let (levels, rest): (Vec<_>, Vec<_>) = self
                    .annotations
                    .iter()
                    .partition(|a| matches!(a, LayoutAnnotation::Other(t) if t.starts_with("D(")));
                for a in levels {
                    write!(f, "{a}")?;
                }
                if !self.tiles.is_empty() {
                    f.write_str("T")?;
                    for t in &self.tiles {
                        write!(f, "{t}")?;
                    }
                }
                for a in rest {
                    write!(f, "{a}")?;
                }
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
