//! TensorIR functions in block form: `te.create_prim_func`, `@T.prim_func`
//! scripts, their structural comparison (`tvm.ir.assert_structural_equal`)
//! and the parts of `tir.Schedule` that look blocks up.

use crate::args::Args;
use crate::error::{ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use crate::{ApiError, Host};
use std::fmt;
use std::rc::Rc;
use tir::block::BlockFunc;

/// A TensorIR object.
#[derive(Clone, Debug)]
pub enum TirObject {
    /// A function in block form (`tvm.tir.PrimFunc`).
    PrimFunc(Rc<BlockFunc>),
    /// `tir.Schedule(func)`: blocks of `func` by name.
    Schedule(Rc<BlockFunc>),
    /// `s.get_block(name)`: a block of a schedule's function.
    BlockRV(Rc<BlockFunc>, Rc<str>),
    /// `s.get_sref(block)`: where a block is in its function.
    StmtSRef(Rc<str>),
    /// A `@T.prim_func` function that uses what rangefinder does not
    /// parse: defining it succeeds (so that a module of such functions
    /// loads), using it raises this error.
    Unparsed(Rc<ApiError>),
    /// A name of `tvm.script.tir` (`T.handle`, `T.Buffer(...)`): what a
    /// TVMScript function's annotations evaluate to in Python; only the
    /// script parser gives it a meaning.
    ScriptName(Rc<str>),
}

impl TirObject {
    /// The Python-facing type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            TirObject::PrimFunc(_) => "PrimFunc",
            TirObject::Schedule(_) => "Schedule",
            TirObject::BlockRV(..) => "BlockRV",
            TirObject::StmtSRef(_) => "StmtSRef",
            TirObject::ScriptName(_) => "TVMScript name",
            TirObject::Unparsed(_) => "PrimFunc",
        }
    }

    /// Python `is`.
    pub fn same_as(&self, other: &TirObject) -> bool {
        match (self, other) {
            (TirObject::PrimFunc(a), TirObject::PrimFunc(b))
            | (TirObject::Schedule(a), TirObject::Schedule(b)) => Rc::ptr_eq(a, b),
            (TirObject::BlockRV(a, x), TirObject::BlockRV(b, y)) => Rc::ptr_eq(a, b) && x == y,
            (TirObject::StmtSRef(a), TirObject::StmtSRef(b))
            | (TirObject::ScriptName(a), TirObject::ScriptName(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for TirObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TirObject::PrimFunc(func) => f.write_str(&tir::block::block_tvmscript(func)),
            TirObject::Schedule(_) => f.write_str("tir.Schedule"),
            TirObject::BlockRV(_, name) => write!(f, "BlockRV({name})"),
            TirObject::StmtSRef(name) => write!(f, "StmtSRef({name})"),
            TirObject::ScriptName(path) => write!(f, "T.{path}"),
            TirObject::Unparsed(e) => write!(f, "<PrimFunc that does not parse: {}>", e.message),
        }
    }
}

fn object(o: TirObject) -> Value {
    Value::Object(Object::TensorIr(o))
}

/// `te.create_prim_func(args, index_dtype_override=None)`.
///
/// Indices are integers of any width, so `index_dtype_override` changes
/// only the integer casts that compute data-dependent indices
/// ([`te::create_prim_func_with_index_dtype`]).
pub(crate) fn create_prim_func(args: Args) -> ApiResult<Value> {
    let a = args.bind("create_prim_func", &["ops", "index_dtype_override"])?;
    let index_dtype = match a.get("index_dtype_override") {
        None => None,
        Some(given) => match &given.value {
            Value::None => None,
            Value::Str(t) if &**t == "int32" => Some(tir::DataType::Int32),
            Value::Str(t) if &**t == "int64" => Some(tir::DataType::Int64),
            other => {
                return Err(crate::error::type_error(
                    given.place(),
                    format!(
                        "`index_dtype_override` is \"int32\", \"int64\" or None, found {}",
                        other.type_name()
                    ),
                ))
            }
        },
    };
    let given = a.required("ops")?;
    let items = given
        .value
        .sequence()
        .unwrap_or_else(|| vec![given.value.clone()]);
    let mut all = Vec::new();
    for item in &items {
        match crate::objects::promote(item) {
            Value::Object(Object::Tensor(t)) => all.push(te::PrimFuncArg::Tensor(t)),
            Value::Index(e) if e.as_var().is_some() => all.push(te::PrimFuncArg::Scalar(
                e.as_var().expect("a variable").clone(),
            )),
            other => {
                return Err(crate::error::type_error(
                    given.place(),
                    format!(
                        "`create_prim_func` takes tensors and size variables, found a {}",
                        other.type_name()
                    ),
                ))
            }
        }
    }
    let func = te::create_prim_func_with_index_dtype(&all, index_dtype).map_err(|e| {
        if e.message.starts_with("Unsupported Operation") {
            ApiError::new(ErrorClass::TvmTypeError, e.message)
        } else {
            ApiError::te(e)
        }
    })?;
    Ok(object(TirObject::PrimFunc(Rc::new(func))))
}

/// `@T.prim_func`: the function the decorated definition describes.
pub(crate) fn prim_func(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("prim_func", &["func"])?;
    let f = a.required("func")?.value.clone();
    let source = host.hybrid_source(&f)?;
    match crate::tensor_ir_parse::parse_prim_func(host, Some(&f), &source) {
        Ok(func) => Ok(object(TirObject::PrimFunc(Rc::new(func)))),
        Err(e) if e.class == ErrorClass::Host => Err(e),
        Err(e) => Ok(object(TirObject::Unparsed(Rc::new(e)))),
    }
}

/// `tvm.script.from_source(text)`: the function TVMScript `text` defines
/// (what `func.script()` prints reads back as `func`).
pub(crate) fn from_source(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("from_source", &["input_func", "tir_prefix"])?;
    let given = a.required("input_func")?;
    let Value::Str(text) = &given.value else {
        return Err(crate::error::type_error(
            given.place(),
            format!(
                "`from_source` takes TVMScript text, found a {}",
                given.value.type_name()
            ),
        ));
    };
    let source = crate::HybridSource::parse(text, 0)?;
    let func = crate::tensor_ir_parse::parse_prim_func(host, None, &source)?;
    Ok(object(TirObject::PrimFunc(Rc::new(func))))
}

/// `tir.Schedule(func, debug_mask=...)`.
pub(crate) fn schedule(args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "Schedule",
        &[
            "mod",
            "seed",
            "debug_mask",
            "error_render_level",
            "enable_check",
        ],
    )?;
    match &a.required("mod")?.value {
        Value::Object(Object::TensorIr(TirObject::PrimFunc(f))) => {
            Ok(object(TirObject::Schedule(f.clone())))
        }
        other => Err(ApiError::type_error(format!(
            "`tir.Schedule` takes a function in block form (`te.create_prim_func`, `@T.prim_func`), found a {}",
            other.type_name()
        ))),
    }
}

