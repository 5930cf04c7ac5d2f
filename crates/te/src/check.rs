//! Checking a schedule by running it: the lowered program on random inputs
//! against direct evaluation of the definitions, with every access checked
//! and every stage's executions counted.

use crate::error::{Result, TeError};
use crate::lower::lower;
use crate::operation::{OpId, OpKind, Tensor};
use crate::reference::Reference;
use crate::rng::XorShift;
use crate::schedule::Schedule;
use arith::Var;
use std::collections::HashMap;

/// What running a lowered schedule showed, per stage.
#[derive(Clone, Debug, PartialEq)]
pub struct StageCheck {
    /// The stage's name.
    pub name: String,
    /// How often the stage's store ran (the update, for reductions).
    pub runs: u64,
    /// How many distinct elements of the tensor the outputs need.
    pub needed: u64,
    /// The most elements its storage held at once (`None` for arguments
    /// and inlined stages).
    pub largest_region: Option<u64>,
}

/// The outcome of [`check`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// The largest absolute difference between an output element of the
    /// program and of the definitions.
    pub max_abs_error: f64,
    /// The largest difference relative to the size of the expected value,
    /// `|want - have| / max(1, |want|)`: rounding in a long `float32`
    /// reduction grows with the sum, so this is what tolerances compare.
    pub max_rel_error: f64,
    /// How many output elements were compared.
    pub compared: u64,
    /// How many accesses left their buffer or region or read an unwritten
    /// element.
    pub out_of_bounds: u64,
    /// The first invalid accesses, described.
    pub violations: Vec<String>,
    /// Per computed stage, in schedule order.
    pub stages: Vec<StageCheck>,
    /// The stages whose values cannot be computed, each with the function
    /// it calls (extern operations calling a library): when there are any,
    /// the program is lowered but not run, and no value is compared.
    pub not_evaluable: Vec<(String, String)>,
}

impl CheckReport {
    /// No invalid access and outputs equal to the definitions within
    /// `tolerance`, relative to the size of each expected value (see
    /// [`CheckReport::max_rel_error`]).
    pub fn is_clean(&self, tolerance: f64) -> bool {
        self.out_of_bounds == 0 && self.max_rel_error <= tolerance
    }

    /// The check of the stage called `name`.
    pub fn stage(&self, name: &str) -> Option<&StageCheck> {
        self.stages.iter().find(|s| s.name == name)
    }
}

/// How many loop iterations and stores a check may run unless told
/// otherwise ([`RunLimits::max_steps`]).
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

/// The limits of the run a check makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// The most steps (loop iterations and stores); a program whose loops
    /// take more is refused before it runs, with the count.
    pub max_steps: u64,
    /// Called every [`tir::INTERRUPT_INTERVAL`] steps; `true` stops the run.
    pub interrupt: Option<tir::Interrupt>,
}

impl Default for RunLimits {
    fn default() -> RunLimits {
        RunLimits {
            max_steps: DEFAULT_MAX_STEPS,
            interrupt: None,
        }
    }
}

/// The most elements any one tensor of a checked program may have (the
/// interpreter's limit for every buffer): larger programs are analysed but
/// not run.
pub const RUN_ELEMENT_LIMIT: u64 = 1 << 24;

/// Lowers `s` with `args` as parameters, runs it on inputs drawn from
/// `seed`, and compares every element of the computed arguments with the
/// definitions. `sizes` gives every symbolic size a value.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([20], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([20], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let c = te::compute_named([20], &["j"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
/// let mut s = te::create_schedule(&[c.clone()]);
/// let (jo, _) = s.split(&c, &c.op().axis()[0], 16).unwrap();
/// s.compute_at(&b, &c, &jo).unwrap();
/// let r = te::check(&s, &[a, c], &Default::default(), 1).unwrap();
/// assert!(r.is_clean(0.0));
/// assert_eq!(r.stage("B").unwrap().runs, 20); // not 32: the tail runs 4
/// ```
pub fn check(
    s: &Schedule,
    args: &[Tensor],
    sizes: &HashMap<Var, i64>,
    seed: u64,
) -> Result<CheckReport> {
    check_limited(s, args, sizes, seed, &RunLimits::default())
}

