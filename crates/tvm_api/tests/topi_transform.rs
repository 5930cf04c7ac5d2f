//! TOPI's shape and layout operators (`transpose`, `expand_dims`,
//! `squeeze`, `concatenate`, `stack`, `split`, `flip`, `strided_slice`,
//! `take`, `where`, `full`, `full_like`): their stages are TOPI's (names,
//! tags, axes, shapes), the built programs compute on random inputs what a
//! direct evaluation of each operator's meaning gives, and hostile
//! arguments are errors, not panics.

use proptest::prelude::*;
use tvm_api::{ApiError, Args, Host, Object, Parameters, Session, Value};

/// A host for programs that pass no functions of their own.
struct NoFunctions(Session);

impl Host for NoFunctions {
    fn call(&mut self, _f: &Value, _args: Vec<Value>) -> Result<Value, ApiError> {
        unreachable!("these programs pass no functions")
    }
    fn parameters(&self, _f: &Value) -> Option<Parameters> {
        None
    }
    fn session(&mut self) -> &mut Session {
        &mut self.0
    }
}

fn host() -> NoFunctions {
    NoFunctions(Session::default())
}

fn try_call(
    h: &mut dyn Host,
    path: &str,
    pos: Vec<Value>,
    kw: &[(&str, Value)],
) -> Result<Value, ApiError> {
    let f = tvm_api::resolve(path).unwrap_or_else(|| panic!("{path} resolves"));
    let args = Args {
        positional: pos,
        keywords: kw
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    };
    tvm_api::call(h, &f, args)
}

fn call(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)]) -> Value {
    try_call(h, path, pos, kw).unwrap_or_else(|e| panic!("{path}: {}", e.message))
}

fn attr(v: &Value, name: &str) -> Value {
    tvm_api::get_attr(v, name).unwrap_or_else(|e| panic!(".{name}: {}", e.message))
}

fn ints(items: &[i64]) -> Value {
    Value::tuple(items.iter().map(|&i| Value::Int(i)).collect())
}

fn placeholder(h: &mut dyn Host, shape: &[i64], name: &str) -> Value {
    call(
        h,
        "te.placeholder",
        vec![ints(shape)],
        &[("name", Value::str(name))],
    )
}

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

