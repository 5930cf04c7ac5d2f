//! Index and range passes through a stage's splits and fuses, for the
//! primitives that rebuild a stage's definition from its loops
//! (`rfactor`, `cache_write` of a scheduled stage): TVM's
//! `PassDownDomain`, `PassUpIndex`, `PassDownIndex` and `MakeBoundCheck`
//! over the axes given.

use crate::iter_var::IterVar;
use crate::schedule::{Relation, SplitBy, Stage};
use crate::simp::simp;
use arith::{Analyzer, Expr, Range, Var};
use std::collections::HashMap;

/// Adds to `dom` the ranges of the loops that splits and fuses made from
/// axes already in `dom` (every such loop starts at 0; a split's outer
/// loop covers the last, partial part).
pub(crate) fn pass_down_domain(st: &Stage, dom: &mut HashMap<IterVar, Range>, an: &Analyzer) {
    for r in st.relations() {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                by,
            } => {
                let Some(p) = dom.get(parent) else {
                    continue;
                };
                let (no, ni) = match by {
                    SplitBy::Factor(f) => (Expr::ceil_div(p.extent.clone(), f.clone()), f.clone()),
                    SplitBy::NParts(n) => (n.clone(), Expr::ceil_div(p.extent.clone(), n.clone())),
                };
                dom.insert(outer.clone(), Range::from_extent(simp(an, no)));
                dom.insert(inner.clone(), Range::from_extent(simp(an, ni)));
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                let (Some(o), Some(i)) = (dom.get(outer), dom.get(inner)) else {
                    continue;
                };
                let e = simp(an, Expr::mul(o.extent.clone(), i.extent.clone()));
                dom.insert(fused.clone(), Range::from_extent(e));
            }
            Relation::Singleton { iter } => {
                dom.insert(iter.clone(), Range::from_extent(Expr::int(1)));
            }
        }
    }
}

/// Adds to `value` the values of the axes that were split or fused, from
/// the values of the loops that replaced them.
pub(crate) fn pass_up_index(
    st: &Stage,
    dom: &HashMap<IterVar, Range>,
    value: &mut HashMap<IterVar, Expr>,
) {
    for r in st.relations().iter().rev() {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => {
                let (Some(o), Some(i)) = (value.get(outer), value.get(inner)) else {
                    continue;
                };
                let factor = dom[inner].extent.clone();
                let mut v = Expr::add(Expr::mul(o.clone(), factor), i.clone());
                if let Some(p) = dom.get(parent) {
                    if !p.min.is_int(0) {
                        v = Expr::add(v, p.min.clone());
                    }
                }
                value.insert(parent.clone(), v);
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                let Some(f) = value.get(fused).cloned() else {
                    continue;
                };
                let n = dom[inner].extent.clone();
                let shifted = |v: Expr, iv: &IterVar| match dom.get(iv) {
                    Some(d) if !d.min.is_int(0) => Expr::add(v, d.min.clone()),
                    _ => v,
                };
                value.insert(
                    outer.clone(),
                    shifted(Expr::floor_div(f.clone(), n.clone()), outer),
                );
                value.insert(inner.clone(), shifted(Expr::floor_mod(f, n), inner));
            }
            // No axis is made from it.
            Relation::Singleton { .. } => {}
        }
    }
}

/// Adds to `value` the values of the loops that splits and fuses made,
/// from the values of what they split or fuse (axes starting at 0).
pub(crate) fn pass_down_index(
    st: &Stage,
    dom: &HashMap<IterVar, Range>,
    value: &mut HashMap<IterVar, Expr>,
) {
    for r in st.relations() {
        match r {
            Relation::Split {
                parent,
                outer,
                inner,
                ..
            } => {
                let Some(p) = value.get(parent).cloned() else {
                    continue;
                };
                let factor = dom[inner].extent.clone();
                value.insert(outer.clone(), Expr::floor_div(p.clone(), factor.clone()));
                value.insert(inner.clone(), Expr::floor_mod(p, factor));
            }
            Relation::Fuse {
                outer,
                inner,
                fused,
            } => {
                let (Some(o), Some(i)) = (value.get(outer), value.get(inner)) else {
                    continue;
                };
                let factor = dom[inner].extent.clone();
                let v = Expr::add(Expr::mul(o.clone(), factor), i.clone());
                value.insert(fused.clone(), v);
            }
            Relation::Singleton { iter } => {
                value.insert(iter.clone(), Expr::int(0));
            }
        }
    }
}

/// For each of `roots`, its value (simplified under `leaf_an`, where the
/// loops are bound to their ranges) and the conditions that keep it
/// within its declared domain where that cannot be proven (a split that
/// does not divide): TVM's `MakeBoundCheck`.
pub(crate) fn bound_conditions(
    roots: &[IterVar],
    value: &HashMap<IterVar, Expr>,
    leaf_an: &Analyzer,
) -> (Vec<Expr>, HashMap<Var, Expr>) {
    let mut conditions = Vec::new();
    let mut subst = HashMap::new();
    for iv in roots {
        let (Some(d), Some(v)) = (iv.dom(), value.get(iv)) else {
            continue;
        };
        let v = simp(leaf_an, v.clone());
        let offset = simp(leaf_an, Expr::sub(v.clone(), d.min.clone()));
        if !leaf_an.can_prove(&Expr::ge(offset.clone(), Expr::int(0))) {
            conditions.push(Expr::ge(offset.clone(), Expr::int(0)));
        }
        if !leaf_an.can_prove(&Expr::lt(offset.clone(), d.extent.clone())) {
            conditions.push(Expr::lt(offset, d.extent.clone()));
        }
        subst.insert(iv.var().clone(), v);
    }
    (conditions, subst)
}
