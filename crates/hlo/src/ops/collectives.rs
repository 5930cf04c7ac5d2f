//! Collectives other than `all-gather` (see [`super::all_gather`]):
//! `all-reduce`, `reduce-scatter`, `all-to-all` and `collective-permute`.
//!
//! Maps index the data of the replica executing the op. When a replica
//! group is one device, each op reads its own operand as a plain op would
//! (an identity, exact). Over larger groups, what an output reads may depend
//! on the executing replica's position in its group, which is not known
//! statically: that position becomes a range variable, the map is the union
//! over every position (sound), and it is marked conservative. Which replica
//! of the group holds the element read is the replica map, as for
//! `all-gather`.

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::attrs::AttrValue;
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use crate::ops::Unsupported;
use arith::Expr;
use indexing::IndexingMap;

/// The size of the op's replica groups, when `replica_groups=` lists them
/// (all of one size); `None` when it does not (every replica, a number the
/// module does not say).
fn group_size(op: &Op) -> Result<Option<i64>, Unsupported> {
    match op.instr.attrs.get("replica_groups") {
        Some(AttrValue::IntLists(groups)) if !groups.is_empty() => {
            let g = groups[0].len();
            if g == 0 || groups.iter().any(|x| x.len() != g) {
                return Err(AnalysisError::invalid(format!(
                    "`{}` has replica groups of different (or no) sizes",
                    op.instr.name
                )));
            }
            Ok(Some(g as i64))
        }
        _ => Ok(None),
    }
}

/// Checks that output `j` has operand `j`'s shape for every operand.
fn same_shapes(op: &Op) -> Result<(), Unsupported> {
    let n = op.num_operands();
    if op.instr.shape.output_count() != n {
        return Err(AnalysisError::invalid(format!(
            "`{}` has {n} operands but {} outputs",
            op.instr.name,
            op.instr.shape.output_count()
        )));
    }
    for k in 0..n {
        if op.operand_dims(k)? != op.output_dims(k)? {
            return Err(AnalysisError::invalid(format!(
                "output {k} of `{}` does not have operand {k}'s shape",
                op.instr.name
            )));
        }
    }
    Ok(())
}

/// A map over `dims` into every index of a group of `g` replicas.
fn every_replica(dims: &[i64], g: i64) -> Result<IndexingMap, Unsupported> {
    let mut b = MapBuilder::over(dims);
    let r = b.symbol(g);
    b.build(vec![r])
}

/// Output `output` reads only operand `output`, through `map`; the other
/// operands not at all.
fn only_operand(n: usize, output: usize, map: OperandMap) -> Vec<OperandIndexing> {
    let mut maps = vec![OperandIndexing::Maps(Vec::new()); n];
    maps[output] = OperandIndexing::Maps(vec![map]);
    maps
}

/// `all-reduce`: output `j` is the reduction of operand `j` at the same
/// index over every replica of the group: an identity (exact), with a
/// replica map over the whole group when it has more than one replica.
pub(crate) fn all_reduce_output_to_input(op: &Op, output: usize) -> OpMaps {
    same_shapes(op)?;
    let dims = op.output_dims(output)?;
    let mut map = OperandMap::plain(IndexingMap::identity(dims));
    match group_size(op)? {
        Some(g) if g > 1 => map.replica = Some(every_replica(dims, g)?),
        _ => {}
    }
    Ok(only_operand(op.num_operands(), output, map))
}

/// An operand element of `all-reduce` reaches output `input` at the same
/// index (exact).
pub(crate) fn all_reduce_input_to_output(op: &Op, input: usize) -> OpMaps {
    same_shapes(op)?;
    let dims = op.operand_dims(input)?;
    Ok(only_operand(
        op.num_operands(),
        input,
        OperandMap::plain(IndexingMap::identity(dims)),
    ))
}

