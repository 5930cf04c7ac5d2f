//! Thread indices are kernel-wide.
//!
//! A program prints each thread launch (`thread_extent`) around the loops
//! of the stage bound to that thread, but on a GPU every statement of the
//! kernel runs on every thread, and a thread index has a value everywhere
//! in the kernel. Schedules rely on it: TOPI's CUDA reductions guard the
//! final store with `threadIdx.x == 0` outside the launch of `threadIdx.x`
//! (`set_store_predicate` on the thread axis). The interpreter binds a
//! thread index only inside its launch, so before a run a statement of a
//! kernel that reads a thread's index outside that thread's launch gets
//! one: inside a launch of the thread it reads the launch's index (a
//! `let`), elsewhere it is put in a launch of that thread of its own. It
//! then runs for every thread, as on the GPU; statements that read no
//! thread index still run once, which gives the same values for a program
//! without races.
//!
//! The index is recognised as TVM's code generator recognises it: a
//! variable named after the thread's tag (`threadIdx.x`) that nothing in
//! the kernel binds.

use crate::stmt::{ForKind, Stmt, ThreadLaunch};
use crate::value::Value;
use arith::{Expr, Var};
use std::collections::{HashMap, HashSet};

/// `body` with every statement that reads a thread index outside its launch
/// (but inside the kernel that launches that thread) given the index;
/// `None` when no statement does, the usual case.
///
/// A statement outside every launch of the thread is put in a launch of
/// its own only where that is unambiguous: one range for all the thread's
/// launches in the kernel, made of constants and symbolic sizes (`sizes`),
/// and no launch of the thread inside the statement. Elsewhere the program
/// is left as it is, and the run reports the unbound index.
pub(super) fn kernel_wide_threads(body: &Stmt, sizes: &HashMap<Var, i64>) -> Option<Stmt> {
    let mut any_launch = false;
    body.visit(&mut |s| any_launch |= launched_thread(s).is_some());
    if !any_launch {
        return None;
    }
    let mut pass = KernelWide {
        sizes,
        kernel: None,
        in_scope: Vec::new(),
        given: Vec::new(),
        changed: false,
    };
    let out = match crate::mutate::Mutator::stmt(&mut pass, body) {
        Ok(s) => s,
        Err(never) => match never {},
    };
    pass.changed.then_some(out)
}

/// The thread a statement launches, when it is a launch of a GPU thread
/// (not a virtual thread, which runs as a loop).
fn launched_thread(s: &Stmt) -> Option<(&Var, &Expr, &Expr, &ThreadLaunch)> {
    let (var, min, extent, l, _) = s.as_thread_launch()?;
    (!l.is_virtual()).then_some((var, min, extent, l))
}

/// A thread of the kernel and its launch, when the launch can be repeated
/// around a statement (`None`: its launches differ, or their range reads
/// a variable of the kernel).
struct Thread {
    launch: ThreadLaunch,
    range: Option<(Expr, Expr)>,
}

/// What the rewrite knows of the kernel it is in.
struct Kernel {
    threads: Vec<Thread>,
    /// Every variable a loop, launch or `let` of the kernel binds.
    bound: HashSet<Var>,
}

impl Kernel {
    /// Gathers the threads and binders of the kernel `root`.
    fn new(root: &Stmt, sizes: &HashMap<Var, i64>) -> Kernel {
        let mut threads: Vec<Thread> = Vec::new();
        let mut bound = HashSet::new();
        root.visit(&mut |s| {
            match s {
                Stmt::For { var, .. } | Stmt::Let { var, .. } | Stmt::LetValue { var, .. } => {
                    bound.insert(var.clone());
                }
                _ => {}
            }
            let Some((_, min, extent, l)) = launched_thread(s) else {
                return;
            };
            match threads.iter_mut().find(|t| t.launch.tag == l.tag) {
                Some(t) => {
                    if t.range.as_ref() != Some(&(min.clone(), extent.clone())) {
                        t.range = None;
                    }
                }
                None => {
                    let known = |e: &Expr| e.vars().iter().all(|v| sizes.contains_key(v));
                    threads.push(Thread {
                        launch: l.clone(),
                        range: (known(min) && known(extent)).then(|| (min.clone(), extent.clone())),
                    });
                }
            }
        });
        Kernel { threads, bound }
    }
}

struct KernelWide<'s> {
    sizes: &'s HashMap<Var, i64>,
    /// The kernel being rewritten.
    kernel: Option<Kernel>,
    /// The launches enclosing the statement being rewritten: tag and index.
    in_scope: Vec<(String, Var)>,
    /// Free thread indices already given a value around it.
    given: Vec<Var>,
    changed: bool,
}

/// How a statement gets a thread index it reads.
enum Give {
    /// `let index = launch's index` (inside a launch of the thread).
    Let(Var, Var),
    /// A launch of the thread over the statement, `index` its variable.
    Launch(Var, Expr, Expr, ThreadLaunch),
}