fn strs(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Builds `out` from `inputs` and runs it on `data` (one flat array and
/// dtype per input), returning the output's elements.
fn run(h: &mut dyn Host, inputs: &[(&Value, &[f64], &str)], out: &Value) -> Vec<f64> {
    let s = call(h, "te.create_schedule", vec![attr(out, "op")], &[]);
    let mut args: Vec<Value> = inputs.iter().map(|(t, _, _)| (*t).clone()).collect();
    args.push(out.clone());
    let f = call(
        h,
        "tvm.build",
        vec![s, Value::list(args)],
        &[("target", Value::str("llvm"))],
    );
    let dev = call(h, "tvm.cpu", vec![Value::Int(0)], &[]);
    let mut arrays = Vec::new();
    for (t, data, dtype) in inputs {
        let dt: tir::DataType = dtype.parse().expect("a dtype");
        let flat = Value::list(data.iter().map(|&x| Value::Float(x)).collect());
        let arr = call(
            h,
            "tvm.nd.empty",
            vec![attr(t, "shape"), Value::str(dtype), dev.clone()],
            &[],
        );
        let Value::Object(Object::NDArray(a)) = &arr else {
            panic!("an array")
        };
        let flat = tvm_api::NDArray::from_value(&flat, Some(dt)).expect("numbers");
        a.borrow_mut().data = flat.data;
        arrays.push(arr);
    }
    let out_dtype = match attr(out, "dtype") {
        Value::Str(s) => s.to_string(),
        _ => "float32".to_string(),
    };
    let out_arr = call(
        h,
        "tvm.nd.empty",
        vec![attr(out, "shape"), Value::str(&out_dtype), dev],
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

/// Row-major strides of `shape`.
fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
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

fn int_placeholder(h: &mut dyn Host, shape: &[i64], name: &str) -> Value {
    call(
        h,
        "te.placeholder",
        vec![ints(shape)],
        &[("name", Value::str(name)), ("dtype", Value::str("int32"))],
    )
}

fn error(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)], contains: &str) {
    match try_call(h, path, pos, kw) {
        Ok(v) => panic!("{path} accepted hostile input: {}", tvm_api::repr(&v)),
        Err(e) => assert!(
            e.message.contains(contains),
            "{path}: `{}` does not say `{contains}`",
            e.message
        ),
    }
}

#[test]
fn transform_operators_build_topis_stages() {
    let h = &mut host();
    let x = placeholder(h, &[2, 3, 4], "x");
    let one = placeholder(h, &[2, 1, 4], "one");
    let t = call(
        h,
        "tvm.topi.transpose",
        vec![x.clone(), ints(&[2, 0, 1])],
        &[],
    );
    assert_eq!(
        stage(&t),
        (
            "T_transpose".into(),
            "injective".into(),
            strs(&["ax0", "ax1", "ax2"]),
            "[4, 2, 3]".into()
        )
    );
    let e = call(
        h,
        "tvm.topi.expand_dims",
        vec![x.clone(), Value::Int(-1), Value::Int(2)],
        &[],
    );
    assert_eq!(stage(&e).0, "T_expand_dims");
    assert_eq!(stage(&e).1, "broadcast");
    assert_eq!(stage(&e).3, "[2, 3, 4, 1, 1]");
    let s = call(h, "tvm.topi.squeeze", vec![one.clone()], &[]);
    assert_eq!(stage(&s).0, "T_squeeze");
    assert_eq!(stage(&s).3, "[2, 4]");
    let c = call(
        h,
        "tvm.topi.concatenate",
        vec![Value::list(vec![x.clone(), one.clone()])],
        &[("axis", Value::Int(1))],
    );
    assert_eq!(stage(&c).0, "T_concat");
    assert_eq!(stage(&c).3, "[2, 4, 4]");
    let st = call(
        h,
        "tvm.topi.stack",
        vec![Value::list(vec![x.clone(), x.clone()]), Value::Int(0)],
        &[],
    );
    assert_eq!(stage(&st).3, "[2, 2, 3, 4]");
    let parts = tvm_api::iter(&call(
        h,
        "tvm.topi.split",
        vec![x.clone(), Value::Int(2)],
        &[("axis", Value::Int(2))],
    ))
    .unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(stage(&parts[1]).0, "T_split_sections");
    assert_eq!(stage(&parts[1]).3, "[2, 3, 2]");
    let parts = tvm_api::iter(&call(
        h,
        "tvm.topi.split",
        vec![x.clone(), ints(&[1, 3])],
        &[("axis", Value::Int(2))],
    ))
    .unwrap();
    assert_eq!(
        parts.iter().map(|p| stage(p).3).collect::<Vec<_>>(),
        ["[2, 3, 1]", "[2, 3, 2]", "[2, 3, 1]"]
    );
    assert_eq!(stage(&parts[0]).0, "T_split");
    let sl = call(
        h,
        "tvm.topi.strided_slice",
        vec![x.clone(), ints(&[0, 1]), ints(&[2, 3])],
        &[],
    );
    assert_eq!(stage(&sl).0, "T_strided_slice");
    assert_eq!(stage(&sl).3, "[2, 2, 4]");
    let f = call(
        h,
        "tvm.topi.flip",
        vec![x.clone()],
        &[("axis", Value::Int(1))],
    );
    assert_eq!(stage(&f).0, "T_reverse_sequence");
    let idx = int_placeholder(h, &[5], "idx");
    let tk = call(
        h,
        "tvm.topi.take",
        vec![x.clone(), idx.clone()],
        &[("axis", Value::Int(1))],
    );
    assert_eq!(
        stage(&tk),
        (
            "T_take".into(),
            "injective".into(),
            strs(&["ax0", "ax1", "ax2"]),
            "[2, 5, 4]".into()
        )
    );
    let fl = call(
        h,
        "tvm.topi.full_like",
        vec![x.clone(), Value::Float(0.5)],
        &[],
    );
    assert_eq!(stage(&fl).0, "T_full_like");
    assert_eq!(stage(&fl).1, "elemwise");
    let full = call(
        h,
        "tvm.topi.full",
        vec![ints(&[3, 2]), Value::str("int32"), Value::Int(7)],
        &[],
    );
    assert_eq!(stage(&full).0, "T_full");
    let w = call(
        h,
        "tvm.topi.where",
        vec![one.clone(), x.clone(), one.clone()],
        &[],
    );
    assert_eq!(stage(&w).0, "T_where");
    assert_eq!(stage(&w).3, "[2, 3, 4]");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Transposes, flips, squeezes and expansions move elements as their
    /// definitions say.
    #[test]
    fn permutations_move_elements_as_defined(
        shape in prop::collection::vec(1i64..4, 2..5),
        rot in 0usize..4,
        axis in 0usize..4,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let axis = axis % n;
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 8.0);
        // A rotation of the axes.
        let perm: Vec<i64> = (0..n).map(|i| ((i + rot) % n) as i64).collect();
        let t = call(h, "tvm.topi.transpose", vec![x.clone(), ints(&perm)], &[]);
        let out_shape: Vec<i64> = perm.iter().map(|&p| shape[p as usize]).collect();
        let expected: Vec<f64> = indices(&out_shape).into_iter().map(|o| {
            let mut i = vec![0; n];
            for (k, &p) in perm.iter().enumerate() { i[p as usize] = o[k]; }
            at(&v, &shape, &i)
        }).collect();
        close(&run(h, &[(&x, &v, "float32")], &t), &expected, 0.0)?;

        let f = call(h, "tvm.topi.flip", vec![x.clone()], &[("axis", Value::Int(axis as i64))]);
        let expected: Vec<f64> = indices(&shape).into_iter().map(|mut i| {
            i[axis] = shape[axis] - 1 - i[axis];
            at(&v, &shape, &i)
        }).collect();
        close(&run(h, &[(&x, &v, "float32")], &f), &expected, 0.0)?;

        // expand_dims then squeeze of the new axis gives the input back.
        let e = call(h, "tvm.topi.expand_dims", vec![x.clone(), Value::Int(axis as i64)], &[]);
        let s = call(h, "tvm.topi.squeeze", vec![e], &[("axis", ints(&[axis as i64]))]);
        close(&run(h, &[(&x, &v, "float32")], &s), &v, 0.0)?;
    }

    /// Concatenating split pieces along an axis gives the input back, and
    /// each piece is its slice of the input.
    #[test]
    fn split_and_concatenate_are_inverse(
        shape in prop::collection::vec(1i64..5, 1..4),
        axis in 0usize..3,
        cut in 1i64..4,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let axis = axis % shape.len();
        let size = shape[axis];
        prop_assume!(size >= 2);
        let cut = 1 + cut % (size - 1);
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 8.0);
        let parts = tvm_api::iter(&call(h, "tvm.topi.split", vec![x.clone(), ints(&[cut])], &[("axis", Value::Int(axis as i64))])).unwrap();
        let mut first = shape.clone();
        first[axis] = cut;
        let expected: Vec<f64> = indices(&first).into_iter().map(|i| at(&v, &shape, &i)).collect();
        close(&run(h, &[(&x, &v, "float32")], &parts[0]), &expected, 0.0)?;
        let back = call(h, "tvm.topi.concatenate", vec![Value::list(parts)], &[("axis", Value::Int(axis as i64))]);
        close(&run(h, &[(&x, &v, "float32")], &back), &v, 0.0)?;
    }

    /// `strided_slice` reads `begin + i * stride` on each axis, with
    /// Python's clamping of negative and out-of-range bounds.
    #[test]
    fn strided_slice_slices_as_python_does(
        shape in prop::collection::vec(1i64..6, 1..4),
        bounds in prop::collection::vec((-7i64..7, -7i64..7, prop_oneof![-3i64..0, 1i64..4]), 3),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 8.0);
        let (b, e, s): (Vec<i64>, Vec<i64>, Vec<i64>) = (
            bounds[..n].iter().map(|t| t.0).collect(),
            bounds[..n].iter().map(|t| t.1).collect(),
            bounds[..n].iter().map(|t| t.2).collect(),
        );
        let out = call(h, "tvm.topi.strided_slice", vec![x.clone(), ints(&b), ints(&e), ints(&s)], &[]);
        // Python's slice(b, e, s).indices(n), written out.
        let picks: Vec<Vec<i64>> = (0..n).map(|d| {
            let len = shape[d];
            let norm = |i: i64, low: i64, high: i64| { let i = if i < 0 { i + len } else { i }; i.clamp(low, high) };
            let (lo, hi) = if s[d] < 0 { (-1, len - 1) } else { (0, len) };
            let (start, stop) = (norm(b[d], lo, hi), norm(e[d], lo, hi));
            let mut out = vec![];
            let mut i = start;
            while (s[d] > 0 && i < stop) || (s[d] < 0 && i > stop) { out.push(i); i += s[d]; }
            out
        }).collect();
        let out_shape: Vec<i64> = picks.iter().map(|p| p.len() as i64).collect();
        prop_assert_eq!(stage(&out).3, format!("{out_shape:?}"));
        prop_assume!(out_shape.iter().all(|&d| d > 0));
        let expected: Vec<f64> = indices(&out_shape).into_iter().map(|o| {
            let i: Vec<i64> = (0..n).map(|d| picks[d][o[d] as usize]).collect();
            at(&v, &shape, &i)
        }).collect();
        close(&run(h, &[(&x, &v, "float32")], &out), &expected, 0.0)?;
    }

    /// `take` reads the input at the positions the indices hold, clipped
    /// into range or wrapped around, along an axis or in the flattened
    /// input; `where` chooses by the condition.
    #[test]
    fn take_and_where_read_as_defined(
        shape in prop::collection::vec(1i64..5, 1..4),
        axis in 0usize..4,
        picks in prop::collection::vec(-9i64..9, 1..5),
        wrap in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 8.0);
        let idx = int_placeholder(h, &[picks.len() as i64], "idx");
        let iv: Vec<f64> = picks.iter().map(|&p| p as f64).collect();
        let mode = if wrap { "wrap" } else { "clip" };
        let fix = |p: i64, size: i64| if wrap { p.rem_euclid(size) } else { p.clamp(0, size - 1) };
        let inputs = [(&x, &v[..], "float32"), (&idx, &iv[..], "int32")];
        if axis >= n {
            let out = call(h, "tvm.topi.take", vec![x.clone(), idx.clone()], &[("mode", Value::str(mode))]);
            let total = v.len() as i64;
            let expected: Vec<f64> = picks.iter().map(|&p| v[fix(p, total) as usize]).collect();
            close(&run(h, &inputs, &out), &expected, 0.0)?;
        } else {
            let out = call(h, "tvm.topi.take", vec![x.clone(), idx.clone()], &[("axis", Value::Int(axis as i64)), ("mode", Value::str(mode))]);
            let mut out_shape = shape.clone();
            out_shape[axis] = picks.len() as i64;
            let expected: Vec<f64> = indices(&out_shape).into_iter().map(|mut i| {
                i[axis] = fix(picks[i[axis] as usize], shape[axis]);
                at(&v, &shape, &i)
            }).collect();
            close(&run(h, &inputs, &out), &expected, 0.0)?;
        }

        let c = placeholder(h, &shape[1..], "c");
        let cv: Vec<f64> = data(c_len(&shape), seed + 3, 1.0).iter().map(|&e| if e > 0.0 { 1.0 } else { 0.0 }).collect();
        let y = placeholder(h, &shape, "y");
        let yv = data(v.len(), seed + 9, 8.0);
        let w = call(h, "tvm.topi.where", vec![c.clone(), x.clone(), y.clone()], &[]);
        let expected: Vec<f64> = indices(&shape).into_iter().map(|i| {
            if at(&cv, &shape[1..], &i[1..]) != 0.0 { at(&v, &shape, &i) } else { at(&yv, &shape, &i) }
        }).collect();
        close(&run(h, &[(&c, &cv, "float32"), (&x, &v, "float32"), (&y, &yv, "float32")], &w), &expected, 0.0)?;
    }
}

