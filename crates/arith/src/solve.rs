//! Solving conditions for one variable: Halide's `solve_for_inner_interval`
//! and `and_condition_over_domain`, as Tensor Comprehensions' range
//! inference uses them.
//!
//! Both work on conjunctions of comparisons that are linear in the variable
//! (`a*i + rest op b` with a constant `a`; `rest` and `b` may mention other
//! variables, such as symbolic sizes). Each comparison is brought to the form
//! `k*i + r <= 0`, which bounds `i` by `floor(-r / k)` from above (`k > 0`)
//! or `ceil(r / -k)` from below (`k < 0`). Anything else (`i*i`, `i` inside
//! `min` or `//` that the simplifier cannot remove, `or`, `!=`) is an error,
//! never a guess.

use crate::analyzer::Analyzer;
use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{CmpOp, Expr, ExprKind, Type, Var};
use crate::int_set::IntSet;
use crate::num;
use crate::range::Range;
use crate::simplify::sum::Sum;
use std::cmp::Ordering;

/// `k * var + rest <= 0` with `k != 0`.
struct LinearLe {
    k: i64,
    rest: Sum,
}

/// What one conjunct says about the variable.
enum Conjunct {
    /// It does not mention the variable.
    Free,
    /// Equivalent to all of these.
    Linear(Vec<LinearLe>),
    /// `k*var + rest != 0`.
    NotEqual(Box<LinearLe>),
}

/// `num / den` with `den > 0`: rounded down as an upper bound, up as a lower
/// bound.
struct Fraction {
    num: Sum,
    den: i64,
}

impl Analyzer {
    /// The largest interval of `var` on which `cond` holds, for a conjunction
    /// (`and`) of `<`, `<=`, `>`, `>=`, `==` comparisons that are linear in
    /// `var`. Other variables are parameters; what the analyzer knows about
    /// them is used, while its facts about `var` itself are ignored.
    /// Conjuncts that do not mention `var` must be provably true (a provably
    /// false one makes the answer empty); otherwise this is an error, as is
    /// any non-linear use of `var`.
    ///
    /// ```
    /// use arith::Analyzer;
    /// let (cond, scope) = arith::parse_with_scope("0 <= 2*i + 1 and 2*i + 1 < I").unwrap();
    /// let an = Analyzer::new();
    /// let s = an.solve_for_inner_interval(&cond, scope.get("i").unwrap()).unwrap();
    /// assert_eq!(s.to_string(), "[0, I // 2 - 1]");
    /// assert_eq!(s.exclusive_max(&an).unwrap().to_string(), "I // 2");
    /// ```
    pub fn solve_for_inner_interval(&self, cond: &Expr, var: &Var) -> Result<IntSet> {
        let (cond, v) = self.detach(cond, var)?;
        let mut lowers: Vec<Fraction> = Vec::new();
        let mut uppers: Vec<Fraction> = Vec::new();
        for part in conjuncts(&cond) {
            if let Some(b) = part.as_bool() {
                if b {
                    continue;
                }
                return Ok(IntSet::nothing());
            }
            let forms = match self.linear_forms(&part, &v, var)? {
                Conjunct::Linear(forms) => forms,
                // `part` was simplified already, so it is not provably true.
                Conjunct::Free if self.can_prove(&Expr::not(part.clone())) => {
                    return Ok(IntSet::nothing())
                }
                Conjunct::Free => {
                    return Err(ArithError::new(
                        ErrorKind::Invalid,
                        format!(
                            "cannot solve for `{var}`: the conjunct `{part}` does not mention \
                             `{var}` and cannot be proved from what is known about the other \
                             variables; check it separately (as a precondition) or bind the \
                             ranges of its variables first"
                        ),
                    ))
                }
                Conjunct::NotEqual(_) => {
                    return Err(not_solvable(
                        var,
                        &part,
                        "`!=` excludes one value and does not bound an interval",
                    ))
                }
            };
            for LinearLe { k, rest } in forms {
                if k > 0 {
                    // k*v <= -r  <=>  v <= floor(-r / k)
                    let mut num = rest;
                    num.scale(-1)?;
                    uppers.push(Fraction { num, den: k });
                } else {
                    // -|k|*v + r <= 0  <=>  v >= ceil(r / |k|)
                    lowers.push(Fraction {
                        num: rest,
                        den: num::neg(k)?,
                    });
                }
            }
        }
        let lo = self.tightest(lowers, true)?;
        let hi = self.tightest(uppers, false)?;
        if let (Some(l), Some(h)) = (&lo, &hi) {
            if self.can_prove(&Expr::lt(h.clone(), l.clone())) {
                return Ok(IntSet::nothing());
            }
        }
        Ok(IntSet::interval(lo, hi))
    }

