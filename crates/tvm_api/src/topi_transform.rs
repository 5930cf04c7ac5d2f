//! TOPI's shape and layout operators (`tvm.topi.transform`), written in
//! C++ in TVM (`include/tvm/topi/transform.h`, `elemwise.h`) and built
//! here as TOPI v0.19 builds them: one compute over axes `ax0, ax1, ...`
//! per operator, with TOPI's names and tags:
//!
//! - `transpose(a, axes=None)`: `T_transpose` (tag `injective`);
//! - `expand_dims(a, axis, num_newaxis=1)`: `T_expand_dims` (`broadcast`);
//! - `squeeze(a, axis=None)`: `T_squeeze` (`injective`);
//! - `concatenate(a_tuple, axis=0)`: `T_concat` (`injective`), each input
//!   chosen by `if_then_else` on the joined index, the last one first;
//! - `stack(a, axis)`: `T_stack` (`injective`);
//! - `split(ary, indices_or_sections, axis=0)`: a list of
//!   `T_split_sections` (a number of sections) or `T_split` (indices)
//!   stages, one per piece;
//! - `flip(a, axis=0)`: `T_reverse_sequence` (`injective`);
//! - `strided_slice(a, begin, end, strides=None, axes=None)` with constant
//!   arguments: `T_strided_slice` (`T_strided_slice_with_axes` given
//!   `axes`; tag `injective`);
//! - `take(a, indices, axis=None, batch_dims=0, mode="clip")`: `T_take`
//!   (`injective`), a data-dependent read;
//! - `where(condition, x, y)`: `T_where` (`broadcast`);
//! - `full(shape, dtype, fill_value)`, `full_like(x, fill_value)`:
//!   `T_full`, `T_full_like` (`elemwise`);
//! - `broadcast_to(data, shape)`: `T_broadcast_to` (`broadcast`);
//! - `layout_transform(array, src_layout, dst_layout)` between layouts
//!   such as `NCHW` and `NCHW16c`: `T_layout_trans` (`injective`), the
//!   input read where the index is inside it, else 0.

use crate::args::{Args, Given};
use crate::error::{te_error, type_error, ApiError, ApiResult};
use crate::object::Object;
use crate::objects::{constant_value, promote, to_index};
use crate::value::Value;
use crate::Host;
use arith::Expr;
use te::Attrs;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransformOp {
    /// `tvm.topi.transpose`.
    Transpose,
    /// `tvm.topi.expand_dims`.
    ExpandDims,
    /// `tvm.topi.squeeze`.
    Squeeze,
    /// `tvm.topi.concatenate`.
    Concatenate,
    /// `tvm.topi.stack`.
    Stack,
    /// `tvm.topi.split`.
    Split,
    /// `tvm.topi.flip`.
    Flip,
    /// `tvm.topi.strided_slice`.
    StridedSlice,
    /// `tvm.topi.take`.
    Take,
    /// `tvm.topi.where`.
    Where,
    /// `tvm.topi.full`.
    Full,
    /// `tvm.topi.full_like`.
    FullLike,
    /// `tvm.topi.broadcast_to`.
    BroadcastTo,
    /// `tvm.topi.layout_transform`.
    LayoutTransform,
}

