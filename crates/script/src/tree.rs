//! The parsed script as the interpreter holds it, and walks over the parser's
//! tree that never recurse on its depth.
//!
//! A long flat chain (`1 + 1 + ...`, `A[i] + A[i] + ...`, `a.b.c...`,
//! `f(x)(x)...`) is a left-deep tree as deep as the chain is long. The
//! tree's derived `Clone` and `Drop` recurse once per level, so the tree is
//! never cloned (function and lambda bodies are moved out once, into shared
//! bodies the interpreter looks up) and is dropped through an explicit work
//! list.

use python_ast as ast;
use std::collections::HashMap;
use std::rc::Rc;
use text_size::TextRange;

/// A script's statements, with the body of every `lambda` and `def` moved
/// out into shared bodies (keyed by the range of the lambda or the def), so
/// that making a function value never copies a tree.
pub(crate) struct Program {
    /// The module's statements; lambda and def bodies are left empty.
    pub body: Vec<ast::Stmt>,
    lambdas: HashMap<(u32, u32), Rc<ast::Expr>>,
    defs: HashMap<(u32, u32), Rc<Vec<ast::Stmt>>>,
}

fn key(range: TextRange) -> (u32, u32) {
    (range.start().into(), range.end().into())
}

/// What fills a moved-out expression: a literal with no children.
fn hole() -> ast::Expr {
    ast::Expr::NoneLiteral(ast::ExprNoneLiteral::default())
}

impl Program {
    /// Takes the parser's statements and moves every function body out.
    /// The parser's input was bounded in depth before parsing
    /// ([`crate::nesting`]), so the tree is deep only along flat chains,
    /// which no walk here recurses on.
    pub fn new(mut body: Vec<ast::Stmt>) -> Program {
        let mut lambdas = HashMap::new();
        let mut defs = HashMap::new();
        let mut moved = Moved::default();
        move_bodies(Root::Stmts(&mut body), &mut moved);
        // A moved body's own lambdas and defs are moved in turn, before the
        // body is shared.
        loop {
            if let Some((k, mut e)) = moved.lambdas.pop() {
                move_bodies(Root::Expr(&mut e), &mut moved);
                lambdas.insert(k, Rc::new(e));
            } else if let Some((k, mut b)) = moved.defs.pop() {
                move_bodies(Root::Stmts(&mut b), &mut moved);
                defs.insert(k, Rc::new(b));
            } else {
                break;
            }
        }
        Program {
            body,
            lambdas,
            defs,
        }
    }

    /// The body of the lambda at `range`.
    pub fn lambda_body(&self, range: TextRange) -> Option<Rc<ast::Expr>> {
        self.lambdas.get(&key(range)).cloned()
    }

    /// The body of the def at `range`.
    pub fn def_body(&self, range: TextRange) -> Option<Rc<Vec<ast::Stmt>>> {
        self.defs.get(&key(range)).cloned()
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let mut exprs = Vec::new();
        let mut stmts = std::mem::take(&mut self.body);
        for (_, e) in self.lambdas.drain() {
            if let Ok(e) = Rc::try_unwrap(e) {
                exprs.push(e);
            }
        }
        for (_, b) in self.defs.drain() {
            if let Some(b) = Rc::into_inner(b) {
                stmts.extend(b);
            }
        }
        drop_flat(exprs, stmts);
    }
}

/// Drops expressions and statements through a work list: every child is
/// replaced by a childless hole before its parent is dropped.
pub(crate) fn drop_flat(mut exprs: Vec<ast::Expr>, mut stmts: Vec<ast::Stmt>) {
    loop {
        let mut children = Vec::new();
        let mut bodies = Vec::new();
        if let Some(mut e) = exprs.pop() {
            children_of(Node::Expr(&mut e), &mut children, &mut bodies);
            exprs.extend(children.into_iter().map(|c| std::mem::replace(c, hole())));
        } else if let Some(mut s) = stmts.pop() {
            children_of(Node::Stmt(&mut s), &mut children, &mut bodies);
            exprs.extend(children.into_iter().map(|c| std::mem::replace(c, hole())));
            for b in bodies {
                stmts.append(b);
            }
        } else {
            return;
        }
    }
}

