//! Composition of per-op maps through a computation: the maps of a fusion
//! (or call) to its parameters, de-duplicated per parameter.
//!
//! Output-to-input: starting at the ROOT with the identity, every
//! instruction's set of maps (from the root's output to that instruction's
//! output) is composed with each of its per-op maps and handed to its
//! operands. Instructions are visited in reverse topological order, so each
//! set is complete before it is pushed further, and sets are de-duplicated
//! by their simplified text: a chain of N ops costs N compositions, and a
//! diamond does not multiply paths. Input-to-output runs the same way
//! forwards from one parameter. When a set is complete it is kept within
//! the budgets of [`crate::hull`] (too many maps, or a map with too many
//! range variables, become a conservative hull), so that deep modules, whose
//! paths multiply, cost time near-linear in their size.

use crate::error::AnalysisError;
use crate::hull::{map_hull, range_variables, MAP_BUDGET, RANGE_VARIABLE_BUDGET};
use crate::module::{CompId, Computation, InstrId, Instruction, Module};
use crate::opcode::Opcode;
use crate::operand_indexing::{OperandIndexing, OperandMap, RuntimeVar};
use crate::ops::{self, Op, Unsupported};
use crate::runtime_fold::fold_runtime_vars;
use crate::shape::Shape;
use indexing::{compose, IndexingMap, EXPRESSION_BUDGET};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

/// Maps reaching each instruction, per output of the instruction:
/// `groups[instr][output]`.
pub(crate) type Groups = Vec<BTreeMap<usize, MapSet>>;

/// Told how far a long analysis has got: `(done, total)`.
pub(crate) type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The per-op input-to-output maps of instructions of one computation,
/// keyed by (instruction, operand, tuple element), shared by the walks of
/// several threads.
#[derive(Default)]
pub(crate) struct OpMapCache {
    maps: Mutex<HashMap<OpMapKey, Result<Vec<OperandIndexing>, Unsupported>>>,
}

type OpMapKey = (InstrId, usize, Option<usize>);

impl OpMapCache {
    /// The maps for `key`, computed by `compute` the first time (outside
    /// the lock: two threads may both compute a key, with equal results).
    fn get_or_compute(
        &self,
        key: OpMapKey,
        compute: impl FnOnce() -> Result<Vec<OperandIndexing>, Unsupported>,
    ) -> Result<Vec<OperandIndexing>, Unsupported> {
        let lock = || self.maps.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        let computed = compute();
        lock().insert(key, computed.clone());
        computed
    }
}

/// How deep calls may nest (guards against a computation calling itself).
const MAX_CALL_DEPTH: usize = 64;

/// A de-duplicated set of maps reaching one (instruction, output) pair, or
/// the reason an unsupported op makes it unknown.
#[derive(Default)]
pub(crate) struct MapSet {
    pub maps: Vec<OperandMap>,
    /// Keys of `maps`, computed only once a second map arrives (most
    /// instructions are reached by one map, and printing costs).
    keys: HashSet<String>,
    pub unsupported: Option<Unsupported>,
}

impl MapSet {
    fn insert(&mut self, m: OperandMap) {
        if self.maps.is_empty() {
            self.maps.push(m);
            return;
        }
        if self.keys.is_empty() {
            self.keys.insert(map_key(&self.maps[0]));
        }
        if self.keys.insert(map_key(&m)) {
            self.maps.push(m);
        }
    }

    fn taint(&mut self, reason: &Unsupported) {
        if self.unsupported.is_none() {
            self.unsupported = Some(reason.clone());
        }
    }

    /// Adds every composition of a map reaching the instruction with a map
    /// of its op (`indexing`), or the reason either is unknown; a failed
    /// composition is blamed on `user`, the instruction whose op maps are
    /// composed.
    fn add_composed(
        &mut self,
        user: &Instruction,
        taint: Option<&Unsupported>,
        maps: &[OperandMap],
        indexing: OperandIndexing,
    ) {
        if let Some(reason) = taint {
            self.taint(reason);
        }
        match indexing {
            OperandIndexing::Unsupported(reason) => self.taint(&reason),
            OperandIndexing::Maps(producers) => {
                for consumer in maps {
                    for producer in &producers {
                        match compose_operand(consumer, producer) {
                            Ok(m) => self.insert(m),
                            Err(reason) => self.taint(&reason.at_instruction(user)),
                        }
                    }
                }
            }
        }
    }

