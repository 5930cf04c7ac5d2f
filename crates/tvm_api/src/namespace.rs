//! The `tvm` namespaces and the functions, classes and constants they hold.
//!
//! TVM has renamed its Python API several times (`tvm.compute`,
//! `tvm.te.compute`, `te.compute`; `tvm.schedule.InferBound`,
//! `tvm.te.schedule.InferBound`); every spelling resolves here to one
//! [`Function`], so the rest of the API sees a single name per function.

use crate::error::ErrorClass;
use crate::function::{Class, Function};
use crate::object::Object;
use crate::value::Value;

/// The modules a script may import, by dotted path (with those of
/// [`IMPORT_ONLY`]).
const MODULES: &[&str] = &[
    "tvm",
    "tvm.te",
    "tvm.tir",
    "tvm.te.schedule",
    "tvm.schedule",
    "tvm.runtime",
    "tvm.testing",
    "tvm.container",
    "tvm.tir.stmt_functor",
    "tvm.tir.generic",
    "tvm.error",
    "tvm._ffi",
    "tvm._ffi.base",
    "tvm.ir",
    "tvm.script",
    "tvm.script.tir",
    "tvm.tir.schedule",
    "tvm.tir.expr",
    "tvm.te.tensor",
    "tvm.te.operation",
    "tvm.target",
    "tvm.topi",
    "tvm.topi.utils",
    "tvm.topi.tag",
    "tvm.nd",
    "tvm.tir.stmt",
    "tvm.tir.ir_builder",
    "tvm.driver",
    "tvm.arith",
    "tvm.arith.analyzer",
    "tvm.driver.build_module",
    "tvm.topi.nn.pooling",
    "tvm.topi.math",
    "tvm.topi.transform",
    "tvm.te.hybrid",
    "tvm.transform",
    "tvm.ir.transform",
];

/// Modules TVM's operator library and tests import at their top but use
/// only on paths a TE program does not take (`relay` in type hints,
/// `auto_scheduler` for rewritten layouts, `cudnn` when asked for, numpy
/// references in `topi.testing`): they import, and each of their names
/// imports too, as a value whose first use says it is not supported.
const IMPORT_ONLY: &[&str] = &[
    "tvm.relay",
    "tvm.auto_scheduler",
    "tvm.autotvm",
    "tvm.autotvm.task",
    "tvm.autotvm.task.space",
    "tvm.autotvm.tophub",
    "tvm.autotvm.GLOBAL_SCOPE",
    "tvm.target.x86",
    "tvm.target.codegen",
    "tvm.contrib",
    "tvm.contrib.cudnn",
    "tvm.contrib.cublas",
    "tvm.contrib.cblas",
    "tvm.contrib.mkl",
    "tvm.contrib.dnnl",
    "tvm.contrib.clang",
    "tvm.contrib.utils",
    "tvm.contrib.cc",
    "tvm.contrib.nvcc",
    "tvm.contrib.pickle_memoize",
    // TOPI modules of which rangefinder has some functions: the others
    // import, and fail where they are used.
    "tvm.topi.utils",
    "tvm.topi.transform",
    "tvm.topi.nn",
    "tvm.topi.nn.winograd_util",
    "tvm.topi.nn.pad",
    "tvm.topi.nn.conv1d",
    "tvm.topi.nn.conv2d",
    "tvm.topi.nn.conv3d",
    "tvm.topi.nn.dense",
    "tvm.topi.nn.depthwise_conv2d",
    "tvm.topi.nn.batch_matmul",
    "tvm.topi.nn.softmax",
    "tvm.topi.nn.utils",
    "tvm.topi.nn.local_response_norm",
    "tvm.topi.nn.layer_norm",
    "tvm.topi.nn.instance_norm",
    "tvm.topi.nn.group_norm",
    "tvm.topi.nn.rms_norm",
    "tvm.topi.nn.loss",
    "tvm.topi.nn.space_to_batch_nd",
    "tvm.topi.nn.batch_to_space_nd",
    "tvm.topi.nn.flatten",
    "tvm.topi.nn.elemwise",
    "tvm.topi.nn.mapping",
    "tvm.topi.nn.upsampling",
    "tvm.topi.reduction",
    "tvm.topi.broadcast",
    "tvm.topi.image",
    "tvm.topi.image.resize",
    "tvm.topi.testing",
    "tvm.topi.x86",
    "tvm.topi.x86.injective",
    "tvm.topi.x86.conv2d_avx_common",
    "tvm.topi.x86.conv2d_avx_1x1",
    "tvm.topi.x86.pooling",
    "tvm.topi.x86.reduction",
    "tvm.topi.x86.tensor_intrin",
    "tvm.topi.x86.utils",
    "tvm.topi.cuda",
    "tvm.topi.cuda.tensor_intrin",
    "tvm.topi.cuda.pooling",
    "tvm.topi.cuda.reduction",
    "tvm.topi.cuda.softmax",
    "tvm.topi.cuda.injective",
    "tvm.topi.cuda.conv2d",
    "tvm.topi.cuda.conv2d_direct",
    "tvm.topi.cuda.conv2d_nhwc",
    "tvm.topi.cuda.conv2d_nhwc_winograd",
    "tvm.topi.cuda.conv2d_winograd",
    "tvm.topi.generic",
    "tvm.topi.generic.injective",
    "tvm.topi.generic.default",
    "tvm.topi.cpp",
    "tvm.topi.cpp.nn",
    "tvm.topi.cpp.generic",
    "tvm.topi.cpp.cuda",
    "tvm.topi.cpp.x86",
    "tvm.topi.cpp.utils",
    "tvm.meta_schedule",
];

