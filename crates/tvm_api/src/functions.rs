//! The `tvm` / `te` functions: building tensors and expressions, creating
//! schedules, `InferBound`, `tvm.lower`, and the helpers TVM's own tests use.

use crate::args::{string, Args, Given};
use crate::error::te_error;
use crate::error::{
    error, not_supported, tvm_error, type_error, ApiError, ApiResult, At, ErrorClass,
};
use crate::function::Function;
use crate::object::{Object, ScheduleRef};
use crate::objects::{self, element, promote, to_element, to_index, to_iter_var, to_op};
use crate::operators::as_int;
use crate::session::Lowered;
use crate::value::Value;
use crate::Host;
use arith::{Expr, Var};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use tir::DataType;

/// Runs the TVM function `native`.
pub(crate) fn call(host: &mut dyn Host, native: Function, args: Args) -> ApiResult<Value> {
    match native {
        Function::Placeholder => placeholder(args),
        Function::Compute => compute(host, args),
        Function::Var | Function::SizeVar => {
            let a = args.bind(native.name(), &["name", "dtype", "span"])?;
            let name = match a.get("name") {
                Some(n) => string(n)?,
                None => "tindex".to_owned(),
            };
            // Index variables are integers. A float `var` is a scalar
            // parameter of the program, an element value (`A[i] + bias`).
            let dt = dtype(a.get("dtype"), DataType::Int32)?;
            if dt.is_float() && native == Function::Var {
                let param = te::Value::param(Var::new(name), dt).expect("a float type");
                return Ok(Value::Object(Object::Element(param)));
            }
            if !dt.is_int() {
                let at = a.get("dtype").and_then(Given::place);
                let what = match native {
                    Function::Var => {
                        "a variable is an integer (an index) or a float (a scalar parameter)"
                    }
                    _ => "a size is an integer (use \"int32\" or \"int64\")",
                };
                return Err(not_supported(
                    at,
                    format!("`{}` of type {dt} is not supported: {what}", native.name()),
                ));
            }
            Ok(Value::Index(Var::new(name).expr()))
        }
        Function::ReduceAxis => {
            let axis = reduce_axis(args)?;
            if let Value::Object(Object::IterVar(iv)) = &axis {
                host.session().reduce_vars.insert(iv.var().clone());
            }
            Ok(axis)
        }
        Function::ThreadAxis => thread_axis(args),
        Function::Range => range(args),
        Function::RangeFromMinExtent => {
            let a = args.bind("from_min_extent", &["min_value", "extent", "span"])?;
            let min = to_index(a.required("min_value")?)?;
            let extent = to_index(a.required("extent")?)?;
            Ok(Value::Object(Object::Range(arith::Range::new(min, extent))))
        }
        Function::Sum => reduction(te::Reducer::Sum, args),
        Function::MaxReducer | Function::MinReducer => min_max(native, args),
        Function::Const => constant(args),
        Function::Convert => {
            let a = args.bind("convert", &["value", "span"])?;
            Ok(match &a.required("value")?.value {
                Value::Int(i) => Value::Index(Expr::int(*i)),
                other => other.clone(),
            })
        }
        Function::FloorDiv | Function::FloorMod | Function::TruncDiv | Function::TruncMod => {
            integer_division(native, args)
        }
        Function::IfThenElse => crate::casts::select("if_then_else", args),
        Function::Intrinsic(f) => intrinsic(f, args),
        Function::All | Function::Any => {
            let pos = args.positional_only(native.name())?;
            join_conditions(native == Function::All, &pos)
        }
        Function::CreateSchedule => {
            let a = args.bind("create_schedule", &["ops"])?;
            let ops = a.required("ops")?;
            let items = match ops.value.sequence() {
                Some(items) => items,
                None => vec![ops.value.clone()],
            };
            let tensors = items
                .into_iter()
                .map(|v| {
                    to_op(&Given {
                        value: v,
                        at: ops.at.clone(),
                    })
                    .map(|op| op.output())
                })
                .collect::<ApiResult<Vec<_>>>()?;
            let mut schedule = te::create_schedule(&tensors);
            if crate::pass_context::option_set(host, "te.keep_schedule_record") {
                schedule.keep_record();
            }
            let s = Rc::new(RefCell::new(schedule));
            host.session().failed_lowering = None;
            host.session().schedules.push(s.clone());
            Ok(Value::Object(Object::Schedule(s)))
        }
        Function::InferBound => {
            let a = args.bind("InferBound", &["sch"])?;
            let s = schedule_arg(a.required("sch")?)?;
            let bounds = te::infer_bound(&s.borrow()).map_err(|e| te_error(&a.place(), e))?;
            Ok(Value::Object(Object::Bounds(Rc::new(bounds))))
        }
        Function::Lower => lower(host, args),
        Function::AssertPrimExprEqual => {
            let a = args.bind("assert_prim_expr_equal", &["lhs", "rhs"])?;
            let lhs = to_index(a.required("lhs")?)?;
            let rhs = to_index(a.required("rhs")?)?;
            match objects::decide(&Expr::eq(lhs.clone(), rhs.clone())) {
                Some(true) => Ok(Value::None),
                _ => Err(error(
                    ErrorClass::AssertionError,
                    a.place(),
                    format!(
                        "assert_prim_expr_equal failed: `{lhs}` is not provably equal to `{rhs}`"
                    ),
                )),
            }
        }
        Function::Substitute => substitute(args),
        Function::TagScope => crate::tags::tag_scope(args),
        Function::Select => crate::casts::select("Select", args),
        Function::Cast => crate::casts::cast_function(args),
        Function::MinValue => crate::casts::limit_function(args, false),
        Function::MaxValue => crate::casts::limit_function(args, true),
        Function::Div => div(args),
        Function::TirBinary(op) => {
            let a = args.bind(native.name(), &["lhs", "rhs", "span"])?;
            let (x, y) = (a.required("lhs")?, a.required("rhs")?);
            crate::objects::element_binary(op, &x.value, &y.value, x.place())
        }
        Function::TirCompare(op) => {
            let a = args.bind(native.name(), &["a", "b", "span"])?;
            let (x, y) = (a.required("a")?, a.required("b")?);
            crate::operators::compare(op, &x.value, &y.value)
        }
        Function::TirNot => {
            let a = args.bind(native.name(), &["a", "span"])?;
            let x = a.required("a")?;
            crate::operators::unary(crate::UnaryOp::Not, &x.value)
        }
        Function::GetConstTuple => crate::topi::get_const_tuple(args),
        Function::GetConstInt => crate::topi::get_const_int(args),
        Function::TraverseInline => crate::topi::traverse_inline(host, args),
        Function::TopiScheduleInjectiveX86 => crate::topi::schedule_injective_x86(args),
        Function::TopiInjectiveFromExisting { x86 } => {
            crate::topi::injective_from_existing(args, x86)
        }
        Function::TopiGenericScheduleInjective => {
            crate::topi::generic_schedule_injective(host, args)
        }
        Function::TopiDefaultSchedule(auto_inline) => {
            crate::topi::default_schedule(host, args, auto_inline)
        }
        Function::Memoize => match args.positional.as_slice() {
            // The decorator applied: the function itself (TVM caches its
            // results on disk; they are the same values).
            [f @ Value::Host(_)] => Ok(f.clone()),
            _ => Ok(Value::Function(Function::Memoize)),
        },
        Function::ConstMatrix => crate::topi::const_matrix(args),
        Function::MaxPower2Factor => crate::topi::max_power2_factor(args),
        Function::TopiTransform(op) => crate::topi_transform::call(host, args, op),
        Function::TopiReduction(op) => crate::topi_reduction::call(host, args, op),
        Function::TopiBroadcastOp(op) => crate::topi_broadcast::call(host, args, op),
        Function::TopiPool(op) => crate::topi_pool::call(host, args, op),
        Function::TopiNorm(op) => crate::topi_norm::call(host, args, op),
        Function::TopiSpaceBatch(op) => crate::topi_space_batch::call(host, args, op),
        Function::TopiEinsum { packed } => crate::topi_einsum::call(host, args, packed),
        Function::TopiImage(op) => crate::topi_image::call(host, args, op),
        Function::TopiSchedule(op) => crate::topi_schedules::call(host, args, op),
        Function::NnPad => crate::topi_nn::pad(args),
        Function::NnConv(form) => crate::topi_nn::conv(host, args, form),
        Function::NnConv2dNchwc => crate::topi_nn::conv2d_nchwc(host, args),
        Function::NnDilate => crate::topi_nn::dilate(args),
        Function::NnCorrelation => crate::topi_correlation::correlation_nchw(host, args),
        Function::NnDeformableConv2dNchw => {
            crate::topi_deformable_conv::deformable_conv2d_nchw(host, args)
        }
        Function::NnTransposePreprocess(dims) => crate::topi_nn::transpose_preprocess(args, dims),
        Function::X86ConvFallback(kind) => {
            crate::topi_x86_conv2d::fallback_schedule(host, args, kind)
        }
        Function::X86ScheduleConvNchwc(kind) => {
            crate::topi_x86_conv2d::schedule_conv_nchwc(args, kind)
        }
        Function::RegisterFunc => crate::packed_funcs::register_func(host, args),
        Function::GetGlobalFunc => crate::packed_funcs::get_global_func(host, args),
        Function::LibraryMatmul(library) => crate::packed_funcs::library_matmul(library, args),
        Function::ModuleFile(op) => match op {
            crate::function::ModuleFileOp::Load => crate::module_file::load_module(args),
            crate::function::ModuleFileOp::CreateShared => crate::module_file::create_shared(args),
            crate::function::ModuleFileOp::TempDir => crate::module_file::tempdir(args),
        },
        Function::CudaConv2dDirect(part) => crate::topi_cuda_conv2d::call(host, args, part),
        Function::NnDepthwiseConv2dNchw => crate::topi_nn::depthwise_conv2d_nchw(host, args),
        Function::NnMatmul(dense) => crate::topi_nn::matmul(host, args, dense),
        Function::NnBatchMatmul => crate::topi_nn::batch_matmul(host, args),
        Function::NnGetPadTuple(dims) => crate::topi_nn::get_pad_tuple(dims, args),
        Function::NnInfer(what) => crate::topi_nn::infer(what, args),
        Function::NnSoftmax(log) => crate::topi_nn::softmax(host, args, log),
        Function::RegisterTopi(schedule) => crate::autotvm::register(args, schedule),
        Function::AutotvmEntity(kind) => crate::autotvm::entity(kind, args),
        Function::LoadReferenceLog => crate::autotvm::load_reference_log(args),
        Function::TargetHasFeatures => crate::autotvm::target_has_features(host, args),
        Function::SimdLanes => crate::autotvm::simd_32bit_lanes(host, args),
        Function::LayoutTest(kind) => crate::topi::layout_test(args, kind),
        Function::TopiTestingInjectiveSchedule => crate::topi::testing_injective_schedule(args),
        Function::Requirement => crate::test_marks::requirement(args),
        Function::ParametrizeTargets => crate::test_marks::parametrize_targets(args),
        Function::DeviceOf => {
            let a = args.bind("device", &["dev_type", "dev_id"])?;
            let t = a.required("dev_type")?;
            let kind = match &t.value {
                Value::Str(s) => match s.split_whitespace().next().unwrap_or("") {
                    "llvm" | "cpu" | "c" => "cpu",
                    "cuda" | "nvptx" | "gpu" => "cuda",
                    "rocm" => "rocm",
                    "opencl" | "cl" => "opencl",
                    "vulkan" => "vulkan",
                    "metal" => "metal",
                    other => {
                        return Err(type_error(
                            t.place(),
                            format!("unknown device type `{other}`: use \"llvm\", \"cpu\", \"cuda\", \"rocm\", \"opencl\", \"vulkan\" or \"metal\""),
                        ))
                    }
                },
                Value::Object(Object::Target(target)) => {
                    if target.kind == "cuda" { "cuda" } else { "cpu" }
                }
                other => {
                    return Err(type_error(
                        t.place(),
                        format!("`tvm.device` needs a device type string, found a {}", other.type_name()),
                    ))
                }
            };
            let id = match a.get("dev_id") {
                None => 0,
                Some(g) => as_int(&g.value)
                    .ok_or_else(|| type_error(g.place(), "a device number is an integer"))?,
            };
            Ok(Value::Object(Object::Device(kind, id)))
        }
        Function::GenericFunc => crate::generic_func::new(args),
        Function::VScale => {
            args.bind("vscale", &[])?;
            Ok(Value::Index(Var::new("vscale").expr()))
        }
        Function::Prod => crate::topi::prod(args),
        Function::Pool2d => crate::topi_ops::pool2d(host, args),
        Function::DeviceEnabled => {
            let a = args.bind("device_enabled", &["target"])?;
            let t = a.required("target")?;
            let kind = match &t.value {
                Value::Str(s) => s.split_whitespace().next().unwrap_or("").to_string(),
                Value::Object(Object::Target(target)) => target.kind.clone(),
                other => {
                    return Err(type_error(
                        t.place(),
                        format!(
                            "`device_enabled` needs a target, found a {}",
                            other.type_name()
                        ),
                    ))
                }
            };
            Ok(Value::Bool(matches!(kind.as_str(), "llvm" | "c")))
        }
        Function::TopiSum => crate::topi_ops::sum(host, args),
        Function::TopiBroadcast(op) => crate::topi_ops::broadcast_function(op, args),
        Function::TopiReshape => crate::topi_ops::reshape(args),
        Function::TopiCast => crate::casts::topi_cast(args),
        Function::TopiElemwiseSum => crate::topi_ops::elemwise_sum(args),
        Function::TopiMath(op) => crate::topi_ops::elementwise_math(op, args),
        Function::DeferringDecorator => match args.positional.as_slice() {
            // The decorator applied: the function, as a name whose use is refused.
            [Value::Host(_)] => Ok(Value::Object(Object::Unsupported(Rc::from(
                "a function registered with autotvm (it needs a tuning configuration)",
            )))),
            // `register_topi_compute("name")`: the decorator.
            _ => Ok(Value::Function(Function::DeferringDecorator)),
        },
        Function::EqualConstInt => crate::topi::equal_const_int(args),
        Function::IsEmptyShape => crate::topi::is_empty_shape(args),
        Function::TopiSimplify => crate::topi::simplify(args),
        Function::IsInjective => crate::topi::tag_test(args, true),
        Function::IsBroadcast => crate::topi::tag_test(args, false),
        Function::TargetCurrent => {
            let a = args.bind("current", &["allow_none"])?;
            let allow_none = match a.get("allow_none") {
                Some(g) => crate::operators::truth(&g.value)?,
                None => true,
            };
            match host.session().targets.last() {
                Some(t) => Ok(Value::Object(Object::Target(t.clone()))),
                None if allow_none => Ok(Value::None),
                None => Err(ApiError::tvm(
                    "Target context required. Please set it by constructing a TargetContext",
                )),
            }
        }
        Function::TargetOf(kind) => target_of(kind, args),
        Function::PassContextCurrent => crate::pass_context::current(host, args),
        Function::Build => crate::build::build(host, args),
        Function::NdArray => crate::build::nd_array(args),
        Function::NdEmpty => crate::build::nd_empty(args),
        Function::Device(kind) => {
            let a = args.bind(kind, &["dev_id"])?;
            let id = match a.get("dev_id") {
                None => 0,
                Some(g) => as_int(&g.value)
                    .ok_or_else(|| type_error(g.place(), "a device number is an integer"))?,
            };
            Ok(Value::Object(Object::Device(kind, id)))
        }
        Function::AssertAllclose => crate::build::assert_allclose(args),
        Function::PostOrderVisit => crate::lowered::post_order_visit(host, args),
        Function::AutoInlineInjective
        | Function::AutoInlineElemWise
        | Function::AutoInlineBroadcast
        | Function::CreateReadGraph
        | Function::PostDfsOrder
        | Function::ScheduleOps => crate::dataflow::call(native, args),
        Function::Scan
        | Function::Extern
        | Function::DeclBuffer
        | Function::CallPacked
        | Function::CallExtern
        | Function::CallIntrin
        | Function::IrBuilder => crate::extern_api::call(host, native, args),
        Function::ScanGetBody | Function::ScanFixPointAnalysis => {
            let a = args.bind(
                native.name().rsplit('.').next().unwrap_or("scan"),
                &["scan_op"],
            )?;
            let g = a.required("scan_op")?;
            let op = objects::to_op(g)?;
            let Some(scan) = te::scan_op(&op) else {
                return Err(type_error(
                    g.place(),
                    format!("`{}` is not a scan", op.name()),
                ));
            };
            Ok(match native {
                Function::ScanGetBody => Value::list(
                    scan.body_ops()
                        .into_iter()
                        .map(|op| Value::Object(Object::Op(op)))
                        .collect(),
                ),
                _ => Value::Dict(Rc::from(
                    scan.spatial_axis
                        .iter()
                        .zip(scan.fix_points())
                        // IntImms, as TVM gives them (`.value`).
                        .map(|(iv, fixed)| {
                            (
                                Value::Object(Object::IterVar(iv.clone())),
                                Value::Index(arith::Expr::int(i64::from(fixed))),
                            )
                        })
                        .collect::<Vec<_>>(),
                )),
            })
        }
        Function::HybridBuild => crate::hybrid::build(args),
        Function::CreatePrimFunc => crate::tensor_ir::create_prim_func(args),
        Function::PrimFuncScript => crate::tensor_ir::prim_func(host, args),
        Function::TirSchedule => crate::tensor_ir::schedule(args),
        Function::ScriptFromSource => crate::tensor_ir::from_source(host, args),
        Function::StructuralEqual | Function::AssertStructuralEqual => {
            crate::structural::call(native, args)
        }
        Function::HybridModule => crate::hybrid::module_new(args),
        Function::SaveJson => crate::saved::save_json(args),
        Function::LoadJson => crate::saved::load_json(args),
        Function::HybridScript => {
            let a = args.bind("script", &["pyfunc"])?;
            let f = a.required("pyfunc")?;
            match &f.value {
                Value::Host(_) => Ok(Value::Object(Object::HybridFunction(Rc::new(
                    f.value.clone(),
                )))),
                other => Err(crate::error::type_error(
                    f.place(),
                    format!(
                        "`te.hybrid.script` decorates a function, not a {}",
                        other.type_name()
                    ),
                )),
            }
        }
        Function::CommReducer | Function::DeclTensorIntrin => {
            crate::reducer::call(host, native, args)
        }
    }
}

