//! TOPI's shape and layout operators (`tvm.topi.transform`, and the
//! `tvm.topi` names TOPI imports from it), each built as TOPI v0.19's C++
//! (`include/tvm/topi/transform.h`) builds it: one compute over axes
//! `ax0, ax1, ...` with TOPI's stage name and tag, so that schedules
//! written against TOPI's output find what they expect.
//!
//! | operator | stage | tag |
//! |---|---|---|
//! | `transpose(a, axes=None)` | `T_transpose` | `injective` |
//! | `expand_dims(a, axis, num_newaxis=1)` | `T_expand_dims` | `broadcast` |
//! | `squeeze(a, axis=None)` | `T_squeeze` | `injective` |
//! | `concatenate(a_tuple, axis=0)` | `T_concat` | `injective` |
//! | `stack(a, axis)` | `T_stack` | `injective` |
//! | `split(ary, indices_or_sections, axis=0)` | `T_split` / `T_split_sections` (a list) | `injective` |
//! | `strided_slice(a, begin, end, strides=None, axes=None, slice_mode="end", assume_inbound=True)` | `T_strided_slice` / `T_strided_slice_with_axes` | `injective` |
//! | `broadcast_to(data, shape)` | `T_broadcast_to` | `broadcast` |
//! | `where(condition, x, y)` | `T_where` | `broadcast` |
//! | `take(a, indices, axis=None, batch_dims=0, mode="clip")` | `T_take` | `injective` |
//! | `gather(data, axis, indices)` | `T_gather` | `injective` |
//! | `full(shape, dtype, fill_value)` | `T_full` | `elemwise` |
//! | `full_like(x, fill_value)` | `T_full_like` | `elemwise` |
//! | `flip(a, axis=0)` | `T_reverse_sequence` | `injective` |
//! | `tile(a, reps)` | `T_tile` | `broadcast` |
//! | `repeat(a, repeats, axis)` | `T_repeat` | `broadcast` |
//! | `one_hot(indices, on_value, off_value, depth, axis, dtype)` | `T_one_hot` | `injective` |
//! | `arange(start, stop=None, step=1, dtype="float32")` | `T_arange` | `injective` |
//! | `matmul(a, b, transp_a=False, transp_b=False)` | `T_matmul` | `matmul` |
//! | `tensordot(a, b, axes)` | `T_tensordot` | `matmul` |
//! | `shape(array, dtype="int32")` | `T_shape` | `injective` |
//! | `sequence_mask(data, valid_length, mask_value=0, axis=0)` | `T_sequence_mask` | `injective` |
//! | `layout_transform(array, src_layout, dst_layout, schedule_rule="None")` | `T_layout_trans` | `injective` |
//!
//! Index arithmetic folds constants as TVM's `PrimExpr` operators do
//! (`i * 1` is `i`, `i + 0` is `i`), so bodies read as TVM prints them.
//! Where TOPI has a static and a dynamic path (`strided_slice`), the
//! static one is built and symbolic bounds are refused.
//!
//! Known differences from TVM, each for want of an exact counterpart:
//! `take`'s "wrap" mode writes TOPI's `truncmod(truncmod(i, n) + n, n)`
//! with floor modulo (the same values for `n > 0`: the element language
//! has no `truncmod`); `take` with `batch_dims` is built for "clip" only
//! (TOPI ignores `batch_dims` in the other modes and reads wrong
//! elements); an unknown `take` mode is an error, not TOPI's silent
//! "wrap"; `strided_slice` bounds that select nothing are refused, as
//! TOPI's static path does.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ArgRef, ErrorClass};
use crate::object::Object;
use crate::objects::{constant_value, promote, to_index};
use crate::topi_ops::simplify;
use crate::topi_ops::tensor_arg as tensor;
use crate::value::Value;
use crate::Host;
use arith::{Analyzer, CmpOp, Expr};
use te::{AttrValue, Attrs};
use tir::DataType;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransformOp {
    /// `topi.transpose`.
    Transpose,
    /// `topi.expand_dims`.
    ExpandDims,
    /// `topi.squeeze`.
    Squeeze,
    /// `topi.concatenate`.
    Concatenate,
    /// `topi.stack`.
    Stack,
    /// `topi.split`.
    Split,
    /// `topi.strided_slice`.
    StridedSlice,
    /// `topi.broadcast_to`.
    BroadcastTo,
    /// `topi.where`.
    Where,
    /// `topi.take`.
    Take,
    /// `topi.gather`.
    Gather,
    /// `topi.full`.
    Full,
    /// `topi.full_like`.
    FullLike,
    /// `topi.flip`.
    Flip,
    /// `topi.tile`.
    Tile,
    /// `topi.repeat`.
    Repeat,
    /// `topi.one_hot`.
    OneHot,
    /// `topi.arange`.
    Arange,
    /// `topi.matmul` (the C++ one, not `topi.nn.matmul`).
    Matmul,
    /// `topi.tensordot`.
    Tensordot,
    /// `topi.shape`.
    Shape,
    /// `topi.sequence_mask`.
    SequenceMask,
    /// `topi.layout_transform`.
    LayoutTransform,
}

impl TransformOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<TransformOp> {
        use TransformOp as T;
        // TOPI defines it in `broadcast.py`.
        if (module_path, name) == ("tvm.topi.broadcast", "broadcast_to") {
            return Some(T::BroadcastTo);
        }
        if !matches!(module_path, "tvm.topi" | "tvm.topi.transform") {
            return None;
        }
        Some(match name {
            "transpose" => T::Transpose,
            "expand_dims" => T::ExpandDims,
            "squeeze" => T::Squeeze,
            "concatenate" => T::Concatenate,
            "stack" => T::Stack,
            "split" => T::Split,
            "strided_slice" => T::StridedSlice,
            "take" => T::Take,
            "gather" => T::Gather,
            "flip" => T::Flip,
            "tile" => T::Tile,
            "repeat" => T::Repeat,
            "one_hot" => T::OneHot,
            "arange" => T::Arange,
            "matmul" => T::Matmul,
            "tensordot" => T::Tensordot,
            "shape" => T::Shape,
            "sequence_mask" => T::SequenceMask,
            "layout_transform" => T::LayoutTransform,
            "where" => T::Where,
            // Only `tvm.topi` has these (`from .tensor import *`, ...).
            "full" if module_path == "tvm.topi" => T::Full,
            "full_like" if module_path == "tvm.topi" => T::FullLike,
            "broadcast_to" if module_path == "tvm.topi" => T::BroadcastTo,
            _ => return None,
        })
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        use TransformOp as T;
        match self {
            T::Transpose => "tvm.topi.transpose",
            T::ExpandDims => "tvm.topi.expand_dims",
            T::Squeeze => "tvm.topi.squeeze",
            T::Concatenate => "tvm.topi.concatenate",
            T::Stack => "tvm.topi.stack",
            T::Split => "tvm.topi.split",
            T::StridedSlice => "tvm.topi.strided_slice",
            T::BroadcastTo => "tvm.topi.broadcast_to",
            T::Where => "tvm.topi.where",
            T::Take => "tvm.topi.take",
            T::Gather => "tvm.topi.gather",
            T::Full => "tvm.topi.full",
            T::FullLike => "tvm.topi.full_like",
            T::Flip => "tvm.topi.flip",
            T::Tile => "tvm.topi.tile",
            T::Repeat => "tvm.topi.repeat",
            T::OneHot => "tvm.topi.one_hot",
            T::Arange => "tvm.topi.arange",
            T::Matmul => "tvm.topi.matmul",
            T::Tensordot => "tvm.topi.tensordot",
            T::Shape => "tvm.topi.shape",
            T::SequenceMask => "tvm.topi.sequence_mask",
            T::LayoutTransform => "tvm.topi.layout_transform",
        }
    }
}

/// Builds `op` from a call's arguments.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: TransformOp) -> ApiResult<Value> {
    use TransformOp as T;
    let out = match op {
        T::Transpose => transpose(args),
        T::ExpandDims => expand_dims(args),
        T::Squeeze => squeeze(args),
        T::Concatenate => concatenate(args),
        T::Stack => stack(args),
        T::Split => return split(args),
        T::StridedSlice => strided_slice(args),
        T::BroadcastTo => broadcast_to(args),
        T::Where => where_(args),
        T::Take => take(args),
        T::Gather => gather(args),
        T::Full => full(args),
        T::FullLike => full_like(args),
        T::Flip => flip(args),
        T::Tile => tile(args),
        T::Repeat => repeat(args),
        T::OneHot => one_hot(args),
        T::Arange => arange(args),
        T::Matmul => matmul(host, args),
        T::Tensordot => tensordot(host, args),
        T::Shape => shape(args),
        T::SequenceMask => sequence_mask(args),
        T::LayoutTransform => layout_transform(args),
    }?;
    Ok(Value::Object(Object::Tensor(out)))
}

// ---------------------------------------------------------------------
// Argument helpers.

/// The most dimensions an operator here makes: far beyond any real
/// tensor, and small enough that a hostile count cannot exhaust memory.
const MAX_NDIM: usize = 64;

/// A `ValueError` pointing at argument `g` when known.
fn value_error(g: Option<&Given>, message: impl Into<String>) -> ApiError {
    let e = ApiError::new(ErrorClass::ValueError, message);
    match g {
        Some(g) => e.at(g.at.clone()),
        None => e,
    }
}

/// A Python integer argument (a constant index expression counts, as
/// TVM converts an `IntImm` to `int`).
fn int_of(g: &Given, what: &str) -> ApiResult<i64> {
    match promote(&g.value) {
        Value::Int(i) => Ok(i),
        Value::Bool(b) => Ok(i64::from(b)),
        Value::Index(e) if e.as_int().is_some() => Ok(e.as_int().unwrap_or(0)),
        other => Err(type_error(
            g.place(),
            format!("`{what}` needs an integer, found a {}", other.type_name()),
        )),
    }
}