    /// Keeps the complete set within the budgets of [`crate::hull`]: a map
    /// with more than [`RANGE_VARIABLE_BUDGET`] range variables becomes its
    /// own hull, and more than [`MAP_BUDGET`] maps become the hull of the
    /// maps of each tuple element (maps with a replica map are kept as they
    /// are). `dims` is the shape of the value the maps index. Below the
    /// budgets nothing changes.
    fn bound(&mut self, dims: Option<&[i64]>) {
        for m in &mut self.maps {
            let n = range_variables(m);
            if n <= RANGE_VARIABLE_BUDGET {
                continue;
            }
            let reason = format!(
                "the hull of a map with {n} range variables (more than {RANGE_VARIABLE_BUDGET})"
            );
            if let Some(hull) = map_hull(std::slice::from_ref(m), dims, reason) {
                *m = hull;
            }
        }
        if self.maps.len() <= MAP_BUDGET {
            return;
        }
        let count = self.maps.len();
        // Maps of one element in order of first appearance, so the result
        // does not depend on anything but the order maps arrived in.
        let mut groups: Vec<(Option<usize>, Vec<OperandMap>)> = Vec::new();
        let mut kept = Vec::new();
        for m in std::mem::take(&mut self.maps) {
            if m.replica.is_some() {
                kept.push(m);
                continue;
            }
            match groups.iter_mut().find(|(e, _)| *e == m.element) {
                Some((_, g)) => g.push(m),
                None => groups.push((m.element, vec![m])),
            }
        }
        for (_, group) in groups {
            let reason = format!(
                "the hull of {} maps (more than {MAP_BUDGET} distinct maps of {count} reached this value)",
                group.len()
            );
            match (group.len() > 1)
                .then(|| map_hull(&group, dims, reason))
                .flatten()
            {
                Some(hull) => self.maps.push(hull),
                None => self.maps.extend(group),
            }
        }
        self.maps.extend(kept);
    }

    /// The set as an operand entry.
    pub fn into_indexing(self) -> OperandIndexing {
        match self.unsupported {
            Some(reason) => OperandIndexing::Unsupported(reason),
            None => OperandIndexing::Maps(self.maps),
        }
    }
}

/// Adds to the sets of one instruction (`target`, keyed by output, i.e.
/// tuple element) every composition of a map reaching a user with a map of
/// the user's op (`indexing`); a map of one element of a tuple-shaped
/// operand goes to that element's set. A failed composition is blamed on
/// `user`.
fn add_composed_by_element(
    user: &Instruction,
    target: &mut BTreeMap<usize, MapSet>,
    taint: Option<&Unsupported>,
    maps: &[OperandMap],
    indexing: OperandIndexing,
) {
    if let Some(reason) = taint {
        target.entry(0).or_default().taint(reason);
    }
    match indexing {
        OperandIndexing::Unsupported(reason) => target.entry(0).or_default().taint(&reason),
        OperandIndexing::Maps(producers) => {
            for consumer in maps {
                for producer in &producers {
                    let set = target.entry(producer.element.unwrap_or(0)).or_default();
                    match compose_operand(consumer, producer) {
                        Ok(mut m) => {
                            m.element = None;
                            set.insert(m);
                        }
                        Err(reason) => set.taint(&reason.at_instruction(user)),
                    }
                }
            }
        }
    }
}

/// The text that identifies a map for de-duplication: the map and the
/// sources of its runtime variables.
pub(crate) fn map_key(m: &OperandMap) -> String {
    let mut key = m.map.to_string();
    for rt in &m.runtime {
        key.push('|');
        key.push_str(&rt.source);
        key.push(';');
        key.push_str(&rt.map.to_string());
    }
    if let Some(k) = m.element {
        key.push_str(&format!("|element {k}"));
    }
    if let Some(r) = &m.replica {
        key.push_str("|replica;");
        key.push_str(&r.to_string());
    }
    key
}

