//! TOPI's operators that TVM's tests and TOPI-built programs call
//! (`topi.nn.pool2d`, `topi.sum`, `topi.add`): their stages are TOPI's
//! (names, tags, shapes), and the built programs compute, on random
//! inputs, what a direct evaluation of the operator's meaning gives.

use proptest::prelude::*;
use tvm_api::{Args, Host, Value};

mod topi_common;
use topi_common::*;

fn call(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)]) -> Value {
    let f = tvm_api::resolve(path).unwrap_or_else(|| panic!("{path} resolves"));
    let args = Args {
        positional: pos,
        keywords: kw
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    };
    tvm_api::call(h, &f, args).unwrap_or_else(|e| panic!("{path}: {}", e.message))
}

/// One pooling case on an NCHW input of one image and one channel.
#[derive(Debug, Clone)]
struct PoolCase {
    h: i64,
    w: i64,
    kernel: (i64, i64),
    stride: (i64, i64),
    dilation: (i64, i64),
    /// top, left, bottom, right
    pad: [i64; 4],
    max: bool,
    ceil_mode: bool,
    count_include_pad: bool,
}

fn pool_case() -> impl Strategy<Value = PoolCase> {
    (
        (3i64..8, 3i64..8),
        ((1i64..4, 1i64..4), (1i64..3, 1i64..3), (1i64..3, 1i64..3)),
        prop::array::uniform4(0i64..2),
        (any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_filter(
            "the window fits in the padded input",
            |((h, w), ((kh, kw), _, (dh, dw)), pad, _)| {
                (kh - 1) * dh < h + pad[0] + pad[2] && (kw - 1) * dw < w + pad[1] + pad[3]
            },
        )
        .prop_map(
            |((h, w), (kernel, stride, dilation), pad, (max, ceil_mode, count_include_pad))| {
                PoolCase {
                    h,
                    w,
                    kernel,
                    stride,
                    dilation,
                    pad,
                    max,
                    ceil_mode,
                    count_include_pad,
                }
            },
        )
}

/// Pooling evaluated from its meaning: the window of each output element
/// over the input, padding outside it (the lowest float for max, zero for
/// average); an average divides by the window's elements, padding counted
/// when `count_include_pad` (only the padding declared, not the extra rows
/// `ceil_mode` adds), else by the input elements it covers. An average
/// window that `ceil_mode` places wholly beyond the declared padding
/// divides by zero (in TVM as well): its element is `None`, not compared.
fn pool_reference(c: &PoolCase, x: &[f64]) -> (Vec<i64>, Vec<Option<f64>>) {
    let out_dim = |n: i64, k: i64, s: i64, d: i64, before: i64, after: i64| {
        let extra = if c.ceil_mode { s - 1 } else { 0 };
        (n + before + after + extra - (k - 1) * d - 1).div_euclid(s) + 1
    };
    let oh = out_dim(
        c.h,
        c.kernel.0,
        c.stride.0,
        c.dilation.0,
        c.pad[0],
        c.pad[2],
    );
    let ow = out_dim(
        c.w,
        c.kernel.1,
        c.stride.1,
        c.dilation.1,
        c.pad[1],
        c.pad[3],
    );
    let mut out = Vec::new();
    for i in 0..oh {
        for j in 0..ow {
            let mut acc = if c.max { f32::MIN as f64 } else { 0.0 };
            let mut inside = 0i64;
            let mut counted = 0i64;
            for a in 0..c.kernel.0 {
                for b in 0..c.kernel.1 {
                    let y = i * c.stride.0 + a * c.dilation.0 - c.pad[0];
                    let z = j * c.stride.1 + b * c.dilation.1 - c.pad[1];
                    let in_input = (0..c.h).contains(&y) && (0..c.w).contains(&z);
                    let in_declared = (-c.pad[0]..c.h + c.pad[2]).contains(&y)
                        && (-c.pad[1]..c.w + c.pad[3]).contains(&z);
                    let v = if in_input {
                        x[(y * c.w + z) as usize]
                    } else if c.max {
                        f32::MIN as f64
                    } else {
                        0.0
                    };
                    if c.max {
                        acc = acc.max(v);
                    } else {
                        acc += v;
                    }
                    inside += i64::from(in_input);
                    counted += i64::from(in_declared);
                }
            }
            if !c.max {
                let n = if c.count_include_pad {
                    counted
                } else {
                    inside.max(1)
                };
                if n == 0 {
                    out.push(None);
                    continue;
                }
                acc /= n as f64;
            }
            out.push(Some(acc));
        }
    }
    (vec![1, 1, oh, ow], out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// `topi.nn.pool2d` computes max and average pooling, padded, strided,
    /// dilated, rounded up or down, as pooling is defined.
    #[test]
    fn pool2d_pools_as_defined(c in pool_case(), seed in 0u64..1000) {
        let h = &mut host();
        let a = placeholder(h, &[1, 1, c.h, c.w], "A");
        let p = call(h, "tvm.topi.nn.pool2d", vec![
            a.clone(),
            ints(&[c.kernel.0, c.kernel.1]),
            ints(&[c.stride.0, c.stride.1]),
            ints(&[c.dilation.0, c.dilation.1]),
            ints(&c.pad),
            Value::str(if c.max { "max" } else { "avg" }),
        ], &[
            ("ceil_mode", Value::Bool(c.ceil_mode)),
            ("count_include_pad", Value::Bool(c.count_include_pad)),
        ]);
        let x: Vec<f64> = (0..c.h * c.w)
            .map(|k| (((k as u64 * 7919 + seed * 104729) % 2000) as f64 - 1000.0) / 8.0)
            .collect();
        let (shape, expected) = pool_reference(&c, &x);
        prop_assert_eq!(tvm_api::repr(&attr(&p, "shape")), tvm_api::repr(&Value::list(shape.iter().map(|&i| Value::Int(i)).collect())));
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
fn pool2d_builds_topis_stages() {
    let h = &mut host();
    let a = placeholder(h, &[1, 64, 112, 112], "A");
    let max = call(
        h,
        "tvm.topi.nn.pooling.pool2d",
        vec![
            a.clone(),
            ints(&[3, 3]),
            ints(&[2, 2]),
            ints(&[1, 1]),
            ints(&[1, 1, 1, 1]),
            Value::str("max"),
        ],
        &[],
    );
    let op = attr(&max, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), "pool_max");
    assert_eq!(tvm_api::str(&attr(&op, "tag")), "pool_max");
    assert_eq!(tvm_api::repr(&attr(&max, "shape")), "[1, 64, 56, 56]");
    let input = tvm_api::iter(&attr(&op, "input_tensors")).unwrap()[0].clone();
    assert_eq!(tvm_api::str(&attr(&attr(&input, "op"), "name")), "pad_temp");
    // No padding: no pad stage. An average is a sum then a division.
    let avg = call(
        h,
        "tvm.topi.nn.pool2d",
        vec![
            a.clone(),
            ints(&[2, 2]),
            ints(&[2, 2]),
            ints(&[1, 1]),
            ints(&[0, 0, 0, 0]),
            Value::str("avg"),
        ],
        &[],
    );
    let op = attr(&avg, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), "pool_avg");
    assert_eq!(tvm_api::str(&attr(&op, "tag")), "elemwise");
    let sum = tvm_api::iter(&attr(&op, "input_tensors")).unwrap()[0].clone();
    assert_eq!(tvm_api::str(&attr(&attr(&sum, "op"), "name")), "pool_sum");
    let read = tvm_api::iter(&attr(&attr(&sum, "op"), "input_tensors")).unwrap()[0].clone();
    assert_eq!(tvm_api::str(&attr(&attr(&read, "op"), "name")), "A");
    // NHWC pools its middle axes.
    let b = placeholder(h, &[1, 35, 35, 192], "B");
    let nhwc = call(
        h,
        "tvm.topi.nn.pool2d",
        vec![
            b,
            ints(&[3, 3]),
            ints(&[1, 1]),
            ints(&[1, 1]),
            ints(&[1, 1, 1, 1]),
            Value::str("avg"),
        ],
        &[("layout", Value::str("NHWC"))],
    );
    assert_eq!(tvm_api::repr(&attr(&nhwc, "shape")), "[1, 35, 35, 192]");
    let f = tvm_api::resolve("tvm.topi.nn.pool2d").unwrap();
    let bad = tvm_api::call(
        h,
        &f,
        Args::positional(vec![
            a,
            ints(&[3, 3]),
            ints(&[1, 1]),
            ints(&[1, 1]),
            ints(&[0, 0, 0, 0]),
            Value::str("median"),
        ]),
    )
    .unwrap_err();
    assert_eq!(
        bad.message,
        "unknown pool_type `median`: use \"max\" or \"avg\""
    );
}

#[test]
fn sum_and_add_reduce_and_broadcast_as_numpy_does() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3, 4], "A");
    let s = call(
        h,
        "tvm.topi.sum",
        vec![a.clone()],
        &[("axis", ints(&[0, 2])), ("keepdims", Value::Bool(true))],
    );
    assert_eq!(tvm_api::repr(&attr(&s, "shape")), "[1, 3, 1]");
    assert_eq!(tvm_api::str(&attr(&attr(&s, "op"), "name")), "A_red");
    assert_eq!(tvm_api::str(&attr(&attr(&s, "op"), "tag")), "comm_reduce");
    let x: Vec<f64> = (0..24).map(|k| k as f64 * 0.5 - 3.0).collect();
    let got = run(h, &[(&a, &x)], &s);
    let expected: Vec<f64> = (0..3)
        .map(|j| {
            (0..2)
                .flat_map(|i| (0..4).map(move |k| (i, k)))
                .map(|(i, k)| x[i * 12 + j * 4 + k])
                .sum()
        })
        .collect();
    assert_eq!(got, expected);
    let all = call(h, "tvm.topi.sum", vec![a.clone()], &[]);
    assert_eq!(tvm_api::repr(&attr(&all, "shape")), "[]");

    let b = placeholder(h, &[3, 1], "B");
    let c = call(h, "tvm.topi.add", vec![a.clone(), b.clone()], &[]);
    assert_eq!(tvm_api::repr(&attr(&c, "shape")), "[2, 3, 4]");
    assert_eq!(tvm_api::str(&attr(&attr(&c, "op"), "name")), "T_add");
    assert_eq!(tvm_api::str(&attr(&attr(&c, "op"), "tag")), "broadcast");
    let y = [10.0, 20.0, 30.0];
    let got = run(h, &[(&a, &x), (&b, &y)], &c);
    let expected: Vec<f64> = (0..24).map(|k| x[k] + y[(k / 4) % 3]).collect();
    assert_eq!(got, expected);
    let d = placeholder(h, &[5], "D");
    let f = tvm_api::resolve("tvm.topi.add").unwrap();
    let bad = tvm_api::call(h, &f, Args::positional(vec![a, d])).unwrap_err();
    assert!(bad.message.contains("cannot broadcast"), "{}", bad.message);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `topi.reshape` reads the input in row-major order, whatever the two
    /// shapes: the output's flat elements are the input's.
    #[test]
    fn reshape_keeps_row_major_order(
        dims in prop::collection::vec(1i64..4, 1..4),
        split in prop::collection::vec(1i64..4, 1..4),
    ) {
        let h = &mut host();
        let n: i64 = dims.iter().product();
        // A target shape of the same size: `split`'s factors of `n` where
        // they divide, the rest in a last dimension.
        let mut target = Vec::new();
        let mut left = n;
        for f in split {
            if left % f == 0 {
                target.push(f);
                left /= f;
            }
        }
        target.push(left);
        let a = placeholder(h, &dims, "A");
        let r = call(h, "tvm.topi.reshape", vec![a.clone(), ints(&target)], &[]);
        prop_assert_eq!(tvm_api::str(&attr(&attr(&r, "op"), "name")), "T_reshape");
        prop_assert_eq!(tvm_api::str(&attr(&attr(&r, "op"), "tag")), "injective");
        let x: Vec<f64> = (0..n).map(|k| k as f64 * 1.5 - 4.0).collect();
        prop_assert_eq!(run(h, &[(&a, &x)], &r), x);
    }
}

