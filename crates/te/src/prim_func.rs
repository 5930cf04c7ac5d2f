//! `te.create_prim_func`: a TE program as a function in TensorIR's block
//! form, as TVM's `CreatePrimFunc` builds it.
//!
//! Each compute becomes one loop nest over its axes, then its reduction
//! axes, around one block per output: the block's iteration variables
//! (`v_i`, spatial or reduction) are bound to the loops, the block stores
//! its element and, for a reduction, starts from the reducer's identity in
//! its init. A reduction by a `te.comm_reducer` over tuples (argmax) is
//! one block for all its outputs: the init stores each identity, the
//! update binds every combined value to a `let` (`v_argmax_v0: T.int32 =
//! ...`) before storing them, so each is computed from the old values.
//! Each block's reads and writes are the regions its body
//! touches ([`tir::block::complete_regions`]). Tensors among the arguments
//! are the parameters, in order; the others are buffers of the root block.

use crate::error::{ErrorKind, Result, TeError};
use crate::lower::binop;
use crate::operation::{AttrValue, OpKind, Operation, Tensor};
use crate::read_graph::{create_read_graph, post_order_dfs};
use crate::value::{Value as TeValue, ValueKind};
use crate::IterKind as TeIterKind;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;
use tir::block::{Block, BlockFunc, BlockIterVar, BlockStmt, IterKind};
use tir::{Buffer, DataType, Value};

/// The block form of the program that computes `args`' outputs from its
/// inputs; `args` lists every input and output, in the function's
/// parameter order.
///
/// ```
/// let a = te::placeholder([16, 16], "A", tir::DataType::Float32).unwrap();
/// let b = te::compute([16, 16], |i| a.at([&i[0], &i[1]]) * 2.0, "B").unwrap();
/// let f = te::create_prim_func(&[a, b]).unwrap();
/// let block = f.blocks()[0];
/// assert_eq!(block.name, "B");
/// assert_eq!(block.reads[0].to_string(), "A[v_i0, v_i1]");
/// ```
pub fn create_prim_func(args: &[Tensor]) -> Result<BlockFunc> {
    let all: Vec<PrimFuncArg> = args.iter().cloned().map(PrimFuncArg::Tensor).collect();
    create_prim_func_with_scalars(&all)
}

/// A parameter of [`create_prim_func_with_scalars`].
#[derive(Clone, Debug)]
pub enum PrimFuncArg {
    /// A tensor: a buffer parameter.
    Tensor(Tensor),
    /// A variable of the program passed as a number (`n: T.int32`).
    Scalar(Var),
}

/// [`create_prim_func`] with scalar parameters among the tensors, in
/// order (TVM's `te.create_prim_func([A, n, B])`).
pub fn create_prim_func_with_scalars(all: &[PrimFuncArg]) -> Result<BlockFunc> {
    create_prim_func_with_index_dtype(all, None)
}

