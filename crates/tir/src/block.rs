//! TensorIR's block form of a program (TVM's `Block` and `BlockRealize`):
//! what `te.create_prim_func` builds and what `@T.prim_func` scripts
//! write, before any schedule or lowering.
//!
//! A block is a unit of computation with its own iteration variables, each
//! with a domain and a kind (spatial `S`, reduction `R`), bound by the
//! block's realization to expressions of the loops around it. A block
//! declares the regions it reads and writes ([`Block::reads`],
//! [`Block::writes`]): those are the answer to "which elements does this
//! computation touch", in the block's own variables. [`complete_regions`]
//! fills them in from the body, as TVM's script parser and
//! `create_prim_func` do.
//!
//! ```
//! use arith::{Expr, Range, Var};
//! use tir::block::{Block, BlockFunc, BlockIterVar, BlockStmt, IterKind};
//! use tir::{Buffer, DataType, Value};
//! let a = Buffer::new("A", DataType::Float32, [16i64]);
//! let b = Buffer::new("B", DataType::Float32, [16i64]);
//! let (i, vi) = (Var::new("i"), Var::new("v_i"));
//! let store = BlockStmt::store(&b, [vi.expr()], Value::load(&a, [vi.expr()]));
//! let block = Block::new("B", vec![BlockIterVar::new(&vi, Range::from_extent(Expr::int(16)), IterKind::Spatial)], store);
//! let body = BlockStmt::for_range(&i, 16, BlockStmt::realize(vec![i.expr()], block));
//! let f = BlockFunc::new("main", vec![a, b], vec![], body).completed();
//! let BlockStmt::For { body, .. } = &f.body else { unreachable!() };
//! let BlockStmt::Block(r) = &**body else { unreachable!() };
//! assert_eq!(r.block.reads[0].to_string(), "A[v_i]");
//! assert_eq!(r.block.writes[0].to_string(), "B[v_i]");
//! ```

use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::mutate::Mutator;
use crate::stmt::ForKind;
use crate::value::Value;
use arith::int_set::IntSet;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;
use std::fmt;

/// The kind of a block iteration variable (TVM's `T.axis.remap` letters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterKind {
    /// `S`: a data-parallel (spatial) axis.
    Spatial,
    /// `R`: a reduction axis.
    Reduce,
    /// `O`: an axis the block does not describe.
    Opaque,
}

impl IterKind {
    /// The letter `T.axis.remap` uses for the kind.
    pub fn letter(self) -> char {
        match self {
            IterKind::Spatial => 'S',
            IterKind::Reduce => 'R',
            IterKind::Opaque => 'O',
        }
    }

    /// The kind of a `T.axis.remap` letter.
    pub fn from_letter(c: char) -> Option<IterKind> {
        match c {
            'S' => Some(IterKind::Spatial),
            'R' => Some(IterKind::Reduce),
            'O' => Some(IterKind::Opaque),
            _ => None,
        }
    }
}

/// An iteration variable of a block: a variable, its domain and its kind.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockIterVar {
    /// The variable the block's body uses.
    pub var: Var,
    /// The values it takes: `[min, min + extent)`.
    pub dom: Range,
    /// Spatial, reduction or opaque.
    pub kind: IterKind,
}

impl BlockIterVar {
    /// `var` over `dom`, of `kind`.
    pub fn new(var: &Var, dom: Range, kind: IterKind) -> BlockIterVar {
        BlockIterVar {
            var: var.clone(),
            dom,
            kind,
        }
    }
}

/// A region of a buffer: one `[min, min + extent)` per axis.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferRegion {
    /// The buffer.
    pub buffer: Buffer,
    /// One range per axis.
    pub region: Vec<Range>,
}

/// `A[v_i, 0:16]`, as TVMScript writes a region: an axis of extent one is
/// its index, any other `min:min + extent`.
impl fmt::Display for BufferRegion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.buffer.name())?;
        for (k, r) in self.region.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            if r.extent.as_int() == Some(1) {
                write!(f, "{}", r.min)?;
            } else {
                let end = Analyzer::new()
                    .simplify(&Expr::add(r.min.clone(), r.extent.clone()))
                    .unwrap_or_else(|_| Expr::add(r.min.clone(), r.extent.clone()));
                write!(f, "{}:{}", r.min, end)?;
            }
        }
        f.write_str("]")
    }
}

