//! The public entry points: indexing maps of an instruction of a parsed
//! module, output-to-input or input-to-output, optionally composed through
//! a whole computation (`to_parameters`).

use crate::error::QueryError;
use crate::fusion::{
    compose_operand, input_to_output_through, instruction_input_to_output,
    instruction_output_to_input, output_to_input_groups, parameter_indexing,
    tuple_elements_to_output, OpMapCache, Progress,
};
use crate::module::{CompId, InstrId, Module};
use crate::opcode::Opcode;
use crate::operand_indexing::{
    Direction, InstructionIndexing, OperandEntry, OperandIndexing, OperandMap,
};
use crate::ops::{logical_to_physical, physical_to_logical};
use crate::parallel::map_in_order;
use crate::shape::Shape;

/// Which analysis to run, by instruction name.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// The instruction to analyse, as `NAME` or `COMPUTATION/NAME`; `None`
    /// is the ROOT of the entry computation. A bare name found in several
    /// computations means the entry's (or the first) and adds a warning.
    pub instruction: Option<String>,
    /// Which output of a multi-output instruction the maps start from
    /// (output-to-input) or end at (input-to-output).
    pub output: usize,
    /// Input-to-output instead of output-to-input: one entry per operand,
    /// with its maps to output `output`.
    pub input_to_output: bool,
    /// Treat the computation (the entry, or the fusion named by
    /// `instruction`) as one fusion and map its ROOT to its parameters.
    pub to_parameters: bool,
    /// Express indices as physical positions: each shape's dimensions in
    /// its layout's major-to-minor order, then split by the layout's tiles
    /// (see [`ArrayShape::physical_dims`](crate::ArrayShape::physical_dims));
    /// positions of tile padding are outside every map's domain.
    pub physical_layout: bool,
}

/// Runs `query` on `module`.
///
/// ```
/// let m = hlo::parse_module(
///     "ENTRY e {\n p0 = f32[20] parameter(0)\n ROOT bc = f32[10,20,30] broadcast(p0), dimensions={1}\n}",
/// ).unwrap();
/// let result = hlo::analyze(&m, &hlo::Query::default()).unwrap();
/// assert_eq!(
///     result.to_string(),
///     "operand id = 0\n(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]\n"
/// );
/// ```
pub fn analyze(module: &Module, query: &Query) -> Result<InstructionIndexing, QueryError> {
    analyze_with_progress(module, query, &|_, _| {})
}

/// [`analyze`], telling `progress(done, total)` how far a whole-module
/// query (`to_parameters`) has got: instructions of the computation
/// walked, or parameters mapped (input-to-output). It may be called from
/// several threads; `done` only grows.
pub fn analyze_with_progress(
    module: &Module,
    query: &Query,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<InstructionIndexing, QueryError> {
    let (comp, instr, warning) = match &query.instruction {
        None => (module.entry, module.entry_computation().root, None),
        Some(spec) => module.resolve_instruction(spec)?,
    };
    let mut result = analyze_at(module, query, comp, instr, progress)?;
    result.warnings.extend(warning);
    Ok(result)
}

/// The shapes the maps of one entry of an [`InstructionIndexing`] go
/// between: the maps' dimensions index `from`, their results index `to`
/// (an element of `to` when it is a tuple: [`OperandMap::element`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryShapes {
    /// The shape the dimensions index (the analysed output, output-to-input).
    pub from: Shape,
    /// The shape the results index (the operand or parameter,
    /// output-to-input).
    pub to: Shape,
}

