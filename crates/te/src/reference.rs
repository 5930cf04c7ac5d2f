//! Direct evaluation of compute definitions: the oracle lowered programs
//! are checked against.
//!
//! Evaluation is on demand and memoised, so the number of memoised
//! elements of a tensor is the number of its elements the outputs actually
//! need, which measures over-computation of a schedule.

use crate::comm_reducer::CommReduce;
use crate::error::{Result, TeError};
use crate::extern_op::ExternOp;
use crate::operation::{OpId, OpKind, Operation, Tensor};
use crate::scan::ScanOp;
use crate::value::{Value, ValueKind};
use arith::{IdMap, Var};
use smallvec::SmallVec;
use std::collections::HashMap;
use tir::DataType;

/// The values of the variables while one element is evaluated: its axes
/// and reduction axes, searched latest first (an element binds a handful),
/// then the program's sizes. Kept on the stack, so evaluating an element
/// allocates nothing for its variables.
struct Env<'s> {
    bound: SmallVec<[(u64, i64); 12]>,
    sizes: &'s HashMap<Var, i64>,
}

impl<'s> Env<'s> {
    fn new(sizes: &'s HashMap<Var, i64>) -> Env<'s> {
        Env {
            bound: SmallVec::new(),
            sizes,
        }
    }

    fn set(&mut self, v: &Var, x: i64) {
        let id = v.id();
        match self.bound.iter_mut().rev().find(|(k, _)| *k == id) {
            Some(slot) => slot.1 = x,
            None => self.bound.push((id, x)),
        }
    }

    fn get(&self, v: &Var) -> Option<i64> {
        let id = v.id();
        match self.bound.iter().rev().find(|(k, _)| *k == id) {
            Some((_, x)) => Some(*x),
            None => self.sizes.get(v).copied(),
        }
    }
}

/// The elements of one operation evaluated so far. A tensor of up to
/// [`DENSE_ELEMENTS`] elements keeps them in an array by row-major
/// position (9 bytes an element, allocated at its first element); a
/// larger one in a map by index, which costs memory only for the elements
/// a run needs.
enum Memo {
    Dense {
        shape: Vec<i64>,
        values: Vec<f64>,
        known: Vec<bool>,
        count: u64,
    },
    Sparse(HashMap<Vec<i64>, f64>),
}

/// The largest tensor whose evaluated elements are kept in an array.
const DENSE_ELEMENTS: i64 = 1 << 22;

impl Memo {
    fn for_shape(shape: &[i64]) -> Memo {
        let total = shape
            .iter()
            .try_fold(1i64, |n, &d| n.checked_mul(d.max(0)))
            .filter(|&n| n <= DENSE_ELEMENTS);
        match total {
            Some(n) => Memo::Dense {
                shape: shape.to_vec(),
                values: vec![0.0; n as usize],
                known: vec![false; n as usize],
                count: 0,
            },
            None => Memo::Sparse(HashMap::new()),
        }
    }

    /// The row-major position of `idx`, inside the shape.
    fn position(shape: &[i64], idx: &[i64]) -> Option<usize> {
        if idx.len() != shape.len() {
            return None;
        }
        let mut at: i64 = 0;
        for (&i, &n) in idx.iter().zip(shape) {
            if i < 0 || i >= n {
                return None;
            }
            at = at * n + i;
        }
        Some(at as usize)
    }

    fn get(&self, idx: &[i64]) -> Option<f64> {
        match self {
            Memo::Dense {
                shape,
                values,
                known,
                ..
            } => Memo::position(shape, idx).and_then(|p| known[p].then(|| values[p])),
            Memo::Sparse(m) => m.get(idx).copied(),
        }
    }

    fn insert(&mut self, idx: &[i64], v: f64) {
        match self {
            Memo::Dense {
                shape,
                values,
                known,
                count,
            } => {
                if let Some(p) = Memo::position(shape, idx) {
                    if !known[p] {
                        known[p] = true;
                        *count += 1;
                    }
                    values[p] = v;
                }
            }
            Memo::Sparse(m) => {
                m.insert(idx.to_vec(), v);
            }
        }
    }