impl TransformOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<TransformOp> {
        let transform = matches!(module_path, "tvm.topi" | "tvm.topi.transform");
        // `full` and `full_like` live in `topi/tensor.py`.
        let tensor = matches!(module_path, "tvm.topi" | "tvm.topi.tensor");
        Some(match name {
            "transpose" if transform => TransformOp::Transpose,
            "expand_dims" if transform => TransformOp::ExpandDims,
            "squeeze" if transform => TransformOp::Squeeze,
            "concatenate" if transform => TransformOp::Concatenate,
            "stack" if transform => TransformOp::Stack,
            "split" if transform => TransformOp::Split,
            "flip" if transform => TransformOp::Flip,
            "strided_slice" if transform => TransformOp::StridedSlice,
            "take" if transform => TransformOp::Take,
            "where" if transform => TransformOp::Where,
            "full" if tensor => TransformOp::Full,
            "full_like" if tensor => TransformOp::FullLike,
            "broadcast_to" if matches!(module_path, "tvm.topi" | "tvm.topi.broadcast") => {
                TransformOp::BroadcastTo
            }
            "layout_transform" if transform => TransformOp::LayoutTransform,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            TransformOp::Transpose => "tvm.topi.transpose",
            TransformOp::ExpandDims => "tvm.topi.expand_dims",
            TransformOp::Squeeze => "tvm.topi.squeeze",
            TransformOp::Concatenate => "tvm.topi.concatenate",
            TransformOp::Stack => "tvm.topi.stack",
            TransformOp::Split => "tvm.topi.split",
            TransformOp::Flip => "tvm.topi.flip",
            TransformOp::StridedSlice => "tvm.topi.strided_slice",
            TransformOp::Take => "tvm.topi.take",
            TransformOp::Where => "tvm.topi.where",
            TransformOp::Full => "tvm.topi.full",
            TransformOp::FullLike => "tvm.topi.full_like",
            TransformOp::BroadcastTo => "tvm.topi.broadcast_to",
            TransformOp::LayoutTransform => "tvm.topi.layout_transform",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(_host: &mut dyn Host, args: Args, op: TransformOp) -> ApiResult<Value> {
    let short = op.tvm_name().rsplit('.').next().unwrap_or("transform");
    let tensor_value = |t: te::Tensor| Value::Object(Object::Tensor(t));
    Ok(match op {
        TransformOp::Transpose => {
            let a = args.bind(short, &["a", "axes"])?;
            let x = tensor(a.required("a")?, short)?;
            let axes = match a.get("axes") {
                Some(g) if !matches!(g.value, Value::None) => Some(ints(g, "axes")?),
                _ => None,
            };
            tensor_value(transpose(&x, axes)?)
        }
        TransformOp::ExpandDims => {
            let a = args.bind(short, &["a", "axis", "num_newaxis"])?;
            let x = tensor(a.required("a")?, short)?;
            let axis = int(a.required("axis")?, "axis")?;
            let count = a
                .get("num_newaxis")
                .map_or(Ok(1), |g| int(g, "num_newaxis"))?;
            tensor_value(expand_dims(&x, axis, count)?)
        }
        TransformOp::Squeeze => {
            let a = args.bind(short, &["a", "axis"])?;
            let x = tensor(a.required("a")?, short)?;
            let axes = match a.get("axis").map(|g| (promote(&g.value), g)) {
                None | Some((Value::None, _)) => None,
                Some((Value::Int(i), _)) => Some(vec![i]),
                Some((_, g)) => Some(ints(g, "axis")?),
            };
            tensor_value(squeeze(&x, axes)?)
        }
        TransformOp::Concatenate | TransformOp::Stack => {
            let (first, axis_default) = if op == TransformOp::Stack {
                ("a", None)
            } else {
                ("a_tuple", Some(0))
            };
            let a = args.bind(short, &[first, "axis"])?;
            let inputs = tensors(a.required(first)?, short)?;
            let axis = match (a.get("axis"), axis_default) {
                (Some(g), _) => int(g, "axis")?,
                (None, Some(d)) => d,
                (None, None) => {
                    return Err(ApiError::type_error("stack() needs `axis`".to_string()))
                }
            };
            tensor_value(if op == TransformOp::Stack {
                stack(&inputs, axis)?
            } else {
                concatenate(&inputs, axis)?
            })
        }
        TransformOp::Split => {
            let a = args.bind(short, &["ary", "indices_or_sections", "axis"])?;
            let x = tensor(a.required("ary")?, short)?;
            let axis = a.get("axis").map_or(Ok(0), |g| int(g, "axis"))?;
            let how = a.required("indices_or_sections")?;
            let pieces = match promote(&how.value) {
                Value::Int(n) => split_sections(&x, n, axis)?,
                _ => {
                    let at = how.value.sequence().ok_or_else(|| {
                        type_error(
                            how.place(),
                            "`indices_or_sections` is a number of sections or a list of indices"
                                .to_string(),
                        )
                    })?;
                    let at = at
                        .into_iter()
                        .map(|v| to_index(&how.item(v)))
                        .collect::<ApiResult<Vec<_>>>()?;
                    split(&x, at, axis, "T_split")?
                }
            };
            Value::list(pieces.into_iter().map(tensor_value).collect())
        }
        TransformOp::Flip => {
            let a = args.bind(short, &["a", "axis"])?;
            let x = tensor(a.required("a")?, short)?;
            let axis = a.get("axis").map_or(Ok(0), |g| int(g, "axis"))?;
            tensor_value(flip(&x, axis)?)
        }
        TransformOp::StridedSlice => {
            let a = args.bind(
                short,
                &[
                    "a",
                    "begin",
                    "end",
                    "strides",
                    "axes",
                    "slice_mode",
                    "assume_inbound",
                ],
            )?;
            let x = tensor(a.required("a")?, short)?;
            let list = |name: &str| -> ApiResult<Option<Vec<i64>>> {
                match a.get(name) {
                    Some(g) if !matches!(g.value, Value::None) => Ok(Some(ints(g, name)?)),
                    _ => Ok(None),
                }
            };
            let begin = ints(a.required("begin")?, "begin")?;
            let end = ints(a.required("end")?, "end")?;
            let mode = match a.get("slice_mode").map(|g| &g.value) {
                None => "end".to_string(),
                Some(Value::Str(s)) => s.to_string(),
                Some(other) => {
                    return Err(ApiError::type_error(format!(
                        "`slice_mode` is \"end\" or \"size\", found a {}",
                        other.type_name()
                    )))
                }
            };
            tensor_value(strided_slice(
                &x,
                Slice {
                    begin,
                    end,
                    strides: list("strides")?,
                    axes: list("axes")?,
                    size_mode: match mode.as_str() {
                        "end" => false,
                        "size" => true,
                        _ => {
                            return Err(ApiError::value_error(format!(
                                "unknown slice_mode `{mode}`: use \"end\" or \"size\""
                            )))
                        }
                    },
                },
            )?)
        }
        TransformOp::Take => {
            let a = args.bind(short, &["a", "indices", "axis", "batch_dims", "mode"])?;
            let x = tensor(a.required("a")?, short)?;
            let indices = tensor(a.required("indices")?, short)?;
            let axis = match a.get("axis") {
                Some(g) if !matches!(g.value, Value::None) => Some(int(g, "axis")?),
                _ => None,
            };
            let batch_dims = a
                .get("batch_dims")
                .map_or(Ok(0), |g| int(g, "batch_dims"))?;
            if batch_dims != 0 {
                return Err(ApiError::not_supported(
                    "`take` with batch_dims is not supported; index each batch with its own take"
                        .to_string(),
                ));
            }
            let mode = match a.get("mode").map(|g| &g.value) {
                None => "clip".to_string(),
                Some(Value::Str(s)) => s.to_string(),
                Some(other) => {
                    return Err(ApiError::type_error(format!(
                        "`mode` is \"clip\", \"wrap\" or \"fast\", found a {}",
                        other.type_name()
                    )))
                }
            };
            tensor_value(take(&x, &indices, axis, &mode)?)
        }
        TransformOp::Where => {
            let a = args.bind(short, &["condition", "x", "y"])?;
            let c = tensor(a.required("condition")?, short)?;
            let x = tensor(a.required("x")?, short)?;
            let y = tensor(a.required("y")?, short)?;
            tensor_value(where_(&c, &x, &y)?)
        }
        TransformOp::Full => {
            let a = args.bind(short, &["shape", "dtype", "fill_value"])?;
            let shape_arg = a.required("shape")?;
            let shape = shape_arg
                .value
                .sequence()
                .ok_or_else(|| type_error(shape_arg.place(), "`shape` is a list".to_string()))?
                .into_iter()
                .map(|v| to_index(&shape_arg.item(v)))
                .collect::<ApiResult<Vec<_>>>()?;
            let dtype = crate::casts::dtype_arg(a.required("dtype")?)?;
            let fill = fill_value(a.required("fill_value")?, dtype)?;
            tensor_value(filled(shape, fill, "T_full")?)
        }
        TransformOp::BroadcastTo => {
            let a = args.bind(short, &["data", "shape"])?;
            let x = tensor(a.required("data")?, short)?;
            let g = a.required("shape")?;
            let shape = g
                .value
                .sequence()
                .ok_or_else(|| type_error(g.place(), "`shape` is a list".to_string()))?
                .into_iter()
                .map(|v| to_index(&g.item(v)))
                .collect::<ApiResult<Vec<_>>>()?;
            tensor_value(broadcast_to(&x, shape)?)
        }
        TransformOp::LayoutTransform => {
            let a = args.bind(
                short,
                &["array", "src_layout", "dst_layout", "schedule_rule"],
            )?;
            let x = tensor(a.required("array")?, short)?;
            let text = |name: &str| -> ApiResult<String> {
                match &a.required(name)?.value {
                    Value::Str(s) => Ok(s.to_string()),
                    other => Err(ApiError::type_error(format!(
                        "`{name}` is a layout string such as \"NCHW16c\", found a {}",
                        other.type_name()
                    ))),
                }
            };
            let rule = match a.get("schedule_rule").map(|g| &g.value) {
                Some(Value::Str(s)) => s.to_string(),
                _ => "None".to_string(),
            };
            let (src, dst) = (text("src_layout")?, text("dst_layout")?);
            match layout_transform(&x, &src, &dst, &rule)? {
                Some(t) => tensor_value(t),
                // The same layout: the input itself, as TOPI returns it.
                None => a.required("array")?.value.clone(),
            }
        }
        TransformOp::FullLike => {
            let a = args.bind(short, &["x", "fill_value"])?;
            let x = tensor(a.required("x")?, short)?;
            let fill = fill_value(a.required("fill_value")?, x.dtype())?;
            tensor_value(filled(x.shape().to_vec(), fill, "T_full_like")?)
        }
    })
}

fn tensor(g: &Given, what: &str) -> ApiResult<te::Tensor> {
    match &g.value {
        Value::Object(Object::Tensor(t)) => Ok(t.clone()),
        other => Err(type_error(
            g.place(),
            format!("`{what}` needs a tensor, found a {}", other.type_name()),
        )),
    }
}

fn tensors(g: &Given, what: &str) -> ApiResult<Vec<te::Tensor>> {
    let items = g.value.sequence().ok_or_else(|| {
        type_error(
            g.place(),
            format!(
                "`{what}` needs a list of tensors, found a {}",
                g.value.type_name()
            ),
        )
    })?;
    if items.is_empty() {
        return Err(ApiError::value_error(format!("`{what}` of no tensors")).at(g.at.clone()));
    }
    items
        .into_iter()
        .map(|v| tensor(&g.item(v), what))
        .collect()
}

fn int(g: &Given, what: &str) -> ApiResult<i64> {
    match promote(&g.value) {
        Value::Int(i) => Ok(i),
        Value::Index(e) if e.as_int().is_some() => Ok(e.as_int().unwrap_or_default()),
        other => Err(type_error(
            g.place(),
            format!("`{what}` needs an integer, found a {}", other.type_name()),
        )),
    }
}

fn ints(g: &Given, what: &str) -> ApiResult<Vec<i64>> {
    let items = match promote(&g.value) {
        Value::Int(i) => return Ok(vec![i]),
        v => v.sequence().ok_or_else(|| {
            type_error(
                g.place(),
                format!(
                    "`{what}` needs a list of integers, found a {}",
                    v.type_name()
                ),
            )
        })?,
    };
    items.into_iter().map(|v| int(&g.item(v), what)).collect()
}

/// `axis` counted from the end when negative, checked against `ndim`.
fn real_axis(axis: i64, ndim: usize, what: &str) -> ApiResult<usize> {
    let n = ndim as i64;
    let real = if axis < 0 { axis + n } else { axis };
    if (0..n).contains(&real) {
        Ok(real as usize)
    } else {
        Err(ApiError::value_error(format!(
            "{what}: axis {axis} is out of range for a {ndim}-dimensional tensor"
        )))
    }
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|d| format!("ax{d}")).collect()
}

/// One compute over axes `ax0, ax1, ...`, as TOPI's C++ `compute` names them.
fn compute(
    shape: Vec<Expr>,
    body: impl FnOnce(&[Expr]) -> te::Value,
    name: &str,
    tag: &str,
) -> ApiResult<te::Tensor> {
    let axis_names = names(shape.len());
    let axis_names: Vec<&str> = axis_names.iter().map(String::as_str).collect();
    te::try_compute_tagged::<te::TeError>(
        shape,
        &axis_names,
        |i| Ok(body(i)),
        name,
        tag,
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))
}

fn simplify(e: Expr) -> Expr {
    arith::Analyzer::new().simplify(&e).unwrap_or(e)
}

/// TOPI's `transpose`: the output's axis `i` is the input's `axes[i]`.
fn transpose(x: &te::Tensor, axes: Option<Vec<i64>>) -> ApiResult<te::Tensor> {
    let n = x.ndim();
    let axes: Vec<usize> = match axes {
        None => (0..n).rev().collect(),
        Some(a) if a.is_empty() => (0..n).rev().collect(),
        Some(a) => {
            if a.len() != n {
                return Err(ApiError::value_error(format!(
                    "transpose of a {n}-dimensional tensor needs {n} axes, found {}",
                    a.len()
                )));
            }
            a.iter()
                .map(|&i| real_axis(i, n, "transpose"))
                .collect::<ApiResult<_>>()?
        }
    };
    let mut seen = vec![false; n];
    for &a in &axes {
        if std::mem::replace(&mut seen[a], true) {
            return Err(ApiError::value_error(
                "repeated axis in transpose".to_string(),
            ));
        }
    }
    let shape = axes.iter().map(|&a| x.shape()[a].clone()).collect();
    compute(
        shape,
        |o| {
            let mut idx = vec![Expr::int(1); n];
            for (i, &a) in axes.iter().enumerate() {
                idx[a] = o[i].clone();
            }
            x.at(idx)
        },
        "T_transpose",
        "injective",
    )
}

/// TOPI's `expand_dims`: `count` axes of size 1 inserted before `axis`.
fn expand_dims(x: &te::Tensor, axis: i64, count: i64) -> ApiResult<te::Tensor> {
    let n = x.ndim() as i64;
    if !(-n - 1..=n).contains(&axis) {
        return Err(ApiError::value_error(format!(
            "expand_dims only accepts `axis` in [-data.ndim - 1, data.ndim], but got axis = \
             {axis}, and data.ndim = {n}"
        )));
    }
    if !(0..=64).contains(&count) {
        return Err(ApiError::value_error(format!(
            "expand_dims adds 0 to 64 axes, not {count}"
        )));
    }
    let axis = (if axis < 0 { axis + n + 1 } else { axis }) as usize;
    let count = count as usize;
    let mut shape = x.shape()[..axis].to_vec();
    shape.extend(std::iter::repeat_n(Expr::int(1), count));
    shape.extend_from_slice(&x.shape()[axis..]);
    compute(
        shape,
        |o| {
            let mut idx = o[..axis].to_vec();
            idx.extend_from_slice(&o[axis + count..]);
            x.at(idx)
        },
        "T_expand_dims",
        "broadcast",
    )
}

/// TOPI's `squeeze`: the given axes (or every constant axis of size 1)
/// dropped, read at index 0.
fn squeeze(x: &te::Tensor, axes: Option<Vec<i64>>) -> ApiResult<te::Tensor> {
    let n = x.ndim();
    let drop: Vec<usize> = match axes {
        None => (0..n)
            .filter(|&i| constant_value(&x.shape()[i]) == Some(1))
            .collect(),
        Some(a) => {
            let mut v = Vec::with_capacity(a.len());
            for i in a {
                let r = real_axis(i, n, "squeeze")?;
                if let Some(d) = constant_value(&x.shape()[r]) {
                    if d != 1 {
                        return Err(ApiError::value_error(format!(
                            "Dimension {r} must have size 1, not {d}"
                        )));
                    }
                }
                v.push(r);
            }
            v
        }
    };
    let shape = (0..n)
        .filter(|i| !drop.contains(i))
        .map(|i| x.shape()[i].clone())
        .collect();
    compute(
        shape,
        |o| {
            let mut kept = o.iter();
            let idx: Vec<Expr> = (0..n)
                .map(|i| {
                    if drop.contains(&i) {
                        Expr::int(0)
                    } else {
                        kept.next().cloned().unwrap_or_else(|| Expr::int(0))
                    }
                })
                .collect();
            x.at(idx)
        },
        "T_squeeze",
        "injective",
    )
}

/// The inputs agree in rank and dtype, and in every size but `skip`'s.
fn check_same(inputs: &[te::Tensor], skip: Option<usize>, what: &str) -> ApiResult<()> {
    let first = &inputs[0];
    for t in &inputs[1..] {
        if t.ndim() != first.ndim() || t.dtype() != first.dtype() {
            return Err(ApiError::value_error(format!(
                "{what}: `{}` and `{}` differ in rank or type",
                first.op().name(),
                t.op().name()
            )));
        }
        for d in 0..first.ndim() {
            let (a, b) = (
                constant_value(&first.shape()[d]),
                constant_value(&t.shape()[d]),
            );
            if Some(d) != skip && a.is_some() && b.is_some() && a != b {
                return Err(ApiError::value_error(format!(
                    "{what}: `{}` and `{}` differ in dimension {d}",
                    first.op().name(),
                    t.op().name()
                )));
            }
        }
    }
    Ok(())
}

/// TOPI's `concatenate`: along `axis`, the input whose range holds the
/// index, chosen from the last by `if_then_else(index - offset >= 0, ...)`.
fn concatenate(inputs: &[te::Tensor], axis: i64) -> ApiResult<te::Tensor> {
    let n = inputs[0].ndim();
    let axis = real_axis(axis, n, "concatenate")?;
    check_same(inputs, Some(axis), "concatenate")?;
    let sizes: Vec<Expr> = inputs.iter().map(|t| t.shape()[axis].clone()).collect();
    let joined = sizes[1..]
        .iter()
        .fold(sizes[0].clone(), |a, b| Expr::add(a, b.clone()));
    let mut shape = inputs[0].shape().to_vec();
    shape[axis] = simplify(joined);
    compute(
        shape,
        |o| {
            let mut ret = inputs[0].at(o.to_vec());
            let mut ind = o[axis].clone();
            for (i, t) in inputs.iter().enumerate().skip(1) {
                ind = ind - sizes[i - 1].clone();
                let mut idx = o.to_vec();
                idx[axis] = ind.clone();
                ret = te::Value::select(Expr::ge(ind.clone(), Expr::int(0)), t.at(idx), ret);
            }
            ret
        },
        "T_concat",
        "injective",
    )
}

/// TOPI's `stack`: a new axis at `axis` choosing the input.
fn stack(inputs: &[te::Tensor], axis: i64) -> ApiResult<te::Tensor> {
    let n = inputs[0].ndim() as i64;
    if !(-n - 1..=n).contains(&axis) {
        return Err(ApiError::value_error(format!(
            "stack only accepts `axis` in [-ndim - 1, ndim], but got axis = {axis}, and ndim = {n}"
        )));
    }
    check_same(inputs, None, "stack")?;
    let axis = (if axis < 0 { axis + n + 1 } else { axis }) as usize;
    let mut shape = inputs[0].shape().to_vec();
    shape.insert(axis, Expr::int(inputs.len() as i64));
    compute(
        shape,
        |o| {
            let mut idx = o.to_vec();
            let ind = idx.remove(axis);
            let mut ret = inputs[0].at(idx.clone());
            for (i, t) in inputs.iter().enumerate().skip(1) {
                ret = te::Value::select(
                    Expr::cmp(arith::CmpOp::Eq, ind.clone(), Expr::int(i as i64)),
                    t.at(idx.clone()),
                    ret,
                );
            }
            ret
        },
        "T_stack",
        "injective",
    )
}

/// TOPI's `split_sections`: `sections` equal pieces along `axis`.
fn split_sections(x: &te::Tensor, sections: i64, axis: i64) -> ApiResult<Vec<te::Tensor>> {
    let real = real_axis(axis, x.ndim(), "split")?;
    if !(1..=4096).contains(&sections) {
        return Err(ApiError::value_error(format!(
            "split into {sections} sections: use 1 to 4096"
        )));
    }
    let size = x.shape()[real].clone();
    if let Some(d) = constant_value(&size) {
        if d % sections != 0 {
            return Err(ApiError::value_error(format!(
                "num_sections must be an integer factor of the size of axis {real} ({d})"
            )));
        }
    }
    let piece = Expr::floor_div(size, Expr::int(sections));
    let at = (1..sections).map(|i| simplify(piece.clone() * i)).collect();
    split(x, at, axis, "T_split_sections")
}

/// TOPI's `split` at ascending indices along `axis`.
fn split(x: &te::Tensor, at: Vec<Expr>, axis: i64, name: &str) -> ApiResult<Vec<te::Tensor>> {
    let axis = real_axis(axis, x.ndim(), "split")?;
    let mut begins = vec![Expr::int(0)];
    for e in at {
        if let (Some(v), Some(prev)) = (constant_value(&e), begins.last().and_then(constant_value))
        {
            if v <= prev {
                return Err(ApiError::value_error(
                    "split_indices must be sorted".to_string(),
                ));
            }
        }
        begins.push(e);
    }
    if let (Some(last), Some(size)) = (
        begins.last().and_then(constant_value),
        constant_value(&x.shape()[axis]),
    ) {
        if last > size {
            return Err(ApiError::value_error(format!(
                "split index {last} is past the end of axis {axis} ({size})"
            )));
        }
    }
    let mut out = Vec::with_capacity(begins.len());
    for i in 0..begins.len() {
        let end = begins
            .get(i + 1)
            .cloned()
            .unwrap_or_else(|| x.shape()[axis].clone());
        let mut shape = x.shape().to_vec();
        shape[axis] = simplify(end - begins[i].clone());
        let begin = begins[i].clone();
        out.push(compute(
            shape,
            |o| {
                let mut idx = o.to_vec();
                idx[axis] = idx[axis].clone() + begin;
                x.at(idx)
            },
            name,
            "injective",
        )?);
    }
    Ok(out)
}

/// TOPI's `flip` (its `reverse_sequence` without lengths): `axis` read
/// backwards.
fn flip(x: &te::Tensor, axis: i64) -> ApiResult<te::Tensor> {
    let axis = real_axis(axis, x.ndim(), "flip")?;
    let size = x.shape()[axis].clone();
    compute(
        x.shape().to_vec(),
        |o| {
            let mut idx = o.to_vec();
            idx[axis] = size - 1 - o[axis].clone();
            x.at(idx)
        },
        "T_reverse_sequence",
        "injective",
    )
}

/// The arguments of a static `strided_slice`.
struct Slice {
    begin: Vec<i64>,
    end: Vec<i64>,
    strides: Option<Vec<i64>>,
    axes: Option<Vec<i64>>,
    /// `slice_mode="size"`: `end` holds sizes (-1 for the rest), strides 1.
    size_mode: bool,
}

/// TOPI's `StaticCanonicalizeIndex`: a begin or end clamped into the axis
/// (to `[-1, extent - 1]` for a negative stride).
fn canonical_index(index: i64, extent: i64, stride: i64) -> i64 {
    let (low, high) = if stride < 0 {
        (-1, extent - 1)
    } else {
        (0, extent)
    };
    let index = if index < 0 {
        index.saturating_add(extent)
    } else {
        index
    };
    index.clamp(low, high)
}

/// TOPI's `strided_slice` with constant arguments on constant axes:
/// `T_strided_slice_with_axes`, reading `begin + i * stride` on each
/// sliced axis.
fn strided_slice(x: &te::Tensor, s: Slice) -> ApiResult<te::Tensor> {
    let n = x.ndim();
    // TOPI names the stage after the C++ function its arguments select.
    let name = if s.axes.is_some() {
        "T_strided_slice_with_axes"
    } else {
        "T_strided_slice"
    };
    let axes: Vec<usize> = match &s.axes {
        Some(a) => a
            .iter()
            .map(|&i| real_axis(i, n, "strided_slice"))
            .collect::<ApiResult<_>>()?,
        None => (0..s.begin.len().max(s.end.len()).min(n)).collect(),
    };
    let k = axes.len();
    if s.begin.len() < k && s.axes.is_some() || s.end.len() < k && s.axes.is_some() {
        return Err(ApiError::value_error(
            "strided_slice needs a begin and an end for each axis".to_string(),
        ));
    }
    let mut shape = x.shape().to_vec();
    let mut starts = Vec::with_capacity(k);
    let mut steps = Vec::with_capacity(k);
    for (j, &axis) in axes.iter().enumerate() {
        let Some(extent) = constant_value(&x.shape()[axis]) else {
            return Err(ApiError::not_supported(format!(
                "strided_slice of the symbolic axis {axis} is not supported; give it a constant \
                 size"
            )));
        };
        let stride = if s.size_mode {
            1
        } else {
            s.strides
                .as_ref()
                .and_then(|v| v.get(j).copied())
                .unwrap_or(1)
        };
        if stride == 0 {
            return Err(ApiError::value_error(
                "strided_slice's stride cannot be 0".to_string(),
            ));
        }
        let begin_given = s.begin.get(j).copied();
        let begin = begin_given.unwrap_or(if stride > 0 { 0 } else { i64::MAX });
        let end = match s.end.get(j).copied() {
            Some(e) if s.size_mode => {
                if e < 0 {
                    extent
                } else {
                    begin.saturating_add(e)
                }
            }
            Some(e) => e,
            None if stride < 0 => 0,
            None => i64::MAX,
        };
        let b = canonical_index(begin, extent, stride);
        let e = canonical_index(end, extent, stride);
        let span = if stride < 0 { b - e } else { e - b };
        let count = if span <= 0 {
            0
        } else {
            (span + stride.abs() - 1) / stride.abs()
        };
        shape[axis] = Expr::int(count);
        starts.push(b);
        steps.push(stride);
    }
    compute(
        shape,
        |o| {
            let mut idx = o.to_vec();
            for (j, &axis) in axes.iter().enumerate() {
                idx[axis] = o[axis].clone() * steps[j] + Expr::int(starts[j]);
            }
            x.at(idx)
        },
        name,
        "injective",
    )
}

/// TOPI's `take`: the elements of `a` at the positions `indices` holds,
/// along `axis` or in the flattened `a`; `clip` clamps positions into
/// range, `wrap` wraps them around, `fast` trusts them.
fn take(
    a: &te::Tensor,
    indices: &te::Tensor,
    axis: Option<i64>,
    mode: &str,
) -> ApiResult<te::Tensor> {
    if !indices.dtype().is_int() {
        return Err(ApiError::type_error(format!(
            "`take` needs integer indices, found {}",
            indices.dtype()
        )));
    }
    if !matches!(mode, "clip" | "wrap" | "fast") {
        return Err(ApiError::value_error(format!(
            "unknown take mode `{mode}`: use \"clip\", \"wrap\" or \"fast\""
        )));
    }
    let position = |raw: te::Value, size_expr: Expr| -> te::Value {
        let size = te::Value::index(size_expr.clone());
        match mode {
            "clip" => te::Value::min(
                te::Value::max(te::Value::int(0), raw),
                te::Value::index(simplify(size_expr - 1)),
            ),
            // TOPI writes truncmod(truncmod(i, n) + n, n): the floor modulo.
            "wrap" => te::Value::binary(te::BinaryOp::Mod, raw, size),
            _ => raw,
        }
    };
    match axis {
        None => {
            let dims = a.shape().to_vec();
            let total = dims[1..]
                .iter()
                .fold(dims[0].clone(), |p, d| Expr::mul(p, d.clone()));
            compute(
                indices.shape().to_vec(),
                |o| {
                    let flat = position(indices.at(o.to_vec()), total);
                    // Unravel the flat position (never negative once
                    // clipped or wrapped), last dimension first.
                    let mut rest = flat;
                    let mut idx = Vec::with_capacity(dims.len());
                    for d in dims.iter().rev() {
                        let size = te::Value::index(d.clone());
                        idx.push(te::Value::binary(
                            te::BinaryOp::Mod,
                            rest.clone(),
                            size.clone(),
                        ));
                        rest = te::Value::binary(te::BinaryOp::Div, rest, size);
                    }
                    idx.reverse();
                    te::Value::gather(a, idx)
                },
                "T_take",
                "injective",
            )
        }
        Some(axis) => {
            let axis = real_axis(axis, a.ndim(), "take")?;
            let k = indices.ndim();
            let mut shape = a.shape()[..axis].to_vec();
            shape.extend_from_slice(indices.shape());
            shape.extend_from_slice(&a.shape()[axis + 1..]);
            let size = a.shape()[axis].clone();
            compute(
                shape,
                |o| {
                    let at = position(indices.at(o[axis..axis + k].to_vec()), size);
                    let mut idx: Vec<te::Value> =
                        o[..axis].iter().cloned().map(te::Value::index).collect();
                    idx.push(at);
                    idx.extend(o[axis + k..].iter().cloned().map(te::Value::index));
                    te::Value::gather(a, idx)
                },
                "T_take",
                "injective",
            )
        }
    }
}

/// The shape two shapes broadcast to (aligned at the end), TOPI's
/// `BroadcastShape`.
fn broadcast_shape(a: &[Expr], b: &[Expr]) -> ApiResult<Vec<Expr>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|d| {
            let dim = |s: &[Expr]| (d + s.len()).checked_sub(n).map(|i| s[i].clone());
            Ok(match (dim(a), dim(b)) {
                (Some(x), Some(y)) => match (constant_value(&x), constant_value(&y)) {
                    (Some(1), _) => y,
                    (_, Some(1)) => x,
                    (Some(p), Some(q)) if p != q => {
                        return Err(ApiError::value_error(format!(
                            "cannot broadcast shapes: dimension {d} is {p} on one side and {q} \
                             on the other"
                        )))
                    }
                    _ => x,
                },
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => Expr::int(1),
            })
        })
        .collect()
}

