//! Bounding the maps that reach one value: many maps merged into their
//! hull, and a map with too many range variables replaced by its own.
//!
//! Composing through a deep module multiplies dataflow paths: in the
//! gradient of an N-layer network a value is reached by O(N) distinct maps,
//! each with O(N) range variables (one per window it went through), so
//! exact whole-module maps cost O(N^4). Once the maps reaching one value
//! outgrow [`MAP_BUDGET`], or one map outgrows [`RANGE_VARIABLE_BUDGET`],
//! they are replaced by a hull: one map whose image contains every index
//! each of them gives, marked conservative. Each result of the hull keeps
//! the part that is linear in the dimensions when every merged map has the
//! same one (`d1 + s0`, `s0 in [-3, 2]`), and is a range variable over all
//! the values it takes otherwise; the indices are clipped to the shape of
//! the value they index, since nothing out of bounds is ever read.
//! Constraints are dropped and runtime variables enumerated over their
//! valid ranges: both only add indices.

use crate::operand_indexing::OperandMap;
use arith::{ConstBound, Expr, LinearForm, NEG_INF, POS_INF};
use indexing::{IndexingMap, Interval, VarKind, Variable};

/// How many distinct maps may reach one value (an instruction's output,
/// or a parameter of a computation taken as a fusion) before they are
/// merged into their hull. Identical maps are de-duplicated first.
pub const MAP_BUDGET: usize = 8;

/// How many range and runtime variables one composed map may have before
/// it is replaced by its hull.
pub const RANGE_VARIABLE_BUDGET: usize = 16;

/// The hull of `maps`: one map from the same dimensions whose image, at
/// every dimension point, contains the image of each of `maps` (within
/// `bounds`, the dimensions of the indexed shape, when given), marked
/// conservative with `reason`.
///
/// `None` when the maps cannot share one map: none, different numbers of
/// dimensions or results, different tuple elements, a replica map, an
/// undefined map, or a result whose values have no finite range. Known
/// empty maps add nothing; when all are, the first is the hull (exact).
///
/// ```
/// use hlo::{map_hull, OperandMap};
/// use indexing::IndexingMap;
/// let maps: Vec<OperandMap> = [
///     "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 7], s0 in [0, 2]",
///     "(d0)[s0, s1] -> (d0 + s0 + s1 - 2), domain: d0 in [0, 7], s0 in [0, 2], s1 in [0, 2]",
/// ]
/// .iter()
/// .map(|t| OperandMap::plain(IndexingMap::parse(t).unwrap()))
/// .collect();
/// let hull = map_hull(&maps, Some(&[10]), "two paths").unwrap();
/// assert_eq!(
///     hull.map.to_string(),
///     "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 7], s0 in [-2, 2], d0 + s0 in [0, 9]"
/// );
/// assert_eq!(hull.conservative.as_deref(), Some("two paths"));
/// ```
pub fn map_hull(
    maps: &[OperandMap],
    bounds: Option<&[i64]>,
    reason: impl Into<String>,
) -> Option<OperandMap> {
    let first = maps.first()?;
    let (num_dims, num_results) = (first.map.num_dims(), first.map.num_results());
    if maps.iter().any(|m| {
        m.replica.is_some()
            || m.map.is_undefined()
            || m.element != first.element
            || m.map.num_dims() != num_dims
            || m.map.num_results() != num_results
    }) || bounds.is_some_and(|b| b.len() != num_results)
    {
        return None;
    }
    let live: Vec<&IndexingMap> = maps
        .iter()
        .map(|m| &m.map)
        .filter(|m| !m.is_known_empty())
        .collect();
    if live.is_empty() {
        return Some(first.clone());
    }
    let dims: Vec<Variable> = (0..num_dims)
        .map(|j| {
            let range = live
                .iter()
                .map(|m| m.dims()[j].bounds())
                .reduce(Interval::hull)
                .expect("at least one live map");
            Variable::new(range)
        })
        .collect();
    let mut symbols = Vec::new();
    let mut results = Vec::with_capacity(num_results);
    let mut clips = Vec::new();
    for k in 0..num_results {
        let parts: Vec<ResultPart> = live.iter().map(|m| ResultPart::of(m, k)).collect();
        let target = bounds.map(|b| Interval::of_size(b[k]));
        let common = parts
            .iter()
            .map(|p| p.dim_coefficients.as_ref())
            .reduce(|a, b| if a == b { a } else { None })
            .flatten();
        match common {
            Some(coefficients) => {
                let offset = hull_of(parts.iter().map(|p| p.offset_range))?;
                let linear = coefficients
                    .iter()
                    .zip(&dims)
                    .filter(|(&c, _)| c != 0)
                    .map(|(&c, d)| d.expr() * c)
                    .reduce(|a, b| a + b);
                let result = match (linear, offset.as_point()) {
                    (None, _) => {
                        let range = clipped(offset, target);
                        match range.as_point() {
                            Some(v) => Expr::int(v),
                            None => new_symbol(&mut symbols, range),
                        }
                    }
                    (Some(linear), Some(v)) => linear + Expr::int(v),
                    (Some(linear), None) => linear + new_symbol(&mut symbols, offset),
                };
                if let Some(target) = target {
                    clips.push((result.clone(), target));
                }
                results.push(result);
            }
            None => {
                let range = clipped(hull_of(parts.iter().map(|p| p.range))?, target);
                results.push(match range.as_point() {
                    Some(v) => Expr::int(v),
                    None => new_symbol(&mut symbols, range),
                });
            }
        }
    }
    let mut map = IndexingMap::new(dims, symbols, Vec::new(), results).ok()?;
    for (result, target) in clips {
        // Only a result that can leave the shape needs the constraint, and
        // one that never meets it (no valid read) is left unconstrained.
        let range = map.expression_range(&result);
        if !target.contains_interval(range) && !target.intersect(range).is_empty() {
            map.add_constraint(result, target).ok()?;
        }
    }
    map.simplify();
    Some(OperandMap {
        element: first.element,
        ..OperandMap::conservative(map, reason)
    })
}

