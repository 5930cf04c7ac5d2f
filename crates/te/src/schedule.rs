//! Schedules: one stage per operation, with the loop structure
//! (split, fuse, reorder, tile) and the placement (compute_at, compute_root,
//! compute_inline) of its computation.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::{OpId, OpKind, Operation, Tensor};
use crate::tensorize::TensorIntrin;
use crate::thread::{StorageScope, ThreadTag};

use arith::Expr;
use std::collections::{HashMap, HashSet};

/// How a split divides its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitBy {
    /// `split(axis, factor=f)`: the inner loop runs `f` times (fewer in the
    /// last outer iteration when `f` does not divide the extent).
    Factor(Expr),
    /// `split(axis, nparts=p)`: the outer loop runs (at most) `p` times.
    NParts(Expr),
}

/// A relation between iteration variables of one stage (TVM's
/// `IterVarRelation`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relation {
    /// `parent = outer * factor + inner`.
    Split {
        /// The axis that was split.
        parent: IterVar,
        /// The outer loop (`parent.outer`).
        outer: IterVar,
        /// The inner loop (`parent.inner`).
        inner: IterVar,
        /// The factor or the number of parts.
        by: SplitBy,
    },
    /// `fused = outer * extent(inner) + inner`.
    Fuse {
        /// The outer of the two fused axes.
        outer: IterVar,
        /// The inner of the two fused axes.
        inner: IterVar,
        /// The fused axis (`outer.inner.fused`).
        fused: IterVar,
    },
    /// A loop of one iteration (`singleton`, always 0) that `fuse()` of no
    /// axes adds as the outermost loop; no other axis depends on it.
    Singleton {
        /// The new axis.
        iter: IterVar,
    },
}

/// Where a stage's computation is placed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attach {
    /// At the top level of the program (the default).
    Root,
    /// Substituted into its consumers (`compute_inline`).
    Inline,
    /// Inside the loop `axis` of the stage of `parent` (`compute_at`).
    At {
        /// The operation whose loop nest holds this stage.
        parent: Operation,
        /// The loop of `parent` this stage is computed in.
        axis: IterVar,
    },
}

/// How a stage's storage is laid out (`storage_align`, `double_buffer`):
/// what TVM's printer shows as attributes of the buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StorageRequests {
    /// `(axis position, factor, offset)`: the stride of that root axis is
    /// a multiple of `factor` plus `offset`.
    pub dim_align: Vec<(usize, i64, i64)>,
    /// Whether the storage is double-buffered.
    pub double_buffer: bool,
}

impl StorageRequests {
    /// The buffer attributes, as TVM prints them (`buffer_dim_align =
    /// tvm_tuple(2, 32, 1)`, `double_buffer_scope = 1`).
    pub fn attrs(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if self.double_buffer {
            out.push(("double_buffer_scope".to_string(), "1".to_string()));
        }
        if !self.dim_align.is_empty() {
            let mut items: Vec<_> = self.dim_align.clone();
            items.sort_unstable();
            let parts: Vec<String> = items
                .iter()
                .map(|(p, f, o)| format!("{p}, {f}, {o}"))
                .collect();
            out.push((
                "buffer_dim_align".to_string(),
                format!("tvm_tuple({})", parts.join(", ")),
            ));
        }
        out
    }
}

/// The schedule of one operation (TVM's `Stage`).
#[derive(Clone, Debug)]
pub struct Stage {
    op: Operation,
    /// The operation's name, made unique within the schedule (`compute`,
    /// `compute_1`, ...) as `tvm.lower` does, so buffers and run counts of
    /// stages that share a name stay apart.
    name: String,
    all_iter_vars: Vec<IterVar>,
    leaf_iter_vars: Vec<IterVar>,
    relations: Vec<Relation>,
    attach: Attach,
    is_output: bool,
    scope: Option<StorageScope>,
    threads: HashMap<IterVar, IterVar>,
    /// The loop given to `tensorize` and its intrinsic.
    tensorized: Option<(IterVar, TensorIntrin)>,
    /// The condition its stores are made under (`set_store_predicate`).
    store_predicate: Option<Expr>,
    /// Storage layout requests: per axis (`storage_align`), the factor
    /// and offset its stride is padded to; and whether the storage is
    /// double-buffered (`double_buffer`).
    storage: StorageRequests,
    /// Loop kinds and pragmas of leaf loops (see `annotate.rs`).
    pub(crate) annotations: HashMap<IterVar, crate::annotate::LoopAnnotation>,
}

impl Stage {
    fn new(op: Operation, name: String, is_output: bool) -> Stage {
        let roots = op.root_iter_vars();
        // A scan's spatial axes are no loops (TVM's opaque axes).
        // So are the axes a tensor intrinsic computes whole (TVM removes
        // opaque axes from the leaves).
        let leaves = match (crate::scan::scan_op(&op), crate::tensor_compute_of(&op)) {
            (Some(scan), _) => vec![scan.scan_axis.clone()],
            (_, Some(tc)) => tc
                .schedulable_axis()
                .iter()
                .chain(&tc.reduce_axis)
                .cloned()
                .collect(),
            _ => roots.clone(),
        };
        Stage {
            op,
            name,
            all_iter_vars: roots,
            leaf_iter_vars: leaves,
            relations: Vec::new(),
            attach: Attach::Root,
            is_output,
            scope: None,
            threads: HashMap::new(),
            tensorized: None,
            store_predicate: None,
            storage: StorageRequests::default(),
            annotations: HashMap::new(),
        }
    }

    /// The operation this stage computes.
    pub fn op(&self) -> &Operation {
        &self.op
    }

