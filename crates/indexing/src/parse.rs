//! Parsing XLA's text form of indexing maps.
//!
//! ```text
//! map        := "UNDEFINED" | "KNOWN EMPTY"
//!             | vars "->" "(" [ expr { "," expr } ] ")" [ "," "domain" ":" bounds { "," constraint } [ "," simplified ] ]
//!             | "#" dialect ".indexing_map<" [ '"' ] map [ '"' ] ">"      as MLIR prints the attribute
//! vars       := "(" names ")" [ "[" names "]" ] [ "{" names "}" ]     dims, range vars, runtime vars
//! bounds     := name "in" interval { "," name "in" interval }           every variable, in order
//! constraint := expr "in" interval
//! interval   := "[" int "," int "]"                                    inclusive
//! simplified := "is_simplified" ":" ("true" | "false")                 as XLA printed it until 2025; ignored
//! expr       := term { ("+" | "-") term }
//! term       := factor { ("*" | "/" | "floordiv" | "floorDiv" | "ceildiv" | "ceilDiv" | "mod") factor }
//! factor     := "-" factor | "min" "(" expr "," expr ")" | "max" "(" expr "," expr ")"
//!             | "(" expr ")" | name | int
//! ```
//!
//! Whitespace is insignificant. Expressions are built with XLA's folding
//! constructors ([`crate::build`]), so `a - b` is `a + b * -1` and `2 * x` is
//! `x * 2`, as in XLA. A variable whose name is not its positional default
//! (`d0`, `s1`, `rt2`) keeps it as a custom name.

use crate::build;
use crate::interval::Interval;
use crate::map::IndexingMap;
use crate::variable::{VarKind, Variable};
use arith::{ArithError, ErrorKind, Expr, Result, Var};
use std::collections::HashMap;
use std::ops::Range;

impl IndexingMap {
    /// Parses a map in XLA's text form. Errors carry the byte span of the
    /// offending text and say what was expected.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// let map = IndexingMap::parse("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]").unwrap();
    /// assert_eq!(map.num_symbols(), 1);
    /// let err = IndexingMap::parse("(d0) -> (d0 +), domain: d0 in [0, 9]").unwrap_err();
    /// assert_eq!(err.span, Some(13..14));
    /// ```
    pub fn parse(text: &str) -> Result<IndexingMap> {
        match attribute_body(text) {
            Some((start, end)) => parse_map(&text[start..end]).map_err(|e| e.shifted(start)),
            None => parse_map(text),
        }
    }

    /// Parses an expression over this map's variables, by their printed
    /// names (`d0 * 4 + s1`, `th_x mod 32`).
    pub fn parse_expr(&self, text: &str) -> Result<Expr> {
        let scope = self
            .all_vars()
            .map(|v| (self.var_name(v.var()), v.var().clone()))
            .collect();
        let mut p = Parser::new(text, scope)?;
        let e = p.expr()?;
        p.expect_end("a complete expression")?;
        Ok(e)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(u128),
    Punct(&'static str),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    span: Range<usize>,
}

/// [`IndexingMap::parse`] of the map text itself.
fn parse_map(text: &str) -> Result<IndexingMap> {
    let mut p = Parser::new(text, HashMap::new())?;
    let map = p.map()?;
    p.expect_end("the end of the map")?;
    Ok(map)
}

/// The byte range of the map inside an MLIR attribute,
/// `#xla.indexing_map<"MAP">` or `#xla_gpu.indexing_map<MAP>`, when `text`
/// is one.
fn attribute_body(text: &str) -> Option<(usize, usize)> {
    let trimmed = text.trim_start();
    let at = text.len() - trimmed.len();
    let rest = trimmed.strip_prefix('#')?;
    let open = rest.find('<')?;
    let dialect = rest[..open].strip_suffix(".indexing_map")?;
    if dialect.is_empty()
        || !dialect
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let mut start = at + 1 + open + 1;
    let mut end = text.trim_end().len().checked_sub(1)?;
    if start > end || text.as_bytes()[end] != b'>' {
        return None;
    }
    let body = &text[start..end];
    let inner = body.trim();
    if inner.len() >= 2 && inner.starts_with('"') && inner.ends_with('"') {
        start += body.find('"')? + 1;
        end = start + inner.len() - 2;
    }
    Some((start, end))
}

fn syntax(message: impl Into<String>, span: Range<usize>) -> ArithError {
    ArithError::new(ErrorKind::Syntax, message).at(span)
}

fn lex(text: &str) -> Result<Vec<Token>> {
    const PUNCT: [&str; 13] = [
        "->", "(", ")", "[", "]", "{", "}", ",", ":", "+", "-", "*", "/",
    ];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(text[start..i].to_string()),
                span: start..i,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let v: u128 = text[start..i]
                .parse()
                .map_err(|_| syntax("this integer does not fit in 64 bits", start..i))?;
            out.push(Token {
                tok: Tok::Int(v),
                span: start..i,
            });
        } else if let Some(p) = PUNCT.iter().find(|p| text[i..].starts_with(**p)) {
            out.push(Token {
                tok: Tok::Punct(p),
                span: i..i + p.len(),
            });
            i += p.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(syntax(
                format!("unexpected character `{ch}`; maps use names, integers, ( ) [ ] {{ }} , : -> + - * /"),
                i..i + ch.len_utf8(),
            ));
        }
    }
    Ok(out)
}

