//! TOPI's pooling (`global_pool`, `adaptive_pool*`, `pool1d`, `pool3d`)
//! and normalisation operators (`flatten`, `lrn`, `layer_norm`,
//! `instance_norm`, `prelu`, `leaky_relu`, `scale_shift_*`): their stages
//! are TOPI's (names, tags, axes, shapes), the built programs compute on
//! random inputs what a direct evaluation of each operator's meaning
//! gives, and hostile arguments are errors, not panics.

use proptest::prelude::*;
use tvm_api::{ApiError, Host, Value};

mod topi_common;
use topi_common::*;

/// The stage's name, tag, axis names and the tensor's shape.
fn stage(t: &Value) -> (String, String, Vec<String>, String) {
    let op = attr(t, "op");
    let axes = tvm_api::iter(&attr(&op, "axis"))
        .unwrap()
        .iter()
        .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
        .collect();
    (
        tvm_api::str(&attr(&op, "name")),
        tvm_api::str(&attr(&op, "tag")),
        axes,
        tvm_api::repr(&attr(t, "shape")),
    )
}

fn input(t: &Value, i: usize) -> Value {
    tvm_api::iter(&attr(&attr(t, "op"), "input_tensors")).unwrap()[i].clone()
}

fn reduce_axes(t: &Value) -> Vec<String> {
    tvm_api::iter(&attr(&attr(t, "op"), "reduce_axis"))
        .unwrap()
        .iter()
        .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
        .collect()
}

fn strs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// `n` values spread over [-scale, scale), different for each seed,
/// exactly representable in float32.
fn data(n: usize, seed: u64, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|k| {
            let r = (k as u64 * 7919 + seed * 104_729 + 17) % 2000;
            ((r as f64 - 1000.0) / 1000.0 * scale) as f32 as f64
        })
        .collect()
}

fn close(got: &[f64], expected: &[f64], tol: f64) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), expected.len());
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        prop_assert!(
            (g - e).abs() <= tol * e.abs().max(1.0),
            "element {}: {} vs {}",
            i,
            g,
            e
        );
    }
    Ok(())
}

/// Every index of `shape`, in row-major order.
fn indices(shape: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &d in shape {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..d).map(move |i| {
                    let mut q = p.clone();
                    q.push(i);
                    q
                })
            })
            .collect();
    }
    out
}

fn at(x: &[f64], shape: &[i64], idx: &[i64]) -> f64 {
    let s = strides(shape);
    x[idx.iter().zip(&s).map(|(i, s)| i * s).sum::<i64>() as usize]
}

// ---------------------------------------------------------------- pooling

/// Adaptive pooling from its meaning: output `o` of an axis of `n`
/// elements pooled to `m` covers `[floor(o*n/m), ceil((o+1)*n/m))`.
fn adaptive_reference(x: &[f64], spatial: &[i64], out: &[i64], max: bool) -> Vec<f64> {
    let mut shape = vec![1, 2];
    shape.extend(spatial);
    let mut oshape = vec![1, 2];
    oshape.extend(out);
    indices(&oshape)
        .into_iter()
        .map(|o| {
            let ranges: Vec<(i64, i64)> = (0..spatial.len())
                .map(|d| {
                    let (n, m, i) = (spatial[d], out[d], o[d + 2]);
                    ((i * n).div_euclid(m), ((i + 1) * n + m - 1).div_euclid(m))
                })
                .collect();
            let window: Vec<i64> = ranges.iter().map(|(a, b)| b - a).collect();
            let mut acc = if max { f64::MIN } else { 0.0 };
            let count = window.iter().product::<i64>() as f64;
            for w in indices(&window) {
                let mut idx = o[..2].to_vec();
                idx.extend(w.iter().zip(&ranges).map(|(w, r)| w + r.0));
                let v = at(x, &shape, &idx);
                acc = if max { acc.max(v) } else { acc + v };
            }
            if max {
                acc
            } else {
                acc / count
            }
        })
        .collect()
}

#[derive(Debug, Clone)]
struct AdaptiveCase {
    spatial: Vec<i64>,
    out: Vec<i64>,
    max: bool,
    global: bool,
}

