//! InferBound (seed 000): the range of every iteration variable of a
//! schedule, visiting stages consumers-first.
//!
//! Per stage: InferRootBound (phase 1: sets for the consumers' loops, relaxed
//! below the attach point; phase 2: PassUpDomain to the consumers' root
//! axes, relaxing the consumers' attach paths where the stage is not nested
//! in them; phase 3: the index sets of the loads of this stage; phase 4:
//! their per-axis union), then PassDownDomain through splits and fuses.
//!
//! Thread binding (TVM's `NeedRelax`): a consumer loop enclosing the attach
//! point is normally one point, but a loop bound to a thread is relaxed to
//! its whole range when the producer's storage is shared by those threads
//! (see [`StorageScope::relaxes`]); a stage without `set_scope` gets TVM's
//! inferred scope. A loop bound to the thread axis of a loop around it
//! shares that loop's index (one index per thread, as on a GPU). Unlike TVM,
//! other loops inside the attach point are relaxed whatever their tag:
//! rangefinder runs bound loops sequentially, so a producer computed outside
//! a loop must cover all its iterations.
//!
//! Beyond the seed: a split whose factor does not divide the extent gives the
//! inner loop the extent `min(factor, extent - outer * factor)`, and passing
//! a set up through a fuse gives the minimal box (exact when the set is one).

use crate::error::{Result, TeError};
use crate::graph::Graph;
use crate::iter_var::IterVar;
use crate::operation::{OpKind, Operation};
use crate::schedule::{Attach, Relation, Schedule, SplitBy, Stage};
use crate::simp::simp;
use crate::thread::{StorageScope, ThreadTag};
use arith::int_set::{IntSet, Precision};
use arith::{Analyzer, ConstBound, Expr, ExprKind, IdMap, IdSet, Range, Var, NEG_INF, POS_INF};
use std::cell::Cell;
use std::collections::HashMap;

/// The result of [`infer_bound`]: a range for every iteration variable of
/// every stage, plus what lowering needs to build loops from them.
pub struct Bounds {
    ranges: IdMap<IterVar, Range>,
    /// Extents loops can use without knowing enclosing loops of the same
    /// stage, where they differ from the exact extent (split tails).
    nominal: IdMap<IterVar, Expr>,
    /// The factor of each split, by its inner axis.
    pub(crate) factors: IdMap<IterVar, Expr>,
    /// Each non-loop variable as an expression of loop variables, except
    /// the variables of axes several stages share (see `own_index`).
    index: IdMap<Var, Expr>,
    /// The variables of root axes that belong to more than one stage (a
    /// reduce axis given to two computes): split in one stage, a plain loop
    /// in another, so their values are kept per stage, as TVM keeps the
    /// relations of each stage apart.
    shared: IdSet<Var>,
    /// The values of `shared` variables, by stage position and variable.
    own_index: HashMap<(usize, Var), Expr>,
    /// Loops bound to the thread axis of an enclosing loop, which they share
    /// instead of being loops of their own, by that enclosing loop.
    unified: IdMap<IterVar, IterVar>,
    /// The variables of every stage's loops.
    loop_vars: IdSet<Var>,
    /// Every thread-bound loop of the schedule, with its tag (empty for
    /// schedules without threads, which then skip all thread reasoning).
    thread_tags: IdMap<IterVar, ThreadTag>,
    /// The axes whose exact bound outgrew [`BOUND_BUDGET`] and were widened
    /// to their whole extent, in the order met.
    widened: Vec<IterVar>,
    /// Per stage: whether a thread-bound loop is on its attach path. A
    /// consumer's path need not be walked without one (and without a
    /// relaxed loop on it): long attach chains stay linear.
    path_threads: Vec<bool>,
    pub(crate) graph: Graph,
    pub(crate) analyzer: Analyzer,
}

/// The largest bound end, in nodes, InferBound keeps exact; the two ends of
/// a range together may have one and a half times as many (their
/// difference, the extent, is simplified at the cost of their size). A bound
/// that grows past it (symbolic pipelines whose bounds nest the bounds of
/// every consumer) is widened to the producer's whole axis, which is sound
/// because consumers never read outside a tensor. Without it, chains of
/// stages attached to their consumers' loops grow exponentially.
pub const BOUND_BUDGET: usize = 48;

impl Bounds {
    /// The range of `iv`, if `iv` belongs to the schedule (inlined stages
    /// have none).
    pub fn range(&self, iv: &IterVar) -> Option<&Range> {
        self.ranges.get(iv)
    }

    /// Every (iteration variable, range) pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&IterVar, &Range)> {
        self.ranges.iter()
    }

    /// How many iteration variables have a range.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether no iteration variable has a range.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The region of `op` computed per iteration of its attach point: the
    /// ranges of its data-parallel axes.
    pub fn region(&self, op: &Operation) -> Option<Vec<Range>> {
        self.output_region(op, 0)
    }

    /// The region of output `k` of `op` (see [`Bounds::region`]): the
    /// same for every output of a compute; an extern operation's outputs
    /// and a scan's states each have their own.
    pub fn output_region(&self, op: &Operation, k: usize) -> Option<Vec<Range>> {
        match op.kind() {
            OpKind::Scan(scan) => {
                return crate::scan::region(
                    scan,
                    k,
                    |iv| self.ranges.get(iv).cloned(),
                    &self.analyzer,
                )
            }
            OpKind::Extern(_) => {
                let shape = op.output_shape(k)?;
                return Some(shape.iter().cloned().map(Range::from_extent).collect());
            }
            _ => {}
        }
        op.axis()
            .iter()
            .map(|a| self.ranges.get(a).cloned())
            .collect()
    }

    /// The attach path of the stage at `stage` (its position in
    /// [`Schedule::stages`]): the loops enclosing it, innermost first.
    pub fn attach_path(&self, stage: usize) -> Vec<IterVar> {
        self.graph.attach_path(stage).cloned().collect()
    }

    /// The extent a loop over `iv` may always use (the exact one, or the
    /// split factor for a split tail, whose exact extent needs the outer loop).
    pub(crate) fn nominal_extent(&self, iv: &IterVar) -> Option<Expr> {
        self.nominal
            .get(iv)
            .cloned()
            .or_else(|| self.ranges.get(iv).map(|r| r.extent.clone()))
    }

    pub(crate) fn has_tail(&self, iv: &IterVar) -> bool {
        self.nominal.contains_key(iv)
    }

    /// The value of a variable that is not a loop's, in loop variables, in
    /// the body of stage `stage`.
    pub(crate) fn loop_value(&self, stage: usize, v: &Var) -> Option<&Expr> {
        if self.shared.contains(v) {
            return self.own_index.get(&(stage, v.clone()));
        }
        self.index.get(v)
    }

    /// Whether `v` is the variable of an axis several stages share, whose
    /// value and loop differ between them.
    pub(crate) fn is_shared(&self, v: &Var) -> bool {
        self.shared.contains(v)
    }

    /// `e` with every non-loop iteration variable replaced by its value in
    /// terms of loop variables, for an `e` outside any one stage's body (an
    /// axis shared by stages stays itself: where it is a loop, it is one).
    pub(crate) fn to_loop_vars(&self, e: &Expr) -> Expr {
        if self.index.is_empty() {
            return e.clone();
        }
        e.substitute(&mut |v| self.index.get(v).cloned())
    }

    /// The axes whose exact bound outgrew [`BOUND_BUDGET`] and were widened
    /// to the whole axis (sound, but coarser than the exact answer).
    pub fn widened(&self) -> &[IterVar] {
        &self.widened
    }

    /// The enclosing loop whose thread index the loop `iv` shares, if any.
    pub(crate) fn unified_with(&self, iv: &IterVar) -> Option<&IterVar> {
        self.unified.get(iv)
    }

    /// Whether `e` mentions the variable of some stage's loop.
    pub(crate) fn mentions_loop(&self, e: &Expr) -> bool {
        let mut found = false;
        e.for_each_var(&mut |v| found |= self.loop_vars.contains(v));
        found
    }

    /// The value of `iv`, an axis of stage `stage`, in terms of loop
    /// variables.
    pub(crate) fn value_of(&self, stage: usize, iv: &IterVar) -> Expr {
        self.loop_value(stage, iv.var())
            .cloned()
            .unwrap_or_else(|| iv.expr())
    }
}

