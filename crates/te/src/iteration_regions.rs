//! What a stage computes and what its consumers read in one iteration of
//! the loops it is computed in (seed 000's regions, per iteration).
//!
//! The answer is measured, not derived: the schedule is lowered with
//! `realize` storage (absolute indices, as TVM's ScheduleOps) and run by
//! the interpreter with an [`tir::Observer`] watching the stage's buffer.
//! Each `realize` of the buffer is one iteration of its attach loops; the
//! stores the stage makes inside it are what it computes, the loads other
//! stages make inside it (inlined stages are part of their consumers'
//! stores) are what is needed. A stage computed at the root has one
//! iteration, the whole program.
//!
//! A tensor with a layout transform (seed 001) is traced in the program
//! `tvm.lower` gives instead, whose accesses are physical positions: each
//! position of the iteration's storage is mapped back to the logical
//! element it holds, and the physical sets are kept too
//! ([`PhysicalRegions`]).
//!
//! The iteration is named by the values of the loops of the lowered
//! program around the region, by their names (`ci.cj.fused.outer=1`);
//! loops count from 0, as the program prints them. A loop left out is at
//! its first iteration.

use crate::bound::infer_bound;
use crate::check::{run_inputs, RunLimits};
use crate::error::{Result, TeError};
use crate::lower::{schedule_ops, StorageStyle};
use crate::operation::Tensor;
use crate::run_report::RUN_SIZE;
use crate::schedule::{Attach, Schedule};
use crate::simp::simp;
use arith::{Expr, Var};
use std::collections::{BTreeSet, HashMap};
use tir::mutate::Mutator as _;
use tir::{AccessKind, Buffer, LoopState, ObservedAccess, Observer};

/// The seed of the random inputs of the run: values do not change which
/// elements are computed, except through data-dependent indices, which
/// then read as in `rangefinder te --run` with its default seed.
const INPUT_SEED: u64 = 0;

/// One loop a stage's region is computed in.
#[derive(Clone, Debug, PartialEq)]
pub struct AttachLoop {
    /// The loop's name, as the lowered program prints it.
    pub name: String,
    /// How many iterations it has (it counts from 0); may name enclosing
    /// loops or symbolic sizes.
    pub extent: Expr,
}

impl std::fmt::Display for AttachLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in [0, {})", self.name, self.extent)
    }
}

/// A stage and an iteration of its attach loops to look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionQuery {
    /// The stage's name.
    pub stage: String,
    /// Values of attach loops by name; a loop left out is at its first
    /// iteration.
    pub at: Vec<(String, i64)>,
}

/// What a stage computed and what was read of it in one iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterationRegions {
    /// The stage's name.
    pub stage: String,
    /// The tensor's shape.
    pub shape: Vec<i64>,
    /// The loops around the stage's region, outermost first, with their
    /// values in this iteration (empty for a stage computed at the root).
    pub at: Vec<(String, i64)>,
    /// The region realized in this iteration, `(min, extent)` per axis
    /// (the whole tensor for a stage stored as an argument).
    pub realize: Vec<(i64, i64)>,
    /// The elements the stage stored, in tensor coordinates.
    pub computed: BTreeSet<Vec<i64>>,
    /// The elements other stages read, in tensor coordinates.
    pub needed: BTreeSet<Vec<i64>>,
    /// How many stores the stage made (its `runs` in this iteration: an
    /// element of a reduction is stored once per reduction step).
    pub stores: u64,
    /// For a tensor with a layout transform, the same in its physical
    /// buffer as the program holds it in this iteration.
    pub physical: Option<PhysicalRegions>,
}

/// What a stage with a layout transform computed and what was read of it,
/// in the physical buffer the program stores it in (seed 001): the whole
/// physical tensor, or the part of it one iteration holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhysicalRegions {
    /// The buffer's physical shape (one axis per group of transformed axes
    /// between separators).
    pub shape: Vec<i64>,
    /// The physical positions stored.
    pub computed: BTreeSet<Vec<i64>>,
    /// The physical positions other stages read.
    pub needed: BTreeSet<Vec<i64>>,
    /// The logical element at each position that holds one; the others
    /// are padding.
    pub logical: std::collections::BTreeMap<Vec<i64>, Vec<i64>>,
}

impl IterationRegions {
    /// Computed but not read in this iteration: over-computation.
    pub fn wasted(&self) -> impl Iterator<Item = &Vec<i64>> {
        self.computed.difference(&self.needed)
    }

