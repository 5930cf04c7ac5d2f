//! `scatter`: output `k` starts as operand `k`; each update element is
//! combined into the output at its scatter index (read at run time from
//! the indices tensor) plus its window offset.
//!
//! What the maps say, for `N` operands, the indices and `N` updates:
//! - output to operand `k` of output `k`: the identity (exact); to the
//!   other operands: the identity where an update lands, drawn everywhere
//!   (conservative: the combiner reads every operand only there);
//! - output to indices: every index vector that could place an update on
//!   the element (all of them, or those of its batch along batching
//!   dimensions): the scatter must look at each to decide (exact);
//! - output to updates: every update that some index value could place on
//!   the element (conservative: which ones do depends on the indices);
//! - updates to output: the update's start (a runtime variable per indexed
//!   operand dimension, the index read at the update's batch position)
//!   plus its window offset (conservative: a window that falls outside
//!   the operand is dropped at run time, where the map places it at the
//!   start clamped into the operand);
//! - operand `k` to output `k`: the identity (exact); indices to output:
//!   the inverse of the indices map (exact).

use super::builder::MapBuilder;
use super::dynamic_slice::runtime_source;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap, RuntimeVar};
use crate::ops::Unsupported;
use arith::Expr;
use indexing::{IndexingMap, Interval};

/// Why the updates' maps over-approximate, output to input.
const WHICH_UPDATES: &str =
    "which updates land on an element depends on the scatter indices' values: every update some index could place there";
/// Why the updates' maps over-approximate, input to output.
const DROPPED_WINDOWS: &str =
    "an update window that falls outside the operand is dropped at run time; the map places it at its start clamped into the operand";
/// Why an operand other than the output's own over-approximates.
const COMBINED_OPERANDS: &str =
    "the combiner reads the other operands only where an update lands; drawn at every element";

/// The shapes and dimension numbers of one scatter.
struct Scatter<'a> {
    /// Number of operands (and of updates, and of outputs).
    n: usize,
    operand: &'a [i64],
    indices: &'a [i64],
    updates: &'a [i64],
    index_vector_dim: usize,
    /// `scatter_dims_to_operand_dims`: operand dimension of index-vector
    /// position `k`.
    to_operand: Vec<usize>,
    /// Per operand dimension, what places it: see [`Placement`].
    placement: Vec<Placement>,
    /// Update dimensions that are not window dimensions, in order: one per
    /// indices dimension other than the index vector (`scatter_of_indices`).
    update_scatter_dims: Vec<usize>,
    /// Indices dimensions other than the index vector, in order.
    scatter_of_indices: Vec<usize>,
}

/// How an update lands along one operand dimension.
#[derive(Clone, Copy, PartialEq)]
enum Placement {
    /// A window dimension: start plus the offset along this update
    /// dimension (whose size is the window's).
    Window(usize),
    /// An inserted window dimension (size 1): the start alone.
    Inserted,
    /// A batching dimension: the update's position along this indices
    /// dimension (`scatter_indices_batching_dims`).
    Batch(usize),
}

