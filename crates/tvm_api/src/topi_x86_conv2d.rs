//! TOPI's x86 convolution schedules over blocked layouts
//! (`tvm.topi.x86.conv2d_avx_common` and `conv2d_avx_1x1`), as TOPI v0.19
//! writes them in Python: `x86/conv2d.py` reaches them as attributes of
//! those modules (`conv2d_avx_common._fallback_schedule(cfg, wkl)`), so a
//! program made of TOPI's modules finds them here.
//!
//! - `_fallback_schedule(cfg, wkl)`: the configuration TOPI picks without
//!   a tuning log: output channels blocked by the largest divisor up to the
//!   SIMD width, input channels by the largest divisor up to that, and the
//!   output width (and, for 1x1 kernels, height) tiled to fit the
//!   registers;
//! - `_schedule_conv_NCHWc(s, cfg, data_vec, kernel_vec, conv_out, last)`:
//!   the packing stages in parallel, the convolution written through a
//!   `global` cache computed at each output tile, vectorized over the
//!   output channel block.
//!
//! The int8 variants use a tensor intrinsic of the machine and are not
//! provided.

use crate::args::{Args, Given};
use crate::autotvm::{ConfigRef, Entity};
use crate::error::{type_error, ApiError, ApiResult};
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use te::IterVar;

/// Which of TOPI's two x86 convolution modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AvxConv {
    /// `conv2d_avx_common`: any kernel.
    Common,
    /// `conv2d_avx_1x1`: 1x1 kernels.
    OneByOne,
}

/// The function of `tvm.topi.x86.<module>` called `name`, if provided.
pub(crate) fn function(module_path: &str, name: &str) -> Option<crate::Function> {
    let kind = match module_path {
        "tvm.topi.x86.conv2d_avx_common" => AvxConv::Common,
        "tvm.topi.x86.conv2d_avx_1x1" => AvxConv::OneByOne,
        _ => return None,
    };
    match name {
        "_fallback_schedule" => Some(crate::Function::X86ConvFallback(kind)),
        "_schedule_conv_NCHWc" => Some(crate::Function::X86ScheduleConvNchwc(kind)),
        _ => None,
    }
}

fn config(g: &Given) -> ApiResult<ConfigRef> {
    match &g.value {
        Value::Object(Object::AutotvmConfig(c)) => Ok(c.clone()),
        other => Err(type_error(
            g.place(),
            format!(
                "expected an AutoTVM configuration (`cfg`), found a {}",
                other.type_name()
            ),
        )),
    }
}

/// The fields of TOPI's conv2d `Workload` namedtuple that the fallbacks
/// read, by their place in it (`nn/conv2d.py`).
struct Workload {
    height: i64,
    width: i64,
    in_filter: i64,
    out_filter: i64,
    kernel: [i64; 2],
    pad: [i64; 4],
    dilation: [i64; 2],
    stride: [i64; 2],
}

fn workload(g: &Given) -> ApiResult<Workload> {
    let items = g
        .value
        .sequence()
        .filter(|v| v.len() == 17)
        .ok_or_else(|| {
            type_error(
                g.place(),
                "expected TOPI's conv2d `Workload` (the 17 fields of `nn.conv2d.Workload`)",
            )
        })?;
    let int = |k: usize, name: &str| -> ApiResult<i64> {
        crate::operators::as_int(&items[k]).ok_or_else(|| {
            type_error(
                g.place(),
                format!("the workload's `{name}` must be an integer"),
            )
        })
    };
    let w = Workload {
        height: int(2, "height")?,
        width: int(3, "width")?,
        in_filter: int(4, "in_filter")?,
        out_filter: int(6, "out_filter")?,
        kernel: [int(7, "kernel_h")?, int(8, "kernel_w")?],
        pad: [
            int(9, "padt")?,
            int(10, "padl")?,
            int(11, "padb")?,
            int(12, "padr")?,
        ],
        dilation: [int(13, "dilation_h")?, int(14, "dilation_w")?],
        stride: [int(15, "stride_h")?, int(16, "stride_w")?],
    };
    let positive = w.height > 0
        && w.width > 0
        && w.in_filter > 0
        && w.out_filter > 0
        && w.kernel
            .iter()
            .chain(&w.dilation)
            .chain(&w.stride)
            .all(|&x| x > 0)
        && w.pad.iter().all(|&p| p >= 0);
    if !positive {
        return Err(ApiError::value_error(
            "the workload's sizes, strides and dilations must be positive and its padding \
             non-negative",
        ));
    }
    Ok(w)
}

/// The largest divisor of `n` that is at most `limit` (at least 1).
fn largest_divisor(n: i64, limit: i64) -> i64 {
    (1..=limit.max(1)).rev().find(|d| n % d == 0).unwrap_or(1)
}

