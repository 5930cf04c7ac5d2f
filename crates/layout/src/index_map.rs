//! [`IndexMap`]: TVM's map from logical indices to transformed indices,
//! with axis separators.

use crate::analysis::{analyze, Analysis, Failure, Prover, SplitPlan};
use crate::error::{ErrorKind, LayoutError, Result};
use crate::lambda::{self, Item};
use crate::split_form::SplitForm;
use crate::{nested, reversal};
use arith::{Expr, Scope, Var};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// Where the parts of a map were in its lambda text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Spans {
    params: Range<usize>,
    finals: Vec<Range<usize>>,
    body: Range<usize>,
}

/// A layout transform: initial (logical) index variables, the final
/// (transformed) index expressions over them, and the positions of axis
/// separators among the final indices.
///
/// ```
/// use layout::IndexMap;
/// use arith::Expr;
/// let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
/// assert_eq!(map.map_point(&[42]).unwrap(), vec![10, 2]);
/// let shape = map.map_shape(&[Expr::int(14)]).unwrap();
/// assert_eq!(shape, vec![Expr::int(4), Expr::int(4)]);
/// let (inverse, padding) = map.non_surjective_inverse(&[Expr::int(14)]).unwrap();
/// assert_eq!(inverse.to_string(), "lambda i0, i1: [i0 * 4 + i1]");
/// assert_eq!(padding.unwrap().to_string(), "i0 * 4 + i1 >= 14");
/// ```
#[derive(Clone, Debug)]
pub struct IndexMap {
    initial: Vec<Var>,
    finals: Vec<Expr>,
    separators: Vec<usize>,
    /// The split form, derived on first use (it depends on the map alone).
    form: OnceLock<SplitForm>,
    /// The transformed index variables `i0, i1, ...` (and their
    /// expressions), made once: inverses of this map share them.
    axes: OnceLock<(Vec<Var>, Vec<Expr>)>,
    spans: Option<Spans>,
}

/// Two logical indices that a map sends to the same place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The first logical index (row-major order).
    pub first: Vec<i64>,
    /// A later logical index with the same image.
    pub second: Vec<i64>,
    /// Their common transformed index.
    pub image: Vec<i64>,
    /// Values given to shape symbols to find them (empty for constant
    /// shapes): the smallest common value at which the two indices collide.
    pub symbols: Vec<(String, i64)>,
    /// For a symbolic shape, the condition on its symbols under which both
    /// indices lie in the shape and collide (`8 < n` for `i % 8` over `n`),
    /// when the map itself does not use the symbols; `None` otherwise.
    pub condition: Option<Expr>,
}

impl fmt::Display for Collision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.symbols.is_empty() {
            let s: Vec<String> = self
                .symbols
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect();
            write!(f, "with {}, ", s.join(", "))?;
        }
        write!(
            f,
            "{:?} and {:?} both map to {:?}",
            self.first, self.second, self.image
        )?;
        if let Some(c) = &self.condition {
            write!(f, ", as they do whenever {c}")?;
        }
        Ok(())
    }
}

/// The most logical points the injectivity search enumerates per attempt.
const SEARCH_BUDGET: usize = 1 << 16;

impl IndexMap {
    /// A map from its parts. `separators` are positions in `finals` where a
    /// new physical axis starts (TVM's `axis_separators`), strictly
    /// increasing and strictly inside `1..finals.len()`.
    pub fn new(initial: Vec<Var>, finals: Vec<Expr>, separators: Vec<usize>) -> Result<IndexMap> {
        let mut prev = 0;
        for &s in &separators {
            if s <= prev || s >= finals.len() {
                return Err(LayoutError::new(
                    ErrorKind::Syntax,
                    "an axis separator must stand between two indices (not first, last or next to another)",
                ));
            }
            prev = s;
        }
        for e in &finals {
            if e.ty() != arith::Type::Int {
                return Err(LayoutError::new(
                    ErrorKind::Syntax,
                    format!("`{e}` is a condition, not an index"),
                ));
            }
        }
        // Constant parts are folded as TVM's constructors fold them, so
        // that `i - 1 // 4` is read as the offset zero it is.
        let finals: Vec<Expr> = finals.iter().map(crate::fold::constants).collect();
        Ok(IndexMap {
            initial,
            finals,
            separators,
            form: OnceLock::new(),
            axes: OnceLock::new(),
            spans: None,
        })
    }

