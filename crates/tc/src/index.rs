//! TC index expressions as `arith` expressions.
//!
//! An index is an expression over index variables, size symbols and integer
//! constants with `+ - * / %`, `min`, `max` (and, in conditions,
//! comparisons and `&& || !`). Anything else (a tensor read, a float, a
//! built-in call) makes it data-dependent: [`to_arith`] gives `None`, or,
//! with holes, replaces each such part by a fresh unconstrained variable.
//!
//! Long `+`/`-` chains are flattened in a loop and rebuilt as a balanced
//! tree, so that no recursion (here or in `arith`) grows with their length;
//! other nesting is limited to [`MAX_DEPTH`].

use crate::ast::*;
use crate::diag::Diagnostic;
use arith::{CmpOp, Expr, Var};

/// How deeply an index expression (after flattening sums) may nest: TC's
/// one nesting limit, the parser's ([`crate::MAX_NESTING`]), so a
/// chain the parser reads flat (`i * i * ...`) is held to what a nested
/// one is.
pub const MAX_DEPTH: usize = crate::parser::MAX_NESTING;

/// What a name in an index refers to.
pub enum Name {
    /// An integer variable (an index variable or a size symbol).
    Var(Var),
    /// A `where` let: its expression.
    Let(ExprId),
    /// A tensor value (a scalar parameter): not an index.
    Value,
}

/// Converts TC expressions of one statement.
pub struct Converter<'a> {
    /// The expressions.
    pub arena: &'a ExprArena,
    /// Resolves names.
    pub lookup: &'a dyn Fn(&str) -> Option<Name>,
    /// When set, data-dependent parts become fresh variables pushed here
    /// instead of making the whole expression `None`.
    pub holes: Option<Vec<Var>>,
}

/// The outcome of converting one expression.
pub type Conv = Result<Option<Expr>, Diagnostic>;

