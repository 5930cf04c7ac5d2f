//! `convolution`: spatial dimensions are windows (strides, padding, base and
//! window dilation, reversal), the input feature is contracted per feature
//! group, and batch groups enumerate the input batches of every group.

use super::builder::MapBuilder;
use super::window::{check_window, window_input_index, window_output_index, window_symbol};
use super::{Op, OpMaps};
use crate::attrs::{ConvDimLabels, WindowDim};
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use arith::Expr;

struct Conv<'a> {
    lhs: &'a [i64],
    rhs: &'a [i64],
    out: &'a [i64],
    labels: &'a ConvDimLabels,
    window: Vec<WindowDim>,
    feature_groups: i64,
    batch_groups: i64,
}

fn signature<'a>(op: &Op<'a>) -> Result<Conv<'a>, Unsupported> {
    let name = &op.instr.name;
    if op.num_operands() != 2 {
        return Err(AnalysisError::invalid(format!(
            "convolution `{name}` needs two operands"
        )));
    }
    let lhs = op.operand_dims(0)?;
    let rhs = op.operand_dims(1)?;
    let out = op.output_dims(0)?;
    let labels = op.instr.attrs.dim_labels().ok_or_else(|| {
        AnalysisError::invalid(format!("convolution `{name}` has no `dim_labels=`"))
    })?;
    let nsp = labels.input_spatial.len();
    if lhs.len() != nsp + 2 || rhs.len() != nsp + 2 || out.len() != nsp + 2 {
        return Err(AnalysisError::invalid(format!(
            "convolution `{name}`: `dim_labels=` does not match the ranks"
        )));
    }
    let mut window: Vec<WindowDim> = op
        .instr
        .attrs
        .window()
        .map(<[WindowDim]>::to_vec)
        .unwrap_or_default();
    if window.is_empty() && nsp > 0 {
        window = labels
            .kernel_spatial
            .iter()
            .map(|&k| WindowDim {
                size: rhs[k],
                ..WindowDim::default()
            })
            .collect();
    }
    if window.len() != nsp {
        return Err(AnalysisError::invalid(format!("convolution `{name}`: the window has {} dimensions, the convolution {nsp} spatial ones", window.len())));
    }
    let feature_groups = op.instr.attrs.int("feature_group_count").unwrap_or(1);
    let batch_groups = op.instr.attrs.int("batch_group_count").unwrap_or(1);
    if feature_groups < 1 || batch_groups < 1 {
        return Err(AnalysisError::invalid(format!(
            "convolution `{name}`: group counts must be positive"
        )));
    }
    let in_features = lhs[labels.input_feature];
    let out_features = out[labels.output_feature];
    if in_features % feature_groups != 0
        || out_features % feature_groups != 0
        || rhs[labels.kernel_input_feature] != in_features / feature_groups
        || rhs[labels.kernel_output_feature] != out_features
        || lhs[labels.input_batch] % batch_groups != 0
        || out[labels.output_batch] != lhs[labels.input_batch] / batch_groups
        || out_features % batch_groups != 0
    {
        return Err(AnalysisError::invalid(format!(
            "convolution `{name}`: feature or batch dimensions do not match the group counts"
        )));
    }
    for (i, w) in window.iter().enumerate() {
        if w.size != rhs[labels.kernel_spatial[i]] {
            return Err(AnalysisError::invalid(format!(
                "convolution `{name}`: window size {} differs from kernel size {}",
                w.size, rhs[labels.kernel_spatial[i]]
            )));
        }
        check_window(
            w,
            lhs[labels.input_spatial[i]],
            out[labels.output_spatial[i]],
            name,
        )?;
    }
    Ok(Conv {
        lhs,
        rhs,
        out,
        labels,
        window,
        feature_groups,
        batch_groups,
    })
}

