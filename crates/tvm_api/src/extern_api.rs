//! Operations that are not computes and what builds them: `te.scan`,
//! `te.extern` with `tvm.tir.decl_buffer` buffers, the opaque calls
//! `tvm.tir.call_packed` / `call_extern`, and `tvm.tir.ir_builder` as far
//! as emitting such calls.

use crate::args::string;
use crate::args::{Args, Bound, Given};
use crate::error::te_error;
use crate::error::{not_supported, type_error, ApiResult, At};
use crate::function::Function;
use crate::functions::{call_back, BuildFailure};
use crate::object::Object;
use crate::objects::to_index;
use crate::value::Value;
use crate::Host;
use arith::Expr;
use std::cell::RefCell;
use std::rc::Rc;
use tir::{CallArg, DataType, OpaqueCall, Stmt};

fn name_or(a: &Bound, default: &str) -> ApiResult<String> {
    a.get("name")
        .map(string)
        .transpose()
        .map(|n| n.unwrap_or_else(|| default.to_owned()))
}

fn dtype_of(a: &Given) -> ApiResult<DataType> {
    string(a)?.parse::<DataType>().map_err(|e| {
        type_error(
            a.place(),
            format!("{e}: use a TVM type name such as \"float32\" or \"int32\""),
        )
    })
}

/// Arguments TVM takes that change nothing rangefinder models: accepted
/// when absent or at their defaults (`None`, `""`), refused otherwise.
fn only_default(a: &Bound, params: &[&str], function: &str) -> ApiResult<()> {
    for p in params {
        if let Some(g) = a.get(p) {
            let default = match &g.value {
                Value::None => true,
                Value::Str(s) => s.is_empty(),
                Value::Dict(d) => d.is_empty(),
                _ => false,
            };
            if !default {
                return Err(not_supported(
                    g.place(),
                    format!("`{function}` with `{p}=` is not supported"),
                ));
            }
        }
    }
    Ok(())
}

fn buffer_value(b: tir::Buffer) -> Value {
    Value::Object(Object::DeclBuffer(b, Rc::from(Vec::new())))
}

/// The `te.extern` family and the buffers and calls it uses.
pub(crate) fn call(host: &mut dyn Host, native: Function, args: Args) -> ApiResult<Value> {
    match native {
        Function::Scan => scan(args),
        Function::Extern => extern_op(host, args),
        Function::DeclBuffer => decl_buffer(args),
        Function::CallPacked => {
            let pos = args.positional_only("call_packed")?;
            let Some((func, rest)) = pos.split_first() else {
                return Err(type_error(
                    None,
                    "`call_packed` needs the name of the function to call",
                ));
            };
            let name = string(func)?;
            let args = rest.iter().map(call_arg).collect::<ApiResult<Vec<_>>>()?;
            Ok(Value::Object(Object::Call(Rc::new(OpaqueCall::packed(
                name, args,
            )))))
        }
        // `call_extern(dtype, name, ...)` calls a C function, `call_intrin(dtype,
        // op, ...)` one of TVM's builtins; the result type changes no bound.
        Function::CallExtern | Function::CallIntrin => {
            let (what, callee) = match native {
                Function::CallExtern => ("call_extern", "function"),
                _ => ("call_intrin", "builtin"),
            };
            let pos = args.positional_only(what)?;
            let [dtype, func, rest @ ..] = &pos[..] else {
                return Err(type_error(
                    None,
                    format!("`{what}` needs a result type and the name of the {callee} to call"),
                ));
            };
            let name = string(func)?;
            let args = rest.iter().map(call_arg).collect::<ApiResult<Vec<_>>>()?;
            let call = match native {
                Function::CallExtern => OpaqueCall::external(dtype_of(dtype)?, name, args),
                _ => OpaqueCall::intrinsic(&name, args),
            };
            Ok(Value::Object(Object::Call(Rc::new(call))))
        }
        Function::IrBuilder => {
            args.bind("create", &[])?;
            Ok(Value::Object(Object::IrBuilder(Rc::new(RefCell::new(
                crate::ir_builder::IrBuilder::new(),
            )))))
        }
        _ => unreachable!("extern_api::call covers the extern functions"),
    }
}

/// An argument of an opaque call: a buffer, a string, a number or a scalar
/// float parameter.
fn call_arg(a: &Given) -> ApiResult<CallArg> {
    match &a.value {
        Value::Object(Object::DeclBuffer(b, _)) => Ok(CallArg::Buffer(b.clone())),
        Value::Str(s) => Ok(CallArg::Str(s.to_string())),
        Value::Float(f) => Ok(CallArg::Value(tir::Value::constant(*f, DataType::Float32))),
        // A scalar float parameter of the program, passed by value.
        Value::Object(Object::Element(e)) if e.as_param().is_some() => {
            let (var, t) = e.as_param().expect("a parameter");
            Ok(CallArg::Value(tir::Value::Var(var.clone(), t)))
        }
        _ => Ok(CallArg::Value(tir::Value::index(to_index(a).map_err(
            |_| {
                type_error(
                    a.place(),
                    format!(
                        "an opaque call takes buffers, strings, numbers and scalar parameters, \
                         found a {}",
                        a.value.type_name()
                    ),
                )
            },
        )?))),
    }
}