#[test]
fn reshape_refuses_a_different_number_of_elements() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3], "A");
    let f = tvm_api::resolve("tvm.topi.reshape").unwrap();
    let bad = tvm_api::call(h, &f, Args::positional(vec![a.clone(), ints(&[4, 2])])).unwrap_err();
    assert!(
        bad.message.contains("6 elements into a shape of 8"),
        "{}",
        bad.message
    );
    let bad = tvm_api::call(h, &f, Args::positional(vec![a.clone(), ints(&[-1, 2])])).unwrap_err();
    assert!(bad.message.contains("negative size -1"), "{}", bad.message);
    let huge = ints(&[1 << 40, 1 << 40]);
    let bad = tvm_api::call(h, &f, Args::positional(vec![a, huge])).unwrap_err();
    assert!(
        bad.message.contains("more elements than"),
        "{}",
        bad.message
    );
}

#[test]
fn math_operators_and_casts_apply_element_by_element() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3], "A");
    let x: Vec<f64> = (0..6).map(|k| k as f64 * 0.25 + 0.5).collect();
    type Reference = fn(f64) -> f64;
    let cases: [(&str, Reference); 5] = [
        ("tvm.topi.sqrt", f64::sqrt),
        ("tvm.topi.math.exp", f64::exp),
        ("tvm.topi.negative", |v| -v),
        ("tvm.topi.identity", |v| v),
        ("tvm.topi.erf", |v| libm_erf(v)),
    ];
    for (path, f) in cases {
        let y = call(h, path, vec![a.clone()], &[]);
        assert_eq!(tvm_api::str(&attr(&attr(&y, "op"), "name")), "compute");
        assert_eq!(tvm_api::str(&attr(&attr(&y, "op"), "tag")), "elemwise");
        let got = run(h, &[(&a, &x)], &y);
        for (g, v) in got.iter().zip(&x) {
            let want = f(*v) as f32 as f64;
            assert!(
                (g - want).abs() <= 1e-6 * want.abs().max(1.0),
                "{path}({v}) = {g}, not {want}"
            );
        }
    }
    // `Tensor.astype` is TOPI's cast, as TOPI binds it.
    let astype = attr(&a, "astype");
    let c = tvm_api::call(h, &astype, Args::positional(vec![Value::str("float16")]));
    let c = c.unwrap_or_else(|e| panic!("astype: {}", e.message));
    assert_eq!(tvm_api::str(&attr(&c, "dtype")), "float16");
    assert_eq!(tvm_api::str(&attr(&attr(&c, "op"), "tag")), "elemwise");
}

