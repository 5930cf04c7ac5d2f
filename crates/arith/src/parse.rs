//! The text syntax: a subset of Python's expression syntax.
//!
//! ```text
//! expr    := or
//! or      := and { "or" and }
//! and     := not { "and" not }
//! not     := "not" not | cmp
//! cmp     := sum [ ("==" | "!=" | "<" | "<=" | ">" | ">=") sum ]
//! sum     := term { ("+" | "-") term }
//! term    := unary { ("*" | "//" | "%") unary }
//! unary   := ("-" | "+") unary | atom
//! atom    := INT | "True" | "False" | NAME | NAME "(" args ")" | "(" expr ")"
//! ```
//!
//! Functions: `min`, `max`, `select(c, a, b)` (alias `if_then_else`),
//! `ceildiv`, `floordiv`, `floormod`. A minus sign directly before an integer
//! literal makes a negative constant; before anything else it multiplies by
//! `-1`. The tree is built exactly as written: no folding, no reordering.
//!
//! Nesting is limited to [`MAX_NESTING`] levels: each parenthesis, function
//! call, unary `-`/`+` (other than the sign of a literal) and `not` opens one
//! level, and text nested deeper is rejected with an error
//! ([`ErrorKind::TooDeep`]) pointing at the token that crosses the limit.
//! Chains of binary operators are not nesting: `a + b + ... ` of any length
//! parses in a loop into a left-deep tree, and printing, evaluating, comparing
//! and dropping such trees take no stack proportional to their length.

use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{CmpOp, Expr, Type};
use crate::scope::Scope;
use std::collections::HashMap;
use std::ops::Range;

/// The deepest nesting of parentheses, calls, unary operators and `not`
/// that the parser accepts. Python's own parser stops at 200 levels of
/// parentheses; index expressions written by people or printed by compilers
/// stay far below either.
pub const MAX_NESTING: usize = 256;

/// Parses `text` with a fresh scope.
///
/// ```
/// let e = arith::parse("min(x, 8) < 10").unwrap();
/// assert_eq!(e.to_string(), "min(x, 8) < 10");
/// let err = arith::parse("x + * 2").unwrap_err();
/// assert_eq!(err.span, Some(4..5));
/// ```
pub fn parse(text: &str) -> Result<Expr> {
    parse_in(text, &mut Scope::new())
}

/// Parses `text` and returns the scope holding its variables.
pub fn parse_with_scope(text: &str) -> Result<(Expr, Scope)> {
    let mut scope = Scope::new();
    let e = parse_in(text, &mut scope)?;
    Ok((e, scope))
}

/// Parses `text`, resolving names through `scope` (new names are added).
pub fn parse_in(text: &str, scope: &mut Scope) -> Result<Expr> {
    let tokens = lex(text)?;
    let mut p = Parser {
        text,
        tokens,
        pos: 0,
        depth: 0,
        names: Names::default(),
        scope,
    };
    let e = p.expr()?;
    if let Some(t) = p.peek() {
        return Err(syntax(
            format!(
                "unexpected `{}` after a complete expression",
                &text[t.span.clone()]
            ),
            t.span.clone(),
        ));
    }
    Ok(e.expr)
}

/// Parses a variable range `NAME=LO:HI` (half-open, as TC writes
/// `where k in LO:HI`); `LO` and `HI` may be expressions in other variables.
/// Names resolve through `scope`. Spans in errors are byte offsets in `text`.
///
/// ```
/// let mut scope = arith::Scope::new();
/// let (v, r) = arith::parse_range_spec("i=0:n - 1", &mut scope).unwrap();
/// assert_eq!((v.name(), r.to_string().as_str()), ("i", "[0, n - 1)"));
/// ```
pub fn parse_range_spec(text: &str, scope: &mut Scope) -> Result<(crate::Var, crate::Range)> {
    let Some(eq) = text.find('=') else {
        return Err(syntax(
            "expected `NAME=LO:HI`, e.g. `i=0:16`",
            0..text.len(),
        ));
    };
    let name = text[..eq].trim();
    let valid = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(syntax(
            format!("`{name}` is not a variable name"),
            0..eq.max(1),
        ));
    }
    let rest = &text[eq + 1..];
    let Some(colon) = rest.find(':') else {
        return Err(syntax(
            "expected `LO:HI` after `=` (half-open: `0:16` is 0..15)",
            eq + 1..text.len(),
        ));
    };
    let lo_start = eq + 1;
    let hi_start = lo_start + colon + 1;
    let lo = parse_end(&rest[..colon], scope).map_err(|e| e.shifted(lo_start))?;
    let hi = parse_end(&rest[colon + 1..], scope).map_err(|e| e.shifted(hi_start))?;
    for (e, start, end) in [(&lo, lo_start, hi_start - 1), (&hi, hi_start, text.len())] {
        if e.ty() != Type::Int {
            return Err(
                ArithError::new(ErrorKind::Type, "range ends must be integers").at(start..end),
            );
        }
    }
    let var = scope.get_or_create(name);
    Ok((var, crate::Range::half_open(lo, hi)))
}