    /// The condition on the other variables that holds exactly when `cond`
    /// holds for every value of `var` in `range` (vacuously true when the
    /// range is empty). For each linear comparison the value of `var` that is
    /// worst for it is substituted: `0 <= 2*i + k and 2*i + k < I` over `k`
    /// in `[0, 2)` becomes `0 <= 2*i and 2*i + 1 < I`. Conjuncts that do not
    /// mention `var` are kept; non-linear uses of `var`, `or`, and `!=` with
    /// a coefficient other than `±1` are errors.
    ///
    /// ```
    /// use arith::{Analyzer, Expr, Range};
    /// let (cond, scope) = arith::parse_with_scope("0 <= 2*i + k and 2*i + k < I").unwrap();
    /// let an = Analyzer::new();
    /// let k = scope.get("k").unwrap();
    /// let c = an.and_condition_over_domain(&cond, k, &Range::from_extent(Expr::int(2))).unwrap();
    /// assert_eq!(c.to_string(), "0 <= i and i * 2 < I - 1");
    /// ```
    pub fn and_condition_over_domain(&self, cond: &Expr, var: &Var, range: &Range) -> Result<Expr> {
        let extent = self.simplify(&range.extent)?;
        if self.can_prove(&Expr::le(extent.clone(), Expr::int(0))) {
            // Over no values at all, every condition holds.
            return Ok(Expr::bool(true));
        }
        let (simplified, v) = self.detach(cond, var)?;
        match self.condition_over(&simplified, &v, var, range, &extent) {
            // The simplifier's form of a linear condition need not be
            // linear (`0 <= 3 * k + 2 * n < 2` is `n + k * 3 // 2 == 0`):
            // the condition as written is solved instead.
            Err(e) if e.kind == ErrorKind::Invalid => {
                let renamed = crate::walk::substitute(cond, &mut |x| (x == var).then(|| v.expr()));
                self.condition_over(&renamed, &v, var, range, &extent)
                    .map_err(|_| e)
            }
            other => other,
        }
    }

    /// [`Analyzer::and_condition_over_domain`] of `cond` over `v` (standing
    /// for `var`), whose range has `extent` values.
    fn condition_over(
        &self,
        cond: &Expr,
        v: &Var,
        var: &Var,
        range: &Range,
        extent: &Expr,
    ) -> Result<Expr> {
        let lo = self.simplify(&range.min)?;
        let hi = self.simplify(&Expr::sub(
            Expr::add(range.min.clone(), range.extent.clone()),
            Expr::int(1),
        ))?;
        let mut kept: Vec<Expr> = Vec::new();
        for part in conjuncts(cond) {
            match self.linear_forms(&part, v, var)? {
                Conjunct::Free => kept.push(part),
                Conjunct::Linear(forms) => {
                    for LinearLe { k, mut rest } in forms {
                        let worst = if k > 0 { &hi } else { &lo };
                        rest.add_expr(worst, k)?;
                        kept.push(Expr::le(rest.rebuild(), Expr::int(0)));
                    }
                }
                Conjunct::NotEqual(ne) => kept.push(never_equal_over(*ne, &part, var, &lo, &hi)?),
            }
        }
        let all = kept
            .into_iter()
            .reduce(Expr::and)
            .unwrap_or(Expr::bool(true));
        let body = self.simplify(&all)?;
        if self.can_prove(&Expr::ge(extent.clone(), Expr::int(1))) {
            return Ok(body);
        }
        self.simplify(&Expr::or(Expr::le(extent.clone(), Expr::int(0)), body))
    }

