//! Tensor compute operations: an output computed by calls of a tensor
//! intrinsic on regions of its inputs (TVM's `TensorComputeOp`).
//!
//! `te.compute((n, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]))` makes one:
//! the lambda's parameters are the axes the schedule can loop over (`i`),
//! the remaining dimensions are the intrinsic's own (`ax0`, written whole
//! by each call), and each argument is a region of an input. The regions
//! are the contract: InferBound asks producers for them (TVM's
//! `PropBoundToInputs`), the loop nest passes them to the call, and the
//! call runs the intrinsic's own computation on them. The intrinsic's
//! symbolic sizes take the extents of the regions they are bound to
//! (`a: (m1, n1)` bound to `B[i:10, 0:20]` has `m1 = 10 - i`).
//!
//! The same computation written as an ordinary body over the operation's
//! axes ([`TensorComputeOp::equivalent`]) is what the reference evaluator
//! runs, so `--run` checks the calls against their definition.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::{new_multi_output_op, Attrs, OpKind, Operation, Tensor};
use crate::tensorize::TensorIntrin;
use crate::value::{Reduce, Value, ValueKind};
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;

/// An intrinsic applied to regions of tensors, as a compute's lambda
/// returns it (`vadd(A[i, 0:16], B[i, 0:16])`, TVM's `TensorIntrinCall`).
#[derive(Clone, Debug)]
pub struct IntrinCall {
    /// The intrinsic called.
    pub intrin: TensorIntrin,
    /// The tensors passed, one per input of the intrinsic.
    pub tensors: Vec<Tensor>,
    /// The region of each tensor passed: one range per dimension.
    pub regions: Vec<Vec<Range>>,
    /// The reduction axes looped over outside the calls (`reduce_axis=`).
    pub reduce_axis: Vec<IterVar>,
    /// The values passed for the intrinsic's scalar parameters.
    pub scalar_inputs: Vec<Expr>,
}

impl IntrinCall {
    /// `intrin(regions..., reduce_axis=...)`. Errors: the number of
    /// regions or scalars differs from the intrinsic's inputs and scalar
    /// parameters, or a region has the wrong number of dimensions.
    pub fn new(
        intrin: &TensorIntrin,
        tensors: Vec<(Tensor, Vec<Range>)>,
        reduce_axis: Vec<IterVar>,
        scalar_inputs: Vec<Expr>,
    ) -> Result<IntrinCall> {
        let name = intrin.name();
        if tensors.len() != intrin.inputs().len() {
            return Err(TeError::definition(format!(
                "the intrinsic `{name}` takes {} tensor regions, but {} were given",
                intrin.inputs().len(),
                tensors.len()
            )));
        }
        if scalar_inputs.len() != intrin.scalar_params().len() {
            return Err(TeError::definition(format!(
                "the intrinsic `{name}` takes {} scalar values, but {} were given",
                intrin.scalar_params().len(),
                scalar_inputs.len()
            )));
        }
        for (t, region) in &tensors {
            if region.len() != t.ndim() {
                return Err(TeError::definition(format!(
                    "the region of `{t}` passed to `{name}` has {} dimensions, but `{t}` has {}: \
                     give an index or a slice for every dimension",
                    region.len(),
                    t.ndim()
                )));
            }
        }
        if let Some(k) = reduce_axis.iter().find(|k| k.kind() != IterKind::Reduce) {
            return Err(TeError::definition(format!(
                "`reduce_axis` of a call of `{name}` takes reduction axes, but `{}` is a data \
                 axis",
                k.name()
            )));
        }
        let (tensors, regions) = tensors.into_iter().unzip();
        Ok(IntrinCall {
            intrin: intrin.clone(),
            tensors,
            regions,
            reduce_axis,
            scalar_inputs,
        })
    }
}

