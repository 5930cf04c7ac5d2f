//! Applying layout transforms (seed 001): every access to a transformed
//! buffer goes through its [`layout::IndexMap`] and is then flattened into
//! the buffer's physical axes (one per group between axis separators).
//!
//! A transformed parameter or `realize`d buffer is laid out over its whole
//! logical shape; an `allocate`d one over the allocation's extents (its
//! accesses are relative to the allocation, so the transform applies to the
//! local buffer). Other buffers are left as they are.

use crate::buffer::{Buffer, BufferId};
use crate::mutate::{walk_stmt, Mutator};
use crate::stmt::{PrimFunc, Stmt};
use arith::{Analyzer, Expr, Range};
use layout::{IndexMap, Layout};
use std::collections::HashMap;
use std::fmt;

/// Why a transform could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutTransformError {
    /// The buffer concerned.
    pub buffer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LayoutTransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot lay out buffer `{}`: {}",
            self.buffer, self.message
        )
    }
}

impl std::error::Error for LayoutTransformError {}

/// The physical buffer that holds a logical one under a layout.
pub fn physical_buffer(logical: &Buffer, l: &Layout) -> Buffer {
    Buffer::new(logical.name(), logical.dtype(), l.physical_shape().to_vec())
        .with_axis_separators((1..l.physical_shape().len()).collect())
        .with_scope(logical.scope())
}

/// Applies `transforms` (each a logical buffer and its map) to `func`:
/// parameters, `realize`, `allocate`, loads and stores of those buffers
/// move to physical buffers with physical indices, simplified under the
/// ranges of the enclosing loops. Returns the new function and, per
/// transformed parameter, its layout.
///
/// ```
/// use arith::Var;
/// use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
/// let x = Buffer::new("x", DataType::Float32, [2i64, 3]);
/// let y = Buffer::new("y", DataType::Float32, [2i64, 3]);
/// let (i, j) = (Var::new("i"), Var::new("j"));
/// let body = Stmt::for_range(&i, 0, 2, Stmt::for_range(&j, 0, 3,
///     Stmt::store(&y, [i.expr(), j.expr()], Value::load(&x, [i.expr(), j.expr()]))));
/// let f = PrimFunc::new("f", vec![x.clone(), y], body);
/// let map = layout::IndexMap::parse("lambda i, j: [j, i]").unwrap();
/// let (g, _) = tir::apply_layout_transforms(&f, &[(x, map)]).unwrap();
/// assert!(g.to_string().contains("x[((j*2) + i)]"));
/// ```
pub fn apply_layout_transforms(
    func: &PrimFunc,
    transforms: &[(Buffer, IndexMap)],
) -> Result<(PrimFunc, Vec<(Buffer, Layout)>), LayoutTransformError> {
    if transforms.is_empty() {
        return Ok((func.clone(), Vec::new()));
    }
    let mut a = Applier {
        maps: transforms
            .iter()
            .map(|(b, m)| (b.id(), m.clone()))
            .collect(),
        scopes: HashMap::new(),
        an: Analyzer::new(),
    };
    let mut params = Vec::with_capacity(func.params.len());
    let mut layouts = Vec::new();
    for p in &func.params {
        match a.maps.get(&p.id()).cloned() {
            Some(map) => {
                let (phys, l) = a.lay_out(p, p.shape().to_vec(), map)?;
                a.scopes
                    .entry(p.id())
                    .or_default()
                    .push((phys.clone(), l.clone()));
                layouts.push((phys.clone(), l));
                params.push(phys);
            }
            None => params.push(p.clone()),
        }
    }
    let body = a.stmt(&func.body)?;
    Ok((PrimFunc::new(func.name.clone(), params, body), layouts))
}

struct Applier {
    maps: HashMap<BufferId, IndexMap>,
    /// The physical buffers currently standing for each logical one.
    scopes: HashMap<BufferId, Vec<(Buffer, Layout)>>,
    /// Ranges of the enclosing loops, for simplifying indices.
    an: Analyzer,
}

