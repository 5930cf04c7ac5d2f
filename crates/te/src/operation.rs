//! Operations and the tensors they produce: placeholders (inputs) and
//! computes (`te.compute`).

use crate::error::{Result, TeError};
use crate::iter_var::{IterKind, IterVar};
use crate::value::{Value, ValueKind};
use arith::{Expr, Range, Var};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tir::DataType;

static NEXT_OP_ID: AtomicU64 = AtomicU64::new(1);

/// The identity of an [`Operation`], unique in the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u64);

/// A compute operation: one output element per point of `axis`, given by
/// `body` (TVM's `ComputeOp`).
#[derive(Clone, Debug)]
pub struct ComputeOp {
    /// One data-parallel axis per output dimension, over `[0, shape[d])`.
    pub axis: Vec<IterVar>,
    /// The reduction axes of the body (empty unless the body is a reduction).
    pub reduce_axis: Vec<IterVar>,
    /// The element value at a point of `axis`.
    pub body: Value,
}

/// What an operation is.
#[derive(Clone, Debug)]
pub enum OpKind {
    /// An input tensor (`te.placeholder`).
    Placeholder,
    /// A computed tensor (`te.compute`).
    Compute(ComputeOp),
    /// A state computed step by step along its first axis (`te.scan`).
    Scan(crate::scan::ScanOp),
    /// A tensor written by an opaque call (`te.extern`).
    Extern(crate::extern_op::ExternOp),
    /// A tensor computed by calls of a tensor intrinsic on regions of its
    /// inputs (`te.compute` whose lambda returns `intrin(A[i, 0:16])`).
    TensorCompute(crate::tensor_compute::TensorComputeOp),
}

#[derive(Clone)]
struct OpData {
    id: OpId,
    name: String,
    tag: String,
    attrs: Attrs,
    shape: Vec<Expr>,
    dtype: DataType,
    kind: OpKind,
    /// The outputs after the first of a compute with several (TVM's
    /// `te.compute` returning a tuple); empty for one output.
    more: Vec<MoreOutput>,
    /// The names of the outputs when there are several (`C.v0`, `C.v1`).
    output_names: Vec<String>,
}

/// An output after the first of an operation with several.
#[derive(Clone)]
struct MoreOutput {
    dtype: DataType,
    /// The shape: the first output's for a compute; an extern or hybrid
    /// operation's outputs each have their own.
    shape: Vec<Expr>,
    /// The element value, for a compute (an extern output has none).
    body: Option<Value>,
}

/// An operation: a shared handle with identity. A placeholder has one
/// output [`Tensor`]; a compute has one per value its body returns, all
/// of the same shape, computed in one loop nest.
#[derive(Clone)]
pub struct Operation(Arc<OpData>);

impl Operation {
    /// The identity.
    pub fn id(&self) -> OpId {
        self.0.id
    }

    /// The name (`"A"`, `"C"`).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The tag (`te.compute(..., tag=)`, or the enclosing `te.tag_scope`);
    /// empty when none was given. TOPI classifies operations by it
    /// (`"elemwise"`, `"broadcast"`, `"injective"`, ...).
    pub fn tag(&self) -> &str {
        &self.0.tag
    }

    /// The attributes (`te.compute(..., attrs=)`); empty when none were
    /// given.
    pub fn attrs(&self) -> &Attrs {
        &self.0.attrs
    }

    /// Placeholder or compute.
    pub fn kind(&self) -> &OpKind {
        &self.0.kind
    }

    /// Whether this is an extern or hybrid operation.
    pub fn is_extern(&self) -> bool {
        matches!(self.0.kind, OpKind::Extern(_))
    }

    /// The compute definition, when this is a compute.
    pub fn as_compute(&self) -> Option<&ComputeOp> {
        match &self.0.kind {
            OpKind::Compute(c) => Some(c),
            _ => None,
        }
    }

    /// The shape of the (first) output.
    pub fn shape(&self) -> &[Expr] {
        &self.0.shape
    }

