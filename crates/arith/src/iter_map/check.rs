//! Checking a detected map: the splits of each mark must not share digits
//! (surjective), and must use all of them (bijective).

use super::rewrite::Rewriter;
use super::{
    CheckLevel, IterMapError, IterMapErrorKind as Kind, IterMark, IterSplit, IterSum, MarkSource,
};
use crate::expr::Expr;
use std::sync::Arc;

/// One use of a mark's digits, and whether the digits feed a padded mark
/// (whose own splits then decide what is reachable).
struct Use {
    split: IterSplit,
    feeds_padding: bool,
}

/// Every mark reachable from the indices, with every split that uses it.
#[derive(Default)]
struct Uses {
    marks: Vec<(Arc<IterMark>, Vec<Use>)>,
}

impl Uses {
    fn visit(&mut self, rw: &Rewriter, split: &IterSplit, feeds_padding: bool) {
        let i = match self.marks.iter().position(|(m, _)| **m == *split.source) {
            Some(i) => i,
            None => {
                self.marks.push((split.source.clone(), Vec::new()));
                // Visit the source of a fused mark once, however often the
                // mark itself is split.
                if let MarkSource::Fused(sum) = &split.source.source {
                    let padded = rw.is_padded(&split.source).is_some();
                    for a in &sum.args {
                        self.visit(rw, a, padded);
                    }
                }
                self.marks
                    .iter()
                    .position(|(m, _)| **m == *split.source)
                    .expect("just pushed")
            }
        };
        self.marks[i].1.push(Use {
            split: split.clone(),
            feeds_padding,
        });
    }
}

fn fail<T>(kind: Kind, message: String) -> Result<T, IterMapError> {
    Err(IterMapError::new(kind, message))
}

/// Checks the splits of every mark reachable from `indices` at `level`.
pub(crate) fn check_mapping(
    rw: &Rewriter,
    indices: &[IterSum],
    level: CheckLevel,
) -> Result<(), IterMapError> {
    let mut uses = Uses::default();
    for sum in indices {
        for a in &sum.args {
            uses.visit(rw, a, false);
        }
    }
    for (mark, list) in &uses.marks {
        check_mark(rw, mark, list, level)?;
    }
    if level == CheckLevel::Bijective {
        for (v, mark) in &rw.input_marks {
            if !uses.marks.iter().any(|(m, _)| **m == **mark) {
                return fail(
                    Kind::Incomplete,
                    format!("iterator {v} is not used by any index, so the map is not bijective"),
                );
            }
        }
    }
    Ok(())
}

/// Orders the splits of one mark by lower factor: each must start where the
/// previous ends (or, when not bijective, at a multiple of it, leaving
/// digits unused), then checks what the last one reaches.
fn check_mark(
    rw: &Rewriter,
    mark: &IterMark,
    list: &[Use],
    level: CheckLevel,
) -> Result<(), IterMapError> {
    let an = rw.analyzer();
    let prove_eq = |a: &Expr, b: &Expr| {
        a == b || matches!(an.simplify(&Expr::sub(a.clone(), b.clone())), Ok(d) if d.is_int(0))
    };
    let divides = |a: &Expr, d: &Expr| {
        d.is_int(1)
            || matches!(an.simplify(&Expr::floor_mod(a.clone(), d.clone())), Ok(r) if r.is_int(0))
    };
    if prove_eq(&mark.extent, &Expr::int(1)) {
        return Ok(());
    }
    let mut left: Vec<&Use> = list.iter().collect();
    let mut expected = Expr::int(1);
    // The reach of the digits below the last split taken.
    let mut below = Expr::int(1);
    let mut last: Option<&IterSplit> = None;
    let mut feeds_padding = false;
    while !left.is_empty() {
        let pos = match left
            .iter()
            .position(|u| prove_eq(&u.split.lower_factor, &expected))
        {
            Some(p) => p,
            None => {
                let gap = left
                    .iter()
                    .enumerate()
                    .filter(|(_, u)| divides(&u.split.lower_factor, &expected))
                    .min_by_key(|(_, u)| u.split.lower_factor.as_int().unwrap_or(i64::MAX))
                    .map(|(p, _)| p);
                match gap {
                    Some(_) if level == CheckLevel::Bijective => {
                        return fail(
                            Kind::Incomplete,
                            format!("the digits of {mark} from {expected} up are not all used, so the map is not bijective"),
                        );
                    }
                    Some(p) => p,
                    None => {
                        let u = &left[0].split;
                        return fail(
                            Kind::Overlap,
                            format!(
                                "{} uses digits of {mark} that another index also uses",
                                u.to_expr()
                            ),
                        );
                    }
                }
            }
        };
        let u = left.remove(pos);
        feeds_padding |= u.feeds_padding;
        below = expected.clone();
        expected = an.simplify(&Expr::mul(
            u.split.lower_factor.clone(),
            u.split.extent.clone(),
        ))?;
        last = Some(&u.split);
    }
    let Some(top) = last else { return Ok(()) };
    let (valid_min, valid_extent) = match rw.is_padded(mark) {
        Some(p) => (p.valid_min.clone(), p.valid_extent.clone()),
        None => (Expr::int(0), mark.extent.clone()),
    };
    if level == CheckLevel::Bijective {
        if !valid_min.is_int(0) || !prove_eq(&valid_extent, &mark.extent) {
            return fail(
                Kind::Padding,
                format!("{mark} is padded, so the map is not bijective"),
            );
        }
        if !prove_eq(&expected, &mark.extent) {
            return fail(
                Kind::Incomplete,
                format!("the splits of {mark} reach {expected}, not its extent, so the map is not bijective"),
            );
        }
        return Ok(());
    }
    if valid_min.is_int(0) && an.can_prove(&Expr::le(expected.clone(), valid_extent.clone())) {
        return Ok(());
    }
    if feeds_padding || reaches_all(an, &valid_min, &valid_extent, top, &below) {
        return Ok(());
    }
    fail(
        Kind::Padding,
        format!(
            "the splits of {mark} reach {expected} but its values are only {valid_extent} from {valid_min}: some index tuples are never reached"
        ),
    )
}

