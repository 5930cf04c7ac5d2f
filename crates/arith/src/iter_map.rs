//! Iterator affine maps: TVM's `detect_iter_map`.
//!
//! Loop transformations (split, fuse, reshape, layout changes) leave index
//! expressions such as `(x * 4 + y) // 2` or `x // 6 % 3`. This module
//! recognises when a list of such indices is a *sum of splits of fusions* of
//! loop iterators with known extents, and says so exactly:
//!
//! - an [`IterMark`] is something that takes every value of `[0, extent)`:
//!   a loop iterator, or a fusion of other iterators (an [`IterSum`]);
//! - an [`IterSplit`] takes the digits `(mark // lower_factor) % extent` of a
//!   mark and multiplies them by `scale`;
//! - an [`IterSum`] adds splits and a base that does not depend on any
//!   iterator.
//!
//! [`detect_iter_map`] rewrites every index into one split of one mark plus a
//! base, and then checks, at the requested [`CheckLevel`], that no digit of
//! any iterator is used twice (the map is then *surjective* onto the product
//! of the index extents) and, for [`CheckLevel::Bijective`], that every digit
//! of every iterator is used exactly once.
//!
//! A predicate such as `x * 10 + y < 128` narrows the fused iterator
//! `x * 10 + y` to `[0, 128)`; indices over it then have extent 128.
//! Divisions whose divisor does not divide the extent or offset are padded:
//! `(x + 71) // 32` over `x in [0, 45)` becomes a split of the padded mark
//! `x + 7` over `[0, 64)`, and the result reports the padding.
//!
//! ```
//! use std::collections::HashMap;
//! use arith::iter_map::{detect_iter_map, CheckLevel};
//! use arith::{Analyzer, Expr, Range};
//!
//! let (fused, scope) = arith::parse_with_scope("(x * 4 + y) // 2").unwrap();
//! let (x, y) = (scope.get("x").unwrap(), scope.get("y").unwrap());
//! let inner = arith::parse_in("(x * 4 + y) % 2", &mut scope.clone()).unwrap();
//! let dom = HashMap::from([
//!     (x.clone(), Range::from_extent(Expr::int(3))),
//!     (y.clone(), Range::from_extent(Expr::int(4))),
//! ]);
//! let an = Analyzer::new();
//! let map = detect_iter_map(&[fused, inner], &dom, &Expr::bool(true), CheckLevel::Bijective, &an)
//!     .unwrap();
//! // Both indices split the same fused iterator `x * 4 + y` of extent 12.
//! assert_eq!(map.indices[0].args[0].extent, Expr::int(6));
//! assert_eq!(map.indices[1].args[0].extent, Expr::int(2));
//! assert_eq!(map.indices[0].args[0].lower_factor, Expr::int(2));
//! assert_eq!(map.indices[0].args[0].source, map.indices[1].args[0].source);
//! ```

mod check;
mod divide;
mod fuse;
mod predicate;
mod rewrite;

use crate::analyzer::Analyzer;
use crate::error::ArithError;
use crate::expr::{Expr, Var};
use crate::range::Range;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rewrite::Rewriter;

/// How much [`detect_iter_map`] checks about the detected map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckLevel {
    /// Only rewrite; splits of one iterator may overlap.
    NoCheck,
    /// No digit of any iterator is used by two splits, so every tuple in the
    /// product of the index extents is reached.
    Surjective,
    /// Surjective, and every digit of every iterator (of extent above one) is
    /// used: the map is a bijection between the iteration domain and the
    /// product of the index extents.
    Bijective,
}

/// Where the values of an [`IterMark`] come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkSource {
    /// An iterator (usually a variable; `x - min` when the domain does not
    /// start at zero).
    Iter(Expr),
    /// A fusion of splits of other marks (`x * 4 + y`), or a narrowed or
    /// padded one (`x * 10 + y - 6`, `x + 7`).
    Fused(IterSum),
}

/// Something that takes values in `[0, extent)`: an iterator or a fused sum.
///
/// Marks are compared structurally: two indices that split the same fused
/// sum split the same mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterMark {
    /// The expression whose values the mark takes.
    pub source: MarkSource,
    /// How many values (the mark lies in `[0, extent)`).
    pub extent: Expr,
}

/// `(source // lower_factor) % extent * scale`: some digits of a mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterSplit {
    /// The mark being split.
    pub source: Arc<IterMark>,
    /// The weight of the lowest digit taken.
    pub lower_factor: Expr,
    /// How many values the digits take (`[0, extent)` before scaling).
    pub extent: Expr,
    /// The factor the digits are multiplied by.
    pub scale: Expr,
}

