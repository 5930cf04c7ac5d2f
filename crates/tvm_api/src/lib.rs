//! TVM's Python-level TE API, once, for every front end: the objects
//! (tensors, operations, iteration variables, stages, schedules,
//! expressions), the functions and methods, their argument checking and
//! their error messages.
//!
//! A front end only converts values: the script interpreter (`script`)
//! evaluates Python and uses [`Value`] as its own value type; a Python
//! extension implements `__getattr__`, `__call__`, `__add__`, `__getitem__`
//! and `__instancecheck__` with the protocol functions of this crate
//! (values hold `Rc`s: they are not `Send`, and stay on the thread that made
//! them):
//!
//! - [`resolve`] a dotted path (`tvm.te.compute`, `te.compute`,
//!   `tvm.compute`: every spelling is one [`Function`]), [`get_attr`];
//! - [`call`] a function, method or callable object, [`call_method`];
//! - [`binary`], [`unary`] and [`compare`] on `PrimExpr`s, tensor elements
//!   and iteration variables; [`equal`] for identity;
//! - [`subscript`], [`isinstance`], [`truth`], [`len`], [`iter`], [`str()`](fn@str)
//!   and [`repr`].
//!
//! Arguments are bound by TVM's signatures ([`Args`]); an error is an
//! [`ApiError`]: a Python exception class, a message, and the argument it
//! is about ([`ArgRef`]), which the interpreter turns into the argument's
//! line and column. Functions the program passes in (a compute's lambda)
//! are called back through the [`Host`], which also holds the [`Session`]
//! (schedules created, lowerings).
//!
//! Plain Python arithmetic (`int + int`, `str + str`, list operations) is
//! the front end's: [`binary`] answers when a side is a `PrimExpr`, an
//! iteration variable or a tensor element, as TVM's `__add__` does.
//!
//! Two departures from a plain "values in, values out" layer, both because
//! the code needs them: [`Host::session`] gives the API the session, since
//! a lambda that the API calls may itself call the API (nested calls need
//! the same session the host owns); and an error raised inside a front-end
//! function comes back as [`ErrorClass::Host`], so that the front end
//! re-raises its own error with its own place rather than the API's copy.
//!
//! ```
//! use tvm_api::{Args, ApiError, Host, Parameters, Session, Value};
//!
//! /// A host whose only function is `lambda i: A[i] * 2.0`, written in Rust.
//! struct Doubler {
//!     a: Value,
//!     session: Session,
//! }
//!
//! impl Host for Doubler {
//!     fn call(&mut self, _f: &Value, args: Vec<Value>) -> Result<Value, ApiError> {
//!         let element = tvm_api::subscript(&self.a, &args[0])?;
//!         tvm_api::binary(tvm_api::BinaryOp::Mul, &element, &Value::Float(2.0))
//!     }
//!     fn parameters(&self, f: &Value) -> Option<Parameters> {
//!         // `Value::None` stands for the host's one function.
//!         matches!(f, Value::None).then(|| Parameters { names: vec!["i".into()], varargs: false })
//!     }
//!     fn session(&mut self) -> &mut Session {
//!         &mut self.session
//!     }
//! }
//!
//! let placeholder = tvm_api::resolve("te.placeholder").unwrap();
//! let a = tvm_api::call_function(&placeholder, vec![Value::tuple(vec![Value::Int(8)])], &[("name", Value::str("A"))]).unwrap();
//! let mut host = Doubler { a, session: Session::default() };
//! let compute = tvm_api::resolve("tvm.te.compute").unwrap();
//! let lambda = Value::None;
//! let b = tvm_api::call(&mut host, &compute, Args {
//!     positional: vec![Value::tuple(vec![Value::Int(8)]), lambda],
//!     keywords: vec![("name".into(), Value::str("B"))],
//! }).unwrap();
//! assert_eq!(tvm_api::str(&b), "Tensor(shape=[8], op.name=B)");
//! let shape = tvm_api::get_attr(&b, "shape").unwrap();
//! assert_eq!(tvm_api::repr(&shape), "[8]");
//!
//! // Errors name the argument they are about.
//! let err = tvm_api::call(&mut host, &compute, Args::positional(vec![Value::Int(8), Value::Int(1)]))
//!     .unwrap_err();
//! assert_eq!(err.arg, Some(tvm_api::ArgRef::Positional(1)));
//! assert_eq!(err.message, "`compute` needs a lambda or function, found a int");
//! ```
#![warn(missing_docs)]

