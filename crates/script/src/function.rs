//! Functions a script defines: `def` statements and lambdas.

use crate::scope::Scope;
use crate::value::Value;
use python_ast as ast;
use std::rc::Rc;

/// A user function: its parameters, its body and the scope it closes over.
pub(crate) struct Function {
    /// The `def` name, or `<lambda>`.
    pub name: String,
    pub params: Vec<Param>,
    /// The `*args` parameter, if any.
    pub vararg: Option<String>,
    /// The keyword-only parameters (after `*` or `*args`).
    pub kwonly: Vec<Param>,
    /// The `**kwargs` parameter, if any.
    pub kwarg: Option<String>,
    pub body: Body,
    /// The scope the function was defined in.
    pub closure: Rc<Scope>,
}

/// A function's parameters, as its definition lists them.
pub(crate) struct Parameters {
    pub params: Vec<Param>,
    pub vararg: Option<String>,
    pub kwonly: Vec<Param>,
    pub kwarg: Option<String>,
}

/// One parameter, with its default value evaluated at definition
/// time (as Python does: `def _check(B, A=A)`).
pub(crate) struct Param {
    pub name: String,
    pub default: Option<Value>,
    /// The annotation as written (`a: T.handle`); not evaluated.
    pub annotation: Option<ast::Expr>,
}

/// What a function runs.
pub(crate) enum Body {
    /// A lambda's single expression.
    Lambda(Rc<ast::Expr>),
    /// A `def`'s statements.
    Block(Rc<Vec<ast::Stmt>>),
}

impl Function {
    /// How many positional arguments the function takes at least and at most
    /// (`None`: any number, because of `*args`).
    pub fn arity(&self) -> (usize, Option<usize>) {
        let required = self.params.iter().filter(|p| p.default.is_none()).count();
        let max = if self.vararg.is_some() {
            None
        } else {
            Some(self.params.len())
        };
        (required, max)
    }
}
