//! The [`Analyzer`]: variable ranges plus every analysis that uses them.
//!
//! One concept per module: the variable facts ([`var_table`]), the entry
//! to simplification with its shortcuts ([`simplify_entry`]), constant
//! bounds and alignment per operator ([`structural`]), the overflow
//! analysis ([`overflow`]) and bounds under symbolic ranges
//! ([`symbolic`]). This module binds ranges and answers the questions.

mod overflow;
mod simplify_entry;
mod structural;
mod symbolic;
#[cfg(test)]
mod tests;
mod var_table;

use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::{Expr, ExprKind, Var};
use crate::modular::Modular;
use crate::range::Range;
use crate::simplify::{Info, Simplifier};
use var_table::{point_modular, VarFact, VarTable};

/// Holds what is known about variables (constant or symbolic ranges) and
/// answers questions about expressions over them.
///
/// ```
/// use arith::{Analyzer, Expr, Range};
/// let (e, scope) = arith::parse_with_scope("(x * 4 + y) // 4").unwrap();
/// let mut an = Analyzer::new();
/// an.bind(scope.get("y").unwrap(), Range::half_open(Expr::int(0), Expr::int(4)));
/// assert_eq!(an.simplify(&e).unwrap().to_string(), "x");
/// ```
#[derive(Clone, Default)]
pub struct Analyzer {
    vars: VarTable,
    /// How many variables have symbolic (non-constant) range ends.
    symbolic_count: usize,
}

impl Analyzer {
    /// An analyzer that knows nothing about any variable.
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// Declares that `var` takes the values of `range` (its ends may be
    /// expressions in other variables). Facts already known are kept: the
    /// new range narrows them. [`Analyzer::try_bind`] binds once, as TVM
    /// does; [`Analyzer::rebind`] replaces the range.
    pub fn bind(&mut self, var: &Var, range: Range) {
        self.bind_range(var, &range);
    }

    /// Binds every `(variable, range)` pair, as [`Analyzer::bind`] does
    /// one. When some end is symbolic the list is bound twice, so that an
    /// end may use a variable whose range comes later in the list
    /// (`i=0:n n=1:8`).
    ///
    /// ```
    /// let mut scope = arith::Scope::new();
    /// let e = arith::parse_in("min(i, n - 1)", &mut scope).unwrap();
    /// let specs = arith::parse_range_specs("i=0:n n=1:100", &mut scope).unwrap();
    /// let mut an = arith::Analyzer::new();
    /// an.bind_all(&specs);
    /// assert_eq!(an.simplify(&e).unwrap().to_string(), "i");
    /// ```
    pub fn bind_all(&mut self, ranges: &[(Var, Range)]) {
        let constant = ranges
            .iter()
            .all(|(_, r)| r.min.as_int().is_some() && r.extent.as_int().is_some());
        let passes = if constant { 1 } else { 2 };
        for _ in 0..passes {
            for (v, r) in ranges {
                self.bind_range(v, r);
            }
        }
    }

    fn bind_range(&mut self, var: &Var, range: &Range) {
        let fresh = self.fact_of(range);
        let fact = match self.vars.get(var) {
            Some(prev) => prev.narrowed_by(fresh),
            None => fresh,
        };
        self.store(var, fact);
    }

    /// Binds `var` to `range` once, as TVM's `Analyzer::Bind` does without
    /// override: binding the same range again is harmless, a different
    /// range (or constant bounds set before) is an error naming the
    /// variable and both ranges. Variables whose symbolic range ends use
    /// `var` have their constant bounds recomputed.
    ///
    /// ```
    /// use arith::{Analyzer, Range, Var};
    /// let x = Var::new("x");
    /// let mut an = Analyzer::new();
    /// an.try_bind(&x, Range::inclusive(0, 7)).unwrap();
    /// an.try_bind(&x, Range::inclusive(0, 7)).unwrap();
    /// assert!(an.try_bind(&x, Range::inclusive(100, 107)).is_err());
    /// ```
    pub fn try_bind(&mut self, var: &Var, range: Range) -> Result<()> {
        let fresh = self.fact_of(&range);
        if let Some(prev) = self.vars.get(var) {
            if !prev.same_range(&fresh) {
                return Err(prev.rebinding_error(var, &fresh));
            }
            // The same range: keep whatever is tighter (ends known better
            // now that other variables are bound).
            let fact = prev.narrowed_by(fresh);
            self.store(var, fact);
        } else {
            self.store(var, fresh);
        }
        self.refresh_dependents(var);
        Ok(())
    }

