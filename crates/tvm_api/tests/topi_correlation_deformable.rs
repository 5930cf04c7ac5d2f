//! TOPI's operators that read at displaced points: `nn.correlation_nchw`
//! (each point of one map against the points around it in the other) and
//! `nn.deformable_conv2d_nchw` (a convolution whose taps are moved by
//! learnt fractional offsets). Their stages are TOPI's, and the built
//! programs compute, on random inputs, what a direct evaluation of the
//! operators' definitions gives.

use proptest::prelude::*;
use tvm_api::{Host, Value};

mod topi_common;
use topi_common::*;

fn values(n: i64, seed: u64, salt: u64, scale: f64) -> Vec<f64> {
    (0..n as u64)
        .map(|k| (((k * 7919 + seed * 104729 + salt * 31) % 200) as f64 - 100.0) / scale)
        .collect()
}

fn close(got: &[f64], expected: &[f64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        prop_assert!((g - e).abs() <= 1e-3 * e.abs().max(1.0), "{} vs {}", g, e);
    }
    Ok(())
}

/// FlowNet's correlation by its definition: the two maps zero-padded; at
/// each output point, displacement `q` and image `n`, the mean over
/// channels and a `k x k` window of the product (or absolute difference)
/// of the first map near `(y1, x1)` and the second near the displaced
/// point.
#[allow(clippy::too_many_arguments)]
fn correlation_reference(
    shape: [i64; 4],
    a: &[f64],
    b: &[f64],
    k: i64,
    max_disp: i64,
    (s1, s2): (i64, i64),
    pad: i64,
    multiply: bool,
) -> Vec<f64> {
    let [batch, c, h, w] = shape;
    let (ph, pw) = (h + 2 * pad, w + 2 * pad);
    let at = |d: &[f64], n: i64, ch: i64, y: i64, x: i64| {
        let (y, x) = (y - pad, x - pad);
        if y < 0 || x < 0 || y >= h || x >= w {
            0.0
        } else {
            d[(((n * c + ch) * h + y) * w + x) as usize]
        }
    };
    let border = max_disp + (k - 1) / 2;
    let radius = max_disp / s2;
    let size = 2 * radius + 1;
    let oh = (ph - 2 * border + s1 - 1).div_euclid(s1);
    let ow = (pw - 2 * border + s1 - 1).div_euclid(s1);
    let mut out = Vec::new();
    for n in 0..batch {
        for q in 0..size * size {
            for i in 0..oh {
                for j in 0..ow {
                    let (y1, x1) = (i * s1 + max_disp, j * s1 + max_disp);
                    let y2 = y1 + (q / size - radius) * s2;
                    let x2 = x1 + (q % size - radius) * s2;
                    let mut sum = 0.0;
                    for ch in 0..c {
                        for ry in 0..k {
                            for rx in 0..k {
                                let p = at(a, n, ch, y1 + ry, x1 + rx);
                                let r = at(b, n, ch, y2 + ry, x2 + rx);
                                sum += if multiply { p * r } else { (p - r).abs() };
                            }
                        }
                    }
                    out.push(sum / (k * k * c) as f64);
                }
            }
        }
    }
    out
}

