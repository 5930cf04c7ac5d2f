//! `PrimExpr`: TVM's expression objects, built by Python's operators.
//!
//! A `PrimExpr` is either an index expression (an [`arith::Expr`]: loop
//! variables, sizes, integer arithmetic, conditions) or a tensor-element
//! value (a [`te::Value`]: loads, float arithmetic, reductions). Mixing the
//! two promotes the index side to an element, as TVM's type rules do, and
//! integer arithmetic follows Python: `//` and `%` are floor operations.

use crate::error::error;
use crate::te_objects::IterVar;
use arith::{CmpOp, Expr};
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

/// What a `PrimExpr` holds.
#[derive(Clone, Debug)]
pub enum Term {
    /// An integer index expression or a condition.
    Index(Expr),
    /// A tensor-element value.
    Elem(te::Value),
}

/// An expression: `i * 4 + j`, `A[i, k] * B[k, j]`, `i < n`.
#[pyclass(
    frozen,
    skip_from_py_object,
    name = "PrimExpr",
    module = "rangefinder.tvm.tir"
)]
#[derive(Clone, Debug)]
pub struct PrimExpr {
    pub term: Term,
}

impl PrimExpr {
    /// An index expression.
    pub fn index(e: Expr) -> PrimExpr {
        PrimExpr {
            term: Term::Index(e),
        }
    }

    /// An element value (an index-valued element stays an index).
    pub fn elem(v: te::Value) -> PrimExpr {
        match v.kind() {
            te::ValueKind::Index(e) => PrimExpr::index(e.clone()),
            _ => PrimExpr {
                term: Term::Elem(v),
            },
        }
    }
}

/// The binary operators Python code applies to expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    TrueDiv,
    FloorDiv,
    Mod,
}

impl BinOp {
    fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::TrueDiv => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
        }
    }
}

/// A Python value as a term: `PrimExpr`, `IterVar` (its variable), `int`,
/// `bool` or `float`.
pub fn to_term(obj: &Bound<'_, PyAny>) -> PyResult<Term> {
    if let Ok(e) = obj.extract::<PyRef<'_, PrimExpr>>() {
        return Ok(e.term.clone());
    }
    if let Ok(iv) = obj.extract::<PyRef<'_, IterVar>>() {
        return Ok(Term::Index(iv.iv.expr()));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Term::Index(Expr::int(i64::from(obj.extract::<bool>()?))));
    }
    if obj.is_instance_of::<PyInt>() {
        let v: i64 = obj
            .extract()
            .map_err(|_| error("integer constant does not fit in 64 bits"))?;
        return Ok(Term::Index(Expr::int(v)));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Term::Elem(te::Value::float(obj.extract::<f64>()?)));
    }
    Err(PyTypeError::new_err(format!(
        "expected an expression or a number, found {}",
        type_name(obj)
    )))
}

/// An argument that must be an index expression (a loop variable, size,
/// integer or integer arithmetic on them).
pub fn to_index(obj: &Bound<'_, PyAny>) -> PyResult<Expr> {
    match to_term(obj)? {
        Term::Index(e) => Ok(e),
        Term::Elem(v) => Err(PyTypeError::new_err(format!(
            "expected an index expression, found the tensor element value `{v}`"
        ))),
    }
}

/// An argument as a tensor-element value.
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<te::Value> {
    Ok(match to_term(obj)? {
        Term::Index(e) => te::Value::index(e),
        Term::Elem(v) => v,
    })
}

/// A condition argument: a Python bool or a symbolic condition.
pub fn to_condition(obj: &Bound<'_, PyAny>) -> PyResult<Expr> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Expr::bool(obj.extract::<bool>()?));
    }
    match to_term(obj)? {
        Term::Index(e) if e.ty() == arith::Type::Bool => Ok(e),
        _ => Err(PyTypeError::new_err(format!(
            "expected a condition such as `i < n`, found {}",
            type_name(obj)
        ))),
    }
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object".to_owned())
}

/// `a op b` on terms.
pub fn binary(op: BinOp, a: Term, b: Term) -> PyResult<Term> {
    match (a, b) {
        (Term::Index(x), Term::Index(y)) => index_binary(op, x, y),
        (a, b) => {
            let (x, y) = (as_value(a), as_value(b));
            let integer = x.dtype().is_int() && y.dtype().is_int();
            let te_op = match op {
                BinOp::Add => te::BinaryOp::Add,
                BinOp::Sub => te::BinaryOp::Sub,
                BinOp::Mul => te::BinaryOp::Mul,
                BinOp::TrueDiv if !integer => te::BinaryOp::Div,
                BinOp::FloorDiv if integer => te::BinaryOp::Div,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "`{}` is not supported on {} tensor elements; use + - * and / (float) or // (int)",
                        op.symbol(),
                        if integer { "integer" } else { "float" }
                    )))
                }
            };
            Ok(Term::Elem(te::Value::binary(te_op, x, y)))
        }
    }
}

