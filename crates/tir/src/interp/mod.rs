//! Running programs: every load and store is checked against its buffer's
//! shape and against the region its `realize` or `allocate` gave it, every
//! read of a never-written element is caught, and each stage's stores are
//! counted.
//!
//! A program is first compiled for the given sizes (variables and buffers
//! resolved to slots, static mistakes reported), then run. Buffers hold
//! `f64`; float32 values are rounded to single precision after every
//! operation, integer values are exact and overflow of their type is an
//! error.

mod compile;
mod count;
mod error;
mod kernel;
mod lockstep;
mod machine;

pub use error::{AccessKind, AccessViolation, Problem, RunError};

use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::stmt::PrimFunc;
use crate::tensor::Tensor;
use arith::Var;
use machine::{Element, Limits, Machine, Storage};
use std::collections::{BTreeMap, HashMap};

/// Runs `func` with the default [`Interpreter`]: the first invalid access
/// is an error.
///
/// `inputs` gives a tensor for some parameters; the other parameters are
/// outputs, allocated whole and unwritten. `sizes` gives a value to every
/// symbolic size the program uses.
///
/// ```
/// use std::collections::HashMap;
/// use arith::Var;
/// use tir::{Buffer, DataType, PrimFunc, Stmt, Tensor, Value};
/// // B[i] = A[i] * 2 for i < n
/// let n = Var::new("n");
/// let a = Buffer::new("A", DataType::Float32, [n.expr()]);
/// let b = Buffer::new("B", DataType::Float32, [n.expr()]);
/// let i = Var::new("i");
/// let body = Stmt::for_loop(&i, 0, n.expr(),
///     Stmt::store(&b, [i.expr()], Value::load(&a, [i.expr()]) * Value::f32(2.0)));
/// let f = PrimFunc::new("double", vec![a.clone(), b.clone()], body);
///
/// let inputs = HashMap::from([(a, Tensor::new(vec![3], vec![1.0, 2.0, 3.0]).unwrap())]);
/// let sizes = HashMap::from([(n, 3)]);
/// let out = tir::run(&f, &inputs, &sizes).unwrap();
/// assert_eq!(out.tensor(&b).unwrap().data(), &[2.0, 4.0, 6.0]);
/// assert_eq!(out.runs("B"), 3);
/// ```
pub fn run(
    func: &PrimFunc,
    inputs: &HashMap<Buffer, Tensor>,
    sizes: &HashMap<Var, i64>,
) -> Result<RunResult, RunError> {
    Interpreter::new().run(func, inputs, sizes)
}

/// A loop open at an observed access: its variable, its first value and
/// the value it has now.
#[derive(Clone, Copy, Debug)]
pub struct LoopState<'a> {
    /// The loop variable.
    pub var: &'a Var,
    /// The value of its first iteration (the loop's `min` as evaluated when
    /// the loop started).
    pub first: i64,
    /// Its value now.
    pub value: i64,
}

/// One access an observed run reports.
#[derive(Clone, Copy, Debug)]
pub struct ObservedAccess<'a> {
    /// Load or store.
    pub kind: AccessKind,
    /// The buffer accessed.
    pub buffer: &'a Buffer,
    /// The evaluated indices (before any check: they may be invalid).
    pub indices: &'a [i64],
    /// The stage of the store making the access (the one it stores, or
    /// whose value reads it); `None` for a load outside any store (a
    /// condition).
    pub stage: Option<&'a str>,
    /// The loops open now, outermost first.
    pub loops: &'a [LoopState<'a>],
}

/// What [`Interpreter::run_observed`] reports to: the regions (`realize`,
/// `allocate`) and accesses of the buffers it watches. Every method but
/// [`Observer::watches`] does nothing unless overridden.
pub trait Observer {
    /// Whether the run reports the regions and accesses of `buffer` (asked
    /// once per buffer, before the run).
    fn watches(&mut self, buffer: &Buffer) -> bool;