/// The shapes of the entries [`analyze`] gives for `query` on `module`, in
/// the same order: output-to-input, the analysed output (`query.output`)
/// to each operand (each parameter with `to_parameters`); input-to-output,
/// each operand (parameter) to the output.
///
/// ```
/// let m = hlo::parse_module(
///     "ENTRY e {\n p0 = f32[20] parameter(0)\n ROOT bc = f32[10,20,30] broadcast(p0), dimensions={1}\n}",
/// ).unwrap();
/// let shapes = hlo::map_shapes(&m, &hlo::Query::default()).unwrap();
/// assert_eq!((shapes[0].from.to_string(), shapes[0].to.to_string()), ("f32[10,20,30]".into(), "f32[20]".into()));
/// ```
pub fn map_shapes(module: &Module, query: &Query) -> Result<Vec<EntryShapes>, QueryError> {
    let (comp, instr) = match &query.instruction {
        None => (module.entry, module.entry_computation().root),
        Some(spec) => {
            let (c, i, _) = module.resolve_instruction(spec)?;
            (c, i)
        }
    };
    let (comp, instr, sources) = if query.to_parameters {
        let target = whole_computation(module, query, comp, instr)?;
        let c = &module.computations[target];
        (target, c.root, c.parameters.clone())
    } else {
        let inst = &module.computations[comp].instructions[instr];
        (comp, instr, inst.operands.clone())
    };
    let c = &module.computations[comp];
    let inst = &c.instructions[instr];
    let output = inst
        .shape
        .output(query.output)
        .ok_or_else(|| QueryError::NoOutput {
            instruction: inst.name.clone(),
            outputs: inst.shape.output_count(),
            output: query.output,
        })?;
    Ok(sources
        .iter()
        .map(|&s| {
            let source = c.instructions[s].shape.clone();
            if query.input_to_output {
                EntryShapes {
                    from: source,
                    to: output.clone(),
                }
            } else {
                EntryShapes {
                    from: output.clone(),
                    to: source,
                }
            }
        })
        .collect())
}

/// The computation a `to_parameters` query analyses whole: the entry (or
/// the instruction's computation) when no instruction is named, else the
/// computation the named fusion or call calls.
fn whole_computation(
    module: &Module,
    query: &Query,
    comp: CompId,
    instr: InstrId,
) -> Result<CompId, QueryError> {
    if query.instruction.is_none() {
        return Ok(comp);
    }
    let inst = &module.computations[comp].instructions[instr];
    match (inst.opcode, inst.called.as_slice()) {
        (Opcode::Fusion | Opcode::Call, &[callee]) => Ok(callee),
        _ => Err(QueryError::NotACall {
            instruction: inst.name.clone(),
            opcode: inst.opcode,
        }),
    }
}

/// [`analyze`] for the instruction `instr` of computation `comp`.
fn analyze_at(
    module: &Module,
    query: &Query,
    comp: CompId,
    instr: InstrId,
    progress: Progress,
) -> Result<InstructionIndexing, QueryError> {
    if query.to_parameters {
        let target = whole_computation(module, query, comp, instr)?;
        let mut result = if query.input_to_output {
            parameters_to_output_reporting(module, target, query.output, progress)?
        } else {
            to_parameters_reporting(module, target, query.output, progress)?
        };
        if query.physical_layout {
            let c = &module.computations[target];
            let root = c.root_instruction();
            let output = root.shape.output(query.output);
            for entry in &mut result.operands {
                let param = &c.instructions[c.parameters[entry.index]].shape;
                let indexing =
                    std::mem::replace(&mut entry.indexing, OperandIndexing::Maps(Vec::new()));
                entry.indexing = if query.input_to_output {
                    in_physical_layout(root, indexing, Some(param), output.unwrap_or(&root.shape))
                } else {
                    in_physical_layout(root, indexing, output, param)
                };
            }
        }
        return Ok(result);
    }
    if query.input_to_output {
        let c = &module.computations[comp];
        let inst = &c.instructions[instr];
        if query.output >= inst.shape.output_count() {
            return Err(QueryError::NoOutput {
                instruction: inst.name.clone(),
                outputs: inst.shape.output_count(),
                output: query.output,
            });
        }
        let mut operands = Vec::with_capacity(inst.operands.len());
        for (k, &operand) in inst.operands.iter().enumerate() {
            let r = input_to_output(module, comp, instr, k, query.physical_layout)?;
            let indexing = r
                .operands
                .into_iter()
                .nth(query.output)
                .map(|e| e.indexing)
                .unwrap_or(OperandIndexing::Maps(Vec::new()));
            operands.push(OperandEntry {
                index: k,
                name: c.instructions[operand].name.clone(),
                indexing,
            });
        }
        return Ok(InstructionIndexing {
            warnings: Vec::new(),
            instruction: inst.name.clone(),
            direction: Direction::InputToOutput,
            operands,
        });
    }
    output_to_input(module, comp, instr, query.output, query.physical_layout)
}