/// A block: iteration variables, the regions it touches, an optional
/// initialisation (run before the first iteration of its reduction axes)
/// and a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The block's name (`T.block("C")`).
    pub name: String,
    /// Its iteration variables, in order.
    pub iter_vars: Vec<BlockIterVar>,
    /// The regions it reads.
    pub reads: Vec<BufferRegion>,
    /// The regions it writes.
    pub writes: Vec<BufferRegion>,
    /// Whether [`complete_regions`] computes `reads` and `writes` from the
    /// body (they were not written out).
    pub detect_access: bool,
    /// `with T.init():`: runs where every reduction variable is at the
    /// start of its domain, before the body.
    pub init: Option<Box<BlockStmt>>,
    /// What the block computes.
    pub body: Box<BlockStmt>,
    /// Buffers that exist inside the block (`T.alloc_buffer`).
    pub alloc_buffers: Vec<Buffer>,
    /// `T.block_attr({...})`: each value as TVMScript writes it.
    pub annotations: Vec<(String, String)>,
}

impl Block {
    /// A block `name` over `iter_vars` computing `body`, whose regions are
    /// computed by [`complete_regions`].
    pub fn new(name: impl Into<String>, iter_vars: Vec<BlockIterVar>, body: BlockStmt) -> Block {
        Block {
            name: name.into(),
            iter_vars,
            reads: Vec::new(),
            writes: Vec::new(),
            detect_access: true,
            init: None,
            body: Box::new(body),
            alloc_buffers: Vec::new(),
            annotations: Vec::new(),
        }
    }

    /// The same block with `init`.
    pub fn with_init(mut self, init: BlockStmt) -> Block {
        self.init = Some(Box::new(init));
        self
    }
}

/// A block at a place in the loop nest: its iteration variables bound to
/// expressions of the enclosing loops, under a predicate.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockRealize {
    /// One value per iteration variable of the block.
    pub bindings: Vec<Expr>,
    /// The block runs only where this holds (`T.where`); `true` by default.
    pub predicate: Expr,
    /// The block.
    pub block: Block,
}

/// A statement of the block form.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockStmt {
    /// `for var in range(min, min + extent)`.
    For {
        /// The loop variable.
        var: Var,
        /// Its first value.
        min: Expr,
        /// The number of iterations.
        extent: Expr,
        /// Serial, parallel, ... (`T.serial`, `T.parallel`).
        kind: ForKind,
        /// The body.
        body: Box<BlockStmt>,
    },
    /// A realized block.
    Block(Box<BlockRealize>),
    /// `B[i, j] = value`.
    Store {
        /// The buffer written.
        buffer: Buffer,
        /// One index per axis.
        indices: Vec<Expr>,
        /// The value stored.
        value: Value,
    },
    /// `if cond: then_case else: else_case`.
    If {
        /// A boolean value.
        cond: Value,
        /// Runs where `cond` holds.
        then_case: Box<BlockStmt>,
        /// Runs elsewhere.
        else_case: Option<Box<BlockStmt>>,
    },
    /// Statements in order.
    Seq(Vec<BlockStmt>),
    /// `T.evaluate(value)`.
    Evaluate(Value),
    /// `var: dtype = value` over `body` (TVM's `LetStmt`): a scalar
    /// computed once, read in `body` as [`Value::Var`] (an integer one also
    /// by index expressions). A tuple reduction binds every combined value
    /// before it stores any, so that each store's value is computed from
    /// the old ones.
    Let {
        /// The bound variable.
        var: Var,
        /// Its type (`T.int32`, `T.float32`).
        dtype: DataType,
        /// Its value, evaluated once on entry.
        value: Value,
        /// Where the binding holds.
        body: Box<BlockStmt>,
    },
}

