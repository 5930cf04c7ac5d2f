//! Storage flattening, as TVM's `StorageFlatten` and
//! `Buffer::get_flattened_buffer` do it: every N-d buffer becomes a buffer
//! with one physical axis per group of logical axes between its axis
//! separators (a single axis when it has none), each `realize` becomes an
//! `allocate` of its region, and every access becomes a row-major offset
//! into that region.
//!
//! Layout transforms are not applied here: axes keep their order.

use crate::buffer::{Buffer, BufferId};
use crate::mutate::{walk_stmt, Mutator};
use crate::stmt::{PrimFunc, Stmt};
use arith::{Expr, Range};
use std::collections::HashMap;
use std::fmt;

/// A flattened function and the physical buffers that replaced the logical
/// ones.
#[derive(Clone, Debug)]
pub struct Flattened {
    /// The function over physical buffers; its parameters are the physical
    /// buffers of the original parameters, in order.
    pub func: PrimFunc,
    /// Each logical buffer and a physical buffer that replaced it, in the
    /// order met: one per parameter, one per `realize` or `allocate` of an
    /// intermediate buffer.
    pub buffers: Vec<(Buffer, Buffer)>,
}

impl Flattened {
    /// The (first) physical buffer that replaced `logical`.
    pub fn physical(&self, logical: &Buffer) -> Option<&Buffer> {
        self.buffers
            .iter()
            .find(|(l, _)| l == logical)
            .map(|(_, p)| p)
    }
}

/// Why a function cannot be flattened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlattenError {
    /// The buffer concerned.
    pub buffer: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for FlattenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot flatten buffer `{}`: {}",
            self.buffer, self.message
        )
    }
}

impl std::error::Error for FlattenError {}

/// Flattens every buffer of `func`.
///
/// A `realize` of an intermediate buffer becomes an `allocate` of a new
/// physical buffer shaped like the region (grouped by axis separators), and
/// accesses inside it become offsets relative to the region's minimum. The
/// region may reach outside the logical shape, and its extents may depend
/// on enclosing loops. A `realize` of a
/// parameter is dropped: parameters are flattened over their whole shape.
/// Index expressions are built as written (`((bi*4) + bj)`, with no
/// `- 0` or `*1`); run [`crate::simplify`] afterwards to fold the rest.
///
/// Accesses are only rewritten, not checked: an index out of range on one
/// axis may land inside the flat buffer, so check the logical program with
/// the interpreter first.
///
/// ```
/// use arith::{Expr, Range, Var};
/// use tir::{Buffer, DataType, PrimFunc, Stmt, Value};
/// let a = Buffer::new("A", DataType::Float32, [4i64, 4]);
/// let b = Buffer::new("B", DataType::Float32, [4i64, 4]);
/// let (bi, bj) = (Var::new("bi"), Var::new("bj"));
/// let store = Stmt::store(&b, [bi.expr(), bj.expr()], Value::load(&a, [bi.expr(), bj.expr()]));
/// let region = vec![Range::from_extent(Expr::int(4)), Range::from_extent(Expr::int(4))];
/// let body = Stmt::realize(&b, region,
///     Stmt::for_range(&bi, 0, 4, Stmt::for_range(&bj, 0, 4, store)));
/// let flat = tir::flatten(&PrimFunc::new("f", vec![a], body)).unwrap();
/// assert_eq!(flat.func.to_string(), "\
/// // attr [B] storage_scope = \"global\"
/// allocate B[float32 * 16]
/// for (bi, 0, 4) {
///   for (bj, 0, 4) {
///     B[((bi*4) + bj)] = A[((bi*4) + bj)]
///   }
/// }
/// ");
/// ```
pub fn flatten(func: &PrimFunc) -> Result<Flattened, FlattenError> {
    let mut f = Flattener {
        buffers: Vec::new(),
        boxes: HashMap::new(),
        params: func.params.clone(),
    };
    let mut params = Vec::with_capacity(func.params.len());
    for p in &func.params {
        let whole: Vec<Range> = p
            .shape()
            .iter()
            .map(|s| Range::from_extent(s.clone()))
            .collect();
        let physical = f.physical(p, &whole)?;
        f.boxes
            .entry(p.id())
            .or_default()
            .push((whole, physical.clone()));
        params.push(physical);
    }
    let body = f.stmt(&func.body)?;
    Ok(Flattened {
        func: PrimFunc::new(func.name.clone(), params, body),
        buffers: f.buffers,
    })
}

struct Flattener {
    /// Each logical buffer and a physical buffer made for it.
    buffers: Vec<(Buffer, Buffer)>,
    /// The boxes currently giving each buffer storage, innermost last, with
    /// the physical buffer that holds each.
    boxes: HashMap<BufferId, Vec<(Vec<Range>, Buffer)>>,
    /// The function's parameters, which are stored whole.
    params: Vec<Buffer>,
}

