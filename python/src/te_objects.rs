//! TVM's TE objects as Python classes: `IterVar`, `Range`, `Tensor`,
//! `Operation`, `Schedule`, `Stage`, the `Split`/`Fuse` relations, the
//! `Map` that `InferBound` returns, and the lowered function.
//!
//! Each wraps the [`te`] object it names; identity-carrying objects
//! (iteration variables, tensors, operations) compare and hash by identity,
//! as TVM's `ObjectRef`s do.

use crate::error::{error, te_error, tvm_error};
use crate::expr::{py_binary, py_compare, to_index, to_term, BinOp, PrimExpr, Term};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// An iteration variable: a loop axis, a reduction axis or a thread axis.
#[pyclass(
    frozen,
    skip_from_py_object,
    name = "IterVar",
    module = "rangefinder.tvm.tir"
)]
#[derive(Clone)]
pub struct IterVar {
    pub iv: te::IterVar,
}

#[pymethods]
impl IterVar {
    /// The loop variable.
    #[getter]
    fn var(&self) -> PrimExpr {
        PrimExpr::index(self.iv.expr())
    }

    /// The domain, or None for axes whose range bound inference decides.
    #[getter]
    fn dom(&self) -> Option<Range> {
        self.iv.dom().map(|r| Range { range: r.clone() })
    }

    /// TVM's iteration type: 0 data parallel, 1 thread index, 2 reduction.
    #[getter]
    fn iter_type(&self) -> i32 {
        if self.iv.thread_tag().is_some() {
            return 1;
        }
        match self.iv.kind() {
            te::IterKind::DataPar => 0,
            te::IterKind::Reduce => 2,
        }
    }

    /// The thread tag of a thread axis, else "".
    #[getter]
    fn thread_tag(&self) -> String {
        self.iv
            .thread_tag()
            .map(|t| t.to_string())
            .unwrap_or_default()
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        // IterVars compare by identity; against anything else they stand for
        // their variable.
        if let Ok(other) = o.extract::<PyRef<'_, IterVar>>() {
            let same = self.iv == other.iv;
            return match op {
                CompareOp::Eq => Ok(same.into_pyobject(py)?.to_owned().into_any().unbind()),
                CompareOp::Ne => Ok((!same).into_pyobject(py)?.to_owned().into_any().unbind()),
                _ => py_compare(py, Term::Index(self.iv.expr()), o, op),
            };
        }
        py_compare(py, Term::Index(self.iv.expr()), o, op)
    }

    fn __hash__(&self) -> u64 {
        self.iv.var().id()
    }

    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Add, self.term(), o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Add, self.term(), o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Sub, self.term(), o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Sub, self.term(), o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mul, self.term(), o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mul, self.term(), o, true)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::FloorDiv, self.term(), o, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::FloorDiv, self.term(), o, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mod, self.term(), o, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mod, self.term(), o, true)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let zero = 0i64.into_pyobject(py)?.into_any();
        py_binary(py, BinOp::Sub, self.term(), &zero, true)
    }

    fn __str__(&self) -> String {
        self.iv.name().to_owned()
    }

    fn __repr__(&self) -> String {
        match self.iv.dom() {
            Some(d) => format!(
                "IterVar({}, range(min={}, ext={}))",
                self.iv.name(),
                d.min,
                d.extent
            ),
            None => format!("IterVar({})", self.iv.name()),
        }
    }
}

impl IterVar {
    fn term(&self) -> Term {
        Term::Index(self.iv.expr())
    }
}

/// `Range(min, extent)`, as TVM's `tvm.ir.Range`.
#[pyclass(
    frozen,
    skip_from_py_object,
    name = "Range",
    module = "rangefinder.tvm.ir"
)]
#[derive(Clone)]
pub struct Range {
    pub range: arith::Range,
}

#[pymethods]
impl Range {
    /// `Range(begin, end)`: the half-open interval `[begin, end)`; with one
    /// argument `[0, end)`.
    #[new]
    #[pyo3(signature = (begin, end=None))]
    fn py_new(begin: &Bound<'_, PyAny>, end: Option<&Bound<'_, PyAny>>) -> PyResult<Range> {
        let (lo, hi) = match end {
            Some(end) => (to_index(begin)?, to_index(end)?),
            None => (arith::Expr::int(0), to_index(begin)?),
        };
        Ok(Range {
            range: arith::Range::half_open(lo, hi),
        })
    }