    /// The stage's name: the operation's, with a suffix when an earlier
    /// stage of the schedule has the same name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every iteration variable: roots first, then those made by schedule
    /// primitives in creation order.
    pub fn all_iter_vars(&self) -> &[IterVar] {
        &self.all_iter_vars
    }

    /// The loops of the stage, outermost first.
    pub fn leaf_iter_vars(&self) -> &[IterVar] {
        &self.leaf_iter_vars
    }

    /// The relations in the order they were applied.
    pub fn relations(&self) -> &[Relation] {
        &self.relations
    }

    /// The loops that run over data-parallel axes, in whole or in part
    /// (TVM's `PassDownBitMaskOr` of the data axes): a split of a data axis
    /// gives two, a fuse with a data axis gives one, even when the fused
    /// loop also runs a reduction. The reduction's initialisation runs over
    /// these loops.
    pub fn data_loops(&self) -> HashSet<&IterVar> {
        let mut data: HashSet<&IterVar> = self
            .op
            .axis()
            .iter()
            .filter(|a| a.kind() == IterKind::DataPar)
            .collect();
        for r in &self.relations {
            match r {
                Relation::Split {
                    parent,
                    outer,
                    inner,
                    ..
                } => {
                    if data.contains(parent) {
                        data.insert(outer);
                        data.insert(inner);
                    }
                }
                Relation::Fuse {
                    outer,
                    inner,
                    fused,
                } => {
                    if data.contains(outer) || data.contains(inner) {
                        data.insert(fused);
                    }
                }
                // Its one iteration repeats nothing: not a data loop.
                Relation::Singleton { .. } => {}
            }
        }
        data
    }

    /// The loop whose nest a tensor intrinsic replaces (`tensorize`), with
    /// the intrinsic.
    pub fn tensorized(&self) -> Option<(&IterVar, &TensorIntrin)> {
        self.tensorized.as_ref().map(|(iv, t)| (iv, t))
    }

    /// Where the stage is computed.
    pub fn attach(&self) -> &Attach {
        &self.attach
    }

    /// Whether the stage produces an output of the schedule.
    pub fn is_output(&self) -> bool {
        self.is_output
    }

    /// The storage scope given by `set_scope`, if any (otherwise it is
    /// inferred from the threads the stage is nested in).
    pub fn scope(&self) -> Option<StorageScope> {
        self.scope
    }

    /// The condition the stage stores under, if `set_store_predicate` gave
    /// one: it guards every store of the stage, or, for a reduction across
    /// threads, the store of the combined result (TVM's rule).
    pub fn store_predicate(&self) -> Option<&Expr> {
        self.store_predicate.as_ref()
    }

    /// The stage's storage layout requests (`storage_align`,
    /// `double_buffer`).
    pub fn storage_requests(&self) -> &StorageRequests {
        &self.storage
    }

    /// The thread axis the loop `iv` is bound to, if any.
    pub fn bound_thread(&self, iv: &IterVar) -> Option<&IterVar> {
        self.threads.get(iv)
    }

    /// The tag of the thread the loop `iv` is bound to, if any.
    pub fn thread_tag(&self, iv: &IterVar) -> Option<ThreadTag> {
        self.threads.get(iv).and_then(IterVar::thread_tag)
    }

    /// Every loop of this stage bound to a thread, with its tag.
    pub(crate) fn thread_bindings(&self) -> impl Iterator<Item = (&IterVar, ThreadTag)> + '_ {
        self.threads
            .iter()
            .filter_map(|(iv, t)| t.thread_tag().map(|tag| (iv, tag)))
    }

    /// Whether the stage is an input (placeholder).
    pub fn is_placeholder(&self) -> bool {
        matches!(self.op.kind(), OpKind::Placeholder)
    }

    /// Rejects changing a bound loop, whose binding would be lost.
    fn not_bound(&self, iv: &IterVar, what: &str) -> Result<()> {
        match self.threads.get(iv) {
            Some(t) => Err(TeError::schedule(format!(
                "cannot {what} `{}`: it is bound to `{}`; {what} first, then bind",
                iv.name(),
                t.name()
            ))),
            None => Ok(()),
        }
    }

    pub(crate) fn leaf_pos(&self, iv: &IterVar) -> Result<usize> {
        self.leaf_iter_vars
            .iter()
            .position(|l| l == iv)
            .ok_or_else(|| {
                TeError::schedule(format!(
                "`{}` is not a loop of stage `{}` (its loops are {}): use an axis returned by the \
                 last split/fuse of this stage",
                iv.name(),
                self.op.name(),
                names(&self.leaf_iter_vars)
            ))
            })
    }
}

fn names(ivs: &[IterVar]) -> String {
    let v: Vec<&str> = ivs.iter().map(IterVar::name).collect();
    format!("[{}]", v.join(", "))
}