/// An optional integer argument with TVM's default.
fn int_arg(g: Option<&Given>, what: &str, default: i64) -> ApiResult<i64> {
    g.map_or(Ok(default), |g| int_of(g, what))
}

/// The items of a list or tuple argument; an integer stands for a list of
/// itself when `scalar_ok`.
fn items(g: &Given, what: &str, scalar_ok: bool) -> ApiResult<Vec<Value>> {
    match promote(&g.value) {
        v @ (Value::Int(_) | Value::Index(_)) if scalar_ok => Ok(vec![v]),
        v => v.sequence().ok_or_else(|| {
            type_error(
                g.place(),
                format!(
                    "`{what}` needs a list of integers, found a {}",
                    v.type_name()
                ),
            )
        }),
    }
}

/// A list of integers (one integer when `scalar_ok`, as TOPI's
/// `ArrayOrInt` takes it).
fn int_list(g: &Given, what: &str, scalar_ok: bool) -> ApiResult<Vec<i64>> {
    items(g, what, scalar_ok)?
        .into_iter()
        .map(|v| int_of(&g.item(v), what))
        .collect()
}

/// An optional string argument with TVM's default.
fn string_arg(g: Option<&Given>, what: &str, default: &str) -> ApiResult<String> {
    match g {
        None => Ok(default.to_string()),
        Some(g) => match &g.value {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(type_error(
                g.place(),
                format!("`{what}` needs a string, found a {}", other.type_name()),
            )),
        },
    }
}

/// An optional argument taken by Python truthiness, as TVM converts it.
fn bool_arg(g: Option<&Given>, default: bool) -> ApiResult<bool> {
    g.map_or(Ok(default), |g| crate::truth(&g.value))
}

/// An optional type-name argument with TVM's default.
fn dtype_arg(g: Option<&Given>, default: DataType) -> ApiResult<DataType> {
    g.map_or(Ok(default), crate::casts::dtype_arg)
}

/// `axis` as a dimension in `0..=ndim - 1 + extra` (negative counts from
/// the end of that range), as TOPI's checks take it.
fn norm_axis(
    axis: i64,
    ndim: usize,
    extra: usize,
    g: Option<&Given>,
    what: &str,
) -> ApiResult<usize> {
    let n = (ndim + extra) as i64;
    let d = if axis < 0 { axis + n } else { axis };
    if !(0..n).contains(&d) {
        return Err(value_error(
            g,
            format!(
                "{what} {axis} is out of range for a {ndim}-dimensional tensor: use a value in [{}, {})",
                -n, n
            ),
        ));
    }
    Ok(d as usize)
}

/// A shape given as an argument: each size an integer or an index
/// expression; constant sizes at least 0 and at most `int32`'s largest
/// value (TVM's shapes are `int32`), their product within 64 bits.
fn shape_list(g: &Given, what: &str) -> ApiResult<Vec<Expr>> {
    let dims: Vec<Expr> = items(g, what, true)?
        .into_iter()
        .map(|v| to_index(&g.item(v)))
        .collect::<ApiResult<_>>()?;
    check_sizes(&dims, Some(g), what)?;
    Ok(dims)
}

/// Refuses shapes rangefinder cannot hold exactly: too many dimensions,
/// a constant size outside `int32`, or more elements than 64 bits count.
fn check_sizes(dims: &[Expr], g: Option<&Given>, what: &str) -> ApiResult<()> {
    if dims.len() > MAX_NDIM {
        return Err(value_error(
            g,
            format!(
                "`{what}` has {} dimensions: at most {MAX_NDIM} are supported",
                dims.len()
            ),
        ));
    }
    let mut total: i64 = 1;
    for d in dims {
        if let Some(v) = constant_value(d) {
            if !(0..=i64::from(i32::MAX)).contains(&v) {
                return Err(value_error(
                    g,
                    format!("`{what}` has the size {v}: sizes must be in [0, 2147483647]"),
                ));
            }
            total = total.checked_mul(v).ok_or_else(|| {
                value_error(
                    g,
                    format!("`{what}` has more elements than a 64-bit index can count"),
                )
            })?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------
// Index arithmetic as TVM's `PrimExpr` operators fold it.

/// `a + b` as TVM's `operator+` folds it (constants, `+ 0`); overflow
/// is an error, never a wrapped constant.
fn add(a: Expr, b: Expr) -> ApiResult<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(checked(x.checked_add(y), x, "+", y)?),
        (_, Some(0)) => a,
        (Some(0), _) => b,
        _ => Expr::add(a, b),
    })
}

/// `a - b`, folded as TVM's `operator-` (constants, `- 0`).
fn sub(a: Expr, b: Expr) -> ApiResult<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(checked(x.checked_sub(y), x, "-", y)?),
        (_, Some(0)) => a,
        _ => Expr::sub(a, b),
    })
}

/// `a * b`, folded as TVM's `operator*` (constants, `* 1`).
fn mul(a: Expr, b: Expr) -> ApiResult<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(checked(x.checked_mul(y), x, "*", y)?),
        (_, Some(1)) => a,
        (Some(1), _) => b,
        _ => Expr::mul(a, b),
    })
}

/// `floordiv(a, b)`, folded as TVM's `indexdiv` (constants, `// 1`).
fn floor_div(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) if y != 0 && !(x == i64::MIN && y == -1) => {
            Expr::int(x.div_euclid(y) - i64::from(x.rem_euclid(y) != 0 && y < 0))
        }
        (_, Some(1)) => a,
        _ => Expr::floor_div(a, b),
    }
}

/// `floormod(a, b)`, folded as TVM's `indexmod` (constants, `% 1`).
fn floor_mod(a: Expr, b: Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) if y > 0 => Expr::int(x.rem_euclid(y)),
        (_, Some(1)) => Expr::int(0),
        _ => Expr::floor_mod(a, b),
    }
}

/// The result of checked constant arithmetic, or an `OverflowError`.
fn checked(r: Option<i64>, x: i64, op: &str, y: i64) -> ApiResult<i64> {
    r.ok_or_else(|| {
        ApiError::new(
            ErrorClass::OverflowError,
            format!("integer overflow: {x} {op} {y} does not fit in 64 bits"),
        )
    })
}

/// Whether two sizes are equal as TOPI's `EqualCheck` decides it: the
/// same expression, or a difference that simplifies to zero.
fn equal_sizes(a: &Expr, b: &Expr) -> bool {
    if a == b {
        return true;
    }
    let diff = Expr::sub(a.clone(), b.clone());
    Analyzer::new()
        .simplify(&diff)
        .ok()
        .and_then(|d| d.as_int())
        == Some(0)
}

// ---------------------------------------------------------------------
// Computes.

/// The axis names of a C++ `te::compute`: `ax0, ax1, ...`.
fn ax_names(n: usize) -> Vec<String> {
    (0..n).map(|d| format!("ax{d}")).collect()
}

/// TOPI's C++ `compute(shape, f, name, tag, attrs)`.
fn compute(
    shape: Vec<Expr>,
    name: &str,
    tag: &str,
    attrs: Attrs,
    f: impl FnOnce(&[Expr]) -> ApiResult<te::Value>,
) -> ApiResult<te::Tensor> {
    check_sizes(&shape, None, name)?;
    let names = ax_names(shape.len());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    te::try_compute_tagged::<crate::functions::BuildFailure>(
        shape,
        &names,
        |i| f(i).map_err(crate::functions::BuildFailure::Host),
        name,
        tag,
        attrs,
    )
    .map_err(ApiError::from)
}

/// A constant of type `dt` as TVM's `cast(dt, const)` folds it: a float
/// rounds toward zero into an integer type, and an integer out of the
/// type's range is an error (TVM's `IntImm` refuses it).
fn typed_constant(v: f64, dt: DataType, g: Option<&Given>) -> ApiResult<te::Value> {
    if dt.is_float() {
        return Ok(crate::objects::float_constant(v, dt));
    }
    let t = v.trunc();
    let range = dt.int_range().unwrap_or((i64::MIN, i64::MAX));
    let i = if dt == DataType::Bool {
        i64::from(v != 0.0)
    } else if t.is_finite() && t >= range.0 as f64 && t <= range.1 as f64 {
        t as i64
    } else {
        return Err(value_error(
            g,
            format!("the value {v} does not fit in {dt}"),
        ));
    };
    Ok(if dt == DataType::Int32 {
        te::Value::int(i)
    } else {
        te::Value::cast(dt, te::Value::int(i))
    })
}

/// A fill value of type `dt`, as TOPI's `cast(dtype, fill_value)` makes
/// it: constants folded, expressions cast.
fn fill_value(g: &Given, dt: DataType) -> ApiResult<te::Value> {
    match promote(&g.value) {
        Value::Int(i) => {
            if dt.is_float() {
                Ok(crate::objects::float_constant(i as f64, dt))
            } else {
                let range = dt.int_range().unwrap_or((i64::MIN, i64::MAX));
                if dt != DataType::Bool && !(range.0..=range.1).contains(&i) {
                    return Err(value_error(
                        Some(g),
                        format!("the value {i} does not fit in {dt}"),
                    ));
                }
                typed_constant(i as f64, dt, Some(g)).map(|v| {
                    if dt == DataType::Int32 || dt == DataType::Bool {
                        v
                    } else {
                        te::Value::cast(dt, te::Value::int(i))
                    }
                })
            }
        }
        Value::Bool(b) => typed_constant(f64::from(u8::from(b)), dt, Some(g)),
        Value::Float(f) => typed_constant(f, dt, Some(g)),
        other => {
            let e = crate::objects::to_element(&other, g.place())?;
            if let Some(c) = crate::objects::element_constant(&e) {
                return typed_constant(c, dt, Some(g));
            }
            Ok(if e.dtype() == dt {
                e
            } else {
                te::Value::cast(dt, e)
            })
        }
    }
}

// ---------------------------------------------------------------------
// Operators.

