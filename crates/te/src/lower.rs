//! ScheduleOps: lowering a bounded schedule into the loop IR (`tir`).
//!
//! Each stage becomes a `produce` block with one loop per leaf iteration
//! variable, in leaf order, over the ranges [`infer_bound`] gave them. A
//! stage computed at a loop of another is emitted inside that loop, with
//! its storage there too; a reduction gets an initialisation nest before
//! the loops over its reduction axes. Loops of extent 1 are dropped and
//! their variable replaced by its value, as TVM does.
//!
//! Storage comes in two styles ([`StorageStyle`]): TVM's `realize` before
//! storage flattening (absolute indices, a region per iteration), or
//! `allocate` (indices relative to the region, buffers shaped by the
//! largest region over all iterations) as `tvm.lower` prints.

use crate::bound::{infer_bound, storage_scope, Bounds};
use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::{OpId, Tensor};
use crate::schedule::{Attach, Schedule};
use crate::simp::simp;
use crate::thread::ThreadTag;
use crate::value::{BinaryOp, Value as TeValue, ValueKind};
use arith::{Expr, IdMap, Range, Var};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use tir::{BinOp, Buffer, PrimFunc, Stmt, Value};

/// How lowered stages get storage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StorageStyle {
    /// `realize B(region)` with absolute indices (TVM's ScheduleOps).
    Realize,
    /// `allocate B[...]` with indices relative to the region; each buffer is
    /// shaped by the largest region over the iterations (`tvm.lower`).
    #[default]
    Allocate,
}

/// How many points [`allocation_shape`] may enumerate to find the largest
/// region exactly before falling back to constant bounds.
const ENUMERATION_LIMIT: u64 = 1 << 16;

/// `tvm.lower(s, args, simple_mode=True)`: bounds, then lowering with
/// `allocate` storage. `args` become the function's parameters.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let c = te::compute_named([8], &["j"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
/// let mut s = te::create_schedule(&[c.clone()]);
/// let (jo, _ji) = s.split(&c, &c.op().axis()[0], 4).unwrap();
/// s.compute_at(&b, &c, &jo).unwrap();
/// let f = te::lower(&s, &[a, c]).unwrap();
/// assert!(f.to_string().contains("allocate B[float32 * 4]"));
/// ```
pub fn lower(s: &Schedule, args: &[Tensor]) -> Result<PrimFunc> {
    let b = infer_bound(s)?;
    schedule_ops(s, &b, args, StorageStyle::Allocate)
}

/// The TVMScript text of a lowered program (see [`Lowering::tvmscript`]).
pub fn tvmscript(program: &PrimFunc) -> Result<String> {
    tir::tvmscript(program).map_err(|e| TeError::lowering(e.to_string()))
}

/// How a lowered program is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrintForm {
    /// The legacy text of `str(tvm.lower(s, args, simple_mode=True))`:
    /// `produce B { for (i, 0, 8) { ... } }`.
    #[default]
    Legacy,
    /// TVMScript, as TVM v0.19 prints `tvm.lower(...).script()`.
    TvmScript,
}

/// A schedule lowered with [`Lowering::new`]: its bounds and program,
/// kept so that a later report on the same schedule state (the command
/// line's, after a script's `tvm.lower`) does not infer and lower again.
#[derive(Clone)]
pub struct Lowering {
    revision: u64,
    args: Vec<Tensor>,
    bounds: std::rc::Rc<Bounds>,
    program: PrimFunc,
}

impl Lowering {
    /// Infers the bounds of `s` and lowers it as [`lower`] does.
    ///
    /// ```
    /// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let l = te::Lowering::new(&s, &[a.clone(), b.clone()]).unwrap();
    /// assert_eq!(l.program().to_string(), te::lower(&s, &[a.clone(), b.clone()]).unwrap().to_string());
    /// assert!(l.is_current(&s, &[a.clone(), b.clone()]));
    /// s.split(&b, &b.op().axis()[0], 4).unwrap();
    /// assert!(!l.is_current(&s, &[a, b]));
    /// ```
    pub fn new(s: &Schedule, args: &[Tensor]) -> Result<Lowering> {
        let mut bounds = infer_bound(s)?;
        // The lowering borrows the bounds' analyzer rather than copying it,
        // and hands it back as it was.
        let an = std::mem::take(&mut bounds.analyzer);
        let (program, an) = lower_with(s, &bounds, an, args, StorageStyle::Allocate)?;
        bounds.analyzer = an;
        Ok(Lowering {
            revision: s.revision(),
            args: args.to_vec(),
            bounds: std::rc::Rc::new(bounds),
            program,
        })
    }

    /// Whether this is the lowering of `s` as it is now, with `args`.
    pub fn is_current(&self, s: &Schedule, args: &[Tensor]) -> bool {
        self.revision == s.revision() && self.args == args
    }

    /// The [`Schedule::revision`] that was lowered.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The bounds the program was lowered with.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// The lowered program.
    pub fn program(&self) -> &PrimFunc {
        &self.program
    }

    /// The program as TVM v0.19 prints `tvm.lower(...).script()`
    /// (TVMScript, over flattened buffers); `to_string()` of
    /// [`Lowering::program`] is the legacy text `str(tvm.lower(...))` gives.
    ///
    /// ```
    /// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
    /// let s = te::create_schedule(&[b.clone()]);
    /// let l = te::Lowering::new(&s, &[a, b]).unwrap();
    /// let text = l.tvmscript().unwrap();
    /// assert!(text.contains("def main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):"));
    /// ```
    pub fn tvmscript(&self) -> Result<String> {
        tvmscript(&self.program)
    }

    /// The bounds and the program, without copying the program.
    pub fn into_parts(self) -> (std::rc::Rc<Bounds>, PrimFunc) {
        (self.bounds, self.program)
    }
}

impl std::fmt::Debug for Lowering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lowering")
            .field("revision", &self.revision)
            .field("program", &self.program.name)
            .finish_non_exhaustive()
    }
}

/// Lowers `s` with the ranges of `bounds` (from [`infer_bound`] on the same
/// schedule). Placeholders must be among `args`; computed tensors in `args`
/// are written in place, the others get storage where they are computed.
pub fn schedule_ops(
    s: &Schedule,
    bounds: &Bounds,
    args: &[Tensor],
    style: StorageStyle,
) -> Result<PrimFunc> {
    lower_with(s, bounds, bounds.analyzer.clone(), args, style).map(|(f, _)| f)
}

/// [`schedule_ops`], with the tensor each buffer of the program stores
/// (placeholders among `args` included), as TVM's statements before
/// storage flattening name their producers (`ProducerRealize.producer`).
///
/// ```
/// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let s = te::create_schedule(&[b.clone()]);
/// let bounds = te::infer_bound(&s).unwrap();
/// let (f, tensors) =
///     te::schedule_ops_with_tensors(&s, &bounds, &[a.clone()], te::StorageStyle::Realize).unwrap();
/// assert!(f.to_string().starts_with("realize B([0, 8])"));
/// let names: Vec<_> = tensors.iter().map(|(buf, t)| (buf.name(), t.name())).collect();
/// assert_eq!(names, [("A", "A"), ("B", "B")]);
/// ```
pub fn schedule_ops_with_tensors(
    s: &Schedule,
    bounds: &Bounds,
    args: &[Tensor],
    style: StorageStyle,
) -> Result<(PrimFunc, Vec<(Buffer, Tensor)>)> {
    let mut tensors = Vec::new();
    let (f, _) = lower_collecting(
        s,
        bounds,
        bounds.analyzer.clone(),
        args,
        style,
        Some(&mut tensors),
    )?;
    Ok((f, tensors))
}

/// [`schedule_ops`] with `an`, the analyzer of `bounds` (which it does not
/// read), given back with the facts the lowering added removed.
fn lower_with(
    s: &Schedule,
    bounds: &Bounds,
    an: arith::Analyzer,
    args: &[Tensor],
    style: StorageStyle,
) -> Result<(PrimFunc, arith::Analyzer)> {
    lower_collecting(s, bounds, an, args, style, None)
}

