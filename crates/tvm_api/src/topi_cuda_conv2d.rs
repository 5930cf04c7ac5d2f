//! TOPI's direct CUDA convolution (`tvm.topi.cuda.conv2d_nchw`,
//! `schedule_conv2d_nchw` and `conv2d_direct.schedule_direct_cuda`), as
//! TOPI v0.19 writes it in Python: an AutoTVM template whose fallback
//! configuration (no tuning log) puts every tile factor in the block
//! loops.
//!
//! - `conv2d_nchw(data, kernel, strides, padding, dilation,
//!   out_dtype="float32")`: `nn.conv2d_nchw`, registered as the workload
//!   `conv2d_nchw.cuda`;
//! - `schedule_conv2d_nchw(outs)`: injective stages inlined, and
//!   `schedule_direct_cuda` on the convolution (tag `conv2d_nchw`);
//! - `schedule_direct_cuda(cfg, s, conv)`: the output tiled four ways per
//!   spatial axis over blocks, virtual threads, threads and an inner tile;
//!   a `local` accumulator computed at each thread; the padded input and
//!   the kernel fetched into `shared` memory by the block's threads
//!   together at each step of the tiled reduction.

use crate::args::Args;
use crate::autotvm::{ConfigRef, Entity, Template};
use crate::error::{ApiError, ApiResult, ErrorClass};
use crate::function::Function;
use crate::object::Object;
use crate::topi_schedules::{bind, thread, traverse_inline};
use crate::value::Value;
use crate::Host;
use std::rc::Rc;
use te::{IterVar, Schedule, Tensor};

/// The task TOPI registers the template under.
const TASK: &str = "conv2d_nchw.cuda";

/// Which part of the template a native function is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// The compute, `conv2d_nchw(cfg, data, kernel, ...)`.
    Compute,
    /// The schedule, `schedule_conv2d_nchw(cfg, outs)`.
    Schedule,
    /// `conv2d_direct.schedule_direct_cuda(cfg, s, conv)`.
    Direct,
}

/// `module.name`, for the names this module provides: the two registered
/// templates (called without `cfg`, as TOPI's users call them) and
/// `schedule_direct_cuda`.
pub(crate) fn attribute(module_path: &str, name: &str) -> Option<Value> {
    let template = |schedule: bool, part: Part| {
        Some(Value::Object(Object::AutotvmTemplate(Rc::new(
            Template::native(TASK, schedule, Function::CudaConv2dDirect(part)),
        ))))
    };
    match (module_path, name) {
        ("tvm.topi.cuda" | "tvm.topi.cuda.conv2d", "conv2d_nchw") => template(false, Part::Compute),
        ("tvm.topi.cuda" | "tvm.topi.cuda.conv2d", "schedule_conv2d_nchw") => {
            template(true, Part::Schedule)
        }
        ("tvm.topi.cuda.conv2d_direct", "schedule_direct_cuda") => {
            Some(Value::Function(Function::CudaConv2dDirect(Part::Direct)))
        }
        _ => None,
    }
}

/// Calls one part of the template; `cfg` comes first.
pub(crate) fn call(host: &mut dyn Host, args: Args, part: Part) -> ApiResult<Value> {
    match part {
        Part::Compute => {
            let mut positional = args.positional.into_iter();
            config(positional.next(), "conv2d_nchw")?;
            let args = Args {
                positional: positional.collect(),
                keywords: args.keywords,
            };
            crate::functions::call(
                host,
                Function::NnConv(crate::topi_nn::ConvForm::Fixed("NCHW")),
                args,
            )
        }
        Part::Schedule => {
            let a = args.bind("schedule_conv2d_nchw", &["cfg", "outs"])?;
            let cfg = config(
                Some(a.required("cfg")?.value.clone()),
                "schedule_conv2d_nchw",
            )?;
            let outs = crate::dataflow::tensor_list(a.required("outs")?)?;
            let (value, sch) = crate::topi_schedules::start(host, &outs);
            let first = outs
                .first()
                .cloned()
                .ok_or_else(|| ApiError::new(ErrorClass::IndexError, "list index out of range"))?;
            let target = current_kind(host);
            let mut s = sch.borrow_mut();
            traverse_inline(&mut s, first.op(), &mut |s, op| {
                if op.tag() == "conv2d_nchw" {
                    schedule_direct(s, &cfg, target.as_deref(), &op.output())?;
                }
                Ok(())
            })?;
            Ok(value)
        }
        Part::Direct => {
            let a = args.bind("schedule_direct_cuda", &["cfg", "s", "conv"])?;
            let cfg = config(
                Some(a.required("cfg")?.value.clone()),
                "schedule_direct_cuda",
            )?;
            let sch = crate::functions::schedule_arg(a.required("s")?)?;
            let conv = crate::objects::to_arg_tensor(a.required("conv")?)?;
            let target = current_kind(host);
            schedule_direct(&mut sch.borrow_mut(), &cfg, target.as_deref(), &conv)?;
            Ok(Value::None)
        }
    }
}

