//! The text of a layout map: a Python lambda such as
//! `lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]`.
//!
//! The header and the result list are split here, iteratively and with
//! spans; each index expression is parsed by `arith`. The result may be a
//! list, a tuple or a single expression. `te.AXIS_SEPARATOR`,
//! `tvm.te.AXIS_SEPARATOR`, `IndexMap.AXIS_SEPARATOR` and `AXIS_SEPARATOR`
//! all mark a separator.

use crate::error::{ErrorKind, LayoutError, Result};
use std::ops::Range;

/// Deepest bracket nesting accepted in a lambda body; deeper text is
/// rejected at parse time rather than risking the stack later.
pub const MAX_NESTING: usize = 64;

/// One element of the result list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An index expression: its text and where it is.
    Index(Range<usize>),
    /// An axis separator, and where it is.
    Separator(Range<usize>),
}

/// A lambda cut into its parameters and result items (all as spans into
/// the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LambdaText {
    /// The parameter names with their spans.
    pub params: Vec<(String, Range<usize>)>,
    /// The span of the whole parameter list (for arity errors).
    pub params_span: Range<usize>,
    /// The result items in order.
    pub items: Vec<Item>,
    /// The span of the result (for errors about the whole list).
    pub body_span: Range<usize>,
}

fn syntax(message: impl Into<String>, span: Range<usize>) -> LayoutError {
    LayoutError::new(ErrorKind::Syntax, message).at(Some(span))
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `text` names the axis separator.
pub fn is_separator(text: &str) -> bool {
    matches!(
        text,
        "te.AXIS_SEPARATOR"
            | "tvm.te.AXIS_SEPARATOR"
            | "AXIS_SEPARATOR"
            | "IndexMap.AXIS_SEPARATOR"
            | "tir.IndexMap.AXIS_SEPARATOR"
            | "tvm.tir.IndexMap.AXIS_SEPARATOR"
    )
}

/// `span` with surrounding whitespace removed.
fn trim(text: &str, span: Range<usize>) -> Range<usize> {
    let s = &text[span.clone()];
    let start = span.start + (s.len() - s.trim_start().len());
    let end = span.end - (s.len() - s.trim_end().len());
    start..end.max(start)
}

/// Splits a lambda's text into parameters and result items.
///
/// ```
/// let l = layout::lambda::split_lambda("lambda i, j: [j, te.AXIS_SEPARATOR, i]").unwrap();
/// assert_eq!(l.params.len(), 2);
/// assert_eq!(l.items.len(), 3);
/// ```
pub fn split_lambda(text: &str) -> Result<LambdaText> {
    split_in(text).map_err(|e| e.within(text))
}

fn split_in(text: &str) -> Result<LambdaText> {
    let bytes = text.as_bytes();
    let start = text.len() - text.trim_start().len();
    if !text[start..].starts_with("lambda") || bytes.get(start + 6).is_some_and(|&c| is_ident(c)) {
        let end = (start + 6).min(text.len()).max(start + 1).min(text.len());
        return Err(syntax(
            "expected a Python lambda, e.g. `lambda i, j: [j, i]`",
            start..end,
        ));
    }
    let after = start + 6;
    let Some(colon_rel) = text[after..].find(':') else {
        return Err(syntax(
            "expected `:` after the lambda's parameters",
            start..text.len(),
        ));
    };
    let colon = after + colon_rel;
    let params_span = trim(text, after..colon);
    let mut params = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    if !params_span.is_empty() {
        let mut pos = params_span.start;
        for piece in text[params_span.clone()].split(',') {
            let span = trim(text, pos..pos + piece.len());
            pos += piece.len() + 1;
            let name = &text[span.clone()];
            if name.is_empty() {
                // A trailing comma is allowed, an empty name elsewhere is not.
                if pos > params_span.end {
                    break;
                }
                return Err(syntax("empty parameter name", span.start..span.start + 1));
            }
            if name.starts_with('*') {
                return Err(syntax(
                    format!("`{name}` takes any number of indices; in map text, name each index (`lambda i, j: ...`)"),
                    span,
                ));
            }
            let nb = name.as_bytes();
            if !is_ident_start(nb[0]) || !nb.iter().all(|&c| is_ident(c)) {
                return Err(syntax(format!("`{name}` is not a parameter name"), span));
            }
            if !seen.insert(name) {
                return Err(syntax(format!("parameter `{name}` is repeated"), span));
            }
            params.push((name.to_string(), span));
        }
    }
    let body_span = trim(text, colon + 1..text.len());
    if body_span.is_empty() {
        return Err(syntax(
            "expected the transformed indices after `:`, e.g. `[j, i]`",
            colon..colon + 1,
        ));
    }
    let body = &text[body_span.clone()];
    // A list `[...]`, or a tuple `(a, b)`, or a single expression.
    let (inner, bracketed) = match body.as_bytes()[0] {
        b'[' | b'(' => match closing(text, body_span.start)? {
            end if end + 1 == body_span.end => (body_span.start + 1..end, true),
            end if body.as_bytes()[0] == b'[' => {
                return Err(syntax(
                    "unexpected text after the list of indices",
                    end + 1..body_span.end,
                ))
            }
            _ => (body_span.clone(), false),
        },
        _ => (body_span.clone(), false),
    };
    let pieces = split_top_level(text, inner.clone())?;
    let is_tuple = bracketed && body.as_bytes()[0] == b'(';
    if is_tuple && pieces.len() == 1 && !text[inner.clone()].trim_end().ends_with(',') {
        // `(i + 1) // 4`-like bodies were handled above; `(i)` is one index.
    }
    let mut items = Vec::new();
    let n = pieces.len();
    for (k, span) in pieces.into_iter().enumerate() {
        let span = trim(text, span);
        if span.is_empty() {
            if k + 1 == n && k > 0 && bracketed {
                break; // trailing comma
            }
            if n == 1 && bracketed {
                break; // `[]`
            }
            return Err(syntax(
                "empty index in the list",
                span.start.saturating_sub(1)..span.start + 1,
            ));
        }
        if is_separator(&text[span.clone()]) {
            items.push(Item::Separator(span));
        } else {
            items.push(Item::Index(span));
        }
    }
    Ok(LambdaText {
        params,
        params_span,
        items,
        body_span,
    })
}

/// The position of the bracket closing the one at `open`.
fn closing(text: &str, open: usize) -> Result<usize> {
    let bytes = text.as_bytes();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    for (i, &c) in bytes.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' => {
                if stack.len() >= MAX_NESTING {
                    return Err(syntax(
                        format!("brackets nested deeper than {MAX_NESTING} levels"),
                        i..i + 1,
                    ));
                }
                stack.push((c, i));
            }
            b')' | b']' => {
                let want = if c == b')' { b'(' } else { b'[' };
                match stack.pop() {
                    Some((o, _)) if o == want => {}
                    _ => return Err(syntax(format!("unmatched `{}`", c as char), i..i + 1)),
                }
                if stack.is_empty() {
                    return Ok(i);
                }
            }
            _ => {}
        }
    }
    let (c, at) = stack.last().copied().unwrap_or((bytes[open], open));
    Err(syntax(format!("unclosed `{}`", c as char), at..at + 1))
}

