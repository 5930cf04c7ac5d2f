//! The helpers of TVM's operator library (`tvm.topi`) that TE programs
//! import: the generic tags and their tests (`tvm.topi.tag`), shapes as
//! Python integers (`get_const_tuple`, `get_const_int`) and the traversal
//! that inlines injective stages (`traverse_inline`), and the CPU schedule
//! of injective operations that `topi.testing` hands TVM's tests
//! (`topi.x86.schedule_injective`). TOPI's operators themselves are in
//! `topi_ops`.

use crate::args::{Args, Given};
use crate::error::{type_error, ApiError, ApiResult, ErrorClass};
use crate::functions::call_back;
use crate::object::{Object, ScheduleRef};
use crate::objects::{constant_value, promote, to_op};
use crate::value::Value;
use crate::Host;
use std::collections::HashSet;

/// `tvm.topi.tag`'s constants, by name.
pub(crate) const TAGS: &[(&str, &str)] = &[
    ("ELEMWISE", "elemwise"),
    ("BROADCAST", "broadcast"),
    ("INJECTIVE", "injective"),
    ("COMM_REDUCE", "comm_reduce"),
    ("COMM_REDUCE_IDX", "comm_reduce_idx"),
];

/// `tag.is_broadcast(tag)`: element-wise or broadcast, possibly with a
/// specific suffix (`"broadcast,add"`).
pub(crate) fn is_broadcast(tag: &str) -> bool {
    tag.starts_with("elemwise") || tag.starts_with("broadcast")
}

/// `tag.is_injective(tag)`: broadcast or injective.
pub(crate) fn is_injective(tag: &str) -> bool {
    is_broadcast(tag) || tag.starts_with("injective")
}

/// `is_injective(tag)` / `is_broadcast(tag)` called from a program.
pub(crate) fn tag_test(args: Args, injective: bool) -> ApiResult<Value> {
    let name = if injective {
        "is_injective"
    } else {
        "is_broadcast"
    };
    let a = args.bind(name, &["tag"])?;
    let t = a.required("tag")?;
    let Value::Str(tag) = &t.value else {
        return Err(type_error(
            t.place(),
            format!(
                "`{name}` needs a tag string, found a {}",
                t.value.type_name()
            ),
        ));
    };
    Ok(Value::Bool(if injective {
        is_injective(tag)
    } else {
        is_broadcast(tag)
    }))
}

/// `get_const_int(expr)`: the integer a constant expression is.
pub(crate) fn get_const_int(args: Args) -> ApiResult<Value> {
    let a = args.bind("get_const_int", &["expr"])?;
    let e = a.required("expr")?;
    const_int(e)?.map(Value::Int).ok_or_else(|| {
        ApiError::new(ErrorClass::ValueError, "Expect value to be constant int").at(e.at.clone())
    })
}

/// `equal_const_int(expr, value)`: whether `expr` is, once simplified, the
/// constant `value` (false when it is symbolic).
pub(crate) fn equal_const_int(args: Args) -> ApiResult<Value> {
    let a = args.bind("equal_const_int", &["expr", "value"])?;
    let e = const_int(a.required("expr")?)?;
    let v = a.required("value")?;
    let Some(value) = const_int(v)? else {
        return Err(type_error(
            v.place(),
            "`equal_const_int` needs a constant integer `value`",
        ));
    };
    Ok(Value::Bool(e == Some(value)))
}