/// An operation computed by calls of a tensor intrinsic (TVM's
/// `TensorComputeOp`).
#[derive(Clone, Debug)]
pub struct TensorComputeOp {
    /// Every axis: the schedulable ones (the lambda's parameters), then
    /// the intrinsic's own (`ax0`, ...), which no loop runs over.
    pub axis: Vec<IterVar>,
    /// How many of `axis` the schedule loops over.
    pub schedulable_ndim: usize,
    /// The reduction axes looped over outside the calls.
    pub reduce_axis: Vec<IterVar>,
    /// The intrinsic called.
    pub intrin: TensorIntrin,
    /// The tensors passed, one per input of the intrinsic.
    pub inputs: Vec<Tensor>,
    /// Their regions, in the schedulable and reduction axes.
    pub regions: Vec<Vec<Range>>,
    /// The values of the intrinsic's scalar parameters.
    pub scalar_inputs: Vec<Expr>,
    /// Each variable of the intrinsic's sizes and scalar parameters, in
    /// the operation's axes (`m1` bound to the extent `10 - i`).
    pub binding: HashMap<Var, Expr>,
    /// What each output computes, as a compute body over `axis` (and
    /// `reduce_axis`): the intrinsic's computation moved to the regions.
    pub equivalent: Vec<Value>,
}

impl TensorComputeOp {
    /// The axes the schedule loops over.
    pub fn schedulable_axis(&self) -> &[IterVar] {
        &self.axis[..self.schedulable_ndim]
    }

    /// What the call reads of `producer` for one point of `dom` (sets of
    /// the schedulable and reduction axes), per dimension: the union of
    /// the regions of `producer` passed (TVM's `PropBoundToInputs`).
    pub(crate) fn requests(
        &self,
        producer: &Operation,
        dom: &HashMap<Var, arith::int_set::IntSet>,
        an: &Analyzer,
    ) -> Vec<arith::int_set::IntSet> {
        use arith::int_set::IntSet;
        let mut out: Vec<Option<IntSet>> = vec![None; producer.shape().len()];
        for (t, region) in self.inputs.iter().zip(&self.regions) {
            if t.op() != producer {
                continue;
            }
            for (d, r) in region.iter().enumerate().take(out.len()) {
                let last = Expr::sub(Expr::add(r.min.clone(), r.extent.clone()), Expr::int(1));
                let lo = an.int_set(&r.min, dom);
                let hi = an.int_set(&last, dom);
                let set = IntSet::interval(lo.min().cloned(), hi.max().cloned());
                out[d] = Some(match out[d].take() {
                    None => set,
                    Some(a) => a.union(&set, an),
                });
            }
        }
        out.into_iter()
            .map(|s| s.unwrap_or_else(IntSet::nothing))
            .collect()
    }
}

/// What a compute's lambda returned: element values, or a call of a
/// tensor intrinsic.
pub enum ComputeBody {
    /// One value per output.
    Values(Vec<Value>),
    /// A call of a tensor intrinsic on regions of tensors.
    Intrinsic(IntrinCall),
}

