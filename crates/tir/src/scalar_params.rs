//! Scalar parameters of a float type (TVM's `te.var("bias",
//! dtype="float32")` passed to `tvm.build`): a loop-IR program reads them
//! as free [`Value::Var`]s of a float type, since nothing in the loop IR
//! binds a float variable (the block form's lowering gives its float
//! `let`s one-element buffers). A run binds them by putting each value in
//! place of its variable, so the interpreter only ever sees constants.

use crate::mutate::{walk_value, Mutator};
use crate::opaque::CallArg;
use crate::stmt::{PrimFunc, Stmt};
use crate::value::Value;
use crate::DataType;
use arith::Var;
use std::borrow::Cow;
use std::collections::HashMap;

impl PrimFunc {
    /// The float variables the body reads, in the order of their first
    /// use: the program's scalar float parameters.
    ///
    /// ```
    /// use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
    /// let b = Buffer::new("B", DataType::Float32, [1i64]);
    /// let bias = arith::Var::new("bias");
    /// let body = Stmt::store(&b, [arith::Expr::int(0)], Value::Var(bias.clone(), DataType::Float32));
    /// let f = PrimFunc::new("f", vec![b], body);
    /// assert_eq!(f.float_params(), vec![(bias, DataType::Float32)]);
    /// ```
    pub fn float_params(&self) -> Vec<(Var, DataType)> {
        let mut found: Vec<(Var, DataType)> = Vec::new();
        let mut note = |v: &Value| {
            // Values nest as deep as an expression is long: a work list.
            let mut pending = vec![v];
            while let Some(v) = pending.pop() {
                match v {
                    Value::Var(var, t) if t.is_float() => {
                        if !found.iter().any(|(seen, _)| seen == var) {
                            found.push((var.clone(), *t));
                        }
                    }
                    Value::Float(..)
                    | Value::Int(..)
                    | Value::Index(_)
                    | Value::Var(..)
                    | Value::Load(_) => {}
                    Value::Binary(_, a, b)
                    | Value::Cmp(_, a, b)
                    | Value::And(a, b)
                    | Value::Or(a, b)
                    | Value::Let(_, a, b) => pending.extend([&**b, &**a]),
                    Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => {
                        pending.push(a)
                    }
                    Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                        pending.extend([&**b, &**a, &**c])
                    }
                    Value::Call(_, args) => pending.extend(args.iter().rev()),
                }
            }
        };
        self.body.visit(&mut |s| match s {
            Stmt::LetValue { value: v, .. }
            | Stmt::BufferStore { value: v, .. }
            | Stmt::IfThenElse { cond: v, .. }
            | Stmt::Evaluate(v) => note(v),
            Stmt::Opaque { call, .. } => call.args.iter().for_each(|a| {
                if let CallArg::Value(v) = a {
                    note(v)
                }
            }),
            _ => {}
        });
        found
    }

    /// This program with each scalar float parameter replaced by its value
    /// in `values`, rounded to the parameter's type. A parameter without a
    /// value is returned as the error.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
    /// let b = Buffer::new("B", DataType::Float32, [1i64]);
    /// let bias = arith::Var::new("bias");
    /// let body = Stmt::store(&b, [arith::Expr::int(0)], Value::Var(bias.clone(), DataType::Float32));
    /// let f = PrimFunc::new("f", vec![b.clone()], body);
    /// let bound = f.bind_float_params(&HashMap::from([(bias, 2.5)])).unwrap();
    /// let out = tir::run(&bound, &HashMap::new(), &HashMap::new()).unwrap();
    /// assert_eq!(out.tensor(&b).unwrap().data(), &[2.5]);
    /// ```
    pub fn bind_float_params(&self, values: &HashMap<Var, f64>) -> Result<Cow<'_, PrimFunc>, Var> {
        // Most programs have none: they are not copied (a deep program's
        // copy is a walk of its own).
        if let Some((v, _)) = self.float_params().into_iter().next() {
            if values.is_empty() {
                return Err(v);
            }
        } else {
            return Ok(Cow::Borrowed(self));
        }
        let body = Bind(values).stmt(&self.body)?;
        Ok(Cow::Owned(PrimFunc::new(
            self.name.clone(),
            self.params.clone(),
            body,
        )))
    }
}

struct Bind<'a>(&'a HashMap<Var, f64>);

impl Mutator for Bind<'_> {
    type Error = Var;

    fn value(&mut self, v: &Value) -> Result<Value, Var> {
        match v {
            Value::Var(var, t) if t.is_float() => match self.0.get(var) {
                Some(x) => Ok(Value::Float(t.round(*x), *t)),
                None => Err(var.clone()),
            },
            _ => walk_value(self, v),
        }
    }
}
