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
pub const BUILTINS: &[&str] = &["tvm.contrib.cblas.matmul", "tvm.contrib.mkl.matmul"];

/// TVM's runtime library functions that rangefinder provides:
/// `tvm.contrib.cblas.matmul(A, B, C, transa, transb)` (and `mkl`'s),
/// `C = op(A) * op(B)` of 2-D arrays. `None` for any other name.
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
        _ => None,
    }
}

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