/// [`create_prim_func_with_scalars`] with TVM's `index_dtype_override`:
/// indices are integers of any width here, so what the override changes
/// is the one place a width is written in an index, the integer casts
/// that compute a data-dependent index (`A[int32(round(x))]` becomes
/// `A[int64(round(x))]`), as TVM's index type rewriter casts them.
///
/// ```
/// use te::PrimFuncArg;
/// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
/// let b = te::compute([8], |i| {
///     let at = te::Value::cast(tir::DataType::Int32, te::Value::from(i[0].clone()) * 0.5);
///     te::Value::gather(&a, vec![at])
/// }, "B").unwrap();
/// let all = [PrimFuncArg::Tensor(a), PrimFuncArg::Tensor(b)];
/// let f = te::create_prim_func_with_index_dtype(&all, Some(tir::DataType::Int64)).unwrap();
/// assert!(tir::block::block_tvmscript(&f).contains("T.Cast(\"int64\""));
/// ```
pub fn create_prim_func_with_index_dtype(
    all: &[PrimFuncArg],
    index_dtype: Option<DataType>,
) -> Result<BlockFunc> {
    let args: Vec<Tensor> = all
        .iter()
        .filter_map(|a| match a {
            PrimFuncArg::Tensor(t) => Some(t.clone()),
            PrimFuncArg::Scalar(_) => None,
        })
        .collect();
    let args = args.as_slice();
    let roots: Vec<Operation> = args.iter().map(|t| t.op().clone()).collect();
    let order = post_order_dfs(&roots, &create_read_graph(&roots))?;
    let mut b = Builder {
        args,
        buffers: HashMap::new(),
        root_alloc: Vec::new(),
        names: HashMap::new(),
        an: Analyzer::new(),
        layout_free: std::collections::BTreeSet::new(),
        index_dtype,
    };
    let mut stmts = Vec::new();
    for op in &order {
        match op.kind() {
            OpKind::Scan(_) => return Err(unsupported("ScanOp")),
            OpKind::Extern(_) => return Err(unsupported("ExternOp")),
            OpKind::TensorCompute(_) => return Err(unsupported("TensorComputeOp")),
            OpKind::Placeholder | OpKind::Compute(_) => {}
        }
    }
    for op in &order {
        match op.kind() {
            OpKind::Placeholder => {
                let t = op.output();
                if !b.is_arg(&t) {
                    return Err(TeError::definition(format!(
                        "the placeholder `{}` is read but is not among the function's \
                         arguments: pass it to `create_prim_func`",
                        t.name()
                    )));
                }
                b.buffer_of(&t);
            }
            OpKind::Compute(_) => stmts.push(b.compute(op)?),
            // Refused above.
            OpKind::Scan(_) | OpKind::Extern(_) | OpKind::TensorCompute(_) => {}
        }
    }
    let params = args.iter().map(|t| b.buffer_of(t)).collect();
    let mut func = BlockFunc::new("main", params, b.root_alloc, BlockStmt::seq(stmts));
    func.scalar_params = all
        .iter()
        .enumerate()
        .filter_map(|(k, a)| match a {
            PrimFuncArg::Scalar(v) => Some((k, v.clone())),
            PrimFuncArg::Tensor(_) => None,
        })
        .collect();
    if !b.layout_free.is_empty() {
        let indices: Vec<String> = b.layout_free.iter().map(ToString::to_string).collect();
        func.attrs.push((
            "layout_free_buffers".into(),
            format!("[{}]", indices.join(", ")),
        ));
    }
    Ok(func.completed())
}

/// TVM's message for an operation `create_prim_func` does not take.
fn unsupported(kind: &str) -> TeError {
    TeError::new(
        ErrorKind::Unsupported,
        format!(
            "Unsupported Operation: {kind}. Only te.placeholder and te.compute are allowed for now."
        ),
    )
}

struct Builder<'a> {
    args: &'a [Tensor],
    buffers: HashMap<(crate::operation::OpId, usize), Buffer>,
    root_alloc: Vec<Buffer>,
    names: HashMap<String, usize>,
    an: Analyzer,
    /// Parameters some compute declares layout free (by position).
    layout_free: std::collections::BTreeSet<usize>,
    /// The width of indices, when overridden (`index_dtype_override`).
    index_dtype: Option<DataType>,
}

/// Operation attributes TVM's `CreatePrimFunc` does not keep on blocks.
const DROPPED_ATTRS: &[&str] = &[
    "const_matrix",
    "auto_scheduler_simplify_const_tensor_indices",
    "workload",
];

