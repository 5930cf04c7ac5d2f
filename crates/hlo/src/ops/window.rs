//! Windows over padded, dilated bases: `reduce-window`, and the spatial
//! dimensions of `convolution`.
//!
//! Output index `d` with window position `s` touches position
//! `p = d * stride + s * window_dilation - pad_low` of the padded, dilated
//! base. That is input element `p / base_dilation` when `p` is inside the
//! dilated base (`0 <= p <= (n - 1) * base_dilation`) and on the dilation
//! grid (`p mod base_dilation == 0`); otherwise it is padding.

use super::builder::MapBuilder;
use super::{Op, OpMaps};
use crate::attrs::WindowDim;
use crate::error::AnalysisError;
use crate::operand_indexing::OperandIndexing;
use crate::ops::Unsupported;
use arith::Expr;
use indexing::Interval;

/// The window-position variable of a dimension: a range variable over the
/// window, or `0` for a window of size 1 (XLA adds no variable then).
pub(crate) fn window_symbol(b: &mut MapBuilder, w: &WindowDim) -> Expr {
    if w.size > 1 {
        b.symbol(w.size)
    } else {
        Expr::int(0)
    }
}

/// The input index read at output index `d` and window position `s` over an
/// input dimension of `n` elements; adds the constraints that exclude padding.
pub(crate) fn window_input_index(
    b: &mut MapBuilder,
    d: Expr,
    s: Expr,
    w: &WindowDim,
    n: i64,
) -> Result<Expr, Unsupported> {
    let span = (n - 1)
        .checked_mul(w.base_dilation)
        .ok_or_else(|| AnalysisError::composition("window size overflows"))?;
    let position = d * w.stride + s * w.window_dilation;
    b.constrain(
        position.clone(),
        Interval::new(
            w.pad_low,
            w.pad_low
                .checked_add(span)
                .ok_or_else(|| AnalysisError::composition("window size overflows"))?,
        ),
    );
    let position = position - w.pad_low;
    if w.base_dilation > 1 {
        b.constrain(
            Expr::floor_mod(position.clone(), Expr::int(w.base_dilation)),
            Interval::point(0),
        );
        Ok(Expr::floor_div(position, Expr::int(w.base_dilation)))
    } else {
        Ok(position)
    }
}

/// The output index reached by input index `p` at window position `s`, over
/// an output dimension of `out` elements; adds the constraints that keep
/// only real windows.
pub(crate) fn window_output_index(
    b: &mut MapBuilder,
    p: Expr,
    s: Expr,
    w: &WindowDim,
    out: i64,
) -> Expr {
    let numerator = p * w.base_dilation + w.pad_low - s * w.window_dilation;
    b.constrain(
        numerator.clone(),
        Interval::new(0, (out - 1).saturating_mul(w.stride)),
    );
    if w.stride > 1 {
        b.constrain(
            Expr::floor_mod(numerator.clone(), Expr::int(w.stride)),
            Interval::point(0),
        );
        Expr::floor_div(numerator, Expr::int(w.stride))
    } else {
        numerator
    }
}

/// Checks that a window of `w` over `n` elements gives `out` elements.
pub(crate) fn check_window(w: &WindowDim, n: i64, out: i64, name: &str) -> Result<(), Unsupported> {
    let overflow = || AnalysisError::invalid(format!("`{name}`: window arithmetic overflows"));
    let dilated_base = if n == 0 {
        0
    } else {
        (n - 1)
            .checked_mul(w.base_dilation)
            .and_then(|v| v.checked_add(1))
            .ok_or_else(overflow)?
    };
    let padded = dilated_base
        .checked_add(w.pad_low)
        .and_then(|v| v.checked_add(w.pad_high))
        .ok_or_else(overflow)?;
    let dilated_window = if w.size == 0 {
        0
    } else {
        (w.size - 1)
            .checked_mul(w.window_dilation)
            .and_then(|v| v.checked_add(1))
            .ok_or_else(overflow)?
    };
    let expected = if padded < dilated_window {
        0
    } else {
        (padded - dilated_window) / w.stride + 1
    };
    if expected != out {
        return Err(AnalysisError::invalid(format!("`{name}`: a window of {} (stride {}) over {n} padded elements gives {expected} outputs, the shape says {out}", w.size, w.stride)));
    }
    Ok(())
}

