//! The result of indexing analysis for one instruction: for every operand
//! (or, input-to-output, every output) the set of maps that reach it.

use crate::error::AnalysisError;
use indexing::IndexingMap;
use std::fmt;

/// Which way a map goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From indices of an output to the indices of an operand it reads.
    OutputToInput,
    /// From indices of an operand to the indices of the outputs it feeds.
    InputToOutput,
}

impl Direction {
    /// `output_to_input` or `input_to_output`, as the JSON output spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::OutputToInput => "output_to_input",
            Direction::InputToOutput => "input_to_output",
        }
    }
}

/// A runtime variable of a map: a value read at run time from another
/// tensor (a dynamic-slice offset, a gather index).
#[derive(Clone, Debug)]
pub struct RuntimeVar {
    /// Where the value is read from, as XLA prints it: `parameter(N)`,
    /// `constant(V)` or an instruction name.
    pub source: String,
    /// The instruction the value comes from, inside the computation being
    /// analysed (used to fold constants and iotas through fusions).
    pub(crate) source_instr: Option<usize>,
    /// Which operand of the analysed instruction (parameter, for
    /// `to_parameters`) the value is read from, when it is one.
    pub operand: Option<usize>,
    /// That operand's (parameter's) instruction name.
    pub operand_name: Option<String>,
    /// From the same dimensions as the owning map to the index read in the
    /// source tensor. Its range variables are its own, unrelated to the
    /// owning map's; they print as `rtK.sN` so the two cannot be confused.
    pub map: IndexingMap,
}

impl RuntimeVar {
    /// A runtime variable read from instruction `source_instr` (of the
    /// computation being analysed), named `source`; its map is set later.
    pub(crate) fn new(source: String, source_instr: Option<usize>) -> RuntimeVar {
        RuntimeVar {
            source,
            source_instr,
            operand: None,
            operand_name: None,
            map: IndexingMap::undefined(),
        }
    }

    /// The variable's own map with its range variables renamed `rtK.sN`
    /// (`K` = `index`, the variable's position in the owning map).
    pub fn display_map(&self, index: usize) -> IndexingMap {
        let mut map = self.map.clone();
        map.prefix_symbol_names(&format!("rt{index}."));
        map
    }
}

/// One map of an operand, with the runtime variables it uses (in the order
/// of the map's `rt` variables).
#[derive(Clone, Debug)]
pub struct OperandMap {
    /// The indexing map.
    pub map: IndexingMap,
    /// One entry per runtime variable of `map`.
    pub runtime: Vec<RuntimeVar>,
    /// For data on other replicas (`all-gather` and the other
    /// collectives): from the same dimensions to the index, within the
    /// replica group, of the replica holding the element that `map`
    /// indexes (an operand element output-to-input, an output element
    /// input-to-output).
    pub replica: Option<IndexingMap>,
    /// For a tuple-shaped operand: the element of the tuple that `map`
    /// indexes (`None` for an array operand).
    pub element: Option<usize>,
    /// Whether a result or constraint outgrew
    /// [`indexing::EXPRESSION_BUDGET`] and was widened: the map then
    /// over-approximates (it holds every element read, and maybe more).
    pub widened: bool,
    /// Why the map over-approximates by construction, when it does: an op
    /// whose exact reads depend on data (a sort permutes within its sorted
    /// dimension, a custom call to an unknown target may read anything),
    /// drawn as every element it could read. `None` for an exact map.
    pub conservative: Option<String>,
}

impl OperandMap {
    /// A map without runtime variables.
    pub fn plain(map: IndexingMap) -> OperandMap {
        OperandMap {
            map,
            runtime: Vec::new(),
            replica: None,
            element: None,
            widened: false,
            conservative: None,
        }
    }

    /// A map that over-approximates what the op reads, and why.
    pub fn conservative(map: IndexingMap, reason: impl Into<String>) -> OperandMap {
        OperandMap {
            conservative: Some(reason.into()),
            ..OperandMap::plain(map)
        }
    }

