//! `tvm.transform.PassContext`: the options TVM's lowering passes run
//! with (`opt_level`, `config`, `disabled_pass`). They choose how code is
//! generated, not which elements a stage computes or reads, so they are
//! kept (a program can read them back) and change no bound.

use crate::args::Args;
use crate::error::{type_error, ApiResult};
use crate::host::Host;
use crate::object::Object;
use crate::value::Value;
use std::rc::Rc;

/// A pass context: the options given to it.
#[derive(Debug)]
pub struct PassContext {
    /// `opt_level=` (TVM's default is 2).
    pub opt_level: i64,
    /// `config=`: pass options by name.
    pub config: Value,
    /// `required_pass=`: the names of passes to run whatever the level.
    pub required_pass: Value,
    /// `disabled_pass=`: the names of passes not to run.
    pub disabled_pass: Value,
}

/// `tvm.transform.PassContext(opt_level=2, required_pass=None,
/// disabled_pass=None, instruments=None, config=None)`.
pub(crate) fn new(args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "PassContext",
        &[
            "opt_level",
            "required_pass",
            "disabled_pass",
            "instruments",
            "config",
        ],
    )?;
    let opt_level = match a.get("opt_level") {
        None => 2,
        Some(g) => crate::operators::as_int(&g.value).ok_or_else(|| {
            type_error(
                g.place(),
                format!(
                    "`opt_level` takes an integer, found a {}",
                    g.value.type_name()
                ),
            )
        })?,
    };
    let list = |name: &str| -> ApiResult<Value> {
        match a.get(name) {
            None => Ok(Value::list(Vec::new())),
            Some(g) if matches!(g.value, Value::None) => Ok(Value::list(Vec::new())),
            Some(g) => match g.value.sequence() {
                Some(items) => Ok(Value::list(items)),
                None => Err(type_error(
                    g.place(),
                    format!(
                        "`{name}` takes a list of pass names, found a {}",
                        g.value.type_name()
                    ),
                )),
            },
        }
    };
    let config = match a.get("config") {
        None => Value::Dict(Rc::from(Vec::new())),
        Some(g) => match &g.value {
            Value::None => Value::Dict(Rc::from(Vec::new())),
            Value::Dict(_) => g.value.clone(),
            Value::MutableDict(d) => Value::Dict(Rc::from(d.borrow().clone())),
            other => {
                return Err(type_error(
                    g.place(),
                    format!(
                        "`config` takes a dict of options, found a {}",
                        other.type_name()
                    ),
                ))
            }
        },
    };
    Ok(Value::Object(Object::PassContext(Rc::new(PassContext {
        opt_level,
        config,
        required_pass: list("required_pass")?,
        disabled_pass: list("disabled_pass")?,
    }))))
}

/// `PassContext.current()`: the innermost context entered, or the default
/// one (`opt_level=2`, nothing configured).
pub(crate) fn current(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    args.bind("current", &[])?;
    Ok(match host.session().pass_contexts.last() {
        Some(c) => Value::Object(Object::PassContext(c.clone())),
        None => new(Args::default())?,
    })
}

/// An attribute of a pass context.
pub(crate) fn attribute(c: &PassContext, name: &str) -> Option<Value> {
    Some(match name {
        "opt_level" => Value::Int(c.opt_level),
        "config" => c.config.clone(),
        "required_pass" => c.required_pass.clone(),
        "disabled_pass" => c.disabled_pass.clone(),
        _ => return None,
    })
}

/// Whether the innermost pass context entered sets the option `key` to a
/// true value (`config={"te.keep_schedule_record": True}`).
pub(crate) fn option_set(host: &mut dyn Host, key: &str) -> bool {
    let Some(c) = host.session().pass_contexts.last().cloned() else {
        return false;
    };
    let pairs: Vec<(Value, Value)> = match &c.config {
        Value::Dict(pairs) => pairs.to_vec(),
        Value::MutableDict(pairs) => pairs.borrow().clone(),
        _ => return false,
    };
    pairs
        .iter()
        .any(|(k, v)| matches!(k, Value::Str(s) if &**s == key) && crate::truth(v).unwrap_or(false))
}