    /// Read but not computed in this iteration (never, in a correct
    /// program).
    pub fn missing(&self) -> impl Iterator<Item = &Vec<i64>> {
        self.needed.difference(&self.computed)
    }

    /// The iteration as text: `ci.cj.fused.outer = 1, cj = 0`, or `the
    /// root` when the stage is computed once.
    pub fn at_text(&self) -> String {
        if self.at.is_empty() {
            return "the root".to_owned();
        }
        let parts: Vec<String> = self.at.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        parts.join(", ")
    }
}

/// The loops stage `stage` is computed in, outermost first, with their
/// extents (empty for a stage computed at the root). Loops of one
/// iteration are left out: the lowered program drops them.
///
/// ```
/// let c = te::compute_named([5, 16], &["i", "j"], |_| te::Value::int(5), "C").unwrap();
/// let d = te::compute_named([4, 5, 16], &["di", "dj", "dk"], |i| c.at([&i[1], &i[2]]) * 2, "D").unwrap();
/// let mut s = te::create_schedule(&[d.clone()]);
/// s.compute_at(&c, &d, &d.op().axis()[2]).unwrap();
/// let loops: Vec<String> = te::attach_loops(&s, "C").unwrap().iter().map(|l| l.to_string()).collect();
/// assert_eq!(loops, ["di in [0, 4)", "dj in [0, 5)", "dk in [0, 16)"]);
/// ```
pub fn attach_loops(s: &Schedule, stage: &str) -> Result<Vec<AttachLoop>> {
    let b = infer_bound(s)?;
    Ok(loops_in(s, &b, stage_position(s, stage)?))
}

/// [`attach_loops`] of every computed stage, in schedule order, from one
/// bound inference.
///
/// ```
/// let c = te::compute_named([5, 16], &["i", "j"], |_| te::Value::int(5), "C").unwrap();
/// let d = te::compute_named([4, 5, 16], &["di", "dj", "dk"], |i| c.at([&i[1], &i[2]]) * 2, "D").unwrap();
/// let mut s = te::create_schedule(&[d.clone()]);
/// s.compute_at(&c, &d, &d.op().axis()[2]).unwrap();
/// let all = te::every_attach_loops(&s).unwrap();
/// assert_eq!((all[0].0.as_str(), all[0].1.len()), ("C", 3));
/// assert_eq!((all[1].0.as_str(), all[1].1.len()), ("D", 0));
/// ```
pub fn every_attach_loops(s: &Schedule) -> Result<Vec<(String, Vec<AttachLoop>)>> {
    let b = infer_bound(s)?;
    Ok(s.stages()
        .iter()
        .enumerate()
        .filter(|(_, st)| !st.is_placeholder())
        .map(|(i, st)| (st.name().to_string(), loops_in(s, &b, i)))
        .collect())
}

/// The attach loops of stage `i` under bounds `b`, named as the lowered
/// program names them: a loop bound to a thread by the thread. A loop
/// sharing the index of an enclosing thread loop is no loop of its own,
/// and a thread loop whose threads share the stage's storage (a `shared`
/// stage under `threadIdx`) is one region for all its threads: neither
/// names an iteration.
fn loops_in(s: &Schedule, b: &crate::bound::Bounds, i: usize) -> Vec<AttachLoop> {
    let scope = crate::bound::storage_scope(s, i, b);
    let mut path = b.attach_path(i);
    path.reverse();
    path.iter()
        .filter_map(|iv| {
            if b.unified_with(iv).is_some() {
                return None;
            }
            let bound = s.stages().iter().find_map(|st| {
                let thread = st.bound_thread(iv)?;
                Some((thread, st.thread_tag(iv)?))
            });
            let name = match bound {
                Some((_, tag)) if scope.relaxes(tag) => return None,
                Some((thread, _)) => thread.name().to_string(),
                None => iv.name().to_string(),
            };
            let r = b.range(iv)?;
            let extent = simp(&b.analyzer, r.extent.clone());
            (!extent.is_int(1)).then_some(AttachLoop { name, extent })
        })
        .collect()
}