/// `transpose(a, axes=None)`: no axes (or an empty list) reverses them.
fn transpose(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("transpose", &["a", "axes"])?;
    let x = tensor(a.required("a")?, "transpose")?;
    let n = x.ndim();
    let axes_arg = a.get("axes").filter(|g| !matches!(g.value, Value::None));
    let mut axes: Vec<usize> = Vec::with_capacity(n);
    if let Some(g) = axes_arg {
        for v in int_list(g, "axes", false)? {
            axes.push(norm_axis(v, n, 0, Some(g), "axis")?);
        }
        if axes.is_empty() {
            axes = (0..n).rev().collect();
        } else if axes.len() != n {
            return Err(value_error(
                Some(g),
                format!(
                    "`axes` names {} axes of a {n}-dimensional tensor: name each axis once",
                    axes.len()
                ),
            ));
        }
        let mut seen = vec![false; n];
        for &d in &axes {
            if std::mem::replace(&mut seen[d], true) {
                return Err(value_error(Some(g), "repeated axis in transpose"));
            }
        }
    } else {
        axes = (0..n).rev().collect();
    }
    let shape = axes.iter().map(|&d| x.shape()[d].clone()).collect();
    compute(shape, "T_transpose", "injective", Attrs::new(), |o| {
        let mut idx = vec![Expr::int(1); n];
        for (i, &d) in axes.iter().enumerate() {
            idx[d] = o[i].clone();
        }
        Ok(x.at(idx))
    })
}

/// `expand_dims(a, axis, num_newaxis=1)`.
fn expand_dims(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("expand_dims", &["a", "axis", "num_newaxis"])?;
    let x = tensor(a.required("a")?, "expand_dims")?;
    let n = x.ndim();
    let axis_arg = a.required("axis")?;
    let axis = norm_axis(int_of(axis_arg, "axis")?, n, 1, Some(axis_arg), "axis")?;
    let num = int_arg(a.get("num_newaxis"), "num_newaxis", 1)?;
    if num < 0 || n as i64 + num > MAX_NDIM as i64 {
        return Err(value_error(
            a.get("num_newaxis"),
            format!("`num_newaxis` is {num}: it must be at least 0, and the result at most {MAX_NDIM}-dimensional"),
        ));
    }
    let num = num as usize;
    let mut shape: Vec<Expr> = x.shape()[..axis].to_vec();
    shape.extend(std::iter::repeat_n(Expr::int(1), num));
    shape.extend_from_slice(&x.shape()[axis..]);
    compute(shape, "T_expand_dims", "broadcast", Attrs::new(), |o| {
        let idx: Vec<Expr> = o[..axis].iter().chain(&o[axis + num..]).cloned().collect();
        Ok(x.at(idx))
    })
}

/// `squeeze(a, axis=None)`: no axis removes every dimension of constant
/// size 1.
fn squeeze(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("squeeze", &["a", "axis"])?;
    let x = tensor(a.required("a")?, "squeeze")?;
    let n = x.ndim();
    let mut removed = vec![false; n];
    match a.get("axis").filter(|g| !matches!(g.value, Value::None)) {
        None => {
            for (d, s) in x.shape().iter().enumerate() {
                removed[d] = s.as_int() == Some(1);
            }
        }
        Some(g) => {
            for v in int_list(g, "axis", true)? {
                let d = norm_axis(v, n, 0, Some(g), "axis")?;
                if let Some(size) = constant_value(&x.shape()[d]) {
                    if size != 1 {
                        return Err(value_error(
                            Some(g),
                            format!("dimension {d} has size {size}: squeeze removes only dimensions of size 1"),
                        ));
                    }
                }
                removed[d] = true;
            }
        }
    }
    let shape = (0..n)
        .filter(|&d| !removed[d])
        .map(|d| x.shape()[d].clone())
        .collect();
    compute(shape, "T_squeeze", "injective", Attrs::new(), |o| {
        let mut next = o.iter();
        let idx: Vec<Expr> = (0..n)
            .map(|d| {
                if removed[d] {
                    Expr::int(0)
                } else {
                    next.next().cloned().unwrap_or_else(|| Expr::int(0))
                }
            })
            .collect();
        Ok(x.at(idx))
    })
}

/// A list of tensors of one rank and type whose sizes agree except along
/// `except` (when given), for `concatenate` and `stack`.
fn tensor_sequence(g: &Given, what: &str, except: Option<i64>) -> ApiResult<Vec<te::Tensor>> {
    let values = g.value.sequence().ok_or_else(|| {
        type_error(
            g.place(),
            format!(
                "`{what}` needs a list or tuple of tensors, found a {}",
                g.value.type_name()
            ),
        )
    })?;
    let ts: Vec<te::Tensor> = values
        .into_iter()
        .map(|v| tensor(&g.item(v), what))
        .collect::<ApiResult<_>>()?;
    let Some(first) = ts.first() else {
        return Err(value_error(
            Some(g),
            format!("`{what}` needs at least one tensor"),
        ));
    };
    let n = first.ndim();
    let except = except.map(|a| if a < 0 { a + n as i64 } else { a });
    for t in &ts[1..] {
        if t.ndim() != n || t.dtype() != first.dtype() {
            return Err(value_error(
                Some(g),
                format!(
                    "`{what}` joins tensors of one rank and type: `{}` is {}-dimensional {}, `{}` {}-dimensional {}",
                    first.name(), n, first.dtype(), t.name(), t.ndim(), t.dtype()
                ),
            ));
        }
        for d in 0..n {
            if Some(d as i64) == except {
                continue;
            }
            let (p, q) = (&first.shape()[d], &t.shape()[d]);
            if let (Some(u), Some(v)) = (constant_value(p), constant_value(q)) {
                if u != v {
                    return Err(value_error(
                        Some(g),
                        format!(
                            "`{what}`: dimension {d} is {u} in `{}` but {v} in `{}`",
                            first.name(),
                            t.name()
                        ),
                    ));
                }
            }
        }
    }
    Ok(ts)
}

/// `concatenate(a_tuple, axis=0)`: each later input is read where the
/// index, less the sizes before it, is not negative.
fn concatenate(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("concatenate", &["a_tuple", "axis"])?;
    let axis_arg = a.get("axis");
    let axis = int_arg(axis_arg, "axis", 0)?;
    let ts = tensor_sequence(a.required("a_tuple")?, "concatenate", Some(axis))?;
    let n = ts[0].ndim();
    let axis = norm_axis(axis, n, 0, axis_arg, "axis")?;
    let sizes: Vec<Expr> = ts.iter().map(|t| t.shape()[axis].clone()).collect();
    let mut join = sizes[0].clone();
    for s in &sizes[1..] {
        join = add(join, s.clone())?;
    }
    let mut shape = ts[0].shape().to_vec();
    shape[axis] = simplify(join);
    compute(shape, "T_concat", "injective", Attrs::new(), |o| {
        let mut ret = ts[0].at(o.to_vec());
        let mut ind = o[axis].clone();
        for i in 0..ts.len() - 1 {
            ind = sub(ind, sizes[i].clone())?;
            let mut idx = o.to_vec();
            idx[axis] = ind.clone();
            ret = te::Value::select(Expr::ge(ind.clone(), Expr::int(0)), ts[i + 1].at(idx), ret);
        }
        Ok(ret)
    })
}

/// `stack(a, axis)`: a new axis of size `len(a)` choosing the input.
fn stack(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("stack", &["a", "axis"])?;
    let ts = tensor_sequence(a.required("a")?, "stack", None)?;
    let n = ts[0].ndim();
    let axis_arg = a.required("axis")?;
    let axis = norm_axis(int_of(axis_arg, "axis")?, n, 1, Some(axis_arg), "axis")?;
    let mut shape = ts[0].shape().to_vec();
    shape.insert(axis, Expr::int(ts.len() as i64));
    compute(shape, "T_stack", "injective", Attrs::new(), |o| {
        let idx: Vec<Expr> = o
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != axis)
            .map(|(_, e)| e.clone())
            .collect();
        let mut ret = ts[0].at(idx.clone());
        for (i, t) in ts.iter().enumerate().skip(1) {
            ret = te::Value::select(
                Expr::eq(o[axis].clone(), Expr::int(i as i64)),
                t.at(idx.clone()),
                ret,
            );
        }
        Ok(ret)
    })
}

/// `split(ary, indices_or_sections, axis=0)`: a list of tensors, each
/// its own compute (`T_split_sections` for a number of sections,
/// `T_split` for split points).
fn split(args: Args) -> ApiResult<Value> {
    let a = args.bind("split", &["ary", "indices_or_sections", "axis"])?;
    let x = tensor(a.required("ary")?, "split")?;
    let axis_arg = a.get("axis");
    let axis = norm_axis(int_arg(axis_arg, "axis", 0)?, x.ndim(), 0, axis_arg, "axis")?;
    let ios = a.required("indices_or_sections")?;
    let size = x.shape()[axis].clone();
    let (points, name) = match promote(&ios.value) {
        Value::Int(k) => {
            if k <= 0 || k > i64::from(i32::MAX) {
                return Err(value_error(
                    Some(ios),
                    format!(
                        "cannot split into {k} sections: give a number of sections of at least 1"
                    ),
                ));
            }
            if let Some(s) = constant_value(&size) {
                if s % k != 0 {
                    return Err(value_error(
                        Some(ios),
                        format!("{k} sections must divide the size of axis {axis} ({s})"),
                    ));
                }
            }
            let seg = floor_div(size.clone(), Expr::int(k));
            let points = (1..k)
                .map(|i| mul(seg.clone(), Expr::int(i)))
                .collect::<ApiResult<Vec<_>>>()?;
            (points, "T_split_sections")
        }
        v => {
            let list = v.sequence().ok_or_else(|| {
                type_error(ios.place(), format!("`indices_or_sections` needs an integer or a list of split points, found a {}", v.type_name()))
            })?;
            let points: Vec<Expr> = list
                .into_iter()
                .map(|v| to_index(&ios.item(v)))
                .collect::<ApiResult<_>>()?;
            let mut back = Some(0);
            for p in &points {
                let c = p.as_int();
                if let (Some(c), Some(b)) = (c, back) {
                    if c <= b {
                        return Err(value_error(
                            Some(ios),
                            format!("split points must be sorted and above 0: {c} follows {b}"),
                        ));
                    }
                }
                back = c;
            }
            if let (Some(last), Some(s)) = (back, constant_value(&size)) {
                if last > s {
                    return Err(value_error(
                        Some(ios),
                        format!("split point {last} is beyond the size of axis {axis} ({s})"),
                    ));
                }
            }
            (points, "T_split")
        }
    };
    let mut begins = vec![Expr::int(0)];
    begins.extend(points);
    let mut outs = Vec::with_capacity(begins.len());
    for i in 0..begins.len() {
        let len = match begins.get(i + 1) {
            Some(next) => sub(next.clone(), begins[i].clone())?,
            None => sub(size.clone(), begins[i].clone())?,
        };
        let mut shape = x.shape().to_vec();
        shape[axis] = len;
        let begin = begins[i].clone();
        let t = compute(shape, name, "injective", Attrs::new(), |o| {
            let mut idx = o.to_vec();
            idx[axis] = add(o[axis].clone(), begin)?;
            Ok(x.at(idx))
        })?;
        outs.push(Value::Object(Object::Tensor(t)));
    }
    Ok(Value::list(outs))
}

