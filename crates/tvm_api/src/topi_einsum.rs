//! TOPI's `einsum` (`tvm.topi.einsum(subscripts, *operands)`, and the C++
//! `tvm.topi.cpp.einsum(subscripts, operands)` that TOPI's Python calls),
//! built as TOPI v0.19's C++ builds it: one compute `T_einsum` (tag
//! `einsum`) over the output labels, the product of the operands read at
//! their labels, summed over the labels that are not in the output.
//!
//! The equation's rules are numpy's, as TOPI reads them: spaces are
//! ignored; without `->` the output is every label used once, sorted, with
//! the ellipsis first; a dimension of size 1 broadcasts against its
//! label's other extents (and is then read at 0); `...` stands for the
//! same broadcast dimensions in every operand, aligned at their ends. The
//! summed labels become reduction axes named after themselves, in sorted
//! order after the ellipsis' own (each named `k`).

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ArgRef};
use crate::functions::BuildFailure;
use crate::object::Object;
use crate::objects::{constant_value, element, to_element};
use crate::topi_ops::tensor_arg as tensor;
use crate::value::Value;
use crate::Host;
use arith::Expr;
use std::collections::{BTreeMap, BTreeSet};
use te::Attrs;

/// The ellipsis among the labels; below every letter, so it sorts first.
const ELLIPSIS: u8 = 0;

/// `einsum` from a call: `packed` for the C++ form, whose operands come
/// as one sequence.
pub(crate) fn call(host: &mut dyn Host, args: Args, packed: bool) -> ApiResult<Value> {
    let (subscripts, operands) = if packed {
        let a = args.bind("einsum", &["subscripts_str", "inputs"])?;
        let s = a.required("subscripts_str")?;
        let ops = a.required("inputs")?;
        let items = ops.value.sequence().ok_or_else(|| {
            type_error(
                ops.place(),
                format!(
                    "`inputs` is a tuple of tensors, found a {}",
                    ops.value.type_name()
                ),
            )
        })?;
        let tensors = items
            .into_iter()
            .map(|v| tensor(&ops.item(v), "einsum"))
            .collect::<ApiResult<Vec<_>>>()?;
        (string(s)?, tensors)
    } else {
        let mut given = args.positional_only("einsum")?.into_iter();
        let s = given.next().ok_or_else(|| {
            ApiError::type_error("`einsum` needs the subscripts, then the operands")
        })?;
        let tensors = given
            .map(|g| tensor(&g, "einsum"))
            .collect::<ApiResult<Vec<_>>>()?;
        (string(&s)?, tensors)
    };
    einsum(host, &subscripts, &operands).map(|t| Value::Object(Object::Tensor(t)))
}

fn string(g: &Given) -> ApiResult<String> {
    match &g.value {
        Value::Str(s) => Ok(s.to_string()),
        other => Err(type_error(
            g.place(),
            format!("the subscripts are a string, found a {}", other.type_name()),
        )),
    }
}

/// An einsum equation in explicit form: the labels of each input and of
/// the output, [`ELLIPSIS`] standing for `...`.
#[derive(Debug, PartialEq, Eq)]
struct Equation {
    inputs: Vec<Vec<u8>>,
    output: Vec<u8>,
}

fn parse_error(equation: &str, why: &str) -> ApiError {
    ApiError::value_error(format!(
        "cannot parse the einsum equation `{equation}`: {why}"
    ))
    .at(ArgRef::Positional(0))
}

impl Equation {
    /// Reads `equation` (TOPI's `EinsumEquation::FromString`).
    fn parse(equation: &str) -> ApiResult<Equation> {
        let bytes = equation.as_bytes();
        let (mut inputs, mut current) = (Vec::new(), Vec::new());
        let (mut arrow, mut ellipsis) = (false, false);
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b' ' => {}
                b'-' | b',' => {
                    if bytes[i] == b'-' {
                        if arrow {
                            return Err(parse_error(equation, "it can have only one arrow"));
                        }
                        if bytes.get(i + 1) != Some(&b'>') {
                            return Err(parse_error(equation, "`-` must start an arrow `->`"));
                        }
                        i += 1;
                        arrow = true;
                    } else if arrow {
                        return Err(parse_error(equation, "the output comes last, after `->`"));
                    }
                    inputs.push(std::mem::take(&mut current));
                    ellipsis = false;
                }
                b'.' => {
                    if ellipsis {
                        return Err(parse_error(
                            equation,
                            "an ellipsis can appear once in each input and in the output",
                        ));
                    }
                    if bytes.get(i + 1) != Some(&b'.') || bytes.get(i + 2) != Some(&b'.') {
                        return Err(parse_error(equation, "an ellipsis is three dots `...`"));
                    }
                    current.push(ELLIPSIS);
                    ellipsis = true;
                    i += 2;
                }
                c if c.is_ascii_alphabetic() => current.push(c),
                _ => {
                    let c = equation[i..].chars().next().unwrap_or('?');
                    return Err(parse_error(
                        equation,
                        &format!("`{c}` is not a label (labels are letters)"),
                    ));
                }
            }
            i += 1;
        }
        let output = if arrow {
            current
        } else {
            inputs.push(current);
            let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
            for label in inputs.iter().flatten() {
                *counts.entry(*label).or_default() += 1;
            }
            counts
                .into_iter()
                .filter(|&(l, n)| l == ELLIPSIS || n == 1)
                .map(|(l, _)| l)
                .collect()
        };
        Ok(Equation { inputs, output })
    }
}