impl BlockStmt {
    /// `B[indices] = value`.
    pub fn store(
        buffer: &Buffer,
        indices: impl IntoIterator<Item = impl Into<Expr>>,
        value: Value,
    ) -> BlockStmt {
        BlockStmt::Store {
            buffer: buffer.clone(),
            indices: indices.into_iter().map(Into::into).collect(),
            value,
        }
    }

    /// `for var in range(extent)`, serial.
    pub fn for_range(var: &Var, extent: impl Into<Expr>, body: BlockStmt) -> BlockStmt {
        BlockStmt::For {
            var: var.clone(),
            min: Expr::int(0),
            extent: extent.into(),
            kind: ForKind::Serial,
            body: Box::new(body),
        }
    }

    /// `block` realized with `bindings`, under no predicate.
    pub fn realize(bindings: Vec<Expr>, block: Block) -> BlockStmt {
        BlockStmt::Block(Box::new(BlockRealize {
            bindings,
            predicate: Expr::bool(true),
            block,
        }))
    }

    /// `var: dtype = value` over `body` (see [`BlockStmt::Let`]).
    pub fn let_stmt(var: &Var, dtype: DataType, value: Value, body: BlockStmt) -> BlockStmt {
        BlockStmt::Let {
            var: var.clone(),
            dtype,
            value,
            body: Box::new(body),
        }
    }

    /// The statements in order, a single one as itself.
    pub fn seq(mut stmts: Vec<BlockStmt>) -> BlockStmt {
        if stmts.len() == 1 {
            stmts.pop().unwrap()
        } else {
            BlockStmt::Seq(stmts)
        }
    }

    /// The statement with every value it holds (stored, tested, evaluated
    /// or bound by a `let`, in nested blocks' inits and bodies too)
    /// rewritten by `m`'s [`Mutator::value`]; loops, regions and iteration
    /// variables are kept.
    pub fn map_values<M: Mutator>(&self, m: &mut M) -> Result<BlockStmt, M::Error> {
        crate::stack::grow(|| {
            Ok(match self {
                BlockStmt::For {
                    var,
                    min,
                    extent,
                    kind,
                    body,
                } => BlockStmt::For {
                    var: var.clone(),
                    min: min.clone(),
                    extent: extent.clone(),
                    kind: kind.clone(),
                    body: Box::new(body.map_values(m)?),
                },
                BlockStmt::Block(r) => {
                    let mut r = r.clone();
                    if let Some(init) = &r.block.init {
                        r.block.init = Some(Box::new(init.map_values(m)?));
                    }
                    r.block.body = Box::new(r.block.body.map_values(m)?);
                    BlockStmt::Block(r)
                }
                BlockStmt::Store {
                    buffer,
                    indices,
                    value,
                } => BlockStmt::Store {
                    buffer: buffer.clone(),
                    indices: indices.clone(),
                    value: m.value(value)?,
                },
                BlockStmt::If {
                    cond,
                    then_case,
                    else_case,
                } => BlockStmt::If {
                    cond: m.value(cond)?,
                    then_case: Box::new(then_case.map_values(m)?),
                    else_case: match else_case {
                        Some(e) => Some(Box::new(e.map_values(m)?)),
                        None => None,
                    },
                },
                BlockStmt::Seq(v) => BlockStmt::Seq(
                    v.iter()
                        .map(|s| s.map_values(m))
                        .collect::<Result<_, _>>()?,
                ),
                BlockStmt::Evaluate(v) => BlockStmt::Evaluate(m.value(v)?),
                BlockStmt::Let {
                    var,
                    dtype,
                    value,
                    body,
                } => BlockStmt::Let {
                    var: var.clone(),
                    dtype: *dtype,
                    value: m.value(value)?,
                    body: Box::new(body.map_values(m)?),
                },
            })
        })
    }

    /// Every block realized in this statement, outer blocks first.
    pub fn blocks(&self) -> Vec<&Block> {
        let mut out = Vec::new();
        self.collect_blocks(&mut out);
        out
    }

