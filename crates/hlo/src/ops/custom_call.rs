//! `custom-call`: a call to code XLA does not see into, named by
//! `custom_call_target`.
//!
//! Known targets are mapped as the op they stand for:
//! - `TopK` as `topk` (conservative, see [`super::sort`]);
//! - the forward convolutions of cuDNN and oneDNN (`__cudnn$convForward`,
//!   `__cudnn$convBiasActivationForward`, `__cudnn$convForwardGraph`,
//!   `__onednn$convolution`), which carry a convolution's `window=` and
//!   `dim_labels=`, as that `convolution` of their first two operands;
//! - the GEMMs (`__cublas$gemm`, `__cublas$lt$matmul`,
//!   `__cublas$lt$matmul$f8`, `__onednn$matmul`) as the `dot` of their
//!   first two operands, with the dimension numbers of their
//!   `backend_config` (`dot_dimension_numbers`).
//!
//! - Shardy's `xla.sdy.GlobalToLocalShape` and `xla.sdy.LocalToGlobalShape`
//!   (the borders of a `shard_map` body in lowered JAX modules) as the
//!   slicing of a global value into equal per-device blocks: a local index
//!   `l` is global `s * L + l` on the device at position `s` along each
//!   sharded dimension (a range variable: conservative), a global index
//!   `g` is local `g mod L` (exact).
//!
//! Everything else, and whatever the stand-in does not cover (a bias or
//! scale operand, a scratch output, a GEMM without dimension numbers),
//! reads every element of every operand: sound for any code, and marked
//! conservative with the target's name.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::attrs::{AttrValue, Attribute};
use crate::module::Instruction;
use crate::opcode::Opcode;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use crate::ops::Unsupported;
use crate::shape::Shape;

/// Forward-convolution targets, mapped as `convolution`.
const CONVOLUTIONS: &[&str] = &[
    "__cudnn$convForward",
    "__cudnn$convBiasActivationForward",
    "__cudnn$convForwardGraph",
    "__onednn$convolution",
];

/// GEMM targets, mapped as `dot`.
const GEMMS: &[&str] = &[
    "__cublas$gemm",
    "__cublas$lt$matmul",
    "__cublas$lt$matmul$f8",
    "__onednn$matmul",
];

/// Shardy's conversions between a global shape and the per-device (local)
/// shape of a `shard_map` body, which JAX prints in lowered modules.
const GLOBAL_TO_LOCAL: &str = "xla.sdy.GlobalToLocalShape";
const LOCAL_TO_GLOBAL: &str = "xla.sdy.LocalToGlobalShape";

/// The `custom_call_target`, without its quotes.
fn target<'a>(op: &Op<'a>) -> &'a str {
    op.instr
        .attrs
        .raw("custom_call_target")
        .map(|t| t.trim_matches('"'))
        .unwrap_or("")
}

/// The dot dimension numbers of a GEMM's `backend_config`, in the order
/// lhs batch, rhs batch, lhs contracting, rhs contracting.
fn gemm_dimensions(op: &Op) -> Option<[Vec<i64>; 4]> {
    let config = op.instr.attrs.raw("backend_config")?;
    let list = |key: &str| -> Option<Vec<i64>> {
        let start = config.find(&format!("{key}\""))?;
        let rest = &config[start..];
        let open = rest.find('[')?;
        let close = rest[open..].find(']')? + open;
        rest[open + 1..close]
            .split(',')
            .map(|s| s.trim().trim_matches(|c| c == '"' || c == '\\'))
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().ok())
            .collect()
    };
    Some([
        list("lhs_batch_dimensions").unwrap_or_default(),
        list("rhs_batch_dimensions").unwrap_or_default(),
        list("lhs_contracting_dimensions")?,
        list("rhs_contracting_dimensions")?,
    ])
}

