//! TOPI's resizing operators (`topi.image.resize1d/2d/3d`,
//! `topi.nn.upsampling/upsampling3d`): their stage is TOPI's (`resize`,
//! tag `injective`, axes `i0, i1, ...`, the resized shape), the built
//! programs compute, on random inputs, what a direct evaluation of nearest
//! and linear resizing gives, and bad arguments are errors.

use proptest::prelude::*;
use tvm_api::{Args, Host, Object, Value};

mod topi_common;
use topi_common::*;

fn floats(items: &[f64]) -> Value {
    Value::tuple(items.iter().map(|&x| Value::Float(x)).collect())
}

fn s(x: &str) -> Value {
    Value::str(x)
}

/// Builds `out` from `input` and runs it on `data` (float32), returning
/// the output's elements.
fn run(h: &mut dyn Host, input: &Value, data: &[f64], out: &Value) -> Vec<f64> {
    let s = call(h, "te.create_schedule", vec![attr(out, "op")], &[]);
    let f = call(
        h,
        "tvm.build",
        vec![s, Value::list(vec![input.clone(), out.clone()])],
        &[("target", Value::str("llvm"))],
    );
    let dev = call(h, "tvm.cpu", vec![Value::Int(0)], &[]);
    let arr = call(
        h,
        "tvm.nd.empty",
        vec![attr(input, "shape"), Value::str("float32"), dev.clone()],
        &[],
    );
    let Value::Object(Object::NDArray(a)) = &arr else {
        panic!("an array")
    };
    let flat = Value::list(data.iter().map(|&x| Value::Float(x)).collect());
    a.borrow_mut().data = tvm_api::NDArray::from_value(&flat, Some(tir::DataType::Float32))
        .expect("numbers")
        .data;
    let out_arr = call(
        h,
        "tvm.nd.empty",
        vec![attr(out, "shape"), Value::str("float32"), dev],
        &[],
    );
    tvm_api::call(h, &f, Args::positional(vec![arr, out_arr.clone()]))
        .unwrap_or_else(|e| panic!("run: {}", e.message));
    let Value::Object(Object::NDArray(o)) = &out_arr else {
        panic!("an array")
    };
    let data = o.borrow().data.clone();
    data
}

fn shape_of(v: &Value) -> String {
    tvm_api::repr(&attr(v, "shape"))
}

fn axis_names(v: &Value) -> Vec<String> {
    let op = attr(v, "op");
    attr(&op, "axis")
        .sequence()
        .expect("a list")
        .iter()
        .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
        .collect()
}

/// Checks TOPI's stage: one `resize` of tag `injective` over `i0...`.
fn assert_resize_stage(out: &Value, shape: &[i64]) {
    let op = attr(out, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), "resize");
    assert_eq!(tvm_api::str(&attr(&op, "tag")), "injective");
    let names: Vec<String> = (0..shape.len()).map(|i| format!("i{i}")).collect();
    assert_eq!(axis_names(out), names);
    assert_eq!(
        shape_of(out),
        tvm_api::repr(&Value::list(shape.iter().map(|&i| Value::Int(i)).collect()))
    );
    // Its only input is the data: no intermediate stages.
    assert_eq!(
        attr(&op, "input_tensors").sequence().expect("a list").len(),
        1
    );
}

