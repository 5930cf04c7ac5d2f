//! Layout transforms in schedules (seed 001): `s[B].transform_layout(f)`.
//!
//! On a computed tensor the map is rebuilt from the stage's own loop
//! primitives (the RFC's option 3): each source of digits is a fusion of
//! axes, each digit a split of it, and the transformed axes come out in the
//! map's order, so the stage iterates in the transformed space and the
//! returned axes take `split`, `reorder`, `fuse` and `compute_at` like any
//! others. Bound inference and lowering need nothing new; after lowering,
//! [`tir::apply_layout_transforms`] moves every access of a transformed
//! buffer to its physical buffer.

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::operation::{Operation, Tensor};
use crate::schedule::Schedule;
use arith::{Expr, Range, Var};
use layout::{AxisPlan, IndexMap, Layout};
use std::collections::HashMap;
use tir::{Buffer, PrimFunc};

fn err(op: &Operation, e: impl std::fmt::Display) -> TeError {
    TeError::schedule(format!("transform_layout of `{}`: {e}", op.name()))
}

impl Schedule {
    /// `s[t].transform_layout(map)`: stores `t` in the layout `map` gives
    /// (with its axis separators) and returns the transformed axes.
    ///
    /// For a placeholder only the storage changes; the axes returned are
    /// fresh ones over the transformed shape. A computed tensor's stage is
    /// rebuilt to iterate in the transformed space; this needs a map
    /// without padding (every transformed index reached), applied before
    /// any other loop primitive of the stage.
    ///
    /// ```
    /// use tir::DataType;
    /// let a = te::placeholder([8, 16], "A", DataType::Float32).unwrap();
    /// let b = te::compute_named([8, 16], &["i", "j"], |x| a.at([&x[0], &x[1]]) + 1.0, "B").unwrap();
    /// let mut s = te::create_schedule(&[b.clone()]);
    /// let map = layout::IndexMap::parse("lambda i, j: [j // 4, i, j % 4]").unwrap();
    /// let axes = s.transform_layout(&b, map).unwrap();
    /// let names: Vec<&str> = axes.iter().map(|iv| iv.name()).collect();
    /// assert_eq!(names, ["j.outer", "i", "j.inner"]);
    /// let f = te::lower(&s, &[a, b]).unwrap();
    /// assert!(f.to_string().contains("B[(((j.outer*32) + (i*4)) + j.inner)]"));
    /// ```
    pub fn transform_layout(
        &mut self,
        t: &impl AsRef<Operation>,
        map: IndexMap,
    ) -> Result<Vec<IterVar>> {
        let op = t.as_ref().clone();
        let i = self.stage_index(&op)?;
        let shape = op.shape().to_vec();
        let l = Layout::new(shape.clone(), Some(map.clone())).map_err(|e| err(&op, e.message))?;
        if self.stages()[i].is_placeholder() {
            self.set_layout(&op, map);
            return Ok(l
                .transformed_shape()
                .iter()
                .enumerate()
                .map(|(k, e)| {
                    IterVar::new(
                        format!("{}.ax{k}", op.name()),
                        Some(Range::from_extent(e.clone())),
                        IterKind::DataPar,
                    )
                })
                .collect());
        }
        if let Some(p) = l.padding_predicate() {
            return Err(err(
                &op,
                format!("the map pads the tensor (transformed indices where `{p}` hold are not reached); a computed tensor needs a map without padding"),
            ));
        }
        let st = &self.stages()[i];
        if !st.relations().is_empty() || st.leaf_iter_vars() != op.root_iter_vars().as_slice() {
            return Err(err(
                &op,
                "call transform_layout before split, fuse, reorder or tile on this stage",
            ));
        }
        let plan = map.split_plan(&shape).map_err(|e| err(&op, e.message))?;
        let axes = op.axis().to_vec();
        // One loop per source: its indices fused, outermost first.
        let mut sources: Vec<IterVar> = Vec::with_capacity(plan.sources.len());
        for src in &plan.sources {
            if !src.offset.is_int(0) {
                return Err(err(
                    &op,
                    format!("an offset ({}) pads the tensor", src.offset),
                ));
            }
            let ivs: Vec<IterVar> = src.indices.iter().map(|&k| axes[k].clone()).collect();
            if ivs.len() > 1 {
                // Make them adjacent, in order, where the first one is.
                let leaves = self.stages()[i].leaf_iter_vars().to_vec();
                let first = leaves.iter().position(|l| ivs.contains(l)).unwrap_or(0);
                let mut order: Vec<IterVar> = leaves
                    .iter()
                    .filter(|l| !ivs.contains(l))
                    .cloned()
                    .collect();
                for (k, iv) in ivs.iter().enumerate() {
                    order.insert(first + k, iv.clone());
                }
                self.reorder(&op, &order)?;
            }
            let mut acc = ivs[0].clone();
            for iv in &ivs[1..] {
                acc = self.fuse(&op, &acc, iv)?;
            }
            sources.push(acc);
        }
        // Each digit a split of its source, top digits first.
        let mut out: Vec<Option<IterVar>> = vec![None; plan.axes.len()];
        for (s_id, src) in sources.iter().enumerate() {
            let mut digits: Vec<(usize, i64)> = plan
                .axes
                .iter()
                .enumerate()
                .filter_map(|(k, a)| match a {
                    AxisPlan::Digits { source, lower, .. } if *source == s_id => Some((k, *lower)),
                    _ => None,
                })
                .collect();
            digits.sort_by_key(|d| std::cmp::Reverse(d.1));
            let mut rest = src.clone();
            for (n, &(k, lower)) in digits.iter().enumerate() {
                if n + 1 == digits.len() {
                    out[k] = Some(rest.clone());
                } else {
                    let (outer, inner) = self.split(&op, &rest, Expr::int(lower))?;
                    out[k] = Some(outer);
                    rest = inner;
                }
            }
        }
        let order: Vec<IterVar> = out.into_iter().collect::<Option<_>>().ok_or_else(|| {
            err(
                &op,
                "a constant transformed index has no loop; use a map without constants",
            )
        })?;
        self.reorder(&op, &order)?;
        self.set_layout(&op, map);
        Ok(order)
    }
}

