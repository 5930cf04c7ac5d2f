//! TOPI's normalisations and small nn operators (`tvm.topi.nn`), built as
//! TOPI v0.19 builds them (stage names, tags, axis names and bodies), so
//! that schedules written against TOPI's output find what they expect:
//!
//! - `flatten(data)` (Python): `compute` over `i, j` (tag `injective`);
//! - `lrn(data, size, axis=1, alpha=0.0001, beta=0.75, bias=2)` (C++):
//!   `pad_data` (tag `elemwise`), `tensor` (tag `sqr_sum`, reduction axis
//!   `rxs`), `tensor` (tag `elemwise`), then `T_divide` (tag `broadcast`);
//! - `layer_norm(data, gamma, beta, axis, epsilon=1e-5)` (C++):
//!   `<data>_red_temp` (tag `comm_reduce`, a tuple sum of the elements and
//!   their squares over axes `k<i>`), then `T_layer_norm` (tag
//!   `injective`); `instance_norm` the same, ending in `T_instance_norm`;
//! - `group_norm(data, gamma, beta, num_groups, channel_axis, axes,
//!   epsilon=1e-5)` (C++): `T_reshape` of the data (then `T_cast` for
//!   float16), `T_reshape` of gamma and beta, `<data>_red_temp`,
//!   `T_group_norm` (tag `injective`), then `T_reshape` back;
//! - `rms_norm(data, weight, axis, epsilon=1e-5)` (C++): `T_cast` of the
//!   data and of the weight to float32 (a copy when they are float32
//!   already), `T_multiply` (their squares), `T_multiply_red` (summed over
//!   `axis`, reduction axes `k<i>`), `rsqrt` (tag `injective`),
//!   `T_rms_norm` (tag `injective`), then `T_cast` back to the data's type;
//! - `nll_loss(predictions, targets, weights, reduction="mean",
//!   ignore_index=-100)` (C++): `nll_loss` (tag `broadcast`), the weighted
//!   negative prediction of each target's class (0 where the target is
//!   `ignore_index`); for `"mean"` a second `nll_loss` of the weights, both
//!   summed (`nll_loss_red`) and divided (`T_divide`); for `"sum"` the
//!   first summed;
//! - `prelu(x, slope, axis=1)` (Python): `compute` (tag `broadcast`);
//! - `leaky_relu(x, alpha)` (Python): `compute` (tag `elemwise`);
//! - `scale_shift_nchw`, `scale_shift_nhwc`, `scale_shift_nchwc(Input,
//!   Scale, Shift)` (Python): `ScaleShift` (tag `broadcast`);
//! - `mirror_pad(data, pad_before, pad_after=None, mode="SYMMETRIC",
//!   name="MirrorPadInput")` (Python): one compute (tag `injective,pad`,
//!   from the `tag_scope` around it) reading the
//!   input at indices mirrored at each padded edge.
//!
//! The Python-written ones are built through this API's own operators
//! (`>`, `*`, `tvm.tir.Select`), as TOPI's Python code run on it builds
//! them, so the two print the same lowered text.

use crate::args::{Args, Given};
use crate::error::{te_error, type_error, ApiError, ApiResult, ErrorClass};
use crate::functions::BuildFailure;
use crate::object::Object;
use crate::objects::{constant_value, element, float_constant, to_element};
use crate::topi_ops::tensor_arg as tensor;
use crate::value::Value;
use crate::{BinaryOp, Host};
use arith::{CmpOp, Expr};
use te::Attrs;
use tir::DataType;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NormOp {
    /// `tvm.topi.nn.flatten`.
    Flatten,
    /// `tvm.topi.nn.lrn`.
    Lrn,
    /// `tvm.topi.nn.layer_norm`.
    LayerNorm,
    /// `tvm.topi.nn.instance_norm`.
    InstanceNorm,
    /// `tvm.topi.nn.group_norm`.
    GroupNorm,
    /// `tvm.topi.nn.rms_norm`.
    RmsNorm,
    /// `tvm.topi.nn.nll_loss`.
    NllLoss,
    /// `tvm.topi.nn.prelu`.
    Prelu,
    /// `tvm.topi.nn.leaky_relu`.
    LeakyRelu,
    /// `tvm.topi.nn.scale_shift_nchw`.
    ScaleShiftNchw,
    /// `tvm.topi.nn.scale_shift_nhwc`.
    ScaleShiftNhwc,
    /// `tvm.topi.nn.scale_shift_nchwc`.
    ScaleShiftNchwc,
    /// `tvm.topi.nn.mirror_pad`.
    MirrorPad,
}

