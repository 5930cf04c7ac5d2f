//! The canonical linear form: a sum of scaled atoms plus one constant.
//!
//! `x*4 + y - (y + 2)*1` flattens to `{x: 4, y: 0} + -2`, i.e. `x * 4 - 2`.
//! Atoms are simplified expressions that are not themselves sums, constants
//! or products with a constant. Terms are kept sorted by
//! [`Expr::structural_cmp`], so equal sums rebuild to equal trees.

use crate::error::Result;
use crate::expr::{Expr, ExprKind};
use crate::num;
use smallvec::SmallVec;

/// One `atom * coeff` term; `coeff` is never zero.
#[derive(Clone, Debug)]
pub(crate) struct Term {
    pub atom: Expr,
    pub coeff: i64,
    /// What is known about `atom`, when the simplifier already computed it.
    pub info: Option<super::Info>,
}

/// `sum(terms) + konst`.
///
/// Two terms are kept inline: most sums of index code have one or two, and
/// linear forms are moved around often enough that a smaller form is
/// faster than saving the allocation of the rare longer one (corpus batch:
/// 2.8% fewer instructions than four inline).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sum {
    pub terms: SmallVec<[Term; 2]>,
    pub konst: i64,
}

impl Sum {
    /// The constant `k`.
    pub fn constant(k: i64) -> Sum {
        Sum {
            terms: SmallVec::new(),
            konst: k,
        }
    }

    /// The linear form of an already simplified expression.
    pub fn of(e: &Expr) -> Result<Sum> {
        let mut s = Sum::default();
        s.add_expr(e, 1)?;
        Ok(s)
    }

    /// Adds `coeff * e` for an already simplified `e`, flattening sums and
    /// products with constants. Long chains (a parsed sum of thousands of
    /// terms is a left-deep tree) are walked on an explicit stack and merged
    /// in one sort.
    pub fn add_expr(&mut self, e: &Expr, coeff: i64) -> Result<()> {
        if coeff == 0 {
            return Ok(());
        }
        if e.node_count() <= 64 {
            return self.add_small_expr(e, coeff);
        }
        let mut atoms: SmallVec<[Term; 2]> = SmallVec::new();
        let mut stack: SmallVec<[(&Expr, i64); 8]> = SmallVec::new();
        stack.push((e, coeff));
        while let Some((e, coeff)) = stack.pop() {
            match e.kind() {
                ExprKind::Int(v) => self.konst = num::add(self.konst, num::mul(*v, coeff)?)?,
                // Right operand pushed first so terms come out left to right.
                ExprKind::Add(a, b) => {
                    stack.push((b, coeff));
                    stack.push((a, coeff));
                }
                ExprKind::Sub(a, b) => {
                    stack.push((b, num::neg(coeff)?));
                    stack.push((a, coeff));
                }
                ExprKind::Mul(a, b) if b.as_int().is_some() => {
                    stack.push((a, num::mul(coeff, b.as_int().unwrap_or(1))?))
                }
                ExprKind::Mul(a, b) if a.as_int().is_some() => {
                    stack.push((b, num::mul(coeff, a.as_int().unwrap_or(1))?))
                }
                _ => atoms.push(Term {
                    atom: e.clone(),
                    coeff,
                    info: None,
                }),
            }
        }
        self.add_terms(atoms)
    }

    /// [`Sum::add_expr`] for a small tree: recursion is shallow, and terms
    /// go in one at a time.
    fn add_small_expr(&mut self, e: &Expr, coeff: i64) -> Result<()> {
        match e.kind() {
            ExprKind::Int(v) => self.konst = num::add(self.konst, num::mul(*v, coeff)?)?,
            ExprKind::Add(a, b) => {
                self.add_small_expr(a, coeff)?;
                self.add_small_expr(b, coeff)?;
            }
            ExprKind::Sub(a, b) => {
                self.add_small_expr(a, coeff)?;
                self.add_small_expr(b, num::neg(coeff)?)?;
            }
            ExprKind::Mul(a, b) if b.as_int().is_some() => {
                self.add_small_expr(a, num::mul(coeff, b.as_int().unwrap_or(1))?)?
            }
            ExprKind::Mul(a, b) if a.as_int().is_some() => {
                self.add_small_expr(b, num::mul(coeff, a.as_int().unwrap_or(1))?)?
            }
            _ => self.add_atom_info(e, coeff, None)?,
        }
        Ok(())
    }

