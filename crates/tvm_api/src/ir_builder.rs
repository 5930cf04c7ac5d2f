//! `tvm.tir.ir_builder`: statements built by calls, as TOPI's extern
//! operators (`scatter_nd`, `cumsum`, sorting) write their bodies.
//!
//! The builder keeps TVM's stack of statement sequences: `for_range`,
//! `while_loop`, `if_scope`, `else_scope` and `new_scope` open a sequence
//! that their
//! `with` block fills and closes into one statement; `allocate` and `let`
//! wrap the rest of the sequence they are emitted in; `ib.get()` closes
//! the outermost. A `BufferVar` (`ib.buffer_ptr(buf)`, `ib.allocate(...)`)
//! reads an element with `x[i]` and emits a store with `x[i] = v`; one
//! index into a buffer of several dimensions is unravelled over its shape
//! (TVM's `unravel_index`), and an index read from memory is bound to a
//! variable around the store, as a scatter needs.
//!
//! Element values are built by the API's own operators on a placeholder
//! standing for each buffer, then turned into loads of the buffers
//! ([`te::element_to_buffers`]), so their types follow TVM's rules.

use crate::args::Args;
use crate::error::{not_supported, type_error, ApiError, ApiResult, At, ErrorClass};
use crate::object::Object;
use crate::objects::{element, promote, to_element};
use crate::value::Value;
use arith::{Expr, Var};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use tir::{Buffer, DataType, ForKind, Stmt};

/// One entry of a sequence being built.
#[derive(Clone, Debug)]
enum Item {
    /// A statement.
    Stmt(Stmt),
    /// `allocate`: holds the buffer over the rest of the sequence.
    Allocate(Buffer),
    /// `let`: binds the variable over the rest of the sequence.
    Let(Var, LetValue),
}

/// What a `let` binds: an index expression, or an integer read from
/// memory.
#[derive(Clone, Debug)]
enum LetValue {
    Index(Expr),
    Loaded(tir::Value),
}

/// `tvm.tir.ir_builder.create()`.
#[derive(Debug, Default)]
pub struct IrBuilder {
    /// The sequences open, outermost first (TVM's `_seq_stack`).
    seqs: Vec<Vec<Item>>,
    /// How many loops were named by default (`i`, `j`, `k`, `i_0`, ...).
    nidx: usize,
    /// The buffer each stand-in placeholder of a `BufferVar` reads.
    buffers: HashMap<te::OpId, Buffer>,
}

/// A `with` scope of a builder: what `as` binds, and the statement its
/// sequence closes into.
#[derive(Debug)]
pub struct Scope {
    builder: Rc<RefCell<IrBuilder>>,
    kind: ScopeKind,
    /// Whether the scope was closed (its `with` block ended).
    closed: Cell<bool>,
}

#[derive(Debug)]
enum ScopeKind {
    For {
        var: Var,
        begin: Expr,
        extent: Expr,
        kind: ForKind,
        /// Bounds read from memory (`nkeep[0] - j`), each bound to a
        /// variable on entry to the loop, as TVM evaluates them once.
        read_bounds: Vec<(Var, tir::Value)>,
    },
    If(tir::Value),
    While(tir::Value),
    Else {
        cond: tir::Value,
        then_case: Stmt,
    },
    New,
}

/// A buffer as the builder reads and writes it (TVM's `BufferVar`).
#[derive(Debug)]
pub struct BufferVar {
    builder: Rc<RefCell<IrBuilder>>,
    buffer: Buffer,
    /// The placeholder standing for the buffer in element values.
    stand_in: te::Tensor,
}

impl IrBuilder {
    /// A builder with one empty sequence.
    pub fn new() -> IrBuilder {
        IrBuilder {
            seqs: vec![Vec::new()],
            ..IrBuilder::default()
        }
    }

