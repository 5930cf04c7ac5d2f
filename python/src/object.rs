//! `rangefinder.tvm`'s one object type: a [`tvm_api::Value`] seen from
//! Python, and the conversions between Python values and API values.
//!
//! Every TVM object (tensor, operation, iteration variable, schedule,
//! stage, `PrimExpr`, API function, bound method) is an [`Object`]; its
//! dunders call the protocol functions of `tvm_api`, so what a TVM object
//! does, and what its errors say, is decided there for every front end.

use crate::error::{api_error, error};
use crate::host;
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PySlice, PyString, PyTuple};
use std::any::Any;
use std::fmt;
use tvm_api::{Args, BinaryOp, CmpOp, HostValue, UnaryOp, Value};

/// A TVM object, `PrimExpr` or API function.
#[pyclass(unsendable, name = "Object", module = "rangefinder.tvm")]
pub struct Object {
    /// The API value.
    pub value: Value,
}

/// A Python value the API carries without understanding it: a function it
/// calls back (a compute's lambda), or anything else a program passed.
pub struct PyValue {
    /// The Python object.
    pub obj: Py<PyAny>,
    /// Its type's name, for the API's messages.
    type_name: &'static str,
}

impl HostValue for PyValue {
    fn type_name(&self) -> &'static str {
        self.type_name
    }
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Python::attach(|py| match self.obj.bind(py).str() {
            Ok(s) => f.write_str(&s.to_string_lossy()),
            Err(_) => f.write_str(self.type_name),
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn same_as(&self, other: &dyn HostValue) -> bool {
        other
            .as_any()
            .downcast_ref::<PyValue>()
            .is_some_and(|o| o.obj.as_ptr() == self.obj.as_ptr())
    }
}

/// The name of a Python type as a `&'static str` (the API's messages take
/// static names): one leaked copy per type name.
fn static_type_name(obj: &Bound<'_, PyAny>) -> &'static str {
    thread_local! {
        static NAMES: std::cell::RefCell<std::collections::HashMap<String, &'static str>> =
            Default::default();
    }
    let name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned());
    NAMES.with(|names| {
        *names
            .borrow_mut()
            .entry(name.clone())
            .or_insert_with(|| Box::leak(name.into_boxed_str()))
    })
}

/// A Python value as an API value: numbers (and anything with `__index__`,
/// such as numpy integers), strings, tuples, lists, dicts and `None` as
/// themselves, [`Object`]s as the value they hold, anything else (a lambda)
/// carried as a [`PyValue`].
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(o) = obj.cast::<Object>() {
        return Ok(o.borrow().value.clone());
    }
    if obj.is_none() {
        return Ok(Value::None);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_value(obj);
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(obj.extract()?));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::str(&s.to_cow()?));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return Ok(Value::tuple(
            t.iter().map(|x| to_value(&x)).collect::<PyResult<_>>()?,
        ));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return Ok(Value::list(
            l.iter().map(|x| to_value(&x)).collect::<PyResult<_>>()?,
        ));
    }
    if obj.is_instance_of::<PySlice>() {
        // A region of a tensor (`A[i, 0:16]`).
        let bound = |name: &str| obj.getattr(name).and_then(|b| to_value(&b));
        return tvm_api::slice(bound("start")?, bound("stop")?, bound("step")?)
            .map_err(|e| crate::error::api_error(obj.py(), e));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let pairs = d
            .iter()
            .map(|(k, v)| Ok((to_value(&k)?, to_value(&v)?)))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Value::Dict(pairs.into()));
    }
    if let Some(array) = numpy_array(obj)? {
        return Ok(array);
    }
    // A function (a compute's lambda) is carried as it is; anything else
    // with `__index__` (numpy's integers) is an integer.
    if !obj.is_callable() && obj.hasattr("__index__")? {
        let index = obj.py().import("operator")?.call_method1("index", (obj,))?;
        return int_value(&index);
    }
    Ok(Value::host(PyValue {
        obj: obj.clone().unbind(),
        type_name: static_type_name(obj),
    }))
}

