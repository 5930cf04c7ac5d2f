//! What TOPI's own modules use, beyond TE itself: the generic and x86
//! injective schedules they import from each other, `topi.generic`'s
//! default schedules with their target checks, `pickle_memoize`, the
//! layout tests of `topi.utils`, constants folded as TVM folds them
//! (`IntImm.astype`, float arithmetic and comparisons, integer division of
//! constants) and index expressions met by Python floats (TOPI's image
//! coordinates). `programs/topi_module_api.py` is run by both front ends:
//! `python/tests/test_topi_modules.py` checks that CPython prints the same.

mod common;

const PROGRAM: &str = include_str!("programs/topi_module_api.py");

#[test]
fn topi_module_helpers_behave_as_in_tvm() {
    let run = script::run(PROGRAM).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = run.printed.lines().collect();
    assert_eq!(
        lines[..15],
        [
            "[0, 1, 4, 9] [0, 1, 4, 9]",
            "True False",
            "True False False",
            "2.0 True True",
            "2 3 -1 1",
            "i + 1 i - 2 i * 3",
            "True False",
            "['i.j.fused.k.fused']",
            "['i.j.fused', 'k.outer', 'k.inner']",
            "1",
            "3",
            "1",
            "3",
            "RuntimeError: schedule not registered for 'cuda -keys=cuda,gpu -max_num_threads=1024 \
             -thread_warp_size=32'",
            "TVMError: Target context required. Please set it by constructing a TargetContext",
        ]
    );
    // The index met by a float is cast to float32 on both sides; the
    // integer it is floored to is cast back where it meets a float.
    assert!(
        run.printed.contains(
            "C[x] = (A[0, 0, floormod(int32(floor((((float32(x) + 0.500000f)*0.500000f) - \
             0.500000f))), 32)]*(((float32(x) + 0.500000f)*0.500000f) - \
             float32(int32(floor(((float32(x) + 0.500000f)*0.500000f))))))"
        ),
        "{}",
        run.printed
    );
}

#[test]
fn generic_functions_dispatch_on_the_target_keys() {
    let run = script::run(PROGRAM).unwrap_or_else(|e| panic!("{e}"));
    let tail: Vec<&str> = run.printed.lines().rev().take(6).collect();
    assert_eq!(
        tail,
        [
            "(1, 2, 1, 2) (0, 0, 0, 0)",
            "(1, 1, 1, 1) (2, 2, 1, 1)",
            "ValueError: Key is already registered for cpu",
            "('default', 3)",
            "('cpu', 2)",
            "('default', 1)",
        ]
    );
}

#[test]
fn float_coordinates_compute_what_they_define() {
    // Run against direct evaluation: the casts the types ask for are
    // evaluated where they are printed.
    common::run_checked(PROGRAM, 4, 3, 1e-6);
}

#[test]
fn truncating_division_takes_any_divisor_and_folds_constants() {
    let run = script::run(
        "import tvm\nfrom tvm import te\n\
         n = te.var(\"n\")\n\
         print(tvm.tir.truncdiv(-7, 2), tvm.tir.truncmod(7, -2), tvm.tir.truncdiv(n, -4))\n\
         e = tvm.tir.truncmod(n, te.var(\"d\"))\n\
         try:\n    tvm.tir.truncdiv(n, 0)\nexcept ZeroDivisionError as err:\n    print(err)\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = run.printed.lines().collect();
    assert!(lines[0].starts_with("-3 1 0 - "), "{}", run.printed);
    assert_eq!(lines[1], "truncating division by zero");
}

const AUTOTVM: &str = include_str!("programs/autotvm_fallback.py");

#[test]
fn autotvm_templates_run_with_the_fallback_configuration() {
    let run = script::run(AUTOTVM).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = run.printed.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "4 False True",
            "16 True",
            "RuntimeError: Cannot find TOPI workload row_scale.x86. Is it registered with \
             `register_topi_compute`?",
        ]
    );
    // The compute's fallback values reach the schedule: `tile_x` splits
    // by 2 x 4 (the lanes of a generic CPU), `tile_y` by the default 1,
    // and `unroll` is off.
    assert!(
        run.printed.contains("for (j.inner.outer, 0, 2) {"),
        "{}",
        run.printed
    );
    assert!(
        run.printed.contains("vectorized (j.inner.inner, 0, 4) {"),
        "{}",
        run.printed
    );
    assert!(
        run.printed.contains("for (i.outer, 0, 6) {"),
        "{}",
        run.printed
    );
    assert!(!run.printed.contains("unrolled"), "{}", run.printed);
}

