//! TOPI's reductions (`topi.max`, `argmax`, `all`, ...) and broadcasting
//! and element-wise operators (`topi.maximum`, `greater`, `clip`, ...):
//! their stages are TOPI's (names, tags, axes, shapes), the built programs
//! compute on random inputs what a direct evaluation of each operator's
//! meaning gives, and bad arguments are errors.

use proptest::prelude::*;
use tvm_api::{ApiError, Args, ErrorClass, Host, Object, Value};

mod topi_common;
use topi_common::*;

fn placeholder(h: &mut dyn Host, shape: &[i64], name: &str, dtype: &str) -> Value {
    call(
        h,
        "te.placeholder",
        vec![ints(shape)],
        &[("name", Value::str(name)), ("dtype", Value::str(dtype))],
    )
}

fn op_name(t: &Value) -> String {
    tvm_api::str(&attr(&attr(t, "op"), "name"))
}

fn op_tag(t: &Value) -> String {
    tvm_api::str(&attr(&attr(t, "op"), "tag"))
}

fn shape(t: &Value) -> String {
    tvm_api::repr(&attr(t, "shape"))
}

fn axis_names(t: &Value, which: &str) -> Vec<String> {
    tvm_api::iter(&attr(&attr(t, "op"), which))
        .unwrap()
        .iter()
        .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
        .collect()
}

fn inputs(t: &Value) -> Vec<Value> {
    tvm_api::iter(&attr(&attr(t, "op"), "input_tensors")).unwrap()
}

fn dtype(t: &Value) -> String {
    tvm_api::str(&attr(t, "dtype"))
}

/// Builds `out` from `inputs` and runs it on `data` (one flat array per
/// input, in the input's type), returning the output's elements.
fn run(h: &mut dyn Host, inputs: &[(&Value, &[f64])], out: &Value) -> Vec<f64> {
    let s = call(h, "te.create_schedule", vec![attr(out, "op")], &[]);
    let mut args: Vec<Value> = inputs.iter().map(|(t, _)| (*t).clone()).collect();
    args.push(out.clone());
    let f = call(
        h,
        "tvm.build",
        vec![s, Value::list(args)],
        &[("target", Value::str("llvm"))],
    );
    let dev = call(h, "tvm.cpu", vec![Value::Int(0)], &[]);
    let mut arrays = Vec::new();
    for (t, data) in inputs {
        let arr = call(
            h,
            "tvm.nd.empty",
            vec![attr(t, "shape"), attr(t, "dtype"), dev.clone()],
            &[],
        );
        let Value::Object(Object::NDArray(a)) = &arr else {
            panic!("an array")
        };
        a.borrow_mut().data = data.to_vec();
        arrays.push(arr);
    }
    let out_arr = call(
        h,
        "tvm.nd.empty",
        vec![attr(out, "shape"), attr(out, "dtype"), dev],
        &[],
    );
    arrays.push(out_arr.clone());
    tvm_api::call(h, &f, Args::positional(arrays)).unwrap_or_else(|e| panic!("run: {}", e.message));
    let Value::Object(Object::NDArray(o)) = &out_arr else {
        panic!("an array")
    };
    let data = o.borrow().data.clone();
    data
}

/// Every index of `shape`, in row-major order.
fn indices(shape: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &n in shape {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..n).map(move |i| {
                    let mut q = p.clone();
                    q.push(i);
                    q
                })
            })
            .collect();
    }
    out
}

/// Pseudo-random data with repeats (so that argmax meets ties).
fn data(n: i64, seed: u64, levels: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|k| ((k * 7919 + seed * 104_729 + (k * k) % 13) % levels) as f64 - (levels / 2) as f64)
        .collect()
}

