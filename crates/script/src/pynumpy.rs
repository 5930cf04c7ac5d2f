//! The part of numpy that TOPI's operators compute with: one-dimensional
//! arrays of a layout's permutations (`np.argsort`, indexing an array by
//! an array of positions or by a mask, `a[a > k] -= 1`, `.tolist()`), as
//! `topi.nn.conv` and `depthwise_conv2d_nhwc` reorder shapes, paddings and
//! index tuples with them. Anything else of numpy (several dimensions,
//! `np.zeros`, random data) still says to run the script under CPython.
//!
//! An array holds the script's own values (integers, floats, strings, index
//! expressions), so an array of TE axes is an object array as in numpy. A
//! basic slice is a view that shares the array's elements, as in numpy;
//! indexing by positions or by a mask copies.

use crate::args::{Args, Spanned};
use crate::error::{Eval, Raised};
use crate::operators::{self, as_int, BinaryOp};
use crate::value::{script_value, ScriptValue, Value};
use arith::CmpOp;
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::ErrorClass;

/// A function of numpy computed here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumpyFunction {
    /// `np.array(items)` and `np.asarray(items)`.
    Array,
    /// `np.argsort(items)`.
    Argsort,
}

impl NumpyFunction {
    /// The function `numpy.name`, if computed here.
    pub(crate) fn named(name: &str) -> Option<NumpyFunction> {
        match name {
            "array" | "asarray" => Some(NumpyFunction::Array),
            "argsort" => Some(NumpyFunction::Argsort),
            _ => None,
        }
    }

    /// The name a script uses.
    pub(crate) fn name(self) -> &'static str {
        match self {
            NumpyFunction::Array => "numpy.array",
            NumpyFunction::Argsort => "numpy.argsort",
        }
    }
}

/// A one-dimensional array, or a view of one: element `k` is
/// `data[start + k * step]`.
#[derive(Clone)]
pub(crate) struct NdArray {
    data: Rc<RefCell<Vec<Value>>>,
    start: usize,
    step: isize,
    len: usize,
}

/// The longest array a script may build.
const MAX_LEN: usize = 10_000_000;

impl NdArray {
    fn new(items: Vec<Value>) -> NdArray {
        let len = items.len();
        NdArray {
            data: Rc::new(RefCell::new(items)),
            start: 0,
            step: 1,
            len,
        }
    }

    fn position(&self, k: usize) -> usize {
        (self.start as isize + k as isize * self.step) as usize
    }

    /// The number of elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The elements, in order (a copy).
    pub(crate) fn items(&self) -> Vec<Value> {
        let data = self.data.borrow();
        (0..self.len)
            .map(|k| data[self.position(k)].clone())
            .collect()
    }

    fn get(&self, k: usize) -> Value {
        self.data.borrow()[self.position(k)].clone()
    }

    fn set(&self, k: usize, v: Value) {
        let at = self.position(k);
        self.data.borrow_mut()[at] = v;
    }
}

/// The array `v` holds, if it is one.
pub(crate) fn as_array(v: &Value) -> Option<&NdArray> {
    match script_value(v) {
        Some(ScriptValue::NdArray(a)) => Some(a),
        _ => None,
    }
}

fn array_value(a: NdArray) -> Value {
    Value::host(ScriptValue::NdArray(a))
}

fn needs_cpython(span: Range<usize>, what: &str) -> Raised {
    Raised::at(
        span,
        format!(
            "{what} needs CPython: `rangefinder te`'s own interpreter has only one-dimensional \
             numpy arrays; run the script under CPython with `python -m rangefinder.tvm FILE`"
        ),
    )
}

