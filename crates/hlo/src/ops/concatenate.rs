//! `concatenate`: each operand covers its own interval of the concatenated
//! dimension.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use indexing::Interval;

/// Operand `k` is read for output indices in `[offset_k, offset_k + size_k - 1]`
/// of the concatenated dimension, at `d - offset_k`.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (dim, offsets) = signature(op)?;
    let out = op.output_dims(0)?;
    (0..op.num_operands())
        .map(|k| {
            let size = op.operand_dims(k)?[dim];
            let mut b = MapBuilder::over(out);
            b.restrict_dim(dim, Interval::new(offsets[k], offsets[k] + size - 1));
            let mut results = b.dims();
            results[dim] = b.dim(dim) - offsets[k];
            Ok(OperandIndexing::single(b.build(results)?))
        })
        .collect()
}

/// Operand `k` lands at `d + offset_k`.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let (dim, offsets) = signature(op)?;
    let b = MapBuilder::over(op.operand_dims(input)?);
    let mut results = b.dims();
    results[dim] = b.dim(dim) + offsets[input];
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

fn signature(op: &Op) -> Result<(usize, Vec<i64>), Unsupported> {
    let out = op.output_dims(0)?;
    let dims = op.attr_ints("dimensions")?;
    let dim = match dims {
        [d] if *d >= 0 && (*d as usize) < out.len() => *d as usize,
        _ => {
            return Err(AnalysisError::invalid(format!(
                "concatenate `{}` needs one dimension in `dimensions=`",
                op.instr.name
            )))
        }
    };
    let mut offsets = Vec::with_capacity(op.num_operands());
    let mut total = 0i64;
    for k in 0..op.num_operands() {
        let d = op.operand_dims(k)?;
        if d.len() != out.len() || (0..out.len()).any(|i| i != dim && d[i] != out[i]) {
            return Err(AnalysisError::invalid(format!(
                "operand {k} of concatenate `{}` does not match the output shape",
                op.instr.name
            )));
        }
        offsets.push(total);
        total = total
            .checked_add(d[dim])
            .ok_or_else(|| AnalysisError::composition("concatenated size overflows"))?;
    }
    if total != out[dim] {
        return Err(AnalysisError::invalid(format!(
            "concatenate `{}`: the operands add up to {total}, the output has {}",
            op.instr.name, out[dim]
        )));
    }
    Ok((dim, offsets))
}
