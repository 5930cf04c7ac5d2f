//! TOPI's x86 and CUDA schedules (`topi.x86.schedule_pool`,
//! `topi.cuda.schedule_reduce`, ...): the loops they make are TOPI's
//! (parallel, vectorized, bound to threads, fused and split as TOPI does),
//! the scheduled programs compute, on random inputs, what a direct
//! evaluation of the operator's meaning gives, and targets, tags and
//! arguments TOPI refuses are refused.

use proptest::prelude::*;
use std::rc::Rc;
use tvm_api::{ErrorClass, Host, Object, Session, Target, Value};

mod topi_common;
use topi_common::*;

/// A host with `target` entered (`with tvm.target.Target(target):`).
fn host(target: Option<&str>) -> NoFunctions {
    let mut s = Session::default();
    if let Some(t) = target {
        s.targets
            .push(Rc::new(Target::parse(t).expect("a known target")));
    }
    NoFunctions(s)
}

fn tensor_of(v: &Value) -> te::Tensor {
    match v {
        Value::Object(Object::Tensor(t)) => t.clone(),
        other => panic!("a tensor, found {}", other.type_name()),
    }
}

fn schedule_of(v: &Value) -> tvm_api::ScheduleRef {
    match v {
        Value::Object(Object::Schedule(s)) => s.clone(),
        other => panic!("a schedule, found {}", other.type_name()),
    }
}

/// `tvm.lower(s, args, simple_mode=True)` as text.
fn lower(h: &mut dyn Host, s: &Value, args: &[&Value]) -> String {
    let args = Value::list(args.iter().map(|a| (*a).clone()).collect());
    let m = call(
        h,
        "tvm.lower",
        vec![s.clone(), args],
        &[("simple_mode", Value::Bool(true))],
    );
    tvm_api::str(&m)
}

/// The names of the loops of `t`'s stage in `s`, outermost first.
fn leaves(s: &Value, t: &Value) -> Vec<String> {
    let s = schedule_of(s);
    let s = s.borrow();
    let st = s.stage(&tensor_of(t)).expect("a stage");
    st.leaf_iter_vars()
        .iter()
        .map(|iv| iv.name().to_string())
        .collect()
}

/// The thread tags of `t`'s loops in `s`, by loop name.
fn threads(s: &Value, t: &Value) -> Vec<(String, String)> {
    let s = schedule_of(s);
    let s = s.borrow();
    let st = s.stage(&tensor_of(t)).expect("a stage");
    st.leaf_iter_vars()
        .iter()
        .filter_map(|iv| {
            st.bound_thread(iv)
                .map(|th| (iv.name().to_string(), th.name().to_string()))
        })
        .collect()
}

/// Deterministic pseudo-random values in [-4, 4), float32-exact.
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
        | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) % 64) as f64 / 8.0 - 4.0
        })
        .collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-4 * (1.0 + y.abs()))
}

fn pool2d(
    h: &mut dyn Host,
    x: &Value,
    k: i64,
    stride: i64,
    pad: i64,
    max: bool,
    layout: &str,
) -> Value {
    call(
        h,
        "tvm.topi.nn.pool2d",
        vec![
            x.clone(),
            ints(&[k, k]),
            ints(&[stride, stride]),
            ints(&[1, 1]),
            ints(&[pad, pad, pad, pad]),
            Value::str(if max { "max" } else { "avg" }),
        ],
        &[("layout", Value::str(layout))],
    )
}

/// A global pool written as TOPI's adaptive pool of output 1 x 1 writes
/// it (tag `adaptive_pool_max`), over an NCHW input.
fn global_max(x: &Value, c: i64, hw: i64) -> Value {
    let xt = tensor_of(x);
    let rh = te::reduce_axis((0, hw), "rv0");
    let rw = te::reduce_axis((0, hw), "rv1");
    let out = te::try_compute_tagged::<te::TeError>(
        vec![1i64, c, 1, 1],
        &["ax0", "ax1", "ax2", "ax3"],
        |i| {
            Ok(te::max(
                xt.at([i[0].clone(), i[1].clone(), rh.expr(), rw.expr()]),
                &[rh.clone(), rw.clone()],
            ))
        },
        "adaptive_pool_max",
        "adaptive_pool_max",
        te::Attrs::new(),
    )
    .expect("a compute");
    Value::Object(Object::Tensor(out))
}

