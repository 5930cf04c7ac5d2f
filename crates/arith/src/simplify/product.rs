//! Products of non-constant factors as sorted factor lists.
//!
//! `y * x * 32 * x` is the factors `[x, x, y]` times `32`; products are
//! rebuilt left-nested in [`Expr::structural_cmp`] order, so equal products
//! are equal trees, and division by a product is multiset subtraction.

use crate::expr::{Expr, ExprKind};
use smallvec::SmallVec;
use std::cmp::Ordering;

pub(crate) type Factors = SmallVec<[Expr; 4]>;

/// The non-constant factors of `e` (sorted) and its constant factor, or
/// `None` when the constant factors overflow.
pub(crate) fn factors(e: &Expr) -> Option<(Factors, i64)> {
    let mut out = Factors::new();
    let mut k = 1i64;
    collect(e, &mut out, &mut k)?;
    out.sort_by(|a, b| a.structural_cmp(b));
    Some((out, k))
}

/// Walks a chain of products on an explicit stack (long parsed products
/// are deep left-nested trees).
fn collect(e: &Expr, out: &mut Factors, k: &mut i64) -> Option<()> {
    let mut stack: SmallVec<[&Expr; 8]> = SmallVec::new();
    stack.push(e);
    while let Some(e) = stack.pop() {
        match e.kind() {
            ExprKind::Mul(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            ExprKind::Int(v) => *k = k.checked_mul(*v)?,
            _ => out.push(e.clone()),
        }
    }
    Some(())
}

/// The product of sorted factors (without a constant); `1` when empty.
pub(crate) fn build(fs: &[Expr]) -> Expr {
    let mut it = fs.iter();
    let Some(first) = it.next() else {
        return Expr::int(1);
    };
    it.fold(first.clone(), |acc, f| Expr::mul(acc, f.clone()))
}

/// `num / den` as factor multisets, when every factor of `den` is in `num`.
pub(crate) fn divide(num: &[Expr], den: &[Expr]) -> Option<Factors> {
    let mut rest: Factors = num.iter().cloned().collect();
    for d in den {
        let i = rest.iter().position(|f| f == d)?;
        rest.remove(i);
    }
    Some(rest)
}

/// The factors common to both multisets (sorted).
pub(crate) fn common(a: &[Expr], b: &[Expr]) -> Factors {
    let mut rest: Factors = b.iter().cloned().collect();
    let mut out = Factors::new();
    for f in a {
        if let Some(i) = rest.iter().position(|g| g == f) {
            out.push(rest.remove(i));
        }
    }
    out
}

/// Merges two sorted factor lists.
pub(crate) fn merge(a: &[Expr], b: &[Expr]) -> Factors {
    let mut out: Factors = a.iter().chain(b).cloned().collect();
    out.sort_by(|x, y| x.structural_cmp(y));
    out
}

/// Whether `a` sorts before `b` (for canonical operand order).
pub(crate) fn before(a: &Expr, b: &Expr) -> bool {
    a.structural_cmp(b) == Ordering::Less
}
