//! The shape-dependent part: given logical extents, check that the digits of
//! each source chain without gaps or overlaps (so the map is injective),
//! derive the transformed extents, the inverse and the padding predicate.
//!
//! For a source `v = Σ c_m x_m + o` whose indices fuse in mixed radix
//! (innermost coefficient 1, each next one the previous times its extent),
//! `v` takes exactly the values `[o, o + N)` with `N = Π extents`, once
//! each. Its digits, sorted by weight, must start at weight 1 and each start
//! where the previous one ends; the top one takes `ceildiv(o + N, lower)`
//! values when it has no modulo. A transformed point is then reached exactly
//! when every source's recombined value `Σ t_k * lower_k` lies in
//! `[o, o + N)` (and constant axes hold their constant), which is the
//! padding predicate's negation. The inverse recombines and splits back:
//! `x_m = ((v - o) // c_m) % S_m`.

use crate::error::{ErrorKind, LayoutError, Result};
use crate::fold;
use crate::split_form::{Axis, SplitForm};
use arith::{Analyzer, ConstBound, Expr, Var, POS_INF};
use smallvec::SmallVec;

/// Why the analysis stopped.
pub(crate) enum Failure {
    /// The map is not in split form, or its digits overlap, leave gaps or
    /// drop an index: possibly not injective (the caller looks for two
    /// colliding indices). The transformed index at fault, when known.
    Structure(String, Option<usize>),
    /// A definite error.
    Hard(LayoutError),
}

impl From<LayoutError> for Failure {
    fn from(e: LayoutError) -> Failure {
        Failure::Hard(e)
    }
}

/// What the analysis derives.
pub(crate) struct Analysis {
    /// The extent of each transformed index.
    pub transformed_shape: Vec<Expr>,
    /// The inverse, one expression per logical index, over `axis_vars`.
    pub inverse: Vec<Expr>,
    /// True exactly on transformed points no logical index reaches;
    /// `None` when every point is reached.
    pub padding: Option<Expr>,
    /// The structure found, for schedules that rebuild the map as loops.
    pub plan: SplitPlan,
}

/// How a map cuts the logical indices, per transformed index: the form a
/// schedule needs to iterate in the transformed space (fuse each source's
/// indices, split it at each digit, reorder).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitPlan {
    /// The sources: fusions of logical indices plus an offset.
    pub sources: Vec<SourcePlan>,
    /// One entry per transformed index.
    pub axes: Vec<AxisPlan>,
}

/// A source of digits: `Σ x_k * stride_k + offset` over `indices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePlan {
    /// Positions of the fused logical indices, outermost first.
    pub indices: Vec<usize>,
    /// The constant part.
    pub offset: Expr,
}

/// What one transformed index is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisPlan {
    /// `(source // lower) % extent` (no modulo for the top digits).
    Digits {
        /// Index into [`SplitPlan::sources`].
        source: usize,
        /// The weight of its lowest digit.
        lower: i64,
        /// How many values it takes.
        extent: Expr,
    },
    /// A constant index.
    Constant(i64),
}

/// Decides facts, with constants folded and an analyzer (knowing that shape
/// symbols are positive) built only when a fact is symbolic.
pub(crate) struct Prover {
    an: Option<Analyzer>,
    symbols: Vec<Var>,
}

impl Prover {
    pub(crate) fn new(shape: &[Expr]) -> Prover {
        let mut symbols = Vec::new();
        for e in shape {
            e.for_each_var(&mut |v| {
                if !symbols.contains(v) {
                    symbols.push(v.clone());
                }
            });
        }
        Prover { an: None, symbols }
    }

    pub(crate) fn analyzer(&mut self) -> &mut Analyzer {
        let symbols = &self.symbols;
        self.an.get_or_insert_with(|| {
            let mut an = Analyzer::new();
            for s in symbols {
                an.update_bound(s, ConstBound::new(1, POS_INF));
            }
            an
        })
    }

    /// Whether `cond` provably holds.
    pub(crate) fn prove(&mut self, cond: Expr) -> bool {
        if let Some(b) = cond.as_bool() {
            return b;
        }
        self.analyzer().can_prove(&cond)
    }

    /// Whether `a == b` provably.
    pub(crate) fn equal(&mut self, a: &Expr, b: &Expr) -> bool {
        if a == b {
            return true;
        }
        match (a.as_int(), b.as_int()) {
            (Some(x), Some(y)) => x == y,
            _ => self.prove(Expr::eq(a.clone(), b.clone())),
        }
    }

    /// Whether `a >= b` provably.
    pub(crate) fn ge(&mut self, a: &Expr, b: &Expr) -> bool {
        match (a.as_int(), b.as_int()) {
            (Some(x), Some(y)) => x >= y,
            _ => a == b || self.prove(Expr::ge(a.clone(), b.clone())),
        }
    }
}

