//! Maps outside split form whose indices are still digits of fusions, with
//! the fusions themselves made of digits: a split of a remainder
//! (`(i % 10) // 9`), digits fused again with another index
//! (`(k * 6 + j) % 2 * 4 + i`).
//!
//! `arith`'s iterator-map detection rewrites each transformed index into
//! one split of a *mark* (a logical index, or a fused sum of splits of other
//! marks). The map is injective when every mark's splits chain its digits
//! from weight 1 without gaps or overlaps and every logical index of extent
//! above one is a mark. Then, from the transformed indices down: a mark's
//! value is `Σ digit * lower` over its splits; a split inside a fused mark
//! `P = Σ split_j * scale_j + base` has the digit `((P - base) // scale_j) %
//! extent_j`; a logical index is the value of its mark. A transformed point
//! is reached exactly when every mark's value lies in the values its source
//! takes (`[0, extent)` for an index, `[base, base + Π extents)` for a
//! fusion) and every transformed index sits on its split's grid.
//!
//! Reversals anywhere in the map (`(3 - i % 4) * 5 + j`, `(7 - x + 2) //
//! 2`) are read first: each `c - e`, innermost first, whose `e` is one
//! split of a mark with `E` values becomes `r + (c - base - (E - 1))` for a
//! fresh iterator `r = (E - 1) - digits` of extent `E`. The detection then
//! sees only positive scales, and `r` is one more split of `e`'s mark,
//! whose digits are `(E - 1) - r`.

use crate::analysis::{Analysis, Failure, Prover, SplitPlan};
use crate::error::{ErrorKind, LayoutError};
use crate::fold;
use arith::iter_map::{detect_iter_map_with, CheckLevel, DetectOptions, IterMark, MarkSource};
use arith::{Expr, ExprKind, Range, Var};
use std::collections::HashMap;
use std::sync::Arc;

/// Where the digits of one split of a mark are read from.
enum From {
    /// The transformed index `axis`: `(t - base) // scale`.
    Axis {
        axis: usize,
        scale: Expr,
        base: Expr,
    },
    /// The reversed iterator whose mark is `aux` (index into the mark
    /// table): `(extent - 1) - value`.
    Reversed { aux: usize },
    /// Split `arg` of the fused mark `parent` (index into the mark table):
    /// `((value - base) // scale) % extent`, the modulo left out for its
    /// top split.
    Parent { parent: usize, arg: usize },
}

/// One split of a mark: its digits from weight `lower`, `extent` values.
struct Use {
    lower: Expr,
    extent: Expr,
    from: From,
}

struct Mark {
    mark: Arc<IterMark>,
    uses: Vec<Use>,
}

/// A fresh iterator standing for a reversed split: `var = (extent - 1) -
/// digits`, the digits being `(mark // lower) % extent`.
struct Reversed {
    /// The `c - e` it stands for (after inner reversals were replaced):
    /// equal reversals share one iterator.
    of: Expr,
    /// `r + shift`, what replaces it.
    replacement: Expr,
    var: Var,
    mark: Arc<IterMark>,
    lower: Expr,
    extent: Expr,
}

/// Rewrites `e` bottom-up, replacing each `c - e` (with `e` one split of a
/// mark, scale one) by `r + (c - base - (E - 1))` for a fresh iterator `r`
/// added to `dom` and `out`. `None` when the expression is too deep.
fn unreverse(
    e: &Expr,
    initial: &[Var],
    dom: &mut HashMap<Var, Range>,
    out: &mut Vec<Reversed>,
    prover: &mut Prover,
    options: &DetectOptions,
    depth: usize,
) -> Option<Expr> {
    if depth > 64 {
        return None;
    }
    let kids = e.children();
    if kids.is_empty() {
        return Some(e.clone());
    }
    let mut new = Vec::with_capacity(kids.len());
    for k in &kids {
        new.push(unreverse(k, initial, dom, out, prover, options, depth + 1)?);
    }
    let e = e.with_children(&new);
    let ExprKind::Sub(c, inner) = e.kind() else {
        return Some(e);
    };
    let uses = |x: &Expr| {
        let mut found = false;
        x.for_each_var(&mut |v| found |= dom.contains_key(v));
        found
    };
    if uses(c) || !uses(inner) || !crate::reversal::has_value(c) {
        return Some(e);
    }
    if let Some(r) = out.iter().find(|r| r.of == e) {
        return Some(r.replacement.clone());
    }
    let Ok(d) = detect_iter_map_with(
        std::slice::from_ref(inner),
        dom,
        &Expr::bool(true),
        options,
        prover.analyzer(),
    ) else {
        return Some(e);
    };
    let sum = &d.indices[0];
    let [split] = sum.args.as_slice() else {
        return Some(e);
    };
    if !split.scale.is_int(1) {
        return Some(e);
    }
    let var = Var::new(format!("reversed{}", out.len()));
    dom.insert(var.clone(), Range::from_extent(split.extent.clone()));
    let last = fold::sub(&split.extent, &Expr::int(1)).ok()?;
    let shift = fold::sub(&fold::sub(c, &sum.base).ok()?, &last).ok()?;
    let replacement = fold::add(&var.expr(), &shift).ok()?;
    out.push(Reversed {
        of: e.clone(),
        replacement: replacement.clone(),
        var: var.clone(),
        mark: split.source.clone(),
        lower: split.lower_factor.clone(),
        extent: split.extent.clone(),
    });
    let _ = initial;
    Some(replacement)
}