/// [`lower_with`], also listing in `tensors` (when given) the tensor each
/// buffer stores, in stage order.
fn lower_collecting(
    s: &Schedule,
    bounds: &Bounds,
    an: arith::Analyzer,
    args: &[Tensor],
    style: StorageStyle,
    tensors: Option<&mut Vec<(Buffer, Tensor)>>,
) -> Result<(PrimFunc, arith::Analyzer)> {
    let mut l = Lowerer::new(s, bounds, an, args, style)?;
    let roots: Vec<usize> = (0..s.stages().len())
        .filter(|&i| {
            let st = &s.stages()[i];
            st.attach() == &Attach::Root && !st.is_placeholder() && !l.scan_inits.contains_key(&i)
        })
        .collect();
    // Without recursion, so that long chains of attached stages cannot
    // exhaust the stack: first the loops of every stage, enclosing stages
    // first (dropped loops are substituted inside them), then the
    // statements, innermost stages first.
    let mut order = Vec::with_capacity(s.stages().len());
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        let mut children: Vec<usize> = s.stages()[i]
            .leaf_iter_vars()
            .iter()
            .filter_map(|iv| l.attached.get(iv))
            .flatten()
            .copied()
            .collect();
        // A scan's init is built before the scan, which places it.
        children.extend(
            l.scan_inits
                .iter()
                .filter(|(_, &sc)| sc == i)
                .map(|(&k, _)| k),
        );
        stack.extend(children.into_iter().rev());
    }
    let mut loops: Vec<Option<Vec<Loop>>> = (0..s.stages().len()).map(|_| None).collect();
    for &i in &order {
        loops[i] = Some(l.plan_loops(i)?);
    }
    for &i in order.iter().rev() {
        let nest = loops[i].take().expect("planned above");
        let produce = l.stage_nest(i, nest)?;
        l.built[i] = Some(produce);
    }
    let mut body = Stmt::no_op();
    for &i in roots.iter().rev() {
        let produce = l.built[i].take().expect("built above");
        body = l.with_storage(i, seq(produce, body))?;
    }
    let params: Vec<Buffer> = args
        .iter()
        .map(|t| match s.stage_index(t.op()) {
            Ok(i) => l
                .buffer_of(i, t.value_index())
                .expect("params have buffers"),
            Err(_) => l.unused[&t.op().id()].clone(),
        })
        .collect();
    let name = args
        .last()
        .map(|t| t.name().to_string())
        .unwrap_or_else(|| "main".to_string());
    // Loops of different stages may share a name (`i` of a producer inside
    // `i` of its consumer); print them apart, as `tvm.lower` does.
    let body = tir::rename_shadowing(body);
    if let Some(tensors) = tensors {
        for (i, st) in s.stages().iter().enumerate() {
            for (k, t) in st.op().outputs().into_iter().enumerate() {
                if let Some(buf) = l.buffer_of(i, k) {
                    tensors.push((buf, t));
                }
            }
        }
    }
    let func = crate::layout::apply(
        s,
        &l.buffers,
        &l.transformed,
        PrimFunc::new(name, params, body),
    )?;
    if cfg!(debug_assertions) {
        verify(s, &l.rebased, &func)?;
    }
    // Unbound newest first, the analyzer is again exactly the bounds' one.
    for v in l.rebased.iter().rev() {
        l.an.unbind(v);
    }
    Ok((func, l.an))
}

/// Checks that no loop variable of the schedule (an iteration variable of
/// a stage, or a loop counting from 0 made for one) is used outside the
/// loops that bind it; every other variable is a size of the program. Run
/// on every lowering in debug builds and tests: a failure is a lowering bug.
fn verify(s: &Schedule, rebased: &[Var], func: &PrimFunc) -> Result<()> {
    let mut loop_vars: arith::IdSet<Var> = rebased.iter().cloned().collect();
    for st in s.stages() {
        loop_vars.extend(st.all_iter_vars().iter().map(|iv| iv.var().clone()));
        loop_vars.extend(st.op().root_iter_vars().iter().map(|iv| iv.var().clone()));
    }
    tir::verify_bound_vars(func, &|v| !loop_vars.contains(v)).map_err(|e| {
        TeError::lowering(format!(
            "internal error: the lowered program is invalid: {e}"
        ))
    })
}

fn seq(a: Stmt, b: Stmt) -> Stmt {
    if b.is_no_op() {
        a
    } else {
        Stmt::seq([a, b])
    }
}

/// One loop of a stage's nest.
pub(crate) struct Loop {
    pub(crate) iv: IterVar,
    /// The loop variable: `iv`'s own, or a fresh one counting from 0 when
    /// `iv` starts elsewhere (TVM's rebase; `iv` is then `var + min`).
    pub(crate) var: Var,
    pub(crate) min: Expr,
    pub(crate) extent: Expr,
    /// Dropped because it runs once; its variable was replaced by `min`.
    pub(crate) trivial: bool,
    /// The loop uses the exact extent (not a split factor plus a guard).
    exact: bool,
    /// How the loop runs, and its pragmas (`annotate.rs`, `Schedule::bind`).
    kind: tir::ForKind,
    pragmas: Vec<tir::Pragma>,
}

impl Loop {
    /// The loop around `body` (nothing for a dropped loop).
    fn wrap(&self, body: Stmt) -> Stmt {
        if self.trivial {
            return body;
        }
        Stmt::for_kind(
            &self.var,
            self.min.clone(),
            self.extent.clone(),
            self.kind.clone(),
            self.pragmas.clone(),
            body,
        )
    }
}

pub(crate) struct Lowerer<'a> {
    pub(crate) s: &'a Schedule,
    pub(crate) b: &'a Bounds,
    style: StorageStyle,
    buffers: Vec<Option<Buffer>>,
    params: arith::IdSet<usize>,
    /// The outputs among the arguments, by stage and output: an output of
    /// a stage among them that is not an argument itself still gets storage
    /// (whole, as the stage's other outputs are stored).
    param_outputs: HashSet<(usize, usize)>,
    pub(crate) attached: IdMap<IterVar, Vec<usize>>,
    /// Variables of dropped and rebased loops, by their value (those of
    /// axes several stages share are in `own_subst`).
    subst: IdMap<Var, Expr>,
    /// Variables of dropped and rebased loops over an axis several stages
    /// share, by stage position: each stage has its own loop over it.
    own_subst: HashMap<(usize, Var), Expr>,
    /// The stage whose loops or body are being lowered: the variables of
    /// its axes mean its own loops.
    pub(crate) stage: usize,
    /// The bounds' analyzer, plus the rebased loop variables.
    pub(crate) an: arith::Analyzer,
    /// The rebased loop variables bound in `an`, in the order bound.
    pub(crate) rebased: Vec<Var>,
    /// The `produce` block of each stage, once built.
    built: Vec<Option<Stmt>>,
    /// The start of each stage's region per axis, in loop variables (not
    /// simplified), once an access needs it: every load of a stage
    /// subtracts the same starts. Only read after all loops are planned,
    /// when the substitution no longer changes.
    offsets: RefCell<Vec<Option<Vec<Expr>>>>,
    /// Buffers of placeholders among the arguments that nothing reads (not
    /// part of the schedule): passed through, as `tvm.lower` accepts them.
    unused: HashMap<OpId, Buffer>,
    /// The init, body and state stages of each scan, by the position of
    /// their scan: they store into and read the scan's buffer.
    scan_parts: HashMap<usize, (usize, usize)>,
    /// The init stage of each scan, by its position (a subset of
    /// `scan_parts`): placed by the scan before its loop.
    scan_inits: HashMap<usize, usize>,
    /// For each transformed stage stored per iteration (see
    /// [`physical_allocation`]), the start of its region per transformed
    /// axis: its buffer is indexed in the transformed space, relative to
    /// those starts.
    transformed: Vec<Option<Vec<Expr>>>,
    /// Per stage, the buffers of its outputs after the first (empty for a
    /// stage of one output): same shape and scope as the first's.
    more_buffers: Vec<Vec<Buffer>>,
}

