//! The variables of an indexing map: dimensions, range variables (symbols)
//! and runtime variables, each with an inclusive range and an optional name.

use crate::interval::Interval;
use arith::{Expr, Var};

/// The three kinds of variables of an indexing map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    /// A dimension `d<i>`: an index of the tensor the map starts from.
    Dim,
    /// A range variable (symbol) `s<i>`: enumerates the several positions
    /// that one index reaches (reduced dims, window positions, ...).
    Symbol,
    /// A runtime variable `rt<i>`: a value read from another tensor at run
    /// time (a dynamic-slice offset, a gather index), with its valid range.
    Runtime,
}

impl VarKind {
    /// The default name of the `i`-th variable of this kind: `d0`, `s0`, `rt0`.
    pub fn default_name(self, i: usize) -> String {
        match self {
            VarKind::Dim => format!("d{i}"),
            VarKind::Symbol => format!("s{i}"),
            VarKind::Runtime => format!("rt{i}"),
        }
    }
}

/// One variable of a map: an [`arith::Var`] (the identity that expressions
/// refer to), its inclusive range and an optional custom name. Without a
/// custom name the variable prints by position (`d0`, `s1`, `rt2`), so it is
/// renumbered when the map drops or moves variables.
#[derive(Clone, Debug)]
pub struct Variable {
    var: Var,
    bounds: Interval,
    name: Option<String>,
}

impl Variable {
    /// A fresh variable with range `bounds` and no custom name.
    pub fn new(bounds: Interval) -> Variable {
        Variable {
            var: Var::new("v"),
            bounds,
            name: None,
        }
    }

    /// A fresh variable with range `bounds` that prints as `name`.
    pub fn named(bounds: Interval, name: impl Into<String>) -> Variable {
        let name = name.into();
        Variable {
            var: Var::new(name.clone()),
            bounds,
            name: Some(name),
        }
    }

    /// A map variable for an existing `var` (so that expressions already
    /// built over `var` refer to it).
    pub fn from_var(var: Var, bounds: Interval, name: Option<String>) -> Variable {
        Variable { var, bounds, name }
    }

    /// The identity that expressions refer to.
    pub fn var(&self) -> &Var {
        &self.var
    }

    /// This variable as an expression.
    pub fn expr(&self) -> Expr {
        self.var.expr()
    }

    /// The inclusive range.
    pub fn bounds(&self) -> Interval {
        self.bounds
    }

    /// Replaces the range.
    pub fn set_bounds(&mut self, bounds: Interval) {
        self.bounds = bounds;
    }

    /// The custom name, if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The same variable with a fresh identity (for maps that must not share
    /// variables, such as the two sides of a composition).
    pub(crate) fn renewed(&self) -> Variable {
        Variable {
            var: Var::new(self.var.name()),
            bounds: self.bounds,
            name: self.name.clone(),
        }
    }
}
