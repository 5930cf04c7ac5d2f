//! Operation tags and attributes: `te.tag_scope` (a context manager and a
//! decorator), the tag a compute takes from it, and `attrs=` dicts
//! converted to and from `te`'s attributes. TOPI classifies operations by
//! their tags (`tvm.topi.tag`), so schedules written for TOPI read them.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use std::rc::Rc;

/// `te.tag_scope(tag)`.
pub(crate) fn tag_scope(args: Args) -> ApiResult<Value> {
    let a = args.bind("tag_scope", &["tag"])?;
    let tag = a.required("tag")?;
    match &tag.value {
        Value::Str(s) => Ok(Value::Object(Object::TagScope(s.clone()))),
        other => Err(type_error(
            tag.place(),
            format!(
                "`tag_scope` needs a string tag, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// Enters the scope of `tag`: TVM allows one scope at a time.
pub(crate) fn enter(host: &mut dyn Host, tag: &Rc<str>) -> ApiResult<()> {
    let session = host.session();
    if session.tag_scope.is_some() {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            "nested op_tag is not allowed for now",
        ));
    }
    session.tag_scope = Some(tag.clone());
    Ok(())
}

/// Leaves the scope entered last.
pub(crate) fn exit(host: &mut dyn Host) {
    host.session().tag_scope = None;
}

/// A call of a function decorated with `@te.tag_scope(tag)`: the call runs
/// inside the scope, which is left however the call ends.
pub(crate) fn call_tagged(
    host: &mut dyn Host,
    tag: &Rc<str>,
    f: &Value,
    args: Args,
) -> ApiResult<Value> {
    enter(host, tag)?;
    let result = host.call_args(f, args);
    exit(host);
    result
}

/// The tag of a compute given `tag=` (empty when absent): the scope's tag
/// inside a `te.tag_scope`, where giving another one is an error, as in
/// TVM.
pub(crate) fn compute_tag(host: &mut dyn Host, given: Option<&Given>) -> ApiResult<String> {
    let given_tag = match given {
        None => String::new(),
        Some(g) => match &g.value {
            Value::Str(s) => s.to_string(),
            other => {
                return Err(type_error(
                    g.place(),
                    format!("`tag` must be a string, found a {}", other.type_name()),
                ))
            }
        },
    };
    match &host.session().tag_scope {
        None => Ok(given_tag),
        Some(_) if !given_tag.is_empty() => Err(ApiError::new(
            ErrorClass::ValueError,
            "nested tag is not allowed for now",
        )
        .or_at(&given.expect("a tag was given").at)),
        Some(scope) => Ok(scope.to_string()),
    }
}

/// `attrs=`: a dict from strings to numbers, strings, expressions or
/// sequences of them.
pub(crate) fn attrs(given: Option<&Given>) -> ApiResult<te::Attrs> {
    let mut out = te::Attrs::new();
    let Some(g) = given else {
        return Ok(out);
    };
    let pairs = match &g.value {
        Value::None => return Ok(out),
        Value::Dict(pairs) => pairs.clone(),
        other => {
            return Err(type_error(
                g.place(),
                format!("`attrs` must be a dict, found a {}", other.type_name()),
            ))
        }
    };
    for (k, v) in pairs.iter() {
        let Value::Str(key) = k else {
            return Err(type_error(
                g.place(),
                format!("`attrs` keys must be strings, found a {}", k.type_name()),
            ));
        };
        out.insert(key.to_string(), attr_value(v, g)?);
    }
    Ok(out)
}

fn attr_value(v: &Value, g: &Given) -> ApiResult<te::AttrValue> {
    Ok(match crate::objects::promote(v) {
        Value::Bool(b) => te::AttrValue::Int(i64::from(b)),
        Value::Int(i) => te::AttrValue::Int(i),
        Value::Float(f) => te::AttrValue::Float(f),
        Value::Str(s) => te::AttrValue::Str(s.to_string()),
        Value::Index(e) => te::AttrValue::Expr(e),
        Value::Object(Object::Tensor(t)) => te::AttrValue::Tensor(t),
        Value::Tuple(_) | Value::List(_) => te::AttrValue::List(
            v.sequence()
                .unwrap_or_default()
                .iter()
                .map(|item| attr_value(item, g))
                .collect::<ApiResult<Vec<_>>>()?,
        ),
        other => {
            return Err(type_error(
                g.place(),
                format!(
                "an `attrs` value must be a number, string, expression, tensor or a list of them, \
                     found a {}",
                other.type_name()
            ),
            ))
        }
    })
}

/// `op.attrs`: TVM's `Map` of the attributes, as a dict.
pub(crate) fn attrs_value(attrs: &te::Attrs) -> Value {
    Value::Dict(Rc::from(
        attrs
            .iter()
            .map(|(k, v)| (Value::str(k), value_of(v)))
            .collect::<Vec<_>>(),
    ))
}

fn value_of(v: &te::AttrValue) -> Value {
    match v {
        te::AttrValue::Int(i) => Value::Int(*i),
        te::AttrValue::Float(f) => Value::Float(*f),
        te::AttrValue::Str(s) => Value::str(s),
        te::AttrValue::None => Value::None,
        te::AttrValue::Expr(e) => Value::Index(e.clone()),
        te::AttrValue::Tensor(t) => Value::Object(Object::Tensor(t.clone())),
        te::AttrValue::List(items) => Value::list(items.iter().map(value_of).collect()),
    }
}
