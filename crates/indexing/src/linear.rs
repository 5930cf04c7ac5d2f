//! Linear views of expressions: `sum(coeff * atom) + constant`.

use arith::{Expr, ExprKind};

/// `sum(terms) + konst`, where each term is `atom * coeff` and atoms are
/// expressions that are not sums or products with a constant.
#[derive(Clone, Debug, Default)]
pub(crate) struct Linear {
    pub terms: Vec<(Expr, i64)>,
    pub konst: i64,
}

impl Linear {
    /// The linear view of `e`, or `None` when a coefficient overflows.
    pub fn of(e: &Expr) -> Option<Linear> {
        let mut l = Linear::default();
        l.add(e, 1)?;
        l.terms.retain(|(_, c)| *c != 0);
        Some(l)
    }

    fn add(&mut self, e: &Expr, coeff: i64) -> Option<()> {
        match e.kind() {
            ExprKind::Int(v) => self.konst = self.konst.checked_add(v.checked_mul(coeff)?)?,
            ExprKind::Add(a, b) => {
                self.add(a, coeff)?;
                self.add(b, coeff)?;
            }
            ExprKind::Sub(a, b) => {
                self.add(a, coeff)?;
                self.add(b, coeff.checked_neg()?)?;
            }
            ExprKind::Mul(a, b) if b.as_int().is_some() => {
                self.add(a, coeff.checked_mul(b.as_int()?)?)?
            }
            ExprKind::Mul(a, b) if a.as_int().is_some() => {
                self.add(b, coeff.checked_mul(a.as_int()?)?)?
            }
            _ => match self.terms.iter_mut().find(|(t, _)| t == e) {
                Some((_, c)) => *c = c.checked_add(coeff)?,
                None => self.terms.push((e.clone(), coeff)),
            },
        }
        Some(())
    }

    /// The expression `sum(terms) + konst` (raw tree; order it for printing).
    pub fn to_expr(&self) -> Expr {
        let mut acc: Option<Expr> = None;
        for (atom, c) in &self.terms {
            let t = if *c == 1 {
                atom.clone()
            } else {
                Expr::mul(atom.clone(), Expr::int(*c))
            };
            acc = Some(match acc {
                Some(a) => Expr::add(a, t),
                None => t,
            });
        }
        match (acc, self.konst) {
            (None, k) => Expr::int(k),
            (Some(a), 0) => a,
            (Some(a), k) => Expr::add(a, Expr::int(k)),
        }
    }

    /// gcd of the absolute coefficients (0 without terms).
    pub fn coeff_gcd(&self) -> i64 {
        self.terms
            .iter()
            .fold(0, |g, (_, c)| arith::num::gcd(g, *c))
    }
}
