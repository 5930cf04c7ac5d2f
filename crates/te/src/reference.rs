//! Direct evaluation of compute definitions: the oracle lowered programs
//! are checked against.
//!
//! Evaluation is on demand and memoised, so the number of memoised
//! elements of a tensor is the number of its elements the outputs actually
//! need, which measures over-computation of a schedule.

use crate::error::{Result, TeError};
use crate::operation::{OpId, Operation};
use crate::value::{Value, ValueKind};
use arith::Var;
use std::collections::HashMap;
use tir::DataType;

/// Evaluates tensors element by element from their definitions.
pub struct Reference<'a> {
    inputs: &'a HashMap<OpId, tir::Tensor>,
    sizes: &'a HashMap<Var, i64>,
    memo: HashMap<OpId, HashMap<Vec<i64>, f64>>,
}

/// Rounds to the precision of `dtype`, as the interpreter stores values.
fn round(x: f64, dtype: DataType) -> f64 {
    dtype.round(x)
}

impl<'a> Reference<'a> {
    /// An evaluator over the given input tensors (by placeholder) and sizes.
    pub fn new(
        inputs: &'a HashMap<OpId, tir::Tensor>,
        sizes: &'a HashMap<Var, i64>,
    ) -> Reference<'a> {
        Reference {
            inputs,
            sizes,
            memo: HashMap::new(),
        }
    }

    /// How many distinct elements of `op` were needed so far.
    pub fn needed(&self, op: &Operation) -> u64 {
        self.memo.get(&op.id()).map_or(0, |m| m.len() as u64)
    }

    /// The element of `op` at `idx`.
    pub fn element(&mut self, op: &Operation, idx: &[i64]) -> Result<f64> {
        let shape = self.shape(op)?;
        if idx.len() != shape.len() || idx.iter().zip(&shape).any(|(&i, &n)| i < 0 || i >= n) {
            return Err(TeError::definition(format!(
                "the definitions read `{}` at {idx:?}, outside its shape {shape:?}",
                op.name()
            )));
        }
        let Some(c) = op.as_compute() else {
            let t = self.inputs.get(&op.id()).ok_or_else(|| {
                TeError::definition(format!("no input values for placeholder `{}`", op.name()))
            })?;
            let at: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
            return Ok(t.get(&at).unwrap_or(0.0));
        };
        if let Some(v) = self.memo.get(&op.id()).and_then(|m| m.get(idx)) {
            return Ok(*v);
        }
        let mut env: HashMap<Var, i64> = self.sizes.clone();
        for (a, &i) in c.axis.iter().zip(idx) {
            env.insert(a.var().clone(), i);
        }
        let body = c.body.clone();
        let v = round(self.value(&body, &mut env)?, op.dtype());
        self.memo
            .entry(op.id())
            .or_default()
            .insert(idx.to_vec(), v);
        Ok(v)
    }

    /// The concrete shape of `op`.
    pub fn shape(&self, op: &Operation) -> Result<Vec<i64>> {
        op.shape()
            .iter()
            .map(|d| {
                d.eval(&|v: &Var| self.sizes.get(v).copied()).map_err(|e| {
                    TeError::definition(format!(
                        "size of `{}`: {} (give every size a value)",
                        op.name(),
                        e.message
                    ))
                })
            })
            .collect()
    }

    fn index(&self, e: &arith::Expr, env: &HashMap<Var, i64>) -> Result<i64> {
        Ok(e.eval(&|v: &Var| env.get(v).copied())?)
    }

    fn value(&mut self, v: &Value, env: &mut HashMap<Var, i64>) -> Result<f64> {
        tir::stack::grow(|| self.value_step(v, env))
    }

    /// One level of [`Self::value`], on the stack [`tir::stack::grow`] left room on.
    fn value_step(&mut self, v: &Value, env: &mut HashMap<Var, i64>) -> Result<f64> {
        let dtype = v.dtype();
        Ok(match v.kind() {
            ValueKind::Float(x) => *x,
            ValueKind::Index(e) => self.index(e, env)? as f64,
            ValueKind::Load(t, idx) => {
                let at = idx
                    .iter()
                    .map(|e| self.index(e, env))
                    .collect::<Result<Vec<i64>>>()?;
                self.element(t.op(), &at)?
            }
            ValueKind::Neg(a) => -self.value(a, env)?,
            ValueKind::Binary(op, a, b) => {
                // Operands take the operation's type first, as in the
                // lowered program (a literal next to float32 is float32).
                let (x, y) = (
                    round(self.value(a, env)?, dtype),
                    round(self.value(b, env)?, dtype),
                );
                let r = op.apply(x, y, dtype.is_int()).ok_or_else(|| {
                    TeError::definition(format!("integer division by zero in `{v}`"))
                })?;
                round(r, dtype)
            }
            ValueKind::Call(op, args) => {
                let xs = args
                    .iter()
                    .map(|a| Ok(round(self.value(a, env)?, dtype)))
                    .collect::<Result<Vec<f64>>>()?;
                let r = op.apply(&xs).ok_or_else(|| {
                    TeError::definition(format!("`{op}` takes {} argument(s)", op.arity()))
                })?;
                round(r, dtype)
            }
            ValueKind::Cmp(op, a, b) => {
                let t = a.dtype().promote(b.dtype());
                let (x, y) = (round(self.value(a, env)?, t), round(self.value(b, env)?, t));
                op.apply(x, y) as i64 as f64
            }
            ValueKind::And(a, b) => {
                (self.value(a, env)? != 0.0 && self.value(b, env)? != 0.0) as i64 as f64
            }
            ValueKind::Or(a, b) => {
                (self.value(a, env)? != 0.0 || self.value(b, env)? != 0.0) as i64 as f64
            }
            ValueKind::Not(a) => (self.value(a, env)? == 0.0) as i64 as f64,
            ValueKind::Cast(t, a) => {
                let x = self.value(a, env)?;
                if *t == DataType::Bool {
                    (x != 0.0) as i64 as f64
                } else if t.is_float() {
                    round(x, *t)
                } else {
                    x.trunc()
                }
            }
            ValueKind::SelectValue(c, a, b) => {
                if self.value(c, env)? != 0.0 {
                    self.value(a, env)?
                } else {
                    self.value(b, env)?
                }
            }
            ValueKind::Gather(t, idx) => {
                let mut at = Vec::with_capacity(idx.len());
                for x in idx {
                    let v = self.value(x, env)?.trunc();
                    if !v.is_finite() || v.abs() > 1e15 {
                        return Err(TeError::definition(format!(
                            "an index of `{}` evaluates to {v}, not an integer",
                            t.name()
                        )));
                    }
                    at.push(v as i64);
                }
                self.element(t.op(), &at)?
            }
            ValueKind::Select(c, a, b) => {
                if self.index(c, env)? != 0 {
                    self.value(a, env)?
                } else {
                    self.value(b, env)?
                }
            }
            ValueKind::Reduce(r) => {
                let mut acc = r.reducer.identity(dtype);
                let mut ranges = Vec::with_capacity(r.axes.len());
                for a in &r.axes {
                    let d = a.dom().expect("reduction axes have domains");
                    ranges.push((self.index(&d.min, env)?, self.index(&d.extent, env)?));
                }
                let mut point: Vec<i64> = ranges.iter().map(|r| r.0).collect();
                if ranges.iter().all(|r| r.1 > 0) {
                    loop {
                        for (a, &x) in r.axes.iter().zip(&point) {
                            env.insert(a.var().clone(), x);
                        }
                        let take = match &r.condition {
                            Some(c) => self.index(c, env)? != 0,
                            None => true,
                        };
                        if take {
                            let x = self.value(&r.source, env)?;
                            acc = round(
                                r.reducer.combiner().apply(acc, x, false).unwrap_or(acc),
                                dtype,
                            );
                        }
                        // Next point, last axis fastest.
                        let mut k = point.len();
                        loop {
                            if k == 0 {
                                break;
                            }
                            k -= 1;
                            point[k] += 1;
                            if point[k] < ranges[k].0 + ranges[k].1 {
                                break;
                            }
                            point[k] = ranges[k].0;
                            if k == 0 {
                                k = usize::MAX;
                                break;
                            }
                        }
                        if k == usize::MAX || point.is_empty() {
                            break;
                        }
                    }
                }
                acc
            }
        })
    }
}