/// The deepest expression tree the parser builds.
const MAX_DEPTH: u32 = 400;

struct Parser<'a> {
    text: &'a str,
    /// Open parentheses, negations and `min(`/`max(` around the current
    /// token, bounding the parser's own recursion.
    nesting: u32,
    tokens: Vec<Token>,
    pos: usize,
    scope: HashMap<String, Var>,
}

/// A declared variable before its range is known.
struct Decl {
    var: Var,
    name: String,
}

impl<'a> Parser<'a> {
    /// A parser at the first token of `text`, resolving names in `scope`.
    fn new(text: &'a str, scope: HashMap<String, Var>) -> Result<Parser<'a>> {
        Ok(Parser {
            text,
            tokens: lex(text)?,
            pos: 0,
            scope,
            nesting: 0,
        })
    }

    /// Fails at the first token left over after `what`.
    fn expect_end(&self, what: &str) -> Result<()> {
        match self.peek() {
            Some(t) => Err(syntax(
                format!("unexpected `{}` after {what}", &self.text[t.span.clone()]),
                t.span.clone(),
            )),
            None => Ok(()),
        }
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }

    fn is_ident(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Ident(n), .. }) if n == name)
    }

    fn end_span(&self) -> Range<usize> {
        self.text.len()..self.text.len()
    }

    fn found(&self) -> (String, Range<usize>) {
        match self.peek() {
            Some(t) => (format!("`{}`", &self.text[t.span.clone()]), t.span.clone()),
            None => ("the end of the text".to_string(), self.end_span()),
        }
    }

    fn expected(&self, what: &str) -> ArithError {
        let (found, span) = self.found();
        syntax(format!("expected {what}, found {found}"), span)
    }

    fn expect_punct(&mut self, p: &str, what: &str) -> Result<Range<usize>> {
        if self.is_punct(p) {
            let span = self.tokens[self.pos].span.clone();
            self.pos += 1;
            Ok(span)
        } else {
            Err(self.expected(what))
        }
    }

    fn expect_ident(&mut self, what: &str) -> Result<(String, Range<usize>)> {
        match self.peek() {
            Some(Token {
                tok: Tok::Ident(n),
                span,
            }) => {
                let r = (n.clone(), span.clone());
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.expected(what)),
        }
    }

    fn map(&mut self) -> Result<IndexingMap> {
        if self.is_ident("UNDEFINED") {
            self.pos += 1;
            return Ok(IndexingMap::undefined());
        }
        if self.is_ident("KNOWN") {
            self.pos += 1;
            if !self.is_ident("EMPTY") {
                return Err(self.expected("`EMPTY` after `KNOWN`"));
            }
            self.pos += 1;
            return Ok(IndexingMap::known_empty(0, 0));
        }
        let (dims, symbols, rt_vars) = self.variable_lists()?;
        self.expect_punct("->", "`->` after the variable lists")?;
        let results = self.results()?;
        let decls: Vec<&Decl> = dims.iter().chain(&symbols).chain(&rt_vars).collect();
        let (bounds, constraints) = self.domain(&decls)?;
        let make = |list: &[Decl], kind: VarKind, offset: usize| -> Vec<Variable> {
            list.iter()
                .enumerate()
                .map(|(i, d)| {
                    let custom = (d.name != kind.default_name(i)).then(|| d.name.clone());
                    Variable::from_var(d.var.clone(), bounds[offset + i], custom)
                })
                .collect()
        };
        let dim_vars = make(&dims, VarKind::Dim, 0);
        let sym_vars = make(&symbols, VarKind::Symbol, dims.len());
        let rt = make(&rt_vars, VarKind::Runtime, dims.len() + symbols.len());
        let mut map = IndexingMap::new(dim_vars, sym_vars, rt, results)?;
        for (e, iv, span) in constraints {
            map.add_constraint(e, iv).map_err(|err| err.at(span))?;
        }
        Ok(map)
    }

    /// `(dims)[range vars]{runtime vars}`; the last two are optional.
    fn variable_lists(&mut self) -> Result<(Vec<Decl>, Vec<Decl>, Vec<Decl>)> {
        self.expect_punct(
            "(",
            "`(` to start the dimension list, `UNDEFINED` or `KNOWN EMPTY`",
        )?;
        let dims = self.names(")", VarKind::Dim)?;
        let symbols = if self.is_punct("[") {
            self.pos += 1;
            self.names("]", VarKind::Symbol)?
        } else {
            vec![]
        };
        let rt_vars = if self.is_punct("{") {
            self.pos += 1;
            self.names("}", VarKind::Runtime)?
        } else {
            vec![]
        };
        Ok((dims, symbols, rt_vars))
    }

    /// `(e0, e1, ...)`, possibly empty.
    fn results(&mut self) -> Result<Vec<Expr>> {
        self.expect_punct("(", "`(` to start the results")?;
        let mut results = Vec::new();
        if !self.is_punct(")") {
            loop {
                results.push(self.expr()?);
                if !self.is_punct(",") {
                    break;
                }
                self.pos += 1;
            }
        }
        self.expect_punct(")", "`,` or `)` after a result")?;
        Ok(results)
    }

    /// `, domain: v in [lo, hi], ..., constraint in [lo, hi], ...`: the
    /// range of every declared variable in order, then the constraints with
    /// their spans. Absent when the map has no variables.
    #[allow(clippy::type_complexity)]
    fn domain(
        &mut self,
        decls: &[&Decl],
    ) -> Result<(Vec<Interval>, Vec<(Expr, Interval, Range<usize>)>)> {
        let mut bounds = Vec::with_capacity(decls.len());
        let mut constraints = Vec::new();
        if decls.is_empty() && !self.is_punct(",") {
            return Ok((bounds, constraints));
        }
        let first = decls.first().map_or(String::new(), |d| {
            format!(" with the range of `{}`", d.name)
        });
        self.expect_punct(",", &format!("`, domain:`{first}"))?;
        if !self.is_ident("domain") {
            return Err(self.expected("`domain:`"));
        }
        self.pos += 1;
        self.expect_punct(":", "`:` after `domain`")?;
        for (k, decl) in decls.iter().enumerate() {
            if k > 0 {
                self.expect_punct(",", &format!("`,` and the range of `{}`", decl.name))?;
            }
            let what = format!("the range of `{}` (`{} in [lo, hi]`)", decl.name, decl.name);
            let (name, span) = self.expect_ident(&what)?;
            if name != decl.name {
                return Err(syntax(
                    format!(
                        "expected the range of `{}` here (ranges follow the declaration order), found `{name}`",
                        decl.name
                    ),
                    span,
                ));
            }
            self.expect_in()?;
            bounds.push(self.interval()?);
        }
        while self.is_punct(",") {
            self.pos += 1;
            if self.is_simplified_flag()? {
                break;
            }
            let start = self.peek().map_or(self.text.len(), |t| t.span.start);
            let e = self.expr()?;
            let end = self.tokens[self.pos - 1].span.end;
            self.expect_in()?;
            let iv = self.interval()?;
            constraints.push((e, iv, start..end));
        }
        Ok((bounds, constraints))
    }

    /// Consumes `is_simplified: true` or `is_simplified: false`, the last
    /// entry of a domain as XLA printed maps until 2025 (it says whether
    /// XLA had simplified the map, which changes nothing it denotes).
    fn is_simplified_flag(&mut self) -> Result<bool> {
        let colon_next = self.tokens.get(self.pos + 1).map(|t| &t.tok) == Some(&Tok::Punct(":"));
        if !(self.is_ident("is_simplified") && colon_next) {
            return Ok(false);
        }
        self.pos += 2;
        if !(self.is_ident("true") || self.is_ident("false")) {
            return Err(self.expected("`true` or `false` after `is_simplified:`"));
        }
        self.pos += 1;
        Ok(true)
    }

    fn expect_in(&mut self) -> Result<()> {
        if self.is_ident("in") {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.expected("`in` before the interval"))
        }
    }

    fn names(&mut self, close: &str, kind: VarKind) -> Result<Vec<Decl>> {
        let mut out: Vec<Decl> = Vec::new();
        if self.is_punct(close) {
            self.pos += 1;
            return Ok(out);
        }
        let what = match kind {
            VarKind::Dim => "a dimension name",
            VarKind::Symbol => "a range variable name",
            VarKind::Runtime => "a runtime variable name",
        };
        loop {
            let (name, span) = self.expect_ident(what)?;
            if self.scope.contains_key(&name) {
                return Err(syntax(
                    format!("`{name}` is declared twice; give each variable its own name"),
                    span,
                ));
            }
            let var = Var::new(name.clone());
            self.scope.insert(name.clone(), var.clone());
            out.push(Decl { var, name });
            if self.is_punct(",") {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.expect_punct(close, &format!("`,` or `{close}` after {what}"))?;
        Ok(out)
    }

    fn interval(&mut self) -> Result<Interval> {
        self.expect_punct("[", "`[` to start an inclusive interval `[lo, hi]`")?;
        let lo = self.signed_int()?;
        self.expect_punct(",", "`,` between the ends of the interval")?;
        let hi = self.signed_int()?;
        self.expect_punct("]", "`]` to close the interval (ends are inclusive)")?;
        Ok(Interval::new(lo, hi))
    }

    fn signed_int(&mut self) -> Result<i64> {
        let negative = self.is_punct("-");
        let start = self.peek().map(|t| t.span.start).unwrap_or(self.text.len());
        if negative {
            self.pos += 1;
        }
        match self.peek() {
            Some(Token {
                tok: Tok::Int(v),
                span,
            }) => {
                let v = if negative { -(*v as i128) } else { *v as i128 };
                let span = start..span.end;
                self.pos += 1;
                i64::try_from(v).map_err(|_| syntax("this integer does not fit in 64 bits", span))
            }
            _ => Err(self.expected("an integer")),
        }
    }

    fn expr(&mut self) -> Result<Expr> {
        Ok(self.sum()?.0)
    }

    /// Rejects trees deeper than [`MAX_DEPTH`]: every later pass (printing,
    /// simplifying) walks trees recursively.
    fn check_depth(&self, depth: u32) -> Result<()> {
        if depth <= MAX_DEPTH {
            return Ok(());
        }
        let span = self.peek().map_or(self.end_span(), |t| t.span.clone());
        Err(syntax(
            format!("this expression nests more than {MAX_DEPTH} operations deep; split it into smaller maps"),
            span,
        ))
    }

    /// `term { ("+" | "-") term }`, with the depth of the tree built.
    ///
    /// A sum is built left to right (`a + b + c` is `(a + b) + c`, as
    /// written) unless that tree would be deeper than [`MAX_DEPTH`]; a
    /// longer flat sum is built as a balanced tree instead, so sums of tens
    /// of thousands of terms parse, and every later pass recurses only
    /// logarithmically deep.
    fn sum(&mut self) -> Result<(Expr, u32)> {
        let mut terms = vec![self.term()?];
        loop {
            let negate = if self.is_punct("+") {
                false
            } else if self.is_punct("-") {
                true
            } else {
                break;
            };
            self.pos += 1;
            let (rhs, d) = self.term()?;
            terms.push(if negate {
                (build::neg(rhs), d + 1)
            } else {
                (rhs, d)
            });
        }
        let deepest = terms.iter().map(|t| t.1).max().unwrap_or(0);
        let left_deep = u32::try_from(terms.len()).map_or(u32::MAX, |n| n.saturating_add(deepest));
        if left_deep <= MAX_DEPTH {
            let mut it = terms.into_iter();
            let (mut lhs, mut depth) = it.next().expect("a sum has a first term");
            for (rhs, d) in it {
                lhs = build::add(lhs, rhs);
                depth = depth.max(d) + 1;
            }
            return Ok((lhs, depth));
        }
        while terms.len() > 1 {
            let mut next = Vec::with_capacity(terms.len().div_ceil(2));
            let mut it = terms.into_iter();
            while let Some((a, da)) = it.next() {
                match it.next() {
                    Some((b, db)) => next.push((build::add(a, b), da.max(db) + 1)),
                    None => next.push((a, da)),
                }
            }
            terms = next;
        }
        let (e, depth) = terms.pop().expect("a sum has a first term");
        self.check_depth(depth)?;
        Ok((e, depth))
    }

    fn term(&mut self) -> Result<(Expr, u32)> {
        let (mut lhs, mut depth) = self.factor()?;
        loop {
            let op: fn(Expr, Expr) -> Expr = match self.peek().map(|t| &t.tok) {
                Some(Tok::Punct("*")) => build::mul,
                Some(Tok::Punct("/")) => build::floor_div,
                Some(Tok::Ident(n)) if n == "floordiv" || n == "floorDiv" => build::floor_div,
                Some(Tok::Ident(n)) if n == "ceildiv" || n == "ceilDiv" => build::ceil_div,
                Some(Tok::Ident(n)) if n == "mod" => build::modulo,
                _ => return Ok((lhs, depth)),
            };
            self.pos += 1;
            let (rhs, d) = self.factor()?;
            lhs = op(lhs, rhs);
            depth = depth.max(d) + 1;
            self.check_depth(depth)?;
        }
    }

    fn factor(&mut self) -> Result<(Expr, u32)> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.expected("an expression"));
        };
        self.nesting += 1;
        self.check_depth(self.nesting)?;
        let out = self.factor_inner(&t);
        self.nesting -= 1;
        out
    }

    fn factor_inner(&mut self, t: &Token) -> Result<(Expr, u32)> {
        match &t.tok {
            Tok::Punct("-") => {
                self.pos += 1;
                if let Some(Token {
                    tok: Tok::Int(v),
                    span,
                }) = self.peek().cloned()
                {
                    self.pos += 1;
                    return i64::try_from(-(v as i128))
                        .map(|v| (Expr::int(v), 1))
                        .map_err(|_| {
                            syntax(
                                "this integer does not fit in 64 bits",
                                t.span.start..span.end,
                            )
                        });
                }
                let (e, d) = self.factor()?;
                Ok((build::neg(e), d + 1))
            }
            Tok::Punct("(") => {
                self.pos += 1;
                let e = self.sum()?;
                self.expect_punct(")", "`)` to close the parenthesis")?;
                Ok(e)
            }
            Tok::Int(v) => {
                self.pos += 1;
                i64::try_from(*v)
                    .map(|v| (Expr::int(v), 1))
                    .map_err(|_| syntax("this integer does not fit in 64 bits", t.span.clone()))
            }
            Tok::Ident(n) if (n == "min" || n == "max") && self.next_is_open_paren() => {
                self.pos += 2;
                let (a, da) = self.sum()?;
                self.expect_punct(",", &format!("`,` between the two arguments of `{n}`"))?;
                let (b, db) = self.sum()?;
                self.expect_punct(")", &format!("`)` after the second argument of `{n}`"))?;
                let e = if n == "min" {
                    build::min(a, b)
                } else {
                    build::max(a, b)
                };
                Ok((e, da.max(db) + 1))
            }
            Tok::Ident(n) => match self.scope.get(n) {
                Some(v) => {
                    self.pos += 1;
                    Ok((v.expr(), 1))
                }
                None => Err(syntax(
                    format!(
                        "unknown variable `{n}`; declare it in `( )`, `[ ]` or `{{ }}` before `->`"
                    ),
                    t.span.clone(),
                )),
            },
            _ => {
                Err(self.expected("an expression (a name, an integer, `-`, `(`, `min(` or `max(`)"))
            }
        }
    }

    fn next_is_open_paren(&self) -> bool {
        matches!(
            self.tokens.get(self.pos + 1),
            Some(Token {
                tok: Tok::Punct("("),
                ..
            })
        )
    }
}
