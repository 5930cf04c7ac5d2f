//! A schedule applied to a hybrid operation's loops (TVM's `ApplySchedule`
//! of `HybridOp`): its splits and fuses rewrite the loops of the script's
//! body, its order reorders a nest of loops, and its annotations and
//! thread bindings change the loops' kinds.
//!
//! Where TVM rewrites regardless, this refuses what would change the
//! program's meaning: reordering loops that are not one nest, or whose
//! ranges depend on each other.

use crate::bound::Bounds;
use crate::error::{Result, TeError};
use crate::iter_var::IterVar;
use crate::schedule::{Relation, Stage};
use crate::simp::simp;
use arith::{Analyzer, Expr, Var};
use tir::{ForKind, Stmt, Value};

/// `body` with stage `st`'s schedule applied to its loops.
pub(crate) fn apply(st: &Stage, b: &Bounds, body: &Stmt) -> Result<Stmt> {
    let mut stmt = body.clone();
    for rel in st.relations() {
        stmt = match rel {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => split(st, b, &stmt, parent, outer, inner)?,
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => fuse(st, b, &stmt, outer, inner, fused)?,
            Relation::Singleton { .. } => {
                return Err(refuse(
                    st,
                    "`fuse()` of no axes is not supported on a hybrid operation",
                ))
            }
        };
    }
    let stmt = reorder(st, &stmt)?;
    annotate(st, &stmt)
}

fn refuse(st: &Stage, what: impl std::fmt::Display) -> TeError {
    TeError::schedule(format!("hybrid operation `{}`: {what}", st.name()))
}

fn extent_of(st: &Stage, b: &Bounds, iv: &IterVar) -> Result<Expr> {
    b.nominal_extent(iv)
        .ok_or_else(|| refuse(st, format!("no range for `{}`", iv.name())))
}

/// Rewrites the one loop over `var` with `f(min, extent, kind, body)`.
fn rewrite_loop(
    st: &Stage,
    stmt: &Stmt,
    var: &Var,
    f: &mut dyn FnMut(&Expr, &Expr, &ForKind, &Stmt) -> Result<Stmt>,
) -> Result<Stmt> {
    let mut found = 0;
    let out = rewrite(stmt, var, &mut found, f)?;
    if found != 1 {
        return Err(refuse(
            st,
            format!("its loop `{}` is not found once in its body", var.name()),
        ));
    }
    Ok(out)
}

fn rewrite(
    s: &Stmt,
    var: &Var,
    found: &mut usize,
    f: &mut dyn FnMut(&Expr, &Expr, &ForKind, &Stmt) -> Result<Stmt>,
) -> Result<Stmt> {
    /// Rewrites the loops over `var`, every other statement walked.
    struct Loop<'a, 'f> {
        var: &'a Var,
        found: &'a mut usize,
        f: &'a mut (dyn FnMut(&Expr, &Expr, &ForKind, &Stmt) -> Result<Stmt> + 'f),
    }
    impl tir::mutate::Mutator for Loop<'_, '_> {
        type Error = TeError;
        fn stmt(&mut self, s: &Stmt) -> Result<Stmt> {
            tir::stack::grow(|| match s {
                Stmt::For {
                    var,
                    min,
                    extent,
                    kind,
                    body,
                    ..
                } if var == self.var => {
                    *self.found += 1;
                    (self.f)(min, extent, kind, body)
                }
                _ => tir::mutate::walk_stmt(self, s),
            })
        }
    }
    tir::mutate::Mutator::stmt(&mut Loop { var, found, f }, s)
}

/// `s` with variables replaced (`f` gives the new value, or `None`), each
/// index changed simplified.
fn substitute(s: &Stmt, f: &mut impl FnMut(&Var) -> Option<Expr>) -> Stmt {
    let an = Analyzer::new();
    s.map_indices(&mut |e| {
        let mut changed = false;
        let out = e.substitute(&mut |v| {
            let r = f(v);
            changed |= r.is_some();
            r
        });
        if changed {
            simp(&an, out)
        } else {
            out
        }
    })
}