    fn emit(&mut self, item: Item) -> ApiResult<()> {
        match self.seqs.last_mut() {
            Some(seq) => {
                seq.push(item);
                Ok(())
            }
            None => Err(ApiError::new(
                ErrorClass::RuntimeError,
                "this IR builder's statement was already taken with `get()`",
            )),
        }
    }

    /// TVM's `_pop_seq`: the last sequence as one statement, each
    /// `allocate` and `let` holding over what follows it.
    fn pop_seq(&mut self) -> Stmt {
        let seq = self.seqs.pop().unwrap_or_default();
        let mut rest: Vec<Stmt> = Vec::new();
        let wrap = |mut rest: Vec<Stmt>| {
            rest.reverse();
            match <[Stmt; 1]>::try_from(rest) {
                Ok([one]) => one,
                Err(many) => Stmt::seq(many),
            }
        };
        for item in seq.into_iter().rev() {
            match item {
                Item::Stmt(s) => rest.push(s),
                Item::Allocate(b) => {
                    let body = wrap(std::mem::take(&mut rest));
                    rest.push(Stmt::allocate(&b, b.shape().to_vec(), body));
                }
                Item::Let(var, value) => {
                    let body = Box::new(wrap(std::mem::take(&mut rest)));
                    rest.push(match value {
                        LetValue::Index(value) => Stmt::Let { var, value, body },
                        LetValue::Loaded(value) => Stmt::LetValue { var, value, body },
                    });
                }
            }
        }
        wrap(rest)
    }

    /// A placeholder standing for `buffer` in element values.
    fn stand_in(&mut self, buffer: &Buffer) -> ApiResult<te::Tensor> {
        let t = te::placeholder(buffer.shape().to_vec(), buffer.name(), buffer.dtype())
            .map_err(ApiError::te)?;
        self.buffers.insert(t.op().id(), buffer.clone());
        Ok(t)
    }

    /// `v` as a value over the builder's buffers.
    fn to_tir(&self, v: &te::Value) -> ApiResult<tir::Value> {
        te::element_to_buffers(v, &|t| self.buffers.get(&t.op().id()).cloned()).map_err(|e| {
            ApiError::new(
                ErrorClass::TypeError,
                format!(
                    "an IR builder's statement reads only its buffers (`ib.buffer_ptr(...)`, \
                     `ib.allocate(...)`): {e}"
                ),
            )
        })
    }
}

impl Scope {
    /// What `with scope as x` binds.
    pub(crate) fn entered(&self) -> Value {
        match &self.kind {
            ScopeKind::For { var, .. } => Value::Index(var.expr()),
            _ => Value::None,
        }
    }

    /// Closes the scope (at the end of its `with` block): its sequence
    /// becomes one statement of the enclosing one.
    pub(crate) fn close(&self) -> ApiResult<()> {
        if self.closed.replace(true) {
            return Ok(());
        }
        let mut b = self.builder.borrow_mut();
        let body = b.pop_seq();
        let stmt = match &self.kind {
            ScopeKind::For {
                var,
                begin,
                extent,
                kind,
                read_bounds,
            } => read_bounds.iter().rev().fold(
                Stmt::for_kind(
                    var,
                    begin.clone(),
                    extent.clone(),
                    kind.clone(),
                    Vec::new(),
                    body,
                ),
                |body, (v, value)| Stmt::LetValue {
                    var: v.clone(),
                    value: value.clone(),
                    body: Box::new(body),
                },
            ),
            ScopeKind::If(cond) => Stmt::IfThenElse {
                cond: cond.clone(),
                then_case: Box::new(body),
                else_case: None,
            },
            ScopeKind::While(cond) => Stmt::while_loop(cond.clone(), body),
            ScopeKind::Else { cond, then_case } => Stmt::IfThenElse {
                cond: cond.clone(),
                then_case: Box::new(then_case.clone()),
                else_case: Some(Box::new(body)),
            },
            ScopeKind::New => body,
        };
        b.emit(Item::Stmt(stmt))
    }
}