/// `args[0] + args[1] + ... + base`, where `base` uses no iterator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterSum {
    /// The splits, outermost (largest scale) first once fused.
    pub args: Vec<IterSplit>,
    /// The part that does not depend on the iterators.
    pub base: Expr,
}

/// A mark whose source does not take every value of `[0, extent)`: the
/// indices over it range over a padded space, and only the source values in
/// `[valid_min, valid_min + valid_extent)` stand for real iterations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaddedMark {
    /// The padded mark.
    pub mark: Arc<IterMark>,
    /// The smallest value the source takes (the left padding).
    pub valid_min: Expr,
    /// How many values the source takes.
    pub valid_extent: Expr,
}

/// The result of [`detect_iter_map`].
#[derive(Clone, Debug)]
pub struct IterMapResult {
    /// One sum per index, each with at most one split (a mark of its own or
    /// shared with other indices) plus a base.
    pub indices: Vec<IterSum>,
    /// The marks that needed padding, with the part of them that is real.
    pub padded: Vec<PaddedMark>,
}

/// Why [`detect_iter_map`] did not recognise an iterator map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IterMapErrorKind {
    /// A product of two iterator terms, or an operator (min, select, ...)
    /// applied to iterators.
    NonAffine,
    /// A divisor that uses an iterator or is not known to be positive.
    BadDivisor,
    /// Terms whose scales cannot be fused into one iterator (negative,
    /// mismatched or with gaps).
    CannotFuse,
    /// A division whose divisor neither divides nor is divided by the scale
    /// or extent of its dividend.
    CannotSplit,
    /// Two splits use the same digits of one iterator.
    Overlap,
    /// Bijective check: some digits of an iterator are not used.
    Incomplete,
    /// Surjective check: padding makes some index tuples unreachable.
    Padding,
    /// A predicate term that is not a bound on a fusable sum, or that no
    /// index uses.
    Predicate,
    /// Constant arithmetic overflowed or a domain is unusable.
    Arith,
}

/// A failed detection: what kind of failure, and a message that names the
/// expression at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterMapError {
    /// The category.
    pub kind: IterMapErrorKind,
    /// What is wrong, naming the offending expression.
    pub message: String,
}

