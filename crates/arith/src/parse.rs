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
    // The token buffer of the last parse on this thread is reused: a batch
    // parses many short texts one after another.
    thread_local! {
        static TOKENS: std::cell::Cell<Vec<Token>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut tokens = TOKENS.take();
    tokens.clear();
    let result = parse_tokens(text, scope, &mut tokens);
    // A buffer grown by one huge text is not kept.
    if tokens.capacity() <= 4096 {
        TOKENS.set(tokens);
    }
    result
}

fn parse_tokens(text: &str, scope: &mut Scope, tokens: &mut Vec<Token>) -> Result<Expr> {
    lex(text, tokens)?;
    let mut p = Parser {
        text,
        tokens,
        pos: 0,
        depth: 0,
        scope,
    };
    let e = p.expr().map_err(|e| *e)?;
    if let Some(t) = p.peek() {
        return Err(syntax(
            format!(
                "unexpected `{}` after a complete expression",
                &text[t.span()]
            ),
            t.span(),
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
    Ok((var, constant_range(lo, hi, scope)))
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
    range_spec_pieces(text).collect()
}

/// The pieces of [`split_range_specs`], found lazily.
fn range_spec_pieces(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || loop {
        if at >= bytes.len() {
            return None;
        }
        let next = next_spec_start(bytes, at + 1);
        let piece = &text[at..next];
        let start = at;
        at = next;
        let trimmed = piece.trim();
        if !trimmed.is_empty() {
            let lead = piece.len() - piece.trim_start().len();
            return Some((start + lead, trimmed));
        }
    })
}

/// The first position at or after `from` where a spec starts: a name
/// (not inside a longer name) followed by `=` but not `==`; the length of
/// `bytes` when there is none.
fn next_spec_start(bytes: &[u8], from: usize) -> usize {
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = from;
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
            return start;
        }
    }
    bytes.len()
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
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Each step reads one piece of `split_range_specs`, starting at `at`.
    let mut at = 0;
    while at < bytes.len() {
        if let Some((var, range, next)) = constant_range_spec(text, at, scope) {
            out.push((var, range));
            at = next;
            continue;
        }
        let next = next_spec_start(bytes, at + 1);
        let piece = &text[at..next];
        let spec = piece.trim();
        if !spec.is_empty() {
            let lead = piece.len() - piece.trim_start().len();
            out.push(parse_range_spec(spec, scope).map_err(|e| e.shifted(at + lead))?);
        }
        at = next;
    }
    Ok(out)
}

/// The common spec `NAME=LO:HI` with integer ends, read in one pass from
/// `at` with the whitespace around it: the spec and where the next piece
/// starts. `None` for anything else, which [`parse_range_spec`] then reads
/// (with the same result, or the error).
fn constant_range_spec(
    text: &str,
    at: usize,
    scope: &mut Scope,
) -> Option<(crate::Var, crate::Range, usize)> {
    let b = text.as_bytes();
    let mut i = at;
    let skip_space = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    // An optional `-` and at most 18 digits, which fit in i64 either way.
    let int = |i: &mut usize| -> Option<i64> {
        let neg = b.get(*i) == Some(&b'-');
        let start = *i + usize::from(neg);
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end == start || end - start > 18 {
            return None;
        }
        let v = b[start..end]
            .iter()
            .fold(0i64, |v, d| v * 10 + (d - b'0') as i64);
        *i = end;
        Some(if neg { -v } else { v })
    };
    skip_space(&mut i);
    let name_start = i;
    if !b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return None;
    }
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    let name = &text[name_start..i];
    skip_space(&mut i);
    if b.get(i) != Some(&b'=') {
        return None;
    }
    i += 1;
    skip_space(&mut i);
    let lo = int(&mut i)?;
    skip_space(&mut i);
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    skip_space(&mut i);
    let hi = int(&mut i)?;
    skip_space(&mut i);
    if i < b.len() && next_spec_start(b, i) != i {
        return None;
    }
    let var = scope.get_or_create(name);
    // As `constant_range` makes it, without a node for `hi` unless needed.
    let range = match hi.checked_sub(lo) {
        Some(n) => crate::Range::new(scope.int(lo), scope.int(n)),
        None => crate::Range::half_open(scope.int(lo), scope.int(hi)),
    };
    Some((var, range, i))
}

/// `[lo, hi)` as [`crate::Range::half_open`] makes it, with a constant
/// extent shared through the scope like the ends.
fn constant_range(lo: Expr, hi: Expr, scope: &mut Scope) -> crate::Range {
    let extent = match (lo.as_int(), hi.as_int()) {
        (Some(a), Some(b)) => b.checked_sub(a),
        _ => None,
    };
    match extent {
        Some(n) => crate::Range::new(lo, scope.int(n)),
        None => crate::Range::half_open(lo, hi),
    }
}

