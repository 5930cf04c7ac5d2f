//! The tree-walking interpreter of the Python subset: its state and calls
//! here, statements in [`statements`], expressions in [`expressions`]. TE
//! objects are delegated to [`crate::objects`] and the `tvm` functions to
//! [`crate::tvm_api`].

mod expressions;
mod statements;

use crate::args::{Args, Spanned};
use crate::error::{Eval, Raised};
use crate::function::{Body, Function};
use crate::native::Native;
use crate::objects::{self, Session};
use crate::scope::Scope;
use crate::tree::Program;
use crate::value::Value;
use crate::{builtins, tvm_api};
use rustpython_parser::ast;
use std::ops::Range;
use std::rc::Rc;

/// How deep user functions may call each other.
const MAX_CALL_DEPTH: usize = 64;
/// How many statements a script may execute: scripts describe programs, they
/// do not compute with loops, so a runaway loop is a mistake worth reporting.
const MAX_STEPS: u64 = 2_000_000;

/// What a statement tells the block around it.
enum Flow {
    Next,
    Return(Value),
    Break,
    Continue,
}

/// Runs scripts and holds what they produced.
pub(crate) struct Interpreter {
    source: Rc<str>,
    /// Everything `print` wrote.
    pub printed: String,
    /// The TE objects the script created.
    pub session: Session,
    depth: usize,
    /// Loops around the statement running now, in the current function.
    loop_depth: usize,
    steps: u64,
    /// Where lambda and def bodies are kept.
    program: Rc<Program>,
}

impl Interpreter {
    pub fn new(source: &str, program: Rc<Program>) -> Interpreter {
        Interpreter {
            source: Rc::from(source),
            printed: String::new(),
            session: Session::default(),
            depth: 0,
            loop_depth: 0,
            steps: 0,
            program,
        }
    }

    /// The script text of `span`, for messages.
    pub fn text(&self, span: &Range<usize>) -> &str {
        self.source.get(span.clone()).unwrap_or("")
    }

    /// Runs a module's statements in `scope`.
    pub fn run_module(&mut self, body: &[ast::Stmt], scope: &Rc<Scope>) -> Eval<()> {
        // `return`, `break` and `continue` outside functions and loops are
        // rejected where they appear, so the module always runs to its end.
        self.exec_block(body, scope).map(|_| ())
    }

    fn lookup(&self, name: &str, span: Range<usize>, scope: &Rc<Scope>) -> Eval<Value> {
        if let Some(v) = scope.get(name) {
            return Ok(v);
        }
        if let Some(n) = Native::builtin(name) {
            return Ok(Value::Native(n));
        }
        let hint = match name {
            "te" => "; add `from tvm import te`",
            "tvm" => "; add `import tvm`",
            _ => "",
        };
        Err(Raised::at(
            span,
            format!("name `{name}` is not defined{hint}"),
        ))
    }

    /// Python truthiness. A symbolic condition counts only when it can be
    /// decided (TVM raises in the same situation).
    pub fn truthy(&self, v: &Value, span: Range<usize>) -> Eval<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Dict(d) => !d.is_empty(),
            Value::Index(e) => objects::decide(e).ok_or_else(|| {
                Raised::at(
                    span,
                    format!(
                        "cannot decide `{e}`: it depends on symbolic values that rangefinder \
                         cannot resolve"
                    ),
                )
            })?,
            _ => true,
        })
    }

    /// Calls `callee` with `args`.
    pub fn call(&mut self, callee: &Value, args: Args) -> Eval<Value> {
        match callee {
            Value::Function(f) => self.call_function(f, args),
            Value::Native(n) => match builtins::call(self, *n, args) {
                builtins::Outcome::Done(v) => v,
                builtins::Outcome::NotBuiltin(args) => tvm_api::call(self, *n, args),
            },
            Value::Method(receiver, name) => match (&**receiver, *name) {
                (Value::List(items), "append") => {
                    let (mut pos, span) = args.positional_only("append")?;
                    if pos.len() != 1 {
                        return Err(Raised::at(span, "`append` takes exactly one argument"));
                    }
                    items.borrow_mut().push(pos.remove(0).value);
                    Ok(Value::None)
                }
                (Value::Te(objects::TeObject::Stage(s, op)), "transform_layout") => {
                    crate::layout_api::transform_layout(self, s, op, args)
                }
                (receiver, name) => objects::call_method(receiver, name, args),
            },
            other => objects::call_object(other, args),
        }
    }

    /// Calls a user function (a `def` or a lambda).
    pub fn call_function(&mut self, f: &Rc<Function>, args: Args) -> Eval<Value> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Raised::at(
                args.span,
                format!(
                    "calls nest more than {MAX_CALL_DEPTH} deep; is `{}` recursive?",
                    f.name
                ),
            ));
        }
        let call_scope = Scope::child(&f.closure);
        let (required, max) = f.arity();
        let given = args.positional.len();
        if given > max.unwrap_or(usize::MAX) {
            return Err(Raised::at(
                args.span,
                format!(
                    "`{}` takes at most {} arguments but got {given}",
                    f.name,
                    f.params.len()
                ),
            ));
        }
        let mut positional = args.positional.into_iter();
        let mut bound = vec![None; f.params.len()];
        for slot in bound.iter_mut() {
            *slot = positional.next().map(|a| a.value);
        }
        for (name, arg) in args.keywords {
            let Some(i) = f.params.iter().position(|p| p.name == name) else {
                return Err(Raised::at(
                    arg.span,
                    format!("`{}` has no parameter `{name}`", f.name),
                ));
            };
            if bound[i].is_some() {
                return Err(Raised::at(
                    arg.span,
                    format!("`{}` got two values for `{name}`", f.name),
                ));
            }
            bound[i] = Some(arg.value);
        }
        for (param, value) in f.params.iter().zip(bound) {
            let value = match value.or_else(|| param.default.clone()) {
                Some(v) => v,
                None => {
                    return Err(Raised::at(
                        args.span,
                        format!(
                            "`{}` needs {required} arguments; `{}` is missing",
                            f.name, param.name
                        ),
                    ))
                }
            };
            call_scope.set(&param.name, value);
        }
        if let Some(rest) = &f.vararg {
            call_scope.set(rest, Value::tuple(positional.map(|a| a.value).collect()));
        }
        self.depth += 1;
        let saved_loops = std::mem::take(&mut self.loop_depth);
        let result = match &f.body {
            Body::Lambda(body) => self.eval(body, &call_scope),
            Body::Block(stmts) => {
                let stmts = stmts.clone();
                self.exec_block(&stmts, &call_scope).map(|flow| match flow {
                    Flow::Return(v) => v,
                    _ => Value::None,
                })
            }
        };
        self.loop_depth = saved_loops;
        self.depth -= 1;
        result
    }

    /// Calls a function value with positional arguments only (how TE calls
    /// the lambdas a script passes to it).
    pub fn call_with(&mut self, f: &Value, values: Vec<Value>, span: Range<usize>) -> Eval<Value> {
        let positional = values
            .into_iter()
            .map(|value| Spanned {
                value,
                span: span.clone(),
            })
            .collect();
        self.call(
            f,
            Args {
                positional,
                keywords: Vec::new(),
                span,
            },
        )
    }
}
