//! Tensorize: a loop nest replaced by a call of a tensor intrinsic
//! (`te.decl_tensor_intrin`, `s[t].tensorize(loop, intrin)`).
//!
//! An intrinsic is declared by its computation: a compute over its own
//! placeholders. Lowering checks that the region the loops from `loop`
//! inwards cover has, per axis, the extent of the intrinsic's axis, that
//! the regions of the inputs they read have the intrinsic's input shapes,
//! and that the stage's body, with its axes and reads moved to the
//! intrinsic's, is the intrinsic's body (TVM's `InferTensorizeRegion`
//! and `VerifyTensorizeBody`). The nest is then replaced by a
//! [`tir::Stmt::TensorCall`] on those regions, which runs the intrinsic's
//! own computation on them: a program with the call runs, and a region
//! bound wrongly shows in its values.
//!
//! A reduction whose reduction loops are not all inside `loop` calls the
//! intrinsic's update at each outer reduction step, after its reset (or
//! its full body at the first step, when it has no reset), as TVM does.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::lower::{Loop, Lowerer};
use crate::operation::{Operation, Tensor};
use crate::simp::simp;
use crate::value::{Value as TeValue, ValueKind};
use arith::int_set::IntSet;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use tir::{Buffer, Stmt, Value};

/// The functions a tensor intrinsic's `fcompute(ins, outs)` returns, by
/// name (`tvm.tir.call_packed("gemv", ...)` is `gemv`): the whole
/// computation, and for reductions the reset of the outputs and the
/// update that accumulates into them. TVM's fcompute returns either one
/// statement (`body`) or the triple `(body, reset, update)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntrinCalls {
    /// The call that computes the outputs from nothing.
    pub body: Option<String>,
    /// The call that sets the outputs to the reduction's identity.
    pub reset: Option<String>,
    /// The call that folds one more part of the reduction into the outputs.
    pub update: Option<String>,
    /// The calls as the function wrote them (body, reset, update), over
    /// the intrinsic's own buffers ([`TensorIntrin::buffers`]) and scalar
    /// parameters; each lowered call passes the stage's buffers and
    /// values in their place. Empty when only the names are known.
    pub written: [Option<tir::OpaqueCall>; 3],
}

impl IntrinCalls {
    /// The calls known by their names only (no call as written).
    ///
    /// ```
    /// let c = te::IntrinCalls::named(Some("gemv"), Some("fill_zero"), Some("gemv_add"));
    /// assert_eq!(c.reset.as_deref(), Some("fill_zero"));
    /// assert!(c.written.iter().all(Option::is_none));
    /// ```
    pub fn named(body: Option<&str>, reset: Option<&str>, update: Option<&str>) -> IntrinCalls {
        IntrinCalls {
            body: body.map(String::from),
            reset: reset.map(String::from),
            update: update.map(String::from),
            written: Default::default(),
        }
    }
}

struct IntrinData {
    name: String,
    op: Operation,
    inputs: Vec<Tensor>,
    calls: IntrinCalls,
    scalar_params: Vec<Var>,
    buffers: Vec<Buffer>,
}

/// A tensor intrinsic (TVM's `TensorIntrin`): a computation over its own
/// placeholders and the calls that perform it.
#[derive(Clone)]
pub struct TensorIntrin(Arc<IntrinData>);

impl PartialEq for TensorIntrin {
    /// The same intrinsic: one `decl_tensor_intrin` call made both.
    fn eq(&self, other: &TensorIntrin) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for TensorIntrin {}

impl TensorIntrin {
    /// The name (`decl_tensor_intrin(..., name=)`).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The intrinsic's computation.
    pub fn op(&self) -> &Operation {
        &self.0.op
    }

    /// The placeholders the computation reads, in order of first read: the
    /// `ins` of `fcompute`.
    pub fn inputs(&self) -> &[Tensor] {
        &self.0.inputs
    }

    /// The calls that perform the computation.
    pub fn calls(&self) -> &IntrinCalls {
        &self.0.calls
    }

    /// The variables of the computation a call passes values for
    /// (`decl_tensor_intrin(..., scalar_params=[v, w])`).
    pub fn scalar_params(&self) -> &[Var] {
        &self.0.scalar_params
    }

