//! Statements: blocks, assignment, `def`, `if`, `for`, `try`, `with`,
//! `assert` and imports.

use super::expressions::{binary_op, cmp_op, is_membership};
use super::{Flow, Interpreter, MAX_STEPS};
use crate::error::{span_of, Catches, Eval, Raised};
use crate::function::{Body, Function, Param};
use crate::native;
use crate::objects;
use crate::operators;
use crate::scope::Scope;
use crate::value::{expected_error, Value};
use rustpython_parser::ast::{self, Ranged};
use std::ops::Range;
use std::rc::Rc;
use tvm_api::{Class, ErrorClass, Object};

const SUPPORTED_STATEMENTS: &str = "supported statements are: import, assignment (with tuple \
     unpacking), `+=`, def, return, if/elif/else, for over range(...) or a tuple or list, \
     break, continue, assert, try/except (of TVM errors and asserts), `with pytest.raises(...)`, \
     pass and expression statements";

impl Interpreter {
    pub(super) fn exec_block(&mut self, body: &[ast::Stmt], scope: &Rc<Scope>) -> Eval<Flow> {
        for stmt in body {
            match self.exec(stmt, scope)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn exec(&mut self, stmt: &ast::Stmt, scope: &Rc<Scope>) -> Eval<Flow> {
        tir::stack::grow(|| self.exec_step(stmt, scope))
    }

    /// One level of [`Self::exec`], on the stack [`tir::stack::grow`] left room on.
    fn exec_step(&mut self, stmt: &ast::Stmt, scope: &Rc<Scope>) -> Eval<Flow> {
        let span = span_of(stmt.range());
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Raised::at(
                span,
                format!("the script ran more than {MAX_STEPS} statements; is a loop unbounded?"),
            ));
        }
        match stmt {
            ast::Stmt::Expr(s) => {
                self.eval(&s.value, scope)?;
            }
            ast::Stmt::Assign(s) => {
                let value = self.eval(&s.value, scope)?;
                for target in &s.targets {
                    self.assign(target, value.clone(), scope)?;
                }
            }
            ast::Stmt::AugAssign(s) => {
                let ast::Expr::Name(name) = &*s.target else {
                    return Err(Raised::at(
                        span_of(s.target.range()),
                        "augmented assignment is supported to plain names only",
                    ));
                };
                let current = self.lookup(name.id.as_str(), span_of(name.range), scope)?;
                let rhs = self.eval(&s.value, scope)?;
                let op = binary_op(&s.op, span.clone())?;
                let value = operators::binary(op, &current, &rhs, span)?;
                scope.set(name.id.as_str(), value);
            }
            ast::Stmt::FunctionDef(def) => {
                // Decorators are evaluated first and applied innermost
                // first (`@a @b def f` is `f = a(b(f))`), as in Python.
                let mut decorators = Vec::with_capacity(def.decorator_list.len());
                for d in &def.decorator_list {
                    decorators.push((self.eval(d, scope)?, span_of(d.range())));
                }
                let mut f = crate::value::function(self.function_def(def, scope)?);
                for (decorator, at) in decorators.into_iter().rev() {
                    let args = crate::args::Args {
                        positional: vec![crate::args::Spanned {
                            value: f,
                            span: at.clone(),
                        }],
                        keywords: Vec::new(),
                        span: at,
                    };
                    f = self.call(&decorator, args)?;
                }
                scope.set(def.name.as_str(), f);
            }
            ast::Stmt::Return(s) => {
                if self.depth == 0 {
                    return Err(Raised::at(span, "`return` outside a function"));
                }
                let value = match &s.value {
                    Some(v) => self.eval(v, scope)?,
                    None => Value::None,
                };
                return Ok(Flow::Return(value));
            }
            ast::Stmt::If(s) => {
                let test = self.eval(&s.test, scope)?;
                let branch = if self.truthy(&test, span_of(s.test.range()))? {
                    &s.body
                } else {
                    &s.orelse
                };
                return self.exec_block(branch, scope);
            }
            ast::Stmt::For(s) => return self.exec_for(s, scope),
            ast::Stmt::Break(_) | ast::Stmt::Continue(_) if self.loop_depth_is_zero() => {
                return Err(Raised::at(span, "`break` and `continue` need a loop"));
            }
            ast::Stmt::Break(_) => return Ok(Flow::Break),
            ast::Stmt::Continue(_) => return Ok(Flow::Continue),
            ast::Stmt::Assert(s) => self.exec_assert(s, scope)?,
            ast::Stmt::Import(s) => self.exec_import(s, scope)?,
            ast::Stmt::ImportFrom(s) => self.exec_import_from(s, scope)?,
            ast::Stmt::Pass(_) => {}
            ast::Stmt::Try(s) => return self.exec_try(s, scope),
            ast::Stmt::With(s) => return self.exec_with(s, scope),
            other => {
                return Err(Raised::at(
                    span,
                    format!(
                        "{} is not supported; {SUPPORTED_STATEMENTS}",
                        statement_kind(other)
                    ),
                ))
            }
        }
        Ok(Flow::Next)
    }