mod args;
mod autotvm;
mod build;
mod casts;
mod dataflow;
mod error;
mod extern_api;
mod function;
mod functions;
mod generic_func;
mod host;
mod hybrid;
mod hybrid_dump;
mod ir_builder;
mod layout;
mod lowered;
mod module_file;
mod namespace;
mod object;
mod objects;
mod operators;
mod packed_funcs;
mod pass_context;
mod reducer;
mod saved;
mod schedule;
mod session;
mod structural;
mod tags;
mod target;
mod tensor_ir;
mod tensor_ir_parse;
mod tensor_slices;
mod test_marks;
pub mod text;
mod topi;
mod topi_broadcast;
mod topi_correlation;
mod topi_cuda_conv2d;
mod topi_deformable_conv;
mod topi_einsum;
mod topi_image;
mod topi_nn;
mod topi_norm;
mod topi_ops;
mod topi_pool;
mod topi_reduction;
mod topi_schedules;
mod topi_space_batch;
mod topi_transform;
mod topi_x86_conv2d;
mod value;

pub use args::{Args, Bound, Given};
pub use arith::CmpOp;
pub use build::{NDArray, NDArrayRef};
pub use error::{ApiError, ApiResult, ArgRef, ErrorClass};
pub use function::{Class, Function};
pub use functions::truncating_division;
pub use host::{Host, Parameters};
pub use hybrid::{HybridModule, HybridSource};
pub use lowered::{LoweredModule, StmtRef};
pub use namespace::import_only_modules;
pub use object::{Object, ScheduleRef};
pub use operators::{as_index, as_int};
pub use reducer::ReducerDef;
pub use saved::{load_json_text, save_json_text};
pub use session::{Lowered, ReportTarget, Session};
pub use target::Target;
pub use test_marks::{pytest_mark, Mark, MarkedTest};
pub use topi_nn::ConvForm;
pub use value::{HostValue, Value};

use std::rc::Rc;

/// A binary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`: true division.
    Div,
    /// `//`: floor division.
    FloorDiv,
    /// `%`: floor modulo.
    Mod,
    /// `**`.
    Pow,
}

impl BinaryOp {
    /// The operator of Python's `a op b`, if it is one of these (not `@`
    /// or a bitwise operator).
    pub fn from_python(op: python_ast::Operator) -> Option<BinaryOp> {
        use python_ast::Operator as O;
        Some(match op {
            O::Add => BinaryOp::Add,
            O::Sub => BinaryOp::Sub,
            O::Mult => BinaryOp::Mul,
            O::Div => BinaryOp::Div,
            O::FloorDiv => BinaryOp::FloorDiv,
            O::Mod => BinaryOp::Mod,
            O::Pow => BinaryOp::Pow,
            _ => return None,
        })
    }

    /// The operator as Python writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::FloorDiv => "//",
            BinaryOp::Mod => "%",
            BinaryOp::Pow => "**",
        }
    }
}

/// A unary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Pos,
    /// `~cond`: logical not of a condition.
    Not,
}

/// The comparison of Python's `a op b`, if it is an ordering or an
/// equality (not `is` or `in`).
pub fn compare_from_python(op: python_ast::CmpOp) -> Option<CmpOp> {
    use python_ast::CmpOp as C;
    Some(match op {
        C::Eq => CmpOp::Eq,
        C::NotEq => CmpOp::Ne,
        C::Lt => CmpOp::Lt,
        C::LtE => CmpOp::Le,
        C::Gt => CmpOp::Gt,
        C::GtE => CmpOp::Ge,
        _ => return None,
    })
}

/// The namespace at dotted `path` (`tvm`, `tvm.te`, `tvm.tir`, ...), if
/// programs may import it.
pub fn module(path: &str) -> Option<Value> {
    namespace::module(path)
}