impl Applier {
    fn lay_out(
        &self,
        b: &Buffer,
        shape: Vec<Expr>,
        map: IndexMap,
    ) -> Result<(Buffer, Layout), LayoutTransformError> {
        let l = Layout::new(shape, Some(map)).map_err(|e| LayoutTransformError {
            buffer: b.name().to_string(),
            message: e.message,
        })?;
        Ok((physical_buffer(b, &l), l))
    }

    /// The physical buffer and indices of `b[indices]`, when `b` is laid
    /// out.
    fn physical_access(
        &self,
        b: &Buffer,
        indices: &[Expr],
    ) -> Result<Option<(Buffer, Vec<Expr>)>, LayoutTransformError> {
        let Some((phys, l)) = self.scopes.get(&b.id()).and_then(|v| v.last()) else {
            if self.maps.contains_key(&b.id()) {
                return Err(LayoutTransformError {
                    buffer: b.name().to_string(),
                    message: "accessed outside any realize or allocate of it".into(),
                });
            }
            return Ok(None);
        };
        let idx = l
            .physical_index(indices)
            .map_err(|e| LayoutTransformError {
                buffer: b.name().to_string(),
                message: e.message,
            })?;
        let idx = idx
            .into_iter()
            .map(|e| self.an.simplify(&e).unwrap_or(e))
            .collect();
        Ok(Some((phys.clone(), idx)))
    }

    /// `body` with `buffer` laid out over `shape`; `make` builds the
    /// storage statement from the physical buffer and the new body.
    fn scoped(
        &mut self,
        buffer: &Buffer,
        shape: Vec<Expr>,
        body: &Stmt,
        make: impl FnOnce(&Buffer, Stmt) -> Stmt,
    ) -> Result<Stmt, LayoutTransformError> {
        let map = self.maps[&buffer.id()].clone();
        let (phys, l) = self.lay_out(buffer, shape, map)?;
        self.scopes
            .entry(buffer.id())
            .or_default()
            .push((phys.clone(), l));
        let body = self.stmt(body);
        self.scopes.get_mut(&buffer.id()).map(Vec::pop);
        Ok(make(&phys, body?))
    }
}

impl Mutator for Applier {
    type Error = LayoutTransformError;

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, LayoutTransformError> {
        match s {
            Stmt::For {
                var,
                min,
                extent,
                kind,
                pragmas,
                body,
            } => {
                self.an.bind(var, Range::new(min.clone(), extent.clone()));
                let body = self.stmt(body);
                self.an.unbind(var);
                Ok(Stmt::For {
                    var: var.clone(),
                    min: min.clone(),
                    extent: extent.clone(),
                    kind: kind.clone(),
                    pragmas: pragmas.clone(),
                    body: Box::new(body?),
                })
            }
            Stmt::Realize { buffer, body, .. } if self.maps.contains_key(&buffer.id()) => {
                let whole = |phys: &Buffer| {
                    phys.shape()
                        .iter()
                        .map(|e| Range::from_extent(e.clone()))
                        .collect()
                };
                match self.scopes.get(&buffer.id()).and_then(|v| v.last()) {
                    // A parameter: already laid out over its whole shape;
                    // the realize only marks where it is computed.
                    Some((phys, _)) => {
                        let phys = phys.clone();
                        Ok(Stmt::realize(&phys, whole(&phys), self.stmt(body)?))
                    }
                    None => self.scoped(buffer, buffer.shape().to_vec(), body, |phys, body| {
                        Stmt::realize(phys, whole(phys), body)
                    }),
                }
            }
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } if self.maps.contains_key(&buffer.id()) => {
                self.scoped(buffer, extents.clone(), body, |phys, body| {
                    Stmt::allocate(phys, phys.shape().to_vec(), body)
                })
            }
            _ => walk_stmt(self, s),
        }
    }

    fn access(
        &mut self,
        buffer: &Buffer,
        indices: Vec<Expr>,
    ) -> Result<(Buffer, Vec<Expr>), LayoutTransformError> {
        Ok(self
            .physical_access(buffer, &indices)?
            .unwrap_or_else(|| (buffer.clone(), indices)))
    }
}
