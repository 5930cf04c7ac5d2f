//! Rewriting index expressions into sums of splits of iterator marks.
//!
//! The [`Rewriter`] holds one detection run; its division rules live in
//! `divide`, fusion in `fuse` and predicate bounds in `predicate`.

use super::{
    CheckLevel, DetectOptions, IterMapError, IterMapErrorKind as Kind, IterMark, IterSplit,
    IterSum, MarkSource, PaddedMark,
};
use crate::analyzer::Analyzer;
use crate::expr::{Expr, ExprKind, Var};
use crate::range::Range;
use std::collections::HashMap;
use std::sync::Arc;

pub(super) type Result<T> = std::result::Result<T, IterMapError>;

/// The analyzer of `an` plus the iterator ranges of `dom` (iterators of
/// extent one are left unbound when they are to stay iterators).
pub(crate) fn domain_analyzer(
    dom: &HashMap<Var, Range>,
    an: &Analyzer,
    bind_trivial: bool,
) -> Analyzer {
    let mut out = an.clone();
    for (v, r) in dom {
        if !bind_trivial && r.extent.is_int(1) {
            continue;
        }
        out.bind(v, r.clone());
    }
    out
}

/// One detection run: the iterator marks, the predicate's narrowed marks and
/// the padded marks made so far.
pub(crate) struct Rewriter {
    pub(super) an: Analyzer,
    pub(super) var_map: HashMap<Var, IterSum>,
    /// The mark of every iterator of extent above one, for the bijective
    /// check.
    pub(crate) input_marks: Vec<(Var, Arc<IterMark>)>,
    pub(super) constraints: Vec<super::predicate::Constraint>,
    pub(super) padded: Vec<PaddedMark>,
    /// Put non-affine terms into the base instead of failing.
    pub(super) lenient: bool,
    pub(super) check_level: CheckLevel,
    /// Split a divided `v + c` as the one mark `v + c`
    /// ([`DetectOptions::offset_marks`]).
    pub(super) offset_marks: bool,
    /// Let a mark's top digits take a radix above their values in a fusion
    /// ([`DetectOptions::widen_top_digits`]).
    pub(super) widen_top_digits: bool,
}

pub(super) fn err<T>(kind: Kind, message: String) -> Result<T> {
    Err(IterMapError::new(kind, message))
}

impl Rewriter {
    pub(crate) fn new(
        dom: &HashMap<Var, Range>,
        an: &Analyzer,
        options: &DetectOptions,
        lenient: bool,
    ) -> Result<Rewriter> {
        let an = domain_analyzer(dom, an, options.simplify_trivial_iterators);
        let mut rw = Rewriter {
            an,
            var_map: HashMap::new(),
            input_marks: Vec::new(),
            constraints: Vec::new(),
            padded: Vec::new(),
            lenient,
            check_level: options.check_level,
            offset_marks: options.offset_marks,
            widen_top_digits: options.widen_top_digits,
        };
        let mut vars: Vec<&Var> = dom.keys().collect();
        vars.sort();
        for v in vars {
            let r = &dom[v];
            let extent = rw.simp(&r.extent)?;
            let min = rw.simp(&r.min)?;
            if extent.is_int(1) && options.simplify_trivial_iterators {
                rw.var_map.insert(v.clone(), IterSum::constant(min));
                continue;
            }
            if !rw.an.can_prove(&Expr::gt(extent.clone(), Expr::int(0))) {
                return err(
                    Kind::Arith,
                    format!(
                        "the extent {extent} of iterator {v} is not known to be positive; bound it"
                    ),
                );
            }
            let source = if min.is_int(0) {
                v.expr()
            } else {
                Expr::sub(v.expr(), min.clone())
            };
            let mark = Arc::new(IterMark {
                source: MarkSource::Iter(source),
                extent: extent.clone(),
            });
            if !extent.is_int(1) {
                rw.input_marks.push((v.clone(), mark.clone()));
            }
            let split = IterSplit {
                source: mark,
                lower_factor: Expr::int(1),
                extent,
                scale: Expr::int(1),
            };
            rw.var_map.insert(
                v.clone(),
                IterSum {
                    args: vec![split],
                    base: min,
                },
            );
        }
        Ok(rw)
    }

