//! Expressions: literals, names, attributes, subscripts, calls, lambdas,
//! operators, comparisons and comprehensions.

use super::Interpreter;
use crate::args::{Args, Spanned};
use crate::error::{span_of, Eval, Raised};
use crate::function::{Body, Function};
use crate::objects;
use crate::operators::{self, BinaryOp};
use crate::scope::Scope;
use crate::value::Value;
use rustpython_parser::ast::{self, Ranged};
use std::ops::Range;
use std::rc::Rc;

const SUPPORTED_EXPRESSIONS: &str = "supported expressions are: numbers, strings, names, \
     attributes, calls with keyword and `*` arguments, subscripts, lambdas, tuples, lists, \
     dicts, list comprehensions and generators, + - * / // % **, comparisons, and/or/not and \
     `x if c else y`";

impl Interpreter {
    /// Evaluates an expression.
    pub fn eval(&mut self, e: &ast::Expr, scope: &Rc<Scope>) -> Eval<Value> {
        tir::stack::grow(|| self.eval_step(e, scope))
    }

    /// One level of [`Self::eval`], on the stack [`tir::stack::grow`] left room on.
    fn eval_step(&mut self, e: &ast::Expr, scope: &Rc<Scope>) -> Eval<Value> {
        let span = span_of(e.range());
        match e {
            ast::Expr::Constant(c) => constant(&c.value, span),
            ast::Expr::Name(n) => self.lookup(n.id.as_str(), span, scope),
            ast::Expr::Attribute(a) => {
                let value = self.eval(&a.value, scope)?;
                self.attribute(&value, a.attr.as_str(), span)
            }
            ast::Expr::Subscript(s) => {
                let value = self.eval(&s.value, scope)?;
                let index = match &*s.slice {
                    ast::Expr::Tuple(t) => Value::tuple(self.eval_items(&t.elts, scope)?),
                    ast::Expr::Slice(sl) => {
                        return Err(Raised::at(
                            span_of(sl.range),
                            "slices are not supported; index with integers or expressions",
                        ))
                    }
                    other => self.eval(other, scope)?,
                };
                self.subscript(&value, &index, span_of(s.slice.range()), span)
            }
            ast::Expr::Call(c) => {
                let callee = self.eval(&c.func, scope)?;
                let mut positional = Vec::new();
                for a in &c.args {
                    if let ast::Expr::Starred(st) = a {
                        let v = self.eval(&st.value, scope)?;
                        let items = objects::unpack(&v).ok_or_else(|| {
                            Raised::at(
                                span_of(st.range),
                                format!("cannot unpack a {}", v.type_name()),
                            )
                        })?;
                        let item_span = span_of(st.range);
                        positional.extend(items.into_iter().map(|value| Spanned {
                            value,
                            span: item_span.clone(),
                        }));
                    } else {
                        let value = self.eval(a, scope)?;
                        positional.push(Spanned {
                            value,
                            span: span_of(a.range()),
                        });
                    }
                }
                let mut keywords = Vec::new();
                for k in &c.keywords {
                    let Some(name) = &k.arg else {
                        return Err(Raised::at(
                            span_of(k.range),
                            "`**kwargs` arguments are not supported",
                        ));
                    };
                    let value = self.eval(&k.value, scope)?;
                    keywords.push((
                        name.to_string(),
                        Spanned {
                            value,
                            span: span_of(k.range),
                        },
                    ));
                }
                self.call(
                    &callee,
                    Args {
                        positional,
                        keywords,
                        span,
                    },
                )
            }
            ast::Expr::Lambda(l) => {
                let (params, vararg) = self.parameters(&l.args, span.clone(), scope)?;
                Ok(crate::value::function(Function {
                    name: "<lambda>".to_owned(),
                    params,
                    vararg,
                    body: Body::Lambda(self.program.lambda_body(l.range).ok_or_else(|| {
                        Raised::at(span.clone(), "internal error: a lambda body was not kept")
                    })?),
                    closure: scope.clone(),
                }))
            }
            ast::Expr::BinOp(b) => {
                // A long flat sum (`1 + 1 + ...`) is a left-nested chain:
                // walk its spine in a loop, not by recursion on its length.
                let mut spine = vec![b];
                let mut first = &*b.left;
                while let ast::Expr::BinOp(inner) = first {
                    spine.push(inner);
                    first = &inner.left;
                }
                let mut acc = self.eval(first, scope)?;
                for node in spine.iter().rev() {
                    let rhs = self.eval(&node.right, scope)?;
                    let at = span_of(node.range);
                    let op = binary_op(&node.op, at.clone())?;
                    acc = operators::binary(op, &acc, &rhs, at)?;
                }
                Ok(acc)
            }
            ast::Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand, scope)?;
                match u.op {
                    ast::UnaryOp::USub => operators::negate(&v, span),
                    ast::UnaryOp::UAdd => Ok(v),
                    ast::UnaryOp::Not => Ok(Value::Bool(!self.truthy(&v, span)?)),
                    ast::UnaryOp::Invert => operators::invert(&v, span),
                }
            }
            ast::Expr::Compare(c) => self.eval_compare(c, scope),
            ast::Expr::BoolOp(b) => {
                // Python's short circuit: the first falsy (and) or truthy (or)
                // operand is the result.
                let is_and = matches!(b.op, ast::BoolOp::And);
                let mut last = Value::Bool(is_and);
                for operand in &b.values {
                    last = self.eval(operand, scope)?;
                    if self.truthy(&last, span_of(operand.range()))? != is_and {
                        break;
                    }
                }
                Ok(last)
            }
            ast::Expr::IfExp(i) => {
                let test = self.eval(&i.test, scope)?;
                if self.truthy(&test, span_of(i.test.range()))? {
                    self.eval(&i.body, scope)
                } else {
                    self.eval(&i.orelse, scope)
                }
            }
            ast::Expr::ListComp(c) => self.eval_comprehension(&c.elt, &c.generators, scope),
            // A generator is consumed at once: scripts only pass them to
            // `any`, `all`, `tuple` and friends.
            ast::Expr::GeneratorExp(g) => self.eval_comprehension(&g.elt, &g.generators, scope),
            ast::Expr::Tuple(t) => Ok(Value::tuple(self.eval_items(&t.elts, scope)?)),
            ast::Expr::List(l) => Ok(Value::list(self.eval_items(&l.elts, scope)?)),
            ast::Expr::Dict(d) => {
                let mut pairs = Vec::new();
                for (k, v) in d.keys.iter().zip(&d.values) {
                    let Some(k) = k else {
                        return Err(Raised::at(
                            span_of(v.range()),
                            "`**` in dicts is not supported",
                        ));
                    };
                    pairs.push((self.eval(k, scope)?, self.eval(v, scope)?));
                }
                Ok(Value::Dict(Rc::from(pairs)))
            }
            other => Err(Raised::at(
                span,
                format!(
                    "{} is not supported; {SUPPORTED_EXPRESSIONS}",
                    expression_kind(other)
                ),
            )),
        }
    }

    /// `[elt for target in iter if cond ...]`, in a scope of its own as in
    /// Python 3.
    fn eval_comprehension(
        &mut self,
        elt: &ast::Expr,
        generators: &[ast::Comprehension],
        scope: &Rc<Scope>,
    ) -> Eval<Value> {
        let inner = Scope::child(scope);
        let mut out = Vec::new();
        self.comprehend(elt, generators, &inner, &mut out)?;
        Ok(Value::list(out))
    }

    fn comprehend(
        &mut self,
        elt: &ast::Expr,
        generators: &[ast::Comprehension],
        scope: &Rc<Scope>,
        out: &mut Vec<Value>,
    ) -> Eval<()> {
        let Some((first, rest)) = generators.split_first() else {
            out.push(self.eval(elt, scope)?);
            return Ok(());
        };
        let iter_span = span_of(first.iter.range());
        let iterable = self.eval(&first.iter, scope)?;
        let items = crate::objects::unpack(&iterable).ok_or_else(|| {
            Raised::at(
                iter_span,
                format!("cannot loop over a {}", iterable.type_name()),
            )
        })?;
        'items: for item in items {
            self.assign(&first.target, item, scope)?;
            for cond in &first.ifs {
                let c = self.eval(cond, scope)?;
                if !self.truthy(&c, span_of(cond.range()))? {
                    continue 'items;
                }
            }
            self.comprehend(elt, rest, scope, out)?;
        }
        Ok(())
    }

    fn eval_items(&mut self, elts: &[ast::Expr], scope: &Rc<Scope>) -> Eval<Vec<Value>> {
        let mut items = Vec::with_capacity(elts.len());
        for e in elts {
            if let ast::Expr::Starred(st) = e {
                let v = self.eval(&st.value, scope)?;
                let inner = objects::unpack(&v).ok_or_else(|| {
                    Raised::at(
                        span_of(st.range),
                        format!("cannot unpack a {}", v.type_name()),
                    )
                })?;
                items.extend(inner);
            } else {
                items.push(self.eval(e, scope)?);
            }
        }
        Ok(items)
    }

    fn eval_compare(&mut self, c: &ast::ExprCompare, scope: &Rc<Scope>) -> Eval<Value> {
        // `a < b < c` is `a < b and b < c`, with `b` evaluated once.
        let mut lhs = self.eval(&c.left, scope)?;
        let mut result = Value::Bool(true);
        for (op, right) in c.ops.iter().zip(&c.comparators) {
            let rhs = self.eval(right, scope)?;
            let span = span_of(c.left.range()).start..span_of(right.range()).end;
            result = match op {
                ast::CmpOp::Is | ast::CmpOp::IsNot => {
                    let same = match (&lhs, &rhs) {
                        (Value::Bool(a), Value::Bool(b)) => a == b,
                        _ => operators::equal(&lhs, &rhs),
                    };
                    Value::Bool(same == matches!(op, ast::CmpOp::Is))
                }
                ast::CmpOp::In | ast::CmpOp::NotIn => {
                    // `iv in bounds` iterates the map's keys, as Python does.
                    let Some(items) = rhs.sequence().or_else(|| tvm_api::iter(&rhs)) else {
                        return Err(Raised::at(
                            span,
                            format!("`in` needs a tuple or list, not a {}", rhs.type_name()),
                        ));
                    };
                    let mut found = false;
                    for item in &items {
                        let eq = operators::compare(arith::CmpOp::Eq, &lhs, item, span.clone())?;
                        if matches!(eq, Value::Bool(true)) {
                            found = true;
                        }
                    }
                    Value::Bool(found == matches!(op, ast::CmpOp::In))
                }
                _ => operators::compare(cmp_op(op), &lhs, &rhs, span.clone())?,
            };
            if c.ops.len() > 1 && !self.truthy(&result, span)? {
                return Ok(Value::Bool(false));
            }
            lhs = rhs;
        }
        Ok(result)
    }

    fn attribute(&self, value: &Value, name: &str, span: Range<usize>) -> Eval<Value> {
        match value {
            Value::List(_) if name == "append" => {
                Ok(Value::Method(Rc::new(value.clone()), "append"))
            }
            _ => objects::attribute(value, name, span),
        }
    }

    fn subscript(
        &self,
        value: &Value,
        index: &Value,
        index_span: Range<usize>,
        span: Range<usize>,
    ) -> Eval<Value> {
        match value {
            Value::Tuple(_) | Value::List(_) => {
                let items = value.sequence().unwrap_or_default();
                let Some(i) = operators::as_int(index) else {
                    return Err(Raised::at(
                        index_span,
                        format!(
                            "a {} index must be an integer, not a {}",
                            value.type_name(),
                            index.type_name()
                        ),
                    ));
                };
                let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
                let at = if i < 0 { i + len } else { i };
                usize::try_from(at)
                    .ok()
                    .and_then(|at| items.get(at).cloned())
                    .ok_or_else(|| {
                        Raised::at(
                            index_span,
                            format!("index {i} is out of range for length {len}"),
                        )
                    })
            }
            _ => objects::subscript(value, index, index_span, span),
        }
    }
}