/// Splits a list of range specs separated by whitespace, such as
/// `i=0:n - 1 j=0:4`, into the specs. A spec starts where a name is followed
/// by `=` (not `==`), so ends may contain spaces. Text before the first spec
/// is returned as a spec of its own (parsing it reports what is wrong).
/// Returns byte offsets and the trimmed text of each spec.
///
/// ```
/// let specs = arith::split_range_specs("i=0:n - 1  j = 0:4");
/// let texts: Vec<&str> = specs.iter().map(|(_, s)| *s).collect();
/// assert_eq!(texts, ["i=0:n - 1", "j = 0:4"]);
/// ```
pub fn split_range_specs(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut starts = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !(bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') || (i > 0 && is_name(bytes[i - 1]))
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_name(bytes[i]) {
            i += 1;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if bytes.get(j) == Some(&b'=') && bytes.get(j + 1) != Some(&b'=') {
            starts.push(start);
        }
    }
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts.push(text.len());
    starts
        .windows(2)
        .filter_map(|w| {
            let piece = &text[w[0]..w[1]];
            let trimmed = piece.trim();
            let lead = piece.len() - piece.trim_start().len();
            (!trimmed.is_empty()).then_some((w[0] + lead, trimmed))
        })
        .collect()
}

/// Parses a list of range specs separated by whitespace (see
/// [`split_range_specs`]); error spans are byte offsets in `text`.
///
/// ```
/// let mut scope = arith::Scope::new();
/// let specs = arith::parse_range_specs("i=0:n - 1 n=1:8", &mut scope).unwrap();
/// assert_eq!(specs[0].1.to_string(), "[0, n - 1)");
/// ```
pub fn parse_range_specs(text: &str, scope: &mut Scope) -> Result<Vec<(crate::Var, crate::Range)>> {
    split_range_specs(text)
        .into_iter()
        .map(|(at, spec)| parse_range_spec(spec, scope).map_err(|e| e.shifted(at)))
        .collect()
}

/// A range end: most are plain integers, read directly; anything else goes
/// through the expression parser.
fn parse_end(text: &str, scope: &mut Scope) -> Result<Expr> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    if !digits.is_empty() && digits.len() <= 18 && digits.bytes().all(|b| b.is_ascii_digit()) {
        // At most 18 digits: fits in i64 with either sign.
        let v = digits.bytes().fold(0i64, |v, b| v * 10 + (b - b'0') as i64);
        return Ok(Expr::int(if neg { -v } else { v }));
    }
    parse_in(text, scope)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(u64),
    Name,
    Op(&'static str),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    span: Range<usize>,
}

fn syntax(msg: impl Into<String>, span: Range<usize>) -> ArithError {
    ArithError::new(ErrorKind::Syntax, msg).at(span)
}

const OPS: [&str; 17] = [
    "//", "==", "!=", "<=", ">=", "**", "+", "-", "*", "/", "%", "<", ">", "(", ")", ",", "!",
];

fn lex(text: &str) -> Result<Vec<Token>> {
    let bytes = text.as_bytes();
    // Index text averages well over two bytes per token; one allocation.
    let mut out = Vec::with_capacity(text.len() / 2 + 1);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
                i += 1;
            }
            let v = bytes[start..i]
                .iter()
                .filter(|&&b| b != b'_')
                .try_fold(0u64, |v, &b| {
                    v.checked_mul(10)?.checked_add((b - b'0') as u64)
                })
                .ok_or_else(|| {
                    ArithError::new(
                        ErrorKind::Overflow,
                        "integer literal does not fit in 64 bits",
                    )
                    .at(start..i)
                })?;
            out.push(Token {
                tok: Tok::Int(v),
                span: start..i,
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Name,
                span: start..i,
            });
            continue;
        }
        if let Some(op) = OPS.iter().find(|op| text[i..].starts_with(**op)) {
            i += op.len();
            out.push(Token {
                tok: Tok::Op(op),
                span: start..i,
            });
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err(syntax(
            format!("unexpected character `{ch}`"),
            i..i + ch.len_utf8(),
        ));
    }
    Ok(out)
}

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    /// Open nesting levels (parentheses, calls, unary operators, `not`).
    depth: usize,
    /// Names already resolved in this text, so that a long expression does
    /// not search the scope once per occurrence.
    names: Names<'a>,
    scope: &'a mut Scope,
}