#[test]
fn autotvm_schedules_compute_what_they_define() {
    common::run_checked(AUTOTVM, 4, 1, 1e-6);
}

#[test]
fn autotvm_configurations_refuse_what_they_cannot_hold() {
    let prelude = "import tvm\nfrom tvm import autotvm, te\n\
        @autotvm.register_topi_compute(\"t.x86\")\n\
        def f(cfg, a):\n    BODY\n    return te.compute(a.shape, lambda i: a[i] * 2.0)\n\
        a = te.placeholder((8,), name=\"a\")\n\
        with tvm.target.Target(\"llvm\"):\n    f(a)\n";
    let error = |body: &str| {
        let src = prelude.replace("BODY", body);
        match script::run(&src) {
            Ok(_) => panic!("expected an error:\n{src}"),
            Err(e) => e.message,
        }
    };
    assert!(error("cfg[\"x\"] = 3").contains("set by name to an entity"));
    assert!(error("cfg[\"missing\"].size").contains("missing"));
    assert!(error("cfg.fallback_with_reference_log([1])").contains("tuning records"));
    assert!(error("cfg.define_knob(\"k\", [])").contains("non-empty"));
    assert!(error("cfg.define_knob(\"k\", [1]); cfg[\"k\"].size = 3").contains("cannot be set"));
    assert!(error("cfg.flop = 3").contains("cannot be set"));
}

#[test]
fn a_generic_function_cannot_implement_itself() {
    let src = "import tvm\n\
        @tvm.target.generic_func\n\
        def f(x):\n    return x\n\
        f.register(\"cpu\", f)\n";
    let e = script::run(src).expect_err("an error").message;
    assert!(e.contains("not a generic function"), "{e}");
}

const VALUE_CONDITIONS: &str = include_str!("programs/value_conditions.py");

#[test]
fn conditions_on_tensor_values_join_and_a_rank_0_tensor_is_its_value() {
    let run = script::run(VALUE_CONDITIONS).unwrap_or_else(|e| panic!("{e}"));
    for line in [
        // `tir.all` of value and index conditions.
        "sampled[i] = if_then_else(((((grid[i]*31.000000f) >= 0.000000f) && ((grid[i]*31.000000f) <= 31.000000f)) && (floormod(i, 2) == 0)), x[i], 0.000000f)",
        // `tir.any(...) | cond` and `cond & cond` on values.
        "clipped[i] = if_then_else((((x[i] < -0.500000f) || (x[i] > 0.500000f)) || (i == 0)), 0.000000f, x[i])",
        "banded[i] = if_then_else(((x[i] >= -0.250000f) && (x[i] < 0.250000f)), 1.000000f, 0.000000f)",
        // `indexmod` of a tensor value gathers.
        "scaled[i] = (x[i]*scale[floormod(i, T_shape[0])])",
        // `axis.equal(-1)` on a tensor of no dimensions.
        "chosen[i] = if_then_else((axis[] == -1), x[i], scaled[i])",
    ] {
        assert!(run.printed.contains(line), "{line}\n{}", run.printed);
    }
}

#[test]
fn a_rank_0_tensor_compares_as_a_tensor_with_numbers_and_as_its_value_with_expressions() {
    // TVM's `Tensor.__eq__`: `d == 1` is `False`; `d.equal(1)`, `d() == 1`
    // and `d < 3` compare the value.
    let run = script::run(
        "import tvm\nfrom tvm import te\nd = te.placeholder((), name='d', dtype='int32')\n\
         x = te.placeholder((4,), name='x')\nprint(d == 1, d != 1, d == d, d == x)\n\
         print(d.equal(1), d() == 1, d < 3)\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        run.printed,
        "False True True False\n(d[] == 1) (d[] == 1) (d[] < 3)\n"
    );
}

#[test]
fn conditions_on_tensor_values_compute_what_they_define() {
    common::run_checked(VALUE_CONDITIONS, 4, 3, 1e-6);
}

#[test]
fn padding_helpers_give_what_topis_own_give() {
    let run = script::run(include_str!("programs/pad_tuples.py")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, include_str!("programs/pad_tuples.out"));
}