/// `for parent in [min, min + extent)` becomes `for outer { for inner {
/// body[parent := min + outer * factor + inner] } }`, the body guarded
/// where the factor does not divide the extent.
fn split(
    st: &Stage,
    b: &Bounds,
    stmt: &Stmt,
    parent: &IterVar,
    outer: &IterVar,
    inner: &IterVar,
) -> Result<Stmt> {
    let factor = b
        .factors
        .get(inner)
        .cloned()
        .ok_or_else(|| refuse(st, format!("no factor for `{}`", inner.name())))?;
    let (outer_ext, inner_ext) = (extent_of(st, b, outer)?, extent_of(st, b, inner)?);
    rewrite_loop(st, stmt, parent.var(), &mut |min, extent, kind, body| {
        let offset = Expr::add(Expr::mul(outer.expr(), factor.clone()), inner.expr());
        let value = Expr::add(min.clone(), offset.clone());
        let mut body = substitute(body, &mut |v| (v == parent.var()).then(|| value.clone()));
        let cond = Expr::lt(offset, extent.clone());
        let mut within = Analyzer::new();
        within.bind(outer.var(), arith::Range::from_extent(outer_ext.clone()));
        within.bind(inner.var(), arith::Range::from_extent(inner_ext.clone()));
        if simp(&within, cond.clone()).as_bool() != Some(true) {
            body = Stmt::if_then(Value::likely(Value::index(cond)), body);
        }
        let inner_loop = Stmt::for_kind(
            inner.var(),
            0,
            inner_ext.clone(),
            kind.clone(),
            Vec::new(),
            body,
        );
        Ok(Stmt::for_kind(
            outer.var(),
            0,
            outer_ext.clone(),
            kind.clone(),
            Vec::new(),
            inner_loop,
        ))
    })
}

/// `for outer { for inner { body } }` (directly nested) becomes one loop
/// over `fused`, `outer` and `inner` its quotient and remainder.
fn fuse(
    st: &Stage,
    b: &Bounds,
    stmt: &Stmt,
    outer: &IterVar,
    inner: &IterVar,
    fused: &IterVar,
) -> Result<Stmt> {
    let fused_ext = extent_of(st, b, fused)?;
    let inner_var = inner.var().clone();
    rewrite_loop(st, stmt, outer.var(), &mut |outer_min, _, kind, body| {
        let Stmt::For {
            var,
            min: inner_min,
            extent: inner_ext,
            body: inner_body,
            ..
        } = body
        else {
            return Err(refuse(
                st,
                format!(
                    "`{}` and `{}` are not directly nested loops: they cannot be fused",
                    outer.name(),
                    inner.name()
                ),
            ));
        };
        if *var != inner_var {
            return Err(refuse(
                st,
                format!(
                    "`{}` is not directly inside `{}`: they cannot be fused",
                    inner.name(),
                    outer.name()
                ),
            ));
        }
        if inner_min.uses_var(outer.var()) || inner_ext.uses_var(outer.var()) {
            return Err(refuse(
                st,
                format!(
                    "the range of `{}` depends on `{}`: they cannot be fused",
                    inner.name(),
                    outer.name()
                ),
            ));
        }
        let f = fused.expr();
        let o = Expr::add(
            outer_min.clone(),
            Expr::floor_div(f.clone(), inner_ext.clone()),
        );
        let i = Expr::add(inner_min.clone(), Expr::floor_mod(f, inner_ext.clone()));
        let body = substitute(inner_body, &mut |v| {
            if v == outer.var() {
                Some(o.clone())
            } else if v == &inner_var {
                Some(i.clone())
            } else {
                None
            }
        });
        Ok(Stmt::for_kind(
            fused.var(),
            0,
            fused_ext.clone(),
            kind.clone(),
            Vec::new(),
            body,
        ))
    })
}