impl IterMapError {
    pub(crate) fn new(kind: IterMapErrorKind, message: impl Into<String>) -> IterMapError {
        IterMapError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for IterMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IterMapError {}

impl From<ArithError> for IterMapError {
    fn from(e: ArithError) -> IterMapError {
        IterMapError::new(IterMapErrorKind::Arith, e.message)
    }
}

/// Options of [`detect_iter_map_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetectOptions {
    /// What to check about the detected map.
    pub check_level: CheckLevel,
    /// Replace iterators of extent one by their only value (TVM's
    /// `simplify_trivial_iterators`, on by default). When off, they stay
    /// iterators of extent one and the analyzer is not told their value.
    pub simplify_trivial_iterators: bool,
    /// Read `(v + c) // d` and `(v + c) % d`, for a constant `c > 0`, as
    /// splits of the one mark `v + c` over `[0, roundup(extent + c, d))`
    /// (`[0, extent + c)` when that is at most `d`), whose real values are
    /// `[c, c + extent)`. Off by default, as in TVM,
    /// which pads only by `c % d` and moves `c // d` into the base
    /// (`(x + 3) // 2` is `(x + 1) // 2 + 1`); on, the quotient keeps its
    /// whole range (`(x + 3) // 2` takes `[0, 5)` over `x in [0, 7)`), so a
    /// fusion with a radix above the values the quotient takes, such as
    /// `(x + 3) % 2 * 5 + (x + 3) // 2`, chains without a gap.
    pub offset_marks: bool,
    /// In a fusion, let the top digits of a mark (`y` itself, or `y // 2`
    /// of `y` in `[0, 5)`) sit under a radix above the values they take
    /// (`x * 9 + y` with `y` in `[0, 7)`): the split's extent grows to the
    /// radix, its value unchanged, and the fused mark then has gaps, which
    /// the checks see as digits of `y` it never reaches. Off by default, as
    /// in TVM, which refuses such a fusion.
    pub widen_top_digits: bool,
}

impl Default for DetectOptions {
    fn default() -> DetectOptions {
        DetectOptions {
            check_level: CheckLevel::Surjective,
            simplify_trivial_iterators: true,
            offset_marks: false,
            widen_top_digits: false,
        }
    }
}

/// Detects `indices` as an iterator map over the iterators of `dom`, under
/// `predicate` (a conjunction of bounds on fused sums of the iterators, or
/// `True`). Variables not in `dom` are free: they may appear in bases.
/// `an` supplies facts about free variables (for example that a symbolic
/// extent is positive).
///
/// See the [module documentation](self) for an example.
pub fn detect_iter_map(
    indices: &[Expr],
    dom: &HashMap<Var, Range>,
    predicate: &Expr,
    check_level: CheckLevel,
    an: &Analyzer,
) -> Result<IterMapResult, IterMapError> {
    let options = DetectOptions {
        check_level,
        ..DetectOptions::default()
    };
    detect_iter_map_with(indices, dom, predicate, &options, an)
}

/// [`detect_iter_map`] with all options.
pub fn detect_iter_map_with(
    indices: &[Expr],
    dom: &HashMap<Var, Range>,
    predicate: &Expr,
    options: &DetectOptions,
    an: &Analyzer,
) -> Result<IterMapResult, IterMapError> {
    let mut rw = Rewriter::new(dom, an, options, false)?;
    rw.add_predicate(predicate)?;
    let mut out = Vec::with_capacity(indices.len());
    for index in indices {
        let sum = rw.rewrite(index)?;
        out.push(rw.fuse_to_single(sum)?);
    }
    rw.check_predicates_used()?;
    if options.check_level != CheckLevel::NoCheck {
        check::check_mapping(&rw, &out, options.check_level)?;
        check::verify_by_enumeration(&out, dom, predicate, options.check_level)?;
    }
    let padded = rw
        .padded_marks()
        .into_iter()
        .filter(|p| out.iter().any(|sum| sum_reaches(sum, &p.mark)))
        .collect();
    Ok(IterMapResult {
        indices: out,
        padded,
    })
}

/// Rewrites `index` into a sum of splits of the iterators of `dom`, without
/// fusing them and without any check (TVM's `normalize_to_iter_sum`). Terms
/// that are not affine in the iterators (`max(z, a)`) go into the base.
/// Splits are sorted by scale, largest first, where the scales compare.
///
/// ```
/// use std::collections::HashMap;
/// use arith::{Analyzer, Expr, Range};
/// let (e, scope) = arith::parse_with_scope("x // 4 * 4 + x % 4 + y * 8").unwrap();
/// let x = scope.get("x").unwrap().clone();
/// let y = scope.get("y").unwrap().clone();
/// let dom = HashMap::from([
///     (x.clone(), Range::from_extent(Expr::int(8))),
///     (y.clone(), Range::from_extent(Expr::int(3))),
/// ]);
/// let sum = arith::iter_map::normalize_to_iter_sum(&e, &dom, &Analyzer::new()).unwrap();
/// assert_eq!(sum.args.len(), 2);
/// assert_eq!(sum.args[0].scale, Expr::int(8));
/// assert_eq!(sum.args[1].to_expr().to_string(), "x");
/// ```
pub fn normalize_to_iter_sum(
    index: &Expr,
    dom: &HashMap<Var, Range>,
    an: &Analyzer,
) -> Result<IterSum, IterMapError> {
    let options = DetectOptions {
        check_level: CheckLevel::NoCheck,
        simplify_trivial_iterators: true,
        offset_marks: false,
        widen_top_digits: false,
    };
    let mut rw = Rewriter::new(dom, an, &options, true)?;
    let sum = rw.rewrite(index)?;
    Ok(rw.sort_by_scale(sum))
}

/// Rewrites each index through its detected iterator map and simplifies the
/// result (surjective check): `x // 4 * 4 + x % 4` becomes `x`. When
/// detection fails the indices are returned unchanged.
///
/// ```
/// use std::collections::HashMap;
/// use arith::{Analyzer, Expr, Range};
/// let (e, scope) = arith::parse_with_scope("x // 4 * 4 + x % 4").unwrap();
/// let dom = HashMap::from([(scope.get("x").unwrap().clone(), Range::from_extent(Expr::int(32)))]);
/// let out = arith::iter_map::iter_map_simplify(&[e], &dom, &Expr::bool(true), &Analyzer::new());
/// assert_eq!(out[0].to_string(), "x");
/// ```
pub fn iter_map_simplify(
    indices: &[Expr],
    dom: &HashMap<Var, Range>,
    predicate: &Expr,
    an: &Analyzer,
) -> Vec<Expr> {
    iter_map_simplify_with(indices, dom, predicate, &DetectOptions::default(), an)
}

/// [`iter_map_simplify`] with all options.
pub fn iter_map_simplify_with(
    indices: &[Expr],
    dom: &HashMap<Var, Range>,
    predicate: &Expr,
    options: &DetectOptions,
    an: &Analyzer,
) -> Vec<Expr> {
    let Ok(map) = detect_iter_map_with(indices, dom, predicate, options, an) else {
        return indices.to_vec();
    };
    let an = rewrite::domain_analyzer(dom, an, options.simplify_trivial_iterators);
    // Never return something larger than the simplified input.
    map.indices
        .iter()
        .zip(indices)
        .map(|(sum, original)| {
            let normal = sum.to_expr();
            let normal = an.simplify(&normal).unwrap_or(normal);
            match an.simplify(original) {
                Ok(plain) if plain.node_count() < normal.node_count() => plain,
                _ => normal,
            }
        })
        .collect()
}

/// Whether `mark` is split by `sum` or by the source of a mark it splits.
fn sum_reaches(sum: &IterSum, mark: &IterMark) -> bool {
    sum.args.iter().any(|a| {
        *a.source == *mark
            || matches!(&a.source.source, MarkSource::Fused(inner) if sum_reaches(inner, mark))
    })
}

// ------------------------------------------------------------ conversions

/// `a * b` without the `* 1`.
fn mul_expr(a: Expr, b: &Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (_, Some(1)) => a,
        (Some(1), _) => b.clone(),
        _ => Expr::mul(a, b.clone()),
    }
}

