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
        if let Some(prev) = self.layout(&op) {
            if !self.stages()[i].is_placeholder() {
                return Err(err(
                    &op,
                    "a computed tensor takes one transform_layout (its loops are rebuilt from \
                     it): give the composition of the maps as one map",
                ));
            }
            let composed = compose(&op, prev, &map, &shape)?;
            let l = Layout::new(shape.clone(), Some(composed.clone()))
                .map_err(|e| err(&op, e.message))?;
            self.set_layout(&op, composed, map);
            return Ok(placeholder_axes(&op, &l));
        }
        let l = Layout::new(shape.clone(), Some(map.clone())).map_err(|e| err(&op, e.message))?;
        if self.stages()[i].is_placeholder() {
            self.set_layout(&op, map.clone(), map);
            return Ok(placeholder_axes(&op, &l));
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
        self.set_layout(&op, map.clone(), map);
        Ok(order)
    }
}

/// Fresh axes over the transformed shape of a placeholder's layout.
fn placeholder_axes(op: &Operation, l: &Layout) -> Vec<IterVar> {
    l.transformed_shape()
        .iter()
        .enumerate()
        .map(|(k, e)| {
            IterVar::new(
                format!("{}.ax{k}", op.name()),
                Some(Range::from_extent(e.clone())),
                IterKind::DataPar,
            )
        })
        .collect()
}

/// `next` applied after `prev` (TVM applies the transforms of a buffer in
/// the order given): `next`'s indices with its parameters replaced by
/// `prev`'s results, simplified, and `next`'s axis separators. `next` must
/// take as many indices as `prev` gives, and the composition must give the
/// shape the two give one after the other over `shape` (a first map that
/// pads, undone by the second, would not).
fn compose(op: &Operation, prev: &IndexMap, next: &IndexMap, shape: &[Expr]) -> Result<IndexMap> {
    let first = Layout::new(shape.to_vec(), Some(prev.without_separators()))
        .map_err(|e| err(op, e.message))?;
    let chained = Layout::new(first.transformed_shape().to_vec(), Some(next.clone()))
        .map_err(|e| err(op, format!("the second map: {}", e.message)))?;
    let values: HashMap<&Var, &Expr> = next
        .initial_indices()
        .iter()
        .zip(prev.final_indices())
        .collect();
    let an = arith::Analyzer::new();
    let finals = next
        .final_indices()
        .iter()
        .map(|e| {
            let e = e.substitute(&mut |v| values.get(v).map(|x| (*x).clone()));
            an.simplify(&e).unwrap_or(e)
        })
        .collect();
    let composed = IndexMap::new(
        prev.initial_indices().to_vec(),
        finals,
        next.axis_separators().to_vec(),
    )
    .map_err(|e| err(op, e.message))?;
    let direct = Layout::new(shape.to_vec(), Some(composed.clone())).map_err(|e| {
        err(
            op,
            format!(
                "the two maps compose to `{composed}`, which is refused: {}; give one map",
                e.message
            ),
        )
    })?;
    let same = direct.transformed_shape().len() == chained.transformed_shape().len()
        && direct
            .transformed_shape()
            .iter()
            .zip(chained.transformed_shape())
            .all(|(a, b)| {
                an.simplify(&Expr::sub(a.clone(), b.clone()))
                    .is_ok_and(|d| d.is_int(0))
            });
    if !same {
        return Err(err(
            op,
            format!(
                "the two maps give the shape {:?} one after the other but {:?} composed (the first \
                 pads, the second does not keep it): give one map",
                chained.transformed_shape().iter().map(ToString::to_string).collect::<Vec<_>>(),
                direct.transformed_shape().iter().map(ToString::to_string).collect::<Vec<_>>()
            ),
        ));
    }
    Ok(composed)
}

/// Applies the schedule's layout transforms to a lowered function whose
/// stage `i` has buffer `buffers[i]`. A stage with `local[i]` (the starts
/// of its per-iteration region) is already indexed in the transformed
/// space; only its axis separators are applied.
pub(crate) fn apply(
    s: &Schedule,
    buffers: &[Option<Buffer>],
    local: &[Option<Vec<Expr>>],
    func: PrimFunc,
) -> Result<PrimFunc> {
    let mut transforms: Vec<(Buffer, IndexMap)> = Vec::new();
    for ((st, b), local) in s.stages().iter().zip(buffers).zip(local) {
        let (Some(b), Some(map)) = (b, s.layout(st.op())) else {
            continue;
        };
        let map = if local.is_some() {
            // The identity over the transformed axes, with the separators.
            let vars: Vec<Var> = (0..map.final_indices().len())
                .map(|k| Var::new(format!("t{k}")))
                .collect();
            let finals = vars.iter().map(Var::expr).collect();
            IndexMap::new(vars, finals, map.axis_separators().to_vec())
                .map_err(|e| TeError::lowering(e.message))?
        } else {
            map.clone()
        };
        transforms.push((b.clone(), map));
    }
    if transforms.is_empty() {
        return Ok(func);
    }
    tir::apply_layout_transforms(&func, &transforms)
        .map(|(f, _)| f)
        .map_err(|e| TeError::lowering(e.to_string()))
}

