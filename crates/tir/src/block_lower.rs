//! From block form to the loop IR, so that a function in block form runs
//! on the interpreter and prints as a lowered program.
//!
//! As TVM's `LowerInitBlock` and `ConvertBlocksToOpaque` do: each block's
//! iteration variables are replaced by their values, its
//! predicate an `if`, its init an `if` that holds where every reduction
//! variable is at the start of its domain, and its buffers allocations.
//! A `let` of an integer stays a `let` ([`Stmt::LetValue`]); one of a
//! float, which the loop IR's integer variables cannot hold, becomes a
//! one-element `local` buffer written once and read where the variable is.

use crate::block::{BlockFunc, BlockRealize, BlockStmt, IterKind};
use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::mutate::{walk_value, Mutator};
use crate::stmt::{PrimFunc, Stmt};
use crate::value::Value;
use arith::{CmpOp, Expr, Var};

/// `func` as a program of the loop IR, with the same parameters.
///
/// ```
/// use arith::{Expr, Range, Var};
/// use tir::block::{Block, BlockFunc, BlockIterVar, BlockStmt, IterKind};
/// use tir::{Buffer, DataType, Value};
/// let b = Buffer::new("B", DataType::Float32, [4i64]);
/// let (i, v) = (Var::new("i"), Var::new("v"));
/// let block = Block::new("B", vec![BlockIterVar::new(&v, Range::from_extent(Expr::int(4)), IterKind::Spatial)],
///     BlockStmt::store(&b, [v.expr()], Value::f32(1.0)));
/// let f = BlockFunc::new("main", vec![b], vec![], BlockStmt::for_range(&i, 4, BlockStmt::realize(vec![i.expr()], block)));
/// let text = tir::block::to_loop_ir(&f).body.to_string();
/// assert_eq!(text, "for (i, 0, 4) {\n  B[i] = 1.000000f\n}\n");
/// ```
pub fn to_loop_ir(func: &BlockFunc) -> PrimFunc {
    let mut body = lower(&func.body);
    for b in func.alloc_buffers.iter().rev() {
        body = Stmt::allocate(b, b.shape().to_vec(), body);
    }
    PrimFunc::new(func.name.clone(), func.params.clone(), body)
}

fn lower(s: &BlockStmt) -> Stmt {
    crate::stack::grow(|| match s {
        BlockStmt::For {
            var,
            min,
            extent,
            kind,
            body,
        } => Stmt::for_kind(
            var,
            min.clone(),
            extent.clone(),
            kind.clone(),
            Vec::new(),
            lower(body),
        ),
        BlockStmt::Block(r) => realize(r),
        BlockStmt::Store {
            buffer,
            indices,
            value,
        } => Stmt::store(buffer, indices.iter().cloned(), value.clone()),
        BlockStmt::If {
            cond,
            then_case,
            else_case,
        } => match else_case {
            Some(e) => Stmt::if_then_else(cond.clone(), lower(then_case), lower(e)),
            None => Stmt::if_then(cond.clone(), lower(then_case)),
        },
        BlockStmt::Seq(v) => Stmt::seq(v.iter().map(lower)),
        BlockStmt::Evaluate(v) => Stmt::Evaluate(v.clone()),
        BlockStmt::Let {
            var,
            dtype,
            value,
            body,
        } => let_stmt(var, *dtype, value, lower(body)),
    })
}

/// `var: dtype = value` over the lowered `body`.
fn let_stmt(var: &Var, dtype: DataType, value: &Value, body: Stmt) -> Stmt {
    if !dtype.is_float() {
        return Stmt::LetValue {
            var: var.clone(),
            value: value.clone(),
            body: Box::new(body),
        };
    }
    let buffer = Buffer::new(var.name(), dtype, [1i64]).with_scope("local");
    let mut reads = VarAsLoad {
        var,
        buffer: &buffer,
    };
    let Ok(body) = reads.stmt(&body);
    let store = Stmt::store(&buffer, [Expr::int(0)], value.clone());
    Stmt::allocate(&buffer, vec![Expr::int(1)], Stmt::seq([store, body]))
}

/// Reads of a float `let` variable as loads of the buffer holding it.
struct VarAsLoad<'a> {
    var: &'a Var,
    buffer: &'a Buffer,
}

impl Mutator for VarAsLoad<'_> {
    type Error = std::convert::Infallible;

    fn value(&mut self, v: &Value) -> Result<Value, Self::Error> {
        match v {
            Value::Var(x, _) if x == self.var => Ok(Value::load(self.buffer, [Expr::int(0)])),
            _ => walk_value(self, v),
        }
    }
}

fn realize(r: &BlockRealize) -> Stmt {
    let block = &r.block;
    let mut body = lower(&block.body);
    if let Some(init) = &block.init {
        let first = block
            .iter_vars
            .iter()
            .filter(|iv| iv.kind == IterKind::Reduce)
            .map(|iv| Expr::cmp(CmpOp::Eq, iv.var.expr(), iv.dom.min.clone()))
            .reduce(Expr::and);
        let init = lower(init);
        body = Stmt::seq([
            match first {
                Some(c) => Stmt::if_then(Value::index(c), init),
                None => init,
            },
            body,
        ]);
    }
    for b in block.alloc_buffers.iter().rev() {
        body = Stmt::allocate(b, b.shape().to_vec(), body);
    }
    let values: std::collections::HashMap<&arith::Var, &Expr> = block
        .iter_vars
        .iter()
        .map(|iv| &iv.var)
        .zip(&r.bindings)
        .collect();
    body = body.substitute(&mut |v| values.get(v).map(|e| (*e).clone()));
    if r.predicate.as_bool() != Some(true) {
        body = Stmt::if_then(Value::index(r.predicate.clone()), body);
    }
    body
}
