//! Python's builtin functions that TE scripts use.

use crate::args::Args;
use crate::error::{Eval, Raised};
use crate::interp::Interpreter;
use crate::native::Native;
use crate::objects;
use crate::operators::{self, as_index, as_int};
use crate::value::{script_value, ScriptValue, Value};
use arith::Expr;
use std::ops::Range;
use tvm_api::{Class, Object};

/// The longest `range(...)` a script may build.
const MAX_RANGE_LEN: i64 = 1_000_000;

/// Runs the Python builtin `native`.
pub(crate) fn call(interp: &mut Interpreter, native: Native, args: Args) -> Eval<Value> {
    match native {
        Native::Print => print(interp, args),
        Native::Range => range(args),
        // The API's `len`: sequences, dicts, strings and the InferBound map.
        Native::Len => one_arg("len", args).and_then(|(v, span)| {
            tvm_api::len(&v)
                .map(|n| Value::Int(n as i64))
                .map_err(|e| Raised::api(span, e))
        }),
        Native::Tuple | Native::List => one_arg(native.name(), args).and_then(|(v, span)| {
            let items = objects::unpack(&v).ok_or_else(|| {
                Raised::at(
                    span,
                    format!("cannot make a {} of a {}", native.name(), v.type_name()),
                )
            })?;
            Ok(if native == Native::Tuple {
                Value::tuple(items)
            } else {
                Value::list(items)
            })
        }),
        Native::Int => one_arg("int", args).and_then(|(v, span)| match v {
            Value::Int(_) => Ok(v),
            Value::Bool(b) => Ok(Value::Int(i64::from(b))),
            Value::Float(f) if f.is_finite() && f.abs() < 9.0e18 => {
                Ok(Value::Int(f.trunc() as i64))
            }
            Value::Index(e) => tvm_api::constant(&e)
                .map(Value::Int)
                .ok_or_else(|| Raised::at(span, format!("`{e}` is not a constant"))),
            other => Err(Raised::at(
                span,
                format!("cannot convert a {} to int", other.type_name()),
            )),
        }),
        Native::Abs => one_arg("abs", args).and_then(|(v, span)| match v {
            Value::Int(i) => i
                .checked_abs()
                .map(Value::Int)
                .ok_or_else(|| Raised::at(span, "integer overflow in abs")),
            Value::Float(f) => Ok(Value::Float(f.abs())),
            other => Err(Raised::at(
                span,
                format!("abs of a {} is not supported", other.type_name()),
            )),
        }),
        Native::Min | Native::Max => min_max(native, args),
        Native::Isinstance => isinstance(args),
        Native::AnyOf | Native::AllOf => any_all(interp, native, args),
        Native::Zip => zip(args),
        Native::Enumerate => one_arg("enumerate", args).and_then(|(v, span)| {
            let items = v
                .sequence()
                .ok_or_else(|| Raised::at(span, format!("cannot enumerate a {}", v.type_name())))?;
            let pairs = items.into_iter().enumerate();
            Ok(Value::list(
                pairs
                    .map(|(i, v)| Value::tuple(vec![Value::Int(i as i64), v]))
                    .collect(),
            ))
        }),
        Native::PytestRaises => one_arg("pytest.raises", args).and_then(|(v, span)| match v {
            Value::Object(Object::Class(Class::Error(class))) => {
                Ok(Value::host(ScriptValue::ExpectError(class)))
            }
            other => Err(Raised::at(
                span,
                format!(
                    "`pytest.raises` needs an exception class, not a {}",
                    other.type_name()
                ),
            )),
        }),
    }
}

fn one_arg(name: &str, args: Args) -> Eval<(Value, Range<usize>)> {
    let (mut pos, span) = args.positional_only(name)?;
    if pos.len() != 1 {
        return Err(Raised::at(
            span,
            format!("`{name}` takes exactly one argument"),
        ));
    }
    let a = pos.remove(0);
    Ok((a.value, a.span))
}

fn print(interp: &mut Interpreter, args: Args) -> Eval<Value> {
    let (pos, _) = args.positional_only("print")?;
    let line: Vec<String> = pos.iter().map(|a| a.value.to_string()).collect();
    interp.printed.push_str(&line.join(" "));
    interp.printed.push('\n');
    Ok(Value::None)
}

fn range(args: Args) -> Eval<Value> {
    let (pos, span) = args.positional_only("range")?;
    let mut ints = Vec::new();
    for a in &pos {
        ints.push(as_int(&a.value).ok_or_else(|| {
            Raised::at(
                a.span.clone(),
                format!("`range` needs integers, not a {}", a.value.type_name()),
            )
        })?);
    }
    let (start, stop, step) = match ints[..] {
        [stop] => (0, stop, 1),
        [start, stop] => (start, stop, 1),
        [start, stop, step] => (start, stop, step),
        _ => return Err(Raised::at(span, "`range` takes one to three integers")),
    };
    if step == 0 {
        return Err(Raised::at(span, "`range` step must not be zero"));
    }
    // In 128 bits, so that no start, stop or step can overflow.
    let (start128, stop128, step128) = (i128::from(start), i128::from(stop), i128::from(step));
    let (distance, stride) = if step > 0 {
        (stop128 - start128, step128)
    } else {
        (start128 - stop128, -step128)
    };
    let len = (distance.max(0) + stride - 1) / stride;
    if len > i128::from(MAX_RANGE_LEN) {
        return Err(Raised::at(
            span,
            format!("`range` of {len} values is too long for a script"),
        ));
    }
    // Every value lies between start and stop, so it fits in 64 bits.
    let items = (0..len)
        .map(|k| Value::Int((start128 + k * step128) as i64))
        .collect();
    Ok(Value::tuple(items))
}