    /// Parses a lambda such as `lambda n, h, w, c: [n, c // 4, h,
    /// te.AXIS_SEPARATOR, w, c % 4]`. Every name must be a parameter.
    pub fn parse(text: &str) -> Result<IndexMap> {
        IndexMap::parse_with(text, &Scope::new())
    }

    /// [`IndexMap::parse`] where the names in `symbols` (shape symbols such
    /// as `N`) may also appear. Errors carry spans into `text`.
    pub fn parse_with(text: &str, symbols: &Scope) -> Result<IndexMap> {
        IndexMap::parse_in(text, symbols).map_err(|e| e.within(text))
    }

    fn parse_in(text: &str, symbols: &Scope) -> Result<IndexMap> {
        let l = lambda::split_lambda(text)?;
        let mut scope = symbols.clone();
        let mut initial = Vec::with_capacity(l.params.len());
        for (name, span) in &l.params {
            if symbols.get(name).is_some() {
                return Err(LayoutError::new(
                    ErrorKind::Syntax,
                    format!("parameter `{name}` has the name of a shape symbol; rename it"),
                )
                .at(Some(span.clone())));
            }
            let v = Var::new(name.as_str());
            scope.insert(v.clone());
            initial.push(v);
        }
        let mut finals = Vec::new();
        let mut spans = Vec::new();
        let mut separators = Vec::new();
        let n_items = l.items.len();
        for (k, item) in l.items.iter().enumerate() {
            match item {
                Item::Separator(span) => {
                    let prev_is_sep = k > 0 && matches!(l.items[k - 1], Item::Separator(_));
                    if finals.is_empty() || k + 1 == n_items || prev_is_sep {
                        return Err(LayoutError::new(
                            ErrorKind::Syntax,
                            "an axis separator must stand between two indices",
                        )
                        .at(Some(span.clone())));
                    }
                    separators.push(finals.len());
                }
                Item::Index(span) => {
                    let src = &text[span.clone()];
                    // One scope for every index (a copy per index is
                    // quadratic in the rank): a name it gains is unknown,
                    // and an error, so the scope is not used again.
                    let known = scope.vars().len();
                    let e = arith::parse_in(src, &mut scope)
                        .map_err(|e| LayoutError::from(e.shifted(span.start)))?;
                    if let Some(v) = scope.vars().get(known) {
                        let at =
                            lambda::find_name(text, span.clone(), v.name()).unwrap_or(span.clone());
                        let params: Vec<&str> = l.params.iter().map(|(n, _)| n.as_str()).collect();
                        return Err(LayoutError::new(
                            ErrorKind::UnknownName,
                            format!(
                                "unknown name `{}`: the indices are {}",
                                v.name(),
                                if params.is_empty() {
                                    "none".to_string()
                                } else {
                                    params.join(", ")
                                }
                            ),
                        )
                        .at(Some(at)));
                    }
                    if e.ty() != arith::Type::Int {
                        return Err(LayoutError::new(
                            ErrorKind::Syntax,
                            "a transformed index must be an integer expression, not a condition",
                        )
                        .at(Some(span.clone())));
                    }
                    finals.push(e);
                    spans.push(span.clone());
                }
            }
        }
        if finals.is_empty() {
            return Err(
                LayoutError::new(ErrorKind::Syntax, "the map has no transformed indices")
                    .at(Some(l.body_span)),
            );
        }
        let mut map = IndexMap::new(initial, finals, separators)?;
        map.spans = Some(Spans {
            params: l.params_span,
            finals: spans,
            body: l.body_span,
        });
        Ok(map)
    }

    /// The logical index variables.
    pub fn initial_indices(&self) -> &[Var] {
        &self.initial
    }