    /// The buffers its calls receive, inputs then outputs (empty when
    /// none were declared).
    pub fn buffers(&self) -> &[Buffer] {
        &self.0.buffers
    }

    /// This intrinsic with `params` as its scalar parameters and
    /// `buffers` as the buffers its calls receive.
    pub fn with_params(self, params: Vec<Var>, buffers: Vec<Buffer>) -> TensorIntrin {
        TensorIntrin(Arc::new(IntrinData {
            name: self.0.name.clone(),
            op: self.0.op.clone(),
            inputs: self.0.inputs.clone(),
            calls: self.0.calls.clone(),
            scalar_params: params,
            buffers,
        }))
    }
}

impl fmt::Debug for TensorIntrin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorIntrin({})", self.name())
    }
}

/// `te.decl_tensor_intrin(op, fcompute, name=name)`: the intrinsic that
/// computes `op` (a compute over placeholders) by the calls `calls` (what
/// `fcompute` returned). Errors: `op` is not a compute, reads a computed
/// tensor, or no call computes it.
///
/// ```
/// use tir::DataType;
/// let x = te::placeholder([16], "vx", DataType::Float32).unwrap();
/// let y = te::placeholder([16], "vy", DataType::Float32).unwrap();
/// let z = te::compute_named([16], &["i"], |i| x.at([&i[0]]) + y.at([&i[0]]), "z").unwrap();
/// let calls = te::IntrinCalls { body: Some("vadd".into()), ..Default::default() };
/// let vadd = te::decl_tensor_intrin(z.op(), "tensor_intrin", calls).unwrap();
/// assert_eq!(vadd.inputs().len(), 2);
/// ```
pub fn decl_tensor_intrin(op: &Operation, name: &str, calls: IntrinCalls) -> Result<TensorIntrin> {
    if op.as_compute().is_none() {
        return Err(TeError::definition(format!(
            "`{}` is not a compute: a tensor intrinsic is declared by the compute it performs",
            op.name()
        )));
    }
    let inputs = op.input_tensors();
    if let Some(t) = inputs.iter().find(|t| t.op().as_compute().is_some()) {
        return Err(TeError::definition(format!(
            "the intrinsic `{name}` reads `{}`, a computed tensor: its compute must read \
             placeholders only (TVM: \"Do not yet support composition op\")",
            t.name()
        )));
    }
    if calls.body.is_none() && calls.update.is_none() {
        return Err(TeError::definition(format!(
            "the intrinsic `{name}` has neither a body nor an update: its function must return \
             a call, or the triple (body, reset, update)"
        )));
    }
    Ok(TensorIntrin(Arc::new(IntrinData {
        name: name.to_string(),
        op: op.clone(),
        inputs,
        calls,
        scalar_params: Vec::new(),
        buffers: Vec::new(),
    })))
}

/// The region a tensorized nest covers, in the loop variables of the
/// bounds.
struct Region {
    /// The position of the tensorized loop among the stage's loops.
    tloc: usize,
    /// Per root axis of the stage (`axis`, then `reduce_axis`).
    out_dom: Vec<Range>,
    /// Each tensor the stage reads, in order of first read, with the
    /// region of it the nest reads.
    inputs: Vec<(Tensor, Vec<Range>)>,
    /// The intrinsic's sizes and scalar parameters bound to values (a
    /// tensor compute's `m1 = 10 - i`); empty for tensorize, which checks
    /// the sizes instead.
    sizes: HashMap<Var, Expr>,
    /// The scalar values the calls pass after the regions.
    scalars: Vec<Expr>,
}

fn mismatch(intrin: &TensorIntrin, what: String) -> TeError {
    TeError::schedule(format!("tensorize with `{}`: {what}", intrin.name()))
}

fn list<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let v: Vec<String> = items.into_iter().map(|x| x.to_string()).collect();
    format!("[{}]", v.join(", "))
}

fn range_list(rs: &[Range]) -> String {
    list(rs.iter().map(|r| format!("[{}, {}]", r.min, r.extent)))
}

