//! Folding runtime variables whose values are known without running the
//! program: a scalar `constant` and an `iota` (as XLA's `OptimizeRTVar`).
//!
//! A constant offset inside the variable's valid range replaces the
//! variable. An iota's value at the index the runtime map reads is that
//! index along the iota dimension, wrapped as its element type holds it
//! (an `s8` iota reads -106 at 150, a `u8` one 0 at 256); since dynamic
//! offsets and gather starts are clamped to the valid range, the value is
//! clamped too (XLA leaves the clamp out, which reads out of bounds where
//! the iota exceeds the range). Sources that are not integers stay
//! runtime variables.

use crate::element_type::{ElementKind, ElementType};
use crate::module::Computation;
use crate::opcode::Opcode;
use crate::operand_indexing::{OperandIndexing, OperandMap};
use arith::Expr;
use indexing::{build, IndexingMap};

/// Folds what can be folded in every map of `indexing`.
pub(crate) fn fold_runtime_vars(comp: &Computation, indexing: OperandIndexing) -> OperandIndexing {
    match indexing {
        OperandIndexing::Maps(maps) => {
            OperandIndexing::Maps(maps.into_iter().map(|m| fold_map(comp, m)).collect())
        }
        other => other,
    }
}

fn fold_map(comp: &Computation, mut m: OperandMap) -> OperandMap {
    let mut i = 0;
    while i < m.runtime.len() {
        match known_value(comp, &m, i) {
            Some(value) => match substitute_rt(&m.map, i, &value) {
                Some(map) => {
                    m.map = map;
                    m.runtime.remove(i);
                }
                None => i += 1,
            },
            None => i += 1,
        }
    }
    m
}

/// The value of runtime variable `i` as an expression over the map's
/// dimensions, when its source is a constant or an iota.
fn known_value(comp: &Computation, m: &OperandMap, i: usize) -> Option<Expr> {
    let rt = &m.runtime[i];
    let source = comp.instructions.get(rt.source_instr?)?;
    let bounds = m.map.rt_vars().get(i)?.bounds();
    let ty = source.shape.as_array()?.element()?;
    match source.opcode {
        Opcode::Constant => {
            let v = ty.wrap(source.literal.as_deref()?.trim().parse().ok()?)?;
            // Out-of-range constants are clamped at run time; XLA keeps them as variables.
            bounds.contains(v).then(|| Expr::int(v))
        }
        Opcode::Iota => {
            let dim = source.attrs.int("iota_dimension")? as usize;
            let rt_map = &rt.map;
            if !rt_map.symbols().is_empty()
                || !rt_map.rt_vars().is_empty()
                || rt_map.num_dims() != m.map.num_dims()
            {
                return None;
            }
            let index = rt_map.results().get(dim)?;
            // Re-express the runtime map's dimensions as the main map's.
            let value = build::substitute(index, &mut |v| {
                rt_map
                    .dims()
                    .iter()
                    .position(|d| d.var() == v)
                    .map(|k| m.map.dim_expr(k))
            });
            let range = m.map.expression_range(&value);
            let value = wrapped(value, range, ty)?;
            let range = m.map.expression_range(&value);
            let mut clamped = value;
            if range.lower < bounds.lower {
                clamped = Expr::max(clamped, Expr::int(bounds.lower));
            }
            if range.upper > bounds.upper {
                clamped = Expr::min(clamped, Expr::int(bounds.upper));
            }
            Some(clamped)
        }
        _ => None,
    }
}

/// `value` (an index over `range`) as element type `ty` holds it: itself
/// when every value fits, else its low bits, `value mod 2^bits`, shifted
/// by half the modulus for a signed type (two's complement).
fn wrapped(value: Expr, range: indexing::Interval, ty: ElementType) -> Option<Expr> {
    if ty.fits(i128::from(range.lower)) && ty.fits(i128::from(range.upper)) {
        return Some(value);
    }
    let (lo, _) = ty.integer_range()?;
    if ty.kind == ElementKind::Pred {
        return None;
    }
    let modulus = i64::try_from(1i128 << ty.bits).ok()?;
    let lo = i64::try_from(lo).ok()?;
    let shifted = Expr::sub(value, Expr::int(lo));
    Some(Expr::add(
        Expr::floor_mod(shifted, Expr::int(modulus)),
        Expr::int(lo),
    ))
}

/// `map` with runtime variable `i` replaced by `value` and removed.
fn substitute_rt(map: &IndexingMap, i: usize, value: &Expr) -> Option<IndexingMap> {
    let target = map.rt_vars().get(i)?.var().clone();
    let mut f = |v: &arith::Var| (*v == target).then(|| value.clone());
    let results = map
        .results()
        .iter()
        .map(|r| build::substitute(r, &mut f))
        .collect();
    let mut rt_vars = map.rt_vars().to_vec();
    rt_vars.remove(i);
    let mut out = IndexingMap::new(
        map.dims().to_vec(),
        map.symbols().to_vec(),
        rt_vars,
        results,
    )
    .ok()?;
    for c in map.constraints() {
        out.add_constraint(build::substitute(&c.expr, &mut f), c.interval)
            .ok()?;
    }
    out.simplify();
    Some(out)
}