    /// The shape of output `k` (`None` past the last output); only an
    /// extern or hybrid operation's outputs can differ from the first's.
    pub fn output_shape(&self, k: usize) -> Option<&[Expr]> {
        match k {
            0 => Some(&self.0.shape),
            _ => self.0.more.get(k - 1).map(|m| m.shape.as_slice()),
        }
    }

    /// The output element type.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }

    /// The (first) output tensor.
    pub fn output(&self) -> Tensor {
        Tensor {
            op: self.clone(),
            value_index: 0,
        }
    }

    /// How many output tensors the operation has (`op.num_outputs`).
    pub fn num_outputs(&self) -> usize {
        1 + self.0.more.len()
    }

    /// Output `k` (`op.output(k)`), if there is one.
    pub fn output_at(&self, k: usize) -> Option<Tensor> {
        (k < self.num_outputs()).then(|| Tensor {
            op: self.clone(),
            value_index: k,
        })
    }

    /// Every output tensor, in order.
    pub fn outputs(&self) -> Vec<Tensor> {
        (0..self.num_outputs())
            .map(|k| Tensor {
                op: self.clone(),
                value_index: k,
            })
            .collect()
    }

    /// The element type of output `k` (`None` past the last output).
    pub fn output_dtype(&self, k: usize) -> Option<DataType> {
        match k {
            0 => Some(self.0.dtype),
            _ => self.0.more.get(k - 1).map(|m| m.dtype),
        }
    }

    /// The body of output `k` of a compute (`op.body[k]`).
    pub fn body(&self, k: usize) -> Option<&Value> {
        let c = self.as_compute()?;
        match k {
            0 => Some(&c.body),
            _ => self.0.more.get(k - 1).and_then(|m| m.body.as_ref()),
        }
    }

    /// The bodies of every output of a compute, in order (empty for
    /// placeholders).
    pub fn bodies(&self) -> Vec<&Value> {
        (0..self.num_outputs())
            .filter_map(|k| self.body(k))
            .collect()
    }

    /// The data-parallel axes (empty for placeholders); a hybrid
    /// operation's loops.
    pub fn axis(&self) -> &[IterVar] {
        match &self.0.kind {
            OpKind::Compute(c) => &c.axis,
            OpKind::Extern(e) => &e.axis,
            OpKind::TensorCompute(t) => &t.axis,
            _ => &[],
        }
    }

    /// The reduction axes (empty for placeholders and element-wise computes).
    pub fn reduce_axis(&self) -> &[IterVar] {
        match &self.0.kind {
            OpKind::Compute(c) => &c.reduce_axis,
            OpKind::TensorCompute(t) => &t.reduce_axis,
            _ => &[],
        }
    }

    /// The root iteration variables: `axis` then `reduce_axis` (a scan's
    /// scan axis then its spatial axes).
    pub fn root_iter_vars(&self) -> Vec<IterVar> {
        if let OpKind::Scan(scan) = self.kind() {
            return scan.root_iter_vars();
        }
        let mut v = self.axis().to_vec();
        v.extend(self.reduce_axis().iter().cloned());
        v
    }

    /// The tensors the body reads, each once, in order of first use.
    pub fn input_tensors(&self) -> Vec<Tensor> {
        match self.kind() {
            OpKind::Scan(scan) => {
                return scan.init.iter().chain(&scan.update).cloned().collect();
            }
            OpKind::Extern(e) => return e.inputs.clone(),
            OpKind::TensorCompute(t) => {
                let mut out: Vec<Tensor> = Vec::new();
                for x in &t.inputs {
                    if !out.contains(x) {
                        out.push(x.clone());
                    }
                }
                return out;
            }
            _ => {}
        }
        let mut out: Vec<Tensor> = Vec::new();
        for body in self.bodies() {
            body.for_each_access(&mut |t, _| {
                if !out.contains(t) {
                    out.push(t.clone());
                }
            });
        }
        out
    }
}