/// `_fallback_schedule(cfg, wkl)` of `conv2d_avx_common` or `conv2d_avx_1x1`.
pub(crate) fn fallback_schedule(
    host: &mut dyn Host,
    args: Args,
    kind: AvxConv,
) -> ApiResult<Value> {
    let a = args.bind("_fallback_schedule", &["cfg", "wkl"])?;
    let cfg = config(a.required("cfg")?)?;
    let w = workload(a.required("wkl")?)?;
    let simd = crate::operators::as_int(&crate::autotvm::simd_32bit_lanes(
        host,
        Args::positional(Vec::new()),
    )?)
    .unwrap_or(4);
    let out_size = |i: usize, size: i64, pads: i64| {
        let dilated = (w.kernel[i] - 1) * w.dilation[i] + 1;
        (size + pads - dilated).div_euclid(w.stride[i]) + 1
    };
    let out_height = out_size(0, w.height, w.pad[0] + w.pad[2]);
    let out_width = out_size(1, w.width, w.pad[1] + w.pad[3]);
    if out_height < 1 || out_width < 1 {
        return Err(ApiError::value_error(
            "the workload's kernel is larger than its padded input",
        ));
    }
    let oc_bn = largest_divisor(w.out_filter, simd);
    let ic_bn = largest_divisor(w.in_filter, oc_bn);
    let mut c = cfg.borrow_mut();
    let split = |outer: i64, inner: i64| Entity::Split(vec![outer, inner]);
    match kind {
        AvxConv::Common => {
            let reg_n = largest_divisor(out_width, 31);
            c.assign("tile_ic", split(w.in_filter / ic_bn, ic_bn));
            c.assign("tile_oc", split(w.out_filter / oc_bn, oc_bn));
            c.assign("tile_ow", split(out_width / reg_n, reg_n));
            c.assign("unroll_kw", Entity::Other(Value::Bool(false)));
        }
        AvxConv::OneByOne => {
            // The widest row tile, then the tallest, of fewer than 32
            // outputs (TOPI's search order).
            let tile = (1..=out_width)
                .rev()
                .filter(|ow| out_width % ow == 0)
                .find_map(|ow| {
                    (1..=out_height)
                        .rev()
                        .find(|oh| out_height % oh == 0 && ow * oh < 32)
                        .map(|oh| (oh, ow))
                });
            // `ow = oh = 1` always fits, so there is a tile.
            let (oh_factor, ow_factor) = tile.unwrap_or((1, 1));
            c.assign("tile_ic", split(w.in_filter / ic_bn, ic_bn));
            c.assign("tile_oc", split(w.out_filter / oc_bn, oc_bn));
            c.assign("tile_oh", Entity::Other(Value::Int(oh_factor)));
            c.assign("tile_ow", split(out_width / ow_factor, ow_factor));
        }
    }
    Ok(Value::None)
}

fn te_err(e: te::TeError) -> ApiError {
    ApiError::te(e)
}

/// The axes of `t`'s operation, which must number `n`.
fn axes(t: &te::Tensor, n: usize) -> ApiResult<Vec<IterVar>> {
    let axis = t.op().axis().to_vec();
    if axis.len() != n {
        return Err(ApiError::value_error(format!(
            "`{}` has {} axes where TOPI's schedule unpacks {n}",
            t.name(),
            axis.len()
        )));
    }
    Ok(axis)
}

/// How an output of the convolution is tiled: rows of `ow` outputs (any
/// kernel), or `oh` x `ow` tiles (1x1).
struct Tiles {
    kind: AvxConv,
    oh: i64,
    ow: i64,
}

