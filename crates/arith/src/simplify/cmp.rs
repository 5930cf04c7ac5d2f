//! Rules for comparisons.
//!
//! Every comparison `a op b` is first rewritten as `d op 0` with the linear
//! form `d = a - b`, decided by bounds and alignment where possible, divided
//! by the gcd of its coefficients, and rebuilt with the positive terms on the
//! left and the negative terms and the constant on the right.

use super::sum::{Sum, Term};
use super::{Info, Out, Simplifier};
use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::{CmpOp, Expr, ExprKind};
use crate::num;

impl Simplifier<'_> {
    /// Both sides are collected straight into the one linear form
    /// `a - b` (or `b - a`), without building either side.
    pub(super) fn visit_cmp(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> Out {
        let (op, lhs, rhs) = match op {
            CmpOp::Gt => (CmpOp::Lt, b, a),
            CmpOp::Ge => (CmpOp::Le, b, a),
            _ => (op, a, b),
        };
        let mut d = Sum::default();
        self.collect(lhs, 1, &mut d)?;
        self.collect(rhs, -1, &mut d)?;
        self.cmp_of_difference(op, d)
    }

    /// Whether `a < b` holds everywhere (false when unknown).
    pub(crate) fn prove_lt(&mut self, a: &Expr, b: &Expr) -> bool {
        matches!(self.cmp_simplified(CmpOp::Lt, a, b), Ok((e, _)) if e.as_bool() == Some(true))
    }

    /// `a op b` for simplified operands.
    pub(crate) fn cmp_simplified(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> Out {
        // Normalise to d < 0, d <= 0, d == 0 or d != 0.
        let (op, d) = match op {
            CmpOp::Gt => (CmpOp::Lt, diff(b, a)?),
            CmpOp::Ge => (CmpOp::Le, diff(b, a)?),
            _ => (op, diff(a, b)?),
        };
        self.cmp_of_difference(op, d)
    }

    /// `d op 0` for `op` one of `==`, `!=`, `<`, `<=`.
    fn cmp_of_difference(&mut self, op: CmpOp, mut d: Sum) -> Out {
        self.sum_rules(&mut d)?;
        let di = self.sum_info(&d);
        // Decide by bounds (symbolic ranges included) and alignment.
        let mut decided = decide(op, di.bound, di);
        if decided.is_none() {
            decided = decide(op, self.relational_bound(&d).intersect(di.bound), di);
        }
        if decided.is_none() && self.an.has_symbolic_ranges() {
            let de = d.rebuild();
            let bound = self.an.symbolic_bound(&de, self);
            decided = decide(op, bound.intersect(di.bound), di);
        }
        if let Some(v) = decided {
            return Ok((Expr::bool(v), Info::exact(v as i64)));
        }
        // Work with `<=` for order comparisons: d < 0 <=> d + 1 <= 0.
        let (op, mut d) = if op == CmpOp::Lt {
            d.konst = num::add(d.konst, 1)?;
            (CmpOp::Le, d)
        } else {
            (op, std::mem::take(&mut d))
        };
        // Divide by the gcd of the coefficients.
        let g = d.coeff_gcd();
        if g > 1 {
            match op {
                CmpOp::Eq | CmpOp::Ne => {
                    if d.konst % g != 0 {
                        let v = op == CmpOp::Ne;
                        return Ok((Expr::bool(v), Info::exact(v as i64)));
                    }
                    d.konst /= g;
                }
                // g*T + k <= 0  <=>  T <= floor(-k / g)  <=>  T - floor(-k/g) <= 0
                _ => d.konst = num::neg(num::floor_div(num::neg(d.konst)?, g)?)?,
            }
            for t in &mut d.terms {
                t.coeff /= g;
            }
        }
        if op == CmpOp::Le {
            if let Some(r) = self.split_min_max_le(&d)? {
                return Ok(r);
            }
            self.absorb_small_terms(&mut d)?;
            if let Some(r) = self.single_div_le(&d)? {
                return Ok(r);
            }
        }
        let e = build_cmp(op, &d);
        Ok((e, Info::BOOL))
    }

    /// `R + min(a, b) <= 0` is `R + a <= 0 or R + b <= 0` (and `max` gives
    /// `and`); used when one of the two cases is decided, so the comparison
    /// loses its `min`: `min(x, 11) < 10` is `x < 10`.
    fn split_min_max_le(&mut self, d: &Sum) -> Result<Option<(Expr, Info)>> {
        for t in &d.terms {
            let (a, b, is_min) = match t.atom.kind() {
                ExprKind::Min(a, b) => (a, b, true),
                ExprKind::Max(a, b) => (a, b, false),
                _ => continue,
            };
            if t.coeff != 1 && t.coeff != -1 {
                continue;
            }
            let mut rest = d.clone();
            rest.add_atom(&t.atom, num::neg(t.coeff)?)?;
            let mut case = |x: &Expr| -> Result<Expr> {
                let mut s = rest.clone();
                s.add_expr(x, t.coeff)?;
                let (e, _) = self.finish_sum(s)?;
                Ok(self.cmp_simplified(CmpOp::Le, &e, &Expr::int(0))?.0)
            };
            let (ca, cb) = (case(a)?, case(b)?);
            // -min(a, b) is max(-a, -b): the connective flips with the sign.
            let disjunction = is_min == (t.coeff == 1);
            let decided = ca.as_bool().is_some() || cb.as_bool().is_some();
            if !decided {
                continue;
            }
            return Ok(Some(if disjunction {
                self.or_simplified(ca, cb)?
            } else {
                self.and_simplified(ca, cb)?
            }));
        }
        Ok(None)
    }

    /// `G*T + R <= 0` where every term of `T` has a coefficient divisible by
    /// `G` and `R` stays within fewer than `G` consecutive values becomes
    /// `T <= K` when the same `K = floor(-R / G)` holds for every value of
    /// `R` (`x*8 + y < 16` with `y` in `[0, 8)` is `x < 2`).
    fn absorb_small_terms(&mut self, d: &mut Sum) -> Result<()> {
        let g = d
            .terms
            .iter()
            .filter(|t| t.coeff.unsigned_abs() > 1)
            .fold(0i64, |g, t| num::gcd(g, t.coeff));
        if g <= 1 {
            return Ok(());
        }
        let mut big = Sum::default();
        let mut small = Sum::constant(d.konst);
        for t in &d.terms {
            if t.coeff % g == 0 {
                big.add_atom(&t.atom, t.coeff / g)?;
            } else {
                small.add_atom(&t.atom, t.coeff)?;
            }
        }
        if big.terms.is_empty() {
            return Ok(());
        }
        let rb = self.sum_bound(&small);
        if !rb.is_finite() {
            return Ok(());
        }
        // big*g + r <= 0  <=>  big <= floor(-r / g)
        let k1 = num::floor_div(num::neg(rb.min)?, g)?;
        let k2 = num::floor_div(num::neg(rb.max)?, g)?;
        if k1 == k2 {
            big.konst = num::neg(k1)?;
            *d = big;
            // Again on the quotient, which has fewer terms:
            // `x * 704 + m * 32 + t <= 1375` with `t` in `[0, 32)` is
            // `x * 22 + m <= 42`.
            return self.absorb_small_terms(d);
        }
        Ok(())
    }

    /// `X // c + k <= 0` is `X + c*k - c + 1 <= 0`... i.e. `X < c * (1 - k)`.
    fn single_div_le(&mut self, d: &Sum) -> Result<Option<(Expr, Info)>> {
        let [Term { atom, coeff, .. }] = d.terms.as_slice() else {
            return Ok(None);
        };
        let ExprKind::FloorDiv(x, c) = atom.kind() else {
            return Ok(None);
        };
        let Some(c) = c.as_int().filter(|&c| c > 0) else {
            return Ok(None);
        };
        // coeff * (X // c) + k <= 0
        let k = d.konst;
        let mut s = Sum::of(x)?;
        match *coeff {
            // X // c <= -k  <=>  X < c * (-k + 1)
            1 => {
                let bound = num::mul(c, num::add(num::neg(k)?, 1)?)?;
                s.konst = num::sub(s.konst, bound)?;
                s.konst = num::add(s.konst, 1)?;
                Ok(Some(self.cmp_from_sum(CmpOp::Le, s)?))
            }
            // -(X // c) + k <= 0  <=>  X // c >= k  <=>  X >= c * k
            -1 => {
                let bound = num::mul(c, k)?;
                s.scale(-1)?;
                s.konst = num::add(s.konst, bound)?;
                Ok(Some(self.cmp_from_sum(CmpOp::Le, s)?))
            }
            _ => Ok(None),
        }
    }

    fn cmp_from_sum(&mut self, op: CmpOp, s: Sum) -> Out {
        let (e, _) = self.finish_sum(s)?;
        self.cmp_simplified(op, &e, &Expr::int(0))
    }
}

fn diff(a: &Expr, b: &Expr) -> Result<Sum> {
    let mut d = Sum::of(a)?;
    d.add_expr(b, -1)?;
    Ok(d)
}

fn decide(op: CmpOp, b: ConstBound, info: Info) -> Option<bool> {
    match op {
        CmpOp::Lt if b.all_lt(0) => Some(true),
        CmpOp::Lt if b.all_ge(0) => Some(false),
        CmpOp::Le if b.all_le(0) => Some(true),
        CmpOp::Le if b.all_gt(0) => Some(false),
        CmpOp::Eq | CmpOp::Ne => {
            let never_zero = b.all_gt(0)
                || b.all_lt(0)
                || (info.modular.coeff > 0 && info.modular.base % info.modular.coeff != 0);
            let always_zero = b.as_point() == Some(0);
            match (never_zero, always_zero) {
                (true, _) => Some(op == CmpOp::Ne),
                (_, true) => Some(op == CmpOp::Eq),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `P op N + k` from `d = P - N - k` (op is `<=`, `==` or `!=` against 0).
/// For `<=`, whichever of `P <= N + k` and `P < N + k + 1` has no constant
/// (or the smaller one) is chosen.
fn build_cmp(op: CmpOp, d: &Sum) -> Expr {
    let mut lhs = Sum::default();
    let mut rhs = Sum::default();
    for t in &d.terms {
        let r = if t.coeff > 0 {
            lhs.add_atom(&t.atom, t.coeff)
        } else {
            num::neg(t.coeff).and_then(|c| rhs.add_atom(&t.atom, c))
        };
        if r.is_err() {
            // Only i64::MIN coefficients get here; keep the plain form.
            return Expr::cmp(op, d.rebuild(), Expr::int(0));
        }
    }
    // P - N + konst (op) 0  <=>  P (op) N - konst
    let k = match d.konst.checked_neg() {
        Some(k) => k,
        None => return Expr::cmp(op, d.rebuild(), Expr::int(0)),
    };
    let (op, k) = if op == CmpOp::Le && k != 0 && k != i64::MAX {
        // P <= N + k  <=>  P < N + k + 1; take the form with the zero constant
        // or the smaller magnitude.
        let k1 = k + 1;
        if k1.unsigned_abs() < k.unsigned_abs() {
            (CmpOp::Lt, k1)
        } else {
            (CmpOp::Le, k)
        }
    } else {
        (op, k)
    };
    // The constant goes to the right, unless the left has no terms:
    // `0 op N + k` is written `-k op N`.
    match k.checked_neg() {
        Some(nk) if lhs.terms.is_empty() => lhs.konst = nk,
        _ => rhs.konst = k,
    }
    let (l, r) = (lhs.rebuild(), rhs.rebuild());
    match op {
        CmpOp::Eq | CmpOp::Ne if l.as_int().is_some() => Expr::cmp(op, r, l),
        _ => Expr::cmp(op, l, r),
    }
}

impl Simplifier<'_> {
    /// Bounds of a linear form that use relations between its terms, beyond
    /// adding up each term's bounds: `X % Y - Y` is at most `-1` when
    /// `Y > 0`, and a multilinear polynomial in a few variables with
    /// constant ranges (`x * y - x - y`) takes its extremes at the corners
    /// of the box.
    pub(crate) fn relational_bound(&self, d: &Sum) -> ConstBound {
        let mut b = self.sum_bound(d);
        if let Some(p) = self.mod_pair_bound(d) {
            b = b.intersect(p);
        }
        if let Some(c) = self.corner_bound(d) {
            b = b.intersect(c);
        }
        b
    }

    /// `k * (X % Y) - k * Y + R` with `Y > 0`: the pair lies in
    /// `k * [-max Y, -1]`.
    fn mod_pair_bound(&self, d: &Sum) -> Option<ConstBound> {
        for (i, t) in d.terms.iter().enumerate() {
            let ExprKind::FloorMod(_, y) = t.atom.kind() else {
                continue;
            };
            if y.as_int().is_some() {
                continue;
            }
            let neg = t.coeff.checked_neg()?;
            let Some(j) = d.terms.iter().position(|u| u.atom == *y && u.coeff == neg) else {
                continue;
            };
            let yb = self.info(y).bound;
            if !yb.all_gt(0) {
                continue;
            }
            let pair = ConstBound::new(yb.max.checked_neg()?, -1).mul_const(t.coeff);
            let mut rest = ConstBound::point(d.konst);
            for (k, u) in d.terms.iter().enumerate() {
                if k != i && k != j {
                    let ub = u.info.map_or_else(|| self.info(&u.atom).bound, |f| f.bound);
                    rest = rest.add(ub.mul_const(u.coeff));
                }
            }
            return Some(rest.add(pair));
        }
        None
    }

    /// Exact bounds of a multilinear polynomial in at most four variables
    /// with constant ranges, by evaluation at the corners of the box: every
    /// term a variable or a product of distinct variables, where a factor
    /// may also be a linear sum of variables (`x * (y - 2048)`, the form
    /// common factors are pulled into, is `x * y - x * 2048`), as long as
    /// no variable meets itself in a product.
    fn corner_bound(&self, d: &Sum) -> Option<ConstBound> {
        /// Monomials of the expanded polynomial: variable positions (in
        /// `vars`) and a coefficient; a bounded number of them.
        type Poly = smallvec::SmallVec<[(smallvec::SmallVec<[usize; 4]>, i128); 8]>;
        const MAX_MONOMIALS: usize = 64;
        if d.terms.len() > 16
            || !d
                .terms
                .iter()
                .any(|t| matches!(t.atom.kind(), ExprKind::Mul(..)))
        {
            return None;
        }
        let mut vars: smallvec::SmallVec<[crate::expr::Var; 4]> = smallvec::SmallVec::new();
        let mut position = |v: &crate::expr::Var| match vars.iter().position(|w| w == v) {
            Some(i) => i,
            None => {
                vars.push(v.clone());
                vars.len() - 1
            }
        };
        let mut monomials: Poly = Poly::new();
        for t in &d.terms {
            let (fs, k) = super::product::factors(&t.atom)?;
            let mut poly: Poly = smallvec::smallvec![(
                smallvec::SmallVec::new(),
                i128::from(t.coeff).checked_mul(i128::from(k))?
            )];
            for f in &fs {
                // The factor as `Σ c_i * v_i + c0`.
                let mut lin: smallvec::SmallVec<[(Option<usize>, i128); 4]> =
                    smallvec::SmallVec::new();
                match f.as_var() {
                    Some(v) => lin.push((Some(position(v)), 1)),
                    None => {
                        let s = Sum::of(f).ok()?;
                        for u in &s.terms {
                            lin.push((Some(position(u.atom.as_var()?)), i128::from(u.coeff)));
                        }
                        if s.konst != 0 {
                            lin.push((None, i128::from(s.konst)));
                        }
                    }
                }
                let mut next: Poly = Poly::new();
                for (m, c) in &poly {
                    for (v, k) in &lin {
                        let mut m = m.clone();
                        if let Some(i) = v {
                            if m.contains(i) {
                                return None;
                            }
                            m.push(*i);
                        }
                        next.push((m, c.checked_mul(*k)?));
                    }
                }
                if next.len() > MAX_MONOMIALS {
                    return None;
                }
                poly = next;
            }
            monomials.extend(poly);
            if monomials.len() > MAX_MONOMIALS {
                return None;
            }
        }
        if vars.len() > 4 {
            return None;
        }
        let ranges: smallvec::SmallVec<[(i64, i64); 4]> = vars
            .iter()
            .map(|v| self.an.var_bound(v))
            .map(|b| b.is_finite().then_some((b.min, b.max)))
            .collect::<Option<_>>()?;
        let (mut lo, mut hi) = (i128::MAX, i128::MIN);
        for corner in 0..(1u32 << vars.len()) {
            let at = |i: usize| {
                let (a, b) = ranges[i];
                if corner >> i & 1 == 0 {
                    a
                } else {
                    b
                }
            };
            let mut v = d.konst as i128;
            for (idx, k) in &monomials {
                let mut m = *k;
                for &i in idx {
                    m = m.checked_mul(at(i) as i128)?;
                }
                v = v.checked_add(m)?;
            }
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let fits = |v: i128| v > i64::MIN as i128 && v < i64::MAX as i128;
        (fits(lo) && fits(hi)).then(|| ConstBound::new(lo as i64, hi as i64))
    }
}