/// `erf` to double precision (Abramowitz and Stegun 7.1.26 is too coarse
/// for a float32 check; this is the series, exact enough below 2).
fn libm_erf(x: f64) -> f64 {
    let mut term = x;
    let mut sum = x;
    for n in 1..60 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn relu_and_elemwise_sum_compute_as_topi_defines_them() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3], "A");
    let b = placeholder(h, &[2, 3], "B");
    let x: Vec<f64> = (0..6).map(|k| k as f64 - 2.5).collect();
    let y: Vec<f64> = (0..6).map(|k| (k * k) as f64 * 0.5).collect();
    let r = call(h, "tvm.topi.nn.relu", vec![a.clone()], &[]);
    assert_eq!(tvm_api::str(&attr(&attr(&r, "op"), "tag")), "elemwise");
    let got = run(h, &[(&a, &x)], &r);
    assert_eq!(got, x.iter().map(|v| v.max(0.0)).collect::<Vec<_>>());
    let s = call(
        h,
        "tvm.topi.elemwise_sum",
        vec![Value::list(vec![a.clone(), b.clone(), a.clone()])],
        &[],
    );
    assert_eq!(
        tvm_api::str(&attr(&attr(&s, "op"), "name")),
        "T_elemwise_sum"
    );
    let got = run(h, &[(&a, &x), (&b, &y)], &s);
    let want: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p + q + p).collect();
    assert_eq!(got, want);
    let c = placeholder(h, &[3, 2], "C");
    let f = tvm_api::resolve("tvm.topi.elemwise_sum").unwrap();
    let bad = tvm_api::call(h, &f, Args::positional(vec![Value::list(vec![a, c])])).unwrap_err();
    assert!(bad.message.contains("of one shape"), "{}", bad.message);
}

/// One convolution case: NCHW or NHWC data, a kernel in TOPI's default
/// layout for it (OIHW or HWIO), strides, dilations and explicit padding.
#[derive(Debug, Clone)]
struct ConvCase {
    nhwc: bool,
    c: i64,
    h: i64,
    w: i64,
    f: i64,
    k: (i64, i64),
    stride: (i64, i64),
    dilation: (i64, i64),
    /// top, left, bottom, right
    pad: [i64; 4],
}