impl Converter<'_> {
    /// `id` as an `arith` expression; `None` when it is not an index
    /// expression (and holes are off).
    pub fn to_arith(&mut self, id: ExprId) -> Conv {
        self.conv(id, 0)
    }

    fn hole(&mut self) -> Conv {
        match &mut self.holes {
            Some(h) => {
                let v = Var::new(format!("value{}", h.len()));
                h.push(v.clone());
                Ok(Some(v.expr()))
            }
            None => Ok(None),
        }
    }

    fn conv(&mut self, id: ExprId, depth: usize) -> Conv {
        let e = self.arena.get(id);
        if depth > MAX_DEPTH {
            return Err(Diagnostic::error(
                e.span,
                format!(
                    "index expression nests more than {MAX_DEPTH} levels deep: simplify it or \
                     split it with `where x = ...` lets"
                ),
            ));
        }
        Ok(Some(match &e.kind {
            ExprKind::Int(v) => Expr::int(*v),
            ExprKind::Float(_) => return self.hole(),
            ExprKind::Ident(n) => match (self.lookup)(n) {
                Some(Name::Var(v)) => v.expr(),
                Some(Name::Let(x)) => return self.conv(x, depth + 1),
                Some(Name::Value) | None => return self.hole(),
            },
            ExprKind::Call(..) => return self.hole(),
            ExprKind::Cast(t, a) => {
                if t.is_float() {
                    return self.hole();
                }
                match self.conv(*a, depth + 1)? {
                    Some(x) => x,
                    None => return Ok(None),
                }
            }
            ExprKind::Unary(UnaryOp::Neg, a) => match self.conv(*a, depth + 1)? {
                Some(x) => Expr::sub(Expr::int(0), x),
                None => return Ok(None),
            },
            ExprKind::Unary(UnaryOp::Not, a) => match self.conv(*a, depth + 1)? {
                Some(x) if x.ty() == arith::Type::Bool => Expr::not(x),
                _ => return Ok(None),
            },
            ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => return self.sum(id, depth),
            ExprKind::Binary(op, a, b) => {
                let (Some(x), Some(y)) = (self.conv(*a, depth + 1)?, self.conv(*b, depth + 1)?)
                else {
                    return Ok(None);
                };
                let ints = x.ty() == arith::Type::Int && y.ty() == arith::Type::Int;
                if ints && matches!(op, BinaryOp::Div | BinaryOp::Mod) && y.as_int() == Some(0) {
                    let what = if *op == BinaryOp::Div {
                        "division"
                    } else {
                        "modulo"
                    };
                    return Err(Diagnostic::error(
                        e.span,
                        format!("{what} by zero: this expression has no value"),
                    ));
                }
                let bools = x.ty() == arith::Type::Bool && y.ty() == arith::Type::Bool;
                use BinaryOp::*;
                match op {
                    Mul if ints => Expr::mul(x, y),
                    Div if ints => Expr::floor_div(x, y),
                    Mod if ints => Expr::floor_mod(x, y),
                    Min if ints => Expr::min(x, y),
                    Max if ints => Expr::max(x, y),
                    Lt if ints => Expr::cmp(CmpOp::Lt, x, y),
                    Le if ints => Expr::cmp(CmpOp::Le, x, y),
                    Gt if ints => Expr::cmp(CmpOp::Gt, x, y),
                    Ge if ints => Expr::cmp(CmpOp::Ge, x, y),
                    Eq if ints => Expr::cmp(CmpOp::Eq, x, y),
                    Ne if ints => Expr::cmp(CmpOp::Ne, x, y),
                    And if bools => Expr::and(x, y),
                    Or if bools => Expr::or(x, y),
                    _ => return Ok(None),
                }
            }
            ExprKind::Ternary(c, a, b) => {
                let (Some(c), Some(x), Some(y)) = (
                    self.conv(*c, depth + 1)?,
                    self.conv(*a, depth + 1)?,
                    self.conv(*b, depth + 1)?,
                ) else {
                    return Ok(None);
                };
                if c.ty() != arith::Type::Bool || x.ty() != y.ty() {
                    return Ok(None);
                }
                Expr::select(c, x, y)
            }
        }))
    }

    /// A chain of `+` and `-`, walked down its left spine without
    /// recursion.
    fn sum(&mut self, id: ExprId, depth: usize) -> Conv {
        let mut terms: Vec<(bool, ExprId)> = Vec::new();
        let mut cur = id;
        while let ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) =
            &self.arena.get(cur).kind
        {
            terms.push((*op == BinaryOp::Sub, *b));
            cur = *a;
        }
        terms.push((false, cur));
        terms.reverse();
        let mut pos = Vec::new();
        let mut neg = Vec::new();
        for (negative, t) in terms {
            let Some(x) = self.conv(t, depth + 1)? else {
                return Ok(None);
            };
            if x.ty() != arith::Type::Int {
                return Ok(None);
            }
            if negative {
                neg.push(x);
            } else {
                pos.push(x);
            }
        }
        if pos.len() + neg.len() <= 16 {
            // Short sums keep their written shape, left to right.
            let mut it = pos.into_iter();
            let mut acc = it.next().unwrap_or(Expr::int(0));
            for x in it {
                acc = Expr::add(acc, x);
            }
            for x in neg {
                acc = Expr::sub(acc, x);
            }
            return Ok(Some(acc));
        }
        let p = balanced(pos);
        Ok(Some(if neg.is_empty() {
            p
        } else {
            Expr::sub(p, balanced(neg))
        }))
    }
}

/// The sum of `terms` as a balanced tree (depth `log n`).
fn balanced(mut terms: Vec<Expr>) -> Expr {
    if terms.is_empty() {
        return Expr::int(0);
    }
    while terms.len() > 1 {
        let mut next = Vec::with_capacity(terms.len().div_ceil(2));
        let mut it = terms.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => next.push(Expr::add(a, b)),
                None => next.push(a),
            }
        }
        terms = next;
    }
    terms.pop().unwrap_or(Expr::int(0))
}