impl KernelWide<'_> {
    /// The free thread indices `s` reads in its own expressions that
    /// nothing gives a value yet, and how each gets one.
    fn missing(&self, s: &Stmt) -> Vec<Give> {
        let Some(kernel) = &self.kernel else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut seen: Vec<Var> = Vec::new();
        header_vars(s, &mut |v| {
            if seen.contains(v) || self.given.contains(v) || kernel.bound.contains(v) {
                return;
            }
            seen.push(v.clone());
            let Some(thread) = kernel.threads.iter().find(|t| t.launch.tag == v.name()) else {
                return;
            };
            if let Some((_, index)) = self.in_scope.iter().rev().find(|(t, _)| t == v.name()) {
                out.push(Give::Let(v.clone(), index.clone()));
            } else if let Some((min, extent)) = &thread.range {
                if !launches(s, v.name()) {
                    out.push(Give::Launch(
                        v.clone(),
                        min.clone(),
                        extent.clone(),
                        thread.launch.clone(),
                    ));
                }
            }
        });
        out
    }
}

impl crate::mutate::Mutator for KernelWide<'_> {
    type Error = std::convert::Infallible;

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, Self::Error> {
        if let Some((var, _, _, l)) = launched_thread(s) {
            let root = self.kernel.is_none();
            if root {
                self.kernel = Some(Kernel::new(s, self.sizes));
            }
            self.in_scope.push((l.tag.clone(), var.clone()));
            let out = crate::mutate::walk_stmt(self, s);
            self.in_scope.pop();
            if root {
                self.kernel = None;
            }
            return out;
        }
        let gives = self.missing(s);
        if gives.is_empty() {
            return crate::mutate::walk_stmt(self, s);
        }
        let depth = self.given.len();
        self.given.extend(gives.iter().map(|g| match g {
            Give::Let(v, _) | Give::Launch(v, ..) => v.clone(),
        }));
        let inner = crate::mutate::walk_stmt(self, s);
        self.given.truncate(depth);
        self.changed = true;
        let mut out = inner?;
        for give in gives.into_iter().rev() {
            out = match give {
                Give::Let(var, index) => Stmt::Let {
                    var,
                    value: index.expr(),
                    body: Box::new(out),
                },
                Give::Launch(var, min, extent, launch) => Stmt::For {
                    var,
                    min,
                    extent,
                    kind: ForKind::Thread(launch),
                    pragmas: Vec::new(),
                    body: Box::new(out),
                },
            };
        }
        Ok(out)
    }
}

/// Whether `s` launches the thread `tag` anywhere inside it.
fn launches(s: &Stmt, tag: &str) -> bool {
    let mut found = false;
    s.visit(&mut |s| found |= launched_thread(s).is_some_and(|(.., l)| l.tag == tag));
    found
}

/// Calls `f` on the variables the statement's own expressions read (not
/// those of the statements nested in it).
fn header_vars(s: &Stmt, f: &mut impl FnMut(&Var)) {
    match s {
        Stmt::For { min, extent, .. } => {
            min.for_each_var(f);
            extent.for_each_var(f);
        }
        Stmt::Let { value, .. } => value.for_each_var(f),
        Stmt::LetValue { value, .. } | Stmt::Evaluate(value) => value_vars(value, f),
        Stmt::Realize { region, .. } => region.iter().for_each(|r| {
            r.min.for_each_var(f);
            r.extent.for_each_var(f);
        }),
        Stmt::Allocate { extents, .. } => extents.iter().for_each(|e| e.for_each_var(f)),
        Stmt::BufferStore { indices, value, .. } => {
            indices.iter().for_each(|e| e.for_each_var(f));
            value_vars(value, f);
        }
        Stmt::IfThenElse { cond, .. } | Stmt::While { cond, .. } => value_vars(cond, f),
        Stmt::TensorCall { args, scalars, .. } => {
            scalars.iter().for_each(|e| e.for_each_var(f));
            for (_, region) in args {
                region.iter().for_each(|r| {
                    r.min.for_each_var(f);
                    r.extent.for_each_var(f);
                });
            }
        }
        // An opaque call cannot run: what it reads does not matter.
        Stmt::Produce { .. } | Stmt::Seq(_) | Stmt::Opaque { .. } => {}
    }
}

/// Calls `f` on the variables a value reads, in its indices or as values.
fn value_vars(value: &Value, f: &mut impl FnMut(&Var)) {
    // Values nest as deep as a long sum: each level on a grown stack.
    crate::stack::grow(|| {
        match value {
            Value::Index(e) => e.for_each_var(f),
            Value::Load(l) => l.indices.iter().for_each(|e| e.for_each_var(f)),
            Value::Var(v, _) => f(v),
            _ => {}
        }
        value.for_each_child(&mut |c| value_vars(c, f));
    })
}
