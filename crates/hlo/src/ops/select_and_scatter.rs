//! `select-and-scatter`: the gradient of max pooling.
//!
//! The operand and the output share one shape; the source has the shape of a
//! `reduce-window` of the operand with the op's window. Every output element
//! starts at the init value; for each source element `d`, the select
//! computation compares the operand elements of `d`'s window and picks one,
//! and `source[d]` is added to the output at the picked position. The window
//! arithmetic (padding, strides) is the one of [`super::window`]; padding is
//! never picked.
//!
//! Output to input, at output `o`:
//! - operand: every operand element of every window containing `o` (exact:
//!   whether `o` is picked in a window depends on every element compared
//!   there, and nothing else of the operand decides it);
//! - source: every source element whose window contains `o` (conservative:
//!   only those whose pick lands on `o` are added);
//! - init: the scalar (exact: every output starts from it).
//!
//! Input to output: an operand element reaches every position of every
//! window containing it (exact, the converse of the operand map above); a
//! source element reaches every position of its window (conservative: it
//! lands on one); the init reaches every output element.

use super::builder::MapBuilder;
use super::window::{check_window, window_input_index, window_output_index, window_symbol};
use super::{Op, OpMaps};
use crate::attrs::WindowDim;
use crate::error::AnalysisError;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use crate::ops::Unsupported;
use arith::Expr;
use indexing::IndexingMap;

/// Why a source map is conservative.
const PICKED: &str = "select-and-scatter adds a source element at one position of its window, picked by comparing operand values";

struct SelectAndScatter<'a> {
    operand: &'a [i64],
    source: &'a [i64],
    window: &'a [WindowDim],
}

fn signature<'a>(op: &Op<'a>) -> Result<SelectAndScatter<'a>, Unsupported> {
    let name = &op.instr.name;
    let operand = op.operand_dims(0)?;
    let source = op.operand_dims(1)?;
    if !op.operand_dims(2)?.is_empty() || op.output_dims(0)? != operand {
        return Err(AnalysisError::invalid(format!(
            "select-and-scatter `{name}`: the output must have the operand's shape and the init must be a scalar"
        )));
    }
    let window = op.instr.attrs.window().ok_or_else(|| {
        AnalysisError::invalid(format!("select-and-scatter `{name}` has no `window=`"))
    })?;
    if window.len() != operand.len() || source.len() != operand.len() {
        return Err(AnalysisError::invalid(format!(
            "select-and-scatter `{name}`: the window has {} dimensions, the operand {} and the source {}",
            window.len(),
            operand.len(),
            source.len()
        )));
    }
    for i in 0..operand.len() {
        check_window(&window[i], operand[i], source[i], name)?;
    }
    Ok(SelectAndScatter {
        operand,
        source,
        window,
    })
}

/// The source indices whose windows contain operand-shaped index `b.dim(i)`.
fn containing_windows(b: &mut MapBuilder, ss: &SelectAndScatter) -> Vec<Expr> {
    let symbols: Vec<Expr> = ss.window.iter().map(|w| window_symbol(b, w)).collect();
    let mut windows = Vec::with_capacity(ss.source.len());
    for (i, (s, w)) in symbols.into_iter().zip(ss.window).enumerate() {
        let p = b.dim(i);
        windows.push(window_output_index(b, p, s, w, ss.source[i]));
    }
    windows
}

/// The operand indices of the windows of source indices `windows`.
fn window_elements(
    b: &mut MapBuilder,
    ss: &SelectAndScatter,
    windows: Vec<Expr>,
) -> Result<Vec<Expr>, Unsupported> {
    let symbols: Vec<Expr> = ss.window.iter().map(|w| window_symbol(b, w)).collect();
    let mut elements = Vec::with_capacity(ss.operand.len());
    for (i, ((d, s), w)) in windows.into_iter().zip(symbols).zip(ss.window).enumerate() {
        elements.push(window_input_index(b, d, s, w, ss.operand[i])?);
    }
    Ok(elements)
}

/// Operand-shaped index to every operand-shaped index sharing a window with
/// it (a symmetric relation: the same map serves both directions).
fn shared_windows(ss: &SelectAndScatter) -> Result<IndexingMap, Unsupported> {
    let mut b = MapBuilder::over(ss.operand);
    let windows = containing_windows(&mut b, ss);
    let elements = window_elements(&mut b, ss, windows)?;
    b.build(elements)
}

/// Output element to operand (exact), source (conservative) and init.
pub(crate) fn output_to_input(op: &Op) -> OpMaps {
    let ss = signature(op)?;
    let operand = shared_windows(&ss)?;
    let mut b = MapBuilder::over(ss.operand);
    let windows = containing_windows(&mut b, &ss);
    let source = b.build(windows)?;
    let init = MapBuilder::over(ss.operand).to_scalar()?;
    Ok(vec![
        OperandIndexing::single(operand),
        OperandIndexing::Maps(vec![OperandMap::conservative(source, PICKED)]),
        OperandIndexing::single(init),
    ])
}

/// Operand element (exact), source element (conservative) or init to the
/// output elements it reaches.
pub(crate) fn input_to_output(op: &Op, input: usize) -> OpMaps {
    let ss = signature(op)?;
    let indexing = match input {
        0 => OperandIndexing::single(shared_windows(&ss)?),
        1 => {
            let mut b = MapBuilder::over(ss.source);
            let windows = (0..ss.source.len()).map(|i| b.dim(i)).collect();
            let elements = window_elements(&mut b, &ss, windows)?;
            OperandIndexing::Maps(vec![OperandMap::conservative(b.build(elements)?, PICKED)])
        }
        _ => {
            let mut b = MapBuilder::over(&[]);
            let results = ss.operand.iter().map(|&n| b.symbol(n)).collect();
            OperandIndexing::single(b.build(results)?)
        }
    };
    Ok(vec![indexing])
}