    fn loop_depth_is_zero(&self) -> bool {
        self.loop_depth == 0
    }

    fn exec_for(&mut self, s: &ast::StmtFor, scope: &Rc<Scope>) -> Eval<Flow> {
        if !s.orelse.is_empty() {
            return Err(Raised::at(
                span_of(s.range),
                "`for ... else` is not supported",
            ));
        }
        let iter_span = span_of(s.iter.range());
        let iterable = self.eval(&s.iter, scope)?;
        // The API's iteration: sequences, and the keys of an InferBound map.
        let Some(items) = crate::objects::unpack(&iterable) else {
            return Err(Raised::at(
                iter_span,
                format!(
                    "cannot loop over a {}; loop over range(...), a tuple or a list",
                    iterable.type_name()
                ),
            ));
        };
        self.loop_depth += 1;
        let result = (|| {
            for item in items {
                self.assign(&s.target, item, scope)?;
                match self.exec_block(&s.body, scope)? {
                    Flow::Next | Flow::Continue => {}
                    Flow::Break => break,
                    ret @ Flow::Return(_) => return Ok(ret),
                }
            }
            Ok(Flow::Next)
        })();
        self.loop_depth -= 1;
        result
    }

    /// `try`/`except`: catches what TVM raises (`TVMError`, a
    /// `RuntimeError`) and failed asserts, never rangefinder's own limits.
    fn exec_try(&mut self, s: &ast::StmtTry, scope: &Rc<Scope>) -> Eval<Flow> {
        let outcome = match self.exec_block(&s.body, scope) {
            Ok(flow) => match flow {
                Flow::Next => self.exec_block(&s.orelse, scope),
                other => Ok(other),
            },
            Err(raised) => self.handle(raised, &s.handlers, scope),
        };
        let after = self.exec_block(&s.finalbody, scope)?;
        match (outcome?, after) {
            (flow, Flow::Next) => Ok(flow),
            (_, flow) => Ok(flow),
        }
    }

    fn handle(
        &mut self,
        raised: Raised,
        handlers: &[ast::ExceptHandler],
        scope: &Rc<Scope>,
    ) -> Eval<Flow> {
        for handler in handlers {
            let ast::ExceptHandler::ExceptHandler(h) = handler;
            let classes = match &h.type_ {
                None => vec![ErrorClass::Exception],
                Some(t) => self.error_classes(t, scope)?,
            };
            if classes.iter().any(|c| c.catches(raised.kind)) {
                if let Some(name) = &h.name {
                    scope.set(name.as_str(), Value::str(&raised.message));
                }
                return self.exec_block(&h.body, scope);
            }
        }
        Err(raised)
    }

    /// The exception classes an `except` clause names: one class or a tuple.
    fn error_classes(&mut self, e: &ast::Expr, scope: &Rc<Scope>) -> Eval<Vec<ErrorClass>> {
        let value = self.eval(e, scope)?;
        let items = value.sequence().unwrap_or_else(|| vec![value.clone()]);
        items
            .into_iter()
            .map(|v| match v {
                Value::Object(Object::Class(Class::Error(class))) => Ok(class),
                other => Err(Raised::at(
                    span_of(e.range()),
                    format!(
                        "`except` supports Exception, RuntimeError, AssertionError and \
                         tvm.error.TVMError, not a {}",
                        other.type_name()
                    ),
                )),
            })
            .collect()
    }