fn structure<T>(msg: impl Into<String>, axis: Option<usize>) -> Result<T, Failure> {
    Err(Failure::Structure(msg.into(), axis))
}

/// One digit group of a source, for sorting by weight.
struct DigitRef<'a> {
    axis: usize,
    lower: i64,
    modulus: Option<&'a Expr>,
}

/// Analyses `form` (of a map with `names` as logical index names) on
/// `shape`; `axis_vars` name the transformed indices in the inverse.
pub(crate) fn analyze(
    form: &SplitForm,
    names: &[Var],
    shape: &[Expr],
    axis_exprs: &[Expr],
    prover: &mut Prover,
    want_plan: bool,
) -> Result<Analysis, Failure> {
    let n_axes = form.axes.len();
    // Shared constants: every `Expr::int` is an allocation.
    let zero = Expr::int(0);
    let one = Expr::int(1);
    let mut transformed_shape = vec![zero.clone(); n_axes];
    let mut inverse: Vec<Option<Expr>> = vec![None; shape.len()];
    let mut padding: Option<Expr> = None;
    let mut used_by: Vec<Option<usize>> = vec![None; shape.len()];
    let mut plan_sources: Vec<SourcePlan> = Vec::new();
    let mut lowers: Vec<i64> = vec![0; n_axes];

    for (k, axis) in form.axes.iter().enumerate() {
        match axis {
            Axis::Other => {
                return structure("is not a split (`x // k`, `x % k`), a fusion (`x * k + y`) or an offset of the logical indices", Some(k))
            }
            Axis::Constant(c) => {
                if *c < 0 {
                    return Err(Failure::Hard(LayoutError::new(
                        ErrorKind::Negative,
                        format!("the transformed index {c} is negative"),
                    )));
                }
                let Some(extent) = c.checked_add(1) else {
                    return Err(Failure::Hard(LayoutError::new(
                        ErrorKind::Arith,
                        format!("the transformed index {c} needs an extent of {c} + 1, which overflows a 64-bit integer"),
                    )));
                };
                transformed_shape[k] = Expr::int(extent);
                if *c > 0 {
                    padding = Some(fold::or(
                        padding,
                        Expr::ne(axis_exprs[k].clone(), Expr::int(*c)),
                    ));
                }
            }
            Axis::Digits { .. } => {}
        }
    }

    // The transformed axes taking digits of each source, in order: one
    // pass (a pass over every axis per source is quadratic in the rank).
    let mut axes_of: Vec<SmallVec<[usize; 2]>> = vec![SmallVec::new(); form.sources.len()];
    for (k, axis) in form.axes.iter().enumerate() {
        if let Axis::Digits { source, .. } = axis {
            axes_of[*source].push(k);
        }
    }
    for (s, source) in form.sources.iter().enumerate() {
        // Mixed-radix order of the fused indices, innermost first.
        let mut order: SmallVec<[(usize, &Expr); 4]> = SmallVec::new();
        let mut left: SmallVec<[&(usize, Expr); 4]> = source.terms.iter().collect();
        let mut want = one.clone();
        while !left.is_empty() {
            // Among equal coefficients, an index of extent one goes inside
            // (it leaves the next coefficient unchanged).
            let mut first_match = None;
            let mut unit = None;
            for p in 0..left.len() {
                if prover.equal(&left[p].1, &want) {
                    first_match.get_or_insert(p);
                    if shape[left[p].0].is_int(1) {
                        unit = Some(p);
                        break;
                    }
                }
            }
            let Some(p) = unit.or(first_match) else {
                let first = axes_of[s].first().copied();
                return structure(
                    "fuses logical indices whose coefficients are not a mixed radix (each the previous one times its extent)",
                    first,
                );
            };
            let &(x, ref c) = left.swap_remove(p);
            if let Some(other) = used_by[x] {
                if other != s {
                    return structure(
                        format!("uses `{}` in two different ways", names[x].name()),
                        None,
                    );
                }
            }
            used_by[x] = Some(s);
            want = fold::mul(c, &shape[x])?;
            order.push((x, c));
        }
        let count = want; // Π extents of the fused indices
        let offset = source.offset.clone();
        if !prover.ge(&offset, &zero) {
            return Err(Failure::Hard(LayoutError::new(
                ErrorKind::Negative,
                format!(
                    "the offset {offset} can be negative, so transformed indices can be negative"
                ),
            )));
        }
        let end = fold::add(&offset, &count)?; // values lie in [offset, end)

        // The digits of this source, by weight.
        let mut digits: SmallVec<[DigitRef<'_>; 4]> = SmallVec::new();
        for &k in &axes_of[s] {
            if let Axis::Digits { lower, modulus, .. } = &form.axes[k] {
                let Some(l) = lower.as_int() else {
                    return structure("divides by a symbolic value", Some(k));
                };
                if modulus.as_ref().is_some_and(|m| m.as_int().is_none()) && digits.len() > 1 {
                    return structure("takes a symbolic modulo", Some(k));
                }
                digits.push(DigitRef {
                    axis: k,
                    lower: l,
                    modulus: modulus.as_ref(),
                });
            }
        }
        digits.sort_by_key(|d| d.lower);
        for d in &digits {
            lowers[d.axis] = d.lower;
        }
        if want_plan {
            plan_sources.push(SourcePlan {
                indices: order.iter().rev().map(|(x, _)| *x).collect(),
                offset: offset.clone(),
            });
        }
        let mut weight = 1i64;
        for (j, d) in digits.iter().enumerate() {
            if d.lower != weight {
                let what = if d.lower > weight { "skips" } else { "repeats" };
                return structure(format!("{what} some digits of its source"), Some(d.axis));
            }
            let top = j + 1 == digits.len();
            match (d.modulus, top) {
                (Some(modulus), false) => {
                    let Some(m) = modulus.as_int() else {
                        return structure("takes a symbolic modulo", Some(d.axis));
                    };
                    transformed_shape[d.axis] = modulus.clone();
                    weight = arith::num::mul(weight, m).map_err(LayoutError::from)?;
                }
                (None, false) => {
                    return structure(
                        "repeats some digits of its source",
                        Some(digits[j + 1].axis),
                    )
                }
                (Some(m), true) => {
                    let covers = match (m.as_int(), end.as_int()) {
                        (Some(mi), Some(ei)) => weight.checked_mul(mi).is_some_and(|c| c >= ei),
                        _ => prover.ge(&fold::mul(&Expr::int(weight), m)?, &end),
                    };
                    if !covers {
                        return structure("drops the top digits of its source", Some(d.axis));
                    }
                    transformed_shape[d.axis] = m.clone();
                }
                (None, true) => {
                    transformed_shape[d.axis] = fold::ceil_div(&end, &Expr::int(weight))?;
                }
            }
        }
        // Recombine: v = Σ t * lower, outermost first.
        let mut v: Option<Expr> = None;
        for d in digits.iter().rev() {
            let t = if d.lower == 1 {
                axis_exprs[d.axis].clone()
            } else {
                Expr::mul(axis_exprs[d.axis].clone(), Expr::int(d.lower))
            };
            v = Some(match v {
                None => t,
                Some(acc) => fold::add(&acc, &t)?,
            });
        }
        let v = v.expect("a source has at least one digit");
        let top = digits.last().expect("at least one digit");
        let top_extent = &transformed_shape[top.axis];
        let cover = if top.lower == 1 {
            top_extent.clone()
        } else {
            fold::mul(&Expr::int(top.lower), top_extent)?
        };
        // Unreached: below the offset, or at or above the end.
        if !offset.is_int(0) {
            padding = Some(fold::or(padding, Expr::lt(v.clone(), offset.clone())));
        }
        if !prover.ge(&end, &cover) {
            padding = Some(fold::or(padding, Expr::ge(v.clone(), end.clone())));
        }
        let u = fold::sub(&v, &offset)?;
        for (m, (x, c)) in order.iter().enumerate().rev() {
            let outermost = m + 1 == order.len();
            let mut e = fold::floor_div(&u, c)?;
            if !outermost {
                e = fold::floor_mod(&e, &shape[*x])?;
            }
            inverse[*x] = Some(e);
        }
    }

    let mut out = Vec::with_capacity(shape.len());
    for (x, inv) in inverse.into_iter().enumerate() {
        match inv {
            Some(e) => out.push(e),
            None if prover.equal(&shape[x], &one) => out.push(zero.clone()),
            None => {
                return structure(
                    format!("`{}` is not used by any transformed index", names[x].name()),
                    None,
                )
            }
        }
    }
    let axes = if !want_plan {
        Vec::new()
    } else {
        form.axes
            .iter()
            .enumerate()
            .map(|(k, a)| match a {
                Axis::Digits { source, .. } => AxisPlan::Digits {
                    source: *source,
                    lower: lowers[k],
                    extent: transformed_shape[k].clone(),
                },
                Axis::Constant(c) => AxisPlan::Constant(*c),
                // Rejected in the first loop.
                Axis::Other => AxisPlan::Constant(0),
            })
            .collect()
    };
    Ok(Analysis {
        transformed_shape,
        inverse: out,
        padding,
        plan: SplitPlan {
            sources: plan_sources,
            axes,
        },
    })
}
