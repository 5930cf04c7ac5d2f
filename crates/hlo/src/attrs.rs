//! Typed instruction attributes (`dimensions=`, `slice=`, `padding=`,
//! `window=`, `dim_labels=`, ...).
//!
//! The parser turns the attributes that indexing needs into these types and
//! keeps every other attribute (metadata, backend configs, shardings) as raw
//! text.

use std::ops::Range;

/// One dimension of a `slice={[start:limit:stride], ...}` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceDim {
    /// First index taken.
    pub start: i64,
    /// One past the last index that may be taken.
    pub limit: i64,
    /// Step between taken indices (1 when not written).
    pub stride: i64,
}

/// One dimension of a `padding=low_high_interior x ...` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PadDim {
    /// Elements added before the first (negative: removed).
    pub low: i64,
    /// Elements added after the last (negative: removed).
    pub high: i64,
    /// Elements added between two neighbours.
    pub interior: i64,
}

/// One dimension of a `window={size=... stride=... pad=... ...}` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowDim {
    /// Window size.
    pub size: i64,
    /// Step between two windows.
    pub stride: i64,
    /// Padding before the (dilated) base.
    pub pad_low: i64,
    /// Padding after the (dilated) base.
    pub pad_high: i64,
    /// Dilation of the window (`rhs_dilate`).
    pub window_dilation: i64,
    /// Dilation of the base (`lhs_dilate`).
    pub base_dilation: i64,
    /// Whether the window is reversed (`rhs_reversal`).
    pub reversal: bool,
}

impl Default for WindowDim {
    fn default() -> WindowDim {
        WindowDim {
            size: 1,
            stride: 1,
            pad_low: 0,
            pad_high: 0,
            window_dilation: 1,
            base_dilation: 1,
            reversal: false,
        }
    }
}

/// The dimension numbers of a convolution, from `dim_labels=b01f_01io->b01f`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvDimLabels {
    /// Batch dimension of the input (lhs).
    pub input_batch: usize,
    /// Feature dimension of the input.
    pub input_feature: usize,
    /// Spatial dimensions of the input, in spatial order 0, 1, ...
    pub input_spatial: Vec<usize>,
    /// Input-feature dimension of the kernel (rhs).
    pub kernel_input_feature: usize,
    /// Output-feature dimension of the kernel.
    pub kernel_output_feature: usize,
    /// Spatial dimensions of the kernel.
    pub kernel_spatial: Vec<usize>,
    /// Batch dimension of the output.
    pub output_batch: usize,
    /// Feature dimension of the output.
    pub output_feature: usize,
    /// Spatial dimensions of the output.
    pub output_spatial: Vec<usize>,
}

/// The value of an attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// A single integer (`index=0`, `feature_group_count=6`).
    Int(i64),
    /// A list of integers (`dimensions={1,0}`).
    Ints(Vec<i64>),
    /// A list of integer lists (`replica_groups={{0,1},{2,3}}`).
    IntLists(Vec<Vec<i64>>),
    /// `slice={[a:b:c], ...}`.
    Slice(Vec<SliceDim>),
    /// `padding=...`.
    Padding(Vec<PadDim>),
    /// `window={...}`.
    Window(Vec<WindowDim>),
    /// `dim_labels=...`.
    DimLabels(ConvDimLabels),
    /// Names of called computations (`to_apply=`, `calls=`).
    Computations(Vec<String>),
    /// Any other attribute, as written.
    Raw(String),
}

/// One `name=value` attribute of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// Its parsed value.
    pub value: AttrValue,
    /// Byte range of the value in the source.
    pub span: Range<usize>,
}

/// The attributes of one instruction, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes(pub Vec<Attribute>);

impl Attributes {
    /// The attribute called `name`.
    pub fn get(&self, name: &str) -> Option<&AttrValue> {
        self.0.iter().find(|a| a.name == name).map(|a| &a.value)
    }

    /// An integer-list attribute (an absent list reads as `None`).
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        match self.get(name)? {
            AttrValue::Ints(v) => Some(v),
            _ => None,
        }
    }

    /// An integer attribute.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The `slice=` attribute.
    pub fn slice(&self) -> Option<&[SliceDim]> {
        match self.get("slice")? {
            AttrValue::Slice(v) => Some(v),
            _ => None,
        }
    }

    /// The `padding=` attribute.
    pub fn padding(&self) -> Option<&[PadDim]> {
        match self.get("padding")? {
            AttrValue::Padding(v) => Some(v),
            _ => None,
        }
    }

    /// The `window=` attribute.
    pub fn window(&self) -> Option<&[WindowDim]> {
        match self.get("window")? {
            AttrValue::Window(v) => Some(v),
            _ => None,
        }
    }

    /// The `dim_labels=` attribute.
    pub fn dim_labels(&self) -> Option<&ConvDimLabels> {
        match self.get("dim_labels")? {
            AttrValue::DimLabels(v) => Some(v),
            _ => None,
        }
    }

    /// The computations named by `name` (`to_apply`, `calls`).
    pub fn computations(&self, name: &str) -> Option<&[String]> {
        match self.get(name)? {
            AttrValue::Computations(v) => Some(v),
            _ => None,
        }
    }

    /// The raw text of an attribute kept as written.
    pub fn raw(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            AttrValue::Raw(v) => Some(v),
            _ => None,
        }
    }
}

/// How the parser reads the value of an attribute called `name`.
pub(crate) enum AttrKind {
    Int,
    Ints,
    IntLists,
    Slice,
    Padding,
    Window,
    DimLabels,
    Computations,
    Raw,
}

/// The kind of value expected for the attribute called `name`.
pub(crate) fn attr_kind(name: &str) -> AttrKind {
    match name {
        "index"
        | "iota_dimension"
        | "index_vector_dim"
        | "feature_group_count"
        | "batch_group_count"
        | "num_carries" => AttrKind::Int,
        "dimensions"
        | "lhs_batch_dims"
        | "rhs_batch_dims"
        | "lhs_contracting_dims"
        | "rhs_contracting_dims"
        | "offset_dims"
        | "collapsed_slice_dims"
        | "start_index_map"
        | "slice_sizes"
        | "dynamic_slice_sizes"
        | "operand_batching_dims"
        | "start_indices_batching_dims"
        | "update_window_dims"
        | "inserted_window_dims"
        | "scatter_dims_to_operand_dims"
        | "input_batching_dims"
        | "scatter_indices_batching_dims" => AttrKind::Ints,
        "replica_groups" => AttrKind::IntLists,
        "slice" => AttrKind::Slice,
        "padding" => AttrKind::Padding,
        "window" => AttrKind::Window,
        "dim_labels" => AttrKind::DimLabels,
        "to_apply"
        | "calls"
        | "condition"
        | "body"
        | "branch_computations"
        | "true_computation"
        | "false_computation" => AttrKind::Computations,
        _ => AttrKind::Raw,
    }
}