impl PartialEq for Operation {
    fn eq(&self, other: &Operation) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Operation {}
impl Hash for Operation {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}
impl fmt::Debug for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Operation({})", self.name())
    }
}
impl AsRef<Operation> for Operation {
    fn as_ref(&self) -> &Operation {
        self
    }
}

/// An output of an operation: a shared handle; equal tensors are the same
/// output of the same operation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Tensor {
    op: Operation,
    value_index: usize,
}

impl Tensor {
    /// The operation that produces this tensor.
    pub fn op(&self) -> &Operation {
        &self.op
    }

    /// Which output of its operation this is (`t.value_index`).
    pub fn value_index(&self) -> usize {
        self.value_index
    }

    /// The name: the operation's, or `C.v0`, `C.v1`, ... for the outputs
    /// of an operation with several, as TVM names them.
    pub fn name(&self) -> &str {
        self.op
            .0
            .output_names
            .get(self.value_index)
            .map_or(self.op.name(), String::as_str)
    }

    /// The shape.
    pub fn shape(&self) -> &[Expr] {
        self.op
            .output_shape(self.value_index)
            .unwrap_or(self.op.shape())
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        self.op
            .output_dtype(self.value_index)
            .unwrap_or(self.op.dtype())
    }

    /// The element at `indices` (`A[i, j]`), as a value for compute bodies.
    /// The number of indices is checked when the compute is built.
    pub fn at(&self, indices: impl IntoIterator<Item = impl Into<Expr>>) -> Value {
        Value::new(ValueKind::Load(
            self.clone(),
            indices.into_iter().map(Into::into).collect(),
        ))
    }
}

impl AsRef<Operation> for Tensor {
    fn as_ref(&self) -> &Operation {
        &self.op
    }
}
impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({})", self.name())
    }
}
impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A symbolic size (`te.var("n")`), usable in shapes and indices.
pub fn var(name: &str) -> Var {
    Var::new(name)
}

/// A reduction axis over `[lo, hi)` (`te.reduce_axis((lo, hi), name)`).
pub fn reduce_axis(range: (impl Into<Expr>, impl Into<Expr>), name: &str) -> IterVar {
    let dom = Range::half_open(range.0.into(), range.1.into());
    IterVar::new(name, Some(dom), IterKind::Reduce)
}

pub(crate) fn check_shape(shape: &[Expr], name: &str) -> Result<()> {
    for (d, s) in shape.iter().enumerate() {
        if s.node_count() as u64 > MAX_BODY_NODES {
            return Err(TeError::definition(format!(
                "dimension {d} of `{name}` written out has {}: a value reused through a variable (`n = n + n` in a loop) doubles it at each use; write the size without repeating such values",
                written(s.node_count() as u64)
            )));
        }
        if let Some(v) = s.as_int() {
            if v < 0 {
                return Err(TeError::definition(format!(
                    "dimension {d} of `{name}` has negative size {v}: sizes must be at least 0"
                )));
            }
        }
        if s.ty() != arith::Type::Int {
            return Err(TeError::definition(format!(
                "dimension {d} of `{name}` is a condition (`{s}`), not a size"
            )));
        }
    }
    Ok(())
}

pub(crate) fn new_op(name: &str, shape: Vec<Expr>, dtype: DataType, kind: OpKind) -> Operation {
    Operation(Arc::new(OpData {
        id: OpId(NEXT_OP_ID.fetch_add(1, Ordering::Relaxed)),
        name: name.to_string(),
        tag: String::new(),
        attrs: Attrs::new(),
        shape,
        dtype,
        kind,
        more: Vec::new(),
        output_names: Vec::new(),
    }))
}