fn conv_case() -> impl Strategy<Value = ConvCase> {
    (
        any::<bool>(),
        (1i64..4, 3i64..8, 3i64..8, 1i64..4),
        (1i64..4, 1i64..4),
        (1i64..3, 1i64..3),
        (1i64..3, 1i64..3),
        [0i64..3, 0i64..3, 0i64..3, 0i64..3],
    )
        .prop_filter(
            "the output is not empty",
            |(_, (_, h, w, _), k, _, d, p)| {
                h + p[0] + p[2] > (k.0 - 1) * d.0 && w + p[1] + p[3] > (k.1 - 1) * d.1
            },
        )
        .prop_map(|(nhwc, (c, h, w, f), k, stride, dilation, pad)| ConvCase {
            nhwc,
            c,
            h,
            w,
            f,
            k,
            stride,
            dilation,
            pad,
        })
}

/// The convolution by its definition, in NCHW order: output shape and
/// values (one image).
fn conv_reference(c: &ConvCase, x: &[f64], wt: &[f64]) -> (Vec<i64>, Vec<f64>) {
    let oh = (c.h + c.pad[0] + c.pad[2] - (c.k.0 - 1) * c.dilation.0 - 1) / c.stride.0 + 1;
    let ow = (c.w + c.pad[1] + c.pad[3] - (c.k.1 - 1) * c.dilation.1 - 1) / c.stride.1 + 1;
    let data = |ch: i64, y: i64, xx: i64| -> f64 {
        if y < 0 || y >= c.h || xx < 0 || xx >= c.w {
            return 0.0;
        }
        let at = if c.nhwc {
            (y * c.w + xx) * c.c + ch
        } else {
            (ch * c.h + y) * c.w + xx
        };
        x[at as usize]
    };
    let weight = |f: i64, ch: i64, ky: i64, kx: i64| -> f64 {
        let at = if c.nhwc {
            ((ky * c.k.1 + kx) * c.c + ch) * c.f + f
        } else {
            ((f * c.c + ch) * c.k.0 + ky) * c.k.1 + kx
        };
        wt[at as usize]
    };
    let mut out = Vec::new();
    let value = |f: i64, oy: i64, ox: i64| -> f64 {
        let mut s = 0.0;
        for ch in 0..c.c {
            for ky in 0..c.k.0 {
                for kx in 0..c.k.1 {
                    let y = oy * c.stride.0 + ky * c.dilation.0 - c.pad[0];
                    let xx = ox * c.stride.1 + kx * c.dilation.1 - c.pad[1];
                    s += data(ch, y, xx) * weight(f, ch, ky, kx);
                }
            }
        }
        s
    };
    if c.nhwc {
        for oy in 0..oh {
            for ox in 0..ow {
                for f in 0..c.f {
                    out.push(value(f, oy, ox));
                }
            }
        }
        (vec![1, oh, ow, c.f], out)
    } else {
        for f in 0..c.f {
            for oy in 0..oh {
                for ox in 0..ow {
                    out.push(value(f, oy, ox));
                }
            }
        }
        (vec![1, c.f, oh, ow], out)
    }
}

