//! Runs TE scripts: the Python subset that TVM's tensor-expression examples
//! and InferBound tests are written in, evaluated into the [`te`] crate.
//!
//! This crate is the front end: it parses and evaluates Python. Everything
//! about TVM's objects (what `te.compute` does, what a tensor's attributes
//! are, what `s[C].split` checks and says) is [`tvm_api`]'s, whose
//! [`tvm_api::Value`] is the interpreter's value type.
//!
//! A script is parsed by a real Python parser (ruff's, as RustPython
//! releases it), then
//! interpreted: `import tvm` / `from tvm import te`, `te.placeholder`,
//! `te.compute` with lambdas, `te.reduce_axis` and `te.sum`/`max`/`min`,
//! `te.create_schedule`, `s[C].split/fuse/reorder/tile/compute_at/
//! compute_inline/compute_root`, `tvm.te.schedule.InferBound(s)` (indexable
//! by IterVars), `tvm.lower(...)`, `print`, `assert`, `def` and calls,
//! tuples and unpacking, list comprehensions, integer arithmetic, and the
//! test idioms of TVM's own suite (`try`/`except tvm.error.TVMError`,
//! `with pytest.raises(...)`, `tvm.testing.assert_prim_expr_equal`,
//! `tvm.tir.stmt_functor.substitute`). Both the `te.` and the older `tvm.`
//! spellings work.
//!
//! Around that, the Python that real scripts are written in behaves as in
//! CPython: slices, item assignment and `del`, `%` formatting, f-strings,
//! `str.format` and the common `str`, `list` and `dict` methods, dicts and
//! sets with their comprehensions, `sorted`/`sum`/`map`/`filter` and the
//! other common builtins, `*args`/`**kwargs` and keyword-only parameters,
//! starred unpacking, closures with `global`/`nonlocal`, `while`, `raise`
//! and Python's exception classes, classes as namespaces, and the modules
//! `math`, `functools`, `itertools`, `re` and numpy's one-dimensional arrays. Modules that need CPython (the rest of `numpy`, `numbers`, `os`,
//! ...) import, and their first use is an error saying to run the script
//! under CPython. Anything else is an error with its line and column, never
//! a panic.
//!
//! Symbolic integers (`te.var`, loop variables, arithmetic on them) are
//! [`arith::Expr`]s; a condition on them counts as true or false only when
//! the simplifier decides it, as in TVM.
//!
//! ```
//! let run = script::run(r#"
//! import tvm
//! from tvm import te
//! A = te.placeholder((8,), name="A")
//! B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
//! s = te.create_schedule(B.op)
//! xo, xi = s[B].split(B.op.axis[0], factor=4)
//! bounds = tvm.te.schedule.InferBound(s)
//! assert bounds[xi].extent.value == 4
//! print(xo.var, xi.var)
//! "#).unwrap();
//! assert_eq!(run.printed, "i.outer i.inner\n");
//! let target = run.target.unwrap();
//! assert_eq!(target.args.len(), 2); // A and B
//!
//! let err = script::run("x = 1\nx()\n").unwrap_err();
//! assert_eq!((err.line, err.column), (2, 1));
//! ```
#![warn(missing_docs)]

pub use nesting::{MAX_INDENTATION, MAX_NESTING};

mod args;
mod budget;
mod builtins;
mod collections;
mod error;
mod function;
mod interp;
mod namedtuple;
mod native;
mod nesting;
mod objects;
mod operators;
mod pyformat;
mod pymethods;
mod pymodules;
mod pynumpy;
mod pyre;
mod scope;
mod tree;
mod value;

pub use error::ScriptError;

use interp::Interpreter;
use scope::Scope;
use std::rc::Rc;
use tree::Program;

/// A parsed script, ready to run.
pub struct Script {
    source: String,
    program: Rc<Program>,
}

/// The schedule a script is about, with the tensors its program takes.
#[derive(Clone, Debug)]
pub struct Target {
    /// The schedule, as the script left it.
    pub schedule: te::Schedule,
    /// The program's arguments: those given to `tvm.lower`, else the inputs
    /// followed by the outputs.
    pub args: Vec<te::Tensor>,
    /// The script's last `tvm.lower` of the schedule, which a report can
    /// reuse ([`te::run_report_reusing`]) when the script did not change
    /// the schedule afterwards.
    pub lowering: Option<te::Lowering>,
}

/// What running a script produced.
#[derive(Clone, Debug)]
pub struct ScriptRun {
    /// Everything the script printed, one line per `print`.
    pub printed: String,
    /// The schedule the script lowered last, or else the one it created
    /// last; `None` when it created none.
    pub target: Option<Target>,
    /// Every schedule the script created, in order, as the script left them.
    pub schedules: Vec<te::Schedule>,
}

impl Target {
    /// The symbolic sizes the program depends on (`te.var`s in shapes,
    /// reduction domains and split factors), each once, in order of first
    /// appearance.
    pub fn symbolic_sizes(&self) -> Vec<arith::Var> {
        self.schedule.symbolic_sizes()
    }
}

impl Script {
    /// Parses `source`; a syntax error points at its line and column.
    pub fn parse(source: &str) -> Result<Script, ScriptError> {
        if let Some(refused) = nesting::refused(source) {
            let message = refused.message();
            return Err(ScriptError::new(source, refused.at, message));
        }
        // The scan bounds the parser's recursion (a few kilobytes per
        // level), which the room `grow` leaves covers.
        let parsed = tir::stack::grow(|| python_parser::parse_module(source));
        let module = parsed.map_err(|e| {
            let at = usize::from(e.location.start());
            ScriptError::new(source, at..at + 1, format!("syntax error: {}", e.error))
        })?;
        let program = Program::new(module.into_suite());
        Ok(Script {
            source: source.to_owned(),
            program: Rc::new(program),
        })
    }

    /// Runs the script: executes every statement, evaluating asserts.
    pub fn run(&self) -> Result<ScriptRun, ScriptError> {
        let mut interp = Interpreter::new(&self.source, self.program.clone());
        interp
            .run_module(&self.program.body, &Scope::global())
            .map_err(|r| r.into_script_error(&self.source))?;
        let session = &interp.session;
        let target = session.report_target().map(|t| match t {
            tvm_api::ReportTarget::Lowered(lowered) => Target {
                schedule: lowered.schedule.borrow().clone(),
                args: lowered.args.clone(),
                lowering: Some(lowered.lowering.clone()),
            },
            tvm_api::ReportTarget::Schedule(s) => {
                let schedule = s.borrow().clone();
                let args = schedule.default_args();
                Target {
                    schedule,
                    args,
                    lowering: None,
                }
            }
        });
        let schedules = session
            .schedules
            .iter()
            .map(|s| s.borrow().clone())
            .collect();
        Ok(ScriptRun {
            printed: interp.printed,
            target,
            schedules,
        })
    }
}

/// Parses and runs `source`. Long flat chains need no deep stack: the
/// parser builds them in loops, the tree is walked and dropped with work
/// lists and evaluation continues on a fresh stack segment when it runs low.
pub fn run(source: &str) -> Result<ScriptRun, ScriptError> {
    Script::parse(source)?.run()
}
