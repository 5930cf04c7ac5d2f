//! Simplification of every index expression of a statement, with each loop
//! and `let` variable known to lie in its range.

use crate::stmt::Stmt;
use crate::value::Value;
use arith::{Analyzer, Expr, Range};

/// `s` with every index expression simplified by `an`, extended inside each
/// loop by the loop variable's range and inside each `let` by its value.
/// The result computes the same indices at every point the program reaches
/// (a loop whose extent is not positive runs nothing, so its empty range is
/// harmless).
///
/// Fails only when the simplifier does (for example, constants whose
/// folding overflows).
///
/// ```
/// use arith::{Analyzer, Expr, Var};
/// use tir::{Buffer, DataType, Stmt, Value};
/// let c = Buffer::new("C", DataType::Float32, [4i64, 4]);
/// let (xo, xi) = (Var::new("xo"), Var::new("xi"));
/// let fused = xo.expr() * 4 + xi.expr();
/// let idx = [Expr::floor_div(fused.clone(), Expr::int(4)), Expr::floor_mod(fused, Expr::int(4))];
/// let s = Stmt::for_range(&xo, 0, 4, Stmt::for_range(&xi, 0, 4, Stmt::store(&c, idx, Value::f32(0.0))));
/// let t = tir::simplify(&s, &Analyzer::new()).unwrap();
/// assert!(t.to_string().contains("C[xo, xi] = 0.000000f"));
/// ```
pub fn simplify(s: &Stmt, an: &Analyzer) -> arith::Result<Stmt> {
    let e = |x: &Expr| an.simplify(x);
    Ok(match s {
        Stmt::For {
            var,
            min,
            extent,
            body,
        } => {
            let (min, extent) = (e(min)?, e(extent)?);
            let mut inner = an.clone();
            inner.bind(var, Range::new(min.clone(), extent.clone()));
            Stmt::For {
                var: var.clone(),
                min,
                extent,
                body: Box::new(simplify(body, &inner)?),
            }
        }
        Stmt::Let { var, value, body } => {
            let value = e(value)?;
            let mut inner = an.clone();
            inner.bind(var, Range::new(value.clone(), Expr::int(1)));
            Stmt::Let {
                var: var.clone(),
                value,
                body: Box::new(simplify(body, &inner)?),
            }
        }
        Stmt::Realize {
            buffer,
            region,
            body,
        } => Stmt::Realize {
            buffer: buffer.clone(),
            region: region
                .iter()
                .map(|r| Ok(Range::new(e(&r.min)?, e(&r.extent)?)))
                .collect::<arith::Result<_>>()?,
            body: Box::new(simplify(body, an)?),
        },
        Stmt::Allocate {
            buffer,
            extents,
            body,
        } => Stmt::Allocate {
            buffer: buffer.clone(),
            extents: extents.iter().map(e).collect::<arith::Result<_>>()?,
            body: Box::new(simplify(body, an)?),
        },
        Stmt::Produce { name, body } => Stmt::Produce {
            name: name.clone(),
            body: Box::new(simplify(body, an)?),
        },
        Stmt::BufferStore {
            buffer,
            indices,
            value,
            stage,
        } => Stmt::BufferStore {
            buffer: buffer.clone(),
            indices: indices.iter().map(e).collect::<arith::Result<_>>()?,
            value: simplify_value(value, an)?,
            stage: stage.clone(),
        },
        Stmt::IfThenElse {
            cond,
            then_case,
            else_case,
        } => Stmt::IfThenElse {
            cond: simplify_value(cond, an)?,
            then_case: Box::new(simplify(then_case, an)?),
            else_case: match else_case {
                Some(x) => Some(Box::new(simplify(x, an)?)),
                None => None,
            },
        },
        Stmt::Seq(v) => Stmt::Seq(
            v.iter()
                .map(|c| simplify(c, an))
                .collect::<arith::Result<_>>()?,
        ),
        Stmt::Evaluate(v) => Stmt::Evaluate(simplify_value(v, an)?),
    })
}

/// `v` with every index expression simplified by `an`.
fn simplify_value(v: &Value, an: &Analyzer) -> arith::Result<Value> {
    // `map_indices` cannot fail, so the first error is kept aside.
    let mut error = None;
    let out = v.map_indices(&mut |x| match an.simplify(x) {
        Ok(y) => y,
        Err(err) => {
            error.get_or_insert(err);
            x.clone()
        }
    });
    error.map_or(Ok(out), Err)
}
