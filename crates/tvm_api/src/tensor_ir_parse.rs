//! TVMScript functions (`@T.prim_func`) in TensorIR's block form, parsed
//! from their source as TVM's script parser reads them.
//!
//! The function is not run: each statement becomes a statement of a
//! [`tir::block::BlockFunc`]:
//!
//! - parameters are buffers (`A: T.Buffer((128, 128), "float32")`) or
//!   handles bound to buffers by `A = T.match_buffer(a, (m, n))`; sizes
//!   declared by `m = T.int32()` are variables;
//! - `T.alloc_buffer(shape, dtype)` allocates, in the root block or in the
//!   block around it;
//! - `for i, j in T.grid(n, m)`, `range`, `T.serial`, `T.parallel`,
//!   `T.vectorized`, `T.unroll` are loops;
//! - `with T.block(name):` is a block: its iteration variables come from
//!   `T.axis.remap("SSR", [i, j, k])` or `T.axis.spatial(dom, value)` (and
//!   `reduce`, `opaque`), its regions from `T.reads` / `T.writes` (computed
//!   from the body when not written, as TVM's parser completes them), its
//!   predicate from `T.where`, its init from `with T.init():`;
//! - `C[i, j] = v` and `C[i, j] += v` store; `T.evaluate(v)` evaluates;
//! - `x: T.float32 = v` binds a scalar over the rest of its scope (TVM's
//!   `LetStmt`), `with T.LetStmt(v) as x:` over the `with` body;
//! - expressions are those of hybrid scripts, with `T.float32(0)`,
//!   `T.int64(128)`, `T.Cast`, `T.Select`, `T.if_then_else`, `T.max`,
//!   `T.min`, `T.min_value`, `T.max_value` and the math functions.

use crate::error::{ApiResult, ErrorClass};
use crate::hybrid::{index_of, Parser, Sym};
use crate::object::Object;
use crate::value::Value;
use crate::{ApiError, HybridSource};
use arith::{Expr, Range, Var};
use python_ast as ast;
use tir::block::{Block, BlockFunc, BlockIterVar, BlockStmt, BufferRegion, IterKind};
use tir::{Buffer, DataType, ForKind, Stmt};

/// The module whose names a TVMScript function calls (`T`).
const SCRIPT_MODULE: &str = "tvm.script.tir";

/// What the statements of one scope declare besides statements.
#[derive(Default)]
struct Scope {
    /// `T.alloc_buffer` of this scope.
    alloc: Vec<Buffer>,
    /// The block's iteration variables with their values.
    iter_vars: Vec<(BlockIterVar, Expr)>,
    reads: Option<Vec<BufferRegion>>,
    writes: Option<Vec<BufferRegion>>,
    predicate: Option<Expr>,
    init: Option<BlockStmt>,
    annotations: Vec<(String, String)>,
    /// `T.func_attr` (the function's scope only).
    attrs: Option<Vec<(String, String)>>,
    /// Whether this is a block's scope (not the function's).
    in_block: bool,
}