/// A reduction evaluated from its meaning: for each output position, the
/// input elements whose non-reduced indices match it, in row-major order
/// of the reduced indices, folded by `op` (argmax/argmin give the
/// position among them of the first best).
fn reduce_reference(op: &str, shape: &[i64], axes: &[usize], keep: bool, x: &[f64]) -> Vec<f64> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    let out_shape: Vec<i64> = kept.iter().map(|&d| shape[d]).collect();
    let red_shape: Vec<i64> = axes.iter().map(|&d| shape[d]).collect();
    let st = strides(shape);
    let _ = keep;
    indices(&out_shape)
        .into_iter()
        .map(|o| {
            let values: Vec<f64> = indices(&red_shape)
                .into_iter()
                .map(|r| {
                    let mut flat = 0;
                    for (k, &d) in kept.iter().enumerate() {
                        flat += o[k] * st[d];
                    }
                    for (k, &d) in axes.iter().enumerate() {
                        flat += r[k] * st[d];
                    }
                    x[flat as usize]
                })
                .collect();
            match op {
                "max" => values.iter().cloned().fold(f32::MIN as f64, f64::max),
                "min" => values.iter().cloned().fold(f32::MAX as f64, f64::min),
                "prod" => values.iter().product(),
                "all" => f64::from(values.iter().all(|&v| v != 0.0)),
                "any" => f64::from(values.iter().any(|&v| v != 0.0)),
                "argmax" | "argmin" => {
                    let mut best = 0;
                    for (i, &v) in values.iter().enumerate() {
                        let better = if op == "argmax" {
                            v > values[best]
                        } else {
                            v < values[best]
                        };
                        if better {
                            best = i;
                        }
                    }
                    best as f64
                }
                _ => unreachable!(),
            }
        })
        .collect()
}

fn reduction_case() -> impl Strategy<Value = (Vec<i64>, Vec<bool>, bool, bool, u64)> {
    prop::collection::vec(1i64..4, 1..4).prop_flat_map(|shape| {
        let n = shape.len();
        (
            Just(shape),
            prop::collection::vec(any::<bool>(), n),
            any::<bool>(),
            any::<bool>(),
            0u64..1000,
        )
    })
}

/// The `axis` argument for the chosen dimensions, sometimes negative, or
/// `None` when all are chosen and `as_none`.
fn axis_arg(chosen: &[usize], ndim: usize, negative: bool, as_none: bool) -> Value {
    if as_none && chosen.len() == ndim {
        return Value::None;
    }
    let items: Vec<Value> = chosen
        .iter()
        .map(|&d| {
            Value::Int(if negative {
                d as i64 - ndim as i64
            } else {
                d as i64
            })
        })
        .collect();
    if items.len() == 1 && negative {
        return items[0].clone();
    }
    Value::tuple(items)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// `topi.max`, `min`, `prod`, `argmax` and `argmin` reduce the chosen
    /// axes as the operators are defined, keeping them or not.
    #[test]
    fn reductions_reduce_as_defined(
        (shape, pick, keep, negative, seed) in reduction_case(),
        which in 0usize..5,
    ) {
        let op = ["max", "min", "prod", "argmax", "argmin"][which];
        let mut axes: Vec<usize> = (0..shape.len()).filter(|&d| pick[d]).collect();
        if axes.is_empty() {
            axes.push(shape.len() - 1);
        }
        let h = &mut host();
        let a = placeholder(h, &shape, "A", "float32");
        let n: i64 = shape.iter().product();
        let x = data(n, seed, if op == "prod" { 5 } else { 7 });
        let axis = axis_arg(&axes, shape.len(), negative, seed % 2 == 0);
        let out = call(h, &format!("tvm.topi.{op}"), vec![a.clone(), axis], &[("keepdims", Value::Bool(keep))]);
        let expected_shape: Vec<i64> = (0..shape.len())
            .filter_map(|d| if axes.contains(&d) { keep.then_some(1) } else { Some(shape[d]) })
            .collect();
        prop_assert_eq!(shape_of(&out), expected_shape);
        let got = run(h, &[(&a, &x)], &out);
        let want = reduce_reference(op, &shape, &axes, keep, &x);
        prop_assert_eq!(got, want);
    }

    /// `topi.all` and `topi.any` of boolean tensors.
    #[test]
    fn logical_reductions_reduce_as_defined(
        (shape, pick, keep, negative, seed) in reduction_case(),
        all in any::<bool>(),
    ) {
        let op = if all { "all" } else { "any" };
        let axes: Vec<usize> = (0..shape.len()).filter(|&d| pick[d]).collect();
        let axes = if axes.is_empty() { (0..shape.len()).collect() } else { axes };
        let h = &mut host();
        let a = placeholder(h, &shape, "A", "bool");
        let n: i64 = shape.iter().product();
        // Mostly true for `all`, mostly false for `any`, so both answers occur.
        let x: Vec<f64> = data(n, seed, 5).iter().map(|&v| f64::from((v != 0.0) == all)).collect();
        let axis = axis_arg(&axes, shape.len(), negative, seed % 2 == 0);
        let out = call(h, &format!("tvm.topi.reduction.{op}"), vec![a.clone(), axis, Value::Bool(keep)], &[]);
        prop_assert_eq!(dtype(&out), "bool");
        let got = run(h, &[(&a, &x)], &out);
        prop_assert_eq!(got, reduce_reference(op, &shape, &axes, keep, &x));
    }
}

