//! Body expressions of compute operations: the values a tensor element is
//! computed from.

use crate::comm_reducer::CommReduce;
use crate::iter_var::IterVar;
use crate::operation::Tensor;
use arith::{CmpOp, Expr, Var};
use std::fmt;
use std::sync::Arc;
use tir::{DataType, Intrinsic};

/// A binary arithmetic operator on element values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`: true division for floats, floor division for integers.
    Div,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
    /// `a % b`: floor modulo (`a - b * floor(a / b)`), for floats too.
    Mod,
}

impl BinaryOp {
    /// Applies the operator to two element values. Integer division is floor
    /// division (`None` when dividing an integer by zero).
    pub fn apply(self, a: f64, b: f64, integer: bool) -> Option<f64> {
        Some(match self {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div if integer => {
                if b == 0.0 {
                    return None;
                }
                (a / b).floor()
            }
            BinaryOp::Div => a / b,
            BinaryOp::Min => a.min(b),
            BinaryOp::Max => a.max(b),
            BinaryOp::Mod if integer && b == 0.0 => return None,
            BinaryOp::Mod => a - b * (a / b).floor(),
        })
    }

    fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
            BinaryOp::Mod => "%",
        }
    }
}

/// How a reduction combines values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reducer {
    /// `te.sum`, identity 0.
    Sum,
    /// `te.max`, identity the lowest value of the type.
    Max,
    /// `te.min`, identity the highest value of the type.
    Min,
    /// A product (`te.comm_reducer(lambda x, y: x * y, ...)`), identity 1.
    Prod,
}

impl Reducer {
    /// The identity element for `dtype` (the reduction of nothing). For
    /// `max` and `min` it is the lowest and highest finite value of the
    /// type, as TVM's `min_value`/`max_value` give it (`-3.40282e+38f` for
    /// float32), not an infinity.
    pub fn identity(self, dtype: DataType) -> f64 {
        let (lo, hi) = match dtype.int_range() {
            Some((lo, hi)) => (lo as f64, hi as f64),
            None if dtype == DataType::Float32 => (f64::from(f32::MIN), f64::from(f32::MAX)),
            None => (f64::MIN, f64::MAX),
        };
        match self {
            Reducer::Sum => 0.0,
            Reducer::Prod => 1.0,
            Reducer::Max => lo,
            Reducer::Min => hi,
        }
    }

    /// The operator that folds one more value into the accumulator.
    pub fn combiner(self) -> BinaryOp {
        match self {
            Reducer::Sum => BinaryOp::Add,
            Reducer::Prod => BinaryOp::Mul,
            Reducer::Max => BinaryOp::Max,
            Reducer::Min => BinaryOp::Min,
        }
    }

    /// TVM's name (`sum`, `max`, `min`; `prod` for the product).
    pub fn name(self) -> &'static str {
        match self {
            Reducer::Sum => "sum",
            Reducer::Prod => "prod",
            Reducer::Max => "max",
            Reducer::Min => "min",
        }
    }
}

/// A reduction of `source` over `axes`, optionally restricted to the points
/// where `condition` holds (TVM's `where=`).
#[derive(Clone, Debug)]
pub struct Reduce {
    /// How values are combined.
    pub reducer: Reducer,
    /// The value reduced at each point of the reduction axes.
    pub source: Value,
    /// The reduction axes.
    pub axes: Vec<IterVar>,
    /// Only points where this holds take part.
    pub condition: Option<Expr>,
}