// ---------------------------------------------------------------------
// Loop structure.
// ---------------------------------------------------------------------

#[test]
fn x86_schedules_make_topis_parallel_and_vector_loops() {
    let mut h = host(None);
    // NCHW: the first two axes fused and parallel, no vectorizing.
    let x = placeholder(&mut h, &[1, 8, 6, 6], "x");
    let out = pool2d(&mut h, &x, 3, 2, 1, true, "NCHW");
    let s = call(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![Value::list(vec![out.clone()]), Value::str("NCHW")],
        &[],
    );
    assert_eq!(
        leaves(&s, &out),
        ["ax0.ax1.fused", "ax2", "ax3", "rv0", "rv1"]
    );
    let text = lower(&mut h, &s, &[&x, &out]);
    assert!(text.contains("parallel (ax0.ax1.fused, 0, 8)"), "{text}");
    assert!(!text.contains("vectorized"), "{text}");
    assert!(!text.contains("pad_temp["), "padding is inlined: {text}");

    // NHWC: the reduction inside, the channels vectorized (96 by 48).
    let x = placeholder(&mut h, &[1, 4, 4, 96], "x");
    let out = pool2d(&mut h, &x, 2, 2, 0, true, "NHWC");
    let s = call(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![out.clone(), Value::str("NHWC")],
        &[],
    );
    assert_eq!(
        leaves(&s, &out),
        [
            "ax0.ax1.fused",
            "ax2",
            "rv0.rv1.fused",
            "ax3.outer",
            "ax3.inner"
        ]
    );
    let text = lower(&mut h, &s, &[&x, &out]);
    assert!(text.contains("vectorized (ax3.inner, 0, 48)"), "{text}");

    // Reduction: outer axes fused up to 128 parallel iterations.
    let x = placeholder(&mut h, &[4, 16, 8, 5], "x");
    let y = call(
        &mut h,
        "tvm.topi.sum",
        vec![x.clone()],
        &[("axis", Value::Int(3))],
    );
    let s = call(&mut h, "tvm.topi.x86.schedule_reduce", vec![y.clone()], &[]);
    assert_eq!(leaves(&s, &y)[0], "ax0.ax1.fused.ax2.fused");
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(
        text.contains("parallel (ax0.ax1.fused.ax2.fused, 0, 512)"),
        "{text}"
    );

    // Softmax: the axes before the softmax axis fused, the stages inside.
    let x = placeholder(&mut h, &[2, 3, 10], "x");
    let y = call(&mut h, "tvm.topi.nn.softmax", vec![x.clone()], &[]);
    let s = call(
        &mut h,
        "tvm.topi.x86.schedule_softmax",
        vec![y.clone()],
        &[],
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(text.contains("parallel (i0.i1.fused, 0, 6)"), "{text}");
    assert_eq!(
        text.matches("produce T_softmax_maxelem").count(),
        1,
        "{text}"
    );

    // Concatenate of five axes: three fused, the last vectorized.
    let x = placeholder(&mut h, &[1, 2, 3, 4, 8], "x");
    let y = call(&mut h, "tvm.topi.nn.relu", vec![x.clone()], &[]);
    let s = call(
        &mut h,
        "tvm.topi.x86.schedule_concatenate",
        vec![Value::list(vec![y.clone()])],
        &[],
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(
        text.contains("parallel (i0.i1.fused.i2.fused, 0, 6)"),
        "{text}"
    );
    assert!(text.contains("vectorized (i4, 0, 8)"), "{text}");
}

#[test]
fn cuda_schedules_bind_topis_threads() {
    let mut h = host(Some("cuda"));
    // Injective: everything fused, split by the 1024 threads of `cuda`.
    let x = placeholder(&mut h, &[4, 64, 32], "x");
    let y = call(&mut h, "tvm.topi.nn.relu", vec![x.clone()], &[]);
    let s = call(
        &mut h,
        "tvm.topi.cuda.schedule_injective",
        vec![y.clone()],
        &[],
    );
    assert_eq!(
        leaves(&s, &y),
        ["i0.i1.fused.i2.fused.outer", "i0.i1.fused.i2.fused.inner"]
    );
    assert_eq!(
        threads(&s, &y),
        [
            (
                "i0.i1.fused.i2.fused.outer".to_string(),
                "blockIdx.x".to_string()
            ),
            (
                "i0.i1.fused.i2.fused.inner".to_string(),
                "threadIdx.x".to_string()
            )
        ]
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(text.contains("thread_extent = 8"), "{text}");
    assert!(text.contains("thread_extent = 1024"), "{text}");
    // Fewer elements than threads: one block of exactly that many.
    let x = placeholder(&mut h, &[10], "x");
    let y = call(&mut h, "tvm.topi.nn.relu", vec![x.clone()], &[]);
    let s = call(
        &mut h,
        "tvm.topi.cuda.schedule_elemwise",
        vec![y.clone()],
        &[],
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(text.contains("thread_extent = 10"), "{text}");

    // Reduction over the last axis: 32 x 32 threads and a factored sum.
    let x = placeholder(&mut h, &[64, 256], "x");
    let y = call(
        &mut h,
        "tvm.topi.sum",
        vec![x.clone()],
        &[("axis", Value::Int(1))],
    );
    let s = call(
        &mut h,
        "tvm.topi.cuda.schedule_reduce",
        vec![y.clone()],
        &[],
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(text.contains("produce x_red.rf"), "{text}");
    assert!(
        text.contains("threadIdx.y, , threadIdx.y)] thread_extent = 32"),
        "{text}"
    );
    assert!(
        text.contains("blockIdx.x, , blockIdx.x)] thread_extent = 2"),
        "{text}"
    );
    // Everything reduced: the target's 1024 threads.
    let x = placeholder(&mut h, &[3000], "x");
    let y = call(&mut h, "tvm.topi.sum", vec![x.clone()], &[]);
    let s = call(
        &mut h,
        "tvm.topi.cuda.schedule_reduce",
        vec![y.clone()],
        &[],
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(
        text.contains("threadIdx.x)] thread_extent = 1024"),
        "{text}"
    );

    // Softmax of two axes on `cuda`: a warp of 32 threads per row.
    let x = placeholder(&mut h, &[8, 128], "x");
    let y = call(&mut h, "tvm.topi.nn.softmax", vec![x.clone()], &[]);
    let s = call(
        &mut h,
        "tvm.topi.cuda.schedule_softmax",
        vec![y.clone()],
        &[],
    );
    assert_eq!(
        leaves(&s, &y),
        ["i0", "i1.outer", "i1.inner.outer", "i1.inner.inner"]
    );
    let text = lower(&mut h, &s, &[&x, &y]);
    assert!(text.contains("threadIdx.x)] thread_extent = 32"), "{text}");
    assert!(text.contains("\"warp\""), "{text}");

    // Pool as an output: computed in a local cache, one thread per element.
    let x = placeholder(&mut h, &[1, 64, 16, 16], "x");
    let out = pool2d(&mut h, &x, 2, 2, 0, true, "NCHW");
    let s = call(
        &mut h,
        "tvm.topi.cuda.schedule_pool",
        vec![out.clone(), Value::str("NCHW")],
        &[],
    );
    let text = lower(&mut h, &s, &[&x, &out]);
    assert!(text.contains("produce pool_max.local"), "{text}");
    assert!(
        text.contains("threadIdx.x)] thread_extent = 1024"),
        "{text}"
    );
    assert!(text.contains("blockIdx.x)] thread_extent = 4"), "{text}");
}

// ---------------------------------------------------------------------
// Values.
// ---------------------------------------------------------------------

/// Max or average pooling of an NCHW (or NHWC) input, with zero-padding
/// left out of averages (TOPI's `count_include_pad=True` counts it).
fn pool_reference(
    x: &[f64],
    [n, c, hh, ww]: [usize; 4],
    nhwc: bool,
    k: usize,
    stride: usize,
    pad: usize,
    max: bool,
) -> Vec<f64> {
    let oh = (hh + 2 * pad - k) / stride + 1;
    let ow = (ww + 2 * pad - k) / stride + 1;
    let at = |b: usize, ch: usize, i: usize, j: usize| {
        if nhwc {
            x[((b * hh + i) * ww + j) * c + ch]
        } else {
            x[((b * c + ch) * hh + i) * ww + j]
        }
    };
    let mut out = vec![0.0; n * c * oh * ow];
    for b in 0..n {
        for ch in 0..c {
            for i in 0..oh {
                for j in 0..ow {
                    let mut acc = if max { f64::NEG_INFINITY } else { 0.0 };
                    for di in 0..k {
                        for dj in 0..k {
                            let (pi, pj) = (i * stride + di, j * stride + dj);
                            let v = if pi < pad || pj < pad || pi - pad >= hh || pj - pad >= ww {
                                if max {
                                    -3.4028234663852886e38
                                } else {
                                    0.0
                                }
                            } else {
                                at(b, ch, pi - pad, pj - pad)
                            };
                            acc = if max { acc.max(v) } else { acc + v };
                        }
                    }
                    if !max {
                        acc /= (k * k) as f64;
                    }
                    let o = if nhwc {
                        ((b * oh + i) * ow + j) * c + ch
                    } else {
                        ((b * c + ch) * oh + i) * ow + j
                    };
                    out[o] = acc;
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn scheduled_pools_compute_the_pool(
        c in 1usize..6, hw in 3usize..8, k in 1usize..4, stride in 1usize..3,
        pad in 0usize..2, max in any::<bool>(), nhwc in any::<bool>(), cuda in any::<bool>(),
        relu in any::<bool>(), seed in any::<u64>(),
    ) {
        prop_assume!(k <= hw + 2 * pad && pad < k);
        let mut h = host(Some(if cuda { "cuda" } else { "llvm" }));
        let shape = if nhwc { [1, hw, hw, c] } else { [1, c, hw, hw] };
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let x = placeholder(&mut h, &dims, "x");
        let layout = if nhwc { "NHWC" } else { "NCHW" };
        let p = pool2d(&mut h, &x, k as i64, stride as i64, pad as i64, max, layout);
        let out = if relu { call(&mut h, "tvm.topi.nn.relu", vec![p], &[]) } else { p };
        let path = if cuda { "tvm.topi.cuda.schedule_pool" } else { "tvm.topi.x86.schedule_pool" };
        let s = call(&mut h, path, vec![Value::list(vec![out.clone()]), Value::str(layout)], &[]);
        let data = values(c * hw * hw, seed);
        let got = run_schedule(&mut h, &s, &[(&x, &data)], &out);
        let mut want = pool_reference(&data, [1, c, hw, hw], nhwc, k, stride, pad, max);
        if relu {
            want.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        prop_assert!(close(&got, &want), "got {got:?}\nwant {want:?}");
    }

    #[test]
    fn scheduled_reductions_compute_the_sum(
        dims in prop::collection::vec(1usize..6, 1..4), axis_pick in any::<prop::sample::Index>(),
        all in any::<bool>(), keepdims in any::<bool>(), relu in any::<bool>(),
        target in 0usize..3, seed in any::<u64>(),
    ) {
        let target = ["llvm", "cuda", "opencl"][target];
        let mut h = host(Some(target));
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let x = placeholder(&mut h, &shape, "x");
        let axis = axis_pick.index(dims.len());
        let input = if relu { call(&mut h, "tvm.topi.nn.relu", vec![x.clone()], &[]) } else { x.clone() };
        let mut kw = vec![("keepdims", Value::Bool(keepdims))];
        if !all {
            kw.push(("axis", Value::Int(axis as i64)));
        }
        let y = call(&mut h, "tvm.topi.sum", vec![input], &kw);
        let path = if target == "llvm" { "tvm.topi.x86.schedule_reduce" } else { "tvm.topi.cuda.schedule_reduce" };
        let s = call(&mut h, path, vec![Value::list(vec![y.clone()])], &[]);
        let n: usize = dims.iter().product();
        let data = values(n, seed);
        let got = run_schedule(&mut h, &s, &[(&x, &data)], &y);
        // Sum over `axis` (or everything) of row-major data.
        let inner: usize = dims[axis + 1..].iter().product();
        let mut want = if all { vec![0.0] } else { vec![0.0; n / dims[axis]] };
        for (i, v) in data.iter().enumerate() {
            let v = if relu { v.max(0.0) } else { *v };
            let o = if all { 0 } else { (i / (inner * dims[axis])) * inner + i % inner };
            want[o] += v;
        }
        prop_assert!(close(&got, &want), "got {got:?}\nwant {want:?}");
    }

    #[test]
    fn scheduled_softmax_computes_softmax(
        rows in 1usize..5, outer in 1usize..3, cols in 1usize..40, three in any::<bool>(),
        log in any::<bool>(), target in 0usize..3, relu in any::<bool>(), seed in any::<u64>(),
    ) {
        let target = ["llvm", "cuda", "opencl"][target];
        let mut h = host(Some(target));
        let shape: Vec<i64> = if three { vec![outer as i64, rows as i64, cols as i64] } else { vec![rows as i64, cols as i64] };
        let x = placeholder(&mut h, &shape, "x");
        let op = if log { "tvm.topi.nn.log_softmax" } else { "tvm.topi.nn.softmax" };
        let sm = call(&mut h, op, vec![x.clone()], &[]);
        let y = if relu { call(&mut h, "tvm.topi.nn.relu", vec![sm], &[]) } else { sm };
        let path = if target == "llvm" { "tvm.topi.x86.schedule_softmax" } else { "tvm.topi.cuda.schedule_softmax" };
        let s = call(&mut h, path, vec![Value::list(vec![y.clone()])], &[]);
        let n = shape.iter().product::<i64>() as usize;
        let data = values(n, seed);
        let got = run_schedule(&mut h, &s, &[(&x, &data)], &y);
        let mut want = Vec::with_capacity(n);
        for row in data.chunks(cols) {
            let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let total: f64 = row.iter().map(|v| (v - m).exp()).sum();
            for v in row {
                let r = if log { v - m - total.ln() } else { (v - m).exp() / total };
                want.push(if relu { r.max(0.0) } else { r });
            }
        }
        prop_assert!(close(&got, &want), "got {got:?}\nwant {want:?}");
    }

    #[test]
    fn cuda_injective_computes_the_chain(
        dims in prop::collection::vec(1usize..9, 1..4), seed in any::<u64>(), from_existing in any::<bool>(),
    ) {
        let mut h = host(Some("cuda"));
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let x = placeholder(&mut h, &shape, "x");
        let last = *shape.last().unwrap_or(&1);
        let b = placeholder(&mut h, &[last], "b");
        let sum = call(&mut h, "tvm.topi.add", vec![x.clone(), b.clone()], &[]);
        let y = call(&mut h, "tvm.topi.nn.relu", vec![sum], &[]);
        let s = if from_existing {
            let s = call(&mut h, "te.create_schedule", vec![attr(&y, "op")], &[]);
            call(&mut h, "tvm.topi.cuda.schedule_injective_from_existing", vec![s, y.clone()], &[])
        } else {
            call(&mut h, "tvm.topi.cuda.schedule_broadcast", vec![y.clone()], &[])
        };
        let n: usize = dims.iter().product();
        let (xd, bd) = (values(n, seed), values(last as usize, seed ^ 7));
        let got = run_schedule(&mut h, &s, &[(&x, &xd), (&b, &bd)], &y);
        let want: Vec<f64> = xd.iter().enumerate().map(|(i, v)| (v + bd[i % last as usize]).max(0.0)).collect();
        prop_assert!(close(&got, &want), "got {got:?}\nwant {want:?}");
    }
}

#[test]
fn adaptive_pool_schedules_compute_the_global_max() {
    for (target, path) in [
        ("llvm", "tvm.topi.x86.schedule_adaptive_pool"),
        ("cuda", "tvm.topi.cuda.schedule_adaptive_pool"),
    ] {
        for (c, hw) in [(3, 4), (40, 2), (1, 1)] {
            let mut h = host(Some(target));
            let x = placeholder(&mut h, &[1, c, hw, hw], "x");
            let out = global_max(&x, c, hw);
            let s = call(&mut h, path, vec![Value::list(vec![out.clone()])], &[]);
            let text = lower(&mut h, &s, &[&x, &out]);
            if c == 1 {
                // One element: TVM drops the loops of one iteration.
            } else if target == "cuda" {
                assert!(text.contains("produce adaptive_pool_max.rf"), "{text}");
            } else {
                assert!(text.contains("parallel"), "{text}");
            }
            let data = values((c * hw * hw) as usize, c as u64);
            let got = run_schedule(&mut h, &s, &[(&x, &data)], &out);
            let want: Vec<f64> = data
                .chunks((hw * hw) as usize)
                .map(|w| w.iter().cloned().fold(f64::NEG_INFINITY, f64::max))
                .collect();
            assert!(close(&got, &want), "{target} {c}x{hw}: {got:?} vs {want:?}");
        }
    }
}

// ---------------------------------------------------------------------
// Errors.
// ---------------------------------------------------------------------

fn expect_error(
    h: &mut dyn Host,
    path: &str,
    pos: Vec<Value>,
    kw: &[(&str, Value)],
    class: ErrorClass,
    words: &str,
) {
    match try_call(h, path, pos, kw) {
        Ok(_) => panic!("{path} should fail with {words:?}"),
        Err(e) => {
            assert_eq!(e.class, class, "{path}: {}", e.message);
            assert!(e.message.contains(words), "{path}: {}", e.message);
        }
    }
}

#[test]
fn cuda_schedules_need_a_gpu_target_as_topi_does() {
    let required = "Target context required. Please set it by constructing a TargetContext";
    for target in [None, Some("llvm")] {
        let mut h = host(target);
        let x = placeholder(&mut h, &[1, 4, 8, 8], "x");
        let y = call(&mut h, "tvm.topi.nn.relu", vec![x.clone()], &[]);
        let p = pool2d(&mut h, &x, 2, 2, 0, true, "NCHW");
        let sm = call(&mut h, "tvm.topi.nn.softmax", vec![x.clone()], &[]);
        let all = call(&mut h, "tvm.topi.sum", vec![x.clone()], &[]);
        let words = if target.is_none() {
            required
        } else {
            "max_num_threads"
        };
        expect_error(
            &mut h,
            "tvm.topi.cuda.schedule_injective",
            vec![y.clone()],
            &[],
            ErrorClass::TVMError,
            words,
        );
        expect_error(
            &mut h,
            "tvm.topi.cuda.schedule_pool",
            vec![p, Value::str("NCHW")],
            &[],
            ErrorClass::TVMError,
            words,
        );
        expect_error(
            &mut h,
            "tvm.topi.cuda.schedule_reduce",
            vec![all],
            &[],
            ErrorClass::TVMError,
            words,
        );
        // Softmax reads the target first (any target will do for it);
        // a four-axis softmax then schedules its stages as injective.
        let words = if target.is_none() {
            required
        } else {
            "max_num_threads"
        };
        expect_error(
            &mut h,
            "tvm.topi.cuda.schedule_softmax",
            vec![sm],
            &[],
            ErrorClass::TVMError,
            words,
        );
    }
    // A reduction keeping some axes reads no target, as TOPI's does.
    let mut h = host(None);
    let x = placeholder(&mut h, &[8, 16], "x");
    let y = call(
        &mut h,
        "tvm.topi.sum",
        vec![x.clone()],
        &[("axis", Value::Int(1))],
    );
    call(&mut h, "tvm.topi.cuda.schedule_reduce", vec![y], &[]);
    // The x86 schedules read none either.
    let z = placeholder(&mut h, &[1, 2, 4, 4], "z");
    let p = pool2d(&mut h, &z, 2, 2, 0, false, "NCHW");
    call(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![p, Value::str("NCHW")],
        &[],
    );
}

#[test]
fn schedules_refuse_operators_of_other_tags() {
    let mut h = host(Some("cuda"));
    let x = placeholder(&mut h, &[1, 4, 8, 8], "x");
    let red = call(
        &mut h,
        "tvm.topi.sum",
        vec![x.clone()],
        &[("axis", Value::Int(1))],
    );
    let p = pool2d(&mut h, &x, 2, 2, 0, true, "NCHW");
    let rt = ErrorClass::RuntimeError;
    for path in ["tvm.topi.x86.schedule_pool", "tvm.topi.cuda.schedule_pool"] {
        expect_error(
            &mut h,
            path,
            vec![red.clone(), Value::str("NCHW")],
            &[],
            rt,
            "Unsupported operator: comm_reduce",
        );
    }
    for path in [
        "tvm.topi.x86.schedule_adaptive_pool",
        "tvm.topi.cuda.schedule_adaptive_pool",
    ] {
        expect_error(
            &mut h,
            path,
            vec![p.clone()],
            &[],
            rt,
            "Unsupported operator: pool_max",
        );
    }
    expect_error(
        &mut h,
        "tvm.topi.cuda.schedule_reduce",
        vec![p.clone()],
        &[],
        rt,
        "Unsupported operator: pool_max",
    );
    expect_error(
        &mut h,
        "tvm.topi.x86.schedule_reduce",
        vec![p.clone()],
        &[],
        rt,
        "(tag: pool_max)",
    );
    // A placeholder has no tag.
    expect_error(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![x.clone(), Value::str("NCHW")],
        &[],
        rt,
        "Unsupported operator: ",
    );
}

#[test]
fn schedules_refuse_bad_arguments() {
    let mut h = host(Some("cuda"));
    let x = placeholder(&mut h, &[1, 4, 8, 8], "x");
    let p = pool2d(&mut h, &x, 2, 2, 0, true, "NHWC");
    expect_error(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![p.clone(), Value::Int(3)],
        &[],
        ErrorClass::TypeError,
        "layout",
    );
    expect_error(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![p.clone(), Value::str("")],
        &[],
        ErrorClass::IndexError,
        "out of range",
    );
    expect_error(
        &mut h,
        "tvm.topi.x86.schedule_pool",
        vec![p.clone()],
        &[],
        ErrorClass::TypeError,
        "layout",
    );
    expect_error(
        &mut h,
        "tvm.topi.x86.schedule_reduce",
        vec![Value::Int(1)],
        &[],
        ErrorClass::TypeError,
        "tensor",
    );
    expect_error(
        &mut h,
        "tvm.topi.cuda.schedule_softmax",
        vec![Value::list(vec![])],
        &[],
        ErrorClass::IndexError,
        "out of range",
    );
    expect_error(
        &mut h,
        "tvm.topi.cuda.schedule_injective_from_existing",
        vec![Value::Int(0), x.clone()],
        &[],
        ErrorClass::TypeError,
        "schedule",
    );
    // Softmax stages met by a schedule of another operator.
    let sm = call(&mut h, "tvm.topi.nn.softmax", vec![x.clone()], &[]);
    expect_error(
        &mut h,
        "tvm.topi.cuda.schedule_pool",
        vec![sm, Value::str("NCHW")],
        &[],
        ErrorClass::RuntimeError,
        "softmax_output",
    );
}

#[test]
fn huge_shapes_are_scheduled_or_refused_without_panicking() {
    let big = 1i64 << 40;
    for target in ["llvm", "cuda"] {
        let mut h = host(Some(target));
        let x = placeholder(&mut h, &[big, big, 4], "x");
        let y = call(
            &mut h,
            "tvm.topi.sum",
            vec![x.clone()],
            &[("axis", Value::Int(2))],
        );
        let r = call(&mut h, "tvm.topi.nn.relu", vec![x.clone()], &[]);
        for (path, arg) in [
            ("tvm.topi.x86.schedule_reduce", &y),
            ("tvm.topi.cuda.schedule_reduce", &y),
            ("tvm.topi.cuda.schedule_injective", &r),
            ("tvm.topi.x86.schedule_concatenate", &r),
        ] {
            let _ = try_call(&mut h, path, vec![arg.clone()], &[]);
        }
    }
}
