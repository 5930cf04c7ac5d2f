//! Cache stages (`s.cache_read`, `s.cache_write`): a copy of a tensor in
//! another storage scope, as a stage of its own.
//!
//! `cache_read` adds a stage that copies a tensor and makes the given
//! readers read the copy; `cache_write` moves a compute's work into a new
//! stage and leaves the original a copy of it. The original operations
//! keep their identity (see [`Operation::replaced`]): the tensors a user
//! holds still name the same stages and buffers, as TVM writes a replaced
//! stage's results to its original tensor.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::loop_index::{bound_conditions, pass_down_domain, pass_down_index, pass_up_index};
use crate::operation::{Attrs, ComputeOp, Operation, Tensor};
use crate::schedule::Schedule;
use crate::simp::simp;
use crate::thread::StorageScope;
use crate::value::{Reduce, Value, ValueKind};
use arith::Analyzer;
use arith::{Expr, Range};
use std::collections::HashMap;

impl Schedule {
    /// `s.cache_read(tensor, scope, readers)`: a new stage
    /// `<name>.<scope>` (`A.shared`) that copies `tensor` into `scope`,
    /// placed right after `tensor`'s stage; each of `readers` then reads
    /// the copy instead of `tensor`. Returns the copy. A second cache of
    /// the same tensor in the same scope is called `A.d.shared`, as in
    /// TVM. The copy's axes are `ax0, ax1, ...`.
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let aa = s.cache_read(&a, "shared", &[&b]).unwrap();
    /// assert_eq!(aa.name(), "A.shared");
    /// assert_eq!(s.stage(&b).unwrap().op().input_tensors(), vec![aa]);
    /// ```
    pub fn cache_read<R: AsRef<Operation>>(
        &mut self,
        tensor: &Tensor,
        scope: &str,
        readers: &[R],
    ) -> Result<Tensor> {
        let parsed = StorageScope::parse(scope)?;
        let source = self.stage_index(tensor.op())?;
        // Check every reader before changing anything.
        let mut rewritten = Vec::with_capacity(readers.len());
        let mut base = tensor.op().name().to_string();
        for st in self.stages() {
            if st.op().name() == format!("{base}.{scope}") {
                base.push_str(".d");
            }
        }
        let name = format!("{base}.{scope}");
        let axis: Vec<IterVar> = tensor
            .shape()
            .iter()
            .enumerate()
            .map(|(d, n)| {
                IterVar::new(
                    format!("ax{d}"),
                    Some(Range::from_extent(n.clone())),
                    IterKind::DataPar,
                )
            })
            .collect();
        let copy_body = tensor.at(axis.iter().map(IterVar::expr));
        let cache_op = Operation::new_compute(&name, "", Attrs::new(), axis, copy_body);
        let cache = cache_op.output();
        let mut calls_rewritten = Vec::new();
        for reader in readers {
            let r = self.stage_index(reader.as_ref())?;
            let op = self.stages()[r].op().clone();
            if let Some(tc) = crate::tensor_compute_of(&op) {
                // A tensor intrinsic's call passes the cache's region.
                if !tc.inputs.contains(tensor) {
                    return Err(TeError::schedule(format!(
                        "cache_read of `{}`: `{}` does not pass it to its intrinsic; pass the \
                         operations that read `{}` as readers",
                        tensor.name(),
                        op.name(),
                        tensor.name()
                    )));
                }
                let mut tc = tc.clone();
                for x in tc.inputs.iter_mut().filter(|x| *x == tensor) {
                    *x = cache.clone();
                }
                for b in &mut tc.equivalent {
                    if let Some(v) = redirect_reads(b, tensor, &cache) {
                        *b = v;
                    }
                }
                calls_rewritten
                    .push((r, op.with_kind(crate::operation::OpKind::TensorCompute(tc))));
                continue;
            }
            let Some(c) = op.as_compute() else {
                return Err(TeError::schedule(format!(
                    "cache_read of `{}`: reader `{}` is a placeholder and reads nothing",
                    tensor.name(),
                    op.name()
                )));
            };
            let body = redirect_reads(&c.body, tensor, &cache);
            // The other outputs of the reader, computed in the same nest,
            // read through the cache as well.
            let more: Vec<Option<Value>> = op.bodies()[1..]
                .iter()
                .map(|b| redirect_reads(b, tensor, &cache))
                .collect();
            if body.is_none() && more.iter().all(Option::is_none) {
                return Err(TeError::schedule(format!(
                    "cache_read of `{}`: `{}` does not read it; pass the operations that read `{}` as readers",
                    tensor.name(),
                    op.name(),
                    tensor.name()
                )));
            }
            let c = c.clone();
            rewritten.push((r, op, c, body, more));
        }
        for (r, op, c, body, more) in rewritten {
            let body = body.unwrap_or_else(|| c.body.clone());
            let replaced = op.replaced_all(ComputeOp { body, ..c }, more);
            self.replace_op(r, replaced, false);
        }
        for (r, replaced) in calls_rewritten {
            self.replace_op(r, replaced, false);
        }
        let at = self.insert_stage(source + 1, cache_op.clone());
        self.set_stage_scope(at, parsed);
        self.join_group_of(tensor.op(), &cache_op);
        Ok(cache)
    }

