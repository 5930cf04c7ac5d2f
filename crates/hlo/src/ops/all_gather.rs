//! `all-gather`: every replica of a group contributes its operand to one
//! slice of the gathered dimension. The operand index is the output index
//! modulo the operand size; which replica holds it is a second map, the
//! replica map (`replica id:` in XLA's printed form).

use super::builder::MapBuilder;
use super::{check_dims, Op, OpMaps};
use crate::attrs::AttrValue;
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use crate::ops::Unsupported;
use arith::Expr;

/// (gathered dimension, operand size along it, replicas per group).
fn signature(op: &Op) -> Result<(usize, i64, i64), Unsupported> {
    let name = &op.instr.name;
    if op.num_operands() != 1 {
        return Err(AnalysisError::unsupported(format!(
            "all-gather `{name}` with {} operands is not supported",
            op.num_operands()
        )));
    }
    let inp = op.operand_dims(0)?;
    let out = op.output_dims(0)?;
    let dims = check_dims(
        op.attr_ints("dimensions")?,
        out.len(),
        "all-gather dimensions",
    )?;
    let &[dim] = dims.as_slice() else {
        return Err(AnalysisError::invalid(format!(
            "all-gather `{name}` needs one gathered dimension"
        )));
    };
    let n = inp.get(dim).copied().unwrap_or(0);
    let shapes_agree = inp.len() == out.len()
        && n > 0
        && out[dim] % n == 0
        && (0..out.len()).all(|i| i == dim || inp[i] == out[i]);
    if !shapes_agree {
        return Err(AnalysisError::invalid(format!(
            "all-gather `{name}`: {inp:?} does not gather into {out:?} along dimension {dim}"
        )));
    }
    let group = out[dim] / n;
    if let Some(AttrValue::IntLists(groups)) = op.instr.attrs.get("replica_groups") {
        if groups.iter().any(|g| g.len() as i64 != group) {
            return Err(AnalysisError::invalid(format!(
                "all-gather `{name}`: replica groups of {group} replicas are needed for {out:?}"
            )));
        }
    }
    Ok((dim, n, group))
}

/// Output index `d` reads operand index `d` with `d_k mod n` along the
/// gathered dimension, on replica `d_k / n` of the group.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let (dim, n, _) = signature(op)?;
    let out = op.output_dims(0)?;
    let b = MapBuilder::over(out);
    let mut results = b.dims();
    results[dim] = Expr::floor_mod(b.dim(dim), Expr::int(n));
    let map = b.build(results)?;
    let replica = b.build(vec![Expr::floor_div(b.dim(dim), Expr::int(n))])?;
    Ok(vec![OperandIndexing::Maps(vec![OperandMap {
        replica: Some(replica),
        ..OperandMap::plain(map)
    }])])
}

/// An operand element reaches one position per replica of the group (which
/// replica the operand lives on is not known statically: a range variable).
pub(crate) fn input_to_output(op: &Op) -> OpMaps {
    let (dim, n, group) = signature(op)?;
    let mut b = MapBuilder::over(op.operand_dims(0)?);
    let replica = b.symbol(group);
    let mut results = b.dims();
    results[dim] = replica * n + b.dim(dim);
    Ok(vec![OperandIndexing::single(b.build(results)?)])
}