impl Operation {
    /// This operation with the tag and attributes given (same identity
    /// otherwise unchanged: used while the operation is being built).
    pub(crate) fn with_tag_attrs(self, tag: &str, attrs: Attrs) -> Operation {
        match Arc::try_unwrap(self.0) {
            Ok(mut d) => {
                d.tag = tag.to_string();
                d.attrs = attrs;
                Operation(Arc::new(d))
            }
            Err(shared) => Operation(Arc::new(OpData {
                id: shared.id,
                name: shared.name.clone(),
                tag: tag.to_string(),
                attrs,
                shape: shared.shape.clone(),
                dtype: shared.dtype,
                kind: shared.kind.clone(),
                more: shared.more.clone(),
                output_names: shared.output_names.clone(),
            })),
        }
    }

    /// A new compute operation (own identity) from its parts: the axes,
    /// the body and what the body reduces over are taken as given, the
    /// shape from the axes' extents. Schedule primitives that add stages
    /// build their operations with it.
    pub(crate) fn new_compute(
        name: &str,
        tag: &str,
        attrs: Attrs,
        axis: Vec<IterVar>,
        body: Value,
    ) -> Operation {
        let shape = axis
            .iter()
            .map(|a| a.dom().map_or_else(|| Expr::int(0), |d| d.extent.clone()))
            .collect();
        // The axes of the body's reduction, built-in (`te.sum`) or a
        // program's reducer (`te.comm_reducer`).
        let reduce_axis = match body.kind() {
            ValueKind::CommReduce(r) => r.axes().to_vec(),
            _ => body.as_reduce().map(|r| r.axes.clone()).unwrap_or_default(),
        };
        let dtype = body.dtype();
        new_op(
            name,
            shape,
            dtype,
            OpKind::Compute(ComputeOp {
                axis,
                reduce_axis,
                body,
            }),
        )
        .with_tag_attrs(tag, attrs)
    }

    /// A new operation (its own identity) that is this one with `extra`
    /// added to its attributes, as AutoTVM's `register_topi_compute`
    /// rebuilds the operation a template returns with its `workload`.
    pub fn with_more_attrs(&self, extra: Attrs) -> Operation {
        let mut attrs = self.0.attrs.clone();
        attrs.extend(extra);
        Operation(Arc::new(OpData {
            id: OpId(NEXT_OP_ID.fetch_add(1, Ordering::Relaxed)),
            attrs,
            ..(*self.0).clone()
        }))
    }

    /// The operation that replaces this one in its stage when a schedule
    /// primitive rewrites its definition (`cache_read` redirecting its
    /// reads, `cache_write` and `rfactor` moving its work to a new stage).
    /// It keeps this operation's identity, name, tag and attributes, so
    /// that the tensor the user holds still names the stage and its
    /// buffer, as TVM writes a replaced stage's results to the tensor of
    /// its original operation.
    /// This compute with `more` as the bodies of its outputs after the
    /// first, named `<name>.v0`, `<name>.v1`, ... as `te.compute` names
    /// several outputs (nothing changes when `more` is empty).
    pub(crate) fn with_more_outputs(self, more: Vec<Value>) -> Operation {
        if more.is_empty() {
            return self;
        }
        let mut data = (*self.0).clone();
        data.output_names = (0..=more.len())
            .map(|k| format!("{}.v{k}", data.name))
            .collect();
        data.more = more
            .into_iter()
            .map(|body| MoreOutput {
                dtype: body.dtype(),
                shape: self.0.shape.clone(),
                body: Some(body),
            })
            .collect();
        Operation(Arc::new(data))
    }

    /// [`Operation::replaced`], with the bodies of the other outputs
    /// replaced too (`None` keeps one as it is).
    pub(crate) fn replaced_all(&self, compute: ComputeOp, more: Vec<Option<Value>>) -> Operation {
        let op = self.replaced(compute);
        let mut data = (*op.0).clone();
        for (m, body) in data.more.iter_mut().zip(more) {
            if let Some(body) = body {
                m.dtype = body.dtype();
                m.body = Some(body);
            }
        }
        Operation(Arc::new(data))
    }

