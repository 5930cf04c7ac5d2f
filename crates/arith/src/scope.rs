//! Name resolution for parsed text.

use crate::expr::{Expr, Var};
use std::collections::HashMap;

/// The variables that text refers to, by name. Parsing a name that the scope
/// does not hold yet adds a fresh variable, so every occurrence of a name in
/// one scope is the same [`Var`].
///
/// A scope also keeps each variable's expression node, so that every
/// occurrence parsed in it shares one node instead of allocating its own.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    vars: Vec<Var>,
    /// `nodes[i]` is `vars[i]` as an expression.
    nodes: Vec<Expr>,
    /// Positions by name, built once the scope outgrows a short list
    /// searched in order (most texts have one to three names).
    index: HashMap<Box<str>, usize>,
}

/// Scopes up to this many names are searched in order.
const FEW: usize = 16;

impl Scope {
    /// An empty scope.
    pub fn new() -> Scope {
        Scope::default()
    }

    fn position(&self, name: &str) -> Option<usize> {
        if self.vars.len() <= FEW {
            self.vars.iter().position(|v| v.name() == name)
        } else {
            self.index.get(name).copied()
        }
    }

    fn push(&mut self, var: Var) -> usize {
        let at = self.vars.len();
        self.nodes.push(Expr::var(var.clone()));
        self.vars.push(var);
        if self.vars.len() == FEW + 1 {
            self.rebuild_index();
        } else if self.vars.len() > FEW + 1 {
            self.index.insert(self.vars[at].name().into(), at);
        }
        at
    }

    fn rebuild_index(&mut self) {
        self.index.clear();
        if self.vars.len() > FEW {
            for (i, v) in self.vars.iter().enumerate() {
                self.index.insert(v.name().into(), i);
            }
        }
    }

    /// The variable called `name`, if the scope holds one.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.position(name).map(|i| &self.vars[i])
    }

    /// The variable called `name`, created if needed.
    pub fn get_or_create(&mut self, name: &str) -> Var {
        let at = self.position_or_create(name);
        self.vars[at].clone()
    }

    /// The variable called `name` as an expression (created if needed):
    /// one shared node per variable.
    pub(crate) fn var_expr(&mut self, name: &str) -> &Expr {
        let at = self.position_or_create(name);
        &self.nodes[at]
    }

    fn position_or_create(&mut self, name: &str) -> usize {
        match self.position(name) {
            Some(i) => i,
            None => self.push(Var::new(name)),
        }
    }

    /// Adds an existing variable under its own name (replacing a previous
    /// variable of that name).
    pub fn insert(&mut self, var: Var) {
        if let Some(i) = self.position(var.name()) {
            self.vars.remove(i);
            self.nodes.remove(i);
            self.rebuild_index();
        }
        self.push(var);
    }

    /// Every variable, in order of creation.
    pub fn vars(&self) -> &[Var] {
        &self.vars
    }
}
