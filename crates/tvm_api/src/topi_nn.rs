//! TOPI's neural-network operators (`tvm.topi.nn`) as TOPI v0.19 builds
//! them in Python: the same stages, names, tags, axis names and bodies,
//! so that TOPI's own schedules (which call `nn.conv2d_nchw`, `nn.dense`,
//! `nn.depthwise_conv2d_nchw` from their templates) and a user's schedule
//! written against TOPI's output find what they expect.
//!
//! - `nn.pad`: `PadInput` (tag `injective,pad`), the input where the index
//!   is inside it, else `pad_value`;
//! - `nn.conv1d`/`conv2d`/`conv3d` and their `_ncw`, `_nchw`, `_nhwc`,
//!   `_ncdhw`... spellings: TOPI's generic `conv` over any data layout
//!   (`pad_temp`, then `conv2d_nchw` with axes `nn, ff, yy, xx` and
//!   reduction axes `rc, ry, rx` in the layout's order);
//! - `nn.depthwise_conv2d_nchw`: `PaddedInput`, then `DepthwiseConv2d`;
//! - `nn.dense` and `nn.matmul`: `T_matmul_NT` (tag `dense`) or
//!   `T_matmul_NN`..., then `T_add` with the bias; `nn.batch_matmul`:
//!   `T_batch_matmul_NT`...;
//! - `nn.softmax` and `nn.log_softmax`: `T_softmax_maxelem`, ... (tag
//!   `softmax_output`, `log_softmax_output`).
//!
//! Each was checked against TOPI v0.19's own Python code run on this API:
//! the lowered programs print the same text.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::objects::{constant_value, promote, to_index};
use crate::topi_ops::simplify;
use crate::topi_ops::tensor_arg as tensor;
use crate::value::Value;
use crate::Host;
use arith::Expr;
use te::{AttrValue, Attrs};

fn string(g: Option<&Given>, default: &str) -> ApiResult<String> {
    match g.map(|g| (&g.value, g)) {
        None | Some((Value::None, _)) => Ok(default.to_string()),
        Some((Value::Str(s), _)) => Ok(s.to_string()),
        Some((other, g)) => Err(type_error(
            g.place(),
            format!("expected a string, found a {}", other.type_name()),
        )),
    }
}

/// `out_dtype=None`: the input's type.
fn out_dtype(g: Option<&Given>, default: tir::DataType) -> ApiResult<tir::DataType> {
    match g {
        None => Ok(default),
        Some(g) if matches!(g.value, Value::None) => Ok(default),
        Some(g) => crate::casts::dtype_arg(g),
    }
}

/// An integer or a list of `n` of them (strides, dilations), as index
/// expressions.
fn per_axis(g: &Given, what: &str, n: usize) -> ApiResult<Vec<Expr>> {
    crate::topi_ops::index_list(g, what, n)
}

/// `sum over k of a[a_idx].astype(dt) * b[b_idx].astype(dt)`, TOPI's
/// matrix products.
fn product_sum(
    a: (&te::Tensor, Vec<Expr>),
    b: (&te::Tensor, Vec<Expr>),
    dt: tir::DataType,
    k: &te::IterVar,
) -> te::Value {
    te::sum(
        te::Value::binary(
            te::BinaryOp::Mul,
            cast(a.0.at(a.1), dt),
            cast(b.0.at(b.1), dt),
        ),
        std::slice::from_ref(k),
    )
}

/// Registers reduction axes with the session, as `te.reduce_axis` does.
pub(crate) fn note_reduce_axes(host: &mut dyn Host, axes: &[te::IterVar]) {
    for iv in axes {
        host.session().reduce_vars.insert(iv.var().clone());
    }
}

