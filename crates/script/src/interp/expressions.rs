//! Expressions: literals, names, attributes, subscripts, calls, lambdas,
//! operators, comparisons and comprehensions.

use super::Interpreter;
use crate::args::{Args, Spanned};
use crate::collections;
use crate::error::{span_of, Eval, Raised};
use crate::function::{Body, Function, Parameters};
use crate::native;
use crate::objects;
use crate::operators::{self, BinaryOp};
use crate::scope::Scope;
use crate::value::{script_value, ScriptValue, Value};
use crate::{pyformat, pymethods, pymodules};
use python_ast as ast;
use std::ops::Range;
use std::rc::Rc;
use text_size::Ranged;
use tvm_api::ErrorClass;

const SUPPORTED_EXPRESSIONS: &str = "supported expressions are: numbers, strings, f-strings, \
     names, attributes, calls with keyword, `*` and `**` arguments, subscripts and slices, \
     lambdas, tuples, lists, dicts, sets, comprehensions and generators, arithmetic and bitwise \
     operators, comparisons, and/or/not and `x if c else y`";

impl Interpreter {
    /// Evaluates an expression.
    pub fn eval(&mut self, e: &ast::Expr, scope: &Rc<Scope>) -> Eval<Value> {
        tir::stack::grow(|| self.eval_step(e, scope))
    }