    /// `with pytest.raises(E): ...`, and the API's context managers
    /// (`te.tag_scope(...)`, a `tvm.target.Target`).
    fn exec_with(&mut self, s: &ast::StmtWith, scope: &Rc<Scope>) -> Eval<Flow> {
        let span = span_of(s.range);
        let [item] = &s.items[..] else {
            return Err(Raised::at(
                span,
                "`with` supports one context: `pytest.raises(...)`, `te.tag_scope(...)` or a target",
            ));
        };
        let item_span = span_of(item.context_expr.range());
        let context = self.eval(&item.context_expr, scope)?;
        if let Some(entered) = tvm_api::enter(self, &context) {
            let bound = entered.map_err(|e| Raised::api(item_span, e))?;
            if let Some(target) = &item.optional_vars {
                if let Err(e) = self.assign(target, bound, scope) {
                    tvm_api::exit(self, &context);
                    return Err(e);
                }
            }
            let flow = self.exec_block(&s.body, scope);
            tvm_api::exit(self, &context);
            return flow;
        }
        let Some(class) = expected_error(&context) else {
            return Err(Raised::at(
                item_span,
                "`with` supports `pytest.raises(...)`, `te.tag_scope(...)` and target contexts",
            ));
        };
        if item.optional_vars.is_some() {
            return Err(Raised::at(
                item_span,
                "`with pytest.raises(...) as e` is not supported",
            ));
        }
        match self.exec_block(&s.body, scope) {
            Err(raised) if class.catches(raised.kind) => Ok(Flow::Next),
            Err(raised) => Err(raised),
            Ok(Flow::Next) => Err(Raised::assertion(
                span,
                format!(
                    "DID NOT RAISE {}: the block ran without the expected error",
                    class.name()
                ),
            )),
            Ok(flow) => Ok(flow),
        }
    }

    fn exec_assert(&mut self, s: &ast::StmtAssert, scope: &Rc<Scope>) -> Eval<()> {
        let test_span = span_of(s.test.range());
        // A single comparison is evaluated here so that a failure can show
        // both sides.
        let (value, sides) = match &*s.test {
            ast::Expr::Compare(c) if c.ops.len() == 1 && !is_membership(&c.ops[0]) => {
                let lhs = self.eval(&c.left, scope)?;
                let rhs = self.eval(&c.comparators[0], scope)?;
                let value = operators::compare(cmp_op(&c.ops[0]), &lhs, &rhs, test_span.clone())?;
                (value, Some((lhs, rhs)))
            }
            test => (self.eval(test, scope)?, None),
        };
        if self.truthy(&value, test_span.clone())? {
            return Ok(());
        }
        let mut message = format!("assertion failed: `{}`", self.text(&test_span));
        if let Some((lhs, rhs)) = sides {
            message.push_str(&format!(" (left side: {lhs}, right side: {rhs})"));
        }
        if let Some(msg) = &s.msg {
            let msg = self.eval(msg, scope)?;
            message.push_str(&format!(": {msg}"));
        }
        Err(Raised::assertion(span_of(s.range), message))
    }

    fn exec_import(&mut self, s: &ast::StmtImport, scope: &Rc<Scope>) -> Eval<()> {
        for alias in &s.names {
            let path = alias.name.as_str();
            let span = span_of(alias.range);
            let module = native::module(path).ok_or_else(|| unknown_module(path, span.clone()))?;
            match &alias.asname {
                Some(name) => scope.set(name.as_str(), module),
                None => {
                    // `import tvm.te` binds `tvm`, as Python does.
                    let top = path.split('.').next().unwrap_or(path);
                    let top_module =
                        native::module(top).ok_or_else(|| unknown_module(top, span.clone()))?;
                    scope.set(top, top_module);
                }
            }
        }
        Ok(())
    }