    // ------------------------------------------------------------ proofs

    pub(super) fn simp(&self, e: &Expr) -> Result<Expr> {
        Ok(self.an.simplify(e)?)
    }

    pub(super) fn prove_eq(&self, a: &Expr, b: &Expr) -> bool {
        a == b || matches!(self.an.simplify(&Expr::sub(a.clone(), b.clone())), Ok(d) if d.is_int(0))
    }

    pub(super) fn prove_divisible(&self, a: &Expr, d: &Expr) -> bool {
        if d.is_int(1) {
            return true;
        }
        matches!(self.an.simplify(&Expr::floor_mod(a.clone(), d.clone())), Ok(r) if r.is_int(0))
    }

    pub(super) fn prove(&self, cond: Expr) -> bool {
        self.an.can_prove(&cond)
    }

    pub(super) fn const_of(&self, e: &Expr) -> Option<i64> {
        e.as_int()
            .or_else(|| self.an.simplify(e).ok().and_then(|s| s.as_int()))
    }

    pub(super) fn mul(&self, a: &Expr, b: &Expr) -> Result<Expr> {
        self.simp(&Expr::mul(a.clone(), b.clone()))
    }

    pub(super) fn div(&self, a: &Expr, b: &Expr) -> Result<Expr> {
        self.simp(&Expr::floor_div(a.clone(), b.clone()))
    }

    pub(super) fn uses_iter(&self, e: &Expr) -> bool {
        let mut found = false;
        e.for_each_var(&mut |v| found |= self.var_map.get(v).is_some_and(|s| !s.args.is_empty()));
        found
    }

    // ------------------------------------------------------------ rewriting

    /// `e` as a sum of splits of iterator marks (not fused).
    pub(crate) fn rewrite(&mut self, e: &Expr) -> Result<IterSum> {
        if !self.uses_iter(e) {
            let base = e.substitute(&mut |v| self.var_map.get(v).map(|s| s.base.clone()));
            return Ok(IterSum::constant(base));
        }
        match e.kind() {
            ExprKind::Var(v) => Ok(self.var_map[v].clone()),
            ExprKind::Add(a, b) => {
                let (a, b) = (self.rewrite(a)?, self.rewrite(b)?);
                self.add(a, b)
            }
            ExprKind::Sub(a, b) => {
                let (a, b) = (self.rewrite(a)?, self.rewrite(b)?);
                let nb = self.scale(b, &Expr::int(-1))?;
                self.add(a, nb)
            }
            ExprKind::Mul(a, b) => {
                let (ra, rb) = (self.rewrite(a)?, self.rewrite(b)?);
                match (ra.is_constant(), rb.is_constant()) {
                    (_, true) => self.scale(ra, &rb.base),
                    (true, false) => self.scale(rb, &ra.base),
                    (false, false) => {
                        self.opaque(e, Kind::NonAffine, "a product of two iterator terms")
                    }
                }
            }
            ExprKind::FloorDiv(a, b) => self.div_mod(e, a, b, true),
            ExprKind::FloorMod(a, b) => self.div_mod(e, a, b, false),
            _ => self.opaque(
                e,
                Kind::NonAffine,
                "iterator maps hold only +, -, * by constants, // and %",
            ),
        }
    }

    /// A term that is not affine in the iterators: part of the base in
    /// lenient mode, an error of `kind` otherwise.
    pub(super) fn opaque(&self, e: &Expr, kind: Kind, why: &str) -> Result<IterSum> {
        if self.lenient {
            return Ok(IterSum::constant(e.clone()));
        }
        let what = if kind == Kind::NonAffine {
            "non-affine term"
        } else {
            "unsupported division"
        };
        err(kind, format!("{what} {e}: {why}"))
    }

    pub(super) fn same_digits(a: &IterSplit, b: &IterSplit) -> bool {
        a.lower_factor == b.lower_factor && a.extent == b.extent && a.source == b.source
    }

