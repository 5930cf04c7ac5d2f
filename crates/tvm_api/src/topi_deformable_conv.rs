//! TOPI's deformable convolution in NCHW (`tvm.topi.nn.
//! deformable_conv2d_nchw`), as TOPI v0.19 builds it in Python: the
//! input sampled bilinearly at each kernel tap moved by its learnt offset
//! (`compute`, tag `data_deform`, over `n, c, kh, kw, y, x`; 0 outside
//! the input), then the convolution of those samples with the kernel
//! (`compute`, tag `deformable_conv2d_nchw`). TOPI's CUDA schedule calls
//! it from its template.
//!
//! The sample's coordinates are made by the same sequence of operations
//! on the same API values TOPI's Python makes when it runs on this API
//! (Python arithmetic on its integer sizes, TVM's on expressions), so the
//! lowered text is TOPI's.

use crate::args::Args;
use crate::error::{ApiError, ApiResult};
use crate::functions::BuildFailure;
use crate::object::Object;
use crate::value::Value;
use crate::{BinaryOp, CmpOp, Host};
use arith::Expr;

/// A size as TOPI's `get_const_tuple` gives it: a Python integer when
/// constant, else the expression.
fn size(e: &Expr) -> Value {
    e.as_int()
        .map_or_else(|| Value::Index(e.clone()), Value::Int)
}

/// An integer or index value as an expression.
fn expr(v: &Value) -> ApiResult<Expr> {
    match crate::objects::promote(v) {
        Value::Int(i) => Ok(Expr::int(i)),
        Value::Index(e) => Ok(e),
        other => Err(ApiError::type_error(format!(
            "expected an integer size, found a {}",
            other.type_name()
        ))),
    }
}

/// `a op b` as Python evaluates it on these values.
fn op(o: BinaryOp, a: &Value, b: &Value) -> ApiResult<Value> {
    crate::topi_image::python_binary(o, a, b)
}

/// `strides` or `dilation`: an integer for both axes, or a pair.
fn pair(a: &crate::args::Bound, name: &str) -> ApiResult<[Value; 2]> {
    let g = a.required(name)?;
    match &g.value {
        Value::Int(_) | Value::Index(_) => Ok([g.value.clone(), g.value.clone()]),
        v => {
            let items = v.sequence().filter(|i| i.len() == 2).ok_or_else(|| {
                crate::error::type_error(
                    g.place(),
                    format!("`{name}` must be an integer or a pair of them"),
                )
            })?;
            Ok([items[0].clone(), items[1].clone()])
        }
    }
}