fn shape_of(t: &Value) -> Vec<i64> {
    tvm_api::iter(&attr(t, "shape"))
        .unwrap()
        .iter()
        .map(|d| tvm_api::as_int(d).unwrap_or_else(|| tvm_api::repr(d).parse().unwrap()))
        .collect()
}

#[test]
fn reductions_build_topis_stages() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3, 4], "A", "float32");
    let m = call(
        h,
        "tvm.topi.max",
        vec![a.clone(), ints(&[0, -1])],
        &[("keepdims", Value::Bool(true))],
    );
    assert_eq!(op_name(&m), "A_red");
    assert_eq!(op_tag(&m), "comm_reduce");
    assert_eq!(shape(&m), "[1, 3, 1]");
    assert_eq!(axis_names(&m, "axis"), ["ax0", "ax1", "ax2"]);
    assert_eq!(axis_names(&m, "reduce_axis"), ["k0", "k2"]);
    for op in ["min", "prod"] {
        let r = call(h, &format!("tvm.topi.{op}"), vec![a.clone()], &[]);
        assert_eq!(
            (op_name(&r), op_tag(&r)),
            ("A_red".into(), "comm_reduce".into())
        );
        assert_eq!(shape(&r), "[]");
        assert_eq!(axis_names(&r, "reduce_axis"), ["k0", "k1", "k2"]);
    }
    for op in ["argmax", "argmin"] {
        let r = call(
            h,
            &format!("tvm.topi.reduction.{op}"),
            vec![a.clone()],
            &[
                ("axis", Value::Int(1)),
                ("select_last_index", Value::Bool(false)),
            ],
        );
        assert_eq!(
            (op_name(&r), op_tag(&r)),
            ("A_red".into(), "comm_reduce_idx".into())
        );
        assert_eq!(dtype(&r), "int32");
        assert_eq!(shape(&r), "[2, 4]");
        assert_eq!(axis_names(&r, "axis"), ["ax0", "ax1"]);
        let temp = &inputs(&r)[0];
        assert_eq!(op_name(temp), "A_red_temp");
        assert_eq!(op_tag(temp), "comm_reduce_idx");
        assert_eq!(tvm_api::repr(&attr(&attr(temp, "op"), "num_outputs")), "2");
        assert_eq!(axis_names(temp, "reduce_axis"), ["k1"]);
    }
    let b = placeholder(h, &[5, 6], "B", "bool");
    for op in ["all", "any"] {
        let r = call(
            h,
            &format!("tvm.topi.{op}"),
            vec![b.clone(), Value::Int(-1)],
            &[],
        );
        assert_eq!(
            (op_name(&r), op_tag(&r)),
            ("B_red".into(), "comm_reduce".into())
        );
        assert_eq!((shape(&r), dtype(&r)), ("[5]".into(), "bool".into()));
    }
}

/// Broadcasting binary operators with their NumPy meaning.
const BINARY: &[&str] = &[
    "maximum",
    "minimum",
    "power",
    "mod",
    "floor_mod",
    "greater",
    "less",
    "equal",
    "not_equal",
    "greater_equal",
    "less_equal",
];