    /// The transformed index expressions.
    pub fn final_indices(&self) -> &[Expr] {
        &self.finals
    }

    /// Positions in [`IndexMap::final_indices`] where a new physical axis
    /// starts.
    pub fn axis_separators(&self) -> &[usize] {
        &self.separators
    }

    /// The same map without axis separators.
    pub fn without_separators(&self) -> IndexMap {
        IndexMap {
            separators: Vec::new(),
            ..self.clone()
        }
    }

    fn span_of_final(&self, k: usize) -> Option<Range<usize>> {
        self.spans.as_ref().and_then(|s| s.finals.get(k).cloned())
    }

    /// Where the transformed indices were in the map's text, if parsed.
    pub(crate) fn body_span(&self) -> Option<Range<usize>> {
        self.spans.as_ref().map(|s| s.body.clone())
    }

    /// Checks that `indices` has one entry per logical index.
    fn check_arity(&self, n: usize, what: &str) -> Result<()> {
        if n != self.initial.len() {
            return Err(LayoutError::new(
                ErrorKind::Arity,
                format!(
                    "the map takes {} indices but the {what} has {n}",
                    self.initial.len()
                ),
            )
            .at(self.spans.as_ref().map(|s| s.params.clone())));
        }
        Ok(())
    }

    /// The transformed index of a constant logical index.
    pub fn map_point(&self, index: &[i64]) -> Result<Vec<i64>> {
        self.check_arity(index.len(), "index")?;
        let at = crate::split_form::Positions::new(&self.initial);
        let env = |v: &Var| at.of(v).map(|k| index[k]);
        self.finals
            .iter()
            .map(|e| e.eval(&env).map_err(LayoutError::from))
            .collect()
    }

    /// The transformed index of `indices` (expressions): constants are
    /// evaluated, anything else substituted and simplified (a constant
    /// index of a map that names shape symbols, `a * N + b`, stays symbolic).
    pub fn map_indices(&self, indices: &[Expr]) -> Result<Vec<Expr>> {
        self.check_arity(indices.len(), "index")?;
        let positions = crate::split_form::Positions::new(&self.initial);
        let only_indices = || {
            self.finals.iter().all(|e| {
                let mut own = true;
                e.for_each_var(&mut |v| own &= positions.of(v).is_some());
                own
            })
        };
        if let Some(point) = indices
            .iter()
            .map(|e| e.as_int())
            .collect::<Option<Vec<_>>>()
            .filter(|_| only_indices())
        {
            return Ok(self.map_point(&point)?.into_iter().map(Expr::int).collect());
        }
        let an = arith::Analyzer::new();
        let at = crate::split_form::Positions::new(&self.initial);
        self.finals
            .iter()
            .map(|e| {
                let s = e.substitute(&mut |v| at.of(v).map(|k| indices[k].clone()));
                Ok(an.simplify(&s)?)
            })
            .collect()
    }

    /// Validates a logical shape: one positive extent per index.
    fn check_shape(&self, shape: &[Expr]) -> Result<()> {
        self.check_arity(shape.len(), "shape")?;
        for e in shape {
            if e.ty() != arith::Type::Int || e.as_int().is_some_and(|v| v < 1) {
                return Err(LayoutError::new(
                    ErrorKind::OutOfBounds,
                    format!("shape extent `{e}` must be a positive integer"),
                ));
            }
        }
        Ok(())
    }

