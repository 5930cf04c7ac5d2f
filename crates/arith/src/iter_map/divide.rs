//! Division and modulo of iterator sums by positive divisors: splitting a
//! mark's digits, or padding it when the divisor does not divide its extent
//! or offset.

use super::rewrite::{err, Result, Rewriter};
use super::{IterMapErrorKind as Kind, IterMark, IterSplit, IterSum, MarkSource, PaddedMark};
use crate::expr::Expr;
use crate::num;
use std::sync::Arc;

impl Rewriter {
    pub(super) fn div_mod(
        &mut self,
        e: &Expr,
        a: &Expr,
        b: &Expr,
        is_div: bool,
    ) -> Result<IterSum> {
        let rb = self.rewrite(b)?;
        if !rb.is_constant() {
            return self.opaque(e, Kind::BadDivisor, "the divisor uses an iterator");
        }
        let d = self.simp(&rb.base)?;
        if !self.prove(Expr::gt(d.clone(), Expr::int(0))) {
            return self.opaque(
                e,
                Kind::BadDivisor,
                "the divisor is not known to be positive",
            );
        }
        let ra = self.rewrite(a)?;
        if ra.is_constant() {
            let base = if is_div {
                Expr::floor_div(ra.base, d)
            } else {
                Expr::floor_mod(ra.base, d)
            };
            return Ok(IterSum::constant(self.simp(&base)?));
        }
        let (split, offset) = self.fuse(&ra.args, None)?;
        let base = self.simp(&Expr::add(ra.base, offset))?;
        self.split_div_mod(e, split, base, &d, is_div)
    }

