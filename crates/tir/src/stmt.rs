//! Statements and functions of the loop IR.

use crate::buffer::Buffer;
use crate::value::{BufferLoad, Value};
use arith::{Expr, Range, Var};

/// A statement of the loop IR.
///
/// Accesses name their buffer and give one index per axis. Two ways of
/// giving a buffer storage exist, as in TVM before and after storage
/// flattening:
/// - [`Stmt::Realize`] (`realize C([dj, 1], [dk, 1]) { .. }`): the buffer
///   exists on a region of its index space; accesses use absolute indices
///   and must fall inside the region.
/// - [`Stmt::Allocate`] (`allocate B[float32 * 16]`): the buffer exists on
///   `[0, extent)` along each axis; accesses are relative to the allocation.
///
/// Buffers that are parameters of the [`PrimFunc`] exist for the whole
/// program; realizing one only narrows the region that may be accessed. The
/// shape of any other buffer is evaluated where it is realized or
/// allocated, so it may use the variables of enclosing loops.
///
/// ```
/// use arith::{Expr, Var};
/// use tir::{Buffer, DataType, Stmt, Value};
/// let a = Buffer::new("A", DataType::Float32, [4i64]);
/// let b = Buffer::new("B", DataType::Float32, [4i64]);
/// let i = Var::new("i");
/// let body = Stmt::store(&b, [i.expr()], Value::load(&a, [i.expr()]) * Value::f32(3.0));
/// let s = Stmt::produce("B", Stmt::for_range(&i, 0, 4, body));
/// assert_eq!(
///     s.to_string(),
///     "produce B {\n  for (i, 0, 4) {\n    B[i] = (A[i]*3.000000f)\n  }\n}\n"
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `for (var, min, extent) { body }`: `var` runs over `[min, min + extent)`;
    /// `min` and `extent` are evaluated once, on entry.
    For {
        /// The loop variable.
        var: Var,
        /// The first value.
        min: Expr,
        /// The number of iterations (none when `<= 0`).
        extent: Expr,
        /// How the loop is meant to run; the interpreter runs every kind
        /// as an ordinary loop.
        kind: ForKind,
        /// `pragma` attributes of the loop, printed above it.
        pragmas: Vec<Pragma>,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `let var = value` over `body`: binds an index variable.
    Let {
        /// The bound variable.
        var: Var,
        /// Its value.
        value: Expr,
        /// Where the binding holds.
        body: Box<Stmt>,
    },
    /// `let var = value` over `body` for an index read at run time (a
    /// scatter's destination, `out[data[i]] = i`): `value`, an integer
    /// value that may load, is evaluated once on entry.
    LetValue {
        /// The bound variable.
        var: Var,
        /// Its value, converted to an integer.
        value: Value,
        /// Where the binding holds.
        body: Box<Stmt>,
    },
    /// `realize B(region) { body }`: `buffer` holds values on `region`
    /// (one `[min, extent]` per axis, evaluated on entry) inside `body`.
    Realize {
        /// The realized buffer.
        buffer: Buffer,
        /// One range per axis of the buffer.
        region: Vec<Range>,
        /// Where the buffer exists.
        body: Box<Stmt>,
    },
    /// `allocate B[float32 * e0 * e1]` over `body`: `buffer` holds values
    /// on `[0, e0) x [0, e1) ...` inside `body`. Extents may depend on outer
    /// loop variables; a static allocation takes the largest over the
    /// iterations.
    Allocate {
        /// The allocated buffer.
        buffer: Buffer,
        /// One extent per axis of the buffer.
        extents: Vec<Expr>,
        /// Where the buffer exists.
        body: Box<Stmt>,
    },
    /// `produce B { body }`: marks where stage `name` computes.
    Produce {
        /// The producing stage.
        name: String,
        /// Its computation.
        body: Box<Stmt>,
    },
    /// `B[i, j] = value`, one execution of stage `stage`'s body.
    BufferStore {
        /// The buffer written.
        buffer: Buffer,
        /// One index per axis.
        indices: Vec<Expr>,
        /// The value stored, converted to the buffer's type.
        value: Value,
        /// The stage this store belongs to, for execution counts.
        stage: String,
    },
    /// `if (cond) { then_case } else { else_case }`.
    IfThenElse {
        /// A `bool` value.
        cond: Value,
        /// Runs when `cond` holds.
        then_case: Box<Stmt>,
        /// Runs otherwise, when present.
        else_case: Option<Box<Stmt>>,
    },
    /// `while (cond) { body }`: `body` runs as long as `cond` (a `bool`
    /// value, evaluated before each iteration) holds. Each iteration is a
    /// step, so a loop that never ends stops at the step limit.
    While {
        /// A `bool` value.
        cond: Value,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// Statements in order; the empty sequence is the no-op.
    Seq(Vec<Stmt>),
    /// Evaluates a value for its checks (its loads) and drops it.
    Evaluate(Value),
    /// A call of a function the program cannot look into (the body of an
    /// extern operation); running it is an error.
    Opaque {
        /// The call.
        call: crate::opaque::OpaqueCall,
        /// Printed under `// attr [0] extern_scope = 0`, as TVM marks the
        /// body of an extern operation.
        extern_scope: bool,
    },
    /// `name(A([min, extent], ..), ..)`: a call of a tensor intrinsic on
    /// regions of buffers (what `tensorize` leaves in place of a loop
    /// nest). Printed as the call; run as `body`, the intrinsic's own
    /// computation over those regions, so a program with the call runs.
    TensorCall {
        /// The function called (`gemv_update`).
        name: String,
        /// The regions passed, inputs then outputs: one `[min, extent]`
        /// per axis of each buffer.
        args: Vec<(Buffer, Vec<Range>)>,
        /// The scalar values passed after the regions.
        scalars: Vec<Expr>,
        /// The call as the intrinsic's function wrote it, with this call
        /// site's buffers and values (what TVM's program holds); `None`
        /// when only the name is known.
        written: Option<Box<crate::opaque::OpaqueCall>>,
        /// What the call computes.
        body: Box<Stmt>,
    },
}

impl Stmt {
    /// `for (var, min, extent) { body }`.
    pub fn for_loop(var: &Var, min: impl Into<Expr>, extent: impl Into<Expr>, body: Stmt) -> Stmt {
        Stmt::for_kind(var, min, extent, ForKind::Serial, Vec::new(), body)
    }

    /// A loop of the given kind with `pragmas`: `parallel (var, min,
    /// extent) { body }`, or a thread launch (see [`ForKind::Thread`]).
    pub fn for_kind(
        var: &Var,
        min: impl Into<Expr>,
        extent: impl Into<Expr>,
        kind: ForKind,
        pragmas: Vec<Pragma>,
        body: Stmt,
    ) -> Stmt {
        Stmt::For {
            var: var.clone(),
            min: min.into(),
            extent: extent.into(),
            kind,
            pragmas,
            body: Box::new(body),
        }
    }

    /// `for (var, lo, hi - lo)` for constant bounds `[lo, hi)`.
    pub fn for_range(var: &Var, lo: i64, hi: i64, body: Stmt) -> Stmt {
        let extent = hi
            .checked_sub(lo)
            .map_or_else(|| Expr::sub(Expr::int(hi), Expr::int(lo)), Expr::int);
        Stmt::for_loop(var, lo, extent, body)
    }

    /// `let var = value` over `body`.
    pub fn let_stmt(var: &Var, value: impl Into<Expr>, body: Stmt) -> Stmt {
        Stmt::Let {
            var: var.clone(),
            value: value.into(),
            body: Box::new(body),
        }
    }

    /// `realize buffer(region) { body }`.
    pub fn realize(buffer: &Buffer, region: Vec<Range>, body: Stmt) -> Stmt {
        Stmt::Realize {
            buffer: buffer.clone(),
            region,
            body: Box::new(body),
        }
    }

    /// `allocate buffer[dtype * extents..]` over `body`.
    pub fn allocate(buffer: &Buffer, extents: Vec<Expr>, body: Stmt) -> Stmt {
        Stmt::Allocate {
            buffer: buffer.clone(),
            extents,
            body: Box::new(body),
        }
    }

    /// An opaque call (see [`Stmt::Opaque`]).
    pub fn opaque(call: crate::opaque::OpaqueCall, extern_scope: bool) -> Stmt {
        Stmt::Opaque { call, extern_scope }
    }

    /// `produce name { body }`.
    pub fn produce(name: impl Into<String>, body: Stmt) -> Stmt {
        Stmt::Produce {
            name: name.into(),
            body: Box::new(body),
        }
    }

    /// `buffer[indices] = value`, counted under the buffer's name as stage.
    pub fn store(
        buffer: &Buffer,
        indices: impl IntoIterator<Item = impl Into<Expr>>,
        value: Value,
    ) -> Stmt {
        Stmt::store_in_stage(buffer.name(), buffer, indices, value)
    }

    /// `buffer[indices] = value`, counted under `stage`.
    pub fn store_in_stage(
        stage: impl Into<String>,
        buffer: &Buffer,
        indices: impl IntoIterator<Item = impl Into<Expr>>,
        value: Value,
    ) -> Stmt {
        Stmt::BufferStore {
            buffer: buffer.clone(),
            indices: indices.into_iter().map(Into::into).collect(),
            value,
            stage: stage.into(),
        }
    }

    /// `if (cond) { then_case }`.
    pub fn if_then(cond: impl Into<Value>, then_case: Stmt) -> Stmt {
        Stmt::IfThenElse {
            cond: cond.into(),
            then_case: Box::new(then_case),
            else_case: None,
        }
    }

    /// `while (cond) { body }` (TVM's `ib.while_loop(cond)`).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use arith::CmpOp;
    /// use tir::{BinOp, Buffer, DataType, PrimFunc, Stmt, Tensor, Value};
    /// let n = Buffer::new("n", DataType::Int32, [1i64]);
    /// let at0 = || Value::load(&n, [arith::Expr::int(0)]);
    /// let two = || Value::constant(2.0, DataType::Int32);
    /// let halve = Stmt::store(&n, [arith::Expr::int(0)], Value::binary(BinOp::FloorDiv, at0(), two()));
    /// let s = Stmt::while_loop(Value::cmp(CmpOp::Gt, at0(), Value::constant(1.0, DataType::Int32)), halve);
    /// assert_eq!(s.to_string(), "while ((n[0] > 1)) {\n  n[0] = floordiv(n[0], 2)\n}\n");
    /// let f = PrimFunc::new("f", vec![n.clone()], s);
    /// let inputs = HashMap::from([(n.clone(), Tensor::new(vec![1], vec![100.0]).unwrap())]);
    /// let out = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    /// assert_eq!(out.tensor(&n).unwrap().data(), &[1.0]);
    /// ```
    pub fn while_loop(cond: impl Into<Value>, body: Stmt) -> Stmt {
        Stmt::While {
            cond: cond.into(),
            body: Box::new(body),
        }
    }

    /// `if (cond) { then_case } else { else_case }`.
    pub fn if_then_else(cond: impl Into<Value>, then_case: Stmt, else_case: Stmt) -> Stmt {
        Stmt::IfThenElse {
            cond: cond.into(),
            then_case: Box::new(then_case),
            else_case: Some(Box::new(else_case)),
        }
    }

    /// A call of the tensor intrinsic `name` on `args`, which computes
    /// `body` (see [`Stmt::TensorCall`]).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use arith::{Range, Var};
    /// use tir::{Buffer, DataType, PrimFunc, Stmt, Tensor, Value};
    /// let a = Buffer::new("A", DataType::Float32, [4i64]);
    /// let b = Buffer::new("B", DataType::Float32, [4i64]);
    /// let i = Var::new("i");
    /// let copy = Stmt::for_range(&i, 0, 4, Stmt::store(&b, [i.expr()], Value::load(&a, [i.expr()])));
    /// let whole = vec![Range::from_extent(arith::Expr::int(4))];
    /// let call = Stmt::tensor_call("vcopy", vec![(a.clone(), whole.clone()), (b.clone(), whole)], vec![], copy);
    /// assert_eq!(call.to_string(), "vcopy(A([0, 4]), B([0, 4]))\n");
    /// let f = PrimFunc::new("f", vec![a.clone(), b.clone()], call);
    /// let inputs = HashMap::from([(a, Tensor::new(vec![4], vec![1.0, 2.0, 3.0, 4.0]).unwrap())]);
    /// let out = tir::run(&f, &inputs, &HashMap::new()).unwrap();
    /// assert_eq!(out.tensor(&b).unwrap().data(), &[1.0, 2.0, 3.0, 4.0]);
    /// ```
    pub fn tensor_call(
        name: impl Into<String>,
        args: Vec<(Buffer, Vec<Range>)>,
        scalars: Vec<Expr>,
        body: Stmt,
    ) -> Stmt {
        Stmt::TensorCall {
            name: name.into(),
            args,
            scalars,
            written: None,
            body: Box::new(body),
        }
    }

    /// This statement inside `let` bindings of index variables to values
    /// read at run time ([`Stmt::LetValue`]), the first binding outermost:
    /// how a store at a data-dependent index (a scatter, `out[idx[k]] =
    /// ...`) is written, since indices are index expressions.
    pub fn with_index_lets(self, lets: Vec<(Var, Value)>) -> Stmt {
        lets.into_iter()
            .rev()
            .fold(self, |body, (var, value)| Stmt::LetValue {
                var,
                value,
                body: Box::new(body),
            })
    }

    /// The statements in order; nested sequences are spliced in and a single
    /// statement is returned as itself.
    pub fn seq(stmts: impl IntoIterator<Item = Stmt>) -> Stmt {
        let mut out = Vec::new();
        for mut s in stmts {
            match &mut s {
                Stmt::Seq(inner) => out.append(inner),
                _ => out.push(s),
            }
        }
        if out.len() == 1 {
            out.pop().unwrap_or_else(Stmt::no_op)
        } else {
            Stmt::Seq(out)
        }
    }

    /// The statement that does nothing (the empty sequence).
    pub fn no_op() -> Stmt {
        Stmt::Seq(Vec::new())
    }

    /// Whether this is the empty sequence.
    pub fn is_no_op(&self) -> bool {
        matches!(self, Stmt::Seq(v) if v.is_empty())
    }

    /// The parts of a thread launch (a [`ForKind::Thread`] loop): its
    /// index, first value, extent, thread and body.
    pub fn as_thread_launch(&self) -> Option<(&Var, &Expr, &Expr, &ThreadLaunch, &Stmt)> {
        match self {
            Stmt::For {
                var,
                min,
                extent,
                kind: ForKind::Thread(l),
                body,
                ..
            } => Some((var, min, extent, l, body)),
            _ => None,
        }
    }

    /// The directly nested statements, in order.
    pub fn children(&self) -> Vec<&Stmt> {
        match self {
            Stmt::For { body, .. }
            | Stmt::Let { body, .. }
            | Stmt::LetValue { body, .. }
            | Stmt::Realize { body, .. }
            | Stmt::Allocate { body, .. }
            | Stmt::Produce { body, .. }
            | Stmt::While { body, .. }
            | Stmt::TensorCall { body, .. } => vec![body],
            Stmt::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                let mut v = vec![&**then_case];
                v.extend(else_case.as_deref());
                v
            }
            Stmt::Seq(v) => v.iter().collect(),
            Stmt::BufferStore { .. } | Stmt::Evaluate(_) | Stmt::Opaque { .. } => Vec::new(),
        }
    }

    /// Calls `f` on this statement and every nested one, outer first, in
    /// program order.
    pub fn visit(&self, f: &mut impl FnMut(&Stmt)) {
        // A work list: statements nest as deep as a pipeline is long.
        let mut pending = vec![self];
        while let Some(s) = pending.pop() {
            f(s);
            pending.extend(s.children().into_iter().rev());
        }
    }

    /// Rewrites every index expression with `f`: loop bounds, `let` values,
    /// regions, extents, access indices, and index expressions inside values
    /// and conditions. Binders (loop and `let` variables) are kept.
    pub fn map_indices(&self, f: &mut impl FnMut(&Expr) -> Expr) -> Stmt {
        match crate::mutate::Mutator::stmt(&mut crate::mutate::MapIndices(f), self) {
            Ok(s) => s,
            Err(never) => match never {},
        }
    }

    /// Replaces free variables by expressions (`f` returns `None` to keep
    /// one), everywhere [`Stmt::map_indices`] reaches. Loop and `let`
    /// binders are not renamed: substitute only variables they do not bind.
    ///
    /// ```
    /// use arith::{Expr, Var};
    /// use tir::{Buffer, DataType, Stmt, Value};
    /// let b = Buffer::new("B", DataType::Int32, [8i64]);
    /// let (x, y) = (Var::new("x"), Var::new("y"));
    /// let s = Stmt::store(&b, [x.expr() + 1], Value::index(x.expr()));
    /// let t = s.substitute(&mut |v| (v == &x).then(|| y.expr() * 2));
    /// assert_eq!(t.to_string(), "B[((y*2) + 1)] = (y*2)\n");
    /// ```
    pub fn substitute(&self, f: &mut impl FnMut(&Var) -> Option<Expr>) -> Stmt {
        self.map_indices(&mut |e| e.substitute(f))
    }

    /// Calls `f` on every load in the statement, in the order the
    /// interpreter performs them (within a store, the loads of its value
    /// come before the store itself).
    pub fn for_each_load(&self, f: &mut impl FnMut(&BufferLoad)) {
        self.visit(&mut |s| match s {
            Stmt::BufferStore { value, .. } | Stmt::Evaluate(value) => value.for_each_load(f),
            Stmt::Opaque { call, .. } => call.args.iter().for_each(|a| {
                if let crate::opaque::CallArg::Value(v) = a {
                    v.for_each_load(f)
                }
            }),
            Stmt::IfThenElse { cond, .. } | Stmt::While { cond, .. } => cond.for_each_load(f),
            _ => {}
        });
    }
}