fn values(n: i64, seed: u64, salt: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|k| (((k * 7919 + seed * 104729 + salt * 31) % 200) as f64 - 100.0) / 16.0)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// `topi.nn.conv2d_nchw` and `conv2d_nhwc` convolve as convolution is
    /// defined, padded, strided and dilated.
    #[test]
    fn conv2d_convolves_as_defined(c in conv_case(), seed in 0u64..1000) {
        let h = &mut host();
        let (data_shape, kernel_shape, op) = if c.nhwc {
            ([1, c.h, c.w, c.c], [c.k.0, c.k.1, c.c, c.f], "tvm.topi.nn.conv2d_nhwc")
        } else {
            ([1, c.c, c.h, c.w], [c.f, c.c, c.k.0, c.k.1], "tvm.topi.nn.conv2d_nchw")
        };
        let a = placeholder(h, &data_shape, "data");
        let k = placeholder(h, &kernel_shape, "kernel");
        let out = call(h, op, vec![
            a.clone(),
            k.clone(),
            ints(&[c.stride.0, c.stride.1]),
            ints(&c.pad),
            ints(&[c.dilation.0, c.dilation.1]),
        ], &[]);
        let x = values(data_shape.iter().product(), seed, 1);
        let w = values(kernel_shape.iter().product(), seed, 2);
        let (shape, expected) = conv_reference(&c, &x, &w);
        prop_assert_eq!(tvm_api::repr(&attr(&out, "shape")), tvm_api::repr(&Value::list(shape.iter().map(|&i| Value::Int(i)).collect())));
        let got = run(h, &[(&a, &x), (&k, &w)], &out);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }

    /// `topi.nn.conv2d_NCHWc` over packed data and kernel is the plain
    /// convolution, packed: `out[0, fo, y, x, fb] = conv[fo * ob + fb, y, x]`.
    #[test]
    fn conv2d_nchwc_is_the_packed_convolution(
        c in conv_case(), ib in 1i64..3, ob in 1i64..3, seed in 0u64..1000,
    ) {
        let mut c = c;
        c.nhwc = false;
        c.c *= ib;
        c.f *= ob;
        let h = &mut host();
        h.session().targets.push(std::rc::Rc::new(tvm_api::Target::parse("llvm").unwrap()));
        let (kh, kw) = c.k;
        let data_shape = [1, c.c / ib, c.h, c.w, ib];
        let kernel_shape = [c.f / ob, c.c / ib, kh, kw, ib, ob];
        let a = placeholder(h, &data_shape, "data_vec");
        let k = placeholder(h, &kernel_shape, "kernel_vec");
        let out = call(h, "tvm.topi.nn.conv2d_NCHWc", vec![
            a.clone(),
            k.clone(),
            ints(&[c.stride.0, c.stride.1]),
            ints(&c.pad),
            ints(&[c.dilation.0, c.dilation.1]),
            Value::str("NCHW"),
            Value::str("NCHW"),
        ], &[]);
        let x = values(c.c * c.h * c.w, seed, 9);
        let w = values(c.f * c.c * kh * kw, seed, 10);
        let mut xv = Vec::new();
        for cc in 0..c.c / ib { for y in 0..c.h { for xx in 0..c.w { for cb in 0..ib {
            xv.push(x[(((cc * ib + cb) * c.h + y) * c.w + xx) as usize]);
        } } } }
        let mut wv = Vec::new();
        for fo in 0..c.f / ob { for cc in 0..c.c / ib { for ky in 0..kh { for kx in 0..kw {
            for cb in 0..ib { for fb in 0..ob {
                let (f, ch) = (fo * ob + fb, cc * ib + cb);
                wv.push(w[(((f * c.c + ch) * kh + ky) * kw + kx) as usize]);
            } }
        } } } }
        let (shape, plain) = conv_reference(&c, &x, &w);
        let (oh, ow) = (shape[2], shape[3]);
        let mut expected = Vec::new();
        for fo in 0..c.f / ob { for y in 0..oh { for xx in 0..ow { for fb in 0..ob {
            expected.push(plain[(((fo * ob + fb) * oh + y) * ow + xx) as usize]);
        } } } }
        let got = run(h, &[(&a, &xv), (&k, &wv)], &out);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }

    /// `topi.nn.dilate` spreads the elements `strides` apart, the dilation
    /// value between them.
    #[test]
    fn dilate_spreads_the_elements(h in 1i64..5, w in 1i64..5, sh in 1i64..4, sw in 1i64..4, seed in 0u64..1000) {
        let hst = &mut host();
        let a = placeholder(hst, &[h, w], "a");
        let out = call(hst, "tvm.topi.nn.dilate", vec![a.clone(), ints(&[sh, sw])], &[
            ("dilation_value", Value::Float(-1.5)),
        ]);
        let x = values(h * w, seed, 11);
        let (oh, ow) = ((h - 1) * sh + 1, (w - 1) * sw + 1);
        let expected: Vec<f64> = (0..oh)
            .flat_map(|y| (0..ow).map(move |xx| (y, xx)))
            .map(|(y, xx)| {
                if y % sh == 0 && xx % sw == 0 { x[((y / sh) * w + xx / sw) as usize] } else { -1.5 }
            })
            .collect();
        prop_assert_eq!(tvm_api::str(&attr(&attr(&out, "op"), "tag")), "injective,dilate");
        let got = run(hst, &[(&a, &x)], &out);
        prop_assert_eq!(got, expected);
    }

    /// `topi.nn.conv2d_transpose_nchw_preprocess`, then a plain convolution
    /// with stride 1, is the transposed convolution: every input element
    /// spread over the output by the kernel.
    #[test]
    fn transpose_preprocess_makes_a_convolution_transposed(
        c in 1i64..3, f in 1i64..3, hw in 1i64..5, k in 1i64..4, s in 1i64..3, p in 0i64..2,
        opad in 0i64..2, seed in 0u64..1000,
    ) {
        prop_assume!(opad < s && p < k);
        let hst = &mut host();
        let a = placeholder(hst, &[1, c, hw, hw], "data");
        let wt = placeholder(hst, &[c, f, k, k], "kernel");
        let pre = call(hst, "tvm.topi.nn.conv2d_transpose_nchw_preprocess", vec![
            a.clone(), wt.clone(), ints(&[s, s]), ints(&[p, p]), Value::str("float32"), ints(&[opad, opad]),
        ], &[]);
        let parts = tvm_api::iter(&pre).unwrap();
        let out = call(hst, "tvm.topi.nn.conv2d_nchw", vec![
            parts[0].clone(), parts[1].clone(), Value::Int(1), Value::Int(0), Value::Int(1),
        ], &[]);
        let x = values(c * hw * hw, seed, 12);
        let w = values(c * f * k * k, seed, 13);
        let o = (hw - 1) * s - 2 * p + k + opad;
        let mut expected = vec![0.0; (f * o * o) as usize];
        for i in 0..c { for iy in 0..hw { for ix in 0..hw { for oc in 0..f { for ky in 0..k { for kx in 0..k {
            let (y, xx) = (iy * s + ky - p, ix * s + kx - p);
            if (0..o).contains(&y) && (0..o).contains(&xx) {
                expected[((oc * o + y) * o + xx) as usize] +=
                    x[((i * hw + iy) * hw + ix) as usize] * w[(((i * f + oc) * k + ky) * k + kx) as usize];
            }
        } } } } } }
        let got = run(hst, &[(&a, &x), (&wt, &w)], &out);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }

    /// `topi.nn.group_conv2d_nchw` and `group_conv2d_nhwc` convolve each
    /// group of channels with its own filters, as defined.
    #[test]
    fn group_conv2d_convolves_each_group(
        g in 1i64..4, cg in 1i64..3, fg in 1i64..3, hw in 3i64..6, s in 1i64..3, p in 0i64..2,
        nhwc in any::<bool>(), seed in 0u64..1000,
    ) {
        let h = &mut host();
        let (c, f) = (g * cg, g * fg);
        let (data_shape, kernel_shape, op) = if nhwc {
            ([1, hw, hw, c], [3, 3, cg, f], "tvm.topi.nn.group_conv2d_nhwc")
        } else {
            ([1, c, hw, hw], [f, cg, 3, 3], "tvm.topi.nn.group_conv2d_nchw")
        };
        let a = placeholder(h, &data_shape, "data");
        let k = placeholder(h, &kernel_shape, "kernel");
        let out = call(h, op, vec![
            a.clone(), k.clone(), Value::Int(s), Value::Int(p), Value::Int(1), Value::Int(g),
        ], &[]);
        if g > 1 {
            let name = if nhwc { "group_conv2d_nhwc" } else { "group_conv2d_nchw" };
            prop_assert_eq!(tvm_api::str(&attr(&attr(&out, "op"), "tag")), name);
        }
        let x = values(c * hw * hw, seed, 7);
        let w = values(f * cg * 9, seed, 8);
        let x_at = |ch: i64, y: i64, xx: i64| {
            x[(if nhwc { (y * hw + xx) * c + ch } else { (ch * hw + y) * hw + xx }) as usize]
        };
        let w_at = |oc: i64, ic: i64, ky: i64, kx: i64| {
            w[(if nhwc { ((ky * 3 + kx) * cg + ic) * f + oc } else { ((oc * cg + ic) * 3 + ky) * 3 + kx })
                as usize]
        };
        let o = (hw + 2 * p - 3) / s + 1;
        let value = |oc: i64, oy: i64, ox: i64| {
            let group = oc / fg;
            let mut sum = 0.0;
            for ic in 0..cg {
                for ky in 0..3 {
                    for kx in 0..3 {
                        let (y, xx) = (oy * s + ky - p, ox * s + kx - p);
                        if (0..hw).contains(&y) && (0..hw).contains(&xx) {
                            sum += x_at(group * cg + ic, y, xx) * w_at(oc, ic, ky, kx);
                        }
                    }
                }
            }
            sum
        };
        let mut expected = Vec::new();
        if nhwc {
            for oy in 0..o { for ox in 0..o { for oc in 0..f { expected.push(value(oc, oy, ox)); } } }
        } else {
            for oc in 0..f { for oy in 0..o { for ox in 0..o { expected.push(value(oc, oy, ox)); } } }
        }
        let got = run(h, &[(&a, &x), (&k, &w)], &out);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }

    /// `topi.nn.depthwise_conv2d_nchw` convolves each channel with its own
    /// filters (`multiplier` of them), as defined.
    #[test]
    fn depthwise_conv2d_convolves_each_channel(
        c in 1i64..4, m in 1i64..3, hw in 3i64..7, s in 1i64..3, p in 0i64..2, seed in 0u64..1000,
    ) {
        let h = &mut host();
        let a = placeholder(h, &[1, c, hw, hw], "data");
        let k = placeholder(h, &[c, m, 3, 3], "kernel");
        let out = call(h, "tvm.topi.nn.depthwise_conv2d_nchw", vec![
            a.clone(), k.clone(), Value::Int(s), Value::Int(p), Value::Int(1),
        ], &[]);
        let x = values(c * hw * hw, seed, 3);
        let w = values(c * m * 9, seed, 4);
        let o = (hw + 2 * p - 3) / s + 1;
        let mut expected = Vec::new();
        for oc in 0..c * m {
            let (ic, j) = (oc / m, oc % m);
            for oy in 0..o {
                for ox in 0..o {
                    let mut sum = 0.0;
                    for ky in 0..3 {
                        for kx in 0..3 {
                            let (y, xx) = (oy * s + ky - p, ox * s + kx - p);
                            if (0..hw).contains(&y) && (0..hw).contains(&xx) {
                                sum += x[((ic * hw + y) * hw + xx) as usize]
                                    * w[(((ic * m + j) * 3 + ky) * 3 + kx) as usize];
                            }
                        }
                    }
                    expected.push(sum);
                }
            }
        }
        let got = run(h, &[(&a, &x), (&k, &w)], &out);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }

    /// `topi.nn.dense` is `data @ weight.T + bias`; `topi.nn.matmul` takes
    /// either operand transposed.
    #[test]
    fn dense_and_matmul_multiply_as_defined(
        m in 1i64..5, n in 1i64..5, kk in 1i64..6, ta in any::<bool>(), tb in any::<bool>(), seed in 0u64..1000,
    ) {
        let h = &mut host();
        let a_shape = if ta { [kk, m] } else { [m, kk] };
        let b_shape = if tb { [n, kk] } else { [kk, n] };
        let a = placeholder(h, &a_shape, "a");
        let b = placeholder(h, &b_shape, "b");
        let out = call(h, "tvm.topi.nn.matmul", vec![a.clone(), b.clone()], &[
            ("transpose_a", Value::Bool(ta)),
            ("transpose_b", Value::Bool(tb)),
        ]);
        let x = values(m * kk, seed, 5);
        let y = values(kk * n, seed, 6);
        let at = |i: i64, k: i64| x[(if ta { k * m + i } else { i * kk + k }) as usize];
        let bt = |k: i64, j: i64| y[(if tb { j * kk + k } else { k * n + j }) as usize];
        let expected: Vec<f64> = (0..m)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .map(|(i, j)| (0..kk).map(|k| at(i, k) * bt(k, j)).sum())
            .collect();
        let got = run(h, &[(&a, &x), (&b, &y)], &out);
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }
}

