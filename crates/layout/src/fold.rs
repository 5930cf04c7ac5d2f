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
