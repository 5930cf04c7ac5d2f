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
mod product;
pub(crate) mod rules;
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
        Info {
            bound: ConstBound::point(v),
            modular: Modular::exact(v),
        }
    }

    /// Nothing known.
    pub const ANY: Info = Info {
        bound: ConstBound::EVERYTHING,
        modular: Modular::EVERYTHING,
    };

    /// A truth value.
    pub const BOOL: Info = Info {
        bound: ConstBound::BOOL,
        modular: Modular::EVERYTHING,
    };
}

/// One simplification run over one expression.
pub(crate) struct Simplifier<'a> {
    pub an: &'a Analyzer,
    /// Set while a sum-level search (`run_sum_searches`) builds and
    /// simplifies its candidates, which then get the rule tables and
    /// canonical forms but no search of their own: searches do not nest.
    pub(crate) in_search: bool,
    /// Set while a division tries its numerator in another form (modulos
    /// expanded, or an index split into quotient and remainder), so that
    /// another form is tried once, not recursively.
    pub(crate) expanding_mods: bool,
    /// Results of visits by node identity (and the rule state, which can
    /// change a result), so that a subexpression shared many times is
    /// simplified once. The input handle is kept so the identity stays
    /// valid.
    memo: crate::IdMap<(usize, bool, bool), (Expr, Expr, Info)>,
    /// Nodes whose simplification failed (an overflow with no value to
    /// keep), so that a failure is found once, not once per enclosing node
    /// that retries its children.
    failed: crate::IdMap<(usize, bool, bool), (Expr, ArithError)>,
    /// The operands of the `min`/`max` searches in progress (see
    /// `min_max_simplified`).
    pub(crate) min_max_active: Vec<(Expr, Expr, bool)>,
    /// How deeply `visit` is nested, to check the stack every few levels.
    depth: u32,
    /// Structural facts by node identity.
    info_memo: std::cell::RefCell<crate::IdMap<usize, (Expr, Info)>>,
}

/// Nodes smaller than this are re-simplified rather than memoised: for the
/// small expressions of everyday index code, filling a table costs more
/// than it saves; sharing that matters makes nodes large quickly.
const MEMO_MIN_NODES: usize = 32;

/// The work budget of the rules that compare terms in pairs (sum-level
/// rules, `min`/`max` operand pruning): at most this many terms, so at most
/// its square of comparisons per node, which keeps a simplification linear
/// in the size of its input however long a sum grows. A longer sum is still
/// canonicalised (collected, ordered, constants folded) but not rewritten
/// pair by pair: the result is sound, only less simplified. 64 terms hold
/// any index expression of a real program many times over.
pub(crate) const MAX_PAIR_RULE_TERMS: usize = 64;

/// The work budget of [`Simplifier::merge_mod_pair`]: how many remainders
/// it may try for one pair of modulo terms. Past it the pair is kept as
/// written (the rewrite is optional, so sound, only less simplified) and
/// the work per pair stays constant, whatever the modulus.
const REMAINDER_BUDGET: i64 = 64;

pub(crate) type Out = Result<(Expr, Info)>;

pub(crate) fn division_by_zero() -> ArithError {
    ArithError::new(
        ErrorKind::DivisionByZero,
        "division or modulo by the constant zero: the expression has no value",
    )
}

