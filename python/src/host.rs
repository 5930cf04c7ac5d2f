//! The Python interpreter as `tvm_api`'s [`Host`]: it calls the Python
//! functions a program passes to the API (a compute's lambda) and holds
//! the session of the process.

use crate::error::api_error;
use crate::object::{to_py, to_value, PyValue};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::cell::RefCell;
use tvm_api::{ApiError, Args, ErrorClass, Host, Parameters, Session, Value};

thread_local! {
    /// The session of this thread's Python programs, while no API call
    /// holds it.
    static SESSION: RefCell<Session> = RefCell::new(Session::default());
}

/// Runs `f` on this thread's session.
pub fn with_session<R>(f: impl FnOnce(&mut Session) -> R) -> R {
    SESSION.with(|s| f(&mut s.borrow_mut()))
}

/// The host of one API call.
struct PyHost<'py> {
    py: Python<'py>,
    session: Session,
    /// The Python exception a callback raised, re-raised as it was.
    raised: Option<PyErr>,
}

impl PyHost<'_> {
    fn call_python(&mut self, f: &PyValue, args: Args) -> PyResult<Value> {
        let positional = args
            .positional
            .into_iter()
            .map(|a| to_py(self.py, a))
            .collect::<PyResult<Vec<_>>>()?;
        let keywords = PyDict::new(self.py);
        for (name, v) in args.keywords {
            keywords.set_item(name, to_py(self.py, v)?)?;
        }
        let kwargs = (!keywords.is_empty()).then_some(&keywords);
        let result = f
            .obj
            .bind(self.py)
            .call(PyTuple::new(self.py, positional)?, kwargs)?;
        to_value(&result)
    }

    /// Calls `f` (a Python function) with the session where a callback
    /// finds it.
    fn call_host(&mut self, f: &Value, args: Args) -> Result<Value, ApiError> {
        let Some(func) = f.as_host::<PyValue>() else {
            return Err(ApiError::type_error(format!(
                "a {} cannot be called",
                f.type_name()
            )));
        };
        // The callback may call the API again: it finds the session where
        // it is between calls.
        SESSION.with(|s| *s.borrow_mut() = std::mem::take(&mut self.session));
        let result = self.call_python(func, args);
        self.session = SESSION.with(|s| std::mem::take(&mut *s.borrow_mut()));
        result.map_err(|e| {
            self.raised = Some(e);
            ApiError::new(ErrorClass::Host, "")
        })
    }
}

impl Host for PyHost<'_> {
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Result<Value, ApiError> {
        self.call_host(f, Args::positional(args))
    }

    /// Keywords reach the Python function as keywords (a decorated
    /// function called as `f(x, axis=1)`).
    fn call_args(&mut self, f: &Value, args: Args) -> Result<Value, ApiError> {
        self.call_host(f, args)
    }

    fn parameters(&self, f: &Value) -> Option<Parameters> {
        const CO_VARARGS: u32 = 0x04;
        let func = f.as_host::<PyValue>()?;
        let code = func.obj.bind(self.py).getattr("__code__").ok()?;
        let argcount: usize = code.getattr("co_argcount").ok()?.extract().ok()?;
        let flags: u32 = code.getattr("co_flags").ok()?.extract().ok()?;
        let names: Vec<String> = code.getattr("co_varnames").ok()?.extract().ok()?;
        Some(Parameters {
            names: names.into_iter().take(argcount).collect(),
            varargs: flags & CO_VARARGS != 0,
        })
    }

    fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The source of a Python function, as `inspect.getsource` reads it
    /// (dedented), starting on the function's first line.
    fn hybrid_source(&mut self, f: &Value) -> Result<tvm_api::HybridSource, ApiError> {
        let not_found = |why: String| {
            ApiError::type_error(format!("the source of a hybrid function is not available: {why}"))
        };
        let func = f
            .as_host::<PyValue>()
            .ok_or_else(|| not_found(format!("a {} is not a Python function", f.type_name())))?;
        let obj = func.obj.bind(self.py);
        let read = || -> PyResult<(String, usize)> {
            let inspect = self.py.import("inspect")?;
            let textwrap = self.py.import("textwrap")?;
            let text = inspect.call_method1("getsource", (obj,))?;
            let text: String = textwrap.call_method1("dedent", (text,))?.extract()?;
            let first: usize = obj.getattr("__code__")?.getattr("co_firstlineno")?.extract()?;
            Ok((text, first.saturating_sub(1)))
        };
        let (text, line_base) = read().map_err(|e| not_found(e.to_string()))?;
        tvm_api::HybridSource::parse(&text, line_base)
    }

    /// A module of the package (`rangefinder.tvm.script.tir`) by its TVM
    /// path.
    fn module_path(&mut self, v: &Value) -> Option<String> {
        if let Value::Object(tvm_api::Object::Module(path)) = v {
            return Some(path.to_string());
        }
        let obj = v.as_host::<PyValue>()?.obj.bind(self.py);
        if !obj.is_instance_of::<pyo3::types::PyModule>() {
            return None;
        }
        let name: String = obj.getattr("__name__").ok()?.extract().ok()?;
        name.strip_prefix("rangefinder.").map(str::to_string)
    }

    /// A name a Python function closes over, or one of its globals.
    fn free_variable(&mut self, f: &Value, name: &str) -> Option<Value> {
        let func = f.as_host::<PyValue>()?;
        let obj = func.obj.bind(self.py);
        let code = obj.getattr("__code__").ok()?;
        let freevars: Vec<String> = code.getattr("co_freevars").ok()?.extract().ok()?;
        let found = match freevars.iter().position(|v| v == name) {
            Some(k) => obj
                .getattr("__closure__")
                .ok()?
                .get_item(k)
                .ok()?
                .getattr("cell_contents")
                .ok()?,
            None => obj.getattr("__globals__").ok()?.get_item(name).ok()?,
        };
        // A hybrid function (or module) of the package stands for the
        // API's, which a hybrid script calling it inlines.
        let found = found.getattr("__rangefinder_hybrid__").unwrap_or(found);
        to_value(&found).ok()
    }

    fn index_map(&self, v: &Value) -> Option<layout::IndexMap> {
        let obj = v.as_host::<PyValue>()?;
        obj.obj
            .bind(self.py)
            .extract::<PyRef<'_, crate::layout_api::IndexMap>>()
            .ok()
            .map(|m| m.map.clone())
    }
}

/// Runs one API call with this thread's session; an error becomes the
/// Python exception of its class, or the exception a callback raised.
pub fn with_host<R>(
    py: Python<'_>,
    f: impl FnOnce(&mut dyn Host) -> Result<R, ApiError>,
) -> PyResult<R> {
    let mut host = PyHost {
        py,
        session: SESSION.with(|s| std::mem::take(&mut *s.borrow_mut())),
        raised: None,
    };
    let result = f(&mut host);
    // Reports need the last schedule and the last lowering only; earlier
    // ones are dropped so that a long-running process does not keep every
    // schedule it ever built.
    let session = &mut host.session;
    let keep = |n: usize| n.saturating_sub(1);
    session.schedules.drain(..keep(session.schedules.len()));
    session.lowered.drain(..keep(session.lowered.len()));
    SESSION.with(|s| *s.borrow_mut() = host.session);
    result.map_err(|e| match (e.class, host.raised) {
        (ErrorClass::Host, Some(raised)) => raised,
        (_, _) => api_error(py, e),
    })
}
