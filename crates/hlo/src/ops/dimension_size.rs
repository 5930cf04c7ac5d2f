//! `get-dimension-size` and `set-dimension-size`, the ops of dynamic
//! shapes.
//!
//! `get-dimension-size(x), dimensions={d}` returns the (dynamic) size of
//! dimension `d` of `x`: a property of the shape, not of any element, so
//! it reads no element of `x` (no map, exact).
//! `set-dimension-size(x, n), dimensions={d}` is `x` with dimension `d`'s
//! dynamic size set to the scalar `n`: each output element is `x`'s at the
//! same index (identity), and `n`, which decides whether the element is
//! within the dynamic bound, is read once for every output element.

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use indexing::IndexingMap;

fn checked_dimension(op: &Op, rank: usize) -> Result<(), Unsupported> {
    let dims = check_dims(op.attr_ints("dimensions")?, rank, "dimensions")?;
    if dims.len() != 1 {
        return Err(AnalysisError::invalid(format!(
            "`{}` needs one dimension",
            op.instr.name
        )));
    }
    Ok(())
}

/// `get-dimension-size` reads no element of its operand.
pub(crate) fn get_output_to_input(op: &Op) -> OpMaps {
    checked_dimension(op, op.operand_dims(0)?.len())?;
    Ok(vec![OperandIndexing::Maps(Vec::new())])
}

/// No element of the operand reaches the output of `get-dimension-size`.
pub(crate) fn get_input_to_output(op: &Op) -> OpMaps {
    checked_dimension(op, op.operand_dims(0)?.len())?;
    Ok(vec![OperandIndexing::Maps(Vec::new())])
}

fn set_signature<'a>(op: &Op<'a>) -> Result<&'a [i64], Unsupported> {
    let dims = op.operand_dims(0)?;
    checked_dimension(op, dims.len())?;
    if op.output_dims(0)? != dims || !op.operand_dims(1)?.is_empty() {
        return Err(AnalysisError::invalid(format!(
            "set-dimension-size `{}` needs a scalar size and an output of its operand's shape",
            op.instr.name
        )));
    }
    Ok(dims)
}

/// The operand at the same index; the size once per output element.
pub(crate) fn set_output_to_input(op: &Op) -> OpMaps {
    let dims = set_signature(op)?;
    Ok(vec![
        OperandIndexing::single(IndexingMap::identity(dims)),
        OperandIndexing::single(MapBuilder::over(dims).to_scalar()?),
    ])
}

/// An operand element reaches the same index; the size every element.
pub(crate) fn set_input_to_output(op: &Op, input: usize) -> OpMaps {
    let dims = set_signature(op)?;
    if input == 0 {
        Ok(vec![OperandIndexing::single(IndexingMap::identity(dims))])
    } else {
        let mut b = MapBuilder::over(&[]);
        let results = dims.iter().map(|&n| b.symbol(n)).collect();
        Ok(vec![OperandIndexing::single(b.build(results)?)])
    }
}