    /// This operation (same identity, name and outputs) with its
    /// definition replaced by `kind`.
    pub(crate) fn with_kind(&self, kind: OpKind) -> Operation {
        let mut data = (*self.0).clone();
        data.kind = kind;
        Operation(Arc::new(data))
    }

    pub(crate) fn replaced(&self, compute: ComputeOp) -> Operation {
        Operation(Arc::new(OpData {
            id: self.0.id,
            name: self.0.name.clone(),
            tag: self.0.tag.clone(),
            attrs: self.0.attrs.clone(),
            shape: self.0.shape.clone(),
            dtype: compute.body.dtype(),
            kind: OpKind::Compute(compute),
            // The other outputs keep their definitions: they still read
            // what they read, which the schedule still computes.
            more: self.0.more.clone(),
            output_names: self.0.output_names.clone(),
        }))
    }
}

/// An input tensor (`te.placeholder(shape, name=, dtype=)`).
///
/// ```
/// let n = te::var("n");
/// let a = te::placeholder([n.expr(), arith::Expr::int(4)], "A", tir::DataType::Float32).unwrap();
/// assert_eq!(a.ndim(), 2);
/// assert!(te::placeholder([-1], "B", tir::DataType::Float32).is_err());
/// ```
pub fn placeholder(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    name: &str,
    dtype: DataType,
) -> Result<Tensor> {
    let shape: Vec<Expr> = shape.into_iter().map(Into::into).collect();
    check_shape(&shape, name)?;
    Ok(new_op(name, shape, dtype, OpKind::Placeholder).output())
}

