//! Scans (`te.scan`): a state tensor computed step by step along its first
//! axis. Rows `[0, init rows)` come from `init`; every later row `t` comes
//! from `update` at `t`, which reads earlier rows through the state
//! placeholder.
//!
//! As in TVM, the scan's stage has one loop, the scan axis over
//! `[init rows, rows)`; its spatial axes (one per further dimension) are no
//! loops. The stages between `update` and the state placeholder (the scan's
//! body, TVM's `ScanGetBody`) are computed at the scan axis, one step per
//! iteration, and `init` before the loop; both store into the scan's
//! buffer, and reads of the state placeholder read it.
//!
//! InferBound: a scan asks of `init` its rows `[0, init rows)` and of
//! `update` the current step, with the spatial axes whole; a scan read by
//! other stages runs from its first step to the last row they need, and
//! narrows a spatial axis to what they need only where that axis is a fix
//! point of the body ([`ScanOp::fix_points`]): every step reads the state
//! at the same position of that axis as it writes.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::{check_shape, new_multi_output_op, OpId, OpKind, Operation, Tensor};
use crate::simp::simp;
use arith::int_set::IntSet;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::{HashMap, HashSet};

/// A scan operation (TVM's `ScanOp`).
#[derive(Clone, Debug)]
pub struct ScanOp {
    /// The step axis, `{name}.idx`, over `[init rows, rows)`.
    pub scan_axis: IterVar,
    /// One axis per dimension after the first of each state, state `k`'s
    /// `{name}.out{k}.i{d}` over its whole dimension `d` (TVM's
    /// `spatial_axis_`, state after state); not loops of the scan's stage.
    pub spatial_axis: Vec<IterVar>,
    /// The first rows of each state.
    pub init: Vec<Tensor>,
    /// One step of each state: row `t` from rows before it.
    pub update: Vec<Tensor>,
    /// The placeholders the updates read the states through; output `k`
    /// of the scan is state `k`.
    pub state: Vec<Tensor>,
    /// Further inputs of the body (`inputs=`), which bound the body.
    pub inputs: Vec<Tensor>,
}

/// What a stage is to the scan that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The scan's `init`.
    Init,
    /// A stage of the scan's body (`update` or a stage it reads that reads
    /// the state).
    Body,
    /// The state placeholder, read as the scan's buffer.
    State,
}

impl ScanOp {
    /// The spatial axes of state `k`.
    pub fn spatial_of(&self, k: usize) -> &[IterVar] {
        let start: usize = self.state[..k].iter().map(|t| t.ndim() - 1).sum();
        let n = self.state.get(k).map_or(0, |t| t.ndim() - 1);
        &self.spatial_axis[start..start + n]
    }

    /// The scan axis, then the spatial axes.
    pub fn root_iter_vars(&self) -> Vec<IterVar> {
        let mut v = vec![self.scan_axis.clone()];
        v.extend(self.spatial_axis.iter().cloned());
        v
    }

    /// The operations of the body, producers first: those the updates
    /// read, directly or not, that lead to a state placeholder or one of
    /// `inputs` (TVM's `ScanGetBody`), the updates last.
    pub fn body_ops(&self) -> Vec<Operation> {
        let boundary: HashSet<OpId> = self
            .state
            .iter()
            .chain(&self.inputs)
            .map(|t| t.op().id())
            .collect();
        // Iterative post order; `reaches[op]` once all inputs are done.
        let mut reaches: HashMap<OpId, bool> = HashMap::new();
        let mut order = Vec::new();
        let mut stack: Vec<(Operation, bool)> = self
            .update
            .iter()
            .rev()
            .map(|u| (u.op().clone(), false))
            .collect();
        while let Some((op, expanded)) = stack.pop() {
            if expanded {
                let reach = op
                    .input_tensors()
                    .iter()
                    .any(|t| reaches.get(&t.op().id()).copied().unwrap_or(false));
                reaches.insert(op.id(), reach);
                if reach {
                    order.push(op);
                }
                continue;
            }
            if reaches.contains_key(&op.id()) {
                continue;
            }
            if boundary.contains(&op.id()) {
                reaches.insert(op.id(), true);
                continue;
            }
            // Provisional, so a shared input is expanded once.
            reaches.insert(op.id(), false);
            stack.push((op.clone(), true));
            for t in op.input_tensors().into_iter().rev() {
                if !reaches.contains_key(&t.op().id()) {
                    stack.push((t.op().clone(), false));
                }
            }
        }
        order
    }