/// Output-to-input maps of instruction `instr` of computation `comp` for its
/// output `output`: one entry per operand. A fusion or call is composed
/// through the computation it calls. With `physical_layout`, dimensions
/// and results are in each shape's physical (major-to-minor) order.
pub fn output_to_input(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    output: usize,
    physical_layout: bool,
) -> Result<InstructionIndexing, QueryError> {
    let c = &module.computations[comp];
    let inst = &c.instructions[instr];
    if output >= inst.shape.output_count() {
        return Err(QueryError::NoOutput {
            instruction: inst.name.clone(),
            outputs: inst.shape.output_count(),
            output,
        });
    }
    let per_operand = match instruction_output_to_input(module, comp, instr, output, 0) {
        Ok(v) => v.into_iter().map(|ix| simplified(inst, ix)).collect(),
        Err(reason) => vec![OperandIndexing::Unsupported(reason); inst.operands.len()],
    };
    let mut operands = Vec::with_capacity(per_operand.len());
    for (k, mut indexing) in per_operand.into_iter().enumerate() {
        name_runtime_operands(c, &inst.operands, &mut indexing);
        let operand = &c.instructions[inst.operands[k]];
        let indexing = if physical_layout {
            in_physical_layout(inst, indexing, inst.shape.output(output), &operand.shape)
        } else {
            indexing
        };
        operands.push(OperandEntry {
            index: k,
            name: operand.name.clone(),
            indexing,
        });
    }
    Ok(InstructionIndexing {
        warnings: Vec::new(),
        instruction: inst.name.clone(),
        direction: Direction::OutputToInput,
        operands,
    })
}

/// Input-to-output maps of operand `input` of instruction `instr`: one entry
/// per output (XLA labels them `operand id = k` with `k` the output).
pub fn input_to_output(
    module: &Module,
    comp: CompId,
    instr: InstrId,
    input: usize,
    physical_layout: bool,
) -> Result<InstructionIndexing, QueryError> {
    let c = &module.computations[comp];
    let inst = &c.instructions[instr];
    let &operand = inst
        .operands
        .get(input)
        .ok_or_else(|| QueryError::NoOperand {
            instruction: inst.name.clone(),
            operands: inst.operands.len(),
            operand: input,
        })?;
    let per_output: Vec<OperandIndexing> = tuple_elements_to_output(
        &c.instructions[operand].shape,
        inst.shape.output_count(),
        |element| instruction_input_to_output(module, comp, instr, input, element, 0),
    )
    .into_iter()
    .map(|ix| simplified(inst, ix))
    .collect();
    let multi = inst.shape.output_count() > 1;
    let mut operands = Vec::with_capacity(per_output.len());
    for (j, indexing) in per_output.into_iter().enumerate() {
        let indexing = if physical_layout {
            in_physical_layout(
                inst,
                indexing,
                Some(&c.instructions[operand].shape),
                inst.shape.output(j).unwrap_or(&inst.shape),
            )
        } else {
            indexing
        };
        let name = if multi {
            format!("{}#{j}", inst.name)
        } else {
            inst.name.clone()
        };
        operands.push(OperandEntry {
            index: j,
            name,
            indexing,
        });
    }
    Ok(InstructionIndexing {
        warnings: Vec::new(),
        instruction: inst.name.clone(),
        direction: Direction::InputToOutput,
        operands,
    })
}

/// Treats computation `comp` as one fusion: the composed, simplified,
/// de-duplicated maps from output `output` of its ROOT to each parameter.
pub fn to_parameters(
    module: &Module,
    comp: CompId,
    output: usize,
) -> Result<InstructionIndexing, QueryError> {
    to_parameters_reporting(module, comp, output, &|_, _| {})
}

