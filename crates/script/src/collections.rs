//! Python's container semantics shared by the interpreter and the builtins:
//! iteration over any iterable, equality and ordering of values, dict and
//! set membership by Python equality, and slices.

use crate::error::{Eval, Raised};
use crate::objects;
use crate::operators::as_int;
use crate::value::Value;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::ErrorClass;

/// The items `for x in v` visits: a tuple's or list's items, a string's
/// characters, a dict's keys, a set's members, or what a TE object unpacks
/// to; `None` when `v` is not iterable.
pub(crate) fn iterate(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Str(s) => Some(
            s.chars()
                .map(|c| Value::str(c.encode_utf8(&mut [0; 4])))
                .collect(),
        ),
        Value::Dict(pairs) => Some(pairs.iter().map(|(k, _)| k.clone()).collect()),
        Value::MutableDict(pairs) => Some(pairs.borrow().iter().map(|(k, _)| k.clone()).collect()),
        Value::Set(items) => Some(items.borrow().clone()),
        Value::Host(_) => crate::pynumpy::as_array(v).map(crate::pynumpy::NdArray::items),
        _ => objects::unpack(v),
    }
}

/// [`iterate`], or a `TypeError` naming the value's type.
pub(crate) fn iterate_or_raise(v: &Value, span: Range<usize>) -> Eval<Vec<Value>> {
    iterate(v).ok_or_else(|| {
        Raised::python(
            ErrorClass::TypeError,
            span,
            format!("'{}' object is not iterable", v.type_name()),
        )
    })
}

/// The key-value pairs of a dict, in order.
pub(crate) fn dict_pairs(v: &Value) -> Option<Vec<(Value, Value)>> {
    match v {
        Value::Dict(pairs) => Some(pairs.to_vec()),
        Value::MutableDict(pairs) => Some(pairs.borrow().clone()),
        _ => None,
    }
}

/// `d.get(key)`, by Python equality of keys; an error where comparing keys
/// gave up (see [`check_depth`]), at `span`.
pub(crate) fn dict_get(d: &Value, key: &Value, span: Range<usize>) -> Eval<Option<Value>> {
    let found = dict_get_unchecked(d, key);
    check_depth(span)?;
    Ok(found)
}

fn dict_get_unchecked(d: &Value, key: &Value) -> Option<Value> {
    let find = |pairs: &[(Value, Value)]| {
        pairs
            .iter()
            .find(|(k, _)| py_eq(k, key))
            .map(|(_, v)| v.clone())
    };
    match d {
        Value::Dict(pairs) => find(pairs),
        Value::MutableDict(pairs) => find(&pairs.borrow()),
        _ => None,
    }
}

/// `d[key] = value`.
pub(crate) fn dict_set(
    pairs: &RefCell<Vec<(Value, Value)>>,
    key: Value,
    value: Value,
    span: Range<usize>,
) -> Eval<()> {
    check_hashable(&key, span.clone())?;
    let mut pairs = pairs.borrow_mut();
    let at = pairs.iter().position(|(k, _)| py_eq(k, &key));
    check_depth(span)?;
    match at {
        Some(at) => pairs[at].1 = value,
        None => pairs.push((key, value)),
    }
    Ok(())
}

/// A new dict of `pairs`, later keys replacing earlier equal ones.
pub(crate) fn new_dict(pairs: Vec<(Value, Value)>, span: Range<usize>) -> Eval<Value> {
    let dict = RefCell::new(Vec::with_capacity(pairs.len()));
    for (k, v) in pairs {
        dict_set(&dict, k, v, span.clone())?;
    }
    Ok(Value::MutableDict(Rc::new(dict)))
}

/// A new set of `items`, without repeats.
pub(crate) fn new_set(items: Vec<Value>, span: Range<usize>) -> Eval<Value> {
    let set = RefCell::new(Vec::with_capacity(items.len()));
    for item in items {
        set_add(&set, item, span.clone())?;
    }
    Ok(Value::Set(Rc::new(set)))
}

/// `s.add(item)`.
pub(crate) fn set_add(set: &RefCell<Vec<Value>>, item: Value, span: Range<usize>) -> Eval<()> {
    check_hashable(&item, span.clone())?;
    let mut items = set.borrow_mut();
    let present = items.iter().any(|x| py_eq(x, &item));
    check_depth(span)?;
    if !present {
        items.push(item);
    }
    Ok(())
}