impl<'a> Simplifier<'a> {
    pub fn new(an: &'a Analyzer) -> Simplifier<'a> {
        Simplifier {
            an,
            in_search: false,
            expanding_mods: false,
            memo: Default::default(),
            failed: Default::default(),
            min_max_active: Vec::new(),
            depth: 0,
            info_memo: Default::default(),
        }
    }

    /// Simplifies `e`, returning the result and what is known about it.
    ///
    /// A rule whose own arithmetic overflows (which happens only with
    /// constants or ranges near the ends of `i64`) does not make the input
    /// an error: the node is kept as written over its simplified children,
    /// since a rewrite is only kept where it is defined wherever the input
    /// is. Constant subtrees still fold, and an overflow there is an error
    /// because the input has no value.
    pub fn visit(&mut self, e: &Expr) -> Out {
        let key = (e.node_id(), self.in_search, self.expanding_mods);
        let memoise = e.node_count() >= MEMO_MIN_NODES;
        if memoise {
            if let Some((_, r, i)) = self.memo.get(&key) {
                return Ok((r.clone(), *i));
            }
            if let Some((_, err)) = self.failed.get(&key) {
                return Err(err.clone());
            }
        }
        // Chains that are not sums (`a // 4 * a // 4 * ...`) recurse once
        // per level. Every 16th level checks the room left on the stack
        // (a level takes a few kilobytes, far less than the red zone).
        self.depth += 1;
        let visited = if self.depth.is_multiple_of(16) {
            crate::stack::grow(|| self.visit_node(e))
        } else {
            self.visit_node(e)
        };
        self.depth -= 1;
        let out = match visited {
            Err(err) if err.kind == ErrorKind::Overflow => self.keep_node(e, err),
            r => r,
        };
        match (memoise, &out) {
            (true, Ok((r, i))) => {
                self.memo.insert(key, (e.clone(), r.clone(), *i));
            }
            (true, Err(err)) => {
                self.failed.insert(key, (e.clone(), err.clone()));
            }
            _ => {}
        }
        out
    }

    /// `e` over its simplified children, without the node's own rules.
    fn keep_node(&mut self, e: &Expr, err: ArithError) -> Out {
        let children = e.children();
        if children.is_empty() {
            return Err(err);
        }
        let rebuilt = if matches!(e.kind(), ExprKind::Add(..) | ExprKind::Sub(..)) {
            self.keep_sum_tree(e)?
        } else {
            let mut new: smallvec::SmallVec<[Expr; 3]> = smallvec::SmallVec::new();
            for c in children {
                new.push(self.visit(c)?.0);
            }
            e.with_children(&new)
        };
        if !crate::walk::any_node(&rebuilt, |n| n.as_var().is_some()) {
            let v = rebuilt.eval(&|_| None)?;
            let folded = match rebuilt.ty() {
                crate::expr::Type::Bool => Expr::bool(v != 0),
                crate::expr::Type::Int => Expr::int(v),
            };
            return Ok((folded, Info::exact(v)));
        }
        let info = self.info(&rebuilt);
        Ok((rebuilt, info))
    }

    /// A sum kept as written (its collection overflowed) over its simplified
    /// operands: every `+`/`-` node of the sum is kept and every operand
    /// below them is simplified once. Keeping one node at a time would
    /// collect each partial sum of a long chain again, and fail again, which
    /// takes quadratic time.
    fn keep_sum_tree(&mut self, e: &Expr) -> Result<Expr> {
        let is_sum = |n: &Expr| matches!(n.kind(), ExprKind::Add(..) | ExprKind::Sub(..));
        // (node, children already rebuilt?)
        let mut pending: Vec<(&Expr, bool)> = vec![(e, false)];
        let mut done: Vec<Expr> = Vec::new();
        // Rebuilt nodes by identity: a sum used twice (`e + e`) is rebuilt
        // once, so a graph of shared sums takes time in its own size.
        let mut rebuilt: crate::IdMap<usize, Expr> = Default::default();
        while let Some((n, expanded)) = pending.pop() {
            if let Some(r) = rebuilt.get(&n.node_id()) {
                done.push(r.clone());
            } else if !is_sum(n) {
                let r = self.visit(n)?.0;
                rebuilt.insert(n.node_id(), r.clone());
                done.push(r);
            } else if !expanded {
                pending.push((n, true));
                pending.extend(n.children().into_iter().rev().map(|c| (c, false)));
            } else {
                let at = done.len() - 2;
                let node = n.with_children(&done[at..]);
                done.truncate(at);
                rebuilt.insert(n.node_id(), node.clone());
                done.push(node);
            }
        }
        Ok(done.pop().expect("one result per walk"))
    }

    fn visit_node(&mut self, e: &Expr) -> Out {
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
            Mul(a, b) if a.as_int().is_some() != b.as_int().is_some() => self.visit_sum(e),
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
        if e.node_count() < MEMO_MIN_NODES {
            return self.an.structural_info(e);
        }
        if let Some((_, i)) = self.info_memo.borrow().get(&e.node_id()) {
            return *i;
        }
        // One walk that shares what earlier calls found: a rewrite builds
        // new nodes over subtrees whose facts are known, so each distinct
        // node is walked once per simplification, not once per enclosing
        // result (a long product rebuilt step by step would be quadratic).
        let an = self.an;
        crate::walk::fold(e, &mut *self.info_memo.borrow_mut(), |n, kids| {
            an.node_info(n, kids)
        })
    }

    // ---------------------------------------------------------------- sums

    /// Collects the whole tree of `+`, `-` and products with constants under
    /// `e` into one linear form, simplifying each leaf once.
    fn visit_sum(&mut self, e: &Expr) -> Out {
        let mut s = Sum::default();
        self.collect(e, 1, &mut s)?;
        self.finish_sum(s)
    }

    /// Adds `coeff * e` to `s`, simplifying each leaf of the chain of `+`,
    /// `-` and products with literals once. The chain is walked on an
    /// explicit stack (a parsed sum of 50,000 terms is 50,000 nodes deep)
    /// and its terms are merged in one sort.
    ///
    /// The chain may share nodes (`e + e`, built by a program): each node's
    /// total coefficient is accumulated over its uses, parents before
    /// children, and each node is expanded once, so a graph that stands for
    /// an exponentially larger tree takes time in its own size.
    pub(crate) fn collect(&mut self, e: &Expr, coeff: i64, s: &mut Sum) -> Result<()> {
        if e.node_count() <= 64 {
            return self.collect_small(e, coeff, s);
        }
        // `k * x` for a product with a literal.
        fn scaled(n: &Expr) -> Option<(i64, &Expr)> {
            match n.kind() {
                ExprKind::Mul(a, b) => match (a.as_int(), b.as_int()) {
                    (_, Some(k)) => Some((k, a)),
                    (Some(k), None) => Some((k, b)),
                    _ => None,
                },
                _ => None,
            }
        }
        // Every node of the chain once, children after their parents
        // (the reverse of a post-order).
        let mut post: Vec<&Expr> = Vec::new();
        let mut seen: crate::IdSet<usize> = Default::default();
        let mut stack: Vec<(&Expr, bool)> = vec![(e, false)];
        while let Some((n, expanded)) = stack.pop() {
            if expanded {
                post.push(n);
                continue;
            }
            if !seen.insert(n.node_id()) {
                continue;
            }
            let kids: smallvec::SmallVec<[&Expr; 2]> = match n.kind() {
                ExprKind::Add(a, b) | ExprKind::Sub(a, b) => smallvec::smallvec![a, b],
                _ => match scaled(n) {
                    Some((_, x)) => smallvec::smallvec![x],
                    None => smallvec::SmallVec::new(),
                },
            };
            stack.push((n, true));
            // Reversed, so that leaves are met left to right.
            stack.extend(kids.into_iter().rev().map(|k| (k, false)));
        }
        let mut weight: crate::IdMap<usize, i64> = Default::default();
        weight.insert(e.node_id(), coeff);
        fn give(weight: &mut crate::IdMap<usize, i64>, n: &Expr, c: i64) -> Result<()> {
            let w = weight.entry(n.node_id()).or_insert(0);
            *w = num::add(*w, c)?;
            Ok(())
        }
        let mut leaves: smallvec::SmallVec<[sum::Term; 2]> = smallvec::SmallVec::new();
        for n in post.iter().rev() {
            let c = weight.get(&n.node_id()).copied().unwrap_or(0);
            match n.kind() {
                ExprKind::Add(a, b) => {
                    give(&mut weight, a, c)?;
                    give(&mut weight, b, c)?;
                }
                ExprKind::Sub(a, b) => {
                    give(&mut weight, a, c)?;
                    give(&mut weight, b, num::neg(c)?)?;
                }
                ExprKind::Int(v) => s.konst = num::add(s.konst, num::mul(*v, c)?)?,
                _ => {
                    if let Some((k, x)) = scaled(n) {
                        give(&mut weight, x, num::mul(c, k)?)?;
                        continue;
                    }
                    let (x, info) = self.visit(n)?;
                    match x.kind() {
                        ExprKind::Int(_) | ExprKind::Add(..) | ExprKind::Sub(..) => {
                            s.add_expr(&x, c)?
                        }
                        ExprKind::Mul(a, b) if a.as_int().is_some() || b.as_int().is_some() => {
                            s.add_expr(&x, c)?
                        }
                        _ => leaves.push(sum::Term {
                            atom: x,
                            coeff: c,
                            info: Some(info),
                        }),
                    }
                }
            }
        }
        s.add_terms(leaves)
    }

    /// [`Simplifier::collect`] for a small tree (shallow recursion, terms
    /// added one at a time).
    fn collect_small(&mut self, e: &Expr, coeff: i64, s: &mut Sum) -> Result<()> {
        match e.kind() {
            ExprKind::Add(a, b) => {
                self.collect_small(a, coeff, s)?;
                self.collect_small(b, coeff, s)
            }
            ExprKind::Sub(a, b) => {
                self.collect_small(a, coeff, s)?;
                self.collect_small(b, num::neg(coeff)?, s)
            }
            ExprKind::Int(v) => {
                s.konst = num::add(s.konst, num::mul(*v, coeff)?)?;
                Ok(())
            }
            ExprKind::Mul(a, b) if b.as_int().is_some() || a.as_int().is_some() => {
                let (k, x) = match b.as_int() {
                    Some(k) => (k, a),
                    None => (a.as_int().unwrap_or(1), b),
                };
                self.collect_small(x, num::mul(coeff, k)?, s)
            }
            _ => {
                let (x, info) = self.visit(e)?;
                match x.kind() {
                    ExprKind::Int(_) | ExprKind::Add(..) | ExprKind::Sub(..) => {
                        s.add_expr(&x, coeff)
                    }
                    ExprKind::Mul(a, b) if a.as_int().is_some() || b.as_int().is_some() => {
                        s.add_expr(&x, coeff)
                    }
                    _ => s.add_atom_info(&x, coeff, Some(info)),
                }
            }
        }
    }

    /// `e` simplified into its linear form (with the sum-level rules
    /// applied) and what is known about it, without building the sum.
    pub(crate) fn collect_sum(&mut self, e: &Expr) -> Result<(Sum, Info)> {
        let mut s = Sum::default();
        self.collect(e, 1, &mut s)?;
        self.sum_rules(&mut s)?;
        let info = self.sum_info(&s);
        Ok((s, info))
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
            let i = match t.info {
                Some(i) => i,
                None => self.info(&t.atom),
            };
            bound = bound.add(i.bound.mul_const(t.coeff));
            modular = modular.add(i.modular.mul(Modular::exact(t.coeff)));
        }
        if let Some(b) = self.split_index_bound(s) {
            bound = bound.intersect(b);
        }
        Info { bound, modular }
    }