    /// Per spatial axis (of every state, in [`ScanOp::spatial_axis`]
    /// order), whether it is a fix point of the body (TVM's
    /// `ScanFixPointAnalysis`): position `k` of its state flows, through
    /// indices that are exactly an axis of each stage, to position `k` of
    /// that state's update and to no other position. Only then may a
    /// consumer's region of that axis be computed alone.
    pub fn fix_points(&self) -> Vec<bool> {
        type Key = (OpId, usize);
        let mut exact: HashMap<Key, usize> = HashMap::new();
        let mut failed: HashSet<usize> = HashSet::new();
        // Position `d` of state `k` is spatial axis `offset(k) + d - 1`.
        let offsets: Vec<usize> = self
            .state
            .iter()
            .scan(0, |acc, t| {
                let start = *acc;
                *acc += t.ndim() - 1;
                Some(start)
            })
            .collect();
        for (state, &offset) in self.state.iter().zip(&offsets) {
            for d in 1..state.ndim() {
                exact.insert((state.op().id(), d), offset + d - 1);
            }
        }
        let merge =
            |exact: &mut HashMap<Key, usize>, failed: &mut HashSet<usize>, dst: Key, src: Key| {
                let Some(&s) = exact.get(&src) else { return };
                match exact.get(&dst) {
                    None => {
                        exact.insert(dst, s);
                    }
                    Some(&d) if d != s => {
                        failed.insert(d);
                        failed.insert(s);
                    }
                    Some(_) => {}
                }
            };
        for op in self.body_ops() {
            match op.kind() {
                OpKind::Compute(c) => {
                    let axis: Vec<&Var> = c.axis.iter().map(IterVar::var).collect();
                    c.body.for_each_access(&mut |t, idx| {
                        for (i, e) in idx.iter().enumerate() {
                            let src = (t.op().id(), i);
                            let at = e
                                .as_ref()
                                .and_then(Expr::as_var)
                                .and_then(|v| axis.iter().position(|a| *a == v));
                            match at {
                                Some(d) => merge(&mut exact, &mut failed, (op.id(), d), src),
                                None => {
                                    if let Some(&s) = exact.get(&src) {
                                        failed.insert(s);
                                    }
                                }
                            }
                        }
                    });
                }
                OpKind::Scan(inner) => {
                    for (update, init) in inner.update.iter().zip(&inner.init) {
                        for k in 1..update.ndim() {
                            let dst = (op.id(), k);
                            merge(&mut exact, &mut failed, dst, (update.op().id(), k));
                            merge(&mut exact, &mut failed, dst, (init.op().id(), k));
                        }
                    }
                }
                OpKind::Placeholder | OpKind::Extern(_) | OpKind::TensorCompute(_) => {}
            }
        }
        self.update
            .iter()
            .zip(&offsets)
            .flat_map(|(update, &offset)| {
                let (exact, failed) = (&exact, &failed);
                (1..update.ndim()).map(move |d| {
                    let g = offset + d - 1;
                    !failed.contains(&g) && exact.get(&(update.op().id(), d)) == Some(&g)
                })
            })
            .collect()
    }
}

