//! A parser for HLO text modules as XLA and JAX print them.
//!
//! Grammar (whitespace, `// ...` and `/* ... */` comments are skipped):
//!
//! ```text
//! module      := [ "HloModule" name { "," attr } ] { computation }
//! computation := [ "ENTRY" ] name [ "(" params ")" "->" shape ] "{" { instruction } "}"
//! instruction := [ "ROOT" ] name "=" shape opcode "(" operands ")" { "," attr }
//! operand     := [ shape ] name
//! shape       := "(" [ shape { "," shape } ] ")" | type "[" [ dim { "," dim } ] "]" [ layout ]
//! attr        := name "=" value
//! ```
//!
//! Tuple shapes nest at most [`MAX_SHAPE_NESTING`] deep; every other
//! bracketed group is read without recursion.
//!
//! Names may carry a leading `%`. Metadata, backend configs and other
//! attributes that indexing does not need are kept as raw text.

mod attributes;
mod cursor;
mod shape;

use cursor::is_name_start;

use crate::attrs::{AttrValue, Attributes};
use crate::error::{ErrorKind, ParseError};
use crate::module::{Computation, Instruction, Module};
use crate::opcode::Opcode;
use std::collections::HashMap;
use std::ops::Range;

/// Parses an HLO text module.
///
/// ```
/// let m = hlo::parse_module("HloModule m\nENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p0)\n}").unwrap();
/// assert_eq!(m.entry_computation().root_instruction().opcode, hlo::Opcode::Negate);
/// let err = hlo::parse_module("ENTRY e {\n  p0 = f32[4 parameter(0)\n}").unwrap_err();
/// assert_eq!((err.line, err.column), (2, 14));
/// ```
pub fn parse_module(source: &str) -> Result<Module, ParseError> {
    let mut p = Parser {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
        shape_depth: 0,
    };
    let module = p.module()?;
    crate::verify::verify(&module, source)?;
    Ok(module)
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// How many tuple shapes enclose the one being parsed.
    shape_depth: usize,
}

/// How deeply tuple shapes may nest (`((((f32[])))))`); deeper text is
/// rejected with an error rather than exhausting the stack.
pub const MAX_SHAPE_NESTING: usize = 64;

type PResult<T> = Result<T, ParseError>;

/// An instruction before its operand names are resolved.
struct RawInstruction {
    instr: Instruction,
    is_root: bool,
    operand_names: Vec<(String, Range<usize>)>,
}

/// A computation before called computation names are resolved.
struct RawComputation {
    comp: Computation,
    calls: Vec<(usize, String, Range<usize>)>,
}

