//! TOPI's moves between space and batch (`tvm.topi.nn`), built as TOPI
//! v0.19's C++ builds them, from its own stages:
//!
//! - `space_to_batch_nd(data, block_shape, pad_before, pad_after,
//!   pad_value=0.0)`: `T_pad` (the spatial axes after the batch padded),
//!   `T_reshape` (each padded axis split into `(size / block, block)`),
//!   `T_transpose` (the block axes first, then the batch, then the
//!   quotients and the remaining axes), `T_reshape` (the blocks merged
//!   into the batch);
//! - `batch_to_space_nd(data, block_shape, crop_begin_list,
//!   crop_end_list)`: the inverse, `T_reshape`, `T_transpose`,
//!   `T_reshape`, then `T_strided_slice` cropping each spatial axis.
//!
//! Both need a constant batch and constant block sizes, as TOPI's
//! `GetConstInt` does; `space_to_batch_nd` also needs each padded spatial
//! size to be a constant multiple of its block.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult};
use crate::object::Object;
use crate::objects::constant_value;
use crate::topi_ops::tensor_arg as tensor;
use crate::topi_transform::TransformOp;
use crate::value::Value;
use crate::Host;
use arith::Expr;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpaceBatchOp {
    /// `tvm.topi.nn.space_to_batch_nd`.
    SpaceToBatchNd,
    /// `tvm.topi.nn.batch_to_space_nd`.
    BatchToSpaceNd,
}

impl SpaceBatchOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<SpaceBatchOp> {
        let op = match name {
            "space_to_batch_nd" => SpaceBatchOp::SpaceToBatchNd,
            "batch_to_space_nd" => SpaceBatchOp::BatchToSpaceNd,
            _ => return None,
        };
        let home = format!("tvm.topi.nn.{name}");
        (module_path == "tvm.topi.nn" || module_path == home).then_some(op)
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            SpaceBatchOp::SpaceToBatchNd => "tvm.topi.nn.space_to_batch_nd",
            SpaceBatchOp::BatchToSpaceNd => "tvm.topi.nn.batch_to_space_nd",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: SpaceBatchOp) -> ApiResult<Value> {
    match op {
        SpaceBatchOp::SpaceToBatchNd => {
            let a = args.bind(
                "space_to_batch_nd",
                &[
                    "data",
                    "block_shape",
                    "pad_before",
                    "pad_after",
                    "pad_value",
                ],
            )?;
            let x = tensor(a.required("data")?, "space_to_batch_nd")?;
            let blocks = ints(a.required("block_shape")?, "block_shape")?;
            let before = ints(a.required("pad_before")?, "pad_before")?;
            let after = ints(a.required("pad_after")?, "pad_after")?;
            let fill = a
                .get("pad_value")
                .map_or(Value::Int(0), |g| g.value.clone());
            space_to_batch_nd(host, &x, &blocks, &before, &after, &fill)
        }
        SpaceBatchOp::BatchToSpaceNd => {
            let a = args.bind(
                "batch_to_space_nd",
                &["data", "block_shape", "crop_begin_list", "crop_end_list"],
            )?;
            let x = tensor(a.required("data")?, "batch_to_space_nd")?;
            let blocks = ints(a.required("block_shape")?, "block_shape")?;
            let begin = ints(a.required("crop_begin_list")?, "crop_begin_list")?;
            let end = ints(a.required("crop_end_list")?, "crop_end_list")?;
            batch_to_space_nd(host, &x, &blocks, &begin, &end)
        }
    }
}

/// A list of constant integers (TOPI reads each with `GetConstInt`).
fn ints(g: &Given, what: &str) -> ApiResult<Vec<i64>> {
    let items = g.value.sequence().ok_or_else(|| {
        type_error(
            g.place(),
            format!(
                "`{what}` is a list of integers, found a {}",
                g.value.type_name()
            ),
        )
    })?;
    items
        .iter()
        .map(|v| {
            crate::operators::as_int(v)
                .or_else(|| crate::operators::as_index(v).and_then(|e| constant_value(&e)))
                .ok_or_else(|| {
                    type_error(
                        g.place(),
                        format!(
                            "`{what}` must hold constant integers, found {}",
                            crate::repr(v)
                        ),
                    )
                })
        })
        .collect()
}

