//! The bound report: what the command line prints for a schedule.

use crate::error::Result;
use crate::iter_var::IterKind;
use crate::lower::{allocation_shape, physical_allocation, Lowering};
use crate::operation::Tensor;
use crate::schedule::{Attach, Schedule};
use crate::simp::simp;
use arith::{Expr, Range};
use tir::PrimFunc;

/// One iteration variable of a stage and its inferred range.
#[derive(Clone, Debug, PartialEq)]
pub struct IterVarReport {
    /// The name (`i.outer`).
    pub name: String,
    /// Data-parallel or reduction.
    pub kind: IterKind,
    /// Whether it is a loop of the stage (a leaf).
    pub leaf: bool,
    /// The first value; may name enclosing loops or symbolic sizes.
    pub min: Expr,
    /// The number of values.
    pub extent: Expr,
}

/// Where a stage is computed, for printing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// An input tensor.
    Input,
    /// At the top level.
    Root,
    /// Substituted into its consumers.
    Inline,
    /// In loop `axis` of stage `stage`.
    At {
        /// The enclosing stage.
        stage: String,
        /// Its loop.
        axis: String,
    },
}

/// Everything inferred about one stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageReport {
    /// The stage's name.
    pub name: String,
    /// Where it is computed.
    pub placement: Placement,
    /// Every iteration variable with its range (empty for inputs and
    /// inlined stages).
    pub iter_vars: Vec<IterVarReport>,
    /// The loops enclosing the stage, innermost first (seed 000's attach
    /// path).
    pub attach_path: Vec<String>,
    /// The region computed per iteration of the attach point, one
    /// `[min, extent)` per axis.
    pub region: Vec<Range>,
    /// The storage shape: the largest region over the iterations; for a
    /// tensor with a layout transform, in the physical space; for an input,
    /// its (physical) shape.
    pub allocation: Vec<Expr>,
    /// The physical shape of a tensor with a layout transform (seed 001:
    /// the transformed shape, its axes between separators flattened); `None`
    /// without one.
    pub physical_shape: Option<Vec<Expr>>,
    /// The axes whose exact bound outgrew [`crate::BOUND_BUDGET`] nodes and
    /// were widened to the whole axis: sound, but coarser than exact.
    pub widened: Vec<String>,
}

/// Bounds and the lowered program of a schedule.
#[derive(Clone, Debug)]
pub struct Report {
    /// One entry per stage, producers first.
    pub stages: Vec<StageReport>,
    /// The program `tvm.lower(s, args)` gives, with `allocate` storage.
    pub program: PrimFunc,
}

impl Report {
    /// The report of the stage called `name`.
    pub fn stage(&self, name: &str) -> Option<&StageReport> {
        self.stages.iter().find(|s| s.name == name)
    }
}

/// Infers bounds, attach paths, regions and storage for every stage of `s`,
/// and lowers it with `args` as parameters.
///
/// ```
/// use tir::DataType;
/// let c = te::compute_named([5, 16], &["i", "j"], |_| te::Value::int(5), "C").unwrap();
/// let d = te::compute_named([5, 16], &["i", "j"], |i| c.at([&i[0], &i[1]]) * 2, "D").unwrap();
/// let mut s = te::create_schedule(&[d.clone()]);
/// s.compute_at(&c, &d, &d.op().axis()[1]).unwrap();
/// let r = te::report(&s, &[d]).unwrap();
/// assert_eq!(r.stage("C").unwrap().attach_path, ["j", "i"]);
/// assert_eq!(r.stage("C").unwrap().allocation, [arith::Expr::int(1), arith::Expr::int(1)]);
/// ```
pub fn report(s: &Schedule, args: &[Tensor]) -> Result<Report> {
    report_lowered(s, Lowering::new(s, args)?)
}

