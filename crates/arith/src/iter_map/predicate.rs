//! Predicates: each bound `lower <= sum < upper` on a fused sum of
//! iterators becomes a narrowed mark over `[0, upper - lower)`, which fusion
//! then uses wherever the same sum appears.

use super::rewrite::{err, Result, Rewriter};
use super::{IterMapError, IterMapErrorKind as Kind, IterMark, IterSplit, IterSum, MarkSource};
use crate::analyzer::Analyzer;
use crate::expr::{CmpOp, Expr, ExprKind};
use std::sync::Arc;

/// A bound from the predicate on a fused sum, turned into a narrowed mark.
pub(super) struct Constraint {
    /// The splits of the bounded sum, scales divided by the smallest one.
    pub(super) key: Vec<IterSplit>,
    /// The narrowed mark: the sum (in units of its smallest scale) is
    /// `mark + offset`.
    pub(super) mark: Arc<IterMark>,
    pub(super) offset: Expr,
    /// Inclusive lower and exclusive upper bound on the sum, in units of the
    /// smallest scale, once merged over all predicate terms on the same sum.
    pub(super) lower: Option<Expr>,
    pub(super) upper: Option<Expr>,
    /// Whether an index or another bound used this mark.
    pub(super) used: bool,
    /// The predicate term, for messages.
    pub(super) text: String,
}

impl Rewriter {
    /// Turns each bound of the predicate on a sum of iterators into a
    /// narrowed mark. Terms without iterators are ignored.
    pub(crate) fn add_predicate(&mut self, pred: &Expr) -> Result<()> {
        let mut terms = Vec::new();
        conjuncts(pred, &mut terms);
        // Inner sums first: a bound on `j*2 + k` must exist before the
        // bound on `i*8 + j*2 + k` is fused.
        terms.sort_by_key(|t| {
            (
                t.vars()
                    .iter()
                    .filter(|v| self.var_map.contains_key(*v))
                    .count(),
                t.node_count(),
            )
        });
        for t in terms {
            if !self.uses_iter(&t) {
                continue;
            }
            let ExprKind::Cmp(op, a, b) = t.kind() else {
                return err(
                    Kind::Predicate,
                    format!("predicate term {t} is not a comparison of iterator sums"),
                );
            };
            let diff = self.rewrite(&Expr::sub(a.clone(), b.clone()))?;
            if diff.args.is_empty() {
                continue;
            }
            let mut op = *op;
            let negative = diff
                .args
                .iter()
                .all(|s| matches!(self.const_of(&s.scale), Some(c) if c < 0));
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
                    return err(
                        Kind::Predicate,
                        format!("predicate term {t} is not an inequality"),
                    );
                }
            };
            self.add_bound(diff.args, lower, upper, t.to_string())?;
        }
        Ok(())
    }

    fn add_bound(
        &mut self,
        args: Vec<IterSplit>,
        lower: Option<Expr>,
        upper: Option<Expr>,
        text: String,
    ) -> Result<()> {
        // Normalize the scales so the smallest is one, and the bounds with
        // them (rounding up: g*v < u  <=>  v < ceil(u/g)).
        let g = self.base_scale(&args)?;
        let mut key = Vec::with_capacity(args.len());
        for a in &args {
            if !self.prove_divisible(&a.scale, &g) {
                return err(
                    Kind::Predicate,
                    format!("predicate term {text}: scales are not multiples of {g}"),
                );
            }
            key.push(IterSplit {
                scale: self.div(&a.scale, &g)?,
                ..a.clone()
            });
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
                && key.iter().all(|k| {
                    c.key
                        .iter()
                        .any(|ck| Self::same_digits(ck, k) && ck.scale == k.scale)
                })
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
                let mark = Arc::new(IterMark {
                    source: MarkSource::Iter(Expr::int(0)),
                    extent: Expr::int(1),
                });
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
        let unit = IterSplit {
            scale: Expr::int(1),
            ..split
        };
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
                    return err(
                        Kind::Predicate,
                        format!("predicate {text}: cannot compare its lower bound with 0"),
                    );
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
            return err(
                Kind::Predicate,
                format!("predicate {text} is never true (or not provably satisfiable)"),
            );
        }
        let narrowed_extent = self.simp(&Expr::sub(hi, lo.clone()))?;
        let source = IterSum {
            args: vec![unit],
            base: self.simp(&(-lo.clone()))?,
        };
        let mark = Arc::new(IterMark {
            source: MarkSource::Fused(source),
            extent: narrowed_extent,
        });
        let c = &mut self.constraints[idx];
        c.mark = mark;
        c.offset = self
            .an
            .simplify(&Expr::add(lo, offset))
            .map_err(IterMapError::from)?;
        Ok(())
    }

    pub(crate) fn check_predicates_used(&self) -> Result<()> {
        match self.constraints.iter().find(|c| !c.used) {
            Some(c) => err(
                Kind::Predicate,
                format!(
                    "predicate {} bounds a sum that no index fuses as a whole",
                    c.text
                ),
            ),
            None => Ok(()),
        }
    }
}

/// The tighter of two optional bounds (`max` for lower, `min` for upper).
fn tighter(an: &Analyzer, a: Option<Expr>, b: Option<Expr>, lower: bool) -> Result<Option<Expr>> {
    Ok(match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let e = if lower {
                Expr::max(a, b)
            } else {
                Expr::min(a, b)
            };
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
