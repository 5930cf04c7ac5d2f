//! A well-formedness check of a lowered program: every variable an index
//! uses is bound where it is used, by an enclosing loop, a `let` statement
//! or a `let` value around the use, or is one of the function's free
//! variables (the symbolic sizes in its parameters' shapes, plus those the
//! caller names). A program that fails it would read a variable that has
//! no value: a lowering bug, caught when the program is built rather than
//! when it is run.
//!
//! The walk uses an explicit work list, so statements nested as deep as a
//! pipeline is long (one `allocate` per stage) and values as deep as a body
//! is long are checked on any stack.

use crate::stmt::{PrimFunc, Stmt};
use crate::value::Value;
use arith::{Expr, IdMap, IdSet, Var};
use std::fmt;

/// A variable used where nothing binds it.
#[derive(Clone, Debug, PartialEq)]
pub struct UnboundVariable {
    /// The variable.
    pub var: Var,
    /// The statement that uses it, printed (its first line for loops,
    /// `let`, `if` and storage; shortened when long).
    pub stmt: String,
}

impl fmt::Display for UnboundVariable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "variable `{}` is used in `{}`, but no enclosing loop or let binds it and it is \
             not a size of the function",
            self.var.name(),
            self.stmt
        )
    }
}

impl std::error::Error for UnboundVariable {}

/// The longest statement text an [`UnboundVariable`] keeps.
const SHOWN_CHARS: usize = 200;