/// The node kinds of a [`Value`].
#[derive(Clone, Debug)]
pub enum ValueKind {
    /// A floating-point constant.
    Float(f64),
    /// An integer index expression used as an element value (an integer
    /// constant, or `lambda i: i`).
    Index(Expr),
    /// An element of another tensor.
    Load(Tensor, Vec<Expr>),
    /// `-a`
    Neg(Value),
    /// `a op b`
    Binary(BinaryOp, Value, Value),
    /// `if_then_else(cond, a, b)` on an index condition.
    Select(Expr, Value, Value),
    /// A reduction; only allowed as the whole body of a compute.
    Reduce(Reduce),
    /// A math intrinsic (`te.exp(a)`); of the float type of its arguments,
    /// `float32` when none is a float.
    Call(Intrinsic, Vec<Value>),
    /// A comparison of values; of type `bool`.
    Cmp(CmpOp, Value, Value),
    /// `a && b` on conditions.
    And(Value, Value),
    /// `a || b` on conditions.
    Or(Value, Value),
    /// `!a` on a condition.
    Not(Value),
    /// Conversion to another type; float to integer truncates toward zero.
    Cast(DataType, Value),
    /// `if_then_else(cond, a, b)` on a condition computed from element
    /// values.
    SelectValue(Value, Value, Value),
    /// An element of another tensor at indices computed from element values
    /// (a data-dependent access, `B[A[i]]`): each index is an integer value,
    /// [`ValueKind::Index`] for an ordinary index. Bounds cannot see which
    /// elements it reads, so it needs the whole extent of those axes.
    Gather(Tensor, Vec<Value>),
    /// One output of a reduction by a [`crate::CommReducer`] (a tuple
    /// reduction such as argmax); only allowed as the whole body of a
    /// compute, whose outputs are the reduction's values in order.
    CommReduce(CommReduce),
    /// A scalar parameter of a float type (TVM's `te.var("bias",
    /// dtype="float32")`): a number the program is called with. Integer
    /// parameters are index variables ([`ValueKind::Index`]).
    Param(Var, DataType),
}

/// A shared, immutable element-value expression: the body of a compute.
///
/// Arithmetic operators build values from values, floats and integers:
///
/// ```
/// let a = te::placeholder([4], "A", tir::DataType::Float32).unwrap();
/// let i = arith::Var::new("i");
/// let v = a.at([i.expr()]) * 3.0 + 1;
/// assert_eq!(v.to_string(), "A[i] * 3.0 + 1");
/// ```
#[derive(Clone)]
pub struct Value(Arc<Node>);

/// A value's node with its element type, computed once when it is built so
/// that asking for the type of a long sum does not walk it.
struct Node {
    kind: ValueKind,
    dtype: DataType,
}

/// The children of a long chain are dropped one level per [`tir::stack::grow`]
/// step: the derived drop would recurse as deep as the chain is long.
impl Drop for Node {
    fn drop(&mut self) {
        if matches!(
            self.kind,
            ValueKind::Neg(_) | ValueKind::Binary(..) | ValueKind::Select(..)
        ) {
            let kind = std::mem::replace(&mut self.kind, ValueKind::Float(0.0));
            tir::stack::grow(|| drop(kind));
        }
    }
}

impl Value {
    /// A value of the given kind.
    pub fn new(kind: ValueKind) -> Value {
        let dtype = match &kind {
            ValueKind::Float(_) => DataType::Float32,
            ValueKind::Index(_) => DataType::Int32,
            ValueKind::Load(t, _) => t.dtype(),
            ValueKind::Neg(a) => a.dtype(),
            ValueKind::Binary(_, a, b) | ValueKind::Select(_, a, b) => a.dtype().promote(b.dtype()),
            ValueKind::Reduce(r) => r.source.dtype(),
            ValueKind::Call(f, args) => tir::call_dtype(*f, args.iter().map(Value::dtype)),
            ValueKind::Cmp(..) | ValueKind::And(..) | ValueKind::Or(..) | ValueKind::Not(_) => {
                DataType::Bool
            }
            ValueKind::Cast(t, _) => *t,
            ValueKind::SelectValue(_, a, b) => a.dtype().promote(b.dtype()),
            ValueKind::Gather(t, _) => t.dtype(),
            ValueKind::CommReduce(r) => r.sources()[r.value_index()].dtype(),
            ValueKind::Param(_, t) => *t,
        };
        Value(Arc::new(Node { kind, dtype }))
    }

    /// The node's identity: equal for clones of one value.
    pub(crate) fn ptr(&self) -> *const () {
        Arc::as_ptr(&self.0).cast()
    }

    /// A float constant.
    pub fn float(v: f64) -> Value {
        Value::new(ValueKind::Float(v))
    }

    /// An integer constant.
    pub fn int(v: i64) -> Value {
        Value::new(ValueKind::Index(Expr::int(v)))
    }