#[test]
fn resize2d_builds_one_resize_stage_in_each_layout() {
    let h = &mut host();
    let zero4 = floats(&[0.0; 4]);
    for (layout, input, output) in [
        ("NCHW", vec![1, 3, 32, 32], vec![1, 3, 64, 48]),
        ("NHWC", vec![1, 32, 32, 3], vec![1, 64, 48, 3]),
        ("NCHW16c", vec![1, 2, 32, 32, 16], vec![1, 2, 64, 48, 16]),
        (
            "NCHW1n16c",
            vec![1, 2, 32, 32, 1, 16],
            vec![1, 2, 64, 48, 1, 16],
        ),
    ] {
        for method in ["nearest_neighbor", "linear", "cubic"] {
            let x = placeholder(h, &input, "x");
            let out = call(
                h,
                "tvm.topi.image.resize2d",
                vec![x, zero4.clone(), ints(&[64, 48])],
                &[("layout", s(layout)), ("method", s(method))],
            );
            assert_resize_stage(&out, &output);
            assert_eq!(tvm_api::str(&attr(&out, "dtype")), "float32");
        }
    }
    // `out_dtype` casts the float result; without it, the input's type.
    let x = call(
        h,
        "te.placeholder",
        vec![ints(&[1, 1, 4, 4])],
        &[("dtype", s("uint8"))],
    );
    let out = call(
        h,
        "tvm.topi.image.resize2d",
        vec![x.clone(), zero4.clone(), ints(&[8, 8])],
        &[],
    );
    assert_eq!(tvm_api::str(&attr(&out, "dtype")), "uint8");
    let out = call(
        h,
        "tvm.topi.image.resize2d",
        vec![x, zero4, ints(&[8, 8])],
        &[("out_dtype", s("float16"))],
    );
    assert_eq!(tvm_api::str(&attr(&out, "dtype")), "float16");
}

#[test]
fn resize1d_resize3d_and_upsampling_build_topis_stage() {
    let h = &mut host();
    let x = placeholder(h, &[2, 4, 10], "x");
    let out = call(
        h,
        "tvm.topi.image.resize1d",
        vec![x, floats(&[0.0, 0.0]), ints(&[15])],
        &[],
    );
    assert_resize_stage(&out, &[2, 4, 15]);
    let x = placeholder(h, &[1, 5, 6, 7, 3], "x");
    let out = call(
        h,
        "tvm.topi.image.resize3d",
        vec![x, floats(&[0.0; 6]), ints(&[4, 12, 14])],
        &[("layout", s("NDHWC"))],
    );
    assert_resize_stage(&out, &[1, 4, 12, 14, 3]);
    // Upsampling rounds the scaled sizes (half to even, as TVM's `round`).
    let x = placeholder(h, &[1, 32, 28, 28], "x");
    let out = call(
        h,
        "tvm.topi.nn.upsampling.upsampling",
        vec![x.clone(), Value::Int(2), Value::Int(2)],
        &[],
    );
    assert_resize_stage(&out, &[1, 32, 56, 56]);
    let out = call(
        h,
        "tvm.topi.nn.upsampling.upsampling",
        vec![x, Value::Float(1.5), Value::Float(0.125)],
        &[
            ("method", s("bilinear")),
            ("align_corners", Value::Bool(true)),
        ],
    );
    assert_resize_stage(&out, &[1, 32, 42, 4]);
    let x = placeholder(h, &[1, 2, 3, 4, 5], "x");
    let out = call(
        h,
        "tvm.topi.nn.upsampling3d",
        vec![x, Value::Int(2), Value::Float(1.5), Value::Int(1)],
        &[("method", s("trilinear"))],
    );
    assert_resize_stage(&out, &[1, 2, 6, 6, 5]);
}

/// Nearest `asymmetric` resizing by an integer factor divides integers,
/// as TOPI does: no float arithmetic in the index.
#[test]
fn nearest_upsampling_by_an_integer_factor_divides_indices() {
    let h = &mut host();
    let x = placeholder(h, &[1, 14, 14, 8], "x");
    let out = call(
        h,
        "tvm.topi.nn.upsampling.upsampling",
        vec![x, Value::Int(2), Value::Int(2)],
        &[("layout", s("NHWC"))],
    );
    let body = attr(&attr(&out, "op"), "body");
    let text = tvm_api::str(&body);
    assert!(!text.contains("float"), "{text}");
    assert!(text.contains("floordiv") || text.contains('/'), "{text}");
}

// ---- a direct evaluation of resizing ----

/// A 2-D resize case on one NCHW image of one channel.
#[derive(Debug, Clone)]
struct Case {
    h: i64,
    w: i64,
    oh: i64,
    ow: i64,
    linear: bool,
    mode: &'static str,
    rounding: &'static str,
}