    /// Runs the analysis on `shape`, turning structural failures into a
    /// collision (not injective) when one can be found.
    ///
    /// The forms are tried in turn: digits of fusions of logical indices
    /// (`split_form`), nested splits and fusions (`nested`), and both again
    /// with reversed indices flipped (`reversal`). Only the first gives the
    /// split plan a schedule rebuilds as loops.
    fn analysis(&self, shape: &[Expr], axis_exprs: &[Expr], want_plan: bool) -> Result<Analysis> {
        self.check_shape(shape)?;
        let mut prover = Prover::new(shape);
        let form = self
            .form
            .get_or_init(|| SplitForm::new(&self.initial, &self.finals));
        let first = match analyze(
            form,
            &self.initial,
            shape,
            axis_exprs,
            &mut prover,
            want_plan,
        ) {
            Ok(a) => return Ok(a),
            Err(Failure::Hard(e)) => return Err(e.at(self.body_span())),
            Err(Failure::Structure(msg, axis)) => (msg, axis),
        };
        match self.other_forms(shape, axis_exprs, &mut prover) {
            Ok(Some(_)) if want_plan => {
                return Err(LayoutError::new(
                    ErrorKind::Unsupported,
                    "the map reverses an index or splits a split: it has an inverse, but no loops of splits, fusions and reorders of whole indices iterate over it; give a computed stage a map built from those",
                )
                .at(self.body_span()));
            }
            Ok(Some(a)) => return Ok(a),
            Ok(None) => {}
            Err(e) => return Err(e.at(self.body_span())),
        }
        if let Some(c) = self.find_collision(shape) {
            return Err(self.collision_error(&c));
        }
        let (msg, axis) = first;
        let (what, span) = match axis {
            Some(k) => (format!("`{}` {msg}", self.finals[k]), self.span_of_final(k)),
            None => (format!("the map {msg}"), self.body_span()),
        };
        // A constant shape within the search budget is enumerated: the
        // user learns whether the map is injective after all.
        let dims: Option<Vec<i64>> = shape.iter().map(|e| e.as_int()).collect();
        let points = dims.as_ref().and_then(|d| {
            d.iter()
                .try_fold(1usize, |acc, &x| acc.checked_mul(usize::try_from(x).ok()?))
                .filter(|&n| n <= SEARCH_BUDGET)
        });
        let known = match (points, &dims) {
            (Some(n), Some(d)) => {
                let mut seen = std::collections::HashSet::new();
                let mut injective = true;
                for_each_point(d, |p| {
                    injective &= self.map_point(p).is_ok_and(|t| seen.insert(t));
                });
                if injective {
                    format!(" (it is injective on this shape, all {n} indices checked, but no inverse was derived)")
                } else {
                    String::new()
                }
            }
            _ => String::new(),
        };
        Err(LayoutError::new(
            ErrorKind::Unsupported,
            format!("{what}{known}; a layout map is built from splits (`i // k`, `i % k`), fusions (`i * n + j`), offsets, reversals (`n - 1 - i`) and reorders"),
        )
        .at(span))
    }