/// One case of a batch file: an expression and the ranges of its
/// variables.
#[derive(Clone, Debug)]
pub struct Case {
    /// The expression, as written.
    pub expr: Expr,
    /// The variable ranges, in the order written.
    pub ranges: Vec<(crate::Var, crate::Range)>,
}

/// Parses one line of a batch file: `EXPR`, or `EXPR | NAME=LO:HI ...`
/// with the ranges as [`parse_range_specs`] reads them (ends may contain
/// spaces). Names resolve through `scope`; error spans are byte offsets in
/// `line`.
///
/// ```
/// let mut scope = arith::Scope::new();
/// let case = arith::parse_case("min(i, n - 2) | i=0:n - 1 n=2:100", &mut scope).unwrap();
/// assert_eq!(case.expr.to_string(), "min(i, n - 2)");
/// assert_eq!(case.ranges[0].1.to_string(), "[0, n - 1)");
/// let err = arith::parse_case("x | x=0:+", &mut scope).unwrap_err();
/// assert_eq!(err.span, Some(9..9));
/// ```
pub fn parse_case(line: &str, scope: &mut Scope) -> Result<Case> {
    let (expr, ranges) = match line.split_once('|') {
        Some((e, r)) => (e, r),
        None => (line, ""),
    };
    let expr = parse_in(expr, scope)?;
    let ranges =
        parse_range_specs(ranges, scope).map_err(|e| e.shifted(line.len() - ranges.len()))?;
    Ok(Case { expr, ranges })
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
        return Ok(scope.int(if neg { -v } else { v }));
    }
    parse_in(text, scope)
}

/// An operator token. Its text is [`Op::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    FloorDiv,
    Eq,
    Ne,
    Le,
    Ge,
    Pow,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Lt,
    Gt,
    Open,
    Close,
    Comma,
    Bang,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::FloorDiv => "//",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Le => "<=",
            Op::Ge => ">=",
            Op::Pow => "**",
            Op::Plus => "+",
            Op::Minus => "-",
            Op::Star => "*",
            Op::Slash => "/",
            Op::Percent => "%",
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Open => "(",
            Op::Close => ")",
            Op::Comma => ",",
            Op::Bang => "!",
        }
    }

    /// The operator at the start of `rest` (two-byte operators first).
    fn at(rest: &[u8]) -> Option<Op> {
        let two = match rest {
            [b'/', b'/', ..] => Some(Op::FloorDiv),
            [b'=', b'=', ..] => Some(Op::Eq),
            [b'!', b'=', ..] => Some(Op::Ne),
            [b'<', b'=', ..] => Some(Op::Le),
            [b'>', b'=', ..] => Some(Op::Ge),
            [b'*', b'*', ..] => Some(Op::Pow),
            _ => None,
        };
        if two.is_some() {
            return two;
        }
        Some(match rest.first()? {
            b'+' => Op::Plus,
            b'-' => Op::Minus,
            b'*' => Op::Star,
            b'/' => Op::Slash,
            b'%' => Op::Percent,
            b'<' => Op::Lt,
            b'>' => Op::Gt,
            b'(' => Op::Open,
            b')' => Op::Close,
            b',' => Op::Comma,
            b'!' => Op::Bang,
            _ => return None,
        })
    }
}

/// What a name token is, decided once when it is lexed so that the parser
/// compares small integers rather than text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    /// A variable or function name.
    Plain,
    And,
    Or,
    Not,
    True,
    False,
    /// A Python keyword that cannot start an expression.
    Keyword,
}