/// (scattered dimension, output size along it, group size), checked: each
/// of the `g` replicas keeps block `position` of the reduced operand.
fn reduce_scatter_signature(op: &Op) -> Result<(usize, i64, i64), Unsupported> {
    let name = &op.instr.name;
    let n = op.num_operands();
    if op.instr.shape.output_count() != n {
        return Err(AnalysisError::invalid(format!(
            "reduce-scatter `{name}` has {n} operands but {} outputs",
            op.instr.shape.output_count()
        )));
    }
    let inp = op.operand_dims(0)?;
    let dims = check_dims(
        op.attr_ints("dimensions")?,
        inp.len(),
        "reduce-scatter dimensions",
    )?;
    let &[dim] = dims.as_slice() else {
        return Err(AnalysisError::invalid(format!(
            "reduce-scatter `{name}` needs one scattered dimension"
        )));
    };
    let out = op.output_dims(0)?;
    let block = out.get(dim).copied().unwrap_or(0);
    // A zero-size scattered dimension holds no element: any group size
    // fits, and the maps (of tensors without elements) are identities.
    let empty = block == 0 && inp.get(dim) == Some(&0);
    let shapes_agree = out.len() == inp.len()
        && (block > 0 && inp[dim] % block == 0 || empty)
        && (0..inp.len()).all(|i| i == dim || inp[i] == out[i]);
    let g = if block > 0 { inp[dim] / block } else { 1 };
    let mut ok = shapes_agree;
    for k in 1..n {
        ok &= op.operand_dims(k)? == inp && op.output_dims(k)? == out;
    }
    if !ok {
        return Err(AnalysisError::invalid(format!(
            "reduce-scatter `{name}`: {inp:?} does not scatter into {out:?} along dimension {dim}"
        )));
    }
    if let Some(listed) = group_size(op)? {
        if listed != g && !empty {
            return Err(AnalysisError::invalid(format!(
                "reduce-scatter `{name}`: replica groups of {g} replicas are needed for {out:?}"
            )));
        }
    }
    Ok((dim, block, g))
}

/// `reduce-scatter`: output `o` on the replica at position `p` of its group
/// reads operand `o` with `p * block + o_d` along the scattered dimension,
/// on every replica of the group. One replica: an identity (exact); more:
/// `p` is a range variable (conservative).
pub(crate) fn reduce_scatter_output_to_input(op: &Op, output: usize) -> OpMaps {
    let (dim, block, g) = reduce_scatter_signature(op)?;
    let out = op.output_dims(output)?;
    let map = if g == 1 {
        OperandMap::plain(IndexingMap::identity(out))
    } else {
        let mut b = MapBuilder::over(out);
        let position = b.symbol(g);
        let mut results = b.dims();
        results[dim] = position * block + b.dim(dim);
        let mut m = OperandMap::conservative(
            b.build(results)?,
            format!("reduce-scatter over {g} replicas: the block kept depends on the executing replica's position in its group; every block"),
        );
        m.replica = Some(every_replica(out, g)?);
        m
    };
    Ok(only_operand(op.num_operands(), output, map))
}

/// An operand element `i` of `reduce-scatter` reaches output index
/// `i_d mod block` on the replica at position `i_d / block` (exact).
pub(crate) fn reduce_scatter_input_to_output(op: &Op, input: usize) -> OpMaps {
    let (dim, block, g) = reduce_scatter_signature(op)?;
    let inp = op.operand_dims(input)?;
    let map = if g == 1 {
        OperandMap::plain(IndexingMap::identity(inp))
    } else {
        let b = MapBuilder::over(inp);
        let mut results = b.dims();
        results[dim] = Expr::floor_mod(b.dim(dim), Expr::int(block));
        let mut m = OperandMap::plain(b.build(results)?);
        m.replica = Some(b.build(vec![Expr::floor_div(b.dim(dim), Expr::int(block))])?);
        m
    };
    Ok(only_operand(op.num_operands(), input, map))
}

/// The form of an `all-to-all`.
enum AllToAll {
    /// One array split along `dim` into `g` chunks of `chunk`, one per
    /// replica, the received chunks concatenated along `dim`.
    Array { dim: usize, chunk: i64, g: i64 },
    /// `g` operands, operand `k` sent to replica `k`; output `j` is what
    /// replica `j` sent.
    Tuple { g: i64 },
}