fn signature<'a>(op: &Op<'a>) -> Result<Scatter<'a>, Unsupported> {
    let name = &op.instr.name;
    let total = op.num_operands();
    if total < 3 || total.is_multiple_of(2) {
        return Err(AnalysisError::invalid(format!(
            "scatter `{name}` needs N operands, the indices and N updates"
        )));
    }
    let n = (total - 1) / 2;
    let operand = op.operand_dims(0)?;
    let indices = op.operand_dims(n)?;
    let updates = op.operand_dims(n + 1)?;
    for k in 0..n {
        if op.operand_dims(k)? != operand || op.operand_dims(n + 1 + k)? != updates {
            return Err(AnalysisError::invalid(format!(
                "scatter `{name}`: its operands (updates) must share one shape"
            )));
        }
    }
    for k in 0..n {
        if op.output_dims(k)? != operand {
            return Err(AnalysisError::invalid(format!(
                "scatter `{name}`: output {k} must have the operand's shape"
            )));
        }
    }
    let window_dims = check_dims(
        op.attr_ints("update_window_dims")?,
        updates.len(),
        "update_window_dims",
    )?;
    let inserted = check_dims(
        op.attr_ints("inserted_window_dims")?,
        operand.len(),
        "inserted_window_dims",
    )?;
    let to_operand = check_dims(
        op.attr_ints("scatter_dims_to_operand_dims")?,
        operand.len(),
        "scatter_dims_to_operand_dims",
    )?;
    let ivd = op.instr.attrs.int("index_vector_dim").ok_or_else(|| {
        AnalysisError::invalid(format!("scatter `{name}` has no index_vector_dim"))
    })?;
    if ivd < 0 || ivd as usize > indices.len() {
        return Err(AnalysisError::invalid(format!(
            "scatter `{name}`: index_vector_dim {ivd} is out of range"
        )));
    }
    let index_vector_dim = ivd as usize;
    let operand_batching = check_dims(
        op.instr.attrs.ints("input_batching_dims").unwrap_or(&[]),
        operand.len(),
        "input_batching_dims",
    )?;
    let indices_batching = check_dims(
        op.instr
            .attrs
            .ints("scatter_indices_batching_dims")
            .unwrap_or(&[]),
        indices.len(),
        "scatter_indices_batching_dims",
    )?;
    let vector_len = if index_vector_dim == indices.len() {
        1
    } else {
        indices[index_vector_dim]
    };
    let scatter_of_indices: Vec<usize> = (0..indices.len())
        .filter(|&i| i != index_vector_dim)
        .collect();
    let update_scatter_dims: Vec<usize> = (0..updates.len())
        .filter(|d| !window_dims.contains(d))
        .collect();
    let bad = || {
        AnalysisError::invalid(format!(
            "scatter `{name}`: dimension numbers do not match the shapes"
        ))
    };
    if operand_batching.len() != indices_batching.len()
        || to_operand.len() as i64 != vector_len
        || update_scatter_dims.len() != scatter_of_indices.len()
        || update_scatter_dims
            .iter()
            .zip(&scatter_of_indices)
            .any(|(&u, &i)| updates[u] != indices[i])
    {
        return Err(bad());
    }
    let mut placement = vec![Placement::Inserted; operand.len()];
    for (&j, &i) in operand_batching.iter().zip(&indices_batching) {
        if inserted.contains(&j) || to_operand.contains(&j) || i == index_vector_dim {
            return Err(bad());
        }
        placement[j] = Placement::Batch(i);
    }
    let windowed: Vec<usize> = (0..operand.len())
        .filter(|j| !inserted.contains(j) && !operand_batching.contains(j))
        .collect();
    if windowed.len() != window_dims.len() {
        return Err(bad());
    }
    for (&j, &w) in windowed.iter().zip(&window_dims) {
        if updates[w] > operand[j] {
            return Err(bad());
        }
        placement[j] = Placement::Window(w);
    }
    for (j, p) in placement.iter().enumerate() {
        if let Placement::Batch(i) = p {
            if indices[*i] != operand[j] {
                return Err(bad());
            }
        }
    }
    Ok(Scatter {
        n,
        operand,
        indices,
        updates,
        index_vector_dim,
        to_operand,
        placement,
        update_scatter_dims,
        scatter_of_indices,
    })
}

impl Scatter<'_> {
    /// The window size along operand dimension `j` (1 where inserted or
    /// batching).
    fn window(&self, j: usize) -> i64 {
        match self.placement[j] {
            Placement::Window(w) => self.updates[w],
            _ => 1,
        }
    }

    /// The update dimension that carries indices dimension `i`.
    fn update_dim_of_indices(&self, i: usize) -> Option<usize> {
        let pos = self.scatter_of_indices.iter().position(|&x| x == i)?;
        Some(self.update_scatter_dims[pos])
    }

    /// The operand dimension batched along indices dimension `i`, if any.
    fn batched_operand_dim(&self, i: usize) -> Option<usize> {
        self.placement
            .iter()
            .position(|p| *p == Placement::Batch(i))
    }
}

/// Output to input, one entry per operand: see the module's doc.
pub(crate) fn output_to_input(op: &Op, output: usize) -> OpMaps {
    let s = signature(op)?;
    let b = MapBuilder::over(s.operand);
    let identity = b.build(b.dims())?;
    let mut maps = Vec::with_capacity(2 * s.n + 1);
    for k in 0..s.n {
        maps.push(OperandIndexing::Maps(vec![if k == output {
            OperandMap::plain(identity.clone())
        } else {
            OperandMap::conservative(identity.clone(), COMBINED_OPERANDS)
        }]));
    }
    maps.push(OperandIndexing::single(indices_from_output(&s)?));
    let updates = updates_from_output(&s)?;
    for _ in 0..s.n {
        maps.push(OperandIndexing::Maps(vec![OperandMap::conservative(
            updates.clone(),
            WHICH_UPDATES,
        )]));
    }
    Ok(maps)
}

/// Output index `o` reads every index vector of its batch: indices
/// dimensions batched with operand dimension `j` are `o_j`, the others
/// (and the index vector) range over their sizes.
fn indices_from_output(s: &Scatter) -> Result<IndexingMap, Unsupported> {
    let mut b = MapBuilder::over(s.operand);
    let results = (0..s.indices.len())
        .map(|i| match s.batched_operand_dim(i) {
            Some(j) => b.dim(j),
            None => b.symbol(s.indices[i]),
        })
        .collect();
    b.build(results)
}