fn binary_reference(op: &str, a: f64, b: f64) -> f64 {
    let t = |c: bool| f64::from(c);
    match op {
        "maximum" => a.max(b),
        "minimum" => a.min(b),
        "power" => (a as f32).powf(b as f32) as f64,
        "mod" => a % b,
        "floor_mod" => a - (a / b).floor() * b,
        "greater" => t(a > b),
        "less" => t(a < b),
        "equal" => t(a == b),
        "not_equal" => t(a != b),
        "greater_equal" => t(a >= b),
        "less_equal" => t(a <= b),
        "logical_and" => t(a != 0.0 && b != 0.0),
        "logical_or" => t(a != 0.0 || b != 0.0),
        _ => unreachable!(),
    }
}

/// Two shapes that broadcast: a common shape, each side dropping leading
/// dimensions and setting some to 1.
fn broadcast_case() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, Vec<i64>)> {
    prop::collection::vec(1i64..4, 1..4).prop_flat_map(|out| {
        let n = out.len();
        (
            Just(out),
            (0..n, prop::collection::vec(any::<bool>(), n)),
            (0..n, prop::collection::vec(any::<bool>(), n)),
        )
            .prop_map(|(out, (da, ones_a), (db, ones_b))| {
                let side = |drop: usize, ones: &[bool]| -> Vec<i64> {
                    (drop..out.len())
                        .map(|d| if ones[d] { 1 } else { out[d] })
                        .collect()
                };
                let (a, b) = (side(da, &ones_a), side(db, &ones_b));
                (out, a, b)
            })
    })
}

