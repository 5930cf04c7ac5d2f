//! The parser: TC's grammar (`parser.h`) by recursive descent, with
//! precedence climbing for binary operators (`?` lowest, then `||`, `&&`,
//! comparisons, `+ -`, `* / %`; unary `- !` binds tightest).
//!
//! Left-associative chains are built in a loop, so `a + b + ... ` of any
//! length costs no stack; genuine nesting (parentheses, calls, unary
//! operators, the ternary) is limited to [`MAX_NESTING`] levels, an error
//! with a span beyond that.

use crate::ast::*;
use crate::diag::{Diagnostic, Span};
use crate::lexer::{lex, Tok, Token};

/// How deeply expressions may nest (parentheses, calls, unary operators,
/// ternaries) before the parser reports an error instead of recursing on.
pub const MAX_NESTING: usize = 200;

/// Parses a whole source: any number of `def`s.
///
/// ```
/// let p = tc::parse("def f(float(N) A) -> (B) { B(i) = A(i) + 1 }").unwrap();
/// assert_eq!(p.defs[0].name.name, "f");
/// assert_eq!(p.defs[0].stmts.len(), 1);
/// ```
pub fn parse(source: &str) -> Result<Program, Diagnostic> {
    let tokens = lex(source)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        depth: 0,
        arena: ExprArena::default(),
    };
    let mut defs = Vec::new();
    while !p.at_eof() {
        defs.push(p.def()?);
    }
    Ok(Program { defs })
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    arena: ExprArena,
}

