//! Elementwise ops of every arity (incl. `select`, `clamp`, `compare`,
//! `convert`, `copy`, `map`), and `tuple` / `get-tuple-element`, whose maps
//! are identities.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::opcode::Opcode;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use indexing::IndexingMap;

/// Whether `opcode` computes each output element from the operand elements
/// at the same index.
pub(crate) fn is_elementwise(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Abs | Acos
            | Acosh
            | Add
            | And
            | Asin
            | Asinh
            | Atan
            | Atan2
            | Atanh
            | Cbrt
            | Ceil
            | Clamp
            | Clz
            | Compare
            | Complex
            | Convert
            | Copy
            | Cos
            | Cosh
            | Divide
            | Erf
            | Exp
            | Expm1
            | Floor
            | Imag
            | IsFinite
            | Log
            | Log1p
            | Logistic
            | Map
            | Maximum
            | Minimum
            | Mulhi
            | Multiply
            | Negate
            | Not
            | Or
            | PopulationCount
            | Power
            | Real
            | ReducePrecision
            | Remainder
            | RoundNearestAfz
            | RoundNearestEven
            | Rsqrt
            | Select
            | ShiftLeft
            | ShiftRightArithmetic
            | ShiftRightLogical
            | Sign
            | Sin
            | Sinh
            | Sqrt
            | StochasticConvert
            | Subtract
            | Tan
            | Tanh
            | Xor
    )
}

/// Each operand is read at the output index; a scalar operand of a
/// non-scalar op (`select(pred[] p, ...)`, `clamp(f32[] lo, ...)`) is read
/// once for every output element.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let b = MapBuilder::over(out);
    (0..op.num_operands())
        .map(|k| {
            let dims = op.operand_dims(k)?;
            if dims == out {
                Ok(OperandIndexing::single(b.build(b.dims())?))
            } else if dims.is_empty() {
                Ok(OperandIndexing::single(b.to_scalar()?))
            } else {
                Err(AnalysisError::invalid(format!("operand {k} of `{}` has shape {dims:?}, the output {out:?}; expected the same shape or a scalar", op.instr.name)))
            }
        })
        .collect()
}

/// An operand element feeds the output element at the same index; a scalar
/// operand feeds every output element.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let out = op.output_dims(0)?;
    let dims = op.operand_dims(input)?;
    if dims == out {
        let b = MapBuilder::over(dims);
        Ok(vec![OperandIndexing::single(b.build(b.dims())?)])
    } else if dims.is_empty() {
        let mut b = MapBuilder::over(&[]);
        let results = out.iter().map(|&n| b.symbol(n)).collect();
        Ok(vec![OperandIndexing::single(b.build(results)?)])
    } else {
        Err(AnalysisError::invalid(format!(
            "operand {input} of `{}` has shape {dims:?}, the output {out:?}",
            op.instr.name
        )))
    }
}

/// Output `output` of a tuple is operand `output`; no other operand is read.
pub(crate) fn tuple_output_to_input(op: &Op, output: usize) -> OpMaps {
    if output >= op.num_operands() {
        return Err(AnalysisError::invalid(format!(
            "tuple `{}` has no output {output}",
            op.instr.name
        )));
    }
    (0..op.num_operands())
        .map(|k| {
            if k == output {
                Ok(OperandIndexing::single(identity(op.operand_dims(k)?)))
            } else {
                Ok(OperandIndexing::Maps(Vec::new()))
            }
        })
        .collect()
}

/// Operand `input` of a tuple is its output `input`.
pub(crate) fn tuple_input_to_output(op: &Op, input: usize) -> OpMaps {
    (0..op.num_operands())
        .map(|k| {
            if k == input {
                Ok(OperandIndexing::single(identity(op.operand_dims(k)?)))
            } else {
                Ok(OperandIndexing::Maps(Vec::new()))
            }
        })
        .collect()
}

/// `get-tuple-element(t), index=i` reads element `i` of `t` at the output index.
pub(crate) fn get_tuple_element_output_to_input(op: &Op) -> OpMaps {
    let index = op.instr.attrs.int("index").unwrap_or(0);
    let element = usize::try_from(index).map_err(|_| {
        AnalysisError::invalid(format!(
            "`{}` has a negative tuple index {index}",
            op.instr.name
        ))
    })?;
    let crate::shape::Shape::Array(out) = &op.instr.shape else {
        return Err(AnalysisError::unsupported(format!(
            "`{}` takes a tuple out of a tuple; nested tuple elements are not supported",
            op.instr.name
        )));
    };
    let mut map = OperandMap::plain(identity(&out.dims));
    map.element = Some(element);
    Ok(vec![OperandIndexing::Maps(vec![map])])
}

/// The tuple element feeds the output at the same index.
pub(crate) fn get_tuple_element_input_to_output(op: &Op) -> OpMaps {
    let crate::shape::Shape::Array(out) = &op.instr.shape else {
        return Err(AnalysisError::unsupported(format!(
            "`{}` takes a tuple out of a tuple; nested tuple elements are not supported",
            op.instr.name
        )));
    };
    Ok(vec![OperandIndexing::single(identity(&out.dims))])
}

fn identity(dims: &[i64]) -> IndexingMap {
    IndexingMap::identity(dims)
}