/// One slice bound: an integer, or `None` for "from the start/to the end".
fn bound_list(g: Option<&Given>, what: &str) -> ApiResult<Vec<Option<i64>>> {
    let Some(g) = g.filter(|g| !matches!(g.value, Value::None)) else {
        return Ok(Vec::new());
    };
    if let Value::Object(Object::Tensor(_)) = g.value {
        return Err(ApiError::not_supported(format!(
            "`strided_slice` with `{what}` given as a tensor (TOPI's dynamic strided slice) is not supported: give constant integers"
        )).at(g.at.clone()));
    }
    items(g, what, true)?
        .into_iter()
        .map(|v| match promote(&v) {
            Value::None => Ok(None),
            Value::Index(e) if e.as_int().is_none() => Err(ApiError::not_supported(format!(
                "`strided_slice` with the symbolic `{what}` bound {e} is not supported: give constant integers"
            )).at(g.at.clone())),
            other => int_of(&g.item(other), what).map(Some),
        })
        .collect()
}

/// TOPI's `CanonicalizeIndex`: a negative index counts from the end, then
/// clamps to `[0, extent]` (`[-1, extent - 1]` for a negative stride).
fn canonical_index(index: i64, extent: i64, stride: i64) -> i64 {
    let (lo, hi) = if stride < 0 {
        (-1, extent - 1)
    } else {
        (0, extent)
    };
    let i = if index < 0 {
        index.saturating_add(extent)
    } else {
        index
    };
    i.clamp(lo, hi)
}

/// `strided_slice(a, begin, end, strides=None, axes=None,
/// slice_mode="end", assume_inbound=True)` on constant bounds and a
/// tensor of constant shape (TOPI's static path).
fn strided_slice(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind(
        "strided_slice",
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
    let x = tensor(a.required("a")?, "strided_slice")?;
    let n = x.ndim();
    let begin_arg = a.required("begin")?;
    let end_arg = a.required("end")?;
    let begin = bound_list(Some(begin_arg), "begin")?;
    let end = bound_list(Some(end_arg), "end")?;
    let strides_arg = a.get("strides");
    let strides: Vec<i64> = bound_list(strides_arg, "strides")?
        .into_iter()
        .map(|s| {
            s.ok_or_else(|| value_error(strides_arg, "`strides` cannot hold None: give an integer"))
        })
        .collect::<ApiResult<_>>()?;
    let axes_arg = a.get("axes").filter(|g| !matches!(g.value, Value::None));
    let axes: Vec<usize> = match axes_arg {
        Some(g) => int_list(g, "axes", false)?
            .into_iter()
            .map(|v| {
                if v < 0 || v >= n as i64 {
                    Err(value_error(Some(g), format!("axis {v} is out of range for a {n}-dimensional tensor: use a value in [0, {n})")))
                } else {
                    Ok(v as usize)
                }
            })
            .collect::<ApiResult<_>>()?,
        None => Vec::new(),
    };
    let mode_arg = a.get("slice_mode");
    let mode = string_arg(mode_arg, "slice_mode", "end")?;
    if mode != "end" && mode != "size" {
        return Err(value_error(
            mode_arg,
            format!("unknown slice_mode `{mode}`: use \"end\" or \"size\""),
        ));
    }
    bool_arg(a.get("assume_inbound"), true)?;
    let dims: Vec<i64> = x
        .shape()
        .iter()
        .map(constant_value)
        .collect::<Option<_>>()
        .ok_or_else(|| {
            ApiError::not_supported(format!(
                "`strided_slice` of `{}` of symbolic shape {:?} is not supported: TOPI's dynamic strided slice is not built; slice a tensor of constant shape",
                x.name(),
                x.shape().iter().map(|e| e.to_string()).collect::<Vec<_>>()
            ))
        })?;
    let max = i64::from(i32::MAX);
    // The bounds per sliced axis: all axes in order, or the given `axes`.
    let (begin, end, strides, axes, name) = if axes.is_empty() {
        for (what, len, g) in [
            ("begin", begin.len(), Some(begin_arg)),
            ("end", end.len(), Some(end_arg)),
            ("strides", strides.len(), strides_arg),
        ] {
            if len > n {
                return Err(value_error(
                    g,
                    format!("`{what}` has {len} values for a {n}-dimensional tensor"),
                ));
            }
        }
        let mut s = strides.clone();
        s.resize(n, 1);
        let mut b = begin.clone();
        let mut e = end.clone();
        let given = (b.len(), e.len());
        b.extend(
            s[given.0..]
                .iter()
                .map(|&st| Some(if st > 0 { 0 } else { max })),
        );
        e.extend(
            s[given.1..]
                .iter()
                .map(|&st| Some(if st < 0 { 0 } else { max })),
        );
        (b, e, s, (0..n).collect::<Vec<_>>(), "T_strided_slice")
    } else {
        if begin.len() != axes.len() || end.len() != axes.len() || strides.len() != axes.len() {
            return Err(value_error(
                axes_arg,
                format!(
                    "with `axes`, `begin`, `end` and `strides` need one value per axis ({}); found {}, {} and {}",
                    axes.len(), begin.len(), end.len(), strides.len()
                ),
            ));
        }
        (begin, end, strides, axes, "T_strided_slice_with_axes")
    };
    // TOPI's `ConvertToVec`: "size" mode ignores the strides.
    let strides: Vec<i64> = if mode == "size" {
        vec![1; strides.len()]
    } else {
        strides
    };
    if let Some(i) = strides.iter().position(|&s| s == 0) {
        return Err(value_error(
            strides_arg,
            format!("stride {i} is 0: strides must not be zero"),
        ));
    }
    let begin: Vec<i64> = begin
        .iter()
        .zip(&strides)
        .map(|(b, &s)| b.unwrap_or(if s > 0 { 0 } else { i64::MAX }))
        .collect();
    let end: Vec<i64> = end
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let open = if strides[i] < 0 { 0 } else { i64::MAX };
            match e {
                None => open,
                Some(v) if mode == "size" && *v < 0 => open,
                Some(v) if mode == "size" => begin[i].saturating_add(*v),
                Some(v) => *v,
            }
        })
        .collect();
    let mut shape = x.shape().to_vec();
    let mut starts = Vec::with_capacity(axes.len());
    for (i, &d) in axes.iter().enumerate() {
        let b = canonical_index(begin[i], dims[d], strides[i]);
        let e = canonical_index(end[i], dims[d], strides[i]);
        if (strides[i] < 0 && e > b) || (strides[i] > 0 && b > e) {
            return Err(value_error(
                Some(begin_arg),
                format!("begin {} and end {} select nothing along axis {d} with stride {}: TOPI refuses an empty slice", begin[i], end[i], strides[i]),
            ));
        }
        let interval = (i128::from(e) - i128::from(b)).abs();
        let step = i128::from(strides[i]).abs();
        shape[d] = Expr::int(((interval + step - 1) / step) as i64);
        starts.push(b);
    }
    compute(shape, name, "injective", Attrs::new(), |o| {
        let mut idx = o.to_vec();
        for (i, &d) in axes.iter().enumerate() {
            idx[d] = add(
                mul(o[d].clone(), Expr::int(strides[i]))?,
                Expr::int(starts[i]),
            )?;
        }
        Ok(x.at(idx))
    })
}

/// The common shape of a broadcast, and for each side which of its
/// dimensions index that side.
type Broadcast = (Vec<Expr>, Vec<bool>, Vec<bool>);

/// The broadcast of two shapes as TOPI's `BroadcastShape` makes it: the
/// common shape, and for each side which of the common dimensions index
/// it (a size 1 against a larger size is read at 0).
fn broadcast_shapes(s1: &[Expr], s2: &[Expr]) -> Result<Broadcast, String> {
    let n = s1.len().max(s2.len());
    let mut common = vec![Expr::int(1); n];
    let (mut use1, mut use2) = (vec![false; n], vec![false; n]);
    for k in 1..=n {
        let d = n - k;
        let a = (k <= s1.len()).then(|| &s1[s1.len() - k]);
        let b = (k <= s2.len()).then(|| &s2[s2.len() - k]);
        let (c, u1, u2) = match (a, b) {
            (Some(a), Some(b)) => {
                let one = Expr::int(1);
                let (ca, cb) = (a.as_int(), b.as_int());
                if equal_sizes(a, b) {
                    (a.clone(), true, true)
                } else if equal_sizes(&one, a) {
                    (b.clone(), false, true)
                } else if equal_sizes(&one, b) {
                    (a.clone(), true, false)
                } else if ca.is_none() && cb.is_none() {
                    (Expr::max(a.clone(), b.clone()), true, true)
                } else if ca.is_none() {
                    (b.clone(), true, true)
                } else if cb.is_none() {
                    (a.clone(), true, true)
                } else {
                    return Err(format!("incompatible broadcast dimensions {a} and {b}"));
                }
            }
            (Some(a), None) => (a.clone(), true, false),
            (None, Some(b)) => (b.clone(), false, true),
            (None, None) => unreachable!("k is at most the longer rank"),
        };
        common[d] = c;
        use1[d] = u1;
        use2[d] = u2;
    }
    Ok((common, use1, use2))
}