impl<'a> Lowerer<'a> {
    fn new(
        s: &'a Schedule,
        b: &'a Bounds,
        an: arith::Analyzer,
        args: &[Tensor],
        style: StorageStyle,
    ) -> Result<Lowerer<'a>> {
        let mut params = arith::IdSet::default();
        let mut param_outputs = HashSet::new();
        let mut unused = HashMap::new();
        for t in args {
            let i = match s.stage_index(t.op()) {
                Ok(i) => i,
                Err(_) if matches!(t.op().kind(), crate::operation::OpKind::Placeholder) => {
                    unused.insert(
                        t.op().id(),
                        Buffer::new(t.name(), t.dtype(), t.op().shape().to_vec()),
                    );
                    continue;
                }
                Err(e) => return Err(e),
            };
            if s.stages()[i].attach() == &Attach::Inline {
                return Err(TeError::schedule(format!(
                    "`{}` is inlined and has no storage: do not pass it as an argument",
                    t.name()
                )));
            }
            params.insert(i);
            param_outputs.insert((i, t.value_index()));
        }
        let (scan_parts, scan_inits) = scan_parts(s)?;
        let mut attached: IdMap<IterVar, Vec<usize>> = IdMap::default();
        let mut buffers = Vec::with_capacity(s.stages().len());
        let mut transformed = vec![None; s.stages().len()];
        for (i, st) in s.stages().iter().enumerate() {
            if let Attach::At { axis, .. } = st.attach() {
                attached.entry(axis.clone()).or_default().push(i);
            }
            let op = st.op();
            let needs_buffer = st.attach() != &Attach::Inline;
            if st.is_placeholder()
                && !params.contains(&i)
                && !b.graph.consumers[i].is_empty()
                && !scan_parts.contains_key(&i)
            {
                return Err(TeError::schedule(format!(
                    "placeholder `{}` is read but not among the arguments: pass it to lower",
                    op.name()
                )));
            }
            // A transformed stage computed at a loop stores the region of
            // each iteration in the transformed space.
            let local = (needs_buffer
                && style == StorageStyle::Allocate
                && !params.contains(&i)
                && !st.is_placeholder()
                && matches!(st.attach(), Attach::At { .. }))
            .then(|| physical_allocation(s, b, &an, i))
            .flatten();
            if let Some((shape, starts)) = local {
                transformed[i] = Some(starts);
                let buf = Buffer::new(buffer_name(st, 0), op.dtype(), shape)
                    .with_scope(storage_scope(s, i, b).to_string())
                    .with_attrs(st.storage_requests().attrs());
                buffers.push(Some(Ok(buf)));
                continue;
            }
            buffers.push(needs_buffer.then(|| -> Result<Buffer> {
                // Any other buffer with a layout transform is stored whole:
                // the layout is then of the whole tensor.
                let shape = if params.contains(&i)
                    || style == StorageStyle::Realize
                    || st.is_placeholder()
                    || s.layout(op).is_some()
                {
                    op.shape().to_vec()
                } else {
                    allocation_shape(s, b, &an, i)?
                };
                let buf = Buffer::new(buffer_name(st, 0), op.dtype(), shape);
                Ok(if params.contains(&i) || st.is_placeholder() {
                    buf
                } else {
                    buf.with_scope(storage_scope(s, i, b).to_string())
                        .with_attrs(st.storage_requests().attrs())
                })
            }));
        }
        let mut buffers = buffers
            .into_iter()
            .map(|b| b.transpose())
            .collect::<Result<Vec<_>>>()?;
        let more_buffers = more_output_buffers(s, &buffers)?;
        // A part of a scan is stored in the scan's buffer of its state.
        for (&part, &(scan, k)) in &scan_parts {
            buffers[part] = match k {
                0 => buffers[scan].clone(),
                _ => more_buffers[scan].get(k - 1).cloned(),
            };
        }
        let built = (0..s.stages().len()).map(|_| None).collect();
        Ok(Lowerer {
            s,
            b,
            style,
            buffers,
            params,
            param_outputs,
            attached,
            unused,
            scan_parts,
            scan_inits,
            subst: IdMap::default(),
            own_subst: HashMap::new(),
            stage: 0,
            an,
            rebased: Vec::new(),
            built,
            offsets: RefCell::new(vec![None; s.stages().len()]),
            transformed,
            more_buffers,
        })
    }

    /// `e` in terms of emitted loop variables.
    pub(crate) fn expr(&self, e: &Expr) -> Expr {
        simp(&self.an, self.unsimplified(e))
    }

    /// [`Lowerer::expr`] before simplification, for callers that build a
    /// larger expression around it and simplify that once.
    pub(crate) fn unsimplified(&self, e: &Expr) -> Expr {
        // One walk: a variable that is not a loop's becomes its value in
        // loop variables, in which dropped loops are then replaced.
        e.substitute(&mut |v| match self.b.loop_value(self.stage, v) {
            Some(x) => Some(x.substitute(&mut |w| self.dropped(w))),
            None => self.dropped(v),
        })
    }

    /// The value of `v` if it is the variable of a dropped or rebased loop
    /// of the current stage or of one around it.
    fn dropped(&self, v: &Var) -> Option<Expr> {
        if self.b.is_shared(v) {
            return self.own_subst.get(&(self.stage, v.clone())).cloned();
        }
        self.subst.get(v).cloned()
    }

    /// Records that the loop variable of `iv` (of the current stage) stands
    /// for `value`.
    fn replace_loop_var(&mut self, iv: &IterVar, value: Expr) {
        if self.b.is_shared(iv.var()) {
            self.own_subst.insert((self.stage, iv.var().clone()), value);
        } else {
            self.subst.insert(iv.var().clone(), value);
        }
    }

    /// The storage of stage `i` around `body` (nothing for parameters).
    fn with_storage(&self, i: usize, body: Stmt) -> Result<Stmt> {
        let op = self.s.stages()[i].op();
        if (self.params.contains(&i) && op.num_outputs() == 1) || self.scan_parts.contains_key(&i) {
            return Ok(body);
        }
        let first = self.buffers[i]
            .as_ref()
            .expect("computed stages have buffers");
        // The first output's storage outermost, as TVM realizes them.
        let mut body = body;
        let all: Vec<&Buffer> = std::iter::once(first)
            .chain(&self.more_buffers[i])
            .collect();
        for (k, buf) in all.into_iter().enumerate().rev() {
            if self.param_outputs.contains(&(i, k)) {
                continue;
            }
            body = match self.style {
                // An extern operation's outputs after the first are
                // realized whole, each of its own shape.
                StorageStyle::Realize
                    if k > 0 && matches!(op.kind(), crate::operation::OpKind::Extern(_)) =>
                {
                    let region = buf
                        .shape()
                        .iter()
                        .cloned()
                        .map(Range::from_extent)
                        .collect();
                    Stmt::realize(buf, region, body)
                }
                // Each state of a scan has its own region.
                StorageStyle::Realize => {
                    let region: Vec<Range> = self
                        .b
                        .output_region(op, k)
                        .ok_or_else(|| TeError::lowering(format!("no bounds for `{}`", op.name())))?
                        .iter()
                        .map(|r| Range::new(self.expr(&r.min), self.expr(&r.extent)))
                        .collect();
                    Stmt::realize(buf, region, body)
                }
                // The static size, as `tvm.lower` prints it; reads outside
                // this iteration's region are still caught as reads of
                // unwritten elements, since the allocation is fresh in every
                // iteration.
                StorageStyle::Allocate => Stmt::allocate(buf, buf.shape().to_vec(), body),
            };
        }
        Ok(body)
    }

    /// The buffer of output `k` of stage `i`, if it has storage.
    pub(crate) fn buffer_of(&self, i: usize, k: usize) -> Option<Buffer> {
        match k {
            0 => self.buffers[i].clone(),
            _ => self.more_buffers[i].get(k - 1).cloned(),
        }
    }

    /// Simplified indices into the buffer of stage `p` for the logical
    /// element `idx` (not yet simplified: each index is simplified once,
    /// together with the region offset it may get).
    pub(crate) fn access(&self, p: usize, idx: Vec<Expr>) -> Vec<Expr> {
        // A scan's parts are stored in the scan's buffer.
        let p = self.scan_parts.get(&p).map_or(p, |&(scan, _)| scan);
        if let Some(starts) = &self.transformed[p] {
            let map = self
                .s
                .layout(self.s.stages()[p].op())
                .expect("transformed stages have layouts");
            let values: HashMap<&Var, &Expr> = map.initial_indices().iter().zip(&idx).collect();
            return map
                .final_indices()
                .iter()
                .zip(starts)
                .map(|(f, start)| {
                    let at = f.substitute(&mut |v| values.get(v).map(|x| (*x).clone()));
                    simp(&self.an, Expr::sub(at, self.unsimplified(start)))
                })
                .collect();
        }
        if self.style == StorageStyle::Realize
            || self.params.contains(&p)
            || self.s.stages()[p].is_placeholder()
            || self.s.layout(self.s.stages()[p].op()).is_some()
            // Extern outputs are stored whole, each of its own shape; so
            // are the states of a scan of several, along their spatial
            // axes, and their rows start at 0.
            || self.s.stages()[p].op().is_extern()
            || (crate::scan::scan_op(self.s.stages()[p].op()).is_some()
                && self.s.stages()[p].op().num_outputs() > 1)
        {
            return idx.into_iter().map(|e| simp(&self.an, e)).collect();
        }
        let mut offsets = self.offsets.borrow_mut();
        let starts = offsets[p].get_or_insert_with(|| {
            let region = self.b.region(self.s.stages()[p].op());
            region
                .expect("bounded stages have regions")
                .iter()
                .map(|r| self.unsimplified(&r.min))
                .collect()
        });
        idx.into_iter()
            .zip(starts.iter())
            .map(|(e, start)| simp(&self.an, Expr::sub(e, start.clone())))
            .collect()
    }

    /// The loops of stage `i`, outermost first; registers the variables of
    /// dropped loops. The loops of enclosing stages must be planned first.
    fn plan_loops(&mut self, i: usize) -> Result<Vec<Loop>> {
        self.stage = i;
        let leaves = self.s.stages()[i].leaf_iter_vars();
        let mut loops = Vec::with_capacity(leaves.len());
        for (k, iv) in leaves.iter().enumerate() {
            let r = self
                .b
                .range(iv)
                .ok_or_else(|| TeError::lowering(format!("no range for `{}`", iv.name())))?;
            let min = self.expr(&r.min);
            let mut extent = self.expr(&r.extent);
            let mut exact = true;
            let later = &leaves[k..];
            let (kind, pragmas) = loop_kind(&self.s.stages()[i], iv);
            // A loop bound to a thread runs its nominal extent, the tail of
            // a split guarded by `likely`, as TVM launches threads.
            let launched = matches!(kind, tir::ForKind::Thread(_)) && self.b.has_tail(iv);
            if launched
                || later
                    .iter()
                    .any(|l| extent.uses_var(l.var()) || min.uses_var(l.var()))
            {
                // The exact extent needs a loop that is not open yet (the
                // tail of a split whose outer loop was reordered inside):
                // loop over the nominal extent and guard the body.
                extent = self.expr(&self.b.nominal_extent(iv).expect("has a range"));
                if launched {
                    // Threads launch by the split factor, whatever the
                    // sizes (`thread_extent = 32`, not `min(n, 32)`).
                    if let Some(factor) = split_factor(&self.s.stages()[i], iv) {
                        extent = factor.clone();
                    }
                }
                exact = false;
            }
            let mut var = iv.var().clone();
            let mut min = min;
            if self.b.unified_with(iv).is_some() {
                // Shares the index of an enclosing loop bound to the same
                // thread; `stage_nest` guards it to its own extent.
                loops.push(Loop {
                    iv: iv.clone(),
                    var,
                    min,
                    extent,
                    trivial: true,
                    exact,
                    kind,
                    pragmas,
                });
                continue;
            }
            let trivial = extent.is_int(1) && !matches!(kind, tir::ForKind::Thread(_));
            if trivial {
                self.replace_loop_var(iv, min.clone());
            } else if let tir::ForKind::Thread(_) = &kind {
                // The body reads the thread index (`threadIdx.x`), as TVM
                // prints it; the loop over it counts from 0.
                var = Var::new(
                    self.s.stages()[i]
                        .bound_thread(iv)
                        .map_or(iv.name(), |t| t.name()),
                );
                self.an.bind(&var, Range::from_extent(extent.clone()));
                self.rebased.push(var.clone());
                self.replace_loop_var(iv, Expr::add(var.expr(), min));
                min = Expr::int(0);
            } else if !min.is_int(0) {
                // Loops count from 0, as TVM prints them: `for (i, 0, n)`
                // with `i + min` in the body.
                var = Var::new(iv.name());
                self.an.bind(&var, Range::from_extent(extent.clone()));
                self.rebased.push(var.clone());
                self.replace_loop_var(iv, Expr::add(var.expr(), min));
                min = Expr::int(0);
            }
            loops.push(Loop {
                iv: iv.clone(),
                var,
                min,
                extent,
                trivial,
                exact,
                kind,
                pragmas,
            });
        }
        Ok(loops)
    }

    /// The `produce` block of stage `i` over `loops`, with the (already
    /// built) stages attached to its loops inside them.
    fn stage_nest(&mut self, i: usize, loops: Vec<Loop>) -> Result<Stmt> {
        self.stage = i;
        let st = &self.s.stages()[i];
        let op = st.op().clone();
        let name = st.name().to_string();
        if crate::scan::scan_op(&op).is_some() {
            return self.scan_nest(i, &loops);
        }
        if let Some(e) = crate::extern_op::extern_of(&op) {
            return self.extern_nest(i, e);
        }
        let exact_leaves: HashSet<&IterVar> =
            loops.iter().filter(|l| l.exact).map(|l| &l.iv).collect();
        let mut guards = Vec::new();
        for iv in st.all_iter_vars() {
            if self.b.has_tail(iv) && !exact_leaves.contains(iv) {
                // The tail of a split is checked on the axis it splits, as
                // TVM's bound check reads (`((bx*64) + tx) < 1000`): with
                // the inner loop below the factor, the same condition.
                let iv = split_parent(st, iv).unwrap_or(iv);
                let r = self.b.range(iv).expect("has a range");
                let value = self.expr(&self.b.value_of(i, iv));
                let end = self.expr(&Expr::add(r.min.clone(), r.extent.clone()));
                // Not simplified with the bound analyzer: it knows the exact
                // range of `iv`, which is precisely what the loop exceeds.
                // Checked for truth only: TVM prints the comparison as
                // built (`x < 1000`, where the simplifier writes `x <= 999`).
                let cond = Expr::lt(value, end);
                let holds = simp(&arith::Analyzer::new(), cond.clone()).as_bool() == Some(true);
                if !holds {
                    guards.push(cond);
                }
            }
        }
        for iv in st.leaf_iter_vars() {
            if self.b.unified_with(iv).is_some() {
                let r = self.b.range(iv).expect("has a range");
                let end = self.expr(&Expr::add(r.min.clone(), r.extent.clone()));
                let cond = simp(&self.an, Expr::lt(self.expr(&iv.expr()), end));
                if cond.as_bool() != Some(true) {
                    guards.push(cond);
                }
            }
        }
        if crate::tensor_compute_of(&op).is_some() {
            let placed = place_guards(guards, &loops);
            self.check_guards_spare_shared_stages(i, &loops, &placed)?;
            let stmt = self.tensor_compute_nest(i, &loops, &placed)?;
            let outside: Vec<&Expr> = placed
                .iter()
                .filter(|(p, _)| p.is_none())
                .map(|(_, g)| g)
                .collect();
            return Ok(Stmt::produce(&name, guarded(stmt, &outside)));
        }
        let buf = self.buffers[i]
            .clone()
            .expect("computed stages have buffers");
        // Each axis at its value in loop variables, simplified once by
        // `access` together with the region offset.
        let out_idx: Vec<Expr> = op
            .axis()
            .iter()
            .map(|a| self.unsimplified(&self.b.value_of(i, a)))
            .collect();
        let out_access = self.access(i, out_idx);
        let body = self.b.graph.bodies[i]
            .clone()
            .expect("computes have bodies");
        let placed = place_guards(guards, &loops);
        self.check_guards_spare_shared_stages(i, &loops, &placed)?;
        let wrap = guarded;
        let outside: Vec<&Expr> = placed
            .iter()
            .filter(|(p, _)| p.is_none())
            .map(|(_, g)| g)
            .collect();
        let stmt = match body.as_reduce() {
            _ if st.tensorized().is_some() => self.tensorized_nest(i, &loops, &placed)?,
            Some(r) if crate::cross_thread::is_cross_thread(st) => {
                let dtype = op.dtype();
                let values = crate::cross_thread::CrossValues {
                    sources: vec![self.value(&r.source)?],
                    identity: vec![Value::constant(r.reducer.identity(dtype), dtype)],
                    condition: r.condition.clone(),
                    combine: crate::cross_thread::Combine::Op(binop(
                        r.reducer.combiner(),
                        dtype.is_int(),
                    )),
                };
                self.cross_thread_nest(i, loops, &placed, &values, out_access)?
            }
            _ if crate::cross_thread::is_cross_thread(st) => {
                let ValueKind::CommReduce(r) = body.kind() else {
                    return Err(TeError::new(
                        crate::ErrorKind::Unsupported,
                        format!(
                            "`{name}` reduces across threads with a value that is not a reduction"
                        ),
                    ));
                };
                let values = self.cross_thread_values(i, r)?;
                self.cross_thread_nest(i, loops, &placed, &values, out_access)?
            }
            _ if matches!(body.kind(), ValueKind::CommReduce(_)) => {
                let ValueKind::CommReduce(r) = body.kind() else {
                    unreachable!("matched above")
                };
                let (init, update) = self.comm_reduce_stores(i, r, &out_access)?;
                let update = self.store_predicated(i, update);
                self.reduction_nest(i, &loops, &placed, init, update)?
            }
            None => {
                let v = self.value(&body)?;
                let mut store = Stmt::store_in_stage(&name, &buf, out_access.clone(), v);
                // The other outputs of the operation, in the same nest.
                for (k, b) in self.b.graph.more_bodies[i].clone().iter().enumerate() {
                    let out = self.more_buffers[i][k].clone();
                    let v = self.value(b)?;
                    store = Stmt::seq([store, Stmt::store(&out, out_access.clone(), v)]);
                }
                let store = self.store_predicated(i, store);
                self.nest(&loops, store, &placed, 0)?
            }
            Some(r) => {
                let dtype = op.dtype();
                let init_value = Value::constant(r.reducer.identity(dtype), dtype);
                let init = Stmt::store_in_stage(
                    format!("{name}.init"),
                    &buf,
                    out_access.clone(),
                    init_value,
                );
                let source = self.value(&r.source)?;
                let acc = Value::load(&buf, out_access.clone());
                let combined =
                    Value::binary(binop(r.reducer.combiner(), dtype.is_int()), acc, source);
                let mut update = Stmt::store_in_stage(&name, &buf, out_access, combined);
                if let Some(c) = &r.condition {
                    let c = self.expr(c);
                    update = Stmt::if_then(Value::index(c), update);
                }
                let update = self.store_predicated(i, update);
                self.reduction_nest(i, &loops, &placed, init, update)?
            }
        };
        if self.scan_parts.contains_key(&i) {
            // A scan's init and update are the scan's own computation.
            return Ok(wrap(stmt, &outside));
        }
        Ok(Stmt::produce(&name, wrap(stmt, &outside)))
    }

    /// Refuses a tail guard of stage `i` on a thread loop that would keep
    /// some threads of a block out of a stage attached inside it whose
    /// storage those threads share and whose loops they divide among
    /// themselves: the other threads would read the elements the guarded
    /// ones were to fetch. (TVM runs such fetches in
    /// every thread and reads past the tensor in the threads beyond the
    /// tail; rangefinder keeps its guards where every read stays inside.)
    fn check_guards_spare_shared_stages(
        &self,
        i: usize,
        loops: &[Loop],
        placed: &[(Option<usize>, Expr)],
    ) -> Result<()> {
        let st = &self.s.stages()[i];
        for (p, g) in placed {
            let Some(p) = *p else { continue };
            let threads: Vec<(&Loop, ThreadTag)> = loops[..=p]
                .iter()
                .filter(|l| !l.trivial && g.uses_var(&l.var))
                .filter_map(|l| Some((l, st.thread_tag(&l.iv)?)))
                .filter(|(_, t)| matches!(t, ThreadTag::ThreadIdx(_)))
                .collect();
            if threads.is_empty() {
                continue;
            }
            // The stages attached inside the guard, and theirs.
            let mut pending: Vec<usize> = loops[p..]
                .iter()
                .filter_map(|l| self.attached.get(&l.iv))
                .flatten()
                .copied()
                .collect();
            while let Some(c) = pending.pop() {
                let scope = crate::bound::storage_scope(self.s, c, self.b);
                // Only a stage whose own loops the threads divide among
                // themselves needs each of them; one every thread computes
                // whole loses nothing when some skip it.
                let divided =
                    |tag: ThreadTag| self.s.stages()[c].thread_bindings().any(|(_, t)| t == tag);
                if let Some((l, tag)) = threads
                    .iter()
                    .find(|(_, t)| scope.relaxes(*t) && divided(*t))
                {
                    return Err(TeError::new(
                        crate::ErrorKind::Unsupported,
                        format!(
                            "`{}` is fetched by the threads `{tag}` of `{}` together ({scope}), \
                             but the split of `{}` does not divide its extent, and the threads \
                             past the end would skip their part: make the split divide the \
                             extent, or compute `{}` outside `{}`",
                            self.s.stages()[c].name(),
                            st.name(),
                            l.iv.name(),
                            self.s.stages()[c].name(),
                            l.iv.name()
                        ),
                    ));
                }
                pending.extend(
                    self.s.stages()[c]
                        .leaf_iter_vars()
                        .iter()
                        .filter_map(|iv| self.attached.get(iv))
                        .flatten()
                        .copied(),
                );
            }
        }
        Ok(())
    }

    /// `store` under stage `i`'s store predicate, if it has one (TVM puts
    /// it among the predicates of the main statement, not the
    /// initialisation).
    fn store_predicated(&self, i: usize, store: Stmt) -> Stmt {
        match self.s.stages()[i].store_predicate() {
            Some(p) => Stmt::if_then(Value::index(self.thread_condition(i, p)), store),
            None => store,
        }
    }

    /// A condition of stage `i` in loop variables, where it may name the
    /// variables of thread axes (`tx.var.equal(0)`): each thread axis bound
    /// by the stage or around it stands for its thread's index.
    pub(crate) fn thread_condition(&self, i: usize, cond: &Expr) -> Expr {
        let st = &self.s.stages()[i];
        let mut index: IdMap<Var, Expr> = IdMap::default();
        let around = self.b.graph.attach_path(i).filter_map(|iv| {
            let owner = self
                .s
                .stages()
                .iter()
                .find(|o| o.bound_thread(iv).is_some())?;
            Some((iv, owner.bound_thread(iv)?))
        });
        let own = st
            .leaf_iter_vars()
            .iter()
            .filter_map(|iv| Some((iv, st.bound_thread(iv)?)));
        for (iv, thread) in around.chain(own) {
            if let Some(r) = self.b.range(iv) {
                let position = Expr::sub(iv.expr(), r.min.clone());
                index.insert(thread.var().clone(), self.unsimplified(&position));
            }
        }
        self.expr(&cond.substitute(&mut |v| index.get(v).cloned()))
    }

    /// The `produce` block of extern stage `i`: its body over the buffers
    /// of its tensors.
    fn extern_nest(&mut self, i: usize, e: &crate::extern_op::ExternOp) -> Result<Stmt> {
        let mut map = HashMap::new();
        for (t, declared) in e.inputs.iter().zip(&e.input_buffers) {
            let p = self.s.stage_index(t.op())?;
            let buf = self.buffer_of(p, t.value_index()).ok_or_else(|| {
                TeError::schedule(format!(
                    "`{}` is inlined, but extern operation `{}` reads it whole through a buffer: \
                     compute it at the root instead",
                    t.name(),
                    self.s.stages()[i].name()
                ))
            })?;
            map.insert(declared.id(), buf);
        }
        let out = self.buffers[i]
            .clone()
            .expect("computed stages have buffers");
        let outs = std::iter::once(out).chain(self.more_buffers[i].iter().cloned());
        for (declared, out) in e.output_buffers.iter().zip(outs) {
            map.insert(declared.id(), out);
        }
        let st = &self.s.stages()[i];
        if let Some(iv) = st
            .leaf_iter_vars()
            .iter()
            .find(|iv| self.attached.contains_key(*iv))
        {
            return Err(TeError::schedule(format!(
                "a stage is computed at loop `{}` of hybrid operation `{}`, whose loops are its \
                 script's: compute it at the root or at another stage's loop",
                iv.name(),
                st.name()
            )));
        }
        let body = if e.hybrid {
            crate::hybrid_schedule::apply(st, self.b, &e.body)?
        } else {
            e.body.clone()
        };
        let e = &crate::extern_op::ExternOp { body, ..e.clone() };
        let body = crate::extern_op::bind_buffers(e, &map, self.s.stages()[i].name());
        Ok(Stmt::produce(self.s.stages()[i].name(), body))
    }

    /// The `produce` block of scan stage `i`: its init, then the loop over
    /// its scan axis with the body's stages inside (TVM's scan init and
    /// update scopes).
    fn scan_nest(&mut self, i: usize, loops: &[Loop]) -> Result<Stmt> {
        // The inits in the order of the states.
        let scan = crate::scan::scan_op(self.s.stages()[i].op()).expect("a scan stage");
        let mut inits = Vec::new();
        for t in &scan.init {
            let k = self.s.stage_index(t.op())?;
            let built = self.built[k].take().ok_or_else(|| {
                TeError::lowering(format!(
                    "the init `{}` of scan `{}` was not built before the scan",
                    t.name(),
                    self.s.stages()[i].name()
                ))
            })?;
            inits.push(built);
        }
        let steps = self.nest(loops, Stmt::no_op(), &[], 0)?;
        let init = inits.into_iter().reduce(seq).unwrap_or_else(Stmt::no_op);
        Ok(Stmt::produce(self.s.stages()[i].name(), seq(init, steps)))
    }

    /// The loops of reduction stage `i` around its initialisation `init`
    /// and its update `update`.
    fn reduction_nest(
        &mut self,
        i: usize,
        loops: &[Loop],
        placed: &[(Option<usize>, Expr)],
        init: Stmt,
        update: Stmt,
    ) -> Result<Stmt> {
        let st = &self.s.stages()[i];
        let first_reduce = loops
            .iter()
            .position(|l| l.iv.kind() == IterKind::Reduce)
            .unwrap_or(loops.len());
        // The initialisation runs over the loops from the first reduction
        // loop on that cover data axes (a data axis fused with a reduction
        // axis included), as TVM's `ComputeLoopNest` places it. Guards
        // inside the reduction loops that involve none of the other loops
        // also guard it.
        let data_loops = st.data_loops();
        let reduce_vars: Vec<&Var> = loops[first_reduce..]
            .iter()
            .filter(|l| !data_loops.contains(&l.iv))
            .map(|l| &l.var)
            .collect();
        let init_guards: Vec<&Expr> = placed
            .iter()
            .filter(|(p, g)| {
                p.is_some_and(|p| p >= first_reduce) && !reduce_vars.iter().any(|v| g.uses_var(v))
            })
            .map(|(_, g)| g)
            .collect();
        let init = guarded(init, &init_guards);
        let data_inner: Vec<&Loop> = loops[first_reduce..]
            .iter()
            .filter(|l| data_loops.contains(&l.iv))
            .collect();
        let mut init_nest = init;
        for l in data_inner.iter().rev() {
            init_nest = l.wrap(init_nest);
        }
        let update_nest = self.nest(&loops[first_reduce..], update, placed, first_reduce)?;
        self.nest(
            &loops[..first_reduce],
            Stmt::seq([init_nest, update_nest]),
            placed,
            0,
        )
    }

    /// The values of stage `i`, a reduction by a [`crate::CommReducer`]
    /// across threads, lowered: its sources and identities per output, and
    /// its combiner.
    fn cross_thread_values(
        &self,
        i: usize,
        r: &crate::comm_reducer::CommReduce,
    ) -> Result<crate::cross_thread::CrossValues> {
        let combiner = r.combiner();
        self.check_sequential_combiner(i, combiner)?;
        let mut sources = Vec::with_capacity(combiner.size());
        let mut identity = Vec::with_capacity(combiner.size());
        for k in 0..combiner.size() {
            let dtype = self
                .buffer_of(i, k)
                .expect("computed stages have buffers")
                .dtype();
            sources.push(self.operand(&r.sources()[k], dtype)?);
            identity.push(self.operand(&combiner.identity()[k], dtype)?);
        }
        Ok(crate::cross_thread::CrossValues {
            sources,
            identity,
            condition: r.condition().cloned(),
            combine: crate::cross_thread::Combine::Tuple(combiner.clone()),
        })
    }

    /// Refuses a combiner whose value `j` reads accumulated value `k < j`:
    /// the values are stored one after another (as TVM does), so value
    /// `k` would already be overwritten.
    fn check_sequential_combiner(&self, i: usize, combiner: &crate::CommReducer) -> Result<()> {
        match combiner.overwritten_read() {
            Some((j, k)) => Err(TeError::lowering(format!(
                "`{}` reduces with `{}`, whose value {j} is computed from accumulated value {k}: \
                 the update stores the values one after another (as TVM does), so value {k} is \
                 already overwritten when value {j} is computed; order the combiner's values so \
                 that each reads only accumulated values at or after its own position",
                self.s.stages()[i].op().name(),
                combiner.name()
            ))),
            None => Ok(()),
        }
    }

    /// The initialisation and the update of stage `i`, a reduction by a
    /// [`crate::CommReducer`] whose outputs are stored at `out_access`: one
    /// store per output, in order, as TVM's `MakeReduction` emits them
    /// (each update reads the outputs as they are when it runs).
    fn comm_reduce_stores(
        &self,
        i: usize,
        r: &crate::comm_reducer::CommReduce,
        out_access: &[Expr],
    ) -> Result<(Stmt, Stmt)> {
        let st = &self.s.stages()[i];
        let op = st.op();
        let combiner = r.combiner();
        self.check_sequential_combiner(i, combiner)?;
        let bufs: Vec<Buffer> = (0..combiner.size())
            .map(|k| self.buffer_of(i, k).expect("computed stages have buffers"))
            .collect();
        let axis: Vec<Expr> = op.axis().iter().map(IterVar::expr).collect();
        let acc: Vec<TeValue> = op.outputs().iter().map(|t| t.at(axis.clone())).collect();
        let mut inits = Vec::with_capacity(bufs.len());
        let mut updates = Vec::with_capacity(bufs.len());
        for (k, buf) in bufs.iter().enumerate() {
            let dtype = buf.dtype();
            let (init_stage, stage) = if k == 0 {
                (format!("{}.init", st.name()), st.name().to_string())
            } else {
                (format!("{}.init", buf.name()), buf.name().to_string())
            };
            let identity = self.operand(&combiner.identity()[k], dtype)?;
            inits.push(Stmt::store_in_stage(
                init_stage,
                buf,
                out_access.to_vec(),
                identity,
            ));
            let combined = combiner.combine(k, &acc, r.sources());
            let combined = self.operand(&combined, dtype)?;
            updates.push(Stmt::store_in_stage(
                stage,
                buf,
                out_access.to_vec(),
                combined,
            ));
        }
        let mut update = Stmt::seq(updates);
        if let Some(c) = r.condition() {
            update = Stmt::if_then(Value::index(self.expr(c)), update);
        }
        Ok((Stmt::seq(inits), update))
    }

    /// Wraps `inner` in `loops` (outermost first; the first is loop number
    /// `offset` of its stage), placing the stages attached to each loop and
    /// the guards `placed` at that loop at the start of its body.
    pub(crate) fn nest(
        &mut self,
        loops: &[Loop],
        inner: Stmt,
        placed: &[(Option<usize>, Expr)],
        offset: usize,
    ) -> Result<Stmt> {
        let mut stmt = inner;
        for (k, l) in loops.iter().enumerate().rev() {
            if let Some(children) = self.attached.get(&l.iv).cloned() {
                for &c in children.iter().rev() {
                    let produce = self.built[c].take().ok_or_else(|| {
                        TeError::lowering(format!(
                            "stage `{}` was not built before its parent",
                            self.s.stages()[c].op().name()
                        ))
                    })?;
                    stmt = self.with_storage(c, seq(produce, stmt))?;
                }
            }
            for (_, g) in placed.iter().rev().filter(|(p, _)| *p == Some(k + offset)) {
                stmt = Stmt::if_then(Value::likely(Value::index(g.clone())), stmt);
            }
            stmt = l.wrap(stmt);
        }
        Ok(stmt)
    }

    /// Lowers an operand of an operation of type `dtype`: an integer
    /// literal next to a float is a float literal, as TVM converts Python
    /// constants (`A[i] + 2` is `+ 2.000000f`).
    fn operand(&self, x: &TeValue, dtype: tir::DataType) -> Result<Value> {
        match x.kind() {
            ValueKind::Index(e) if dtype.is_float() => match e.as_int() {
                Some(c) => Ok(Value::constant(c as f64, dtype)),
                None => self.value(x),
            },
            ValueKind::Float(f) => Ok(Value::constant(*f, dtype)),
            _ => self.value(x),
        }
    }

    /// Lowers an element value of the stage being lowered: its axes become
    /// the loop expressions [`Lowerer::unsimplified`] gives them.
    pub(crate) fn value(&self, v: &TeValue) -> Result<Value> {
        tir::stack::grow(|| self.value_step(v))
    }

    /// One level of [`Self::value`], on the stack [`tir::stack::grow`] left room on.
    fn value_step(&self, v: &TeValue) -> Result<Value> {
        let raw = |e: &Expr| self.unsimplified(e);
        let idx = |e: &Expr| simp(&self.an, raw(e));
        Ok(match v.kind() {
            ValueKind::Float(x) => Value::f32(*x),
            ValueKind::Param(var, t) => Value::Var(var.clone(), *t),
            ValueKind::Index(e) => Value::index(idx(e)),
            ValueKind::Load(t, indices) => {
                let p = self.s.stage_index(t.op())?;
                let buf = self
                    .buffer_of(p, t.value_index())
                    .ok_or_else(|| TeError::lowering(format!("`{}` has no storage", t.name())))?;
                let logical: Vec<Expr> = indices.iter().map(raw).collect();
                Value::load(&buf, self.access(p, logical))
            }
            ValueKind::Neg(a) => -self.value(a)?,
            ValueKind::Binary(op, a, b) => {
                let dtype = v.dtype();
                let (x, y) = (self.operand(a, dtype)?, self.operand(b, dtype)?);
                Value::binary(binop(*op, dtype.is_int()), x, y)
            }
            // `if_then_else` evaluates only the side it chooses, and prints
            // as such (TVM's `tir.if_then_else`).
            // A condition the loop bounds decide is folded, as TVM's
            // `Simplify` folds it after lowering.
            ValueKind::Select(c, a, b) => match idx(c).as_bool() {
                Some(true) => self.value(a)?,
                Some(false) => self.value(b)?,
                None => Value::if_then_else(Value::index(idx(c)), self.value(a)?, self.value(b)?),
            },
            ValueKind::Reduce(_) | ValueKind::CommReduce(_) => {
                return Err(TeError::definition(
                    "a reduction must be the whole body of a compute",
                ))
            }
            ValueKind::Call(op, args) => Value::call(
                *op,
                args.iter().map(|a| self.value(a)).collect::<Result<_>>()?,
            ),
            ValueKind::Cmp(op, a, b) => {
                let dtype = a.dtype().promote(b.dtype());
                let (x, y) = (self.operand(a, dtype)?, self.operand(b, dtype)?);
                Value::cmp(*op, x, y)
            }
            ValueKind::And(a, b) => Value::and(self.value(a)?, self.value(b)?),
            ValueKind::Or(a, b) => Value::or(self.value(a)?, self.value(b)?),
            ValueKind::Not(a) => !self.value(a)?,
            ValueKind::Cast(t, a) => Value::cast(*t, self.value(a)?),
            ValueKind::SelectValue(c, a, b) => {
                Value::if_then_else(self.value(c)?, self.value(a)?, self.value(b)?)
            }
            ValueKind::Gather(t, indices) => {
                let p = self.s.stage_index(t.op())?;
                if self.s.stages()[p].attach() == &Attach::Inline {
                    return Err(TeError::schedule(format!(
                        "`{}` is inlined, but it is read at indices computed from values \
                         (`{v}`), which cannot be substituted into its definition: compute it \
                         at the root or at a loop instead",
                        t.name()
                    )));
                }
                let buf = self
                    .buffer_of(p, t.value_index())
                    .ok_or_else(|| TeError::lowering(format!("`{}` has no storage", t.name())))?;
                // Each index computed from values is bound to a variable
                // around the load, since loads take index expressions.
                let mut bound = Vec::new();
                let mut logical = Vec::with_capacity(indices.len());
                for x in indices {
                    match x.kind() {
                        ValueKind::Index(e) => logical.push(raw(e)),
                        _ => {
                            let var = Var::new(format!("{}_index{}", t.name(), logical.len()));
                            logical.push(var.expr());
                            bound.push((var, self.value(x)?));
                        }
                    }
                }
                let load = Value::load(&buf, self.access(p, logical));
                bound
                    .into_iter()
                    .rev()
                    .fold(load, |body, (var, x)| Value::let_in(&var, x, body))
            }
        })
    }
}

