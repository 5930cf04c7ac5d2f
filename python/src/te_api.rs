//! TVM's TE functions: `placeholder`, `compute`, `reduce_axis`, the
//! reducers, `create_schedule`, `InferBound`, `lower`, and rangefinder's
//! `report`.
//!
//! Python code calls these through `rangefinder.tvm` (`te.compute(...)`),
//! which keeps TVM's module layout; the functions themselves follow TVM's
//! signatures and defaults.

use crate::error::{error, te_error, tvm_error};
use crate::expr::{decide, to_condition, to_index, to_term, to_value, type_name, PrimExpr, Term};
use crate::te_objects::{
    to_iter_var, to_op, IterVar, LoweredFunc, Map, Operation, Range, Schedule, Tensor,
};
use arith::{Expr, Var};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use tir::DataType;

/// Registers the functions on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(placeholder, m)?)?;
    m.add_function(wrap_pyfunction!(compute, m)?)?;
    m.add_function(wrap_pyfunction!(var, m)?)?;
    m.add_function(wrap_pyfunction!(reduce_axis, m)?)?;
    m.add_function(wrap_pyfunction!(thread_axis, m)?)?;
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(binary_min_max, m)?)?;
    m.add_function(wrap_pyfunction!(if_then_else, m)?)?;
    m.add_function(wrap_pyfunction!(call_intrinsic, m)?)?;
    m.add_function(wrap_pyfunction!(intrinsic_names, m)?)?;
    m.add_function(wrap_pyfunction!(constant, m)?)?;
    m.add_function(wrap_pyfunction!(integer_division, m)?)?;
    m.add_function(wrap_pyfunction!(all_or_any, m)?)?;
    m.add_function(wrap_pyfunction!(create_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(infer_bound, m)?)?;
    m.add_function(wrap_pyfunction!(lower, m)?)?;
    m.add_function(wrap_pyfunction!(te_report, m)?)?;
    m.add_class::<Report>()?;
    m.add_function(wrap_pyfunction!(substitute, m)?)?;
    m.add_function(wrap_pyfunction!(prove_equal, m)?)?;
    m.add_function(wrap_pyfunction!(structural_equal, m)?)?;
    m.add_class::<PrimExpr>()?;
    m.add_class::<IterVar>()?;
    m.add_class::<Range>()?;
    m.add_class::<Tensor>()?;
    m.add_class::<crate::te_objects::TensorSlice>()?;
    m.add_class::<Operation>()?;
    m.add_class::<Schedule>()?;
    m.add_class::<crate::te_objects::Stage>()?;
    m.add_class::<crate::te_objects::Split>()?;
    m.add_class::<crate::te_objects::Fuse>()?;
    m.add_class::<Map>()?;
    m.add_class::<LoweredFunc>()?;
    Ok(())
}

fn dtype(name: &str) -> PyResult<DataType> {
    name.parse::<DataType>().map_err(|e| {
        error(format!(
            "{e}: use a TVM type name such as \"float32\" or \"int32\""
        ))
    })
}

/// A shape: a sequence of sizes, or one size.
fn shape(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Expr>> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().map(|d| to_index(&d)).collect();
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l.iter().map(|d| to_index(&d)).collect();
    }
    Ok(vec![to_index(obj)?])
}

/// `te.placeholder(shape, dtype="float32", name="placeholder")`.
#[pyfunction]
#[pyo3(signature = (shape, dtype="float32", name="placeholder"))]
fn placeholder(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: &str,
    name: &str,
) -> PyResult<Tensor> {
    let dims = self::shape(shape)?;
    let dt = self::dtype(dtype)?;
    te::placeholder(dims, name, dt)
        .map(|t| Tensor { t })
        .map_err(|e| te_error(py, e))
}

/// Why building a compute failed: in the Python function or in `te`.
enum ComputeFailure {
    Py(PyErr),
    Te(te::TeError),
}

impl From<te::TeError> for ComputeFailure {
    fn from(e: te::TeError) -> ComputeFailure {
        ComputeFailure::Te(e)
    }
}