/// `te.scan(init, update, state_placeholder, inputs, name)` for one state:
/// the tensor of `state`'s shape whose rows `[0, init.shape[0])` are
/// `init` and whose row `t` after them is `update` at `t`, where `update`
/// reads rows before `t` through `state`.
///
/// ```
/// use tir::DataType;
/// let (m, n) = (te::var("m"), te::var("n"));
/// let x = te::placeholder([m.expr(), n.expr()], "X", DataType::Float32).unwrap();
/// let state = te::placeholder([m.expr(), n.expr()], "s_state", DataType::Float32).unwrap();
/// let init = te::compute_named([arith::Expr::int(1), n.expr()], &["_", "i"], |i| x.at([arith::Expr::int(0), i[1].clone()]), "s_init").unwrap();
/// let update = te::compute_named([m.expr(), n.expr()], &["t", "i"], |i| {
///     state.at([i[0].clone() - 1, i[1].clone()]) + x.at([&i[0], &i[1]])
/// }, "s_update").unwrap();
/// let s_scan = te::scan(&init, &update, &state, &[x], "scan").unwrap();
/// assert_eq!(s_scan.shape().len(), 2);
/// let scan = te::scan_op(s_scan.op()).unwrap();
/// assert_eq!(scan.scan_axis.name(), "scan.idx");
/// assert_eq!(scan.scan_axis.dom().unwrap().extent.to_string(), "m - 1");
/// ```
pub fn scan(
    init: &Tensor,
    update: &Tensor,
    state: &Tensor,
    inputs: &[Tensor],
    name: &str,
) -> Result<Tensor> {
    scan_states(
        std::slice::from_ref(init),
        std::slice::from_ref(update),
        std::slice::from_ref(state),
        inputs,
        name,
    )
    .map(|op| op.output())
}

