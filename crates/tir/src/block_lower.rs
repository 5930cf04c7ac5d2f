//! From block form to the loop IR, so that a function in block form runs
//! on the interpreter and prints as a lowered program.
//!
//! As TVM's `LowerInitBlock` and `ConvertBlocksToOpaque` do: each block's
//! iteration variables are replaced by their values, its
//! predicate an `if`, its init an `if` that holds where every reduction
//! variable is at the start of its domain, and its buffers allocations.

use crate::block::{BlockFunc, BlockRealize, BlockStmt, IterKind};
use crate::stmt::{PrimFunc, Stmt};
use crate::value::Value;
use arith::{CmpOp, Expr};

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
    })
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