/// Where a run stores the elements of a transformed tensor, found from the
/// maps as the user wrote them: each logical point goes through every map in
/// order, each evaluated with plain arithmetic, and the transformed points
/// are flattened row-major within each group of axes between separators.
/// The transformed extents are each map's own shape of the previous one
/// (`IndexMap::map_shape`, as TVM's buffer shapes are). Neither the
/// composed map nor [`Layout`]'s flattening is used, so a run checks the
/// lowering's layout against an independent placement.
pub(crate) struct RunLayout {
    maps: Vec<IndexMap>,
    sizes: Vec<(Var, i64)>,
    /// The transformed extents.
    extents: Vec<i64>,
    /// Axis separators of the last map.
    separators: Vec<usize>,
}

impl RunLayout {
    /// The transformed point of the logical point `idx`.
    pub(crate) fn transformed(&self, idx: &[i64]) -> Result<Vec<i64>> {
        let mut point = idx.to_vec();
        for map in &self.maps {
            let mut env: Vec<(&Var, i64)> = map
                .initial_indices()
                .iter()
                .zip(point.iter().copied())
                .collect();
            env.extend(self.sizes.iter().map(|(v, x)| (v, *x)));
            point = map
                .final_indices()
                .iter()
                .map(|e| e.eval_with(&env))
                .collect::<arith::Result<_>>()
                .map_err(|e| {
                    TeError::lowering(format!("evaluating a layout map at {idx:?}: {e}"))
                })?;
        }
        Ok(point)
    }

    /// The transformed extents.
    pub(crate) fn extents(&self) -> &[i64] {
        &self.extents
    }

    /// The axes of each physical axis (between separators).
    pub(crate) fn groups(&self) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        for s in self.separators.iter().copied().chain([self.extents.len()]) {
            out.push(start..s);
            start = s;
        }
        out
    }

    /// The physical shape: the product of the extents of each group.
    pub(crate) fn physical_shape(&self) -> Vec<usize> {
        self.groups()
            .into_iter()
            .map(|g| self.extents[g].iter().map(|&e| e as usize).product())
            .collect()
    }

    /// The physical point of the logical point `idx`.
    fn physical(&self, idx: &[i64]) -> Option<Vec<usize>> {
        let t = self.transformed(idx).ok()?;
        Some(
            self.groups()
                .into_iter()
                .map(|g| {
                    g.fold(0usize, |acc, k| {
                        acc * self.extents[k] as usize + t[k] as usize
                    })
                })
                .collect(),
        )
    }
}

/// The placement of tensor `t` in a run at the concrete logical `shape`
/// and `sizes`, if it has a layout (see [`RunLayout`]).
pub(crate) fn concrete(
    s: &Schedule,
    t: &Tensor,
    shape: &[i64],
    sizes: &HashMap<Var, i64>,
) -> Result<Option<RunLayout>> {
    let maps = s.layout_maps(t.op());
    let Some(last) = maps.last() else {
        return Ok(None);
    };
    // The maps at these sizes (a map naming a size, `i * n + j`, is read
    // at its value).
    let maps = maps
        .iter()
        .map(|m| {
            let finals = m
                .final_indices()
                .iter()
                .map(|e| e.substitute(&mut |v| sizes.get(v).map(|&x| Expr::int(x))))
                .collect();
            IndexMap::new(
                m.initial_indices().to_vec(),
                finals,
                m.axis_separators().to_vec(),
            )
            .map_err(|e| TeError::lowering(format!("layout of `{}`: {}", t.name(), e.message)))
        })
        .collect::<Result<Vec<IndexMap>>>()?;
    let mut extents: Vec<Expr> = shape.iter().map(|&d| Expr::int(d)).collect();
    for map in &maps {
        extents = map
            .map_shape(&extents)
            .map_err(|e| TeError::lowering(format!("layout of `{}`: {}", t.name(), e.message)))?;
    }
    let extents = extents
        .iter()
        .map(|e| {
            let e = e.substitute(&mut |v| sizes.get(v).map(|&x| Expr::int(x)));
            e.eval_with(&[]).map_err(|_| {
                TeError::lowering(format!(
                    "layout of `{}`: the extent `{e}` is not constant",
                    t.name()
                ))
            })
        })
        .collect::<Result<Vec<i64>>>()?;
    let l = RunLayout {
        maps,
        sizes: sizes.iter().map(|(v, x)| (v.clone(), *x)).collect(),
        extents,
        separators: last.axis_separators().to_vec(),
    };
    // Every element must land inside the transformed shape.
    let mut failed: Option<TeError> = None;
    layout::for_each_point(shape, |x| {
        if failed.is_some() {
            return;
        }
        match l.transformed(x) {
            Ok(p) if p.iter().zip(&l.extents).all(|(&v, &e)| (0..e).contains(&v)) => {}
            Ok(p) => {
                failed = Some(TeError::lowering(format!(
                    "layout of `{}`: the element {x:?} maps to {p:?}, outside the transformed shape {:?}",
                    t.name(),
                    l.extents
                )))
            }
            Err(e) => failed = Some(e),
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(Some(l)),
    }
}

/// Where the logical element `idx` lives in a tensor of the given layout.
pub(crate) fn position(l: Option<&RunLayout>, idx: &[i64]) -> Option<Vec<usize>> {
    match l {
        None => Some(idx.iter().map(|&i| i as usize).collect()),
        Some(l) => l.physical(idx),
    }
}

/// The input data of a tensor in its physical layout: each logical element
/// moved to its physical place; padding holds NaN, so a read of it shows.
pub(crate) fn physical_data(l: Option<&RunLayout>, data: tir::Tensor) -> Result<tir::Tensor> {
    let Some(l) = l else {
        return Ok(data);
    };
    let shape = l.physical_shape();
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
