//! Tokens of the TC language (TC's `lexer.h`): `#` comments, numbers as C's
//! `strtod` reads them (never with a sign), identifiers, keywords, and
//! operators by longest match (`min=!` is one token, `maxval` an
//! identifier).

use crate::diag::{Diagnostic, Span};

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier.
    Ident(String),
    /// An integer literal.
    Int(i64),
    /// A floating-point literal (it has a `.` or an exponent).
    Float(f64),
    /// A keyword or operator, as written (`def`, `->`, `+=!`, `(`).
    Sym(&'static str),
    /// The end of the text.
    Eof,
}

/// A token with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it is.
    pub span: Span,
}

/// Reserved words, checked after an identifier-shaped word is read.
const KEYWORDS: &[&str] = &[
    "min", "max", "where", "def", "in", "exists", "bool", "uint8", "uint16", "uint32", "uint64",
    "int8", "int16", "int32", "int64", "float16", "float32", "float64", "float", "double",
];

/// Operators, longest first so that the first match is the longest.
const OPERATORS: &[&str] = &[
    "<=>", "+=!", "*=!", "->", "+=", "*=", ">=", "<=", "==", "!=", "&&", "||", "+", "-", "*", "/",
    "(", ")", "[", "]", "?", ":", ",", "=", "{", "}", ">", "<", "!", "%",
];

/// Splits `source` into tokens, ending with [`Tok::Eof`]; the first bad
/// character or malformed number is an error at its span.
pub fn lex(source: &str) -> Result<Vec<Token>, Diagnostic> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        // Numbers first, as TC does: `.5` is a number, `1.` too.
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (tok, end) = number(source, i)?;
            out.push(Token {
                tok,
                span: Span::new(start, end),
            });
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &source[start..i];
            if let Some(kw) = KEYWORDS.iter().find(|k| **k == word) {
                // `min=`, `max=`, `min=!`, `max=!` are single tokens; `min==`
                // is not `min=` followed by `=`.
                if (word == "min" || word == "max")
                    && bytes.get(i) == Some(&b'=')
                    && bytes.get(i + 1) != Some(&b'=')
                {
                    let bang = bytes.get(i + 1) == Some(&b'!');
                    let sym = match (word, bang) {
                        ("min", false) => "min=",
                        ("min", true) => "min=!",
                        ("max", false) => "max=",
                        _ => "max=!",
                    };
                    i += if bang { 2 } else { 1 };
                    out.push(Token {
                        tok: Tok::Sym(sym),
                        span: Span::new(start, i),
                    });
                    continue;
                }
                out.push(Token {
                    tok: Tok::Sym(kw),
                    span: Span::new(start, i),
                });
            } else {
                out.push(Token {
                    tok: Tok::Ident(word.to_string()),
                    span: Span::new(start, i),
                });
            }
            continue;
        }
        let rest = &source[i..];
        if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            i += op.len();
            out.push(Token {
                tok: Tok::Sym(op),
                span: Span::new(start, i),
            });
            continue;
        }
        let ch = rest.chars().next().unwrap_or('?');
        return Err(Diagnostic::error(
            Span::new(start, start + ch.len_utf8()),
            format!("unexpected character `{ch}`: not part of the TC language"),
        ));
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(source.len(), source.len()),
    });
    Ok(out)
}

/// Reads a number starting at `start`: digits, an optional fraction and an
/// optional exponent (`3`, `3.`, `.5e-7`, `3E-5`). As in TC, the literal is a
/// float when its text contains `.` or `e`.
fn number(source: &str, start: usize) -> Result<(Tok, usize), Diagnostic> {
    let bytes = source.as_bytes();
    let mut i = start;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let text = &source[start..i];
    let span = Span::new(start, i);
    let is_float = text.contains('.') || text.contains('e');
    if is_float || text.contains('E') {
        let v: f64 = text
            .parse()
            .map_err(|_| Diagnostic::error(span, format!("malformed number `{text}`")))?;
        if is_float {
            return Ok((Tok::Float(v), i));
        }
        // TC types `3E-5` as an integer literal (its check is for a
        // lowercase `e`); an integer it cannot be, so reject it clearly.
        return Err(Diagnostic::error(
            span,
            format!(
                "`{text}` is not an integer: write the exponent with a lowercase `e` or add a `.`"
            ),
        ));
    }
    let v: i64 = text.parse().map_err(|_| {
        Diagnostic::error(
            span,
            format!("integer literal `{text}` does not fit in 64 bits"),
        )
    })?;
    Ok((Tok::Int(v), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn tc_lexer_golden() {
        // TC's `lexer.expected` sequence (except `3E-5`, an int in TC).
        let t = kinds("min min+max 1.4 .3 3 3.\n3e-3 .5e-7 foobar");
        assert_eq!(
            t,
            vec![
                Tok::Sym("min"),
                Tok::Sym("min"),
                Tok::Sym("+"),
                Tok::Sym("max"),
                Tok::Float(1.4),
                Tok::Float(0.3),
                Tok::Int(3),
                Tok::Float(3.0),
                Tok::Float(3e-3),
                Tok::Float(0.5e-7),
                Tok::Ident("foobar".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn longest_match() {
        assert_eq!(
            kinds("O max=! A maxval min= +=! <=> <= # comment\n x"),
            vec![
                Tok::Ident("O".into()),
                Tok::Sym("max=!"),
                Tok::Ident("A".into()),
                Tok::Ident("maxval".into()),
                Tok::Sym("min="),
                Tok::Sym("+=!"),
                Tok::Sym("<=>"),
                Tok::Sym("<="),
                Tok::Ident("x".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn errors_have_spans() {
        let e = lex("a . b").unwrap_err();
        assert_eq!(e.span, Span::new(2, 3));
        let e = lex("99999999999999999999999").unwrap_err();
        assert!(e.message.contains("64 bits"));
    }
}