impl NormOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<NormOp> {
        let op = match name {
            "flatten" => NormOp::Flatten,
            "lrn" => NormOp::Lrn,
            "layer_norm" => NormOp::LayerNorm,
            "instance_norm" => NormOp::InstanceNorm,
            "group_norm" => NormOp::GroupNorm,
            "rms_norm" => NormOp::RmsNorm,
            "nll_loss" => NormOp::NllLoss,
            "prelu" => NormOp::Prelu,
            "leaky_relu" => NormOp::LeakyRelu,
            "scale_shift_nchw" => NormOp::ScaleShiftNchw,
            "scale_shift_nhwc" => NormOp::ScaleShiftNhwc,
            "scale_shift_nchwc" => NormOp::ScaleShiftNchwc,
            "mirror_pad" => NormOp::MirrorPad,
            _ => return None,
        };
        // Each is found in `tvm.topi.nn` and in the module defining it.
        let home = match op {
            NormOp::Flatten => "tvm.topi.nn.flatten",
            NormOp::Lrn => "tvm.topi.nn.local_response_norm",
            NormOp::LayerNorm => "tvm.topi.nn.layer_norm",
            NormOp::InstanceNorm => "tvm.topi.nn.instance_norm",
            NormOp::GroupNorm => "tvm.topi.nn.group_norm",
            NormOp::RmsNorm => "tvm.topi.nn.rms_norm",
            NormOp::NllLoss => "tvm.topi.nn.loss",
            NormOp::Prelu | NormOp::LeakyRelu => "tvm.topi.nn.elemwise",
            NormOp::ScaleShiftNchw | NormOp::ScaleShiftNhwc | NormOp::ScaleShiftNchwc => {
                "tvm.topi.nn.mapping"
            }
            NormOp::MirrorPad => "tvm.topi.nn.pad",
        };
        (module_path == "tvm.topi.nn" || module_path == home).then_some(op)
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            NormOp::Flatten => "tvm.topi.nn.flatten",
            NormOp::Lrn => "tvm.topi.nn.lrn",
            NormOp::LayerNorm => "tvm.topi.nn.layer_norm",
            NormOp::InstanceNorm => "tvm.topi.nn.instance_norm",
            NormOp::GroupNorm => "tvm.topi.nn.group_norm",
            NormOp::RmsNorm => "tvm.topi.nn.rms_norm",
            NormOp::NllLoss => "tvm.topi.nn.nll_loss",
            NormOp::Prelu => "tvm.topi.nn.prelu",
            NormOp::LeakyRelu => "tvm.topi.nn.leaky_relu",
            NormOp::ScaleShiftNchw => "tvm.topi.nn.scale_shift_nchw",
            NormOp::ScaleShiftNhwc => "tvm.topi.nn.scale_shift_nhwc",
            NormOp::ScaleShiftNchwc => "tvm.topi.nn.scale_shift_nchwc",
            NormOp::MirrorPad => "tvm.topi.nn.mirror_pad",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: NormOp) -> ApiResult<Value> {
    let short = op.tvm_name().rsplit('.').next().unwrap_or("norm");
    let out = match op {
        NormOp::MirrorPad => {
            let a = args.bind(short, &["data", "pad_before", "pad_after", "mode", "name"])?;
            let x = tensor(a.required("data")?, short)?;
            let n = x.ndim();
            let before = crate::topi_ops::index_list(a.required("pad_before")?, "pad_before", n)?;
            let after = match a.get("pad_after") {
                Some(g) if crate::truth(&g.value)? => {
                    crate::topi_ops::index_list(g, "pad_after", n)?
                }
                _ => before.clone(),
            };
            let mode = match a.get("mode").map(|g| (&g.value, g)) {
                None => "SYMMETRIC".to_string(),
                Some((Value::Str(m), _)) => m.to_string(),
                Some((other, g)) => {
                    return Err(type_error(
                        g.place(),
                        format!("`mode` is a string, found a {}", other.type_name()),
                    ))
                }
            };
            let symmetric = match mode.as_str() {
                "SYMMETRIC" => true,
                "REFLECT" => false,
                _ => {
                    return Err(ApiError::value_error(format!(
                        "mirror_pad's mode is \"SYMMETRIC\" or \"REFLECT\", not `{mode}`"
                    )))
                }
            };
            let name = match a.get("name").map(|g| &g.value) {
                Some(Value::Str(n)) => n.to_string(),
                _ => "MirrorPadInput".to_string(),
            };
            mirror_pad(&x, &before, &after, symmetric, &name)?
        }
        NormOp::Flatten => {
            let a = args.bind(short, &["data"])?;
            flatten(&tensor(a.required("data")?, short)?)?
        }
        NormOp::Lrn => {
            let a = args.bind(short, &["data", "size", "axis", "alpha", "beta", "bias"])?;
            let x = tensor(a.required("data")?, short)?;
            let size = int(a.required("size")?, "size")?;
            let axis = a.get("axis").map_or(Ok(1), |g| int(g, "axis"))?;
            let float = |name: &str, default: f64| a.get(name).map_or(Ok(default), number);
            let consts = [
                float("alpha", 0.0001)?,
                float("beta", 0.75)?,
                float("bias", 2.0)?,
            ];
            lrn(host, &x, size, axis, consts)?
        }
        NormOp::LayerNorm | NormOp::InstanceNorm => {
            let a = args.bind(short, &["data", "gamma", "beta", "axis", "epsilon"])?;
            let x = tensor(a.required("data")?, short)?;
            let gamma = tensor(a.required("gamma")?, short)?;
            let beta = match a.get("beta") {
                None => None,
                Some(g) if matches!(g.value, Value::None) => None,
                Some(g) => Some(tensor(g, short)?),
            };
            let axes = real_axes(a.required("axis")?, x.ndim())?;
            let epsilon = a.get("epsilon").map_or(Ok(1e-5), number)?;
            let name = if op == NormOp::LayerNorm {
                "T_layer_norm"
            } else {
                "T_instance_norm"
            };
            layer_norm(host, &x, &gamma, beta.as_ref(), &axes, epsilon, name)?
        }
        NormOp::GroupNorm => {
            let a = args.bind(
                short,
                &[
                    "data",
                    "gamma",
                    "beta",
                    "num_groups",
                    "channel_axis",
                    "axes",
                    "epsilon",
                ],
            )?;
            let x = tensor(a.required("data")?, short)?;
            let optional = |name: &str| match a.get(name) {
                None => Ok(None),
                Some(g) if matches!(g.value, Value::None) => Ok(None),
                Some(g) => tensor(g, short).map(Some),
            };
            let (gamma, beta) = (optional("gamma")?, optional("beta")?);
            let groups = int(a.required("num_groups")?, "num_groups")?;
            let channel_arg = a.required("channel_axis")?;
            let channel = axis_in(int(channel_arg, "channel_axis")?, x.ndim(), "channel_axis")
                .map_err(|e| e.at(channel_arg.at.clone()))?;
            let axes_arg = a.required("axes")?;
            let given = real_axes(axes_arg, x.ndim())?;
            let epsilon = a.get("epsilon").map_or(Ok(1e-5), number)?;
            group_norm(
                host,
                &x,
                gamma.as_ref(),
                beta.as_ref(),
                groups,
                channel,
                &given,
                epsilon,
            )?
        }
        NormOp::RmsNorm => {
            let a = args.bind(short, &["data", "weight", "axis", "epsilon"])?;
            let x = tensor(a.required("data")?, short)?;
            let weight = tensor(a.required("weight")?, short)?;
            let axes = real_axes(a.required("axis")?, x.ndim())?;
            let epsilon = a.get("epsilon").map_or(Ok(1e-5), number)?;
            rms_norm(host, &x, &weight, &axes, epsilon)?
        }
        NormOp::NllLoss => {
            let a = args.bind(
                short,
                &[
                    "predictions",
                    "targets",
                    "weights",
                    "reduction",
                    "ignore_index",
                ],
            )?;
            let predictions = tensor(a.required("predictions")?, short)?;
            let targets = tensor(a.required("targets")?, short)?;
            let weights = tensor(a.required("weights")?, short)?;
            let reduction = match a.get("reduction") {
                None => "mean".to_string(),
                Some(g) => match &g.value {
                    Value::Str(r) if matches!(&**r, "mean" | "sum" | "none") => r.to_string(),
                    other => {
                        return Err(ApiError::value_error(format!(
                            "`reduction` is \"mean\", \"sum\" or \"none\", found {}",
                            crate::repr(other)
                        ))
                        .at(g.at.clone()))
                    }
                },
            };
            let ignore = a
                .get("ignore_index")
                .map_or(Ok(-100), |g| int(g, "ignore_index"))?;
            return nll_loss(host, &predictions, &targets, &weights, &reduction, ignore);
        }
        NormOp::Prelu => {
            let a = args.bind(short, &["x", "slope", "axis"])?;
            let x = tensor(a.required("x")?, short)?;
            let slope = tensor(a.required("slope")?, short)?;
            let axis = a.get("axis").map_or(Ok(1), |g| int(g, "axis"))?;
            prelu(&x, &slope, axis)?
        }
        NormOp::LeakyRelu => {
            let a = args.bind(short, &["x", "alpha"])?;
            let x = tensor(a.required("x")?, short)?;
            let alpha_arg = a.required("alpha")?;
            number(alpha_arg)?;
            leaky_relu(&x, &alpha_arg.value)?
        }
        NormOp::ScaleShiftNchw | NormOp::ScaleShiftNhwc | NormOp::ScaleShiftNchwc => {
            let a = args.bind(short, &["Input", "Scale", "Shift"])?;
            let x = tensor(a.required("Input")?, short)?;
            let scale = tensor(a.required("Scale")?, short)?;
            let shift = tensor(a.required("Shift")?, short)?;
            scale_shift(&x, &scale, &shift, op)?
        }
    };
    Ok(Value::Object(Object::Tensor(out)))
}

