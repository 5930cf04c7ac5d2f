//! TVM's global packed functions: `tvm.register_func(name)` registers a
//! script's function, `tvm.get_global_func(name)` finds one, and a built
//! program's `tvm.tir.call_packed(name, ...)` calls it when the program
//! runs (`f(a, b)` after `tvm.build`), with each buffer passed as a
//! `tvm.nd.array` whose values the function may change. The runtime
//! library functions rangefinder provides (`tvm.contrib.cblas.matmul`,
//! [`tir::packed::builtin`]) answer the names nothing registered, and
//! `tvm.contrib.cblas.matmul(A, B)` builds the extern stage that calls it.

use crate::args::Args;
use crate::build::NDArray;
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use std::cell::RefCell;
use std::rc::Rc;
use tir::PackedArg;

/// `tvm.register_func(func_name, f=None, override=False)`: registers `f`
/// under `func_name` and returns it; without `f`, the decorator that does.
pub(crate) fn register_func(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("register_func", &["func_name", "f", "override"])?;
    let name = a.required("func_name")?;
    let Value::Str(name_text) = &name.value else {
        return Err(type_error(
            name.place(),
            "`register_func` needs the function's name first \
             (`@tvm.register_func(\"my.func\")`)",
        ));
    };
    let replace = match a.get("override") {
        Some(g) => crate::operators::truth(&g.value)?,
        None => false,
    };
    match a.get("f") {
        Some(f) if !matches!(f.value, Value::None) => {
            register(host, name_text, f.value.clone(), replace)
        }
        _ => Ok(Value::Object(Object::PackedRegistrar(
            name_text.clone(),
            replace,
        ))),
    }
}

/// The decorator `register_func(name)` returned, applied to `f`.
pub(crate) fn call_registrar(
    host: &mut dyn Host,
    name: &str,
    replace: bool,
    args: Args,
) -> ApiResult<Value> {
    let a = args.bind("register_func", &["f"])?;
    register(host, name, a.required("f")?.value.clone(), replace)
}

fn register(host: &mut dyn Host, name: &str, f: Value, replace: bool) -> ApiResult<Value> {
    let registry = &mut host.session().packed_funcs;
    match registry.iter_mut().find(|(n, _)| n == name) {
        Some(_) if !replace => {
            return Err(ApiError::new(
                ErrorClass::RuntimeError,
                format!("Global PackedFunc {name} is already registered"),
            ))
        }
        Some(slot) => slot.1 = f.clone(),
        None => registry.push((name.to_string(), f.clone())),
    }
    Ok(f)
}

/// `tvm.get_global_func(name, allow_missing=False)`.
pub(crate) fn get_global_func(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("get_global_func", &["name", "allow_missing"])?;
    let name = a.required("name")?;
    let Value::Str(text) = &name.value else {
        return Err(type_error(name.place(), "`get_global_func` takes a name"));
    };
    let allow_missing = match a.get("allow_missing") {
        Some(g) => crate::operators::truth(&g.value)?,
        None => false,
    };
    if let Some((_, f)) = host
        .session()
        .packed_funcs
        .iter()
        .find(|(n, _)| n == &**text)
    {
        return Ok(f.clone());
    }
    if tir::packed::BUILTINS.contains(&&**text) {
        return Ok(Value::Object(Object::PackedFunc(text.clone())));
    }
    if allow_missing {
        return Ok(Value::None);
    }
    Err(ApiError::value_error(format!(
        "Cannot find global function {text}"
    )))
}

/// A built-in packed function called from a script (`f(a, b, c, False,
/// False)` of `get_global_func("tvm.contrib.cblas.matmul")`).
pub(crate) fn call_builtin(name: &str, args: Args) -> ApiResult<Value> {
    let given = args.positional_only(name)?;
    let mut arrays = Vec::new();
    let mut packed = Vec::with_capacity(given.len());
    for g in &given {
        packed.push(match &g.value {
            Value::Object(Object::NDArray(a)) => {
                arrays.push((packed.len(), a.clone()));
                let x = a.borrow();
                PackedArg::Array {
                    name: String::new(),
                    shape: x.shape.iter().map(|&d| d as i64).collect(),
                    dtype: x.dtype,
                    data: x.data.clone(),
                }
            }
            Value::Bool(b) => PackedArg::Int(i64::from(*b)),
            Value::Int(i) => PackedArg::Int(*i),
            Value::Float(f) => PackedArg::Float(*f),
            Value::Str(s) => PackedArg::Str(s.to_string()),
            other => {
                return Err(type_error(
                    g.place(),
                    format!(
                        "`{name}` takes arrays and numbers, found a {}",
                        other.type_name()
                    ),
                ))
            }
        });
    }
    match tir::packed::builtin(name, &mut packed) {
        None => Err(ApiError::value_error(format!(
            "Cannot find global function {name}"
        ))),
        Some(Err(message)) => Err(ApiError::tvm(format!("`{name}` failed: {message}"))),
        Some(Ok(())) => {
            for (k, a) in arrays {
                if let PackedArg::Array { data, .. } = &packed[k] {
                    a.borrow_mut().data = data.clone();
                }
            }
            Ok(Value::None)
        }
    }
}