/// `consumer` then `producer`, simplified, with the producer's runtime
/// variables (composed with the consumer) before the consumer's, matching
/// the variable order of [`indexing::compose`].
pub(crate) fn compose_operand(
    consumer: &OperandMap,
    producer: &OperandMap,
) -> Result<OperandMap, Unsupported> {
    let mut map = compose(&consumer.map, &producer.map)
        .map_err(|e| AnalysisError::composition(format!("composition failed: {e}")))?;
    // Widen before simplifying: the simplifier walks trees, and a chain of
    // reshapes doubles the tree at every op.
    let mut widened = consumer.widened || producer.widened;
    widened |= !map.widen_oversized(EXPRESSION_BUDGET).is_exact();
    map.simplify();
    // XLA drops range and runtime variables no result needs after composing.
    let removed = map.remove_unused_symbols();
    let mut runtime = Vec::with_capacity(producer.runtime.len() + consumer.runtime.len());
    for rt in &producer.runtime {
        let mut m = compose(&consumer.map, &rt.map)
            .map_err(|e| AnalysisError::composition(format!("composition failed: {e}")))?;
        widened |= !m.widen_oversized(EXPRESSION_BUDGET).is_exact();
        m.simplify();
        runtime.push(RuntimeVar {
            map: m,
            ..rt.clone()
        });
    }
    runtime.extend(consumer.runtime.iter().cloned());
    let rt_flags = &removed[removed.len().saturating_sub(runtime.len())..];
    let runtime = runtime
        .into_iter()
        .zip(rt_flags)
        .filter(|(_, &gone)| !gone)
        .map(|(rt, _)| rt)
        .collect();
    // A collective's replica map travels like a runtime variable's map; two
    // collectives in a row would need a replica of a replica, which a single
    // map cannot say.
    let replica = match (&consumer.replica, &producer.replica) {
        (Some(_), Some(_)) => {
            return Err(AnalysisError::unsupported(
                "chained collectives (a replica of a replica) are not supported",
            ))
        }
        (Some(r), None) => Some(r.clone()),
        (None, Some(r)) => {
            let mut m = compose(&consumer.map, r)
                .map_err(|e| AnalysisError::composition(format!("composition failed: {e}")))?;
            widened |= !m.widen_oversized(EXPRESSION_BUDGET).is_exact();
            m.simplify();
            Some(m)
        }
        (None, None) => None,
    };
    Ok(OperandMap {
        map,
        runtime,
        replica,
        element: producer.element,
        widened,
        // Either step over-approximating makes the composition do so.
        conservative: consumer
            .conservative
            .clone()
            .or_else(|| producer.conservative.clone()),
    })
}

/// The dimensions of output `output` of a value of shape `shape` (its
/// element, for a tuple), when that is an array.
fn array_dims(shape: &Shape, output: usize) -> Option<&[i64]> {
    shape
        .output(output)
        .and_then(Shape::as_array)
        .map(|a| a.dims.as_slice())
}

/// The instructions reachable from `root`, operands before users.
pub(crate) fn topological_order(comp: &Computation, root: InstrId) -> Vec<InstrId> {
    let mut order = Vec::new();
    let mut state = vec![0u8; comp.instructions.len()];
    let mut stack = vec![(root, 0usize)];
    state[root] = 1;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&op) = comp.instructions[node].operands.get(*next) {
            *next += 1;
            if state[op] == 0 {
                state[op] = 1;
                stack.push((op, 0));
            }
        } else {
            state[node] = 2;
            order.push(node);
            stack.pop();
        }
    }
    order
}

/// The one computation a `fusion` or `call` instruction calls, refusing
/// call chains deeper than [`MAX_CALL_DEPTH`].
fn called_computation<'m>(
    module: &'m Module,
    inst: &Instruction,
    depth: usize,
) -> Result<(CompId, &'m Computation), Unsupported> {
    let &[callee] = inst.called.as_slice() else {
        return Err(AnalysisError::call(format!(
            "`{}` must call exactly one computation",
            inst.name
        ))
        .at_instruction(inst));
    };
    if depth >= MAX_CALL_DEPTH {
        return Err(AnalysisError::call(format!(
            "calls nest deeper than {MAX_CALL_DEPTH} at `{}`",
            inst.name
        ))
        .at_instruction(inst));
    }
    Ok((callee, &module.computations[callee]))
}