fn as_value(t: Term) -> te::Value {
    match t {
        Term::Index(e) => te::Value::index(e),
        Term::Elem(v) => v,
    }
}

fn index_binary(op: BinOp, a: Expr, b: Expr) -> PyResult<Term> {
    // Python integers fold as Python does; overflow is an error.
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        let v = match op {
            BinOp::Add => x.checked_add(y),
            BinOp::Sub => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::FloorDiv | BinOp::Mod if y == 0 => {
                return Err(error("division by zero"));
            }
            BinOp::FloorDiv => arith::num::floor_div(x, y).ok(),
            BinOp::Mod => arith::num::floor_mod(x, y).ok(),
            BinOp::TrueDiv => None,
        };
        if op != BinOp::TrueDiv {
            return v
                .map(|v| Term::Index(Expr::int(v)))
                .ok_or_else(|| error("integer overflow: the result does not fit in 64 bits"));
        }
    }
    Ok(Term::Index(match op {
        BinOp::Add => Expr::add(a, b),
        BinOp::Sub => Expr::sub(a, b),
        BinOp::Mul => Expr::mul(a, b),
        BinOp::FloorDiv => Expr::floor_div(a, b),
        BinOp::Mod => Expr::floor_mod(a, b),
        BinOp::TrueDiv => {
            return Err(PyTypeError::new_err(
                "`/` on index expressions is ambiguous; write `//` (floor division)",
            ))
        }
    }))
}

/// `a cmp b` on terms: index operands give a condition.
pub fn compare(op: CmpOp, a: Term, b: Term) -> PyResult<Term> {
    match (a, b) {
        (Term::Index(x), Term::Index(y)) => Ok(Term::Index(Expr::cmp(op, x, y))),
        _ => Err(PyTypeError::new_err(
            "comparisons of tensor elements are not supported; compare index expressions, \
             or use te.max / te.min",
        )),
    }
}

/// Decides a condition without knowing its variables.
pub fn decide(e: &Expr) -> Option<bool> {
    arith::Analyzer::new().decide(e)
}

/// The constant an index expression simplifies to, if any.
pub fn constant_value(e: &Expr) -> Option<i64> {
    e.as_int()
        .or_else(|| arith::Analyzer::new().simplify(e).ok()?.as_int())
}

fn wrap(py: Python<'_>, t: Term) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, PrimExpr { term: t })?.into_any())
}

/// The arithmetic protocol shared by `PrimExpr` and `IterVar`.
pub fn py_binary(
    py: Python<'_>,
    op: BinOp,
    lhs: Term,
    rhs: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let rhs = match to_term(rhs) {
        Ok(t) => t,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => return Ok(py.NotImplemented()),
        Err(e) => return Err(e),
    };
    let t = if reflected {
        binary(op, rhs, lhs)?
    } else {
        binary(op, lhs, rhs)?
    };
    wrap(py, t)
}

/// Rich comparison shared by `PrimExpr` and `IterVar`.
pub fn py_compare(
    py: Python<'_>,
    lhs: Term,
    rhs: &Bound<'_, PyAny>,
    op: CompareOp,
) -> PyResult<Py<PyAny>> {
    let rhs = match to_term(rhs) {
        Ok(t) => t,
        Err(e) if !e.is_instance_of::<PyTypeError>(py) => return Err(e),
        Err(_) => {
            return Ok(match op {
                CompareOp::Eq => false.into_pyobject(py)?.to_owned().into_any().unbind(),
                CompareOp::Ne => true.into_pyobject(py)?.to_owned().into_any().unbind(),
                _ => py.NotImplemented(),
            })
        }
    };
    let cmp = match op {
        CompareOp::Lt => CmpOp::Lt,
        CompareOp::Le => CmpOp::Le,
        CompareOp::Gt => CmpOp::Gt,
        CompareOp::Ge => CmpOp::Ge,
        CompareOp::Eq => CmpOp::Eq,
        CompareOp::Ne => CmpOp::Ne,
    };
    wrap(py, compare(cmp, lhs, rhs)?)
}

