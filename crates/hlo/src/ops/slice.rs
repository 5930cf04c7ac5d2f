//! `slice`: a strided box. Output-to-input is affine; input-to-output
//! divides by the stride and keeps only the elements on the stride
//! (a `mod` constraint).

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::attrs::SliceDim;
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use arith::Expr;
use indexing::Interval;

/// `(d) -> (d * stride + start)` per dimension.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (out, spec) = signature(op)?;
    let b = MapBuilder::over(out);
    let results = spec
        .iter()
        .enumerate()
        .map(|(i, s)| b.dim(i) * s.stride + s.start)
        .collect();
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// `(d) -> ((d - start) / stride)` for `d` in `[start, start + (n-1)*stride]`
/// with `(d - start) mod stride == 0`.
pub(crate) fn input_to_output(op: &Op) -> OpMaps {
    let (out, spec) = signature(op)?;
    let inp = op.operand_dims(0)?;
    let mut b = MapBuilder::over(inp);
    let mut results = Vec::with_capacity(out.len());
    for (i, s) in spec.iter().enumerate() {
        // In range: the last taken index is below the limit checked in `signature`.
        let last = s.start + (out[i] - 1).max(0) * s.stride;
        b.restrict_dim(
            i,
            Interval::new(s.start, if out[i] == 0 { s.start - 1 } else { last }),
        );
        let offset = b.dim(i) - s.start;
        if s.stride > 1 {
            b.constrain(
                Expr::floor_mod(offset.clone(), Expr::int(s.stride)),
                Interval::point(0),
            );
        }
        results.push(Expr::floor_div(offset, Expr::int(s.stride)));
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

fn signature<'a>(op: &Op<'a>) -> Result<(&'a [i64], &'a [SliceDim]), Unsupported> {
    let out = op.output_dims(0)?;
    let inp = op.operand_dims(0)?;
    let spec = op.instr.attrs.slice().ok_or_else(|| {
        AnalysisError::invalid(format!(
            "slice `{}` has no `slice=` attribute",
            op.instr.name
        ))
    })?;
    if spec.len() != out.len() || inp.len() != out.len() {
        return Err(AnalysisError::invalid(format!(
            "slice `{}`: `slice=` has {} dimensions, the shapes {}",
            op.instr.name,
            spec.len(),
            out.len()
        )));
    }
    for (i, s) in spec.iter().enumerate() {
        let in_range = 0 <= s.start && s.start <= s.limit && s.limit <= inp[i];
        // Counted only once start and limit are inside the operand, so it cannot overflow.
        let taken = if in_range && s.limit > s.start {
            (s.limit - s.start - 1) / s.stride + 1
        } else {
            0
        };
        if !in_range || taken != out[i] {
            return Err(AnalysisError::invalid(format!(
                "slice `{}`: [{}:{}:{}] does not give {} elements of a dimension of {}",
                op.instr.name, s.start, s.limit, s.stride, out[i], inp[i]
            )));
        }
    }
    Ok((out, spec))
}
