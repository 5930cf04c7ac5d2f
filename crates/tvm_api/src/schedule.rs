//! Schedule and stage methods: `s.normalize()`, `s[C].split(...)`,
//! `fuse`, `reorder`, `tile`, `compute_at`, `compute_inline`,
//! `compute_root`, `bind`, `set_scope`, `set_store_predicate`.

use crate::args::{Args, Given};
use crate::error::te_error;
use crate::error::{not_supported, type_error, ApiResult, At};
use crate::object::{Object, ScheduleRef};
use crate::objects::{to_index, to_iter_var, to_op};
use crate::value::Value;
use arith::Expr;

const STAGE_METHODS: &[&str] = &[
    "split",
    "fuse",
    "reorder",
    "tile",
    "compute_at",
    "compute_inline",
    "compute_root",
    "bind",
    "set_scope",
    "transform_layout",
    "tensorize",
    "set_store_predicate",
    "parallel",
    "vectorize",
    "unroll",
    "pragma",
    "storage_align",
    "double_buffer",
];

/// The stage method called `name`, if supported.
pub(crate) fn stage_method(name: &str) -> Option<&'static str> {
    STAGE_METHODS.iter().copied().find(|m| *m == name)
}

/// The schedule method called `name`, if supported.
pub(crate) fn schedule_method(name: &str) -> Option<&'static str> {
    crate::dataflow::SCHEDULE_METHODS
        .iter()
        .copied()
        .find(|m| *m == name)
}

/// Why a stage method is not available, and what is.
pub(crate) fn unsupported_stage_method(name: &str) -> String {
    let why = match name {
        "rfactor" => "`rfactor` is a method of the schedule: `s.rfactor(tensor, axis)`",
        "env_threads" => "this primitive is not supported",
        _ => "unknown stage method",
    };
    format!(
        "`{name}`: {why}; stages support {}",
        STAGE_METHODS.join(", ")
    )
}

/// Why a schedule method is not available, and what is.
pub(crate) fn unsupported_schedule_method(name: &str) -> String {
    format!(
        "`s.{name}`: unknown schedule method; schedules support `s[tensor]`, `s.{}()`",
        crate::dataflow::SCHEDULE_METHODS.join("()`, `s.")
    )
}

fn iter_var(iv: te::IterVar) -> Value {
    Value::Object(Object::IterVar(iv))
}

/// The primitives TVM's schedule record lists for the stage method `name`
/// called with `args` (when the pass option `te.keep_schedule_record` is
/// set): each primitive of TVM's `Stage` records itself, so `tile` is its
/// two splits and its reorder, and `fuse` of `k` axes is its `k - 1`
/// pairwise fuses and itself.
pub(crate) fn recorded_steps(name: &str, args: &Args) -> Vec<&'static str> {
    match name {
        "split" if args.keywords.iter().any(|(k, _)| k == "nparts") => vec!["split_by_nparts"],
        "fuse" => vec!["fuse"; args.positional.len().max(1)],
        "tile" => vec!["split", "split", "reorder"],
        other => stage_method(other).into_iter().collect(),
    }
}