    /// `buffer` is given the region `[min, min + extent)` per axis inside
    /// the open `loops` (outermost first).
    fn enter_region(
        &mut self,
        _buffer: &Buffer,
        _min: &[i64],
        _extent: &[i64],
        _loops: &[LoopState<'_>],
    ) {
    }

    /// The region of `buffer` entered last is released.
    fn leave_region(&mut self, _buffer: &Buffer) {}

    /// An access of a watched buffer.
    fn access(&mut self, _access: &ObservedAccess<'_>) {}
}

/// How many steps a run takes between two calls of its [`Interrupt`] hook.
pub const INTERRUPT_INTERVAL: u64 = 1 << 16;

/// A check a long run calls now and then ([`Interpreter::interrupt`]):
/// `true` asks the run to stop. A plain function, so that the crates that
/// run programs need not know who asks (the Python package checks for
/// signals).
#[derive(Clone, Copy)]
pub struct Interrupt(pub fn() -> bool);

impl Interrupt {
    /// Whether the run should stop.
    pub fn requested(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupt(..)")
    }
}

impl PartialEq for Interrupt {
    fn eq(&self, other: &Interrupt) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for Interrupt {}

/// An interpreter with limits and a policy for invalid accesses.
///
/// ```
/// use std::collections::HashMap;
/// use arith::Var;
/// use tir::{Buffer, DataType, Interpreter, PrimFunc, Stmt, Value};
/// // B[i + 2] = 1 for i < 4 writes two elements past the end of B.
/// let b = Buffer::new("B", DataType::Int32, [4i64]);
/// let i = Var::new("i");
/// let f = PrimFunc::new("f", vec![b.clone()],
///     Stmt::for_range(&i, 0, 4, Stmt::store(&b, [i.expr() + 2], Value::i32(1))));
/// let none = HashMap::new();
/// let out = Interpreter::new().keep_going(true).run(&f, &none, &HashMap::new()).unwrap();
/// assert_eq!(out.violation_count(), 2);
/// assert_eq!(out.violations()[0].to_string(),
///     "store to B[4] is outside the buffer's shape [4] in `B[(i + 2)] = 1`");
/// assert!(tir::run(&f, &none, &HashMap::new()).is_err());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Interpreter {
    limits: Limits,
}

impl Default for Interpreter {
    fn default() -> Interpreter {
        Interpreter::new()
    }
}

impl Interpreter {
    /// Stops at the first invalid access; no step limit; at most 2^24
    /// elements per buffer.
    pub fn new() -> Interpreter {
        Interpreter {
            limits: Limits {
                keep_going: false,
                max_steps: None,
                interrupt: None,
                max_elements: 1 << 24,
                max_reported: 64,
            },
        }
    }

    /// With `true`, invalid accesses are counted in the result instead of
    /// stopping the run: an invalid load reads zero, an invalid store is
    /// skipped.
    pub fn keep_going(mut self, yes: bool) -> Interpreter {
        self.limits.keep_going = yes;
        self
    }

    /// Stops with [`RunError::StepLimit`] after `steps` loop iterations and
    /// stores; a program whose loops take more steps than that (counted
    /// before running: the product of loop extents, per nest) is refused
    /// at once with [`RunError::TooManySteps`].
    pub fn max_steps(mut self, steps: u64) -> Interpreter {
        self.limits.max_steps = Some(steps);
        self
    }

    /// Calls `hook` every [`INTERRUPT_INTERVAL`] steps of a run; when it
    /// returns `true`, the run stops with [`RunError::Interrupted`]. A
    /// caller that can be cancelled (an interactive session checking for
    /// Ctrl-C) passes its check here.
    pub fn interrupt(mut self, hook: Interrupt) -> Interpreter {
        self.limits.interrupt = Some(hook);
        self
    }

    /// The most elements one buffer may hold.
    pub fn max_elements(mut self, elements: u64) -> Interpreter {
        self.limits.max_elements = elements;
        self
    }

    /// How many violations a keep-going run describes in full (all are
    /// counted).
    pub fn max_reported(mut self, n: usize) -> Interpreter {
        self.limits.max_reported = n;
        self
    }

    /// Runs `func`; see [`run`].
    pub fn run(
        &self,
        func: &PrimFunc,
        inputs: &HashMap<Buffer, Tensor>,
        sizes: &HashMap<Var, i64>,
    ) -> Result<RunResult, RunError> {
        self.run_inner(func, inputs, sizes, None, None)
    }

    /// [`Interpreter::run`], with `packed` answering the program's
    /// `call_packed` calls (before the built-in functions,
    /// [`crate::packed::builtin`]).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tir::{Buffer, CallArg, DataType, Interpreter, OpaqueCall, PackedArg, PackedFunctions, PrimFunc, Stmt, Tensor};
    /// struct AddOne;
    /// impl PackedFunctions for AddOne {
    ///     fn call(&mut self, name: &str, args: &mut [PackedArg]) -> Option<Result<(), String>> {
    ///         if name != "add_one" { return None; }
    ///         let [PackedArg::Array { data: x, .. }, PackedArg::Array { data: y, .. }] = args else {
    ///             return Some(Err("two arrays".into()));
    ///         };
    ///         for (o, i) in y.iter_mut().zip(x.iter()) { *o = i + 1.0; }
    ///         Some(Ok(()))
    ///     }
    ///     fn provides(&self, name: &str) -> bool { name == "add_one" }
    /// }
    /// let a = Buffer::new("A", DataType::Float32, [3i64]);
    /// let b = Buffer::new("B", DataType::Float32, [3i64]);
    /// let call = OpaqueCall::packed("add_one", vec![CallArg::Buffer(a.clone()), CallArg::Buffer(b.clone())]);
    /// let f = PrimFunc::new("f", vec![a.clone(), b.clone()], Stmt::opaque(call, true));
    /// let inputs = HashMap::from([(a, Tensor::new(vec![3], vec![1.0, 2.0, 3.0]).unwrap())]);
    /// let r = Interpreter::new().run_with_packed(&f, &inputs, &HashMap::new(), &mut AddOne).unwrap();
    /// assert_eq!(r.tensor(&b).unwrap().data(), &[2.0, 3.0, 4.0]);
    /// ```
    pub fn run_with_packed(
        &self,
        func: &PrimFunc,
        inputs: &HashMap<Buffer, Tensor>,
        sizes: &HashMap<Var, i64>,
        packed: &mut dyn crate::PackedFunctions,
    ) -> Result<RunResult, RunError> {
        self.run_inner(func, inputs, sizes, None, Some(packed))
    }

    /// [`Interpreter::run`], telling `observer` about every region and
    /// access of the buffers it watches, with the loops open at the time
    /// (what a stage computes and reads in one iteration of a loop).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use arith::Var;
    /// use tir::{AccessKind, Buffer, DataType, Interpreter, ObservedAccess, Observer, PrimFunc, Stmt, Value};
    /// // for (i, 0, 3) B[i] = 1
    /// let b = Buffer::new("B", DataType::Int32, [3i64]);
    /// let i = Var::new("i");
    /// let f = PrimFunc::new("f", vec![b.clone()],
    ///     Stmt::for_range(&i, 0, 3, Stmt::store(&b, [i.expr()], Value::i32(1))));
    /// struct Stores(Vec<(i64, Vec<i64>)>);
    /// impl Observer for Stores {
    ///     fn watches(&mut self, b: &Buffer) -> bool { b.name() == "B" }
    ///     fn access(&mut self, a: &ObservedAccess<'_>) {
    ///         assert_eq!((a.kind, a.stage), (AccessKind::Store, Some("B")));
    ///         self.0.push((a.loops[0].value, a.indices.to_vec()));
    ///     }
    /// }
    /// let mut seen = Stores(Vec::new());
    /// Interpreter::new().run_observed(&f, &HashMap::new(), &HashMap::new(), &mut seen).unwrap();
    /// assert_eq!(seen.0, [(0, vec![0]), (1, vec![1]), (2, vec![2])]);
    /// ```
    pub fn run_observed(
        &self,
        func: &PrimFunc,
        inputs: &HashMap<Buffer, Tensor>,
        sizes: &HashMap<Var, i64>,
        observer: &mut dyn Observer,
    ) -> Result<RunResult, RunError> {
        self.run_inner(func, inputs, sizes, Some(observer), None)
    }

    fn run_inner(
        &self,
        func: &PrimFunc,
        inputs: &HashMap<Buffer, Tensor>,
        sizes: &HashMap<Var, i64>,
        observer: Option<&mut dyn Observer>,
        packed: Option<&mut dyn crate::PackedFunctions>,
    ) -> Result<RunResult, RunError> {
        // Thread indices read outside their launches (but inside their
        // kernel) run in a launch of their own: the run keeps this copy.
        let kernel_wide;
        let func = match kernel::kernel_wide_threads(&func.body, sizes) {
            Some(body) => {
                kernel_wide = PrimFunc {
                    name: func.name.clone(),
                    params: func.params.clone(),
                    body,
                };
                &kernel_wide
            }
            None => func,
        };
        if let Some(limit) = self.limits.max_steps {
            if let Some(steps) = count::step_bound(&func.body, sizes) {
                if steps > limit {
                    return Err(RunError::TooManySteps { steps, limit });
                }
            }
        }
        // A packed call of a function nobody provides is refused before
        // anything runs.
        let mut missing = None;
        func.body.visit(&mut |s| {
            if let crate::Stmt::Opaque { call, .. } = s {
                let provided = call.convention == crate::CallConvention::Packed
                    && (crate::packed::BUILTINS.contains(&call.func.as_str())
                        || packed.as_ref().is_some_and(|p| p.provides(&call.func)));
                if !provided && missing.is_none() {
                    missing = Some(call.func.clone());
                }
            }
        });
        if let Some(func) = missing {
            return Err(RunError::Opaque { func });
        }
        let program = compile::compile(func, sizes)?;
        if let Some(b) = inputs.keys().find(|b| !func.params.contains(b)) {
            return Err(RunError::Input {
                buffer: b.name().to_string(),
                message: format!(
                    "not a parameter of `{}`: pass only its parameters",
                    func.name
                ),
            });
        }
        // Parameters come first in the compiled buffer table, in order.
        let mut storage = Vec::with_capacity(func.params.len());
        for info in &program.buffers[..func.params.len()] {
            storage.push(self.parameter_storage(
                &info.buffer,
                &info.shape,
                inputs.get(&info.buffer),
            )?);
        }
        let mut m = Machine::new(&program, storage, self.limits);
        if let Some(o) = observer {
            m.observe(o);
        }
        if let Some(p) = packed {
            m.with_packed(p);
        }
        m.run(&program.body)?;

        let outputs = func
            .params
            .iter()
            .zip(&m.storage)
            .zip(&program.buffers)
            .map(|((b, st), info)| {
                let shape = info.shape.iter().map(|&d| d as usize).collect();
                let tensor = Tensor::new(shape, st.data.clone())
                    .expect("parameter storage has the parameter's shape");
                let unwritten = st
                    .elements
                    .iter()
                    .filter(|e| **e == Element::Unwritten)
                    .count();
                let unwritten = unwritten as u64;
                (b.clone(), tensor, unwritten)
            })
            .collect();
        let per_stage = |counts: &[u64]| {
            program
                .stages
                .iter()
                .cloned()
                .zip(counts.iter().copied())
                .collect()
        };
        let stage_runs = per_stage(&m.stage_runs);
        let unused_stores = per_stage(&m.unused_stores);
        // A buffer with a copy per thread has a slot per copy: one entry,
        // the largest of its copies.
        let mut largest_region: Vec<(Buffer, u64)> = Vec::new();
        for (info, l) in program.buffers.iter().zip(&m.largest_region) {
            let Some(l) = *l else { continue };
            match largest_region.iter_mut().find(|(b, _)| *b == info.buffer) {
                Some((_, n)) => *n = (*n).max(l),
                None => largest_region.push((info.buffer.clone(), l)),
            }
        }
        Ok(RunResult {
            outputs,
            stage_runs,
            unused_stores,
            largest_region,
            violations: std::mem::take(&mut m.violations),
            violation_count: m.violation_count,
        })
    }

    fn parameter_storage(
        &self,
        b: &Buffer,
        shape: &[i64],
        input: Option<&Tensor>,
    ) -> Result<Storage, RunError> {
        let err = |message: String| RunError::Input {
            buffer: b.name().to_string(),
            message,
        };
        let elements = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
        match elements {
            Some(n) if n <= self.limits.max_elements => {}
            _ => {
                return Err(RunError::Allocation {
                    buffer: b.name().to_string(),
                    message: format!(
                        "shape {shape:?} exceeds the limit of {} elements",
                        self.limits.max_elements
                    ),
                    stmt: "parameter".to_string(),
                })
            }
        }
        let Some(t) = input else {
            let n = elements.unwrap_or(0) as usize;
            return Ok(Storage::whole(shape, vec![0.0; n], Element::Unwritten));
        };
        if t.shape().len() != shape.len()
            || t.shape().iter().zip(shape).any(|(&a, &b)| a as i64 != b)
        {
            return Err(err(format!(
                "the tensor has shape {:?} but the buffer has shape {shape:?}",
                t.shape()
            )));
        }
        let dtype = b.dtype();
        let data = t
            .data()
            .iter()
            .map(|&x| input_element(x, dtype))
            .collect::<Result<Vec<f64>, String>>()
            .map_err(err)?;
        Ok(Storage::whole(shape, data, Element::Settled))
    }
}

/// An input number as a buffer of type `t` holds it: integers are rounded
/// to the nearest and must fit the type, float32 is rounded to single
/// precision.
fn input_element(x: f64, t: DataType) -> Result<f64, String> {
    if t.is_float() {
        return Ok(compile::round_float(x, t));
    }
    let r = x.round();
    match t.int_range() {
        Some((lo, hi)) if r.is_finite() && r >= lo as f64 && r <= hi as f64 => Ok(r),
        _ => Err(format!("the value {x} does not fit in {t}")),
    }
}

/// What a run produced: the final contents of every parameter, execution
/// counts and wasted stores per stage, the largest region given to each realized buffer, and
/// the invalid accesses of a keep-going run.
#[derive(Clone, Debug)]
pub struct RunResult {
    outputs: Vec<(Buffer, Tensor, u64)>,
    stage_runs: BTreeMap<String, u64>,
    unused_stores: BTreeMap<String, u64>,
    largest_region: Vec<(Buffer, u64)>,
    violations: Vec<AccessViolation>,
    violation_count: u64,
}

impl RunResult {
    /// The final contents of parameter `b`.
    pub fn tensor(&self, b: &Buffer) -> Option<&Tensor> {
        self.outputs
            .iter()
            .find(|(p, ..)| p == b)
            .map(|(_, t, _)| t)
    }

    /// The final contents of the first parameter called `name`.
    pub fn tensor_named(&self, name: &str) -> Option<&Tensor> {
        self.outputs
            .iter()
            .find(|(p, ..)| p.name() == name)
            .map(|(_, t, _)| t)
    }

    /// How many elements of parameter `b` no store wrote (always 0 for an
    /// input).
    pub fn unwritten(&self, b: &Buffer) -> Option<u64> {
        self.outputs.iter().find(|(p, ..)| p == b).map(|(.., u)| *u)
    }

    /// How many times stores of `stage` ran (0 for an unknown stage).
    pub fn runs(&self, stage: &str) -> u64 {
        self.stage_runs.get(stage).copied().unwrap_or(0)
    }

    /// Store executions per stage, for every stage with a store in the
    /// program.
    pub fn stage_runs(&self) -> &BTreeMap<String, u64> {
        &self.stage_runs
    }

    /// How many stores of `stage` were wasted: their value was overwritten
    /// or its storage released before any load read it. Values left in
    /// parameters at the end count as used. `runs(stage) - unused(stage)` is
    /// the work the program needed; the rest is over-computation.
    pub fn unused(&self, stage: &str) -> u64 {
        self.unused_stores.get(stage).copied().unwrap_or(0)
    }

    /// [`RunResult::unused`] for every stage with a store in the program.
    pub fn unused_stores(&self) -> &BTreeMap<String, u64> {
        &self.unused_stores
    }

    /// The largest number of elements a `realize` or `allocate` of `b` held
    /// at once, if `b` was realized or allocated.
    pub fn largest_region(&self, b: &Buffer) -> Option<u64> {
        self.largest_region
            .iter()
            .find(|(p, _)| p == b)
            .map(|(_, n)| *n)
    }

    /// Every buffer given storage with the largest region it had, in
    /// order of first storage.
    pub fn largest_regions(&self) -> &[(Buffer, u64)] {
        &self.largest_region
    }

    /// As [`RunResult::largest_region`], for the first buffer called `name`.
    pub fn largest_region_named(&self, name: &str) -> Option<u64> {
        self.largest_region
            .iter()
            .find(|(p, _)| p.name() == name)
            .map(|(_, n)| *n)
    }

    /// The first invalid accesses of a keep-going run, in order.
    pub fn violations(&self) -> &[AccessViolation] {
        &self.violations
    }

    /// How many invalid accesses a keep-going run made.
    pub fn violation_count(&self) -> u64 {
        self.violation_count
    }
}
