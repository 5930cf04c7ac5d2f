//! Schedule and stage methods: `s.normalize()`, `s[C].split(...)`,
//! `fuse`, `reorder`, `tile`, `compute_at`, `compute_inline`,
//! `compute_root`, `bind`, `set_scope`.

use crate::args::{Args, Given};
use crate::error::{not_supported, tvm_error, type_error, ApiResult, At};
use crate::object::{Object, ScheduleRef};
use crate::objects::{to_index, to_iter_var, to_op};
use crate::value::Value;

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
];

/// The stage method called `name`, if supported.
pub(crate) fn stage_method(name: &str) -> Option<&'static str> {
    STAGE_METHODS.iter().copied().find(|m| *m == name)
}

/// The schedule method called `name`, if supported.
pub(crate) fn schedule_method(name: &str) -> Option<&'static str> {
    (name == "normalize").then_some("normalize")
}

/// Why a stage method is not available, and what is.
pub(crate) fn unsupported_stage_method(name: &str) -> String {
    let why = match name {
        "storage_align" | "double_buffer" => {
            "storage layout and buffering are not modelled (they do not change bounds)"
        }
        "vectorize" | "unroll" | "parallel" | "pragma" => {
            "loop annotations do not change bounds; remove the call"
        }
        "tensorize" | "rfactor" | "set_store_predicate" | "env_threads" => {
            "this primitive is not supported"
        }
        _ => "unknown stage method",
    };
    format!(
        "`{name}`: {why}; stages support {}",
        STAGE_METHODS.join(", ")
    )
}

/// Why a schedule method is not available, and what is.
pub(crate) fn unsupported_schedule_method(name: &str) -> String {
    let why = match name {
        "cache_read" | "cache_write" | "rfactor" | "create_group" => {
            "this primitive adds stages, which rangefinder does not support"
        }
        _ => "unknown schedule method",
    };
    format!("`s.{name}`: {why}; schedules support `s[tensor]` and `s.normalize()`")
}

fn te_error(span: &At, e: te::TeError) -> crate::ApiError {
    tvm_error(span.clone(), e.message)
}

fn iter_var(iv: te::IterVar) -> Value {
    Value::Object(Object::IterVar(iv))
}

/// `s.name(args)`.
pub(crate) fn call_schedule_method(s: &ScheduleRef, name: &str, args: Args) -> ApiResult<Value> {
    match name {
        // TVM's normalize rebases loops so that they start at 0; rangefinder's
        // loops always start at 0 (lowering offsets each realized region by
        // its minimum), so the schedule is already normal.
        "normalize" => {
            args.bind("normalize", &[])?;
            Ok(Value::Object(Object::Schedule(s.clone())))
        }
        _ => Err(not_supported(None, unsupported_schedule_method(name))),
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
            let a = args.bind("split", &["parent", "factor", "nparts"])?;
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
                return Err(not_supported(
                    span,
                    "`fuse` needs at least one axis (fusing no axes is not supported)",
                ));
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
        _ => Err(type_error(span, unsupported_stage_method(name))),
    }
}

/// The operation of a stage argument, which must belong to schedule `s`.
fn stage_op(s: &ScheduleRef, a: &Given) -> ApiResult<te::Operation> {
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