/// [`to_parameters`], telling `progress` after each instruction.
fn to_parameters_reporting(
    module: &Module,
    comp: CompId,
    output: usize,
    progress: Progress,
) -> Result<InstructionIndexing, QueryError> {
    let c = &module.computations[comp];
    let groups = output_to_input_groups(module, comp, c.root, output, 0, progress)?;
    let per_param = parameter_indexing(c, groups);
    Ok(InstructionIndexing {
        warnings: Vec::new(),
        instruction: c.root_instruction().name.clone(),
        direction: Direction::OutputToInput,
        operands: per_param
            .into_iter()
            .enumerate()
            .map(|(n, mut indexing)| {
                name_runtime_operands(c, &c.parameters, &mut indexing);
                (n, indexing)
            })
            .map(|(n, indexing)| OperandEntry {
                index: n,
                name: c.instructions[c.parameters[n]].name.clone(),
                indexing,
            })
            .collect(),
    })
}

/// Treats computation `comp` as one fusion: for each parameter, the maps to
/// output `output` of its ROOT.
pub fn parameters_to_output(
    module: &Module,
    comp: CompId,
    output: usize,
) -> Result<InstructionIndexing, QueryError> {
    parameters_to_output_reporting(module, comp, output, &|_, _| {})
}

/// [`parameters_to_output`], telling `progress` after each parameter. The
/// parameters are mapped in parallel (each is a walk of its own through
/// the computation); the result is in parameter order.
fn parameters_to_output_reporting(
    module: &Module,
    comp: CompId,
    output: usize,
    progress: Progress,
) -> Result<InstructionIndexing, QueryError> {
    let c = &module.computations[comp];
    let outputs = c.root_instruction().shape.output_count();
    // Without parameters there is nothing to map, whatever the output.
    if output >= outputs && !c.parameters.is_empty() {
        return Err(QueryError::NoOutput {
            instruction: c.root_instruction().name.clone(),
            outputs,
            output,
        });
    }
    let total = c.parameters.len();
    let cache = OpMapCache::default();
    let per_param = map_in_order(
        &c.parameters,
        |&p| {
            tuple_elements_to_output(&c.instructions[p].shape, outputs, |element| {
                input_to_output_through(module, comp, p, element, 0, Some(&cache))
            })
            .into_iter()
            .nth(output)
            .expect("one entry per output")
        },
        &|done| progress(done, total),
    );
    let operands = per_param
        .into_iter()
        .zip(&c.parameters)
        .enumerate()
        .map(|(n, (indexing, &p))| OperandEntry {
            index: n,
            name: c.instructions[p].name.clone(),
            indexing,
        })
        .collect();
    Ok(InstructionIndexing {
        warnings: Vec::new(),
        instruction: c.root_instruction().name.clone(),
        direction: Direction::InputToOutput,
        operands,
    })
}

/// XLA's grouped output-to-input indexing: for every instruction of `comp`
/// that `start`'s output `output` depends on, the maps from that output to
/// the instruction's (first) output, in topological order from `start`.
pub fn grouped_output_to_input(
    module: &Module,
    comp: CompId,
    start: InstrId,
    output: usize,
) -> Result<Vec<OperandEntry>, QueryError> {
    let c = &module.computations[comp];
    let mut groups = output_to_input_groups(module, comp, start, output, 0, &|_, _| {})?;
    let mut entries = Vec::new();
    for &i in crate::fusion::topological_order(c, start).iter().rev() {
        for (_, set) in std::mem::take(&mut groups[i]) {
            entries.push(OperandEntry {
                index: i,
                name: c.instructions[i].name.clone(),
                indexing: set.into_indexing(),
            });
        }
    }
    Ok(entries)
}

