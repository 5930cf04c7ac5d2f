//! Rules for floor division, floor modulo and ceiling division.

use super::product;
use super::sum::Sum;
use super::{division_by_zero, Info, Out, Simplifier};
use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::{Expr, ExprKind};
use crate::modular::Modular;
use crate::num;

impl Simplifier<'_> {
    pub(super) fn visit_floor_div(&mut self, a: &Expr, b: &Expr) -> Out {
        // By a literal: the numerator goes straight into its linear form.
        if let Some(c) = b.as_int().filter(|&c| c > 1) {
            let (s, info) = self.collect_sum(a)?;
            if let Some(k) = s.as_const() {
                let v = num::floor_div(k, c)?;
                return Ok((Expr::int(v), Info::exact(v)));
            }
            return self.floor_div_const_sum(s, info, c);
        }
        let (a, ia) = self.visit(a)?;
        let (b, ib) = self.visit(b)?;
        self.floor_div_simplified(a, ia, b, ib)
    }

    pub(super) fn visit_floor_mod(&mut self, a: &Expr, b: &Expr) -> Out {
        if let Some(c) = b.as_int().filter(|&c| c > 1) {
            let (s, info) = self.collect_sum(a)?;
            if let Some(k) = s.as_const() {
                let v = num::floor_mod(k, c)?;
                return Ok((Expr::int(v), Info::exact(v)));
            }
            return self.floor_mod_const_sum(s, info, c);
        }
        let (a, ia) = self.visit(a)?;
        let (b, ib) = self.visit(b)?;
        self.floor_mod_simplified(a, ia, b, ib)
    }

    pub(super) fn visit_ceil_div(&mut self, a: &Expr, b: &Expr) -> Out {
        let (a, ia) = self.visit(a)?;
        let (b, ib) = self.visit(b)?;
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            if y == 0 {
                return Err(division_by_zero());
            }
            let v = num::ceil_div(x, y)?;
            return Ok((Expr::int(v), Info::exact(v)));
        }
        // ceildiv(a, c) = (a + (c - 1)) // c for c > 0; keep the ceildiv
        // unless the floor form simplifies to something no larger.
        if let Some(c) = b.as_int().filter(|&c| c > 0) {
            let mut s = Sum::of(&a)?;
            s.konst = num::add(s.konst, c - 1)?;
            let (n, ni) = self.finish_sum(s)?;
            let (f, fi) = self.floor_div_simplified(n, ni, b.clone(), ib)?;
            let plain = Expr::ceil_div(a.clone(), b.clone());
            if f.node_count() <= plain.node_count() {
                return Ok((f, fi));
            }
            let bound = ia.bound.ceil_div(ib.bound);
            return Ok((
                plain,
                Info {
                    bound,
                    modular: Modular::EVERYTHING,
                },
            ));
        }
        // ceildiv(0, b) is 0 and ceildiv(b, b) is 1 wherever b != 0.
        if a.is_int(0) {
            return Ok((a, ia));
        }
        if a == b {
            return Ok((Expr::int(1), Info::exact(1)));
        }
        // ceildiv(a, c) == -(a // -c) for c < 0.
        if let Some(c) = b.as_int().filter(|&c| c < 0 && c != i64::MIN) {
            let (q, _) =
                self.floor_div_simplified(a.clone(), ia, Expr::int(-c), Info::exact(-c))?;
            let mut s = Sum::of(&q)?;
            s.scale(-1)?;
            let (alt, ai) = self.finish_sum(s)?;
            if alt.node_count() <= Expr::ceil_div(a.clone(), b.clone()).node_count() {
                return Ok((alt, ai));
            }
        }
        let bound = ia.bound.ceil_div(ib.bound);
        if let Some(v) = bound.as_point() {
            return Ok((Expr::int(v), Info::exact(v)));
        }
        let e = Expr::ceil_div(a, b);
        let info = self.info(&e);
        Ok((e, info))
    }

    /// `a // b` for simplified operands.
    pub(crate) fn floor_div_simplified(&mut self, a: Expr, ia: Info, b: Expr, ib: Info) -> Out {
        if let Some(c) = b.as_int() {
            if c == 0 {
                return Err(division_by_zero());
            }
            if let Some(x) = a.as_int() {
                let v = num::floor_div(x, c)?;
                return Ok((Expr::int(v), Info::exact(v)));
            }
            if c == 1 {
                return Ok((a, ia));
            }
            if c > 0 {
                return self.floor_div_const(a, ia, c);
            }
            if c != i64::MIN {
                // x // -c == (-x) // c
                let mut s = Sum::of(&a)?;
                s.scale(-1)?;
                let (na, nia) = self.finish_sum(s)?;
                let (alt, ai) = self.floor_div_const(na, nia, -c)?;
                let plain = Expr::floor_div(a.clone(), b.clone());
                if alt.node_count() < plain.node_count() {
                    return Ok((alt, ai));
                }
                let bound = ia.bound.floor_div(ib.bound);
                return Ok((
                    plain,
                    Info {
                        bound,
                        modular: Modular::EVERYTHING,
                    },
                ));
            }
        }
        self.floor_div_symbolic(a, ia, b, ib)
    }

    /// `a // c` for a constant `c > 0`.
    fn floor_div_const(&mut self, a: Expr, ia: Info, c: i64) -> Out {
        self.floor_div_const_sum(Sum::of(&a)?, ia, c)
    }

    /// `s // c` for a constant `c > 0` and a canonical linear form `s`.
    fn floor_div_const_sum(&mut self, s: Sum, ia: Info, c: i64) -> Out {
        // `X % m` with `c | m` may be better seen as `X - m * (X // m)`:
        // `(x - x % 21) // 21` is `x // 21`. Both forms are divided and the
        // smaller result kept.
        let expandable = |t: &super::sum::Term| matches!(t.atom.kind(), ExprKind::FloorMod(_, m) if m.as_int().is_some_and(|m| m > 0 && m % c == 0));
        if !self.expanding_mods && s.terms.iter().any(expandable) {
            let mut alt = Sum::constant(s.konst);
            for t in &s.terms {
                match t.atom.kind() {
                    ExprKind::FloorMod(x, m) if expandable(t) => {
                        let (q, _) = self.visit(&Expr::floor_div(x.clone(), m.clone()))?;
                        alt.add_expr(x, t.coeff)?;
                        alt.add_expr(&q, num::neg(num::mul(t.coeff, m.as_int().unwrap_or(1))?)?)?;
                    }
                    _ => alt.add_atom(&t.atom, t.coeff)?,
                }
            }
            self.expanding_mods = true;
            let other = self.sum_rules(&mut alt).and_then(|_| {
                let alt_info = self.sum_info(&alt);
                self.floor_div_const_sum(alt, alt_info, c)
            });
            let plain = self.floor_div_const_sum(s, ia, c);
            self.expanding_mods = false;
            let plain = plain?;
            return Ok(match other {
                Ok(o) if o.0.node_count() < plain.0.node_count() => o,
                _ => plain,
            });
        }
        // Whole-range fast exit: `s` stays inside one block of `c` values.
        if ia.bound.is_finite() {
            let lo = num::floor_div(ia.bound.min, c)?;
            let hi = num::floor_div(ia.bound.max, c)?;
            if lo == hi {
                return Ok((Expr::int(lo), Info::exact(lo)));
            }
        }
        let mut s = s;
        let whole_bound = ia.bound.floor_div(ConstBound::point(c));
        let mut c = c;
        // (g*Y + r) // (g*c') == (Y + r // g) // c' for the gcd g.
        let g = num::gcd(s.coeff_gcd(), c);
        if g > 1 && !s.terms.is_empty() {
            for t in &mut s.terms {
                t.coeff /= g;
            }
            s.konst = s.konst.div_euclid(g);
            c /= g;
            if c == 1 {
                return self.finish_sum(s);
            }
        }
        // Terms that are multiples of c come out whole: (c*Q + R) // c = Q + R // c.
        let mut quot = Sum::default();
        let mut rest = Sum::default();
        for t in &s.terms {
            if t.coeff % c == 0 {
                quot.add_atom(&t.atom, t.coeff / c)?;
            } else {
                rest.add_atom(&t.atom, t.coeff)?;
            }
        }
        rest.konst = s.konst;
        let rb = self.sum_bound(&rest);
        if rb.is_finite() {
            let lo = num::floor_div(rb.min, c)?;
            let hi = num::floor_div(rb.max, c)?;
            if lo == hi {
                quot.konst = num::add(quot.konst, lo)?;
                return self.finish_sum(quot);
            }
        }
        // (g*B + R) // (g*c') == B // c' when 0 <= R < g.
        if let Some((b, c2)) = self.drop_small_remainder(&rest, c)? {
            let (be, bi) = self.finish_sum(b)?;
            let (d, _) = self.floor_div_simplified(be, bi, Expr::int(c2), Info::exact(c2))?;
            quot.add_expr(&d, 1)?;
            return self.finish_sum(quot);
        }
        // Whole multiples of c hidden in coefficients: (x*360 + y) // 16 is
        // x*22 + (x*8 + y) // 16, which is x*22 when x*8 + y < 16.
        for offset in [0, 1] {
            let mut reduced = Sum::default();
            let mut extra = Sum::default();
            for t in &rest.terms {
                let q = num::add(t.coeff.div_euclid(c), offset)?;
                let r = num::sub(t.coeff, num::mul(q, c)?)?;
                extra.add_atom(&t.atom, q)?;
                reduced.add_atom(&t.atom, r)?;
            }
            reduced.konst = rest.konst;
            let b = self.sum_bound(&reduced);
            if let Some(k) = fits_in_block(b, c)? {
                quot.add_sum(&extra, 1)?;
                quot.konst = num::add(quot.konst, k)?;
                return self.finish_sum(quot);
            }
        }
        // Constants that are multiples of c come out too.
        if rest.konst != 0 && rest.konst % c == 0 && !rest.terms.is_empty() {
            quot.konst = num::add(quot.konst, rest.konst / c)?;
            rest.konst = 0;
        }
        let div = self.div_atom(&rest, c)?;
        quot.add_expr(&div, 1)?;
        let (e, mut info) = self.finish_sum(quot)?;
        info.bound = info.bound.intersect(whole_bound);
        Ok((e, info))
    }

    fn fold_inner_division(&mut self, rest: &Sum, c: i64) -> Result<Option<Expr>> {
        let mut inner = rest.terms.iter().filter(|t| {
            t.coeff == 1 && matches!(t.atom.kind(), ExprKind::FloorDiv(_, a) if a.as_int().is_some_and(|a| a > 0))
        });
        let (Some(t), None) = (inner.next(), inner.next()) else {
            return Ok(None);
        };
        let ExprKind::FloorDiv(x, a) = t.atom.kind() else {
            return Ok(None);
        };
        let a = a.as_int().unwrap_or(1);
        let Some(ac) = a.checked_mul(c) else {
            return Ok(None);
        };
        let mut num = rest.clone();
        num.add_atom(&t.atom, -1)?;
        if num.scale(a).is_err() || num.add_expr(x, 1).is_err() {
            return Ok(None);
        }
        let (n, ni) = self.finish_sum(num)?;
        let (merged, _) = self.floor_div_simplified(n, ni, Expr::int(ac), Info::exact(ac))?;
        let plain = rest.cost() + 2;
        Ok((merged.node_count() < plain).then_some(merged))
    }

    /// `Some((B, c'))` when `rest = g*B + R` with `0 <= R < g` for some
    /// `g > 1` dividing `c`, so that `rest // c == B // c'` with `c' = c / g`.
    fn drop_small_remainder(&mut self, rest: &Sum, c: i64) -> Result<Option<(Sum, i64)>> {
        let mut gs: smallvec::SmallVec<[i64; 4]> = rest
            .terms
            .iter()
            .map(|t| num::gcd(t.coeff, c))
            .filter(|&g| g > 1)
            .collect();
        gs.sort_unstable_by(|a, b| b.cmp(a));
        gs.dedup();
        for g in gs {
            let mut big = Sum::default();
            let mut small = Sum::constant(rest.konst);
            for t in &rest.terms {
                if t.coeff % g == 0 {
                    big.add_atom(&t.atom, t.coeff / g)?;
                } else {
                    small.add_atom(&t.atom, t.coeff)?;
                }
            }
            if big.terms.is_empty() || small.terms.is_empty() {
                continue;
            }
            let b = self.sum_bound(&small);
            if b.all_ge(0) && b.all_lt(g) {
                return Ok(Some((big, c / g)));
            }
        }
        Ok(None)
    }

    /// `rest // c` as one atom, with nested-division folding.
    fn div_atom(&mut self, rest: &Sum, c: i64) -> Result<Expr> {
        // (t + x // a) // c == (t*a + x) // (a*c) for positive a, c, when
        // smaller: (s0*2 + s1 // 64) // 3 is (s0*128 + s1) // 192.
        if rest.terms.len() > 1 {
            if let Some(merged) = self.fold_inner_division(rest, c)? {
                return Ok(merged);
            }
        }
        // (x // a + k) // c == (x + k*a) // (a*c) for positive a, c.
        if let ([t], k) = (rest.terms.as_slice(), rest.konst) {
            if let (1, ExprKind::FloorDiv(x, a)) = (t.coeff, t.atom.kind()) {
                if let Some(a) = a.as_int().filter(|&a| a > 0) {
                    if let (Some(ka), Some(ac)) = (k.checked_mul(a), a.checked_mul(c)) {
                        let (n, ni) = self.visit(&Expr::add(x.clone(), Expr::int(ka)))?;
                        return Ok(self
                            .floor_div_simplified(n, ni, Expr::int(ac), Info::exact(ac))?
                            .0);
                    }
                }
            }
            // (s % m) // c == (s // c) % (m / c) when c divides m.
            if let (1, 0, ExprKind::FloorMod(x, m)) = (t.coeff, k, t.atom.kind()) {
                if let Some(m) = m.as_int().filter(|&m| m > 0 && m % c == 0) {
                    let plain = Expr::floor_div(t.atom.clone(), Expr::int(c));
                    let (q, qi) = self.visit(&Expr::floor_div(x.clone(), Expr::int(c)))?;
                    let (alt, _) =
                        self.floor_mod_simplified(q, qi, Expr::int(m / c), Info::exact(m / c))?;
                    if alt.node_count() <= plain.node_count() {
                        return Ok(alt);
                    }
                }
            }
        }
        // (x // c1) // c2 == x // (c1 * c2) for positive divisors.
        if let Some(ExprKind::FloorDiv(x, c1)) = rest.as_atom().map(|e| e.kind()) {
            if let Some(c1) = c1.as_int().filter(|&v| v > 0) {
                if let Some(cc) = c1.checked_mul(c) {
                    return Ok(Expr::floor_div(x.clone(), Expr::int(cc)));
                }
            }
        }
        // A sum whose remainder part has modulus information: ((x % 2) + 1) // 2
        // is x % 2 when the numerator is in [1, 2].
        let r = rest.rebuild();
        let plain = Expr::floor_div(r, Expr::int(c));
        // A numerator `k*A + b` whose atom takes two values `lo` and
        // `lo + 1` is affine in it: `q(lo) + (q(lo + 1) - q(lo)) * (A - lo)`
        // (`(x % 2 + 1) // 2` is `x % 2`).
        if let ([t], b) = (rest.terms.as_slice(), rest.konst) {
            let ab = t.info.map_or_else(|| self.info(&t.atom).bound, |i| i.bound);
            if ab.is_finite() && ab.max.checked_sub(ab.min) == Some(1) {
                let at = |v: i64| num::floor_div(num::add(num::mul(t.coeff, v)?, b)?, c);
                let (q0, q1) = (at(ab.min)?, at(ab.max)?);
                let mut s = Sum::constant(num::sub(q0, num::mul(q1 - q0, ab.min)?)?);
                s.add_atom(&t.atom, q1 - q0)?;
                if s.cost() <= plain.node_count() {
                    return Ok(s.rebuild());
                }
            }
        }
        Ok(plain)
    }

    /// `a % b` for simplified operands.
    pub(crate) fn floor_mod_simplified(&mut self, a: Expr, ia: Info, b: Expr, ib: Info) -> Out {
        if let Some(c) = b.as_int() {
            if c == 0 {
                return Err(division_by_zero());
            }
            if let Some(x) = a.as_int() {
                let v = num::floor_mod(x, c)?;
                return Ok((Expr::int(v), Info::exact(v)));
            }
            if c == 1 || c == -1 {
                return Ok((Expr::int(0), Info::exact(0)));
            }
            if c > 0 {
                return self.floor_mod_const(a, ia, c);
            }
            // By a negative constant: the result lies in (c, 0]. Within one
            // block of |c| values, `a % c` is `a - q*c`; aligned to c, it is
            // a constant.
            if ia.modular.coeff != 0 && ia.modular.coeff.checked_rem(c) == Some(0) {
                let v = num::floor_mod(ia.modular.base, c)?;
                return Ok((Expr::int(v), Info::exact(v)));
            }
            if ia.bound.is_finite() {
                let (q0, q1) = (
                    num::floor_div(ia.bound.min, c)?,
                    num::floor_div(ia.bound.max, c)?,
                );
                if q0 == q1 {
                    let mut s = Sum::of(&a)?;
                    s.konst = num::sub(s.konst, num::mul(q0, c)?)?;
                    return self.finish_sum(s);
                }
            }
        }
        self.floor_mod_symbolic(a, ia, b, ib)
    }

    /// `a % c` for a constant `c > 0`.
    fn floor_mod_const(&mut self, a: Expr, ia: Info, c: i64) -> Out {
        self.floor_mod_const_sum(Sum::of(&a)?, ia, c)
    }

    /// `s % c` for a constant `c > 0` and a canonical linear form `s`.
    fn floor_mod_const_sum(&mut self, s0: Sum, ia: Info, c: i64) -> Out {
        if let Some(v) = fits_in_block(ia.bound, c)? {
            // s is already in [k c, (k+1) c): s % c == s - k c
            let mut s = s0;
            s.konst = num::sub(s.konst, num::mul(v, c)?)?;
            return self.finish_sum(s);
        }
        if ia.modular.coeff != 0 && ia.modular.coeff % c == 0 {
            let v = ia.modular.base.rem_euclid(c);
            return Ok((Expr::int(v), Info::exact(v)));
        }
        let mut s = s0;
        // Drop multiples of c; X % c1 with c | c1 is X modulo c. Other
        // coefficients stay as written: `(i * 192 + j) % 128` keeps the
        // fused iterator `i * 192 + j` visible to iterator-map detection.
        let mut t = Sum::constant(s.konst);
        for term in &s.terms {
            if term.coeff % c == 0 {
                continue;
            }

            match term.atom.kind() {
                ExprKind::FloorMod(x, c1) if c1.as_int().is_some_and(|v| v % c == 0) => {
                    t.add_expr(x, term.coeff)?
                }
                _ => t.add_atom(&term.atom, term.coeff)?,
            }
        }
        // An offset already below c in magnitude stays as written
        // (`(d1 - 3) % 7`); larger ones are reduced.
        let reduce = |k: i64| {
            if k.unsigned_abs() < c as u64 {
                k
            } else {
                k.rem_euclid(c)
            }
        };
        t.konst = reduce(t.konst);
        if t.cost() <= s.cost() {
            s = t;
        } else {
            s.konst = reduce(s.konst);
        }
        if s.terms.is_empty() {
            let v = s.konst.rem_euclid(c);
            return Ok((Expr::int(v), Info::exact(v)));
        }
        let si = self.sum_info(&s);
        if let Some(k) = fits_in_block(si.bound, c)? {
            s.konst = num::sub(s.konst, num::mul(k, c)?)?;
            return self.finish_sum(s);
        }
        if si.modular.coeff != 0 && si.modular.coeff % c == 0 {
            let v = si.modular.base.rem_euclid(c);
            return Ok((Expr::int(v), Info::exact(v)));
        }
        // (g*Y + r) % (g*c') == (Y + r // g) % c' * g + r % g
        let g = num::gcd(s.coeff_gcd(), c);
        if g > 1 {
            let r = s.konst.rem_euclid(g);
            let mut y = s.clone();
            for term in &mut y.terms {
                term.coeff /= g;
            }
            y.konst = s.konst.div_euclid(g);
            let (ye, yi) = self.finish_sum(y)?;
            let (m, _) = self.floor_mod_const(ye, yi, c / g)?;
            let mut out = Sum::constant(r);
            out.add_expr(&m, g)?;
            let (e, mut info) = self.finish_sum(out)?;
            let plain_size = s.cost() + 2;
            if e.node_count() <= plain_size {
                info.bound = info.bound.intersect(ConstBound::new(0, c - 1));
                return Ok((e, info));
            }
        }
        // (g*B + R) % (g*c') == B % c' * g + R when 0 <= R < g, if smaller.
        if let Some((b, c2)) = self.drop_small_remainder(&s, c)? {
            let g = c / c2;
            let mut r = Sum::default();
            for t in &s.terms {
                if t.coeff % g != 0 {
                    r.add_atom(&t.atom, t.coeff)?;
                }
            }
            r.konst = s.konst;
            let (be, bi) = self.finish_sum(b)?;
            let (m, _) = self.floor_mod_const(be, bi, c2)?;
            r.add_expr(&m, g)?;
            if r.cost() <= s.cost() + 2 {
                let (e, mut info) = self.finish_sum(r)?;
                info.bound = info.bound.intersect(ConstBound::new(0, c - 1));
                return Ok((e, info));
            }
        }
        let num = s.rebuild();
        let e = Expr::floor_mod(num, Expr::int(c));
        let bound = si
            .bound
            .floor_mod_aligned(si.modular, c)
            .intersect(ConstBound::new(0, c - 1));
        Ok((
            e,
            Info {
                bound,
                modular: si.modular.floor_mod_const(c),
            },
        ))
    }

    fn floor_div_symbolic(&mut self, a: Expr, ia: Info, b: Expr, ib: Info) -> Out {
        if a.is_int(0) {
            return Ok((a, ia));
        }
        let parts = SymbolicDivision::new(&a, &b)?;
        // (q*b + r) // b == q + r // b, for any b != 0.
        if let Some((quot, rest)) = parts.as_ref().and_then(|p| p.split()) {
            let mut quot = quot;
            let (r, ri) = self.finish_sum(rest)?;
            let (d, _) = self.floor_div_simplified(r, ri, b.clone(), ib)?;
            quot.add_expr(&d, 1)?;
            return self.finish_sum(quot);
        }
        if let Some(p) = &parts {
            // a == m * b exactly
            if let Some(m) = p.ratio() {
                return Ok((Expr::int(m), Info::exact(m)));
            }
            // (x * k) // (y * k) == x // y
            if let Some((x, y, _)) = p.cancel() {
                let (x, xi) = self.visit(&x)?;
                let (y, yi) = self.visit(&y)?;
                return self.floor_div_simplified(x, xi, y, yi);
            }
        }
        // 0 <= a < b
        if ia.bound.all_ge(0) && ib.bound.all_gt(0) && self.prove_lt(&a, &b) {
            return Ok((Expr::int(0), Info::exact(0)));
        }
        let bound = ia.bound.floor_div(ib.bound);
        // One quotient over the whole box (`7 // x` with `x` in [-20, -8]).
        if let Some(v) = bound.as_point() {
            return Ok((Expr::int(v), Info::exact(v)));
        }
        let e = Expr::floor_div(a, b);
        Ok((
            e,
            Info {
                bound,
                modular: Modular::EVERYTHING,
            },
        ))
    }

    fn floor_mod_symbolic(&mut self, a: Expr, ia: Info, b: Expr, ib: Info) -> Out {
        if a.is_int(0) {
            return Ok((a, ia));
        }
        let s = Sum::of(&a)?;
        // Multiples of b vanish; X % b inside is X.
        if let Some(p) = SymbolicDivision::new(&a, &b)? {
            if p.ratio().is_some() {
                return Ok((Expr::int(0), Info::exact(0)));
            }
            if let Some((_, rest)) = p.split() {
                let (r, ri) = self.finish_sum(rest)?;
                return self.floor_mod_symbolic(r, ri, b, ib);
            }
            // (x * k) % (y * k) == (x % y) * k
            if let Some((x, y, k)) = p.cancel() {
                let (x, xi) = self.visit(&x)?;
                let (y, yi) = self.visit(&y)?;
                let (m, _) = self.floor_mod_simplified(x, xi, y, yi)?;
                let (k, _) = self.visit(&k)?;
                let (out, oi) = self.visit_mul_simplified(m, k)?;
                if out.node_count() <= Expr::floor_mod(a.clone(), b.clone()).node_count() {
                    return Ok((out, oi));
                }
            }
        }
        let mut rest = Sum::constant(s.konst);
        let mut changed = false;
        for t in &s.terms {
            match t.atom.kind() {
                ExprKind::FloorMod(x, m) if *m == b => {
                    changed = true;
                    rest.add_expr(x, t.coeff)?
                }
                _ => rest.add_atom(&t.atom, t.coeff)?,
            }
        }
        if changed && rest.cost() <= s.cost() {
            if rest.as_const() == Some(0) {
                return Ok((Expr::int(0), Info::exact(0)));
            }
            let (r, ri) = self.finish_sum(rest)?;
            return self.floor_mod_symbolic(r, ri, b, ib);
        }
        if ia.bound.all_ge(0) && ib.bound.all_gt(0) && self.prove_lt(&a, &b) {
            return Ok((a, ia));
        }
        let e = Expr::floor_mod(a, b);
        let bound = ia.bound.floor_mod(ib.bound);
        Ok((
            e,
            Info {
                bound,
                modular: Modular::EVERYTHING,
            },
        ))
    }
}