#[test]
fn nn_operators_build_topis_stages() {
    let h = &mut host();
    let data = placeholder(h, &[1, 64, 56, 56], "data");
    let kernel = placeholder(h, &[64, 64, 3, 3], "kernel");
    let conv = call(
        h,
        "tvm.topi.nn.conv2d_nchw",
        vec![
            data.clone(),
            kernel,
            Value::Int(1),
            Value::Int(1),
            Value::Int(1),
        ],
        &[],
    );
    let op = attr(&conv, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), "conv2d_nchw");
    assert_eq!(tvm_api::str(&attr(&op, "tag")), "conv2d_nchw");
    assert_eq!(tvm_api::repr(&attr(&conv, "shape")), "[1, 64, 56, 56]");
    let names = |axes: Value| -> Vec<String> {
        tvm_api::iter(&axes)
            .unwrap()
            .iter()
            .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
            .collect()
    };
    assert_eq!(names(attr(&op, "axis")), ["nn", "ff", "yy", "xx"]);
    assert_eq!(names(attr(&op, "reduce_axis")), ["rc", "ry", "rx"]);
    let pad = tvm_api::iter(&attr(&op, "input_tensors")).unwrap()[0].clone();
    assert_eq!(tvm_api::str(&attr(&attr(&pad, "op"), "name")), "pad_temp");
    assert_eq!(
        tvm_api::str(&attr(&attr(&pad, "op"), "tag")),
        "injective,pad"
    );
    // NHWC data with an HWIO kernel: the output and reductions follow the
    // layout.
    let nhwc = placeholder(h, &[1, 56, 56, 64], "x");
    let hwio = placeholder(h, &[3, 3, 64, 32], "w");
    let conv = call(
        h,
        "tvm.topi.nn.conv2d",
        vec![
            nhwc,
            hwio,
            Value::Int(2),
            Value::str("SAME"),
            Value::Int(1),
            Value::str("NHWC"),
        ],
        &[],
    );
    let op = attr(&conv, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), "conv2d_nhwc");
    assert_eq!(tvm_api::repr(&attr(&conv, "shape")), "[1, 28, 28, 32]");
    assert_eq!(names(attr(&op, "axis")), ["nn", "yy", "xx", "ff"]);
    assert_eq!(names(attr(&op, "reduce_axis")), ["ry", "rx", "rc"]);
    // Dense: `T_matmul_NT` (tag `dense`), then `T_add` with the bias.
    let x = placeholder(h, &[16, 768], "x");
    let w = placeholder(h, &[3072, 768], "w");
    let b = placeholder(h, &[3072], "b");
    let dense = call(h, "tvm.topi.nn.dense", vec![x.clone(), w.clone(), b], &[]);
    assert_eq!(tvm_api::str(&attr(&attr(&dense, "op"), "name")), "T_add");
    let mm = call(h, "tvm.topi.nn.dense", vec![x, w], &[]);
    assert_eq!(tvm_api::str(&attr(&attr(&mm, "op"), "name")), "T_matmul_NT");
    assert_eq!(tvm_api::str(&attr(&attr(&mm, "op"), "tag")), "dense");
    // Depthwise: `PaddedInput`, then `DepthwiseConv2d`.
    let k = placeholder(h, &[64, 2, 3, 3], "k");
    let dw = call(
        h,
        "tvm.topi.nn.depthwise_conv2d_nchw",
        vec![data, k, Value::Int(2), Value::str("SAME"), Value::Int(1)],
        &[],
    );
    assert_eq!(
        tvm_api::str(&attr(&attr(&dw, "op"), "name")),
        "DepthwiseConv2d"
    );
    assert_eq!(tvm_api::repr(&attr(&dw, "shape")), "[1, 128, 28, 28]");
}