    /// The first value.
    #[getter]
    fn min(&self) -> PrimExpr {
        PrimExpr::index(self.range.min.clone())
    }

    /// The number of values.
    #[getter]
    fn extent(&self) -> PrimExpr {
        PrimExpr::index(self.range.extent.clone())
    }

    fn __eq__(&self, o: &Bound<'_, PyAny>) -> bool {
        o.extract::<PyRef<'_, Range>>()
            .is_ok_and(|r| r.range.min == self.range.min && r.range.extent == self.range.extent)
    }

    fn __repr__(&self) -> String {
        format!("range(min={}, ext={})", self.range.min, self.range.extent)
    }
}

/// A tensor: `A[i, j]` reads an element.
#[pyclass(
    frozen,
    skip_from_py_object,
    name = "Tensor",
    module = "rangefinder.tvm.te"
)]
#[derive(Clone)]
pub struct Tensor {
    pub t: te::Tensor,
}

#[pymethods]
impl Tensor {
    /// `A[i, j]` (or `A[i][j]`): an element; fewer indices give a slice.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Some(g) = gather(py, &self.t, key)? {
            return Ok(g);
        }
        let indices = indices_of(key)?;
        slice_or_load(py, &self.t, indices)
    }

    /// `A(i, j)`: the same as `A[i, j]`.
    #[pyo3(signature = (*indices))]
    fn __call__(&self, py: Python<'_>, indices: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let indices = indices
            .iter()
            .map(|k| to_index(&k))
            .collect::<PyResult<Vec<_>>>()?;
        slice_or_load(py, &self.t, indices)
    }

    /// The operation that computes this tensor.
    #[getter]
    fn op(&self) -> Operation {
        Operation {
            op: self.t.op().clone(),
        }
    }

    /// The shape, one expression per dimension.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.t.shape().iter().map(|d| PrimExpr::index(d.clone())),
        )
    }

    #[getter]
    fn dtype(&self) -> &'static str {
        self.t.dtype().name()
    }

    #[getter]
    fn name(&self) -> String {
        self.t.name().to_owned()
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.t.ndim()
    }

    /// Which output of its operation this is (always 0).
    #[getter]
    fn value_index(&self) -> usize {
        0
    }

    fn __eq__(&self, o: &Bound<'_, PyAny>) -> bool {
        o.extract::<PyRef<'_, Tensor>>()
            .is_ok_and(|x| x.t == self.t)
    }

    fn __hash__(&self) -> u64 {
        self.t.op().id().0
    }

    fn __repr__(&self) -> String {
        let dims: Vec<String> = self.t.shape().iter().map(|d| d.to_string()).collect();
        format!(
            "Tensor(shape=[{}], op.name={})",
            dims.join(", "),
            self.t.name()
        )
    }
}

/// The index list of a subscript: one index or a tuple of them.
/// `B[A[i]]`: a read at indices computed from tensor elements (a gather),
/// when some index is a tensor element; it takes every index at once, and
/// integer ones.
fn gather(py: Python<'_>, t: &te::Tensor, key: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
    let items: Vec<Bound<'_, PyAny>> = if let Ok(k) = key.cast::<PyTuple>() {
        k.iter().collect()
    } else if let Ok(k) = key.cast::<PyList>() {
        k.iter().collect()
    } else {
        vec![key.clone()]
    };
    let terms = match items.iter().map(to_term).collect::<PyResult<Vec<_>>>() {
        Ok(terms) => terms,
        // Not all indices are expressions: the ordinary path says why.
        Err(_) => return Ok(None),
    };
    if !terms.iter().any(|x| matches!(x, Term::Elem(_))) {
        return Ok(None);
    }
    if terms.len() != t.ndim() {
        return Err(PyIndexError::new_err(format!(
            "`{}` has {} dimensions but {} indices were given: a read at indices computed \
             from tensor elements takes every index at once",
            t.name(),
            t.ndim(),
            terms.len()
        )));
    }
    let mut indices = Vec::with_capacity(terms.len());
    for term in terms {
        let v = match term {
            Term::Index(e) => te::Value::index(e),
            Term::Elem(v) => v,
        };
        if !v.dtype().is_int() {
            return Err(PyTypeError::new_err(format!(
                "an index of `{}` is a {} tensor element: indices must be integers",
                t.name(),
                v.dtype()
            )));
        }
        indices.push(v);
    }
    Ok(Some(
        PrimExpr::elem(te::Value::gather(t, indices))
            .into_pyobject(py)?
            .into_any()
            .unbind(),
    ))
}