/// An integer argument (C++ `int`): it must fit in 32 bits.
fn int(g: &Given, what: &str) -> ApiResult<i64> {
    let v = crate::operators::as_int(&g.value)
        .ok_or_else(|| type_error(g.place(), format!("`{what}` is an integer")))?;
    if i32::try_from(v).is_err() {
        return Err(ApiError::new(
            ErrorClass::OverflowError,
            format!("`{what}` = {v} is not an int32"),
        )
        .at(g.at.clone()));
    }
    Ok(v)
}

/// A number argument (a Python float or integer).
fn number(g: &Given) -> ApiResult<f64> {
    match &g.value {
        Value::Float(f) if f.is_finite() => Ok(*f),
        Value::Float(f) => Err(ApiError::value_error(format!(
            "expected a finite number, found {f}"
        ))
        .at(g.at.clone())),
        v => crate::operators::as_int(v)
            .map(|i| i as f64)
            .ok_or_else(|| {
                type_error(
                    g.place(),
                    format!("expected a number, found a {}", v.type_name()),
                )
            }),
    }
}

/// An axis of a tensor of `ndim` dimensions, negative counting from the
/// end.
fn axis_in(axis: i64, ndim: usize, what: &str) -> ApiResult<usize> {
    let n = ndim as i64;
    let real = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&real) {
        return Err(ApiError::value_error(format!(
            "`{what}` = {axis} is out of range for a {ndim}-dimensional tensor"
        )));
    }
    Ok(real as usize)
}

/// TOPI's `GetRealAxis`: a list of axes, negative ones counted from the
/// end, sorted and without repeats.
fn real_axes(g: &Given, ndim: usize) -> ApiResult<Vec<usize>> {
    let items = g.value.sequence().ok_or_else(|| {
        type_error(
            g.place(),
            format!(
                "`axis` is a list of integers, found a {}",
                g.value.type_name()
            ),
        )
    })?;
    let mut axes = Vec::with_capacity(items.len());
    for item in items {
        let i = crate::operators::as_int(&item)
            .ok_or_else(|| type_error(g.place(), "`axis` is a list of integers"))?;
        axes.push(axis_in(i, ndim, "axis").map_err(|e| e.at(g.at.clone()))?);
    }
    axes.sort_unstable();
    axes.dedup();
    Ok(axes)
}

/// Axis names `prefix0, prefix1, ...`.
fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|d| format!("{prefix}{d}")).collect()
}

/// One compute whose body may fail with an API error.
fn compute(
    shape: Vec<Expr>,
    axis_names: &[String],
    f: impl FnOnce(&[Expr]) -> ApiResult<te::Value>,
    name: &str,
    tag: &str,
) -> ApiResult<te::Tensor> {
    let axis_names: Vec<&str> = axis_names.iter().map(String::as_str).collect();
    te::try_compute_tagged::<BuildFailure>(
        shape,
        &axis_names,
        |i| f(i).map_err(BuildFailure::Host),
        name,
        tag,
        Attrs::new(),
    )
    .map_err(ApiError::from)
}

/// `a op b` on elements, as a program's operator builds it.
fn apply(op: BinaryOp, a: &Value, b: &Value) -> ApiResult<Value> {
    crate::operators::binary(op, a, b)
}

/// TOPI's Python `flatten`: `te.compute([n, prod(rest)], lambda i, j:
/// data(i, *unwrap(j, rest)))`, the column index unflattened by floor
/// modulo and division from the last dimension.
fn flatten(x: &te::Tensor) -> ApiResult<te::Tensor> {
    let shape = x.shape().to_vec();
    let Some(first) = shape.first() else {
        return Err(ApiError::value_error(
            "`flatten` needs a tensor of at least one dimension",
        ));
    };
    // `dim = 1; dim = dim * s` over the rest: constants multiply (and
    // must not overflow), a symbolic size makes a product.
    let mut dim = Expr::int(1);
    for d in &shape[1..] {
        dim = match (dim.as_int(), d.as_int()) {
            (Some(a), Some(b)) => Expr::int(a.checked_mul(b).ok_or_else(|| {
                ApiError::new(
                    ErrorClass::OverflowError,
                    "`flatten`: the product of the sizes overflows 64 bits",
                )
            })?),
            (Some(1), None) => d.clone(),
            _ => dim * d.clone(),
        };
    }
    compute(
        vec![first.clone(), dim],
        &["i".to_string(), "j".to_string()],
        |o| {
            let mut idx = Value::Index(o[1].clone());
            let mut index = Vec::with_capacity(shape.len());
            for s in shape[1..].iter().rev() {
                let s = index_value(s);
                index.push(index_of(apply(BinaryOp::Mod, &idx, &s)?)?);
                idx = apply(BinaryOp::FloorDiv, &idx, &s)?;
            }
            index.push(o[0].clone());
            index.reverse();
            Ok(x.at(index))
        },
        "compute",
        "injective",
    )
}

/// A shape dimension as a program sees it.
fn index_value(e: &Expr) -> Value {
    match e.as_int() {
        Some(i) => Value::Int(i),
        None => Value::Index(e.clone()),
    }
}