/// The names TVM gives a compute's axes: the function's parameter names,
/// or `i0, i1, ...` for `lambda *i`.
fn axis_names(f: &Bound<'_, PyAny>, ndim: usize) -> PyResult<Vec<String>> {
    const CO_VARARGS: u32 = 0x04;
    let code = f.getattr("__code__").map_err(|_| {
        PyTypeError::new_err(format!(
            "`compute` needs a lambda or function, found {}",
            type_name(f)
        ))
    })?;
    let argcount: usize = code.getattr("co_argcount")?.extract()?;
    let flags: u32 = code.getattr("co_flags")?.extract()?;
    let names: Vec<String> = code.getattr("co_varnames")?.extract()?;
    if argcount == 0 && flags & CO_VARARGS != 0 {
        return Ok((0..ndim).map(|d| format!("i{d}")).collect());
    }
    if argcount != ndim {
        return Err(PyValueError::new_err(format!(
            "the shape has {ndim} dimensions but the function takes {argcount} indices"
        )));
    }
    Ok(names.into_iter().take(argcount).collect())
}

/// `te.compute(shape, fcompute, name="compute", tag="", attrs=None)`.
#[pyfunction]
#[pyo3(signature = (shape, fcompute, name="compute", tag="", attrs=None))]
fn compute(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    fcompute: &Bound<'_, PyAny>,
    name: &str,
    tag: &str,
    attrs: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    let _ = (tag, attrs);
    let dims = self::shape(shape)?;
    let names = axis_names(fcompute, dims.len())?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let built = te::try_compute_named(
        dims,
        &names,
        |vars| {
            let args = PyTuple::new(py, vars.iter().map(|v| PrimExpr::index(v.clone())))
                .map_err(ComputeFailure::Py)?;
            let body = fcompute.call1(args).map_err(ComputeFailure::Py)?;
            if body.cast::<PyList>().is_ok() || body.cast::<PyTuple>().is_ok() {
                return Err(ComputeFailure::Py(error(
                    "a compute with several outputs is not supported: return one value",
                )));
            }
            to_value(&body).map_err(ComputeFailure::Py)
        },
        name,
    );
    match built {
        Ok(t) => Ok(Tensor { t }),
        Err(ComputeFailure::Py(e)) => Err(e),
        Err(ComputeFailure::Te(e)) => Err(te_error(py, e)),
    }
}

/// `te.var(name="tindex", dtype="int32")` and `te.size_var`.
#[pyfunction]
#[pyo3(signature = (name="tindex", dtype="int32"))]
fn var(name: &str, dtype: &str) -> PyResult<PrimExpr> {
    let dt = self::dtype(dtype)?;
    if !dt.is_int() {
        return Err(error(format!(
            "`var` of type {dt} is not supported: index variables are integers"
        )));
    }
    Ok(PrimExpr::index(Var::new(name).expr()))
}

/// `te.reduce_axis(dom, name="rv")`, `dom` a pair `(lo, hi)` or a `Range`.
#[pyfunction]
#[pyo3(signature = (dom, name="rv"))]
fn reduce_axis(dom: &Bound<'_, PyAny>, name: &str) -> PyResult<IterVar> {
    let (lo, hi) = if let Ok(r) = dom.extract::<PyRef<'_, Range>>() {
        (r.range.min.clone(), r.range.end())
    } else {
        let items: Vec<Bound<'_, PyAny>> = dom
            .try_iter()
            .and_then(|it| it.collect::<PyResult<Vec<_>>>())
            .map_err(|_| error("`reduce_axis` needs its domain as a pair `(lo, hi)`"))?;
        let [lo, hi] = &items[..] else {
            return Err(error("`reduce_axis` needs its domain as a pair `(lo, hi)`"));
        };
        (to_index(lo)?, to_index(hi)?)
    };
    Ok(IterVar {
        iv: te::reduce_axis((lo, hi), name),
    })
}

/// `te.thread_axis(tag)` or `te.thread_axis(dom, tag)` with `dom` None.
#[pyfunction]
#[pyo3(signature = (dom=None, tag="", name=""))]
fn thread_axis(
    py: Python<'_>,
    dom: Option<&Bound<'_, PyAny>>,
    tag: &str,
    name: &str,
) -> PyResult<IterVar> {
    let _ = name;
    let tag = match dom {
        Some(d) if d.cast::<PyString>().is_ok() => d.extract::<String>()?,
        Some(d) if !d.is_none() => {
            return Err(error(
                "`thread_axis` with a domain is not supported: give only the tag, the bound \
                 loop's extent is the number of threads",
            ))
        }
        _ => tag.to_owned(),
    };
    if tag.is_empty() {
        return Err(error("`thread_axis` needs a tag such as \"threadIdx.x\""));
    }
    te::IterVar::thread_axis(&tag)
        .map(|iv| IterVar { iv })
        .map_err(|e| {
            tvm_error(
                py,
                format!("this thread axis is not supported: {}", e.message),
            )
        })
}

