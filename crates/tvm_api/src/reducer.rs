//! Reducers given by their combiner (`te.comm_reducer`), argmax-style
//! tuple reducers among them, and tensor intrinsics
//! (`te.decl_tensor_intrin`): the program's functions are called back
//! through the [`Host`] on symbolic operands and buffers.

use crate::args::string;
use crate::args::Args;
use crate::error::te_error;
use crate::error::{not_supported, type_error, ApiResult, ArgRef};
use crate::function::Function;
use crate::functions::call_back;
use crate::object::Object;
use crate::objects::{element, to_element, to_iter_var};
use crate::value::Value;
use crate::Host;
use std::rc::Rc;

/// What `te.comm_reducer(fcombine, fidentity, name)` made: the program's
/// two functions, called each time the reducer is (the operands' types
/// come from the values reduced).
pub struct ReducerDef {
    fcombine: Value,
    fidentity: Value,
    name: String,
}

impl ReducerDef {
    /// The reducer's name (`name=`, by default `"reduce"`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// `te.comm_reducer` and `te.decl_tensor_intrin`.
pub(crate) fn call(host: &mut dyn Host, native: Function, args: Args) -> ApiResult<Value> {
    match native {
        Function::CommReducer => {
            let a = args.bind("comm_reducer", &["fcombine", "fidentity", "name"])?;
            let fcombine = a.required("fcombine")?;
            let fidentity = a.required("fidentity")?;
            for f in [fcombine, fidentity] {
                if host.parameters(&f.value).is_none() {
                    return Err(type_error(
                        f.place(),
                        format!(
                            "`comm_reducer` needs a lambda or function, found a {}",
                            f.value.type_name()
                        ),
                    ));
                }
            }
            let name = match a.get("name") {
                Some(n) => string(n)?,
                None => "reduce".to_owned(),
            };
            Ok(Value::Object(Object::Reducer(Rc::new(ReducerDef {
                fcombine: fcombine.value.clone(),
                fidentity: fidentity.value.clone(),
                name,
            }))))
        }
        Function::DeclTensorIntrin => decl_tensor_intrin(host, args),
        _ => unreachable!("reducer::call covers comm_reducer and decl_tensor_intrin"),
    }
}

/// The values a function returned for a tuple of `n`: a tuple or list of
/// `n`, or one value when `n` is 1.
fn returned(v: &Value, n: usize, what: &str, at: &ArgRef) -> ApiResult<Vec<te::Value>> {
    let items = match v.sequence() {
        Some(items) => items,
        None => vec![v.clone()],
    };
    if items.len() != n {
        return Err(type_error(
            Some(at.clone()),
            format!(
                "{what} returned {} value(s) for a tuple of {n}: return one value per position",
                items.len()
            ),
        ));
    }
    items
        .iter()
        .map(|x| to_element(x, Some(at.clone())))
        .collect()
}

/// `reducer(expr, axis, where=None, init=None)`: the reduction of `expr`
/// (a value, or a tuple of values for a tuple reducer) over `axis`; a
/// tuple of reductions for a tuple, which a compute returns as its
/// outputs.
pub(crate) fn reduce(host: &mut dyn Host, r: &ReducerDef, args: Args) -> ApiResult<Value> {
    let a = args.bind(&r.name, &["expr", "axis", "where", "init"])?;
    let expr = a.required("expr")?;
    let Some(axis) = a.get("axis") else {
        return Err(not_supported(
            None,
            format!(
                "`{}` without `axis=` (combining two values directly) is not supported: \
                 give the reduction axis",
                r.name
            ),
        ));
    };
    if !is_axis(&axis.value) {
        // `mysum(a, b)` (and more values): the values combined directly,
        // left to right, as TVM's reducer does when `axis` is not an axis.
        let mut values = vec![expr.value.clone(), axis.value.clone()];
        for extra in ["where", "init"] {
            if let Some(g) = a.get(extra).filter(|g| !matches!(g.value, Value::None)) {
                values.push(g.value.clone());
            }
        }
        let mut acc = values[0].clone();
        for v in &values[1..] {
            acc = call_back(host, &r.fcombine, vec![acc, v.clone()], &expr.at)?;
        }
        return Ok(acc);
    }
    if let Some(init) = a.get("init").filter(|g| !matches!(g.value, Value::None)) {
        return Err(not_supported(init.place(), "`init=` is not supported"));
    }
    let axes = match axis.value.sequence() {
        Some(items) => items
            .into_iter()
            .map(|v| to_iter_var(&axis.item(v)))
            .collect::<ApiResult<Vec<_>>>()?,
        None => vec![to_iter_var(axis)?],
    };
    let condition = match a.get("where") {
        Some(w) if !matches!(w.value, Value::None) => Some(match &w.value {
            Value::Bool(b) => arith::Expr::bool(*b),
            Value::Index(e) if e.ty() == arith::Type::Bool => e.clone(),
            other => {
                return Err(type_error(
                    w.place(),
                    format!(
                        "expected a condition such as `i < n`, found a {}",
                        other.type_name()
                    ),
                ))
            }
        }),
        _ => None,
    };
    let tuple = expr.value.sequence();
    let sources = match &tuple {
        Some(items) => items
            .iter()
            .map(|v| to_element(v, expr.place()))
            .collect::<ApiResult<Vec<_>>>()?,
        None => vec![to_element(&expr.value, expr.place())?],
    };
    let dtypes: Vec<tir::DataType> = sources.iter().map(te::Value::dtype).collect();
    // The operands are named after the combiner's parameters, as TVM
    // names them (`x_0`, `x_1`, ... for a tuple).
    let names = host
        .parameters(&r.fcombine)
        .map(|p| p.names)
        .unwrap_or_default();
    let (lname, rname) = match &names[..] {
        [l, r, ..] => (l.clone(), r.clone()),
        _ => ("x".to_owned(), "y".to_owned()),
    };
    let lhs = te::CommReducer::operands(&lname, &dtypes);
    let rhs = te::CommReducer::operands(&rname, &dtypes);
    let as_arg = |vs: &[te::Value]| match tuple {
        Some(_) => Value::tuple(vs.iter().cloned().map(element).collect()),
        None => element(vs[0].clone()),
    };
    let n = sources.len();
    // Errors about the program's functions point at the values reduced,
    // which decide how they are called.
    let at = &expr.at;
    let combined = call_back(host, &r.fcombine, vec![as_arg(&lhs), as_arg(&rhs)], at)?;
    let result = returned(&combined, n, "the combiner", at)?;
    let dtype_names = dtypes.iter().map(|d| Value::str(d.name())).collect();
    let identity = call_back(host, &r.fidentity, dtype_names, at)?;
    let identity = returned(&identity, n, "the identity", at)?;
    let reducer = te::CommReducer::new(&r.name, &lhs, &rhs, result, identity)
        .map_err(|e| te_error(&a.place(), e))?;
    let reductions = reducer
        .reduce(sources, &axes, condition)
        .map_err(|e| te_error(&expr.place(), e))?;
    Ok(match tuple {
        Some(_) => Value::tuple(reductions.into_iter().map(element).collect()),
        None => element(reductions.into_iter().next().expect("one source")),
    })
}

/// Whether `v` names reduction axes (an axis, or a list or tuple of
/// them) rather than a value to combine.
fn is_axis(v: &Value) -> bool {
    matches!(
        v,
        Value::Object(Object::IterVar(_)) | Value::Tuple(_) | Value::List(_)
    )
}

/// The name of the first opaque call of what an intrinsic's function
/// returned (`None` for Python's `None`).
/// The first call a part of an intrinsic's function emits (`None` for a
/// part it does not give).
fn written_call(v: &Value, at: &ArgRef) -> ApiResult<Option<tir::OpaqueCall>> {
    if matches!(v, Value::None) {
        return Ok(None);
    }
    let stmt = crate::extern_api::to_stmt(v, Some(at.clone()), false)?;
    let mut found = None;
    stmt.visit(&mut |s| {
        if let (None, tir::Stmt::Opaque { call, .. }) = (&found, s) {
            found = Some(call.clone());
        }
    });
    found.map(Some).ok_or_else(|| {
        type_error(
            Some(at.clone()),
            "the intrinsic's function must emit a call such as `tvm.tir.call_extern(...)`",
        )
    })
}

/// The calls of an intrinsic's function, by name and as written.
fn intrin_calls(parts: [Option<tir::OpaqueCall>; 3]) -> te::IntrinCalls {
    let name = |c: &Option<tir::OpaqueCall>| c.as_ref().map(|c| c.func.clone());
    te::IntrinCalls {
        body: name(&parts[0]),
        reset: name(&parts[1]),
        update: name(&parts[2]),
        written: parts,
    }
}

/// `te.decl_tensor_intrin(op, fcompute, name="tensor_intrin", binds=None,
/// scalar_params=None, default_buffer_params=None)`: `fcompute(ins, outs)`
/// is called with a buffer per input (from `binds`, or declared) and per
/// output, and returns the body or `(body, reset, update)`.
fn decl_tensor_intrin(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "decl_tensor_intrin",
        &[
            "op",
            "fcompute",
            "name",
            "binds",
            "scalar_params",
            "default_buffer_params",
        ],
    )?;
    let scalar_params: Vec<arith::Var> = match a.get("scalar_params") {
        Some(g) if !matches!(g.value, Value::None) => {
            let items = g.value.sequence().ok_or_else(|| {
                type_error(
                    g.place(),
                    format!(
                        "`scalar_params` takes a list of variables, found a {}",
                        g.value.type_name()
                    ),
                )
            })?;
            items
                .into_iter()
                .map(|v| match &v {
                    Value::Index(e) => e.as_var().cloned().ok_or(()),
                    _ => Err(()),
                })
                .collect::<Result<_, ()>>()
                .map_err(|()| {
                    type_error(
                        g.place(),
                        "`scalar_params` takes the variables (`te.var`) the intrinsic's compute \
                         uses",
                    )
                })?
        }
        _ => Vec::new(),
    };
    for p in ["default_buffer_params"] {
        if let Some(g) = a.get(p).filter(|g| !matches!(g.value, Value::None)) {
            // How the intrinsic's buffers are aligned and offset changes
            // neither the regions nor the values: those parameters are kept
            // out of the model; any other is refused.
            let layout_only = |k: &Value| matches!(k, Value::Str(s) if matches!(&**s, "offset_factor" | "data_alignment"));
            let keys: Option<Vec<Value>> = match &g.value {
                Value::Dict(d) => Some(d.iter().map(|(k, _)| k.clone()).collect()),
                Value::MutableDict(d) => Some(d.borrow().iter().map(|(k, _)| k.clone()).collect()),
                _ => None,
            };
            let empty = keys.is_some_and(|keys| {
                keys.iter()
                    .all(|k| p == "default_buffer_params" && layout_only(k))
            }) || g.value.sequence().is_some_and(|s| s.is_empty());
            if !empty {
                return Err(not_supported(
                    g.place(),
                    format!("`decl_tensor_intrin` with `{p}=` is not supported"),
                ));
            }
        }
    }
    let op = crate::objects::to_op(a.required("op")?)?;
    let f = a.required("fcompute")?;
    let name = match a.get("name") {
        Some(n) => string(n)?,
        None => "tensor_intrin".to_owned(),
    };
    let binds: Vec<(te::Tensor, Value)> = match a.get("binds") {
        Some(g) if !matches!(g.value, Value::None) => {
            let Value::Dict(pairs) = &g.value else {
                return Err(type_error(
                    g.place(),
                    "`binds` must be a dict from tensors to buffers",
                ));
            };
            pairs
                .iter()
                .map(|(k, v)| match (k, v) {
                    (Value::Object(Object::Tensor(t)), Value::Object(Object::DeclBuffer(..))) => {
                        Ok((t.clone(), v.clone()))
                    }
                    _ => Err(type_error(
                        g.place(),
                        format!(
                            "`binds` maps tensors to buffers, found a {} to a {}",
                            k.type_name(),
                            v.type_name()
                        ),
                    )),
                })
                .collect::<ApiResult<_>>()?
        }
        _ => Vec::new(),
    };
    let buffer_for = |t: &te::Tensor| -> Value {
        binds
            .iter()
            .find(|(k, _)| k == t)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| {
                Value::Object(Object::DeclBuffer(
                    tir::Buffer::new(t.name(), t.dtype(), t.shape().to_vec()),
                    Rc::from(Vec::new()),
                ))
            })
    };
    let ins = Value::list(op.input_tensors().iter().map(buffer_for).collect());
    let outs = Value::list(op.outputs().iter().map(buffer_for).collect());
    let buffers: Vec<tir::Buffer> = ins
        .sequence()
        .unwrap_or_default()
        .into_iter()
        .chain(outs.sequence().unwrap_or_default())
        .filter_map(|b| match b {
            Value::Object(Object::DeclBuffer(b, _)) => Some(b),
            _ => None,
        })
        .collect();
    let mut fargs = vec![ins, outs];
    if !scalar_params.is_empty() {
        fargs.push(Value::list(
            scalar_params
                .iter()
                .map(|v| Value::Index(v.expr()))
                .collect(),
        ));
    }
    let body = call_back(host, &f.value, fargs, &f.at)?;
    let calls = match body.sequence() {
        Some(parts) if parts.len() == 3 => intrin_calls([
            written_call(&parts[0], &f.at)?,
            written_call(&parts[1], &f.at)?,
            written_call(&parts[2], &f.at)?,
        ]),
        Some(parts) => {
            return Err(type_error(
                f.place(),
                format!(
                    "the intrinsic's function returned {} values: return one statement or \
                     the triple (body, reset, update)",
                    parts.len()
                ),
            ))
        }
        None => intrin_calls([written_call(&body, &f.at)?, None, None]),
    };
    let intrin = te::decl_tensor_intrin(&op, &name, calls)
        .map_err(|e| te_error(&a.place(), e))?
        .with_params(scalar_params, buffers);
    Ok(Value::Object(Object::TensorIntrin(intrin)))
}