/// The indices of an `ndim`-dimensional operand at the output's `o`:
/// TOPI's `InputIndexFromBroadcast`.
fn broadcast_index(o: &[Expr], ndim: usize, used: &[bool]) -> Vec<Expr> {
    let skip = o.len() - ndim;
    (skip..o.len())
        .map(|d| if used[d] { o[d].clone() } else { Expr::int(0) })
        .collect()
}

/// `broadcast_to(data, shape)`.
fn broadcast_to(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("broadcast_to", &["data", "shape"])?;
    let x = tensor(a.required("data")?, "broadcast_to")?;
    let g = a.required("shape")?;
    let target = shape_list(g, "shape")?;
    if target.len() < x.ndim() {
        return Err(value_error(
            Some(g),
            format!(
                "cannot broadcast a {}-dimensional tensor to {} dimensions: not a broadcast",
                x.ndim(),
                target.len()
            ),
        ));
    }
    let (common, _, used) =
        broadcast_shapes(&target, x.shape()).map_err(|m| value_error(Some(g), m))?;
    let mut shape = Vec::with_capacity(target.len());
    for (t, c) in target.iter().zip(&common) {
        if t.as_int().is_none() {
            shape.push(t.clone());
        } else if equal_sizes(t, c) {
            shape.push(c.clone());
        } else {
            return Err(value_error(
                Some(g),
                format!(
                    "cannot broadcast `{}` of shape {:?} to {:?}",
                    x.name(),
                    x.shape().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
                    target.iter().map(|e| e.to_string()).collect::<Vec<_>>()
                ),
            ));
        }
    }
    compute(shape, "T_broadcast_to", "broadcast", Attrs::new(), |o| {
        Ok(x.at(broadcast_index(o, x.ndim(), &used)))
    })
}

/// `where(condition, x, y)`: `x` where the condition is not zero, with
/// the three broadcast together.
fn where_(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("where", &["condition", "x", "y"])?;
    let c = tensor(a.required("condition")?, "where")?;
    let xg = a.required("x")?;
    let x = tensor(xg, "where")?;
    let y = tensor(a.required("y")?, "where")?;
    if x.dtype() != y.dtype() {
        return Err(value_error(
            Some(xg),
            format!(
                "x and y must have the same dtype: {} vs {}",
                x.dtype(),
                y.dtype()
            ),
        ));
    }
    let fail = |m: String| value_error(None, format!("`where` cannot broadcast its operands: {m}"));
    let (xy, _, _) = broadcast_shapes(x.shape(), y.shape()).map_err(fail)?;
    let (out, _, _) = broadcast_shapes(c.shape(), &xy).map_err(fail)?;
    let (_, cu, _) = broadcast_shapes(c.shape(), &out).map_err(fail)?;
    let (_, xu, _) = broadcast_shapes(x.shape(), &out).map_err(fail)?;
    let (_, yu, _) = broadcast_shapes(y.shape(), &out).map_err(fail)?;
    let n = out.len();
    let used = |u: &[bool]| -> Vec<bool> {
        // `broadcast_shapes(s, out)` aligns `s` to `out`'s rank already.
        let mut v = vec![false; n - u.len()];
        v.extend_from_slice(u);
        v
    };
    let (cu, xu, yu) = (used(&cu), used(&xu), used(&yu));
    compute(out, "T_where", "broadcast", Attrs::new(), |o| {
        let cond = te::Value::cmp(
            CmpOp::Ne,
            c.at(broadcast_index(o, c.ndim(), &cu)),
            te::Value::int(0),
        );
        Ok(te::Value::select_value(
            cond,
            x.at(broadcast_index(o, x.ndim(), &xu)),
            y.at(broadcast_index(o, y.ndim(), &yu)),
        ))
    })
}

/// What `take` reads its indices from: a tensor, or one index.
enum TakeIndices {
    /// A tensor of indices, read at the output's positions.
    Tensor(te::Tensor),
    /// One index for every output element (TOPI's `PrimExpr` variant).
    Scalar(Expr),
}

/// `take(a, indices, axis=None, batch_dims=0, mode="clip")`: a
/// data-dependent read; "clip" clamps the index into range, "wrap" wraps
/// it around (TOPI's `truncmod(truncmod(i, n) + n, n)`, written with
/// floor modulo, which gives the same values for `n > 0`), "fast" reads
/// as given.
fn take(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("take", &["a", "indices", "axis", "batch_dims", "mode"])?;
    let x = tensor(a.required("a")?, "take")?;
    let ig = a.required("indices")?;
    let indices = match promote(&ig.value) {
        Value::Object(Object::Tensor(t)) => {
            if !t.dtype().is_int() {
                return Err(type_error(
                    ig.place(),
                    format!("`indices` must be an integer tensor, found {}", t.dtype()),
                ));
            }
            TakeIndices::Tensor(t)
        }
        Value::Int(_) | Value::Index(_) => TakeIndices::Scalar(to_index(ig)?),
        other => {
            return Err(type_error(
                ig.place(),
                format!(
                    "`indices` needs a tensor or an integer, found a {}",
                    other.type_name()
                ),
            ))
        }
    };
    let mode_arg = a.get("mode");
    let mode = string_arg(mode_arg, "mode", "clip")?;
    if !matches!(mode.as_str(), "clip" | "wrap" | "fast") {
        return Err(value_error(
            mode_arg,
            format!("unknown mode `{mode}`: use \"clip\", \"wrap\" or \"fast\""),
        ));
    }
    let batch_arg = a.get("batch_dims");
    let batch_dims = int_arg(batch_arg, "batch_dims", 0)?;
    let axis_arg = a.get("axis").filter(|g| !matches!(g.value, Value::None));
    let load_index =
        |t: &te::Tensor, pos: Vec<Expr>| te::Value::new(te::ValueKind::Load(t.clone(), pos));
    let Some(axis_arg) = axis_arg else {
        // Over the flattened input.
        let TakeIndices::Tensor(ind) = indices else {
            return Err(type_error(
                ig.place(),
                "`take` without an axis needs a tensor of indices",
            ));
        };
        let mut size = Expr::int(1);
        for s in x.shape() {
            size = mul(size, s.clone())?;
        }
        return compute(
            ind.shape().to_vec(),
            "T_take",
            "injective",
            Attrs::new(),
            |o| {
                let i = load_index(&ind, o.to_vec());
                let i = match mode.as_str() {
                    "clip" => te::Value::min(
                        te::Value::max(te::Value::int(0), i),
                        te::Value::index(sub(size.clone(), Expr::int(1))?),
                    ),
                    "wrap" => wrap(i, &size),
                    _ => i,
                };
                Ok(te::Value::gather(&x, unravel(i, x.shape())))
            },
        );
    };
    let n = x.ndim();
    let axis = norm_axis(int_of(axis_arg, "axis")?, n, 0, Some(axis_arg), "axis")?;
    let ishape: Vec<Expr> = match &indices {
        TakeIndices::Tensor(t) => t.shape().to_vec(),
        TakeIndices::Scalar(_) => Vec::new(),
    };
    let ilen = ishape.len();
    let mut bd = batch_dims;
    if bd != 0 {
        if bd < -(ilen as i64) || bd > ilen as i64 {
            return Err(value_error(
                batch_arg,
                format!("batch_dims {batch_dims} is out of range for {ilen}-dimensional indices"),
            ));
        }
        if bd < 0 {
            bd += ilen as i64;
        }
        if bd as usize >= n || bd as usize > axis {
            return Err(value_error(batch_arg, format!("batch_dims {bd} must be below the rank of `a` ({n}) and at most the axis ({axis})")));
        }
        if mode != "clip" {
            return Err(ApiError::not_supported(format!(
                "`take` with batch_dims and mode \"{mode}\" is not supported (TOPI ignores batch_dims there): use mode \"clip\""
            )).at(batch_arg.map_or(ArgRef::Keyword("batch_dims".into()), |g| g.at.clone())));
        }
        for (i, (xs, is)) in x.shape().iter().zip(&ishape).take(bd as usize).enumerate() {
            match (constant_value(xs), constant_value(is)) {
                (Some(p), Some(q)) if p == q => {}
                (p, q) => {
                    return Err(value_error(
                        batch_arg,
                        format!(
                            "a.shape[{i}] should be equal to indices.shape[{i}]: {} vs {}",
                            p.map_or(xs.to_string(), |v| v.to_string()),
                            q.map_or(is.to_string(), |v| v.to_string())
                        ),
                    ))
                }
            }
        }
    }
    let bd = bd as usize;
    let mut shape: Vec<Expr> = x.shape()[..axis].to_vec();
    shape.extend_from_slice(&ishape[bd..]);
    shape.extend_from_slice(&x.shape()[axis + 1..]);
    let dim = x.shape()[axis].clone();
    compute(shape, "T_take", "injective", Attrs::new(), |o| {
        let mut pos: Vec<Expr> = o[..bd].to_vec();
        pos.extend_from_slice(&o[axis..axis + ilen - bd]);
        let i = match &indices {
            TakeIndices::Tensor(t) => load_index(t, pos),
            TakeIndices::Scalar(e) => te::Value::index(e.clone()),
        };
        let i = match mode.as_str() {
            "clip" => te::Value::min(
                te::Value::max(te::Value::int(0), i),
                te::Value::index(sub(dim.clone(), Expr::int(1))?),
            ),
            "wrap" => wrap(i, &dim),
            _ => i,
        };
        let mut idx: Vec<te::Value> = o[..axis].iter().cloned().map(te::Value::index).collect();
        idx.push(i);
        idx.extend(o[axis + ilen - bd..].iter().cloned().map(te::Value::index));
        Ok(te::Value::gather(&x, idx))
    })
}