/// TOPI's bilinear sample of image `(n, ch)` at `(y, x)`: 0 outside the
/// image; else the four points around it, each weighted by its nearness
/// and read only inside the image.
fn bilinear(d: &[f64], [c, h, w]: [i64; 3], n: i64, ch: i64, y: f64, x: f64) -> f64 {
    if y < 0.0 || x < 0.0 || y >= h as f64 || x >= w as f64 {
        return 0.0;
    }
    let (yl, xl) = (y.floor() as i64, x.floor() as i64);
    let (fy, fx) = (y - yl as f64, x - xl as f64);
    let mut v = 0.0;
    for (yp, wy) in [(yl, 1.0 - fy), (yl + 1, fy)] {
        for (xp, wx) in [(xl, 1.0 - fx), (xl + 1, fx)] {
            if (0..h).contains(&yp) && (0..w).contains(&xp) {
                v += wy * wx * d[(((n * c + ch) * h + yp) * w + xp) as usize];
            }
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn correlation_compares_each_point_with_its_displaced_neighbours(
        c in 1i64..3, h in 3i64..7, w in 3i64..7, k in prop::sample::select(vec![1i64, 3]),
        max_disp in 0i64..3, s1 in 1i64..3, s2 in 1i64..3, pad in 0i64..3,
        multiply in any::<bool>(), seed in 0u64..1000,
    ) {
        let border = max_disp + (k - 1) / 2;
        prop_assume!(h + 2 * pad > 2 * border && w + 2 * pad > 2 * border);
        let hst = &mut host();
        let shape = [1, c, h, w];
        let a = placeholder(hst, &shape, "a");
        let b = placeholder(hst, &shape, "b");
        let out = call(hst, "tvm.topi.nn.correlation_nchw", vec![
            a.clone(), b.clone(), Value::Int(k), Value::Int(max_disp), Value::Int(s1),
            Value::Int(s2), Value::Int(pad), Value::Bool(multiply),
        ], &[]);
        prop_assert_eq!(tvm_api::str(&attr(&attr(&out, "op"), "name")), "T_divide");
        let x = values(c * h * w, seed, 3, 16.0);
        let y = values(c * h * w, seed, 5, 16.0);
        let got = run(hst, &[(&a, &x), (&b, &y)], &out);
        close(&got, &correlation_reference(shape, &x, &y, k, max_disp, (s1, s2), pad, multiply))?;
    }

    #[test]
    fn deformable_convolution_samples_each_tap_at_its_offset(
        c in 1i64..3, f in 1i64..3, h in 2i64..6, w in 2i64..6, k in 1i64..4,
        stride in 1i64..3, pad in 0i64..2, dilation in 1i64..3, seed in 0u64..1000,
    ) {
        let dk = (k - 1) * dilation + 1;
        let (oh, ow) = ((h + 2 * pad - dk).div_euclid(stride) + 1, (w + 2 * pad - dk).div_euclid(stride) + 1);
        prop_assume!(oh >= 1 && ow >= 1);
        let hst = &mut host();
        let data = placeholder(hst, &[1, c, h, w], "data");
        let offset = placeholder(hst, &[1, 2 * k * k, oh, ow], "offset");
        let kernel = placeholder(hst, &[f, c, k, k], "kernel");
        let out = call(hst, "tvm.topi.nn.deformable_conv2d_nchw", vec![
            data.clone(), offset.clone(), kernel.clone(), Value::Int(stride), Value::Int(pad),
            Value::Int(dilation), Value::Int(1), Value::Int(1), Value::str("float32"),
        ], &[]);
        let inputs = attr(&attr(&out, "op"), "input_tensors").sequence().unwrap_or_default();
        let tag = |t: &Value| tvm_api::str(&attr(&attr(t, "op"), "tag"));
        prop_assert_eq!(tag(&out), "deformable_conv2d_nchw");
        prop_assert_eq!(inputs.len(), 2);
        prop_assert_eq!(tag(&inputs[0]), "data_deform");
        let x = values(c * h * w, seed, 3, 16.0);
        let off = values(2 * k * k * oh * ow, seed, 7, 40.0);
        let wt = values(f * c * k * k, seed, 9, 16.0);
        let mut expected = Vec::new();
        for ff in 0..f {
            for y in 0..oh {
                for xx in 0..ow {
                    let mut sum = 0.0;
                    for ch in 0..c {
                        for ky in 0..k {
                            for kx in 0..k {
                                let tap = (ky * k + kx) * 2;
                                let dy = off[((tap * oh + y) * ow + xx) as usize];
                                let dx = off[(((tap + 1) * oh + y) * ow + xx) as usize];
                                let sy = (y * stride - pad + ky * dilation) as f64 + dy;
                                let sx = (xx * stride - pad + kx * dilation) as f64 + dx;
                                let v = bilinear(&x, [c, h, w], 0, ch, sy, sx);
                                sum += v * wt[(((ff * c + ch) * k + ky) * k + kx) as usize];
                            }
                        }
                    }
                    expected.push(sum);
                }
            }
        }
        let got = run(hst, &[(&data, &x), (&offset, &off), (&kernel, &wt)], &out);
        close(&got, &expected)?;
    }
}

#[test]
fn correlation_and_deformable_convolution_refuse_what_topi_refuses() {
    let hst: &mut dyn Host = &mut host();
    let a = placeholder(hst, &[1, 2, 6, 6], "a");
    let b = placeholder(hst, &[1, 2, 6, 5], "b");
    let corr = |h: &mut dyn Host, x: &Value, k: i64, pad: Value| {
        try_call(
            h,
            "tvm.topi.nn.correlation_nchw",
            vec![
                a.clone(),
                x.clone(),
                Value::Int(k),
                Value::Int(1),
                Value::Int(1),
                Value::Int(1),
                pad,
                Value::Bool(true),
            ],
            &[],
        )
        .map(|_| ())
        .unwrap_err()
        .message
    };
    assert!(corr(hst, &b, 1, Value::Int(0)).contains("same shape"));
    assert!(corr(hst, &a, 2, Value::Int(0)).contains("odd number"));
    assert!(corr(hst, &a, 1, ints(&[1, 2, 3])).contains("invalid padding"));
    let data = placeholder(hst, &[1, 3, 6, 6], "data");
    let offset = placeholder(hst, &[1, 18, 6, 6], "offset");
    let kernel = placeholder(hst, &[4, 3, 3, 3], "kernel");
    let deform = |h: &mut dyn Host, dg: i64, groups: i64| {
        try_call(
            h,
            "tvm.topi.nn.deformable_conv2d_nchw",
            vec![
                data.clone(),
                offset.clone(),
                kernel.clone(),
                Value::Int(1),
                Value::Int(1),
                Value::Int(1),
                Value::Int(dg),
                Value::Int(groups),
                Value::str("float32"),
            ],
            &[],
        )
        .map(|_| ())
        .unwrap_err()
        .message
    };
    assert!(deform(hst, 2, 1).contains("must divide deformable group size"));
    assert!(deform(hst, 1, 2).contains("does not support groups > 1"));
}