/// One loop of a nest: its header.
struct Header {
    var: Var,
    min: Expr,
    extent: Expr,
    kind: ForKind,
}

/// The loops in the order the stage's leaves give them. Only a nest of
/// loops (each the whole body of the one around it, or inside a guard
/// without `else`) whose ranges do not depend on each other can be
/// reordered; the guards move inside the innermost loop.
fn reorder(st: &Stage, stmt: &Stmt) -> Result<Stmt> {
    let leaves = st.leaf_iter_vars();
    let mut current = Vec::new();
    stmt.visit(&mut |s| {
        if let Stmt::For { var, .. } = s {
            current.push(var.clone());
        }
    });
    let wanted: Vec<&Var> = leaves.iter().map(IterVar::var).collect();
    if current.iter().eq(wanted.iter().copied()) {
        return Ok(stmt.clone());
    }
    if current.len() != wanted.len() || !wanted.iter().all(|v| current.contains(v)) {
        return Err(refuse(
            st,
            "its loops cannot be reordered: they are not the stage's loops",
        ));
    }
    let mut headers = Vec::new();
    let mut guards = Vec::new();
    let mut s = stmt;
    loop {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                body,
                ..
            } => {
                headers.push(Header {
                    var: var.clone(),
                    min: min.clone(),
                    extent: extent.clone(),
                    kind: kind.clone(),
                });
                s = body;
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case: None,
            } if headers.len() < current.len() => {
                guards.push(cond.clone());
                s = then_case;
            }
            _ => break,
        }
    }
    if headers.len() != current.len() {
        return Err(refuse(
            st,
            "its loops are not one nest: they cannot be reordered",
        ));
    }
    for h in &headers {
        if headers
            .iter()
            .any(|o| h.min.uses_var(&o.var) || h.extent.uses_var(&o.var))
        {
            return Err(refuse(
                st,
                format!(
                    "the range of loop `{}` depends on another loop: the loops cannot be reordered",
                    h.var.name()
                ),
            ));
        }
    }
    let mut body = s.clone();
    for g in guards.into_iter().rev() {
        body = Stmt::if_then(g, body);
    }
    for v in wanted.iter().rev() {
        let h = headers
            .iter()
            .find(|h| &&h.var == v)
            .expect("every loop has a header");
        body = Stmt::for_kind(
            &h.var,
            h.min.clone(),
            h.extent.clone(),
            h.kind.clone(),
            Vec::new(),
            body,
        );
    }
    Ok(body)
}

/// Each leaf loop of the stage with the kind its annotation or thread
/// binding gives it; a loop bound to a thread runs over the thread's
/// index.
fn annotate(st: &Stage, stmt: &Stmt) -> Result<Stmt> {
    let mut stmt = stmt.clone();
    for iv in st.leaf_iter_vars() {
        let (kind, pragmas) = crate::lower::loop_kind(st, iv);
        if kind == ForKind::Serial && pragmas.is_empty() {
            continue;
        }
        let thread_var = match &kind {
            ForKind::Thread(t) => Some(Var::new(&t.tag)),
            _ => None,
        };
        stmt = rewrite_loop(
            st,
            &stmt,
            iv.var(),
            &mut |min, extent, _, body| match &thread_var {
                Some(tv) => {
                    if !min.is_int(0) {
                        return Err(refuse(
                            st,
                            format!("loop `{}` bound to a thread does not start at 0", iv.name()),
                        ));
                    }
                    let body = substitute(body, &mut |v| (v == iv.var()).then(|| tv.expr()));
                    Ok(Stmt::for_kind(
                        tv,
                        0,
                        extent.clone(),
                        kind.clone(),
                        pragmas.clone(),
                        body,
                    ))
                }
                None => Ok(Stmt::for_kind(
                    iv.var(),
                    min.clone(),
                    extent.clone(),
                    kind.clone(),
                    pragmas.clone(),
                    body.clone(),
                )),
            },
        )?;
    }
    Ok(stmt)
}