    /// The scalar parameter `var` of the float type `dtype`; `None` for a
    /// type that is not a float (an integer parameter is an index
    /// variable, [`Value::index`]).
    ///
    /// ```
    /// let bias = arith::Var::new("bias");
    /// let a = te::placeholder([4], "A", tir::DataType::Float32).unwrap();
    /// let i = arith::Var::new("i");
    /// let p = te::Value::param(bias, tir::DataType::Float32).unwrap();
    /// assert_eq!((a.at([i.expr()]) + p).to_string(), "A[i] + bias");
    /// ```
    pub fn param(var: Var, dtype: DataType) -> Option<Value> {
        dtype
            .is_float()
            .then(|| Value::new(ValueKind::Param(var, dtype)))
    }

    /// An index expression used as a value.
    pub fn index(e: Expr) -> Value {
        Value::new(ValueKind::Index(e))
    }

    /// `a op b`.
    pub fn binary(op: BinaryOp, a: Value, b: Value) -> Value {
        Value::new(ValueKind::Binary(op, a, b))
    }

    /// `min(a, b)`.
    pub fn min(a: Value, b: Value) -> Value {
        Value::binary(BinaryOp::Min, a, b)
    }

    /// `max(a, b)`.
    pub fn max(a: Value, b: Value) -> Value {
        Value::binary(BinaryOp::Max, a, b)
    }

    /// `f(args...)`.
    pub fn call(f: Intrinsic, args: Vec<Value>) -> Value {
        Value::new(ValueKind::Call(f, args))
    }

    /// `a op b`, a condition.
    pub fn cmp(op: CmpOp, a: Value, b: Value) -> Value {
        Value::new(ValueKind::Cmp(op, a, b))
    }

    /// `a && b` of conditions.
    pub fn and(a: Value, b: Value) -> Value {
        Value::new(ValueKind::And(a, b))
    }

    /// `a || b` of conditions.
    pub fn or(a: Value, b: Value) -> Value {
        Value::new(ValueKind::Or(a, b))
    }

    /// `dtype(a)`.
    pub fn cast(dtype: DataType, a: Value) -> Value {
        Value::new(ValueKind::Cast(dtype, a))
    }

    /// `a` where the value condition `cond` holds, else `b`.
    pub fn select_value(cond: Value, a: Value, b: Value) -> Value {
        Value::new(ValueKind::SelectValue(cond, a, b))
    }

    /// `tensor[indices]` with indices computed from values (an index that
    /// is an index expression is kept as one).
    pub fn gather(tensor: &Tensor, indices: Vec<Value>) -> Value {
        Value::new(ValueKind::Gather(tensor.clone(), indices))
    }

    /// `a` where the index condition `cond` holds, else `b` (TVM's
    /// `if_then_else`).
    pub fn select(cond: Expr, a: Value, b: Value) -> Value {
        Value::new(ValueKind::Select(cond, a, b))
    }

    /// The node kind, for matching.
    pub fn kind(&self) -> &ValueKind {
        &self.0.kind
    }

    /// The scalar parameter and its type, when this value is one.
    pub fn as_param(&self) -> Option<(&Var, DataType)> {
        match self.kind() {
            ValueKind::Param(v, t) => Some((v, *t)),
            _ => None,
        }
    }

    /// The reduction, when this value is one.
    pub fn as_reduce(&self) -> Option<&Reduce> {
        match self.kind() {
            ValueKind::Reduce(r) => Some(r),
            _ => None,
        }
    }

    /// The element type: loads have their tensor's type, float constants are
    /// `float32`, index values `int32`; operators promote.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }

    /// The number of nodes of the value written out as a tree (index
    /// expressions counted by [`Expr::node_count`]), saturating at
    /// `u64::MAX`. A value shared through a variable counts once per use,
    /// so `v = v + v` repeated 80 times is about `2^80` nodes; the walk
    /// itself visits each shared node once, on its own stack.
    pub fn written_size(&self) -> u64 {
        let mut memo: std::collections::HashMap<*const Node, u64> = Default::default();
        let mut stack: Vec<(&Value, bool)> = vec![(self, false)];
        while let Some((v, expanded)) = stack.pop() {
            let id = Arc::as_ptr(&v.0);
            if memo.contains_key(&id) {
                continue;
            }
            if !expanded {
                stack.push((v, true));
                v.for_each_operand(|a| stack.push((a, false)));
                continue;
            }
            let mut size: u64 = 1;
            // An index expression's count saturates at `u32::MAX`.
            let mut add = |n: u64| {
                let n = if n >= u64::from(u32::MAX) {
                    u64::MAX
                } else {
                    n
                };
                size = size.saturating_add(n)
            };
            v.for_each_operand(|a| add(memo[&Arc::as_ptr(&a.0)]));
            match v.kind() {
                ValueKind::Index(e) => add(e.node_count() as u64),
                ValueKind::Load(_, idx) => idx.iter().for_each(|e| add(e.node_count() as u64)),
                ValueKind::Select(c, ..) => add(c.node_count() as u64),
                ValueKind::Reduce(r) => {
                    if let Some(c) = &r.condition {
                        add(c.node_count() as u64);
                    }
                }
                ValueKind::CommReduce(r) => {
                    if let Some(c) = r.condition() {
                        add(c.node_count() as u64);
                    }
                }
                _ => {}
            }
            memo.insert(id, size);
        }
        memo[&Arc::as_ptr(&self.0)]
    }