    fn collect_blocks<'a>(&'a self, out: &mut Vec<&'a Block>) {
        match self {
            BlockStmt::For { body, .. } | BlockStmt::Let { body, .. } => body.collect_blocks(out),
            BlockStmt::Block(r) => {
                out.push(&r.block);
                if let Some(init) = &r.block.init {
                    init.collect_blocks(out);
                }
                r.block.body.collect_blocks(out);
            }
            BlockStmt::If {
                then_case,
                else_case,
                ..
            } => {
                then_case.collect_blocks(out);
                if let Some(e) = else_case {
                    e.collect_blocks(out);
                }
            }
            BlockStmt::Seq(v) => v.iter().for_each(|s| s.collect_blocks(out)),
            BlockStmt::Store { .. } | BlockStmt::Evaluate(_) => {}
        }
    }
}

/// A function in block form: buffer parameters, function attributes and a
/// body whose buffers other than the parameters are allocated by the root
/// block.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockFunc {
    /// The function's name.
    pub name: String,
    /// The buffer parameters, in order.
    pub params: Vec<Buffer>,
    /// The scalar parameters (`n: T.int32`), each with its position among
    /// all parameters (buffers and scalars).
    pub scalar_params: Vec<(usize, Var)>,
    /// `T.func_attr({...})`, each value as TVMScript writes it.
    pub attrs: Vec<(String, String)>,
    /// Buffers of the root block (`T.alloc_buffer` at the top).
    pub alloc_buffers: Vec<Buffer>,
    /// The body, inside the root block.
    pub body: BlockStmt,
}

impl BlockFunc {
    /// `name(params)` with root allocations `alloc_buffers` and `body`.
    pub fn new(
        name: impl Into<String>,
        params: Vec<Buffer>,
        alloc_buffers: Vec<Buffer>,
        body: BlockStmt,
    ) -> BlockFunc {
        BlockFunc {
            name: name.into(),
            params,
            scalar_params: Vec::new(),
            attrs: vec![
                ("global_symbol".into(), "\"main\"".into()),
                ("tir.noalias".into(), "True".into()),
            ],
            alloc_buffers,
            body,
        }
    }

    /// The function with every block's regions computed where they were
    /// not written out ([`complete_regions`]).
    pub fn completed(mut self) -> BlockFunc {
        let known: Vec<Buffer> = self
            .params
            .iter()
            .chain(&self.alloc_buffers)
            .cloned()
            .collect();
        complete_stmt(&mut self.body, &known);
        self
    }

    /// The parameters in order: each a buffer or a scalar variable.
    pub fn all_params(&self) -> Vec<Result<&Buffer, &Var>> {
        let total = self.params.len() + self.scalar_params.len();
        let mut buffers = self.params.iter();
        (0..total)
            .filter_map(
                |pos| match self.scalar_params.iter().find(|(p, _)| *p == pos) {
                    Some((_, v)) => Some(Err(v)),
                    None => buffers.next().map(Ok),
                },
            )
            .collect()
    }

    /// The blocks of the function, outer ones first.
    pub fn blocks(&self) -> Vec<&Block> {
        self.body.blocks()
    }
}

fn complete_stmt(s: &mut BlockStmt, known: &[Buffer]) {
    match s {
        BlockStmt::For { body, .. } | BlockStmt::Let { body, .. } => complete_stmt(body, known),
        BlockStmt::Block(r) => {
            let mut inner: Vec<Buffer> = known.to_vec();
            inner.extend(r.block.alloc_buffers.iter().cloned());
            if let Some(init) = &mut r.block.init {
                complete_stmt(init, &inner);
            }
            complete_stmt(&mut r.block.body, &inner);
            if r.block.detect_access {
                complete_regions(&mut r.block, known);
            }
        }
        BlockStmt::If {
            then_case,
            else_case,
            ..
        } => {
            complete_stmt(then_case, known);
            if let Some(e) = else_case {
                complete_stmt(e, known);
            }
        }
        BlockStmt::Seq(v) => v.iter_mut().for_each(|s| complete_stmt(s, known)),
        BlockStmt::Store { .. } | BlockStmt::Evaluate(_) => {}
    }
}

