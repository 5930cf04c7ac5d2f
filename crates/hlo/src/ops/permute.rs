//! `broadcast`, `transpose` and `reverse`: each result is one dimension
//! (possibly reversed), or a range variable for a broadcast dimension.

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use arith::Expr;

/// `bc = broadcast(x), dimensions={..}`: operand dimension `k` is output
/// dimension `dimensions[k]`.
pub(crate) fn broadcast_output_to_input(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let inp = op.operand_dims(0)?;
    let dims = broadcast_dims(op, out, inp)?;
    let b = MapBuilder::over(out);
    let results = dims.iter().map(|&d| b.dim(d)).collect();
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// Each operand element reaches every index of the added dimensions.
pub(crate) fn broadcast_input_to_output(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let inp = op.operand_dims(0)?;
    let dims = broadcast_dims(op, out, inp)?;
    let mut b = MapBuilder::over(inp);
    let mut results = Vec::with_capacity(out.len());
    for (i, &n) in out.iter().enumerate() {
        match dims.iter().position(|&d| d == i) {
            Some(k) => results.push(b.dim(k)),
            None => results.push(b.symbol(n)),
        }
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

fn broadcast_dims(op: &Op, out: &[i64], inp: &[i64]) -> Result<Vec<usize>, Unsupported> {
    // A scalar broadcast may omit `dimensions={}`.
    let listed = op.instr.attrs.ints("dimensions").unwrap_or(&[]);
    let dims = check_dims(listed, out.len(), "broadcast dimensions")?;
    if dims.len() != inp.len() || dims.iter().zip(inp).any(|(&d, &n)| out[d] != n) {
        return Err(AnalysisError::invalid(format!(
            "broadcast `{}`: dimensions={dims:?} do not match operand {inp:?} and output {out:?}",
            op.instr.name
        )));
    }
    Ok(dims)
}

/// `transpose(x), dimensions=perm`: output dimension `i` is operand
/// dimension `perm[i]`.
pub(crate) fn transpose_output_to_input(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let perm = permutation(op, out)?;
    let b = MapBuilder::over(out);
    let mut results = vec![Expr::int(0); out.len()];
    for (i, &p) in perm.iter().enumerate() {
        results[p] = b.dim(i);
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// The inverse permutation.
pub(crate) fn transpose_input_to_output(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let perm = permutation(op, out)?;
    let b = MapBuilder::over(op.operand_dims(0)?);
    let results = perm.iter().map(|&p| b.dim(p)).collect();
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

fn permutation(op: &Op, out: &[i64]) -> Result<Vec<usize>, Unsupported> {
    let inp = op.operand_dims(0)?;
    let perm = check_dims(
        op.attr_ints("dimensions")?,
        out.len(),
        "transpose dimensions",
    )?;
    if perm.len() != out.len()
        || inp.len() != out.len()
        || perm.iter().enumerate().any(|(i, &p)| inp[p] != out[i])
    {
        return Err(AnalysisError::invalid(format!(
            "transpose `{}`: dimensions={perm:?} do not permute {inp:?} into {out:?}",
            op.instr.name
        )));
    }
    Ok(perm)
}

/// `reverse(x), dimensions=..`: reversed dimension `i` reads `size - 1 - d_i`.
pub(crate) fn reverse_output_to_input(op: &Op) -> OpMaps {
    reverse(op)
}

/// Reverse is its own inverse.
pub(crate) fn reverse_input_to_output(op: &Op) -> OpMaps {
    reverse(op)
}

fn reverse(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    if op.operand_dims(0)? != out {
        return Err(AnalysisError::invalid(format!(
            "reverse `{}` changes the shape",
            op.instr.name
        )));
    }
    let rev = check_dims(op.attr_ints("dimensions")?, out.len(), "reverse dimensions")?;
    let b = MapBuilder::over(out);
    let results = (0..out.len())
        .map(|i| {
            if rev.contains(&i) {
                Expr::int(out[i] - 1) - b.dim(i)
            } else {
                b.dim(i)
            }
        })
        .collect();
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}
