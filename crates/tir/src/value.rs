//! Value expressions: what loops compute and store, as opposed to the
//! integer index arithmetic ([`arith::Expr`]) that says where.

use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::intrinsic::Intrinsic;
use arith::{CmpOp, Expr, Type, Var};

/// A read of one element: `A[i, j]`.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferLoad {
    /// The buffer read.
    pub buffer: Buffer,
    /// One index per axis of the buffer.
    pub indices: Vec<Expr>,
}

/// A binary arithmetic operator on values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`: true division on floats, truncating division on integers
    /// (TVM's `Div`).
    Div,
    /// `floordiv(a, b)`: division rounding toward negative infinity
    /// (`floor(a / b)` on floats).
    FloorDiv,
    /// `floormod(a, b)`: `a - floordiv(a, b) * b`.
    FloorMod,
    /// `min(a, b)`
    Min,
    /// `max(a, b)`
    Max,
}

/// A value expression of some [`DataType`]: constants, loads, index
/// expressions used as values, arithmetic, comparisons and conditions, casts
/// and `select`.
///
/// Conditions are values of type `bool`; a condition over indices only is an
/// [`Value::Index`] wrapping a boolean [`arith::Expr`], so the arithmetic core
/// can reason about it.
///
/// ```
/// use tir::{Buffer, DataType, Value};
/// let i = arith::Var::new("i");
/// let a = Buffer::new("A", DataType::Float32, [4i64]);
/// let v = Value::load(&a, [i.expr()]) + Value::f32(2.0);
/// assert_eq!(v.to_string(), "(A[i] + 2.000000f)");
/// assert_eq!(v.dtype(), DataType::Float32);
/// ```
#[derive(Debug, PartialEq)]
pub enum Value {
    /// A floating-point constant of a float type.
    Float(f64, DataType),
    /// An integer (or boolean) constant.
    Int(i64, DataType),
    /// An integer index expression (or an index condition, when the
    /// expression is boolean) used as a value of type `int32` (`bool`).
    Index(Expr),
    /// A read of one buffer element.
    Load(BufferLoad),
    /// Arithmetic on two values.
    Binary(BinOp, Box<Value>, Box<Value>),
    /// A comparison; of type `bool`.
    Cmp(CmpOp, Box<Value>, Box<Value>),
    /// Conjunction of two conditions.
    And(Box<Value>, Box<Value>),
    /// Disjunction of two conditions.
    Or(Box<Value>, Box<Value>),
    /// Negation of a condition.
    Not(Box<Value>),
    /// Arithmetic negation.
    Neg(Box<Value>),
    /// Conversion to another type; float to integer truncates toward zero.
    Cast(DataType, Box<Value>),
    /// `select(cond, a, b)`: `a` where `cond` holds, else `b`; only the
    /// chosen side is evaluated.
    Select(Box<Value>, Box<Value>, Box<Value>),
    /// `if_then_else(cond, a, b)`: `a` where `cond` holds, else `b`, only
    /// the chosen side evaluated (TVM's `tir.if_then_else`; printed apart
    /// from `select`, whose two sides TVM evaluates).
    IfThenElse(Box<Value>, Box<Value>, Box<Value>),
    /// `likely(cond)`: the condition, marked as usually holding (TVM's
    /// bound checks of split loops).
    Likely(Box<Value>),
    /// A math intrinsic applied to values (`exp(A[i])`); of the float type
    /// of its arguments, `float32` when none is a float.
    Call(Intrinsic, Vec<Value>),
    /// `body` with `var` bound to the integer `value`: how a data-dependent
    /// index is carried, since indices are index expressions (`B[A[i]]` is
    /// `Let(v, A[i], B[v])`). Printed with the value in place of the
    /// variable, as TVM prints such an access.
    Let(Var, Box<Value>, Box<Value>),
    /// A scalar variable of element type `.1` (TVM's `Var` of a primitive
    /// type), bound by a `let` statement around it: the block form's
    /// [`crate::block::BlockStmt::Let`] (`v_argmax_v1: T.float32 = ...`),
    /// or, for an integer, the loop IR's [`crate::Stmt::LetValue`]. Index
    /// expressions name an integer one as a plain [`arith::Var`].
    Var(Var, DataType),
}

