//! TOPI's resizing operators (`tvm.topi.image`, `tvm.topi.nn.upsampling`),
//! each one stage named `resize` (tag `injective`) over axes `i0, i1, ...`:
//!
//! - `image.resize1d` (layouts `NCW`, `NWC`), `image.resize2d` (`NCHW`,
//!   `NHWC`, `NCHWxc`, `NCHWinic`), `image.resize3d` (`NCDHW`, `NDHWC`,
//!   `NCDHWxc`): methods `nearest_neighbor`, `linear`, `cubic`, every
//!   coordinate transformation mode and rounding method TOPI has;
//! - `nn.upsampling` (a `resize2d` by integer or float factors) and
//!   `nn.upsampling3d` (a `resize3d`);
//! - `cpp.utils.bilinear_sample_nchw` and `bilinear_sample_nhwc` (C++),
//!   not stages but the element TOPI's deformable convolution and ROI
//!   align sample: the four neighbours of a fractional point, weighted,
//!   each read only inside `[0, max_y] x [0, max_x]` (0 outside).
//!
//! Every operator is built as TOPI v0.19's Python builds it: the element
//! expression is made by the same sequence of operations on the same API
//! values TOPI's `image/resize.py` makes when it runs on this API (its
//! float-derived source coordinates, clamped, cast to `int32`), so the
//! lowered text is TOPI's, including the quirks of v0.19 (`resize3d`'s
//! `tf_crop_and_resize` ignores the depth bound; its cubic
//! `bicubic_exclude` weighs depth with the width's weights).

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ArgRef, ErrorClass};
use crate::functions::BuildFailure;
use crate::object::Object;
use crate::topi_ops::tensor_arg as tensor;
use crate::value::Value;
use crate::{BinaryOp, CmpOp, Host};
use arith::Expr;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageOp {
    /// `tvm.topi.image.resize1d`.
    Resize1d,
    /// `tvm.topi.image.resize2d`.
    Resize2d,
    /// `tvm.topi.image.resize3d`.
    Resize3d,
    /// `tvm.topi.nn.upsampling`.
    Upsampling,
    /// `tvm.topi.nn.upsampling3d`.
    Upsampling3d,
    /// `tvm.topi.cpp.utils.bilinear_sample_nchw`.
    BilinearSampleNchw,
    /// `tvm.topi.cpp.utils.bilinear_sample_nhwc`.
    BilinearSampleNhwc,
}

