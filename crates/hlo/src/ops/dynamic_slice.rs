//! `dynamic-slice` and `dynamic-update-slice`: offsets read at run time
//! become runtime variables (`rt`), clamped to the valid start range.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::error::AnalysisError;
use crate::opcode::Opcode;
use crate::operand_indexing::{OperandIndexing, OperandMap, RuntimeVar};
use crate::ops::Unsupported;
use arith::Expr;
use indexing::Interval;

/// How XLA names the source of a runtime variable: `parameter(N)`,
/// `constant(V)` for a scalar constant, or the instruction's name.
pub(crate) fn runtime_source(op: &Op, operand: usize) -> RuntimeVar {
    let id = op.instr.operands[operand];
    RuntimeVar::new(runtime_source_name(&op.comp.instructions[id]), Some(id))
}

/// How XLA names the instruction a runtime value is read from.
pub(crate) fn runtime_source_name(src: &crate::module::Instruction) -> String {
    match (src.opcode, src.parameter_number, &src.literal) {
        (Opcode::Parameter, Some(n), _) => format!("parameter({n})"),
        (Opcode::Constant, _, Some(lit))
            if src.shape.as_array().is_some_and(|a| a.dims.is_empty()) =>
        {
            format!("constant({lit})")
        }
        (Opcode::Constant, _, _) => "constant".to_string(),
        _ => src.name.clone(),
    }
}

/// (operand shape, slice/update shape, output shape), with scalar offsets checked.
fn signature<'a>(
    op: &Op<'a>,
    first_offset: usize,
    sizes: &'a [i64],
) -> Result<&'a [i64], Unsupported> {
    let operand = op.operand_dims(0)?;
    if op.num_operands() != first_offset + operand.len() {
        return Err(AnalysisError::invalid(format!(
            "`{}` needs one scalar offset per dimension",
            op.instr.name
        )));
    }
    for k in first_offset..op.num_operands() {
        if !op.operand_dims(k)?.is_empty() {
            return Err(AnalysisError::invalid(format!(
                "offset operand {k} of `{}` is not a scalar",
                op.instr.name
            )));
        }
    }
    if sizes.len() != operand.len() || sizes.iter().zip(operand).any(|(&s, &n)| s < 0 || s > n) {
        return Err(AnalysisError::invalid(format!(
            "`{}`: sizes {sizes:?} do not fit in the operand {operand:?}",
            op.instr.name
        )));
    }
    Ok(operand)
}

fn scalar_offsets(
    op: &Op,
    first: usize,
    over: &[i64],
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let scalar = MapBuilder::over(over).to_scalar()?;
    Ok((first..op.num_operands())
        .map(|_| OperandIndexing::single(scalar.clone()))
        .collect())
}

fn runtime_vars(op: &Op, first: usize, over: &[i64]) -> Result<Vec<RuntimeVar>, Unsupported> {
    let scalar = MapBuilder::over(over).to_scalar()?;
    Ok((first..op.num_operands())
        .map(|k| RuntimeVar {
            map: scalar.clone(),
            ..runtime_source(op, k)
        })
        .collect())
}

/// `(d){rt} -> (d + rt)` with `rt_i in [0, operand_i - size_i]`; the
/// offsets are scalars read once per output element.
pub(crate) fn slice_output_to_input(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let operand = signature(op, 1, out)?;
    let mut b = MapBuilder::over(out);
    let results: Vec<Expr> = (0..out.len())
        .map(|i| {
            let rt = b.rt_var(Interval::new(0, operand[i] - out[i]));
            b.dim(i) + rt
        })
        .collect();
    let map = b.build(results)?;
    let mut maps = vec![OperandIndexing::Maps(vec![OperandMap::with_runtime(
        map,
        runtime_vars(op, 1, out)?,
    )])];
    maps.extend(scalar_offsets(op, 1, out)?);
    Ok(maps)
}

/// An operand element `x` reaches output `x - rt` when that is inside the slice.
pub(crate) fn slice_input_to_output(op: &Op, input: usize) -> OpMaps {
    let out = op.output_dims(0)?;
    let operand = signature(op, 1, out)?;
    if input > 0 {
        let mut b = MapBuilder::over(&[]);
        let results = out.iter().map(|&n| b.symbol(n)).collect();
        return Ok(vec![OperandIndexing::single(b.build(results)?)]);
    }
    let mut b = MapBuilder::over(operand);
    let mut results = Vec::with_capacity(out.len());
    for i in 0..out.len() {
        let rt = b.rt_var(Interval::new(0, operand[i] - out[i]));
        let r = b.dim(i) - rt;
        b.constrain(r.clone(), Interval::of_size(out[i]));
        results.push(r);
    }
    let map = b.build(results)?;
    Ok(vec![OperandIndexing::Maps(vec![OperandMap::with_runtime(
        map,
        runtime_vars(op, 1, operand)?,
    )])])
}

/// The base is read at the output index (XLA's sound choice: the updated
/// window is not carved out); the update at `d - rt`; the offsets once.
pub(crate) fn update_output_to_input(op: &Op) -> OpMaps {
    let out = op.output_dims(0)?;
    let update = op.operand_dims(1)?;
    let operand = signature(op, 2, update)?;
    if operand != out {
        return Err(AnalysisError::invalid(format!(
            "dynamic-update-slice `{}` changes the shape",
            op.instr.name
        )));
    }
    let base = MapBuilder::over(out);
    let mut b = MapBuilder::over(out);
    let results: Vec<Expr> = (0..out.len())
        .map(|i| {
            let rt = b.rt_var(Interval::new(0, operand[i] - update[i]));
            b.dim(i) - rt
        })
        .collect();
    let map = b.build(results)?;
    let mut maps = vec![
        OperandIndexing::single(base.build(base.dims())?),
        OperandIndexing::Maps(vec![OperandMap::with_runtime(
            map,
            runtime_vars(op, 2, out)?,
        )]),
    ];
    maps.extend(scalar_offsets(op, 2, out)?);
    Ok(maps)
}

/// The base reaches the output at the same index; an update element `u`
/// lands at `u + rt`; the offsets reach every output element.
pub(crate) fn update_input_to_output(op: &Op, input: usize) -> OpMaps {
    let out = op.output_dims(0)?;
    let update = op.operand_dims(1)?;
    let operand = signature(op, 2, update)?;
    let map = match input {
        0 => {
            let b = MapBuilder::over(operand);
            OperandIndexing::single(b.build(b.dims())?)
        }
        1 => {
            let mut b = MapBuilder::over(update);
            let results: Vec<Expr> = (0..out.len())
                .map(|i| {
                    let rt = b.rt_var(Interval::new(0, operand[i] - update[i]));
                    b.dim(i) + rt
                })
                .collect();
            let map = b.build(results)?;
            OperandIndexing::Maps(vec![OperandMap::with_runtime(
                map,
                runtime_vars(op, 2, update)?,
            )])
        }
        _ => {
            let mut b = MapBuilder::over(&[]);
            let results = out.iter().map(|&n| b.symbol(n)).collect();
            OperandIndexing::single(b.build(results)?)
        }
    };
    Ok(vec![map])
}
