//! The values the API takes and returns: Python's own (numbers, strings,
//! tuples, lists, dicts), TVM's objects, API functions, and values of the
//! front end that the API carries without understanding them.

use crate::error::ErrorClass;
use crate::function::Function;
use crate::object::Object;
use crate::text::float_repr;
use arith::Expr;
use std::any::Any;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// A value of the API, and the value type of the script interpreter.
///
/// Integers are Python integers limited to 64 bits (overflow is an error);
/// [`Value::Index`] is a symbolic integer or condition, TVM's `PrimExpr`
/// (a `te.var`, a loop variable in a lambda, or arithmetic on them).
#[derive(Clone)]
pub enum Value {
    /// Python's `None`.
    None,
    /// A Python bool.
    Bool(bool),
    /// A Python int, limited to 64 bits.
    Int(i64),
    /// A Python float.
    Float(f64),
    /// A Python str.
    Str(Rc<str>),
    /// A Python tuple.
    Tuple(Rc<[Value]>),
    /// A Python list: shared and mutable, as in Python
    /// (`conditions.append(...)`).
    List(Rc<RefCell<Vec<Value>>>),
    /// A Python dict, in insertion order; scripts use them as substitution
    /// maps.
    Dict(Rc<[(Value, Value)]>),
    /// A `PrimExpr`: a symbolic integer or condition.
    Index(Expr),
    /// A TVM object: tensor, operation, schedule, namespace, class...
    Object(Object),
    /// An API function such as `te.compute`.
    Function(Function),
    /// `receiver.name`, waiting to be called.
    Method(Rc<Value>, &'static str),
    /// A value of the front end (an interpreter function, a Python object)
    /// that the API carries and hands back through [`crate::Host`].
    Host(Rc<dyn HostValue>),
    /// A dict a program builds and changes (`d[k] = v`, `d.update(...)`),
    /// keys in insertion order. API functions take dicts as the snapshot
    /// [`Value::Dict`] (TVM converts dicts to its immutable `Map`); a front
    /// end hands them over so.
    MutableDict(Rc<RefCell<Vec<(Value, Value)>>>),
    /// A Python set, items in insertion order.
    Set(Rc<RefCell<Vec<Value>>>),
    /// A Python exception object (`ValueError("...")`): its class and
    /// message.
    Exception(ErrorClass, Rc<str>),
}

/// A front-end value carried by [`Value::Host`].
pub trait HostValue: Any {
    /// The Python-facing type name, for error messages.
    fn type_name(&self) -> &'static str;
    /// Python's `str()` of the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// The value as [`Any`], for the front end to downcast its own values.
    fn as_any(&self) -> &dyn Any;
    /// Python `==` with another front-end value; by default, identity.
    fn same_as(&self, other: &dyn HostValue) -> bool {
        std::ptr::addr_eq(self as *const Self, other as *const dyn HostValue)
    }
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
            Value::Function(_) | Value::Method(..) => "builtin function",
            Value::Object(o) => o.type_name(),
            Value::Host(h) => h.type_name(),
            Value::MutableDict(_) => "dict",
            Value::Set(_) => "set",
            Value::Exception(class, _) => class.name(),
        }
    }

    /// A Python str.
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    /// A Python tuple of `items`.
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::from(items))
    }

    /// A new Python list of `items`.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    /// A front-end value.
    pub fn host(v: impl HostValue) -> Value {
        Value::Host(Rc::new(v))
    }

    /// The front-end value of type `T`, if this is one.
    pub fn as_host<T: HostValue>(&self) -> Option<&T> {
        match self {
            Value::Host(h) => h.as_any().downcast_ref::<T>(),
            _ => None,
        }
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
            Value::Float(v) => f.write_str(&float_repr(*v)),
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
            Value::Dict(pairs) => guarded(f, pairs.as_ptr() as usize, "{...}", |f| {
                write_pairs(f, pairs)
            }),
            // A `PrimExpr` built by reusing a value (`e = te.max(e, e + 1)` in
            // a loop) shares its nodes and can stand for a tree far larger
            // than memory: past the budget it is named, not written.
            Value::Index(e) if e.node_count() > MAX_SHOWN_CHARS => write!(
                f,
                "<PrimExpr of more than {MAX_SHOWN_CHARS} nodes written out: too large to show>"
            ),
            Value::Index(e) => write!(f, "{e}"),
            Value::Function(func) => write!(f, "<built-in function {}>", func.name()),
            Value::Method(_, name) => write!(f, "<bound method {name}>"),
            Value::Object(o) => write!(f, "{o}"),
            Value::Host(h) => h.fmt(f),
            Value::MutableDict(pairs) => guarded(f, Rc::as_ptr(pairs) as usize, "{...}", |f| {
                write_pairs(f, &pairs.borrow())
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

/// How many characters of items one container writes (its nested
/// containers' included) before `...` stands for the rest, and how many
/// nodes a `PrimExpr` may have to be written: values that share items stand
/// for far more than they hold (`x = [x, x]` in a loop doubles what
/// `print(x)` writes at each step, where CPython would write until memory
/// runs out).
pub const MAX_SHOWN_CHARS: usize = 10_000_000;

thread_local! {
    /// The containers being written now, innermost last.
    static SHOWING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    /// The characters of items written since the outermost container
    /// began.
    static SHOWN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `item` as written with `text`: its text, or 2 for a container's
/// brackets, whose items count themselves.
fn count_shown(item: &Value, text: &str) {
    let cost = match item {
        Value::Tuple(_)
        | Value::List(_)
        | Value::Dict(_)
        | Value::MutableDict(_)
        | Value::Set(_) => 2,
        _ => text.len(),
    };
    SHOWN.with(|n| n.set(n.get().saturating_add(cost)));
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
    if SHOWING.with(|s| s.borrow().is_empty()) {
        SHOWN.with(|n| n.set(0));
    }
    SHOWING.with(|s| s.borrow_mut().push(id));
    let result = show(f);
    SHOWING.with(|s| s.borrow_mut().pop());
    result
}

fn write_pairs(f: &mut fmt::Formatter<'_>, pairs: &[(Value, Value)]) -> fmt::Result {
    f.write_str("{")?;
    for (i, (k, v)) in pairs.iter().enumerate() {
        let sep = if i > 0 { ", " } else { "" };
        if SHOWN.with(|n| n.get() > MAX_SHOWN_CHARS) {
            return write!(f, "{sep}...}}");
        }
        let (k_text, v_text) = (crate::repr(k), crate::repr(v));
        count_shown(k, &k_text);
        count_shown(v, &v_text);
        write!(f, "{sep}{k_text}: {v_text}")?;
    }
    f.write_str("}")
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Value]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        if SHOWN.with(|n| n.get() > MAX_SHOWN_CHARS) {
            return f.write_str("...");
        }
        let text = crate::repr(item);
        count_shown(item, &text);
        f.write_str(&text)?;
    }
    Ok(())
}

impl fmt::Debug for Value {
    /// Python's `repr()` of the value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::repr(self))
    }
}