impl Parser<'_> {
    fn module(&mut self) -> PResult<Module> {
        self.skip_trivia();
        let mut name = String::new();
        if self.at_keyword("HloModule") {
            self.pos += "HloModule".len();
            self.skip_trivia();
            name = self.name("a module name after `HloModule`")?.0;
            self.skip_trivia();
            while self.eat(b',') {
                self.skip_trivia();
                self.name("a module attribute name")?;
                self.expect(b'=', "`=` after the module attribute name")?;
                self.raw_value()?;
                self.skip_trivia();
            }
        }
        let mut raws = Vec::new();
        let mut entry = None;
        let mut entry_span = None;
        loop {
            self.skip_trivia();
            if self.pos >= self.bytes.len() {
                break;
            }
            if self.stack_frame_section()? {
                continue;
            }
            let is_entry = self.at_keyword("ENTRY");
            if is_entry {
                let start = self.pos;
                self.pos += "ENTRY".len();
                if entry.is_some() {
                    return Err(self.error(
                        start..self.pos,
                        "a second ENTRY computation; a module has exactly one",
                    ));
                }
                entry = Some(raws.len());
                entry_span = Some(start..self.pos);
            }
            raws.push(self.computation()?);
        }
        let _ = entry_span;
        if raws.is_empty() {
            return Err(self.error(
                self.pos..self.pos,
                "expected a computation (`name { ... }`), found the end of the text",
            ));
        }
        self.resolve(name, raws, entry)
    }

    /// Skips one of the sections that current XLA prints after (or
    /// between) the computations to describe source locations:
    /// `FileNames`, `FunctionNames`, `FileLocations` and `StackFrames`, each
    /// a keyword followed by lines `ID "text"` or `ID {key=value ...}`.
    /// Returns whether there was one.
    fn stack_frame_section(&mut self) -> PResult<bool> {
        const SECTIONS: [&str; 4] = ["FileNames", "FunctionNames", "FileLocations", "StackFrames"];
        let Some(keyword) = SECTIONS.iter().find(|k| self.at_keyword(k)) else {
            return Ok(false);
        };
        // A computation may be called `FileNames`; a section never has `{` or `(` next.
        let save = self.pos;
        self.pos += keyword.len();
        self.skip_trivia();
        if !matches!(self.peek(), Some(c) if c.is_ascii_digit()) && self.peek().is_some() {
            if matches!(self.peek(), Some(b'{' | b'(')) {
                self.pos = save;
                return Ok(false);
            }
            return Ok(true);
        }
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.int(&format!("an entry id in the `{keyword}` section"))?;
            self.skip_trivia();
            match self.peek() {
                Some(b'"') => self.string()?,
                Some(b'{') => {
                    self.balanced(b'{', b'}')?;
                }
                _ => {
                    return Err(self.error_here(format!(
                        "expected a string or `{{...}}` after the entry id in the `{keyword}` section{}",
                        self.found()
                    )))
                }
            }
            self.skip_trivia();
        }
        Ok(true)
    }

    fn resolve(
        &self,
        name: String,
        raws: Vec<RawComputation>,
        entry: Option<usize>,
    ) -> PResult<Module> {
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, rc) in raws.iter().enumerate() {
            by_name.insert(rc.comp.name.as_str(), i);
        }
        let mut computations = Vec::with_capacity(raws.len());
        let mut pending = Vec::new();
        for rc in &raws {
            for (instr, callee, span) in &rc.calls {
                match by_name.get(callee.as_str()) {
                    Some(&c) => pending.push((computations.len(), *instr, c)),
                    None => {
                        return Err(self
                            .error(
                                span.clone(),
                                format!("unknown computation `{callee}`; define it in this module"),
                            )
                            .with_kind(ErrorKind::Undefined))
                    }
                }
            }
            computations.push(rc.comp.clone());
        }
        for (c, i, callee) in pending {
            computations[c].instructions[i].called.push(callee);
        }
        let entry = entry.unwrap_or(computations.len() - 1);
        Ok(Module {
            name,
            computations,
            entry,
        })
    }

    fn computation(&mut self) -> PResult<RawComputation> {
        let (name, name_span) = self.name("a computation name")?;
        self.skip_trivia();
        if self.peek() == Some(b'(') {
            // The printed signature repeats the parameters' shapes; the body has them too.
            self.balanced(b'(', b')')?;
            self.skip_trivia();
            if !self.eat_str("->") {
                return Err(self.error_here(
                    "expected `->` and the result shape after the computation's parameter list",
                ));
            }
            self.skip_trivia();
            self.shape()?;
            self.skip_trivia();
        }
        self.expect(b'{', "`{` to open the body of the computation")?;
        let mut raw_instrs: Vec<RawInstruction> = Vec::new();
        loop {
            self.skip_trivia();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.error_here(format!("expected an instruction or `}}` to close computation `{name}`, found the end of the text"))),
                _ => raw_instrs.push(self.instruction()?),
            }
        }
        // `}, execution_thread="..."` and similar trailing computation attributes.
        loop {
            let save = self.pos;
            self.skip_trivia();
            if self.eat(b',') {
                self.skip_trivia();
                self.name("a computation attribute name")?;
                self.expect(b'=', "`=` after the computation attribute name")?;
                self.raw_value()?;
            } else {
                self.pos = save;
                break;
            }
        }
        if raw_instrs.is_empty() {
            return Err(self.error(
                name_span,
                format!("computation `{name}` has no instructions"),
            ));
        }
        self.build_computation(name, name_span, raw_instrs)
    }

    fn build_computation(
        &self,
        name: String,
        name_span: Range<usize>,
        raws: Vec<RawInstruction>,
    ) -> PResult<RawComputation> {
        let mut index: HashMap<String, usize> = HashMap::new();
        for (i, r) in raws.iter().enumerate() {
            if index.insert(r.instr.name.clone(), i).is_some() {
                return Err(self.error(
                    r.instr.span.clone(),
                    format!(
                        "instruction `{}` is defined twice in computation `{name}`",
                        r.instr.name
                    ),
                ));
            }
        }
        let mut root = None;
        let mut params: Vec<Option<usize>> = Vec::new();
        let mut instructions = Vec::with_capacity(raws.len());
        let mut calls = Vec::new();
        for (i, r) in raws.into_iter().enumerate() {
            let mut instr = r.instr;
            if r.is_root {
                if root.is_some() {
                    return Err(self.error(
                        instr.span.clone(),
                        format!("a second ROOT in computation `{name}`"),
                    ));
                }
                root = Some(i);
            }
            for (op, span) in &r.operand_names {
                match index.get(op) {
                    Some(&j) => instr.operands.push(j),
                    None => return Err(self.error(span.clone(), format!("unknown operand `{op}`; no instruction of that name in computation `{name}`")).with_kind(ErrorKind::Undefined)),
                }
            }
            if let Some(n) = instr.parameter_number {
                if params.len() <= n {
                    if n > 1_000_000 {
                        return Err(self.error(
                            instr.span.clone(),
                            format!("parameter number {n} is too large"),
                        ));
                    }
                    params.resize(n + 1, None);
                }
                if params[n].is_some() {
                    return Err(self.error(
                        instr.span.clone(),
                        format!("parameter({n}) is declared twice in computation `{name}`"),
                    ));
                }
                params[n] = Some(i);
            }
            for a in &instr.attrs.0 {
                if let AttrValue::Computations(names) = &a.value {
                    for callee in names {
                        calls.push((i, callee.clone(), a.span.clone()));
                    }
                }
            }
            instructions.push(instr);
        }
        let mut parameters = Vec::with_capacity(params.len());
        for (n, p) in params.into_iter().enumerate() {
            match p {
                Some(i) => parameters.push(i),
                None => return Err(self.error(name_span, format!("computation `{name}` has no parameter({n}); parameters must be numbered 0, 1, 2, ..."))),
            }
        }
        check_acyclic(&instructions).map_err(|i| {
            self.error(
                instructions[i].span.clone(),
                format!("instruction `{}` depends on itself", instructions[i].name),
            )
        })?;
        let root = root.unwrap_or(instructions.len() - 1);
        Ok(RawComputation {
            comp: Computation {
                name,
                instructions,
                root,
                parameters,
            },
            calls,
        })
    }

    fn instruction(&mut self) -> PResult<RawInstruction> {
        let (mut name, mut span) = self.name("an instruction name")?;
        let mut is_root = false;
        if name == "ROOT" {
            self.skip_trivia();
            if self.peek() != Some(b'=') {
                is_root = true;
                (name, span) = self.name("an instruction name after `ROOT`")?;
            }
        }
        self.expect(b'=', &format!("`=` after instruction name `{name}`"))?;
        self.skip_trivia();
        let shape = self.shape()?;
        self.skip_trivia();
        let (opcode_text, opcode_span) = self.name("an opcode")?;
        let opcode_text = opcode_text.trim_start_matches('%');
        let Some(opcode) = Opcode::parse(opcode_text) else {
            return Err(self.error(
                opcode_span,
                format!("unknown opcode `{opcode_text}`; expected an HLO opcode such as `add` or `fusion`"),
            ).with_kind(ErrorKind::Undefined));
        };
        self.expect(b'(', &format!("`(` after opcode `{opcode}`"))?;
        let mut instr = Instruction {
            name,
            shape,
            opcode,
            operands: Vec::new(),
            parameter_number: None,
            literal: None,
            attrs: Attributes::default(),
            called: Vec::new(),
            span,
        };
        let mut operand_names = Vec::new();
        match instr.opcode {
            Opcode::Parameter => {
                self.skip_trivia();
                let (n, nspan) = self.int("a parameter number")?;
                if n < 0 {
                    return Err(self.error(nspan, "a parameter number must not be negative"));
                }
                instr.parameter_number = Some(n as usize);
                self.expect(b')', "`)` after the parameter number")?;
            }
            Opcode::Constant => {
                self.pos -= 1;
                let r = self.balanced(b'(', b')')?;
                instr.literal = Some(self.src[r.start + 1..r.end - 1].trim().to_string());
            }
            _ => {
                self.skip_trivia();
                if !self.eat(b')') {
                    loop {
                        self.skip_trivia();
                        operand_names.push(self.operand()?);
                        self.skip_trivia();
                        if self.eat(b')') {
                            break;
                        }
                        self.expect(b',', "`,` or `)` in the operand list")?;
                    }
                }
            }
        }
        loop {
            let save = self.pos;
            self.skip_trivia();
            if !self.eat(b',') {
                self.pos = save;
                break;
            }
            self.skip_trivia();
            let attr = self.attribute()?;
            instr.attrs.0.push(attr);
        }
        Ok(RawInstruction {
            instr,
            is_root,
            operand_names,
        })
    }

    fn operand(&mut self) -> PResult<(String, Range<usize>)> {
        let starts_shape = match self.peek() {
            Some(b'(') => true,
            Some(c) if is_name_start(c) => {
                let save = self.pos;
                let _ = self.name("");
                let bracket = self.peek() == Some(b'[');
                self.pos = save;
                bracket
            }
            _ => false,
        };
        if starts_shape {
            self.shape()?;
            self.skip_trivia();
        }
        self.name("an operand name")
    }
}

fn check_acyclic(instrs: &[Instruction]) -> Result<(), usize> {
    // 0 = unvisited, 1 = on the stack, 2 = done; iterative to survive deep chains.
    let mut state = vec![0u8; instrs.len()];
    for start in 0..instrs.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&op) = instrs[node].operands.get(*next) {
                *next += 1;
                match state[op] {
                    0 => {
                        state[op] = 1;
                        stack.push((op, 0));
                    }
                    1 => return Err(op),
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}
