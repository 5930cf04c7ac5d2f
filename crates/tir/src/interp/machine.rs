//! Execution of compiled programs.

use super::compile::{
    check_int, round_float, Access, Code, Compiled, IndexCode, ThreadLoop, ValueCode,
};
use super::error::{AccessKind, AccessViolation, Problem, RunError};
use crate::dtype::DataType;
use crate::print::Printer;
use crate::stmt::Stmt;
use crate::value::BinOp;
use arith::num;
use smallvec::SmallVec;

/// Per-axis integers, on the stack for up to eight axes.
type Axes = SmallVec<[i64; 8]>;

/// The limits a run respects.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub keep_going: bool,
    pub max_steps: Option<u64>,
    pub interrupt: Option<super::Interrupt>,
    pub max_elements: u64,
    pub max_reported: usize,
}

/// What the machine knows about one stored element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    /// No store has written it.
    Unwritten,
    /// Its value was given as input or has been read since the last store.
    Settled,
    /// Stage `.0` stored it and nothing has read it since.
    Pending(u32),
}

/// The storage of one buffer: values on a box of its index space.
pub(crate) struct Storage {
    pub data: Vec<f64>,
    pub elements: Vec<Element>,
    /// The buffer's shape.
    shape: Axes,
    /// The box the data covers: first index and extent per axis.
    layout_min: Axes,
    layout_extent: Axes,
    /// The box accesses may touch. An index inside it and inside the
    /// buffer's shape is inside the layout box: the boxes are equal for an
    /// intermediate buffer, and the layout is the whole shape for a
    /// parameter.
    region_min: Axes,
    region_extent: Axes,
}

impl Storage {
    /// Storage for a whole buffer of `shape`.
    pub fn whole(shape: &[i64], data: Vec<f64>, state: Element) -> Storage {
        let n = data.len();
        Storage {
            data,
            elements: vec![state; n],
            shape: shape.iter().copied().collect(),
            layout_min: shape.iter().map(|_| 0).collect(),
            layout_extent: shape.iter().copied().collect(),
            region_min: shape.iter().map(|_| 0).collect(),
            region_extent: shape.iter().copied().collect(),
        }
    }

    /// Storage of nothing, for a buffer outside its realize.
    fn dead() -> Storage {
        Storage {
            data: Vec::new(),
            elements: Vec::new(),
            shape: Axes::new(),
            layout_min: Axes::new(),
            layout_extent: Axes::new(),
            region_min: Axes::new(),
            region_extent: Axes::new(),
        }
    }
}

/// A runtime value: integer types are exact, floats are `f64` rounded to
/// their type after every operation.
#[derive(Clone, Copy)]
enum Scalar {
    Int(i64),
    Float(f64),
}

impl Scalar {
    fn truthy(self) -> bool {
        match self {
            Scalar::Int(v) => v != 0,
            Scalar::Float(v) => v != 0.0,
        }
    }
}

/// The state of a run.
pub(crate) struct Machine<'c, 'a> {
    program: &'c Compiled<'a>,
    slots: Vec<i64>,
    pub storage: Vec<Storage>,
    pub stage_runs: Vec<u64>,
    /// Per stage, stores whose value nothing read before it was overwritten
    /// or its storage released.
    pub unused_stores: Vec<u64>,
    /// The largest region (in elements) each buffer slot was given.
    pub largest_region: Vec<Option<u64>>,
    pub violations: Vec<AccessViolation>,
    pub violation_count: u64,
    steps: u64,
    limits: Limits,
    /// Scratch space for evaluating compiled indices.
    index_stack: std::cell::RefCell<arith::Stack>,
    /// How deeply `value` is nested now.
    value_depth: u32,
    /// The observer of an observed run ([`super::Interpreter::run_observed`]);
    /// `None` (the default) costs one test per access and loop.
    observing: Option<Observing<'c, 'a>>,
    /// Per buffer slot, what the regions begun by [`Code::Enter`] shadow.
    shadowed: Vec<Vec<Shadowed>>,
    /// The packed functions the run was given, if any; the built-in ones
    /// answer the names these do not.
    packed: Option<&'c mut dyn crate::PackedFunctions>,
}

