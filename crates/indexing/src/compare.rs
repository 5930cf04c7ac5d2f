//! Semantic equality of maps: exhaustive over small domains, sampled over
//! large ones.

use crate::eval::{box_size, for_each_box_point, too_large, CompiledMap};
use crate::interval::Interval;
use crate::map::{IndexingMap, State};
use arith::Result;

/// Whether `a` and `b` denote the same relation from dimension indices to
/// result indices: for every dimension point, the set of result tuples
/// reached over all range and runtime variables that satisfy the ranges and
/// constraints is the same (an empty set where the point is outside the
/// domain). Range variables are existential, so maps that differ only in the
/// order, number or scaling of their symbols compare equal, as XLA's
/// rescaling and composition need. An undefined value (division by zero,
/// overflow) is compared as its own value.
///
/// Two undefined maps are equal; two maps with empty domains are equal
/// whatever their shapes. Fails when the enumeration would visit more than
/// `limit` points.
///
/// ```
/// use indexing::{semantically_equal, IndexingMap};
/// let a = IndexingMap::parse("(d0)[s0] -> (s0), domain: d0 in [0, 3], s0 in [0, 41], s0 mod 6 in [3, 3]").unwrap();
/// let b = IndexingMap::parse("(d0)[s0] -> (s0 * 6 + 3), domain: d0 in [0, 3], s0 in [0, 6]").unwrap();
/// assert!(semantically_equal(&a, &b, 10_000).unwrap());
/// ```
pub fn semantically_equal(a: &IndexingMap, b: &IndexingMap, limit: u64) -> Result<bool> {
    let (mut ca, mut cb, dim_box) = match prepare(a, b, limit)? {
        Prepared::Decided(r) => return Ok(r),
        Prepared::Compare(ca, cb, dim_box) => (*ca, *cb, dim_box),
    };
    let inner = ca.inner_size().max(cb.inner_size());
    let total = box_size(&dim_box).saturating_mul(inner.max(1));
    if total > limit as u128 {
        return Err(too_large(total, limit));
    }
    let mut dims = vec![0; dim_box.len()];
    let mut equal = true;
    let mut scratch = Scratch::default();
    for_each_box_point(&dim_box, &mut dims, 0, &mut |d| {
        equal = equal && same_at(&mut ca, &mut cb, d, inner, &mut scratch);
    });
    Ok(equal)
}

/// As [`semantically_equal`], for domains too large to enumerate: compares
/// the result sets at `samples` pseudo-random dimension points (drawn with
/// `seed`) plus the corners of the dimension box, enumerating the range and
/// runtime variables at each. `Ok(false)` is a proof of difference;
/// `Ok(true)` only says that no sampled point differs. Fails when one
/// dimension point has more than `inner_limit` symbol combinations, or when
/// the maps have different shapes and their emptiness cannot be decided
/// within `inner_limit` points.
///
/// ```
/// use indexing::{semantically_equal_sampled, IndexingMap};
/// let a = IndexingMap::parse("(d0) -> (d0 floordiv 4, d0 mod 4), domain: d0 in [0, 99999999]").unwrap();
/// let b = IndexingMap::parse("(d0) -> (d0 floordiv 4, d0 - (d0 floordiv 4) * 4), domain: d0 in [0, 99999999]").unwrap();
/// assert!(semantically_equal_sampled(&a, &b, 1000, 7, 1 << 16).unwrap());
/// ```
pub fn semantically_equal_sampled(
    a: &IndexingMap,
    b: &IndexingMap,
    samples: usize,
    seed: u64,
    inner_limit: u64,
) -> Result<bool> {
    let (mut ca, mut cb, dim_box) = match prepare(a, b, inner_limit)? {
        Prepared::Decided(r) => return Ok(r),
        Prepared::Compare(ca, cb, dim_box) => (*ca, *cb, dim_box),
    };
    let inner = ca.inner_size().max(cb.inner_size());
    if inner > inner_limit as u128 {
        return Err(too_large(inner, inner_limit));
    }
    let mut scratch = Scratch::default();
    // The corners first (at most 64 of them): boundary points are where
    // off-by-one differences show.
    let corners = 1usize << dim_box.len().min(6);
    let mut point = vec![0; dim_box.len()];
    for mask in 0..corners {
        for (k, b) in dim_box.iter().enumerate() {
            point[k] = if k < 6 && mask >> k & 1 == 1 {
                b.upper
            } else {
                b.lower
            };
        }
        if !same_at(&mut ca, &mut cb, &point, inner, &mut scratch) {
            return Ok(false);
        }
    }
    let mut state = seed | 1;
    for _ in 0..samples {
        for (k, b) in dim_box.iter().enumerate() {
            // xorshift64: cheap, deterministic, good enough to spread points
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            point[k] = (b.lower as i128 + (state as u128 % b.len().max(1)) as i128) as i64;
        }
        if !same_at(&mut ca, &mut cb, &point, inner, &mut scratch) {
            return Ok(false);
        }
    }
    Ok(true)
}

enum Prepared {
    Decided(bool),
    /// Both maps compiled, with the hull of their dimension boxes.
    Compare(Box<Side>, Box<Side>, Vec<Interval>),
}

