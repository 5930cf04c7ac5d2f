//! Extern operations (`te.extern`): tensors written by a statement the
//! schedule does not look into.

use crate::operation::Tensor;

/// An extern operation (TVM's `ExternOp`).
#[derive(Clone, Debug)]
pub struct ExternOp {
    /// The tensors the body reads, whole.
    pub inputs: Vec<Tensor>,
    /// The buffer each input is passed as.
    pub input_buffers: Vec<tir::Buffer>,
    /// The buffer the output is written through.
    pub output_buffer: tir::Buffer,
    /// What the operation does, over the buffers.
    pub body: tir::Stmt,
}