/// A schedule: the stages of every operation the outputs depend on, producers
/// before consumers (TVM's `te.create_schedule`).
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([16], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([16], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
/// let mut s = te::create_schedule(&[b.clone()]);
/// let (xo, xi) = s.split(&b, &b.op().axis()[0], 4).unwrap();
/// assert_eq!((xo.name(), xi.name()), ("i.outer", "i.inner"));
/// assert_eq!(s.stage(&b).unwrap().leaf_iter_vars(), &[xo, xi]);
/// ```
#[derive(Clone, Debug)]
pub struct Schedule {
    outputs: Vec<Operation>,
    stages: Vec<Stage>,
    index: arith::IdMap<OpId, usize>,
    /// The scan each scan's init, body stage and state belongs to, with
    /// its role (empty without scans).
    scan_roles: HashMap<OpId, (Operation, crate::scan::Role)>,
    /// Layout transforms of tensors' buffers (`transform_layout`): the
    /// composition, and each map as given, in order.
    layouts: Vec<(OpId, layout::IndexMap, Vec<layout::IndexMap>)>,
    /// See [`Schedule::revision`].
    revision: u64,
    /// The groups made by `create_group`, in creation order.
    pub(crate) groups: crate::group::Groups,
    /// The schedule after each primitive, when kept (see
    /// [`Schedule::keep_record`]).
    record: Option<Vec<(&'static str, Schedule)>>,
}

/// The source of [`Schedule::revision`]s: one counter for the process, so
/// that no two schedule states share a revision.
static NEXT_REVISION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn fresh_revision() -> u64 {
    NEXT_REVISION.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Creates the schedule of the operations that compute `outputs`.
pub fn create_schedule(outputs: &[Tensor]) -> Schedule {
    // Several outputs of one operation are one output operation.
    let mut seen = HashSet::new();
    let ops: Vec<Operation> = outputs
        .iter()
        .filter(|t| seen.insert(t.op().id()))
        .map(|t| t.op().clone())
        .collect();
    Schedule::new(&ops)
}

impl Schedule {
    /// Starts keeping TVM's schedule record (the pass option
    /// `te.keep_schedule_record`): the schedule as it is now, as
    /// `"vanilla"`, then a copy after each primitive that
    /// [`Schedule::record_step`] reports.
    pub fn keep_record(&mut self) {
        self.record = Some(Vec::new());
        self.record_step("vanilla");
    }

    /// Adds a copy of the schedule as it is after the primitive `name`,
    /// when the record is kept; TVM records every primitive (`split`,
    /// `reorder`, ...) this way, and `tile` as the splits and the reorder
    /// it is made of.
    pub fn record_step(&mut self, name: &'static str) {
        if self.record.is_none() {
            return;
        }
        let mut copy = self.clone();
        copy.record = None;
        if let Some(r) = &mut self.record {
            r.push((name, copy));
        }
    }

    /// The schedule record: each primitive's name and the schedule after
    /// it; empty when none is kept.
    pub fn record(&self) -> &[(&'static str, Schedule)] {
        self.record.as_deref().unwrap_or(&[])
    }

    /// The schedule of `outputs` and everything they read, with every stage
    /// computed at the root.
    pub fn new(outputs: &[Operation]) -> Schedule {
        let order = post_order(outputs);
        let mut index = arith::IdMap::with_capacity_and_hasher(order.len(), Default::default());
        let mut stages = Vec::with_capacity(order.len());
        let mut taken: HashSet<String> = order.iter().map(|op| op.name().to_string()).collect();
        let mut seen: HashSet<String> = HashSet::new();
        // Per name, the suffix to try next: each search starts where the
        // last one for that name ended, so `n` stages of one name take
        // `O(n)`, not `O(n^2)`.
        let mut next_suffix: HashMap<String, usize> = HashMap::new();
        for op in order {
            index.insert(op.id(), stages.len());
            let is_output = outputs.contains(&op);
            let name = if seen.insert(op.name().to_string()) {
                op.name().to_string()
            } else {
                let next = next_suffix.entry(op.name().to_string()).or_insert(1);
                let fresh = (*next..)
                    .map(|k| (k, format!("{}_{k}", op.name())))
                    .find(|(_, n)| !taken.contains(n))
                    .map(|(k, n)| {
                        *next = k + 1;
                        n
                    })
                    .expect("an unused suffix exists");
                taken.insert(fresh.clone());
                fresh
            };
            stages.push(Stage::new(op, name, is_output));
        }
        // The body of a scan runs one step per iteration of its scan axis
        // (TVM's scan update group).
        let mut scan_roles = HashMap::new();
        let mut groups = crate::group::Groups::default();
        for k in 0..stages.len() {
            if let Some(scan) = crate::scan::scan_op(&stages[k].op) {
                use crate::scan::Role;
                let op = stages[k].op.clone();
                let attach = Attach::At {
                    parent: op.clone(),
                    axis: scan.scan_axis.clone(),
                };
                for init in &scan.init {
                    scan_roles.insert(init.op().id(), (op.clone(), Role::Init));
                }
                for state in &scan.state {
                    scan_roles.insert(state.op().id(), (op.clone(), Role::State));
                }
                let body = scan.body_ops();
                for b in &body {
                    scan_roles.insert(b.id(), (op.clone(), Role::Body));
                    if let Some(&j) = index.get(&b.id()) {
                        stages[j].attach = attach.clone();
                    }
                }
                // As in TVM, the body is a group computed at the scan's
                // update: its stages may be placed only inside it.
                groups.add_scan_group(body, &index, attach);
            }
        }
        Schedule {
            outputs: outputs.to_vec(),
            stages,
            index,
            scan_roles,
            layouts: Vec::new(),
            revision: fresh_revision(),
            groups,
            record: None,
        }
    }

    /// Identifies this state of the schedule: every change (a split, an
    /// attachment, a layout) gives a revision no other schedule state in
    /// the process has, and a clone keeps the revision of its original until
    /// either changes. Equal revisions mean equal schedules, so a result
    /// computed from a schedule can be reused while its revision stands.
    ///
    /// ```
    /// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
    /// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let before = s.revision();
    /// assert_eq!(s.clone().revision(), before);
    /// s.split(&b, &b.op().axis()[0], 4).unwrap();
    /// assert_ne!(s.revision(), before);
    /// ```
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Marks the schedule changed; every method taking `&mut self` calls it
    /// first, before anything that can fail half way.
    pub(crate) fn touch(&mut self) {
        self.revision = fresh_revision();
    }

    /// The arguments of a program when none are named: the inputs, then
    /// the outputs.
    pub fn default_args(&self) -> Vec<Tensor> {
        let states = self.scan_states();
        let inputs = self
            .stages
            .iter()
            .filter(|st| st.is_placeholder() && !states.contains(&st.op().id()))
            .map(|st| st.op().output());
        let outputs = self.outputs.iter().flat_map(|op| op.outputs());
        inputs.chain(outputs).collect()
    }

    /// The arguments `tvm.lower` gives storage, as TVM does: an inlined
    /// tensor has none and an input the schedule never reads is unused, so
    /// both are left out of the program (TVM keeps an unused parameter,
    /// which changes nothing in the printed body).
    pub fn program_args(&self, tensors: Vec<Tensor>) -> Vec<Tensor> {
        tensors
            .into_iter()
            .filter(|t| match self.stage_index(t.op()) {
                Ok(i) => self.stages[i].attach() != &Attach::Inline,
                Err(_) => !matches!(t.op().kind(), OpKind::Placeholder),
            })
            .collect()
    }

    /// The state placeholders of the scans of the schedule: they are the
    /// scans' own buffers, not inputs.
    pub(crate) fn scan_states(&self) -> HashSet<OpId> {
        self.stages
            .iter()
            .filter_map(|st| crate::scan::scan_op(st.op()))
            .flat_map(|scan| scan.state.iter().map(|t| t.op().id()))
            .collect()
    }

    /// The scan `op` is the init or a body stage of, if any: such stages
    /// are placed by their scan.
    fn scan_role(&self, op: &Operation) -> Option<(Operation, crate::scan::Role)> {
        self.scan_roles.get(&op.id()).cloned()
    }

    /// Rejects placing a scan's init or update elsewhere: the scan places
    /// them (before its loop, and in it).
    fn not_scan_step(&self, op: &Operation, what: &str) -> Result<()> {
        let role = self.scan_role(op);
        let step = match &role {
            Some((scan, crate::scan::Role::Init)) => Some(("init", scan)),
            Some((scan, crate::scan::Role::Body))
                if crate::scan::scan_op(scan)
                    .is_some_and(|s| s.update.iter().any(|u| u.op() == op)) =>
            {
                Some(("update", scan))
            }
            _ => None,
        };
        match step {
            Some((part, scan)) => Err(TeError::schedule(format!(
                "cannot {what} `{}`: it is the {part} of scan `{}`, which computes it {}",
                op.name(),
                scan.name(),
                if part == "init" {
                    "before its loop"
                } else {
                    "at each step of its loop"
                }
            ))),
            None => Ok(()),
        }
    }

    /// The symbolic sizes the program depends on (`te.var`s in shapes,
    /// reduction domains and split factors), then the scalar parameters its
    /// computations read (`A + x` for a `te.var` `x`, which `tvm.build`
    /// takes as an argument), each once, in order of first appearance.
    pub fn symbolic_sizes(&self) -> Vec<arith::Var> {
        let mut found: Vec<arith::Var> = Vec::new();
        let mut seen = HashSet::new();
        let mut note = |e: &Expr| {
            e.for_each_var(&mut |v| {
                if seen.insert(v.clone()) {
                    found.push(v.clone());
                }
            })
        };
        for stage in &self.stages {
            stage.op().shape().iter().for_each(&mut note);
            for iv in stage.op().reduce_axis() {
                if let Some(dom) = iv.dom() {
                    note(&dom.min);
                    note(&dom.extent);
                }
            }
            for relation in stage.relations() {
                if let Relation::Split {
                    by: SplitBy::Factor(e) | SplitBy::NParts(e),
                    ..
                } = relation
                {
                    note(e);
                }
            }
        }
        for stage in &self.stages {
            let op = stage.op();
            let axes: HashSet<&arith::Var> = op
                .axis()
                .iter()
                .chain(op.reduce_axis().iter())
                .map(IterVar::var)
                .collect();
            for body in op.bodies() {
                body.for_each_index(&mut |e| {
                    e.for_each_var(&mut |v| {
                        if !axes.contains(v) && seen.insert(v.clone()) {
                            found.push(v.clone());
                        }
                    })
                });
            }
        }
        found
    }

    /// The output operations.
    pub fn outputs(&self) -> &[Operation] {
        &self.outputs
    }

    /// All stages, producers before consumers.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The stage of an operation (or of the tensor it produces).
    pub fn stage(&self, op: &impl AsRef<Operation>) -> Result<&Stage> {
        let i = self.stage_index(op.as_ref())?;
        Ok(&self.stages[i])
    }

    /// The position of the stage of `op` in [`Schedule::stages`].
    pub fn stage_index(&self, op: &Operation) -> Result<usize> {
        self.index.get(&op.id()).copied().ok_or_else(|| {
            TeError::schedule(format!(
                "`{}` is not part of this schedule: schedules hold the outputs and what they read",
                op.name()
            ))
        })
    }

    /// The layout transform of `op`'s buffer, if any: the composition of
    /// every `transform_layout` of it, in the order they were made.
    pub fn layout(&self, op: &Operation) -> Option<&layout::IndexMap> {
        self.layouts
            .iter()
            .find(|(id, _, _)| *id == op.id())
            .map(|(_, m, _)| m)
    }

    /// The maps of every `transform_layout` of `op`'s buffer, in the order
    /// they were made (empty without one); [`Schedule::layout`] is their
    /// composition.
    pub fn layout_maps(&self, op: &Operation) -> &[layout::IndexMap] {
        self.layouts
            .iter()
            .find(|(id, _, _)| *id == op.id())
            .map_or(&[], |(_, _, maps)| maps.as_slice())
    }

    /// Records the layout transform of `op`'s buffer: `composed`, the
    /// composition of the maps already recorded with `map`, which is
    /// appended to them (see [`Schedule::transform_layout`]).
    pub(crate) fn set_layout(
        &mut self,
        op: &Operation,
        composed: layout::IndexMap,
        map: layout::IndexMap,
    ) {
        self.touch();
        let mut maps = self.layout_maps(op).to_vec();
        maps.push(map);
        self.layouts.retain(|(id, _, _)| *id != op.id());
        self.layouts.push((op.id(), composed, maps));
    }

    pub(crate) fn compute_stage_mut(&mut self, op: &Operation, what: &str) -> Result<&mut Stage> {
        self.touch();
        let i = self.stage_index(op)?;
        let st = &mut self.stages[i];
        if st.is_placeholder() {
            return Err(TeError::schedule(format!(
                "`{}` is a placeholder: `{what}` applies to computed tensors only",
                op.name()
            )));
        }
        if matches!(what, "split" | "fuse") && matches!(op.kind(), OpKind::Scan(_)) {
            return Err(TeError::schedule(format!(
                "`{}` is a scan: its loop runs one step after another and cannot be {what}",
                op.name()
            )));
        }
        Ok(st)
    }

    /// `s[t].split(axis, factor=factor)`: returns `(outer, inner)`.
    pub fn split(
        &mut self,
        t: &impl AsRef<Operation>,
        axis: &IterVar,
        factor: impl Into<Expr>,
    ) -> Result<(IterVar, IterVar)> {
        self.touch();
        self.split_by(t.as_ref(), axis, SplitBy::Factor(factor.into()))
    }

    /// `s[t].split(axis, nparts=nparts)`: returns `(outer, inner)`.
    pub fn split_nparts(
        &mut self,
        t: &impl AsRef<Operation>,
        axis: &IterVar,
        nparts: impl Into<Expr>,
    ) -> Result<(IterVar, IterVar)> {
        self.touch();
        self.split_by(t.as_ref(), axis, SplitBy::NParts(nparts.into()))
    }

    fn split_by(
        &mut self,
        op: &Operation,
        axis: &IterVar,
        by: SplitBy,
    ) -> Result<(IterVar, IterVar)> {
        self.touch();
        let amount = match &by {
            SplitBy::Factor(e) | SplitBy::NParts(e) => e,
        };
        if let Some(size) = crate::operation::too_large(amount) {
            return Err(TeError::schedule(format!(
                "split of `{}` by a factor or number of parts that written out has {size}, more than the {} allowed: a value reused through a variable (`n = n + n` in a loop) doubles it at each use",
                axis.name(),
                crate::operation::MAX_BODY_NODES
            )));
        }
        if matches!(amount.as_int(), Some(v) if v <= 0) || amount.ty() != arith::Type::Int {
            return Err(TeError::schedule(format!(
                "split of `{}` by `{amount}`: the factor or number of parts must be a positive integer",
                axis.name()
            )));
        }
        let st = self.compute_stage_mut(op, "split")?;
        let pos = st.leaf_pos(axis)?;
        st.not_bound(axis, "split")?;
        let outer = IterVar::new(format!("{}.outer", axis.name()), None, axis.kind());
        let inner = IterVar::new(format!("{}.inner", axis.name()), None, axis.kind());
        st.leaf_iter_vars
            .splice(pos..pos + 1, [outer.clone(), inner.clone()]);
        st.all_iter_vars.push(outer.clone());
        st.all_iter_vars.push(inner.clone());
        st.relations.push(Relation::Split {
            parent: axis.clone(),
            outer: outer.clone(),
            inner: inner.clone(),
            by,
        });
        self.move_attachments(op, &[axis], &inner);
        Ok((outer, inner))
    }

    /// `s[t].fuse(outer, inner)`: the two loops must be adjacent, in either
    /// order (as in TVM, the enclosing one becomes the outer of the fuse,
    /// and the name keeps the order given). A data-parallel loop fused with
    /// a reduction loop gives a reduction loop (TVM's fused axis takes the
    /// larger of the two iteration types); the reduction's initialisation
    /// then runs over the whole fused loop (see [`Stage::data_loops`]).
    pub fn fuse(
        &mut self,
        t: &impl AsRef<Operation>,
        outer: &IterVar,
        inner: &IterVar,
    ) -> Result<IterVar> {
        self.touch();
        let st = self.compute_stage_mut(t.as_ref(), "fuse")?;
        let mut po = st.leaf_pos(outer)?;
        let mut pi = st.leaf_pos(inner)?;
        st.not_bound(outer, "fuse")?;
        st.not_bound(inner, "fuse")?;
        let name = format!("{}.{}.fused", outer.name(), inner.name());
        let (mut outer, mut inner) = (outer, inner);
        if pi + 1 == po {
            std::mem::swap(&mut outer, &mut inner);
            std::mem::swap(&mut po, &mut pi);
        }
        if pi != po + 1 {
            return Err(TeError::schedule(format!(
                "cannot fuse `{}` and `{}`: only adjacent loops can be fused, the first directly \
                 enclosing the second (reorder them first)",
                outer.name(),
                inner.name()
            )));
        }
        let kind = if outer.kind() == IterKind::Reduce || inner.kind() == IterKind::Reduce {
            IterKind::Reduce
        } else {
            IterKind::DataPar
        };
        let fused = IterVar::new(name, None, kind);
        st.leaf_iter_vars.splice(po..po + 2, [fused.clone()]);
        st.all_iter_vars.push(fused.clone());
        st.relations.push(Relation::Fuse {
            outer: outer.clone(),
            inner: inner.clone(),
            fused: fused.clone(),
        });
        self.move_attachments(t.as_ref(), &[outer, inner], &fused);
        Ok(fused)
    }

    /// `s[t].fuse()` of no axes: a new outermost loop of one iteration,
    /// named `singleton`, as TVM adds it.
    pub fn fuse_none(&mut self, t: &impl AsRef<Operation>) -> Result<IterVar> {
        self.touch();
        let st = self.compute_stage_mut(t.as_ref(), "fuse")?;
        let one = arith::Range::new(Expr::int(0), Expr::int(1));
        let iter = IterVar::new("singleton", Some(one), IterKind::DataPar);
        st.leaf_iter_vars.insert(0, iter.clone());
        st.all_iter_vars.push(iter.clone());
        st.relations
            .push(Relation::Singleton { iter: iter.clone() });
        Ok(iter)
    }

    /// Stages computed at a loop of `op` that a split or fuse just replaced
    /// (`from`) move to the loop that now runs its iterations (`to`: the
    /// inner loop of a split, the fused loop), as TVM attaches them.
    fn move_attachments(&mut self, op: &Operation, from: &[&IterVar], to: &IterVar) {
        self.touch();
        for st in &mut self.stages {
            if let Attach::At { parent, axis } = &mut st.attach {
                if parent == op && from.contains(&&*axis) {
                    *axis = to.clone();
                }
            }
        }
    }

    /// `s[t].reorder(*order)`: the given loops take the positions they
    /// occupy, in the given order; other loops stay where they are.
    pub fn reorder(&mut self, t: &impl AsRef<Operation>, order: &[IterVar]) -> Result<()> {
        self.touch();
        let st = self.compute_stage_mut(t.as_ref(), "reorder")?;
        let mut pos = Vec::with_capacity(order.len());
        for iv in order {
            let p = st.leaf_pos(iv)?;
            if pos.contains(&p) {
                return Err(TeError::schedule(format!(
                    "`{}` appears twice in reorder: name each loop once",
                    iv.name()
                )));
            }
            pos.push(p);
        }
        let mut sorted = pos.clone();
        sorted.sort_unstable();
        for (slot, iv) in sorted.into_iter().zip(order) {
            st.leaf_iter_vars[slot] = iv.clone();
        }
        Ok(())
    }

    /// `s[t].tile(x, y, x_factor, y_factor)`: splits both axes and orders the
    /// loops `(x.outer, y.outer, x.inner, y.inner)`, which it returns.
    pub fn tile(
        &mut self,
        t: &impl AsRef<Operation>,
        x: &IterVar,
        y: &IterVar,
        x_factor: impl Into<Expr>,
        y_factor: impl Into<Expr>,
    ) -> Result<(IterVar, IterVar, IterVar, IterVar)> {
        self.touch();
        let (xo, xi) = self.split(t, x, x_factor)?;
        let (yo, yi) = self.split(t, y, y_factor)?;
        self.reorder(t, &[xo.clone(), yo.clone(), xi.clone(), yi.clone()])?;
        Ok((xo, yo, xi, yi))
    }

    /// `s[t].compute_at(s[parent], axis)`: computes `t` inside the loop
    /// `axis` of `parent`, just the part that iteration needs.
    pub fn compute_at(
        &mut self,
        t: &impl AsRef<Operation>,
        parent: &impl AsRef<Operation>,
        axis: &IterVar,
    ) -> Result<()> {
        self.touch();
        // As in TVM, whether `axis` is a loop of `parent` (and `parent` not
        // `t` itself or a placeholder) is checked when bounds are inferred
        // (`tvm.lower`), where TVM raises it.
        // An axis of `parent` that was already split or fused stands for
        // the loop that replaced it, as TVM's normalize re-targets it.
        let parent = parent.as_ref().clone();
        let op = t.as_ref();
        let axis = crate::normalize::attach_target(self.stage(&parent)?, axis);
        self.not_scan_step(op, "compute_at")?;
        self.check_group_of_parent(op, &parent)?;
        let st = self.compute_stage_mut(op, "compute_at")?;
        st.attach = Attach::At { parent, axis };
        Ok(())
    }

    /// `s[t].bind(iv, thread)`: the loop `iv` enumerates the thread axis
    /// `thread` (from [`IterVar::thread_axis`]). Lowering emits it as a
    /// thread launch (TVM's `thread_extent` attribute; the interpreter runs
    /// it as a loop over the thread index), except inside an enclosing loop
    /// bound to the same thread axis, whose index it then shares; bound
    /// inference uses the tag to decide which producers cover all threads.
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([64], "A", DataType::Float32).unwrap();
    /// let b = te::compute_named([64], &["i"], |i| a.at([&i[0]]) * 2.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let (bx, tx) = s.split(&b, &b.op().axis()[0], 16).unwrap();
    /// let thread_x = te::IterVar::thread_axis("threadIdx.x").unwrap();
    /// s.bind(&b, &tx, &thread_x).unwrap();
    /// assert_eq!(s.stage(&b).unwrap().thread_tag(&tx), Some(te::ThreadTag::ThreadIdx(0)));
    /// assert!(s.bind(&b, &bx, &thread_x).is_err());
    /// ```
    pub fn bind(
        &mut self,
        t: &impl AsRef<Operation>,
        iv: &IterVar,
        thread: &IterVar,
    ) -> Result<()> {
        self.touch();
        if thread.thread_tag().is_none() {
            return Err(TeError::schedule(format!(
                "`{}` is not a thread axis: bind to `te.thread_axis(\"threadIdx.x\")` or similar",
                thread.name()
            )));
        }
        let st = self.compute_stage_mut(t.as_ref(), "bind")?;
        st.leaf_pos(iv)?;
        if let Some((other, _)) = st.threads.iter().find(|(o, t)| *t == thread && *o != iv) {
            return Err(TeError::schedule(format!(
                "`{}` is already bound to `{}` of `{}`: bind a thread axis to one loop per stage",
                thread.name(),
                other.name(),
                st.op.name()
            )));
        }
        st.threads.insert(iv.clone(), thread.clone());
        Ok(())
    }

    /// `s[t].set_scope(scope)`: where `t`'s storage lives (`global`,
    /// `shared`, `warp` or `local`).
    pub fn set_scope(&mut self, t: &impl AsRef<Operation>, scope: &str) -> Result<()> {
        self.touch();
        let scope = StorageScope::parse(scope)?;
        self.compute_stage_mut(t.as_ref(), "set_scope")?.scope = Some(scope);
        Ok(())
    }

    /// `s[t].storage_align(axis, factor, offset)`: the stride of root axis
    /// `axis` of `t`'s storage is padded to `k * factor + offset` (against
    /// shared memory bank conflicts). It changes the storage's layout, not
    /// which elements are computed or read: it is kept and printed as TVM
    /// prints it (`buffer_dim_align`).
    pub fn storage_align(
        &mut self,
        t: &impl AsRef<Operation>,
        axis: &IterVar,
        factor: i64,
        offset: i64,
    ) -> Result<()> {
        self.touch();
        let op = t.as_ref();
        let Some(position) = op.root_iter_vars().iter().position(|r| r == axis) else {
            return Err(TeError::schedule(format!(
                "`storage_align` of `{}`: `{}` is not one of its axes (`op.axis`)",
                op.name(),
                axis.name()
            )));
        };
        if factor <= 0 {
            return Err(TeError::schedule(format!(
                "`storage_align` of `{}`: the factor must be positive, found {factor}",
                op.name()
            )));
        }
        let st = self.compute_stage_mut(op, "storage_align")?;
        st.storage.dim_align.retain(|(p, _, _)| *p != position);
        st.storage.dim_align.push((position, factor, offset));
        Ok(())
    }

    /// `s[t].double_buffer()`: `t`'s storage is doubled so that the next
    /// iteration's fetch overlaps this one's use. Values and bounds are
    /// unchanged; it is kept and printed as TVM prints it
    /// (`double_buffer_scope`).
    pub fn double_buffer(&mut self, t: &impl AsRef<Operation>) -> Result<()> {
        self.touch();
        self.compute_stage_mut(t.as_ref(), "double_buffer")?
            .storage
            .double_buffer = true;
        Ok(())
    }

    /// `s[t].set_store_predicate(cond)`: the stage stores only where the
    /// index condition `cond` holds (see [`Stage::store_predicate`]).
    pub fn set_store_predicate(&mut self, t: &impl AsRef<Operation>, cond: Expr) -> Result<()> {
        self.touch();
        if let Some(size) = crate::operation::too_large(&cond) {
            return Err(TeError::schedule(format!(
                "the condition of `set_store_predicate` written out has {size}, more than the {} allowed: a value reused through a variable (`c = c & c` in a loop) doubles it at each use",
                crate::operation::MAX_BODY_NODES
            )));
        }
        if cond.ty() != arith::Type::Bool {
            return Err(TeError::schedule(format!(
                "`set_store_predicate` needs a condition, such as `tx.var.equal(0)`, found `{cond}`"
            )));
        }
        self.compute_stage_mut(t.as_ref(), "set_store_predicate")?
            .store_predicate = Some(cond);
        Ok(())
    }

    /// `s[t].tensorize(iv, intrin)`: the loop `iv` and every loop inside it
    /// are replaced by a call of `intrin`, whose computation must be what
    /// they compute (checked, with the region's bounds against the
    /// intrinsic's shapes, when the schedule is lowered).
    pub fn tensorize(
        &mut self,
        t: &impl AsRef<Operation>,
        iv: &IterVar,
        intrin: &TensorIntrin,
    ) -> Result<()> {
        self.touch();
        let st = self.compute_stage_mut(t.as_ref(), "tensorize")?;
        st.leaf_pos(iv)?;
        st.tensorized = Some((iv.clone(), intrin.clone()));
        Ok(())
    }

    /// `s[t].compute_root()`: computes all of `t` at the top level.
    /// A stage of a scan's body stays in the scan's loop, at its root (as
    /// TVM's group root).
    pub fn compute_root(&mut self, t: &impl AsRef<Operation>) -> Result<()> {
        self.touch();
        let attach = match self.scan_role(t.as_ref()) {
            Some((scan, crate::scan::Role::Body)) => Attach::At {
                axis: crate::scan::scan_op(&scan)
                    .expect("a scan")
                    .scan_axis
                    .clone(),
                parent: scan,
            },
            _ => Attach::Root,
        };
        self.compute_stage_mut(t.as_ref(), "compute_root")?.attach = attach;
        // In a group, the root is where the group is computed.
        self.follow_group(t.as_ref())
    }

    /// `s[t].compute_inline()`: substitutes `t`'s body into its consumers.
    /// Outputs and reductions cannot be inlined.
    pub fn compute_inline(&mut self, t: &impl AsRef<Operation>) -> Result<()> {
        self.touch();
        let op = t.as_ref();
        self.not_scan_step(op, "compute_inline")?;
        let st = self.compute_stage_mut(op, "compute_inline")?;
        if st.is_output {
            return Err(TeError::schedule(format!(
                "cannot inline `{}`: it is an output",
                op.name()
            )));
        }
        if !matches!(op.kind(), OpKind::Compute(_)) {
            return Err(TeError::schedule(format!(
                "cannot inline `{}`: it is a scan or an extern operation, which has no expression \
                 to substitute",
                op.name()
            )));
        }
        if !op.reduce_axis().is_empty() {
            return Err(TeError::schedule(format!(
                "cannot inline `{}`: it is a reduction (compute it at a consumer's loop instead)",
                op.name()
            )));
        }
        if op.num_outputs() > 1 {
            return Err(TeError::schedule(format!(
                "cannot inline `{}`: it has {} outputs, computed together (compute it at a \
                 consumer's loop instead)",
                op.name(),
                op.num_outputs()
            )));
        }
        st.attach = Attach::Inline;
        Ok(())
    }
}

/// Changes made by the primitives that add stages (`cache_read`,
/// `cache_write`, `rfactor`, in their own modules).
impl Schedule {
    /// Inserts a root stage for `op` at position `pos` of
    /// [`Schedule::stages`] and returns its position. Its name is `op`'s,
    /// with a suffix if a stage already has it.
    pub(crate) fn insert_stage(&mut self, pos: usize, op: Operation) -> usize {
        self.touch();
        let taken: HashSet<&str> = self.stages.iter().map(Stage::name).collect();
        let name = if taken.contains(op.name()) {
            (1..)
                .map(|k| format!("{}_{k}", op.name()))
                .find(|n| !taken.contains(n.as_str()))
                .expect("an unused suffix exists")
        } else {
            op.name().to_string()
        };
        self.stages.insert(pos, Stage::new(op, name, false));
        self.reindex();
        pos
    }

    /// Gives stage `i` the operation `op` (the same operation, with a new
    /// definition: see [`Operation::replaced`]). With `reset_loops` its
    /// loops become the new operation's axes, without splits, as TVM resets
    /// a stage whose work moved to another.
    pub(crate) fn replace_op(&mut self, i: usize, op: Operation, reset_loops: bool) {
        self.touch();
        let st = &mut self.stages[i];
        debug_assert_eq!(st.op.id(), op.id());
        if reset_loops {
            let roots = op.root_iter_vars();
            // A binding of an axis that stays a loop stays, as in TVM.
            st.threads.retain(|iv, _| roots.contains(iv));
            st.all_iter_vars = roots.clone();
            st.leaf_iter_vars = roots;
            st.relations.clear();
        }
        st.op = op;
    }

    /// Sets where stage `i` is computed.
    pub(crate) fn set_attach(&mut self, i: usize, attach: Attach) {
        self.touch();
        self.stages[i].attach = attach;
    }

    /// Sets the storage scope of stage `i`.
    pub(crate) fn set_stage_scope(&mut self, i: usize, scope: StorageScope) {
        self.touch();
        self.stages[i].scope = Some(scope);
    }

    /// Puts the stages in the order of `order`, each with its given name
    /// (what `load_json` restores: a rebuilt schedule finds its stages in
    /// the order of the graph, the saved one kept them where its
    /// primitives put them). `order` must name every stage once, with
    /// distinct names.
    pub(crate) fn restore_stage_order(&mut self, order: &[(OpId, String)]) -> Result<()> {
        let mut names: HashSet<&str> = HashSet::new();
        let mut seen: HashSet<OpId> = HashSet::new();
        for (id, name) in order {
            if !self.index.contains_key(id) || !seen.insert(*id) || !names.insert(name) {
                return Err(TeError::schedule(
                    "the saved stages are not the schedule's stages, once each with distinct names",
                ));
            }
        }
        if order.len() != self.stages.len() {
            return Err(TeError::schedule(format!(
                "{} saved stages for a schedule of {}",
                order.len(),
                self.stages.len()
            )));
        }
        let mut stages: Vec<Option<Stage>> = std::mem::take(&mut self.stages)
            .into_iter()
            .map(Some)
            .collect();
        for (id, name) in order {
            let mut st = stages[self.index[id]].take().expect("each stage once");
            st.name = name.clone();
            self.stages.push(st);
        }
        self.touch();
        self.reindex();
        Ok(())
    }

    /// Rebuilds the index of stages by operation after stages moved.
    fn reindex(&mut self) {
        self.index.clear();
        for (i, st) in self.stages.iter().enumerate() {
            self.index.insert(st.op.id(), i);
        }
    }
}

/// Operations reachable from `outputs`, each after everything it reads
/// (iterative, so long chains do not exhaust the stack).
fn post_order(outputs: &[Operation]) -> Vec<Operation> {
    let mut seen: HashMap<OpId, ()> = HashMap::new();
    let mut order = Vec::new();
    let mut stack: Vec<(Operation, bool)> =
        outputs.iter().rev().map(|o| (o.clone(), false)).collect();
    while let Some((op, expanded)) = stack.pop() {
        if expanded {
            order.push(op);
            continue;
        }
        if seen.insert(op.id(), ()).is_some() {
            continue;
        }
        stack.push((op.clone(), true));
        for t in op.input_tensors().into_iter().rev() {
            if !seen.contains_key(&t.op().id()) {
                stack.push((t.op().clone(), false));
            }
        }
    }
    order
}