/// Decides the cases that need no enumeration of dimension points.
fn prepare(a: &IndexingMap, b: &IndexingMap, limit: u64) -> Result<Prepared> {
    match (a.state, b.state) {
        (State::Undefined, State::Undefined) => return Ok(Prepared::Decided(true)),
        (State::Undefined, _) | (_, State::Undefined) => return Ok(Prepared::Decided(false)),
        _ => {}
    }
    let mut ca = Side::new(a)?;
    let mut cb = Side::new(b)?;
    if a.num_dims() != b.num_dims() || a.num_results() != b.num_results() {
        // Different shapes are equal only when both domains are empty.
        return Ok(Prepared::Decided(
            ca.is_empty(limit)? && cb.is_empty(limit)?,
        ));
    }
    let dim_box: Vec<Interval> = match (&ca.map, &cb.map) {
        (None, None) => return Ok(Prepared::Decided(true)),
        (Some(x), None) | (None, Some(x)) => x.bounds[..x.num_dims].to_vec(),
        (Some(x), Some(y)) => x.bounds[..x.num_dims]
            .iter()
            .zip(&y.bounds[..y.num_dims])
            .map(|(p, q)| p.hull(*q))
            .collect(),
    };
    Ok(Prepared::Compare(Box::new(ca), Box::new(cb), dim_box))
}

/// Buffers reused across dimension points.
#[derive(Default)]
struct Scratch {
    va: Vec<Option<i64>>,
    vb: Vec<Option<i64>>,
    ia: Vec<Vec<Option<i64>>>,
    ib: Vec<Vec<Option<i64>>>,
}

/// Whether both maps reach the same result tuples from dimension point `d`;
/// `inner` is the larger number of symbol combinations of the two.
fn same_at(ca: &mut Side, cb: &mut Side, d: &[i64], inner: u128, s: &mut Scratch) -> bool {
    if inner <= 1 {
        // At most one tuple per dimension point: compare without collecting.
        let fa = ca.single(d, &mut s.va);
        let fb = cb.single(d, &mut s.vb);
        fa == fb && (!fa || s.va == s.vb)
    } else {
        ca.image(d, &mut s.ia);
        cb.image(d, &mut s.ib);
        s.ia == s.ib
    }
}

/// One map prepared for comparison (`None` when its domain is known empty).
struct Side {
    map: Option<CompiledMap>,
    point: Vec<i64>,
    values: Vec<Option<i64>>,
}

impl Side {
    fn new(m: &IndexingMap) -> Result<Side> {
        let map = if m.state == State::KnownEmpty {
            None
        } else {
            Some(CompiledMap::new(m)?)
        };
        let n = map.as_ref().map_or(0, |c| c.bounds.len());
        Ok(Side {
            map,
            point: vec![0; n],
            values: Vec::new(),
        })
    }

    fn inner_size(&self) -> u128 {
        self.map
            .as_ref()
            .map_or(0, |c| box_size(&c.bounds[c.num_dims..]))
    }

    fn is_empty(&mut self, limit: u64) -> Result<bool> {
        let Some(c) = &mut self.map else {
            return Ok(true);
        };
        let size = box_size(&c.bounds);
        if size > limit as u128 {
            return Err(too_large(size, limit));
        }
        let bounds = c.bounds.clone();
        let mut found = false;
        for_each_box_point(&bounds, &mut self.point, 0, &mut |p| {
            found = found || c.constraints_hold(p);
        });
        Ok(!found)
    }

    /// For a map whose range and runtime variables have at most one value
    /// each: whether dimension point `dims` is in the domain, with the
    /// results written to `out`.
    fn single(&mut self, dims: &[i64], out: &mut Vec<Option<i64>>) -> bool {
        let Some(c) = &mut self.map else { return false };
        let nd = c.num_dims;
        let inside = dims
            .iter()
            .zip(&c.bounds[..nd])
            .all(|(x, b)| b.contains(*x));
        if !inside {
            return false;
        }
        self.point[..nd].copy_from_slice(dims);
        for (k, b) in c.bounds[nd..].iter().enumerate() {
            self.point[nd + k] = b.lower;
        }
        if !c.constraints_hold(&self.point) {
            return false;
        }
        c.results_at(&self.point, out);
        true
    }

    /// The sorted, de-duplicated result tuples at dimension point `dims`.
    fn image(&mut self, dims: &[i64], out: &mut Vec<Vec<Option<i64>>>) {
        out.clear();
        let Some(c) = &mut self.map else { return };
        let nd = c.num_dims;
        if !dims
            .iter()
            .zip(&c.bounds[..nd])
            .all(|(x, b)| b.contains(*x))
        {
            return;
        }
        self.point[..nd].copy_from_slice(dims);
        let inner: Vec<Interval> = c.bounds[nd..].to_vec();
        let values = &mut self.values;
        for_each_box_point(&inner, &mut self.point, nd, &mut |p| {
            if c.constraints_hold(p) {
                c.results_at(p, values);
                out.push(values.clone());
            }
        });
        out.sort_unstable();
        out.dedup();
    }
}
