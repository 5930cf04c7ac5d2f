//! `tvm.ir.save_json(obj)` and `tvm.ir.load_json(text)` of tensors,
//! operations and schedules ([`te::save_json`]), and the document
//! pickling uses: TVM pickles its objects through `save_json`.

use crate::args::Args;
use crate::error::{te_error, type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use std::cell::RefCell;
use std::rc::Rc;
use te::JsonObject;

/// The document `save_json` writes for `v`; a value it cannot describe is
/// a `TypeError` that says what can be saved.
pub fn save_json_text(v: &Value) -> ApiResult<String> {
    let obj = match v {
        Value::Object(Object::Tensor(t)) => JsonObject::Tensor(t.clone()),
        Value::Object(Object::Op(op)) => JsonObject::Operation(op.clone()),
        Value::Object(Object::Schedule(s)) => JsonObject::Schedule(Box::new(s.borrow().clone())),
        other => {
            return Err(ApiError::type_error(format!(
                "cannot save a value of type `{}` as JSON: rangefinder saves tensors, operations and schedules",
                other.type_name()
            )))
        }
    };
    te::save_json(&obj).map_err(ApiError::te)
}

/// `tvm.ir.save_json(node)`.
pub(crate) fn save_json(args: Args) -> ApiResult<Value> {
    let a = args.bind("save_json", &["node"])?;
    let node = a.required("node")?;
    save_json_text(&node.value)
        .map(|text| Value::str(&text))
        .map_err(|e| ApiError {
            arg: node.place(),
            ..e
        })
}

/// The tensor, operation or schedule a [`save_json_text`] document
/// describes, fresh.
pub fn load_json_text(text: &str) -> ApiResult<Value> {
    load(text, None)
}

/// `tvm.ir.load_json(json_str)`: a fresh tensor, operation or schedule.
pub(crate) fn load_json(args: Args) -> ApiResult<Value> {
    let a = args.bind("load_json", &["json_str"])?;
    let text = a.required("json_str")?;
    let Value::Str(s) = &text.value else {
        return Err(type_error(
            text.place(),
            format!(
                "`load_json` reads the string `save_json` returned, not a {}",
                text.value.type_name()
            ),
        ));
    };
    load(s, text.place())
}

fn load(text: &str, at: crate::error::At) -> ApiResult<Value> {
    let loaded = te::load_json(text).map_err(|e| {
        let malformed = matches!(e.kind, te::ErrorKind::InvalidDefinition);
        let mut err = te_error(&at, e);
        if malformed {
            err.class = ErrorClass::ValueError;
        }
        err
    })?;
    Ok(Value::Object(match loaded {
        JsonObject::Tensor(t) => Object::Tensor(t),
        JsonObject::Operation(op) => Object::Op(op),
        JsonObject::Schedule(s) => Object::Schedule(Rc::new(RefCell::new(*s))),
        JsonObject::Function { .. } => {
            return Err(ApiError::new(
                ErrorClass::ValueError,
                "the document describes a built function: load the module saved with it \
                 with `tvm.runtime.load_module(path)`",
            ))
        }
    }))
}