    /// `(split + base) // d` or `% d` for one split (any scale).
    fn split_div_mod(
        &mut self,
        e: &Expr,
        split: IterSplit,
        base: Expr,
        d: &Expr,
        is_div: bool,
    ) -> Result<IterSum> {
        let s = split.scale.clone();
        if d.is_int(1) {
            return Ok(if is_div {
                IterSum {
                    args: vec![split],
                    base,
                }
            } else {
                IterSum::constant(Expr::int(0))
            });
        }
        if self.prove_divisible(&s, d) {
            // (k*d*v + b) // d = k*v + b // d ;  (k*d*v + b) % d = b % d
            return if is_div {
                let scale = self.div(&s, d)?;
                let base = self.div(&base, d)?;
                Ok(IterSum {
                    args: vec![IterSplit { scale, ..split }],
                    base,
                })
            } else {
                Ok(IterSum::constant(
                    self.simp(&Expr::floor_mod(base, d.clone()))?,
                ))
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
        let unit = IterSplit {
            scale: Expr::int(1),
            ..split
        };
        let inner = self.unit_div_mod(e, unit, b1, &d1, is_div)?;
        if is_div {
            Ok(inner)
        } else {
            let scaled = self.scale(inner, &s)?;
            self.add(scaled, IterSum::constant(b0))
        }
    }

    /// `(v + c) // d` or `% d` for a constant `c > 0` (and constant `d` and
    /// extent of `v`) as a split of the one mark `v + c` over `[0,
    /// roundup(extent + c, d))` (`[0, extent + c)` when that is at most
    /// `d`), padded below by `c`: the quotient and the
    /// remainder of the same offset source are digits of one mark, and the
    /// quotient takes its whole range `[0, (extent + c) / d)` instead of
    /// leaving `c // d` in the base. `None` when the offset or sizes are
    /// not such constants.
    fn offset_mark_div_mod(
        &mut self,
        v: &IterSplit,
        b: &Expr,
        d: &Expr,
        is_div: bool,
    ) -> Result<Option<IterSum>> {
        let (Some(c), Some(dv), Some(ext)) =
            (self.const_of(b), self.const_of(d), self.const_of(&v.extent))
        else {
            return Ok(None);
        };
        if c <= 0 || dv <= 0 || ext <= 0 {
            return Ok(None);
        }
        // Values that never reach `d` need no rounding up: the quotient is
        // 0 and the remainder the mark itself, of `extent + c` values.
        let end = num::add(ext, c)?;
        let padded_extent = if end <= dv {
            end
        } else {
            num::mul(num::ceil_div(end, dv)?, dv)?
        };
        let mark = Arc::new(IterMark {
            source: MarkSource::Fused(IterSum {
                args: vec![v.clone()],
                base: Expr::int(c),
            }),
            extent: Expr::int(padded_extent),
        });
        let pm = PaddedMark {
            mark: mark.clone(),
            valid_min: Expr::int(c),
            valid_extent: Expr::int(ext),
        };
        if !self.padded.contains(&pm) {
            self.padded.push(pm);
        }
        let (lower_factor, extent) = if is_div {
            (Expr::int(dv), num::ceil_div(padded_extent, dv)?)
        } else {
            (Expr::int(1), dv.min(padded_extent))
        };
        if extent == 1 {
            return Ok(Some(IterSum::constant(Expr::int(0))));
        }
        Ok(Some(IterSum {
            args: vec![IterSplit {
                source: mark,
                lower_factor,
                extent: Expr::int(extent),
                scale: Expr::int(1),
            }],
            base: Expr::int(0),
        }))
    }

    /// `(v + b) // d` or `% d` where `v` is a split of scale one.
    fn unit_div_mod(
        &mut self,
        e: &Expr,
        v: IterSplit,
        b: Expr,
        d: &Expr,
        is_div: bool,
    ) -> Result<IterSum> {
        if self.offset_marks {
            if let Some(sum) = self.offset_mark_div_mod(&v, &b, d, is_div)? {
                return Ok(sum);
            }
        }
        let r = self.simp(&Expr::floor_mod(b.clone(), d.clone()))?;
        let q = self.div(&b, d)?;
        let mark_extent = v.source.extent.clone();
        let top = self.prove_eq(&self.mul(&v.lower_factor, &v.extent)?, &mark_extent);
        // When `0 <= v + r < d`, `(v + b) % d` is `v + r` and `(v + b) // d`
        // is `q`: no split, no padding.
        let r_bound = self.an.const_int_bound(&r);
        if r_bound.min >= 0
            && self.prove(Expr::le(Expr::add(v.extent.clone(), r.clone()), d.clone()))
        {
            return Ok(if is_div {
                IterSum::constant(q)
            } else {
                IterSum {
                    args: vec![v],
                    base: r,
                }
            });
        }
        let (mark, lower_factor, extent) = if r.is_int(0) && self.prove_divisible(&v.extent, d) {
            let ext = if is_div {
                self.div(&v.extent, d)?
            } else {
                d.clone()
            };
            let lf = if is_div {
                self.mul(&v.lower_factor, d)?
            } else {
                v.lower_factor.clone()
            };
            (v.source.clone(), lf, ext)
        } else if r.is_int(0) && top && d.as_int().is_some() && v.extent.as_int().is_some() {
            // The split holds the top digits, so its modulo is the identity
            // and the digits above `d` are simply `mark // (lf * d)`; the
            // last of them may be partial (right padding).
            let (ext, dv) = (v.extent.as_int().unwrap_or(1), d.as_int().unwrap_or(1));
            let ext = if is_div { num::ceil_div(ext, dv)? } else { dv };
            let lf = if is_div {
                self.mul(&v.lower_factor, d)?
            } else {
                v.lower_factor.clone()
            };
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
                return err(
                    Kind::CannotSplit,
                    format!("cannot split {e}: the offset {r} is unbounded"),
                );
            }
            let padded_extent = num::mul(num::ceil_div(num::add(ext, r_max)?, dv)?, dv)?;
            let source = IterSum {
                args: vec![v.clone()],
                base: r.clone(),
            };
            let mark = Arc::new(IterMark {
                source: MarkSource::Fused(source),
                extent: Expr::int(padded_extent),
            });
            let pm = PaddedMark {
                mark: mark.clone(),
                valid_min: r.clone(),
                valid_extent: v.extent.clone(),
            };
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
        let split = IterSplit {
            source: mark,
            lower_factor,
            extent,
            scale: Expr::int(1),
        };
        Ok(IterSum {
            args: vec![split],
            base,
        })
    }
}