#[test]
fn topis_cpp_reductions_and_module_aliases_resolve() {
    // `reduction.py` calls `cpp.sum(data, axis, keepdims)`; `nn/pooling.py`
    // imports `cpp` into `tvm.topi.nn`; `scatter.py` imports the analyzer's
    // module.
    let run = script::run(
        "import tvm\nfrom tvm import te, topi\nfrom tvm.topi.nn import cpp\n\
         from tvm.arith.analyzer import Analyzer\n\
         x = te.placeholder((4, 6), name='x')\n\
         a = tvm.topi.cpp.sum(x, [1], False)\nb = topi.sum(x, [1], False)\n\
         c = cpp.argmax(x, [1], True, False)\nd = tvm.topi.cpp.prod(x, None, True)\n\
         print(a.shape, b.shape, c.shape, d.shape, cpp is tvm.topi.cpp)\n\
         n = te.var('n')\nprint(Analyzer().simplify(n * 2 - n))\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed, "[4] [4] [4, 1] [1, 1] True\nn\n");
}

const BITWISE: &str = include_str!("programs/bitwise.py");

#[test]
fn bitwise_operators_on_integer_elements_are_tvms_intrinsics() {
    let run = script::run(BITWISE).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        run.printed.starts_with("uint32 uint32 int32 uint32\n"),
        "{}",
        run.printed
    );
    for line in [
        "counted[i] = (popcount(bitwise_xor(packed[i], shift_right(packed[i], 2))) + bitwise_and(w[floormod(i, 8)], 7))",
        "flipped[i] = (bitwise_not(w[floormod(i, 8)]) + shift_left(w[floormod(i, 8)], 2))",
        "padded[i] = if_then_else(((0 < i) && (i <= 16)), packed[(i - 1)], uint32(0))",
    ] {
        assert!(run.printed.contains(line), "{line}\n{}", run.printed);
    }
    // Python's operators on conditions and floats stay what they were.
    let e = script::run(
        "from tvm import te\nx = te.placeholder((4,), name='x')\n\
         y = te.compute((4,), lambda i: x[i] << 1, name='y')\n",
    )
    .expect_err("a float shifted");
    assert!(
        e.message
            .contains("works on the bits of integers, not on a float32 value"),
        "{e}"
    );
}

#[test]
fn bitwise_programs_compute_what_they_define() {
    common::run_checked(BITWISE, 4, 7, 0.0);
}

const CPP_OPERATORS: &str = include_str!("programs/cpp_operators.py");

#[test]
fn cpp_only_operators_compute_what_their_references_compute() {
    let run = script::run(CPP_OPERATORS).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = run.printed.lines().collect();
    assert_eq!(
        lines[..14],
        [
            // TOPI's stages and tags.
            "['T_cast', 'T_rms_norm'] elemwise",
            "rms_norm True",
            "nll_loss mean [] True",
            "nll_loss sum [] True",
            "nll_loss none [3] True",
            "[8, 2, 4, 1] [2, 4, 6, 1]",
            "space_to_batch_nd True round trip True",
            "einsum bik,bjk->bij einsum ['k'] True",
            "einsum ii [] True",
            "einsum i,j True",
            "einsum ...ij,jk->...ik [1, 2, 4] True",
            // Two subscripts for one operand, an output label in no
            // input, an output label twice.
            "ValueError ij,jk",
            "ValueError i->j",
            "ValueError ij->ii",
        ],
        "{}",
        run.printed
    );
    assert_eq!(lines[14], "bilinear_sample_nchw True", "{}", run.printed);
}

#[test]
fn cpp_only_operators_lower_as_they_evaluate() {
    common::run_checked(CPP_OPERATORS, 4, 2, 1e-5);
}