fn constant(c: &ast::Constant, span: Range<usize>) -> Eval<Value> {
    match c {
        ast::Constant::None => Ok(Value::None),
        ast::Constant::Bool(b) => Ok(Value::Bool(*b)),
        ast::Constant::Int(i) => i
            .to_string()
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| Raised::at(span, "integer literal does not fit in 64 bits")),
        ast::Constant::Float(f) => Ok(Value::Float(*f)),
        ast::Constant::Str(s) => Ok(Value::str(s)),
        _ => Err(Raised::at(
            span,
            "only int, float, str, bool and None literals are supported",
        )),
    }
}

pub(super) fn binary_op(op: &ast::Operator, span: Range<usize>) -> Eval<BinaryOp> {
    Ok(match op {
        ast::Operator::Add => BinaryOp::Add,
        ast::Operator::Sub => BinaryOp::Sub,
        ast::Operator::Mult => BinaryOp::Mul,
        ast::Operator::Div => BinaryOp::Div,
        ast::Operator::FloorDiv => BinaryOp::FloorDiv,
        ast::Operator::Mod => BinaryOp::Mod,
        ast::Operator::Pow => BinaryOp::Pow,
        _ => {
            return Err(Raised::at(
                span,
                "bitwise and matrix operators are not supported; use + - * / // % **",
            ))
        }
    })
}