impl Builder<'_> {
    /// The position of `t` among the tensor arguments.
    fn arg_position(&self, t: &Tensor) -> Option<usize> {
        self.args
            .iter()
            .position(|a| a.op().id() == t.op().id() && a.value_index() == t.value_index())
    }

    fn is_arg(&self, t: &Tensor) -> bool {
        self.arg_position(t).is_some()
    }

    /// The buffer of `t`, declared on first use; a tensor that is not an
    /// argument is allocated by the root block.
    fn buffer_of(&mut self, t: &Tensor) -> Buffer {
        let key = (t.op().id(), t.value_index());
        if let Some(b) = self.buffers.get(&key) {
            return b.clone();
        }
        let b = Buffer::new(t.name(), t.dtype(), t.shape().to_vec());
        if !self.is_arg(t) {
            self.root_alloc.push(b.clone());
        }
        self.buffers.insert(key, b.clone());
        b
    }

    /// `name`, or `name_1`, `name_2`... when taken (TVM's `NameSupply`).
    fn fresh_name(&mut self, name: &str) -> String {
        let n = self.names.entry(name.to_string()).or_insert(0);
        let fresh = if *n == 0 {
            name.to_string()
        } else {
            format!("{name}_{n}")
        };
        *n += 1;
        fresh
    }

    /// The block annotations of `op`'s attributes, as TVM keeps them:
    /// tensors are their buffers, and a parameter declared layout free
    /// (`layout_free_placeholders`) moves to the function's
    /// `layout_free_buffers`.
    fn annotations(&mut self, op: &Operation) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (key, value) in op.attrs() {
            if DROPPED_ATTRS.contains(&key.as_str()) {
                continue;
            }
            let value = match (key.as_str(), value) {
                ("layout_free_placeholders", AttrValue::List(items)) => {
                    let mut kept = Vec::new();
                    for item in items {
                        let param = match item {
                            AttrValue::Tensor(t) => self.arg_position(t),
                            _ => None,
                        };
                        match param {
                            Some(k) => {
                                self.layout_free.insert(k);
                            }
                            None => kept.push(item.clone()),
                        }
                    }
                    if kept.is_empty() {
                        continue;
                    }
                    AttrValue::List(kept)
                }
                _ => value.clone(),
            };
            out.push((key.clone(), self.annotation_text(&value)));
        }
        out
    }

    /// An attribute value as TVMScript writes it.
    fn annotation_text(&self, v: &AttrValue) -> String {
        match v {
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(x) => format!("{x:?}"),
            AttrValue::Str(s) => format!("\"{s}\""),
            AttrValue::None => "None".to_string(),
            AttrValue::Expr(e) => e.to_string(),
            AttrValue::Tensor(t) => self
                .buffers
                .get(&(t.op().id(), t.value_index()))
                .map_or_else(|| t.name().to_string(), |b| b.name().to_string()),
            AttrValue::List(items) => {
                let items: Vec<String> = items.iter().map(|x| self.annotation_text(x)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }

    fn compute(&mut self, op: &Operation) -> Result<BlockStmt> {
        let c = op.as_compute().expect("a compute");
        let axes: Vec<&crate::IterVar> = c.axis.iter().chain(&c.reduce_axis).collect();
        let levels = nested_levels(op, &axes)?;
        let kind_of = |axis: &crate::IterVar| match axis.kind() {
            TeIterKind::Reduce => IterKind::Reduce,
            _ => IterKind::Spatial,
        };
        // One scope per level: the loops of the axes first defined there,
        // and a block variable for every axis defined so far (TVM's
        // `NestedScopeInfo`).
        let mut scopes: Vec<Scope> = Vec::with_capacity(levels.len());
        for (i, level) in levels.iter().enumerate() {
            let mut cur = Scope::default();
            for (j, axis) in axes.iter().enumerate() {
                let block_var = Var::new(format!("v_{}", axis.name()));
                if level.contains(&j) {
                    let dom = axis.dom().cloned().ok_or_else(|| {
                        TeError::definition(format!("the axis `{}` has no range", axis.name()))
                    })?;
                    let (min, extent) = match scopes.last() {
                        Some(prev) => (prev.substitute(&dom.min), prev.substitute(&dom.extent)),
                        None => (dom.min.clone(), dom.extent.clone()),
                    };
                    let dom = Range::new(self.simplify(&min), self.simplify(&extent));
                    let loop_var = Var::new(axis.name());
                    cur.loops.push((loop_var.clone(), dom.clone()));
                    cur.add(
                        Some(axis),
                        BlockIterVar::new(&block_var, dom, kind_of(axis)),
                        loop_var.expr(),
                    );
                } else if let Some(prev) = scopes.last().and_then(|p| p.remap.get(axis.var())) {
                    let prev = prev.clone();
                    let dom = Range::new(prev.clone(), Expr::int(1));
                    cur.add(
                        Some(axis),
                        BlockIterVar::new(&block_var, dom, kind_of(axis)),
                        prev,
                    );
                }
            }
            if i + 1 == levels.len() && cur.iter_vars.is_empty() {
                // A block has at least one iteration variable (TVM's `vi`).
                let vi = Var::new("vi");
                let dom = Range::from_extent(Expr::int(1));
                cur.add(
                    None,
                    BlockIterVar::new(&vi, dom, IterKind::Spatial),
                    Expr::int(0),
                );
            }
            scopes.push(cur);
        }
        let annotations = self.annotations(op);
        let outputs: Vec<Tensor> = op.outputs();
        let buffers: Vec<Buffer> = outputs.iter().map(|t| self.buffer_of(t)).collect();
        let reduce = match c.body.kind() {
            ValueKind::Reduce(r) => Some(Reduction::Builtin(r.clone())),
            ValueKind::CommReduce(r) => Some(Reduction::Comm(r.clone())),
            _ => None,
        };
        let leaf = scopes.last().expect("at least one level");
        let mut blocks = Vec::new();
        if let Some(r) = &reduce {
            let mut body = self.reduction_update(op, r, &buffers, leaf)?;
            if let Some(cond) = r.condition() {
                // `where=`: only the points where it holds are combined.
                let cond = self.simplify(&leaf.substitute(cond));
                body = BlockStmt::If {
                    cond: Value::index(cond),
                    then_case: Box::new(body),
                    else_case: None,
                };
            }
            let init = self.reduction_init(r, &buffers, leaf)?;
            let name = self.fresh_name(op.name());
            let mut block = Block::new(name, leaf.iter_vars.clone(), body).with_init(init);
            block.annotations = annotations.clone();
            blocks.push(BlockStmt::realize(leaf.bindings.clone(), block));
        } else {
            for (k, buffer) in buffers.iter().enumerate() {
                let body = op.body(k).expect("one body per output");
                let leaf_k = if k == 0 {
                    leaf.clone()
                } else {
                    leaf.renewed(&axes)
                };
                let value = operand(self.value(body, &leaf_k.remap)?, buffer.dtype());
                let name = self.fresh_name(buffer.name());
                let store = BlockStmt::store(buffer, leaf_k.store_indices.clone(), value);
                let mut block = Block::new(name, leaf_k.iter_vars.clone(), store);
                block.annotations = annotations.clone();
                blocks.push(BlockStmt::realize(leaf_k.bindings.clone(), block));
            }
        }
        let mut stmt = BlockStmt::seq(blocks);
        for i in (0..scopes.len()).rev() {
            let cur = &scopes[i];
            if i + 1 < scopes.len() {
                let name = self.fresh_name(&format!("{}_l{}", op.name(), i + 1));
                let mut block = Block::new(name, cur.iter_vars.clone(), stmt);
                if let Some(r) = &reduce {
                    if cur.iter_vars.iter().any(|v| v.kind == IterKind::Reduce) {
                        // A reduction axis defined here makes this block a
                        // reduction too: it starts from the identity.
                        let init = self.reduction_init(r, &buffers, cur)?;
                        block = block.with_init(init);
                    }
                }
                block.annotations = annotations.clone();
                stmt = BlockStmt::realize(cur.bindings.clone(), block);
            }
            for (var, dom) in cur.loops.iter().rev() {
                stmt = BlockStmt::For {
                    var: var.clone(),
                    min: dom.min.clone(),
                    extent: dom.extent.clone(),
                    kind: tir::ForKind::Serial,
                    body: Box::new(stmt),
                };
            }
        }
        Ok(stmt)
    }

    /// The init of a reduction block at `scope`: each output starts from
    /// the reducer's identity (TVM's `GenerateInitStmt`).
    fn reduction_init(
        &self,
        r: &Reduction,
        buffers: &[Buffer],
        scope: &Scope,
    ) -> Result<BlockStmt> {
        match r {
            Reduction::Builtin(r) => Ok(init_store(
                &buffers[0],
                &scope.store_indices,
                r.reducer.identity(buffers[0].dtype()),
            )),
            Reduction::Comm(r) => {
                let mut stores = Vec::with_capacity(buffers.len());
                for (identity, buffer) in r.combiner().identity().iter().zip(buffers) {
                    let value = operand(self.value(identity, &scope.remap)?, buffer.dtype());
                    stores.push(BlockStmt::store(buffer, scope.store_indices.clone(), value));
                }
                Ok(BlockStmt::seq(stores))
            }
        }
    }

    /// The update of a reduction's leaf block (TVM's `GenerateBodyStmt`):
    /// the accumulated values are the outputs at the block's point, the
    /// new ones the sources. With several outputs every combined value is
    /// bound to a `let` (`v_<output>`) before any is stored, so each is
    /// computed from the old values.
    fn reduction_update(
        &self,
        op: &Operation,
        r: &Reduction,
        buffers: &[Buffer],
        leaf: &Scope,
    ) -> Result<BlockStmt> {
        let indices = &leaf.store_indices;
        let r = match r {
            Reduction::Builtin(r) => {
                let buffer = &buffers[0];
                let dtype = buffer.dtype();
                let lhs = Value::load(buffer, indices.clone());
                let rhs = operand(self.value(&r.source, &leaf.remap)?, dtype);
                let combined = Value::binary(binop(r.reducer.combiner(), dtype.is_int()), lhs, rhs);
                return Ok(BlockStmt::store(buffer, indices.clone(), combined));
            }
            Reduction::Comm(r) => r,
        };
        let axis: Vec<Expr> = op
            .as_compute()
            .expect("a compute")
            .axis
            .iter()
            .map(crate::IterVar::expr)
            .collect();
        let acc: Vec<TeValue> = op.outputs().iter().map(|t| t.at(axis.clone())).collect();
        let combiner = r.combiner();
        let mut combined = Vec::with_capacity(buffers.len());
        for (k, buffer) in buffers.iter().enumerate() {
            let value = combiner.combine(k, &acc, r.sources());
            combined.push(operand(self.value(&value, &leaf.remap)?, buffer.dtype()));
        }
        if let ([buffer], [value]) = (buffers, combined.as_slice()) {
            return Ok(BlockStmt::store(buffer, indices.clone(), value.clone()));
        }
        let temps: Vec<Var> = buffers
            .iter()
            .map(|b| Var::new(format!("v_{}", b.name())))
            .collect();
        let stores = buffers
            .iter()
            .zip(&temps)
            .map(|(b, v)| BlockStmt::store(b, indices.clone(), Value::var(v, b.dtype())))
            .collect();
        let mut body = BlockStmt::seq(stores);
        for ((v, b), value) in temps.iter().zip(buffers).zip(combined).rev() {
            body = BlockStmt::let_stmt(v, b.dtype(), value, body);
        }
        Ok(body)
    }

    fn simplify(&self, e: &Expr) -> Expr {
        crate::simp::simp(&self.an, e.clone())
    }

    /// `v` over the block's variables, its indices simplified as TVM's
    /// `CreatePrimFunc` simplifies the body.
    fn value(&self, v: &TeValue, remap: &HashMap<Var, Expr>) -> Result<Value> {
        let v = v.substitute(&mut |x: &Var| remap.get(x).cloned());
        let buffers = &self.buffers;
        let converted = crate::extern_op::element_to_buffers(&v, &|t: &Tensor| {
            buffers.get(&(t.op().id(), t.value_index())).cloned()
        })?;
        let mut simplify = BodySimplifier { an: &self.an };
        let Ok(simplified) = tir::mutate::Mutator::value(&mut simplify, &converted);
        Ok(match self.index_dtype {
            Some(dtype) => {
                let Ok(widened) =
                    tir::mutate::Mutator::value(&mut IndexCasts { dtype }, &simplified);
                widened
            }
            None => simplified,
        })
    }
}

/// What TVM's `CreatePrimFunc` simplifies in a body: index expressions,
/// and casts of constants to a float type (`float32(-3.4e38)` is the
/// constant).
struct BodySimplifier<'a> {
    an: &'a Analyzer,
}

impl tir::mutate::Mutator for BodySimplifier<'_> {
    type Error = std::convert::Infallible;

    fn value(&mut self, v: &Value) -> std::result::Result<Value, Self::Error> {
        let v = tir::mutate::walk_value(self, v)?;
        Ok(match &v {
            Value::Cast(t, a) if t.is_float() => match &**a {
                Value::Float(x, _) => Value::constant(*x, *t),
                Value::Int(x, _) => Value::constant(*x as f64, *t),
                _ => v,
            },
            _ => v,
        })
    }

    fn expr(&mut self, e: &Expr) -> std::result::Result<Expr, Self::Error> {
        Ok(crate::simp::simp(self.an, e.clone()))
    }
}