/// `tvm.tir.decl_buffer(shape, dtype="float32", name="buffer", data=None,
/// strides=None, elem_offset=None, scope="", data_alignment=-1,
/// offset_factor=0, ...)`. Strides are kept for `.strides`; the layout
/// arguments do not change what rangefinder models.
fn decl_buffer(args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "decl_buffer",
        &[
            "shape",
            "dtype",
            "name",
            "data",
            "strides",
            "elem_offset",
            "scope",
            "data_alignment",
            "offset_factor",
            "buffer_type",
            "axis_separators",
            "span",
        ],
    )?;
    only_default(
        &a,
        &["data", "buffer_type", "axis_separators"],
        "decl_buffer",
    )?;
    let shape_arg = a.required("shape")?;
    let items = shape_arg
        .value
        .sequence()
        .unwrap_or_else(|| vec![shape_arg.value.clone()]);
    let shape = items
        .into_iter()
        .map(|v| to_index(&shape_arg.item(v)))
        .collect::<ApiResult<Vec<Expr>>>()?;
    let dtype = match a.get("dtype") {
        Some(d) if !matches!(d.value, Value::None) => dtype_of(d)?,
        _ => DataType::Float32,
    };
    let name = name_or(&a, "buffer")?;
    let strides: Vec<Value> = match a.get("strides") {
        Some(g) if !matches!(g.value, Value::None) => {
            let items = g
                .value
                .sequence()
                .ok_or_else(|| type_error(g.place(), "`strides` must be a list of sizes"))?;
            for v in &items {
                to_index(&g.item(v.clone()))?;
            }
            items
        }
        _ => Vec::new(),
    };
    let mut b = te::decl_buffer(shape, dtype, &name).map_err(|e| te_error(&a.place(), e))?;
    if let Some(scope) = a.get("scope") {
        let text = string(scope)?;
        if !text.is_empty() {
            b = b.with_scope(text);
        }
    }
    Ok(Value::Object(Object::DeclBuffer(b, Rc::from(strides))))
}

/// `te.scan(init, update, state_placeholder, inputs=None, name="scan",
/// tag="", attrs=None)`: one state, or lists of them (a list of several
/// gives a list of outputs, one per state).
fn scan(args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "scan",
        &[
            "init",
            "update",
            "state_placeholder",
            "inputs",
            "name",
            "tag",
            "attrs",
        ],
    )?;
    only_default(&a, &["tag", "attrs"], "scan")?;
    let init = crate::dataflow::tensor_list(a.required("init")?)?;
    let update = crate::dataflow::tensor_list(a.required("update")?)?;
    let state = crate::dataflow::tensor_list(a.required("state_placeholder")?)?;
    let inputs = match a.get("inputs") {
        Some(g) if !matches!(g.value, Value::None) => crate::dataflow::tensor_list(g)?,
        _ => Vec::new(),
    };
    let name = name_or(&a, "scan")?;
    let op = te::scan_states(&init, &update, &state, &inputs, &name)
        .map_err(|e| te_error(&a.place(), e))?;
    // Several states give a list of outputs, as TVM returns them.
    Ok(match op.num_outputs() {
        1 => Value::Object(Object::Tensor(op.output())),
        _ => Value::list(
            op.outputs()
                .into_iter()
                .map(|t| Value::Object(Object::Tensor(t)))
                .collect(),
        ),
    })
}

/// Buffers given as a buffer or a list of them.
fn buffer_list(g: &Given) -> ApiResult<Vec<tir::Buffer>> {
    let items = g.value.sequence().unwrap_or_else(|| vec![g.value.clone()]);
    items
        .into_iter()
        .map(|v| match v {
            Value::Object(Object::DeclBuffer(b, _)) => Ok(b),
            other => Err(type_error(
                g.place(),
                format!(
                    "expected a buffer of `tvm.tir.decl_buffer`, found a {}",
                    other.type_name()
                ),
            )),
        })
        .collect()
}