/// The iterations worth a picture, given a stage's [`attach_loops`]: the
/// first and a middle one of the outermost attach loop (`[]`, the whole
/// program, for a stage computed at the root). Symbolic sizes take the
/// value [`RUN_SIZE`].
///
/// ```
/// let c = te::compute_named([5, 16], &["i", "j"], |_| te::Value::int(5), "C").unwrap();
/// let d = te::compute_named([4, 5, 16], &["di", "dj", "dk"], |i| c.at([&i[1], &i[2]]) * 2, "D").unwrap();
/// let mut s = te::create_schedule(&[d.clone()]);
/// s.compute_at(&c, &d, &d.op().axis()[2]).unwrap();
/// let at = te::default_iterations(&s, &te::attach_loops(&s, "C").unwrap());
/// assert_eq!(at, [vec![("di".to_string(), 0)], vec![("di".to_string(), 2)]]);
/// ```
pub fn default_iterations(s: &Schedule, loops: &[AttachLoop]) -> Vec<Vec<(String, i64)>> {
    let Some(outer) = loops.first() else {
        return vec![Vec::new()];
    };
    let sizes = run_sizes(s);
    let mut out = vec![vec![(outer.name.clone(), 0)]];
    if let Ok(n) = outer.extent.eval(&|v: &Var| sizes.get(v).copied()) {
        if n / 2 > 0 {
            out.push(vec![(outer.name.clone(), n / 2)]);
        }
    }
    out
}

/// For each query, what its stage computes and what is read of it in the
/// chosen iteration, by one run of `s` lowered with `args` (symbolic sizes
/// [`RUN_SIZE`]). The run is refused, as [`crate::check_limited`] refuses,
/// when it would take more than `limits.max_steps` steps. A loop name that
/// is not one of the stage's [`attach_loops`], or a value no iteration
/// takes, is an error listing the attach loops.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([8], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let c = te::compute_named([8], &["j"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
/// let mut s = te::create_schedule(&[c.clone()]);
/// let (jo, _) = s.split(&c, &c.op().axis()[0], 4).unwrap();
/// s.compute_at(&b, &c, &jo).unwrap();
/// let q = te::RegionQuery { stage: "B".into(), at: vec![("j.outer".into(), 1)] };
/// let r = &te::iteration_regions(&s, &[a, c], &[q], &Default::default()).unwrap()[0];
/// let rows: Vec<i64> = r.computed.iter().map(|x| x[0]).collect();
/// assert_eq!(rows, [4, 5, 6, 7]);
/// assert_eq!(r.needed, r.computed);
/// assert_eq!(r.realize, [(4, 4)]);
/// ```
pub fn iteration_regions(
    s: &Schedule,
    args: &[Tensor],
    queries: &[RegionQuery],
    limits: &RunLimits,
) -> Result<Vec<IterationRegions>> {
    let b = infer_bound(s)?;
    let sizes = run_sizes(s);
    let mut watches = Vec::with_capacity(queries.len());
    for q in queries {
        let loops = loops_in(s, &b, stage_position(s, &q.stage)?);
        for (name, value) in &q.at {
            let Some(l) = loops.iter().find(|l| &l.name == name) else {
                return Err(no_iteration(
                    s,
                    &q.stage,
                    &loops,
                    &format!("no attach loop is called `{name}`"),
                ));
            };
            if let Ok(n) = l.extent.eval(&|v: &Var| sizes.get(v).copied()) {
                if *value < 0 || *value >= n {
                    return Err(no_iteration(
                        s,
                        &q.stage,
                        &loops,
                        &format!("`{name}` = {value} is outside [0, {n})"),
                    ));
                }
            }
        }
        watches.push(Watch::new(s, &q.stage, Some(q.at.clone()))?);
    }
    let watches = observe(s, &b, args, watches, limits)?;
    watches
        .into_iter()
        .zip(queries)
        .map(|(mut w, q)| {
            w.finish();
            match w.instances.pop() {
                Some(r) => Ok(r),
                None => {
                    let loops = loops_in(s, &b, stage_position(s, &q.stage)?);
                    let at: Vec<String> = q.at.iter().map(|(n, v)| format!("{n} = {v}")).collect();
                    Err(no_iteration(
                        s,
                        &q.stage,
                        &loops,
                        &format!("no iteration has {}", at.join(", ")),
                    ))
                }
            }
        })
        .collect()
}