    /// Calls `f` on each operand value, in order (a reduction's source; a
    /// tuple reduction's sources, then its reducer's identities, which may
    /// read tensors; a gather's indices).
    pub fn for_each_operand<'a>(&'a self, mut f: impl FnMut(&'a Value)) {
        match self.kind() {
            ValueKind::Float(_)
            | ValueKind::Index(_)
            | ValueKind::Load(..)
            | ValueKind::Param(..) => {}
            ValueKind::Neg(a) | ValueKind::Not(a) | ValueKind::Cast(_, a) => f(a),
            ValueKind::Binary(_, a, b)
            | ValueKind::Select(_, a, b)
            | ValueKind::Cmp(_, a, b)
            | ValueKind::And(a, b)
            | ValueKind::Or(a, b) => {
                f(a);
                f(b)
            }
            ValueKind::SelectValue(c, a, b) => {
                f(c);
                f(a);
                f(b)
            }
            ValueKind::Reduce(r) => f(&r.source),
            ValueKind::Call(_, args) | ValueKind::Gather(_, args) => args.iter().for_each(f),
            ValueKind::CommReduce(r) => {
                r.sources().iter().for_each(&mut f);
                r.combiner().identity().iter().for_each(f)
            }
        }
    }

    /// Calls `f` on every tensor load with index expressions, outermost
    /// first (gathers are not among them: see [`Value::for_each_access`]).
    pub fn for_each_load(&self, f: &mut impl FnMut(&Tensor, &[Expr])) {
        tir::stack::grow(|| match self.kind() {
            ValueKind::Load(t, idx) => f(t, idx),
            _ => self.for_each_operand(|a| a.for_each_load(f)),
        })
    }

    /// Calls `f` on every read of a tensor, outermost first: loads, and
    /// gathers with `None` for each index computed from values.
    pub fn for_each_access(&self, f: &mut impl FnMut(&Tensor, &[Option<Expr>])) {
        tir::stack::grow(|| match self.kind() {
            ValueKind::Load(t, idx) => {
                let idx: smallvec::SmallVec<[Option<Expr>; 4]> =
                    idx.iter().cloned().map(Some).collect();
                f(t, &idx)
            }
            ValueKind::Gather(t, idx) => {
                let at: smallvec::SmallVec<[Option<Expr>; 4]> = idx
                    .iter()
                    .map(|v| match v.kind() {
                        ValueKind::Index(e) => Some(e.clone()),
                        _ => None,
                    })
                    .collect();
                f(t, &at);
                idx.iter().for_each(|v| v.for_each_access(f));
            }
            _ => self.for_each_operand(|a| a.for_each_access(f)),
        })
    }

    /// Calls `f` on every index expression (load indices, conditions, index
    /// values).
    pub fn for_each_index(&self, f: &mut impl FnMut(&Expr)) {
        tir::stack::grow(|| match self.kind() {
            ValueKind::Float(_) => {}
            ValueKind::Index(e) => f(e),
            ValueKind::Load(_, idx) => idx.iter().for_each(&mut *f),
            ValueKind::Neg(a) => a.for_each_index(f),
            ValueKind::Binary(_, a, b) => {
                a.for_each_index(f);
                b.for_each_index(f);
            }
            ValueKind::Select(c, a, b) => {
                f(c);
                a.for_each_index(f);
                b.for_each_index(f);
            }
            ValueKind::Reduce(r) => {
                if let Some(c) = &r.condition {
                    f(c);
                }
                r.source.for_each_index(f)
            }
            ValueKind::CommReduce(r) => {
                if let Some(c) = r.condition() {
                    f(c);
                }
                r.sources().iter().for_each(|s| s.for_each_index(f))
            }
            _ => self.for_each_operand(|a| a.for_each_index(f)),
        })
    }