/// What a program's function returned as the body of an extern operation
/// or a tensor intrinsic: an opaque call, or the statement an IR builder
/// built.
pub(crate) fn to_stmt(v: &Value, at: At, extern_scope: bool) -> ApiResult<Stmt> {
    match v {
        Value::Object(Object::Call(c)) => Ok(Stmt::opaque((**c).clone(), extern_scope)),
        Value::Object(Object::IrStmt(s)) => Ok(match &**s {
            Stmt::Opaque { call, .. } => Stmt::opaque(call.clone(), extern_scope),
            other => other.clone(),
        }),
        other => Err(type_error(
            at,
            format!(
                "the function must return a call such as `tvm.tir.call_packed(...)` or the \
                 statement of an IR builder (`ib.get()`), found a {}",
                other.type_name()
            ),
        )),
    }
}

/// `te.extern(shape, inputs, fcompute, name="extern", dtype=None,
/// in_buffers=None, out_buffers=None, tag="", attrs=None)` with one
/// output: `fcompute(ins, outs)` is called with the buffers.
fn extern_op(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "extern",
        &[
            "shape",
            "inputs",
            "fcompute",
            "name",
            "dtype",
            "in_buffers",
            "out_buffers",
            "tag",
            "attrs",
        ],
    )?;
    let tag = crate::tags::compute_tag(host, a.get("tag"))?;
    let attrs = crate::tags::attrs(a.get("attrs"))?;
    let shape_arg = a.required("shape")?;
    let items = shape_arg
        .value
        .sequence()
        .unwrap_or_else(|| vec![shape_arg.value.clone()]);
    // A list of shapes is one per output.
    let several = items.first().is_some_and(|v| v.sequence().is_some());
    let shapes: Vec<Vec<Value>> = if several {
        items
            .iter()
            .map(|v| v.sequence().unwrap_or_default())
            .collect()
    } else {
        vec![items]
    };
    let shapes = shapes
        .into_iter()
        .map(|dims| {
            dims.into_iter()
                .map(|v| to_index(&shape_arg.item(v)))
                .collect::<ApiResult<Vec<Expr>>>()
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let inputs = crate::dataflow::tensor_list(a.required("inputs")?)?;
    let f = a.required("fcompute")?;
    let name = name_or(&a, "extern")?;
    let default_dtype = inputs.first().map_or(DataType::Float32, |t| t.dtype());
    let dtypes = match a.get("dtype") {
        Some(d) if !matches!(d.value, Value::None) => match d.value.sequence() {
            Some(list) => list
                .into_iter()
                .map(|v| dtype_of(&d.item(v)))
                .collect::<ApiResult<Vec<_>>>()?,
            None => vec![dtype_of(d)?; shapes.len()],
        },
        _ => vec![default_dtype; shapes.len()],
    };
    if dtypes.len() != shapes.len() {
        return Err(type_error(
            shape_arg.place(),
            format!(
                "`extern` has {} outputs but {} dtypes: give one per output",
                shapes.len(),
                dtypes.len()
            ),
        ));
    }
    let in_buffers = match a.get("in_buffers") {
        Some(g) if !matches!(g.value, Value::None) => Some(buffer_list(g)?),
        _ => None,
    };
    let out_buffers = match a.get("out_buffers") {
        Some(g) if !matches!(g.value, Value::None) => Some(buffer_list(g)?),
        _ => None,
    };
    // As in TVM, given output buffers decide the outputs' types (`dtype`
    // is then not read): TOPI's `topk` gives an `int32` buffer for the
    // indices and no `dtype`.
    let dtypes = match &out_buffers {
        Some(bufs) if bufs.len() == dtypes.len() => bufs.iter().map(|b| b.dtype()).collect(),
        _ => dtypes,
    };
    let outputs: Vec<(Vec<Expr>, DataType)> = shapes.into_iter().zip(dtypes).collect();
    let fcompute = f.value.clone();
    let at = f.at.clone();
    let built = te::extern_op_outputs(
        &outputs,
        &inputs,
        |ins, outs| {
            let ins = Value::list(ins.iter().cloned().map(buffer_value).collect());
            let outs = Value::list(outs.iter().cloned().map(buffer_value).collect());
            let body =
                call_back(host, &fcompute, vec![ins, outs], &at).map_err(BuildFailure::Host)?;
            to_stmt(&body, Some(at.clone()), true).map_err(BuildFailure::Host)
        },
        &name,
        in_buffers,
        out_buffers,
        &tag,
        attrs,
    );
    match built {
        // Several outputs are a list, as TVM returns them (one is the
        // tensor).
        Ok(t) if several && t.op().num_outputs() > 1 => Ok(Value::list(
            t.op()
                .outputs()
                .into_iter()
                .map(|t| Value::Object(Object::Tensor(t)))
                .collect(),
        )),
        Ok(t) => Ok(Value::Object(Object::Tensor(t))),
        Err(BuildFailure::Host(e)) => Err(e),
        Err(BuildFailure::Te(e)) => Err(te_error(&a.place(), e)),
    }
}

/// `buffer.name` and `ib.name`.
pub(crate) fn attribute(value: &Value, name: &str, span: At) -> ApiResult<Value> {
    let method = |n: &'static str| Ok(Value::Method(Rc::new(value.clone()), n));
    match (value, name) {
        (Value::Object(Object::DeclBuffer(b, _)), "shape") => {
            Ok(crate::objects::shape_value(b.shape()))
        }
        (Value::Object(Object::DeclBuffer(b, _)), "dtype") => Ok(Value::str(b.dtype().name())),
        (Value::Object(Object::DeclBuffer(b, _)), "name") => Ok(Value::str(b.name())),
        (Value::Object(Object::DeclBuffer(_, strides)), "strides") => {
            Ok(Value::list(strides.to_vec()))
        }
        (Value::Object(Object::DeclBuffer(..)), "access_ptr") => method("access_ptr"),
        (Value::Object(Object::DeclBuffer(..)), "data") => Ok(value.clone()),
        // Where the buffer starts in its storage: a variable, as TVM
        // declares it for a buffer bound to a region. Only opaque calls
        // read it, which no bound depends on.
        (Value::Object(Object::DeclBuffer(b, _)), "elem_offset") => Ok(Value::Index(
            arith::Var::new(format!("{}_elem_offset", b.name())).expr(),
        )),
        _ => Err(crate::error::error(
            crate::ErrorClass::AttributeError,
            span,
            format!(
                "a {} has no attribute `{name}` that rangefinder supports ({})",
                value.type_name(),
                "it has .shape, .dtype, .name, .strides, .data, .elem_offset and .access_ptr(mode)"
            ),
        )),
    }
}

/// `buffer.access_ptr(mode)`, `ib.emit(call)`, `ib.get()`.
pub(crate) fn call_method(receiver: &Value, name: &str, args: Args) -> ApiResult<Value> {
    match (receiver, name) {
        // The pointer is passed to an opaque call, which only needs to
        // know which buffer it reaches: the buffer stands for it.
        (Value::Object(Object::DeclBuffer(..)), "access_ptr") => {
            let a = args.bind(
                "access_ptr",
                &[
                    "access_mask",
                    "ptr_type",
                    "content_lanes",
                    "offset",
                    "extent",
                ],
            )?;
            let mask = a.required("access_mask")?;
            match &mask.value {
                Value::Str(m) if !m.is_empty() && m.chars().all(|c| c == 'r' || c == 'w') => {}
                Value::Int(1..=3) => {}
                other => {
                    return Err(type_error(
                        mask.place(),
                        format!(
                            "`access_ptr` takes \"r\", \"w\" or \"rw\", found {}",
                            crate::repr(other)
                        ),
                    ))
                }
            }
            // An offset or extent into it changes no bound either: an
            // extern operation's buffers are whole, and a tensor
            // intrinsic's call runs the intrinsic's own computation.
            for p in ["offset", "extent"] {
                if let Some(g) = a.get(p).filter(|g| !matches!(g.value, Value::None)) {
                    crate::objects::to_index(g)?;
                }
            }
            Ok(receiver.clone())
        }
        _ => Err(type_error(
            None,
            format!("a {} has no method `{name}`", receiver.type_name()),
        )),
    }
}

/// An attribute of an opaque call (TVM's `Call`): `.args`, the function's
/// name first for a packed or extern call (a `StringImm`, as TVM passes
/// it), then the buffers and values; `.op`, the called function's name.
pub(crate) fn call_attribute(c: &OpaqueCall, name: &str) -> Option<Value> {
    Some(match name {
        "args" => {
            let mut out = Vec::new();
            if !matches!(c.convention, tir::CallConvention::Intrin) {
                out.push(Value::Object(Object::StringImm(Rc::from(c.func.as_str()))));
            }
            for a in &c.args {
                out.push(match a {
                    CallArg::Buffer(b) => Value::Object(Object::Buffer(b.clone())),
                    CallArg::Str(s) => Value::Object(Object::StringImm(Rc::from(s.as_str()))),
                    CallArg::Value(tir::Value::Index(e)) => Value::Index(e.clone()),
                    CallArg::Value(tir::Value::Int(i, _)) => Value::Int(*i),
                    CallArg::Value(tir::Value::Float(f, _)) => Value::Float(*f),
                    CallArg::Value(other) => Value::str(&other.to_string()),
                });
            }
            Value::list(out)
        }
        "op" => Value::str(match c.convention {
            tir::CallConvention::Packed => "tir.tvm_call_packed",
            tir::CallConvention::Extern(_) => "tir.call_extern",
            tir::CallConvention::Intrin => c.func.as_str(),
        }),
        _ => return None,
    })
}