fn all_to_all_signature(op: &Op) -> Result<AllToAll, Unsupported> {
    let name = &op.instr.name;
    same_shapes(op)?;
    let n = op.num_operands() as i64;
    let g = group_size(op)?;
    match op.instr.attrs.ints("dimensions") {
        Some(d) => {
            let inp = op.operand_dims(0)?;
            let dims = check_dims(d, inp.len(), "all-to-all dimensions")?;
            let (&[dim], 1) = (dims.as_slice(), n) else {
                return Err(AnalysisError::unsupported(format!(
                    "all-to-all `{name}`: only one array split along one dimension is supported"
                )));
            };
            let Some(g) = g else {
                return Err(AnalysisError::unsupported(format!(
                    "all-to-all `{name}` has no `replica_groups=`: the number of chunks is unknown"
                )));
            };
            if inp[dim] % g != 0 {
                return Err(AnalysisError::invalid(format!(
                    "all-to-all `{name}`: dimension {dim} ({}) does not split into {g} chunks",
                    inp[dim]
                )));
            }
            // A zero-size split dimension holds no element: an identity.
            let g = if inp[dim] == 0 { 1 } else { g };
            Ok(AllToAll::Array {
                dim,
                chunk: inp[dim] / g,
                g,
            })
        }
        None => {
            if g.is_some_and(|g| g != n) {
                return Err(AnalysisError::invalid(format!(
                    "all-to-all `{name}` has {n} operands for groups of {} replicas",
                    g.unwrap_or(0)
                )));
            }
            Ok(AllToAll::Tuple { g: n })
        }
    }
}

/// `all-to-all`. Array form: output `o` on the replica at position `p`
/// holds chunk `p` of the operand of replica `o_d / chunk`, at `p * chunk +
/// o_d mod chunk`; `p` is a range variable (conservative) unless the group
/// is one replica (identity, exact). Tuple form: output `j` holds operand
/// `p` of replica `j`, at the same index: every operand, identity
/// (conservative unless the group is one replica).
pub(crate) fn all_to_all_output_to_input(op: &Op, output: usize) -> OpMaps {
    let out = op.output_dims(output)?;
    match all_to_all_signature(op)? {
        AllToAll::Array { g: 1, .. } | AllToAll::Tuple { g: 1 } => {
            Ok(vec![OperandIndexing::single(IndexingMap::identity(out))])
        }
        AllToAll::Array { dim, chunk, g } => {
            let mut b = MapBuilder::over(out);
            let position = b.symbol(g);
            let mut results = b.dims();
            results[dim] = position * chunk + Expr::floor_mod(b.dim(dim), Expr::int(chunk));
            let mut m = OperandMap::conservative(
                b.build(results)?,
                format!("all-to-all over {g} replicas: the chunk received depends on the executing replica's position in its group; every chunk"),
            );
            m.replica = Some(b.build(vec![Expr::floor_div(b.dim(dim), Expr::int(chunk))])?);
            Ok(vec![OperandIndexing::Maps(vec![m])])
        }
        AllToAll::Tuple { g } => {
            let b = MapBuilder::over(out);
            let replica = b.build(vec![Expr::int(output as i64)])?;
            Ok((0..op.num_operands())
                .map(|_| {
                    let mut m = OperandMap::conservative(
                        IndexingMap::identity(out),
                        format!("all-to-all over {g} replicas: output {output} holds the operand whose number is the executing replica's position; every operand"),
                    );
                    m.replica = Some(replica.clone());
                    OperandIndexing::Maps(vec![m])
                })
                .collect())
        }
    }
}