/// `i` wrapped into `[0, n)`.
fn wrap(i: te::Value, n: &Expr) -> te::Value {
    let n = te::Value::index(n.clone());
    let m = te::Value::binary(te::BinaryOp::Mod, i, n.clone());
    te::Value::binary(
        te::BinaryOp::Mod,
        te::Value::binary(te::BinaryOp::Add, m, n.clone()),
        n,
    )
}

/// TOPI's `UnravelIndex` of a value index over `shape`.
fn unravel(i: te::Value, shape: &[Expr]) -> Vec<te::Value> {
    let mut out = Vec::with_capacity(shape.len());
    let mut rest = i;
    for s in shape.iter().rev() {
        let s = te::Value::index(s.clone());
        out.push(te::Value::binary(
            te::BinaryOp::Mod,
            rest.clone(),
            s.clone(),
        ));
        rest = te::Value::binary(te::BinaryOp::Div, rest, s);
    }
    out.reverse();
    out
}

/// `gather(data, axis, indices)`: `data` with the index along `axis`
/// read from `indices`, of `indices`' shape.
fn gather(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("gather", &["data", "axis", "indices"])?;
    let x = tensor(a.required("data")?, "gather")?;
    let ig = a.required("indices")?;
    let ind = tensor(ig, "gather")?;
    let n = x.ndim();
    if n == 0 {
        return Err(value_error(None, "cannot gather from a scalar"));
    }
    if ind.ndim() != n {
        return Err(value_error(
            Some(ig),
            format!(
                "`indices` is {}-dimensional but `data` {n}-dimensional: they need the same rank",
                ind.ndim()
            ),
        ));
    }
    if !ind.dtype().is_int() {
        return Err(type_error(
            ig.place(),
            format!("`indices` must be an integer tensor, found {}", ind.dtype()),
        ));
    }
    let axis_arg = a.required("axis")?;
    let axis = norm_axis(int_of(axis_arg, "axis")?, n, 0, Some(axis_arg), "axis")?;
    for d in 0..n {
        if let (Some(p), Some(q)) = (
            constant_value(&x.shape()[d]),
            constant_value(&ind.shape()[d]),
        ) {
            if d == axis && q < 1 {
                return Err(value_error(
                    Some(ig),
                    format!("`indices` has size {q} along the axis: it needs at least 1"),
                ));
            }
            if d != axis && q > p {
                return Err(value_error(
                    Some(ig),
                    format!("`indices` has size {q} along dimension {d}, beyond `data`'s {p}"),
                ));
            }
        }
    }
    compute(
        ind.shape().to_vec(),
        "T_gather",
        "injective",
        Attrs::new(),
        |o| {
            let idx = (0..n)
                .map(|d| {
                    if d == axis {
                        te::Value::new(te::ValueKind::Load(ind.clone(), o.to_vec()))
                    } else {
                        te::Value::index(o[d].clone())
                    }
                })
                .collect();
            Ok(te::Value::gather(&x, idx))
        },
    )
}

/// `full(shape, dtype, fill_value)`.
fn full(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("full", &["shape", "dtype", "fill_value"])?;
    let shape = shape_list(a.required("shape")?, "shape")?;
    let dt = crate::casts::dtype_arg(a.required("dtype")?)?;
    let v = fill_value(a.required("fill_value")?, dt)?;
    compute(shape, "T_full", "elemwise", Attrs::new(), |_| Ok(v))
}

/// `full_like(x, fill_value)`: `x`'s shape and type.
fn full_like(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("full_like", &["x", "fill_value"])?;
    let x = tensor(a.required("x")?, "full_like")?;
    let v = fill_value(a.required("fill_value")?, x.dtype())?;
    compute(
        x.shape().to_vec(),
        "T_full_like",
        "elemwise",
        Attrs::new(),
        |_| Ok(v),
    )
}

/// `flip(a, axis=0)`: TOPI's `reverse_sequence` without lengths.
fn flip(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("flip", &["a", "axis"])?;
    let x = tensor(a.required("a")?, "flip")?;
    let axis_arg = a.get("axis");
    let axis = norm_axis(int_arg(axis_arg, "axis", 0)?, x.ndim(), 0, axis_arg, "axis")?;
    compute(
        x.shape().to_vec(),
        "T_reverse_sequence",
        "injective",
        Attrs::new(),
        |o| {
            let mut idx = o.to_vec();
            idx[axis] = sub(sub(x.shape()[axis].clone(), Expr::int(1))?, o[axis].clone())?;
            Ok(x.at(idx))
        },
    )
}

/// `tile(a, reps)`: the shorter of the shape and `reps` is padded with
/// leading ones.
fn tile(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("tile", &["a", "reps"])?;
    let x = tensor(a.required("a")?, "tile")?;
    let g = a.required("reps")?;
    let reps = int_list(g, "reps", true)?;
    if let Some(r) = reps
        .iter()
        .find(|&&r| !(0..=i64::from(i32::MAX)).contains(&r))
    {
        return Err(value_error(
            Some(g),
            format!("`reps` has {r}: repetitions must be in [0, 2147483647]"),
        ));
    }
    let (nd, rd) = (x.ndim(), reps.len());
    let td = nd.max(rd);
    let mut data: Vec<Expr> = vec![Expr::int(1); td - nd];
    data.extend_from_slice(x.shape());
    let mut r: Vec<Expr> = vec![Expr::int(1); td - rd];
    r.extend(reps.iter().map(|&v| Expr::int(v)));
    let shape = data
        .iter()
        .zip(&r)
        .map(|(d, r)| mul(d.clone(), r.clone()))
        .collect::<ApiResult<Vec<_>>>()?;
    check_sizes(&shape, Some(g), "tile")?;
    let empty = shape.iter().any(|d| constant_value(d) == Some(0));
    compute(shape, "T_tile", "broadcast", Attrs::new(), |o| {
        if empty {
            return Ok(te::Value::cast(x.dtype(), te::Value::int(0)));
        }
        let skip = rd.saturating_sub(nd);
        let idx: Vec<Expr> = (0..nd)
            .map(|i| floor_mod(o[skip + i].clone(), x.shape()[i].clone()))
            .collect();
        Ok(x.at(idx))
    })
}

/// `repeat(a, repeats, axis)`: each element `repeats` times along `axis`.
fn repeat(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("repeat", &["a", "repeats", "axis"])?;
    let x = tensor(a.required("a")?, "repeat")?;
    let rg = a.required("repeats")?;
    let repeats = int_of(rg, "repeats")?;
    if !(1..=i64::from(i32::MAX)).contains(&repeats) {
        return Err(value_error(
            Some(rg),
            format!("repeat only accepts `repeats >= 1`, but got repeats = {repeats}"),
        ));
    }
    let axis_arg = a.required("axis")?;
    let axis = norm_axis(
        int_of(axis_arg, "axis")?,
        x.ndim(),
        0,
        Some(axis_arg),
        "axis",
    )?;
    let mut shape = x.shape().to_vec();
    shape[axis] = mul(Expr::int(repeats), shape[axis].clone())?;
    compute(shape, "T_repeat", "broadcast", Attrs::new(), |o| {
        let mut idx = o.to_vec();
        idx[axis] = floor_div(o[axis].clone(), Expr::int(repeats));
        Ok(x.at(idx))
    })
}

/// `one_hot(indices, on_value, off_value, depth, axis, dtype)`: a new
/// axis of size `depth` (`axis=-1` puts it last).
fn one_hot(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind(
        "one_hot",
        &["indices", "on_value", "off_value", "depth", "axis", "dtype"],
    )?;
    let ig = a.required("indices")?;
    let ind = tensor(ig, "one_hot")?;
    let dt = crate::casts::dtype_arg(a.required("dtype")?)?;
    let on = fill_value(a.required("on_value")?, dt)?;
    let off = fill_value(a.required("off_value")?, dt)?;
    let dg = a.required("depth")?;
    let depth = int_of(dg, "depth")?;
    if !(0..=i64::from(i32::MAX)).contains(&depth) {
        return Err(value_error(
            Some(dg),
            format!("`depth` is {depth}: it must be in [0, 2147483647]"),
        ));
    }
    let axis_arg = a.required("axis")?;
    let axis = int_of(axis_arg, "axis")?;
    let n = ind.ndim();
    let axis = if axis == -1 {
        n
    } else {
        norm_axis(axis, n, 1, Some(axis_arg), "axis")?
    };
    if axis > n {
        return Err(value_error(
            Some(axis_arg),
            format!("axis {axis} is out of range"),
        ));
    }
    let mut shape = ind.shape().to_vec();
    shape.insert(axis, Expr::int(depth));
    compute(shape, "T_one_hot", "injective", Attrs::new(), |o| {
        let pos: Vec<Expr> = o
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != axis)
            .map(|(_, e)| e.clone())
            .collect();
        let cond = te::Value::cmp(CmpOp::Eq, ind.at(pos), te::Value::index(o[axis].clone()));
        Ok(te::Value::select_value(cond, on, off))
    })
}

/// One `arange` bound: an integer, or a float.
#[derive(Clone, Copy)]
enum Num {
    /// A Python int: integer arithmetic and counting.
    Int(i64),
    /// A Python float: `float32` arithmetic, as TVM's `FloatImm`.
    Float(f64),
}

/// An `arange` bound: a constant number (symbolic bounds are refused).
fn num_arg(g: &Given, what: &str) -> ApiResult<Num> {
    match promote(&g.value) {
        Value::Int(i) => Ok(Num::Int(i)),
        Value::Bool(b) => Ok(Num::Int(i64::from(b))),
        Value::Float(f) => Ok(Num::Float(f)),
        Value::Index(e) if e.as_int().is_some() => Ok(Num::Int(e.as_int().unwrap_or(0))),
        Value::Index(e) => Err(ApiError::not_supported(format!(
            "`arange` with the symbolic `{what}` {e} is not supported: give a constant"
        ))
        .at(g.at.clone())),
        other => Err(type_error(
            g.place(),
            format!("`{what}` needs a number, found a {}", other.type_name()),
        )),
    }
}