fn dtype(a: Option<&Given>, default: DataType) -> ApiResult<DataType> {
    match a {
        None => Ok(default),
        Some(a) => string(a)?.parse::<DataType>().map_err(|e| {
            type_error(
                a.place(),
                format!("{e}: use a TVM type name such as \"float32\" or \"int32\""),
            )
        }),
    }
}

/// A shape: a tuple or list of sizes, or a single size.
fn shape(a: &Given) -> ApiResult<Vec<Expr>> {
    let items = a.value.sequence().unwrap_or_else(|| vec![a.value.clone()]);
    items
        .into_iter()
        .map(|v| {
            to_index(&Given {
                value: v,
                at: a.at.clone(),
            })
        })
        .collect()
}

/// The schedule an argument holds.
pub(crate) fn schedule_arg(a: &Given) -> ApiResult<ScheduleRef> {
    match &a.value {
        Value::Object(Object::Schedule(s)) => Ok(s.clone()),
        other => Err(type_error(
            a.place(),
            format!("expected a schedule, found a {}", other.type_name()),
        )),
    }
}

/// Calls the program's function `f` (given as argument `at`) through the
/// host: an error about the call points at `at`; an error raised inside `f`
/// passes through as the host raised it.
pub(crate) fn call_back(
    host: &mut dyn Host,
    f: &Value,
    args: Vec<Value>,
    at: &crate::ArgRef,
) -> ApiResult<Value> {
    host.call(f, args).map_err(|e| {
        if e.class == ErrorClass::Host {
            e
        } else {
            e.or_at(at)
        }
    })
}

