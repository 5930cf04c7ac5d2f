//! The walk shared by passes that rewrite programs, as TVM's
//! `StmtExprMutator`: a pass implements [`Mutator`], overriding only the
//! nodes it changes, and [`walk_stmt`] and [`walk_value`] rebuild every
//! other node from its rewritten children.
//!
//! Storage flattening, layout transforms, index simplification and the
//! renaming of shadowing loops are such passes.

use crate::buffer::Buffer;
use crate::stmt::Stmt;
use crate::value::{BufferLoad, Value};
use arith::{Expr, Range};

/// A rewrite of statements and values. Every method has a default that
/// rewrites the node's children through the other methods, so a pass
/// overrides what it changes and, where it needs to act around a
/// statement (bind a loop variable, open a storage scope), calls
/// [`walk_stmt`] for the rest.
///
/// ```
/// use arith::{Expr, Var};
/// use tir::mutate::{Mutator, walk_stmt};
/// use tir::{Buffer, DataType, Stmt, Value};
///
/// /// Doubles every index.
/// struct Double;
/// impl Mutator for Double {
///     type Error = std::convert::Infallible;
///     fn expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
///         Ok(e.clone() * 2)
///     }
/// }
///
/// let b = Buffer::new("B", DataType::Float32, [8i64]);
/// let i = Var::new("i");
/// let s = Stmt::store(&b, [i.expr()], Value::load(&b, [i.expr() + 1]));
/// let t = Double.stmt(&s).unwrap();
/// assert_eq!(t.to_string(), "B[(i*2)] = B[((i + 1)*2)]\n");
/// ```
pub trait Mutator {
    /// Why the pass can fail.
    type Error;

    /// Rewrites a statement; by default its children ([`walk_stmt`]).
    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, Self::Error> {
        walk_stmt(self, s)
    }

    /// Rewrites a value; by default its children ([`walk_value`]).
    fn value(&mut self, v: &Value) -> Result<Value, Self::Error> {
        walk_value(self, v)
    }

    /// Rewrites an index expression: a loop's bounds, a `let`'s value, a
    /// region or allocation extent, an index value, and each index of an
    /// access before [`Mutator::access`] sees it. By default unchanged.
    fn expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
        Ok(e.clone())
    }

    /// Rewrites an access `buffer[indices]` (a load or a store), its indices
    /// already rewritten by [`Mutator::expr`]. By default unchanged.
    fn access(
        &mut self,
        buffer: &Buffer,
        indices: Vec<Expr>,
    ) -> Result<(Buffer, Vec<Expr>), Self::Error> {
        Ok((buffer.clone(), indices))
    }
}

/// `s` with its children rewritten by `m`: nested statements by
/// [`Mutator::stmt`], values by [`Mutator::value`], index expressions by
/// [`Mutator::expr`], and a store's target by [`Mutator::access`].
pub fn walk_stmt<M: Mutator + ?Sized>(m: &mut M, s: &Stmt) -> Result<Stmt, M::Error> {
    crate::stack::grow(|| {
        Ok(match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                pragmas,
                body,
            } => Stmt::For {
                var: var.clone(),
                min: m.expr(min)?,
                extent: m.expr(extent)?,
                kind: kind.clone(),
                pragmas: pragmas.clone(),
                body: Box::new(m.stmt(body)?),
            },
            Stmt::Let { var, value, body } => Stmt::Let {
                var: var.clone(),
                value: m.expr(value)?,
                body: Box::new(m.stmt(body)?),
            },
            Stmt::LetValue { var, value, body } => Stmt::LetValue {
                var: var.clone(),
                value: m.value(value)?,
                body: Box::new(m.stmt(body)?),
            },
            Stmt::Realize {
                buffer,
                region,
                body,
            } => Stmt::Realize {
                buffer: buffer.clone(),
                region: region
                    .iter()
                    .map(|r| Ok(Range::new(m.expr(&r.min)?, m.expr(&r.extent)?)))
                    .collect::<Result<_, _>>()?,
                body: Box::new(m.stmt(body)?),
            },
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => Stmt::Allocate {
                buffer: buffer.clone(),
                extents: extents
                    .iter()
                    .map(|e| m.expr(e))
                    .collect::<Result<_, _>>()?,
                body: Box::new(m.stmt(body)?),
            },
            Stmt::Produce { name, body } => Stmt::Produce {
                name: name.clone(),
                body: Box::new(m.stmt(body)?),
            },
            Stmt::While { cond, body } => Stmt::While {
                cond: m.value(cond)?,
                body: Box::new(m.stmt(body)?),
            },
            Stmt::BufferStore {
                buffer,
                indices,
                value,
                stage,
            } => {
                let value = m.value(value)?;
                let indices = indices
                    .iter()
                    .map(|e| m.expr(e))
                    .collect::<Result<_, _>>()?;
                let (buffer, indices) = m.access(buffer, indices)?;
                Stmt::BufferStore {
                    buffer,
                    indices,
                    value,
                    stage: stage.clone(),
                }
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => Stmt::IfThenElse {
                cond: m.value(cond)?,
                then_case: Box::new(m.stmt(then_case)?),
                else_case: match else_case {
                    Some(e) => Some(Box::new(m.stmt(e)?)),
                    None => None,
                },
            },
            Stmt::Seq(v) => Stmt::Seq(v.iter().map(|c| m.stmt(c)).collect::<Result<_, _>>()?),
            Stmt::Evaluate(v) => Stmt::Evaluate(m.value(v)?),
            Stmt::Opaque { call, extern_scope } => {
                let mut call = call.clone();
                for a in &mut call.args {
                    if let crate::opaque::CallArg::Value(v) = a {
                        *v = m.value(v)?;
                    }
                }
                Stmt::Opaque {
                    call,
                    extern_scope: *extern_scope,
                }
            }
            Stmt::TensorCall {
                name,
                args,
                scalars,
                written,
                body,
            } => Stmt::TensorCall {
                name: name.clone(),
                written: match written {
                    Some(call) => {
                        let mut call = call.clone();
                        for a in &mut call.args {
                            if let crate::opaque::CallArg::Value(v) = a {
                                *v = m.value(v)?;
                            }
                        }
                        Some(call)
                    }
                    None => None,
                },
                scalars: scalars
                    .iter()
                    .map(|e| m.expr(e))
                    .collect::<Result<_, _>>()?,
                args: args
                    .iter()
                    .map(|(b, region)| {
                        let region = region
                            .iter()
                            .map(|r| Ok(Range::new(m.expr(&r.min)?, m.expr(&r.extent)?)))
                            .collect::<Result<_, _>>()?;
                        Ok((b.clone(), region))
                    })
                    .collect::<Result<_, _>>()?,
                body: Box::new(m.stmt(body)?),
            },
        })
    })
}