/// `te.scan([init...], [update...], [state...], inputs, name)`: a scan of
/// several states stepped together (an LSTM's cell and hidden state);
/// output `k` is state `k`, of state `k`'s shape. The states have the same
/// number of rows, and the inits the same number of first rows.
pub fn scan_states(
    init: &[Tensor],
    update: &[Tensor],
    state: &[Tensor],
    inputs: &[Tensor],
    name: &str,
) -> Result<Operation> {
    let fail = |what: String| Err(TeError::definition(format!("te.scan `{name}`: {what}")));
    if state.is_empty() || init.len() != state.len() || update.len() != state.len() {
        return fail(format!(
            "{} inits, {} updates and {} states: give one init and one update per state",
            init.len(),
            update.len(),
            state.len()
        ));
    }
    for (what, list) in [("init", init), ("update", update), ("state", state)] {
        for (k, t) in list.iter().enumerate() {
            if let Some(j) = list[..k].iter().position(|u| u.op() == t.op()) {
                return fail(format!(
                    "`{}` is {what} {j} and {what} {k}: give each state its own {}",
                    t.name(),
                    if what == "state" { "placeholder" } else { what }
                ));
            }
        }
    }
    let an = Analyzer::new();
    let equal = |a: &Expr, b: &Expr| simp(&an, Expr::sub(a.clone(), b.clone())).is_int(0);
    let first_state = &state[0];
    for (k, ((init, update), state)) in init.iter().zip(update).zip(state).enumerate() {
        let ndim = state.ndim();
        if ndim == 0 {
            return fail("the state must have at least one dimension, the scan axis".into());
        }
        if !matches!(state.op().kind(), OpKind::Placeholder) {
            return fail(format!(
                "the state `{}` must be a placeholder (`te.placeholder`) that `update` reads",
                state.name()
            ));
        }
        for (what, t) in [("init", init), ("update", update)] {
            if !matches!(t.op().kind(), OpKind::Compute(_)) {
                return fail(format!("`{what}` (`{}`) must be a `te.compute`", t.name()));
            }
        }
        if !equal(&state.shape()[0], &first_state.shape()[0]) {
            return fail(format!(
                "state {k} (`{}`) has {} rows but state 0 (`{}`) has {}: the states of a scan \
                 step together",
                state.name(),
                state.shape()[0],
                first_state.name(),
                first_state.shape()[0],
            ));
        }
        for (what, t) in [("init", init), ("update", update)] {
            if t.ndim() != ndim {
                return fail(format!(
                    "`{what}` (`{}`) has {} dimensions but the state `{}` has {ndim}",
                    t.name(),
                    t.ndim(),
                    state.name()
                ));
            }
            if t.dtype() != state.dtype() {
                return fail(format!(
                    "`{what}` (`{}`) is {} but the state `{}` is {}",
                    t.name(),
                    t.dtype(),
                    state.name(),
                    state.dtype()
                ));
            }
        }
        for d in 0..ndim {
            if !equal(&update.shape()[d], &state.shape()[d]) {
                return fail(format!(
                    "dimension {d} of `update` (`{}`) is `{}` but that of the state is `{}`: they must be equal",
                    update.name(),
                    update.shape()[d],
                    state.shape()[d]
                ));
            }
            if d > 0 && !equal(&init.shape()[d], &state.shape()[d]) {
                return fail(format!(
                    "dimension {d} of `init` (`{}`) is `{}` but that of the state is `{}`: they must be equal",
                    init.name(),
                    init.shape()[d],
                    state.shape()[d]
                ));
            }
        }
    }
    let first = init[0].shape()[0].clone();
    if let Some(t) = init.iter().find(|t| !equal(&t.shape()[0], &first)) {
        return fail(format!(
            "init `{}` has {} rows but `{}` has {first}: every init gives the same first rows",
            t.name(),
            t.shape()[0],
            init[0].name()
        ));
    }
    let rows = &state[0].shape()[0];
    let extent = simp(&an, Expr::sub(update[0].shape()[0].clone(), first.clone()));
    if let (Some(f), Some(r)) = (first.as_int(), rows.as_int()) {
        if f > r {
            return fail(format!(
                "`init` has {f} rows but the state only {r}: init gives the first rows of the state"
            ));
        }
    }
    for t in state {
        check_shape(t.shape(), name)?;
    }
    let scan_axis = IterVar::new(
        format!("{name}.idx"),
        Some(Range::new(first, extent)),
        IterKind::DataPar,
    );
    let spatial_axis = state
        .iter()
        .enumerate()
        .flat_map(|(k, t)| {
            (1..t.ndim()).map(move |d| {
                IterVar::new(
                    format!("{name}.out{k}.i{d}"),
                    Some(Range::from_extent(t.shape()[d].clone())),
                    IterKind::DataPar,
                )
            })
        })
        .collect();
    let op = ScanOp {
        scan_axis,
        spatial_axis,
        init: init.to_vec(),
        update: update.to_vec(),
        state: state.to_vec(),
        inputs: inputs.to_vec(),
    };
    let outputs = state
        .iter()
        .map(|t| (t.shape().to_vec(), t.dtype()))
        .collect();
    Ok(new_multi_output_op(name, outputs, OpKind::Scan(op)))
}

/// The scan definition of `op`, when it is a scan.
pub fn scan_op(op: &Operation) -> Option<&ScanOp> {
    match op.kind() {
        OpKind::Scan(s) => Some(s),
        _ => None,
    }
}