    /// `s.cache_write(tensor, scope)`: moves the computation of `tensor`
    /// into a new stage `<name>.<scope>` (`C.local`, axes `i.c, j.c`, the
    /// reduction if any), placed right before it; `tensor`'s stage becomes
    /// a copy of the new one, with its loops reset to its axes. Returns the
    /// new stage's tensor.
    ///
    /// As in TVM, the new stage has one axis per data loop of `tensor`'s
    /// stage, in loop order, over that loop's range: a `reorder` before the
    /// call transposes the cache, a split of `i` gives it axes
    /// `i.outer.c, i.inner.c` (with a condition when the split does not
    /// divide). Loops that run reduction axes must not have been split or
    /// fused. An operation with several outputs is cached whole, through
    /// [`Schedule::cache_write_outputs`].
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([4, 8], "A", DataType::Float32).unwrap();
    /// let k = te::reduce_axis((0, 8), "k");
    /// let c = te::compute_named([4], &["i"], |i| te::sum(a.at([&i[0], &k.expr()]), &[k.clone()]), "C").unwrap();
    /// let mut s = te::create_schedule(&[c.clone()]);
    /// let cl = s.cache_write(&c, "local").unwrap();
    /// assert_eq!(cl.name(), "C.local");
    /// assert_eq!(cl.op().axis()[0].name(), "i.c");
    /// assert_eq!(cl.op().reduce_axis(), &[k]);
    /// assert!(s.stage(&c).unwrap().op().reduce_axis().is_empty());
    /// ```
    pub fn cache_write(&mut self, tensor: &Tensor, scope: &str) -> Result<Tensor> {
        let op = tensor.op();
        if op.num_outputs() > 1 {
            return Err(TeError::schedule(format!(
                "cache_write of `{}`, one output of `{}`, which has {}: pass every output of the \
                 operation as a list, in order",
                tensor.name(),
                op.name(),
                op.num_outputs()
            )));
        }
        let mut outputs = self.cache_write_all(tensor, scope, false)?;
        Ok(outputs.swap_remove(0))
    }

