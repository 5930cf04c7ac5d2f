//! The native side of `rangefinder.tvm`: TVM's API comes from `tvm_api`
//! by dotted path (`resolve("tvm.te.compute")`), so every function,
//! method and object of the layer is in Python without code here; what
//! stays is the session a script builds, rangefinder's `report`, and the
//! few Python-only helpers (C's
//! truncating division by any divisor).

use crate::error::{api_error, error, te_error};
use crate::host::with_session;
use crate::object::{to_py, to_value, Object};
use arith::Expr;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use tvm_api::Value;

/// Registers the functions on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Object>()?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(instance_of, m)?)?;
    m.add_function(wrap_pyfunction!(intrinsic_names, m)?)?;
    m.add_function(wrap_pyfunction!(import_only_modules, m)?)?;
    m.add_function(wrap_pyfunction!(truncating_division, m)?)?;
    m.add_function(wrap_pyfunction!(session_target, m)?)?;
    m.add_function(wrap_pyfunction!(session_reset, m)?)?;
    m.add_function(wrap_pyfunction!(te_report, m)?)?;
    m.add_class::<Report>()?;
    Ok(())
}

/// What dotted `path` names in TVM's API (`tvm.te.compute`,
/// `tvm.tir.IterVar`, `tvm.te`), from the one API layer.
#[pyfunction]
fn resolve(py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
    let v = tvm_api::resolve(path).ok_or_else(|| {
        PyAttributeError::new_err(format!("`{path}` is not supported by rangefinder"))
    })?;
    to_py(py, v)
}

/// `isinstance(obj, cls)` for the TVM class `path` (`tvm.tir.IterVar`):
/// the layer decides for its classes; for others, `type_names` are the
/// names the layer gives values of that class (`Schedule`, `Stage`).
#[pyfunction]
fn instance_of(obj: &Bound<'_, PyAny>, path: &str, type_names: Vec<String>) -> PyResult<bool> {
    let Some(value) = crate::object::tvm_value(obj) else {
        return Ok(false);
    };
    let value = &value;
    if let Some(is) = tvm_api::resolve(path).and_then(|class| tvm_api::isinstance(value, &class)) {
        return Ok(is);
    }
    Ok(type_names.iter().any(|n| n == value.type_name()))
}

/// The modules TVM programs import but use only on paths a TE program
/// does not take (`tvm.relay`, `tvm.contrib.*`...), parents first.
#[pyfunction]
fn import_only_modules() -> Vec<&'static str> {
    tvm_api::import_only_modules().to_vec()
}

/// The names of the math functions, as `tvm.tir` spells them.
#[pyfunction]
fn intrinsic_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = tir::Intrinsic::ALL.iter().map(|f| f.name()).collect();
    names.extend(["power", "abs"]);
    names
}

/// An index argument: an integer, a `PrimExpr`, or an iteration variable
/// (its variable).
pub fn index_arg(obj: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let v = to_value(obj)?;
    let v = match &v {
        Value::Object(tvm_api::Object::IterVar(_)) => {
            tvm_api::get_attr(&v, "var").map_err(|e| api_error(obj.py(), e))?
        }
        _ => v,
    };
    tvm_api::as_index(&v).ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "expected an integer or index expression, found a {}",
            v.type_name()
        ))
    })
}

/// `truncdiv(a, b)` (`remainder` false) or `truncmod(a, b)`: the
/// layer's [`tvm_api::truncating_division`].
#[pyfunction]
#[pyo3(signature = (a, b, remainder=false))]
fn truncating_division(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    remainder: bool,
) -> PyResult<Py<PyAny>> {
    let (x, y) = (index_arg(a)?, index_arg(b)?);
    let e = tvm_api::truncating_division(x, y, remainder).map_err(|e| api_error(py, e))?;
    to_py(py, Value::Index(e))
}