#[test]
fn cpp_only_operators_refuse_what_topi_cannot_build() {
    let prelude = "import tvm\nfrom tvm import te, topi\n\
        x = te.placeholder((2, 4, 6, 1), name='x')\n\
        w = te.placeholder((4,), name='w')\n";
    let error = |body: &str| {
        let src = format!("{prelude}{body}\n");
        match script::run(&src) {
            Ok(r) => panic!("expected an error:\n{src}\n{}", r.printed),
            Err(e) => e.message,
        }
    };
    // rms_norm reads its sums right only over the last axes.
    assert!(error("topi.nn.rms_norm(x, w, (1,), 1e-5)").contains("last axes"));
    assert!(error("topi.nn.rms_norm(x, te.placeholder((7,)), (3,), 1e-5)").contains("shape"));
    // A padded size that the block does not divide.
    assert!(error("topi.nn.space_to_batch_nd(x, [4, 4], [0, 0], [0, 0])").contains("divisible"));
    assert!(error("topi.nn.batch_to_space_nd(x, [2, 2], [0, 0], [0, 0])").contains("divisible"));
    assert!(error("topi.nn.batch_to_space_nd(x, [1, 1], [2, 0], [2, 0])").contains("crop"));
    assert!(error("topi.nn.nll_loss(x, x, w, 'mean', -100)").contains("integer"));
    assert!(error("topi.nn.nll_loss(w, w, w, 'avg', -100)").contains("reduction"));
    assert!(error("topi.einsum('ij,jk->ik', x, x)").contains("do not fit"));
    assert!(error("topi.einsum('i-j', w)").contains("arrow"));
}

const X86_CONV2D: &str = include_str!("programs/x86_conv2d_blocked.py");

/// TOPI's x86 convolution modules (`conv2d_avx_common`, `conv2d_avx_1x1`),
/// reached as module attributes: the fallback picks the blocks and tiles
/// TOPI's rule gives (SIMD width 4 for plain `llvm`: channels by 4; the
/// 6-wide rows of the 3x3 case in one register tile; the 1x1 case tiled
/// 3 x 6, the largest tile of fewer than 32 outputs), and the schedule
/// places the `global` cache at each tile.
#[test]
fn x86_blocked_convolutions_take_topis_fallback_and_schedule() {
    let run = script::run(X86_CONV2D).unwrap_or_else(|e| panic!("{e}"));
    let p = &run.printed;
    for line in [
        "3x3 conv2d_NCHWc conv2d_NCHWc [1, 4, 6, 6, 4] ['ic', 'kh', 'kw']",
        "1x1 conv2d_NCHWc conv2d_NCHWc [1, 8, 6, 6, 4] ['ic', 'kh', 'kw']",
        // 3x3: the padding stage, and a row of 6 outputs per tile.
        "      vectorized (i4, 0, 4) {",
        "  parallel (n.oc_chunk.fused.oh.fused, 0, 24) {",
        "    allocate conv2d_NCHWc.global[float32 * 1 * 1 * 1 * 6 * 4]",
        // 1x1: 3 rows of 6, unrolled, over blocks of 4 input channels.
        "  parallel (n.oc_chunk.fused.oh.outer.fused, 0, 16) {",
        "      unrolled (oh.c.inner, 0, 3) {",
        "      for (ic.outer, 0, 2) {",
    ] {
        assert!(p.contains(line), "{line}\n{p}");
    }
}

#[test]
fn x86_blocked_convolutions_compute_what_they_define() {
    common::run_checked(X86_CONV2D, 4, 3, 1e-5);
}

const CUDA_CONV2D: &str = include_str!("programs/cuda_conv2d_direct.py");

/// TOPI's direct CUDA convolution called as TOPI's users call it: the
/// template registers its workload, and the fallback schedule (every tile
/// factor 1) launches a block per output element with its `local`
/// accumulator and `shared` tiles; a convolution that is not the output
/// (a ReLU follows) is the accumulator itself, one that is gets a
/// `.local` cache.
#[test]
fn cuda_direct_convolution_takes_topis_fallback_and_schedule() {
    let run = script::run(CUDA_CONV2D).unwrap_or_else(|e| panic!("{e}"));
    let p = &run.printed;
    for line in [
        "conv2d_nchw.cuda conv2d_nchw",
        "  // attr [iter_var(blockIdx.z, , blockIdx.z)] thread_extent = 16\n  \
         // attr [iter_var(blockIdx.y, , blockIdx.y)] thread_extent = 12",
        "  // attr [iter_var(vthread_2, , vthread)] virtual_thread = 1",
        "  // attr [conv2d_nchw] storage_scope = \"local\"",
        "          allocate pad_temp.shared[float32 * 1 * 1 * 1 * 1]",
        "  compute[0, blockIdx.z, blockIdx.y, blockIdx.x] = max(conv2d_nchw[0, 0, 0, 0], 0.000000f)",
        // Strided and dilated: batch and channels fused over blocks.
        "  // attr [iter_var(blockIdx.z, , blockIdx.z)] thread_extent = 12",
        "  allocate conv2d_nchw.local[float32 * 1 * 1 * 1 * 1]",
        "            w.shared[0, 0, 0, 0] = w[floormod(blockIdx.z, 6), rc.outer, ry.outer, rx.outer]",
    ] {
        assert!(p.contains(line), "{line}\n{p}");
    }
}