fn index_of(v: Value) -> ApiResult<Expr> {
    match v {
        Value::Int(i) => Ok(Expr::int(i)),
        Value::Index(e) => Ok(e),
        other => Err(ApiError::type_error(format!(
            "expected an index, found a {}",
            other.type_name()
        ))),
    }
}

/// TOPI's `lrn`: the input divided by `(bias + alpha * sum / size) ^ beta`
/// where `sum` is of the squares of `size` neighbours along `axis`.
fn lrn(
    host: &mut dyn Host,
    x: &te::Tensor,
    size: i64,
    axis: i64,
    [alpha, beta, bias]: [f64; 3],
) -> ApiResult<te::Tensor> {
    if x.ndim() != 4 {
        return Err(ApiError::value_error(format!(
            "LRN requires 4-D input, found {} dimensions",
            x.ndim()
        )));
    }
    if size < 1 || size % 2 != 1 {
        return Err(ApiError::value_error(format!(
            "`size` should be a positive odd number, found {size}"
        )));
    }
    if axis != 1 && axis != 3 {
        return Err(ApiError::value_error(format!(
            "`axis` should be 1 or 3 for NCHW and NHWC, found {axis}"
        )));
    }
    let dtype = x.dtype();
    if !dtype.is_float() {
        return Err(ApiError::type_error(format!(
            "LRN: datatype should be float, found {dtype}"
        )));
    }
    let axis = axis as usize;
    let mut before = vec![Expr::int(0); 4];
    before[axis] = Expr::int(size / 2);
    let pad_data = crate::topi_ops::pad(x, &before, &before, &Value::Int(0), "pad_data")?;
    let rxs = te::reduce_axis((Expr::int(0), Expr::int(size)), "rxs");
    crate::topi_ops::note_reduce_axes(host, std::slice::from_ref(&rxs));
    let shape = x.shape().to_vec();
    let ax = names("ax", 4);
    let sqr_sum = compute(
        shape.clone(),
        &ax,
        |o| {
            let mut idx = o.to_vec();
            idx[axis] = idx[axis].clone() + rxs.expr();
            let v = pad_data.at(idx);
            Ok(te::sum(
                te::Value::binary(te::BinaryOp::Mul, v.clone(), v),
                std::slice::from_ref(&rxs),
            ))
        },
        "tensor",
        "sqr_sum",
    )?;
    // C++ `float` parameters: the constants are float32 values.
    let c = |v: f64| float_constant(f64::from(v as f32), dtype);
    let sqrt_sum_up = compute(
        shape,
        &ax,
        |o| {
            let scaled = te::Value::binary(
                te::BinaryOp::Div,
                te::Value::binary(te::BinaryOp::Mul, c(alpha), sqr_sum.at(o.to_vec())),
                float_constant(size as f64, dtype),
            );
            Ok(te::Value::call(
                tir::Intrinsic::Pow,
                vec![
                    te::Value::binary(te::BinaryOp::Add, c(bias), scaled),
                    c(beta),
                ],
            ))
        },
        "tensor",
        "elemwise",
    )?;
    let out = crate::topi_ops::broadcast(
        BinaryOp::Div,
        &Value::Object(Object::Tensor(x.clone())),
        &Value::Object(Object::Tensor(sqrt_sum_up)),
    )?;
    match out {
        Value::Object(Object::Tensor(t)) => Ok(t),
        _ => Err(ApiError::tvm("`T_divide` is not a tensor")),
    }
}

/// TOPI's `layer_norm` (and `instance_norm`, the same under another
/// name): one tuple reduction of the sum and the sum of squares over
/// `axes`, then `(x - mean) * rsqrt(var + epsilon) * gamma + beta`.
fn layer_norm(
    host: &mut dyn Host,
    x: &te::Tensor,
    gamma: &te::Tensor,
    beta: Option<&te::Tensor>,
    axes: &[usize],
    epsilon: f64,
    name: &str,
) -> ApiResult<te::Tensor> {
    let dtype = x.dtype();
    let same = gamma.dtype() == dtype && beta.is_none_or(|b| b.dtype() == dtype);
    if !same {
        return Err(ApiError::type_error(
            "layer_norm: data, gamma and beta must have the same type",
        ));
    }
    if dtype != DataType::Float32 && dtype != DataType::Float16 {
        return Err(ApiError::type_error(format!(
            "layer_norm: only float32 and float16 are supported, found {dtype}"
        )));
    }
    let ndim = x.ndim();
    if axes.len() == ndim {
        return Err(ApiError::value_error(
            "layer_norm over every axis is not supported (TOPI reads its one-element sums \
             without an index): keep at least one axis out of `axis`",
        ));
    }
    let shape = x.shape().to_vec();
    for (what, t) in std::iter::once(("gamma", gamma)).chain(beta.map(|b| ("beta", b))) {
        check_normalised_shape(what, t, &shape, axes)?;
    }
    let half = dtype == DataType::Float16;
    let f32 = |v: te::Value| {
        if half {
            te::Value::cast(DataType::Float32, v)
        } else {
            v
        }
    };
    let kept: Vec<usize> = (0..ndim).filter(|i| !axes.contains(i)).collect();
    let sum_dtype = if half { DataType::Float32 } else { dtype };
    let (temp_x, temp_x2) = tuple_sums(host, x, axes, half, x.op().name())?;
    let extent = reduce_extent(&shape, axes, sum_dtype);
    let full = names("ax", ndim);
    compute(
        shape,
        &full,
        |o| {
            let rest: Vec<Expr> = kept.iter().map(|&i| o[i].clone()).collect();
            let red: Vec<Expr> = axes.iter().map(|&i| o[i].clone()).collect();
            let bin = te::Value::binary;
            use te::BinaryOp::{Add, Div, Mul, Sub};
            let mean = bin(Div, temp_x.at(rest.clone()), extent.clone());
            let var = bin(
                Sub,
                bin(Div, temp_x2.at(rest), extent.clone()),
                bin(Mul, mean.clone(), mean.clone()),
            );
            let rsqrt = te::Value::call(
                tir::Intrinsic::Rsqrt,
                vec![bin(Add, var, float_constant(epsilon, sum_dtype))],
            );
            let mut out = bin(Mul, bin(Sub, f32(x.at(o.to_vec())), mean), rsqrt);
            if half {
                out = te::Value::cast(DataType::Float16, out);
            }
            out = bin(Mul, out, gamma.at(red.clone()));
            if let Some(b) = beta {
                out = bin(Add, out, b.at(red));
            }
            Ok(out)
        },
        name,
        "injective",
    )
}