/// Dropped through a work list: statements nest as deep as a pipeline is
/// long (one allocation per stage).
impl Drop for Stmt {
    fn drop(&mut self) {
        fn take(s: &mut Stmt, out: &mut Vec<Stmt>) {
            match s {
                Stmt::For { body, .. }
                | Stmt::Let { body, .. }
                | Stmt::LetValue { body, .. }
                | Stmt::Realize { body, .. }
                | Stmt::Allocate { body, .. }
                | Stmt::Produce { body, .. }
                | Stmt::While { body, .. }
                | Stmt::TensorCall { body, .. } => {
                    if !body.is_no_op() {
                        out.push(std::mem::replace(&mut **body, Stmt::no_op()));
                    }
                }
                Stmt::IfThenElse {
                    then_case,
                    else_case,
                    ..
                } => {
                    out.push(std::mem::replace(&mut **then_case, Stmt::no_op()));
                    if let Some(e) = else_case.take() {
                        out.push(*e);
                    }
                }
                Stmt::Seq(v) => out.append(v),
                Stmt::BufferStore { .. } | Stmt::Evaluate(_) | Stmt::Opaque { .. } => {}
            }
        }
        let mut pending = Vec::new();
        take(self, &mut pending);
        while let Some(mut s) = pending.pop() {
            take(&mut s, &mut pending);
        }
    }
}