/// What a region of a buffer slot replaced, restored when it ends.
struct Shadowed {
    /// The storage of an intermediate buffer, or the window of a parameter.
    storage: Storage,
    /// Whether the observer was told the region began.
    observed: bool,
}

/// The state of an observed run: the observer, which buffer slots it
/// watches, the loops open now and the stage whose store is running.
struct Observing<'c, 'a> {
    observer: &'c mut dyn super::Observer,
    watched: Vec<bool>,
    /// Open loops, outermost first: slot, first value, the loop.
    loops: Vec<(u32, i64, &'a Stmt)>,
    /// The stage of the store being evaluated.
    stage: Option<u32>,
}

impl<'a> Observing<'_, 'a> {
    fn loop_states(&self, slots: &[i64]) -> Vec<super::LoopState<'a>> {
        self.loops
            .iter()
            .map(|&(slot, first, src)| super::LoopState {
                var: match src {
                    Stmt::For { var, .. } => var,
                    _ => unreachable!("only loops are pushed"),
                },
                first,
                value: slots[slot as usize],
            })
            .collect()
    }
}

fn header(s: &Stmt) -> String {
    Printer::new().header(s)
}

fn index_error(message: String, src: &Stmt) -> RunError {
    RunError::Index {
        message,
        stmt: header(src),
    }
}

fn value_error(message: String, src: &Stmt) -> RunError {
    RunError::Value {
        message,
        stmt: header(src),
    }
}

/// Why index arithmetic failed. Kept to one byte so that the hot path
/// returns small results; the message is made only when reporting.
#[derive(Clone, Copy, Debug)]
enum IndexFault {
    Overflow,
    DivisionByZero,
}

impl IndexFault {
    fn message(self) -> String {
        match self {
            IndexFault::Overflow => {
                "integer overflow: the result does not fit in 64 bits".to_string()
            }
            IndexFault::DivisionByZero => "division or modulo by zero".to_string(),
        }
    }
}

impl IndexCode {
    /// The value, with the semantics of [`arith::Expr::eval`]; `stack` is
    /// scratch space.
    fn eval(&self, slots: &[i64], stack: &mut arith::Stack) -> Result<i64, IndexFault> {
        match self {
            IndexCode::Const(v) => Ok(*v),
            IndexCode::Slot(s) => Ok(slots[*s as usize]),
            IndexCode::Compiled(code) => code.run_checked(slots, stack).map_err(|u| match u {
                arith::Undefined::DivisionByZero => IndexFault::DivisionByZero,
                // Slots cover every variable; a short point cannot happen.
                arith::Undefined::Overflow | arith::Undefined::MissingVariable => {
                    IndexFault::Overflow
                }
            }),
        }
    }
}

/// 2^63, the first float above `i64::MAX`.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// `x` converted from type `from` to type `to`; integers out of range and
/// non-finite floats converted to integers are errors.
fn cast(x: Scalar, from: DataType, to: DataType) -> Result<Scalar, String> {
    match (x, to.is_float()) {
        (Scalar::Int(v), true) => Ok(Scalar::Float(round_float(v as f64, to))),
        (Scalar::Float(v), true) => Ok(Scalar::Float(round_float(v, to))),
        (x, false) if to == DataType::Bool => Ok(Scalar::Int(x.truthy() as i64)),
        // An integer conversion keeps the low bits (LLVM's `trunc`).
        (Scalar::Int(v), false) => Ok(Scalar::Int(to.wrap_int(v))),
        (Scalar::Float(v), false) => {
            let t = v.trunc();
            if !(-TWO_POW_63..TWO_POW_63).contains(&t) {
                return Err(format!("the {from} value {v} does not fit in {to}"));
            }
            let i = t as i64;
            check_int(i, to).map(|_| Scalar::Int(i))
        }
    }
}

