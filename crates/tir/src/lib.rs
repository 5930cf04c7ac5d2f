//! The loop IR that tensor schedules lower into, a printer in the notation
//! of TVM's `tvm.lower(..., simple_mode=True)`, the passes `tvm.lower` runs
//! before printing (simplification, storage flattening, allocation
//! hoisting), and an interpreter that runs programs, checks every access
//! against its buffer and counts how often each stage's body runs.
//!
//! - Index arithmetic is [`arith::Expr`]; what is computed and stored is a
//!   [`Value`] (constants, loads, arithmetic, conditions, casts, `select`).
//! - [`Buffer`]: name, [`DataType`], shape (sizes may be symbolic), identity.
//! - [`Stmt`]: loops, `let`, `realize` and `allocate` of buffers, `produce`
//!   markers, stores (each tagged with its stage), `if`, sequences; a
//!   [`PrimFunc`] wraps a body with its buffer parameters.
//! - [`Printer`] / `Display`: TVM's text; [`simplify`]: range-aware
//!   simplification of every index; [`flatten`]: storage flattening (N-d
//!   buffers to physical ones, `realize` to `allocate`);
//!   [`hoist_allocations`]: loop-invariant allocations to the top; [`run`] /
//!   [`Interpreter`]: execution with bounds checks, giving a [`RunResult`]
//!   or a [`RunError`]; [`apply_layout_transforms`]: layout transforms
//!   (seed 001) applied to accesses and storage, then flattening of the
//!   transformed buffers to their physical axes; [`verify_bound_vars`]:
//!   every variable used is bound by a loop or `let` around it, or is a
//!   size.
//!
//! ```
//! use arith::{Expr, Var};
//! use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
//! // B[i] = A[i] + 2 for i in [0, 4)
//! let a = Buffer::new("A", DataType::Float32, [4i64]);
//! let b = Buffer::new("B", DataType::Float32, [4i64]);
//! let i = Var::new("i");
//! let body = Stmt::for_range(&i, 0, 4,
//!     Stmt::store(&b, [i.expr()], Value::load(&a, [i.expr()]) + Value::f32(2.0)));
//! let f = PrimFunc::new("add2", vec![a.clone(), b.clone()], Stmt::produce("B", body));
//! assert_eq!(f.to_string(), "\
//! produce B {
//!   for (i, 0, 4) {
//!     B[i] = (A[i] + 2.000000f)
//!   }
//! }
//! ");
//! ```
#![warn(missing_docs)]

pub mod block;
mod block_equal;
mod block_lower;
mod block_script;
mod buffer;
mod dtype;
mod flatten;
mod hoist;
mod interp;
mod intrinsic;
mod layout;
pub mod mutate;
mod opaque;
pub mod packed;
pub mod print;
mod rename;
mod scalar_params;
mod simplify;
pub mod stack;
mod stmt;
mod tensor;
mod tvmscript;
mod value;
mod verify;

pub use buffer::{Buffer, BufferId};
pub use dtype::{DataType, UnknownDataType};
pub use flatten::{flatten, FlattenError, Flattened};
pub use hoist::hoist_allocations;
pub use interp::{
    run, AccessKind, AccessViolation, Interpreter, Interrupt, LoopState, ObservedAccess, Observer,
    Problem, RunError, RunResult, INTERRUPT_INTERVAL,
};
pub use intrinsic::Intrinsic;
pub use layout::{apply_layout_transforms, physical_buffer, LayoutTransformError};
pub use opaque::{CallArg, CallConvention, OpaqueCall};
pub use packed::{PackedArg, PackedFunctions};
pub use print::{AccessStyle, Printer};
pub use rename::rename_shadowing;
pub use simplify::simplify;
pub use stmt::{ForKind, Pragma, PragmaValue, PrimFunc, Stmt, ThreadLaunch};
pub use tensor::{ShapeMismatch, Tensor};
pub use tvmscript::{python_identifier, tvmscript};
pub use value::{call_dtype, BinOp, BufferLoad, Value};
pub use verify::{verify_bound_vars, UnboundVariable};