    /// `cond` simplified with `var` replaced by a fresh variable, so that
    /// what the analyzer knows about `var` does not decide comparisons.
    fn detach(&self, cond: &Expr, var: &Var) -> Result<(Expr, Var)> {
        if cond.ty() != Type::Bool {
            return Err(ArithError::new(
                ErrorKind::Type,
                format!("expected a condition on `{var}`, found the integer expression `{cond}`"),
            ));
        }
        let fresh = Var::new(var.name());
        let renamed = crate::walk::substitute(cond, &mut |v| (v == var).then(|| fresh.expr()));
        Ok((self.simplify(&renamed)?, fresh))
    }

    /// One conjunct as `k*v + r <= 0` forms.
    fn linear_forms(&self, part: &Expr, v: &Var, var: &Var) -> Result<Conjunct> {
        if !crate::walk::any_node(part, |n| n.as_var() == Some(v)) {
            return Ok(Conjunct::Free);
        }
        let Some((op, a, b)) = as_comparison(part) else {
            return Err(not_solvable(
                var,
                part,
                "only conjunctions (`and`) of comparisons can be solved",
            ));
        };
        // `a - b` as a linear form, simplified once for both readings.
        let d = Sum::of(&self.simplify(&Expr::sub(a, b))?)?;
        if let Some(forms) = floor_div_forms(op, &d, v)? {
            return Ok(forms);
        }
        let Some((k, rest)) = linear_in(&d, v, var, part)? else {
            return Ok(Conjunct::Free);
        };
        let le = |k: i64, rest: Sum| LinearLe { k, rest };
        let negated = |s: &Sum| -> Result<Sum> {
            let mut n = s.clone();
            n.scale(-1)?;
            Ok(n)
        };
        let plus_one = |mut s: Sum| -> Result<Sum> {
            s.konst = num::add(s.konst, 1)?;
            Ok(s)
        };
        let nk = num::neg(k)?;
        let forms = match op {
            CmpOp::Le => vec![le(k, rest)],
            // d < 0  <=>  d + 1 <= 0
            CmpOp::Lt => vec![le(k, plus_one(rest)?)],
            CmpOp::Ge => vec![le(nk, negated(&rest)?)],
            CmpOp::Gt => vec![le(nk, plus_one(negated(&rest)?)?)],
            CmpOp::Eq => vec![le(nk, negated(&rest)?), le(k, rest)],
            CmpOp::Ne => return Ok(Conjunct::NotEqual(Box::new(le(k, rest)))),
        };
        Ok(Conjunct::Linear(forms))
    }

    /// The tightest of several bounds (the largest lower or smallest upper
    /// bound) as one simplified expression; `None` when there are none.
    /// Bounds whose order is known are compared exactly on their fractions
    /// (`floor((I - 2) / 2) <= floor((I - 1) / 2)`), which the simplifier
    /// cannot do once they are divisions; the rest are combined with
    /// `max`/`min`.
    fn tightest(&self, bounds: Vec<Fraction>, lower: bool) -> Result<Option<Expr>> {
        let mut kept: Vec<Fraction> = Vec::new();
        'next: for f in bounds {
            let mut i = 0;
            while i < kept.len() {
                match self.compare_fractions(&kept[i], &f)? {
                    Some(order) => {
                        let f_is_tighter = if lower {
                            order == Ordering::Less
                        } else {
                            order == Ordering::Greater
                        };
                        if f_is_tighter {
                            kept.remove(i);
                        } else {
                            continue 'next;
                        }
                    }
                    None => i += 1,
                }
            }
            kept.push(f);
        }
        let mut out: Option<Expr> = None;
        for f in kept {
            let e = self.round_fraction(&f, lower)?;
            out = Some(match out {
                None => e,
                Some(acc) => {
                    let m = if lower {
                        Expr::max(acc, e)
                    } else {
                        Expr::min(acc, e)
                    };
                    self.simplify(&m)?
                }
            });
        }
        Ok(out)
    }

    /// `Less` when `a <= b` for every value of the parameters, `Greater` when
    /// `a >= b`, `None` when unknown. Rounding is monotone, so the order of
    /// the fractions is the order of the bounds.
    fn compare_fractions(&self, a: &Fraction, b: &Fraction) -> Result<Option<Ordering>> {
        // a.num / a.den - b.num / b.den has the sign of a.num*b.den - b.num*a.den.
        let mut d = a.num.clone();
        d.scale(b.den)?;
        d.add_sum(&b.num, num::neg(a.den)?)?;
        let bound = self.const_int_bound(&d.rebuild());
        Ok(if bound.all_le(0) {
            Some(Ordering::Less)
        } else if bound.all_ge(0) {
            Some(Ordering::Greater)
        } else {
            None
        })
    }

    /// `ceil(num / den)` for a lower bound, `floor(num / den)` for an upper.
    fn round_fraction(&self, f: &Fraction, lower: bool) -> Result<Expr> {
        let mut num = f.num.clone();
        if lower {
            // ceil(n / d) == floor((n + d - 1) / d) for d > 0
            num.konst = num::add(num.konst, f.den - 1)?;
        }
        let e = if f.den == 1 {
            num.rebuild()
        } else {
            Expr::floor_div(num.rebuild(), Expr::int(f.den))
        };
        self.simplify(&e)
    }
}