/// The constant size of dimension `i` of `x`, which TOPI requires.
fn constant_dim(x: &te::Tensor, i: usize, op: SpaceBatchOp) -> ApiResult<i64> {
    constant_value(&x.shape()[i]).ok_or_else(|| {
        ApiError::not_supported(format!(
            "`{}` needs dimension {i} of `{}` to be a constant, found {}: give a constant shape",
            op.tvm_name(),
            x.name(),
            x.shape()[i]
        ))
    })
}

fn checked(r: Option<i64>, op: SpaceBatchOp) -> ApiResult<i64> {
    r.ok_or_else(|| ApiError::value_error(format!("`{}`: a size overflows 64 bits", op.tvm_name())))
}

fn tensor_value(t: &te::Tensor) -> Value {
    Value::Object(Object::Tensor(t.clone()))
}

fn int_tuple(xs: &[i64]) -> Value {
    Value::tuple(xs.iter().map(|&x| Value::Int(x)).collect())
}

fn transform(host: &mut dyn Host, op: TransformOp, args: Vec<Value>) -> ApiResult<te::Tensor> {
    crate::topi_transform::call(host, Args::positional(args), op).and_then(into_tensor)
}

fn reshape(x: &te::Tensor, shape: &[i64]) -> ApiResult<te::Tensor> {
    crate::topi_ops::reshape(Args::positional(vec![tensor_value(x), int_tuple(shape)]))
        .and_then(into_tensor)
}

fn into_tensor(v: Value) -> ApiResult<te::Tensor> {
    match v {
        Value::Object(Object::Tensor(t)) => Ok(t),
        _ => Err(ApiError::tvm("a TOPI stage is not a tensor")),
    }
}

/// The shape of `x`, every dimension a constant.
fn constant_shape(x: &te::Tensor, op: SpaceBatchOp) -> ApiResult<Vec<i64>> {
    (0..x.ndim()).map(|i| constant_dim(x, i, op)).collect()
}

/// Checks that `x` has a batch axis and one axis per block after it.
fn check_blocks(x: &te::Tensor, blocks: &[i64], op: SpaceBatchOp) -> ApiResult<()> {
    if blocks.is_empty() || x.ndim() < blocks.len() + 1 {
        return Err(ApiError::value_error(format!(
            "`{}`: {} block sizes need a tensor of at least {} dimensions (a batch, then one \
             spatial axis per block), found {}",
            op.tvm_name(),
            blocks.len(),
            blocks.len() + 1,
            x.ndim()
        )));
    }
    if let Some(b) = blocks.iter().find(|&&b| b < 1) {
        return Err(ApiError::value_error(format!(
            "`{}`: a block size must be at least 1, found {b}",
            op.tvm_name()
        )));
    }
    Ok(())
}

/// TOPI's `space_to_batch_nd`: pad, split each spatial axis into blocks,
/// move the blocks before the batch and merge them into it.
fn space_to_batch_nd(
    host: &mut dyn Host,
    x: &te::Tensor,
    blocks: &[i64],
    before: &[i64],
    after: &[i64],
    fill: &Value,
) -> ApiResult<Value> {
    let op = SpaceBatchOp::SpaceToBatchNd;
    check_blocks(x, blocks, op)?;
    if before.len() != blocks.len() || after.len() != blocks.len() {
        return Err(ApiError::value_error(format!(
            "`space_to_batch_nd`: paddings must be given for each of the {} spatial dimensions, \
             found {} before and {} after",
            blocks.len(),
            before.len(),
            after.len()
        )));
    }
    if before.iter().chain(after).any(|&p| p < 0) {
        return Err(ApiError::value_error(
            "`space_to_batch_nd`: a padding cannot be negative",
        ));
    }
    let m = blocks.len();
    let n = x.ndim();
    let mut pad_before = vec![Expr::int(0); n];
    let mut pad_after = vec![Expr::int(0); n];
    for i in 0..m {
        pad_before[i + 1] = Expr::int(before[i]);
        pad_after[i + 1] = Expr::int(after[i]);
    }
    let padded = crate::topi_ops::pad(x, &pad_before, &pad_after, fill, "T_pad")?;
    let input = constant_shape(x, op)?;
    let padded_shape = constant_shape(&padded, op)?;
    let batch = input[0];
    let mut r_shape = vec![batch];
    let mut axes = Vec::with_capacity(2 * m + 1 + n);
    let mut block_prod = 1i64;
    for i in 1..=m {
        let (size, block) = (padded_shape[i], blocks[i - 1]);
        if size % block != 0 {
            return Err(ApiError::value_error(format!(
                "({i})th input dimension after padding ({size}) must be divisible by its block \
                 size ({block})"
            )));
        }
        r_shape.push(size / block);
        r_shape.push(block);
        block_prod = checked(block_prod.checked_mul(block), op)?;
        axes.push(r_shape.len() as i64 - 1);
    }
    axes.push(0);
    for i in 0..m {
        axes.push(axes[i] - 1);
    }
    let mut o_shape = vec![checked(batch.checked_mul(block_prod), op)?];
    o_shape.extend((1..=m).map(|i| padded_shape[i] / blocks[i - 1]));
    for &d in &input[m + 1..] {
        r_shape.push(d);
        axes.push(r_shape.len() as i64 - 1);
        o_shape.push(d);
    }
    let split = reshape(&padded, &r_shape)?;
    let moved = transform(
        host,
        TransformOp::Transpose,
        vec![tensor_value(&split), int_tuple(&axes)],
    )?;
    reshape(&moved, &o_shape).map(|t| tensor_value(&t))
}