impl Word {
    fn of(name: &[u8]) -> Word {
        match name {
            b"and" => Word::And,
            b"or" => Word::Or,
            b"not" => Word::Not,
            b"True" => Word::True,
            b"False" => Word::False,
            b"if" | b"else" | b"lambda" | b"in" | b"is" => Word::Keyword,
            _ => Word::Plain,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Int(u64),
    Name(Word),
    Op(Op),
}

/// A token and its byte span (`u32` offsets keep tokens small; longer
/// texts are rejected before lexing).
#[derive(Clone, Copy, Debug)]
struct Token {
    tok: Tok,
    start: u32,
    end: u32,
}

impl Token {
    fn span(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The parser's errors are boxed: they are rare, and a small `Err` keeps
/// the results passed up through every level small.
type PResult<T> = std::result::Result<T, Box<ArithError>>;

fn syntax(msg: impl Into<String>, span: Range<usize>) -> ArithError {
    ArithError::new(ErrorKind::Syntax, msg).at(span)
}

/// Appends the tokens of `text` to `out`.
fn lex(text: &str, out: &mut Vec<Token>) -> Result<()> {
    let bytes = text.as_bytes();
    if bytes.len() > u32::MAX as usize {
        return Err(syntax("the text is longer than 4 GiB: split it", 0..0));
    }
    // Index text averages well over two bytes per token; one allocation.
    out.reserve(text.len() / 2 + 1);
    let token = |tok, start: usize, end: usize| Token {
        tok,
        start: start as u32,
        end: end as u32,
    };
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() {
            let mut v: Option<u64> = Some(0);
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
                if bytes[i] != b'_' {
                    v = v
                        .and_then(|v| v.checked_mul(10))
                        .and_then(|v| v.checked_add((bytes[i] - b'0') as u64));
                }
                i += 1;
            }
            let v = v.ok_or_else(|| {
                ArithError::new(
                    ErrorKind::Overflow,
                    "integer literal does not fit in 64 bits",
                )
                .at(start..i)
            })?;
            out.push(token(Tok::Int(v), start, i));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            out.push(token(Tok::Name(Word::of(&bytes[start..i])), start, i));
            continue;
        }
        if let Some(op) = Op::at(&bytes[i..]) {
            i += op.text().len();
            out.push(token(Tok::Op(op), start, i));
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err(syntax(
            format!("unexpected character `{ch}`"),
            i..i + ch.len_utf8(),
        ));
    }
    Ok(())
}

struct Parser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    pos: usize,
    /// Open nesting levels (parentheses, calls, unary operators, `not`).
    depth: usize,
    scope: &'a mut Scope,
}

/// How tightly an operator binds, loosest first (the grammar's levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Or,
    And,
    Not,
    Cmp,
    Sum,
    Term,
}

/// A binary operator: its operands' type and the constructor of its node.
#[derive(Clone, Copy)]
enum Binary {
    Or,
    And,
    Cmp(CmpOp),
    Int(Op, fn(Expr, Expr) -> Expr),
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
    #[inline]
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    #[inline]
    fn peek_tok(&self) -> Option<Tok> {
        self.tokens.get(self.pos).map(|t| t.tok)
    }

    /// Opens a nesting level at the token `span`, or fails past the limit.
    fn enter(&mut self, span: Range<usize>) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ArithError::new(
                ErrorKind::TooDeep,
                format!(
                    "expression nested too deeply: more than {MAX_NESTING} levels of parentheses, calls, unary operators or `not` (the nesting limit); split it or simplify it in parts"
                ),
            )
            .at(span).into());
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn span_here(&self) -> Range<usize> {
        self.peek()
            .map(Token::span)
            .unwrap_or_else(|| self.end_span())
    }

    fn end_span(&self) -> Range<usize> {
        self.text.len()..self.text.len()
    }

    #[inline]
    fn peek_op(&self, op: Op) -> bool {
        self.peek_tok() == Some(Tok::Op(op))
    }

    #[inline]
    fn peek_word(&self, w: Word) -> bool {
        self.peek_tok() == Some(Tok::Name(w))
    }

    fn expect_op(&mut self, op: Op, what: impl std::fmt::Display) -> PResult<Range<usize>> {
        match self.peek() {
            Some(t) if t.tok == Tok::Op(op) => {
                let s = t.span();
                self.pos += 1;
                Ok(s)
            }
            Some(t) => Err(syntax(
                format!(
                    "expected `{}` {what}, found `{}`",
                    op.text(),
                    &self.text[t.span()]
                ),
                t.span(),
            )
            .into()),
            None => Err(syntax(
                format!("expected `{}` {what}, found the end", op.text()),
                self.end_span(),
            )
            .into()),
        }
    }

    #[inline]
    fn want(&self, e: &Spanned, ty: Type, ctx: impl std::fmt::Display) -> PResult<()> {
        if e.expr.ty() == ty {
            return Ok(());
        }
        self.wrong_type(e, ty, ctx)
    }

    #[cold]
    fn wrong_type(&self, e: &Spanned, ty: Type, ctx: impl std::fmt::Display) -> PResult<()> {
        let what = match ty {
            Type::Int => "an integer",
            Type::Bool => "a condition",
        };
        Err(
            ArithError::new(ErrorKind::Type, format!("{ctx} needs {what} here"))
                .at(e.span.clone())
                .into(),
        )
    }