/// `arange(start, stop=None, step=1, dtype="float32")` of constant
/// bounds: the number of elements as TOPI computes it (integer floor
/// division for integer bounds, `ceil` in `float32` otherwise).
fn arange(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("arange", &["start", "stop", "step", "dtype"])?;
    let sg = a.required("start")?;
    let mut start = num_arg(sg, "start")?;
    let stop = match a.get("stop").filter(|g| !matches!(g.value, Value::None)) {
        Some(g) => num_arg(g, "stop")?,
        None => std::mem::replace(&mut start, Num::Int(0)),
    };
    let step_arg = a.get("step");
    let step = step_arg.map_or(Ok(Num::Int(1)), |g| num_arg(g, "step"))?;
    let dt = dtype_arg(a.get("dtype"), DataType::Float32)?;
    // Bounds beyond `int32` would make `int64` index arithmetic that
    // overflows; TOPI programs count within `int32`.
    for (n, what) in [(start, "start"), (stop, "stop"), (step, "step")] {
        if let Num::Int(i) = n {
            if i32::try_from(i).is_err() {
                return Err(value_error(
                    None,
                    format!("`arange` {what} {i} does not fit in int32: give bounds within it"),
                ));
            }
        }
    }
    let as_f = |n: Num| match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    };
    let count: i128 = match (start, stop, step) {
        (_, _, Num::Int(0)) => {
            return Err(value_error(step_arg, "`step` is 0: it must not be zero"))
        }
        (Num::Int(b), Num::Int(e), Num::Int(s)) => {
            let (b, e, s) = (i128::from(b), i128::from(e), i128::from(s));
            if s > 0 {
                (e - b + s - 1).div_euclid(s)
            } else {
                (b - e - s - 1).div_euclid(-s)
            }
        }
        _ => {
            let s = as_f(step) as f32;
            if s == 0.0 || !s.is_finite() {
                return Err(value_error(
                    step_arg,
                    "`step` must be a finite number other than 0",
                ));
            }
            let c = ((as_f(stop) as f32 - as_f(start) as f32) / s).ceil();
            if !c.is_finite() {
                return Err(value_error(
                    None,
                    "`arange` has no finite number of elements",
                ));
            }
            c as i128
        }
    };
    if !(0..=i128::from(i32::MAX)).contains(&count) {
        return Err(value_error(
            None,
            format!("`arange` would have {count} elements: it must have between 0 and 2147483647"),
        ));
    }
    compute(
        vec![Expr::int(count as i64)],
        "T_arange",
        "injective",
        Attrs::new(),
        |o| {
            let i = o[0].clone();
            let v = match (start, step) {
                (Num::Int(b), Num::Int(s)) => {
                    te::Value::index(add(Expr::int(b), mul(Expr::int(s), i)?)?)
                }
                _ => {
                    let f32c = |n: Num| te::Value::float(as_f(n) as f32 as f64);
                    let prod = te::Value::binary(
                        te::BinaryOp::Mul,
                        f32c(step),
                        te::Value::cast(DataType::Float32, te::Value::index(i)),
                    );
                    te::Value::binary(te::BinaryOp::Add, f32c(start), prod)
                }
            };
            Ok(if v.dtype() == dt {
                v
            } else {
                te::Value::cast(dt, v)
            })
        },
    )
}

/// Registers reduction axes with the session, as `te.reduce_axis` does.
fn note_reduce_axes(host: &mut dyn Host, axes: &[te::IterVar]) {
    for iv in axes {
        host.session().reduce_vars.insert(iv.var().clone());
    }
}

/// The product of two elements, the sides' types matched.
fn product(p: te::Value, q: te::Value) -> te::Value {
    te::Value::binary(te::BinaryOp::Mul, p, q)
}

/// `matmul(a, b, transp_a=False, transp_b=False)`: TOPI's C++ matrix
/// product of two 2-D tensors, one reduction axis `k`.
fn matmul(host: &mut dyn Host, args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("matmul", &["a", "b", "transp_a", "transp_b"])?;
    let ag = a.required("a")?;
    let x = tensor(ag, "matmul")?;
    let y = tensor(a.required("b")?, "matmul")?;
    let ta = bool_arg(a.get("transp_a"), false)?;
    let tb = bool_arg(a.get("transp_b"), false)?;
    if x.ndim() != 2 || y.ndim() != 2 {
        return Err(value_error(
            Some(ag),
            format!(
                "`matmul` multiplies 2-D tensors: found {}-D and {}-D",
                x.ndim(),
                y.ndim()
            ),
        ));
    }
    let kx = &x.shape()[if ta { 0 } else { 1 }];
    let ky = &y.shape()[if tb { 1 } else { 0 }];
    if let (Some(p), Some(q)) = (constant_value(kx), constant_value(ky)) {
        if p != q {
            return Err(value_error(
                Some(ag),
                format!(
                    "`matmul` reduces {p} elements of `a` against {q} of `b`: the sizes must agree"
                ),
            ));
        }
    }
    let shape = vec![
        x.shape()[if ta { 1 } else { 0 }].clone(),
        y.shape()[if tb { 0 } else { 1 }].clone(),
    ];
    let k = te::reduce_axis((Expr::int(0), kx.clone()), "k");
    note_reduce_axes(host, std::slice::from_ref(&k));
    compute(shape, "T_matmul", "matmul", Attrs::new(), |o| {
        let (i, j, kv) = (o[0].clone(), o[1].clone(), k.expr());
        let p = if ta {
            x.at([kv.clone(), i])
        } else {
            x.at([i, kv.clone()])
        };
        let q = if tb { y.at([j, kv]) } else { y.at([kv, j]) };
        Ok(te::sum(product(p, q), std::slice::from_ref(&k)))
    })
}

/// `tensordot(a, b, axes)`: `axes` an integer (the last `axes` of `a`
/// against the first of `b`) or two lists of axes (`(a_axes, b_axes)`,
/// integers standing for one-item lists).
fn tensordot(host: &mut dyn Host, args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("tensordot", &["a", "b", "axes"])?;
    let ag = a.required("a")?;
    let x = tensor(ag, "tensordot")?;
    let y = tensor(a.required("b")?, "tensordot")?;
    let g = a.required("axes")?;
    let (na, nb) = (x.ndim(), y.ndim());
    let (xa, ya) = match promote(&g.value) {
        Value::Int(k) => {
            if k < 0 || k as usize > na.min(nb) {
                return Err(value_error(
                    Some(g),
                    format!(
                        "`axes` is {k}: it must be in [0, {}], the smaller rank",
                        na.min(nb)
                    ),
                ));
            }
            let k = k as usize;
            ((na - k..na).collect::<Vec<_>>(), (0..k).collect::<Vec<_>>())
        }
        v => {
            let pair = v.sequence().filter(|p| p.len() == 2).ok_or_else(|| {
                type_error(g.place(), "`axes` needs an integer or a pair of axis lists")
            })?;
            let side = |v: &Value, n: usize| -> ApiResult<Vec<usize>> {
                let list = int_list(&g.item(v.clone()), "axes", true)?;
                let mut out = Vec::with_capacity(list.len());
                for a in list {
                    if a < 0 || a as usize >= n {
                        return Err(value_error(Some(g), format!("axis {a} is out of range for a {n}-dimensional tensor: use a value in [0, {n})")));
                    }
                    if out.contains(&(a as usize)) {
                        return Err(value_error(Some(g), format!("axis {a} is named twice")));
                    }
                    out.push(a as usize);
                }
                Ok(out)
            };
            let (p, q) = (side(&pair[0], na)?, side(&pair[1], nb)?);
            if p.len() != q.len() {
                return Err(value_error(
                    Some(g),
                    format!(
                        "`axes` names {} axes of `a` but {} of `b`: they pair up",
                        p.len(),
                        q.len()
                    ),
                ));
            }
            (p, q)
        }
    };
    for (&p, &q) in xa.iter().zip(&ya) {
        if let (Some(u), Some(v)) = (constant_value(&x.shape()[p]), constant_value(&y.shape()[q])) {
            if u != v {
                return Err(value_error(Some(g), format!("axis {p} of `a` has {u} elements but axis {q} of `b` {v}: summed axes must agree")));
            }
        }
    }
    let mut shape: Vec<Expr> = (0..na)
        .filter(|d| !xa.contains(d))
        .map(|d| x.shape()[d].clone())
        .collect();
    shape.extend(
        (0..nb)
            .filter(|d| !ya.contains(d))
            .map(|d| y.shape()[d].clone()),
    );
    let ks: Vec<te::IterVar> = ya
        .iter()
        .enumerate()
        .map(|(i, &d)| te::reduce_axis((Expr::int(0), y.shape()[d].clone()), &format!("k{i}")))
        .collect();
    note_reduce_axes(host, &ks);
    compute(shape, "T_tensordot", "matmul", Attrs::new(), |o| {
        let mut next = o.iter();
        let mut side = |n: usize, axes: &[usize]| -> Vec<Expr> {
            (0..n)
                .map(|d| match axes.iter().position(|&a| a == d) {
                    Some(r) => ks[r].expr(),
                    None => next.next().cloned().unwrap_or_else(|| Expr::int(0)),
                })
                .collect()
        };
        let pi = side(na, &xa);
        let qi = side(nb, &ya);
        let prod = product(x.at(pi), y.at(qi));
        // TOPI's integer form avoids a reduction over no axes (and so
        // does this one for empty lists, which `te` cannot reduce over).
        Ok(if ks.is_empty() {
            prod
        } else {
            te::sum(prod, &ks)
        })
    })
}

