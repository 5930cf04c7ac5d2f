//! [`Layout`]: a buffer's logical shape, its transform, and the physical
//! buffer it is flattened into.
//!
//! After the transform, the transformed axes between axis separators are
//! flattened row-major into one physical axis each; without separators the
//! buffer is one flat dimension.

use crate::error::{ErrorKind, LayoutError, Result};
use crate::fold;
use crate::index_map::IndexMap;
use arith::Expr;
use std::ops::Range;

/// The physical layout of one buffer.
///
/// ```
/// use layout::{IndexMap, Layout};
/// use arith::Expr;
/// let map = IndexMap::parse("lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]").unwrap();
/// let shape = [16, 64, 64, 128].map(Expr::int).to_vec();
/// let l = Layout::new(shape, Some(map)).unwrap();
/// assert_eq!(l.physical_shape(), &[Expr::int(32768), Expr::int(256)]);
/// assert_eq!(l.physical_point(&[11, 37, 23, 101]).unwrap(), vec![24165, 93]);
/// ```
#[derive(Clone, Debug)]
pub struct Layout {
    logical_shape: Vec<Expr>,
    map: Option<IndexMap>,
    transformed_shape: Vec<Expr>,
    groups: Vec<Range<usize>>,
    physical_shape: Vec<Expr>,
    strides: Vec<Expr>,
    inverse: Option<IndexMap>,
    padding: Option<Expr>,
}

impl Layout {
    /// The layout of a buffer of `shape` under `map` (`None`: no transform,
    /// flattened to one dimension). Fails when the map is not injective on
    /// `shape` or not made of splits, fusions, offsets and reorders.
    pub fn new(shape: Vec<Expr>, map: Option<IndexMap>) -> Result<Layout> {
        // An error without a place of its own (an extent that overflows)
        // points at the map's indices.
        let span = map.as_ref().and_then(IndexMap::body_span);
        Layout::build(shape, map).map_err(|e| e.at(span))
    }

    fn build(shape: Vec<Expr>, map: Option<IndexMap>) -> Result<Layout> {
        for e in &shape {
            if e.as_int().is_some_and(|v| v < 1) {
                return Err(LayoutError::new(
                    ErrorKind::OutOfBounds,
                    format!("shape extent {e} must be positive"),
                ));
            }
        }
        let (transformed_shape, separators, inverse, padding) = match &map {
            Some(m) => {
                let t = m.map_shape(&shape)?;
                let (inv, pad) = m.non_surjective_inverse(&shape)?;
                (t, m.axis_separators().to_vec(), Some(inv), pad)
            }
            None => (shape.clone(), Vec::new(), None, None),
        };
        let mut groups = Vec::new();
        let mut start = 0;
        for s in separators.iter().copied().chain([transformed_shape.len()]) {
            groups.push(start..s);
            start = s;
        }
        let mut physical_shape = Vec::with_capacity(groups.len());
        let mut strides = vec![Expr::int(1); transformed_shape.len()];
        for g in &groups {
            // Row-major strides inside the group, innermost first.
            let mut stride = Expr::int(1);
            for k in g.clone().rev() {
                strides[k] = stride.clone();
                stride = fold::mul(&transformed_shape[k], &stride)?;
            }
            // The extent reads left to right, as written: `M * ceildiv(Q, 4) * N`.
            let mut extent: Option<Expr> = None;
            for k in g.clone() {
                extent = Some(match extent {
                    None => transformed_shape[k].clone(),
                    Some(acc) => fold::mul(&acc, &transformed_shape[k])?,
                });
            }
            physical_shape.push(extent.unwrap_or(Expr::int(1)));
        }
        Ok(Layout {
            logical_shape: shape,
            map,
            transformed_shape,
            groups,
            physical_shape,
            strides,
            inverse,
            padding,
        })
    }

    /// The logical shape.
    pub fn logical_shape(&self) -> &[Expr] {
        &self.logical_shape
    }

    /// The transform, if any.
    pub fn map(&self) -> Option<&IndexMap> {
        self.map.as_ref()
    }

    /// The shape after the transform (before flattening).
    pub fn transformed_shape(&self) -> &[Expr] {
        &self.transformed_shape
    }

    /// The physical shape: one extent per group of transformed axes.
    pub fn physical_shape(&self) -> &[Expr] {
        &self.physical_shape
    }

    /// The transformed axes that make up each physical axis.
    pub fn groups(&self) -> &[Range<usize>] {
        &self.groups
    }

    /// The inverse map over the transformed axes (`None` without a map).
    pub fn inverse(&self) -> Option<&IndexMap> {
        self.inverse.as_ref()
    }

    /// True exactly on the transformed points no logical index reaches
    /// (`None` when every point is reached).
    pub fn padding_predicate(&self) -> Option<&Expr> {
        self.padding.as_ref()
    }

    /// Whether every transformed point is reached (no padding).
    pub fn is_bijective(&self) -> bool {
        self.padding.is_none()
    }

    /// The transformed index of a logical index.
    pub fn transformed_index(&self, logical: &[Expr]) -> Result<Vec<Expr>> {
        match &self.map {
            Some(m) => m.map_indices(logical),
            None => {
                arity("the buffer", self.logical_shape.len(), logical.len())?;
                Ok(logical.to_vec())
            }
        }
    }