impl ImageOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<ImageOp> {
        let image = matches!(module_path, "tvm.topi.image" | "tvm.topi.image.resize");
        let nn = matches!(module_path, "tvm.topi.nn" | "tvm.topi.nn.upsampling");
        let cpp = module_path == "tvm.topi.cpp.utils";
        Some(match name {
            "bilinear_sample_nchw" if cpp => ImageOp::BilinearSampleNchw,
            "bilinear_sample_nhwc" if cpp => ImageOp::BilinearSampleNhwc,
            "resize1d" if image => ImageOp::Resize1d,
            "resize2d" if image => ImageOp::Resize2d,
            "resize3d" if image => ImageOp::Resize3d,
            "upsampling" if nn => ImageOp::Upsampling,
            "upsampling3d" if nn => ImageOp::Upsampling3d,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            ImageOp::Resize1d => "tvm.topi.image.resize1d",
            ImageOp::Resize2d => "tvm.topi.image.resize2d",
            ImageOp::Resize3d => "tvm.topi.image.resize3d",
            ImageOp::Upsampling => "tvm.topi.nn.upsampling",
            ImageOp::Upsampling3d => "tvm.topi.nn.upsampling3d",
            ImageOp::BilinearSampleNchw => "tvm.topi.cpp.utils.bilinear_sample_nchw",
            ImageOp::BilinearSampleNhwc => "tvm.topi.cpp.utils.bilinear_sample_nhwc",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: ImageOp) -> ApiResult<Value> {
    match op {
        ImageOp::Resize1d => resize_call(host, args, 1),
        ImageOp::Resize2d => resize_call(host, args, 2),
        ImageOp::Resize3d => resize_call(host, args, 3),
        ImageOp::Upsampling => upsampling(host, args, 2),
        ImageOp::Upsampling3d => upsampling(host, args, 3),
        ImageOp::BilinearSampleNchw => bilinear_sample(host, args, false),
        ImageOp::BilinearSampleNhwc => bilinear_sample(host, args, true),
    }
}

/// TOPI's C++ `bilinear_sample_nchw(input, indices, max_y, max_x)` (and
/// `_nhwc`): with `y`, `x` the (float) coordinates among `indices`,
/// the sum over the four points `(yp, xp)` around them of `wy * wx *
/// input(..., yp, xp, ...)` where `0 <= yp <= max_y` and `0 <= xp <=
/// max_x` (else 0), the weights being `1 - frac` at the floor and `frac`
/// above it; built with TVM's operators in TOPI's order.
fn bilinear_sample(host: &mut dyn Host, args: Args, nhwc: bool) -> ApiResult<Value> {
    let name = if nhwc {
        "bilinear_sample_nhwc"
    } else {
        "bilinear_sample_nchw"
    };
    let a = args.bind(name, &["input", "indices", "max_y", "max_x"])?;
    let input = tensor(a.required("input")?, name)?;
    let indices_arg = a.required("indices")?;
    let indices = indices_arg
        .value
        .sequence()
        .filter(|v| v.len() == 4 && input.ndim() == 4)
        .ok_or_else(|| {
            type_error(
                indices_arg.place(),
                format!("`{name}` samples a 4-dimensional tensor at 4 indices"),
            )
        })?;
    let (max_y, max_x) = (
        a.required("max_y")?.value.clone(),
        a.required("max_x")?.value.clone(),
    );
    let (y, x) = if nhwc {
        (&indices[1], &indices[2])
    } else {
        (&indices[2], &indices[3])
    };
    let mut py = Py { host };
    let y_low = py.int_of("tvm.te.floor", y)?;
    let x_low = py.int_of("tvm.te.floor", x)?;
    let (y_high, x_high) = (add(&y_low, &int(1))?, add(&x_low, &int(1))?);
    let (wy_h, wx_h) = (sub(y, &y_low)?, sub(x, &x_low)?);
    let (wy_l, wx_l) = (sub(&int(1), &wy_h)?, sub(&int(1), &wx_h)?);
    let mut val: Option<Value> = None;
    for (wx, xp) in [(&wx_l, &x_low), (&wx_h, &x_high)] {
        for (wy, yp) in [(&wy_l, &y_low), (&wy_h, &y_high)] {
            let mut inside = cmp(CmpOp::Le, &int(0), yp)?;
            for c in [
                cmp(CmpOp::Le, yp, &max_y)?,
                cmp(CmpOp::Le, &int(0), xp)?,
                cmp(CmpOp::Le, xp, &max_x)?,
            ] {
                inside = crate::logical(true, &inside, &c)?;
            }
            let mut at = indices.clone();
            if nhwc {
                at[1] = yp.clone();
                at[2] = xp.clone();
            } else {
                at[2] = yp.clone();
                at[3] = xp.clone();
            }
            let read = py.load(&input, at)?;
            let term = py.if_then_else(inside, mul(&mul(wx, wy)?, &read)?, int(0))?;
            // `PrimExpr val = 0; val += term`: TVM folds `0 + term` away.
            val = Some(match val {
                None => term,
                Some(v) => add(&v, &term)?,
            });
        }
    }
    Ok(val.expect("four terms"))
}

// ---- Python's operations on API values, as TOPI's code performs them ----

/// A Python number (`bool` counts as `int`), for the arithmetic Python
/// does itself rather than TVM.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

fn num(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::Int(*i)),
        Value::Bool(b) => Some(Num::Int(i64::from(*b))),
        Value::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// `a op b` as Python evaluates it: plain numbers by Python's rules (64-bit
/// integers, overflow an error), anything symbolic by TVM's operators.
fn bin(op: BinaryOp, a: &Value, b: &Value) -> ApiResult<Value> {
    let (Some(x), Some(y)) = (num(a), num(b)) else {
        return crate::binary(op, a, b);
    };
    let overflow = || {
        ApiError::new(
            ErrorClass::OverflowError,
            format!("integer overflow in `{}` of two sizes", op.symbol()),
        )
    };
    if let (Num::Int(p), Num::Int(q)) = (x, y) {
        if matches!(op, BinaryOp::FloorDiv | BinaryOp::Mod) && q == 0 {
            return Err(ApiError::new(
                ErrorClass::ZeroDivisionError,
                "integer division or modulo by zero",
            ));
        }
        // Python's `//` and `%` round toward negative infinity.
        let floor_div = |p: i64, q: i64| {
            let d = p.checked_div(q)?;
            Some(if p % q != 0 && (p < 0) != (q < 0) {
                d - 1
            } else {
                d
            })
        };
        let r = match op {
            BinaryOp::Add => p.checked_add(q),
            BinaryOp::Sub => p.checked_sub(q),
            BinaryOp::Mul => p.checked_mul(q),
            BinaryOp::FloorDiv => floor_div(p, q),
            BinaryOp::Mod => floor_div(p, q).and_then(|d| p.checked_sub(d.checked_mul(q)?)),
            BinaryOp::Div => None,
            _ => return crate::binary(op, a, b),
        };
        if op != BinaryOp::Div {
            return r.map(Value::Int).ok_or_else(overflow);
        }
    }
    let (p, q) = (as_f64(x), as_f64(y));
    Ok(Value::Float(match op {
        BinaryOp::Add => p + q,
        BinaryOp::Sub => p - q,
        BinaryOp::Mul => p * q,
        BinaryOp::Div | BinaryOp::Mod if q == 0.0 => {
            return Err(ApiError::new(
                ErrorClass::ZeroDivisionError,
                "float division by zero",
            ))
        }
        BinaryOp::Div => p / q,
        BinaryOp::Mod => p - q * (p / q).floor(),
        _ => return crate::binary(op, a, b),
    }))
}

/// `a op b` as Python evaluates it (for TOPI's other modules built the
/// same way).
pub(crate) fn python_binary(op: BinaryOp, a: &Value, b: &Value) -> ApiResult<Value> {
    bin(op, a, b)
}

/// `a op b` of a comparison as Python evaluates it.
pub(crate) fn python_compare(op: CmpOp, a: &Value, b: &Value) -> ApiResult<Value> {
    cmp(op, a, b)
}

fn add(a: &Value, b: &Value) -> ApiResult<Value> {
    bin(BinaryOp::Add, a, b)
}

fn sub(a: &Value, b: &Value) -> ApiResult<Value> {
    bin(BinaryOp::Sub, a, b)
}

fn mul(a: &Value, b: &Value) -> ApiResult<Value> {
    bin(BinaryOp::Mul, a, b)
}

fn div(a: &Value, b: &Value) -> ApiResult<Value> {
    bin(BinaryOp::Div, a, b)
}

/// `-a`.
fn neg(a: &Value) -> ApiResult<Value> {
    match num(a) {
        Some(Num::Int(i)) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| ApiError::new(ErrorClass::OverflowError, "integer overflow in `-`")),
        Some(Num::Float(f)) => Ok(Value::Float(-f)),
        None => crate::unary(crate::UnaryOp::Neg, a),
    }
}

/// `a op b` of a comparison.
fn cmp(op: CmpOp, a: &Value, b: &Value) -> ApiResult<Value> {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => Ok(Value::Bool(op.apply(as_f64(x), as_f64(y)))),
        _ => crate::compare(op, a, b),
    }
}

/// Python's `sum(items)`: from the integer 0.
fn sum(items: &[Value]) -> ApiResult<Value> {
    items.iter().try_fold(Value::Int(0), |acc, v| add(&acc, v))
}

fn int(i: i64) -> Value {
    Value::Int(i)
}

fn float(f: f64) -> Value {
    Value::Float(f)
}

/// Calls TVM's functions and methods on API values through the API, as
/// TOPI's Python calls them.
struct Py<'h> {
    host: &'h mut dyn Host,
}

impl Py<'_> {
    /// `path(*args)`, e.g. `te.floor(x)`.
    fn f(&mut self, path: &str, args: Vec<Value>) -> ApiResult<Value> {
        let f = crate::resolve(path).ok_or_else(|| {
            ApiError::not_supported(format!("`{path}` is not provided by rangefinder"))
        })?;
        crate::call(self.host, &f, Args::positional(args))
    }

    /// `v.astype(dtype)`.
    fn astype(&mut self, v: &Value, dtype: &Value) -> ApiResult<Value> {
        let m = crate::get_attr(v, "astype")?;
        crate::call(self.host, &m, Args::positional(vec![dtype.clone()]))
    }

    /// `v.astype("float")`, TOPI's spelling of `float32`.
    fn as_float(&mut self, v: &Value) -> ApiResult<Value> {
        self.astype(v, &Value::str("float"))
    }

    /// `te.floor(v).astype("int32")` and the like.
    fn int_of(&mut self, intrinsic: &str, v: &Value) -> ApiResult<Value> {
        let r = self.f(intrinsic, vec![v.clone()])?;
        self.astype(&r, &Value::str("int32"))
    }

    fn if_then_else(&mut self, c: Value, t: Value, f: Value) -> ApiResult<Value> {
        self.f("tvm.tir.if_then_else", vec![c, t, f])
    }

    /// `data(*indices)`: an element of the tensor.
    fn load(&mut self, data: &te::Tensor, indices: Vec<Value>) -> ApiResult<Value> {
        let t = Value::Object(Object::Tensor(data.clone()));
        crate::call(self.host, &t, Args::positional(indices))
    }
}