/// A place in the tree a walk starts from.
enum Node<'a> {
    Expr(&'a mut ast::Expr),
    Stmt(&'a mut ast::Stmt),
}

/// Where a walk moving bodies out starts.
enum Root<'a> {
    Expr(&'a mut ast::Expr),
    Stmts(&'a mut Vec<ast::Stmt>),
}

/// Bodies moved out of the tree.
#[derive(Default)]
struct Moved {
    lambdas: Vec<((u32, u32), ast::Expr)>,
    defs: Vec<((u32, u32), Vec<ast::Stmt>)>,
}

/// Moves every lambda and def body under `root` out into `moved`, walking
/// with a work list.
fn move_bodies(root: Root<'_>, moved: &mut Moved) {
    let mut exprs: Vec<&mut ast::Expr> = Vec::new();
    let mut bodies: Vec<&mut Vec<ast::Stmt>> = Vec::new();
    match root {
        Root::Expr(e) => exprs.push(e),
        Root::Stmts(b) => bodies.push(b),
    }
    loop {
        if let Some(e) = exprs.pop() {
            if let ast::Expr::Lambda(l) = e {
                let body = std::mem::replace(&mut *l.body, hole());
                moved.lambdas.push((key(l.range), body));
            }
            children_of(Node::Expr(e), &mut exprs, &mut bodies);
        } else if let Some(b) = bodies.pop() {
            for s in b.iter_mut() {
                if let ast::Stmt::FunctionDef(d) = s {
                    let body = std::mem::take(&mut d.body);
                    moved.defs.push((key(d.range), body));
                }
                children_of(Node::Stmt(s), &mut exprs, &mut bodies);
            }
        } else {
            return;
        }
    }
}

/// Pushes the direct child expressions and statement blocks of `node`.
/// Statement kinds the interpreter refuses (classes, `match`, ...) are
/// shallow in any script that reaches it and keep their derived drop.
fn children_of<'a>(
    node: Node<'a>,
    exprs: &mut Vec<&'a mut ast::Expr>,
    bodies: &mut Vec<&'a mut Vec<ast::Stmt>>,
) {
    use ast::Expr as E;
    use ast::Stmt as S;
    let e = match node {
        Node::Stmt(s) => {
            match s {
                S::FunctionDef(d) => {
                    bodies.push(&mut d.body);
                    exprs.extend(d.decorator_list.iter_mut().map(|d| &mut d.expression));
                    exprs.extend(d.returns.as_deref_mut());
                    parameters(&mut d.parameters, exprs);
                }
                S::ClassDef(c) => {
                    bodies.push(&mut c.body);
                    exprs.extend(c.decorator_list.iter_mut().map(|d| &mut d.expression));
                    if let Some(a) = c.arguments.as_deref_mut() {
                        exprs.extend(a.args.iter_mut());
                        exprs.extend(a.keywords.iter_mut().map(|k| &mut k.value));
                    }
                }
                S::Return(r) => exprs.extend(r.value.as_deref_mut()),
                S::Delete(d) => exprs.extend(d.targets.iter_mut()),
                S::Assign(a) => {
                    exprs.extend(a.targets.iter_mut());
                    exprs.push(&mut a.value);
                }
                S::AugAssign(a) => {
                    exprs.push(&mut a.target);
                    exprs.push(&mut a.value);
                }
                S::AnnAssign(a) => {
                    exprs.push(&mut a.target);
                    exprs.push(&mut a.annotation);
                    exprs.extend(a.value.as_deref_mut());
                }
                S::For(f) => {
                    exprs.push(&mut f.target);
                    exprs.push(&mut f.iter);
                    bodies.push(&mut f.body);
                    bodies.push(&mut f.orelse);
                }
                S::While(w) => {
                    exprs.push(&mut w.test);
                    bodies.push(&mut w.body);
                    bodies.push(&mut w.orelse);
                }
                S::If(i) => {
                    exprs.push(&mut i.test);
                    bodies.push(&mut i.body);
                    for clause in &mut i.elif_else_clauses {
                        exprs.extend(clause.test.as_mut());
                        bodies.push(&mut clause.body);
                    }
                }
                S::With(w) => {
                    for item in &mut w.items {
                        exprs.push(&mut item.context_expr);
                        exprs.extend(item.optional_vars.as_deref_mut());
                    }
                    bodies.push(&mut w.body);
                }
                S::Raise(r) => {
                    exprs.extend(r.exc.as_deref_mut());
                    exprs.extend(r.cause.as_deref_mut());
                }
                S::Try(t) => {
                    bodies.push(&mut t.body);
                    for h in &mut t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        exprs.extend(h.type_.as_deref_mut());
                        bodies.push(&mut h.body);
                    }
                    bodies.push(&mut t.orelse);
                    bodies.push(&mut t.finalbody);
                }
                S::Assert(a) => {
                    exprs.push(&mut a.test);
                    exprs.extend(a.msg.as_deref_mut());
                }
                S::Expr(e) => exprs.push(&mut e.value),
                _ => {}
            }
            return;
        }
        Node::Expr(e) => e,
    };
    match e {
        E::BoolOp(b) => exprs.extend(b.values.iter_mut()),
        E::Named(n) => {
            exprs.push(&mut n.target);
            exprs.push(&mut n.value);
        }
        E::BinOp(b) => {
            exprs.push(&mut b.left);
            exprs.push(&mut b.right);
        }
        E::UnaryOp(u) => exprs.push(&mut u.operand),
        E::Lambda(l) => {
            exprs.push(&mut l.body);
            if let Some(p) = l.parameters.as_deref_mut() {
                parameters(p, exprs);
            }
        }
        E::If(i) => {
            exprs.push(&mut i.test);
            exprs.push(&mut i.body);
            exprs.push(&mut i.orelse);
        }
        E::Dict(d) => {
            for item in &mut d.items {
                exprs.extend(item.key.as_mut());
                exprs.push(&mut item.value);
            }
        }
        E::Set(s) => exprs.extend(s.elts.iter_mut()),
        E::ListComp(c) => {
            exprs.push(&mut c.elt);
            comprehensions(&mut c.generators, exprs);
        }
        E::SetComp(c) => {
            exprs.push(&mut c.elt);
            comprehensions(&mut c.generators, exprs);
        }
        E::DictComp(c) => {
            exprs.push(&mut c.key);
            exprs.push(&mut c.value);
            comprehensions(&mut c.generators, exprs);
        }
        E::Generator(c) => {
            exprs.push(&mut c.elt);
            comprehensions(&mut c.generators, exprs);
        }
        E::Await(a) => exprs.push(&mut a.value),
        E::Yield(y) => exprs.extend(y.value.as_deref_mut()),
        E::YieldFrom(y) => exprs.push(&mut y.value),
        E::Compare(c) => {
            exprs.push(&mut c.left);
            exprs.extend(c.comparators.iter_mut());
        }
        E::Call(c) => {
            exprs.push(&mut c.func);
            exprs.extend(c.arguments.args.iter_mut());
            exprs.extend(c.arguments.keywords.iter_mut().map(|k| &mut k.value));
        }
        E::FString(f) => {
            for part in f.value.iter_mut() {
                if let ast::FStringPart::FString(f) = part {
                    interpolations(&mut f.elements, exprs);
                }
            }
        }
        E::Attribute(a) => exprs.push(&mut a.value),
        E::Subscript(s) => {
            exprs.push(&mut s.value);
            exprs.push(&mut s.slice);
        }
        E::Starred(s) => exprs.push(&mut s.value),
        E::List(l) => exprs.extend(l.elts.iter_mut()),
        E::Tuple(t) => exprs.extend(t.elts.iter_mut()),
        E::Slice(s) => {
            exprs.extend(s.lower.as_deref_mut());
            exprs.extend(s.upper.as_deref_mut());
            exprs.extend(s.step.as_deref_mut());
        }
        // Template strings are refused by the interpreter; their fields are
        // as shallow as the parser's input was.
        E::TString(_)
        | E::StringLiteral(_)
        | E::BytesLiteral(_)
        | E::NumberLiteral(_)
        | E::BooleanLiteral(_)
        | E::NoneLiteral(_)
        | E::EllipsisLiteral(_)
        | E::Name(_)
        | E::IpyEscapeCommand(_) => {}
    }
}

