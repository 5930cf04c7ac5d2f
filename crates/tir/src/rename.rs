//! Distinct names for nested loop variables, as `tvm.lower` prints them: a
//! loop (or `let`) inside another of the same name becomes `i_1`, `i_2`, ...
//! so that a printed program never mixes two loops under one name
//! (`A[i, i]` with `i` from two loops). Sibling loops keep their names.

use crate::mutate::{walk_stmt, Mutator};
use crate::stmt::Stmt;
use crate::value::Value;
use arith::Var;
use std::collections::{HashMap, HashSet};

/// `s` with every loop and `let` variable whose name an enclosing one
/// already has renamed to the first `name_k` no binder of `s` uses. Takes
/// `s` by value: a program without shadowing (the common case) is returned
/// as it is, without a copy.
///
/// ```
/// use arith::Var;
/// use tir::{Buffer, DataType, Stmt, Value};
/// let b = Buffer::new("B", DataType::Int32, [4i64, 4]);
/// let (i, inner) = (Var::new("i"), Var::new("i"));
/// let s = Stmt::for_range(&i, 0, 4, Stmt::for_range(&inner, 0, 4,
///     Stmt::store(&b, [i.expr(), inner.expr()], Value::i32(1))));
/// let text = tir::rename_shadowing(s).to_string();
/// assert!(text.contains("for (i_1, 0, 4)") && text.contains("B[i, i_1] = 1"), "{text}");
/// ```
pub fn rename_shadowing(s: Stmt) -> Stmt {
    let mut taken: HashSet<String> = HashSet::new();
    s.visit(&mut |st| {
        if let Stmt::For { var, .. } | Stmt::Let { var, .. } | Stmt::LetValue { var, .. } = st {
            taken.insert(var.name().to_owned());
        }
    });
    let mut renamed: HashMap<Var, Var> = HashMap::new();
    find_shadowing(&s, &mut Vec::new(), &mut taken, &mut renamed);
    if renamed.is_empty() {
        return s;
    }
    let uses = s.substitute(&mut |v| renamed.get(v).map(Var::expr));
    rename_binders(&uses, &renamed)
}

/// Walks `s` with the names bound around it in `scope`, choosing a fresh
/// name for each binder whose name an enclosing binder already has.
fn find_shadowing(
    s: &Stmt,
    scope: &mut Vec<String>,
    taken: &mut HashSet<String>,
    renamed: &mut HashMap<Var, Var>,
) {
    // Statements nest as deep as a pipeline is long.
    crate::stack::grow(|| find_shadowing_step(s, scope, taken, renamed))
}

/// One level of [`find_shadowing`], on the stack [`crate::stack::grow`] left room on.
fn find_shadowing_step(
    s: &Stmt,
    scope: &mut Vec<String>,
    taken: &mut HashSet<String>,
    renamed: &mut HashMap<Var, Var>,
) {
    if let Stmt::For { var, body, .. }
    | Stmt::Let { var, body, .. }
    | Stmt::LetValue { var, body, .. } = s
    {
        let name = match renamed.get(var) {
            Some(r) => r.name().to_owned(),
            None if scope.iter().any(|n| n == var.name()) => {
                let fresh = (1..)
                    .map(|k| format!("{}_{k}", var.name()))
                    .find(|n| !taken.contains(n))
                    .expect("some suffix is free");
                taken.insert(fresh.clone());
                renamed.insert(var.clone(), Var::new(fresh.clone()));
                fresh
            }
            None => var.name().to_owned(),
        };
        scope.push(name);
        find_shadowing(body, scope, taken, renamed);
        scope.pop();
        return;
    }
    for child in s.children() {
        find_shadowing(child, scope, taken, renamed);
    }
}

fn rename_binders(s: &Stmt, renamed: &HashMap<Var, Var>) -> Stmt {
    match (Binders { renamed }).stmt(s) {
        Ok(s) => s,
        Err(never) => match never {},
    }
}

/// Gives loops and `let`s their new variables; everything else is kept.
struct Binders<'a> {
    renamed: &'a HashMap<Var, Var>,
}

impl Mutator for Binders<'_> {
    type Error = std::convert::Infallible;

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, Self::Error> {
        let rename = |v: &Var| self.renamed.get(v).cloned().unwrap_or_else(|| v.clone());
        let mut out = walk_stmt(self, s)?;
        if let Stmt::For { var, .. } | Stmt::Let { var, .. } | Stmt::LetValue { var, .. } = &mut out
        {
            *var = rename(var);
        }
        Ok(out)
    }

    fn value(&mut self, v: &Value) -> Result<Value, Self::Error> {
        Ok(v.clone())
    }
}
