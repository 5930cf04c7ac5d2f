//! TVM's hybrid script (`@te.hybrid.script`): a Python function of loops
//! and stores over tensors, parsed into an operation whose body is those
//! loops and stores (TVM's `HybridOp`).
//!
//! The function is not run: its source is read (the front end gives it,
//! [`Host::hybrid_source`]) and each statement becomes a statement of the
//! operation's body, as TVM's hybrid parser does:
//!
//! - `output_tensor(shape, dtype)` declares an output, `allocate(shape,
//!   dtype, scope)` a buffer for the rest of its block; `return` names the
//!   outputs, in order;
//! - `for i in range(a, b)` is a loop, `parallel`, `vectorize`, `unroll`
//!   and `bind("threadIdx.x", n)` loops of those kinds, and `const_range(n)`
//!   is unrolled while parsing;
//! - `if` on a condition known while parsing keeps one branch, else it is
//!   a statement; `assert cond, msg` is checked when known;
//! - a name assigned once from a value known while parsing (a number, a
//!   size, `a.shape[0]`) stands for that value; any other name assigned in
//!   the body is a one-element buffer of the block that holds all its uses
//!   (TVM's `realize sigma([0, 1])`);
//! - the math functions (`sqrt`, `exp`, `power`, `sigmoid`, ...), `min`,
//!   `max`, `ceil_div`, `likely`, and the type names as casts
//!   (`float32(x)`); names the function does not define are looked up
//!   where it was defined ([`Host::free_variable`]).
//!
//! The operation reads each tensor argument whole and writes each output
//! whole, as an extern operation does ([`te::hybrid_op`]).

use crate::error::{ApiResult, ErrorClass};
use crate::object::Object;
use crate::objects::promote;
use crate::value::Value;
use crate::{ApiError, BinaryOp, Host};
use arith::{CmpOp, Expr, Var};
use python_ast as ast;
use std::collections::HashMap;
use std::rc::Rc;
use text_size::Ranged;
use tir::{Buffer, DataType, ForKind, Stmt};

/// The definition of a hybrid function, as the front end read it.
#[derive(Clone, Debug)]
pub struct HybridSource {
    /// The function's name: the operation's.
    pub name: String,
    /// The positional parameters, in order.
    pub params: Vec<String>,
    /// The statements of the body.
    pub body: Rc<Vec<ast::Stmt>>,
    /// The text the statements' ranges point into.
    pub text: Rc<str>,
    /// The line of the file on which `text` starts, less one (0 when
    /// `text` is the whole file).
    pub line_base: usize,
    /// Each positional parameter's annotation (`a: T.handle`), if any.
    pub annotations: Vec<Option<ast::Expr>>,
}

impl HybridSource {
    /// The first function defined in `text` (the source of one function
    /// as Python's `inspect.getsource` gives it, decorators included),
    /// `text` starting on line `line_base + 1` of its file.
    pub fn parse(text: &str, line_base: usize) -> ApiResult<HybridSource> {
        let module = python_parser::parse_module(text).map_err(|e| {
            ApiError::new(
                ErrorClass::NotSupported,
                format!("the source of the function does not parse: {e}"),
            )
        })?;
        let def = module
            .into_syntax()
            .body
            .into_iter()
            .find_map(|s| match s {
                ast::Stmt::FunctionDef(d) => Some(d),
                _ => None,
            })
            .ok_or_else(|| {
                ApiError::new(
                    ErrorClass::NotSupported,
                    "the source holds no function (`def`)",
                )
            })?;
        let params = def
            .parameters
            .posonlyargs
            .iter()
            .chain(&def.parameters.args)
            .map(|p| p.parameter.name.to_string())
            .collect();
        let annotations = def
            .parameters
            .posonlyargs
            .iter()
            .chain(&def.parameters.args)
            .map(|p| p.parameter.annotation.as_deref().cloned())
            .collect();
        Ok(HybridSource {
            name: def.name.to_string(),
            params,
            annotations,
            body: Rc::new(def.body),
            text: Rc::from(text),
            line_base,
        })
    }

    pub(crate) fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.line_base
            + 1
            + self.text.as_bytes()[..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
    }
}

/// `te.hybrid.script(f)(*args)`: the output tensors of the operation that
/// `f`'s source describes, for these arguments (one tensor, or a tuple
/// for several outputs).
pub(crate) fn call(host: &mut dyn Host, f: &Value, args: crate::args::Args) -> ApiResult<Value> {
    let source = host.hybrid_source(f)?;
    let args = arguments_in_order(&source, args)?;
    call_source(host, Some(f), &source, args)
}

/// The arguments of a call of `source`, positional then keyword ones
/// (`hybrid_nms(..., zero=tvm.tir.const(0))`, as TOPI's `nms.py` calls
/// them), in the order of its parameters.
fn arguments_in_order(source: &HybridSource, args: crate::args::Args) -> ApiResult<Vec<Value>> {
    use crate::error::ArgRef;
    let name = &source.name;
    if args.positional.len() > source.params.len() {
        return Err(ApiError::type_error(format!(
            "`{name}` takes {} arguments ({}), not {}",
            source.params.len(),
            source.params.join(", "),
            args.positional.len()
        )));
    }
    let mut slots: Vec<Option<Value>> = args.positional.into_iter().map(Some).collect();
    slots.resize(source.params.len(), None);
    for (key, value) in args.keywords {
        let Some(i) = source.params.iter().position(|p| *p == key) else {
            return Err(ApiError::type_error(format!(
                "`{name}` has no parameter `{key}`; its parameters are {}",
                source.params.join(", ")
            ))
            .at(ArgRef::Keyword(key)));
        };
        if slots[i].replace(value).is_some() {
            return Err(
                ApiError::type_error(format!("`{name}` got two values for `{key}`"))
                    .at(ArgRef::Keyword(key)),
            );
        }
    }
    slots
        .into_iter()
        .zip(&source.params)
        .map(|(v, p)| {
            v.ok_or_else(|| ApiError::type_error(format!("`{name}` is missing its argument `{p}`")))
        })
        .collect()
}

/// The output tensors of the hybrid function `source` for `args`; names it
/// does not define are looked up where front-end function `f` was
/// defined, when there is one.
pub(crate) fn call_source(
    host: &mut dyn Host,
    f: Option<&Value>,
    source: &HybridSource,
    args: Vec<Value>,
) -> ApiResult<Value> {
    if args.len() != source.params.len() {
        return Err(ApiError::type_error(format!(
            "hybrid function `{}` takes {} arguments, {} were given",
            source.name,
            source.params.len(),
            args.len()
        )));
    }
    let mut p = Parser::new(host, f, source);
    for (name, value) in source.params.iter().zip(args) {
        p.add_inputs(&value);
        p.bind(name, Sym::Value(value));
    }
    let root = p.block(&source.body)?;
    let Some(returned) = p.returned.take() else {
        return Err(ApiError::type_error(format!(
            "hybrid function `{}` returns nothing: return its output tensors",
            source.name
        )));
    };
    let outputs = p.outputs.clone();
    let mut output_buffers = Vec::new();
    for t in &returned {
        let Some((_, b)) = outputs.iter().find(|(o, _)| o.op().id() == t.op().id()) else {
            return Err(ApiError::type_error(format!(
                "hybrid function `{}` returns `{}`, which is not one of its `output_tensor`s",
                source.name,
                t.name()
            )));
        };
        output_buffers.push(b.clone());
    }
    let (inputs, input_buffers): (Vec<_>, Vec<_>) = p.inputs.iter().cloned().unzip();
    let op = te::hybrid_op(&source.name, inputs, input_buffers, output_buffers, root)
        .map_err(ApiError::te)?;
    let outs: Vec<Value> = op
        .outputs()
        .into_iter()
        .map(|t| Value::Object(Object::Tensor(t)))
        .collect();
    // TVM returns a list for several outputs.
    Ok(match <[Value; 1]>::try_from(outs) {
        Ok([one]) => one,
        Err(outs) => Value::list(outs),
    })
}

/// What a name stands for while parsing.
#[derive(Clone)]
pub(crate) enum Sym {
    /// A value known while parsing: a number, a size, a tensor, a list,
    /// a loop variable.
    Value(Value),
    /// A variable of the body, held in a one-element buffer.
    Local(te::Tensor),
}

