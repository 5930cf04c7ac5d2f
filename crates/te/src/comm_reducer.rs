//! Commutative reducers defined by their combiner (`te.comm_reducer`),
//! including tuple reducers such as argmax, whose reduction has several
//! outputs computed in one loop nest.
//!
//! A reducer is given as values over symbolic operands: the front end makes
//! the operands with [`CommReducer::operands`], calls the user's combiner
//! and identity functions once on them, and builds the reducer from the
//! results with [`CommReducer::new`]. The operands are zero-dimensional
//! placeholders that no schedule ever contains: they only stand for the
//! accumulated value (`lhs`) and the value being folded in (`rhs`).

use crate::error::{Result, TeError};
use crate::iter_var::IterVar;
use crate::operation::{placeholder, Tensor};
use crate::value::{Value, ValueKind};
use arith::Expr;
use std::fmt;
use std::sync::Arc;
use tir::DataType;

struct ReducerData {
    name: String,
    lhs: Vec<Tensor>,
    rhs: Vec<Tensor>,
    result: Vec<Value>,
    identity: Vec<Value>,
}

/// A commutative reducer: `result[k]` combines the accumulated tuple `lhs`
/// with a new tuple `rhs`; `identity` is the reduction of nothing (TVM's
/// `CommReducer`).
///
/// ```
/// use te::{CommReducer, Value};
/// use tir::DataType;
/// // argmax over (index, value) pairs, identity (-1, lowest float32)
/// let x = CommReducer::operands("x", &[DataType::Int32, DataType::Float32]);
/// let y = CommReducer::operands("y", &[DataType::Int32, DataType::Float32]);
/// let keep = Value::cmp(arith::CmpOp::Ge, x[1].clone(), y[1].clone());
/// let result = vec![
///     Value::select_value(keep, x[0].clone(), y[0].clone()),
///     Value::max(x[1].clone(), y[1].clone()),
/// ];
/// let identity = vec![Value::int(-1), Value::float(f32::MIN as f64)];
/// let argmax = CommReducer::new("argmax", &x, &y, result, identity).unwrap();
/// assert_eq!(argmax.size(), 2);
/// ```
#[derive(Clone)]
pub struct CommReducer(Arc<ReducerData>);

impl CommReducer {
    /// Symbolic operands of the given types, one per element of the tuple,
    /// named `{prefix}_0`, `{prefix}_1`, ... (`{prefix}` alone for one), as
    /// TVM names the variables it passes to the combiner.
    pub fn operands(prefix: &str, dtypes: &[DataType]) -> Vec<Value> {
        dtypes
            .iter()
            .enumerate()
            .map(|(k, &dtype)| {
                let name = if dtypes.len() == 1 {
                    prefix.to_string()
                } else {
                    format!("{prefix}_{k}")
                };
                let t = placeholder(std::iter::empty::<Expr>(), &name, dtype)
                    .expect("a zero-dimensional shape is valid");
                t.at(std::iter::empty::<Expr>())
            })
            .collect()
    }

