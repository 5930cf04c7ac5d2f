//! Extern operations (`te.extern`): a tensor written by a statement the
//! schedule does not look into, typically a call of a library function
//! (`tvm.tir.call_packed`). As in TVM, such an operation reads each input
//! whole and writes its whole output, and its stage has no loops; lowering
//! passes the tensors' buffers where the statement names the buffers it
//! was built from. A call cannot be run: a check of a program with one
//! reports the stage as not evaluable instead of comparing values. A body
//! of loops and stores over the buffers (what `tvm.tir.ir_builder` builds)
//! runs: in the lowered program, and in the reference on the evaluated
//! inputs.

use crate::error::{Result, TeError};
use crate::operation::{check_shape, new_op, OpKind, Operation, Tensor};
use crate::simp::simp;
use arith::{Analyzer, Expr};
use std::collections::HashMap;
use tir::mutate::Mutator;
use tir::{Buffer, BufferId, DataType, Stmt};

/// An extern operation (TVM's `ExternOp`).
#[derive(Clone, Debug)]
pub struct ExternOp {
    /// The tensors the body reads, whole.
    pub inputs: Vec<Tensor>,
    /// The buffer each input is passed as in `body`.
    pub input_buffers: Vec<Buffer>,
    /// The buffer `body` writes the output through.
    pub output_buffer: Buffer,
    /// What the operation does, over those buffers.
    pub body: Stmt,
}

impl ExternOp {
    /// The name of the first function the body calls without the program
    /// being able to look into it, if any: such a body cannot be run.
    pub fn opaque_call(&self) -> Option<String> {
        let mut found = None;
        self.body.visit(&mut |s| {
            if let (None, Stmt::Opaque { call, .. }) = (&found, s) {
                found = Some(call.func.clone());
            }
        });
        found
    }
}

/// `tvm.tir.decl_buffer(shape, dtype, name)`: a buffer to pass to
/// [`extern_op`] (`in_buffers=`, `out_buffers=`).
pub fn decl_buffer(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    dtype: DataType,
    name: &str,
) -> Result<Buffer> {
    let shape: Vec<Expr> = shape.into_iter().map(Into::into).collect();
    check_shape(&shape, name)?;
    Ok(Buffer::new(name, dtype, shape))
}

