//! Packed functions at run time: what a program's `tvm.tir.call_packed(name,
//! ...)` calls when it runs. The caller of a run supplies them
//! ([`PackedFunctions`], e.g. functions a script registered with
//! `tvm.register_func`); a few of TVM's runtime library functions are
//! built in ([`builtin`]). Arrays are passed by value and written back:
//! a function changes the values of the arrays it is given.

use crate::dtype::DataType;

/// An argument of a packed call.
#[derive(Clone, Debug, PartialEq)]
pub enum PackedArg {
    /// A whole buffer: its name, shape, element type and values in
    /// row-major order. The function may change the values.
    Array {
        /// The buffer's name.
        name: String,
        /// The extent of each axis.
        shape: Vec<i64>,
        /// The element type.
        dtype: DataType,
        /// The values, row-major.
        data: Vec<f64>,
    },
    /// An integer (or boolean) value.
    Int(i64),
    /// A float value.
    Float(f64),
    /// A string.
    Str(String),
}

/// The packed functions a run can call by name.
pub trait PackedFunctions {
    /// Calls `name` on `args`, changing the arrays among them; `None` when
    /// there is no function of that name.
    fn call(&mut self, name: &str, args: &mut [PackedArg]) -> Option<Result<(), String>>;

    /// Whether there is a function `name` (checked for every call before a
    /// run starts, so that a program calling a missing one is refused at
    /// once).
    fn provides(&self, name: &str) -> bool;
}

/// Only the [`builtin`] functions.
pub struct Builtins;

impl PackedFunctions for Builtins {
    fn call(&mut self, name: &str, args: &mut [PackedArg]) -> Option<Result<(), String>> {
        builtin(name, args)
    }

    fn provides(&self, name: &str) -> bool {
        BUILTINS.contains(&name)
    }
}

/// The names of the built-in functions.
pub const BUILTINS: &[&str] = &[
    "tvm.contrib.cblas.matmul",
    "tvm.contrib.mkl.matmul",
    "tvm.contrib.sort.sort",
    "tvm.contrib.sort.argsort",
    "tvm.contrib.sort.argsort_nms",
    "tvm.contrib.sort.topk",
];

/// TVM's runtime library functions that rangefinder provides, as TVM's
/// runtime defines them; `None` for any other name:
///
/// - `tvm.contrib.cblas.matmul(A, B, C, transa, transb)` (and `mkl`'s):
///   `C = op(A) * op(B)` of 2-D arrays;
/// - `tvm.contrib.sort.sort(data, out, axis, is_ascend)` and `argsort`
///   (the positions instead of the values): each line along `axis`
///   sorted, equal values in their order;
/// - `tvm.contrib.sort.argsort_nms(data, valid_count, out, axis,
///   is_ascend)`: only the first `valid_count` values of each line sorted,
///   the positions after them their own;
/// - `tvm.contrib.sort.topk(data, outs..., k, axis, ret_type, is_ascend)`:
///   the `k` first values of each sorted line (`k < 1`: all), their values
///   and/or positions as `ret_type` says (`"both"`, `"values"`,
///   `"indices"`).
///
/// ```
/// use tir::{packed::builtin, DataType, PackedArg};
/// let array = |name: &str, shape: Vec<i64>, data: Vec<f64>| PackedArg::Array {
///     name: name.into(), shape, dtype: DataType::Float32, data,
/// };
/// let mut args = vec![
///     array("A", vec![1, 2], vec![1.0, 2.0]),
///     array("B", vec![2, 1], vec![3.0, 4.0]),
///     array("C", vec![1, 1], vec![0.0]),
///     PackedArg::Int(0),
///     PackedArg::Int(0),
/// ];
/// builtin("tvm.contrib.cblas.matmul", &mut args).unwrap().unwrap();
/// assert_eq!(args[2], array("C", vec![1, 1], vec![11.0]));
/// ```
pub fn builtin(name: &str, args: &mut [PackedArg]) -> Option<Result<(), String>> {
    match name {
        "tvm.contrib.cblas.matmul" | "tvm.contrib.mkl.matmul" => Some(matmul(name, args)),
        "tvm.contrib.sort.sort" => Some(sort(name, args, Sorted::Values)),
        "tvm.contrib.sort.argsort" => Some(sort(name, args, Sorted::Positions)),
        "tvm.contrib.sort.argsort_nms" => Some(sort(name, args, Sorted::ValidPositions)),
        "tvm.contrib.sort.topk" => Some(topk(name, args)),
        _ => None,
    }
}