/// TOPI's `batch_to_space_nd`: split the batch into blocks, move each
/// block after its spatial axis and merge them, then crop.
fn batch_to_space_nd(
    host: &mut dyn Host,
    x: &te::Tensor,
    blocks: &[i64],
    crop_begin: &[i64],
    crop_end: &[i64],
) -> ApiResult<Value> {
    let op = SpaceBatchOp::BatchToSpaceNd;
    check_blocks(x, blocks, op)?;
    if crop_begin.len() != blocks.len() || crop_end.len() != blocks.len() {
        return Err(ApiError::value_error(format!(
            "`batch_to_space_nd`: crops must be given for each of the {} spatial dimensions, \
             found {} at the start and {} at the end",
            blocks.len(),
            crop_begin.len(),
            crop_end.len()
        )));
    }
    let m = blocks.len();
    let input = constant_shape(x, op)?;
    let n = input.len();
    let batch = input[0];
    let mut block_prod = 1i64;
    for &b in blocks {
        block_prod = checked(block_prod.checked_mul(b), op)?;
    }
    if batch % block_prod != 0 {
        return Err(ApiError::value_error(format!(
            "`batch_to_space_nd`: the batch ({batch}) must be divisible by the product of the \
             block sizes ({block_prod})"
        )));
    }
    let mut r_shape: Vec<i64> = blocks.to_vec();
    let mut axes = vec![r_shape.len() as i64];
    r_shape.push(batch / block_prod);
    for &d in &input[1..] {
        axes.push(r_shape.len() as i64);
        if axes.len() < m + n {
            axes.push(r_shape.len() as i64 - (m as i64 + 1));
        }
        r_shape.push(d);
    }
    let mut merged = vec![batch / block_prod];
    for i in 1..=m {
        merged.push(checked(input[i].checked_mul(blocks[i - 1]), op)?);
    }
    merged.extend_from_slice(&input[m + 1..]);
    let mut begin = vec![0i64; merged.len()];
    let mut end = merged.clone();
    for i in 1..=m {
        let (b, e, size) = (crop_begin[i - 1], crop_end[i - 1], merged[i]);
        if b < 0 || e < 0 || size <= b + e {
            return Err(ApiError::value_error(format!(
                "incorrect crop sizes for the ({i})th dimension: can not crop {b} and {e} off \
                 an output of size {size}"
            )));
        }
        begin[i] = b;
        end[i] = size - e;
    }
    let split = reshape(x, &r_shape)?;
    let moved = transform(
        host,
        TransformOp::Transpose,
        vec![tensor_value(&split), int_tuple(&axes)],
    )?;
    let joined = reshape(&moved, &merged)?;
    let strides = vec![1i64; merged.len()];
    transform(
        host,
        TransformOp::StridedSlice,
        vec![
            tensor_value(&joined),
            int_tuple(&begin),
            int_tuple(&end),
            int_tuple(&strides),
        ],
    )
    .map(|t| tensor_value(&t))
}