/// Element `o` of the broadcast output read from a side of shape `s`.
fn read(x: &[f64], s: &[i64], o: &[i64]) -> f64 {
    let st = strides(s);
    let skip = o.len() - s.len();
    let flat: i64 = s
        .iter()
        .enumerate()
        .map(|(i, &n)| if n == 1 { 0 } else { o[skip + i] * st[i] })
        .sum();
    x[flat as usize]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Tensor-tensor broadcasting operators compute NumPy's broadcast of
    /// the operation; the output's shape is the broadcast shape.
    #[test]
    fn binary_operators_broadcast_as_defined(
        (_, sa, sb) in broadcast_case(),
        which in 0usize..13,
        seed in 0u64..1000,
    ) {
        let logical = which >= 11;
        let op = if logical { ["logical_and", "logical_or"][which - 11] } else { BINARY[which] };
        let dt = if logical { "bool" } else { "float32" };
        let h = &mut host();
        let a = placeholder(h, &sa, "A", dt);
        let b = placeholder(h, &sb, "B", dt);
        let na: i64 = sa.iter().product();
        let nb: i64 = sb.iter().product();
        let fix = |v: f64| if logical { f64::from(v > 0.0) } else if op == "power" { v.abs() / 2.0 } else { v };
        let xa: Vec<f64> = data(na, seed, 9).into_iter().map(fix).collect();
        // Divisors are never zero.
        let xb: Vec<f64> = data(nb, seed + 1, 9).into_iter().map(|v| if v == 0.0 && !logical { 3.0 } else { v }).map(fix).collect();
        let r = call(h, &format!("tvm.topi.{op}"), vec![a.clone(), b.clone()], &[]);
        // The generated common shape, less the leading dimensions both sides
        // dropped and with the dimensions both set to 1.
        let rank = sa.len().max(sb.len());
        let out: Vec<i64> = (0..rank)
            .map(|d| {
                let dim = |s: &[i64]| (d + s.len()).checked_sub(rank).map_or(1, |i| s[i]);
                dim(&sa).max(dim(&sb))
            })
            .collect();
        prop_assert_eq!(shape_of(&r), out.clone());
        prop_assert_eq!(op_tag(&r), "broadcast");
        let got = run(h, &[(&a, &xa), (&b, &xb)], &r);
        let want: Vec<f64> = indices(&out)
            .iter()
            .map(|o| binary_reference(op, read(&xa, &sa, o), read(&xb, &sb, o)))
            .collect();
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{}: {} vs {}", op, g, w);
        }
    }

    /// A tensor and a Python scalar on either side (`elemwise`).
    #[test]
    fn binary_operators_take_scalars(
        shape in prop::collection::vec(1i64..4, 1..3),
        which in 0usize..11,
        scalar in -3i64..4,
        scalar_left in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let op = BINARY[which];
        let h = &mut host();
        let a = placeholder(h, &shape, "A", "float32");
        let n: i64 = shape.iter().product();
        let x: Vec<f64> = data(n, seed, 9).into_iter().map(|v| if v == 0.0 { 1.0 } else { v.abs() }).collect();
        let s = if scalar == 0 { 2.0 } else { scalar as f64 };
        let (l, r) = if scalar_left { (Value::Float(s), a.clone()) } else { (a.clone(), Value::Float(s)) };
        let out = call(h, &format!("tvm.topi.broadcast.{op}"), vec![l, r], &[]);
        prop_assert_eq!(op_tag(&out), "elemwise");
        prop_assert_eq!(op_name(&out), format!("T_{op}"));
        let got = run(h, &[(&a, &x)], &out);
        for (g, &v) in got.iter().zip(&x) {
            let w = if scalar_left { binary_reference(op, s, v) } else { binary_reference(op, v, s) };
            prop_assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{}: {} vs {}", op, g, w);
        }
    }

    /// `clip`, `sign`, `logical_not`, `fast_tanh` and `fast_erf` element by
    /// element (the fast approximations within 1e-5 of the functions).
    #[test]
    fn unary_operators_compute_as_defined(
        shape in prop::collection::vec(1i64..5, 1..3),
        which in 0usize..5,
        seed in 0u64..1000,
    ) {
        let op = ["clip", "sign", "logical_not", "fast_tanh", "fast_erf"][which];
        let h = &mut host();
        let dt = if op == "logical_not" { "bool" } else { "float32" };
        let a = placeholder(h, &shape, "A", dt);
        let n: i64 = shape.iter().product();
        let x: Vec<f64> = data(n, seed, 25)
            .into_iter()
            .map(|v| if dt == "bool" { f64::from(v > 0.0) } else { v / 4.0 })
            .collect();
        let out = if op == "clip" {
            call(h, "tvm.topi.math.clip", vec![a.clone(), Value::Float(-1.5), Value::Int(2)], &[])
        } else {
            call(h, &format!("tvm.topi.{op}"), vec![a.clone()], &[])
        };
        let got = run(h, &[(&a, &x)], &out);
        for (g, &v) in got.iter().zip(&x) {
            let w = match op {
                "clip" => v.clamp(-1.5, 2.0),
                "sign" => if v > 0.0 { 1.0 } else if v < 0.0 { -1.0 } else { 0.0 },
                "logical_not" => f64::from(v == 0.0),
                "fast_tanh" => v.tanh(),
                _ => erf(v),
            };
            prop_assert!((g - w).abs() <= 1e-5, "{}({}): {} vs {}", op, v, g, w);
        }
    }
}