/// The most multiply-adds one built-in matrix product may take (2^30, the
/// step limit of a built function's run).
pub const MAX_MATMUL_WORK: i64 = 1 << 30;

fn matmul(name: &str, args: &mut [PackedArg]) -> Result<(), String> {
    let flag = |a: Option<&PackedArg>| match a {
        None => Ok(false),
        Some(PackedArg::Int(v)) => Ok(*v != 0),
        Some(other) => Err(format!(
            "`{name}` takes its transposition flags as booleans, found {other:?}"
        )),
    };
    let (transa, transb) = (flag(args.get(3))?, flag(args.get(4))?);
    let matrix = |a: Option<&PackedArg>, what: &str| match a {
        Some(PackedArg::Array { shape, data, .. }) if shape.len() == 2 => {
            Ok((shape[0], shape[1], data.clone()))
        }
        _ => Err(format!("`{name}` takes a 2-D array as {what}")),
    };
    let (ar, ac, a) = matrix(args.first(), "A")?;
    let (br, bc, b) = matrix(args.get(1), "B")?;
    let (n, k) = if transa { (ac, ar) } else { (ar, ac) };
    let (k2, m) = if transb { (bc, br) } else { (br, bc) };
    if k != k2 {
        return Err(format!("`{name}`: the inner extents differ ({k} and {k2})"));
    }
    let Some(PackedArg::Array {
        shape, dtype, data, ..
    }) = args.get_mut(2)
    else {
        return Err(format!("`{name}` takes a 2-D array as C"));
    };
    if shape.as_slice() != [n, m] {
        return Err(format!(
            "`{name}`: C has shape {shape:?}, the product [{n}, {m}]"
        ));
    }
    // The product's work grows as n * m * k while a run is charged by its
    // arrays' elements: bound the work as the interpreter bounds a run.
    let work = n.saturating_mul(m).saturating_mul(k);
    if work > MAX_MATMUL_WORK {
        return Err(format!(
            "`{name}` of {n} x {k} by {k} x {m} takes {work} multiply-adds, more than the \
             {MAX_MATMUL_WORK} a run may"
        ));
    }
    let at = |x: &[f64], cols: i64, r: i64, c: i64| x[(r * cols + c) as usize];
    for i in 0..n {
        for j in 0..m {
            let mut sum = 0.0;
            for l in 0..k {
                let x = if transa {
                    at(&a, ac, l, i)
                } else {
                    at(&a, ac, i, l)
                };
                let y = if transb {
                    at(&b, bc, j, l)
                } else {
                    at(&b, bc, l, j)
                };
                sum += x * y;
            }
            data[(i * m + j) as usize] = dtype.round(sum);
        }
    }
    Ok(())
}

/// What a sort writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sorted {
    /// The values (`sort`).
    Values,
    /// Their positions (`argsort`).
    Positions,
    /// The positions of the first `valid_count` values (`argsort_nms`).
    ValidPositions,
}

/// An integer argument at `k` (an axis, a flag, `k`).
fn int_arg(name: &str, args: &[PackedArg], k: usize, what: &str) -> Result<i64, String> {
    match args.get(k) {
        Some(PackedArg::Int(v)) => Ok(*v),
        _ => Err(format!("`{name}` takes an integer as its {what}")),
    }
}

/// The array at `k`: shape and values.
fn array_arg<'a>(
    name: &str,
    args: &'a [PackedArg],
    k: usize,
    what: &str,
) -> Result<(&'a [i64], &'a [f64]), String> {
    match args.get(k) {
        Some(PackedArg::Array { shape, data, .. }) => Ok((shape, data)),
        _ => Err(format!("`{name}` takes an array as its {what}")),
    }
}

/// The axis `axis` of an array of `ndim` dimensions (negative from the
/// end), and the products of the extents before and after it.
fn lines(name: &str, shape: &[i64], axis: i64) -> Result<(usize, i64, i64), String> {
    let ndim = shape.len() as i64;
    let a = if axis < 0 { axis + ndim } else { axis };
    if !(0..ndim).contains(&a) {
        return Err(format!(
            "`{name}`: axis {axis} is out of range for {ndim} dimensions"
        ));
    }
    let a = a as usize;
    Ok((
        a,
        shape[..a].iter().product(),
        shape[a + 1..].iter().product(),
    ))
}

