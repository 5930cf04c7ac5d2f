//! The indices one point of a map's dimensions reaches: the image of the
//! map with its dimensions fixed, split into what is read whatever the
//! runtime variables are and what only some runtime values read.

use crate::eval::{box_size, too_large, CompiledMap};
use crate::interval::Interval;
use crate::map::{IndexingMap, State};
use arith::{ArithError, ErrorKind, Result};
use std::collections::{BTreeMap, BTreeSet};

/// The result points that one point of the dimensions reaches
/// ([`IndexingMap::image_at`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    /// Reached whatever values the runtime variables take, for some values
    /// of the range variables; sorted. Without runtime variables, every
    /// point reached.
    pub certain: Vec<Vec<i64>>,
    /// Reached for some values of the runtime variables but not for all;
    /// sorted, disjoint from `certain`.
    pub possible: Vec<Vec<i64>>,
}

impl Image {
    /// Whether no point is reached.
    pub fn is_empty(&self) -> bool {
        self.certain.is_empty() && self.possible.is_empty()
    }
}

/// Moves `point` to the next point of the box `bounds` (last coordinate
/// fastest); false after the last point.
fn advance(point: &mut [i64], bounds: &[Interval]) -> bool {
    for k in (0..bounds.len()).rev() {
        if point[k] < bounds[k].upper {
            point[k] += 1;
            return true;
        }
        point[k] = bounds[k].lower;
    }
    false
}

impl IndexingMap {
    fn check_dims(&self, dims: &[i64]) -> Result<()> {
        if dims.len() != self.num_dims() {
            return Err(ArithError::new(
                ErrorKind::Invalid,
                format!(
                    "the map has {} dimensions; {} values were given",
                    self.num_dims(),
                    dims.len()
                ),
            ));
        }
        Ok(())
    }

    /// The result points reached from the dimension values `dims`: every
    /// value of the range variables and of the runtime variables within
    /// their ranges, constraints checked, split by whether the point is
    /// reached for every value of the runtime variables. A `dims` outside
    /// the dimension ranges (or a known-empty map) reaches nothing.
    ///
    /// Fails when `dims` has the wrong length, when the box of range and
    /// runtime variables has more than `limit` points (use
    /// [`IndexingMap::image_bounds_at`] then), or when a result overflows.
    ///
    /// ```
    /// use indexing::IndexingMap;
    /// // A window s0 of 2 columns from a runtime start rt0 in [0, 1]:
    /// // column 1 is read whatever rt0 is, columns 0 and 2 for one value.
    /// let map = IndexingMap::parse(
    ///     "(d0)[s0]{rt0} -> (d0, rt0 + s0), domain: d0 in [0, 3], s0 in [0, 1], rt0 in [0, 1]",
    /// ).unwrap();
    /// let image = map.image_at(&[1], 1000).unwrap();
    /// assert_eq!(image.certain, vec![vec![1, 1]]);
    /// assert_eq!(image.possible, vec![vec![1, 0], vec![1, 2]]);
    /// ```
    pub fn image_at(&self, dims: &[i64], limit: u64) -> Result<Image> {
        self.check_dims(dims)?;
        if self.state != State::Defined
            || self
                .dims
                .iter()
                .zip(dims)
                .any(|(v, x)| !v.bounds().contains(*x))
        {
            return Ok(Image::default());
        }
        let mut compiled = CompiledMap::new(self)?;
        let symbols: Vec<Interval> = self.symbols.iter().map(|v| v.bounds()).collect();
        let runtime: Vec<Interval> = self.rt_vars.iter().map(|v| v.bounds()).collect();
        let size = box_size(&symbols).saturating_mul(box_size(&runtime));
        if size > limit as u128 {
            return Err(too_large(size, limit));
        }
        if size == 0 {
            return Ok(Image::default());
        }
        let (nd, ns) = (dims.len(), symbols.len());
        let mut point: Vec<i64> = dims.to_vec();
        point.extend(symbols.iter().map(|b| b.lower));
        point.extend(runtime.iter().map(|b| b.lower));
        // How many runtime assignments reach each result point.
        let mut reached_by: BTreeMap<Vec<i64>, u128> = BTreeMap::new();
        let mut assignments: u128 = 0;
        let mut values = Vec::new();
        loop {
            assignments += 1;
            let mut seen: BTreeSet<Vec<i64>> = BTreeSet::new();
            for (k, b) in symbols.iter().enumerate() {
                point[nd + k] = b.lower;
            }
            loop {
                if compiled.constraints_hold(&point) {
                    compiled.results_at(&point, &mut values);
                    let result: Option<Vec<i64>> = values.iter().copied().collect();
                    let result = result.ok_or_else(|| {
                        ArithError::new(
                            ErrorKind::Overflow,
                            format!(
                                "a result of `{self}` has no value at {point:?}: overflow or division by zero"
                            ),
                        )
                    })?;
                    seen.insert(result);
                }
                if !advance(&mut point[nd..nd + ns], &symbols) {
                    break;
                }
            }
            for r in seen {
                *reached_by.entry(r).or_default() += 1;
            }
            if !advance(&mut point[nd + ns..], &runtime) {
                break;
            }
        }
        let mut image = Image::default();
        for (r, n) in reached_by {
            if n == assignments {
                image.certain.push(r);
            } else {
                image.possible.push(r);
            }
        }
        Ok(image)
    }

    /// For each result, an interval holding every value it takes at the
    /// dimension values `dims` over the ranges of the other variables (a
    /// sound box around [`IndexingMap::image_at`]'s points, at the cost of
    /// interval arithmetic whatever the ranges; constraints are not used,
    /// so the box may be larger). `None` when `dims` is outside the
    /// dimension ranges or the map is known empty.
    ///
    /// ```
    /// use indexing::{IndexingMap, Interval};
    /// let map = IndexingMap::parse(
    ///     "(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 9], s0 in [0, 999999]",
    /// ).unwrap();
    /// assert_eq!(map.image_bounds_at(&[3]).unwrap(), Some(vec![Interval::new(6, 1000005)]));
    /// ```
    pub fn image_bounds_at(&self, dims: &[i64]) -> Result<Option<Vec<Interval>>> {
        self.check_dims(dims)?;
        if self.state != State::Defined {
            return Ok(None);
        }
        let mut fixed = self.clone();
        for (i, &x) in dims.iter().enumerate() {
            fixed.restrict_dim(i, Interval::point(x));
        }
        if fixed.state != State::Defined {
            return Ok(None);
        }
        Ok(Some(
            fixed
                .results
                .iter()
                .map(|r| fixed.expression_range(r))
                .collect(),
        ))
    }
}
