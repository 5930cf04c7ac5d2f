//! TOPI's pooling operators beyond `pool2d` (`tvm.topi.nn`), built as
//! TOPI v0.19's C++ (`include/tvm/topi/nn/pooling.h`) builds them, so that
//! schedules written against TOPI's output find what they expect:
//!
//! - `global_pool(data, pool_type, layout="NCHW")`: `adaptive_pool` to an
//!   output of 1 by 1;
//! - `adaptive_pool(data, output_size, pool_type, layout="NCHW")`,
//!   `adaptive_pool1d(..., layout="NCW")`, `adaptive_pool3d(...,
//!   layout="NCDHW")`: `adaptive_pool_max` (tag `adaptive_pool_max`), or
//!   `adaptive_pool_sum` (tag `adaptive_pool_sum`) then `adaptive_pool_avg`
//!   (tag `elemwise`); axes `ax0, ax1, ...`, reduction axes `rv0, rv1, ...`
//!   whose extent depends on the output index (TVM's `start_index` and
//!   `end_index`);
//! - `pool1d(data, kernel, stride, dilation, padding, pool_type,
//!   ceil_mode=False, layout="NCW", count_include_pad=True)` and `pool3d`
//!   (`layout="NCDHW"`): `pad_temp`, then `pool_max` or `pool_sum` and
//!   `pool_avg`, as `pool2d` builds them.

use crate::args::{Args, Bound, Given};
use crate::error::{te_error, type_error, ApiError, ApiResult, ArgRef, ErrorClass};
use crate::object::Object;
use crate::objects::{constant_value, promote, to_index};
use crate::topi_ops::tensor_arg;
use crate::value::Value;
use crate::Host;
use arith::Expr;
use te::{AttrValue, Attrs};

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolOp {
    /// `tvm.topi.nn.global_pool`.
    GlobalPool,
    /// `tvm.topi.nn.adaptive_pool` (height and width).
    AdaptivePool,
    /// `tvm.topi.nn.adaptive_pool1d` (width).
    AdaptivePool1d,
    /// `tvm.topi.nn.adaptive_pool3d` (depth, height and width).
    AdaptivePool3d,
    /// `tvm.topi.nn.pool1d`.
    Pool1d,
    /// `tvm.topi.nn.pool3d`.
    Pool3d,
}

impl PoolOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<PoolOp> {
        if !matches!(module_path, "tvm.topi.nn" | "tvm.topi.nn.pooling") {
            return None;
        }
        Some(match name {
            "global_pool" => PoolOp::GlobalPool,
            "adaptive_pool" => PoolOp::AdaptivePool,
            "adaptive_pool1d" => PoolOp::AdaptivePool1d,
            "adaptive_pool3d" => PoolOp::AdaptivePool3d,
            "pool1d" => PoolOp::Pool1d,
            "pool3d" => PoolOp::Pool3d,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            PoolOp::GlobalPool => "tvm.topi.nn.global_pool",
            PoolOp::AdaptivePool => "tvm.topi.nn.adaptive_pool",
            PoolOp::AdaptivePool1d => "tvm.topi.nn.adaptive_pool1d",
            PoolOp::AdaptivePool3d => "tvm.topi.nn.adaptive_pool3d",
            PoolOp::Pool1d => "tvm.topi.nn.pool1d",
            PoolOp::Pool3d => "tvm.topi.nn.pool3d",
        }
    }