/// TOPI's `group_norm`: the channel axis split into `groups` groups
/// (`T_reshape`), normalised over each group and `axes` like
/// [`layer_norm`] (`<data>_red_temp`, then `T_group_norm`), scaled and
/// shifted per channel, then reshaped back (`T_reshape`).
#[allow(clippy::too_many_arguments)]
fn group_norm(
    host: &mut dyn Host,
    x: &te::Tensor,
    gamma: Option<&te::Tensor>,
    beta: Option<&te::Tensor>,
    groups: i64,
    channel: usize,
    axes: &[usize],
    epsilon: f64,
) -> ApiResult<te::Tensor> {
    let dtype = x.dtype();
    if [gamma, beta].iter().flatten().any(|t| t.dtype() != dtype) {
        return Err(ApiError::type_error(
            "group_norm: data, gamma and beta must have the same type",
        ));
    }
    if dtype != DataType::Float32 && dtype != DataType::Float16 {
        return Err(ApiError::type_error(format!(
            "group_norm: only float32 and float16 are supported, found {dtype}"
        )));
    }
    if groups < 1 {
        return Err(ApiError::value_error(format!(
            "`num_groups` must be at least 1, found {groups}"
        )));
    }
    if axes.contains(&channel) {
        return Err(ApiError::value_error(
            "`axes` can not contain the channel axis",
        ));
    }
    let shape = x.shape().to_vec();
    let channels = shape[channel].clone();
    if let Some(c) = constant_value(&channels) {
        if c % groups != 0 {
            return Err(ApiError::value_error(format!(
                "{c} channels do not split into {groups} groups: use a divisor of {c}"
            )));
        }
    }
    for (what, t) in [("gamma", gamma), ("beta", beta)] {
        if let Some(t) = t {
            let fits = t.ndim() == 1
                && !matches!((constant_value(&t.shape()[0]), constant_value(&channels)),
                    (Some(p), Some(q)) if p != q);
            if !fits {
                return Err(ApiError::value_error(format!(
                    "`{what}` must have one element per channel ({channels}), found the shape {:?}",
                    t.shape()
                )));
            }
        }
    }
    let group_size = match constant_value(&channels) {
        Some(c) => Expr::int(c / groups),
        None => Expr::floor_div(channels.clone(), Expr::int(groups)),
    };
    let mut new_shape = Vec::with_capacity(shape.len() + 1);
    for (i, d) in shape.iter().enumerate() {
        if i == channel {
            new_shape.push(Expr::int(groups));
            new_shape.push(group_size.clone());
        } else {
            new_shape.push(d.clone());
        }
    }
    let reshape = |t: &te::Tensor, to: &[Expr]| -> ApiResult<te::Tensor> {
        let dims = Value::tuple(to.iter().map(index_value).collect());
        let args = Args::positional(vec![Value::Object(Object::Tensor(t.clone())), dims]);
        match crate::topi_ops::reshape(args)? {
            Value::Object(Object::Tensor(t)) => Ok(t),
            _ => Err(ApiError::tvm("`T_reshape` is not a tensor")),
        }
    };
    let half = dtype == DataType::Float16;
    let mut reshaped = reshape(x, &new_shape)?;
    if half {
        reshaped = compute(
            new_shape.clone(),
            &names("ax", new_shape.len()),
            |o| Ok(te::Value::cast(DataType::Float32, reshaped.at(o.to_vec()))),
            "T_cast",
            "elemwise",
        )?;
    }
    let per_group = [Expr::int(groups), group_size];
    let gamma = gamma.map(|g| reshape(g, &per_group)).transpose()?;
    let beta = beta.map(|b| reshape(b, &per_group)).transpose()?;
    let mut new_axes = vec![channel + 1];
    new_axes.extend(axes.iter().map(|&a| if a < channel { a } else { a + 1 }));
    new_axes.sort_unstable();
    let (temp_x, temp_x2) = tuple_sums(host, &reshaped, &new_axes, false, x.op().name())?;
    let extent = reduce_extent(&new_shape, &new_axes, DataType::Float32);
    let kept: Vec<usize> = (0..new_shape.len())
        .filter(|i| !new_axes.contains(i))
        .collect();
    let out = compute(
        new_shape.clone(),
        &names("ax", new_shape.len()),
        |o| {
            let rest: Vec<Expr> = kept.iter().map(|&i| o[i].clone()).collect();
            let gi = vec![o[channel].clone(), o[channel + 1].clone()];
            let bin = te::Value::binary;
            use te::BinaryOp::{Add, Div, Mul, Sub};
            let mean = bin(Div, temp_x.at(rest.clone()), extent.clone());
            let var = bin(
                Sub,
                bin(Div, temp_x2.at(rest), extent.clone()),
                bin(Mul, mean.clone(), mean.clone()),
            );
            let rsqrt = te::Value::call(
                tir::Intrinsic::Rsqrt,
                vec![bin(Add, var, float_constant(epsilon, DataType::Float32))],
            );
            let mut out = bin(Mul, bin(Sub, reshaped.at(o.to_vec()), mean), rsqrt);
            if half {
                out = te::Value::cast(DataType::Float16, out);
            }
            if let Some(g) = &gamma {
                out = bin(Mul, out, g.at(gi.clone()));
            }
            if let Some(b) = &beta {
                out = bin(Add, out, b.at(gi));
            }
            Ok(out)
        },
        "T_group_norm",
        "injective",
    )?;
    reshape(&out, &shape)
}