    /// The value with every index expression rewritten by `f` and every load
    /// rewritten by `load` (which receives the already rewritten indices and
    /// returns `None` to keep the load).
    pub fn rewrite(
        &self,
        f: &mut impl FnMut(&Expr) -> Expr,
        load: &mut impl FnMut(&Tensor, &[Expr]) -> Option<Value>,
    ) -> Value {
        self.rewrite_reads(f, load, &mut |_, _| None)
    }

    /// [`Value::rewrite`], with gathers also rewritten by `gather` (which
    /// receives the already rewritten indices and returns `None` to keep the
    /// gather).
    pub fn rewrite_reads(
        &self,
        f: &mut impl FnMut(&Expr) -> Expr,
        load: &mut impl FnMut(&Tensor, &[Expr]) -> Option<Value>,
        gather: &mut impl FnMut(&Tensor, &[Value]) -> Option<Value>,
    ) -> Value {
        tir::stack::grow(|| match self.kind() {
            ValueKind::Float(_) | ValueKind::Param(..) => self.clone(),
            ValueKind::Index(e) => Value::index(f(e)),
            ValueKind::Load(t, idx) => {
                let idx: Vec<Expr> = idx.iter().map(&mut *f).collect();
                load(t, &idx).unwrap_or_else(|| Value::new(ValueKind::Load(t.clone(), idx)))
            }
            ValueKind::Neg(a) => Value::new(ValueKind::Neg(a.rewrite_reads(f, load, gather))),
            ValueKind::Binary(op, a, b) => Value::binary(
                *op,
                a.rewrite_reads(f, load, gather),
                b.rewrite_reads(f, load, gather),
            ),
            ValueKind::Select(c, a, b) => Value::select(
                f(c),
                a.rewrite_reads(f, load, gather),
                b.rewrite_reads(f, load, gather),
            ),
            ValueKind::Reduce(r) => Value::new(ValueKind::Reduce(Reduce {
                reducer: r.reducer,
                source: r.source.rewrite_reads(f, load, gather),
                axes: r.axes.iter().map(|a| rewrite_domain(a, f)).collect(),
                condition: r.condition.as_ref().map(&mut *f),
            })),
            ValueKind::Call(op, args) => Value::call(
                *op,
                args.iter()
                    .map(|a| a.rewrite_reads(f, load, gather))
                    .collect(),
            ),
            ValueKind::Cmp(op, a, b) => Value::cmp(
                *op,
                a.rewrite_reads(f, load, gather),
                b.rewrite_reads(f, load, gather),
            ),
            ValueKind::And(a, b) => Value::new(ValueKind::And(
                a.rewrite_reads(f, load, gather),
                b.rewrite_reads(f, load, gather),
            )),
            ValueKind::Or(a, b) => Value::new(ValueKind::Or(
                a.rewrite_reads(f, load, gather),
                b.rewrite_reads(f, load, gather),
            )),
            ValueKind::Not(a) => Value::new(ValueKind::Not(a.rewrite_reads(f, load, gather))),
            ValueKind::Cast(t, a) => Value::cast(*t, a.rewrite_reads(f, load, gather)),
            ValueKind::SelectValue(c, a, b) => Value::select_value(
                c.rewrite_reads(f, load, gather),
                a.rewrite_reads(f, load, gather),
                b.rewrite_reads(f, load, gather),
            ),
            ValueKind::Gather(t, idx) => {
                let idx: Vec<Value> = idx
                    .iter()
                    .map(|a| a.rewrite_reads(f, load, gather))
                    .collect();
                gather(t, &idx).unwrap_or_else(|| Value::gather(t, idx))
            }
            ValueKind::CommReduce(r) => {
                let condition = r.condition().map(&mut *f);
                let combiner = r.combiner().rewrite_reads(f, load, gather);
                let axes: Vec<IterVar> = r.axes().iter().map(|a| rewrite_domain(a, f)).collect();
                let r = r.map_sources(&mut |s| s.rewrite_reads(f, load, gather));
                Value::new(ValueKind::CommReduce(
                    r.with_condition(condition)
                        .with_combiner(combiner)
                        .with_axes(axes),
                ))
            }
        })
    }

