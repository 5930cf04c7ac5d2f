//! The range-aware simplifier.
//!
//! One bottom-up pass: every node's children are simplified first, then the
//! rules of the node's operator (one file each, as in Halide) rewrite it using
//! what the children's [`Info`] (constant bounds and alignment) proves.
//! Sums, differences and products with constants are collected into the
//! canonical linear form of [`sum`], so like terms merge wherever they come
//! from. Rewrites never make an expression larger: where a rule has a choice
//! of forms, it takes the one with fewer nodes.
//!
//! The contract, checked by property tests: for every assignment of the
//! variables inside their ranges at which the input is defined, the output
//! is defined and has the same value.

mod cmp;
mod div;
mod logic;
mod minmax;
mod select;
pub(crate) mod sum;

use crate::analyzer::Analyzer;
use crate::bound::ConstBound;
use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{Expr, ExprKind};
use crate::modular::Modular;
use crate::num;
use sum::Sum;

/// What is known about a simplified expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    /// Constant bounds.
    pub bound: ConstBound,
    /// Alignment.
    pub modular: Modular,
}

impl Info {
    /// Exactly `v`.
    pub fn exact(v: i64) -> Info {
        Info { bound: ConstBound::point(v), modular: Modular::exact(v) }
    }

    /// Nothing known.
    pub const ANY: Info = Info { bound: ConstBound::EVERYTHING, modular: Modular::EVERYTHING };

    /// A truth value.
    pub const BOOL: Info = Info { bound: ConstBound::BOOL, modular: Modular::EVERYTHING };
}

/// One simplification run over one expression.
pub(crate) struct Simplifier<'a> {
    pub an: &'a Analyzer,
}

pub(crate) type Out = Result<(Expr, Info)>;

pub(crate) fn division_by_zero() -> ArithError {
    ArithError::new(
        ErrorKind::DivisionByZero,
        "division or modulo by the constant zero: the expression has no value",
    )
}

