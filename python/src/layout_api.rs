//! `rangefinder.IndexMap` (buffer layout transforms, TVM's `IndexMap`);
//! `Stage.transform_layout` and `te.AXIS_SEPARATOR` are the API layer's.

use crate::error::{error, error_at};
use crate::object::{to_py, to_value};
use crate::te_api::index_arg as to_index;
use arith::{Expr, Var};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// The extent of every logical axis in a picture drawn without a shape.
const DEFAULT_EXTENT: i64 = 8;

/// Registers the classes on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<IndexMap>()?;
    Ok(())
}

/// An index expression as a Python object.
fn index_object(py: Python<'_>, e: Expr) -> PyResult<Py<PyAny>> {
    to_py(py, tvm_api::Value::Index(e))
}

/// A layout transform: logical indices to transformed indices, with axis
/// separators (TVM's `IndexMap`).
///
/// Built from lambda text (`IndexMap("lambda i, j: [j // 4, i, j % 4]")`)
/// or from a Python function (`IndexMap(lambda i, j: [j // 4, i, j % 4])`).
/// Shapes are lists of integers or expressions.
#[pyclass(frozen, skip_from_py_object, name = "IndexMap", module = "rangefinder")]
#[derive(Clone)]
pub struct IndexMap {
    pub map: layout::IndexMap,
}

/// A layout error, pointing into the map's text when there is one.
fn layout_error(py: Python<'_>, text: Option<&str>, e: layout::LayoutError) -> PyErr {
    match text {
        Some(t) => error_at(py, t, &e.message, e.span),
        None => error(e.message),
    }
}

/// The map a Python function describes: called with one variable per
/// parameter (or `ndim` of them for `*indices`).
fn from_function(f: &Bound<'_, PyAny>, ndim: Option<usize>) -> PyResult<layout::IndexMap> {
    const CO_VARARGS: u32 = 0x04;
    let code = f.getattr("__code__")?;
    let argcount: usize = code.getattr("co_argcount")?.extract()?;
    let flags: u32 = code.getattr("co_flags")?.extract()?;
    let names: Vec<String> = code.getattr("co_varnames")?.extract()?;
    let names: Vec<String> = if argcount == 0 && flags & CO_VARARGS != 0 {
        let n = ndim.ok_or_else(|| {
            PyValueError::new_err(
                "a `*indices` function needs `ndim=` (the number of logical axes)",
            )
        })?;
        (0..n).map(|d| format!("i{d}")).collect()
    } else {
        names.into_iter().take(argcount).collect()
    };
    let vars: Vec<Var> = names.iter().map(Var::new).collect();
    let args = PyTuple::new(
        f.py(),
        vars.iter()
            .map(|v| index_object(f.py(), v.expr()))
            .collect::<PyResult<Vec<_>>>()?,
    )?;
    let result = f.call1(args)?;
    let items: Vec<Bound<'_, PyAny>> = match result.cast::<PyList>() {
        Ok(l) => l.iter().collect(),
        Err(_) => result.try_iter()?.collect::<PyResult<Vec<_>>>()?,
    };
    let mut finals = Vec::new();
    let mut separators = Vec::new();
    for item in items {
        if matches!(
            to_value(&item)?,
            tvm_api::Value::Object(tvm_api::Object::AxisSeparator)
        ) {
            separators.push(finals.len());
        } else {
            finals.push(to_index(&item)?);
        }
    }
    layout::IndexMap::new(vars, finals, separators).map_err(|e| error(e.message))
}

fn shape_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Expr>> {
    obj.try_iter()?.map(|d| to_index(&d?)).collect()
}