/// A result of one map split as `sum(c_j * d_j) + offset`, with the range
/// of the offset and of the whole result over the map's variables.
struct ResultPart {
    /// `c_j` per dimension, or `None` when a dimension appears other than
    /// linearly (or the expression has no linear form).
    dim_coefficients: Option<Vec<i64>>,
    offset_range: Interval,
    range: Interval,
}

impl ResultPart {
    fn of(map: &IndexingMap, k: usize) -> ResultPart {
        let result = &map.results()[k];
        let range = map.expression_range(result);
        let Ok(form) = LinearForm::of(result) else {
            return ResultPart {
                dim_coefficients: None,
                offset_range: range,
                range,
            };
        };
        let mut coefficients = vec![0i64; map.num_dims()];
        let mut offset = LinearForm {
            terms: Vec::new(),
            constant: form.constant,
        };
        for (atom, c) in form.terms {
            match atom.as_var().and_then(|v| map.find_var(v)) {
                Some((VarKind::Dim, j)) => coefficients[j] = c,
                _ => offset.terms.push((atom, c)),
            }
        }
        let offset = offset.to_expr();
        // A dimension inside a non-linear term (`d0 floordiv 2`) ties the
        // offset to the dimension's values: no common linear part then.
        let linear = !mentions_dim(map, &offset);
        ResultPart {
            dim_coefficients: linear.then_some(coefficients),
            offset_range: map.expression_range(&offset),
            range,
        }
    }
}

/// Whether `e` uses a dimension of `map`.
fn mentions_dim(map: &IndexingMap, e: &Expr) -> bool {
    let mut stack = vec![e];
    while let Some(n) = stack.pop() {
        if let Some(v) = n.as_var() {
            if matches!(map.find_var(v), Some((VarKind::Dim, _))) {
                return true;
            }
        }
        stack.extend(n.children());
    }
    false
}

/// The smallest interval holding all of `ranges`, or `None` when one has no
/// finite end (a hull over it would say nothing and could overflow).
fn hull_of(ranges: impl Iterator<Item = Interval>) -> Option<Interval> {
    let hull = ranges.reduce(Interval::hull)?;
    let bound: ConstBound = hull.to_bound();
    (bound.min != NEG_INF && bound.max != POS_INF).then_some(hull)
}

/// `range` within `target` when they meet (an index outside the shape is
/// never read); unchanged otherwise.
fn clipped(range: Interval, target: Option<Interval>) -> Interval {
    match target.map(|t| t.intersect(range)) {
        Some(r) if !r.is_empty() => r,
        _ => range,
    }
}

/// A new range variable over `range`, as an expression.
fn new_symbol(symbols: &mut Vec<Variable>, range: Interval) -> Expr {
    let v = Variable::new(range);
    let e = v.expr();
    symbols.push(v);
    e
}

/// The number of range and runtime variables of `m`: what
/// [`RANGE_VARIABLE_BUDGET`] limits.
pub(crate) fn range_variables(m: &OperandMap) -> usize {
    m.map.num_symbols() + m.map.rt_vars().len()
}