/// A long chain is copied one level per [`crate::stack::grow`] step.
impl Clone for Value {
    fn clone(&self) -> Value {
        crate::stack::grow(|| match self {
            Value::Float(v, t) => Value::Float(*v, *t),
            Value::Int(v, t) => Value::Int(*v, *t),
            Value::Index(e) => Value::Index(e.clone()),
            Value::Load(l) => Value::Load(l.clone()),
            Value::Binary(op, a, b) => Value::Binary(*op, a.clone(), b.clone()),
            Value::Cmp(op, a, b) => Value::Cmp(*op, a.clone(), b.clone()),
            Value::And(a, b) => Value::And(a.clone(), b.clone()),
            Value::Or(a, b) => Value::Or(a.clone(), b.clone()),
            Value::Not(a) => Value::Not(a.clone()),
            Value::Neg(a) => Value::Neg(a.clone()),
            Value::Cast(t, a) => Value::Cast(*t, a.clone()),
            Value::Select(c, a, b) => Value::Select(c.clone(), a.clone(), b.clone()),
            Value::IfThenElse(c, a, b) => Value::IfThenElse(c.clone(), a.clone(), b.clone()),
            Value::Likely(a) => Value::Likely(a.clone()),
            Value::Call(op, args) => Value::Call(*op, args.clone()),
            Value::Let(v, a, b) => Value::Let(v.clone(), a.clone(), b.clone()),
            Value::Var(v, t) => Value::Var(v.clone(), *t),
        })
    }
}

/// A long chain is dropped one level per [`crate::stack::grow`] step: the
/// derived drop would recurse as deep as the chain is long.
impl Drop for Value {
    fn drop(&mut self) {
        let (a, b, c) = match self {
            Value::Binary(_, a, b) | Value::Cmp(_, a, b) | Value::And(a, b) | Value::Or(a, b) => {
                (Some(a), Some(b), None)
            }
            Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => {
                (Some(a), None, None)
            }
            Value::Select(a, b, c) | Value::IfThenElse(a, b, c) => (Some(a), Some(b), Some(c)),
            Value::Let(_, a, b) => (Some(a), Some(b), None),
            Value::Call(_, args) => {
                let args = std::mem::take(args);
                crate::stack::grow(|| drop(args));
                return;
            }
            Value::Float(..)
            | Value::Int(..)
            | Value::Index(_)
            | Value::Load(_)
            | Value::Var(..) => return,
        };
        let take = |x: Option<&mut Box<Value>>| {
            x.map(|x| std::mem::replace(&mut **x, Value::Int(0, DataType::Int32)))
        };
        let children = (take(a), take(b), take(c));
        crate::stack::grow(|| drop(children));
    }
}

impl Value {
    /// A `float32` constant (`2.000000f` when printed).
    pub fn f32(v: f64) -> Value {
        Value::Float(v, DataType::Float32)
    }

    /// A `float64` constant.
    pub fn f64(v: f64) -> Value {
        Value::Float(v, DataType::Float64)
    }

    /// An `int32` constant, as `tvm.const(5, "int32")`.
    pub fn i32(v: i64) -> Value {
        Value::Int(v, DataType::Int32)
    }

    /// A constant of any type: floats keep `v`, integer types take it
    /// truncated toward zero.
    pub fn constant(v: f64, dtype: DataType) -> Value {
        if dtype.is_float() {
            Value::Float(v, dtype)
        } else {
            Value::Int(v as i64, dtype)
        }
    }

    /// An index expression used as a value.
    pub fn index(e: impl Into<Expr>) -> Value {
        Value::Index(e.into())
    }

