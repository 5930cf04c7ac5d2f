//! Translation of a program into the form the machine runs: variables and
//! buffers resolved to slots, stage names to numbers, types to conversions,
//! and every static mistake (unbound variable, wrong number of indices, a
//! buffer used outside its realize) reported before anything runs.

use super::error::RunError;
use crate::buffer::{Buffer, BufferId};
use crate::dtype::DataType;
use crate::intrinsic::Intrinsic;
use crate::print::Printer;
use crate::stmt::{PrimFunc, Stmt};
use crate::value::{BinOp, Value};
use arith::{CmpOp, Expr, ExprKind, Var};
use std::collections::HashMap;

/// Integer index arithmetic over slots: arith's compiled form, with the
/// two commonest indices, a constant and a variable, read directly.
pub(crate) enum IndexCode {
    Const(i64),
    Slot(u32),
    /// Positions are slots.
    Compiled(arith::Compiled),
}

/// A read or write of one element of the buffer in slot `buf`, or, for a
/// buffer each thread of a block has its own copy of, in slot `buf + copy`.
pub(crate) struct Access {
    pub buf: u32,
    pub indices: Vec<IndexCode>,
    pub copy: Option<IndexCode>,
}

/// Value arithmetic whose operand types have been made equal by inserted
/// casts, so the machine never decides types at run time.
pub(crate) enum ValueCode {
    Int(i64),
    Float(f64),
    /// An index expression as a value of the given (integer) type.
    Index(IndexCode, DataType),
    Load(Access, DataType),
    /// Both operands have type `.3`, the result's type.
    Binary(BinOp, Box<ValueCode>, Box<ValueCode>, DataType),
    /// Both operands have the same type; the result is 0 or 1.
    Cmp(CmpOp, Box<ValueCode>, Box<ValueCode>),
    And(Box<ValueCode>, Box<ValueCode>),
    Or(Box<ValueCode>, Box<ValueCode>),
    Not(Box<ValueCode>),
    Neg(Box<ValueCode>, DataType),
    /// Conversion from `.2` to `.1`.
    Cast(Box<ValueCode>, DataType, DataType),
    Select(Box<ValueCode>, Box<ValueCode>, Box<ValueCode>),
    /// Arguments of type `.2`, the result's type.
    Call(Intrinsic, Vec<ValueCode>, DataType),
    /// Sets slot `.0` to the integer `.1`, then evaluates `.2`.
    Let(u32, Box<ValueCode>, Box<ValueCode>),
}

/// Dropped one level per [`crate::stack::grow`] step, as [`crate::Value`].
impl Drop for ValueCode {
    fn drop(&mut self) {
        let (a, b, c) = match self {
            ValueCode::Binary(_, a, b, _)
            | ValueCode::Cmp(_, a, b)
            | ValueCode::And(a, b)
            | ValueCode::Or(a, b) => (Some(a), Some(b), None),
            ValueCode::Not(a) | ValueCode::Neg(a, _) | ValueCode::Cast(a, ..) => {
                (Some(a), None, None)
            }
            ValueCode::Select(a, b, c) => (Some(a), Some(b), Some(c)),
            ValueCode::Let(_, a, b) => (Some(a), Some(b), None),
            ValueCode::Call(_, args, _) => {
                let args = std::mem::take(args);
                crate::stack::grow(|| drop(args));
                return;
            }
            ValueCode::Int(_)
            | ValueCode::Float(_)
            | ValueCode::Index(..)
            | ValueCode::Load(..) => return,
        };
        let take = |x: Option<&mut Box<ValueCode>>| {
            x.map(|x| std::mem::replace(&mut **x, ValueCode::Int(0)))
        };
        let children = (take(a), take(b), take(c));
        crate::stack::grow(|| drop(children));
    }
}

/// A statement, with the source statement kept for messages.
/// An argument of a compiled packed call.
pub(crate) enum PackedCode {
    /// The whole buffer in slot `.0`.
    Buffer(u32),
    /// A value of the type given.
    Value(ValueCode, DataType),
    /// A string.
    Str(String),
}

