//! TOPI's correlation of two feature maps (`tvm.topi.nn.correlation_nchw`,
//! FlowNet's correlation layer), as TOPI v0.19 builds it in Python: both
//! inputs padded (`PadInput`), the sum over channels and a square window
//! of the product (or absolute difference) of each point of the first map
//! with a displaced point of the second (`compute`, tag
//! `correlation_nchw`; one output channel per displacement), then divided
//! by the window's size (`T_divide`). TOPI's CUDA schedule calls it from
//! its template.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult};
use crate::object::Object;
use crate::objects::to_index;
use crate::topi_ops::simplify;
use crate::value::Value;
use crate::Host;
use arith::Expr;
use te::Attrs;

/// A Python integer argument (TOPI computes with it in Python).
fn int(g: &Given, what: &str) -> ApiResult<i64> {
    crate::operators::as_int(&g.value).ok_or_else(|| {
        type_error(
            g.place(),
            format!(
                "`{what}` must be an integer, found a {}",
                g.value.type_name()
            ),
        )
    })
}

/// `padding`: an integer, `[pad_height, pad_width]` or `[pad_top,
/// pad_left, pad_bottom, pad_right]`; returns before and after for the
/// height and the width.
fn padding(g: &Given) -> ApiResult<([Expr; 2], [Expr; 2])> {
    let invalid = || ApiError::value_error("invalid padding");
    match &g.value {
        Value::Int(_) | Value::Index(_) => {
            let p = to_index(g)?;
            Ok(([p.clone(), p.clone()], [p.clone(), p]))
        }
        v => {
            let items = v.sequence().ok_or_else(invalid)?;
            let p: Vec<Expr> = items
                .into_iter()
                .map(|v| to_index(&g.item(v)))
                .collect::<ApiResult<_>>()?;
            match p.as_slice() {
                [h, w] => Ok(([h.clone(), w.clone()], [h.clone(), w.clone()])),
                [bh, bw, ah, aw] => Ok(([bh.clone(), bw.clone()], [ah.clone(), aw.clone()])),
                _ => Err(invalid()),
            }
        }
    }
}