/// The expressions of an f-string's replacement fields, with those of their
/// format specs.
fn interpolations<'a>(
    elements: &'a mut ast::InterpolatedStringElements,
    exprs: &mut Vec<&'a mut ast::Expr>,
) {
    let mut work = vec![elements];
    while let Some(elements) = work.pop() {
        for element in elements.iter_mut() {
            if let ast::InterpolatedStringElement::Interpolation(i) = element {
                exprs.push(&mut i.expression);
                if let Some(spec) = i.format_spec.as_deref_mut() {
                    work.push(&mut spec.elements);
                }
            }
        }
    }
}

/// The defaults and annotations of a parameter list.
fn parameters<'a>(params: &'a mut ast::Parameters, exprs: &mut Vec<&'a mut ast::Expr>) {
    let ast::Parameters {
        posonlyargs,
        args,
        vararg,
        kwonlyargs,
        kwarg,
        ..
    } = params;
    for a in posonlyargs
        .iter_mut()
        .chain(args.iter_mut())
        .chain(kwonlyargs.iter_mut())
    {
        exprs.extend(a.default.as_deref_mut());
        exprs.extend(a.parameter.annotation.as_deref_mut());
    }
    for p in vararg.iter_mut().chain(kwarg.iter_mut()) {
        exprs.extend(p.annotation.as_deref_mut());
    }
}

fn comprehensions<'a>(gens: &'a mut [ast::Comprehension], exprs: &mut Vec<&'a mut ast::Expr>) {
    for g in gens {
        exprs.push(&mut g.target);
        exprs.push(&mut g.iter);
        exprs.extend(g.ifs.iter_mut());
    }
}