/// `te.extern(shape, inputs, fcompute, name, dtype, in_buffers,
/// out_buffers)` with one output: `fcompute` receives the input buffers
/// (`in_buffers`, or one declared per input, named as the input) and the
/// output buffer (`out_buffer`, or one named `name`) and returns the
/// statement that computes the output from them, such as an opaque call
/// ([`tir::OpaqueCall`]) of them. `dtype` defaults to the first input's.
///
/// ```
/// use tir::{CallArg, DataType, OpaqueCall, Stmt};
/// let a = te::placeholder([4, 3], "A", DataType::Float32).unwrap();
/// let c = te::extern_op([4, 3], &[a.clone()], |ins, outs| {
///     let args = vec![CallArg::Buffer(ins[0].clone()), CallArg::Buffer(outs[0].clone())];
///     Ok::<_, te::TeError>(Stmt::opaque(OpaqueCall::packed("my.copy", args), true))
/// }, "C", None, None, None).unwrap();
/// let s = te::create_schedule(&[c.clone()]);
/// assert!(te::lower(&s, &[a, c]).unwrap().to_string().contains("tvm_call_packed(\"my.copy\""));
/// ```
pub fn extern_op<E: From<TeError>>(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    inputs: &[Tensor],
    fcompute: impl FnOnce(&[Buffer], &[Buffer]) -> std::result::Result<Stmt, E>,
    name: &str,
    dtype: Option<DataType>,
    in_buffers: Option<Vec<Buffer>>,
    out_buffer: Option<Buffer>,
) -> std::result::Result<Tensor, E> {
    let shape: Vec<Expr> = shape.into_iter().map(Into::into).collect();
    check_shape(&shape, name)?;
    let fail = |what: String| TeError::definition(format!("te.extern `{name}`: {what}"));
    let dtype = match (dtype, inputs.first()) {
        (Some(d), _) => d,
        (None, Some(t)) => t.dtype(),
        (None, None) => DataType::Float32,
    };
    let in_buffers = match in_buffers {
        Some(b) => b,
        None => inputs
            .iter()
            .map(|t| Buffer::new(t.name(), t.dtype(), t.shape().to_vec()))
            .collect(),
    };
    if in_buffers.len() != inputs.len() {
        return Err(fail(format!(
            "{} input buffers for {} inputs: give one buffer per input",
            in_buffers.len(),
            inputs.len()
        ))
        .into());
    }
    let an = Analyzer::new();
    let same_shape = |a: &[Expr], b: &[Expr]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| simp(&an, Expr::sub(x.clone(), y.clone())).is_int(0))
    };
    for (t, b) in inputs.iter().zip(&in_buffers) {
        if b.dtype() != t.dtype() || !same_shape(b.shape(), t.shape()) {
            return Err(fail(format!(
                "buffer `{}` ({} of shape {}) does not match input `{}` ({} of shape {})",
                b.name(),
                b.dtype(),
                shape_text(b.shape()),
                t.name(),
                t.dtype(),
                shape_text(t.shape())
            ))
            .into());
        }
    }
    let out_buffer = match out_buffer {
        Some(b) => {
            if b.dtype() != dtype || !same_shape(b.shape(), &shape) {
                return Err(fail(format!(
                    "output buffer `{}` ({} of shape {}) does not match the output ({dtype} of \
                     shape {})",
                    b.name(),
                    b.dtype(),
                    shape_text(b.shape()),
                    shape_text(&shape)
                ))
                .into());
            }
            b
        }
        None => Buffer::new(name, dtype, shape.clone()),
    };
    let body = fcompute(&in_buffers, std::slice::from_ref(&out_buffer))?;
    let op = ExternOp {
        inputs: inputs.to_vec(),
        input_buffers: in_buffers,
        output_buffer: out_buffer,
        body,
    };
    Ok(new_op(name, shape, dtype, OpKind::Extern(op)).output())
}

fn shape_text(shape: &[Expr]) -> String {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({})", dims.join(", "))
}

/// The extern operation of `op`, when it is one.
pub fn extern_of(op: &Operation) -> Option<&ExternOp> {
    match op.kind() {
        OpKind::Extern(e) => Some(e),
        _ => None,
    }
}

/// The body of `e` with each declared buffer replaced by the buffer
/// `buffers` gives it (by the declared buffer's identity): the storage of
/// the tensors in the lowered program.
pub(crate) fn bind_buffers(e: &ExternOp, buffers: &HashMap<BufferId, Buffer>) -> Stmt {
    struct Rebind<'a>(&'a HashMap<BufferId, Buffer>);
    impl Mutator for Rebind<'_> {
        type Error = std::convert::Infallible;
        fn stmt(&mut self, s: &Stmt) -> std::result::Result<Stmt, Self::Error> {
            match s {
                Stmt::Opaque { call, extern_scope } => Ok(Stmt::opaque(
                    call.map_buffers(&|b| self.0.get(&b.id()).cloned()),
                    *extern_scope,
                )),
                _ => {
                    let mut out = tir::mutate::walk_stmt(self, s)?;
                    // Stores count under their tensor's stage.
                    if let (
                        Stmt::BufferStore { buffer, .. },
                        Stmt::BufferStore {
                            stage, buffer: b, ..
                        },
                    ) = (s, &mut out)
                    {
                        if self.0.contains_key(&buffer.id()) {
                            *stage = b.name().to_string();
                        }
                    }
                    Ok(out)
                }
            }
        }
        fn access(
            &mut self,
            buffer: &Buffer,
            indices: Vec<Expr>,
        ) -> std::result::Result<(Buffer, Vec<Expr>), Self::Error> {
            let b = self.0.get(&buffer.id()).unwrap_or(buffer);
            Ok((b.clone(), indices))
        }
    }
    match Rebind(buffers).stmt(&e.body) {
        Ok(s) => s,
        Err(never) => match never {},
    }
}
