//! `while` and `conditional`: maps through the computations they call.
//!
//! A `while` runs its body an unknown number of times (zero included), so
//! its maps are a fixpoint: the maps from the state after `n` iterations
//! to the initial state are the body's maps composed `n` times, and the
//! loop's are their union over every `n`. Values a body reads at run time
//! (a dynamic-slice offset) change from trip to trip: they become ranges.
//! The union is built round by round; the maps to a state element still
//! growing after [`WIDEN_AFTER_ROUNDS`] rounds (or more than [`MAX_MAPS`]
//! of them) are widened to every element of it, which no further trip can
//! grow: the result is sound for any trip count. A map is exact when it
//! holds after every number of iterations (the identity of a value the
//! body passes through unchanged, or an accumulator's own previous value);
//! every other map is marked conservative. The condition reads the state
//! before every iteration: its reads count as reads of every output
//! element, exact for what it reads of the initial state itself.
//!
//! A `conditional` runs one branch, chosen at run time by its first
//! operand: each branch's maps hold only when it is taken. They carry the
//! selector as a runtime variable whose range is the branch's value (the
//! index, an out-of-range index running the last branch; the predicate,
//! 1 for the true branch), and are conservative unless the selector is a
//! constant, when only the branch taken has maps and they are exact.

use super::builder::MapBuilder;
use super::runtime_source_name;
use crate::error::AnalysisError;
use crate::fusion::{
    compose_operand, input_to_output_through, map_key, output_to_input_groups, parameter_indexing,
    runtime_sources_in_caller,
};
use crate::module::{CompId, InstrId, Instruction, Module};
use crate::operand_indexing::{OperandIndexing, OperandMap, RuntimeVar};
use crate::ops::Unsupported;
use crate::shape::Shape;
use indexing::{IndexingMap, Interval, Variable};
use std::collections::HashSet;

/// Rounds of the fixpoint before maps still growing are widened.
pub(crate) const WIDEN_AFTER_ROUNDS: usize = 4;

/// The most maps kept to one state element before widening.
pub(crate) const MAX_MAPS: usize = 8;

/// Why a map through a loop over-approximates.
const TRIP_COUNT: &str =
    "the loop's trip count is unknown: the union of the maps over every number of iterations";
/// Why a widened map through a loop over-approximates.
const WIDENED_LOOP: &str =
    "the maps through the loop kept growing: widened to every element of the carried value";
/// Why a value read at run time inside a loop becomes a range.
const LOOP_RUNTIME: &str =
    "a value read at run time inside the loop changes from one iteration to the next: it ranges over every value it can take";
/// Why a branch's maps over-approximate.
const BRANCH_TAKEN: &str =
    "the branch taken is chosen at run time: this branch's maps hold when the selector has the runtime variable's value";

/// The array shapes of a (possibly tuple-shaped) loop state, or why not.
fn elements<'s>(inst: &Instruction, shape: &'s Shape) -> Result<Vec<&'s [i64]>, Unsupported> {
    match shape {
        Shape::Array(a) => Ok(vec![&a.dims]),
        Shape::Tuple(t) => t
            .iter()
            .map(|s| match s {
                Shape::Array(a) => Ok(&a.dims[..]),
                Shape::Tuple(_) => Err(AnalysisError::unsupported(format!(
                    "`{}` carries a nested tuple; nested tuple elements are not supported",
                    inst.name
                ))),
            })
            .collect(),
    }
}

/// The computation named by attribute `attr` of `inst`.
fn called(module: &Module, inst: &Instruction, attr: &str) -> Result<CompId, Unsupported> {
    inst.attrs
        .computations(attr)
        .and_then(|names| names.first())
        .and_then(|n| module.computation(n))
        .ok_or_else(|| {
            AnalysisError::invalid(format!("`{}` has no `{attr}=` computation", inst.name))
        })
}