/// The input coordinate of output coordinate `x`, in float32 as the
/// operator computes it (ONNX's definitions of the modes).
fn source(mode: &str, x: i64, image: i64, target: i64) -> f32 {
    let (x, image_f, target_f) = (x as f32, image as f32, target as f32);
    let scale = image_f / target_f;
    match mode {
        "half_pixel" => (x + 0.5) * scale - 0.5,
        "pytorch_half_pixel" if target > 1 => (x + 0.5) * scale - 0.5,
        "pytorch_half_pixel" => 0.0,
        "align_corners" => (image - 1) as f32 / (target - 1) as f32 * x,
        "asymmetric" => scale * x,
        "tf_half_pixel_for_nn" => (x + 0.5) * scale,
        _ => unreachable!("mode {mode}"),
    }
}

/// The pixel nearest `x` by the rounding rule (the default: `round` for
/// `align_corners`, else `floor`), a small epsilon guarding floor and ceil.
fn nearest(x: f32, rounding: &str, mode: &str) -> i64 {
    let rounding = match rounding {
        "" if mode == "align_corners" => "round",
        "" => "floor",
        r => r,
    };
    let v = match rounding {
        "round" => x.round(),
        "round_prefer_floor" => (x - 0.5).ceil(),
        "round_prefer_ceil" => (x + 0.5).floor(),
        "floor" => (x + 1e-5).floor(),
        "ceil" => (x - 1e-5).ceil(),
        _ => unreachable!(),
    };
    v as i64
}

/// The resized image: the nearest pixel, or the bilinear blend of the four
/// around the source point, pixels beyond the border repeating it.
fn resize_reference(c: &Case, x: &[f64]) -> Vec<f64> {
    let at = |i: i64, j: i64| -> f64 {
        let i = i.clamp(0, c.h - 1);
        let j = j.clamp(0, c.w - 1);
        x[(i * c.w + j) as usize]
    };
    let mut out = Vec::new();
    for i in 0..c.oh {
        for j in 0..c.ow {
            let sy = source(c.mode, i, c.h, c.oh);
            let sx = source(c.mode, j, c.w, c.ow);
            if c.linear {
                let (y0, x0) = (sy.floor(), sx.floor());
                let (ty, tx) = ((sy - y0) as f64, (sx - x0) as f64);
                let (y0, x0) = (y0 as i64, x0 as i64);
                let top = at(y0, x0) * (1.0 - tx) + at(y0, x0 + 1) * tx;
                let bottom = at(y0 + 1, x0) * (1.0 - tx) + at(y0 + 1, x0 + 1) * tx;
                out.push(top * (1.0 - ty) + bottom * ty);
            } else {
                // An `asymmetric` resize by an integer factor divides
                // integers, whatever the rounding (TOPI's rule).
                let pick = |o: i64, image: i64, target: i64, s: f32| {
                    if c.mode == "asymmetric" && target % image == 0 {
                        o / (target / image)
                    } else {
                        nearest(s, c.rounding, c.mode)
                    }
                };
                out.push(at(pick(i, c.h, c.oh, sy), pick(j, c.w, c.ow, sx)));
            }
        }
    }
    out
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1i64..7, 1i64..7, 2i64..9, 2i64..9),
        any::<bool>(),
        prop::sample::select(vec![
            "half_pixel",
            "align_corners",
            "asymmetric",
            "pytorch_half_pixel",
            "tf_half_pixel_for_nn",
        ]),
        prop::sample::select(vec![
            "",
            "round",
            "round_prefer_floor",
            "round_prefer_ceil",
            "floor",
            "ceil",
        ]),
    )
        .prop_map(|((h, w, oh, ow), linear, mode, rounding)| Case {
            h,
            w,
            oh,
            ow,
            linear,
            mode,
            rounding: if linear { "" } else { rounding },
        })
}