    /// One level of [`Self::eval`], on the stack [`tir::stack::grow`] left room on.
    fn eval_step(&mut self, e: &ast::Expr, scope: &Rc<Scope>) -> Eval<Value> {
        let span = span_of(e.range());
        match e {
            ast::Expr::NumberLiteral(n) => number(&n.value, span),
            ast::Expr::StringLiteral(s) => Ok(Value::str(s.value.to_str())),
            ast::Expr::BooleanLiteral(b) => Ok(Value::Bool(b.value)),
            ast::Expr::NoneLiteral(_) => Ok(Value::None),
            ast::Expr::BytesLiteral(b) => {
                let bytes: Vec<u8> = b.value.bytes().collect();
                Ok(Value::Object(tvm_api::Object::Bytes(Rc::from(bytes))))
            }
            ast::Expr::EllipsisLiteral(_) => Err(Raised::at(
                span,
                "only int, float, str, bytes, bool and None literals are supported",
            )),
            ast::Expr::Name(n) => self.lookup(n.id.as_str(), span, scope),
            ast::Expr::Attribute(a) => {
                let value = self.eval(&a.value, scope)?;
                self.attribute(&value, a.attr.as_str(), span)
            }
            ast::Expr::Subscript(s) => {
                let value = self.eval(&s.value, scope)?;
                let index = self.index_value(&s.slice, scope)?;
                self.get_index(&value, &index, span_of(s.slice.range()), span)
            }
            ast::Expr::Call(c) => {
                let callee = self.eval(&c.func, scope)?;
                let mut positional = Vec::new();
                for a in &c.arguments.args {
                    if let ast::Expr::Starred(st) = a {
                        let v = self.eval(&st.value, scope)?;
                        let items = collections::iterate(&v).ok_or_else(|| {
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
                for k in &c.arguments.keywords {
                    let value = self.eval(&k.value, scope)?;
                    let Some(name) = &k.arg else {
                        // `**mapping`: its string keys become keywords.
                        let pairs = collections::dict_pairs(&value).ok_or_else(|| {
                            Raised::python(
                                ErrorClass::TypeError,
                                span_of(k.range),
                                format!(
                                    "argument after ** must be a mapping, not {}",
                                    value.type_name()
                                ),
                            )
                        })?;
                        for (key, v) in pairs {
                            let Value::Str(key) = key else {
                                return Err(Raised::python(
                                    ErrorClass::TypeError,
                                    span_of(k.range),
                                    "keywords must be strings",
                                ));
                            };
                            keywords.push((
                                key.to_string(),
                                Spanned {
                                    value: v,
                                    span: span_of(k.range),
                                },
                            ));
                        }
                        continue;
                    };
                    keywords.push((
                        name.as_str().to_owned(),
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
                let Parameters {
                    params,
                    vararg,
                    kwonly,
                    kwarg,
                } = self.parameters(l.parameters.as_deref(), scope)?;
                Ok(crate::value::function(Function {
                    name: "<lambda>".to_owned(),
                    params,
                    vararg,
                    kwonly,
                    kwarg,
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
                    acc = apply_binary(&node.op, &acc, &rhs, at)?;
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
            ast::Expr::If(i) => {
                let test = self.eval(&i.test, scope)?;
                if self.truthy(&test, span_of(i.test.range()))? {
                    self.eval(&i.body, scope)
                } else {
                    self.eval(&i.orelse, scope)
                }
            }
            ast::Expr::ListComp(c) => Ok(Value::list(self.eval_comprehension(
                &c.elt,
                &c.generators,
                scope,
            )?)),
            // A generator is consumed at once: scripts only pass them to
            // `any`, `all`, `tuple`, `sum` and friends.
            ast::Expr::Generator(g) => Ok(Value::list(self.eval_comprehension(
                &g.elt,
                &g.generators,
                scope,
            )?)),
            ast::Expr::SetComp(c) => {
                let items = self.eval_comprehension(&c.elt, &c.generators, scope)?;
                collections::new_set(items, span)
            }
            ast::Expr::DictComp(c) => {
                let pair = DictPair {
                    key: &c.key,
                    value: &c.value,
                };
                let inner = Scope::child(scope);
                let mut pairs = Vec::new();
                self.comprehend_pairs(&pair, &c.generators, &inner, &mut pairs)?;
                collections::new_dict(pairs, span)
            }
            ast::Expr::Set(st) => {
                let items = self.eval_items(&st.elts, scope)?;
                collections::new_set(items, span)
            }
            ast::Expr::Tuple(t) => Ok(Value::tuple(self.eval_items(&t.elts, scope)?)),
            ast::Expr::List(l) => Ok(Value::list(self.eval_items(&l.elts, scope)?)),
            ast::Expr::Dict(d) => {
                let mut pairs = Vec::new();
                for ast::DictItem { key, value: v } in &d.items {
                    match key {
                        Some(k) => pairs.push((self.eval(k, scope)?, self.eval(v, scope)?)),
                        None => {
                            // `{**other}`: the other dict's pairs.
                            let other = self.eval(v, scope)?;
                            let more = collections::dict_pairs(&other).ok_or_else(|| {
                                Raised::python(
                                    ErrorClass::TypeError,
                                    span_of(v.range()),
                                    format!("'{}' object is not a mapping", other.type_name()),
                                )
                            })?;
                            pairs.extend(more);
                        }
                    }
                }
                collections::new_dict(pairs, span)
            }
            ast::Expr::FString(f) => Ok(Value::str(&self.f_string(f, scope)?)),
            other => Err(Raised::at(
                span,
                format!(
                    "{} is not supported; {SUPPORTED_EXPRESSIONS}",
                    expression_kind(other)
                ),
            )),
        }
    }

    /// `[elt for target in iter if cond ...]`'s items, in a scope of its own
    /// as in Python 3.
    fn eval_comprehension(
        &mut self,
        elt: &ast::Expr,
        generators: &[ast::Comprehension],
        scope: &Rc<Scope>,
    ) -> Eval<Vec<Value>> {
        let inner = Scope::child(scope);
        let mut out = Vec::new();
        self.comprehend(
            &Produce::Item(elt),
            generators,
            &inner,
            &mut out,
            &mut Vec::new(),
        )?;
        Ok(out)
    }

    /// `{key: value for ...}`'s pairs.
    fn comprehend_pairs(
        &mut self,
        pair: &DictPair<'_>,
        generators: &[ast::Comprehension],
        scope: &Rc<Scope>,
        out: &mut Vec<(Value, Value)>,
    ) -> Eval<()> {
        self.comprehend(
            &Produce::Pair(pair),
            generators,
            scope,
            &mut Vec::new(),
            out,
        )
    }

    fn comprehend(
        &mut self,
        produce: &Produce<'_>,
        generators: &[ast::Comprehension],
        scope: &Rc<Scope>,
        items: &mut Vec<Value>,
        pairs: &mut Vec<(Value, Value)>,
    ) -> Eval<()> {
        let Some((first, rest)) = generators.split_first() else {
            match produce {
                Produce::Item(elt) => items.push(self.eval(elt, scope)?),
                Produce::Pair(p) => {
                    let k = self.eval(p.key, scope)?;
                    let v = self.eval(p.value, scope)?;
                    pairs.push((k, v));
                }
            }
            return Ok(());
        };
        let iter_span = span_of(first.iter.range());
        let iterable = self.eval(&first.iter, scope)?;
        let elements = collections::iterate(&iterable).ok_or_else(|| {
            Raised::at(
                iter_span,
                format!("cannot loop over a {}", iterable.type_name()),
            )
        })?;
        'items: for item in elements {
            self.assign(&first.target, item, scope)?;
            for cond in &first.ifs {
                let c = self.eval(cond, scope)?;
                if !self.truthy(&c, span_of(cond.range()))? {
                    continue 'items;
                }
            }
            self.comprehend(produce, rest, scope, items, pairs)?;
        }
        Ok(())
    }

    /// An f-string (with the plain strings implicitly concatenated to it):
    /// its literal parts and formatted values, joined.
    fn f_string(&mut self, f: &ast::ExprFString, scope: &Rc<Scope>) -> Eval<String> {
        let mut out = String::new();
        for part in f.value.iter() {
            match part {
                ast::FStringPart::Literal(text) => out.push_str(&text.value),
                ast::FStringPart::FString(f) => {
                    let part = self.interpolated(&f.elements, scope)?;
                    let span = span_of(f.range);
                    crate::budget::push_text(&mut out, &part, "the f-string would build", span)?;
                }
            }
        }
        Ok(out)
    }

    /// The text of an f-string's elements (or of a format spec's).
    fn interpolated(
        &mut self,
        elements: &ast::InterpolatedStringElements,
        scope: &Rc<Scope>,
    ) -> Eval<String> {
        let mut out = String::new();
        for element in elements.iter() {
            match element {
                ast::InterpolatedStringElement::Literal(text) => out.push_str(&text.value),
                ast::InterpolatedStringElement::Interpolation(i) => {
                    let part = self.formatted_value(i, scope)?;
                    let span = span_of(i.range);
                    crate::budget::push_text(&mut out, &part, "the f-string would build", span)?;
                }
            }
        }
        Ok(out)
    }

    /// `{value!conversion:spec}` in an f-string; `{value=}` shows the
    /// expression's text before its repr, as Python does.
    fn formatted_value(&mut self, f: &ast::InterpolatedElement, scope: &Rc<Scope>) -> Eval<String> {
        let value = self.eval(&f.expression, scope)?;
        let spec = match &f.format_spec {
            Some(spec) => self.interpolated(&spec.elements, scope)?,
            None => String::new(),
        };
        let conversion = match f.conversion {
            ast::ConversionFlag::None if f.debug_text.is_some() && f.format_spec.is_none() => {
                Some('r')
            }
            ast::ConversionFlag::None => None,
            ast::ConversionFlag::Str => Some('s'),
            ast::ConversionFlag::Repr => Some('r'),
            ast::ConversionFlag::Ascii => Some('a'),
        };
        let formatted = pyformat::convert_and_format(&value, conversion, &spec, span_of(f.range))?;
        Ok(match &f.debug_text {
            Some(debug) => format!(
                "{}{}{}{formatted}",
                debug.leading,
                self.text(&span_of(f.expression.range())),
                debug.trailing
            ),
            None => formatted,
        })
    }

    fn eval_items(&mut self, elts: &[ast::Expr], scope: &Rc<Scope>) -> Eval<Vec<Value>> {
        let mut items = Vec::with_capacity(elts.len());
        for e in elts {
            if let ast::Expr::Starred(st) = e {
                let v = self.eval(&st.value, scope)?;
                let inner = collections::iterate(&v).ok_or_else(|| {
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
                        // Mutable containers are the same only if they are
                        // one object.
                        (Value::List(a), Value::List(b)) => Rc::ptr_eq(a, b),
                        (Value::MutableDict(a), Value::MutableDict(b)) => Rc::ptr_eq(a, b),
                        (Value::Set(a), Value::Set(b)) => Rc::ptr_eq(a, b),
                        (Value::List(_) | Value::MutableDict(_) | Value::Set(_), _)
                        | (_, Value::List(_) | Value::MutableDict(_) | Value::Set(_)) => false,
                        _ => operators::equal(&lhs, &rhs),
                    };
                    Value::Bool(same == matches!(op, ast::CmpOp::Is))
                }
                ast::CmpOp::In | ast::CmpOp::NotIn => {
                    let found = match collections::contains(&rhs, &lhs, span.clone())? {
                        Some(found) => found,
                        None => {
                            // `iv in bounds` iterates the map's keys, as Python does.
                            let Some(items) = rhs.sequence().or_else(|| tvm_api::iter(&rhs)) else {
                                return Err(Raised::python(
                                    ErrorClass::TypeError,
                                    span,
                                    format!(
                                        "argument of type '{}' is not iterable",
                                        rhs.type_name()
                                    ),
                                ));
                            };
                            let mut found = false;
                            for item in &items {
                                let eq =
                                    operators::compare(arith::CmpOp::Eq, &lhs, item, span.clone())?;
                                if matches!(eq, Value::Bool(true)) {
                                    found = true;
                                    break;
                                }
                            }
                            found
                        }
                    };
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

    /// `value.name`.
    pub(crate) fn attribute(&self, value: &Value, name: &str, span: Range<usize>) -> Eval<Value> {
        if let Some(field) = self.named_tuples.attribute(value, name, span.clone()) {
            return field;
        }
        if let Some(ty) = crate::namedtuple::as_type(value) {
            match name {
                "_fields" => return Ok(crate::namedtuple::fields(ty)),
                "__name__" => return Ok(Value::str(&ty.name)),
                _ => {}
            }
        }
        match value {
            _ if native::module_path(value).is_some() => {
                let path = native::module_path(value).unwrap_or_default();
                if pymodules::needs_cpython(path) {
                    return Err(pymodules::needs_cpython_error(path, self.text(&span), span));
                }
                objects::attribute(value, name, span)
            }
            _ if pymethods::method_name(value, name).is_some() => Ok(Value::Method(
                Rc::new(value.clone()),
                pymethods::method_name(value, name).unwrap_or_default(),
            )),
            Value::Object(tvm_api::Object::Class(c)) if name == "__name__" => {
                Ok(Value::str(c.name().rsplit('.').next().unwrap_or(c.name())))
            }
            Value::Host(_) if matches!(script_value(value), Some(ScriptValue::Class(_))) => {
                let Some(ScriptValue::Class(c)) = script_value(value) else {
                    unreachable!("matched above")
                };
                match c.attributes.get(name) {
                    Some(v) => Ok(v.clone()),
                    None if name == "__name__" => Ok(Value::str(&c.name)),
                    None => Err(Raised::python(
                        ErrorClass::AttributeError,
                        span,
                        format!("type object '{}' has no attribute '{name}'", c.name),
                    )),
                }
            }
            Value::Host(_)
                if matches!(
                    script_value(value),
                    Some(
                        ScriptValue::RePattern(_)
                            | ScriptValue::ReMatch(_)
                            | ScriptValue::NdArray(_)
                    )
                ) =>
            {
                let host = script_value(value).expect("matched above");
                if let ScriptValue::NdArray(a) = host {
                    return crate::pynumpy::attribute(a, name, span);
                }
                crate::pyre::attribute(host, name).ok_or_else(|| {
                    Raised::python(
                        ErrorClass::AttributeError,
                        span,
                        format!("'{}' object has no attribute '{name}'", value.type_name()),
                    )
                })
            }
            Value::Host(_) if name == "__name__" => match script_value(value) {
                Some(ScriptValue::Builtin(n)) => {
                    let full = crate::builtins::class_name(*n).unwrap_or(n.name());
                    Ok(Value::str(full.rsplit('.').next().unwrap_or(full)))
                }
                Some(ScriptValue::Function(f)) => Ok(Value::str(&f.name)),
                _ => objects::attribute(value, name, span),
            },
            Value::Exception(_, message) if name == "args" => {
                Ok(Value::tuple(vec![Value::Str(message.clone())]))
            }
            _ if pymethods::is_missing_method(value, name) => Err(Raised::at(
                span,
                format!(
                    "`{}.{name}` is not supported by rangefinder",
                    value.type_name()
                ),
            )),
            Value::Str(_)
            | Value::List(_)
            | Value::Tuple(_)
            | Value::Dict(_)
            | Value::MutableDict(_)
            | Value::Set(_)
            | Value::Exception(..) => Err(Raised::python(
                ErrorClass::AttributeError,
                span,
                format!("'{}' object has no attribute '{name}'", value.type_name()),
            )),
            _ => objects::attribute(value, name, span),
        }
    }

    /// The index of a subscript: a slice's bounds, a tuple, or one value.
    pub(super) fn index_value(&mut self, slice: &ast::Expr, scope: &Rc<Scope>) -> Eval<Index> {
        Ok(match slice {
            ast::Expr::Slice(sl) => {
                let values = self.slice_bounds(sl, scope)?;
                let mut bounds = [None; 3];
                for (k, v) in values.iter().enumerate() {
                    bounds[k] = match v {
                        Value::None => None,
                        v => match operators::as_int(v) {
                            Some(i) => Some(i),
                            // A symbolic bound: a region of a tensor
                            // (`A[i * 16:(i + 1) * 16]`).
                            None if matches!(v, Value::Index(_)) => {
                                let [a, b, c] = values;
                                return Ok(Index::Value(
                                    tvm_api::slice(a, b, c)
                                        .map_err(|e| Raised::api(span_of(sl.range()), e))?,
                                ));
                            }
                            None => {
                                return Err(Raised::python(
                                    ErrorClass::TypeError,
                                    span_of(sl.range()),
                                    format!(
                                        "slice indices must be integers or None, not {}",
                                        v.type_name()
                                    ),
                                ))
                            }
                        },
                    };
                }
                Index::Slice(bounds)
            }
            ast::Expr::Tuple(t) => {
                let mut items = Vec::with_capacity(t.elts.len());
                for e in &t.elts {
                    items.push(match e {
                        // A region of a tensor (`A[i, 0:16]`).
                        ast::Expr::Slice(sl) => {
                            let [a, b, c] = self.slice_bounds(sl, scope)?;
                            tvm_api::slice(a, b, c)
                                .map_err(|err| Raised::api(span_of(sl.range()), err))?
                        }
                        e => self.eval(e, scope)?,
                    });
                }
                Index::Value(Value::tuple(items))
            }
            other => Index::Value(self.eval(other, scope)?),
        })
    }

    /// The start, stop and step of a slice (`None` where not written).
    fn slice_bounds(&mut self, sl: &ast::ExprSlice, scope: &Rc<Scope>) -> Eval<[Value; 3]> {
        let mut out = [Value::None, Value::None, Value::None];
        for (bound, e) in out.iter_mut().zip([&sl.lower, &sl.upper, &sl.step]) {
            if let Some(e) = e {
                *bound = self.eval(e, scope)?;
            }
        }
        Ok(out)
    }

    /// `value[index]` for an evaluated index.
    pub(super) fn get_index(
        &self,
        value: &Value,
        index: &Index,
        index_span: Range<usize>,
        span: Range<usize>,
    ) -> Eval<Value> {
        match index {
            Index::Value(i) => self.subscript(value, i, index_span, span),
            Index::Slice(bounds) => match value {
                Value::Tuple(_) | Value::List(_) | Value::Str(_) => {
                    collections::slice(value, *bounds, index_span)
                }
                Value::Host(_) if crate::pynumpy::as_array(value).is_some() => {
                    let arr = crate::pynumpy::as_array(value).expect("matched above");
                    crate::pynumpy::get_slice(arr, *bounds, index_span)
                }
                Value::Object(tvm_api::Object::Tensor(_) | tvm_api::Object::PartialLoad(..)) => {
                    let bound = |b: Option<i64>| b.map_or(Value::None, Value::Int);
                    let slice =
                        tvm_api::slice(bound(bounds[0]), bound(bounds[1]), bound(bounds[2]))
                            .map_err(|e| Raised::api(index_span.clone(), e))?;
                    self.subscript(value, &slice, index_span, span)
                }
                other => Err(Raised::at(
                    index_span,
                    format!(
                        "slices of a {} are not supported; slice tuples, lists and strings",
                        other.type_name()
                    ),
                )),
            },
        }
    }

    /// `value[index]`.
    pub(crate) fn subscript(
        &self,
        value: &Value,
        index: &Value,
        index_span: Range<usize>,
        span: Range<usize>,
    ) -> Eval<Value> {
        match value {
            Value::Tuple(_) | Value::List(_) | Value::Str(_) => {
                let Some(i) = operators::as_int(index) else {
                    return Err(Raised::python(
                        ErrorClass::TypeError,
                        index_span,
                        format!(
                            "a {} index must be an integer, not a {}",
                            value.type_name(),
                            index.type_name()
                        ),
                    ));
                };
                if let Value::Str(s) = value {
                    let chars: Vec<char> = s.chars().collect();
                    let at = collections::position(i, chars.len(), "string", index_span)?;
                    return Ok(Value::str(chars[at].encode_utf8(&mut [0; 4])));
                }
                let items = value.sequence().unwrap_or_default();
                let at = collections::position(i, items.len(), value.type_name(), index_span)?;
                Ok(items[at].clone())
            }
            Value::Dict(_) | Value::MutableDict(_) => {
                collections::check_hashable(index, index_span.clone())?;
                let found = collections::dict_get(value, index, index_span.clone())?;
                found.ok_or_else(|| {
                    Raised::python(ErrorClass::KeyError, index_span, pyformat::repr(index))
                })
            }
            Value::Host(_) if crate::pynumpy::as_array(value).is_some() => {
                let arr = crate::pynumpy::as_array(value).expect("matched above");
                crate::pynumpy::get_item(arr, index, index_span)
            }
            _ => objects::subscript(value, index, index_span, span),
        }
    }
}

/// An evaluated subscript index.
pub(crate) enum Index {
    Value(Value),
    /// `[start:stop:step]`, each bound given or not.
    Slice([Option<i64>; 3]),
}

/// The key and value expressions of a dict comprehension.
struct DictPair<'a> {
    key: &'a ast::Expr,
    value: &'a ast::Expr,
}

/// What each round of a comprehension produces.
enum Produce<'a> {
    Item(&'a ast::Expr),
    Pair(&'a DictPair<'a>),
}

/// `lhs op rhs` for any binary operator: bitwise operators on integers and
/// sets here, the arithmetic ones in [`operators::binary`].
pub(crate) fn apply_binary(
    op: &ast::Operator,
    lhs: &Value,
    rhs: &Value,
    span: Range<usize>,
) -> Eval<Value> {
    use ast::Operator as O;
    if let (Value::Set(a), Value::Set(b)) = (lhs, rhs) {
        let (a, b) = (a.borrow().clone(), b.borrow().clone());
        let in_b = |v: &Value| b.iter().any(|x| collections::py_eq(x, v));
        let in_a = |v: &Value| a.iter().any(|x| collections::py_eq(x, v));
        let items: Vec<Value> = match op {
            O::BitOr => a.iter().chain(&b).cloned().collect(),
            O::BitAnd => a.iter().filter(|v| in_b(v)).cloned().collect(),
            O::Sub => a.iter().filter(|v| !in_b(v)).cloned().collect(),
            O::BitXor => a
                .iter()
                .filter(|v| !in_b(v))
                .chain(b.iter().filter(|v| !in_a(v)))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        collections::check_depth(span.clone())?;
        if matches!(op, O::BitOr | O::BitAnd | O::Sub | O::BitXor) {
            return collections::new_set(items, span);
        }
    }
    let bitwise = matches!(op, O::BitOr | O::BitAnd | O::BitXor | O::LShift | O::RShift);
    if !bitwise {
        return operators::binary(binary_op(op, span.clone())?, lhs, rhs, span);
    }
    if bitwise && (objects::is_api_value(lhs) || objects::is_api_value(rhs)) {
        // TVM's `cond & cond` and `cond | cond` (`tir.all`, `tir.any`), and
        // the bitwise intrinsics on integer tensor elements.
        let f = match op {
            O::BitAnd | O::BitOr => None,
            O::BitXor => Some(tir::Intrinsic::BitwiseXor),
            O::LShift => Some(tir::Intrinsic::ShiftLeft),
            _ => Some(tir::Intrinsic::ShiftRight),
        };
        return match f {
            None => tvm_api::logical(matches!(op, O::BitAnd), lhs, rhs),
            Some(f) => tvm_api::bitwise(f, lhs, rhs),
        }
        .map_err(|e| Raised::api(span, e));
    }
    if let (Value::Bool(a), Value::Bool(b)) = (lhs, rhs) {
        match op {
            O::BitOr => return Ok(Value::Bool(a | b)),
            O::BitAnd => return Ok(Value::Bool(a & b)),
            O::BitXor => return Ok(Value::Bool(a ^ b)),
            _ => {}
        }
    }
    let (Some(a), Some(b)) = (operators::as_int(lhs), operators::as_int(rhs)) else {
        return Err(Raised::at(
            span,
            format!(
                "bitwise operators are supported on integers and sets, not between {} and {}",
                lhs.type_name(),
                rhs.type_name()
            ),
        ));
    };
    let overflow = || {
        Raised::at(
            span.clone(),
            "integer overflow: the result does not fit in 64 bits",
        )
    };
    let shift = |b: i64| -> Eval<u32> {
        if b < 0 {
            return Err(Raised::python(
                ErrorClass::ValueError,
                span.clone(),
                "negative shift count",
            ));
        }
        Ok(u32::try_from(b.min(64)).unwrap_or(64))
    };
    Ok(Value::Int(match op {
        O::BitOr => a | b,
        O::BitAnd => a & b,
        O::BitXor => a ^ b,
        O::LShift => {
            let n = shift(b)?;
            if a == 0 {
                0
            } else if n >= 64 {
                return Err(overflow());
            } else {
                let r = a << n;
                if r >> n != a {
                    return Err(overflow());
                }
                r
            }
        }
        _ => {
            let n = shift(b)?;
            if n >= 64 {
                if a < 0 {
                    -1
                } else {
                    0
                }
            } else {
                a >> n
            }
        }
    }))
}

fn number(n: &ast::Number, span: Range<usize>) -> Eval<Value> {
    match n {
        ast::Number::Int(i) => i
            .as_i64()
            .map(Value::Int)
            .ok_or_else(|| Raised::at(span, "integer literal does not fit in 64 bits")),
        ast::Number::Float(f) => Ok(Value::Float(*f)),
        ast::Number::Complex { .. } => Err(Raised::at(
            span,
            "only int, float, str, bytes, bool and None literals are supported",
        )),
    }
}

fn binary_op(op: &ast::Operator, span: Range<usize>) -> Eval<BinaryOp> {
    BinaryOp::from_python(*op)
        .ok_or_else(|| Raised::at(span, "the matrix operator `@` is not supported"))
}

pub(super) fn is_membership(op: &ast::CmpOp) -> bool {
    matches!(
        op,
        ast::CmpOp::Is | ast::CmpOp::IsNot | ast::CmpOp::In | ast::CmpOp::NotIn
    )
}

pub(super) fn cmp_op(op: &ast::CmpOp) -> arith::CmpOp {
    // `is`, `in` and their negations are handled by the caller.
    tvm_api::compare_from_python(*op).unwrap_or(arith::CmpOp::Ge)
}

fn expression_kind(e: &ast::Expr) -> &'static str {
    match e {
        ast::Expr::SetComp(_) | ast::Expr::DictComp(_) => "a set or dict comprehension",
        ast::Expr::Set(_) => "a set",
        ast::Expr::TString(_) => "a template string",
        ast::Expr::Named(_) => "`:=`",
        ast::Expr::Await(_) | ast::Expr::Yield(_) | ast::Expr::YieldFrom(_) => "`await`/`yield`",
        ast::Expr::Starred(_) => "`*` outside a call, tuple or list",
        ast::Expr::Slice(_) => "a slice",
        _ => "this expression",
    }
}