/// The maps of `indexing` split by tuple element (`count` elements), with
/// runtime variables turned into ranges (conservative).
fn by_element(
    indexing: OperandIndexing,
    count: usize,
) -> Result<Vec<Vec<OperandMap>>, Unsupported> {
    let maps = match indexing {
        OperandIndexing::Maps(m) => m,
        OperandIndexing::Unsupported(reason) => return Err(reason),
    };
    let mut out = vec![Vec::new(); count];
    for mut m in maps {
        let e = m.element.take().unwrap_or(0);
        if !m.runtime.is_empty() {
            m = runtime_as_range(m)?;
        }
        if let Some(slot) = out.get_mut(e) {
            slot.push(m);
        }
    }
    Ok(out)
}

/// `m` with every runtime variable a range variable over its bounds.
fn runtime_as_range(m: OperandMap) -> Result<OperandMap, Unsupported> {
    if m.map.is_known_empty() {
        return Ok(OperandMap {
            runtime: Vec::new(),
            ..m
        });
    }
    let mut symbols = m.map.symbols().to_vec();
    symbols.extend(m.map.rt_vars().iter().cloned());
    let mut map = IndexingMap::new(
        m.map.dims().to_vec(),
        symbols,
        Vec::new(),
        m.map.results().to_vec(),
    )
    .map_err(|e| AnalysisError::composition(format!("internal error: {e}")))?;
    for c in m.map.constraints() {
        map.add_constraint(c.expr.clone(), c.interval)
            .map_err(|e| AnalysisError::composition(format!("internal error: {e}")))?;
    }
    map.simplify();
    Ok(OperandMap {
        map,
        runtime: Vec::new(),
        conservative: m.conservative.or_else(|| Some(LOOP_RUNTIME.to_string())),
        ..m
    })
}

/// `(d over from) -> (s over to)`: every element of `to`.
fn everything(from: &[i64], to: &[i64], reason: &str) -> Result<OperandMap, Unsupported> {
    let mut b = MapBuilder::over(from);
    let results = to.iter().map(|&n| b.symbol(n)).collect();
    let mut map = b.build(results)?;
    map.simplify();
    Ok(OperandMap::conservative(map, reason))
}

/// A de-duplicated list of maps (by [`map_key`]); the first map of a key
/// stays.
#[derive(Clone, Default)]
struct Maps {
    maps: Vec<OperandMap>,
    keys: HashSet<String>,
}

impl Maps {
    fn insert(&mut self, m: OperandMap) -> bool {
        let fresh = self.keys.insert(map_key(&m));
        if fresh {
            self.maps.push(m);
        }
        fresh
    }
}

/// Which maps of a fixpoint are exact.
#[derive(Clone, Copy, PartialEq)]
enum Exact {
    /// Those that hold after every number of iterations (the state's maps:
    /// the output is the state after the last one).
    Always,
    /// Those that hold before the first iteration (the condition's reads:
    /// it reads the initial state whatever the trip count, later states
    /// only if the loop gets there).
    Initially,
}

