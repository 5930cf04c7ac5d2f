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
    /// Names a `global` or `nonlocal` statement bound to an outer scope:
    /// assigning them assigns there.
    outer: RefCell<HashMap<String, Rc<Scope>>>,
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
            outer: RefCell::default(),
        })
    }

    /// The value of `name`, looked up from this scope outwards.
    pub fn get(&self, name: &str) -> Option<Value> {
        if let Some(target) = self.outer.borrow().get(name) {
            return target.get(name);
        }
        if let Some(v) = self.names.borrow().get(name) {
            return Some(v.clone());
        }
        self.parent.as_ref().and_then(|p| p.get(name))
    }

    /// Binds `name` in this scope (Python assignment is local unless the
    /// name was declared `global` or `nonlocal`).
    pub fn set(&self, name: &str, value: Value) {
        if let Some(target) = self.outer.borrow().get(name).cloned() {
            return target.set(name, value);
        }
        let old = self.names.borrow_mut().insert(name.to_owned(), value);
        if let Some(old) = old {
            crate::collections::dismantle(old);
        }
    }

    /// The names bound in this scope itself, with their values.
    pub fn bindings(&self) -> HashMap<String, Value> {
        self.names.borrow().clone()
    }

    /// Unbinds `name` (`del name`); whether it was bound here.
    pub fn remove(&self, name: &str) -> bool {
        if let Some(target) = self.outer.borrow().get(name).cloned() {
            return target.remove(name);
        }
        self.names.borrow_mut().remove(name).is_some()
    }

    /// `global name`: assignments to `name` here go to the module scope.
    pub fn declare_global(&self, name: &str) {
        let mut root = match &self.parent {
            Some(p) => p.clone(),
            // At module level `global` changes nothing.
            None => return,
        };
        while let Some(p) = root.parent.clone() {
            root = p;
        }
        self.outer.borrow_mut().insert(name.to_owned(), root);
    }

    /// `nonlocal name`: assignments to `name` here go to the nearest
    /// enclosing function scope that binds it; `false` when none does.
    pub fn declare_nonlocal(&self, name: &str) -> bool {
        let mut at = self.parent.clone();
        while let Some(s) = at {
            // The module scope is not an enclosing function scope.
            if s.parent.is_none() {
                return false;
            }
            if s.names.borrow().contains_key(name) {
                self.outer.borrow_mut().insert(name.to_owned(), s);
                return true;
            }
            at = s.parent.clone();
        }
        false
    }
}

impl Drop for Scope {
    /// The values die with a work list, however deeply they nest.
    fn drop(&mut self) {
        for (_, v) in self.names.get_mut().drain() {
            crate::collections::dismantle(v);
        }
    }
}