/// The report of `s` from a [`Lowering`] of it, which must be current
/// ([`Lowering::is_current`]); [`report`] lowers first.
pub fn report_lowered(s: &Schedule, lowering: Lowering) -> Result<Report> {
    if lowering.revision() != s.revision() {
        return Err(crate::error::TeError::lowering(
            "the schedule changed after it was lowered: lower it again",
        ));
    }
    let (bounds, program) = lowering.into_parts();
    let b = &*bounds;
    let mut stages = Vec::with_capacity(s.stages().len());
    for (i, st) in s.stages().iter().enumerate() {
        let placement = if st.is_placeholder() {
            Placement::Input
        } else {
            match st.attach() {
                Attach::Root => Placement::Root,
                Attach::Inline => Placement::Inline,
                Attach::At { parent, axis } => Placement::At {
                    stage: parent.name().to_string(),
                    axis: axis.name().to_string(),
                },
            }
        };
        let inline = st.attach() == &Attach::Inline;
        let iter_vars = if inline {
            Vec::new()
        } else {
            st.all_iter_vars()
                .iter()
                .filter_map(|iv| {
                    let r = b.range(iv)?;
                    Some(IterVarReport {
                        name: iv.name().to_string(),
                        kind: iv.kind(),
                        leaf: st.leaf_iter_vars().contains(iv),
                        min: simp(&b.analyzer, r.min.clone()),
                        extent: simp(&b.analyzer, r.extent.clone()),
                    })
                })
                .collect()
        };
        let attach_path = b
            .graph
            .attach_path(i)
            .map(|iv| iv.name().to_string())
            .collect();
        let physical_shape = match s.layout(st.op()) {
            Some(map) if !inline => Some(
                layout::Layout::new(st.op().shape().to_vec(), Some(map.clone()))
                    .map_err(|e| {
                        crate::error::TeError::lowering(format!(
                            "layout of `{}`: {}",
                            st.name(),
                            e.message
                        ))
                    })?
                    .physical_shape()
                    .to_vec(),
            ),
            _ => None,
        };
        let (region, allocation) = if inline || st.is_placeholder() {
            let full: Vec<Range> = st
                .op()
                .shape()
                .iter()
                .map(|d| Range::from_extent(d.clone()))
                .collect();
            let storage = match &physical_shape {
                Some(p) => p.clone(),
                None if inline => Vec::new(),
                None => st.op().shape().to_vec(),
            };
            (if inline { Vec::new() } else { full }, storage)
        } else {
            // A transformed tensor computed at a loop stores its region's
            // image per iteration when that is bounded, else it is stored
            // whole; either in its physical shape.
            let local = matches!(st.attach(), Attach::At { .. })
                .then(|| physical_allocation(s, b, &b.analyzer, i))
                .flatten();
            let storage = match (&physical_shape, local) {
                (Some(_), Some((shape, _))) => {
                    let seps = s.layout(st.op()).map_or(&[][..], |m| m.axis_separators());
                    grouped(&shape, seps, &b.analyzer)
                }
                (Some(p), None) => p.clone(),
                (None, _) => allocation_shape(s, b, &b.analyzer, i)?,
            };
            (b.region(st.op()).unwrap_or_default(), storage)
        };
        let widened = b
            .widened()
            .iter()
            .filter(|iv| st.op().axis().contains(iv))
            .map(|iv| iv.name().to_string())
            .collect();
        stages.push(StageReport {
            widened,
            name: st.name().to_string(),
            placement,
            iter_vars,
            attach_path,
            region,
            allocation,
            physical_shape,
        });
    }
    Ok(Report { stages, program })
}

/// A transformed shape as physical axes: the product of the extents
/// between consecutive axis separators.
fn grouped(shape: &[Expr], separators: &[usize], an: &arith::Analyzer) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in separators.iter().copied().chain([shape.len()]) {
        let product = shape[start..end]
            .iter()
            .cloned()
            .reduce(Expr::mul)
            .unwrap_or_else(|| Expr::int(1));
        out.push(simp(an, product));
        start = end;
    }
    out
}