    /// A read of `buffer` at `indices`.
    pub fn load(buffer: &Buffer, indices: impl IntoIterator<Item = impl Into<Expr>>) -> Value {
        Value::Load(BufferLoad {
            buffer: buffer.clone(),
            indices: indices.into_iter().map(Into::into).collect(),
        })
    }

    /// `op(a, b)`.
    pub fn binary(op: BinOp, a: Value, b: Value) -> Value {
        Value::Binary(op, Box::new(a), Box::new(b))
    }

    /// `min(a, b)`.
    pub fn min(a: Value, b: Value) -> Value {
        Value::binary(BinOp::Min, a, b)
    }

    /// `max(a, b)`.
    pub fn max(a: Value, b: Value) -> Value {
        Value::binary(BinOp::Max, a, b)
    }

    /// `a op b`, a condition.
    pub fn cmp(op: CmpOp, a: Value, b: Value) -> Value {
        Value::Cmp(op, Box::new(a), Box::new(b))
    }

    /// `a && b`.
    pub fn and(a: Value, b: Value) -> Value {
        Value::And(Box::new(a), Box::new(b))
    }

    /// `a || b`.
    pub fn or(a: Value, b: Value) -> Value {
        Value::Or(Box::new(a), Box::new(b))
    }

    /// `dtype(a)`.
    pub fn cast(dtype: DataType, a: Value) -> Value {
        Value::Cast(dtype, Box::new(a))
    }

    /// `f(args...)`.
    pub fn call(f: Intrinsic, args: Vec<Value>) -> Value {
        Value::Call(f, args)
    }

    /// The scalar variable `var` of type `dtype` (see [`Value::Var`]).
    pub fn var(var: &Var, dtype: DataType) -> Value {
        Value::Var(var.clone(), dtype)
    }

    /// `body` with `var` bound to `value` (converted to an integer).
    pub fn let_in(var: &Var, value: Value, body: Value) -> Value {
        Value::Let(var.clone(), Box::new(value), Box::new(body))
    }

    /// `select(cond, a, b)`.
    pub fn select(cond: Value, a: Value, b: Value) -> Value {
        Value::Select(Box::new(cond), Box::new(a), Box::new(b))
    }

    /// `if_then_else(cond, a, b)`.
    pub fn if_then_else(cond: Value, a: Value, b: Value) -> Value {
        Value::IfThenElse(Box::new(cond), Box::new(a), Box::new(b))
    }

    /// `likely(cond)`.
    pub fn likely(cond: Value) -> Value {
        Value::Likely(Box::new(cond))
    }

    /// The type of the value; arithmetic promotes as
    /// [`DataType::promote`] says.
    pub fn dtype(&self) -> DataType {
        crate::stack::grow(|| self.dtype_step())
    }

    /// One level of [`Self::dtype`], on the stack [`crate::stack::grow`] left room on.
    fn dtype_step(&self) -> DataType {
        match self {
            Value::Float(_, t) | Value::Int(_, t) | Value::Cast(t, _) | Value::Var(_, t) => *t,
            Value::Index(e) => match e.ty() {
                Type::Int => DataType::Int32,
                Type::Bool => DataType::Bool,
            },
            Value::Load(l) => l.buffer.dtype(),
            Value::Binary(_, a, b) | Value::Select(_, a, b) | Value::IfThenElse(_, a, b) => {
                a.dtype().promote(b.dtype())
            }
            Value::Cmp(..) | Value::And(..) | Value::Or(..) | Value::Not(..) => DataType::Bool,
            Value::Likely(a) => a.dtype(),
            Value::Neg(a) => a.dtype(),
            Value::Call(f, args) => call_dtype(*f, args.iter().map(Value::dtype)),
            Value::Let(_, _, body) => body.dtype(),
        }
    }

    /// Calls `f` on every load, left to right (the condition of a `select`
    /// first).
    pub fn for_each_load(&self, f: &mut impl FnMut(&BufferLoad)) {
        crate::stack::grow(|| self.for_each_load_step(f))
    }

