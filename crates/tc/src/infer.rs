//! Range inference, as TC's `tc2halide.cc` does it (seed 004).
//!
//! Per statement, in program order:
//! 1. `where i in lb:ub` ranges are taken as given.
//! 2. Every access gives, per index, `lo <= index < hi`: `[0, size)` for an
//!    input, the inferred range for an output of an earlier statement.
//! 3. Constraints are reduced over the `where` ranges
//!    (`and_condition_over_domain`).
//! 4. Rounds: each unresolved variable that is the only unresolved one of
//!    some constraints gets the maximal interval satisfying all of them
//!    (`solve_for_inner_interval`, which intersects); after a round the
//!    newly resolved variables are eliminated from every constraint.
//! 5. A variable left unresolved is an error asking for a `where` clause.
//! 6. What remains of each constraint once all its variables are
//!    eliminated is a precondition on the sizes: proved, violated, or not
//!    known (a warning).
//!
//! Ranges are assumed non-empty while variables are eliminated, as TC
//! does; with concrete sizes an empty range is reported.

use crate::ast::*;
use crate::diag::{Diagnostic, Span};
use crate::index::{Converter, Name};
use crate::sema::{self, CheckedDef, CheckedStmt, Resolved, Role};
use arith::{Analyzer, ConstBound, Expr, Range, Var, POS_INF};
use std::collections::{HashMap, HashSet};

/// The inferred range `lower <= var < upper` of an index variable.
#[derive(Clone, Debug)]
pub struct VarRange {
    /// The variable's name.
    pub name: String,
    /// The variable (its identity within the statement).
    pub var: Var,
    /// The first value.
    pub lower: Expr,
    /// One past the last value.
    pub upper: Expr,
    /// Whether it indexes the left-hand side (else it is reduced over).
    pub on_lhs: bool,
    /// Whether a `where` clause gave it.
    pub from_where: bool,
    /// The bound each access (or the `where` clause) that bounds it puts on
    /// it, in the statement's order of accesses; those that decided the
    /// range say so.
    pub bounds: Vec<AccessBound>,
    /// The round of inference (from 1) in which it was decided; `None` for
    /// a range a `where` clause gave.
    pub round: Option<usize>,
}

/// The bound one access, or a `where` clause, puts on an index variable
/// when its range is decided: what the access alone allows, given the
/// ranges decided in earlier rounds.
///
/// In `A(i) = B(i) + C(i - 2)` over `float(N) B, float(N) C`, `B(i)`
/// allows `0 <= i < N` and `C(i - 2)` allows `2 <= i < N + 2`; the range
/// `2 <= i < N` takes its lower bound from `C(i - 2)` and its upper bound
/// from `B(i)`.
#[derive(Clone, Debug)]
pub struct AccessBound {
    /// The access as written (`B(i + k)`), or `where i in lb:ub`.
    pub access: String,
    /// Where it is in the source.
    pub span: Span,
    /// The least value it allows; `None` when it does not bound the
    /// variable from below.
    pub lower: Option<Expr>,
    /// One past the greatest value it allows; `None` when it does not bound
    /// the variable from above.
    pub upper: Option<Expr>,
    /// Whether the range's lower bound is this one's (provably equal).
    pub decides_lower: bool,
    /// Whether the range's upper bound is this one's (provably equal).
    pub decides_upper: bool,
}

impl AccessBound {
    /// Whether it decided either end of the range.
    pub fn decides(&self) -> bool {
        self.decides_lower || self.decides_upper
    }
}

impl VarRange {
    /// Per bound (in [`VarRange::bounds`] order), whether it decides the
    /// lower and the upper end once the sizes take the given values: its
    /// end equals the range's there. A bound whose ends do not evaluate
    /// under `sizes` keeps its symbolic answer ([`AccessBound::decides_lower`],
    /// which holds for every value of the sizes).
    ///
    /// ```
    /// let a = tc::analyze("def f(float(N) B) -> (A) { A(i) = B(2*i) + B(i + 5) }");
    /// let r = &a.defs[0].stmts[0].ranges[0];
    /// // `0 <= i < min((N + 1) // 2, N - 5)`: which read decides the upper
    /// // end depends on N.
    /// assert_eq!(r.upper.to_string(), "min((N + 1) // 2, N - 5)");
    /// let at = |n| r.deciding_under(&[("N".to_string(), n)].into());
    /// assert_eq!(at(8), [(true, false), (false, true)]);
    /// assert_eq!(at(20), [(true, true), (false, false)]);
    /// ```
    pub fn deciding_under(&self, sizes: &HashMap<String, i64>) -> Vec<(bool, bool)> {
        let value = |e: &Expr| e.eval(&|v: &Var| sizes.get(v.name()).copied()).ok();
        let (lo, hi) = (value(&self.lower), value(&self.upper));
        self.bounds
            .iter()
            .map(|b| {
                let end = |mine: &Option<Expr>, range: Option<i64>, symbolic: bool| match (
                    mine.as_ref().and_then(value),
                    range,
                ) {
                    (Some(a), Some(r)) => a == r,
                    _ => symbolic,
                };
                (
                    end(&b.lower, lo, b.decides_lower),
                    end(&b.upper, hi, b.decides_upper),
                )
            })
            .collect()
    }
}

/// The outcome of a precondition that inference could not discharge by
/// construction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// True for every value of the sizes.
    Proved,
    /// False for every value of the sizes.
    Violated,
    /// Depends on the sizes.
    Unknown,
}

/// What an access needs of the sizes to stay in bounds.
#[derive(Clone, Debug)]
pub struct Precondition {
    /// The access.
    pub span: Span,
    /// The access as written.
    pub access: String,
    /// The condition on the sizes (simplified).
    pub condition: Expr,
    /// Whether it is known to hold.
    pub status: Status,
}