/// `te.compute(shape, fcompute, name)` with axes named `i0, i1, ...`.
/// `fcompute` receives the axis variables as expressions and returns the
/// element value.
pub fn compute(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    fcompute: impl FnOnce(&[Expr]) -> Value,
    name: &str,
) -> Result<Tensor> {
    let shape: Vec<Expr> = shape.into_iter().map(Into::into).collect();
    let names: Vec<String> = (0..shape.len()).map(|d| format!("i{d}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    compute_named(shape, &names, fcompute, name)
}

/// `te.compute` with the axes named as the lambda's parameters
/// (`lambda bi, bj: ...` names them `bi`, `bj`).
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([4, 4], "A", DataType::Float32).unwrap();
/// let b = te::compute_named([4, 4], &["bi", "bj"], |i| a.at([&i[0], &i[1]]) + 2.0, "B").unwrap();
/// assert_eq!(b.op().axis()[1].name(), "bj");
/// assert_eq!(b.op().as_compute().unwrap().body.to_string(), "A[bi, bj] + 2.0");
/// ```
pub fn compute_named(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> Value,
    name: &str,
) -> Result<Tensor> {
    try_compute_named(
        shape,
        axis_names,
        |i| Ok::<Value, TeError>(fcompute(i)),
        name,
    )
}

/// [`compute_named`] with a body builder that may fail (a script's lambda).
pub fn try_compute_named<E: From<TeError>>(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> std::result::Result<Value, E>,
    name: &str,
) -> std::result::Result<Tensor, E> {
    try_compute_tagged(shape, axis_names, fcompute, name, "", Attrs::new())
}

/// `te.compute(shape, fcompute, name, tag=, attrs=)`: [`try_compute_named`]
/// with the operation's tag and attributes (see [`Operation::tag`],
/// [`Operation::attrs`]).
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([4], "A", DataType::Float32).unwrap();
/// let mut attrs = te::Attrs::new();
/// attrs.insert("workload".to_string(), te::AttrValue::Str("relu".into()));
/// let b = te::try_compute_tagged([4], &["i"], |i| Ok::<_, te::TeError>(a.at([&i[0]]) * 2.0),
///     "B", "elemwise", attrs).unwrap();
/// assert_eq!(b.op().tag(), "elemwise");
/// assert_eq!(b.op().attrs()["workload"].to_string(), "\"relu\"");
/// ```
pub fn try_compute_tagged<E: From<TeError>>(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> std::result::Result<Value, E>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> std::result::Result<Tensor, E> {
    let op = build_compute(
        shape,
        axis_names,
        |i| fcompute(i).map(|v| vec![v]),
        name,
        tag,
        attrs,
    )?;
    Ok(op.output())
}

/// `te.compute` whose lambda returns a tuple: one output tensor per value
/// (`C, D = te.compute(shape, lambda i: (a, b))`), named `C.v0`, `C.v1`,
/// ..., all computed in one loop nest. The values are either all free of
/// reductions or all the outputs of one tuple reduction
/// ([`CommReducer::reduce`](crate::CommReducer::reduce)), in order. One
/// value gives an ordinary compute of one output.
///
/// ```
/// use tir::DataType;
/// let a = te::placeholder([4], "A", DataType::Float32).unwrap();
/// let outs = te::try_compute_multi([4], &["i"], |i| {
///     Ok::<_, te::TeError>(vec![a.at([&i[0]]) + 1.0, a.at([&i[0]]) * 2.0])
/// }, "C").unwrap();
/// assert_eq!(outs[1].name(), "C.v1");
/// assert_eq!(outs[1].op().num_outputs(), 2);
/// ```
pub fn try_compute_multi<E: From<TeError>>(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> std::result::Result<Vec<Value>, E>,
    name: &str,
) -> std::result::Result<Vec<Tensor>, E> {
    try_compute_multi_tagged(shape, axis_names, fcompute, name, "", Attrs::new())
}

/// [`try_compute_multi`] with the operation's tag and attributes.
pub fn try_compute_multi_tagged<E: From<TeError>>(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> std::result::Result<Vec<Value>, E>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> std::result::Result<Vec<Tensor>, E> {
    Ok(build_compute(shape, axis_names, fcompute, name, tag, attrs)?.outputs())
}

/// Builds a compute operation with one output per value `fcompute` returns.
fn build_compute<E: From<TeError>>(
    shape: impl IntoIterator<Item = impl Into<Expr>>,
    axis_names: &[&str],
    fcompute: impl FnOnce(&[Expr]) -> std::result::Result<Vec<Value>, E>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> std::result::Result<Operation, E> {
    let shape: Vec<Expr> = shape.into_iter().map(Into::into).collect();
    check_shape(&shape, name)?;
    if axis_names.len() != shape.len() {
        return Err(TeError::definition(format!(
            "`{name}` has {} dimensions but {} axis names were given",
            shape.len(),
            axis_names.len()
        ))
        .into());
    }
    let axis: Vec<IterVar> = shape
        .iter()
        .zip(axis_names)
        .map(|(s, n)| IterVar::new(*n, Some(Range::from_extent(s.clone())), IterKind::DataPar))
        .collect();
    let vars: Vec<Expr> = axis.iter().map(IterVar::expr).collect();
    let bodies = fcompute(&vars)?;
    Ok(compute_op_on_axes(axis, bodies, name, tag, attrs)?)
}

/// The compute operation over `axis` (data-parallel, with domains) whose
/// outputs have the `bodies` given, one per output.
pub(crate) fn compute_on_axes(
    axis: Vec<IterVar>,
    bodies: Vec<Value>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> Result<Vec<Tensor>> {
    Ok(compute_op_on_axes(axis, bodies, name, tag, attrs)?.outputs())
}

pub(crate) fn compute_op_on_axes(
    axis: Vec<IterVar>,
    bodies: Vec<Value>,
    name: &str,
    tag: &str,
    attrs: Attrs,
) -> Result<Operation> {
    let shape: Vec<Expr> = axis
        .iter()
        .map(|a| a.dom().expect("compute axes have domains").extent.clone())
        .collect();
    check_shape(&shape, name)?;
    let mut bodies = bodies.into_iter();
    let Some(body) = bodies.next() else {
        return Err(TeError::definition(format!(
            "the lambda of `{name}` returns no value: return one value, or a tuple of them"
        )));
    };
    let more: Vec<Value> = bodies.collect();
    let reduce_axis = check_body(&body, name)?;
    for b in &more {
        check_body(b, name)?;
    }
    crate::comm_reducer::check_outputs(&body, &more, name)?;
    let dtype = body.dtype();
    let output_names = if more.is_empty() {
        Vec::new()
    } else {
        (0..=more.len()).map(|k| format!("{name}.v{k}")).collect()
    };
    Ok(Operation(Arc::new(OpData {
        id: OpId(NEXT_OP_ID.fetch_add(1, Ordering::Relaxed)),
        name: name.to_string(),
        tag: tag.to_string(),
        attrs,
        dtype,
        kind: OpKind::Compute(ComputeOp {
            axis,
            reduce_axis,
            body,
        }),
        more: more
            .into_iter()
            .map(|body| MoreOutput {
                dtype: body.dtype(),
                shape: shape.clone(),
                body: Some(body),
            })
            .collect(),
        shape,
        output_names,
    })))
}

/// A new operation of `kind` with one output per `(shape, dtype)` of
/// `outputs` (an extern, hybrid or scan operation), named `name`; its
/// outputs are named as TVM names them (`name`, or `name.v0`, `name.v1`,
/// ... for several) and may have shapes of their own.
pub(crate) fn new_multi_output_op(
    name: &str,
    outputs: Vec<(Vec<Expr>, DataType)>,
    kind: OpKind,
) -> Operation {
    let output_names = if outputs.len() > 1 {
        (0..outputs.len()).map(|k| format!("{name}.v{k}")).collect()
    } else {
        Vec::new()
    };
    let mut outputs = outputs.into_iter();
    let (shape, dtype) = outputs
        .next()
        .unwrap_or_else(|| (Vec::new(), DataType::Float32));
    let more = outputs
        .map(|(shape, dtype)| MoreOutput {
            dtype,
            shape,
            body: None,
        })
        .collect();
    Operation(Arc::new(OpData {
        id: OpId(NEXT_OP_ID.fetch_add(1, Ordering::Relaxed)),
        name: name.to_string(),
        tag: String::new(),
        attrs: Attrs::new(),
        shape,
        dtype,
        kind,
        more,
        output_names,
    }))
}

/// A value of an operation attribute (`te.compute(..., attrs={...})`).
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// An index expression (`PrimExpr`).
    Expr(Expr),
    /// A list of values (TOPI's `workload` tuples).
    List(Vec<AttrValue>),
    /// A tensor (TOPI's `layout_free_placeholders`).
    Tensor(Tensor),
    /// Python's `None` (an argument of a `workload` left out).
    None,
}

impl fmt::Display for AttrValue {
    /// As TVM prints attribute values: strings quoted, lists in brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Float(v) => write!(f, "{v:?}"),
            AttrValue::Str(v) => write!(f, "{v:?}"),
            AttrValue::None => f.write_str("None"),
            AttrValue::Expr(e) => write!(f, "{e}"),
            AttrValue::Tensor(t) => write!(
                f,
                "Tensor(shape={:?}, op.name={})",
                t.shape().iter().map(|d| d.to_string()).collect::<Vec<_>>(),
                t.name()
            ),
            AttrValue::List(items) => {
                f.write_str("[")?;
                for (k, v) in items.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// The attributes of an operation, by name, in name order (TVM's
/// `Map<String, ObjectRef>`).
pub type Attrs = std::collections::BTreeMap<String, AttrValue>;

/// Checks load arities and that a reduction, if any, is the whole body;
/// returns the reduction axes.
/// The most nodes a compute body may have written out as a tree: every
/// analysis and the printed program treat it as one.
pub const MAX_BODY_NODES: u64 = 1 << 22;

/// `e`'s size written out when it is past [`MAX_BODY_NODES`], as the
/// messages say it: an index expression reused through a variable
/// (`e = te.max(e, e + 1)` in a loop) shares its nodes and can stand for a
/// tree far larger than memory, which every later walk would expand.
pub(crate) fn too_large(e: &Expr) -> Option<String> {
    let size = e.node_count() as u64;
    (size > MAX_BODY_NODES).then(|| written(size))
}

/// A node count as the messages above say it; counts that saturated are
/// only known to be huge.
fn written(size: u64) -> String {
    if size >= u64::from(u32::MAX) {
        "more than 4 billion nodes".to_string()
    } else {
        format!("{size} nodes")
    }
}

/// The reduction axes' ranges are written into every loop and bound.
fn check_axes(axes: &[IterVar], name: &str) -> Result<()> {
    for a in axes {
        let Some(dom) = a.dom() else { continue };
        if let Some(size) = too_large(&dom.min).or_else(|| too_large(&dom.extent)) {
            return Err(TeError::definition(format!(
                "the range of `{}` in `{name}` written out has {size}, more than the {MAX_BODY_NODES} allowed: a value reused through a variable (`n = n + n` in a loop) doubles it at each use; write the range without repeating such values",
                a.name()
            )));
        }
    }
    Ok(())
}

fn check_body(body: &Value, name: &str) -> Result<Vec<IterVar>> {
    // First, before any walk of the tree: a value reused through a variable
    // (`v = v + v` in a loop) can stand for a tree far larger than memory.
    let size = body.written_size();
    if size > MAX_BODY_NODES {
        return Err(TeError::definition(format!(
            "the body of `{name}` written out has {}, more than the {MAX_BODY_NODES} allowed: a value reused through a variable (`v = v + v` in a loop) doubles it at each use; build the body without repeating such values, or compute them in a stage of their own",
            written(size)
        )));
    }
    let mut err = None;
    body.for_each_access(&mut |t, idx| {
        if idx.len() != t.ndim() && err.is_none() {
            err = Some(TeError::definition(format!(
                "`{name}` reads `{}` with {} indices, but `{}` has {} dimensions",
                t.name(),
                idx.len(),
                t.name(),
                t.ndim()
            )));
        }
        if idx.iter().flatten().any(|e| e.ty() != arith::Type::Int) && err.is_none() {
            err = Some(TeError::definition(format!(
                "`{name}` indexes `{}` with a condition; indices must be integers",
                t.name()
            )));
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let nested = |v: &Value| {
        let mut found = false;
        fn walk(v: &Value, found: &mut bool) {
            tir::stack::grow(|| match v.kind() {
                ValueKind::Reduce(_) | ValueKind::CommReduce(_) => *found = true,
                _ => v.for_each_operand(|a| walk(a, found)),
            })
        }
        walk(v, &mut found);
        found
    };
    if let ValueKind::CommReduce(r) = body.kind() {
        if r.sources().iter().any(nested) {
            return Err(TeError::definition(format!(
                "`{name}` nests a reduction inside a reduction: compute the inner one as its own tensor"
            )));
        }
        if r.axes()
            .iter()
            .any(|a| a.kind() != IterKind::Reduce || a.dom().is_none())
        {
            return Err(TeError::definition(format!(
                "`{name}` reduces over an axis that is not a `reduce_axis`"
            )));
        }
        check_axes(r.axes(), name)?;
        return Ok(r.axes().to_vec());
    }
    match body.as_reduce() {
        Some(r) => {
            if nested(&r.source) {
                return Err(TeError::definition(format!(
                    "`{name}` nests a reduction inside a reduction: compute the inner one as its own tensor"
                )));
            }
            if r.axes.iter().any(|a| a.kind() != IterKind::Reduce || a.dom().is_none()) {
                return Err(TeError::definition(format!(
                    "`{name}` reduces over an axis that is not a `reduce_axis`"
                )));
            }
            check_axes(&r.axes, name)?;
            Ok(r.axes.clone())
        }
        None if nested(body) => Err(TeError::definition(format!(
            "the reduction in `{name}` must be the whole body (as in TVM): compute it as its own tensor"
        ))),
        None => Ok(Vec::new()),
    }
}