/// Runs InferBound on `s`.
///
/// Errors: an attachment that is not on the consumer's loop nest, a cycle of
/// attachments, or integer overflow while simplifying.
pub fn infer_bound(s: &Schedule) -> Result<Bounds> {
    let graph = Graph::new(s)?;
    let mut b = Bounds {
        ranges: IdMap::default(),
        nominal: IdMap::default(),
        factors: IdMap::default(),
        index: IdMap::default(),
        shared: shared_axes(s),
        own_index: HashMap::new(),
        unified: IdMap::default(),
        loop_vars: Default::default(),
        thread_tags: s
            .stages()
            .iter()
            .flat_map(|st| st.thread_bindings().map(|(iv, t)| (iv.clone(), t)))
            .collect(),
        widened: Vec::new(),
        path_threads: Vec::new(),
        graph,
        analyzer: Analyzer::new(),
    };
    b.path_threads = path_threads(&b.graph, &b.thread_tags);
    assume_positive_sizes(s, &mut b.analyzer);
    for i in (0..s.stages().len()).rev() {
        let st = &s.stages()[i];
        if st.attach() == &Attach::Inline {
            continue;
        }
        infer_root_bound(s, i, &mut b)?;
        pass_down_domain(st, &mut b)?;
        unify_threads(s, i, &mut b)?;
        pass_up_index(st, &mut b);
        for v in b.shared.iter() {
            if let Some(e) = b.index.remove(v) {
                b.own_index.insert((i, v.clone()), e);
            }
        }
        b.loop_vars
            .extend(st.leaf_iter_vars().iter().map(|iv| iv.var().clone()));
    }
    Ok(b)
}

/// The variables of root axes that belong to more than one stage.
fn shared_axes(s: &Schedule) -> IdSet<Var> {
    let mut seen: IdSet<Var> = IdSet::default();
    let mut shared = IdSet::default();
    for st in s.stages() {
        for iv in st.op().root_iter_vars() {
            if !seen.insert(iv.var().clone()) {
                shared.insert(iv.var().clone());
            }
        }
    }
    shared
}

/// Sizes named by a variable (`n` in `(n, m)`) and symbolic split factors
/// are taken to be at least 1, so that dividing by them is well defined
/// (TVM's `size_var`).
fn assume_positive_sizes(s: &Schedule, an: &mut Analyzer) {
    for st in s.stages() {
        for d in st.op().shape() {
            if let Some(v) = d.as_var() {
                an.update_bound(v, ConstBound::new(1, POS_INF));
            }
        }
        // Split factors and part counts are positive by definition.
        for rel in st.relations() {
            if let Relation::Split {
                by: SplitBy::Factor(f) | SplitBy::NParts(f),
                ..
            } = rel
            {
                if let Some(v) = f.as_var() {
                    an.update_bound(v, ConstBound::new(1, POS_INF));
                }
            }
        }
    }
}

fn bind(b: &mut Bounds, iv: &IterVar, r: Range) {
    tell_analyzer(b, iv, &r, &r.extent, None);
    b.ranges.insert(iv.clone(), r);
}

/// The largest range, in nodes of its min and extent, the analyzer is told
/// exactly. Every query about a variable may substitute its range ends
/// (several levels deep), so large ends make each query slow; a larger range
/// is told coarsely instead (see [`tell_analyzer`]).
const FACT_BUDGET: usize = 24;

/// Tells the analyzer that `iv` runs over `[r.min, r.min + extent)`, or over
/// a coarser superset when that range is over [`FACT_BUDGET`]: facts proved
/// over a superset hold on the range. The superset is `[0, shape)` for an
/// axis of a tensor of that size (`shape`), else the constant bounds of the
/// ends.
fn tell_analyzer(b: &mut Bounds, iv: &IterVar, r: &Range, extent: &Expr, shape: Option<&Expr>) {
    if r.min.node_count() + extent.node_count() <= FACT_BUDGET {
        b.analyzer
            .bind(iv.var(), Range::new(r.min.clone(), extent.clone()));
        return;
    }
    // Constant bounds of very large ends would cost more than they give.
    let small = |e: &Expr| e.node_count() <= 2 * FACT_BUDGET;
    let last = Expr::sub(Expr::add(r.min.clone(), extent.clone()), Expr::int(1));
    let lo = if small(&r.min) {
        b.analyzer.const_int_bound(&r.min).min
    } else {
        NEG_INF
    };
    let hi = if small(&last) {
        b.analyzer.const_int_bound(&last).max
    } else {
        POS_INF
    };
    match shape {
        Some(size) if hi == POS_INF => {
            b.analyzer.bind(iv.var(), Range::from_extent(size.clone()));
        }
        _ => b.analyzer.update_bound(iv.var(), ConstBound::new(lo, hi)),
    }
}

/// Records the exact range of a split tail but tells the analyzer only the
/// nominal one: a loop may run over the nominal extent (with a guard), and
/// every simplification must stay valid there.
fn bind_tail(b: &mut Bounds, iv: &IterVar, exact: Range, nominal: Expr) {
    tell_analyzer(b, iv, &exact, &nominal, None);
    b.nominal.insert(iv.clone(), nominal);
    b.ranges.insert(iv.clone(), exact);
}

fn declared(iv: &IterVar) -> Result<Range> {
    iv.dom()
        .cloned()
        .ok_or_else(|| TeError::schedule(format!("axis `{}` has no declared range", iv.name())))
}

/// A set for one consumer variable and whether it is the variable's whole
/// range (TVM's "up_state matches the range", tracked rather than compared).
#[derive(Clone)]
struct UpState {
    set: IntSet,
    full: bool,
    /// Whether the set was widened to stay within [`BOUND_BUDGET`].
    widened: bool,
}

/// Variables relaxed to the sets of values they take.
type DomMap = HashMap<Var, IntSet>;

/// Whether both ends of `set` are finite.
fn is_bounded(set: &IntSet) -> bool {
    set.min().is_some() && set.max().is_some()
}

/// The set of values `e` takes with `dom` relaxed (arith's `int_set` under
/// [`BOUND_BUDGET`]); a widened answer is noted in `widened`.
fn eval(e: &Expr, dom: &DomMap, an: &Analyzer, widened: &Cell<bool>) -> IntSet {
    let (set, p) = an.int_set_within(e, dom, BOUND_BUDGET);
    if p == Precision::Widened {
        widened.set(true);
    }
    set
}