fn label_name(label: u8) -> String {
    if label == ELLIPSIS {
        "...".to_string()
    } else {
        char::from(label).to_string()
    }
}

/// TOPI's `GetBroadcastedExtent`: equal constants stay, a constant 1
/// gives way, a symbolic extent wins over a constant, two symbolic ones
/// give their maximum.
fn broadcast_extent(a: &Expr, b: &Expr, label: u8) -> ApiResult<Expr> {
    Ok(match (constant_value(a), constant_value(b)) {
        (Some(x), Some(y)) if x == y => a.clone(),
        (Some(x), Some(y)) if x == 1 || y == 1 => Expr::int(x.max(y)),
        (Some(x), Some(y)) => {
            return Err(ApiError::value_error(format!(
                "einsum: label `{}` has the extents {x} and {y}, which do not broadcast",
                label_name(label)
            )))
        }
        (Some(_), None) => b.clone(),
        (None, Some(_)) => a.clone(),
        (None, None) => Expr::max(a.clone(), b.clone()),
    })
}

/// NumPy's broadcast of two shapes aligned at their ends.
fn broadcast_shapes(a: &[Expr], b: &[Expr]) -> ApiResult<Vec<Expr>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|d| {
            let dim = |s: &[Expr]| (d + s.len()).checked_sub(n).map(|i| s[i].clone());
            match (dim(a), dim(b)) {
                (Some(x), Some(y)) => broadcast_extent(&x, &y, ELLIPSIS),
                (Some(x), None) | (None, Some(x)) => Ok(x),
                (None, None) => Ok(Expr::int(1)),
            }
        })
        .collect()
}

