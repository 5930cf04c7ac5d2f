//! Semantic checks (TC's `sema.h`): names resolve, accesses have one index
//! per dimension, inputs are never written, reductions say how they
//! reduce, every left-hand index is used. Each problem is an error at its
//! span; a statement with an error is left out of range inference.
//!
//! The result lists, per statement, its index variables (left-hand ones
//! first, then the others in order of first use), the tensor accesses that
//! constrain them (right-hand side, `where` lets and `exists` clauses), and
//! the explicit `where` ranges.

use crate::ast::*;
use crate::diag::{Diagnostic, Span};
use std::collections::HashMap;

/// The most nodes a statement's right-hand side, `exists` condition or
/// `where` let may have with every let written out in its place, unless
/// the statement's own source is larger. Inference, lowering and evaluation
/// all see a let at each of its uses, so their cost grows with this size,
/// and a chain of lets that each use the previous one twice doubles it per
/// let: the budget keeps a few lines of source from standing for billions
/// of nodes. Real statements have tens of nodes.
pub const MAX_WRITTEN_NODES: u64 = 1 << 16;

/// The nodes of `s`'s right-hand side and `where` clauses, as written.
fn statement_nodes(def: &Def, s: &Stmt) -> u64 {
    let roots = s.wheres.iter().flat_map(|w| match w {
        WhereClause::Range { lower, upper, .. } => vec![*lower, *upper],
        WhereClause::Let { expr, .. } | WhereClause::Exists { expr, .. } => vec![*expr],
    });
    std::iter::once(s.rhs)
        .chain(roots)
        .map(|r| def.exprs.preorder(r).len() as u64)
        .sum()
}

/// TC's built-in functions and their numbers of arguments.
pub const BUILTINS: &[(&str, usize)] = &[
    ("acos", 1),
    ("acosh", 1),
    ("asin", 1),
    ("asinh", 1),
    ("atan2", 2),
    ("atan", 1),
    ("atanh", 1),
    ("cbrt", 1),
    ("ceil", 1),
    ("copysign", 2),
    ("cos", 1),
    ("cosh", 1),
    ("cospi", 1),
    ("cyl_bessel_i0", 1),
    ("cyl_bessel_i1", 1),
    ("erfc", 1),
    ("erfcinv", 1),
    ("erfcx", 1),
    ("erf", 1),
    ("erfinv", 1),
    ("exp10", 1),
    ("exp2", 1),
    ("exp", 1),
    ("expm1", 1),
    ("fabs", 1),
    ("fdim", 2),
    ("fdivide", 2),
    ("floor", 1),
    ("fma", 3),
    ("fmax", 2),
    ("fmin", 2),
    ("fmod", 2),
    ("hypot", 2),
    ("j0", 1),
    ("j1", 1),
    ("lgamma", 1),
    ("log10", 1),
    ("log1p", 1),
    ("log2", 1),
    ("logb", 1),
    ("log", 1),
    ("nextafter", 2),
    ("norm3d", 3),
    ("norm4d", 4),
    ("normcdf", 1),
    ("normcdfinv", 1),
    ("pow", 2),
    ("rcbrt", 1),
    ("remainder", 2),
    ("rhypot", 2),
    ("rnorm3d", 3),
    ("rnorm4d", 4),
    ("round", 1),
    ("rsqrt", 1),
    ("sin", 1),
    ("sinh", 1),
    ("sinpi", 1),
    ("sqrt", 1),
    ("tan", 1),
    ("tanh", 1),
    ("tgamma", 1),
    ("trunc", 1),
    ("y0", 1),
    ("y1", 1),
];

/// The number of arguments of built-in `name`, if it is one.
pub fn builtin_arity(name: &str) -> Option<usize> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
}

/// Whether a tensor is an input or an output of its definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A parameter: read only, its shape given.
    Input,
    /// An output: written by statements, its shape inferred.
    Output,
}

/// A tensor of a definition.
#[derive(Clone, Debug)]
pub struct TensorInfo {
    /// Input or output.
    pub role: Role,
    /// The element type (declared, or `float` for outputs without one).
    pub scalar: ScalarType,
    /// The dimensions of an input (empty for a scalar), or the declared
    /// dimensions of an output (empty when not declared).
    pub dims: Vec<Dim>,
    /// Where it is declared.
    pub span: Span,
}