/// [`iteration_regions`] for every iteration of the attach loops of
/// `stage`, in the order the program runs them.
pub fn every_iteration_region(
    s: &Schedule,
    args: &[Tensor],
    stage: &str,
    limits: &RunLimits,
) -> Result<Vec<IterationRegions>> {
    let w = Watch::new(s, stage, None)?;
    let b = infer_bound(s)?;
    let mut w = observe(s, &b, args, vec![w], limits)?
        .pop()
        .expect("one watch in, one out");
    w.finish();
    Ok(w.instances)
}

fn stage_position(s: &Schedule, stage: &str) -> Result<usize> {
    s.stages()
        .iter()
        .position(|st| st.name() == stage && !st.is_placeholder())
        .ok_or_else(|| {
            let names: Vec<&str> = s
                .stages()
                .iter()
                .filter(|st| !st.is_placeholder())
                .map(|st| st.name())
                .collect();
            TeError::schedule(format!(
                "no computed stage is called `{stage}`; the stages are {}",
                names.join(", ")
            ))
        })
}

/// Every symbolic size at [`RUN_SIZE`], as `rangefinder te --run` runs.
fn run_sizes(s: &Schedule) -> HashMap<Var, i64> {
    s.symbolic_sizes()
        .into_iter()
        .map(|v| (v, RUN_SIZE))
        .collect()
}

/// The error for an iteration that does not exist, listing the loops.
fn no_iteration(s: &Schedule, stage: &str, loops: &[AttachLoop], why: &str) -> TeError {
    let placement = s
        .stages()
        .iter()
        .find(|st| st.name() == stage)
        .map(|st| match st.attach() {
            Attach::At { parent, axis } => format!("computed at {}.{}", parent.name(), axis.name()),
            _ => "computed at the root".to_owned(),
        })
        .unwrap_or_default();
    let listed = if loops.is_empty() {
        "it has no attach loops (it is computed once): give no iteration".to_owned()
    } else {
        let l: Vec<String> = loops.iter().map(ToString::to_string).collect();
        format!("its attach loops are {}", l.join(", "))
    };
    TeError::schedule(format!(
        "cannot choose an iteration of `{stage}`: {why}; `{stage}` is {placement}, {listed}"
    ))
}

/// What one stage's buffer saw during a run.
struct Watch {
    stage: String,
    init: String,
    buffer: String,
    shape: Vec<i64>,
    /// The iteration wanted; `None` for every iteration.
    at: Option<Vec<(String, i64)>>,
    /// The finished iterations that were wanted.
    instances: Vec<IterationRegions>,
    /// The regions open now: the iteration's record when it is wanted.
    open: Vec<Option<IterationRegions>>,
    /// Accesses outside any region (a stage stored as an argument): the
    /// whole program is its one iteration.
    whole: Option<IterationRegions>,
    /// How a tensor with a layout transform is stored.
    layout: Option<LayoutWatch>,
}

/// Where the program keeps the elements of a tensor with a layout
/// transform, to map its physical accesses back to logical elements.
struct LayoutWatch {
    run: crate::layout::RunLayout,
    /// For a tensor stored per iteration in the transformed space: the
    /// extents of that storage and the start of each transformed axis, in
    /// loop variables.
    local: Option<(Vec<i64>, Vec<Expr>)>,
    /// The stage's region, in loop variables (the realize of an iteration).
    region: Vec<arith::Range>,
}

impl LayoutWatch {
    /// The physical shape of the storage.
    fn shape(&self) -> Vec<i64> {
        match &self.local {
            Some((extents, _)) => self
                .run
                .groups()
                .into_iter()
                .map(|g| extents[g].iter().product())
                .collect(),
            None => self
                .run
                .physical_shape()
                .iter()
                .map(|&d| d as i64)
                .collect(),
        }
    }