fn builder_value(b: &Rc<RefCell<IrBuilder>>, buffer: Buffer) -> ApiResult<Value> {
    let stand_in = b.borrow_mut().stand_in(&buffer)?;
    Ok(Value::Object(Object::BufferVar(Rc::new(BufferVar {
        builder: b.clone(),
        buffer,
        stand_in,
    }))))
}

fn scope(b: &Rc<RefCell<IrBuilder>>, kind: ScopeKind) -> ApiResult<Value> {
    b.borrow_mut().seqs.push(Vec::new());
    Ok(Value::Object(Object::IrScope(Rc::new(Scope {
        builder: b.clone(),
        kind,
        closed: Cell::new(false),
    }))))
}

/// A bound of `for_range`: an index expression, or an integer value read
/// from memory, bound to a fresh variable listed in `read_bounds`.
fn loop_bound(
    b: &Rc<RefCell<IrBuilder>>,
    v: &Value,
    what: &str,
    read_bounds: &mut Vec<(Var, tir::Value)>,
) -> ApiResult<Expr> {
    if let Value::Object(Object::Element(e)) = promote(v) {
        if !e.dtype().is_float() && e.dtype() != DataType::Bool {
            let value = b.borrow().to_tir(&e)?;
            let var = Var::new(what);
            read_bounds.push((var.clone(), value));
            return Ok(var.expr());
        }
    }
    index(v, what)
}

/// An index argument (a bound of `for_range`, a shape).
fn index(v: &Value, what: &str) -> ApiResult<Expr> {
    crate::operators::as_index(&promote(v)).ok_or_else(|| {
        not_supported(
            None,
            format!(
                "`{what}` must be an integer expression here, found a {}",
                v.type_name()
            ),
        )
    })
}

/// The condition of `ib.<method>(cond)` (`if_scope`, `while_loop`) as a
/// value over the builder's buffers.
fn condition(b: &IrBuilder, method: &str, v: &Value) -> ApiResult<tir::Value> {
    match promote(v) {
        Value::Bool(x) => Ok(tir::Value::index(Expr::bool(x))),
        Value::Index(e) if e.ty() == arith::Type::Bool => Ok(tir::Value::index(e)),
        Value::Object(Object::Element(e)) if e.dtype() == DataType::Bool => b.to_tir(&e),
        other => Err(type_error(
            None,
            format!(
                "`{method}` needs a condition such as `i < n`, found a {}",
                other.type_name()
            ),
        )),
    }
}

fn string_arg(v: Option<&crate::args::Given>, default: &str) -> ApiResult<String> {
    match v.map(|g| &g.value) {
        None | Some(Value::None) => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(type_error(
            v.and_then(|g| g.place()),
            format!("expected a string, found a {}", other.type_name()),
        )),
    }
}

fn dtype_arg(g: &crate::args::Given) -> ApiResult<DataType> {
    let name = string_arg(Some(g), "")?;
    name.parse::<DataType>()
        .map_err(|e| type_error(g.place(), e.to_string()))
}