    fn exec_import_from(&mut self, s: &ast::StmtImportFrom, scope: &Rc<Scope>) -> Eval<()> {
        let span = span_of(s.range);
        let path = s.module.as_ref().map(|m| m.as_str()).unwrap_or("");
        if path == "__future__" && s.level.is_none_or(|l| l.to_u32() == 0) {
            // Future features (annotations, division, print_function) change
            // nothing in the subset this interpreter runs.
            return Ok(());
        }
        let Some(path) = native::module(path).and_then(|m| native::module_path(&m)) else {
            return Err(unknown_module(path, span));
        };
        for alias in &s.names {
            let name = alias.name.as_str();
            let value = native::module_attr(path, name).ok_or_else(|| {
                Raised::at(
                    span_of(alias.range),
                    format!("`{path}` has no `{name}` that rangefinder supports"),
                )
            })?;
            let bound = alias.asname.as_ref().map_or(name, |a| a.as_str());
            scope.set(bound, value);
        }
        Ok(())
    }

    fn function_def(&mut self, def: &ast::StmtFunctionDef, scope: &Rc<Scope>) -> Eval<Function> {
        let span = span_of(def.range);
        let (params, vararg) = self.parameters(&def.args, span.clone(), scope)?;
        Ok(Function {
            name: def.name.to_string(),
            params,
            vararg,
            body: Body::Block(self.program.def_body(def.range).ok_or_else(|| {
                Raised::at(span.clone(), "internal error: a function body was not kept")
            })?),
            closure: scope.clone(),
        })
    }

    pub(super) fn parameters(
        &mut self,
        args: &ast::Arguments,
        span: Range<usize>,
        scope: &Rc<Scope>,
    ) -> Eval<(Vec<Param>, Option<String>)> {
        if !args.kwonlyargs.is_empty() || args.kwarg.is_some() {
            return Err(Raised::at(
                span,
                "keyword-only parameters and `**kwargs` are not supported; use plain parameters",
            ));
        }
        let mut params = Vec::new();
        for a in args.posonlyargs.iter().chain(&args.args) {
            let default = match &a.default {
                Some(d) => Some(self.eval(d, scope)?),
                None => None,
            };
            params.push(Param {
                name: a.def.arg.to_string(),
                default,
            });
        }
        let vararg = args.vararg.as_ref().map(|v| v.arg.to_string());
        Ok((params, vararg))
    }

    /// Binds `value` to an assignment target: a name, or a tuple or list of
    /// targets to unpack into.
    pub(super) fn assign(
        &mut self,
        target: &ast::Expr,
        value: Value,
        scope: &Rc<Scope>,
    ) -> Eval<()> {
        let span = span_of(target.range());
        match target {
            ast::Expr::Name(n) => {
                scope.set(n.id.as_str(), value);
                Ok(())
            }
            ast::Expr::Tuple(ast::ExprTuple { elts, .. })
            | ast::Expr::List(ast::ExprList { elts, .. }) => {
                let items = objects::unpack(&value).ok_or_else(|| {
                    Raised::at(
                        span.clone(),
                        format!("cannot unpack a {}", value.type_name()),
                    )
                })?;
                if items.len() != elts.len() {
                    return Err(Raised::at(
                        span,
                        format!(
                            "cannot unpack {} values into {} names",
                            items.len(),
                            elts.len()
                        ),
                    ));
                }
                for (t, v) in elts.iter().zip(items) {
                    self.assign(t, v, scope)?;
                }
                Ok(())
            }
            _ => Err(Raised::at(
                span,
                "only names and tuples of names can be assigned to (no attributes or subscripts)",
            )),
        }
    }
}

fn unknown_module(path: &str, span: Range<usize>) -> Raised {
    Raised::at(
        span,
        format!(
            "module `{path}` is not available: scripts may import `tvm` and its namespaces \
             (`from tvm import te`, `import tvm.te as te`, `import tvm.testing`)"
        ),
    )
}

fn statement_kind(s: &ast::Stmt) -> &'static str {
    match s {
        ast::Stmt::While(_) => "a `while` loop",
        ast::Stmt::ClassDef(_) => "a class definition",
        ast::Stmt::AsyncWith(_) => "`async with`",
        ast::Stmt::TryStar(_) => "`try`/`except*`",
        ast::Stmt::Raise(_) => "`raise`",
        ast::Stmt::Delete(_) => "`del`",
        ast::Stmt::Global(_) | ast::Stmt::Nonlocal(_) => "`global`/`nonlocal`",
        ast::Stmt::AnnAssign(_) => "an annotated assignment",
        ast::Stmt::Match(_) => "a `match` statement",
        ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::AsyncFor(_) => "async code",
        _ => "this statement",
    }
}