    /// [`Schedule::cache_write`] of `tensor`'s operation; with `every`, of
    /// each of its outputs (the cache has as many, returned in order),
    /// else of its first.
    fn cache_write_all(
        &mut self,
        tensor: &Tensor,
        scope: &str,
        every: bool,
    ) -> Result<Vec<Tensor>> {
        let parsed = StorageScope::parse(scope)?;
        let i = self.stage_index(tensor.op())?;
        let st = &self.stages()[i];
        let op = st.op().clone();
        if crate::tensor_compute_of(&op).is_some() {
            return self.cache_write_calls(i, parsed, scope);
        }
        let Some(c) = op.as_compute() else {
            return Err(TeError::schedule(format!(
                "cache_write of `{}`: it is a placeholder; cache_write applies to computed tensors (use cache_read for inputs)",
                tensor.name()
            )));
        };
        // TVM's relayout: one cache axis per data loop, in loop order, over
        // the loop's range; the definition reads the axes it had through
        // the splits and fuses of those loops.
        let mut an = Analyzer::new();
        let mut dom: HashMap<IterVar, Range> = HashMap::new();
        for iv in &c.axis {
            let d = iv.dom().cloned().expect("compute axes have domains");
            an.bind(iv.var(), d.clone());
            dom.insert(iv.clone(), d);
        }
        pass_down_domain(st, &mut dom, &an);
        let loops: Vec<IterVar> = st
            .leaf_iter_vars()
            .iter()
            .filter(|iv| !c.reduce_axis.contains(iv))
            .cloned()
            .collect();
        if let Some(l) = loops
            .iter()
            .find(|l| l.kind() != IterKind::DataPar || !dom.contains_key(*l))
        {
            return Err(TeError::schedule(format!(
                "cache_write of `{}`: its loop `{}` runs a reduction axis; only data loops can be relaid out (as in TVM): call cache_write before splitting or fusing the reduction",
                tensor.name(),
                l.name()
            )));
        }
        let new_axis: Vec<IterVar> = loops
            .iter()
            .map(|iv| {
                IterVar::new(
                    format!("{}.c", iv.name()),
                    Some(dom[iv].clone()),
                    IterKind::DataPar,
                )
            })
            .collect();
        let mut value: HashMap<IterVar, Expr> = loops
            .iter()
            .zip(&new_axis)
            .map(|(l, n)| (l.clone(), n.expr()))
            .collect();
        pass_up_index(st, &dom, &mut value);
        let mut leaf_an = Analyzer::new();
        for n in &new_axis {
            leaf_an.bind(n.var(), n.dom().cloned().expect("given above"));
        }
        let (conditions, subst) = bound_conditions(&c.axis, &value, &leaf_an);
        let relaid = |b: &Value| {
            guarded(
                b.substitute(&mut |v| subst.get(v).cloned()),
                conditions.clone(),
            )
        };
        let body = relaid(&c.body);
        let more: Vec<Value> = if every {
            op.bodies()[1..].iter().map(|b| relaid(b)).collect()
        } else {
            Vec::new()
        };
        // The copy reads the cache at the loops' values of its axes.
        let mut at: HashMap<IterVar, Expr> = c.axis.iter().map(|a| (a.clone(), a.expr())).collect();
        pass_down_index(st, &dom, &mut at);
        let args: Vec<Expr> = loops.iter().map(|l| simp(&an, at[l].clone())).collect();
        let name = format!("{}.{scope}", op.name());
        let cache_op = Operation::new_compute(&name, op.tag(), op.attrs().clone(), new_axis, body)
            .with_more_outputs(more);
        let caches = cache_op.outputs();
        let copies: Vec<Option<Value>> = caches[1..]
            .iter()
            .map(|t| Some(t.at(args.clone())))
            .collect();
        let replaced = op.replaced_all(
            ComputeOp {
                axis: c.axis.clone(),
                reduce_axis: Vec::new(),
                body: caches[0].at(args),
            },
            copies,
        );
        self.replace_op(i, replaced, true);
        let at = self.insert_stage(i, cache_op.clone());
        self.set_stage_scope(at, parsed);
        self.join_group_of(tensor.op(), &cache_op);
        Ok(caches)
    }

    /// `s.cache_write([t0, t1, ...], scope)`: the list form, for the
    /// outputs of one operation: one output alone, or every output of the
    /// operation in order, which the cache computes in one nest (its
    /// outputs `<name>.<scope>.v0`, ... returned in order).
    pub fn cache_write_outputs(&mut self, tensors: &[Tensor], scope: &str) -> Result<Vec<Tensor>> {
        match tensors {
            [t] if t.op().num_outputs() == 1 => Ok(vec![self.cache_write(t, scope)?]),
            [] => Err(TeError::schedule(
                "cache_write of an empty list: pass the outputs of one operation".to_string(),
            )),
            [first, rest @ ..] => {
                // (One tensor of an operation of several: refused below.)
                if let Some(other) = rest.iter().find(|t| t.op() != first.op()) {
                    return Err(TeError::schedule(format!(
                        "cache_write of a list: `{}` and `{}` are not outputs of one operation",
                        first.name(),
                        other.name()
                    )));
                }
                let op = first.op();
                let in_order = tensors.len() == op.num_outputs()
                    && tensors
                        .iter()
                        .enumerate()
                        .all(|(k, t)| t.value_index() == k);
                if !in_order {
                    return Err(TeError::schedule(format!(
                        "cache_write of {} tensors of `{}`: pass every output of the operation \
                         ({}), in order",
                        tensors.len(),
                        op.name(),
                        op.num_outputs()
                    )));
                }
                self.cache_write_all(first, scope, true)
            }
        }
    }
}