/// How a name is used in the body: enough to decide what it is.
#[derive(Default)]
struct Usage {
    /// Plain assignments (`x = ...`).
    assigns: usize,
    /// Updates (`x += ...`).
    updates: usize,
    /// The blocks around every occurrence, outermost first (by identity).
    blocks: Option<Vec<usize>>,
}

pub(crate) struct Parser<'h, 's> {
    pub(crate) host: &'h mut dyn Host,
    pub(crate) func: Option<&'s Value>,
    pub(crate) source: &'s HybridSource,
    pub(crate) syms: HashMap<String, Sym>,
    usage: HashMap<String, Usage>,
    /// Every tensor the body reads or writes, with its buffer.
    pub(crate) buffers: HashMap<(te::OpId, usize), Buffer>,
    /// The tensor arguments, each once, with their buffers.
    inputs: Vec<(te::Tensor, Buffer)>,
    /// The `output_tensor`s, in order of declaration.
    outputs: Vec<(te::Tensor, Buffer)>,
    /// Per block, the variables of the body it holds, by name.
    locals: HashMap<usize, Vec<(String, Buffer)>>,
    returned: Option<Vec<te::Tensor>>,
    /// The range of each loop of a TVMScript function parsed so far.
    pub(crate) loop_ranges: HashMap<Var, arith::Range>,
    /// What the source is, for messages: "hybrid function" or "TVMScript
    /// function".
    pub(crate) what: &'static str,
}

fn block_id(body: &[ast::Stmt]) -> usize {
    body.as_ptr() as usize
}

/// Records, per name, its assignments and the blocks of its occurrences.
fn collect_usage(body: &[ast::Stmt], path: &mut Vec<usize>, usage: &mut HashMap<String, Usage>) {
    path.push(block_id(body));
    for s in body {
        let mut names = Vec::new();
        match s {
            ast::Stmt::Assign(a) => {
                for t in &a.targets {
                    if let ast::Expr::Name(n) = t {
                        usage.entry(n.id.to_string()).or_default().assigns += 1;
                    }
                }
            }
            ast::Stmt::AugAssign(a) => {
                if let ast::Expr::Name(n) = &*a.target {
                    usage.entry(n.id.to_string()).or_default().updates += 1;
                }
            }
            _ => {}
        }
        names_in_stmt(s, &mut names);
        for n in names {
            let u = usage.entry(n).or_default();
            u.blocks = Some(match u.blocks.take() {
                None => path.clone(),
                Some(b) => {
                    let common = b
                        .iter()
                        .zip(path.iter())
                        .take_while(|(x, y)| x == y)
                        .count();
                    b[..common].to_vec()
                }
            });
        }
        match s {
            ast::Stmt::For(f) => collect_usage(&f.body, path, usage),
            ast::Stmt::If(i) => {
                collect_usage(&i.body, path, usage);
                for c in &i.elif_else_clauses {
                    collect_usage(&c.body, path, usage);
                }
            }
            _ => {}
        }
    }
    path.pop();
}

/// The names a statement uses outside its nested blocks.
fn names_in_stmt(s: &ast::Stmt, out: &mut Vec<String>) {
    let mut exprs: Vec<&ast::Expr> = Vec::new();
    match s {
        ast::Stmt::Assign(a) => {
            exprs.extend(a.targets.iter());
            exprs.push(&a.value);
        }
        ast::Stmt::AugAssign(a) => {
            exprs.push(&a.target);
            exprs.push(&a.value);
        }
        ast::Stmt::For(f) => {
            exprs.push(&f.target);
            exprs.push(&f.iter);
        }
        ast::Stmt::If(i) => {
            exprs.push(&i.test);
            exprs.extend(i.elif_else_clauses.iter().filter_map(|c| c.test.as_ref()));
        }
        ast::Stmt::Assert(a) => exprs.push(&a.test),
        ast::Stmt::Return(r) => exprs.extend(r.value.as_deref()),
        ast::Stmt::Expr(e) => exprs.push(&e.value),
        _ => {}
    }
    for e in exprs {
        names_in_expr(e, out);
    }
}

fn names_in_expr(e: &ast::Expr, out: &mut Vec<String>) {
    use python_ast::visitor::{walk_expr, Visitor};
    struct Names<'a>(&'a mut Vec<String>);
    impl<'a> Visitor<'a> for Names<'_> {
        fn visit_expr(&mut self, e: &'a ast::Expr) {
            if let ast::Expr::Name(n) = e {
                self.0.push(n.id.to_string());
            }
            walk_expr(self, e);
        }
    }
    Names(out).visit_expr(e);
}

/// A number or a symbolic integer as an index expression.
pub(crate) fn index_of(v: &Value) -> Option<Expr> {
    match promote(v) {
        Value::Int(i) => Some(Expr::int(i)),
        Value::Bool(b) => Some(Expr::int(i64::from(b))),
        Value::Index(e) => Some(e),
        _ => None,
    }
}

impl<'h, 's> Parser<'h, 's> {
    pub(crate) fn new(
        host: &'h mut dyn Host,
        func: Option<&'s Value>,
        source: &'s HybridSource,
    ) -> Self {
        let mut usage = HashMap::new();
        collect_usage(&source.body, &mut Vec::new(), &mut usage);
        Parser {
            host,
            func,
            source,
            syms: HashMap::new(),
            usage,
            buffers: HashMap::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            locals: HashMap::new(),
            returned: None,
            loop_ranges: HashMap::new(),
            what: "hybrid function",
        }
    }

    pub(crate) fn bind(&mut self, name: &str, sym: Sym) {
        self.syms.insert(name.to_string(), sym);
    }

