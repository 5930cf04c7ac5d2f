//! `s.rfactor(tensor, axis, factor_axis)`: factors a reduction (TVM's
//! `rfactor`).
//!
//! The loop `axis` of a reduction becomes a data axis of a new stage
//! `<name>.rf` that reduces over the other loops of the same reduction
//! axes; the original stage then reduces the factored stage over a new
//! reduction axis `<axis>.v`. A reduction over `k` split into
//! `k.outer, k.inner` and factored on `k.inner` computes `B.rf[k.inner, i]`
//! as the sum over `k.outer`, then `B[i]` as the sum of `B.rf[k.inner.v, i]`.
//! A reduction of several values with a program's reducer (an argmax's
//! `(index, value)` pairs) is factored whole: `<name>.rf` has one output
//! per value, and the stage combines them with the same reducer.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::loop_index::{bound_conditions, pass_down_domain, pass_up_index};
use crate::operation::{Attrs, ComputeOp, Operation, Tensor};
use crate::schedule::{Relation, Schedule, Stage};
use crate::value::{Reduce, Value, ValueKind};
use arith::{Analyzer, Expr, Range};
use std::collections::{HashMap, HashSet};

impl Schedule {
    /// `s.rfactor(tensor, axis, factor_axis=0)`: factors the reduction of
    /// `tensor` on its reduction loop `axis` and returns the factored
    /// tensor `<name>.rf`, whose axes are `tensor`'s with `axis` inserted
    /// at position `factor_axis` (negative counts from the end, as in
    /// TVM). `tensor`'s stage becomes a reduction of it over `<axis>.v`,
    /// with axes `ax0, ax1, ...` and its loops reset.
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([64], "A", DataType::Float32).unwrap();
    /// let k = te::reduce_axis((0, 64), "k");
    /// let b = te::compute_named([1], &["i"], |_| te::sum(a.at([k.expr()]), &[k.clone()]), "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let (_ko, ki) = s.split(&b, &k, 16).unwrap();
    /// let bf = s.rfactor(&b, &ki, 0).unwrap();
    /// assert_eq!(bf.name(), "B.rf");
    /// assert_eq!(bf.shape()[0].to_string(), "16");
    /// assert_eq!(s.stage(&b).unwrap().op().reduce_axis()[0].name(), "k.inner.v");
    /// ```
    pub fn rfactor(&mut self, tensor: &Tensor, axis: &IterVar, factor_axis: i64) -> Result<Tensor> {
        let i = self.stage_index(tensor.op())?;
        let st = &self.stages()[i];
        let op = st.op().clone();
        let fail = |why: String| {
            Err(TeError::schedule(format!(
                "rfactor of `{}` on `{}`: {why}",
                tensor.name(),
                axis.name()
            )))
        };
        let Some(c) = op.as_compute() else {
            return fail("only a computed reduction can be factored".to_string());
        };
        // A built-in reduction (`te.sum`) or a reducer's tuple reduction
        // (`te.comm_reducer`, argmax), whose outputs are factored together.
        let tuple = match c.body.kind() {
            ValueKind::CommReduce(r) => Some(r.clone()),
            _ => None,
        };
        let reduce = match (&tuple, c.body.as_reduce()) {
            (Some(_), _) => None,
            (None, Some(r)) => Some(r),
            (None, None) => return fail(format!("`{}` is not a reduction", tensor.name())),
        };
        let reduce_condition = match (&tuple, reduce) {
            (Some(t), _) => t.condition().cloned(),
            (None, Some(r)) => r.condition.clone(),
            (None, None) => None,
        };
        if axis.kind() != IterKind::Reduce {
            return fail("only a reduction loop can be factored".to_string());
        }
        if !st.leaf_iter_vars().contains(axis) {
            return fail(format!(
                "it is not a loop of `{}` (its loops are {})",
                tensor.name(),
                st.leaf_iter_vars()
                    .iter()
                    .map(|l| format!("`{}`", l.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let touched = touched_by(st, axis);
        if let Some(d) = c.axis.iter().find(|a| touched.contains(*a)) {
            return fail(format!(
                "it is fused with the data axis `{}`; factor a loop of the reduction axes only",
                d.name()
            ));
        }
        let ndim = c.axis.len() as i64;
        let pos = if factor_axis >= 0 {
            factor_axis
        } else {
            ndim + 1 + factor_axis
        };
        if !(0..=ndim).contains(&pos) {
            return fail(format!(
                "factor_axis {factor_axis} is out of range for {ndim} dimensions (use -{} to {ndim})",
                ndim + 1
            ));
        }
        let pos = pos as usize;

        // The ranges of the touched loops, from the declared domains of the
        // touched reduction axes down through their splits and fuses.
        let mut an = Analyzer::new();
        for iv in &c.reduce_axis {
            if let Some(d) = iv.dom() {
                an.bind(iv.var(), d.clone());
            }
        }
        let mut dom: HashMap<IterVar, Range> = HashMap::new();
        for iv in c.reduce_axis.iter().filter(|iv| touched.contains(*iv)) {
            let d = iv.dom().cloned().expect("reduction axes have domains");
            dom.insert(iv.clone(), d);
        }
        pass_down_domain(st, &mut dom, &an);
        let axis_dom = dom[axis].clone();
        if !axis_dom.min.is_int(0) {
            return fail(format!(
                "its range {axis_dom} does not start at 0; only a reduction domain starting at 0 can be factored"
            ));
        }
        // The value of each touched reduction axis in terms of the loops.
        let mut value: HashMap<IterVar, Expr> = HashMap::new();
        for iv in st
            .leaf_iter_vars()
            .iter()
            .filter(|iv| touched.contains(*iv))
        {
            let d = &dom[iv];
            value.insert(
                iv.clone(),
                if d.extent.is_int(1) {
                    d.min.clone()
                } else {
                    iv.expr()
                },
            );
        }
        pass_up_index(st, &dom, &mut value);
        // Conditions that keep the loops within the axes they replace, when
        // a split does not divide.
        let mut leaf_an = Analyzer::new();
        for iv in st
            .leaf_iter_vars()
            .iter()
            .filter(|iv| touched.contains(*iv))
        {
            leaf_an.bind(iv.var(), dom[iv].clone());
        }
        let touched_roots: Vec<IterVar> = c
            .reduce_axis
            .iter()
            .filter(|iv| touched.contains(*iv))
            .cloned()
            .collect();
        let (mut conditions, subst) = bound_conditions(&touched_roots, &value, &leaf_an);
        let mut rename = |e: &Expr| e.substitute(&mut |v| subst.get(v).cloned());
        if let Some(cond) = &reduce_condition {
            conditions.push(rename(cond));
        }
        let condition = conditions.into_iter().reduce(Expr::and);

        // The factored operation.
        let factored = IterVar::with_var(
            axis.var().clone(),
            Some(axis_dom.clone()),
            IterKind::DataPar,
        );
        let mut rf_axis = c.axis.clone();
        rf_axis.insert(pos, factored);
        let mut rf_reduce: Vec<IterVar> = c
            .reduce_axis
            .iter()
            .filter(|iv| !touched.contains(*iv))
            .cloned()
            .collect();
        for iv in st.leaf_iter_vars() {
            if touched.contains(iv) && iv != axis {
                rf_reduce.push(IterVar::with_var(
                    iv.var().clone(),
                    Some(dom[iv].clone()),
                    IterKind::Reduce,
                ));
            }
        }
        let rf_name = format!("{}.rf", op.name());
        let rf_op = match (&tuple, reduce) {
            (Some(t), _) => {
                let sources = t
                    .sources()
                    .iter()
                    .map(|v| v.rewrite(&mut rename, &mut |_, _| None))
                    .collect();
                let bodies = t.combiner().reduce(sources, &rf_reduce, condition)?;
                crate::operation::compute_op_on_axes(rf_axis, bodies, &rf_name, "", Attrs::new())?
            }
            (None, Some(reduce)) => {
                let source = reduce.source.rewrite(&mut rename, &mut |_, _| None);
                let rf_body = Value::new(ValueKind::Reduce(Reduce {
                    reducer: reduce.reducer,
                    source,
                    axes: rf_reduce,
                    condition,
                }));
                Operation::new_compute(&rf_name, "", Attrs::new(), rf_axis, rf_body)
            }
            (None, None) => unreachable!("checked above"),
        };
        let rf = rf_op.output();

        // The original becomes a reduction of the factored tensor.
        let new_axis: Vec<IterVar> = op
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
        let over = IterVar::new(
            format!("{}.v", axis.name()),
            Some(axis_dom),
            IterKind::Reduce,
        );
        let mut idx: Vec<Expr> = new_axis.iter().map(IterVar::expr).collect();
        idx.insert(pos, over.expr());
        let replaced = match (&tuple, reduce) {
            (Some(t), _) => {
                let sources = rf_op.outputs().iter().map(|o| o.at(idx.clone())).collect();
                let mut bodies = t
                    .combiner()
                    .reduce(sources, std::slice::from_ref(&over), None)?
                    .into_iter();
                let body = bodies.next().expect("a tuple reduction has outputs");
                op.replaced_all(
                    ComputeOp {
                        axis: new_axis,
                        reduce_axis: vec![over],
                        body,
                    },
                    bodies.map(Some).collect(),
                )
            }
            (None, Some(reduce)) => op.replaced(ComputeOp {
                axis: new_axis,
                reduce_axis: vec![over.clone()],
                body: Value::new(ValueKind::Reduce(Reduce {
                    reducer: reduce.reducer,
                    source: rf.at(idx),
                    axes: vec![over.clone()],
                    condition: None,
                })),
            }),
            (None, None) => unreachable!("checked above"),
        };
        self.replace_op(i, replaced, true);
        self.insert_stage(i, rf_op.clone());
        self.join_group_of(tensor.op(), &rf_op);
        Ok(rf)
    }
}

/// The iteration variables of `st` related to `axis` (TVM's
/// `PassUpBitMaskOr` then `PassDownBitMaskOr`): the axes it was split or
/// fused from, and everything they were split or fused into.
fn touched_by(st: &Stage, axis: &IterVar) -> HashSet<IterVar> {
    let mut t: HashSet<IterVar> = HashSet::from([axis.clone()]);
    for r in st.relations().iter().rev() {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => {
                if t.contains(outer) || t.contains(inner) {
                    t.insert(parent.clone());
                }
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                if t.contains(fused) {
                    t.insert(outer.clone());
                    t.insert(inner.clone());
                }
            }
            Relation::Singleton { .. } => {}
        }
    }
    for r in st.relations() {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => {
                if t.contains(parent) {
                    t.insert(outer.clone());
                    t.insert(inner.clone());
                }
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                if t.contains(outer) || t.contains(inner) {
                    t.insert(fused.clone());
                }
            }
            Relation::Singleton { .. } => {}
        }
    }
    t
}