/// The methods of a builder.
pub(crate) fn call_method(b: &Rc<RefCell<IrBuilder>>, name: &str, args: Args) -> ApiResult<Value> {
    match name {
        "emit" => {
            let a = args.bind("emit", &["stmt"])?;
            let g = a.required("stmt")?;
            let stmt = crate::extern_api::to_stmt(&g.value, g.place(), false)?;
            b.borrow_mut().emit(Item::Stmt(stmt))?;
            Ok(Value::None)
        }
        "get" => {
            args.bind("get", &[])?;
            let mut builder = b.borrow_mut();
            if builder.seqs.len() != 1 {
                return Err(ApiError::new(
                    ErrorClass::RuntimeError,
                    if builder.seqs.is_empty() {
                        "this IR builder's statement was already taken with `get()`"
                    } else {
                        "cannot call get inside construction scope"
                    },
                ));
            }
            Ok(Value::Object(Object::IrStmt(Rc::new(builder.pop_seq()))))
        }
        "for_range" => {
            let a = args.bind("for_range", &["begin", "end", "name", "dtype", "kind"])?;
            let mut read_bounds = Vec::new();
            let begin = loop_bound(b, &a.required("begin")?.value, "begin", &mut read_bounds)?;
            let end = loop_bound(b, &a.required("end")?.value, "end", &mut read_bounds)?;
            let mut name = string_arg(a.get("name"), "i")?;
            let kind = match string_arg(a.get("kind"), "serial")?.as_str() {
                "serial" => ForKind::Serial,
                "parallel" => ForKind::Parallel,
                "vectorize" => ForKind::Vectorized,
                "unroll" => ForKind::Unrolled,
                other => {
                    return Err(ApiError::value_error(format!(
                        "Unknown kind `{other}`: use \"serial\", \"parallel\", \"vectorize\" \
                         or \"unroll\""
                    )))
                }
            };
            if name == "i" {
                let mut builder = b.borrow_mut();
                name = match builder.nidx {
                    n @ 0..=2 => char::from(b'i' + n as u8).to_string(),
                    n => format!("i_{}", n - 3),
                };
                builder.nidx += 1;
            }
            let extent = if begin.as_int() == Some(0) {
                end
            } else {
                Expr::sub(end, begin.clone())
            };
            scope(
                b,
                ScopeKind::For {
                    var: Var::new(name),
                    begin,
                    extent,
                    kind,
                    read_bounds,
                },
            )
        }
        "if_scope" => {
            let a = args.bind("if_scope", &["cond"])?;
            let cond = condition(&b.borrow(), "if_scope", &a.required("cond")?.value)?;
            scope(b, ScopeKind::If(cond))
        }
        "while_loop" => {
            let a = args.bind("while_loop", &["cond"])?;
            let cond = condition(&b.borrow(), "while_loop", &a.required("cond")?.value)?;
            scope(b, ScopeKind::While(cond))
        }
        "else_scope" => {
            args.bind("else_scope", &[])?;
            let prev = {
                let mut builder = b.borrow_mut();
                let last = builder.seqs.last_mut().and_then(|s| s.pop());
                let taken = match &last {
                    Some(Item::Stmt(Stmt::IfThenElse {
                        cond,
                        then_case,
                        else_case: None,
                    })) => Some((cond.clone(), (**then_case).clone())),
                    _ => None,
                };
                match taken {
                    Some(p) => p,
                    None => {
                        if let (Some(item), Some(seq)) = (last, builder.seqs.last_mut()) {
                            seq.push(item);
                        }
                        return Err(ApiError::new(
                            ErrorClass::RuntimeError,
                            "else_scope can only follow an if_scope",
                        ));
                    }
                }
            };
            scope(
                b,
                ScopeKind::Else {
                    cond: prev.0,
                    then_case: prev.1,
                },
            )
        }
        "new_scope" => {
            args.bind("new_scope", &[])?;
            scope(b, ScopeKind::New)
        }
        "let" => {
            let a = args.bind("let", &["var_name", "value"])?;
            let name = string_arg(Some(a.required("var_name")?), "")?;
            let g = a.required("value")?;
            let var = Var::new(name);
            let value = match promote(&g.value) {
                Value::Index(e) => LetValue::Index(e),
                Value::Object(Object::Element(e)) if e.dtype().is_int() => {
                    LetValue::Loaded(b.borrow().to_tir(&e)?)
                }
                other => {
                    return Err(not_supported(
                        g.place(),
                        format!(
                            "`let` of a {} is not supported: bind an integer",
                            match &other {
                                Value::Object(Object::Element(e)) => e.dtype().name(),
                                o => o.type_name(),
                            }
                        ),
                    ))
                }
            };
            b.borrow_mut().emit(Item::Let(var.clone(), value))?;
            Ok(Value::Index(var.expr()))
        }
        "allocate" => {
            let a = args.bind(
                "allocate",
                &["dtype", "shape", "name", "axis_separators", "scope"],
            )?;
            let dtype = dtype_arg(a.required("dtype")?)?;
            let shape_arg = a.required("shape")?;
            let dims = shape_arg
                .value
                .sequence()
                .unwrap_or_else(|| vec![shape_arg.value.clone()]);
            let shape = dims
                .iter()
                .map(|d| index(d, "shape"))
                .collect::<ApiResult<Vec<_>>>()?;
            let name = string_arg(a.get("name"), "buf")?;
            let scope = string_arg(a.get("scope"), "global")?;
            let buffer = Buffer::new(name, dtype, shape).with_scope(scope);
            b.borrow_mut().emit(Item::Allocate(buffer.clone()))?;
            builder_value(b, buffer)
        }
        "pointer" => {
            let a = args.bind("pointer", &["content_type", "name", "scope"])?;
            let dtype = dtype_arg(a.required("content_type")?)?;
            let name = string_arg(a.get("name"), "ptr")?;
            builder_value(b, Buffer::new(name, dtype, vec![Expr::int(1)]))
        }
        "buffer_ptr" => {
            let a = args.bind("buffer_ptr", &["buf", "shape"])?;
            let g = a.required("buf")?;
            match &g.value {
                Value::Object(Object::DeclBuffer(buffer, _)) => builder_value(b, buffer.clone()),
                other => Err(type_error(
                    g.place(),
                    format!(
                        "`buffer_ptr` takes a buffer (`tvm.tir.decl_buffer`, an extern \
                         operation's `ins`/`outs`), found a {}",
                        other.type_name()
                    ),
                )),
            }
        }
        "likely" => {
            let a = args.bind("likely", &["expr"])?;
            Ok(a.required("expr")?.value.clone())
        }
        "scope_attr" => Err(not_supported(
            None,
            format!("`ib.{name}` is not supported by rangefinder's IR builder"),
        )),
        _ => Err(type_error(
            None,
            format!("an IRBuilder has no method `{name}`"),
        )),
    }
}