/// The integer casts that compute a data-dependent index, cast to `dtype`
/// instead (`index_dtype_override`). A data-dependent index is a `let`
/// around the access ([`Value::Let`]); its value's casts are rewritten
/// through the arithmetic, selections and clamps around them, not inside
/// the operand a cast converts.
struct IndexCasts {
    dtype: DataType,
}

impl IndexCasts {
    fn index(&mut self, v: &Value) -> Value {
        let mut index = |x: &Value| Box::new(self.index(x));
        match v {
            Value::Cast(t, a) if t.is_int() => {
                let Ok(a) = tir::mutate::Mutator::value(self, a);
                Value::Cast(self.dtype, Box::new(a))
            }
            Value::Binary(op, a, b) => Value::Binary(*op, index(a), index(b)),
            Value::Neg(a) => Value::Neg(index(a)),
            Value::Select(c, a, b) => Value::Select(c.clone(), index(a), index(b)),
            Value::IfThenElse(c, a, b) => Value::IfThenElse(c.clone(), index(a), index(b)),
            _ => {
                let Ok(v) = tir::mutate::Mutator::value(self, v);
                v
            }
        }
    }
}

impl tir::mutate::Mutator for IndexCasts {
    type Error = std::convert::Infallible;

    fn value(&mut self, v: &Value) -> std::result::Result<Value, Self::Error> {
        match v {
            Value::Let(var, x, body) => Ok(Value::Let(
                var.clone(),
                Box::new(self.index(x)),
                Box::new(self.value(body)?),
            )),
            _ => tir::mutate::walk_value(self, v),
        }
    }
}