    /// Replaces everything known about `var` with the facts of `range`
    /// alone (TVM's `Bind` with override): constant bounds, alignment,
    /// symbolic ends and declared ends are replaced together, never
    /// intersected with the old ones, and variables whose symbolic range
    /// ends use `var` have their constant bounds recomputed.
    ///
    /// ```
    /// use arith::{Analyzer, ConstBound, Expr, Range, Var};
    /// let x = Var::new("x");
    /// let mut an = Analyzer::new();
    /// an.bind(&x, Range::inclusive(0, 7));
    /// an.rebind(&x, Range::inclusive(100, 107));
    /// assert_eq!(an.var_bound(&x), ConstBound::new(100, 107));
    /// ```
    pub fn rebind(&mut self, var: &Var, range: Range) {
        self.unbind(var);
        let fresh = self.fact_of(&range);
        self.store(var, fresh);
        self.refresh_dependents(var);
    }

    /// The facts of `var` bound to `range`, from the range alone (its ends
    /// evaluated under what is known about the other variables).
    fn fact_of(&self, range: &Range) -> VarFact {
        // Constant ends (the common case) need no simplification and no
        // expression for the upper end.
        let constant = match (range.min.as_int(), range.extent.as_int()) {
            (Some(m), Some(n)) => m
                .checked_add(n)
                .and_then(|e| e.checked_sub(1))
                .map(|h| (m, h)),
            _ => None,
        };
        let (bound, declared, symbolic) = match constant {
            Some((l, h)) => (ConstBound::new(l, h), Some((l, h)), None),
            None => {
                let lo = self.simplify(&range.min).unwrap_or(range.min.clone());
                let hi_raw = Expr::sub(
                    Expr::add(range.min.clone(), range.extent.clone()),
                    Expr::int(1),
                );
                let hi = self.simplify(&hi_raw).unwrap_or(hi_raw);
                let lb = self.const_int_bound(&lo);
                let hb = self.const_int_bound(&hi);
                match (lo.as_int(), hi.as_int()) {
                    (Some(l), Some(h)) => (ConstBound::new(lb.min, hb.max), Some((l, h)), None),
                    _ => (ConstBound::new(lb.min, hb.max), None, Some((lo, hi))),
                }
            }
        };
        VarFact {
            symbolic,
            declared,
            info: Info {
                bound,
                modular: point_modular(bound),
            },
        }
    }

    /// Sets the facts of `var`, keeping the count of symbolic ranges.
    fn store(&mut self, var: &Var, fact: VarFact) {
        let now = usize::from(fact.symbolic.is_some());
        if let Some(prev) = self.vars.insert(var, fact) {
            self.symbolic_count -= usize::from(prev.symbolic.is_some());
        }
        self.symbolic_count += now;
    }

