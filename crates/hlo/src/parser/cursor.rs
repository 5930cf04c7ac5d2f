//! Lexical helpers of the parser: trivia, names, integers, brackets,
//! strings, and errors at the current position.

use super::{PResult, Parser};
use crate::error::ParseError;
use std::ops::Range;

impl Parser<'_> {
    /// Skips a bracketed group, honouring nested brackets of all kinds and
    /// strings; returns its byte range including the brackets.
    pub(super) fn balanced(&mut self, open: u8, close: u8) -> PResult<Range<usize>> {
        let start = self.pos;
        if !self.eat(open) {
            return Err(self.error_here(format!("expected `{}`", open as char)));
        }
        let mut stack = vec![close];
        while let Some(&want) = stack.last() {
            match self.peek() {
                None => {
                    return Err(self.error(
                        start..start + 1,
                        format!(
                            "`{}` is never closed; expected `{}` before the end of the text",
                            open as char, want as char
                        ),
                    ))
                }
                Some(b'"') => {
                    self.string()?;
                }
                Some(c @ (b'(' | b'[' | b'{')) => {
                    self.pos += 1;
                    stack.push(match c {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    });
                }
                Some(c @ (b')' | b']' | b'}')) => {
                    if c != want {
                        return Err(self.error_here(format!(
                            "expected `{}`, found `{}`",
                            want as char, c as char
                        )));
                    }
                    self.pos += 1;
                    stack.pop();
                }
                Some(_) => self.pos += 1,
            }
        }
        Ok(start..self.pos)
    }

    pub(super) fn string(&mut self) -> PResult<()> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek() {
                None => {
                    return Err(self.error(
                        start..start + 1,
                        "unterminated string; expected a closing `\"`",
                    ))
                }
                Some(b'\\') => self.pos = (self.pos + 2).min(self.bytes.len()),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    pub(super) fn skip_trivia(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_whitespace() => self.pos += 1,
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'*') => {
                    match self.src[self.pos + 2..].find("*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => self.pos = self.bytes.len(),
                    }
                }
                _ => return,
            }
        }
    }

    /// A name: `[%]` then letters, digits, `_`, `.`, `-` (not `->`).
    pub(super) fn name(&mut self, what: &str) -> PResult<(String, Range<usize>)> {
        self.skip_trivia();
        let start = self.pos;
        self.eat(b'%');
        let body = self.pos;
        if !matches!(self.peek(), Some(c) if is_name_start(c)) {
            self.pos = start;
            return Err(self.error_here(format!("expected {what}{}", self.found())));
        }
        while let Some(c) = self.peek() {
            let dash_ok = c == b'-' && self.bytes.get(self.pos + 1) != Some(&b'>');
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || dash_ok {
                self.pos += 1;
            } else {
                break;
            }
        }
        Ok((self.src[body..self.pos].to_string(), start..self.pos))
    }

    pub(super) fn int(&mut self, what: &str) -> PResult<(i64, Range<usize>)> {
        let start = self.pos;
        let neg = self.eat(b'-');
        let digits = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.pos += 1;
        }
        if digits == self.pos {
            self.pos = start;
            return Err(self.error_here(format!("expected {what}{}", self.found())));
        }
        let text = &self.src[start..self.pos];
        let _ = neg;
        text.parse::<i64>()
            .map(|v| (v, start..self.pos))
            .map_err(|_| {
                self.error(
                    start..self.pos,
                    format!("integer `{text}` does not fit in 64 bits"),
                )
            })
    }

    pub(super) fn found(&self) -> String {
        match self
            .src
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            None => ", found the end of the text".to_string(),
            Some(c) => format!(", found `{c}`"),
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn eat_str(&mut self, s: &str) -> bool {
        if self
            .src
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(s))
        {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, c: u8, what: &str) -> PResult<()> {
        self.skip_trivia();
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error_here(format!("expected {what}{}", self.found())))
        }
    }

    pub(super) fn at_keyword(&self, kw: &str) -> bool {
        self.src
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(kw))
            && !matches!(self.bytes.get(self.pos + kw.len()), Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
    }

    pub(super) fn error(&self, span: Range<usize>, message: impl Into<String>) -> ParseError {
        ParseError::new(self.src, span, message)
    }

    pub(super) fn error_here(&self, message: impl Into<String>) -> ParseError {
        let end = (self.pos + 1).min(self.src.len());
        self.error(self.pos..end.max(self.pos), message)
    }
}

pub(super) fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}