/// Sets `block.reads` and `block.writes` to the regions its body and init
/// touch, of the buffers in `visible` (buffers the block allocates itself
/// are not part of its footprint), as TVM's `GetBlockReadWriteRegion`
/// computes them:
///
/// - each access is the set of its indices with the loops inside the block
///   ranging over their domains; the block's own iteration variables are
///   points;
/// - the accesses of one buffer are joined (their hull), in the order the
///   buffers are first met;
/// - an axis that is one point has extent 1; any other is the covering
///   range, the buffer's whole axis where the set is unbounded;
/// - a block nested inside counts with its declared regions;
/// - a block with an init does not list what it writes among its reads.
///
/// Every region contains what the block touches (sound), and is exact for
/// accesses that are single points or intervals of the loops inside.
pub fn complete_regions(block: &mut Block, visible: &[Buffer]) {
    let mut d = AccessDetector {
        visible,
        dom: HashMap::new(),
        lets: HashMap::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        an: Analyzer::new(),
    };
    if let Some(init) = &block.init {
        d.stmt(init);
    }
    d.stmt(&block.body);
    let writes = d.collect(&d.writes);
    let mut reads = d.collect(&d.reads);
    if block.init.is_some() {
        reads.retain(|r| !writes.iter().any(|w| w.buffer.id() == r.buffer.id()));
    }
    block.reads = reads;
    block.writes = writes;
}

struct AccessDetector<'a> {
    visible: &'a [Buffer],
    dom: HashMap<Var, IntSet>,
    /// The `let`s around the statement whose values are index
    /// expressions: indices are read with the values in place, as TVM's
    /// detector substitutes its `let_bindings_`.
    lets: HashMap<Var, Expr>,
    reads: Vec<(Buffer, Vec<IntSet>)>,
    writes: Vec<(Buffer, Vec<IntSet>)>,
    an: Analyzer,
}