    /// The nested form, then both forms with reversed transformed indices
    /// (`c - e`) read as `e`, with reversed logical indices flipped, and
    /// with both: `None` when none applies.
    fn other_forms(
        &self,
        shape: &[Expr],
        axis_exprs: &[Expr],
        prover: &mut Prover,
    ) -> Result<Option<Analysis>> {
        // Constants were folded on construction; one left unfolded (an
        // overflow, a division by zero) has no value to reason with.
        if self.finals.iter().any(has_unvalued_constant) {
            return Ok(None);
        }
        match nested::analyze(&self.initial, &self.finals, shape, axis_exprs, prover) {
            Ok(a) => return Ok(Some(simplified_shape(a, prover))),
            Err(Failure::Hard(e)) => return Err(e),
            Err(Failure::Structure(..)) => {}
        }
        let reversed = reversal::reversed_axes(&self.initial, &self.finals);
        let flip = reversal::negated(&self.initial, &self.finals);
        // (finals, flipped logical indices, transformed indices reversed?)
        let mut tries: Vec<(Vec<Expr>, Vec<usize>, bool)> = Vec::new();
        if let Some((finals, _)) = &reversed {
            tries.push((finals.clone(), Vec::new(), true));
        }
        if !flip.is_empty() {
            if let Some(f) = reversal::flip(&self.initial, &self.finals, shape, &flip) {
                tries.push((f, flip.clone(), false));
            }
        }
        if let Some((finals, _)) = &reversed {
            let inner = reversal::negated(&self.initial, finals);
            if !inner.is_empty() {
                if let Some(f) = reversal::flip(&self.initial, finals, shape, &inner) {
                    tries.push((f, inner, true));
                }
            }
        }
        for (finals, flip, axis_reversed) in tries {
            // Reversed transformed indices: the analysis of `e` sees the
            // transformed index `c - t` where the map has `t`.
            let mut exprs: Vec<Expr> = axis_exprs.to_vec();
            if axis_reversed {
                for &(k, ref c) in &reversed.as_ref().expect("checked").1 {
                    exprs[k] = crate::fold::sub(c, &axis_exprs[k])?;
                }
            }
            let form = SplitForm::new(&self.initial, &finals);
            let found = match analyze(&form, &self.initial, shape, &exprs, prover, false) {
                Ok(a) => Some(a),
                Err(Failure::Hard(e)) => return Err(e),
                Err(Failure::Structure(..)) => {
                    match nested::analyze(&self.initial, &finals, shape, &exprs, prover) {
                        Ok(a) => Some(a),
                        Err(Failure::Hard(e)) => return Err(e),
                        Err(Failure::Structure(..)) => None,
                    }
                }
            };
            let Some(mut a) = found else {
                continue;
            };
            // x = (S - 1) - x'.
            for &k in &flip {
                let last = crate::fold::sub(&shape[k], &Expr::int(1))?;
                a.inverse[k] = crate::fold::sub(&last, &a.inverse[k])?;
            }
            if axis_reversed {
                for &(k, ref c) in &reversed.as_ref().expect("checked").1 {
                    // `e` takes values in [0, E); `c - e` in [c + 1 - E, c].
                    let extent = crate::fold::add(c, &Expr::int(1))?;
                    let inner = a.transformed_shape[k].clone();
                    if !prover.ge(&extent, &inner) {
                        return Err(LayoutError::new(
                            ErrorKind::Negative,
                            format!(
                                "`{}` can be negative: it takes {inner} values below {extent}",
                                self.finals[k]
                            ),
                        ));
                    }
                    if !prover.equal(&extent, &inner) {
                        let low = crate::fold::sub(&extent, &inner)?;
                        a.padding = Some(crate::fold::or(
                            a.padding,
                            Expr::lt(axis_exprs[k].clone(), low),
                        ));
                    }
                    a.transformed_shape[k] = extent;
                }
            }
            return Ok(Some(simplified_shape(a, prover)));
        }
        Ok(None)
    }

    fn collision_error(&self, c: &Collision) -> LayoutError {
        LayoutError::new(
            ErrorKind::NotInjective,
            format!("the map is not injective: {c}"),
        )
        .at(self.body_span())
    }