/// `v` with its children rewritten by `m`: operands by
/// [`Mutator::value`], index expressions by [`Mutator::expr`], and a load's
/// source by [`Mutator::access`].
pub fn walk_value<M: Mutator + ?Sized>(m: &mut M, v: &Value) -> Result<Value, M::Error> {
    crate::stack::grow(|| {
        let mut bx = |x: &Value| m.value(x).map(Box::new);
        Ok(match v {
            Value::Float(..) | Value::Int(..) => v.clone(),
            Value::Index(e) => Value::Index(m.expr(e)?),
            Value::Load(l) => {
                let indices = l
                    .indices
                    .iter()
                    .map(|e| m.expr(e))
                    .collect::<Result<_, _>>()?;
                let (buffer, indices) = m.access(&l.buffer, indices)?;
                Value::Load(BufferLoad { buffer, indices })
            }
            Value::Binary(op, a, b) => Value::Binary(*op, bx(a)?, bx(b)?),
            Value::Cmp(op, a, b) => Value::Cmp(*op, bx(a)?, bx(b)?),
            Value::And(a, b) => Value::And(bx(a)?, bx(b)?),
            Value::Or(a, b) => Value::Or(bx(a)?, bx(b)?),
            Value::Not(a) => Value::Not(bx(a)?),
            Value::Neg(a) => Value::Neg(bx(a)?),
            Value::Cast(t, a) => Value::Cast(*t, bx(a)?),
            Value::Select(c, a, b) => Value::Select(bx(c)?, bx(a)?, bx(b)?),
            Value::IfThenElse(c, a, b) => Value::IfThenElse(bx(c)?, bx(a)?, bx(b)?),
            Value::Likely(a) => Value::Likely(bx(a)?),
            Value::Call(op, args) => Value::Call(
                *op,
                args.iter().map(|a| m.value(a)).collect::<Result<_, _>>()?,
            ),
            Value::Let(var, x, body) => Value::Let(var.clone(), bx(x)?, bx(body)?),
            // The variable is renamed as index expressions rename it (a
            // pass that renames a `let`'s variable renames its uses); an
            // integer one replaced by an expression becomes that index.
            Value::Var(var, t) => {
                let e = m.expr(&var.expr())?;
                match e.as_var() {
                    Some(w) => Value::Var(w.clone(), *t),
                    None if t.is_int() => Value::cast(*t, Value::Index(e)),
                    None => v.clone(),
                }
            }
        })
    })
}

/// The pass that rewrites every index expression with a function (what
/// `Stmt::map_indices` and `Value::map_indices` do).
pub(crate) struct MapIndices<'a>(pub &'a mut dyn FnMut(&Expr) -> Expr);

impl Mutator for MapIndices<'_> {
    type Error = std::convert::Infallible;

    fn expr(&mut self, e: &Expr) -> Result<Expr, Self::Error> {
        Ok((self.0)(e))
    }
}