    /// The reducer `name` whose combiner gives `result` from the operands
    /// `lhs` and `rhs` (made by [`CommReducer::operands`]), with identity
    /// `identity`. The identity may read tensors at the compute's axes
    /// (`lambda t: init[i]`, TVM's loop-aware initial value): the reduction
    /// reads them too. Errors: operands that are not symbolic operands,
    /// tuples of different lengths, a combiner that reads anything but its
    /// operands, an identity that reads the operands, or a reduction in
    /// either.
    pub fn new(
        name: &str,
        lhs: &[Value],
        rhs: &[Value],
        result: Vec<Value>,
        identity: Vec<Value>,
    ) -> Result<CommReducer> {
        let operand = |v: &Value| match v.kind() {
            ValueKind::Load(t, idx) if idx.is_empty() && t.op().as_compute().is_none() => {
                Ok(t.clone())
            }
            _ => Err(TeError::definition(format!(
                "the combiner of `{name}` takes `{v}` as an argument: its arguments must be the \
                 symbolic operands the reducer was called with"
            ))),
        };
        let lhs: Vec<Tensor> = lhs.iter().map(operand).collect::<Result<_>>()?;
        let rhs: Vec<Tensor> = rhs.iter().map(operand).collect::<Result<_>>()?;
        let n = lhs.len();
        if n == 0 || rhs.len() != n || result.len() != n || identity.len() != n {
            return Err(TeError::definition(format!(
                "`{name}` combines tuples of {n} values, but its second argument has {}, its \
                 combiner returns {} and its identity {}: all must have the same length, at least 1",
                rhs.len(),
                result.len(),
                identity.len()
            )));
        }
        let mut err = None;
        for r in &result {
            r.for_each_access(&mut |t, _| {
                if !lhs.contains(t) && !rhs.contains(t) && err.is_none() {
                    err = Some(TeError::definition(format!(
                        "the combiner of `{name}` reads `{}`: it may only use its two arguments",
                        t.name()
                    )));
                }
            });
            if contains_reduction(r) && err.is_none() {
                err = Some(TeError::definition(format!(
                    "the combiner of `{name}` contains a reduction: it must combine two values"
                )));
            }
        }
        for v in &identity {
            v.for_each_access(&mut |t, _| {
                if (lhs.contains(t) || rhs.contains(t)) && err.is_none() {
                    err = Some(TeError::definition(format!(
                        "the identity of `{name}` reads `{}`, an argument of its combiner: the \
                         identity is the value before anything is combined",
                        t.name()
                    )));
                }
            });
            if contains_reduction(v) && err.is_none() {
                err = Some(TeError::definition(format!(
                    "the identity of `{name}` contains a reduction: compute it as a tensor of \
                     its own and read that"
                )));
            }
        }
        if let Some(e) = err {
            return Err(e);
        }
        Ok(CommReducer(Arc::new(ReducerData {
            name: name.to_string(),
            lhs,
            rhs,
            result,
            identity,
        })))
    }

    /// The name given to the reducer (`te.comm_reducer(..., name=)`).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// How many values the reduced tuples have.
    pub fn size(&self) -> usize {
        self.0.lhs.len()
    }

    /// The identity element of each position.
    pub fn identity(&self) -> &[Value] {
        &self.0.identity
    }

    /// The combiner: position `k` of the combination of operands `lhs`
    /// and `rhs`.
    pub fn result(&self) -> &[Value] {
        &self.0.result
    }

    /// The types the reducer combines, per position.
    pub fn dtypes(&self) -> Vec<DataType> {
        self.0.lhs.iter().map(Tensor::dtype).collect()
    }