/// An integer constant stored to or combined with a float is a float
/// constant, as TVM converts Python numbers.
fn operand(v: Value, dtype: DataType) -> Value {
    match &v {
        Value::Index(e) if dtype.is_float() => match e.as_int() {
            Some(c) => Value::constant(c as f64, dtype),
            None => v,
        },
        _ => v,
    }
}

/// The iteration levels of an operation's axes (TVM's
/// `GenerateNestedIterLevels`): an axis whose range uses other axes is one
/// level below the deepest of them; each level is the positions of its
/// axes in order.
fn nested_levels(op: &Operation, axes: &[&crate::IterVar]) -> Result<Vec<Vec<usize>>> {
    let position: HashMap<&Var, usize> =
        axes.iter().enumerate().map(|(k, a)| (a.var(), k)).collect();
    let mut depth: Vec<Option<usize>> = vec![None; axes.len()];
    // Axes are met in order and a range may only use axes defined before
    // it, so one pass in order finds every depth.
    for (k, axis) in axes.iter().enumerate() {
        let dom = axis.dom().ok_or_else(|| {
            TeError::definition(format!("the axis `{}` has no range", axis.name()))
        })?;
        let mut d = 0;
        for v in dom.min.vars().iter().chain(dom.extent.vars().iter()) {
            if let Some(&j) = position.get(v) {
                let dj = depth[j].ok_or_else(|| {
                    TeError::definition(format!(
                        "the range of `{}` in `{}` uses `{}`, which is defined after it",
                        axis.name(),
                        op.name(),
                        axes[j].name()
                    ))
                })?;
                d = d.max(dj + 1);
            }
        }
        depth[k] = Some(d);
    }
    let levels = depth.iter().flatten().copied().max().unwrap_or(0) + 1;
    let mut out = vec![Vec::new(); levels];
    for (k, d) in depth.iter().enumerate() {
        out[d.unwrap_or(0)].push(k);
    }
    Ok(out)
}