pub(crate) enum Code<'a> {
    For {
        slot: u32,
        min: IndexCode,
        extent: IndexCode,
        body: Box<Code<'a>>,
        src: &'a Stmt,
    },
    Let {
        slot: u32,
        value: IndexCode,
        body: Box<Code<'a>>,
        src: &'a Stmt,
    },
    /// A `let` of an integer value read at run time.
    LetValue {
        slot: u32,
        value: ValueCode,
        body: Box<Code<'a>>,
        src: &'a Stmt,
    },
    /// A realize (or an allocate, with zero minimums). `shape` is the
    /// buffer's shape for an intermediate buffer, empty for a parameter.
    Region {
        buf: u32,
        shape: Vec<IndexCode>,
        min: Vec<IndexCode>,
        extent: Vec<IndexCode>,
        body: Box<Code<'a>>,
        src: &'a Stmt,
    },
    Store {
        access: Access,
        value: ValueCode,
        stage: u32,
        src: &'a Stmt,
    },
    If {
        cond: ValueCode,
        then_case: Box<Code<'a>>,
        else_case: Option<Box<Code<'a>>>,
        src: &'a Stmt,
    },
    /// `body` as long as `cond` holds; each test of `cond` is a step.
    While {
        cond: ValueCode,
        body: Box<Code<'a>>,
        src: &'a Stmt,
    },
    Seq(Vec<Code<'a>>),
    Eval(ValueCode, &'a Stmt),
    /// `call_packed(func, args...)`: a packed function the run was given
    /// (or a built-in one), on whole buffers and values.
    Packed {
        func: &'a str,
        args: Vec<PackedCode>,
        src: &'a Stmt,
    },
    /// `body` once for every thread of a block, the first thread first:
    /// one statement of a block whose threads run together
    /// ([`super::lockstep`]). Each thread's turn is a step.
    EachThread {
        threads: Vec<ThreadLoop<'a>>,
        body: Box<Code<'a>>,
    },
    /// The storage of a per-thread buffer begins, in slot `buf + copy`: a
    /// region split in two because the threads of a block run the
    /// statements inside it together.
    Enter {
        buf: u32,
        copy: IndexCode,
        shape: Vec<IndexCode>,
        min: Vec<IndexCode>,
        extent: Vec<IndexCode>,
        src: &'a Stmt,
    },
    /// The storage an [`Code::Enter`] began ends.
    Leave {
        buf: u32,
        copy: IndexCode,
        src: &'a Stmt,
    },
}

/// One thread index of a block whose threads run together: its slot and
/// range, and the launch that declared it.
pub(crate) struct ThreadLoop<'a> {
    pub slot: u32,
    pub min: IndexCode,
    pub extent: IndexCode,
    pub src: &'a Stmt,
}

/// Dropped through a work list: statements nest as deep as a pipeline is
/// long.
impl Drop for Code<'_> {
    fn drop(&mut self) {
        fn take<'a>(c: &mut Code<'a>, out: &mut Vec<Code<'a>>) {
            match c {
                Code::For { body, .. }
                | Code::Let { body, .. }
                | Code::LetValue { body, .. }
                | Code::Region { body, .. }
                | Code::While { body, .. }
                | Code::EachThread { body, .. } => {
                    out.push(std::mem::replace(&mut **body, Code::Seq(Vec::new())));
                }
                Code::If {
                    then_case,
                    else_case,
                    ..
                } => {
                    out.push(std::mem::replace(&mut **then_case, Code::Seq(Vec::new())));
                    if let Some(e) = else_case.take() {
                        out.push(*e);
                    }
                }
                Code::Seq(v) => out.append(v),
                Code::Store { .. }
                | Code::Eval(..)
                | Code::Packed { .. }
                | Code::Enter { .. }
                | Code::Leave { .. } => {}
            }
        }
        let mut pending = Vec::new();
        take(self, &mut pending);
        while let Some(mut c) = pending.pop() {
            take(&mut c, &mut pending);
        }
    }
}

/// What the machine needs to know about each buffer slot.
pub(crate) struct BufferInfo {
    pub buffer: Buffer,
    pub is_param: bool,
    /// A parameter's shape, with sizes substituted. Empty for an
    /// intermediate buffer: its shape may use the loop variables around its
    /// realize, so it is evaluated there ([`Code::Region`]).
    pub shape: Vec<i64>,
}