/// A numerator sum over a divisor that is a product or a sum.
struct SymbolicDivision {
    num: Sum,
    den: Sum,
    den_factors: product::Factors,
    den_const: i64,
}

impl SymbolicDivision {
    fn new(a: &Expr, b: &Expr) -> Result<Option<SymbolicDivision>> {
        let Some((den_factors, den_const)) = product::factors(b) else {
            return Ok(None);
        };
        if den_const == 0 {
            return Ok(None);
        }
        Ok(Some(SymbolicDivision {
            num: Sum::of(a)?,
            den: Sum::of(b)?,
            den_factors,
            den_const,
        }))
    }

    /// Terms divisible by the divisor (as quotient terms) and the rest, when
    /// some terms are divisible.
    fn split(&self) -> Option<(Sum, Sum)> {
        if self.den.terms.len() != 1 || self.den.konst != 0 {
            return None;
        }
        let mut quot = Sum::default();
        let mut rest = Sum::constant(self.num.konst);
        for t in &self.num.terms {
            let (fs, k) = product::factors(&t.atom)?;
            let coeff = t.coeff.checked_mul(k)?;
            match product::divide(&fs, &self.den_factors) {
                Some(q) if coeff.checked_rem(self.den_const) == Some(0) => quot
                    .add_expr(&product::build(&q), coeff.checked_div(self.den_const)?)
                    .ok()?,
                _ => rest.add_atom(&t.atom, t.coeff).ok()?,
            }
        }
        (!quot.terms.is_empty()).then_some((quot, rest))
    }