/// The axes of a reduction: one IterVar or a sequence of them.
fn axes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<te::IterVar>> {
    if let Ok(iv) = to_iter_var(obj) {
        return Ok(vec![iv]);
    }
    obj.try_iter()?
        .map(|a| to_iter_var(&a?))
        .collect::<PyResult<Vec<_>>>()
}

/// `te.sum` / `te.max` / `te.min` as reductions: `reducer` is "sum",
/// "max" or "min".
#[pyfunction]
#[pyo3(signature = (reducer, expr, axis, r#where=None, init=None))]
fn reduce(
    reducer: &str,
    expr: &Bound<'_, PyAny>,
    axis: &Bound<'_, PyAny>,
    r#where: Option<&Bound<'_, PyAny>>,
    init: Option<&Bound<'_, PyAny>>,
) -> PyResult<PrimExpr> {
    if init.is_some_and(|i| !i.is_none()) {
        return Err(error("`init=` is not supported"));
    }
    let reducer = match reducer {
        "sum" => te::Reducer::Sum,
        "max" => te::Reducer::Max,
        "min" => te::Reducer::Min,
        other => return Err(error(format!("unknown reducer `{other}`"))),
    };
    let source = to_value(expr)?;
    let axes = axes(axis)?;
    let value = match r#where.filter(|w| !w.is_none()) {
        Some(w) => te::reduce_where(reducer, source, &axes, to_condition(w)?),
        None => match reducer {
            te::Reducer::Sum => te::sum(source, &axes),
            te::Reducer::Max => te::max(source, &axes),
            te::Reducer::Min => te::min(source, &axes),
            te::Reducer::Prod => te::prod(source, &axes),
        },
    };
    Ok(PrimExpr::elem(value))
}

/// The larger (`is_max`) or smaller of two values.
#[pyfunction]
fn binary_min_max(is_max: bool, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PrimExpr> {
    match (to_term(a)?, to_term(b)?) {
        (Term::Index(x), Term::Index(y)) => Ok(PrimExpr::index(if is_max {
            Expr::max(x, y)
        } else {
            Expr::min(x, y)
        })),
        _ => {
            let (x, y) = (to_value(a)?, to_value(b)?);
            Ok(PrimExpr::elem(if is_max {
                te::Value::max(x, y)
            } else {
                te::Value::min(x, y)
            }))
        }
    }
}

/// `tvm.tir.exp(x)` and the other math functions on tensor elements, by
/// TVM's name (`exp`, `power`, `sigmoid`, ...).
#[pyfunction]
#[pyo3(signature = (name, *args))]
fn call_intrinsic(name: &str, args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<PrimExpr> {
    let f = tir::Intrinsic::from_tvm_name(name).ok_or_else(|| {
        pyo3::exceptions::PyAttributeError::new_err(format!("no math function `{name}`"))
    })?;
    if args.len() != f.arity() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "`{name}` takes {} argument(s), {} given",
            f.arity(),
            args.len()
        )));
    }
    let operands = args
        .iter()
        .map(|a| to_value(&a))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PrimExpr::elem(te::Value::call(f, operands)))
}

/// The names of the math functions, as `tvm.tir` spells them.
#[pyfunction]
fn intrinsic_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = tir::Intrinsic::ALL.iter().map(|f| f.name()).collect();
    names.extend(["power", "abs"]);
    names
}

/// `te.if_then_else(cond, t, f)`.
#[pyfunction]
fn if_then_else(
    cond: &Bound<'_, PyAny>,
    t: &Bound<'_, PyAny>,
    f: &Bound<'_, PyAny>,
) -> PyResult<PrimExpr> {
    let c = to_condition(cond)?;
    match (to_term(t)?, to_term(f)?) {
        (Term::Index(x), Term::Index(y)) => Ok(PrimExpr::index(Expr::select(c, x, y))),
        _ => Ok(PrimExpr::elem(te::Value::select(
            c,
            to_value(t)?,
            to_value(f)?,
        ))),
    }
}

