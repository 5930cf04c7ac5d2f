//! Name bindings: one scope per module or function call, chained to the
//! scope the function was defined in (so lambdas see the names around them).

use crate::value::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The names bound in one module or function call.
#[derive(Default)]
pub(crate) struct Scope {
    names: RefCell<HashMap<String, Value>>,
    parent: Option<Rc<Scope>>,
}

impl Scope {
    /// The module scope.
    pub fn global() -> Rc<Scope> {
        Rc::new(Scope::default())
    }

    /// A fresh scope for a call of a function defined in `parent`.
    pub fn child(parent: &Rc<Scope>) -> Rc<Scope> {
        Rc::new(Scope {
            names: RefCell::default(),
            parent: Some(parent.clone()),
        })
    }

    /// The value of `name`, looked up from this scope outwards.
    pub fn get(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.names.borrow().get(name) {
            return Some(v.clone());
        }
        self.parent.as_ref().and_then(|p| p.get(name))
    }

    /// Binds `name` in this scope (Python assignment is always local).
    pub fn set(&self, name: &str, value: Value) {
        self.names.borrow_mut().insert(name.to_owned(), value);
    }
}
