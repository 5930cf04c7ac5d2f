//! Statements: blocks, assignment, `def`, `if`, `for`, `try`, `with`,
//! `assert` and imports.

use super::expressions::{apply_binary, cmp_op, is_membership, Index};
use super::{Flow, Interpreter, MAX_STEPS};
use crate::collections;
use crate::error::{span_of, Catches, Eval, Raised, RaisedKind};
use crate::function::{Body, Function, Param, Parameters};
use crate::native;
use crate::operators;
use crate::pymodules;
use crate::scope::Scope;
use crate::value::{expected_error, ScriptValue, Value};
use python_ast as ast;
use std::ops::Range;
use std::rc::Rc;
use text_size::Ranged;
use tvm_api::{Class, ErrorClass, Object};

const SUPPORTED_STATEMENTS: &str = "supported statements are: import, assignment (to names, \
     items and slices, with unpacking), augmented assignment, `del`, def (with decorators), \
     return, if/elif/else, for and while (with else), break, continue, assert, raise, \
     try/except/else/finally, global, nonlocal, `with pytest.raises(...)`, pass and expression \
     statements";

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
        self.count_step(span.clone())?;
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
            ast::Stmt::AugAssign(s) => self.exec_aug_assign(s, scope)?,
            ast::Stmt::AnnAssign(s) => {
                // The annotation is not evaluated: it changes nothing at run
                // time (and may name types from `typing`).
                if let Some(value) = &s.value {
                    let value = self.eval(value, scope)?;
                    self.assign(&s.target, value, scope)?;
                }
            }
            ast::Stmt::Delete(s) => {
                for target in &s.targets {
                    self.delete(target, scope)?;
                }
            }
            ast::Stmt::While(s) => return self.exec_while(s, scope),
            ast::Stmt::Raise(s) => return Err(self.exec_raise(s, scope)?),
            ast::Stmt::Global(s) => {
                for name in &s.names {
                    scope.declare_global(name.as_str());
                }
            }
            ast::Stmt::Nonlocal(s) => {
                for name in &s.names {
                    if !scope.declare_nonlocal(name.as_str()) {
                        return Err(Raised::at(
                            span,
                            format!("no binding for nonlocal `{name}` found"),
                        ));
                    }
                }
            }
            ast::Stmt::FunctionDef(def) if !def.is_async => {
                // Decorators are evaluated first, then applied innermost
                // first: `@a @b def f` is `f = a(b(f))`.
                let mut decorators = Vec::with_capacity(def.decorator_list.len());
                for d in &def.decorator_list {
                    let d = &d.expression;
                    decorators.push((self.eval(d, scope)?, span_of(d.range())));
                }
                let mut f = crate::value::function(self.function_def(def, scope)?);
                for (decorator, at) in decorators.into_iter().rev() {
                    f = self.call_with(&decorator, vec![f], at)?;
                }
                scope.set(def.name.as_str(), f);
            }
            ast::Stmt::ClassDef(def) => {
                let class = self.class_def(def, scope)?;
                scope.set(def.name.as_str(), class);
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
                if self.truthy(&test, span_of(s.test.range()))? {
                    return self.exec_block(&s.body, scope);
                }
                // `elif` and `else` clauses, in order: the first whose test
                // holds (an `else` has none) runs.
                for clause in &s.elif_else_clauses {
                    if let Some(test) = &clause.test {
                        let value = self.eval(test, scope)?;
                        if !self.truthy(&value, span_of(test.range()))? {
                            continue;
                        }
                    }
                    return self.exec_block(&clause.body, scope);
                }
            }
            ast::Stmt::For(s) if !s.is_async => return self.exec_for(s, scope),
            ast::Stmt::Break(_) | ast::Stmt::Continue(_) if self.loop_depth_is_zero() => {
                return Err(Raised::at(span, "`break` and `continue` need a loop"));
            }
            ast::Stmt::Break(_) => return Ok(Flow::Break),
            ast::Stmt::Continue(_) => return Ok(Flow::Continue),
            ast::Stmt::Assert(s) => self.exec_assert(s, scope)?,
            ast::Stmt::Import(s) => self.exec_import(s, scope)?,
            ast::Stmt::ImportFrom(s) => self.exec_import_from(s, scope)?,
            ast::Stmt::Pass(_) => {}
            ast::Stmt::Try(s) if !s.is_star => return self.exec_try(s, scope),
            ast::Stmt::With(s) if !s.is_async => return self.exec_with(s, scope),
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
        let iter_span = span_of(s.iter.range());
        let iterable = self.eval(&s.iter, scope)?;
        let Some(items) = collections::iterate(&iterable) else {
            return Err(Raised::at(
                iter_span,
                format!(
                    "cannot loop over a {}; loop over range(...), a tuple, a list, a string, a \
                     dict or a set",
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
                    Flow::Break => return Ok(None),
                    ret @ Flow::Return(_) => return Ok(Some(ret)),
                }
            }
            Ok(Some(Flow::Next))
        })();
        self.loop_depth -= 1;
        match result? {
            // The `else` block runs when the loop was not left by `break`.
            Some(Flow::Next) => self.exec_block(&s.orelse, scope),
            Some(flow) => Ok(flow),
            None => Ok(Flow::Next),
        }
    }

    /// `while test: ...` (and its `else`); the statement limit stops a loop
    /// that never ends.
    fn exec_while(&mut self, s: &ast::StmtWhile, scope: &Rc<Scope>) -> Eval<Flow> {
        let test_span = span_of(s.test.range());
        self.loop_depth += 1;
        let result = (|| loop {
            let test = self.eval(&s.test, scope)?;
            if !self.truthy(&test, test_span.clone())? {
                return Ok(Some(Flow::Next));
            }
            // Each round counts as a step, so that `while True: pass` ends.
            self.count_step(test_span.clone())?;
            match self.exec_block(&s.body, scope)? {
                Flow::Next | Flow::Continue => {}
                Flow::Break => return Ok(None),
                ret @ Flow::Return(_) => return Ok(Some(ret)),
            }
        })();
        self.loop_depth -= 1;
        match result? {
            Some(Flow::Next) => self.exec_block(&s.orelse, scope),
            Some(flow) => Ok(flow),
            None => Ok(Flow::Next),
        }
    }

    /// One more executed step; an error past [`MAX_STEPS`].
    fn count_step(&mut self, span: Range<usize>) -> Eval<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Raised::at(
                span,
                format!("the script ran more than {MAX_STEPS} statements; is a loop unbounded?"),
            ));
        }
        Ok(())
    }

    /// `raise E`, `raise E(...)`, `raise E from c`: the error to raise.
    fn exec_raise(&mut self, s: &ast::StmtRaise, scope: &Rc<Scope>) -> Eval<Raised> {
        let span = span_of(s.range);
        let Some(exc) = &s.exc else {
            return Ok(match &self.handling {
                Some(raised) => raised.clone(),
                None => Raised::python(
                    ErrorClass::RuntimeError,
                    span,
                    "No active exception to reraise",
                ),
            });
        };
        if let Some(cause) = &s.cause {
            self.eval(cause, scope)?;
        }
        Ok(match self.eval(exc, scope)? {
            Value::Exception(class, message) => Raised::python(class, span, &*message),
            Value::Object(Object::Class(Class::Error(class))) => Raised::python(class, span, ""),
            other => Raised::python(
                ErrorClass::TypeError,
                span_of(exc.range()),
                format!(
                    "exceptions must derive from BaseException, not a {}",
                    other.type_name()
                ),
            ),
        })
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
                    let value = match (raised.kind, &self.assert_text) {
                        (RaisedKind::Python(class) | RaisedKind::Api(class), _) => {
                            Value::Exception(class, Rc::from(raised.message.as_str()))
                        }
                        (RaisedKind::Assertion, Some((at, text))) if *at == raised.span => {
                            Value::Exception(ErrorClass::AssertionError, Rc::from(text.as_str()))
                        }
                        (kind @ (RaisedKind::Tvm | RaisedKind::Assertion), _) => {
                            Value::Exception(kind.class(), Rc::from(raised.message.as_str()))
                        }
                        _ => Value::str(&raised.message),
                    };
                    scope.set(name.as_str(), value);
                }
                // A bare `raise` in the handler raises this error again.
                let outer = self.handling.replace(raised);
                let flow = self.exec_block(&h.body, scope);
                self.handling = outer;
                return flow;
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
                        "`except` needs exception classes (Exception, ValueError, \
                         tvm.error.TVMError, ...), not a {}",
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
        let mut text = String::new();
        if let Some(msg) = &s.msg {
            text = self.eval(msg, scope)?.to_string();
            message.push_str(&format!(": {text}"));
        }
        // `str(e)` of the AssertionError is the message alone, as in Python.
        self.assert_text = Some((span_of(s.range), text));
        Err(Raised::assertion(span_of(s.range), message))
    }

    fn exec_import(&mut self, s: &ast::StmtImport, scope: &Rc<Scope>) -> Eval<()> {
        for alias in &s.names {
            let path = alias.name.as_str();
            let span = span_of(alias.range);
            let module = any_module(path).ok_or_else(|| unknown_module(path, span.clone()))?;
            match &alias.asname {
                Some(name) => scope.set(name.as_str(), module),
                None => {
                    // `import tvm.te` binds `tvm`, as Python does.
                    let top = path.split('.').next().unwrap_or(path);
                    let top_module =
                        any_module(top).ok_or_else(|| unknown_module(top, span.clone()))?;
                    scope.set(top, top_module);
                }
            }
        }
        Ok(())
    }

    fn exec_import_from(&mut self, s: &ast::StmtImportFrom, scope: &Rc<Scope>) -> Eval<()> {
        let span = span_of(s.range);
        let path = s.module.as_ref().map(|m| m.as_str()).unwrap_or("");
        if path == "__future__" && s.level == 0 {
            // Future features (annotations, division, print_function) change
            // nothing in the subset this interpreter runs.
            return Ok(());
        }
        if let Some(py_path) = pymodules::module(path).and_then(|m| native::module_path(&m)) {
            for alias in &s.names {
                let name = alias.name.as_str();
                let value = if pymodules::needs_cpython(py_path) {
                    // The name fails where it is first used.
                    Value::host(ScriptValue::Module(py_path))
                } else {
                    pymodules::attribute(py_path, name).ok_or_else(|| {
                        Raised::at(
                            span_of(alias.range),
                            format!("`{py_path}` has no `{name}` that rangefinder supports"),
                        )
                    })?
                };
                let bound = alias.asname.as_ref().map_or(name, |a| a.as_str());
                scope.set(bound, value);
            }
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

    /// `class Name: body`: the body runs once, in a scope of its own, and
    /// what it binds becomes the class's attributes (test classes of
    /// TVM's files hold parameters and test methods). Base classes other
    /// than `object`, decorators and keywords are refused: they would
    /// change what the class is.
    fn class_def(&mut self, def: &ast::StmtClassDef, scope: &Rc<Scope>) -> Eval<Value> {
        if let Some(d) = def.decorator_list.first() {
            return Err(Raised::at(
                span_of(d.range()),
                "a decorated class is not supported by rangefinder te; run the script under \
                 CPython with `python -m rangefinder.tvm FILE`",
            ));
        }
        if let Some(args) = &def.arguments {
            let only_object = args.keywords.is_empty()
                && args
                    .args
                    .iter()
                    .all(|b| matches!(b, ast::Expr::Name(n) if n.id.as_str() == "object"));
            if !only_object {
                return Err(Raised::at(
                    span_of(args.range()),
                    "a class with base classes or keywords is not supported by rangefinder te; \
                     run the script under CPython with `python -m rangefinder.tvm FILE`",
                ));
            }
        }
        let body = Scope::child(scope);
        self.exec_block(&def.body, &body)?;
        Ok(Value::host(ScriptValue::Class(crate::value::Class {
            name: def.name.to_string(),
            attributes: body.bindings(),
        })))
    }

    fn function_def(&mut self, def: &ast::StmtFunctionDef, scope: &Rc<Scope>) -> Eval<Function> {
        let span = span_of(def.range);
        let Parameters {
            params,
            vararg,
            kwonly,
            kwarg,
        } = self.parameters(Some(&def.parameters), scope)?;
        Ok(Function {
            name: def.name.as_str().to_owned(),
            params,
            vararg,
            kwonly,
            kwarg,
            body: Body::Block(self.program.def_body(def.range).ok_or_else(|| {
                Raised::at(span.clone(), "internal error: a function body was not kept")
            })?),
            closure: scope.clone(),
        })
    }

    /// The parameters of a `def` or a lambda (`None`: a lambda without
    /// any), with their defaults evaluated in `scope`.
    pub(super) fn parameters(
        &mut self,
        args: Option<&ast::Parameters>,
        scope: &Rc<Scope>,
    ) -> Eval<Parameters> {
        let mut params = Vec::new();
        let mut kwonly = Vec::new();
        let Some(args) = args else {
            return Ok(Parameters {
                params,
                vararg: None,
                kwonly,
                kwarg: None,
            });
        };
        for (a, keyword_only) in args
            .posonlyargs
            .iter()
            .chain(&args.args)
            .map(|a| (a, false))
            .chain(args.kwonlyargs.iter().map(|a| (a, true)))
        {
            let default = match &a.default {
                Some(d) => Some(self.eval(d, scope)?),
                None => None,
            };
            let param = Param {
                name: a.parameter.name.as_str().to_owned(),
                default,
                annotation: a.parameter.annotation.as_deref().cloned(),
            };
            if keyword_only {
                kwonly.push(param);
            } else {
                params.push(param);
            }
        }
        Ok(Parameters {
            params,
            vararg: args.vararg.as_ref().map(|v| v.name.as_str().to_owned()),
            kwonly,
            kwarg: args.kwarg.as_ref().map(|v| v.name.as_str().to_owned()),
        })
    }

    /// Binds `value` to an assignment target: a name, an item
    /// (`d[k] = v`, `l[i] = v`, `l[a:b] = items`), or a tuple or list of
    /// targets to unpack into (one of them may be starred: `a, *rest = ...`).
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
                let items = collections::iterate(&value).ok_or_else(|| {
                    Raised::python(
                        ErrorClass::TypeError,
                        span.clone(),
                        format!("cannot unpack a non-iterable {}", value.type_name()),
                    )
                })?;
                let starred: Vec<usize> = elts
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| matches!(e, ast::Expr::Starred(_)))
                    .map(|(i, _)| i)
                    .collect();
                match starred[..] {
                    [] => {
                        if items.len() != elts.len() {
                            return Err(Raised::python(
                                ErrorClass::ValueError,
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
                    }
                    [star] => {
                        let after = elts.len() - star - 1;
                        if items.len() < elts.len() - 1 {
                            return Err(Raised::python(
                                ErrorClass::ValueError,
                                span,
                                format!(
                                    "not enough values to unpack (expected at least {}, got {})",
                                    elts.len() - 1,
                                    items.len()
                                ),
                            ));
                        }
                        let mut items = items;
                        let tail = items.split_off(items.len() - after);
                        let middle = items.split_off(star);
                        for (t, v) in elts[..star].iter().zip(items) {
                            self.assign(t, v, scope)?;
                        }
                        if let ast::Expr::Starred(st) = &elts[star] {
                            self.assign(&st.value, Value::list(middle), scope)?;
                        }
                        for (t, v) in elts[star + 1..].iter().zip(tail) {
                            self.assign(t, v, scope)?;
                        }
                    }
                    _ => {
                        return Err(Raised::at(
                            span,
                            "multiple starred expressions in assignment",
                        ))
                    }
                }
                Ok(())
            }
            ast::Expr::Subscript(sub) => {
                let container = self.eval(&sub.value, scope)?;
                let index = self.index_value(&sub.slice, scope)?;
                self.set_item(&container, index, value, span_of(sub.slice.range()))
            }
            ast::Expr::Attribute(attr) => {
                let object = self.eval(&attr.value, scope)?;
                match tvm_api::set_attr(&object, attr.attr.as_str(), &value) {
                    Some(done) => done.map_err(|e| Raised::api(span, e)),
                    None => Err(Raised::at(
                        span,
                        format!(
                            "attributes of a {} cannot be assigned to: only names, items \
                             (`x[i]`), tuples of them and the attributes of AutoTVM entities \
                             (`cfg[\"k\"].val`) can be",
                            object.type_name()
                        ),
                    )),
                }
            }
            ast::Expr::Starred(_) => Err(Raised::at(
                span,
                "a starred assignment target must be in a list or tuple",
            )),
            _ => Err(Raised::at(
                span,
                "only names, items (`x[i]`) and tuples of them can be assigned to",
            )),
        }
    }

    /// `container[index] = value`.
    fn set_item(
        &mut self,
        container: &Value,
        index: Index,
        value: Value,
        span: Range<usize>,
    ) -> Eval<()> {
        match (container, index) {
            (Value::List(items), Index::Value(i)) => {
                let Some(i) = operators::as_int(&i) else {
                    return Err(Raised::python(
                        ErrorClass::TypeError,
                        span,
                        format!(
                            "list indices must be integers or slices, not {}",
                            i.type_name()
                        ),
                    ));
                };
                let len = items.borrow().len();
                let at = collections::position(i, len, "list assignment", span)?;
                items.borrow_mut()[at] = value;
                Ok(())
            }
            (Value::List(items), Index::Slice(bounds)) => {
                let new = collections::iterate_or_raise(&value, span.clone())?;
                let len = items.borrow().len();
                let positions = collections::slice_positions(len, bounds[0], bounds[1], bounds[2])
                    .map_err(|m| Raised::python(ErrorClass::ValueError, span.clone(), m))?;
                let mut items = items.borrow_mut();
                if bounds[2].is_none_or(|s| s == 1) {
                    // A plain slice is replaced by any number of items.
                    let start = positions.first().copied().unwrap_or_else(|| {
                        collections::slice_positions(len, bounds[0], None, None)
                            .ok()
                            .and_then(|p| p.first().copied())
                            .unwrap_or(len)
                    });
                    items.splice(start..start + positions.len(), new);
                } else if positions.len() == new.len() {
                    for (at, v) in positions.into_iter().zip(new) {
                        items[at] = v;
                    }
                } else {
                    return Err(Raised::python(
                        ErrorClass::ValueError,
                        span,
                        format!(
                            "attempt to assign sequence of size {} to extended slice of size {}",
                            new.len(),
                            positions.len()
                        ),
                    ));
                }
                Ok(())
            }
            (Value::MutableDict(pairs), Index::Value(k)) => {
                collections::dict_set(pairs, k, value, span)
            }
            (Value::Host(_), index) if crate::pynumpy::as_array(container).is_some() => {
                let arr = crate::pynumpy::as_array(container).expect("matched above");
                match index {
                    Index::Value(k) => crate::pynumpy::set_item(arr, Some(&k), None, &value, span),
                    Index::Slice(b) => crate::pynumpy::set_item(arr, None, Some(b), &value, span),
                }
            }
            (Value::Object(_), Index::Value(k)) => match tvm_api::set_item(container, &k, &value) {
                Some(done) => done.map_err(|e| Raised::api(span, e)),
                None => Err(no_item_assignment(container, span)),
            },
            (other, _) => Err(no_item_assignment(other, span)),
        }
    }

    /// `del target`: a name, an item or slice of a list, a dict key.
    fn delete(&mut self, target: &ast::Expr, scope: &Rc<Scope>) -> Eval<()> {
        let span = span_of(target.range());
        match target {
            ast::Expr::Name(n) => {
                if !scope.remove(n.id.as_str()) {
                    return Err(Raised::at(span, format!("name `{}` is not defined", n.id)));
                }
                Ok(())
            }
            ast::Expr::Tuple(ast::ExprTuple { elts, .. })
            | ast::Expr::List(ast::ExprList { elts, .. }) => {
                elts.iter().try_for_each(|e| self.delete(e, scope))
            }
            ast::Expr::Subscript(sub) => {
                let container = self.eval(&sub.value, scope)?;
                let index = self.index_value(&sub.slice, scope)?;
                let span = span_of(sub.slice.range());
                match (&container, index) {
                    (Value::List(items), Index::Value(i)) => {
                        let Some(i) = operators::as_int(&i) else {
                            return Err(Raised::python(
                                ErrorClass::TypeError,
                                span,
                                "list indices must be integers or slices",
                            ));
                        };
                        let len = items.borrow().len();
                        let at = collections::position(i, len, "list assignment", span)?;
                        items.borrow_mut().remove(at);
                        Ok(())
                    }
                    (Value::List(items), Index::Slice(bounds)) => {
                        let len = items.borrow().len();
                        let mut positions =
                            collections::slice_positions(len, bounds[0], bounds[1], bounds[2])
                                .map_err(|m| Raised::python(ErrorClass::ValueError, span, m))?;
                        positions.sort_unstable();
                        let mut items = items.borrow_mut();
                        for at in positions.into_iter().rev() {
                            items.remove(at);
                        }
                        Ok(())
                    }
                    (Value::MutableDict(pairs), Index::Value(k)) => {
                        let at = pairs
                            .borrow()
                            .iter()
                            .position(|(x, _)| collections::py_eq(x, &k));
                        collections::check_depth(span.clone())?;
                        match at {
                            Some(at) => {
                                pairs.borrow_mut().remove(at);
                                Ok(())
                            }
                            None => Err(Raised::python(
                                ErrorClass::KeyError,
                                span,
                                crate::pyformat::repr(&k),
                            )),
                        }
                    }
                    (other, _) => Err(Raised::python(
                        ErrorClass::TypeError,
                        span,
                        format!(
                            "'{}' object does not support item deletion",
                            other.type_name()
                        ),
                    )),
                }
            }
            _ => Err(Raised::at(
                span,
                "`del` supports names and items (`del x[i]`)",
            )),
        }
    }

    /// `target op= value`: on a name or an item, whose container and index
    /// are evaluated once; `+=` extends a list in place, as in Python.
    fn exec_aug_assign(&mut self, s: &ast::StmtAugAssign, scope: &Rc<Scope>) -> Eval<()> {
        let span = span_of(s.range);
        match &*s.target {
            ast::Expr::Name(name) => {
                let current = self.lookup(name.id.as_str(), span_of(name.range), scope)?;
                let rhs = self.eval(&s.value, scope)?;
                let value = self.in_place(&s.op, &current, &rhs, span)?;
                scope.set(name.id.as_str(), value);
                Ok(())
            }
            ast::Expr::Subscript(sub) => {
                let container = self.eval(&sub.value, scope)?;
                let index_span = span_of(sub.slice.range());
                let index = self.index_value(&sub.slice, scope)?;
                let current =
                    self.get_index(&container, &index, index_span.clone(), span.clone())?;
                let rhs = self.eval(&s.value, scope)?;
                let value = self.in_place(&s.op, &current, &rhs, span)?;
                self.set_item(&container, index, value, index_span)
            }
            other => Err(Raised::at(
                span_of(other.range()),
                "augmented assignment is supported to names and items (`x[i] += 1`)",
            )),
        }
    }

    /// `current op= rhs`: lists grow in place under `+=`; everything else is
    /// `current op rhs`.
    fn in_place(
        &mut self,
        op: &ast::Operator,
        current: &Value,
        rhs: &Value,
        span: Range<usize>,
    ) -> Eval<Value> {
        if let (ast::Operator::Add, Value::List(items)) = (op, current) {
            let more = collections::iterate_or_raise(rhs, span.clone())?;
            let len = items.borrow().len();
            crate::budget::check_sum(len, more.len(), "`+=` would build", span)?;
            items.borrow_mut().extend(more);
            return Ok(current.clone());
        }
        if let (ast::Operator::Mult, Value::List(items)) = (op, current) {
            // `l *= n` repeats the list in place.
            if let Value::List(repeated) = apply_binary(op, current, rhs, span)? {
                let repeated = repeated.borrow().clone();
                *items.borrow_mut() = repeated;
            }
            return Ok(current.clone());
        }
        apply_binary(op, current, rhs, span)
    }
}