/// The set of the range `[min, min + extent)` with `dom` relaxed.
fn range_set(
    min: &Expr,
    extent: &Expr,
    dom: &DomMap,
    an: &Analyzer,
    widened: &Cell<bool>,
) -> IntSet {
    let last = Expr::sub(Expr::add(min.clone(), extent.clone()), Expr::int(1));
    let lo = eval(min, dom, an, widened).min().cloned();
    let hi = eval(&last, dom, an, widened).max().cloned();
    IntSet::interval(lo, hi)
}

fn infer_root_bound(s: &Schedule, i: usize, b: &mut Bounds) -> Result<()> {
    let st = &s.stages()[i];
    let op = st.op();
    let consumers = b.graph.consumers[i].clone();
    // An extern operation computes its whole outputs, whatever is read of
    // them (its outputs may differ in shape): a hybrid one's loops run
    // over the ranges its script gives them.
    if st.is_output() || st.is_placeholder() || consumers.is_empty() || op.is_extern() {
        for iv in op.root_iter_vars() {
            bind(b, &iv, declared(&iv)?);
        }
        return Ok(());
    }
    let stage_attach = b.graph.attach[i].local.first().cloned();
    let scope = storage_scope(s, i, b);
    let ndim = op.shape().len();
    let mut requests: Vec<Vec<IntSet>> = vec![Vec::new(); ndim];
    // The last index of each axis, once per stage rather than per request.
    let lasts: Vec<Expr> = op
        .shape()
        .iter()
        .map(|size| simp(&b.analyzer, Expr::sub(size.clone(), Expr::int(1))))
        .collect();
    let mut widened = vec![false; ndim];
    // The requests before they are cut to the axis, for the anchored
    // region of an axis whose exact union outgrows the budget.
    let mut raw: Vec<Vec<IntSet>> = vec![Vec::new(); ndim];
    for &c in &consumers {
        let cst = &s.stages()[c];
        let leaves = cst.leaf_iter_vars();
        let attach_leaf = stage_attach
            .as_ref()
            .and_then(|a| leaves.iter().position(|iv| iv == a));
        // The consumer's own enclosing loops (TVM's `NeedRelax`): relaxed
        // up to the attach point, and beyond it the loops bound to threads
        // that share this stage's storage (a block's threads fetching a
        // shared tile for a consumer computed inside their loops).
        let mut found = attach_leaf.is_some();
        let mut relax_path = Vec::new();
        let mut path_points = Vec::new();
        // Attached to a loop of the consumer itself and no thread on its
        // path: every loop of the path is one point, and none moves with a
        // relaxed loop (none is relaxed), so the path is not walked.
        let path = b.graph.attach_path(c).take(if found && !b.path_threads[c] {
            0
        } else {
            usize::MAX
        });
        for iv in path {
            // The attach point itself too, when its threads share the
            // storage (TVM sets `found_attach` before asking `NeedRelax`).
            if stage_attach.as_ref() == Some(iv) {
                found = true;
            }
            if !found || b.thread_tags.get(iv).is_some_and(|t| scope.relaxes(*t)) {
                relax_path.push(iv.clone());
            } else {
                path_points.push(iv.clone());
            }
        }
        if !found && stage_attach.is_some() {
            return Err(TeError::schedule(format!(
                "`{}` is computed at `{}`, which does not enclose its consumer `{}`: attach it to a \
                 loop around every stage that reads it",
                op.name(),
                stage_attach.as_ref().map(IterVar::name).unwrap_or(""),
                cst.op().name()
            )));
        }
        // A loop kept at one point stands for its own index, which moves
        // with the loops its range starts at: when one of those is relaxed
        // (a thread loop around a stage computed inside it), the point is
        // relaxed too, or the union over the threads would keep only the
        // current thread's index. Outermost first, so relaxing cascades.
        let mut relaxed: Vec<Var> = relax_path.iter().map(|iv| iv.var().clone()).collect();
        for iv in path_points.iter().rev() {
            if moves_with(b, iv, &relaxed) {
                relaxed.push(iv.var().clone());
                relax_path.push(iv.clone());
            }
        }
        // Phase 1: sets of the consumer's loops; loops inside the attach
        // point are relaxed to their ranges. Decided outermost first (for
        // the cascade above), recorded innermost first.
        let mut kept = vec![false; leaves.len()];
        for (k, iv) in leaves.iter().enumerate() {
            let at_or_outside = attach_leaf.is_some_and(|a| k <= a);
            kept[k] = b.ranges[iv].extent.is_int(1)
                || (!cst.thread_tag(iv).is_some_and(|t| scope.relaxes(t))
                    && (at_or_outside || b.unified.get(iv).is_some_and(|e| on_path(b, i, e)))
                    && !moves_with(b, iv, &relaxed));
            if !kept[k] {
                relaxed.push(iv.var().clone());
            }
        }
        let mut up: IdMap<IterVar, UpState> = IdMap::default();
        let mut relax_leaves = Vec::new();
        for (iv, &kept) in leaves.iter().zip(&kept).rev() {
            let r = &b.ranges[iv];
            if r.extent.is_int(1) {
                let p = b.to_loop_vars(&r.min);
                up.insert(
                    iv.clone(),
                    UpState {
                        set: IntSet::single_point(p),
                        full: true,
                        widened: false,
                    },
                );
            } else if kept {
                // One point: the current iteration, or, for a loop sharing
                // the index of a loop around this stage, that loop's index.
                up.insert(
                    iv.clone(),
                    UpState {
                        set: IntSet::single_point(b.to_loop_vars(&iv.expr())),
                        full: false,
                        widened: false,
                    },
                );
            } else {
                relax_leaves.push(iv.clone());
            }
        }
        let relax_widened = Cell::new(false);
        let leaf_dom = relax_vars(&relax_leaves, b, i, &relax_widened);
        for iv in &relax_leaves {
            up.insert(
                iv.clone(),
                UpState {
                    set: leaf_dom[iv.var()].clone(),
                    full: true,
                    widened: false,
                },
            );
        }
        // Phase 2: up to the consumer's roots.
        pass_up_domain(cst, b, &leaf_dom, &mut up);
        let path_dom = relax_vars(&relax_path, b, i, &relax_widened);
        let mut root_dom = DomMap::new();
        // Root variables whose sets were widened: the indices that use them
        // are reported widened.
        let mut root_widened: Vec<Var> = Vec::new();
        for iv in cst.op().root_iter_vars() {
            let mut set = match up.get(&iv) {
                Some(u) if is_bounded(&u.set) => {
                    if u.widened {
                        root_widened.push(iv.var().clone());
                    }
                    u.set.clone()
                }
                known => {
                    // An infinite end (one widened past the budget) is the
                    // end of the declared range: a root variable never
                    // leaves it.
                    let r = declared(&iv)?;
                    let whole = range_set(
                        &r.min,
                        &r.extent,
                        &DomMap::new(),
                        &b.analyzer,
                        &relax_widened,
                    );
                    match known {
                        Some(u) if !u.set.is_nothing() => {
                            root_widened.push(iv.var().clone());
                            IntSet::interval(
                                u.set.min().or(whole.min()).cloned(),
                                u.set.max().or(whole.max()).cloned(),
                            )
                        }
                        _ => whole,
                    }
                }
            };
            if !path_dom.is_empty() {
                let an = &b.analyzer;
                let w = &relax_widened;
                set = IntSet::interval(
                    set.min()
                        .and_then(|l| eval(l, &path_dom, an, w).min().cloned()),
                    set.max()
                        .and_then(|h| eval(h, &path_dom, an, w).max().cloned()),
                );
            }
            root_dom.insert(iv.var().clone(), set);
        }
        // Phase 3: what the consumer reads of this stage.
        if let Some(sets) = opaque_requests(cst.op(), op, &root_dom, b) {
            for (d, set) in sets.into_iter().enumerate().take(ndim) {
                raw[d].push(set.clone());
                requests[d].push(clamp_to_shape(set, &lasts[d], &b.analyzer));
            }
            continue;
        }
        let body = b.graph.bodies[c].clone().expect("consumers are computes");
        let an = &b.analyzer;
        // Indices this consumer already asked for, per axis (`y` in
        // `A[x, y] + A[x + 1, y]`, `None` for the whole axis): the same
        // index under the same relaxation asks for the same set, which the
        // union already holds.
        let mut asked: Vec<Vec<Option<Expr>>> = vec![Vec::new(); ndim];
        let mut visit = |t: &crate::operation::Tensor, idx: &[Option<Expr>]| {
            if t.op() != op {
                return;
            }
            // Requests are per dimension of the first output; a scan's
            // other states are computed whole along their spatial axes.
            for (d, e) in idx.iter().enumerate().take(ndim) {
                if asked[d].contains(e) {
                    continue;
                }
                asked[d].push(e.clone());
                // An index computed from values may be anything: the whole
                // axis (TVM's region of a data-dependent access).
                let Some(e) = e else {
                    raw[d].push(IntSet::everything());
                    requests[d].push(clamp_to_shape(IntSet::everything(), &lasts[d], an));
                    continue;
                };
                let uses_widened = !root_widened.is_empty() && {
                    let mut found = false;
                    e.for_each_var(&mut |v| found |= root_widened.contains(v));
                    found
                };
                let w = Cell::new(relax_widened.get() || uses_widened);
                // Within BOUND_BUDGET already: `eval` widens larger ends
                // and notes it in `w`.
                let req = eval(e, &root_dom, an, &w);
                widened[d] |= w.get();
                // A request widened past the budget is asked again with
                // room for its exact ends, which the anchored region may
                // still use (it keeps one start, not their nesting).
                raw[d].push(if w.get() && !relax_widened.get() && !uses_widened {
                    an.int_set_within(e, &root_dom, ANCHOR_BUDGET).0
                } else {
                    req.clone()
                });
                requests[d].push(clamp_to_shape(req, &lasts[d], an));
            }
        };
        body.for_each_access(&mut visit);
        // The other outputs of a consumer with several read in its nest too.
        for more in &b.graph.more_bodies[c] {
            more.for_each_access(&mut visit);
        }
    }
    // Phase 4: the union over consumers, per axis.
    match op.kind() {
        OpKind::Scan(scan) => {
            for (iv, r) in crate::scan::gather_bound(scan, &requests, &b.analyzer) {
                bind(b, &iv, r);
            }
            return Ok(());
        }
        OpKind::Extern(_) => unreachable!("extern operations are bound whole above"),
        _ => {}
    }
    // Whether a request itself was widened (as opposed to the union).
    let requests_widened = widened.clone();
    // The axes a tensor intrinsic computes whole, whatever is read.
    let whole_from = crate::tensor_compute_of(op).map_or(usize::MAX, |tc| tc.schedulable_ndim);
    for (d, iv) in op.axis().iter().enumerate() {
        if d >= whole_from {
            bind(b, iv, declared(iv)?);
            continue;
        }
        let mut acc: Option<IntSet> = None;
        for r in &requests[d] {
            acc = Some(match acc {
                None => r.clone(),
                Some(a) => within_budget(a.union(r, &b.analyzer), &mut widened[d]),
            });
        }
        let ends = acc.as_ref().map(|a| (a.min().cloned(), a.max().cloned()));
        let exact = match ends {
            Some((Some(lo), Some(hi)))
                if lo.node_count() + hi.node_count() <= BOUND_BUDGET * 3 / 2 =>
            {
                // Ends that are one base plus constants (`x.outer * 64` and
                // `x.outer * 64 + 65`) differ by the constants, which is what
                // simplifying their difference gives.
                let small = hi.node_count() + lo.node_count() + 3 <= crate::simp::SIMPLIFY_LIMIT;
                let ext = match constant_difference(&hi, &lo).and_then(|d| d.checked_add(1)) {
                    Some(e) if small => Expr::int(e),
                    _ => simp(
                        &b.analyzer,
                        Expr::add(Expr::sub(hi, lo.clone()), Expr::int(1)),
                    ),
                };
                // Nothing needed: an empty range, never a negative extent.
                let ext = match ext.as_int() {
                    Some(e) if e < 0 => Expr::int(0),
                    _ => ext,
                };
                let fits = ext.node_count() <= BOUND_BUDGET * 3 / 2;
                widened[d] |= !fits;
                fits.then(|| Range::new(lo, ext))
            }
            Some(_) => {
                // Ends too large for their difference to be simplified
                // cheaply into a small extent.
                widened[d] = true;
                None
            }
            None => None,
        };
        // Past the budget: a region per iteration still, anchored at one
        // request's start; the whole axis only when that is not sound.
        // So is an axis whose requests were widened (to constant or
        // infinite ends, cut to the axis): the anchored region starts from
        // the requests asked again with more room.
        let anchored = match (&exact, &acc) {
            (None, Some(_)) => anchored_range(&raw[d], &op.shape()[d], b),
            (Some(_), Some(_)) if requests_widened[d] => anchored_range(&raw[d], &op.shape()[d], b),
            _ => None,
        };
        let range = match (exact, anchored) {
            (_, Some(r)) => {
                // A region per iteration, not the whole axis.
                widened[d] = false;
                r
            }
            (Some(r), None) => r,
            (None, None) => declared(iv)?,
        };
        if widened[d] {
            b.widened.push(iv.clone());
        }
        tell_analyzer(b, iv, &range, &range.extent, Some(&op.shape()[d]));
        b.ranges.insert(iv.clone(), range);
    }
    for iv in op.reduce_axis() {
        bind(b, iv, declared(iv)?);
    }
    Ok(())
}