impl Tiles {
    /// Tiles `t` over its axes `[batch, oc_chunk, oh, ow, oc_block]`, or
    /// `[batch, oc, oh, ow]` with `oc` split by `oc_bn` (the unpacked
    /// output), the channel block innermost, and fuses the batch, the
    /// channel chunk and the outer rows into one loop. Returns that loop,
    /// the outer loop over the row and the channel block. The splits come
    /// in TOPI's order, which the report's listing of loops follows.
    fn apply(
        &self,
        s: &mut te::Schedule,
        t: &te::Tensor,
        ax: &[IterVar],
        oc_bn: i64,
    ) -> ApiResult<(IterVar, IterVar, IterVar)> {
        let (batch, oh, ow) = (&ax[0], &ax[2], &ax[3]);
        let blocked = ax.len() == 5;
        let split_channels = |s: &mut te::Schedule| -> ApiResult<(IterVar, IterVar)> {
            if blocked {
                Ok((ax[1].clone(), ax[4].clone()))
            } else {
                s.split(t, &ax[1], oc_bn).map_err(te_err)
            }
        };
        let (rows, ow_outer, oc_chunk, oc_block) = match self.kind {
            AvxConv::Common => {
                let (ow_chunk, ow_block) = s.split(t, ow, self.ow).map_err(te_err)?;
                let (oc_chunk, oc_block) = split_channels(s)?;
                let order = [
                    oc_chunk.clone(),
                    oh.clone(),
                    ow_chunk.clone(),
                    ow_block,
                    oc_block.clone(),
                ];
                s.reorder(t, &order).map_err(te_err)?;
                (oh.clone(), ow_chunk, oc_chunk, oc_block)
            }
            AvxConv::OneByOne => {
                let (oc_chunk, oc_block) = split_channels(s)?;
                let (oh_outer, oh_inner) = s.split(t, oh, self.oh).map_err(te_err)?;
                let (ow_outer, ow_inner) = s.split(t, ow, self.ow).map_err(te_err)?;
                let order = [
                    oc_chunk.clone(),
                    oh_outer.clone(),
                    ow_outer.clone(),
                    oh_inner,
                    ow_inner,
                    oc_block.clone(),
                ];
                s.reorder(t, &order).map_err(te_err)?;
                (oh_outer, ow_outer, oc_chunk, oc_block)
            }
        };
        let p = s.fuse(t, batch, &oc_chunk).map_err(te_err)?;
        let p = s.fuse(t, &p, &rows).map_err(te_err)?;
        Ok((p, ow_outer, oc_block))
    }
}

fn is_compute(t: &te::Tensor) -> bool {
    matches!(t.op().kind(), te::OpKind::Compute(_))
}