/// Every update some start could place on output index `o`: any batch
/// position (its batching dimensions fixed to `o`'s), and along a window
/// dimension `j` of size `W` an offset `w` with `o_j - w` a valid start
/// (`o_j` itself where the start is not indexed, hence 0).
fn updates_from_output(s: &Scatter) -> Result<IndexingMap, Unsupported> {
    let mut b = MapBuilder::over(s.operand);
    let mut results = vec![Expr::int(0); s.updates.len()];
    for (&u, &i) in s.update_scatter_dims.iter().zip(&s.scatter_of_indices) {
        results[u] = match s.batched_operand_dim(i) {
            Some(j) => b.dim(j),
            None => b.symbol(s.updates[u]),
        };
    }
    for j in 0..s.operand.len() {
        let indexed = s.to_operand.contains(&j);
        match s.placement[j] {
            Placement::Window(w) if indexed => {
                let off = b.symbol(s.updates[w]);
                b.constrain(
                    b.dim(j) - off.clone(),
                    Interval::new(0, s.operand[j] - s.updates[w]),
                );
                results[w] = off;
            }
            Placement::Window(w) => {
                b.restrict_dim(j, Interval::of_size(s.updates[w]));
                results[w] = b.dim(j);
            }
            Placement::Inserted if !indexed => b.restrict_dim(j, Interval::new(0, 0)),
            Placement::Inserted | Placement::Batch(_) => {}
        }
    }
    b.build(results)
}

/// Input to output for operand `input`, one entry per output: see the
/// module's doc.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let s = signature(op)?;
    if input < s.n {
        let b = MapBuilder::over(s.operand);
        let identity = b.build(b.dims())?;
        return Ok((0..s.n)
            .map(|k| {
                OperandIndexing::Maps(vec![if k == input {
                    OperandMap::plain(identity.clone())
                } else {
                    OperandMap::conservative(identity.clone(), COMBINED_OPERANDS)
                }])
            })
            .collect());
    }
    let map = if input == s.n {
        OperandMap::plain(output_from_indices(&s)?)
    } else {
        output_from_updates(op, &s)?
    };
    Ok((0..s.n)
        .map(|_| OperandIndexing::Maps(vec![map.clone()]))
        .collect())
}

/// An index vector reaches every output element of its batch.
fn output_from_indices(s: &Scatter) -> Result<IndexingMap, Unsupported> {
    let mut b = MapBuilder::over(s.indices);
    let results = (0..s.operand.len())
        .map(|j| match s.placement[j] {
            Placement::Batch(i) => b.dim(i),
            _ => b.symbol(s.operand[j]),
        })
        .collect();
    b.build(results)
}

/// Update `u` lands at `start_j + u_w` along window dimension `j` (offset
/// dimension `w`), at `start_j` along an inserted one and at its batch
/// position along a batching one; `start_j` is runtime variable
/// `indices[batch(u)..., k]` for `j = scatter_dims_to_operand_dims[k]`
/// (in operand-dimension order, as gather numbers them), 0 otherwise.
fn output_from_updates(op: &Op, s: &Scatter) -> Result<OperandMap, Unsupported> {
    let mut b = MapBuilder::over(s.updates);
    let rt_builder = MapBuilder::over(s.updates);
    let mut runtime = Vec::new();
    let mut results = Vec::with_capacity(s.operand.len());
    for j in 0..s.operand.len() {
        let start = match s.to_operand.iter().position(|&m| m == j) {
            Some(k) => {
                let rt = b.rt_var(Interval::new(0, s.operand[j] - s.window(j)));
                let idx = (0..s.indices.len())
                    .map(|i| {
                        if i == s.index_vector_dim {
                            Expr::int(k as i64)
                        } else {
                            rt_builder.dim(s.update_dim_of_indices(i).expect("a scatter dim"))
                        }
                    })
                    .collect();
                runtime.push(RuntimeVar {
                    map: rt_builder.build(idx)?,
                    ..runtime_source(op, s.n)
                });
                rt
            }
            None => Expr::int(0),
        };
        results.push(match s.placement[j] {
            Placement::Window(w) => start + b.dim(w),
            Placement::Inserted => start,
            Placement::Batch(i) => b.dim(s.update_dim_of_indices(i).expect("a scatter dim")),
        });
    }
    let mut m = OperandMap::with_runtime(b.build(results)?, runtime);
    m.conservative = Some(DROPPED_WINDOWS.to_string());
    Ok(m)
}