/// What `consumer`, a scan, extern or tensor compute operation, reads of
/// `producer` per dimension (`None` for computes, which read through their
/// bodies): a scan by its rules ([`crate::scan::requests`]), an extern
/// operation every element (TVM's `ExternOp::PropBoundToInputs`), a tensor
/// compute the regions it passes.
fn opaque_requests(
    consumer: &Operation,
    producer: &Operation,
    root_dom: &DomMap,
    b: &Bounds,
) -> Option<Vec<IntSet>> {
    match consumer.kind() {
        OpKind::Scan(scan) => Some(crate::scan::requests(scan, producer, root_dom, |iv| {
            b.ranges.get(iv).cloned()
        })),
        OpKind::Extern(_) => Some(vec![IntSet::everything(); producer.shape().len()]),
        OpKind::TensorCompute(tc) => Some(tc.requests(producer, root_dom, &b.analyzer)),
        _ => None,
    }
}

/// The largest request end, in nodes, an anchored region (see
/// [`anchored_range`]) starts from.
const ANCHOR_BUDGET: usize = 4 * BOUND_BUDGET;

/// The region of an axis whose exact union of `requests` outgrows
/// [`BOUND_BUDGET`]: `[max(anchor + lo, 0), + min(hi - lo + 1, size - start))`,
/// where `anchor` is the start of one request and every request lies within
/// `[anchor + lo, anchor + hi]`, `lo` and `hi` free of loop variables (the
/// constant bounds of each end minus the anchor, or those differences
/// themselves when they depend only on sizes). It still moves with the
/// loops around the stage, which the whole axis does not; `None` when some
/// end is infinite or differs from the anchor by an amount that depends on
/// a loop and has no constant bound.
///
/// Sound: where `anchor + lo >= 0` the region ends at `min(anchor + hi,
/// size - 1)`, the last index any request keeps after the cut to the axis;
/// otherwise it starts at 0 and ends at or after `min(hi - lo, size - 1)`,
/// which is past `anchor + hi`. Its start is one request's start (within
/// the budget) and its extent adds only the size: a chain of such stages
/// grows linearly, not exponentially.
fn anchored_range(requests: &[IntSet], size: &Expr, b: &Bounds) -> Option<Range> {
    let an = &b.analyzer;
    let anchor = requests
        .iter()
        .filter_map(IntSet::min)
        .min_by_key(|e| e.node_count())?
        .clone();
    if anchor.node_count() > ANCHOR_BUDGET {
        return None;
    }
    let (mut lo, mut hi): (Option<Expr>, Option<Expr>) = (None, None);
    for r in requests {
        let (Some(rlo), Some(rhi)) = (r.min(), r.max()) else {
            return None;
        };
        let below = offset_bound(rlo, &anchor, false, b)?;
        let above = offset_bound(rhi, &anchor, true, b)?;
        lo = Some(match lo {
            None => below,
            Some(l) => simp(an, Expr::min(l, below)),
        });
        hi = Some(match hi {
            None => above,
            Some(h) => simp(an, Expr::max(h, above)),
        });
    }
    let (lo, hi) = (lo?, hi?);
    let width = simp(an, Expr::add(Expr::sub(hi, lo.clone()), Expr::int(1)));
    let width = match width.as_int() {
        Some(v) if v < 0 => Expr::int(0),
        _ => width,
    };
    let first = simp(an, Expr::add(anchor, lo));
    let start = if an.can_prove(&Expr::ge(first.clone(), Expr::int(0))) {
        first
    } else {
        simp(an, Expr::max(first, Expr::int(0)))
    };
    let rest = Expr::sub(size.clone(), start.clone());
    let ext = if an.can_prove(&Expr::le(width.clone(), rest.clone())) {
        width
    } else {
        simp(an, Expr::min(width, rest))
    };
    // A region that is the whole axis gains nothing over widening (and is
    // reported as widened).
    if start.is_int(0) && an.can_prove(&Expr::ge(ext.clone(), size.clone())) {
        return None;
    }
    let budget = 2 * ANCHOR_BUDGET + size.node_count();
    (start.node_count() + ext.node_count() <= budget).then(|| Range::new(start, ext))
}