/// The modules TVM programs import at their top but use only on paths a
/// TE program does not take, parents first: front ends that register
/// modules by name (the Python package) take the list from here.
pub fn import_only_modules() -> &'static [&'static str] {
    IMPORT_ONLY
}

/// The module called `path`, if scripts may use it.
pub(crate) fn module(path: &str) -> Option<Value> {
    MODULES
        .iter()
        .chain(IMPORT_ONLY)
        .find(|m| **m == path)
        .map(|m| Value::Object(Object::Module(m)))
}

/// `module.name`: a submodule or a function, in any of TVM's spellings; in
/// a module of [`IMPORT_ONLY`], a name rangefinder does not provide is an
/// [`Object::Unsupported`].
pub(crate) fn module_attr(module_path: &str, name: &str) -> Option<Value> {
    if module_path == "tvm.autotvm" && matches!(name, "template" | "register_customized_task") {
        return Some(Value::Function(Function::DeferringDecorator));
    }
    cpp_operator(module_path, name)
        .or_else(|| known_module_attr(module_path, name))
        .or_else(|| topi_operator(module_path, name).map(Value::Function))
        .or_else(|| {
            (IMPORT_ONLY.contains(&module_path) && !name.starts_with("__")).then(|| {
                Value::Object(Object::Unsupported(std::rc::Rc::from(format!(
                    "{module_path}.{name}"
                ))))
            })
        })
}

/// TOPI's C++ operators that its Python wrappers call with their own
/// arguments in the same order (`nn/pooling.py`: `pool2d(...)` returns
/// `cpp.nn.pool2d(...)`), as `(Python module, name)`. The pooling
/// operators take the pool type as the name or as the code TOPI's
/// wrappers pass (`POOL_TYPE_CODE`: 0 for `avg`, 1 for `max`). An operator
/// whose C++ arguments come in another order (`cpp.take`) stays out: it
/// resolves to a value whose use says it is not supported, never to the
/// Python operator with its arguments swapped.
const CPP_SAME_ARGUMENTS: &[(&str, &str)] = &[
    ("tvm.topi.nn", "pool1d"),
    ("tvm.topi.nn", "pool2d"),
    ("tvm.topi.nn", "pool3d"),
    ("tvm.topi.nn", "global_pool"),
    ("tvm.topi.nn", "adaptive_pool"),
    ("tvm.topi.nn", "adaptive_pool1d"),
    ("tvm.topi.nn", "adaptive_pool3d"),
    ("tvm.topi.nn", "lrn"),
    ("tvm.topi.nn", "layer_norm"),
    ("tvm.topi.nn", "instance_norm"),
    ("tvm.topi.nn", "group_norm"),
    ("tvm.topi.nn", "rms_norm"),
    ("tvm.topi.nn", "nll_loss"),
    ("tvm.topi.nn", "space_to_batch_nd"),
    ("tvm.topi.nn", "batch_to_space_nd"),
    ("tvm.topi", "sum"),
    ("tvm.topi", "max"),
    ("tvm.topi", "min"),
    ("tvm.topi", "prod"),
    ("tvm.topi", "all"),
    ("tvm.topi", "any"),
    ("tvm.topi", "argmax"),
    ("tvm.topi", "argmin"),
    // `topi/transform.py`, whose operators call these with their own
    // arguments in order.
    ("tvm.topi", "expand_dims"),
    ("tvm.topi", "transpose"),
    ("tvm.topi", "flip"),
    ("tvm.topi", "reverse_sequence"),
    ("tvm.topi", "strided_slice"),
    ("tvm.topi", "reshape"),
    ("tvm.topi", "squeeze"),
    ("tvm.topi", "concatenate"),
    ("tvm.topi", "stack"),
    ("tvm.topi", "split"),
    ("tvm.topi", "gather"),
    ("tvm.topi", "gather_nd"),
    ("tvm.topi", "matmul"),
    ("tvm.topi", "arange"),
    ("tvm.topi", "meshgrid"),
    ("tvm.topi", "repeat"),
    ("tvm.topi", "tile"),
    ("tvm.topi", "layout_transform"),
    ("tvm.topi", "shape"),
    ("tvm.topi", "sequence_mask"),
    ("tvm.topi", "ndarray_size"),
    ("tvm.topi", "where"),
    ("tvm.topi", "one_hot"),
    ("tvm.topi", "unravel_index"),
    ("tvm.topi", "sparse_to_dense"),
    ("tvm.topi", "adv_index"),
    ("tvm.topi", "sliding_window"),
];

