//! Floor division, floor modulo and ceiling division.
//!
//! Divisions by a constant run the rule tables of [`super::rules`]; what
//! stays here are constant folding and the searches that are not one-line
//! rules (each says in its doc comment why it terminates): expanding inner
//! modulos, `index_split_form`, `drop_small_remainder`, `split_whole_multiples`,
//! `fold_inner_division`, `mod_by_common_factor`, the negated form of a
//! division by a negative constant, the floor form of a ceiling division,
//! and divisions by symbolic divisors.

use super::product;
use super::rules::{self, DivOp, Lin};
use super::sum::Sum;
use super::{division_by_zero, Info, Out, Simplifier};
use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::{Expr, ExprKind};
use crate::modular::Modular;
use crate::num;

impl Simplifier<'_> {
    /// `op(n, k)` for a rule's result: the numerator's linear form over a
    /// constant divisor, left unfinished when it is a linear form.
    pub(crate) fn divide_linear(&mut self, n: Sum, op: DivOp, k: i64) -> Result<Lin> {
        match (op, k) {
            (DivOp::Div | DivOp::CeilDiv, 1) => return Ok(Lin::Sum(n)),
            (DivOp::Mod, 1 | -1) => return Ok(Lin::Done(Expr::int(0), Info::exact(0))),
            _ => {}
        }
        if k > 1 && n.as_const().is_none() {
            let info = self.sum_info(&n);
            match op {
                DivOp::Div => return self.floor_div_linear(n, info, k),
                DivOp::Mod => return self.floor_mod_linear(n, info, k),
                DivOp::CeilDiv => {}
            }
        }
        let (a, ia) = self.finish_sum(n)?;
        let (b, ib) = (Expr::int(k), Info::exact(k));
        let (e, i) = match op {
            DivOp::Div => self.floor_div_simplified(a, ia, b, ib)?,
            DivOp::Mod => self.floor_mod_simplified(a, ia, b, ib)?,
            DivOp::CeilDiv => self.ceil_div_simplified(a, ia, b, ib)?,
        };
        Ok(Lin::Done(e, i))
    }

    /// The simplified expression of a rule's result.
    fn finish_linear(&mut self, l: Lin) -> Out {
        match l {
            Lin::Done(e, i) => Ok((e, i)),
            Lin::Sum(s) => self.finish_sum(s),
        }
    }

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
        self.ceil_div_simplified(a, ia, b, ib)
    }

    /// `ceildiv(a, b)` for simplified operands.
    fn ceil_div_simplified(&mut self, a: Expr, ia: Info, b: Expr, ib: Info) -> Out {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            if y == 0 {
                return Err(division_by_zero());
            }
            let v = num::ceil_div(x, y)?;
            return Ok((Expr::int(v), Info::exact(v)));
        }
        if let Some(c) = b.as_int().filter(|&c| c != 0) {
            let s = Sum::of(&a)?;
            if let Some(r) =
                self.apply_linear(rules::ceil_div_rules(), DivOp::CeilDiv, &s, ia, c)?
            {
                return self.finish_linear(r);
            }
        }
        // Search: ceildiv(a, c) = (a + (c - 1)) // c for c > 0; keep the
        // ceildiv unless the floor form simplifies to something no larger.
        // The floor division's numerator is a constant away from `a`, so
        // its table measure is no larger, and a floor division never
        // builds a ceiling division: no cycle.
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
            let s = Sum::of(&a)?;
            if let Some(r) = self.apply_linear(rules::floor_div_rules(), DivOp::Div, &s, ia, c)? {
                return self.finish_linear(r);
            }
            if c != i64::MIN {
                // Search: x // -c == (-x) // c, kept when strictly smaller.
                // Terminates: the division it builds has a positive
                // divisor, and those never build one by a negative constant.
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
        // Search: `X % m` with `c | m` may be better seen as
        // `X - m * (X // m)`: `(x - x % 21) // 21` is `x // 21`. Both forms
        // are divided and the smaller result kept. Terminates: the search
        // is not entered again while it runs (`expanding_mods`).
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
        if let Some(alt) = self.index_split_form(&s, c)? {
            return self.smaller_of_forms(s, ia, alt, c, Self::floor_div_const_sum);
        }
        let whole_bound = ia.bound.floor_div(ConstBound::point(c));
        let l = self.floor_div_linear(s, ia, c)?;
        let (e, mut info) = self.finish_linear(l)?;
        info.bound = info.bound.intersect(whole_bound);
        Ok((e, info))
    }

    /// Search: `s` with an index `b * X` written as its quotient and
    /// remainder, `b * m * (X // m) + b * (X % m)`, when `s` also has a
    /// term `X // m` or `X % m` and `m` divides `c`. The sum-level rules
    /// merge such pairs into the smaller form, which hides from a division
    /// by a multiple of `m` that the remainder stays below `m`:
    /// `(x // 8 * 24 + x) // 32` is `(x // 8 * 32 + x % 8) // 32`, which is
    /// `x // 8`. Terminates: tried only when no other form of the same
    /// numerator is being tried (`expanding_mods`).
    fn index_split_form(&mut self, s: &Sum, c: i64) -> Result<Option<Sum>> {
        if self.expanding_mods || s.terms.len() < 2 {
            return Ok(None);
        }
        for t in &s.terms {
            let (ExprKind::FloorDiv(x, m) | ExprKind::FloorMod(x, m)) = t.atom.kind() else {
                continue;
            };
            let Some(mv) = m.as_int().filter(|&m| m > 1 && c % m == 0) else {
                continue;
            };
            if !super::sum::leading_atom(x).is_some_and(|a| s.terms.iter().any(|u| u.atom == *a)) {
                continue;
            }
            let xs = Sum::of(x)?;
            let Some(b) = s.multiple_inside(&xs) else {
                continue;
            };
            let (ix, im) = (self.info(x), Info::exact(mv));
            let (q, _) = self.floor_div_simplified(x.clone(), ix, m.clone(), im)?;
            let (r, _) = self.floor_mod_simplified(x.clone(), ix, m.clone(), im)?;
            let mut alt = s.clone();
            let ok = alt
                .add_sum(&xs, num::neg(b)?)
                .and_then(|_| alt.add_expr(&q, num::mul(b, mv)?))
                .and_then(|_| alt.add_expr(&r, b));
            if ok.is_ok() {
                return Ok(Some(alt));
            }
        }
        Ok(None)
    }

    /// `op(s, c)` and `op(alt, c)` for two forms of one numerator, the
    /// smaller kept (the first on a tie); neither tries another form.
    fn smaller_of_forms(
        &mut self,
        s: Sum,
        ia: Info,
        alt: Sum,
        c: i64,
        op: fn(&mut Self, Sum, Info, i64) -> Out,
    ) -> Out {
        self.expanding_mods = true;
        let alt_info = self.sum_info(&alt);
        let other = op(self, alt, alt_info, c);
        let plain = op(self, s, ia, c);
        self.expanding_mods = false;
        let plain = plain?;
        Ok(match other {
            Ok(o) if o.0.node_count() < plain.0.node_count() => o,
            _ => plain,
        })
    }

    /// `s // c` for `c > 0`: the rule tables of [`rules`], with the
    /// searches that are not one-line rules between them.
    fn floor_div_linear(&mut self, s: Sum, ia: Info, c: i64) -> Result<Lin> {
        if let Some(r) = self.apply_linear(rules::floor_div_rules(), DivOp::Div, &s, ia, c)? {
            return Ok(r);
        }
        if let Some((b, c2)) = self.drop_small_remainder(&s, c)? {
            let (be, bi) = self.finish_sum(b)?;
            let (e, i) = self.floor_div_simplified(be, bi, Expr::int(c2), Info::exact(c2))?;
            return Ok(Lin::Done(e, i));
        }
        if let Some((e, i)) = self.split_whole_multiples(&s, c)? {
            return Ok(Lin::Done(e, i));
        }
        if let Some(r) = self.apply_linear(rules::floor_div_late_rules(), DivOp::Div, &s, ia, c)? {
            return Ok(r);
        }
        if s.terms.len() > 1 {
            if let Some(merged) = self.fold_inner_division(&s, c)? {
                let info = self.info(&merged);
                return Ok(Lin::Done(merged, info));
            }
        }
        let e = Expr::floor_div(s.rebuild(), Expr::int(c));
        let info = self.info(&e);
        Ok(Lin::Done(e, info))
    }

    /// Search: whole multiples of `c` hidden in coefficients.
    /// `(x*360 + y) // 16` is `x*22 + (x*8 + y) // 16`, which is `x*22`
    /// when `x*8 + y` stays in one block of 16; each coefficient is split
    /// as `q*c + r` with `r` in `[0, c)` or in `[-c, 0)`. Terminates: the
    /// result holds no division.
    fn split_whole_multiples(&mut self, s: &Sum, c: i64) -> Result<Option<(Expr, Info)>> {
        for offset in [0, 1] {
            let mut reduced = Sum::default();
            let mut extra = Sum::default();
            for t in &s.terms {
                let q = num::add(t.coeff.div_euclid(c), offset)?;
                let r = num::sub(t.coeff, num::mul(q, c)?)?;
                extra.add_atom_info(&t.atom, q, t.info)?;
                reduced.add_atom_info(&t.atom, r, t.info)?;
            }
            reduced.konst = s.konst;
            let b = self.sum_bound(&reduced);
            if let Some(k) = fits_in_block(b, c)? {
                extra.konst = k;
                return self.finish_sum(extra).map(Some);
            }
        }
        Ok(None)
    }

    /// Search: `(t + x // a) // c == (t*a + x) // (a*c)` for positive `a`,
    /// `c`, kept when smaller: `(s0*2 + s1 // 64) // 3` is
    /// `(s0*128 + s1) // 192`. Terminates: the new numerator has lost the
    /// inner division node, so its table measure is smaller.
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

    /// Search: `Some((B, c'))` when `rest = g*B + R` with `0 <= R < g` for
    /// some `g > 1` dividing `c`, so that `rest // c == B // c'` with
    /// `c' = c / g` (and `rest % c == B % c' * g + R`). Each `g` dividing a
    /// coefficient is tried, largest first. Terminates: `B` has fewer terms
    /// than `rest` and a smaller divisor.
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
            // By a negative constant: the same table (its rules hold for
            // either sign of the divisor).
            let s = Sum::of(&a)?;
            if let Some(r) = self.apply_linear(rules::floor_mod_rules(), DivOp::Mod, &s, ia, c)? {
                return self.finish_linear(r);
            }
        }
        self.floor_mod_symbolic(a, ia, b, ib)
    }

    /// `a % c` for a constant `c > 0`.
    fn floor_mod_const(&mut self, a: Expr, ia: Info, c: i64) -> Out {
        self.floor_mod_const_sum(Sum::of(&a)?, ia, c)
    }

    /// `s % c` for a constant `c > 0` and a canonical linear form `s`.
    fn floor_mod_const_sum(&mut self, s: Sum, ia: Info, c: i64) -> Out {
        if let Some(alt) = self.index_split_form(&s, c)? {
            return self.smaller_of_forms(s, ia, alt, c, Self::floor_mod_const_sum);
        }
        let l = self.floor_mod_linear(s, ia, c)?;
        let (e, mut info) = self.finish_linear(l)?;
        info.bound = info.bound.intersect(ConstBound::new(0, c - 1));
        Ok((e, info))
    }

    /// `s % c` for `c > 1`: the rule table of [`rules`], then the searches
    /// that are not one-line rules.
    fn floor_mod_linear(&mut self, s: Sum, ia: Info, c: i64) -> Result<Lin> {
        if let Some(r) = self.apply_linear(rules::floor_mod_rules(), DivOp::Mod, &s, ia, c)? {
            return Ok(r);
        }
        if let Some(v) = s.as_const() {
            let v = num::floor_mod(v, c)?;
            return Ok(Lin::Done(Expr::int(v), Info::exact(v)));
        }
        if let Some((e, i)) = self.mod_by_common_factor(&s, c)? {
            return Ok(Lin::Done(e, i));
        }
        // (g*B + R) % (g*c') == B % c' * g + R when 0 <= R < g, if no larger.
        if let Some((b, c2)) = self.drop_small_remainder(&s, c)? {
            let g = c / c2;
            let mut r = Sum::default();
            for t in &s.terms {
                if t.coeff % g != 0 {
                    r.add_atom_info(&t.atom, t.coeff, t.info)?;
                }
            }
            r.konst = s.konst;
            let (be, bi) = self.finish_sum(b)?;
            let (m, _) = self.floor_mod_const(be, bi, c2)?;
            r.add_expr(&m, g)?;
            if r.cost() <= s.cost() + 2 {
                return Ok(Lin::Sum(r));
            }
        }
        let e = Expr::floor_mod(s.rebuild(), Expr::int(c));
        let bound = ia
            .bound
            .floor_mod_aligned(ia.modular, c)
            .intersect(ConstBound::new(0, c - 1));
        Ok(Lin::Done(
            e,
            Info {
                bound,
                modular: ia.modular.floor_mod_const(c),
            },
        ))
    }

    /// Search: `(g*Y + r) % (g*c') == (Y + r // g) % c' * g + r % g` for
    /// `g` the gcd of the coefficients and `c`, kept when no larger.
    /// Terminates: the inner modulo's divisor `c'` is smaller and its
    /// numerator no larger.
    fn mod_by_common_factor(&mut self, s: &Sum, c: i64) -> Result<Option<(Expr, Info)>> {
        let g = num::gcd(s.coeff_gcd(), c);
        if g <= 1 {
            return Ok(None);
        }
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
            return Ok(Some((e, info)));
        }
        Ok(None)
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
        // `X % m` for `m` a multiple of `b` (`b` itself, or `b * -1`)
        // differs from `X` by a multiple of `b`.
        let mut rest = Sum::constant(s.konst);
        let mut changed = false;
        let other_mod =
            |t: &super::sum::Term| matches!(t.atom.kind(), ExprKind::FloorMod(_, m) if *m != b);
        let bs = if s.terms.iter().any(other_mod) {
            Sum::of(&b).ok()
        } else {
            None
        };
        let multiple = |m: &Expr| {
            bs.as_ref()
                .is_some_and(|bs| Sum::of(m).is_ok_and(|ms| is_multiple(&ms, bs)))
        };
        for t in &s.terms {
            match t.atom.kind() {
                ExprKind::FloorMod(x, m) if *m == b || multiple(m) => {
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

/// Whether `m` is `k * b` for a nonzero integer `k`, term by term.
fn is_multiple(m: &Sum, b: &Sum) -> bool {
    if m.terms.len() != b.terms.len() || b.terms.is_empty() {
        return false;
    }
    let (t, u) = (&m.terms[0], &b.terms[0]);
    if t.atom != u.atom || t.coeff.checked_rem(u.coeff) != Some(0) {
        return false;
    }
    let Some(k) = t.coeff.checked_div(u.coeff) else {
        return false;
    };
    k != 0
        && m.terms
            .iter()
            .zip(&b.terms)
            .all(|(t, u)| t.atom == u.atom && u.coeff.checked_mul(k) == Some(t.coeff))
        && b.konst.checked_mul(k) == Some(m.konst)
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