#[test]
fn cuda_direct_convolutions_compute_what_they_define() {
    // The strided case (the script's last), then the one with a ReLU.
    common::run_checked(CUDA_CONV2D, 4, 5, 1e-5);
    let first = CUDA_CONV2D
        .split("# ---- strided")
        .next()
        .expect("the first case");
    common::run_checked(first, 4, 6, 1e-5);
}

#[test]
fn cuda_direct_convolution_refuses_what_topi_cannot_schedule() {
    let error = |src: &str| match script::run(src) {
        Ok(r) => panic!("expected an error for:\n{src}\n{}", r.printed),
        Err(e) => e.message,
    };
    let head = "import tvm\nfrom tvm import te, topi\n\
        d = te.placeholder((1, 4, 8, 8), name='d')\n\
        k = te.placeholder((4, 4, 3, 3), name='k')\n";
    // Without a target: TOPI reads `Target.current().kind`.
    let no_target = format!(
        "{head}c = topi.cuda.conv2d_nchw(d, k, 1, 1, 1)\ntopi.cuda.schedule_conv2d_nchw([c])\n"
    );
    assert!(error(&no_target).contains("current target"));
    // The template takes positional arguments only, as TVM's wrapper does.
    let keywords = format!(
        "{head}with tvm.target.Target('cuda'):\n    \
         topi.cuda.conv2d_nchw(d, k, 1, 1, dilation=1)\n"
    );
    assert!(error(&keywords).contains("kwargs"));
    // A schedule of outputs no template computed.
    let foreign = format!(
        "{head}c = topi.nn.conv2d_nchw(d, k, 1, 1, 1)\n\
         with tvm.target.Target('cuda'):\n    topi.cuda.schedule_conv2d_nchw([c])\n"
    );
    assert!(error(&foreign).contains("Cannot find TOPI workload"));
}

#[test]
fn x86_convolution_fallbacks_refuse_what_is_not_a_workload() {
    let src = "import tvm\nfrom tvm import autotvm, te\n\
        from tvm.topi.x86 import conv2d_avx_common\n\
        @autotvm.register_topi_compute('t.x86')\n\
        def f(cfg, a):\n    conv2d_avx_common._fallback_schedule(cfg, WKL)\n    \
        return te.compute(a.shape, lambda i: a[i] * 2.0)\n\
        a = te.placeholder((8,), name='a')\n\
        with tvm.target.Target('llvm'):\n    f(a)\n";
    let error = |wkl: &str| match script::run(&src.replace("WKL", wkl)) {
        Ok(r) => panic!("expected an error for {wkl}:\n{}", r.printed),
        Err(e) => e.message,
    };
    assert!(error("(1, 2, 3)").contains("Workload"));
    let zero_stride = "('float32', 'float32', 6, 6, 8, 1, 8, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1)";
    assert!(error(zero_stride).contains("positive"));
    let too_small = "('float32', 'float32', 2, 2, 8, 1, 8, 5, 5, 0, 0, 0, 0, 1, 1, 1, 1)";
    assert!(error(too_small).contains("larger than its padded input"));
}