    /// Whether the map is exact: every element in its image is read, and
    /// nothing else ([`OperandMap::widened`] and
    /// [`OperandMap::conservative`] maps hold every element read, and
    /// maybe more).
    pub fn is_exact(&self) -> bool {
        !self.widened && self.conservative.is_none()
    }

    /// A map with runtime variables.
    pub fn with_runtime(map: IndexingMap, runtime: Vec<RuntimeVar>) -> OperandMap {
        OperandMap {
            map,
            runtime,
            replica: None,
            element: None,
            widened: false,
            conservative: None,
        }
    }
}

/// The indexing of one operand: a set of maps, or the reason there is none.
#[derive(Clone, Debug)]
pub enum OperandIndexing {
    /// Every way the operand is reached (usually one map; a fusion may read
    /// one parameter through several).
    Maps(Vec<OperandMap>),
    /// The maps are unknown, and why (an op or form the analysis does not
    /// support, or an instruction that breaks its op's rules); XLA prints
    /// this as `unknown indexing`.
    Unsupported(AnalysisError),
}

impl OperandIndexing {
    /// A single map without runtime variables.
    pub fn single(map: IndexingMap) -> OperandIndexing {
        OperandIndexing::Maps(vec![OperandMap::plain(map)])
    }

    /// The maps, or `None` when unsupported.
    pub fn maps(&self) -> Option<&[OperandMap]> {
        match self {
            OperandIndexing::Maps(m) => Some(m),
            OperandIndexing::Unsupported(_) => None,
        }
    }
}

/// One operand (or output) entry of an [`InstructionIndexing`].
#[derive(Clone, Debug)]
pub struct OperandEntry {
    /// Operand number (output number for input-to-output, parameter number
    /// for `to_parameters`).
    pub index: usize,
    /// The operand's (output's, parameter's) name.
    pub name: String,
    /// Its maps.
    pub indexing: OperandIndexing,
}

/// The indexing maps of one instruction.
#[derive(Clone, Debug)]
pub struct InstructionIndexing {
    /// Things the reader should know about the query (an ambiguous
    /// instruction name, ...); not part of XLA's text form.
    pub warnings: Vec<String>,
    /// The analysed instruction.
    pub instruction: String,
    /// Which way the maps go.
    pub direction: Direction,
    /// One entry per operand (output, parameter).
    pub operands: Vec<OperandEntry>,
}

impl fmt::Display for OperandMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(k) = self.element {
            writeln!(f, "tuple element {k}:")?;
        }
        write!(f, "{}", self.map)?;
        if !self.runtime.is_empty() {
            f.write_str("\nruntime variables:")?;
            for (i, rt) in self.runtime.iter().enumerate() {
                write!(f, "\nrt{i}: {}; {}", rt.source, rt.display_map(i))?;
            }
        }
        if let Some(replica) = &self.replica {
            write!(f, "\nreplica id:\n{replica}")?;
        }
        if self.widened {
            write!(
                f,
                "\nwidened: an exact expression outgrew {} nodes; results over s-variables it added cover every value they can take",
                indexing::EXPRESSION_BUDGET
            )?;
        }
        if let Some(reason) = &self.conservative {
            write!(f, "\nconservative: {reason}")?;
        }
        Ok(())
    }
}

/// XLA's `HloInstructionIndexing::ToString()` layout: `operand id = N`
/// followed by the operand's maps, one per line.
impl fmt::Display for InstructionIndexing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for entry in &self.operands {
            write!(f, "operand id = {}", entry.index)?;
            match &entry.indexing {
                OperandIndexing::Unsupported(_) => f.write_str(" unknown indexing")?,
                OperandIndexing::Maps(maps) => {
                    for m in maps {
                        write!(f, "\n{m}")?;
                    }
                }
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}