    /// Recomputes the constant bounds of every variable whose symbolic
    /// range ends use `var` (and of theirs in turn, each variable once):
    /// they were derived from what `var` was, and must follow what it is.
    fn refresh_dependents(&mut self, var: &Var) {
        if self.symbolic_count == 0 {
            return;
        }
        let mut changed = vec![var.clone()];
        let mut done: Vec<u64> = vec![var.id()];
        while let Some(v) = changed.pop() {
            let users: Vec<(Var, Expr, Expr)> = self
                .vars
                .entries
                .iter()
                .filter(|(id, _, _)| !done.contains(id))
                .filter_map(|(_, w, f)| {
                    let (lo, hi) = f.symbolic.as_ref()?;
                    (lo.uses_var(&v) || hi.uses_var(&v))
                        .then(|| (w.clone(), lo.clone(), hi.clone()))
                })
                .collect();
            for (w, lo, hi) in users {
                let bound =
                    ConstBound::new(self.const_int_bound(&lo).min, self.const_int_bound(&hi).max);
                let fact = VarFact {
                    symbolic: Some((lo, hi)),
                    declared: None,
                    info: Info {
                        bound,
                        modular: point_modular(bound),
                    },
                };
                self.store(&w, fact);
                done.push(w.id());
                changed.push(w);
            }
        }
    }

    /// Sets the constant bounds of `var` as TVM's `Update` does without
    /// override: an error when `var` already has different facts.
    pub fn try_update_bound(&mut self, var: &Var, bound: ConstBound) -> Result<()> {
        let fresh = VarFact::of_bound(bound);
        if let Some(prev) = self.vars.get(var) {
            if !prev.same_range(&fresh) {
                return Err(prev.rebinding_error(var, &fresh));
            }
            return Ok(());
        }
        self.store(var, fresh);
        self.refresh_dependents(var);
        Ok(())
    }

    /// Replaces everything known about `var` with the constant bounds
    /// `bound` (inclusive; TVM's `Update` with override), as
    /// [`Analyzer::rebind`] does for a range.
    pub fn set_bound(&mut self, var: &Var, bound: ConstBound) {
        self.unbind(var);
        self.store(var, VarFact::of_bound(bound));
        self.refresh_dependents(var);
    }

    /// Narrows the constant bounds of `var` to `bound` (inclusive).
    pub fn update_bound(&mut self, var: &Var, bound: ConstBound) {
        let fact = self.vars.get_or_insert(
            var,
            VarFact {
                symbolic: None,
                info: Info::ANY,
                declared: None,
            },
        );
        fact.info.bound = fact.info.bound.intersect(bound);
        if let Some(v) = fact.info.bound.as_point() {
            fact.info.modular = Modular::exact(v);
        }
    }

    /// Forgets everything known about `var`.
    pub fn unbind(&mut self, var: &Var) {
        if let Some(prev) = self.vars.remove(var) {
            self.symbolic_count -= usize::from(prev.symbolic.is_some());
        }
    }

    /// The constant bounds known for `var` (everything when unbound).
    pub fn var_bound(&self, var: &Var) -> ConstBound {
        self.var_info(var).bound
    }

    /// The inclusive symbolic bounds of `var`, when it was bound to a range
    /// with non-constant ends.
    pub fn var_symbolic_bounds(&self, var: &Var) -> Option<(&Expr, &Expr)> {
        self.vars
            .get(var)
            .and_then(|f| f.symbolic.as_ref())
            .map(|(a, b)| (a, b))
    }

    pub(crate) fn var_info(&self, var: &Var) -> Info {
        self.vars.get(var).map(|f| f.info).unwrap_or(Info::ANY)
    }

    /// The tightest constant interval this analyzer can prove for `e`.
    ///
    /// ```
    /// use arith::{Analyzer, ConstBound, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x % 8 + x // 8").unwrap();
    /// let mut an = Analyzer::new();
    /// an.bind(scope.get("x").unwrap(), Range::half_open(Expr::int(0), Expr::int(64)));
    /// assert_eq!(an.const_int_bound(&e), ConstBound::new(0, 14));
    /// ```
    pub fn const_int_bound(&self, e: &Expr) -> ConstBound {
        let raw = self.structural_info(e).bound;
        // One structural walk is the whole answer when it cannot be
        // improved by rewriting: every variable occurs once and has
        // constant bounds, so interval arithmetic loses nothing to
        // correlated occurrences (as TVM's `ConstIntBoundAnalyzer`).
        if raw.as_point().is_some() || self.structurally_exact(e) {
            return raw;
        }
        match self.simplify(e) {
            Ok(s) => {
                let mut sim = Simplifier::new(self);
                raw.intersect(self.symbolic_bound(&s, &mut sim))
            }
            Err(_) => raw,
        }
    }