/// The elements of an array argument: an array, a list or a tuple of
/// values that are not sequences themselves.
fn elements(a: &Spanned, what: &str) -> Eval<Vec<Value>> {
    if let Some(arr) = as_array(&a.value) {
        return Ok(arr.items());
    }
    let items = match &a.value {
        Value::List(_) | Value::Tuple(_) => a.value.sequence().unwrap_or_default(),
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => {
            return Err(needs_cpython(
                a.span.clone(),
                &format!("{what} of a scalar"),
            ))
        }
        other => match crate::collections::iterate(other) {
            Some(items) => items,
            None => {
                return Err(Raised::python(
                    ErrorClass::TypeError,
                    a.span.clone(),
                    format!("{what} takes a sequence, not a {}", other.type_name()),
                ))
            }
        },
    };
    if items
        .iter()
        .any(|v| matches!(v, Value::List(_) | Value::Tuple(_)) || as_array(v).is_some())
    {
        return Err(needs_cpython(
            a.span.clone(),
            &format!("{what} of nested sequences (an array of several dimensions)"),
        ));
    }
    if items.len() > MAX_LEN {
        return Err(Raised::at(
            a.span.clone(),
            format!("an array of more than {MAX_LEN} elements is too long for a script"),
        ));
    }
    Ok(items)
}

/// numpy's common type of plain numbers: integers and booleans become
/// floats beside a float, booleans integers beside an integer. Other
/// values (strings, index expressions) are kept, as in an array of
/// objects.
fn common_type(items: Vec<Value>) -> Vec<Value> {
    let numeric = |v: &Value| matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_));
    if !items.iter().all(numeric) {
        return items;
    }
    if items.iter().any(|v| matches!(v, Value::Float(_))) {
        items
            .into_iter()
            .map(|v| match v {
                Value::Int(i) => Value::Float(i as f64),
                Value::Bool(b) => Value::Float(f64::from(u8::from(b))),
                v => v,
            })
            .collect()
    } else if items.iter().any(|v| matches!(v, Value::Int(_))) {
        items
            .into_iter()
            .map(|v| match v {
                Value::Bool(b) => Value::Int(i64::from(b)),
                v => v,
            })
            .collect()
    } else {
        items
    }
}

/// Calls `np.function(...)`.
pub(crate) fn call(
    interp: &mut crate::interp::Interpreter,
    f: NumpyFunction,
    args: Args,
) -> Eval<Value> {
    match f {
        NumpyFunction::Array => {
            let a = args.bind(f.name(), &["object", "dtype", "copy"])?;
            if let Some(d) = a.get("dtype").filter(|d| !matches!(d.value, Value::None)) {
                return Err(needs_cpython(d.span.clone(), "an array of a given `dtype`"));
            }
            let items = elements(a.required("object")?, "`np.array`")?;
            Ok(array_value(NdArray::new(common_type(items))))
        }
        NumpyFunction::Argsort => {
            let a = args.bind(f.name(), &["a", "axis", "kind", "order"])?;
            let given = a.required("a")?;
            let items = common_type(elements(given, "`np.argsort`")?);
            let positions: Vec<Value> = (0..items.len() as i64).map(Value::Int).collect();
            // A stable sort of the positions by their values: numpy's
            // default sort is stable on arrays this short, and argsort of
            // distinct values is the same either way.
            let keyed: Vec<Value> = items
                .iter()
                .zip(&positions)
                .map(|(v, p)| Value::tuple(vec![v.clone(), p.clone()]))
                .collect();
            let sorted =
                crate::pymethods::sort_values(interp, keyed, None, false, given.span.clone())?;
            let order = sorted
                .into_iter()
                .map(|pair| {
                    pair.sequence()
                        .and_then(|p| p.get(1).cloned())
                        .unwrap_or(Value::None)
                })
                .collect();
            Ok(array_value(NdArray::new(order)))
        }
    }
}

/// What an index selects: positions of the array, and whether the result
/// is one element (an integer index).
enum Selection {
    One(usize),
    /// Positions by an array or list of integers, or by a mask: a copy.
    Positions(Vec<usize>),
}

fn index_error(span: Range<usize>, message: String) -> Raised {
    Raised::python(ErrorClass::IndexError, span, message)
}

fn select_int(arr: &NdArray, i: i64, span: &Range<usize>) -> Eval<usize> {
    let len = arr.len as i64;
    let k = if i < 0 { i + len } else { i };
    if (0..len).contains(&k) {
        Ok(k as usize)
    } else {
        Err(index_error(
            span.clone(),
            format!("index {i} is out of bounds for axis 0 with size {len}"),
        ))
    }
}