    /// Registers the tensors of an argument (a tensor, or a list of them)
    /// as inputs, each once.
    fn add_inputs(&mut self, v: &Value) {
        match v {
            Value::Object(Object::Tensor(t)) => {
                let key = (t.op().id(), t.value_index());
                if let std::collections::hash_map::Entry::Vacant(slot) = self.buffers.entry(key) {
                    let b = Buffer::new(t.name(), t.dtype(), t.shape().to_vec());
                    slot.insert(b.clone());
                    self.inputs.push((t.clone(), b));
                }
            }
            Value::List(_) | Value::Tuple(_) => {
                for item in v.sequence().unwrap_or_default() {
                    self.add_inputs(&item);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn error(
        &self,
        node: &impl Ranged,
        class: ErrorClass,
        message: impl std::fmt::Display,
    ) -> ApiError {
        let line = self.source.line(node.range().start().to_usize());
        ApiError::new(
            class,
            format!(
                "{message} (line {line}, {} `{}`)",
                self.what, self.source.name
            ),
        )
    }

    pub(crate) fn located(&self, node: &impl Ranged, e: ApiError) -> ApiError {
        if e.class == ErrorClass::Host {
            return e;
        }
        let line = self.source.line(node.range().start().to_usize());
        ApiError {
            message: format!(
                "{} (line {line}, {} `{}`)",
                e.message, self.what, self.source.name
            ),
            ..e
        }
    }

    /// A fresh tensor standing for a buffer of the body: reads of it are
    /// element loads, and it is stored through `buffer`.
    pub(crate) fn new_tensor(&mut self, buffer: &Buffer) -> ApiResult<te::Tensor> {
        let t = te::placeholder(buffer.shape().to_vec(), buffer.name(), buffer.dtype())
            .map_err(ApiError::te)?;
        self.buffers.insert((t.op().id(), 0), buffer.clone());
        Ok(t)
    }

    fn block(&mut self, body: &[ast::Stmt]) -> ApiResult<Stmt> {
        let id = block_id(body);
        let mut out = self.statements(body)?;
        // The block's variables end with it (a block parsed again, as a
        // `const_range` body is, gets new ones).
        for (name, b) in self
            .locals
            .remove(&id)
            .unwrap_or_default()
            .into_iter()
            .rev()
        {
            self.syms.remove(&name);
            out = Stmt::allocate(&b, vec![Expr::int(1)], out);
        }
        Ok(out)
    }

    /// The statements of a block from `body` on: an allocation, or the
    /// outputs of another hybrid function called here, hold for the rest
    /// of the block.
    fn statements(&mut self, body: &[ast::Stmt]) -> ApiResult<Stmt> {
        let mut stmts = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let s = &body[k];
            k += 1;
            if let Some((name, buffer)) = self.allocation(s)? {
                let t = self.new_tensor(&buffer)?;
                self.bind(&name, Sym::Value(Value::Object(Object::Tensor(t))));
                let rest = self.statements(&body[k..])?;
                stmts.push(Stmt::allocate(&buffer, buffer.shape().to_vec(), rest));
                break;
            }
            if let Some((outputs, call)) = self.inline_call(s)? {
                let rest = self.statements(&body[k..])?;
                let mut inner = Stmt::seq(vec![call, rest]);
                for b in outputs.iter().rev() {
                    inner = Stmt::allocate(b, b.shape().to_vec(), inner);
                }
                stmts.push(inner);
                break;
            }
            self.stmt(s, &mut stmts)?;
            if self.returned.is_some() {
                break;
            }
        }
        Ok(Stmt::seq(stmts))
    }

    /// `x = f(args)` (or `x, y = f(args)`) where `f` is another hybrid
    /// function: its body, inlined (TVM's hybrid parser inlines such
    /// calls), and its outputs, which the caller allocates.
    fn inline_call(&mut self, s: &ast::Stmt) -> ApiResult<Option<(Vec<Buffer>, Stmt)>> {
        let ast::Stmt::Assign(a) = s else {
            return Ok(None);
        };
        let ast::Expr::Call(call) = &*a.value else {
            return Ok(None);
        };
        let ast::Expr::Name(fname) = &*call.func else {
            return Ok(None);
        };
        if self.syms.contains_key(fname.id.as_str()) {
            return Ok(None);
        }
        let Some(callee) = self
            .func
            .and_then(|f| self.host.free_variable(f, fname.id.as_str()))
        else {
            return Ok(None);
        };
        let (source, callee_func) = match &callee {
            Value::Object(Object::HybridFunction(f)) => {
                (self.host.hybrid_source(f)?, Some((**f).clone()))
            }
            Value::Object(Object::HybridModule(m)) => (m.parsed.clone(), None),
            _ => return Ok(None),
        };
        let mut args = Vec::new();
        for x in call.arguments.args.iter() {
            args.push(self.expr(x)?);
        }
        if args.len() != source.params.len() || !call.arguments.keywords.is_empty() {
            return Err(self.error(
                call,
                ErrorClass::TypeError,
                format!(
                    "hybrid function `{}` takes {} arguments",
                    source.name,
                    source.params.len()
                ),
            ));
        }
        let mut sub = Parser::new(&mut *self.host, callee_func.as_ref(), &source);
        sub.buffers = self.buffers.clone();
        for (name, value) in source.params.iter().zip(args) {
            sub.add_inputs(&value);
            sub.bind(name, Sym::Value(value));
        }
        let body = sub.block(&source.body);
        let returned = sub.returned.take().unwrap_or_default();
        let (outputs, inputs, buffers) = (sub.outputs, sub.inputs, sub.buffers);
        let body = body.map_err(|e| self.located(call, e))?;
        self.buffers = buffers;
        for (t, b) in inputs {
            if !self
                .inputs
                .iter()
                .any(|(u, _)| u.op().id() == t.op().id() && u.value_index() == t.value_index())
            {
                self.inputs.push((t, b));
            }
        }
        let values: Vec<Value> = returned
            .iter()
            .map(|t| Value::Object(Object::Tensor(t.clone())))
            .collect();
        match &a.targets[..] {
            [ast::Expr::Name(n)] if values.len() == 1 => {
                self.bind(n.id.as_str(), Sym::Value(values[0].clone()))
            }
            [ast::Expr::Name(n)] => self.bind(n.id.as_str(), Sym::Value(Value::list(values))),
            [ast::Expr::Tuple(t)] if t.elts.len() == values.len() => {
                for (e, v) in t.elts.iter().zip(values) {
                    let ast::Expr::Name(n) = e else {
                        return Err(self.error(
                            e,
                            ErrorClass::NotSupported,
                            "unpack into names only",
                        ));
                    };
                    self.bind(n.id.as_str(), Sym::Value(v));
                }
            }
            _ => {
                return Err(self.error(
                    a,
                    ErrorClass::NotSupported,
                    "assign the outputs of a hybrid call to names",
                ))
            }
        }
        Ok(Some((outputs.into_iter().map(|(_, b)| b).collect(), body)))
    }

    /// `name = allocate(shape, dtype="float32", scope="global")`: the name
    /// and the buffer.
    fn allocation(&mut self, s: &ast::Stmt) -> ApiResult<Option<(String, Buffer)>> {
        let ast::Stmt::Assign(a) = s else {
            return Ok(None);
        };
        let (Some(ast::Expr::Name(target)), ast::Expr::Call(call)) = (a.targets.first(), &*a.value)
        else {
            return Ok(None);
        };
        if !matches!(&*call.func, ast::Expr::Name(f) if f.id.as_str() == "allocate")
            || self.syms.contains_key("allocate")
        {
            return Ok(None);
        }
        let (shape, dtype, scope) = self.shape_dtype_scope(call, "allocate")?;
        let mut b = Buffer::new(target.id.as_str(), dtype, shape);
        if let Some(scope) = scope {
            b = b.with_scope(scope);
        }
        Ok(Some((target.id.to_string(), b)))
    }

    /// The `(shape, dtype, scope)` arguments of `output_tensor` and
    /// `allocate`.
    fn shape_dtype_scope(
        &mut self,
        call: &ast::ExprCall,
        what: &str,
    ) -> ApiResult<(Vec<Expr>, DataType, Option<String>)> {
        let mut args = Vec::new();
        for a in call.arguments.args.iter() {
            args.push(self.expr(a)?);
        }
        for k in call.arguments.keywords.iter() {
            let name = k.arg.as_ref().map(|n| n.as_str()).unwrap_or("");
            let slot = match name {
                "shape" => 0,
                "dtype" => 1,
                "scope" => 2,
                _ => {
                    return Err(self.error(
                        k,
                        ErrorClass::TypeError,
                        format!("`{what}` takes shape, dtype and scope, not `{name}`"),
                    ))
                }
            };
            let v = self.expr(&k.value)?;
            while args.len() <= slot {
                args.push(Value::None);
            }
            args[slot] = v;
        }
        let shape_v = args.first().cloned().unwrap_or(Value::None);
        let items = match &shape_v {
            Value::Tuple(_) | Value::List(_) => shape_v.sequence().unwrap_or_default(),
            other => vec![other.clone()],
        };
        let shape = items
            .iter()
            .map(|v| {
                index_of(v).ok_or_else(|| {
                    self.error(
                        call,
                        ErrorClass::TypeError,
                        format!(
                            "the shape of `{what}` must be sizes, found a {}",
                            v.type_name()
                        ),
                    )
                })
            })
            .collect::<ApiResult<Vec<_>>>()?;
        let dtype = match args.get(1) {
            None | Some(Value::None) => DataType::Float32,
            Some(Value::Str(s)) => s
                .parse::<DataType>()
                .map_err(|e| self.error(call, ErrorClass::TypeError, format!("`{what}`: {e}")))?,
            Some(other) => {
                return Err(self.error(
                    call,
                    ErrorClass::TypeError,
                    format!(
                        "the dtype of `{what}` must be a string, found a {}",
                        other.type_name()
                    ),
                ))
            }
        };
        let scope = match args.get(2) {
            Some(Value::Str(s)) if !s.is_empty() => Some(s.to_string()),
            _ => None,
        };
        Ok((shape, dtype, scope))
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) -> ApiResult<()> {
        match s {
            ast::Stmt::Expr(e) => match &*e.value {
                // A docstring.
                ast::Expr::StringLiteral(_) => Ok(()),
                other => {
                    let v = self.expr(other)?;
                    if let Value::Object(Object::Element(v)) = v {
                        out.push(Stmt::Evaluate(self.to_tir(s, &v)?));
                    }
                    Ok(())
                }
            },
            ast::Stmt::Pass(_) => Ok(()),
            ast::Stmt::Assign(a) => self.assign(a, out),
            ast::Stmt::AugAssign(a) => {
                let op = BinaryOp::from_python(a.op).ok_or_else(|| {
                    self.error(
                        a,
                        ErrorClass::NotSupported,
                        format!("`{}=` is not supported", a.op.as_str()),
                    )
                })?;
                let current = self.expr(&a.target)?;
                let rhs = self.expr(&a.value)?;
                let value = self.binary(a, op, &current, &rhs)?;
                self.store(&a.target, value, out)
            }
            ast::Stmt::For(f) => self.for_loop(f, out),
            ast::Stmt::If(i) => {
                let mut clauses: Vec<(Option<&ast::Expr>, &[ast::Stmt])> =
                    vec![(Some(&*i.test), &i.body)];
                clauses.extend(
                    i.elif_else_clauses
                        .iter()
                        .map(|c| (c.test.as_ref(), c.body.as_slice())),
                );
                if let Some(stmt) = self.if_chain(&clauses)? {
                    out.push(stmt);
                }
                Ok(())
            }
            ast::Stmt::Assert(a) => {
                let test = self.expr(&a.test)?;
                match test {
                    Value::Bool(false) => {
                        Err(self.error(a, ErrorClass::AssertionError, "assertion failed"))
                    }
                    Value::Bool(true) => Ok(()),
                    Value::Index(e) if e.as_int() == Some(0) => {
                        Err(self.error(a, ErrorClass::AssertionError, "assertion failed"))
                    }
                    // Checked where it runs: an out-of-range access is an
                    // error of the run, which the assertion guards against.
                    _ => Ok(()),
                }
            }
            ast::Stmt::Return(r) => {
                let v = match &r.value {
                    Some(v) => self.expr(v)?,
                    None => Value::None,
                };
                let items = match &v {
                    Value::Tuple(_) | Value::List(_) => v.sequence().unwrap_or_default(),
                    other => vec![other.clone()],
                };
                let mut tensors = Vec::new();
                for item in items {
                    match item {
                        Value::Object(Object::Tensor(t)) => tensors.push(t),
                        other => {
                            return Err(self.error(
                                r,
                                ErrorClass::TypeError,
                                format!(
                                    "a hybrid function returns its output tensors, not a {}",
                                    other.type_name()
                                ),
                            ))
                        }
                    }
                }
                self.returned = Some(tensors);
                Ok(())
            }
            other => Err(self.error(
                other,
                ErrorClass::NotSupported,
                "this statement is not supported in a hybrid script (use assignments, \
                 `for`, `if`, `assert` and `return`)",
            )),
        }
    }

    fn if_chain(
        &mut self,
        clauses: &[(Option<&ast::Expr>, &[ast::Stmt])],
    ) -> ApiResult<Option<Stmt>> {
        let Some(((test, body), rest)) = clauses.split_first() else {
            return Ok(None);
        };
        let Some(test) = test else {
            return Ok(Some(self.block(body)?));
        };
        let cond = self.expr(test)?;
        match &cond {
            Value::Bool(b) => {
                return if *b {
                    Ok(Some(self.block(body)?))
                } else {
                    self.if_chain(rest)
                };
            }
            Value::Int(i) => {
                return if *i != 0 {
                    Ok(Some(self.block(body)?))
                } else {
                    self.if_chain(rest)
                };
            }
            Value::Index(e) if e.as_int().is_some() => {
                return if e.as_int() != Some(0) {
                    Ok(Some(self.block(body)?))
                } else {
                    self.if_chain(rest)
                };
            }
            _ => {}
        }
        let c = self.condition(test, &cond)?;
        let then_case = self.block(body)?;
        let else_case = self.if_chain(rest)?;
        Ok(Some(Stmt::IfThenElse {
            cond: c,
            then_case: Box::new(then_case),
            else_case: else_case.map(Box::new),
        }))
    }

    /// A condition as a statement value.
    pub(crate) fn condition(&self, node: &ast::Expr, v: &Value) -> ApiResult<tir::Value> {
        match v {
            Value::Index(e) => Ok(tir::Value::index(e.clone())),
            Value::Object(Object::Element(e)) => self.to_tir(node, e),
            other => Err(self.error(
                node,
                ErrorClass::TypeError,
                format!("expected a condition, found a {}", other.type_name()),
            )),
        }
    }

    pub(crate) fn to_tir(&self, node: &impl Ranged, v: &te::Value) -> ApiResult<tir::Value> {
        te::element_to_buffers(v, &|t| {
            self.buffers.get(&(t.op().id(), t.value_index())).cloned()
        })
        .map_err(|e| self.located(node, ApiError::te(e)))
    }

    fn assign(&mut self, a: &ast::StmtAssign, out: &mut Vec<Stmt>) -> ApiResult<()> {
        let [target] = &a.targets[..] else {
            return Err(self.error(
                a,
                ErrorClass::NotSupported,
                "chained assignment is not supported",
            ));
        };
        // `c = output_tensor(shape, dtype)`.
        if let (ast::Expr::Name(n), ast::Expr::Call(call)) = (target, &*a.value) {
            if matches!(&*call.func, ast::Expr::Name(f) if f.id.as_str() == "output_tensor")
                && !self.syms.contains_key("output_tensor")
            {
                let (shape, dtype, _) = self.shape_dtype_scope(call, "output_tensor")?;
                let b = Buffer::new(n.id.as_str(), dtype, shape);
                let t = self.new_tensor(&b)?;
                self.outputs.push((t.clone(), b));
                self.bind(n.id.as_str(), Sym::Value(Value::Object(Object::Tensor(t))));
                return Ok(());
            }
        }
        let value = self.expr(&a.value)?;
        match target {
            ast::Expr::Name(n) => {
                let name = n.id.as_str();
                if let Some(Sym::Local(_)) = self.syms.get(name) {
                    return self.store(target, value, out);
                }
                let once = self
                    .usage
                    .get(name)
                    .is_some_and(|u| u.assigns == 1 && u.updates == 0);
                // A name assigned once from a value known now stands for
                // it; a tensor element, or a name assigned again, is a
                // variable of the body.
                let stored = matches!(value, Value::Object(Object::Element(_)))
                    || (!once
                        && matches!(
                            value,
                            Value::Int(_) | Value::Float(_) | Value::Index(_) | Value::Bool(_)
                        ));
                if !stored {
                    self.bind(name, Sym::Value(value));
                    return Ok(());
                }
                let dtype = match &value {
                    Value::Object(Object::Element(e)) => e.dtype(),
                    Value::Float(_) => DataType::Float32,
                    Value::Bool(_) => DataType::Bool,
                    _ => DataType::Int32,
                };
                let b = Buffer::new(name, dtype, vec![Expr::int(1)]);
                let t = self.new_tensor(&b)?;
                let block = self
                    .usage
                    .get(name)
                    .and_then(|u| u.blocks.as_ref())
                    .and_then(|p| p.last().copied())
                    .unwrap_or(block_id(&self.source.body));
                self.locals
                    .entry(block)
                    .or_default()
                    .push((name.to_string(), b));
                self.bind(name, Sym::Local(t));
                self.store(target, value, out)
            }
            ast::Expr::Subscript(_) => self.store(target, value, out),
            ast::Expr::Tuple(t) => {
                let items = value.sequence().ok_or_else(|| {
                    self.error(
                        a,
                        ErrorClass::TypeError,
                        format!("cannot unpack a {}", value.type_name()),
                    )
                })?;
                if items.len() != t.elts.len() {
                    return Err(self.error(
                        a,
                        ErrorClass::ValueError,
                        "wrong number of values to unpack",
                    ));
                }
                for (e, v) in t.elts.iter().zip(items) {
                    match e {
                        ast::Expr::Name(n) => self.bind(n.id.as_str(), Sym::Value(v)),
                        _ => {
                            return Err(self.error(
                                e,
                                ErrorClass::NotSupported,
                                "unpack into names only",
                            ))
                        }
                    }
                }
                Ok(())
            }
            other => Err(self.error(
                other,
                ErrorClass::NotSupported,
                "this assignment target is not supported",
            )),
        }
    }

    /// `target = value` for a variable of the body or an element.
    pub(crate) fn store(
        &mut self,
        target: &ast::Expr,
        value: Value,
        out: &mut Vec<Stmt>,
    ) -> ApiResult<()> {
        let mut scatter: Vec<(Var, tir::Value)> = Vec::new();
        let (tensor, indices) = match target {
            ast::Expr::Name(n) => match self.syms.get(n.id.as_str()) {
                Some(Sym::Local(t)) => (t.clone(), vec![Expr::int(0)]),
                _ => {
                    return Err(self.error(
                        target,
                        ErrorClass::NotSupported,
                        format!("`{}` is not a variable of the body", n.id),
                    ))
                }
            },
            ast::Expr::Subscript(sub) => {
                let base = self.expr(&sub.value)?;
                let index = self.expr(&sub.slice)?;
                let (t, mut idx) = match base {
                    Value::Object(Object::Tensor(t)) => (t, Vec::new()),
                    Value::Object(Object::PartialLoad(t, idx)) => (t, idx),
                    other => {
                        return Err(self.error(
                            target,
                            ErrorClass::TypeError,
                            format!(
                                "only tensor elements can be assigned, not items of a {}",
                                other.type_name()
                            ),
                        ))
                    }
                };
                let items = match &index {
                    Value::Tuple(_) => index.sequence().unwrap_or_default(),
                    other => vec![other.clone()],
                };
                for v in items {
                    if let Some(e) = index_of(&v) {
                        idx.push(e);
                        continue;
                    }
                    // A store at an index read at run time (a scatter,
                    // `out[count] = i`): the index is bound to a variable
                    // around the store.
                    let Value::Object(Object::Element(el)) = &v else {
                        return Err(self.error(
                            &*sub.slice,
                            ErrorClass::TypeError,
                            format!(
                                "an index must be an integer expression, found a {}",
                                v.type_name()
                            ),
                        ));
                    };
                    if el.dtype().is_float() {
                        return Err(self.error(
                            &*sub.slice,
                            ErrorClass::TypeError,
                            format!("an index must be an integer, found a {} value", el.dtype()),
                        ));
                    }
                    let var = Var::new(format!("{}_index{}", t.name(), idx.len()));
                    scatter.push((var.clone(), self.to_tir(&*sub.slice, el)?));
                    idx.push(var.expr());
                }
                if idx.len() != t.ndim() {
                    return Err(self.error(
                        target,
                        ErrorClass::TypeError,
                        format!(
                            "`{}` has {} dimensions but {} indices were given",
                            t.name(),
                            t.ndim(),
                            idx.len()
                        ),
                    ));
                }
                (t, idx)
            }
            other => {
                return Err(self.error(
                    other,
                    ErrorClass::NotSupported,
                    "this assignment target is not supported",
                ))
            }
        };
        let Some(buffer) = self
            .buffers
            .get(&(tensor.op().id(), tensor.value_index()))
            .cloned()
        else {
            return Err(self.error(
                target,
                ErrorClass::TypeError,
                format!("`{}` cannot be written", tensor.name()),
            ));
        };
        let v = match promote(&value) {
            Value::Object(Object::Element(e)) => self.to_tir(target, &e)?,
            Value::Float(f) => tir::Value::constant(f, buffer.dtype()),
            Value::Int(i) => tir::Value::constant(i as f64, buffer.dtype()),
            Value::Bool(b) => tir::Value::constant(f64::from(u8::from(b)), buffer.dtype()),
            Value::Index(e) => tir::Value::index(e),
            other => {
                return Err(self.error(
                    target,
                    ErrorClass::TypeError,
                    format!("a {} cannot be stored in a tensor", other.type_name()),
                ))
            }
        };
        let stage = buffer.name().to_string();
        let store = Stmt::BufferStore {
            buffer,
            indices,
            value: v,
            stage,
        };
        out.push(store.with_index_lets(scatter));
        Ok(())
    }

    fn for_loop(&mut self, f: &ast::StmtFor, out: &mut Vec<Stmt>) -> ApiResult<()> {
        let ast::Expr::Name(target) = &*f.target else {
            return Err(self.error(
                &*f.target,
                ErrorClass::NotSupported,
                "a loop variable must be a name",
            ));
        };
        if !f.orelse.is_empty() {
            return Err(self.error(
                f,
                ErrorClass::NotSupported,
                "`for ... else` is not supported",
            ));
        }
        let ast::Expr::Call(call) = &*f.iter else {
            return Err(self.error(
                &*f.iter,
                ErrorClass::NotSupported,
                "a hybrid loop runs over range, const_range, parallel, vectorize, unroll or bind",
            ));
        };
        let ast::Expr::Name(kind_name) = &*call.func else {
            return Err(self.error(&*call.func, ErrorClass::NotSupported, "unknown loop kind"));
        };
        let mut args = Vec::new();
        for a in call.arguments.args.iter() {
            args.push(self.expr(a)?);
        }
        let name = target.id.as_str();
        let saved = self.syms.get(name).cloned();
        let kind_str = kind_name.id.as_str();
        if kind_str == "const_range" {
            let bounds: Vec<i64> = args
                .iter()
                .map(|v| index_of(v).and_then(|e| e.as_int()))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    self.error(
                        call,
                        ErrorClass::TypeError,
                        "`const_range` needs constant bounds",
                    )
                })?;
            let (lo, hi) = match bounds[..] {
                [n] => (0, n),
                [a, b] => (a, b),
                _ => {
                    return Err(self.error(
                        call,
                        ErrorClass::TypeError,
                        "`const_range` takes one or two bounds",
                    ))
                }
            };
            for i in lo..hi {
                self.bind(name, Sym::Value(Value::Int(i)));
                out.push(self.block(&f.body)?);
            }
        } else {
            // Bounds read from memory (`parallel(nkeep)` with `nkeep =
            // valid_count[i]`, as TOPI's `nms.py` writes) are bound to
            // variables on entry to the loop.
            let mut read_bounds = Vec::new();
            let (kind, lo, hi, var_name) = match (kind_str, &args[..]) {
                ("range" | "parallel" | "vectorize" | "unroll", [n]) => (
                    kind_str,
                    Expr::int(0),
                    self.loop_bound(call, n, &mut read_bounds)?,
                    name.to_string(),
                ),
                ("range" | "parallel" | "vectorize" | "unroll", [a, b]) => (
                    kind_str,
                    self.loop_bound(call, a, &mut read_bounds)?,
                    self.loop_bound(call, b, &mut read_bounds)?,
                    name.to_string(),
                ),
                ("bind", [Value::Str(tag), n]) => {
                    ("bind", Expr::int(0), self.index(call, n)?, tag.to_string())
                }
                _ => {
                    return Err(self.error(
                        call,
                        ErrorClass::NotSupported,
                        format!("`{kind_str}` with these arguments is not a hybrid loop"),
                    ))
                }
            };
            let for_kind = match kind {
                "parallel" => ForKind::Parallel,
                "vectorize" => ForKind::Vectorized,
                "unroll" => ForKind::Unrolled,
                "bind" => ForKind::Thread(tir::ThreadLaunch {
                    tag: var_name.clone(),
                    dom: None,
                }),
                _ => ForKind::Serial,
            };
            // Loops count from 0, the body reading `var + lo`, as TVM's
            // hybrid parser writes them.
            let var = Var::new(&var_name);
            let value = if lo.is_int(0) {
                var.expr()
            } else {
                Expr::add(var.expr(), lo.clone())
            };
            self.bind(name, Sym::Value(Value::Index(value)));
            let body = self.block(&f.body)?;
            let raw = Expr::sub(hi, lo);
            let extent = arith::Analyzer::new().simplify(&raw).unwrap_or(raw);
            let stmt = Stmt::for_kind(&var, 0, extent, for_kind, Vec::new(), body);
            out.push(
                read_bounds
                    .into_iter()
                    .rev()
                    .fold(stmt, |body, (var, value)| Stmt::LetValue {
                        var,
                        value,
                        body: Box::new(body),
                    }),
            );
        }
        match saved {
            Some(s) => self.bind(name, s),
            None => {
                self.syms.remove(name);
            }
        }
        Ok(())
    }

    /// A loop bound: an index expression, or an integer value read from
    /// memory, bound to a fresh variable listed in `read_bounds`.
    fn loop_bound(
        &self,
        node: &impl Ranged,
        v: &Value,
        read_bounds: &mut Vec<(Var, tir::Value)>,
    ) -> ApiResult<Expr> {
        if let Value::Object(Object::Element(e)) = v {
            if !e.dtype().is_float() && e.dtype() != DataType::Bool {
                let value = self.to_tir(node, e)?;
                let var = Var::new("extent");
                read_bounds.push((var.clone(), value));
                return Ok(var.expr());
            }
        }
        self.index(node, v)
    }

    pub(crate) fn index(&self, node: &impl Ranged, v: &Value) -> ApiResult<Expr> {
        index_of(v).ok_or_else(|| {
            self.error(
                node,
                ErrorClass::TypeError,
                format!("expected an integer expression, found a {}", v.type_name()),
            )
        })
    }

    pub(crate) fn lookup(&mut self, n: &ast::ExprName) -> ApiResult<Value> {
        let name = n.id.as_str();
        match self.syms.get(name) {
            Some(Sym::Value(v)) => return Ok(v.clone()),
            Some(Sym::Local(t)) => {
                let t = Value::Object(Object::Tensor(t.clone()));
                return crate::subscript(&t, &Value::Int(0)).map_err(|e| self.located(n, e));
            }
            None => {}
        }
        if let Some(v) = self.func.and_then(|f| self.host.free_variable(f, name)) {
            // A module of the package stands for the API's.
            if let Some(m) = self
                .host
                .module_path(&v)
                .and_then(|p| crate::namespace::module(&p))
            {
                return Ok(m);
            }
            return Ok(v);
        }
        Err(self.error(
            n,
            ErrorClass::NameError,
            format!("name `{name}` is not defined"),
        ))
    }

    pub(crate) fn binary(
        &self,
        node: &impl Ranged,
        op: BinaryOp,
        a: &Value,
        b: &Value,
    ) -> ApiResult<Value> {
        if let Some(v) = python_arith(op, a, b) {
            return v.map_err(|e| self.located(node, e));
        }
        // An index next to a float is a float (`i + 1.0`).
        if matches!(
            (a, b),
            (Value::Index(_), Value::Float(_)) | (Value::Float(_), Value::Index(_))
        ) {
            return crate::objects::element_binary(op, a, b, None)
                .map_err(|e| self.located(node, e));
        }
        // Division by a float constant is a product, as TVM's hybrid
        // parser writes it.
        if let (BinaryOp::Div, Value::Float(f)) = (op, b) {
            if *f != 0.0 {
                return crate::binary(BinaryOp::Mul, a, &Value::Float(1.0 / f))
                    .map_err(|e| self.located(node, e));
            }
        }
        crate::binary(op, a, b).map_err(|e| self.located(node, e))
    }

    pub(crate) fn call_api(
        &mut self,
        node: &impl Ranged,
        path: &str,
        args: Vec<Value>,
    ) -> ApiResult<Value> {
        let f = crate::resolve(path).expect("an API function");
        crate::call(self.host, &f, crate::Args::positional(args)).map_err(|e| self.located(node, e))
    }

    pub(crate) fn expr(&mut self, e: &ast::Expr) -> ApiResult<Value> {
        tir::stack::grow(|| self.expr_step(e))
    }

    fn expr_step(&mut self, e: &ast::Expr) -> ApiResult<Value> {
        match e {
            ast::Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => i.as_i64().map(Value::Int).ok_or_else(|| {
                    self.error(
                        e,
                        ErrorClass::OverflowError,
                        "integer literal does not fit in 64 bits",
                    )
                }),
                ast::Number::Float(f) => Ok(Value::Float(*f)),
                ast::Number::Complex { .. } => Err(self.error(
                    e,
                    ErrorClass::NotSupported,
                    "complex numbers are not supported",
                )),
            },
            ast::Expr::StringLiteral(s) => Ok(Value::str(s.value.to_str())),
            ast::Expr::BooleanLiteral(b) => Ok(Value::Bool(b.value)),
            ast::Expr::NoneLiteral(_) => Ok(Value::None),
            ast::Expr::Name(n) => self.lookup(n),
            ast::Expr::Tuple(t) => {
                let items = t
                    .elts
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<ApiResult<Vec<_>>>()?;
                Ok(Value::tuple(items))
            }
            ast::Expr::List(l) => {
                let items = l
                    .elts
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<ApiResult<Vec<_>>>()?;
                Ok(Value::list(items))
            }
            ast::Expr::Attribute(a) => {
                let v = self.expr(&a.value)?;
                crate::get_attr(&v, a.attr.as_str()).map_err(|err| self.located(e, err))
            }
            ast::Expr::Subscript(s) => {
                let base = self.expr(&s.value)?;
                let index = self.expr(&s.slice)?;
                // `b[i, j]` of a list is `b[i][j]`.
                if let (Value::List(_) | Value::Tuple(_), Value::Tuple(_)) = (&base, &index) {
                    let mut v = base.clone();
                    for i in index.sequence().unwrap_or_default() {
                        v = self.list_item(e, &v, &i)?;
                    }
                    return Ok(v);
                }
                if let (Some(items), Some(i)) = (
                    matches!(base, Value::List(_) | Value::Tuple(_))
                        .then(|| base.sequence())
                        .flatten(),
                    index_of(&index).and_then(|x| x.as_int()),
                ) {
                    let n = items.len() as i64;
                    let k = if i < 0 { i + n } else { i };
                    return usize::try_from(k)
                        .ok()
                        .and_then(|k| items.get(k).cloned())
                        .ok_or_else(|| {
                            self.error(e, ErrorClass::IndexError, "index out of range")
                        });
                }
                crate::subscript(&base, &index).map_err(|err| self.located(e, err))
            }
            ast::Expr::BinOp(b) => {
                let op = BinaryOp::from_python(b.op).ok_or_else(|| {
                    self.error(
                        e,
                        ErrorClass::NotSupported,
                        format!("`{}` is not supported", b.op.as_str()),
                    )
                })?;
                let x = self.expr(&b.left)?;
                let y = self.expr(&b.right)?;
                self.binary(e, op, &x, &y)
            }
            ast::Expr::UnaryOp(u) => {
                let v = self.expr(&u.operand)?;
                match (u.op, &v) {
                    (ast::UnaryOp::UAdd, _) => Ok(v),
                    (ast::UnaryOp::USub, Value::Int(i)) => Ok(Value::Int(-i)),
                    (ast::UnaryOp::USub, Value::Float(f)) => Ok(Value::Float(-f)),
                    (ast::UnaryOp::USub, _) => {
                        crate::unary(crate::UnaryOp::Neg, &v).map_err(|err| self.located(e, err))
                    }
                    (ast::UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
                    (ast::UnaryOp::Not, _) => {
                        crate::unary(crate::UnaryOp::Not, &v).map_err(|err| self.located(e, err))
                    }
                    (ast::UnaryOp::Invert, _) => {
                        Err(self.error(e, ErrorClass::NotSupported, "`~` is not supported"))
                    }
                }
            }
            ast::Expr::BoolOp(b) => {
                let is_and = matches!(b.op, ast::BoolOp::And);
                let mut acc: Option<Value> = None;
                for x in b.values.iter() {
                    let v = self.expr(x)?;
                    acc = Some(match acc {
                        None => v,
                        Some(Value::Bool(p)) => {
                            if p == is_and {
                                v
                            } else {
                                Value::Bool(p)
                            }
                        }
                        Some(prev) => match v {
                            Value::Bool(q) if q == is_and => prev,
                            Value::Bool(q) => Value::Bool(q),
                            v => self.logic(e, is_and, prev, v)?,
                        },
                    });
                }
                Ok(acc.unwrap_or(Value::Bool(is_and)))
            }
            ast::Expr::Compare(c) => {
                let mut left = self.expr(&c.left)?;
                let mut acc: Option<Value> = None;
                for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
                    let r = self.expr(right)?;
                    let op = crate::compare_from_python(*op).ok_or_else(|| {
                        self.error(
                            e,
                            ErrorClass::NotSupported,
                            format!("`{}` is not supported", op.as_str()),
                        )
                    })?;
                    let v = match python_compare(op, &left, &r) {
                        Some(b) => Value::Bool(b),
                        None => {
                            crate::compare(op, &left, &r).map_err(|err| self.located(e, err))?
                        }
                    };
                    acc = Some(match acc {
                        None => v,
                        Some(Value::Bool(false)) => Value::Bool(false),
                        Some(Value::Bool(true)) => v,
                        Some(prev) => match v {
                            Value::Bool(true) => prev,
                            Value::Bool(false) => Value::Bool(false),
                            v => self.logic(e, true, prev, v)?,
                        },
                    });
                    left = r;
                }
                Ok(acc.unwrap_or(Value::Bool(true)))
            }
            ast::Expr::If(i) => {
                let test = self.expr(&i.test)?;
                match test {
                    Value::Bool(b) => self.expr(if b { &i.body } else { &i.orelse }),
                    cond => {
                        let a = self.expr(&i.body)?;
                        let b = self.expr(&i.orelse)?;
                        self.call_api(e, "tvm.tir.if_then_else", vec![cond, a, b])
                    }
                }
            }
            ast::Expr::Call(c) => self.call(c),
            // `A[i, 0:16]`: a region of a tensor.
            ast::Expr::Slice(s) => {
                let mut bound = |b: &Option<Box<ast::Expr>>| match b {
                    Some(x) => self.expr(x),
                    None => Ok(Value::None),
                };
                let (lower, upper, step) = (bound(&s.lower)?, bound(&s.upper)?, bound(&s.step)?);
                crate::slice(lower, upper, step).map_err(|err| self.located(e, err))
            }
            other => Err(self.error(
                other,
                ErrorClass::NotSupported,
                format!("this expression is not supported in a {}", self.what),
            )),
        }
    }

