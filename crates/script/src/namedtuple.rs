//! `collections.namedtuple`: TOPI describes convolution workloads with
//! them (`Workload(...)`, then `wkl.height`).
//!
//! An instance is a plain tuple, so every tuple operation (indexing,
//! unpacking, `len`, `==`, dict keys) and TVM's API take it as one, as
//! Python does; [`Instances`] remembers which tuples are instances of
//! which type, by the tuple's address, and keeps each one alive so the
//! address is never reused. What sets an instance apart is what Python's
//! namedtuple adds: its fields as attributes and its `repr`-less type.

use crate::args::Args;
use crate::error::{Eval, Raised};
use crate::value::{script_value, ScriptValue, Value};
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::ErrorClass;

/// A type `namedtuple(typename, field_names)` declared.
pub(crate) struct NamedTupleType {
    /// The type's name.
    pub name: String,
    /// Its fields, in order.
    pub fields: Vec<String>,
    /// The defaults of the last fields (`defaults=`).
    pub defaults: Vec<Value>,
}

/// The namedtuple instances made so far, by their tuple's address.
#[derive(Default)]
pub(crate) struct Instances(HashMap<usize, (Rc<[Value]>, Rc<NamedTupleType>)>);

impl Instances {
    /// The type of `value` when it is an instance.
    pub fn type_of(&self, value: &Value) -> Option<&Rc<NamedTupleType>> {
        match value {
            Value::Tuple(items) => self.0.get(&address(items)).map(|(_, ty)| ty),
            _ => None,
        }
    }

    /// A new instance of `ty` from the arguments of a call of the type.
    pub fn make(&mut self, ty: &Rc<NamedTupleType>, args: Args) -> Eval<Value> {
        let items: Rc<[Value]> = Rc::from(bind(ty, args)?);
        self.0.insert(address(&items), (items.clone(), ty.clone()));
        Ok(Value::Tuple(items))
    }

    /// `instance.name`: a field, or the type's `_fields`; `None` when the
    /// value is not an instance.
    pub fn attribute(&self, value: &Value, name: &str, span: Range<usize>) -> Option<Eval<Value>> {
        let ty = self.type_of(value)?;
        let Value::Tuple(items) = value else {
            return None;
        };
        Some(match ty.fields.iter().position(|f| f == name) {
            Some(i) => Ok(items[i].clone()),
            None if name == "_fields" => Ok(fields(ty)),
            None => Err(Raised::python(
                ErrorClass::AttributeError,
                span,
                format!("'{}' object has no attribute '{name}'", ty.name),
            )),
        })
    }
}

impl Instances {
    /// Python's `repr` of an instance, `W(a=1, b=2)`.
    pub fn repr(&self, value: &Value) -> Option<String> {
        let ty = self.type_of(value)?;
        let Value::Tuple(items) = value else {
            return None;
        };
        let fields: Vec<String> = ty
            .fields
            .iter()
            .zip(items.iter())
            .map(|(f, v)| format!("{f}={}", crate::pyformat::repr(v)))
            .collect();
        Some(format!("{}({})", ty.name, fields.join(", ")))
    }
}

fn address(items: &Rc<[Value]>) -> usize {
    Rc::as_ptr(items) as *const Value as usize
}

