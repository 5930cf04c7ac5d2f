//! The API's functions (`te.compute`, `tvm.lower`, ...) and classes
//! (`te.Tensor`, `tvm.error.TVMError`, ...), one value per function
//! whatever spelling a program used.

use crate::error::ErrorClass;

/// A function of TVM's Python API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    // Tensors and expressions.
    /// `te.placeholder`.
    Placeholder,
    /// `te.compute`.
    Compute,
    /// `te.var` / `tvm.tir.Var`-like constructor.
    Var,
    /// `te.size_var`.
    SizeVar,
    /// `te.reduce_axis`.
    ReduceAxis,
    /// `te.thread_axis`.
    ThreadAxis,
    /// `te.sum`.
    Sum,
    /// `te.max`: a reduction with `axis=`, else the larger of two values.
    MaxReducer,
    /// `te.min`: a reduction with `axis=`, else the smaller of two values.
    MinReducer,
    /// `tvm.tir.const`.
    Const,
    /// `tvm.runtime.convert`.
    Convert,
    /// `tvm.tir.floordiv` (and `indexdiv`).
    FloorDiv,
    /// `tvm.tir.floormod` (and `indexmod`).
    FloorMod,
    /// `tvm.tir.truncdiv`.
    TruncDiv,
    /// `tvm.tir.truncmod`.
    TruncMod,
    /// `tvm.tir.if_then_else`.
    IfThenElse,
    /// `tvm.tir.all`.
    All,
    /// `tvm.tir.any`.
    Any,
    /// A math function of `tvm.tir` / `te` (`te.exp`, `tvm.tir.sigmoid`).
    Intrinsic(tir::Intrinsic),
    // Schedules.
    /// `te.create_schedule`.
    CreateSchedule,
    /// `tvm.te.schedule.InferBound`.
    InferBound,
    /// `tvm.lower`.
    Lower,
    // Testing helpers of TVM's own tests.
    /// `tvm.testing.assert_prim_expr_equal`.
    AssertPrimExprEqual,
    /// `tvm.tir.stmt_functor.substitute`.
    Substitute,
}

impl Function {
    /// The name a program would use, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Function::Placeholder => "te.placeholder",
            Function::Compute => "te.compute",
            Function::Var => "te.var",
            Function::SizeVar => "te.size_var",
            Function::ReduceAxis => "te.reduce_axis",
            Function::ThreadAxis => "te.thread_axis",
            Function::Sum => "te.sum",
            Function::MaxReducer => "te.max",
            Function::MinReducer => "te.min",
            Function::Const => "tvm.tir.const",
            Function::Convert => "tvm.runtime.convert",
            Function::FloorDiv => "tvm.tir.floordiv",
            Function::FloorMod => "tvm.tir.floormod",
            Function::TruncDiv => "tvm.tir.truncdiv",
            Function::TruncMod => "tvm.tir.truncmod",
            Function::IfThenElse => "tvm.tir.if_then_else",
            Function::All => "tvm.tir.all",
            Function::Any => "tvm.tir.any",
            Function::Intrinsic(f) => f.name(),
            Function::CreateSchedule => "te.create_schedule",
            Function::InferBound => "tvm.te.schedule.InferBound",
            Function::Lower => "tvm.lower",
            Function::AssertPrimExprEqual => "tvm.testing.assert_prim_expr_equal",
            Function::Substitute => "tvm.tir.stmt_functor.substitute",
        }
    }
}

/// A class of TVM's Python API, for `isinstance` and `except`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `tvm.container.Map` (what `InferBound` returns).
    Map,
    /// `tvm.tir.Var`.
    Var,
    /// `tvm.tir.IterVar`.
    IterVar,
    /// `te.Tensor`.
    Tensor,
    /// `tvm.te.schedule.Split`.
    Split,
    /// `tvm.te.schedule.Fuse`.
    Fuse,
    /// An exception class (`tvm.error.TVMError`; front ends also use it for
    /// Python's `Exception`, `RuntimeError` and `AssertionError`).
    Error(ErrorClass),
}

impl Class {
    /// The name a program would use, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Class::Map => "tvm.container.Map",
            Class::Var => "tvm.tir.Var",
            Class::IterVar => "tvm.tir.IterVar",
            Class::Tensor => "te.Tensor",
            Class::Split => "tvm.te.schedule.Split",
            Class::Fuse => "tvm.te.schedule.Fuse",
            Class::Error(e) => e.name(),
        }
    }
}