/// A numpy array as the layer's array (its values and dtype), as
/// `tvm.nd.array` would hold it; `None` for anything else.
fn numpy_array(obj: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    let ty = obj.get_type();
    if ty.module()?.to_cow()? != "numpy" || ty.name()?.to_cow()? != "ndarray" {
        return Ok(None);
    }
    let dtype = obj.getattr("dtype")?.str()?.to_cow()?.into_owned();
    let dtype = dtype
        .parse::<tir::DataType>()
        .map_err(|_| error(format!("numpy arrays of dtype {dtype} are not supported")))?;
    let values = to_value(&obj.call_method0("tolist")?)?;
    let array = tvm_api::NDArray::from_value(&values, Some(dtype))
        .map_err(|e| crate::error::api_error(obj.py(), e))?;
    Ok(Some(Value::Object(tvm_api::Object::NDArray(
        std::rc::Rc::new(std::cell::RefCell::new(array)),
    ))))
}

fn int_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    obj.extract::<i64>()
        .map(Value::Int)
        .map_err(|_| error("integer constant does not fit in 64 bits"))
}

/// An API value as a Python value: Python's own types as themselves, a
/// carried Python value as the original object, TVM objects as [`Object`]s.
pub fn to_py(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::None => py.None(),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Value::Str(s) => PyString::new(py, &s).into_any().unbind(),
        Value::Tuple(items) => PyTuple::new(
            py,
            items
                .iter()
                .map(|x| to_py(py, x.clone()))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any()
        .unbind(),
        Value::List(items) => {
            let items = items.borrow().clone();
            PyList::new(
                py,
                items
                    .into_iter()
                    .map(|x| to_py(py, x))
                    .collect::<PyResult<Vec<_>>>()?,
            )?
            .into_any()
            .unbind()
        }
        Value::Dict(pairs) => {
            let d = PyDict::new(py);
            for (k, v) in pairs.iter() {
                d.set_item(to_py(py, k.clone())?, to_py(py, v.clone())?)?;
            }
            d.into_any().unbind()
        }
        Value::Host(ref h) => match h.as_any().downcast_ref::<PyValue>() {
            Some(p) => p.obj.clone_ref(py),
            None => Py::new(py, Object { value: v })?.into_any(),
        },
        other => Py::new(py, Object { value: other })?.into_any(),
    })
}

/// The TVM value `obj` is for `isinstance`: an [`Object`]'s value, or the
/// integer constant of a shape size (an `int` subclass the package gives
/// for `tensor.shape[i]`, TVM's `IntImm`); `None` for other Python values
/// (a plain `int` is no TVM object).
pub fn tvm_value(obj: &Bound<'_, PyAny>) -> Option<Value> {
    if let Ok(o) = obj.cast::<Object>() {
        return Some(o.borrow().value.clone());
    }
    let size = obj.is_instance_of::<PyInt>()
        && !obj.is_exact_instance_of::<PyInt>()
        && !obj.is_instance_of::<PyBool>();
    size.then(|| obj.extract().ok().map(Value::Int)).flatten()
}

