//! `gather`: start indices read at run time from the indices tensor become
//! runtime variables; the slice offsets are output dimensions.

use super::builder::MapBuilder;
use super::dynamic_slice::runtime_source;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap, RuntimeVar};
use crate::ops::Unsupported;
use arith::Expr;
use indexing::Interval;

struct Gather<'a> {
    operand: &'a [i64],
    indices: &'a [i64],
    out: &'a [i64],
    offset_dims: Vec<usize>,
    collapsed: Vec<usize>,
    start_index_map: Vec<usize>,
    index_vector_dim: usize,
    slice_sizes: &'a [i64],
    /// Output dimensions that are not offset dimensions (batch dimensions).
    batch_dims: Vec<usize>,
    /// `(operand dimension, output dimension)` of each explicit batching
    /// dimension (`operand_batching_dims` paired with
    /// `start_indices_batching_dims`): the operand is read at the output's
    /// batch index there.
    explicit_batch: Vec<(usize, usize)>,
}

fn signature<'a>(op: &Op<'a>) -> Result<Gather<'a>, Unsupported> {
    let name = &op.instr.name;
    let operand = op.operand_dims(0)?;
    let indices = op.operand_dims(1)?;
    let out = op.output_dims(0)?;
    let offset_dims = check_dims(op.attr_ints("offset_dims")?, out.len(), "offset_dims")?;
    let collapsed = check_dims(
        op.attr_ints("collapsed_slice_dims")?,
        operand.len(),
        "collapsed_slice_dims",
    )?;
    let start_index_map = check_dims(
        op.attr_ints("start_index_map")?,
        operand.len(),
        "start_index_map",
    )?;
    let index_vector_dim = op.instr.attrs.int("index_vector_dim").ok_or_else(|| {
        AnalysisError::invalid(format!("gather `{name}` has no index_vector_dim"))
    })?;
    if index_vector_dim < 0 || index_vector_dim as usize > indices.len() {
        return Err(AnalysisError::invalid(format!(
            "gather `{name}`: index_vector_dim {index_vector_dim} is out of range"
        )));
    }
    let index_vector_dim = index_vector_dim as usize;
    let vector_len = if index_vector_dim == indices.len() {
        1
    } else {
        indices[index_vector_dim]
    };
    let slice_sizes = op.attr_ints("slice_sizes")?;
    let batch_dims: Vec<usize> = (0..out.len())
        .filter(|i| !offset_dims.contains(i))
        .collect();
    let batch_rank = indices.len() - usize::from(index_vector_dim < indices.len());
    let operand_batching = check_dims(
        op.instr.attrs.ints("operand_batching_dims").unwrap_or(&[]),
        operand.len(),
        "operand_batching_dims",
    )?;
    let indices_batching = check_dims(
        op.instr
            .attrs
            .ints("start_indices_batching_dims")
            .unwrap_or(&[]),
        indices.len(),
        "start_indices_batching_dims",
    )?;
    // Indices dimensions other than the index vector, in order, are the
    // output's batch dimensions in order.
    let indices_batch: Vec<usize> = (0..indices.len())
        .filter(|&i| i != index_vector_dim)
        .collect();
    let mut explicit_batch = Vec::with_capacity(operand_batching.len());
    for (&j, &i) in operand_batching.iter().zip(&indices_batching) {
        let Some(pos) = indices_batch.iter().position(|&x| x == i) else {
            return Err(AnalysisError::invalid(format!(
                "gather `{name}`: start_indices_batching_dims names the index vector dimension"
            )));
        };
        let Some(&o) = batch_dims.get(pos) else {
            return Err(AnalysisError::invalid(format!(
                "gather `{name}`: dimension numbers do not match the shapes"
            )));
        };
        explicit_batch.push((j, o));
    }
    let kept: Vec<usize> = (0..operand.len())
        .filter(|j| !collapsed.contains(j) && !operand_batching.contains(j))
        .collect();
    let ok = slice_sizes.len() == operand.len()
        && operand_batching.len() == indices_batching.len()
        && operand_batching.iter().all(|j| {
            !collapsed.contains(j) && !start_index_map.contains(j) && slice_sizes[*j] == 1
        })
        && explicit_batch.iter().all(|&(j, o)| operand[j] == out[o])
        && start_index_map.len() as i64 == vector_len
        && batch_dims.len() == batch_rank
        && kept.len() == offset_dims.len()
        && collapsed.iter().all(|&j| slice_sizes[j] == 1)
        && slice_sizes
            .iter()
            .zip(operand)
            .all(|(&s, &n)| (0..=n).contains(&s))
        && kept
            .iter()
            .zip(&offset_dims)
            .all(|(&j, &o)| out[o] == slice_sizes[j]);
    if !ok {
        return Err(AnalysisError::invalid(format!(
            "gather `{name}`: dimension numbers do not match the shapes"
        )));
    }
    Ok(Gather {
        operand,
        indices,
        out,
        offset_dims,
        collapsed,
        start_index_map,
        index_vector_dim,
        slice_sizes,
        batch_dims,
        explicit_batch,
    })
}