/// The union over every number of iterations `n` of `start` followed by
/// `n` steps: `start[b]` maps indices of `from` to element `b`'s,
/// `step[b][c]` element `b`'s to element `c`'s (`shapes`); the result `[c]`
/// maps `from` to element `c`. Since `start . step^(n+1)` is
/// `(start . step^n) . step`, one row is iterated on its own.
fn fixpoint(
    from: &[i64],
    shapes: &[&[i64]],
    start: Vec<Vec<OperandMap>>,
    step: &[Vec<Vec<OperandMap>>],
    exact: Exact,
) -> Result<Vec<Vec<OperandMap>>, Unsupported> {
    let n = shapes.len();
    let mut reach: Vec<Maps> = vec![Maps::default(); n];
    for (c, maps) in start.into_iter().enumerate() {
        for m in maps {
            reach[c].insert(m);
        }
    }
    let mut union = reach.clone();
    let initially: Vec<HashSet<String>> = reach.iter().map(|m| m.keys.clone()).collect();
    // Keys present after every number of iterations seen so far.
    let mut always = initially.clone();
    let mut full = vec![false; n];
    let mut stable = false;
    for round in 0..WIDEN_AFTER_ROUNDS + n + 2 {
        let mut next: Vec<Maps> = vec![Maps::default(); n];
        for c in 0..n {
            if full[c] {
                next[c] = union[c].clone();
                continue;
            }
            for (b, row) in reach.iter().enumerate() {
                for r in &row.maps {
                    for s in &step[b][c] {
                        next[c].insert(compose_operand(r, s)?);
                    }
                }
            }
        }
        let mut grew = vec![false; n];
        let mut same = true;
        for c in 0..n {
            same &= next[c].keys == reach[c].keys;
            always[c].retain(|k| next[c].keys.contains(k));
            for m in &next[c].maps {
                grew[c] |= union[c].insert(m.clone());
            }
        }
        reach = next;
        if same && !grew.contains(&true) {
            stable = true;
            break;
        }
        for c in 0..n {
            let widen =
                union[c].maps.len() > MAX_MAPS || (grew[c] && round + 1 >= WIDEN_AFTER_ROUNDS);
            if widen && !full[c] {
                full[c] = true;
                let mut all = Maps::default();
                all.insert(everything(from, shapes[c], WIDENED_LOOP)?);
                union[c] = all.clone();
                reach[c] = all;
            }
        }
    }
    if !stable {
        // Sound for every trip count only if the union is closed under one
        // more step (then every later state's maps are in it): widen each
        // element it is not closed at, until it is.
        loop {
            let mut open = None;
            'find: for c in (0..n).filter(|&c| !full[c]) {
                for (b, row) in union.iter().enumerate() {
                    for r in &row.maps {
                        for s in &step[b][c] {
                            if !union[c].keys.contains(&map_key(&compose_operand(r, s)?)) {
                                open = Some(c);
                                break 'find;
                            }
                        }
                    }
                }
            }
            let Some(c) = open else { break };
            full[c] = true;
            let mut all = Maps::default();
            all.insert(everything(from, shapes[c], WIDENED_LOOP)?);
            union[c] = all;
        }
    }
    Ok(union
        .into_iter()
        .enumerate()
        .map(|(c, maps)| {
            maps.maps
                .into_iter()
                .map(|mut m| {
                    let key = map_key(&m);
                    let holds = !full[c]
                        && match exact {
                            Exact::Always => stable && always[c].contains(&key),
                            Exact::Initially => initially[c].contains(&key),
                        };
                    if !holds && m.conservative.is_none() {
                        m.conservative = Some(TRIP_COUNT.to_string());
                    }
                    m
                })
                .collect()
        })
        .collect())
}

/// The identity of element `k` as a row: `start` for [`fixpoint`].
fn identity_row(shapes: &[&[i64]], k: usize) -> Vec<Vec<OperandMap>> {
    let mut row = vec![Vec::new(); shapes.len()];
    let mut id = IndexingMap::identity(shapes[k]);
    id.simplify();
    row[k].push(OperandMap::plain(id));
    row
}

/// The body and condition of a `while`, with their one parameter each.
fn loop_parts(
    module: &Module,
    inst: &Instruction,
) -> Result<(CompId, InstrId, CompId, InstrId), Unsupported> {
    let body = called(module, inst, "body")?;
    let cond = called(module, inst, "condition")?;
    match (
        &module.computations[body].parameters[..],
        &module.computations[cond].parameters[..],
    ) {
        (&[bp], &[cp]) => Ok((body, bp, cond, cp)),
        _ => Err(AnalysisError::invalid(format!(
            "the body and condition of `{}` must each have one parameter",
            inst.name
        ))),
    }
}