/// How a loop runs (TVM's `ForKind`, and the thread launches TVM writes as
/// `thread_extent` attributes). Annotations never change which iterations
/// run: the interpreter runs every kind as a sequential loop, a thread
/// launch as a loop over the thread index.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum ForKind {
    /// `for (i, 0, n)`: one iteration after another.
    #[default]
    Serial,
    /// `parallel (i, 0, n)`: iterations run in parallel (`s[t].parallel`).
    Parallel,
    /// `vectorized (i, 0, n)`: iterations form one vector
    /// (`s[t].vectorize`).
    Vectorized,
    /// `unrolled (i, 0, n)`: the loop is unrolled (`s[t].unroll`).
    Unrolled,
    /// A loop bound to a GPU thread (`s[t].bind`): printed as
    /// `// attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = n`
    /// over its body, the loop variable being the thread index.
    Thread(ThreadLaunch),
}

/// The thread a [`ForKind::Thread`] loop launches.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadLaunch {
    /// The thread tag: `blockIdx.x`, `threadIdx.y`, `vthread`, ...
    pub tag: String,
    /// The declared domain of the thread axis, when it was given one.
    pub dom: Option<Range>,
}

impl ThreadLaunch {
    /// Whether the tag names a virtual thread (`vthread`, `cthread`), which
    /// TVM annotates as `virtual_thread` rather than `thread_extent`.
    pub fn is_virtual(&self) -> bool {
        self.tag == "vthread" || self.tag == "cthread"
    }

