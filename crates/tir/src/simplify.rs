//! Simplification of every index expression of a statement, with each loop
//! and `let` variable known to lie in its range.

use crate::mutate::{walk_stmt, Mutator};
use crate::stmt::Stmt;
use arith::{Analyzer, Expr, Range, Var};

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
    Simplify { an: an.clone() }.stmt(s)
}

/// The pass: its analyzer knows the ranges of the loops and `let`s around
/// the statement being rewritten.
struct Simplify {
    an: Analyzer,
}

impl Simplify {
    /// `body` rewritten with `var` known to lie in `range`.
    fn within(&mut self, var: &Var, range: Range, body: &Stmt) -> arith::Result<Stmt> {
        let outer = self.an.clone();
        self.an.bind(var, range);
        let body = self.stmt(body);
        self.an = outer;
        body
    }
}

impl Mutator for Simplify {
    type Error = arith::ArithError;

    fn stmt(&mut self, s: &Stmt) -> arith::Result<Stmt> {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                pragmas,
                body,
            } => {
                let (min, extent) = (self.expr(min)?, self.expr(extent)?);
                let body = self.within(var, Range::new(min.clone(), extent.clone()), body)?;
                Ok(Stmt::For {
                    var: var.clone(),
                    min,
                    extent,
                    kind: kind.clone(),
                    pragmas: pragmas.clone(),
                    body: Box::new(body),
                })
            }
            Stmt::Let { var, value, body } => {
                let value = self.expr(value)?;
                let body = self.within(var, Range::new(value.clone(), Expr::int(1)), body)?;
                Ok(Stmt::Let {
                    var: var.clone(),
                    value,
                    body: Box::new(body),
                })
            }
            _ => walk_stmt(self, s),
        }
    }

    fn expr(&mut self, e: &Expr) -> arith::Result<Expr> {
        self.an.simplify(e)
    }
}