/// `conv2d_hwcn`: TOPI's generic convolution over the `HWCN` layout, its
/// axes named in the layout's order.
#[test]
fn conv2d_hwcn_keeps_the_layout() {
    let h = &mut host();
    let data = placeholder(h, &[14, 14, 32, 4], "data");
    let kernel = placeholder(h, &[3, 3, 32, 16], "kernel");
    let conv = call(
        h,
        "tvm.topi.nn.conv2d_hwcn",
        vec![data, kernel, Value::Int(1), Value::Int(1), Value::Int(1)],
        &[],
    );
    let op = attr(&conv, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), "conv2d_hwcn");
    assert_eq!(tvm_api::repr(&attr(&conv, "shape")), "[14, 14, 16, 4]");
    let axes: Vec<String> = tvm_api::iter(&attr(&op, "axis"))
        .unwrap()
        .iter()
        .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
        .collect();
    assert_eq!(axes, ["yy", "xx", "ff", "nn"]);
}

#[test]
fn nn_operators_refuse_bad_arguments() {
    let h = &mut host();
    let data = placeholder(h, &[1, 8, 8, 8], "data");
    let kernel = placeholder(h, &[4, 8, 3, 3], "kernel");
    let error = |h: &mut dyn Host, path: &str, pos: Vec<Value>| -> String {
        let f = tvm_api::resolve(path).unwrap();
        match tvm_api::call(h, &f, Args::positional(pos)) {
            Ok(_) => panic!("{path} should refuse"),
            Err(e) => e.message,
        }
    };
    let e = error(
        h,
        "tvm.topi.nn.conv2d_nchw",
        vec![
            data.clone(),
            kernel.clone(),
            Value::Int(1),
            Value::str("FULL"),
            Value::Int(1),
        ],
    );
    assert!(e.contains("Unknown padding option FULL"), "{e}");
    let e = error(
        h,
        "tvm.topi.nn.conv2d_nchw",
        vec![
            data.clone(),
            kernel,
            ints(&[1, 1, 1]),
            Value::Int(0),
            Value::Int(1),
        ],
    );
    assert!(e.contains("`strides` needs 2 values"), "{e}");
    // 8 input channels and 4 filters in 3 groups: TOPI's assertion.
    let grouped = placeholder(h, &[4, 2, 3, 3], "grouped");
    let e = error(
        h,
        "tvm.topi.nn.group_conv2d_nchw",
        vec![
            data.clone(),
            grouped,
            Value::Int(1),
            Value::Int(0),
            Value::Int(1),
            Value::Int(3),
        ],
    );
    assert!(e.contains("input channels must divide group size"), "{e}");
    let e = error(h, "tvm.topi.nn.pad", vec![data, ints(&[1, 1])]);
    assert!(e.contains("pad_before"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `topi.nn.batch_matmul` multiplies each batch (a batch of one is
    /// broadcast), with either operand transposed.
    #[test]
    fn batch_matmul_multiplies_each_batch(
        b in 1i64..4, one_a in any::<bool>(), one_b in any::<bool>(), m in 1i64..4, n in 1i64..4,
        kk in 1i64..5, ta in any::<bool>(), tb in any::<bool>(), seed in 0u64..1000,
    ) {
        let h = &mut host();
        let (ba, bb) = (if one_a { 1 } else { b }, if one_b && !one_a { 1 } else { b });
        let a_shape = if ta { [ba, kk, m] } else { [ba, m, kk] };
        let b_shape = if tb { [bb, n, kk] } else { [bb, kk, n] };
        let a = placeholder(h, &a_shape, "a");
        let bt = placeholder(h, &b_shape, "b");
        let out = call(h, "tvm.topi.nn.batch_matmul", vec![a.clone(), bt.clone()], &[
            ("transpose_a", Value::Bool(ta)),
            ("transpose_b", Value::Bool(tb)),
        ]);
        let batch = ba.max(bb);
        prop_assert_eq!(tvm_api::repr(&attr(&out, "shape")), format!("[{batch}, {m}, {n}]"));
        let x = values(a_shape.iter().product(), seed, 7);
        let y = values(b_shape.iter().product(), seed, 8);
        let av = |p: i64, i: i64, k: i64| {
            let p = if ba == 1 { 0 } else { p };
            x[(if ta { (p * kk + k) * m + i } else { (p * m + i) * kk + k }) as usize]
        };
        let bv = |p: i64, k: i64, j: i64| {
            let p = if bb == 1 { 0 } else { p };
            y[(if tb { (p * n + j) * kk + k } else { (p * kk + k) * n + j }) as usize]
        };
        let mut expected = Vec::new();
        for p in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    expected.push((0..kk).map(|k| av(p, i, k) * bv(p, k, j)).sum::<f64>());
                }
            }
        }
        let got = run(h, &[(&a, &x), (&bt, &y)], &out);
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `topi.nn.softmax` and `log_softmax` along any axis compute the
    /// (log) softmax as defined.
    #[test]
    fn softmax_normalises_along_its_axis(
        rows in 1i64..4, cols in 1i64..6, axis in 0i64..2, log in any::<bool>(), seed in 0u64..1000,
    ) {
        let h = &mut host();
        let a = placeholder(h, &[rows, cols], "a");
        let f = if log { "tvm.topi.nn.log_softmax" } else { "tvm.topi.nn.softmax" };
        let out = call(h, f, vec![a.clone()], &[("axis", Value::Int(axis))]);
        let tag = tvm_api::str(&attr(&attr(&out, "op"), "tag"));
        prop_assert_eq!(tag, if log { "log_softmax_output" } else { "softmax_output" });
        let x = values(rows * cols, seed, 9);
        let at = |r: i64, c: i64| x[(r * cols + c) as usize];
        let mut expected = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                let line: Vec<f64> = if axis == 1 {
                    (0..cols).map(|j| at(r, j)).collect()
                } else {
                    (0..rows).map(|i| at(i, c)).collect()
                };
                let max = line.iter().cloned().fold(f64::MIN, f64::max);
                let sum: f64 = line.iter().map(|v| (v - max).exp()).sum();
                let v = at(r, c);
                expected.push(if log { v - max - sum.ln() } else { (v - max).exp() / sum });
            }
        }
        let got = run(h, &[(&a, &x)], &out);
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g - e).abs() <= 1e-4 * e.abs().max(1.0), "{} vs {}", g, e);
        }
    }
}