/// `(schedule, args)` the report of a script is about, as `rangefinder te`
/// decides: the last `tvm.lower(s, args)`, else the last schedule created
/// (with `args` None); None when the script created none.
#[pyfunction]
fn session_target(py: Python<'_>) -> PyResult<Option<(Py<PyAny>, Py<PyAny>)>> {
    let target = with_session(|s| {
        s.report_target().map(|t| match t {
            tvm_api::ReportTarget::Lowered(l) => (l.schedule.clone(), Some(l.args.clone())),
            tvm_api::ReportTarget::Schedule(sch) => (sch.clone(), None),
        })
    });
    let Some((schedule, args)) = target else {
        return Ok(None);
    };
    let schedule = to_py(py, Value::Object(tvm_api::Object::Schedule(schedule)))?;
    let args = match args {
        Some(tensors) => to_py(
            py,
            Value::list(
                tensors
                    .into_iter()
                    .map(|t| Value::Object(tvm_api::Object::Tensor(t)))
                    .collect(),
            ),
        )?,
        None => py.None(),
    };
    Ok(Some((schedule, args)))
}

/// Forgets the schedules and lowerings made so far.
#[pyfunction]
fn session_reset() {
    with_session(|s| {
        s.schedules.clear();
        s.lowered.clear();
        s.failed_lowering = None;
    });
}

/// What `rangefinder te` prints for a schedule: bounds, regions, storage,
/// the lowered program and, when run, the check.
#[pyclass(frozen, name = "Report", module = "rangefinder")]
pub struct Report {
    report: te::RunReport,
    /// The schedule reported on, for the pictures of its stage graph and
    /// IterVar relations (the report keeps ranges, not relations).
    schedule: te::Schedule,
    /// The program's arguments and step limit, for the region pictures
    /// (which run the program again, watching one stage at a time).
    args: Vec<te::Tensor>,
    max_steps: u64,
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

    /// The report as Python objects: what `json.loads(self.json())`
    /// gives, built without the text.
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, &self.report.to_json())
    }

    /// The text `rangefinder te` prints.
    fn text(&self) -> String {
        self.report.to_text()
    }

    /// The stage graph, each stage's IterVar graph and the region
    /// pictures of each stage computed at a loop, as one SVG picture. `at`
    /// chooses the iteration of the region pictures (`{"i.outer": 3}`, as
    /// `rangefinder te --at` takes it; by default the first and a middle
    /// iteration of the outermost attach loop).
    #[pyo3(signature = (at=None))]
    fn svg(
        &self,
        py: Python<'_>,
        at: Option<std::collections::BTreeMap<String, i64>>,
    ) -> PyResult<String> {
        let regions = self.regions(py, at)?;
        Ok(picture::te_pictures(&self.schedule, &self.report.report, &regions).svg)
    }

    /// The report as the page `rangefinder te --html` writes, titled
    /// `title`; with `body_only`, the page's body without the document
    /// around it (what a notebook shows inline). `at` as for `svg`.
    #[pyo3(signature = (title="rangefinder te report", body_only=false, at=None))]
    fn html(
        &self,
        py: Python<'_>,
        title: &str,
        body_only: bool,
        at: Option<std::collections::BTreeMap<String, i64>>,
    ) -> PyResult<String> {
        let regions = self.regions(py, at)?;
        let page = picture::te_page(title, &self.schedule, &self.report, &regions);
        Ok(if body_only {
            page.body().to_string()
        } else {
            page.finish()
        })
    }

    /// False when a run found an out-of-bounds access or a wrong value.
    #[getter]
    fn clean(&self) -> bool {
        self.report.is_clean()
    }
}

impl Report {
    /// The region pictures of every stage computed at a loop, by stage.
    fn regions(
        &self,
        py: Python<'_>,
        at: Option<std::collections::BTreeMap<String, i64>>,
    ) -> PyResult<Vec<(String, picture::Drawing)>> {
        let at: Vec<(String, i64)> = at.unwrap_or_default().into_iter().collect();
        let limits = te::RunLimits {
            max_steps: self.max_steps,
            interrupt: Some(tir::Interrupt(signal_received)),
        };
        picture::region_drawings(&self.schedule, &self.args, &self.report, &at, &limits)
            .map_err(|e| te_error(py, e))
    }
}