fn indices_of(key: &Bound<'_, PyAny>) -> PyResult<Vec<arith::Expr>> {
    if let Ok(t) = key.cast::<PyTuple>() {
        return t.iter().map(|k| to_index(&k)).collect();
    }
    if let Ok(l) = key.cast::<PyList>() {
        return l.iter().map(|k| to_index(&k)).collect();
    }
    Ok(vec![to_index(key)?])
}

fn slice_or_load(py: Python<'_>, t: &te::Tensor, indices: Vec<arith::Expr>) -> PyResult<Py<PyAny>> {
    if indices.len() > t.ndim() {
        return Err(PyIndexError::new_err(format!(
            "`{}` has {} dimensions but {} indices were given",
            t.name(),
            t.ndim(),
            indices.len()
        )));
    }
    if indices.len() < t.ndim() {
        return Ok(Py::new(
            py,
            TensorSlice {
                t: t.clone(),
                indices,
            },
        )?
        .into_any());
    }
    Ok(Py::new(py, PrimExpr::elem(t.at(indices)))?.into_any())
}

/// A partly indexed tensor, `A[i]` of a 2-d `A`: index it again.
#[pyclass(frozen, name = "TensorSlice", module = "rangefinder.tvm.te")]
pub struct TensorSlice {
    t: te::Tensor,
    indices: Vec<arith::Expr>,
}

#[pymethods]
impl TensorSlice {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let mut indices = self.indices.clone();
        indices.extend(indices_of(key)?);
        slice_or_load(py, &self.t, indices)
    }
}

/// An operation: a placeholder or a compute.
#[pyclass(
    frozen,
    skip_from_py_object,
    name = "Operation",
    module = "rangefinder.tvm.te"
)]
#[derive(Clone)]
pub struct Operation {
    pub op: te::Operation,
}

#[pymethods]
impl Operation {
    /// The data-parallel axes of a compute.
    #[getter]
    fn axis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        iter_var_list(py, self.op.axis())
    }

    /// The reduction axes of a compute.
    #[getter]
    fn reduce_axis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        iter_var_list(py, self.op.reduce_axis())
    }

    #[getter]
    fn name(&self) -> String {
        self.op.name().to_owned()
    }

    #[getter]
    fn num_outputs(&self) -> usize {
        1
    }

    /// The tensors this operation reads.
    #[getter]
    fn input_tensors(&self) -> Vec<Tensor> {
        self.op
            .input_tensors()
            .into_iter()
            .map(|t| Tensor { t })
            .collect()
    }

    /// Output `i` (only 0: operations have one output).
    fn output(&self, i: usize) -> PyResult<Tensor> {
        if i != 0 {
            return Err(PyIndexError::new_err("operations have one output"));
        }
        Ok(Tensor {
            t: self.op.output(),
        })
    }

    fn __eq__(&self, o: &Bound<'_, PyAny>) -> bool {
        o.extract::<PyRef<'_, Operation>>()
            .is_ok_and(|x| x.op == self.op)
    }

    fn __hash__(&self) -> u64 {
        self.op.id().0
    }

    fn __repr__(&self) -> String {
        match self.op.kind() {
            te::OpKind::Placeholder => format!("placeholder({})", self.op.name()),
            _ => format!("compute({})", self.op.name()),
        }
    }
}

pub fn iter_var_list<'py>(py: Python<'py>, ivs: &[te::IterVar]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, ivs.iter().map(|iv| IterVar { iv: iv.clone() }))
}