    /// `m` when the numerator is exactly `m` times the divisor.
    fn ratio(&self) -> Option<i64> {
        let (n, d) = (&self.num, &self.den);
        if n.terms.len() != d.terms.len() || d.terms.is_empty() {
            return None;
        }
        let first = &d.terms[0];
        let nt = n.terms.iter().find(|t| t.atom == first.atom)?;
        if nt.coeff.checked_rem(first.coeff)? != 0 {
            return None;
        }
        let m = nt.coeff.checked_div(first.coeff)?;
        let all = d.terms.iter().all(|t| {
            n.terms
                .iter()
                .any(|u| u.atom == t.atom && t.coeff.checked_mul(m) == Some(u.coeff))
        });
        (all && d.konst.checked_mul(m) == Some(n.konst)).then_some(m)
    }

    /// `(x, y, k)` with numerator `x * k` and divisor `y * k` for a common
    /// non-trivial factor `k`, when the numerator is a single term.
    fn cancel(&self) -> Option<(Expr, Expr, Expr)> {
        if self.num.konst != 0 || self.num.terms.len() != 1 || self.den.terms.len() != 1 {
            return None;
        }
        let t = &self.num.terms[0];
        let (fs, k) = product::factors(&t.atom)?;
        let coeff = t.coeff.checked_mul(k)?;
        let common = product::common(&fs, &self.den_factors);
        let g = num::gcd(coeff, self.den_const);
        if common.is_empty() && g <= 1 {
            return None;
        }
        let x_fs = product::divide(&fs, &common)?;
        let y_fs = product::divide(&self.den_factors, &common)?;
        let x = Expr::mul(product::build(&x_fs), Expr::int(coeff / g));
        let y = Expr::mul(product::build(&y_fs), Expr::int(self.den_const / g));
        let k = Expr::mul(product::build(&common), Expr::int(g));
        Some((x, y, k))
    }
}

/// `Some(k)` when every value of `b` lies in `[k c, (k+1) c)`.
fn fits_in_block(b: ConstBound, c: i64) -> Result<Option<i64>> {
    if !b.is_finite() {
        return Ok(None);
    }
    let lo = num::floor_div(b.min, c)?;
    let hi = num::floor_div(b.max, c)?;
    Ok((lo == hi).then_some(lo))
}