/// An operator's text and the constructor of its node.
type BinaryOp = (&'static str, fn(Expr, Expr) -> Expr);

/// The variables of one text by name: a short list searched in order while
/// the text has few names (most have one to three), a hash map beyond.
#[derive(Default)]
struct Names<'a> {
    few: Vec<(&'a str, crate::Var)>,
    many: HashMap<&'a str, crate::Var>,
}

impl<'a> Names<'a> {
    const FEW: usize = 16;

    fn resolve(&mut self, name: &'a str, scope: &mut Scope) -> crate::Var {
        if let Some((_, v)) = self.few.iter().find(|(n, _)| *n == name) {
            return v.clone();
        }
        if let Some(v) = self.many.get(name) {
            return v.clone();
        }
        let v = scope.get_or_create(name);
        if self.few.len() < Self::FEW {
            self.few.push((name, v.clone()));
        } else {
            self.many.insert(name, v.clone());
        }
        v
    }
}

/// An operator or function name in backquotes, formatted only when an
/// error message needs it.
struct Quoted<'a>(&'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`", self.0)
    }
}

/// A parsed sub-expression with its span, for error messages.
struct Spanned {
    expr: Expr,
    span: Range<usize>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    /// Opens a nesting level at the token `span`, or fails past the limit.
    fn enter(&mut self, span: Range<usize>) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ArithError::new(
                ErrorKind::TooDeep,
                format!(
                    "expression nested too deeply: more than {MAX_NESTING} levels of parentheses, calls, unary operators or `not` (the nesting limit); split it or simplify it in parts"
                ),
            )
            .at(span));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn span_here(&self) -> Range<usize> {
        self.peek()
            .map(|t| t.span.clone())
            .unwrap_or_else(|| self.end_span())
    }

    fn end_span(&self) -> Range<usize> {
        self.text.len()..self.text.len()
    }

    fn peek_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Op(o), .. }) if *o == op)
    }

    fn peek_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(t) if t.tok == Tok::Name && &self.text[t.span.clone()] == w)
    }

    fn expect_op(&mut self, op: &str, what: &str) -> Result<Range<usize>> {
        match self.peek() {
            Some(Token {
                tok: Tok::Op(o),
                span,
            }) if *o == op => {
                let s = span.clone();
                self.pos += 1;
                Ok(s)
            }
            Some(t) => Err(syntax(
                format!(
                    "expected `{op}` {what}, found `{}`",
                    &self.text[t.span.clone()]
                ),
                t.span.clone(),
            )),
            None => Err(syntax(
                format!("expected `{op}` {what}, found the end"),
                self.end_span(),
            )),
        }
    }

    fn want(&self, e: &Spanned, ty: Type, ctx: impl std::fmt::Display) -> Result<()> {
        if e.expr.ty() == ty {
            return Ok(());
        }
        let what = match ty {
            Type::Int => "an integer",
            Type::Bool => "a condition",
        };
        Err(ArithError::new(ErrorKind::Type, format!("{ctx} needs {what} here")).at(e.span.clone()))
    }

    fn expr(&mut self) -> Result<Spanned> {
        self.or()
    }

    fn logic(
        &mut self,
        word: &str,
        next: fn(&mut Self) -> Result<Spanned>,
        make: fn(Expr, Expr) -> Expr,
    ) -> Result<Spanned> {
        let mut lhs = next(self)?;
        while self.peek_word(word) {
            self.pos += 1;
            let rhs = next(self)?;
            self.want(&lhs, Type::Bool, Quoted(word))?;
            self.want(&rhs, Type::Bool, Quoted(word))?;
            lhs = Spanned {
                span: lhs.span.start..rhs.span.end,
                expr: make(lhs.expr, rhs.expr),
            };
        }
        Ok(lhs)
    }

    fn or(&mut self) -> Result<Spanned> {
        self.logic("or", Self::and, Expr::or)
    }

    fn and(&mut self) -> Result<Spanned> {
        self.logic("and", Self::not, Expr::and)
    }

    fn not(&mut self) -> Result<Spanned> {
        if self.peek_word("not") {
            let here = self.span_here();
            let start = here.start;
            self.enter(here)?;
            self.pos += 1;
            let inner = self.not()?;
            self.leave();
            self.want(&inner, Type::Bool, "`not`")?;
            return Ok(Spanned {
                span: start..inner.span.end,
                expr: Expr::not(inner.expr),
            });
        }
        self.cmp()
    }

    fn cmp_op(&self) -> Option<CmpOp> {
        match self.peek() {
            Some(Token {
                tok: Tok::Op(o), ..
            }) => match *o {
                "==" => Some(CmpOp::Eq),
                "!=" => Some(CmpOp::Ne),
                "<" => Some(CmpOp::Lt),
                "<=" => Some(CmpOp::Le),
                ">" => Some(CmpOp::Gt),
                ">=" => Some(CmpOp::Ge),
                _ => None,
            },
            _ => None,
        }
    }

    fn cmp(&mut self) -> Result<Spanned> {
        let lhs = self.sum()?;
        let Some(op) = self.cmp_op() else {
            return Ok(lhs);
        };
        self.pos += 1;
        let rhs = self.sum()?;
        self.want(&lhs, Type::Int, "a comparison")?;
        self.want(&rhs, Type::Int, "a comparison")?;
        if let Some(t) = self.peek().filter(|_| self.cmp_op().is_some()) {
            return Err(syntax(
                "chained comparisons are not supported: write `a < b and b < c`",
                t.span.clone(),
            ));
        }
        Ok(Spanned {
            span: lhs.span.start..rhs.span.end,
            expr: Expr::cmp(op, lhs.expr, rhs.expr),
        })
    }

    fn binary_chain(
        &mut self,
        ops: &[BinaryOp],
        next: fn(&mut Self) -> Result<Spanned>,
    ) -> Result<Spanned> {
        let mut lhs = next(self)?;
        while let Some(&(op, make)) = ops.iter().find(|(o, _)| self.peek_op(o)) {
            self.pos += 1;
            let rhs = next(self)?;
            self.want(&lhs, Type::Int, Quoted(op))?;
            self.want(&rhs, Type::Int, Quoted(op))?;
            lhs = Spanned {
                span: lhs.span.start..rhs.span.end,
                expr: make(lhs.expr, rhs.expr),
            };
        }
        Ok(lhs)
    }

    fn sum(&mut self) -> Result<Spanned> {
        self.binary_chain(&[("+", Expr::add), ("-", Expr::sub)], Self::term)
    }

    fn term(&mut self) -> Result<Spanned> {
        let r = self.binary_chain(
            &[
                ("*", Expr::mul),
                ("//", Expr::floor_div),
                ("%", Expr::floor_mod),
            ],
            Self::unary,
        )?;
        if let Some(t) = self.peek() {
            if t.tok == Tok::Op("/") {
                return Err(syntax(
                    "`/` is true division, which index arithmetic does not have: use `//` for floor division",
                    t.span.clone(),
                ));
            }
            if t.tok == Tok::Op("**") {
                return Err(syntax("`**` (power) is not supported", t.span.clone()));
            }
        }
        Ok(r)
    }

    fn unary(&mut self) -> Result<Spanned> {
        if self.peek_op("+") {
            self.enter(self.span_here())?;
            self.pos += 1;
            let inner = self.unary();
            self.leave();
            return inner;
        }
        if self.peek_op("-") {
            let here = self.span_here();
            let start = here.start;
            self.pos += 1;
            if let Some(Token {
                tok: Tok::Int(v),
                span,
            }) = self.peek().cloned()
            {
                // `-2147483648` is one literal, so i64::MIN is representable.
                if v <= i64::MAX as u64 + 1 && !self.followed_by_power() {
                    self.pos += 1;
                    let val = (v as i128).wrapping_neg() as i64;
                    return Ok(Spanned {
                        span: start..span.end,
                        expr: Expr::int(val),
                    });
                }
            }
            self.enter(here)?;
            let inner = self.unary()?;
            self.leave();
            self.want(&inner, Type::Int, "unary `-`")?;
            return Ok(Spanned {
                span: start..inner.span.end,
                expr: Expr::mul(inner.expr, Expr::int(-1)),
            });
        }
        self.atom()
    }

    fn followed_by_power(&self) -> bool {
        matches!(
            self.tokens.get(self.pos + 1),
            Some(Token {
                tok: Tok::Op("**"),
                ..
            })
        )
    }

    fn atom(&mut self) -> Result<Spanned> {
        let Some(t) = self.peek().cloned() else {
            return Err(syntax(
                "expected an expression, found the end",
                self.end_span(),
            ));
        };
        match t.tok {
            Tok::Int(v) => {
                self.pos += 1;
                let v = i64::try_from(v).map_err(|_| {
                    ArithError::new(
                        ErrorKind::Overflow,
                        "integer literal does not fit in 64 bits",
                    )
                    .at(t.span.clone())
                })?;
                Ok(Spanned {
                    expr: Expr::int(v),
                    span: t.span,
                })
            }
            Tok::Op("(") => {
                self.enter(t.span.clone())?;
                self.pos += 1;
                let inner = self.expr()?;
                self.leave();
                let close = self.expect_op(")", "to close the parenthesis")?;
                Ok(Spanned {
                    expr: inner.expr,
                    span: t.span.start..close.end,
                })
            }
            Tok::Op(_) => Err(syntax(
                format!(
                    "expected an expression, found `{}`",
                    &self.text[t.span.clone()]
                ),
                t.span,
            )),
            Tok::Name => {
                self.pos += 1;
                let name = &self.text[t.span.clone()];
                match name {
                    "True" => {
                        return Ok(Spanned {
                            expr: Expr::bool(true),
                            span: t.span,
                        })
                    }
                    "False" => {
                        return Ok(Spanned {
                            expr: Expr::bool(false),
                            span: t.span,
                        })
                    }
                    "and" | "or" | "not" | "if" | "else" | "lambda" | "in" | "is" => {
                        return Err(syntax(
                            format!("expected an expression, found the keyword `{name}`"),
                            t.span,
                        ))
                    }
                    _ => {}
                }
                if self.peek_op("(") {
                    return self.call(name, t.span);
                }
                if name.contains('.') {
                    return Err(ArithError::new(
                        ErrorKind::UnknownName,
                        format!("`{name}` is not a variable name (no dots allowed)"),
                    )
                    .at(t.span));
                }
                let v = self.names.resolve(name, self.scope);
                Ok(Spanned {
                    expr: Expr::var(v),
                    span: t.span,
                })
            }
        }
    }

    fn call(&mut self, name: &str, name_span: Range<usize>) -> Result<Spanned> {
        let short = name.rsplit('.').next().unwrap_or(name);
        let arity = match short {
            "min" | "max" | "ceildiv" | "floordiv" | "floormod" => 2,
            "select" | "if_then_else" => 3,
            _ => {
                return Err(ArithError::new(
                    ErrorKind::UnknownName,
                    format!(
                        "unknown function `{name}`: the functions are min, max, select, ceildiv, floordiv and floormod"
                    ),
                )
                .at(name_span))
            }
        };
        let open = self.expect_op("(", "after the function name")?;
        self.enter(name_span.start..open.end)?;
        let mut args = Vec::new();
        loop {
            args.push(self.expr()?);
            if self.peek_op(",") {
                self.pos += 1;
                continue;
            }
            break;
        }
        self.leave();
        let close = self.expect_op(")", &format!("to close the call of `{short}`"))?;
        let span = name_span.start..close.end;
        if args.len() != arity {
            return Err(ArithError::new(
                ErrorKind::Syntax,
                format!("`{short}` takes {arity} arguments, found {}", args.len()),
            )
            .at(span));
        }
        let mut it = args.into_iter();
        let mut next = || it.next().expect("arity checked");
        let expr = if arity == 3 {
            let (c, a, b) = (next(), next(), next());
            self.want(&c, Type::Bool, "the condition of `select`")?;
            if a.expr.ty() != b.expr.ty() {
                return Err(ArithError::new(
                    ErrorKind::Type,
                    "both branches of `select` must be integers, or both conditions",
                )
                .at(span));
            }
            Expr::select(c.expr, a.expr, b.expr)
        } else {
            let (a, b) = (next(), next());
            self.want(&a, Type::Int, Quoted(short))?;
            self.want(&b, Type::Int, Quoted(short))?;
            let make = match short {
                "min" => Expr::min,
                "max" => Expr::max,
                "ceildiv" => Expr::ceil_div,
                "floordiv" => Expr::floor_div,
                _ => Expr::floor_mod,
            };
            make(a.expr, b.expr)
        };
        Ok(Spanned { expr, span })
    }
}