/// The index into the indices tensor for output batch dimensions `batch`
/// and index-vector position `k`.
fn indices_index(g: &Gather, batch: &[Expr], k: Expr) -> Vec<Expr> {
    let mut r = Vec::with_capacity(g.indices.len());
    let mut next = 0;
    for i in 0..g.indices.len() {
        if i == g.index_vector_dim {
            r.push(k.clone());
        } else {
            r.push(batch[next].clone());
            next += 1;
        }
    }
    r
}

/// Operand dimension `j = start_index_map[k]` reads `rt_k + offset`, with
/// `rt_k` the clamped start index `indices[batch..., k]`; the indices are
/// read over the whole index vector (range variable).
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let g = signature(op)?;
    let mut b = MapBuilder::over(g.out);
    let mut results = vec![Expr::int(0); g.operand.len()];
    let kept: Vec<usize> = (0..g.operand.len())
        .filter(|j| !g.collapsed.contains(j) && !g.explicit_batch.iter().any(|&(b, _)| b == *j))
        .collect();
    for (&j, &o) in kept.iter().zip(&g.offset_dims) {
        results[j] = b.dim(o);
    }
    for &(j, o) in &g.explicit_batch {
        results[j] = b.dim(o);
    }
    // Each runtime variable's own map: output index -> position in `indices`.
    let rt_builder = MapBuilder::over(g.out);
    let rt_batch: Vec<Expr> = g.batch_dims.iter().map(|&i| rt_builder.dim(i)).collect();
    // Runtime variables in operand-dimension order, as XLA numbers them.
    let mut runtime = Vec::new();
    for (j, result) in results.iter_mut().enumerate() {
        let Some(k) = g.start_index_map.iter().position(|&m| m == j) else {
            continue;
        };
        let rt = b.rt_var(Interval::new(0, g.operand[j] - g.slice_sizes[j]));
        *result = rt + result.clone();
        let idx = indices_index(&g, &rt_batch, Expr::int(k as i64));
        runtime.push(RuntimeVar {
            map: rt_builder.build(idx)?,
            ..runtime_source(op, 1)
        });
    }
    let operand_map = b.build(results)?;

    let mut ib = MapBuilder::over(g.out);
    let ibatch: Vec<Expr> = g.batch_dims.iter().map(|&i| ib.dim(i)).collect();
    let k = if g.index_vector_dim < g.indices.len() {
        ib.symbol(g.indices[g.index_vector_dim])
    } else {
        Expr::int(0)
    };
    let indices_map = ib.build(indices_index(&g, &ibatch, k))?;
    Ok(vec![
        OperandIndexing::Maps(vec![OperandMap::with_runtime(operand_map, runtime)]),
        OperandIndexing::single(indices_map),
    ])
}