/// A compiled program.
pub(crate) struct Compiled<'a> {
    pub body: Code<'a>,
    pub slot_count: usize,
    /// Slots of size variables and their values.
    pub sizes: Vec<(u32, i64)>,
    pub buffers: Vec<BufferInfo>,
    pub stages: Vec<String>,
}

pub(super) struct Compiler<'a> {
    pub(super) sizes: &'a HashMap<Var, i64>,
    var_slots: HashMap<Var, u32>,
    /// How many enclosing loops or lets bind each slot.
    pub(super) bound_depth: Vec<u32>,
    size_slots: Vec<(u32, i64)>,
    pub(super) buffer_slots: HashMap<BufferId, u32>,
    pub(super) buffers: Vec<BufferInfo>,
    /// How many enclosing realizes or allocates each buffer slot has.
    pub(super) live_depth: Vec<u32>,
    stage_ids: HashMap<String, u32>,
    stages: Vec<String>,
    /// The block whose threads run together that is being compiled, if
    /// any ([`super::lockstep`]).
    pub(super) lockstep: Option<super::lockstep::LockStep<'a>>,
    /// For each buffer slot with a copy per thread, the copy a thread uses
    /// (an expression of the thread indices).
    pub(super) copies: HashMap<u32, Expr>,
}

fn header(s: &Stmt) -> String {
    Printer::new().header(s)
}

/// Compiles `func` for the given sizes.
pub(crate) fn compile<'a>(
    func: &'a PrimFunc,
    sizes: &'a HashMap<Var, i64>,
) -> Result<Compiled<'a>, RunError> {
    let mut c = Compiler {
        sizes,
        var_slots: HashMap::new(),
        bound_depth: Vec::new(),
        size_slots: Vec::new(),
        buffer_slots: HashMap::new(),
        buffers: Vec::new(),
        live_depth: Vec::new(),
        stage_ids: HashMap::new(),
        stages: Vec::new(),
        lockstep: None,
        copies: HashMap::new(),
    };
    for (k, p) in func.params.iter().enumerate() {
        // Parameters take the first slots, in order; the interpreter relies
        // on it.
        if func.params[..k].contains(p) {
            return Err(RunError::Input {
                buffer: p.name().to_string(),
                message: format!("listed twice among the parameters of `{}`", func.name),
            });
        }
        c.buffer_slot(p, true)?;
    }
    let body = c.stmt(&func.body)?;
    Ok(Compiled {
        body,
        slot_count: c.bound_depth.len(),
        sizes: c.size_slots,
        buffers: c.buffers,
        stages: c.stages,
    })
}

impl<'a> Compiler<'a> {
    pub(super) fn buffer_slot(&mut self, b: &Buffer, is_param: bool) -> Result<u32, RunError> {
        if let Some(&s) = self.buffer_slots.get(&b.id()) {
            return Ok(s);
        }
        let where_ = || format!("shape of buffer `{}`", b.name());
        let mut shape = Vec::with_capacity(b.ndim());
        for e in b.shape().iter().filter(|_| is_param) {
            let v = e.eval(&|v| self.sizes.get(v).copied()).map_err(|err| {
                match e.vars().into_iter().find(|v| !self.sizes.contains_key(v)) {
                    Some(v) => RunError::UnboundVariable {
                        var: v.name().to_string(),
                        stmt: where_(),
                    },
                    None => RunError::Index {
                        message: err.message,
                        stmt: where_(),
                    },
                }
            })?;
            if v < 0 {
                return Err(RunError::Allocation {
                    buffer: b.name().to_string(),
                    message: format!("axis size {e} evaluates to {v}, which is negative"),
                    stmt: where_(),
                });
            }
            shape.push(v);
        }
        let slot = self.buffers.len() as u32;
        self.buffers.push(BufferInfo {
            buffer: b.clone(),
            is_param,
            shape,
        });
        self.live_depth.push(0);
        self.buffer_slots.insert(b.id(), slot);
        Ok(slot)
    }

