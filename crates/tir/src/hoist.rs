//! Lifting allocations out of loops, as TVM's `StorageRewrite` does before
//! `tvm.lower` prints: the seed's listings show `allocate B[float32 * 16]`
//! at the top of the function although B is computed inside a loop.

use crate::buffer::{Buffer, BufferId};
use crate::mutate::{walk_stmt, Mutator};
use crate::stmt::Stmt;
use crate::value::Value;
use arith::{Expr, Var};
use std::convert::Infallible;

/// `s` with every `allocate` whose extents and buffer shape use no variable
/// bound inside `s` moved to the top of `s`, the first one met outermost. The storage
/// then lives across iterations instead of being fresh in each, which is
/// what TVM prints; a program that never reads an element before writing
/// it in the same iteration computes the same values either way.
///
/// An allocation stays where it is when its extents or its buffer's shape
/// depend on an enclosing loop or `let`, when it is nested inside another allocation of the same
/// buffer, or when an allocation of the same buffer with other extents was
/// already lifted. One with the same extents as a lifted one shares its
/// storage.
///
/// ```
/// use arith::{Expr, Var};
/// use tir::{Buffer, DataType, Stmt, Value};
/// let b = Buffer::new("B", DataType::Float32, [4i64]);
/// let (i, j) = (Var::new("i"), Var::new("j"));
/// let s = Stmt::for_range(&i, 0, 2, Stmt::allocate(&b, vec![Expr::int(4)],
///     Stmt::for_range(&j, 0, 4, Stmt::store(&b, [j.expr()], Value::f32(1.0)))));
/// assert_eq!(tir::hoist_allocations(&s).to_string(), "\
/// // attr [B] storage_scope = \"global\"
/// allocate B[float32 * 4]
/// for (i, 0, 2) {
///   for (j, 0, 4) {
///     B[j] = 1.000000f
///   }
/// }
/// ");
/// ```
pub fn hoist_allocations(s: &Stmt) -> Stmt {
    let mut h = Hoister {
        bound: Vec::new(),
        open: Vec::new(),
        lifted: Vec::new(),
    };
    let body = match h.stmt(s) {
        Ok(body) => body,
        Err(never) => match never {},
    };
    h.lifted
        .into_iter()
        .rev()
        .fold(body, |acc, (buffer, extents)| {
            Stmt::allocate(&buffer, extents, acc)
        })
}

struct Hoister {
    /// Variables bound by the loops and lets around the current statement.
    bound: Vec<Var>,
    /// Buffers allocated around the current statement.
    open: Vec<BufferId>,
    /// Allocations moved to the top, in the order met.
    lifted: Vec<(Buffer, Vec<Expr>)>,
}

impl Hoister {
    fn bound_in(&mut self, var: &Var, body: &Stmt) -> Result<Stmt, Infallible> {
        self.bound.push(var.clone());
        let out = self.stmt(body);
        self.bound.pop();
        out
    }
}

impl Mutator for Hoister {
    type Error = Infallible;

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, Self::Error> {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                pragmas,
                body,
            } => Ok(Stmt::For {
                var: var.clone(),
                min: min.clone(),
                extent: extent.clone(),
                kind: kind.clone(),
                pragmas: pragmas.clone(),
                body: Box::new(self.bound_in(var, body)?),
            }),
            Stmt::Let { var, value, body } => Ok(Stmt::Let {
                var: var.clone(),
                value: value.clone(),
                body: Box::new(self.bound_in(var, body)?),
            }),
            Stmt::LetValue { var, value, body } => Ok(Stmt::LetValue {
                var: var.clone(),
                value: value.clone(),
                body: Box::new(self.bound_in(var, body)?),
            }),
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => {
                let invariant = extents
                    .iter()
                    .chain(buffer.shape())
                    .all(|e| !self.bound.iter().any(|v| e.uses_var(v)));
                let nested = self.open.contains(&buffer.id());
                let same = self
                    .lifted
                    .iter()
                    .find(|(b, _)| b == buffer)
                    .map(|(_, e)| e == extents);
                let lift = invariant && !nested && same != Some(false);
                if lift && same.is_none() {
                    self.lifted.push((buffer.clone(), extents.clone()));
                }
                self.open.push(buffer.id());
                let body = self.stmt(body);
                self.open.pop();
                let body = body?;
                Ok(if lift {
                    body
                } else {
                    Stmt::allocate(buffer, extents.clone(), body)
                })
            }
            _ => walk_stmt(self, s),
        }
    }

    fn value(&mut self, v: &Value) -> Result<Value, Self::Error> {
        Ok(v.clone())
    }
}
