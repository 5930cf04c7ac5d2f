//! The [`Analyzer`]: variable ranges plus every analysis that uses them.

use crate::bound::ConstBound;
use crate::error::Result;
use crate::expr::{Expr, ExprKind, Var};
use crate::modular::Modular;
use crate::range::Range;
use crate::simplify::sum::Sum;
use crate::simplify::{Info, Simplifier};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes variable ids, which are already unique integers.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

#[derive(Clone, Debug)]
struct VarFact {
    /// Inclusive symbolic bounds `[lo, hi]`, when they are not constants.
    symbolic: Option<(Expr, Expr)>,
    info: Info,
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
    vars: HashMap<Var, VarFact, BuildHasherDefault<IdHasher>>,
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
    /// new range narrows them.
    pub fn bind(&mut self, var: &Var, range: Range) {
        let lo = self.simplify(&range.min).unwrap_or(range.min.clone());
        let hi_raw = Expr::sub(
            Expr::add(range.min.clone(), range.extent.clone()),
            Expr::int(1),
        );
        let hi = self.simplify(&hi_raw).unwrap_or(hi_raw);
        let lb = self.const_int_bound(&lo);
        let hb = self.const_int_bound(&hi);
        let bound = ConstBound::new(lb.min, hb.max);
        let symbolic = if lo.as_int().is_some() && hi.as_int().is_some() {
            None
        } else {
            Some((lo, hi))
        };
        let old = self
            .vars
            .get(var)
            .map(|f| f.info.bound)
            .unwrap_or(ConstBound::EVERYTHING);
        let modular = match bound.as_point() {
            Some(v) => Modular::exact(v),
            None => Modular::EVERYTHING,
        };
        let fact = VarFact {
            symbolic,
            info: Info {
                bound: old.intersect(bound),
                modular,
            },
        };
        if let Some(prev) = self.vars.insert(var.clone(), fact) {
            self.symbolic_count -= usize::from(prev.symbolic.is_some());
        }
        self.symbolic_count += usize::from(self.vars[var].symbolic.is_some());
    }

    /// Narrows the constant bounds of `var` to `bound` (inclusive).
    pub fn update_bound(&mut self, var: &Var, bound: ConstBound) {
        let fact = self.vars.entry(var.clone()).or_insert(VarFact {
            symbolic: None,
            info: Info::ANY,
        });
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
        let mut s = Simplifier::new(self);
        let (best, _) = s.visit(e)?;
        // The contract is "never larger": canonical forms that come out
        // bigger than what was written give way to the input itself.
        Ok(if best.node_count() <= e.node_count() {
            best
        } else {
            e.clone()
        })
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

    /// Whether the condition holds for every value of its variables inside
    /// their ranges. `false` means "could not prove", not "false".
    pub fn can_prove(&self, cond: &Expr) -> bool {
        matches!(self.simplify(cond), Ok(e) if e.as_bool() == Some(true))
    }

    /// Bounds and alignment of `e` from its structure alone.
    pub(crate) fn structural_info(&self, e: &Expr) -> Info {
        use ExprKind::*;
        let bin = |a: &Expr, b: &Expr| (self.structural_info(a), self.structural_info(b));
        match e.kind() {
            Int(v) => Info::exact(*v),
            Bool(v) => Info::exact(*v as i64),
            Var(v) => self.var_info(v),
            Add(a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.add(y.bound),
                    modular: x.modular.add(y.modular),
                }
            }
            Sub(a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.sub(y.bound),
                    modular: x.modular.sub(y.modular),
                }
            }
            Mul(a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.mul(y.bound),
                    modular: x.modular.mul(y.modular),
                }
            }
            FloorDiv(a, b) => {
                let (x, y) = bin(a, b);
                let modular = match y.modular.as_exact() {
                    Some(c) => x.modular.floor_div_const(c),
                    None => Modular::EVERYTHING,
                };
                Info {
                    bound: x.bound.floor_div(y.bound),
                    modular,
                }
            }
            FloorMod(a, b) => {
                let (x, y) = bin(a, b);
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
            CeilDiv(a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.ceil_div(y.bound),
                    modular: Modular::EVERYTHING,
                }
            }
            Min(a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.min_with(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Max(a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.max_with(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Select(_, a, b) => {
                let (x, y) = bin(a, b);
                Info {
                    bound: x.bound.union(y.bound),
                    modular: x.modular.union(y.modular),
                }
            }
            Cmp(..) | And(..) | Or(..) | Not(..) => Info::BOOL,
        }
    }

    /// Constant bounds of a simplified expression, using symbolic variable
    /// ranges: `i - n` with `i` in `[0, n)` is at most `-1`.
    pub(crate) fn symbolic_bound(&self, e: &Expr, s: &mut Simplifier) -> ConstBound {
        let b = self.structural_info(e).bound;
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
        let mut found = false;
        e.for_each_var(&mut |v| {
            found |= self.vars.get(v).is_some_and(|f| f.symbolic.is_some());
        });
        found
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
                let nb = self.structural_info(&ne).bound;
                Some(if upper { nb.max } else { nb.min })
            });
        } else {
            self.structural_info(e).bound
        };
        let v = if upper { b.max } else { b.min };
        Some(v)
    }
}