fn min_max(native: Native, args: Args) -> Eval<Value> {
    let name = native.name();
    let (pos, span) = args.positional_only(name)?;
    let values: Vec<Value> = match &pos[..] {
        [one] => one.value.sequence().ok_or_else(|| {
            Raised::at(
                one.span.clone(),
                format!("`{name}` of one argument needs a tuple or list"),
            )
        })?,
        many => many.iter().map(|a| a.value.clone()).collect(),
    };
    let Some(first) = values.first().cloned() else {
        return Err(Raised::at(span, format!("`{name}` of nothing")));
    };
    let mut best = first;
    for v in &values[1..] {
        best = if let (Some(a), Some(b)) = (as_int(&best), as_int(v)) {
            Value::Int(if native == Native::Min {
                a.min(b)
            } else {
                a.max(b)
            })
        } else if let (Some(a), Some(b)) = (as_index(&best), as_index(v)) {
            Value::Index(if native == Native::Min {
                Expr::min(a, b)
            } else {
                Expr::max(a, b)
            })
        } else {
            let op = if native == Native::Min {
                arith::CmpOp::Lt
            } else {
                arith::CmpOp::Gt
            };
            match operators::compare(op, v, &best, span.clone())? {
                Value::Bool(true) => v.clone(),
                Value::Bool(false) => best,
                _ => return Err(Raised::at(span, format!("cannot compare in `{name}`"))),
            }
        };
    }
    Ok(best)
}

fn isinstance(args: Args) -> Eval<Value> {
    let (pos, span) = args.positional_only("isinstance")?;
    let [value, ty] = &pos[..] else {
        return Err(Raised::at(span, "`isinstance` takes a value and a type"));
    };
    // A tuple of types: any of them, as in Python.
    let types = match &ty.value {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let mut answer = false;
    for t in &types {
        answer |= is_instance_of(&value.value, t, ty.span.clone())?;
    }
    Ok(Value::Bool(answer))
}

fn is_instance_of(v: &Value, ty: &Value, span: Range<usize>) -> Eval<bool> {
    let unsupported = |name: &str| {
        Err(Raised::at(
            span.clone(),
            format!("`isinstance` does not support the type `{name}`"),
        ))
    };
    Ok(match ty {
        Value::Object(Object::Class(Class::Error(class))) => return unsupported(class.name()),
        Value::Object(Object::Class(_)) => tvm_api::isinstance(v, ty).unwrap_or(false),
        Value::Function(f) => return unsupported(f.name()),
        Value::Host(_) => match script_value(ty) {
            Some(ScriptValue::Builtin(Native::Int)) => matches!(v, Value::Int(_) | Value::Bool(_)),
            Some(ScriptValue::Builtin(Native::Tuple)) => matches!(v, Value::Tuple(_)),
            Some(ScriptValue::Builtin(Native::List)) => matches!(v, Value::List(_)),
            Some(ScriptValue::Builtin(other)) => return unsupported(other.name()),
            _ => return not_a_type(span).map(|_| false),
        },
        _ => return not_a_type(span).map(|_| false),
    })
}

fn not_a_type(span: Range<usize>) -> Eval<Value> {
    Err(Raised::at(
        span,
        "the second argument of `isinstance` must be a type",
    ))
}

fn any_all(interp: &mut Interpreter, native: Native, args: Args) -> Eval<Value> {
    let (v, span) = one_arg(native.name(), args)?;
    let items = v.sequence().ok_or_else(|| {
        Raised::at(
            span.clone(),
            format!("`{}` needs a sequence", native.name()),
        )
    })?;
    let want = native == Native::AnyOf;
    for item in &items {
        if interp.truthy(item, span.clone())? == want {
            return Ok(Value::Bool(want));
        }
    }
    Ok(Value::Bool(!want))
}

fn zip(args: Args) -> Eval<Value> {
    let (pos, _) = args.positional_only("zip")?;
    let mut columns = Vec::new();
    for a in &pos {
        columns.push(a.value.sequence().ok_or_else(|| {
            Raised::at(
                a.span.clone(),
                format!("cannot zip a {}", a.value.type_name()),
            )
        })?);
    }
    let len = columns.iter().map(Vec::len).min().unwrap_or(0);
    let rows = (0..len).map(|i| Value::tuple(columns.iter().map(|c| c[i].clone()).collect()));
    Ok(Value::list(rows.collect()))
}