    /// Flattens a transformed index into the physical index, row-major
    /// within each group of axes.
    pub fn flatten(&self, transformed: &[Expr]) -> Result<Vec<Expr>> {
        arity(
            "the transformed buffer",
            self.transformed_shape.len(),
            transformed.len(),
        )?;
        self.groups
            .iter()
            .map(|g| {
                let mut acc: Option<Expr> = None;
                for k in g.clone() {
                    let t = fold::mul(&transformed[k], &self.strides[k])?;
                    acc = Some(match acc {
                        None => t,
                        Some(a) => fold::add(&a, &t)?,
                    });
                }
                Ok(acc.unwrap_or(Expr::int(0)))
            })
            .collect()
    }

    /// The physical index of a logical index.
    pub fn physical_index(&self, logical: &[Expr]) -> Result<Vec<Expr>> {
        self.flatten(&self.transformed_index(logical)?)
    }

    /// The physical index of a constant logical index, checked against the
    /// logical shape where it is constant.
    pub fn physical_point(&self, logical: &[i64]) -> Result<Vec<i64>> {
        arity("the buffer", self.logical_shape.len(), logical.len())?;
        let idx: Vec<Expr> = logical.iter().map(|&v| Expr::int(v)).collect();
        self.physical_index(&idx)?
            .into_iter()
            .map(|e| {
                e.as_int().ok_or_else(|| {
                    LayoutError::new(ErrorKind::Arith, format!("index `{e}` is not constant"))
                })
            })
            .collect()
    }
}

impl Layout {
    /// The constant extents of `shape`, or an error naming `what`.
    fn constant(shape: &[Expr], what: &str) -> Result<Vec<i64>> {
        shape
            .iter()
            .map(|e| {
                e.as_int().ok_or_else(|| {
                    LayoutError::new(
                        ErrorKind::Arith,
                        format!("the {what} shape has the symbolic extent `{e}`: give numbers"),
                    )
                })
            })
            .collect()
    }

    /// The logical index stored at a point of the transformed shape: the
    /// inverse map at the point, `None` where the padding predicate holds
    /// (no logical index lives there). Needs a constant transformed shape;
    /// a point outside it is an error.
    ///
    /// ```
    /// use layout::{IndexMap, Layout};
    /// use arith::Expr;
    /// let map = IndexMap::parse("lambda i: [i // 4, i % 4]").unwrap();
    /// let l = Layout::new(vec![Expr::int(14)], Some(map)).unwrap();
    /// assert_eq!(l.logical_at(&[3, 1]).unwrap(), Some(vec![13]));
    /// assert_eq!(l.logical_at(&[3, 2]).unwrap(), None);
    /// ```
    pub fn logical_at(&self, transformed: &[i64]) -> Result<Option<Vec<i64>>> {
        let dims = Layout::constant(&self.transformed_shape, "transformed")?;
        arity("the transformed buffer", dims.len(), transformed.len())?;
        if let Some(k) = (0..dims.len()).find(|&k| !(0..dims[k]).contains(&transformed[k])) {
            return Err(LayoutError::new(
                ErrorKind::OutOfBounds,
                format!(
                    "index {} of axis {k} is outside the transformed extent {}",
                    transformed[k], dims[k]
                ),
            ));
        }
        let Some(inverse) = &self.inverse else {
            return Ok(Some(transformed.to_vec()));
        };
        if let Some(p) = &self.padding {
            let axes = inverse.initial_indices();
            let v =
                p.eval(&|x: &arith::Var| axes.iter().position(|a| a == x).map(|k| transformed[k]))?;
            if v != 0 {
                return Ok(None);
            }
        }
        inverse.map_point(transformed).map(Some)
    }

    /// The transformed point a constant physical point stands for: each
    /// physical index split row-major over its group of transformed axes
    /// (the inverse of [`Layout::flatten`]). Needs a constant transformed
    /// shape; a point outside the physical shape is an error.
    ///
    /// ```
    /// use layout::{IndexMap, Layout};
    /// use arith::Expr;
    /// let map = IndexMap::parse("lambda i: [i // 4, te.AXIS_SEPARATOR, i % 4]").unwrap();
    /// let l = Layout::new(vec![Expr::int(8)], Some(map)).unwrap();
    /// assert_eq!(l.unflatten(&[1, 3]).unwrap(), vec![1, 3]);
    /// ```
    pub fn unflatten(&self, physical: &[i64]) -> Result<Vec<i64>> {
        let dims = Layout::constant(&self.transformed_shape, "transformed")?;
        arity("the physical buffer", self.groups.len(), physical.len())?;
        let mut out = vec![0i64; dims.len()];
        for (g, (range, &p)) in self.groups.iter().zip(physical).enumerate() {
            let extent = dims[range.clone()]
                .iter()
                .try_fold(1i64, |a, &d| a.checked_mul(d))
                .ok_or_else(|| {
                    LayoutError::new(ErrorKind::Arith, "the physical extent overflows")
                })?;
            if !(0..extent).contains(&p) {
                return Err(LayoutError::new(
                    ErrorKind::OutOfBounds,
                    format!("index {p} of physical axis {g} is outside its extent {extent}"),
                ));
            }
            let mut rest = p;
            for k in range.clone().rev() {
                out[k] = rest % dims[k];
                rest /= dims[k];
            }
        }
        Ok(out)
    }
}

/// An error unless an index of `got` components fits `what`, a buffer of
/// `rank` dimensions.
fn arity(what: &str, rank: usize, got: usize) -> Result<()> {
    if got == rank {
        return Ok(());
    }
    Err(LayoutError::new(
        ErrorKind::Arity,
        format!("{what} has {rank} dimensions but the index has {got}"),
    ))
}