/// A bound of `end - anchor` free of loop variables: below it (`upper`
/// false) or above it. Its constant bound when finite; else the difference
/// itself when it depends on sizes alone; else, for an upper bound of
/// `min(x, y)` (a request cut to an axis) or a lower bound of `max(x, y)`,
/// a bound of either argument.
fn offset_bound(end: &Expr, anchor: &Expr, upper: bool, b: &Bounds) -> Option<Expr> {
    let d = simp(&b.analyzer, Expr::sub(end.clone(), anchor.clone()));
    let c = b.analyzer.const_int_bound(&d);
    let bound = if upper { c.max } else { c.min };
    if bound != POS_INF && bound != NEG_INF {
        return Some(Expr::int(bound));
    }
    if !b.mentions_loop(&d) {
        return (d.node_count() <= BOUND_BUDGET).then_some(d);
    }
    match (end.kind(), upper) {
        (ExprKind::Min(x, y), true) | (ExprKind::Max(x, y), false) => {
            offset_bound(x, anchor, upper, b).or_else(|| offset_bound(y, anchor, upper, b))
        }
        _ => None,
    }
}

/// `a - b` when both are one base plus constants (`base + k`, `base - k`
/// or `base` itself, the same base on both sides).
fn constant_difference(a: &Expr, b: &Expr) -> Option<i64> {
    fn split(e: &Expr) -> Option<(&Expr, i64)> {
        match e.kind() {
            ExprKind::Add(x, k) if k.as_int().is_some() => Some((x, k.as_int()?)),
            ExprKind::Sub(x, k) if k.as_int().is_some() => Some((x, k.as_int()?.checked_neg()?)),
            _ => Some((e, 0)),
        }
    }
    let ((xa, ka), (xb, kb)) = (split(a)?, split(b)?);
    (xa == xb).then(|| ka.checked_sub(kb)).flatten()
}

/// `set` with each end larger than [`BOUND_BUDGET`] dropped (made
/// infinite, which the caller clamps to the axis), noting the loss in
/// `widened`.
fn within_budget(set: IntSet, widened: &mut bool) -> IntSet {
    let mut keep = |end: Option<&Expr>| match end {
        Some(e) if e.node_count() > BOUND_BUDGET => {
            *widened = true;
            None
        }
        e => e.cloned(),
    };
    if set.is_nothing() {
        return set;
    }
    IntSet::interval(keep(set.min()), keep(set.max()))
}

/// Per stage, whether a loop of its attach path is bound to a thread: each
/// stage's own link, then its parent's answer, each link looked at once.
fn path_threads(g: &Graph, tags: &IdMap<IterVar, ThreadTag>) -> Vec<bool> {
    let n = g.attach.len();
    let mut known: Vec<Option<bool>> = vec![None; n];
    if tags.is_empty() {
        return vec![false; n];
    }
    for i in 0..n {
        // The links up to the first known answer, then back down.
        let mut chain = Vec::new();
        let mut at = Some(i);
        let mut above = false;
        while let Some(k) = at {
            if let Some(v) = known[k] {
                above = v;
                break;
            }
            chain.push(k);
            at = g.attach[k].parent;
        }
        for &k in chain.iter().rev() {
            above |= g.attach[k].local.iter().any(|iv| tags.contains_key(iv));
            known[k] = Some(above);
        }
    }
    known.into_iter().map(|v| v.unwrap_or(false)).collect()
}

/// Whether the range of `iv` starts at a value that uses one of `relaxed`.
fn moves_with(b: &Bounds, iv: &IterVar, relaxed: &[Var]) -> bool {
    if relaxed.is_empty() {
        return false;
    }
    let min = b.to_loop_vars(&b.ranges[iv].min);
    relaxed.iter().any(|v| min.uses_var(v))
}

/// Whether the loop `iv` encloses stage `i`.
fn on_path(b: &Bounds, i: usize, iv: &IterVar) -> bool {
    b.graph.attach_path(i).any(|p| p == iv)
}