/// `shape(array, dtype="int32")`: a 1-D tensor of the sizes, each chosen
/// by comparing the index with each dimension's number.
fn shape(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind("shape", &["array", "dtype"])?;
    let x = tensor(a.required("array")?, "shape")?;
    let dt = dtype_arg(a.get("dtype"), DataType::Int32)?;
    let n = x.ndim();
    compute(
        vec![Expr::int(n as i64)],
        "T_shape",
        "injective",
        Attrs::new(),
        |o| {
            let mut ret = Expr::int(0);
            for (i, s) in x.shape().iter().enumerate() {
                ret = Expr::select(Expr::eq(o[0].clone(), Expr::int(i as i64)), s.clone(), ret);
            }
            let v = te::Value::index(ret);
            Ok(if dt == DataType::Int32 {
                v
            } else {
                te::Value::cast(dt, v)
            })
        },
    )
}

/// `sequence_mask(data, valid_length, mask_value=0, axis=0)`: elements at
/// or beyond their sequence's length become `mask_value`.
fn sequence_mask(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind(
        "sequence_mask",
        &["data", "valid_length", "mask_value", "axis"],
    )?;
    let x = tensor(a.required("data")?, "sequence_mask")?;
    let lg = a.required("valid_length")?;
    let len = tensor(lg, "sequence_mask")?;
    let axis_arg = a.get("axis");
    let axis = int_arg(axis_arg, "axis", 0)?;
    if axis != 0 && axis != 1 {
        return Err(value_error(
            axis_arg,
            format!("axis must be either 0 or 1, found {axis}"),
        ));
    }
    let axis = axis as usize;
    if x.ndim() < 2 {
        return Err(value_error(
            None,
            "`data` needs at least 2 dimensions (length and batch)",
        ));
    }
    if len.ndim() != 1 {
        return Err(value_error(
            Some(lg),
            "valid_length must have ndim=1, i.e., (batch_size,).",
        ));
    }
    let mask = match a.get("mask_value") {
        Some(g) => fill_value(g, x.dtype())?,
        None => typed_constant(0.0, x.dtype(), None)?,
    };
    compute(
        x.shape().to_vec(),
        "T_sequence_mask",
        "injective",
        Attrs::new(),
        |o| {
            let tid = te::Value::index(o[axis].clone());
            let tid = if len.dtype() == DataType::Int32 {
                tid
            } else {
                te::Value::cast(len.dtype(), tid)
            };
            let cond = te::Value::cmp(CmpOp::Ge, tid, len.at([o[1 - axis].clone()]));
            Ok(te::Value::select_value(cond, mask, x.at(o.to_vec())))
        },
    )
}

/// One axis of a data layout (`NCHW16c`): its letter (upper case) and,
/// for a subordinate axis (`16c`), its factor.
#[derive(Clone, Copy, PartialEq)]
struct LayoutAxis {
    /// The primal axis's letter, upper case for both kinds.
    letter: char,
    /// The split factor of a subordinate axis; `None` for a primal one.
    factor: Option<i64>,
}

/// Parses a layout as TVM's `Layout` does: upper-case letters are primal
/// axes, a number then a lower-case letter a subordinate axis splitting
/// its primal axis; each axis at most once.
fn parse_layout(name: &str, g: &Given) -> ApiResult<Vec<LayoutAxis>> {
    let bad = |why: String| value_error(Some(g), format!("invalid layout `{name}`: {why}"));
    let mut axes: Vec<LayoutAxis> = Vec::new();
    let mut factor: i64 = 0;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if factor != 0 {
                return Err(bad(format!("a factor {factor} before the primal axis {c}")));
            }
            axes.push(LayoutAxis {
                letter: c,
                factor: None,
            });
        } else if c.is_ascii_lowercase() {
            if factor <= 0 {
                return Err(bad(format!(
                    "the subordinate axis {c} needs a factor above 0 before it"
                )));
            }
            axes.push(LayoutAxis {
                letter: c.to_ascii_uppercase(),
                factor: Some(factor),
            });
            factor = 0;
        } else if let Some(d) = c.to_digit(10) {
            factor = factor
                .checked_mul(10)
                .and_then(|f| f.checked_add(i64::from(d)))
                .filter(|&f| f <= i64::from(i32::MAX))
                .ok_or_else(|| bad("a factor beyond 2147483647".to_string()))?;
        } else {
            return Err(bad(format!(
                "`{c}` is not an axis: use letters and factors such as NCHW16c"
            )));
        }
    }
    if factor != 0 {
        return Err(bad("it ends with a factor".to_string()));
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i]
            .iter()
            .any(|b| b.letter == a.letter && b.factor.is_some() == a.factor.is_some())
        {
            return Err(bad(format!("the axis {} appears twice", a.letter)));
        }
        if a.factor.is_some()
            && !axes
                .iter()
                .any(|b| b.letter == a.letter && b.factor.is_none())
        {
            return Err(bad(format!("missing axis {}", a.letter)));
        }
    }
    Ok(axes)
}

/// The factor `layout` splits `letter` by, if it splits it.
fn factor_of(layout: &[LayoutAxis], letter: char) -> Option<i64> {
    layout
        .iter()
        .find(|a| a.letter == letter && a.factor.is_some())
        .and_then(|a| a.factor)
}

/// TVM's `GetStoreRule` from `src` to `dst`: for each axis of `dst`, its
/// index as an expression of `src`'s index variables `vars`.
fn store_rule(
    src: &[LayoutAxis],
    dst: &[LayoutAxis],
    vars: &[Expr],
) -> ApiResult<Vec<(Expr, Expr)>> {
    let mut rules = Vec::with_capacity(dst.len());
    for d in dst {
        let mut index = Expr::int(0);
        for (j, o) in src.iter().enumerate() {
            if o.letter != d.letter {
                continue;
            }
            let v = match (o.factor, factor_of(src, o.letter)) {
                (None, Some(f)) => mul(vars[j].clone(), Expr::int(f))?,
                _ => vars[j].clone(),
            };
            index = add(index, v)?;
        }
        let (shape, index) = match (d.factor, factor_of(dst, d.letter)) {
            (None, Some(f)) => (
                Expr::ceil_div(index.clone(), Expr::int(f)),
                floor_div(index, Expr::int(f)),
            ),
            (None, None) => (index.clone(), index),
            (Some(f), _) => {
                let m = floor_mod(index, Expr::int(f));
                (m.clone(), m)
            }
        };
        rules.push((shape, index));
    }
    Ok(rules)
}

/// `layout_transform(array, src_layout, dst_layout, schedule_rule="None")`:
/// the input re-laid out (`NCHW` to `NCHW16c` and back), zero where the
/// new layout pads beyond it; the input itself when the layouts are one.
fn layout_transform(args: Args) -> ApiResult<te::Tensor> {
    let a = args.bind(
        "layout_transform",
        &["array", "src_layout", "dst_layout", "schedule_rule"],
    )?;
    let x = tensor(a.required("array")?, "layout_transform")?;
    let sg = a.required("src_layout")?;
    let dg = a.required("dst_layout")?;
    let src_name = string_arg(Some(sg), "src_layout", "")?;
    let dst_name = string_arg(Some(dg), "dst_layout", "")?;
    let rule = string_arg(a.get("schedule_rule"), "schedule_rule", "None")?;
    if src_name == dst_name {
        return Ok(x);
    }
    let src = parse_layout(&src_name, sg)?;
    let dst = parse_layout(&dst_name, dg)?;
    if src.is_empty() || dst.is_empty() {
        return Err(value_error(
            Some(sg),
            "cannot convert from/to an empty layout",
        ));
    }
    let primal = |l: &[LayoutAxis]| {
        let mut v: Vec<char> = l
            .iter()
            .filter(|a| a.factor.is_none())
            .map(|a| a.letter)
            .collect();
        v.sort_unstable();
        v
    };
    if primal(&src) != primal(&dst) {
        return Err(value_error(
            Some(dg),
            format!("cannot convert from {src_name} to {dst_name}: they need the same primal axes"),
        ));
    }
    if src.len() != x.ndim() {
        return Err(value_error(
            Some(sg),
            format!(
                "layout `{src_name}` has {} axes but `{}` is {}-dimensional",
                src.len(),
                x.name(),
                x.ndim()
            ),
        ));
    }
    // The forward shape: primal axes bound to their sizes, subordinate
    // ones to 0 (their size must be their factor).
    let mut bound = Vec::with_capacity(src.len());
    for (i, ax) in src.iter().enumerate() {
        match ax.factor {
            Some(f) => {
                if let Some(v) = constant_value(&x.shape()[i]) {
                    if v != f {
                        return Err(value_error(
                            Some(sg),
                            format!("input shape mismatch at index {i}: expected {f}, got {v}"),
                        ));
                    }
                }
                bound.push(Expr::int(0));
            }
            None => bound.push(x.shape()[i].clone()),
        }
    }
    let forward = store_rule(&src, &dst, &bound)?;
    let shape: Vec<Expr> = dst
        .iter()
        .zip(&forward)
        .map(|(d, (s, _))| match d.factor {
            Some(f) => Expr::int(f),
            None => simplify(s.clone()),
        })
        .collect();
    let mut attrs = Attrs::new();
    attrs.insert("schedule_rule".to_string(), AttrValue::Str(rule));
    attrs.insert("src_layout".to_string(), AttrValue::Str(src_name));
    attrs.insert("dst_layout".to_string(), AttrValue::Str(dst_name));
    attrs.insert(
        "input_shape".to_string(),
        AttrValue::List(x.shape().iter().cloned().map(AttrValue::Expr).collect()),
    );
    compute(shape, "T_layout_trans", "injective", attrs, |o| {
        let backward = store_rule(&dst, &src, o)?;
        let idx: Vec<Expr> = backward.into_iter().map(|(_, i)| simplify(i)).collect();
        let mut in_range: Option<Expr> = None;
        for (i, s) in idx.iter().zip(x.shape()) {
            let c = Expr::lt(i.clone(), s.clone());
            in_range = Some(match in_range {
                None => c,
                Some(r) => Expr::and(r, c),
            });
        }
        let zero = te::Value::cast(x.dtype(), te::Value::int(0));
        let load = x.at(idx);
        Ok(match in_range {
            Some(c) => te::Value::select(c, load, zero),
            None => load,
        })
    })
}