/// The index of `t` for output index `o` of a broadcast to `n` axes: the
/// trailing axes, 0 where `t` has size 1 and the output does not.
fn broadcast_index(t: &te::Tensor, o: &[Expr], out: &[Expr]) -> Vec<Expr> {
    let skip = o.len() - t.ndim();
    t.shape()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if constant_value(d) == Some(1) && constant_value(&out[skip + i]) != Some(1) {
                Expr::int(0)
            } else {
                o[skip + i].clone()
            }
        })
        .collect()
}

/// TOPI's `where`: `x` where `condition` is not zero, else `y`, all three
/// broadcast to one shape.
fn where_(c: &te::Tensor, x: &te::Tensor, y: &te::Tensor) -> ApiResult<te::Tensor> {
    if x.dtype() != y.dtype() {
        return Err(ApiError::type_error(format!(
            "x and y must have the same dtype: {} vs {}",
            x.dtype(),
            y.dtype()
        )));
    }
    let shape = broadcast_shape(c.shape(), &broadcast_shape(x.shape(), y.shape())?)?;
    let out = shape.clone();
    compute(
        shape,
        |o| {
            let cond = c.at(broadcast_index(c, o, &out));
            let zero = te::Value::cast(c.dtype(), te::Value::int(0));
            te::Value::select_value(
                te::Value::cmp(arith::CmpOp::Ne, cond, zero),
                x.at(broadcast_index(x, o, &out)),
                y.at(broadcast_index(y, o, &out)),
            )
        },
        "T_where",
        "broadcast",
    )
}

