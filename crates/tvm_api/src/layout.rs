//! `s[T].transform_layout(fn)` and `te.AXIS_SEPARATOR` (seed 001).
//!
//! `fn` is called with one index variable per dimension of `T` (named after
//! its parameters; `lambda *i` gives `i0, i1, ...`; a function of a single
//! parameter receives the list of indices, as in the RFC's
//! `def nhwc_to_nchwc(logical_axes)`), and returns the transformed indices,
//! with `te.AXIS_SEPARATOR` between groups of physical axes.

use crate::args::{Args, Given};
use crate::error::{tvm_error, type_error, ApiResult};
use crate::functions::call_back;
use crate::object::{Object, ScheduleRef};
use crate::objects::to_index;
use crate::value::Value;
use crate::Host;
use arith::Var;

/// `s[op].transform_layout(mapping_function)`: returns the transformed axes.
pub(crate) fn transform_layout(
    host: &mut dyn Host,
    s: &ScheduleRef,
    op: &te::Operation,
    args: Args,
) -> ApiResult<Value> {
    let span = None;
    let a = args.bind("transform_layout", &["mapping_function"])?;
    let f = a.required("mapping_function")?;
    let ndim = op.shape().len();
    let Some(func) = host.parameters(&f.value) else {
        return Err(type_error(
            f.place(),
            format!(
                "`transform_layout` needs a lambda or function of the indices, found a {}",
                f.value.type_name()
            ),
        ));
    };
    let as_list = !func.varargs && func.names.len() == 1 && ndim != 1;
    let names: Vec<String> = if func.varargs || as_list {
        (0..ndim).map(|d| format!("i{d}")).collect()
    } else if func.names.len() == ndim {
        func.names.clone()
    } else {
        return Err(type_error(
            f.place(),
            format!(
                "`{}` has {ndim} dimensions but the function takes {} indices",
                op.name(),
                func.names.len()
            ),
        ));
    };
    let vars: Vec<Var> = names.iter().map(|n| Var::new(n.as_str())).collect();
    let indices: Vec<Value> = vars.iter().map(|v| Value::Index(v.expr())).collect();
    let call_args = if as_list {
        vec![Value::list(indices)]
    } else {
        indices
    };
    let result = call_back(host, &f.value, call_args, &f.at)?;
    let items: Vec<Value> = match &result {
        Value::List(l) => l.borrow().clone(),
        Value::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let mut finals = Vec::with_capacity(items.len());
    let mut separators = Vec::new();
    for item in items {
        if matches!(item, Value::Object(Object::AxisSeparator)) {
            separators.push(finals.len());
            continue;
        }
        let index = to_index(&Given {
            value: item,
            at: f.at.clone(),
        });
        finals.push(index.map_err(|e| {
            if as_list {
                type_error(
                    f.place(),
                    format!(
                        "{}; `{}` has {ndim} dimensions and the function takes one parameter, so it received the list of indices",
                        e.message,
                        op.name()
                    ),
                )
            } else {
                e
            }
        })?);
    }
    let map = layout::IndexMap::new(vars, finals, separators)
        .map_err(|e| type_error(f.place(), e.message))?;
    let axes = s
        .borrow_mut()
        .transform_layout(op, map)
        .map_err(|e| tvm_error(span, e.message))?;
    Ok(Value::list(
        axes.into_iter()
            .map(|iv| Value::Object(Object::IterVar(iv)))
            .collect(),
    ))
}