/// The operation a tensor, operation or stage stands for.
pub fn to_op(obj: &Bound<'_, PyAny>) -> PyResult<te::Operation> {
    if let Ok(t) = obj.extract::<PyRef<'_, Tensor>>() {
        return Ok(t.t.op().clone());
    }
    if let Ok(o) = obj.extract::<PyRef<'_, Operation>>() {
        return Ok(o.op.clone());
    }
    if let Ok(s) = obj.extract::<PyRef<'_, Stage>>() {
        return Ok(s.op.clone());
    }
    Err(PyTypeError::new_err(format!(
        "expected a tensor or an operation, found {}",
        crate::expr::type_name(obj)
    )))
}

pub fn to_iter_var(obj: &Bound<'_, PyAny>) -> PyResult<te::IterVar> {
    obj.extract::<PyRef<'_, IterVar>>()
        .map(|iv| iv.iv.clone())
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "expected an IterVar (an axis such as `C.op.axis[0]`), found {}",
                crate::expr::type_name(obj)
            ))
        })
}

/// A schedule: `s[C]` gives the stage of `C`.
#[pyclass(name = "Schedule", module = "rangefinder.tvm.te")]
pub struct Schedule {
    pub s: te::Schedule,
}

#[pymethods]
impl Schedule {
    fn __getitem__(slf: Bound<'_, Schedule>, key: &Bound<'_, PyAny>) -> PyResult<Stage> {
        let op = to_op(key)?;
        slf.borrow()
            .s
            .stage(&op)
            .map_err(|e| te_error(slf.py(), e))?;
        Ok(Stage {
            sched: slf.unbind(),
            op,
        })
    }

    /// Loops already start at 0 here, so the schedule is already normal.
    fn normalize(slf: Bound<'_, Schedule>) -> Bound<'_, Schedule> {
        slf
    }

    /// Every stage, producers first.
    #[getter]
    fn stages(slf: Bound<'_, Schedule>) -> Vec<Stage> {
        let ops: Vec<te::Operation> = slf
            .borrow()
            .s
            .stages()
            .iter()
            .map(|st| st.op().clone())
            .collect();
        ops.into_iter()
            .map(|op| Stage {
                sched: slf.clone().unbind(),
                op,
            })
            .collect()
    }

    /// The output operations.
    #[getter]
    fn outputs(&self) -> Vec<Operation> {
        self.s
            .outputs()
            .iter()
            .map(|op| Operation { op: op.clone() })
            .collect()
    }
}

/// One operation's schedule: `s[C].split(...)`, `compute_at`, ...
#[pyclass(frozen, name = "Stage", module = "rangefinder.tvm.te")]
pub struct Stage {
    pub sched: Py<Schedule>,
    pub op: te::Operation,
}

impl Stage {
    fn with<R>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut te::Schedule) -> te::Result<R>,
    ) -> PyResult<R> {
        let mut s = self.sched.bind(py).try_borrow_mut()?;
        f(&mut s.s).map_err(|e| te_error(py, e))
    }

    fn stage_view<R>(&self, py: Python<'_>, f: impl FnOnce(&te::Stage) -> R) -> PyResult<R> {
        let s = self.sched.bind(py).borrow();
        let st = s.s.stage(&self.op).map_err(|e| te_error(py, e))?;
        Ok(f(st))
    }
}