/// Refuses a loop or branch nested deeper than [`MAX_CALL_DEPTH`] calls.
fn check_depth(inst: &Instruction, depth: usize) -> Result<(), Unsupported> {
    if depth >= MAX_CALL_DEPTH {
        return Err(AnalysisError::call(format!(
            "calls nest deeper than {MAX_CALL_DEPTH} at `{}`",
            inst.name
        ))
        .at_instruction(inst));
    }
    Ok(())
}

/// Per-op output-to-input maps of one instruction, descending into fusions,
/// calls, loops and branches.
pub(crate) fn instruction_output_to_input(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    output: usize,
    depth: usize,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let computation = &module.computations[comp];
    let inst = &computation.instructions[instr];
    match inst.opcode {
        Opcode::Fusion | Opcode::Call => {
            let (callee, called) = called_computation(module, inst, depth)?;
            if called.parameters.len() != inst.operands.len() {
                return Err(AnalysisError::call(format!(
                    "`{}` passes {} operands to `{}`, which has {} parameters",
                    inst.name,
                    inst.operands.len(),
                    called.name,
                    called.parameters.len()
                ))
                .at_instruction(inst));
            }
            let groups =
                output_to_input_groups(module, callee, called.root, output, depth + 1, &|_, _| {})?;
            Ok(parameter_indexing(called, groups)
                .into_iter()
                .map(|ix| runtime_sources_in_caller(computation, inst, called, ix))
                .collect())
        }
        Opcode::While => {
            check_depth(inst, depth)?;
            ops::while_output_to_input(module, comp, instr, output, depth)
                .map_err(|e| e.at_instruction(inst))
        }
        Opcode::Conditional => {
            check_depth(inst, depth)?;
            ops::conditional_output_to_input(module, comp, instr, output, depth)
                .map_err(|e| e.at_instruction(inst))
        }
        _ => {
            let per_operand = ops::output_to_input(
                &Op {
                    comp: computation,
                    instr: inst,
                },
                output,
            )
            .map_err(|e| e.at_instruction(inst))?;
            Ok(per_operand
                .into_iter()
                .enumerate()
                .map(|(k, ix)| {
                    let ix = fold_runtime_vars(computation, ix);
                    match inst.operands.get(k) {
                        Some(&o) => empty_if_no_elements(ix, &computation.instructions[o].shape),
                        None => ix,
                    }
                })
                .collect())
        }
    }
}

/// A tensor with a zero-size dimension has no elements: no index of it is
/// ever read, so every map into it (output-to-input), or from it
/// (input-to-output), is known to be empty whatever its formula says.
fn empty_if_no_elements(indexing: OperandIndexing, shape: &Shape) -> OperandIndexing {
    let Shape::Array(a) = shape else {
        return indexing;
    };
    if !a.dims.contains(&0) {
        return indexing;
    }
    match indexing {
        OperandIndexing::Maps(maps) => OperandIndexing::Maps(
            maps.into_iter()
                .map(|m| OperandMap {
                    element: m.element,
                    ..OperandMap::plain(IndexingMap::known_empty(
                        m.map.num_dims(),
                        m.map.num_results(),
                    ))
                })
                .collect(),
        ),
        other => other,
    }
}

/// The maps of each parameter of `comp`, from the per-instruction groups.
/// A tuple-shaped parameter gets the maps of every element it is read
/// through, each tagged with its element; an unknown element makes the
/// whole parameter unknown.
pub(crate) fn parameter_indexing(comp: &Computation, mut groups: Groups) -> Vec<OperandIndexing> {
    comp.parameters
        .iter()
        .map(|&p| {
            let is_tuple = matches!(comp.instructions[p].shape, Shape::Tuple(_));
            let mut maps = Vec::new();
            for (element, set) in std::mem::take(&mut groups[p]) {
                match set.into_indexing() {
                    OperandIndexing::Unsupported(reason) => {
                        return OperandIndexing::Unsupported(reason)
                    }
                    OperandIndexing::Maps(ms) => {
                        for mut m in ms {
                            if is_tuple {
                                m.element = Some(element);
                            }
                            maps.push(m);
                        }
                    }
                }
            }
            OperandIndexing::Maps(maps)
        })
        .collect()
}