/// What a name in a statement refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The statement's index variable number `n`.
    Index(usize),
    /// A size symbol of the definition.
    Size,
    /// A `where x = e` let: its expression.
    Let(ExprId),
    /// A scalar (0-dimensional) tensor used as a value.
    Scalar,
}

/// An index variable of a statement.
#[derive(Clone, Debug)]
pub struct IndexVar {
    /// Its name.
    pub name: String,
    /// Its first occurrence.
    pub span: Span,
    /// Whether it indexes the left-hand side (else it is reduced over).
    pub on_lhs: bool,
}

/// A tensor access that constrains ranges.
#[derive(Clone, Debug)]
pub struct Access {
    /// The tensor read.
    pub tensor: String,
    /// One index expression per dimension.
    pub args: Vec<ExprId>,
    /// The whole access.
    pub span: Span,
    /// The condition of the innermost ternary branch the access is in, and
    /// whether it is the false branch: the access only happens where the
    /// condition holds (or fails).
    pub guard: Option<(ExprId, bool)>,
}

/// A checked statement.
#[derive(Clone, Debug)]
pub struct CheckedStmt {
    /// Index variables: left-hand ones first, in order, then the others in
    /// order of first use.
    pub vars: Vec<IndexVar>,
    /// The accesses of the right-hand side, of lets and of `exists`
    /// clauses, in source order.
    pub accesses: Vec<Access>,
    /// `where v in lower:upper`: the variable (into `vars`) and its bounds.
    pub ranges: Vec<(usize, ExprId, ExprId)>,
    /// `where x = e` lets, by name.
    pub lets: HashMap<String, ExprId>,
    /// Whether the statement passed every check.
    pub ok: bool,
}

impl CheckedStmt {
    /// What `name` refers to in this statement, given the definition's
    /// names.
    pub fn resolve(&self, name: &str, def: &CheckedDef) -> Option<Resolved> {
        if let Some(i) = self.vars.iter().position(|v| v.name == name) {
            return Some(Resolved::Index(i));
        }
        if let Some(e) = self.lets.get(name) {
            return Some(Resolved::Let(*e));
        }
        if def.sizes.contains_key(name) {
            return Some(Resolved::Size);
        }
        match def.tensors.get(name) {
            Some(t) if t.role == Role::Input && t.dims.is_empty() => Some(Resolved::Scalar),
            _ => None,
        }
    }
}

