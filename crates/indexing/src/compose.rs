//! Composition of maps: XLA's `ComposeIndexingMaps`.

use crate::build;
use crate::map::{IndexingMap, State};
use crate::variable::Variable;
use arith::{ArithError, ErrorKind, Expr, Result, Var};
use std::collections::HashMap;

/// The map `producer ∘ consumer`: the results of `consumer` feed the
/// dimensions of `producer` (XLA's `ComposeIndexingMaps(consumer,
/// producer)`, also written `consumer * producer`).
///
/// The composed map has the consumer's dimensions; its range variables are
/// the producer's followed by the consumer's, and likewise its runtime
/// variables. Its constraints are the consumer's, the producer's (with the
/// consumer's results substituted), and `consumer_result_j in
/// producer_dim_range_j` for every producer dimension `j` (a constraint on a
/// single variable narrows its range). The result is not simplified; call
/// [`IndexingMap::simplify`].
///
/// ```
/// use indexing::{compose, IndexingMap};
/// let consumer = IndexingMap::parse("(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7]").unwrap();
/// let producer = IndexingMap::parse(
///     "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 4], d1 in [0, 5], s0 in [0, 6], s1 in [0, 1]",
/// ).unwrap();
/// let composed = compose(&consumer, &producer).unwrap();
/// assert_eq!(
///     composed.to_string(),
///     "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 4], s0 in [0, 6], s1 in [0, 1], s2 in [0, 5]"
/// );
/// ```
pub fn compose(consumer: &IndexingMap, producer: &IndexingMap) -> Result<IndexingMap> {
    if consumer.is_undefined() || producer.is_undefined() {
        return Ok(IndexingMap::undefined());
    }
    if consumer.num_results() != producer.num_dims() {
        return Err(ArithError::new(
            ErrorKind::Invalid,
            format!(
                "cannot compose: the consumer has {} results but the producer has {} dimensions; they must match",
                consumer.num_results(),
                producer.num_dims()
            ),
        ));
    }
    if consumer.is_known_empty() || producer.is_known_empty() {
        return Ok(IndexingMap::known_empty(
            consumer.num_dims(),
            producer.num_results(),
        ));
    }
    // Fresh identities for the producer's variables, so that composing a map
    // with itself keeps the two sides apart.
    let p_symbols: Vec<Variable> = producer.symbols.iter().map(Variable::renewed).collect();
    let p_rt: Vec<Variable> = producer.rt_vars.iter().map(Variable::renewed).collect();
    let mut subst: HashMap<Var, Expr> = HashMap::new();
    for (d, r) in producer.dims.iter().zip(&consumer.results) {
        subst.insert(d.var().clone(), r.clone());
    }
    for (old, new) in producer
        .symbols
        .iter()
        .zip(&p_symbols)
        .chain(producer.rt_vars.iter().zip(&p_rt))
    {
        subst.insert(old.var().clone(), new.expr());
    }
    let apply = |e: &Expr| build::substitute(e, &mut |v| subst.get(v).cloned());
    let mut map = IndexingMap {
        dims: consumer.dims.clone(),
        symbols: p_symbols
            .into_iter()
            .chain(consumer.symbols.iter().cloned())
            .collect(),
        rt_vars: p_rt
            .into_iter()
            .chain(consumer.rt_vars.iter().cloned())
            .collect(),
        results: producer.results.iter().map(apply).collect(),
        constraints: Vec::new(),
        state: State::Defined,
    };
    for c in &consumer.constraints {
        map.add_constraint(c.expr.clone(), c.interval)?;
    }
    for c in &producer.constraints {
        map.add_constraint(apply(&c.expr), c.interval)?;
    }
    for (d, r) in producer.dims.iter().zip(&consumer.results) {
        map.add_constraint(r.clone(), d.bounds())?;
    }
    Ok(map)
}
