//! How many steps (loop iterations and stores) a program takes, counted
//! before it runs so that a run over the step limit is refused at once,
//! with its size, instead of after the limit's worth of work.
//!
//! Each loop's extent is bounded by its constant upper bound with the
//! enclosing loop variables over their constant ranges, so the count is
//! exact for constant extents and an upper bound otherwise (a split tail,
//! both branches of an `if`). Counts saturate at `u64::MAX`; an extent
//! without a finite bound makes the count unknown.
//!
//! A packed call counts a step per element of the arrays it is passed.
//!
//! Thread launches count as the interpreter runs them: a launch is a loop
//! over its thread, except a second launch of a thread that a block
//! running in lock step already runs (TVM's cooperative fetch binds its
//! loops to the block's threads again), which is that thread's index, not
//! a loop ([`super::lockstep`]).

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
    steps(body, &mut an, &mut None)
}

/// The tags of the threads of the block running in lock step around the
/// statement counted, if there is one.
type Block = Option<Vec<String>>;

fn steps(s: &Stmt, an: &mut Analyzer, block: &mut Block) -> Option<u64> {
    // Statements nest as deep as a pipeline is long.
    crate::stack::grow(|| steps_step(s, an, block))
}

/// One level of [`steps`], on the stack [`crate::stack::grow`] left room on.
fn steps_step(s: &Stmt, an: &mut Analyzer, block: &mut Block) -> Option<u64> {
    if let Some((var, min, extent, l, body)) = s.as_thread_launch() {
        if l.is_thread_index() {
            return thread_steps(var, min, extent, &l.tag, body, an, block);
        }
    }
    Some(match s {
        Stmt::For {
            var,
            min,
            extent,
            body,
            ..
        } => loop_steps(var, min, extent, body, an, block, true)?,
        Stmt::Let { var, value, body } => {
            let b = an.const_int_bound(value);
            an.unbind(var);
            an.update_bound(var, b);
            let inner = steps(body, an, block);
            an.unbind(var);
            inner?
        }
        // A value read at run time: any integer.
        Stmt::LetValue { var, body, .. } => {
            an.unbind(var);
            steps(body, an, block)?
        }
        Stmt::Realize { body, .. }
        | Stmt::Allocate { body, .. }
        | Stmt::Produce { body, .. }
        | Stmt::TensorCall { body, .. } => steps(body, an, block)?,
        Stmt::BufferStore { .. } => 1,
        // How often a `while` loop runs is known only by running it.
        Stmt::While { .. } => return None,
        Stmt::IfThenElse {
            then_case,
            else_case,
            ..
        } => {
            let t = steps(then_case, an, block)?;
            let e = match else_case {
                Some(e) => steps(e, an, block)?,
                None => 0,
            };
            t.saturating_add(e)
        }
        Stmt::Seq(v) => {
            let mut total: u64 = 0;
            for c in v {
                total = total.saturating_add(steps(c, an, block)?);
            }
            total
        }
        Stmt::Evaluate(_) => 0,
        // A packed call takes a step per element of each array it is
        // passed (what the machine charges it).
        Stmt::Opaque { call, .. } => {
            let mut total: u64 = 0;
            for a in &call.args {
                if let crate::CallArg::Buffer(b) = a {
                    let mut elements: u64 = 1;
                    for d in b.shape().iter() {
                        let hi = an.const_int_bound(d).max;
                        if hi == POS_INF {
                            return None;
                        }
                        elements = elements.saturating_mul(u64::try_from(hi.max(0)).ok()?);
                    }
                    total = total.saturating_add(elements);
                }
            }
            total
        }
    })
}

