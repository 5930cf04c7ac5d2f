//! Name resolution for parsed text.

use crate::expr::Var;

/// The variables that text refers to, by name. Parsing a name that the scope
/// does not hold yet adds a fresh variable, so every occurrence of a name in
/// one scope is the same [`Var`].
#[derive(Clone, Debug, Default)]
pub struct Scope {
    vars: Vec<Var>,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Scope {
        Scope::default()
    }

    /// The variable called `name`, if the scope holds one.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name() == name)
    }

    /// The variable called `name`, created if needed.
    pub fn get_or_create(&mut self, name: &str) -> Var {
        if let Some(v) = self.get(name) {
            return v.clone();
        }
        let v = Var::new(name);
        self.vars.push(v.clone());
        v
    }

    /// Adds an existing variable under its own name (replacing a previous
    /// variable of that name).
    pub fn insert(&mut self, var: Var) {
        self.vars.retain(|v| v.name() != var.name());
        self.vars.push(var);
    }

    /// Every variable, in order of creation.
    pub fn vars(&self) -> &[Var] {
        &self.vars
    }
}
