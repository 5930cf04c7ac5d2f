//! `pad`: low, high and interior padding. Output-to-input is the inverse of
//! a strided slice: a `mod` constraint selects the non-padding elements.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::attrs::PadDim;
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use arith::Expr;
use indexing::Interval;

/// Operand element `k` sits at output `low + k * (interior + 1)`; the
/// padding value is read for every output element.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (inp, out, spec) = signature(op)?;
    let mut b = MapBuilder::over(out);
    let mut results = Vec::with_capacity(out.len());
    for (i, p) in spec.iter().enumerate() {
        // `signature` checked that these sums fit: they are bounded by the sizes.
        let step = p.interior + 1;
        let last = p.low + (inp[i] - 1) * step;
        b.restrict_dim(i, Interval::new(p.low.max(0), last.min(out[i] - 1)));
        let offset = b.dim(i) - p.low;
        if step > 1 {
            b.constrain(
                Expr::floor_mod(offset.clone(), Expr::int(step)),
                Interval::point(0),
            );
            results.push(Expr::floor_div(offset, Expr::int(step)));
        } else {
            results.push(offset);
        }
    }
    let operand = b.build(results)?;
    let value = MapBuilder::over(out).to_scalar()?;
    Ok(vec![
        OperandIndexing::single(operand),
        OperandIndexing::single(value),
    ])
}

/// Operand element `k` lands at `low + k * (interior + 1)` when that is
/// inside the output (negative padding cuts elements off); the padding
/// value reaches every output element.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let (inp, out, spec) = signature(op)?;
    if input == 1 {
        let mut b = MapBuilder::over(&[]);
        let results = out.iter().map(|&n| b.symbol(n)).collect();
        return Ok(vec![OperandIndexing::single(b.build(results)?)]);
    }
    let mut b = MapBuilder::over(inp);
    let mut results = Vec::with_capacity(out.len());
    for (i, p) in spec.iter().enumerate() {
        let r = b.dim(i) * (p.interior + 1) + p.low;
        b.constrain(r.clone(), Interval::of_size(out[i]));
        results.push(r);
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// (operand shape, output shape, padding per dimension), checked.
type PadSignature<'a> = (&'a [i64], &'a [i64], &'a [PadDim]);

fn signature<'a>(op: &Op<'a>) -> Result<PadSignature<'a>, Unsupported> {
    let inp = op.operand_dims(0)?;
    let out = op.output_dims(0)?;
    if op.num_operands() != 2 || !op.operand_dims(1)?.is_empty() {
        return Err(AnalysisError::invalid(format!(
            "pad `{}` needs an operand and a scalar padding value",
            op.instr.name
        )));
    }
    let spec = op.instr.attrs.padding().ok_or_else(|| {
        AnalysisError::invalid(format!("pad `{}` has no `padding=`", op.instr.name))
    })?;
    if spec.len() != inp.len() || out.len() != inp.len() {
        return Err(AnalysisError::invalid(format!(
            "pad `{}`: `padding=` has {} dimensions, the operand {}",
            op.instr.name,
            spec.len(),
            inp.len()
        )));
    }
    for (i, p) in spec.iter().enumerate() {
        let inner = if inp[i] == 0 {
            Some(0)
        } else {
            (inp[i] - 1)
                .checked_mul(p.interior)
                .and_then(|x| x.checked_add(inp[i]))
        };
        let total = inner
            .and_then(|x| x.checked_add(p.low))
            .and_then(|x| x.checked_add(p.high));
        if p.interior < 0 || p.interior == i64::MAX || total != Some(out[i]) {
            return Err(AnalysisError::invalid(format!(
                "pad `{}`: padding {}_{}_{} of {} elements does not give {}",
                op.instr.name, p.low, p.high, p.interior, inp[i], out[i]
            )));
        }
    }
    Ok((inp, out, spec))
}