    /// The shape of an intermediate buffer, compiled where `src` gives it
    /// storage (it may use the loop variables around); nothing for a
    /// parameter.
    pub(super) fn realized_shape(
        &mut self,
        b: &Buffer,
        src: &Stmt,
    ) -> Result<Vec<IndexCode>, RunError> {
        let slot = self.buffer_slot(b, false)?;
        if self.buffers[slot as usize].is_param {
            return Ok(Vec::new());
        }
        self.indices(b.shape(), src)
    }

    /// The slot of a buffer that `src` accesses with `n` indices.
    pub(super) fn accessed_buffer(
        &mut self,
        b: &Buffer,
        n: usize,
        src: &Stmt,
    ) -> Result<u32, RunError> {
        let slot = self.buffer_slot(b, false)?;
        let info = &self.buffers[slot as usize];
        if !info.is_param && self.live_depth[slot as usize] == 0 {
            return Err(RunError::BufferNotAllocated {
                buffer: b.name().to_string(),
                stmt: header(src),
            });
        }
        if n != b.ndim() {
            return Err(RunError::Arity {
                buffer: b.name().to_string(),
                expected: b.ndim(),
                got: n,
                stmt: header(src),
            });
        }
        Ok(slot)
    }

    /// An access of buffer slot `buf`, of the copy the current thread
    /// uses when each thread has its own.
    fn access(
        &mut self,
        buf: u32,
        indices: Vec<IndexCode>,
        src: &Stmt,
    ) -> Result<Access, RunError> {
        let copy = match self.copies.get(&buf).cloned() {
            Some(e) => Some(self.index(&e, src)?),
            None => None,
        };
        Ok(Access { buf, indices, copy })
    }

    pub(super) fn var_slot(&mut self, v: &Var) -> u32 {
        if let Some(&s) = self.var_slots.get(v) {
            return s;
        }
        let s = self.bound_depth.len() as u32;
        self.bound_depth.push(0);
        self.var_slots.insert(v.clone(), s);
        s
    }

    /// The slot holding `v` where `src` uses it.
    pub(super) fn use_var(&mut self, v: &Var, src: &Stmt) -> Result<u32, RunError> {
        let s = self.var_slot(v);
        if self.bound_depth[s as usize] > 0 {
            return Ok(s);
        }
        match self.sizes.get(v) {
            Some(&value) => {
                if !self.size_slots.iter().any(|&(t, _)| t == s) {
                    self.size_slots.push((s, value));
                }
                Ok(s)
            }
            None => Err(RunError::UnboundVariable {
                var: v.name().to_string(),
                stmt: header(src),
            }),
        }
    }

    pub(super) fn index(&mut self, e: &Expr, src: &Stmt) -> Result<IndexCode, RunError> {
        match e.kind() {
            ExprKind::Int(v) => return Ok(IndexCode::Const(*v)),
            ExprKind::Bool(b) => return Ok(IndexCode::Const(*b as i64)),
            ExprKind::Var(v) => return Ok(IndexCode::Slot(self.use_var(v, src)?)),
            _ => {}
        }
        let mut unbound = None;
        let code = arith::Compiled::with_positions(e, &mut |v| match self.use_var(v, src) {
            Ok(slot) => Some(slot as usize),
            Err(err) => {
                unbound.get_or_insert(err);
                None
            }
        });
        match (code, unbound) {
            (_, Some(err)) => Err(err),
            (Ok(code), None) => Ok(IndexCode::Compiled(code)),
            // Every variable was given a slot: compiling cannot fail.
            (Err(err), None) => Err(RunError::Index {
                message: err.message,
                stmt: header(src),
            }),
        }
    }

    pub(super) fn indices(&mut self, es: &[Expr], src: &Stmt) -> Result<Vec<IndexCode>, RunError> {
        es.iter().map(|e| self.index(e, src)).collect()
    }

    /// Compiles `v` and converts the result to `to`.
    pub(super) fn value_as(
        &mut self,
        v: &Value,
        to: DataType,
        src: &Stmt,
    ) -> Result<ValueCode, RunError> {
        let (code, from) = self.value(v, src)?;
        Ok(convert(code, from, to))
    }

    pub(super) fn value(
        &mut self,
        v: &Value,
        src: &Stmt,
    ) -> Result<(ValueCode, DataType), RunError> {
        crate::stack::grow(|| self.value_step(v, src))
    }