/// XLA's epilogue indexing: maps from the output of `hero` (an instruction
/// of computation `comp`) to each output of the computation's ROOT.
pub fn epilogue_input_to_output(
    module: &Module,
    comp: CompId,
    hero: InstrId,
) -> Result<Vec<OperandIndexing>, QueryError> {
    Ok(input_to_output_through(module, comp, hero, None, 0, None)?)
}

/// Says, for every runtime variable of `indexing`, which of `candidates`
/// (the analysed instruction's operands, or the computation's parameters)
/// it is read from.
fn name_runtime_operands(
    comp: &crate::module::Computation,
    candidates: &[InstrId],
    indexing: &mut OperandIndexing,
) {
    let OperandIndexing::Maps(maps) = indexing else {
        return;
    };
    for rt in maps.iter_mut().flat_map(|m| m.runtime.iter_mut()) {
        let Some(source) = rt.source_instr else {
            continue;
        };
        if let Some(k) = candidates.iter().position(|&c| c == source) {
            rt.operand = Some(k);
            rt.operand_name = Some(comp.instructions[source].name.clone());
        }
    }
}

/// The per-op maps of a single instruction, simplified for display; size-1
/// dimensions stay variables so the map reads like the op (`(d0, -d1 + 16)`,
/// not `(0, -d1 + 16)`). Composed maps are simplified already.
fn simplified(inst: &crate::module::Instruction, indexing: OperandIndexing) -> OperandIndexing {
    if matches!(inst.opcode, Opcode::Fusion | Opcode::Call) {
        return indexing;
    }
    match indexing {
        OperandIndexing::Maps(mut maps) => {
            for m in &mut maps {
                m.map.simplify_preserving_point_dims();
                for rt in &mut m.runtime {
                    rt.map.simplify_preserving_point_dims();
                }
                if let Some(r) = &mut m.replica {
                    r.simplify_preserving_point_dims();
                }
            }
            OperandIndexing::Maps(maps)
        }
        other => other,
    }
}

/// Re-expresses logical maps between shapes `from` (dimensions) and `to`
/// (results) in their physical positions (major-to-minor order, tiled when
/// the layout has tiles). A tuple side is the tuple element each map
/// names. A failure is blamed on `inst`, the analysed instruction.
fn in_physical_layout(
    inst: &crate::module::Instruction,
    indexing: OperandIndexing,
    from: Option<&Shape>,
    to: &Shape,
) -> OperandIndexing {
    let OperandIndexing::Maps(maps) = indexing else {
        return indexing;
    };
    let mut out = Vec::with_capacity(maps.len());
    for m in &maps {
        match in_physical_layout_one(m, from, to) {
            Ok(m) => out.push(m),
            Err(reason) => return OperandIndexing::Unsupported(reason.at_instruction(inst)),
        }
    }
    OperandIndexing::Maps(out)
}

/// One map of [`in_physical_layout`].
fn in_physical_layout_one(
    m: &OperandMap,
    from: Option<&Shape>,
    to: &Shape,
) -> Result<OperandMap, crate::error::AnalysisError> {
    let before = OperandMap::plain(physical_to_logical(element_array(from, m.element)?)?);
    let after = OperandMap::plain(logical_to_physical(element_array(Some(to), m.element)?)?);
    let mut physical = compose_operand(&before, m).and_then(|m| compose_operand(&m, &after))?;
    // The tuple element is the operand's, whichever step composed last.
    physical.element = m.element;
    Ok(physical)
}

/// `shape` itself when it is an array, else its tuple element `element`.
fn element_array(
    shape: Option<&Shape>,
    element: Option<usize>,
) -> Result<&crate::shape::ArrayShape, crate::error::AnalysisError> {
    match shape {
        Some(Shape::Array(a)) => Ok(a),
        Some(Shape::Tuple(elems)) => match element.and_then(|k| elems.get(k)) {
            Some(Shape::Array(a)) => Ok(a),
            _ => Err(crate::error::AnalysisError::unsupported(
                "physical positions are known for arrays only: the map's side is a tuple \
                 and the map names no array element of it",
            )),
        },
        None => Err(crate::error::AnalysisError::invalid("no such output")),
    }
}