fn adaptive_case() -> impl Strategy<Value = AdaptiveCase> {
    (1usize..=3)
        .prop_flat_map(|k| {
            (
                prop::collection::vec((1i64..7, 1i64..7), k),
                any::<bool>(),
                any::<bool>(),
            )
        })
        .prop_map(|(dims, max, global)| {
            let k = dims.len();
            let spatial: Vec<i64> = dims.iter().map(|d| d.0).collect();
            let global = global && k == 2;
            let out = if global {
                vec![1, 1]
            } else {
                dims.iter().map(|d| d.1).collect()
            };
            AdaptiveCase {
                spatial,
                out,
                max,
                global,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `global_pool`, `adaptive_pool`, `adaptive_pool1d` and
    /// `adaptive_pool3d` pool each output's window as defined, for
    /// output sizes smaller and larger than the input.
    #[test]
    fn adaptive_pools_pool_as_defined(c in adaptive_case(), seed in 0u64..1000) {
        let h = &mut host();
        let mut shape = vec![1, 2];
        shape.extend(&c.spatial);
        let a = placeholder(h, &shape, "A");
        let kind = Value::str(if c.max { "max" } else { "avg" });
        let p = if c.global {
            call(h, "tvm.topi.nn.global_pool", vec![a.clone(), kind], &[])
        } else {
            let f = match c.spatial.len() {
                1 => "tvm.topi.nn.adaptive_pool1d",
                2 => "tvm.topi.nn.pooling.adaptive_pool",
                _ => "tvm.topi.nn.adaptive_pool3d",
            };
            call(h, f, vec![a.clone(), ints(&c.out), kind], &[])
        };
        let mut oshape = vec![1, 2];
        oshape.extend(&c.out);
        prop_assert_eq!(stage(&p).3, tvm_api::repr(&Value::list(oshape.iter().map(|&i| Value::Int(i)).collect())));
        let x = data(shape.iter().product::<i64>() as usize, seed, 100.0);
        let got = run(h, &[(&a, &x)], &p);
        close(&got, &adaptive_reference(&x, &c.spatial, &c.out, c.max), 1e-5)?;
    }
}

/// One `pool1d` or `pool3d` case on an input of one image, two channels.
#[derive(Debug, Clone)]
struct PoolCase {
    spatial: Vec<i64>,
    kernel: Vec<i64>,
    stride: Vec<i64>,
    dilation: Vec<i64>,
    /// Before each axis, then after each.
    pad: Vec<i64>,
    max: bool,
    ceil_mode: bool,
    count_include_pad: bool,
}

fn pool_case() -> impl Strategy<Value = PoolCase> {
    prop_oneof![Just(1usize), Just(3usize)]
        .prop_flat_map(|k| {
            (
                prop::collection::vec((3i64..7, 1i64..4, 1i64..3, 1i64..3), k),
                prop::collection::vec(0i64..2, 2 * k),
                (any::<bool>(), any::<bool>(), any::<bool>()),
            )
        })
        .prop_filter("the window fits in the padded input", |(axes, pad, _)| {
            let k = axes.len();
            axes.iter()
                .enumerate()
                .all(|(i, (n, kk, _, d))| (kk - 1) * d < n + pad[i] + pad[i + k])
        })
        .prop_map(
            |(axes, pad, (max, ceil_mode, count_include_pad))| PoolCase {
                spatial: axes.iter().map(|a| a.0).collect(),
                kernel: axes.iter().map(|a| a.1).collect(),
                stride: axes.iter().map(|a| a.2).collect(),
                dilation: axes.iter().map(|a| a.3).collect(),
                pad,
                max,
                ceil_mode,
                count_include_pad,
            },
        )
}

/// Pooling from its meaning: each output's dilated window over the input,
/// padding outside it (the lowest float32 for max, zero for average); an
/// average divides by the window's positions inside the declared padding
/// (`count_include_pad`) or inside the input. A window that `ceil_mode`
/// puts wholly beyond the declared padding divides by zero: `None`.
fn pool_reference(c: &PoolCase, x: &[f64]) -> (Vec<i64>, Vec<Option<f64>>) {
    let k = c.spatial.len();
    let out: Vec<i64> = (0..k)
        .map(|i| {
            let extra = if c.ceil_mode { c.stride[i] - 1 } else { 0 };
            (c.spatial[i] + c.pad[i] + c.pad[i + k] + extra - (c.kernel[i] - 1) * c.dilation[i] - 1)
                .div_euclid(c.stride[i])
                + 1
        })
        .collect();
    let mut shape = vec![1, 2];
    shape.extend(&c.spatial);
    let mut oshape = vec![1, 2];
    oshape.extend(&out);
    let low = f32::MIN as f64;
    let values = indices(&oshape)
        .into_iter()
        .map(|o| {
            let mut acc = if c.max { low } else { 0.0 };
            let (mut inside, mut counted) = (0, 0);
            for w in indices(&c.kernel) {
                let pos: Vec<i64> = (0..k)
                    .map(|i| o[i + 2] * c.stride[i] + w[i] * c.dilation[i] - c.pad[i])
                    .collect();
                let in_input = (0..k).all(|i| (0..c.spatial[i]).contains(&pos[i]));
                let declared =
                    (0..k).all(|i| (-c.pad[i]..c.spatial[i] + c.pad[i + k]).contains(&pos[i]));
                let v = if in_input {
                    let mut idx = o[..2].to_vec();
                    idx.extend(&pos);
                    at(x, &shape, &idx)
                } else if c.max {
                    low
                } else {
                    0.0
                };
                acc = if c.max { acc.max(v) } else { acc + v };
                inside += i64::from(in_input);
                counted += i64::from(declared);
            }
            if c.max {
                return Some(acc);
            }
            let n = if c.count_include_pad {
                counted
            } else {
                inside.max(1)
            };
            (n > 0).then(|| acc / n as f64)
        })
        .collect();
    (oshape, values)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `pool1d` and `pool3d` pool as defined: padded, strided, dilated,
    /// rounded up or down, padding counted or not.
    #[test]
    fn pool1d_and_pool3d_pool_as_defined(c in pool_case(), seed in 0u64..1000) {
        let h = &mut host();
        let mut shape = vec![1, 2];
        shape.extend(&c.spatial);
        let a = placeholder(h, &shape, "A");
        let f = if c.spatial.len() == 1 { "tvm.topi.nn.pool1d" } else { "tvm.topi.nn.pooling.pool3d" };
        let p = call(h, f, vec![
            a.clone(),
            ints(&c.kernel),
            ints(&c.stride),
            ints(&c.dilation),
            ints(&c.pad),
            Value::str(if c.max { "max" } else { "avg" }),
        ], &[
            ("ceil_mode", Value::Bool(c.ceil_mode)),
            ("count_include_pad", Value::Bool(c.count_include_pad)),
        ]);
        let x = data(shape.iter().product::<i64>() as usize, seed, 100.0);
        let (oshape, expected) = pool_reference(&c, &x);
        prop_assert_eq!(stage(&p).3, tvm_api::repr(&Value::list(oshape.iter().map(|&i| Value::Int(i)).collect())));
        let got = run(h, &[(&a, &x)], &p);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            if let Some(e) = e {
                prop_assert!((g - e).abs() <= 1e-4 * e.abs().max(1.0), "{} vs {}", g, e);
            }
        }
    }
}

#[test]
fn adaptive_and_global_pools_build_topis_stages() {
    let h = &mut host();
    let a = placeholder(h, &[1, 2048, 7, 7], "A");
    let g = call(
        h,
        "tvm.topi.nn.global_pool",
        vec![a.clone(), Value::str("avg")],
        &[],
    );
    assert_eq!(
        stage(&g),
        (
            "adaptive_pool_avg".into(),
            "elemwise".into(),
            strs(&["ax0", "ax1", "ax2", "ax3"]),
            "[1, 2048, 1, 1]".into()
        )
    );
    let sum = input(&g, 0);
    assert_eq!(stage(&sum).0, "adaptive_pool_sum");
    assert_eq!(stage(&sum).1, "adaptive_pool_sum");
    assert_eq!(reduce_axes(&sum), strs(&["rv0", "rv1"]));
    assert_eq!(stage(&input(&sum, 0)).0, "A");
    let m = call(
        h,
        "tvm.topi.nn.pooling.global_pool",
        vec![a.clone(), Value::str("max")],
        &[("layout", Value::str("NCHW"))],
    );
    assert_eq!(stage(&m).0, "adaptive_pool_max");
    assert_eq!(stage(&m).1, "adaptive_pool_max");
    assert_eq!(reduce_axes(&m), strs(&["rv0", "rv1"]));
    // NHWC pools the middle axes; NCHW16c has a split channel.
    let b = placeholder(h, &[1, 14, 14, 256], "B");
    let nhwc = call(
        h,
        "tvm.topi.nn.adaptive_pool",
        vec![b, ints(&[3, 5]), Value::str("max"), Value::str("NHWC")],
        &[],
    );
    assert_eq!(stage(&nhwc).3, "[1, 3, 5, 256]");
    let c = placeholder(h, &[1, 4, 9, 9, 16], "C");
    let blocked = call(
        h,
        "tvm.topi.nn.adaptive_pool",
        vec![c, ints(&[2, 2]), Value::str("avg")],
        &[("layout", Value::str("NCHW16c"))],
    );
    assert_eq!(stage(&blocked).3, "[1, 4, 2, 2, 16]");
    let d = placeholder(h, &[1, 8, 16], "D");
    let one = call(
        h,
        "tvm.topi.nn.adaptive_pool1d",
        vec![d, ints(&[4]), Value::str("avg")],
        &[],
    );
    assert_eq!(stage(&one).0, "adaptive_pool_avg");
    assert_eq!(stage(&one).3, "[1, 8, 4]");
    assert_eq!(reduce_axes(&input(&one, 0)), strs(&["rv0"]));
    let e = placeholder(h, &[1, 8, 4, 6, 6], "E");
    let three = call(
        h,
        "tvm.topi.nn.adaptive_pool3d",
        vec![e, ints(&[1, 2, 3]), Value::str("max")],
        &[],
    );
    assert_eq!(stage(&three).3, "[1, 8, 1, 2, 3]");
    assert_eq!(reduce_axes(&three), strs(&["rv0", "rv1", "rv2"]));
}

#[test]
fn pool1d_and_pool3d_build_topis_stages() {
    let h = &mut host();
    let a = placeholder(h, &[1, 64, 112], "A");
    let p = call(
        h,
        "tvm.topi.nn.pool1d",
        vec![
            a,
            Value::Int(3),
            Value::Int(2),
            ints(&[1]),
            ints(&[1, 1]),
            Value::str("max"),
        ],
        &[],
    );
    assert_eq!(
        stage(&p),
        (
            "pool_max".into(),
            "pool_max".into(),
            strs(&["ax0", "ax1", "ax2"]),
            "[1, 64, 56]".into()
        )
    );
    assert_eq!(stage(&input(&p, 0)).0, "pad_temp");
    let b = placeholder(h, &[1, 16, 8, 28, 28], "B");
    let q = call(
        h,
        "tvm.topi.nn.pool3d",
        vec![
            b,
            ints(&[2, 2, 2]),
            ints(&[2, 2, 2]),
            ints(&[1, 1, 1]),
            ints(&[0, 0, 0, 0, 0, 0]),
            Value::str("avg"),
        ],
        &[],
    );
    assert_eq!(
        stage(&q),
        (
            "pool_avg".into(),
            "elemwise".into(),
            strs(&["ax0", "ax1", "ax2", "ax3", "ax4"]),
            "[1, 16, 4, 14, 14]".into()
        )
    );
    let sum = input(&q, 0);
    assert_eq!(stage(&sum).0, "pool_sum");
    assert_eq!(reduce_axes(&sum), strs(&["rv0", "rv1", "rv2"]));
    // NDHWC pools the middle axes.
    let c = placeholder(h, &[1, 8, 28, 28, 16], "C");
    let r = call(
        h,
        "tvm.topi.nn.pool3d",
        vec![
            c,
            ints(&[2, 2, 2]),
            ints(&[2, 2, 2]),
            ints(&[1, 1, 1]),
            ints(&[0, 0, 0, 0, 0, 0]),
            Value::str("max"),
        ],
        &[("layout", Value::str("NDHWC"))],
    );
    assert_eq!(stage(&r).3, "[1, 4, 14, 14, 16]");
}

fn error(
    h: &mut dyn Host,
    path: &str,
    pos: Vec<Value>,
    kw: &[(&str, Value)],
    contains: &str,
) -> ApiError {
    match try_call(h, path, pos, kw) {
        Ok(v) => panic!("{path} accepted hostile input: {}", tvm_api::repr(&v)),
        Err(e) => {
            assert!(
                e.message.contains(contains),
                "{path}: `{}` does not say `{contains}`",
                e.message
            );
            e
        }
    }
}

#[test]
fn hostile_pool_arguments_are_errors() {
    let h = &mut host();
    let a = placeholder(h, &[1, 8, 7, 7], "A");
    let ap = "tvm.topi.nn.adaptive_pool";
    let max = || Value::str("max");
    error(
        h,
        ap,
        vec![a.clone(), ints(&[0, 1]), max()],
        &[],
        "at least 1",
    );
    error(
        h,
        ap,
        vec![a.clone(), ints(&[-3, 1]), max()],
        &[],
        "at least 1",
    );
    error(
        h,
        ap,
        vec![a.clone(), ints(&[1 << 62, 1]), max()],
        &[],
        "int32",
    );
    error(
        h,
        ap,
        vec![a.clone(), ints(&[1 << 30, 1]), max()],
        &[],
        "beyond int32",
    );
    error(
        h,
        ap,
        vec![a.clone(), ints(&[1, 1, 1]), max()],
        &[],
        "needs 2 sizes",
    );
    error(
        h,
        ap,
        vec![a.clone(), Value::str("x"), max()],
        &[],
        "list of 2",
    );
    error(
        h,
        ap,
        vec![a.clone(), ints(&[1, 1]), Value::str("median")],
        &[],
        "pool_type",
    );
    error(
        h,
        ap,
        vec![a.clone(), ints(&[1, 1]), Value::Int(5)],
        &[],
        "pool type code",
    );
    error(
        h,
        ap,
        vec![Value::Int(3), ints(&[1, 1]), max()],
        &[],
        "needs a tensor",
    );
    for (layout, why) in [
        ("NCHW16w", "cannot be split"),
        ("NCH", "no `W`"),
        ("NHHW", "twice"),
        ("NCHWW", "twice"),
        ("NCDHW", "axis 4 of a 4-dimensional"),
    ] {
        error(
            h,
            ap,
            vec![a.clone(), ints(&[1, 1]), max()],
            &[("layout", Value::str(layout))],
            why,
        );
    }
    error(
        h,
        "tvm.topi.nn.global_pool",
        vec![a.clone(), max()],
        &[("layout", Value::Int(4))],
        "string",
    );
    error(
        h,
        "tvm.topi.nn.global_pool",
        vec![a.clone(), max(), Value::str("NCHW"), Value::Int(1)],
        &[],
        "at most 3",
    );
    let b = placeholder(h, &[1, 8, 7], "B");
    let p1 = "tvm.topi.nn.pool1d";
    let args = |k: i64, s: i64, d: i64, pad: [i64; 2]| {
        vec![
            b.clone(),
            ints(&[k]),
            ints(&[s]),
            ints(&[d]),
            ints(&pad),
            Value::str("avg"),
        ]
    };
    error(h, p1, args(0, 1, 1, [0, 0]), &[], "`kernel`");
    error(h, p1, args(2, 0, 1, [0, 0]), &[], "`stride`");
    error(h, p1, args(2, 1, -1, [0, 0]), &[], "`dilation`");
    error(h, p1, args(2, 1, 1, [-1, 0]), &[], "`padding`");
    error(h, p1, args(2, 1, 1, [1 << 40, 0]), &[], "int32");
    error(h, p1, args(9, 1, 1, [0, 0]), &[], "does not fit");
    error(h, p1, args(3, 1, 1 << 30, [0, 0]), &[], "does not fit");
    let mut too_few = args(2, 1, 1, [0, 0]);
    too_few[4] = ints(&[0]);
    error(h, p1, too_few, &[], "needs 2 values");
    error(
        h,
        "tvm.topi.nn.pool3d",
        args(2, 1, 1, [0, 0]),
        &[],
        "of a 3-dimensional tensor",
    );
    error(
        h,
        "tvm.topi.nn.pool3d",
        args(2, 1, 1, [0, 0]),
        &[("layout", Value::str("NCW"))],
        "no `D`",
    );
}

// ---------------------------------------------------------- normalisation

#[test]
fn norm_operators_build_topis_stages() {
    let h = &mut host();
    let x = placeholder(h, &[1, 2048, 1, 1], "x");
    let f = call(h, "tvm.topi.nn.flatten.flatten", vec![x], &[]);
    assert_eq!(
        stage(&f),
        (
            "compute".into(),
            "injective".into(),
            strs(&["i", "j"]),
            "[1, 2048]".into()
        )
    );

    let d = placeholder(h, &[1, 96, 55, 55], "data");
    let l = call(h, "tvm.topi.nn.lrn", vec![d, Value::Int(5)], &[]);
    let ax4 = strs(&["ax0", "ax1", "ax2", "ax3"]);
    assert_eq!(
        stage(&l),
        (
            "T_divide".into(),
            "broadcast".into(),
            ax4.clone(),
            "[1, 96, 55, 55]".into()
        )
    );
    let up = input(&l, 1);
    assert_eq!(stage(&up).0, "tensor");
    assert_eq!(stage(&up).1, "elemwise");
    let sq = input(&up, 0);
    assert_eq!(
        (stage(&sq).0, stage(&sq).1),
        ("tensor".into(), "sqr_sum".into())
    );
    assert_eq!(reduce_axes(&sq), strs(&["rxs"]));
    let pad = input(&sq, 0);
    assert_eq!(stage(&pad).0, "pad_data");
    assert_eq!(stage(&pad).3, "[1, 100, 55, 55]");

    let x = placeholder(h, &[1, 128, 768], "x");
    let g = placeholder(h, &[768], "gamma");
    let b = placeholder(h, &[768], "beta");
    let ln = call(
        h,
        "tvm.topi.nn.layer_norm.layer_norm",
        vec![x.clone(), g.clone(), b, ints(&[-1])],
        &[("epsilon", Value::Float(1e-12))],
    );
    assert_eq!(
        stage(&ln),
        (
            "T_layer_norm".into(),
            "injective".into(),
            strs(&["ax0", "ax1", "ax2"]),
            "[1, 128, 768]".into()
        )
    );
    let red = tvm_api::iter(&attr(&attr(&ln, "op"), "input_tensors"))
        .unwrap()
        .into_iter()
        .find(|t| stage(t).0 == "x_red_temp")
        .expect("the tuple reduction");
    assert_eq!(stage(&red).1, "comm_reduce");
    assert_eq!(stage(&red).2, strs(&["ax0", "ax1"]));
    assert_eq!(reduce_axes(&red), strs(&["k2"]));
    let inorm = call(
        h,
        "tvm.topi.nn.instance_norm.instance_norm",
        vec![x.clone(), g, Value::None, ints(&[2])],
        &[],
    );
    assert_eq!(stage(&inorm).0, "T_instance_norm");

    let x = placeholder(h, &[1, 64, 56, 56], "x");
    let slope = placeholder(h, &[64], "slope");
    let p = call(h, "tvm.topi.nn.prelu", vec![x.clone(), slope], &[]);
    assert_eq!(
        stage(&p),
        (
            "compute".into(),
            "broadcast".into(),
            ax4.iter().map(|a| a.replace("ax", "i")).collect(),
            "[1, 64, 56, 56]".into()
        )
    );
    let lr = call(
        h,
        "tvm.topi.nn.elemwise.leaky_relu",
        vec![x.clone(), Value::Float(0.1)],
        &[],
    );
    assert_eq!(
        (stage(&lr).0, stage(&lr).1),
        ("compute".into(), "elemwise".into())
    );
    let sc = placeholder(h, &[64], "scale");
    let ss = call(
        h,
        "tvm.topi.nn.scale_shift_nchw",
        vec![x, sc.clone(), sc],
        &[],
    );
    assert_eq!(
        stage(&ss),
        (
            "ScaleShift".into(),
            "broadcast".into(),
            strs(&["b", "c", "i", "j"]),
            "[1, 64, 56, 56]".into()
        )
    );
    let y = placeholder(h, &[1, 4, 7, 7, 16], "y");
    let blocks = placeholder(h, &[4, 16], "blocks");
    let ssc = call(
        h,
        "tvm.topi.nn.mapping.scale_shift_nchwc",
        vec![y, blocks.clone(), blocks],
        &[],
    );
    assert_eq!(stage(&ssc).2, strs(&["b", "cc", "i", "j", "cb"]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// `flatten` keeps the row-major order of the elements.
    #[test]
    fn flatten_keeps_row_major_order(shape in prop::collection::vec(1i64..5, 1..5), seed in 0u64..1000) {
        let h = &mut host();
        let x = placeholder(h, &shape, "x");
        let f = call(h, "tvm.topi.nn.flatten.flatten", vec![x.clone()], &[]);
        let rest: i64 = shape[1..].iter().product();
        prop_assert_eq!(stage(&f).3, format!("[{}, {}]", shape[0], rest));
        let v = data(shape.iter().product::<i64>() as usize, seed, 10.0);
        let got = run(h, &[(&x, &v)], &f);
        prop_assert_eq!(got, v);
    }

    /// `lrn` divides by `(bias + alpha * sum / size) ^ beta`, the sum of the
    /// squares of the `size` neighbours along the channel axis.
    #[test]
    fn lrn_normalises_over_neighbours(
        dims in (1i64..3, 1i64..7, 1i64..4, 1i64..4),
        half in 0i64..3,
        nhwc in any::<bool>(),
        alpha in 0.0001f64..0.5,
        beta in 0.25f64..1.0,
        bias in 1.0f64..3.0,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let shape = [dims.0, dims.1, dims.2, dims.3];
        let axis = if nhwc { 3 } else { 1 };
        let size = 2 * half + 1;
        let x = placeholder(h, &shape, "x");
        let l = call(h, "tvm.topi.nn.local_response_norm.lrn", vec![
            x.clone(), Value::Int(size), Value::Int(axis),
            Value::Float(alpha), Value::Float(beta), Value::Float(bias),
        ], &[]);
        let v = data(shape.iter().product::<i64>() as usize, seed, 4.0);
        let (alpha, beta, bias) = (alpha as f32 as f64, beta as f32 as f64, bias as f32 as f64);
        let expected: Vec<f64> = indices(&shape).into_iter().map(|i| {
            let mut sum = 0.0;
            for c in i[axis as usize] - half..=i[axis as usize] + half {
                if (0..shape[axis as usize]).contains(&c) {
                    let mut j = i.clone();
                    j[axis as usize] = c;
                    sum += at(&v, &shape, &j).powi(2);
                }
            }
            at(&v, &shape, &i) / (bias + alpha * sum / size as f64).powf(beta)
        }).collect();
        let got = run(h, &[(&x, &v)], &l);
        close(&got, &expected, 1e-4)?;
    }

    /// `layer_norm` and `instance_norm` normalise over the given axes to
    /// zero mean and unit variance, then scale by gamma and shift by beta.
    #[test]
    fn layer_norm_normalises_over_its_axes(
        shape in prop::collection::vec(1i64..5, 2..4),
        pick in prop::collection::vec(any::<bool>(), 4),
        with_beta in any::<bool>(),
        instance in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let n = shape.len();
        let mut axes: Vec<usize> = (0..n).filter(|&i| pick[i]).collect();
        if axes.is_empty() { axes.push(n - 1); }
        if axes.len() == n { axes.remove(0); }
        let h = &mut host();
        let x = placeholder(h, &shape, "x");
        let red_shape: Vec<i64> = axes.iter().map(|&i| shape[i]).collect();
        let g = placeholder(h, &red_shape, "gamma");
        let b = placeholder(h, &red_shape, "beta");
        let f = if instance { "tvm.topi.nn.instance_norm.instance_norm" } else { "tvm.topi.nn.layer_norm.layer_norm" };
        // Negative axes count from the end.
        let axis_values: Vec<i64> = axes.iter().map(|&a| a as i64 - n as i64).collect();
        let out = call(h, f, vec![
            x.clone(), g.clone(), if with_beta { b.clone() } else { Value::None },
            ints(&axis_values), Value::Float(1e-5),
        ], &[]);
        let v = data(shape.iter().product::<i64>() as usize, seed, 2.0);
        let gv = data(red_shape.iter().product::<i64>() as usize, seed + 1, 2.0);
        let bv = data(red_shape.iter().product::<i64>() as usize, seed + 2, 2.0);
        let count = red_shape.iter().product::<i64>() as f64;
        let expected: Vec<f64> = indices(&shape).into_iter().map(|i| {
            let kept: Vec<i64> = (0..n).filter(|d| !axes.contains(d)).map(|d| i[d]).collect();
            let members: Vec<f64> = indices(&shape).into_iter().filter(|j| {
                (0..n).filter(|d| !axes.contains(d)).map(|d| j[d]).collect::<Vec<_>>() == kept
            }).map(|j| at(&v, &shape, &j)).collect();
            let mean = members.iter().sum::<f64>() / count;
            let var = members.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / count;
            let r: Vec<i64> = axes.iter().map(|&d| i[d]).collect();
            let norm = (at(&v, &shape, &i) - mean) / (var + 1e-5).sqrt();
            norm * at(&gv, &red_shape, &r) + if with_beta { at(&bv, &red_shape, &r) } else { 0.0 }
        }).collect();
        let mut inputs: Vec<(&Value, &[f64])> = vec![(&x, &v), (&g, &gv)];
        if with_beta { inputs.push((&b, &bv)); }
        let got = run(h, &inputs, &out);
        // float32 sums of squares: a variance near zero loses digits.
        close(&got, &expected, 2e-2)?;
    }

    /// `prelu` scales the negative elements by their channel's slope,
    /// `leaky_relu` by alpha; `scale_shift_*` is `x * scale[c] + shift[c]`.
    #[test]
    fn elementwise_norms_compute_as_defined(
        dims in (1i64..3, 1i64..5, 1i64..4, 1i64..4),
        axis in 0i64..4,
        alpha in -1.0f64..1.0,
        layout in 0usize..3,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let shape = [dims.0, dims.1, dims.2, dims.3];
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 8.0);
        let slope = placeholder(h, &[shape[axis as usize]], "slope");
        let sv = data(shape[axis as usize] as usize, seed + 5, 1.0);
        let p = call(h, "tvm.topi.nn.prelu", vec![x.clone(), slope.clone()], &[("axis", Value::Int(axis))]);
        let expected: Vec<f64> = indices(&shape).into_iter().map(|i| {
            let e = at(&v, &shape, &i);
            if e > 0.0 { e } else { e * sv[i[axis as usize] as usize] }
        }).collect();
        close(&run(h, &[(&x, &v), (&slope, &sv)], &p), &expected, 1e-6)?;

        let lr = call(h, "tvm.topi.nn.leaky_relu", vec![x.clone(), Value::Float(alpha)], &[]);
        let a32 = alpha as f32 as f64;
        let expected: Vec<f64> = v.iter().map(|&e| if e > 0.0 { e } else { ((e * a32) as f32) as f64 }).collect();
        close(&run(h, &[(&x, &v)], &lr), &expected, 1e-6)?;

        let (f, channel): (&str, &[usize]) = match layout {
            0 => ("tvm.topi.nn.scale_shift_nchw", &[1]),
            1 => ("tvm.topi.nn.scale_shift_nhwc", &[3]),
            _ => ("tvm.topi.nn.scale_shift_nchwc", &[1, 3]),
        };
        let xs: Vec<i64> = if layout == 2 { vec![dims.0, dims.1, dims.2, 2, dims.3] } else { shape.to_vec() };
        let channel: Vec<usize> = if layout == 2 { vec![1, 4] } else { channel.to_vec() };
        let cshape: Vec<i64> = channel.iter().map(|&c| xs[c]).collect();
        let x2 = placeholder(h, &xs, "x2");
        let sc = placeholder(h, &cshape, "scale");
        let sh = placeholder(h, &cshape, "shift");
        let n2 = xs.iter().product::<i64>() as usize;
        let nc = cshape.iter().product::<i64>() as usize;
        let (v2, scv, shv) = (data(n2, seed, 8.0), data(nc, seed + 1, 2.0), data(nc, seed + 2, 2.0));
        let out = call(h, f, vec![x2.clone(), sc.clone(), sh.clone()], &[]);
        let expected: Vec<f64> = indices(&xs).into_iter().map(|i| {
            let c: Vec<i64> = channel.iter().map(|&d| i[d]).collect();
            at(&v2, &xs, &i) * at(&scv, &cshape, &c) + at(&shv, &cshape, &c)
        }).collect();
        close(&run(h, &[(&x2, &v2), (&sc, &scv), (&sh, &shv)], &out), &expected, 1e-5)?;
    }
}

#[test]
fn hostile_norm_arguments_are_errors() {
    let h = &mut host();
    let x = placeholder(h, &[1, 8, 4, 4], "x");
    let lrn = "tvm.topi.nn.lrn";
    error(h, lrn, vec![x.clone(), Value::Int(4)], &[], "odd");
    error(h, lrn, vec![x.clone(), Value::Int(-1)], &[], "odd");
    error(h, lrn, vec![x.clone(), Value::Int(1 << 40)], &[], "int32");
    error(
        h,
        lrn,
        vec![x.clone(), Value::Int(3), Value::Int(2)],
        &[],
        "1 or 3",
    );
    error(
        h,
        lrn,
        vec![x.clone(), Value::Int(3)],
        &[("alpha", Value::Float(f64::NAN))],
        "finite",
    );
    error(h, lrn, vec![x.clone(), Value::str("3")], &[], "integer");
    let v = placeholder(h, &[8, 4], "v");
    error(h, lrn, vec![v.clone(), Value::Int(3)], &[], "4-D");
    let xi = call(
        h,
        "te.placeholder",
        vec![ints(&[1, 8, 4, 4])],
        &[("dtype", Value::str("int32"))],
    );
    error(h, lrn, vec![xi.clone(), Value::Int(3)], &[], "float");

    let ln = "tvm.topi.nn.layer_norm.layer_norm";
    let g4 = placeholder(h, &[4], "g4");
    let g5 = placeholder(h, &[5], "g5");
    error(
        h,
        ln,
        vec![v.clone(), g4.clone(), g4.clone(), ints(&[2])],
        &[],
        "out of range",
    );
    error(
        h,
        ln,
        vec![v.clone(), g4.clone(), g4.clone(), ints(&[-3])],
        &[],
        "out of range",
    );
    error(
        h,
        ln,
        vec![v.clone(), g5.clone(), g5, ints(&[1])],
        &[],
        "`gamma`",
    );
    error(
        h,
        ln,
        vec![v.clone(), g4.clone(), g4.clone(), Value::Int(1)],
        &[],
        "list of integers",
    );
    error(
        h,
        ln,
        vec![v.clone(), g4.clone(), g4.clone(), ints(&[0, 1])],
        &[],
        "every axis",
    );
    error(
        h,
        ln,
        vec![v.clone(), Value::Int(1), g4.clone(), ints(&[1])],
        &[],
        "needs a tensor",
    );
    let gi = call(
        h,
        "te.placeholder",
        vec![ints(&[4])],
        &[("dtype", Value::str("int32"))],
    );
    error(
        h,
        ln,
        vec![v.clone(), gi.clone(), gi, ints(&[1])],
        &[],
        "same type",
    );

    let s7 = placeholder(h, &[7], "s7");
    let s8 = placeholder(h, &[8], "s8");
    error(
        h,
        "tvm.topi.nn.prelu",
        vec![x.clone(), s7.clone()],
        &[],
        "slope has 7",
    );
    error(
        h,
        "tvm.topi.nn.prelu",
        vec![x.clone(), s8.clone()],
        &[("axis", Value::Int(4))],
        "out of range",
    );
    error(
        h,
        "tvm.topi.nn.prelu",
        vec![x.clone(), v.clone()],
        &[],
        "one-dimensional",
    );
    error(
        h,
        "tvm.topi.nn.leaky_relu",
        vec![x.clone(), Value::str("a")],
        &[],
        "number",
    );
    error(h, "tvm.topi.nn.leaky_relu", vec![x.clone()], &[], "`alpha`");
    error(
        h,
        "tvm.topi.nn.scale_shift_nchw",
        vec![x.clone(), s7.clone(), s8.clone()],
        &[],
        "`Scale`",
    );
    error(
        h,
        "tvm.topi.nn.scale_shift_nhwc",
        vec![x.clone(), s8.clone(), s8.clone()],
        &[],
        "`Scale`",
    );
    error(
        h,
        "tvm.topi.nn.scale_shift_nchwc",
        vec![x.clone(), s8.clone(), s8],
        &[],
        "5-dimensional",
    );
    let scalar = placeholder(h, &[], "scalar");
    error(
        h,
        "tvm.topi.nn.flatten.flatten",
        vec![scalar],
        &[],
        "at least one dimension",
    );
    let huge = placeholder(h, &[1, 1 << 31, 1 << 31, 1 << 31], "huge");
    error(
        h,
        "tvm.topi.nn.flatten.flatten",
        vec![huge],
        &[],
        "overflow",
    );
}

#[test]
fn group_norm_builds_topis_stages() {
    let h = &mut host();
    let x = placeholder(h, &[1, 320, 16, 16], "x");
    let g = placeholder(h, &[320], "gamma");
    let out = call(
        h,
        "tvm.topi.nn.group_norm.group_norm",
        vec![
            x,
            g.clone(),
            g,
            Value::Int(32),
            Value::Int(1),
            ints(&[2, 3]),
        ],
        &[],
    );
    assert_eq!(
        stage(&out),
        (
            "T_reshape".into(),
            "injective".into(),
            strs(&["ax0", "ax1", "ax2", "ax3"]),
            "[1, 320, 16, 16]".into()
        )
    );
    let gn = input(&out, 0);
    assert_eq!(stage(&gn).0, "T_group_norm");
    assert_eq!(stage(&gn).1, "injective");
    assert_eq!(stage(&gn).3, "[1, 32, 10, 16, 16]");
    let red = tvm_api::iter(&attr(&attr(&gn, "op"), "input_tensors"))
        .unwrap()
        .into_iter()
        .find(|t| stage(t).0 == "x_red_temp")
        .expect("the tuple reduction");
    assert_eq!(reduce_axes(&red), strs(&["k2", "k3", "k4"]));
    assert_eq!(stage(&red).3, "[1, 32]");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// `group_norm` normalises each group of channels (with the other
    /// given axes) to zero mean and unit variance, then scales and shifts
    /// per channel.
    #[test]
    fn group_norm_normalises_each_group(
        n in 1i64..3, groups in 1i64..4, per in 1i64..4, hw in (1i64..4, 1i64..4),
        with_hw in any::<bool>(), affine in any::<bool>(), seed in 0u64..1000,
    ) {
        let c = groups * per;
        let shape = [n, c, hw.0, hw.1];
        let h = &mut host();
        let x = placeholder(h, &shape, "x");
        let g = placeholder(h, &[c], "gamma");
        let b = placeholder(h, &[c], "beta");
        let axes: Vec<i64> = if with_hw { vec![2, 3] } else { vec![] };
        let opt = |t: &Value| if affine { t.clone() } else { Value::None };
        let out = call(h, "tvm.topi.nn.group_norm.group_norm", vec![
            x.clone(), opt(&g), opt(&b), Value::Int(groups), Value::Int(1), ints(&axes),
        ], &[]);
        let v = data(shape.iter().product::<i64>() as usize, seed, 2.0);
        let gv = data(c as usize, seed + 1, 2.0);
        let bv = data(c as usize, seed + 2, 2.0);
        let expected: Vec<f64> = indices(&shape).into_iter().map(|i| {
            let same = |j: &Vec<i64>| j[0] == i[0] && j[1] / per == i[1] / per
                && (with_hw || (j[2] == i[2] && j[3] == i[3]));
            let members: Vec<f64> = indices(&shape).into_iter().filter(same).map(|j| at(&v, &shape, &j)).collect();
            let count = members.len() as f64;
            let mean = members.iter().sum::<f64>() / count;
            let var = members.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / count;
            let norm = (at(&v, &shape, &i) - mean) / (var + 1e-5).sqrt();
            let ch = i[1] as usize;
            if affine { norm * gv[ch] + bv[ch] } else { norm }
        }).collect();
        let mut inputs: Vec<(&Value, &[f64])> = vec![(&x, &v)];
        if affine { inputs.push((&g, &gv)); inputs.push((&b, &bv)); }
        close(&run(h, &inputs, &out), &expected, 2e-2)?;
    }
}

#[test]
fn hostile_group_norm_arguments_are_errors() {
    let h = &mut host();
    let x = placeholder(h, &[1, 6, 4, 4], "x");
    let g = placeholder(h, &[6], "g");
    let g5 = placeholder(h, &[5], "g5");
    let gn = "tvm.topi.nn.group_norm.group_norm";
    let args = |groups: i64, channel: i64, axes: &[i64], gamma: &Value| {
        vec![
            x.clone(),
            gamma.clone(),
            Value::None,
            Value::Int(groups),
            Value::Int(channel),
            ints(axes),
        ]
    };
    error(h, gn, args(4, 1, &[2, 3], &g), &[], "do not split");
    error(h, gn, args(0, 1, &[2, 3], &g), &[], "at least 1");
    error(h, gn, args(-2, 1, &[2, 3], &g), &[], "at least 1");
    error(h, gn, args(1 << 40, 1, &[2, 3], &g), &[], "int32");
    error(h, gn, args(2, 4, &[2, 3], &g), &[], "out of range");
    error(h, gn, args(2, 1, &[1, 2], &g), &[], "channel axis");
    error(h, gn, args(2, 1, &[-5], &g), &[], "out of range");
    error(h, gn, args(2, 1, &[2, 3], &g5), &[], "`gamma`");
}

/// Where a mirror-padded axis of size `n` reads its input at output
/// index `o`: numpy's `reflect` (the edge not repeated) or `symmetric`
/// (repeated) padding, by walking back into the axis.
fn mirrored(o: i64, before: i64, n: i64, symmetric: bool) -> i64 {
    let i = o - before;
    if i < 0 {
        if symmetric {
            -i - 1
        } else {
            -i
        }
    } else if i >= n {
        if symmetric {
            2 * n - 1 - i
        } else {
            2 * n - 2 - i
        }
    } else {
        i
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `mirror_pad` reads each padded axis mirrored at its edges.
    #[test]
    fn mirror_pad_mirrors_each_axis(
        shape in prop::collection::vec(2i64..5, 1..4),
        pads in prop::collection::vec((0i64..3, 0i64..3), 3),
        symmetric in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        // REFLECT may pad at most the axis' size less one.
        let limit = |n: i64| if symmetric { n } else { n - 1 };
        let before: Vec<i64> = shape.iter().zip(&pads).map(|(&n, p)| p.0.min(limit(n))).collect();
        let after: Vec<i64> = shape.iter().zip(&pads).map(|(&n, p)| p.1.min(limit(n))).collect();
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 4.0);
        let mode = if symmetric { "SYMMETRIC" } else { "REFLECT" };
        let out = call(
            h,
            "tvm.topi.nn.mirror_pad",
            vec![x.clone(), ints(&before), ints(&after)],
            &[("mode", Value::str(mode))],
        );
        let out_shape: Vec<i64> = (0..shape.len()).map(|d| shape[d] + before[d] + after[d]).collect();
        prop_assert_eq!(stage(&out).3, format!("{out_shape:?}"));
        let expected: Vec<f64> = indices(&out_shape).into_iter().map(|o| {
            let i: Vec<i64> = (0..shape.len()).map(|d| mirrored(o[d], before[d], shape[d], symmetric)).collect();
            at(&v, &shape, &i)
        }).collect();
        close(&run(h, &[(&x, &v)], &out), &expected, 0.0)?;
    }
}

#[test]
fn mirror_pad_builds_topis_stage_and_refuses_bad_padding() {
    let h = &mut host();
    let x = placeholder(h, &[1, 3, 6, 7], "x");
    let out = call(
        h,
        "tvm.topi.nn.mirror_pad",
        vec![x.clone(), ints(&[0, 0, 3, 3])],
        &[("mode", Value::str("REFLECT"))],
    );
    assert_eq!(
        stage(&out),
        (
            "MirrorPadInput".to_string(),
            "injective,pad".to_string(),
            strs(&["i0", "i1", "i2", "i3"]),
            "[1, 3, 12, 13]".to_string()
        )
    );
    let mp = "tvm.topi.nn.mirror_pad";
    // REFLECT by the whole axis would read outside it.
    error(
        h,
        mp,
        vec![x.clone(), ints(&[0, 0, 6, 0])],
        &[("mode", Value::str("REFLECT"))],
        "between 0",
    );
    error(
        h,
        mp,
        vec![x.clone(), ints(&[0, 0, 7, 0])],
        &[],
        "between 0",
    );
    error(
        h,
        mp,
        vec![x.clone(), ints(&[0, 0, -1, 0])],
        &[],
        "between 0",
    );
    error(h, mp, vec![x.clone(), ints(&[0, 0, 1])], &[], "4 values");
    error(
        h,
        mp,
        vec![x.clone(), ints(&[0, 0, 1, 1])],
        &[("mode", Value::str("EDGE"))],
        "SYMMETRIC",
    );
    error(
        h,
        mp,
        vec![x.clone(), ints(&[0, 0, 1, 1])],
        &[("mode", Value::Int(1))],
        "string",
    );
}
