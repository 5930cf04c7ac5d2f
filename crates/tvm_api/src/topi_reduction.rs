//! TOPI's reductions (`tvm.topi.reduction`): max, min, prod, argmax, argmin, all, any.
//!
//! Every operator is built as TOPI v0.19 builds it (stage names, tags,
//! axis names and bodies), so that schedules written against TOPI's
//! output find what they expect:
//!
//! - `max`, `min`, `prod`, `all`, `any` (TOPI's `CommReduce`): one stage
//!   `<input>_red` (tag `comm_reduce`, axes `ax0, ax1, ...`, reduction
//!   axes `k<d>` after the input's dimension `d`), as `topi.sum` is built;
//! - `argmax`, `argmin` (TOPI's `CommReduceIdx`): a stage
//!   `<input>_red_temp` with two outputs, the flattened index of the
//!   reduced axes and the value, combined by the tuple reducer `argmax`
//!   (`argmin`), then `<input>_red` taking the index; both tagged
//!   `comm_reduce_idx`.
//!
//! The reduced axes are `axis=None` (all), an integer or a sequence of
//! them, negative counting from the end, sorted and deduplicated; with
//! `keepdims=True` they stay as dimensions of size 1.

use crate::args::{Args, Given};
use crate::error::{te_error, type_error, ApiError, ApiResult, ErrorClass};
use crate::object::Object;
use crate::objects::{promote, to_element};
use crate::value::Value;
use crate::Host;
use arith::{CmpOp, Expr};
use te::Attrs;
use tir::DataType;

/// The operators of this module, one per TOPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    /// `tvm.topi.max`: the largest element, from the type's lowest value.
    Max,
    /// `tvm.topi.min`: the smallest element, from the type's highest value.
    Min,
    /// `tvm.topi.prod`: the product of the elements, from 1.
    Prod,
    /// `tvm.topi.argmax`: the flattened index of the largest element.
    Argmax,
    /// `tvm.topi.argmin`: the flattened index of the smallest element.
    Argmin,
    /// `tvm.topi.all`: logical AND of boolean elements.
    All,
    /// `tvm.topi.any`: logical OR of boolean elements.
    Any,
}

impl ReductionOp {
    /// The operator `module_path.name`, if this module builds it.
    pub(crate) fn lookup(module_path: &str, name: &str) -> Option<ReductionOp> {
        if !matches!(module_path, "tvm.topi" | "tvm.topi.reduction") {
            return None;
        }
        Some(match name {
            "max" => ReductionOp::Max,
            "min" => ReductionOp::Min,
            "prod" => ReductionOp::Prod,
            "argmax" => ReductionOp::Argmax,
            "argmin" => ReductionOp::Argmin,
            "all" => ReductionOp::All,
            "any" => ReductionOp::Any,
            _ => return None,
        })
    }

    /// The function's own name, as the signature reports it.
    fn name(self) -> &'static str {
        match self {
            ReductionOp::Max => "max",
            ReductionOp::Min => "min",
            ReductionOp::Prod => "prod",
            ReductionOp::Argmax => "argmax",
            ReductionOp::Argmin => "argmin",
            ReductionOp::All => "all",
            ReductionOp::Any => "any",
        }
    }

    /// TVM's dotted name of the operator, for messages.
    pub(crate) fn tvm_name(self) -> &'static str {
        match self {
            ReductionOp::Max => "tvm.topi.max",
            ReductionOp::Min => "tvm.topi.min",
            ReductionOp::Prod => "tvm.topi.prod",
            ReductionOp::Argmax => "tvm.topi.argmax",
            ReductionOp::Argmin => "tvm.topi.argmin",
            ReductionOp::All => "tvm.topi.all",
            ReductionOp::Any => "tvm.topi.any",
        }
    }
}

/// Builds `op` from a call's arguments: `op(data, axis=None,
/// keepdims=False)`, and for argmax/argmin `select_last_index=False` too.
pub(crate) fn call(host: &mut dyn Host, args: Args, op: ReductionOp) -> ApiResult<Value> {
    let indexed = matches!(op, ReductionOp::Argmax | ReductionOp::Argmin);
    let params: &[&'static str] = if indexed {
        &["data", "axis", "keepdims", "select_last_index"]
    } else {
        &["data", "axis", "keepdims"]
    };
    let a = args.bind(op.name(), params)?;
    let data_arg = a.required("data")?;
    let x = match &data_arg.value {
        Value::Object(Object::Tensor(t)) => t.clone(),
        other => {
            return Err(type_error(
                data_arg.place(),
                format!(
                    "`{}` needs a tensor, found a {}",
                    op.tvm_name(),
                    other.type_name()
                ),
            ))
        }
    };
    if x.ndim() == 0 {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!(
                "`{}` cannot reduce the 0-dimensional tensor `{}`: give a tensor with at least \
                 one dimension",
                op.tvm_name(),
                x.name()
            ),
        )
        .at(data_arg.at.clone()));
    }
    if matches!(op, ReductionOp::All | ReductionOp::Any) && x.dtype() != DataType::Bool {
        return Err(type_error(
            data_arg.place(),
            format!(
                "`{}` reduces boolean tensors, but `{}` is {}: compare it first (e.g. \
                 `topi.not_equal(x, 0)`)",
                op.tvm_name(),
                x.name(),
                x.dtype()
            ),
        ));
    }
    let reduced = real_axes(a.get("axis"), x.ndim())?;
    let flag = |name: &str| a.get(name).map_or(Ok(false), |g| crate::truth(&g.value));
    let keepdims = flag("keepdims")?;
    let layout = Layout::new(&x, reduced, keepdims);
    let raxes = layout.reduce_axes(&x);
    for iv in &raxes {
        host.session().reduce_vars.insert(iv.var().clone());
    }
    let out = match op {
        ReductionOp::Argmax | ReductionOp::Argmin => {
            let last = flag("select_last_index")?;
            comm_reduce_idx(&x, &layout, &raxes, op == ReductionOp::Argmax, last)?
        }
        _ => comm_reduce(&x, &layout, &raxes, op)?,
    };
    Ok(Value::Object(Object::Tensor(out)))
}