/// The parts of every scan, by stage position, with the position of their
/// scan and the output they stand for: each state's init, update and
/// placeholder, which all stand for the scan's buffer of that state; and
/// the inits alone, with their scan.
type ScanParts = (HashMap<usize, (usize, usize)>, HashMap<usize, usize>);

fn scan_parts(s: &Schedule) -> Result<ScanParts> {
    let mut parts = HashMap::new();
    let mut inits = HashMap::new();
    for (i, st) in s.stages().iter().enumerate() {
        let Some(scan) = crate::scan::scan_op(st.op()) else {
            continue;
        };
        for (k, ((init, update), state)) in scan
            .init
            .iter()
            .zip(&scan.update)
            .zip(&scan.state)
            .enumerate()
        {
            let init_stage = s.stage_index(init.op())?;
            if inits.insert(init_stage, i).is_some() {
                return Err(TeError::schedule(format!(
                    "`{}` is the init of two states: give each state its own init",
                    init.name()
                )));
            }
            let update_stage = s.stage_index(update.op())?;
            if parts.insert(update_stage, (i, k)).is_some() {
                return Err(TeError::schedule(format!(
                    "`{}` is the update of two states: give each state its own update",
                    update.name()
                )));
            }
            parts.insert(init_stage, (i, k));
            // A state no update reads is not part of the schedule.
            if let Ok(state_stage) = s.stage_index(state.op()) {
                parts.insert(state_stage, (i, k));
            }
        }
    }
    Ok((parts, inits))
}