/// [`check`] within `limits`.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([1 << 20], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([1 << 20], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let s = te::create_schedule(&[b.clone()]);
/// let limits = te::RunLimits { max_steps: 1000, ..Default::default() };
/// let e = te::check_limited(&s, &[a, b], &Default::default(), 0, &limits).unwrap_err();
/// assert!(e.message.contains("takes up to 2097152 steps"), "{}", e.message);
/// ```
pub fn check_limited(
    s: &Schedule,
    args: &[Tensor],
    sizes: &HashMap<Var, i64>,
    seed: u64,
    limits: &RunLimits,
) -> Result<CheckReport> {
    let func = lower(s, args)?;
    let not_evaluable: Vec<(String, String)> = s
        .stages()
        .iter()
        .filter_map(|st| {
            let call = crate::extern_op::extern_of(st.op())?.opaque_call()?;
            Some((st.name().to_string(), call))
        })
        .collect();
    if !not_evaluable.is_empty() {
        return Ok(CheckReport {
            max_abs_error: 0.0,
            max_rel_error: 0.0,
            compared: 0,
            out_of_bounds: 0,
            violations: Vec::new(),
            stages: s
                .stages()
                .iter()
                .filter(|st| !st.is_placeholder())
                .map(|st| StageCheck {
                    name: st.name().to_string(),
                    runs: 0,
                    needed: 0,
                    largest_region: None,
                })
                .collect(),
            not_evaluable,
        });
    }
    let (inputs_by_op, inputs) = run_inputs(s, args, &func.params, sizes, seed)?;
    let params = float_param_values(&func, seed);
    let func = bind_float_params(&func, &params)?;
    let mut interpreter = tir::Interpreter::new()
        .keep_going(true)
        .max_steps(limits.max_steps)
        .max_elements(RUN_ELEMENT_LIMIT)
        .max_reported(8);
    if let Some(hook) = limits.interrupt {
        interpreter = interpreter.interrupt(hook);
    }
    let run = interpreter.run(&func, &inputs, sizes).map_err(|e| {
        let hint = match e {
            tir::RunError::StepLimit { .. } | tir::RunError::TooManySteps { .. } => {
                " (the limit is `--max-steps` on the command line, `max_steps=` in Python)"
            }
            _ => "",
        };
        TeError::lowering(format!("running the lowered program failed: {e}{hint}"))
    })?;
    let mut reference = Reference::new(&inputs_by_op, sizes).with_params(&params);
    let mut max_abs_error: f64 = 0.0;
    let mut max_rel_error: f64 = 0.0;
    let mut compared = 0;
    for (t, buf) in args.iter().zip(&func.params) {
        if matches!(t.op().kind(), OpKind::Placeholder) {
            continue;
        }
        let got = run.tensor(buf).expect("parameters have results");
        let shape = reference.tensor_shape(t)?;
        let layout = crate::layout::concrete(s, t, &shape, sizes)?;
        let total: i64 = shape.iter().product();
        let mut idx = vec![0i64; shape.len()];
        for _ in 0..total.max(0) {
            let want = reference.element_of(t, &idx)?;
            let have = crate::layout::position(layout.as_ref(), &idx)
                .and_then(|at| got.get(&at))
                .unwrap_or(f64::NAN);
            // Equal infinities (an empty `max` reduction is `-inf`) and two
            // NaNs agree; `-inf - -inf` would be NaN.
            let err = if want == have || (want.is_nan() && have.is_nan()) {
                0.0
            } else {
                (want - have).abs()
            };
            if err.is_nan() {
                max_abs_error = f64::INFINITY;
                max_rel_error = f64::INFINITY;
            } else {
                max_abs_error = max_abs_error.max(err);
                max_rel_error = max_rel_error.max(err / want.abs().max(1.0));
            }
            compared += 1;
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
    // By name once, not searched per stage: linear in long pipelines.
    let mut largest: HashMap<&str, u64> = HashMap::new();
    for (b, n) in run.largest_regions() {
        largest.entry(b.name()).or_insert(*n);
    }
    let stages = s
        .stages()
        .iter()
        .filter(|st| !st.is_placeholder())
        .map(|st| StageCheck {
            name: st.name().to_string(),
            runs: run.runs(st.name()),
            needed: reference.needed(st.op()),
            largest_region: largest.get(st.name()).copied(),
        })
        .collect();
    Ok(CheckReport {
        max_abs_error,
        max_rel_error,
        compared,
        out_of_bounds: run.violation_count(),
        violations: run.violations().iter().map(|v| v.to_string()).collect(),
        stages,
        not_evaluable: Vec::new(),
    })
}

/// A value drawn from `seed` for each scalar float parameter of `func`,
/// in `[-2, 2)`: the same for the program and the definitions.
pub(crate) fn float_param_values(func: &tir::PrimFunc, seed: u64) -> HashMap<Var, f64> {
    let mut rng = XorShift::new(seed ^ 0x005c_a1a4_9a4a);
    func.float_params()
        .into_iter()
        .map(|(v, t)| (v, t.round(rng.uniform(-2.0, 2.0))))
        .collect()
}

/// `func` with its scalar float parameters replaced by `values`.
pub(crate) fn bind_float_params<'f>(
    func: &'f tir::PrimFunc,
    values: &HashMap<Var, f64>,
) -> Result<std::borrow::Cow<'f, tir::PrimFunc>> {
    func.bind_float_params(values).map_err(|v| {
        TeError::lowering(format!(
            "the scalar parameter `{v}` has no value for the run"
        ))
    })
}