/// Output-to-input maps of `while` output `output`: one entry (the
/// initial state), each map tagged with the state element it reads.
pub(crate) fn while_output_to_input(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    output: usize,
    depth: usize,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let inst = &module.computations[comp].instructions[instr];
    let shapes = elements(inst, &inst.shape)?;
    let n = shapes.len();
    if output >= n {
        return Err(AnalysisError::invalid(format!(
            "`{}` has no output {output}",
            inst.name
        )));
    }
    let (body_id, _, cond_id, _) = loop_parts(module, inst)?;
    let (body, cond) = (&module.computations[body_id], &module.computations[cond_id]);
    // step[b][c]: body output b to body parameter element c.
    let mut step = Vec::with_capacity(n);
    for b in 0..n {
        let groups = output_to_input_groups(module, body_id, body.root, b, depth + 1, &|_, _| {})?;
        let param = parameter_indexing(body, groups).swap_remove(0);
        step.push(by_element(param, n)?);
    }
    let out_dims = shapes[output];
    let state = fixpoint(
        out_dims,
        &shapes,
        identity_row(&shapes, output),
        &step,
        Exact::Always,
    )?;
    // The condition reads the state before every trip: as a row from `()`.
    let groups = output_to_input_groups(module, cond_id, cond.root, 0, depth + 1, &|_, _| {})?;
    let cond_reads = by_element(parameter_indexing(cond, groups).swap_remove(0), n)?;
    let reads = fixpoint(&[], &shapes, cond_reads, &step, Exact::Initially)?;
    let scalar = OperandMap::plain(MapBuilder::over(out_dims).to_scalar()?);
    let tuple = matches!(inst.shape, Shape::Tuple(_));
    let mut maps = Vec::new();
    for (c, (through, read)) in state.into_iter().zip(reads).enumerate() {
        let mut set = Maps::default();
        for m in through {
            set.insert(m);
        }
        for m in &read {
            set.insert(compose_operand(&scalar, m)?);
        }
        for mut m in set.maps {
            m.element = tuple.then_some(c);
            maps.push(m);
        }
    }
    Ok(vec![OperandIndexing::Maps(maps)])
}

/// Input-to-output maps of a `while` from element `element` of its initial
/// state: one entry per output.
pub(crate) fn while_input_to_output(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    element: Option<usize>,
    depth: usize,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let inst = &module.computations[comp].instructions[instr];
    let shapes = elements(inst, &inst.shape)?;
    let n = shapes.len();
    let e = element.unwrap_or(0);
    if e >= n {
        return Err(AnalysisError::invalid(format!(
            "`{}` has no state element {e}",
            inst.name
        )));
    }
    let (body_id, body_param, cond_id, cond_param) = loop_parts(module, inst)?;
    let tuple = matches!(inst.shape, Shape::Tuple(_));
    let tag = |a: usize| tuple.then_some(a);
    // step[a][k]: body parameter element a to body output k; cond_step[a]:
    // parameter element a to the condition's value.
    let mut step = Vec::with_capacity(n);
    let mut cond_step = Vec::with_capacity(n);
    for a in 0..n {
        let per_output =
            input_to_output_through(module, body_id, body_param, tag(a), depth + 1, None)?;
        let mut row = Vec::with_capacity(n);
        for ix in per_output {
            row.push(by_element(ix, 1)?.swap_remove(0));
        }
        row.resize(n, Vec::new());
        step.push(row);
        let reads = input_to_output_through(module, cond_id, cond_param, tag(a), depth + 1, None)?;
        cond_step.push(match reads.into_iter().next() {
            Some(ix) => by_element(ix, 1)?.swap_remove(0),
            None => Vec::new(),
        });
    }
    let through = fixpoint(
        shapes[e],
        &shapes,
        identity_row(&shapes, e),
        &step,
        Exact::Always,
    )?;
    // Which elements of `e` the condition reads: before the first trip
    // (exact: the identity then the condition's own map), or after some.
    let mut reads = Maps::default();
    for m in &cond_step[e] {
        reads.insert(m.clone());
    }
    for (b, cm) in cond_step.iter().enumerate() {
        for t in &through[b] {
            for m in cm {
                let mut composed = compose_operand(t, m)?;
                if composed.conservative.is_none() {
                    composed.conservative = Some(TRIP_COUNT.to_string());
                }
                reads.insert(composed);
            }
        }
    }
    let mut out = Vec::with_capacity(n);
    for (dims, maps) in shapes.iter().zip(through) {
        let mut set = Maps::default();
        for m in maps {
            set.insert(m);
        }
        let mut b = MapBuilder::over(&[]);
        let results = dims.iter().map(|&d| b.symbol(d)).collect();
        let mut all = b.build(results)?;
        all.simplify();
        let all = OperandMap::plain(all);
        for m in &reads.maps {
            set.insert(compose_operand(m, &all)?);
        }
        out.push(OperandIndexing::Maps(set.maps));
    }
    Ok(out)
}

