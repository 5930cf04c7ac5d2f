//! Blocks whose threads run together.
//!
//! On a GPU the threads of a block run at once and meet at barriers. A
//! block that fetches a tile into `shared` memory relies on it: each thread
//! stores its part of the tile, and after a barrier every thread reads all
//! of it. Running one thread's iteration after another would read the parts
//! of threads that have not run yet. So a thread launch (`threadIdx.*`)
//! whose body gives a buffer `shared` storage is compiled to run in lock
//! step: each statement of the body runs for every thread of the block
//! before the next statement starts, as if a barrier followed every
//! statement. TVM places its barriers between statements that communicate,
//! so a program that runs correctly on a GPU gives the same values here.
//!
//! - A loop whose bounds are the same for every thread stays a loop, around
//!   the statements inside it, each run for all the threads.
//! - A `let` or a condition on the thread indices is evaluated again for
//!   each thread at each statement it covers (a condition that reads
//!   memory, or a loop whose bounds differ per thread, runs whole for one
//!   thread after another instead).
//! - A buffer given storage inside the block that is not `shared` (a
//!   `local` accumulator) has a copy per thread.
//! - A launch of a thread the block already runs (TVM's cooperative fetch,
//!   whose loops are bound to the threads with a new iteration variable) is
//!   that thread's index, not a loop: the threads share the work.
//!
//! Programs without `shared` storage inside a thread launch run as before,
//! one thread's iteration after another.

use super::compile::{Code, Compiler, IndexCode, ThreadLoop};
use super::error::RunError;
use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::print::Printer;
use crate::stmt::{ForKind, Stmt};
use crate::value::Value;
use arith::{Expr, Var};

/// The most threads a block whose buffers need a copy per thread may have:
/// far above any GPU's (1024), low enough that the copies' bookkeeping
/// stays small for a hostile launch.
const MAX_BLOCK_THREADS: i64 = 1 << 16;

/// The block being compiled: its threads, and what each thread evaluates
/// for itself.
#[derive(Default)]
pub(super) struct LockStep<'a> {
    /// Thread indices, outermost first.
    threads: Vec<Thread<'a>>,
    /// Per-thread bindings and conditions in force, outermost first.
    private: Vec<Private<'a>>,
    /// Variables whose value may differ between threads.
    varying: Vec<Var>,
}

/// A thread index of the block.
struct Thread<'a> {
    var: &'a Var,
    tag: &'a str,
    min: &'a Expr,
    /// The number of threads, known when the block starts.
    size: i64,
    src: &'a Stmt,
}

/// A binding or condition each thread evaluates for itself, around every
/// statement it covers.
enum Private<'a> {
    Let {
        var: Var,
        value: Expr,
        src: &'a Stmt,
    },
    Guard {
        cond: Value,
        src: &'a Stmt,
    },
}

/// Whether `b` is one storage for the threads of a block: `shared`, or
/// `warp` (shared by the threads of a warp; a block here is at most one).
fn is_shared(b: &Buffer) -> bool {
    b.scope().starts_with("shared") || b.scope() == "warp"
}

/// Whether `s` gives a buffer `shared` storage anywhere inside it.
pub(super) fn shares_memory(s: &Stmt) -> bool {
    let mut pending = vec![s];
    while let Some(s) = pending.pop() {
        match s {
            Stmt::Realize { buffer, body, .. } | Stmt::Allocate { buffer, body, .. } => {
                if is_shared(buffer) {
                    return true;
                }
                pending.push(body);
            }
            Stmt::For { body, .. }
            | Stmt::Let { body, .. }
            | Stmt::LetValue { body, .. }
            | Stmt::Produce { body, .. }
            | Stmt::While { body, .. }
            | Stmt::TensorCall { body, .. } => pending.push(body),
            Stmt::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                pending.push(then_case);
                pending.extend(else_case.as_deref());
            }
            Stmt::Seq(v) => pending.extend(v.iter()),
            Stmt::BufferStore { .. } | Stmt::Evaluate(_) | Stmt::Opaque { .. } => {}
        }
    }
    false
}

fn header(s: &Stmt) -> String {
    Printer::new().header(s)
}

/// The parts of a thread launch.
fn launch(s: &Stmt) -> (&Var, &Expr, &Expr, &str, &Stmt) {
    let (var, min, extent, l, body) = s.as_thread_launch().expect("called on thread launches");
    (var, min, extent, l.tag.as_str(), body)
}