/// `a + b` without the `+ 0`.
fn add_expr(a: Option<Expr>, b: Expr) -> Expr {
    match a {
        None => b,
        Some(a) if b.is_int(0) => a,
        Some(a) => match b.as_int() {
            Some(c) if c < 0 && c != i64::MIN => Expr::sub(a, Expr::int(-c)),
            _ => Expr::add(a, b),
        },
    }
}

impl IterMark {
    /// The mark's value as an expression of the iterators.
    pub fn to_expr(&self) -> Expr {
        match &self.source {
            MarkSource::Iter(e) => e.clone(),
            MarkSource::Fused(sum) => sum.to_expr(),
        }
    }
}

impl IterSplit {
    /// The split as an expression: `(source // lower_factor) % extent *
    /// scale`, leaving out division by one, the modulo when the split takes
    /// the top digits, and multiplication by one.
    pub fn to_expr(&self) -> Expr {
        let mut e = self.source.to_expr();
        if !self.lower_factor.is_int(1) {
            e = Expr::floor_div(e, self.lower_factor.clone());
        }
        if !self.takes_top_digits() {
            e = Expr::floor_mod(e, self.extent.clone());
        }
        mul_expr(e, &self.scale)
    }

    /// Whether `lower_factor * extent` is the mark's extent (then the modulo
    /// of the split is the identity), as far as structure or constants show.
    fn takes_top_digits(&self) -> bool {
        let mark = &self.source.extent;
        match (
            self.lower_factor.as_int(),
            self.extent.as_int(),
            mark.as_int(),
        ) {
            (Some(l), Some(e), Some(m)) => l.checked_mul(e) == Some(m),
            _ => self.lower_factor.is_int(1) && self.extent == *mark,
        }
    }
}

impl IterSum {
    /// A sum without iterator terms.
    pub fn constant(base: Expr) -> IterSum {
        IterSum {
            args: Vec::new(),
            base,
        }
    }

    /// The sum as an expression (not simplified; see [`iter_map_simplify`]).
    pub fn to_expr(&self) -> Expr {
        let mut acc: Option<Expr> = None;
        for a in &self.args {
            let t = a.to_expr();
            acc = Some(match acc {
                None => t,
                Some(x) => Expr::add(x, t),
            });
        }
        match acc {
            None => self.base.clone(),
            Some(_) => add_expr(acc, self.base.clone()),
        }
    }

    /// Evaluates the sum, with `value` giving every variable it uses.
    pub fn eval(&self, value: &dyn Fn(&Var) -> Option<i64>) -> crate::Result<i64> {
        self.to_expr().eval(value)
    }

    /// Whether no iterator term is left.
    pub fn is_constant(&self) -> bool {
        self.args.is_empty()
    }
}

impl fmt::Display for IterMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            MarkSource::Iter(e) => write!(f, "mark({}, {})", e, self.extent),
            MarkSource::Fused(s) => write!(f, "mark({}, {})", s, self.extent),
        }
    }
}

impl fmt::Display for IterSplit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "split({}, {}, {}, {})",
            self.source, self.lower_factor, self.extent, self.scale
        )
    }
}

impl fmt::Display for IterSum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sum([")?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        write!(f, "], {})", self.base)
    }
}
