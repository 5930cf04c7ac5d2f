//! `opt-barrier`: passes its operand (usually a tuple) through unchanged,
//! only fencing XLA's scheduling. Output element `k` is tuple element `k`
//! of the operand at the same index (exact).

use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use crate::shape::Shape;
use indexing::IndexingMap;

/// Output `output` reads tuple element `output` of the operand (the
/// operand itself when it is an array) at the same index.
pub(crate) fn output_to_input(op: &Op, output: usize) -> OpMaps {
    let dims = op.output_dims(output)?;
    let mut map = OperandMap::plain(IndexingMap::identity(dims));
    if matches!(op.operand(0).shape, Shape::Tuple(_)) {
        map.element = Some(output);
    }
    Ok(vec![OperandIndexing::Maps(vec![map])])
}

/// An array operand reaches the output at the same index.
pub(crate) fn input_to_output(op: &Op) -> OpMaps {
    let dims = op.operand_dims(0)?;
    Ok(vec![OperandIndexing::single(IndexingMap::identity(dims))])
}

/// Tuple element `element` of the operand reaches output `element` at the
/// same index, and no other output.
pub(crate) fn element_input_to_output(op: &Op, element: usize) -> OpMaps {
    let n = op.instr.shape.output_count();
    if element >= n {
        return Err(AnalysisError::invalid(format!(
            "opt-barrier `{}` has no tuple element {element}",
            op.instr.name
        )));
    }
    let dims = op.output_dims(element)?;
    let mut maps = vec![OperandIndexing::Maps(Vec::new()); n];
    maps[element] = OperandIndexing::single(IndexingMap::identity(dims));
    Ok(maps)
}
