//! Physical layouts: the permutation between logical dimensions and the
//! major-to-minor physical order given by a shape's `minor_to_major` list.

use crate::shape::ArrayShape;
use arith::Expr;
use indexing::IndexingMap;

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

/// The map from physical indices (major to minor) of `shape` to its logical
/// indices.
pub(crate) fn physical_to_logical(shape: &ArrayShape) -> IndexingMap {
    let order = physical_order(shape);
    let physical_dims: Vec<i64> = order.iter().map(|&l| shape.dims[l]).collect();
    let mut map = IndexingMap::identity(&physical_dims);
    let physical: Vec<Expr> = (0..order.len()).map(|k| map.dim_expr(k)).collect();
    for (l, e) in logical_of_physical(&order, physical)
        .into_iter()
        .enumerate()
    {
        let _ = map.set_result(l, e);
    }
    map
}

/// The map from logical indices of `shape` to its physical indices.
pub(crate) fn logical_to_physical(shape: &ArrayShape) -> IndexingMap {
    let order = physical_order(shape);
    let mut map = IndexingMap::identity(&shape.dims);
    for (k, &l) in order.iter().enumerate() {
        let e = map.dim_expr(l);
        let _ = map.set_result(k, e);
    }
    map
}
