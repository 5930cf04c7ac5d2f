//! The [`Analyzer`]: variable ranges plus every analysis that uses them.

use crate::bound::ConstBound;
use crate::error::{ArithError, ErrorKind, Result};
use crate::expr::{Expr, ExprKind, Var};
use crate::id_hash::IdMap;
use crate::modular::Modular;
use crate::range::Range;
use crate::simplify::sum::Sum;
use crate::simplify::{Info, Simplifier};
use smallvec::SmallVec;
use std::collections::HashMap;

/// An interval of values in `i128` (clamped to `i64`), `None` over
/// unbounded variables: what [`Analyzer::may_overflow`] tracks per node.
type W = Option<(i128, i128)>;

/// Facts by variable: a short list searched in order while the analyzer
/// knows few variables (most know one to four, and a hash costs more than
/// comparing that many ids), with an index by id beyond.
#[derive(Clone, Default)]
struct VarTable {
    entries: SmallVec<[(u64, Var, VarFact); 4]>,
    /// Positions in `entries` by variable id, once there are many.
    index: IdMap<u64, usize>,
}

impl VarTable {
    /// Tables with more entries than this keep an index.
    const FEW: usize = 8;

    fn position(&self, var: &Var) -> Option<usize> {
        let id = var.id();
        if self.entries.len() <= Self::FEW {
            self.entries.iter().position(|(i, _, _)| *i == id)
        } else {
            self.index.get(&id).copied()
        }
    }

    #[inline]
    fn get(&self, var: &Var) -> Option<&VarFact> {
        self.position(var).map(|i| &self.entries[i].2)
    }

    /// Sets the fact of `var`, returning the one it replaces.
    fn insert(&mut self, var: &Var, fact: VarFact) -> Option<VarFact> {
        match self.position(var) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].2, fact)),
            None => {
                self.push(var, fact);
                None
            }
        }
    }

    fn get_or_insert(&mut self, var: &Var, fact: VarFact) -> &mut VarFact {
        let i = match self.position(var) {
            Some(i) => i,
            None => self.push(var, fact),
        };
        &mut self.entries[i].2
    }

    fn push(&mut self, var: &Var, fact: VarFact) -> usize {
        let at = self.entries.len();
        self.entries.push((var.id(), var.clone(), fact));
        if self.entries.len() == Self::FEW + 1 {
            self.rebuild_index();
        } else if self.entries.len() > Self::FEW + 1 {
            self.index.insert(var.id(), at);
        }
        at
    }

    fn remove(&mut self, var: &Var) -> Option<VarFact> {
        let i = self.position(var)?;
        let (id, _, fact) = self.entries.swap_remove(i);
        if self.entries.len() <= Self::FEW {
            self.index.clear();
        } else {
            self.index.remove(&id);
            if let Some((moved, _, _)) = self.entries.get(i) {
                self.index.insert(*moved, i);
            }
        }
        Some(fact)
    }

    fn rebuild_index(&mut self) {
        self.index.clear();
        if self.entries.len() > Self::FEW {
            for (i, (id, _, _)) in self.entries.iter().enumerate() {
                self.index.insert(*id, i);
            }
        }
    }
}

#[derive(Clone, Debug)]
struct VarFact {
    /// Inclusive symbolic bounds `[lo, hi]`, when they are not constants.
    symbolic: Option<(Expr, Expr)>,
    info: Info,
    /// The constant ends `[lo, hi]` the variable was bound to, when it was:
    /// unlike `info.bound`, an end of `i64::MIN` or `i64::MAX` here is that
    /// value, not infinity (overflow checks need the difference).
    declared: Option<(i64, i64)>,
}

impl VarFact {
    /// The facts of a variable known only by constant bounds.
    fn of_bound(bound: ConstBound) -> VarFact {
        VarFact {
            symbolic: None,
            declared: None,
            info: Info {
                bound,
                modular: point_modular(bound),
            },
        }
    }

    /// The facts of binding again to a range already bound (`fresh`):
    /// constant bounds and ends narrowed, the new symbolic ends kept.
    fn narrowed_by(&self, fresh: VarFact) -> VarFact {
        let declared = fresh.declared.map(|(l, h)| {
            self.declared
                .map_or((l, h), |(pl, ph)| (pl.max(l), ph.min(h)))
        });
        VarFact {
            symbolic: fresh.symbolic,
            declared,
            info: Info {
                bound: self.info.bound.intersect(fresh.info.bound),
                modular: fresh.info.modular,
            },
        }
    }

    /// Whether `fresh` states the same range as these facts: the same
    /// symbolic ends, or the same constant ends.
    fn same_range(&self, fresh: &VarFact) -> bool {
        match (&self.symbolic, &fresh.symbolic) {
            (Some(a), Some(b)) => a == b,
            (None, None) => match (self.declared, fresh.declared) {
                (Some(a), Some(b)) => a == b,
                _ => self.info.bound == fresh.info.bound,
            },
            _ => false,
        }
    }