    /// Whether the tag names a thread of a block (`threadIdx.x`, `.y`,
    /// `.z`): the threads that share a block's `shared` memory.
    pub fn is_thread_index(&self) -> bool {
        self.tag.starts_with("threadIdx")
    }

    /// The attribute TVM writes for the launch: `thread_extent` or
    /// `virtual_thread`.
    pub fn attr_key(&self) -> &'static str {
        if self.is_virtual() {
            "virtual_thread"
        } else {
            "thread_extent"
        }
    }
}

/// A `pragma` of a loop (`s[t].pragma(axis, key, value)`), printed as
/// `// attr [iter_var(i.inner, )] pragma_key = value` above the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    /// The pragma's name, without TVM's `pragma_` prefix.
    pub key: String,
    /// Its value.
    pub value: PragmaValue,
    /// The declared domain of the annotated axis (printed in the
    /// attribute's node), when it has one.
    pub dom: Option<Range>,
}

/// The value of a [`Pragma`].
#[derive(Clone, Debug, PartialEq)]
pub enum PragmaValue {
    /// An integer (TVM's default is 1).
    Int(i64),
    /// A string.
    Str(String),
}

/// A program: named buffer parameters and a body. Parameters not given as
/// inputs to the interpreter are outputs.
///
/// Printing shows the body only, as `tvm.lower(..., simple_mode=True)` does.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimFunc {
    /// The function's name.
    pub name: String,
    /// The buffers passed in, inputs and outputs.
    pub params: Vec<Buffer>,
    /// What the function does.
    pub body: Stmt,
}

impl PrimFunc {
    /// A function `name(params) { body }`.
    pub fn new(name: impl Into<String>, params: Vec<Buffer>, body: Stmt) -> PrimFunc {
        PrimFunc {
            name: name.into(),
            params,
            body,
        }
    }

    /// The first parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&Buffer> {
        self.params.iter().find(|b| b.name() == name)
    }
}