fn exprs(py: Python<'_>, v: Vec<Expr>) -> PyResult<Py<PyAny>> {
    match v.iter().map(Expr::as_int).collect::<Option<Vec<i64>>>() {
        Some(ints) => Ok(PyList::new(py, ints)?.into_any().unbind()),
        None => Ok(PyList::new(
            py,
            v.into_iter()
                .map(|e| index_object(py, e))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any()
        .unbind()),
    }
}

#[pymethods]
impl IndexMap {
    /// From lambda text or a Python function (`ndim` for `*indices`).
    #[new]
    #[pyo3(signature = (mapping, ndim=None))]
    fn py_new(
        py: Python<'_>,
        mapping: &Bound<'_, PyAny>,
        ndim: Option<usize>,
    ) -> PyResult<IndexMap> {
        if let Ok(s) = mapping.cast::<PyString>() {
            let text = s.to_cow()?;
            return layout::IndexMap::parse(&text)
                .map(|map| IndexMap { map })
                .map_err(|e| layout_error(py, Some(&text), e));
        }
        Ok(IndexMap {
            map: from_function(mapping, ndim)?,
        })
    }

    /// The transformed index of a logical one: integers for integers,
    /// expressions otherwise.
    fn map_indices(&self, py: Python<'_>, indices: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(ints) = indices.extract::<Vec<i64>>() {
            let out = self.map.map_point(&ints).map_err(|e| error(e.message))?;
            return Ok(PyList::new(py, out)?.into_any().unbind());
        }
        let out = self
            .map
            .map_indices(&shape_of(indices)?)
            .map_err(|e| error(e.message))?;
        exprs(py, out)
    }

    /// The transformed shape of a logical shape (`ceildiv` where a split
    /// does not divide).
    fn map_shape(&self, py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let out = self
            .map
            .map_shape(&shape_of(shape)?)
            .map_err(|e| error(e.message))?;
        exprs(py, out)
    }

    /// The inverse on `shape`; an error unless the map is a bijection there.
    fn inverse(&self, shape: &Bound<'_, PyAny>) -> PyResult<IndexMap> {
        self.map
            .inverse(&shape_of(shape)?)
            .map(|map| IndexMap { map })
            .map_err(|e| error(e.message))
    }

    /// `(inverse, padding_predicate)`: the predicate (over the transformed
    /// axes) holds exactly on the transformed indices no logical index
    /// reaches; `None` where every one is reached.
    fn non_surjective_inverse(
        &self,
        shape: &Bound<'_, PyAny>,
    ) -> PyResult<(IndexMap, Option<Py<PyAny>>)> {
        let (map, pred) = self
            .map
            .non_surjective_inverse(&shape_of(shape)?)
            .map_err(|e| error(e.message))?;
        let pred = pred.map(|p| index_object(shape.py(), p)).transpose()?;
        Ok((IndexMap { map }, pred))
    }

    /// Raises `rangefinder.Error`, naming two logical indices that land on
    /// one place, unless the map is injective on `shape`.
    fn check_injective(&self, shape: &Bound<'_, PyAny>) -> PyResult<()> {
        self.map
            .check_injective(&shape_of(shape)?)
            .map_err(|e| error(e.message))
    }

    /// The physical shape: transformed axes between separators flattened
    /// row-major.
    fn physical_shape(&self, py: Python<'_>, shape: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let l = layout::Layout::new(shape_of(shape)?, Some(self.map.clone()))
            .map_err(|e| error(e.message))?;
        exprs(py, l.physical_shape().to_vec())
    }

    /// The physical index of a logical index in a buffer of `shape`.
    fn physical_index(
        &self,
        py: Python<'_>,
        shape: &Bound<'_, PyAny>,
        index: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let l = layout::Layout::new(shape_of(shape)?, Some(self.map.clone()))
            .map_err(|e| error(e.message))?;
        let out = l
            .physical_index(&shape_of(index)?)
            .map_err(|e| error(e.message))?;
        exprs(py, out)
    }

    /// The picture of the map on `shape` as SVG text: the logical tensor
    /// labelled with transformed indices beside the transformed and
    /// physical buffers labelled with the logical index stored, padding
    /// hatched (on a map that is not injective, the colliding pair). Without
    /// `shape`, every logical axis has extent 8.
    #[pyo3(signature = (shape=None))]
    fn svg(&self, shape: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let shape = match shape {
            Some(s) => shape_of(s)?,
            None => vec![Expr::int(DEFAULT_EXTENT); self.map.initial_indices().len()],
        };
        match layout::Layout::new(shape.clone(), Some(self.map.clone())) {
            Ok(l) => picture::layout_picture(&l).map(|d| d.svg).map_err(error),
            Err(e) if e.kind == layout::ErrorKind::NotInjective => {
                let dims: Option<Vec<i64>> = shape.iter().map(Expr::as_int).collect();
                match (dims, self.map.find_collision(&shape)) {
                    (Some(dims), Some(c)) => picture::collision_picture(&self.map, &dims, &c)
                        .map(|d| d.svg)
                        .map_err(error),
                    _ => Err(error(e.message)),
                }
            }
            Err(e) => Err(error(e.message)),
        }
    }

    /// The picture on the default shape, for Jupyter; `None` when it
    /// cannot be drawn there (the text repr is shown instead).
    fn _repr_svg_(&self) -> Option<String> {
        self.svg(None).ok()
    }

    /// The separator positions among the transformed axes.
    #[getter]
    fn axis_separators(&self) -> Vec<usize> {
        self.map.axis_separators().to_vec()
    }

    fn __str__(&self) -> String {
        self.map.to_string()
    }

    fn __repr__(&self) -> String {
        format!("IndexMap({:?})", self.map.to_string())
    }
}