    /// One level of [`Self::value`], on the stack [`crate::stack::grow`] left room on.
    fn value_step(&mut self, v: &Value, src: &Stmt) -> Result<(ValueCode, DataType), RunError> {
        let bx = Box::new;
        Ok(match v {
            Value::Float(x, t) if t.is_float() => (ValueCode::Float(round_float(*x, *t)), *t),
            Value::Float(x, t) => {
                let message =
                    format!("the float constant {x} has the integer type {t}: write Value::Int");
                return Err(RunError::Value {
                    message,
                    stmt: header(src),
                });
            }
            Value::Int(x, t) => {
                check_int(*x, *t).map_err(|message| RunError::Value {
                    message,
                    stmt: header(src),
                })?;
                if t.is_float() {
                    (ValueCode::Float(round_float(*x as f64, *t)), *t)
                } else {
                    (ValueCode::Int(*x), *t)
                }
            }
            Value::Index(e) => {
                let t = v.dtype();
                (ValueCode::Index(self.index(e, src)?, t), t)
            }
            // Variables live in integer slots: an integer one is read as
            // an index. A float variable has no slot to live in: the block
            // form's lowering gives it a one-element buffer, and a scalar
            // float parameter is replaced by its value before the run
            // (`PrimFunc::bind_float_params`).
            Value::Var(var, t) if !t.is_float() => {
                (ValueCode::Index(self.index(&var.expr(), src)?, *t), *t)
            }
            Value::Var(var, t) => {
                return Err(RunError::Value {
                    message: format!(
                        "the {t} parameter `{var}` has no value: bind it with \
                         `PrimFunc::bind_float_params` before the run"
                    ),
                    stmt: header(src),
                });
            }
            Value::Load(l) => {
                let buf = self.accessed_buffer(&l.buffer, l.indices.len(), src)?;
                let indices = self.indices(&l.indices, src)?;
                (
                    ValueCode::Load(self.access(buf, indices, src)?, l.buffer.dtype()),
                    l.buffer.dtype(),
                )
            }
            // The operands' types come with their code: asking each node for
            // its type would walk a long sum once per term.
            Value::Binary(op, a, b) => {
                let ((a, ta), (b, tb)) = (self.value(a, src)?, self.value(b, src)?);
                let t = ta.promote(tb);
                let (a, b) = (convert(a, ta, t), convert(b, tb, t));
                (ValueCode::Binary(*op, bx(a), bx(b), t), t)
            }
            Value::Cmp(op, a, b) => {
                let ((a, ta), (b, tb)) = (self.value(a, src)?, self.value(b, src)?);
                let t = ta.promote(tb);
                let (a, b) = (convert(a, ta, t), convert(b, tb, t));
                (ValueCode::Cmp(*op, bx(a), bx(b)), DataType::Bool)
            }
            Value::And(a, b) | Value::Or(a, b) => {
                let a = bx(self.value_as(a, DataType::Bool, src)?);
                let b = bx(self.value_as(b, DataType::Bool, src)?);
                let code = if matches!(v, Value::And(..)) {
                    ValueCode::And(a, b)
                } else {
                    ValueCode::Or(a, b)
                };
                (code, DataType::Bool)
            }
            Value::Not(a) => (
                ValueCode::Not(bx(self.value_as(a, DataType::Bool, src)?)),
                DataType::Bool,
            ),
            Value::Neg(a) => {
                let (code, t) = self.value(a, src)?;
                (ValueCode::Neg(bx(code), t), t)
            }
            Value::Cast(t, a) => (self.value_as(a, *t, src)?, *t),
            // As for `Binary`: the branches' types come with their code,
            // so nested selects compile in linear time.
            Value::Likely(c) => self.value(c, src)?,
            Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                let c = self.value_as(c, DataType::Bool, src)?;
                let ((a, ta), (b, tb)) = (self.value(a, src)?, self.value(b, src)?);
                let t = ta.promote(tb);
                let (a, b) = (convert(a, ta, t), convert(b, tb, t));
                (ValueCode::Select(bx(c), bx(a), bx(b)), t)
            }
            Value::Call(op, args) => {
                let compiled = args
                    .iter()
                    .map(|a| self.value(a, src))
                    .collect::<Result<Vec<_>, _>>()?;
                let t = crate::value::call_dtype(*op, compiled.iter().map(|(_, t)| *t));
                let args = compiled
                    .into_iter()
                    .map(|(code, from)| convert(code, from, t))
                    .collect();
                (ValueCode::Call(*op, args, t), t)
            }
            Value::Let(var, x, body) => {
                let x = self.value_as(x, DataType::Int64, src)?;
                let slot = self.var_slot(var);
                self.bound_depth[slot as usize] += 1;
                let body = self.value(body, src);
                self.bound_depth[slot as usize] -= 1;
                let (body, t) = body?;
                (ValueCode::Let(slot, bx(x), bx(body)), t)
            }
        })
    }

    pub(super) fn stage(&mut self, name: &str) -> u32 {
        if let Some(&s) = self.stage_ids.get(name) {
            return s;
        }
        let s = self.stages.len() as u32;
        self.stages.push(name.to_string());
        self.stage_ids.insert(name.to_string(), s);
        s
    }

    /// Compiles `body` with `var` bound.
    pub(super) fn bound(&mut self, var: &Var, body: &'a Stmt) -> Result<(u32, Code<'a>), RunError> {
        let slot = self.var_slot(var);
        self.bound_depth[slot as usize] += 1;
        let body = self.stmt(body);
        self.bound_depth[slot as usize] -= 1;
        Ok((slot, body?))
    }

    /// The loop `s` (a `Stmt::For`), run one iteration after another.
    pub(super) fn serial_loop(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        let Stmt::For {
            var,
            min,
            extent,
            body,
            ..
        } = s
        else {
            unreachable!("called on loops")
        };
        // The bounds are outside the loop's own scope.
        let min = self.index(min, s)?;
        let extent = self.index(extent, s)?;
        let (slot, body) = self.bound(var, body)?;
        Ok(Code::For {
            slot,
            min,
            extent,
            body: Box::new(body),
            src: s,
        })
    }

    /// A `realize` or `allocate` of `buffer` over `min`/`extent`, with
    /// `body` compiled while the buffer has storage.
    pub(super) fn region(
        &mut self,
        buffer: &Buffer,
        min: Vec<IndexCode>,
        extent: Vec<IndexCode>,
        body: &'a Stmt,
        s: &'a Stmt,
    ) -> Result<Code<'a>, RunError> {
        self.region_with(buffer, min, extent, s, |c| c.stmt(body))
    }

    /// [`Self::region`] with the body compiled by `body`.
    pub(super) fn region_with(
        &mut self,
        buffer: &Buffer,
        min: Vec<IndexCode>,
        extent: Vec<IndexCode>,
        s: &'a Stmt,
        body: impl FnOnce(&mut Self) -> Result<Code<'a>, RunError>,
    ) -> Result<Code<'a>, RunError> {
        let shape = self.realized_shape(buffer, s)?;
        let buf = self.buffer_slot(buffer, false)?;
        self.live_depth[buf as usize] += 1;
        let body = body(self);
        self.live_depth[buf as usize] -= 1;
        Ok(Code::Region {
            buf,
            shape,
            min,
            extent,
            body: Box::new(body?),
            src: s,
        })
    }

    pub(super) fn arity(&self, buffer: &Buffer, got: usize, src: &Stmt) -> Result<(), RunError> {
        if got == buffer.ndim() {
            return Ok(());
        }
        Err(RunError::Arity {
            buffer: buffer.name().to_string(),
            expected: buffer.ndim(),
            got,
            stmt: header(src),
        })
    }

    pub(super) fn stmt(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        // Statements nest as deep as a pipeline is long (one region per
        // stage).
        crate::stack::grow(|| self.stmt_step(s))
    }

    /// One level of [`Self::stmt`], on the stack [`crate::stack::grow`] left room on.
    fn stmt_step(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        Ok(match s {
            Stmt::For {
                kind: crate::stmt::ForKind::Thread(launch),
                ..
            } if launch.is_thread_index() => self.thread_launch(s)?,
            Stmt::For { .. } => self.serial_loop(s)?,
            Stmt::Let { var, value, body } => {
                let value = self.index(value, s)?;
                let (slot, body) = self.bound(var, body)?;
                Code::Let {
                    slot,
                    value,
                    body: Box::new(body),
                    src: s,
                }
            }
            Stmt::LetValue { var, value, body } => {
                let value = self.value_as(value, DataType::Int64, s)?;
                let (slot, body) = self.bound(var, body)?;
                Code::LetValue {
                    slot,
                    value,
                    body: Box::new(body),
                    src: s,
                }
            }
            Stmt::Realize {
                buffer,
                region,
                body,
            } => {
                self.arity(buffer, region.len(), s)?;
                let min = region
                    .iter()
                    .map(|r| self.index(&r.min, s))
                    .collect::<Result<_, _>>()?;
                let extent = region
                    .iter()
                    .map(|r| self.index(&r.extent, s))
                    .collect::<Result<_, _>>()?;
                self.region(buffer, min, extent, body, s)?
            }
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => {
                self.arity(buffer, extents.len(), s)?;
                let min = extents.iter().map(|_| IndexCode::Const(0)).collect();
                let extent = self.indices(extents, s)?;
                self.region(buffer, min, extent, body, s)?
            }
            Stmt::Produce { body, .. } | Stmt::TensorCall { body, .. } => self.stmt(body)?,
            Stmt::BufferStore {
                buffer,
                indices,
                value,
                stage,
            } => {
                let value = self.value_as(value, buffer.dtype(), s)?;
                let buf = self.accessed_buffer(buffer, indices.len(), s)?;
                let indices = self.indices(indices, s)?;
                let stage = self.stage(stage);
                Code::Store {
                    access: self.access(buf, indices, s)?,
                    value,
                    stage,
                    src: s,
                }
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                let cond = self.value_as(cond, DataType::Bool, s)?;
                let then_case = Box::new(self.stmt(then_case)?);
                let else_case = match else_case {
                    Some(e) => Some(Box::new(self.stmt(e)?)),
                    None => None,
                };
                Code::If {
                    cond,
                    then_case,
                    else_case,
                    src: s,
                }
            }
            Stmt::While { cond, body } => Code::While {
                cond: self.value_as(cond, DataType::Bool, s)?,
                body: Box::new(self.stmt(body)?),
                src: s,
            },
            Stmt::Seq(v) => Code::Seq(v.iter().map(|c| self.stmt(c)).collect::<Result<_, _>>()?),
            Stmt::Evaluate(v) => Code::Eval(self.value(v, s)?.0, s),
            Stmt::Opaque { call, .. } if call.convention == crate::CallConvention::Packed => {
                let mut args = Vec::with_capacity(call.args.len());
                for a in &call.args {
                    args.push(match a {
                        crate::CallArg::Buffer(b) => {
                            PackedCode::Buffer(self.accessed_buffer(b, b.ndim(), s)?)
                        }
                        crate::CallArg::Value(v) => {
                            let (code, t) = self.value(v, s)?;
                            PackedCode::Value(code, t)
                        }
                        crate::CallArg::Str(text) => PackedCode::Str(text.clone()),
                    });
                }
                Code::Packed {
                    func: &call.func,
                    args,
                    src: s,
                }
            }
            Stmt::Opaque { call, .. } => {
                return Err(RunError::Opaque {
                    func: call.func.clone(),
                })
            }
        })
    }
}

/// `code` of type `from` as a value of type `to`.
fn convert(code: ValueCode, from: DataType, to: DataType) -> ValueCode {
    if from == to {
        code
    } else {
        ValueCode::Cast(Box::new(code), to, from)
    }
}

/// `x` as the type `t` holds it: float32 and float16 round to their
/// precision.
pub(crate) fn round_float(x: f64, t: DataType) -> f64 {
    t.round(x)
}

/// Checks that the integer `x` fits the type `t`.
pub(crate) fn check_int(x: i64, t: DataType) -> Result<(), String> {
    match t.int_range() {
        Some((lo, hi)) if x < lo || x > hi => Err(format!(
            "the value {x} does not fit in {t} (range [{lo}, {hi}])"
        )),
        _ => Ok(()),
    }
}