/// `ib.name`: the builder's methods.
pub(crate) fn attribute(value: &Value, name: &str, span: At) -> ApiResult<Value> {
    const METHODS: &[&str] = &[
        "emit",
        "get",
        "for_range",
        "if_scope",
        "else_scope",
        "new_scope",
        "let",
        "allocate",
        "pointer",
        "buffer_ptr",
        "likely",
        "scope_attr",
        "while_loop",
    ];
    match (value, METHODS.iter().find(|m| **m == name)) {
        (Value::Object(Object::IrBuilder(_)), Some(m)) => {
            Ok(Value::Method(Rc::new(value.clone()), m))
        }
        (Value::Object(Object::BufferVar(v)), _) if name == "dtype" => {
            Ok(Value::str(v.buffer.dtype().name()))
        }
        (Value::Object(Object::BufferVar(v)), _) if name == "asobject" => Ok(Value::Method(
            Rc::new(Value::Object(Object::BufferVar(v.clone()))),
            "asobject",
        )),
        _ => Err(crate::error::error(
            ErrorClass::AttributeError,
            span,
            format!(
                "a {} has no attribute `{name}` that rangefinder supports",
                value.type_name()
            ),
        )),
    }
}

impl BufferVar {
    /// TVM's `_normalize_index`: the indices of `index` (a tuple or one
    /// value), one index into a buffer of several dimensions unravelled
    /// over its shape.
    fn indices(&self, index: &Value) -> ApiResult<Vec<Value>> {
        let items = match index {
            Value::Tuple(_) | Value::List(_) => index.sequence().unwrap_or_default(),
            other => vec![other.clone()],
        };
        let mut items: Vec<Value> = items.iter().map(promote).collect();
        let shape = self.buffer.shape();
        if items.len() == 1 && shape.len() != 1 {
            let mut idx = items.pop().unwrap_or(Value::Int(0));
            let mut out = Vec::with_capacity(shape.len());
            for (i, dim) in shape.iter().rev().enumerate() {
                let dim = match dim.as_int() {
                    Some(d) => Value::Int(d),
                    None => Value::Index(dim.clone()),
                };
                if matches!(dim, Value::Int(0)) {
                    out.push(Value::Int(0));
                } else if i == shape.len() - 1 {
                    out.push(idx.clone());
                } else {
                    let div = |f: crate::Function| {
                        crate::functions::integer_division(
                            f,
                            Args::positional(vec![idx.clone(), dim.clone()]),
                        )
                    };
                    out.push(div(crate::Function::FloorMod)?);
                    idx = div(crate::Function::FloorDiv)?;
                }
            }
            out.reverse();
            items = out;
        }
        if items.len() != shape.len() {
            return Err(ApiError::new(
                ErrorClass::IndexError,
                format!(
                    "`{}` has {} dimensions but {} indices were given",
                    self.buffer.name(),
                    shape.len(),
                    items.len()
                ),
            ));
        }
        Ok(items)
    }