    /// Bounds of a linear form holding an index `b * X` next to `X // m` or
    /// `X % m`, with `b * X` taken as `b * m * (X // m) + b * (X % m)`:
    /// `x * 2 - x % 4` (the smaller form of `(x // 4) * 8 + x % 4`) is at
    /// most `8 * max(x // 4) + 3`, which adding up `x * 2` and `-(x % 4)`
    /// does not see.
    fn split_index_bound(&self, s: &Sum) -> Option<ConstBound> {
        if s.terms.len() < 2 {
            return None;
        }
        let mut best: Option<ConstBound> = None;
        for t in &s.terms {
            let (ExprKind::FloorDiv(x, m) | ExprKind::FloorMod(x, m)) = t.atom.kind() else {
                continue;
            };
            let Some(mv) = m.as_int().filter(|&m| m > 1) else {
                continue;
            };
            if !sum::leading_atom(x).is_some_and(|a| s.terms.iter().any(|u| u.atom == *a)) {
                continue;
            }
            let Ok(xs) = Sum::of(x) else {
                continue;
            };
            let Some(b) = s.multiple_inside(&xs) else {
                continue;
            };
            if let Some(found) = self.split_bound_with(s, x, mv, &xs, b) {
                best = Some(best.map_or(found, |f| f.intersect(found)));
            }
        }
        best
    }

    /// The bound of [`Simplifier::split_index_bound`] for one index `b * X`
    /// (`X` is `x`, whose linear form is `xs`) and divisor `m`.
    fn split_bound_with(&self, s: &Sum, x: &Expr, m: i64, xs: &Sum, b: i64) -> Option<ConstBound> {
        let same = |e: &Expr| e == x;
        let mut kq = b.checked_mul(m)?;
        let mut kr = b;
        let mut bound = ConstBound::point(s.konst.checked_sub(b.checked_mul(xs.konst)?)?);
        for u in &s.terms {
            match u.atom.kind() {
                ExprKind::FloorDiv(y, d) if same(y) && d.as_int() == Some(m) => {
                    kq = kq.checked_add(u.coeff)?;
                    continue;
                }
                ExprKind::FloorMod(y, d) if same(y) && d.as_int() == Some(m) => {
                    kr = kr.checked_add(u.coeff)?;
                    continue;
                }
                _ => {}
            }
            let in_x = xs
                .terms
                .iter()
                .find(|v| v.atom == u.atom)
                .map_or(0, |v| v.coeff);
            let c = u.coeff.checked_sub(b.checked_mul(in_x)?)?;
            if c != 0 {
                let ub = u.info.map_or_else(|| self.info(&u.atom).bound, |f| f.bound);
                bound = bound.add(ub.mul_const(c));
            }
        }
        let xb = self.info(x).bound;
        let qb = xb.floor_div(ConstBound::point(m));
        let rb = xb
            .floor_mod(ConstBound::point(m))
            .intersect(ConstBound::new(0, m - 1));
        Some(bound.add(qb.mul_const(kq)).add(rb.mul_const(kr)))
    }

