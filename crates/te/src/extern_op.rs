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
use crate::operation::{check_shape, new_multi_output_op, OpKind, Operation, Tensor};
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
    /// The buffer `body` writes each output through, in order.
    pub output_buffers: Vec<Buffer>,
    /// What the operation does, over those buffers.
    pub body: Stmt,
    /// Whether the operation is a hybrid script's (TVM's `HybridOp`):
    /// the same rules, another name.
    pub hybrid: bool,
    /// A hybrid operation's loops, outermost first (TVM's `HybridOp.axis`):
    /// a schedule splits, fuses, reorders and annotates them. Empty for
    /// `te.extern`.
    pub axis: Vec<crate::iter_var::IterVar>,
}

impl ExternOp {
    /// The name of the first function the body calls that a run cannot
    /// call, if any: such a body cannot be run. The interpreter's built-in
    /// packed functions ([`tir::packed::builtin`], such as
    /// `tvm.contrib.cblas.matmul`) can be.
    pub fn opaque_call(&self) -> Option<String> {
        let mut found = None;
        self.body.visit(&mut |s| {
            if let (None, Stmt::Opaque { call, .. }) = (&found, s) {
                let built_in = call.convention == tir::CallConvention::Packed
                    && tir::packed::BUILTINS.contains(&call.func.as_str());
                if !built_in {
                    found = Some(call.func.clone());
                }
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
    let dtype = match (dtype, inputs.first()) {
        (Some(d), _) => d,
        (None, Some(t)) => t.dtype(),
        (None, None) => DataType::Float32,
    };
    extern_op_outputs(
        &[(shape, dtype)],
        inputs,
        fcompute,
        name,
        in_buffers,
        out_buffer.map(|b| vec![b]),
        "",
        crate::Attrs::new(),
    )
}

/// `te.extern` with one output per `(shape, dtype)` of `outputs`: as
/// [`extern_op`], `fcompute` receiving one output buffer per output
/// (`out_buffers`, or one named `name` for a single output and
/// `name.v0`, `name.v1`, ... for several), the operation carrying `tag`
/// and `attrs` (`te.extern(..., tag=, attrs=)`).
#[allow(clippy::too_many_arguments)]
pub fn extern_op_outputs<E: From<TeError>>(
    outputs: &[(Vec<Expr>, DataType)],
    inputs: &[Tensor],
    fcompute: impl FnOnce(&[Buffer], &[Buffer]) -> std::result::Result<Stmt, E>,
    name: &str,
    in_buffers: Option<Vec<Buffer>>,
    out_buffers: Option<Vec<Buffer>>,
    tag: &str,
    attrs: crate::Attrs,
) -> std::result::Result<Tensor, E> {
    let fail = |what: String| TeError::definition(format!("te.extern `{name}`: {what}"));
    if outputs.is_empty() {
        return Err(fail("no outputs: give at least one shape".into()).into());
    }
    for (shape, _) in outputs {
        check_shape(shape, name)?;
    }
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
    let out_buffers = match out_buffers {
        Some(list) => {
            if list.len() != outputs.len() {
                return Err(fail(format!(
                    "{} output buffers for {} outputs: give one buffer per output",
                    list.len(),
                    outputs.len()
                ))
                .into());
            }
            for (b, (shape, dtype)) in list.iter().zip(outputs) {
                if b.dtype() != *dtype || !same_shape(b.shape(), shape) {
                    return Err(fail(format!(
                        "output buffer `{}` ({} of shape {}) does not match the output ({dtype} \
                         of shape {})",
                        b.name(),
                        b.dtype(),
                        shape_text(b.shape()),
                        shape_text(shape)
                    ))
                    .into());
                }
            }
            list
        }
        None if outputs.len() == 1 => {
            vec![Buffer::new(name, outputs[0].1, outputs[0].0.clone())]
        }
        None => outputs
            .iter()
            .enumerate()
            .map(|(k, (shape, dtype))| Buffer::new(format!("{name}.v{k}"), *dtype, shape.clone()))
            .collect(),
    };
    let body = fcompute(&in_buffers, &out_buffers)?;
    let op = ExternOp {
        inputs: inputs.to_vec(),
        input_buffers: in_buffers,
        output_buffers: out_buffers,
        body,
        hybrid: false,
        axis: Vec::new(),
    };
    Ok(
        new_multi_output_op(name, outputs.to_vec(), OpKind::Extern(op))
            .with_tag_attrs(tag, attrs)
            .output(),
    )
}

/// A hybrid script's operation (TVM's `HybridOp`): `body` reads each of
/// `inputs` whole through its buffer of `input_buffers` and writes each
/// output whole through its buffer of `output_buffers`; output `k` is
/// shaped and typed as its buffer, and named as TVM names the outputs
/// of an operation (`name`, or `name.v0`, `name.v1`, ...).
pub fn hybrid_op(
    name: &str,
    inputs: Vec<Tensor>,
    input_buffers: Vec<Buffer>,
    output_buffers: Vec<Buffer>,
    body: Stmt,
) -> Result<Operation> {
    if output_buffers.is_empty() {
        return Err(TeError::definition(format!(
            "hybrid function `{name}` returns no tensor: return the tensors of its \
             `output_tensor` calls"
        )));
    }
    for b in &output_buffers {
        check_shape(b.shape(), b.name())?;
    }
    let outputs = output_buffers
        .iter()
        .map(|b| (b.shape().to_vec(), b.dtype()))
        .collect();
    let axis = loops_of(&body);
    let op = ExternOp {
        inputs,
        input_buffers,
        output_buffers,
        body,
        hybrid: true,
        axis,
    };
    Ok(new_multi_output_op(name, outputs, OpKind::Extern(op)))
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
/// the tensors in the lowered program. Stores into them count as stores
/// of stage `stage`.
pub(crate) fn bind_buffers(e: &ExternOp, buffers: &HashMap<BufferId, Buffer>, stage: &str) -> Stmt {
    struct Rebind<'a>(&'a HashMap<BufferId, Buffer>, &'a str);
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
                    if let (Stmt::BufferStore { buffer, .. }, Stmt::BufferStore { stage, .. }) =
                        (s, &mut out)
                    {
                        if self.0.contains_key(&buffer.id()) {
                            *stage = self.1.to_string();
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
    match Rebind(buffers, stage).stmt(&e.body) {
        Ok(s) => s,
        Err(never) => match never {},
    }
}

/// The loops of `body`, outermost first (in the order they open), as
/// data-parallel axes over their ranges.
fn loops_of(body: &Stmt) -> Vec<crate::iter_var::IterVar> {
    use crate::iter_var::{IterKind, IterVar};
    let mut axis = Vec::new();
    body.visit(&mut |s| {
        if let Stmt::For {
            var, min, extent, ..
        } = s
        {
            let dom = arith::Range::new(min.clone(), extent.clone());
            axis.push(IterVar::with_var(var.clone(), Some(dom), IterKind::DataPar));
        }
    });
    axis
}

/// An element value over tensors as a value of a statement over buffers:
/// each tensor read becomes a load of the buffer `buffer_of` gives it, as
/// lowering turns a compute's body into its stores. A hybrid script's body
/// is built with it. Reductions have no such form and are refused.
pub fn element_to_buffers(
    v: &crate::value::Value,
    buffer_of: &dyn Fn(&Tensor) -> Option<Buffer>,
) -> Result<tir::Value> {
    use crate::value::ValueKind;
    use tir::Value as T;
    let buffer = |t: &Tensor| {
        buffer_of(t).ok_or_else(|| {
            TeError::definition(format!("`{}` has no buffer in this statement", t.name()))
        })
    };
    // An integer literal next to a float is a float literal, as TVM
    // converts Python constants (`A[i] + 2` is `+ 2f`).
    let operand = |x: &crate::value::Value, dtype: DataType| -> Result<T> {
        match x.kind() {
            ValueKind::Index(e) if dtype.is_float() => match e.as_int() {
                Some(c) => Ok(T::constant(c as f64, dtype)),
                None => element_to_buffers(x, buffer_of),
            },
            ValueKind::Float(f) => Ok(T::constant(*f, dtype)),
            _ => element_to_buffers(x, buffer_of),
        }
    };
    let go = |x: &crate::value::Value| element_to_buffers(x, buffer_of);
    tir::stack::grow(|| {
        Ok(match v.kind() {
            ValueKind::Float(x) => T::f32(*x),
            ValueKind::Param(var, t) => T::Var(var.clone(), *t),
            ValueKind::Index(e) => T::index(e.clone()),
            ValueKind::Load(t, indices) => T::load(&buffer(t)?, indices.iter().cloned()),
            ValueKind::Neg(a) => -go(a)?,
            ValueKind::Binary(op, a, b) => {
                let dtype = v.dtype();
                T::binary(
                    crate::lower::binop(*op, dtype.is_int()),
                    operand(a, dtype)?,
                    operand(b, dtype)?,
                )
            }
            ValueKind::Select(c, a, b) => T::if_then_else(T::index(c.clone()), go(a)?, go(b)?),
            ValueKind::Reduce(_) | ValueKind::CommReduce(_) => {
                return Err(TeError::definition(
                    "a reduction (`te.sum`, ...) belongs in `te.compute`, not in a statement",
                ))
            }
            ValueKind::Call(f, args) => T::call(*f, args.iter().map(go).collect::<Result<_>>()?),
            ValueKind::Cmp(op, a, b) => {
                let dtype = a.dtype().promote(b.dtype());
                T::cmp(*op, operand(a, dtype)?, operand(b, dtype)?)
            }
            ValueKind::And(a, b) => T::and(go(a)?, go(b)?),
            ValueKind::Or(a, b) => T::or(go(a)?, go(b)?),
            ValueKind::Not(a) => !go(a)?,
            ValueKind::Cast(t, a) => T::cast(*t, go(a)?),
            ValueKind::SelectValue(c, a, b) => T::if_then_else(go(c)?, go(a)?, go(b)?),
            ValueKind::Gather(t, indices) => {
                let buf = buffer(t)?;
                let mut bound = Vec::new();
                let mut logical = Vec::with_capacity(indices.len());
                for x in indices {
                    match x.kind() {
                        ValueKind::Index(e) => logical.push(e.clone()),
                        _ => {
                            let var =
                                arith::Var::new(format!("{}_index{}", t.name(), logical.len()));
                            logical.push(var.expr());
                            bound.push((var, go(x)?));
                        }
                    }
                }
                let load = T::load(&buf, logical);
                bound
                    .into_iter()
                    .rev()
                    .fold(load, |body, (var, x)| T::let_in(&var, x, body))
            }
        })
    })
}