/// Splits `span` at commas outside brackets.
pub(crate) fn split_top_level(text: &str, span: Range<usize>) -> Result<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut start = span.start;
    for i in span.clone() {
        match bytes[i] {
            b'(' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(syntax(
                        format!("brackets nested deeper than {MAX_NESTING} levels"),
                        i..i + 1,
                    ));
                }
            }
            b')' | b']' => {
                if depth == 0 {
                    return Err(syntax(
                        format!("unmatched `{}`", bytes[i] as char),
                        i..i + 1,
                    ));
                }
                depth -= 1;
            }
            b',' if depth == 0 => {
                out.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(syntax(
            "unclosed bracket",
            span.end.saturating_sub(1)..span.end,
        ));
    }
    out.push(start..span.end);
    Ok(out)
}

/// The span of the first whole-word occurrence of `name` in `span`.
pub fn find_name(text: &str, span: Range<usize>, name: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let hay = &text[span.clone()];
    let mut from = 0;
    while let Some(p) = hay[from..].find(name) {
        let s = span.start + from + p;
        let e = s + name.len();
        let before = s == 0 || !is_ident(bytes[s - 1]);
        let after = e >= bytes.len() || !is_ident(bytes[e]);
        if before && after {
            return Some(s..e);
        }
        from += p + name.len();
    }
    None
}
