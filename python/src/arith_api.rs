//! `rangefinder.simplify` and `rangefinder.Analyzer`: the arithmetic core.
//!
//! Expressions are text in the syntax `rangefinder simplify` reads
//! (`x * 4 + y // 8`, floor `//` and `%`), or `PrimExpr` objects built by
//! `rangefinder.tvm`. Ranges are half-open pairs `(lo, hi)` whose ends are
//! integers, expression text or `PrimExpr`s.

use crate::error::{error, error_at};
use crate::object::{to_py, to_value};
use crate::te_api::index_arg;
use arith::{Expr, Scope, Var};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use std::collections::HashMap;

/// Registers the functions and classes on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simplify, m)?)?;
    m.add_class::<Analyzer>()?;
    m.add_class::<ConstIntBound>()?;
    m.add_class::<ModularSet>()?;
    m.add_class::<IntervalSet>()?;
    Ok(())
}

/// `simplify(expr, ranges=None)`: the simplified expression, printed.
///
/// `ranges` maps names to half-open `(lo, hi)` pairs, as `--range
/// NAME=LO:HI` does on the command line.
#[pyfunction]
#[pyo3(signature = (expr, ranges=None))]
fn simplify(
    py: Python<'_>,
    expr: &Bound<'_, PyAny>,
    ranges: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let mut an = Analyzer::new();
    if let Some(ranges) = ranges {
        let mut bound = Vec::with_capacity(ranges.len());
        for (name, range) in ranges.iter() {
            let v = an.var(py, &name)?;
            let r = an.range(py, &range)?;
            bound.push((v, r));
        }
        // Bound together, so that ends may use variables whose ranges
        // come later.
        an.an.bind_all(&bound);
    }
    let input = an.expr(py, expr)?;
    let out = an
        .an
        .simplify(&input)
        .map_err(|e| arith_error(py, expr, e))?;
    Ok(out.to_string())
}

fn arith_error(py: Python<'_>, source: &Bound<'_, PyAny>, e: arith::ArithError) -> PyErr {
    match source.cast::<PyString>() {
        Ok(s) => error_at(py, &s.to_string(), &e.message, e.span),
        Err(_) => error(e.message),
    }
}

/// TVM's `Analyzer`: variable ranges and the questions asked under them.
///
/// Variables named in text are one variable per name within an analyzer.
#[pyclass(name = "Analyzer", module = "rangefinder")]
pub struct Analyzer {
    an: arith::Analyzer,
    scope: Scope,
}

impl Analyzer {
    fn new() -> Analyzer {
        Analyzer {
            an: arith::Analyzer::new(),
            scope: Scope::new(),
        }
    }

    /// An expression argument: text parsed in this analyzer's scope, or an
    /// expression object.
    fn expr(&mut self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Expr> {
        let Ok(text) = obj.cast::<PyString>() else {
            return index_arg(obj);
        };
        let text = text.to_cow()?;
        if let Ok(v) = text.trim().parse::<i64>() {
            return Ok(Expr::int(v));
        }
        arith::parse_in(&text, &mut self.scope).map_err(|e| error_at(py, &text, &e.message, e.span))
    }

    fn var(&mut self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Var> {
        if let Ok(s) = obj.cast::<PyString>() {
            let name = s.to_cow()?;
            let name: &str = &name;
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
                return Err(error(format!("`{name}` is not a variable name")));
            }
            return Ok(self.scope.get_or_create(name));
        }
        let e = self.expr(py, obj)?;
        let v = e
            .as_var()
            .cloned()
            .ok_or_else(|| error(format!("`{e}` is not a variable")))?;
        // A variable bound as an object is visible to text by its name.
        if self.scope.get(v.name()).is_none() {
            self.scope.insert(v.clone());
        }
        Ok(v)
    }

    /// `(lo, hi)` or `[lo, hi]` (what `json.load` gives), a `Range`, or a
    /// single value `v` (the range `[v, v + 1)`).
    fn range(&mut self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<arith::Range> {
        if let Ok(tvm_api::Value::Object(tvm_api::Object::Range(r))) = to_value(obj) {
            return Ok(r);
        }
        let items: Option<Vec<Bound<'_, PyAny>>> = if let Ok(t) = obj.cast::<PyTuple>() {
            Some(t.iter().collect())
        } else if let Ok(l) = obj.cast::<PyList>() {
            Some(l.iter().collect())
        } else {
            None
        };
        if let Some(items) = items {
            let [lo, hi] = items.as_slice() else {
                return Err(error(format!(
                    "a range is a pair (lo, hi), half-open; got {} items",
                    items.len()
                )));
            };
            let lo = self.expr(py, lo)?;
            let hi = self.expr(py, hi)?;
            return Ok(arith::Range::half_open(lo, hi));
        }
        let v = self.expr(py, obj)?;
        Ok(arith::Range::new(v, Expr::int(1)))
    }

    /// Binds `var` once; `replace` replaces whatever was known instead.
    fn bind(
        &mut self,
        py: Python<'_>,
        var: &Bound<'_, PyAny>,
        range: &Bound<'_, PyAny>,
        replace: bool,
    ) -> PyResult<()> {
        let v = self.var(py, var)?;
        if let Ok(b) = range.extract::<PyRef<'_, ConstIntBound>>() {
            let bound = b.bound();
            if replace {
                self.an.set_bound(&v, bound);
                return Ok(());
            }
            return self
                .an
                .try_update_bound(&v, bound)
                .map_err(|e| error(e.message));
        }
        let r = self.range(py, range)?;
        if replace {
            self.an.rebind(&v, r);
            Ok(())
        } else {
            self.an.try_bind(&v, r).map_err(|e| error(e.message))
        }
    }