impl<'a> Simplifier<'a> {
    pub fn new(an: &'a Analyzer) -> Simplifier<'a> {
        Simplifier { an }
    }

    /// Simplifies `e`, returning the result and what is known about it.
    pub fn visit(&mut self, e: &Expr) -> Out {
        use ExprKind::*;
        match e.kind() {
            Int(v) => Ok((e.clone(), Info::exact(*v))),
            Bool(b) => Ok((e.clone(), Info::exact(*b as i64))),
            Var(v) => {
                let info = self.an.var_info(v);
                match info.bound.as_point() {
                    Some(c) => Ok((Expr::int(c), Info::exact(c))),
                    None => Ok((e.clone(), info)),
                }
            }
            Add(..) | Sub(..) => self.visit_sum(e),
            Mul(a, b) => self.visit_mul(a, b),
            FloorDiv(a, b) => self.visit_floor_div(a, b),
            FloorMod(a, b) => self.visit_floor_mod(a, b),
            CeilDiv(a, b) => self.visit_ceil_div(a, b),
            Min(a, b) => self.visit_min_max(a, b, true),
            Max(a, b) => self.visit_min_max(a, b, false),
            Select(c, a, b) => self.visit_select(c, a, b),
            Cmp(op, a, b) => self.visit_cmp(*op, a, b),
            And(a, b) => self.visit_and(a, b),
            Or(a, b) => self.visit_or(a, b),
            Not(a) => self.visit_not(a),
        }
    }

    /// What is known about an already simplified expression, computed from
    /// its structure (no rewriting).
    pub fn info(&self, e: &Expr) -> Info {
        self.an.structural_info(e)
    }

    // ---------------------------------------------------------------- sums

    /// Collects the whole tree of `+`, `-` and products with constants under
    /// `e` into one linear form, simplifying each leaf once.
    fn visit_sum(&mut self, e: &Expr) -> Out {
        let mut s = Sum::default();
        self.collect(e, 1, &mut s)?;
        self.finish_sum(s)
    }

    fn collect(&mut self, e: &Expr, coeff: i64, s: &mut Sum) -> Result<()> {
        match e.kind() {
            ExprKind::Add(a, b) => {
                self.collect(a, coeff, s)?;
                self.collect(b, coeff, s)
            }
            ExprKind::Sub(a, b) => {
                self.collect(a, coeff, s)?;
                self.collect(b, num::neg(coeff)?, s)
            }
            ExprKind::Int(v) => {
                s.konst = num::add(s.konst, num::mul(*v, coeff)?)?;
                Ok(())
            }
            _ => {
                let (x, _) = self.visit(e)?;
                s.add_expr(&x, coeff)
            }
        }
    }

    /// Applies the sum-level rules and rebuilds.
    pub(crate) fn finish_sum(&mut self, mut s: Sum) -> Out {
        self.sum_rules(&mut s)?;
        let e = s.rebuild();
        let info = self.sum_info(&s);
        if let Some(c) = info.bound.as_point() {
            return Ok((Expr::int(c), Info::exact(c)));
        }
        Ok((e, info))
    }

    /// Bounds and alignment of a linear form from its atoms.
    pub(crate) fn sum_info(&self, s: &Sum) -> Info {
        let mut bound = ConstBound::point(s.konst);
        let mut modular = Modular::exact(s.konst);
        for t in &s.terms {
            let i = self.info(&t.atom);
            bound = bound.add(i.bound.mul_const(t.coeff));
            modular = modular.add(i.modular.mul(Modular::exact(t.coeff)));
        }
        Info { bound, modular }
    }

    /// Bounds of a linear form.
    pub(crate) fn sum_bound(&self, s: &Sum) -> ConstBound {
        self.sum_info(s).bound
    }

    /// Rules that look at several terms of a sum at once.
    fn sum_rules(&mut self, s: &mut Sum) -> Result<()> {
        if s.terms.len() < 2 {
            return Ok(());
        }
        self.merge_div_mod(s)?;
        self.merge_selects(s)?;
        self.factor_common(s)?;
        Ok(())
    }

    /// `X // c * (k*c)` and `X % c * k` terms: trying the other form of each
    /// (`X % c = X - X // c * c`) and keeping it when the sum gets smaller
    /// turns `x // 3 * 3 + x % 3` into `x` and
    /// `(y + z) // 5 * 5 - y` into `z - (y + z) % 5`.
    fn merge_div_mod(&mut self, s: &mut Sum) -> Result<()> {
        let mut i = 0;
        while i < s.terms.len() {
            let t = s.terms[i].clone();
            let (x, c, is_div) = match t.atom.kind() {
                ExprKind::FloorDiv(x, c) => (x, c, true),
                ExprKind::FloorMod(x, c) => (x, c, false),
                _ => {
                    i += 1;
                    continue;
                }
            };
            let Some(cv) = c.as_int() else {
                i += 1;
                continue;
            };
            if cv == 0 || (is_div && t.coeff % cv != 0) {
                i += 1;
                continue;
            }
            // X // c * (k c) = k X - k (X % c);  X % c * k = k X - k c (X // c)
            let mut alt = s.clone();
            alt.terms.remove(i);
            let k = if is_div { t.coeff / cv } else { t.coeff };
            let other = if is_div {
                self.visit(&Expr::floor_mod(x.clone(), c.clone()))?.0
            } else {
                self.visit(&Expr::floor_div(x.clone(), c.clone()))?.0
            };
            let other_coeff = if is_div { num::neg(k)? } else { num::neg(num::mul(k, cv)?)? };
            let ok = alt.add_expr(x, k).and_then(|_| alt.add_expr(&other, other_coeff));
            if ok.is_ok() && alt.cost() < s.cost() {
                *s = alt;
                i = 0;
                continue;
            }
            i += 1;
        }
        Ok(())
    }

    /// `select(c, a, b) + select(c, d, e)` is `select(c, a + d, b + e)`.
    fn merge_selects(&mut self, s: &mut Sum) -> Result<()> {
        let mut i = 0;
        while i < s.terms.len() {
            let ExprKind::Select(c1, a1, b1) = s.terms[i].atom.kind() else {
                i += 1;
                continue;
            };
            let found = (i + 1..s.terms.len()).find(|&j| {
                matches!(s.terms[j].atom.kind(), ExprKind::Select(c2, ..) if c2 == c1)
            });
            let Some(j) = found else {
                i += 1;
                continue;
            };
            let ExprKind::Select(_, a2, b2) = s.terms[j].atom.kind() else { unreachable!() };
            let (k1, k2) = (s.terms[i].coeff, s.terms[j].coeff);
            let branch = |x: &Expr, y: &Expr| -> Result<Sum> {
                let mut t = Sum::default();
                t.add_expr(x, k1)?;
                t.add_expr(y, k2)?;
                Ok(t)
            };
            let (ta, tb) = (branch(a1, a2)?, branch(b1, b2)?);
            let (ea, _) = self.finish_sum(ta)?;
            let (eb, _) = self.finish_sum(tb)?;
            let merged = self.make_select(c1.clone(), ea, eb)?.0;
            let mut alt = s.clone();
            alt.terms.remove(j);
            alt.terms.remove(i);
            alt.add_expr(&merged, 1)?;
            if alt.cost() <= s.cost() {
                *s = alt;
                i = 0;
                continue;
            }
            i += 1;
        }
        Ok(())
    }

    /// `y * x + x * 10` is `(y + 10) * x`: terms sharing a non-constant
    /// factor are grouped when that makes the sum smaller.
    fn factor_common(&mut self, s: &mut Sum) -> Result<()> {
        // Candidate factors: the atoms of terms and the factors of products.
        let mut candidates: smallvec::SmallVec<[Expr; 4]> = smallvec::SmallVec::new();
        for t in &s.terms {
            if let ExprKind::Mul(a, b) = t.atom.kind() {
                for f in [a, b] {
                    if !candidates.contains(f) {
                        candidates.push(f.clone());
                    }
                }
            }
        }
        if candidates.is_empty() {
            return Ok(());
        }
        for f in candidates {
            let mut cof = Sum::default();
            let mut rest = Sum::constant(s.konst);
            let mut hits = 0;
            for t in &s.terms {
                match cofactor(&t.atom, &f) {
                    Some(c) => {
                        hits += 1;
                        cof.add_expr(&c, t.coeff)?;
                    }
                    None => rest.add_atom(&t.atom, t.coeff)?,
                }
            }
            if hits < 2 {
                continue;
            }
            let (cof_e, _) = self.finish_sum(cof)?;
            let (prod, _) = self.visit_mul_simplified(cof_e, f.clone())?;
            let mut alt = rest;
            alt.add_expr(&prod, 1)?;
            if alt.cost() < s.cost() {
                *s = alt;
                return Ok(());
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------- products

    fn visit_mul(&mut self, a: &Expr, b: &Expr) -> Out {
        let (a, _) = self.visit(a)?;
        let (b, _) = self.visit(b)?;
        self.visit_mul_simplified(a, b)
    }

    /// `a * b` for simplified operands.
    pub(crate) fn visit_mul_simplified(&mut self, a: Expr, b: Expr) -> Out {
        match (a.as_int(), b.as_int()) {
            (Some(x), Some(y)) => {
                let v = num::mul(x, y)?;
                return Ok((Expr::int(v), Info::exact(v)));
            }
            (_, Some(c)) | (Some(c), _) => {
                let other = if a.as_int().is_some() { &b } else { &a };
                let mut s = Sum::of(other)?;
                s.scale(c)?;
                return self.finish_sum(s);
            }
            _ => {}
        }
        // `select(c, x, 0) * y` style distribution is not worth its size;
        // products of non-constants keep a canonical operand order.
        let (l, r) = if a.structural_cmp(&b) == std::cmp::Ordering::Greater { (b, a) } else { (a, b) };
        let e = Expr::mul(l, r);
        let info = self.info(&e);
        Ok((e, info))
    }
}

/// `e / f` when `f` is one factor of the product `e` (or `e` itself).
pub(crate) fn cofactor_of(e: &Expr, f: &Expr) -> Option<Expr> {
    cofactor(e, f)
}

fn cofactor(e: &Expr, f: &Expr) -> Option<Expr> {
    if e == f {
        return Some(Expr::int(1));
    }
    match e.kind() {
        ExprKind::Mul(a, b) if a == f => Some(b.clone()),
        ExprKind::Mul(a, b) if b == f => Some(a.clone()),
        _ => None,
    }
}