    fn len(&self) -> u64 {
        match self {
            Memo::Dense { count, .. } => *count,
            Memo::Sparse(m) => m.len() as u64,
        }
    }

    fn keys(&self) -> Vec<Vec<i64>> {
        match self {
            Memo::Dense { shape, known, .. } => known
                .iter()
                .enumerate()
                .filter(|(_, k)| **k)
                .map(|(p, _)| {
                    let mut rest = p as i64;
                    let mut idx = vec![0; shape.len()];
                    for d in (0..shape.len()).rev() {
                        idx[d] = rest % shape[d];
                        rest /= shape[d];
                    }
                    idx
                })
                .collect(),
            Memo::Sparse(m) => m.keys().cloned().collect(),
        }
    }
}

/// Evaluates tensors element by element from their definitions.
pub struct Reference<'a> {
    inputs: &'a HashMap<OpId, tir::Tensor>,
    sizes: &'a HashMap<Var, i64>,
    /// Values of the scalar float parameters, when the definitions have any.
    params: Option<&'a HashMap<Var, f64>>,
    memo: IdMap<OpId, Memo>,
    /// The concrete shape of each operation met, evaluated once.
    shapes: IdMap<OpId, Vec<i64>>,
    /// How deeply `value` is nested, to check the stack every few levels.
    depth: u32,
    /// State placeholders of scans, read as their scan's output.
    aliases: HashMap<OpId, Tensor>,
    /// The scan elements being evaluated: a step that reads its own row
    /// (or a later one that reads back) would never finish.
    pending: std::collections::HashSet<(OpId, Vec<i64>)>,
    /// The elements of operations with several outputs, all outputs of a
    /// point at once (a tuple reduction computes them together).
    memo_outputs: HashMap<OpId, HashMap<Vec<i64>, Vec<f64>>>,
    /// The values of the operands of a reducer's combiner while it is
    /// evaluated, by the operand's placeholder.
    operands: HashMap<OpId, f64>,
    /// The outputs of each extern or hybrid operation, run once.
    extern_runs: HashMap<OpId, Vec<tir::Tensor>>,
    /// The elements of scans with several states, by scan and state.
    scan_memo: HashMap<(OpId, usize), HashMap<Vec<i64>, f64>>,
    /// While an element of a tensor compute operation is evaluated: the
    /// regions its call passes (tensor, `[min, end)` per dimension), which
    /// its intrinsic's reads must stay in.
    call_regions: Option<CallRegions>,
}

/// The regions one call of a tensor intrinsic passes, at one point.
struct CallRegions {
    /// The operation calling.
    op: String,
    /// The intrinsic.
    intrin: String,
    /// Each tensor passed and its region, `[min, end)` per dimension.
    regions: Vec<(Tensor, Vec<(i64, i64)>)>,
}

impl CallRegions {
    /// Errors when the read of `t` at `at` is in none of the regions of
    /// `t` the call passes.
    fn check(&self, t: &Tensor, at: &[i64]) -> Result<()> {
        let mut passed = self.regions.iter().filter(|(x, _)| x == t).peekable();
        if passed.peek().is_none() {
            return Ok(());
        }
        let inside =
            |b: &Vec<(i64, i64)>| b.iter().zip(at).all(|(&(lo, hi), &i)| lo <= i && i < hi);
        if passed.clone().any(|(_, b)| inside(b)) {
            return Ok(());
        }
        let text = |b: &Vec<(i64, i64)>| {
            let dims: Vec<String> = b.iter().map(|(lo, hi)| format!("{lo}:{hi}")).collect();
            format!("{}[{}]", t.name(), dims.join(", "))
        };
        let given: Vec<String> = passed.map(|(_, b)| text(b)).collect();
        Err(TeError::definition(format!(
            "`{}` calls the intrinsic `{}` with {}, but the intrinsic's compute reads `{}` at \
             {at:?}, outside it: the intrinsic reads beyond the buffer bound to that region",
            self.op,
            self.intrin,
            given.join(" and "),
            t.name()
        )))
    }
}