/// `all-to-all`, input to output. Array form: operand element `i` reaches,
/// on replica `i_d / chunk`, output `p * chunk + i_d mod chunk` for the
/// executing replica's position `p` (a range variable, conservative).
/// Tuple form: operand `k` reaches output `p` of replica `k` at the same
/// index: every output (conservative).
pub(crate) fn all_to_all_input_to_output(op: &Op, input: usize) -> OpMaps {
    let inp = op.operand_dims(input)?;
    match all_to_all_signature(op)? {
        AllToAll::Array { g: 1, .. } | AllToAll::Tuple { g: 1 } => {
            Ok(vec![OperandIndexing::single(IndexingMap::identity(inp))])
        }
        AllToAll::Array { dim, chunk, g } => {
            let mut b = MapBuilder::over(inp);
            let position = b.symbol(g);
            let mut results = b.dims();
            results[dim] = position * chunk + Expr::floor_mod(b.dim(dim), Expr::int(chunk));
            let mut m = OperandMap::conservative(
                b.build(results)?,
                format!("all-to-all over {g} replicas: where a chunk lands depends on the executing replica's position in its group; every chunk"),
            );
            m.replica = Some(b.build(vec![Expr::floor_div(b.dim(dim), Expr::int(chunk))])?);
            Ok(vec![OperandIndexing::Maps(vec![m])])
        }
        AllToAll::Tuple { g } => {
            let b = MapBuilder::over(inp);
            let replica = b.build(vec![Expr::int(input as i64)])?;
            Ok((0..op.num_operands())
                .map(|_| {
                    let mut m = OperandMap::conservative(
                        IndexingMap::identity(inp),
                        format!("all-to-all over {g} replicas: operand {input} lands in the output whose number is the executing replica's position; every output"),
                    );
                    m.replica = Some(replica.clone());
                    OperandIndexing::Maps(vec![m])
                })
                .collect())
        }
    }
}

/// Whether every `source_target_pairs` pair of a `collective-permute`
/// sends a replica's data to itself.
fn permutes_in_place(op: &Op) -> Result<bool, Unsupported> {
    let name = &op.instr.name;
    let pairs = op.instr.attrs.raw("source_target_pairs").ok_or_else(|| {
        AnalysisError::invalid(format!(
            "collective-permute `{name}` has no `source_target_pairs=`"
        ))
    })?;
    let numbers: Vec<&str> = pairs
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .collect();
    if !numbers.len().is_multiple_of(2) {
        return Err(AnalysisError::invalid(format!(
            "collective-permute `{name}`: `source_target_pairs={pairs}` is not a list of pairs"
        )));
    }
    Ok(numbers.chunks(2).all(|p| p[0] == p[1]))
}

fn collective_permute_maps(op: &Op, k: usize, dims: &[i64]) -> OpMaps {
    if op.num_operands() != op.instr.shape.output_count() {
        return Err(AnalysisError::unsupported(format!(
            "collective-permute `{}` with {} operands and {} outputs (the in-place form) is not supported",
            op.instr.name,
            op.num_operands(),
            op.instr.shape.output_count()
        )));
    }
    same_shapes(op)?;
    let identity = IndexingMap::identity(dims);
    let map = if permutes_in_place(op)? {
        OperandMap::plain(identity)
    } else {
        OperandMap::conservative(
            identity,
            "collective-permute: the output holds the operand of the replica that sends to the executing one, or zeros when none does",
        )
    };
    Ok(only_operand(op.num_operands(), k, map))
}

/// `collective-permute`: output `j` is operand `j` of the replica sending
/// to this one, at the same index. Every pair sending to itself: an
/// identity (exact); otherwise an identity marked conservative (a replica
/// no pair targets reads nothing).
pub(crate) fn collective_permute_output_to_input(op: &Op, output: usize) -> OpMaps {
    let dims = op.output_dims(output)?;
    collective_permute_maps(op, output, dims)
}

/// A `collective-permute` operand element reaches the same index of the
/// output (of the target replica).
pub(crate) fn collective_permute_input_to_output(op: &Op, input: usize) -> OpMaps {
    let dims = op.operand_dims(input)?;
    collective_permute_maps(op, input, dims)
}