/// An element of the indices tensor reaches every output element of its
/// batch position. An operand element reaches every output position that
/// can read it: see [`operand_to_output`].
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let g = signature(op)?;
    if input == 0 {
        if let Some(maps) = operand_to_output_at_constant_starts(op, &g)? {
            return Ok(vec![OperandIndexing::Maps(maps)]);
        }
        return Ok(vec![OperandIndexing::Maps(vec![operand_to_output(&g)?])]);
    }
    if input != 1 {
        return Err(AnalysisError::invalid(format!(
            "gather `{}` has no operand {input}",
            op.instr.name
        )));
    }
    let mut b = MapBuilder::over(g.indices);
    let batch_of_indices: Vec<usize> = (0..g.indices.len())
        .filter(|&i| i != g.index_vector_dim)
        .collect();
    let mut results = vec![Expr::int(0); g.out.len()];
    for (&o, &i) in g.batch_dims.iter().zip(&batch_of_indices) {
        results[o] = b.dim(i);
    }
    for &o in &g.offset_dims {
        results[o] = b.symbol(g.out[o]);
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// Operand element `x` is read by every output whose window, at some
/// start, covers it: any batch position (along an explicit batching
/// dimension, `x`'s own), and along a kept dimension `j` of slice size `S`
/// an offset `s` with `x_j - s` a valid (clamped) start in `[0, n_j - S]`;
/// where dimension `j` has no start index the start is 0, so the offset is
/// `x_j` and only `x_j < S` is read. Which of these positions read `x`
/// depends on the start indices' values, so the map is conservative unless
/// no dimension is indexed (every batch position then reads the same
/// window: exact).
fn operand_to_output(g: &Gather) -> Result<OperandMap, Unsupported> {
    let mut b = MapBuilder::over(g.operand);
    let mut results = vec![Expr::int(0); g.out.len()];
    for &o in &g.batch_dims {
        results[o] = match g.explicit_batch.iter().find(|&&(_, bo)| bo == o) {
            Some(&(j, _)) => b.dim(j),
            None => b.symbol(g.out[o]),
        };
    }
    let kept: Vec<usize> = (0..g.operand.len())
        .filter(|j| !g.collapsed.contains(j) && !g.explicit_batch.iter().any(|&(b, _)| b == *j))
        .collect();
    for (&j, &o) in kept.iter().zip(&g.offset_dims) {
        let size = g.slice_sizes[j];
        if g.start_index_map.contains(&j) {
            let off = b.symbol(size);
            b.constrain(
                b.dim(j) - off.clone(),
                Interval::new(0, g.operand[j] - size),
            );
            results[o] = off;
        } else {
            b.restrict_dim(j, Interval::of_size(size));
            results[o] = b.dim(j);
        }
    }
    for &j in &g.collapsed {
        if !g.start_index_map.contains(&j) {
            b.restrict_dim(j, Interval::new(0, 0));
        }
    }
    let map = b.build(results)?;
    Ok(if g.start_index_map.is_empty() {
        OperandMap::plain(map)
    } else {
        OperandMap::conservative(
            map,
            "which outputs read an operand element depends on the start indices' values: every output some start could make read it",
        )
    })
}

/// The most batch positions of a gather at constant start indices mapped
/// one by one (beyond, the conservative map of [`operand_to_output`]).
const MAX_CONSTANT_STARTS: usize = 64;

/// The integer values of a `constant` instruction's literal, in row-major
/// order, when it holds exactly `count` of them.
fn literal_values(instr: &crate::module::Instruction, count: usize) -> Option<Vec<i64>> {
    if instr.opcode != crate::opcode::Opcode::Constant {
        return None;
    }
    let text = instr.literal.as_deref()?;
    let values: Vec<i64> = text
        .split(|c: char| c == '{' || c == '}' || c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    (values.len() == count).then_some(values)
}

/// Input-to-output of the operand when the start indices are a constant:
/// one exact map per batch position, from the operand elements its
/// (clamped) window covers to the output positions reading them.
fn operand_to_output_at_constant_starts(
    op: &Op,
    g: &Gather,
) -> Result<Option<Vec<OperandMap>>, Unsupported> {
    let count: i64 = g.indices.iter().product();
    let Some(values) = usize::try_from(count)
        .ok()
        .and_then(|c| literal_values(op.operand(1), c))
    else {
        return Ok(None);
    };
    let batch_of_indices: Vec<usize> = (0..g.indices.len())
        .filter(|&i| i != g.index_vector_dim)
        .collect();
    let batch_sizes: Vec<i64> = batch_of_indices.iter().map(|&i| g.indices[i]).collect();
    let positions: i64 = batch_sizes.iter().product();
    if usize::try_from(positions).map_or(true, |p| p > MAX_CONSTANT_STARTS) {
        return Ok(None);
    }
    let kept: Vec<usize> = (0..g.operand.len())
        .filter(|j| !g.collapsed.contains(j) && !g.explicit_batch.iter().any(|&(b, _)| b == *j))
        .collect();
    let mut maps = Vec::with_capacity(positions as usize);
    for flat in 0..positions {
        // The batch position's coordinates, row-major.
        let mut coords = vec![0i64; batch_sizes.len()];
        let mut rest = flat;
        for k in (0..batch_sizes.len()).rev() {
            coords[k] = rest % batch_sizes[k];
            rest /= batch_sizes[k];
        }
        let mut start = vec![0i64; g.operand.len()];
        for (k, &j) in g.start_index_map.iter().enumerate() {
            let idx = indices_index(
                g,
                &coords.iter().map(|&c| Expr::int(c)).collect::<Vec<_>>(),
                Expr::int(k as i64),
            );
            let at = idx
                .iter()
                .zip(g.indices)
                .try_fold(0i64, |acc, (e, &n)| Some(acc * n + e.as_int()?));
            let Some(v) = at.and_then(|f| values.get(usize::try_from(f).ok()?)) else {
                return Ok(None);
            };
            start[j] = (*v).clamp(0, g.operand[j] - g.slice_sizes[j]);
        }
        let mut b = MapBuilder::over(g.operand);
        let mut results = vec![Expr::int(0); g.out.len()];
        for (pos, &o) in g.batch_dims.iter().enumerate() {
            results[o] = Expr::int(coords[pos]);
        }
        for &(j, o) in &g.explicit_batch {
            let pos = g.batch_dims.iter().position(|&x| x == o).unwrap_or(0);
            b.restrict_dim(j, Interval::new(coords[pos], coords[pos]));
        }
        for &j in &g.collapsed {
            b.restrict_dim(j, Interval::new(start[j], start[j]));
        }
        for (&j, &o) in kept.iter().zip(&g.offset_dims) {
            b.restrict_dim(j, Interval::new(start[j], start[j] + g.slice_sizes[j] - 1));
            results[o] = b.dim(j) - Expr::int(start[j]);
        }
        maps.push(OperandMap::plain(b.build(results)?));
    }
    Ok(Some(maps))
}