/// `tvm.topi.cpp...name`: the operator of [`CPP_SAME_ARGUMENTS`] under
/// TOPI's Python module of the same path.
fn cpp_operator(module_path: &str, name: &str) -> Option<Value> {
    let rest = module_path.strip_prefix("tvm.topi.cpp")?;
    if (rest, name) == ("", "einsum") {
        return Some(Value::Function(Function::TopiEinsum { packed: true }));
    }
    if let Some(op) = crate::topi_image::ImageOp::lookup(module_path, name) {
        return Some(Value::Function(Function::TopiImage(op)));
    }
    let python = format!("tvm.topi{rest}");
    CPP_SAME_ARGUMENTS
        .iter()
        .any(|&(m, n)| m == python && n == name)
        .then(|| {
            known_module_attr(&python, name)
                .or_else(|| topi_operator(&python, name).map(Value::Function))
        })
        .flatten()
}

/// TOPI's operators built by the operator modules (`topi_transform`,
/// `topi_reduction`, ...), each under the modules TOPI exposes it from.
fn topi_operator(module_path: &str, name: &str) -> Option<Function> {
    use crate::{
        topi_broadcast, topi_image, topi_norm, topi_pool, topi_reduction, topi_schedules,
        topi_space_batch, topi_transform,
    };
    None.or_else(|| {
        topi_transform::TransformOp::lookup(module_path, name).map(Function::TopiTransform)
    })
    .or_else(|| topi_reduction::ReductionOp::lookup(module_path, name).map(Function::TopiReduction))
    .or_else(|| {
        topi_broadcast::BroadcastOp::lookup(module_path, name).map(Function::TopiBroadcastOp)
    })
    .or_else(|| topi_pool::PoolOp::lookup(module_path, name).map(Function::TopiPool))
    .or_else(|| topi_norm::NormOp::lookup(module_path, name).map(Function::TopiNorm))
    .or_else(|| {
        topi_space_batch::SpaceBatchOp::lookup(module_path, name).map(Function::TopiSpaceBatch)
    })
    .or_else(|| {
        (matches!(module_path, "tvm.topi" | "tvm.topi.einsum") && name == "einsum")
            .then_some(Function::TopiEinsum { packed: false })
    })
    .or_else(|| topi_image::ImageOp::lookup(module_path, name).map(Function::TopiImage))
    .or_else(|| topi_schedules::ScheduleOp::lookup(module_path, name).map(Function::TopiSchedule))
}

