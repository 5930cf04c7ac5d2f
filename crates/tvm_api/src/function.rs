//! The API's functions (`te.compute`, `tvm.lower`, ...) and classes
//! (`te.Tensor`, `tvm.error.TVMError`, ...), one value per function
//! whatever spelling a program used.

use crate::error::ErrorClass;

/// The functions that save and load built modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModuleFileOp {
    /// `tvm.runtime.load_module(path)`.
    Load,
    /// `tvm.contrib.cc.create_shared(output, objects)`.
    CreateShared,
    /// `tvm.contrib.utils.tempdir()`.
    TempDir,
}

/// A function of TVM's Python API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    // Tensors and expressions.
    /// `te.placeholder`.
    Placeholder,
    /// `te.compute`.
    Compute,
    /// `te.var` / `tvm.tir.Var`-like constructor.
    Var,
    /// `te.size_var`.
    SizeVar,
    /// `te.reduce_axis`.
    ReduceAxis,
    /// `te.thread_axis`.
    ThreadAxis,
    /// `te.sum`.
    Sum,
    /// `te.max`: a reduction with `axis=`, else the larger of two values.
    MaxReducer,
    /// `te.min`: a reduction with `axis=`, else the smaller of two values.
    MinReducer,
    /// `tvm.tir.const`.
    Const,
    /// `tvm.runtime.convert`.
    Convert,
    /// `tvm.tir.floordiv` (and `indexdiv`).
    FloorDiv,
    /// `tvm.tir.floormod` (and `indexmod`).
    FloorMod,
    /// `tvm.tir.truncdiv`.
    TruncDiv,
    /// `tvm.tir.truncmod`.
    TruncMod,
    /// `tvm.tir.if_then_else`.
    IfThenElse,
    /// `tvm.tir.all`.
    All,
    /// `tvm.tir.any`.
    Any,
    /// A math function of `tvm.tir` / `te` (`te.exp`, `tvm.tir.sigmoid`).
    Intrinsic(tir::Intrinsic),
    // Schedules.
    /// `te.create_schedule`.
    CreateSchedule,
    /// `tvm.te.schedule.InferBound`.
    InferBound,
    /// `tvm.lower`.
    Lower,
    // Testing helpers of TVM's own tests.
    /// `tvm.testing.assert_prim_expr_equal`.
    AssertPrimExprEqual,
    /// `tvm.tir.stmt_functor.substitute`.
    Substitute,
    // Tags, casts and constants.
    /// `te.tag_scope(tag)`: a context manager and decorator.
    TagScope,
    /// `tvm.tir.Select(cond, t, f)`: both sides evaluated.
    Select,
    /// `tvm.tir.Cast(dtype, value)` (and `te.cast`-style `tvm.tir.cast`).
    Cast,
    /// `te.min_value(dtype)`.
    MinValue,
    /// `te.max_value(dtype)`.
    MaxValue,
    /// `tvm.tir.div`: truncating on integers, true division on floats.
    Div,
    /// `tvm.tir.add`, `subtract`, `multiply` (also in `tvm.te`): `a op b`.
    TirBinary(crate::BinaryOp),
    /// `tvm.tir.EQ(a, b)`, `NE`, `LT`, `LE`, `GT`, `GE`: the comparison
    /// node, as `a == b` ... builds it (TOPI passes `tir.NE` as a
    /// function).
    TirCompare(arith::CmpOp),
    /// `tvm.tir.Not(a)`: logical not.
    TirNot,
    // TOPI's helpers that programs import.
    /// `tvm.topi.utils.get_const_tuple`.
    GetConstTuple,
    /// `tvm.topi.utils.get_const_int`.
    GetConstInt,
    /// `tvm.topi.utils.traverse_inline`.
    TraverseInline,
    /// `topi.x86.schedule_injective(outs)`.
    TopiScheduleInjectiveX86,
    /// `schedule_injective_from_existing(sch, out)` of `topi.x86` (fused,
    /// parallel, vectorized) or of `topi.generic` (fused).
    TopiInjectiveFromExisting {
        /// Whether this is the x86 one.
        x86: bool,
    },
    /// `topi.generic.schedule_injective(outs)` (also `schedule_elemwise`,
    /// `schedule_broadcast`): for an `llvm` target, injective stages
    /// inlined and the first output's axes fused.
    TopiGenericScheduleInjective,
    /// `topi.generic.default.default_schedule(outs, auto_inline)`, and the
    /// `topi.generic.schedule_*` functions that are it with `auto_inline`
    /// fixed (`schedule_conv2d_nchw`: `False`; `schedule_reduce`: `True`).
    TopiDefaultSchedule(Option<bool>),
    /// `autotvm.register_topi_compute(task)` (`false`) or
    /// `register_topi_schedule(task)` (`true`).
    RegisterTopi(bool),
    /// `autotvm.task.space.SplitEntity`, `OtherOptionEntity`,
    /// `ReorderEntity`, `AnnotateEntity`: by class name.
    AutotvmEntity(&'static str),
    /// `autotvm.tophub.load_reference_log(backend, model, workload)`.
    LoadReferenceLog,
    /// `tvm.target.codegen.target_has_features(features, target=None)`.
    TargetHasFeatures,
    /// `tvm.target.x86.get_simd_32bit_lanes()`.
    SimdLanes,
    /// One of TOPI's shape and layout operators.
    TopiTransform(crate::topi_transform::TransformOp),
    /// One of TOPI's reductions beyond `sum`.
    TopiReduction(crate::topi_reduction::ReductionOp),
    /// One of TOPI's broadcasting operators beyond the arithmetic ones.
    TopiBroadcastOp(crate::topi_broadcast::BroadcastOp),
    /// One of TOPI's pooling operators beyond `pool2d`.
    TopiPool(crate::topi_pool::PoolOp),
    /// One of TOPI's normalisations and small nn operators.
    TopiNorm(crate::topi_norm::NormOp),
    /// One of TOPI's moves between space and batch.
    TopiSpaceBatch(crate::topi_space_batch::SpaceBatchOp),
    /// `tvm.topi.einsum(subscripts, *operands)`, or with `packed` the C++
    /// `tvm.topi.cpp.einsum(subscripts, operands)`.
    TopiEinsum {
        /// Whether the operands come as one sequence.
        packed: bool,
    },
    /// One of TOPI's resizing operators.
    TopiImage(crate::topi_image::ImageOp),
    /// One of TOPI's x86 and CUDA schedules.
    TopiSchedule(crate::topi_schedules::ScheduleOp),
    /// `tvm.topi.nn.pad`.
    NnPad,
    /// TOPI's generic convolution, in one of its spellings.
    NnConv(crate::topi_nn::ConvForm),
    /// `tvm.topi.nn.conv2d_NCHWc`.
    NnConv2dNchwc,
    /// `tvm.topi.nn.dilate`.
    NnDilate,
    /// `tvm.topi.nn.correlation_nchw`.
    NnCorrelation,
    /// `tvm.topi.nn.deformable_conv2d_nchw`.
    NnDeformableConv2dNchw,
    /// `tvm.topi.nn.conv2d_transpose_nchw_preprocess` (2) or
    /// `conv3d_transpose_ncdhw_preprocess` (3).
    NnTransposePreprocess(usize),
    /// `_fallback_schedule` of `tvm.topi.x86.conv2d_avx_common` or
    /// `conv2d_avx_1x1`.
    X86ConvFallback(crate::topi_x86_conv2d::AvxConv),
    /// `_schedule_conv_NCHWc` of `tvm.topi.x86.conv2d_avx_common` or
    /// `conv2d_avx_1x1`.
    X86ScheduleConvNchwc(crate::topi_x86_conv2d::AvxConv),
    /// Saving and loading built modules ([`crate::module_file`]).
    ModuleFile(ModuleFileOp),
    /// `tvm.register_func(name, f=None, override=False)`.
    RegisterFunc,
    /// `tvm.get_global_func(name, allow_missing=False)`.
    GetGlobalFunc,
    /// `tvm.contrib.cblas.matmul` (`"cblas"`) or `tvm.contrib.mkl.matmul`.
    LibraryMatmul(&'static str),
    /// A part of TOPI's direct CUDA convolution template
    /// (`tvm.topi.cuda.conv2d_nchw`, `schedule_conv2d_nchw`,
    /// `conv2d_direct.schedule_direct_cuda`).
    CudaConv2dDirect(crate::topi_cuda_conv2d::Part),
    /// `tvm.topi.nn.depthwise_conv2d_nchw`.
    NnDepthwiseConv2dNchw,
    /// `tvm.topi.nn.softmax` (`false`) or `log_softmax`.
    NnSoftmax(bool),
    /// `tvm.topi.nn.get_pad_tuple1d`, `get_pad_tuple`, `get_pad_tuple3d`
    /// (by spatial axes: 1, 2, 3) or `get_pad_tuple_generic` (0); also
    /// under `tvm.topi.nn.utils`.
    NnGetPadTuple(u8),
    /// `tvm.topi.nn.infer_pad`, `infer_pad3d` or `infer_stride` (also under
    /// `tvm.topi.nn.utils`): a padding or stride read back from the shapes
    /// of stages.
    NnInfer(crate::topi_nn::Inferred),
    /// `tvm.topi.nn.batch_matmul`.
    NnBatchMatmul,
    /// `tvm.topi.nn.dense` (`true`) or `tvm.topi.nn.matmul`.
    NnMatmul(bool),
    /// `tvm.topi.utils.get_max_power2_factor(n, max_value=None)`.
    MaxPower2Factor,
    /// `tvm.topi.utils.const_matrix(matrix, name, attrs)`.
    ConstMatrix,
    /// `tvm.contrib.pickle_memoize.memoize(key, save_at_exit=False)` and the
    /// decorator it returns.
    Memoize,
    /// `tvm.topi.utils.nchw_pack_layout` (`true`) or `nchw_xc_layout`
    /// (`false`).
    LayoutTest(bool),
    /// `topi.testing.get_injective_schedule(target)` (also
    /// `get_elemwise_schedule`, `get_broadcast_schedule`).
    TopiTestingInjectiveSchedule,
    /// `tvm.topi.utils.equal_const_int(expr, value)`.
    EqualConstInt,
    /// `tvm.topi.utils.is_empty_shape(shape)`.
    IsEmptyShape,
    /// `tvm.topi.utils.simplify(expr)`.
    TopiSimplify,
    /// `tvm.topi.tag.is_injective`.
    IsInjective,
    /// `tvm.topi.tag.is_broadcast`.
    IsBroadcast,
    // Targets.
    /// `tvm.target.Target.current(allow_none=True)`.
    TargetCurrent,
    /// `tvm.transform.PassContext.current()`.
    PassContextCurrent,
    /// `tvm.target.cuda()`, `tvm.target.arm_cpu()`...: a target of one kind.
    TargetOf(&'static str),
    // Running programs.
    /// `tvm.build`.
    Build,
    /// `tvm.nd.array`.
    NdArray,
    /// `tvm.nd.empty`.
    NdEmpty,
    /// `tvm.cpu(0)`, `tvm.cuda(0)`, ...: a device of this kind.
    Device(&'static str),
    /// `tvm.testing.assert_allclose`.
    AssertAllclose,
    /// `tvm.device(kind, dev_id)`: a device named by its target kind.
    DeviceOf,
    /// `tvm.target.generic_func`: the decorated function itself (a program
    /// lowers for one target, so there is nothing to dispatch).
    GenericFunc,
    /// `tvm.tir.vscale()`: the multiplier of scalable vectors, an unknown
    /// positive size.
    VScale,
    /// `tvm.topi.utils.prod(x)`: the product of a sequence's items.
    Prod,
    /// `tvm.testing.device_enabled(target)`: whether programs for this
    /// target run here (the host's, `llvm` and `c`; no GPU).
    DeviceEnabled,
    /// `tvm.topi.nn.pool2d`.
    Pool2d,
    /// `tvm.topi.sum`.
    TopiSum,
    /// `tvm.topi.add`, `subtract`, `multiply`, `divide`, `floor_divide`.
    TopiBroadcast(crate::BinaryOp),
    /// `tvm.topi.reshape`.
    TopiReshape,
    /// `tvm.topi.cast` (also in `tvm.topi.math`).
    TopiCast,
    /// `tvm.topi.elemwise_sum`.
    TopiElemwiseSum,
    /// `tvm.topi.exp`, `sqrt`, ... (also in `tvm.topi.math`).
    TopiMath(crate::topi_ops::ElementwiseMath),
    /// `autotvm.register_topi_compute(name)` and its kind: a decorator whose
    /// function needs a tuning configuration, so that the function defines
    /// but its use is refused.
    DeferringDecorator,
    /// `tvm.testing.requires_gpu`, `uses_gpu`, ...: a mark that leaves the
    /// test unchanged.
    Requirement,
    /// `tvm.testing.parametrize_targets("llvm", ...)`: the test runs once
    /// per target named, as `target`; bare, the test as it is.
    ParametrizeTargets,
    /// `tvm.tir.stmt_functor.post_order_visit`.
    PostOrderVisit,
    // Stages, dataflow and operations that are not computes.
    /// `te.schedule.AutoInlineInjective`.
    AutoInlineInjective,
    /// `te.schedule.AutoInlineElemWise`.
    AutoInlineElemWise,
    /// `te.schedule.AutoInlineBroadcast`.
    AutoInlineBroadcast,
    /// `te.schedule.CreateReadGraph`.
    CreateReadGraph,
    /// `te.schedule.PostDFSOrder`.
    PostDfsOrder,
    /// `te.schedule.ScheduleOps`.
    ScheduleOps,
    /// `te.scan`.
    Scan,
    /// `te.extern`.
    Extern,
    /// `tvm.tir.decl_buffer`.
    DeclBuffer,
    /// `tvm.tir.call_packed`.
    CallPacked,
    /// `tvm.tir.call_extern`.
    CallExtern,
    /// `tvm.tir.call_intrin(dtype, op, *args)`.
    CallIntrin,
    /// `tvm.tir.ir_builder.create`.
    IrBuilder,
    /// `te.hybrid.script`: a decorator.
    HybridScript,
    /// `te.create_prim_func(tensors)`.
    CreatePrimFunc,
    /// `@T.prim_func` (`tvm.script.tir.prim_func`): a decorator.
    PrimFuncScript,
    /// `tvm.tir.Schedule(func)`.
    TirSchedule,
    /// `tvm.script.from_source(text)`.
    ScriptFromSource,
    /// `tvm.ir.structural_equal(a, b)`.
    StructuralEqual,
    /// `tvm.ir.assert_structural_equal(a, b)`.
    AssertStructuralEqual,
    /// `tvm.ir.save_json(node)`.
    SaveJson,
    /// `tvm.ir.load_json(json_str)`.
    LoadJson,
    /// `te.schedule.ScanGetBody(scan_op)`.
    ScanGetBody,
    /// `te.schedule.ScanFixPointAnalysis(scan_op)`.
    ScanFixPointAnalysis,
    /// `te.hybrid.build(sch, inputs, outputs, name)`.
    HybridBuild,
    /// `te.hybrid.HybridModule(src, name)`.
    HybridModule,
    /// `te.comm_reducer`.
    CommReducer,
    /// `te.decl_tensor_intrin`.
    DeclTensorIntrin,
    /// `tvm.ir.Range(begin, end)`.
    Range,
    /// `tvm.ir.Range.from_min_extent(min, extent)`.
    RangeFromMinExtent,
}

impl Function {
    /// The name a program would use, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Function::Placeholder => "te.placeholder",
            Function::Compute => "te.compute",
            Function::Var => "te.var",
            Function::SizeVar => "te.size_var",
            Function::ReduceAxis => "te.reduce_axis",
            Function::ThreadAxis => "te.thread_axis",
            Function::Sum => "te.sum",
            Function::MaxReducer => "te.max",
            Function::MinReducer => "te.min",
            Function::Const => "tvm.tir.const",
            Function::Convert => "tvm.runtime.convert",
            Function::FloorDiv => "tvm.tir.floordiv",
            Function::FloorMod => "tvm.tir.floormod",
            Function::TruncDiv => "tvm.tir.truncdiv",
            Function::TruncMod => "tvm.tir.truncmod",
            Function::IfThenElse => "tvm.tir.if_then_else",
            Function::All => "tvm.tir.all",
            Function::Any => "tvm.tir.any",
            Function::Intrinsic(f) => f.name(),
            Function::CreateSchedule => "te.create_schedule",
            Function::InferBound => "tvm.te.schedule.InferBound",
            Function::Lower => "tvm.lower",
            Function::AssertPrimExprEqual => "tvm.testing.assert_prim_expr_equal",
            Function::Substitute => "tvm.tir.stmt_functor.substitute",
            Function::TagScope => "te.tag_scope",
            Function::Select => "tvm.tir.Select",
            Function::Cast => "tvm.tir.Cast",
            Function::MinValue => "te.min_value",
            Function::MaxValue => "te.max_value",
            Function::Div => "tvm.tir.div",
            Function::GetConstTuple => "tvm.topi.utils.get_const_tuple",
            Function::GetConstInt => "tvm.topi.utils.get_const_int",
            Function::TraverseInline => "tvm.topi.utils.traverse_inline",
            Function::TopiScheduleInjectiveX86 => "tvm.topi.x86.schedule_injective",
            Function::TopiTestingInjectiveSchedule => "tvm.topi.testing.get_injective_schedule",
            Function::TopiInjectiveFromExisting { x86: true } => {
                "tvm.topi.x86.schedule_injective_from_existing"
            }
            Function::TopiInjectiveFromExisting { x86: false } => {
                "tvm.topi.generic.schedule_injective_from_existing"
            }
            Function::TopiGenericScheduleInjective => "tvm.topi.generic.schedule_injective",
            Function::TopiDefaultSchedule(_) => "tvm.topi.generic.default.default_schedule",
            Function::TirBinary(crate::BinaryOp::Add) => "tvm.tir.add",
            Function::TirBinary(crate::BinaryOp::Sub) => "tvm.tir.subtract",
            Function::TirBinary(_) => "tvm.tir.multiply",
            Function::TirCompare(arith::CmpOp::Eq) => "tvm.tir.EQ",
            Function::TirCompare(arith::CmpOp::Ne) => "tvm.tir.NE",
            Function::TirCompare(arith::CmpOp::Lt) => "tvm.tir.LT",
            Function::TirCompare(arith::CmpOp::Le) => "tvm.tir.LE",
            Function::TirCompare(arith::CmpOp::Gt) => "tvm.tir.GT",
            Function::TirCompare(arith::CmpOp::Ge) => "tvm.tir.GE",
            Function::TirNot => "tvm.tir.Not",
            Function::Memoize => "tvm.contrib.pickle_memoize.memoize",
            Function::ConstMatrix => "tvm.topi.utils.const_matrix",
            Function::MaxPower2Factor => "tvm.topi.utils.get_max_power2_factor",
            Function::TopiTransform(op) => op.tvm_name(),
            Function::TopiReduction(op) => op.tvm_name(),
            Function::TopiBroadcastOp(op) => op.tvm_name(),
            Function::TopiPool(op) => op.tvm_name(),
            Function::TopiNorm(op) => op.tvm_name(),
            Function::TopiSpaceBatch(op) => op.tvm_name(),
            Function::TopiEinsum { packed: false } => "tvm.topi.einsum",
            Function::TopiEinsum { packed: true } => "tvm.topi.cpp.einsum",
            Function::TopiImage(op) => op.tvm_name(),
            Function::TopiSchedule(op) => op.tvm_name(),
            Function::NnPad => "tvm.topi.nn.pad",
            Function::NnConv(_) => "tvm.topi.nn.conv",
            Function::NnConv2dNchwc => "tvm.topi.nn.conv2d_NCHWc",
            Function::NnDilate => "tvm.topi.nn.dilate",
            Function::NnCorrelation => "tvm.topi.nn.correlation_nchw",
            Function::NnDeformableConv2dNchw => "tvm.topi.nn.deformable_conv2d_nchw",
            Function::NnTransposePreprocess(3) => "tvm.topi.nn.conv3d_transpose_ncdhw_preprocess",
            Function::NnTransposePreprocess(_) => "tvm.topi.nn.conv2d_transpose_nchw_preprocess",
            Function::X86ConvFallback(crate::topi_x86_conv2d::AvxConv::Common) => {
                "tvm.topi.x86.conv2d_avx_common._fallback_schedule"
            }
            Function::X86ConvFallback(crate::topi_x86_conv2d::AvxConv::OneByOne) => {
                "tvm.topi.x86.conv2d_avx_1x1._fallback_schedule"
            }
            Function::X86ScheduleConvNchwc(crate::topi_x86_conv2d::AvxConv::Common) => {
                "tvm.topi.x86.conv2d_avx_common._schedule_conv_NCHWc"
            }
            Function::X86ScheduleConvNchwc(crate::topi_x86_conv2d::AvxConv::OneByOne) => {
                "tvm.topi.x86.conv2d_avx_1x1._schedule_conv_NCHWc"
            }
            Function::ModuleFile(ModuleFileOp::Load) => "tvm.runtime.load_module",
            Function::RegisterFunc => "tvm.register_func",
            Function::GetGlobalFunc => "tvm.get_global_func",
            Function::LibraryMatmul("mkl") => "tvm.contrib.mkl.matmul",
            Function::LibraryMatmul(_) => "tvm.contrib.cblas.matmul",
            Function::ModuleFile(ModuleFileOp::CreateShared) => "tvm.contrib.cc.create_shared",
            Function::ModuleFile(ModuleFileOp::TempDir) => "tvm.contrib.utils.tempdir",
            Function::CudaConv2dDirect(crate::topi_cuda_conv2d::Part::Compute) => {
                "tvm.topi.cuda.conv2d_nchw"
            }
            Function::CudaConv2dDirect(crate::topi_cuda_conv2d::Part::Schedule) => {
                "tvm.topi.cuda.schedule_conv2d_nchw"
            }
            Function::CudaConv2dDirect(crate::topi_cuda_conv2d::Part::Direct) => {
                "tvm.topi.cuda.conv2d_direct.schedule_direct_cuda"
            }
            Function::NnDepthwiseConv2dNchw => "tvm.topi.nn.depthwise_conv2d_nchw",
            Function::NnMatmul(true) => "tvm.topi.nn.dense",
            Function::NnBatchMatmul => "tvm.topi.nn.batch_matmul",
            Function::NnGetPadTuple(0) => "tvm.topi.nn.get_pad_tuple_generic",
            Function::NnGetPadTuple(1) => "tvm.topi.nn.get_pad_tuple1d",
            Function::NnGetPadTuple(3) => "tvm.topi.nn.get_pad_tuple3d",
            Function::NnGetPadTuple(_) => "tvm.topi.nn.get_pad_tuple",
            Function::NnInfer(what) => what.tvm_name(),
            Function::NnSoftmax(false) => "tvm.topi.nn.softmax",
            Function::NnSoftmax(true) => "tvm.topi.nn.log_softmax",
            Function::NnMatmul(false) => "tvm.topi.nn.matmul",
            Function::RegisterTopi(false) => "tvm.autotvm.register_topi_compute",
            Function::RegisterTopi(true) => "tvm.autotvm.register_topi_schedule",
            Function::AutotvmEntity(name) => name,
            Function::LoadReferenceLog => "tvm.autotvm.tophub.load_reference_log",
            Function::TargetHasFeatures => "tvm.target.codegen.target_has_features",
            Function::SimdLanes => "tvm.target.x86.get_simd_32bit_lanes",
            Function::LayoutTest(true) => "tvm.topi.utils.nchw_pack_layout",
            Function::LayoutTest(false) => "tvm.topi.utils.nchw_xc_layout",
            Function::Requirement => "tvm.testing.requires_*",
            Function::ParametrizeTargets => "tvm.testing.parametrize_targets",
            Function::DeviceOf => "tvm.device",
            Function::GenericFunc => "tvm.target.generic_func",
            Function::VScale => "tvm.tir.vscale",
            Function::Prod => "tvm.topi.utils.prod",
            Function::Pool2d => "tvm.topi.nn.pool2d",
            Function::DeviceEnabled => "tvm.testing.device_enabled",
            Function::TopiSum => "tvm.topi.sum",
            Function::TopiBroadcast(_) => "tvm.topi.add",
            Function::TopiReshape => "tvm.topi.reshape",
            Function::TopiCast => "tvm.topi.cast",
            Function::TopiElemwiseSum => "tvm.topi.elemwise_sum",
            Function::TopiMath(_) => "tvm.topi.math",
            Function::DeferringDecorator => "tvm.autotvm.register_topi_compute",
            Function::EqualConstInt => "tvm.topi.utils.equal_const_int",
            Function::IsEmptyShape => "tvm.topi.utils.is_empty_shape",
            Function::TopiSimplify => "tvm.topi.utils.simplify",
            Function::IsInjective => "tvm.topi.tag.is_injective",
            Function::IsBroadcast => "tvm.topi.tag.is_broadcast",
            Function::TargetCurrent => "tvm.target.Target.current",
            Function::PassContextCurrent => "tvm.transform.PassContext.current",
            Function::TargetOf(kind) => kind,
            Function::Build => "tvm.build",
            Function::NdArray => "tvm.nd.array",
            Function::NdEmpty => "tvm.nd.empty",
            Function::Device(kind) => kind,
            Function::AssertAllclose => "tvm.testing.assert_allclose",
            Function::PostOrderVisit => "tvm.tir.stmt_functor.post_order_visit",
            Function::AutoInlineInjective => "tvm.te.schedule.AutoInlineInjective",
            Function::AutoInlineElemWise => "tvm.te.schedule.AutoInlineElemWise",
            Function::AutoInlineBroadcast => "tvm.te.schedule.AutoInlineBroadcast",
            Function::CreateReadGraph => "tvm.te.schedule.CreateReadGraph",
            Function::PostDfsOrder => "tvm.te.schedule.PostDFSOrder",
            Function::ScheduleOps => "tvm.te.schedule.ScheduleOps",
            Function::Scan => "te.scan",
            Function::Extern => "te.extern",
            Function::DeclBuffer => "tvm.tir.decl_buffer",
            Function::CallPacked => "tvm.tir.call_packed",
            Function::CallExtern => "tvm.tir.call_extern",
            Function::CallIntrin => "tvm.tir.call_intrin",
            Function::IrBuilder => "tvm.tir.ir_builder.create",
            Function::HybridScript => "tvm.te.hybrid.script",
            Function::CreatePrimFunc => "tvm.te.create_prim_func",
            Function::PrimFuncScript => "tvm.script.tir.prim_func",
            Function::TirSchedule => "tvm.tir.Schedule",
            Function::ScriptFromSource => "tvm.script.from_source",
            Function::StructuralEqual => "tvm.ir.structural_equal",
            Function::AssertStructuralEqual => "tvm.ir.assert_structural_equal",
            Function::SaveJson => "tvm.ir.save_json",
            Function::LoadJson => "tvm.ir.load_json",
            Function::ScanGetBody => "tvm.te.schedule.ScanGetBody",
            Function::ScanFixPointAnalysis => "tvm.te.schedule.ScanFixPointAnalysis",
            Function::HybridBuild => "tvm.te.hybrid.build",
            Function::HybridModule => "tvm.te.hybrid.HybridModule",
            Function::CommReducer => "te.comm_reducer",
            Function::DeclTensorIntrin => "te.decl_tensor_intrin",
            Function::Range => "tvm.ir.Range",
            Function::RangeFromMinExtent => "tvm.ir.Range.from_min_extent",
        }
    }
}

/// A class of TVM's Python API, for `isinstance` and `except`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `tvm.container.Map` (what `InferBound` returns).
    Map,
    /// `tvm.tir.Var`.
    Var,
    /// `tvm.tir.IterVar`.
    IterVar,
    /// `te.Tensor`.
    Tensor,
    /// `tvm.te.schedule.Split`.
    Split,
    /// `tvm.te.schedule.Fuse`.
    Fuse,
    /// `tvm.te.schedule.Singleton`.
    Singleton,
    /// `tvm.DataType` (`tvm.runtime.DataType`): a type name; calling it
    /// checks and canonicalises the name (`tvm.DataType("float")` is
    /// `"float32"`), which stays a string, as TVM's API takes one.
    DataType,
    /// `tvm.tir.IntImm`: an integer constant (Python ints stand for the
    /// constant sizes of shapes, so they are IntImms too).
    IntImm,
    /// `tvm.tir.FloatImm`: a float constant (as `tvm.tir.const` gives).
    FloatImm,
    /// `tvm.tir.StringImm`.
    StringImm,
    /// `tvm.tir.SizeVar`: a variable known to be non-negative.
    SizeVar,
    /// `tvm.tir.Any`: a dynamic dimension (rangefinder has none).
    AnyDim,
    /// `tvm.tir.PrimExpr` / `tvm.ir.PrimExpr`: an index or element
    /// expression (an IterVar is not one).
    PrimExpr,
    /// `te.Operation` (`te.tensor.Operation`): any operation.
    Operation,
    /// `te.ComputeOp`.
    ComputeOp,
    /// `te.PlaceholderOp`.
    PlaceholderOp,
    /// `te.ScanOp`.
    ScanOp,
    /// `te.schedule.Stage`.
    Stage,
    /// `te.schedule.Schedule`.
    Schedule,
    /// `tvm.ir.Range`.
    Range,
    /// `tvm.runtime.Object` / `ObjectRef`: any TVM object.
    Object,
    /// `tvm.target.Target`: calling it makes a target.
    Target,
    /// `tvm.transform.PassContext`: calling it makes a pass context.
    PassContext,
    /// `tvm.arith.Analyzer`: calling it makes an analyzer.
    Analyzer,
    /// `tvm.tir.ForKind`: its constants (`ForKind.PARALLEL`) are what a
    /// loop's `.kind` gives.
    ForKind,
    /// `te.ExternOp`, or `te.HybridOp` (`true`).
    ExternOp(bool),
    /// `te.TensorComputeOp`: a compute by calls of a tensor intrinsic.
    TensorComputeOp,
    /// `te.TensorSlice` (`A[i, 0:16]`).
    TensorSlice,
    /// `te.TensorIntrin`.
    TensorIntrin,
    /// `te.TensorIntrinCall` (`intrin(A[i, 0:16])`).
    TensorIntrinCall,
    /// A statement class of `tvm.tir` (`For`, `BufferStore`, `Stmt`...).
    Stmt(&'static str),
    /// An exception class (`tvm.error.TVMError`; front ends also use it for
    /// Python's `Exception`, `RuntimeError` and `AssertionError`).
    Error(ErrorClass),
}

impl Class {
    /// The name a program would use, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Class::Map => "tvm.container.Map",
            Class::Var => "tvm.tir.Var",
            Class::IterVar => "tvm.tir.IterVar",
            Class::ForKind => "tvm.tir.ForKind",
            Class::ExternOp(false) => "te.ExternOp",
            Class::ExternOp(true) => "te.HybridOp",
            Class::TensorComputeOp => "te.TensorComputeOp",
            Class::TensorSlice => "te.TensorSlice",
            Class::TensorIntrin => "te.TensorIntrin",
            Class::TensorIntrinCall => "te.TensorIntrinCall",
            Class::Tensor => "te.Tensor",
            Class::Split => "tvm.te.schedule.Split",
            Class::Fuse => "tvm.te.schedule.Fuse",
            Class::Singleton => "tvm.te.schedule.Singleton",
            Class::DataType => "tvm.DataType",
            Class::IntImm => "tvm.tir.IntImm",
            Class::FloatImm => "tvm.tir.FloatImm",
            Class::StringImm => "tvm.tir.StringImm",
            Class::SizeVar => "tvm.tir.SizeVar",
            Class::AnyDim => "tvm.tir.Any",
            Class::PrimExpr => "tvm.tir.PrimExpr",
            Class::Operation => "te.Operation",
            Class::ComputeOp => "te.ComputeOp",
            Class::PlaceholderOp => "te.PlaceholderOp",
            Class::ScanOp => "te.ScanOp",
            Class::Stage => "te.schedule.Stage",
            Class::Schedule => "te.schedule.Schedule",
            Class::Range => "tvm.ir.Range",
            Class::Object => "tvm.runtime.Object",
            Class::Target => "tvm.target.Target",
            Class::PassContext => "tvm.transform.PassContext",
            Class::Analyzer => "tvm.arith.Analyzer",
            Class::Stmt(name) => name,
            Class::Error(e) => e.name(),
        }
    }
}