    /// The layout letters of the pooled axes, in TOPI's order, and the
    /// default layout.
    fn axes(self) -> (&'static [char], &'static str) {
        match self {
            PoolOp::GlobalPool | PoolOp::AdaptivePool => (&['H', 'W'], "NCHW"),
            PoolOp::AdaptivePool1d | PoolOp::Pool1d => (&['W'], "NCW"),
            PoolOp::AdaptivePool3d | PoolOp::Pool3d => (&['D', 'H', 'W'], "NCDHW"),
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: PoolOp) -> ApiResult<Value> {
    let short = op.tvm_name().rsplit('.').next().unwrap_or("pool");
    match op {
        PoolOp::GlobalPool => {
            let a = args.bind(short, &["data", "pool_type", "layout"])?;
            let x = tensor_arg(a.required("data")?, short)?;
            let max = pool_type(a.required("pool_type")?)?;
            let axes = layout_axes(&a, op, x.ndim())?;
            let ones = vec![Expr::int(1); axes.len()];
            adaptive_pool(host, &x, &ones, max, &axes)
        }
        PoolOp::AdaptivePool | PoolOp::AdaptivePool1d | PoolOp::AdaptivePool3d => {
            let a = args.bind(short, &["data", "output_size", "pool_type", "layout"])?;
            let x = tensor_arg(a.required("data")?, short)?;
            let max = pool_type(a.required("pool_type")?)?;
            let axes = layout_axes(&a, op, x.ndim())?;
            let size_arg = a.required("output_size")?;
            let sizes = output_sizes(size_arg, axes.len())?;
            for (s, &ax) in sizes.iter().zip(&axes) {
                check_window_product(s, &x.shape()[ax]).map_err(|e| e.at(size_arg.at.clone()))?;
            }
            adaptive_pool(host, &x, &sizes, max, &axes)
        }
        PoolOp::Pool1d | PoolOp::Pool3d => {
            let a = args.bind(
                short,
                &[
                    "data",
                    "kernel",
                    "stride",
                    "dilation",
                    "padding",
                    "pool_type",
                    "ceil_mode",
                    "layout",
                    "count_include_pad",
                ],
            )?;
            let data_arg = a.required("data")?;
            let x = tensor_arg(data_arg, short)?;
            let axes = layout_axes(&a, op, x.ndim())?;
            let k = axes.len();
            let sizes = |name: &str, n: usize, least: i64| -> ApiResult<Vec<Expr>> {
                let g = a.required(name)?;
                let v = crate::topi_ops::index_list(g, name, n)?;
                bounded(v, name, least).map_err(|e| e.at(g.at.clone()))
            };
            let kernel = sizes("kernel", k, 1)?;
            let stride = sizes("stride", k, 1)?;
            let dilation = sizes("dilation", k, 1)?;
            let padding = sizes("padding", 2 * k, 0)?;
            let max = pool_type(a.required("pool_type")?)?;
            let flag = |name: &str, default: bool| {
                a.get(name)
                    .map_or(Ok(default), |g| crate::operators::truth(&g.value))
            };
            let ceil_mode = flag("ceil_mode", false)?;
            let count_include_pad = flag("count_include_pad", true)?;
            for (i, &ax) in axes.iter().enumerate() {
                check_window_fits(&x.shape()[ax], &kernel[i], &dilation[i], &padding, i, k)?;
            }
            crate::topi_ops::pool(
                host,
                &x,
                &axes,
                crate::topi_ops::Pool {
                    kernel,
                    stride,
                    dilation,
                    padding,
                    max,
                    ceil_mode,
                    count_include_pad,
                },
            )
            .map_err(|e| e.or_at(&data_arg.at))
        }
    }
}

/// `pool_type`: true for `"max"`, false for `"avg"`, given by name or by
/// TOPI's `POOL_TYPE_CODE` (the C++ operators' spelling).
fn pool_type(g: &Given) -> ApiResult<bool> {
    let name = crate::topi_ops::pool_type(g)?;
    match name.as_str() {
        "max" => Ok(true),
        "avg" => Ok(false),
        _ => Err(ApiError::value_error(format!(
            "unknown pool_type `{name}`: use \"max\" or \"avg\""
        ))
        .at(g.at.clone())),
    }
}

/// The positions of the pooled axes named by the `layout` argument, as
/// TOPI's `find_depth_height_width` reads a layout: upper-case letters
/// are axes, each pooled one must appear once and not be split (no
/// `d`, `h` or `w`), digits are skipped. The axes must exist in a tensor
/// of `ndim` dimensions.
fn layout_axes(a: &Bound, op: PoolOp, ndim: usize) -> ApiResult<Vec<usize>> {
    let (letters, default) = op.axes();
    let layout = match a.get("layout") {
        None => default.to_string(),
        Some(g) => match &g.value {
            Value::Str(s) => s.to_string(),
            other => {
                return Err(type_error(
                    g.place(),
                    format!("`layout` is a string, found a {}", other.type_name()),
                ))
            }
        },
    };
    let bad = |why: String| {
        ApiError::value_error(format!("Unsupported layout {layout}: {why}"))
            .at(ArgRef::Keyword("layout".into()))
    };
    let mut found: Vec<Option<usize>> = vec![None; letters.len()];
    for (position, c) in layout.chars().filter(char::is_ascii_alphabetic).enumerate() {
        if let Some(i) = letters.iter().position(|l| *l == c) {
            if found[i].is_some() {
                return Err(bad(format!("`{c}` appears twice")));
            }
            found[i] = Some(position);
        } else if letters.contains(&c.to_ascii_uppercase()) {
            return Err(bad(format!("the pooled axis `{c}` cannot be split")));
        }
    }
    let mut axes = Vec::with_capacity(letters.len());
    for (l, f) in letters.iter().zip(found) {
        match f {
            None => return Err(bad(format!("it has no `{l}` axis"))),
            Some(p) if p >= ndim => {
                return Err(bad(format!(
                    "its `{l}` axis is axis {p} of a {ndim}-dimensional tensor"
                )))
            }
            Some(p) => axes.push(p),
        }
    }
    Ok(axes)
}

/// Constant sizes must be int32s of at least `least` (TVM's `IntImm`s).
fn bounded(v: Vec<Expr>, what: &str, least: i64) -> ApiResult<Vec<Expr>> {
    for e in &v {
        if let Some(c) = constant_value(e) {
            if c < least || i32::try_from(c).is_err() {
                return Err(ApiError::value_error(format!(
                    "`{what}` holds {c}: each must be an int32 of at least {least}"
                )));
            }
        }
    }
    Ok(v)
}

/// `output_size`: `n` positive sizes (an integer stands for all of them).
fn output_sizes(g: &Given, n: usize) -> ApiResult<Vec<Expr>> {
    let items = match promote(&g.value) {
        v @ (Value::Int(_) | Value::Index(_)) => vec![v; n],
        v => v.sequence().ok_or_else(|| {
            type_error(
                g.place(),
                format!(
                    "`output_size` needs a list of {n} sizes, found a {}",
                    v.type_name()
                ),
            )
        })?,
    };
    if items.len() != n {
        return Err(ApiError::value_error(format!(
            "`output_size` needs {n} sizes, found {}",
            items.len()
        ))
        .at(g.at.clone()));
    }
    let sizes = items
        .into_iter()
        .map(|v| to_index(&g.item(v)))
        .collect::<ApiResult<Vec<_>>>()?;
    bounded(sizes, "output_size", 1).map_err(|e| e.at(g.at.clone()))
}

/// The window bounds compute `(out + 1) * in_size`: with both sizes
/// constant, it must not overflow int32, TVM's index type.
fn check_window_product(out: &Expr, input: &Expr) -> ApiResult<()> {
    if let (Some(o), Some(i)) = (constant_value(out), constant_value(input)) {
        let fits = o
            .checked_add(1)
            .and_then(|o| o.checked_mul(i))
            .is_some_and(|p| i32::try_from(p).is_ok());
        if !fits {
            return Err(ApiError::new(
                ErrorClass::OverflowError,
                format!(
                    "an output size of {o} over an input of {i} makes window bounds beyond int32"
                ),
            ));
        }
    }
    Ok(())
}

/// The dilated window must fit in the padded axis (else the output size
/// is zero or negative).
fn check_window_fits(
    size: &Expr,
    kernel: &Expr,
    dilation: &Expr,
    padding: &[Expr],
    i: usize,
    k: usize,
) -> ApiResult<()> {
    let c = |e: &Expr| constant_value(e);
    if let (Some(n), Some(kk), Some(d), Some(b), Some(a)) = (
        c(size),
        c(kernel),
        c(dilation),
        c(&padding[i]),
        c(&padding[i + k]),
    ) {
        let span = (kk - 1).checked_mul(d).and_then(|s| s.checked_add(1));
        let room = n.checked_add(b).and_then(|r| r.checked_add(a));
        match (span, room) {
            (Some(s), Some(r)) if s <= r => {}
            _ => {
                return Err(ApiError::value_error(format!(
                    "a window of {kk} with dilation {d} does not fit in an axis of {n} padded \
                     by {b} and {a}: use a smaller kernel or more padding"
                )))
            }
        }
    }
    Ok(())
}

/// `a // b` as TVM's `indexdiv` builds it: by 1 it is `a`, and two
/// constants fold.
fn index_div(a: Expr, b: &Expr) -> Expr {
    match (constant_value(&a), constant_value(b)) {
        (_, Some(1)) => a,
        (Some(x), Some(y)) if y != 0 => Expr::int(x.div_euclid(y)),
        _ => Expr::floor_div(a, b.clone()),
    }
}

/// `a % b` as TVM's `indexmod` builds it: by 1 it is 0, and two constants
/// fold.
fn index_mod(a: Expr, b: &Expr) -> Expr {
    match (constant_value(&a), constant_value(b)) {
        (_, Some(1)) => Expr::int(0),
        (Some(x), Some(y)) if y != 0 => Expr::int(x.rem_euclid(y)),
        _ => Expr::floor_mod(a, b.clone()),
    }
}

/// TVM's `start_index`: the first input element of output `o`'s window.
fn start_index(o: &Expr, out_size: &Expr, in_size: &Expr) -> Expr {
    index_div(o.clone() * in_size.clone(), out_size)
}

/// TVM's `end_index`: one past the last input element of output `o`'s
/// window (the division rounded up).
fn end_index(o: &Expr, out_size: &Expr, in_size: &Expr) -> Expr {
    let next = (o.clone() + 1) * in_size.clone();
    let tmp = index_div(next.clone(), out_size);
    let rem = index_mod(next, out_size);
    let exact = match constant_value(&rem) {
        Some(r) => Expr::bool(r == 0),
        None => Expr::eq(rem, Expr::int(0)),
    };
    Expr::select(exact, tmp.clone(), tmp + 1)
}

/// TOPI's `adaptive_pool_impl`: pools each of `axes` of `x` down to the
/// matching `out_size`, window `i` covering input elements
/// `[start_index, end_index)`.
fn adaptive_pool(
    host: &mut dyn Host,
    x: &te::Tensor,
    out_size: &[Expr],
    max: bool,
    axes: &[usize],
) -> ApiResult<Value> {
    let in_shape = x.shape().to_vec();
    let mut out_shape = in_shape.clone();
    for (s, &ax) in out_size.iter().zip(axes) {
        out_shape[ax] = s.clone();
    }
    let names: Vec<String> = (0..out_shape.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // The window of each pooled axis at the output index `o`: its start and
    // its extent.
    let windows = |o: &[Expr]| -> Vec<(Expr, Expr)> {
        axes.iter()
            .zip(out_size)
            .map(|(&ax, os)| {
                let start = start_index(&o[ax], os, &in_shape[ax]);
                let end = end_index(&o[ax], os, &in_shape[ax]);
                (start.clone(), end - start)
            })
            .collect()
    };
    let mut made: Vec<te::IterVar> = Vec::new();
    let mut reduction = |o: &[Expr], reduce: fn(te::Value, &[te::IterVar]) -> te::Value| {
        let mut idx = o.to_vec();
        let mut rvs = Vec::with_capacity(axes.len());
        for (i, ((start, extent), &ax)) in windows(o).into_iter().zip(axes).enumerate() {
            let rv = te::reduce_axis((Expr::int(0), extent), &format!("rv{i}"));
            idx[ax] = start + rv.expr();
            rvs.push(rv);
        }
        made.extend(rvs.iter().cloned());
        Ok::<_, te::TeError>(reduce(x.at(idx), &rvs))
    };
    let rule = |name: &str| {
        let mut attrs = Attrs::new();
        attrs.insert(
            "schedule_rule".to_string(),
            AttrValue::Str(format!("meta_schedule.{name}")),
        );
        attrs
    };
    if max {
        let out = te::try_compute_tagged(
            out_shape,
            &names,
            |o| reduction(o, te::max),
            "adaptive_pool_max",
            "adaptive_pool_max",
            rule("adaptive_pool_max"),
        )
        .map_err(|e| te_error(&None, e))?;
        crate::topi_ops::note_reduce_axes(host, &made);
        return Ok(Value::Object(Object::Tensor(out)));
    }
    let pool_sum = te::try_compute_tagged(
        out_shape.clone(),
        &names,
        |o| reduction(o, te::sum),
        "adaptive_pool_sum",
        "adaptive_pool_sum",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    crate::topi_ops::note_reduce_axes(host, &made);
    let dtype = x.dtype();
    let out = te::try_compute_tagged(
        out_shape,
        &names,
        |o| {
            // `cast(dtype, 1) * cast(dtype, extent) * ...`, the leading
            // one folded away as TVM folds it.
            let cast = |e: Expr| {
                if dtype == tir::DataType::Int32 {
                    te::Value::index(e)
                } else {
                    te::Value::cast(dtype, te::Value::index(e))
                }
            };
            let factor = windows(o)
                .into_iter()
                .map(|(_, extent)| cast(extent))
                .reduce(|a, b| te::Value::binary(te::BinaryOp::Mul, a, b))
                .unwrap_or_else(|| crate::objects::float_constant(1.0, dtype));
            Ok::<_, te::TeError>(te::Value::binary(
                te::BinaryOp::Div,
                pool_sum.at(o.to_vec()),
                factor,
            ))
        },
        "adaptive_pool_avg",
        "elemwise",
        rule("adaptive_pool_avg"),
    )
    .map_err(|e| te_error(&None, e))?;
    Ok(Value::Object(Object::Tensor(out)))
}