/// TOPI's `GetRealAxis`: the dimensions `axis` names (all for `None`),
/// negative ones counted from the end, sorted, each once.
fn real_axes(axis: Option<&Given>, ndim: usize) -> ApiResult<Vec<usize>> {
    let Some(g) = axis.filter(|g| !matches!(g.value, Value::None)) else {
        return Ok((0..ndim).collect());
    };
    let items = match promote(&g.value) {
        v @ (Value::Int(_) | Value::Bool(_)) => vec![v],
        Value::Index(e) if e.as_int().is_some() => vec![Value::Index(e)],
        other => other.sequence().ok_or_else(|| {
            type_error(
                g.place(),
                format!(
                    "`axis` needs None, an integer or a list of integers, found a {}",
                    other.type_name()
                ),
            )
        })?,
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let i = match promote(&item) {
            Value::Index(e) => e.as_int(),
            v => crate::operators::as_int(&v),
        }
        .ok_or_else(|| {
            type_error(
                g.place(),
                format!("`axis` needs integers, found a {}", item.type_name()),
            )
        })?;
        let d = if i < 0 {
            i.checked_add(ndim as i64)
        } else {
            Some(i)
        };
        match d.filter(|&d| d >= 0 && d < ndim as i64) {
            Some(d) => out.push(d as usize),
            None => {
                return Err(ApiError::new(
                    ErrorClass::ValueError,
                    format!(
                        "axis {i} is out of range for a {ndim}-dimensional tensor: use -{ndim} \
                         to {}",
                        ndim - 1
                    ),
                )
                .at(g.at.clone()))
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Where the input's dimensions go in a reduction: TOPI's
/// `MakeReduceTargetShape` and the index mapping of `DoCommReduce`.
struct Layout {
    /// The input's rank.
    ndim: usize,
    /// The reduced dimensions, sorted, each once.
    reduced: Vec<usize>,
    /// Whether reduced dimensions stay, of size 1.
    keepdims: bool,
    /// The output's shape.
    out_shape: Vec<Expr>,
}

impl Layout {
    /// The layout of reducing `reduced` of `x`.
    fn new(x: &te::Tensor, reduced: Vec<usize>, keepdims: bool) -> Layout {
        let mut out_shape = Vec::new();
        for (d, dim) in x.shape().iter().enumerate() {
            if !reduced.contains(&d) {
                out_shape.push(dim.clone());
            } else if keepdims {
                out_shape.push(Expr::int(1));
            }
        }
        Layout {
            ndim: x.ndim(),
            reduced,
            keepdims,
            out_shape,
        }
    }

    /// TOPI's `MakeReduceAxes`: `k<d>` over each reduced dimension `d`.
    fn reduce_axes(&self, x: &te::Tensor) -> Vec<te::IterVar> {
        self.reduced
            .iter()
            .map(|&d| te::reduce_axis((Expr::int(0), x.shape()[d].clone()), &format!("k{d}")))
            .collect()
    }

    /// The input's indices at the output's indices `o`: a reduced
    /// dimension reads its reduction axis, the others the output's axis
    /// (a kept dimension of size 1 takes an output axis it does not use).
    fn input_indices(&self, o: &[Expr], raxes: &[te::IterVar]) -> Vec<Expr> {
        let mut idx = Vec::with_capacity(self.ndim);
        let mut next = 0;
        for d in 0..self.ndim {
            match self.reduced.iter().position(|&r| r == d) {
                Some(r) => {
                    idx.push(raxes[r].expr());
                    next += usize::from(self.keepdims);
                }
                None => {
                    idx.push(o[next].clone());
                    next += 1;
                }
            }
        }
        idx
    }

    /// The output's axis names, `ax0, ax1, ...` as C++ `te::compute` names them.
    fn axis_names(&self) -> Vec<String> {
        (0..self.out_shape.len())
            .map(|d| format!("ax{d}"))
            .collect()
    }
}

/// TOPI's `CommReduce`: one stage `<input>_red` (tag `comm_reduce`).
fn comm_reduce(
    x: &te::Tensor,
    layout: &Layout,
    raxes: &[te::IterVar],
    op: ReductionOp,
) -> ApiResult<te::Tensor> {
    let names = layout.axis_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // `tvm::all` and `tvm::any` are reducers of their own, `x && y`
    // from true and `x || y` from false.
    let logical = match op {
        ReductionOp::All | ReductionOp::Any => {
            let lhs = te::CommReducer::operands("x", &[DataType::Bool]);
            let rhs = te::CommReducer::operands("y", &[DataType::Bool]);
            let (l, r) = (lhs[0].clone(), rhs[0].clone());
            let all = op == ReductionOp::All;
            let combined = if all {
                te::Value::and(l, r)
            } else {
                te::Value::or(l, r)
            };
            let identity = te::Value::index(Expr::bool(all));
            Some(
                te::CommReducer::new(op.name(), &lhs, &rhs, vec![combined], vec![identity])
                    .map_err(|e| te_error(&None, e))?,
            )
        }
        _ => None,
    };
    te::try_compute_tagged(
        layout.out_shape.clone(),
        &names,
        |o| {
            let source = x.at(layout.input_indices(o, raxes));
            Ok::<_, te::TeError>(match (&logical, op) {
                (Some(reducer), _) => reducer
                    .reduce(vec![source], raxes, None)?
                    .into_iter()
                    .next()
                    .expect("one value reduced"),
                (None, ReductionOp::Max) => te::max(source, raxes),
                (None, ReductionOp::Min) => te::min(source, raxes),
                (None, _) => te::prod(source, raxes),
            })
        },
        &format!("{}_red", x.op().name()),
        "comm_reduce",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))
}

/// TOPI's `MakeArgmaxReducer` / `MakeArgminReducer`: over (index, value)
/// pairs, the value that is larger (smaller) wins, and on a tie the
/// smaller index (the larger with `select_last_index`); the identity is
/// (-1, the type's lowest (highest) value).
fn arg_reducer(dtype: DataType, argmax: bool, select_last: bool) -> ApiResult<te::CommReducer> {
    let name = if argmax { "argmax" } else { "argmin" };
    let dtypes = [DataType::Int32, dtype];
    let lhs = te::CommReducer::operands(&format!("{name}_lhs"), &dtypes);
    let rhs = te::CommReducer::operands(&format!("{name}_rhs"), &dtypes);
    let better = te::Value::cmp(
        if argmax { CmpOp::Gt } else { CmpOp::Lt },
        lhs[1].clone(),
        rhs[1].clone(),
    );
    let same = te::Value::cmp(CmpOp::Eq, lhs[1].clone(), rhs[1].clone());
    let proper_index = te::Value::cmp(
        if select_last { CmpOp::Gt } else { CmpOp::Lt },
        lhs[0].clone(),
        rhs[0].clone(),
    );
    let update_index = te::Value::or(better.clone(), te::Value::and(same, proper_index));
    let result = vec![
        te::Value::select_value(update_index, lhs[0].clone(), rhs[0].clone()),
        te::Value::select_value(better, lhs[1].clone(), rhs[1].clone()),
    ];
    let start = to_element(&crate::casts::limit(dtype, !argmax), None)?;
    let identity = vec![te::Value::int(-1), start];
    te::CommReducer::new(name, &lhs, &rhs, result, identity).map_err(|e| te_error(&None, e))
}

/// TOPI's `CommReduceIdx`: `<input>_red_temp` reduces (flattened index of
/// the reduced axes, value) pairs with [`arg_reducer`] into two outputs,
/// and `<input>_red` reads the index; both tagged `comm_reduce_idx`.
fn comm_reduce_idx(
    x: &te::Tensor,
    layout: &Layout,
    raxes: &[te::IterVar],
    argmax: bool,
    select_last: bool,
) -> ApiResult<te::Tensor> {
    let reducer = arg_reducer(x.dtype(), argmax, select_last)?;
    let names = layout.axis_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let name = x.op().name().to_string();
    let temp = te::try_compute_multi_tagged(
        layout.out_shape.clone(),
        &names,
        |o| {
            // TOPI's `RavelIndex` of the reduction axes over the reduced
            // dimensions' extents.
            let mut flat: Option<Expr> = None;
            for (iv, &d) in raxes.iter().zip(&layout.reduced) {
                flat = Some(match flat {
                    None => iv.expr(),
                    Some(f) => f * x.shape()[d].clone() + iv.expr(),
                });
            }
            let index = te::Value::index(flat.unwrap_or_else(|| Expr::int(0)));
            let value = x.at(layout.input_indices(o, raxes));
            reducer.reduce(vec![index, value], raxes, None)
        },
        &format!("{name}_red_temp"),
        "comm_reduce_idx",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))?;
    te::try_compute_tagged(
        layout.out_shape.clone(),
        &names,
        |o| Ok::<_, te::TeError>(temp[0].at(o.to_vec())),
        &format!("{name}_red"),
        "comm_reduce_idx",
        Attrs::new(),
    )
    .map_err(|e| te_error(&None, e))
}