fn data(n: i64, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|k| (((k as u64 * 7919 + seed * 104729) % 2000) as f64 - 1000.0) / 8.0)
        .collect()
}

/// Close enough for float32 arithmetic on values up to 125.
fn close(got: &[f64], expected: &[f64]) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), expected.len());
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        prop_assert!(
            (g - e).abs() <= 1e-3 * e.abs().max(1.0),
            "element {}: {} vs {}",
            k,
            g,
            e
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `resize2d` with `nearest_neighbor` (every rounding) and `linear`
    /// computes, in every coordinate transformation mode, what the modes
    /// define.
    #[test]
    fn resize2d_resizes_as_defined(c in case(), seed in 0u64..1000) {
        let h = &mut host();
        let a = placeholder(h, &[1, 1, c.h, c.w], "A");
        let out = call(h, "tvm.topi.image.resize2d", vec![
            a.clone(), floats(&[0.0; 4]), ints(&[c.oh, c.ow]),
        ], &[
            ("method", s(if c.linear { "linear" } else { "nearest_neighbor" })),
            ("coordinate_transformation_mode", s(c.mode)),
            ("rounding_method", s(c.rounding)),
        ]);
        let x = data(c.h * c.w, seed);
        let got = run(h, &a, &x, &out);
        close(&got, &resize_reference(&c, &x))?;
    }

    /// `upsampling` by integer factors repeats each pixel (nearest) or
    /// blends as `align_corners` / `asymmetric` bilinear resizing defines.
    #[test]
    fn upsampling_resizes_as_defined(
        (hh, ww) in (1i64..6, 1i64..6),
        (sh, sw) in (1i64..4, 1i64..4),
        linear in any::<bool>(),
        align in any::<bool>(),
        seed in 0u64..1000,
    ) {
        // `align_corners` to a size of 1 divides 0 by 0 (in TOPI too).
        prop_assume!(!align || (hh * sh > 1 && ww * sw > 1));
        let h = &mut host();
        let a = placeholder(h, &[1, 1, hh, ww], "A");
        let out = call(h, "tvm.topi.nn.upsampling.upsampling", vec![a.clone(), Value::Int(sh), Value::Int(sw)], &[
            ("method", s(if linear { "bilinear" } else { "nearest_neighbor" })),
            ("align_corners", Value::Bool(align)),
        ]);
        let x = data(hh * ww, seed);
        let c = Case {
            h: hh, w: ww, oh: hh * sh, ow: ww * sw, linear,
            mode: if align { "align_corners" } else { "asymmetric" },
            rounding: "",
        };
        if !linear && !align {
            // Each output pixel is the input pixel it falls in.
            let expected: Vec<f64> = (0..c.oh)
                .flat_map(|i| (0..c.ow).map(move |j| (i / sh, j / sw)))
                .map(|(i, j)| x[(i * ww + j) as usize])
                .collect();
            close(&run(h, &a, &x, &out), &expected)?;
        } else {
            close(&run(h, &a, &x, &out), &resize_reference(&c, &x))?;
        }
    }

    /// `resize1d` (NWC) and `resize3d` (NCDHW, one axis resized) agree
    /// with the 2-D definition along the resized axis.
    #[test]
    fn resize1d_and_3d_resize_along_each_axis(
        (w, ow) in (1i64..7, 2i64..9),
        linear in any::<bool>(),
        mode in prop::sample::select(vec!["half_pixel", "align_corners", "asymmetric"]),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let method = s(if linear { "linear" } else { "nearest_neighbor" });
        // Two rows kept as they are (every mode here maps a kept axis to
        // itself), of which the first is the 1-D resize.
        let c = Case { h: 2, w, oh: 2, ow, linear, mode, rounding: "" };
        let x = data(w, seed);
        let expected = resize_reference(&c, &x.repeat(2))[..ow as usize].to_vec();
        let a = placeholder(h, &[1, w, 1], "A");
        let out = call(h, "tvm.topi.image.resize1d", vec![a.clone(), floats(&[0.0; 2]), ints(&[ow])], &[
            ("layout", s("NWC")), ("method", method.clone()),
            ("coordinate_transformation_mode", s(mode)),
        ]);
        close(&run(h, &a, &x, &out), &expected)?;
        // Depth and height of 2 kept (of 1, `align_corners` divides 0 by
        // 0, in TOPI as well), each row the same.
        let a = placeholder(h, &[1, 1, 2, 2, w], "A");
        let out = call(h, "tvm.topi.image.resize3d", vec![a.clone(), floats(&[0.0; 6]), ints(&[2, 2, ow])], &[
            ("method", method), ("coordinate_transformation_mode", s(mode)),
        ]);
        let rows = |v: &[f64]| v.repeat(4);
        close(&run(h, &a, &rows(&x), &out), &rows(&expected))?;
    }
}

