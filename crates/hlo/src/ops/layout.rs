//! Physical layouts: where each logical element of an array lives.
//!
//! Untiled, the physical position of an element is its logical index
//! permuted into major-to-minor order (the reverse of the layout's
//! `minor_to_major` list). A tiled layout (`{1,0:T(8,128)(2,1)}`) then
//! applies each tile in turn, as XLA's tiled layouts define it: a tile of
//! rank `k` splits the last `k` dimensions `n` of the current shape into
//! `ceil(n / t)` tiles of `t`, and moves the within-tile dimensions after
//! all the others. `f32[1000,300]{1,0:T(8,128)}` has physical shape
//! `[125, 3, 8, 128]` and element `(i, j)` is at
//! `(i floordiv 8, j floordiv 128, i mod 8, j mod 128)`. A tile of higher
//! rank than the shape first pads it with leading dimensions of size 1
//! (a scalar `{:T(128)}` is `[1, 128]`); a `*` in a tile combines its
//! dimension with the next more minor one before tiling (`T(*,2,128)` on
//! `[a,b,c]` tiles `[a*b, c]` by `(2,128)`). Positions past the end of a
//! dimension that is not a multiple of its tile hold no element: the map
//! from physical positions to logical indices excludes them by constraints.

use crate::error::AnalysisError;
use crate::shape::{ArrayShape, TileDim};
use arith::Expr;
use indexing::{build, IndexingMap, Interval};

/// Logical dimension numbers in physical order, major first.
pub(crate) fn physical_order(shape: &ArrayShape) -> Vec<usize> {
    shape.minor_to_major().into_iter().rev().collect()
}

/// Logical indices from physical ones: logical dimension `order[k]` is
/// physical position `k`.
pub(crate) fn logical_of_physical(order: &[usize], physical: Vec<Expr>) -> Vec<Expr> {
    let mut logical = vec![Expr::int(0); order.len()];
    for (k, e) in physical.into_iter().enumerate() {
        logical[order[k]] = e;
    }
    logical
}

/// One application of a tile: the shape it applies to (after padding with
/// leading 1s to the tile's rank), the dimensions its `*` entries combine,
/// and its sizes.
struct TileStep {
    /// How many leading size-1 dimensions were added before tiling.
    padded: usize,
    /// Each `*` in turn: dimension `j` of the current shape absorbs the
    /// next more minor one, of size `minor` (index `e_j * minor + e_j+1`).
    merges: Vec<(usize, i64)>,
    /// The shape the tile's sizes split, after padding and combining.
    sizes: Vec<i64>,
    /// The tile's sizes, without its `*` entries.
    tile: Vec<i64>,
}

/// Why `shape`'s physical positions cannot be given, if they cannot: an
/// annotation that may move elements.
fn check_supported(shape: &ArrayShape) -> Result<(), AnalysisError> {
    if let Some(a) = shape.annotations.iter().find(|a| !a.keeps_positions()) {
        return Err(AnalysisError::unsupported(format!(
            "the layout of `{shape}` has annotation `{a}`, which may move elements; \
             physical positions are known only for dense layouts"
        )));
    }
    Ok(())
}

/// The tiling steps of `shape` and its final physical shape.
fn tile_steps(shape: &ArrayShape) -> Result<(Vec<TileStep>, Vec<i64>), AnalysisError> {
    check_supported(shape)?;
    let mut sizes: Vec<i64> = physical_order(shape)
        .iter()
        .map(|&l| shape.dims[l])
        .collect();
    let mut steps = Vec::with_capacity(shape.tiles.len());
    for t in &shape.tiles {
        let mut tile: Vec<Option<i64>> = t
            .dims
            .iter()
            .map(|d| match d {
                TileDim::Size(n) => Some(*n),
                TileDim::Combine => None,
            })
            .collect();
        let padded = tile.len().saturating_sub(sizes.len());
        let mut current = vec![1; padded];
        current.extend_from_slice(&sizes);
        let base = current.len() - tile.len();
        // A `*` combines its dimension with the next more minor one,
        // leftmost first (so `(*,*,2)` on `[a,b,c,d]` tiles `[a*b*c, d]`).
        let mut merges = Vec::new();
        while let Some(i) = tile.iter().position(Option::is_none) {
            if i + 1 == tile.len() {
                return Err(AnalysisError::unsupported(format!(
                    "the layout of `{shape}` has `*` as its most minor tile dimension: \
                     there is no dimension to combine it with"
                )));
            }
            let j = base + i;
            let minor = current[j + 1];
            current[j] = current[j].checked_mul(minor).ok_or_else(|| {
                AnalysisError::unsupported(format!(
                    "combining dimensions of `{shape}` overflows 64 bits"
                ))
            })?;
            current.remove(j + 1);
            tile.remove(i);
            merges.push((j, minor));
        }
        let tile: Vec<i64> = tile.into_iter().flatten().collect();
        let (m, k) = (current.len(), tile.len());
        let mut next: Vec<i64> = current[..m - k].to_vec();
        for (i, &t) in tile.iter().enumerate() {
            next.push(ceil_div(current[m - k + i], t));
        }
        next.extend_from_slice(&tile);
        steps.push(TileStep {
            padded,
            merges,
            sizes: current,
            tile,
        });
        sizes = next;
    }
    Ok((steps, sizes))
}