/// The function `source` describes, with its regions completed.
pub(crate) fn parse_prim_func(
    host: &mut dyn crate::Host,
    f: Option<&Value>,
    source: &HybridSource,
) -> ApiResult<BlockFunc> {
    let mut p = Parser::new(host, f, source);
    p.what = "TVMScript function";
    if f.is_none() {
        // Text on its own (`tvm.script.from_source`) uses `T` as printed.
        p.bind(
            "T",
            Sym::Value(Value::Object(Object::Module(SCRIPT_MODULE))),
        );
    }
    let mut params: Vec<ParamSlot> = Vec::new();
    for (k, name) in source.params.iter().enumerate() {
        let annotation = source.annotations.get(k).and_then(Option::as_ref);
        let slot = match annotation {
            Some(a) => match p.script_path(a).as_deref() {
                Some("handle") => ParamSlot::Handle(name.clone(), None),
                Some(t) if t.parse::<DataType>().is_ok_and(|t| t.is_int()) => {
                    let v = Var::new(name);
                    p.bind(name, Sym::Value(Value::Index(v.expr())));
                    ParamSlot::Scalar(v)
                }
                _ => match a {
                    ast::Expr::Call(c) if p.script_path(&c.func).as_deref() == Some("Buffer") => {
                        let buffer = p.buffer_decl(c, name, 0)?;
                        ParamSlot::Buffer(buffer)
                    }
                    other => {
                        return Err(p.error(
                            other,
                            ErrorClass::NotSupported,
                            "a parameter of a TVMScript function is `T.handle` or `T.Buffer(shape, dtype)`",
                        ))
                    }
                },
            },
            None => ParamSlot::Handle(name.clone(), None),
        };
        params.push(slot);
    }
    let mut scope = Scope::default();
    let body = p.script_statements(&source.body, &mut scope, &mut params)?;
    let scalar_params: Vec<(usize, Var)> = params
        .iter()
        .enumerate()
        .filter_map(|(k, slot)| match slot {
            ParamSlot::Scalar(v) => Some((k, v.clone())),
            _ => None,
        })
        .collect();
    let params = params
        .into_iter()
        .filter_map(|slot| match slot {
            ParamSlot::Scalar(_) => None,
            ParamSlot::Buffer(b) | ParamSlot::Handle(_, Some(b)) => Some(Ok(b)),
            ParamSlot::Handle(name, None) => Some(Err(ApiError::new(
                ErrorClass::TypeError,
                format!(
                    "parameter `{name}` of TVMScript function `{}` is a handle not matched to \
                     a buffer: match it (`T.match_buffer({name}, shape)`), or declare a \
                     scalar as `{name}: T.int32`",
                    source.name
                ),
            ))),
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let (mut alloc, mut body) = (scope.alloc, body);
    // `with T.block("root"):` around the whole body is the root block
    // itself, which is otherwise implicit.
    if let BlockStmt::Block(r) = &body {
        if r.block.name == "root" && r.block.iter_vars.is_empty() && r.block.init.is_none() {
            alloc.extend(r.block.alloc_buffers.iter().cloned());
            body = (*r.block.body).clone();
        }
    }
    let mut func = BlockFunc::new(source.name.clone(), params, alloc, body);
    func.scalar_params = scalar_params;
    // TVM's parser names the function by its own name unless its
    // attributes do.
    func.attrs = scope.attrs.unwrap_or_default();
    if !func.attrs.iter().any(|(k, _)| k == "global_symbol") {
        func.attrs
            .push(("global_symbol".into(), format!("\"{}\"", source.name)));
    }
    Ok(func.completed())
}

/// A parameter: a buffer, a scalar, or a handle and the buffer matched to
/// it.
enum ParamSlot {
    Buffer(Buffer),
    Scalar(Var),
    Handle(String, Option<Buffer>),
}

impl Parser<'_, '_> {
    /// The name `T.<path>` calls, when `e` is an attribute of the script
    /// module (`T.axis.remap` is `axis.remap`).
    pub(crate) fn script_path(&mut self, e: &ast::Expr) -> Option<String> {
        let mut parts = Vec::new();
        let mut at = e;
        while let ast::Expr::Attribute(a) = at {
            parts.push(a.attr.as_str());
            at = &a.value;
        }
        let ast::Expr::Name(root) = at else {
            return None;
        };
        if parts.is_empty() {
            return None;
        }
        let value = match self.syms.get(root.id.as_str()) {
            Some(Sym::Value(v)) => v.clone(),
            Some(_) => return None,
            None => self
                .func
                .and_then(|f| self.host.free_variable(f, root.id.as_str()))?,
        };
        if self.host.module_path(&value).as_deref() != Some(SCRIPT_MODULE) {
            return None;
        }
        parts.reverse();
        Some(parts.join("."))
    }

    /// `T.<path>(...)` in an expression.
    pub(crate) fn script_expr_call(&mut self, c: &ast::ExprCall, path: &str) -> ApiResult<Value> {
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            args.push(self.expr(a)?);
        }
        for k in c.arguments.keywords.iter() {
            // The type of a call is its operands'.
            if k.arg.as_ref().map(|a| a.as_str()) != Some("dtype") {
                return Err(self.error(
                    k,
                    ErrorClass::NotSupported,
                    format!("keyword arguments of `T.{path}` are not supported"),
                ));
            }
        }
        if let Ok(dtype) = path.parse::<DataType>() {
            return match (args.as_slice(), dtype.is_float()) {
                ([], _) => Err(self.error(
                    c,
                    ErrorClass::NotSupported,
                    format!("`T.{path}()` declares a size variable: assign it to a name"),
                )),
                ([v], true) => match crate::hybrid::as_f64(v) {
                    Some(x) if dtype == DataType::Float32 => Ok(Value::Float(x)),
                    _ => self.call_api(c, "tvm.tir.Cast", vec![Value::str(path), v.clone()]),
                },
                ([v], false) if index_of(v).is_some() => Ok(v.clone()),
                ([v], false) => self.call_api(c, "tvm.tir.Cast", vec![Value::str(path), v.clone()]),
                _ => Err(self.error(
                    c,
                    ErrorClass::TypeError,
                    format!("`T.{path}` takes one value"),
                )),
            };
        }
        let api = match path {
            "if_then_else" => "tvm.tir.if_then_else",
            "Select" => "tvm.tir.Select",
            "Cast" => "tvm.tir.Cast",
            "max" => "tvm.te.max",
            "min" => "tvm.te.min",
            "min_value" => "tvm.tir.min_value",
            "max_value" => "tvm.tir.max_value",
            "floordiv" => "tvm.tir.floordiv",
            "floormod" => "tvm.tir.floormod",
            "exp" | "log" | "sqrt" | "rsqrt" | "tanh" | "sigmoid" | "round" | "floor" | "ceil"
            | "fabs" | "abs" | "pow" | "erf" | "cos" | "sin" | "exp2" | "log2" | "trunc"
            | "nearbyint" => {
                return self.call_api(c, &format!("tvm.tir.{path}"), args);
            }
            _ => {
                return Err(self.error(
                    c,
                    ErrorClass::NotSupported,
                    format!("`T.{path}` is not supported in a TVMScript expression"),
                ))
            }
        };
        self.call_api(c, api, args)
    }

    /// `T.Buffer(shape, dtype)` / `T.match_buffer(h, shape, dtype)` /
    /// `T.alloc_buffer(shape, dtype)`: a buffer called `name`, bound to
    /// `name` in the body; `first` is the position of the shape.
    fn buffer_decl(&mut self, c: &ast::ExprCall, name: &str, first: usize) -> ApiResult<Buffer> {
        let args = &c.arguments.args;
        let shape_node = args
            .get(first)
            .ok_or_else(|| self.error(c, ErrorClass::TypeError, "a buffer needs a shape"))?;
        let shape_value = self.expr(shape_node)?;
        let dims = match &shape_value {
            Value::Tuple(_) | Value::List(_) => shape_value.sequence().unwrap_or_default(),
            other => vec![other.clone()],
        };
        let shape = dims
            .iter()
            .map(|d| self.index(shape_node, d))
            .collect::<ApiResult<Vec<Expr>>>()?;
        let mut dtype = DataType::Float32;
        let mut dtype_node = args.get(first + 1);
        for k in c.arguments.keywords.iter() {
            match k.arg.as_ref().map(|a| a.as_str()) {
                Some("dtype") => dtype_node = Some(&k.value),
                // Offsets and scopes do not change which elements are
                // touched.
                Some("elem_offset" | "scope" | "offset_factor" | "align") => {}
                _ => {
                    return Err(self.error(
                        k,
                        ErrorClass::NotSupported,
                        "this keyword of a buffer declaration is not supported",
                    ))
                }
            }
        }
        if let Some(d) = dtype_node {
            let v = self.expr(d)?;
            dtype = str_of(&v)
                .and_then(|s| s.parse::<DataType>().ok())
                .ok_or_else(|| {
                    self.error(d, ErrorClass::TypeError, "a data type such as \"float32\"")
                })?;
        }
        let buffer = Buffer::new(name, dtype, shape);
        let t = self.new_tensor(&buffer)?;
        self.bind(name, Sym::Value(Value::Object(Object::Tensor(t))));
        Ok(buffer)
    }

    fn script_statements(
        &mut self,
        body: &[ast::Stmt],
        scope: &mut Scope,
        params: &mut [ParamSlot],
    ) -> ApiResult<BlockStmt> {
        let mut out = Vec::new();
        for (k, s) in body.iter().enumerate() {
            if let ast::Stmt::AnnAssign(a) = s {
                // `x: T.int32 = value`: a `let` whose body is the rest of
                // the scope, as TVM's parser reads it.
                out.push(self.script_ann_assign(a, &body[k + 1..], scope, params)?);
                break;
            }
            self.script_stmt(s, scope, params, &mut out)?;
        }
        Ok(BlockStmt::seq(out))
    }

    /// `name: T.<dtype> = value` followed by the statements `rest`.
    fn script_ann_assign(
        &mut self,
        a: &ast::StmtAnnAssign,
        rest: &[ast::Stmt],
        scope: &mut Scope,
        params: &mut [ParamSlot],
    ) -> ApiResult<BlockStmt> {
        let ast::Expr::Name(n) = &*a.target else {
            return Err(self.error(
                &*a.target,
                ErrorClass::NotSupported,
                "an annotated assignment in a TVMScript function binds a name (`x: T.int32 = value`)",
            ));
        };
        let dtype = self
            .script_path(&a.annotation)
            .and_then(|p| p.parse::<DataType>().ok())
            .ok_or_else(|| {
                self.error(
                    &*a.annotation,
                    ErrorClass::TypeError,
                    "a scalar is annotated with its type, such as `T.int32` or `T.float32`",
                )
            })?;
        let Some(value_node) = a.value.as_deref() else {
            return Err(self.error(
                a,
                ErrorClass::NotSupported,
                format!("`{}` is declared without a value: give it one", n.id),
            ));
        };
        let v = self.expr(value_node)?;
        let value = self.value_of(value_node, &v, dtype)?;
        self.script_let(value_node, n.id.as_str(), dtype, value, |p| {
            p.script_statements(rest, scope, params)
        })
    }

    /// A `let` of `name` to `value` (of type `dtype`) over the statements
    /// `body` parses. An integer is read as an index variable, as sizes
    /// and loop variables are; a float is an element read in values, as a
    /// zero-dimensional tensor while the body parses, then the variable.
    fn script_let(
        &mut self,
        node: &ast::Expr,
        name: &str,
        dtype: DataType,
        value: tir::Value,
        body: impl FnOnce(&mut Self) -> ApiResult<BlockStmt>,
    ) -> ApiResult<BlockStmt> {
        let have = value.dtype();
        // Indices have no width of their own: any integer value binds an
        // integer variable.
        if have != dtype && !(have.is_int() && dtype.is_int()) {
            return Err(self.error(
                node,
                ErrorClass::TypeError,
                format!("`{name}` is declared {dtype} but its value is {have}"),
            ));
        }
        let var = Var::new(name);
        let body = if dtype.is_float() {
            let holder = Buffer::new(name, dtype, Vec::<Expr>::new());
            let t = self.new_tensor(&holder)?;
            self.bind(
                name,
                Sym::Value(Value::Object(Object::Element(
                    t.at(std::iter::empty::<Expr>()),
                ))),
            );
            let body = body(self)?;
            let mut reads = HolderAsVar {
                holder: &holder,
                var: &var,
            };
            let Ok(body) = body.map_values(&mut reads);
            body
        } else {
            self.bind(name, Sym::Value(Value::Index(var.expr())));
            body(self)?
        };
        Ok(BlockStmt::let_stmt(&var, dtype, value, body))
    }

    fn script_stmt(
        &mut self,
        s: &ast::Stmt,
        scope: &mut Scope,
        params: &mut [ParamSlot],
        out: &mut Vec<BlockStmt>,
    ) -> ApiResult<()> {
        match s {
            ast::Stmt::Pass(_) => Ok(()),
            ast::Stmt::Expr(e) => match &*e.value {
                ast::Expr::StringLiteral(_) => Ok(()),
                ast::Expr::Call(c) => match self.script_path(&c.func) {
                    Some(path) => self.script_directive(c, &path, scope, out),
                    None => Err(self.error(
                        c,
                        ErrorClass::NotSupported,
                        "a call in a TVMScript function must be one of `T`'s",
                    )),
                },
                other => Err(self.error(
                    other,
                    ErrorClass::NotSupported,
                    "this statement is not supported in a TVMScript function",
                )),
            },
            ast::Stmt::Assign(a) => self.script_assign(a, scope, params, out),
            ast::Stmt::AugAssign(a) => {
                let op = crate::BinaryOp::from_python(a.op).ok_or_else(|| {
                    self.error(a, ErrorClass::NotSupported, "this update is not supported")
                })?;
                let old = self.expr(&a.target)?;
                let rhs = self.expr(&a.value)?;
                let new = self.binary(a, op, &old, &rhs)?;
                self.script_store(&a.target, new, out)
            }
            ast::Stmt::For(f) => self.script_for(f, scope, params, out),
            ast::Stmt::With(w) => self.script_with(w, scope, params, out),
            ast::Stmt::If(i) => {
                let c = self.expr(&i.test)?;
                let cond = self.condition(&i.test, &c)?;
                let then_case = self.script_statements(&i.body, scope, params)?;
                let else_case =
                    match i.elif_else_clauses.as_slice() {
                        [] => None,
                        [clause] if clause.test.is_none() => Some(Box::new(
                            self.script_statements(&clause.body, scope, params)?,
                        )),
                        _ => {
                            return Err(self.error(
                                i,
                                ErrorClass::NotSupported,
                                "`elif` is not supported in a TVMScript function",
                            ))
                        }
                    };
                out.push(BlockStmt::If {
                    cond,
                    then_case: Box::new(then_case),
                    else_case,
                });
                Ok(())
            }
            other => Err(self.error(
                other,
                ErrorClass::NotSupported,
                "this statement is not supported in a TVMScript function",
            )),
        }
    }

    /// `T.func_attr`, `T.reads`, `T.writes`, `T.where`, `T.block_attr`,
    /// `T.evaluate` as statements.
    fn script_directive(
        &mut self,
        c: &ast::ExprCall,
        path: &str,
        scope: &mut Scope,
        out: &mut Vec<BlockStmt>,
    ) -> ApiResult<()> {
        match path {
            "func_attr" | "block_attr" => {
                let dict = c.arguments.args.first().ok_or_else(|| {
                    self.error(c, ErrorClass::TypeError, format!("`T.{path}` takes a dict"))
                })?;
                let ast::Expr::Dict(d) = dict else {
                    return Err(self.error(
                        dict,
                        ErrorClass::TypeError,
                        format!("`T.{path}` takes a dict"),
                    ));
                };
                let mut pairs = Vec::new();
                for item in d.items.iter() {
                    let key = item.key.as_ref().ok_or_else(|| {
                        self.error(dict, ErrorClass::NotSupported, "`**` in a dict")
                    })?;
                    let key = self.expr(key)?;
                    let value = self.expr(&item.value)?;
                    let key = str_of(&key).ok_or_else(|| {
                        self.error(dict, ErrorClass::TypeError, "attribute names are strings")
                    })?;
                    pairs.push((key, annotation_text(&value)));
                }
                if path == "func_attr" {
                    scope.attrs = Some(pairs);
                } else {
                    scope.annotations = pairs;
                }
                Ok(())
            }
            "reads" | "writes" => {
                if !scope.in_block {
                    return Err(self.error(
                        c,
                        ErrorClass::TypeError,
                        format!("`T.{path}` belongs in a block"),
                    ));
                }
                let mut regions = Vec::new();
                for a in c.arguments.args.iter() {
                    let v = self.expr(a)?;
                    let items = match &v {
                        Value::List(_) | Value::Tuple(_) => v.sequence().unwrap_or_default(),
                        _ => vec![v],
                    };
                    for item in items {
                        regions.push(self.region(a, &item)?);
                    }
                }
                if path == "reads" {
                    scope.reads = Some(regions);
                } else {
                    scope.writes = Some(regions);
                }
                Ok(())
            }
            "where" => {
                let arg = c.arguments.args.first().ok_or_else(|| {
                    self.error(c, ErrorClass::TypeError, "`T.where` takes a condition")
                })?;
                let v = self.expr(arg)?;
                let e = match &v {
                    Value::Bool(b) => Expr::bool(*b),
                    other => index_of(other).ok_or_else(|| {
                        self.error(
                            arg,
                            ErrorClass::TypeError,
                            "a block predicate is a condition on indices",
                        )
                    })?,
                };
                scope.predicate = Some(e);
                Ok(())
            }
            "evaluate" => {
                let arg = c.arguments.args.first().ok_or_else(|| {
                    self.error(c, ErrorClass::TypeError, "`T.evaluate` takes a value")
                })?;
                let v = self.expr(arg)?;
                let v = self.value_of(arg, &v, DataType::Int32)?;
                out.push(BlockStmt::Evaluate(v));
                Ok(())
            }
            _ => Err(self.error(
                c,
                ErrorClass::NotSupported,
                format!("`T.{path}` is not supported as a statement of a TVMScript function"),
            )),
        }
    }

    /// A region `T.reads` / `T.writes` names: an element or a slice.
    fn region(&self, node: &ast::Expr, v: &Value) -> ApiResult<BufferRegion> {
        let (tensor, region): (te::Tensor, Vec<Range>) = match v {
            Value::Object(Object::TensorSlice(t, region)) => (t.clone(), region.to_vec()),
            Value::Object(Object::Tensor(t)) => (
                t.clone(),
                t.shape()
                    .iter()
                    .map(|d| Range::from_extent(d.clone()))
                    .collect(),
            ),
            Value::Object(Object::Element(e)) => match e.kind() {
                te::ValueKind::Load(t, idx) => (
                    t.clone(),
                    idx.iter()
                        .map(|i| Range::new(i.clone(), Expr::int(1)))
                        .collect(),
                ),
                _ => {
                    return Err(self.error(
                        node,
                        ErrorClass::TypeError,
                        "a region is a buffer element or slice",
                    ))
                }
            },
            _ => {
                return Err(self.error(
                    node,
                    ErrorClass::TypeError,
                    "a region is a buffer element or slice",
                ))
            }
        };
        let buffer = self
            .buffers
            .get(&(tensor.op().id(), tensor.value_index()))
            .cloned()
            .ok_or_else(|| {
                self.error(
                    node,
                    ErrorClass::TypeError,
                    "a region of a buffer of the function",
                )
            })?;
        Ok(BufferRegion { buffer, region })
    }

    /// A value stored or evaluated, of type `dtype` when it is a number.
    fn value_of(&self, node: &ast::Expr, v: &Value, dtype: DataType) -> ApiResult<tir::Value> {
        match crate::objects::promote(v) {
            Value::Object(Object::Element(e)) => self.to_tir(node, &e),
            Value::Float(f) => Ok(tir::Value::constant(f, dtype)),
            Value::Int(i) => Ok(tir::Value::constant(i as f64, dtype)),
            Value::Index(e) => Ok(tir::Value::index(e)),
            other => Err(self.error(
                node,
                ErrorClass::TypeError,
                format!("expected a value, found a {}", other.type_name()),
            )),
        }
    }

    fn script_store(
        &mut self,
        target: &ast::Expr,
        value: Value,
        out: &mut Vec<BlockStmt>,
    ) -> ApiResult<()> {
        let mut stmts = Vec::new();
        self.store(target, value, &mut stmts)?;
        for s in stmts {
            match &s {
                Stmt::BufferStore {
                    buffer,
                    indices,
                    value,
                    ..
                } => out.push(BlockStmt::Store {
                    buffer: buffer.clone(),
                    indices: indices.clone(),
                    value: value.clone(),
                }),
                _ => return Err(self.error(
                    target,
                    ErrorClass::NotSupported,
                    "a store at an index read at run time is not supported in a TVMScript function",
                )),
            }
        }
        Ok(())
    }

    fn script_assign(
        &mut self,
        a: &ast::StmtAssign,
        scope: &mut Scope,
        params: &mut [ParamSlot],
        out: &mut Vec<BlockStmt>,
    ) -> ApiResult<()> {
        let [target] = a.targets.as_slice() else {
            return Err(self.error(
                a,
                ErrorClass::NotSupported,
                "chained assignment is not supported",
            ));
        };
        if let ast::Expr::Subscript(_) = target {
            let v = self.expr(&a.value)?;
            return self.script_store(target, v, out);
        }
        // `m, n = T.int32(), T.int32()`: size variables.
        if let (ast::Expr::Tuple(names), ast::Expr::Tuple(values)) = (target, &*a.value) {
            if names.elts.len() == values.elts.len()
                && values.elts.iter().all(|v| self.is_size_declaration(v))
            {
                for name in names.elts.iter() {
                    let ast::Expr::Name(n) = name else {
                        return Err(self.error(
                            name,
                            ErrorClass::TypeError,
                            "assign a size variable to a name",
                        ));
                    };
                    let v = Var::new(n.id.as_str());
                    self.bind(n.id.as_str(), Sym::Value(Value::Index(v.expr())));
                }
                return Ok(());
            }
        }
        let call = match &*a.value {
            ast::Expr::Call(c) => self.script_path(&c.func).map(|p| (c, p)),
            _ => None,
        };
        let name = |t: &ast::Expr| match t {
            ast::Expr::Name(n) => Some(n.id.to_string()),
            _ => None,
        };
        match call {
            Some((c, path)) if path == "match_buffer" => {
                let target_name = name(target).ok_or_else(|| {
                    self.error(target, ErrorClass::TypeError, "assign a buffer to a name")
                })?;
                let handle = match c.arguments.args.first() {
                    Some(ast::Expr::Name(h)) => h.id.to_string(),
                    _ => {
                        return Err(self.error(
                            c,
                            ErrorClass::TypeError,
                            "`T.match_buffer` takes a handle parameter",
                        ))
                    }
                };
                let buffer = self.buffer_decl(c, &target_name, 1)?;
                let slot = params.iter_mut().find_map(|p| match p {
                    ParamSlot::Handle(h, b @ None) if *h == handle => Some(b),
                    _ => None,
                });
                match slot {
                    Some(b) => {
                        *b = Some(buffer);
                        Ok(())
                    }
                    None => Err(self.error(
                        c,
                        ErrorClass::TypeError,
                        format!("`{handle}` is not a handle parameter that is not matched yet"),
                    )),
                }
            }
            Some((c, path)) if path == "alloc_buffer" => {
                let target_name = name(target).ok_or_else(|| {
                    self.error(target, ErrorClass::TypeError, "assign a buffer to a name")
                })?;
                let buffer = self.buffer_decl(c, &target_name, 0)?;
                scope.alloc.push(buffer);
                Ok(())
            }
            Some((c, path))
                if c.arguments.args.is_empty()
                    && path.parse::<DataType>().is_ok_and(|t| t.is_int()) =>
            {
                let target_name = name(target).ok_or_else(|| {
                    self.error(
                        target,
                        ErrorClass::TypeError,
                        "assign a size variable to a name",
                    )
                })?;
                let v = Var::new(&target_name);
                self.bind(&target_name, Sym::Value(Value::Index(v.expr())));
                Ok(())
            }
            Some((c, path)) if path == "axis.remap" => self.axis_remap(target, c, scope),
            Some((c, path)) if path.starts_with("axis.") => {
                let kind = match &path[5..] {
                    "spatial" | "S" => IterKind::Spatial,
                    "reduce" | "R" => IterKind::Reduce,
                    "opaque" => IterKind::Opaque,
                    other => {
                        return Err(self.error(
                            c,
                            ErrorClass::NotSupported,
                            format!("`T.axis.{other}` is not supported"),
                        ))
                    }
                };
                let target_name = name(target).ok_or_else(|| {
                    self.error(
                        target,
                        ErrorClass::TypeError,
                        "assign a block variable to a name",
                    )
                })?;
                let [dom_node, value_node] = &c.arguments.args[..] else {
                    return Err(self.error(
                        c,
                        ErrorClass::TypeError,
                        format!("`T.{path}` takes a domain and a value"),
                    ));
                };
                let dom_value = self.expr(dom_node)?;
                let dom = match &dom_value {
                    Value::Tuple(_) | Value::List(_) => {
                        let items = dom_value.sequence().unwrap_or_default();
                        let [lo, hi] = &items[..] else {
                            return Err(self.error(
                                dom_node,
                                ErrorClass::TypeError,
                                "a domain is an extent or (min, max)",
                            ));
                        };
                        Range::half_open(self.index(dom_node, lo)?, self.index(dom_node, hi)?)
                    }
                    Value::Object(Object::Range(r)) => r.clone(),
                    other => Range::from_extent(self.index(dom_node, other)?),
                };
                let value = self.expr(value_node)?;
                let value = self.index(value_node, &value)?;
                self.block_var(&target_name, dom, kind, value, scope);
                Ok(())
            }
            _ => {
                // A name for a value of the script's own (`off = te.var(...)`).
                let v = self.expr(&a.value)?;
                match target {
                    ast::Expr::Name(n) => {
                        self.bind(n.id.as_str(), Sym::Value(v));
                        Ok(())
                    }
                    other => Err(self.error(
                        other,
                        ErrorClass::NotSupported,
                        "this assignment is not supported in a TVMScript function",
                    )),
                }
            }
        }
    }

    /// Whether `e` is `T.int32()` (or another integer type): a size
    /// variable's declaration.
    fn is_size_declaration(&mut self, e: &ast::Expr) -> bool {
        match e {
            ast::Expr::Call(c) if c.arguments.args.is_empty() => self
                .script_path(&c.func)
                .is_some_and(|p| p.parse::<DataType>().is_ok_and(|t| t.is_int())),
            _ => false,
        }
    }

    fn block_var(
        &mut self,
        name: &str,
        dom: Range,
        kind: IterKind,
        value: Expr,
        scope: &mut Scope,
    ) {
        let v = Var::new(name);
        self.bind(name, Sym::Value(Value::Index(v.expr())));
        scope
            .iter_vars
            .push((BlockIterVar::new(&v, dom, kind), value));
    }

    /// `vi, vj = T.axis.remap("SS", [i, j])`: one block variable per loop,
    /// over the loop's range.
    fn axis_remap(
        &mut self,
        target: &ast::Expr,
        c: &ast::ExprCall,
        scope: &mut Scope,
    ) -> ApiResult<()> {
        let names: Vec<String> = match target {
            ast::Expr::Tuple(t) => t
                .elts
                .iter()
                .map(|e| match e {
                    ast::Expr::Name(n) => Ok(n.id.to_string()),
                    other => {
                        Err(self.error(other, ErrorClass::TypeError, "block variables are names"))
                    }
                })
                .collect::<ApiResult<_>>()?,
            ast::Expr::Name(n) => vec![n.id.to_string()],
            other => {
                return Err(self.error(other, ErrorClass::TypeError, "block variables are names"))
            }
        };
        let [kinds_node, loops_node] = &c.arguments.args[..] else {
            return Err(self.error(
                c,
                ErrorClass::TypeError,
                "`T.axis.remap` takes kinds and loop variables",
            ));
        };
        let kinds = self.expr(kinds_node)?;
        let kinds = str_of(&kinds).ok_or_else(|| {
            self.error(
                kinds_node,
                ErrorClass::TypeError,
                "the kinds are a string such as \"SSR\"",
            )
        })?;
        let loops = self.expr(loops_node)?;
        let loops = loops.sequence().unwrap_or_else(|| vec![loops.clone()]);
        if kinds.chars().count() != names.len() || loops.len() != names.len() {
            return Err(self.error(
                c,
                ErrorClass::TypeError,
                "`T.axis.remap` needs one kind and one loop variable per block variable",
            ));
        }
        for ((name, kind), l) in names.iter().zip(kinds.chars()).zip(&loops) {
            let kind = IterKind::from_letter(kind).ok_or_else(|| {
                self.error(
                    kinds_node,
                    ErrorClass::TypeError,
                    format!("`{kind}` is not a kind (S, R or O)"),
                )
            })?;
            let e = self.index(loops_node, l)?;
            let dom = e
                .as_var()
                .and_then(|v| self.loop_ranges.get(v).cloned())
                .ok_or_else(|| {
                    self.error(
                        loops_node,
                        ErrorClass::TypeError,
                        format!("`{e}` is not a loop variable"),
                    )
                })?;
            self.block_var(name, dom, kind, e, scope);
        }
        Ok(())
    }

    fn script_for(
        &mut self,
        f: &ast::StmtFor,
        scope: &mut Scope,
        params: &mut [ParamSlot],
        out: &mut Vec<BlockStmt>,
    ) -> ApiResult<()> {
        let ast::Expr::Call(call) = &*f.iter else {
            return Err(self.error(
                &*f.iter,
                ErrorClass::NotSupported,
                "a loop runs over `T.grid`, `range` or `T.serial`",
            ));
        };
        let kind = match &*call.func {
            ast::Expr::Name(n) if n.id.as_str() == "range" && !self.syms.contains_key("range") => Some(ForKind::Serial),
            _ => match self.script_path(&call.func).as_deref() {
                Some("serial") => Some(ForKind::Serial),
                Some("parallel") => Some(ForKind::Parallel),
                Some("vectorized") => Some(ForKind::Vectorized),
                Some("unroll") => Some(ForKind::Unrolled),
                Some("grid") => None,
                _ => return Err(self.error(&*call.func, ErrorClass::NotSupported, "a loop runs over `T.grid`, `range`, `T.serial`, `T.parallel`, `T.vectorized` or `T.unroll`")),
            },
        };
        let mut args = Vec::new();
        for a in call.arguments.args.iter() {
            let v = self.expr(a)?;
            args.push(self.index(a, &v)?);
        }
        let targets: Vec<&ast::Expr> = match &*f.target {
            ast::Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let ranges: Vec<Range> = match kind {
            None => args.into_iter().map(Range::from_extent).collect(),
            Some(_) => match &args[..] {
                [n] => vec![Range::from_extent(n.clone())],
                [lo, hi] => vec![Range::half_open(lo.clone(), hi.clone())],
                _ => {
                    return Err(self.error(
                        call,
                        ErrorClass::TypeError,
                        "a loop takes an extent, or a start and an end",
                    ))
                }
            },
        };
        if ranges.len() != targets.len() {
            return Err(self.error(
                &*f.target,
                ErrorClass::TypeError,
                "one loop variable per extent of `T.grid`",
            ));
        }
        let mut vars = Vec::new();
        for (t, r) in targets.iter().zip(&ranges) {
            let ast::Expr::Name(n) = t else {
                return Err(self.error(*t, ErrorClass::TypeError, "a loop variable is a name"));
            };
            let v = Var::new(n.id.as_str());
            self.bind(n.id.as_str(), Sym::Value(Value::Index(v.expr())));
            self.loop_ranges.insert(v.clone(), r.clone());
            vars.push(v);
        }
        let mut body = self.script_statements(&f.body, scope, params)?;
        for (v, r) in vars.into_iter().zip(ranges).rev() {
            body = BlockStmt::For {
                var: v,
                min: r.min,
                extent: r.extent,
                kind: kind.clone().unwrap_or_default(),
                body: Box::new(body),
            };
        }
        out.push(body);
        Ok(())
    }

    fn script_with(
        &mut self,
        w: &ast::StmtWith,
        scope: &mut Scope,
        params: &mut [ParamSlot],
        out: &mut Vec<BlockStmt>,
    ) -> ApiResult<()> {
        let [item] = w.items.as_slice() else {
            return Err(self.error(w, ErrorClass::NotSupported, "one `with` item at a time"));
        };
        let ast::Expr::Call(c) = &item.context_expr else {
            return Err(self.error(
                &item.context_expr,
                ErrorClass::NotSupported,
                "`with T.block(...)` or `with T.init()`",
            ));
        };
        match self.script_path(&c.func).as_deref() {
            Some("LetStmt") => {
                // `with T.LetStmt(value) as x:`, how TVM prints a `let`
                // that does not end its scope.
                let Some(ast::Expr::Name(n)) = item.optional_vars.as_deref() else {
                    return Err(self.error(
                        c,
                        ErrorClass::NotSupported,
                        "`with T.LetStmt(value) as name:` binds a name",
                    ));
                };
                let [value_node] = &c.arguments.args[..] else {
                    return Err(self.error(
                        c,
                        ErrorClass::NotSupported,
                        "`T.LetStmt` takes one value",
                    ));
                };
                let v = self.expr(value_node)?;
                let value = self.value_of(value_node, &v, DataType::Int32)?;
                let dtype = value.dtype();
                let stmt = self.script_let(value_node, n.id.as_str(), dtype, value, |p| {
                    p.script_statements(&w.body, scope, params)
                })?;
                out.push(stmt);
                Ok(())
            }
            Some("init") => {
                if !scope.in_block {
                    return Err(self.error(
                        c,
                        ErrorClass::TypeError,
                        "`T.init()` belongs in a block",
                    ));
                }
                let mut inner = Scope {
                    in_block: false,
                    ..Scope::default()
                };
                let init = self.script_statements(&w.body, &mut inner, params)?;
                scope.init = Some(init);
                Ok(())
            }
            Some("block") => {
                let name = match c.arguments.args.first() {
                    Some(n) => {
                        let v = self.expr(n)?;
                        str_of(&v).ok_or_else(|| {
                            self.error(n, ErrorClass::TypeError, "a block name is a string")
                        })?
                    }
                    None => String::new(),
                };
                let mut inner = Scope {
                    in_block: true,
                    ..Scope::default()
                };
                let body = self.script_statements(&w.body, &mut inner, params)?;
                let (iter_vars, bindings): (Vec<_>, Vec<_>) = inner.iter_vars.into_iter().unzip();
                let detect_access = inner.reads.is_none() && inner.writes.is_none();
                let mut block = Block::new(name, iter_vars, body);
                block.reads = inner.reads.unwrap_or_default();
                block.writes = inner.writes.unwrap_or_default();
                block.detect_access = detect_access;
                block.init = inner.init.map(Box::new);
                block.alloc_buffers = inner.alloc;
                block.annotations = inner.annotations;
                let mut realize = BlockStmt::realize(bindings, block);
                if let (Some(p), BlockStmt::Block(r)) = (inner.predicate, &mut realize) {
                    r.predicate = p;
                }
                out.push(realize);
                Ok(())
            }
            _ => Err(self.error(
                c,
                ErrorClass::NotSupported,
                "`with T.block(...)` or `with T.init()`",
            )),
        }
    }
}

/// Reads of the zero-dimensional buffer a float `let` was parsed as,
/// as the variable.
struct HolderAsVar<'a> {
    holder: &'a Buffer,
    var: &'a Var,
}

impl tir::mutate::Mutator for HolderAsVar<'_> {
    type Error = std::convert::Infallible;

    fn value(&mut self, v: &tir::Value) -> Result<tir::Value, Self::Error> {
        match v {
            tir::Value::Load(l) if l.buffer.id() == self.holder.id() => {
                Ok(tir::Value::var(self.var, self.holder.dtype()))
            }
            _ => tir::mutate::walk_value(self, v),
        }
    }
}

/// A block or function attribute's value as TVMScript writes it.
fn annotation_text(v: &Value) -> String {
    match v {
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Str(s) => format!("\"{s}\""),
        Value::List(_) | Value::Tuple(_) => {
            let items: Vec<String> = v
                .sequence()
                .unwrap_or_default()
                .iter()
                .map(annotation_text)
                .collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(Object::Tensor(t)) => t.name().to_string(),
        other => other.to_string(),
    }
}

/// The text of a Python str.
fn str_of(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}