/// Re-points the runtime variables of maps of a callee's parameters at the
/// caller: a value read from the callee's `parameter(N)` comes from the
/// caller's operand `N`, and is folded when the caller fixes it (a
/// constant, an iota); one computed inside the callee is named by the
/// callee's instruction and can no longer be folded.
pub(crate) fn runtime_sources_in_caller(
    caller: &Computation,
    call: &Instruction,
    callee: &Computation,
    indexing: OperandIndexing,
) -> OperandIndexing {
    let OperandIndexing::Maps(mut maps) = indexing else {
        return indexing;
    };
    for m in &mut maps {
        for rt in &mut m.runtime {
            let Some(inner) = rt.source_instr else {
                continue;
            };
            let inner_instr = &callee.instructions[inner];
            match inner_instr
                .parameter_number
                .and_then(|n| call.operands.get(n))
            {
                Some(&outer) => {
                    rt.source = ops::runtime_source_name(&caller.instructions[outer]);
                    rt.source_instr = Some(outer);
                }
                None => {
                    rt.source = format!("{}/{}", callee.name, inner_instr.name);
                    rt.source_instr = None;
                }
            }
        }
    }
    fold_runtime_vars(caller, OperandIndexing::Maps(maps))
}

/// For every (instruction, output) of `comp` reachable from `start`'s output
/// `output`: the de-duplicated maps from that output to it (XLA's grouped
/// output-to-input indexing).
///
/// `progress(done, total)` is told after each instruction of the walk.
pub(crate) fn output_to_input_groups(
    module: &Module,
    comp: CompId,
    start: InstrId,
    output: usize,
    depth: usize,
    progress: Progress,
) -> Result<Groups, Unsupported> {
    let computation = &module.computations[comp];
    let start_shape = computation.instructions[start]
        .shape
        .output(output)
        .and_then(|s| s.as_array())
        .ok_or_else(|| {
            AnalysisError::invalid(format!(
                "`{}` has no array output {output}",
                computation.instructions[start].name
            ))
            .at_instruction(&computation.instructions[start])
        })?;
    let mut groups: Groups = (0..computation.instructions.len())
        .map(|_| BTreeMap::new())
        .collect();
    let mut identity = IndexingMap::identity(&start_shape.dims);
    identity.simplify();
    groups[start]
        .entry(output)
        .or_default()
        .insert(OperandMap::plain(identity));

    let order = topological_order(computation, start);
    for (done, &instr) in order.iter().rev().enumerate() {
        progress(done, order.len());
        let inst = &computation.instructions[instr];
        let outputs: Vec<usize> = groups[instr].keys().copied().collect();
        for out in outputs {
            let (maps, taint) = {
                let set = groups[instr].get_mut(&out).expect("a key of the map");
                set.bound(array_dims(&inst.shape, out));
                (set.maps.clone(), set.unsupported.clone())
            };
            if inst.opcode == Opcode::Parameter {
                continue;
            }
            let per_operand = match instruction_output_to_input(module, comp, instr, out, depth) {
                Ok(v) => v,
                Err(reason) => {
                    for &operand in &inst.operands {
                        groups[operand].entry(0).or_default().taint(&reason);
                    }
                    continue;
                }
            };
            for (k, indexing) in per_operand.into_iter().enumerate() {
                let Some(&operand) = inst.operands.get(k) else {
                    continue;
                };
                add_composed_by_element(
                    inst,
                    &mut groups[operand],
                    taint.as_ref(),
                    &maps,
                    indexing,
                );
            }
        }
    }
    Ok(groups)
}