    /// One level of [`Self::for_each_load`], on the stack [`crate::stack::grow`] left room on.
    fn for_each_load_step(&self, f: &mut impl FnMut(&BufferLoad)) {
        match self {
            Value::Float(..) | Value::Int(..) | Value::Index(_) | Value::Var(..) => {}
            Value::Load(l) => f(l),
            Value::Binary(_, a, b) | Value::Cmp(_, a, b) | Value::And(a, b) | Value::Or(a, b) => {
                a.for_each_load(f);
                b.for_each_load(f);
            }
            Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => {
                a.for_each_load(f)
            }
            Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                c.for_each_load(f);
                a.for_each_load(f);
                b.for_each_load(f);
            }
            Value::Call(_, args) => args.iter().for_each(|a| a.for_each_load(f)),
            Value::Let(_, v, body) => {
                v.for_each_load(f);
                body.for_each_load(f);
            }
        }
    }

    /// Calls `f` on each value directly inside this one (not on index
    /// expressions), left to right.
    pub fn for_each_child(&self, f: &mut impl FnMut(&Value)) {
        match self {
            Value::Float(..)
            | Value::Int(..)
            | Value::Index(_)
            | Value::Var(..)
            | Value::Load(_) => {}
            Value::Binary(_, a, b) | Value::Cmp(_, a, b) | Value::And(a, b) | Value::Or(a, b) => {
                f(a);
                f(b);
            }
            Value::Not(a) | Value::Neg(a) | Value::Cast(_, a) | Value::Likely(a) => f(a),
            Value::Select(c, a, b) | Value::IfThenElse(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            Value::Call(_, args) => args.iter().for_each(f),
            Value::Let(_, v, body) => {
                f(v);
                f(body);
            }
        }
    }

    /// Rewrites every index expression (load indices and [`Value::Index`])
    /// with `f`, e.g. to substitute loop variables.
    pub fn map_indices(&self, f: &mut impl FnMut(&Expr) -> Expr) -> Value {
        match crate::mutate::Mutator::value(&mut crate::mutate::MapIndices(f), self) {
            Ok(v) => v,
            Err(never) => match never {},
        }
    }
}

/// The type of a call of `f` on arguments of types `args`: for a bitwise
/// intrinsic the promoted integer type, else the promoted float type
/// (`float32` when no argument is a float).
pub fn call_dtype(f: Intrinsic, args: impl IntoIterator<Item = DataType>) -> DataType {
    let t = args.into_iter().reduce(DataType::promote);
    if f.is_bitwise() {
        return t.unwrap_or(DataType::Int32);
    }
    let t = t.unwrap_or(DataType::Float32);
    if t.is_float() {
        t
    } else {
        DataType::Float32
    }
}

impl From<BufferLoad> for Value {
    fn from(l: BufferLoad) -> Value {
        Value::Load(l)
    }
}

impl From<Expr> for Value {
    fn from(e: Expr) -> Value {
        Value::Index(e)
    }
}

/// Operator sugar: `load + Value::f32(2.0)` builds `Binary(Add, ..)`, `/` is
/// [`BinOp::Div`], unary `-` is [`Value::Neg`] and `!` is [`Value::Not`].
mod ops {
    use super::{BinOp, Value};
    use std::ops::{Add, Div, Mul, Neg, Not, Sub};

    macro_rules! bin {
        ($tr:ident, $m:ident, $op:expr) => {
            impl $tr<Value> for Value {
                type Output = Value;
                fn $m(self, rhs: Value) -> Value {
                    Value::binary($op, self, rhs)
                }
            }
        };
    }
    bin!(Add, add, BinOp::Add);
    bin!(Sub, sub, BinOp::Sub);
    bin!(Mul, mul, BinOp::Mul);
    bin!(Div, div, BinOp::Div);

    impl Not for Value {
        type Output = Value;
        fn not(self) -> Value {
            Value::Not(Box::new(self))
        }
    }

    impl Neg for Value {
        type Output = Value;
        fn neg(self) -> Value {
            Value::Neg(Box::new(self))
        }
    }
}