/// A checked definition.
#[derive(Clone, Debug)]
pub struct CheckedDef {
    /// Size symbols, with where each is first declared.
    pub sizes: HashMap<String, Span>,
    /// Size symbols in order of declaration.
    pub size_order: Vec<String>,
    /// Inputs and outputs by name.
    pub tensors: HashMap<String, TensorInfo>,
    /// One per statement.
    pub stmts: Vec<CheckedStmt>,
    /// The errors and warnings found.
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks one definition.
pub fn check(def: &Def) -> CheckedDef {
    let mut c = CheckedDef {
        sizes: HashMap::new(),
        size_order: Vec::new(),
        tensors: HashMap::new(),
        stmts: Vec::new(),
        diagnostics: Vec::new(),
    };
    let mut names: HashMap<String, Span> = HashMap::new();
    for p in &def.params {
        let Some(ty) = &p.ty else {
            c.diagnostics.push(Diagnostic::error(
                p.name.span,
                format!(
                    "input `{}` has no type: write it as `float(N, ...) {}`",
                    p.name.name, p.name.name
                ),
            ));
            continue;
        };
        for d in &ty.dims {
            if let Dim::Size(s) = d {
                if builtin_arity(&s.name).is_some() {
                    c.diagnostics.push(Diagnostic::error(
                        s.span,
                        format!("`{}` is a built-in function and cannot name a size", s.name),
                    ));
                } else if c.tensors.contains_key(&s.name) {
                    c.diagnostics.push(Diagnostic::error(
                        s.span,
                        format!(
                            "size symbol `{}` is also the name of a tensor: sizes, tensors and \
                             index variables share one namespace",
                            s.name
                        ),
                    ));
                } else if !c.sizes.contains_key(&s.name) {
                    c.sizes.insert(s.name.clone(), s.span);
                    c.size_order.push(s.name.clone());
                    names.insert(s.name.clone(), s.span);
                }
            }
            if let Dim::Const(v, span) = d {
                if *v < 0 {
                    c.diagnostics.push(Diagnostic::error(
                        *span,
                        format!("a dimension cannot be negative ({v})"),
                    ));
                }
            }
        }
        declare(
            &mut c,
            &mut names,
            &p.name,
            Role::Input,
            ty.scalar,
            ty.dims.clone(),
        );
    }
    for o in &def.outputs {
        let scalar = o.ty.as_ref().map_or(ScalarType::Float, |t| t.scalar);
        // A declared output shape (`-> (float(M, N) C)`) is checked against
        // the inferred one; its size symbols are sizes like the inputs'.
        let dims = o.ty.as_ref().map_or_else(Vec::new, |t| t.dims.clone());
        for d in &dims {
            if let Dim::Size(s) = d {
                if !c.sizes.contains_key(&s.name) && !c.tensors.contains_key(&s.name) {
                    c.sizes.insert(s.name.clone(), s.span);
                    c.size_order.push(s.name.clone());
                    names.insert(s.name.clone(), s.span);
                }
            }
        }
        declare(&mut c, &mut names, &o.name, Role::Output, scalar, dims);
    }
    // The rank of each output, from its first definition.
    let mut defined: HashMap<String, usize> = HashMap::new();
    // The element type of each output, from its latest definition (TC
    // gives an output the type of the value stored, as `sema.h` does).
    let mut types: HashMap<String, ScalarType> = HashMap::new();
    for s in &def.stmts {
        let st = check_stmt(def, s, &mut c, &mut defined, &mut types);
        c.stmts.push(st);
    }
    for o in &def.outputs {
        if !defined.contains_key(&o.name.name) {
            c.diagnostics.push(Diagnostic::error(
                o.name.span,
                format!(
                    "output `{}` is never defined: add a statement `{}(...) = ...`",
                    o.name.name, o.name.name
                ),
            ));
        }
    }
    c
}

fn declare(
    c: &mut CheckedDef,
    names: &mut HashMap<String, Span>,
    name: &Ident,
    role: Role,
    scalar: ScalarType,
    dims: Vec<Dim>,
) {
    if builtin_arity(&name.name).is_some() {
        c.diagnostics.push(Diagnostic::error(
            name.span,
            format!(
                "`{}` is a built-in function and cannot be redefined",
                name.name
            ),
        ));
        return;
    }
    if names.contains_key(&name.name) {
        let what = if c.sizes.contains_key(&name.name) {
            "a size symbol"
        } else {
            "a tensor"
        };
        c.diagnostics.push(Diagnostic::error(
            name.span,
            format!("`{}` is already defined as {what}", name.name),
        ));
        return;
    }
    names.insert(name.name.clone(), name.span);
    c.tensors.insert(
        name.name.clone(),
        TensorInfo {
            role,
            scalar,
            dims,
            span: name.span,
        },
    );
}

struct StmtCx<'a> {
    def: &'a Def,
    c: &'a CheckedDef,
    defined: &'a HashMap<String, usize>,
    /// The element types of outputs defined so far.
    types: &'a HashMap<String, ScalarType>,
    /// The types of the statement's `where` lets.
    let_types: HashMap<String, ScalarType>,
    /// The statement's `where` lets written out: see [`MAX_WRITTEN_NODES`].
    let_sizes: HashMap<String, u64>,
    /// The nodes of the statement as written (right-hand side and `where`
    /// clauses): no budget refuses less than the source itself.
    source_nodes: u64,
    st: CheckedStmt,
    errors: Vec<Diagnostic>,
    /// The index variables seen outside the left-hand side.
    used: Vec<bool>,
}