/// Gives each loop of stage `i` bound to the thread axis of a loop around
/// the stage that loop's index (TVM's threads are one index per kernel, not
/// a loop per stage): the loop is then `min + (index - enclosing min)`. Its
/// extent must fit in the enclosing loop's, or some of its iterations would
/// never run.
fn unify_threads(s: &Schedule, i: usize, b: &mut Bounds) -> Result<()> {
    let st = &s.stages()[i];
    for iv in st.leaf_iter_vars() {
        let Some(thread) = st.bound_thread(iv) else {
            continue;
        };
        if let Some(tag) = b.thread_tags.get(iv).copied() {
            check_launch_fits(s, i, b, iv, tag)?;
        }
        let enclosing = b
            .graph
            .attach_path(i)
            .find(|e| s.stages().iter().any(|o| o.bound_thread(e) == Some(thread)))
            .cloned();
        let Some(e) = enclosing else {
            continue;
        };
        let (Some(r), Some(er)) = (b.ranges.get(iv).cloned(), b.ranges.get(&e).cloned()) else {
            continue;
        };
        // A stage whose storage the enclosing threads do not share (a
        // `local` stage) holds one thread's region: a data loop of it bound
        // to the thread again is no loop (TVM takes its start), and only a
        // loop of one iteration can be. (A reduction loop bound so is a
        // reduction across the threads.)
        let tag = b.thread_tags.get(iv).copied();
        if iv.kind() == crate::iter_var::IterKind::DataPar
            && tag.is_some_and(|t| !storage_scope(s, i, b).relaxes(t))
        {
            if !b
                .analyzer
                .can_prove(&Expr::eq(r.extent.clone(), Expr::int(1)))
            {
                return Err(TeError::schedule(format!(
                    "`{}` of `{}` is bound to `{}` inside `{}`, bound to the same thread, but the \
                     stage's storage ({}) is per thread, so the loop runs inside one thread: \
                     bind it to no thread, or give the stage storage the threads share",
                    iv.name(),
                    st.op().name(),
                    thread.name(),
                    e.name(),
                    storage_scope(s, i, b)
                )));
            }
            let value = b.to_loop_vars(&r.min);
            b.index.insert(iv.var().clone(), value);
            b.unified.insert(iv.clone(), e);
            continue;
        }
        let outer_ext = b.to_loop_vars(&b.nominal_extent(&e).expect("has a range"));
        let inner_ext = b.to_loop_vars(&b.nominal_extent(iv).expect("has a range"));
        if !b
            .analyzer
            .can_prove(&Expr::le(inner_ext.clone(), outer_ext.clone()))
        {
            return Err(TeError::schedule(format!(
                "`{}` of `{}` is bound to `{}` inside `{}`, bound to the same thread, but its \
                 extent `{inner_ext}` may exceed that loop's `{outer_ext}`: make the extents match",
                iv.name(),
                st.op().name(),
                thread.name(),
                e.name()
            )));
        }
        let value = Expr::add(
            b.to_loop_vars(&r.min),
            Expr::sub(b.to_loop_vars(&e.expr()), b.to_loop_vars(&er.min)),
        );
        let value = simp(&b.analyzer, value);
        b.index.insert(iv.var().clone(), value);
        b.unified.insert(iv.clone(), e);
    }
    Ok(())
}

/// Checks that the loop `iv` of stage `i`, bound to a thread `tag` that a
/// loop around the stage binds through another thread axis, has no more
/// iterations than that loop: both launch the same hardware index (TVM
/// launches a kernel's threads once per tag), so iterations past the
/// enclosing extent would never run.
fn check_launch_fits(
    s: &Schedule,
    i: usize,
    b: &Bounds,
    iv: &IterVar,
    tag: ThreadTag,
) -> Result<()> {
    if !matches!(tag, ThreadTag::ThreadIdx(_) | ThreadTag::BlockIdx(_)) {
        return Ok(());
    }
    let Some(e) = b
        .graph
        .attach_path(i)
        .find(|e| b.thread_tags.get(*e) == Some(&tag))
        .cloned()
    else {
        return Ok(());
    };
    let (Some(outer), Some(inner)) = (b.nominal_extent(&e), b.nominal_extent(iv)) else {
        return Ok(());
    };
    let (outer, inner) = (b.to_loop_vars(&outer), b.to_loop_vars(&inner));
    if b.analyzer
        .can_prove(&Expr::le(inner.clone(), outer.clone()))
    {
        return Ok(());
    }
    Err(TeError::schedule(format!(
        "`{}` of `{}` is bound to `{tag}` inside `{}`, bound to `{tag}` too, but its extent \
         `{inner}` may exceed that loop's `{outer}`: both are the same thread index, so make the \
         extents match",
        iv.name(),
        s.stages()[i].op().name(),
        e.name()
    )))
}

/// The scope of stage `i`: as set, or inferred from the threads of its
/// attach path.
pub(crate) fn storage_scope(s: &Schedule, i: usize, b: &Bounds) -> StorageScope {
    if let Some(scope) = s.stages()[i].scope() {
        return scope;
    }
    if b.thread_tags.is_empty() {
        return StorageScope::Global;
    }
    let tags: Vec<_> = b
        .graph
        .attach_path(i)
        .filter_map(|iv| b.thread_tags.get(iv))
        .collect();
    StorageScope::inferred(tags)
}

/// A request that provably covers the whole axis is the axis (TVM's rule);
/// otherwise it is cut to the axis. Consumers never read outside a tensor
/// (the definitions could not be evaluated there), so the cut is sound, and
/// it keeps producers inside their shape when a consumer's loop runs over
/// a nominal extent.
fn clamp_to_shape(req: IntSet, last: &Expr, an: &Analyzer) -> IntSet {
    // Constant bounds settle most requests without a proof or a rewrite:
    // an end already inside the axis stays as it is.
    // The one-walk bound decides most requests; the tightest bound only
    // the rest.
    let bound = |e: &Expr, decides: &dyn Fn(ConstBound) -> bool| {
        let quick = an.structural_bound(e);
        if decides(quick) {
            quick
        } else {
            an.const_int_bound(e)
        }
    };
    let lo = match req.min().cloned() {
        Some(lo) => match bound(&lo, &|b| b.max <= 0 || b.min >= 0) {
            b if b.max <= 0 => Expr::int(0),
            b if b.min >= 0 => lo,
            _ if an.can_prove(&Expr::le(lo.clone(), Expr::int(0))) => Expr::int(0),
            _ => simp(an, Expr::max(lo, Expr::int(0))),
        },
        None => Expr::int(0),
    };
    let hi = match (req.max().cloned(), last.as_int()) {
        (Some(hi), Some(l)) => match bound(&hi, &|b| b.min >= l || b.max <= l) {
            b if b.min >= l => last.clone(),
            b if b.max <= l => hi,
            _ => clamp_end(hi, last, an),
        },
        (Some(hi), None) => clamp_end(hi, last, an),
        (None, _) => last.clone(),
    };
    IntSet::interval(lo, hi)
}

/// `min(hi, last)`, or `last` when that is provably the smaller.
fn clamp_end(hi: Expr, last: &Expr, an: &Analyzer) -> Expr {
    if an.can_prove(&Expr::ge(hi.clone(), last.clone())) {
        last.clone()
    } else {
        simp(an, Expr::min(hi, last.clone()))
    }
}