type PResult<T> = Result<T, Diagnostic>;

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(n) => format!("identifier `{n}`"),
        Tok::Int(v) => format!("number `{v}`"),
        Tok::Float(v) => format!("number `{v}`"),
        Tok::Sym(s) => format!("`{s}`"),
        Tok::Eof => "the end of the text".to_string(),
    }
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, k: usize) -> &Token {
        &self.tokens[(self.pos + k).min(self.tokens.len() - 1)]
    }

    fn at_eof(&self) -> bool {
        self.peek().tok == Tok::Eof
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(&self.peek().tok, Tok::Sym(x) if *x == s)
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expected(&self, what: &str) -> Diagnostic {
        let t = self.peek();
        Diagnostic::error(
            t.span,
            format!("expected {what}, found {}", describe(&t.tok)),
        )
    }

    fn expect(&mut self, s: &str) -> PResult<Span> {
        if self.is_sym(s) {
            Ok(self.bump().span)
        } else {
            Err(self.expected(&format!("`{s}`")))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        match &self.peek().tok {
            Tok::Ident(n) => {
                let name = n.clone();
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            _ => Err(self.expected(what)),
        }
    }

    /// A type keyword at the cursor (`int` is read as `int32`, as TC's
    /// documentation writes it).
    fn scalar_type_here(&self) -> Option<ScalarType> {
        match &self.peek().tok {
            Tok::Sym(s) => ScalarType::from_keyword(s),
            Tok::Ident(n) if n == "int" => Some(ScalarType::Int32),
            _ => None,
        }
    }

    fn def(&mut self) -> PResult<Def> {
        let start = self.expect("def")?;
        let name = self.ident("the name of the definition")?;
        self.expect("(")?;
        let params = self.params(")")?;
        self.expect("->")?;
        // TC requires parentheses; its documentation writes `-> A {` for one
        // output, which is accepted too.
        let outputs = if self.eat("(") {
            self.params(")")?
        } else {
            vec![self.param()?]
        };
        self.expect("{")?;
        self.arena = ExprArena::default();
        let mut stmts = Vec::new();
        while !self.is_sym("}") {
            if self.at_eof() {
                return Err(self.expected("`}` closing the definition"));
            }
            stmts.push(self.stmt()?);
        }
        let end = self.expect("}")?;
        Ok(Def {
            name,
            params,
            outputs,
            stmts,
            exprs: std::mem::take(&mut self.arena),
            span: start.to(end),
        })
    }

    fn params(&mut self, close: &str) -> PResult<Vec<Param>> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.param()?);
            if self.eat(close) {
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(self.expected(&format!("`,` or `{close}`")));
            }
        }
    }

    fn param(&mut self) -> PResult<Param> {
        // `int` is a type only where a type can be: followed by a name or a
        // dimension list.
        let is_type = match &self.peek().tok {
            Tok::Ident(_) => {
                self.scalar_type_here().is_some()
                    && matches!(&self.peek_at(1).tok, Tok::Ident(_) | Tok::Sym("("))
            }
            _ => self.scalar_type_here().is_some(),
        };
        if !is_type {
            let name = self.ident("a parameter (`float(N) A`) or an output name")?;
            return Ok(Param { name, ty: None });
        }
        let scalar = self.scalar_type_here().unwrap_or(ScalarType::Float);
        let first = self.bump().span;
        let mut dims = Vec::new();
        let mut span = first;
        if self.eat("(") {
            if !self.is_sym(")") {
                loop {
                    let t = self.bump();
                    match t.tok {
                        Tok::Ident(n) => dims.push(Dim::Size(Ident {
                            name: n,
                            span: t.span,
                        })),
                        Tok::Int(v) => dims.push(Dim::Const(v, t.span)),
                        other => {
                            return Err(Diagnostic::error(
                                t.span,
                                format!(
                                    "expected a size symbol or a constant size, found {}",
                                    describe(&other)
                                ),
                            ))
                        }
                    }
                    if self.is_sym(")") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            span = first.to(self.expect(")")?);
        }
        let name = self.ident("the parameter's name")?;
        Ok(Param {
            name,
            ty: Some(TensorType { scalar, dims, span }),
        })
    }

    fn assign_op(&mut self) -> PResult<(AssignOp, Span)> {
        let op = match &self.peek().tok {
            Tok::Sym(s) => match *s {
                "=" => AssignOp::Assign,
                "+=" | "+=!" | "*=" | "*=!" | "min=" | "min=!" | "max=" | "max=!" => {
                    let op = match &s[..1] {
                        "+" => ReduceOp::Sum,
                        "*" => ReduceOp::Product,
                        _ if s.starts_with("min") => ReduceOp::Min,
                        _ => ReduceOp::Max,
                    };
                    AssignOp::Reduce {
                        op,
                        init: s.ends_with('!'),
                    }
                }
                _ => return Err(self.expected("an assignment (`=`, `+=`, `+=!`, ...)")),
            },
            _ => return Err(self.expected("an assignment (`=`, `+=`, `+=!`, ...)")),
        };
        Ok((op, self.bump().span))
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let lhs = self.ident("a statement (`T(i, ...) = ...`)")?;
        let mut indices = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                indices.push(self.ident("an index variable")?);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.expected("`,` or `)`"));
                }
            }
        }
        let (op, op_span) = self.assign_op()?;
        let rhs = self.exp()?;
        let mut end = self.arena.get(rhs).span;
        let equivalent = if self.eat("<=>") {
            let name = self.ident("the name of the equivalent operation")?;
            self.expect("(")?;
            let (args, close) = self.args()?;
            end = close;
            Some((name, args))
        } else {
            None
        };
        let mut wheres = Vec::new();
        if self.eat("where") {
            loop {
                let w = self.where_clause()?;
                end = match &w {
                    WhereClause::Range { span, .. }
                    | WhereClause::Exists { span, .. }
                    | WhereClause::Let { span, .. } => *span,
                };
                wheres.push(w);
                if !self.eat(",") {
                    break;
                }
            }
        }
        Ok(Stmt {
            span: lhs.span.to(end),
            lhs,
            indices,
            op,
            op_span,
            rhs,
            equivalent,
            wheres,
        })
    }

    fn where_clause(&mut self) -> PResult<WhereClause> {
        if let Tok::Ident(_) = &self.peek().tok {
            if matches!(&self.peek_at(1).tok, Tok::Sym("=")) {
                let name = self.ident("a name")?;
                self.bump();
                let expr = self.exp()?;
                let span = name.span.to(self.arena.get(expr).span);
                return Ok(WhereClause::Let { name, expr, span });
            }
            if matches!(&self.peek_at(1).tok, Tok::Sym("in")) {
                let var = self.ident("a variable")?;
                self.bump();
                let lower = self.exp()?;
                self.expect(":")?;
                let upper = self.exp()?;
                let span = var.span.to(self.arena.get(upper).span);
                return Ok(WhereClause::Range {
                    var,
                    lower,
                    upper,
                    span,
                });
            }
        }
        if self.is_sym("exists") {
            let start = self.bump().span;
            let expr = self.exp()?;
            let span = start.to(self.arena.get(expr).span);
            return Ok(WhereClause::Exists { expr, span });
        }
        Err(self.expected("a `where` clause (`i in lb:ub`, `exists T(...)` or `x = e`)"))
    }

    /// Comma-separated expressions up to `)` (already past `(`).
    fn args(&mut self) -> PResult<(Vec<ExprId>, Span)> {
        let mut args = Vec::new();
        if self.is_sym(")") {
            return Ok((args, self.bump().span));
        }
        loop {
            args.push(self.exp()?);
            if self.is_sym(")") {
                return Ok((args, self.bump().span));
            }
            if !self.eat(",") {
                return Err(self.expected("`,` or `)`"));
            }
        }
    }

    fn exp(&mut self) -> PResult<ExprId> {
        self.exp_prec(0)
    }

    fn binary_prec(&self) -> Option<(u8, Option<BinaryOp>)> {
        let Tok::Sym(s) = &self.peek().tok else {
            return None;
        };
        use BinaryOp::*;
        Some(match *s {
            "?" => (1, None),
            "||" => (2, Some(Or)),
            "&&" => (3, Some(And)),
            ">" => (4, Some(Gt)),
            "<" => (4, Some(Lt)),
            "<=" => (4, Some(Le)),
            ">=" => (4, Some(Ge)),
            "==" => (4, Some(Eq)),
            "!=" => (4, Some(Ne)),
            "+" => (5, Some(Add)),
            "-" => (5, Some(Sub)),
            "*" => (6, Some(Mul)),
            "/" => (6, Some(Div)),
            "%" => (6, Some(Mod)),
            _ => return None,
        })
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let span = self.peek().span;
            return Err(Diagnostic::error(
                span,
                format!(
                    "expression nests more than {MAX_NESTING} levels deep (parentheses, calls, \
                     unary operators, ternaries): split it with `where x = ...` lets"
                ),
            ));
        }
        Ok(())
    }

    fn exp_prec(&mut self, min_prec: u8) -> PResult<ExprId> {
        self.enter()?;
        let r = self.exp_prec_inner(min_prec);
        self.depth -= 1;
        r
    }

    fn exp_prec_inner(&mut self, min_prec: u8) -> PResult<ExprId> {
        let mut lhs = if self.is_sym("-") || self.is_sym("!") {
            let t = self.bump();
            let op = if t.tok == Tok::Sym("-") {
                UnaryOp::Neg
            } else {
                UnaryOp::Not
            };
            let a = self.exp_prec(7)?;
            let span = t.span.to(self.arena.get(a).span);
            self.arena.push(ExprKind::Unary(op, a), span)
        } else {
            self.primary()?
        };
        while let Some((prec, op)) = self.binary_prec() {
            if prec < min_prec.max(1) {
                break;
            }
            self.bump();
            match op {
                None => {
                    let t = self.exp_prec(0)?;
                    self.expect(":")?;
                    // Right-associative: the false branch is a full
                    // expression at the `?` level.
                    let f = self.exp_prec(prec)?;
                    let span = self.arena.get(lhs).span.to(self.arena.get(f).span);
                    lhs = self.arena.push(ExprKind::Ternary(lhs, t, f), span);
                }
                Some(op) => {
                    let rhs = self.exp_prec(prec + 1)?;
                    let span = self.arena.get(lhs).span.to(self.arena.get(rhs).span);
                    lhs = self.arena.push(ExprKind::Binary(op, lhs, rhs), span);
                }
            }
        }
        Ok(lhs)
    }

    fn primary(&mut self) -> PResult<ExprId> {
        let t = self.peek().clone();
        match &t.tok {
            Tok::Int(v) => {
                self.bump();
                Ok(self.arena.push(ExprKind::Int(*v), t.span))
            }
            Tok::Float(v) => {
                self.bump();
                Ok(self.arena.push(ExprKind::Float(*v), t.span))
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.exp()?;
                let close = self.expect(")")?;
                // The parenthesised span, so that diagnostics point at all of it.
                let kind = self.arena.get(e).kind.clone();
                Ok(self.arena.push(kind, t.span.to(close)))
            }
            Tok::Sym(s @ ("min" | "max")) => {
                let op = if *s == "min" {
                    BinaryOp::Min
                } else {
                    BinaryOp::Max
                };
                self.bump();
                self.expect("(")?;
                let a = self.exp()?;
                self.expect(",")?;
                let b = self.exp()?;
                let close = self.expect(")")?;
                Ok(self
                    .arena
                    .push(ExprKind::Binary(op, a, b), t.span.to(close)))
            }
            _ if self.scalar_type_here().is_some()
                && matches!(self.peek_at(1).tok, Tok::Sym("("))
                && (matches!(t.tok, Tok::Sym(_))
                    || matches!(&t.tok, Tok::Ident(n) if n == "int")) =>
            {
                let ty = self.scalar_type_here().unwrap_or(ScalarType::Int32);
                self.bump();
                self.expect("(")?;
                let a = self.exp()?;
                let close = self.expect(")")?;
                Ok(self.arena.push(ExprKind::Cast(ty, a), t.span.to(close)))
            }
            Tok::Ident(n) => {
                let name = Ident {
                    name: n.clone(),
                    span: t.span,
                };
                self.bump();
                if self.eat("(") {
                    let (args, close) = self.args()?;
                    Ok(self
                        .arena
                        .push(ExprKind::Call(name, args), t.span.to(close)))
                } else {
                    Ok(self.arena.push(ExprKind::Ident(name.name), t.span))
                }
            }
            _ => Err(self.expected("an expression")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_expr(src: &str) -> String {
        let p = parse(&format!("def f() -> (O) {{ O = {src} }}")).unwrap();
        let d = &p.defs[0];
        d.exprs.display(d.stmts[0].rhs)
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(one_expr("a + b + c"), "(a + b) + c");
        assert_eq!(one_expr("-3 % 2"), "(-3) % 2");
        assert_eq!(one_expr("a ? 3 : b ? 3 : 4"), "a ? 3 : (b ? 3 : 4)");
        assert_eq!(
            one_expr("a || b && c < d + e * f"),
            "a || (b && (c < (d + (e * f))))"
        );
        assert_eq!(one_expr("min(a, max(b, c))"), "min(a, max(b, c))");
        assert_eq!(one_expr("int32(B(i)) + float(x)"), "int32(B(i)) + float(x)");
    }

    #[test]
    fn statements_and_wheres() {
        let src = "def f(float(N) A, float c) -> (B) {
            B(i) = c where exists A(i)
            B(i) += A(i + k) where k in 0:2, foo = A(i)
            B(i) max=! A(j) <=> m(A(j))
        }";
        let p = parse(src).unwrap();
        let d = &p.defs[0];
        assert_eq!(d.stmts.len(), 3);
        assert_eq!(d.stmts[1].wheres.len(), 2);
        assert!(d.stmts[2].equivalent.is_some());
        assert_eq!(
            d.stmts[2].op,
            AssignOp::Reduce {
                op: ReduceOp::Max,
                init: true
            }
        );
        assert_eq!(&src[d.stmts[0].span.range()], "B(i) = c where exists A(i)");
    }

    #[test]
    fn documentation_forms() {
        let p = parse("def s(float(I) B, int(1) S) -> A { A(i) = B(S(0)*i) }").unwrap();
        assert_eq!(p.defs[0].outputs[0].name.name, "A");
        assert_eq!(
            p.defs[0].params[1].ty.as_ref().unwrap().scalar,
            ScalarType::Int32
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000));
        let e = parse(&format!("def f() -> (O) {{ O = {deep} }}")).unwrap_err();
        assert!(e.message.contains("nests more than"));
        let neg = format!("{}x", "-".repeat(100_000));
        assert!(parse(&format!("def f() -> (O) {{ O = {neg} }}")).is_err());
    }

    #[test]
    fn long_flat_chains_parse() {
        let sum = vec!["A(i)"; 50_000].join(" + ");
        let p = parse(&format!("def f(float(N) A) -> (O) {{ O(i) = {sum} }}")).unwrap();
        assert!(p.defs[0].exprs.len() > 100_000);
    }

    #[test]
    fn errors() {
        let e = parse(" def f{} {}").unwrap_err();
        assert!(e.message.contains("expected `(`"), "{}", e.message);
        assert!(parse("def f(float(N) A) -> (B) { B(i) = A(i) ").is_err());
        assert!(parse("def f(float(N) A) -> (B) { B(0) = A(0) }").is_err());
    }
}