/// What dotted `path` names: a namespace (`tvm.te`), a function in any of
/// TVM's spellings (`tvm.te.compute`, `te.compute`, `tvm.compute`), a
/// class (`tvm.tir.IterVar`) or a constant (`te.AXIS_SEPARATOR`). A path
/// may start at `te` or `tir` for `tvm.te` and `tvm.tir`, as programs
/// import them.
pub fn resolve(path: &str) -> Option<Value> {
    namespace::resolve(path)
}

/// `lhs & rhs` (`and`) or `lhs | rhs` of conditions, as TVM's
/// `PrimExpr.__and__` and `__or__` make `tir.all` and `tir.any` of them: on
/// indices an index condition, on tensor values a value condition.
pub fn logical(and: bool, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    let integer = |v: &Value| {
        objects::is_element(v)
            && objects::to_element(v, None)
                .is_ok_and(|e| e.dtype() != tir::DataType::Bool && !e.dtype().is_float())
    };
    if integer(lhs) || integer(rhs) {
        let f = if and {
            tir::Intrinsic::BitwiseAnd
        } else {
            tir::Intrinsic::BitwiseOr
        };
        return functions::bitwise(f, lhs, rhs);
    }
    let given = |value: &Value, i: usize| Given {
        value: value.clone(),
        at: ArgRef::Positional(i),
    };
    functions::join_conditions(and, &[given(lhs, 0), given(rhs, 1)])
}

/// `lhs ^ rhs`, `lhs << rhs` or `lhs >> rhs` (`f` is `BitwiseXor`,
/// `ShiftLeft` or `ShiftRight`) on integer tensor elements, as TVM's
/// `PrimExpr` operators make them.
pub fn bitwise(f: tir::Intrinsic, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    functions::bitwise(f, lhs, rhs)
}

/// `value.name`.
pub fn get_attr(value: &Value, name: &str) -> ApiResult<Value> {
    match value {
        Value::Object(Object::Module(path)) => {
            namespace::module_attr(path, name).ok_or_else(|| {
                ApiError::attribute_error(format!(
                    "`{path}.{name}` is not supported by rangefinder"
                ))
            })
        }
        _ => objects::attribute(value, name, None),
    }
}