/// `k*v + rest != 0` for every `v` in `[lo, hi]`, for `k = ±1`: the one
/// excluded value lies outside the range.
fn never_equal_over(
    LinearLe { k, mut rest }: LinearLe,
    part: &Expr,
    var: &Var,
    lo: &Expr,
    hi: &Expr,
) -> Result<Expr> {
    if k != 1 && k != -1 {
        return Err(not_solvable(
            var,
            part,
            "`!=` with a coefficient other than 1 or -1 cannot be eliminated over a range",
        ));
    }
    // v + r != 0 excludes v = -r; -v + r != 0 excludes v = r.
    rest.scale(-k)?;
    let excluded = rest.rebuild();
    Ok(Expr::or(
        Expr::lt(excluded.clone(), lo.clone()),
        Expr::gt(excluded, hi.clone()),
    ))
}

/// The conjuncts of a simplified condition; `not (a or b)` counts as the two
/// conjuncts `not a` and `not b`.
fn conjuncts(cond: &Expr) -> Vec<Expr> {
    fn walk(e: &Expr, out: &mut Vec<Expr>) {
        match e.kind() {
            ExprKind::And(a, b) => {
                walk(a, out);
                walk(b, out);
            }
            ExprKind::Not(inner) => match inner.kind() {
                ExprKind::Or(a, b) => {
                    walk(&Expr::not(a.clone()), out);
                    walk(&Expr::not(b.clone()), out);
                }
                ExprKind::Not(x) => walk(x, out),
                _ => out.push(e.clone()),
            },
            _ => out.push(e.clone()),
        }
    }
    let mut out = Vec::new();
    walk(cond, &mut out);
    out
}

/// The simplified `a - b` as `k*v + rest` with a constant `k`, or `None` when `v`
/// cancels out.
fn linear_in(sum: &Sum, v: &Var, var: &Var, part: &Expr) -> Result<Option<(i64, Sum)>> {
    let mut k = 0;
    let mut rest = Sum::constant(sum.konst);
    for t in &sum.terms {
        if t.atom.as_var() == Some(v) {
            k = t.coeff;
        } else if t.atom.uses_var(v) {
            return Err(not_solvable(
                var,
                part,
                &format!(
                    "`{var}` occurs inside `{}`, which is not linear in it",
                    t.atom
                ),
            ));
        } else {
            rest.add_atom(&t.atom, t.coeff)?;
        }
    }
    Ok((k != 0).then_some((k, rest)))
}