fn structure<T>(msg: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Structure(msg.into(), None))
}

fn hard(e: LayoutError) -> Failure {
    Failure::Hard(e)
}

/// The position of `mark` in `marks`, added (with the uses of its fused
/// sum queued) when new.
fn intern(marks: &mut Vec<Mark>, queue: &mut Vec<usize>, mark: &Arc<IterMark>) -> usize {
    if let Some(p) = marks.iter().position(|m| *m.mark == **mark) {
        return p;
    }
    marks.push(Mark {
        mark: mark.clone(),
        uses: Vec::new(),
    });
    queue.push(marks.len() - 1);
    marks.len() - 1
}

/// Analyses `finals` (over the logical indices `initial` of `shape`) as
/// nested splits and fusions; `axis_exprs` name the transformed indices.
///
/// The iterator-map rewrite first pads a divided offset source `x + c`
/// only by `c % d` (`(x + 3) // 2` is `(x + 1) // 2 + 1`, whose digits take
/// `[0, 4)`); when that leaves a fusion with a gap (`(x + 3) % 2 * 5 + (x +
/// 3) // 2`, a radix of 5 above a digit of 4 values), it is read again with
/// every such source one mark `x + c` of values `[c, c + extent)`, whose
/// quotient digits take `[0, 5)` and so chain, and with the top digits of a
/// mark allowed under a larger radix (`x1 * 9 + x0`, `x0` in `[0, 7)`); then
/// once more with logical indices of extent one kept as iterators, so their
/// offset digits keep their radix. The values skipped are padding, which
/// the mark ranges below catch. The first reading is kept when it works, so
/// the maps it accepts keep their inverse and padding.
pub(crate) fn analyze(
    initial: &[Var],
    finals: &[Expr],
    shape: &[Expr],
    axis_exprs: &[Expr],
    prover: &mut Prover,
) -> Result<Analysis, Failure> {
    let first = DetectOptions {
        check_level: CheckLevel::NoCheck,
        ..DetectOptions::default()
    };
    match analyze_with(initial, finals, shape, axis_exprs, prover, &first) {
        Err(Failure::Structure(msg, at)) => {
            let offsets = DetectOptions {
                offset_marks: true,
                widen_top_digits: true,
                ..first
            };
            let kept = DetectOptions {
                simplify_trivial_iterators: false,
                ..offsets
            };
            analyze_with(initial, finals, shape, axis_exprs, prover, &offsets)
                .or_else(|_| analyze_with(initial, finals, shape, axis_exprs, prover, &kept))
                .map_err(|_| Failure::Structure(msg, at))
        }
        other => other,
    }
}