/// `callee(*args)`: an API [`Function`], a [`Value::Method`] of an object,
/// or a callable object (`A(i, j)` reads an element). A [`Value::Host`]
/// callee is called through the host.
pub fn call(host: &mut dyn Host, callee: &Value, args: Args) -> ApiResult<Value> {
    match callee {
        Value::Function(f) => functions::call(host, *f, args),
        Value::Method(receiver, name) => objects::call_method(host, receiver, name, args),
        Value::Object(Object::Class(Class::Error(class))) => Err(ApiError::not_supported(format!(
            "creating `{}` is not supported: scripts cannot raise",
            class.name()
        ))),
        Value::Object(Object::Class(Class::Target)) => target_new(args),
        Value::Object(Object::Class(Class::PassContext)) => pass_context::new(args),
        Value::Object(Object::Class(Class::Analyzer)) => {
            args.bind("Analyzer", &[])?;
            Ok(Value::Object(Object::Analyzer))
        }
        // `tvm.ir.Range(begin, end)`: the class is also its constructor.
        Value::Object(Object::Class(Class::Range)) => {
            call(host, &Value::Function(Function::Range), args)
        }
        Value::Object(Object::TagScope(tag)) => {
            // `@te.tag_scope(tag)` on a function.
            let a = args.bind("TagScope", &["fdecl"])?;
            let f = a.required("fdecl")?;
            match &f.value {
                Value::Host(_) => Ok(Value::Object(Object::Tagged(
                    tag.clone(),
                    Rc::new(f.value.clone()),
                ))),
                other => Err(ApiError::type_error(format!(
                    "`tag_scope` decorates a function, not a {}",
                    other.type_name()
                ))
                .at(ArgRef::Positional(0))),
            }
        }
        Value::Object(Object::Tagged(tag, f)) => tags::call_tagged(host, tag, f, args),
        Value::Object(Object::HybridModule(m)) => {
            let positional = args.positional_only("a hybrid module")?;
            hybrid::call_module(host, m, positional.into_iter().map(|g| g.value).collect())
        }
        Value::Object(Object::HybridFunction(f)) => hybrid::call(host, f, args),
        Value::Object(Object::Mark(m)) => test_marks::call_mark(m, args),
        Value::Object(Object::Unsupported(path)) => Err(ApiError::not_supported(format!(
            "`{path}` is not supported by rangefinder"
        ))),
        Value::Object(Object::MarkedTest(t)) => test_marks::call_marked(host, t, args),
        Value::Object(Object::Built(f)) => build::call_built(host, f, args),
        Value::Object(Object::TimeEvaluator(t)) => build::call_time_evaluator(host, t, args),
        Value::Object(Object::PackedRegistrar(name, replace)) => {
            packed_funcs::call_registrar(host, name, *replace, args)
        }
        Value::Object(Object::PackedFunc(name)) => packed_funcs::call_builtin(name, args),
        Value::Object(Object::Class(Class::IntImm)) => {
            // `tvm.tir.IntImm("int64", 2)`: indices are integers of any width.
            let a = args.bind("IntImm", &["dtype", "value", "span"])?;
            let v = a.required("value")?;
            match objects::promote(&v.value) {
                Value::Int(i) => Ok(Value::Index(arith::Expr::int(i))),
                other => Err(crate::error::type_error(
                    v.place(),
                    format!("`IntImm` takes an integer, found a {}", other.type_name()),
                )),
            }
        }
        Value::Object(Object::Class(Class::FloatImm)) => {
            // `tvm.tir.FloatImm("float32", 0.5)`: `tvm.tir.const` of a
            // float type.
            let a = args.bind("FloatImm", &["dtype", "value", "span"])?;
            let dt = casts::dtype_arg(a.required("dtype")?)?;
            let v = a.required("value")?;
            if !dt.is_float() {
                return Err(crate::error::type_error(
                    v.place(),
                    format!("`FloatImm` needs a float type, not {dt}"),
                ));
            }
            functions::typed_constant(&v.value, dt, v.place())
        }
        // `tvm.tir.Var("n", "int64")` and `tvm.tir.SizeVar(...)` make the
        // variables `te.var` and `te.size_var` make.
        Value::Object(Object::Class(Class::Var)) => functions::call(host, Function::Var, args),
        Value::Object(Object::Class(Class::SizeVar)) => {
            functions::call(host, Function::SizeVar, args)
        }
        Value::Object(Object::Class(Class::DataType)) => {
            let a = args.bind("DataType", &["dtype"])?;
            let dtype = casts::dtype_arg(a.required("dtype")?)?;
            Ok(Value::str(&dtype.to_string()))
        }
        Value::Object(Object::Class(Class::Stmt("ProducerLoad"))) => {
            // `ProducerLoad(T, indices)`: `T[indices]`, also for a tensor
            // of no dimensions.
            let a = args.bind("ProducerLoad", &["producer", "indices", "span"])?;
            let t = &a.required("producer")?.value;
            let indices = a.required("indices")?;
            let items = indices.value.sequence().ok_or_else(|| {
                crate::error::type_error(indices.place(), "`ProducerLoad` takes a list of indices")
            })?;
            subscript(t, &Value::tuple(items))
        }
        Value::Object(Object::Class(class)) => Err(ApiError::type_error(format!(
            "`{}` cannot be called",
            class.name()
        ))),
        Value::Object(Object::Reducer(r)) => reducer::reduce(host, r, args),
        Value::Object(Object::TensorIntrin(t)) => tensor_slices::call_intrin(t, args),
        Value::Object(Object::AutotvmTemplate(t)) => autotvm::call_template(host, t, args),
        Value::Object(Object::GenericFunc(g)) => generic_func::call(host, g, args),
        Value::Object(Object::GenericRegistrar(r)) => {
            let a = args.bind("register", &["func"])?;
            r.apply(a.required("func")?.value.clone())
        }
        Value::Object(Object::TensorIr(tensor_ir::TirObject::ScriptName(path))) => {
            tensor_ir::call_script_name(host, path, args)
        }
        Value::Host(_) => {
            let positional = args.positional_only("function")?;
            host.call(callee, positional.into_iter().map(|g| g.value).collect())
        }
        other => objects::call_object(other, args),
    }
}