    /// Whether two handles are the same reducer.
    pub fn same(&self, other: &CommReducer) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.name == other.0.name
                && self.0.lhs == other.0.lhs
                && self.0.rhs == other.0.rhs
                && same_values(&self.0.result, &other.0.result)
                && same_values(&self.0.identity, &other.0.identity))
    }

    /// The reducer with the index expressions of its combiner and identity
    /// rewritten by `f`, and the identity's reads of tensors by `load` and
    /// `gather` (as [`Value::rewrite_reads`]): a combiner may use the
    /// variables of the compute around it (`max(x + y, float32(n))` over
    /// the axis `n`), which a schedule renames (`cache_write`'s `n.c`), and
    /// an identity may read a tensor a schedule redirects (`cache_read`).
    /// The same reducer when nothing changes.
    pub(crate) fn rewrite_reads(
        &self,
        f: &mut impl FnMut(&Expr) -> Expr,
        load: &mut impl FnMut(&Tensor, &[Expr]) -> Option<Value>,
        gather: &mut impl FnMut(&Tensor, &[Value]) -> Option<Value>,
    ) -> CommReducer {
        // Most combiners use no variable and read nothing (`x + y`,
        // identity 0): nothing to rewrite, and nothing to build or compare.
        if !self.uses_vars_or_reads() {
            return self.clone();
        }
        // The combiner's loads are of its operands, which stay. (Plain
        // functions, not closures: a closure here would be a new type at
        // each level of the mutual recursion with `Value::rewrite_reads`.)
        fn keep_load(_: &Tensor, _: &[Expr]) -> Option<Value> {
            None
        }
        fn keep_gather(_: &Tensor, _: &[Value]) -> Option<Value> {
            None
        }
        let result: Vec<Value> = self
            .0
            .result
            .iter()
            .map(|v| v.rewrite_reads(f, &mut keep_load, &mut keep_gather))
            .collect();
        let identity: Vec<Value> = self
            .0
            .identity
            .iter()
            .map(|v| v.rewrite_reads(f, load, gather))
            .collect();
        if same_values(&result, &self.0.result) && same_values(&identity, &self.0.identity) {
            return self.clone();
        }
        CommReducer(Arc::new(ReducerData {
            name: self.0.name.clone(),
            lhs: self.0.lhs.clone(),
            rhs: self.0.rhs.clone(),
            result,
            identity,
        }))
    }

    /// `reducer(sources, axis=axes, where=condition)`: one value per
    /// position of the tuple, to be returned together as the outputs of
    /// one compute (argmax's `(index, value)`). Errors when the number or
    /// types of `sources` differ from the reducer's operands.
    pub fn reduce(
        &self,
        sources: Vec<Value>,
        axes: &[IterVar],
        condition: Option<Expr>,
    ) -> Result<Vec<Value>> {
        let want = self.dtypes();
        let have: Vec<DataType> = sources.iter().map(Value::dtype).collect();
        if have != want {
            let list = |ts: &[DataType]| {
                ts.iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(TeError::definition(format!(
                "`{}` reduces tuples of ({}), but was given ({}): pass one value of each type",
                self.name(),
                list(&want),
                list(&have)
            )));
        }
        let data = Arc::new(ReduceData {
            combiner: self.clone(),
            sources,
            axes: axes.to_vec(),
            condition,
        });
        Ok((0..self.size())
            .map(|k| {
                Value::new(ValueKind::CommReduce(CommReduce {
                    data: data.clone(),
                    value_index: k,
                }))
            })
            .collect())
    }

    /// Position `k` of the combiner with its operands replaced: `lhs[j]`
    /// by `acc[j]` and `rhs[j]` by `new[j]`.
    pub fn combine(&self, k: usize, acc: &[Value], new: &[Value]) -> Value {
        self.0.result[k].rewrite(&mut |e| e.clone(), &mut |t, _| {
            if let Some(j) = self.0.lhs.iter().position(|x| x == t) {
                return acc.get(j).cloned();
            }
            self.0
                .rhs
                .iter()
                .position(|x| x == t)
                .and_then(|j| new.get(j).cloned())
        })
    }

    /// [`Self::combine`] on values of a statement: position `k` of the
    /// combiner, lowered, with `lhs[j]` as `acc[j]` and `rhs[j]` as
    /// `new[j]`.
    pub(crate) fn combine_lowered(
        &self,
        k: usize,
        acc: &[tir::Value],
        new: &[tir::Value],
    ) -> Result<tir::Value> {
        use std::collections::HashMap;
        let operand = |t: &Tensor| tir::Buffer::new(t.name(), t.dtype(), Vec::<Expr>::new());
        let mut buffers = HashMap::new();
        let mut values = HashMap::new();
        for (side, given) in [(&self.0.lhs, acc), (&self.0.rhs, new)] {
            for (t, v) in side.iter().zip(given) {
                let b = operand(t);
                values.insert(b.id(), v.clone());
                buffers.insert(t.op().id(), b);
            }
        }
        let v = crate::extern_op::element_to_buffers(&self.0.result[k], &|t| {
            buffers.get(&t.op().id()).cloned()
        })?;
        struct Operands(HashMap<tir::BufferId, tir::Value>);
        impl tir::mutate::Mutator for Operands {
            type Error = std::convert::Infallible;
            fn value(&mut self, v: &tir::Value) -> std::result::Result<tir::Value, Self::Error> {
                if let tir::Value::Load(l) = v {
                    if let Some(x) = self.0.get(&l.buffer.id()) {
                        return Ok(x.clone());
                    }
                }
                tir::mutate::walk_value(self, v)
            }
        }
        match tir::mutate::Mutator::value(&mut Operands(values), &v) {
            Ok(v) => Ok(v),
            Err(never) => match never {},
        }
    }

    /// Whether the combiner or identity uses a variable or the identity
    /// reads a tensor (what [`CommReducer::rewrite_reads`] may change).
    fn uses_vars_or_reads(&self) -> bool {
        let mut found = false;
        for v in self.0.result.iter().chain(&self.0.identity) {
            v.for_each_index(&mut |e| e.for_each_var(&mut |_| found = true));
        }
        for v in &self.0.identity {
            v.for_each_access(&mut |_, _| found = true);
        }
        found
    }

    /// The operands standing for the accumulated tuple.
    pub(crate) fn lhs(&self) -> &[Tensor] {
        &self.0.lhs
    }

    /// The operands standing for the tuple folded in.
    pub(crate) fn rhs(&self) -> &[Tensor] {
        &self.0.rhs
    }

    /// A position `j` of the combiner that reads accumulated value `k`
    /// of an earlier position (`k < j`), as `(j, k)`: stored one after
    /// another, value `k` would be read after its update.
    pub(crate) fn overwritten_read(&self) -> Option<(usize, usize)> {
        self.0.result.iter().enumerate().find_map(|(j, r)| {
            let mut found = None;
            r.for_each_access(&mut |t, _| {
                if let Some(k) = self.0.lhs[..j].iter().position(|x| x == t) {
                    found.get_or_insert(k);
                }
            });
            found.map(|k| (j, k))
        })
    }
}