/// `body` computed only where `conditions` hold (TVM's
/// `InjectPredicate`): a reduction takes them into its condition, any
/// other body is zero elsewhere.
fn guarded(body: Value, conditions: Vec<Expr>) -> Value {
    let Some(cond) = conditions.into_iter().reduce(Expr::and) else {
        return body;
    };
    match body.as_reduce() {
        Some(r) => {
            let condition = Some(match &r.condition {
                Some(c) => Expr::and(c.clone(), cond),
                None => cond,
            });
            Value::new(ValueKind::Reduce(Reduce {
                condition,
                ..r.clone()
            }))
        }
        None => {
            let zero = if body.dtype().is_float() {
                Value::float(0.0)
            } else {
                Value::int(0)
            };
            let zero = if zero.dtype() == body.dtype() {
                zero
            } else {
                Value::cast(body.dtype(), zero)
            };
            Value::select(cond, body, zero)
        }
    }
}

/// `body` with every read of `from` (load or gather) reading `to` at the
/// same indices; `None` when `body` does not read `from`.
impl Schedule {
    /// `cache_write` of tensor compute stage `i`: the calls move to a new
    /// tensor compute stage `<name>.<scope>` (axes `i.c`, the intrinsic's
    /// axes kept), and stage `i` copies from it over every axis, as TVM's
    /// `CacheWriteWithReLayoutTensor` does. The stage's loops must not have
    /// been transformed yet.
    fn cache_write_calls(
        &mut self,
        i: usize,
        parsed: StorageScope,
        scope: &str,
    ) -> Result<Vec<Tensor>> {
        let st = &self.stages()[i];
        let op = st.op().clone();
        let tc = crate::tensor_compute_of(&op).expect("a tensor compute stage");
        if !st.relations().is_empty() {
            return Err(TeError::schedule(format!(
                "cache_write of `{}`: its loops were split, fused or reordered already; call \
                 cache_write first",
                op.name()
            )));
        }
        let axis: Vec<IterVar> = tc
            .axis
            .iter()
            .enumerate()
            .map(|(d, a)| {
                let name = if d < tc.schedulable_ndim {
                    format!("{}.c", a.name())
                } else {
                    a.name().to_string()
                };
                IterVar::new(name, a.dom().cloned(), IterKind::DataPar)
            })
            .collect();
        let map: HashMap<arith::Var, Expr> = tc
            .axis
            .iter()
            .zip(&axis)
            .map(|(a, b)| (a.var().clone(), b.expr()))
            .collect();
        let sub = |e: &Expr| e.substitute(&mut |v| map.get(v).cloned());
        let mut cached = tc.clone();
        cached.axis = axis;
        cached.regions = tc
            .regions
            .iter()
            .map(|reg| {
                reg.iter()
                    .map(|r| Range::new(sub(&r.min), sub(&r.extent)))
                    .collect()
            })
            .collect();
        cached.scalar_inputs = tc.scalar_inputs.iter().map(sub).collect();
        cached.binding = tc
            .binding
            .iter()
            .map(|(v, e)| (v.clone(), sub(e)))
            .collect();
        cached.equivalent = tc
            .equivalent
            .iter()
            .map(|b| b.substitute(&mut |v| map.get(v).cloned()))
            .collect();
        let cache_op = crate::operation::new_multi_output_op(
            &format!("{}.{scope}", op.name()),
            vec![(op.shape().to_vec(), op.dtype())],
            crate::operation::OpKind::TensorCompute(cached),
        );
        let cache = cache_op.output();
        let copy = ComputeOp {
            axis: tc.axis.clone(),
            reduce_axis: Vec::new(),
            body: cache.at(tc.axis.iter().map(IterVar::expr)),
        };
        self.replace_op(i, op.replaced(copy), true);
        let at = self.insert_stage(i, cache_op.clone());
        self.set_stage_scope(at, parsed);
        self.join_group_of(&op, &cache_op);
        Ok(vec![cache])
    }
}

fn redirect_reads(body: &Value, from: &Tensor, to: &Tensor) -> Option<Value> {
    let found = std::cell::Cell::new(false);
    let v = body.rewrite_reads(
        &mut |e| e.clone(),
        &mut |t, idx| {
            (t == from).then(|| {
                found.set(true);
                to.at(idx.to_vec())
            })
        },
        &mut |t, idx| {
            (t == from).then(|| {
                found.set(true);
                Value::gather(to, idx.to_vec())
            })
        },
    );
    found.get().then_some(v)
}