pub(super) fn is_membership(op: &ast::CmpOp) -> bool {
    matches!(
        op,
        ast::CmpOp::Is | ast::CmpOp::IsNot | ast::CmpOp::In | ast::CmpOp::NotIn
    )
}

pub(super) fn cmp_op(op: &ast::CmpOp) -> arith::CmpOp {
    match op {
        ast::CmpOp::Eq => arith::CmpOp::Eq,
        ast::CmpOp::NotEq => arith::CmpOp::Ne,
        ast::CmpOp::Lt => arith::CmpOp::Lt,
        ast::CmpOp::LtE => arith::CmpOp::Le,
        ast::CmpOp::Gt => arith::CmpOp::Gt,
        // `is`, `in` and their negations are handled by the caller.
        _ => arith::CmpOp::Ge,
    }
}

fn expression_kind(e: &ast::Expr) -> &'static str {
    match e {
        ast::Expr::SetComp(_) | ast::Expr::DictComp(_) => "a set or dict comprehension",
        ast::Expr::Set(_) => "a set",
        ast::Expr::JoinedStr(_) | ast::Expr::FormattedValue(_) => "an f-string",
        ast::Expr::NamedExpr(_) => "`:=`",
        ast::Expr::Await(_) | ast::Expr::Yield(_) | ast::Expr::YieldFrom(_) => "`await`/`yield`",
        ast::Expr::Starred(_) => "`*` outside a call, tuple or list",
        ast::Expr::Slice(_) => "a slice",
        _ => "this expression",
    }
}
