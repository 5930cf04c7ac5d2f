//! Expression constructors that fold constants and drop neutral terms, so
//! derived maps print the way a person writes them (`i0 * 4 + i1`, not
//! `(i0 * 4 + i1 * 1) - 0`) without a pass through the simplifier.

use crate::error::{ErrorKind, LayoutError, Result};
use arith::{num, Expr};

fn arith_err(e: arith::ArithError) -> LayoutError {
    LayoutError::new(ErrorKind::Arith, e.message)
}

/// `a + b`.
pub fn add(a: &Expr, b: &Expr) -> Result<Expr> {
    // Neutral operands first: they need no new node.
    Ok(match (a.as_int(), b.as_int()) {
        (Some(0), _) => b.clone(),
        (_, Some(0)) => a.clone(),
        (Some(x), Some(y)) => Expr::int(num::add(x, y).map_err(arith_err)?),
        (_, Some(y)) if y < 0 && y != i64::MIN => Expr::sub(a.clone(), Expr::int(-y)),
        _ => Expr::add(a.clone(), b.clone()),
    })
}

/// `a - b`.
pub fn sub(a: &Expr, b: &Expr) -> Result<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (_, Some(0)) => a.clone(),
        (Some(x), Some(y)) => Expr::int(num::sub(x, y).map_err(arith_err)?),
        (_, Some(y)) if y < 0 && y != i64::MIN => Expr::add(a.clone(), Expr::int(-y)),
        _ if a == b => Expr::int(0),
        _ => Expr::sub(a.clone(), b.clone()),
    })
}

/// `a * b`.
pub fn mul(a: &Expr, b: &Expr) -> Result<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (Some(1), _) => b.clone(),
        (_, Some(1)) => a.clone(),
        (Some(0), _) => a.clone(),
        (_, Some(0)) => b.clone(),
        (Some(x), Some(y)) => Expr::int(num::mul(x, y).map_err(arith_err)?),
        // Constants go last, as people write `i * 4`.
        (Some(_), None) => Expr::mul(b.clone(), a.clone()),
        _ => Expr::mul(a.clone(), b.clone()),
    })
}

/// `a // b` (floor).
pub fn floor_div(a: &Expr, b: &Expr) -> Result<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (_, Some(1)) => a.clone(),
        (Some(x), Some(y)) => Expr::int(num::floor_div(x, y).map_err(arith_err)?),
        _ => Expr::floor_div(a.clone(), b.clone()),
    })
}

/// `a % b` (floor).
pub fn floor_mod(a: &Expr, b: &Expr) -> Result<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Expr::int(num::floor_mod(x, y).map_err(arith_err)?),
        (_, Some(1)) => Expr::int(0),
        _ => Expr::floor_mod(a.clone(), b.clone()),
    })
}

/// `ceildiv(a, b)`.
pub fn ceil_div(a: &Expr, b: &Expr) -> Result<Expr> {
    Ok(match (a.as_int(), b.as_int()) {
        (_, Some(1)) => a.clone(),
        (Some(x), Some(y)) => Expr::int(num::ceil_div(x, y).map_err(arith_err)?),
        _ => Expr::ceil_div(a.clone(), b.clone()),
    })
}

/// `a or b`, where either may be absent.
pub fn or(a: Option<Expr>, b: Expr) -> Expr {
    match a {
        None => b,
        Some(a) => Expr::or(a, b),
    }
}

/// `e` with every subtree free of variables replaced by its value, as TVM's
/// expression constructors fold constants (`i - 1 // 4` is `i - 0`, an
/// offset of zero). A subtree that has no value (a division by zero, an
/// overflow) is kept as written, for the analysis to report. One walk on
/// an explicit stack; untouched subtrees are shared.
pub fn constants(e: &Expr) -> Expr {
    // (node, children done?); `done` holds each finished child: its
    // rewritten form and whether it is free of variables.
    let mut pending: Vec<(&Expr, bool)> = vec![(e, false)];
    let mut done: Vec<(Expr, bool)> = Vec::new();
    while let Some((n, expanded)) = pending.pop() {
        let kids = n.children();
        if kids.is_empty() {
            done.push((n.clone(), n.as_var().is_none()));
            continue;
        }
        if !expanded {
            pending.push((n, true));
            pending.extend(kids.iter().rev().map(|c| (*c, false)));
            continue;
        }
        let at = done.len() - kids.len();
        let closed = done[at..].iter().all(|(_, c)| *c);
        let same = done[at..].iter().zip(&kids).all(|((d, _), k)| d.ptr_eq(k));
        let node = if same {
            n.clone()
        } else {
            let new: Vec<Expr> = done[at..].iter().map(|(d, _)| d.clone()).collect();
            n.with_children(&new)
        };
        done.truncate(at);
        let folded = match node.ty() {
            arith::Type::Int if closed => node.eval(&|_| None).ok().map(Expr::int),
            _ => None,
        };
        done.push((folded.unwrap_or(node), closed));
    }
    done.pop().map(|(d, _)| d).unwrap_or_else(|| e.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_subtrees_fold_and_the_rest_is_shared() {
        let (e, scope) = arith::parse_with_scope("i - 1 // 4 + (n + 2 * 3) // (8 // 2)").unwrap();
        assert_eq!(constants(&e).to_string(), "i - 0 + (n + 6) // 4");
        let (e, _) = arith::parse_with_scope("i // (1 // 0) + 5 * 2").unwrap();
        assert_eq!(constants(&e).to_string(), "i // (1 // 0) + 10");
        let x = scope.get("i").unwrap().expr();
        assert!(constants(&x).ptr_eq(&x));
        let mut long = x.clone();
        for k in 0..50_000 {
            long = Expr::add(long, Expr::floor_div(Expr::int(k), Expr::int(7)));
        }
        assert_eq!(constants(&long).node_count(), 100_001);
    }
}
