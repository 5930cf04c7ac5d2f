//! TOPI's x86 and CUDA schedules (`tvm.topi.x86`, `tvm.topi.cuda`) for
//! pooling, reductions, softmax and injective operators, as TOPI v0.19
//! writes them in Python.
//!
//! Each applies the primitives TOPI's Python applies, in the same order,
//! so that the lowered program is TVM's. They make no stage of their own
//! except where TOPI's primitives do: `cache_write` of a pool that is an
//! output (`pool_max.local`) and `rfactor` of a reduction (`<name>.rf`).
//!
//! - `topi.x86.schedule_pool(outs, layout)`,
//!   `topi.x86.schedule_adaptive_pool(outs)`: padding and injective stages
//!   inlined, the pool's outer axes fused and in parallel (vectorized over
//!   the last axis for a channel-last layout).
//! - `topi.x86.schedule_reduce(outs)`: the reduction's outer axes fused
//!   (up to a parallelism of 128) and in parallel; injective inputs
//!   inlined, broadcast consumers scheduled as x86 injective.
//! - `topi.x86.schedule_softmax(outs)`: the axes before the softmax axis
//!   fused and in parallel, the softmax stages computed inside.
//! - `topi.x86.schedule_concatenate(outs)`; `schedule_elemwise` and
//!   `schedule_broadcast` (x86's `schedule_injective`).
//! - `topi.cuda.schedule_injective(outs)` (`schedule_elemwise`,
//!   `schedule_broadcast`) and `schedule_injective_from_existing(sch, out)`:
//!   all axes fused and split over `blockIdx.x` and `threadIdx.x`.
//! - `topi.cuda.schedule_reduce(outs)`: the reduction split by the
//!   number of threads and factored (`rfactor`) across `threadIdx.x`.
//! - `topi.cuda.schedule_softmax(outs)`: a warp per row (`cuda`), 64
//!   threads with a factored sum (other GPU targets), or every stage as
//!   injective (not two-dimensional).
//! - `topi.cuda.schedule_pool(outs, layout)`,
//!   `topi.cuda.schedule_adaptive_pool(outs, layout="NCHW")`: one thread
//!   per output element, the pool computed locally.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::{Object, ScheduleRef};
use crate::value::Value;
use crate::Host;
use arith::Expr;
use std::cell::RefCell;
use std::rc::Rc;
use te::{IterVar, Operation, Schedule, Tensor};

/// The schedules of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleOp {
    /// `tvm.topi.x86.schedule_pool`.
    X86Pool,
    /// `tvm.topi.x86.schedule_adaptive_pool`.
    X86AdaptivePool,
    /// `tvm.topi.x86.schedule_reduce`.
    X86Reduce,
    /// `tvm.topi.x86.schedule_softmax`.
    X86Softmax,
    /// `tvm.topi.x86.schedule_concatenate`.
    X86Concatenate,
    /// `tvm.topi.x86.schedule_elemwise` and `schedule_broadcast`, which
    /// TOPI defines as x86's `schedule_injective`.
    X86Injective,
    /// `tvm.topi.cuda.schedule_injective` (`schedule_elemwise`,
    /// `schedule_broadcast`).
    CudaInjective,
    /// `tvm.topi.cuda.schedule_injective_from_existing`.
    CudaInjectiveFromExisting,
    /// `tvm.topi.cuda.schedule_reduce`.
    CudaReduce,
    /// `tvm.topi.cuda.schedule_softmax`.
    CudaSoftmax,
    /// `tvm.topi.cuda.schedule_pool`.
    CudaPool,
    /// `tvm.topi.cuda.schedule_adaptive_pool`.
    CudaAdaptivePool,
}

impl ScheduleOp {
    /// The schedule `module_path.name`, if this module builds it (each
    /// under the modules TOPI defines or re-exports it from).
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<ScheduleOp> {
        use ScheduleOp::*;
        let op = match (module_path, name) {
            ("tvm.topi.x86" | "tvm.topi.x86.pooling", "schedule_pool") => X86Pool,
            ("tvm.topi.x86" | "tvm.topi.x86.pooling", "schedule_adaptive_pool") => X86AdaptivePool,
            ("tvm.topi.x86" | "tvm.topi.x86.reduction", "schedule_reduce") => X86Reduce,
            ("tvm.topi.x86", "schedule_softmax") => X86Softmax,
            ("tvm.topi.x86" | "tvm.topi.x86.injective", "schedule_concatenate") => X86Concatenate,
            (
                "tvm.topi.x86" | "tvm.topi.x86.injective",
                "schedule_elemwise" | "schedule_broadcast",
            ) => X86Injective,
            (
                "tvm.topi.cuda" | "tvm.topi.cuda.injective",
                "schedule_injective" | "schedule_elemwise" | "schedule_broadcast",
            ) => CudaInjective,
            (
                "tvm.topi.cuda"
                | "tvm.topi.cuda.injective"
                | "tvm.topi.cuda.reduction"
                | "tvm.topi.cuda.softmax"
                | "tvm.topi.cuda.pooling",
                "schedule_injective_from_existing",
            ) => CudaInjectiveFromExisting,
            ("tvm.topi.cuda" | "tvm.topi.cuda.reduction", "schedule_reduce") => CudaReduce,
            ("tvm.topi.cuda" | "tvm.topi.cuda.softmax", "schedule_softmax") => CudaSoftmax,
            ("tvm.topi.cuda" | "tvm.topi.cuda.pooling", "schedule_pool") => CudaPool,
            ("tvm.topi.cuda" | "tvm.topi.cuda.pooling", "schedule_adaptive_pool") => {
                CudaAdaptivePool
            }
            _ => return None,
        };
        Some(op)
    }

    /// TVM's dotted name of the schedule, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        use ScheduleOp::*;
        match self {
            X86Pool => "tvm.topi.x86.schedule_pool",
            X86AdaptivePool => "tvm.topi.x86.schedule_adaptive_pool",
            X86Reduce => "tvm.topi.x86.schedule_reduce",
            X86Softmax => "tvm.topi.x86.schedule_softmax",
            X86Concatenate => "tvm.topi.x86.schedule_concatenate",
            X86Injective => "tvm.topi.x86.schedule_injective",
            CudaInjective => "tvm.topi.cuda.schedule_injective",
            CudaInjectiveFromExisting => "tvm.topi.cuda.schedule_injective_from_existing",
            CudaReduce => "tvm.topi.cuda.schedule_reduce",
            CudaSoftmax => "tvm.topi.cuda.schedule_softmax",
            CudaPool => "tvm.topi.cuda.schedule_pool",
            CudaAdaptivePool => "tvm.topi.cuda.schedule_adaptive_pool",
        }
    }
}