pub(crate) fn compute(
    shape: Vec<Expr>,
    names: &[&str],
    f: impl FnOnce(&[Expr]) -> ApiResult<te::Value>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> ApiResult<te::Tensor> {
    te::try_compute_tagged::<crate::functions::BuildFailure>(
        shape,
        names,
        |i| f(i).map_err(crate::functions::BuildFailure::Host),
        name,
        tag,
        attrs,
    )
    .map_err(ApiError::from)
}

fn varargs_names(n: usize) -> Vec<String> {
    (0..n).map(|d| format!("i{d}")).collect()
}

/// `x.astype(dt)` of an element: itself when it has the type.
pub(crate) fn cast(v: te::Value, dt: tir::DataType) -> te::Value {
    if v.dtype() == dt {
        v
    } else {
        te::Value::cast(dt, v)
    }
}

/// TOPI's `pad`: `name` (tag `injective,pad`) over axes `i0, i1, ...`.
pub(crate) fn pad_tensor(
    x: &te::Tensor,
    before: &[Expr],
    after: &[Expr],
    value: te::Value,
    name: &str,
    attrs: Attrs,
) -> ApiResult<te::Tensor> {
    let n = x.ndim();
    let shape: Vec<Expr> = (0..n)
        .map(|i| simplify(x.shape()[i].clone() + before[i].clone() + after[i].clone()))
        .collect();
    let names = varargs_names(n);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let zero = |e: &Expr| constant_value(e) == Some(0);
    compute(
        shape,
        &names,
        |idx| {
            let mut conds = Vec::new();
            let mut at = Vec::with_capacity(n);
            for i in 0..n {
                if zero(&before[i]) && zero(&after[i]) {
                    at.push(idx[i].clone());
                } else {
                    at.push(idx[i].clone() - before[i].clone());
                    conds.push(Expr::ge(idx[i].clone(), before[i].clone()));
                    conds.push(Expr::lt(
                        idx[i].clone(),
                        x.shape()[i].clone() + before[i].clone(),
                    ));
                }
            }
            let load = x.at(at);
            Ok(match conds.into_iter().reduce(Expr::and) {
                Some(c) => te::Value::select(c, load, value),
                None => load,
            })
        },
        name,
        "injective,pad",
        attrs,
    )
}

/// TOPI's `dilate`: `data` spread out by `strides` (tag
/// `injective,dilate`), `value` between its elements.
fn dilate_tensor(
    x: &te::Tensor,
    strides: &[Expr],
    value: te::Value,
    name: &str,
) -> ApiResult<te::Tensor> {
    let n = x.ndim();
    if strides.len() != n {
        return Err(ApiError::value_error(format!(
            "data dimension and strides size dismatch : {n} vs {}",
            strides.len()
        )));
    }
    let shape: Vec<Expr> = (0..n)
        .map(|i| simplify((x.shape()[i].clone() - 1) * strides[i].clone() + 1))
        .collect();
    let names = varargs_names(n);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    compute(
        shape,
        &names,
        |idx| {
            let mut conds = Vec::new();
            let mut at = Vec::with_capacity(n);
            for (i, s) in strides.iter().enumerate() {
                if constant_value(s) == Some(1) {
                    at.push(idx[i].clone());
                } else {
                    at.push(Expr::floor_div(idx[i].clone(), s.clone()));
                    conds.push(Expr::eq(
                        Expr::floor_mod(idx[i].clone(), s.clone()),
                        Expr::int(0),
                    ));
                }
            }
            let load = x.at(at);
            Ok(match conds.into_iter().reduce(Expr::and) {
                Some(c) => te::Value::select(c, load, value),
                None => load,
            })
        },
        name,
        "injective,dilate",
        Attrs::new(),
    )
}

/// `tvm.tir.const(0.0, x.dtype)`.
fn zero_of(x: &te::Tensor, g: &Given) -> ApiResult<te::Value> {
    let typed = crate::functions::typed_constant(&Value::Float(0.0), x.dtype(), g.place())?;
    crate::objects::to_element(&typed, g.place())
}

/// `nn.dilate(data, strides, dilation_value=0.0, name="DilatedInput")`.
pub(crate) fn dilate(args: Args) -> ApiResult<Value> {
    let a = args.bind("dilate", &["data", "strides", "dilation_value", "name"])?;
    let x = tensor(a.required("data")?, "dilate")?;
    let g = a.required("strides")?;
    let n = g.value.sequence().map_or(0, |v| v.len());
    let strides = positive_sizes(per_axis(g, "strides", n)?, "strides")?;
    let value = match a.get("dilation_value") {
        None => zero_of(&x, a.required("data")?)?,
        Some(g) => {
            let typed = crate::functions::typed_constant(&promote(&g.value), x.dtype(), g.place())?;
            crate::objects::to_element(&typed, g.place())?
        }
    };
    let name = string(a.get("name"), "DilatedInput")?;
    let out = dilate_tensor(&x, &strides, value, &name)?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `nn.conv2d_transpose_nchw_preprocess(data, kernel, strides, padding,
/// out_dtype, output_padding)` and the 3-D `conv3d_transpose_ncdhw_...`:
/// the input dilated by the strides (`data_dilate`) and padded so that a
/// plain convolution computes the transposed one (`data_pad`), and the
/// kernel from `IO...` to `OI...`, rotated by 180 degrees
/// (`kernel_transform`).
pub(crate) fn transpose_preprocess(args: Args, dims: usize) -> ApiResult<Value> {
    let what = if dims == 3 {
        "conv3d_transpose_ncdhw_preprocess"
    } else {
        "conv2d_transpose_nchw_preprocess"
    };
    let a = args.bind(
        what,
        &[
            "data",
            "kernel",
            "strides",
            "padding",
            "out_dtype",
            "output_padding",
        ],
    )?;
    let data = tensor(a.required("data")?, what)?;
    let kernel = tensor(a.required("kernel")?, what)?;
    if data.ndim() != dims + 2 || kernel.ndim() != dims + 2 {
        return Err(ApiError::value_error(format!(
            "`{what}` takes {}-D data and kernel",
            dims + 2
        )));
    }
    let strides = positive_sizes(
        per_axis(a.required("strides")?, "strides", dims)?,
        "strides",
    )?;
    let opad = per_axis(a.required("output_padding")?, "output_padding", dims)?;
    for (o, s) in opad.iter().zip(&strides) {
        match (constant_value(o), constant_value(s)) {
            (Some(o), Some(s)) if o >= 0 && o < s => {}
            _ => {
                return Err(ApiError::assertion(format!(
                    "each output padding must be below its stride: {o} and {s}"
                )))
            }
        }
    }
    let filter: Vec<Expr> = kernel.shape()[2..].to_vec();
    let mut dilate_strides = vec![Expr::int(1), Expr::int(1)];
    dilate_strides.extend(strides.iter().cloned());
    let fill = zero_of(&data, a.required("data")?)?;
    let dilated = dilate_tensor(&data, &dilate_strides, fill.clone(), "data_dilate")?;
    let (fbegin, fend) = if dims == 2 {
        let [t, l, b, r] = pad_tuple_2d(a.required("padding")?, [&filter[0], &filter[1]])?;
        (vec![t, l], vec![b, r])
    } else {
        pad_tuple(a.required("padding")?, &filter)?
    };
    let zero = Expr::int(0);
    let mut before = vec![zero.clone(), zero.clone()];
    let mut after = vec![zero.clone(), zero];
    for i in 0..dims {
        before.push(simplify(filter[i].clone() - 1 - fbegin[i].clone()));
        after.push(simplify(
            filter[i].clone() - 1 - fend[i].clone() + opad[i].clone(),
        ));
    }
    let padded = pad_tensor(&dilated, &before, &after, fill, "data_pad", Attrs::new())?;
    let k = kernel.shape().to_vec();
    let mut shape = vec![k[1].clone(), k[0].clone()];
    shape.extend(filter.iter().cloned());
    let names: &[&str] = if dims == 3 {
        &["o", "i", "d", "h", "w"]
    } else {
        &["o", "i", "h", "w"]
    };
    let transformed = compute(
        shape,
        names,
        |idx| {
            let mut at = vec![idx[1].clone(), idx[0].clone()];
            for i in 0..dims {
                at.push(filter[i].clone() - 1 - idx[2 + i].clone());
            }
            Ok(kernel.at(at))
        },
        "kernel_transform",
        "",
        Attrs::new(),
    )?;
    Ok(Value::Tuple(std::rc::Rc::from(vec![
        Value::Object(Object::Tensor(padded)),
        Value::Object(Object::Tensor(transformed)),
    ])))
}

/// `nn.pad(data, pad_before, pad_after=None, pad_value=0.0,
/// name="PadInput", attrs=None)`.
pub(crate) fn pad(args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "pad",
        &[
            "data",
            "pad_before",
            "pad_after",
            "pad_value",
            "name",
            "attrs",
        ],
    )?;
    let x = tensor(a.required("data")?, "pad")?;
    let n = x.ndim();
    let before_arg = a.required("pad_before")?;
    let before = per_axis(before_arg, "pad_before", n).map_err(|e| {
        ApiError::new(
            e.class,
            format!("Input dimension and pad_before dismatch : {}", e.message),
        )
    })?;
    let before = int32_sizes(before, "pad_before")?;
    let after = match a.get("pad_after") {
        Some(g) if !matches!(g.value, Value::None) => {
            int32_sizes(per_axis(g, "pad_after", n)?, "pad_after")?
        }
        _ => before.clone(),
    };
    let value = match a.get("pad_value") {
        None => crate::objects::float_constant(0.0, x.dtype()),
        Some(g) => match promote(&g.value) {
            Value::Object(Object::Element(e)) => e,
            v => {
                let typed = crate::functions::typed_constant(&v, x.dtype(), g.place())?;
                crate::objects::to_element(&typed, g.place())?
            }
        },
    };
    let value = if x.dtype().is_float() || a.get("pad_value").is_some() {
        value
    } else {
        te::Value::int(0)
    };
    let name = string(a.get("name"), "PadInput")?;
    let attrs = crate::tags::attrs(a.get("attrs"))?;
    Ok(Value::Object(Object::Tensor(pad_tensor(
        &x, &before, &after, value, &name, attrs,
    )?)))
}

/// TOPI's `get_pad_tuple_generic(padding, kernel)`: the padding before
/// and after each spatial axis.
fn pad_tuple(g: &Given, kernel: &[Expr]) -> ApiResult<(Vec<Expr>, Vec<Expr>)> {
    let (begin, end) = pad_tuple_unchecked(g, kernel)?;
    Ok((int32_sizes(begin, "padding")?, int32_sizes(end, "padding")?))
}

fn pad_tuple_unchecked(g: &Given, kernel: &[Expr]) -> ApiResult<(Vec<Expr>, Vec<Expr>)> {
    let n = kernel.len();
    let total: Vec<Expr> = match promote(&g.value) {
        Value::Str(s) if &*s == "VALID" => vec![Expr::int(0); n],
        Value::Str(s) if &*s == "SAME" => kernel.iter().map(|k| k.clone() - 1).collect(),
        Value::Str(s) => {
            return Err(
                ApiError::value_error(format!("Unknown padding option {s}")).at(g.at.clone())
            )
        }
        v @ (Value::Int(_) | Value::Index(_)) => {
            let p = int32_sizes(vec![to_index(&g.item(v))?], "padding")?;
            vec![p[0].clone() * 2; n]
        }
        v => {
            let items = v.sequence().ok_or_else(|| {
                type_error(
                    g.place(),
                    format!("`padding` cannot be a {}", v.type_name()),
                )
            })?;
            let items: Vec<Expr> = items
                .into_iter()
                .map(|v| to_index(&g.item(v)))
                .collect::<ApiResult<_>>()?;
            let items = int32_sizes(items, "padding")?;
            if items.len() == 2 * n {
                return Ok((items[..n].to_vec(), items[n..].to_vec()));
            }
            if items.len() != n {
                return Err(ApiError::value_error(
                    "Size of padding can only be len(kernel) or len(kernel) * 2",
                )
                .at(g.at.clone()));
            }
            items.into_iter().map(|p| p * 2).collect()
        }
    };
    let begin: Vec<Expr> = total
        .iter()
        .map(|p| simplify(Expr::floor_div(p.clone() + 1, Expr::int(2))))
        .collect();
    let end = total
        .iter()
        .zip(&begin)
        .map(|(p, b)| simplify(p.clone() - b.clone()))
        .collect();
    Ok((begin, end))
}

/// The positions of a layout's axes in TOPI's canonical order: `axes[0]`,
/// `axes[1]` (`N`, `C` or `O`, `I`), then the others in the layout's
/// order. The layout must name each of `ndim` axes once.
fn layout_order(layout: &str, ndim: usize, axes: [char; 2], what: &str) -> ApiResult<Vec<usize>> {
    let chars: Vec<char> = layout.chars().collect();
    let distinct = chars
        .iter()
        .enumerate()
        .all(|(i, c)| c.is_ascii_alphabetic() && !chars[..i].contains(c));
    let (Some(first), Some(second)) = (
        chars.iter().position(|c| *c == axes[0]),
        chars.iter().position(|c| *c == axes[1]),
    ) else {
        return Err(ApiError::value_error(format!(
            "the {what} layout `{layout}` has no `{}` or no `{}` axis",
            axes[0], axes[1]
        )));
    };
    if chars.len() != ndim || !distinct {
        return Err(ApiError::value_error(format!(
            "the {what} layout `{layout}` does not name each axis of a {ndim}-dimensional \
             tensor once"
        )));
    }
    let mut order = vec![first, second];
    order.extend((0..ndim).filter(|i| *i != first && *i != second));
    Ok(order)
}

/// Constants of `int32`, as TVM's `IntImm`s of strides, dilations and
/// paddings are: a larger one is an error, not a size that overflows.
fn int32_sizes(sizes: Vec<Expr>, what: &str) -> ApiResult<Vec<Expr>> {
    match sizes
        .iter()
        .find_map(|s| s.as_int().filter(|v| i32::try_from(*v).is_err()))
    {
        Some(bad) => Err(ApiError::new(
            ErrorClass::OverflowError,
            format!("`{what}` holds {bad}, which does not fit in int32"),
        )),
        None => Ok(sizes),
    }
}

/// Strides and dilations: positive `int32`s where they are constants.
fn positive_sizes(sizes: Vec<Expr>, what: &str) -> ApiResult<Vec<Expr>> {
    let sizes = int32_sizes(sizes, what)?;
    match sizes.iter().find_map(|s| s.as_int().filter(|v| *v < 1)) {
        Some(bad) => Err(ApiError::value_error(format!(
            "`{what}` must be at least 1, found {bad}"
        ))),
        None => Ok(sizes),
    }
}

/// The inverse of a permutation (`np.argsort`).
fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

/// Which `conv` spelling: the data layout fixed by the name, or taken
/// from `data_layout=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvForm {
    /// `conv1d`, `conv2d`, `conv3d(..., data_layout=...)`: the layout is an
    /// argument; the number is the spatial rank.
    Layout(usize),
    /// `conv2d_nchw`, `conv2d_nhwc`, `conv1d_ncw`, `conv3d_ndhwc`...
    Fixed(&'static str),
    /// `group_conv2d_nchw`, `group_conv1d_nwc`...: a fixed layout and a
    /// `groups` argument.
    Grouped(&'static str),
}

/// `nn.conv2d_nchw(Input, Filter, stride, padding, dilation,
/// out_dtype=None)` and the other spellings of TOPI's generic `conv`.
pub(crate) fn conv(host: &mut dyn Host, args: Args, form: ConvForm) -> ApiResult<Value> {
    // TOPI's 3-D spellings take `groups` too.
    let grouped = matches!(
        form,
        ConvForm::Fixed("NCDHW" | "NDHWC") | ConvForm::Grouped(_)
    );
    let mut params = vec!["input", "filter", "strides", "padding", "dilation"];
    if grouped {
        params.push("groups");
    }
    if matches!(form, ConvForm::Layout(_)) {
        params.extend(["data_layout", "kernel_layout"]);
    }
    params.push("out_dtype");
    let a = args.bind("conv", &params)?;
    let inp = tensor(a.required("input")?, "conv")?;
    let filt = tensor(a.required("filter")?, "conv")?;
    let (data_layout, kernel_layout) = match form {
        ConvForm::Fixed(layout) | ConvForm::Grouped(layout) => (layout.to_string(), String::new()),
        ConvForm::Layout(d) => {
            let default = ["NCW", "NCHW", "NCDHW"][d.clamp(1, 3) - 1];
            (
                string(a.get("data_layout"), default)?,
                string(a.get("kernel_layout"), "")?,
            )
        }
    };
    let groups = match grouped.then(|| a.get("groups")).flatten() {
        None => 1,
        Some(g) => crate::operators::as_int(&g.value)
            .filter(|g| *g >= 1)
            .ok_or_else(|| type_error(g.place(), "`groups` is a positive integer"))?,
    };
    let dim = inp.ndim().saturating_sub(2);
    if dim == 0 {
        return Err(ApiError::value_error(format!(
            "`conv` needs data with spatial axes, found a {}-dimensional tensor",
            inp.ndim()
        )));
    }
    let data_to = layout_order(&data_layout, inp.ndim(), ['N', 'C'], "data")?;
    let strides = positive_sizes(per_axis(a.required("strides")?, "strides", dim)?, "strides")?;
    let dilations = match a.get("dilation") {
        Some(g) => positive_sizes(per_axis(g, "dilation", dim)?, "dilation")?,
        None => vec![Expr::int(1); dim],
    };
    let dt = out_dtype(a.get("out_dtype"), inp.dtype())?;
    let data_from = inverse(&data_to);
    let mut from_reductions: Vec<usize> = data_from[1..].to_vec();
    for p in &mut from_reductions {
        if *p > data_from[0] {
            *p -= 1;
        }
    }
    if filt.ndim() != dim + 2 {
        return Err(ApiError::value_error(format!(
            "the filter of a {dim}-dimensional convolution has {} dimensions, not {}",
            filt.ndim(),
            dim + 2
        )));
    }
    let kernel_to: Vec<usize> = if kernel_layout.is_empty() {
        // TOPI's rule: `C` before the spatial axes means OIHW, else HWIO.
        if data_to[1] < data_to[2] {
            (0..dim + 2).collect()
        } else {
            let mut k = vec![dim + 1, dim];
            k.extend(0..dim);
            k
        }
    } else {
        layout_order(&kernel_layout, filt.ndim(), ['O', 'I'], "kernel")?
    };
    let kernel_from = inverse(&kernel_to);
    let in_shape: Vec<Expr> = data_to.iter().map(|&i| inp.shape()[i].clone()).collect();
    let k_shape: Vec<Expr> = kernel_to.iter().map(|&i| filt.shape()[i].clone()).collect();
    let (batch, in_channel, dimensions) = (&in_shape[0], &in_shape[1], &in_shape[2..]);
    let (num_filter, kernel_dims) = (&k_shape[0], &k_shape[2..]);
    for (size, what) in [(in_channel, "input"), (num_filter, "output")] {
        if size.as_int().is_some_and(|c| c % groups != 0) {
            return Err(ApiError::assertion(format!(
                "{what} channels must divide group size ({size} channels, {groups} groups)"
            )));
        }
    }
    let dilated: Vec<Expr> = kernel_dims
        .iter()
        .zip(&dilations)
        .map(|(k, d)| simplify((k.clone() - 1) * d.clone() + 1))
        .collect();
    let (pad_begin, pad_end) = pad_tuple(a.required("padding")?, &dilated)?;
    let out_dims: Vec<Expr> = (0..dim)
        .map(|i| {
            simplify(
                Expr::floor_div(
                    dimensions[i].clone() - (kernel_dims[i].clone() - 1) * dilations[i].clone() - 1
                        + pad_begin[i].clone()
                        + pad_end[i].clone(),
                    strides[i].clone(),
                ) + 1,
            )
        })
        .collect();
    let in_layout_order = |nc_spatial: &[Expr]| -> Vec<Expr> {
        data_from.iter().map(|&i| nc_spatial[i].clone()).collect()
    };
    let zero = Expr::int(0);
    let mut before = vec![zero.clone(), zero.clone()];
    before.extend(pad_begin.iter().cloned());
    let mut after = vec![zero.clone(), zero];
    after.extend(pad_end.iter().cloned());
    let temp = pad_tensor(
        &inp,
        &in_layout_order(&before),
        &in_layout_order(&after),
        crate::objects::float_constant(0.0, inp.dtype()),
        "pad_temp",
        Attrs::new(),
    )?;
    let group_size = simplify(Expr::floor_div(in_channel.clone(), Expr::int(groups)));
    let rc = te::reduce_axis((Expr::int(0), group_size.clone()), "rc");
    let rs: Vec<te::IterVar> = kernel_dims
        .iter()
        .zip(["ry", "rx", "rz"])
        .map(|(k, n)| te::reduce_axis((Expr::int(0), k.clone()), n))
        .collect();
    let mut reduce_nc: Vec<te::IterVar> = vec![rc.clone()];
    reduce_nc.extend(rs.iter().cloned());
    let reduce_axes: Vec<te::IterVar> = from_reductions
        .iter()
        .map(|&i| reduce_nc[i].clone())
        .collect();
    note_reduce_axes(host, &reduce_axes);
    let mut out_shape = vec![batch.clone(), num_filter.clone()];
    out_shape.extend(out_dims);
    let out_shape = in_layout_order(&out_shape);
    let all_names = ["nn", "ff", "yy", "xx", "zz"];
    let names: Vec<&str> = data_from.iter().map(|&i| all_names[i.min(4)]).collect();
    let prefix = if groups > 1 { "group_" } else { "" };
    let name = format!("{prefix}conv{dim}d_{}", data_layout.to_lowercase());
    let filters_per_group = simplify(Expr::floor_div(num_filter.clone(), Expr::int(groups)));
    let out = compute(
        out_shape,
        &names,
        |args| {
            let nc: Vec<Expr> = data_to.iter().map(|&i| args[i].clone()).collect();
            let (n, ff, spatial_idx) = (&nc[0], &nc[1], &nc[2..]);
            let channel = if groups == 1 {
                rc.expr()
            } else {
                Expr::floor_div(ff.clone(), filters_per_group.clone()) * group_size.clone()
                    + rc.expr()
            };
            let mut data_idx = vec![n.clone(), channel];
            for i in 0..dim {
                data_idx.push(
                    spatial_idx[i].clone() * strides[i].clone()
                        + rs[i].expr() * dilations[i].clone(),
                );
            }
            let mut filt_idx = vec![ff.clone(), rc.expr()];
            filt_idx.extend(rs.iter().map(te::IterVar::expr));
            let filt_idx: Vec<Expr> = kernel_from.iter().map(|&i| filt_idx[i].clone()).collect();
            let product = te::Value::binary(
                te::BinaryOp::Mul,
                cast(temp.at(in_layout_order(&data_idx)), dt),
                cast(filt.at(filt_idx), dt),
            );
            Ok(te::sum(product, &reduce_axes))
        },
        &name,
        &name,
        Attrs::new(),
    )?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// TOPI's `get_pad_tuple(padding, (kh, kw))`: top, left, down, right.
pub(crate) fn pad_tuple_2d(g: &Given, kernel: [&Expr; 2]) -> ApiResult<[Expr; 4]> {
    let v = promote(&g.value);
    if let Some(items) = v.sequence().filter(|i| i.len() == 4) {
        let p: Vec<Expr> = items
            .into_iter()
            .map(|v| to_index(&g.item(v)))
            .collect::<ApiResult<_>>()?;
        return Ok([p[0].clone(), p[1].clone(), p[2].clone(), p[3].clone()]);
    }
    let (begin, end) = pad_tuple(g, &[kernel[0].clone(), kernel[1].clone()])?;
    Ok([
        begin[0].clone(),
        begin[1].clone(),
        end[0].clone(),
        end[1].clone(),
    ])
}

/// `nn.depthwise_conv2d_nchw(Input, Filter, stride, padding, dilation,
/// out_dtype=None)`: `PaddedInput`, then `DepthwiseConv2d` (tag
/// `depthwise_conv2d_nchw`).
pub(crate) fn depthwise_conv2d_nchw(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "depthwise_conv2d_nchw",
        &[
            "Input",
            "Filter",
            "stride",
            "padding",
            "dilation",
            "out_dtype",
        ],
    )?;
    let inp = tensor(a.required("Input")?, "depthwise_conv2d_nchw")?;
    let filt = tensor(a.required("Filter")?, "depthwise_conv2d_nchw")?;
    if inp.ndim() != 4 || filt.ndim() != 4 {
        return Err(ApiError::value_error(
            "`depthwise_conv2d_nchw` takes a 4-dimensional input and filter",
        ));
    }
    let dt = out_dtype(a.get("out_dtype"), inp.dtype())?;
    let stride = positive_sizes(per_axis(a.required("stride")?, "stride", 2)?, "stride")?;
    let dilation = match a.get("dilation") {
        Some(g) => positive_sizes(per_axis(g, "dilation", 2)?, "dilation")?,
        None => vec![Expr::int(1); 2],
    };
    let s = inp.shape().to_vec();
    let (batch, in_channel, in_height, in_width) = (&s[0], &s[1], &s[2], &s[3]);
    let f = filt.shape().to_vec();
    let (multiplier, fh, fw) = (&f[1], &f[2], &f[3]);
    let dkh = simplify((fh.clone() - 1) * dilation[0].clone() + 1);
    let dkw = simplify((fw.clone() - 1) * dilation[1].clone() + 1);
    let [top, left, down, right] = pad_tuple_2d(a.required("padding")?, [&dkh, &dkw])?;
    let out_channel = simplify(in_channel.clone() * multiplier.clone());
    let out_h = simplify(
        Expr::floor_div(
            in_height.clone() - dkh + top.clone() + down.clone(),
            stride[0].clone(),
        ) + 1,
    );
    let out_w = simplify(
        Expr::floor_div(
            in_width.clone() - dkw + left.clone() + right.clone(),
            stride[1].clone(),
        ) + 1,
    );
    let zero = Expr::int(0);
    let padded = pad_tensor(
        &inp,
        &[zero.clone(), zero.clone(), top, left],
        &[zero.clone(), zero, down, right],
        crate::objects::float_constant(0.0, inp.dtype()),
        "PaddedInput",
        Attrs::new(),
    )?;
    let di = te::reduce_axis((Expr::int(0), fh.clone()), "di");
    let dj = te::reduce_axis((Expr::int(0), fw.clone()), "dj");
    let axes = [di.clone(), dj.clone()];
    note_reduce_axes(host, &axes);
    let out = compute(
        vec![batch.clone(), out_channel, out_h, out_w],
        &["b", "c", "i", "j"],
        |o| {
            let (b, c, i, j) = (&o[0], &o[1], &o[2], &o[3]);
            let group = Expr::floor_div(c.clone(), multiplier.clone());
            let data = padded.at(vec![
                b.clone(),
                group.clone(),
                i.clone() * stride[0].clone() + di.expr() * dilation[0].clone(),
                j.clone() * stride[1].clone() + dj.expr() * dilation[1].clone(),
            ]);
            let weight = filt.at(vec![
                group,
                Expr::floor_mod(c.clone(), multiplier.clone()),
                di.expr(),
                dj.expr(),
            ]);
            Ok(te::sum(
                te::Value::binary(te::BinaryOp::Mul, cast(data, dt), cast(weight, dt)),
                &axes,
            ))
        },
        "DepthwiseConv2d",
        "depthwise_conv2d_nchw",
        Attrs::new(),
    )?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `nn.conv2d_NCHWc(data, kernel, stride, padding, dilation, layout,
/// out_layout, out_dtype="float32")`: the convolution of TOPI's x86
/// schedules over blocked layouts (data `[n, ic_chunk, h, w, ic_block]`,
/// kernel `[oc_chunk, ic_chunk, kh, kw, ic_block, oc_block]`), grouped
/// when the kernel has fewer input channels than the data. `data_pad`
/// (only when there is padding), then `conv2d_NCHWc` (axes `n, oc_chunk,
/// oh, ow, oc_block`, or `occ` for groups; reductions `ic, kh, kw`).
pub(crate) fn conv2d_nchwc(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "conv2d_NCHWc",
        &[
            "data",
            "kernel",
            "stride",
            "padding",
            "dilation",
            "layout",
            "out_layout",
            "out_dtype",
        ],
    )?;
    let data = tensor(a.required("data")?, "conv2d_NCHWc")?;
    let kernel = tensor(a.required("kernel")?, "conv2d_NCHWc")?;
    if data.ndim() != 5 || kernel.ndim() != 6 {
        return Err(ApiError::value_error(format!(
            "`conv2d_NCHWc` takes 5-D data and a 6-D kernel, found {} and {} dimensions",
            data.ndim(),
            kernel.ndim()
        )));
    }
    // TOPI reads the target first (`Target.current(allow_none=False)`).
    if host.session().targets.is_empty() {
        return Err(ApiError::tvm(
            "Target context required. Please set it by constructing a TargetContext",
        ));
    }
    let stride = positive_sizes(per_axis(a.required("stride")?, "stride", 2)?, "stride")?;
    let dilation = positive_sizes(
        per_axis(a.required("dilation")?, "dilation", 2)?,
        "dilation",
    )?;
    let dt = match a.get("out_dtype") {
        None => tir::DataType::Float32,
        Some(g) => crate::casts::dtype_arg(g)?,
    };
    let d = data.shape().to_vec();
    let (n, ic_chunk, ih, iw, ic_bn) = (&d[0], &d[1], &d[2], &d[3], &d[4]);
    let k = kernel.shape().to_vec();
    let (oc_chunk, ic_chunk_group, kh_size, kw_size, kernel_ic_bn, oc_bn) =
        (&k[0], &k[1], &k[2], &k[3], &k[4], &k[5]);
    let in_channel = simplify(ic_chunk.clone() * ic_bn.clone());
    let groups = simplify(Expr::floor_div(
        in_channel.clone(),
        ic_chunk_group.clone() * kernel_ic_bn.clone(),
    ));
    let groups = groups.as_int().ok_or_else(|| {
        ApiError::value_error(format!(
            "`conv2d_NCHWc` needs a constant number of groups, found `{groups}`"
        ))
    })?;
    if groups < 1 {
        return Err(ApiError::value_error(
            "the kernel of `conv2d_NCHWc` has more input channels than the data",
        ));
    }
    let dkh = simplify((kh_size.clone() - 1) * dilation[0].clone() + 1);
    let dkw = simplify((kw_size.clone() - 1) * dilation[1].clone() + 1);
    let [top, left, down, right] = pad_tuple_2d(a.required("padding")?, [&dkh, &dkw])?;
    let hpad = simplify(top.clone() + down.clone());
    let wpad = simplify(left.clone() + right.clone());
    let out_h = simplify(Expr::floor_div(ih.clone() + hpad.clone() - dkh, stride[0].clone()) + 1);
    let out_w = simplify(Expr::floor_div(iw.clone() + wpad.clone() - dkw, stride[1].clone()) + 1);
    let zero = Expr::int(0);
    let padded = if hpad.is_int(0) && wpad.is_int(0) {
        data.clone()
    } else {
        pad_tensor(
            &data,
            &[zero.clone(), zero.clone(), top, left, zero.clone()],
            &[zero.clone(), zero.clone(), down, right, zero],
            crate::objects::float_constant(0.0, data.dtype()),
            "data_pad",
            Attrs::new(),
        )?
    };
    let kh = te::reduce_axis((Expr::int(0), kh_size.clone()), "kh");
    let kw = te::reduce_axis((Expr::int(0), kw_size.clone()), "kw");
    let ic_extent = simplify(Expr::floor_div(in_channel, Expr::int(groups)));
    let ic = te::reduce_axis((Expr::int(0), ic_extent), "ic");
    let axes = [ic.clone(), kh.clone(), kw.clone()];
    note_reduce_axes(host, &axes);
    let names = if groups == 1 {
        ["n", "oc_chunk", "oh", "ow", "oc_block"]
    } else {
        ["n", "occ", "oh", "ow", "oc_block"]
    };
    let out = compute(
        vec![n.clone(), oc_chunk.clone(), out_h, out_w, oc_bn.clone()],
        &names,
        |o| {
            let (b, occ, oh, ow, ocb) = (&o[0], &o[1], &o[2], &o[3], &o[4]);
            let chunk = Expr::floor_div(ic.expr(), ic_bn.clone());
            let data_chunk = if groups == 1 {
                chunk.clone()
            } else {
                Expr::floor_div(
                    occ.clone(),
                    Expr::floor_div(oc_chunk.clone(), Expr::int(groups)),
                ) * Expr::floor_div(ic_chunk.clone(), Expr::int(groups))
                    + chunk.clone()
            };
            let x = padded.at(vec![
                b.clone(),
                data_chunk,
                oh.clone() * stride[0].clone() + kh.expr() * dilation[0].clone(),
                ow.clone() * stride[1].clone() + kw.expr() * dilation[1].clone(),
                Expr::floor_mod(ic.expr(), ic_bn.clone()),
            ]);
            let w = kernel.at(vec![
                occ.clone(),
                chunk,
                kh.expr(),
                kw.expr(),
                Expr::floor_mod(ic.expr(), ic_bn.clone()),
                ocb.clone(),
            ]);
            Ok(te::sum(
                te::Value::binary(te::BinaryOp::Mul, cast(x, dt), cast(w, dt)),
                &axes,
            ))
        },
        "conv2d_NCHWc",
        "conv2d_NCHWc",
        Attrs::new(),
    )?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `nn.dense(data, weight, bias=None, out_dtype=None)` (`matmul` with
/// `transpose_b`) and `nn.matmul(tensor_a, tensor_b, bias=None,
/// out_dtype=None, transpose_a=False, transpose_b=False)`: two-dimensional
/// operands.
pub(crate) fn matmul(host: &mut dyn Host, args: Args, dense: bool) -> ApiResult<Value> {
    let params: &[&'static str] = if dense {
        &[
            "data",
            "weight",
            "bias",
            "out_dtype",
            "auto_scheduler_rewritten_layout",
            "meta_schedule_original_shape",
        ]
    } else {
        &[
            "tensor_a",
            "tensor_b",
            "bias",
            "out_dtype",
            "transpose_a",
            "transpose_b",
            "auto_scheduler_rewritten_layout",
            "meta_schedule_original_shape",
        ]
    };
    let a = args.bind(if dense { "dense" } else { "matmul" }, params)?;
    let ta = tensor(a.required(params[0])?, "matmul")?;
    let tb = tensor(a.required(params[1])?, "matmul")?;
    let flag = |name: &str, default: bool| -> ApiResult<bool> {
        a.get(name)
            .map_or(Ok(default), |g| crate::operators::truth(&g.value))
    };
    let (trans_a, trans_b) = if dense {
        (false, true)
    } else {
        (flag("transpose_a", false)?, flag("transpose_b", false)?)
    };
    if ta.ndim() != 2 || tb.ndim() != 2 {
        return Err(ApiError::not_supported(
            "`matmul` of operands with batch dimensions is not supported: use `nn.batch_matmul`",
        ));
    }
    let dt = out_dtype(a.get("out_dtype"), ta.dtype())?;
    let (sa, sb) = (ta.shape().to_vec(), tb.shape().to_vec());
    let (in_dim, red_a) = if trans_a {
        (&sa[1], &sa[0])
    } else {
        (&sa[0], &sa[1])
    };
    let (out_dim, red_b) = if trans_b {
        (&sb[0], &sb[1])
    } else {
        (&sb[1], &sb[0])
    };
    if let (Some(x), Some(y)) = (red_a.as_int(), red_b.as_int()) {
        if x != y {
            return Err(ApiError::assertion(format!(
                "Reduction dimensions of dense do not match. {x} vs {y}."
            )));
        }
    }
    let k = te::reduce_axis((Expr::int(0), red_a.clone()), "k");
    note_reduce_axes(host, std::slice::from_ref(&k));
    let name = match (trans_a, trans_b) {
        (true, true) => "T_matmul_TT",
        (true, false) => "T_matmul_TN",
        (false, true) => "T_matmul_NT",
        (false, false) => "T_matmul_NN",
    };
    let tag = if (trans_a, trans_b) == (false, true) {
        "dense"
    } else {
        "matmul"
    };
    let mut attrs = Attrs::new();
    attrs.insert(
        "layout_free_placeholders".to_string(),
        AttrValue::List(vec![AttrValue::Tensor(tb.clone())]),
    );
    let mat = compute(
        vec![in_dim.clone(), out_dim.clone()],
        &["i0", "i1"],
        |o| {
            let (i, j) = (o[0].clone(), o[1].clone());
            let a_idx = if trans_a {
                vec![k.expr(), i]
            } else {
                vec![i, k.expr()]
            };
            let b_idx = if trans_b {
                vec![j, k.expr()]
            } else {
                vec![k.expr(), j]
            };
            Ok(product_sum((&ta, a_idx), (&tb, b_idx), dt, &k))
        },
        name,
        tag,
        attrs,
    )?;
    let mat = Value::Object(Object::Tensor(mat));
    match a.get("bias") {
        Some(g) if !matches!(g.value, Value::None) => {
            // `add(mat, bias.astype(out_dtype))`, as TOPI writes it.
            let bias = crate::topi_ops::cast_tensor(&tensor(g, "bias")?, dt)?;
            crate::topi_ops::broadcast(crate::BinaryOp::Add, &mat, &bias)
        }
        _ => Ok(mat),
    }
}

/// What one of TOPI's `infer_*` helpers reads back from stage shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inferred {
    /// `infer_pad(data, data_pad)`: `(hpad, wpad)`, half the growth of
    /// each NCHW spatial axis (`(0, 0)` without a pad stage).
    Pad,
    /// `infer_pad3d(data, data_pad, layout)`: `(dpad, hpad, wpad)`, the
    /// whole growth of each spatial axis of `NDHWC` or `NCDHW`.
    Pad3d,
    /// `infer_stride(data, kernel, out)`: `(hstride, wstride)` of an NCHW
    /// convolution, `(in - k) // max(out - 1, 1)`, plus 1 where `out` is 1.
    Stride,
}

impl Inferred {
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            Inferred::Pad => "tvm.topi.nn.infer_pad",
            Inferred::Pad3d => "tvm.topi.nn.infer_pad3d",
            Inferred::Stride => "tvm.topi.nn.infer_stride",
        }
    }
}

/// One of TOPI's `infer_*` helpers, on stages of constant shape (TOPI's
/// `get_const_int` refuses a symbolic result with the same message).
pub(crate) fn infer(what: Inferred, args: Args) -> ApiResult<Value> {
    let short = what.tvm_name().rsplit('.').next().unwrap_or("infer");
    let params: &[&'static str] = match what {
        Inferred::Pad => &["data", "data_pad"],
        Inferred::Pad3d => &["data", "data_pad", "layout"],
        Inferred::Stride => &["data", "kernel", "out"],
    };
    let a = args.bind(short, params)?;
    // The constant dimensions of a tensor of `rank` dimensions.
    let dims = |name: &str, rank: usize| -> ApiResult<Vec<i64>> {
        let g = a.required(name)?;
        let t = tensor(g, short)?;
        if t.ndim() != rank {
            return Err(ApiError::value_error(format!(
                "`{short}` needs `{name}` of {rank} dimensions, found {}",
                t.ndim()
            ))
            .at(g.at.clone()));
        }
        t.shape()
            .iter()
            .map(|d| {
                constant_value(d).ok_or_else(|| {
                    ApiError::value_error("Expect value to be constant int").at(g.at.clone())
                })
            })
            .collect()
    };
    let ints = |v: Vec<i64>| Ok(Value::tuple(v.into_iter().map(Value::Int).collect()));
    match what {
        Inferred::Pad => {
            if a.get("data_pad")
                .is_none_or(|g| matches!(g.value, Value::None))
            {
                return ints(vec![0, 0]);
            }
            let (d, p) = (dims("data", 4)?, dims("data_pad", 4)?);
            ints(vec![
                (p[2] - d[2]).div_euclid(2),
                (p[3] - d[3]).div_euclid(2),
            ])
        }
        Inferred::Pad3d => {
            let layout = a.required("layout")?;
            let spatial = match &layout.value {
                Value::Str(l) if &**l == "NDHWC" => 1..4,
                Value::Str(l) if &**l == "NCDHW" => 2..5,
                other => {
                    return Err(ApiError::value_error(format!(
                        "Layout {} is not supported",
                        crate::repr(other)
                    ))
                    .at(layout.at.clone()))
                }
            };
            let (d, p) = (dims("data", 5)?, dims("data_pad", 5)?);
            ints(spatial.map(|i| p[i] - d[i]).collect())
        }
        Inferred::Stride => {
            let (d, k, o) = (dims("data", 4)?, dims("kernel", 4)?, dims("out", 4)?);
            let stride =
                |i: usize| (d[i] - k[i]).div_euclid((o[i] - 1).max(1)) + i64::from(o[i] == 1);
            ints(vec![stride(2), stride(3)])
        }
    }
}

/// The function of `tvm.topi.nn` called `name`, if this module has it.
pub(crate) fn function(name: &str) -> Option<crate::Function> {
    use crate::Function as F;
    use ConvForm::{Fixed, Grouped, Layout};
    Some(match name {
        "pad" => F::NnPad,
        "dense" => F::NnMatmul(true),
        "matmul" => F::NnMatmul(false),
        "batch_matmul" => F::NnBatchMatmul,
        "get_pad_tuple_generic" => F::NnGetPadTuple(0),
        "get_pad_tuple1d" => F::NnGetPadTuple(1),
        "get_pad_tuple" => F::NnGetPadTuple(2),
        "get_pad_tuple3d" => F::NnGetPadTuple(3),
        "infer_pad" => F::NnInfer(Inferred::Pad),
        "infer_pad3d" => F::NnInfer(Inferred::Pad3d),
        "infer_stride" => F::NnInfer(Inferred::Stride),
        "softmax" => F::NnSoftmax(false),
        "log_softmax" => F::NnSoftmax(true),
        "depthwise_conv2d_nchw" => F::NnDepthwiseConv2dNchw,
        "conv1d" => F::NnConv(Layout(1)),
        "conv2d" => F::NnConv(Layout(2)),
        "conv3d" => F::NnConv(Layout(3)),
        "conv1d_ncw" => F::NnConv(Fixed("NCW")),
        "conv1d_nwc" => F::NnConv(Fixed("NWC")),
        "conv2d_nchw" => F::NnConv(Fixed("NCHW")),
        "conv2d_nhwc" => F::NnConv(Fixed("NHWC")),
        "conv3d_ncdhw" => F::NnConv(Fixed("NCDHW")),
        "conv3d_ndhwc" => F::NnConv(Fixed("NDHWC")),
        "conv2d_hwcn" => F::NnConv(Fixed("HWCN")),
        "conv2d_NCHWc" => F::NnConv2dNchwc,
        "dilate" => F::NnDilate,
        "correlation_nchw" => F::NnCorrelation,
        "deformable_conv2d_nchw" => F::NnDeformableConv2dNchw,
        "conv2d_transpose_nchw_preprocess" => F::NnTransposePreprocess(2),
        "conv3d_transpose_ncdhw_preprocess" => F::NnTransposePreprocess(3),
        "group_conv1d_ncw" => F::NnConv(Grouped("NCW")),
        "group_conv1d_nwc" => F::NnConv(Grouped("NWC")),
        "group_conv2d_nchw" => F::NnConv(Grouped("NCHW")),
        "group_conv2d_nhwc" => F::NnConv(Grouped("NHWC")),
        _ => return None,
    })
}

/// `nn.batch_matmul(tensor_a, tensor_b, oshape=None, out_dtype=None,
/// transpose_a=False, transpose_b=True)`: `T_batch_matmul_NT` (tag
/// `batch_matmul`) over `b, i, j`, a batch of 1 on either side broadcast.
pub(crate) fn batch_matmul(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "batch_matmul",
        &[
            "tensor_a",
            "tensor_b",
            "oshape",
            "out_dtype",
            "transpose_a",
            "transpose_b",
            "auto_scheduler_rewritten_layout",
            "meta_schedule_original_shape",
        ],
    )?;
    let ta = tensor(a.required("tensor_a")?, "batch_matmul")?;
    let tb = tensor(a.required("tensor_b")?, "batch_matmul")?;
    if ta.ndim() != 3 || tb.ndim() != 3 {
        return Err(ApiError::assertion("tensor_a only support 3-dim"));
    }
    let flag = |name: &str, default: bool| -> ApiResult<bool> {
        a.get(name)
            .map_or(Ok(default), |g| crate::operators::truth(&g.value))
    };
    let (trans_a, trans_b) = (flag("transpose_a", false)?, flag("transpose_b", true)?);
    let (sa, sb) = (ta.shape().to_vec(), tb.shape().to_vec());
    let (xb, xi, xk) = if trans_a {
        (&sa[0], &sa[2], &sa[1])
    } else {
        (&sa[0], &sa[1], &sa[2])
    };
    let (yb, yj, yk) = if trans_b {
        (&sb[0], &sb[1], &sb[2])
    } else {
        (&sb[0], &sb[2], &sb[1])
    };
    if let (Some(x), Some(y)) = (xk.as_int(), yk.as_int()) {
        if x != y {
            return Err(ApiError::assertion("shapes of x and y are inconsistent"));
        }
    }
    let oshape = match a.get("oshape") {
        Some(g) if !matches!(g.value, Value::None) => per_axis(g, "oshape", 3)?,
        _ => {
            let batch = match (xb.as_int(), yb.as_int()) {
                (Some(x), Some(y)) if x == y || x == 1 || y == 1 => Expr::int(x.max(y)),
                (Some(_), Some(_)) => {
                    return Err(ApiError::assertion("batch dimension doesn't match"))
                }
                _ => {
                    return Err(ApiError::not_supported(
                        "`batch_matmul` of a symbolic batch is not supported (TVM names a new \
                         `batch` size variable there)",
                    ))
                }
            };
            vec![batch, xi.clone(), yj.clone()]
        }
    };
    let dt = out_dtype(a.get("out_dtype"), ta.dtype())?;
    let k = te::reduce_axis((Expr::int(0), xk.clone()), "k");
    note_reduce_axes(host, std::slice::from_ref(&k));
    let name = match (trans_a, trans_b) {
        (true, true) => "T_batch_matmul_TT",
        (true, false) => "T_batch_matmul_TN",
        (false, true) => "T_batch_matmul_NT",
        (false, false) => "T_batch_matmul_NN",
    };
    let mut attrs = Attrs::new();
    attrs.insert(
        "layout_free_placeholders".to_string(),
        AttrValue::List(vec![AttrValue::Tensor(tb.clone())]),
    );
    let (xb1, yb1) = (xb.as_int() == Some(1), yb.as_int() == Some(1));
    let out = compute(
        oshape,
        &["b", "i", "j"],
        |o| {
            let (b, i, j) = (o[0].clone(), o[1].clone(), o[2].clone());
            let ba = if xb1 { Expr::int(0) } else { b.clone() };
            let bb = if yb1 { Expr::int(0) } else { b };
            let a_idx = if trans_a {
                vec![ba, k.expr(), i]
            } else {
                vec![ba, i, k.expr()]
            };
            let b_idx = if trans_b {
                vec![bb, j, k.expr()]
            } else {
                vec![bb, k.expr(), j]
            };
            Ok(product_sum((&ta, a_idx), (&tb, b_idx), dt, &k))
        },
        name,
        "batch_matmul",
        attrs,
    )?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `nn.softmax(x, axis=-1)` (`log` false: `T_softmax_maxelem`,
/// `T_softmax_exp`, `T_softmax_expsum`, `T_softmax_norm`, tag
/// `softmax_output`) or `nn.log_softmax(x, axis=-1)` (`T_softmax_maxelem`,
/// then two stages named `compute`, tag `log_softmax_output`), as TOPI's
/// Python builds them.
pub(crate) fn softmax(host: &mut dyn Host, args: Args, log: bool) -> ApiResult<Value> {
    let what = if log { "log_softmax" } else { "softmax" };
    let a = args.bind(what, &["x", "axis"])?;
    let x = tensor(a.required("x")?, what)?;
    let n = x.ndim() as i64;
    let axis = match a.get("axis") {
        None => -1,
        Some(g) => crate::operators::as_int(&g.value)
            .ok_or_else(|| type_error(g.place(), "`axis` is an integer"))?,
    };
    let axis = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&axis) {
        return Err(ApiError::value_error(
            "axis parameter should be less than input dim",
        ));
    }
    let axis = axis as usize;
    let tag = if log {
        "log_softmax_output"
    } else {
        "softmax_output"
    };
    let shape = x.shape().to_vec();
    let reduced: Vec<Expr> = shape
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != axis)
        .map(|(_, d)| d.clone())
        .collect();
    let k1 = te::reduce_axis((Expr::int(0), shape[axis].clone()), "k");
    let k2 = te::reduce_axis((Expr::int(0), shape[axis].clone()), "k");
    note_reduce_axes(host, &[k1.clone(), k2.clone()]);
    let with_k = |idx: &[Expr], k: &te::IterVar| -> Vec<Expr> {
        let mut full = idx.to_vec();
        full.insert(axis, k.expr());
        full
    };
    let without_axis = |idx: &[Expr]| -> Vec<Expr> {
        idx.iter()
            .enumerate()
            .filter(|(i, _)| *i != axis)
            .map(|(_, e)| e.clone())
            .collect()
    };
    let full_names = varargs_names(shape.len());
    let full_names: Vec<&str> = full_names.iter().map(String::as_str).collect();
    let reduced_names = varargs_names(reduced.len());
    let reduced_names: Vec<&str> = reduced_names.iter().map(String::as_str).collect();
    let sub = |a: te::Value, b: te::Value| te::Value::binary(te::BinaryOp::Sub, a, b);
    let call = |f: tir::Intrinsic, v: te::Value| te::Value::call(f, vec![v]);
    let max_elem = compute(
        reduced.clone(),
        &reduced_names,
        |i| Ok(te::max(x.at(with_k(i, &k1)), std::slice::from_ref(&k1))),
        "T_softmax_maxelem",
        tag,
        Attrs::new(),
    )?;
    let mut axis_attr = Attrs::new();
    axis_attr.insert("axis".to_string(), AttrValue::Int(axis as i64));
    let out = if log {
        let expsum = compute(
            reduced,
            &reduced_names,
            |i| {
                let e = call(
                    tir::Intrinsic::Exp,
                    sub(x.at(with_k(i, &k2)), max_elem.at(i.to_vec())),
                );
                Ok(te::sum(e, std::slice::from_ref(&k2)))
            },
            "compute",
            tag,
            Attrs::new(),
        )?;
        compute(
            shape,
            &full_names,
            |i| {
                let rest = without_axis(i);
                Ok(sub(
                    sub(x.at(i.to_vec()), max_elem.at(rest.clone())),
                    call(tir::Intrinsic::Log, expsum.at(rest)),
                ))
            },
            "compute",
            tag,
            axis_attr,
        )?
    } else {
        let exp = compute(
            shape.clone(),
            &full_names,
            |i| {
                Ok(call(
                    tir::Intrinsic::Exp,
                    sub(x.at(i.to_vec()), max_elem.at(without_axis(i))),
                ))
            },
            "T_softmax_exp",
            tag,
            Attrs::new(),
        )?;
        let expsum = compute(
            reduced,
            &reduced_names,
            |i| Ok(te::sum(exp.at(with_k(i, &k2)), std::slice::from_ref(&k2))),
            "T_softmax_expsum",
            tag,
            Attrs::new(),
        )?;
        compute(
            shape,
            &full_names,
            |i| {
                Ok(te::Value::binary(
                    te::BinaryOp::Div,
                    exp.at(i.to_vec()),
                    expsum.at(without_axis(i)),
                ))
            },
            "T_softmax_norm",
            tag,
            axis_attr,
        )?
    };
    Ok(Value::Object(Object::Tensor(out)))
}