fn select(arr: &NdArray, index: &Value, span: &Range<usize>) -> Eval<Selection> {
    if let Some(i) = as_int(index).filter(|_| !matches!(index, Value::Bool(_))) {
        return Ok(Selection::One(select_int(arr, i, span)?));
    }
    let items = match as_array(index) {
        Some(a) => a.items(),
        None => match index {
            Value::List(_) => index.sequence().unwrap_or_default(),
            Value::Tuple(t) if t.len() == 1 => return select(arr, &t[0], span),
            _ => {
                return Err(needs_cpython(
                    span.clone(),
                    &format!("an array index of a {}", index.type_name()),
                ))
            }
        },
    };
    if !items.is_empty() && items.iter().all(|v| matches!(v, Value::Bool(_))) {
        if items.len() != arr.len {
            return Err(index_error(
                span.clone(),
                format!(
                    "boolean index did not match indexed array along axis 0; size of axis is {} \
                     but size of corresponding boolean axis is {}",
                    arr.len,
                    items.len()
                ),
            ));
        }
        return Ok(Selection::Positions(
            items
                .iter()
                .enumerate()
                .filter(|(_, v)| matches!(v, Value::Bool(true)))
                .map(|(k, _)| k)
                .collect(),
        ));
    }
    let mut positions = Vec::with_capacity(items.len());
    for v in &items {
        match as_int(v).filter(|_| !matches!(v, Value::Bool(_))) {
            Some(i) => positions.push(select_int(arr, i, span)?),
            None => {
                return Err(index_error(
                    span.clone(),
                    "arrays used as indices must be of integer (or boolean) type".into(),
                ))
            }
        }
    }
    Ok(Selection::Positions(positions))
}

/// The view `arr[start:stop:step]`.
fn slice_view(arr: &NdArray, bounds: [Option<i64>; 3], span: &Range<usize>) -> Eval<NdArray> {
    let positions = crate::collections::slice_positions(arr.len, bounds[0], bounds[1], bounds[2])
        .map_err(|m| Raised::python(ErrorClass::ValueError, span.clone(), m))?;
    let step = bounds[2].unwrap_or(1) as isize;
    let start = positions.first().map_or(arr.start, |k| arr.position(*k));
    // Steps multiply; a product too large for `isize` leaves at most one
    // element in the view, whose step then never counts.
    let step = arr.step.checked_mul(step).unwrap_or(1);
    Ok(NdArray {
        data: arr.data.clone(),
        start,
        step,
        len: positions.len(),
    })
}

/// `arr[index]`.
pub(crate) fn get_item(arr: &NdArray, index: &Value, span: Range<usize>) -> Eval<Value> {
    Ok(match select(arr, index, &span)? {
        Selection::One(k) => arr.get(k),
        Selection::Positions(ks) => {
            array_value(NdArray::new(ks.into_iter().map(|k| arr.get(k)).collect()))
        }
    })
}

/// `arr[start:stop:step]`: a view.
pub(crate) fn get_slice(
    arr: &NdArray,
    bounds: [Option<i64>; 3],
    span: Range<usize>,
) -> Eval<Value> {
    Ok(array_value(slice_view(arr, bounds, &span)?))
}

