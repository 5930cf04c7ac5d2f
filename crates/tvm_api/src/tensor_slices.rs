//! Slices of tensors and calls of tensor intrinsics on them: what a
//! compute's lambda returns to make a tensor compute operation
//! (`lambda i: vadd(A[i, 0:16], B[i, 0:16])`, TVM's `TensorSlice` and
//! `TensorIntrinCall`).

use crate::args::{Args, Given};
use crate::error::{type_error, ApiResult, ArgRef};
use crate::object::Object;
use crate::objects::{to_index, to_iter_var};
use crate::value::Value;
use arith::{Expr, Range};
use std::rc::Rc;

/// `start:stop:step` as an index: a [`Object::Slice`]. A slice of a
/// tensor takes no step (TVM asserts `step is None`).
pub fn slice(start: Value, stop: Value, step: Value) -> ApiResult<Value> {
    if !matches!(step, Value::None) {
        return Err(type_error(
            None,
            "a slice of a tensor takes no step: write `start:stop`",
        ));
    }
    let bound = |v: Value| -> ApiResult<Option<Expr>> {
        match v {
            Value::None => Ok(None),
            v => to_index(&Given {
                value: v,
                at: ArgRef::Positional(0),
            })
            .map(Some),
        }
    };
    Ok(Value::Object(Object::Slice(bound(start)?, bound(stop)?)))
}

/// Whether a subscript's indices include a slice.
pub(crate) fn has_slice(index: &Value) -> bool {
    let is_slice = |v: &Value| matches!(v, Value::Object(Object::Slice(..)));
    match index {
        Value::Tuple(items) => items.iter().any(is_slice),
        other => is_slice(other),
    }
}