#[pymethods]
impl PrimExpr {
    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Add, self.term.clone(), o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Add, self.term.clone(), o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Sub, self.term.clone(), o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Sub, self.term.clone(), o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mul, self.term.clone(), o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mul, self.term.clone(), o, true)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::TrueDiv, self.term.clone(), o, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::TrueDiv, self.term.clone(), o, true)
    }
    fn __floordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::FloorDiv, self.term.clone(), o, false)
    }
    fn __rfloordiv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::FloorDiv, self.term.clone(), o, true)
    }
    fn __mod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mod, self.term.clone(), o, false)
    }
    fn __rmod__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        py_binary(py, BinOp::Mod, self.term.clone(), o, true)
    }
    fn __neg__(&self) -> PyResult<PrimExpr> {
        let t = binary(BinOp::Sub, Term::Index(Expr::int(0)), self.term.clone())?;
        Ok(PrimExpr { term: t })
    }
    fn __richcmp__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        py_compare(py, self.term.clone(), o, op)
    }

    /// `a & b` and `a | b` on conditions: logical and / or.
    fn __and__(&self, o: &Bound<'_, PyAny>) -> PyResult<PrimExpr> {
        let (a, b) = (self.condition()?, to_condition(o)?);
        Ok(PrimExpr::index(Expr::and(a, b)))
    }
    fn __or__(&self, o: &Bound<'_, PyAny>) -> PyResult<PrimExpr> {
        let (a, b) = (self.condition()?, to_condition(o)?);
        Ok(PrimExpr::index(Expr::or(a, b)))
    }
    fn __invert__(&self) -> PyResult<PrimExpr> {
        Ok(PrimExpr::index(Expr::not(self.condition()?)))
    }

    /// A condition counts as true or false only when it holds or fails for
    /// every value of its variables; `a == b` of undecided sides compares
    /// them structurally, as TVM does.
    fn __bool__(&self) -> PyResult<bool> {
        let Term::Index(e) = &self.term else {
            return Err(PyTypeError::new_err(
                "a tensor element value has no truth value",
            ));
        };
        if let Some(b) = decide(e) {
            return Ok(b);
        }
        if let arith::ExprKind::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), a, b) = e.kind() {
            return Ok((a == b) == (*op == CmpOp::Eq));
        }
        Err(error(format!(
            "cannot decide `{e}` without values for its variables; use tvm.tir.all / tvm.tir.any \
             to combine conditions"
        )))
    }

    /// Whether `other` is this very expression node (TVM's `same_as`,
    /// reference equality), not merely an equal one: the same object, the
    /// same index node, or the same variable (a variable is one node however
    /// often it is read). `(x + 1).same_as(x + 1)` is `False`; use
    /// `tvm.ir.structural_equal` for equality of separately built trees.
    fn same_as(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> bool {
        if slf.is(other) {
            return true;
        }
        let Ok(other) = other.cast::<PrimExpr>() else {
            return false;
        };
        match (&slf.get().term, &other.get().term) {
            (Term::Index(a), Term::Index(b)) => {
                a.ptr_eq(b) || matches!((a.as_var(), b.as_var()), (Some(x), Some(y)) if x == y)
            }
            _ => false,
        }
    }

    fn __hash__(&self) -> u64 {
        match &self.term {
            Term::Index(e) => e.structural_hash(),
            Term::Elem(v) => {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                v.to_string().hash(&mut h);
                h.finish()
            }
        }
    }

    fn __int__(&self) -> PyResult<i64> {
        self.int_value()
    }

    fn __index__(&self) -> PyResult<i64> {
        self.int_value()
    }

    fn __float__(&self) -> PyResult<f64> {
        match &self.term {
            Term::Elem(v) => match v.kind() {
                te::ValueKind::Float(f) => Ok(*f),
                _ => Err(PyTypeError::new_err(format!("`{v}` is not a constant"))),
            },
            Term::Index(_) => Ok(self.int_value()? as f64),
        }
    }

    /// The value of a constant (`IntImm.value`, `FloatImm.value`).
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Term::Elem(v) = &self.term {
            if let te::ValueKind::Float(f) = v.kind() {
                return Ok(f.into_pyobject(py)?.into_any().unbind());
            }
        }
        Ok(self.int_value()?.into_pyobject(py)?.into_any().unbind())
    }

    /// The name of a variable.
    #[getter]
    fn name(&self) -> PyResult<String> {
        match &self.term {
            Term::Index(e) => e
                .as_var()
                .map(|v| v.name().to_owned())
                .ok_or_else(|| error(format!("`{e}` is not a variable"))),
            Term::Elem(v) => Err(error(format!("`{v}` is not a variable"))),
        }
    }

    /// TVM's data type name: `int32` for indices, `bool` for conditions,
    /// the element type for element values.
    #[getter]
    fn dtype(&self) -> &'static str {
        match &self.term {
            Term::Index(e) if e.ty() == arith::Type::Bool => "bool",
            Term::Index(_) => "int32",
            Term::Elem(v) => v.dtype().name(),
        }
    }

    /// The expression as TVM prints it. An expression that shares
    /// subexpressions (`e = e + e`, repeated) can stand for a tree too
    /// large to write out; it is refused with an error instead of
    /// printing without end.
    fn __str__(&self) -> PyResult<String> {
        let size = match &self.term {
            Term::Index(e) => e.node_count() as u64,
            Term::Elem(v) => v.written_size(),
        };
        if size > te::MAX_BODY_NODES {
            return Err(error(format!(
                "the expression is a graph of shared subexpressions that stands for a tree of \
                 {size} or more nodes when written out, more than the {} that are printed: \
                 simplify it (which works on the graph) or print its parts",
                te::MAX_BODY_NODES
            )));
        }
        Ok(match &self.term {
            Term::Index(e) => e.to_string(),
            Term::Elem(v) => v.to_string(),
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        self.__str__()
    }
}

impl PrimExpr {
    fn int_value(&self) -> PyResult<i64> {
        match &self.term {
            Term::Index(e) => {
                constant_value(e).ok_or_else(|| error(format!("`{e}` is not a constant")))
            }
            Term::Elem(v) => Err(error(format!("`{v}` is not an integer constant"))),
        }
    }

    fn condition(&self) -> PyResult<Expr> {
        match &self.term {
            Term::Index(e) if e.ty() == arith::Type::Bool => Ok(e.clone()),
            _ => Err(PyTypeError::new_err(match self.__str__() {
                Ok(text) => format!("`{text}` is not a condition"),
                Err(_) => "the expression is not a condition".to_string(),
            })),
        }
    }
}

/// Text or an expression object: `simplify("x + 1")` and
/// `simplify(i + 1)` both work.
pub enum ExprArg {
    Text(String),
    Object(Expr),
}

impl ExprArg {
    pub fn extract(obj: &Bound<'_, PyAny>) -> PyResult<ExprArg> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(ExprArg::Text(s.to_cow()?.into_owned()));
        }
        Ok(ExprArg::Object(to_index(obj)?))
    }
}