/// Lists, dicts and sets cannot be dict keys or set members.
pub(crate) fn check_hashable(v: &Value, span: Range<usize>) -> Eval<()> {
    match v {
        Value::List(_) | Value::MutableDict(_) | Value::Dict(_) | Value::Set(_) => {
            Err(Raised::python(
                ErrorClass::TypeError,
                span,
                format!("unhashable type: '{}'", v.type_name()),
            ))
        }
        Value::Tuple(items) => {
            // Nested tuples are walked with a work list (they may be deep),
            // each shared tuple once (they may share items).
            let mut seen = std::collections::HashSet::new();
            let mut stack: Vec<&Value> = items.iter().collect();
            while let Some(v) = stack.pop() {
                match v {
                    Value::Tuple(inner) => {
                        if seen.insert(inner.as_ptr()) {
                            stack.extend(inner.iter())
                        }
                    }
                    other => check_hashable(other, span.clone())?,
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `item in container`, as Python decides it; `None` when the container
/// does not support `in`.
pub(crate) fn contains(container: &Value, item: &Value, span: Range<usize>) -> Eval<Option<bool>> {
    Ok(Some(match container {
        Value::Str(s) => match item {
            Value::Str(sub) => s.contains(&**sub),
            other => {
                return Err(Raised::python(
                    ErrorClass::TypeError,
                    span,
                    format!(
                        "'in <string>' requires string as left operand, not {}",
                        other.type_name()
                    ),
                ))
            }
        },
        Value::Dict(_) | Value::MutableDict(_) | Value::Set(_) => {
            check_hashable(item, span.clone())?;
            let found = iterate(container)
                .unwrap_or_default()
                .iter()
                .any(|k| py_eq(k, item));
            check_depth(span)?;
            found
        }
        _ => return Ok(None),
    }))
}

/// Python `==` between two values that are not symbolic: numbers by value
/// (`1 == 1.0 == True`), strings, tuples and lists item by item, dicts and
/// sets by their contents, TE objects by identity.
pub(crate) fn py_eq(a: &Value, b: &Value) -> bool {
    within_budget(false, || py_eq_at(a, b))
}

/// How deep equality and ordering descend into nested containers.
const MAX_DEPTH: usize = 500;

/// How many pairs of items one comparison may visit: containers that share
/// items stand for far more than they hold (`x = [x, x]` in a loop doubles
/// what `x == y` compares at each step).
const MAX_VISITS: u64 = 10_000_000;

/// Why a comparison gave up.
#[derive(Clone, Copy)]
enum GaveUp {
    TooDeep,
    TooLarge,
}

thread_local! {
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The pairs visited since the outermost comparison began.
    static VISITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Set when a comparison gave up at [`MAX_DEPTH`] or [`MAX_VISITS`].
    static GAVE_UP: std::cell::Cell<Option<GaveUp>> = const { std::cell::Cell::new(None) };
}

/// `compare()` one level down, or `gave_up` (recorded for
/// [`check_depth`]) past [`MAX_DEPTH`] or [`MAX_VISITS`]: never a stack
/// overflow or a walk of a shared structure written out.
fn within_budget<T>(gave_up: T, compare: impl FnOnce() -> T) -> T {
    let depth = DEPTH.with(|d| d.get());
    let visits = VISITS.with(|v| {
        let n = if depth == 0 { 1 } else { v.get() + 1 };
        v.set(n);
        n
    });
    let reason = if depth >= MAX_DEPTH {
        Some(GaveUp::TooDeep)
    } else if visits > MAX_VISITS {
        Some(GaveUp::TooLarge)
    } else {
        None
    };
    if let Some(r) = reason {
        GAVE_UP.with(|g| g.set(Some(r)));
        return gave_up;
    }
    DEPTH.with(|d| d.set(depth + 1));
    let result = compare();
    DEPTH.with(|d| d.set(depth));
    result
}

/// An error when the comparisons since the last call gave up at
/// [`MAX_DEPTH`] (where CPython raises `RecursionError`) or
/// [`MAX_VISITS`]: their answer is not to be trusted.
pub(crate) fn check_depth(span: Range<usize>) -> Eval<()> {
    match GAVE_UP.with(|g| g.take()) {
        Some(GaveUp::TooDeep) => Err(Raised::at(
            span,
            format!("a comparison of containers nested more than {MAX_DEPTH} deep"),
        )),
        Some(GaveUp::TooLarge) => Err(Raised::at(
            span,
            format!(
                "a comparison of containers that visits more than {MAX_VISITS} items (do they \
                 share items, as `x = [x, x]` in a loop does?)"
            ),
        )),
        None => Ok(()),
    }
}

fn py_eq_at(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y;
    }
    match (a, b) {
        (Value::Index(x), Value::Index(y)) => x == y,
        // Python compares items by identity first, then by `==`.
        (Value::Tuple(x), Value::Tuple(y)) => Rc::ptr_eq(x, y) || items_eq(x, y),
        (Value::MutableDict(x), Value::MutableDict(y)) if Rc::ptr_eq(x, y) => true,
        (Value::Set(x), Value::Set(y)) if Rc::ptr_eq(x, y) => true,
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y) || items_eq(&x.borrow(), &y.borrow()),
        (Value::Dict(_) | Value::MutableDict(_), Value::Dict(_) | Value::MutableDict(_)) => {
            let (x, y) = (
                dict_pairs(a).unwrap_or_default(),
                dict_pairs(b).unwrap_or_default(),
            );
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| dict_get_unchecked(b, k).is_some_and(|w| py_eq(v, &w)))
        }
        (Value::Set(x), Value::Set(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len() && x.iter().all(|i| y.iter().any(|j| py_eq(i, j)))
        }
        (Value::Exception(..), _) | (_, Value::Exception(..)) => false,
        _ => crate::operators::equal(a, b),
    }
}

fn items_eq(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| py_eq(a, b))
}

/// A number as a comparable pair: integers exactly, floats by value.
#[derive(PartialEq, PartialOrd)]
enum Number {
    Int(i128),
    Float(f64),
}

fn number(v: &Value) -> Option<Number> {
    match v {
        Value::Float(f) => Some(if f.fract() == 0.0 && f.abs() < 1e30 {
            Number::Int(*f as i128)
        } else {
            Number::Float(*f)
        }),
        _ => as_int(v).map(|i| Number::Int(i128::from(i))),
    }
}

fn number_cmp(a: &Number, b: &Number) -> Option<Ordering> {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => Some(x.cmp(y)),
        (Number::Int(x), Number::Float(y)) => (*x as f64).partial_cmp(y),
        (Number::Float(x), Number::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Number::Float(x), Number::Float(y)) => x.partial_cmp(y),
    }
}

/// Python's ordering (`<`) of numbers, strings, and tuples or lists
/// (lexicographic); `None` when Python would raise a `TypeError` (or the
/// values are unordered, as NaN is).
pub(crate) fn py_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    within_budget(None, || py_cmp_at(a, b))
}