fn placeholder(args: Args) -> ApiResult<Value> {
    let a = args.bind("placeholder", &["shape", "dtype", "name"])?;
    let dims = shape(a.required("shape")?)?;
    let dt = dtype(a.get("dtype"), DataType::Float32)?;
    let name = a
        .get("name")
        .map(string)
        .transpose()?
        .unwrap_or_else(|| "placeholder".to_owned());
    let t = te::placeholder(dims, &name, dt).map_err(|e| te_error(&a.place(), e))?;
    Ok(Value::Object(Object::Tensor(t)))
}

/// Why building an operation from a program's function failed: in the
/// function (an error the host raised) or in `te`.
pub(crate) enum BuildFailure {
    Host(ApiError),
    Te(te::TeError),
}

impl From<te::TeError> for BuildFailure {
    fn from(e: te::TeError) -> BuildFailure {
        BuildFailure::Te(e)
    }
}

/// The host's own error as it is; `te`'s as an API error.
impl From<BuildFailure> for ApiError {
    fn from(e: BuildFailure) -> ApiError {
        match e {
            BuildFailure::Host(e) => e,
            BuildFailure::Te(e) => crate::error::te_error(&None, e),
        }
    }
}

fn compute(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "compute",
        &["shape", "fcompute", "name", "tag", "attrs", "varargs_names"],
    )?;
    let mut dims = shape(a.required("shape")?)?;
    let tag = crate::tags::compute_tag(host, a.get("tag"))?;
    let attrs = crate::tags::attrs(a.get("attrs"))?;
    let f = a.required("fcompute")?;
    let name = a
        .get("name")
        .map(string)
        .transpose()?
        .unwrap_or_else(|| "compute".to_owned());
    let Some(params) = host.parameters(&f.value) else {
        return Err(type_error(
            f.place(),
            format!(
                "`compute` needs a lambda or function, found a {}",
                f.value.type_name()
            ),
        ));
    };
    let varargs_names = match a.get("varargs_names") {
        None => None,
        Some(g) if matches!(g.value, Value::None) => None,
        Some(g) => {
            let items = g.value.sequence().ok_or_else(|| {
                type_error(
                    g.place(),
                    format!(
                        "`varargs_names` needs a list of names, found a {}",
                        g.value.type_name()
                    ),
                )
            })?;
            let names = items
                .into_iter()
                .map(|v| string(&g.item(v)))
                .collect::<ApiResult<Vec<_>>>()?;
            Some((names, g.place()))
        }
    };
    // A lambda of fewer parameters than dimensions that returns a call of
    // a tensor intrinsic leaves the other dimensions to the intrinsic.
    let all_dims = dims.clone();
    let axis_names = compute_axis_names(params, &mut dims, varargs_names, f.place())?;
    let names: Vec<&str> = axis_names.iter().map(String::as_str).collect();
    let fcompute = f.value.clone();
    let fspan = f.at.clone();
    // A lambda returning a tuple makes one operation with an output per
    // value (`C, D = te.compute(...)`), as in TVM.
    let mut several = false;
    let built = te::try_compute_or_intrinsic(
        all_dims,
        &names,
        |vars| {
            let indices = vars.iter().map(|v| Value::Index(v.clone())).collect();
            let body = call_back(host, &fcompute, indices, &fspan).map_err(BuildFailure::Host)?;
            if let Value::Object(Object::IntrinCall(call)) = &body {
                return Ok(te::ComputeBody::Intrinsic((**call).clone()));
            }
            let values = match &body {
                Value::Tuple(_) | Value::List(_) => {
                    several = true;
                    body.sequence().unwrap_or_default()
                }
                _ => vec![body],
            };
            values
                .iter()
                .map(|v| to_element(v, Some(fspan.clone())))
                .collect::<ApiResult<Vec<_>>>()
                .map(te::ComputeBody::Values)
                .map_err(BuildFailure::Host)
        },
        &name,
        &tag,
        attrs,
    );
    match built {
        Ok(mut outputs) => {
            if let Some(k) = reduce_axis_outside(&outputs[0], &host.session().reduce_vars) {
                return Err(tvm_error(
                    a.place(),
                    format!(
                        "`{name}` uses the reduction axis `{k}` outside a reduction over it: \
                         use it only inside `te.sum(..., axis={k})` (or another reducer)"
                    ),
                ));
            }
            let tensor = |t| Value::Object(Object::Tensor(t));
            // A tuple of one value makes one tensor, as TVM returns
            // `outputs[0]` when there is one output.
            Ok(if several && outputs.len() > 1 {
                Value::tuple(outputs.into_iter().map(tensor).collect())
            } else {
                tensor(outputs.remove(0))
            })
        }
        Err(BuildFailure::Host(r)) => Err(r),
        Err(BuildFailure::Te(e)) => Err(te_error(&a.place(), e)),
    }
}