/// `s` inside an `if (likely(...))` per guard of `gs`, the first outermost
/// (TVM marks the guards of split tails as likely).
fn guarded(s: Stmt, gs: &[&Expr]) -> Stmt {
    gs.iter().rev().fold(s, |acc, g| {
        Stmt::if_then(Value::likely(Value::index((*g).clone())), acc)
    })
}

/// The factor of the split `iv` is the inner loop of, if it is one.
fn split_factor<'s>(st: &'s crate::schedule::Stage, iv: &IterVar) -> Option<&'s Expr> {
    st.relations().iter().find_map(|r| match r {
        crate::schedule::Relation::Split {
            inner,
            by: crate::schedule::SplitBy::Factor(f),
            ..
        } if inner == iv => Some(f),
        _ => None,
    })
}

/// The axis `iv` is the inner loop of a split of, if it is one.
fn split_parent<'s>(st: &'s crate::schedule::Stage, iv: &IterVar) -> Option<&'s IterVar> {
    st.relations().iter().find_map(|r| match r {
        crate::schedule::Relation::Split {
            parent,
            inner,
            by: crate::schedule::SplitBy::Factor(_),
            ..
        } if inner == iv => Some(parent),
        _ => None,
    })
}

/// The kind and pragmas of the loop over `iv`, a leaf of `st`: a thread
/// launch when it is bound (without pragmas, as TVM's `MakeLoopNest`
/// drops them there), else what `parallel`, `vectorize`, `unroll` and
/// `pragma` gave it.
pub(crate) fn loop_kind(
    st: &crate::schedule::Stage,
    iv: &IterVar,
) -> (tir::ForKind, Vec<tir::Pragma>) {
    if let (Some(thread), Some(tag)) = (st.bound_thread(iv), st.thread_tag(iv)) {
        let launch = tir::ThreadLaunch {
            tag: tag.to_string(),
            dom: thread.dom().cloned(),
        };
        return (tir::ForKind::Thread(launch), Vec::new());
    }
    let pragmas = st.annotation(iv).map_or_else(Vec::new, |a| {
        a.pragmas
            .iter()
            .map(|(key, value)| tir::Pragma {
                key: key.clone(),
                value: value.clone(),
                dom: iv.dom().cloned(),
            })
            .collect()
    });
    let kind = st
        .annotation(iv)
        .map_or(tir::ForKind::Serial, |a| a.kind.clone());
    (kind, pragmas)
}

