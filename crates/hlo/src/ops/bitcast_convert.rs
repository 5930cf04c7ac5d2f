//! `bitcast-convert`: the same bits read as another element type. Between
//! types of one width each element is itself; to a type `ratio` times
//! narrower, each element becomes `ratio` elements along a new minor
//! dimension; to a type `ratio` times wider, the last dimension (of size
//! `ratio`) is folded into one element (XLA's shape rule).

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::shape::ArrayShape;

/// How the output's elements relate to the operand's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resize {
    /// One output element per operand element, at the same index.
    Same,
    /// Each operand element is `ratio` output elements along a new last
    /// dimension.
    Narrower(i64),
    /// Each output element is the `ratio` operand elements of the last
    /// dimension.
    Wider(i64),
}

/// The relation XLA's shape rule gives between `input` and `output`, or
/// why they break it.
pub(crate) fn resize(input: &ArrayShape, output: &ArrayShape) -> Result<Resize, String> {
    let (from, to) = match (input.element(), output.element()) {
        (Some(f), Some(t)) => (f, t),
        // A type of unknown width: only the same dimensions are sure.
        _ if input.dims == output.dims => return Ok(Resize::Same),
        _ => {
            return Err(format!(
                "the width of {} or {} is unknown, so the shapes {} and {} must have the same dimensions",
                input.element_type, output.element_type, input, output
            ))
        }
    };
    let complex = crate::element_type::ElementKind::Complex;
    if (from.kind == complex) != (to.kind == complex) {
        return Err(format!(
            "it converts between a complex and a real type ({} to {})",
            input.element_type, output.element_type
        ));
    }
    let (wide, narrow) = (from.bits.max(to.bits), from.bits.min(to.bits));
    if wide % narrow != 0 {
        return Err(format!(
            "{} bits of {} and {} bits of {} are not multiples of one another",
            from.bits, input.element_type, to.bits, output.element_type
        ));
    }
    let ratio = i64::from(wide / narrow);
    let (expected, relation) = if from.bits == to.bits {
        (input.dims.clone(), Resize::Same)
    } else if from.bits > to.bits {
        let mut dims = input.dims.clone();
        dims.push(ratio);
        (dims, Resize::Narrower(ratio))
    } else {
        if input.dims.last() != Some(&ratio) {
            return Err(format!(
                "converting {} to the {ratio} times wider {} needs a last dimension of size {ratio}; the operand is {}",
                input.element_type, output.element_type, input
            ));
        }
        (
            input.dims[..input.rank() - 1].to_vec(),
            Resize::Wider(ratio),
        )
    };
    if output.dims != expected {
        return Err(format!(
            "converting {input} to {} gives dimensions {expected:?}, not {:?} (a narrower type adds a last dimension of the width ratio, a wider one removes it)",
            output.element_type, output.dims
        ));
    }
    Ok(relation)
}

fn op_resize(op: &Op) -> Result<(Resize, Vec<i64>, Vec<i64>), AnalysisError> {
    let input = op.operand(0).shape.as_array();
    let output = op.instr.shape.as_array();
    let (Some(input), Some(output)) = (input, output) else {
        return Err(AnalysisError::invalid(format!(
            "`{}` converts a tuple; bitcast-convert needs arrays",
            op.instr.name
        )));
    };
    let r = resize(input, output)
        .map_err(|m| AnalysisError::invalid(format!("`{}`: {m}", op.instr.name)))?;
    Ok((r, input.dims.clone(), output.dims.clone()))
}

/// Output `[..., k]` of a narrowing convert reads operand `[...]`; output
/// `[...]` of a widening one reads the whole last operand dimension.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (resize, _, out) = op_resize(op)?;
    let mut b = MapBuilder::over(&out);
    let mut results = b.dims();
    match resize {
        Resize::Same => {}
        Resize::Narrower(_) => {
            results.pop();
        }
        Resize::Wider(ratio) => results.push(b.symbol(ratio)),
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}

/// Operand `[...]` of a narrowing convert feeds output `[..., 0:ratio]`;
/// operand `[..., k]` of a widening one feeds output `[...]`.
pub(crate) fn input_to_output(op: &Op) -> OpMaps {
    let (resize, inp, _) = op_resize(op)?;
    let mut b = MapBuilder::over(&inp);
    let mut results = b.dims();
    match resize {
        Resize::Same => {}
        Resize::Narrower(ratio) => results.push(b.symbol(ratio)),
        Resize::Wider(_) => {
            results.pop();
        }
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}