impl AccessDetector<'_> {
    fn stmt(&mut self, s: &BlockStmt) {
        match s {
            BlockStmt::For {
                var,
                min,
                extent,
                body,
                ..
            } => {
                // Index expressions hold no loads: only the loop's range counts.
                let set = IntSet::from_range(&Range::new(min.clone(), extent.clone()));
                let before = self.dom.insert(var.clone(), set);
                self.stmt(body);
                match before {
                    Some(b) => self.dom.insert(var.clone(), b),
                    None => self.dom.remove(var),
                };
            }
            BlockStmt::Block(r) => {
                let map: HashMap<Var, Expr> = r
                    .block
                    .iter_vars
                    .iter()
                    .map(|iv| iv.var.clone())
                    .zip(r.bindings.iter().cloned())
                    .collect();
                let relax = |regions: &[BufferRegion]| -> Vec<(Buffer, Vec<IntSet>)> {
                    regions
                        .iter()
                        .map(|br| {
                            let sets = br
                                .region
                                .iter()
                                .map(|range| {
                                    let mut sub = |v: &Var| map.get(v).cloned();
                                    let lo = range.min.substitute(&mut sub);
                                    let ext = range.extent.substitute(&mut sub);
                                    let lo_set = self.an.int_set(&lo, &self.dom);
                                    let last = Expr::sub(Expr::add(lo, ext), Expr::int(1));
                                    let hi_set = self.an.int_set(&last, &self.dom);
                                    IntSet::interval(lo_set.min().cloned(), hi_set.max().cloned())
                                })
                                .collect();
                            (br.buffer.clone(), sets)
                        })
                        .collect()
                };
                let reads = relax(&r.block.reads);
                let writes = relax(&r.block.writes);
                for (b, sets) in reads {
                    self.update(false, &b, sets);
                }
                for (b, sets) in writes {
                    self.update(true, &b, sets);
                }
            }
            BlockStmt::Store {
                buffer,
                indices,
                value,
            } => {
                self.value(value);
                let sets = indices.iter().map(|i| self.index_set(i)).collect();
                self.update(true, buffer, sets);
            }
            BlockStmt::If {
                cond,
                then_case,
                else_case,
            } => {
                self.value(cond);
                self.stmt(then_case);
                if let Some(e) = else_case {
                    self.stmt(e);
                }
            }
            BlockStmt::Seq(v) => v.iter().for_each(|s| self.stmt(s)),
            BlockStmt::Evaluate(v) => self.value(v),
            BlockStmt::Let {
                var, value, body, ..
            } => {
                // The value's reads are the block's, as TVM's detector
                // visits a `LetStmt`'s value.
                self.value(value);
                // An outer `let`'s variable in the value is its value.
                let index = match value {
                    Value::Index(e) => Some(e.substitute(&mut |v: &Var| self.lets.get(v).cloned())),
                    Value::Int(x, t) if !t.is_float() => Some(Expr::int(*x)),
                    _ => None,
                };
                let let_before = match index {
                    Some(e) => self.lets.insert(var.clone(), e),
                    None => self.lets.remove(var),
                };
                // Where the value is read from memory: any index.
                let before = self.dom.insert(var.clone(), IntSet::everything());
                self.stmt(body);
                match before {
                    Some(b) => self.dom.insert(var.clone(), b),
                    None => self.dom.remove(var),
                };
                match let_before {
                    Some(e) => self.lets.insert(var.clone(), e),
                    None => self.lets.remove(var),
                };
            }
        }
    }

    /// The loads of `v`, in the order TVM's visitor meets them (operands
    /// left to right). Indices are index expressions, which hold no loads;
    /// a value read as an index is bound by a [`Value::Let`].
    fn value(&mut self, v: &Value) {
        crate::stack::grow(|| match v {
            Value::Load(l) => {
                let sets = l.indices.iter().map(|i| self.index_set(i)).collect();
                self.update(false, &l.buffer, sets);
            }
            Value::Let(var, value, body) => {
                self.value(value);
                // A value read at run time: any index.
                let before = self.dom.insert(var.clone(), IntSet::everything());
                self.value(body);
                match before {
                    Some(b) => self.dom.insert(var.clone(), b),
                    None => self.dom.remove(var),
                };
            }
            Value::Float(..) | Value::Int(..) | Value::Index(_) | Value::Var(..) => {}
            Value::Binary(_, a, b) | Value::Cmp(_, a, b) | Value::And(a, b) | Value::Or(a, b) => {
                self.value(a);
                self.value(b);
            }
            Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => self.value(a),
            Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                self.value(c);
                self.value(a);
                self.value(b);
            }
            Value::Call(_, args) => args.iter().for_each(|a| self.value(a)),
        })
    }

    /// The values index `i` takes: loops inside the block over their
    /// domains, `let` variables bound to index expressions replaced by
    /// them.
    fn index_set(&self, i: &Expr) -> IntSet {
        if self.lets.is_empty() {
            return self.an.int_set(i, &self.dom);
        }
        let i = i.substitute(&mut |v: &Var| self.lets.get(v).cloned());
        self.an.int_set(&i, &self.dom)
    }

    fn update(&mut self, write: bool, buffer: &Buffer, sets: Vec<IntSet>) {
        if !self.visible.iter().any(|b| b.id() == buffer.id()) {
            return;
        }
        let an = &self.an;
        let list = if write {
            &mut self.writes
        } else {
            &mut self.reads
        };
        match list.iter_mut().find(|(b, _)| b.id() == buffer.id()) {
            Some((_, old)) => {
                for (o, n) in old.iter_mut().zip(sets) {
                    *o = o.union(&n, an);
                }
            }
            None => list.push((buffer.clone(), sets)),
        }
    }

    fn collect(&self, list: &[(Buffer, Vec<IntSet>)]) -> Vec<BufferRegion> {
        list.iter()
            .map(|(buffer, sets)| BufferRegion {
                buffer: buffer.clone(),
                region: sets
                    .iter()
                    .zip(buffer.shape())
                    .map(|(set, extent)| match set.as_single_point() {
                        Some(p) => Range::new(p.clone(), Expr::int(1)),
                        None => set.cover_range(&Range::from_extent(extent.clone()), &self.an),
                    })
                    .collect(),
            })
            .collect()
    }
}

pub use crate::block_equal::structural_diff;
pub use crate::block_lower::to_loop_ir;
pub use crate::block_script::block_tvmscript;
