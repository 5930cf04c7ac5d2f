//! Applying layout transforms (seed 001): every access to a transformed
//! buffer goes through its [`layout::IndexMap`] and is then flattened into
//! the buffer's physical axes (one per group between axis separators).
//!
//! A transformed parameter or `realize`d buffer is laid out over its whole
//! logical shape; an `allocate`d one over the allocation's extents (its
//! accesses are relative to the allocation, so the transform applies to the
//! local buffer). Other buffers are left as they are.

use crate::buffer::{Buffer, BufferId};
use crate::stmt::{PrimFunc, Stmt};
use crate::value::{BufferLoad, Value};
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

    fn access(
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

    fn value(&self, v: &Value) -> Result<Value, LayoutTransformError> {
        let mut error = None;
        let out = self.value_inner(v, &mut error);
        error.map_or(Ok(out), Err)
    }

    fn value_inner(&self, v: &Value, error: &mut Option<LayoutTransformError>) -> Value {
        crate::stack::grow(|| self.value_inner_step(v, error))
    }

    /// One level of [`Self::value_inner`], on the stack [`crate::stack::grow`] left room on.
    fn value_inner_step(&self, v: &Value, error: &mut Option<LayoutTransformError>) -> Value {
        let bx = |x: &Value, error: &mut Option<LayoutTransformError>| {
            Box::new(self.value_inner(x, error))
        };
        match v {
            Value::Float(..) | Value::Int(..) | Value::Index(_) => v.clone(),
            Value::Load(l) => match self.access(&l.buffer, &l.indices) {
                Ok(Some((buffer, indices))) => Value::Load(BufferLoad { buffer, indices }),
                Ok(None) => v.clone(),
                Err(e) => {
                    error.get_or_insert(e);
                    v.clone()
                }
            },
            Value::Binary(op, a, b) => Value::Binary(*op, bx(a, error), bx(b, error)),
            Value::Cmp(op, a, b) => Value::Cmp(*op, bx(a, error), bx(b, error)),
            Value::And(a, b) => Value::And(bx(a, error), bx(b, error)),
            Value::Or(a, b) => Value::Or(bx(a, error), bx(b, error)),
            Value::Not(a) => Value::Not(bx(a, error)),
            Value::Neg(a) => Value::Neg(bx(a, error)),
            Value::Cast(t, a) => Value::Cast(*t, bx(a, error)),
            Value::Select(c, a, b) => Value::Select(bx(c, error), bx(a, error), bx(b, error)),
            Value::Call(op, args) => Value::Call(
                *op,
                args.iter().map(|a| self.value_inner(a, error)).collect(),
            ),
            Value::Let(var, x, body) => Value::Let(var.clone(), bx(x, error), bx(body, error)),
        }
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

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt, LayoutTransformError> {
        Ok(match s {
            Stmt::For {
                var,
                min,
                extent,
                body,
            } => {
                self.an.bind(var, Range::new(min.clone(), extent.clone()));
                let body = self.stmt(body);
                self.an.unbind(var);
                Stmt::For {
                    var: var.clone(),
                    min: min.clone(),
                    extent: extent.clone(),
                    body: Box::new(body?),
                }
            }
            Stmt::Let { var, value, body } => Stmt::Let {
                var: var.clone(),
                value: value.clone(),
                body: Box::new(self.stmt(body)?),
            },
            Stmt::Realize {
                buffer,
                region,
                body,
            } if self.maps.contains_key(&buffer.id()) => {
                if self.scopes.get(&buffer.id()).is_some_and(|v| !v.is_empty()) {
                    // A parameter: already laid out over its whole shape;
                    // the realize only marks where it is computed.
                    let (phys, _) = self.scopes[&buffer.id()]
                        .last()
                        .cloned()
                        .expect("non-empty");
                    let whole = phys
                        .shape()
                        .iter()
                        .map(|e| Range::from_extent(e.clone()))
                        .collect();
                    let _ = region;
                    Stmt::realize(&phys, whole, self.stmt(body)?)
                } else {
                    self.scoped(buffer, buffer.shape().to_vec(), body, |phys, body| {
                        let whole = phys
                            .shape()
                            .iter()
                            .map(|e| Range::from_extent(e.clone()))
                            .collect();
                        Stmt::realize(phys, whole, body)
                    })?
                }
            }
            Stmt::Realize {
                buffer,
                region,
                body,
            } => Stmt::realize(buffer, region.clone(), self.stmt(body)?),
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } if self.maps.contains_key(&buffer.id()) => {
                self.scoped(buffer, extents.clone(), body, |phys, body| {
                    Stmt::allocate(phys, phys.shape().to_vec(), body)
                })?
            }
            Stmt::Allocate {
                buffer,
                extents,
                body,
            } => Stmt::allocate(buffer, extents.clone(), self.stmt(body)?),
            Stmt::Produce { name, body } => Stmt::produce(name.clone(), self.stmt(body)?),
            Stmt::BufferStore {
                buffer,
                indices,
                value,
                stage,
            } => {
                let value = self.value(value)?;
                let (buffer, indices) = self
                    .access(buffer, indices)?
                    .unwrap_or_else(|| (buffer.clone(), indices.clone()));
                Stmt::BufferStore {
                    buffer,
                    indices,
                    value,
                    stage: stage.clone(),
                }
            }
            Stmt::IfThenElse {
                cond,
                then_case,
                else_case,
            } => Stmt::IfThenElse {
                cond: self.value(cond)?,
                then_case: Box::new(self.stmt(then_case)?),
                else_case: match else_case {
                    Some(e) => Some(Box::new(self.stmt(e)?)),
                    None => None,
                },
            },
            Stmt::Seq(v) => Stmt::Seq(v.iter().map(|c| self.stmt(c)).collect::<Result<_, _>>()?),
            Stmt::Evaluate(v) => Stmt::Evaluate(self.value(v)?),
        })
    }
}