/// What the scan `scan` reads of `producer` (its `init` or its `update`),
/// per dimension, with the scan axis relaxed as `root_dom` says (TVM's
/// `ScanOp::PropBoundToInputs`): all of `init`'s rows, the steps of
/// `update` the scan axis takes, and the ranges `range` gives the spatial
/// axes. TVM asks for the declared spatial axes here even when a fix point
/// narrowed the scan's buffer, so its steps would write outside it; the
/// inferred ranges keep them inside.
pub(crate) fn requests(
    scan: &ScanOp,
    producer: &Operation,
    root_dom: &HashMap<Var, IntSet>,
    range: impl Fn(&IterVar) -> Option<Range>,
) -> Vec<IntSet> {
    // The state `producer` is the init or the update of.
    let k = scan
        .init
        .iter()
        .zip(&scan.update)
        .position(|(i, u)| i.op() == producer || u.op() == producer)
        .unwrap_or(0);
    let spatial = scan.spatial_of(k).iter().map(|iv| match range(iv) {
        Some(r) => IntSet::interval(
            r.min.clone(),
            Expr::sub(Expr::add(r.min, r.extent), Expr::int(1)),
        ),
        None => root_dom
            .get(iv.var())
            .cloned()
            .unwrap_or_else(IntSet::everything),
    });
    let first = if let Some(init) = scan.init.iter().find(|t| t.op() == producer) {
        IntSet::interval(
            Expr::int(0),
            Expr::sub(init.shape()[0].clone(), Expr::int(1)),
        )
    } else {
        root_dom
            .get(scan.scan_axis.var())
            .cloned()
            .unwrap_or_else(IntSet::everything)
    };
    std::iter::once(first).chain(spatial).collect()
}

/// The ranges of a scan read by other stages, from what they read of it
/// (`requests`, per dimension, already cut to the shape; TVM's
/// `ScanOp::GatherBound`): the scan axis from its first step to the last
/// row read; a spatial axis narrowed to what is read only when it is a fix
/// point, else whole.
pub(crate) fn gather_bound(
    scan: &ScanOp,
    requests: &[Vec<IntSet>],
    an: &Analyzer,
) -> Vec<(IterVar, Range)> {
    let union = |sets: &[IntSet]| -> Option<(Expr, Expr)> {
        let mut acc: Option<IntSet> = None;
        for s in sets {
            acc = Some(match acc {
                None => s.clone(),
                Some(a) => a.union(s, an),
            });
        }
        let acc = acc?;
        Some((acc.min()?.clone(), acc.max()?.clone()))
    };
    let declared = |iv: &IterVar| iv.dom().cloned().expect("scan axes have domains");
    let mut out = Vec::new();
    let sdom = declared(&scan.scan_axis);
    let time = match union(&requests[0]) {
        Some((_, hi)) => {
            let ext = simp(an, Expr::sub(Expr::add(hi, Expr::int(1)), sdom.min.clone()));
            let ext = match ext.as_int() {
                Some(e) if e < 0 => Expr::int(0),
                _ => ext,
            };
            Range::new(sdom.min.clone(), ext)
        }
        None => sdom,
    };
    out.push((scan.scan_axis.clone(), time));
    // The requests are per dimension of the first output: with several
    // states the spatial axes are computed whole.
    let fixed_points = scan.fix_points();
    let several = scan.state.len() > 1;
    for (j, iv) in scan.spatial_axis.iter().enumerate() {
        let fixed = !several && fixed_points.get(j).copied().unwrap_or(false);
        let asked = requests.get(j + 1).and_then(|sets| union(sets));
        let r = match asked {
            Some((lo, hi)) if fixed => {
                let ext = simp(an, Expr::add(Expr::sub(hi, lo.clone()), Expr::int(1)));
                Range::new(lo, ext)
            }
            _ => declared(iv),
        };
        out.push((iv.clone(), r));
    }
    out
}

/// The region of the scan's buffer of state `k`: every row up to the
/// last step, `[0, first step + steps)`, and the ranges of the state's
/// spatial axes (TVM's `ScanOp::BuildRealize`).
pub(crate) fn region(
    scan: &ScanOp,
    k: usize,
    range: impl Fn(&IterVar) -> Option<Range>,
    an: &Analyzer,
) -> Option<Vec<Range>> {
    let t = range(&scan.scan_axis)?;
    let rows = simp(an, Expr::add(t.min, t.extent));
    let mut out = vec![Range::from_extent(rows)];
    for iv in scan.spatial_of(k) {
        out.push(range(iv)?);
    }
    Some(out)
}
