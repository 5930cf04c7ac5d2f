//! Operators of TVM's operator library (`tvm.topi`) that TE programs and
//! TVM's own tests call, built as TOPI builds them: the same stages, names,
//! tags and shapes, so that a schedule written against TOPI's output finds
//! what it expects.
//!
//! - `topi.nn.pool2d` (also `topi.nn.pooling.pool2d`): a `pad_temp` stage
//!   when any padding is not zero, then `pool_max` (tag `pool_max`), or
//!   `pool_sum` and `pool_avg` (tag `elemwise`) dividing by the number of
//!   elements in the window (padding counted or not, `count_include_pad`);
//! - `topi.sum`: one reduction `<input>_red` (tag `comm_reduce`) over the
//!   given axes, kept as size-1 dimensions with `keepdims`;
//! - `topi.add`, `subtract`, `multiply`, `divide`, `floor_divide`, and
//!   the operators of tensors (`A + B`, `A * 2`): element-wise with
//!   broadcasting, `T_add`... (tag `broadcast`, `elemwise` with a scalar).

use crate::args::{Args, Given};
use crate::error::{te_error, type_error, ApiError, ApiResult, ErrorClass};
use crate::functions::BuildFailure;
use crate::object::Object;
use crate::objects::{constant_value, promote, to_index};
use crate::value::Value;
use crate::Host;
use arith::{Analyzer, Expr};
use te::{AttrValue, Attrs};

/// A tensor argument, or a `TypeError` naming `what` needed it.
pub(crate) fn tensor_arg(g: &Given, what: &str) -> ApiResult<te::Tensor> {
    match &g.value {
        Value::Object(Object::Tensor(t)) => Ok(t.clone()),
        other => Err(type_error(
            g.place(),
            format!("`{what}` needs a tensor, found a {}", other.type_name()),
        )),
    }
}

/// A sequence argument of `n` index expressions (an integer stands for all
/// of them when `n` allows it).
pub(crate) fn index_list(g: &Given, what: &str, n: usize) -> ApiResult<Vec<Expr>> {
    let items = match promote(&g.value) {
        v @ (Value::Int(_) | Value::Index(_)) => vec![v; n],
        v => v.sequence().ok_or_else(|| {
            type_error(
                g.place(),
                format!(
                    "`{what}` needs a list of {n} sizes, found a {}",
                    v.type_name()
                ),
            )
        })?,
    };
    if items.len() != n {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!("`{what}` needs {n} values, found {}", items.len()),
        )
        .at(g.at.clone()));
    }
    items.into_iter().map(|v| to_index(&g.item(v))).collect()
}

fn string_arg(g: Option<&Given>, default: &str) -> ApiResult<String> {
    match g {
        None => Ok(default.to_string()),
        Some(g) => match &g.value {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(type_error(
                g.place(),
                format!("expected a string, found a {}", other.type_name()),
            )),
        },
    }
}

/// A pool type: its name, or the code TOPI's Python wrappers pass to the
/// C++ operators (`POOL_TYPE_CODE`: 0 for `avg`, 1 for `max`).
pub(crate) fn pool_type(g: &Given) -> ApiResult<String> {
    match g.value {
        Value::Int(0) => Ok("avg".to_string()),
        Value::Int(1) => Ok("max".to_string()),
        Value::Int(code) => Err(ApiError::new(
            ErrorClass::ValueError,
            format!("unknown pool type code {code}: use 0 (avg) or 1 (max)"),
        )
        .at(g.at.clone())),
        _ => string_arg(Some(g), ""),
    }
}

fn bool_arg(g: Option<&Given>, default: bool) -> ApiResult<bool> {
    g.map_or(Ok(default), |g| crate::truth(&g.value))
}

/// `e` simplified, or as it is where the simplifier gives up.
pub(crate) fn simplify(e: Expr) -> Expr {
    Analyzer::new().simplify(&e).unwrap_or(e)
}

/// Registers the reduction axes with the session, as `te.reduce_axis` does.
pub(crate) fn note_reduce_axes(host: &mut dyn Host, axes: &[te::IterVar]) {
    for iv in axes {
        host.session().reduce_vars.insert(iv.var().clone());
    }
}