    /// Bounds of a linear form.
    pub(crate) fn sum_bound(&self, s: &Sum) -> ConstBound {
        self.sum_info(s).bound
    }

    /// Rules that look at several terms of a sum at once.
    ///
    /// They compare terms in pairs, so they run only on sums with at most
    /// [`MAX_PAIR_RULE_TERMS`] candidate terms; longer sums are only
    /// collected into their canonical linear form, which keeps every sum
    /// near-linear in its length.
    ///
    /// **Termination.** Two kinds of rule run here.
    /// - Rewrites (`fold_offset_into_div`, `merge_mod_pair`,
    ///   `merge_min_max_pair`) replace the sum by a strictly smaller one
    ///   (fewer nodes, [`Sum::cost`]) and simplify nothing but through the
    ///   division tables, whose firings decrease `rules::measure`. They run
    ///   on every sum.
    /// - Searches (`align_division_numerators`, `merge_div_mod`,
    ///   `merge_div_pairs`, `merge_halves`, `merge_selects`,
    ///   `absorb_into_min_max`, `factor_common`) build candidate forms of
    ///   the sum and simplify
    ///   their parts. A search keeps a candidate only when it is strictly
    ///   smaller than the sum and then looks again at the kept form, so it
    ///   runs at most as many rounds as the sum has nodes. Candidates are
    ///   simplified with the searches switched off (`in_search`): they get
    ///   the rewrites, the rule tables and the canonical linear form, but no
    ///   search of their own. A candidate can reproduce a sum of the same
    ///   size (`x // 2 + 2` tried as `(x + 4) // 2`), so nested searches
    ///   would need a depth cap; searches that do not nest need none.
    ///
    /// Each search is thus a bounded number of rounds of at most one
    /// candidate per pair of terms, each simplified without searching.
    pub(crate) fn sum_rules(&mut self, s: &mut Sum) -> Result<()> {
        if s.terms.len() + usize::from(s.konst != 0) < 2 {
            return Ok(());
        }
        // Every rule needs a division, modulo, select, min, max or product.
        let candidates = s
            .terms
            .iter()
            .filter(|t| {
                matches!(
                    t.atom.kind(),
                    ExprKind::FloorDiv(..)
                        | ExprKind::FloorMod(..)
                        | ExprKind::Select(..)
                        | ExprKind::Min(..)
                        | ExprKind::Max(..)
                        | ExprKind::Mul(..)
                )
            })
            .count();
        if candidates == 0 || s.terms.len() > MAX_PAIR_RULE_TERMS {
            return Ok(());
        }
        let outermost = !self.in_search;
        self.in_search = true;
        let r = self.run_sum_rules(s, outermost);
        self.in_search = !outermost;
        r
    }

    /// The sum-level rules in order; the searches only when `outermost`.
    fn run_sum_rules(&mut self, s: &mut Sum, outermost: bool) -> Result<()> {
        if outermost {
            self.align_division_numerators(s)?;
            self.merge_div_mod(s)?;
            self.merge_div_pairs(s)?;
            self.merge_halves(s)?;
        }
        self.fold_offset_into_div(s)?;
        self.merge_mod_pair(s)?;
        if outermost {
            self.merge_selects(s)?;
        }
        self.merge_min_max_pair(s)?;
        if outermost {
            self.absorb_into_min_max(s)?;
            self.factor_common(s)?;
        }
        Ok(())
    }

    /// `X // c * (k*c)` and `X % c * k` terms: trying the other form of each
    /// (`X % c = X - X // c * c`) and keeping it when the sum gets smaller
    /// turns `x // 3 * 3 + x % 3` into `x` and
    /// `(y + z) // 5 * 5 - y` into `z - (y + z) % 5`. A symbolic divisor
    /// `s` is the same identity over products: `s * (X // s)` is
    /// `X - X % s`, and `X % s` is `X - s * (X // s)`, so
    /// `(x // s) * s + x % s` is `x`.
    fn merge_div_mod(&mut self, s: &mut Sum) -> Result<()> {
        let mut i = 0;
        while i < s.terms.len() {
            let t = s.terms[i].clone();
            let Some(x) = div_mod_numerator(&t.atom) else {
                i += 1;
                continue;
            };
            // The other form only pays when something can cancel: a term of
            // X, or another division or modulo.
            let xs = Sum::of(&x)?;
            let cancels = s.terms.iter().enumerate().any(|(j, u)| {
                j != i && (xs.terms.iter().any(|v| v.atom == u.atom) || has_div_or_mod(&u.atom))
            });
            if !cancels {
                i += 1;
                continue;
            }
            let Some(split) = self.div_mod_other_form(&t)? else {
                i += 1;
                continue;
            };
            let mut alt = s.clone();
            alt.terms.remove(i);
            let ok = alt
                .add_expr(&split.x, split.x_coeff)
                .and_then(|_| alt.add_expr(&split.other, split.other_coeff));
            if ok.is_ok() && alt.cost() < s.cost() {
                *s = alt;
                i = 0;
                continue;
            }
            i += 1;
        }
        Ok(())
    }