/// Registers the functions on expressions that no front end owns.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(truncating_division, m)?)?;
    Ok(())
}

/// `truncdiv(a, b)` (`remainder` false) or `truncmod(a, b)`: C's integer
/// division, rounding toward zero, and its remainder (the sign of `a`),
/// for any divisor: a constant of either sign or an expression.
#[pyfunction]
#[pyo3(signature = (a, b, remainder=false))]
fn truncating_division(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    remainder: bool,
) -> PyResult<PrimExpr> {
    let (x, y) = (to_index(a)?, to_index(b)?);
    let e = match y.as_int() {
        Some(0) => return Err(error("truncating division by zero")),
        Some(d) => trunc_by_constant(x, d, remainder)?,
        None => trunc_by_expr(x, y, remainder),
    };
    Ok(PrimExpr::index(e))
}

/// Truncating division or remainder by a non-zero constant `d`: for
/// `d < 0`, `a / d` is `-(a / -d)` and the remainder is that of `-d`.
fn trunc_by_constant(a: Expr, d: i64, remainder: bool) -> PyResult<Expr> {
    let Some(magnitude) = d.checked_abs() else {
        return Ok(trunc_by_expr(a, Expr::int(d), remainder));
    };
    let quotient = || {
        Expr::trunc_div(a.clone(), magnitude)
            .ok_or_else(|| error("truncating division by a non-positive constant"))
    };
    Ok(match (remainder, d > 0) {
        (false, true) => quotient()?,
        (false, false) => Expr::sub(Expr::int(0), quotient()?),
        (true, _) => Expr::trunc_mod(a.clone(), magnitude)
            .ok_or_else(|| error("truncating division by a non-positive constant"))?,
    })
}

/// Truncating division or remainder by `b`, written with floor operators:
/// the floor quotient is one less than the truncated one exactly when the
/// remainder is not zero and `a` and `b` have opposite signs.
fn trunc_by_expr(a: Expr, b: Expr, remainder: bool) -> Expr {
    let zero = || Expr::int(0);
    let opposite = Expr::or(
        Expr::and(Expr::lt(a.clone(), zero()), Expr::gt(b.clone(), zero())),
        Expr::and(Expr::gt(a.clone(), zero()), Expr::lt(b.clone(), zero())),
    );
    let inexact = Expr::ne(Expr::floor_mod(a.clone(), b.clone()), zero());
    let rounds_down = Expr::and(inexact, opposite);
    if remainder {
        Expr::sub(
            Expr::floor_mod(a, b.clone()),
            Expr::select(rounds_down, b, zero()),
        )
    } else {
        Expr::add(
            Expr::floor_div(a, b),
            Expr::select(rounds_down, Expr::int(1), zero()),
        )
    }
}