    /// Names for the transformed indices: `i0, i1, ...`, avoiding shape
    /// symbol names.
    fn axis_vars(&self, shape: &[Expr]) -> Cow<'_, (Vec<Var>, Vec<Expr>)> {
        let mut taken: Vec<Var> = Vec::new();
        for e in shape {
            e.for_each_var(&mut |v| taken.push(v.clone()));
        }
        let prefix = ["i", "t", "ax", "axis"]
            .into_iter()
            .find(|p| {
                !taken.iter().any(|v| {
                    v.name()
                        .strip_prefix(p)
                        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
                })
            })
            .unwrap_or("axis_");
        let make = || {
            let vars: Vec<Var> = (0..self.finals.len())
                .map(|k| Var::new(format!("{prefix}{k}")))
                .collect();
            let exprs = vars.iter().map(|v| v.expr()).collect();
            (vars, exprs)
        };
        if prefix == "i" {
            Cow::Borrowed(self.axes.get_or_init(make))
        } else {
            Cow::Owned(make())
        }
    }

    /// The transformed shape of a logical `shape`: the extent of each final
    /// index, `ceildiv` where a split does not divide. Symbolic extents stay
    /// symbolic. Fails when the map is not injective on `shape` (naming two
    /// colliding indices) or not made of splits, fusions and offsets.
    pub fn map_shape(&self, shape: &[Expr]) -> Result<Vec<Expr>> {
        let axes = self.axis_vars(shape);
        Ok(self.analysis(shape, &axes.1, false)?.transformed_shape)
    }

    /// The inverse of a bijective map on `shape`, over the transformed
    /// indices `i0, i1, ...`. A map that leaves some transformed points
    /// unreached (padding) is an error naming one of them where it can.
    pub fn inverse(&self, shape: &[Expr]) -> Result<IndexMap> {
        let (inv, padding, tshape) = self.inverse_parts(shape)?;
        if let Some(p) = padding {
            let witness = unreached_point(&p, &inv.initial, &tshape)
                .map(|t| format!(": no logical index reaches {t:?}"))
                .unwrap_or_default();
            return Err(LayoutError::new(
                ErrorKind::NotBijective,
                format!(
                    "the map is not bijective on this shape{witness}; the padding predicate is `{p}` (use the non-surjective inverse)"
                ),
            )
            .at(self.body_span()));
        }
        Ok(inv)
    }

    /// The inverse of an injective map on `shape`, and the padding
    /// predicate over the same transformed indices: true exactly on the
    /// points of the transformed shape that no logical index reaches
    /// (`None` when every point is reached).
    pub fn non_surjective_inverse(&self, shape: &[Expr]) -> Result<(IndexMap, Option<Expr>)> {
        let (inv, padding, _) = self.inverse_parts(shape)?;
        Ok((inv, padding))
    }

    fn inverse_parts(&self, shape: &[Expr]) -> Result<(IndexMap, Option<Expr>, Vec<Expr>)> {
        let axes = self.axis_vars(shape);
        let a = self.analysis(shape, &axes.1, false)?;
        let inv = IndexMap {
            initial: axes.0.clone(),
            finals: a.inverse,
            separators: Vec::new(),
            form: OnceLock::new(),
            axes: OnceLock::new(),
            spans: None,
        };
        Ok((inv, a.padding, a.transformed_shape))
    }

    /// The structure of the map on `shape`: for each transformed index, the
    /// digits of which fused logical indices it takes.
    pub fn split_plan(&self, shape: &[Expr]) -> Result<SplitPlan> {
        let axes = self.axis_vars(shape);
        Ok(self.analysis(shape, &axes.1, true)?.plan)
    }

    /// Whether the map is injective on `shape`: `Ok` when it is (proved by
    /// the split analysis), an error naming two colliding indices when they
    /// exist.
    pub fn check_injective(&self, shape: &[Expr]) -> Result<()> {
        let axes = self.axis_vars(shape);
        self.analysis(shape, &axes.1, false).map(|_| ())
    }

    /// Two logical indices of `shape` with the same image, searched row-major
    /// in growing sub-boxes (a collision in a sub-box is one in the box).
    /// Shape symbols are tried at growing common values up to 4096 and the
    /// collision is reported at the smallest value where it holds, with the
    /// condition on the symbols under which it holds when the map does not
    /// use them: a symbolic shape stands for every positive value, so a map
    /// that collides for some is not injective (`i % 8` over `n` collides
    /// whenever `8 < n`). `None` when the search finds none within its
    /// budget.
    pub fn find_collision(&self, shape: &[Expr]) -> Option<Collision> {
        let mut symbols: Vec<Var> = Vec::new();
        for e in shape {
            e.for_each_var(&mut |v| {
                if !symbols.contains(v) {
                    symbols.push(v.clone());
                }
            });
        }
        let trials: Vec<i64> = if symbols.is_empty() {
            vec![0]
        } else {
            vec![2, 3, 4, 5, 8, 16, 64, 256, 4096]
        };
        for value in trials {
            let env = |v: &Var| symbols.contains(v).then_some(value);
            let Some(concrete) = shape
                .iter()
                .map(|e| e.eval(&env).ok().filter(|&x| x >= 1))
                .collect::<Option<Vec<i64>>>()
            else {
                continue;
            };
            if let Some(c) = self.search(&concrete, &symbols, value) {
                return Some(self.smallest_witness(c, shape, &symbols, value));
            }
        }
        None
    }

    fn search(&self, shape: &[i64], symbols: &[Var], value: i64) -> Option<Collision> {
        let mut last: Option<Vec<i64>> = None;
        for b in [
            2i64,
            3,
            4,
            6,
            8,
            16,
            32,
            64,
            128,
            256,
            1 << 12,
            1 << 16,
            i64::MAX,
        ] {
            let dims: Vec<i64> = shape.iter().map(|&s| s.min(b)).collect();
            if last.as_ref() == Some(&dims) {
                continue;
            }
            let total = dims
                .iter()
                .try_fold(1usize, |acc, &d| acc.checked_mul(d as usize));
            match total {
                Some(t) if t <= SEARCH_BUDGET => {}
                _ => break,
            }
            last = Some(dims.clone());
            let mut seen: HashMap<Vec<i64>, Vec<i64>> = HashMap::new();
            let mut point = vec![0i64; dims.len()];
            loop {
                let env = |v: &Var| {
                    if let Some(k) = self.initial.iter().position(|w| w == v) {
                        return Some(point[k]);
                    }
                    symbols.contains(v).then_some(value)
                };
                let image: Option<Vec<i64>> =
                    self.finals.iter().map(|e| e.eval(&env).ok()).collect();
                if let Some(image) = image {
                    if let Some(first) = seen.get(&image) {
                        return Some(Collision {
                            first: first.clone(),
                            second: point.clone(),
                            image,
                            symbols: symbols
                                .iter()
                                .map(|s| (s.name().to_string(), value))
                                .collect(),
                            condition: None,
                        });
                    }
                    seen.insert(image, point.clone());
                }
                if !next_point(&mut point, &dims) {
                    break;
                }
            }
        }
        None
    }

    /// `c` (found with every symbol at `value`) at the smallest common
    /// symbol value where both indices are in the shape and still collide,
    /// with the condition for that when the map does not use the symbols.
    fn smallest_witness(
        &self,
        mut c: Collision,
        shape: &[Expr],
        symbols: &[Var],
        value: i64,
    ) -> Collision {
        if symbols.is_empty() {
            return c;
        }
        let holds = |v: i64| {
            let env = |s: &Var| symbols.contains(s).then_some(v);
            let inside = shape.iter().enumerate().all(|(k, e)| {
                e.eval(&env)
                    .is_ok_and(|x| c.first[k] < x && c.second[k] < x)
            });
            let image = |p: &[i64]| -> Option<Vec<i64>> {
                let at = |s: &Var| {
                    self.initial
                        .iter()
                        .position(|w| w == s)
                        .map(|k| p[k])
                        .or_else(|| symbols.contains(s).then_some(v))
                };
                self.finals.iter().map(|e| e.eval(&at).ok()).collect()
            };
            inside && image(&c.first).is_some() && image(&c.first) == image(&c.second)
        };
        if let Some(v) = (1..value).find(|&v| holds(v)) {
            let env = |s: &Var| symbols.contains(s).then_some(v);
            let at = |p: &[i64]| -> Option<Vec<i64>> {
                let positions = crate::split_form::Positions::new(&self.initial);
                self.finals
                    .iter()
                    .map(|e| {
                        e.eval(&|s: &Var| positions.of(s).map(|k| p[k]).or_else(|| env(s)))
                            .ok()
                    })
                    .collect()
            };
            if let Some(image) = at(&c.first) {
                c.image = image;
                c.symbols = symbols.iter().map(|s| (s.name().to_string(), v)).collect();
            }
        }
        let map_uses_symbols = self.finals.iter().any(|e| {
            let mut found = false;
            e.for_each_var(&mut |s| found |= symbols.contains(s));
            found
        });
        if !map_uses_symbols {
            let mut cond: Option<Expr> = None;
            for (k, e) in shape.iter().enumerate() {
                let top = c.first[k].max(c.second[k]);
                // Extents are positive: index 0 is always inside.
                if e.as_int().is_some() || top == 0 {
                    continue;
                }
                let lt = Expr::lt(Expr::int(top), e.clone());
                cond = Some(match cond {
                    None => lt,
                    Some(a) => Expr::and(a, lt),
                });
            }
            c.condition = cond.map(|e| arith::Analyzer::new().simplify(&e).unwrap_or(e));
        }
        c
    }

    /// Whether two maps agree at every point of `shape` (checked by
    /// enumeration; shapes must be constant and hold at most 2^20 points).
    pub fn agrees_with(&self, other: &IndexMap, shape: &[i64]) -> Result<bool> {
        let total: i64 = shape.iter().product();
        if total > 1 << 20 {
            return Err(LayoutError::new(
                ErrorKind::OutOfBounds,
                "shape too large to enumerate",
            ));
        }
        let mut ok = true;
        for_each_point(shape, |p| {
            ok &= self.map_point(p).ok() == other.map_point(p).ok();
        });
        Ok(ok)
    }
}