/// `te.compute(shape, fcompute, name, tag=, attrs=)` whose lambda takes
/// the first `axis_names.len()` dimensions of `shape` and may return a
/// call of a tensor intrinsic: then the operation is a
/// [`TensorComputeOp`] whose remaining dimensions are the intrinsic's
/// (`ax0`, `ax1`, ...), as in TVM. Values give an ordinary compute of
/// those first dimensions (see [`crate::try_compute_multi_tagged`]).
///
/// ```
/// use te::{ComputeBody, IntrinCall, IntrinCalls};
/// use tir::DataType;
/// let x = te::placeholder([16], "x", DataType::Float32).unwrap();
/// let y = te::placeholder([16], "y", DataType::Float32).unwrap();
/// let z = te::compute_named([16], &["i"], |i| x.at([&i[0]]) + y.at([&i[0]]), "z").unwrap();
/// let calls = IntrinCalls { body: Some("vadd".into()), ..Default::default() };
/// let vadd = te::decl_tensor_intrin(z.op(), "vadd", calls).unwrap();
/// let a = te::placeholder([64, 16], "A", DataType::Float32).unwrap();
/// let b = te::placeholder([64, 16], "B", DataType::Float32).unwrap();
/// let c = te::try_compute_or_intrinsic(vec![64.into(), 16.into()], &["i"], |i| {
///     let row = |t: &te::Tensor| (t.clone(), vec![arith::Range::new(i[0].clone(), 1.into()),
///                                                   arith::Range::from_extent(16.into())]);
///     Ok::<_, te::TeError>(ComputeBody::Intrinsic(IntrinCall::new(&vadd, vec![row(&a), row(&b)],
///         vec![], vec![])?))
/// }, "C", "", te::Attrs::new()).unwrap();
/// let tc = te::tensor_compute_of(c[0].op()).unwrap();
/// assert_eq!(tc.schedulable_ndim, 1);
/// assert_eq!(tc.axis[1].name(), "ax0");
/// assert_eq!(tc.equivalent[0].to_string(), "A[i, ax0] + B[i, ax0]");
/// ```
pub fn try_compute_or_intrinsic<E: From<TeError>>(
    shape: Vec<Expr>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> std::result::Result<ComputeBody, E>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> std::result::Result<Vec<Tensor>, E> {
    let k = axis_names.len().min(shape.len());
    let axis: Vec<IterVar> = shape[..k]
        .iter()
        .zip(axis_names)
        .map(|(s, n)| IterVar::new(*n, Some(Range::from_extent(s.clone())), IterKind::DataPar))
        .collect();
    let vars: Vec<Expr> = axis.iter().map(IterVar::expr).collect();
    match fcompute(&vars)? {
        ComputeBody::Values(values) => {
            crate::operation::compute_on_axes(axis, values, name, tag, attrs).map_err(E::from)
        }
        ComputeBody::Intrinsic(call) => {
            let mut axis = axis;
            for (d, s) in shape[k..].iter().enumerate() {
                axis.push(IterVar::new(
                    format!("ax{d}"),
                    Some(Range::from_extent(s.clone())),
                    IterKind::DataPar,
                ));
            }
            let op = tensor_compute_op(name, axis, k, call)?;
            Ok(op.with_tag_attrs(tag, attrs).outputs())
        }
    }
}

/// The tensor compute operation of `call` over `axis`, of which the first
/// `schedulable_ndim` are looped over.
fn tensor_compute_op(
    name: &str,
    axis: Vec<IterVar>,
    schedulable_ndim: usize,
    call: IntrinCall,
) -> Result<Operation> {
    let intrin = &call.intrin;
    let iop = intrin.op();
    let ic = iop.as_compute().expect("intrinsics are computes");
    let iname = intrin.name();
    let an = Analyzer::new();
    let mut binding: HashMap<Var, Expr> = HashMap::new();
    for (p, v) in intrin.scalar_params().iter().zip(&call.scalar_inputs) {
        binding.insert(p.clone(), v.clone());
    }
    // The intrinsic's sizes against the extents bound to them; leading
    // dimensions beyond the intrinsic's are one element.
    let mut bind_shape = |what: &str, shape: &[Expr], region: &[Range]| -> Result<usize> {
        let Some(lead) = region.len().checked_sub(shape.len()) else {
            return Err(TeError::definition(format!(
                "{what} has {} dimensions, fewer than the {} of the intrinsic `{iname}`'s \
                 buffer bound to it",
                region.len(),
                shape.len()
            )));
        };
        for r in &region[..lead] {
            if let Some(e) = r.extent.as_int().filter(|&e| e != 1) {
                return Err(TeError::definition(format!(
                    "{what} has extent {e} in a dimension the intrinsic `{iname}` does not \
                     have: leading dimensions beyond the intrinsic's must have extent 1"
                )));
            }
        }
        for (size, r) in shape.iter().zip(&region[lead..]) {
            if let arith::ExprKind::Var(v) = size.kind() {
                if !binding.contains_key(v) {
                    binding.insert(v.clone(), r.extent.clone());
                    continue;
                }
            }
            let size = size.substitute(&mut |v| binding.get(v).cloned());
            let differ = crate::simp::simp(&an, Expr::sub(size.clone(), r.extent.clone()));
            if differ.as_int().is_some_and(|d| d != 0) {
                return Err(TeError::definition(format!(
                    "{what} has extent {} where the intrinsic `{iname}` takes {size}",
                    r.extent
                )));
            }
        }
        Ok(lead)
    };
    for ((t, region), it) in call.tensors.iter().zip(&call.regions).zip(intrin.inputs()) {
        bind_shape(&format!("the region of `{t}`"), it.shape(), region)?;
    }
    let out_region: Vec<Range> = axis
        .iter()
        .enumerate()
        .map(|(d, a)| {
            if d < schedulable_ndim {
                Range::new(a.expr(), Expr::int(1))
            } else {
                a.dom().expect("tensor compute axes have domains").clone()
            }
        })
        .collect();
    if iop.num_outputs() != 1 {
        return Err(TeError::new(
            crate::ErrorKind::Unsupported,
            format!(
                "the intrinsic `{iname}` has {} outputs: rangefinder calls intrinsics of one \
                 output from a compute",
                iop.num_outputs()
            ),
        ));
    }
    let out_lead = bind_shape(&format!("`{name}`"), iop.shape(), &out_region)?;
    // The intrinsic's output axes at the operation's: an axis the
    // schedule loops over is one point, an intrinsic's axis runs whole.
    let mut at_axes = binding.clone();
    for (k, a) in ic.axis.iter().enumerate() {
        let d = out_lead + k;
        let at = if d < schedulable_ndim {
            Expr::int(0)
        } else {
            Expr::sub(axis[d].expr(), out_region[d].min.clone())
        };
        let min = a.dom().map(|r| r.min.clone()).unwrap_or(Expr::int(0));
        at_axes.insert(a.var().clone(), Expr::add(at, min));
    }
    let sub = |e: &Expr| crate::simp::simp(&an, e.substitute(&mut |v| at_axes.get(v).cloned()));
    let body = iop.body(0).expect("intrinsics are computes");
    let moved = body.rewrite(&mut |e| sub(e), &mut |t, idx| {
        let p = intrin.inputs().iter().position(|x| x == t)?;
        let at = crate::tensorize::index_in_region(&call.regions[p], idx);
        Some(call.tensors[p].at(at.into_iter().map(|e| crate::simp::simp(&an, e))))
    });
    let equivalent = match (moved.kind(), call.reduce_axis.is_empty()) {
        (_, true) if !matches!(moved.kind(), ValueKind::CommReduce(_)) => moved,
        (ValueKind::Reduce(r), false) => Value::new(ValueKind::Reduce(Reduce {
            reducer: r.reducer,
            source: r.source.clone(),
            axes: call.reduce_axis.iter().chain(&r.axes).cloned().collect(),
            condition: r.condition.clone(),
        })),
        (ValueKind::CommReduce(_), _) => {
            return Err(TeError::new(
                crate::ErrorKind::Unsupported,
                format!(
                    "the intrinsic `{iname}` is a tuple reduction, which rangefinder does not \
                     call from a compute; declare it with a sum, min, max or product"
                ),
            ))
        }
        _ => {
            return Err(TeError::definition(format!(
                "`{name}` calls `{iname}` with `reduce_axis`, but the intrinsic computes no \
                 reduction to continue over it"
            )))
        }
    };
    let dtype = iop.dtype();
    let shape: Vec<Expr> = axis
        .iter()
        .map(|a| {
            a.dom()
                .expect("tensor compute axes have domains")
                .extent
                .clone()
        })
        .collect();
    crate::operation::check_shape(&shape, name)?;
    let op = TensorComputeOp {
        axis,
        schedulable_ndim,
        reduce_axis: call.reduce_axis,
        intrin: call.intrin,
        inputs: call.tensors,
        regions: call.regions,
        scalar_inputs: call.scalar_inputs,
        binding,
        equivalent: vec![equivalent],
    };
    Ok(new_multi_output_op(
        name,
        vec![(shape, dtype)],
        OpKind::TensorCompute(op),
    ))
}

/// The tensor compute definition of `op`, if it is one.
pub fn tensor_compute_of(op: &Operation) -> Option<&TensorComputeOp> {
    match op.kind() {
        OpKind::TensorCompute(t) => Some(t),
        _ => None,
    }
}