/// A `tvm` namespace or a Python module scripts may import.
fn any_module(path: &str) -> Option<Value> {
    native::module(path).or_else(|| pymodules::module(path))
}

fn unknown_module(path: &str, span: Range<usize>) -> Raised {
    Raised::at(
        span,
        format!(
            "module `{path}` is not available: scripts may import `tvm` and its namespaces \
             (`from tvm import te`, `import tvm.te as te`, `import tvm.testing`) and Python's \
             `math`, `functools`, `itertools`, `re` and numpy's one-dimensional arrays (modules \
             such as `os` import, but need CPython where they are used)"
        ),
    )
}

fn statement_kind(s: &ast::Stmt) -> &'static str {
    match s {
        ast::Stmt::While(_) => "a `while` loop",
        ast::Stmt::With(w) if w.is_async => "`async with`",
        ast::Stmt::Try(t) if t.is_star => "`try`/`except*`",
        ast::Stmt::Raise(_) => "`raise`",
        ast::Stmt::Delete(_) => "`del`",
        ast::Stmt::Global(_) | ast::Stmt::Nonlocal(_) => "`global`/`nonlocal`",
        ast::Stmt::AnnAssign(_) => "an annotated assignment",
        ast::Stmt::Match(_) => "a `match` statement",
        ast::Stmt::FunctionDef(d) if d.is_async => "async code",
        ast::Stmt::For(f) if f.is_async => "async code",
        _ => "this statement",
    }
}

/// Python's error for `container[key] = value` on a value that takes no
/// item assignment.
fn no_item_assignment(container: &Value, span: Range<usize>) -> Raised {
    Raised::python(
        ErrorClass::TypeError,
        span,
        format!(
            "'{}' object does not support item assignment",
            container.type_name()
        ),
    )
}
