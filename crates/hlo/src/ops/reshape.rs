//! `reshape` and `bitcast`.
//!
//! A reshape splits into groups of consecutive dimensions whose sizes
//! multiply to the same number on both sides; inside each group the index
//! is linearised on one side and delinearised on the other (a collapse, an
//! expand, or both). A bitcast is a transpose to physical order, a reshape
//! of the physical shapes, and a transpose back (XLA's
//! transpose-reshape-transpose decomposition).

use super::builder::MapBuilder;
use super::layout::{logical_of_physical, physical_order};
use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use crate::shape::ArrayShape;
use arith::Expr;

/// Indices into a tensor of shape `to` that hold the same element as the
/// row-major index `index` of a tensor of shape `from` (same element count).
pub(crate) fn reshape_index(
    from: &[i64],
    to: &[i64],
    index: &[Expr],
) -> Result<Vec<Expr>, Unsupported> {
    let mut out = Vec::with_capacity(to.len());
    let (mut i, mut j) = (0, 0);
    let mismatch = || {
        AnalysisError::invalid(format!(
            "cannot reshape {from:?} into {to:?}: element counts differ"
        ))
    };
    while i < from.len() || j < to.len() {
        // The smallest group [i0, i) x [j0, j) with equal products.
        let (i0, j0) = (i, j);
        let (mut pf, mut pt) = (1i64, 1i64);
        if i < from.len() {
            pf = from[i];
            i += 1;
        }
        if j < to.len() {
            pt = to[j];
            j += 1;
        }
        while pf != pt {
            if pf < pt {
                let &n = from.get(i).ok_or_else(mismatch)?;
                pf = pf
                    .checked_mul(n)
                    .ok_or_else(|| AnalysisError::composition("shape size overflows"))?;
                i += 1;
            } else {
                let &n = to.get(j).ok_or_else(mismatch)?;
                pt = pt
                    .checked_mul(n)
                    .ok_or_else(|| AnalysisError::composition("shape size overflows"))?;
                j += 1;
            }
        }
        // Linearise the source group.
        let mut linear = Expr::int(0);
        for k in i0..i {
            linear = linear * from[k] + index[k].clone();
        }
        // Delinearise into the target group, minor dimension last.
        let mut stride = 1i64;
        let mut group = Vec::with_capacity(j - j0);
        for k in (j0..j).rev() {
            let mut e = if stride == 1 {
                linear.clone()
            } else {
                Expr::floor_div(linear.clone(), Expr::int(stride))
            };
            if k > j0 {
                e = Expr::floor_mod(e, Expr::int(to[k]));
            }
            group.push(e);
            stride = stride
                .checked_mul(to[k])
                .ok_or_else(|| AnalysisError::composition("shape size overflows"))?;
        }
        group.reverse();
        out.extend(group);
    }
    Ok(out)
}

fn element_count(dims: &[i64]) -> Result<i64, Unsupported> {
    dims.iter()
        .try_fold(1i64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| AnalysisError::composition("shape size overflows"))
}

fn reshape_map(from: &[i64], to: &[i64], name: &str) -> Result<OperandIndexing, Unsupported> {
    let (nf, nt) = (element_count(from)?, element_count(to)?);
    if nf != nt {
        return Err(AnalysisError::invalid(format!(
            "`{name}` reshapes {from:?} ({nf} elements) into {to:?} ({nt} elements)"
        )));
    }
    if nf == 0 {
        return Ok(OperandIndexing::single(indexing::IndexingMap::known_empty(
            from.len(),
            to.len(),
        )));
    }
    let b = MapBuilder::over(from);
    Ok(OperandIndexing::single(b.build(reshape_index(
        from,
        to,
        &b.dims(),
    )?)?))
}

/// Output index to operand index through the row-major order.
pub(crate) fn reshape_output_to_input(op: &Op) -> OpMaps {
    Ok(vec![reshape_map(
        op.output_dims(0)?,
        op.operand_dims(0)?,
        &op.instr.name,
    )?])
}

/// Operand index to output index through the row-major order.
pub(crate) fn reshape_input_to_output(op: &Op) -> OpMaps {
    Ok(vec![reshape_map(
        op.operand_dims(0)?,
        op.output_dims(0)?,
        &op.instr.name,
    )?])
}

/// Maps logical indices of `from` to logical indices of `to` for a bitcast
/// (same bytes, so the same physical row-major order).
fn bitcast_map(
    from: &ArrayShape,
    to: &ArrayShape,
    name: &str,
) -> Result<OperandIndexing, Unsupported> {
    let (nf, nt) = (element_count(&from.dims)?, element_count(&to.dims)?);
    if nf != nt {
        return Err(AnalysisError::invalid(format!(
            "bitcast `{name}` changes the element count ({nf} to {nt})"
        )));
    }
    if nf == 0 {
        return Ok(OperandIndexing::single(indexing::IndexingMap::known_empty(
            from.rank(),
            to.rank(),
        )));
    }
    let b = MapBuilder::over(&from.dims);
    let from_order = physical_order(from);
    let to_order = physical_order(to);
    let from_physical_dims: Vec<i64> = from_order.iter().map(|&l| from.dims[l]).collect();
    let to_physical_dims: Vec<i64> = to_order.iter().map(|&l| to.dims[l]).collect();
    // Tiles move elements: the untiled reshape below is right only when
    // both sides tile the same physical shape the same way.
    let tiled = !from.tiles.is_empty() || !to.tiles.is_empty();
    if tiled && (from.tiles != to.tiles || from_physical_dims != to_physical_dims) {
        return Err(AnalysisError::unsupported(format!(
            "bitcast `{name}` between tiled layouts `{from}` and `{to}` that tile \
             different physical shapes"
        )));
    }
    let physical_index: Vec<Expr> = from_order.iter().map(|&l| b.dim(l)).collect();
    let to_physical = reshape_index(&from_physical_dims, &to_physical_dims, &physical_index)?;
    let results = logical_of_physical(&to_order, to_physical);
    Ok(OperandIndexing::single(b.build(results)?))
}

fn array<'a>(op: &Op<'a>, shape: &'a crate::shape::Shape) -> Result<&'a ArrayShape, Unsupported> {
    shape
        .as_array()
        .ok_or_else(|| AnalysisError::invalid(format!("bitcast `{}` of a tuple", op.instr.name)))
}

/// Output index to operand index through the physical layouts.
pub(crate) fn bitcast_output_to_input(op: &Op) -> OpMaps {
    let out = array(op, &op.instr.shape)?;
    let inp = array(op, &op.operand(0).shape)?;
    Ok(vec![bitcast_map(out, inp, &op.instr.name)?])
}

/// Operand index to output index through the physical layouts.
pub(crate) fn bitcast_input_to_output(op: &Op) -> OpMaps {
    let out = array(op, &op.instr.shape)?;
    let inp = array(op, &op.operand(0).shape)?;
    Ok(vec![bitcast_map(inp, out, &op.instr.name)?])
}