pub(crate) fn binop(op: BinaryOp, int: bool) -> BinOp {
    match op {
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul => BinOp::Mul,
        BinaryOp::Div if int => BinOp::FloorDiv,
        BinaryOp::Div => BinOp::Div,
        BinaryOp::Min => BinOp::Min,
        BinaryOp::Max => BinOp::Max,
        BinaryOp::Mod => BinOp::FloorMod,
    }
}

/// The shape of the storage of stage `i`: per axis, the largest extent its
/// region takes over the iterations of its attach path. Exact by
/// enumeration when the loops involved have constant ranges and few
/// points; otherwise a constant upper bound; otherwise the tensor's size.
///
/// `an` is the analyzer of `b` (passed apart while the lowering holds it).
pub(crate) fn allocation_shape(
    s: &Schedule,
    b: &Bounds,
    an: &arith::Analyzer,
    i: usize,
) -> Result<Vec<Expr>> {
    let op = s.stages()[i].op();
    let region = b
        .region(op)
        .ok_or_else(|| TeError::lowering(format!("no bounds for `{}`", op.name())))?;
    // The attach path is only collected when an extent varies with a loop,
    // so that long chains of attached stages stay linear.
    let mut path: Option<Vec<IterVar>> = None;
    region
        .iter()
        .zip(op.shape())
        .map(|(r, size)| {
            let e = simp(an, b.to_loop_vars(&r.extent));
            if !b.mentions_loop(&e) {
                return Ok(e);
            }
            let path = path.get_or_insert_with(|| b.graph.attach_path(i).cloned().collect());
            Ok(largest(e, path, b, an).unwrap_or_else(|| size.clone()))
        })
        .collect()
}