/// `arr[index] = value` (`index` a slice when `bounds` is given): a
/// scalar goes to every selected position, a sequence position by
/// position.
pub(crate) fn set_item(
    arr: &NdArray,
    index: Option<&Value>,
    bounds: Option<[Option<i64>; 3]>,
    value: &Value,
    span: Range<usize>,
) -> Eval<()> {
    let positions: Vec<usize> = match (index, bounds) {
        (_, Some(b)) => {
            let view = slice_view(arr, b, &span)?;
            (0..view.len)
                .map(|k| ((view.position(k) as isize - arr.start as isize) / arr.step) as usize)
                .collect()
        }
        (Some(i), None) => match select(arr, i, &span)? {
            Selection::One(k) => vec![k],
            Selection::Positions(ks) => ks,
        },
        (None, None) => Vec::new(),
    };
    let values = match as_array(value) {
        Some(a) => Some(a.items()),
        None => match value {
            Value::List(_) | Value::Tuple(_) => value.sequence(),
            _ => None,
        },
    };
    // An element is never a sequence: the arrays here have one dimension
    // (and an array cannot come to hold itself).
    if values
        .iter()
        .flatten()
        .any(|v| matches!(v, Value::List(_) | Value::Tuple(_)) || as_array(v).is_some())
    {
        return Err(needs_cpython(span, "an array element that is a sequence"));
    }
    match values {
        None => {
            for k in positions {
                arr.set(k, value.clone());
            }
        }
        Some(vs) if vs.len() == positions.len() => {
            for (k, v) in positions.into_iter().zip(vs) {
                arr.set(k, v);
            }
        }
        Some(vs) if vs.len() == 1 => {
            for k in positions {
                arr.set(k, vs[0].clone());
            }
        }
        Some(vs) => {
            return Err(Raised::python(
                ErrorClass::ValueError,
                span,
                format!(
                    "shape mismatch: value array of shape ({},) could not be broadcast to \
                     indexing result of shape ({},)",
                    vs.len(),
                    positions.len()
                ),
            ))
        }
    }
    Ok(())
}

/// The operands of an element-wise operation: each side's elements, a
/// scalar repeated.
fn operands(lhs: &Value, rhs: &Value, span: &Range<usize>) -> Eval<(Vec<Value>, Vec<Value>)> {
    let side = |v: &Value, n: usize| match as_array(v) {
        Some(a) => a.items(),
        None => vec![v.clone(); n],
    };
    let n = match (as_array(lhs), as_array(rhs)) {
        (Some(a), Some(b)) if a.len != b.len => {
            return Err(Raised::python(
                ErrorClass::ValueError,
                span.clone(),
                format!(
                    "operands could not be broadcast together with shapes ({},) ({},)",
                    a.len, b.len
                ),
            ))
        }
        (Some(a), _) => a.len,
        (_, Some(b)) => b.len,
        (None, None) => 0,
    };
    for v in [lhs, rhs] {
        if as_array(v).is_none() && matches!(v, Value::List(_) | Value::Tuple(_)) {
            return Err(needs_cpython(
                span.clone(),
                "arithmetic between an array and a list",
            ));
        }
    }
    Ok((side(lhs, n), side(rhs, n)))
}

/// `f` on the elements of `lhs` and `rhs` pairwise, one side an array.
fn elementwise(
    lhs: &Value,
    rhs: &Value,
    span: Range<usize>,
    f: impl Fn(&Value, &Value, Range<usize>) -> Eval<Value>,
) -> Eval<Value> {
    let (a, b) = operands(lhs, rhs, &span)?;
    let out = a
        .iter()
        .zip(&b)
        .map(|(x, y)| f(x, y, span.clone()))
        .collect::<Eval<Vec<_>>>()?;
    Ok(array_value(NdArray::new(out)))
}