/// Runs the block form of the program that computes `args`
/// ([`crate::create_prim_func`]) on the inputs [`check`] draws with `seed`,
/// and returns the largest difference of its outputs from the
/// definitions: the oracle of the block form, as [`check`] is of a
/// schedule's lowering. `s` is the schedule the inputs are drawn for (its
/// index inputs keep to the ranges its reads need).
pub fn check_block_form(
    s: &Schedule,
    args: &[Tensor],
    sizes: &HashMap<Var, i64>,
    seed: u64,
) -> Result<f64> {
    let program = tir::block::to_loop_ir(&crate::create_prim_func(args)?);
    let (inputs_by_op, _) = run_inputs(s, args, &program.params, sizes, seed)?;
    let params = float_param_values(&program, seed);
    let program = bind_float_params(&program, &params)?;
    // The same values in their logical layout: the block form has no
    // schedule, so no layout transform.
    let inputs: HashMap<tir::Buffer, tir::Tensor> = args
        .iter()
        .zip(&program.params)
        .filter_map(|(t, b)| Some((b.clone(), inputs_by_op.get(&t.op().id())?.clone())))
        .collect();
    let run = tir::Interpreter::new()
        .max_steps(DEFAULT_MAX_STEPS)
        .max_elements(RUN_ELEMENT_LIMIT)
        .run(&program, &inputs, sizes)
        .map_err(|e| TeError::lowering(format!("running the block form failed: {e}")))?;
    let mut reference = Reference::new(&inputs_by_op, sizes).with_params(&params);
    let mut worst: f64 = 0.0;
    for (t, buf) in args.iter().zip(&program.params) {
        if matches!(t.op().kind(), OpKind::Placeholder) {
            continue;
        }
        let got = run.tensor(buf).expect("parameters have results");
        let shape = reference.tensor_shape(t)?;
        let mut idx = vec![0i64; shape.len()];
        for have in got.data() {
            let want = reference.element_of(t, &idx)?;
            if !(want == *have || (want.is_nan() && have.is_nan())) {
                let err = (want - have).abs();
                worst = if err.is_nan() {
                    f64::INFINITY
                } else {
                    worst.max(err)
                };
            }
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
    Ok(worst)
}

/// The inputs of a run of `s` with `args` as the parameters `params` of its
/// lowered program: random values from `seed` for every placeholder, by
/// operation (logical, for the definitions) and by buffer (in the tensor's
/// physical layout, for the program).
#[allow(clippy::type_complexity)]
pub(crate) fn run_inputs(
    s: &Schedule,
    args: &[Tensor],
    params: &[tir::Buffer],
    sizes: &HashMap<Var, i64>,
    seed: u64,
) -> Result<(
    HashMap<OpId, tir::Tensor>,
    HashMap<tir::Buffer, tir::Tensor>,
)> {
    let mut rng = XorShift::new(seed);
    let empty = HashMap::new();
    let shapes_ref = Reference::new(&empty, sizes);
    let index_bounds = index_input_bounds(s, &shapes_ref);
    let mut inputs_by_op: HashMap<OpId, tir::Tensor> = HashMap::new();
    let mut inputs = HashMap::new();
    for (t, buf) in args.iter().zip(params) {
        // A hybrid script's output passed in starts as zeros, as its
        // `output_tensor` does when the script runs as Python and as the
        // reference runs it: a script that accumulates into its output
        // reads what the caller's array holds.
        if crate::extern_op::extern_of(t.op()).is_some_and(|e| e.hybrid) {
            let shape: Vec<usize> = shapes_ref
                .tensor_shape(t)?
                .iter()
                .map(|&d| d.max(0) as usize)
                .collect();
            let n = shape.iter().product();
            if n as u64 <= RUN_ELEMENT_LIMIT {
                let zeros = tir::Tensor::new(shape, vec![0.0; n])
                    .map_err(|m| TeError::lowering(format!("output `{}`: {m:?}", t.name())))?;
                inputs.insert(buf.clone(), zeros);
            }
            continue;
        }
        if !matches!(t.op().kind(), OpKind::Placeholder) {
            continue;
        }
        let shape: Vec<usize> = shapes_ref
            .shape(t.op())?
            .iter()
            .map(|&d| d.max(0) as usize)
            .collect();
        let elements = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
            .filter(|&n| n <= RUN_ELEMENT_LIMIT);
        if elements.is_none() {
            return Err(TeError::lowering(format!(
                "cannot run the program: input `{}` of shape {shape:?} has more than {} elements, \
                 the limit for running; its bounds are still inferred without running",
                t.name(),
                RUN_ELEMENT_LIMIT
            )));
        }
        let dtype = t.dtype();
        let index_bound = index_bounds.get(&t.op().id()).copied();
        let data = tir::Tensor::from_fn(&shape, |_| {
            if matches!(dtype, tir::DataType::Float32 | tir::DataType::Float16) {
                // Exactly representable, so both sides start from the same values.
                dtype.round(rng.uniform(-1.0, 1.0))
            } else if dtype.is_float() {
                rng.uniform(-1.0, 1.0)
            } else if let Some(n) = index_bound {
                // Index data: in range, as real index data is.
                rng.int_in(0, n - 1) as f64
            } else {
                // Small values, within the type's range (unsigned and
                // boolean inputs are never negative).
                let (lo, hi) = dtype.int_range().unwrap_or((-8, 8));
                rng.int_in(lo.max(-8), hi.min(8)) as f64
            }
        });
        inputs_by_op.insert(t.op().id(), data.clone());
        let logical: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let layout = crate::layout::concrete(s, t, &logical, sizes)?;
        inputs.insert(
            buf.clone(),
            crate::layout::physical_data(layout.as_ref(), data)?,
        );
    }
    Ok((inputs_by_op, inputs))
}

/// For each integer input read directly as an index of a data-dependent
/// read (`B[I[j]]`), the number of values that index may take (the
/// smallest such axis), so that random index data stays in range as real
/// index data does. Other reads at data-dependent indices still get
/// arbitrary values, and a read out of range is reported.
fn index_input_bounds(s: &Schedule, shapes: &Reference<'_>) -> HashMap<OpId, i64> {
    let mut bounds: HashMap<OpId, i64> = HashMap::new();
    let mut pending: Vec<crate::value::Value> = s
        .stages()
        .iter()
        .flat_map(|st| st.op().bodies().into_iter().cloned())
        .collect();
    while let Some(v) = pending.pop() {
        if let crate::value::ValueKind::Gather(t, idx) = v.kind() {
            let extents = shapes.shape(t.op()).unwrap_or_default();
            for (d, x) in idx.iter().enumerate() {
                let crate::value::ValueKind::Load(p, _) = x.kind() else {
                    continue;
                };
                let (Some(&n), true) = (extents.get(d), p.op().as_compute().is_none()) else {
                    continue;
                };
                if n > 0 && p.dtype().is_int() {
                    let b = bounds.entry(p.op().id()).or_insert(n);
                    *b = (*b).min(n);
                }
            }
        }
        v.for_each_operand(|x| pending.push(x.clone()));
    }
    for st in s.stages() {
        if let Some(e) = crate::extern_op::extern_of(st.op()) {
            extern_index_input_bounds(e, &mut bounds);
        }
    }
    bounds
}

/// [`index_input_bounds`] inside an extern or hybrid body: an integer
/// input loaded in the value of a data-dependent index (`let target =
/// idx[k]` around `out[target] = ...`, or the `Let` of a load at a
/// loaded index) may take as many values as the smallest axis that index
/// addresses.
/// A callback given every access: its buffer and indices.
type AccessVisitor<'v> = dyn FnMut(&tir::Buffer, &[arith::Expr]) + 'v;

fn extern_index_input_bounds(e: &crate::extern_op::ExternOp, bounds: &mut HashMap<OpId, i64>) {
    let inputs: HashMap<tir::BufferId, OpId> = e
        .inputs
        .iter()
        .zip(&e.input_buffers)
        .filter(|(t, _)| matches!(t.op().kind(), OpKind::Placeholder) && t.dtype().is_int())
        .map(|(t, b)| (b.id(), t.op().id()))
        .collect();
    if inputs.is_empty() {
        return;
    }
    // The smallest constant extent among the axes `var` indexes.
    let smallest_axis = |var: &Var, accesses: &mut dyn FnMut(&mut AccessVisitor<'_>)| {
        let mut n: Option<i64> = None;
        accesses(&mut |buffer, indices| {
            for (d, i) in indices.iter().enumerate() {
                if let (true, Some(extent)) = (
                    i.uses_var(var),
                    buffer.shape().get(d).and_then(arith::Expr::as_int),
                ) {
                    n = Some(n.map_or(extent, |m| m.min(extent)));
                }
            }
        });
        n
    };
    let mut note = |value: &tir::Value, n: Option<i64>| {
        let Some(n) = n.filter(|&n| n > 0) else {
            return;
        };
        value.for_each_load(&mut |l| {
            if let Some(&op) = inputs.get(&l.buffer.id()) {
                let b = bounds.entry(op).or_insert(n);
                *b = (*b).min(n);
            }
        });
    };
    // Value-level lets, in every value of the body.
    let mut values: Vec<tir::Value> = Vec::new();
    e.body.visit(&mut |st| match st {
        tir::Stmt::BufferStore { value, .. } | tir::Stmt::Evaluate(value) => {
            values.push(value.clone())
        }
        tir::Stmt::IfThenElse { cond, .. } => values.push(cond.clone()),
        tir::Stmt::LetValue { value, .. } => values.push(value.clone()),
        _ => {}
    });
    while let Some(v) = values.pop() {
        if let tir::Value::Let(var, value, body) = &v {
            let n = smallest_axis(var, &mut |f| {
                body.for_each_load(&mut |l| f(&l.buffer, &l.indices))
            });
            note(value, n);
        }
        v.for_each_child(&mut |c| values.push(c.clone()));
    }
    // Statement-level lets: the index of a store or load in their body.
    e.body.visit(&mut |st| {
        if let tir::Stmt::LetValue { var, value, body } = st {
            let n = smallest_axis(var, &mut |f| {
                body.visit(&mut |inner| {
                    if let tir::Stmt::BufferStore {
                        buffer, indices, ..
                    } = inner
                    {
                        f(buffer, indices);
                    }
                });
                body.for_each_load(&mut |l| f(&l.buffer, &l.indices));
            });
            note(value, n);
        }
    });
}