/// The op a known target stands for, over the custom call's first two
/// operands and its first output, or `None`.
fn stand_in(op: &Op) -> Option<Instruction> {
    let t = target(op);
    let (opcode, extra) = if CONVOLUTIONS.contains(&t) && op.instr.attrs.dim_labels().is_some() {
        (Opcode::Convolution, Vec::new())
    } else if GEMMS.contains(&t) {
        let [lb, rb, lc, rc] = gemm_dimensions(op)?;
        let names = [
            "lhs_batch_dims",
            "rhs_batch_dims",
            "lhs_contracting_dims",
            "rhs_contracting_dims",
        ];
        let extra = names
            .iter()
            .zip([lb, rb, lc, rc])
            .map(|(name, v)| Attribute {
                name: name.to_string(),
                value: AttrValue::Ints(v),
                span: 0..0,
            })
            .collect();
        (Opcode::Dot, extra)
    } else {
        return None;
    };
    if op.num_operands() < 2 {
        return None;
    }
    let shape = op.instr.shape.output(0)?.clone();
    let mut instr = op.instr.clone();
    instr.opcode = opcode;
    instr.operands.truncate(2);
    instr.shape = shape;
    instr.attrs.0.extend(extra);
    Some(instr)
}

/// From every index of `from` to every index of `to`, conservative.
fn everything(from: &[i64], to: &[i64], reason: &str) -> Result<OperandIndexing, Unsupported> {
    let mut b = MapBuilder::over(from);
    let results = to.iter().map(|&n| b.symbol(n)).collect();
    Ok(OperandIndexing::Maps(vec![OperandMap::conservative(
        b.build(results)?,
        reason,
    )]))
}

/// The dimensions of a shape that may be a tuple (a tuple-shaped operand
/// has no array to index: reported as unsupported).
fn dims_of(shape: &Shape, what: impl FnOnce() -> String) -> Result<&[i64], Unsupported> {
    shape.as_array().map(|a| a.dims.as_slice()).ok_or_else(|| {
        crate::error::AnalysisError::unsupported(format!(
            "{} is a tuple; custom calls with tuple operands are not supported",
            what()
        ))
    })
}

fn reason(op: &Op, part: &str) -> String {
    format!(
        "custom call to `{}`: {part}; every element of every operand",
        target(op)
    )
}

/// The global and local shapes of value `k` of a Shardy shape conversion
/// (operand `k` and output `k`), checked: every global dimension is a
/// whole number of local ones (the devices sharing it).
fn sharded_shapes<'a>(op: &Op<'a>, k: usize) -> Result<(&'a [i64], &'a [i64]), Unsupported> {
    let (a, b) = (op.operand_dims(k)?, op.output_dims(k)?);
    let (global, local) = if target(op) == GLOBAL_TO_LOCAL {
        (a, b)
    } else {
        (b, a)
    };
    let fits = global.len() == local.len()
        && op.num_operands() == op.instr.shape.output_count()
        && global
            .iter()
            .zip(local)
            .all(|(&g, &l)| l > 0 && g % l == 0 || g == 0 && l == 0);
    if !fits {
        return Err(crate::error::AnalysisError::invalid(format!(
            "`{}` ({}): {global:?} is not a whole number of {local:?} per dimension",
            op.instr.name,
            target(op)
        )));
    }
    Ok((global, local))
}

/// From local index `l` to the global indices `s * L + l` of every device
/// position `s` along each sharded dimension (conservative when a
/// dimension is sharded), or from global index `g` to the local index
/// `g mod L` (exact: the device holding it is `g / L`).
fn shard_maps(op: &Op, k: usize, local_to_global: bool) -> Result<OperandMap, Unsupported> {
    let (global, local) = sharded_shapes(op, k)?;
    if local_to_global {
        let mut b = MapBuilder::over(local);
        let mut results = b.dims();
        let mut sharded = false;
        for (d, r) in results.iter_mut().enumerate() {
            if global[d] > local[d] {
                sharded = true;
                let position = b.symbol(global[d] / local[d]);
                *r = position * local[d] + r.clone();
            }
        }
        let map = b.build(results)?;
        Ok(if sharded {
            OperandMap::conservative(
                map,
                format!(
                    "`{}`: the block of the global value a device holds depends on its position in the mesh; every block",
                    target(op)
                ),
            )
        } else {
            OperandMap::plain(map)
        })
    } else {
        let b = MapBuilder::over(global);
        let results = b
            .dims()
            .into_iter()
            .enumerate()
            .map(|(d, e)| {
                if global[d] > local[d] {
                    arith::Expr::floor_mod(e, arith::Expr::int(local[d]))
                } else {
                    e
                }
            })
            .collect();
        Ok(OperandMap::plain(b.build(results)?))
    }
}