/// The names of a compute's axes, as TVM's `te.compute` takes them from
/// the function's parameters: positional names first, then, for `*args`,
/// the `varargs_names` given or `i0, i1, ...` for the remaining
/// dimensions (`lambda n, *i` over four dimensions gives `n, i0, i1, i2`).
/// A function with fewer positional parameters than the shape has
/// dimensions makes a tensor of the leading dimensions only (`dims` is cut
/// to them), as TVM does.
fn compute_axis_names(
    params: crate::host::Parameters,
    dims: &mut Vec<Expr>,
    varargs_names: Option<(Vec<String>, At)>,
    at: At,
) -> ApiResult<Vec<String>> {
    let positional = params.names.len();
    if params.varargs {
        let Some(remaining) = dims.len().checked_sub(positional) else {
            return Err(error(
                ErrorClass::ValueError,
                at,
                format!(
                    "the shape has {} dimensions but the function takes {positional} indices \
                     before `*args`",
                    dims.len()
                ),
            ));
        };
        let rest = match varargs_names {
            Some((names, names_at)) if names.len() != remaining => {
                // TVM raises a RuntimeError here.
                return Err(error(
                    ErrorClass::RuntimeError,
                    names_at,
                    format!(
                        "`*args` takes the {remaining} remaining dimensions, but \
                         `varargs_names` gives {} names",
                        names.len()
                    ),
                ));
            }
            Some((names, _)) => names,
            None => (0..remaining).map(|d| format!("i{d}")).collect(),
        };
        return Ok(params.names.into_iter().chain(rest).collect());
    }
    if positional > dims.len() || (positional == 0 && !dims.is_empty()) {
        // TVM raises a ValueError (no parameters) or a TypeError from the
        // call (too many); both are a mismatch of shape and function.
        return Err(error(
            ErrorClass::ValueError,
            at,
            format!(
                "the shape has {} dimensions but the function takes {positional} indices",
                dims.len()
            ),
        ));
    }
    dims.truncate(positional);
    Ok(params.names)
}