/// `pool2d(data, kernel, stride, dilation, padding, pool_type,
/// ceil_mode=False, layout="NCHW", count_include_pad=True)`.
pub(crate) fn pool2d(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "pool2d",
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
    let x = tensor_arg(data_arg, "pool2d")?;
    let kernel = index_list(a.required("kernel")?, "kernel", 2)?;
    let stride = index_list(a.required("stride")?, "stride", 2)?;
    let dilation = match a.get("dilation") {
        Some(d) => index_list(d, "dilation", 2)?,
        None => vec![Expr::int(1), Expr::int(1)],
    };
    let padding = index_list(a.required("padding")?, "padding", 4)?;
    let pool_type_arg = a.required("pool_type")?;
    let pool_type = pool_type(pool_type_arg)?;
    if pool_type != "max" && pool_type != "avg" {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!("unknown pool_type `{pool_type}`: use \"max\" or \"avg\""),
        )
        .at(pool_type_arg.at.clone()));
    }
    let ceil_mode = bool_arg(a.get("ceil_mode"), false)?;
    let layout = string_arg(a.get("layout"), "NCHW")?;
    let count_include_pad = bool_arg(a.get("count_include_pad"), true)?;
    let axis_of = |c: char| layout.find(c).filter(|&i| i < x.ndim());
    let (Some(h), Some(w)) = (axis_of('H'), axis_of('W')) else {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!(
                "layout `{layout}` of a {}-dimensional tensor has no `H` and `W` axes",
                x.ndim()
            ),
        )
        .at(crate::ArgRef::Keyword("layout".into())));
    };
    let axes = [h, w];
    pool(
        host,
        &x,
        &axes,
        Pool {
            kernel,
            stride,
            dilation,
            padding,
            max: pool_type == "max",
            ceil_mode,
            count_include_pad,
        },
    )
    .map_err(|e| e.at(data_arg.at.clone()))
}

/// A pooling window over some axes of a tensor.
pub(crate) struct Pool {
    pub(crate) kernel: Vec<Expr>,
    pub(crate) stride: Vec<Expr>,
    pub(crate) dilation: Vec<Expr>,
    /// The padding before each pooled axis, then after each.
    pub(crate) padding: Vec<Expr>,
    pub(crate) max: bool,
    pub(crate) ceil_mode: bool,
    pub(crate) count_include_pad: bool,
}

