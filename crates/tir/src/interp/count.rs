//! How many steps (loop iterations and stores) a program takes, counted
//! before it runs so that a run over the step limit is refused at once,
//! with its size, instead of after the limit's worth of work.
//!
//! Each loop's extent is bounded by its constant upper bound with the
//! enclosing loop variables over their constant ranges, so the count is
//! exact for constant extents and an upper bound otherwise (a split tail,
//! both branches of an `if`). Counts saturate at `u64::MAX`; an extent
//! without a finite bound makes the count unknown.

use crate::stmt::Stmt;
use arith::{Analyzer, ConstBound, Var, POS_INF};
use std::collections::HashMap;

/// An upper bound of the steps `body` takes with `sizes` given, or `None`
/// when some loop extent has no finite bound.
pub(crate) fn step_bound(body: &Stmt, sizes: &HashMap<Var, i64>) -> Option<u64> {
    let mut an = Analyzer::new();
    for (v, &x) in sizes {
        an.update_bound(v, ConstBound::new(x, x));
    }
    steps(body, &mut an)
}

fn steps(s: &Stmt, an: &mut Analyzer) -> Option<u64> {
    // Statements nest as deep as a pipeline is long.
    crate::stack::grow(|| steps_step(s, an))
}

/// One level of [`steps`], on the stack [`crate::stack::grow`] left room on.
fn steps_step(s: &Stmt, an: &mut Analyzer) -> Option<u64> {
    Some(match s {
        Stmt::For {
            var,
            min,
            extent,
            body,
            ..
        } => {
            let lo = an.const_int_bound(min);
            let ext = an.const_int_bound(extent).max;
            if ext == POS_INF || lo.min == arith::NEG_INF || lo.max == POS_INF {
                return None;
            }
            if ext <= 0 {
                return Some(0);
            }
            let hi = lo.max.saturating_add(ext - 1);
            an.unbind(var);
            an.update_bound(var, ConstBound::new(lo.min, hi));
            let inner = steps(body, an);
            an.unbind(var);
            // Each iteration is a step, plus what its body takes.
            (ext as u64).saturating_mul(inner?.saturating_add(1))
        }
        Stmt::Let { var, value, body } => {
            let b = an.const_int_bound(value);
            an.unbind(var);
            an.update_bound(var, b);
            let inner = steps(body, an);
            an.unbind(var);
            inner?
        }
        // A value read at run time: any integer.
        Stmt::LetValue { var, body, .. } => {
            an.unbind(var);
            steps(body, an)?
        }
        Stmt::Realize { body, .. }
        | Stmt::Allocate { body, .. }
        | Stmt::Produce { body, .. }
        | Stmt::TensorCall { body, .. } => steps(body, an)?,
        Stmt::BufferStore { .. } => 1,
        Stmt::IfThenElse {
            then_case,
            else_case,
            ..
        } => {
            let t = steps(then_case, an)?;
            let e = match else_case {
                Some(e) => steps(e, an)?,
                None => 0,
            };
            t.saturating_add(e)
        }
        Stmt::Seq(v) => {
            let mut total: u64 = 0;
            for c in v {
                total = total.saturating_add(steps(c, an)?);
            }
            total
        }
        Stmt::Evaluate(_) | Stmt::Opaque { .. } => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::step_bound;
    use crate::{Buffer, DataType, Stmt, Value};
    use arith::{Expr, Var};
    use std::collections::HashMap;

    #[test]
    fn nested_loops_count_iterations_and_stores() {
        let b = Buffer::new("B", DataType::Float32, [8i64]);
        let (i, j) = (Var::new("i"), Var::new("j"));
        // 4 outer iterations, each with 3 inner iterations and 3 stores.
        let s = Stmt::for_range(
            &i,
            0,
            4,
            Stmt::for_range(&j, 0, 3, Stmt::store(&b, [j.expr()], Value::f32(0.0))),
        );
        assert_eq!(step_bound(&s, &HashMap::new()), Some(4 * (1 + 3 * 2)));
        // A tail `min(3, 8 - i*3)` is bounded by 3.
        let tail = Expr::min(Expr::int(3), Expr::int(8) - i.expr() * 3);
        let s = Stmt::for_range(
            &i,
            0,
            3,
            Stmt::for_loop(&j, 0, tail, Stmt::store(&b, [j.expr()], Value::f32(0.0))),
        );
        assert_eq!(step_bound(&s, &HashMap::new()), Some(3 * (1 + 3 * 2)));
        // A symbolic extent counts with its size, and is unknown without.
        let n = Var::new("n");
        let s = Stmt::for_loop(
            &i,
            0,
            n.expr(),
            Stmt::store(&b, [i.expr()], Value::f32(0.0)),
        );
        assert_eq!(step_bound(&s, &HashMap::from([(n.clone(), 5)])), Some(10));
        assert_eq!(step_bound(&s, &HashMap::new()), None);
    }

    #[test]
    fn counts_saturate() {
        let b = Buffer::new("B", DataType::Float32, [1i64]);
        let vars: Vec<Var> = (0..6).map(|k| Var::new(format!("i{k}"))).collect();
        let mut s = Stmt::store(&b, [Expr::int(0)], Value::f32(0.0));
        for v in &vars {
            s = Stmt::for_range(v, 0, 1 << 20, s);
        }
        assert_eq!(step_bound(&s, &HashMap::new()), Some(u64::MAX));
    }
}