/// A comparison in which `v` occurs only in one floor division by a
/// positive constant, `±(L // c) + R  op  0` with `L` linear in `v`
/// (the simplifier merges `i - 4 <= n * 2 <= i - 3` into
/// `n == (i - 3) // 2`), as linear forms: exactly, since for `c > 0`
/// `L // c <= B` is `L <= B * c + c - 1` and `L // c >= B` is
/// `L >= B * c`. `None` for any other comparison.
fn floor_div_forms(op: CmpOp, sum: &Sum, v: &Var) -> Result<Option<Conjunct>> {
    let mut uses = sum
        .terms
        .iter()
        .enumerate()
        .filter(|(_, t)| t.atom.uses_var(v));
    let (Some((at, t)), None) = (uses.next(), uses.next()) else {
        return Ok(None);
    };
    let ExprKind::FloorDiv(l, c) = t.atom.kind() else {
        return Ok(None);
    };
    let (Some(c), m) = (c.as_int().filter(|&c| c > 0), t.coeff) else {
        return Ok(None);
    };
    if m != 1 && m != -1 {
        return Ok(None);
    }
    // L = kl * v + l_rest, linear in v.
    let l = Sum::of(l)?;
    let mut kl = 0;
    let mut l_rest = Sum::constant(l.konst);
    for u in &l.terms {
        if u.atom.as_var() == Some(v) {
            kl = u.coeff;
        } else if u.atom.uses_var(v) {
            return Ok(None);
        } else {
            l_rest.add_atom(&u.atom, u.coeff)?;
        }
    }
    if kl == 0 {
        return Ok(None);
    }
    // R: the comparison without the division.
    let mut r = Sum::constant(sum.konst);
    for (j, u) in sum.terms.iter().enumerate() {
        if j != at {
            r.add_atom(&u.atom, u.coeff)?;
        }
    }
    // `s * q + T <= 0` over `q = L // c`, as `op` asks (`x < 0` is
    // `x + 1 <= 0`).
    let shifted = |mut t: Sum, by: i64| -> Result<Sum> {
        t.konst = num::add(t.konst, by)?;
        Ok(t)
    };
    let negated = |t: &Sum| -> Result<Sum> {
        let mut n = t.clone();
        n.scale(-1)?;
        Ok(n)
    };
    let on_q: Vec<(i64, Sum)> = match op {
        CmpOp::Le => vec![(m, r)],
        CmpOp::Lt => vec![(m, shifted(r, 1)?)],
        CmpOp::Ge => vec![(-m, negated(&r)?)],
        CmpOp::Gt => vec![(-m, shifted(negated(&r)?, 1)?)],
        CmpOp::Eq => vec![(-m, negated(&r)?), (m, r)],
        CmpOp::Ne => return Ok(None),
    };
    let mut forms = Vec::with_capacity(on_q.len());
    for (s, t) in on_q {
        // T * c, shared by both directions.
        let mut tc = t;
        tc.scale(c)?;
        let form = if s == 1 {
            // q <= -T  <=>  L <= -T*c + c - 1  <=>  L + T*c - c + 1 <= 0
            let mut rest = l_rest.clone();
            rest.add_sum(&tc, 1)?;
            LinearLe {
                k: kl,
                rest: shifted(rest, num::sub(1, c)?)?,
            }
        } else {
            // q >= T  <=>  L >= T*c  <=>  T*c - L <= 0
            let mut rest = tc;
            rest.add_sum(&l_rest, -1)?;
            LinearLe {
                k: num::neg(kl)?,
                rest,
            }
        };
        forms.push(form);
    }
    Ok(Some(Conjunct::Linear(forms)))
}

/// `(op, a, b)` for `a op b` or `not (a op' b)` over integers.
fn as_comparison(e: &Expr) -> Option<(CmpOp, Expr, Expr)> {
    match e.kind() {
        ExprKind::Cmp(op, a, b) if a.ty() == Type::Int => Some((*op, a.clone(), b.clone())),
        ExprKind::Not(inner) => match inner.kind() {
            ExprKind::Cmp(op, a, b) if a.ty() == Type::Int => {
                Some((op.negated(), a.clone(), b.clone()))
            }
            _ => None,
        },
        _ => None,
    }
}

fn not_solvable(var: &Var, part: &Expr, why: &str) -> ArithError {
    ArithError::new(
        ErrorKind::Invalid,
        format!(
            "cannot solve `{part}` for `{var}`: {why}; give `{var}` an explicit range \
             (in TC: `where {var} in lo:hi`)"
        ),
    )
}