/// The storage of a transformed stage computed at a loop, in the
/// transformed space: per transformed axis, the largest extent the image of
/// the stage's region takes over the iterations, and the start of that
/// image (in the iteration variables of the bounds). `None` when some image
/// is unbounded or its extent has no bound; the stage is then stored whole.
pub(crate) fn physical_allocation(
    s: &Schedule,
    b: &Bounds,
    an: &arith::Analyzer,
    i: usize,
) -> Option<(Vec<Expr>, Vec<Expr>)> {
    let op = s.stages()[i].op();
    let map = s.layout(op)?;
    let region = b.region(op)?;
    let dom: HashMap<Var, arith::int_set::IntSet> = map
        .initial_indices()
        .iter()
        .zip(&region)
        .map(|(v, r)| {
            let last = Expr::sub(Expr::add(r.min.clone(), r.extent.clone()), Expr::int(1));
            let set = arith::int_set::IntSet::interval(Some(r.min.clone()), Some(last));
            (v.clone(), set)
        })
        .collect();
    let path: Vec<IterVar> = b.graph.attach_path(i).cloned().collect();
    let mut shape = Vec::new();
    let mut starts = Vec::new();
    for f in map.final_indices() {
        let set = an.int_set(f, &dom);
        let (lo, hi) = (set.min()?.clone(), set.max()?.clone());
        let extent = Expr::add(Expr::sub(hi, lo.clone()), Expr::int(1));
        let extent = simp(an, b.to_loop_vars(&extent));
        let size = if b.mentions_loop(&extent) {
            largest(extent, &path, b, an)?
        } else {
            extent
        };
        shape.push(size);
        starts.push(lo);
    }
    Some((shape, starts))
}