/// A fill value cast to `dtype`, as TOPI's `full` casts it.
fn fill_value(g: &Given, dtype: tir::DataType) -> ApiResult<te::Value> {
    let v = crate::objects::to_element(&g.value, g.place())?;
    Ok(if v.dtype() == dtype {
        v
    } else {
        te::Value::cast(dtype, v)
    })
}

/// TOPI's `full` and `full_like`: every element the fill value.
fn filled(shape: Vec<Expr>, fill: te::Value, name: &str) -> ApiResult<te::Tensor> {
    for d in &shape {
        if constant_value(d).is_some_and(|v| v < 0) {
            return Err(ApiError::value_error(format!(
                "`{name}` of the negative size {d}"
            )));
        }
    }
    compute(shape, |_| fill, name, "elemwise")
}

/// TOPI's `broadcast_to`: the input's trailing axes stretched to `shape`.
fn broadcast_to(x: &te::Tensor, shape: Vec<Expr>) -> ApiResult<te::Tensor> {
    if shape.len() < x.ndim() {
        return Err(ApiError::value_error(format!(
            "Not a broadcast, output dimensionality smaller than input: {} < {}",
            shape.len(),
            x.ndim()
        )));
    }
    let common = broadcast_shape(&shape, x.shape())?;
    let out: Vec<Expr> = shape
        .iter()
        .zip(&common)
        .map(|(s, c)| match (constant_value(s), constant_value(c)) {
            (Some(a), Some(b)) if a != b => Err(ApiError::value_error(format!(
                "cannot broadcast to size {a}: the input needs {b}"
            ))),
            (Some(a), _) if a < 0 => Err(ApiError::value_error(format!(
                "`shape` has the negative size {a}"
            ))),
            _ => Ok(s.clone()),
        })
        .collect::<ApiResult<_>>()?;
    let dims = out.clone();
    compute(
        out,
        |o| x.at(broadcast_index(x, o, &dims)),
        "T_broadcast_to",
        "broadcast",
    )
}