/// Value `k` of a Shardy shape conversion maps to value `k` only.
fn shard_conversion(op: &Op, k: usize, local_to_global: bool) -> OpMaps {
    let map = shard_maps(op, k, local_to_global)?;
    let mut maps = vec![OperandIndexing::Maps(Vec::new()); op.num_operands()];
    maps[k] = OperandIndexing::Maps(vec![map]);
    Ok(maps)
}

/// Output `output` of the custom call: the stand-in's maps where it has
/// them, every element of every other operand otherwise.
pub(crate) fn output_to_input(op: &Op, output: usize) -> OpMaps {
    match target(op) {
        "TopK" => return super::sort::topk_output_to_input(op, output),
        GLOBAL_TO_LOCAL => return shard_conversion(op, output, true),
        LOCAL_TO_GLOBAL => return shard_conversion(op, output, false),
        _ => {}
    }
    let out = dims_of(
        op.instr.shape.output(output).unwrap_or(&op.instr.shape),
        || format!("output {output} of `{}`", op.instr.name),
    )?;
    let known = match (output, stand_in(op)) {
        (0, Some(instr)) => super::output_to_input(
            &Op {
                comp: op.comp,
                instr: &instr,
            },
            0,
        )
        .ok(),
        _ => None,
    };
    let why = match (&known, output) {
        (Some(_), _) => reason(op, "an operand its stand-in op does not read"),
        (None, 0) => reason(op, "what it reads is unknown"),
        (None, _) => reason(op, &format!("what output {output} holds is unknown")),
    };
    let known = known.unwrap_or_default();
    (0..op.num_operands())
        .map(|k| match known.get(k) {
            Some(ix) => Ok(ix.clone()),
            None => everything(
                out,
                dims_of(&op.operand(k).shape, || {
                    format!("operand {k} of `{}`", op.instr.name)
                })?,
                &why,
            ),
        })
        .collect()
}

/// Operand `input` of the custom call: the stand-in's maps to the first
/// output where it has them, every element of every output otherwise.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    match target(op) {
        "TopK" => return super::sort::topk_input_to_output(op),
        GLOBAL_TO_LOCAL => return shard_conversion(op, input, false),
        LOCAL_TO_GLOBAL => return shard_conversion(op, input, true),
        _ => {}
    }
    let inp = dims_of(&op.operand(input).shape, || {
        format!("operand {input} of `{}`", op.instr.name)
    })?;
    let known = match stand_in(op) {
        Some(instr) if input < 2 => super::input_to_output(
            &Op {
                comp: op.comp,
                instr: &instr,
            },
            input,
        )
        .ok(),
        _ => None,
    };
    let why = match &known {
        Some(_) => reason(op, "an output its stand-in op does not compute"),
        None => reason(op, "what it reads is unknown"),
    };
    let known = known.unwrap_or_default();
    (0..op.instr.shape.output_count())
        .map(|j| match known.get(j) {
            Some(ix) => Ok(ix.clone()),
            None => everything(
                inp,
                dims_of(op.instr.shape.output(j).unwrap_or(&op.instr.shape), || {
                    format!("output {j} of `{}`", op.instr.name)
                })?,
                &why,
            ),
        })
        .collect()
}