impl fmt::Debug for CommReducer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CommReducer({})", self.name())
    }
}

fn contains_reduction(v: &Value) -> bool {
    let mut found = false;
    fn walk(v: &Value, found: &mut bool) {
        tir::stack::grow(|| match v.kind() {
            ValueKind::Reduce(_) | ValueKind::CommReduce(_) => *found = true,
            _ => v.for_each_operand(|a| walk(a, found)),
        })
    }
    walk(v, &mut found);
    found
}

struct ReduceData {
    combiner: CommReducer,
    sources: Vec<Value>,
    axes: Vec<IterVar>,
    condition: Option<Expr>,
}

/// Output `value_index` of a reduction by a [`CommReducer`]: the outputs
/// of one reduction share its sources, axes and condition.
#[derive(Clone)]
pub struct CommReduce {
    data: Arc<ReduceData>,
    value_index: usize,
}

impl CommReduce {
    /// The reducer.
    pub fn combiner(&self) -> &CommReducer {
        &self.data.combiner
    }

    /// The values reduced, one per position of the tuple.
    pub fn sources(&self) -> &[Value] {
        &self.data.sources
    }

    /// The reduction axes.
    pub fn axes(&self) -> &[IterVar] {
        &self.data.axes
    }

    /// Only points where this holds take part (`where=`).
    pub fn condition(&self) -> Option<&Expr> {
        self.data.condition.as_ref()
    }

    /// Which position of the reduced tuple this value is.
    pub fn value_index(&self) -> usize {
        self.value_index
    }

    /// Whether `other` is an output of the same reduction (the same
    /// reducer, sources, axes and condition), as the outputs of one compute
    /// must be.
    pub fn same_reduction(&self, other: &CommReduce) -> bool {
        Arc::ptr_eq(&self.data, &other.data)
            || (self.combiner().same(other.combiner())
                && self.axes() == other.axes()
                && self.condition() == other.condition()
                && self.sources().len() == other.sources().len()
                && self
                    .sources()
                    .iter()
                    .zip(other.sources())
                    .all(|(a, b)| a.to_string() == b.to_string()))
    }

    /// The same output of a reduction with each source rewritten.
    pub(crate) fn map_sources(&self, source: &mut impl FnMut(&Value) -> Value) -> CommReduce {
        CommReduce {
            data: Arc::new(ReduceData {
                combiner: self.data.combiner.clone(),
                sources: self.data.sources.iter().map(source).collect(),
                axes: self.data.axes.clone(),
                condition: self.data.condition.clone(),
            }),
            value_index: self.value_index,
        }
    }
}