/// The branches of a `conditional` and, when its selector is a constant,
/// the branch it takes.
fn branches(
    module: &Module,
    comp: CompId,
    inst: &Instruction,
) -> Result<(Vec<CompId>, Option<usize>), Unsupported> {
    let names: Vec<&str> = match inst.attrs.computations("branch_computations") {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => ["true_computation", "false_computation"]
            .iter()
            .filter_map(|a| inst.attrs.computations(a).and_then(|n| n.first()))
            .map(String::as_str)
            .collect(),
    };
    let ids: Vec<CompId> = names.iter().filter_map(|n| module.computation(n)).collect();
    if ids.is_empty() || ids.len() != names.len() || inst.operands.len() != ids.len() + 1 {
        return Err(AnalysisError::invalid(format!(
            "`{}` needs one operand per branch after its selector",
            inst.name
        )));
    }
    let selector = &module.computations[comp].instructions[inst.operands[0]];
    let taken = (selector.opcode == crate::opcode::Opcode::Constant)
        .then_some(selector.literal.as_deref())
        .flatten()
        .and_then(|l| match l.trim() {
            "true" => Some(1),
            "false" => Some(0),
            v => v.parse::<i64>().ok(),
        })
        .map(|v| branch_of(v, is_predicate(inst), ids.len()));
    Ok((ids, taken))
}

/// Whether the selector is a predicate (true and false branches).
fn is_predicate(inst: &Instruction) -> bool {
    inst.attrs.computations("branch_computations").is_none()
}

/// The branch a selector value runs.
fn branch_of(value: i64, predicate: bool, count: usize) -> usize {
    if predicate {
        usize::from(value == 0)
    } else {
        usize::try_from(value)
            .ok()
            .filter(|&b| b < count)
            .unwrap_or(count - 1)
    }
}

/// `m` taking branch `branch` only: a new runtime variable, the selector
/// read once, whose range is the selector's value for that branch.
fn when_taken(
    m: OperandMap,
    selector: &RuntimeVar,
    branch: usize,
    predicate: bool,
) -> Result<OperandMap, Unsupported> {
    if m.map.is_known_empty() {
        return Ok(m);
    }
    let value = match (predicate, branch) {
        (true, 0) => Interval::new(1, 1),
        (true, _) => Interval::new(0, 0),
        (false, b) => Interval::new(b as i64, b as i64),
    };
    let mut rt_vars = m.map.rt_vars().to_vec();
    rt_vars.push(Variable::new(value));
    let mut map = IndexingMap::new(
        m.map.dims().to_vec(),
        m.map.symbols().to_vec(),
        rt_vars,
        m.map.results().to_vec(),
    )
    .map_err(|e| AnalysisError::composition(format!("internal error: {e}")))?;
    for c in m.map.constraints() {
        map.add_constraint(c.expr.clone(), c.interval)
            .map_err(|e| AnalysisError::composition(format!("internal error: {e}")))?;
    }
    let mut runtime = m.runtime;
    // The selector is a scalar, read at `()` from the map's own dimensions.
    let read = IndexingMap::new(m.map.dims().to_vec(), Vec::new(), Vec::new(), Vec::new())
        .map_err(|e| AnalysisError::composition(format!("internal error: {e}")))?;
    runtime.push(RuntimeVar {
        map: read,
        ..selector.clone()
    });
    Ok(OperandMap {
        map,
        runtime,
        conservative: m.conservative.or_else(|| Some(BRANCH_TAKEN.to_string())),
        ..m
    })
}

/// The selector of `inst` as a runtime variable.
fn selector_var(module: &Module, comp: CompId, inst: &Instruction) -> RuntimeVar {
    let id = inst.operands[0];
    let src = &module.computations[comp].instructions[id];
    RuntimeVar::new(runtime_source_name(src), Some(id))
}