/// Per-op input-to-output maps of one instruction, descending into fusions
/// and calls: one entry per output.
pub(crate) fn instruction_input_to_output(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    input: usize,
    element: Option<usize>,
    depth: usize,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let computation = &module.computations[comp];
    let inst = &computation.instructions[instr];
    match inst.opcode {
        Opcode::Fusion | Opcode::Call => {
            let (callee, called) = called_computation(module, inst, depth)?;
            let &param = called.parameters.get(input).ok_or_else(|| {
                AnalysisError::invalid(format!("`{}` has no operand {input}", inst.name))
                    .at_instruction(inst)
            })?;
            // Runtime values read inside the callee are named in the
            // caller, as the output-to-input direction names them.
            Ok(
                input_to_output_through(module, callee, param, element, depth + 1, None)?
                    .into_iter()
                    .map(|ix| runtime_sources_in_caller(computation, inst, called, ix))
                    .collect(),
            )
        }
        Opcode::While => {
            check_depth(inst, depth)?;
            ops::while_input_to_output(module, comp, instr, element, depth)
                .map_err(|e| e.at_instruction(inst))
        }
        Opcode::Conditional => {
            check_depth(inst, depth)?;
            ops::conditional_input_to_output(module, comp, instr, input, element, depth)
                .map_err(|e| e.at_instruction(inst))
        }
        // A get-tuple-element passes on its element and nothing of the others.
        Opcode::GetTupleElement if element.is_some() => {
            if inst.attrs.int("index") != element.and_then(|e| i64::try_from(e).ok()) {
                return Ok(vec![OperandIndexing::Maps(Vec::new())]);
            }
            ops::input_to_output(
                &Op {
                    comp: computation,
                    instr: inst,
                },
                input,
            )
            .map_err(|e| e.at_instruction(inst))
        }
        // An opt-barrier passes each element through to the same output.
        Opcode::OptimizationBarrier if element.is_some() => {
            ops::opt_barrier::element_input_to_output(
                &Op {
                    comp: computation,
                    instr: inst,
                },
                element.unwrap_or(0),
            )
            .map_err(|e| e.at_instruction(inst))
        }
        _ if element.is_some() => Err(AnalysisError::unsupported(format!(
            "`{}` ({}) reads a tuple operand; only calls and fusions map tuple elements",
            inst.name, inst.opcode
        ))
        .at_instruction(inst)),
        _ => {
            let per_output = ops::input_to_output(
                &Op {
                    comp: computation,
                    instr: inst,
                },
                input,
            )
            .map_err(|e| e.at_instruction(inst))?;
            let shape = &computation.instructions[inst.operands[input]].shape;
            Ok(per_output
                .into_iter()
                .map(|ix| empty_if_no_elements(ix, shape))
                .collect())
        }
    }
}