fn py_cmp_at(a: &Value, b: &Value) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return number_cmp(&x, &y);
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Tuple(_), Value::Tuple(_)) | (Value::List(_), Value::List(_)) => {
            let (x, y) = (
                a.sequence().unwrap_or_default(),
                b.sequence().unwrap_or_default(),
            );
            for (p, q) in x.iter().zip(&y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q);
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

/// The positions `seq[start:stop:step]` takes from a sequence of `len`
/// items, as Python's slices clamp them.
pub(crate) fn slice_positions(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Vec<usize>, &'static str> {
    let step = i128::from(step.unwrap_or(1));
    if step == 0 {
        return Err("slice step cannot be zero");
    }
    let len = len as i128;
    let clamp = |v: Option<i64>, default: i128| -> i128 {
        let Some(v) = v else { return default };
        let mut v = i128::from(v);
        if v < 0 {
            v += len;
        }
        if step > 0 {
            v.clamp(0, len)
        } else {
            v.clamp(-1, len - 1)
        }
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, hi) = (clamp(start, 0), clamp(stop, len));
        while i < hi {
            out.push(i as usize);
            i += step;
        }
    } else {
        let (mut i, lo) = (clamp(start, len - 1), clamp(stop, -1));
        while i > lo {
            out.push(i as usize);
            i += step;
        }
    }
    Ok(out)
}