/// `s[op].name(args)`.
pub(crate) fn call_stage_method(
    s: &ScheduleRef,
    op: &te::Operation,
    name: &str,
    args: Args,
) -> ApiResult<Value> {
    let span = None;
    match name {
        "split" => {
            let a = args.bind(
                "split",
                &["parent", "factor", "nparts", "disable_predication"],
            )?;
            // TVM's `disable_predication` drops the guard of a split that
            // does not divide; rangefinder's loops run exactly the
            // iterations that exist (`min(factor, extent - outer * factor)`),
            // so there is no guard to drop and the flag changes nothing.
            if let Some(flag) = a.get("disable_predication") {
                crate::truth(&flag.value)?;
            }
            let parent = to_iter_var(a.required("parent")?)?;
            let result = match (a.get("factor"), a.get("nparts")) {
                (Some(f), None) => s.borrow_mut().split(op, &parent, to_index(f)?),
                (None, Some(p)) => s.borrow_mut().split_nparts(op, &parent, to_index(p)?),
                _ => return Err(type_error(
                    span,
                    "`split` needs exactly one of `factor=` (the second argument) and `nparts=`",
                )),
            };
            let (outer, inner) = result.map_err(|e| te_error(&span, e))?;
            Ok(Value::tuple(vec![iter_var(outer), iter_var(inner)]))
        }
        "fuse" => {
            let pos = args.positional_only("fuse")?;
            let span: At = None;
            let ivs = pos.iter().map(to_iter_var).collect::<ApiResult<Vec<_>>>()?;
            let Some((first, rest)) = ivs.split_first() else {
                // TVM's special case: a new outermost loop of one iteration.
                let singleton = s
                    .borrow_mut()
                    .fuse_none(op)
                    .map_err(|e| te_error(&span, e))?;
                return Ok(iter_var(singleton));
            };
            // `fuse(a, b, c)` is `fuse(fuse(a, b), c)`, as in TVM.
            let mut fused = first.clone();
            for next in rest {
                fused = s
                    .borrow_mut()
                    .fuse(op, &fused, next)
                    .map_err(|e| te_error(&span, e))?;
            }
            Ok(iter_var(fused))
        }
        "reorder" => {
            let pos = args.positional_only("reorder")?;
            let span: At = None;
            let ivs = pos.iter().map(to_iter_var).collect::<ApiResult<Vec<_>>>()?;
            s.borrow_mut()
                .reorder(op, &ivs)
                .map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "tile" => {
            let a = args.bind("tile", &["x_parent", "y_parent", "x_factor", "y_factor"])?;
            let x = to_iter_var(a.required("x_parent")?)?;
            let y = to_iter_var(a.required("y_parent")?)?;
            let xf = to_index(a.required("x_factor")?)?;
            let yf = to_index(a.required("y_factor")?)?;
            let (xo, yo, xi, yi) = s
                .borrow_mut()
                .tile(op, &x, &y, xf, yf)
                .map_err(|e| te_error(&span, e))?;
            Ok(Value::tuple(vec![
                iter_var(xo),
                iter_var(yo),
                iter_var(xi),
                iter_var(yi),
            ]))
        }
        "compute_at" => {
            let a = args.bind("compute_at", &["parent", "scope"])?;
            let parent_arg = a.required("parent")?;
            let parent = stage_op(s, parent_arg)?;
            let axis = to_iter_var(a.required("scope")?)?;
            s.borrow_mut()
                .compute_at(op, &parent, &axis)
                .map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "compute_inline" | "compute_root" => {
            args.bind(
                if name == "compute_inline" {
                    "compute_inline"
                } else {
                    "compute_root"
                },
                &[],
            )?;
            let result = if name == "compute_inline" {
                s.borrow_mut().compute_inline(op)
            } else {
                s.borrow_mut().compute_root(op)
            };
            result.map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "bind" => {
            let a = args.bind("bind", &["ivar", "thread_ivar"])?;
            let iv = to_iter_var(a.required("ivar")?)?;
            let thread = a.required("thread_ivar")?;
            let Value::Object(Object::ThreadAxis(axis)) = &thread.value else {
                return Err(type_error(
                    thread.place(),
                    format!(
                        "`bind` needs a thread axis such as `te.thread_axis(\"threadIdx.x\")`, found a {}",
                        thread.value.type_name()
                    ),
                ));
            };
            s.borrow_mut()
                .bind(op, &iv, axis)
                .map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "storage_align" => {
            let a = args.bind("storage_align", &["axis", "factor", "offset"])?;
            let axis = crate::objects::to_iter_var(a.required("axis")?)?;
            let int = |name: &str| -> ApiResult<i64> {
                let g = a.required(name)?;
                crate::operators::as_int(&g.value).ok_or_else(|| {
                    type_error(
                        g.place(),
                        format!("`storage_align` needs `{name}` as an integer"),
                    )
                })
            };
            let (factor, offset) = (int("factor")?, int("offset")?);
            s.borrow_mut()
                .storage_align(op, &axis, factor, offset)
                .map_err(|e| te_error(&a.place(), e))?;
            Ok(Value::None)
        }
        "double_buffer" => {
            args.bind("double_buffer", &[])?;
            s.borrow_mut()
                .double_buffer(op)
                .map_err(|e| te_error(&None, e))?;
            Ok(Value::None)
        }
        "set_scope" => {
            let a = args.bind("set_scope", &["scope"])?;
            let scope = a.required("scope")?;
            let Value::Str(text) = &scope.value else {
                return Err(type_error(
                    scope.place(),
                    "`set_scope` needs a scope name: \"global\", \"shared\", \"warp\" or \"local\"",
                ));
            };
            s.borrow_mut()
                .set_scope(op, text)
                .map_err(|e| not_supported(scope.place(), e.message))?;
            Ok(Value::None)
        }
        "parallel" | "vectorize" | "unroll" => {
            let a = args.bind(name, &["var"])?;
            let iv = to_iter_var(a.required("var")?)?;
            let mut sched = s.borrow_mut();
            let done = match name {
                "parallel" => sched.parallel(op, &iv),
                "vectorize" => sched.vectorize(op, &iv),
                _ => sched.unroll(op, &iv),
            };
            done.map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "pragma" => {
            let a = args.bind("pragma", &["var", "pragma_type", "pragma_value"])?;
            let iv = to_iter_var(a.required("var")?)?;
            let key = a.required("pragma_type")?;
            let Value::Str(key_text) = &key.value else {
                return Err(type_error(
                    key.place(),
                    format!(
                        "`pragma` needs its key as a string such as \"auto_unroll_max_step\", found a {}",
                        key.value.type_name()
                    ),
                ));
            };
            let value = match a.get("pragma_value") {
                None => None,
                Some(v) => match &v.value {
                    Value::None => None,
                    Value::Str(t) => Some(tir::PragmaValue::Str(t.to_string())),
                    other => Some(tir::PragmaValue::Int(
                        crate::operators::as_int(other).ok_or_else(|| {
                            type_error(
                                v.place(),
                                format!(
                                    "`pragma` takes an integer or string value, found a {}",
                                    other.type_name()
                                ),
                            )
                        })?,
                    )),
                },
            };
            s.borrow_mut()
                .pragma(op, &iv, key_text, value)
                .map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "tensorize" => {
            let a = args.bind("tensorize", &["var", "tensor_intrin"])?;
            let iv = to_iter_var(a.required("var")?)?;
            let intrin = a.required("tensor_intrin")?;
            let Value::Object(Object::TensorIntrin(t)) = &intrin.value else {
                return Err(type_error(
                    intrin.place(),
                    format!(
                        "`tensorize` needs an intrinsic made by `te.decl_tensor_intrin`, found a {}",
                        intrin.value.type_name()
                    ),
                ));
            };
            s.borrow_mut()
                .tensorize(op, &iv, t)
                .map_err(|e| te_error(&span, e))?;
            Ok(Value::None)
        }
        "set_store_predicate" => {
            let a = args.bind("set_store_predicate", &["predicate"])?;
            let given = a.required("predicate")?;
            let cond = match &given.value {
                Value::Bool(b) => Expr::bool(*b),
                _ => to_index(given)?,
            };
            s.borrow_mut()
                .set_store_predicate(op, cond)
                .map_err(|e| type_error(given.place(), e.message))?;
            Ok(Value::None)
        }
        _ => Err(type_error(span, unsupported_stage_method(name))),
    }
}

/// The operation of a stage argument, which must belong to schedule `s`.
pub(crate) fn stage_op(s: &ScheduleRef, a: &Given) -> ApiResult<te::Operation> {
    match &a.value {
        Value::Object(Object::Stage(owner, op)) => {
            if !std::rc::Rc::ptr_eq(owner, s) {
                return Err(type_error(
                    a.place(),
                    "this stage belongs to a different schedule",
                ));
            }
            Ok(op.clone())
        }
        _ => {
            let op = to_op(a)?;
            Err(type_error(
                a.place(),
                format!("`compute_at` needs a stage: write `s[{}]`", op.name()),
            ))
        }
    }
}
