//! The parsed form of an HLO module: computations of instructions.

use crate::attrs::Attributes;
use crate::error::QueryError;
use crate::opcode::Opcode;
use crate::shape::Shape;
use std::ops::Range;

/// Index of an instruction inside its computation.
pub type InstrId = usize;

/// Index of a computation inside its module.
pub type CompId = usize;

/// One HLO instruction, e.g. `ROOT add.1 = f32[10] add(p0, p1)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The instruction's name, without a leading `%`.
    pub name: String,
    /// Its result shape.
    pub shape: Shape,
    /// Its opcode (`add`, `reduce-window`, ...).
    pub opcode: Opcode,
    /// Its operands, as instructions of the same computation.
    pub operands: Vec<InstrId>,
    /// `N` of `parameter(N)`.
    pub parameter_number: Option<usize>,
    /// The literal of `constant(...)`, as written.
    pub literal: Option<String>,
    /// Its attributes.
    pub attrs: Attributes,
    /// Computations it calls (`to_apply=`, `calls=`), resolved.
    pub called: Vec<CompId>,
    /// Byte range of the instruction's name in the source.
    pub span: Range<usize>,
}

/// A computation: a list of instructions with one root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Computation {
    /// The computation's name, without a leading `%`.
    pub name: String,
    /// Its instructions in source order.
    pub instructions: Vec<Instruction>,
    /// The ROOT instruction (the last one when none is marked).
    pub root: InstrId,
    /// `parameters[n]` is the instruction `parameter(n)`.
    pub parameters: Vec<InstrId>,
}

/// A parsed HLO module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// The name after `HloModule` (empty when there is no header).
    pub name: String,
    /// All computations in source order.
    pub computations: Vec<Computation>,
    /// The ENTRY computation (the last one when none is marked).
    pub entry: CompId,
}

impl Computation {
    /// The instruction called `name`.
    pub fn find(&self, name: &str) -> Option<InstrId> {
        let name = name.strip_prefix('%').unwrap_or(name);
        self.instructions.iter().position(|i| i.name == name)
    }

    /// The ROOT instruction.
    pub fn root_instruction(&self) -> &Instruction {
        &self.instructions[self.root]
    }
}

impl Module {
    /// The ENTRY computation.
    pub fn entry_computation(&self) -> &Computation {
        &self.computations[self.entry]
    }

    /// The computation called `name`.
    pub fn computation(&self, name: &str) -> Option<CompId> {
        let name = name.strip_prefix('%').unwrap_or(name);
        self.computations.iter().position(|c| c.name == name)
    }

    /// The instruction named by `spec`: `COMPUTATION/NAME`, or a bare
    /// `NAME` searched in every computation. A bare name defined in several
    /// computations resolves to the entry's (or else the first) and comes
    /// with a warning that names them all.
    ///
    /// ```
    /// let m = hlo::parse_module("f {\n a = f32[] parameter(0)\n ROOT n = f32[] negate(a)\n}\nENTRY e {\n a = f32[] parameter(0)\n ROOT n = f32[] fusion(a), kind=kLoop, calls=f\n}").unwrap();
    /// let (c, i, warning) = m.resolve_instruction("f/n").unwrap();
    /// assert_eq!((m.computations[c].name.as_str(), i, warning), ("f", 1, None));
    /// let (c, _, warning) = m.resolve_instruction("n").unwrap();
    /// assert_eq!(c, m.entry);
    /// assert!(warning.unwrap().contains("`f/n`"));
    /// ```
    pub fn resolve_instruction(
        &self,
        spec: &str,
    ) -> Result<(CompId, InstrId, Option<String>), QueryError> {
        if let Some((comp_name, name)) = spec.split_once('/') {
            let c = self
                .computation(comp_name)
                .ok_or_else(|| QueryError::NoComputation {
                    name: comp_name.to_string(),
                })?;
            let i = self.computations[c]
                .find(name)
                .ok_or_else(|| QueryError::NoInstruction {
                    spec: spec.to_string(),
                })?;
            return Ok((c, i, None));
        }
        let mut found: Vec<(CompId, InstrId)> = self
            .computations
            .iter()
            .enumerate()
            .filter_map(|(c, comp)| comp.find(spec).map(|i| (c, i)))
            .collect();
        if let Some(k) = found.iter().position(|&(c, _)| c == self.entry) {
            found.swap(0, k);
        }
        let Some(&(c, i)) = found.first() else {
            return Err(QueryError::NoInstruction {
                spec: spec.to_string(),
            });
        };
        let warning = (found.len() > 1).then(|| {
            let all: Vec<String> = found
                .iter()
                .map(|&(c, _)| format!("`{}/{spec}`", self.computations[c].name))
                .collect();
            format!(
                "`{spec}` names {} instructions ({}); analysing `{}/{spec}`; write `COMPUTATION/NAME` to choose",
                found.len(),
                all.join(", "),
                self.computations[c].name
            )
        });
        Ok((c, i, warning))
    }

    /// The instruction called `name`, searched in the entry computation first
    /// and then in every other computation.
    pub fn find_instruction(&self, name: &str) -> Option<(CompId, InstrId)> {
        if let Some(i) = self.entry_computation().find(name) {
            return Some((self.entry, i));
        }
        self.computations
            .iter()
            .enumerate()
            .find_map(|(c, comp)| comp.find(name).map(|i| (c, i)))
    }
}