/// Rounds to the precision of `dtype`, as the interpreter stores values.
fn round(x: f64, dtype: DataType) -> f64 {
    dtype.round(x)
}

/// The result of integer arithmetic in `dtype`: modulo the type's width
/// where TVM's generated code wraps ([`DataType::wraps`]); elsewhere the
/// exact value (an overflow there is the lowered program's error).
fn wrap(x: f64, dtype: DataType) -> f64 {
    if dtype.wraps() {
        dtype.wrap_integral(x)
    } else {
        x
    }
}

impl<'a> Reference<'a> {
    /// An evaluator over the given input tensors (by placeholder) and sizes.
    pub fn new(
        inputs: &'a HashMap<OpId, tir::Tensor>,
        sizes: &'a HashMap<Var, i64>,
    ) -> Reference<'a> {
        Reference {
            inputs,
            sizes,
            params: None,
            memo: IdMap::default(),
            shapes: IdMap::default(),
            depth: 0,
            aliases: HashMap::new(),
            pending: Default::default(),
            memo_outputs: HashMap::new(),
            operands: HashMap::new(),
            extern_runs: HashMap::new(),
            scan_memo: HashMap::new(),
            call_regions: None,
        }
    }

    /// The values of the scalar float parameters the definitions read
    /// ([`crate::ValueKind::Param`]).
    pub fn with_params(mut self, params: &'a HashMap<Var, f64>) -> Reference<'a> {
        self.params = Some(params);
        self
    }

    /// How many distinct elements of `op` were needed so far.
    pub fn needed(&self, op: &Operation) -> u64 {
        let multi = self
            .memo_outputs
            .get(&op.id())
            .map_or(0, |m| m.len() as u64)
            .max(
                self.scan_memo
                    .get(&(op.id(), 0))
                    .map_or(0, |m| m.len() as u64),
            )
            // An extern operation's outputs are computed whole.
            .max(self.extern_runs.get(&op.id()).map_or(0, |outs| {
                outs.iter()
                    .map(|t| t.shape().iter().product::<usize>() as u64)
                    .sum()
            }));
        self.memo.get(&op.id()).map_or(multi, Memo::len)
    }

    /// The distinct elements of `op` needed so far, in no order.
    pub fn needed_elements(&self, op: &Operation) -> Vec<Vec<i64>> {
        match self.memo.get(&op.id()) {
            Some(m) => m.keys(),
            None => match self.extern_runs.get(&op.id()) {
                // An extern operation computes its (first) output whole.
                Some(outs) => {
                    let dims: Vec<i64> = outs[0].shape().iter().map(|&d| d as i64).collect();
                    let mut all = Vec::new();
                    let mut at = vec![0i64; dims.len()];
                    for _ in 0..dims.iter().product::<i64>() {
                        all.push(at.clone());
                        for k in (0..at.len()).rev() {
                            at[k] += 1;
                            if at[k] < dims[k] {
                                break;
                            }
                            at[k] = 0;
                        }
                    }
                    all
                }
                None => self
                    .memo_outputs
                    .get(&op.id())
                    .map_or_else(Vec::new, |m| m.keys().cloned().collect()),
            },
        }
    }

    /// The element of tensor `t` (any output of its operation) at `idx`.
    pub fn element_of(&mut self, t: &Tensor, idx: &[i64]) -> Result<f64> {
        if t.op().num_outputs() == 1 {
            return self.element(t.op(), idx);
        }
        if let OpKind::Extern(e) = t.op().kind() {
            return self.extern_output_element(t, e, idx);
        }
        if let OpKind::Scan(scan) = t.op().kind() {
            // Each state has its own shape.
            let shape = self.tensor_shape(t)?;
            if idx.len() != shape.len() || idx.iter().zip(&shape).any(|(&i, &n)| i < 0 || i >= n) {
                return Err(TeError::definition(format!(
                    "the definitions read `{}` at {idx:?}, outside its shape {shape:?}",
                    t.name()
                )));
            }
            return self.scan_element(t, scan, idx);
        }
        self.check_in_shape(t.op(), idx)?;
        let op = t.op();
        if let Some(v) = self.memo_outputs.get(&op.id()).and_then(|m| m.get(idx)) {
            return Ok(v[t.value_index()]);
        }
        let c = op.as_compute().expect("only computes have several outputs");
        let mut env = Env::new(self.sizes);
        for (a, &i) in c.axis.iter().zip(idx) {
            env.set(a.var(), i);
        }
        let values = match c.body.kind() {
            // One reduction gives every output.
            ValueKind::CommReduce(r) => self.comm_reduce(&r.clone(), &mut env)?,
            _ => {
                let bodies: Vec<Value> = op.bodies().into_iter().cloned().collect();
                let mut values = Vec::with_capacity(bodies.len());
                for (k, body) in bodies.iter().enumerate() {
                    let dtype = op.output_dtype(k).expect("one type per output");
                    values.push(round(self.value(body, &mut env)?, dtype));
                }
                values
            }
        };
        let v = values[t.value_index()];
        self.memo_outputs
            .entry(op.id())
            .or_default()
            .insert(idx.to_vec(), values);
        Ok(v)
    }

    /// An error unless `idx` is inside the shape of `op` (evaluated once
    /// per operation).
    fn check_in_shape(&mut self, op: &Operation, idx: &[i64]) -> Result<()> {
        let shape = match self.shapes.get(&op.id()) {
            Some(shape) => shape,
            None => {
                let shape = self.shape(op)?;
                self.shapes.entry(op.id()).or_insert(shape)
            }
        };
        if idx.len() != shape.len() || idx.iter().zip(shape).any(|(&i, &n)| i < 0 || i >= n) {
            return Err(TeError::definition(format!(
                "the definitions read `{}` at {idx:?}, outside its shape {shape:?}",
                op.name()
            )));
        }
        Ok(())
    }

    /// Every value of the reduction `r` at the point `env`: the combiner
    /// folds the tuple of sources of each point of the axes into the
    /// accumulated tuple, all positions at once.
    fn comm_reduce(&mut self, r: &CommReduce, env: &mut Env<'_>) -> Result<Vec<f64>> {
        let combiner = r.combiner().clone();
        let dtypes = combiner.dtypes();
        let mut acc = Vec::with_capacity(dtypes.len());
        for (v, &t) in combiner.identity().iter().zip(&dtypes) {
            acc.push(round(self.value(v, env)?, t));
        }
        let mut ranges = Vec::with_capacity(r.axes().len());
        for a in r.axes() {
            let d = a.dom().expect("reduction axes have domains");
            ranges.push((self.index(&d.min, env)?, self.index(&d.extent, env)?));
        }
        if ranges.iter().any(|r| r.1 <= 0) {
            return Ok(acc);
        }
        let mut point: Vec<i64> = ranges.iter().map(|r| r.0).collect();
        loop {
            for (a, &x) in r.axes().iter().zip(&point) {
                env.set(a.var(), x);
            }
            let take = match r.condition() {
                Some(c) => self.index(c, env)? != 0,
                None => true,
            };
            if take {
                let mut new = Vec::with_capacity(acc.len());
                for (s, &t) in r.sources().iter().zip(&dtypes) {
                    new.push(round(self.value(s, env)?, t));
                }
                for (t, &x) in combiner.lhs().iter().zip(&acc) {
                    self.operands.insert(t.op().id(), x);
                }
                for (t, &x) in combiner.rhs().iter().zip(&new) {
                    self.operands.insert(t.op().id(), x);
                }
                let mut next = Vec::with_capacity(acc.len());
                for (v, &t) in combiner.result().iter().zip(&dtypes) {
                    next.push(round(self.value(v, env)?, t));
                }
                for t in combiner.lhs().iter().chain(combiner.rhs()) {
                    self.operands.remove(&t.op().id());
                }
                acc = next;
            }
            // Next point, last axis fastest.
            let mut k = point.len();
            loop {
                if k == 0 {
                    return Ok(acc);
                }
                k -= 1;
                point[k] += 1;
                if point[k] < ranges[k].0 + ranges[k].1 {
                    break;
                }
                point[k] = ranges[k].0;
            }
        }
    }

    /// The element of `op` at `idx`.
    pub fn element(&mut self, op: &Operation, idx: &[i64]) -> Result<f64> {
        if let Some(scan) = self.aliases.get(&op.id()).cloned() {
            return self.element_of(&scan, idx);
        }
        if op.num_outputs() > 1 {
            return self.element_of(&op.output(), idx);
        }
        self.check_in_shape(op, idx)?;
        match op.kind() {
            OpKind::Scan(scan) => return self.scan_element(&op.output(), scan, idx),
            OpKind::Extern(e) => return self.extern_output_element(&op.output(), e, idx),
            _ => {}
        }
        if let Some(tc) = crate::tensor_compute_of(op) {
            // The intrinsic's computation, moved to the regions passed.
            if let Some(v) = self.recalled(op, idx) {
                return Ok(v);
            }
            let mut env = Env::new(self.sizes);
            for (a, &i) in tc.axis.iter().zip(idx) {
                env.set(a.var(), i);
            }
            // The regions at this point; reads outside them are the
            // intrinsic reading beyond the buffers bound to it. (With a
            // reduction outside the calls, the regions move with it: they
            // are checked at its whole range.)
            let mut regions = Vec::new();
            if tc.reduce_axis.is_empty() {
                for (t, region) in tc.inputs.iter().zip(&tc.regions) {
                    let mut box_ = Vec::with_capacity(region.len());
                    for r in region {
                        let min = self.index(&r.min, &env)?;
                        box_.push((min, min + self.index(&r.extent, &env)?));
                    }
                    regions.push((t.clone(), box_));
                }
            }
            let outer = self.call_regions.replace(CallRegions {
                op: op.name().to_string(),
                intrin: tc.intrin.name().to_string(),
                regions,
            });
            let body = tc.equivalent[0].clone();
            let v = self.value(&body, &mut env);
            self.call_regions = outer;
            let v = round(v?, op.dtype());
            self.remember(op, idx, v);
            return Ok(v);
        }
        let Some(c) = op.as_compute() else {
            let t = self.inputs.get(&op.id()).ok_or_else(|| {
                TeError::definition(format!("no input values for placeholder `{}`", op.name()))
            })?;
            let at: SmallVec<[usize; 8]> = idx.iter().map(|&i| i as usize).collect();
            return Ok(t.get(&at).unwrap_or(0.0));
        };
        if let Some(v) = self.recalled(op, idx) {
            return Ok(v);
        }
        let mut env = Env::new(self.sizes);
        for (a, &i) in c.axis.iter().zip(idx) {
            env.set(a.var(), i);
        }
        let body = c.body.clone();
        let v = round(self.value(&body, &mut env)?, op.dtype());
        self.remember(op, idx, v);
        Ok(v)
    }

    /// The element of `op` at `idx`, if it was evaluated before.
    fn recalled(&self, op: &Operation, idx: &[i64]) -> Option<f64> {
        self.memo.get(&op.id()).and_then(|m| m.get(idx))
    }

    /// Keeps the element of `op` at `idx` (inside its shape, checked).
    fn remember(&mut self, op: &Operation, idx: &[i64], v: f64) {
        let shapes = &self.shapes;
        self.memo
            .entry(op.id())
            .or_insert_with(|| Memo::for_shape(shapes.get(&op.id()).map_or(&[], Vec::as_slice)))
            .insert(idx, v);
    }

    /// Row `idx[0]` of a scan: from its init for the first rows, else from
    /// its update at that step, whose reads of the state are reads of the
    /// scan (earlier rows, evaluated in turn).
    fn scan_element(&mut self, t: &Tensor, scan: &ScanOp, idx: &[i64]) -> Result<f64> {
        let op = t.op();
        let k = t.value_index();
        let several = op.num_outputs() > 1;
        let recalled = if several {
            self.scan_memo
                .get(&(op.id(), k))
                .and_then(|m| m.get(idx))
                .copied()
        } else {
            self.recalled(op, idx)
        };
        if let Some(v) = recalled {
            return Ok(v);
        }
        let init_rows = self.tensor_shape(&scan.init[k])?[0];
        let mut key_idx = idx.to_vec();
        key_idx.push(k as i64);
        let key = (op.id(), key_idx);
        if !self.pending.insert(key.clone()) {
            return Err(TeError::definition(format!(
                "step {} of scan `{}` reads its own row {idx:?} of the state `{}`: a step may \
                 only read earlier rows (`t - 1`, ...)",
                idx[0],
                op.name(),
                scan.state[k].name()
            )));
        }
        let v = if idx[0] < init_rows {
            self.element_of(&scan.init[k], idx)
        } else {
            for (j, state) in scan.state.iter().enumerate() {
                let out = op.output_at(j).expect("one output per state");
                self.aliases.insert(state.op().id(), out);
            }
            self.element_of(&scan.update[k], idx)
        };
        self.pending.remove(&key);
        let v = v?;
        if several {
            self.scan_memo
                .entry((op.id(), k))
                .or_default()
                .insert(idx.to_vec(), v);
        } else {
            self.remember(op, idx, v);
        }
        Ok(v)
    }

    /// Output `t` at `idx` of an extern or hybrid operation: its body run
    /// by the interpreter on its inputs, once for all its outputs (each of
    /// its own shape). A body that calls a function the program cannot
    /// look into has no value.
    fn extern_output_element(&mut self, t: &Tensor, e: &ExternOp, idx: &[i64]) -> Result<f64> {
        let op = t.op();
        if !self.extern_runs.contains_key(&op.id()) {
            let outputs = self.run_extern(op, e)?;
            self.extern_runs.insert(op.id(), outputs);
        }
        let out = &self.extern_runs[&op.id()][t.value_index()];
        let dims = out.shape();
        if idx.len() != dims.len()
            || idx
                .iter()
                .zip(dims)
                .any(|(&i, &n)| i < 0 || i as usize >= n)
        {
            return Err(TeError::definition(format!(
                "the definitions read `{}` at {idx:?}, outside its shape {dims:?}",
                t.name()
            )));
        }
        let pos: Vec<usize> = idx.iter().map(|&x| x as usize).collect();
        Ok(round(out.get(&pos).unwrap_or(f64::NAN), t.dtype()))
    }

    /// Runs the body of extern operation `op` on the evaluated inputs:
    /// its outputs, in order.
    fn run_extern(&mut self, op: &Operation, e: &ExternOp) -> Result<Vec<tir::Tensor>> {
        if let Some(func) = e.opaque_call() {
            return Err(TeError::definition(format!(
                "`{}` calls `{func}`, which cannot be evaluated",
                op.name()
            )));
        }
        let mut inputs = HashMap::new();
        for (t, buf) in e.inputs.iter().zip(&e.input_buffers) {
            let shape = self.tensor_shape(t)?;
            let mut data = Vec::new();
            let total: i64 = shape.iter().product();
            let mut at = vec![0i64; shape.len()];
            for _ in 0..total.max(0) {
                data.push(self.element_of(t, &at)?);
                for k in (0..at.len()).rev() {
                    at[k] += 1;
                    if at[k] < shape[k] {
                        break;
                    }
                    at[k] = 0;
                }
            }
            let dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
            let tensor = tir::Tensor::new(dims, data)
                .map_err(|m| TeError::definition(format!("input `{}`: {m:?}", t.name())))?;
            inputs.insert(buf.clone(), tensor);
        }
        // A hybrid script's outputs start as zeros, as `output_tensor` is
        // in the script run as Python (numpy's `zeros`).
        if e.hybrid {
            for b in &e.output_buffers {
                let dims = b
                    .shape()
                    .iter()
                    .map(|d| {
                        d.eval(&|v: &Var| self.sizes.get(v).copied())
                            .map(|n| n.max(0) as usize)
                            .map_err(|err| {
                                TeError::definition(format!(
                                    "size of `{}`: {}",
                                    b.name(),
                                    err.message
                                ))
                            })
                    })
                    .collect::<Result<Vec<usize>>>()?;
                let zeros = vec![0.0; dims.iter().product()];
                let tensor = tir::Tensor::new(dims, zeros)
                    .map_err(|m| TeError::definition(format!("output `{}`: {m:?}", b.name())))?;
                inputs.insert(b.clone(), tensor);
            }
        }
        let mut params = e.input_buffers.clone();
        params.extend(e.output_buffers.iter().cloned());
        let func = tir::PrimFunc::new(op.name(), params, e.body.clone());
        // Its scalar float parameters (arguments of a packed call) take the
        // values the definitions are evaluated with.
        let none = HashMap::new();
        let func = func
            .bind_float_params(self.params.unwrap_or(&none))
            .map_err(|v| TeError::definition(format!("the scalar parameter `{v}` has no value")))?;
        let run = tir::run(&func, &inputs, self.sizes).map_err(|err| {
            TeError::definition(format!("running the body of `{}` failed: {err}", op.name()))
        })?;
        e.output_buffers
            .iter()
            .map(|b| {
                run.tensor(b).cloned().ok_or_else(|| {
                    TeError::definition(format!("`{}` has no output `{}`", op.name(), b.name()))
                })
            })
            .collect()
    }

    /// The concrete shape of tensor `t` (any output of its operation).
    pub fn tensor_shape(&self, t: &Tensor) -> Result<Vec<i64>> {
        t.shape()
            .iter()
            .map(|d| {
                d.eval(&|v: &Var| self.sizes.get(v).copied()).map_err(|e| {
                    TeError::definition(format!(
                        "size of `{}`: {} (give every size a value)",
                        t.name(),
                        e.message
                    ))
                })
            })
            .collect()
    }

    /// The concrete shape of `op`.
    pub fn shape(&self, op: &Operation) -> Result<Vec<i64>> {
        op.shape()
            .iter()
            .map(|d| {
                d.eval(&|v: &Var| self.sizes.get(v).copied()).map_err(|e| {
                    TeError::definition(format!(
                        "size of `{}`: {} (give every size a value)",
                        op.name(),
                        e.message
                    ))
                })
            })
            .collect()
    }

    fn index(&self, e: &arith::Expr, env: &Env<'_>) -> Result<i64> {
        Ok(e.eval(&|v: &Var| env.get(v))?)
    }

    /// The value of `v`. Every 16th level of nesting checks the room left
    /// on the stack (a level takes far less than the red zone), rather than
    /// every level.
    fn value(&mut self, v: &Value, env: &mut Env<'_>) -> Result<f64> {
        self.depth += 1;
        let r = if self.depth.is_multiple_of(16) {
            tir::stack::grow(|| self.value_step(v, env))
        } else {
            self.value_step(v, env)
        };
        self.depth -= 1;
        r
    }

    /// One level of [`Self::value`].
    fn value_step(&mut self, v: &Value, env: &mut Env<'_>) -> Result<f64> {
        let dtype = v.dtype();
        Ok(match v.kind() {
            ValueKind::Float(x) => *x,
            ValueKind::Param(var, t) => match self.params.and_then(|p| p.get(var)) {
                Some(x) => t.round(*x),
                None => {
                    return Err(TeError::definition(format!(
                        "the {t} parameter `{var}` has no value"
                    )))
                }
            },
            ValueKind::Index(e) => self.index(e, env)? as f64,
            ValueKind::Load(t, _) if self.operands.contains_key(&t.op().id()) => {
                self.operands[&t.op().id()]
            }
            ValueKind::Load(t, idx) => {
                let mut at: SmallVec<[i64; 8]> = SmallVec::new();
                for e in idx {
                    at.push(self.index(e, env)?);
                }
                match self.call_regions.take() {
                    None => self.element_of(t, &at)?,
                    Some(c) => {
                        c.check(t, &at)?;
                        // The tensor read is evaluated by its own
                        // definition, outside the call's regions.
                        let v = self.element_of(t, &at);
                        self.call_regions = Some(c);
                        v?
                    }
                }
            }
            ValueKind::Neg(a) => wrap(-self.value(a, env)?, dtype),
            ValueKind::Binary(op, a, b) => {
                // Operands take the operation's type first, as in the
                // lowered program (a literal next to float32 is float32).
                let (x, y) = (
                    round(self.value(a, env)?, dtype),
                    round(self.value(b, env)?, dtype),
                );
                let r = op.apply(x, y, dtype.is_int()).ok_or_else(|| {
                    TeError::definition(format!("integer division by zero in `{v}`"))
                })?;
                wrap(round(r, dtype), dtype)
            }
            ValueKind::Call(op, args) => {
                let xs = args
                    .iter()
                    .map(|a| Ok(round(self.value(a, env)?, dtype)))
                    .collect::<Result<Vec<f64>>>()?;
                let r = op.apply_as(&xs, dtype).ok_or_else(|| {
                    TeError::definition(format!("`{op}` takes {} argument(s)", op.arity()))
                })?;
                round(r, dtype)
            }
            ValueKind::Cmp(op, a, b) => {
                let t = a.dtype().promote(b.dtype());
                let (x, y) = (round(self.value(a, env)?, t), round(self.value(b, env)?, t));
                op.apply(x, y) as i64 as f64
            }
            ValueKind::And(a, b) => {
                (self.value(a, env)? != 0.0 && self.value(b, env)? != 0.0) as i64 as f64
            }
            ValueKind::Or(a, b) => {
                (self.value(a, env)? != 0.0 || self.value(b, env)? != 0.0) as i64 as f64
            }
            ValueKind::Not(a) => (self.value(a, env)? == 0.0) as i64 as f64,
            ValueKind::Cast(t, a) => {
                let x = self.value(a, env)?;
                if *t == DataType::Bool {
                    (x != 0.0) as i64 as f64
                } else if t.is_float() {
                    round(x, *t)
                } else {
                    // An integer conversion keeps the low bits.
                    t.wrap_integral(x.trunc())
                }
            }
            ValueKind::SelectValue(c, a, b) => {
                if self.value(c, env)? != 0.0 {
                    self.value(a, env)?
                } else {
                    self.value(b, env)?
                }
            }
            ValueKind::Gather(t, idx) => {
                let mut at = Vec::with_capacity(idx.len());
                for x in idx {
                    let v = self.value(x, env)?.trunc();
                    if !v.is_finite() || v.abs() > 1e15 {
                        return Err(TeError::definition(format!(
                            "an index of `{}` evaluates to {v}, not an integer",
                            t.name()
                        )));
                    }
                    at.push(v as i64);
                }
                self.element_of(t, &at)?
            }
            ValueKind::Select(c, a, b) => {
                if self.index(c, env)? != 0 {
                    self.value(a, env)?
                } else {
                    self.value(b, env)?
                }
            }
            ValueKind::CommReduce(r) => self.comm_reduce(r, env)?[r.value_index()],
            ValueKind::Reduce(r) => {
                let mut acc = r.reducer.identity(dtype);
                let mut ranges = Vec::with_capacity(r.axes.len());
                for a in &r.axes {
                    let d = a.dom().expect("reduction axes have domains");
                    ranges.push((self.index(&d.min, env)?, self.index(&d.extent, env)?));
                }
                let mut point: Vec<i64> = ranges.iter().map(|r| r.0).collect();
                if ranges.iter().all(|r| r.1 > 0) {
                    loop {
                        for (a, &x) in r.axes.iter().zip(&point) {
                            env.set(a.var(), x);
                        }
                        let take = match &r.condition {
                            Some(c) => self.index(c, env)? != 0,
                            None => true,
                        };
                        if take {
                            let x = self.value(&r.source, env)?;
                            acc = round(
                                r.reducer.combiner().apply(acc, x, false).unwrap_or(acc),
                                dtype,
                            );
                        }
                        // Next point, last axis fastest.
                        let mut k = point.len();
                        loop {
                            if k == 0 {
                                break;
                            }
                            k -= 1;
                            point[k] += 1;
                            if point[k] < ranges[k].0 + ranges[k].1 {
                                break;
                            }
                            point[k] = ranges[k].0;
                            if k == 0 {
                                k = usize::MAX;
                                break;
                            }
                        }
                        if k == usize::MAX || point.is_empty() {
                            break;
                        }
                    }
                }
                acc
            }
        })
    }
}