/// With constants: whether the values `[lo, lo + n)` of a mark give every
/// value of the top split and, with each of them, every combination of the
/// digits below (which repeat every `below` values).
/// A symbolic `lo` (a padding offset such as `x * 360 % 16`) must pass for
/// every value in its constant bounds.
fn reaches_all(an: &crate::Analyzer, lo: &Expr, n: &Expr, top: &IterSplit, below: &Expr) -> bool {
    let c = |e: &Expr| {
        e.as_int()
            .or_else(|| an.simplify(e).ok().and_then(|s| s.as_int()))
    };
    let (Some(n), Some(lf), Some(ext), Some(below)) =
        (c(n), c(&top.lower_factor), c(&top.extent), c(below))
    else {
        return false;
    };
    let b = an.const_int_bound(lo);
    if b.min == crate::NEG_INF || b.max == crate::POS_INF || b.max - b.min > 4096 {
        return false;
    }
    (b.min..=b.max).all(|lo| reaches_all_from(lo, n, lf, ext, below))
}

fn reaches_all_from(lo: i64, n: i64, lf: i64, ext: i64, below: i64) -> bool {
    // In i128, so that no product or sum of i64 values can overflow.
    let (lo, n, lf, ext, below) = (
        lo as i128,
        n as i128,
        lf as i128,
        ext as i128,
        below as i128,
    );
    if n <= 0 || lf <= 0 {
        return false;
    }
    let hi = lo + n;
    let (first, last) = (lo.div_euclid(lf), (hi - 1).div_euclid(lf));
    let distinct = last - first + 1;
    if distinct < ext {
        return false;
    }
    if distinct > ext + 1 {
        // Every top value has a full block of lower digits somewhere.
        return true;
    }
    let first_block = ((first + 1) * lf).min(hi) - lo;
    let last_block = hi - (last * lf).max(lo);
    first_block >= below && last_block >= below
}

/// Boxes of at most this many points are checked by enumeration as well.
const ENUMERATION_LIMIT: i64 = 4096;

/// Checks a detected map against enumeration when every iterator has a
/// constant domain of at most [`ENUMERATION_LIMIT`] points in all: every
/// index tuple must be reached (and, for bijective maps, reached once).
///
/// The digit checks above reason about splits one mark at a time; a split
/// whose last block is partial and feeds a padded mark can pass them while
/// some tuples are never reached. On small boxes enumeration settles it.
pub(crate) fn verify_by_enumeration(
    indices: &[IterSum],
    dom: &std::collections::HashMap<crate::Var, crate::Range>,
    predicate: &Expr,
    level: CheckLevel,
) -> Result<(), IterMapError> {
    if level == CheckLevel::NoCheck {
        return Ok(());
    }
    let mut vars: Vec<(&crate::Var, i64, i64)> = Vec::with_capacity(dom.len());
    let mut points: i64 = 1;
    for (v, r) in dom {
        let (Some(min), Some(extent)) = (r.min.as_int(), r.extent.as_int()) else {
            return Ok(());
        };
        if extent <= 0 {
            return Ok(());
        }
        points = match points.checked_mul(extent) {
            Some(p) if p <= ENUMERATION_LIMIT => p,
            _ => return Ok(()),
        };
        vars.push((v, min, extent));
    }
    vars.sort_by_key(|(v, _, _)| v.id());
    let mut product: i64 = 1;
    let mut forms = Vec::with_capacity(indices.len());
    for sum in indices {
        match sum.args.first() {
            None => forms.push(None),
            Some(a) => {
                let (Some(scale), Some(extent), Some(base)) =
                    (a.scale.as_int(), a.extent.as_int(), sum.base.as_int())
                else {
                    return Ok(());
                };
                if scale == 0 {
                    return Ok(());
                }
                product = match product.checked_mul(extent) {
                    Some(p) => p,
                    None => return Ok(()),
                };
                forms.push(Some((sum.to_expr(), scale, base)));
            }
        }
    }
    let mut values = vec![0i64; vars.len()];
    let mut reached = std::collections::HashSet::new();
    let mut count: i64 = 0;
    for mut k in 0..points {
        for (slot, (_, min, extent)) in values.iter_mut().zip(&vars) {
            *slot = min + k % extent;
            k /= extent;
        }
        let get = |v: &crate::Var| vars.iter().position(|(w, _, _)| *w == v).map(|i| values[i]);
        match predicate.eval(&get) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
        count += 1;
        let mut tuple = Vec::with_capacity(forms.len());
        for form in &forms {
            let digit = match form {
                None => 0,
                Some((e, scale, base)) => match e.eval(&get) {
                    Ok(value) => (value - base).div_euclid(*scale),
                    Err(_) => return Ok(()),
                },
            };
            tuple.push(digit);
        }
        reached.insert(tuple);
    }
    if count == 0 {
        return Ok(());
    }
    if (reached.len() as i64) < product {
        return fail(
            Kind::Padding,
            format!(
                "only {} of the {product} index tuples are reached (checked by enumeration)",
                reached.len()
            ),
        );
    }
    if level == CheckLevel::Bijective && (reached.len() as i64) < count {
        return fail(
            Kind::Overlap,
            "two iterator points reach the same index tuple (checked by enumeration), so the map is not bijective".to_owned(),
        );
    }
    Ok(())
}