/// Relaxes each of `ivs` to the interval of its range, evaluating ranges
/// that mention other relaxed loops (a split tail inside its outer loop)
/// after those. A range that mentions a loop neither relaxed nor enclosing
/// the stage `producer` (a tail whose outer loop was reordered inside) is
/// replaced by its nominal range.
fn relax_vars(ivs: &[IterVar], b: &Bounds, producer: usize, widened: &Cell<bool>) -> DomMap {
    let mut dom = DomMap::new();
    let mut pending: Vec<(IterVar, Expr, Expr)> = ivs
        .iter()
        .map(|iv| {
            let r = &b.ranges[iv];
            (
                iv.clone(),
                b.to_loop_vars(&r.min),
                b.to_loop_vars(&r.extent),
            )
        })
        .collect();
    while !pending.is_empty() {
        let before = pending.len();
        let mut k = 0;
        while k < pending.len() {
            let (iv, min, ext) = &pending[k];
            let waits = pending
                .iter()
                .any(|(o, _, _)| o != iv && (min.uses_var(o.var()) || ext.uses_var(o.var())));
            if waits {
                k += 1;
                continue;
            }
            // A loop bound to a thread whose split leaves a tail launches
            // its nominal extent (the tail guarded inside), so its relaxed
            // set is every thread it launches: a stage computed at it runs
            // for each of them.
            let launched = b.thread_tags.contains_key(iv) && b.has_tail(iv);
            let mut set = if launched {
                // The launch extent: the split's factor (at least the
                // nominal extent).
                match b.factors.get(iv) {
                    Some(f) => IntSet::interval(
                        min.clone(),
                        simp(
                            &b.analyzer,
                            Expr::sub(Expr::add(min.clone(), f.clone()), Expr::int(1)),
                        ),
                    ),
                    None => nominal_interval(iv, min, b),
                }
            } else {
                range_set(min, ext, &dom, &b.analyzer, widened)
            };
            if !is_bounded(&set) || out_of_scope(&set, &dom, b, producer) {
                set = nominal_interval(iv, min, b);
                if out_of_scope(&set, &dom, b, producer) {
                    let (lo, hi) = (set.min().unwrap().clone(), set.max().unwrap().clone());
                    let (lo, hi) = (
                        b.analyzer.const_int_bound(&lo).min,
                        b.analyzer.const_int_bound(&hi).max,
                    );
                    // Infinite ends stay infinite (the request is then cut
                    // to the tensor), never a number standing for infinity.
                    set = IntSet::interval(
                        (lo != NEG_INF).then(|| Expr::int(lo)),
                        (hi != POS_INF).then(|| Expr::int(hi)),
                    );
                }
            }
            dom.insert(iv.var().clone(), set);
            pending.swap_remove(k);
        }
        if pending.len() == before {
            // Mutually dependent ranges cannot arise from split/fuse; stay
            // sound regardless by using the nominal extents.
            for (iv, min, _) in pending.drain(..) {
                let set = nominal_interval(&iv, &min, b);
                dom.insert(iv.var().clone(), set);
            }
        }
    }
    dom
}

/// Whether `set` mentions a loop variable that is not relaxed in `dom` and
/// does not enclose stage `producer`. Walks the attach path only in that
/// rare case, so long attach chains stay linear.
fn out_of_scope(set: &IntSet, dom: &DomMap, b: &Bounds, producer: usize) -> bool {
    let mut loops = Vec::new();
    for e in set.min().into_iter().chain(set.max()) {
        e.for_each_var(&mut |v| {
            if b.loop_vars.contains(v) && !dom.contains_key(v) && !loops.contains(v) {
                loops.push(v.clone());
            }
        });
    }
    if loops.is_empty() {
        return false;
    }
    let path: Vec<&Var> = b.graph.attach_path(producer).map(IterVar::var).collect();
    loops.iter().any(|v| !path.contains(&v))
}

fn nominal_interval(iv: &IterVar, min: &Expr, b: &Bounds) -> IntSet {
    let ext = b.to_loop_vars(&b.nominal_extent(iv).unwrap_or_else(|| Expr::int(1)));
    let hi = simp(
        &b.analyzer,
        Expr::sub(Expr::add(min.clone(), ext), Expr::int(1)),
    );
    IntSet::interval(min.clone(), hi)
}

fn full_range_set(iv: &IterVar, b: &Bounds, dom: &DomMap, widened: &Cell<bool>) -> IntSet {
    let r = &b.ranges[iv];
    let set = range_set(
        &b.to_loop_vars(&r.min),
        &b.to_loop_vars(&r.extent),
        dom,
        &b.analyzer,
        widened,
    );
    if is_bounded(&set) {
        set
    } else {
        nominal_interval(iv, &b.to_loop_vars(&r.min), b)
    }
}

/// PassUpDomain: from the consumer's loops to its root axes.
fn pass_up_domain(st: &Stage, b: &Bounds, leaf_dom: &DomMap, up: &mut IdMap<IterVar, UpState>) {
    let an = &b.analyzer;
    // A state of one set: whether computing it widened, or its inputs were.
    let state = |set: IntSet, full: bool, w: &Cell<bool>, inputs: bool| UpState {
        set,
        full,
        widened: w.get() || inputs,
    };
    for rel in st.relations().iter().rev() {
        match rel {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => {
                let (Some(o), Some(n)) = (up.get(outer).cloned(), up.get(inner).cloned()) else {
                    continue;
                };
                let w = Cell::new(false);
                let inputs = o.widened || n.widened;
                let st = if o.full && n.full {
                    state(full_range_set(parent, b, leaf_dom, &w), true, &w, inputs)
                } else {
                    let f = b.to_loop_vars(&b.factors[inner]);
                    let pmin = b.to_loop_vars(&b.ranges[parent].min);
                    let mut dom = leaf_dom.clone();
                    dom.insert(outer.var().clone(), o.set);
                    dom.insert(inner.var().clone(), n.set);
                    let e = Expr::add(Expr::add(pmin, Expr::mul(outer.expr(), f)), inner.expr());
                    let set = exact_within_anchor(eval(&e, &dom, an, &w), &e, &dom, an, &w);
                    state(set, false, &w, inputs)
                };
                up.insert(parent.clone(), st);
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                let Some(fs) = up.get(fused).cloned() else {
                    continue;
                };
                if fs.full {
                    for iv in [outer, inner] {
                        let w = Cell::new(false);
                        let set = full_range_set(iv, b, leaf_dom, &w);
                        up.insert(iv.clone(), state(set, true, &w, fs.widened));
                    }
                    continue;
                }
                let n = b.to_loop_vars(&b.nominal_extent(inner).expect("fused axes have ranges"));
                // The fused loop runs only when the inner extent is at least
                // 1, so dividing by `max(n, 1)` gives the same rows and
                // columns where it runs, and a divisor known to be positive
                // (`n - 1` with `n >= 1` is not).
                let n = if b.analyzer.can_prove(&Expr::ge(n.clone(), Expr::int(1))) {
                    n
                } else {
                    Expr::max(n, Expr::int(1))
                };
                let mut dom = leaf_dom.clone();
                dom.insert(fused.var().clone(), fs.set);
                let omin = b.to_loop_vars(&b.ranges[outer].min);
                let imin = b.to_loop_vars(&b.ranges[inner].min);
                let oe = Expr::add(omin, Expr::floor_div(fused.expr(), n.clone()));
                let ie = Expr::add(imin, Expr::floor_mod(fused.expr(), n));
                for (iv, e) in [(outer, oe), (inner, ie)] {
                    let w = Cell::new(false);
                    let set = exact_within_anchor(eval(&e, &dom, an, &w), &e, &dom, an, &w);
                    up.insert(iv.clone(), state(set, false, &w, fs.widened));
                }
            }
            // No axis is made from it.
            Relation::Singleton { .. } => {}
        }
    }
}