    /// What is known about the alignment of `e`.
    ///
    /// ```
    /// let (e, _) = arith::parse_with_scope("x * 6 + y * 4 + 3").unwrap();
    /// let m = arith::Analyzer::new().modular_set(&e);
    /// assert_eq!((m.coeff, m.base), (2, 1));
    /// ```
    pub fn modular_set(&self, e: &Expr) -> Modular {
        let raw = self.structural_info(e).modular;
        if raw.coeff == 0 || self.structurally_exact(e) {
            return raw;
        }
        match self.simplify(e) {
            Ok(s) => {
                let m = self.structural_info(&s).modular;
                if m.coeff == 0 || (raw.coeff != 0 && m.coeff % raw.coeff == 0) {
                    m
                } else {
                    raw
                }
            }
            Err(_) => raw,
        }
    }

    /// Decides a condition: `Some(true)` when it holds for every value of
    /// its variables in the bound ranges, `Some(false)` when it fails for
    /// every one, `None` otherwise (how a TVM condition acts as a Python
    /// `bool`).
    ///
    /// ```
    /// let (e, _) = arith::parse_with_scope("x + 1 > x").unwrap();
    /// assert_eq!(arith::Analyzer::new().decide(&e), Some(true));
    /// let (e, _) = arith::parse_with_scope("x < 4").unwrap();
    /// assert_eq!(arith::Analyzer::new().decide(&e), None);
    /// ```
    pub fn decide(&self, cond: &Expr) -> Option<bool> {
        let simplified = self.simplify(cond).ok()?;
        if let Some(b) = simplified.as_bool() {
            return Some(b);
        }
        if let Some(i) = simplified.as_int() {
            return Some(i != 0);
        }
        if self.can_prove(cond) {
            return Some(true);
        }
        if self.can_prove(&Expr::not(cond.clone())) {
            return Some(false);
        }
        None
    }

    /// Whether the condition holds for every value of its variables inside
    /// their ranges. `false` means "could not prove", not "false".
    pub fn can_prove(&self, cond: &Expr) -> bool {
        self.proved_by_bounds(cond)
            || matches!(self.simplify(cond), Ok(e) if e.as_bool() == Some(true))
    }

    /// Whether the constant bounds of the two sides of a comparison (or of
    /// every comparison of a conjunction) decide it: the cheap first try of
    /// [`Analyzer::can_prove`], one structural walk per side.
    pub(super) fn proved_by_bounds(&self, cond: &Expr) -> bool {
        use crate::expr::CmpOp::*;
        match cond.kind() {
            ExprKind::Bool(b) => *b,
            ExprKind::And(a, b) => self.proved_by_bounds(a) && self.proved_by_bounds(b),
            ExprKind::Cmp(op, a, b) => {
                let (x, y) = (self.structural_info(a).bound, self.structural_info(b).bound);
                match op {
                    Lt => x.max != crate::POS_INF && y.min != crate::NEG_INF && x.max < y.min,
                    Le => x.max != crate::POS_INF && y.min != crate::NEG_INF && x.max <= y.min,
                    Gt => y.max != crate::POS_INF && x.min != crate::NEG_INF && y.max < x.min,
                    Ge => y.max != crate::POS_INF && x.min != crate::NEG_INF && y.max <= x.min,
                    Ne => x.is_finite() && y.is_finite() && (x.max < y.min || y.max < x.min),
                    Eq => matches!((x.as_point(), y.as_point()), (Some(p), Some(q)) if p == q),
                }
            }
            _ => false,
        }
    }
}