/// `nn.correlation_nchw(data1, data2, kernel_size, max_displacement,
/// stride1, stride2, padding, is_multiply)`.
pub(crate) fn correlation_nchw(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "correlation_nchw",
        &[
            "data1",
            "data2",
            "kernel_size",
            "max_displacement",
            "stride1",
            "stride2",
            "padding",
            "is_multiply",
        ],
    )?;
    let data1 = crate::topi_ops::tensor_arg(a.required("data1")?, "correlation_nchw")?;
    let data2 = crate::topi_ops::tensor_arg(a.required("data2")?, "correlation_nchw")?;
    if data1.ndim() != 4 {
        return Err(ApiError::value_error(format!(
            "`correlation_nchw` takes 4-D inputs [batch, channel, height, width], `{}` has {} \
             dimensions",
            data1.name(),
            data1.ndim()
        )));
    }
    if data1.shape() != data2.shape() {
        return Err(ApiError::assertion(
            "data1 and data2 should have the same shape",
        ));
    }
    let kernel_size = int(a.required("kernel_size")?, "kernel_size")?;
    if kernel_size <= 0 || kernel_size % 2 == 0 {
        return Err(ApiError::assertion(
            "kernel_size should be non-negative odd number",
        ));
    }
    let max_displacement = int(a.required("max_displacement")?, "max_displacement")?;
    let stride1 = int(a.required("stride1")?, "stride1")?;
    let stride2 = int(a.required("stride2")?, "stride2")?;
    if stride1 <= 0 || stride2 <= 0 || max_displacement < 0 {
        return Err(ApiError::value_error(
            "`correlation_nchw` needs positive strides and a non-negative max_displacement",
        ));
    }
    let (before, after) = padding(a.required("padding")?)?;
    let is_multiply = crate::operators::truth(&a.required("is_multiply")?.value)?;

    let zero = Expr::int(0);
    let pad_before = [
        zero.clone(),
        zero.clone(),
        before[0].clone(),
        before[1].clone(),
    ];
    let pad_after = [zero.clone(), zero, after[0].clone(), after[1].clone()];
    let pad = |t: &te::Tensor| {
        crate::topi_nn::pad_tensor(
            t,
            &pad_before,
            &pad_after,
            crate::objects::float_constant(0.0, t.dtype()),
            "PadInput",
            Attrs::new(),
        )
    };
    let (padded1, padded2) = (pad(&data1)?, pad(&data2)?);

    let s = data1.shape().to_vec();
    let (batch, channel, height, width) = (&s[0], &s[1], &s[2], &s[3]);
    let overflow = || {
        ApiError::new(
            crate::ErrorClass::OverflowError,
            "`correlation_nchw`: the window and displacement sizes overflow 64 bits",
        )
    };
    let kernel_radius = (kernel_size - 1) / 2;
    let border_size = max_displacement
        .checked_add(kernel_radius)
        .ok_or_else(overflow)?;
    let displacement_radius = max_displacement / stride2;
    let displacement_size = displacement_radius
        .checked_mul(2)
        .and_then(|d| d.checked_add(1))
        .ok_or_else(overflow)?;
    let out_channel = displacement_size
        .checked_mul(displacement_size)
        .ok_or_else(overflow)?;
    let twice_border = border_size.checked_mul(2).ok_or_else(overflow)?;
    let window = kernel_size.checked_mul(kernel_size).ok_or_else(overflow)?;
    let padded_width = width.clone() + before[1].clone() + after[1].clone();
    let padded_height = height.clone() + before[0].clone() + after[0].clone();
    let out_size = |padded: Expr| {
        simplify(Expr::floor_div(
            padded - Expr::int(twice_border) + Expr::int(stride1 - 1),
            Expr::int(stride1),
        ))
    };
    let out_height = out_size(padded_height);
    let out_width = out_size(padded_width);

    let rc = te::reduce_axis((Expr::int(0), channel.clone()), "rc");
    let ry = te::reduce_axis((Expr::int(0), Expr::int(kernel_size)), "ry");
    let rx = te::reduce_axis((Expr::int(0), Expr::int(kernel_size)), "rx");
    let axes = [rc.clone(), ry.clone(), rx.clone()];
    crate::topi_nn::note_reduce_axes(host, &axes);
    let correlation = crate::topi_nn::compute(
        vec![batch.clone(), Expr::int(out_channel), out_height, out_width],
        &["n", "q", "i", "j"],
        |o| {
            let (n, q, i, j) = (&o[0], &o[1], &o[2], &o[3]);
            let y1 = i.clone() * Expr::int(stride1) + Expr::int(max_displacement);
            let x1 = j.clone() * Expr::int(stride1) + Expr::int(max_displacement);
            let shift = |part: Expr| (part - Expr::int(displacement_radius)) * Expr::int(stride2);
            let size = Expr::int(displacement_size);
            let y2 = y1.clone() + shift(Expr::floor_div(q.clone(), size.clone()));
            let x2 = x1.clone() + shift(Expr::floor_mod(q.clone(), size));
            let at = |t: &te::Tensor, y: &Expr, x: &Expr| {
                t.at(vec![
                    n.clone(),
                    rc.expr(),
                    y.clone() + ry.expr(),
                    x.clone() + rx.expr(),
                ])
            };
            let (first, second) = (at(&padded1, &y1, &x1), at(&padded2, &y2, &x2));
            let corr = if is_multiply {
                te::Value::binary(te::BinaryOp::Mul, first, second)
            } else {
                te::Value::call(
                    tir::Intrinsic::Fabs,
                    vec![te::Value::binary(te::BinaryOp::Sub, first, second)],
                )
            };
            Ok(te::sum(corr, &axes))
        },
        "compute",
        "correlation_nchw",
        Attrs::new(),
    )?;
    let window = simplify(Expr::int(window) * channel.clone());
    let window = match window.as_int() {
        Some(k) => Value::Int(k),
        None => Value::Index(window),
    };
    crate::topi_ops::broadcast(
        crate::BinaryOp::Div,
        &Value::Object(Object::Tensor(correlation)),
        &window,
    )
}