/// `set`, the value of `e` widened past [`BOUND_BUDGET`] (as `widened`
/// says), or, when `e` is exact within [`ANCHOR_BUDGET`], that exact set
/// (and `widened` cleared): the sets of one iteration passed up through a
/// split or a fuse then keep the loop variables the requests of a producer
/// are anchored at. Only a set that is one point is kept this way, so the
/// ends passed on stay one expression, not a nest of them.
fn exact_within_anchor(
    set: IntSet,
    e: &Expr,
    dom: &DomMap,
    an: &Analyzer,
    widened: &Cell<bool>,
) -> IntSet {
    if !widened.get() {
        return set;
    }
    let (exact, p) = an.int_set_within(e, dom, ANCHOR_BUDGET);
    if p == Precision::Exact && exact.min().is_some() && exact.min() == exact.max() {
        widened.set(false);
        return exact;
    }
    set
}

/// PassDownDomain: ranges of split and fused axes from their parents.
fn pass_down_domain(st: &Stage, b: &mut Bounds) -> Result<()> {
    for rel in st.relations() {
        match rel {
            Relation::Split {
                parent,
                outer,
                inner,
                by,
            } => {
                let r = b.ranges[parent].clone();
                let nominal_parent = b.nominal_extent(parent).expect("parent has a range");
                let an = &b.analyzer;
                let f = match by {
                    SplitBy::Factor(f) => f.clone(),
                    SplitBy::NParts(p) => {
                        simp(an, Expr::ceil_div(nominal_parent.clone(), p.clone()))
                    }
                };
                // A factor equal to the extent (`nparts=1`) leaves one outer
                // iteration: ranges are never empty, so `ceildiv(e, e)` is 1
                // even where the analyzer cannot prove `e > 0`.
                // An `nparts` factor is 0 where the region is empty (extent
                // 0 in some iterations): divide by at least 1 there, giving
                // no outer iterations instead of a division by zero.
                let divisor = match by {
                    SplitBy::NParts(_) => simp(an, Expr::max(f.clone(), Expr::int(1))),
                    SplitBy::Factor(_) => f.clone(),
                };
                let parts = |ext: &Expr| {
                    if *ext == f {
                        Expr::int(1)
                    } else {
                        simp(an, Expr::ceil_div(ext.clone(), divisor.clone()))
                    }
                };
                let outer_ext = parts(&r.extent);
                let outer_nominal = parts(&nominal_parent);
                b.factors.insert(inner.clone(), f.clone());
                if outer_nominal != outer_ext {
                    bind_tail(b, outer, Range::from_extent(outer_ext), outer_nominal);
                } else {
                    bind(b, outer, Range::from_extent(outer_ext));
                }
                let an = &b.analyzer;
                // Unproved (the general tail form) for extents too large to
                // reason about cheaply.
                let divisible = r.extent.node_count() + f.node_count()
                    <= crate::simp::SIMPLIFY_LIMIT
                    && an.can_prove(&Expr::eq(
                        Expr::floor_mod(r.extent.clone(), f.clone()),
                        Expr::int(0),
                    ));
                // A thread index launches the whole factor, as in TVM, even
                // where the parent has fewer iterations (the surplus
                // threads are guarded off): a stage computed inside may
                // bind the same thread index over more of them.
                let launches_factor = matches!(
                    st.thread_tag(inner),
                    Some(ThreadTag::ThreadIdx(_) | ThreadTag::BlockIdx(_))
                );
                let inner_nominal = if launches_factor {
                    f.clone()
                } else {
                    simp(an, Expr::min(f.clone(), nominal_parent))
                };
                let inner_ext = if divisible {
                    f.clone()
                } else {
                    let rest = Expr::sub(r.extent.clone(), Expr::mul(outer.expr(), f.clone()));
                    simp(an, Expr::min(f.clone(), rest))
                };
                if inner_ext != inner_nominal {
                    bind_tail(b, inner, Range::from_extent(inner_ext), inner_nominal);
                } else {
                    bind(b, inner, Range::from_extent(inner_ext));
                }
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                let no = b.nominal_extent(outer).expect("fused axes have ranges");
                let ni = b.nominal_extent(inner).expect("fused axes have ranges");
                let ext = simp(&b.analyzer, Expr::mul(no, ni));
                bind(b, fused, Range::from_extent(ext));
            }
            Relation::Singleton { iter } => bind(b, iter, Range::from_extent(Expr::int(1))),
        }
    }
    Ok(())
}

/// PassUpIndex: every non-loop axis of the stage as an expression of its
/// loop variables.
fn pass_up_index(st: &Stage, b: &mut Bounds) {
    let mut local: HashMap<Var, Expr> = HashMap::new();
    let index = &b.index;
    let val = |iv: &IterVar, local: &HashMap<Var, Expr>| {
        local
            .get(iv.var())
            .or_else(|| index.get(iv.var()))
            .cloned()
            .unwrap_or_else(|| iv.expr())
    };
    for rel in st.relations().iter().rev() {
        match rel {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => {
                let f = b.factors[inner].clone();
                let pmin = b.ranges[parent].min.clone();
                let e = Expr::add(
                    Expr::add(pmin, Expr::mul(val(outer, &local), f)),
                    val(inner, &local),
                );
                local.insert(parent.var().clone(), simp(&b.analyzer, e));
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                let n = b.nominal_extent(inner).expect("fused axes have ranges");
                let fv = val(fused, &local);
                let oe = Expr::add(
                    b.ranges[outer].min.clone(),
                    Expr::floor_div(fv.clone(), n.clone()),
                );
                let ie = Expr::add(b.ranges[inner].min.clone(), Expr::floor_mod(fv, n));
                local.insert(outer.var().clone(), simp(&b.analyzer, oe));
                local.insert(inner.var().clone(), simp(&b.analyzer, ie));
            }
            // No axis is made from it.
            Relation::Singleton { .. } => {}
        }
    }
    b.index.extend(local);
}

#[cfg(test)]
mod tests {
    use super::constant_difference;

    #[test]
    fn constant_difference_of_ends_one_base_apart() {
        let mut scope = arith::Scope::new();
        let mut d = |a: &str, b: &str| {
            let a = arith::parse_in(a, &mut scope).unwrap();
            let b = arith::parse_in(b, &mut scope).unwrap();
            constant_difference(&a, &b)
        };
        assert_eq!(d("x * 64 + 65", "x * 64"), Some(65));
        assert_eq!(d("x - 1", "x + 2"), Some(-3));
        assert_eq!(d("x", "x"), Some(0));
        assert_eq!(d("x * 64 + 65", "x * 32"), None);
        assert_eq!(d("x + 9223372036854775807", "x - 1"), None);
    }
}