/// `is_empty_shape(shape)`: whether a size of `shape` is the constant 0.
pub(crate) fn is_empty_shape(args: Args) -> ApiResult<Value> {
    let a = args.bind("is_empty_shape", &["shape"])?;
    let t = a.required("shape")?;
    let items = t.value.sequence().ok_or_else(|| {
        type_error(
            t.place(),
            format!(
                "`is_empty_shape` needs a tuple or list, found a {}",
                t.value.type_name()
            ),
        )
    })?;
    for v in items {
        if const_int(&t.item(v))? == Some(0) {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// `simplify(expr)`: a Python integer stays one; an index expression comes
/// back simplified (unchanged when the simplifier cannot prove it smaller).
pub(crate) fn simplify(args: Args) -> ApiResult<Value> {
    let a = args.bind("simplify", &["expr"])?;
    let e = a.required("expr")?;
    Ok(match promote(&e.value) {
        Value::Index(x) => Value::Index(arith::Analyzer::new().simplify(&x).unwrap_or(x)),
        other => other,
    })
}

/// `prod(x)`: the product of `x`'s items (integers, or an expression when
/// one is symbolic); 1 for an empty sequence.
pub(crate) fn prod(args: Args) -> ApiResult<Value> {
    let a = args.bind("prod", &["x"])?;
    let t = a.required("x")?;
    let items = t.value.sequence().ok_or_else(|| {
        type_error(
            t.place(),
            format!(
                "`prod` needs a tuple or list, found a {}",
                t.value.type_name()
            ),
        )
    })?;
    let mut product = Value::Int(1);
    for v in items {
        product = match (&product, promote(&v)) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_mul(b).ok_or_else(|| {
                ApiError::new(
                    ErrorClass::OverflowError,
                    "`prod`: the product overflows a 64-bit integer",
                )
                .at(t.at.clone())
            })?),
            (_, item) => crate::binary(crate::BinaryOp::Mul, &product, &item)?,
        };
    }
    Ok(product)
}

/// The constant integer `g` is, `None` when it is symbolic; an error when
/// it is no integer expression at all.
fn const_int(g: &Given) -> ApiResult<Option<i64>> {
    match promote(&g.value) {
        Value::Int(i) => Ok(Some(i)),
        Value::Bool(b) => Ok(Some(i64::from(b))),
        Value::Index(e) => Ok(constant_value(&e)),
        other => Err(type_error(
            g.place(),
            format!(
                "expected an integer or index expression, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// `get_const_tuple(shape)`: each size as a Python integer when it is
/// constant, else the expression (a variable stays a variable).
pub(crate) fn get_const_tuple(args: Args) -> ApiResult<Value> {
    let a = args.bind("get_const_tuple", &["in_tuple"])?;
    let t = a.required("in_tuple")?;
    let items = t.value.sequence().ok_or_else(|| {
        type_error(
            t.place(),
            format!(
                "`get_const_tuple` needs a tuple or list, found a {}",
                t.value.type_name()
            ),
        )
    })?;
    let mut out = Vec::with_capacity(items.len());
    for v in items {
        let item = t.item(v);
        out.push(match const_int(&item)? {
            Some(i) => Value::Int(i),
            None => promote(&item.value),
        });
    }
    Ok(Value::tuple(out))
}

/// `traverse_inline(s, final_op, callback)`: from `final_op` towards the
/// inputs, inlines every injective operation that is not an output of `s`,
/// and calls `callback(op)` on each compute after its inputs, as TOPI does.
pub(crate) fn traverse_inline(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("traverse_inline", &["s", "final_op", "callback"])?;
    let s_arg = a.required("s")?;
    let Value::Object(Object::Schedule(s)) = &s_arg.value else {
        return Err(type_error(
            s_arg.place(),
            format!("expected a schedule, found a {}", s_arg.value.type_name()),
        ));
    };
    let op = to_op(a.required("final_op")?)?;
    let callback = a.required("callback")?;
    let mut visited = HashSet::new();
    visit(host, s, &op, callback, &mut visited)?;
    Ok(Value::None)
}

fn visit(
    host: &mut dyn Host,
    s: &ScheduleRef,
    op: &te::Operation,
    callback: &Given,
    visited: &mut HashSet<te::OpId>,
) -> ApiResult<()> {
    if !visited.insert(op.id()) {
        return Ok(());
    }
    if is_injective(op.tag()) {
        let is_output = s.borrow().outputs().contains(op);
        if !is_output {
            s.borrow_mut()
                .compute_inline(op)
                .map_err(|e| ApiError::tvm(e.message))?;
        }
        for t in op.input_tensors() {
            if t.op().as_compute().is_some() {
                arith::stack::grow(|| visit(host, s, t.op(), callback, visited))?;
            }
        }
    }
    call_back(
        host,
        &callback.value,
        vec![Value::Object(Object::Op(op.clone()))],
        &callback.at,
    )?;
    Ok(())
}

/// `topi.x86.schedule_injective(outs)`: TOPI's CPU schedule of injective
/// operations. Injective stages are inlined, and each output of a
/// non-empty shape is scheduled by [`x86_injective_from_existing`].
pub(crate) fn schedule_injective_x86(args: Args) -> ApiResult<Value> {
    let a = args.bind("schedule_injective", &["outs"])?;
    let outs = crate::dataflow::tensor_list(a.required("outs")?)?;
    let mut s = new_schedule(&outs);
    te::auto_inline_injective(&mut s);
    for out in &outs {
        if !out.shape().iter().any(|d| d.as_int() == Some(0)) {
            x86_injective_from_existing(&mut s, out).map_err(ApiError::te)?;
        }
    }
    Ok(schedule_value(s))
}

/// TOPI's x86 `schedule_injective_from_existing`: the outer axes fused and
/// in parallel (the first three of five or more, the first two of three or
/// four, else the first), the last axis split by 16 with the inner loop
/// vectorized.
pub(crate) fn x86_injective_from_existing(
    s: &mut te::Schedule,
    out: &te::Tensor,
) -> Result<(), te::TeError> {
    let axis = out.op().axis().to_vec();
    let first = match axis.len() {
        0 => None,
        1 | 2 => Some(axis[0].clone()),
        n => {
            let k = if n >= 5 { 3 } else { 2 };
            let mut fused = axis[0].clone();
            for next in &axis[1..k] {
                fused = s.fuse(out, &fused, next)?;
            }
            Some(fused)
        }
    };
    if let Some(p) = &first {
        s.parallel(out, p)?;
    }
    if let Some(last) = axis.last() {
        let (lo, li) = s.split(out, last, 16)?;
        s.vectorize(out, &li)?;
        if axis.len() == 1 {
            // The split moved the parallel loop: the outer part is.
            s.parallel(out, &lo)?;
        }
    }
    Ok(())
}

/// TOPI's generic `schedule_injective_from_existing`: all of the output's
/// axes fused into one loop.
fn generic_injective_from_existing(
    s: &mut te::Schedule,
    out: &te::Tensor,
) -> Result<(), te::TeError> {
    let axis = out.op().axis().to_vec();
    if let Some((first, rest)) = axis.split_first() {
        let mut fused = first.clone();
        for next in rest {
            fused = s.fuse(out, &fused, next)?;
        }
    }
    Ok(())
}

/// `schedule_injective_from_existing(sch, out)` of `topi.x86` or
/// `topi.generic`: schedules `out` in `sch` and returns `sch`.
pub(crate) fn injective_from_existing(args: Args, x86: bool) -> ApiResult<Value> {
    let a = args.bind("schedule_injective_from_existing", &["sch", "out"])?;
    let sch = crate::functions::schedule_arg(a.required("sch")?)?;
    let out = crate::objects::to_arg_tensor(a.required("out")?)?;
    let mut s = sch.borrow_mut();
    let done = if x86 {
        x86_injective_from_existing(&mut s, &out)
    } else {
        generic_injective_from_existing(&mut s, &out)
    };
    done.map_err(ApiError::te)?;
    drop(s);
    Ok(Value::Object(Object::Schedule(sch)))
}

/// The target of the innermost `with tvm.target.Target(...)`, required as
/// TOPI's generic schedules require it (`Target.current(allow_none=False)`),
/// and checked to be of one of `kinds`.
fn current_target_of(host: &mut dyn Host, kinds: &[&str]) -> ApiResult<()> {
    let Some(target) = host.session().targets.last().cloned() else {
        return Err(ApiError::tvm(
            "Target context required. Please set it by constructing a TargetContext",
        ));
    };
    if !kinds.contains(&target.kind.as_str()) {
        return Err(ApiError::new(
            ErrorClass::RuntimeError,
            format!("schedule not registered for '{target}'"),
        ));
    }
    Ok(())
}

/// `topi.generic.schedule_injective(outs)`: for an `llvm` target, a
/// schedule of the outputs with injective stages inlined and the first
/// output's axes fused.
pub(crate) fn generic_schedule_injective(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("schedule_injective", &["outs"])?;
    let outs = crate::dataflow::tensor_list(a.required("outs")?)?;
    current_target_of(host, &["llvm"])?;
    let mut s = new_schedule(&outs);
    te::auto_inline_injective(&mut s);
    if let Some(x) = outs.first() {
        generic_injective_from_existing(&mut s, x).map_err(ApiError::te)?;
    }
    Ok(schedule_value(s))
}

/// The names of `topi.generic` that start with `schedule_` but are not
/// `default_schedule(outs, False)`.
pub(crate) const GENERIC_NOT_DEFAULT: &[&str] = &[
    "schedule_injective_from_existing",
    "schedule_extern",
    "schedule_reorg",
    "schedule_conv2d_winograd_weight_transform",
    "schedule_conv2d_gemm_weight_transform",
    "schedule_conv3d_winograd_weight_transform",
    "schedule_conv2d_winograd_nnpack_weight_transform",
];

/// `topi.generic.default.default_schedule(outs, auto_inline)` (with
/// `auto_inline` given, one of `topi.generic`'s `schedule_*`): for an
/// `llvm` or `c` target, a schedule of the outputs; with `auto_inline`,
/// injective stages are inlined and the first output's axes fused.
pub(crate) fn default_schedule(
    host: &mut dyn Host,
    args: Args,
    auto_inline: Option<bool>,
) -> ApiResult<Value> {
    let (outs, auto_inline) = match auto_inline {
        None => {
            let a = args.bind("default_schedule", &["outs", "auto_inline"])?;
            let inline = crate::operators::truth(&a.required("auto_inline")?.value)?;
            (crate::dataflow::tensor_list(a.required("outs")?)?, inline)
        }
        Some(inline) => {
            // `schedule_pool(outs, layout)` takes a layout it does not use.
            let a = args.bind("schedule", &["outs", "layout"])?;
            (crate::dataflow::tensor_list(a.required("outs")?)?, inline)
        }
    };
    current_target_of(host, &["llvm", "c"])?;
    let mut s = new_schedule(&outs);
    if auto_inline {
        te::auto_inline_injective(&mut s);
        if let Some(x) = outs.first() {
            generic_injective_from_existing(&mut s, x).map_err(ApiError::te)?;
        }
    }
    Ok(schedule_value(s))
}

fn new_schedule(outs: &[te::Tensor]) -> te::Schedule {
    let ops: Vec<te::Operation> = outs.iter().map(|t| t.op().clone()).collect();
    te::Schedule::new(&ops)
}

fn schedule_value(s: te::Schedule) -> Value {
    Value::Object(Object::Schedule(std::rc::Rc::new(std::cell::RefCell::new(
        s,
    ))))
}

/// `nchw_pack_layout(layout)` (`pack`: `NCHW` with `n` and `c` after it)
/// or `nchw_xc_layout(layout)` (`NCHW`, a number, then `c`).
pub(crate) fn layout_test(args: Args, pack: bool) -> ApiResult<Value> {
    let name = if pack {
        "nchw_pack_layout"
    } else {
        "nchw_xc_layout"
    };
    let a = args.bind(name, &["layout_info"])?;
    let g = a.required("layout_info")?;
    let Value::Str(layout) = &g.value else {
        return Err(type_error(
            g.place(),
            format!(
                "`{name}` needs a layout string, found a {}",
                g.value.type_name()
            ),
        ));
    };
    let nchw = layout.starts_with("NCHW") && layout.contains('c');
    let answer = if pack {
        nchw && layout.contains('n')
    } else {
        let middle = layout.get(4..layout.len().saturating_sub(1)).unwrap_or("");
        nchw && !middle.is_empty() && middle.chars().all(|c| c.is_ascii_digit())
    };
    Ok(Value::Bool(answer))
}

/// `topi.testing.get_injective_schedule(target)` (and its aliases
/// `get_elemwise_schedule`, `get_broadcast_schedule`): TOPI's injective
/// schedule for the target's keys; for a CPU target, the x86 one. Other
/// targets' schedules are not provided: using one says so.
pub(crate) fn testing_injective_schedule(args: Args) -> ApiResult<Value> {
    let a = args.bind("get_injective_schedule", &["target"])?;
    let t = a.required("target")?;
    let target = match &t.value {
        Value::Str(s) => crate::Target::parse(s)?,
        Value::Object(Object::Target(target)) => (**target).clone(),
        other => {
            return Err(type_error(
                t.place(),
                format!("expected a target, found a {}", other.type_name()),
            ))
        }
    };
    if target.keys.iter().any(|k| k == "cpu") {
        return Ok(Value::Function(crate::Function::TopiScheduleInjectiveX86));
    }
    Ok(Value::Object(Object::Unsupported(std::rc::Rc::from(
        format!("tvm.topi.{}.schedule_injective", target.kind),
    ))))
}

/// The most entries `const_matrix` takes: each is a select nested in the
/// next (TOPI's Winograd matrices have at most 64).
const MAX_CONST_MATRIX: usize = 4096;

/// `tvm.topi.utils.const_matrix(matrix, name="const_matrix", attrs=None)`:
/// a compute of the matrix's shape whose element `(i, j)` is the matrix's
/// value there, written as TOPI writes it: a chain of selects on
/// `i % rows == ii && j % cols == jj`, one per entry, over a zero of the
/// matrix's dtype. `matrix` is a numpy array (or `tvm.nd.array`) of two
/// dimensions.
pub(crate) fn const_matrix(args: Args) -> ApiResult<Value> {
    use arith::{CmpOp, Expr};
    let a = args.bind("const_matrix", &["matrix", "name", "attrs"])?;
    let m = a.required("matrix")?;
    let Value::Object(Object::NDArray(array)) = &m.value else {
        return Err(type_error(
            m.place(),
            format!(
                "`const_matrix` needs a two-dimensional numpy array, found a {}",
                m.value.type_name()
            ),
        ));
    };
    let array = array.borrow().clone();
    if array.data.len() > MAX_CONST_MATRIX {
        return Err(ApiError::value_error(format!(
            "`const_matrix` of {} entries is too large: its selects would nest that deep \
             (at most {MAX_CONST_MATRIX})",
            array.data.len()
        ))
        .at(m.at.clone()));
    }
    let &[rows, cols] = array.shape.as_slice() else {
        return Err(ApiError::new(
            ErrorClass::ValueError,
            format!(
                "`const_matrix` needs a two-dimensional array, found {} dimensions",
                array.shape.len()
            ),
        )
        .at(m.at.clone()));
    };
    let name = match a.get("name") {
        None => "const_matrix".to_string(),
        Some(g) => match &g.value {
            Value::Str(s) => s.to_string(),
            other => {
                return Err(type_error(
                    g.place(),
                    format!("`name` must be a string, found a {}", other.type_name()),
                ))
            }
        },
    };
    let attrs = match a.get("attrs") {
        Some(g) if !matches!(g.value, Value::None) => crate::tags::attrs(Some(g))?,
        _ => {
            let mut attrs = te::Attrs::new();
            attrs.insert("const_matrix".to_string(), te::AttrValue::Int(1));
            attrs.insert(
                "schedule_rule".to_string(),
                te::AttrValue::Str("None".into()),
            );
            attrs
        }
    };
    let dtype = array.dtype;
    let at = m.place();
    let constant = |x: f64| -> ApiResult<te::Value> {
        let v = if dtype.is_float() {
            Value::Float(x)
        } else {
            Value::Int(x as i64)
        };
        let typed = crate::functions::typed_constant(&v, dtype, at.clone())?;
        crate::objects::to_element(&typed, at.clone())
    };
    let dim = |n: usize| {
        i64::try_from(n)
            .map(Expr::int)
            .map_err(|_| ApiError::value_error("the matrix is too large"))
    };
    let (row_count, col_count) = (dim(rows)?, dim(cols)?);
    let out = te::try_compute_tagged::<crate::functions::BuildFailure>(
        vec![row_count.clone(), col_count.clone()],
        &["i", "j"],
        |ij| {
            let (i, j) = (ij[0].clone(), ij[1].clone());
            let mut now = constant(0.0).map_err(crate::functions::BuildFailure::Host)?;
            for ii in 0..rows {
                for jj in 0..cols {
                    let on = Expr::and(
                        Expr::cmp(
                            CmpOp::Eq,
                            Expr::floor_mod(i.clone(), row_count.clone()),
                            Expr::int(ii as i64),
                        ),
                        Expr::cmp(
                            CmpOp::Eq,
                            Expr::floor_mod(j.clone(), col_count.clone()),
                            Expr::int(jj as i64),
                        ),
                    );
                    let value = constant(array.data[ii * cols + jj])
                        .map_err(crate::functions::BuildFailure::Host)?;
                    now = te::Value::select(on, value, now);
                }
            }
            Ok(now)
        },
        &name,
        "",
        attrs,
    )
    .map_err(|e| match e {
        crate::functions::BuildFailure::Host(e) => e,
        crate::functions::BuildFailure::Te(e) => crate::error::te_error(&None, e),
    })?;
    Ok(Value::Object(Object::Tensor(out)))
}

/// `get_max_power2_factor(n, max_value=None)`: the largest power of two
/// that divides `n` (at most `max_value`).
pub(crate) fn max_power2_factor(args: Args) -> ApiResult<Value> {
    let a = args.bind("get_max_power2_factor", &["n", "max_value"])?;
    let g = a.required("n")?;
    let n = crate::operators::as_int(&g.value)
        .ok_or_else(|| type_error(g.place(), format!("`n` is an integer, found {}", g.value)))?;
    let max = match a.get("max_value").map(|m| &m.value) {
        None | Some(Value::None) => None,
        Some(v) => Some(crate::operators::as_int(v).ok_or_else(|| {
            ApiError::type_error(format!("`max_value` is an integer, found {v}"))
        })?),
    };
    let mut x: i64 = 1;
    let mut rest = n;
    // Zero is divisible by every power of two: without a cap, Python loops
    // forever; here the factor stops at 2^62.
    while rest % 2 == 0 && x < 1 << 62 {
        if max.is_some_and(|m| m < x * 2) {
            break;
        }
        x *= 2;
        rest /= 2;
    }
    Ok(Value::Int(x))
}