/// `namedtuple(typename, field_names, *, rename=False, defaults=None,
/// module=None)`: the type. Field names come as a list of strings or one
/// string separated by spaces or commas, as in Python.
pub(crate) fn declare(args: Args) -> Eval<Value> {
    let a = args.bind(
        "namedtuple",
        &["typename", "field_names", "rename", "defaults", "module"],
    )?;
    let name = match &a.required("typename")?.value {
        Value::Str(s) => s.to_string(),
        other => return Err(type_error(a.span.clone(), other)),
    };
    let given = a.required("field_names")?;
    let fields: Vec<String> = match &given.value {
        Value::Str(s) => s
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .map(str::to_owned)
            .collect(),
        other => {
            let items = crate::collections::iterate_or_raise(other, given.span.clone())?;
            items
                .into_iter()
                .map(|v| match v {
                    Value::Str(s) => Ok(s.to_string()),
                    other => Err(type_error(given.span.clone(), &other)),
                })
                .collect::<Eval<_>>()?
        }
    };
    for (i, f) in fields.iter().enumerate() {
        let ok = f.chars().next().is_some_and(|c| c.is_alphabetic())
            && f.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !ok || fields[..i].contains(f) {
            return Err(Raised::python(
                ErrorClass::ValueError,
                given.span.clone(),
                format!("Type names and field names must be valid identifiers and unique: {f:?}"),
            ));
        }
    }
    let defaults = match a.get("defaults").map(|d| &d.value) {
        None | Some(Value::None) => Vec::new(),
        Some(d) => crate::collections::iterate_or_raise(d, a.span.clone())?,
    };
    if defaults.len() > fields.len() {
        return Err(Raised::python(
            ErrorClass::TypeError,
            a.span.clone(),
            "Got more default values than field names",
        ));
    }
    Ok(Value::host(ScriptValue::NamedTupleType(Rc::new(
        NamedTupleType {
            name,
            fields,
            defaults,
        },
    ))))
}

/// The type named by `value`, when it is a namedtuple type.
pub(crate) fn as_type(value: &Value) -> Option<&Rc<NamedTupleType>> {
    match script_value(value) {
        Some(ScriptValue::NamedTupleType(ty)) => Some(ty),
        _ => None,
    }
}

/// `Type._fields`.
pub(crate) fn fields(ty: &NamedTupleType) -> Value {
    Value::tuple(ty.fields.iter().map(|f| Value::str(f)).collect())
}

/// The items of an instance made by calling `ty`: positionals, then
/// keywords by field name, then defaults, with Python's messages.
fn bind(ty: &NamedTupleType, args: Args) -> Eval<Vec<Value>> {
    let n = ty.fields.len();
    let call = format!("{}.__new__()", ty.name);
    if args.positional.len() > n {
        return Err(Raised::python(
            ErrorClass::TypeError,
            args.span,
            format!(
                "{call} takes {} positional arguments but {} were given",
                if ty.defaults.is_empty() {
                    (n + 1).to_string()
                } else {
                    format!("from {} to {}", n - ty.defaults.len() + 1, n + 1)
                },
                args.positional.len() + 1
            ),
        ));
    }
    let mut slots: Vec<Option<Value>> = vec![None; n];
    for (slot, a) in slots.iter_mut().zip(args.positional) {
        *slot = Some(a.value);
    }
    for (name, a) in args.keywords {
        let Some(i) = ty.fields.iter().position(|f| *f == name) else {
            return Err(Raised::python(
                ErrorClass::TypeError,
                a.span,
                format!("{call} got an unexpected keyword argument '{name}'"),
            ));
        };
        if slots[i].is_some() {
            return Err(Raised::python(
                ErrorClass::TypeError,
                a.span,
                format!("{call} got multiple values for argument '{name}'"),
            ));
        }
        slots[i] = Some(a.value);
    }
    let first_default = n - ty.defaults.len();
    let mut missing = Vec::new();
    let items = slots
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            v.or_else(|| (i >= first_default).then(|| ty.defaults[i - first_default].clone()))
                .unwrap_or_else(|| {
                    missing.push(format!("'{}'", ty.fields[i]));
                    Value::None
                })
        })
        .collect();
    if !missing.is_empty() {
        return Err(Raised::python(
            ErrorClass::TypeError,
            args.span,
            format!(
                "{call} missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                missing.join(" and ")
            ),
        ));
    }
    Ok(items)
}

fn type_error(span: Range<usize>, found: &Value) -> Raised {
    Raised::python(
        ErrorClass::TypeError,
        span,
        format!(
            "namedtuple takes strings for its type and field names, not a {}",
            found.type_name()
        ),
    )
}