/// TOPI's `<name>_red_temp` (tag `comm_reduce`): the sum of `x`'s
/// elements and of their squares over `axes` (reduction axes `k<i>`), in
/// one tuple reduction (`MakeTupleSumReducer`); in float32 when `widen`.
/// The kept axes are `ax0, ax1, ...` (one of size 1 when none is kept).
fn tuple_sums(
    host: &mut dyn Host,
    x: &te::Tensor,
    axes: &[usize],
    widen: bool,
    name: &str,
) -> ApiResult<(te::Tensor, te::Tensor)> {
    let shape = x.shape().to_vec();
    let ndim = shape.len();
    let f32 = |v: te::Value| {
        if widen {
            te::Value::cast(DataType::Float32, v)
        } else {
            v
        }
    };
    let raxes: Vec<te::IterVar> = axes
        .iter()
        .map(|&i| te::reduce_axis((Expr::int(0), shape[i].clone()), &format!("k{i}")))
        .collect();
    crate::topi_ops::note_reduce_axes(host, &raxes);
    let mut target: Vec<Expr> = (0..ndim)
        .filter(|i| !axes.contains(i))
        .map(|i| shape[i].clone())
        .collect();
    if target.is_empty() {
        target.push(Expr::int(1));
    }
    let sum_dtype = if widen { DataType::Float32 } else { x.dtype() };
    let lhs = te::CommReducer::operands("tuple_sum_lhs", &[sum_dtype, sum_dtype]);
    let rhs = te::CommReducer::operands("tuple_sum_rhs", &[sum_dtype, sum_dtype]);
    let combined = vec![
        te::Value::binary(te::BinaryOp::Add, lhs[0].clone(), rhs[0].clone()),
        te::Value::binary(te::BinaryOp::Add, lhs[1].clone(), rhs[1].clone()),
    ];
    let zero = float_constant(0.0, sum_dtype);
    let reducer = te::CommReducer::new("tuple_sum", &lhs, &rhs, combined, vec![zero.clone(), zero])
        .map_err(|e| te_error(&None, e))?;
    let ax = names("ax", target.len());
    let ax: Vec<&str> = ax.iter().map(String::as_str).collect();
    let temps = te::try_compute_multi_tagged::<BuildFailure>(
        target,
        &ax,
        |o| {
            let mut idx = Vec::with_capacity(ndim);
            let (mut next, mut red) = (0, 0);
            for i in 0..ndim {
                if axes.contains(&i) {
                    idx.push(raxes[red].expr());
                    red += 1;
                } else {
                    idx.push(o[next].clone());
                    next += 1;
                }
            }
            let v = f32(x.at(idx));
            let square = te::Value::binary(te::BinaryOp::Mul, v.clone(), v.clone());
            reducer
                .reduce(vec![v, square], &raxes, None)
                .map_err(BuildFailure::Te)
        },
        &format!("{name}_red_temp"),
        "comm_reduce",
        Attrs::new(),
    )
    .map_err(ApiError::from)?;
    Ok((temps[0].clone(), temps[1].clone()))
}

/// `make_const(dtype, 1) * shape[i] * ...` over `axes`, folded as TVM
/// folds it: constants multiply, a symbolic size is cast to `dtype`.
fn reduce_extent(shape: &[Expr], axes: &[usize], dtype: DataType) -> te::Value {
    let mut constant = 1.0f64;
    let mut extent: Option<te::Value> = None;
    for &i in axes {
        match (constant_value(&shape[i]), &extent) {
            (Some(d), None) => constant *= d as f64,
            (d, _) => {
                let term = match d {
                    Some(d) => float_constant(d as f64, dtype),
                    None => te::Value::cast(dtype, te::Value::index(shape[i].clone())),
                };
                extent = Some(match extent.take() {
                    None if constant == 1.0 => term,
                    None => {
                        te::Value::binary(te::BinaryOp::Mul, float_constant(constant, dtype), term)
                    }
                    Some(e) => te::Value::binary(te::BinaryOp::Mul, e, term),
                });
            }
        }
    }
    extent.unwrap_or_else(|| float_constant(constant, dtype))
}

/// TOPI's Python `prelu`: `Select(x > 0, x, x * slope[channel])` under
/// the tag `broadcast`.
fn prelu(x: &te::Tensor, slope: &te::Tensor, axis: i64) -> ApiResult<te::Tensor> {
    if slope.ndim() != 1 {
        return Err(ApiError::value_error(format!(
            "`prelu` takes a one-dimensional slope, found {} dimensions",
            slope.ndim()
        )));
    }
    let axis = axis_in(axis, x.ndim(), "axis")?;
    match (
        constant_value(&slope.shape()[0]),
        constant_value(&x.shape()[axis]),
    ) {
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => {
            return Err(ApiError::value_error(format!(
                "`prelu`: the slope has {a} elements but axis {axis} of the input has {b}"
            )))
        }
        _ => {
            return Err(ApiError::value_error(
                "`prelu` needs constant sizes of the slope and the channel axis",
            ))
        }
    }
    compute(
        x.shape().to_vec(),
        &names("i", x.ndim()),
        |i| {
            let xval = element(x.at(i.to_vec()));
            let cond = crate::operators::compare(CmpOp::Gt, &xval, &Value::Int(0))?;
            let scaled = apply(
                BinaryOp::Mul,
                &xval,
                &element(slope.at(vec![i[axis].clone()])),
            )?;
            let v = crate::casts::select("Select", Args::positional(vec![cond, xval, scaled]))?;
            to_element(&v, None)
        },
        "compute",
        "broadcast",
    )
}

/// TOPI's Python `leaky_relu`: `Select(x > 0, x, x * const(alpha))` under
/// the tag `elemwise`.
fn leaky_relu(x: &te::Tensor, alpha: &Value) -> ApiResult<te::Tensor> {
    compute(
        x.shape().to_vec(),
        &names("i", x.ndim()),
        |i| {
            let value = element(x.at(i.to_vec()));
            let calpha = crate::functions::typed_constant(alpha, x.dtype(), None)?;
            let cond = crate::operators::compare(CmpOp::Gt, &value, &Value::Int(0))?;
            let scaled = apply(BinaryOp::Mul, &value, &calpha)?;
            let v = crate::casts::select("Select", Args::positional(vec![cond, value, scaled]))?;
            to_element(&v, None)
        },
        "compute",
        "elemwise",
    )
}

/// TOPI's Python `scale_shift_*`: `Input * Scale[c] + Shift[c]` over the
/// layout's axes (`b, c, i, j`; `b, i, j, c`; `b, cc, i, j, cb`).
fn scale_shift(
    x: &te::Tensor,
    scale: &te::Tensor,
    shift: &te::Tensor,
    op: NormOp,
) -> ApiResult<te::Tensor> {
    let (axis_names, channel): (&[&str], &[usize]) = match op {
        NormOp::ScaleShiftNchw => (&["b", "c", "i", "j"], &[1]),
        NormOp::ScaleShiftNhwc => (&["b", "i", "j", "c"], &[3]),
        _ => (&["b", "cc", "i", "j", "cb"], &[1, 4]),
    };
    if x.ndim() != axis_names.len() {
        return Err(ApiError::value_error(format!(
            "`{}` takes a {}-dimensional input, found {} dimensions",
            op.tvm_name(),
            axis_names.len(),
            x.ndim()
        )));
    }
    let want: Vec<Expr> = channel.iter().map(|&c| x.shape()[c].clone()).collect();
    for (what, t) in [("Scale", scale), ("Shift", shift)] {
        let fits = t.ndim() == want.len()
            && t.shape().iter().zip(&want).all(|(a, b)| {
                !matches!((constant_value(a), constant_value(b)), (Some(p), Some(q)) if p != q)
            });
        if !fits {
            return Err(ApiError::value_error(format!(
                "`{what}` must have the shape {want:?} of the input's channels, found {:?}",
                t.shape()
            )));
        }
    }
    let axis_names: Vec<String> = axis_names.iter().map(|s| s.to_string()).collect();
    compute(
        x.shape().to_vec(),
        &axis_names,
        |o| {
            let c: Vec<Expr> = channel.iter().map(|&c| o[c].clone()).collect();
            let scaled = apply(
                BinaryOp::Mul,
                &element(x.at(o.to_vec())),
                &element(scale.at(c.clone())),
            )?;
            let v = apply(BinaryOp::Add, &scaled, &element(shift.at(c)))?;
            to_element(&v, None)
        },
        "ScaleShift",
        "broadcast",
    )
}