/// `seq[slice]` for a tuple, list or string.
pub(crate) fn slice(seq: &Value, bounds: [Option<i64>; 3], span: Range<usize>) -> Eval<Value> {
    let [start, stop, step] = bounds;
    let positions = |len| {
        slice_positions(len, start, stop, step)
            .map_err(|m| Raised::python(ErrorClass::ValueError, span.clone(), m))
    };
    Ok(match seq {
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            let text: String = positions(chars.len())?
                .into_iter()
                .map(|i| chars[i])
                .collect();
            Value::str(&text)
        }
        Value::Tuple(items) => Value::tuple(
            positions(items.len())?
                .into_iter()
                .map(|i| items[i].clone())
                .collect(),
        ),
        Value::List(items) => {
            let items = items.borrow();
            Value::list(
                positions(items.len())?
                    .into_iter()
                    .map(|i| items[i].clone())
                    .collect(),
            )
        }
        other => {
            return Err(Raised::python(
                ErrorClass::TypeError,
                span,
                format!("a {} cannot be sliced", other.type_name()),
            ))
        }
    })
}

/// A position `i` (negative from the end) in a sequence of `len` items, or
/// an `IndexError`.
pub(crate) fn position(i: i64, len: usize, what: &str, span: Range<usize>) -> Eval<usize> {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let at = if i < 0 { i.checked_add(len_i) } else { Some(i) };
    at.and_then(|at| usize::try_from(at).ok())
        .filter(|at| *at < len)
        .ok_or_else(|| {
            Raised::python(
                ErrorClass::IndexError,
                span,
                format!("{what} index out of range (index {i}, length {len})"),
            )
        })
}

/// Drops `v`, taking apart the containers it is the last owner of with a
/// work list: a list nested 100,000 deep (`l = [l]` in a loop) is freed
/// without recursing once per level, as the derived drop would.
pub(crate) fn dismantle(v: Value) {
    // Scalars and shared containers drop as usual, without a work list.
    let last_owner = match &v {
        Value::List(items) | Value::Set(items) => Rc::strong_count(items) == 1,
        Value::MutableDict(pairs) => Rc::strong_count(pairs) == 1,
        Value::Tuple(items) => Rc::strong_count(items) == 1,
        Value::Dict(pairs) => Rc::strong_count(pairs) == 1,
        _ => false,
    };
    if !last_owner {
        return;
    }
    let mut pending = vec![v];
    while let Some(v) = pending.pop() {
        match v {
            Value::List(items) | Value::Set(items) => {
                if let Ok(cell) = Rc::try_unwrap(items) {
                    pending.extend(cell.into_inner());
                }
            }
            Value::MutableDict(pairs) => {
                if let Ok(cell) = Rc::try_unwrap(pairs) {
                    for (k, v) in cell.into_inner() {
                        pending.push(k);
                        pending.push(v);
                    }
                }
            }
            Value::Tuple(mut items) => {
                if let Some(items) = Rc::get_mut(&mut items) {
                    pending.extend(items.iter_mut().map(|i| std::mem::replace(i, Value::None)));
                }
            }
            Value::Dict(mut pairs) => {
                if let Some(pairs) = Rc::get_mut(&mut pairs) {
                    for (k, v) in pairs.iter_mut() {
                        pending.push(std::mem::replace(k, Value::None));
                        pending.push(std::mem::replace(v, Value::None));
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_clamp_as_python_does() {
        let p = |len, a, b, c| slice_positions(len, a, b, c).unwrap();
        assert_eq!(p(5, Some(1), None, None), vec![1, 2, 3, 4]);
        assert_eq!(p(5, None, None, Some(-1)), vec![4, 3, 2, 1, 0]);
        assert_eq!(p(5, None, Some(-1), None), vec![0, 1, 2, 3]);
        assert_eq!(p(5, Some(-100), Some(100), Some(2)), vec![0, 2, 4]);
        assert_eq!(p(5, Some(3), Some(0), Some(-1)), vec![3, 2, 1]);
        assert_eq!(p(0, None, None, Some(-1)), Vec::<usize>::new());
        assert!(slice_positions(3, None, None, Some(0)).is_err());
    }
}