/// [`analyze`] with one reading of the iterator-map rewrite.
fn analyze_with(
    initial: &[Var],
    finals: &[Expr],
    shape: &[Expr],
    axis_exprs: &[Expr],
    prover: &mut Prover,
    options: &DetectOptions,
) -> Result<Analysis, Failure> {
    let zero = Expr::int(0);
    let one = Expr::int(1);
    let mut dom: HashMap<Var, Range> = initial
        .iter()
        .zip(shape)
        .map(|(v, e)| (v.clone(), Range::from_extent(e.clone())))
        .collect();
    let mut reversed: Vec<Reversed> = Vec::new();
    let mut rewritten = Vec::with_capacity(finals.len());
    for e in finals {
        let Some(r) = unreverse(e, initial, &mut dom, &mut reversed, prover, options, 0) else {
            return structure("nests too deeply");
        };
        rewritten.push(r);
    }
    let detected = match detect_iter_map_with(
        &rewritten,
        &dom,
        &Expr::bool(true),
        options,
        prover.analyzer(),
    ) {
        Ok(d) => d,
        Err(e) => return structure(format!("is not an iterator map: {e}")),
    };

    let mut transformed_shape = vec![zero.clone(); finals.len()];
    let mut padding: Option<Expr> = None;
    let mut marks: Vec<Mark> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    for (k, sum) in detected.indices.iter().enumerate() {
        let t = &axis_exprs[k];
        match sum.args.as_slice() {
            [] => {
                let Some(c) = sum.base.as_int() else {
                    return structure(format!("`{}` is a symbolic constant", finals[k]));
                };
                if c < 0 {
                    return Err(hard(LayoutError::new(
                        ErrorKind::Negative,
                        format!("the transformed index {c} is negative"),
                    )));
                }
                transformed_shape[k] = Expr::int(c.checked_add(1).ok_or_else(|| {
                    hard(LayoutError::new(
                        ErrorKind::Arith,
                        "a constant transformed index overflows",
                    ))
                })?);
                if c > 0 {
                    padding = Some(fold::or(padding, Expr::ne(t.clone(), Expr::int(c))));
                }
            }
            [split] => {
                let base = &sum.base;
                if !prover.ge(base, &zero) {
                    return Err(hard(LayoutError::new(
                        ErrorKind::Negative,
                        format!("the offset {base} can be negative, so transformed indices can be negative"),
                    )));
                }
                if !prover.ge(&split.scale, &one) {
                    return structure("has a scale that is not positive");
                }
                // base + scale * (extent - 1) + 1 values.
                let last = fold::mul(&split.scale, &fold::sub(&split.extent, &one)?)?;
                transformed_shape[k] = fold::add(&fold::add(base, &last)?, &one)?;
                if !base.is_int(0) {
                    padding = Some(fold::or(padding, Expr::lt(t.clone(), base.clone())));
                }
                let shifted = fold::sub(t, base)?;
                if !split.scale.is_int(1) {
                    padding = Some(fold::or(
                        padding,
                        Expr::ne(fold::floor_mod(&shifted, &split.scale)?, zero.clone()),
                    ));
                }
                let m = intern(&mut marks, &mut queue, &split.source);
                marks[m].uses.push(Use {
                    lower: split.lower_factor.clone(),
                    extent: split.extent.clone(),
                    from: From::Axis {
                        axis: k,
                        scale: split.scale.clone(),
                        base: base.clone(),
                    },
                });
            }
            _ => return structure(format!("`{}` is not one split of a fusion", finals[k])),
        }
    }
    // The splits inside fused marks.
    while let Some(p) = queue.pop() {
        if let MarkSource::Iter(e) = &marks[p].mark.source {
            // A reversed iterator is one more split of its mark.
            if let Some(r) = e
                .as_var()
                .and_then(|v| reversed.iter().find(|r| r.var == *v))
            {
                let c = intern(&mut marks, &mut queue, &r.mark);
                marks[c].uses.push(Use {
                    lower: r.lower.clone(),
                    extent: r.extent.clone(),
                    from: From::Reversed { aux: p },
                });
            }
            continue;
        }
        let MarkSource::Fused(sum) = &marks[p].mark.source else {
            continue;
        };
        let sum = sum.clone();
        for (arg, a) in sum.args.iter().enumerate() {
            let c = intern(&mut marks, &mut queue, &a.source);
            marks[c].uses.push(Use {
                lower: a.lower_factor.clone(),
                extent: a.extent.clone(),
                from: From::Parent { parent: p, arg },
            });
        }
    }
    // Each fused mark is a mixed radix from scale 1: `[base, end)` are the
    // values it takes, `top_arg` its outermost split.
    let mut fused_end: Vec<Option<(Expr, usize)>> = vec![None; marks.len()];
    for (m, mark) in marks.iter().enumerate() {
        let MarkSource::Fused(sum) = &mark.mark.source else {
            continue;
        };
        let mut left: Vec<usize> = (0..sum.args.len()).collect();
        let mut weight = one.clone();
        let mut top = 0;
        while !left.is_empty() {
            let Some(p) = left
                .iter()
                .position(|&a| prover.equal(&sum.args[a].scale, &weight))
            else {
                return structure(format!(
                    "fuses `{}` with scales that are not a mixed radix",
                    mark.mark.to_expr()
                ));
            };
            top = left.swap_remove(p);
            weight = fold::mul(&weight, &sum.args[top].extent)?;
        }
        if !prover.ge(&sum.base, &zero) {
            return Err(hard(LayoutError::new(
                ErrorKind::Negative,
                format!("the offset {} can be negative", sum.base),
            )));
        }
        fused_end[m] = Some((fold::add(&sum.base, &weight)?, top));
    }

    // Each mark's digits chain from weight 1; `cover` is where they end.
    let mut order: Vec<Vec<usize>> = Vec::with_capacity(marks.len());
    let mut covers: Vec<Expr> = Vec::with_capacity(marks.len());
    for m in &marks {
        let mut left: Vec<usize> = (0..m.uses.len()).collect();
        let mut chain = Vec::with_capacity(left.len());
        let mut weight = one.clone();
        while !left.is_empty() {
            let Some(p) = left
                .iter()
                .position(|&u| prover.equal(&m.uses[u].lower, &weight))
            else {
                return structure(format!(
                    "uses some digits of `{}` twice or skips some",
                    m.mark.to_expr()
                ));
            };
            let u = left.swap_remove(p);
            weight = fold::mul(&weight, &m.uses[u].extent)?;
            chain.push(u);
        }
        if !prover.ge(&weight, &m.mark.extent) {
            return structure(format!("drops the top digits of `{}`", m.mark.to_expr()));
        }
        order.push(chain);
        covers.push(weight);
    }

    // Values, from the transformed indices down: a mark needs the values
    // of the fused marks it sits in, so sweep until all are known (marks
    // nest at most as deep as the map's text).
    let mut values: Vec<Option<Expr>> = vec![None; marks.len()];
    let mut known = 0;
    while known < marks.len() {
        let before = known;
        'marks: for m in 0..marks.len() {
            if values[m].is_some() {
                continue;
            }
            let mut v: Option<Expr> = None;
            for &u in order[m].iter().rev() {
                let us = &marks[m].uses[u];
                let digit = match &us.from {
                    From::Axis { axis, scale, base } => {
                        fold::floor_div(&fold::sub(&axis_exprs[*axis], base)?, scale)?
                    }
                    From::Reversed { aux } => {
                        let Some(rv) = &values[*aux] else {
                            continue 'marks;
                        };
                        fold::sub(&fold::sub(&us.extent, &one)?, rv)?
                    }
                    From::Parent { parent, arg } => {
                        let Some(pv) = &values[*parent] else {
                            continue 'marks;
                        };
                        let (MarkSource::Fused(psum), Some((_, top))) =
                            (&marks[*parent].mark.source, &fused_end[*parent])
                        else {
                            return structure("splits an index inside an index");
                        };
                        let d =
                            fold::floor_div(&fold::sub(pv, &psum.base)?, &psum.args[*arg].scale)?;
                        if top == arg {
                            d
                        } else {
                            fold::floor_mod(&d, &us.extent)?
                        }
                    }
                };
                let term = fold::mul(&digit, &us.lower)?;
                v = Some(match v {
                    None => term,
                    Some(acc) => fold::add(&acc, &term)?,
                });
            }
            values[m] = v;
            known += 1;
        }
        if known == before {
            return structure("nests its fusions in a cycle");
        }
    }

    let mut inverse: Vec<Option<Expr>> = vec![None; initial.len()];
    for (m, mark) in marks.iter().enumerate() {
        let value = values[m].clone().expect("every mark has a split");
        match &mark.mark.source {
            MarkSource::Iter(e) => {
                let aux = e
                    .as_var()
                    .is_some_and(|v| reversed.iter().any(|r| r.var == *v));
                if aux {
                    if !prover.ge(&mark.mark.extent, &covers[m]) {
                        padding =
                            Some(fold::or(padding, Expr::ge(value, mark.mark.extent.clone())));
                    }
                    continue;
                }
                let Some(x) = e.as_var().and_then(|v| initial.iter().position(|w| w == v)) else {
                    return structure(format!("iterates over `{e}`, not a logical index"));
                };
                if inverse[x].is_some() {
                    return structure(format!("uses `{}` in two ways", initial[x].name()));
                }
                if !prover.ge(&mark.mark.extent, &covers[m]) {
                    padding = Some(fold::or(
                        padding,
                        Expr::ge(value.clone(), mark.mark.extent.clone()),
                    ));
                }
                inverse[x] = Some(value);
            }
            MarkSource::Fused(sum) => {
                let (end, _) = fused_end[m].clone().expect("checked above");
                if !sum.base.is_int(0) {
                    padding = Some(fold::or(padding, Expr::lt(value.clone(), sum.base.clone())));
                }
                if !prover.ge(&end, &covers[m]) {
                    padding = Some(fold::or(padding, Expr::ge(value, end)));
                }
            }
        }
    }
    let mut out = Vec::with_capacity(initial.len());
    for (x, inv) in inverse.into_iter().enumerate() {
        match inv {
            Some(e) => out.push(e),
            None if prover.equal(&shape[x], &one) => out.push(zero.clone()),
            None => {
                return structure(format!(
                    "does not use `{}` in any transformed index",
                    initial[x].name()
                ))
            }
        }
    }
    Ok(Analysis {
        transformed_shape,
        inverse: out,
        padding,
        plan: SplitPlan {
            sources: Vec::new(),
            axes: Vec::new(),
        },
    })
}
