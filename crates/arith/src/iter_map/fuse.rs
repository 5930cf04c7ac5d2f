//! Fusing a sum of splits into one split of one mark: ordering the splits
//! by scale into a chain, using the predicate's narrowed marks for runs that
//! form a bounded sum.

use super::predicate::Constraint;
use super::rewrite::{err, Result, Rewriter};
use super::{CheckLevel, IterMapErrorKind as Kind, IterMark, IterSplit, IterSum, MarkSource};
use crate::expr::Expr;
use crate::num;
use std::sync::Arc;

impl Rewriter {
    /// Rewrites a sum into at most one split plus a base (TVM's
    /// `NormalizeToIterWithOffset`).
    pub(crate) fn fuse_to_single(&mut self, sum: IterSum) -> Result<IterSum> {
        if sum.args.is_empty() {
            return Ok(IterSum::constant(self.simp(&sum.base)?));
        }
        let (split, offset) = self.fuse(&sum.args, None)?;
        let base = self.simp(&Expr::add(sum.base, offset))?;
        Ok(IterSum {
            args: vec![split],
            base,
        })
    }

    /// The scale all others are multiples of: the smallest constant one, or
    /// the one no other split's `scale * extent` reaches.
    pub(super) fn base_scale(&self, args: &[IterSplit]) -> Result<Expr> {
        for a in args {
            if matches!(self.const_of(&a.scale), Some(c) if c <= 0)
                || !self.prove(Expr::gt(a.scale.clone(), Expr::int(0)))
            {
                return err(
                    Kind::CannotFuse,
                    format!(
                        "cannot fuse: the term {} has a scale that is not known to be positive",
                        a.to_expr()
                    ),
                );
            }
        }
        let consts: Vec<i64> = args
            .iter()
            .filter_map(|a| self.const_of(&a.scale))
            .collect();
        if let Some(&m) = consts.iter().min() {
            return Ok(Expr::int(m));
        }
        for (i, a) in args.iter().enumerate() {
            let reached = args.iter().enumerate().any(|(j, b)| {
                j != i
                    && self
                        .mul(&b.scale, &b.extent)
                        .is_ok_and(|t| self.prove_eq(&t, &a.scale))
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
    pub(super) fn fuse(
        &mut self,
        args: &[IterSplit],
        exclude: Option<usize>,
    ) -> Result<(IterSplit, Expr)> {
        let g = self.base_scale(args)?;
        let mut norm: Vec<IterSplit> = Vec::with_capacity(args.len());
        for a in args {
            if !self.prove_divisible(&a.scale, &g) {
                return err(
                    Kind::CannotFuse,
                    format!(
                        "cannot fuse: the scale {} is not a multiple of the smallest scale {g}",
                        a.scale
                    ),
                );
            }
            norm.push(IterSplit {
                scale: self.div(&a.scale, &g)?,
                ..a.clone()
            });
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
                        let text: Vec<String> =
                            args.iter().map(|a| a.to_expr().to_string()).collect();
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
        let Chain {
            links,
            extent,
            offset,
            used,
        } = chain;
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
            source: MarkSource::Fused(IterSum {
                args: ordered,
                base: Expr::int(0),
            }),
            extent: extent.clone(),
        });
        Ok((
            IterSplit {
                source: mark,
                lower_factor: Expr::int(1),
                extent,
                scale: g,
            },
            offset,
        ))
    }

    /// Tries to take the predicate bound `c` at normalized scale `at`: all
    /// its splits must be unused in `args` with scales `key scale * at`.
    fn match_constraint(
        &self,
        c: &Constraint,
        args: &[IterSplit],
        taken: &[bool],
        at: &Expr,
    ) -> Option<Vec<usize>> {
        let mut picked: Vec<usize> = Vec::with_capacity(c.key.len());
        for k in &c.key {
            let want = self.mul(&k.scale, at).ok()?;
            let j = (0..args.len()).find(|&j| {
                !taken[j]
                    && !picked.contains(&j)
                    && Self::same_digits(&args[j], k)
                    && self.prove_eq(&args[j].scale, &want)
            })?;
            picked.push(j);
        }
        Some(picked)
    }

    /// Predicate bounds in the order to try them: those with more splits first.
    fn constraint_order(&self, exclude: Option<usize>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.constraints.len())
            .filter(|&i| Some(i) != exclude)
            .collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.constraints[i].key.len()));
        order
    }