/// Whether `e` has a subtree free of variables that is not a number (kept
/// unfolded because it has no value). One post-order walk: whether a node
/// is free of variables follows from its children.
fn has_unvalued_constant(e: &Expr) -> bool {
    // (node, children done?); `closed` holds each finished child's answer.
    let mut pending: Vec<(&Expr, bool)> = vec![(e, false)];
    let mut closed: Vec<bool> = Vec::new();
    while let Some((n, expanded)) = pending.pop() {
        let kids = n.children();
        if kids.is_empty() {
            closed.push(n.as_var().is_none());
            continue;
        }
        if !expanded {
            pending.push((n, true));
            pending.extend(kids.iter().map(|c| (*c, false)));
            continue;
        }
        let at = closed.len() - kids.len();
        let all = closed[at..].iter().all(|c| *c);
        closed.truncate(at);
        if all && n.as_int().is_none() && n.as_bool().is_none() {
            return true;
        }
        closed.push(all);
    }
    false
}

/// `a` with its symbolic transformed extents simplified (`n - 1 + 1` is
/// `n`): the nested and reversed forms build them from parts.
fn simplified_shape(mut a: Analysis, prover: &mut Prover) -> Analysis {
    for e in &mut a.transformed_shape {
        if e.as_int().is_none() {
            if let Ok(s) = prover.analyzer().simplify(e) {
                *e = s;
            }
        }
    }
    a
}