/// The lhs is read over the window, the input features of the output
/// feature's group and, with batch groups, every batch group; the kernel at
/// the window position (reversed when asked), those input features and the
/// output feature.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let c = signature(op)?;
    let l = c.labels;
    let mut b = MapBuilder::over(c.out);
    let spatial: Vec<Expr> = c.window.iter().map(|w| window_symbol(&mut b, w)).collect();
    let per_group = c.lhs[l.input_feature] / c.feature_groups;
    let feature = if per_group > 1 {
        b.symbol(per_group)
    } else {
        Expr::int(0)
    };
    let rhs_builder = b.clone();

    let mut kernel = vec![Expr::int(0); c.rhs.len()];
    kernel[l.kernel_input_feature] = feature.clone();
    kernel[l.kernel_output_feature] = b.dim(l.output_feature);
    for (i, w) in c.window.iter().enumerate() {
        kernel[l.kernel_spatial[i]] = if w.reversal {
            Expr::int(w.size - 1) - spatial[i].clone()
        } else {
            spatial[i].clone()
        };
    }
    let rhs_map = rhs_builder.build(kernel)?;

    let mut input = vec![Expr::int(0); c.lhs.len()];
    for (i, w) in c.window.iter().enumerate() {
        let d = b.dim(l.output_spatial[i]);
        input[l.input_spatial[i]] =
            window_input_index(&mut b, d, spatial[i].clone(), w, c.lhs[l.input_spatial[i]])?;
    }
    let out_per_group = c.out[l.output_feature] / c.feature_groups;
    input[l.input_feature] = if c.feature_groups > 1 {
        Expr::floor_div(b.dim(l.output_feature), Expr::int(out_per_group)) * per_group + feature
    } else {
        feature
    };
    input[l.input_batch] = if c.batch_groups > 1 {
        // XLA enumerates every batch group (a sound over-approximation: each
        // output feature group reads only its own).
        let group = b.symbol(c.batch_groups);
        group * c.out[l.output_batch] + b.dim(l.output_batch)
    } else {
        b.dim(l.output_batch)
    };
    let lhs_map = b.build(input)?;
    Ok(vec![
        OperandIndexing::single(lhs_map),
        OperandIndexing::single(rhs_map),
    ])
}

/// An lhs element reaches the outputs whose window covers it, in every
/// output feature of its feature group (with batch groups: of its batch
/// group, at batch `b mod output batch`); a kernel element reaches every
/// output batch and spatial position at its output feature. Unlike the
/// output-to-input map, this direction is exact for batch groups.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let c = signature(op)?;
    let l = c.labels;
    let mut results = vec![Expr::int(0); c.out.len()];
    let map = match input {
        0 => {
            if c.batch_groups > 1 && c.feature_groups > 1 {
                return Err(AnalysisError::unsupported(format!(
                    "convolution `{}` has both feature and batch groups",
                    op.instr.name
                )));
            }
            let mut b = MapBuilder::over(c.lhs);
            let spatial: Vec<Expr> = c.window.iter().map(|w| window_symbol(&mut b, w)).collect();
            let out_batch = c.out[l.output_batch];
            // The output feature group this element feeds: its feature group,
            // or with batch groups its batch group.
            let (groups, group) = if c.feature_groups > 1 {
                let in_per_group = c.lhs[l.input_feature] / c.feature_groups;
                (
                    c.feature_groups,
                    Expr::floor_div(b.dim(l.input_feature), Expr::int(in_per_group)),
                )
            } else {
                (
                    c.batch_groups,
                    Expr::floor_div(b.dim(l.input_batch), Expr::int(out_batch)),
                )
            };
            let out_per_group = c.out[l.output_feature] / groups;
            let feature = b.symbol(out_per_group);
            results[l.output_batch] = if c.batch_groups > 1 {
                Expr::floor_mod(b.dim(l.input_batch), Expr::int(out_batch))
            } else {
                b.dim(l.input_batch)
            };
            results[l.output_feature] = if groups > 1 {
                group * out_per_group + feature
            } else {
                feature
            };
            for (i, w) in c.window.iter().enumerate() {
                let p = b.dim(l.input_spatial[i]);
                results[l.output_spatial[i]] = window_output_index(
                    &mut b,
                    p,
                    spatial[i].clone(),
                    w,
                    c.out[l.output_spatial[i]],
                );
            }
            b.build(results)?
        }
        1 => {
            let mut b = MapBuilder::over(c.rhs);
            results[l.output_batch] = b.symbol(c.out[l.output_batch]);
            results[l.output_feature] = b.dim(l.kernel_output_feature);
            for i in 0..c.window.len() {
                results[l.output_spatial[i]] = b.symbol(c.out[l.output_spatial[i]]);
            }
            b.build(results)?
        }
        _ => {
            return Err(AnalysisError::invalid(format!(
                "convolution `{}` has two operands",
                op.instr.name
            )))
        }
    };
    Ok(vec![OperandIndexing::single(map)])
}