    fn list_item(&self, node: &impl Ranged, list: &Value, index: &Value) -> ApiResult<Value> {
        let items = match list {
            Value::List(_) | Value::Tuple(_) => list.sequence().unwrap_or_default(),
            other => {
                return crate::subscript(other, index).map_err(|e| self.located(node, e));
            }
        };
        let i = index_of(index).and_then(|x| x.as_int()).ok_or_else(|| {
            self.error(
                node,
                ErrorClass::TypeError,
                "a list index must be a constant integer",
            )
        })?;
        let n = items.len() as i64;
        let k = if i < 0 { i + n } else { i };
        usize::try_from(k)
            .ok()
            .and_then(|k| items.get(k).cloned())
            .ok_or_else(|| self.error(node, ErrorClass::IndexError, "list index out of range"))
    }

    fn call(&mut self, c: &ast::ExprCall) -> ApiResult<Value> {
        if let Some(path) = self.script_path(&c.func) {
            return self.script_expr_call(c, &path);
        }
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            args.push(self.expr(a)?);
        }
        if !c.arguments.keywords.is_empty() {
            return Err(self.error(
                c,
                ErrorClass::NotSupported,
                "keyword arguments are not supported here",
            ));
        }
        if let ast::Expr::Name(n) = &*c.func {
            let name = n.id.as_str();
            if !self.syms.contains_key(name) {
                if let Some(v) = self.intrinsic(c, name, &args)? {
                    return Ok(v);
                }
            }
        }
        let f = self.expr(&c.func)?;
        crate::call(self.host, &f, crate::Args::positional(args)).map_err(|e| self.located(c, e))
    }

    /// The functions of hybrid scripts (TVM's `HYBRID_GLOBALS` and
    /// Python's builtins), `None` for other names.
    fn intrinsic(
        &mut self,
        c: &ast::ExprCall,
        name: &str,
        args: &[Value],
    ) -> ApiResult<Option<Value>> {
        let one = |p: &Self| -> ApiResult<Value> {
            match args {
                [a] => Ok(a.clone()),
                _ => Err(p.error(
                    c,
                    ErrorClass::TypeError,
                    format!("`{name}` takes one argument"),
                )),
            }
        };
        let v = match name {
            "len" => {
                let a = one(self)?;
                match &a {
                    Value::List(_) | Value::Tuple(_) => {
                        Value::Int(a.sequence().unwrap_or_default().len() as i64)
                    }
                    Value::Object(Object::Tensor(t)) => match t.shape().first() {
                        Some(d) => d
                            .as_int()
                            .map_or_else(|| Value::Index(d.clone()), Value::Int),
                        None => {
                            return Err(self.error(
                                c,
                                ErrorClass::TypeError,
                                "`len` of a tensor of no dimensions",
                            ))
                        }
                    },
                    other => Value::Int(crate::len(other).map_err(|e| self.located(c, e))? as i64),
                }
            }
            "sqrt" | "log" | "exp" | "tanh" | "sigmoid" | "power" | "round" | "floor" | "ceil"
            | "abs" | "fabs" | "cos" | "sin" | "erf" | "popcount" | "rsqrt" => {
                // Python numbers fold, as the emulation computes them.
                let path = format!("tvm.tir.{}", if name == "fabs" { "abs" } else { name });
                self.call_api(c, &path, args.to_vec())?
            }
            "min" | "max" => match args {
                [a, b] => {
                    if let Some(v) = python_minmax(name == "min", a, b) {
                        v
                    } else if let (Some(x), Some(y)) = (index_of(a), index_of(b)) {
                        Value::Index(if name == "min" {
                            Expr::min(x, y)
                        } else {
                            Expr::max(x, y)
                        })
                    } else {
                        self.minmax_element(c, name == "min", a, b)?
                    }
                }
                _ => {
                    return Err(self.error(
                        c,
                        ErrorClass::TypeError,
                        format!("`{name}` takes two arguments"),
                    ))
                }
            },
            "ceil_div" => match args {
                [a, b] => {
                    let (x, y) = (self.index(c, a)?, self.index(c, b)?);
                    let e = Expr::floor_div(Expr::sub(Expr::add(x, y.clone()), Expr::int(1)), y);
                    let e = arith::Analyzer::new().simplify(&e).unwrap_or(e);
                    e.as_int().map_or(Value::Index(e), Value::Int)
                }
                _ => {
                    return Err(self.error(
                        c,
                        ErrorClass::TypeError,
                        "`ceil_div` takes two arguments",
                    ))
                }
            },
            "likely" => one(self)?,
            // TVM's limit of the current target; a CPU has one thread.
            "max_num_threads" => {
                let limit = self.host.session().targets.last().and_then(|t| {
                    match t.attr("max_num_threads") {
                        Some(crate::target::AttrValue::Int(n)) => Some(*n),
                        _ => None,
                    }
                });
                Value::Int(limit.unwrap_or(1))
            }
            _ if name.parse::<DataType>().is_ok() && !name.contains('x') => {
                let a = one(self)?;
                let dtype: DataType = name.parse().expect("checked");
                match a {
                    Value::Int(i) if dtype.is_float() => Value::Float(i as f64),
                    Value::Float(f) if dtype.is_int() => Value::Int(f.trunc() as i64),
                    Value::Int(_) | Value::Float(_) => a,
                    other => {
                        let el = crate::objects::to_element(&other, None)
                            .map_err(|e| self.located(c, e))?;
                        Value::Object(Object::Element(te::Value::cast(dtype, el)))
                    }
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// `a and b` / `a or b` of conditions: on indices, or on elements when
    /// either reads a tensor.
    fn logic(&self, node: &impl Ranged, is_and: bool, a: Value, b: Value) -> ApiResult<Value> {
        if let (Some(x), Some(y)) = (index_of(&a), index_of(&b)) {
            return Ok(Value::Index(if is_and {
                Expr::and(x, y)
            } else {
                Expr::or(x, y)
            }));
        }
        let x = crate::objects::to_element(&a, None).map_err(|e| self.located(node, e))?;
        let y = crate::objects::to_element(&b, None).map_err(|e| self.located(node, e))?;
        Ok(Value::Object(Object::Element(if is_and {
            te::Value::and(x, y)
        } else {
            te::Value::or(x, y)
        })))
    }

    /// `min(a, b)` / `max(a, b)` of element values.
    fn minmax_element(
        &self,
        c: &ast::ExprCall,
        is_min: bool,
        a: &Value,
        b: &Value,
    ) -> ApiResult<Value> {
        let x = crate::objects::to_element(a, None).map_err(|e| self.located(c, e))?;
        let y = crate::objects::to_element(b, None).map_err(|e| self.located(c, e))?;
        let op = if is_min {
            te::BinaryOp::Min
        } else {
            te::BinaryOp::Max
        };
        Ok(Value::Object(Object::Element(te::Value::binary(op, x, y))))
    }
}

pub(crate) fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// Python arithmetic on two plain numbers; `None` when a side is not one.
fn python_arith(op: BinaryOp, a: &Value, b: &Value) -> Option<ApiResult<Value>> {
    let overflow = || ApiError::new(ErrorClass::OverflowError, "integer overflow");
    let zero = || ApiError::new(ErrorClass::ZeroDivisionError, "division by zero");
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (x, y) = (*x, *y);
        return Some(match op {
            BinaryOp::Add => x.checked_add(y).map(Value::Int).ok_or_else(overflow),
            BinaryOp::Sub => x.checked_sub(y).map(Value::Int).ok_or_else(overflow),
            BinaryOp::Mul => x.checked_mul(y).map(Value::Int).ok_or_else(overflow),
            BinaryOp::FloorDiv if y == 0 => Err(zero()),
            BinaryOp::FloorDiv => Ok(Value::Int(
                x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0),
            )),
            BinaryOp::Mod if y == 0 => Err(zero()),
            BinaryOp::Mod => Ok(Value::Int(
                x - y * (x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0)),
            )),
            BinaryOp::Div if y == 0 => Err(zero()),
            BinaryOp::Div => Ok(Value::Float(x as f64 / y as f64)),
            BinaryOp::Pow => u32::try_from(y)
                .ok()
                .and_then(|y| x.checked_pow(y))
                .map(Value::Int)
                .ok_or_else(overflow),
        });
    }
    let (x, y) = (as_f64(a)?, as_f64(b)?);
    if !matches!(a, Value::Float(_)) && !matches!(b, Value::Float(_)) {
        return None;
    }
    Some(match op {
        BinaryOp::Add => Ok(Value::Float(x + y)),
        BinaryOp::Sub => Ok(Value::Float(x - y)),
        BinaryOp::Mul => Ok(Value::Float(x * y)),
        BinaryOp::Div if y == 0.0 => Err(zero()),
        BinaryOp::Div => Ok(Value::Float(x / y)),
        BinaryOp::FloorDiv if y == 0.0 => Err(zero()),
        BinaryOp::FloorDiv => Ok(Value::Float((x / y).floor())),
        BinaryOp::Mod if y == 0.0 => Err(zero()),
        BinaryOp::Mod => Ok(Value::Float(x - y * (x / y).floor())),
        BinaryOp::Pow => Ok(Value::Float(x.powf(y))),
    })
}

