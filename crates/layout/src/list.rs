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
    let inner = if (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('(') && t.ends_with(')')) {
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
            return Err(LayoutError::new(ErrorKind::Syntax, "empty entry in the list")
                .at(Some(span.start..(span.start + 1).min(text.len()))));
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
    let mut out = Vec::new();
    for span in entries(text)? {
        let e = arith::parse_in(&text[span.clone()], scope)
            .map_err(|e| LayoutError::from(e.shifted(span.start)))?;
        if e.ty() != arith::Type::Int {
            return Err(LayoutError::new(ErrorKind::Syntax, "an extent must be an integer")
                .at(Some(span)));
        }
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

/// Parses a constant index, checking each entry against the extent at its
/// position when that extent is constant.
pub fn parse_index(text: &str, shape: &[Expr]) -> Result<Vec<i64>> {
    let spans = entries(text)?;
    if spans.len() != shape.len() {
        return Err(LayoutError::new(
            ErrorKind::Arity,
            format!("the index has {} entries but the shape has {}", spans.len(), shape.len()),
        )
        .at(Some(0..text.len())));
    }
    let mut out = Vec::new();
    for (span, extent) in spans.into_iter().zip(shape) {
        let e = arith::parse(&text[span.clone()])
            .map_err(|e| LayoutError::from(e.shifted(span.start)))?;
        let Some(v) = e.as_int() else {
            return Err(LayoutError::new(ErrorKind::Syntax, "an index entry must be an integer")
                .at(Some(span)));
        };
        if let Some(n) = extent.as_int() {
            if !(0..n).contains(&v) {
                return Err(LayoutError::new(
                    ErrorKind::OutOfBounds,
                    format!("index {v} is outside [0, {n})"),
                )
                .at(Some(span)));
            }
        } else if v < 0 {
            return Err(LayoutError::new(ErrorKind::OutOfBounds, format!("index {v} is negative"))
                .at(Some(span)));
        }
        out.push(v);
    }
    Ok(out)
}