/// `nn.deformable_conv2d_nchw(data, offset, kernel, strides, padding,
/// dilation, deformable_groups, groups, out_dtype)`.
pub(crate) fn deformable_conv2d_nchw(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "deformable_conv2d_nchw",
        &[
            "data",
            "offset",
            "kernel",
            "strides",
            "padding",
            "dilation",
            "deformable_groups",
            "groups",
            "out_dtype",
        ],
    )?;
    let what = "deformable_conv2d_nchw";
    let data = crate::topi_ops::tensor_arg(a.required("data")?, what)?;
    let offset = crate::topi_ops::tensor_arg(a.required("offset")?, what)?;
    let kernel = crate::topi_ops::tensor_arg(a.required("kernel")?, what)?;
    for t in [&data, &offset, &kernel] {
        if t.ndim() != 4 {
            return Err(ApiError::value_error(format!(
                "`{what}` takes 4-D data, offset and kernel; `{}` has {} dimensions",
                t.name(),
                t.ndim()
            )));
        }
    }
    let out_dtype = match a.get("out_dtype").map(|g| (g, &g.value)) {
        None | Some((_, Value::None)) => data.dtype(),
        Some((g, _)) => crate::casts::dtype_arg(g)?,
    };
    let [stride_h, stride_w] = pair(&a, "strides")?;
    let [dilation_h, dilation_w] = pair(&a, "dilation")?;
    let ds = data.shape().to_vec();
    let ks = kernel.shape().to_vec();
    let os = offset.shape().to_vec();
    let (batch, in_channel, in_height, in_width) = (&ds[0], &ds[1], size(&ds[2]), size(&ds[3]));
    let (out_channel, channel, kernel_h, kernel_w) = (&ks[0], &ks[1], &ks[2], &ks[3]);
    let (out_height, out_width) = (&os[2], &os[3]);
    let deformable_groups = a.required("deformable_groups")?;
    let dg = crate::operators::as_int(&deformable_groups.value).ok_or_else(|| {
        crate::error::type_error(
            deformable_groups.place(),
            "`deformable_groups` must be an integer",
        )
    })?;
    if dg < 1 || in_channel.as_int().is_some_and(|c| c % dg != 0) {
        return Err(ApiError::assertion(
            "Input cahnnels must divide deformable group size",
        ));
    }
    let groups = a.required("groups")?;
    if crate::operators::as_int(&groups.value) != Some(1) {
        return Err(ApiError::assertion(
            "deformable_conv2d_nchw does not support groups > 1",
        ));
    }
    let ic_per_dgroup = op(BinaryOp::FloorDiv, &size(channel), &Value::Int(dg))?;
    let dilated = |k: &Expr, d: &Value| -> ApiResult<Value> {
        let k = op(BinaryOp::Sub, &size(k), &Value::Int(1))?;
        op(BinaryOp::Add, &op(BinaryOp::Mul, &k, d)?, &Value::Int(1))
    };
    let dkh = expr(&dilated(kernel_h, &dilation_h)?)?;
    let dkw = expr(&dilated(kernel_w, &dilation_w)?)?;
    let [pad_top, pad_left, _, _] =
        crate::topi_nn::pad_tuple_2d(a.required("padding")?, [&dkh, &dkw])?;
    let (pad_top, pad_left) = (size(&pad_top), size(&pad_left));

    let rc = te::reduce_axis((Expr::int(0), in_channel.clone()), "rc");
    let ry = te::reduce_axis((Expr::int(0), kernel_h.clone()), "ry");
    let rx = te::reduce_axis((Expr::int(0), kernel_w.clone()), "rx");
    let axes = [rc.clone(), ry.clone(), rx.clone()];
    crate::topi_nn::note_reduce_axes(host, &axes);
    let zero = crate::call(
        host,
        &crate::resolve("tvm.tir.const").ok_or_else(|| ApiError::tvm("no tvm.tir.const"))?,
        Args::positional(vec![Value::Float(0.0), Value::str(data.dtype().name())]),
    )?;
    let (kw_v, kh_v) = (size(kernel_w), size(kernel_h));
    // `kernel_w * kernel_h * 2`: Python's arithmetic on the sizes.
    let taps2 = op(
        BinaryOp::Mul,
        &op(BinaryOp::Mul, &kw_v, &kh_v)?,
        &Value::Int(2),
    )?;
    let offset_value = Value::Object(Object::Tensor(offset.clone()));
    let data_value = Value::Object(Object::Tensor(data.clone()));
    let sample = crate::resolve("tvm.topi.cpp.utils.bilinear_sample_nchw")
        .ok_or_else(|| ApiError::tvm("no bilinear_sample_nchw"))?;
    let any = crate::resolve("tvm.tir.any").ok_or_else(|| ApiError::tvm("no tvm.tir.any"))?;
    let if_then_else = crate::resolve("tvm.tir.if_then_else")
        .ok_or_else(|| ApiError::tvm("no tvm.tir.if_then_else"))?;
    let deform_shape = vec![
        batch.clone(),
        in_channel.clone(),
        kernel_h.clone(),
        kernel_w.clone(),
        out_height.clone(),
        out_width.clone(),
    ];
    let data_deform = te::try_compute_tagged::<BuildFailure>(
        deform_shape,
        &["n", "c", "kh", "kw", "y", "x"],
        |idx| {
            let v: Vec<Value> = idx.iter().map(|e| Value::Index(e.clone())).collect();
            let (n, c, kh, kw, y, x) = (&v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
            let element = |host: &mut dyn Host| -> ApiResult<Value> {
                // c // ic_per_dgroup * (kernel_w * kernel_h * 2) + (kh * kernel_w + kw) * 2
                let group = op(
                    BinaryOp::Mul,
                    &op(BinaryOp::FloorDiv, c, &ic_per_dgroup)?,
                    &taps2,
                )?;
                let tap = op(
                    BinaryOp::Mul,
                    &op(BinaryOp::Add, &op(BinaryOp::Mul, kh, &kw_v)?, kw)?,
                    &Value::Int(2),
                )?;
                let channel_y = op(BinaryOp::Add, &group, &tap)?;
                let channel_x = op(BinaryOp::Add, &channel_y, &Value::Int(1))?;
                let read = |host: &mut dyn Host, ch: Value| {
                    crate::call(
                        host,
                        &offset_value,
                        Args::positional(vec![n.clone(), ch, y.clone(), x.clone()]),
                    )
                };
                // y * stride_h - pad_top + kh * dilation_h + offset[...]
                let coordinate = |host: &mut dyn Host,
                                  at: &Value,
                                  stride: &Value,
                                  pad: &Value,
                                  k: &Value,
                                  dilation: &Value,
                                  ch: Value|
                 -> ApiResult<Value> {
                    let base = op(BinaryOp::Sub, &op(BinaryOp::Mul, at, stride)?, pad)?;
                    let base = op(BinaryOp::Add, &base, &op(BinaryOp::Mul, k, dilation)?)?;
                    op(BinaryOp::Add, &base, &read(host, ch)?)
                };
                let h = coordinate(host, y, &stride_h, &pad_top, kh, &dilation_h, channel_y)?;
                let w = coordinate(host, x, &stride_w, &pad_left, kw, &dilation_w, channel_x)?;
                let conditions = vec![
                    crate::topi_image::python_compare(CmpOp::Lt, &h, &Value::Int(0))?,
                    crate::topi_image::python_compare(CmpOp::Lt, &w, &Value::Int(0))?,
                    crate::topi_image::python_compare(CmpOp::Ge, &h, &in_height)?,
                    crate::topi_image::python_compare(CmpOp::Ge, &w, &in_width)?,
                ];
                let outside = crate::call(host, &any, Args::positional(conditions))?;
                let max_y = op(BinaryOp::Sub, &in_height, &Value::Int(1))?;
                let max_x = op(BinaryOp::Sub, &in_width, &Value::Int(1))?;
                let val = crate::call(
                    host,
                    &sample,
                    Args::positional(vec![
                        data_value.clone(),
                        Value::tuple(vec![n.clone(), c.clone(), h, w]),
                        max_y,
                        max_x,
                    ]),
                )?;
                crate::call(
                    host,
                    &if_then_else,
                    Args::positional(vec![outside, zero.clone(), val]),
                )
            };
            let value = element(&mut *host).map_err(BuildFailure::Host)?;
            crate::objects::to_element(&value, None).map_err(BuildFailure::Host)
        },
        "compute",
        "data_deform",
        te::Attrs::new(),
    )
    .map_err(ApiError::from)?;
    let out = crate::topi_nn::compute(
        vec![
            batch.clone(),
            out_channel.clone(),
            out_height.clone(),
            out_width.clone(),
        ],
        &["n", "f", "y", "x"],
        |o| {
            let (n, f, y, x) = (&o[0], &o[1], &o[2], &o[3]);
            let sampled = data_deform.at(vec![
                n.clone(),
                rc.expr(),
                ry.expr(),
                rx.expr(),
                y.clone(),
                x.clone(),
            ]);
            let weight = kernel.at(vec![f.clone(), rc.expr(), ry.expr(), rx.expr()]);
            Ok(te::sum(
                te::Value::binary(
                    te::BinaryOp::Mul,
                    crate::topi_nn::cast(sampled, out_dtype),
                    crate::topi_nn::cast(weight, out_dtype),
                ),
                &axes,
            ))
        },
        "compute",
        "deformable_conv2d_nchw",
        te::Attrs::new(),
    )?;
    Ok(Value::Object(Object::Tensor(out)))
}