fn int_binary(op: BinOp, x: i64, y: i64, t: DataType) -> Result<i64, String> {
    if t.wraps() {
        // Modulo 2^bits: the low 64 bits of the exact result carry the
        // low `bits` bits.
        match op {
            BinOp::Add => return Ok(t.wrap_int(x.wrapping_add(y))),
            BinOp::Sub => return Ok(t.wrap_int(x.wrapping_sub(y))),
            BinOp::Mul => return Ok(t.wrap_int(x.wrapping_mul(y))),
            _ => {}
        }
    }
    let r = match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div | BinOp::FloorDiv | BinOp::FloorMod if y == 0 => {
            return Err(format!("{t} division by zero"))
        }
        // TVM's `Div` on integers truncates toward zero.
        BinOp::Div => x.checked_div(y),
        BinOp::FloorDiv => num::floor_div(x, y).ok(),
        BinOp::FloorMod => num::floor_mod(x, y).ok(),
        BinOp::Min => Some(x.min(y)),
        BinOp::Max => Some(x.max(y)),
    };
    let r = r.ok_or_else(|| format!("{t} overflow in {x} {op:?} {y}"))?;
    check_int(r, t).map_err(|m| format!("{t} overflow: {m}"))?;
    Ok(r)
}

fn float_binary(op: BinOp, x: f64, y: f64, t: DataType) -> f64 {
    let r = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => (x / y).floor(),
        BinOp::FloorMod => x - (x / y).floor() * y,
        BinOp::Min => x.min(y),
        BinOp::Max => x.max(y),
    };
    round_float(r, t)
}

impl<'c, 'a> Machine<'c, 'a> {
    pub fn new(
        program: &'c Compiled<'a>,
        storage: Vec<Storage>,
        limits: Limits,
    ) -> Machine<'c, 'a> {
        let mut slots = vec![0; program.slot_count];
        for &(s, v) in &program.sizes {
            slots[s as usize] = v;
        }
        let mut storage = storage;
        storage.resize_with(program.buffers.len(), Storage::dead);
        Machine {
            program,
            slots,
            storage,
            stage_runs: vec![0; program.stages.len()],
            unused_stores: vec![0; program.stages.len()],
            largest_region: vec![None; program.buffers.len()],
            violations: Vec::new(),
            violation_count: 0,
            steps: 0,
            limits,
            index_stack: Default::default(),
            value_depth: 0,
            observing: None,
            shadowed: Vec::new(),
            packed: None,
        }
    }

    /// Reports the accesses and regions of the buffers `observer` watches.
    pub fn observe(&mut self, observer: &'c mut dyn super::Observer) {
        let watched = self
            .program
            .buffers
            .iter()
            .map(|info| observer.watches(&info.buffer))
            .collect();
        self.observing = Some(Observing {
            observer,
            watched,
            loops: Vec::new(),
            stage: None,
        });
    }

    /// Tells the observer about an access, if it watches the buffer.
    fn report_access(&mut self, buf: u32, kind: AccessKind, indices: &[i64]) {
        let Some(o) = self.observing.as_mut() else {
            return;
        };
        if !o.watched[buf as usize] {
            return;
        }
        let program = self.program;
        let stage = o.stage.map(|k| program.stages[k as usize].as_str());
        let loops = o.loop_states(&self.slots);
        let buffer = &program.buffers[buf as usize].buffer;
        o.observer.access(&super::ObservedAccess {
            kind,
            buffer,
            indices,
            stage,
            loops: &loops,
        });
    }

    /// Gives the run the packed functions `call_packed` may name.
    pub fn with_packed(&mut self, packed: &'c mut dyn crate::PackedFunctions) {
        self.packed = Some(packed);
    }

