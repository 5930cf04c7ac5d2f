//! The parsed script as the interpreter holds it, and walks over the parser's
//! tree that never recurse on its depth.
//!
//! A long flat chain (`1 + 1 + ...`, `A[i] + A[i] + ...`) is a left-deep
//! tree as deep as the chain is long. The tree's derived `Clone` and `Drop`
//! recurse once per level, so the tree is never cloned (function and lambda
//! bodies are moved out once, into shared bodies the interpreter looks up)
//! and is dropped through an explicit work list.

use crate::nesting::MAX_TREE_DEPTH;
use rustpython_parser::ast::{self, Ranged};
use rustpython_parser::text_size::TextRange;
use std::collections::HashMap;
use std::rc::Rc;

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

/// What fills a moved-out expression: a constant with no children.
fn hole() -> ast::Expr {
    ast::Expr::Constant(ast::ExprConstant {
        range: TextRange::default(),
        value: ast::Constant::None,
        kind: None,
    })
}

impl Program {
    /// Takes the parser's statements and moves every function body out.
    /// A tree nested deeper than [`MAX_TREE_DEPTH`] (not counting the left
    /// operands of binary operators, along which flat chains grow) gives
    /// the range of its first node past the limit.
    pub fn new(mut body: Vec<ast::Stmt>) -> Result<Program, TextRange> {
        let mut lambdas = HashMap::new();
        let mut defs = HashMap::new();
        let mut moved = Moved::default();
        let walked = move_bodies(Root::Stmts(&mut body, 0), &mut moved);
        // A moved body's own lambdas and defs are moved in turn, before the
        // body is shared.
        let walked = walked.and_then(|()| loop {
            if let Some((k, mut e, depth)) = moved.lambdas.pop() {
                let walked = move_bodies(Root::Expr(&mut e, depth), &mut moved);
                lambdas.insert(k, Rc::new(e));
                walked?;
            } else if let Some((k, mut b, depth)) = moved.defs.pop() {
                let walked = move_bodies(Root::Stmts(&mut b, depth), &mut moved);
                defs.insert(k, Rc::new(b));
                walked?;
            } else {
                break Ok(());
            }
        });
        let program = Program {
            body,
            lambdas,
            defs,
        };
        if let Err(at) = walked {
            // Whatever was not moved into the program is dropped flat too.
            let exprs = moved.lambdas.into_iter().map(|(_, e, _)| e).collect();
            let stmts = moved.defs.into_iter().flat_map(|(_, b, _)| b).collect();
            drop_flat(exprs, stmts);
            return Err(at);
        }
        Ok(program)
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
        if let Some(mut e) = exprs.pop() {
            let mut children = Vec::new();
            let mut bodies = Vec::new();
            children_of(Node::Expr(&mut e), &mut children, &mut bodies);
            exprs.extend(children.into_iter().map(|c| std::mem::replace(c, hole())));
        } else if let Some(mut s) = stmts.pop() {
            let mut children = Vec::new();
            let mut bodies = Vec::new();
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

/// Where a walk moving bodies out starts, and at what nesting depth.
enum Root<'a> {
    Expr(&'a mut ast::Expr, usize),
    Stmts(&'a mut Vec<ast::Stmt>, usize),
}

/// Bodies moved out of the tree, each with the depth it sits at.
#[derive(Default)]
struct Moved {
    lambdas: Vec<((u32, u32), ast::Expr, usize)>,
    defs: Vec<((u32, u32), Vec<ast::Stmt>, usize)>,
}

/// Moves every lambda and def body under `root` out into `moved`, walking
/// with a work list; stops at the first node nested deeper than
/// [`MAX_TREE_DEPTH`].
fn move_bodies(root: Root<'_>, moved: &mut Moved) -> Result<(), TextRange> {
    let mut exprs: Vec<(&mut ast::Expr, usize)> = Vec::new();
    let mut bodies: Vec<(&mut Vec<ast::Stmt>, usize)> = Vec::new();
    match root {
        Root::Expr(e, depth) => exprs.push((e, depth)),
        Root::Stmts(b, depth) => bodies.push((b, depth)),
    }
    let mut children = Vec::new();
    let mut blocks = Vec::new();
    loop {
        let depth;
        if let Some((e, d)) = exprs.pop() {
            depth = d;
            if depth > MAX_TREE_DEPTH {
                return Err(e.range());
            }
            match e {
                ast::Expr::Lambda(l) => {
                    let body = std::mem::replace(&mut *l.body, hole());
                    moved.lambdas.push((key(l.range), body, depth + 1));
                }
                // The left operand continues the chain at the same depth.
                ast::Expr::BinOp(b) => {
                    exprs.push((&mut b.left, depth));
                    exprs.push((&mut b.right, depth + 1));
                    continue;
                }
                _ => {}
            }
            children_of(Node::Expr(e), &mut children, &mut blocks);
        } else if let Some((b, d)) = bodies.pop() {
            depth = d;
            for s in b.iter_mut() {
                if let ast::Stmt::FunctionDef(d) = s {
                    let body = std::mem::take(&mut d.body);
                    moved.defs.push((key(d.range), body, depth + 1));
                }
                children_of(Node::Stmt(s), &mut children, &mut blocks);
            }
        } else {
            return Ok(());
        }
        exprs.extend(children.drain(..).map(|c| (c, depth + 1)));
        bodies.extend(blocks.drain(..).map(|b| (b, depth + 1)));
    }
}

/// Pushes the direct child expressions and statement blocks of `node`.
/// Statement kinds the interpreter refuses (classes, imports, ...) are
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
                    exprs.extend(d.decorator_list.iter_mut());
                    exprs.extend(d.returns.as_deref_mut());
                    arguments(&mut d.args, exprs);
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
                    bodies.push(&mut i.orelse);
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
        E::NamedExpr(n) => {
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
            arguments(&mut l.args, exprs);
        }
        E::IfExp(i) => {
            exprs.push(&mut i.test);
            exprs.push(&mut i.body);
            exprs.push(&mut i.orelse);
        }
        E::Dict(d) => {
            exprs.extend(d.keys.iter_mut().flatten());
            exprs.extend(d.values.iter_mut());
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
        E::GeneratorExp(c) => {
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
            exprs.extend(c.args.iter_mut());
            exprs.extend(c.keywords.iter_mut().map(|k| &mut k.value));
        }
        E::FormattedValue(f) => {
            exprs.push(&mut f.value);
            exprs.extend(f.format_spec.as_deref_mut());
        }
        E::JoinedStr(j) => exprs.extend(j.values.iter_mut()),
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
        E::Constant(_) | E::Name(_) => {}
    }
}

fn arguments<'a>(args: &'a mut ast::Arguments, exprs: &mut Vec<&'a mut ast::Expr>) {
    let ast::Arguments {
        posonlyargs,
        args,
        kwonlyargs,
        ..
    } = args;
    for a in posonlyargs
        .iter_mut()
        .chain(args.iter_mut())
        .chain(kwonlyargs.iter_mut())
    {
        exprs.extend(a.default.as_deref_mut());
    }
}

fn comprehensions<'a>(gens: &'a mut [ast::Comprehension], exprs: &mut Vec<&'a mut ast::Expr>) {
    for g in gens {
        exprs.push(&mut g.target);
        exprs.push(&mut g.iter);
        exprs.extend(g.ifs.iter_mut());
    }
}