/// TOPI's `einsum`.
fn einsum(host: &mut dyn Host, equation: &str, operands: &[te::Tensor]) -> ApiResult<te::Tensor> {
    let eq = Equation::parse(equation)?;
    if eq.inputs.len() != operands.len() {
        return Err(ApiError::value_error(format!(
            "einsum: the equation `{equation}` has {} operands, but {} tensors were given",
            eq.inputs.len(),
            operands.len()
        )));
    }
    if operands.is_empty() {
        return Err(ApiError::value_error("einsum needs at least one operand"));
    }
    // Each label's extent, broadcast over its uses; each operand's part
    // under the ellipsis.
    let mut extents: BTreeMap<u8, Expr> = BTreeMap::new();
    let mut ellipsis_parts: Vec<Vec<Expr>> = Vec::new();
    for (labels, t) in eq.inputs.iter().zip(operands) {
        let shape = t.shape();
        let with_ellipsis = labels.contains(&ELLIPSIS);
        let fits = if with_ellipsis {
            shape.len() + 1 >= labels.len()
        } else {
            shape.len() == labels.len()
        };
        if !fits {
            return Err(ApiError::value_error(format!(
                "einsum: the subscripts `{}` do not fit `{}` of {} dimensions",
                labels.iter().map(|&l| label_name(l)).collect::<String>(),
                t.name(),
                shape.len()
            )));
        }
        let mut dim = 0;
        for &label in labels {
            if label == ELLIPSIS {
                let n = shape.len() + 1 - labels.len();
                ellipsis_parts.push(shape[dim..dim + n].to_vec());
                dim += n;
            } else {
                let extent = &shape[dim];
                dim += 1;
                let merged = match extents.get(&label) {
                    None => extent.clone(),
                    Some(e) => broadcast_extent(e, extent, label)?,
                };
                extents.insert(label, merged);
            }
        }
    }
    let ellipsis_shape = match ellipsis_parts.iter().max_by_key(|p| p.len()) {
        None => Vec::new(),
        Some(longest) => {
            let mut shape = longest.clone();
            for part in &ellipsis_parts {
                shape = broadcast_shapes(&shape, part)?;
            }
            shape
        }
    };
    let mut seen = BTreeSet::new();
    let mut out_shape = Vec::new();
    for &label in &eq.output {
        if !seen.insert(label) {
            return Err(ApiError::value_error(format!(
                "einsum: the output names `{}` twice",
                label_name(label)
            )));
        }
        if label == ELLIPSIS {
            if ellipsis_parts.is_empty() {
                return Err(ApiError::value_error(
                    "einsum: the output has an ellipsis that no input has",
                ));
            }
            out_shape.extend(ellipsis_shape.iter().cloned());
        } else {
            let extent = extents.get(&label).ok_or_else(|| {
                ApiError::value_error(format!(
                    "einsum: the output label `{}` is in no input",
                    label_name(label)
                ))
            })?;
            out_shape.push(extent.clone());
        }
    }
    // The summed labels, sorted, the ellipsis first (TOPI's `std::set`).
    let mut reduced: BTreeSet<u8> = eq.inputs.iter().flatten().copied().collect();
    for label in &eq.output {
        reduced.remove(label);
    }
    let mut reduce_axes = Vec::new();
    let mut reduce_of: BTreeMap<u8, Expr> = BTreeMap::new();
    let mut ellipsis_reduce = Vec::new();
    for &label in &reduced {
        if label == ELLIPSIS {
            for extent in &ellipsis_shape {
                let iv = te::reduce_axis((Expr::int(0), extent.clone()), "k");
                ellipsis_reduce.push(iv.expr());
                reduce_axes.push(iv);
            }
        } else {
            let iv = te::reduce_axis((Expr::int(0), extents[&label].clone()), &label_name(label));
            reduce_of.insert(label, iv.expr());
            reduce_axes.push(iv);
        }
    }
    crate::topi_ops::note_reduce_axes(host, &reduce_axes);
    let names: Vec<String> = (0..out_shape.len()).map(|d| format!("ax{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    te::try_compute_tagged::<BuildFailure>(
        out_shape,
        &names,
        |o| {
            let mut index_of = reduce_of.clone();
            let mut ellipsis_index = Vec::new();
            let mut k = 0;
            for &label in &eq.output {
                if label == ELLIPSIS {
                    ellipsis_index.extend_from_slice(&o[k..k + ellipsis_shape.len()]);
                    k += ellipsis_shape.len();
                } else {
                    index_of.insert(label, o[k].clone());
                    k += 1;
                }
            }
            if ellipsis_index.is_empty() {
                ellipsis_index = ellipsis_reduce.clone();
            }
            // A dimension of size 1 broadcast to more is read at 0.
            let read = |i: &Expr, extent: &Expr, full: &Expr| {
                if constant_value(extent) == Some(1) && constant_value(full) != Some(1) {
                    Expr::int(0)
                } else {
                    i.clone()
                }
            };
            let mut product: Option<Value> = None;
            for (labels, t) in eq.inputs.iter().zip(operands) {
                let shape = t.shape();
                let mut at = Vec::with_capacity(shape.len());
                let mut dim = 0;
                for &label in labels {
                    if label == ELLIPSIS {
                        let n = shape.len() + 1 - labels.len();
                        for j in ellipsis_index.len() - n..ellipsis_index.len() {
                            at.push(read(&ellipsis_index[j], &shape[dim], &ellipsis_shape[j]));
                            dim += 1;
                        }
                    } else {
                        at.push(read(&index_of[&label], &shape[dim], &extents[&label]));
                        dim += 1;
                    }
                }
                let term = element(t.at(at));
                // `result * term` with TVM's operator, which matches the
                // operands' types.
                product = Some(match product {
                    None => term,
                    Some(p) => crate::operators::binary(crate::BinaryOp::Mul, &p, &term)
                        .map_err(BuildFailure::Host)?,
                });
            }
            let product = to_element(&product.expect("at least one operand"), None)
                .map_err(BuildFailure::Host)?;
            Ok(if reduce_axes.is_empty() {
                product
            } else {
                te::sum(product, &reduce_axes)
            })
        },
        "T_einsum",
        "einsum",
        Attrs::new(),
    )
    .map_err(ApiError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_output_is_the_labels_used_once_sorted_with_the_ellipsis_first() {
        let eq = Equation::parse("...ij, jk").unwrap();
        assert_eq!(
            eq.inputs,
            vec![vec![ELLIPSIS, b'i', b'j'], vec![b'j', b'k']]
        );
        assert_eq!(eq.output, vec![ELLIPSIS, b'i', b'k']);
        let eq = Equation::parse("ba,ab").unwrap();
        assert!(eq.output.is_empty());
    }

    #[test]
    fn explicit_output_and_bad_equations() {
        let eq = Equation::parse("bik,bjk->bij").unwrap();
        assert_eq!(eq.output, b"bij".to_vec());
        for bad in ["ij->j->i", "i-j", "i..j", "i1", "....i", "i->j,k"] {
            assert!(Equation::parse(bad).is_err(), "{bad}");
        }
    }
}