    fn chain_exact(&self, args: &[IterSplit], exclude: Option<usize>) -> Result<Option<Chain>> {
        let order = self.constraint_order(exclude);
        let mut taken = vec![false; args.len()];
        let mut chain = Chain::new();
        while taken.iter().any(|t| !t) {
            let at = chain.extent.clone();
            if let Some((ci, picked)) = order.iter().find_map(|&ci| {
                self.match_constraint(&self.constraints[ci], args, &taken, &at)
                    .map(|p| (ci, p))
            }) {
                for j in picked {
                    taken[j] = true;
                }
                self.link_constraint(&mut chain, ci, &at)?;
                continue;
            }
            // Among splits of the expected scale, extent-one ones first: they
            // leave the expected scale unchanged.
            let candidates: Vec<usize> = (0..args.len())
                .filter(|&j| !taken[j] && self.prove_eq(&args[j].scale, &at))
                .collect();
            let Some(&j) = candidates
                .iter()
                .find(|&&j| args[j].extent.is_int(1))
                .or(candidates.first())
            else {
                if self.widen_top_digits && self.widen_last_link(args, &taken, &mut chain)? {
                    continue;
                }
                return Ok(None);
            };
            taken[j] = true;
            chain.extent = self.mul(&at, &args[j].extent)?;
            chain.links.push(args[j].clone());
        }
        Ok(Some(chain))
    }

    /// When the chain stops below the smallest scale left, widens its last
    /// link to reach that scale, if the link holds the top digits of its
    /// mark (constants: `lower * extent >= mark extent`), whose value then
    /// does not change: `(m // lower) % e` is `m // lower` for every
    /// `e >= ceil(mark extent / lower)`.
    fn widen_last_link(
        &self,
        args: &[IterSplit],
        taken: &[bool],
        chain: &mut Chain,
    ) -> Result<bool> {
        let Some(last) = chain.links.last() else {
            return Ok(false);
        };
        let next = (0..args.len())
            .filter(|&j| !taken[j])
            .map(|j| self.const_of(&args[j].scale))
            .collect::<Option<Vec<i64>>>()
            .and_then(|v| v.into_iter().min());
        let (Some(next), Some(at), Some(scale), Some(lower), Some(ext), Some(mark)) = (
            next,
            self.const_of(&chain.extent),
            self.const_of(&last.scale),
            self.const_of(&last.lower_factor),
            self.const_of(&last.extent),
            self.const_of(&last.source.extent),
        ) else {
            return Ok(false);
        };
        if next <= at || scale <= 0 || next % scale != 0 || num::mul(lower, ext)? < mark {
            return Ok(false);
        }
        let widened = next / scale;
        let link = chain.links.last_mut().expect("checked above");
        link.extent = Expr::int(widened);
        chain.extent = Expr::int(next);
        Ok(true)
    }

    fn link_constraint(&self, chain: &mut Chain, ci: usize, at: &Expr) -> Result<()> {
        let c = &self.constraints[ci];
        chain.links.push(IterSplit {
            source: c.mark.clone(),
            lower_factor: Expr::int(1),
            extent: c.mark.extent.clone(),
            scale: at.clone(),
        });
        chain.offset = self.simp(&Expr::add(
            chain.offset.clone(),
            Expr::mul(c.offset.clone(), at.clone()),
        ))?;
        chain.extent = self.mul(at, &c.mark.extent)?;
        chain.used.push(ci);
        Ok(())
    }

    /// The surjective fuse of constant scales that may overlap: take splits
    /// by increasing scale; each must start no later than the largest value
    /// reached so far plus one, so every value up to the new reach is hit.
    fn chain_overlapped(
        &self,
        args: &[IterSplit],
        exclude: Option<usize>,
    ) -> Result<Option<Chain>> {
        let consts: Option<Vec<(i64, i64)>> = args
            .iter()
            .map(|a| Some((self.const_of(&a.scale)?, self.const_of(&a.extent)?)))
            .collect();
        let Some(consts) = consts else {
            return Ok(None);
        };
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
            if let Some((ci, picked)) = order.iter().find_map(|&ci| {
                self.match_constraint(&self.constraints[ci], args, &taken, &at)
                    .map(|p| (ci, p))
            }) {
                for p in picked {
                    taken[p] = true;
                }
                let Some(cext) = self.const_of(&self.constraints[ci].mark.extent) else {
                    return Ok(None);
                };
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
        Chain {
            links: Vec::new(),
            extent: Expr::int(1),
            offset: Expr::int(0),
            used: Vec::new(),
        }
    }
}