    /// Adds many `coeff * atom` terms: one at a time when few, otherwise
    /// by one sort and merge (near-linear in the number of terms).
    pub fn add_terms(&mut self, terms: SmallVec<[Term; 2]>) -> Result<()> {
        if terms.len() < 16 {
            for t in terms {
                self.add_atom_info(&t.atom, t.coeff, t.info)?;
            }
            return Ok(());
        }
        let mut all: Vec<Term> = std::mem::take(&mut self.terms).into_vec();
        all.extend(terms.into_iter().filter(|t| t.coeff != 0));
        // Stable: equal atoms keep their order, so the first one's facts
        // are kept.
        all.sort_by(|a, b| a.atom.structural_cmp(&b.atom));
        let mut out: SmallVec<[Term; 2]> = SmallVec::with_capacity(all.len());
        for t in all {
            match out.last_mut() {
                Some(last)
                    if last.atom.structural_hash() == t.atom.structural_hash()
                        && last.atom == t.atom =>
                {
                    last.coeff = num::add(last.coeff, t.coeff)?;
                    if last.info.is_none() {
                        last.info = t.info;
                    }
                }
                _ => {
                    if out.last().is_some_and(|l| l.coeff == 0) {
                        out.pop();
                    }
                    out.push(t);
                }
            }
        }
        if out.last().is_some_and(|l| l.coeff == 0) {
            out.pop();
        }
        self.terms = out;
        Ok(())
    }

    /// Adds `coeff * atom` for an atom (not a sum, constant or scaled term).
    pub fn add_atom(&mut self, atom: &Expr, coeff: i64) -> Result<()> {
        self.add_atom_info(atom, coeff, None)
    }

    pub(crate) fn add_atom_info(
        &mut self,
        atom: &Expr,
        coeff: i64,
        info: Option<super::Info>,
    ) -> Result<()> {
        if coeff == 0 {
            return Ok(());
        }
        // Terms are sorted by `structural_cmp`. Few terms: a scan comparing
        // cached hashes first; many: binary search.
        let pos = if self.terms.len() <= 8 {
            let h = atom.structural_hash();
            match self
                .terms
                .iter()
                .position(|t| t.atom.structural_hash() == h && t.atom == *atom)
            {
                Some(i) => Ok(i),
                None => Err(self
                    .terms
                    .iter()
                    .position(|t| t.atom.structural_cmp(atom) == std::cmp::Ordering::Greater)
                    .unwrap_or(self.terms.len())),
            }
        } else {
            self.terms.binary_search_by(|t| t.atom.structural_cmp(atom))
        };
        match pos {
            Ok(i) if self.terms[i].atom == *atom => {
                let c = num::add(self.terms[i].coeff, coeff)?;
                if c == 0 {
                    self.terms.remove(i);
                } else {
                    self.terms[i].coeff = c;
                }
                Ok(())
            }
            Ok(i) | Err(i) => {
                self.terms.insert(
                    i,
                    Term {
                        atom: atom.clone(),
                        coeff,
                        info,
                    },
                );
                Ok(())
            }
        }
    }

    /// Adds `scale * other`.
    pub fn add_sum(&mut self, other: &Sum, scale: i64) -> Result<()> {
        for t in &other.terms {
            self.add_atom(&t.atom, num::mul(t.coeff, scale)?)?;
        }
        self.konst = num::add(self.konst, num::mul(other.konst, scale)?)?;
        Ok(())
    }

    /// Multiplies every coefficient and the constant by `k`.
    pub fn scale(&mut self, k: i64) -> Result<()> {
        if k == 0 {
            self.terms.clear();
            self.konst = 0;
            return Ok(());
        }
        for t in &mut self.terms {
            t.coeff = num::mul(t.coeff, k)?;
        }
        self.konst = num::mul(self.konst, k)?;
        Ok(())
    }