/// A JSON value as the Python objects `json.loads` gives.
fn json_to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<Py<PyAny>> {
    use pyo3::types::{PyDict, PyList};
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None(),
        J::Bool(b) => pyo3::types::PyBool::new(py, *b)
            .to_owned()
            .into_any()
            .unbind(),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any().unbind(),
            _ => n
                .as_f64()
                .unwrap_or(f64::NAN)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        },
        J::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        J::Array(items) => PyList::new(
            py,
            items
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any()
        .unbind(),
        J::Object(map) => {
            let d = PyDict::new(py);
            for (k, x) in map {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// The tensors of `args` (tensors or their operations), or the schedule's
/// default arguments (inputs, then outputs).
fn program_args(py: Python<'_>, s: &te::Schedule, args: Value) -> PyResult<Vec<te::Tensor>> {
    let tensors = match args {
        Value::None => s.default_args(),
        list => {
            let items = tvm_api::iter(&list)
                .ok_or_else(|| error("`lower` needs its arguments as a list of tensors"))?;
            items
                .iter()
                .map(|v| match v {
                    Value::Object(tvm_api::Object::Tensor(t)) => Ok(t.clone()),
                    _ => {
                        let op = tvm_api::get_attr(v, "op").map_err(|e| api_error(py, e))?;
                        match op {
                            Value::Object(tvm_api::Object::Op(op)) => Ok(op.output()),
                            _ => Err(error(format!(
                                "expected a tensor or its `.op`, found a {}",
                                v.type_name()
                            ))),
                        }
                    }
                })
                .collect::<PyResult<Vec<_>>>()?
        }
    };
    Ok(s.program_args(tensors))
}

/// The report of schedule `s` with `args` (default: inputs, then outputs),
/// run and checked when `run` is true, within `max_steps` loop iterations
/// and stores (default `te::DEFAULT_MAX_STEPS`). The run checks for
/// signals as it goes: Ctrl-C raises `KeyboardInterrupt` promptly. A
/// lowering the script made of the schedule as it is now is reused.
#[pyfunction]
#[pyo3(signature = (s, args=None, run=false, seed=0, max_steps=None))]
fn te_report(
    py: Python<'_>,
    s: &Bound<'_, PyAny>,
    args: Option<&Bound<'_, PyAny>>,
    run: bool,
    seed: u64,
    max_steps: Option<u64>,
) -> PyResult<Report> {
    let Value::Object(tvm_api::Object::Schedule(schedule)) = to_value(s)? else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "`report` needs a schedule (what `te.create_schedule` returns)",
        ));
    };
    let args = match args {
        Some(a) => to_value(a)?,
        None => Value::None,
    };
    let sched = schedule.borrow();
    let tensors = program_args(py, &sched, args)?;
    let earlier = with_session(|session| {
        session
            .lowered
            .iter()
            .rev()
            .find(|l| std::rc::Rc::ptr_eq(&l.schedule, &schedule))
            .map(|l| l.lowering.clone())
    });
    let options = te::ReportOptions {
        run,
        seed,
        max_steps,
        interrupt: Some(tir::Interrupt(signal_received)),
    };
    PENDING_SIGNAL.with(|p| p.borrow_mut().take());
    let result = te::run_report_reusing(&sched, &tensors, &options, earlier);
    // The exception a signal handler raised (KeyboardInterrupt for
    // Ctrl-C) is raised in place of the run's error.
    if let Some(e) = PENDING_SIGNAL.with(|p| p.borrow_mut().take()) {
        return Err(e);
    }
    result
        .map(|report| Report {
            report,
            schedule: sched.clone(),
            args: tensors,
            max_steps: max_steps.unwrap_or(te::DEFAULT_MAX_STEPS),
        })
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