#[pymethods]
impl Stage {
    /// `split(parent, factor=None, nparts=None)`: `(outer, inner)`.
    #[pyo3(signature = (parent, factor=None, nparts=None))]
    fn split(
        &self,
        py: Python<'_>,
        parent: &Bound<'_, PyAny>,
        factor: Option<&Bound<'_, PyAny>>,
        nparts: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(IterVar, IterVar)> {
        let parent = to_iter_var(parent)?;
        let (outer, inner) =
            match (factor, nparts) {
                (Some(f), None) => {
                    let f = to_index(f)?;
                    self.with(py, |s| s.split(&self.op, &parent, f))?
                }
                (None, Some(p)) => {
                    let p = to_index(p)?;
                    self.with(py, |s| s.split_nparts(&self.op, &parent, p))?
                }
                _ => return Err(error(
                    "`split` needs exactly one of `factor=` (the second argument) and `nparts=`",
                )),
            };
        Ok((IterVar { iv: outer }, IterVar { iv: inner }))
    }

    /// `fuse(*axes)`: `fuse(a, b, c)` is `fuse(fuse(a, b), c)`.
    #[pyo3(signature = (*args))]
    fn fuse(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<IterVar> {
        let ivs = args
            .iter()
            .map(|a| to_iter_var(&a))
            .collect::<PyResult<Vec<_>>>()?;
        let Some((first, rest)) = ivs.split_first() else {
            return Err(error(
                "`fuse` needs at least one axis (fusing no axes is not supported)",
            ));
        };
        let mut fused = first.clone();
        for next in rest {
            fused = self.with(py, |s| s.fuse(&self.op, &fused, next))?;
        }
        Ok(IterVar { iv: fused })
    }

    /// `reorder(*axes)`.
    #[pyo3(signature = (*args))]
    fn reorder(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<()> {
        let ivs = args
            .iter()
            .map(|a| to_iter_var(&a))
            .collect::<PyResult<Vec<_>>>()?;
        self.with(py, |s| s.reorder(&self.op, &ivs))
    }

    /// `tile(x, y, x_factor, y_factor)`: `(x.outer, y.outer, x.inner, y.inner)`.
    fn tile(
        &self,
        py: Python<'_>,
        x_parent: &Bound<'_, PyAny>,
        y_parent: &Bound<'_, PyAny>,
        x_factor: &Bound<'_, PyAny>,
        y_factor: &Bound<'_, PyAny>,
    ) -> PyResult<(IterVar, IterVar, IterVar, IterVar)> {
        let (x, y) = (to_iter_var(x_parent)?, to_iter_var(y_parent)?);
        let (xf, yf) = (to_index(x_factor)?, to_index(y_factor)?);
        let (a, b, c, d) = self.with(py, |s| s.tile(&self.op, &x, &y, xf, yf))?;
        Ok((
            IterVar { iv: a },
            IterVar { iv: b },
            IterVar { iv: c },
            IterVar { iv: d },
        ))
    }

    /// `compute_at(parent_stage, axis)`.
    fn compute_at(
        &self,
        py: Python<'_>,
        parent: &Bound<'_, PyAny>,
        scope: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let parent_op = match parent.extract::<PyRef<'_, Stage>>() {
            Ok(st) => {
                if !st.sched.is(&self.sched) {
                    return Err(tvm_error(py, "this stage belongs to a different schedule"));
                }
                st.op.clone()
            }
            Err(_) => {
                let op = to_op(parent)?;
                return Err(error(format!(
                    "`compute_at` needs a stage: write `s[{}]`",
                    op.name()
                )));
            }
        };
        let axis = to_iter_var(scope)?;
        self.with(py, |s| s.compute_at(&self.op, &parent_op, &axis))
    }

    fn compute_inline(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |s| s.compute_inline(&self.op))
    }

    fn compute_root(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |s| s.compute_root(&self.op))
    }

    /// `bind(axis, te.thread_axis("threadIdx.x"))`.
    fn bind(
        &self,
        py: Python<'_>,
        ivar: &Bound<'_, PyAny>,
        thread_ivar: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let iv = to_iter_var(ivar)?;
        let thread = to_iter_var(thread_ivar)?;
        self.with(py, |s| s.bind(&self.op, &iv, &thread))
    }

    /// `transform_layout(fn)`: stores the tensor in the layout `fn`
    /// describes (a function, lambda text or `IndexMap`); returns the new
    /// axes, which the stage iterates over.
    fn transform_layout(
        &self,
        py: Python<'_>,
        mapping: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<IterVar>> {
        crate::layout_api::transform_layout(py, self, mapping)
    }

    /// `set_scope("shared")`.
    fn set_scope(&self, py: Python<'_>, scope: &str) -> PyResult<()> {
        let mut s = self.sched.bind(py).try_borrow_mut()?;
        s.s.set_scope(&self.op, scope).map_err(|e| error(e.message))
    }

    #[getter]
    fn op(&self) -> Operation {
        Operation {
            op: self.op.clone(),
        }
    }

    #[getter]
    fn origin_op(&self) -> Operation {
        self.op()
    }

    #[getter]
    fn leaf_iter_vars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let ivs = self.stage_view(py, |st| st.leaf_iter_vars().to_vec())?;
        iter_var_list(py, &ivs)
    }