fn ceil_div(n: i64, t: i64) -> i64 {
    n / t + i64::from(n % t != 0)
}

/// The physical shape of `shape`, major to minor: its dimensions permuted
/// by the layout, then tiled.
pub(crate) fn physical_dims(shape: &ArrayShape) -> Result<Vec<i64>, AnalysisError> {
    Ok(tile_steps(shape)?.1)
}

/// The map from logical indices of `shape` to its physical positions.
pub(crate) fn logical_to_physical(shape: &ArrayShape) -> Result<IndexingMap, AnalysisError> {
    let (steps, _) = tile_steps(shape)?;
    let order = physical_order(shape);
    let bounds: Vec<Interval> = shape.dims.iter().map(|&n| Interval::of_size(n)).collect();
    IndexingMap::from_fn(&bounds, &[], |d, _| {
        let mut index: Vec<Expr> = order.iter().map(|&l| d[l].clone()).collect();
        for step in &steps {
            let mut padded = vec![Expr::int(0); step.padded];
            padded.append(&mut index);
            for &(j, minor) in &step.merges {
                let absorbed = padded.remove(j + 1);
                padded[j] = build::add(build::mul(padded[j].clone(), Expr::int(minor)), absorbed);
            }
            let (m, k) = (padded.len(), step.tile.len());
            let mut next: Vec<Expr> = padded[..m - k].to_vec();
            let within: Vec<Expr> = (0..k)
                .map(|i| build::modulo(padded[m - k + i].clone(), Expr::int(step.tile[i])))
                .collect();
            next.extend(
                (0..k)
                    .map(|i| build::floor_div(padded[m - k + i].clone(), Expr::int(step.tile[i]))),
            );
            next.extend(within);
            index = next;
        }
        index
    })
    .map_err(|e| AnalysisError::composition(e.to_string()))
}

/// The map from physical positions of `shape` (major to minor) to its
/// logical indices; a position of tile padding is outside the map's domain.
pub(crate) fn physical_to_logical(shape: &ArrayShape) -> Result<IndexingMap, AnalysisError> {
    let (steps, sizes) = tile_steps(shape)?;
    let order = physical_order(shape);
    let bounds: Vec<Interval> = sizes.iter().map(|&n| Interval::of_size(n)).collect();
    let mut constraints: Vec<(Expr, Interval)> = Vec::new();
    let mut map = IndexingMap::from_fn(&bounds, &[], |p, _| {
        let mut index: Vec<Expr> = p.to_vec();
        for step in steps.iter().rev() {
            let (m, k) = (step.sizes.len(), step.tile.len());
            let mut before: Vec<Expr> = index[..m - k].to_vec();
            for i in 0..k {
                let (n, t) = (step.sizes[m - k + i], step.tile[i]);
                let e = build::add(
                    build::mul(index[m - k + i].clone(), Expr::int(t)),
                    index[m + i].clone(),
                );
                // A dimension that is not a multiple of its tile leaves
                // padding in the last tile: positions there hold no element.
                if n % t != 0 {
                    constraints.push((e.clone(), Interval::of_size(n)));
                }
                before.push(e);
            }
            for &(j, minor) in step.merges.iter().rev() {
                let combined = before[j].clone();
                before[j] = build::floor_div(combined.clone(), Expr::int(minor));
                before.insert(j + 1, build::modulo(combined, Expr::int(minor)));
            }
            index = before.split_off(step.padded);
        }
        logical_of_physical(&order, index)
    })
    .map_err(|e| AnalysisError::composition(e.to_string()))?;
    for (e, interval) in constraints {
        map.add_constraint(e, interval)
            .map_err(|e| AnalysisError::composition(e.to_string()))?;
    }
    Ok(map)
}