impl Lowerer<'_> {
    /// The bodies of stage `i`'s outputs, inlined reads expanded.
    fn stage_bodies(&self, i: usize) -> Vec<TeValue> {
        let g = &self.b.graph;
        g.bodies[i]
            .iter()
            .chain(&g.more_bodies[i])
            .cloned()
            .collect()
    }

    /// TVM's `InferTensorizeRegion`: the loops from the tensorized one
    /// inwards run over their ranges, the loops outside it are one point.
    fn tensorize_region(&self, i: usize, intrin: &TensorIntrin, iv: &IterVar) -> Result<Region> {
        let st = &self.s.stages()[i];
        let op = st.op();
        let leaves = st.leaf_iter_vars();
        let tloc = leaves.iter().position(|l| l == iv).ok_or_else(|| {
            mismatch(
                intrin,
                format!(
                    "`{}` is no longer a loop of `{}` (it was split or fused after tensorize): \
                     tensorize one of its loops last",
                    iv.name(),
                    st.name()
                ),
            )
        })?;
        let an = &self.an;
        let mut dom: HashMap<Var, IntSet> = HashMap::new();
        for leaf in &leaves[tloc..] {
            if let Some(t) = st.bound_thread(leaf) {
                return Err(mismatch(
                    intrin,
                    format!(
                        "loop `{}` inside the tensorized loop `{}` is bound to `{}`: threads are \
                         not allowed in a tensorized region",
                        leaf.name(),
                        iv.name(),
                        t.name()
                    ),
                ));
            }
            let r = self
                .b
                .range(leaf)
                .ok_or_else(|| TeError::lowering(format!("no range for `{}`", leaf.name())))?;
            let min = self.b.to_loop_vars(&r.min);
            let last = Expr::sub(
                Expr::add(min.clone(), self.b.to_loop_vars(&r.extent)),
                Expr::int(1),
            );
            dom.insert(leaf.var().clone(), IntSet::interval(min, last));
        }
        let to_range = |set: &IntSet, what: &str| -> Result<Range> {
            match (set.min(), set.max()) {
                (Some(lo), Some(hi)) => Ok(Range::new(
                    simp(an, lo.clone()),
                    simp(
                        an,
                        Expr::add(Expr::sub(hi.clone(), lo.clone()), Expr::int(1)),
                    ),
                )),
                _ => Err(mismatch(
                    intrin,
                    format!("cannot deduce the region of {what} in the tensorized nest"),
                )),
            }
        };
        let mut out_dom = Vec::new();
        // Each root axis by its value in the loops, so that reads are
        // bounded over the loops inside the region directly.
        let mut root_value: HashMap<Var, Expr> = HashMap::new();
        for root in op.root_iter_vars() {
            let value = self.b.value_of(i, &root);
            let set = an.int_set(&value, &dom);
            out_dom.push(to_range(&set, &format!("axis `{}`", root.name()))?);
            root_value.insert(root.var().clone(), value);
        }
        let mut reads: Vec<(Tensor, Vec<Option<IntSet>>)> = Vec::new();
        for body in self.stage_bodies(i) {
            body.for_each_access(&mut |t, idx| {
                let k = match reads.iter().position(|(x, _)| x == t) {
                    Some(k) => k,
                    None => {
                        reads.push((t.clone(), vec![None; idx.len()]));
                        reads.len() - 1
                    }
                };
                for (d, e) in idx.iter().enumerate() {
                    let set = match e {
                        Some(e) => {
                            let e = e.substitute(&mut |v| root_value.get(v).cloned());
                            an.int_set(&e, &dom)
                        }
                        // Read at indices computed from values: anywhere.
                        None => IntSet::interval(
                            Expr::int(0),
                            Expr::sub(t.shape()[d].clone(), Expr::int(1)),
                        ),
                    };
                    let acc = &mut reads[k].1[d];
                    *acc = Some(match acc.take() {
                        None => set,
                        Some(a) => a.union(&set, an),
                    });
                }
            });
        }
        let inputs = reads
            .into_iter()
            .map(|(t, sets)| {
                let region = sets
                    .iter()
                    .map(|s| to_range(s.as_ref().expect("one set per axis"), &format!("`{t}`")))
                    .collect::<Result<Vec<_>>>()?;
                Ok((t, region))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Region {
            tloc,
            out_dom,
            inputs,
            sizes: HashMap::new(),
            scalars: Vec::new(),
        })
    }

    /// Checks the region against the intrinsic's shapes and the stage's
    /// body against the intrinsic's (TVM's `VerifyTensorizeBody`). `an`
    /// knows the ranges of the intrinsic's axes.
    fn verify_tensorize(
        &self,
        i: usize,
        region: &Region,
        intrin: &TensorIntrin,
        an: &Analyzer,
    ) -> Result<()> {
        let op = self.s.stages()[i].op();
        let ic = intrin.op().as_compute().expect("intrinsics are computes");
        let equal = |a: &Expr, b: &Expr| simp(an, Expr::sub(a.clone(), b.clone())).is_int(0);
        if region.inputs.len() != intrin.inputs().len() {
            return Err(mismatch(
                intrin,
                format!(
                    "`{}` reads {} tensors ({}) but the intrinsic takes {} ({})",
                    op.name(),
                    region.inputs.len(),
                    list(region.inputs.iter().map(|(t, _)| t)),
                    intrin.inputs().len(),
                    list(intrin.inputs())
                ),
            ));
        }
        let mut var_map: HashMap<Var, Expr> = HashMap::new();
        let axis_map = |own: &[IterVar],
                        theirs: &[IterVar],
                        doms: &[Range],
                        what: &str,
                        var_map: &mut HashMap<Var, Expr>|
         -> Result<()> {
            if own.len() < theirs.len() {
                return Err(mismatch(
                    intrin,
                    format!(
                        "the intrinsic has {} {what} axes but `{}` has {}",
                        theirs.len(),
                        op.name(),
                        own.len()
                    ),
                ));
            }
            let start = own.len() - theirs.len();
            for (k, (iv, r)) in own.iter().zip(doms).enumerate() {
                if k < start {
                    if !simp(an, r.extent.clone()).is_int(1) {
                        return Err(mismatch(
                            intrin,
                            format!(
                                "{what} axis `{}` of `{}` has extent {} in the tensorized nest, \
                                 but the intrinsic has {} {what} axes for its {}: the extra \
                                 leading axes must have extent 1",
                                iv.name(),
                                op.name(),
                                r.extent,
                                theirs.len(),
                                own.len()
                            ),
                        ));
                    }
                    var_map.insert(iv.var().clone(), r.min.clone());
                    continue;
                }
                let target = &theirs[k - start];
                let tdom = target.dom().expect("compute axes have domains");
                if !equal(&r.extent, &tdom.extent) {
                    return Err(mismatch(
                        intrin,
                        format!(
                            "{what} axis `{}` of `{}` has extent {} in the tensorized nest but \
                             the intrinsic's `{}` has extent {}",
                            iv.name(),
                            op.name(),
                            r.extent,
                            target.name(),
                            tdom.extent
                        ),
                    ));
                }
                var_map.insert(
                    iv.var().clone(),
                    Expr::add(Expr::sub(target.expr(), tdom.min.clone()), r.min.clone()),
                );
            }
            Ok(())
        };
        let naxis = op.axis().len();
        axis_map(
            op.axis(),
            &ic.axis,
            &region.out_dom[..naxis],
            "data",
            &mut var_map,
        )?;
        axis_map(
            op.reduce_axis(),
            &ic.reduce_axis,
            &region.out_dom[naxis..],
            "reduction",
            &mut var_map,
        )?;
        for ((t, reg), it) in region.inputs.iter().zip(intrin.inputs()) {
            let fits = reg.len() >= it.ndim() && {
                let start = reg.len() - it.ndim();
                reg[..start]
                    .iter()
                    .all(|r| simp(an, r.extent.clone()).is_int(1))
                    && reg[start..]
                        .iter()
                        .zip(it.shape())
                        .all(|(r, n)| equal(&r.extent, n))
            };
            if !fits {
                return Err(mismatch(
                    intrin,
                    format!(
                        "the region of `{t}` the nest reads, {}, does not match the shape {} of \
                         the intrinsic's input `{it}` (leading axes may have extent 1)",
                        range_list(reg),
                        list(it.shape())
                    ),
                ));
            }
        }
        if op.num_outputs() != intrin.op().num_outputs() {
            return Err(mismatch(
                intrin,
                format!(
                    "`{}` has {} outputs but the intrinsic has {}",
                    op.name(),
                    op.num_outputs(),
                    intrin.op().num_outputs()
                ),
            ));
        }
        // The stage's body with its axes and reads moved to the
        // intrinsic's, against the intrinsic's body.
        let index = |e: &Expr| simp(an, e.substitute(&mut |v| var_map.get(v).cloned()));
        for (k, body) in self.stage_bodies(i).iter().enumerate() {
            let moved = body.rewrite(&mut |e| index(e), &mut |t, idx| {
                let p = region.inputs.iter().position(|(x, _)| x == t)?;
                let (_, reg) = &region.inputs[p];
                let it = &intrin.inputs()[p];
                let start = reg.len() - it.ndim();
                let at: Vec<Expr> = idx[start..]
                    .iter()
                    .zip(&reg[start..])
                    .map(|(e, r)| simp(an, Expr::sub(e.clone(), r.min.clone())))
                    .collect();
                Some(it.at(at))
            });
            let theirs = intrin
                .op()
                .body(k)
                .expect("as many bodies as outputs")
                .rewrite(&mut |e| simp(an, e.clone()), &mut |_, _| None);
            if moved.dtype() != theirs.dtype() {
                return Err(mismatch(
                    intrin,
                    format!(
                        "failed to match the data type with the intrinsic's declaration: \
                         provided {}, intrinsic {}",
                        moved.dtype(),
                        theirs.dtype()
                    ),
                ));
            }
            let same = match (moved.kind(), theirs.kind()) {
                (ValueKind::Reduce(a), ValueKind::Reduce(b)) => {
                    a.reducer == b.reducer
                        && a.source.to_string() == b.source.to_string()
                        && a.condition.as_ref().map(ToString::to_string)
                            == b.condition.as_ref().map(ToString::to_string)
                }
                (ValueKind::Reduce(_) | ValueKind::CommReduce(_), _)
                | (_, ValueKind::Reduce(_) | ValueKind::CommReduce(_)) => false,
                _ => moved.to_string() == theirs.to_string(),
            };
            if !same {
                return Err(mismatch(
                    intrin,
                    format!(
                        "failed to match the compute with the intrinsic's declaration: provided \
                         `{moved}`, intrinsic `{theirs}`"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The nest of stage `i`, whose loop `iv` is tensorized with `intrin`:
    /// the loops outside `iv` around calls of the intrinsic.
    pub(crate) fn tensorized_nest(
        &mut self,
        i: usize,
        loops: &[Loop],
        placed: &[(Option<usize>, Expr)],
    ) -> Result<Stmt> {
        let st = &self.s.stages()[i];
        let (iv, intrin) = st.tensorized().expect("a tensorized stage");
        let (iv, intrin) = (iv.clone(), intrin.clone());
        let ic = intrin.op().as_compute().expect("intrinsics are computes");
        let region = self.tensorize_region(i, &intrin, &iv)?;
        let mut an = self.an.clone();
        for a in ic.axis.iter().chain(&ic.reduce_axis) {
            an.bind(a.var(), a.dom().expect("compute axes have domains").clone());
        }
        self.verify_tensorize(i, &region, &intrin, &an)?;
        self.intrinsic_nest(i, loops, placed, &intrin, &region, iv.name())
    }

    /// The nest of tensor compute stage `i` (TVM's
    /// `TensorComputeOpNode::BuildProvide`): every loop of the stage
    /// around calls of its intrinsic on the regions it passes.
    pub(crate) fn tensor_compute_nest(
        &mut self,
        i: usize,
        loops: &[Loop],
        placed: &[(Option<usize>, Expr)],
    ) -> Result<Stmt> {
        let op = self.s.stages()[i].op().clone();
        let tc = crate::tensor_compute_of(&op).expect("a tensor compute stage");
        let out_dom = tc
            .axis
            .iter()
            .enumerate()
            .map(|(d, a)| {
                if d < tc.schedulable_ndim {
                    Range::new(a.expr(), Expr::int(1))
                } else {
                    a.dom().expect("tensor compute axes have domains").clone()
                }
            })
            .chain(
                tc.reduce_axis
                    .iter()
                    .map(|r| Range::new(r.expr(), Expr::int(1))),
            )
            .collect();
        let region = Region {
            tloc: loops.len(),
            out_dom,
            inputs: tc.inputs.iter().cloned().zip(tc.regions.clone()).collect(),
            sizes: tc.binding.clone(),
            scalars: tc.scalar_inputs.clone(),
        };
        let name = loops
            .last()
            .map_or_else(|| op.name().to_string(), |l| l.iv.name().to_string());
        self.intrinsic_nest(i, loops, placed, &tc.intrin, &region, &name)
    }

    /// The loops of stage `i` outside `region.tloc` around calls of
    /// `intrin` on `region`, the calls accumulating over the reduction
    /// loops among them; `at` names the innermost loop the calls replace.
    fn intrinsic_nest(
        &mut self,
        i: usize,
        loops: &[Loop],
        placed: &[(Option<usize>, Expr)],
        intrin: &TensorIntrin,
        region: &Region,
        at: &str,
    ) -> Result<Stmt> {
        let st = &self.s.stages()[i];
        let ic = intrin.op().as_compute().expect("intrinsics are computes");
        let tloc = region.tloc;
        if let Some((_, g)) = placed.iter().find(|(p, _)| p.is_some_and(|p| p >= tloc)) {
            return Err(mismatch(
                intrin,
                format!(
                    "the split condition `{g}` relies on a loop inside the tensorized loop `{at}` \
                     (a split that does not divide): split by a factor that divides"
                ),
            ));
        }
        for l in &loops[tloc..] {
            if let Some(c) = self.attached.get(&l.iv).and_then(|c| c.first()) {
                return Err(mismatch(
                    intrin,
                    format!(
                        "`{}` is computed at `{}`, inside the tensorized loop `{at}`: compute it \
                         outside",
                        self.s.stages()[*c].name(),
                        l.iv.name(),
                    ),
                ));
            }
        }
        let args = self.call_args(i, region)?;
        let scalars: Vec<Expr> = region.scalars.iter().map(|e| self.expr(e)).collect();
        let call = |this: &mut Self, name: &Option<String>, what: &str, part: Part| {
            let name = name.clone().ok_or_else(|| {
                mismatch(
                    intrin,
                    format!("the intrinsic has no {what} (its function returned none)"),
                )
            })?;
            let body = this.intrinsic_part(i, region, intrin, part)?;
            let written = intrin.calls().written[part as usize]
                .as_ref()
                .map(|c| this.instantiate(c, intrin, &args, region));
            // A reset only writes the outputs, and is passed only them (TVM
            // binds no inputs for it).
            let args = match part {
                Part::Reset => args[region.inputs.len()..].to_vec(),
                _ => args.clone(),
            };
            let mut call = Stmt::tensor_call(name, args, scalars.clone(), body);
            if let (Stmt::TensorCall { written: w, .. }, Some(c)) = (&mut call, written) {
                *w = Some(Box::new(c));
            }
            Ok::<Stmt, TeError>(call)
        };
        let calls = intrin.calls().clone();
        let first_reduce = loops
            .iter()
            .position(|l| l.iv.kind() == IterKind::Reduce)
            .unwrap_or(loops.len());
        if tloc <= first_reduce || ic.reduce_axis.is_empty() {
            // Every reduction loop is inside the call.
            let body = call(self, &calls.body, "body", Part::Whole)?;
            return self.nest(&loops[..tloc], body, placed, 0);
        }
        // Reduction loops outside the call: it accumulates.
        let middle = &loops[first_reduce..tloc];
        let inner = match &calls.reset {
            Some(_) => call(self, &calls.update, "update", Part::Update)?,
            None => {
                // The first step computes from nothing, the others
                // accumulate (TVM's `TransformUpdate`).
                let data_loops = st.data_loops();
                let first = middle
                    .iter()
                    .filter(|l| !l.trivial && !data_loops.contains(&l.iv))
                    .map(|l| Expr::eq(l.var.expr(), l.min.clone()))
                    .reduce(Expr::and)
                    .unwrap_or(Expr::bool(true));
                let whole = call(self, &calls.body, "body", Part::Whole)?;
                let update = call(self, &calls.update, "update", Part::Update)?;
                Stmt::if_then_else(Value::index(first), whole, update)
            }
        };
        let update_nest = self.nest(middle, inner, placed, first_reduce)?;
        let body = match &calls.reset {
            Some(_) => {
                let data_loops = st.data_loops();
                let mut init = call(self, &calls.reset, "reset", Part::Reset)?;
                for l in middle.iter().rev() {
                    if !l.trivial && data_loops.contains(&l.iv) {
                        init = Stmt::for_loop(&l.var, l.min.clone(), l.extent.clone(), init);
                    }
                }
                Stmt::seq([init, update_nest])
            }
            None => update_nest,
        };
        self.nest(&loops[..first_reduce], body, placed, 0)
    }

    /// The regions the call passes: the inputs, then the outputs, in
    /// emitted loop variables.
    fn call_args(&self, i: usize, region: &Region) -> Result<Vec<(Buffer, Vec<Range>)>> {
        let emit = |rs: &[Range]| -> Vec<Range> {
            rs.iter()
                .map(|r| Range::new(self.expr(&r.min), self.expr(&r.extent)))
                .collect()
        };
        let mut args = Vec::new();
        for (t, reg) in &region.inputs {
            let p = self.s.stage_index(t.op())?;
            let buf = self
                .buffer_of(p, t.value_index())
                .ok_or_else(|| TeError::lowering(format!("`{}` has no storage", t.name())))?;
            args.push((buf, emit(reg)));
        }
        let naxis = self.s.stages()[i].op().axis().len();
        for k in 0..self.s.stages()[i].op().num_outputs() {
            let buf = self.buffer_of(i, k).expect("computed stages have buffers");
            args.push((buf, emit(&region.out_dom[..naxis])));
        }
        Ok(args)
    }

    /// What the call computes: the intrinsic's compute over its own axes
    /// (fresh loops), reading and writing the regions of the stage's
    /// tensors.
    fn intrinsic_part(
        &mut self,
        i: usize,
        region: &Region,
        intrin: &TensorIntrin,
        part: Part,
    ) -> Result<Stmt> {
        let st = &self.s.stages()[i];
        let op = st.op().clone();
        let name = st.name().to_string();
        let ic = intrin.op().as_compute().expect("intrinsics are computes");
        // Fresh loop variables for the intrinsic's axes; its sizes and
        // scalar parameters at their values.
        let mut fresh: HashMap<Var, Expr> = region.sizes.clone();
        let sized = |e: &Expr| e.substitute(&mut |v| region.sizes.get(v).cloned());
        let mut axis_loops = Vec::new();
        let mut reduce_loops = Vec::new();
        for (k, a) in ic.axis.iter().chain(&ic.reduce_axis).enumerate() {
            let dom = a.dom().expect("compute axes have domains");
            let (min, extent) = (sized(&dom.min), sized(&dom.extent));
            let extent = self.expr(&extent);
            let v = Var::new(a.name());
            self.an.bind(&v, Range::from_extent(extent.clone()));
            self.rebased.push(v.clone());
            fresh.insert(a.var().clone(), Expr::add(v.expr(), min));
            let l = (v, extent);
            if k < ic.axis.len() {
                axis_loops.push(l);
            } else {
                reduce_loops.push(l);
            }
        }
        let naxis = op.axis().len();
        let start = naxis - ic.axis.len();
        let out_logical: Vec<Expr> = region.out_dom[..naxis]
            .iter()
            .enumerate()
            .map(|(d, r)| {
                let at = if d < start {
                    r.min.clone()
                } else {
                    Expr::add(r.min.clone(), ic.axis[d - start].expr())
                };
                at.substitute(&mut |v| fresh.get(v).cloned())
            })
            .collect();
        let out_access = self.access(
            i,
            out_logical.iter().map(|e| self.unsimplified(e)).collect(),
        );
        // The intrinsic's reads moved to the regions of the stage's inputs.
        let read = |v: &TeValue| {
            v.rewrite(
                &mut |e| e.substitute(&mut |v| fresh.get(v).cloned()),
                &mut |t, idx| {
                    let p = intrin.inputs().iter().position(|x| x == t)?;
                    let (own, reg) = &region.inputs[p];
                    Some(own.at(index_in_region(reg, idx)))
                },
            )
        };
        let loops_around = |s: Stmt, ls: &[(Var, Expr)]| {
            ls.iter()
                .rev()
                .fold(s, |acc, (v, n)| Stmt::for_loop(v, 0, n.clone(), acc))
        };
        let mut stores = Vec::new();
        for k in 0..op.num_outputs() {
            let buf = self.buffer_of(i, k).expect("computed stages have buffers");
            let stage = if k == 0 {
                name.clone()
            } else {
                buf.name().to_string()
            };
            let body = intrin.op().body(k).expect("as many bodies as outputs");
            match body.kind() {
                ValueKind::Reduce(r) => {
                    let dtype = buf.dtype();
                    let init = Stmt::store_in_stage(
                        format!("{stage}.init"),
                        &buf,
                        out_access.clone(),
                        Value::constant(r.reducer.identity(dtype), dtype),
                    );
                    let source = self.value(&read(&r.source))?;
                    let acc = Value::load(&buf, out_access.clone());
                    let combined = Value::binary(
                        crate::lower::binop(r.reducer.combiner(), dtype.is_int()),
                        acc,
                        source,
                    );
                    let mut update =
                        Stmt::store_in_stage(stage, &buf, out_access.clone(), combined);
                    if let Some(c) = &r.condition {
                        let c = c.substitute(&mut |v| fresh.get(v).cloned());
                        update = Stmt::if_then(Value::index(self.expr(&c)), update);
                    }
                    let mut all = axis_loops.clone();
                    all.extend(reduce_loops.iter().cloned());
                    let init = loops_around(init, &axis_loops);
                    let update = loops_around(update, &all);
                    stores.push(match part {
                        Part::Whole => Stmt::seq([init, update]),
                        Part::Reset => init,
                        Part::Update => update,
                    });
                }
                ValueKind::CommReduce(_) => {
                    return Err(mismatch(
                        intrin,
                        "the intrinsic is a tuple reduction, which tensorize does not run; \
                         declare it with a sum, min, max or product"
                            .to_string(),
                    ))
                }
                _ => {
                    let v = self.value(&read(body))?;
                    let store = Stmt::store_in_stage(stage, &buf, out_access.clone(), v);
                    stores.push(loops_around(store, &axis_loops));
                }
            }
        }
        Ok(Stmt::seq(stores))
    }
}

impl Lowerer<'_> {
    /// The call `template` (written over `intrin`'s buffers and scalar
    /// parameters) as this call site makes it: each of the intrinsic's
    /// buffers is the stage's buffer passed in its place, each scalar
    /// parameter its value.
    fn instantiate(
        &self,
        template: &tir::OpaqueCall,
        intrin: &TensorIntrin,
        args: &[(Buffer, Vec<Range>)],
        region: &Region,
    ) -> tir::OpaqueCall {
        let values: HashMap<Var, Expr> = intrin
            .scalar_params()
            .iter()
            .cloned()
            .zip(region.scalars.iter().map(|e| self.expr(e)))
            .collect();
        struct Scalars<'a>(&'a HashMap<Var, Expr>);
        impl tir::mutate::Mutator for Scalars<'_> {
            type Error = std::convert::Infallible;
            fn expr(&mut self, e: &Expr) -> std::result::Result<Expr, Self::Error> {
                Ok(e.substitute(&mut |v| self.0.get(v).cloned()))
            }
        }
        let mut call = template.clone();
        for a in &mut call.args {
            match a {
                tir::CallArg::Buffer(b) => {
                    if let Some(k) = intrin.buffers().iter().position(|x| x == b) {
                        if let Some((own, _)) = args.get(k) {
                            *b = own.clone();
                        }
                    }
                }
                tir::CallArg::Value(v) => {
                    let Ok(x) = tir::mutate::Mutator::value(&mut Scalars(&values), v);
                    *v = x;
                }
                tir::CallArg::Str(_) => {}
            }
        }
        call
    }
}

/// The index into a tensor of an intrinsic's read at `idx` of the buffer
/// bound to `region` of it: the region's start plus `idx`, the leading
/// dimensions the buffer does not have (of extent 1) at their start.
pub(crate) fn index_in_region(region: &[Range], idx: &[Expr]) -> Vec<Expr> {
    let lead = region.len().saturating_sub(idx.len());
    region
        .iter()
        .enumerate()
        .map(|(d, r)| {
            if d < lead {
                r.min.clone()
            } else {
                Expr::add(r.min.clone(), idx[d - lead].clone())
            }
        })
        .collect()
}

/// Which part of an intrinsic's computation a call performs, in the
/// order of [`IntrinCalls::written`].
#[derive(Clone, Copy)]
enum Part {
    /// The outputs from nothing.
    Whole,
    /// The outputs set to the reduction's identity.
    Reset,
    /// One more part of the reduction folded into the outputs.
    Update,
}
