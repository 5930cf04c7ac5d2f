//! The tree-walking interpreter of the Python subset: its state and calls
//! here, statements in [`statements`], expressions in [`expressions`]. TVM
//! objects and functions are [`tvm_api`]'s: the interpreter is its
//! [`tvm_api::Host`].

mod expressions;
mod statements;

use crate::args::{Args, Spanned};
use crate::builtins;
use crate::error::{Eval, Raised};
use crate::function::{Body, Function};
use crate::native::Native;
use crate::scope::Scope;
use crate::tree::Program;
use crate::value::{script_value, ScriptValue, Value};
use rustpython_parser::ast;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::{ApiError, ErrorClass, Parameters, Session};

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
    /// An error raised in a script function that [`tvm_api`] called, kept
    /// while the API hands back [`ErrorClass::Host`] in its place.
    host_error: Option<Raised>,
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
            host_error: None,
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
        if let Some(v) = Native::builtin(name) {
            return Ok(v);
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
        match v {
            Value::Bool(b) => Ok(*b),
            _ => tvm_api::truth(v).map_err(|e| Raised::api(span, e)),
        }
    }

    /// Calls `callee` with `args`.
    pub fn call(&mut self, callee: &Value, args: Args) -> Eval<Value> {
        match callee {
            Value::Host(_) => match script_value(callee) {
                Some(ScriptValue::Function(f)) => self.call_function(f, args),
                Some(ScriptValue::Builtin(n)) => builtins::call(self, *n, args),
                _ => Err(Raised::at(
                    args.span,
                    format!("a {} is not callable", callee.type_name()),
                )),
            },
            Value::Method(receiver, "append") if matches!(**receiver, Value::List(_)) => {
                let Value::List(items) = &**receiver else {
                    unreachable!("matched a list")
                };
                let (mut pos, span) = args.positional_only("append")?;
                if pos.len() != 1 {
                    return Err(Raised::at(span, "`append` takes exactly one argument"));
                }
                items.borrow_mut().push(pos.remove(0).value);
                Ok(Value::None)
            }
            _ => {
                let (args, spans) = args.into_api();
                tvm_api::call(self, callee, args).map_err(|e| {
                    if e.class == ErrorClass::Host {
                        if let Some(raised) = self.host_error.take() {
                            return raised;
                        }
                    }
                    spans.raise(e)
                })
            }
        }
    }

    /// Calls a user function (a `def` or a lambda).
    pub fn call_function(&mut self, f: &Function, args: Args) -> Eval<Value> {
        let call_scope = self.bind_call(f, args)?;
        self.run_call(f, call_scope)
    }

    /// The scope of a call of `f`: its parameters bound to `args`.
    fn bind_call(&mut self, f: &Function, args: Args) -> Eval<Rc<Scope>> {
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
        Ok(call_scope)
    }

    /// Runs the body of `f` in `call_scope`.
    fn run_call(&mut self, f: &Function, call_scope: Rc<Scope>) -> Eval<Value> {
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
}

impl tvm_api::Host for Interpreter {
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Result<Value, ApiError> {
        self.call_args(f, tvm_api::Args::positional(args))
    }

    fn call_args(&mut self, f: &Value, args: tvm_api::Args) -> Result<Value, ApiError> {
        // The API points errors about the call itself at the argument that
        // gave `f`; errors inside `f` keep their own place.
        let spanned = |value| Spanned { value, span: 0..0 };
        let args = Args {
            positional: args.positional.into_iter().map(spanned).collect(),
            keywords: args
                .keywords
                .into_iter()
                .map(|(k, v)| (k, spanned(v)))
                .collect(),
            span: 0..0,
        };
        let result = match script_value(f) {
            Some(ScriptValue::Function(func)) => match self.bind_call(func, args) {
                Err(r) => return Err(ApiError::new(r.kind.class(), r.message)),
                Ok(scope) => self.run_call(func, scope),
            },
            _ => self.call(f, args),
        };
        result.map_err(|r| {
            self.host_error = Some(r);
            ApiError::new(ErrorClass::Host, "an error in a script function")
        })
    }

    fn parameters(&self, f: &Value) -> Option<Parameters> {
        match script_value(f) {
            Some(ScriptValue::Function(func)) => Some(Parameters {
                names: func.params.iter().map(|p| p.name.clone()).collect(),
                varargs: func.vararg.is_some(),
            }),
            _ => None,
        }
    }

    fn session(&mut self) -> &mut Session {
        &mut self.session
    }
}