/// `_schedule_conv_NCHWc(s, cfg, data_vec, kernel_vec, conv_out, last)` of
/// `conv2d_avx_common` or `conv2d_avx_1x1`; returns `s`.
pub(crate) fn schedule_conv_nchwc(args: Args, kind: AvxConv) -> ApiResult<Value> {
    let a = args.bind(
        "_schedule_conv_NCHWc",
        &["s", "cfg", "data_vec", "kernel_vec", "conv_out", "last"],
    )?;
    let sch = crate::functions::schedule_arg(a.required("s")?)?;
    let cfg = config(a.required("cfg")?)?;
    let mut data_vec = crate::objects::to_arg_tensor(a.required("data_vec")?)?;
    let kernel_vec = crate::objects::to_arg_tensor(a.required("kernel_vec")?)?;
    let conv = crate::objects::to_arg_tensor(a.required("conv_out")?)?;
    let last = crate::objects::to_arg_tensor(a.required("last")?)?;
    let knob_error = |name: &str| {
        ApiError::new(
            crate::error::ErrorClass::KeyError,
            format!("the configuration has no `{name}` (call `_fallback_schedule` first)"),
        )
    };
    let (c, oc_bn) = {
        let c = cfg.borrow();
        let last_size = |name: &str| {
            c.split_size(name)
                .and_then(|s| s.last().copied())
                .ok_or_else(|| knob_error(name))
        };
        let tiles = match kind {
            AvxConv::Common => {
                let unroll = c
                    .option("unroll_kw")
                    .ok_or_else(|| knob_error("unroll_kw"))?;
                let unroll = crate::operators::truth(&unroll)?;
                (1, last_size("tile_ow")?, unroll)
            }
            AvxConv::OneByOne => {
                let oh = c.option("tile_oh").ok_or_else(|| knob_error("tile_oh"))?;
                let oh = crate::operators::as_int(&oh).ok_or_else(|| knob_error("tile_oh"))?;
                (oh, last_size("tile_ow")?, false)
            }
        };
        (tiles, last_size("tile_oc")?)
    };
    let (oh_factor, ow_factor, unroll_kw) = c;
    let mut s = sch.borrow_mut();
    let ic_bn = data_vec
        .shape()
        .get(4)
        .and_then(arith::Expr::as_int)
        .ok_or_else(|| {
            ApiError::value_error(format!(
                "`{}` must be 5-D with a constant channel block",
                data_vec.name()
            ))
        })?;

    // The padding stage, then the packing stages when they are computed.
    if is_compute(&data_vec) && data_vec.op().tag().contains("pad") {
        let ax = axes(&data_vec, 5)?;
        s.vectorize(&data_vec, &ax[4]).map_err(te_err)?;
        let f = s.fuse(&data_vec, &ax[0], &ax[1]).map_err(te_err)?;
        let f = s.fuse(&data_vec, &f, &ax[2]).map_err(te_err)?;
        s.parallel(&data_vec, &f).map_err(te_err)?;
        let inputs = data_vec.op().input_tensors();
        data_vec = inputs
            .first()
            .cloned()
            .ok_or_else(|| ApiError::value_error("the padding stage reads no tensor"))?;
    }
    if is_compute(&kernel_vec) && kernel_vec.name() == "kernel_vec" {
        let ax = axes(&data_vec, 5)?;
        let f = s.fuse(&data_vec, &ax[0], &ax[1]).map_err(te_err)?;
        let f = s.fuse(&data_vec, &f, &ax[2]).map_err(te_err)?;
        s.parallel(&data_vec, &f).map_err(te_err)?;
        let k = axes(&kernel_vec, 6)?;
        s.reorder(
            &kernel_vec,
            &[
                k[0].clone(),
                k[2].clone(),
                k[1].clone(),
                k[3].clone(),
                k[4].clone(),
                k[5].clone(),
            ],
        )
        .map_err(te_err)?;
        if oc_bn > 1 {
            s.vectorize(&kernel_vec, &k[5]).map_err(te_err)?;
        }
        let f = s.fuse(&kernel_vec, &k[0], &k[2]).map_err(te_err)?;
        s.parallel(&kernel_vec, &f).map_err(te_err)?;
    }

    let same = conv.op() == last.op();
    let cc = s.cache_write(&conv, "global").map_err(te_err)?;
    let tiles = Tiles {
        kind,
        oh: oh_factor,
        ow: ow_factor,
    };
    let (p, ow_chunk, oc_block) = tiles.apply(&mut s, &conv, &axes(&conv, 5)?, oc_bn)?;
    s.vectorize(&conv, &oc_block).map_err(te_err)?;
    if same {
        s.parallel(&conv, &p).map_err(te_err)?;
    }
    // The cache: at each row tile (any kernel) or each parallel
    // iteration (1x1), its reduction over blocks of input channels.
    let at = match kind {
        AvxConv::Common => ow_chunk,
        AvxConv::OneByOne => p,
    };
    s.compute_at(&cc, &conv, &at).map_err(te_err)?;
    let cax = axes(&cc, 5)?;
    let red = cc.op().reduce_axis().to_vec();
    if red.len() != 3 {
        return Err(ApiError::value_error(
            "TOPI's schedule unpacks 3 reduction axes (ic, kh, kw)",
        ));
    }
    let (oc_chunk, oh, ow, oc_block) = (&cax[1], &cax[2], &cax[3], &cax[4]);
    match kind {
        AvxConv::Common => {
            let (ow_chunk, ow_block) = s.split(&cc, ow, ow_factor).map_err(te_err)?;
            let (ic_chunk, ic_block) = s.split(&cc, &red[0], ic_bn).map_err(te_err)?;
            let (kh, kw) = (red[1].clone(), red[2].clone());
            let inner = if unroll_kw {
                [kh, ic_block, kw.clone()]
            } else {
                [kh, kw.clone(), ic_block]
            };
            let mut order = vec![oc_chunk.clone(), oh.clone(), ow_chunk, ic_chunk];
            order.extend(inner);
            order.extend([ow_block.clone(), oc_block.clone()]);
            s.reorder(&cc, &order).map_err(te_err)?;
            if unroll_kw {
                s.unroll(&cc, &kw).map_err(te_err)?;
            }
            s.vectorize(&cc, oc_block).map_err(te_err)?;
            s.unroll(&cc, &ow_block).map_err(te_err)?;
        }
        AvxConv::OneByOne => {
            let (ic_chunk, ic_block) = s.split(&cc, &red[0], ic_bn).map_err(te_err)?;
            let (oh_outer, oh_inner) = s.split(&cc, oh, oh_factor).map_err(te_err)?;
            let (ow_outer, ow_inner) = s.split(&cc, ow, ow_factor).map_err(te_err)?;
            let order = [
                oc_chunk.clone(),
                oh_outer.clone(),
                ow_outer,
                ic_chunk,
                ic_block,
                oh_inner.clone(),
                ow_inner.clone(),
                oc_block.clone(),
            ];
            s.reorder(&cc, &order).map_err(te_err)?;
            s.fuse(&cc, oc_chunk, &oh_outer).map_err(te_err)?;
            s.vectorize(&cc, oc_block).map_err(te_err)?;
            s.unroll(&cc, &ow_inner).map_err(te_err)?;
            s.unroll(&cc, &oh_inner).map_err(te_err)?;
        }
    }

    if !same {
        // A later stage (the unpacking, or an operation fused after the
        // convolution) is tiled the same way; the convolution is computed
        // at its parallel loop.
        let out = last.op().axis().to_vec();
        if !matches!(out.len(), 4 | 5) {
            return Err(ApiError::value_error(format!(
                "Unsupported output ndim: {}",
                out.len()
            )));
        }
        let (p, _, oc_block) = tiles.apply(&mut s, &last, &out, oc_bn)?;
        s.compute_at(&conv, &last, &p).map_err(te_err)?;
        s.vectorize(&last, &oc_block).map_err(te_err)?;
        s.parallel(&last, &p).map_err(te_err)?;
    }
    drop(s);
    Ok(Value::Object(Object::Schedule(sch)))
}