/// Calls `f` on every point of `shape` in row-major order.
pub fn for_each_point(shape: &[i64], mut f: impl FnMut(&[i64])) {
    if shape.iter().any(|&s| s <= 0) {
        return;
    }
    let mut p = vec![0i64; shape.len()];
    loop {
        f(&p);
        if !next_point(&mut p, shape) {
            return;
        }
    }
}

/// Advances `p` to the next point of `dims` in row-major order; `false`
/// after the last one.
fn next_point(p: &mut [i64], dims: &[i64]) -> bool {
    for k in (0..dims.len()).rev() {
        p[k] += 1;
        if p[k] < dims[k] {
            return true;
        }
        p[k] = 0;
    }
    false
}

/// A point of a constant `shape` where `predicate` holds, searched from the
/// last point backwards and from the first forwards within a budget.
fn unreached_point(predicate: &Expr, vars: &[Var], shape: &[Expr]) -> Option<Vec<i64>> {
    let dims: Vec<i64> = shape.iter().map(|e| e.as_int()).collect::<Option<_>>()?;
    let holds = |p: &[i64]| {
        predicate
            .eval(&|v: &Var| vars.iter().position(|w| w == v).map(|k| p[k]))
            .is_ok_and(|x| x != 0)
    };
    let last: Vec<i64> = dims.iter().map(|d| d - 1).collect();
    if holds(&last) {
        return Some(last);
    }
    let mut found = None;
    let mut budget = 4096;
    for_each_point(&dims, |p| {
        if found.is_none() && budget > 0 {
            budget -= 1;
            if holds(p) {
                found = Some(p.to_vec());
            }
        }
    });
    found
}

impl fmt::Display for IndexMap {
    /// The map as a Python lambda that [`IndexMap::parse`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("lambda ")?;
        for (k, v) in self.initial.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            f.write_str(v.name())?;
        }
        f.write_str(": [")?;
        for (k, e) in self.finals.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            if self.separators.contains(&k) {
                f.write_str("te.AXIS_SEPARATOR, ")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str("]")
    }
}