fn largest(e: Expr, path: &[IterVar], b: &Bounds, an: &arith::Analyzer) -> Option<Expr> {
    let on_path = |e: &Expr| path.iter().any(|iv| e.uses_var(iv.var()));
    if !on_path(&e) {
        return Some(e);
    }
    // The loops the extent depends on, directly or through their ranges,
    // outermost first.
    let mut needed: Vec<&IterVar> = Vec::new();
    let mut frontier = vec![e.clone()];
    while let Some(x) = frontier.pop() {
        for iv in path {
            if x.uses_var(iv.var()) && !needed.contains(&iv) {
                needed.push(iv);
                let r = b.range(iv)?;
                frontier.push(b.to_loop_vars(&r.min));
                frontier.push(b.to_loop_vars(&r.extent));
            }
        }
    }
    let order: Vec<&IterVar> = path.iter().rev().filter(|iv| needed.contains(iv)).collect();
    let mut best: Option<i64> = None;
    let mut budget = ENUMERATION_LIMIT;
    let mut env: Vec<(Var, i64)> = Vec::new();
    if enumerate_max(&e, &order, b, &mut env, &mut best, &mut budget) {
        return best.map(Expr::int).or(Some(Expr::int(0)));
    }
    if e.node_count() > crate::simp::SIMPLIFY_LIMIT {
        // Too large to bound cheaply: the caller uses the tensor's size.
        return None;
    }
    let bound = an.const_int_bound(&e).max.min(relaxed_upper_bound(&e, an));
    (bound != arith::POS_INF).then(|| Expr::int(bound.max(0)))
}

/// How many candidate forms [`relaxed_upper_bound`] may build.
const CANDIDATE_LIMIT: usize = 16;

/// An upper bound of an extent such as `min(x1, x2) * 2 - max(y1, y2) + 3`
/// (the form of a region cut to a tensor): each `min` where the extent
/// grows with it may be replaced by either argument, and each `max` where
/// it shrinks with it, giving larger expressions whose loop variables
/// often cancel (`min((H - 1) // 2, y * 4 + 3) * 2 - y * 8 + 3` is at most
/// `(y * 4 + 3) * 2 - y * 8 + 3 = 9`) where the extent's own constant
/// bound is infinite. The least constant bound over those forms.
fn relaxed_upper_bound(e: &Expr, an: &arith::Analyzer) -> i64 {
    let mut best = arith::POS_INF;
    for c in relaxations(e, true) {
        if c != *e {
            let c = simp(an, c);
            best = best.min(an.const_int_bound(&c).max);
        }
    }
    best
}

/// Expressions at least `e` (`upper`) or at most `e` (otherwise), `e`
/// itself among them, at most [`CANDIDATE_LIMIT`] of them: `min` and `max`
/// replaced by an argument where the direction allows, through sums,
/// differences, products and floor divisions by constants.
fn relaxations(e: &Expr, upper: bool) -> Vec<Expr> {
    use arith::ExprKind as K;
    let pairs = |a: Vec<Expr>, b: Vec<Expr>, f: &dyn Fn(Expr, Expr) -> Expr| -> Vec<Expr> {
        if a.len() * b.len() > CANDIDATE_LIMIT {
            return vec![e.clone()];
        }
        a.iter()
            .flat_map(|x| b.iter().map(move |y| f(x.clone(), y.clone())))
            .collect()
    };
    let constant = |e: &Expr| vec![e.clone()];
    match e.kind() {
        K::Min(x, y) if upper => {
            let mut out = relaxations(x, upper);
            out.extend(relaxations(y, upper));
            out.truncate(CANDIDATE_LIMIT);
            out
        }
        K::Max(x, y) if !upper => {
            let mut out = relaxations(x, upper);
            out.extend(relaxations(y, upper));
            out.truncate(CANDIDATE_LIMIT);
            out
        }
        K::Add(x, y) => pairs(relaxations(x, upper), relaxations(y, upper), &Expr::add),
        K::Sub(x, y) => pairs(relaxations(x, upper), relaxations(y, !upper), &Expr::sub),
        K::Mul(x, k) if k.as_int().is_some() => {
            let up = upper == (k.as_int() >= Some(0));
            pairs(relaxations(x, up), constant(k), &Expr::mul)
        }
        K::Mul(k, x) if k.as_int().is_some() => {
            let up = upper == (k.as_int() >= Some(0));
            pairs(constant(k), relaxations(x, up), &Expr::mul)
        }
        K::FloorDiv(x, k) if k.as_int().is_some_and(|k| k > 0) => {
            pairs(relaxations(x, upper), constant(k), &Expr::floor_div)
        }
        _ => vec![e.clone()],
    }
}

/// Evaluates `e` at every point of the nested loops `order`; `false` when a
/// range is not constant or the budget runs out.
fn enumerate_max(
    e: &Expr,
    order: &[&IterVar],
    b: &Bounds,
    env: &mut Vec<(Var, i64)>,
    best: &mut Option<i64>,
    budget: &mut u64,
) -> bool {
    let lookup = |env: &Vec<(Var, i64)>, x: &Expr| {
        let pairs: Vec<(&Var, i64)> = env.iter().map(|(v, x)| (v, *x)).collect();
        b.to_loop_vars(x).eval_with(&pairs).ok()
    };
    let Some((iv, rest)) = order.split_first() else {
        let Some(v) = lookup(env, e) else {
            return false;
        };
        *best = Some(best.map_or(v, |m| m.max(v)));
        return true;
    };
    let Some(r) = b.range(iv) else { return false };
    let (Some(lo), Some(ext)) = (lookup(env, &r.min), lookup(env, &r.extent)) else {
        return false;
    };
    for x in lo..lo.saturating_add(ext) {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        env.push((iv.var().clone(), x));
        let ok = enumerate_max(e, rest, b, env, best, budget);
        env.pop();
        if !ok {
            return false;
        }
    }
    true
}

/// The name of the buffer of output `k` of stage `st`: the stage's name for
/// an operation of one output, `C.v0`, `C.v1`, ... for one of several, as
/// TVM names them.
fn buffer_name(st: &crate::schedule::Stage, k: usize) -> String {
    if st.op().num_outputs() > 1 {
        format!("{}.v{k}", st.name())
    } else {
        st.name().to_string()
    }
}

/// Per stage, the buffers of its outputs after the first, shaped and
/// scoped as the first output's buffer (`buffers[i]`).
fn more_output_buffers(s: &Schedule, buffers: &[Option<Buffer>]) -> Result<Vec<Vec<Buffer>>> {
    s.stages()
        .iter()
        .zip(buffers)
        .map(|(st, first)| {
            let op = st.op();
            let Some(first) = first.as_ref().filter(|_| op.num_outputs() > 1) else {
                return Ok(Vec::new());
            };
            if s.layout(op).is_some() {
                return Err(TeError::schedule(format!(
                    "`{}` has {} outputs: transform_layout applies to operations of one output",
                    op.name(),
                    op.num_outputs()
                )));
            }
            Ok((1..op.num_outputs())
                .map(|k| {
                    let dtype = op.output_dtype(k).expect("one type per output");
                    // An extern operation's outputs are stored whole, each
                    // of its own shape.
                    let shape = match op.kind() {
                        crate::operation::OpKind::Extern(_) => {
                            op.output_shape(k).expect("one shape per output").to_vec()
                        }
                        // The rows of the first state; the other states are
                        // stored whole along their spatial axes.
                        crate::operation::OpKind::Scan(_) => {
                            let mut shape = vec![first.shape()[0].clone()];
                            let own = op.output_shape(k).expect("one shape per output");
                            shape.extend(own[1..].iter().cloned());
                            shape
                        }
                        _ => first.shape().to_vec(),
                    };
                    Buffer::new(buffer_name(st, k), dtype, shape)
                        .with_scope(first.scope().to_string())
                })
                .collect())
        })
        .collect()
}

/// Each guard with the position of the innermost loop it mentions (`None`
/// when it mentions none): it goes just inside that loop, so that stages
/// attached further in only run for valid iterations.
fn place_guards(guards: Vec<Expr>, loops: &[Loop]) -> Vec<(Option<usize>, Expr)> {
    guards
        .into_iter()
        .map(|g| {
            (
                loops.iter().rposition(|l| !l.trivial && g.uses_var(&l.var)),
                g,
            )
        })
        .collect()
}