impl StmtCx<'_> {
    fn err(&mut self, span: Span, msg: String) {
        self.errors.push(Diagnostic::error(span, msg));
    }

    /// The number of nodes of `id` with every let written out in its place,
    /// saturating; linear in the size of `id`'s own tree, as each let's
    /// size is known when it is defined.
    fn written_size(&self, id: ExprId) -> u64 {
        self.def
            .exprs
            .preorder(id)
            .into_iter()
            .map(|x| match &self.def.exprs.get(x).kind {
                ExprKind::Ident(n) => self.let_sizes.get(n.as_str()).copied().unwrap_or(1),
                _ => 1,
            })
            .fold(0u64, u64::saturating_add)
    }

    /// `id`'s written-out size, refusing it past the budget (`what` names it
    /// in the message); a refused expression counts as one node from then
    /// on, so the lets built on it are not refused again for its sake.
    fn check_written_size(&mut self, id: ExprId, what: &str) -> u64 {
        let size = self.written_size(id);
        if size > MAX_WRITTEN_NODES.max(self.source_nodes) {
            let shown = if size == u64::MAX {
                "more than 18 quintillion nodes".to_string()
            } else {
                format!("{size} nodes")
            };
            self.err(
                self.def.exprs.get(id).span,
                format!(
                    "{what} written out has {shown}, more than the {MAX_WRITTEN_NODES} allowed: \
                     a `where` let is written out at each of its uses, so a let used twice by \
                     the next doubles the size at each step; compute the shared value in a \
                     statement of its own instead"
                ),
            );
            return 1;
        }
        size
    }

    fn index_var(&mut self, name: &str, span: Span) -> usize {
        if let Some(i) = self.st.vars.iter().position(|v| v.name == name) {
            self.used[i] = true;
            return i;
        }
        self.st.vars.push(IndexVar {
            name: name.to_string(),
            span,
            on_lhs: false,
        });
        self.used.push(true);
        self.st.vars.len() - 1
    }

    /// Checks an expression where tensors may be read, collecting accesses
    /// and creating index variables for unknown names.
    fn value_expr(&mut self, root: ExprId, collect: bool) {
        let arena = &self.def.exprs;
        let order = arena.preorder(root);
        // Outer ternaries come first in preorder, so inner ones overwrite.
        let mut guards: HashMap<ExprId, (ExprId, bool)> = HashMap::new();
        for &id in &order {
            if let ExprKind::Ternary(c, a, b) = &arena.get(id).kind {
                for x in arena.preorder(*a) {
                    guards.insert(x, (*c, false));
                }
                for x in arena.preorder(*b) {
                    guards.insert(x, (*c, true));
                }
            }
        }
        for id in order {
            let e = arena.get(id);
            match &e.kind {
                ExprKind::Ident(n) => {
                    if self.st.lets.contains_key(n) {
                        continue;
                    }
                    if let Some(i) = self.st.vars.iter().position(|v| v.name == *n) {
                        self.used[i] = true;
                        continue;
                    }
                    if self.c.sizes.contains_key(n) {
                        continue;
                    }
                    if let Some(t) = self.c.tensors.get(n) {
                        let rank = match t.role {
                            Role::Input => Some(t.dims.len()),
                            Role::Output => self.defined.get(n).copied(),
                        };
                        match rank {
                            Some(0) => {
                                if collect {
                                    self.st.accesses.push(Access {
                                        tensor: n.clone(),
                                        args: Vec::new(),
                                        span: e.span,
                                        guard: None,
                                    });
                                }
                            }
                            Some(r) => self.err(
                                e.span,
                                format!(
                                    "`{n}` is a tensor with {r} dimensions: index it, as in \
                                     `{n}({})`",
                                    vec!["i"; r].join(", ")
                                ),
                            ),
                            None => self.err(
                                e.span,
                                format!("`{n}` is read before any statement defines it"),
                            ),
                        }
                        continue;
                    }
                    if builtin_arity(n).is_some() {
                        self.err(
                            e.span,
                            format!("`{n}` is a built-in function: call it with arguments"),
                        );
                        continue;
                    }
                    // TC: a name not otherwise defined is an index variable.
                    self.index_var(n, e.span);
                }
                ExprKind::Call(name, args) => {
                    if let Some(arity) = builtin_arity(&name.name) {
                        if args.len() != arity {
                            self.err(
                                e.span,
                                format!(
                                    "`{}` takes {arity} argument{} but {} {} given",
                                    name.name,
                                    if arity == 1 { "" } else { "s" },
                                    args.len(),
                                    if args.len() == 1 { "was" } else { "were" }
                                ),
                            );
                        }
                        continue;
                    }
                    let Some(t) = self.c.tensors.get(&name.name) else {
                        let what = if self.c.sizes.contains_key(&name.name) {
                            format!("`{}` is a size symbol, not a tensor", name.name)
                        } else if self.st.vars.iter().any(|v| v.name == name.name) {
                            format!("`{}` is an index variable, not a tensor", name.name)
                        } else {
                            format!(
                                "unknown tensor or function `{}`: it is neither an input, an \
                                 output nor a built-in",
                                name.name
                            )
                        };
                        self.err(name.span, what);
                        continue;
                    };
                    let rank = match t.role {
                        Role::Input => Some(t.dims.len()),
                        Role::Output => self.defined.get(&name.name).copied(),
                    };
                    let Some(rank) = rank else {
                        self.err(
                            name.span,
                            format!("`{}` is read before any statement defines it", name.name),
                        );
                        continue;
                    };
                    if rank != args.len() {
                        self.err(
                            e.span,
                            format!(
                                "`{}` has {rank} dimension{} but is indexed with {}",
                                name.name,
                                if rank == 1 { "" } else { "s" },
                                args.len()
                            ),
                        );
                        continue;
                    }
                    for a in args {
                        self.integral_index(*a, &name.name);
                    }
                    if collect {
                        self.st.accesses.push(Access {
                            tensor: name.name.clone(),
                            args: args.clone(),
                            span: e.span,
                            guard: guards.get(&id).copied(),
                        });
                    }
                }
                _ => {}
            }
        }
    }

    /// The scalar type of an expression of this statement.
    fn type_of(&self, root: ExprId) -> ScalarType {
        let element = |n: &str| {
            self.types
                .get(n)
                .copied()
                .or_else(|| self.c.tensors.get(n).map(|t| t.scalar))
        };
        let name = |n: &str| {
            if let Some(t) = self.let_types.get(n) {
                return *t;
            }
            if self.st.vars.iter().any(|v| v.name == n) || self.c.sizes.contains_key(n) {
                return ScalarType::Int32;
            }
            element(n).unwrap_or(ScalarType::Int32)
        };
        let tensor = |n: &str| {
            if builtin_arity(n).is_some() {
                None
            } else {
                Some(element(n).unwrap_or(ScalarType::Int32))
            }
        };
        crate::types::type_of(&self.def.exprs, root, &name, &tensor)
    }

    /// An index must be integral (TC: "expected integral type"): a float
    /// literal, a read of a float tensor, a float let or a built-in call
    /// anywhere in it makes it a float unless cast to an integer type.
    fn integral_index(&mut self, root: ExprId, tensor: &str) {
        let ty = self.type_of(root);
        if ty.is_float() {
            let span = self.def.exprs.get(root).span;
            self.err(
                span,
                format!(
                    "an index of `{tensor}` must be an integer, but `{}` is {}: expected integral \
                     type but found {}; convert it with `int32(...)` if that is meant",
                    self.def.exprs.display(root),
                    ty.name(),
                    ty.name()
                ),
            );
        }
    }

    /// Checks a range bound: sizes, constants and arithmetic only.
    fn size_expr(&mut self, root: ExprId) {
        let arena = &self.def.exprs;
        for id in arena.preorder(root) {
            let e = arena.get(id);
            match &e.kind {
                ExprKind::Ident(n) => {
                    if self.c.sizes.contains_key(n) {
                        continue;
                    }
                    let msg = if self.st.vars.iter().any(|v| v.name == *n) {
                        format!(
                            "`{n}` is an index variable: range bounds must be size expressions \
                             (sizes and constants), so that the domain is a box"
                        )
                    } else if self.c.tensors.contains_key(n) {
                        format!("tensor accesses cannot be used in this context (`{n}` in a range bound)")
                    } else {
                        format!("unknown variable `{n}` in a range bound: only size symbols and constants may appear")
                    };
                    self.err(e.span, msg);
                }
                ExprKind::Call(..) => self.err(
                    e.span,
                    "tensor accesses cannot be used in this context: range bounds are size \
                     expressions"
                        .to_string(),
                ),
                ExprKind::Float(_) => self.err(
                    e.span,
                    "expected integral type: range bounds are integers".to_string(),
                ),
                ExprKind::Ternary(..) | ExprKind::Cast(..) | ExprKind::Unary(UnaryOp::Not, _) => {
                    self.err(
                        e.span,
                        "range bounds are arithmetic on sizes and constants".to_string(),
                    )
                }
                ExprKind::Binary(op, ..)
                    if op.is_comparison() || matches!(op, BinaryOp::And | BinaryOp::Or) =>
                {
                    self.err(
                        e.span,
                        "range bounds are arithmetic on sizes and constants".to_string(),
                    )
                }
                _ => {}
            }
        }
    }
}

