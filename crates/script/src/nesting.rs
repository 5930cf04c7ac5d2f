//! The nesting limit, checked on the source text before parsing: deeply
//! nested brackets or long runs of unary operators would overflow the stack
//! of the parser's tree (and of every walk over it) long before they mean
//! anything. Long flat chains (`1 + 1 + ...`) are not nesting and have no
//! limit. Nesting the text does not show (`not not ...`, `a ** b ** ...`,
//! `x if c else y if c else ...`) is measured on the parsed tree
//! (`tree.rs`) against the same limit.

use std::ops::Range;

/// The deepest nesting of brackets (`(`, `[`, `{`), and the longest run of
/// prefix operators (`-`, `+`, `~`), a script may have: CPython's parser
/// refuses more than 200 nested parentheses too.
pub const MAX_NESTING: usize = 200;

/// The deepest the parsed tree may nest, not counting left operands of
/// binary operators (along which flat chains grow): the same limit as
/// [`MAX_NESTING`] counted in tree levels, since a bracket adds a level or a
/// few (a call and its arguments, a subscript and its index tuple).
pub const MAX_TREE_DEPTH: usize = 5 * MAX_NESTING;

/// The error for a script nested past [`MAX_NESTING`].
pub(crate) fn too_deep_message() -> String {
    format!(
        "nesting deeper than {MAX_NESTING} levels (brackets or prefix operators; \
         {MAX_TREE_DEPTH} levels of nested expressions): split the expression into named parts"
    )
}

/// The byte range of the first bracket or prefix operator beyond
/// [`MAX_NESTING`], if any. Strings and comments are skipped.
pub(crate) fn too_deep(source: &str) -> Option<Range<usize>> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut unary_run = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                unary_run = 0;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i..i + 1);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'+' | b'~' => {
                unary_run += 1;
                if unary_run > MAX_NESTING {
                    return Some(i..i + 1);
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' | b'\\' => {}
            _ => unary_run = 0,
        }
        if !matches!(c, b'-' | b'+' | b'~' | b' ' | b'\t' | b'\r' | b'\n' | b'\\') {
            unary_run = 0;
        }
        i += 1;
    }
    None
}

/// The index just past the string literal starting at `start` (single or
/// triple quoted, with backslash escapes); the end of the text if unclosed.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let q = bytes[start];
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == q && bytes[start + 2] == q;
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            c if c == q => {
                if !triple {
                    return i + 1;
                }
                if bytes.len() >= i + 3 && bytes[i + 1] == q && bytes[i + 2] == q {
                    return i + 3;
                }
                i += 1;
            }
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_chains_and_strings_are_not_nesting() {
        let sum = format!("x = {}", vec!["1"; 50_000].join(" + "));
        assert_eq!(too_deep(&sum), None);
        let s = format!("x = '{}'  # {}", "(".repeat(500), "[".repeat(500));
        assert_eq!(too_deep(&s), None);
        assert_eq!(too_deep("x = 1 - -1\ny = (a - (b + -c))"), None);
    }

    #[test]
    fn deep_brackets_and_unary_runs_are_found() {
        let deep = format!("x = {}1{}", "(".repeat(201), ")".repeat(201));
        assert_eq!(too_deep(&deep), Some(204..205));
        let ok = format!("x = {}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(too_deep(&ok), None);
        let minus = format!("x = {}1", "-".repeat(43_000));
        assert!(too_deep(&minus).is_some());
    }
}