    #[getter]
    fn all_iter_vars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let ivs = self.stage_view(py, |st| st.all_iter_vars().to_vec())?;
        iter_var_list(py, &ivs)
    }

    /// The split and fuse relations, in the order they were made.
    #[getter]
    fn relations(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        let relations = self.stage_view(py, |st| st.relations().to_vec())?;
        relations
            .into_iter()
            .map(|r| -> PyResult<Py<PyAny>> {
                Ok(match r {
                    te::Relation::Split {
                        parent,
                        outer,
                        inner,
                        by,
                    } => {
                        let (factor, nparts) = match by {
                            te::SplitBy::Factor(f) => (Some(PrimExpr::index(f)), None),
                            te::SplitBy::NParts(p) => (None, Some(PrimExpr::index(p))),
                        };
                        Py::new(
                            py,
                            Split {
                                parent: IterVar { iv: parent },
                                outer: IterVar { iv: outer },
                                inner: IterVar { iv: inner },
                                factor,
                                nparts,
                            },
                        )?
                        .into_any()
                    }
                    te::Relation::Fuse {
                        outer,
                        inner,
                        fused,
                    } => Py::new(
                        py,
                        Fuse {
                            outer: IterVar { iv: outer },
                            inner: IterVar { iv: inner },
                            fused: IterVar { iv: fused },
                        },
                    )?
                    .into_any(),
                })
            })
            .collect()
    }

    fn __eq__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> bool {
        o.extract::<PyRef<'_, Stage>>()
            .is_ok_and(|x| x.op == self.op && x.sched.bind(py).is(self.sched.bind(py)))
    }

    fn __hash__(&self) -> u64 {
        self.op.id().0
    }

    fn __repr__(&self) -> String {
        format!("stage({})", self.op.name())
    }
}

/// `parent = outer * factor + inner`.
#[pyclass(
    frozen,
    get_all,
    name = "Split",
    module = "rangefinder.tvm.te.schedule"
)]
pub struct Split {
    parent: IterVar,
    outer: IterVar,
    inner: IterVar,
    factor: Option<PrimExpr>,
    nparts: Option<PrimExpr>,
}

/// `fused = outer * extent(inner) + inner`.
#[pyclass(frozen, get_all, name = "Fuse", module = "rangefinder.tvm.te.schedule")]
pub struct Fuse {
    outer: IterVar,
    inner: IterVar,
    fused: IterVar,
}

/// What `InferBound` returns: the range of every iteration variable.
#[pyclass(frozen, name = "Map", module = "rangefinder.tvm.container")]
pub struct Map {
    pub bounds: te::Bounds,
}

#[pymethods]
impl Map {
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<Range> {
        let iv = to_iter_var(key)?;
        self.bounds
            .range(&iv)
            .map(|r| Range { range: r.clone() })
            .ok_or_else(|| PyKeyError::new_err(format!("no range for `{}`", iv.name())))
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> bool {
        to_iter_var(key).is_ok_and(|iv| self.bounds.range(&iv).is_some())
    }

    fn __len__(&self) -> usize {
        self.bounds.len()
    }

    fn keys(&self) -> Vec<IterVar> {
        self.bounds
            .iter()
            .map(|(iv, _)| IterVar { iv: iv.clone() })
            .collect()
    }

    fn values(&self) -> Vec<Range> {
        self.bounds
            .iter()
            .map(|(_, r)| Range { range: r.clone() })
            .collect()
    }

    fn items(&self) -> Vec<(IterVar, Range)> {
        self.bounds
            .iter()
            .map(|(iv, r)| (IterVar { iv: iv.clone() }, Range { range: r.clone() }))
            .collect()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PyList::new(py, self.keys())?
            .into_any()
            .try_iter()
            .map(|i| i.into_any())
    }
}

/// What `tvm.lower` returns: `str()` of it is the lowered program.
#[pyclass(frozen, name = "PrimFunc", module = "rangefinder.tvm.tir")]
pub struct LoweredFunc {
    pub text: String,
}

#[pymethods]
impl LoweredFunc {
    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        self.text.clone()
    }

    /// The lowered program as text (`mod.script()` in TVM).
    fn script(&self) -> String {
        self.text.clone()
    }
}