/// `tvm.tir.const(value, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (value, dtype=None))]
fn constant(value: &Bound<'_, PyAny>, dtype: Option<&str>) -> PyResult<PrimExpr> {
    let is_float_value = value.is_instance_of::<pyo3::types::PyFloat>();
    let dt = match dtype {
        Some(d) => self::dtype(d)?,
        None if is_float_value => DataType::Float32,
        None => DataType::Int32,
    };
    if dt.is_float() {
        let v: f64 = value.extract()?;
        return Ok(PrimExpr::elem(te::Value::float(v)));
    }
    if is_float_value {
        return Err(error(format!("`const` of type {dt} needs an integer")));
    }
    let v: i64 = value
        .extract()
        .map_err(|_| error(format!("`const` of type {dt} needs an integer")))?;
    Ok(PrimExpr::index(Expr::int(v)))
}

/// `floordiv` or `floormod` (`kind`); truncating division is
/// `truncating_division` (`expr.rs`).
#[pyfunction]
fn integer_division(kind: &str, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PrimExpr> {
    let (x, y) = (to_index(a)?, to_index(b)?);
    let e = match kind {
        "floordiv" => Expr::floor_div(x, y),
        "floormod" => Expr::floor_mod(x, y),
        other => return Err(error(format!("unknown division `{other}`"))),
    };
    Ok(PrimExpr::index(e))
}

/// `tvm.tir.all(*conds)` (`is_all`) or `tvm.tir.any(*conds)`.
#[pyfunction]
#[pyo3(signature = (is_all, *conds))]
fn all_or_any(is_all: bool, conds: &Bound<'_, PyTuple>) -> PyResult<PrimExpr> {
    let conds = conds
        .iter()
        .map(|c| to_condition(&c))
        .collect::<PyResult<Vec<_>>>()?;
    let joined = conds.into_iter().reduce(|a, b| {
        if is_all {
            Expr::and(a, b)
        } else {
            Expr::or(a, b)
        }
    });
    Ok(PrimExpr::index(
        joined.unwrap_or_else(|| Expr::bool(is_all)),
    ))
}

/// `te.create_schedule(ops)`: one operation or a list of them.
#[pyfunction]
fn create_schedule(ops: &Bound<'_, PyAny>) -> PyResult<Schedule> {
    let items: Vec<Bound<'_, PyAny>> =
        if ops.cast::<PyList>().is_ok() || ops.cast::<PyTuple>().is_ok() {
            ops.try_iter()?.collect::<PyResult<Vec<_>>>()?
        } else {
            vec![ops.clone()]
        };
    let tensors = items
        .iter()
        .map(|o| to_op(o).map(|op| op.output()))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Schedule {
        s: te::create_schedule(&tensors),
    })
}

/// `tvm.te.schedule.InferBound(s)`.
#[pyfunction]
fn infer_bound(py: Python<'_>, s: PyRef<'_, Schedule>) -> PyResult<Map> {
    te::infer_bound(&s.s)
        .map(|bounds| Map { bounds })
        .map_err(|e| te_error(py, e))
}