/// The name of a reduction axis (one of `reduce_vars`) that the body of
/// `t` reads with outside a reduction over that axis, if any: TVM rejects
/// such a body, and it has no value there.
fn reduce_axis_outside(t: &te::Tensor, reduce_vars: &HashSet<Var>) -> Option<String> {
    let compute = t.op().as_compute()?;
    let allowed: Vec<&Var> = compute.reduce_axis.iter().map(|iv| iv.var()).collect();
    let mut found = None;
    compute.body.for_each_load(&mut |_, idx| {
        for e in idx {
            e.for_each_var(&mut |v| {
                if found.is_none() && reduce_vars.contains(v) && !allowed.contains(&v) {
                    found = Some(v.name().to_owned());
                }
            });
        }
    });
    found
}

/// `te.thread_axis(tag)` or `te.thread_axis(dom, tag)`. A domain is not
/// supported: the bound loop's extent is the number of threads.
fn thread_axis(args: Args) -> ApiResult<Value> {
    let a = args.bind("thread_axis", &["dom", "tag", "name", "span"])?;
    let tag = match (a.get("dom"), a.get("tag")) {
        (Some(d), None) if matches!(d.value, Value::Str(_)) => d,
        (None, Some(t)) => t,
        (Some(d), Some(t)) => {
            // TVM lowers a bound loop over its own range, whatever domain
            // the thread axis declares (InferBound gives the thread the
            // loop's range): the domain is checked for its form and kept
            // out of the model.
            thread_domain(d)?;
            t
        }
        _ => {
            return Err(type_error(
                a.place(),
                "`thread_axis` needs a tag such as \"threadIdx.x\"",
            ))
        }
    };
    let text = string(tag)?;
    let name = match a.get("name") {
        Some(n) if !matches!(n.value, Value::None) => string(n)?,
        _ => text.clone(),
    };
    // TVM accepts any tag here; rangefinder knows only the GPU ones, so an
    // unknown tag is a limit of rangefinder, not a `TVMError` to catch.
    let axis = te::IterVar::thread_axis_named(&text, &name).map_err(|e| {
        not_supported(
            tag.place(),
            format!("this thread axis is not supported: {}", e.message),
        )
    })?;
    Ok(Value::Object(Object::ThreadAxis(axis)))
}

/// The domain of a thread axis, `(min, extent_end)` or a `Range`: it must
/// start at 0, as TVM requires of threads.
fn thread_domain(d: &Given) -> ApiResult<()> {
    if matches!(d.value, Value::None) {
        return Ok(());
    }
    let min = match &d.value {
        Value::Object(Object::Range(r)) => Some(r.min.clone()),
        v => v
            .sequence()
            .filter(|items| items.len() == 2)
            .map(|items| to_index(&d.item(items[0].clone())))
            .transpose()?,
    };
    match min {
        Some(m) if crate::objects::constant_value(&m) == Some(0) => Ok(()),
        Some(m) => Err(type_error(
            d.place(),
            format!("a thread axis starts at 0, not at {m}"),
        )),
        None => Err(type_error(
            d.place(),
            format!(
                "`thread_axis` needs its domain as `(0, extent)` or a `Range`, found a {}",
                d.value.type_name()
            ),
        )),
    }
}

/// `tvm.ir.Range(begin, end)`: `[begin, end)`; with one argument
/// `[0, begin)`.
fn range(args: Args) -> ApiResult<Value> {
    let a = args.bind("Range", &["begin", "end", "span"])?;
    let begin = to_index(a.required("begin")?)?;
    let (lo, hi) = match a.get("end").filter(|e| !matches!(e.value, Value::None)) {
        Some(end) => (begin, to_index(end)?),
        None => (Expr::int(0), begin),
    };
    Ok(Value::Object(Object::Range(arith::Range::half_open(
        lo, hi,
    ))))
}

fn reduce_axis(args: Args) -> ApiResult<Value> {
    let a = args.bind("reduce_axis", &["dom", "name", "thread_tag", "span"])?;
    let dom = a.required("dom")?;
    let name = || -> ApiResult<String> {
        Ok(a.get("name")
            .map(string)
            .transpose()?
            .unwrap_or_else(|| "rv".to_owned()))
    };
    // A `tvm.ir.Range` is the domain as TVM stores it.
    if let Value::Object(Object::Range(r)) = &dom.value {
        return Ok(Value::Object(Object::IterVar(te::IterVar::new(
            name()?,
            Some(r.clone()),
            te::IterKind::Reduce,
        ))));
    }
    let bounds = dom
        .value
        .sequence()
        .filter(|b| b.len() == 2)
        .ok_or_else(|| {
            type_error(
                dom.place(),
                "`reduce_axis` needs its domain as a pair `(lo, hi)` or a `tvm.ir.Range`",
            )
        })?;
    let lo = to_index(&Given {
        value: bounds[0].clone(),
        at: dom.at.clone(),
    })?;
    let hi = to_index(&Given {
        value: bounds[1].clone(),
        at: dom.at.clone(),
    })?;
    let name = a
        .get("name")
        .map(string)
        .transpose()?
        .unwrap_or_else(|| "rv".to_owned());
    Ok(Value::Object(Object::IterVar(te::reduce_axis(
        (lo, hi),
        &name,
    ))))
}