fn python_compare(op: CmpOp, a: &Value, b: &Value) -> Option<bool> {
    let (x, y) = match (
        index_of(a).and_then(|e| e.as_int()),
        index_of(b).and_then(|e| e.as_int()),
    ) {
        (Some(x), Some(y)) => (x as f64, y as f64),
        _ => (as_f64(a)?, as_f64(b)?),
    };
    Some(match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    })
}

fn python_minmax(is_min: bool, a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            Some(Value::Int(if is_min { *x.min(y) } else { *x.max(y) }))
        }
        _ => {
            let (x, y) = (as_f64(a)?, as_f64(b)?);
            if !matches!(a, Value::Float(_)) && !matches!(b, Value::Float(_)) {
                return None;
            }
            Some(Value::Float(if is_min { x.min(y) } else { x.max(y) }))
        }
    }
}

/// What `te.hybrid.build` returns (TVM's `HybridModule`): a lowered program
/// written as a hybrid script, called as one.
#[derive(Debug)]
pub struct HybridModule {
    /// The function's name.
    pub name: String,
    /// Its source.
    pub source: String,
    pub(crate) parsed: HybridSource,
}

impl HybridModule {
    /// The module of hybrid function source `source`.
    pub fn new(source: &str) -> ApiResult<HybridModule> {
        let parsed = HybridSource::parse(source, 0)?;
        Ok(HybridModule {
            name: parsed.name.clone(),
            source: source.to_string(),
            parsed,
        })
    }
}

