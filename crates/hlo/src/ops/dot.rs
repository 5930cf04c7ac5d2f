//! `dot` (and `scaled-dot`): batch dimensions pass through, contracting
//! dimensions become range variables shared by both sides.

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use arith::Expr;

/// The dimension numbers of a dot, checked against the operand shapes.
struct DotDims<'a> {
    lhs: &'a [i64],
    rhs: &'a [i64],
    lhs_batch: Vec<usize>,
    rhs_batch: Vec<usize>,
    lhs_contracting: Vec<usize>,
    rhs_contracting: Vec<usize>,
    lhs_free: Vec<usize>,
    rhs_free: Vec<usize>,
}

fn dot_dims<'a>(op: &Op<'a>) -> Result<DotDims<'a>, Unsupported> {
    let lhs = op.operand_dims(0)?;
    let rhs = op.operand_dims(1)?;
    let get = |name: &str, rank: usize| -> Result<Vec<usize>, Unsupported> {
        check_dims(op.instr.attrs.ints(name).unwrap_or(&[]), rank, name)
    };
    let lhs_batch = get("lhs_batch_dims", lhs.len())?;
    let rhs_batch = get("rhs_batch_dims", rhs.len())?;
    let lhs_contracting = get("lhs_contracting_dims", lhs.len())?;
    let rhs_contracting = get("rhs_contracting_dims", rhs.len())?;
    if lhs_batch.len() != rhs_batch.len() || lhs_contracting.len() != rhs_contracting.len() {
        return Err(AnalysisError::invalid(format!(
            "dot `{}`: lhs and rhs list different numbers of batch or contracting dimensions",
            op.instr.name
        )));
    }
    for (&l, &r) in lhs_batch
        .iter()
        .zip(&rhs_batch)
        .chain(lhs_contracting.iter().zip(&rhs_contracting))
    {
        if lhs[l] != rhs[r] {
            return Err(AnalysisError::invalid(format!(
                "dot `{}`: lhs dimension {l} ({}) and rhs dimension {r} ({}) differ",
                op.instr.name, lhs[l], rhs[r]
            )));
        }
    }
    let free = |rank: usize, a: &[usize], b: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|i| !a.contains(i) && !b.contains(i))
            .collect()
    };
    let lhs_free = free(lhs.len(), &lhs_batch, &lhs_contracting);
    let rhs_free = free(rhs.len(), &rhs_batch, &rhs_contracting);
    let d = DotDims {
        lhs,
        rhs,
        lhs_batch,
        rhs_batch,
        lhs_contracting,
        rhs_contracting,
        lhs_free,
        rhs_free,
    };
    let expected: Vec<i64> = d
        .lhs_batch
        .iter()
        .map(|&i| lhs[i])
        .chain(d.lhs_free.iter().map(|&i| lhs[i]))
        .chain(d.rhs_free.iter().map(|&i| rhs[i]))
        .collect();
    if op.output_dims(0)? != expected.as_slice() {
        return Err(AnalysisError::invalid(format!(
            "dot `{}`: the output should have shape {expected:?}",
            op.instr.name
        )));
    }
    Ok(d)
}

/// Output dimensions are batch, lhs free, rhs free; the `k`-th contracting
/// pair is range variable `s_k`.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (lhs, rhs) = dot_maps(op)?;
    Ok(vec![
        OperandIndexing::single(lhs),
        OperandIndexing::single(rhs),
    ])
}

fn dot_maps(op: &Op) -> Result<(indexing::IndexingMap, indexing::IndexingMap), Unsupported> {
    let d = dot_dims(op)?;
    let out = op.output_dims(0)?;
    let mut b = MapBuilder::over(out);
    let contracting: Vec<Expr> = d
        .lhs_contracting
        .iter()
        .map(|&i| b.symbol(d.lhs[i]))
        .collect();
    let nb = d.lhs_batch.len();
    let side =
        |rank: usize, batch: &[usize], contr: &[usize], free: &[usize], free_offset: usize| {
            let mut r = vec![Expr::int(0); rank];
            for (k, &i) in batch.iter().enumerate() {
                r[i] = b.dim(k);
            }
            for (k, &i) in contr.iter().enumerate() {
                r[i] = contracting[k].clone();
            }
            for (k, &i) in free.iter().enumerate() {
                r[i] = b.dim(free_offset + k);
            }
            r
        };
    let lhs = side(
        d.lhs.len(),
        &d.lhs_batch,
        &d.lhs_contracting,
        &d.lhs_free,
        nb,
    );
    let rhs = side(
        d.rhs.len(),
        &d.rhs_batch,
        &d.rhs_contracting,
        &d.rhs_free,
        nb + d.lhs_free.len(),
    );
    Ok((b.build(lhs)?, b.build(rhs)?))
}

/// `scaled-dot(a, b, a_scale, b_scale)`: like `dot` for `a` and `b`; each
/// scale is read at the data index divided by the block size
/// (`data dimension / scale dimension`).
pub(crate) fn scaled_output_to_input(op: &Op) -> OpMaps {
    if op.num_operands() != 4 {
        return Err(AnalysisError::invalid(format!(
            "scaled-dot `{}` needs 4 operands",
            op.instr.name
        )));
    }
    let (lhs, rhs) = dot_maps(op)?;
    let mut out = vec![
        OperandIndexing::single(lhs.clone()),
        OperandIndexing::single(rhs.clone()),
    ];
    for (k, data_map) in [(2, &lhs), (3, &rhs)] {
        let data = op.operand_dims(k - 2)?;
        let scale = op.operand_dims(k)?;
        if scale.len() != data.len() || scale.iter().zip(data).any(|(&s, &n)| s <= 0 || n % s != 0)
        {
            return Err(AnalysisError::invalid(format!(
                "scale operand {k} of `{}` does not divide its data operand",
                op.instr.name
            )));
        }
        let mut m = data_map.clone();
        for (i, (&s, &n)) in scale.iter().zip(data).enumerate() {
            let r = m.results()[i].clone();
            m.set_result(i, Expr::floor_div(r, Expr::int(n / s)))
                .map_err(|e| AnalysisError::composition(e.to_string()))?;
        }
        out.push(OperandIndexing::single(m));
    }
    Ok(out)
}

/// An lhs element reaches the output at its batch and free indices, for
/// every rhs free index (range variables); likewise for rhs.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let d = dot_dims(op)?;
    let (dims, batch, free, other_free, other) = match input {
        0 => (d.lhs, &d.lhs_batch, &d.lhs_free, &d.rhs_free, d.rhs),
        1 => (d.rhs, &d.rhs_batch, &d.rhs_free, &d.lhs_free, d.lhs),
        _ => {
            return Err(AnalysisError::invalid(format!(
                "dot `{}` has two operands",
                op.instr.name
            )))
        }
    };
    let mut b = MapBuilder::over(dims);
    let mut results: Vec<Expr> = batch.iter().map(|&i| b.dim(i)).collect();
    let own: Vec<Expr> = free.iter().map(|&i| b.dim(i)).collect();
    let others: Vec<Expr> = other_free.iter().map(|&i| b.symbol(other[i])).collect();
    if input == 0 {
        results.extend(own);
        results.extend(others);
    } else {
        results.extend(others);
        results.extend(own);
    }
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}