/// The positions of `values` in sorted order: ascending or descending,
/// equal values by position (TVM's stable sort); NaN after every number
/// ascending (a total order, where TVM's is unspecified).
fn sorted_positions(values: &[f64], ascend: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&x, &y| {
        let by_value = values[x].total_cmp(&values[y]);
        let by_value = if ascend { by_value } else { by_value.reverse() };
        by_value.then(x.cmp(&y))
    });
    order
}

fn set(args: &mut [PackedArg], k: usize, at: usize, v: f64) {
    if let Some(PackedArg::Array { data, dtype, .. }) = args.get_mut(k) {
        data[at] = dtype.round(v);
    }
}

fn sort(name: &str, args: &mut [PackedArg], kind: Sorted) -> Result<(), String> {
    let out = if kind == Sorted::ValidPositions { 2 } else { 1 };
    let (shape, data) = array_arg(name, args, 0, "input")?;
    let (out_shape, _) = array_arg(name, args, out, "output")?;
    if out_shape != shape {
        return Err(format!(
            "`{name}`: the output has shape {out_shape:?}, the input {shape:?}"
        ));
    }
    let axis = int_arg(name, args, out + 1, "axis")?;
    let ascend = int_arg(name, args, out + 2, "ascending flag")? != 0;
    let (axis, before, after) = lines(name, shape, axis)?;
    let n = shape[axis];
    let valid = match kind {
        Sorted::ValidPositions => {
            let (count_shape, counts) = array_arg(name, args, 1, "valid count")?;
            if counts.len() as i64 != before * after {
                return Err(format!(
                    "`{name}`: the valid count has shape {count_shape:?}, one per line of \
                     the input is {}",
                    before * after
                ));
            }
            Some(counts.to_vec())
        }
        _ => None,
    };
    let data = data.to_vec();
    for i in 0..before {
        for j in 0..after {
            let base = i * n * after + j;
            let at = |k: i64| (base + k * after) as usize;
            let count = match &valid {
                Some(counts) => (counts[(i * after + j) as usize] as i64).clamp(0, n),
                None => n,
            };
            let line: Vec<f64> = (0..count).map(|k| data[at(k)]).collect();
            let order = sorted_positions(&line, ascend);
            for k in 0..n {
                let v = match (kind, order.get(k as usize)) {
                    (Sorted::Values, Some(&p)) => line[p],
                    (_, Some(&p)) => p as f64,
                    // After the valid values, each position is its own.
                    (_, None) => k as f64,
                };
                set(args, out, at(k), v);
            }
        }
    }
    Ok(())
}

fn topk(name: &str, args: &mut [PackedArg]) -> Result<(), String> {
    let n_args = args.len();
    if n_args < 6 {
        return Err(format!(
            "`{name}` takes the input, its outputs, k, the axis, the kind of result and \
             the ascending flag"
        ));
    }
    let k = int_arg(name, args, n_args - 4, "k")?;
    let axis = int_arg(name, args, n_args - 3, "axis")?;
    let ret_type = match args.get(n_args - 2) {
        Some(PackedArg::Str(s)) => s.clone(),
        _ => return Err(format!("`{name}` takes the kind of result as a string")),
    };
    let ascend = int_arg(name, args, n_args - 1, "ascending flag")? != 0;
    let (values_out, indices_out) = match ret_type.as_str() {
        "both" => (Some(1), Some(2)),
        "values" => (Some(1), None),
        "indices" => (None, Some(1)),
        other => return Err(format!("Unsupported ret type: {other}")),
    };
    let (shape, data) = array_arg(name, args, 0, "input")?;
    let (axis, before, after) = lines(name, shape, axis)?;
    let n = shape[axis];
    let k = if k < 1 { n } else { k };
    let mut out_shape = shape.to_vec();
    out_shape[axis] = k;
    for out in [values_out, indices_out].into_iter().flatten() {
        let (s, _) = array_arg(name, args, out, "output")?;
        if s != out_shape.as_slice() {
            return Err(format!(
                "`{name}`: an output has shape {s:?}, the top {k} have {out_shape:?}"
            ));
        }
    }
    let data = data.to_vec();
    for i in 0..before {
        for j in 0..after {
            let src = i * n * after + j;
            let dst = i * k * after + j;
            let line: Vec<f64> = (0..n).map(|m| data[(src + m * after) as usize]).collect();
            let order = sorted_positions(&line, ascend);
            for (m, &p) in order.iter().take(k as usize).enumerate() {
                let at = (dst + m as i64 * after) as usize;
                if let Some(o) = values_out {
                    set(args, o, at, line[p]);
                }
                if let Some(o) = indices_out {
                    set(args, o, at, p as f64);
                }
            }
        }
    }
    Ok(())
}