/// `module.name` for the names rangefinder provides.
fn known_module_attr(module_path: &str, name: &str) -> Option<Value> {
    // `tvm.topi.nn.pad` is a module, imported by path, and as an
    // attribute of `tvm.topi.nn` the function (`nn/__init__.py` imports
    // its names over its submodules').
    // `nn/pooling.py` imports `cpp` from `tvm.topi`: `from tvm.topi.nn
    // import cpp` is TOPI's C++ module.
    if module_path == "tvm.topi.nn" && name == "cpp" {
        return module("tvm.topi.cpp");
    }
    // `topi/__init__.py` star-imports `topi/math.py`, whose own imports
    // (`import tvm`, `from tvm import te, tir`) come with it:
    // `searchsorted.py` writes `from . import te`.
    if module_path == "tvm.topi" && matches!(name, "te" | "tir" | "tvm") {
        return module(if name == "tvm" {
            "tvm"
        } else if name == "te" {
            "tvm.te"
        } else {
            "tvm.tir"
        });
    }
    if module_path == "tvm.topi.nn" {
        if let Some(f) = crate::topi_nn::function(name).or_else(|| topi_operator(module_path, name))
        {
            return Some(Value::Function(f));
        }
    }
    if let Some(f) = crate::topi_x86_conv2d::function(module_path, name) {
        return Some(Value::Function(f));
    }
    if let Some(v) = crate::topi_cuda_conv2d::attribute(module_path, name) {
        return Some(v);
    }
    let full = format!("{module_path}.{name}");
    if let Some(m) = module(&full) {
        return Some(m);
    }
    // The TE functions live in `tvm.te`, and in `tvm` itself in old releases.
    let te_level = matches!(module_path, "tvm" | "tvm.te");
    let tir_level = matches!(module_path, "tvm" | "tvm.tir" | "tvm.te");
    let schedule_level = matches!(module_path, "tvm.te.schedule" | "tvm.schedule");
    if name == "AXIS_SEPARATOR" && te_level {
        return Some(Value::Object(Object::AxisSeparator));
    }
    if module_path == "tvm.topi.tag" {
        if let Some((_, tag)) = crate::topi::TAGS.iter().find(|(n, _)| *n == name) {
            return Some(Value::str(tag));
        }
    }
    if let Some(class) = class(module_path, name) {
        return Some(Value::Object(Object::Class(class)));
    }
    if module_path == "tvm.script.tir" {
        return Some(match name {
            "prim_func" => Value::Function(Function::PrimFuncScript),
            _ if name.starts_with("__") => return None,
            // Names only a TVMScript function's parser reads: in Python
            // they evaluate (as annotations do) to inert names.
            _ => Value::Object(Object::TensorIr(crate::tensor_ir::TirObject::ScriptName(
                std::rc::Rc::from(name),
            ))),
        });
    }
    let function = match name {
        "placeholder" if te_level => Function::Placeholder,
        "create_prim_func" if module_path == "tvm.te" => Function::CreatePrimFunc,
        "from_source" if module_path == "tvm.script" => Function::ScriptFromSource,
        "Schedule" if module_path == "tvm.tir" || module_path == "tvm.tir.schedule" => {
            Function::TirSchedule
        }
        "structural_equal" if module_path == "tvm.ir" => Function::StructuralEqual,
        "assert_structural_equal" if module_path == "tvm.ir" => Function::AssertStructuralEqual,
        "save_json" if module_path == "tvm.ir" => Function::SaveJson,
        "load_json" if module_path == "tvm.ir" => Function::LoadJson,
        "compute" if te_level => Function::Compute,
        "var" if te_level || module_path == "tvm.tir" => Function::Var,
        "size_var" if te_level || module_path == "tvm.tir" => Function::SizeVar,
        "reduce_axis" if te_level => Function::ReduceAxis,
        "thread_axis" if te_level => Function::ThreadAxis,
        "sum" if tir_level => Function::Sum,
        "add" if tir_level => Function::TirBinary(crate::BinaryOp::Add),
        // `tvm.tir.generic`: the operators a program passes as functions
        // (TOPI's `cumsum` takes `generic.add`).
        "add" if module_path == "tvm.tir.generic" => Function::TirBinary(crate::BinaryOp::Add),
        "subtract" if module_path == "tvm.tir.generic" => Function::TirBinary(crate::BinaryOp::Sub),
        "multiply" if module_path == "tvm.tir.generic" => Function::TirBinary(crate::BinaryOp::Mul),
        "divide" if module_path == "tvm.tir.generic" => Function::TirBinary(crate::BinaryOp::Div),
        "floordiv" if module_path == "tvm.tir.generic" => Function::FloorDiv,
        "cast" if module_path == "tvm.tir.generic" => Function::Cast,
        // TVM's expression node classes, called to build a node (TOPI
        // passes `tir.Sub` and `tir.NE` as the operator of a scan).
        "Add" if module_path == "tvm.tir" => Function::TirBinary(crate::BinaryOp::Add),
        "Sub" if module_path == "tvm.tir" => Function::TirBinary(crate::BinaryOp::Sub),
        "Mul" if module_path == "tvm.tir" => Function::TirBinary(crate::BinaryOp::Mul),
        "Div" if module_path == "tvm.tir" => Function::Div,
        "Mod" if module_path == "tvm.tir" => Function::TruncMod,
        "FloorDiv" if module_path == "tvm.tir" => Function::FloorDiv,
        "FloorMod" if module_path == "tvm.tir" => Function::FloorMod,
        "And" if module_path == "tvm.tir" => Function::All,
        "Or" if module_path == "tvm.tir" => Function::Any,
        "Not" if module_path == "tvm.tir" => Function::TirNot,
        "EQ" if module_path == "tvm.tir" => Function::TirCompare(arith::CmpOp::Eq),
        "NE" if module_path == "tvm.tir" => Function::TirCompare(arith::CmpOp::Ne),
        "LT" if module_path == "tvm.tir" => Function::TirCompare(arith::CmpOp::Lt),
        "LE" if module_path == "tvm.tir" => Function::TirCompare(arith::CmpOp::Le),
        "GT" if module_path == "tvm.tir" => Function::TirCompare(arith::CmpOp::Gt),
        "GE" if module_path == "tvm.tir" => Function::TirCompare(arith::CmpOp::Ge),
        "subtract" if tir_level => Function::TirBinary(crate::BinaryOp::Sub),
        "multiply" if tir_level => Function::TirBinary(crate::BinaryOp::Mul),
        "max" if tir_level => Function::MaxReducer,
        "min" if tir_level => Function::MinReducer,
        "create_schedule" if te_level => Function::CreateSchedule,
        "const" if tir_level => Function::Const,
        "lower" if module_path == "tvm" => Function::Lower,
        "InferBound" if matches!(module_path, "tvm.te.schedule" | "tvm.schedule") => {
            Function::InferBound
        }
        "convert" if matches!(module_path, "tvm" | "tvm.runtime") => Function::Convert,
        "register_func" if matches!(module_path, "tvm" | "tvm._ffi" | "tvm.runtime") => {
            Function::RegisterFunc
        }
        "get_global_func" if matches!(module_path, "tvm" | "tvm._ffi" | "tvm.runtime") => {
            Function::GetGlobalFunc
        }
        "matmul" if module_path == "tvm.contrib.cblas" => Function::LibraryMatmul("cblas"),
        "matmul" if module_path == "tvm.contrib.mkl" => Function::LibraryMatmul("mkl"),
        "load_module" if matches!(module_path, "tvm.runtime" | "tvm.runtime.module") => {
            Function::ModuleFile(crate::function::ModuleFileOp::Load)
        }
        "create_shared" if module_path == "tvm.contrib.cc" => {
            Function::ModuleFile(crate::function::ModuleFileOp::CreateShared)
        }
        "tempdir" if module_path == "tvm.contrib.utils" => {
            Function::ModuleFile(crate::function::ModuleFileOp::TempDir)
        }
        "floordiv" | "indexdiv" if tir_level => Function::FloorDiv,
        "floormod" | "indexmod" if tir_level => Function::FloorMod,
        "truncdiv" if tir_level => Function::TruncDiv,
        "truncmod" if tir_level => Function::TruncMod,
        "if_then_else" if tir_level => Function::IfThenElse,
        "all" if tir_level => Function::All,
        "any" if tir_level => Function::Any,
        "assert_prim_expr_equal" if module_path == "tvm.testing" => Function::AssertPrimExprEqual,
        "device_enabled" if module_path == "tvm.testing" => Function::DeviceEnabled,
        "parametrize_targets" if module_path == "tvm.testing" => Function::ParametrizeTargets,
        _ if module_path == "tvm.testing"
            && (name.starts_with("requires_")
                || name == "uses_gpu"
                || name == "skip_if_wheel_test") =>
        {
            Function::Requirement
        }
        "substitute" if module_path == "tvm.tir.stmt_functor" => Function::Substitute,
        "tag_scope" if te_level => Function::TagScope,
        "Select" if module_path == "tvm.tir" => Function::Select,
        "Cast" | "cast" if module_path == "tvm.tir" => Function::Cast,
        "min_value" if tir_level => Function::MinValue,
        "max_value" if tir_level => Function::MaxValue,
        "div" if matches!(module_path, "tvm.tir" | "tvm.te") => Function::Div,
        "get_const_tuple" if module_path == "tvm.topi.utils" => Function::GetConstTuple,
        "get_const_int" if module_path == "tvm.topi.utils" => Function::GetConstInt,
        "traverse_inline" if module_path == "tvm.topi.utils" => Function::TraverseInline,
        "schedule_injective"
            if matches!(module_path, "tvm.topi.x86" | "tvm.topi.x86.injective") =>
        {
            Function::TopiScheduleInjectiveX86
        }
        "schedule_injective_from_existing"
            if matches!(module_path, "tvm.topi.x86" | "tvm.topi.x86.injective") =>
        {
            Function::TopiInjectiveFromExisting { x86: true }
        }
        "schedule_injective_from_existing"
            if matches!(
                module_path,
                "tvm.topi.generic" | "tvm.topi.generic.injective"
            ) =>
        {
            Function::TopiInjectiveFromExisting { x86: false }
        }
        "schedule_injective" | "schedule_elemwise" | "schedule_broadcast"
            if matches!(
                module_path,
                "tvm.topi.generic" | "tvm.topi.generic.injective"
            ) =>
        {
            Function::TopiGenericScheduleInjective
        }
        "default_schedule" if module_path == "tvm.topi.generic.default" => {
            Function::TopiDefaultSchedule(None)
        }
        "schedule_reduce" if module_path == "tvm.topi.generic" => {
            Function::TopiDefaultSchedule(Some(true))
        }
        _ if module_path == "tvm.topi.generic"
            && name.starts_with("schedule_")
            && !crate::topi::GENERIC_NOT_DEFAULT.contains(&name) =>
        {
            Function::TopiDefaultSchedule(Some(false))
        }
        "const_matrix" if module_path == "tvm.topi.utils" => Function::ConstMatrix,
        "get_max_power2_factor" if module_path == "tvm.topi.utils" => Function::MaxPower2Factor,
        _ if matches!(
            module_path,
            "tvm.topi.nn"
                | "tvm.topi.nn.pad"
                | "tvm.topi.nn.conv2d"
                | "tvm.topi.nn.conv1d"
                | "tvm.topi.nn.conv3d"
                | "tvm.topi.nn.dense"
                | "tvm.topi.nn.depthwise_conv2d"
                | "tvm.topi.nn.batch_matmul"
                | "tvm.topi.nn.softmax"
                | "tvm.topi.nn.utils"
        ) && crate::topi_nn::function(name).is_some() =>
        {
            crate::topi_nn::function(name)?
        }
        "GLOBAL_SCOPE" if module_path == "tvm.autotvm" => {
            return Some(Value::Object(Object::Module("tvm.autotvm.GLOBAL_SCOPE")))
        }
        "in_tuning" if module_path == "tvm.autotvm.GLOBAL_SCOPE" => {
            return Some(Value::Bool(false))
        }
        "register_topi_compute" if matches!(module_path, "tvm.autotvm" | "tvm.autotvm.task") => {
            Function::RegisterTopi(false)
        }
        "register_topi_schedule" if matches!(module_path, "tvm.autotvm" | "tvm.autotvm.task") => {
            Function::RegisterTopi(true)
        }
        "SplitEntity" | "OtherOptionEntity" | "ReorderEntity" | "AnnotateEntity"
            if matches!(module_path, "tvm.autotvm.task.space" | "tvm.autotvm.task") =>
        {
            Function::AutotvmEntity(match name {
                "SplitEntity" => "SplitEntity",
                "OtherOptionEntity" => "OtherOptionEntity",
                "ReorderEntity" => "ReorderEntity",
                _ => "AnnotateEntity",
            })
        }
        "load_reference_log" if module_path == "tvm.autotvm.tophub" => Function::LoadReferenceLog,
        "target_has_features" if module_path == "tvm.target.codegen" => Function::TargetHasFeatures,
        "get_simd_32bit_lanes" if module_path == "tvm.target.x86" => Function::SimdLanes,
        "memoize" if module_path == "tvm.contrib.pickle_memoize" => Function::Memoize,
        "nchw_pack_layout" if module_path == "tvm.topi.utils" => Function::LayoutTest(true),
        "nchw_xc_layout" if module_path == "tvm.topi.utils" => Function::LayoutTest(false),
        "get_injective_schedule" | "get_elemwise_schedule" | "get_broadcast_schedule"
            if module_path == "tvm.topi.testing" =>
        {
            Function::TopiTestingInjectiveSchedule
        }
        "equal_const_int" if module_path == "tvm.topi.utils" => Function::EqualConstInt,
        "is_empty_shape" if module_path == "tvm.topi.utils" => Function::IsEmptyShape,
        "simplify" if module_path == "tvm.topi.utils" => Function::TopiSimplify,
        "schedule_to_module" | "lower" if module_path == "tvm.driver.build_module" => {
            Function::Lower
        }
        "lower" if module_path == "tvm.driver" => Function::Lower,
        "build" if matches!(module_path, "tvm.driver" | "tvm.driver.build_module") => {
            Function::Build
        }
        "is_injective" if module_path == "tvm.topi.tag" => Function::IsInjective,
        "is_broadcast" if module_path == "tvm.topi.tag" => Function::IsBroadcast,
        "build" if module_path == "tvm" => Function::Build,
        "array" if module_path == "tvm.nd" => Function::NdArray,
        "empty" if module_path == "tvm.nd" => Function::NdEmpty,
        "cpu" if module_path == "tvm" => Function::Device("cpu"),
        "device" if module_path == "tvm" => Function::DeviceOf,
        "generic_func" if module_path == "tvm.target" => Function::GenericFunc,
        "vscale" if module_path == "tvm.tir" => Function::VScale,
        "prod" if module_path == "tvm.topi.utils" => Function::Prod,
        "pool2d" if matches!(module_path, "tvm.topi.nn" | "tvm.topi.nn.pooling") => {
            Function::Pool2d
        }
        "sum" if matches!(module_path, "tvm.topi" | "tvm.topi.reduction") => Function::TopiSum,
        "cast" if matches!(module_path, "tvm.topi" | "tvm.topi.math") => Function::TopiCast,
        "elemwise_sum" if module_path == "tvm.topi" => Function::TopiElemwiseSum,
        "relu" if matches!(module_path, "tvm.topi.nn" | "tvm.topi.nn.elemwise") => {
            Function::TopiMath(crate::topi_ops::ElementwiseMath::Relu)
        }
        "reshape" if matches!(module_path, "tvm.topi" | "tvm.topi.transform") => {
            Function::TopiReshape
        }
        _ if matches!(module_path, "tvm.topi" | "tvm.topi.math")
            && crate::topi_ops::ElementwiseMath::from_topi_name(name).is_some() =>
        {
            Function::TopiMath(crate::topi_ops::ElementwiseMath::from_topi_name(name)?)
        }
        "add" if module_path == "tvm.topi" => Function::TopiBroadcast(crate::BinaryOp::Add),
        "subtract" if module_path == "tvm.topi" => Function::TopiBroadcast(crate::BinaryOp::Sub),
        "multiply" if module_path == "tvm.topi" => Function::TopiBroadcast(crate::BinaryOp::Mul),
        "divide" if module_path == "tvm.topi" => Function::TopiBroadcast(crate::BinaryOp::Div),
        "floor_divide" if module_path == "tvm.topi" => {
            Function::TopiBroadcast(crate::BinaryOp::FloorDiv)
        }
        // `topi/utils.py` imports `tag`, and programs take it from there.
        "tag" if module_path == "tvm.topi.utils" => {
            return Some(Value::Object(Object::Module("tvm.topi.tag")))
        }
        "cuda" if module_path == "tvm" => Function::Device("cuda"),
        "gpu" if module_path == "tvm" => Function::Device("cuda"),
        "assert_allclose" if module_path == "tvm.testing" => Function::AssertAllclose,
        "post_order_visit" if module_path == "tvm.tir.stmt_functor" => Function::PostOrderVisit,
        "cuda" if module_path == "tvm.target" => Function::TargetOf("cuda"),
        "rocm" if module_path == "tvm.target" => Function::TargetOf("rocm"),
        "arm_cpu" if module_path == "tvm.target" => Function::TargetOf("arm_cpu"),
        "create" if module_path == "tvm.target" => Function::TargetOf("create"),
        "AutoInlineInjective" if schedule_level => Function::AutoInlineInjective,
        "AutoInlineElemWise" if schedule_level => Function::AutoInlineElemWise,
        "AutoInlineBroadcast" if schedule_level => Function::AutoInlineBroadcast,
        "CreateReadGraph" if schedule_level => Function::CreateReadGraph,
        "PostDFSOrder" if schedule_level => Function::PostDfsOrder,
        "ScanGetBody" if schedule_level => Function::ScanGetBody,
        "ScanFixPointAnalysis" if schedule_level => Function::ScanFixPointAnalysis,
        "ScheduleOps" if schedule_level => Function::ScheduleOps,
        "scan" if te_level => Function::Scan,
        "extern" if te_level => Function::Extern,
        "comm_reducer" if tir_level => Function::CommReducer,
        "decl_tensor_intrin" if te_level => Function::DeclTensorIntrin,
        "decl_buffer" if matches!(module_path, "tvm" | "tvm.tir") => Function::DeclBuffer,
        "call_packed" if matches!(module_path, "tvm" | "tvm.tir") => Function::CallPacked,
        "call_extern" if matches!(module_path, "tvm" | "tvm.tir") => Function::CallExtern,
        "call_intrin" if matches!(module_path, "tvm" | "tvm.tir") => Function::CallIntrin,
        "create" if module_path == "tvm.tir.ir_builder" => Function::IrBuilder,
        "script" if module_path == "tvm.te.hybrid" => Function::HybridScript,
        "build" if module_path == "tvm.te.hybrid" => Function::HybridBuild,
        "HybridModule" if module_path == "tvm.te.hybrid" => Function::HybridModule,
        "IterVar" if matches!(module_path, "tvm.te" | "tvm.te.schedule" | "tvm.schedule") => {
            return Some(Value::Object(Object::Class(Class::IterVar)))
        }
        "TVMError" if matches!(module_path, "tvm.error" | "tvm" | "tvm._ffi.base") => {
            return Some(Value::Object(Object::Class(Class::Error(
                ErrorClass::TVMError,
            ))))
        }
        _ if tir_level => Function::Intrinsic(tir::Intrinsic::from_tvm_name(name)?),
        _ => return None,
    };
    Some(Value::Function(function))
}

