//! `@tvm.target.generic_func`: a function with implementations per target
//! key. TOPI declares layout inference and legalization hooks this way
//! (`nn.depthwise_conv2d_infer_layout`) and its x86 and CUDA modules
//! register theirs at their top (`@...infer_layout.register("cpu")`).
//! A call runs the implementation of the first key of the current target
//! that has one, else the default.

use crate::args::Args;
use crate::error::{ApiError, ApiResult};
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use std::cell::RefCell;
use std::rc::Rc;

/// A generic function: its default and its implementations by key.
pub struct GenericFunc {
    default: Value,
    registry: RefCell<Vec<(String, Value)>>,
}

/// `tvm.target.generic_func(fdefault)`.
pub(crate) fn new(args: Args) -> ApiResult<Value> {
    let a = args.bind("generic_func", &["fdefault"])?;
    Ok(Value::Object(Object::GenericFunc(Rc::new(GenericFunc {
        default: a.required("fdefault")?.value.clone(),
        registry: RefCell::new(Vec::new()),
    }))))
}

/// `generic.name`: `register`, or `fdefault`.
pub(crate) fn attribute(g: &Rc<GenericFunc>, value: &Value, name: &str) -> ApiResult<Value> {
    match name {
        "register" => Ok(Value::Method(Rc::new(value.clone()), "register")),
        "fdefault" => Ok(g.default.clone()),
        _ => Err(ApiError::attribute_error(format!(
            "a generic function has no attribute `{name}` that rangefinder supports (it has \
             .register and .fdefault)"
        ))),
    }
}

/// `generic.register(key, func=None, override=False)`: registers `func`
/// for the key (or each key of a list) and returns it; without `func`, a
/// decorator that does.
pub(crate) fn register(g: &Rc<GenericFunc>, args: Args) -> ApiResult<Value> {
    let a = args.bind("register", &["key", "func", "override"])?;
    let k = a.required("key")?;
    let keys: Vec<String> = match &k.value {
        Value::Str(s) => vec![s.to_string()],
        other => other
            .sequence()
            .unwrap_or_default()
            .iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s.to_string()),
                other => Err(ApiError::type_error(format!(
                    "a target key is a string, found {other}"
                ))),
            })
            .collect::<ApiResult<_>>()?,
    };
    let overriding = match a.get("override") {
        Some(o) => crate::operators::truth(&o.value)?,
        None => false,
    };
    let registrar = Rc::new(Registrar {
        func: g.clone(),
        keys,
        overriding,
    });
    match a.get("func") {
        Some(f) if !matches!(f.value, Value::None) => registrar.apply(f.value.clone()),
        _ => Ok(Value::Object(Object::GenericRegistrar(registrar))),
    }
}

/// The decorator `generic.register(key)` returns.
pub struct Registrar {
    func: Rc<GenericFunc>,
    keys: Vec<String>,
    overriding: bool,
}

impl Registrar {
    /// Registers `f` for the keys and returns it, as TVM's decorator does.
    pub(crate) fn apply(&self, f: Value) -> ApiResult<Value> {
        if matches!(
            f,
            Value::Object(Object::GenericFunc(_) | Object::GenericRegistrar(_))
        ) {
            // A generic function registered in one would call itself
            // without end.
            return Err(ApiError::type_error(
                "an implementation of a generic function must be a function, not a generic \
                 function",
            ));
        }
        let mut registry = self.func.registry.borrow_mut();
        for key in &self.keys {
            match registry.iter_mut().find(|(k, _)| k == key) {
                Some(_) if !self.overriding => {
                    return Err(ApiError::value_error(format!(
                        "Key is already registered for {key}"
                    )))
                }
                Some(entry) => entry.1 = f.clone(),
                None => registry.push((key.clone(), f.clone())),
            }
        }
        Ok(f)
    }
}

/// Calls the generic function: the implementation of the first key of
/// the current target that has one, else the default.
pub(crate) fn call(host: &mut dyn Host, g: &GenericFunc, args: Args) -> ApiResult<Value> {
    let keys: Vec<String> = host
        .session()
        .targets
        .last()
        .map(|t| t.keys.clone())
        .unwrap_or_default();
    let chosen = {
        let registry = g.registry.borrow();
        keys.iter()
            .find_map(|k| {
                registry
                    .iter()
                    .find(|(r, _)| r == k)
                    .map(|(_, f)| f.clone())
            })
            .unwrap_or_else(|| g.default.clone())
    };
    host.call_args(&chosen, args)
}