    /// This value with each of `axes` (a variable and the value it takes)
    /// bound: an axis bound to an index value is substituted, and a read or
    /// condition that uses an axis bound to a value computed from elements
    /// becomes a gather or a value condition (`A[i + 1]` with `i` bound to
    /// `B[j]` reads `A[B[j] + 1]`). This is how a definition is inlined
    /// where it is read at data-dependent indices. Reductions are not
    /// inlined, so a reduction's condition is left as it is.
    ///
    /// ```
    /// use te::{placeholder, Value};
    /// use tir::DataType;
    /// let a = placeholder([8], "A", DataType::Float32).unwrap();
    /// let b = placeholder([8], "B", DataType::Int32).unwrap();
    /// let (i, j) = (arith::Var::new("i"), arith::Var::new("j"));
    /// let body = a.at([i.expr() + 1]) * 2.0;
    /// let bound = body.bind_axes(&[(i, b.at([j.expr()]))]);
    /// assert_eq!(bound.to_string(), "A[B[j] + 1] * 2.0");
    /// ```
    pub fn bind_axes(&self, axes: &[(Var, Value)]) -> Value {
        let exprs: Vec<(&Var, &Expr)> = axes
            .iter()
            .filter_map(|(v, x)| match x.kind() {
                ValueKind::Index(e) => Some((v, e)),
                _ => None,
            })
            .collect();
        let values: Vec<(Var, Value)> = axes
            .iter()
            .filter(|(_, x)| !matches!(x.kind(), ValueKind::Index(_)))
            .cloned()
            .collect();
        let v = if exprs.is_empty() {
            self.clone()
        } else {
            self.substitute(&mut |w| {
                exprs
                    .iter()
                    .find(|(a, _)| *a == w)
                    .map(|(_, e)| (*e).clone())
            })
        };
        if values.is_empty() {
            v
        } else {
            v.bind_value_axes(&values)
        }
    }

    fn bind_value_axes(&self, axes: &[(Var, Value)]) -> Value {
        let uses = |e: &Expr| axes.iter().any(|(v, _)| e.uses_var(v));
        let bind = |x: &Value| x.bind_value_axes(axes);
        tir::stack::grow(|| match self.kind() {
            ValueKind::Float(_) | ValueKind::Param(..) => self.clone(),
            ValueKind::Index(e) if uses(e) => index_value(e, axes),
            ValueKind::Index(_) => self.clone(),
            ValueKind::Load(t, idx) if idx.iter().any(uses) => Value::gather(
                t,
                idx.iter()
                    .map(|e| {
                        if uses(e) {
                            index_value(e, axes)
                        } else {
                            Value::index(e.clone())
                        }
                    })
                    .collect(),
            ),
            ValueKind::Load(..) => self.clone(),
            ValueKind::Neg(a) => Value::new(ValueKind::Neg(bind(a))),
            ValueKind::Binary(op, a, b) => Value::binary(*op, bind(a), bind(b)),
            ValueKind::Select(c, a, b) if uses(c) => {
                Value::select_value(index_value(c, axes), bind(a), bind(b))
            }
            ValueKind::Select(c, a, b) => Value::select(c.clone(), bind(a), bind(b)),
            ValueKind::Reduce(r) => Value::new(ValueKind::Reduce(Reduce {
                reducer: r.reducer,
                source: bind(&r.source),
                axes: r.axes.clone(),
                condition: r.condition.clone(),
            })),
            ValueKind::Call(op, args) => Value::call(*op, args.iter().map(bind).collect()),
            ValueKind::Cmp(op, a, b) => Value::cmp(*op, bind(a), bind(b)),
            ValueKind::And(a, b) => Value::new(ValueKind::And(bind(a), bind(b))),
            ValueKind::Or(a, b) => Value::new(ValueKind::Or(bind(a), bind(b))),
            ValueKind::Not(a) => Value::new(ValueKind::Not(bind(a))),
            ValueKind::Cast(t, a) => Value::cast(*t, bind(a)),
            ValueKind::SelectValue(c, a, b) => Value::select_value(bind(c), bind(a), bind(b)),
            ValueKind::Gather(t, idx) => Value::gather(t, idx.iter().map(bind).collect()),
            ValueKind::CommReduce(r) => {
                Value::new(ValueKind::CommReduce(r.map_sources(&mut |s| bind(s))))
            }
        })
    }

