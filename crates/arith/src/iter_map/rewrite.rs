//! Rewriting index expressions into sums of splits, fusing sums into marks,
//! and turning predicates into narrowed marks.

use super::{
    CheckLevel, DetectOptions, IterMapError, IterMapErrorKind as Kind, IterMark, IterSplit, IterSum,
    MarkSource, PaddedMark,
};
use crate::analyzer::Analyzer;
use crate::expr::{CmpOp, Expr, ExprKind, Var};
use crate::num;
use crate::range::Range;
use std::collections::HashMap;
use std::sync::Arc;

type Result<T> = std::result::Result<T, IterMapError>;

/// A bound from the predicate on a fused sum, turned into a narrowed mark.
struct Constraint {
    /// The splits of the bounded sum, scales divided by the smallest one.
    key: Vec<IterSplit>,
    /// The narrowed mark: the sum (in units of its smallest scale) is
    /// `mark + offset`.
    mark: Arc<IterMark>,
    offset: Expr,
    /// Inclusive lower and exclusive upper bound on the sum, in units of the
    /// smallest scale, once merged over all predicate terms on the same sum.
    lower: Option<Expr>,
    upper: Option<Expr>,
    /// Whether an index or another bound used this mark.
    used: bool,
    /// The predicate term, for messages.
    text: String,
}

/// The analyzer of `an` plus the iterator ranges of `dom` (iterators of
/// extent one are left unbound when they are to stay iterators).
pub(crate) fn domain_analyzer(dom: &HashMap<Var, Range>, an: &Analyzer, bind_trivial: bool) -> Analyzer {
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
    an: Analyzer,
    var_map: HashMap<Var, IterSum>,
    /// The mark of every iterator of extent above one, for the bijective
    /// check.
    pub(crate) input_marks: Vec<(Var, Arc<IterMark>)>,
    constraints: Vec<Constraint>,
    padded: Vec<PaddedMark>,
    /// Put non-affine terms into the base instead of failing.
    lenient: bool,
    check_level: CheckLevel,
}