    /// Returns text for text input and a `PrimExpr` for objects.
    fn same_kind(py: Python<'_>, input: &Bound<'_, PyAny>, e: Expr) -> PyResult<Py<PyAny>> {
        if input.cast::<PyString>().is_ok() {
            Ok(e.to_string().into_pyobject(py)?.into_any().unbind())
        } else {
            to_py(py, tvm_api::Value::Index(e))
        }
    }
}

#[pymethods]
impl Analyzer {
    #[new]
    fn py_new() -> Analyzer {
        Analyzer::new()
    }

    /// `bind(var, range, override=False)`: `var` a name or variable;
    /// `range` a half-open `(lo, hi)` or `[lo, hi]`, a `Range`, a
    /// `ConstIntBound`, or one value. A variable is bound once, as in TVM:
    /// binding it again to the same range is harmless, to a different one
    /// an error, unless `override` replaces everything known about it.
    #[pyo3(name = "bind", signature = (var, range, r#override=false))]
    fn py_bind(
        &mut self,
        py: Python<'_>,
        var: &Bound<'_, PyAny>,
        range: &Bound<'_, PyAny>,
        r#override: bool,
    ) -> PyResult<()> {
        self.bind(py, var, range, r#override)
    }

    /// `update(var, info, override=False)`: TVM's spelling of `bind` for a
    /// `ConstIntBound` (inclusive) or a range, with the same rules.
    #[pyo3(signature = (var, info, r#override=false))]
    fn update(
        &mut self,
        py: Python<'_>,
        var: &Bound<'_, PyAny>,
        info: &Bound<'_, PyAny>,
        r#override: bool,
    ) -> PyResult<()> {
        self.bind(py, var, info, r#override)
    }

    /// `text` as an expression object, its names read in this analyzer's
    /// scope (so `parse("x + 1")` uses the `x` bound here).
    fn parse(&mut self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Py<PyAny>> {
        let e = self.expr(py, text.as_any())?;
        to_py(py, tvm_api::Value::Index(e))
    }

    /// The simplified expression (text for text, `PrimExpr` for objects).
    #[pyo3(name = "simplify")]
    fn py_simplify(&mut self, py: Python<'_>, expr: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let e = self.expr(py, expr)?;
        let out = self
            .an
            .simplify(&e)
            .map_err(|err| arith_error(py, expr, err))?;
        Analyzer::same_kind(py, expr, out)
    }

    /// The proven constant bounds (`None` for an unbounded side).
    fn const_int_bound(
        &mut self,
        py: Python<'_>,
        expr: &Bound<'_, PyAny>,
    ) -> PyResult<ConstIntBound> {
        let e = self.expr(py, expr)?;
        let b = self.an.const_int_bound(&e);
        Ok(ConstIntBound {
            min_value: (b.min != arith::NEG_INF).then_some(b.min),
            max_value: (b.max != arith::POS_INF).then_some(b.max),
        })
    }

    /// Every value is `coeff * k + base`.
    fn modular_set(&mut self, py: Python<'_>, expr: &Bound<'_, PyAny>) -> PyResult<ModularSet> {
        let e = self.expr(py, expr)?;
        let m = self.an.modular_set(&e);
        Ok(ModularSet {
            coeff: m.coeff,
            base: m.base,
        })
    }

    /// Whether the condition holds for every value in the bound ranges.
    fn can_prove(&mut self, py: Python<'_>, cond: &Bound<'_, PyAny>) -> PyResult<bool> {
        let e = self.expr(py, cond)?;
        if e.ty() != arith::Type::Bool {
            return Err(PyTypeError::new_err(format!("`{e}` is not a condition")));
        }
        Ok(self.an.can_prove(&e))
    }

    /// Whether `lhs == rhs` for every value in the bound ranges (TVM's
    /// `can_prove_equal`: two constants compare, else `lhs - rhs == 0`
    /// must be provable).
    fn can_prove_equal(
        &mut self,
        py: Python<'_>,
        lhs: &Bound<'_, PyAny>,
        rhs: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let (l, r) = (self.expr(py, lhs)?, self.expr(py, rhs)?);
        if let (Some(a), Some(b)) = (l.as_int(), r.as_int()) {
            return Ok(a == b);
        }
        Ok(self
            .an
            .can_prove(&Expr::eq(Expr::sub(l, r), Expr::int(0))))
    }

    /// The set of values `expr` takes when each variable of `dom_map`
    /// ranges over its half-open `(lo, hi)` (TVM's `int_set`): inclusive
    /// `min_value` / `max_value`, `None` where unbounded.
    #[pyo3(signature = (expr, dom_map=None))]
    fn int_set(
        &mut self,
        py: Python<'_>,
        expr: &Bound<'_, PyAny>,
        dom_map: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<IntervalSet> {
        let e = self.expr(py, expr)?;
        let mut dom = HashMap::new();
        if let Some(map) = dom_map {
            for (k, v) in map.iter() {
                let var = self.var(py, &k)?;
                let r = self.range(py, &v)?;
                dom.insert(var, arith::int_set::IntSet::from_range(&r));
            }
        }
        let set = self.an.int_set(&e, &dom);
        let text = expr.cast::<PyString>().is_ok();
        let side = |x: Option<&Expr>| -> PyResult<Option<Py<PyAny>>> {
            match x {
                None => Ok(None),
                Some(x) if text => Ok(Some(x.to_string().into_pyobject(py)?.into_any().unbind())),
                Some(x) => Ok(Some(to_py(py, tvm_api::Value::Index(x.clone()))?)),
            }
        };
        Ok(IntervalSet {
            min_value: side(set.min())?,
            max_value: side(set.max())?,
            empty: set.is_nothing(),
        })
    }
}

/// Constant bounds: every value lies in `[min_value, max_value]`.
#[pyclass(frozen, get_all, name = "ConstIntBound", module = "rangefinder")]
pub struct ConstIntBound {
    min_value: Option<i64>,
    max_value: Option<i64>,
}

impl ConstIntBound {
    /// The bounds in the core's terms (`None` is infinite).
    fn bound(&self) -> arith::ConstBound {
        arith::ConstBound::new(
            self.min_value.unwrap_or(arith::NEG_INF),
            self.max_value.unwrap_or(arith::POS_INF),
        )
    }
}

#[pymethods]
impl ConstIntBound {
    /// TVM's infinite upper end: a `max_value` this large is unbounded.
    #[classattr]
    const POS_INF: i64 = i64::MAX;
    /// TVM's infinite lower end (`-POS_INF`): a `min_value` this small is
    /// unbounded.
    #[classattr]
    const NEG_INF: i64 = -i64::MAX;

    /// `ConstIntBound(min_value, max_value)`, inclusive; `None`, `NEG_INF`
    /// or `POS_INF` for an unbounded side.
    #[new]
    #[pyo3(signature = (min_value=None, max_value=None))]
    fn py_new(min_value: Option<i64>, max_value: Option<i64>) -> PyResult<ConstIntBound> {
        let min_value = min_value.filter(|&v| v > -i64::MAX);
        let max_value = max_value.filter(|&v| v < i64::MAX);
        if let (Some(lo), Some(hi)) = (min_value, max_value) {
            if lo > hi {
                return Err(error(format!(
                    "ConstIntBound({lo}, {hi}) holds no value: min_value must not exceed max_value"
                )));
            }
        }
        Ok(ConstIntBound {
            min_value,
            max_value,
        })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<'_, ConstIntBound>>()
            .is_ok_and(|o| (o.min_value, o.max_value) == (self.min_value, self.max_value))
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.min_value, self.max_value).hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        let side = |v: Option<i64>, inf: &str| v.map_or(inf.to_owned(), |v| v.to_string());
        format!(
            "ConstIntBound[{}, {}]",
            side(self.min_value, "-inf"),
            side(self.max_value, "+inf")
        )
    }
}

/// Alignment: every value is `coeff * k + base` for some integer `k`.
#[pyclass(frozen, get_all, name = "ModularSet", module = "rangefinder")]
pub struct ModularSet {
    coeff: i64,
    base: i64,
}

#[pymethods]
impl ModularSet {
    fn __repr__(&self) -> String {
        format!("ModularSet(coeff={}, base={})", self.coeff, self.base)
    }
}

/// A symbolic interval `[min_value, max_value]` (inclusive).
#[pyclass(frozen, get_all, name = "IntervalSet", module = "rangefinder")]
pub struct IntervalSet {
    min_value: Option<Py<PyAny>>,
    max_value: Option<Py<PyAny>>,
    /// Whether the set holds no value.
    empty: bool,
}

#[pymethods]
impl IntervalSet {
    fn __repr__(&self, py: Python<'_>) -> String {
        if self.empty {
            return "IntervalSet(empty)".to_owned();
        }
        let side = |v: &Option<Py<PyAny>>, inf: &str| match v {
            Some(v) => v.bind(py).str().map(|s| s.to_string()).unwrap_or_default(),
            None => inf.to_owned(),
        };
        format!(
            "IntervalSet[{}, {}]",
            side(&self.min_value, "-inf"),
            side(&self.max_value, "+inf")
        )
    }
}