    /// A packed call: the whole buffers and the values passed, the
    /// function called, and the arrays' values written back (every element
    /// of them counts as written, and read). Each element passed is a step.
    fn packed_call(
        &mut self,
        func: &str,
        args: &[super::compile::PackedCode],
        src: &Stmt,
    ) -> Result<(), RunError> {
        use super::compile::PackedCode;
        use crate::PackedArg;
        let failed = |message: String| RunError::Packed {
            func: func.to_string(),
            message,
        };
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(match a {
                PackedCode::Buffer(slot) => {
                    let st = &self.storage[*slot as usize];
                    let whole = st.layout_min.iter().all(|&m| m == 0)
                        && st.layout_extent == st.shape
                        && st.data.len() as i64 == st.shape.iter().product::<i64>();
                    let buffer = &self.program.buffers[*slot as usize].buffer;
                    if !whole {
                        return Err(failed(format!(
                            "`{}` is passed while only part of it is stored",
                            buffer.name()
                        )));
                    }
                    for _ in 0..st.data.len() {
                        self.step()?;
                    }
                    let st = &self.storage[*slot as usize];
                    PackedArg::Array {
                        name: buffer.name().to_string(),
                        shape: st.shape.to_vec(),
                        dtype: buffer.dtype(),
                        data: st.data.clone(),
                    }
                }
                PackedCode::Value(v, t) => match self.value(v, src)? {
                    Scalar::Int(x) => PackedArg::Int(x),
                    Scalar::Float(x) if t.is_float() => PackedArg::Float(x),
                    Scalar::Float(x) => PackedArg::Int(x as i64),
                },
                PackedCode::Str(text) => PackedArg::Str(text.clone()),
            });
        }
        let answer = match self.packed.as_deref_mut() {
            Some(p) => p.call(func, &mut values),
            None => None,
        };
        let answer = answer.or_else(|| crate::packed::builtin(func, &mut values));
        match answer {
            None => {
                return Err(RunError::Opaque {
                    func: func.to_string(),
                })
            }
            Some(Err(message)) => return Err(failed(message)),
            Some(Ok(())) => {}
        }
        for (a, v) in args.iter().zip(values) {
            if let (PackedCode::Buffer(slot), PackedArg::Array { data, dtype, .. }) = (a, v) {
                let st = &mut self.storage[*slot as usize];
                if data.len() != st.data.len() {
                    return Err(failed(format!(
                        "the function changed the number of elements of an array ({} to {})",
                        st.data.len(),
                        data.len()
                    )));
                }
                for (x, y) in st.data.iter_mut().zip(data) {
                    *x = dtype.round(y);
                }
                st.elements.fill(Element::Settled);
            }
        }
        Ok(())
    }

    fn step(&mut self) -> Result<(), RunError> {
        self.steps += 1;
        if self.steps.is_multiple_of(super::INTERRUPT_INTERVAL) {
            if let Some(hook) = self.limits.interrupt {
                if hook.requested() {
                    return Err(RunError::Interrupted { steps: self.steps });
                }
            }
        }
        match self.limits.max_steps {
            Some(limit) if self.steps > limit => Err(RunError::StepLimit { limit }),
            _ => Ok(()),
        }
    }

    fn index(&self, e: &IndexCode, src: &Stmt) -> Result<i64, RunError> {
        e.eval(&self.slots, &mut self.index_stack.borrow_mut())
            .map_err(|fault| index_error(fault.message(), src))
    }

    /// Records a violation; an error unless the run keeps going.
    fn violation(&mut self, v: AccessViolation) -> Result<(), RunError> {
        if !self.limits.keep_going {
            return Err(RunError::Access(Box::new(v)));
        }
        self.violation_count += 1;
        if self.violations.len() < self.limits.max_reported {
            self.violations.push(v);
        }
        Ok(())
    }

    /// The position of an access in its buffer's storage, or `None` after a
    /// recorded violation.
    fn locate(
        &mut self,
        a: &Access,
        kind: AccessKind,
        src: &Stmt,
    ) -> Result<Option<(usize, usize)>, RunError> {
        let mut ix = Axes::new();
        for e in &a.indices {
            ix.push(self.index(e, src)?);
        }
        let buf = match &a.copy {
            // The copy is a thread's position in its block, below the
            // block's size by construction.
            Some(c) => a.buf as usize + self.index(c, src)? as usize,
            None => a.buf as usize,
        };
        if self.observing.is_some() {
            self.report_access(buf as u32, kind, &ix);
        }
        let info = &self.program.buffers[buf];
        let st = &self.storage[buf];
        let outside_shape = ix.iter().zip(&st.shape).any(|(&i, &n)| i < 0 || i >= n);
        let problem = if outside_shape {
            Problem::OutsideShape {
                shape: st.shape.to_vec(),
            }
        } else if ix
            .iter()
            .zip(st.region_min.iter().zip(&st.region_extent))
            // A distance that overflows is far outside any region.
            .any(|(&i, (&m, &e))| i < m || i.checked_sub(m).is_none_or(|d| d >= e))
        {
            Problem::OutsideRegion {
                min: st.region_min.to_vec(),
                extent: st.region_extent.to_vec(),
            }
        } else {
            // Inside the shape and the region, hence inside the layout box:
            // the offset is below the storage length and cannot overflow.
            let mut off = 0i64;
            for ((&i, &m), &e) in ix.iter().zip(&st.layout_min).zip(&st.layout_extent) {
                off = off * e + (i - m);
            }
            let off = off as usize;
            match (kind, st.elements[off]) {
                (AccessKind::Store, _) => return Ok(Some((buf, off))),
                (AccessKind::Load, Element::Unwritten) => Problem::Uninitialized,
                (AccessKind::Load, Element::Settled) => return Ok(Some((buf, off))),
                (AccessKind::Load, _) => {
                    self.storage[buf].elements[off] = Element::Settled;
                    return Ok(Some((buf, off)));
                }
            }
        };
        let v = AccessViolation {
            kind,
            buffer: info.buffer.name().to_string(),
            indices: ix.to_vec(),
            problem,
            stmt: header(src),
        };
        self.violation(v)?;
        Ok(None)
    }

    /// The value of `v`. Every 16th level of nesting checks the room left
    /// on the stack (a level takes far less than the red zone), rather
    /// than every level.
    fn value(&mut self, v: &ValueCode, src: &Stmt) -> Result<Scalar, RunError> {
        self.value_depth += 1;
        let r = if self.value_depth.is_multiple_of(16) {
            crate::stack::grow(|| self.value_step(v, src))
        } else {
            self.value_step(v, src)
        };
        self.value_depth -= 1;
        r
    }

    /// One level of [`Self::value`], on the stack [`crate::stack::grow`] left room on.
    fn value_step(&mut self, v: &ValueCode, src: &Stmt) -> Result<Scalar, RunError> {
        Ok(match v {
            ValueCode::Int(x) => Scalar::Int(*x),
            ValueCode::Float(x) => Scalar::Float(*x),
            ValueCode::Index(e, t) => {
                let x = self.index(e, src)?;
                check_int(x, *t).map_err(|m| value_error(m, src))?;
                Scalar::Int(x)
            }
            ValueCode::Load(a, t) => match self.locate(a, AccessKind::Load, src)? {
                Some((buf, off)) => {
                    let x = self.storage[buf].data[off];
                    if t.is_float() {
                        Scalar::Float(x)
                    } else {
                        Scalar::Int(x as i64)
                    }
                }
                // A recorded violation reads as zero so the run can go on.
                None if t.is_float() => Scalar::Float(0.0),
                None => Scalar::Int(0),
            },
            ValueCode::Binary(op, a, b, t) => match (self.value(a, src)?, self.value(b, src)?) {
                (Scalar::Int(x), Scalar::Int(y)) => {
                    Scalar::Int(int_binary(*op, x, y, *t).map_err(|m| value_error(m, src))?)
                }
                (Scalar::Float(x), Scalar::Float(y)) => Scalar::Float(float_binary(*op, x, y, *t)),
                _ => unreachable!("the compiler casts both operands to the result type"),
            },
            ValueCode::Cmp(op, a, b) => {
                let r = match (self.value(a, src)?, self.value(b, src)?) {
                    (Scalar::Int(x), Scalar::Int(y)) => op.apply(x, y),
                    (Scalar::Float(x), Scalar::Float(y)) => op.apply(x, y),
                    _ => unreachable!("the compiler casts both operands to one type"),
                };
                Scalar::Int(r as i64)
            }
            ValueCode::And(a, b) => {
                Scalar::Int((self.value(a, src)?.truthy() && self.value(b, src)?.truthy()) as i64)
            }
            ValueCode::Or(a, b) => {
                Scalar::Int((self.value(a, src)?.truthy() || self.value(b, src)?.truthy()) as i64)
            }
            ValueCode::Not(a) => Scalar::Int(!self.value(a, src)?.truthy() as i64),
            ValueCode::Neg(a, t) => match self.value(a, src)? {
                Scalar::Int(x) if t.wraps() => Scalar::Int(t.wrap_int(x.wrapping_neg())),
                Scalar::Int(x) => {
                    let r = x
                        .checked_neg()
                        .ok_or_else(|| format!("{t} overflow in -({x})"));
                    let r = r.and_then(|r| check_int(r, *t).map(|_| r));
                    Scalar::Int(r.map_err(|m| value_error(m, src))?)
                }
                Scalar::Float(x) => Scalar::Float(-x),
            },
            ValueCode::Cast(a, to, from) => {
                let x = self.value(a, src)?;
                cast(x, *from, *to).map_err(|m| value_error(m, src))?
            }
            ValueCode::Select(c, a, b) => {
                if self.value(c, src)?.truthy() {
                    self.value(a, src)?
                } else {
                    self.value(b, src)?
                }
            }
            ValueCode::Call(op, args, t) => {
                let mut xs: SmallVec<[f64; 4]> = SmallVec::new();
                for a in args {
                    xs.push(match self.value(a, src)? {
                        Scalar::Float(x) => x,
                        Scalar::Int(x) => x as f64,
                    });
                }
                let r = op.apply_as(&xs, *t).ok_or_else(|| {
                    value_error(format!("{op} takes {} argument(s)", op.arity()), src)
                })?;
                if t.is_float() {
                    Scalar::Float(round_float(r, *t))
                } else {
                    Scalar::Int(r as i64)
                }
            }
            ValueCode::Let(slot, x, body) => {
                let x = match self.value(x, src)? {
                    Scalar::Int(x) => x,
                    Scalar::Float(x) => x as i64,
                };
                self.slots[*slot as usize] = x;
                self.value(body, src)?
            }
        })
    }

    pub fn run(&mut self, code: &Code<'a>) -> Result<(), RunError> {
        // Statements nest as deep as a pipeline is long (one region per
        // stage).
        crate::stack::grow(|| self.run_step(code))
    }

    /// One level of [`Self::run`], on the stack [`crate::stack::grow`] left room on.
    fn run_step(&mut self, code: &Code<'a>) -> Result<(), RunError> {
        match code {
            Code::For {
                slot,
                min,
                extent,
                body,
                src,
            } => {
                let lo = self.index(min, src)?;
                let n = self.index(extent, src)?;
                let hi = num::add(lo, n.max(0)).map_err(|e| index_error(e.message, src))?;
                let saved = self.slots[*slot as usize];
                if let Some(o) = self.observing.as_mut() {
                    o.loops.push((*slot, lo, src));
                }
                for i in lo..hi {
                    self.step()?;
                    self.slots[*slot as usize] = i;
                    self.run(body)?;
                }
                if let Some(o) = self.observing.as_mut() {
                    o.loops.pop();
                }
                self.slots[*slot as usize] = saved;
            }
            Code::Let {
                slot,
                value,
                body,
                src,
            } => {
                let v = self.index(value, src)?;
                let saved = std::mem::replace(&mut self.slots[*slot as usize], v);
                self.run(body)?;
                self.slots[*slot as usize] = saved;
            }
            Code::LetValue {
                slot,
                value,
                body,
                src,
            } => {
                let v = match self.value(value, src)? {
                    Scalar::Int(x) => x,
                    Scalar::Float(x) => x as i64,
                };
                let saved = std::mem::replace(&mut self.slots[*slot as usize], v);
                self.run(body)?;
                self.slots[*slot as usize] = saved;
            }
            Code::Region {
                buf,
                shape,
                min,
                extent,
                body,
                src,
            } => self.region(*buf, shape, min, extent, body, src)?,
            Code::Store {
                access,
                value,
                stage,
                src,
            } => {
                self.step()?;
                self.stage_runs[*stage as usize] += 1;
                if let Some(o) = self.observing.as_mut() {
                    o.stage = Some(*stage);
                }
                // (An error ends the run, so the stage need not be reset.)
                let x = self.value(value, src)?;
                let t = self.program.buffers[access.buf as usize].buffer.dtype();
                let stored = match x {
                    Scalar::Int(v) => {
                        // Integers above 2^53 would silently lose digits in
                        // `f64` storage.
                        if v.unsigned_abs() > 1 << 53 {
                            return Err(value_error(
                                format!("the {t} value {v} cannot be stored exactly (|v| > 2^53)"),
                                src,
                            ));
                        }
                        v as f64
                    }
                    Scalar::Float(v) => v,
                };
                let located = self.locate(access, AccessKind::Store, src)?;
                if let Some(o) = self.observing.as_mut() {
                    o.stage = None;
                }
                if let Some((buf, off)) = located {
                    let st = &mut self.storage[buf];
                    st.data[off] = stored;
                    if let Element::Pending(earlier) = st.elements[off] {
                        self.unused_stores[earlier as usize] += 1;
                    }
                    st.elements[off] = Element::Pending(*stage);
                }
            }
            Code::If {
                cond,
                then_case,
                else_case,
                src,
            } => {
                if self.value(cond, src)?.truthy() {
                    self.run(then_case)?;
                } else if let Some(e) = else_case {
                    self.run(e)?;
                }
            }
            Code::While { cond, body, src } => loop {
                self.step()?;
                if !self.value(cond, src)?.truthy() {
                    break;
                }
                self.run(body)?;
            },
            Code::Seq(v) => {
                for c in v {
                    self.run(c)?;
                }
            }
            Code::Eval(v, src) => {
                self.value(v, src)?;
            }
            Code::Packed { func, args, src } => self.packed_call(func, args, src)?,
            Code::EachThread { threads, body } => self.each_thread(threads, body)?,
            Code::Enter {
                buf,
                copy,
                shape,
                min,
                extent,
                src,
            } => {
                let slot = *buf + self.index(copy, src)? as u32;
                let shadowed = self.enter_region(slot, shape, min, extent, src)?;
                if self.shadowed.len() <= slot as usize {
                    self.shadowed.resize_with(slot as usize + 1, Vec::new);
                }
                self.shadowed[slot as usize].push(shadowed);
            }
            Code::Leave { buf, copy, src } => {
                let slot = *buf + self.index(copy, src)? as u32;
                let shadowed = self.shadowed[slot as usize]
                    .pop()
                    .expect("a region ends after it begins");
                self.leave_region(slot, shadowed);
            }
        }
        Ok(())
    }

    /// Runs `body` for every combination of the thread indices, the first
    /// thread varying slowest.
    fn each_thread(&mut self, threads: &[ThreadLoop<'a>], body: &Code<'a>) -> Result<(), RunError> {
        let Some((t, rest)) = threads.split_first() else {
            return self.run(body);
        };
        let lo = self.index(&t.min, t.src)?;
        let n = self.index(&t.extent, t.src)?;
        let hi = num::add(lo, n.max(0)).map_err(|e| index_error(e.message, t.src))?;
        let saved = self.slots[t.slot as usize];
        if let Some(o) = self.observing.as_mut() {
            o.loops.push((t.slot, lo, t.src));
        }
        for i in lo..hi {
            // A step per thread and statement, as a thread loop run one
            // thread after another counts its iterations: a block of many
            // threads whose statements store nothing still meets the limit
            // and the interrupt.
            self.step()?;
            self.slots[t.slot as usize] = i;
            self.each_thread(rest, body)?;
        }
        if let Some(o) = self.observing.as_mut() {
            o.loops.pop();
        }
        self.slots[t.slot as usize] = saved;
        Ok(())
    }

    /// Runs `body` with buffer slot `buf` given the region `min`/`extent`:
    /// fresh storage for an intermediate buffer, a narrowed window onto the
    /// storage of a parameter.
    fn region(
        &mut self,
        buf: u32,
        shape: &[IndexCode],
        min: &[IndexCode],
        extent: &[IndexCode],
        body: &Code<'a>,
        src: &Stmt,
    ) -> Result<(), RunError> {
        let shadowed = self.enter_region(buf, shape, min, extent, src)?;
        self.run(body)?;
        self.leave_region(buf, shadowed);
        Ok(())
    }

    /// Gives buffer slot `buf` the region `min`/`extent` (a realize nested
    /// in another of the same buffer shadows it); returns what it replaced.
    fn enter_region(
        &mut self,
        buf: u32,
        shape: &[IndexCode],
        min: &[IndexCode],
        extent: &[IndexCode],
        src: &Stmt,
    ) -> Result<Shadowed, RunError> {
        let program = self.program;
        let info = &program.buffers[buf as usize];
        let name = || info.buffer.name().to_string();
        let mut mins = Axes::new();
        let mut exts = Axes::new();
        let mut elements: u64 = 1;
        for (m, e) in min.iter().zip(extent) {
            let m = self.index(m, src)?;
            let e = self.index(e, src)?;
            if e < 0 {
                return Err(RunError::Allocation {
                    buffer: name(),
                    message: format!("an extent evaluates to {e}, which is negative"),
                    stmt: header(src),
                });
            }
            mins.push(m);
            exts.push(e);
            elements = elements.saturating_mul(e as u64);
        }
        // A parameter's realize only narrows its window; nothing is allocated.
        if !info.is_param && elements > self.limits.max_elements {
            return Err(RunError::Allocation {
                buffer: name(),
                message: format!(
                    "{elements} elements exceed the limit of {} (raise it with Interpreter::max_elements)",
                    self.limits.max_elements
                ),
                stmt: header(src),
            });
        }
        let largest = &mut self.largest_region[buf as usize];
        *largest = Some(largest.map_or(elements, |l| l.max(elements)));
        let observed = match self.observing.as_mut() {
            Some(o) if o.watched[buf as usize] => {
                let loops = o.loop_states(&self.slots);
                o.observer.enter_region(&info.buffer, &mins, &exts, &loops);
                true
            }
            _ => false,
        };
        let storage = if info.is_param {
            let st = &mut self.storage[buf as usize];
            // A window: only the region matters.
            Storage {
                region_min: std::mem::replace(&mut st.region_min, mins),
                region_extent: std::mem::replace(&mut st.region_extent, exts),
                ..Storage::dead()
            }
        } else {
            let mut sizes = Axes::new();
            for e in shape {
                let v = self.index(e, src)?;
                if v < 0 {
                    return Err(RunError::Allocation {
                        buffer: name(),
                        message: format!(
                            "an axis of its shape evaluates to {v}, which is negative"
                        ),
                        stmt: header(src),
                    });
                }
                sizes.push(v);
            }
            let n = elements as usize;
            let fresh = Storage {
                data: vec![0.0; n],
                elements: vec![Element::Unwritten; n],
                shape: sizes,
                layout_min: mins.clone(),
                layout_extent: exts.clone(),
                region_min: mins,
                region_extent: exts,
            };
            std::mem::replace(&mut self.storage[buf as usize], fresh)
        };
        Ok(Shadowed { storage, observed })
    }

    /// Ends the region [`Self::enter_region`] began: a parameter gets its
    /// window back, an intermediate buffer's storage is released (counting
    /// the stores nothing read).
    fn leave_region(&mut self, buf: u32, shadowed: Shadowed) {
        let info = &self.program.buffers[buf as usize];
        let st = &mut self.storage[buf as usize];
        if info.is_param {
            st.region_min = shadowed.storage.region_min;
            st.region_extent = shadowed.storage.region_extent;
        } else {
            let released = std::mem::replace(st, shadowed.storage);
            for e in released.elements {
                if let Element::Pending(stage) = e {
                    self.unused_stores[stage as usize] += 1;
                }
            }
        }
        if shadowed.observed {
            if let Some(o) = self.observing.as_mut() {
                o.observer.leave_region(&info.buffer);
            }
        }
    }
}