    #[inline]
    fn expr(&mut self) -> PResult<Spanned> {
        self.binary(Level::Or)
    }

    /// The binary operator at the next token and its level, if any.
    #[inline]
    fn binary_op(&self) -> Option<(Level, Binary)> {
        Some(match self.peek_tok()? {
            Tok::Name(Word::Or) => (Level::Or, Binary::Or),
            Tok::Name(Word::And) => (Level::And, Binary::And),
            Tok::Op(op) => match op {
                Op::Eq => (Level::Cmp, Binary::Cmp(CmpOp::Eq)),
                Op::Ne => (Level::Cmp, Binary::Cmp(CmpOp::Ne)),
                Op::Lt => (Level::Cmp, Binary::Cmp(CmpOp::Lt)),
                Op::Le => (Level::Cmp, Binary::Cmp(CmpOp::Le)),
                Op::Gt => (Level::Cmp, Binary::Cmp(CmpOp::Gt)),
                Op::Ge => (Level::Cmp, Binary::Cmp(CmpOp::Ge)),
                Op::Plus => (Level::Sum, Binary::Int(op, Expr::add)),
                Op::Minus => (Level::Sum, Binary::Int(op, Expr::sub)),
                Op::Star => (Level::Term, Binary::Int(op, Expr::mul)),
                Op::FloorDiv => (Level::Term, Binary::Int(op, Expr::floor_div)),
                Op::Percent => (Level::Term, Binary::Int(op, Expr::floor_mod)),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// An expression whose binary operators all bind at least as tightly
    /// as `min` (precedence climbing: one loop per level actually used,
    /// rather than one call per grammar level per operand). Chains of one
    /// level are built left-deep in the loop, without recursion.
    fn binary(&mut self, min: Level) -> PResult<Spanned> {
        // Without a leading `not`, the operand is a unary expression and
        // the loop below climbs through every level from there.
        let mut lhs = if min <= Level::Not && self.peek_word(Word::Not) {
            self.not()?
        } else {
            self.unary()?
        };
        loop {
            if let Some(t) = self.peek() {
                // Checked after every operand, as the grammar's `term` does.
                if t.tok == Tok::Op(Op::Slash) {
                    return Err(syntax(
                        "`/` is true division, which index arithmetic does not have: use `//` for floor division",
                        t.span(),
                    ).into());
                }
                if t.tok == Tok::Op(Op::Pow) {
                    return Err(syntax("`**` (power) is not supported", t.span()).into());
                }
            }
            let Some((level, op)) = self.binary_op() else {
                break;
            };
            if level < min {
                break;
            }
            self.pos += 1;
            let rhs = match level {
                Level::Or => self.binary(Level::And)?,
                Level::And => self.binary(Level::Not)?,
                Level::Not | Level::Cmp => self.binary(Level::Sum)?,
                Level::Sum => self.binary(Level::Term)?,
                Level::Term => self.unary()?,
            };
            let expr = match op {
                Binary::Or | Binary::And => {
                    let (word, make): (_, fn(Expr, Expr) -> Expr) = match op {
                        Binary::Or => ("or", Expr::or),
                        _ => ("and", Expr::and),
                    };
                    self.want(&lhs, Type::Bool, Quoted(word))?;
                    self.want(&rhs, Type::Bool, Quoted(word))?;
                    make(lhs.expr, rhs.expr)
                }
                Binary::Cmp(cmp) => {
                    self.want(&lhs, Type::Int, "a comparison")?;
                    self.want(&rhs, Type::Int, "a comparison")?;
                    if let Some(t) = self.peek().filter(|_| self.cmp_op().is_some()) {
                        return Err(syntax(
                            "chained comparisons are not supported: write `a < b and b < c`",
                            t.span(),
                        )
                        .into());
                    }
                    Expr::cmp(cmp, lhs.expr, rhs.expr)
                }
                Binary::Int(op, make) => {
                    self.want(&lhs, Type::Int, Quoted(op.text()))?;
                    self.want(&rhs, Type::Int, Quoted(op.text()))?;
                    make(lhs.expr, rhs.expr)
                }
            };
            lhs = Spanned {
                span: lhs.span.start..rhs.span.end,
                expr,
            };
        }
        Ok(lhs)
    }

    /// `not` applied any number of times to a comparison-level expression.
    fn not(&mut self) -> PResult<Spanned> {
        if self.peek_word(Word::Not) {
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
        self.binary(Level::Cmp)
    }

    fn cmp_op(&self) -> Option<CmpOp> {
        match self.peek_tok()? {
            Tok::Op(Op::Eq) => Some(CmpOp::Eq),
            Tok::Op(Op::Ne) => Some(CmpOp::Ne),
            Tok::Op(Op::Lt) => Some(CmpOp::Lt),
            Tok::Op(Op::Le) => Some(CmpOp::Le),
            Tok::Op(Op::Gt) => Some(CmpOp::Gt),
            Tok::Op(Op::Ge) => Some(CmpOp::Ge),
            _ => None,
        }
    }

    fn unary(&mut self) -> PResult<Spanned> {
        if self.peek_op(Op::Plus) {
            self.enter(self.span_here())?;
            self.pos += 1;
            let inner = self.unary();
            self.leave();
            return inner;
        }
        if self.peek_op(Op::Minus) {
            let here = self.span_here();
            let start = here.start;
            self.pos += 1;
            if let Some(t) = self.peek().copied() {
                if let Tok::Int(v) = t.tok {
                    // `-2147483648` is one literal, so i64::MIN is representable.
                    if v <= i64::MAX as u64 + 1 && !self.followed_by_power() {
                        self.pos += 1;
                        let val = (v as i128).wrapping_neg() as i64;
                        return Ok(Spanned {
                            span: start..t.end as usize,
                            expr: self.scope.int(val),
                        });
                    }
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
                tok: Tok::Op(Op::Pow),
                ..
            })
        )
    }

    fn atom(&mut self) -> PResult<Spanned> {
        let Some(t) = self.peek().copied() else {
            return Err(syntax("expected an expression, found the end", self.end_span()).into());
        };
        let span = t.span();
        match t.tok {
            Tok::Int(v) => {
                self.pos += 1;
                let v = i64::try_from(v).map_err(|_| {
                    ArithError::new(
                        ErrorKind::Overflow,
                        "integer literal does not fit in 64 bits",
                    )
                    .at(span.clone())
                })?;
                Ok(Spanned {
                    expr: self.scope.int(v),
                    span,
                })
            }
            Tok::Op(Op::Open) => {
                self.enter(span.clone())?;
                self.pos += 1;
                let inner = self.expr()?;
                self.leave();
                let close = self.expect_op(Op::Close, "to close the parenthesis")?;
                Ok(Spanned {
                    expr: inner.expr,
                    span: span.start..close.end,
                })
            }
            Tok::Op(_) => Err(syntax(
                format!(
                    "expected an expression, found `{}`",
                    &self.text[span.clone()]
                ),
                span,
            )
            .into()),
            Tok::Name(word) => {
                self.pos += 1;
                let name = &self.text[span.clone()];
                match word {
                    Word::True => {
                        return Ok(Spanned {
                            expr: Expr::bool(true),
                            span,
                        })
                    }
                    Word::False => {
                        return Ok(Spanned {
                            expr: Expr::bool(false),
                            span,
                        })
                    }
                    Word::And | Word::Or | Word::Not | Word::Keyword => {
                        return Err(syntax(
                            format!("expected an expression, found the keyword `{name}`"),
                            span,
                        )
                        .into())
                    }
                    Word::Plain => {}
                }
                if self.peek_op(Op::Open) {
                    return self.call(name, span);
                }
                // Names are short: a plain scan beats `memchr`'s setup.
                if name.bytes().any(|b| b == b'.') {
                    return Err(ArithError::new(
                        ErrorKind::UnknownName,
                        format!("`{name}` is not a variable name (no dots allowed)"),
                    )
                    .at(span)
                    .into());
                }
                Ok(Spanned {
                    expr: self.scope.var_expr(name).clone(),
                    span,
                })
            }
        }
    }

    fn call(&mut self, name: &str, name_span: Range<usize>) -> PResult<Spanned> {
        let short = match name.bytes().rposition(|b| b == b'.') {
            Some(dot) => &name[dot + 1..],
            None => name,
        };
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
                .at(name_span).into())
            }
        };
        let open = self.expect_op(Op::Open, "after the function name")?;
        self.enter(name_span.start..open.end)?;
        let mut args: smallvec::SmallVec<[Spanned; 3]> = smallvec::SmallVec::new();
        loop {
            args.push(self.expr()?);
            if self.peek_op(Op::Comma) {
                self.pos += 1;
                continue;
            }
            break;
        }
        self.leave();
        let close = self.expect_op(Op::Close, format_args!("to close the call of `{short}`"))?;
        let span = name_span.start..close.end;
        if args.len() != arity {
            return Err(ArithError::new(
                ErrorKind::Syntax,
                format!("`{short}` takes {arity} arguments, found {}", args.len()),
            )
            .at(span)
            .into());
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
                .at(span)
                .into());
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