/// `x.name` of a TensorIR object: `None` when it has no such attribute.
pub(crate) fn attribute(o: &TirObject, name: &str) -> Option<ApiResult<Value>> {
    match (o, name) {
        (TirObject::Unparsed(e), _) => Some(Err((**e).clone())),
        (TirObject::Schedule(_), _) if name != "mod" && !name.starts_with("__") => {
            Some(Err(ApiError::not_supported(format!(
                "`Schedule.{name}` is not supported: a TensorIR schedule here looks blocks up \
                 (`get_block`, `get_sref`, `mod`) and transforms nothing"
            ))))
        }
        _ => attribute_value(o, name).map(Ok),
    }
}

fn attribute_value(o: &TirObject, name: &str) -> Option<Value> {
    match (o, name) {
        (TirObject::ScriptName(path), _) => Some(object(TirObject::ScriptName(Rc::from(format!(
            "{path}.{name}"
        ))))),
        (TirObject::Schedule(f), "mod") => Some(object(TirObject::PrimFunc(f.clone()))),
        (TirObject::PrimFunc(f), "attrs") => Some(Value::Dict(
            f.attrs
                .iter()
                .map(|(k, v)| (Value::str(k), Value::str(v)))
                .collect::<Vec<_>>()
                .into(),
        )),
        (TirObject::PrimFunc(f), "params") => Some(Value::list(
            f.params
                .iter()
                .map(|b| Value::Object(Object::Buffer(b.clone())))
                .collect(),
        )),
        _ => None,
    }
}

/// The method `name` of `o`, when it has one.
pub(crate) fn method_name(o: &TirObject, name: &str) -> Option<&'static str> {
    match (o, name) {
        (TirObject::PrimFunc(_), "script") => Some("script"),
        (TirObject::Schedule(_), "get_block") => Some("get_block"),
        (TirObject::Schedule(_), "get_sref") => Some("get_sref"),
        _ => None,
    }
}