fn args_of(s: &te::Schedule, args: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<te::Tensor>> {
    let tensors = match args.filter(|a| !a.is_none()) {
        None => s.default_args(),
        Some(list) => list
            .try_iter()
            .map_err(|_| error("`lower` needs its arguments as a list of tensors"))?
            .map(|t| to_op(&t?).map(|op| op.output()))
            .collect::<PyResult<Vec<_>>>()?,
    };
    Ok(s.program_args(tensors))
}

/// `tvm.lower(s, args=None, name="main", binds=None, simple_mode=False)`.
#[pyfunction]
#[pyo3(signature = (s, args=None, name="main", binds=None, simple_mode=false))]
fn lower(
    py: Python<'_>,
    s: PyRef<'_, Schedule>,
    args: Option<&Bound<'_, PyAny>>,
    name: &str,
    binds: Option<&Bound<'_, PyAny>>,
    simple_mode: bool,
) -> PyResult<LoweredFunc> {
    let _ = (name, binds, simple_mode);
    let tensors = args_of(&s.s, args)?;
    let lowered = te::lower(&s.s, &tensors).map_err(|e| te_error(py, e))?;
    Ok(LoweredFunc {
        text: lowered.to_string(),
    })
}

/// What `rangefinder te` prints for a schedule: bounds, regions, storage,
/// the lowered program and, when run, the check.
#[pyclass(frozen, name = "Report", module = "rangefinder")]
pub struct Report {
    report: te::RunReport,
}

#[pymethods]
impl Report {
    /// The JSON `rangefinder te --json` prints (indented when `pretty`).
    #[pyo3(signature = (pretty=false))]
    fn json(&self, pretty: bool) -> String {
        let value = self.report.to_json();
        if pretty {
            serde_json::to_string_pretty(&value).unwrap_or_default()
        } else {
            value.to_string()
        }
    }

    /// The text `rangefinder te` prints.
    fn text(&self) -> String {
        self.report.to_text()
    }

    /// False when a run found an out-of-bounds access or a wrong value.
    #[getter]
    fn clean(&self) -> bool {
        self.report.is_clean()
    }
}

/// The report of schedule `s` with `args` (default: inputs, then outputs),
/// run and checked when `run` is true, within `max_steps` loop iterations
/// and stores (default `te::DEFAULT_MAX_STEPS`). The run checks for
/// signals as it goes: Ctrl-C raises `KeyboardInterrupt` promptly.
#[pyfunction]
#[pyo3(signature = (s, args=None, run=false, seed=0, max_steps=None))]
fn te_report(
    py: Python<'_>,
    s: PyRef<'_, Schedule>,
    args: Option<&Bound<'_, PyAny>>,
    run: bool,
    seed: u64,
    max_steps: Option<u64>,
) -> PyResult<Report> {
    let tensors = args_of(&s.s, args)?;
    let options = te::ReportOptions {
        run,
        seed,
        max_steps,
        interrupt: Some(tir::Interrupt(signal_received)),
    };
    PENDING_SIGNAL.with(|p| p.borrow_mut().take());
    let result = te::run_report(&s.s, &tensors, &options);
    // The exception a signal handler raised (KeyboardInterrupt for
    // Ctrl-C) is raised in place of the run's error.
    if let Some(e) = PENDING_SIGNAL.with(|p| p.borrow_mut().take()) {
        return Err(e);
    }
    result
        .map(|report| Report { report })
        .map_err(|e| te_error(py, e))
}

thread_local! {
    /// The exception a signal handler raised during a run, until the run
    /// returns and it is raised.
    static PENDING_SIGNAL: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// The interrupt hook of runs under Python: runs the handlers of pending
/// signals (Python's own check), and asks the run to stop when one raised.
fn signal_received() -> bool {
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(e) => {
            PENDING_SIGNAL.with(|p| *p.borrow_mut() = Some(e));
            true
        }
    })
}

/// `tvm.tir.stmt_functor.substitute(expr, {var: value})`.
#[pyfunction]
fn substitute(expr: &Bound<'_, PyAny>, vmap: &Bound<'_, PyDict>) -> PyResult<PrimExpr> {
    let e = to_index(expr)?;
    let mut map: Vec<(Var, Expr)> = Vec::new();
    for (k, v) in vmap.iter() {
        let key = to_index(&k)?;
        let Some(var) = key.as_var() else {
            return Err(error(format!("`{key}` is not a variable")));
        };
        map.push((var.clone(), to_index(&v)?));
    }
    let out = e.substitute(&mut |v| map.iter().find(|(k, _)| k == v).map(|(_, e)| e.clone()));
    Ok(PrimExpr::index(out))
}

/// Whether `a == b` holds for every value of their variables.
#[pyfunction]
fn prove_equal(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    let (x, y) = (to_index(a)?, to_index(b)?);
    Ok(decide(&Expr::eq(x, y)) == Some(true))
}

/// Structural equality of expressions, ranges and lists of them.
#[pyfunction]
fn structural_equal(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let (Ok(x), Ok(y)) = (
        a.extract::<PyRef<'_, Range>>(),
        b.extract::<PyRef<'_, Range>>(),
    ) {
        return Ok(x.range.min == y.range.min && x.range.extent == y.range.extent);
    }
    if let (Ok(x), Ok(y)) = (to_term(a), to_term(b)) {
        return Ok(match (x, y) {
            (Term::Index(x), Term::Index(y)) => x == y,
            (Term::Elem(x), Term::Elem(y)) => x.to_string() == y.to_string(),
            _ => false,
        });
    }
    if let (Ok(xs), Ok(ys)) = (a.try_iter(), b.try_iter()) {
        let xs = xs.collect::<PyResult<Vec<_>>>()?;
        let ys = ys.collect::<PyResult<Vec<_>>>()?;
        if xs.len() != ys.len() {
            return Ok(false);
        }
        for (x, y) in xs.iter().zip(&ys) {
            if !structural_equal(x, y)? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    a.eq(b)
}