    /// `x[index]`: the element, read from the buffer.
    pub(crate) fn load(&self, index: &Value) -> ApiResult<Value> {
        let items = self.indices(index)?;
        let mut fixed = Vec::with_capacity(items.len());
        for v in &items {
            match crate::operators::as_index(v) {
                Some(e) => fixed.push(e),
                None => {
                    // An index read from memory: a gather.
                    let at = items
                        .iter()
                        .map(|v| to_element(v, None))
                        .collect::<ApiResult<Vec<_>>>()?;
                    return Ok(element(te::Value::gather(&self.stand_in, at)));
                }
            }
        }
        Ok(element(self.stand_in.at(fixed)))
    }

    /// `x[index] = value`: emits the store.
    pub(crate) fn store(&self, index: &Value, value: &Value) -> ApiResult<()> {
        let items = self.indices(index)?;
        let content = self.buffer.dtype();
        // A Python number is `tvm.tir.const(value)`: int32 or float32.
        let value = match promote(value) {
            Value::Int(i) => te::Value::int(i),
            Value::Bool(x) => te::Value::cast(DataType::Bool, te::Value::int(i64::from(x))),
            Value::Float(f) => crate::objects::float_constant(f, DataType::Float32),
            other => to_element(&other, None)?,
        };
        let found = match value.kind() {
            te::ValueKind::Index(_) if value.dtype() == DataType::Int32 => DataType::Int32,
            _ => value.dtype(),
        };
        // An integer index value goes into an int64 buffer: the index
        // expressions here carry no width, so `tvm.tir.const(0, "int64")`
        // (TOPI's exclusive `cumsum` of int64) is one of them.
        let widened = found == DataType::Int32
            && content == DataType::Int64
            && matches!(value.kind(), te::ValueKind::Index(_));
        if found != content && !widened {
            return Err(ApiError::value_error(format!(
                "data type does not match content type {} vs {}",
                found.name(),
                content.name()
            )));
        }
        let builder = self.builder.borrow();
        let value = builder.to_tir(&value)?;
        let mut lets = Vec::new();
        let mut indices = Vec::with_capacity(items.len());
        for v in &items {
            match crate::operators::as_index(v) {
                Some(e) => indices.push(e),
                None => {
                    let e = to_element(v, None)?;
                    if !e.dtype().is_int() {
                        return Err(type_error(
                            None,
                            format!("an index must be an integer, found a {} value", e.dtype()),
                        ));
                    }
                    let var = Var::new(format!("{}_index{}", self.buffer.name(), indices.len()));
                    lets.push((var.clone(), builder.to_tir(&e)?));
                    indices.push(var.expr());
                }
            }
        }
        drop(builder);
        let store = Stmt::BufferStore {
            buffer: self.buffer.clone(),
            indices,
            value,
            stage: self.buffer.name().to_string(),
        };
        self.builder
            .borrow_mut()
            .emit(Item::Stmt(store.with_index_lets(lets)))
    }

    /// The buffer (`x.asobject()`).
    pub(crate) fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}