    /// The error for binding `var`, which has these facts, to `fresh`.
    fn rebinding_error(&self, var: &Var, fresh: &VarFact) -> ArithError {
        ArithError::new(
            ErrorKind::Invalid,
            format!(
                "`{}` already has the range {}; {} differs: bind a variable once, \
                 or override its range to replace it",
                var.name(),
                self.describe(),
                fresh.describe()
            ),
        )
    }

    /// The range as the user would recognise it (inclusive ends).
    fn describe(&self) -> String {
        match (&self.symbolic, self.declared) {
            (Some((lo, hi)), _) => format!("[{lo}, {hi}] (inclusive)"),
            (None, Some((l, h))) => format!("[{l}, {h}] (inclusive)"),
            (None, None) => format!("{} (inclusive)", self.info.bound),
        }
    }
}

/// The alignment a variable's constant bounds imply: exact for a single
/// value, nothing otherwise.
fn point_modular(bound: ConstBound) -> Modular {
    match bound.as_point() {
        Some(v) => Modular::exact(v),
        None => Modular::EVERYTHING,
    }
}

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

    /// The canonical, range-aware simplification of `e`. Constant folding is
    /// checked: overflow and constant division by zero are errors.
    ///
    /// ```
    /// let e = arith::parse("x + 2 + 3 + 4 + x").unwrap();
    /// assert_eq!(arith::Analyzer::new().simplify(&e).unwrap().to_string(), "x * 2 + 9");
    /// ```
    pub fn simplify(&self, e: &Expr) -> Result<Expr> {
        if let Some(done) = self.simplify_trivial(e) {
            return Ok(done);
        }
        if let Some(best) = self.plain_linear_form(e) {
            return Ok(self.keep_where_defined(e, best));
        }
        self.simplify_full(e)
    }

    /// [`Analyzer::simplify`] without its shortcuts.
    fn simplify_full(&self, e: &Expr) -> Result<Expr> {
        let mut s = Simplifier::new(self);
        let (best, _) = s.visit(e)?;
        Ok(self.keep_where_defined(e, best))
    }

    /// The canonical linear form of a small sum of variables times
    /// constants (`x + x.outer * 64 + 1 - x.outer * 64` is `x + 1`), when no
    /// variable's range is a single point: no simplifier rule applies to
    /// such a sum beyond collecting it, so it is collected directly.
    /// `None` for anything else (checked against the simplifier by
    /// `trivial_forms_agree_with_the_simplifier`).
    fn plain_linear_form(&self, e: &Expr) -> Option<Expr> {
        if e.node_count() > 32 {
            return None;
        }
        let mut plain = true;
        let mut stack: SmallVec<[&Expr; 16]> = smallvec::smallvec![e];
        while let Some(n) = stack.pop() {
            match n.kind() {
                ExprKind::Int(_) => {}
                ExprKind::Var(v) => plain &= self.var_info(v).bound.as_point().is_none(),
                ExprKind::Add(a, b) | ExprKind::Sub(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                ExprKind::Mul(a, b) if b.as_int().is_some() => stack.push(a),
                ExprKind::Mul(a, b) if a.as_int().is_some() => stack.push(b),
                _ => return None,
            }
            if !plain {
                return None;
            }
        }
        let sum = Sum::of(e).ok()?;
        match sum.as_const() {
            Some(c) => Some(Expr::int(c)),
            None => Some(sum.rebuild()),
        }
    }

    /// `best`, a rewrite of `e`, if it keeps the contract: "never larger",
    /// and defined wherever `e` is.
    fn keep_where_defined(&self, e: &Expr, best: Expr) -> Expr {
        // The contract is "never larger": canonical forms that come out
        // bigger than what was written give way to the input itself. A
        // result is also only kept when it is defined wherever the input
        // is: a result whose intermediate values may leave `i64` on the
        // ranges (reordered sums near the ends of the range) gives way to
        // the input when the input provably stays inside, and otherwise to
        // the input with only its overflow-free parts simplified.
        if best.node_count() > e.node_count() {
            return e.clone();
        }
        if best.ptr_eq(e) || !self.may_overflow(&best) {
            return best;
        }
        if self.may_overflow(e) {
            self.simplify_where_defined(e)
        } else {
            e.clone()
        }
    }

    /// What [`Analyzer::simplify`] returns for the smallest inputs, which
    /// analyses hand it by the thousand (loop bounds, index offsets), found
    /// without starting the simplifier: a leaf, and the canonical forms of
    /// one variable with a constant (`x * 64`, `x * 64 + 63`, `x - 1`) over
    /// a variable whose range is not a single point, which no rule rewrites,
    /// and sums and products of a few constants.
    /// `None` means "run the simplifier". Checked against the simplifier by
    /// the property test `trivial_forms_agree_with_the_simplifier`.
    pub(crate) fn simplify_trivial(&self, e: &Expr) -> Option<Expr> {
        let plain_var = |x: &Expr| {
            x.as_var()
                .is_some_and(|v| self.var_info(v).bound.as_point().is_none())
        };
        // `x` or `x * c` with `c >= 2`: a term as the canonical sum writes it.
        let term = |x: &Expr| {
            plain_var(x)
                || matches!(x.kind(), ExprKind::Mul(a, c)
                    if plain_var(a) && c.as_int().is_some_and(|c| c >= 2))
        };
        // Sums and products of a few constants fold (`0 + 64 - 1`); an
        // overflow is left to the simplifier, which reports it.
        fn constant(e: &Expr) -> Option<i64> {
            let (a, b) = match e.kind() {
                ExprKind::Int(v) => return Some(*v),
                ExprKind::Add(a, b) | ExprKind::Sub(a, b) | ExprKind::Mul(a, b) => (a, b),
                _ => return None,
            };
            let (a, b) = (constant(a)?, constant(b)?);
            match e.kind() {
                ExprKind::Add(..) => a.checked_add(b),
                ExprKind::Sub(..) => a.checked_sub(b),
                _ => a.checked_mul(b),
            }
        }
        if e.node_count() <= 7 {
            if let Some(v) = constant(e) {
                return Some(Expr::int(v));
            }
        }
        match e.kind() {
            ExprKind::Int(_) | ExprKind::Bool(_) => Some(e.clone()),
            ExprKind::Var(_) | ExprKind::Mul(..) => term(e).then(|| e.clone()),
            ExprKind::Add(..) | ExprKind::Sub(..) => {
                // `t + k1 - k2 ...`: a term, then constants added or
                // subtracted, is `t + k` (`t - k` for `k < 0`, `t` for 0).
                let mut k: i64 = 0;
                let mut at = e;
                for _ in 0..8 {
                    let (l, v) = match at.kind() {
                        ExprKind::Add(l, r) => (l, r.as_int()?),
                        ExprKind::Sub(l, r) => (l, r.as_int()?.checked_neg()?),
                        _ => break,
                    };
                    k = k.checked_add(v)?;
                    at = l;
                }
                if !term(at) {
                    return None;
                }
                Some(match k {
                    0 => at.clone(),
                    _ if ptr_is_canonical(e, at, k) => e.clone(),
                    k if k > 0 => Expr::add(at.clone(), Expr::int(k)),
                    k => Expr::sub(at.clone(), Expr::int(k.checked_neg()?)),
                })
            }
            _ => None,
        }
    }

    /// Constant bounds of `e` from one structural walk (interval
    /// arithmetic over the variables' ranges): sound, never tighter than
    /// [`Analyzer::const_int_bound`], and enough where it already decides a
    /// question (`lo >= 0`), at a fraction of the cost.
    ///
    /// ```
    /// use arith::{Analyzer, ConstBound, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x - x").unwrap();
    /// let mut an = Analyzer::new();
    /// an.bind(scope.get("x").unwrap(), Range::half_open(Expr::int(0), Expr::int(4)));
    /// assert_eq!(an.structural_bound(&e), ConstBound::new(-3, 3));
    /// assert_eq!(an.const_int_bound(&e), ConstBound::point(0));
    /// ```
    pub fn structural_bound(&self, e: &Expr) -> ConstBound {
        self.structural_info(e).bound
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
    fn proved_by_bounds(&self, cond: &Expr) -> bool {
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

    /// Whether the structural facts of `e` are as good as rewriting can
    /// make them: a small tree in which every variable occurs once and has
    /// a constant range, and which has no `select` (whose condition a
    /// rewrite could use) and no modulo.
    fn structurally_exact(&self, e: &Expr) -> bool {
        if e.node_count() > 256 {
            return false;
        }
        let mut seen: smallvec::SmallVec<[&crate::expr::Var; 8]> = smallvec::SmallVec::new();
        let mut stack: smallvec::SmallVec<[&Expr; 16]> = smallvec::smallvec![e];
        while let Some(n) = stack.pop() {
            match n.kind() {
                ExprKind::Var(v) => {
                    // A symbolic range could tighten the bound by rewriting.
                    let exact = self
                        .vars
                        .get(v)
                        .is_some_and(|f| f.symbolic.is_none() && f.info.bound.is_finite());
                    if !exact || seen.contains(&v) {
                        return false;
                    }
                    seen.push(v);
                }
                // A modulo over a range that wraps is not monotone: its
                // interval is only a cover (the values of `(n*64 + 61) % 256`
                // for `n` in `[-2, -1]` are 189 and 253, not `[61, 253]`).
                ExprKind::Select(..) | ExprKind::FloorMod(..) => return false,
                _ => stack.extend(n.children()),
            }
        }
        true
    }

    /// Bounds and alignment of `e` from its structure alone.
    pub(crate) fn structural_info(&self, e: &Expr) -> Info {
        // Small trees recurse (their depth is at most their size); large
        // ones, such as long parsed sums, are walked on an explicit stack.
        if e.node_count() <= crate::stack::RECURSION_NODES {
            self.structural_info_small(e)
        } else {
            crate::walk::fold(e, &mut HashMap::new(), |n, kids| self.node_info(n, kids))
        }
    }

    fn structural_info_small(&self, e: &Expr) -> Info {
        use ExprKind::*;
        match e.kind() {
            // Leaves are most calls: answered here, without `node_info`.
            Int(v) => Info::exact(*v),
            Bool(v) => Info::exact(*v as i64),
            Var(v) => self.var_info(v),
            Not(_) | Cmp(..) | And(..) | Or(..) => Info::BOOL,
            Select(_, a, b) => {
                let kids = [
                    Info::BOOL,
                    self.structural_info_small(a),
                    self.structural_info_small(b),
                ];
                self.node_info(e, &kids)
            }
            Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | FloorDiv(a, b)
            | FloorMod(a, b)
            | CeilDiv(a, b)
            | Min(a, b)
            | Max(a, b) => {
                let kids = [self.structural_info_small(a), self.structural_info_small(b)];
                self.node_info(e, &kids)
            }
        }
    }

    /// Bounds and alignment of one node from those of its children.
    pub(crate) fn node_info(&self, e: &Expr, kids: &[Info]) -> Info {
        use ExprKind::*;
        let bin = || (kids[0], kids[1]);
        match e.kind() {
            Int(v) => Info::exact(*v),
            Bool(v) => Info::exact(*v as i64),
            Var(v) => self.var_info(v),
            Add(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.add(y.bound),
                    modular: x.modular.add(y.modular),
                }
            }
            Sub(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.sub(y.bound),
                    modular: x.modular.sub(y.modular),
                }
            }
            Mul(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.mul(y.bound),
                    modular: x.modular.mul(y.modular),
                }
            }
            FloorDiv(..) => {
                let (x, y) = bin();
                let modular = match y.modular.as_exact() {
                    Some(c) => x.modular.floor_div_const(c),
                    None => Modular::EVERYTHING,
                };
                Info {
                    bound: x.bound.floor_div(y.bound),
                    modular,
                }
            }
            FloorMod(..) => {
                let (x, y) = bin();
                match y.modular.as_exact() {
                    Some(c) => Info {
                        bound: x.bound.floor_mod_aligned(x.modular, c),
                        modular: x.modular.floor_mod_const(c),
                    },
                    None => Info {
                        bound: x.bound.floor_mod(y.bound),
                        modular: Modular::EVERYTHING,
                    },
                }
            }
            CeilDiv(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.ceil_div(y.bound),
                    modular: Modular::EVERYTHING,
                }
            }
            Min(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.min_with(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Max(..) => {
                let (x, y) = bin();
                Info {
                    bound: x.bound.max_with(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Select(..) => {
                let (x, y) = (kids[1], kids[2]);
                Info {
                    bound: x.bound.union(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Cmp(..) | And(..) | Or(..) | Not(..) => Info::BOOL,
        }
    }

    /// Whether `e` provably evaluates without overflow for every value of
    /// its variables inside their ranges: every intermediate value of every
    /// node stays inside `i64`. Variables without a finite range make this
    /// `false`. For such expressions [`Analyzer::simplify`] guarantees its
    /// result is overflow-free too; for others, the result agrees with the
    /// input wherever both are defined.
    ///
    /// ```
    /// use arith::{Analyzer, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x % 4 * 3 + x").unwrap();
    /// let mut an = Analyzer::new();
    /// let x = scope.get("x").unwrap();
    /// an.bind(x, Range::half_open(Expr::int(0), Expr::int(1 << 40)));
    /// assert!(an.is_overflow_free(&e));
    /// let mut wide = Analyzer::new();
    /// wide.bind(x, Range::half_open(Expr::int(0), Expr::int(i64::MAX)));
    /// assert!(!wide.is_overflow_free(&e));
    /// ```
    pub fn is_overflow_free(&self, e: &Expr) -> bool {
        let mut finite = true;
        crate::walk::any_node(e, |n| {
            if let Some(v) = n.as_var() {
                finite &= self.var_bound(v).is_finite();
            }
            false
        });
        finite && !self.may_overflow(e)
    }

    /// How many bits bound the magnitude of every node of `e` (each node's
    /// values lie strictly inside `±2^bits`), from the leaves' magnitudes
    /// alone: a sum needs one bit more than its larger operand, a product
    /// the bits of both, and division, modulo, `min`, `max` and `select`
    /// no more than their operands (one more for a division's rounding).
    /// `None` when some node may need more than 62 bits or a variable is
    /// unbounded: then only the interval walk of
    /// [`Analyzer::may_overflow`] can tell.
    fn magnitude_bits(&self, e: &Expr) -> Option<u32> {
        use ExprKind::*;
        const LIMIT: u32 = 62;
        let bits_of = |m: u128| 128 - m.leading_zeros();
        let bits = match e.kind() {
            Int(v) => bits_of(v.unsigned_abs() as u128),
            Bool(_) => 1,
            Var(v) => {
                let (lo, hi) = self.overflow_var_interval(v)?;
                bits_of(lo.unsigned_abs().max(hi.unsigned_abs()))
            }
            Not(a) => self.magnitude_bits(a).map(|_| 1)?,
            Cmp(_, a, b) | And(a, b) | Or(a, b) => {
                self.magnitude_bits(a)?;
                self.magnitude_bits(b)?;
                1
            }
            Add(a, b) | Sub(a, b) => self.magnitude_bits(a)?.max(self.magnitude_bits(b)?) + 1,
            Mul(a, b) => self.magnitude_bits(a)? + self.magnitude_bits(b)?,
            FloorDiv(a, b) | FloorMod(a, b) | CeilDiv(a, b) => {
                self.magnitude_bits(a)?.max(self.magnitude_bits(b)?) + 1
            }
            Min(a, b) | Max(a, b) => self.magnitude_bits(a)?.max(self.magnitude_bits(b)?),
            Select(c, a, b) => {
                self.magnitude_bits(c)?;
                self.magnitude_bits(a)?.max(self.magnitude_bits(b)?)
            }
        };
        (bits <= LIMIT).then_some(bits)
    }

    /// The values a variable takes as [`Analyzer::may_overflow`] judges
    /// them: its declared range, else its finite bounds.
    fn overflow_var_interval(&self, v: &Var) -> Option<(i128, i128)> {
        match self.vars.get(v).and_then(|f| f.declared) {
            Some((lo, hi)) => Some((lo as i128, hi as i128)),
            None => {
                let b = self.var_bound(v);
                b.is_finite().then_some((b.min as i128, b.max as i128))
            }
        }
    }

    /// Whether some node of `e` may leave the `i64` range for variable
    /// values inside their (finite) ranges. Nodes over unbounded variables
    /// are not judged. Each distinct node is visited once, without
    /// recursion. A rewrite of an expression for which this is `false` must
    /// keep it `false`, or it may fail where the input has a value.
    ///
    /// ```
    /// use arith::{Analyzer, Expr, Range};
    /// let (e, scope) = arith::parse_with_scope("x * 4611686018427387904").unwrap();
    /// let x = scope.get("x").unwrap();
    /// let mut an = Analyzer::new();
    /// an.bind(x, Range::half_open(Expr::int(-1), Expr::int(2)));
    /// assert!(!an.may_overflow(&e));
    /// let mut wide = Analyzer::new();
    /// wide.bind(x, Range::half_open(Expr::int(0), Expr::int(4)));
    /// assert!(wide.may_overflow(&e));
    /// assert!(!Analyzer::new().may_overflow(&e)); // unbounded: not judged
    /// ```
    pub fn may_overflow(&self, e: &Expr) -> bool {
        // Most trees are decided by their leaves' magnitudes alone (index
        // arithmetic over 32-bit ranges stays far below 2^63); the interval
        // walk is for the rest.
        if e.node_count() <= crate::stack::RECURSION_NODES && self.magnitude_bits(e).is_some() {
            return false;
        }
        self.may_overflow_by_intervals(e)
    }

    /// [`Analyzer::may_overflow`] by interval arithmetic on every node.
    fn may_overflow_by_intervals(&self, e: &Expr) -> bool {
        let mut overflow = false;
        let node =
            |n: &Expr, kids: &[W], overflow: &mut bool| self.overflow_interval(n, kids, overflow);
        // Small trees recurse (depth at most their size); large ones are
        // walked on an explicit stack with a memo by node identity. The
        // recursion matches on the node itself rather than collecting
        // `children()`: it runs at the end of every simplification, and the
        // collected vector costs about 6% of the corpus benchmark.
        if e.node_count() <= crate::stack::RECURSION_NODES {
            fn rec(e: &Expr, f: &dyn Fn(&Expr, &[W], &mut bool) -> W, o: &mut bool) -> W {
                use ExprKind::*;
                match e.kind() {
                    Int(_) | Bool(_) | Var(_) => f(e, &[], o),
                    Not(a) => {
                        let x = rec(a, f, o);
                        f(e, &[x], o)
                    }
                    Select(c, a, b) => {
                        let (x, y, z) = (rec(c, f, o), rec(a, f, o), rec(b, f, o));
                        f(e, &[x, y, z], o)
                    }
                    Add(a, b)
                    | Sub(a, b)
                    | Mul(a, b)
                    | FloorDiv(a, b)
                    | FloorMod(a, b)
                    | CeilDiv(a, b)
                    | Min(a, b)
                    | Max(a, b)
                    | Cmp(_, a, b)
                    | And(a, b)
                    | Or(a, b) => {
                        let (x, y) = (rec(a, f, o), rec(b, f, o));
                        f(e, &[x, y], o)
                    }
                }
            }
            rec(e, &node, &mut overflow);
        } else {
            crate::walk::fold(e, &mut HashMap::new(), |n, kids: &[W]| {
                node(n, kids, &mut overflow)
            });
        }
        overflow
    }

    /// The interval of `n`'s values (in `i128`, clamped to `i64`) from those
    /// of its children, setting `overflow` when some value may leave `i64`.
    /// `None` for nodes over unbounded variables.
    fn overflow_interval(&self, n: &Expr, kids: &[W], overflow: &mut bool) -> W {
        let range = |x: i128, y: i128, overflow: &mut bool| -> W {
            let (lo, hi) = (i64::MIN as i128, i64::MAX as i128);
            if x < lo || y > hi {
                *overflow = true;
            }
            Some((x.clamp(lo, hi), y.clamp(lo, hi)))
        };
        use ExprKind::*;
        match n.kind() {
            Int(v) => Some((*v as i128, *v as i128)),
            Bool(_) | Cmp(..) | And(..) | Or(..) | Not(..) => Some((0, 1)),
            Var(v) => self.overflow_var_interval(v),
            Add(..) => {
                let ((a0, a1), (b0, b1)) = (kids[0]?, kids[1]?);
                range(a0 + b0, a1 + b1, overflow)
            }
            Sub(..) => {
                let ((a0, a1), (b0, b1)) = (kids[0]?, kids[1]?);
                range(a0 - b1, a1 - b0, overflow)
            }
            Mul(..) => {
                let ((a0, a1), (b0, b1)) = (kids[0]?, kids[1]?);
                let c = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
                range(*c.iter().min()?, *c.iter().max()?, overflow)
            }
            FloorDiv(..) | FloorMod(..) | CeilDiv(..) => {
                let (a, b) = (kids[0]?, kids[1]?);
                // Only i64::MIN // -1 leaves the range.
                if a.0 == i64::MIN as i128 && b.0 <= -1 && -1 <= b.1 {
                    *overflow = true;
                }
                let ((a0, a1), (b0, b1)) = (a, b);
                if let FloorMod(..) = n.kind() {
                    return Some(if b0 > 0 {
                        (0, b1 - 1)
                    } else if b1 < 0 {
                        (b0 + 1, 0)
                    } else {
                        let m = (-b0).max(b1);
                        (1 - m, m - 1)
                    });
                }
                // On each sign part of the divisor the quotient is
                // monotone, so the corners bound it.
                let div = |x: i128, y: i128| {
                    let q = x / y;
                    let inexact = x % y != 0;
                    match n.kind() {
                        FloorDiv(..) if inexact && ((x < 0) != (y < 0)) => q - 1,
                        CeilDiv(..) if inexact && ((x < 0) == (y < 0)) => q + 1,
                        _ => q,
                    }
                };
                let mut out: Option<(i128, i128)> = None;
                for (p0, p1) in [(b0.max(1), b1), (b0, b1.min(-1))] {
                    if p0 > p1 {
                        continue;
                    }
                    for q in [div(a0, p0), div(a0, p1), div(a1, p0), div(a1, p1)] {
                        out = Some(out.map_or((q, q), |(l, h)| (l.min(q), h.max(q))));
                    }
                }
                let (l, h) = out?;
                range(l, h, overflow)
            }
            Min(..) => {
                let ((a0, a1), (b0, b1)) = (kids[0]?, kids[1]?);
                Some((a0.min(b0), a1.min(b1)))
            }
            Max(..) => {
                let ((a0, a1), (b0, b1)) = (kids[0]?, kids[1]?);
                Some((a0.max(b0), a1.max(b1)))
            }
            Select(..) => {
                let ((a0, a1), (b0, b1)) = (kids[1]?, kids[2]?);
                Some((a0.min(b0), a1.max(b1)))
            }
        }
    }

    /// The simplification of an input that may overflow somewhere: the
    /// nodes that may overflow are kept as written, and every largest
    /// subtree that provably stays inside `i64` is simplified on its own.
    /// The result is then defined wherever the input is (the kept nodes
    /// apply the same operations to equal values) and never larger. One
    /// walk, each distinct node once.
    fn simplify_where_defined(&self, e: &Expr) -> Expr {
        // (values, subtree may overflow, the subtree rebuilt)
        type Part = (W, bool, Expr);
        let part = |n: &Expr, kids: &[Part]| -> Part {
            let ws: SmallVec<[W; 3]> = kids.iter().map(|k| k.0).collect();
            let mut overflow = kids.iter().any(|k| k.1);
            let w = self.overflow_interval(n, &ws, &mut overflow);
            if !overflow {
                return (w, false, n.clone());
            }
            let rebuilt: SmallVec<[Expr; 3]> = kids
                .iter()
                .zip(n.children())
                .map(|(k, c)| match k.1 {
                    true => k.2.clone(),
                    false => self.simplify(c).unwrap_or_else(|_| c.clone()),
                })
                .collect();
            (w, true, n.with_children(&rebuilt))
        };
        let (_, overflow, rebuilt) = crate::walk::fold(e, &mut HashMap::new(), part);
        if overflow {
            rebuilt
        } else {
            e.clone()
        }
    }

    /// Constant bounds of a simplified expression, using symbolic variable
    /// ranges: `i - n` with `i` in `[0, n)` is at most `-1`.
    pub(crate) fn symbolic_bound(&self, e: &Expr, s: &mut Simplifier) -> ConstBound {
        // The simplifier's facts share what earlier questions found about
        // the subtrees (a chain asks about itself at every level).
        let b = s.info(e).bound;
        if !self.has_symbolic(e) {
            return b;
        }
        let hi = self.linear_extreme(e, true, s, 0).unwrap_or(b.max);
        let lo = self.linear_extreme(e, false, s, 0).unwrap_or(b.min);
        b.intersect(ConstBound::new(lo, hi))
    }

    /// Whether any variable has a range with non-constant ends.
    pub(crate) fn has_symbolic_ranges(&self) -> bool {
        self.symbolic_count > 0
    }

    fn has_symbolic(&self, e: &Expr) -> bool {
        if self.symbolic_count == 0 {
            return false;
        }
        crate::walk::any_node(e, |n| {
            n.as_var()
                .is_some_and(|v| self.vars.get(v).is_some_and(|f| f.symbolic.is_some()))
        })
    }

    /// The largest (or smallest) value of a linear expression after
    /// replacing variables with symbolic ranges by their extreme ends.
    fn linear_extreme(&self, e: &Expr, upper: bool, s: &mut Simplifier, depth: u32) -> Option<i64> {
        let sum = Sum::of(e).ok()?;
        let mut out = Sum::constant(sum.konst);
        let mut replaced = false;
        for t in &sum.terms {
            let sym = t
                .atom
                .as_var()
                .and_then(|v| self.vars.get(v))
                .and_then(|f| f.symbolic.as_ref());
            match sym {
                Some((lo, hi)) if depth < 4 => {
                    let end = if (t.coeff > 0) == upper { hi } else { lo };
                    out.add_expr(end, t.coeff).ok()?;
                    replaced = true;
                }
                _ => out.add_atom(&t.atom, t.coeff).ok()?,
            }
        }
        let b = if replaced {
            let (ne, _) = s.finish_sum(out).ok()?;
            if ne.as_int().is_some() {
                return ne.as_int();
            }
            return self.linear_extreme(&ne, upper, s, depth + 1).or_else(|| {
                let nb = s.info(&ne).bound;
                Some(if upper { nb.max } else { nb.min })
            });
        } else {
            s.info(e).bound
        };
        let v = if upper { b.max } else { b.min };
        Some(v)
    }
}

/// Whether `e` already is `t + k` (or `t - |k|`) over the term `t`, so
/// that it can be returned as it is.
fn ptr_is_canonical(e: &Expr, t: &Expr, k: i64) -> bool {
    match e.kind() {
        ExprKind::Add(l, r) => k > 0 && l.ptr_eq(t) && r.as_int() == Some(k),
        ExprKind::Sub(l, r) => k < 0 && l.ptr_eq(t) && r.as_int().map(|v| -v) == Some(k),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The variables of [`small_expr`].
    fn xy() -> &'static (Var, Var) {
        static XY: std::sync::OnceLock<(Var, Var)> = std::sync::OnceLock::new();
        XY.get_or_init(|| (Var::new("x"), Var::new("y")))
    }

    /// A small expression over `x` and `y`, often of a trivial form.
    fn small_expr() -> impl Strategy<Value = Expr> {
        let (x, y) = xy().clone();
        let leaf = prop_oneof![
            (-3i64..70).prop_map(Expr::int),
            Just(x.expr()),
            Just(y.expr()),
            any::<bool>().prop_map(Expr::bool),
        ];
        let deep = leaf.clone().prop_recursive(3, 8, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::add(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::sub(a, b)),
                (inner.clone(), inner).prop_map(|(a, b)| Expr::mul(a, b)),
            ]
        });
        // The shapes the shortcut looks for, with constants on both sides
        // of its conditions.
        let term = prop_oneof![
            leaf.clone(),
            (leaf.clone(), -2i64..70).prop_map(|(a, c)| Expr::mul(a, Expr::int(c))),
        ];
        let near = prop_oneof![
            term.clone(),
            (term.clone(), -3i64..70).prop_map(|(t, k)| Expr::add(t, Expr::int(k))),
            (term, -3i64..70).prop_map(|(t, k)| Expr::sub(t, Expr::int(k))),
        ];
        // Chains of constants after a term (`x * 64 + 66 - 1`).
        let chain = (near.clone(), -3i64..70, any::<bool>()).prop_map(|(t, k, add)| {
            if add {
                Expr::add(t, Expr::int(k))
            } else {
                Expr::sub(t, Expr::int(k))
            }
        });
        prop_oneof![deep, near, chain]
    }

    /// How often the property test met a trivial form (it must, to test
    /// anything).
    static TRIVIAL_HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static LINEAR_HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    #[test]
    fn the_property_test_meets_trivial_forms() {
        trivial_forms_agree_with_the_simplifier();
        assert!(TRIVIAL_HITS.load(std::sync::atomic::Ordering::Relaxed) > 500);
        assert!(LINEAR_HITS.load(std::sync::atomic::Ordering::Relaxed) > 500);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// Where the shortcut answers, the simplifier gives the same
        /// expression.
        #[test]
        fn trivial_forms_agree_with_the_simplifier(
            e in small_expr(),
            xr in (-5i64..5, 1i64..4),
            yr in prop::option::of((-5i64..5, 1i64..4)),
        ) {
            let (x, y) = xy();
            let mut an = Analyzer::new();
            an.bind(x, Range::new(Expr::int(xr.0), Expr::int(xr.1)));
            if let Some((m, n)) = yr {
                an.bind(y, Range::new(Expr::int(m), Expr::int(n)));
            }
            if let Some(fast) = an.simplify_trivial(&e) {
                TRIVIAL_HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                prop_assert_eq!(Ok(fast), an.simplify_full(&e), "{}", e);
            }
            if let Some(fast) = an.plain_linear_form(&e) {
                LINEAR_HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let fast = an.keep_where_defined(&e, fast);
                prop_assert_eq!(Ok(fast), an.simplify_full(&e), "{}", e);
            }
        }
    }

    /// A leaf of any magnitude: constants and variables whose ranges
    /// reach from a few values to most of `i64`.
    fn wide_expr() -> impl Strategy<Value = Expr> {
        let (x, y) = xy().clone();
        let leaf = prop_oneof![
            (0u32..63, any::<bool>()).prop_map(|(b, neg)| {
                let v = (1i64 << b) - 1;
                Expr::int(if neg { -v } else { v })
            }),
            Just(x.expr()),
            Just(y.expr()),
            any::<bool>().prop_map(Expr::bool),
        ];
        leaf.prop_recursive(4, 16, 3, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::add(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::sub(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::mul(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::floor_div(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::floor_mod(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::ceil_div(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::max(a, b)),
                (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Expr::select(
                    Expr::lt(c, a.clone()),
                    a,
                    b
                )),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// Whenever the leaves' magnitudes clear a tree, the interval walk
        /// finds no node that may overflow either.
        #[test]
        fn magnitude_bits_never_clear_an_overflow(
            e in wide_expr(),
            xb in 0u32..63,
            yb in 0u32..63,
        ) {
            let (x, y) = xy();
            let mut an = Analyzer::new();
            an.bind(x, Range::new(Expr::int(-(1i64 << xb)), Expr::int((1i64 << xb) - 1)));
            an.bind(y, Range::new(Expr::int(0), Expr::int((1i64 << yb) - 1)));
            if an.magnitude_bits(&e).is_some() {
                prop_assert!(!an.may_overflow_by_intervals(&e), "{}", e);
            }
        }
    }

    #[test]
    fn trivial_forms_are_recognised() {
        let x = Var::new("x");
        let mut an = Analyzer::new();
        an.bind(&x, Range::new(Expr::int(0), Expr::int(17)));
        for e in [
            Expr::mul(x.expr(), Expr::int(64)),
            Expr::add(Expr::mul(x.expr(), Expr::int(64)), Expr::int(63)),
            Expr::sub(x.expr(), Expr::int(1)),
        ] {
            assert_eq!(an.simplify_trivial(&e), Some(e));
        }
        let x64 = Expr::mul(x.expr(), Expr::int(64));
        let cases = [
            (
                Expr::add(x.expr(), Expr::int(-1)),
                Expr::sub(x.expr(), Expr::int(1)),
            ),
            (
                Expr::sub(Expr::add(x64.clone(), Expr::int(66)), Expr::int(1)),
                Expr::add(x64.clone(), Expr::int(65)),
            ),
            (
                Expr::sub(Expr::add(x64.clone(), Expr::int(1)), Expr::int(1)),
                x64,
            ),
            (
                Expr::sub(Expr::add(Expr::int(0), Expr::int(64)), Expr::int(1)),
                Expr::int(63),
            ),
        ];
        for (e, want) in cases {
            assert_eq!(an.simplify_trivial(&e), Some(want), "{e}");
        }
        for e in [
            Expr::mul(Expr::int(64), x.expr()),
            Expr::add(Expr::int(0), x.expr()),
            Expr::add(x.expr(), x.expr()),
        ] {
            assert_eq!(an.simplify_trivial(&e), None, "{e}");
        }
    }
}
