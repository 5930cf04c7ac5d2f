//! Shapes and indices as a command line writes them: `16,64,64,128`,
//! `M,N,P,Q`, `[11, 37, 23, 101]`.

use crate::error::{ErrorKind, LayoutError, Result};
use crate::lambda::split_top_level;
use arith::{Expr, Scope};
use std::ops::Range;

/// The spans of the comma-separated entries of `text`, which may be
/// wrapped in `[...]` or `(...)`.
fn entries(text: &str) -> Result<Vec<Range<usize>>> {
    let t = text.trim();
    let start = text.len() - text.trim_start().len();
    let inner =
        if (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('(') && t.ends_with(')')) {
            start + 1..start + t.len() - 1
        } else {
            start..start + t.len()
        };
    let mut out = Vec::new();
    for span in split_top_level(text, inner)? {
        let s = &text[span.clone()];
        let a = span.start + (s.len() - s.trim_start().len());
        let b = span.end - (s.len() - s.trim_end().len());
        if a >= b {
            return Err(
                LayoutError::new(ErrorKind::Syntax, "empty entry in the list")
                    .at(Some(span.start..(span.start + 1).min(text.len()))),
            );
        }
        out.push(a..b);
    }
    Ok(out)
}

/// Parses a shape: each extent a positive integer or an expression over
/// shape symbols (`N`, `ceildiv(Q, 4)`), whose names go into `scope`.
///
/// ```
/// let mut scope = arith::Scope::new();
/// let s = layout::parse_shape("M, 64", &mut scope).unwrap();
/// assert_eq!(s[0].to_string(), "M");
/// assert!(layout::parse_shape("16, 0", &mut scope).is_err());
/// ```
pub fn parse_shape(text: &str, scope: &mut Scope) -> Result<Vec<Expr>> {
    shape_in(text, scope).map_err(|e| e.within(text))
}

fn shape_in(text: &str, scope: &mut Scope) -> Result<Vec<Expr>> {
    let mut out = Vec::new();
    for span in entries(text)? {
        let e = arith::parse_in(&text[span.clone()], scope)
            .map_err(|e| LayoutError::from(e.shifted(span.start)))?;
        if e.ty() != arith::Type::Int {
            return Err(
                LayoutError::new(ErrorKind::Syntax, "an extent must be an integer").at(Some(span)),
            );
        }
        // A constant written as an expression (`--4`, `2 * 8`) is its value,
        // checked like a literal.
        let e = if e.vars().is_empty() {
            Expr::int(e.eval(&|_| None).map_err(|x| {
                LayoutError::new(ErrorKind::Arith, format!("extent `{e}`: {}", x.message))
                    .at(Some(span.clone()))
            })?)
        } else {
            e
        };
        if e.as_int().is_some_and(|v| v < 1) {
            return Err(LayoutError::new(
                ErrorKind::OutOfBounds,
                format!("extent {e} must be at least 1"),
            )
            .at(Some(span)));
        }
        out.push(e);
    }
    Ok(out)
}

/// Parses a constant index (non-negative integers, one per extent).
pub fn parse_index(text: &str, shape: &[Expr]) -> Result<Vec<i64>> {
    index_in(text, shape).map_err(|e| e.within(text))
}

fn index_in(text: &str, shape: &[Expr]) -> Result<Vec<i64>> {
    let spans = entries(text)?;
    if spans.len() != shape.len() {
        return Err(LayoutError::new(
            ErrorKind::Arity,
            format!(
                "the index has {} entries but the shape has {}",
                spans.len(),
                shape.len()
            ),
        )
        .at(Some(0..text.len())));
    }
    let mut out = Vec::new();
    for span in spans {
        let e = arith::parse(&text[span.clone()])
            .map_err(|e| LayoutError::from(e.shifted(span.start)))?;
        let Some(v) = e.as_int() else {
            return Err(
                LayoutError::new(ErrorKind::Syntax, "an index entry must be an integer")
                    .at(Some(span)),
            );
        };
        if v < 0 {
            return Err(
                LayoutError::new(ErrorKind::OutOfBounds, format!("index {v} is negative"))
                    .at(Some(span)),
            );
        }
        out.push(v);
    }
    Ok(out)
}

/// The first entry of `index` at or beyond its constant extent, with its
/// span in `text` (the seed's worked examples index past the shape to show
/// the arithmetic; callers warn rather than fail).
pub fn index_beyond_shape(
    text: &str,
    index: &[i64],
    shape: &[Expr],
) -> Option<(String, Range<usize>)> {
    let spans = entries(text).ok()?;
    index
        .iter()
        .zip(shape)
        .zip(spans)
        .find_map(|((&v, e), span)| {
            let n = e.as_int()?;
            (v >= n).then(|| {
                (
                    format!("index {v} is outside [0, {n}): it lands outside the logical buffer"),
                    span,
                )
            })
        })
}