    /// The value with variables replaced by `map` (others kept).
    pub fn substitute(&self, map: &mut impl FnMut(&Var) -> Option<Expr>) -> Value {
        self.rewrite(&mut |e| e.substitute(map), &mut |_, _| None)
    }
}

/// The reduction axis `iv` with its domain rewritten by `f`: the same
/// variable (so the axis is the same axis), over the new range. A
/// reduction whose extent depends on the compute's axes
/// (`te.reduce_axis((0, n))` inside `lambda n: ...`) follows a renaming of
/// those axes (`cache_write`'s `n.c`).
fn rewrite_domain(iv: &IterVar, f: &mut impl FnMut(&Expr) -> Expr) -> IterVar {
    let Some(d) = iv.dom() else {
        return iv.clone();
    };
    let (min, extent) = (f(&d.min), f(&d.extent));
    if min == d.min && extent == d.extent {
        return iv.clone();
    }
    IterVar::with_var(
        iv.var().clone(),
        Some(arith::Range::new(min, extent)),
        iv.kind(),
    )
}

/// The index expression `e` as an integer value, with the variables of
/// `axes` replaced by their values: the operators of index arithmetic
/// become their integer value operators (floor division and modulo,
/// `ceildiv(a, b)` as `-((-a) // b)`).
fn index_value(e: &Expr, axes: &[(Var, Value)]) -> Value {
    use arith::ExprKind as K;
    if !axes.iter().any(|(v, _)| e.uses_var(v)) {
        return Value::index(e.clone());
    }
    let go = |x: &Expr| index_value(x, axes);
    let bin = |op, a: &Expr, b: &Expr| Value::binary(op, go(a), go(b));
    tir::stack::grow(|| match e.kind() {
        K::Var(v) => axes
            .iter()
            .find(|(a, _)| a == v)
            .map_or_else(|| Value::index(e.clone()), |(_, x)| x.clone()),
        K::Int(_) | K::Bool(_) => Value::index(e.clone()),
        K::Add(a, b) => bin(BinaryOp::Add, a, b),
        K::Sub(a, b) => bin(BinaryOp::Sub, a, b),
        K::Mul(a, b) => bin(BinaryOp::Mul, a, b),
        K::FloorDiv(a, b) => bin(BinaryOp::Div, a, b),
        K::FloorMod(a, b) => bin(BinaryOp::Mod, a, b),
        K::Min(a, b) => bin(BinaryOp::Min, a, b),
        K::Max(a, b) => bin(BinaryOp::Max, a, b),
        K::CeilDiv(a, b) => {
            let neg = Value::new(ValueKind::Neg(go(a)));
            Value::new(ValueKind::Neg(Value::binary(BinaryOp::Div, neg, go(b))))
        }
        K::Cmp(op, a, b) => Value::cmp(*op, go(a), go(b)),
        K::And(a, b) => Value::new(ValueKind::And(go(a), go(b))),
        K::Or(a, b) => Value::new(ValueKind::Or(go(a), go(b))),
        K::Not(a) => Value::new(ValueKind::Not(go(a))),
        K::Select(c, a, b) => Value::select_value(go(c), go(a), go(b)),
    })
}

fn reduce_value(
    reducer: Reducer,
    source: Value,
    axes: &[IterVar],
    condition: Option<Expr>,
) -> Value {
    Value::new(ValueKind::Reduce(Reduce {
        reducer,
        source,
        axes: axes.to_vec(),
        condition,
    }))
}

/// `te.sum(source, axis=axes)`.
pub fn sum(source: Value, axes: &[IterVar]) -> Value {
    reduce_value(Reducer::Sum, source, axes, None)
}

/// `te.max(source, axis=axes)`.
pub fn max(source: Value, axes: &[IterVar]) -> Value {
    reduce_value(Reducer::Max, source, axes, None)
}

/// `te.min(source, axis=axes)`.
pub fn min(source: Value, axes: &[IterVar]) -> Value {
    reduce_value(Reducer::Min, source, axes, None)
}

/// The product of `source` over `axes` (a `te.comm_reducer` of `*`
/// with identity 1).
pub fn prod(source: Value, axes: &[IterVar]) -> Value {
    reduce_value(Reducer::Prod, source, axes, None)
}