/// The arguments of a Python call as API arguments.
pub fn to_args(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Args> {
    let positional = args
        .iter()
        .map(|a| to_value(&a))
        .collect::<PyResult<Vec<_>>>()?;
    let keywords = match kwargs {
        Some(kw) => kw
            .iter()
            .map(|(k, v)| Ok((k.extract::<String>()?, to_value(&v)?)))
            .collect::<PyResult<Vec<_>>>()?,
        None => Vec::new(),
    };
    Ok(Args {
        positional,
        keywords,
    })
}

/// Calls `callee` with Python arguments, converting the result.
pub fn call_value(
    py: Python<'_>,
    callee: &Value,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let args = to_args(args, kwargs)?;
    let result = host::with_host(py, |h| tvm_api::call(h, callee, args))?;
    to_py(py, result)
}

/// A value's text, refusing a graph of shared subexpressions that would
/// be too large to write out (`e = e + e`, repeated).
fn text(value: &Value, f: fn(&Value) -> String) -> PyResult<String> {
    let size = match value {
        Value::Index(e) => e.node_count() as u64,
        Value::Object(tvm_api::Object::Element(v)) => v.written_size(),
        _ => 0,
    };
    if size > te::MAX_BODY_NODES {
        return Err(error(format!(
            "the expression is a graph of shared subexpressions that stands for a tree of \
             {size} or more nodes when written out, more than the {} that are printed: \
             simplify it (which works on the graph) or print its parts",
            te::MAX_BODY_NODES
        )));
    }
    Ok(f(value))
}

impl Object {
    fn binary(
        &self,
        py: Python<'_>,
        op: BinaryOp,
        other: &Bound<'_, PyAny>,
        reflected: bool,
    ) -> PyResult<Py<PyAny>> {
        let other = to_value(other)?;
        let result = if reflected {
            tvm_api::binary(op, &other, &self.value)
        } else {
            tvm_api::binary(op, &self.value, &other)
        };
        to_py(py, result.map_err(|e| api_error(py, e))?)
    }

    /// `a ^ b`, `a << b`, `a >> b` on integer tensor elements: the layer's
    /// `tvm_api::bitwise`.
    fn bitwise(
        &self,
        py: Python<'_>,
        f: tir::Intrinsic,
        other: &Bound<'_, PyAny>,
        reflected: bool,
    ) -> PyResult<Py<PyAny>> {
        let (a, b) = self.ordered(other, reflected)?;
        let v = tvm_api::bitwise(f, &a, &b).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }

    /// This value and `other` in the order of the operator (`other` first
    /// when `reflected`).
    fn ordered(&self, other: &Bound<'_, PyAny>, reflected: bool) -> PyResult<(Value, Value)> {
        let other = to_value(other)?;
        Ok(if reflected {
            (other, self.value.clone())
        } else {
            (self.value.clone(), other)
        })
    }

    /// `a & b` (`and`) and `a | b` on conditions: the layer's
    /// `tvm_api::logical`, TVM's `tir.all(a, b)` and `tir.any(a, b)`.
    fn logical(
        &self,
        py: Python<'_>,
        and: bool,
        other: &Bound<'_, PyAny>,
        reflected: bool,
    ) -> PyResult<Py<PyAny>> {
        let (a, b) = self.ordered(other, reflected)?;
        let v = tvm_api::logical(and, &a, &b).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }

    /// The constant a `PrimExpr` stands for, for `int()` and `__index__`.
    fn int_value(&self) -> PyResult<i64> {
        match &self.value {
            Value::Index(e) => {
                tvm_api::constant(e).ok_or_else(|| error(format!("`{e}` is not a constant")))
            }
            other => Err(PyTypeError::new_err(format!(
                "a {} is not an integer",
                other.type_name()
            ))),
        }
    }
}

#[pymethods]
impl Object {
    /// `obj.name` is the layer's attribute, asked first: Python's own
    /// lookup would fail (and build an exception) before `__getattr__`
    /// ran. Python's names (`__class__`, `same_as`) are looked up as usual.
    fn __getattribute__(slf: &Bound<'_, Self>, name: &Bound<'_, PyString>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let text = name.to_cow()?;
        if text.starts_with("__") || text == "same_as" {
            static OBJECT_GETATTRIBUTE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            let generic = OBJECT_GETATTRIBUTE.get_or_try_init(py, || {
                py.import("builtins")?
                    .getattr("object")?
                    .getattr("__getattribute__")
                    .map(Bound::unbind)
            })?;
            return generic.bind(py).call1((slf, name)).map(Bound::unbind);
        }
        let v = tvm_api::get_attr(&slf.borrow().value, &text).map_err(|e| api_error(py, e))?;
        let sized = matches!(
            slf.borrow().value,
            Value::Object(
                tvm_api::Object::Tensor(_)
                    | tvm_api::Object::Buffer(_)
                    | tvm_api::Object::DeclBuffer(..)
            )
        );
        if sized && text == "shape" {
            // Constant sizes are TVM's `IntImm`s (`.value`, `.astype`) that
            // still print and compare as ints.
            return py
                .import("rangefinder.tvm._object")?
                .getattr("shape_of")?
                .call1((to_py(py, v)?,))
                .map(Bound::unbind);
        }
        let ndarray = matches!(
            slf.borrow().value,
            Value::Object(tvm_api::Object::NDArray(_))
        );
        if ndarray && matches!(&*text, "numpy" | "asnumpy") {
            // A numpy array in CPython, from the layer's nested lists.
            let values_of = to_py(py, v)?;
            return py
                .import("rangefinder.tvm.nd")?
                .getattr("numpy_method")?
                .call1((slf, values_of))
                .map(Bound::unbind);
        }
        to_py(py, v)
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        call_value(py, &self.value, args, kwargs)
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Add, o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Add, o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Sub, o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Sub, o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Mul, o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Mul, o, true)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Div, o, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Div, o, true)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::FloorDiv, o, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::FloorDiv, o, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Mod, o, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Mod, o, true)
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Pow, o, false)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        self.binary(py, BinaryOp::Pow, o, true)
    }

    fn __and__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.logical(py, true, o, false)
    }
    fn __rand__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.logical(py, true, o, true)
    }
    fn __or__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.logical(py, false, o, false)
    }
    fn __ror__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.logical(py, false, o, true)
    }
    fn __xor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bitwise(py, tir::Intrinsic::BitwiseXor, o, false)
    }
    fn __rxor__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bitwise(py, tir::Intrinsic::BitwiseXor, o, true)
    }
    fn __lshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bitwise(py, tir::Intrinsic::ShiftLeft, o, false)
    }
    fn __rlshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bitwise(py, tir::Intrinsic::ShiftLeft, o, true)
    }
    fn __rshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bitwise(py, tir::Intrinsic::ShiftRight, o, false)
    }
    fn __rrshift__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.bitwise(py, tir::Intrinsic::ShiftRight, o, true)
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = tvm_api::unary(UnaryOp::Neg, &self.value).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }
    fn __pos__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = tvm_api::unary(UnaryOp::Pos, &self.value).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }
    /// `~cond`: the logical not of a condition, as in TVM.
    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = tvm_api::unary(UnaryOp::Not, &self.value).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let other = to_value(o)?;
        let op = match op {
            CompareOp::Lt => CmpOp::Lt,
            CompareOp::Le => CmpOp::Le,
            CompareOp::Gt => CmpOp::Gt,
            CompareOp::Ge => CmpOp::Ge,
            CompareOp::Eq => CmpOp::Eq,
            CompareOp::Ne => CmpOp::Ne,
        };
        let v = tvm_api::compare(op, &self.value, &other).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let index = to_value(key)?;
        let v = tvm_api::subscript(&self.value, &index).map_err(|e| api_error(py, e))?;
        to_py(py, v)
    }

    fn __setattr__(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = to_value(value)?;
        match tvm_api::set_attr(&self.value, name, &v) {
            Some(done) => done.map_err(|e| api_error(py, e)),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "attributes of a {} cannot be assigned to",
                self.value.type_name()
            ))),
        }
    }

    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (k, v) = (to_value(key)?, to_value(value)?);
        match tvm_api::set_item(&self.value, &k, &v) {
            Some(done) => done.map_err(|e| api_error(py, e)),
            None => Err(PyTypeError::new_err(format!(
                "'{}' object does not support item assignment",
                self.value.type_name()
            ))),
        }
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        tvm_api::len(&self.value).map_err(|e| api_error(py, e))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = tvm_api::iter(&self.value).ok_or_else(|| {
            PyTypeError::new_err(format!("a {} is not iterable", self.value.type_name()))
        })?;
        let items = items
            .into_iter()
            .map(|x| to_py(py, x))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, items)?.try_iter()?.into_any().unbind())
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        tvm_api::truth(&self.value).map_err(|e| api_error(py, e))
    }

    fn __int__(&self) -> PyResult<i64> {
        self.int_value()
    }

    fn __index__(&self) -> PyResult<i64> {
        self.int_value()
    }

    /// Consistent with `==`: equal expressions hash alike, TVM objects by
    /// identity.
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match &self.value {
            Value::Index(e) => return e.structural_hash(),
            Value::Object(o) => return o.identity_hash(),
            other => other.type_name().hash(&mut h),
        }
        h.finish()
    }

    /// Whether `other` is this very node (TVM's `same_as`): the same
    /// object, expression node or variable; `(x + 1).same_as(x + 1)` is
    /// `False`.
    fn same_as(&self, other: &Bound<'_, PyAny>) -> bool {
        let Ok(other) = other.cast::<Object>() else {
            return false;
        };
        match (&self.value, &other.borrow().value) {
            (Value::Index(a), Value::Index(b)) => {
                a.ptr_eq(b) || matches!((a.as_var(), b.as_var()), (Some(x), Some(y)) if x == y)
            }
            (Value::Object(a), Value::Object(b)) => a.same_as(b),
            (a, b) => tvm_api::equal(a, b),
        }
    }

    /// `isinstance(x, cls)` when `cls` is one of the layer's classes
    /// resolved by path (`tvm.target.Target`, `tvm.tir.Cast`).
    fn __instancecheck__(&self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Some(value) = tvm_value(obj) else {
            return Ok(false);
        };
        tvm_api::isinstance(&value, &self.value).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "isinstance() arg 2 must be a type, found a {}",
                self.value.type_name()
            ))
        })
    }

    /// `with obj:` on the layer's context managers (`te.tag_scope(...)`,
    /// a `tvm.target.Target`): what `as` binds.
    fn __enter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.value.clone();
        let entered = host::with_host(py, |h| match tvm_api::enter(h, &value) {
            Some(result) => result.map(Some),
            None => Ok(None),
        })?;
        match entered {
            Some(v) => to_py(py, v),
            None => Err(PyTypeError::new_err(format!(
                "a {} is not a context manager: `with` takes te.tag_scope(...) or a \
                 tvm.target.Target",
                self.value.type_name()
            ))),
        }
    }

    /// Leaving `with obj:`; returns `False` so that an exception raised
    /// in the block propagates.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> PyResult<bool> {
        let value = self.value.clone();
        host::with_host(py, |h| {
            tvm_api::exit(h, &value);
            Ok(())
        })?;
        Ok(false)
    }

    /// An iteration variable prints as its name, as in TVM.
    /// `pickle` and `copy`, as TVM pickles its objects: through the
    /// document of `tvm.ir.save_json`, loaded back by `load_json` into a
    /// fresh object. Values that document cannot describe raise
    /// `TypeError`.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String,))> {
        let text = tvm_api::save_json_text(&self.value).map_err(|e| api_error(py, e))?;
        let load = py.import("rangefinder.tvm.ir")?.getattr("_from_json")?;
        Ok((load.unbind(), (text,)))
    }

    fn __str__(&self) -> PyResult<String> {
        if let Value::Object(tvm_api::Object::IterVar(iv)) = &self.value {
            return Ok(iv.name().to_owned());
        }
        text(&self.value, tvm_api::str)
    }

    fn __repr__(&self) -> PyResult<String> {
        text(&self.value, tvm_api::repr)
    }
}