/// `t[first..., index]` where the index has a slice: the region it names
/// (TVM's `_get_region`): a slice `a:b` is `[a, b - a)`, an index `e` is
/// `[e, 1)`; dimensions not indexed are whole.
pub(crate) fn tensor_slice(t: &te::Tensor, first: &[Expr], index: &Value) -> ApiResult<Value> {
    let items = match index {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    if first.len() + items.len() > t.ndim() {
        return Err(crate::error::error(
            crate::ErrorClass::IndexError,
            None,
            format!(
                "`{}` has {} dimensions but {} indices were given",
                t.name(),
                t.ndim(),
                first.len() + items.len()
            ),
        ));
    }
    let mut region: Vec<Range> = first
        .iter()
        .map(|e| Range::new(e.clone(), Expr::int(1)))
        .collect();
    for item in items {
        let d = region.len();
        region.push(match item {
            Value::Object(Object::Slice(start, stop)) => {
                let start = start.unwrap_or(Expr::int(0));
                let stop = stop.unwrap_or_else(|| t.shape()[d].clone());
                let raw = Expr::sub(stop, start.clone());
                let extent = arith::Analyzer::new().simplify(&raw).unwrap_or(raw);
                Range::new(start, extent)
            }
            other => {
                let e = to_index(&Given {
                    value: other,
                    at: ArgRef::Positional(0),
                })?;
                Range::new(e, Expr::int(1))
            }
        });
    }
    for d in region.len()..t.ndim() {
        region.push(Range::from_extent(t.shape()[d].clone()));
    }
    Ok(Value::Object(Object::TensorSlice(t.clone(), region.into())))
}

/// `intrin(args..., reduce_axis=...)`: tensor slices (or whole tensors)
/// are the regions passed, any other argument a scalar value.
pub(crate) fn call_intrin(intrin: &te::TensorIntrin, args: Args) -> ApiResult<Value> {
    let mut regions = Vec::new();
    let mut scalars = Vec::new();
    for (k, v) in args.positional.into_iter().enumerate() {
        match v {
            Value::Object(Object::TensorSlice(t, region)) => regions.push((t, region.to_vec())),
            Value::Object(Object::Tensor(t)) => {
                let whole = t.shape().iter().cloned().map(Range::from_extent).collect();
                regions.push((t, whole));
            }
            // `A[i, j]`: one element is a region too (TVM's `TensorSlice`
            // with every index given).
            Value::Object(Object::Element(e)) if matches!(e.kind(), te::ValueKind::Load(..)) => {
                let te::ValueKind::Load(t, idx) = e.kind() else {
                    unreachable!("matched above")
                };
                let one = idx
                    .iter()
                    .map(|i| Range::new(i.clone(), Expr::int(1)))
                    .collect();
                regions.push((t.clone(), one));
            }
            other => scalars.push(to_index(&Given {
                value: other,
                at: ArgRef::Positional(k),
            })?),
        }
    }
    let mut reduce_axis = Vec::new();
    for (name, v) in args.keywords {
        if name != "reduce_axis" {
            return Err(type_error(
                Some(ArgRef::Keyword(name.clone())),
                format!("a tensor intrinsic takes no keyword `{name}`; it takes `reduce_axis`"),
            ));
        }
        let given = Given {
            value: v,
            at: ArgRef::Keyword(name),
        };
        let items = match &given.value {
            Value::List(_) | Value::Tuple(_) => given.value.sequence().unwrap_or_default(),
            other => vec![other.clone()],
        };
        for item in items {
            reduce_axis.push(to_iter_var(&given.item(item))?);
        }
    }
    let call = te::IntrinCall::new(intrin, regions, reduce_axis, scalars)
        .map_err(|e| crate::error::te_error(&None, e))?;
    Ok(Value::Object(Object::IntrinCall(Rc::new(call))))
}

/// An attribute of a tensor slice: `.tensor`, `.indices`, `.shape`.
pub(crate) fn slice_attribute(t: &te::Tensor, region: &[Range], name: &str) -> Option<Value> {
    Some(match name {
        "tensor" => Value::Object(Object::Tensor(t.clone())),
        "shape" => Value::tuple(
            region
                .iter()
                .map(|r| {
                    r.extent
                        .as_int()
                        .map_or_else(|| Value::Index(r.extent.clone()), Value::Int)
                })
                .collect(),
        ),
        "dtype" => Value::str(t.dtype().name()),
        _ => return None,
    })
}

/// An attribute of a tensor intrinsic (TVM's `TensorIntrin`): `.name`,
/// `.op`, `.inputs`, `.scalar_params`, and the names of the calls it was
/// declared with (`.body`, `.reduce_init`, `.reduce_update`; `None` when
/// absent).
pub(crate) fn intrin_attribute(t: &te::TensorIntrin, name: &str) -> Option<Value> {
    let call = |c: &Option<String>| c.as_deref().map_or(Value::None, Value::str);
    Some(match name {
        "name" => Value::str(t.name()),
        "op" => Value::Object(Object::Op(t.op().clone())),
        "inputs" => Value::list(
            t.inputs()
                .iter()
                .map(|x| Value::Object(Object::Tensor(x.clone())))
                .collect(),
        ),
        "scalar_params" => Value::list(
            t.scalar_params()
                .iter()
                .map(|v| Value::Index(v.expr()))
                .collect(),
        ),
        "buffers" => Value::list(
            t.buffers()
                .iter()
                .map(|b| Value::Object(Object::DeclBuffer(b.clone(), Rc::from(Vec::new()))))
                .collect(),
        ),
        "body" => call(&t.calls().body),
        "reduce_init" => call(&t.calls().reset),
        "reduce_update" => call(&t.calls().update),
        _ => return None,
    })
}

/// An attribute of a tensor compute operation that other operations do
/// not have: `.intrin`, `.inputs` (one per region passed),
/// `.input_regions`, `.scalar_inputs`, `.schedulable_ndim`.
pub(crate) fn tensor_compute_attribute(tc: &te::TensorComputeOp, name: &str) -> Option<Value> {
    let range = |r: &Range| Value::Object(Object::Range(r.clone()));
    Some(match name {
        "intrin" => Value::Object(Object::TensorIntrin(tc.intrin.clone())),
        "inputs" => Value::list(
            tc.inputs
                .iter()
                .map(|x| Value::Object(Object::Tensor(x.clone())))
                .collect(),
        ),
        "input_regions" => Value::list(
            tc.regions
                .iter()
                .map(|reg| Value::list(reg.iter().map(range).collect()))
                .collect(),
        ),
        "scalar_inputs" => {
            Value::list(tc.scalar_inputs.iter().cloned().map(Value::Index).collect())
        }
        "schedulable_ndim" => Value::Int(tc.schedulable_ndim as i64),
        _ => return None,
    })
}