    /// The other form of a term `k * (X // c * c)`, `k * (X % c)` (a
    /// constant `c` dividing the coefficient of a division), or of
    /// `k * (s * (X // s))`, `k * (X % s)` (a symbolic `s`): `X` and the
    /// remainder or the multiple of the quotient, with their coefficients.
    fn div_mod_other_form(&mut self, t: &sum::Term) -> Result<Option<OtherForm>> {
        let (x, d, is_div, k) = match t.atom.kind() {
            ExprKind::FloorDiv(x, c) => match c.as_int() {
                Some(cv) if cv != 0 && t.coeff.checked_rem(cv) == Some(0) => {
                    (x, c, true, num::floor_div(t.coeff, cv)?)
                }
                _ => return Ok(None),
            },
            ExprKind::FloorMod(x, c) if c.as_int() != Some(0) => (x, c, false, t.coeff),
            ExprKind::Mul(..) => match symbolic_multiple_of_quotient(&t.atom) {
                // coeff * s * (X // s) * p / q, an integer multiple k of
                // s * (X // s) when q divides coeff * p.
                Some((x, d, p, q))
                    if t.coeff.checked_mul(p).and_then(|v| v.checked_rem(q)) == Some(0) =>
                {
                    let k = num::floor_div(num::mul(t.coeff, p)?, q)?;
                    let (ix, id) = (self.info(&x), self.info(&d));
                    let (rem, _) = self.floor_mod_simplified(x.clone(), ix, d, id)?;
                    return Ok(Some(OtherForm {
                        x,
                        x_coeff: k,
                        other: rem,
                        other_coeff: num::neg(k)?,
                    }));
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        // `x` and `d` are simplified already (they are inside a term's atom).
        let (ix, id) = (self.info(x), self.info(d));
        let Some(cv) = d.as_int() else {
            // X % s = X - s * (X // s)
            let (q, _) = self.floor_div_simplified(x.clone(), ix, d.clone(), id)?;
            let (prod, _) = self.visit_mul_simplified(d.clone(), q)?;
            return Ok(Some(OtherForm {
                x: x.clone(),
                x_coeff: k,
                other: prod,
                other_coeff: num::neg(k)?,
            }));
        };
        // X // c * (k c) = k X - k (X % c);  X % c * k = k X - k c (X // c)
        let (other, other_coeff) = if is_div {
            let m = self.floor_mod_simplified(x.clone(), ix, d.clone(), id)?.0;
            (m, num::neg(k)?)
        } else {
            let q = self.floor_div_simplified(x.clone(), ix, d.clone(), id)?.0;
            (q, num::neg(num::mul(k, cv)?)?)
        };
        Ok(Some(OtherForm {
            x: x.clone(),
            x_coeff: k,
            other,
            other_coeff,
        }))
    }

    /// `N // c` next to a term `Y // c'` or `Y % c'` with `c = g * c'` is
    /// `Y // c'` when `N - g*Y` stays in `[0, g)`; then the div/mod pair can
    /// recombine: `((d1*2 + d0//64) % 3)*256 + ((d1*128 + d0)//192)*768`
    /// becomes `(d1*2 + d0//64)*256`.
    fn align_division_numerators(&mut self, s: &mut Sum) -> Result<()> {
        for i in 0..s.terms.len() {
            let ExprKind::FloorDiv(n, c) = s.terms[i].atom.kind() else {
                continue;
            };
            let Some(cv) = c.as_int().filter(|&v| v > 1) else {
                continue;
            };
            for j in 0..s.terms.len() {
                let (y, c2) = match s.terms[j].atom.kind() {
                    ExprKind::FloorDiv(y, c2) | ExprKind::FloorMod(y, c2) if i != j => (y, c2),
                    _ => continue,
                };
                let Some(c2v) = c2.as_int().filter(|&v| v > 0 && v < cv && cv % v == 0) else {
                    continue;
                };
                let g = cv / c2v;
                let mut r = Sum::of(n)?;
                r.add_expr(y, -g)?;
                let (_, ri) = self.finish_sum(r)?;
                if !(ri.bound.all_ge(0) && ri.bound.all_lt(g)) {
                    continue;
                }
                let mut alt = s.clone();
                let k = s.terms[i].coeff;
                alt.add_atom(&s.terms[i].atom, num::neg(k)?)?;
                alt.add_expr(&Expr::floor_div(y.clone(), c2.clone()), k)?;
                self.merge_div_mod(&mut alt)?;
                if alt.cost() < s.cost() {
                    *s = alt;
                    return self.align_division_numerators(s);
                }
            }
        }
        Ok(())
    }

    /// Two divisions (or a division and a modulo) by the same constant whose
    /// numerators differ by a constant `k`: `N1 // c` is rewritten as
    /// `N2 // c + (N2 % c + k) // c`, and `X // c + (X % c + R) // c` as
    /// `(X + R) // c`, when the sum gets smaller:
    /// `(x + 5) // 3 - x // 3` is `(x % 3 + 5) // 3`.
    fn merge_div_pairs(&mut self, s: &mut Sum) -> Result<()> {
        // Every pair is tried and the smallest result kept: the first
        // improvement found is not always the best (`(x + 1) // 2 - x // 2`
        // is `x % 2`, not `1 - (x + 1) % 2`).
        let n = s.terms.len();
        let mut best: Option<Sum> = None;
        for i in 0..n {
            let ExprKind::FloorDiv(n1, c) = s.terms[i].atom.kind() else {
                continue;
            };
            let Some(cv) = c.as_int().filter(|&v| v > 0) else {
                continue;
            };
            for j in 0..n {
                if i == j {
                    continue;
                }
                let (n2, c2) = match s.terms[j].atom.kind() {
                    ExprKind::FloorDiv(x, y) | ExprKind::FloorMod(x, y) => (x, y),
                    _ => continue,
                };
                if c2 != c {
                    continue;
                }
                let mut d = Sum::of(n1)?;
                d.add_expr(n2, -1)?;
                let mut alt = s.clone();
                let coeff = s.terms[i].coeff;
                alt.add_atom(&s.terms[i].atom, num::neg(coeff)?)?;
                if let Some(k) = d.as_const() {
                    // N1 // c == N2 // c + (N2 % c + k) // c
                    // (Each division's result is added unfinished, as in
                    // `fold_offset_into_div`.)
                    let n2s = Sum::of(n2)?;
                    self.divide_linear(n2s.clone(), rules::DivOp::Div, cv)?
                        .add_scaled_to(&mut alt, coeff)?;
                    let mut inner = Sum::constant(k);
                    self.divide_linear(n2s, rules::DivOp::Mod, cv)?
                        .add_to(&mut inner)?;
                    self.divide_linear(inner, rules::DivOp::Div, cv)?
                        .add_scaled_to(&mut alt, coeff)?;
                } else if matches!(s.terms[j].atom.kind(), ExprKind::FloorDiv(..))
                    && s.terms[j].coeff == coeff
                {
                    // X // c + (X % c + R) // c == (X + R) // c
                    let xm = Expr::floor_mod(n1.clone(), c.clone());
                    let (xm, _) = self.visit(&xm)?;
                    let mut inner = Sum::of(n2)?;
                    let Some(t) = inner.terms.iter().find(|t| t.atom == xm) else {
                        continue;
                    };
                    if t.coeff != 1 {
                        continue;
                    }
                    inner.add_atom(&xm, -1)?;
                    inner.add_expr(n1, 1)?;
                    let (inner, ii) = self.finish_sum(inner)?;
                    let (q, _) =
                        self.floor_div_simplified(inner, ii, c.clone(), Info::exact(cv))?;
                    alt.add_atom(&s.terms[j].atom, num::neg(coeff)?)?;
                    alt.add_expr(&q, coeff)?;
                } else {
                    continue;
                }
                let bar = best.as_ref().map_or(s.cost(), Sum::cost);
                if alt.cost() < bar {
                    best = Some(alt);
                }
            }
        }
        if let Some(b) = best {
            *s = b;
            return self.merge_div_pairs(s);
        }
        Ok(())
    }

    /// `k * X - k * (X // 2)` is `k * ((X + 1) // 2)` (the ceiling of a
    /// half), tried and kept when the sum gets smaller, usually by taking
    /// in the constant: `x - x // 2 + 3` is `(x + 7) // 2`.
    fn merge_halves(&mut self, s: &mut Sum) -> Result<()> {
        let mut i = 0;
        while i < s.terms.len() {
            let t = &s.terms[i];
            let ExprKind::FloorDiv(x, c) = t.atom.kind() else {
                i += 1;
                continue;
            };
            if !c.is_int(2) || t.coeff == i64::MIN {
                i += 1;
                continue;
            }
            let (x, k) = (x.clone(), -t.coeff);
            let Ok(xs) = Sum::of(&x) else {
                i += 1;
                continue;
            };
            // Only when the sum holds `k * X` (every term of it).
            let holds = !xs.terms.is_empty()
                && xs.terms.iter().all(|v| {
                    s.terms
                        .iter()
                        .any(|u| u.atom == v.atom && Some(u.coeff) == v.coeff.checked_mul(k))
                });
            if !holds {
                i += 1;
                continue;
            }
            let mut alt = s.clone();
            alt.terms.remove(i);
            let built = alt.add_sum(&xs, num::neg(k)?).and_then(|_| {
                let mut up = xs.clone();
                up.konst = num::add(up.konst, 1)?;
                let info = self.sum_info(&up);
                let (h, _) =
                    self.floor_div_simplified(up.rebuild(), info, Expr::int(2), Info::exact(2))?;
                alt.add_expr(&h, k)
            });
            // A candidate that overflows is no candidate.
            if built.is_ok() && self.fold_offset_into_div(&mut alt).is_ok() && alt.cost() < s.cost()
            {
                *s = alt;
                i = 0;
                continue;
            }
            i += 1;
        }
        Ok(())
    }

    /// `k * (X % c) + k * ((X + d) % c)` is a constant when it takes one
    /// value for every remainder `X % c` can have (by its bounds, at most
    /// [`REMAINDER_BUDGET`] of them): `x % 2 + (x + 1) % 2` is `1`. A
    /// rewrite to a smaller sum (two terms become part of the constant).
    fn merge_mod_pair(&mut self, s: &mut Sum) -> Result<()> {
        let is_mod = |t: &sum::Term| matches!(t.atom.kind(), ExprKind::FloorMod(_, c) if c.as_int().is_some_and(|c| c >= 2));
        if s.terms.iter().filter(|t| is_mod(t)).count() < 2 {
            return Ok(());
        }
        for i in 0..s.terms.len() {
            let ExprKind::FloorMod(a, c) = s.terms[i].atom.kind() else {
                continue;
            };
            let Some(cv) = c.as_int().filter(|&c| c >= 2) else {
                continue;
            };
            for j in i + 1..s.terms.len() {
                let (t, u) = (&s.terms[i], &s.terms[j]);
                let ExprKind::FloorMod(b, c2) = u.atom.kind() else {
                    continue;
                };
                if !c2.is_int(cv) || t.coeff != u.coeff {
                    continue;
                }
                // The difference of the numerators; one that overflows is
                // not a constant this rewrite can use.
                let Some(dv) = Sum::of(b)
                    .and_then(|mut d| d.add_expr(a, -1).map(|_| d))
                    .ok()
                    .and_then(|d| d.as_const())
                else {
                    continue;
                };
                let r = t.info.unwrap_or_else(|| self.info(&t.atom)).bound;
                let (lo, hi) = (r.min.max(0), r.max.min(cv - 1));
                if i128::from(hi) - i128::from(lo) >= i128::from(REMAINDER_BUDGET) {
                    continue;
                }
                let mut value = None;
                let mut one_value = lo <= hi;
                for rv in lo..=hi {
                    // In i128: `rv + (d mod c)` may pass i64 for a modulus
                    // near its end; `v` is below `2c`.
                    let (rw, cw) = (i128::from(rv), i128::from(cv));
                    let Ok(v) = i64::try_from(rw + (rw + i128::from(dv)).rem_euclid(cw)) else {
                        one_value = false;
                        break;
                    };
                    one_value &= value.is_none_or(|w| w == v);
                    value = Some(v);
                }
                let konst = value
                    .filter(|_| one_value)
                    .and_then(|v| t.coeff.checked_mul(v))
                    .and_then(|kv| s.konst.checked_add(kv));
                if let Some(konst) = konst {
                    s.konst = konst;
                    s.terms.remove(j);
                    s.terms.remove(i);
                    return self.merge_mod_pair(s);
                }
            }
        }
        Ok(())
    }

    /// `X // c + k` is `(X + k*c) // c`, and `-(X // c)` is
    /// `(c - 1 - X) // c` (the ceiling idiom), when that is smaller:
    /// `(i - 1) // 2 + 1` is `(i + 1) // 2`.
    fn fold_offset_into_div(&mut self, s: &mut Sum) -> Result<()> {
        for i in 0..s.terms.len() {
            let ExprKind::FloorDiv(x, c) = s.terms[i].atom.kind() else {
                continue;
            };
            let Some(cv) = c.as_int().filter(|&v| v > 0) else {
                continue;
            };
            let k = s.terms[i].coeff;
            // With nothing to move in (no constant, no sign), the
            // alternative is the same division again.
            if (k != 1 && k != -1) || (k == 1 && s.konst == 0) {
                continue;
            }
            let mut num = Sum::of(x)?;
            if k == -1 {
                // -(X // c) == (c - 1 - X) // c
                num.scale(-1)?;
                num.konst = num::add(num.konst, cv - 1)?;
            }
            let mut alt = s.clone();
            alt.terms.remove(i);
            // The sum's constant moves inside when it is a whole number of c.
            if let Some(kc) = alt.konst.checked_mul(cv) {
                num.konst = num::add(num.konst, kc)?;
                alt.konst = 0;
            }
            // The division's own result is added unfinished: finishing it
            // would run the sum rules on it, one level deeper.
            self.divide_linear(num, rules::DivOp::Div, cv)?
                .add_to(&mut alt)?;
            if alt.cost() < s.cost() {
                *s = alt;
                return Ok(());
            }
        }
        Ok(())
    }

    /// `min(a, b) + max(a, b)` is `a + b`.
    fn merge_min_max_pair(&mut self, s: &mut Sum) -> Result<()> {
        for i in 0..s.terms.len() {
            let ExprKind::Min(p, q) = s.terms[i].atom.kind() else {
                continue;
            };
            let found = s.terms.iter().position(|t| {
                t.coeff == s.terms[i].coeff
                    && matches!(t.atom.kind(), ExprKind::Max(r, u) if (p == r && q == u) || (p == u && q == r))
            });
            if let Some(j) = found {
                let (p, q, k) = (p.clone(), q.clone(), s.terms[i].coeff);
                let (mi, ma) = (s.terms[i].atom.clone(), s.terms[j].atom.clone());
                s.add_atom(&mi, num::neg(k)?)?;
                s.add_atom(&ma, num::neg(k)?)?;
                s.add_expr(&p, k)?;
                s.add_expr(&q, k)?;
                return self.merge_min_max_pair(s);
            }
        }
        Ok(())
    }

    /// `min(a, b) + r` is `min(a + r, b + r)` and `r - min(a, b)` is
    /// `max(r - a, r - b)`, when that is smaller: `max(x, y - 10) + 10` is
    /// `max(x + 10, y)`.
    fn absorb_into_min_max(&mut self, s: &mut Sum) -> Result<()> {
        for i in 0..s.terms.len() {
            let t = &s.terms[i];
            let (a, b, is_min) = match t.atom.kind() {
                ExprKind::Min(a, b) => (a, b, true),
                ExprKind::Max(a, b) => (a, b, false),
                _ => continue,
            };
            if t.coeff != 1 && t.coeff != -1 {
                continue;
            }
            let k = t.coeff;
            let mut rest = s.clone();
            rest.add_atom(&t.atom, -k)?;
            let side = |x: &Expr| -> Result<Sum> {
                let mut r = rest.clone();
                r.add_expr(x, k)?;
                Ok(r)
            };
            let (sa, sb) = (side(a)?, side(b)?);
            // Pushing the rest in can only shrink the sum when it cancels
            // something on one side (`max(x, y - 10) + 10`); otherwise both
            // sides just grow, and their comparison is that of `a` and `b`,
            // which the operand already settled.
            let terms = |x: &Sum| x.terms.len() + usize::from(x.konst != 0);
            let cancels = |x: &Expr, sx: &Sum| -> Result<bool> {
                Ok(terms(sx) < terms(&rest) + terms(&Sum::of(x)?))
            };
            if !cancels(a, &sa)? && !cancels(b, &sb)? {
                continue;
            }
            let (ea, ia) = self.finish_sum(sa)?;
            let (eb, ib) = self.finish_sum(sb)?;
            let op_is_min = if k == 1 { is_min } else { !is_min };
            let (m, _) = self.min_max_simplified(ea, ia, eb, ib, op_is_min)?;
            let alt = Sum::of(&m)?;
            if alt.cost() < s.cost() {
                *s = alt;
                return Ok(());
            }
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
            let found = (i + 1..s.terms.len())
                .find(|&j| matches!(s.terms[j].atom.kind(), ExprKind::Select(c2, ..) if c2 == c1));
            let Some(j) = found else {
                i += 1;
                continue;
            };
            let ExprKind::Select(_, a2, b2) = s.terms[j].atom.kind() else {
                unreachable!()
            };
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
            if alt.cost() < s.cost() {
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
        // Long chains of products are flattened on an explicit stack;
        // short ones go pairwise.
        if a.node_count() + b.node_count() > 2 * MAX_PAIR_RULE_TERMS {
            let mut leaves: Vec<&Expr> = Vec::new();
            let mut stack: smallvec::SmallVec<[&Expr; 8]> = smallvec::smallvec![b, a];
            while let Some(e) = stack.pop() {
                match e.kind() {
                    ExprKind::Mul(x, y) => {
                        stack.push(y);
                        stack.push(x);
                    }
                    _ => leaves.push(e),
                }
            }
            if leaves.len() > MAX_PAIR_RULE_TERMS {
                return self.visit_long_product(&leaves);
            }
        }
        let (a, _) = self.visit(a)?;
        let (b, _) = self.visit(b)?;
        self.visit_mul_simplified(a, b)
    }

    /// A product of many factors: each simplified once, constants
    /// multiplied out, the rest one sorted factor list.
    fn visit_long_product(&mut self, leaves: &[&Expr]) -> Out {
        let mut fs = product::Factors::new();
        let mut k = 1i64;
        for leaf in leaves {
            let (f, _) = self.visit(leaf)?;
            let mut s = Sum::of(&f)?;
            // A factor `c * X` contributes `c` to the constant.
            if let ([t], 0) = (s.terms.as_slice(), s.konst) {
                k = num::mul(k, t.coeff)?;
                let atom = t.atom.clone();
                s.terms.clear();
                match product::factors(&atom) {
                    Some((more, c)) => {
                        k = num::mul(k, c)?;
                        fs.extend(more);
                    }
                    None => fs.push(atom),
                }
            } else if let Some(c) = s.as_const() {
                k = num::mul(k, c)?;
            } else {
                fs.push(f);
            }
        }
        if k == 0 {
            return Ok((Expr::int(0), Info::exact(0)));
        }
        fs.sort_by(|a, b| a.structural_cmp(b));
        let e = product::build(&fs);
        let mut s = Sum::default();
        s.add_atom(&e, k)?;
        self.finish_sum(s)
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
        // min(a, b) * max(a, b) == a * b
        if let (Some((p, q)), Some((r, t))) = (min_operands(&a, &b), max_operands(&a, &b)) {
            if (p == r && q == t) || (p == t && q == r) {
                return self.visit_mul_simplified(p.clone(), q.clone());
            }
        }
        // Products of non-constants are sorted factor lists with the
        // constant outside, so `y * x` and `x * y` are the same term.
        let (Some((fa, ka)), Some((fb, kb))) = (product::factors(&a), product::factors(&b)) else {
            let e = Expr::mul(a, b);
            let info = self.info(&e);
            return Ok((e, info));
        };
        let k = num::mul(ka, kb)?;
        let e = product::build(&product::merge(&fa, &fb));
        if k == 1 {
            let info = self.info(&e);
            return Ok((e, info));
        }
        let mut s = Sum::default();
        s.add_atom(&e, k)?;
        self.finish_sum(s)
    }
}

fn min_operands<'e>(a: &'e Expr, b: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
    match (a.kind(), b.kind()) {
        (ExprKind::Min(p, q), _) | (_, ExprKind::Min(p, q)) => Some((p, q)),
        _ => None,
    }
}

fn max_operands<'e>(a: &'e Expr, b: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
    match (a.kind(), b.kind()) {
        (ExprKind::Max(p, q), _) | (_, ExprKind::Max(p, q)) => Some((p, q)),
        _ => None,
    }
}

/// A term's other form: `x_coeff * x + other_coeff * other`.
struct OtherForm {
    x: Expr,
    x_coeff: i64,
    other: Expr,
    other_coeff: i64,
}

/// `X` when `e` is `X // c`, `X % d` or a product `s * (X // s)`: the
/// terms `merge_div_mod` may write in another form.
fn div_mod_numerator(e: &Expr) -> Option<Expr> {
    match e.kind() {
        ExprKind::FloorDiv(x, c) if c.as_int().is_some() => Some(x.clone()),
        ExprKind::FloorMod(x, _) => Some(x.clone()),
        ExprKind::Mul(..) => symbolic_multiple_of_quotient(e).map(|(x, ..)| x),
        _ => None,
    }
}

/// Whether `e` is a division or a modulo, or a product with one among its
/// factors.
fn has_div_or_mod(e: &Expr) -> bool {
    let is = |e: &Expr| matches!(e.kind(), ExprKind::FloorDiv(..) | ExprKind::FloorMod(..));
    is(e)
        || (matches!(e.kind(), ExprKind::Mul(..))
            && product::factors(e).is_some_and(|(fs, _)| fs.iter().any(is)))
}

/// `(X, s, p, q)` when the product `e` is `s * (X // s) * p / q`, for a
/// divisor `s` that is not a constant: the factors of `e` are one quotient
/// `X // s` and the non-constant factors of `s`, `p` is the constant
/// factor of `e` and `q` that of `s`.
fn symbolic_multiple_of_quotient(e: &Expr) -> Option<(Expr, Expr, i64, i64)> {
    let (fs, k) = product::factors(e)?;
    for (i, f) in fs.iter().enumerate() {
        let ExprKind::FloorDiv(x, d) = f.kind() else {
            continue;
        };
        if d.as_int().is_some() {
            continue;
        }
        let (ds, kd) = product::factors(d)?;
        let mut rest = fs.clone();
        rest.remove(i);
        if rest.len() == ds.len() && product::divide(&rest, &ds).is_some_and(|r| r.is_empty()) {
            return Some((x.clone(), d.clone(), k, kd));
        }
    }
    None
}

/// `e / f` when `f` is one factor of the product `e` (or `e` itself).
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