/// `nn.get_pad_tuple(padding, kernel)`: the padding on top, left, bottom
/// and right of a 2-D window (`padding` an integer, a pair, four values,
/// `"SAME"` or `"VALID"`; `kernel` the window's height and width).
/// `get_pad_tuple1d(padding, kernel)` (`dims` 1: left, right),
/// `get_pad_tuple` (2: top, left, down, right), `get_pad_tuple3d` (3:
/// front, top, left, back, down, right): the padding before each spatial
/// axis, then after; `get_pad_tuple_generic` (0: as many axes as the
/// kernel has) returns the two lists.
pub(crate) fn get_pad_tuple(dims: u8, args: Args) -> ApiResult<Value> {
    let name = match dims {
        0 => "get_pad_tuple_generic",
        1 => "get_pad_tuple1d",
        3 => "get_pad_tuple3d",
        _ => "get_pad_tuple",
    };
    let a = args.bind(name, &["padding", "kernel"])?;
    let k = a.required("kernel")?;
    let n = match dims {
        0 => promote(&k.value).sequence().map_or(1, |s| s.len()),
        d => usize::from(d),
    };
    let kernel = per_axis(k, "kernel", n)?;
    let padding = a.required("padding")?;
    let (begin, end) = pad_tuple(padding, &kernel)?;
    let value = |e: Expr| e.as_int().map_or(Value::Index(e), Value::Int);
    if dims == 0 {
        // As TOPI returns them: the given halves as a tuple, computed ones
        // as a list.
        let given = promote(&padding.value)
            .sequence()
            .is_some_and(|s| s.len() == 2 * n);
        let list = |v: Vec<Expr>| Value::list(v.into_iter().map(value).collect());
        let halves = vec![list(begin), list(end)];
        return Ok(if given {
            Value::tuple(halves)
        } else {
            Value::list(halves)
        });
    }
    Ok(Value::tuple(
        begin.into_iter().chain(end).map(value).collect(),
    ))
}