fn check_stmt(
    def: &Def,
    s: &Stmt,
    c: &mut CheckedDef,
    defined: &mut HashMap<String, usize>,
    types: &mut HashMap<String, ScalarType>,
) -> CheckedStmt {
    let mut cx = StmtCx {
        def,
        c,
        defined,
        types,
        let_types: HashMap::new(),
        let_sizes: HashMap::new(),
        source_nodes: statement_nodes(def, s),
        st: CheckedStmt {
            vars: Vec::new(),
            accesses: Vec::new(),
            ranges: Vec::new(),
            lets: HashMap::new(),
            ok: true,
        },
        errors: Vec::new(),
        used: Vec::new(),
    };
    // Diagnostics that do not stop range inference.
    let mut warnings = Vec::new();
    // The tensor written.
    match cx.c.tensors.get(&s.lhs.name).map(|t| t.role) {
        Some(Role::Input) => cx.err(
            s.lhs.span,
            format!(
                "`{}` is an input, and TC inputs are immutable: write to an output instead",
                s.lhs.name
            ),
        ),
        Some(Role::Output) => {}
        None => cx.err(
            s.lhs.span,
            format!(
                "`{}` is not listed as an input or output of this function (temporary tensors \
                 are not supported): add it to the outputs",
                s.lhs.name
            ),
        ),
    }
    if let Some(&rank) = cx.defined.get(&s.lhs.name) {
        if rank != s.indices.len() {
            cx.err(
                s.lhs.span,
                format!(
                    "`{}` is defined with {rank} indices elsewhere but {} here",
                    s.lhs.name,
                    s.indices.len()
                ),
            );
        }
    }
    for ix in &s.indices {
        if cx.st.vars.iter().any(|v| v.name == ix.name) {
            cx.err(
                ix.span,
                format!("`{}` already defined on the left-hand side", ix.name),
            );
            continue;
        }
        if cx.c.sizes.contains_key(&ix.name) || cx.c.tensors.contains_key(&ix.name) {
            cx.err(
                ix.span,
                format!(
                    "`{}` is already a size or tensor name and cannot be an index variable",
                    ix.name
                ),
            );
            continue;
        }
        cx.st.vars.push(IndexVar {
            name: ix.name.clone(),
            span: ix.span,
            on_lhs: true,
        });
        cx.used.push(false);
    }
    // `where` clauses first, as TC does, then the right-hand side.
    for w in &s.wheres {
        match w {
            WhereClause::Range {
                var, lower, upper, ..
            } => {
                if cx.st.lets.contains_key(&var.name) {
                    cx.err(
                        var.span,
                        format!(
                            "undefined variable: `{}` is a `where` let, not an index variable, \
                             and cannot have a range",
                            var.name
                        ),
                    );
                    continue;
                }
                if cx.c.sizes.contains_key(&var.name) || cx.c.tensors.contains_key(&var.name) {
                    cx.err(
                        var.span,
                        format!("`{}` is a size or tensor, not an index variable", var.name),
                    );
                    continue;
                }
                let v = cx.index_var(&var.name, var.span);
                if cx.st.ranges.iter().any(|(x, _, _)| *x == v) {
                    cx.err(var.span, format!("`{}` has two ranges", var.name));
                    continue;
                }
                cx.size_expr(*lower);
                cx.size_expr(*upper);
                cx.st.ranges.push((v, *lower, *upper));
            }
            WhereClause::Let { name, expr, .. } => {
                if cx.st.lets.contains_key(&name.name)
                    || cx.st.vars.iter().any(|v| v.name == name.name)
                    || cx.c.sizes.contains_key(&name.name)
                    || cx.c.tensors.contains_key(&name.name)
                {
                    cx.err(name.span, format!("`{}` is already defined", name.name));
                    continue;
                }
                cx.value_expr(*expr, true);
                let size = cx.check_written_size(*expr, &format!("the let `{}`", name.name));
                cx.let_sizes.insert(name.name.clone(), size);
                let ty = cx.type_of(*expr);
                cx.let_types.insert(name.name.clone(), ty);
                cx.st.lets.insert(name.name.clone(), *expr);
            }
            WhereClause::Exists { expr, .. } => {
                cx.value_expr(*expr, true);
                cx.check_written_size(*expr, "the `exists` condition");
            }
        }
    }
    cx.value_expr(s.rhs, true);
    cx.check_written_size(s.rhs, "the right-hand side");
    let rhs_type = cx.type_of(s.rhs);
    // An output declared with a type takes only values that match into it
    // (TC's "narrower type" rule): `float` into `int32` needs a cast.
    let declared = def
        .outputs
        .iter()
        .find(|o| o.name.name == s.lhs.name)
        .and_then(|o| o.ty.as_ref())
        .map(|t| t.scalar);
    if let Some(declared) = declared {
        if !crate::types::same_type(crate::types::match_types(rhs_type, declared), declared) {
            cx.err(
                def.exprs.get(s.rhs).span,
                format!(
                    "attempting to assign type {} to narrower type {} without an explicit cast: \
                     `{}` is declared {}; write `{}(...)` around the right-hand side if the \
                     conversion is meant",
                    rhs_type.name(),
                    declared.name(),
                    s.lhs.name,
                    declared.name(),
                    declared.name()
                ),
            );
        }
    }
    if let Some((_, args)) = &s.equivalent {
        for a in args {
            cx.value_expr(*a, false);
        }
    }
    for (i, v) in cx.st.vars.clone().iter().enumerate() {
        if v.on_lhs && !cx.used[i] {
            cx.err(
                v.span,
                format!(
                    "index variable `{}` appears only on the left-hand side: use it on the right \
                     or give it a range with `where {} in lb:ub`",
                    v.name, v.name
                ),
            );
        }
    }
    let reduction: Vec<IndexVar> = cx.st.vars.iter().filter(|v| !v.on_lhs).cloned().collect();
    match s.op {
        AssignOp::Assign => {
            if let Some(r) = reduction.first() {
                // An error, but one that leaves the ranges meaningful: they
                // are still inferred (the documentation's own
                // `A(i) = B(2*i + k) where k in 0:2` is such a statement).
                warnings.push(Diagnostic::error(
                    r.span,
                    format!(
                        "this statement includes reduction variable `{}` but does not specify a \
                         reduction: use `+=!`, `*=!`, `min=!` or `max=!`",
                        r.name
                    ),
                ));
            }
        }
        AssignOp::Reduce { op, init: false } => {
            if !cx.defined.contains_key(&s.lhs.name) {
                warnings.push(Diagnostic::warning(
                    s.op_span,
                    format!(
                        "reduction without initialization: if `{}` is not pre-initialized \
                         before calling the TC function, consider using the !-suffixed \
                         reduction operator {}=! instead of {}=",
                        s.lhs.name,
                        op.symbol(),
                        op.symbol()
                    ),
                ));
            }
        }
        AssignOp::Reduce { .. } => {}
    }
    let StmtCx { mut st, errors, .. } = cx;
    st.ok = errors.is_empty();
    c.diagnostics.extend(errors);
    c.diagnostics.extend(warnings);
    if matches!(c.tensors.get(&s.lhs.name), Some(t) if t.role == Role::Output) {
        defined.entry(s.lhs.name.clone()).or_insert(s.indices.len());
        types.insert(s.lhs.name.clone(), rhs_type);
    }
    st
}