/// Cubic resizing reproduces a linear ramp inside the image (a cubic
/// spline of `alpha` interpolates polynomials up to degree one exactly),
/// with or without `bicubic_exclude`.
#[test]
fn cubic_resize_keeps_a_ramp() {
    for exclude in [0, 1] {
        let h = &mut host();
        let a = placeholder(h, &[1, 1, 1, 12], "A");
        let out = call(
            h,
            "tvm.topi.image.resize2d",
            vec![a.clone(), floats(&[0.0; 4]), ints(&[1, 23])],
            &[
                ("method", s("cubic")),
                ("coordinate_transformation_mode", s("asymmetric")),
                ("bicubic_exclude", Value::Int(exclude)),
            ],
        );
        let x: Vec<f64> = (0..12).map(|k| 3.0 * k as f64 - 7.0).collect();
        let got = run(h, &a, &x, &out);
        // Away from the border, where clamping flattens the ramp.
        for (j, g) in got.iter().enumerate().take(19).skip(3) {
            let e = 3.0 * (12.0 / 23.0 * j as f64) - 7.0;
            assert!(
                (g - e).abs() < 1e-3,
                "exclude {exclude}, element {j}: {g} vs {e}"
            );
        }
    }
}

/// `tf_crop_and_resize` reads the region of interest and puts
/// `extrapolation_value` outside the image.
#[test]
fn crop_mode_reads_the_region_and_extrapolates() {
    let h = &mut host();
    let a = placeholder(h, &[1, 1, 1, 5], "A");
    let out = call(
        h,
        "tvm.topi.image.resize2d",
        vec![a.clone(), floats(&[0.0, 0.25, 1.0, 1.5]), ints(&[1, 3])],
        &[
            ("method", s("nearest_neighbor")),
            ("coordinate_transformation_mode", s("tf_crop_and_resize")),
            ("extrapolation_value", Value::Float(-9.0)),
        ],
    );
    let x = [10.0, 11.0, 12.0, 13.0, 14.0];
    // Source x: 0.25 * 4 + j * 1.25 * 4 / 2 = 1, 3.5 (floored), 6 (beyond).
    assert_eq!(run(h, &a, &x, &out), vec![11.0, 13.0, -9.0]);
}

fn expect_err(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)], needle: &str) {
    match try_call(h, path, pos, kw) {
        Ok(v) => panic!("{path} accepted a bad call: {}", tvm_api::repr(&v)),
        Err(e) => assert!(
            e.message.contains(needle),
            "{path}: expected `{needle}` in `{}`",
            e.message
        ),
    }
}