/// TOPI's Python `mirror_pad`: each padded axis reads the input at
/// `-i - mode` before its start and `2 * (n - 1) - i + mode` past its end
/// (`i` the index less the padding before; `mode` 1 for `SYMMETRIC`, which
/// repeats the edge, 0 for `REFLECT`, which does not), built with this
/// API's own operators as TOPI's code builds it.
fn mirror_pad(
    x: &te::Tensor,
    before: &[Expr],
    after: &[Expr],
    symmetric: bool,
    name: &str,
) -> ApiResult<te::Tensor> {
    let n = x.ndim();
    let mode = Value::Int(i64::from(symmetric));
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        let (Some(b), Some(a)) = (b.as_int(), a.as_int()) else {
            continue;
        };
        let limit = x.shape()[i].as_int().map(|d| d - i64::from(!symmetric));
        if b < 0 || a < 0 || limit.is_some_and(|l| b > l || a > l) {
            return Err(ApiError::value_error(format!(
                "mirror_pad of axis {i} by ({b}, {a}): each padding must be between 0 and the \
                 axis' size{}",
                if symmetric { "" } else { " less one (REFLECT)" }
            )));
        }
    }
    let mut shape = Vec::with_capacity(n);
    for i in 0..n {
        let total = x.shape()[i].clone() + before[i].clone() + after[i].clone();
        shape.push(arith::Analyzer::new().simplify(&total).unwrap_or(total));
    }
    let select = |c: Value, t: Value, f: Value| {
        crate::casts::select(
            "if_then_else",
            Args {
                positional: vec![c, t, f],
                keywords: Vec::new(),
            },
        )
    };
    compute(
        shape,
        &names("i", n),
        |idx| {
            let mut at = Vec::with_capacity(n);
            for i in 0..n {
                let zero = |e: &Expr| constant_value(e) == Some(0);
                if zero(&before[i]) && zero(&after[i]) {
                    at.push(idx[i].clone());
                    continue;
                }
                let index = Value::Index(idx[i].clone());
                let axis = fold(BinaryOp::Sub, &index, &index_value(&before[i]))?;
                let dim = index_value(&x.shape()[i]);
                let above = crate::operators::compare(
                    CmpOp::Ge,
                    &index,
                    &fold(BinaryOp::Add, &dim, &index_value(&before[i]))?,
                )?;
                let below = crate::operators::compare(CmpOp::Lt, &index, &index_value(&before[i]))?;
                let negated = crate::operators::unary(crate::UnaryOp::Neg, &axis)?;
                let low = select(below, fold(BinaryOp::Sub, &negated, &mode)?, axis.clone())?;
                let span = fold(
                    BinaryOp::Mul,
                    &Value::Int(2),
                    &fold(BinaryOp::Sub, &dim, &Value::Int(1))?,
                )?;
                let high = fold(BinaryOp::Add, &fold(BinaryOp::Sub, &span, &axis)?, &mode)?;
                at.push(index_of(select(above, high, low)?)?);
            }
            Ok(x.at(at))
        },
        name,
        "injective,pad",
    )
}

/// `a op b` as a Python program computes it: integers folded (an
/// overflow is an error), anything else through the API's operators.
fn fold(op: BinaryOp, a: &Value, b: &Value) -> ApiResult<Value> {
    let (Value::Int(x), Value::Int(y)) = (a, b) else {
        return apply(op, a, b);
    };
    let r = match op {
        BinaryOp::Add => x.checked_add(*y),
        BinaryOp::Sub => x.checked_sub(*y),
        BinaryOp::Mul => x.checked_mul(*y),
        _ => return apply(op, a, b),
    };
    r.map(Value::Int)
        .ok_or_else(|| ApiError::value_error("an index overflows 64 bits".to_string()))
}

/// Checks that `t` (a scale or shift, `what`) has the shape of the axes
/// `axes` of `shape` that are normalised (equal where both are constant).
fn check_normalised_shape(
    what: &str,
    t: &te::Tensor,
    shape: &[Expr],
    axes: &[usize],
) -> ApiResult<()> {
    let reduced_shape: Vec<Expr> = axes.iter().map(|&i| shape[i].clone()).collect();
    let fits = t.ndim() == axes.len()
        && t.shape().iter().zip(&reduced_shape).all(|(a, b)| {
            !matches!((constant_value(a), constant_value(b)), (Some(p), Some(q)) if p != q)
        });
    if fits {
        return Ok(());
    }
    Err(ApiError::value_error(format!(
        "`{what}` must have the shape of the normalised axes {reduced_shape:?}, found {:?}",
        t.shape()
    )))
}

/// TOPI's C++ `cast(x, dtype)`: one compute `T_cast` (tag `elemwise`)
/// over `ax0, ax1, ...`, the element itself when it has the type already.
fn cpp_cast(x: &te::Tensor, dtype: DataType) -> ApiResult<te::Tensor> {
    compute(
        x.shape().to_vec(),
        &names("ax", x.ndim()),
        |o| {
            let v = x.at(o.to_vec());
            Ok(if x.dtype() == dtype {
                v
            } else {
                te::Value::cast(dtype, v)
            })
        },
        "T_cast",
        "elemwise",
    )
}

/// The tensor a TOPI helper returned.
fn tensor_of(v: Value, what: &str) -> ApiResult<te::Tensor> {
    match v {
        Value::Object(Object::Tensor(t)) => Ok(t),
        _ => Err(ApiError::tvm(format!("`{what}` is not a tensor"))),
    }
}