/// A layout string as TVM writes one (`NCHW16c`): upper-case letters are
/// the primal axes, a number then a lower-case letter an axis split off
/// the primal one of the same letter by that factor.
struct LayoutAxes {
    /// Each axis in order: its letter (upper-case) and its factor (`None`
    /// for a primal axis).
    axes: Vec<(char, Option<i64>)>,
}

impl LayoutAxes {
    fn parse(text: &str) -> ApiResult<LayoutAxes> {
        let bad = |why: &str| {
            ApiError::value_error(format!("layout `{text}` is not a TVM layout: {why}"))
        };
        let mut axes = Vec::new();
        let mut factor: Option<i64> = None;
        for c in text.chars() {
            match c {
                '0'..='9' => {
                    let d = i64::from(c as u8 - b'0');
                    factor = Some(
                        factor
                            .unwrap_or(0)
                            .checked_mul(10)
                            .and_then(|f| f.checked_add(d))
                            .filter(|&f| f <= i64::from(i32::MAX))
                            .ok_or_else(|| bad("a factor overflows"))?,
                    );
                }
                'A'..='Z' if factor.is_none() => axes.push((c, None)),
                'a'..='z' => {
                    let f = factor
                        .take()
                        .ok_or_else(|| bad("a split axis needs its factor"))?;
                    if f < 1 {
                        return Err(bad("factors are at least 1"));
                    }
                    axes.push((c.to_ascii_uppercase(), Some(f)));
                }
                _ => return Err(bad("use upper-case axes and factors such as `16c`")),
            }
        }
        if factor.is_some() {
            return Err(bad("a factor without its axis"));
        }
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].contains(a)
                || axes[..i]
                    .iter()
                    .any(|b| b.0 == a.0 && b.1.is_some() && a.1.is_some())
            {
                return Err(bad("an axis appears twice"));
            }
        }
        for &(c, f) in &axes {
            if f.is_some() && !axes.contains(&(c, None)) {
                return Err(bad("a split axis without its primal axis"));
            }
        }
        Ok(LayoutAxes { axes })
    }

    fn primal(&self) -> Vec<char> {
        let mut p: Vec<char> = self
            .axes
            .iter()
            .filter(|a| a.1.is_none())
            .map(|a| a.0)
            .collect();
        p.sort_unstable();
        p
    }

    fn factor(&self, c: char) -> Option<i64> {
        self.axes
            .iter()
            .find(|a| a.0 == c && a.1.is_some())
            .and_then(|a| a.1)
    }
}