// ---- the options of a resize ----

/// An interpolation method, after `method.lower()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Nearest,
    Linear,
    Cubic,
}

/// How an output coordinate maps to an input coordinate (ONNX's
/// `coordinate_transformation_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    HalfPixel,
    AlignCorners,
    Asymmetric,
    PytorchHalfPixel,
    TfHalfPixelForNn,
    TfCropAndResize,
}

impl Mode {
    fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "half_pixel" => Mode::HalfPixel,
            "align_corners" => Mode::AlignCorners,
            "asymmetric" => Mode::Asymmetric,
            "pytorch_half_pixel" => Mode::PytorchHalfPixel,
            "tf_half_pixel_for_nn" => Mode::TfHalfPixelForNn,
            "tf_crop_and_resize" => Mode::TfCropAndResize,
            _ => return None,
        })
    }
}

/// How `nearest_neighbor` picks the input pixel from a float coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rounding {
    Round,
    RoundPreferFloor,
    RoundPreferCeil,
    Floor,
    Ceil,
}

impl Rounding {
    fn parse(s: &str) -> Option<Rounding> {
        Some(match s {
            "round" => Rounding::Round,
            "round_prefer_floor" => Rounding::RoundPreferFloor,
            "round_prefer_ceil" => Rounding::RoundPreferCeil,
            "floor" => Rounding::Floor,
            "ceil" => Rounding::Ceil,
            _ => return None,
        })
    }
}

/// Where the channel axes are among a tensor's axes, which decides how
/// TOPI splits the output indices and indexes the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channels {
    /// `N, spatial..., C` (`NHWC`).
    Last,
    /// `N, C, spatial...` (`NCHW`).
    First,
    /// `N, C, spatial..., c` (`NCHW16c`).
    Blocked,
    /// `N, C, spatial..., n, c` (`NCHW1n16c`, TOPI's "pack" layouts).
    Packed,
}

impl Channels {
    /// The number of axes beyond batch, channel and the spatial ones.
    fn extra(self) -> usize {
        match self {
            Channels::Last | Channels::First => 0,
            Channels::Blocked => 1,
            Channels::Packed => 2,
        }
    }
}

/// TOPI's layout tests for `dims` spatial axes: which of its layouts
/// `layout` is, or why it is none.
fn channels(layout: &str, dims: usize) -> ApiResult<Channels> {
    let (first, last) = match dims {
        1 => ("NCW", "NWC"),
        2 => ("NCHW", "NHWC"),
        _ => ("NCDHW", "NDHWC"),
    };
    if layout == last {
        return Ok(Channels::Last);
    }
    if layout == first {
        return Ok(Channels::First);
    }
    let bad = || {
        ApiError::value_error(format!(
            "{layout} layout is not supported: use {first}, {last}{}",
            match dims {
                1 => " (TOPI v0.19's resize1d fails on its blocked layouts)",
                2 => ", a blocked layout such as NCHW16c or a packed one such as NCHW1n16c",
                _ => " or a blocked layout such as NCDHW16c",
            }
        ))
        .at(ArgRef::Keyword("layout".into()))
    };
    // TOPI v0.19's resize1d tests its blocked layouts with functions its
    // module does not import: those layouts fail there.
    if dims == 1 || !layout.starts_with(first) {
        return Err(bad());
    }
    let rest = &layout[first.len()..];
    if dims == 3 {
        // TOPI's resize3d takes any other layout as `NCDHWxc`.
        return if rest.ends_with('c')
            && rest.len() > 1
            && rest[..rest.len() - 1].chars().all(|c| c.is_ascii_digit())
        {
            Ok(Channels::Blocked)
        } else {
            Err(bad())
        };
    }
    // `nchw_pack_layout`, then `nchw_xc_layout`, as TOPI tests them.
    if layout.contains('c') && layout.contains('n') {
        return Ok(Channels::Packed);
    }
    let middle = layout
        .get(first.len()..layout.len().saturating_sub(1))
        .unwrap_or("");
    if layout.contains('c') && !middle.is_empty() && middle.chars().all(|c| c.is_numeric()) {
        return Ok(Channels::Blocked);
    }
    Err(bad())
}

/// A resize's options, checked.
struct Options {
    dims: usize,
    channels: Channels,
    method: Method,
    mode: Mode,
    /// The rounding of `nearest_neighbor`, its default resolved.
    rounding: Rounding,
    alpha: Value,
    exclude: bool,
    extrapolation: Value,
    /// `out_dtype` if given (truthy), else the input's type name.
    dtype: Value,
}

fn string(g: Option<&Given>, default: &str, what: &str) -> ApiResult<String> {
    match g {
        None => Ok(default.to_string()),
        Some(g) => match &g.value {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(type_error(
                g.place(),
                format!("`{what}` must be a string, found a {}", other.type_name()),
            )),
        },
    }
}

/// A number argument (a Python number or an expression), given or not.
fn scalar(g: Option<&Given>, default: Value, what: &str) -> ApiResult<Value> {
    let Some(g) = g else { return Ok(default) };
    let v = crate::objects::promote(&g.value);
    match v {
        Value::Int(_) | Value::Bool(_) | Value::Float(_) | Value::Index(_) => Ok(v),
        Value::Object(Object::Element(_)) => Ok(v),
        other => Err(type_error(
            g.place(),
            format!("`{what}` must be a number, found a {}", other.type_name()),
        )),
    }
}

/// The names of `resize1d`/`2d`/`3d`'s parameters, in TOPI's order.
const RESIZE_PARAMS: [&str; 12] = [
    "data",
    "roi",
    "size",
    "layout",
    "method",
    "coordinate_transformation_mode",
    "rounding_method",
    "bicubic_alpha",
    "bicubic_exclude",
    "extrapolation_value",
    "out_dtype",
    "output_shape",
];