struct ReduceWindow<'a> {
    n: usize,
    inp: &'a [i64],
    out: &'a [i64],
    window: &'a [WindowDim],
}

fn signature<'a>(op: &Op<'a>) -> Result<ReduceWindow<'a>, Unsupported> {
    let total = op.num_operands();
    if total == 0 || !total.is_multiple_of(2) {
        return Err(AnalysisError::invalid(format!(
            "reduce-window `{}` needs as many inits as inputs",
            op.instr.name
        )));
    }
    let n = total / 2;
    let inp = op.operand_dims(0)?;
    let out = op.output_dims(0)?;
    for k in 0..n {
        if op.operand_dims(k)? != inp
            || op.output_dims(k)? != out
            || !op.operand_dims(n + k)?.is_empty()
        {
            return Err(AnalysisError::invalid(format!(
                "reduce-window `{}`: inputs, outputs or inits do not match",
                op.instr.name
            )));
        }
    }
    let window = op.instr.attrs.window().ok_or_else(|| {
        AnalysisError::invalid(format!(
            "reduce-window `{}` has no `window=`",
            op.instr.name
        ))
    })?;
    if window.len() != inp.len() || out.len() != inp.len() {
        return Err(AnalysisError::invalid(format!(
            "reduce-window `{}`: the window has {} dimensions, the input {}",
            op.instr.name,
            window.len(),
            inp.len()
        )));
    }
    for i in 0..inp.len() {
        check_window(&window[i], inp[i], out[i], &op.instr.name)?;
    }
    Ok(ReduceWindow {
        n,
        inp,
        out,
        window,
    })
}

/// Every input is read over the window of each output element; every init
/// once.
pub(crate) fn reduce_window_output_to_input(op: &Op, output: usize) -> OpMaps {
    let rw = signature(op)?;
    let _ = op.output_dims(output)?;
    let mut b = MapBuilder::over(rw.out);
    let symbols: Vec<Expr> = rw.window.iter().map(|w| window_symbol(&mut b, w)).collect();
    let mut results = Vec::with_capacity(rw.inp.len());
    for (i, (s, w)) in symbols.iter().zip(rw.window).enumerate() {
        let d = b.dim(i);
        results.push(window_input_index(&mut b, d, s.clone(), w, rw.inp[i])?);
    }
    let input_map = b.build(results)?;
    let init_map = MapBuilder::over(rw.out).to_scalar()?;
    let mut maps = vec![OperandIndexing::single(input_map); rw.n];
    maps.extend(std::iter::repeat_n(OperandIndexing::single(init_map), rw.n));
    Ok(maps)
}

/// An input element reaches every output whose window covers it; an init
/// reaches every output element.
pub(crate) fn reduce_window_input_to_output(op: &Op, input: usize) -> OpMaps {
    let rw = signature(op)?;
    let map = if input < rw.n {
        let mut b = MapBuilder::over(rw.inp);
        let symbols: Vec<Expr> = rw.window.iter().map(|w| window_symbol(&mut b, w)).collect();
        let mut results = Vec::with_capacity(rw.out.len());
        for (i, (s, w)) in symbols.iter().zip(rw.window).enumerate() {
            let p = b.dim(i);
            results.push(window_output_index(&mut b, p, s.clone(), w, rw.out[i]));
        }
        b.build(results)?
    } else {
        let mut b = MapBuilder::over(&[]);
        let results = rw.out.iter().map(|&n| b.symbol(n)).collect();
        b.build(results)?
    };
    Ok(vec![OperandIndexing::single(map); rw.n])
}