/// Output-to-input maps of `conditional` output `output`: the selector is
/// read by every element (exact); operand `b + 1` through branch `b`.
pub(crate) fn conditional_output_to_input(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    output: usize,
    depth: usize,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let caller = &module.computations[comp];
    let inst = &caller.instructions[instr];
    let (ids, taken) = branches(module, comp, inst)?;
    let out_dims = inst
        .shape
        .output(output)
        .and_then(Shape::as_array)
        .ok_or_else(|| {
            AnalysisError::invalid(format!("`{}` has no array output {output}", inst.name))
        })?;
    let mut result = vec![OperandIndexing::single(
        MapBuilder::over(&out_dims.dims).to_scalar()?,
    )];
    let selector = selector_var(module, comp, inst);
    let predicate = is_predicate(inst);
    for (b, &branch) in ids.iter().enumerate() {
        if taken.is_some_and(|t| t != b) {
            result.push(OperandIndexing::Maps(Vec::new()));
            continue;
        }
        let called = &module.computations[branch];
        if called.parameters.len() != 1 {
            return Err(AnalysisError::invalid(format!(
                "branch `{}` of `{}` must have one parameter",
                called.name, inst.name
            )));
        }
        let groups =
            output_to_input_groups(module, branch, called.root, output, depth + 1, &|_, _| {})?;
        let param = parameter_indexing(called, groups).swap_remove(0);
        let param = runtime_sources_in_caller(caller, &branch_call(inst, b), called, param);
        result.push(match (param, taken) {
            (OperandIndexing::Maps(maps), None) => OperandIndexing::Maps(
                maps.into_iter()
                    .map(|m| when_taken(m, &selector, b, predicate))
                    .collect::<Result<_, _>>()?,
            ),
            (other, _) => other,
        });
    }
    Ok(result)
}

/// Input-to-output maps of `conditional` operand `input` (element
/// `element` of a tuple operand): one entry per output.
pub(crate) fn conditional_input_to_output(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    input: usize,
    element: Option<usize>,
    depth: usize,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let caller = &module.computations[comp];
    let inst = &caller.instructions[instr];
    let (ids, taken) = branches(module, comp, inst)?;
    let outputs = inst.shape.output_count();
    if input == 0 {
        let operand = caller.instructions[inst.operands[0]]
            .shape
            .as_array()
            .ok_or_else(|| {
                AnalysisError::invalid(format!("the selector of `{}` is a tuple", inst.name))
            })?;
        return (0..outputs)
            .map(|k| {
                let dims = &inst
                    .shape
                    .output(k)
                    .and_then(Shape::as_array)
                    .ok_or_else(|| {
                        AnalysisError::unsupported(format!(
                            "`{}` has a nested tuple output",
                            inst.name
                        ))
                    })?
                    .dims;
                let mut b = MapBuilder::over(&operand.dims);
                let results = dims.iter().map(|&d| b.symbol(d)).collect();
                Ok(OperandIndexing::single(b.build(results)?))
            })
            .collect();
    }
    let b = input - 1;
    let &branch = ids
        .get(b)
        .ok_or_else(|| AnalysisError::invalid(format!("`{}` has no operand {input}", inst.name)))?;
    if taken.is_some_and(|t| t != b) {
        return Ok((0..outputs)
            .map(|_| OperandIndexing::Maps(Vec::new()))
            .collect());
    }
    let called = &module.computations[branch];
    let &[param] = &called.parameters[..] else {
        return Err(AnalysisError::invalid(format!(
            "branch `{}` of `{}` must have one parameter",
            called.name, inst.name
        )));
    };
    let selector = selector_var(module, comp, inst);
    let predicate = is_predicate(inst);
    let call = branch_call(inst, b);
    input_to_output_through(module, branch, param, element, depth + 1, None)?
        .into_iter()
        .map(
            |ix| match (runtime_sources_in_caller(caller, &call, called, ix), taken) {
                (OperandIndexing::Maps(maps), None) => Ok(OperandIndexing::Maps(
                    maps.into_iter()
                        .map(|m| when_taken(m, &selector, b, predicate))
                        .collect::<Result<_, _>>()?,
                )),
                (other, _) => Ok(other),
            },
        )
        .collect()
}

/// Branch `b` of a conditional seen as a call: its one parameter is the
/// conditional's operand `b + 1` (so runtime values read from it are named
/// in the caller).
fn branch_call(inst: &Instruction, b: usize) -> Instruction {
    Instruction {
        operands: vec![inst.operands[b + 1]],
        ..inst.clone()
    }
}