/// `image.resize{dims}d(data, roi, size, layout=..., method="linear",
/// coordinate_transformation_mode="half_pixel", rounding_method="",
/// bicubic_alpha=-0.5, bicubic_exclude=0, extrapolation_value=0.0,
/// out_dtype=None, output_shape=None)`.
fn resize_call(host: &mut dyn Host, args: Args, dims: usize) -> ApiResult<Value> {
    let name = ["resize1d", "resize2d", "resize3d"][dims - 1];
    let a = args.bind(name, &RESIZE_PARAMS)?;
    let data = tensor(a.required("data")?, name)?;
    let layout = string(
        a.get("layout"),
        ["NCW", "NCHW", "NCDHW"][dims - 1],
        "layout",
    )?;
    let method = string(a.get("method"), "linear", "method")?;
    let mode = string(
        a.get("coordinate_transformation_mode"),
        "half_pixel",
        "coordinate_transformation_mode",
    )?;
    let rounding = string(a.get("rounding_method"), "", "rounding_method")?;
    let alpha = scalar(a.get("bicubic_alpha"), float(-0.5), "bicubic_alpha")?;
    let exclude = match a.get("bicubic_exclude") {
        None => false,
        Some(g) => crate::truth(&g.value)?,
    };
    let extrapolation = scalar(
        a.get("extrapolation_value"),
        float(0.0),
        "extrapolation_value",
    )?;
    let out_dtype = match a.get("out_dtype") {
        Some(g) if crate::truth(&g.value)? => {
            crate::casts::dtype_arg(g)?;
            g.value.clone()
        }
        _ => Value::str(data.dtype().name()),
    };
    let output_shape = a
        .get("output_shape")
        .filter(|g| !matches!(g.value, Value::None));
    let place = Resize {
        roi: a.required("roi")?,
        size: a.required("size")?,
        output_shape,
    };
    let method = method.to_lowercase();
    let method = match method.as_str() {
        "nearest_neighbor" => Method::Nearest,
        "linear" => Method::Linear,
        "cubic" => Method::Cubic,
        _ => {
            return Err(ApiError::value_error(format!(
                "Unknown resize method: {method} (use \"nearest_neighbor\", \"linear\" or \
                 \"cubic\")"
            ))
            .at(ArgRef::Keyword("method".into())))
        }
    };
    let mode = Mode::parse(&mode).ok_or_else(|| {
        ApiError::value_error(format!(
            "Unsupported coordinate_transformation_mode: {mode} (use half_pixel, \
             align_corners, asymmetric, pytorch_half_pixel, tf_half_pixel_for_nn or \
             tf_crop_and_resize)"
        ))
        .at(ArgRef::Keyword("coordinate_transformation_mode".into()))
    })?;
    let rounding = match rounding.as_str() {
        "" if mode == Mode::AlignCorners => Rounding::Round,
        "" => Rounding::Floor,
        // Only `nearest_neighbor` rounds, and only it checks the name.
        s => match Rounding::parse(s) {
            Some(r) => r,
            None if method != Method::Nearest => Rounding::Floor,
            None => {
                return Err(ApiError::value_error(format!(
                    "Unknown rounding method: {s} (use round, round_prefer_floor, \
                     round_prefer_ceil, floor or ceil)"
                ))
                .at(ArgRef::Keyword("rounding_method".into())))
            }
        },
    };
    let options = Options {
        dims,
        channels: channels(&layout, dims)?,
        method,
        mode,
        rounding,
        alpha,
        exclude,
        extrapolation,
        dtype: out_dtype,
    };
    resize(host, &data, place, &options)
}

/// The arguments of a resize that say where and how large.
struct Resize<'a> {
    roi: &'a Given,
    size: &'a Given,
    output_shape: Option<&'a Given>,
}

/// A size TVM would have folded to a constant: `int32(round(56.0))` (what
/// TOPI's `upsampling` makes of `te.round`, `topi.cast` and `simplify` of
/// constants) is the `IntImm` 56, as TVM's constant folding makes it. Any
/// other value is returned as it is.
fn folded(v: &Value) -> Value {
    fn number(v: &te::Value) -> Option<f64> {
        match v.kind() {
            te::ValueKind::Float(f) => Some(*f),
            te::ValueKind::Index(e) => e.as_int().map(|i| i as f64),
            te::ValueKind::Cast(dt, inner) if dt.is_float() => number(inner),
            te::ValueKind::Cast(dt, inner) if dt.is_int() => number(inner).map(f64::trunc),
            te::ValueKind::Call(f, args) if args.len() == 1 => {
                let x = number(&args[0])?;
                match f {
                    tir::Intrinsic::Round => Some(x.round_ties_even()),
                    tir::Intrinsic::Floor => Some(x.floor()),
                    tir::Intrinsic::Ceil => Some(x.ceil()),
                    _ => None,
                }
            }
            _ => None,
        }
    }
    match v {
        Value::Object(Object::Element(e)) if e.dtype().is_int() => match number(e) {
            Some(x) if x.is_finite() && x.abs() < 9.0e15 => Value::Index(Expr::int(x as i64)),
            _ => v.clone(),
        },
        _ => v.clone(),
    }
}

/// The largest size a resized axis may have: TVM's shapes are `int32`.
const MAX_SIZE: i64 = i32::MAX as i64;

/// A constant size must be positive and fit in `int32`.
fn check_size(v: &Value, what: &str) -> ApiResult<()> {
    let c = match v {
        Value::Int(i) => Some(*i),
        Value::Index(e) => crate::objects::constant_value(e),
        _ => None,
    };
    match c {
        Some(c) if !(1..=MAX_SIZE).contains(&c) => Err(ApiError::value_error(format!(
            "`{what}` holds {c}: a resized axis needs a size from 1 to {MAX_SIZE}"
        ))),
        _ => Ok(()),
    }
}