/// The configuration a template part is called with.
fn config(v: Option<Value>, function: &str) -> ApiResult<ConfigRef> {
    match v {
        Some(Value::Object(Object::AutotvmConfig(c))) => Ok(c),
        Some(other) => Err(ApiError::type_error(format!(
            "`{function}` takes an AutoTVM configuration (`cfg`) first, found a {}",
            other.type_name()
        ))),
        None => Err(ApiError::type_error(format!(
            "`{function}` takes an AutoTVM configuration (`cfg`) first"
        ))),
    }
}

/// The current target's kind (`Target.current().kind.name`).
fn current_kind(host: &mut dyn Host) -> Option<String> {
    host.session().targets.last().map(|t| t.kind.clone())
}

fn te_err(e: te::TeError) -> ApiError {
    ApiError::te(e)
}

/// `[n, f, y, x]` of a 4-D stage, by its name for messages.
fn four(axes: &[IterVar], what: &str) -> ApiResult<[IterVar; 4]> {
    <[IterVar; 4]>::try_from(axes.to_vec()).map_err(|_| {
        ApiError::value_error(format!(
            "`{what}` has {} axes where TOPI's schedule unpacks 4 (n, f, y, x)",
            axes.len()
        ))
    })
}

/// `schedule_direct_cuda(cfg, s, conv)`.
fn schedule_direct(
    s: &mut Schedule,
    cfg: &ConfigRef,
    target: Option<&str>,
    conv: &Tensor,
) -> ApiResult<()> {
    let target = target.ok_or_else(|| {
        ApiError::attribute_error(
            "'NoneType' object has no attribute 'kind': `schedule_direct_cuda` reads the \
             current target (call it under `with tvm.target.Target(\"cuda\"):`)",
        )
    })?;
    let stage_op = s.stage(conv).map_err(te_err)?.op().clone();
    four(stage_op.axis(), conv.name())?;
    if stage_op.reduce_axis().len() != 3 {
        return Err(ApiError::value_error(format!(
            "`{}` has {} reduction axes where TOPI's schedule unpacks 3 (rc, ry, rx)",
            conv.name(),
            stage_op.reduce_axis().len()
        )));
    }
    {
        let mut c = cfg.borrow_mut();
        for (knob, parts) in [
            ("tile_f", 4),
            ("tile_y", 4),
            ("tile_x", 4),
            ("tile_rc", 2),
            ("tile_ry", 2),
            ("tile_rx", 2),
        ] {
            c.define_split(knob, parts);
        }
        c.define("auto_unroll_max_step", Entity::Other(Value::Int(0)));
        let explicit = i64::from(matches!(target, "nvptx" | "rocm"));
        c.define("unroll_explicit", Entity::Other(Value::Int(explicit)));
    }
    // The fallback's reference log is empty here (see `autotvm`): the
    // configuration stays as defined.
    let (tile_f, tile_y, tile_x, tile_rc, tile_ry, tile_rx, max_step, explicit) = {
        let c = cfg.borrow();
        let split = |name: &str| {
            c.split_size(name)
                .ok_or_else(|| ApiError::type_error(format!("the knob `{name}` is not a split")))
        };
        let int = |name: &str| {
            c.option(name)
                .as_ref()
                .and_then(crate::operators::as_int)
                .ok_or_else(|| ApiError::type_error(format!("the knob `{name}` is not an integer")))
        };
        (
            split("tile_f")?,
            split("tile_y")?,
            split("tile_x")?,
            split("tile_rc")?,
            split("tile_ry")?,
            split("tile_rx")?,
            int("auto_unroll_max_step")?,
            int("unroll_explicit")?,
        )
    };

    let inputs = stage_op.input_tensors();
    let [pad_data, kernel] = <[Tensor; 2]>::try_from(inputs).map_err(|v| {
        ApiError::value_error(format!(
            "`{}` reads {} tensors where TOPI's schedule unpacks 2 (pad_data, kernel)",
            conv.name(),
            v.len()
        ))
    })?;
    s.compute_inline(&pad_data).map_err(te_err)?;
    if kernel.op().as_compute().is_some() && kernel.op().tag().contains("dilate") {
        s.compute_inline(&kernel).map_err(te_err)?;
    }
    let (output, ol) = if s.outputs().contains(conv.op()) {
        let ol = s.cache_write(conv, "local").map_err(te_err)?;
        (conv.clone(), ol)
    } else {
        let output =
            s.outputs().first().map(|op| op.output()).ok_or_else(|| {
                ApiError::new(ErrorClass::IndexError, "the schedule has no outputs")
            })?;
        s.set_scope(conv, "local").map_err(te_err)?;
        (output, conv.clone())
    };
    let aa = s.cache_read(&pad_data, "shared", &[&ol]).map_err(te_err)?;
    let ww = s.cache_read(&kernel, "shared", &[&ol]).map_err(te_err)?;

    // Tile and bind the output's spatial axes.
    let out_axes = s.stage(&output).map_err(te_err)?.op().axis().to_vec();
    let [n, f, y, x] = four(&out_axes, output.name())?;
    let (kernel_scope, n) = s.split_nparts(&output, &n, 1).map_err(te_err)?;
    let [bf, vf, tf, fi] = tiles(s, &output, &f, ("tile_f", &tile_f))?;
    let [by, vy, ty, yi] = tiles(s, &output, &y, ("tile_y", &tile_y))?;
    let [bx, vx, tx, xi] = tiles(s, &output, &x, ("tile_x", &tile_x))?;
    let bf = s.fuse(&output, &n, &bf).map_err(te_err)?;
    for (iv, tag) in [
        (&bf, "blockIdx.z"),
        (&by, "blockIdx.y"),
        (&bx, "blockIdx.x"),
        (&vf, "vthread"),
        (&vy, "vthread"),
        (&vx, "vthread"),
        (&tf, "threadIdx.z"),
        (&ty, "threadIdx.y"),
        (&tx, "threadIdx.x"),
    ] {
        bind(s, &output, iv, &thread(tag)?)?;
    }
    s.reorder(
        &output,
        &[bf, by, bx, vf, vy, vx, tf, ty, tx.clone(), fi, yi, xi],
    )
    .map_err(te_err)?;
    s.compute_at(&ol, &output, &tx).map_err(te_err)?;

    // Tile the reduction.
    let ol_op = s.stage(&ol).map_err(te_err)?.op().clone();
    let [n, f, y, x] = four(ol_op.axis(), ol.name())?;
    let red = ol_op.reduce_axis().to_vec();
    let [rco, rci] = tiles(s, &ol, &red[0], ("tile_rc", &tile_rc))?;
    let [ryo, ryi] = tiles(s, &ol, &red[1], ("tile_ry", &tile_ry))?;
    let [rxo, rxi] = tiles(s, &ol, &red[2], ("tile_rx", &tile_rx))?;
    s.reorder(&ol, &[rco, ryo, rxo.clone(), rci, ryi, rxi, n, f, y, x])
        .map_err(te_err)?;
    s.compute_at(&aa, &ol, &rxo).map_err(te_err)?;
    s.compute_at(&ww, &ol, &rxo).map_err(te_err)?;

    // Cooperative fetching: the block's threads copy the tile together.
    for load in [&aa, &ww] {
        let axes = s.stage(load).map_err(te_err)?.op().axis().to_vec();
        let [n, f, y, x] = four(&axes, load.name())?;
        let fused = s.fuse(load, &n, &f).map_err(te_err)?;
        let fused = s.fuse(load, &fused, &y).map_err(te_err)?;
        let fused = s.fuse(load, &fused, &x).map_err(te_err)?;
        let (tz, fused) = s.split_nparts(load, &fused, tile_f[2]).map_err(te_err)?;
        let (ty, fused) = s.split_nparts(load, &fused, tile_y[2]).map_err(te_err)?;
        let (tx, _) = s.split_nparts(load, &fused, tile_x[2]).map_err(te_err)?;
        bind(s, load, &tz, &thread("threadIdx.z")?)?;
        bind(s, load, &ty, &thread("threadIdx.y")?)?;
        bind(s, load, &tx, &thread("threadIdx.x")?)?;
    }

    for (key, value) in [
        ("auto_unroll_max_step", max_step),
        ("unroll_explicit", explicit),
    ] {
        s.pragma(
            &output,
            &kernel_scope,
            key,
            Some(tir::PragmaValue::Int(value)),
        )
        .map_err(te_err)?;
    }

    // `cfg.add_flop(2 * N * OH * OW * CO * CI * KH * KW)` when the batch
    // is a constant.
    let dims = |t: &Tensor| {
        t.shape()
            .iter()
            .map(arith::Expr::as_int)
            .collect::<Vec<_>>()
    };
    if let ([Some(batch), Some(co), Some(oh), Some(ow)], [_, Some(kh), Some(kw), Some(ci)]) =
        (dims(&output).as_slice(), dims(&kernel).as_slice())
    {
        let flop = [*batch, *oh, *ow, *co, *ci, *kh, *kw]
            .iter()
            .fold(2.0, |acc, &d| acc * d as f64);
        cfg.borrow_mut().add_flop(flop);
    }
    Ok(())
}

/// `cfg[knob].apply(s, t, axis)`: the `N` loops of the split `size`,
/// outermost first.
fn tiles<const N: usize>(
    s: &mut Schedule,
    t: &Tensor,
    axis: &IterVar,
    (knob, size): (&str, &[i64]),
) -> ApiResult<[IterVar; N]> {
    let wrong = || {
        ApiError::value_error(format!(
            "the knob `{knob}` splits into {} parts where TOPI's schedule unpacks {N}",
            size.len()
        ))
    };
    if size.len() != N {
        return Err(wrong());
    }
    let parts = crate::autotvm::split_by_sizes(s, t, axis, size)?;
    <[IterVar; N]>::try_from(parts).map_err(|_| wrong())
}