/// `te.hybrid.build(sch, inputs, outputs, name="hybrid_func")`: the
/// program of schedule `sch` as a hybrid script over `inputs` (tensors
/// and sizes), writing `outputs`.
pub(crate) fn build(args: crate::Args) -> ApiResult<Value> {
    let a = args.bind("build", &["sch", "inputs", "outputs", "name"])?;
    let s = match &a.required("sch")?.value {
        Value::Object(Object::Schedule(s)) => s.clone(),
        other => {
            return Err(ApiError::type_error(format!(
                "expected a schedule, found a {}",
                other.type_name()
            ))
            .at(crate::ArgRef::Positional(0)))
        }
    };
    let list = |g: &crate::Given| g.value.sequence().unwrap_or_else(|| vec![g.value.clone()]);
    let inputs = list(a.required("inputs")?);
    let outputs = list(a.required("outputs")?);
    let name = match a.get("name").map(|g| &g.value) {
        Some(Value::Str(n)) => n.to_string(),
        _ => "hybrid_func".to_string(),
    };
    let mut tensors = Vec::new();
    let mut kinds = Vec::new();
    for v in &inputs {
        match promote(v) {
            Value::Object(Object::Tensor(t)) => {
                kinds.push(None);
                tensors.push(t);
            }
            Value::Index(e) => match e.kind() {
                arith::ExprKind::Var(var) => kinds.push(Some(var.clone())),
                _ => {
                    return Err(ApiError::type_error(
                        "`te.hybrid.build` takes tensors and variables as inputs",
                    ))
                }
            },
            other => {
                return Err(ApiError::type_error(format!(
                    "`te.hybrid.build` takes tensors and variables as inputs, found a {}",
                    other.type_name()
                )))
            }
        }
    }
    let n_in = tensors.len();
    for v in &outputs {
        match v {
            Value::Object(Object::Tensor(t)) => tensors.push(t.clone()),
            other => {
                return Err(ApiError::type_error(format!(
                    "`te.hybrid.build` writes tensors, found a {}",
                    other.type_name()
                )))
            }
        }
    }
    let lowering = te::Lowering::new(&s.borrow(), &tensors).map_err(ApiError::te)?;
    let func = lowering.program();
    if func.params.len() != tensors.len() {
        return Err(ApiError::not_supported(
            "`te.hybrid.build`: the program's parameters do not match the inputs and outputs",
        ));
    }
    let mut params = Vec::new();
    let mut k = 0;
    for kind in kinds {
        params.push(match kind {
            Some(var) => crate::hybrid_dump::Param::Var(var),
            None => {
                k += 1;
                crate::hybrid_dump::Param::Tensor(func.params[k - 1].clone())
            }
        });
    }
    let source = crate::hybrid_dump::dump(&name, &params, &func.params[n_in..], &func.body)?;
    Ok(Value::Object(Object::HybridModule(Rc::new(
        HybridModule::new(&source)?,
    ))))
}

/// `HybridModule(src, name)`: the module of a hybrid function's source.
pub(crate) fn module_new(args: crate::Args) -> ApiResult<Value> {
    let a = args.bind("HybridModule", &["src", "name"])?;
    match a.get("src").map(|g| &g.value) {
        Some(Value::Str(src)) => Ok(Value::Object(Object::HybridModule(Rc::new(
            HybridModule::new(src)?,
        )))),
        _ => Err(ApiError::not_supported(
            "`HybridModule` needs the source of its function (`HybridModule(src, name)`); \
             loading one from a file needs CPython",
        )),
    }
}

/// Calls the function of module `m`: on tensors, its operation's outputs.
pub(crate) fn call_module(
    host: &mut dyn Host,
    m: &HybridModule,
    args: Vec<Value>,
) -> ApiResult<Value> {
    call_source(host, None, &m.parsed, args)
}