/// `x.name(*args)` of a TensorIR object.
pub(crate) fn call_method(o: &TirObject, name: &str, args: Args) -> ApiResult<Value> {
    match (o, name) {
        (TirObject::PrimFunc(f), "script") => {
            args.bind("script", &[])?;
            Ok(Value::str(&tir::block::block_tvmscript(f)))
        }
        (TirObject::Schedule(f), "get_block") => {
            let a = args.bind("get_block", &["name", "func_name"])?;
            let name = match &a.required("name")?.value {
                Value::Str(s) => s.clone(),
                other => {
                    return Err(ApiError::type_error(format!(
                        "a block name is a str, not a {}",
                        other.type_name()
                    )))
                }
            };
            let found = f.blocks().iter().filter(|b| *b.name == *name).count();
            match found {
                1 => Ok(object(TirObject::BlockRV(f.clone(), name))),
                0 => Err(ApiError::new(
                    ErrorClass::ValueError,
                    format!("no block is called `{name}`"),
                )),
                n => Err(ApiError::new(
                    ErrorClass::ValueError,
                    format!("{n} blocks are called `{name}`"),
                )),
            }
        }
        (TirObject::Schedule(f), "get_sref") => {
            let a = args.bind("get_sref", &["rv_or_stmt"])?;
            match &a.required("rv_or_stmt")?.value {
                Value::Object(Object::TensorIr(TirObject::BlockRV(g, name)))
                    if Rc::ptr_eq(f, g) =>
                {
                    Ok(object(TirObject::StmtSRef(name.clone())))
                }
                other => Err(ApiError::type_error(format!(
                    "`get_sref` takes a block of this schedule, found a {}",
                    other.type_name()
                ))),
            }
        }
        (TirObject::Unparsed(e), _) => Err((**e).clone()),
        (TirObject::ScriptName(path), _) => Err(ApiError::not_supported(format!(
            "`T.{path}.{name}` has a meaning only inside a `@T.prim_func` function"
        ))),
        (TirObject::Schedule(_), _) => Err(ApiError::not_supported(format!(
            "`Schedule.{name}` is not supported: a TensorIR schedule here looks blocks up \
             (`get_block`, `get_sref`, `mod`) and transforms nothing"
        ))),
        _ => Err(ApiError::type_error(format!(
            "a {} has no method `{name}`",
            o.type_name()
        ))),
    }
}

/// Calling a name of `tvm.script.tir` outside a TVMScript function: a
/// type's name with a value makes a constant of that type (`T.int32(8)`,
/// `T.float32(0.5)`, as TVM's `tvm.script.tir` builds `IntImm`/`FloatImm`),
/// and with none a variable of it (`T.int32()`); anything else gives
/// another such name (`T.Buffer((128,), "float32")` in an annotation).
pub(crate) fn call_script_name(
    host: &mut dyn crate::Host,
    path: &str,
    args: crate::Args,
) -> ApiResult<Value> {
    let Ok(dtype) = path.parse::<tir::DataType>() else {
        return Ok(object(TirObject::ScriptName(Rc::from(format!(
            "{path}(...)"
        )))));
    };
    let a = args.bind(path, &["expr", "is_size_var"])?;
    match a.get("expr") {
        Some(v) => crate::functions::typed_constant(&v.value, dtype, v.place()),
        None => {
            let var = crate::Args::positional(vec![Value::str(""), Value::str(dtype.name())]);
            crate::call(host, &Value::Function(crate::Function::Var), var)
        }
    }
}

/// The error of a function that did not parse, when `v` is one.
pub(crate) fn unparsed(v: &Value) -> Option<ApiError> {
    match v {
        Value::Object(Object::TensorIr(TirObject::Unparsed(e))) => Some((**e).clone()),
        _ => None,
    }
}

/// `tvm.ir.structural_equal(a, b)` of two functions in block form: `None`
/// when either is not one.
pub(crate) fn structural_diff(a: &Value, b: &Value) -> Option<Result<(), String>> {
    match (a, b) {
        (
            Value::Object(Object::TensorIr(TirObject::PrimFunc(x))),
            Value::Object(Object::TensorIr(TirObject::PrimFunc(y))),
        ) => Some(tir::block::structural_diff(x, y)),
        _ => None,
    }
}