/// The analysis of one statement.
#[derive(Clone, Debug)]
pub struct StmtAnalysis {
    /// The tensor written.
    pub tensor: String,
    /// The ranges of the index variables that could be inferred, in the
    /// statement's order (left-hand variables first).
    pub ranges: Vec<VarRange>,
    /// Conditions on the sizes for the accesses to stay in bounds.
    pub preconditions: Vec<Precondition>,
    /// Whether every variable got a range and no error was found.
    pub ok: bool,
}

/// The inferred shape of an output.
#[derive(Clone, Debug)]
pub struct OutputShape {
    /// The output's name.
    pub name: String,
    /// The first index of each dimension (TC's `mins`).
    pub lower: Vec<Expr>,
    /// The extent of each dimension: `upper - lower` (TC's `extents`).
    pub shape: Vec<Expr>,
}

/// The analysis of one definition.
#[derive(Clone, Debug)]
pub struct DefAnalysis {
    /// The definition's name.
    pub name: String,
    /// The size symbols, in order of declaration.
    pub sizes: Vec<(String, Var)>,
    /// The semantic information.
    pub checked: CheckedDef,
    /// One per statement.
    pub stmts: Vec<StmtAnalysis>,
    /// One per output, in declaration order, when it could be inferred.
    pub outputs: Vec<OutputShape>,
    /// Errors, warnings and notes in source order, except the warnings for
    /// preconditions that depend on the sizes (see [`DefAnalysis::all_diagnostics`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// The warning for a precondition that depends on the sizes.
pub fn precondition_warning(p: &Precondition) -> Diagnostic {
    if p.condition.as_bool() == Some(false) {
        // Only a read under a condition gets here with `False`: the
        // condition may keep it in bounds, but that was not proved.
        return Diagnostic::warning(
            p.span,
            format!(
                "`{}` may read out of bounds: over the inferred ranges it is out of bounds \
                 somewhere whatever the sizes, and its condition could not be proved to \
                 exclude those reads (they are not checked at run time)",
                p.access
            ),
        );
    }
    Diagnostic::warning(
        p.span,
        format!(
            "`{}` may read out of bounds: it needs `{}`, which the sizes do not guarantee (the \
             inferred ranges do not come from this access, and it is not checked at run time)",
            p.access, p.condition
        ),
    )
}

/// Sorts diagnostics by position, the most severe first at one position.
pub(crate) fn sort_diagnostics(d: &mut [Diagnostic]) {
    d.sort_by_key(|d| (d.span.start, std::cmp::Reverse(d.severity)));
}

impl DefAnalysis {
    /// Whether any error was found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == crate::Severity::Error)
    }

    /// Every diagnostic without concrete sizes: [`DefAnalysis::diagnostics`]
    /// and a warning per precondition that depends on the sizes.
    pub fn all_diagnostics(&self) -> Vec<Diagnostic> {
        let mut d = self.diagnostics.clone();
        for s in &self.stmts {
            for p in &s.preconditions {
                if p.status == Status::Unknown {
                    d.push(precondition_warning(p));
                }
            }
        }
        sort_diagnostics(&mut d);
        d
    }