/// `tvm.target.Target(target, host=None)`: from TVM's target text, or a
/// target (a copy).
fn target_new(args: Args) -> ApiResult<Value> {
    let a = args.bind("Target", &["target", "host"])?;
    let t = a.required("target")?;
    let target = match &t.value {
        Value::Str(s) => Target::parse(s).map_err(|e| e.at(t.at.clone()))?,
        Value::Object(Object::Target(t)) => (**t).clone(),
        other => {
            return Err(ApiError::type_error(format!(
                "`Target` needs a string such as \"llvm\" or \"cuda\", found a {}",
                other.type_name()
            ))
            .at(t.at.clone()))
        }
    };
    Ok(Value::Object(Object::Target(Rc::new(target))))
}

/// `with value:` entering `value`: `None` when it is not one of the API's
/// context managers (`te.tag_scope(...)`, a `tvm.target.Target`), else what
/// `as` binds, or the error `__enter__` raises (nested tag scopes).
pub fn enter(host: &mut dyn Host, value: &Value) -> Option<ApiResult<Value>> {
    match value {
        Value::Object(Object::TagScope(tag)) => {
            Some(tags::enter(host, tag).map(|()| value.clone()))
        }
        Value::Object(Object::Target(t)) => {
            host.session().targets.push(t.clone());
            Some(Ok(value.clone()))
        }
        Value::Object(Object::PassContext(c)) => {
            host.session().pass_contexts.push(c.clone());
            Some(Ok(value.clone()))
        }
        Value::Object(Object::IrScope(s)) => Some(Ok(s.entered())),
        Value::Object(Object::TempDirectory(_)) => Some(Ok(value.clone())),
        _ => None,
    }
}

/// Leaving `with value:` (however the block ended), after [`enter`]
/// accepted `value`.
pub fn exit(host: &mut dyn Host, value: &Value) {
    match value {
        Value::Object(Object::TagScope(_)) => tags::exit(host),
        Value::Object(Object::Target(_)) => {
            host.session().targets.pop();
        }
        Value::Object(Object::PassContext(_)) => {
            host.session().pass_contexts.pop();
        }
        // Closing an IR builder's scope cannot fail: its statement is
        // emitted into the sequence that is open.
        Value::Object(Object::IrScope(s)) => {
            let _ = s.close();
        }
        // TVM's `__exit__` removes the directory, as `remove()` does.
        Value::Object(Object::TempDirectory(d)) => {
            let _ = module_file::tempdir_method(d, "remove", Args::default());
        }
        _ => {}
    }
}

/// Calls an API function that never calls back into a front end (anything
/// but `te.compute` and friends given a lambda), with positional and keyword
/// arguments; a convenience for Rust callers and tests.
pub fn call_function(
    callee: &Value,
    positional: Vec<Value>,
    keywords: &[(&str, Value)],
) -> ApiResult<Value> {
    /// A host for functions that never call back.
    struct NoHost(Session);
    impl Host for NoHost {
        fn call(&mut self, f: &Value, _args: Vec<Value>) -> ApiResult<Value> {
            Err(ApiError::type_error(format!(
                "a {} cannot be called here",
                f.type_name()
            )))
        }
        fn parameters(&self, _f: &Value) -> Option<Parameters> {
            None
        }
        fn session(&mut self) -> &mut Session {
            &mut self.0
        }
    }
    let args = Args {
        positional,
        keywords: keywords
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    };
    call(&mut NoHost(Session::default()), callee, args)
}

/// `container[key] = value` for the API's objects that take item
/// assignment (an AutoTVM configuration's knobs); `None` for a container
/// that is not one of them.
pub fn set_item(container: &Value, key: &Value, value: &Value) -> Option<ApiResult<()>> {
    match container {
        Value::Object(Object::AutotvmConfig(c)) => Some(autotvm::config_set(c, key, value)),
        Value::Object(Object::BufferVar(v)) => Some(v.store(key, value)),
        _ => None,
    }
}

/// `object.name = value` for the API's objects whose attributes a program
/// may set (an AutoTVM entity's `val`, `size`...); `None` for any other
/// value.
pub fn set_attr(object: &Value, name: &str, value: &Value) -> Option<ApiResult<()>> {
    match object {
        Value::Object(Object::AutotvmEntity(e)) => Some(autotvm::entity_set(e, name, value)),
        Value::Object(Object::AutotvmConfig(c)) => Some(autotvm::config_set_attr(c, name, value)),
        _ => None,
    }
}

