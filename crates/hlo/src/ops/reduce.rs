//! Variadic `reduce`: reduced dimensions become range variables; the init
//! values are scalars read once per output element.

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;

/// `reduce(x_1..x_n, init_1..init_n), dimensions=..` for output `output`:
/// every input is read at the output index with the reduced dimensions
/// enumerated (in increasing dimension order); every init once.
pub(crate) fn output_to_input(op: &Op, output: usize) -> OpMaps {
    let (n, reduced, inp) = reduce_signature(op)?;
    let out = op.output_dims(output)?;
    let mut b = MapBuilder::over(out);
    let mut results = Vec::with_capacity(inp.len());
    let mut next_out = 0;
    for (i, &size) in inp.iter().enumerate() {
        if reduced.contains(&i) {
            results.push(b.symbol(size));
        } else {
            results.push(b.dim(next_out));
            next_out += 1;
        }
    }
    let input_map = b.build(results)?;
    let init_map = b.to_scalar()?;
    let mut maps = vec![OperandIndexing::single(input_map); n];
    maps.extend(std::iter::repeat_n(OperandIndexing::single(init_map), n));
    Ok(maps)
}

/// An input element feeds the output element at its kept dimensions (of
/// every output); an init value feeds every output element.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let (n, reduced, inp) = reduce_signature(op)?;
    (0..n)
        .map(|j| {
            let out = op.output_dims(j)?;
            if input < n {
                let b = MapBuilder::over(inp);
                let results = (0..inp.len())
                    .filter(|i| !reduced.contains(i))
                    .map(|i| b.dim(i))
                    .collect();
                Ok(OperandIndexing::single(b.build(results)?))
            } else {
                let mut b = MapBuilder::over(&[]);
                let results = out.iter().map(|&s| b.symbol(s)).collect();
                Ok(OperandIndexing::single(b.build(results)?))
            }
        })
        .collect()
}

/// (number of inputs, reduced dimensions, input shape), checked.
fn reduce_signature<'a>(op: &Op<'a>) -> Result<(usize, Vec<usize>, &'a [i64]), Unsupported> {
    let total = op.num_operands();
    if total == 0 || !total.is_multiple_of(2) {
        return Err(AnalysisError::invalid(format!(
            "reduce `{}` needs as many inits as inputs",
            op.instr.name
        )));
    }
    let n = total / 2;
    let inp = op.operand_dims(0)?;
    for k in 1..n {
        if op.operand_dims(k)? != inp {
            return Err(AnalysisError::invalid(format!(
                "the inputs of reduce `{}` differ in shape",
                op.instr.name
            )));
        }
    }
    for k in n..total {
        if !op.operand_dims(k)?.is_empty() {
            return Err(AnalysisError::invalid(format!(
                "init {} of reduce `{}` is not a scalar",
                k - n,
                op.instr.name
            )));
        }
    }
    let reduced = check_dims(op.attr_ints("dimensions")?, inp.len(), "reduce dimensions")?;
    let kept: Vec<i64> = (0..inp.len())
        .filter(|i| !reduced.contains(i))
        .map(|i| inp[i])
        .collect();
    for j in 0..op.instr.shape.output_count() {
        if op.output_dims(j)? != kept.as_slice() {
            return Err(AnalysisError::invalid(format!(
                "output {j} of reduce `{}` does not have the kept dimensions {kept:?}",
                op.instr.name
            )));
        }
    }
    if op.instr.shape.output_count() != n {
        return Err(AnalysisError::invalid(format!(
            "reduce `{}` has {n} inputs but {} outputs",
            op.instr.name,
            op.instr.shape.output_count()
        )));
    }
    Ok((n, reduced, inp))
}