/// Maps from the output of `start` (a parameter, or any instruction) to
/// every output of the computation's ROOT, composed forwards.
///
/// For a tuple-shaped start, `element` says which element the maps start
/// from.
///
/// `cache` keeps the per-op maps of the computation's instructions for
/// other walks through it (one per parameter), so that a fusion's body is
/// composed once, not once per parameter.
pub(crate) fn input_to_output_through(
    module: &Module,
    comp: CompId,
    start: InstrId,
    element: Option<usize>,
    depth: usize,
    cache: Option<&OpMapCache>,
) -> Result<Vec<OperandIndexing>, Unsupported> {
    let computation = &module.computations[comp];
    let start_instr = &computation.instructions[start];
    let start_shape = start_instr
        .shape
        .output(element.unwrap_or(0))
        .and_then(Shape::as_array)
        .ok_or_else(|| {
            AnalysisError::invalid(match element {
                Some(e) => format!("`{}` has no array element {e}", start_instr.name),
                None => format!("`{}` is a tuple", start_instr.name),
            })
            .at_instruction(start_instr)
        })?;
    let order = topological_order(computation, computation.root);
    let mut groups: Groups = (0..computation.instructions.len())
        .map(|_| BTreeMap::new())
        .collect();
    let mut identity = IndexingMap::identity(&start_shape.dims);
    identity.simplify();
    groups[start]
        .entry(element.unwrap_or(0))
        .or_default()
        .insert(OperandMap::plain(identity));
    let Some(first) = order.iter().position(|&x| x == start) else {
        // The start does not feed the root: it reaches no output.
        let n = computation.root_instruction().shape.output_count();
        return Ok((0..n).map(|_| OperandIndexing::Maps(Vec::new())).collect());
    };
    for &user in &order[first + 1..] {
        let inst = &computation.instructions[user];
        for (k, &operand) in inst.operands.iter().enumerate() {
            let keys: Vec<usize> = groups[operand].keys().copied().collect();
            for out in keys {
                let (maps, taint) = {
                    let set = groups[operand].get_mut(&out).expect("a key of the map");
                    set.bound(array_dims(&computation.instructions[operand].shape, out));
                    (set.maps.clone(), set.unsupported.clone())
                };
                // A get-tuple-element takes one element of a tuple-shaped value.
                let per_output: Vec<OperandIndexing> = if inst.opcode == Opcode::GetTupleElement {
                    if inst.attrs.int("index").unwrap_or(-1) != out as i64 {
                        continue;
                    }
                    match inst.shape.as_array() {
                        Some(a) => {
                            let mut id = IndexingMap::identity(&a.dims);
                            id.simplify();
                            vec![OperandIndexing::single(id)]
                        }
                        None => vec![OperandIndexing::Unsupported(
                            AnalysisError::unsupported(format!(
                                "`{}` takes a tuple out of a tuple; nested tuple elements are not supported",
                                inst.name
                            ))
                            .at_instruction(inst),
                        )],
                    }
                } else {
                    let element =
                        matches!(computation.instructions[operand].shape, Shape::Tuple(_))
                            .then_some(out);
                    let per_op = match cache {
                        Some(cache) => cache.get_or_compute((user, k, element), || {
                            instruction_input_to_output(module, comp, user, k, element, depth)
                        }),
                        None => instruction_input_to_output(module, comp, user, k, element, depth),
                    };
                    match per_op {
                        Ok(v) => v,
                        Err(reason) => {
                            vec![OperandIndexing::Unsupported(reason); inst.shape.output_count()]
                        }
                    }
                };
                for (j, indexing) in per_output.into_iter().enumerate() {
                    let target = groups[user].entry(j).or_default();
                    target.add_composed(inst, taint.as_ref(), &maps, indexing);
                }
            }
        }
    }
    let root = computation.root;
    let n = computation.root_instruction().shape.output_count();
    Ok((0..n)
        .map(|j| {
            groups[root]
                .remove(&j)
                .map(|mut set| {
                    set.bound(array_dims(&computation.root_instruction().shape, j));
                    set.into_indexing()
                })
                .unwrap_or(OperandIndexing::Maps(Vec::new()))
        })
        .collect())
}

/// Input-to-output maps of a value that may be a tuple: for an array, the
/// maps of [`input_to_output_through`] (or, for an operand of `instr`,
/// [`instruction_input_to_output`]); for a tuple, those of every element,
/// each map tagged with its element, and an unknown element makes the
/// output unknown. `through` gives the maps of one element.
pub(crate) fn tuple_elements_to_output(
    shape: &Shape,
    outputs: usize,
    mut through: impl FnMut(Option<usize>) -> Result<Vec<OperandIndexing>, Unsupported>,
) -> Vec<OperandIndexing> {
    let elements: Vec<Option<usize>> = match shape {
        Shape::Tuple(elems) => (0..elems.len()).map(Some).collect(),
        Shape::Array(_) => vec![None],
    };
    let mut merged: Vec<OperandIndexing> = (0..outputs)
        .map(|_| OperandIndexing::Maps(Vec::new()))
        .collect();
    for element in elements {
        let per_output = match through(element) {
            Ok(v) => v,
            Err(reason) => vec![OperandIndexing::Unsupported(reason); outputs],
        };
        for (slot, indexing) in merged.iter_mut().zip(per_output) {
            match (slot, indexing) {
                (OperandIndexing::Unsupported(_), _) => {}
                (slot, OperandIndexing::Unsupported(reason)) => {
                    *slot = OperandIndexing::Unsupported(reason)
                }
                (OperandIndexing::Maps(into), OperandIndexing::Maps(maps)) => {
                    into.extend(maps.into_iter().map(|mut m| {
                        m.element = element;
                        m
                    }))
                }
            }
        }
    }
    merged
}