/// A reduction with TVM's `where=` condition: only points of `axes` where
/// `condition` holds are combined.
pub fn reduce_where(reducer: Reducer, source: Value, axes: &[IterVar], condition: Expr) -> Value {
    reduce_value(reducer, source, axes, Some(condition))
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::float(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::int(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::int(v as i64)
    }
}
impl From<Expr> for Value {
    fn from(e: Expr) -> Value {
        Value::index(e)
    }
}
impl From<&Value> for Value {
    fn from(v: &Value) -> Value {
        v.clone()
    }
}

mod ops {
    use super::{BinaryOp, Value, ValueKind};
    use std::ops::{Add, Div, Mul, Neg, Sub};

    macro_rules! bin {
        ($tr:ident, $m:ident, $op:ident) => {
            impl<T: Into<Value>> $tr<T> for Value {
                type Output = Value;
                fn $m(self, rhs: T) -> Value {
                    Value::binary(BinaryOp::$op, self, rhs.into())
                }
            }
            impl<T: Into<Value>> $tr<T> for &Value {
                type Output = Value;
                fn $m(self, rhs: T) -> Value {
                    Value::binary(BinaryOp::$op, self.clone(), rhs.into())
                }
            }
        };
    }
    bin!(Add, add, Add);
    bin!(Sub, sub, Sub);
    bin!(Mul, mul, Mul);
    bin!(Div, div, Div);

    impl Neg for Value {
        type Output = Value;
        fn neg(self) -> Value {
            Value::new(ValueKind::Neg(self))
        }
    }
}

fn precedence(v: &Value) -> u8 {
    match v.kind() {
        ValueKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => 1,
        ValueKind::Binary(BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod, ..) => 2,
        _ => 3,
    }
}

/// `T[i, j]`: a read of `t` at `indices` (expressions or values).
fn write_access<I: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    t: &Tensor,
    indices: &[I],
) -> fmt::Result {
    write!(f, "{}[", t.name())?;
    for (k, i) in indices.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{i}")?;
    }
    f.write_str("]")
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        tir::stack::grow(|| match self.kind() {
            ValueKind::Float(v) => write!(f, "{v:?}"),
            ValueKind::Param(v, _) => write!(f, "{v}"),
            ValueKind::Index(e) => write!(f, "{e}"),
            ValueKind::Load(t, idx) => write_access(f, t, idx),
            ValueKind::Neg(a) => write!(f, "-({a})"),
            ValueKind::Binary(op @ (BinaryOp::Min | BinaryOp::Max), a, b) => {
                write!(f, "{}({a}, {b})", op.symbol())
            }
            ValueKind::Binary(op, a, b) => {
                let p = precedence(self);
                let wrap = |v: &Value, right: bool| {
                    let q = precedence(v);
                    q < p || (right && q == p)
                };
                let (wa, wb) = (wrap(a, false), wrap(b, true));
                if wa {
                    write!(f, "({a})")?;
                } else {
                    write!(f, "{a}")?;
                }
                write!(f, " {} ", op.symbol())?;
                if wb {
                    write!(f, "({b})")
                } else {
                    write!(f, "{b}")
                }
            }
            ValueKind::Select(c, a, b) => write!(f, "if_then_else({c}, {a}, {b})"),
            ValueKind::SelectValue(c, a, b) => write!(f, "if_then_else({c}, {a}, {b})"),
            ValueKind::Call(op, args) => {
                write!(f, "{op}(")?;
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            ValueKind::Cmp(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            ValueKind::And(a, b) => write!(f, "({a} && {b})"),
            ValueKind::Or(a, b) => write!(f, "({a} || {b})"),
            ValueKind::Not(a) => write!(f, "!({a})"),
            ValueKind::Cast(t, a) => write!(f, "{t}({a})"),
            ValueKind::Gather(t, idx) => write_access(f, t, idx),
            ValueKind::CommReduce(r) => write!(f, "{r}"),
            ValueKind::Reduce(r) => {
                write!(f, "{}({}, axis=[", r.reducer.name(), r.source)?;
                for (k, a) in r.axes.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(a.name())?;
                }
                f.write_str("]")?;
                if let Some(c) = &r.condition {
                    write!(f, ", where={c}")?;
                }
                f.write_str(")")
            }
        })
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