/// The axes of a reduction: one IterVar or a list of them.
fn axes(a: &Given) -> ApiResult<Vec<te::IterVar>> {
    match a.value.sequence() {
        Some(items) => items
            .into_iter()
            .map(|v| {
                to_iter_var(&Given {
                    value: v,
                    at: a.at.clone(),
                })
            })
            .collect(),
        None => Ok(vec![to_iter_var(a)?]),
    }
}

fn reduction(reducer: te::Reducer, args: Args) -> ApiResult<Value> {
    let name = format!("te.{}", reducer.name());
    let a = args.bind(&name, &["expr", "axis", "where", "init"])?;
    if let Some(init) = a.get("init") {
        return Err(not_supported(init.place(), "`init=` is not supported"));
    }
    let source_arg = a.required("expr")?;
    let source = to_element(&source_arg.value, source_arg.place())?;
    let axes = axes(a.required("axis")?)?;
    Ok(element(match a.get("where") {
        Some(w) => te::reduce_where(reducer, source, &axes, condition(w)?),
        None => match reducer {
            te::Reducer::Sum => te::sum(source, &axes),
            te::Reducer::Max => te::max(source, &axes),
            te::Reducer::Min => te::min(source, &axes),
            te::Reducer::Prod => te::prod(source, &axes),
        },
    }))
}

/// `te.max` / `te.min`: a reduction when given an axis, else the larger or
/// smaller of two values (TVM's reducers accept both).
fn min_max(native: Function, args: Args) -> ApiResult<Value> {
    let is_max = native == Function::MaxReducer;
    let reducer = if is_max {
        te::Reducer::Max
    } else {
        te::Reducer::Min
    };
    let second_is_axis = args
        .positional
        .get(1)
        .is_some_and(|a| matches!(a, Value::Object(Object::IterVar(_))) || a.sequence().is_some());
    if !args.keywords.is_empty() || second_is_axis {
        return reduction(reducer, args);
    }
    let pos = args.positional_only(native.name())?;
    let span: At = None;
    let [x, y] = &pos[..] else {
        return Err(type_error(
            span,
            format!(
                "`{}` takes two values, or a value and `axis=`",
                native.name()
            ),
        ));
    };
    if let (Ok(a), Ok(b)) = (to_index(x), to_index(y)) {
        if let (Some(p), Some(q)) = (a.as_int(), b.as_int()) {
            // Two constants fold, as TVM's `max`/`min` fold them.
            return Ok(Value::Index(Expr::int(if is_max {
                p.max(q)
            } else {
                p.min(q)
            })));
        }
        return Ok(Value::Index(if is_max {
            Expr::max(a, b)
        } else {
            Expr::min(a, b)
        }));
    }
    let a = to_element(&x.value, x.place())?;
    let b = to_element(&y.value, y.place())?;
    Ok(element(if is_max {
        te::Value::max(a, b)
    } else {
        te::Value::min(a, b)
    }))
}

fn constant(args: Args) -> ApiResult<Value> {
    let a = args.bind("const", &["value", "dtype", "span"])?;
    let v = a.required("value")?;
    let default = match v.value {
        Value::Float(_) => DataType::Float32,
        Value::Bool(_) => DataType::Bool,
        _ => DataType::Int32,
    };
    let dt = dtype(a.get("dtype"), default)?;
    // `tvm.tir.const(True)` is a boolean constant (TVM's `bool` IntImm).
    if dt == DataType::Bool {
        if let Value::Bool(b) = v.value {
            return Ok(Value::Index(Expr::bool(b)));
        }
    }
    typed_constant(&v.value, dt, v.place())
}

/// `tvm.tir.const(value, dt)`: the number as a constant of type `dt`.
pub(crate) fn typed_constant(value: &Value, dt: DataType, at: At) -> ApiResult<Value> {
    let typed = match (value, dt.is_float()) {
        (Value::Float(f), true) => Value::Float(*f),
        (value, true) => as_int(value)
            .map(|i| Value::Float(i as f64))
            .ok_or_else(|| type_error(at.clone(), "`const` needs a number"))?,
        // A float made an integer constant truncates, as TVM's
        // `MakeConstScalar` casts it (TOPI's `pad` makes its default
        // `0.0` the data's type).
        (Value::Float(f), false) if f.is_finite() && f.abs() < 9.2e18 => {
            Value::Index(Expr::int(f.trunc() as i64))
        }
        (value, false) => as_int(value)
            .map(|i| Value::Index(Expr::int(i)))
            .ok_or_else(|| {
                type_error(at.clone(), format!("`const` of type {dt} needs an integer"))
            })?,
    };
    // int32, int64 and float32 constants are the plain values; other
    // types keep their type, as TVM's constants do.
    if matches!(dt, DataType::Int32 | DataType::Int64 | DataType::Float32) {
        return Ok(typed);
    }
    crate::casts::cast(&typed, dt, at)
}

/// A condition argument: a Python bool or a symbolic condition.
fn condition(a: &Given) -> ApiResult<Expr> {
    match &a.value {
        Value::Bool(b) => Ok(Expr::bool(*b)),
        Value::Index(e) if e.ty() == arith::Type::Bool => Ok(e.clone()),
        other => Err(type_error(
            a.place(),
            format!(
                "expected a condition such as `i < n`, found a {}",
                other.type_name()
            ),
        )),
    }
}

