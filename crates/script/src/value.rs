//! Values of the Python subset: Python's own (numbers, strings, tuples,
//! lists, functions, modules) and the TE objects a script builds.

use crate::function::Function;
use crate::native::{ErrorClass, Native};
use crate::objects::TeObject;
use crate::pyformat;
use arith::Expr;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// A value a script computes.
///
/// Integers are Python integers limited to 64 bits (overflow is an error);
/// [`Value::Index`] is a symbolic integer or condition, TVM's `PrimExpr`
/// (a `te.var`, a loop variable in a lambda, or arithmetic on them).
#[derive(Clone)]
pub(crate) enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    Tuple(Rc<[Value]>),
    /// Lists are shared and mutable, as in Python (`conditions.append(...)`).
    List(Rc<RefCell<Vec<Value>>>),
    /// A dict literal; scripts use them as substitution maps.
    Dict(Rc<[(Value, Value)]>),
    Index(Expr),
    Function(Rc<Function>),
    Native(Native),
    /// A module or namespace such as `tvm`, `tvm.te` or `tvm.tir`, by its
    /// dotted path.
    Module(&'static str),
    /// `receiver.name`, waiting to be called.
    Method(Rc<Value>, &'static str),
    /// `pytest.raises(E)`: a `with` context that expects the error `E`.
    ExpectError(ErrorClass),
    Te(TeObject),
    /// A dict the script builds and changes (`d[k] = v`, `d.update(...)`),
    /// keys in insertion order; TVM functions receive it as a
    /// [`Value::Dict`] snapshot.
    MutableDict(Rc<RefCell<Vec<(Value, Value)>>>),
    /// A set, items in insertion order.
    Set(Rc<RefCell<Vec<Value>>>),
    /// An exception object (`ValueError("...")`): its class and message.
    Exception(ErrorClass, Rc<str>),
}

impl Value {
    /// The Python-facing type name, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
            Value::Index(e) if e.ty() == arith::Type::Bool => "condition",
            Value::Index(_) => "PrimExpr",
            Value::Function(_) => "function",
            Value::Native(_) | Value::Method(..) => "builtin function",
            Value::ExpectError(_) => "pytest.raises context",
            Value::Module(_) => "module",
            Value::Te(o) => o.type_name(),
            Value::MutableDict(_) => "dict",
            Value::Set(_) => "set",
            Value::Exception(class, _) => class.name(),
        }
    }

    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::from(items))
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    /// The items of a tuple or list (a snapshot for lists).
    pub fn sequence(&self) -> Option<Vec<Value>> {
        match self {
            Value::Tuple(t) => Some(t.to_vec()),
            Value::List(l) => Some(l.borrow().clone()),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    /// What `print` shows: Python's `str()` of the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => f.write_str(&pyformat::float_repr(*v)),
            Value::Str(s) => f.write_str(s),
            Value::Tuple(items) => guarded(f, items.as_ptr() as usize, "(...)", |f| {
                f.write_str("(")?;
                write_items(f, items)?;
                f.write_str(if items.len() == 1 { ",)" } else { ")" })
            }),
            Value::List(items) => guarded(f, Rc::as_ptr(items) as usize, "[...]", |f| {
                f.write_str("[")?;
                write_items(f, &items.borrow())?;
                f.write_str("]")
            }),
            Value::Dict(pairs) => {
                f.write_str("{")?;
                for (i, (k, v)) in pairs.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{}: {}", pyformat::repr(k), pyformat::repr(v))?;
                }
                f.write_str("}")
            }
            Value::Index(e) => write!(f, "{e}"),
            Value::Function(func) => write!(f, "<function {}>", func.name),
            Value::Native(n) => match crate::builtins::class_name(*n) {
                Some(class) => write!(f, "<class '{class}'>"),
                None => write!(f, "<built-in function {}>", n.name()),
            },
            Value::Module(path) => write!(f, "<module '{path}'>"),
            Value::Method(_, name) => write!(f, "<bound method {name}>"),
            Value::ExpectError(class) => write!(f, "<pytest.raises({})>", class.name()),
            Value::Te(o) => write!(f, "{o}"),
            Value::MutableDict(pairs) => guarded(f, Rc::as_ptr(pairs) as usize, "{...}", |f| {
                f.write_str("{")?;
                for (i, (k, v)) in pairs.borrow().iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{}: {}", pyformat::repr(k), pyformat::repr(v))?;
                }
                f.write_str("}")
            }),
            Value::Set(items) if items.borrow().is_empty() => f.write_str("set()"),
            Value::Set(items) => guarded(f, Rc::as_ptr(items) as usize, "{...}", |f| {
                f.write_str("{")?;
                write_items(f, &items.borrow())?;
                f.write_str("}")
            }),
            Value::Exception(_, message) => f.write_str(message),
        }
    }
}

/// How deep nested containers are written before `...` stands for the rest
/// (CPython raises `RecursionError` near 1,000).
const MAX_SHOWN_DEPTH: usize = 500;

thread_local! {
    /// The containers being written now, innermost last.
    static SHOWING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Writes a container with `show`, or `ellipsis` when the container is
/// already being written (a list that contains itself prints as `[[...]]`,
/// as in Python).
fn guarded(
    f: &mut fmt::Formatter<'_>,
    id: usize,
    ellipsis: &str,
    show: impl FnOnce(&mut fmt::Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    // Nesting deeper than Python's recursion limit is cut short too: the
    // walk must not exhaust the stack.
    if SHOWING.with(|s| s.borrow().len() >= MAX_SHOWN_DEPTH || s.borrow().contains(&id)) {
        return f.write_str(ellipsis);
    }
    SHOWING.with(|s| s.borrow_mut().push(id));
    let result = show(f);
    SHOWING.with(|s| s.borrow_mut().pop());
    result
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Value]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str(&pyformat::repr(item))?;
    }
    Ok(())
}
