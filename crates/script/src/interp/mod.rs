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
use crate::{pymethods, pymodules};
use python_ast as ast;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::{ApiError, ErrorClass, Parameters, Session};

/// The arguments as TVM's functions take them: a dict the script built is
/// handed over as the snapshot [`Value::Dict`] (TVM converts dicts to its
/// immutable `Map`).
fn frozen(mut args: Args) -> Args {
    let freeze = |v: &mut Value| {
        if let Value::MutableDict(pairs) = v {
            let snapshot: Vec<(Value, Value)> = pairs.borrow().clone();
            *v = Value::Dict(Rc::from(snapshot));
        }
    };
    for a in &mut args.positional {
        freeze(&mut a.value);
    }
    for (_, a) in &mut args.keywords {
        freeze(&mut a.value);
    }
    args
}

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
    /// The error the innermost running `except` block caught, which a bare
    /// `raise` raises again.
    handling: Option<Raised>,
    /// The span and message of the last failed `assert`: what `str(e)` of
    /// its `AssertionError` is (the error's own message adds both sides).
    assert_text: Option<(Range<usize>, String)>,
    /// The module scope, where `tvm.testing.main()` finds the tests.
    globals: Option<Rc<Scope>>,
    /// An error raised in a script function that [`tvm_api`] called, kept
    /// while the API hands back [`ErrorClass::Host`] in its place.
    host_error: Option<Raised>,
    /// How many `tvm.testing.parameters` calls have run, to tell their
    /// groups apart.
    parameter_groups: usize,
    /// The tuples that are instances of a `collections.namedtuple` type.
    named_tuples: crate::namedtuple::Instances,
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
            handling: None,
            assert_text: None,
            globals: None,
            host_error: None,
            parameter_groups: 0,
            named_tuples: Default::default(),
        }
    }

    /// Python's `str(value)`; a namedtuple shows its type and fields.
    pub fn str_of(&self, value: &Value) -> String {
        self.named_tuples
            .repr(value)
            .unwrap_or_else(|| value.to_string())
    }

    /// Python's `repr(value)`; a namedtuple shows its type and fields.
    pub fn repr_of(&self, value: &Value) -> String {
        self.named_tuples
            .repr(value)
            .unwrap_or_else(|| crate::pyformat::repr(value))
    }

    /// The script text of `span`, for messages.
    pub fn text(&self, span: &Range<usize>) -> &str {
        self.source.get(span.clone()).unwrap_or("")
    }

    /// Runs a module's statements in `scope`.
    pub fn run_module(&mut self, body: &[ast::Stmt], scope: &Rc<Scope>) -> Eval<()> {
        self.globals = Some(scope.clone());
        // `return`, `break` and `continue` outside functions and loops are
        // rejected where they appear, so the module always runs to its end.
        self.exec_block(body, scope).map(|_| ())
    }

    /// A new group of `tvm.testing.parameters`.
    pub fn next_parameter_group(&mut self) -> usize {
        self.parameter_groups += 1;
        self.parameter_groups
    }

    /// What `tvm.testing.main()` and `pytest.main(...)` do: call every
    /// module-level function whose name starts with `test`, in the order
    /// of the file, as pytest collects them. A test that takes arguments
    /// runs once per combination of the `tvm.testing.parameter` values of
    /// the module variables its parameters are named after (the values of
    /// one `tvm.testing.parameters` call go together), as TVM's pytest
    /// plugin runs it; other arguments (pytest's own fixtures) are an
    /// error: rangefinder has no fixtures to give.
    pub fn run_test_functions(&mut self, span: Range<usize>) -> Eval<()> {
        let Some(globals) = self.globals.clone() else {
            return Ok(());
        };
        let program = self.program.clone();
        for stmt in &program.body {
            if let ast::Stmt::ClassDef(class) = stmt {
                let has_tests = class
                    .body
                    .iter()
                    .any(|s| matches!(s, ast::Stmt::FunctionDef(f) if f.name.starts_with("test")));
                if class.name.starts_with("Test") && has_tests {
                    return Err(Raised::at(
                        span,
                        format!(
                            "`{}` holds tests as methods of a class, which rangefinder te does \
                             not run; run the file under CPython with \
                             `python -m rangefinder.tvm FILE`",
                            class.name
                        ),
                    ));
                }
            }
            let ast::Stmt::FunctionDef(def) = stmt else {
                continue;
            };
            let name = def.name.as_str();
            if !name.starts_with("test") {
                continue;
            }
            let Some(test) = globals.get(name) else {
                continue;
            };
            let runs = match script_value(&test) {
                Some(ScriptValue::Function(f)) if f.arity().0 > 0 => test_runs(f, &globals)
                    .map_err(|missing| {
                        Raised::at(
                            span.clone(),
                            format!(
                                "`{name}` takes `{missing}`, which is not a \
                                 `tvm.testing.parameter` of the module, and rangefinder has no \
                                 other pytest fixtures to give; call the test with its \
                                 arguments instead"
                            ),
                        )
                    })?,
                _ => vec![Vec::new()],
            };
            for values in runs {
                self.call_with(&test, values, span.clone())?;
            }
        }
        Ok(())
    }

    fn lookup(&self, name: &str, span: Range<usize>, scope: &Rc<Scope>) -> Eval<Value> {
        if let Some(v) = scope.get(name) {
            return Ok(v);
        }
        if let Some(v) = Native::builtin(name) {
            return Ok(v);
        }
        match name {
            // A script runs as the main module: `if __name__ == "__main__":`
            // blocks run.
            "__name__" => return Ok(Value::str("__main__")),
            "__file__" => return Ok(Value::str("<script>")),
            _ => {}
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
            Value::Host(_) if crate::pynumpy::as_array(v).is_some() => {
                let arr = crate::pynumpy::as_array(v).expect("matched above");
                let one = crate::pynumpy::truth(arr, span.clone())?;
                self.truthy(&one, span)
            }
            _ => tvm_api::truth(v).map_err(|e| Raised::api(span, e)),
        }
    }

    /// Calls `callee` with `args`.
    pub fn call(&mut self, callee: &Value, args: Args) -> Eval<Value> {
        match callee {
            Value::Host(_) => match script_value(callee) {
                Some(ScriptValue::Function(f)) => self.call_function(f, args),
                Some(ScriptValue::Builtin(n)) => builtins::call(self, *n, args),
                Some(ScriptValue::Module(path)) if pymodules::needs_cpython(path) => {
                    let text = self.text(&args.span).to_owned();
                    Err(pymodules::needs_cpython_error(path, &text, args.span))
                }
                Some(ScriptValue::NamedTupleType(ty)) => {
                    let ty = ty.clone();
                    self.named_tuples.make(&ty, args)
                }
                Some(ScriptValue::Class(c)) => Err(Raised::at(
                    args.span,
                    format!(
                        "`{}(...)`: instances of a class the script defines are not supported by \
                         rangefinder te; run the script under CPython with \
                         `python -m rangefinder.tvm FILE`",
                        c.name
                    ),
                )),
                _ => Err(Raised::at(
                    args.span,
                    format!("a {} is not callable", callee.type_name()),
                )),
            },
            Value::Object(tvm_api::Object::Class(tvm_api::Class::Error(class))) => {
                builtins::exception(*class, args)
            }
            Value::Method(receiver, name) if pymethods::is_python_method(receiver, name) => {
                pymethods::call(self, receiver, name, args)
            }
            _ => {
                let (args, spans) = frozen(args).into_api();
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
        self.bind_arguments(f, args, &call_scope)?;
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

    /// Binds a call's arguments to the parameters of `f` in `call_scope`, as
    /// Python does: positionals in order (the rest into `*args`), keywords
    /// by name (the unknown ones into `**kwargs`), then defaults.
    fn bind_arguments(&mut self, f: &Function, args: Args, call_scope: &Rc<Scope>) -> Eval<()> {
        let type_error =
            |span: Range<usize>, m: String| Raised::python(ErrorClass::TypeError, span, m);
        let given = args.positional.len();
        if f.vararg.is_none() && given > f.params.len() {
            return Err(type_error(
                args.span,
                format!(
                    "`{}` takes at most {} arguments but got {given}",
                    f.name,
                    f.params.len()
                ),
            ));
        }
        let mut positional = args.positional.into_iter();
        let mut bound: Vec<Option<Value>> = vec![None; f.params.len()];
        for slot in bound.iter_mut() {
            *slot = positional.next().map(|a| a.value);
        }
        let mut kwonly: Vec<Option<Value>> = vec![None; f.kwonly.len()];
        let mut extra = Vec::new();
        for (name, arg) in args.keywords {
            let slot = match f.params.iter().position(|p| p.name == name) {
                Some(i) => &mut bound[i],
                None => match f.kwonly.iter().position(|p| p.name == name) {
                    Some(i) => &mut kwonly[i],
                    None if f.kwarg.is_some() => {
                        extra.push((Value::str(&name), arg.value));
                        continue;
                    }
                    None => {
                        return Err(type_error(
                            arg.span,
                            format!("`{}` has no parameter `{name}`", f.name),
                        ))
                    }
                },
            };
            if slot.is_some() {
                return Err(type_error(
                    arg.span,
                    format!("`{}` got two values for `{name}`", f.name),
                ));
            }
            *slot = Some(arg.value);
        }
        let (required, _) = f.arity();
        for (param, value) in f
            .params
            .iter()
            .chain(&f.kwonly)
            .zip(bound.into_iter().chain(kwonly))
        {
            let value = match value.or_else(|| param.default.clone()) {
                Some(v) => v,
                None => {
                    return Err(type_error(
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
        if let Some(kwargs) = &f.kwarg {
            call_scope.set(kwargs, crate::collections::new_dict(extra, args.span)?);
        }
        Ok(())
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

    fn hybrid_source(&mut self, f: &Value) -> Result<tvm_api::HybridSource, ApiError> {
        match script_value(f) {
            Some(ScriptValue::Function(func)) => match &func.body {
                crate::function::Body::Block(body) => Ok(tvm_api::HybridSource {
                    name: func.name.clone(),
                    params: func.params.iter().map(|p| p.name.clone()).collect(),
                    annotations: func.params.iter().map(|p| p.annotation.clone()).collect(),
                    body: body.clone(),
                    text: self.source.clone(),
                    line_base: 0,
                }),
                crate::function::Body::Lambda(_) => Err(ApiError::type_error(
                    "a hybrid script must be a `def`, not a lambda",
                )),
            },
            _ => Err(ApiError::type_error(format!(
                "`te.hybrid.script` needs a function of the script, found a {}",
                f.type_name()
            ))),
        }
    }

    fn free_variable(&mut self, f: &Value, name: &str) -> Option<Value> {
        match script_value(f) {
            Some(ScriptValue::Function(func)) => func.closure.get(name),
            _ => None,
        }
    }
}

/// The argument lists a test function taking parameters runs with: the
/// product of its parameters' values, where the parameters of one
/// `tvm.testing.parameters` group advance together. `Err` names a
/// required parameter that is not a module-level test parameter.
fn test_runs(f: &Function, globals: &Scope) -> Result<Vec<Vec<Value>>, String> {
    let mut found: Vec<Value> = Vec::new();
    for p in f.params.iter().filter(|p| p.default.is_none()) {
        match globals.get(&p.name) {
            Some(v) if matches!(script_value(&v), Some(ScriptValue::Parameter(_))) => found.push(v),
            _ => return Err(p.name.clone()),
        }
    }
    let params: Vec<&crate::value::Parameter> = found
        .iter()
        .filter_map(|v| match script_value(v) {
            Some(ScriptValue::Parameter(p)) => Some(p),
            _ => None,
        })
        .collect();
    // The axes of the product: which parameters each sets, and how many
    // values it has.
    let mut axes: Vec<(Vec<usize>, usize)> = Vec::new();
    let mut group_axis: Vec<(usize, usize)> = Vec::new();
    for (k, p) in params.iter().enumerate() {
        match p
            .group
            .and_then(|g| group_axis.iter().find(|(grp, _)| *grp == g))
        {
            Some(&(_, axis)) => axes[axis].0.push(k),
            None => {
                if let Some(g) = p.group {
                    group_axis.push((g, axes.len()));
                }
                axes.push((vec![k], p.values.len()));
            }
        }
    }
    let mut runs: Vec<Vec<Value>> = vec![vec![Value::None; params.len()]];
    for (members, count) in &axes {
        let mut next = Vec::with_capacity(runs.len() * count);
        for run in &runs {
            for i in 0..*count {
                let mut r = run.clone();
                for &k in members {
                    r[k] = params[k].values[i].clone();
                }
                next.push(r);
            }
        }
        runs = next;
    }
    Ok(runs)
}