/// Checks that every variable `f` uses is bound where it is used, or is a
/// free variable: one in the shape of a parameter, or one `is_free` accepts.
///
/// ```
/// use arith::Var;
/// use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
/// let b = Buffer::new("B", DataType::Float32, [4i64]);
/// let (i, j) = (Var::new("i"), Var::new("j"));
/// let ok = Stmt::for_range(&i, 0, 4, Stmt::store(&b, [i.expr()], Value::f32(1.0)));
/// assert!(tir::verify_bound_vars(&PrimFunc::new("f", vec![b.clone()], ok), &|_| false).is_ok());
/// let bad = Stmt::for_range(&i, 0, 4, Stmt::store(&b, [j.expr()], Value::f32(1.0)));
/// let err = tir::verify_bound_vars(&PrimFunc::new("f", vec![b], bad), &|_| false).unwrap_err();
/// assert_eq!(err.var, j);
/// assert_eq!(err.stmt, "B[j] = 1.000000f");
/// ```
pub fn verify_bound_vars(
    f: &PrimFunc,
    is_free: &dyn Fn(&Var) -> bool,
) -> Result<(), UnboundVariable> {
    let mut sizes: IdSet<Var> = IdSet::default();
    for p in &f.params {
        for d in p.shape() {
            d.for_each_var(&mut |v| {
                sizes.insert(v.clone());
            });
        }
    }
    let mut scope = Scope {
        bound: IdMap::default(),
        sizes,
        is_free,
    };
    let mut work: Vec<Work> = vec![Work::Stmt(&f.body)];
    let mut binders: Vec<&Var> = Vec::new();
    while let Some(w) = work.pop() {
        let s = match w {
            Work::Stmt(s) => s,
            Work::Unbind => {
                let v = binders.pop().expect("one binder per unbind");
                scope.unbind(v);
                continue;
            }
        };
        let at = || header(s);
        match s {
            Stmt::For {
                var,
                min,
                extent,
                body,
                ..
            } => {
                scope.check_expr(min, &at)?;
                scope.check_expr(extent, &at)?;
                scope.bind(var);
                binders.push(var);
                work.push(Work::Unbind);
                work.push(Work::Stmt(body));
            }
            Stmt::LetValue { var, value, body } => {
                scope.check_value(value, &at)?;
                scope.bind(var);
                binders.push(var);
                work.push(Work::Unbind);
                work.push(Work::Stmt(body));
            }
            Stmt::Let { var, value, body } => {
                scope.check_expr(value, &at)?;
                scope.bind(var);
                binders.push(var);
                work.push(Work::Unbind);
                work.push(Work::Stmt(body));
            }
            Stmt::Realize { region, body, .. } => {
                for r in region {
                    scope.check_expr(&r.min, &at)?;
                    scope.check_expr(&r.extent, &at)?;
                }
                work.push(Work::Stmt(body));
            }
            Stmt::Allocate { extents, body, .. } => {
                for e in extents {
                    scope.check_expr(e, &at)?;
                }
                work.push(Work::Stmt(body));
            }
            Stmt::Produce { body, .. } => work.push(Work::Stmt(body)),
            Stmt::TensorCall {
                args,
                scalars,
                body,
                ..
            } => {
                for r in args.iter().flat_map(|(_, region)| region) {
                    scope.check_expr(&r.min, &at)?;
                    scope.check_expr(&r.extent, &at)?;
                }
                for e in scalars {
                    scope.check_expr(e, &at)?;
                }
                work.push(Work::Stmt(body));
            }
            Stmt::BufferStore { indices, value, .. } => {
                for e in indices {
                    scope.check_expr(e, &at)?;
                }
                scope.check_value(value, &at)?;
            }
            Stmt::While { cond, body } => {
                scope.check_value(cond, &at)?;
                work.push(Work::Stmt(body));
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                scope.check_value(cond, &at)?;
                if let Some(e) = else_case {
                    work.push(Work::Stmt(e));
                }
                work.push(Work::Stmt(then_case));
            }
            Stmt::Seq(v) => work.extend(v.iter().rev().map(Work::Stmt)),
            Stmt::Evaluate(v) => scope.check_value(v, &at)?,
            Stmt::Opaque { call, .. } => {
                for a in &call.args {
                    if let crate::opaque::CallArg::Value(v) = a {
                        scope.check_value(v, &at)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// A step of the statement walk.
enum Work<'a> {
    /// Check a statement and push what it encloses.
    Stmt(&'a Stmt),
    /// Leave the innermost loop or `let` statement's binding.
    Unbind,
}

/// The variables bound at a point of the walk, with how many binders of
/// each are open (a loop may shadow another of the same variable).
struct Scope<'a> {
    bound: IdMap<Var, usize>,
    sizes: IdSet<Var>,
    is_free: &'a dyn Fn(&Var) -> bool,
}

impl Scope<'_> {
    fn bind(&mut self, v: &Var) {
        *self.bound.entry(v.clone()).or_insert(0) += 1;
    }

    fn unbind(&mut self, v: &Var) {
        if let Some(n) = self.bound.get_mut(v) {
            *n -= 1;
            if *n == 0 {
                self.bound.remove(v);
            }
        }
    }

    fn check_expr(&self, e: &Expr, at: &dyn Fn() -> String) -> Result<(), UnboundVariable> {
        let mut unbound: Option<Var> = None;
        e.for_each_var(&mut |v| {
            if unbound.is_none()
                && !self.bound.contains_key(v)
                && !self.sizes.contains(v)
                && !(self.is_free)(v)
            {
                unbound = Some(v.clone());
            }
        });
        match unbound {
            None => Ok(()),
            Some(var) => Err(UnboundVariable { var, stmt: at() }),
        }
    }

    /// Checks the indices inside `v`; a `let` value binds its variable in
    /// its body only.
    fn check_value(&mut self, v: &Value, at: &dyn Fn() -> String) -> Result<(), UnboundVariable> {
        // `None` leaves the innermost `let` value's binder.
        let mut work: Vec<Option<&Value>> = vec![Some(v)];
        let mut binders: Vec<&Var> = Vec::new();
        while let Some(w) = work.pop() {
            let Some(v) = w else {
                let var = binders.pop().expect("one binder per unbind");
                self.unbind(var);
                continue;
            };
            match v {
                Value::Float(..) | Value::Int(..) => {}
                Value::Index(e) => self.check_expr(e, at)?,
                Value::Var(var, _) => self.check_expr(&var.expr(), at)?,
                Value::Load(l) => {
                    for e in &l.indices {
                        self.check_expr(e, at)?;
                    }
                }
                Value::Binary(_, a, b)
                | Value::Cmp(_, a, b)
                | Value::And(a, b)
                | Value::Or(a, b) => {
                    work.push(Some(b));
                    work.push(Some(a));
                }
                Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => {
                    work.push(Some(a))
                }
                Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                    work.push(Some(b));
                    work.push(Some(a));
                    work.push(Some(c));
                }
                Value::Call(_, args) => work.extend(args.iter().rev().map(Some)),
                Value::Let(var, value, body) => {
                    // The value is outside the binding: push the body and
                    // the unbind first, then check the value before binding.
                    work.push(None);
                    work.push(Some(body));
                    self.check_value_then_bind(value, var, at)?;
                    binders.push(var);
                }
            }
        }
        Ok(())
    }

    fn check_value_then_bind(
        &mut self,
        value: &Value,
        var: &Var,
        at: &dyn Fn() -> String,
    ) -> Result<(), UnboundVariable> {
        // A `let` value nested in a `let` value is rare and shallow: one
        // level of recursion per nesting, on a growing stack.
        crate::stack::grow(|| self.check_value(value, at))?;
        self.bind(var);
        Ok(())
    }
}

/// The first line of `s` as printed, without what it encloses, shortened
/// to [`SHOWN_CHARS`].
fn header(s: &Stmt) -> String {
    let line = crate::print::Printer::new().header(s);
    if line.chars().count() > SHOWN_CHARS {
        let cut: String = line.chars().take(SHOWN_CHARS).collect();
        format!("{cut}...")
    } else {
        line
    }
}