    /// Adds `s` to a list of splits, merging it with a split of the same
    /// digits and then with neighbouring digits of the same mark.
    fn push_split(&self, args: &mut Vec<IterSplit>, s: IterSplit) -> Result<()> {
        if let Some(i) = args.iter().position(|a| Self::same_digits(a, &s)) {
            let scale = self.simp(&Expr::add(args[i].scale.clone(), s.scale))?;
            if scale.is_int(0) {
                args.remove(i);
            } else {
                args[i].scale = scale;
            }
        } else if !s.scale.is_int(0) {
            args.push(s);
        }
        self.merge_neighbours(args)
    }

    /// `(m // l) % e * s + (m // (l*e)) % f * (s*e)` is `(m // l) % (e*f) * s`:
    /// merging them keeps `x // 4 * 4 + x % 4` from looking like two terms.
    fn merge_neighbours(&self, args: &mut Vec<IterSplit>) -> Result<()> {
        'again: loop {
            for i in 0..args.len() {
                for j in 0..args.len() {
                    if i == j || args[i].source != args[j].source {
                        continue;
                    }
                    let (lo, hi) = (&args[i], &args[j]);
                    let next_factor = self.mul(&lo.lower_factor, &lo.extent)?;
                    let next_scale = self.mul(&lo.scale, &lo.extent)?;
                    if self.prove_eq(&hi.lower_factor, &next_factor)
                        && self.prove_eq(&hi.scale, &next_scale)
                    {
                        let mut extent = self.mul(&lo.extent, &hi.extent)?;
                        // A padded top split (`x // 4` of `x` in [0, 6) has
                        // extent 2) merges into the exact top digits.
                        let mark_extent = &lo.source.extent;
                        if self.prove_divisible(mark_extent, &lo.lower_factor) {
                            let top = self.div(mark_extent, &lo.lower_factor)?;
                            if self.prove(Expr::le(top.clone(), extent.clone())) {
                                extent = top;
                            }
                        }
                        let merged = IterSplit {
                            source: lo.source.clone(),
                            lower_factor: lo.lower_factor.clone(),
                            extent,
                            scale: lo.scale.clone(),
                        };
                        let (a, b) = (i.min(j), i.max(j));
                        args.remove(b);
                        args[a] = merged;
                        continue 'again;
                    }
                }
            }
            return Ok(());
        }
    }

    pub(super) fn add(&self, mut a: IterSum, b: IterSum) -> Result<IterSum> {
        for s in b.args {
            self.push_split(&mut a.args, s)?;
        }
        a.base = self.simp(&Expr::add(a.base, b.base))?;
        Ok(a)
    }

    pub(super) fn scale(&self, mut a: IterSum, k: &Expr) -> Result<IterSum> {
        if k.is_int(0) {
            return Ok(IterSum::constant(Expr::int(0)));
        }
        for s in &mut a.args {
            s.scale = self.mul(&s.scale, k)?;
        }
        a.base = self.mul(&a.base, k)?;
        Ok(a)
    }

    pub(crate) fn padded_marks(&self) -> Vec<PaddedMark> {
        self.padded.clone()
    }

    pub(crate) fn is_padded(&self, mark: &IterMark) -> Option<&PaddedMark> {
        self.padded.iter().find(|p| *p.mark == *mark)
    }

    pub(crate) fn analyzer(&self) -> &Analyzer {
        &self.an
    }

    /// Sorts splits by decreasing scale where the difference has a known
    /// sign (stable otherwise).
    pub(crate) fn sort_by_scale(&self, mut sum: IterSum) -> IterSum {
        // Selection sort, as scales only partly compare: take the split
        // whose scale is provably at least the most others (the first on
        // ties).
        let mut rest = std::mem::take(&mut sum.args);
        while !rest.is_empty() {
            let dominated = |i: usize| {
                (0..rest.len())
                    .filter(|&j| {
                        j != i && self.prove(Expr::ge(rest[i].scale.clone(), rest[j].scale.clone()))
                    })
                    .count()
            };
            let counts: Vec<usize> = (0..rest.len()).map(dominated).collect();
            let best = counts.iter().copied().max().unwrap_or(0);
            let pick = counts.iter().position(|&c| c == best).unwrap_or(0);
            sum.args.push(rest.remove(pick));
        }
        if let Ok(b) = self.simp(&sum.base) {
            sum.base = b;
        }
        sum
    }
}
