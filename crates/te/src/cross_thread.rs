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
//! the other threads' parts. A reducer of several values (`te.comm_reducer`,
//! argmax) has one buffer per value (`red_buf0`, `red_buf1`, ...), stored
//! and combined one value after the other, as TVM stores a tuple
//! reduction's values.
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
use crate::lower::{Loop, Lowerer};
use crate::schedule::Stage;
use crate::thread::ThreadTag;
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

/// What a cross-thread reduction reduces: one value (a built-in reducer)
/// or several (a `te.comm_reducer`'s tuple), lowered, with how two
/// partial results combine.
pub(crate) struct CrossValues {
    /// Each value's source, lowered.
    pub(crate) sources: Vec<Value>,
    /// Each value's identity, lowered.
    pub(crate) identity: Vec<Value>,
    /// Only points where this holds take part.
    pub(crate) condition: Option<Expr>,
    /// How an accumulated tuple and a new one combine.
    pub(crate) combine: Combine,
}

/// The combination of two partial results.
pub(crate) enum Combine {
    /// A built-in reducer's operator, on one value.
    Op(tir::BinOp),
    /// A program's reducer, on its tuple.
    Tuple(crate::comm_reducer::CommReducer),
}

impl Combine {
    /// Position `k` of the combination of `acc` with `new`.
    fn apply(&self, k: usize, acc: &[Value], new: &[Value]) -> Result<Value> {
        match self {
            Combine::Op(op) => Ok(Value::binary(*op, acc[k].clone(), new[k].clone())),
            Combine::Tuple(c) => c.combine_lowered(k, acc, new),
        }
    }
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
        r: &CrossValues,
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

        let n = r.sources.len();
        let bufs: Vec<Buffer> = (0..n)
            .map(|k| self.buffer_of(i, k).expect("computed stages have buffers"))
            .collect();
        let shape: Vec<Expr> = others
            .iter()
            .chain(&reduced)
            .map(|t| t.extent.clone())
            .collect();
        let reds: Vec<Buffer> = bufs
            .iter()
            .enumerate()
            .map(|(k, b)| {
                Buffer::new(format!("red_buf{k}"), b.dtype(), shape.clone()).with_scope("shared")
            })
            .collect();
        let mine: Vec<Expr> = others
            .iter()
            .chain(&reduced)
            .map(|t| t.position.clone())
            .collect();
        let load_all = |buffers: &[Buffer], at: &[Expr]| -> Vec<Value> {
            buffers
                .iter()
                .map(|b| Value::load(b, at.to_vec()))
                .collect()
        };
        // The values of a tuple are stored one after another, as TVM's
        // reductions store them.
        let store_all = |buffers: &[Buffer], at: &[Expr], values: Vec<Value>| {
            Stmt::seq(
                buffers
                    .iter()
                    .zip(values)
                    .map(|(b, v)| Stmt::store(b, at.to_vec(), v))
                    .collect::<Vec<_>>(),
            )
        };
        let combined = |acc: &[Value], new: &[Value]| -> Result<Vec<Value>> {
            (0..n).map(|k| r.combine.apply(k, acc, new)).collect()
        };

        // The thread's own part.
        let part = if normal.is_empty() {
            let values = match conjunction(part_conds) {
                Some(c) => r
                    .sources
                    .iter()
                    .zip(&r.identity)
                    .map(|(s, id)| Value::select(Value::index(c.clone()), s.clone(), id.clone()))
                    .collect(),
                None => r.sources.clone(),
            };
            store_all(&reds, &mine, values)
        } else {
            let temps: Vec<Buffer> = bufs
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    Buffer::new(format!("normal_reduce_temp{k}"), b.dtype(), [1i64])
                        .with_scope("local")
                })
                .collect();
            let zero_at = [Expr::int(0)];
            let acc = load_all(&temps, &zero_at);
            let mut update = store_all(&temps, &zero_at, combined(&acc, &r.sources)?);
            if let Some(c) = conjunction(part_conds) {
                update = Stmt::if_then(Value::index(c), update);
            }
            let update = self.nest(&normal, update, &[], 0)?;
            let body = Stmt::seq([
                store_all(&temps, &zero_at, r.identity.clone()),
                update,
                store_all(&reds, &mine, acc.clone()),
            ]);
            temps
                .iter()
                .rev()
                .fold(body, |body, t| Stmt::allocate(t, vec![Expr::int(1)], body))
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
        let mut step = store_all(
            &reds,
            &at(&zero),
            combined(
                &load_all(&reds, &at(&zero)),
                &load_all(&reds, &at(&var_exprs)),
            )?,
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
        let mut write_back = Stmt::seq(
            bufs.iter()
                .zip(&reds)
                .enumerate()
                .map(|(k, (buf, red))| {
                    let stage = if k == 0 {
                        name.clone()
                    } else {
                        buf.name().to_string()
                    };
                    Stmt::store_in_stage(
                        &stage,
                        buf,
                        out_access.clone(),
                        Value::load(red, at(&zero)),
                    )
                })
                .collect::<Vec<_>>(),
        );
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
        let body = reds
            .iter()
            .rev()
            .fold(Stmt::seq([part, finish]), |body, red| {
                Stmt::allocate(red, red.shape().to_vec(), body)
            });
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