fn err<T>(kind: Kind, message: String) -> Result<T> {
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
                    format!("the extent {extent} of iterator {v} is not known to be positive; bound it"),
                );
            }
            let source = if min.is_int(0) { v.expr() } else { Expr::sub(v.expr(), min.clone()) };
            let mark = Arc::new(IterMark { source: MarkSource::Iter(source), extent: extent.clone() });
            if !extent.is_int(1) {
                rw.input_marks.push((v.clone(), mark.clone()));
            }
            let split = IterSplit { source: mark, lower_factor: Expr::int(1), extent, scale: Expr::int(1) };
            rw.var_map.insert(v.clone(), IterSum { args: vec![split], base: min });
        }
        Ok(rw)
    }

    // ------------------------------------------------------------ proofs

    fn simp(&self, e: &Expr) -> Result<Expr> {
        Ok(self.an.simplify(e)?)
    }

    fn prove_eq(&self, a: &Expr, b: &Expr) -> bool {
        a == b || matches!(self.an.simplify(&Expr::sub(a.clone(), b.clone())), Ok(d) if d.is_int(0))
    }

    fn prove_divisible(&self, a: &Expr, d: &Expr) -> bool {
        if d.is_int(1) {
            return true;
        }
        matches!(self.an.simplify(&Expr::floor_mod(a.clone(), d.clone())), Ok(r) if r.is_int(0))
    }

    fn prove(&self, cond: Expr) -> bool {
        self.an.can_prove(&cond)
    }

    fn const_of(&self, e: &Expr) -> Option<i64> {
        e.as_int().or_else(|| self.an.simplify(e).ok().and_then(|s| s.as_int()))
    }

    fn mul(&self, a: &Expr, b: &Expr) -> Result<Expr> {
        self.simp(&Expr::mul(a.clone(), b.clone()))
    }

    fn div(&self, a: &Expr, b: &Expr) -> Result<Expr> {
        self.simp(&Expr::floor_div(a.clone(), b.clone()))
    }

    fn uses_iter(&self, e: &Expr) -> bool {
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
                    (false, false) => self.opaque(e, "a product of two iterator terms"),
                }
            }
            ExprKind::FloorDiv(a, b) => self.div_mod(e, a, b, true),
            ExprKind::FloorMod(a, b) => self.div_mod(e, a, b, false),
            _ => self.opaque(e, "an operator that iterator maps do not support"),
        }
    }

    /// A term that is not affine in the iterators: part of the base in
    /// lenient mode, an error otherwise.
    fn opaque(&self, e: &Expr, what: &str) -> Result<IterSum> {
        if self.lenient {
            return Ok(IterSum::constant(e.clone()));
        }
        let kind = if what.contains("divisor") { Kind::BadDivisor } else { Kind::NonAffine };
        err(kind, format!("non-affine term {e}: {what}"))
    }

    fn same_digits(a: &IterSplit, b: &IterSplit) -> bool {
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
                    if self.prove_eq(&hi.lower_factor, &next_factor) && self.prove_eq(&hi.scale, &next_scale) {
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

    fn add(&self, mut a: IterSum, b: IterSum) -> Result<IterSum> {
        for s in b.args {
            self.push_split(&mut a.args, s)?;
        }
        a.base = self.simp(&Expr::add(a.base, b.base))?;
        Ok(a)
    }

    fn scale(&self, mut a: IterSum, k: &Expr) -> Result<IterSum> {
        if k.is_int(0) {
            return Ok(IterSum::constant(Expr::int(0)));
        }
        for s in &mut a.args {
            s.scale = self.mul(&s.scale, k)?;
        }
        a.base = self.mul(&a.base, k)?;
        Ok(a)
    }

    // ------------------------------------------------------------ division

    fn div_mod(&mut self, e: &Expr, a: &Expr, b: &Expr, is_div: bool) -> Result<IterSum> {
        let rb = self.rewrite(b)?;
        if !rb.is_constant() {
            return self.opaque(e, "the divisor uses an iterator");
        }
        let d = self.simp(&rb.base)?;
        if !self.prove(Expr::gt(d.clone(), Expr::int(0))) {
            return self.opaque(e, "the divisor is not known to be positive");
        }
        let ra = self.rewrite(a)?;
        if ra.is_constant() {
            let base = if is_div { Expr::floor_div(ra.base, d) } else { Expr::floor_mod(ra.base, d) };
            return Ok(IterSum::constant(self.simp(&base)?));
        }
        let (split, offset) = self.fuse(&ra.args, None)?;
        let base = self.simp(&Expr::add(ra.base, offset))?;
        self.split_div_mod(e, split, base, &d, is_div)
    }

    /// `(split + base) // d` or `% d` for one split (any scale).
    fn split_div_mod(&mut self, e: &Expr, split: IterSplit, base: Expr, d: &Expr, is_div: bool) -> Result<IterSum> {
        let s = split.scale.clone();
        if d.is_int(1) {
            return Ok(if is_div {
                IterSum { args: vec![split], base }
            } else {
                IterSum::constant(Expr::int(0))
            });
        }
        if self.prove_divisible(&s, d) {
            // (k*d*v + b) // d = k*v + b // d ;  (k*d*v + b) % d = b % d
            return if is_div {
                let scale = self.div(&s, d)?;
                let base = self.div(&base, d)?;
                Ok(IterSum { args: vec![IterSplit { scale, ..split }], base })
            } else {
                Ok(IterSum::constant(self.simp(&Expr::floor_mod(base, d.clone()))?))
            };
        }
        if !self.prove_divisible(d, &s) {
            return err(
                Kind::CannotSplit,
                format!("cannot split {e}: the divisor {d} and the scale {s} of the dividend do not divide each other"),
            );
        }
        // (s*v + b) with b = s*b1 + b0, 0 <= b0 < s:
        //   // (s*d1) = (v + b1) // d1 ;  % (s*d1) = s * ((v + b1) % d1) + b0
        let d1 = self.div(d, &s)?;
        let b1 = self.div(&base, &s)?;
        let b0 = self.simp(&Expr::floor_mod(base, s.clone()))?;
        let unit = IterSplit { scale: Expr::int(1), ..split };
        let inner = self.unit_div_mod(e, unit, b1, &d1, is_div)?;
        if is_div {
            Ok(inner)
        } else {
            let scaled = self.scale(inner, &s)?;
            self.add(scaled, IterSum::constant(b0))
        }
    }

    /// `(v + b) // d` or `% d` where `v` is a split of scale one.
    fn unit_div_mod(&mut self, e: &Expr, v: IterSplit, b: Expr, d: &Expr, is_div: bool) -> Result<IterSum> {
        let r = self.simp(&Expr::floor_mod(b.clone(), d.clone()))?;
        let q = self.div(&b, d)?;
        let mark_extent = v.source.extent.clone();
        let top = self.prove_eq(&self.mul(&v.lower_factor, &v.extent)?, &mark_extent);
        if r.is_int(0) && !is_div && self.prove(Expr::le(v.extent.clone(), d.clone())) {
            // The digits are already below `d`.
            return Ok(IterSum { args: vec![v], base: Expr::int(0) });
        }
        let (mark, lower_factor, extent) = if r.is_int(0) && self.prove_divisible(&v.extent, d) {
            let ext = if is_div { self.div(&v.extent, d)? } else { d.clone() };
            let lf = if is_div { self.mul(&v.lower_factor, d)? } else { v.lower_factor.clone() };
            (v.source.clone(), lf, ext)
        } else if r.is_int(0) && top && d.as_int().is_some() && v.extent.as_int().is_some() {
            // The split holds the top digits, so its modulo is the identity
            // and the digits above `d` are simply `mark // (lf * d)`; the
            // last of them may be partial (right padding).
            let (ext, dv) = (v.extent.as_int().unwrap_or(1), d.as_int().unwrap_or(1));
            let ext = if is_div { num::ceil_div(ext, dv)? } else { dv };
            let lf = if is_div { self.mul(&v.lower_factor, d)? } else { v.lower_factor.clone() };
            (v.source.clone(), lf, Expr::int(ext))
        } else {
            // Pad: a new mark `v + r` over `[0, roundup(extent + max r, d))`.
            let (Some(dv), Some(ext)) = (d.as_int(), self.const_of(&v.extent)) else {
                return err(
                    Kind::CannotSplit,
                    format!("cannot split {e}: padding needs a constant divisor and extent"),
                );
            };
            let r_max = self.an.const_int_bound(&r).max;
            if r_max == crate::POS_INF || self.an.const_int_bound(&r).min < 0 {
                return err(Kind::CannotSplit, format!("cannot split {e}: the offset {r} is unbounded"));
            }
            let padded_extent = num::mul(num::ceil_div(num::add(ext, r_max)?, dv)?, dv)?;
            let source = IterSum { args: vec![v.clone()], base: r.clone() };
            let mark = Arc::new(IterMark { source: MarkSource::Fused(source), extent: Expr::int(padded_extent) });
            let pm = PaddedMark { mark: mark.clone(), valid_min: r.clone(), valid_extent: v.extent.clone() };
            if !self.padded.contains(&pm) {
                self.padded.push(pm);
            }
            if is_div {
                (mark, d.clone(), Expr::int(padded_extent / dv))
            } else {
                (mark, Expr::int(1), d.clone())
            }
        };
        let base = if is_div { q } else { Expr::int(0) };
        if extent.is_int(1) {
            return Ok(IterSum::constant(base));
        }
        let split = IterSplit { source: mark, lower_factor, extent, scale: Expr::int(1) };
        Ok(IterSum { args: vec![split], base })
    }

    // ------------------------------------------------------------ fusion

    /// Rewrites a sum into at most one split plus a base (TVM's
    /// `NormalizeToIterWithOffset`).
    pub(crate) fn fuse_to_single(&mut self, sum: IterSum) -> Result<IterSum> {
        if sum.args.is_empty() {
            return Ok(IterSum::constant(self.simp(&sum.base)?));
        }
        let (split, offset) = self.fuse(&sum.args, None)?;
        let base = self.simp(&Expr::add(sum.base, offset))?;
        Ok(IterSum { args: vec![split], base })
    }

    /// The scale all others are multiples of: the smallest constant one, or
    /// the one no other split's `scale * extent` reaches.
    fn base_scale(&self, args: &[IterSplit]) -> Result<Expr> {
        for a in args {
            if matches!(self.const_of(&a.scale), Some(c) if c <= 0) || !self.prove(Expr::gt(a.scale.clone(), Expr::int(0))) {
                return err(
                    Kind::CannotFuse,
                    format!("cannot fuse: the term {} has a scale that is not known to be positive", a.to_expr()),
                );
            }
        }
        let consts: Vec<i64> = args.iter().filter_map(|a| self.const_of(&a.scale)).collect();
        if let Some(&m) = consts.iter().min() {
            return Ok(Expr::int(m));
        }
        for (i, a) in args.iter().enumerate() {
            let reached = args.iter().enumerate().any(|(j, b)| {
                j != i && self.mul(&b.scale, &b.extent).is_ok_and(|t| self.prove_eq(&t, &a.scale))
            });
            if !reached {
                return Ok(a.scale.clone());
            }
        }
        Ok(args[0].scale.clone())
    }

    /// Fuses splits into one split `(mark, 1, extent, g)` plus an offset,
    /// where `g` is the smallest scale. The splits, scales divided by `g`,
    /// must chain: each next scale is the previous scale times its extent
    /// (or, for surjective checks with constants, at most the reach so far:
    /// an overlapping fuse such as `x * 7 + y` with `y` in `[0, 8)`). Runs of
    /// splits that form a bounded sum of the predicate use its narrowed mark.
    /// `exclude` is a predicate bound not to use (the one being built).
    fn fuse(&mut self, args: &[IterSplit], exclude: Option<usize>) -> Result<(IterSplit, Expr)> {
        let g = self.base_scale(args)?;
        let mut norm: Vec<IterSplit> = Vec::with_capacity(args.len());
        for a in args {
            if !self.prove_divisible(&a.scale, &g) {
                return err(
                    Kind::CannotFuse,
                    format!("cannot fuse: the scale {} is not a multiple of the smallest scale {g}", a.scale),
                );
            }
            norm.push(IterSplit { scale: self.div(&a.scale, &g)?, ..a.clone() });
        }
        let chain = match self.chain_exact(&norm, exclude)? {
            Some(c) => c,
            None => {
                let overlapped = if self.check_level == CheckLevel::Bijective {
                    None
                } else {
                    self.chain_overlapped(&norm, exclude)?
                };
                match overlapped {
                    Some(c) => c,
                    None => {
                        let text: Vec<String> = args.iter().map(|a| a.to_expr().to_string()).collect();
                        return err(
                            Kind::CannotFuse,
                            format!(
                                "cannot fuse {}: the scales do not chain (each scale must be the previous scale times its extent)",
                                text.join(" + ")
                            ),
                        );
                    }
                }
            }
        };
        let Chain { links, extent, offset, used } = chain;
        for u in used {
            self.constraints[u].used = true;
        }
        let offset = self.mul(&offset, &g)?;
        if links.len() == 1 && links[0].scale.is_int(1) {
            let only = links.into_iter().next().expect("one link");
            return Ok((IterSplit { scale: g, ..only }, offset));
        }
        let mut ordered = links;
        ordered.reverse();
        let mark = Arc::new(IterMark {
            source: MarkSource::Fused(IterSum { args: ordered, base: Expr::int(0) }),
            extent: extent.clone(),
        });
        Ok((IterSplit { source: mark, lower_factor: Expr::int(1), extent, scale: g }, offset))
    }

    /// Tries to take the predicate bound `c` at normalized scale `at`: all
    /// its splits must be unused in `args` with scales `key scale * at`.
    fn match_constraint(&self, c: &Constraint, args: &[IterSplit], taken: &[bool], at: &Expr) -> Option<Vec<usize>> {
        let mut picked: Vec<usize> = Vec::with_capacity(c.key.len());
        for k in &c.key {
            let want = self.mul(&k.scale, at).ok()?;
            let j = (0..args.len()).find(|&j| {
                !taken[j] && !picked.contains(&j) && Self::same_digits(&args[j], k) && self.prove_eq(&args[j].scale, &want)
            })?;
            picked.push(j);
        }
        Some(picked)
    }

    /// Predicate bounds in the order to try them: those with more splits first.
    fn constraint_order(&self, exclude: Option<usize>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.constraints.len()).filter(|&i| Some(i) != exclude).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.constraints[i].key.len()));
        order
    }

    fn chain_exact(&self, args: &[IterSplit], exclude: Option<usize>) -> Result<Option<Chain>> {
        let order = self.constraint_order(exclude);
        let mut taken = vec![false; args.len()];
        let mut chain = Chain::new();
        while taken.iter().any(|t| !t) {
            let at = chain.extent.clone();
            if let Some((ci, picked)) =
                order.iter().find_map(|&ci| self.match_constraint(&self.constraints[ci], args, &taken, &at).map(|p| (ci, p)))
            {
                for j in picked {
                    taken[j] = true;
                }
                self.link_constraint(&mut chain, ci, &at)?;
                continue;
            }
            // Among splits of the expected scale, extent-one ones first: they
            // leave the expected scale unchanged.
            let candidates: Vec<usize> =
                (0..args.len()).filter(|&j| !taken[j] && self.prove_eq(&args[j].scale, &at)).collect();
            let Some(&j) = candidates.iter().find(|&&j| args[j].extent.is_int(1)).or(candidates.first()) else {
                return Ok(None);
            };
            taken[j] = true;
            chain.extent = self.mul(&at, &args[j].extent)?;
            chain.links.push(args[j].clone());
        }
        Ok(Some(chain))
    }

    fn link_constraint(&self, chain: &mut Chain, ci: usize, at: &Expr) -> Result<()> {
        let c = &self.constraints[ci];
        chain.links.push(IterSplit {
            source: c.mark.clone(),
            lower_factor: Expr::int(1),
            extent: c.mark.extent.clone(),
            scale: at.clone(),
        });
        chain.offset = self.simp(&Expr::add(chain.offset.clone(), Expr::mul(c.offset.clone(), at.clone())))?;
        chain.extent = self.mul(at, &c.mark.extent)?;
        chain.used.push(ci);
        Ok(())
    }

    /// The surjective fuse of constant scales that may overlap: take splits
    /// by increasing scale; each must start no later than the largest value
    /// reached so far plus one, so every value up to the new reach is hit.
    fn chain_overlapped(&self, args: &[IterSplit], exclude: Option<usize>) -> Result<Option<Chain>> {
        let consts: Option<Vec<(i64, i64)>> =
            args.iter().map(|a| Some((self.const_of(&a.scale)?, self.const_of(&a.extent)?))).collect();
        let Some(consts) = consts else { return Ok(None) };
        let order = self.constraint_order(exclude);
        let mut taken = vec![false; args.len()];
        let mut chain = Chain::new();
        let mut reach: i64 = 1;
        while taken.iter().any(|t| !t) {
            let (j, &(scale, ext)) = consts
                .iter()
                .enumerate()
                .filter(|(j, _)| !taken[*j])
                .min_by_key(|(_, (s, e))| (*s, std::cmp::Reverse(*e)))
                .expect("an untaken split");
            if scale > reach {
                return Ok(None);
            }
            let at = Expr::int(scale);
            if let Some((ci, picked)) =
                order.iter().find_map(|&ci| self.match_constraint(&self.constraints[ci], args, &taken, &at).map(|p| (ci, p)))
            {
                for p in picked {
                    taken[p] = true;
                }
                let Some(cext) = self.const_of(&self.constraints[ci].mark.extent) else { return Ok(None) };
                self.link_constraint(&mut chain, ci, &at)?;
                reach = num::add(reach, num::mul(cext - 1, scale)?)?;
                continue;
            }
            taken[j] = true;
            chain.links.push(args[j].clone());
            reach = num::add(reach, num::mul(ext - 1, scale)?)?;
        }
        chain.extent = Expr::int(reach);
        Ok(Some(chain))
    }

    // ------------------------------------------------------------ predicates

    /// Turns each bound of the predicate on a sum of iterators into a
    /// narrowed mark. Terms without iterators are ignored.
    pub(crate) fn add_predicate(&mut self, pred: &Expr) -> Result<()> {
        let mut terms = Vec::new();
        conjuncts(pred, &mut terms);
        // Inner sums first: a bound on `j*2 + k` must exist before the
        // bound on `i*8 + j*2 + k` is fused.
        terms.sort_by_key(|t| (t.vars().iter().filter(|v| self.var_map.contains_key(*v)).count(), t.node_count()));
        for t in terms {
            if !self.uses_iter(&t) {
                continue;
            }
            let ExprKind::Cmp(op, a, b) = t.kind() else {
                return err(Kind::Predicate, format!("predicate term {t} is not a comparison of iterator sums"));
            };
            let diff = self.rewrite(&Expr::sub(a.clone(), b.clone()))?;
            if diff.args.is_empty() {
                continue;
            }
            let mut op = *op;
            let negative = diff.args.iter().all(|s| matches!(self.const_of(&s.scale), Some(c) if c < 0));
            let diff = if negative {
                op = op.swapped();
                self.scale(diff, &Expr::int(-1))?
            } else {
                diff
            };
            // sum + base `op` 0
            let nb = self.simp(&(-diff.base.clone()))?;
            let one = |e: &Expr| self.simp(&Expr::add(e.clone(), Expr::int(1)));
            let (lower, upper) = match op {
                CmpOp::Lt => (None, Some(nb)),
                CmpOp::Le => (None, Some(one(&nb)?)),
                CmpOp::Gt => (Some(one(&nb)?), None),
                CmpOp::Ge => (Some(nb), None),
                CmpOp::Eq | CmpOp::Ne => {
                    return err(Kind::Predicate, format!("predicate term {t} is not an inequality"));
                }
            };
            self.add_bound(diff.args, lower, upper, t.to_string())?;
        }
        Ok(())
    }

    fn add_bound(&mut self, args: Vec<IterSplit>, lower: Option<Expr>, upper: Option<Expr>, text: String) -> Result<()> {
        // Normalize the scales so the smallest is one, and the bounds with
        // them (rounding up: g*v < u  <=>  v < ceil(u/g)).
        let g = self.base_scale(&args)?;
        let mut key = Vec::with_capacity(args.len());
        for a in &args {
            if !self.prove_divisible(&a.scale, &g) {
                return err(Kind::Predicate, format!("predicate term {text}: scales are not multiples of {g}"));
            }
            key.push(IterSplit { scale: self.div(&a.scale, &g)?, ..a.clone() });
        }
        let ceil = |e: Option<Expr>| -> Result<Option<Expr>> {
            match e {
                Some(e) => Ok(Some(self.simp(&Expr::ceil_div(e, g.clone()))?)),
                None => Ok(None),
            }
        };
        let (lower, upper) = (ceil(lower)?, ceil(upper)?);
        let same = self.constraints.iter().position(|c| {
            c.key.len() == key.len()
                && key.iter().all(|k| c.key.iter().any(|ck| Self::same_digits(ck, k) && ck.scale == k.scale))
        });
        let idx = match same {
            Some(i) => {
                let c = &self.constraints[i];
                let lower = tighter(&self.an, c.lower.clone(), lower, true)?;
                let upper = tighter(&self.an, c.upper.clone(), upper, false)?;
                let c = &mut self.constraints[i];
                c.lower = lower;
                c.upper = upper;
                c.text = format!("{} and {}", c.text, text);
                i
            }
            None => {
                // A placeholder mark until `build_constraint` fills it in.
                let mark = Arc::new(IterMark { source: MarkSource::Iter(Expr::int(0)), extent: Expr::int(1) });
                self.constraints.push(Constraint {
                    key,
                    mark,
                    offset: Expr::int(0),
                    lower,
                    upper,
                    used: false,
                    text,
                });
                self.constraints.len() - 1
            }
        };
        self.build_constraint(idx)
    }

    /// Fuses the bounded sum (using inner bounds) and narrows the result.
    fn build_constraint(&mut self, idx: usize) -> Result<()> {
        let key = self.constraints[idx].key.clone();
        let text = self.constraints[idx].text.clone();
        let (split, offset) = self.fuse(&key, Some(idx))?;
        // The key is normalized, so the fused scale is one:
        // sum = split + offset, split in [0, extent).
        let extent = split.extent.clone();
        let unit = IterSplit { scale: Expr::int(1), ..split };
        let zero = Expr::int(0);
        let lo = match &self.constraints[idx].lower {
            None => zero.clone(),
            Some(l) => {
                let x = self.simp(&Expr::sub(l.clone(), offset.clone()))?;
                if self.prove(Expr::le(x.clone(), zero.clone())) {
                    zero.clone()
                } else if self.prove(Expr::ge(x.clone(), zero.clone())) {
                    x
                } else {
                    return err(Kind::Predicate, format!("predicate {text}: cannot compare its lower bound with 0"));
                }
            }
        };
        let hi = match &self.constraints[idx].upper {
            None => extent.clone(),
            Some(u) => {
                let y = self.simp(&Expr::sub(u.clone(), offset.clone()))?;
                if self.prove(Expr::ge(y.clone(), extent.clone())) {
                    extent.clone()
                } else if self.prove(Expr::le(y.clone(), extent.clone())) {
                    y
                } else {
                    return err(
                        Kind::Predicate,
                        format!("predicate {text}: cannot compare its upper bound with the extent {extent}"),
                    );
                }
            }
        };
        if !self.prove(Expr::lt(lo.clone(), hi.clone())) {
            return err(Kind::Predicate, format!("predicate {text} is never true (or not provably satisfiable)"));
        }
        let narrowed_extent = self.simp(&Expr::sub(hi, lo.clone()))?;
        let source = IterSum { args: vec![unit], base: self.simp(&(-lo.clone()))? };
        let mark = Arc::new(IterMark { source: MarkSource::Fused(source), extent: narrowed_extent });
        let c = &mut self.constraints[idx];
        c.mark = mark;
        c.offset = self.an.simplify(&Expr::add(lo, offset)).map_err(IterMapError::from)?;
        Ok(())
    }

    pub(crate) fn check_predicates_used(&self) -> Result<()> {
        match self.constraints.iter().find(|c| !c.used) {
            Some(c) => err(
                Kind::Predicate,
                format!("predicate {} bounds a sum that no index fuses as a whole", c.text),
            ),
            None => Ok(()),
        }
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
        // Selection sort, as the order is partial: take a split whose scale
        // is provably at least every other remaining one, else the first.
        let mut rest = std::mem::take(&mut sum.args);
        while !rest.is_empty() {
            let pick = (0..rest.len())
                .find(|&i| {
                    (0..rest.len()).all(|j| {
                        i == j || self.prove(Expr::ge(rest[i].scale.clone(), rest[j].scale.clone()))
                    })
                })
                .unwrap_or(0);
            sum.args.push(rest.remove(pick));
        }
        if let Ok(b) = self.simp(&sum.base) {
            sum.base = b;
        }
        sum
    }
}

/// The links of a fuse, lowest scale first, with the extent reached, the
/// offset contributed by narrowed marks, and the bounds used.
struct Chain {
    links: Vec<IterSplit>,
    extent: Expr,
    offset: Expr,
    used: Vec<usize>,
}

impl Chain {
    fn new() -> Chain {
        Chain { links: Vec::new(), extent: Expr::int(1), offset: Expr::int(0), used: Vec::new() }
    }
}

/// The tighter of two optional bounds (`max` for lower, `min` for upper).
fn tighter(an: &Analyzer, a: Option<Expr>, b: Option<Expr>, lower: bool) -> Result<Option<Expr>> {
    Ok(match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let e = if lower { Expr::max(a, b) } else { Expr::min(a, b) };
            Some(an.simplify(&e)?)
        }
    })
}

fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match e.kind() {
        ExprKind::And(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        ExprKind::Bool(true) => {}
        _ => out.push(e.clone()),
    }
}