/// The class `module_path.name`, in every module TVM's Python exposes it
/// from (`tvm.tir.IntImm` and `tvm.tir.expr.IntImm`, `te.Tensor` and
/// `te.tensor.Tensor`).
fn class(module_path: &str, name: &str) -> Option<Class> {
    let tir = matches!(module_path, "tvm.tir" | "tvm.tir.expr");
    let te = matches!(module_path, "tvm.te" | "tvm.te.tensor" | "tvm.te.operation");
    let schedule = matches!(module_path, "tvm.te" | "tvm.te.schedule" | "tvm.schedule");
    Some(match name {
        "Map" if module_path == "tvm.container" => Class::Map,
        "Var" if tir => Class::Var,
        "SizeVar" if tir => Class::SizeVar,
        "IterVar" if tir => Class::IterVar,
        "ForKind" if module_path == "tvm.tir" => Class::ForKind,
        "ExternOp" if te => Class::ExternOp(false),
        "HybridOp" if te => Class::ExternOp(true),
        "TensorComputeOp" if te => Class::TensorComputeOp,
        "TensorSlice" if te => Class::TensorSlice,
        "TensorIntrinCall" if te => Class::TensorIntrinCall,
        "TensorIntrin" if te || module_path == "tvm.te.tensor_intrin" => Class::TensorIntrin,
        "IntImm" if tir => Class::IntImm,
        "FloatImm" if tir => Class::FloatImm,
        "StringImm" if tir => Class::StringImm,
        "Any" if tir => Class::AnyDim,
        "PrimExpr" if tir || module_path == "tvm.ir" => Class::PrimExpr,
        "Range" if module_path == "tvm.ir" || module_path == "tvm" => Class::Range,
        "Tensor" if te || module_path == "tvm" => Class::Tensor,
        "Operation" if te => Class::Operation,
        "ComputeOp" if te => Class::ComputeOp,
        "PlaceholderOp" if te => Class::PlaceholderOp,
        "ScanOp" if te => Class::ScanOp,
        "Stage" if schedule => Class::Stage,
        "Schedule" if schedule => Class::Schedule,
        "Split" if module_path == "tvm.te.schedule" => Class::Split,
        "Fuse" if module_path == "tvm.te.schedule" => Class::Fuse,
        "Singleton" if module_path == "tvm.te.schedule" => Class::Singleton,
        "DataType" if matches!(module_path, "tvm" | "tvm.runtime") => Class::DataType,
        "Object" | "ObjectRef" if matches!(module_path, "tvm.runtime" | "tvm" | "tvm.ir") => {
            Class::Object
        }
        "Target" if module_path == "tvm.target" => Class::Target,
        "PassContext" if matches!(module_path, "tvm.transform" | "tvm.ir.transform") => {
            Class::PassContext
        }
        // A buffer of an intrinsic's or an extern's function, or of a
        // lowered program; `te.schedule` re-exports TVM's `Buffer`.
        "Buffer" if schedule || module_path == "tvm.tir" => Class::Stmt("Buffer"),
        "Analyzer" if matches!(module_path, "tvm.arith" | "tvm.arith.analyzer") => Class::Analyzer,
        "StmtSRef" if module_path == "tvm.tir.schedule" => Class::Stmt("StmtSRef"),
        "BlockRV" if module_path == "tvm.tir.schedule" => Class::Stmt("BlockRV"),
        "ProducerLoad" if module_path == "tvm.tir.expr" => Class::Stmt("ProducerLoad"),
        _ if module_path == "tvm.tir" || module_path == "tvm.tir.stmt" => {
            return crate::lowered::class(name)
        }
        _ => return None,
    })
}