/// Whether two lists of values print the same (values have no structural
/// equality of their own; their text names every node and variable).
fn same_values(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_string() == y.to_string())
}

impl CommReduce {
    /// The same output of a reduction with its combiner replaced.
    pub(crate) fn with_combiner(&self, combiner: CommReducer) -> CommReduce {
        if Arc::ptr_eq(&combiner.0, &self.data.combiner.0) {
            return self.clone();
        }
        CommReduce {
            data: Arc::new(ReduceData {
                combiner,
                sources: self.data.sources.clone(),
                axes: self.data.axes.clone(),
                condition: self.data.condition.clone(),
            }),
            value_index: self.value_index,
        }
    }

    /// The same output of a reduction over `axes` (the same variables,
    /// perhaps over other ranges).
    pub(crate) fn with_axes(&self, axes: Vec<IterVar>) -> CommReduce {
        let same = axes.len() == self.data.axes.len()
            && axes
                .iter()
                .zip(&self.data.axes)
                .all(|(a, b)| a.dom() == b.dom());
        if same {
            return self.clone();
        }
        CommReduce {
            data: Arc::new(ReduceData {
                combiner: self.data.combiner.clone(),
                sources: self.data.sources.clone(),
                axes,
                condition: self.data.condition.clone(),
            }),
            value_index: self.value_index,
        }
    }

    /// The same output of a reduction with its condition replaced.
    pub(crate) fn with_condition(&self, condition: Option<Expr>) -> CommReduce {
        CommReduce {
            data: Arc::new(ReduceData {
                combiner: self.data.combiner.clone(),
                sources: self.data.sources.clone(),
                axes: self.data.axes.clone(),
                condition,
            }),
            value_index: self.value_index,
        }
    }
}

impl fmt::Debug for CommReduce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for CommReduce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}((", self.combiner().name())?;
        for (k, s) in self.sources().iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{s}")?;
        }
        f.write_str("), axis=[")?;
        for (k, a) in self.axes().iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            f.write_str(a.name())?;
        }
        f.write_str("]")?;
        if let Some(c) = self.condition() {
            write!(f, ", where={c}")?;
        }
        write!(f, ")[{}]", self.value_index)
    }
}

/// Checks that the bodies of a compute with several outputs (`first`, then
/// `more`) are either all free of reductions or, in order, every output of
/// one reduction by a [`CommReducer`].
pub(crate) fn check_outputs(first: &Value, more: &[Value], name: &str) -> Result<()> {
    let is_reduce = |v: &Value| matches!(v.kind(), ValueKind::Reduce(_) | ValueKind::CommReduce(_));
    match first.kind() {
        ValueKind::CommReduce(r) => {
            let n = r.combiner().size();
            if more.len() + 1 != n {
                return Err(TeError::definition(format!(
                    "`{name}` returns {} of the {n} values of its `{}` reduction: return all of \
                     them, in order",
                    more.len() + 1,
                    r.combiner().name()
                )));
            }
            for (k, v) in std::iter::once(first).chain(more).enumerate() {
                let ok = match v.kind() {
                    ValueKind::CommReduce(o) => o.same_reduction(r) && o.value_index() == k,
                    _ => false,
                };
                if !ok {
                    return Err(TeError::definition(format!(
                        "value {k} of `{name}` is `{v}`, but the outputs of a compute with a \
                         reduction must be the values of one reduction, in order (value {k} of \
                         `{}`)",
                        r.combiner().name()
                    )));
                }
            }
            Ok(())
        }
        _ if more.is_empty() => Ok(()),
        ValueKind::Reduce(_) => Err(TeError::definition(format!(
            "`{name}` returns several values, the first a reduction: the outputs of a compute \
             with a reduction must all come from one reducer (a `te.comm_reducer` over tuples)"
        ))),
        _ => match more.iter().position(is_reduce) {
            Some(k) => Err(TeError::definition(format!(
                "value {} of `{name}` is a reduction but value 0 is not: the outputs of one \
                 compute are either all reductions or none",
                k + 1
            ))),
            None => Ok(()),
        },
    }
}