/// Applies the schedule's layout transforms to a lowered function whose
/// stage `i` has buffer `buffers[i]`.
pub(crate) fn apply(s: &Schedule, buffers: &[Option<Buffer>], func: PrimFunc) -> Result<PrimFunc> {
    let transforms: Vec<(Buffer, IndexMap)> = s
        .stages()
        .iter()
        .zip(buffers)
        .filter_map(|(st, b)| Some((b.clone()?, s.layout(st.op())?.clone())))
        .collect();
    if transforms.is_empty() {
        return Ok(func);
    }
    tir::apply_layout_transforms(&func, &transforms)
        .map(|(f, _)| f)
        .map_err(|e| TeError::lowering(e.to_string()))
}

/// The layout of tensor `t` at the concrete logical `shape`, if it has one,
/// with the size variables of its map (`i * n + j`) given their `sizes`:
/// the map must agree with the shape it is built for.
pub(crate) fn concrete(
    s: &Schedule,
    t: &Tensor,
    shape: &[i64],
    sizes: &HashMap<Var, i64>,
) -> Result<Option<Layout>> {
    let Some(map) = s.layout(t.op()) else {
        return Ok(None);
    };
    let dims = shape.iter().map(|&d| Expr::int(d)).collect();
    let finals = map
        .final_indices()
        .iter()
        .map(|e| e.substitute(&mut |v| sizes.get(v).map(|&x| Expr::int(x))))
        .collect();
    let map = IndexMap::new(
        map.initial_indices().to_vec(),
        finals,
        map.axis_separators().to_vec(),
    )
    .map_err(|e| TeError::lowering(format!("layout of `{}`: {}", t.name(), e.message)))?;
    Layout::new(dims, Some(map))
        .map(Some)
        .map_err(|e| TeError::lowering(format!("layout of `{}`: {}", t.name(), e.message)))
}

/// Where the logical element `idx` lives in a tensor of the given layout.
pub(crate) fn position(l: Option<&Layout>, idx: &[i64]) -> Option<Vec<usize>> {
    match l {
        None => Some(idx.iter().map(|&i| i as usize).collect()),
        Some(l) => l
            .physical_point(idx)
            .ok()
            .map(|p| p.into_iter().map(|v| v as usize).collect()),
    }
}

/// The input data of a tensor in its physical layout: each logical element
/// moved to its physical place; padding holds NaN, so a read of it shows.
pub(crate) fn physical_data(l: Option<&Layout>, data: tir::Tensor) -> Result<tir::Tensor> {
    let Some(l) = l else {
        return Ok(data);
    };
    let shape: Vec<usize> = l
        .physical_shape()
        .iter()
        .map(|e| e.as_int().map(|v| v.max(0) as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| TeError::lowering("a physical shape is not constant"))?;
    let total = shape.iter().product();
    let mut out = tir::Tensor::new(shape, vec![f64::NAN; total])
        .map_err(|e| TeError::lowering(e.to_string()))?;
    let logical: Vec<i64> = data.shape().iter().map(|&d| d as i64).collect();
    let mut failed = false;
    layout::for_each_point(&logical, |x| {
        let at = position(Some(l), x);
        let from: Vec<usize> = x.iter().map(|&v| v as usize).collect();
        match (at.and_then(|p| out.offset(&p)), data.offset(&from)) {
            (Some(o), Some(f)) => out.data_mut()[o] = data.data()[f],
            _ => failed = true,
        }
    });
    if failed {
        return Err(TeError::lowering("an input element has no physical place"));
    }
    Ok(out)
}