#[test]
fn narrow_and_unsigned_integers_wrap_as_tvms_code_does_and_int32_overflow_is_an_error() {
    // TVM's LLVM code wraps unsigned arithmetic and signed arithmetic
    // below 32 bits, and every integer conversion keeps the low bits;
    // int32 and int64 arithmetic carries `nsw`, so its overflow is an
    // error (TOPI's bit-serial operators subtract two uint32 popcounts).
    let src = "import tvm\nfrom tvm import te\n\
        A = te.placeholder((4,), name='A', dtype='uint8')\n\
        B = te.compute((4,), lambda i: A[i] * A[i] + A[i], name='B')\n\
        C = te.placeholder((4,), name='C', dtype='int8')\n\
        D = te.compute((4,), lambda i: C[i] + C[i], name='D')\n\
        E = te.placeholder((4,), name='E', dtype='int32')\n\
        F = te.compute((4,), lambda i: E[i].astype('int8') - tvm.tir.const(1, 'int8'), name='F')\n\
        G = te.compute((4,), lambda i: tvm.tir.const(3, 'uint32') - A[i].astype('uint32'), name='G')\n\
        s = te.create_schedule([B.op, D.op, F.op, G.op])\n\
        f = tvm.build(s, [A, C, E, B, D, F, G], target='llvm')\n\
        outs = [tvm.nd.empty((4,), t.dtype, tvm.cpu(0)) for t in [B, D, F, G]]\n\
        f(tvm.nd.array([200, 3, 255, 16]), tvm.nd.array([100, -100, 64, -1]), \
          tvm.nd.array([300, -129, 127, 256]), *outs)\n\
        for o in outs:\n    print(o.numpy())\n\
        H = te.compute((4,), lambda i: E[i] * 65536 * 65536, name='H')\n\
        fh = tvm.build(te.create_schedule(H.op), [E, H], target='llvm')\n\
        try:\n    fh(tvm.nd.array([1, 2, 3, 4]), tvm.nd.empty((4,), 'int32', tvm.cpu(0)))\n\
        except tvm.TVMError as e:\n    print(type(e).__name__, 'int32 overflow' in str(e))\n";
    let run = script::run(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        run.printed,
        "[8, 12, 0, 16]\n[-56, 56, -128, -2]\n[43, 126, 126, -1]\n\
         [4294967099, 0, 4294967044, 4294967283]\nTVMError True\n"
    );
    // The lowered program and direct evaluation agree on the wrapped values.
    let checked = src.split("f = tvm.build").next().unwrap();
    common::run_checked(checked, 4, 5, 0.0);
}

const IR_BUILDER: &str = include_str!("programs/ir_builder.py");

#[test]
fn ir_builder_bodies_compute_what_their_references_compute() {
    let run = script::run(IR_BUILDER).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = run.printed.lines().collect();
    assert_eq!(
        lines[..3],
        ["scan_max prefix_max", "prefix_max True", "scatter_add True"],
        "{}",
        run.printed
    );
    // The scatter's index is bound around its store, as TVM prints it.
    for line in [
        "  parallel (j, 0, 4) {",
        "    let target = ix[j]",
        "    scatter_add[target] = (scatter_add[target] + up[j])",
        "else RuntimeError else_scope can only follow an if_scope",
        "dtype ValueError data type does not match content type int32 vs float32",
        "get RuntimeError cannot call get inside construction scope",
    ] {
        assert!(run.printed.contains(line), "{line}\n{}", run.printed);
    }
}

#[test]
fn ir_builder_bodies_run_with_index_data_in_range() {
    // Random index data for `ix` stays within the axis its values
    // address, so the scatter runs.
    common::run_checked(IR_BUILDER, 4, 3, 1e-6);
}

#[test]
fn helpers_topi_imports_from_tvm_modules() {
    let run = script::run(
        "import tvm\nfrom tvm import te\nfrom tvm.arith.analyzer import Analyzer\n\
         from tvm.tir import generic\nfrom tvm.topi.nn.utils import infer_pad, infer_pad3d, infer_stride\n\
         n = te.var('n')\nan = Analyzer()\n\
         print(an.can_prove_equal(3, 3), an.can_prove_equal(3, 4), an.can_prove_equal(n * 2 - n, n), an.can_prove_equal(n, 1))\n\
         a = te.placeholder((4,), name='a')\n\
         c = te.compute((4,), lambda i: generic.add(a[i], generic.multiply(a[i], 2.0)), name='c')\n\
         print(c.op.body[0])\n\
         x = te.placeholder((1, 3, 8, 10, 12), name='x')\n\
         xp = te.placeholder((1, 3, 10, 12, 16), name='xp')\n\
         print(infer_pad3d(x, xp, 'NCDHW'), infer_pad(te.placeholder((1, 3, 8, 8)), te.placeholder((1, 3, 10, 12))), infer_pad(x, None))\n\
         k = te.placeholder((4, 3, 3, 3), name='k')\n\
         print(infer_stride(te.placeholder((1, 3, 9, 5)), k, te.placeholder((1, 4, 4, 1))))\n\
         try:\n    infer_pad3d(x, xp, 'NHWC')\nexcept ValueError as e:\n    print(e)\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        run.printed,
        "True False True False\na[i] + a[i] * 2.0\n(2, 2, 4) (1, 2) (0, 0)\n(2, 3)\n\
         Layout 'NHWC' is not supported\n"
    );
}
