//! Reductions across threads: a stage whose reduction loop is bound to
//! `threadIdx` (TVM's `MakeCrossThreadReduction`).
//!
//! Each thread reduces its own part first (the reduction loops not bound
//! to threads, moved inside the thread loops as TVM moves them, into
//! `normal_reduce_temp0`), then the threads of the block combine their
//! parts. TVM leaves that step as the intrinsic `tvm_thread_allreduce`,
//! which its device passes later write out with a shared buffer; here it is
//! written out at once, so the program runs and its bounds can be checked:
//! every thread stores its part in `red_buf0` (`shared`, one slot per
//! thread of the block), thread 0 of each reducing group combines the
//! slots in order and stores the result, guarded by the stage's store
//! predicate as TVM guards its write-back. The interpreter runs the block's
//! threads together (the buffer is shared), so the combining thread reads
//! the other threads' parts.
//!
//! ```text
//! // attr [iter_var(threadIdx.x, , threadIdx.x)] thread_extent = 16
//! allocate red_buf0[float32 * 16]
//! red_buf0[threadIdx.x] = <the thread's part>
//! if ((threadIdx.x == 0)) {
//!   for (red.k0, 1, 15) { red_buf0[0] = (red_buf0[0] + red_buf0[red.k0]) }
//!   B[i] = red_buf0[0]
//! }
//! ```

use crate::error::{Result, TeError};
use crate::iter_var::IterKind;
use crate::lower::{binop, Loop, Lowerer};
use crate::schedule::Stage;
use crate::thread::ThreadTag;
use crate::value::Reduce;
use arith::{Expr, Var};
use std::collections::HashMap;
use tir::{Buffer, Stmt, Value};

/// Whether stage `st` reduces across threads: one of its reduction loops
/// is bound to a `threadIdx` axis.
pub(crate) fn is_cross_thread(st: &Stage) -> bool {
    st.leaf_iter_vars()
        .iter()
        .any(|iv| thread_reduction(st, iv).is_some())
}

/// The thread a reduction loop `iv` of `st` is bound to, if any.
fn thread_reduction(st: &Stage, iv: &crate::IterVar) -> Option<ThreadTag> {
    match st.thread_tag(iv) {
        Some(t @ ThreadTag::ThreadIdx(_)) if iv.kind() == IterKind::Reduce => Some(t),
        _ => None,
    }
}

/// A thread index of the block: its position counting from 0 and the
/// number of threads.
struct BlockThread {
    tag: ThreadTag,
    position: Expr,
    extent: Expr,
}

fn conjunction(conds: impl IntoIterator<Item = Expr>) -> Option<Expr> {
    conds.into_iter().reduce(Expr::and)
}