/// `receiver.name(*args)`.
pub fn call_method(
    host: &mut dyn Host,
    receiver: &Value,
    name: &str,
    args: Args,
) -> ApiResult<Value> {
    objects::call_method(host, receiver, name, args)
}

/// `lhs op rhs` where a side is a `PrimExpr`, an iteration variable or a
/// tensor element (the other may be a Python number): an index expression
/// or an element expression, as TVM builds them.
pub fn binary(op: BinaryOp, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    operators::binary(op, lhs, rhs)
}

/// `op v` on a `PrimExpr`, iteration variable or tensor element.
pub fn unary(op: UnaryOp, v: &Value) -> ApiResult<Value> {
    operators::unary(op, v)
}

/// `lhs op rhs` for a comparison: a condition (`PrimExpr` of type bool)
/// when a side is symbolic, else a bool by identity of TVM objects.
pub fn compare(op: CmpOp, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    operators::compare(op, lhs, rhs)
}

/// Python `==` for values that are not numbers: same string, same items,
/// or the same TVM object.
pub fn equal(lhs: &Value, rhs: &Value) -> bool {
    operators::equal(lhs, rhs)
}

/// `value[index]` on a TVM object: a tensor element (`A[i, j]`, `A[i][j]`),
/// a stage (`s[C]`), a range (`bounds[iv]`). Errors about the index name
/// [`ArgRef::Positional`]`(0)`.
pub fn subscript(value: &Value, index: &Value) -> ApiResult<Value> {
    objects::subscript(value, index, Some(ArgRef::Positional(0)), None)
}

pub use tensor_slices::slice;

/// `isinstance(value, class)` for the API's classes ([`Class`]); `None`
/// when `class` is not one of them (a front end's own type).
pub fn isinstance(value: &Value, class: &Value) -> Option<bool> {
    match class {
        Value::Object(Object::Class(c)) => Some(objects::is_instance(value, *c)),
        _ => None,
    }
}

/// Python truthiness. `a == b` and `a != b` with a non-constant side are
/// answered by node identity, as TVM's `EqualOp` does; any other symbolic
/// condition counts only when it can be decided (TVM raises there).
pub fn truth(value: &Value) -> ApiResult<bool> {
    operators::truth(value)
}

/// `len(value)`.
pub fn len(value: &Value) -> ApiResult<usize> {
    match value {
        Value::Tuple(t) => Ok(t.len()),
        Value::List(l) => Ok(l.borrow().len()),
        Value::Dict(d) => Ok(d.len()),
        Value::MutableDict(d) => Ok(d.borrow().len()),
        Value::Set(s) => Ok(s.borrow().len()),
        Value::Str(s) => Ok(s.chars().count()),
        Value::Object(Object::Bounds(b)) => Ok(b.len()),
        other => Err(ApiError::type_error(format!(
            "a {} has no length",
            other.type_name()
        ))),
    }
}

/// The items of `value` when a program iterates or unpacks it (`for`, `*`,
/// `xo, xi = s[C].split(...)`); `None` when it is not iterable.
pub fn iter(value: &Value) -> Option<Vec<Value>> {
    objects::unpack(value)
}

/// The constant a `PrimExpr` simplifies to, if any (what `int(e)` and
/// `e.value` give).
pub fn constant(e: &arith::Expr) -> Option<i64> {
    objects::constant_value(e)
}

/// Python's `str(value)`, what `print` shows.
pub fn str(value: &Value) -> String {
    value.to_string()
}

/// Python's `repr(value)`: strings quoted, exceptions as their
/// construction, everything else as `str(value)` (whose containers already
/// show their items by `repr`).
pub fn repr(value: &Value) -> String {
    match value {
        Value::Str(s) => text::str_repr(s),
        // A KeyError's message is already the key's repr.
        Value::Exception(ErrorClass::KeyError, message) => format!("KeyError({message})"),
        Value::Exception(class, message) => {
            format!("{}({})", class.name(), text::str_repr(message))
        }
        other => other.to_string(),
    }
}