fn resize(host: &mut dyn Host, data: &te::Tensor, r: Resize, o: &Options) -> ApiResult<Value> {
    let dims = o.dims;
    let rank = 2 + dims + o.channels.extra();
    if data.ndim() != rank {
        return Err(ApiError::value_error(format!(
            "`data` has {} dimensions but its layout needs {rank}",
            data.ndim()
        ))
        .at(ArgRef::Positional(0)));
    }
    // The positions of the spatial axes in `data` and in the output.
    let first_spatial = if o.channels == Channels::Last { 1 } else { 2 };
    let shape = crate::objects::shape_value(data.shape())
        .sequence()
        .unwrap_or_default();
    let images: Vec<Value> = shape[first_spatial..first_spatial + dims].to_vec();

    let size_items = r.size.value.sequence().ok_or_else(|| {
        type_error(
            r.size.place(),
            format!(
                "`size` needs a tuple of {dims} sizes, found a {}",
                r.size.value.type_name()
            ),
        )
    })?;
    if size_items.len() < dims {
        return Err(ApiError::new(
            ErrorClass::IndexError,
            format!(
                "`size` has {} values; a {dims}-dimensional resize needs {dims}",
                size_items.len()
            ),
        )
        .at(r.size.at.clone()));
    }
    let mut raw_size = Vec::with_capacity(dims);
    for v in &size_items[..dims] {
        let v = folded(&crate::objects::promote(v));
        if !matches!(v, Value::Int(_) | Value::Bool(_) | Value::Index(_)) {
            return Err(type_error(
                r.size.place(),
                format!(
                    "`size` needs integers or integer expressions, found a {}",
                    v.type_name()
                ),
            ));
        }
        check_size(&v, "size")?;
        raw_size.push(v);
    }
    let roi_items = r.roi.value.sequence().ok_or_else(|| {
        type_error(
            r.roi.place(),
            format!(
                "`roi` needs {} numbers, found a {}",
                2 * dims,
                r.roi.value.type_name()
            ),
        )
    })?;
    if roi_items.len() != 2 * dims {
        return Err(ApiError::value_error(format!(
            "`roi` has {} values; a {dims}-dimensional resize takes {} (the starts, then the \
             ends, of each spatial axis)",
            roi_items.len(),
            2 * dims
        ))
        .at(r.roi.at.clone()));
    }
    for v in &roi_items {
        if !matches!(
            crate::objects::promote(v),
            Value::Int(_)
                | Value::Bool(_)
                | Value::Float(_)
                | Value::Index(_)
                | Value::Object(Object::Element(_))
        ) {
            return Err(type_error(
                r.roi.place(),
                format!("`roi` needs numbers, found a {}", v.type_name()),
            ));
        }
    }

    // The output's shape: the input's with the spatial sizes replaced,
    // unless given (TOPI's resize3d ignores a given one).
    let out_shape: Vec<Value> = match r.output_shape {
        Some(g) if dims != 3 => {
            let items = g.value.sequence().ok_or_else(|| {
                type_error(
                    g.place(),
                    format!(
                        "`output_shape` needs a list of sizes, found a {}",
                        g.value.type_name()
                    ),
                )
            })?;
            if items.len() != rank {
                return Err(ApiError::value_error(format!(
                    "`output_shape` has {} sizes; the output has {rank} dimensions",
                    items.len()
                ))
                .at(g.at.clone()));
            }
            items.iter().map(folded).collect()
        }
        _ => {
            let mut s = shape.clone();
            s[first_spatial..first_spatial + dims].clone_from_slice(&raw_size);
            s
        }
    };
    let mut out_dims = Vec::with_capacity(rank);
    for v in &out_shape {
        let e = crate::objects::to_index(&Given {
            value: v.clone(),
            at: ArgRef::Keyword("output_shape".into()),
        })?;
        check_size(&Value::Index(e.clone()), "output_shape")?;
        out_dims.push(e);
    }

    // `isinstance(size[i], int)`: a Python integer becomes an `IntImm`.
    let targets: Vec<Value> = raw_size
        .into_iter()
        .map(|v| match v {
            Value::Int(i) => Value::Index(Expr::int(i)),
            Value::Bool(b) => Value::Index(Expr::int(i64::from(b))),
            other => other,
        })
        .collect();
    // The start and end of the region of interest along each spatial axis,
    // outermost first, as TOPI pairs them.
    let roi: Vec<(Value, Value)> = match dims {
        1 => vec![(roi_items[0].clone(), roi_items[1].clone())],
        2 => vec![
            (roi_items[0].clone(), roi_items[2].clone()),
            (roi_items[1].clone(), roi_items[3].clone()),
        ],
        _ => vec![
            (roi_items[2].clone(), roi_items[5].clone()),
            (roi_items[1].clone(), roi_items[4].clone()),
            (roi_items[0].clone(), roi_items[3].clone()),
        ],
    };
    let tag = crate::tags::compute_tag(
        host,
        Some(&Given {
            value: Value::str("injective"),
            at: ArgRef::Keyword("tag".into()),
        }),
    )?;
    let names: Vec<String> = (0..rank).map(|d| format!("i{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let geometry = Geometry {
        data,
        images: &images,
        targets: &targets,
        roi: &roi,
    };
    let out = te::try_compute_tagged::<BuildFailure>(
        out_dims,
        &names,
        |idx| {
            let idx: Vec<Value> = idx.iter().map(|e| Value::Index(e.clone())).collect();
            let mut py = Py { host: &mut *host };
            let v = element(&mut py, &idx, &geometry, o).map_err(BuildFailure::Host)?;
            crate::objects::to_element(&v, None).map_err(BuildFailure::Host)
        },
        "resize",
        &tag,
        te::Attrs::new(),
    )
    .map_err(ApiError::from)?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// What the element of a resize reads from: the input, its spatial sizes,
/// the target sizes (`IntImm`s or expressions) and the region of interest,
/// each outermost axis first.
struct Geometry<'a> {
    data: &'a te::Tensor,
    images: &'a [Value],
    targets: &'a [Value],
    roi: &'a [(Value, Value)],
}

/// The output index split as TOPI's `get_Nd_indices` splits it: batch,
/// channel, the spatial coordinates, then the inner channel axes.
struct Indices {
    n: Value,
    c: Value,
    spatial: Vec<Value>,
    inner: Vec<Value>,
}

fn split_indices(idx: &[Value], o: &Options) -> Indices {
    let d = o.dims;
    match o.channels {
        Channels::Last => Indices {
            n: idx[0].clone(),
            c: idx[d + 1].clone(),
            spatial: idx[1..=d].to_vec(),
            inner: Vec::new(),
        },
        _ => Indices {
            n: idx[0].clone(),
            c: idx[1].clone(),
            spatial: idx[2..2 + d].to_vec(),
            inner: idx[2 + d..].to_vec(),
        },
    }
}

/// TOPI's `get_Nd_pixel`: the input at the coordinates clamped to the
/// image, as `float32`.
fn pixel(
    py: &mut Py,
    g: &Geometry,
    o: &Options,
    ix: &Indices,
    coords: &[Value],
) -> ApiResult<Value> {
    let mut clamped = Vec::with_capacity(coords.len());
    for (x, image) in coords.iter().zip(g.images) {
        let hi = sub(image, &int(1))?;
        let m = py.f("tvm.te.min", vec![x.clone(), hi])?;
        clamped.push(py.f("tvm.te.max", vec![m, int(0)])?);
    }
    let mut at = vec![ix.n.clone()];
    if o.channels == Channels::Last {
        at.extend(clamped);
        at.push(ix.c.clone());
    } else {
        at.push(ix.c.clone());
        at.extend(clamped);
        at.extend(ix.inner.iter().cloned());
    }
    let v = py.load(g.data, at)?;
    py.as_float(&v)
}

/// TOPI's `get_inx`: the input coordinate (a float expression) of output
/// coordinate `x` along an axis of `image` pixels resized to `target`.
#[allow(clippy::too_many_arguments)]
fn input_coordinate(
    py: &mut Py,
    x: &Value,
    image: &Value,
    target: &Value,
    mode: Mode,
    (start, end): &(Value, Value),
    use_int_div: bool,
) -> ApiResult<Value> {
    let image_f = py.as_float(image)?;
    let target_f = py.as_float(target)?;
    let scale = py.f("tvm.te.div", vec![image_f, target_f])?;
    let half = float(0.5);
    match mode {
        Mode::HalfPixel => sub(&mul(&add(x, &half)?, &scale)?, &half),
        Mode::AlignCorners => {
            let span = py.as_float(&sub(image, &int(1))?)?;
            mul(&div(&span, &sub(target, &int(1))?)?, x)
        }
        Mode::Asymmetric if use_int_div => {
            let factor = py.f("tvm.te.div", vec![target.clone(), image.clone()])?;
            py.f("tvm.te.div", vec![x.clone(), factor])
        }
        Mode::Asymmetric => mul(&scale, x),
        Mode::PytorchHalfPixel => {
            let c = cmp(CmpOp::Gt, target, &int(1))?;
            let t = sub(&mul(&add(x, &half)?, &scale)?, &half)?;
            py.if_then_else(c, t, float(0.0))
        }
        Mode::TfHalfPixelForNn => mul(&add(x, &half)?, &scale),
        Mode::TfCropAndResize => {
            let c = cmp(CmpOp::Gt, target, &int(1))?;
            let span = sub(image, &int(1))?;
            let span_f = py.as_float(&span)?;
            let t = add(
                &mul(start, &span)?,
                &div(
                    &mul(&mul(x, &sub(end, start)?)?, &span_f)?,
                    &sub(target, &int(1))?,
                )?,
            )?;
            let f = mul(&mul(&half, &add(start, end)?)?, &span)?;
            py.if_then_else(c, t, f)
        }
    }
}

/// TOPI's `get_closest_index`: the `int32` pixel nearest a coordinate.
fn closest_index(py: &mut Py, x: &Value, r: Rounding, use_int_div: bool) -> ApiResult<Value> {
    if use_int_div {
        return py.astype(x, &Value::str("int32"));
    }
    let epsilon = float(1e-5);
    match r {
        Rounding::Round => py.int_of("tvm.te.round", x),
        Rounding::RoundPreferFloor => py.int_of("tvm.te.ceil", &sub(x, &float(0.5))?),
        Rounding::RoundPreferCeil => py.int_of("tvm.te.floor", &add(x, &float(0.5))?),
        Rounding::Floor => py.int_of("tvm.te.floor", &add(x, &epsilon)?),
        Rounding::Ceil => py.int_of("tvm.te.ceil", &sub(x, &epsilon)?),
    }
}

/// TOPI's `can_convert_multiply_to_intdiv`: whether `asymmetric` nearest
/// resizing by an integer factor may use integer division.
fn can_use_int_div(py: &mut Py, image: &Value, target: &Value) -> ApiResult<bool> {
    let is_int_imm = match target {
        Value::Int(_) => true,
        Value::Index(e) => e.ty() != arith::Type::Bool && e.as_int().is_some(),
        _ => false,
    };
    if !is_int_imm {
        return Ok(false);
    }
    let image_f = py.as_float(image)?;
    let factor = div(target, &image_f)?;
    let value = crate::get_attr(&factor, "value").map_err(|_| {
        ApiError::not_supported(format!(
            "`nearest_neighbor` with `asymmetric` coordinates needs a constant input size \
             (TOPI reads the scale factor's `.value`), found `{}`",
            crate::str(image)
        ))
    })?;
    let fraction = bin(BinaryOp::Mod, &value, &int(1))?;
    if crate::truth(&cmp(CmpOp::Ne, &fraction, &int(0))?)? {
        return Ok(false);
    }
    let epsilon = float(1e-5);
    let check = div(&int(1), &add(&mul(&epsilon, image)?, &epsilon)?)?;
    Ok(!crate::truth(&cmp(CmpOp::Gt, &factor, &check)?)?)
}

/// `te.any(a, b)`: TVM's `Or`. The conditions compare float-derived
/// coordinates, so they are element expressions, which this API's
/// `te.any` does not take; they are joined as TVM joins them.
fn any(py: &mut Py, a: Value, b: Value) -> ApiResult<Value> {
    if crate::objects::is_element(&a) || crate::objects::is_element(&b) {
        let x = crate::objects::to_element(&a, None)?;
        let y = crate::objects::to_element(&b, None)?;
        return Ok(crate::objects::element(te::Value::or(x, y)));
    }
    py.f("tvm.te.any", vec![a, b])
}

/// `A * (1.0 - t) + B * t`.
fn lerp(a: &Value, b: &Value, t: &Value) -> ApiResult<Value> {
    add(&mul(a, &sub(&float(1.0), t)?)?, &mul(b, t)?)
}

/// TOPI's `_cubic_spline_weights(t, alpha)`.
fn cubic_weights(t: &Value, alpha: &Value) -> ApiResult<Vec<Value>> {
    let t2 = mul(t, t)?;
    let t3 = mul(&mul(t, t)?, t)?;
    let w1 = mul(alpha, &add(&sub(&t3, &mul(&int(2), &t2)?)?, t)?)?;
    let w2 = add(
        &sub(
            &mul(&add(alpha, &int(2))?, &t3)?,
            &mul(&add(&int(3), alpha)?, &t2)?,
        )?,
        &int(1),
    )?;
    let w3 = sub(
        &add(
            &mul(&neg(&add(alpha, &int(2))?)?, &t3)?,
            &mul(&add(&int(3), &mul(&int(2), alpha)?)?, &t2)?,
        )?,
        &mul(alpha, t)?,
    )?;
    let w4 = add(&mul(&neg(alpha)?, &t3)?, &mul(alpha, &t2)?)?;
    Ok(vec![w1, w2, w3, w4])
}

/// TOPI's `_cubic_kernel`: `sum(a_i * w_i)`.
fn cubic_kernel(inputs: &[Value], w: &[Value]) -> ApiResult<Value> {
    let products = inputs
        .iter()
        .zip(w)
        .map(|(a, b)| mul(a, b))
        .collect::<ApiResult<Vec<_>>>()?;
    sum(&products)
}

/// Interpolates over axes `axis..` of the neighbourhood `at + offsets`,
/// innermost axis first, as TOPI nests its `_lerp` / `_cubic_kernel`
/// calls: `corner` gives the pixel at per-axis offsets, `combine` the
/// interpolation of the values along one axis.
fn interpolate(
    axis: usize,
    dims: usize,
    offsets: &mut Vec<i64>,
    taps: i64,
    combine: &mut dyn FnMut(usize, &[Value]) -> ApiResult<Value>,
    corner: &mut dyn FnMut(&[i64]) -> ApiResult<Value>,
) -> ApiResult<Value> {
    let mut values = Vec::with_capacity(taps as usize);
    for k in 0..taps {
        offsets.push(k);
        let v = if axis + 1 == dims {
            corner(offsets)?
        } else {
            interpolate(axis + 1, dims, offsets, taps, combine, corner)?
        };
        offsets.pop();
        values.push(v);
    }
    combine(axis, &values)
}

/// The element of the output at `idx`: TOPI's `_resize_Nd`.
fn element(py: &mut Py, idx: &[Value], g: &Geometry, o: &Options) -> ApiResult<Value> {
    let dims = o.dims;
    let ix = split_indices(idx, o);
    let nearest_asymmetric = o.method == Method::Nearest && o.mode == Mode::Asymmetric;
    let mut use_int_div = vec![false; dims];
    if dims == 2 && nearest_asymmetric {
        for (flag, (image, target)) in use_int_div.iter_mut().zip(g.images.iter().zip(g.targets)) {
            *flag = can_use_int_div(py, image, target)?;
        }
    }
    let mut coords = Vec::with_capacity(dims);
    for (d, &int_div) in use_int_div.iter().enumerate() {
        coords.push(input_coordinate(
            py,
            &ix.spatial[d],
            &g.images[d],
            &g.targets[d],
            o.mode,
            &g.roi[d],
            int_div,
        )?);
    }
    let mut value = match o.method {
        Method::Nearest => {
            let mut closest = Vec::with_capacity(dims);
            for d in 0..dims {
                closest.push(closest_index(py, &coords[d], o.rounding, use_int_div[d])?);
            }
            pixel(py, g, o, &ix, &closest)?
        }
        Method::Linear => {
            let mut ints = Vec::with_capacity(dims);
            let mut lerps = Vec::with_capacity(dims);
            for x in &coords {
                let i = py.int_of("tvm.te.floor", x)?;
                lerps.push(sub(x, &i)?);
                ints.push(i);
            }
            let mut corner = |offsets: &[i64]| -> ApiResult<Value> {
                let at = ints
                    .iter()
                    .zip(offsets)
                    .map(|(i, k)| add(i, &int(*k)))
                    .collect::<ApiResult<Vec<_>>>()?;
                pixel(py, g, o, &ix, &at)
            };
            let mut combine = |axis: usize, v: &[Value]| lerp(&v[0], &v[1], &lerps[axis]);
            interpolate(0, dims, &mut Vec::new(), 2, &mut combine, &mut corner)?
        }
        Method::Cubic => {
            let mut ints = Vec::with_capacity(dims);
            let mut weights = Vec::with_capacity(dims);
            for x in &coords {
                let i = py.int_of("tvm.te.floor", x)?;
                let fract = sub(x, &py.f("tvm.te.floor", vec![x.clone()])?)?;
                weights.push(cubic_weights(&fract, &o.alpha)?);
                ints.push(i);
            }
            if o.exclude {
                exclude_outside(py, g, dims, &ints, &mut weights)?;
            }
            let mut corner = |offsets: &[i64]| -> ApiResult<Value> {
                let at = ints
                    .iter()
                    .zip(offsets)
                    .map(|(i, k)| sub(&add(i, &int(*k))?, &int(1)))
                    .collect::<ApiResult<Vec<_>>>()?;
                pixel(py, g, o, &ix, &at)
            };
            let mut combine = |axis: usize, v: &[Value]| cubic_kernel(v, &weights[axis]);
            interpolate(0, dims, &mut Vec::new(), 4, &mut combine, &mut corner)?
        }
    };
    if o.mode == Mode::TfCropAndResize {
        // TOPI bounds the last two axes (its resize3d drops the depth's
        // bound).
        let first = dims.saturating_sub(2);
        for (x, image) in coords.iter().zip(g.images).skip(first) {
            let e = o.extrapolation.clone();
            let hi = sub(image, &int(1))?;
            let above = cmp(CmpOp::Gt, x, &hi)?;
            let inner = py.if_then_else(above, e.clone(), value)?;
            let below = cmp(CmpOp::Lt, x, &int(0))?;
            value = py.if_then_else(below, e, inner)?;
        }
    }
    py.astype(&value, &o.dtype)
}

/// `bicubic_exclude`: zero weights of taps outside the image, then
/// normalise, as TOPI does (its resize3d weighs depth by the width's
/// weights and tests them against the height).
fn exclude_outside(
    py: &mut Py,
    g: &Geometry,
    dims: usize,
    ints: &[Value],
    weights: &mut [Vec<Value>],
) -> ApiResult<()> {
    let original = weights.to_vec();
    for d in 0..dims {
        let (source, image, tested) = if dims == 3 && d == 0 {
            (&original[2], &g.images[1], &ints[2])
        } else {
            (&original[d], &g.images[d], &ints[d])
        };
        for i in 0..4 {
            let low = cmp(
                CmpOp::Lt,
                &add(&sub(tested, &int(1))?, &int(i as i64))?,
                &int(0),
            )?;
            let high = cmp(CmpOp::Gt, &add(tested, &int(i as i64))?, image)?;
            let outside = any(py, low, high)?;
            weights[d][i] = py.if_then_else(outside, float(0.0), source[i].clone())?;
        }
    }
    for w in weights.iter_mut() {
        let total = sum(w)?;
        for x in w.iter_mut() {
            *x = div(x, &total)?;
        }
    }
    Ok(())
}

/// `nn.upsampling(data, scale_h, scale_w, layout="NCHW",
/// method="nearest_neighbor", align_corners=False, output_shape=None)` and
/// `nn.upsampling3d(data, scale_d, scale_h, scale_w, layout="NCDHW",
/// method="nearest_neighbor", coordinate_transformation_mode="half_pixel",
/// output_shape=None)`: a resize to the input's spatial sizes times the
/// scales, rounded.
fn upsampling(host: &mut dyn Host, args: Args, dims: usize) -> ApiResult<Value> {
    let (name, params): (&str, &[&'static str]) = if dims == 2 {
        (
            "upsampling",
            &[
                "data",
                "scale_h",
                "scale_w",
                "layout",
                "method",
                "align_corners",
                "output_shape",
            ],
        )
    } else {
        (
            "upsampling3d",
            &[
                "data",
                "scale_d",
                "scale_h",
                "scale_w",
                "layout",
                "method",
                "coordinate_transformation_mode",
                "output_shape",
            ],
        )
    };
    let a = args.bind(name, params)?;
    let data_arg = a.required("data")?;
    let data = tensor(data_arg, name)?;
    let layout = string(
        a.get("layout"),
        if dims == 2 { "NCHW" } else { "NCDHW" },
        "layout",
    )?;
    let method = string(a.get("method"), "nearest_neighbor", "method")?;
    let mode = if dims == 2 {
        let align = match a.get("align_corners") {
            None => false,
            Some(g) => crate::truth(&g.value)?,
        };
        if align { "align_corners" } else { "asymmetric" }.to_string()
    } else {
        string(
            a.get("coordinate_transformation_mode"),
            "half_pixel",
            "coordinate_transformation_mode",
        )?
    };
    let scale_names: &[&str] = if dims == 2 {
        &["scale_h", "scale_w"]
    } else {
        &["scale_d", "scale_h", "scale_w"]
    };
    let output_shape = a
        .get("output_shape")
        .filter(|g| crate::truth(&g.value).unwrap_or(true));
    // `layout[0:4] == "NCHW"` (so also `NCHWxc`), or exactly `NHWC`.
    let first = if dims == 2 { "NCHW" } else { "NCDHW" };
    let last = if dims == 2 { "NHWC" } else { "NDHWC" };
    let first_spatial = if layout.starts_with(first) {
        2
    } else if layout == last {
        1
    } else {
        return Err(ApiError::value_error(format!(
            "not support this layout {layout} yet: use {first} or {last}"
        ))
        .at(ArgRef::Keyword("layout".into())));
    };
    if data.ndim() < first_spatial + dims {
        return Err(ApiError::value_error(format!(
            "`data` has {} dimensions; {layout} needs {}",
            data.ndim(),
            first_spatial + dims
        ))
        .at(data_arg.at.clone()));
    }
    let mut size = Vec::with_capacity(dims);
    for (d, scale_name) in scale_names.iter().enumerate() {
        let axis = first_spatial + d;
        let v = match output_shape {
            // The dynamic case: the sizes given, rounded.
            Some(g) => {
                let items = g.value.sequence().ok_or_else(|| {
                    type_error(
                        g.place(),
                        format!(
                            "`output_shape` needs a list of sizes, found a {}",
                            g.value.type_name()
                        ),
                    )
                })?;
                let item = items.get(axis).cloned().ok_or_else(|| {
                    ApiError::new(
                        ErrorClass::IndexError,
                        format!("`output_shape` has no axis {axis}"),
                    )
                    .at(g.at.clone())
                })?;
                rounded_size(&item)?
            }
            None => {
                let scale_arg = a.required(scale_name)?;
                let scale = crate::objects::promote(&scale_arg.value);
                let dim = data.shape()[axis].clone();
                let dim = dim.as_int().map_or(Value::Index(dim), Value::Int);
                let scaled = match (&dim, &scale) {
                    (_, Value::Int(_) | Value::Bool(_) | Value::Float(_) | Value::Index(_)) => {
                        mul(&dim, &scale).map_err(|e| e.at(scale_arg.at.clone()))?
                    }
                    (_, other) => {
                        return Err(type_error(
                            scale_arg.place(),
                            format!(
                                "`{scale_name}` must be a number, found a {}",
                                other.type_name()
                            ),
                        ))
                    }
                };
                rounded_size(&scaled).map_err(|e| e.at(scale_arg.at.clone()))?
            }
        };
        size.push(v);
    }
    let method = if dims == 2 {
        method.strip_prefix("bi").unwrap_or(&method).to_string()
    } else {
        method.strip_prefix("tri").unwrap_or(&method).to_string()
    };
    let roi = Value::list(vec![float(0.0); 2 * dims]);
    let mut keywords = vec![
        ("layout".to_string(), Value::str(&layout)),
        ("method".to_string(), Value::str(&method)),
        (
            "coordinate_transformation_mode".to_string(),
            Value::str(&mode),
        ),
    ];
    if dims == 2 {
        if let Some(g) = output_shape {
            keywords.push(("output_shape".to_string(), g.value.clone()));
        }
    }
    let args = Args {
        positional: vec![Value::Object(Object::Tensor(data)), roi, Value::tuple(size)],
        keywords,
    };
    resize_call(host, args, dims)
}

/// `simplify(topi.cast(te.round(x), "int32"))` of a size, as TVM folds it:
/// an integer stays itself, a float rounds half to even.
fn rounded_size(x: &Value) -> ApiResult<Value> {
    match crate::objects::promote(x) {
        Value::Int(i) => Ok(Value::Index(Expr::int(i))),
        Value::Bool(b) => Ok(Value::Index(Expr::int(i64::from(b)))),
        Value::Float(f) => {
            let r = f.round_ties_even();
            if !(r.is_finite() && (1.0..=MAX_SIZE as f64).contains(&r)) {
                return Err(ApiError::value_error(format!(
                    "the scaled size {f} is not a size from 1 to {MAX_SIZE}"
                )));
            }
            Ok(Value::Index(Expr::int(r as i64)))
        }
        Value::Index(e) => Ok(Value::Index(
            arith::Analyzer::new().simplify(&e).unwrap_or(e),
        )),
        other => Err(ApiError::not_supported(format!(
            "upsampling to a size that is a {} (a float scale of a symbolic size) is not \
             supported: give integer scales or `output_shape`",
            match &other {
                Value::Object(Object::Element(_)) => "float expression",
                o => o.type_name(),
            }
        ))),
    }
}