impl Lowerer<'_> {
    /// The statement of stage `i`, a reduction `r` across threads, over
    /// `loops`, storing at `out_access`; `placed` are the tail guards of
    /// its loops by loop position.
    pub(crate) fn cross_thread_nest(
        &mut self,
        i: usize,
        loops: Vec<Loop>,
        placed: &[(Option<usize>, Expr)],
        r: &Reduce,
        out_access: Vec<Expr>,
    ) -> Result<Stmt> {
        let st = &self.s.stages()[i];
        let name = st.name().to_string();
        let is_thread = |l: &Loop| thread_reduction(st, &l.iv).is_some();
        let first = loops
            .iter()
            .position(is_thread)
            .expect("a cross-thread reduction has a reduction loop bound to a thread");
        if let Some(d) = loops[first..]
            .iter()
            .find(|l| l.iv.kind() != IterKind::Reduce)
        {
            return Err(TeError::schedule(format!(
                "`{name}` reduces across threads over `{}`, but its data loop `{}` is inside \
                 that loop: reorder the data loops outside the reduction loops bound to threads \
                 (TVM: cross thread reduce cannot swap with normal data axis)",
                loops[first].iv.name(),
                d.iv.name()
            )));
        }
        let data = st.data_loops();
        for l in loops.iter().filter(|l| l.iv.kind() == IterKind::Reduce) {
            let Some(bound) = st.thread_tag(&l.iv) else {
                continue;
            };
            if data.contains(&l.iv) {
                return Err(TeError::schedule(format!(
                    "`{}` of `{name}` is bound to `{bound}` and runs data axes fused with its \
                     reduction: threads that combine their parts must all compute the same \
                     element; bind a loop of the reduction alone",
                    l.iv.name()
                )));
            }
            if matches!(bound, ThreadTag::BlockIdx(_) | ThreadTag::VThread) {
                return Err(TeError::new(
                    crate::ErrorKind::Unsupported,
                    format!(
                        "`{}` of `{name}`'s reduction is bound to `{bound}`: a reduction \
                         combines the parts of the threads of one block, not of blocks or \
                         virtual threads; bind it to `threadIdx` or to nothing",
                        l.iv.name()
                    ),
                ));
            }
        }
        // The loops every thread runs (data loops, and the reduction loops
        // bound to threads) and those of each thread's own part.
        let is_normal = |l: &Loop| l.iv.kind() == IterKind::Reduce && !is_thread(l);
        let mut common_position = vec![None; loops.len()];
        let (mut common, mut normal) = (Vec::new(), Vec::new());
        for (k, l) in loops.into_iter().enumerate() {
            if is_normal(&l) {
                if self.attached.contains_key(&l.iv) {
                    return Err(TeError::schedule(format!(
                        "a stage is computed at `{}`, a loop of `{name}`'s reduction that each \
                         thread runs on its own part: compute it at a loop bound to a thread",
                        l.iv.name()
                    )));
                }
                normal.push(l);
            } else {
                common_position[k] = Some(common.len());
                common.push(l);
            }
        }
        let reduce_vars: Vec<Var> = common
            .iter()
            .chain(&normal)
            .filter(|l| l.iv.kind() == IterKind::Reduce)
            .map(|l| l.var.clone())
            .collect();
        // Guards on the reduction (or placed at a loop of a thread's own
        // part) decide what a thread contributes; the others stay at their
        // loops. (Guards placed outside every loop are applied around the
        // whole statement by the caller.)
        let mut part_conds: Vec<Expr> = Vec::new();
        let mut data_guards: Vec<(Option<usize>, Expr)> = Vec::new();
        for (p, g) in placed {
            let Some(p) = *p else { continue };
            match common_position[p] {
                Some(q) if !reduce_vars.iter().any(|v| g.uses_var(v)) => {
                    data_guards.push((Some(q), g.clone()))
                }
                _ => part_conds.push(g.clone()),
            }
        }
        if let Some(c) = &r.condition {
            part_conds.push(self.expr(c));
        }

        let block = self.block_threads(i, &common);
        let reduced: Vec<&BlockThread> = block
            .iter()
            .filter(|t| {
                common
                    .iter()
                    .any(|l| thread_reduction(st, &l.iv) == Some(t.tag))
            })
            .collect();
        let others: Vec<&BlockThread> = block
            .iter()
            .filter(|t| !reduced.iter().any(|u| u.tag == t.tag))
            .collect();

        let dtype = st.op().dtype();
        let combine =
            |a: Value, b: Value| Value::binary(binop(r.reducer.combiner(), dtype.is_int()), a, b);
        let identity = || Value::constant(r.reducer.identity(dtype), dtype);
        let shape: Vec<Expr> = others
            .iter()
            .chain(&reduced)
            .map(|t| t.extent.clone())
            .collect();
        let red = Buffer::new("red_buf0", dtype, shape).with_scope("shared");
        let mine: Vec<Expr> = others
            .iter()
            .chain(&reduced)
            .map(|t| t.position.clone())
            .collect();
        let source = self.value(&r.source)?;

        // The thread's own part.
        let part = if normal.is_empty() {
            let value = match conjunction(part_conds) {
                Some(c) => Value::select(Value::index(c), source, identity()),
                None => source,
            };
            Stmt::store(&red, mine.clone(), value)
        } else {
            let temp = Buffer::new("normal_reduce_temp0", dtype, [1i64]).with_scope("local");
            let acc = || Value::load(&temp, [0i64]);
            let mut update = Stmt::store(&temp, [0i64], combine(acc(), source));
            if let Some(c) = conjunction(part_conds) {
                update = Stmt::if_then(Value::index(c), update);
            }
            let update = self.nest(&normal, update, &[], 0)?;
            Stmt::allocate(
                &temp,
                vec![Expr::int(1)],
                Stmt::seq([
                    Stmt::store(&temp, [0i64], identity()),
                    update,
                    Stmt::store(&red, mine.clone(), acc()),
                ]),
            )
        };

        // Thread 0 of each group combines the parts, in order, and stores.
        let at = |reduced_at: &[Expr]| -> Vec<Expr> {
            others
                .iter()
                .map(|t| t.position.clone())
                .chain(reduced_at.iter().cloned())
                .collect()
        };
        let zero: Vec<Expr> = reduced.iter().map(|_| Expr::int(0)).collect();
        let vars: Vec<Var> = (0..reduced.len())
            .map(|k| Var::new(format!("red.k{k}")))
            .collect();
        let var_exprs: Vec<Expr> = vars.iter().map(Var::expr).collect();
        let mut step = Stmt::store(
            &red,
            at(&zero),
            combine(
                Value::load(&red, at(&zero)),
                Value::load(&red, at(&var_exprs)),
            ),
        );
        let combine_loops = if let [t] = reduced[..] {
            // A group of one thread has nothing to combine.
            let count = self.expr(&Expr::sub(t.extent.clone(), Expr::int(1)));
            if count.is_int(0) {
                Stmt::no_op()
            } else {
                Stmt::for_loop(&vars[0], 1, count, step)
            }
        } else {
            let not_first = vars
                .iter()
                .map(|v| Expr::ne(v.expr(), Expr::int(0)))
                .reduce(Expr::or)
                .expect("at least one reduced thread");
            step = Stmt::if_then(Value::index(not_first), step);
            vars.iter().zip(&reduced).rev().fold(step, |body, (v, t)| {
                Stmt::for_loop(v, 0, t.extent.clone(), body)
            })
        };
        let buf = self.buffer_of(i, 0).expect("computed stages have buffers");
        let mut write_back =
            Stmt::store_in_stage(&name, &buf, out_access, Value::load(&red, at(&zero)));
        if let Some(p) = st.store_predicate() {
            write_back = Stmt::if_then(Value::index(self.thread_condition(i, p)), write_back);
        }
        let is_first = conjunction(
            reduced
                .iter()
                .map(|t| Expr::eq(t.position.clone(), Expr::int(0))),
        )
        .expect("at least one reduced thread");
        // A result stored per thread (`local`, inside the threads) is
        // stored by every thread, which all read the combined value, as
        // TVM's all-reduce leaves it in every thread; a result in storage
        // the threads share is stored once, by thread 0.
        let per_thread =
            crate::bound::storage_scope(self.s, i, self.b) == crate::thread::StorageScope::Local;
        let finish = if per_thread {
            Stmt::seq([
                Stmt::if_then(Value::index(is_first), combine_loops),
                write_back,
            ])
        } else {
            Stmt::if_then(
                Value::index(is_first),
                Stmt::seq([combine_loops, write_back]),
            )
        };
        let body = Stmt::allocate(&red, red.shape().to_vec(), Stmt::seq([part, finish]));
        self.nest(&common, body, &data_guards, 0)
    }

    /// The `threadIdx` threads of the block stage `i` runs in: those bound
    /// around it (its attach path) and by its own loops `own`, one per
    /// thread axis, outermost first.
    fn block_threads(&self, i: usize, own: &[Loop]) -> Vec<BlockThread> {
        let tags: HashMap<&crate::IterVar, ThreadTag> = self
            .s
            .stages()
            .iter()
            .flat_map(|st| st.thread_bindings())
            .collect();
        let mut block: Vec<BlockThread> = Vec::new();
        let path: Vec<&crate::IterVar> = self.b.graph.attach_path(i).collect();
        let st = &self.s.stages()[i];
        let candidates = path
            .iter()
            .rev()
            .map(|iv| (*iv, tags.get(iv).copied()))
            .chain(own.iter().map(|l| (&l.iv, st.thread_tag(&l.iv))));
        for (iv, tag) in candidates {
            let Some(tag @ ThreadTag::ThreadIdx(_)) = tag else {
                continue;
            };
            if block.iter().any(|t| t.tag == tag) {
                continue;
            }
            let Some(range) = self.b.range(iv) else {
                continue;
            };
            let position = self.expr(&Expr::sub(iv.expr(), range.min.clone()));
            let extent = own
                .iter()
                .find(|l| &l.iv == iv && !l.trivial)
                .map(|l| l.extent.clone())
                .or_else(|| self.b.nominal_extent(iv))
                .unwrap_or_else(|| range.extent.clone());
            block.push(BlockThread {
                tag,
                position,
                extent: self.expr(&extent),
            });
        }
        // A reduction loop sharing the index of a wider thread loop around
        // it reduces over its own extent; the threads beyond it do not run
        // the stage.
        for l in own.iter().filter(|l| l.trivial) {
            let Some(tag) = thread_reduction(st, &l.iv) else {
                continue;
            };
            if let (Some(t), Some(extent)) = (
                block.iter_mut().find(|t| t.tag == tag),
                self.b.nominal_extent(&l.iv),
            ) {
                t.extent = self.expr(&extent);
            }
        }
        block
    }
}