    /// The position of every logical element the storage holds in the
    /// iteration `env` (loop values by name).
    fn positions(
        &self,
        logical: &[i64],
        env: &dyn Fn(&Var) -> Option<i64>,
    ) -> Result<std::collections::BTreeMap<Vec<i64>, Vec<i64>>> {
        let mut out = std::collections::BTreeMap::new();
        let starts = match &self.local {
            Some((_, starts)) => Some(
                starts
                    .iter()
                    .map(|e| e.eval(env))
                    .collect::<arith::Result<Vec<i64>>>()?,
            ),
            None => None,
        };
        let mut failed = None;
        layout::for_each_point(logical, |x| {
            if failed.is_some() {
                return;
            }
            let t = match self.run.transformed(x) {
                Ok(t) => t,
                Err(e) => {
                    failed = Some(e);
                    return;
                }
            };
            let (point, extents): (Vec<i64>, Vec<i64>) = match (&starts, &self.local) {
                (Some(st), Some((ext, _))) => {
                    (t.iter().zip(st).map(|(a, b)| a - b).collect(), ext.clone())
                }
                _ => (t, self.run.extents().to_vec()),
            };
            if point.iter().zip(&extents).any(|(&p, &e)| p < 0 || p >= e) {
                return;
            }
            let physical = self
                .run
                .groups()
                .into_iter()
                .map(|g| g.fold(0i64, |acc, k| acc * extents[k] + point[k]))
                .collect();
            out.insert(physical, x.to_vec());
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

impl Watch {
    fn new(s: &Schedule, stage: &str, at: Option<Vec<(String, i64)>>) -> Result<Watch> {
        let i = stage_position(s, stage)?;
        let st = &s.stages()[i];
        let sizes = run_sizes(s);
        let shape = st
            .op()
            .shape()
            .iter()
            .map(|d| d.eval(&|v: &Var| sizes.get(v).copied()))
            .collect::<arith::Result<Vec<i64>>>()?;
        let buffer = if st.op().num_outputs() > 1 {
            format!("{}.v0", st.name())
        } else {
            st.name().to_string()
        };
        Ok(Watch {
            stage: stage.to_string(),
            init: format!("{stage}.init"),
            buffer,
            shape,
            at,
            instances: Vec::new(),
            open: Vec::new(),
            whole: None,
            layout: None,
        })
    }

    fn record(&self, at: Vec<(String, i64)>, realize: Vec<(i64, i64)>) -> IterationRegions {
        IterationRegions {
            stage: self.stage.clone(),
            shape: self.shape.clone(),
            at,
            realize,
            computed: BTreeSet::new(),
            needed: BTreeSet::new(),
            stores: 0,
            physical: None,
        }
    }

    /// Whether the iteration the `loops` are in is the one wanted.
    fn wanted(&self, loops: &[LoopState<'_>]) -> bool {
        let Some(at) = &self.at else {
            return true;
        };
        let open_match = loops
            .iter()
            .all(|l| match at.iter().find(|(n, _)| n == l.var.name()) {
                Some((_, v)) => *v == l.value,
                None => l.value == l.first,
            });
        // A named loop the program dropped runs once, at 0.
        let dropped_match = at
            .iter()
            .filter(|(n, _)| !loops.iter().any(|l| l.var.name() == n))
            .all(|(_, v)| *v == 0);
        open_match && dropped_match
    }

    /// `rec` with its physical storage in the iteration `loops` are in,
    /// and its realize in logical coordinates.
    fn with_layout(
        &self,
        mut rec: IterationRegions,
        loops: &[LoopState<'_>],
    ) -> Result<IterationRegions> {
        let l = self.layout.as_ref().expect("called for layouts only");
        let values: HashMap<&str, i64> = loops.iter().map(|x| (x.var.name(), x.value)).collect();
        // A loop the program dropped runs once, at 0.
        let env = |v: &Var| Some(values.get(v.name()).copied().unwrap_or(0));
        rec.realize = l
            .region
            .iter()
            .map(|r| Ok((r.min.eval(&env)?, r.extent.eval(&env)?)))
            .collect::<arith::Result<Vec<(i64, i64)>>>()?;
        rec.physical = Some(PhysicalRegions {
            shape: l.shape(),
            computed: BTreeSet::new(),
            needed: BTreeSet::new(),
            logical: l.positions(&self.shape, &env)?,
        });
        Ok(rec)
    }

    /// Moves the whole-program iteration, if any, to the finished ones.
    fn finish(&mut self) {
        if let Some(w) = self.whole.take() {
            self.instances.push(w);
        }
    }
}

/// The observer of a run: the watches, by buffer name.
struct Watches {
    watches: Vec<Watch>,
    /// The first failure to map an iteration's storage back to the tensor.
    failed: Option<TeError>,
}

impl Observer for Watches {
    fn watches(&mut self, buffer: &Buffer) -> bool {
        self.watches.iter().any(|w| w.buffer == buffer.name())
    }

    fn enter_region(
        &mut self,
        buffer: &Buffer,
        min: &[i64],
        extent: &[i64],
        loops: &[LoopState<'_>],
    ) {
        for w in self
            .watches
            .iter_mut()
            .filter(|w| w.buffer == buffer.name())
        {
            let rec = w.wanted(loops).then(|| {
                let at = loops
                    .iter()
                    .map(|l| (l.var.name().to_string(), l.value))
                    .collect();
                let realize = min.iter().copied().zip(extent.iter().copied()).collect();
                w.record(at, realize)
            });
            let rec = match (rec, &w.layout) {
                (Some(rec), Some(_)) => match w.with_layout(rec, loops) {
                    Ok(rec) => Some(rec),
                    Err(e) => {
                        self.failed.get_or_insert(e);
                        None
                    }
                },
                (rec, _) => rec,
            };
            w.open.push(rec);
        }
    }

    fn leave_region(&mut self, buffer: &Buffer) {
        for w in self
            .watches
            .iter_mut()
            .filter(|w| w.buffer == buffer.name())
        {
            if let Some(Some(rec)) = w.open.pop() {
                w.instances.push(rec);
            }
        }
    }

    fn access(&mut self, a: &ObservedAccess<'_>) {
        for w in self
            .watches
            .iter_mut()
            .filter(|w| w.buffer == a.buffer.name())
        {
            let rec = if w.open.is_empty() {
                if w.whole.is_none() {
                    let realize = w.shape.iter().map(|&n| (0, n)).collect();
                    let rec = w.record(Vec::new(), realize);
                    let rec = if w.layout.is_some() {
                        match w.with_layout(rec, &[]) {
                            Ok(rec) => rec,
                            Err(e) => {
                                self.failed.get_or_insert(e);
                                continue;
                            }
                        }
                    } else {
                        rec
                    };
                    w.whole = Some(rec);
                }
                w.whole.as_mut()
            } else {
                w.open.last_mut().and_then(Option::as_mut)
            };
            let Some(rec) = rec else {
                continue;
            };
            let own = a.stage.is_some_and(|st| st == w.stage);
            let kind = match a.kind {
                AccessKind::Store if own => Some(true),
                AccessKind::Store => None,
                // The stage's own reads (a reduction's update) need nothing.
                AccessKind::Load if own || a.stage == Some(w.init.as_str()) => None,
                AccessKind::Load => Some(false),
            };
            let Some(store) = kind else {
                continue;
            };
            if store {
                rec.stores += 1;
            }
            let logical = match &mut rec.physical {
                // A tensor with a layout: the program's indices are physical.
                Some(p) => {
                    let at = a.indices.to_vec();
                    let logical = p.logical.get(&at).cloned();
                    if store {
                        p.computed.insert(at);
                    } else {
                        p.needed.insert(at);
                    }
                    logical
                }
                None => Some(a.indices.to_vec()),
            };
            if let Some(x) = logical {
                if store {
                    rec.computed.insert(x);
                } else {
                    rec.needed.insert(x);
                }
            }
        }
    }
}

/// Watches with their positions in the caller's list.
type Numbered = Vec<(usize, Watch)>;

/// Runs `s` lowered under `watches`, giving them back in order.
fn observe(
    s: &Schedule,
    b: &crate::bound::Bounds,
    args: &[Tensor],
    watches: Vec<Watch>,
    limits: &RunLimits,
) -> Result<Vec<Watch>> {
    // A tensor with a layout is traced in the program `tvm.lower` gives,
    // whose accesses are physical; the others in the `realize` form, whose
    // accesses are the tensor's own indices.
    let (plain, transformed): (Numbered, Numbered) =
        watches.into_iter().enumerate().partition(|(_, w)| {
            stage_position(s, &w.stage)
                .map(|i| s.layout(s.stages()[i].op()).is_none())
                .unwrap_or(true)
        });
    let mut out: Vec<(usize, Watch)> = Vec::new();
    for (group, style) in [
        (plain, StorageStyle::Realize),
        (transformed, StorageStyle::Allocate),
    ] {
        if group.is_empty() {
            continue;
        }
        let (positions, group): (Vec<usize>, Vec<Watch>) = group.into_iter().unzip();
        let done = observe_in(s, b, args, group, limits, style)?;
        out.extend(positions.into_iter().zip(done));
    }
    out.sort_by_key(|(k, _)| *k);
    Ok(out.into_iter().map(|(_, w)| w).collect())
}

/// [`observe`] with one storage style.
fn observe_in(
    s: &Schedule,
    b: &crate::bound::Bounds,
    args: &[Tensor],
    mut watches: Vec<Watch>,
    limits: &RunLimits,
    style: StorageStyle,
) -> Result<Vec<Watch>> {
    let sizes = run_sizes(s);
    for w in &mut watches {
        let i = stage_position(s, &w.stage)?;
        let st = &s.stages()[i];
        if s.layout(st.op()).is_some() {
            let run = crate::layout::concrete(s, &st.op().output(), &w.shape, &sizes)?
                .expect("the stage has a layout");
            let is_arg = args.iter().any(|t| t.op() == st.op());
            let local = match (st.attach(), is_arg) {
                (Attach::At { .. }, false) => {
                    crate::lower::physical_allocation(s, b, &b.analyzer, i)
                }
                _ => None,
            };
            let local = match local {
                Some((shape, starts)) => {
                    let extents = shape
                        .iter()
                        .map(|e| e.eval(&|v: &Var| sizes.get(v).copied()))
                        .collect::<arith::Result<Vec<i64>>>()?;
                    let starts = starts.iter().map(|e| b.to_loop_vars(e)).collect();
                    Some((extents, starts))
                }
                None => None,
            };
            let region = b
                .region(st.op())
                .unwrap_or_default()
                .iter()
                .map(|r| {
                    arith::Range::new(
                        simp(&b.analyzer, r.min.clone()),
                        simp(&b.analyzer, r.extent.clone()),
                    )
                })
                .collect();
            w.layout = Some(LayoutWatch { run, local, region });
        }
    }
    for w in &watches {
        let st = &s.stages()[stage_position(s, &w.stage)?];
        if let Some((_, call)) = crate::extern_op::extern_of(st.op())
            .and_then(|e| e.opaque_call())
            .map(|c| (st.name(), c))
        {
            return Err(TeError::lowering(format!(
                "`{}` calls `{call}`, which cannot be run",
                w.stage
            )));
        }
    }
    let mut func = schedule_ops(s, b, args, style)?;
    if style == StorageStyle::Realize {
        let Ok(body) = EmptyRegions.stmt(&func.body);
        func = tir::PrimFunc::new(func.name.clone(), func.params.clone(), body);
    }
    let (_, inputs) = run_inputs(s, args, &func.params, &sizes, INPUT_SEED)?;
    // Scalar float parameters change values, never which elements are read.
    let params = crate::check::float_param_values(&func, INPUT_SEED);
    let func = crate::check::bind_float_params(&func, &params)?;
    let mut interpreter = tir::Interpreter::new()
        .keep_going(true)
        .max_steps(limits.max_steps)
        .max_elements(crate::RUN_ELEMENT_LIMIT)
        .max_reported(1);
    if let Some(hook) = limits.interrupt {
        interpreter = interpreter.interrupt(hook);
    }
    let mut observer = Watches {
        watches,
        failed: None,
    };
    interpreter
        .run_observed(&func, &inputs, &sizes, &mut observer)
        .map_err(|e| {
            let hint = match e {
                tir::RunError::StepLimit { .. } | tir::RunError::TooManySteps { .. } => {
                    " (the limit is `--max-steps` on the command line)"
                }
                _ => "",
            };
            TeError::lowering(format!("running the lowered program failed: {e}{hint}"))
        })?;
    if let Some(e) = observer.failed {
        return Err(e);
    }
    Ok(observer.watches)
}

/// Gives every `realize` a extent of at least 0: a stage whose consumers
/// need nothing in an iteration has a region of negative extent there
/// (`min(10 - i, 1)`), which is empty, as `tvm.lower`'s `allocate` of
/// the largest region leaves it.
struct EmptyRegions;

impl tir::mutate::Mutator for EmptyRegions {
    type Error = std::convert::Infallible;

    fn stmt(&mut self, s: &tir::Stmt) -> std::result::Result<tir::Stmt, Self::Error> {
        match s {
            tir::Stmt::Realize {
                buffer,
                region,
                body,
            } => {
                let region = region
                    .iter()
                    .map(|r| {
                        arith::Range::new(r.min.clone(), Expr::max(r.extent.clone(), Expr::int(0)))
                    })
                    .collect();
                Ok(tir::Stmt::realize(buffer, region, self.stmt(body)?))
            }
            _ => tir::mutate::walk_stmt(self, s),
        }
    }
}