/// `buffer[indices] = identity`: a reduction's init.
fn init_store(buffer: &Buffer, indices: &[Expr], identity: f64) -> BlockStmt {
    BlockStmt::store(
        buffer,
        indices.to_vec(),
        Value::constant(identity, buffer.dtype()),
    )
}

/// The reduction a compute's body is: a built-in reducer of one value
/// (`te.sum`) or a `te.comm_reducer`, perhaps over tuples.
enum Reduction {
    Builtin(crate::value::Reduce),
    Comm(crate::CommReduce),
}

impl Reduction {
    /// `where=`: the points taking part.
    fn condition(&self) -> Option<&Expr> {
        match self {
            Reduction::Builtin(r) => r.condition.as_ref(),
            Reduction::Comm(r) => r.condition(),
        }
    }
}

/// One level of a compute's loop nest and the block variables it binds.
#[derive(Clone, Default)]
struct Scope {
    /// The loops of the axes first defined at this level.
    loops: Vec<(Var, Range)>,
    iter_vars: Vec<BlockIterVar>,
    bindings: Vec<Expr>,
    /// The block variables of the spatial axes: where the block stores.
    store_indices: Vec<Expr>,
    /// Each axis of the compute as this level's block variable.
    remap: HashMap<Var, Expr>,
}