/// The error function (Abramowitz and Stegun 7.1.26 is too coarse; this
/// is the series for small |x| and the continued fraction's complement
/// beyond), accurate to about 1e-12.
fn erf(x: f64) -> f64 {
    if x.abs() > 3.0 {
        // erfc(3) is 2.2e-5; beyond, |erf| is 1 within the test's 1e-5.
        let t = 1.0 / (1.0 + 0.5 * x.abs());
        // Numerical Recipes' erfc polynomial, by Horner's rule (a loop:
        // written nested, it takes rustfmt most of a minute).
        const C: [f64; 10] = [
            -1.265_512_23,
            1.000_023_68,
            0.374_091_96,
            0.096_784_18,
            -0.186_288_06,
            0.278_868_07,
            -1.135_203_98,
            1.488_515_87,
            -0.822_152_23,
            0.170_872_77,
        ];
        let p = C.iter().rev().fold(0.0, |acc, c| c + t * acc);
        let y = 1.0 - t * (-x * x + p).exp();
        return y.copysign(x);
    }
    // Maclaurin series: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
    let mut sum = 0.0;
    let mut term = x;
    for n in 0..80 {
        sum += term / (2 * n + 1) as f64;
        term *= -x * x / (n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn broadcast_operators_build_topis_stages() {
    let h = &mut host();
    let a = placeholder(h, &[1, 64, 56, 56], "A", "float32");
    let b = placeholder(h, &[64, 1, 1], "B", "float32");
    let m = call(h, "tvm.topi.maximum", vec![a.clone(), b.clone()], &[]);
    assert_eq!(
        (op_name(&m), op_tag(&m)),
        ("T_maximum".into(), "broadcast".into())
    );
    assert_eq!(shape(&m), "[1, 64, 56, 56]");
    assert_eq!(axis_names(&m, "axis"), ["ax0", "ax1", "ax2", "ax3"]);
    let g = call(
        h,
        "tvm.topi.greater",
        vec![a.clone(), Value::Float(0.0)],
        &[],
    );
    assert_eq!(
        (op_name(&g), op_tag(&g), dtype(&g)),
        ("T_greater".into(), "elemwise".into(), "bool".into())
    );
    let n = call(h, "tvm.topi.logical_not", vec![g.clone()], &[]);
    assert_eq!(
        (op_name(&n), op_tag(&n)),
        ("T_logical_not".into(), "elemwise".into())
    );
    let c = call(
        h,
        "tvm.topi.clip",
        vec![a.clone(), Value::Float(0.0), Value::Float(6.0)],
        &[],
    );
    assert_eq!(
        (op_name(&c), op_tag(&c)),
        ("compute".into(), "elemwise".into())
    );
    assert_eq!(axis_names(&c, "axis"), ["i0", "i1", "i2", "i3"]);
    let s = call(h, "tvm.topi.math.sign", vec![a.clone()], &[]);
    assert_eq!(
        (op_name(&s), op_tag(&s)),
        ("T_sign".into(), "elemwise".into())
    );
    let t = call(h, "tvm.topi.fast_tanh", vec![a.clone()], &[]);
    assert_eq!(op_name(&t), "T_fast_tanh");
    let clamp = &inputs(&t)[0];
    assert_eq!(op_name(clamp), "T_maximum");
    assert_eq!(op_name(&inputs(clamp)[0]), "T_minimum");
    let e = call(h, "tvm.topi.fast_erf", vec![a.clone()], &[]);
    assert_eq!(
        (op_name(&e), op_tag(&e)),
        ("T_fast_erf".into(), "elemwise".into())
    );
    let d = placeholder(h, &[8], "D", "float64");
    assert_eq!(
        op_name(&call(h, "tvm.topi.fast_erf", vec![d.clone()], &[])),
        "T_erf"
    );
    assert_eq!(
        op_name(&inputs(&call(h, "tvm.topi.fast_tanh", vec![d], &[]))[0]),
        "D"
    );
    // An int8 tensor stays int8 against a Python int.
    let i = placeholder(h, &[8], "I", "int8");
    let r = call(h, "tvm.topi.maximum", vec![i.clone(), Value::Int(0)], &[]);
    assert_eq!(dtype(&r), "int8");
    assert_eq!(
        dtype(&call(h, "tvm.topi.floor_mod", vec![i, Value::Int(3)], &[])),
        "int8"
    );
    // Two scalars give an expression, not a tensor.
    let e = call(
        h,
        "tvm.topi.maximum",
        vec![Value::Int(3), Value::Int(5)],
        &[],
    );
    assert!(!matches!(e, Value::Object(Object::Tensor(_))));
}

fn error(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)]) -> ApiError {
    match try_call(h, path, pos, kw) {
        Ok(v) => panic!(
            "{path} accepted bad arguments, giving {}",
            tvm_api::repr(&v)
        ),
        Err(e) => e,
    }
}

#[test]
fn hostile_arguments_are_errors() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3], "A", "float32");
    let b = placeholder(h, &[4, 3], "B", "float32");
    let i = placeholder(h, &[4], "I", "int32");
    let z = call(
        h,
        "te.placeholder",
        vec![Value::tuple(vec![])],
        &[("name", Value::str("Z"))],
    );
    for op in ["max", "min", "prod", "argmax", "argmin"] {
        let path = format!("tvm.topi.{op}");
        for axis in [
            Value::Int(2),
            Value::Int(-3),
            Value::Int(1 << 62),
            Value::Int(i64::MIN),
        ] {
            let e = error(h, &path, vec![a.clone(), axis], &[]);
            assert_eq!(e.class, ErrorClass::ValueError, "{op}: {}", e.message);
        }
        let e = error(h, &path, vec![a.clone(), Value::str("0")], &[]);
        assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
        let e = error(
            h,
            &path,
            vec![
                a.clone(),
                ints(&[0]),
                Value::Bool(false),
                Value::Bool(true),
                Value::None,
            ],
            &[],
        );
        assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
        let e = error(h, &path, vec![Value::Int(3)], &[]);
        assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
        let e = error(h, &path, vec![z.clone()], &[]);
        assert_eq!(e.class, ErrorClass::ValueError, "{}", e.message);
        let e = error(h, &path, vec![a.clone()], &[("axes", Value::Int(0))]);
        assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    }
    for op in ["all", "any"] {
        let e = error(h, &format!("tvm.topi.{op}"), vec![a.clone()], &[]);
        assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    }
    // Shapes that do not broadcast.
    for op in ["maximum", "greater", "floor_mod", "logical_and"] {
        let e = error(
            h,
            &format!("tvm.topi.{op}"),
            vec![a.clone(), b.clone()],
            &[],
        );
        assert_eq!(e.class, ErrorClass::ValueError, "{}", e.message);
    }
    // Types TVM refuses: power of integers, logical operators of numbers.
    let e = error(h, "tvm.topi.power", vec![i.clone(), Value::Int(2)], &[]);
    assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    let e = error(h, "tvm.topi.logical_and", vec![a.clone(), a.clone()], &[]);
    assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    let e = error(h, "tvm.topi.logical_not", vec![a.clone()], &[]);
    assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    // A constant that does not fit the tensor's type.
    let i8t = placeholder(h, &[4], "J", "int8");
    let e = error(
        h,
        "tvm.topi.maximum",
        vec![i8t.clone(), Value::Int(300)],
        &[],
    );
    assert_eq!(e.class, ErrorClass::ValueError, "{}", e.message);
    // A float bound of an integer tensor truncates, as TVM's `const`
    // makes an integer constant of a float.
    let c = call(
        h,
        "tvm.topi.clip",
        vec![i.clone(), Value::Float(0.5), Value::Int(3)],
        &[],
    );
    assert_eq!(dtype(&c), dtype(&i));
    let e = error(
        h,
        "tvm.topi.clip",
        vec![Value::Int(1), Value::Int(0), Value::Int(3)],
        &[],
    );
    assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    let e = error(h, "tvm.topi.maximum", vec![a.clone(), Value::str("x")], &[]);
    assert_eq!(e.class, ErrorClass::TypeError, "{}", e.message);
    // What element expressions cannot represent is refused, not faked.
    let e = error(h, "tvm.topi.mod", vec![i.clone(), Value::Int(3)], &[]);
    assert_eq!(e.class, ErrorClass::NotSupported, "{}", e.message);
    for (op, args) in [
        ("bitwise_and", vec![i.clone(), i.clone()]),
        ("left_shift", vec![i.clone(), Value::Int(1)]),
        ("logical_xor", vec![i.clone(), i.clone()]),
        ("isnan", vec![a.clone()]),
        ("fast_exp", vec![a.clone()]),
        ("math.reinterpret", vec![a.clone(), Value::str("int32")]),
    ] {
        let e = error(h, &format!("tvm.topi.{op}"), args, &[]);
        assert_eq!(e.class, ErrorClass::NotSupported, "{op}: {}", e.message);
    }
}
