//! `rng-bit-generator(state)`: outputs the new state and an array of random
//! bits. Each output element is a mix of the state words the algorithm
//! uses (the key and the counter); which words feed which element is the
//! algorithm's detail, so every output element reads the whole state: a
//! sound hull, marked conservative (the new state's key word, for one,
//! reads only the old key).

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::operand_indexing::{OperandIndexing, OperandMap};

const REASON: &str =
    "rng-bit-generator: each output element mixes the state words its algorithm uses; every word of the state";

/// Output `output` at any index reads every element of the state.
pub(crate) fn output_to_input(op: &Op, output: usize) -> OpMaps {
    let state = op.operand_dims(0)?;
    let mut b = MapBuilder::over(op.output_dims(output)?);
    let results = state.iter().map(|&n| b.symbol(n)).collect();
    Ok(vec![OperandIndexing::Maps(vec![OperandMap::conservative(
        b.build(results)?,
        REASON,
    )])])
}

/// A state element reaches every element of both outputs.
pub(crate) fn input_to_output(op: &Op) -> OpMaps {
    let state = op.operand_dims(0)?;
    (0..op.instr.shape.output_count())
        .map(|j| {
            let mut b = MapBuilder::over(state);
            let results = op.output_dims(j)?.iter().map(|&n| b.symbol(n)).collect();
            Ok(OperandIndexing::Maps(vec![OperandMap::conservative(
                b.build(results)?,
                REASON,
            )]))
        })
        .collect()
}