/// Applies `op` to a call's arguments.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: ScheduleOp) -> ApiResult<Value> {
    use ScheduleOp::*;
    match op {
        X86Pool | CudaPool => {
            let a = args.bind("schedule_pool", &["outs", "layout"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let layout = string_arg(a.required("layout")?, "layout")?;
            let (s, r) = start(host, &outs);
            if op == X86Pool {
                x86_pool(&mut r.borrow_mut(), &outs, Some(&layout))?;
            } else {
                let target = current(host);
                cuda_pool(&mut r.borrow_mut(), &outs, target.as_deref())?;
            }
            Ok(s)
        }
        X86AdaptivePool => {
            let a = args.bind("schedule_adaptive_pool", &["outs"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let (s, r) = start(host, &outs);
            x86_pool(&mut r.borrow_mut(), &outs, None)?;
            Ok(s)
        }
        CudaAdaptivePool => {
            let a = args.bind("schedule_adaptive_pool", &["outs", "layout"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let layout = match a.get("layout") {
                Some(g) => string_arg(g, "layout")?,
                None => "NCHW".to_string(),
            };
            let (s, r) = start(host, &outs);
            let target = current(host);
            cuda_adaptive_pool(&mut r.borrow_mut(), &outs, &layout, target.as_deref())?;
            Ok(s)
        }
        X86Reduce | CudaReduce => {
            let a = args.bind("schedule_reduce", &["outs"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let (s, r) = start(host, &outs);
            if op == X86Reduce {
                x86_reduce(&mut r.borrow_mut(), &outs)?;
            } else {
                let target = current(host);
                cuda_reduce(&mut r.borrow_mut(), &outs, target.as_deref())?;
            }
            Ok(s)
        }
        X86Softmax | CudaSoftmax => {
            let a = args.bind("schedule_softmax", &["outs"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let (s, r) = start(host, &outs);
            if op == X86Softmax {
                x86_softmax(&mut r.borrow_mut(), &outs)?;
            } else {
                // `Target.current(allow_none=False)`, read before anything.
                let target = current(host);
                let target = required(target.as_deref())?;
                cuda_softmax(&mut r.borrow_mut(), &outs, target)?;
            }
            Ok(s)
        }
        X86Concatenate => {
            let a = args.bind("schedule_concatenate", &["outs"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let (s, r) = start(host, &outs);
            x86_concatenate(&mut r.borrow_mut(), &outs)?;
            Ok(s)
        }
        X86Injective => crate::topi::schedule_injective_x86(args),
        CudaInjective => {
            let a = args.bind("schedule_injective", &["outs"])?;
            let outs = outs_arg(a.required("outs")?)?;
            let (s, r) = start(host, &outs);
            let target = current(host);
            let mut sch = r.borrow_mut();
            te::auto_inline_injective(&mut sch);
            for out in &outs {
                if !out.shape().iter().any(|d| d.as_int() == Some(0)) {
                    cuda_injective_from_existing(&mut sch, out, target.as_deref())?;
                }
            }
            drop(sch);
            Ok(s)
        }
        CudaInjectiveFromExisting => {
            let a = args.bind("schedule_injective_from_existing", &["sch", "out"])?;
            let sch = crate::functions::schedule_arg(a.required("sch")?)?;
            let out = crate::objects::to_arg_tensor(a.required("out")?)?;
            let target = current(host);
            cuda_injective_from_existing(&mut sch.borrow_mut(), &out, target.as_deref())?;
            Ok(Value::Object(Object::Schedule(sch)))
        }
    }
}

// ---------------------------------------------------------------------
// Common pieces.
// ---------------------------------------------------------------------

/// `outs`: a tensor or a list of them (TOPI's `[outs] if isinstance(outs,
/// Tensor) else outs`).
fn outs_arg(g: &Given) -> ApiResult<Vec<Tensor>> {
    crate::dataflow::tensor_list(g)
}

/// A string argument (`layout`).
fn string_arg(g: &Given, what: &str) -> ApiResult<String> {
    match &g.value {
        Value::Str(s) => Ok(s.to_string()),
        other => Err(type_error(
            g.place(),
            format!(
                "`{what}` must be a layout string such as \"NCHW\", found a {}",
                other.type_name()
            ),
        )),
    }
}

/// `te.create_schedule([x.op for x in outs])`, kept in the session as a
/// program's own schedule is (a report falls back on it).
pub(crate) fn start(host: &mut dyn Host, outs: &[Tensor]) -> (Value, ScheduleRef) {
    let s: ScheduleRef = Rc::new(RefCell::new(te::create_schedule(outs)));
    host.session().failed_lowering = None;
    host.session().schedules.push(s.clone());
    (Value::Object(Object::Schedule(s.clone())), s)
}

/// `outs[0]`, which TOPI reads after creating the schedule.
fn first(outs: &[Tensor]) -> ApiResult<&Tensor> {
    outs.first()
        .ok_or_else(|| ApiError::new(ErrorClass::IndexError, "list index out of range"))
}

/// TOPI's `RuntimeError(f"Unsupported operator: {tag}")`.
fn unsupported(tag: &str) -> ApiError {
    ApiError::new(
        ErrorClass::RuntimeError,
        format!("Unsupported operator: {tag}"),
    )
}

/// `seq[k]` with Python's error when it is out of range.
fn nth<T: Clone>(seq: &[T], k: usize, what: &str) -> ApiResult<T> {
    seq.get(k).cloned().ok_or_else(|| {
        ApiError::new(
            ErrorClass::IndexError,
            format!(
                "{what} index out of range: there is no item {k} of {}",
                seq.len()
            ),
        )
    })
}

fn te_err(e: te::TeError) -> ApiError {
    ApiError::te(e)
}

/// Whether `op` is an output of `s` (`op in s.outputs`).
fn is_output(s: &Schedule, op: &Operation) -> bool {
    s.outputs().contains(op)
}

/// Whether `op` is a compute (`isinstance(op, te.ComputeOp)`).
fn is_compute(op: &Operation) -> bool {
    op.as_compute().is_some()
}

/// Whether `op` is a placeholder (`isinstance(op, te.PlaceholderOp)`).
fn is_placeholder(op: &Operation) -> bool {
    matches!(op.kind(), te::OpKind::Placeholder)
}

/// The current stage's data axes of `t` (`s[t].op.axis`: after `rfactor`
/// or `cache_write`, the rewritten operation's).
fn stage_axis(s: &Schedule, t: &impl AsRef<Operation>) -> ApiResult<Vec<IterVar>> {
    Ok(s.stage(t).map_err(te_err)?.op().axis().to_vec())
}

/// The current stage's reduction axes of `t` (`s[t].op.reduce_axis`).
fn stage_reduce_axis(s: &Schedule, t: &impl AsRef<Operation>) -> ApiResult<Vec<IterVar>> {
    Ok(s.stage(t).map_err(te_err)?.op().reduce_axis().to_vec())
}

/// `s[t].fuse(*axes)`: pairwise from the left; no axes make TVM's
/// one-iteration `singleton` loop.
fn fuse_all(s: &mut Schedule, t: &impl AsRef<Operation>, axes: &[IterVar]) -> ApiResult<IterVar> {
    let Some((head, rest)) = axes.split_first() else {
        return s.fuse_none(t).map_err(te_err);
    };
    let mut fused = head.clone();
    for next in rest {
        fused = s.fuse(t, &fused, next).map_err(te_err)?;
    }
    Ok(fused)
}

/// A fresh thread axis (`te.thread_axis(tag)`; the domain TOPI gives some
/// changes nothing in lowering).
pub(crate) fn thread(tag: &str) -> ApiResult<IterVar> {
    IterVar::thread_axis(tag).map_err(te_err)
}

pub(crate) fn bind(
    s: &mut Schedule,
    t: &impl AsRef<Operation>,
    iv: &IterVar,
    th: &IterVar,
) -> ApiResult<()> {
    s.bind(t, iv, th).map_err(te_err)
}

/// The current target, if any (`Target.current()`).
fn current(host: &mut dyn Host) -> Option<Rc<crate::Target>> {
    host.session().targets.last().cloned()
}

/// The current target, required (`Target.current(allow_none=False)`).
fn required(target: Option<&crate::Target>) -> ApiResult<&crate::Target> {
    target.ok_or_else(|| {
        ApiError::tvm("Target context required. Please set it by constructing a TargetContext")
    })
}

/// An integer attribute of the current target (`target.max_num_threads`:
/// TVM reads `target.attrs[name]`, which fails for a target without it).
fn target_int(target: &crate::Target, name: &str) -> ApiResult<i64> {
    match target.attr(name) {
        Some(crate::target::AttrValue::Int(v)) => Ok(*v),
        _ => Err(ApiError::tvm(format!(
            "cannot find the corresponding key in the Map: the target `{target}` has no `{name}` \
             (TOPI's CUDA schedules need a GPU target such as \"cuda\")"
        ))),
    }
}

/// `Target.current(allow_none=False).max_num_threads`.
fn max_num_threads(target: Option<&crate::Target>) -> ApiResult<i64> {
    target_int(required(target)?, "max_num_threads")
}

/// The constant an attribute holds (`int(op.attrs["axis"])`).
fn attr_int(op: &Operation, name: &str) -> ApiResult<i64> {
    match op.attrs().get(name) {
        Some(te::AttrValue::Int(v)) => Ok(*v),
        Some(te::AttrValue::Expr(e)) => e.as_int().ok_or_else(|| {
            ApiError::value_error(format!(
                "the attribute `{name}` of `{}` is not a constant integer",
                op.name()
            ))
        }),
        _ => Err(ApiError::new(
            ErrorClass::KeyError,
            format!("`{}` has no integer attribute `{name}`", op.name()),
        )),
    }
}

/// The largest factor of `n` in `(1, limit]`, else 1 (TOPI's loop over
/// `range(limit, 1, -1)`).
fn largest_factor(n: i64, limit: i64) -> i64 {
    (2..=limit).rev().find(|i| n % i == 0).unwrap_or(1)
}

/// TOPI's vectorization of the innermost axis of `t` by at most 64 lanes:
/// the whole axis when it is that short, else its largest factor that is.
fn vectorize_last(s: &mut Schedule, t: &Tensor, inner: &IterVar, length: i64) -> ApiResult<()> {
    const LIMIT: i64 = 64;
    if length <= LIMIT {
        s.vectorize(t, inner).map_err(te_err)
    } else {
        let factor = largest_factor(length, LIMIT);
        if factor > 1 {
            let (_, ci) = s.split(t, inner, factor).map_err(te_err)?;
            s.vectorize(t, &ci).map_err(te_err)?;
        }
        Ok(())
    }
}

/// `shape[-1].value`: the constant last size (TOPI fails on a symbolic one).
fn last_const(shape: &[Expr]) -> ApiResult<i64> {
    let last = shape
        .last()
        .ok_or_else(|| ApiError::new(ErrorClass::IndexError, "the shape has no last dimension"))?;
    last.as_int().ok_or_else(|| {
        ApiError::attribute_error(format!(
            "the last dimension `{last}` is symbolic: TOPI vectorizes a constant one"
        ))
    })
}

// ---------------------------------------------------------------------
// x86.
// ---------------------------------------------------------------------

/// x86 `schedule_pool` (`layout` given) or `schedule_adaptive_pool`.
fn x86_pool(s: &mut Schedule, outs: &[Tensor], layout: Option<&str>) -> ApiResult<()> {
    let out0 = first(outs)?.clone();
    let prefix = if layout.is_some() {
        "pool"
    } else {
        "adaptive_pool"
    };
    let do_vectorize = match layout {
        Some(l) => {
            let last = l.chars().last().ok_or_else(|| {
                ApiError::new(ErrorClass::IndexError, "string index out of range")
            })?;
            !"DHWdhw".contains(last)
        }
        None => false,
    };
    let mut scheduled: Vec<Operation> = Vec::new();
    x86_pool_traverse(
        s,
        &out0,
        out0.op(),
        prefix,
        do_vectorize,
        layout.is_some(),
        &mut scheduled,
    )
}

fn x86_pool_traverse(
    s: &mut Schedule,
    out0: &Tensor,
    op: &Operation,
    prefix: &str,
    do_vectorize: bool,
    padded: bool,
    scheduled: &mut Vec<Operation>,
) -> ApiResult<()> {
    if crate::topi::is_injective(op.tag()) {
        if !is_output(s, op) {
            s.compute_inline(op).map_err(te_err)?;
        }
        for t in op.input_tensors() {
            if is_compute(t.op()) && !scheduled.contains(t.op()) {
                arith::stack::grow(|| {
                    x86_pool_traverse(s, out0, t.op(), prefix, do_vectorize, padded, scheduled)
                })?;
            }
        }
    } else if op.tag().starts_with(prefix) {
        // Average pools divide in a second loop: that one runs in parallel.
        if op != out0.op() {
            let axis = stage_axis(s, out0)?;
            let fused = s
                .fuse(out0, &nth(&axis, 0, "axis")?, &nth(&axis, 1, "axis")?)
                .map_err(te_err)?;
            s.parallel(out0, &fused).map_err(te_err)?;
        }
        if padded {
            let padded_input = nth(&op.input_tensors(), 0, "input_tensors")?;
            if is_compute(padded_input.op()) {
                s.compute_inline(padded_input.op()).map_err(te_err)?;
            }
        }
        x86_parallel_pool(s, &op.output(), out0.shape(), do_vectorize)?;
    } else {
        return Err(unsupported(op.tag()));
    }
    scheduled.push(op.clone());
    Ok(())
}

/// TOPI's `_parallel_sch`: the outer axes of the pool fused and in
/// parallel; with `do_vectorize`, the reduction loops moved inside and the
/// last axis vectorized.
fn x86_parallel_pool(
    s: &mut Schedule,
    pool: &Tensor,
    oshape: &[Expr],
    do_vectorize: bool,
) -> ApiResult<()> {
    let axis = stage_axis(s, pool)?;
    let n = axis.len();
    let parallel_axes = match n {
        _ if n >= 5 => 3,
        _ if n >= 3 => 2,
        _ => {
            let a0 = nth(&axis, 0, "axis")?;
            return s.parallel(pool, &a0).map_err(te_err);
        }
    };
    let fused = fuse_all(s, pool, &axis[..parallel_axes])?;
    if do_vectorize {
        let mut order = vec![fused.clone()];
        order.extend(axis[parallel_axes..n - 1].iter().cloned());
        let k = stage_reduce_axis(s, pool)?;
        let fuse_k = fuse_all(s, pool, &k)?;
        let c = axis[n - 1].clone();
        order.push(fuse_k);
        order.push(c.clone());
        s.reorder(pool, &order).map_err(te_err)?;
        let length = last_const(oshape)?;
        vectorize_last(s, pool, &c, length)?;
    }
    s.parallel(pool, &fused).map_err(te_err)
}

/// x86 `schedule_reduce`.
fn x86_reduce(s: &mut Schedule, outs: &[Tensor]) -> ApiResult<()> {
    let out0 = first(outs)?.clone();
    x86_reduce_after(s, out0.op(), &mut Vec::new())
}

/// TOPI's `traverse_before_reduce` (x86's and CUDA's): injective
/// producers of a reduction are inlined.
fn reduce_before(
    s: &mut Schedule,
    op: &Operation,
    scheduled: &mut Vec<Operation>,
) -> ApiResult<()> {
    if is_placeholder(op) {
        return Ok(());
    }
    if crate::topi::is_injective(op.tag()) {
        s.compute_inline(op).map_err(te_err)?;
        for t in op.input_tensors() {
            if !scheduled.contains(t.op()) {
                arith::stack::grow(|| reduce_before(s, t.op(), scheduled))?;
            }
        }
    } else {
        return Err(unsupported(op.tag()));
    }
    scheduled.push(op.clone());
    Ok(())
}

/// The producers of a reduction that [`reduce_before`] inlines: its
/// inputs, or for an index reduction those of the tuple it reads.
fn reduce_producers(op: &Operation, idx: bool) -> ApiResult<Vec<Tensor>> {
    Ok(if idx {
        nth(&op.input_tensors(), 0, "input_tensors")?
            .op()
            .input_tensors()
    } else {
        op.input_tensors()
    })
}

/// x86's `traverse_after_reduce`: broadcast consumers scheduled as x86
/// injective, each reduction met by [`x86_schedule_reduce_stage`], its
/// producers inlined.
fn x86_reduce_after(
    s: &mut Schedule,
    op: &Operation,
    scheduled: &mut Vec<Operation>,
) -> ApiResult<()> {
    let tag = op.tag();
    if crate::topi::is_broadcast(tag) {
        if !scheduled.contains(op) {
            crate::topi::x86_injective_from_existing(s, &op.output()).map_err(te_err)?;
        }
        for t in op.input_tensors() {
            arith::stack::grow(|| x86_reduce_after(s, t.op(), scheduled))?;
        }
    } else if tag == "comm_reduce" || tag == "comm_reduce_idx" {
        let idx = tag == "comm_reduce_idx";
        x86_schedule_reduce_stage(s, op, idx)?;
        for t in reduce_producers(op, idx)? {
            if !scheduled.contains(t.op()) {
                arith::stack::grow(|| reduce_before(s, t.op(), scheduled))?;
            }
        }
    } else if !is_placeholder(op) {
        let shown = Value::Object(Object::Op(op.clone()));
        return Err(ApiError::new(
            ErrorClass::RuntimeError,
            format!("Unsupported operator: {shown} (tag: {tag})"),
        ));
    }
    scheduled.push(op.clone());
    Ok(())
}

/// x86 `_schedule_reduce`: the outer axes of the reduction fused until
/// they give 128 parallel iterations (with a constant shape; else the
/// first three of five or more axes, or all) and run in parallel.
fn x86_schedule_reduce_stage(s: &mut Schedule, op: &Operation, idx: bool) -> ApiResult<()> {
    let out = if idx {
        let real = op.output();
        let axis = stage_axis(s, &real)?;
        fuse_all(s, &real, &axis)?;
        nth(&op.input_tensors(), 0, "input_tensors")?
    } else {
        op.output()
    };
    let axis = stage_axis(s, &out)?;
    let const_shape = out.shape().iter().all(|d| d.as_int().is_some());
    let fused = if const_shape {
        let mut parallelism: i64 = 1;
        let mut fuse_axes = Vec::new();
        while fuse_axes.len() < axis.len() && parallelism < 128 {
            let ivar = &axis[fuse_axes.len()];
            let extent = ivar.dom().and_then(|d| d.extent.as_int()).unwrap_or(1);
            parallelism = parallelism.saturating_mul(extent);
            fuse_axes.push(ivar.clone());
        }
        fuse_all(s, &out, &fuse_axes)?
    } else if axis.len() >= 5 {
        fuse_all(s, &out, &axis[..3])?
    } else {
        fuse_all(s, &out, &axis)?
    };
    s.parallel(&out, &fused).map_err(te_err)
}

/// x86 `schedule_softmax`: through `traverse_inline`, each softmax
/// stage's outer axes fused and in parallel.
fn x86_softmax(s: &mut Schedule, outs: &[Tensor]) -> ApiResult<()> {
    let out0 = first(outs)?.clone();
    traverse_inline(s, out0.op(), &mut |s, op| {
        if op.tag().contains("softmax") {
            x86_softmax_stage(s, op, outs)?;
        }
        Ok(())
    })
}

/// TOPI's `traverse_inline`: from `op` towards the inputs, injective
/// stages that are not outputs inlined; `callback` on each operation after
/// its inputs.
pub(crate) fn traverse_inline(
    s: &mut Schedule,
    final_op: &Operation,
    callback: &mut dyn FnMut(&mut Schedule, &Operation) -> ApiResult<()>,
) -> ApiResult<()> {
    fn go(
        s: &mut Schedule,
        op: &Operation,
        callback: &mut dyn FnMut(&mut Schedule, &Operation) -> ApiResult<()>,
        visited: &mut Vec<Operation>,
    ) -> ApiResult<()> {
        if visited.contains(op) {
            return Ok(());
        }
        visited.push(op.clone());
        if crate::topi::is_injective(op.tag()) {
            if !is_output(s, op) {
                s.compute_inline(op).map_err(te_err)?;
            }
            for t in op.input_tensors() {
                if is_compute(t.op()) {
                    arith::stack::grow(|| go(s, t.op(), callback, visited))?;
                }
            }
        }
        callback(s, op)
    }
    go(s, final_op, callback, &mut Vec::new())
}

/// The stages of one softmax, as TOPI finds them from its last stage.
struct SoftmaxParts {
    exp: Option<Tensor>,
    delta: Option<Tensor>,
    max_elem: Tensor,
    expsum: Tensor,
    axis: i64,
}

/// TOPI's reading of a softmax's stages from its tag: `softmax_output`
/// (`exp`, `expsum`; `max_elem` read by `exp`), `fast_softmax_output`
/// (with `delta`), `log_softmax_output` (`max_elem`, `expsum`).
fn softmax_parts(s: &Schedule, op: &Operation) -> ApiResult<SoftmaxParts> {
    let inputs = op.input_tensors();
    let stage_inputs = |t: &Tensor| -> ApiResult<Vec<Tensor>> {
        Ok(s.stage(t).map_err(te_err)?.op().input_tensors())
    };
    let tag = op.tag();
    let (exp, delta, max_elem, expsum) = match tag {
        "softmax_output" => {
            let exp = nth(&inputs, 0, "input_tensors")?;
            let expsum = nth(&inputs, 1, "input_tensors")?;
            let max_elem = nth(&stage_inputs(&exp)?, 1, "input_tensors")?;
            (Some(exp), None, max_elem, expsum)
        }
        "fast_softmax_output" => {
            let exp = nth(&inputs, 0, "input_tensors")?;
            let expsum = nth(&inputs, 1, "input_tensors")?;
            let delta = nth(&stage_inputs(&exp)?, 0, "input_tensors")?;
            let max_elem = nth(&stage_inputs(&delta)?, 1, "input_tensors")?;
            (Some(exp), Some(delta), max_elem, expsum)
        }
        "log_softmax_output" => {
            let max_elem = nth(&inputs, 1, "input_tensors")?;
            let expsum = nth(&inputs, 2, "input_tensors")?;
            (None, None, max_elem, expsum)
        }
        _ => {
            return Err(ApiError::value_error(format!(
                "Tag is expected to be softmax_output or log_softmax_output. Got {tag}"
            )))
        }
    };
    let axis = attr_int(op, "axis")?;
    Ok(SoftmaxParts {
        exp,
        delta,
        max_elem,
        expsum,
        axis,
    })
}

/// x86 `_schedule_softmax`.
fn x86_softmax_stage(s: &mut Schedule, softmax_op: &Operation, outs: &[Tensor]) -> ApiResult<()> {
    let p = softmax_parts(s, softmax_op)?;
    let output = first(outs)?.clone();
    let same_shape = shapes_equal(output.shape(), softmax_op.shape());
    let output_op = if same_shape {
        output.op().clone()
    } else {
        crate::topi::x86_injective_from_existing(s, &output).map_err(te_err)?;
        softmax_op.clone()
    };
    let out_axis = output_op.axis().to_vec();
    let axis = usize::try_from(p.axis)
        .ok()
        .filter(|a| *a <= out_axis.len())
        .ok_or_else(|| {
            ApiError::new(
                ErrorClass::IndexError,
                format!(
                    "softmax axis {} is out of range of the output's axes",
                    p.axis
                ),
            )
        })?;
    let fused = fuse_all(s, &output_op, &out_axis[..axis])?;
    s.parallel(&output_op, &fused).map_err(te_err)?;
    if softmax_op != &output_op {
        s.compute_at(softmax_op, &output_op, &fused)
            .map_err(te_err)?;
    }
    s.compute_at(&p.max_elem, &output_op, &fused)
        .map_err(te_err)?;
    s.compute_at(&p.expsum, &output_op, &fused)
        .map_err(te_err)?;
    if let (Some(exp), Some(delta)) = (&p.exp, &p.delta) {
        s.compute_inline(exp).map_err(te_err)?;
        s.compute_inline(delta).map_err(te_err)?;
    }
    if let Some(exp) = &p.exp {
        s.compute_at(exp, &output_op, &fused).map_err(te_err)?;
    }
    Ok(())
}

/// Python's `list(a.shape) == list(b.shape)`: the same sizes.
fn shapes_equal(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| match (x.as_int(), y.as_int()) {
                (Some(i), Some(j)) => i == j,
                _ => x == y,
            })
}

/// x86 `schedule_concatenate`: injective stages inlined, the outer axes
/// of the first output fused and in parallel (the last one vectorized
/// when there are five or more).
fn x86_concatenate(s: &mut Schedule, outs: &[Tensor]) -> ApiResult<()> {
    let x = first(outs)?.clone();
    te::auto_inline_injective(s);
    let axis = stage_axis(s, &x)?;
    let n = axis.len();
    if n >= 5 {
        let fused = fuse_all(s, &x, &axis[..3])?;
        if let Some(length) = x.shape().last().and_then(Expr::as_int) {
            vectorize_last(s, &x, &axis[n - 1], length)?;
        }
        s.parallel(&x, &fused).map_err(te_err)
    } else if n >= 3 {
        let fused = fuse_all(s, &x, &axis[..2])?;
        s.parallel(&x, &fused).map_err(te_err)
    } else {
        let a0 = nth(&axis, 0, "axis")?;
        s.parallel(&x, &a0).map_err(te_err)
    }
}

// ---------------------------------------------------------------------
// CUDA.
// ---------------------------------------------------------------------

/// CUDA `schedule_injective_from_existing`: all axes fused, then split
/// into blocks of `max_num_threads` threads (two levels past 256 blocks;
/// pairs of `float16` vectorized).
fn cuda_injective_from_existing(
    s: &mut Schedule,
    out: &Tensor,
    target: Option<&crate::Target>,
) -> ApiResult<()> {
    let axis = stage_axis(s, out)?;
    let mut fused = fuse_all(s, out, &axis)?;
    let mut num_thread = max_num_threads(target)?;
    let mut max_block: i64 = 256;
    let vector_width: i64 = if out.dtype() == tir::DataType::Float16 {
        2
    } else {
        1
    };
    let is_dynamic = out.shape().iter().any(|d| d.as_int().is_none());
    let (need_block_split, const_size) = match const_size(out.shape())? {
        Some(size) => {
            if vector_width > 1 && size % vector_width == 0 {
                let mut remain = size / vector_width;
                let mut cand = Vec::new();
                for max_size in [num_thread, max_block] {
                    let c = if remain % max_size == 0 {
                        max_size
                    } else {
                        (1..=max_size).rev().find(|i| remain % i == 0).unwrap_or(1)
                    };
                    cand.push(c);
                    remain /= c;
                }
                let ratio =
                    (cand[0] as f64 * cand[1] as f64) / (max_block as f64 * num_thread as f64);
                if ratio >= 0.7 {
                    num_thread = cand[0];
                    max_block = cand[1];
                }
            }
            let limit = max_block
                .checked_mul(num_thread)
                .and_then(|x| x.checked_mul(vector_width))
                .unwrap_or(i64::MAX);
            (size > limit, size)
        }
        None => (false, 0),
    };
    if vector_width > 1 {
        let (f, v) = s.split(out, &fused, vector_width).map_err(te_err)?;
        s.vectorize(out, &v).map_err(te_err)?;
        fused = f;
    }
    if need_block_split {
        let (xo, xi) = s
            .split(out, &fused, num_thread * max_block)
            .map_err(te_err)?;
        let (bx, tx) = s.split(out, &xi, num_thread).map_err(te_err)?;
        s.reorder(out, &[bx.clone(), tx.clone(), xo])
            .map_err(te_err)?;
        bind(s, out, &bx, &thread("blockIdx.x")?)?;
        bind(s, out, &tx, &thread("threadIdx.x")?)?;
    } else {
        if is_dynamic {
            num_thread /= 2;
        }
        let factor = if const_size != 0 && const_size < num_thread {
            const_size
        } else {
            num_thread
        };
        let (bx, tx) = s.split(out, &fused, factor).map_err(te_err)?;
        bind(s, out, &tx, &thread("threadIdx.x")?)?;
        bind(s, out, &bx, &thread("blockIdx.x")?)?;
    }
    Ok(())
}

/// `get_const_int(prod(shape))`: the number of elements when it is a
/// constant (after simplification), `None` when symbolic.
fn const_size(shape: &[Expr]) -> ApiResult<Option<i64>> {
    let mut product = Value::Int(1);
    for (k, d) in shape.iter().enumerate() {
        let v = d
            .as_int()
            .map_or_else(|| Value::Index(d.clone()), Value::Int);
        product = match (&product, &v) {
            (Value::Int(a), Value::Int(b)) if k > 0 => {
                Value::Int(a.checked_mul(*b).ok_or_else(|| {
                    ApiError::new(
                        ErrorClass::OverflowError,
                        "the number of elements of the output overflows a 64-bit integer",
                    )
                })?)
            }
            _ if k == 0 => v,
            _ => crate::binary(crate::BinaryOp::Mul, &product, &v)?,
        };
    }
    Ok(match product {
        Value::Int(i) => Some(i),
        Value::Index(e) => {
            let e = arith::Analyzer::new().simplify(&e).unwrap_or(e);
            e.as_int()
        }
        _ => None,
    })
}

/// CUDA `schedule_reduce` (`schedule_reduce_impl` with CUDA's stage
/// schedules).
fn cuda_reduce(s: &mut Schedule, outs: &[Tensor], target: Option<&crate::Target>) -> ApiResult<()> {
    // `_enable_auto_inline`: no stage is scheduled yet, so it is whether no
    // intermediate compute reduces.
    let auto_inline = !s
        .stages()
        .iter()
        .any(|st| !st.is_output() && is_compute(st.op()) && !st.op().reduce_axis().is_empty());
    let mut scheduled = Vec::new();
    for out in outs {
        cuda_reduce_after(s, out.op(), &mut scheduled, auto_inline, target)?;
    }
    Ok(())
}

/// CUDA's `traverse_after_reduce`.
fn cuda_reduce_after(
    s: &mut Schedule,
    op: &Operation,
    scheduled: &mut Vec<Operation>,
    auto_inline: bool,
    target: Option<&crate::Target>,
) -> ApiResult<()> {
    let tag = op.tag();
    if crate::topi::is_broadcast(tag) {
        if !scheduled.contains(op) {
            cuda_injective_from_existing(s, &op.output(), target)?;
        }
        for t in op.input_tensors() {
            if !scheduled.contains(t.op()) {
                if auto_inline {
                    arith::stack::grow(|| reduce_before(s, t.op(), scheduled))?;
                } else {
                    arith::stack::grow(|| {
                        cuda_reduce_after(s, t.op(), scheduled, auto_inline, target)
                    })?;
                }
            }
        }
    } else if tag == "comm_reduce" || tag == "comm_reduce_idx" {
        let idx = tag == "comm_reduce_idx";
        if !scheduled.contains(op) {
            cuda_schedule_reduce_stage(s, op, idx, target)?;
        }
        for t in reduce_producers(op, idx)? {
            if !scheduled.contains(t.op()) {
                arith::stack::grow(|| reduce_before(s, t.op(), scheduled))?;
            }
        }
    } else if !is_placeholder(op) {
        return Err(unsupported(tag));
    }
    scheduled.push(op.clone());
    Ok(())
}

/// CUDA `_schedule_reduce`: the reduction axes fused, split by the number
/// of threads and factored across `threadIdx.x`; the outputs fused and
/// split over `blockIdx.x` and `threadIdx.y` (or, reducing everything,
/// the target's `max_num_threads` threads), stored by thread 0.
pub(crate) fn cuda_schedule_reduce_stage(
    s: &mut Schedule,
    op: &Operation,
    idx: bool,
    target: Option<&crate::Target>,
) -> ApiResult<()> {
    if idx {
        return Err(ApiError::not_supported(
            "`topi.cuda.schedule_reduce` of an index reduction (`comm_reduce_idx`, argmax): \
             its `rfactor` makes two tensors, which rangefinder's `rfactor` does not",
        ));
    }
    let data_out = op.output();
    if stage_reduce_axis(s, &data_out)?.is_empty() {
        return cuda_injective_from_existing(s, &op.output(), target);
    }
    let all_reduce = stage_axis(s, &data_out)?.is_empty();
    let (num_thread, block_x, thread_x, thread_y) = if !all_reduce {
        let num_thread = match target {
            Some(t) if t.kind == "opencl" || t.kind == "metal" => 16,
            _ => 32,
        };
        (
            num_thread,
            Some(thread("blockIdx.x")?),
            thread("threadIdx.x")?,
            Some(thread("threadIdx.y")?),
        )
    } else {
        (max_num_threads(target)?, None, thread("threadIdx.x")?, None)
    };
    let reduce_axis = stage_reduce_axis(s, &data_out)?;
    let fused_reduce = fuse_all(s, &data_out, &reduce_axis)?;
    let (_ko, ki) = s
        .split(&data_out, &fused_reduce, num_thread)
        .map_err(te_err)?;
    let data_out_rf = s.rfactor(&data_out, &ki, 0).map_err(te_err)?;
    let tx = nth(&stage_reduce_axis(s, &data_out)?, 0, "reduce_axis")?;
    bind(s, &data_out, &tx, &thread_x)?;
    s.compute_at(&data_out_rf, &data_out, &tx).map_err(te_err)?;
    let thread_x_value = Value::Object(Object::ThreadAxis(thread_x));
    let tx_is_0 = crate::compare(arith::CmpOp::Eq, &thread_x_value, &Value::Int(0))?;
    let predicate = match (block_x, thread_y) {
        (Some(block_x), Some(thread_y)) => {
            let axis = stage_axis(s, &data_out)?;
            let fused_outer = fuse_all(s, &data_out, &axis)?;
            let (bx, outer_in) = s
                .split(&data_out, &fused_outer, num_thread)
                .map_err(te_err)?;
            bind(s, &data_out, &outer_in, &thread_y)?;
            bind(s, &data_out, &bx, &block_x)?;
            // `block_x * num_thread + thread_y < reduce(mul, shape)`.
            let block = Value::Object(Object::ThreadAxis(block_x));
            let row = crate::binary(crate::BinaryOp::Mul, &block, &Value::Int(num_thread))?;
            let row = crate::binary(
                crate::BinaryOp::Add,
                &row,
                &Value::Object(Object::ThreadAxis(thread_y)),
            )?;
            let size = shape_product(data_out.shape())?;
            let inside = crate::compare(arith::CmpOp::Lt, &row, &size)?;
            Expr::and(condition(&tx_is_0)?, condition(&inside)?)
        }
        _ => condition(&tx_is_0)?,
    };
    s.set_store_predicate(&data_out, predicate).map_err(te_err)
}

/// `reduce(mul, shape)`: Python integers multiplied, an expression once a
/// size is symbolic.
fn shape_product(shape: &[Expr]) -> ApiResult<Value> {
    let mut items = crate::objects::shape_value(shape)
        .sequence()
        .unwrap_or_default()
        .into_iter();
    let Some(mut product) = items.next() else {
        return Err(ApiError::type_error(
            "reduce() of empty iterable with no initial value",
        ));
    };
    for v in items {
        product = match (&product, &v) {
            (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_mul(*y).ok_or_else(|| {
                ApiError::new(
                    ErrorClass::OverflowError,
                    "the number of elements of the output overflows a 64-bit integer",
                )
            })?),
            _ => crate::binary(crate::BinaryOp::Mul, &product, &v)?,
        };
    }
    Ok(product)
}

/// A condition as `tvm.tir.all` takes it.
fn condition(v: &Value) -> ApiResult<Expr> {
    match v {
        Value::Bool(b) => Ok(Expr::bool(*b)),
        Value::Index(e) => Ok(e.clone()),
        other => Err(ApiError::type_error(format!(
            "expected a condition, found a {}",
            other.type_name()
        ))),
    }
}

/// CUDA `schedule_softmax`.
fn cuda_softmax(s: &mut Schedule, outs: &[Tensor], target: &crate::Target) -> ApiResult<()> {
    let out0 = first(outs)?.clone();
    // The non-two-dimensional case schedules stages as injective, which
    // reads `max_num_threads` from the target again.
    traverse_inline(s, out0.op(), &mut |s, op| {
        if op.tag().contains("softmax") {
            cuda_softmax_stage(s, op, outs, target)?;
        }
        Ok(())
    })
}

/// CUDA `_schedule_softmax`.
fn cuda_softmax_stage(
    s: &mut Schedule,
    softmax_op: &Operation,
    outs: &[Tensor],
    target: &crate::Target,
) -> ApiResult<()> {
    let p = softmax_parts(s, softmax_op)?;
    let output = first(outs)?.clone();
    let warp = match target.kind.as_str() {
        "nvptx" | "rocm" => matches!(
            softmax_op.dtype(),
            tir::DataType::Float32 | tir::DataType::Int32
        ),
        "cuda" => true,
        _ => false,
    };
    if output.shape().len() != 2 {
        let mut ops = vec![
            p.max_elem.op().clone(),
            p.expsum.op().clone(),
            softmax_op.clone(),
        ];
        if let Some(d) = &p.delta {
            ops.push(d.op().clone());
        }
        if let Some(e) = &p.exp {
            ops.push(e.op().clone());
        }
        if softmax_op != output.op() {
            ops.push(output.op().clone());
        }
        for op in ops {
            cuda_injective_from_existing(s, &op.output(), Some(target))?;
        }
        return Ok(());
    }
    let axis = usize::try_from(p.axis)
        .ok()
        .filter(|a| *a < 2)
        .ok_or_else(|| {
            ApiError::new(
                ErrorClass::IndexError,
                format!("softmax axis {} is out of range of two axes", p.axis),
            )
        })?;
    let other = axis ^ 1;
    let out_axis = output.op().axis().to_vec();
    if warp {
        let num_thread = target_int(target, "thread_warp_size")?;
        let block_x = thread("blockIdx.x")?;
        let thread_x = thread("threadIdx.x")?;
        // (4) softmax
        let (xo, xi) = s
            .split_nparts(&output, &out_axis[axis], num_thread)
            .map_err(te_err)?;
        let (xio, xii) = s.split(&output, &xi, 4).map_err(te_err)?;
        s.vectorize(&output, &xii).map_err(te_err)?;
        bind(s, &output, &xo, &thread_x)?;
        bind(s, &output, &out_axis[other], &block_x)?;
        s.reorder(
            &output,
            &[out_axis[other].clone(), xo.clone(), xio.clone(), xii],
        )
        .map_err(te_err)?;
        if softmax_op != output.op() {
            s.compute_at(softmax_op, &output, &xio).map_err(te_err)?;
            let sm_axis = nth(softmax_op.axis(), axis, "axis")?;
            s.vectorize(softmax_op, &sm_axis).map_err(te_err)?;
        }
        // (3) expsum
        let k = nth(p.expsum.op().reduce_axis(), 0, "reduce_axis")?;
        let (ko, _) = s.split_nparts(&p.expsum, &k, num_thread).map_err(te_err)?;
        bind(s, &p.expsum, &ko, &thread_x)?;
        s.compute_at(&p.expsum, &output, &xo).map_err(te_err)?;
        // (2) exp
        let mut exp_xo = None;
        if let (Some(exp), Some(delta)) = (&p.exp, &p.delta) {
            s.compute_inline(exp).map_err(te_err)?;
            s.compute_inline(delta).map_err(te_err)?;
        } else if let Some(exp) = &p.exp {
            let exp_axis = exp.op().axis().to_vec();
            let (exo, exi) = s
                .split_nparts(exp, &nth(&exp_axis, axis, "axis")?, num_thread)
                .map_err(te_err)?;
            let (_, exii) = s.split(exp, &exi, 4).map_err(te_err)?;
            s.vectorize(exp, &exii).map_err(te_err)?;
            bind(s, exp, &exo, &thread_x)?;
            let expsum_axis = nth(p.expsum.op().axis(), 0, "axis")?;
            s.compute_at(exp, &p.expsum, &expsum_axis).map_err(te_err)?;
            s.compute_at(exp, &output, &out_axis[other])
                .map_err(te_err)?;
            s.set_scope(exp, "warp").map_err(te_err)?;
            exp_xo = Some(exo);
        }
        // (1) max_elem
        let k = nth(p.max_elem.op().reduce_axis(), 0, "reduce_axis")?;
        let (ko, _) = s
            .split_nparts(&p.max_elem, &k, num_thread)
            .map_err(te_err)?;
        bind(s, &p.max_elem, &ko, &thread_x)?;
        match (&p.exp, &p.delta, exp_xo) {
            (Some(exp), None, Some(exo)) => {
                s.compute_at(&p.max_elem, exp, &exo).map_err(te_err)?;
            }
            _ => {
                bind(s, &p.max_elem, &ko, &thread_x)?;
                let m0 = nth(p.max_elem.op().axis(), 0, "axis")?;
                bind(s, &p.max_elem, &m0, &block_x)?;
            }
        }
    } else {
        let num_thread: i64 = 64;
        let block_x = thread("blockIdx.x")?;
        let thread_x = thread("threadIdx.x")?;
        if let (Some(exp), Some(delta)) = (&p.exp, &p.delta) {
            s.compute_inline(exp).map_err(te_err)?;
            s.compute_inline(delta).map_err(te_err)?;
        } else if let Some(exp) = &p.exp {
            let e = nth(exp.op().axis(), other, "axis")?;
            bind(s, exp, &e, &block_x)?;
        }
        let m0 = nth(p.max_elem.op().axis(), 0, "axis")?;
        bind(s, &p.max_elem, &m0, &block_x)?;
        let k = nth(p.expsum.op().reduce_axis(), 0, "reduce_axis")?;
        let (_ko, ki) = s.split(&p.expsum, &k, num_thread).map_err(te_err)?;
        let ef = s.rfactor(&p.expsum, &ki, 0).map_err(te_err)?;
        let e0 = nth(&stage_axis(s, &p.expsum)?, 0, "axis")?;
        bind(s, &p.expsum, &e0, &block_x)?;
        let r0 = nth(&stage_reduce_axis(s, &p.expsum)?, 0, "reduce_axis")?;
        bind(s, &p.expsum, &r0, &thread_x)?;
        s.compute_at(&ef, &p.expsum, &r0).map_err(te_err)?;
        let tx_is_0 = crate::compare(
            arith::CmpOp::Eq,
            &Value::Index(thread_x.expr()),
            &Value::Int(0),
        )?;
        s.set_store_predicate(&p.expsum, condition(&tx_is_0)?)
            .map_err(te_err)?;
        let (tx, xi) = s
            .split_nparts(&output, &out_axis[axis], num_thread)
            .map_err(te_err)?;
        bind(s, &output, &out_axis[other], &block_x)?;
        bind(s, &output, &tx, &thread_x)?;
        s.reorder(&output, &[out_axis[other].clone(), tx.clone(), xi])
            .map_err(te_err)?;
        if softmax_op != output.op() {
            s.compute_at(softmax_op, &output, &tx).map_err(te_err)?;
        }
    }
    Ok(())
}

/// CUDA `schedule_pool`: padding and injective stages inlined; the pool
/// (or the output it feeds) fused and split over `blockIdx.x` and
/// `threadIdx.x`, the pool computed per thread in local memory.
fn cuda_pool(s: &mut Schedule, outs: &[Tensor], target: Option<&crate::Target>) -> ApiResult<()> {
    let out0 = first(outs)?.clone();
    cuda_pool_traverse(
        s,
        out0.op(),
        &mut Vec::new(),
        &|s, op| {
            let padded_input = nth(&op.input_tensors(), 0, "input_tensors")?;
            if is_compute(padded_input.op()) {
                s.compute_inline(padded_input.op()).map_err(te_err)?;
            }
            let threads = max_num_threads(target)?;
            cuda_pool_threads(s, &op.output(), &out0, threads)
        },
        "pool",
    )
}

/// The traversal of CUDA's pool schedules: injective stages inlined
/// (outputs kept), the stage whose tag starts with `prefix` given to
/// `schedule`, any other an error.
fn cuda_pool_traverse(
    s: &mut Schedule,
    op: &Operation,
    scheduled: &mut Vec<Operation>,
    schedule: &dyn Fn(&mut Schedule, &Operation) -> ApiResult<()>,
    prefix: &str,
) -> ApiResult<()> {
    if crate::topi::is_injective(op.tag()) {
        if !is_output(s, op) {
            s.compute_inline(op).map_err(te_err)?;
        }
        for t in op.input_tensors() {
            if is_compute(t.op()) && !scheduled.contains(t.op()) {
                arith::stack::grow(|| cuda_pool_traverse(s, t.op(), scheduled, schedule, prefix))?;
            }
        }
    } else if op.tag().starts_with(prefix) {
        schedule(s, op)?;
    } else {
        return Err(unsupported(op.tag()));
    }
    scheduled.push(op.clone());
    Ok(())
}

/// One thread per element of the pool when it is an output (computed
/// into a `local` cache), else of the first output (the pool `local`,
/// computed at each thread).
fn cuda_pool_threads(
    s: &mut Schedule,
    pool: &Tensor,
    out0: &Tensor,
    threads: i64,
) -> ApiResult<()> {
    let (out, local) = if is_output(s, pool.op()) {
        let ol = s.cache_write(pool, "local").map_err(te_err)?;
        (pool.clone(), ol)
    } else {
        s.set_scope(pool, "local").map_err(te_err)?;
        (out0.op().output(), pool.clone())
    };
    let axis = stage_axis(s, &out)?;
    let fused = fuse_all(s, &out, &axis)?;
    let (bx, tx) = s.split(&out, &fused, threads).map_err(te_err)?;
    bind(s, &out, &bx, &thread("blockIdx.x")?)?;
    bind(s, &out, &tx, &thread("threadIdx.x")?)?;
    s.compute_at(&local, &out, &tx).map_err(te_err)
}

/// CUDA `schedule_adaptive_pool`: a global pool (an output of 1 x 1 in
/// `layout`) as a CUDA reduction, followed by the injective schedule of
/// the output it feeds; any other as [`cuda_pool_threads`].
fn cuda_adaptive_pool(
    s: &mut Schedule,
    outs: &[Tensor],
    layout: &str,
    target: Option<&crate::Target>,
) -> ApiResult<()> {
    let out0 = first(outs)?.clone();
    cuda_pool_traverse(
        s,
        out0.op(),
        &mut Vec::new(),
        &|s, op| {
            let oshape = op.shape();
            let one =
                |k: usize| -> ApiResult<bool> { Ok(nth(oshape, k, "shape")?.as_int() == Some(1)) };
            let global = (layout == "NCHW" && one(2)? && one(3)?)
                || (layout == "NHWC" && one(1)? && one(2)?);
            if global {
                cuda_schedule_reduce_stage(s, op, false, target)?;
                if op != out0.op() {
                    cuda_injective_from_existing(s, &out0, target)?;
                }
                Ok(())
            } else {
                // TOPI reads the target after choosing where the pool
                // goes; either way a missing one fails the call.
                cuda_pool_threads(s, &op.output(), &out0, max_num_threads(target)?)
            }
        },
        "adaptive_pool",
    )
}