/// `lhs op rhs` element by element, one side an array.
pub(crate) fn binary(op: BinaryOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Eval<Value> {
    elementwise(lhs, rhs, span, |x, y, at| operators::binary(op, x, y, at))
}

/// `lhs op rhs` element by element, one side an array: an array of
/// booleans.
pub(crate) fn compare(op: CmpOp, lhs: &Value, rhs: &Value, span: Range<usize>) -> Eval<Value> {
    elementwise(lhs, rhs, span, |x, y, at| operators::compare(op, x, y, at))
}

/// Whether an array is true: only an array of one element has a truth.
pub(crate) fn truth(arr: &NdArray, span: Range<usize>) -> Eval<Value> {
    match arr.len {
        1 => Ok(arr.get(0)),
        0 => Ok(Value::Bool(false)),
        _ => Err(Raised::python(
            ErrorClass::ValueError,
            span,
            "The truth value of an array with more than one element is ambiguous. Use a.any() \
             or a.all()",
        )),
    }
}

/// The methods of arrays computed here.
pub(crate) const METHODS: &[&str] = &["copy", "tolist"];

/// Calls the method `name` of an array.
pub(crate) fn method(arr: &NdArray, name: &'static str, args: Args) -> Eval<Value> {
    let (given, _) = args.positional_only(name)?;
    if let Some(extra) = given.first() {
        return Err(Raised::python(
            ErrorClass::TypeError,
            extra.span.clone(),
            format!("`ndarray.{name}` takes no arguments here"),
        ));
    }
    Ok(match name {
        "copy" => array_value(NdArray::new(arr.items())),
        _ => Value::list(arr.items()),
    })
}

/// `arr.shape`, `arr.size`, `arr.ndim`; other attributes need CPython.
pub(crate) fn attribute(arr: &NdArray, name: &str, span: Range<usize>) -> Eval<Value> {
    match name {
        "shape" => Ok(Value::tuple(vec![Value::Int(arr.len as i64)])),
        "size" => Ok(Value::Int(arr.len as i64)),
        "ndim" => Ok(Value::Int(1)),
        _ => Err(needs_cpython(span, &format!("`ndarray.{name}`"))),
    }
}

/// How an array prints, as numpy prints a short one: integers and
/// booleans right-aligned to one width (`[ 1 10 -3]`, `[ True False]`),
/// floats aligned on their decimal points (`[ 0.5  10.25  3.  ]`), strings
/// quoted (`['a' 'bb']`); other values by their text. Floats numpy would
/// print in scientific notation (beyond 1e16, below 1e-4) keep Python's
/// text here.
pub(crate) fn fmt(arr: &NdArray, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    let items = arr.items();
    let texts: Vec<String> = if items.iter().all(|v| matches!(v, Value::Float(_))) {
        float_texts(&items)
    } else {
        let plain: Vec<String> = items
            .iter()
            .map(|v| match v {
                Value::Str(_) => crate::pyformat::repr(v).replace('"', "'"),
                v => v.to_string(),
            })
            .collect();
        if items
            .iter()
            .all(|v| matches!(v, Value::Int(_)) || matches!(v, Value::Bool(_)))
        {
            let width = plain.iter().map(String::len).max().unwrap_or(0);
            plain.iter().map(|t| format!("{t:>width$}")).collect()
        } else {
            plain
        }
    };
    write!(f, "[{}]", texts.join(" "))
}

/// numpy's texts of a float array: each float's shortest text, integral
/// ones as `3.`, aligned on the decimal point.
fn float_texts(items: &[Value]) -> Vec<String> {
    let values: Vec<f64> = items
        .iter()
        .map(|v| match v {
            Value::Float(x) => *x,
            _ => 0.0,
        })
        .collect();
    let finite = values.iter().filter(|x| x.is_finite());
    let scientific = finite
        .clone()
        .any(|x| x.abs() >= 1e16 || (*x != 0.0 && x.abs() < 1e-4));
    if scientific {
        return items.iter().map(ToString::to_string).collect();
    }
    let parts: Vec<(String, String)> = values
        .iter()
        .map(|x| {
            if !x.is_finite() {
                return (Value::Float(*x).to_string(), String::new());
            }
            let text = crate::pyformat::float_repr(*x);
            match text.split_once('.') {
                Some((int, "0")) => (format!("{int}."), String::new()),
                Some((int, frac)) => (format!("{int}."), frac.to_owned()),
                None => (text, String::new()),
            }
        })
        .collect();
    let finite_parts = || parts.iter().zip(&values).filter(|(_, x)| x.is_finite());
    let int_width = finite_parts().map(|((i, _), _)| i.len()).max().unwrap_or(0);
    let frac_width = finite_parts().map(|((_, r), _)| r.len()).max().unwrap_or(0);
    let aligned: Vec<String> = parts
        .iter()
        .zip(&values)
        .map(|((int, frac), x)| {
            if x.is_finite() {
                format!("{int:>int_width$}{frac:<frac_width$}")
            } else {
                int.clone()
            }
        })
        .collect();
    let width = aligned.iter().map(String::len).max().unwrap_or(0);
    aligned.iter().map(|t| format!("{t:>width$}")).collect()
}