pub(crate) fn pool(
    host: &mut dyn Host,
    x: &te::Tensor,
    axes: &[usize],
    p: Pool,
) -> ApiResult<Value> {
    let k = axes.len();
    let dtype = x.dtype();
    let shape = x.shape().to_vec();
    let mut pad_before = vec![Expr::int(0); shape.len()];
    let mut pad_after = vec![Expr::int(0); shape.len()];
    let mut out_shape = shape.clone();
    let mut offset = vec![Expr::int(0); k];
    let mut do_pad = false;
    let mut window = Vec::with_capacity(k);
    for (i, &ii) in axes.iter().enumerate() {
        let head = p.padding[i].clone();
        let mut tail = p.padding[i + k].clone();
        if p.ceil_mode {
            // One stride less one more at the end rounds the division up.
            offset[i] = p.stride[i].clone() - 1;
            tail = tail + offset[i].clone();
        }
        let nonzero = |e: &Expr| constant_value(e) != Some(0);
        do_pad = do_pad || nonzero(&head) || nonzero(&tail);
        window.push(te::reduce_axis(
            (Expr::int(0), p.kernel[i].clone()),
            &format!("rv{i}"),
        ));
        pad_before[ii] = head.clone();
        pad_after[ii] = tail.clone();
        let numerator =
            shape[ii].clone() - (p.kernel[i].clone() - 1) * p.dilation[i].clone() - 1 + head + tail;
        out_shape[ii] = simplify(Expr::floor_div(numerator, p.stride[i].clone()) + 1);
    }
    note_reduce_axes(host, &window);
    let pad_value = if p.max {
        crate::casts::limit(dtype, false)
    } else {
        Value::Int(0)
    };
    let temp = if do_pad {
        pad(x, &pad_before, &pad_after, &pad_value, "pad_temp")?
    } else {
        x.clone()
    };
    let names: Vec<String> = (0..out_shape.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let window_indices = |out: &[Expr]| {
        let mut idx = out.to_vec();
        for (i, &ii) in axes.iter().enumerate() {
            idx[ii] =
                out[ii].clone() * p.stride[i].clone() + window[i].expr() * p.dilation[i].clone();
        }
        idx
    };
    let attrs = |rule: &str| {
        let mut attrs = Attrs::new();
        attrs.insert(
            "schedule_rule".to_string(),
            AttrValue::Str(format!("meta_schedule.{rule}")),
        );
        attrs
    };
    if p.max {
        let out = te::try_compute_tagged(
            out_shape,
            &names,
            |o| Ok::<_, te::TeError>(te::max(temp.at(window_indices(o)), &window)),
            "pool_max",
            "pool_max",
            attrs("pool_max"),
        )
        .map_err(|e| te_error(&None, e))?;
        return Ok(Value::Object(Object::Tensor(out)));
    }
    let pool_sum = te::try_compute_tagged(
        out_shape.clone(),
        &names,
        |o| Ok::<_, te::TeError>(te::sum(temp.at(window_indices(o)), &window)),
        "pool_sum",
        "pool_sum",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    let out = te::try_compute_tagged(
        out_shape,
        &names,
        |o| {
            let mut num_el = Expr::int(1);
            for (i, &ii) in axes.iter().enumerate() {
                let start = o[ii].clone() * p.stride[i].clone() - p.padding[i].clone();
                let end = start.clone() + (p.kernel[i].clone() - 1) * p.dilation[i].clone();
                let count = if p.count_include_pad {
                    let end = Expr::min(
                        end,
                        shape[ii].clone() + pad_after[ii].clone() - 1 - offset[i].clone(),
                    );
                    Expr::floor_div(end - start, p.dilation[i].clone()) + 1
                } else {
                    // Steps along the dilated window to the first element
                    // that is not padding.
                    let jumps = Expr::max(
                        Expr::floor_div(
                            p.dilation[i].clone() - 1 - start.clone(),
                            p.dilation[i].clone(),
                        ),
                        Expr::int(0),
                    );
                    let end = Expr::min(end, shape[ii].clone() - 1);
                    Expr::floor_div(
                        end - (start + p.dilation[i].clone() * jumps),
                        p.dilation[i].clone(),
                    ) + 1
                };
                num_el = num_el * count;
            }
            if !p.count_include_pad {
                num_el = Expr::max(num_el, Expr::int(1));
            }
            let divisor = te::Value::cast(dtype, te::Value::index(simplify(num_el)));
            Ok::<_, te::TeError>(te::Value::binary(
                te::BinaryOp::Div,
                pool_sum.at(o.to_vec()),
                divisor,
            ))
        },
        "pool_avg",
        "elemwise",
        attrs("pool_avg"),
    )
    .map_err(|e| te_error(&None, e))?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// TOPI's constant padding (`T_pad` by default, tag `elemwise`): the input
/// where the index is inside it, else `pad_value`.
pub(crate) fn pad(
    x: &te::Tensor,
    before: &[Expr],
    after: &[Expr],
    pad_value: &Value,
    name: &str,
) -> ApiResult<te::Tensor> {
    let shape: Vec<Expr> = x
        .shape()
        .iter()
        .enumerate()
        .map(|(i, s)| simplify(s.clone() + before[i].clone() + after[i].clone()))
        .collect();
    let names: Vec<String> = (0..shape.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let fill = crate::objects::to_element(pad_value, None)?;
    let fill = te::Value::cast(x.dtype(), fill);
    te::try_compute_tagged(
        shape,
        &names,
        |o| {
            let mut conds: Vec<Expr> = Vec::new();
            let mut idx = Vec::with_capacity(o.len());
            for (i, v) in o.iter().enumerate() {
                if constant_value(&before[i]) != Some(0) {
                    conds.push(Expr::ge(v.clone(), before[i].clone()));
                    idx.push(v.clone() - before[i].clone());
                } else {
                    idx.push(v.clone());
                }
                if constant_value(&after[i]) != Some(0) {
                    conds.push(Expr::lt(
                        v.clone(),
                        before[i].clone() + x.shape()[i].clone(),
                    ));
                }
            }
            let load = x.at(idx);
            Ok::<_, te::TeError>(match conds.into_iter().reduce(Expr::and) {
                Some(cond) => te::Value::select(cond, load, fill.clone()),
                None => load,
            })
        },
        name,
        "elemwise",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))
}

/// `topi.sum(data, axis=None, keepdims=False)`.
pub(crate) fn sum(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("sum", &["data", "axis", "keepdims"])?;
    let data_arg = a.required("data")?;
    let x = tensor_arg(data_arg, "topi.sum")?;
    let ndim = x.ndim();
    let mut reduced: Vec<usize> = match a.get("axis").map(|g| (g, promote(&g.value))) {
        None | Some((_, Value::None)) => (0..ndim).collect(),
        Some((g, v)) => {
            let items = match v {
                Value::Int(_) => vec![v],
                other => other.sequence().ok_or_else(|| {
                    type_error(
                        g.place(),
                        format!(
                            "`axis` needs an integer or a list of them, found a {}",
                            other.type_name()
                        ),
                    )
                })?,
            };
            let mut out = Vec::new();
            for item in items {
                let i = crate::operators::as_int(&item)
                    .ok_or_else(|| type_error(g.place(), "`axis` needs integers"))?;
                let d = if i < 0 { i + ndim as i64 } else { i };
                if d < 0 || d >= ndim as i64 {
                    return Err(ApiError::new(
                        ErrorClass::ValueError,
                        format!("axis {i} is out of range for a {ndim}-dimensional tensor"),
                    )
                    .at(g.at.clone()));
                }
                out.push(d as usize);
            }
            out
        }
    };
    reduced.sort_unstable();
    reduced.dedup();
    let keepdims = bool_arg(a.get("keepdims"), false)?;
    let raxes: Vec<te::IterVar> = reduced
        .iter()
        .map(|&d| te::reduce_axis((Expr::int(0), x.shape()[d].clone()), &format!("k{d}")))
        .collect();
    note_reduce_axes(host, &raxes);
    let mut out_shape = Vec::new();
    for d in 0..ndim {
        if !reduced.contains(&d) {
            out_shape.push(x.shape()[d].clone());
        } else if keepdims {
            out_shape.push(Expr::int(1));
        }
    }
    let names: Vec<String> = (0..out_shape.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let out = te::try_compute_tagged(
        out_shape,
        &names,
        |o| {
            let mut idx = Vec::with_capacity(ndim);
            let mut next = 0;
            for d in 0..ndim {
                match reduced.iter().position(|&r| r == d) {
                    Some(r) => {
                        idx.push(raxes[r].expr());
                        if keepdims {
                            next += 1;
                        }
                    }
                    None => {
                        idx.push(o[next].clone());
                        next += 1;
                    }
                }
            }
            Ok::<_, te::TeError>(te::sum(x.at(idx), &raxes))
        },
        &format!("{}_red", x.op().name()),
        "comm_reduce",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `topi.add(lhs, rhs)` (and `subtract`, `multiply`, `divide`,
/// `floor_divide`): called from a program.
pub(crate) fn broadcast_function(op: crate::BinaryOp, args: Args) -> ApiResult<Value> {
    let a = args.bind(broadcast_name(op), &["lhs", "rhs"])?;
    let (l, r) = (a.required("lhs")?, a.required("rhs")?);
    broadcast(op, &l.value, &r.value)
}

fn broadcast_name(op: crate::BinaryOp) -> &'static str {
    match op {
        crate::BinaryOp::Add => "add",
        crate::BinaryOp::Sub => "subtract",
        crate::BinaryOp::Mul => "multiply",
        crate::BinaryOp::Div => "divide",
        crate::BinaryOp::FloorDiv => "floor_divide",
        _ => "broadcast",
    }
}

/// One side of a broadcast operation: a tensor, or a value the same at
/// every element.
enum Operand {
    Tensor(te::Tensor),
    Scalar(te::Value),
}

impl Operand {
    fn shape(&self) -> &[Expr] {
        match self {
            Operand::Tensor(t) => t.shape(),
            Operand::Scalar(_) => &[],
        }
    }

    /// The operand at the output's indices `o` (of `n` dimensions): a
    /// dimension of size 1 is read at 0, as NumPy broadcasts.
    fn at(&self, o: &[Expr]) -> te::Value {
        match self {
            Operand::Scalar(v) => v.clone(),
            Operand::Tensor(t) => {
                let s = t.shape();
                let skip = o.len() - s.len();
                t.at(s.iter().enumerate().map(|(i, dim)| {
                    if constant_value(dim) == Some(1) {
                        Expr::int(0)
                    } else {
                        o[skip + i].clone()
                    }
                }))
            }
        }
    }
}

/// `lhs op rhs` where a side is a tensor, as TVM's `Tensor` operators and
/// `topi.add` build it: one compute `T_add` (`T_subtract`, `T_multiply`,
/// `T_divide`, `T_floor_divide`) over the broadcast shape, tagged
/// `broadcast` when both sides are tensors and `elemwise` when one is a
/// scalar.
pub(crate) fn broadcast(op: crate::BinaryOp, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    let operand = |v: &Value| match v {
        Value::Object(Object::Tensor(t)) => Ok(Operand::Tensor(t.clone())),
        other => crate::objects::to_element(other, None).map(Operand::Scalar),
    };
    let (l, r) = (operand(lhs)?, operand(rhs)?);
    let both = matches!((&l, &r), (Operand::Tensor(_), Operand::Tensor(_)));
    let dtype = |o: &Operand| match o {
        Operand::Tensor(t) => t.dtype(),
        Operand::Scalar(v) => v.dtype(),
    };
    let integer = dtype(&l).is_int() && dtype(&r).is_int();
    let te_op = match op {
        crate::BinaryOp::Add => te::BinaryOp::Add,
        crate::BinaryOp::Sub => te::BinaryOp::Sub,
        crate::BinaryOp::Mul => te::BinaryOp::Mul,
        crate::BinaryOp::Div if !integer => te::BinaryOp::Div,
        crate::BinaryOp::FloorDiv if integer => te::BinaryOp::Div,
        _ => {
            return Err(ApiError::not_supported(format!(
                "`{}` on tensors is not supported{}; use + - * and / (float) or // (int)",
                op.symbol(),
                if integer {
                    " on integers"
                } else {
                    " on floats"
                }
            )))
        }
    };
    let (ls, rs) = (l.shape().to_vec(), r.shape().to_vec());
    let n = ls.len().max(rs.len());
    let mut out_shape = Vec::with_capacity(n);
    for d in 0..n {
        let dim = |s: &[Expr]| (d + s.len()).checked_sub(n).map(|i| s[i].clone());
        out_shape.push(match (dim(&ls), dim(&rs)) {
            (Some(a), Some(b)) => match (constant_value(&a), constant_value(&b)) {
                (Some(1), _) => b,
                (_, Some(1)) => a,
                (Some(x), Some(y)) if x != y => {
                    return Err(ApiError::new(
                        ErrorClass::ValueError,
                        format!(
                            "cannot broadcast shapes: dimension {d} is {x} on one side and {y} \
                             on the other"
                        ),
                    ))
                }
                _ => a,
            },
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => Expr::int(1),
        });
    }
    let names: Vec<String> = (0..n).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let out = te::try_compute_tagged(
        out_shape,
        &names,
        |o| Ok::<_, te::TeError>(te::Value::binary(te_op, l.at(o), r.at(o))),
        &format!("T_{}", broadcast_name(op)),
        if both { "broadcast" } else { "elemwise" },
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `topi.reshape(a, newshape)`: one compute `T_reshape` (tag `injective`)
/// over the new shape whose element is the input's at the same position in
/// row-major order, with the index flattened and unflattened as TVM's
/// `RavelIndex` and `UnravelIndex` write it (floor division and modulo by
/// each dimension). An empty shape on either side gives zeros.
pub(crate) fn reshape(args: Args) -> ApiResult<Value> {
    let a = args.bind("reshape", &["a", "newshape"])?;
    let data_arg = a.required("a")?;
    let x = tensor_arg(data_arg, "topi.reshape")?;
    let shape_arg = a.required("newshape")?;
    let items = match promote(&shape_arg.value) {
        v @ (Value::Int(_) | Value::Index(_)) => vec![v],
        v => v.sequence().ok_or_else(|| {
            type_error(
                shape_arg.place(),
                format!(
                    "`newshape` needs a list of sizes, found a {}",
                    v.type_name()
                ),
            )
        })?,
    };
    let target: Vec<Expr> = items
        .into_iter()
        .map(|v| to_index(&shape_arg.item(v)))
        .collect::<ApiResult<_>>()?;
    let elements = |dims: &[Expr]| -> Option<i64> {
        dims.iter()
            .try_fold(1i64, |n, d| n.checked_mul(constant_value(d)?))
    };
    if let Some(bad) = target
        .iter()
        .find(|d| constant_value(d).is_some_and(|v| v < 0))
    {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!("`newshape` has the negative size {bad}: give every size explicitly"),
        )
        .at(shape_arg.at.clone()));
    }
    let constant = |dims: &[Expr]| dims.iter().all(|d| constant_value(d).is_some());
    if constant(&target) && elements(&target).is_none() {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            "`newshape` has more elements than a 64-bit index can count".to_string(),
        )
        .at(shape_arg.at.clone()));
    }
    if let (Some(from), Some(to)) = (elements(x.shape()), elements(&target)) {
        if from != to {
            return Err(ApiError::new(
                ErrorClass::ValueError,
                format!(
                    "cannot reshape `{}` of {from} elements into a shape of {to} elements",
                    x.op().name()
                ),
            )
            .at(shape_arg.at.clone()));
        }
    }
    let empty = |dims: &[Expr]| dims.iter().any(|d| constant_value(d) == Some(0));
    let zeros = empty(&target) || empty(x.shape());
    let names: Vec<String> = (0..target.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let source_shape = x.shape().to_vec();
    let out = te::try_compute_tagged(
        target.clone(),
        &names,
        |o| {
            if zeros {
                return Ok::<_, te::TeError>(te::Value::cast(x.dtype(), te::Value::int(0)));
            }
            let flat = o.iter().zip(&target).skip(1).fold(
                o.first().cloned().unwrap_or_else(|| Expr::int(0)),
                |idx, (i, d)| Expr::add(Expr::mul(idx, d.clone()), i.clone()),
            );
            let mut idx = Vec::with_capacity(source_shape.len());
            let mut rest = flat;
            for d in source_shape.iter().rev() {
                idx.push(Expr::floor_mod(rest.clone(), d.clone()));
                rest = Expr::floor_div(rest, d.clone());
            }
            idx.reverse();
            Ok(x.at(idx))
        },
        "T_reshape",
        "injective",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// The element-wise operators of `topi.math` (`topi.exp(x)`,
/// `topi.math.sqrt(x)`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementwiseMath {
    /// `topi.identity`: the element itself.
    Identity,
    /// `topi.negative`: minus the element.
    Negative,
    /// An intrinsic applied to the element (`exp`, `sqrt`, `erf`, ...).
    Intrinsic(tir::Intrinsic),
    /// `topi.nn.relu`: the larger of the element and zero.
    Relu,
}

impl ElementwiseMath {
    /// The operator `topi.NAME` (and `topi.math.NAME`) stands for.
    pub(crate) fn from_topi_name(name: &str) -> Option<ElementwiseMath> {
        match name {
            "identity" => Some(ElementwiseMath::Identity),
            "negative" => Some(ElementwiseMath::Negative),
            "exp" | "erf" | "tanh" | "tan" | "cos" | "cosh" | "sin" | "sinh" | "acos" | "acosh"
            | "asin" | "asinh" | "atan" | "atanh" | "floor" | "ceil" | "trunc" | "abs"
            | "round" | "log" | "log2" | "log10" | "sqrt" | "rsqrt" | "sigmoid" => {
                tir::Intrinsic::from_tvm_name(name).map(ElementwiseMath::Intrinsic)
            }
            _ => None,
        }
    }
}

/// `topi.exp(x)` and the other operators of [`ElementwiseMath`]: as TOPI
/// writes them, `te.compute(x.shape, lambda *i: te.exp(x(*i)))` under the
/// tag `elemwise`.
pub(crate) fn elementwise_math(op: ElementwiseMath, args: Args) -> ApiResult<Value> {
    let a = args.bind("elementwise", &["x"])?;
    let x = tensor_arg(a.required("x")?, "topi.math")?;
    elementwise(&x, |v| {
        Ok(match op {
            ElementwiseMath::Identity => v,
            // As `-x(*i)` in a program: the API's own negation.
            ElementwiseMath::Negative => crate::objects::to_element(
                &crate::operators::unary(crate::UnaryOp::Neg, &crate::objects::element(v))?,
                None,
            )?,
            ElementwiseMath::Intrinsic(f) => te::Value::call(f, vec![v]),
            // `max(x, tvm.tir.const(0, x.dtype))`.
            ElementwiseMath::Relu => {
                let zero = crate::functions::typed_constant(&Value::Int(0), x.dtype(), None)?;
                te::Value::max(v, crate::objects::to_element(&zero, None)?)
            }
        })
    })
}

/// `topi.cast(x, dtype)` of a tensor (also `x.astype(dtype)`): as TOPI
/// writes it, `te.compute(x.shape, lambda *i: x(*i).astype(dtype))`
/// under the tag `elemwise`.
pub(crate) fn cast_tensor(x: &te::Tensor, dtype: tir::DataType) -> ApiResult<Value> {
    elementwise(x, |v| {
        let cast = crate::casts::cast(&crate::objects::element(v), dtype, None)?;
        crate::objects::to_element(&cast, None)
    })
}

/// TOPI's element-wise operators: one compute called `compute` (tag
/// `elemwise`) over the axes `i0, i1, ...` of `x`'s shape, whose element
/// is `f` of `x`'s element there (`te.compute(x.shape, lambda *i:
/// f(x(*i)))`).
fn elementwise(
    x: &te::Tensor,
    mut f: impl FnMut(te::Value) -> ApiResult<te::Value>,
) -> ApiResult<Value> {
    let names: Vec<String> = (0..x.ndim()).map(|d| format!("i{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let out = te::try_compute_tagged::<BuildFailure>(
        x.shape().to_vec(),
        &names,
        |i| f(x.at(i.to_vec())).map_err(BuildFailure::Host),
        "compute",
        "elemwise",
        Attrs::new(),
    )
    .map_err(ApiError::from)?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `topi.elemwise_sum(xs)`: one compute `T_elemwise_sum` (tag `elemwise`)
/// adding the tensors' elements at each point, as TOPI's C++ writes it.
pub(crate) fn elemwise_sum(args: Args) -> ApiResult<Value> {
    let a = args.bind("elemwise_sum", &["xs"])?;
    let xs_arg = a.required("xs")?;
    let items = xs_arg.value.sequence().ok_or_else(|| {
        type_error(
            xs_arg.place(),
            format!(
                "`elemwise_sum` needs a list of tensors, found a {}",
                xs_arg.value.type_name()
            ),
        )
    })?;
    let xs = items
        .into_iter()
        .map(|v| tensor_arg(&xs_arg.item(v), "topi.elemwise_sum"))
        .collect::<ApiResult<Vec<_>>>()?;
    let Some(first) = xs.first() else {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            "`elemwise_sum` needs at least one tensor",
        )
        .at(xs_arg.at.clone()));
    };
    if let Some(other) = xs.iter().find(|t| t.shape() != first.shape()) {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!(
                "`elemwise_sum` adds tensors of one shape: `{}` and `{}` differ",
                first.name(),
                other.name()
            ),
        )
        .at(xs_arg.at.clone()));
    }
    let names: Vec<String> = (0..first.ndim()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let out = te::try_compute_tagged(
        first.shape().to_vec(),
        &names,
        |i| {
            let mut total = xs[0].at(i.to_vec());
            for x in &xs[1..] {
                total = te::Value::binary(te::BinaryOp::Add, total, x.at(i.to_vec()));
            }
            Ok::<_, te::TeError>(total)
        },
        "T_elemwise_sum",
        "elemwise",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    Ok(Value::Object(Object::Tensor(out)))
}
