//! `sort` (one or several operands) and `topk` (the op, and the `TopK`
//! custom call, which [`super::custom_call`] maps here).
//!
//! Both permute data within one dimension by comparing values, so where an
//! element lands there depends on the data. The maps are the sound hull of
//! every permutation: identity on the other dimensions, the whole sorted
//! dimension (a range variable) on it, and they are marked conservative.
//! Every operand of a sort is in the hull of every output, because the
//! comparator may read any of them to order the rest.

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use crate::ops::Unsupported;
use indexing::IndexingMap;

/// Why a sort's map over-approximates.
const SORT_REASON: &str =
    "sort: where an element lands in the sorted dimension depends on the values compared; every position of that dimension";
/// Why a top-k's map over-approximates.
const TOPK_REASON: &str =
    "top-k: which elements of the last dimension are the largest depends on their values; every element of that dimension";

/// (sorted dimension, shape shared by every operand and output), checked.
fn sort_signature<'a>(op: &Op<'a>) -> Result<(usize, &'a [i64]), Unsupported> {
    let name = &op.instr.name;
    let n = op.num_operands();
    if n == 0 || op.instr.shape.output_count() != n {
        return Err(AnalysisError::invalid(format!(
            "sort `{name}` has {n} operands but {} outputs",
            op.instr.shape.output_count()
        )));
    }
    let dims = op.operand_dims(0)?;
    for k in 0..n {
        if op.operand_dims(k)? != dims || op.output_dims(k)? != dims {
            return Err(AnalysisError::invalid(format!(
                "the operands and outputs of sort `{name}` differ in shape; all must be {dims:?}"
            )));
        }
    }
    let sorted = check_dims(op.attr_ints("dimensions")?, dims.len(), "sort dimensions")?;
    let &[dim] = sorted.as_slice() else {
        return Err(AnalysisError::invalid(format!(
            "sort `{name}` needs one sorted dimension"
        )));
    };
    Ok((dim, dims))
}

/// From `dims` to the same index with dimension `dim` replaced by every
/// position of a dimension of size `size`.
fn whole_dimension(dims: &[i64], dim: usize, size: i64) -> Result<IndexingMap, Unsupported> {
    let mut b = MapBuilder::over(dims);
    let mut results = b.dims();
    results[dim] = b.symbol(size);
    b.build(results)
}

/// Output `j` at index `o` holds an element of operand `j` from the row of
/// `o` along the sorted dimension, placed by a comparator that may read the
/// same row of every operand: every operand, the whole row (conservative).
pub(crate) fn sort_output_to_input(op: &Op, output: usize) -> OpMaps {
    let (dim, dims) = sort_signature(op)?;
    if output >= op.num_operands() {
        return Err(AnalysisError::invalid(format!(
            "sort `{}` has no output {output}",
            op.instr.name
        )));
    }
    let map = whole_dimension(dims, dim, dims[dim])?;
    Ok((0..op.num_operands())
        .map(|_| OperandIndexing::Maps(vec![OperandMap::conservative(map.clone(), SORT_REASON)]))
        .collect())
}

/// An operand element reaches, in every output, the positions of its row
/// along the sorted dimension (conservative).
pub(crate) fn sort_input_to_output(op: &Op) -> OpMaps {
    let (dim, dims) = sort_signature(op)?;
    let map = whole_dimension(dims, dim, dims[dim])?;
    Ok((0..op.num_operands())
        .map(|_| OperandIndexing::Maps(vec![OperandMap::conservative(map.clone(), SORT_REASON)]))
        .collect())
}

/// (operand shape, k), checked: a top-k of an operand `[B.., N]` has two
/// outputs `[B.., k]` (the values and their positions).
fn topk_signature<'a>(op: &Op<'a>) -> Result<(&'a [i64], i64), Unsupported> {
    let name = &op.instr.name;
    if op.num_operands() != 1 || op.instr.shape.output_count() != 2 {
        return Err(AnalysisError::invalid(format!(
            "top-k `{name}` needs one operand and two outputs (values, indices)"
        )));
    }
    let inp = op.operand_dims(0)?;
    let values = op.output_dims(0)?;
    let indices = op.output_dims(1)?;
    let Some((&k, batch)) = values.split_last() else {
        return Err(AnalysisError::invalid(format!(
            "top-k `{name}` of a scalar"
        )));
    };
    let agrees = values == indices
        && inp.len() == values.len()
        && inp[..batch.len()] == *batch
        && k <= inp[batch.len()];
    if !agrees {
        return Err(AnalysisError::invalid(format!(
            "top-k `{name}`: {inp:?} does not give outputs {values:?} and {indices:?}"
        )));
    }
    if let Some(attr) = op.instr.attrs.raw("k") {
        if attr.parse::<i64>().ok() != Some(k) {
            return Err(AnalysisError::invalid(format!(
                "top-k `{name}`: k={attr} but the outputs hold {k} elements per row"
            )));
        }
    }
    Ok((inp, k))
}

/// Output `(b.., i)` (a value or its position) is one element of row
/// `b..` of the operand: the whole last dimension (conservative).
pub(crate) fn topk_output_to_input(op: &Op, output: usize) -> OpMaps {
    let (inp, _) = topk_signature(op)?;
    let out = op.output_dims(output)?;
    let last = inp.len() - 1;
    let map = whole_dimension(out, last, inp[last])?;
    Ok(vec![OperandIndexing::Maps(vec![OperandMap::conservative(
        map,
        TOPK_REASON,
    )])])
}

/// An operand element reaches any of the `k` positions of its row in both
/// outputs, or none (conservative).
pub(crate) fn topk_input_to_output(op: &Op) -> OpMaps {
    let (inp, k) = topk_signature(op)?;
    let last = inp.len() - 1;
    let map = whole_dimension(inp, last, k)?;
    Ok(vec![
        OperandIndexing::Maps(vec![OperandMap::conservative(map.clone(), TOPK_REASON)]),
        OperandIndexing::Maps(vec![OperandMap::conservative(map, TOPK_REASON)]),
    ])
}