/// `tir.all(*conds)` (`is_all`) or `tir.any(*conds)`: on index
/// conditions an index condition, with a condition on tensor values among
/// them (`x[i] < 0.0`, the sampling bounds of TOPI's `grid_sample`) a value
/// condition.
pub(crate) fn join_conditions(is_all: bool, conds: &[Given]) -> ApiResult<Value> {
    if conds.iter().any(|a| objects::is_element(&a.value)) {
        let conds = conds
            .iter()
            .map(value_condition)
            .collect::<ApiResult<Vec<_>>>()?;
        let joined = conds.into_iter().reduce(|a, b| {
            if is_all {
                te::Value::and(a, b)
            } else {
                te::Value::or(a, b)
            }
        });
        return Ok(joined.map_or(Value::Bool(is_all), objects::element));
    }
    let conds = conds.iter().map(condition).collect::<ApiResult<Vec<_>>>()?;
    let joined = conds.into_iter().reduce(|a, b| {
        if is_all {
            Expr::and(a, b)
        } else {
            Expr::or(a, b)
        }
    });
    Ok(Value::Index(joined.unwrap_or_else(|| Expr::bool(is_all))))
}

/// A condition as a tensor element expression: on indices or on tensor
/// values.
fn value_condition(a: &Given) -> ApiResult<te::Value> {
    match &a.value {
        v if objects::is_element(v) => {
            let e = objects::to_element(v, a.place())?;
            if e.dtype() != tir::DataType::Bool {
                return Err(type_error(
                    a.place(),
                    format!(
                        "expected a condition such as `x[i] < 0.0`, found a {} tensor element expression",
                        e.dtype().name()
                    ),
                ));
            }
            Ok(e)
        }
        _ => condition(a).map(te::Value::index),
    }
}

pub(crate) fn integer_division(native: Function, args: Args) -> ApiResult<Value> {
    let a = args.bind(native.name(), &["a", "b", "span"])?;
    let floor = match native {
        Function::FloorDiv => Some(crate::BinaryOp::FloorDiv),
        Function::FloorMod => Some(crate::BinaryOp::Mod),
        _ => None,
    };
    let (lhs, rhs) = (&a.required("a")?.value, &a.required("b")?.value);
    if let Some(op) = floor.filter(|_| objects::is_element(lhs) || objects::is_element(rhs)) {
        // On tensor values (`indexmod(i, topi.shape(t)[0])`): the element
        // operator, as `i % x[0]` is.
        return objects::element_binary(op, lhs, rhs, Some(a.required("b")?.at.clone()));
    }
    let x = to_index(a.required("a")?)?;
    let y_arg = a.required("b")?;
    let y = to_index(y_arg)?;
    if let (Some(n), Some(d)) = (x.as_int(), y.as_int()) {
        // Two constants divide to a constant, as TVM folds them.
        let folded = match native {
            Function::FloorDiv => arith::num::floor_div(n, d).ok(),
            Function::FloorMod => arith::num::floor_mod(n, d).ok(),
            Function::TruncDiv => n.checked_div(d),
            _ => n.checked_rem(d),
        };
        return match folded {
            Some(v) => Ok(Value::Index(Expr::int(v))),
            None if d == 0 => Err(
                ApiError::new(ErrorClass::ZeroDivisionError, "division by zero")
                    .at(y_arg.at.clone()),
            ),
            None => Err(ApiError::new(
                ErrorClass::OverflowError,
                format!("integer overflow: {n} divided by {d} does not fit in 64 bits"),
            )),
        };
    }
    let e = match native {
        Function::FloorDiv => Expr::floor_div(x, y),
        Function::FloorMod => Expr::floor_mod(x, y),
        _ => truncating_division(x, y, native == Function::TruncMod)
            .map_err(|e| e.at(y_arg.at.clone()))?,
    };
    Ok(Value::Index(e))
}

/// `truncdiv(a, b)` (`remainder` false) or `truncmod(a, b)`: C's integer
/// division, rounding toward zero, and its remainder (with the sign of
/// `a`), for any divisor: a constant of either sign or an expression.
/// Constants fold; otherwise the result is written with floor operators.
pub fn truncating_division(a: Expr, b: Expr, remainder: bool) -> ApiResult<Expr> {
    match (a.as_int(), b.as_int()) {
        (_, Some(0)) => Err(ApiError::new(
            ErrorClass::ZeroDivisionError,
            "truncating division by zero",
        )),
        (Some(n), Some(d)) => {
            let folded = if remainder {
                n.checked_rem(d)
            } else {
                n.checked_div(d)
            };
            folded.map(Expr::int).ok_or_else(|| {
                ApiError::new(
                    ErrorClass::OverflowError,
                    format!("integer overflow: {n} divided by {d} does not fit in 64 bits"),
                )
            })
        }
        (_, Some(d)) => Ok(trunc_by_constant(a, d, remainder)),
        (_, None) => Ok(trunc_by_expr(a, b, remainder)),
    }
}

/// Truncating division or remainder by a non-zero constant `d`: for
/// `d < 0`, `a / d` is `-(a / -d)` and the remainder is that of `-d`.
fn trunc_by_constant(a: Expr, d: i64, remainder: bool) -> Expr {
    let magnitude = d.checked_abs().filter(|m| *m > 0);
    let by_magnitude = magnitude.and_then(|m| {
        if remainder {
            Expr::trunc_mod(a.clone(), m)
        } else {
            Expr::trunc_div(a.clone(), m)
                .map(|q| if d > 0 { q } else { Expr::sub(Expr::int(0), q) })
        }
    });
    by_magnitude.unwrap_or_else(|| trunc_by_expr(a, Expr::int(d), remainder))
}

/// Truncating division or remainder by `b`, written with floor operators:
/// the floor quotient is one less than the truncated one exactly when the
/// remainder is not zero and `a` and `b` have opposite signs.
fn trunc_by_expr(a: Expr, b: Expr, remainder: bool) -> Expr {
    let zero = || Expr::int(0);
    let opposite = Expr::or(
        Expr::and(Expr::lt(a.clone(), zero()), Expr::gt(b.clone(), zero())),
        Expr::and(Expr::gt(a.clone(), zero()), Expr::lt(b.clone(), zero())),
    );
    let inexact = Expr::ne(Expr::floor_mod(a.clone(), b.clone()), zero());
    let rounds_down = Expr::and(inexact, opposite);
    if remainder {
        Expr::sub(
            Expr::floor_mod(a, b.clone()),
            Expr::select(rounds_down, b, zero()),
        )
    } else {
        Expr::add(
            Expr::floor_div(a, b),
            Expr::select(rounds_down, Expr::int(1), zero()),
        )
    }
}

