//! The linear form of an expression, `sum(coeff * atom) + constant`, as a
//! public type for the crates that reason about index sums (map
//! composition, lowering, bound inference).

use crate::error::Result;
use crate::expr::Expr;
use crate::simplify::sum::Sum;

/// `sum(coeff * atom) + constant`: atoms are the parts of the expression
/// that are not sums, differences, constants or products with a constant;
/// like atoms are merged and the terms are in canonical order.
///
/// ```
/// use arith::LinearForm;
/// let (e, _) = arith::parse_with_scope("x * 4 + (y - x) * 2 + 3 - y * 2").unwrap();
/// let l = LinearForm::of(&e).unwrap();
/// assert_eq!(l.terms.len(), 1);
/// assert_eq!((l.terms[0].0.to_string(), l.terms[0].1, l.constant), ("x".to_string(), 2, 3));
/// assert_eq!(l.to_expr().to_string(), "x * 2 + 3");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinearForm {
    /// `(atom, coefficient)` pairs, coefficients never zero, atoms distinct.
    pub terms: Vec<(Expr, i64)>,
    /// The constant.
    pub constant: i64,
}

impl LinearForm {
    /// The linear form of `e` (without simplifying its atoms). Long chains
    /// are walked without recursion. An overflowing coefficient or constant
    /// is an error.
    pub fn of(e: &Expr) -> Result<LinearForm> {
        Ok(LinearForm::from_sum(&Sum::of(e)?))
    }

    pub(crate) fn from_sum(s: &Sum) -> LinearForm {
        LinearForm {
            terms: s.terms.iter().map(|t| (t.atom.clone(), t.coeff)).collect(),
            constant: s.konst,
        }
    }

    fn to_sum(&self) -> Result<Sum> {
        let mut s = Sum::constant(self.constant);
        for (a, c) in &self.terms {
            s.add_expr(a, *c)?;
        }
        Ok(s)
    }

    /// The expression in the simplifier's canonical form (larger strides
    /// first, the constant last).
    pub fn to_expr(&self) -> Expr {
        match self.to_sum() {
            Ok(s) => s.rebuild(),
            // Only an overflow when merging terms given by hand; the plain
            // sum is still the same value.
            Err(_) => {
                let mut acc = Expr::int(self.constant);
                for (a, c) in &self.terms {
                    acc = Expr::add(acc, Expr::mul(a.clone(), Expr::int(*c)));
                }
                acc
            }
        }
    }

    /// The coefficient of `atom` (0 when absent).
    pub fn coeff_of(&self, atom: &Expr) -> i64 {
        self.terms
            .iter()
            .find(|(a, _)| a == atom)
            .map_or(0, |(_, c)| *c)
    }

    /// The gcd of the coefficients (0 without terms).
    pub fn coeff_gcd(&self) -> i64 {
        self.terms
            .iter()
            .fold(0, |g, (_, c)| crate::num::gcd(g, *c))
    }

    /// The constant, when there are no terms.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
}