/// What dotted `path` names; `te.` and `tir.` stand for `tvm.te.` and
/// `tvm.tir.`, as programs import them.
pub(crate) fn resolve(path: &str) -> Option<Value> {
    let full;
    let path =
        if path == "te" || path == "tir" || path.starts_with("te.") || path.starts_with("tir.") {
            full = format!("tvm.{path}");
            full.as_str()
        } else {
            path
        };
    if let Some(("tvm.topi.nn", name)) = path.rsplit_once('.') {
        if let Some(f) =
            crate::topi_nn::function(name).or_else(|| topi_operator("tvm.topi.nn", name))
        {
            // The function, not the module of the same name.
            return Some(Value::Function(f));
        }
    }
    resolve_modules_first(path)
}

/// `path` with its prefixes resolved as modules where they name one
/// (`tvm.topi.nn.conv2d` in `tvm.topi.nn.conv2d.conv`).
fn resolve_modules_first(path: &str) -> Option<Value> {
    if let Some(m) = module(path) {
        return Some(m);
    }
    let (parent, name) = path.rsplit_once('.')?;
    match resolve_modules_first(parent)? {
        Value::Object(Object::Module(m)) => module_attr(m, name),
        // `tvm.target.Target.current`.
        class @ Value::Object(Object::Class(_)) => crate::get_attr(&class, name).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(path: &str, name: &str) -> Option<Function> {
        match module_attr(path, name) {
            Some(Value::Function(n)) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn old_and_new_spellings_resolve_to_the_same_function() {
        assert_eq!(native("tvm", "compute"), Some(Function::Compute));
        assert_eq!(native("tvm.te", "compute"), Some(Function::Compute));
        assert_eq!(
            native("tvm.schedule", "InferBound"),
            Some(Function::InferBound)
        );
        assert_eq!(
            native("tvm.te.schedule", "InferBound"),
            Some(Function::InferBound)
        );
        assert_eq!(native("tvm.tir", "indexdiv"), Some(Function::FloorDiv));
        assert_eq!(native("tvm.tir", "compute"), None);
        assert_eq!(
            native("tvm.te", "exp"),
            Some(Function::Intrinsic(tir::Intrinsic::Exp))
        );
        assert_eq!(native("tvm.tir", "exp"), native("tvm.te", "exp"));
        assert_eq!(native("tvm.tir", "no_such_function"), None);
        assert!(matches!(
            resolve("te.compute"),
            Some(Value::Function(Function::Compute))
        ));
        assert!(matches!(
            resolve("tvm.compute"),
            Some(Value::Function(Function::Compute))
        ));
        assert!(matches!(
            resolve("tvm.te.schedule.InferBound"),
            Some(Value::Function(Function::InferBound))
        ));
        assert!(matches!(
            resolve("tvm.error.TVMError"),
            Some(Value::Object(Object::Class(Class::Error(
                ErrorClass::TVMError
            ))))
        ));
        assert!(resolve("tvm.nothing").is_none());
        assert!(matches!(
            module_attr("tvm", "te"),
            Some(Value::Object(Object::Module("tvm.te")))
        ));
    }
}