impl<'a> Compiler<'a> {
    /// A `threadIdx` launch met outside a block running in lock step, or
    /// inside one statement of such a block.
    pub(super) fn thread_launch(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        let (var, min, extent, tag, body) = launch(s);
        match &self.lockstep {
            Some(ls) => {
                if let Some(t) = ls.threads.iter().find(|t| t.tag == tag) {
                    let (value, guard) = rebinding(t, min, extent);
                    let value = self.index(&value, s)?;
                    let cond = self.value_as(&guard, DataType::Bool, s)?;
                    let (slot, body) = self.bound(var, body)?;
                    let body = Code::If {
                        cond,
                        then_case: Box::new(body),
                        else_case: None,
                        src: s,
                    };
                    return Ok(Code::Let {
                        slot,
                        value,
                        body: Box::new(body),
                        src: s,
                    });
                }
            }
            None if shares_memory(body) => {
                self.lockstep = Some(LockStep::default());
                let code = self.new_thread(s);
                self.lockstep = None;
                return code;
            }
            None => {}
        }
        self.serial_loop(s)
    }

    fn block(&mut self) -> &mut LockStep<'a> {
        self.lockstep.as_mut().expect("inside a block")
    }

    /// Whether `e` has the same value in every thread.
    fn uniform(&self, e: &Expr) -> bool {
        let ls = self.lockstep.as_ref().expect("inside a block");
        !ls.varying.iter().any(|v| e.uses_var(v))
    }

    /// Adds the thread `s` launches to the block and compiles its body.
    fn new_thread(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        let (var, min, extent, tag, body) = launch(s);
        if !self.uniform(min) || !self.uniform(extent) {
            return Err(RunError::Index {
                message: format!(
                    "the range of the threads `{tag}` depends on the index of another thread"
                ),
                stmt: header(s),
            });
        }
        let size = extent
            .eval(&|v| self.sizes.get(v).copied())
            .map_err(|_| RunError::Index {
                message: format!(
                    "the number of threads `{tag}`, `{extent}`, must be known when the block \
                     starts: give its sizes"
                ),
                stmt: header(s),
            })?;
        self.block().threads.push(Thread {
            var,
            tag,
            min,
            size: size.max(0),
            src: s,
        });
        let code = self.with_varying(var, |c| c.lockstep_stmt(body));
        self.block().threads.pop();
        code
    }

    /// Compiles with `var` bound and varying between threads.
    fn with_varying(
        &mut self,
        var: &Var,
        f: impl FnOnce(&mut Self) -> Result<Code<'a>, RunError>,
    ) -> Result<Code<'a>, RunError> {
        let slot = self.var_slot(var) as usize;
        self.bound_depth[slot] += 1;
        self.block().varying.push(var.clone());
        let code = f(self);
        self.block().varying.pop();
        self.bound_depth[slot] -= 1;
        code
    }

    /// Compiles with a per-thread binding or condition in force.
    fn with_private(
        &mut self,
        p: Private<'a>,
        f: impl FnOnce(&mut Self) -> Result<Code<'a>, RunError>,
    ) -> Result<Code<'a>, RunError> {
        self.block().private.push(p);
        let code = f(self);
        self.block().private.pop();
        code
    }

    fn lockstep_stmt(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        crate::stack::grow(|| self.lockstep_step(s))
    }

    /// One level of [`Self::lockstep_stmt`], on the stack
    /// [`crate::stack::grow`] left room on.
    fn lockstep_step(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        match s {
            Stmt::For {
                kind: ForKind::Thread(l),
                ..
            } if l.is_thread_index() => {
                let (var, min, extent, tag, body) = launch(s);
                let known = self.block().threads.iter().position(|t| t.tag == tag);
                let Some(k) = known else {
                    return self.new_thread(s);
                };
                let (value, guard) = rebinding(&self.block().threads[k], min, extent);
                let var_ = var.clone();
                self.with_private(
                    Private::Let {
                        var: var_,
                        value,
                        src: s,
                    },
                    |c| {
                        c.with_varying(var, |c| {
                            c.with_private(
                                Private::Guard {
                                    cond: guard,
                                    src: s,
                                },
                                |c| c.lockstep_stmt(body),
                            )
                        })
                    },
                )
            }
            Stmt::For {
                var,
                min,
                extent,
                body,
                ..
            } => {
                if !self.uniform(min) || !self.uniform(extent) {
                    return self.leaf(s);
                }
                let min = self.index(min, s)?;
                let extent = self.index(extent, s)?;
                let slot = self.var_slot(var);
                self.bound_depth[slot as usize] += 1;
                let body = self.lockstep_stmt(body);
                self.bound_depth[slot as usize] -= 1;
                Ok(Code::For {
                    slot,
                    min,
                    extent,
                    body: Box::new(body?),
                    src: s,
                })
            }
            Stmt::Let { var, value, body } => {
                if self.uniform(value) {
                    let value = self.index(value, s)?;
                    let slot = self.var_slot(var);
                    self.bound_depth[slot as usize] += 1;
                    let body = self.lockstep_stmt(body);
                    self.bound_depth[slot as usize] -= 1;
                    return Ok(Code::Let {
                        slot,
                        value,
                        body: Box::new(body?),
                        src: s,
                    });
                }
                let p = Private::Let {
                    var: var.clone(),
                    value: value.clone(),
                    src: s,
                };
                self.with_private(p, |c| c.with_varying(var, |c| c.lockstep_stmt(body)))
            }
            // A value read from memory, or a loop whose end is: each
            // thread runs it whole in turn.
            Stmt::LetValue { .. } | Stmt::While { .. } => self.leaf(s),
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => {
                let mut reads = false;
                cond.for_each_load(&mut |_| reads = true);
                if reads {
                    return self.leaf(s);
                }
                let mut uniform = true;
                cond.map_indices(&mut |e| {
                    uniform &= self.uniform(e);
                    e.clone()
                });
                if uniform {
                    let c = self.value_as(cond, DataType::Bool, s)?;
                    let then_case = Box::new(self.lockstep_stmt(then_case)?);
                    let else_case = match else_case {
                        Some(e) => Some(Box::new(self.lockstep_stmt(e)?)),
                        None => None,
                    };
                    return Ok(Code::If {
                        cond: c,
                        then_case,
                        else_case,
                        src: s,
                    });
                }
                let guard = Private::Guard {
                    cond: cond.clone(),
                    src: s,
                };
                let mut parts = vec![self.with_private(guard, |c| c.lockstep_stmt(then_case))?];
                if let Some(e) = else_case {
                    let guard = Private::Guard {
                        cond: Value::Not(Box::new(cond.clone())),
                        src: s,
                    };
                    parts.push(self.with_private(guard, |c| c.lockstep_stmt(e))?);
                }
                Ok(Code::Seq(parts))
            }
            Stmt::Seq(v) => Ok(Code::Seq(
                v.iter()
                    .map(|c| self.lockstep_stmt(c))
                    .collect::<Result<_, _>>()?,
            )),
            Stmt::Produce { body, .. } | Stmt::TensorCall { body, .. } => self.lockstep_stmt(body),
            Stmt::Realize {
                buffer,
                region,
                body,
            } => {
                let min = region.iter().map(|r| r.min.clone()).collect();
                let extent = region.iter().map(|r| r.extent.clone()).collect();
                self.block_region(buffer, min, extent, body, s)
            }
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => {
                let min = extents.iter().map(|_| Expr::int(0)).collect();
                self.block_region(buffer, min, extents.clone(), body, s)
            }
            Stmt::BufferStore { .. } | Stmt::Evaluate(_) | Stmt::Opaque { .. } => self.leaf(s),
        }
    }

    /// Storage inside the block: one region for all threads when the
    /// buffer is `shared` (or a parameter), a copy per thread otherwise.
    fn block_region(
        &mut self,
        buffer: &Buffer,
        min: Vec<Expr>,
        extent: Vec<Expr>,
        body: &'a Stmt,
        s: &'a Stmt,
    ) -> Result<Code<'a>, RunError> {
        self.arity(buffer, extent.len(), s)?;
        let slot = self.buffer_slot(buffer, false)?;
        let is_param = self.buffers[slot as usize].is_param;
        if is_shared(buffer) || is_param {
            let uniform = min
                .iter()
                .chain(&extent)
                .chain(if is_param { &[][..] } else { buffer.shape() })
                .all(|e| self.uniform(e));
            if !uniform {
                if is_param {
                    return self.leaf(s);
                }
                return Err(RunError::Allocation {
                    buffer: buffer.name().to_string(),
                    message: "its region depends on the thread index, but a `shared` buffer is \
                              one storage for all the threads of a block"
                        .to_string(),
                    stmt: header(s),
                });
            }
            let min = self.indices(&min, s)?;
            let extent = self.indices(&extent, s)?;
            return self.region_with(buffer, min, extent, s, |c| c.lockstep_stmt(body));
        }
        // One copy per thread, in consecutive slots, while the body is
        // compiled.
        let threads = &self.block().threads;
        let copies = threads
            .iter()
            .try_fold(1i64, |acc, t| acc.checked_mul(t.size))
            .filter(|&n| n <= MAX_BLOCK_THREADS)
            .ok_or_else(|| RunError::Allocation {
                buffer: buffer.name().to_string(),
                message: format!(
                    "it needs a copy per thread, and the block has more than {MAX_BLOCK_THREADS} \
                     threads (a GPU block has at most 1024)"
                ),
                stmt: header(s),
            })?;
        let copy = threads.iter().fold(Expr::int(0), |acc, t| {
            Expr::add(
                Expr::mul(acc, Expr::int(t.size)),
                Expr::sub(t.var.expr(), t.min.clone()),
            )
        });
        let base = self.buffers.len() as u32;
        for _ in 0..copies.max(1) {
            self.buffers.push(super::compile::BufferInfo {
                buffer: buffer.clone(),
                is_param: false,
                shape: Vec::new(),
            });
            self.live_depth.push(0);
        }
        let previous = self.buffer_slots.insert(buffer.id(), base);
        self.copies.insert(base, copy.clone());
        let code = (|| {
            let enter = Code::Enter {
                buf: base,
                copy: self.index(&copy, s)?,
                shape: self.indices(buffer.shape(), s)?,
                min: self.indices(&min, s)?,
                extent: self.indices(&extent, s)?,
                src: s,
            };
            let enter = self.each_thread(enter)?;
            self.live_depth[base as usize] += 1;
            let body = self.lockstep_stmt(body);
            self.live_depth[base as usize] -= 1;
            let leave = Code::Leave {
                buf: base,
                copy: self.index(&copy, s)?,
                src: s,
            };
            let leave = self.each_thread(leave)?;
            Ok(Code::Seq(vec![enter, body?, leave]))
        })();
        match previous {
            Some(p) => self.buffer_slots.insert(buffer.id(), p),
            None => self.buffer_slots.remove(&buffer.id()),
        };
        code
    }

    /// A statement every thread runs whole, one thread after another.
    fn leaf(&mut self, s: &'a Stmt) -> Result<Code<'a>, RunError> {
        let code = self.stmt(s)?;
        self.each_thread(code)
    }

    /// `code` for every thread of the block, under the per-thread bindings
    /// and conditions in force.
    fn each_thread(&mut self, code: Code<'a>) -> Result<Code<'a>, RunError> {
        let ls = self.lockstep.take().expect("inside a block");
        let wrapped = self.wrap(&ls, code);
        self.lockstep = Some(ls);
        wrapped
    }

    fn wrap(&mut self, ls: &LockStep<'a>, mut code: Code<'a>) -> Result<Code<'a>, RunError> {
        for p in ls.private.iter().rev() {
            code = match p {
                Private::Let { var, value, src } => Code::Let {
                    slot: self.var_slot(var),
                    value: self.index(value, src)?,
                    body: Box::new(code),
                    src,
                },
                Private::Guard { cond, src } => Code::If {
                    cond: self.value_as(cond, DataType::Bool, src)?,
                    then_case: Box::new(code),
                    else_case: None,
                    src,
                },
            };
        }
        let threads = ls
            .threads
            .iter()
            .map(|t| {
                Ok(ThreadLoop {
                    slot: self.var_slot(t.var),
                    min: self.index(t.min, t.src)?,
                    extent: IndexCode::Const(t.size),
                    src: t.src,
                })
            })
            .collect::<Result<_, RunError>>()?;
        Ok(Code::EachThread {
            threads,
            body: Box::new(code),
        })
    }
}

/// A launch of the thread `t` again, over `[min, min + extent)`: its
/// variable's value, and the condition under which the thread takes part.
fn rebinding(t: &Thread<'_>, min: &Expr, extent: &Expr) -> (Expr, Value) {
    let offset = Expr::sub(t.var.expr(), t.min.clone());
    let value = Expr::add(offset.clone(), min.clone());
    (value, Value::index(Expr::lt(offset, extent.clone())))
}