impl Scope {
    fn add(&mut self, axis: Option<&crate::IterVar>, iv: BlockIterVar, binding: Expr) {
        if let Some(axis) = axis {
            if iv.kind != IterKind::Reduce {
                self.store_indices.push(iv.var.expr());
            }
            self.remap.insert(axis.var().clone(), iv.var.expr());
        }
        self.iter_vars.push(iv);
        self.bindings.push(binding);
    }

    fn substitute(&self, e: &Expr) -> Expr {
        e.substitute(&mut |v: &Var| self.remap.get(v).cloned())
    }

    /// The same level with fresh block variables, so that the block of a
    /// later output defines its own (TVM's `Renew`).
    fn renewed(&self, axes: &[&crate::IterVar]) -> Scope {
        let mut out = self.clone();
        out.store_indices.clear();
        out.remap.clear();
        out.iter_vars = self
            .iter_vars
            .iter()
            .map(|iv| BlockIterVar::new(&Var::new(iv.var.name()), iv.dom.clone(), iv.kind))
            .collect();
        for (iv, axis) in out.iter_vars.iter().zip(axes) {
            if iv.kind != IterKind::Reduce {
                out.store_indices.push(iv.var.expr());
            }
            out.remap.insert(axis.var().clone(), iv.var.expr());
        }
        out
    }
}