#[test]
fn bad_resize_arguments_are_errors() {
    let h = &mut host();
    let x = placeholder(h, &[1, 3, 8, 8], "x");
    let zero4 = floats(&[0.0; 4]);
    let r2 = "tvm.topi.image.resize2d";
    let base = |size: Value| vec![x.clone(), zero4.clone(), size];
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("layout", s("NCHX"))],
        "layout is not supported",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("layout", s("NCHWc"))],
        "layout is not supported",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("layout", s("NHWC4c"))],
        "layout is not supported",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("layout", Value::Int(3))],
        "must be a string",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("layout", s("NCHW4c"))],
        "dimensions",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("method", s("area"))],
        "Unknown resize method",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("coordinate_transformation_mode", s("half"))],
        "Unsupported coordinate_transformation_mode",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[
            ("method", s("nearest_neighbor")),
            ("rounding_method", s("bankers")),
        ],
        "Unknown rounding method",
    );
    expect_err(h, r2, base(ints(&[0, 4])), &[], "from 1 to");
    expect_err(h, r2, base(ints(&[4, -3])), &[], "from 1 to");
    expect_err(h, r2, base(ints(&[1 << 62, 4])), &[], "from 1 to");
    expect_err(h, r2, base(ints(&[4])), &[], "needs 2");
    expect_err(h, r2, base(Value::Int(4)), &[], "tuple of 2 sizes");
    expect_err(h, r2, base(floats(&[4.0, 4.0])), &[], "integers");
    expect_err(
        h,
        r2,
        vec![x.clone(), floats(&[0.0; 3]), ints(&[4, 4])],
        &[],
        "`roi` has 3 values",
    );
    expect_err(
        h,
        r2,
        vec![x.clone(), s("roi"), ints(&[4, 4])],
        &[],
        "`roi` needs 4 numbers",
    );
    expect_err(
        h,
        r2,
        vec![Value::Int(1), zero4.clone(), ints(&[4, 4])],
        &[],
        "needs a tensor",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("out_dtype", s("float33"))],
        "type",
    );
    expect_err(
        h,
        r2,
        base(ints(&[4, 4])),
        &[("output_shape", ints(&[1, 3, 4]))],
        "`output_shape` has 3 sizes",
    );
    let x1 = placeholder(h, &[1, 3, 8], "x1");
    expect_err(
        h,
        "tvm.topi.image.resize1d",
        vec![x1.clone(), floats(&[0.0; 2]), ints(&[4])],
        &[("layout", s("NCW4c"))],
        "layout is not supported",
    );
    expect_err(
        h,
        "tvm.topi.image.resize3d",
        vec![x1, floats(&[0.0; 6]), ints(&[4, 4, 4])],
        &[],
        "dimensions",
    );
}

#[test]
fn bad_upsampling_arguments_are_errors() {
    let h = &mut host();
    let x = placeholder(h, &[1, 3, 8, 8], "x");
    let up = "tvm.topi.nn.upsampling.upsampling";
    let two = |x: &Value| vec![x.clone(), Value::Int(2), Value::Int(2)];
    expect_err(
        h,
        up,
        two(&x),
        &[("layout", s("HWCN"))],
        "not support this layout",
    );
    expect_err(
        h,
        up,
        two(&x),
        &[("method", s("trilinear"))],
        "Unknown resize method",
    );
    expect_err(
        h,
        up,
        vec![x.clone(), Value::Int(0), Value::Int(2)],
        &[],
        "from 1 to",
    );
    expect_err(
        h,
        up,
        vec![x.clone(), Value::Float(-1.5), Value::Int(2)],
        &[],
        "from 1 to",
    );
    expect_err(
        h,
        up,
        vec![x.clone(), Value::Float(1e30), Value::Int(2)],
        &[],
        "from 1 to",
    );
    expect_err(
        h,
        up,
        vec![x.clone(), Value::Int(1 << 40), Value::Int(2)],
        &[],
        "from 1 to",
    );
    expect_err(
        h,
        up,
        vec![x.clone(), Value::Int(i64::MAX), Value::Int(2)],
        &[],
        "overflow",
    );
    expect_err(
        h,
        up,
        vec![x.clone(), s("2"), Value::Int(2)],
        &[],
        "must be a number",
    );
    let small = placeholder(h, &[8, 8], "small");
    expect_err(h, up, two(&small), &[], "dimensions");
    expect_err(
        h,
        "tvm.topi.nn.upsampling3d",
        vec![x, Value::Int(2), Value::Int(2), Value::Int(2)],
        &[],
        "dimensions",
    );
}
