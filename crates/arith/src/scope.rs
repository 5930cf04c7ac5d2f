//! Name resolution for parsed text.

use crate::expr::{Expr, Var};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
    index: HashMap<Box<str>, usize, BuildHasherDefault<NameHasher>>,
    /// Recently parsed constants outside the range that [`Expr::int`]
    /// shares, by value: a scope that parses many texts (a batch file)
    /// writes the same large constants (`2147483648`) over and over.
    constants: ConstantCache,
}

/// A small direct-mapped table of constant nodes, indexed by value.
#[derive(Clone, Debug, Default)]
struct ConstantCache {
    slots: Vec<Option<Expr>>,
}

impl ConstantCache {
    const SLOTS: usize = 16;

    fn get(&mut self, v: i64) -> Expr {
        if !Expr::is_shared_int(v) {
            if self.slots.is_empty() {
                self.slots.resize(Self::SLOTS, None);
            }
            let at = (v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60;
            let slot = &mut self.slots[at as usize % Self::SLOTS];
            match slot {
                Some(e) if e.as_int() == Some(v) => return e.clone(),
                _ => {
                    let e = Expr::int(v);
                    *slot = Some(e.clone());
                    return e;
                }
            }
        }
        Expr::int(v)
    }
}

/// FxHash over the bytes of a name: names are short and not chosen by an
/// adversary who gains anything from collisions (a collision only costs a
/// comparison), so a multiply-rotate hash beats SipHash here. Batch
/// contexts are keyed by their text with it too.
#[derive(Default)]
pub(crate) struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }
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

    /// The integer constant `v`, shared with earlier occurrences in this
    /// scope where a recent one is at hand.
    pub(crate) fn int(&mut self, v: i64) -> Expr {
        self.constants.get(v)
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