/// TOPI's `rms_norm`: `data * rsqrt(mean(data²) + epsilon) * weight` over
/// `axes`, computed in float32 and cast back to the data's type.
///
/// TOPI indexes its `rsqrt` stage by the output's indices that are not
/// normalised, counted among the first `ndim - len(axes)` only: that is
/// right when `axes` are the last ones, and fails in TVM otherwise; such
/// axes are refused here with that reason.
fn rms_norm(
    host: &mut dyn Host,
    x: &te::Tensor,
    weight: &te::Tensor,
    axes: &[usize],
    epsilon: f64,
) -> ApiResult<te::Tensor> {
    let dtype = x.dtype();
    if weight.dtype() != dtype {
        return Err(ApiError::type_error(
            "rms_norm: data and weight must have the same type",
        ));
    }
    let ndim = x.ndim();
    if ndim == 0 {
        return Err(ApiError::value_error(
            "rms_norm: cannot reduce a 0-dimensional tensor",
        ));
    }
    let kept = ndim - axes.len();
    if kept == 0 || axes.first() != Some(&kept) {
        return Err(ApiError::value_error(format!(
            "rms_norm over the axes {axes:?} of a {ndim}-dimensional tensor: TOPI's rms_norm \
             reads its sums right only when `axis` is the last axes and leaves at least one \
             out (as (-1,) or ({}, ..., {}))",
            ndim - 1,
            ndim - 1
        )));
    }
    let shape = x.shape().to_vec();
    check_normalised_shape("weight", weight, &shape, axes)?;
    let data32 = cpp_cast(x, DataType::Float32)?;
    let weight32 = cpp_cast(weight, DataType::Float32)?;
    let data_value = Value::Object(Object::Tensor(data32.clone()));
    let square = crate::topi_ops::broadcast(BinaryOp::Mul, &data_value, &data_value)?;
    let axis_list = Value::tuple(axes.iter().map(|&a| Value::Int(a as i64)).collect());
    let square_sum = tensor_of(
        crate::topi_ops::sum(host, Args::positional(vec![square, axis_list]))?,
        "T_multiply_red",
    )?;
    let extent = reduce_extent(&shape, axes, DataType::Float32);
    let rsqrt = compute(
        shape[..kept].to_vec(),
        &names("ax", kept),
        |o| {
            let mean =
                te::Value::binary(te::BinaryOp::Div, square_sum.at(o.to_vec()), extent.clone());
            Ok(te::Value::call(
                tir::Intrinsic::Rsqrt,
                vec![te::Value::binary(
                    te::BinaryOp::Add,
                    mean,
                    float_constant(epsilon, DataType::Float32),
                )],
            ))
        },
        "rsqrt",
        "injective",
    )?;
    let normed = compute(
        shape,
        &names("ax", ndim),
        |o| {
            let bin = te::Value::binary;
            Ok(bin(
                te::BinaryOp::Mul,
                bin(
                    te::BinaryOp::Mul,
                    rsqrt.at(o[..kept].to_vec()),
                    data32.at(o.to_vec()),
                ),
                weight32.at(o[kept..].to_vec()),
            ))
        },
        "T_rms_norm",
        "injective",
    )?;
    cpp_cast(&normed, dtype)
}

/// TOPI's `nll_loss`: at each target, `-predictions[n, target, ...] *
/// weights[target]`, or 0 where the target is `ignore_index`, reduced as
/// `reduction` says (for `"mean"`, divided by the sum of the weights
/// used).
fn nll_loss(
    host: &mut dyn Host,
    predictions: &te::Tensor,
    targets: &te::Tensor,
    weights: &te::Tensor,
    reduction: &str,
    ignore_index: i64,
) -> ApiResult<Value> {
    if !targets.dtype().is_int() {
        return Err(ApiError::type_error(format!(
            "nll_loss: `targets` holds class indices, an integer tensor, found {}",
            targets.dtype()
        )));
    }
    let batched = predictions.ndim() != 1;
    let fits = if batched {
        predictions.ndim() >= 2 && targets.ndim() + 1 == predictions.ndim()
    } else {
        targets.ndim() == 0
    };
    if !fits || weights.ndim() != 1 {
        return Err(ApiError::value_error(format!(
            "nll_loss needs predictions of shape (N, C, d1, ...) with targets of shape (N, d1, \
             ...), or predictions (C,) with a 0-dimensional target, and weights (C,): found \
             {:?}, {:?} and {:?}",
            predictions.shape(),
            targets.shape(),
            weights.shape()
        )));
    }
    let dtype = predictions.dtype();
    let zero = || float_constant(0.0, dtype);
    // `c != ignore_index`, `Select(..., value, 0)`: as TVM's operators
    // build them, so the printed program matches TOPI's.
    let kept = |c: &te::Value, value: te::Value| -> ApiResult<te::Value> {
        let cond =
            crate::operators::compare(CmpOp::Ne, &element(c.clone()), &Value::Int(ignore_index))?;
        let picked = crate::casts::select(
            "Select",
            Args::positional(vec![cond, element(value), element(zero())]),
        )?;
        to_element(&picked, None)
    };
    let shape = targets.shape().to_vec();
    let axis_names = names("ax", shape.len());
    let loss = compute(
        shape.clone(),
        &axis_names,
        |o| {
            let c = targets.at(o.to_vec());
            let mut at = Vec::with_capacity(predictions.ndim());
            if batched {
                at.push(te::Value::index(o[0].clone()));
                at.push(c.clone());
                at.extend(o[1..].iter().map(|i| te::Value::index(i.clone())));
            } else {
                at.push(c.clone());
            }
            let picked = te::Value::gather(predictions, at);
            let negated = to_element(
                &crate::operators::unary(crate::UnaryOp::Neg, &element(picked))?,
                None,
            )?;
            let weight = te::Value::gather(weights, vec![c.clone()]);
            kept(&c, te::Value::binary(te::BinaryOp::Mul, negated, weight))
        },
        "nll_loss",
        "broadcast",
    )?;
    let weight_sum = || {
        compute(
            shape.clone(),
            &axis_names,
            |o| {
                let c = targets.at(o.to_vec());
                kept(&c, te::Value::gather(weights, vec![c.clone()]))
            },
            "nll_loss",
            "broadcast",
        )
    };
    let tensor_value = |t: te::Tensor| Value::Object(Object::Tensor(t));
    let mut total = |t: te::Tensor| -> ApiResult<Value> {
        if batched {
            crate::topi_ops::sum(host, Args::positional(vec![tensor_value(t)]))
        } else {
            Ok(tensor_value(t))
        }
    };
    match reduction {
        "mean" => {
            let (l, w) = (total(loss)?, total(weight_sum()?)?);
            crate::topi_ops::broadcast(BinaryOp::Div, &l, &w)
        }
        "sum" if batched => total(loss),
        _ => Ok(tensor_value(loss)),
    }
}