#[test]
fn nn_operators_refuse_hostile_sizes_and_layouts() {
    let h = &mut host();
    let data = placeholder(h, &[1, 4, 8, 8], "data");
    let kernel = placeholder(h, &[4, 4, 3, 3], "kernel");
    let refuse = |h: &mut dyn Host, path: &str, pos: Vec<Value>, what: &str| {
        let f = tvm_api::resolve(path).unwrap();
        match tvm_api::call(h, &f, Args::positional(pos)) {
            Ok(v) => panic!("{path} should refuse, gave {}", tvm_api::repr(&v)),
            Err(e) => assert!(e.message.contains(what), "{path}: {}", e.message),
        }
    };
    let conv = |s: Value, p: Value, d: Value| vec![data.clone(), kernel.clone(), s, p, d];
    let one = || Value::Int(1);
    refuse(
        h,
        "tvm.topi.nn.conv2d_nchw",
        conv(Value::Int(0), one(), one()),
        "at least 1",
    );
    refuse(
        h,
        "tvm.topi.nn.conv2d_nchw",
        conv(one(), one(), Value::Int(0)),
        "at least 1",
    );
    refuse(
        h,
        "tvm.topi.nn.conv2d_nchw",
        conv(one(), Value::Int(1 << 62), one()),
        "int32",
    );
    refuse(
        h,
        "tvm.topi.nn.conv2d_nchw",
        conv(Value::Int(i64::MAX), one(), one()),
        "int32",
    );
    let mut layout = conv(one(), one(), one());
    layout.extend([Value::str("NCHW"), Value::str("OOHW")]);
    refuse(h, "tvm.topi.nn.conv2d", layout, "no `O` or no `I`");
    let mut layout = conv(one(), one(), one());
    layout.extend([Value::str("NCHH")]);
    refuse(h, "tvm.topi.nn.conv2d", layout, "each axis");
    refuse(
        h,
        "tvm.topi.nn.depthwise_conv2d_nchw",
        conv(Value::Int(0), one(), one()),
        "at least 1",
    );
    refuse(
        h,
        "tvm.topi.nn.pad",
        vec![data.clone(), ints(&[0, 0, i64::MAX, 0])],
        "int32",
    );
}