    /// The size symbol called `name`.
    pub fn size(&self, name: &str) -> Option<&Var> {
        self.sizes.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// One conjunct `cond` of the in-bounds condition of an access.
#[derive(Clone)]
struct Constraint {
    cond: Expr,
    access: usize,
    arg: usize,
    /// Other accesses whose in-bounds condition has the same conjunct (kept
    /// once): the bound it imposes is theirs too.
    also: Vec<usize>,
}

impl Constraint {
    /// Whether access `a` imposes this conjunct.
    fn imposed_by(&self, a: usize) -> bool {
        self.access == a || self.also.contains(&a)
    }

    /// Records that `other` (the same condition) comes from its accesses too.
    fn merge(&mut self, other: &Constraint) {
        for a in std::iter::once(other.access).chain(other.also.iter().copied()) {
            if a != self.access && !self.also.contains(&a) {
                self.also.push(a);
            }
        }
    }
}

/// Checks and analyses one definition.
pub fn analyze_def(def: &Def) -> DefAnalysis {
    let checked = sema::check(def);
    let sizes: Vec<(String, Var)> = checked
        .size_order
        .iter()
        .map(|n| (n.clone(), Var::new(n.clone())))
        .collect();
    let mut an = Analyzer::new();
    // Sizes are positive: a tensor any access reads has at least one element.
    for (_, v) in &sizes {
        an.update_bound(v, ConstBound::new(1, POS_INF));
    }
    let mut diagnostics = checked.diagnostics.clone();
    // The inferred bounds of each output so far: (lower, upper) per dim.
    let mut bounds: HashMap<String, Vec<(Expr, Expr)>> = HashMap::new();
    let mut empty_ranges = HashMap::new();
    let mut stmts = Vec::new();
    for (s, cs) in def.stmts.iter().zip(&checked.stmts) {
        let mut cx = StmtInfer {
            def,
            checked: &checked,
            cs,
            sizes: &sizes,
            an: &mut an,
            bounds: &bounds,
            empty_ranges: &mut empty_ranges,
            diagnostics: Vec::new(),
        };
        let sa = cx.run(s);
        diagnostics.extend(cx.diagnostics);
        if sa.ok {
            let lhs: Vec<(Expr, Expr)> = sa
                .ranges
                .iter()
                .filter(|r| r.on_lhs)
                .map(|r| (r.lower.clone(), r.upper.clone()))
                .collect();
            if lhs.len() == s.indices.len() {
                // The last definition's bounds win, as in TC.
                bounds.insert(s.lhs.name.clone(), lhs);
            }
        }
        stmts.push(sa);
    }
    let outputs = def
        .outputs
        .iter()
        .filter_map(|o| {
            let b = bounds.get(&o.name.name)?;
            Some(OutputShape {
                name: o.name.name.clone(),
                lower: b.iter().map(|(l, _)| l.clone()).collect(),
                shape: b
                    .iter()
                    .map(|(l, u)| {
                        if l.is_int(0) {
                            u.clone()
                        } else {
                            simplify(&an, &Expr::sub(u.clone(), l.clone()))
                        }
                    })
                    .collect(),
            })
        })
        .collect::<Vec<OutputShape>>();
    for o in &outputs {
        if let Some(t) = checked.tensors.get(&o.name) {
            declared_shape(&an, o, t, &sizes, &mut diagnostics);
        }
    }
    sort_diagnostics(&mut diagnostics);
    DefAnalysis {
        name: def.name.name.clone(),
        sizes,
        checked,
        stmts,
        outputs,
        diagnostics,
    }
}

/// Checks an output's declared shape (`-> (float(M, N) C)`) against the
/// inferred one: a size symbol bound to an extent that provably differs is
/// an error, one that may differ a warning.
fn declared_shape(
    an: &Analyzer,
    o: &OutputShape,
    t: &sema::TensorInfo,
    sizes: &[(String, Var)],
    diagnostics: &mut Vec<Diagnostic>,
) {
    if t.dims.is_empty() {
        return;
    }
    if t.dims.len() != o.shape.len() {
        diagnostics.push(Diagnostic::error(
            t.span,
            format!(
                "`{}` is declared with {} dimensions but defined with {}",
                o.name,
                t.dims.len(),
                o.shape.len()
            ),
        ));
        return;
    }
    for (k, (d, extent)) in t.dims.iter().zip(&o.shape).enumerate() {
        let (declared, span, what) = match d {
            Dim::Const(v, span) => (Expr::int(*v), *span, v.to_string()),
            Dim::Size(s) => match sizes.iter().find(|(n, _)| *n == s.name) {
                Some((_, v)) => (v.expr(), s.span, format!("`{}`", s.name)),
                None => continue,
            },
        };
        let same = Expr::eq(declared.clone(), extent.clone());
        if an.can_prove(&same) {
            continue;
        }
        let msg = format!(
            "dimension {k} of output `{}` is declared as {what} but its statements give it the \
             extent `{extent}`",
            o.name
        );
        diagnostics.push(if an.can_prove(&Expr::not(same)) {
            Diagnostic::error(span, format!("size bound inconsistently: {msg}"))
        } else {
            Diagnostic::warning(span, format!("{msg}; the sizes must make them equal"))
        });
    }
}

fn simplify(an: &Analyzer, e: &Expr) -> Expr {
    an.simplify(e).unwrap_or_else(|_| e.clone())
}

struct StmtInfer<'a> {
    def: &'a Def,
    checked: &'a CheckedDef,
    cs: &'a CheckedStmt,
    sizes: &'a [(String, Var)],
    an: &'a mut Analyzer,
    bounds: &'a HashMap<String, Vec<(Expr, Expr)>>,
    /// Whether each range `(lower, upper)` met so far is provably empty:
    /// later statements mostly repeat the ranges of earlier ones.
    empty_ranges: &'a mut HashMap<(Expr, Expr), bool>,
    diagnostics: Vec<Diagnostic>,
}

/// The range of one variable solved from its constraints.
enum Solution {
    /// `[lower, upper)`.
    Range(Expr, Expr),
    /// No value satisfies the condition (simplified).
    Empty(Expr),
    /// Not bounded on both sides.
    Unbounded,
    /// The solver could not handle the condition: why.
    Unsolvable(String),
}

/// Why a variable could not be resolved, for the error message.
enum Blocker {
    /// Used in an index that is not an integer expression of the
    /// variables (a tensor read, a float).
    NotAffine(Span),
    /// Only used together with other unresolved variables.
    Coupled(Span),
    /// The solver could not handle the condition (non-linear).
    Unsolvable(Span, String),
}

impl StmtInfer<'_> {
    fn size_var(&self, name: &str) -> Option<&Var> {
        self.sizes.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    fn lookup<'b>(&'b self, vars: &'b [Var]) -> impl Fn(&str) -> Option<Name> + 'b {
        move |n: &str| match self.cs.resolve(n, self.checked)? {
            Resolved::Index(i) => Some(Name::Var(vars[i].clone())),
            Resolved::Size => self.size_var(n).map(|v| Name::Var(v.clone())),
            Resolved::Let(e) => Some(Name::Let(e)),
            Resolved::Scalar => Some(Name::Value),
        }
    }

    fn to_arith(&self, vars: &[Var], id: ExprId) -> Result<Option<Expr>, Diagnostic> {
        let lookup = self.lookup(vars);
        let mut c = Converter {
            arena: &self.def.exprs,
            lookup: &lookup,
            holes: None,
        };
        c.to_arith(id)
    }

    /// The index variables (by position) an expression mentions, lets
    /// included.
    fn vars_in(&self, id: ExprId) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![(id, 0usize)];
        while let Some((e, depth)) = stack.pop() {
            for n in self.def.exprs.preorder(e) {
                if let ExprKind::Ident(name) = &self.def.exprs.get(n).kind {
                    match self.cs.resolve(name, self.checked) {
                        Some(Resolved::Index(i)) if !out.contains(&i) => out.push(i),
                        Some(Resolved::Let(x)) if depth < 64 => stack.push((x, depth + 1)),
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// `[lo, hi)` per dimension of the tensor an access reads.
    fn access_bounds(&self, tensor: &str) -> Option<Vec<(Expr, Expr)>> {
        let t = self.checked.tensors.get(tensor)?;
        match t.role {
            Role::Input => Some(
                t.dims
                    .iter()
                    .map(|d| {
                        let hi = match d {
                            Dim::Const(v, _) => Expr::int(*v),
                            Dim::Size(s) => {
                                self.size_var(&s.name).map_or(Expr::int(0), |v| v.expr())
                            }
                        };
                        (Expr::int(0), hi)
                    })
                    .collect(),
            ),
            Role::Output => self.bounds.get(tensor).cloned(),
        }
    }

    /// `cond` with `var` eliminated over `[lo, hi)`, the range taken to be
    /// non-empty (TC's `and_condition_over_domain` makes the same
    /// assumption).
    fn eliminate(&mut self, cond: &Expr, var: &Var, lo: &Expr, hi: &Expr) -> arith::Result<Expr> {
        let extent = Var::new("extent");
        self.an.update_bound(&extent, ConstBound::new(1, POS_INF));
        let r =
            self.an
                .and_condition_over_domain(cond, var, &Range::new(lo.clone(), extent.expr()));
        self.an.unbind(&extent);
        let r = match r {
            Ok(r) => r,
            // Not linear in `var` (`i % 3`, `kc % c`): bound each comparison
            // by interval arithmetic over the range instead, which is sound
            // (the result implies the condition for every value).
            Err(e) => return self.eliminate_by_bounds(cond, var, lo, hi).ok_or(e),
        };
        let real = Expr::sub(hi.clone(), lo.clone());
        let r = r.substitute(&mut |v| (v == &extent).then(|| real.clone()));
        self.an.simplify(&r)
    }

    /// `cond` for all `var` in `[lo, hi)` by bounds: each conjunct `a <= b`
    /// (or `<`) becomes `0 <= min(b - a)` over the range.
    fn eliminate_by_bounds(&self, cond: &Expr, var: &Var, lo: &Expr, hi: &Expr) -> Option<Expr> {
        let dom = HashMap::from([(
            var.clone(),
            arith::int_set::IntSet::interval(lo.clone(), Expr::sub(hi.clone(), Expr::int(1))),
        )]);
        let mut parts = Vec::new();
        for c in conjuncts(cond) {
            if !c.uses_var(var) {
                parts.push(c);
                continue;
            }
            let arith::ExprKind::Cmp(op, a, b) = c.kind() else {
                return None;
            };
            let (d, strict) = match op {
                arith::CmpOp::Le => (Expr::sub(b.clone(), a.clone()), false),
                arith::CmpOp::Lt => (Expr::sub(b.clone(), a.clone()), true),
                arith::CmpOp::Ge => (Expr::sub(a.clone(), b.clone()), false),
                arith::CmpOp::Gt => (Expr::sub(a.clone(), b.clone()), true),
                _ => return None,
            };
            let set = self.an.int_set(&d, &dom);
            let least = set.min()?.clone();
            if least.uses_var(var) {
                return None;
            }
            parts.push(if strict {
                Expr::lt(Expr::int(0), least)
            } else {
                Expr::le(Expr::int(0), least)
            });
        }
        let all = parts
            .into_iter()
            .reduce(Expr::and)
            .unwrap_or(Expr::bool(true));
        self.an.simplify(&all).ok()
    }

    /// Whether the access is in bounds wherever its ternary guard lets it
    /// run, given the ranges found.
    fn guarded_in_bounds(&self, acc: &sema::Access, vars: &[Var], ranges: &[VarRange]) -> bool {
        let Some((guard, negated)) = acc.guard else {
            return false;
        };
        let Ok(Some(g)) = self.to_arith(vars, guard) else {
            return false;
        };
        if g.ty() != arith::Type::Bool {
            return false;
        }
        let Some(b) = self.access_bounds(&acc.tensor) else {
            return false;
        };
        let mut inside = Vec::new();
        for (k, &arg) in acc.args.iter().enumerate() {
            let Ok(Some(e)) = self.to_arith(vars, arg) else {
                return false;
            };
            let (lo, hi) = b[k].clone();
            inside.push(Expr::le(lo, e.clone()));
            inside.push(Expr::lt(e, hi));
        }
        let inside = inside
            .into_iter()
            .reduce(Expr::and)
            .unwrap_or(Expr::bool(true));
        let runs = if negated { Expr::not(g) } else { g };
        let mut scratch = self.an.clone();
        for r in ranges {
            scratch.bind(&r.var, Range::half_open(r.lower.clone(), r.upper.clone()));
        }
        // Each conjunct separately: `not runs or c`, or, simpler for the
        // prover, one conjunct `g` of the guard with `not g or c` (a guard
        // `h + kh >= 1 && ...` gives `0 <= h + kh - 1` by its first part).
        let guards = conjuncts(&runs);
        conjuncts(&inside).into_iter().all(|c| {
            guards
                .iter()
                .any(|g| scratch.can_prove(&Expr::or(Expr::not(g.clone()), c.clone())))
                || scratch.can_prove(&Expr::or(Expr::not(runs.clone()), c))
        })
    }

    /// `c` with the divisions by positive constants of the side bounding
    /// `var` removed (exactly: see [`crate::division`]).
    fn without_division(&self, c: &Constraint, var: &Var) -> Constraint {
        let cond = crate::division::without_division(&c.cond, var);
        let cond = match cond.kind() {
            arith::ExprKind::Cmp(op, a, b) if cond != c.cond => {
                Expr::cmp(*op, simplify(self.an, a), simplify(self.an, b))
            }
            _ => cond,
        };
        Constraint {
            cond,
            access: c.access,
            arg: c.arg,
            also: c.also.clone(),
        }
    }

    /// The largest range of `var` satisfying every constraint of `cs`
    /// (each mentions no other unresolved variable).
    fn solve_one(&self, cs: &[Constraint], var: &Var) -> Solution {
        let refs: Vec<&Constraint> = cs.iter().collect();
        if let Some((lo, hi)) = plain_bounds(&refs, var) {
            return Solution::Range(lo, hi);
        }
        let cond = cs
            .iter()
            .map(|c| c.cond.clone())
            .reduce(Expr::and)
            .unwrap_or(Expr::bool(true));
        match self.an.solve_for_inner_interval(&cond, var) {
            Ok(set) if set.is_nothing() => Solution::Empty(simplify(self.an, &cond)),
            Ok(set) => match (set.min(), set.exclusive_max(self.an)) {
                (Some(lo), Some(hi)) => Solution::Range(lo.clone(), hi),
                _ => Solution::Unbounded,
            },
            Err(e) => Solution::Unsolvable(e.message),
        }
    }

    /// The bound each access among `mine` (the constraints that decided
    /// `var`, of one variable each) imposes alone, and which of them the
    /// range `[lo, hi)` takes its ends from.
    fn bounds_by_access(
        &self,
        mine: &[Constraint],
        var: &Var,
        lo: &Expr,
        hi: &Expr,
    ) -> Vec<AccessBound> {
        let mut accesses: Vec<usize> = mine
            .iter()
            .flat_map(|c| std::iter::once(c.access).chain(c.also.iter().copied()))
            .collect();
        accesses.sort_unstable();
        accesses.dedup();
        let same =
            |a: &Expr, b: &Expr| a == b || self.an.can_prove(&Expr::eq(a.clone(), b.clone()));
        accesses
            .into_iter()
            .map(|a| {
                let its: Vec<&Constraint> = mine.iter().filter(|c| c.imposed_by(a)).collect();
                let (lower, upper) = self.one_access_bounds(&its, var);
                let acc = &self.cs.accesses[a];
                AccessBound {
                    access: self.def.exprs.display_span(&acc.tensor, &acc.args),
                    span: acc.span,
                    decides_lower: lower.as_ref().is_some_and(|l| same(l, lo)),
                    decides_upper: upper.as_ref().is_some_and(|u| same(u, hi)),
                    lower,
                    upper,
                }
            })
            .collect()
    }

    /// The least value and one past the greatest that `cs` allow `var`,
    /// each `None` when unbounded on that side (or not solvable).
    fn one_access_bounds(&self, cs: &[&Constraint], var: &Var) -> (Option<Expr>, Option<Expr>) {
        if let Some((lo, hi)) = plain_bounds(cs, var) {
            return (Some(lo), Some(hi));
        }
        let cond = cs
            .iter()
            .map(|c| c.cond.clone())
            .reduce(Expr::and)
            .unwrap_or(Expr::bool(true));
        match self.an.solve_for_inner_interval(&cond, var) {
            Ok(set) if !set.is_nothing() => (set.min().cloned(), set.exclusive_max(self.an)),
            _ => (None, None),
        }
    }

    /// Warns when a read under a ternary narrows the range `[lo, hi)` of
    /// variable `v` found from `mine`: as in TC, every read bounds the
    /// ranges whatever condition guards it, so a condition written to pad
    /// (`h + kh >= 1 ? I(h + kh - 1) : 0`) does not widen them.
    fn warn_guarded_narrowing(
        &mut self,
        mine: &[Constraint],
        v: usize,
        var: &Var,
        lo: &Expr,
        hi: &Expr,
    ) {
        let cs = self.cs;
        let mut guarded: Vec<usize> = mine
            .iter()
            .map(|c| c.access)
            .filter(|&a| cs.accesses[a].guard.is_some())
            .collect();
        guarded.sort_unstable();
        guarded.dedup();
        for g in guarded {
            let others: Vec<Constraint> = mine.iter().filter(|c| c.access != g).cloned().collect();
            if others.is_empty() {
                continue;
            }
            let Solution::Range(wlo, whi) = self.solve_one(&others, var) else {
                continue;
            };
            let same = |a: &Expr, b: &Expr| self.an.can_prove(&Expr::eq(a.clone(), b.clone()));
            if same(lo, &wlo) && same(hi, &whi) {
                continue;
            }
            let name = &cs.vars[v].name;
            let acc = &cs.accesses[g];
            self.diagnostics.push(Diagnostic::warning(
                acc.span,
                format!(
                    "this read narrows `{name}` to `{lo} <= {name} < {hi}` although it sits under \
                     a condition: the condition does not widen the range (every read bounds \
                     it, as in TC); without this read it would be `{wlo} <= {name} < {whi}`. \
                     If the condition is there to allow reads outside `{}` (padding), give the \
                     range explicitly: `where {name} in {wlo}:{whi}`",
                    acc.tensor
                ),
            ));
        }
    }

    fn run(&mut self, s: &Stmt) -> StmtAnalysis {
        let cs = self.cs;
        let n = cs.vars.len();
        let vars: Vec<Var> = cs.vars.iter().map(|v| Var::new(v.name.clone())).collect();
        let mut result = StmtAnalysis {
            tensor: s.lhs.name.clone(),
            ranges: Vec::new(),
            preconditions: Vec::new(),
            ok: false,
        };
        if !cs.ok {
            return result;
        }
        // Solved ranges: (lower, upper exclusive, from_where).
        let mut solved: Vec<Option<(Expr, Expr, bool)>> = vec![None; n];
        // Per variable: the round that decided it and each access's bound.
        let mut decided: Vec<(Option<usize>, Vec<AccessBound>)> = vec![(None, Vec::new()); n];
        for &(v, lo, hi) in &cs.ranges {
            let (l, h) = (self.to_arith(&vars, lo), self.to_arith(&vars, hi));
            if let Some(Err(d)) = [&l, &h].into_iter().find(|x| x.is_err()).cloned() {
                // Points at the offending part of the bound (`N/0`), not at
                // the variable.
                self.diagnostics.push(d);
                return result;
            }
            let (Ok(Some(l)), Ok(Some(h))) = (l, h) else {
                self.diagnostics.push(Diagnostic::error(
                    self.def.exprs.get(lo).span.to(self.def.exprs.get(hi).span),
                    "range bounds must be integer expressions of sizes and constants",
                ));
                return result;
            };
            let (l, h) = (simplify(self.an, &l), simplify(self.an, &h));
            decided[v].1 = vec![AccessBound {
                access: format!(
                    "where {} in {}:{}",
                    cs.vars[v].name,
                    self.def.exprs.display(lo),
                    self.def.exprs.display(hi)
                ),
                span: self.def.exprs.get(lo).span.to(self.def.exprs.get(hi).span),
                lower: Some(l.clone()),
                upper: Some(h.clone()),
                decides_lower: true,
                decides_upper: true,
            }];
            solved[v] = Some((l, h, true));
        }
        // Constraints from every access.
        let mut constraints: Vec<Constraint> = Vec::new();
        // Each condition once, with every access that imposes it.
        let mut seen: HashMap<Expr, usize> = HashMap::new();
        let mut blockers: Vec<Vec<Blocker>> = (0..n).map(|_| Vec::new()).collect();
        let mut data_dependent: Vec<(usize, usize)> = Vec::new();
        for (ai, acc) in cs.accesses.iter().enumerate() {
            let Some(b) = self.access_bounds(&acc.tensor) else {
                continue;
            };
            for (k, &arg) in acc.args.iter().enumerate() {
                let Some((lo, hi)) = b.get(k).cloned() else {
                    continue;
                };
                match self.to_arith(&vars, arg) {
                    Err(d) => {
                        self.diagnostics.push(d);
                        return result;
                    }
                    Ok(Some(e)) => {
                        for cond in [Expr::le(lo, e.clone()), Expr::lt(e, hi)] {
                            match seen.get(&cond) {
                                Some(&at) => {
                                    if constraints[at].access != ai
                                        && !constraints[at].also.contains(&ai)
                                    {
                                        constraints[at].also.push(ai);
                                    }
                                }
                                None => {
                                    seen.insert(cond.clone(), constraints.len());
                                    constraints.push(Constraint {
                                        cond,
                                        access: ai,
                                        arg: k,
                                        also: Vec::new(),
                                    });
                                }
                            }
                        }
                    }
                    Ok(None) => {
                        let span = self.def.exprs.get(arg).span;
                        for v in self.vars_in(arg) {
                            blockers[v].push(Blocker::NotAffine(span));
                        }
                        data_dependent.push((ai, k));
                    }
                }
            }
        }
        // Reduce over the `where` ranges first.
        for v in 0..n {
            if let Some((lo, hi, true)) = solved[v].clone() {
                if let Err((span, msg)) =
                    self.eliminate_everywhere(&mut constraints, &vars[v], &lo, &hi)
                {
                    self.diagnostics.push(Diagnostic::error(span, msg));
                    return result;
                }
            }
        }
        // Rounds.
        let mut round_number = 0;
        loop {
            round_number += 1;
            // The variables each constraint mentions, found once per round
            // rather than once per pair of variables.
            let mentions: Vec<Vec<usize>> = constraints
                .iter()
                .map(|c| {
                    let used = c.cond.vars();
                    (0..n).filter(|&w| used.contains(&vars[w])).collect()
                })
                .collect();
            let mut round: Vec<(usize, Expr, Expr)> = Vec::new();
            for v in 0..n {
                if solved[v].is_some() {
                    continue;
                }
                let mut mine: Vec<&Constraint> = Vec::new();
                for (c, m) in constraints.iter().zip(&mentions) {
                    if !m.contains(&v) {
                        continue;
                    }
                    if m.iter().any(|&w| w != v && solved[w].is_none()) {
                        continue;
                    }
                    mine.push(c);
                }
                if mine.is_empty() {
                    continue;
                }
                let span = cs.accesses[mine[0].access].span;
                let mine: Vec<Constraint> = mine
                    .into_iter()
                    .map(|c| self.without_division(c, &vars[v]))
                    .collect();
                match self.solve_one(&mine, &vars[v]) {
                    Solution::Empty(cond) => {
                        self.diagnostics.push(Diagnostic::error(
                            span,
                            format!(
                                "inferred an empty range for `{}`: no value satisfies `{}`",
                                cs.vars[v].name, cond
                            ),
                        ));
                        return result;
                    }
                    Solution::Range(lo, hi) => {
                        self.warn_guarded_narrowing(&mine, v, &vars[v], &lo, &hi);
                        decided[v] = (
                            Some(round_number),
                            self.bounds_by_access(&mine, &vars[v], &lo, &hi),
                        );
                        round.push((v, lo, hi));
                    }
                    Solution::Unbounded => {}
                    Solution::Unsolvable(why) => blockers[v].push(Blocker::Unsolvable(span, why)),
                }
            }
            if round.is_empty() {
                break;
            }
            // A constraint whose only variable was just solved holds on the
            // solution by construction (it was part of the solved
            // condition): dropped without eliminating.
            let just: Vec<usize> = round.iter().map(|r| r.0).collect();
            let mut k = 0;
            constraints.retain(|_| {
                let mut unsolved = mentions[k].iter().filter(|&&w| solved[w].is_none());
                k += 1;
                match (unsolved.next(), unsolved.next()) {
                    (Some(w), None) => !just.contains(w),
                    _ => true,
                }
            });
            for (v, lo, hi) in round {
                if let Err((span, msg)) =
                    self.eliminate_everywhere(&mut constraints, &vars[v], &lo, &hi)
                {
                    self.diagnostics.push(Diagnostic::error(span, msg));
                    return result;
                }
                solved[v] = Some((lo, hi, false));
            }
        }
        // Unresolved variables.
        let mut unresolved = false;
        for v in 0..n {
            if solved[v].is_some() {
                continue;
            }
            unresolved = true;
            let name = &cs.vars[v].name;
            for c in &constraints {
                if c.cond.uses_var(&vars[v]) {
                    let span = self.def.exprs.get(cs.accesses[c.access].args[c.arg]).span;
                    blockers[v].push(Blocker::Coupled(span));
                }
            }
            let d = match blockers[v].first() {
                Some(Blocker::NotAffine(span)) => Diagnostic::error(
                    *span,
                    format!(
                        "cannot infer the range of `{name}`: this index is not an affine \
                         expression of index variables and sizes (it depends on tensor values); \
                         give the range with `where {name} in lb:ub`"
                    ),
                ),
                Some(Blocker::Coupled(span)) => Diagnostic::error(
                    *span,
                    format!(
                        "cannot infer the range of `{name}`: every index using it also uses \
                         another unresolved variable, so there is no unique rectangular range; \
                         give one of them a range with `where {name} in lb:ub`"
                    ),
                ),
                Some(Blocker::Unsolvable(span, why)) => Diagnostic::error(
                    *span,
                    format!(
                        "cannot infer the range of `{name}`: {why}; give the range with `where \
                         {name} in lb:ub`"
                    ),
                ),
                None => Diagnostic::error(
                    cs.vars[v].span,
                    format!(
                        "`{name}` is unconstrained: no access bounds it; give its range with \
                         `where {name} in lb:ub`"
                    ),
                ),
            };
            self.diagnostics.push(d);
        }
        for v in 0..n {
            if let Some((lo, hi, w)) = &solved[v] {
                result.ranges.push(VarRange {
                    name: cs.vars[v].name.clone(),
                    var: vars[v].clone(),
                    lower: lo.clone(),
                    upper: hi.clone(),
                    on_lhs: cs.vars[v].on_lhs,
                    from_where: *w,
                    bounds: decided[v].1.clone(),
                    round: decided[v].0,
                });
            }
        }
        if unresolved {
            return result;
        }
        // A range that is empty whatever the sizes (`where i in 8:4`): the
        // statement reads nothing, so there is nothing to check.
        let (an, empty_ranges) = (&*self.an, &mut *self.empty_ranges);
        if let Some(r) = result.ranges.iter().find(|r| {
            *empty_ranges
                .entry((r.lower.clone(), r.upper.clone()))
                .or_insert_with(|| an.can_prove(&Expr::le(r.upper.clone(), r.lower.clone())))
        }) {
            self.diagnostics.push(Diagnostic::warning(
                cs.vars
                    .iter()
                    .find(|v| v.name == r.name)
                    .map_or(s.span, |v| v.span),
                format!(
                    "`{}` has an empty range ({} <= {} < {}): the statement does nothing",
                    r.name, r.lower, r.name, r.upper
                ),
            ));
            result.ok = true;
            return result;
        }
        // Preconditions: per access, what remains.
        let mut per_access: Vec<Vec<Expr>> = vec![Vec::new(); cs.accesses.len()];
        let mut violated = vec![false; cs.accesses.len()];
        for c in &constraints {
            let cond = simplify(self.an, &c.cond);
            if cond.as_bool() == Some(true) {
                continue;
            }
            if cond.as_bool() == Some(false) || self.an.can_prove(&Expr::not(cond.clone())) {
                violated[c.access] = true;
            }
            if !per_access[c.access].contains(&cond) {
                per_access[c.access].push(cond);
            }
        }
        for (ai, conds) in per_access.into_iter().enumerate() {
            if conds.is_empty() {
                continue;
            }
            let acc = &cs.accesses[ai];
            if self.guarded_in_bounds(acc, &vars, &result.ranges) {
                continue;
            }
            let condition = conds
                .into_iter()
                .reduce(Expr::and)
                .unwrap_or(Expr::bool(true));
            let access = self.def.exprs.display_span(&acc.tensor, &acc.args);
            // A read under a ternary may be excluded by its condition: not
            // provably wrong, then.
            let status = if violated[ai] && acc.guard.is_none() {
                Status::Violated
            } else {
                Status::Unknown
            };
            result.preconditions.push(Precondition {
                span: acc.span,
                access,
                condition,
                status,
            });
        }
        if let Some(p) = self.update_precondition(s, &result.ranges) {
            result.preconditions.push(p);
        }
        // Data-dependent indices.
        let mut notes = Vec::new();
        for (ai, k) in data_dependent {
            let acc = &cs.accesses[ai];
            let Some(b) = self.access_bounds(&acc.tensor) else {
                continue;
            };
            let (lo, hi) = b[k].clone();
            let arg = acc.args[k];
            let lookup = self.lookup(&vars);
            let mut conv = Converter {
                arena: &self.def.exprs,
                lookup: &lookup,
                holes: Some(Vec::new()),
            };
            let Ok(Some(e)) = conv.to_arith(arg) else {
                continue;
            };
            let mut scratch = self.an.clone();
            for r in &result.ranges {
                scratch.bind(&r.var, Range::half_open(r.lower.clone(), r.upper.clone()));
            }
            let inside = Expr::and(Expr::le(lo.clone(), e.clone()), Expr::lt(e, hi.clone()));
            if scratch.can_prove(&inside) {
                continue;
            }
            let readers: Vec<String> = self
                .def
                .exprs
                .preorder(arg)
                .into_iter()
                .filter_map(|x| match &self.def.exprs.get(x).kind {
                    ExprKind::Call(n, _) if sema::builtin_arity(&n.name).is_none() => {
                        Some(format!("`{}`", n.name))
                    }
                    _ => None,
                })
                .collect();
            let readers = if readers.is_empty() {
                "the values it is computed from".to_string()
            } else {
                format!("the values of {}", dedup(readers).join(", "))
            };
            notes.push(Diagnostic::note(
                self.def.exprs.get(arg).span,
                format!(
                    "index {} of `{}` depends on tensor values: {readers} must keep it in \
                     [{}, {}), which is not checked; clamp it with `max(min(..., {} - 1), {})` \
                     to make it safe",
                    k, acc.tensor, lo, hi, hi, lo
                ),
            ));
        }
        self.diagnostics.extend(notes);
        for p in &result.preconditions {
            if p.status == Status::Violated {
                let msg = if p.condition.as_bool() == Some(false) {
                    format!(
                        "`{}` reads out of bounds for every value of its index variables: it is \
                         always out of bounds, whatever the sizes",
                        p.access
                    )
                } else {
                    format!(
                        "`{}` reads out of bounds: it needs `{}`, which never holds",
                        p.access, p.condition
                    )
                };
                self.diagnostics.push(Diagnostic::error(p.span, msg));
            }
        }
        result.ok = !result
            .preconditions
            .iter()
            .any(|p| p.status == Status::Violated);
        result
    }

    /// The precondition of an update (`op=` without `!`) of a tensor an
    /// earlier statement defined: it reads the tensor's current values at
    /// its own indices, so its ranges must lie inside the earlier bounds.
    /// TC infers ranges from the right-hand side alone, so this read does
    /// not narrow them; it is checked like any other access.
    fn update_precondition(&self, s: &Stmt, ranges: &[VarRange]) -> Option<Precondition> {
        if !matches!(s.op, AssignOp::Reduce { init: false, .. }) {
            return None;
        }
        let prev = self.bounds.get(&s.lhs.name)?;
        let mut conds: Vec<Expr> = Vec::new();
        for (ix, (lo, hi)) in s.indices.iter().zip(prev) {
            let Some(r) = ranges.iter().find(|r| r.name == ix.name) else {
                continue;
            };
            for c in [
                Expr::le(lo.clone(), r.lower.clone()),
                Expr::le(r.upper.clone(), hi.clone()),
            ] {
                let c = simplify(self.an, &c);
                if c.as_bool() != Some(true) && !conds.contains(&c) {
                    conds.push(c);
                }
            }
        }
        let violated = conds
            .iter()
            .any(|c| c.as_bool() == Some(false) || self.an.can_prove(&Expr::not(c.clone())));
        let condition = conds.into_iter().reduce(Expr::and)?;
        let names: Vec<&str> = s.indices.iter().map(|i| i.name.as_str()).collect();
        Some(Precondition {
            span: s.lhs.span.to(s.op_span),
            access: format!("{}({})", s.lhs.name, names.join(", ")),
            condition,
            status: if violated {
                Status::Violated
            } else {
                Status::Unknown
            },
        })
    }

    fn eliminate_everywhere(
        &mut self,
        constraints: &mut Vec<Constraint>,
        var: &Var,
        lo: &Expr,
        hi: &Expr,
    ) -> Result<(), (Span, String)> {
        let mut out: Vec<Constraint> = Vec::with_capacity(constraints.len());
        let mut seen: HashMap<Expr, usize> = HashMap::new();
        // The constraints of one index mentioning `var`, eliminated in one
        // call: (access, arg) -> their conjunction, and the other accesses
        // that share every one of them (the result is theirs too).
        let mut groups: Vec<((usize, usize), Expr, Vec<usize>)> = Vec::new();
        for c in constraints.drain(..) {
            if !c.cond.uses_var(var) {
                match seen.get(&c.cond) {
                    Some(&at) => out[at].merge(&c),
                    None => {
                        seen.insert(c.cond.clone(), out.len());
                        out.push(c);
                    }
                }
                continue;
            }
            match groups.iter_mut().find(|(k, _, _)| *k == (c.access, c.arg)) {
                Some((_, e, also)) => {
                    *e = Expr::and(e.clone(), c.cond);
                    also.retain(|a| c.also.contains(a));
                }
                None => groups.push(((c.access, c.arg), c.cond, c.also)),
            }
        }
        for ((access, arg), cond, also) in groups {
            let r = self.eliminate(&cond, var, lo, hi).map_err(|e| {
                (
                    self.def.exprs.get(self.cs.accesses[access].args[arg]).span,
                    format!(
                        "cannot eliminate `{}` from `{}`: {}",
                        var.name(),
                        cond,
                        e.message
                    ),
                )
            })?;
            for part in conjuncts(&r) {
                let c = Constraint {
                    cond: part,
                    access,
                    arg,
                    also: also.clone(),
                };
                match seen.get(&c.cond) {
                    Some(&at) => out[at].merge(&c),
                    None => {
                        seen.insert(c.cond.clone(), out.len());
                        out.push(c);
                    }
                }
            }
        }
        *constraints = out;
        Ok(())
    }
}

/// The range of `var` when its constraints are all `lo <= var` and
/// `var < hi` with one `lo` and one `hi` (a variable used directly as an
/// index): what the solver would find, without solving.
fn plain_bounds(cs: &[&Constraint], var: &Var) -> Option<(Expr, Expr)> {
    let mut lo: Option<&Expr> = None;
    let mut hi: Option<&Expr> = None;
    for c in cs {
        match c.cond.kind() {
            arith::ExprKind::Cmp(arith::CmpOp::Le, l, x) if x.as_var() == Some(var) => {
                if lo.is_some_and(|p| p != l) || l.uses_var(var) {
                    return None;
                }
                lo = Some(l);
            }
            arith::ExprKind::Cmp(arith::CmpOp::Lt, x, h) if x.as_var() == Some(var) => {
                if hi.is_some_and(|p| p != h) || h.uses_var(var) {
                    return None;
                }
                hi = Some(h);
            }
            _ => return None,
        }
    }
    let (lo, hi) = (lo?, hi?);
    // Constant and crossed: the solver reports the empty range.
    if matches!((lo.as_int(), hi.as_int()), (Some(a), Some(b)) if b <= a) {
        return None;
    }
    Some((lo.clone(), hi.clone()))
}

/// The conjuncts of `e` (split at `and`), without recursion.
fn conjuncts(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut stack = vec![e.clone()];
    while let Some(x) = stack.pop() {
        match x.kind() {
            arith::ExprKind::And(a, b) => {
                stack.push(b.clone());
                stack.push(a.clone());
            }
            _ => out.push(x),
        }
    }
    out
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    v.retain(|x| seen.insert(x.clone()));
    v
}

impl ExprArena {
    /// `T(a, b)` as written, for messages.
    pub fn display_span(&self, tensor: &str, args: &[ExprId]) -> String {
        if args.is_empty() {
            return tensor.to_string();
        }
        let parts: Vec<String> = args.iter().map(|a| self.display(*a)).collect();
        format!("{tensor}({})", parts.join(", "))
    }
}