/// `te.exp(x)` and the other math functions: a call on tensor elements.
fn intrinsic(f: tir::Intrinsic, args: Args) -> ApiResult<Value> {
    let pos = args.positional_only(f.name())?;
    let span: At = None;
    if pos.len() != f.arity() {
        return Err(type_error(
            span,
            format!(
                "`{}` takes {} argument(s), {} given",
                f.name(),
                f.arity(),
                pos.len()
            ),
        ));
    }
    let operands = pos
        .iter()
        .map(|a| to_element(&a.value, a.place()))
        .collect::<ApiResult<Vec<_>>>()?;
    if f.is_bitwise() {
        if let Some((a, v)) = pos
            .iter()
            .zip(&operands)
            .find(|(_, v)| v.dtype().is_float())
        {
            return Err(type_error(
                a.place(),
                format!(
                    "`{}` works on the bits of integers, not on a {} value",
                    f.name(),
                    v.dtype().name()
                ),
            ));
        }
    }
    Ok(element(te::Value::call(f, operands)))
}

/// `lhs op rhs` for Python's bitwise operators on tensor elements: TVM's
/// `bitwise_and`, `bitwise_or`, `bitwise_xor`, `shift_left`,
/// `shift_right`; `&` and `|` of conditions are [`crate::logical`].
pub(crate) fn bitwise(f: tir::Intrinsic, lhs: &Value, rhs: &Value) -> ApiResult<Value> {
    intrinsic(f, Args::positional(vec![lhs.clone(), rhs.clone()]))
}

/// `tvm.tir.div(a, b)`: truncating division of integers (as
/// `tvm.tir.truncdiv`), true division of floats.
fn div(args: Args) -> ApiResult<Value> {
    let integer = |v: &Value| matches!(promote(v), Value::Int(_) | Value::Index(_));
    if args.positional.len() == 2 && args.positional.iter().all(integer) {
        return integer_division(Function::TruncDiv, args);
    }
    let a = args.bind("div", &["a", "b", "span"])?;
    let (x, y) = (a.required("a")?, a.required("b")?);
    crate::objects::element_binary(crate::BinaryOp::Div, &x.value, &y.value, x.place())
}

/// `tvm.target.cuda()`, `tvm.target.arm_cpu()`, `tvm.target.create(text)`.
fn target_of(kind: &'static str, args: Args) -> ApiResult<Value> {
    let text = match kind {
        "create" => {
            let a = args.bind("create", &["target"])?;
            string(a.required("target")?)?
        }
        _ => {
            let a = args.bind(kind, &["model", "options"])?;
            let mut text = match kind {
                "arm_cpu" => "llvm -keys=arm_cpu -device=arm_cpu".to_owned(),
                other => other.to_owned(),
            };
            if let Some(m) = a.get("model") {
                text.push_str(&format!(" -model={}", string(m)?));
            }
            text
        }
    };
    let target = crate::target::Target::parse(&text)?;
    Ok(Value::Object(Object::Target(Rc::new(target))))
}

fn lower(host: &mut dyn Host, args: Args) -> ApiResult<Value> {
    let a = args.bind("lower", &["inp", "args", "name", "binds", "simple_mode"])?;
    if let Value::Object(Object::TensorIr(crate::tensor_ir::TirObject::PrimFunc(f))) =
        &a.required("inp")?.value
    {
        // A function in block form lowers on its own: its blocks become
        // the loop IR's `let`s, `if`s and allocations.
        let func = tir::block::to_loop_ir(f);
        return Ok(Value::Object(Object::Lowered(Rc::new(
            crate::lowered::LoweredModule::new("main".to_string(), func.to_string(), func),
        ))));
    }
    let s = schedule_arg(a.required("inp")?)?;
    let tensors = match a.get("args") {
        Some(list) => {
            let items = list.value.sequence().ok_or_else(|| {
                type_error(
                    list.place(),
                    "`lower` needs its arguments as a list of tensors",
                )
            })?;
            // Variables among the arguments are the function's scalar
            // parameters; the loop nest is the tensors'.
            crate::build::program_params(items, list)?.0
        }
        None => default_args(&s.borrow()),
    };
    let tensors = s.borrow().program_args(tensors);
    let lowering = match te::Lowering::new(&s.borrow(), &tensors) {
        Ok(l) => l,
        Err(e) => {
            host.session().failed_lowering = Some(s.clone());
            return Err(te_error(&a.place(), e));
        }
    };
    let name = match a.get("name") {
        Some(g) => match &g.value {
            Value::Str(n) => n.to_string(),
            _ => return Err(type_error(g.place(), "`lower` needs `name` as a string")),
        },
        None => "main".to_string(),
    };
    let module = crate::lowered::LoweredModule::new(
        name,
        lowering.program().to_string(),
        crate::lowered::without_produce(
            lowering.program(),
            &s.borrow()
                .stages()
                .iter()
                .filter(|st| st.op().is_extern())
                .map(|st| st.name().to_string())
                .collect(),
        ),
    );
    host.session().failed_lowering = None;
    host.session().lowered.push(Lowered {
        schedule: s.clone(),
        args: tensors,
        lowering,
    });
    Ok(Value::Object(Object::Lowered(Rc::new(module))))
}

/// The arguments of a program when the script does not name them: its
/// inputs, then its outputs.
pub(crate) fn default_args(s: &te::Schedule) -> Vec<te::Tensor> {
    s.default_args()
}

fn substitute(args: Args) -> ApiResult<Value> {
    let a = args.bind("substitute", &["node", "vmap"])?;
    let e = to_index(a.required("node")?)?;
    let map_arg = a.required("vmap")?;
    let Value::Dict(pairs) = &map_arg.value else {
        return Err(type_error(
            map_arg.place(),
            "`substitute` needs a dict from variables to values",
        ));
    };
    let mut map: Vec<(Var, Expr)> = Vec::new();
    for (k, v) in pairs.iter() {
        let key = to_index(&Given {
            value: k.clone(),
            at: map_arg.at.clone(),
        })?;
        let Some(var) = key.as_var() else {
            return Err(type_error(
                map_arg.place(),
                format!("`{key}` is not a variable"),
            ));
        };
        map.push((
            var.clone(),
            to_index(&Given {
                value: v.clone(),
                at: map_arg.at.clone(),
            })?,
        ));
    }
    let out = e.substitute(&mut |v| map.iter().find(|(k, _)| k == v).map(|(_, e)| e.clone()));
    Ok(Value::Index(out))
}