fn c_len(shape: &[i64]) -> usize {
    shape[1..].iter().product::<i64>() as usize
}

#[test]
fn hostile_transform_arguments_are_errors() {
    let h = &mut host();
    let x = placeholder(h, &[2, 3, 4], "x");
    let y = placeholder(h, &[2, 5, 4], "y");
    error(
        h,
        "tvm.topi.transpose",
        vec![x.clone(), ints(&[0, 0, 1])],
        &[],
        "repeated axis",
    );
    error(
        h,
        "tvm.topi.transpose",
        vec![x.clone(), ints(&[0, 1])],
        &[],
        "needs 3 axes",
    );
    error(
        h,
        "tvm.topi.transpose",
        vec![x.clone(), ints(&[0, 1, 7])],
        &[],
        "out of range",
    );
    error(
        h,
        "tvm.topi.expand_dims",
        vec![x.clone(), Value::Int(9)],
        &[],
        "axis",
    );
    error(
        h,
        "tvm.topi.expand_dims",
        vec![x.clone(), Value::Int(0), Value::Int(1 << 40)],
        &[],
        "axes",
    );
    error(
        h,
        "tvm.topi.squeeze",
        vec![x.clone(), ints(&[1])],
        &[],
        "must have size 1",
    );
    error(
        h,
        "tvm.topi.concatenate",
        vec![Value::list(vec![x.clone(), y.clone()])],
        &[("axis", Value::Int(2))],
        "differ in dimension 1",
    );
    error(
        h,
        "tvm.topi.concatenate",
        vec![Value::list(vec![])],
        &[],
        "no tensors",
    );
    error(
        h,
        "tvm.topi.concatenate",
        vec![Value::Int(3)],
        &[],
        "list of tensors",
    );
    error(
        h,
        "tvm.topi.split",
        vec![x.clone(), Value::Int(2)],
        &[("axis", Value::Int(1))],
        "integer factor",
    );
    error(
        h,
        "tvm.topi.split",
        vec![x.clone(), Value::Int(0)],
        &[],
        "sections",
    );
    error(
        h,
        "tvm.topi.split",
        vec![x.clone(), ints(&[2, 1])],
        &[("axis", Value::Int(2))],
        "sorted",
    );
    error(
        h,
        "tvm.topi.split",
        vec![x.clone(), ints(&[9])],
        &[("axis", Value::Int(2))],
        "past the end",
    );
    error(
        h,
        "tvm.topi.strided_slice",
        vec![x.clone(), ints(&[0]), ints(&[1]), ints(&[0])],
        &[],
        "stride cannot be 0",
    );
    error(
        h,
        "tvm.topi.strided_slice",
        vec![x.clone(), ints(&[0]), ints(&[1])],
        &[("slice_mode", Value::str("sideways"))],
        "slice_mode",
    );
    let fidx = placeholder(h, &[3], "fidx");
    error(
        h,
        "tvm.topi.take",
        vec![x.clone(), fidx],
        &[],
        "integer indices",
    );
    let idx = int_placeholder(h, &[3], "idx");
    error(
        h,
        "tvm.topi.take",
        vec![x.clone(), idx.clone()],
        &[("mode", Value::str("loose"))],
        "take mode",
    );
    error(
        h,
        "tvm.topi.take",
        vec![x.clone(), idx.clone()],
        &[("axis", Value::Int(5))],
        "out of range",
    );
    error(
        h,
        "tvm.topi.where",
        vec![x.clone(), x.clone(), idx],
        &[],
        "same dtype",
    );
    error(
        h,
        "tvm.topi.where",
        vec![x.clone(), x.clone(), y.clone()],
        &[],
        "cannot broadcast",
    );
    error(
        h,
        "tvm.topi.full",
        vec![ints(&[-2]), Value::str("float32"), Value::Float(1.0)],
        &[],
        "negative size",
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Packing `NCHW` into `NCHW{f}c` puts channel `C * f + c` at
    /// `[n, C, h, w, c]` (0 past the last channel), and unpacking gives
    /// the input back; `broadcast_to` repeats the input along new and
    /// size-1 axes.
    #[test]
    fn layouts_pack_and_unpack_channels(
        dims in (1i64..3, 1i64..7, 1i64..3, 1i64..3),
        f in 1i64..5,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let shape = [dims.0, dims.1, dims.2, dims.3];
        let x = placeholder(h, &shape, "x");
        let v = data(shape.iter().product::<i64>() as usize, seed, 8.0);
        let packed_layout = format!("NCHW{f}c");
        let packed = call(h, "tvm.topi.layout_transform", vec![x.clone(), Value::str("NCHW"), Value::str(&packed_layout)], &[]);
        let outer = (dims.1 + f - 1) / f;
        let pshape = [dims.0, outer, dims.2, dims.3, f];
        prop_assert_eq!(stage(&packed).3, format!("{pshape:?}"));
        let expected: Vec<f64> = indices(&pshape).into_iter().map(|i| {
            let c = i[1] * f + i[4];
            if c < dims.1 { at(&v, &shape, &[i[0], c, i[2], i[3]]) } else { 0.0 }
        }).collect();
        close(&run(h, &[(&x, &v, "float32")], &packed), &expected, 0.0)?;
        if dims.1 % f == 0 {
            let back = call(h, "tvm.topi.layout_transform", vec![packed, Value::str(&packed_layout), Value::str("NCHW")], &[]);
            close(&run(h, &[(&x, &v, "float32")], &back), &v, 0.0)?;
        }

        let row = placeholder(h, &[dims.1, 1], "row");
        let rv = data(dims.1 as usize, seed + 1, 8.0);
        let b = call(h, "tvm.topi.broadcast_to", vec![row.clone(), ints(&[dims.0, dims.1, dims.2])], &[]);
        let bshape = [dims.0, dims.1, dims.2];
        let expected: Vec<f64> = indices(&bshape).into_iter().map(|i| rv[i[1] as usize]).collect();
        close(&run(h, &[(&row, &rv, "float32")], &b), &expected, 0.0)?;
    }
}

#[test]
fn layout_transform_and_broadcast_to_build_topis_stages_and_refuse_bad_layouts() {
    let h = &mut host();
    let x = placeholder(h, &[1, 32, 7, 7], "x");
    let p = call(h, "tvm.topi.layout_transform", vec![x.clone(), Value::str("NCHW"), Value::str("NCHW16c")], &[]);
    assert_eq!(
        stage(&p),
        ("T_layout_trans".into(), "injective".into(), strs(&["ax0", "ax1", "ax2", "ax3", "ax4"]), "[1, 2, 7, 7, 16]".into())
    );
    let same = call(h, "tvm.topi.layout_transform", vec![x.clone(), Value::str("NCHW"), Value::str("NCHW")], &[]);
    assert_eq!(stage(&same).0, "x");
    let b = call(h, "tvm.topi.broadcast_to", vec![x.clone(), ints(&[2, 1, 32, 7, 7])], &[]);
    assert_eq!(stage(&b).0, "T_broadcast_to");
    assert_eq!(stage(&b).1, "broadcast");
    let lt = "tvm.topi.layout_transform";
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::str("NHW16c")], &[], "split axis without");
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::str("NCDW")], &[], "different primal axes");
    error(h, lt, vec![x.clone(), Value::str("NCH"), Value::str("NHC")], &[], "has 3 axes");
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::str("NCHW0c")], &[], "at least 1");
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::str("NCHW99999999999c")], &[], "overflows");
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::str("NC-HW")], &[], "not a TVM layout");
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::str("NCHW16")], &[], "without its axis");
    error(h, lt, vec![x.clone(), Value::str("NCHW"), Value::Int(4)], &[], "layout string");
    let bt = "tvm.topi.broadcast_to";
    error(h, bt, vec![x.clone(), ints(&[7, 7])], &[], "smaller than input");
    error(h, bt, vec![x.clone(), ints(&[1, 31, 7, 7])], &[], "broadcast");
}