/// The logical axes of each physical axis: `ndim` axes cut at `separators`.
fn groups(b: &Buffer) -> Result<Vec<std::ops::Range<usize>>, FlattenError> {
    let seps = b.axis_separators();
    let ok = seps.windows(2).all(|w| w[0] < w[1]) && seps.iter().all(|&s| s >= 1 && s < b.ndim());
    if !ok {
        return Err(FlattenError {
            buffer: b.name().to_string(),
            message: format!(
                "axis separators {seps:?} must increase strictly and lie in [1, {}) for {} axes",
                b.ndim(),
                b.ndim()
            ),
        });
    }
    let mut cuts = vec![0];
    cuts.extend_from_slice(seps);
    cuts.push(b.ndim());
    Ok(cuts.windows(2).map(|w| w[0]..w[1]).collect())
}

/// `a * b`, folding constants and the factor 1.
fn mul(a: Expr, b: &Expr) -> Expr {
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) if x.checked_mul(y).is_some() => Expr::int(x * y),
        (Some(1), _) => b.clone(),
        (_, Some(1)) => a,
        _ => Expr::mul(a, b.clone()),
    }
}

/// The product of `sizes` (1 when empty).
fn product(sizes: &[Expr]) -> Expr {
    sizes.iter().fold(Expr::int(1), mul)
}

impl Flattener {
    /// A physical buffer holding `b` on `region`.
    fn physical(&mut self, b: &Buffer, region: &[Range]) -> Result<Buffer, FlattenError> {
        let groups = groups(b)?;
        let extents: Vec<Expr> = region.iter().map(|r| r.extent.clone()).collect();
        let shape: Vec<Expr> = groups
            .iter()
            .map(|g| product(&extents[g.clone()]))
            .collect();
        let separators = (1..groups.len()).collect();
        let p = Buffer::new(b.name(), b.dtype(), shape)
            .with_axis_separators(separators)
            .with_scope(b.scope());
        self.buffers.push((b.clone(), p.clone()));
        Ok(p)
    }

    /// The physical buffer and indices of `b[indices]` in the innermost box
    /// giving `b` storage.
    fn indices(
        &mut self,
        b: &Buffer,
        indices: &[Expr],
    ) -> Result<(Buffer, Vec<Expr>), FlattenError> {
        let err = |message: String| FlattenError {
            buffer: b.name().to_string(),
            message,
        };
        if indices.len() != b.ndim() {
            return Err(err(format!(
                "{} indices for {} axes",
                indices.len(),
                b.ndim()
            )));
        }
        let Some((region, physical)) = self.boxes.get(&b.id()).and_then(|v| v.last()) else {
            return Err(err(
                "accessed outside any realize or allocate of it".to_string()
            ));
        };
        let mut out = Vec::new();
        for g in groups(b)? {
            // Row-major within the group: ((i0 - m0)*e1 + (i1 - m1))*e2 + ...
            let mut offset: Option<Expr> = None;
            for k in g {
                let r = &region[k];
                let local = if r.min.is_int(0) {
                    indices[k].clone()
                } else {
                    indices[k].clone() - r.min.clone()
                };
                offset = Some(match offset {
                    None => local,
                    Some(o) => mul(o, &r.extent) + local,
                });
            }
            out.push(offset.unwrap_or_else(|| Expr::int(0)));
        }
        Ok((physical.clone(), out))
    }

    /// `body` with `buffer` given storage on `region`: an `allocate` of a
    /// physical buffer for an intermediate buffer, nothing for a parameter.
    fn storage(
        &mut self,
        buffer: &Buffer,
        region: Vec<Range>,
        body: &Stmt,
    ) -> Result<Stmt, FlattenError> {
        if region.len() != buffer.ndim() {
            return Err(FlattenError {
                buffer: buffer.name().to_string(),
                message: format!(
                    "a region of {} ranges for {} axes",
                    region.len(),
                    buffer.ndim()
                ),
            });
        }
        if self.params.contains(buffer) {
            // A parameter is stored whole; its realize only marked where it
            // is computed.
            return self.stmt(body);
        }
        let physical = self.physical(buffer, &region)?;
        self.boxes
            .entry(buffer.id())
            .or_default()
            .push((region, physical.clone()));
        let body = self.stmt(body);
        self.boxes.get_mut(&buffer.id()).map(Vec::pop);
        Ok(Stmt::allocate(&physical, physical.shape().to_vec(), body?))
    }
}

impl Mutator for Flattener {
    type Error = FlattenError;

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, FlattenError> {
        match s {
            Stmt::Realize {
                buffer,
                region,
                body,
            } => self.storage(buffer, region.clone(), body),
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => {
                let region = extents
                    .iter()
                    .map(|e| Range::from_extent(e.clone()))
                    .collect();
                self.storage(buffer, region, body)
            }
            _ => walk_stmt(self, s),
        }
    }

    fn access(
        &mut self,
        buffer: &Buffer,
        indices: Vec<Expr>,
    ) -> Result<(Buffer, Vec<Expr>), FlattenError> {
        self.indices(buffer, &indices)
    }
}