    /// Whether this is a single constant.
    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.konst)
    }

    /// gcd of all term coefficients (0 when there are no terms).
    pub fn coeff_gcd(&self) -> i64 {
        self.terms.iter().fold(0, |g, t| num::gcd(g, t.coeff))
    }

    /// `b` when `self` holds `b * x` term by term (`x`'s constant aside),
    /// for a nonzero integer `b`.
    pub fn multiple_inside(&self, x: &Sum) -> Option<i64> {
        let coeff_here = |atom: &Expr| self.terms.iter().find(|t| t.atom == *atom).map(|t| t.coeff);
        let first = x.terms.first()?;
        let c = coeff_here(&first.atom)?;
        if c.checked_rem(first.coeff)? != 0 {
            return None;
        }
        let b = c.checked_div(first.coeff)?;
        x.terms
            .iter()
            .all(|t| {
                t.coeff
                    .checked_mul(b)
                    .is_some_and(|v| coeff_here(&t.atom) == Some(v))
            })
            .then_some(b)
    }

    /// The expression, positive terms first, then negative ones subtracted,
    /// then the constant; a common constant factor comes out when that is
    /// smaller (`y * 10 - z * 5` is `(y * 2 - z) * 5`).
    pub fn rebuild(&self) -> Expr {
        match self.factor() {
            Some(g) if self.flat_cost_scaled(g) + 2 < self.flat_cost_scaled(1) => {
                let mut inner = self.clone();
                let mut exact = true;
                for t in &mut inner.terms {
                    match t.coeff.checked_div(g) {
                        Some(c) => t.coeff = c,
                        None => exact = false,
                    }
                }
                match inner.konst.checked_div(g) {
                    Some(k) if exact => inner.konst = k,
                    _ => return self.rebuild_flat(),
                }
                Expr::mul(inner.rebuild_flat(), Expr::int(g))
            }
            _ => self.rebuild_flat(),
        }
    }

    /// The signed common factor `g` of all coefficients and the constant
    /// (`|g| > 1`, or `-1` when every term is negative) whose quotient sum is
    /// smallest.
    fn factor(&self) -> Option<i64> {
        if self.terms.len() < 2 {
            return None;
        }
        let g = num::gcd(self.coeff_gcd(), self.konst);
        if g <= 1 && self.terms.iter().any(|t| t.coeff > 0) {
            return None;
        }
        if g > 1 && self.flat_cost_scaled(g) <= self.flat_cost_scaled(-g) {
            Some(g)
        } else {
            Some(-g)
        }
    }

    fn rebuild_flat(&self) -> Expr {
        let scaled = |t: &Term, c: i64| {
            if c == 1 {
                t.atom.clone()
            } else {
                Expr::mul(t.atom.clone(), Expr::int(c))
            }
        };
        // Larger strides first, as TVM and XLA print index sums
        // (`xo * 4 + xi`); the sort is stable, so ties keep the canonical
        // order.
        let mut order: SmallVec<[&Term; 4]> = self.terms.iter().collect();
        order.sort_by_key(|t| std::cmp::Reverse(t.coeff.unsigned_abs()));
        let mut acc: Option<Expr> = None;
        for t in order.iter().copied().filter(|t| t.coeff > 0) {
            let e = scaled(t, t.coeff);
            acc = Some(match acc {
                Some(a) => Expr::add(a, e),
                None => e,
            });
        }
        let mut konst_done = false;
        if acc.is_none() && self.konst != 0 {
            acc = Some(Expr::int(self.konst));
            konst_done = true;
        }
        for t in order.iter().copied().filter(|t| t.coeff < 0) {
            acc = Some(match (acc, t.coeff.checked_neg()) {
                (Some(a), Some(c)) => Expr::sub(a, scaled(t, c)),
                (Some(a), None) => Expr::add(a, scaled(t, t.coeff)),
                (None, _) => scaled(t, t.coeff),
            });
        }
        let acc = match acc {
            None => return Expr::int(self.konst),
            Some(a) => a,
        };
        if konst_done || self.konst == 0 {
            acc
        } else if self.konst < 0 && self.konst != i64::MIN {
            Expr::sub(acc, Expr::int(-self.konst))
        } else {
            Expr::add(acc, Expr::int(self.konst))
        }
    }

    /// The node count of [`Sum::rebuild`], without building it.
    pub fn cost(&self) -> usize {
        let flat = self.flat_cost_scaled(1);
        match self.factor() {
            Some(g) => flat.min(self.flat_cost_scaled(g) + 2),
            None => flat,
        }
    }

    /// The node count of the flat rebuild of `self / g`.
    fn flat_cost_scaled(&self, g: i64) -> usize {
        if self.terms.is_empty() {
            return 1;
        }
        let unit = |c: i64| c == g || c == -g;
        let mut n: usize = self
            .terms
            .iter()
            .map(|t| t.atom.node_count() + if unit(t.coeff) { 0 } else { 2 })
            .sum();
        n += self.terms.len() - 1;
        let all_negative = self.terms.iter().all(|t| (t.coeff < 0) == (g > 0));
        if self.konst != 0 {
            n += 2;
        } else if all_negative && self.terms.iter().all(|t| unit(t.coeff)) {
            // a leading negative term prints as `atom * -1`
            n += 2;
        }
        n
    }
}

/// One atom of the linear form of `e` (the leftmost), found without
/// building the form: a cheap test for whether `e` can sit inside a sum.
pub(crate) fn leading_atom(e: &Expr) -> Option<&Expr> {
    let mut e = e;
    loop {
        e = match e.kind() {
            ExprKind::Add(a, _) | ExprKind::Sub(a, _) => a,
            ExprKind::Mul(a, b) if b.as_int().is_some() => a,
            ExprKind::Mul(a, b) if a.as_int().is_some() => b,
            ExprKind::Int(_) => return None,
            _ => return Some(e),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn cost_matches_rebuild() {
        for text in [
            "x * 4 + y - 3",
            "0 - x",
            "x * -3",
            "5",
            "0",
            "-3 - x - y",
            "x - y + 7",
            "x*2 + y*-1",
        ] {
            let e = parse(text).unwrap();
            let s = Sum::of(&e).unwrap();
            assert_eq!(
                s.cost(),
                s.rebuild().node_count(),
                "{text} -> {}",
                s.rebuild()
            );
        }
    }
}