/// The packed functions of a run of a built program: the script's
/// registered functions, called through its front end. A function that
/// raised leaves its error here, so that the run reports it as raised.
pub(crate) struct ScriptPacked<'h> {
    pub host: &'h mut dyn Host,
    pub raised: Option<ApiError>,
    /// The names registered when the run starts.
    pub registered: Vec<String>,
}

impl<'h> ScriptPacked<'h> {
    /// The registered functions of `host`'s session, for a run.
    pub(crate) fn new(host: &'h mut dyn Host) -> ScriptPacked<'h> {
        let registered = host
            .session()
            .packed_funcs
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        ScriptPacked {
            host,
            raised: None,
            registered,
        }
    }
}

impl tir::PackedFunctions for ScriptPacked<'_> {
    fn call(&mut self, name: &str, args: &mut [PackedArg]) -> Option<Result<(), String>> {
        let f = self
            .host
            .session()
            .packed_funcs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.clone())?;
        let mut arrays = Vec::new();
        let values: Vec<Value> = args
            .iter()
            .enumerate()
            .map(|(k, a)| match a {
                PackedArg::Array {
                    shape, dtype, data, ..
                } => {
                    let array = Rc::new(RefCell::new(NDArray {
                        shape: shape.iter().map(|&d| d.max(0) as usize).collect(),
                        dtype: *dtype,
                        data: data.clone(),
                    }));
                    arrays.push((k, array.clone()));
                    Value::Object(Object::NDArray(array))
                }
                PackedArg::Int(i) => Value::Int(*i),
                PackedArg::Float(f) => Value::Float(*f),
                PackedArg::Str(s) => Value::str(s),
            })
            .collect();
        if let Err(e) = crate::call(self.host, &f, Args::positional(values)) {
            let message = e.message.clone();
            self.raised = Some(e);
            return Some(Err(message));
        }
        for (k, array) in arrays {
            if let PackedArg::Array { data, .. } = &mut args[k] {
                let new = array.borrow();
                if new.data.len() != data.len() {
                    return Some(Err(format!(
                        "the function left {} elements in an array of {}",
                        new.data.len(),
                        data.len()
                    )));
                }
                data.clone_from(&new.data);
            }
        }
        Some(Ok(()))
    }

    fn provides(&self, name: &str) -> bool {
        // The registry as it is when the run starts: a function the run
        // registers (from inside a packed call) is not known before.
        self.registered.iter().any(|r| r == name)
    }
}

/// `tvm.contrib.cblas.matmul(lhs, rhs, transa=False, transb=False)` (and
/// `mkl`'s): an extern stage `C` of `op(lhs) * op(rhs)` whose body calls
/// the library function.
pub(crate) fn library_matmul(library: &str, args: Args) -> ApiResult<Value> {
    let a = args.bind("matmul", &["lhs", "rhs", "transa", "transb"])?;
    let lhs = crate::topi_ops::tensor_arg(a.required("lhs")?, "matmul")?;
    let rhs = crate::topi_ops::tensor_arg(a.required("rhs")?, "matmul")?;
    if lhs.ndim() != 2 || rhs.ndim() != 2 {
        return Err(ApiError::value_error("`matmul` multiplies 2-D tensors"));
    }
    let flag = |name: &str| -> ApiResult<bool> {
        a.get(name)
            .map_or(Ok(false), |g| crate::operators::truth(&g.value))
    };
    let (transa, transb) = (flag("transa")?, flag("transb")?);
    let n = lhs.shape()[usize::from(transa)].clone();
    let m = rhs.shape()[usize::from(!transb)].clone();
    let func = format!("tvm.contrib.{library}.matmul");
    let t = te::extern_op_outputs::<te::TeError>(
        &[(vec![n, m], lhs.dtype())],
        &[lhs, rhs],
        |ins, outs| {
            let flag =
                |b: bool| tir::CallArg::Value(tir::Value::index(arith::Expr::int(i64::from(b))));
            let call = tir::OpaqueCall::packed(
                func.clone(),
                vec![
                    tir::CallArg::Buffer(ins[0].clone()),
                    tir::CallArg::Buffer(ins[1].clone()),
                    tir::CallArg::Buffer(outs[0].clone()),
                    flag(transa),
                    flag(transb),
                ],
            );
            Ok(tir::Stmt::opaque(call, true))
        },
        "C",
        None,
        None,
        "",
        te::Attrs::new(),
    )
    .map_err(ApiError::te)?;
    Ok(Value::Object(Object::Tensor(t)))
}