/// TOPI's `layout_transform` (TVM's `BijectiveLayout`): each primal
/// coordinate is rebuilt from the destination's indices (`C * 16 + c`),
/// then split as the source splits it. `None` when the layouts are equal.
fn layout_transform(
    x: &te::Tensor,
    src: &str,
    dst: &str,
    rule: &str,
) -> ApiResult<Option<te::Tensor>> {
    if src == dst {
        return Ok(None);
    }
    let (s, d) = (LayoutAxes::parse(src)?, LayoutAxes::parse(dst)?);
    if s.primal() != d.primal() {
        return Err(ApiError::value_error(format!(
            "cannot convert from {src} to {dst}: they have different primal axes"
        )));
    }
    if s.axes.len() != x.ndim() {
        return Err(ApiError::value_error(format!(
            "layout {src} has {} axes, the tensor {}",
            s.axes.len(),
            x.ndim()
        )));
    }
    // Each primal axis' full size: its outer extent times its factor.
    let mut primal_size = std::collections::BTreeMap::new();
    for (i, &(c, f)) in s.axes.iter().enumerate() {
        let dim = x.shape()[i].clone();
        let entry = primal_size.entry(c).or_insert(Expr::int(1));
        *entry = match f {
            Some(f) => {
                if constant_value(&dim).is_some_and(|d| d != f) {
                    return Err(ApiError::value_error(format!(
                        "axis {i} of layout {src} has size {f}, the tensor's has {dim}"
                    )));
                }
                Expr::mul(entry.clone(), Expr::int(f))
            }
            None => Expr::mul(entry.clone(), dim),
        };
    }
    let mut dst_shape = Vec::with_capacity(d.axes.len());
    for &(c, f) in &d.axes {
        let full = primal_size[&c].clone();
        dst_shape.push(match (f, d.factor(c)) {
            (Some(f), _) => Expr::int(f),
            (None, Some(inner)) => {
                let Some(size) = constant_value(&simplify(full.clone())) else {
                    return Err(ApiError::not_supported(format!(
                        "layout_transform splits the symbolic axis {c}; give it a constant size"
                    )));
                };
                Expr::int((size + inner - 1) / inner)
            }
            (None, None) => simplify(full),
        });
    }
    let src_shape = x.shape().to_vec();
    let exact = d.axes.iter().all(|&(c, f)| {
        f.is_none()
            || constant_value(&simplify(primal_size[&c].clone()))
                .is_some_and(|n| n % f.unwrap_or(1) == 0)
    });
    let mut attrs = Attrs::new();
    attrs.insert(
        "schedule_rule".to_string(),
        te::AttrValue::Str(rule.to_string()),
    );
    attrs.insert(
        "src_layout".to_string(),
        te::AttrValue::Str(src.to_string()),
    );
    attrs.insert(
        "dst_layout".to_string(),
        te::AttrValue::Str(dst.to_string()),
    );
    let axis_names = names(dst_shape.len());
    let axis_names: Vec<&str> = axis_names.iter().map(String::as_str).collect();
    te::try_compute_tagged::<te::TeError>(
        dst_shape,
        &axis_names,
        |o| {
            let coordinate = |c: char| -> Expr {
                let outer = d.axes.iter().position(|a| *a == (c, None));
                let inner = d.axes.iter().position(|a| a.0 == c && a.1.is_some());
                match (outer, inner, d.factor(c)) {
                    (Some(p), Some(q), Some(f)) => o[p].clone() * f + o[q].clone(),
                    (Some(p), _, _) => o[p].clone(),
                    _ => Expr::int(0),
                }
            };
            let idx: Vec<Expr> = s
                .axes
                .iter()
                .map(|&(c, f)| match (f, s.factor(c)) {
                    (Some(f), _) => Expr::floor_mod(coordinate(c), Expr::int(f)),
                    (None, Some(g)) => Expr::floor_div(coordinate(c), Expr::int(g)),
                    (None, None) => coordinate(c),
                })
                .collect();
            let in_range = idx
                .iter()
                .zip(&src_shape)
                .map(|(i, n)| Expr::lt(i.clone(), n.clone()))
                .reduce(Expr::and)
                .unwrap_or_else(|| Expr::bool(true));
            // Where every split divides its axis the index is always in
            // range, and TVM's lowering drops the test: so is it here.
            if exact {
                return Ok(x.at(idx));
            }
            let zero = if x.dtype().is_float() {
                crate::objects::float_constant(0.0, x.dtype())
            } else {
                te::Value::cast(x.dtype(), te::Value::int(0))
            };
            Ok(te::Value::select(in_range, x.at(idx), zero))
        },
        "T_layout_trans",
        "injective",
        attrs,
    )
    .map(Some)
    .map_err(|e| te_error(&None, e))
}