/// The steps of a launch of the thread `tag`: a loop over it, or its body
/// once where the block running in lock step already runs the thread.
fn thread_steps(
    var: &Var,
    min: &arith::Expr,
    extent: &arith::Expr,
    tag: &str,
    body: &Stmt,
    an: &mut Analyzer,
    block: &mut Block,
) -> Option<u64> {
    let rebound = block.as_ref().is_some_and(|b| b.iter().any(|t| t == tag));
    let (iterates, pushed, started) = if rebound {
        (false, false, false)
    } else if let Some(b) = block {
        b.push(tag.to_string());
        (true, true, false)
    } else if super::lockstep::shares_memory(body) {
        *block = Some(vec![tag.to_string()]);
        (true, false, true)
    } else {
        (true, false, false)
    };
    let n = loop_steps(var, min, extent, body, an, block, iterates);
    if pushed {
        if let Some(b) = block {
            b.pop();
        }
    }
    if started {
        *block = None;
    }
    n
}

/// The steps of a loop over `var`, or (`iterates` false) of its body once
/// with `var` in the loop's range: a thread's index bound again.
fn loop_steps(
    var: &Var,
    min: &arith::Expr,
    extent: &arith::Expr,
    body: &Stmt,
    an: &mut Analyzer,
    block: &mut Block,
    iterates: bool,
) -> Option<u64> {
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
    let inner = steps(body, an, block);
    an.unbind(var);
    if !iterates {
        return inner;
    }
    // Each iteration is a step, plus what its body takes.
    Some((ext as u64).saturating_mul(inner?.saturating_add(1)))
}

#[cfg(test)]
mod tests {
    use super::step_bound;
    use crate::{Buffer, DataType, Stmt, Value};
    use arith::{Expr, Var};
    use std::collections::HashMap;

    /// A packed call costs what the machine charges: a step per element
    /// of each array passed; a size it cannot bound makes the count unknown.
    #[test]
    fn a_packed_call_counts_the_elements_it_is_passed() {
        let n = Var::new("n");
        let a = Buffer::new("A", DataType::Float32, [4i64, 5]);
        let b = Buffer::new("B", DataType::Float32, [n.expr()]);
        let call = |bufs: &[&Buffer]| {
            let args = bufs
                .iter()
                .map(|b| crate::CallArg::Buffer((*b).clone()))
                .collect();
            Stmt::opaque(crate::OpaqueCall::packed("f", args), true)
        };
        assert_eq!(step_bound(&call(&[&a, &a]), &HashMap::new()), Some(40));
        let sizes = HashMap::from([(n.clone(), 7)]);
        assert_eq!(step_bound(&call(&[&a, &b]), &sizes), Some(27));
        assert_eq!(step_bound(&call(&[&b]), &HashMap::new()), None);
    }

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

    /// A block running in lock step (its body gives a buffer `shared`
    /// storage) that launches its thread again for a cooperative fetch:
    /// the second launch is the thread's index, a guard, not a loop.
    #[test]
    fn a_second_launch_of_a_running_thread_is_not_a_loop() {
        use crate::{ForKind, ThreadLaunch};
        let launch = |v: &Var, extent: i64, body: Stmt| {
            let kind = ForKind::Thread(ThreadLaunch {
                tag: "threadIdx.x".to_string(),
                dom: None,
            });
            Stmt::for_kind(v, 0, extent, kind, Vec::new(), body)
        };
        let s = Buffer::new("S", DataType::Float32, [64i64]).with_scope("shared");
        let (tx, tx1, i) = (Var::new("tx"), Var::new("tx1"), Var::new("i"));
        // 16 threads; each fetches 4 elements: i in [0, 4) under the
        // second launch of its own thread.
        let fetch = launch(
            &tx1,
            16,
            Stmt::for_range(
                &i,
                0,
                4,
                Stmt::store(&s, [tx1.expr() * 4 + i.expr()], Value::f32(0.0)),
            ),
        );
        let block = launch(
            &tx,
            16,
            Stmt::allocate(&s, vec![Expr::int(64)], fetch.clone()),
        );
        assert_eq!(step_bound(&block, &HashMap::new()), Some(16 * (1 + 4 * 2)));
        // Without shared storage the threads run one after another, and the
        // second launch is a loop.
        let serial = launch(&tx, 16, fetch);
        assert_eq!(
            step_bound(&serial, &HashMap::new()),
            Some(16 * (1 + 16 * (1 + 4 * 2)))
        );
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
