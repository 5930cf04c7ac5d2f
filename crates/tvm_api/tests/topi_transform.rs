//! TOPI's shape and layout operators (`topi.transpose`, `concatenate`,
//! `strided_slice`, `take`, ...): their stages are TOPI's (names, tags,
//! axis names, shapes); built programs compute, on random inputs, what a
//! direct evaluation of each operator's meaning gives; hostile arguments
//! are errors.

use proptest::prelude::*;
use tvm_api::{Args, Host, Object, Value};

mod topi_common;
use topi_common::*;

/// The error message of a call that must fail.
fn fails(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)]) -> String {
    match try_call(h, path, pos, kw) {
        Ok(v) => panic!("{path} accepted hostile arguments: {}", tvm_api::repr(&v)),
        Err(e) => e.message,
    }
}

fn placeholder(h: &mut dyn Host, shape: &[i64], name: &str, dtype: &str) -> Value {
    call(
        h,
        "te.placeholder",
        vec![ints(shape)],
        &[("name", Value::str(name)), ("dtype", Value::str(dtype))],
    )
}

fn shape_of(v: &Value) -> Vec<i64> {
    tvm_api::iter(&attr(v, "shape"))
        .unwrap()
        .iter()
        .map(|d| tvm_api::repr(d).parse().unwrap())
        .collect()
}

/// Checks a result's stage name, tag, axis names and shape.
fn check_stage(out: &Value, name: &str, tag: &str, shape: &[i64]) {
    let op = attr(out, "op");
    assert_eq!(tvm_api::str(&attr(&op, "name")), name);
    assert_eq!(tvm_api::str(&attr(&op, "tag")), tag, "tag of {name}");
    let axes: Vec<String> = tvm_api::iter(&attr(&op, "axis"))
        .unwrap()
        .iter()
        .map(|iv| tvm_api::str(&attr(&attr(iv, "var"), "name")))
        .collect();
    let expected: Vec<String> = (0..shape.len()).map(|d| format!("ax{d}")).collect();
    assert_eq!(axes, expected, "axes of {name}");
    assert_eq!(shape_of(out), shape, "shape of {name}");
}

/// Builds `out` from `inputs` and runs it on `data` (one flat array per
/// input), returning the output's elements.
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
        assert_eq!(a.borrow().data.len(), data.len(), "input size");
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
    let n: i64 = shape.iter().product();
    let st = strides(shape);
    (0..n)
        .map(|k| st.iter().zip(shape).map(|(s, d)| (k / s) % d).collect())
        .collect()
}

fn flat(shape: &[i64], idx: &[i64]) -> usize {
    strides(shape)
        .iter()
        .zip(idx)
        .map(|(s, i)| s * i)
        .sum::<i64>() as usize
}

fn values(n: i64, seed: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|k| (((k * 7919 + seed * 104729) % 97) as f64 - 48.0) / 8.0)
        .collect()
}

fn dims(max_rank: usize) -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(1i64..4, 1..=max_rank)
}

#[test]
fn operators_build_topis_stages() {
    let h = &mut host();
    let a = placeholder(h, &[1, 3, 4, 5], "A", "float32");
    let b = placeholder(h, &[1, 2, 4, 5], "B", "float32");
    let i = placeholder(h, &[2, 3], "I", "int32");
    let t = "tvm.topi";
    let cb = placeholder(h, &[4, 1], "C", "bool");
    let y5 = placeholder(h, &[5], "Y", "float32");
    let g = placeholder(h, &[1, 2, 4, 5], "G", "int32");
    let m = placeholder(h, &[4, 3], "M", "float32");
    let nn = placeholder(h, &[3, 5], "N", "float32");
    let d = placeholder(h, &[4, 5, 2], "D", "float32");
    let sq = placeholder(h, &[6, 2, 3], "S", "float32");
    let len = placeholder(h, &[2], "L", "int32");
    let xl = placeholder(h, &[1, 32, 7, 7], "X", "float32");
    let cases: Vec<(Value, &str, &str, Vec<i64>)> = vec![
        (
            call(h, &format!("{t}.transpose"), vec![a.clone()], &[]),
            "T_transpose",
            "injective",
            vec![5, 4, 3, 1],
        ),
        (
            call(
                h,
                &format!("{t}.transform.transpose"),
                vec![a.clone(), ints(&[0, 2, 3, 1])],
                &[],
            ),
            "T_transpose",
            "injective",
            vec![1, 4, 5, 3],
        ),
        (
            call(
                h,
                &format!("{t}.expand_dims"),
                vec![a.clone(), Value::Int(-1), Value::Int(2)],
                &[],
            ),
            "T_expand_dims",
            "broadcast",
            vec![1, 3, 4, 5, 1, 1],
        ),
        (
            call(h, &format!("{t}.squeeze"), vec![a.clone()], &[]),
            "T_squeeze",
            "injective",
            vec![3, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.concatenate"),
                vec![Value::list(vec![a.clone(), b.clone()])],
                &[("axis", Value::Int(1))],
            ),
            "T_concat",
            "injective",
            vec![1, 5, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.stack"),
                vec![Value::list(vec![a.clone(), a.clone()]), Value::Int(-1)],
                &[],
            ),
            "T_stack",
            "injective",
            vec![1, 3, 4, 5, 2],
        ),
        (
            call(
                h,
                &format!("{t}.strided_slice"),
                vec![a.clone(), ints(&[0, 1]), ints(&[1, 3])],
                &[],
            ),
            "T_strided_slice",
            "injective",
            vec![1, 2, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.strided_slice"),
                vec![a.clone(), ints(&[3]), ints(&[0])],
                &[("strides", ints(&[-2])), ("axes", ints(&[2]))],
            ),
            "T_strided_slice_with_axes",
            "injective",
            vec![1, 3, 2, 5],
        ),
        (
            call(
                h,
                &format!("{t}.broadcast_to"),
                vec![b.clone(), ints(&[2, 3, 2, 4, 5])],
                &[],
            ),
            "T_broadcast_to",
            "broadcast",
            vec![2, 3, 2, 4, 5],
        ),
        (
            call(h, &format!("{t}.where"), vec![cb, a.clone(), y5], &[]),
            "T_where",
            "broadcast",
            vec![1, 3, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.take"),
                vec![a.clone(), i.clone()],
                &[("axis", Value::Int(2))],
            ),
            "T_take",
            "injective",
            vec![1, 3, 2, 3, 5],
        ),
        (
            call(h, &format!("{t}.take"), vec![a.clone(), i.clone()], &[]),
            "T_take",
            "injective",
            vec![2, 3],
        ),
        (
            call(
                h,
                &format!("{t}.gather"),
                vec![a.clone(), Value::Int(1), g],
                &[],
            ),
            "T_gather",
            "injective",
            vec![1, 2, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.full"),
                vec![ints(&[2, 3]), Value::str("float32"), Value::Float(1.5)],
                &[],
            ),
            "T_full",
            "elemwise",
            vec![2, 3],
        ),
        (
            call(
                h,
                &format!("{t}.full_like"),
                vec![a.clone(), Value::Int(0)],
                &[],
            ),
            "T_full_like",
            "elemwise",
            vec![1, 3, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.flip"),
                vec![a.clone()],
                &[("axis", Value::Int(-1))],
            ),
            "T_reverse_sequence",
            "injective",
            vec![1, 3, 4, 5],
        ),
        (
            call(h, &format!("{t}.tile"), vec![a.clone(), ints(&[2, 1])], &[]),
            "T_tile",
            "broadcast",
            vec![1, 3, 8, 5],
        ),
        (
            call(
                h,
                &format!("{t}.repeat"),
                vec![a.clone(), Value::Int(3), Value::Int(1)],
                &[],
            ),
            "T_repeat",
            "broadcast",
            vec![1, 9, 4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.one_hot"),
                vec![
                    i.clone(),
                    Value::Float(1.0),
                    Value::Float(0.0),
                    Value::Int(4),
                    Value::Int(-1),
                    Value::str("float32"),
                ],
                &[],
            ),
            "T_one_hot",
            "injective",
            vec![2, 3, 4],
        ),
        (
            call(
                h,
                &format!("{t}.arange"),
                vec![Value::Int(2), Value::Int(11), Value::Int(3)],
                &[],
            ),
            "T_arange",
            "injective",
            vec![3],
        ),
        (
            call(h, &format!("{t}.matmul"), vec![m, nn], &[]),
            "T_matmul",
            "matmul",
            vec![4, 5],
        ),
        (
            call(
                h,
                &format!("{t}.tensordot"),
                vec![a.clone(), d, Value::Int(2)],
                &[],
            ),
            "T_tensordot",
            "matmul",
            vec![1, 3, 2],
        ),
        (
            call(h, &format!("{t}.shape"), vec![a.clone()], &[]),
            "T_shape",
            "injective",
            vec![4],
        ),
        (
            call(h, &format!("{t}.sequence_mask"), vec![sq, len], &[]),
            "T_sequence_mask",
            "injective",
            vec![6, 2, 3],
        ),
        (
            call(
                h,
                &format!("{t}.layout_transform"),
                vec![xl, Value::str("NCHW"), Value::str("NCHW16c")],
                &[],
            ),
            "T_layout_trans",
            "injective",
            vec![1, 2, 7, 7, 16],
        ),
    ];
    for (out, name, tag, shape) in &cases {
        check_stage(out, name, tag, shape);
    }
    // `split` returns a list of stages, as TVM's `Array<Tensor>`.
    let parts = call(
        h,
        "tvm.topi.split",
        vec![a.clone(), Value::Int(3)],
        &[("axis", Value::Int(1))],
    );
    let parts = tvm_api::iter(&parts).unwrap();
    assert_eq!(parts.len(), 3);
    for p in &parts {
        check_stage(p, "T_split_sections", "injective", &[1, 1, 4, 5]);
    }
    let parts = call(
        h,
        "tvm.topi.split",
        vec![a.clone(), ints(&[1, 3])],
        &[("axis", Value::Int(2))],
    );
    let parts = tvm_api::iter(&parts).unwrap();
    let sizes: Vec<i64> = parts.iter().map(|p| shape_of(p)[2]).collect();
    assert_eq!(sizes, vec![1, 2, 1]);
    check_stage(&parts[0], "T_split", "injective", &[1, 3, 1, 5]);
    // The same layouts give the input back, as TOPI does.
    let same = call(
        h,
        "tvm.topi.layout_transform",
        vec![a.clone(), Value::str("NCHW"), Value::str("NCHW")],
        &[],
    );
    assert_eq!(tvm_api::str(&attr(&attr(&same, "op"), "name")), "A");
    // Types: `full` and `one_hot` take theirs, `shape` is int32.
    let f = call(
        h,
        "tvm.topi.full",
        vec![ints(&[2]), Value::str("int8"), Value::Int(3)],
        &[],
    );
    assert_eq!(tvm_api::str(&attr(&f, "dtype")), "int8");
    let s = call(h, "tvm.topi.shape", vec![a], &[]);
    assert_eq!(tvm_api::str(&attr(&s, "dtype")), "int32");
    let r = call(
        h,
        "tvm.topi.arange",
        vec![Value::Int(5)],
        &[("dtype", Value::str("int32"))],
    );
    assert_eq!(tvm_api::str(&attr(&r, "dtype")), "int32");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// `transpose` permutes the axes: `out[i...] = in[i permuted back]`;
    /// `flip` reverses one; `expand_dims` then `squeeze` keep the values.
    #[test]
    fn transpose_flip_and_dims_move_elements_as_defined(
        shape in dims(4),
        perm_seed in 0u64..1000,
        axis_seed in 0usize..8,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut s = perm_seed;
        for i in (1..n).rev() {
            perm.swap(i, (s % (i as u64 + 1)) as usize);
            s /= 7;
        }
        let a = placeholder(h, &shape, "A", "float32");
        let x = values(shape.iter().product(), seed);
        let perm_v = ints(&perm.iter().map(|&p| p as i64).collect::<Vec<_>>());
        let t = call(h, "tvm.topi.transpose", vec![a.clone(), perm_v], &[]);
        let out_shape: Vec<i64> = perm.iter().map(|&p| shape[p]).collect();
        prop_assert_eq!(shape_of(&t), out_shape.clone());
        let got = run(h, &[(&a, &x)], &t);
        for (k, o) in indices(&out_shape).iter().enumerate() {
            let mut src = vec![0; n];
            for (i, &p) in perm.iter().enumerate() {
                src[p] = o[i];
            }
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
        let axis = axis_seed % n;
        let f = call(h, "tvm.topi.flip", vec![a.clone(), Value::Int(axis as i64)], &[]);
        let got = run(h, &[(&a, &x)], &f);
        for (k, o) in indices(&shape).iter().enumerate() {
            let mut src = o.clone();
            src[axis] = shape[axis] - 1 - o[axis];
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
        let e = call(h, "tvm.topi.expand_dims", vec![a.clone(), Value::Int((axis_seed % (n + 1)) as i64), Value::Int(2)], &[]);
        prop_assert_eq!(shape_of(&e).len(), n + 2);
        let s = call(h, "tvm.topi.squeeze", vec![e], &[]);
        let kept: Vec<i64> = shape.iter().copied().filter(|&d| d != 1).collect();
        prop_assert_eq!(shape_of(&s), kept);
        prop_assert_eq!(run(h, &[(&a, &x)], &s), x);
    }

    /// `concatenate` joins along an axis, `stack` along a new one, and
    /// `split` cuts back into the parts.
    #[test]
    fn concatenate_stack_and_split_join_and_cut(
        shape in dims(3),
        extra in prop::collection::vec(1i64..4, 1..3),
        axis_seed in 0usize..6,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let axis = axis_seed % n;
        let mut shapes = vec![shape.clone()];
        for &e in &extra {
            let mut s = shape.clone();
            s[axis] = e;
            shapes.push(s);
        }
        let ts: Vec<Value> = shapes.iter().enumerate().map(|(i, s)| placeholder(h, s, &format!("P{i}"), "float32")).collect();
        let data: Vec<Vec<f64>> = shapes.iter().enumerate().map(|(i, s)| values(s.iter().product(), seed + i as u64)).collect();
        let c = call(h, "tvm.topi.concatenate", vec![Value::list(ts.clone())], &[("axis", Value::Int(axis as i64 - n as i64))]);
        let mut out_shape = shape.clone();
        out_shape[axis] = shapes.iter().map(|s| s[axis]).sum();
        prop_assert_eq!(shape_of(&c), out_shape.clone());
        let inputs: Vec<(&Value, &[f64])> = ts.iter().zip(&data).map(|(t, d)| (t, d.as_slice())).collect();
        let got = run(h, &inputs, &c);
        for (k, o) in indices(&out_shape).iter().enumerate() {
            let mut rest = o[axis];
            let mut part = 0;
            while rest >= shapes[part][axis] {
                rest -= shapes[part][axis];
                part += 1;
            }
            let mut src = o.clone();
            src[axis] = rest;
            prop_assert_eq!(got[k], data[part][flat(&shapes[part], &src)]);
        }
        // Split at the joints gives each part back.
        let mut points = Vec::new();
        let mut at = 0;
        for s in &shapes[..shapes.len() - 1] {
            at += s[axis];
            points.push(at);
        }
        let parts = tvm_api::iter(&call(h, "tvm.topi.split", vec![c.clone(), ints(&points), Value::Int(axis as i64)], &[])).unwrap();
        prop_assert_eq!(parts.len(), shapes.len());
        for (p, d) in parts.iter().zip(&data) {
            let joined: Vec<f64> = run(h, &inputs, p);
            prop_assert_eq!(&joined, d);
        }
        // Stacking copies of the first along a new axis.
        let st = call(h, "tvm.topi.stack", vec![Value::list(vec![ts[0].clone(), ts[0].clone(), ts[0].clone()]), Value::Int(axis as i64)], &[]);
        let got = run(h, &[(&ts[0], &data[0])], &st);
        let mut st_shape = shape.clone();
        st_shape.insert(axis, 3);
        for (k, o) in indices(&st_shape).iter().enumerate() {
            let mut src = o.clone();
            src.remove(axis);
            prop_assert_eq!(got[k], data[0][flat(&shape, &src)]);
        }
    }

    /// `strided_slice` reads `begin + i * stride` along each axis, with
    /// negative bounds counting from the end and bounds clamped.
    #[test]
    fn strided_slice_reads_the_strided_elements(
        shape in dims(3),
        bounds in prop::collection::vec((-5i64..6, -5i64..6, prop_oneof![-3i64..0, 1i64..4]), 3),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let canon = |i: i64, d: i64, s: i64| {
            let i = if i < 0 { i + d } else { i };
            if s < 0 { i.clamp(-1, d - 1) } else { i.clamp(0, d) }
        };
        // TOPI refuses bounds that select nothing in their direction.
        let mut begin = Vec::new();
        let mut end = Vec::new();
        let mut stride = Vec::new();
        for d in 0..n {
            let (b, e, s) = bounds[d];
            let (cb, ce) = (canon(b, shape[d], s), canon(e, shape[d], s));
            let (b, e) = if (s > 0 && cb > ce) || (s < 0 && ce > cb) { (e, b) } else { (b, e) };
            begin.push(b);
            end.push(e);
            stride.push(s);
        }
        let a = placeholder(h, &shape, "A", "float32");
        let x = values(shape.iter().product(), seed);
        let out = try_call(h, "tvm.topi.strided_slice", vec![a.clone(), ints(&begin), ints(&end), ints(&stride)], &[]);
        let starts: Vec<i64> = (0..n).map(|d| canon(begin[d], shape[d], stride[d])).collect();
        let sizes: Vec<i64> = (0..n)
            .map(|d| {
                let e = canon(end[d], shape[d], stride[d]);
                ((e - starts[d]).abs() + stride[d].abs() - 1) / stride[d].abs()
            })
            .collect();
        let out = match out {
            Ok(v) => v,
            Err(e) => {
                // Only the swapped bounds that still select nothing fail.
                prop_assert!(e.message.contains("select nothing"), "{}", e.message);
                return Ok(());
            }
        };
        prop_assert_eq!(shape_of(&out), sizes.clone());
        if sizes.contains(&0) {
            return Ok(());
        }
        let got = run(h, &[(&a, &x)], &out);
        for (k, o) in indices(&sizes).iter().enumerate() {
            let src: Vec<i64> = (0..n).map(|d| starts[d] + o[d] * stride[d]).collect();
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
    }

    /// `broadcast_to` and `where` broadcast as NumPy does: a size-1
    /// dimension is read at 0; `where` picks `x` where the condition is
    /// not zero.
    #[test]
    fn broadcast_to_and_where_broadcast_as_numpy(
        target in prop::collection::vec(1i64..4, 1..4),
        ones in prop::collection::vec(any::<bool>(), 4),
        lead in 0usize..2,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = target.len();
        let src_rank = n - lead.min(n - 1);
        let src: Vec<i64> = (0..src_rank).map(|i| if ones[i] { 1 } else { target[n - src_rank + i] }).collect();
        let a = placeholder(h, &src, "A", "float32");
        let x = values(src.iter().product(), seed);
        let b = call(h, "tvm.topi.broadcast_to", vec![a.clone(), ints(&target)], &[]);
        prop_assert_eq!(shape_of(&b), target.clone());
        let read = |o: &[i64], shape: &[i64]| -> Vec<i64> {
            let skip = o.len() - shape.len();
            shape.iter().enumerate().map(|(i, &d)| if d == 1 { 0 } else { o[skip + i] }).collect()
        };
        let got = run(h, &[(&a, &x)], &b);
        for (k, o) in indices(&target).iter().enumerate() {
            prop_assert_eq!(got[k], x[flat(&src, &read(o, &src))]);
        }
        let c = placeholder(h, &src, "C", "int32");
        let cv: Vec<f64> = (0..x.len()).map(|k| ((k as u64 * 3 + seed) % 3) as f64 - 1.0).collect();
        let y = placeholder(h, &target, "Y", "float32");
        let yv = values(target.iter().product(), seed + 5);
        let w = call(h, "tvm.topi.where", vec![c.clone(), a.clone(), y.clone()], &[]);
        prop_assert_eq!(shape_of(&w), target.clone());
        let got = run(h, &[(&c, &cv), (&a, &x), (&y, &yv)], &w);
        for (k, o) in indices(&target).iter().enumerate() {
            let i = flat(&src, &read(o, &src));
            let expected = if cv[i] != 0.0 { x[i] } else { yv[k] };
            prop_assert_eq!(got[k], expected);
        }
    }

    /// `take` reads the input at data-dependent indices, clipped, wrapped
    /// or as given; over the flattened input without an axis; `gather`
    /// replaces one index by the indices' element.
    #[test]
    fn take_and_gather_read_at_the_indices(
        shape in dims(3),
        ishape in prop::collection::vec(1i64..4, 1..3),
        axis_seed in 0usize..6,
        mode in 0usize..3,
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let axis = axis_seed % n;
        let a = placeholder(h, &shape, "A", "float32");
        let x = values(shape.iter().product(), seed);
        let ind = placeholder(h, &ishape, "I", "int32");
        let mode_name = ["clip", "wrap", "fast"][mode];
        let dim = shape[axis];
        let iv: Vec<f64> = (0..ishape.iter().product::<i64>())
            .map(|k| {
                let v = ((k as u64 * 5 + seed) % 11) as i64 - 5;
                (if mode == 2 { v.rem_euclid(dim) } else { v }) as f64
            })
            .collect();
        let fix = |i: i64, d: i64| match mode {
            0 => i.clamp(0, d - 1),
            1 => i.rem_euclid(d),
            _ => i,
        };
        let t = call(h, "tvm.topi.take", vec![a.clone(), ind.clone()], &[("axis", Value::Int(axis as i64)), ("mode", Value::str(mode_name))]);
        let mut out_shape = shape[..axis].to_vec();
        out_shape.extend_from_slice(&ishape);
        out_shape.extend_from_slice(&shape[axis + 1..]);
        prop_assert_eq!(shape_of(&t), out_shape.clone());
        let got = run(h, &[(&a, &x), (&ind, &iv)], &t);
        let ni = ishape.len();
        for (k, o) in indices(&out_shape).iter().enumerate() {
            let i = iv[flat(&ishape, &o[axis..axis + ni])] as i64;
            let mut src = o[..axis].to_vec();
            src.push(fix(i, dim));
            src.extend_from_slice(&o[axis + ni..]);
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
        // Over the flattened input.
        let size: i64 = shape.iter().product();
        let fv: Vec<f64> = iv.iter().map(|&v| if mode == 2 { (v as i64).rem_euclid(size) as f64 } else { v * 3.0 }).collect();
        let t = call(h, "tvm.topi.take", vec![a.clone(), ind.clone()], &[("mode", Value::str(mode_name))]);
        prop_assert_eq!(shape_of(&t), ishape.clone());
        let got = run(h, &[(&a, &x), (&ind, &fv)], &t);
        for k in 0..fv.len() {
            prop_assert_eq!(got[k], x[fix(fv[k] as i64, size) as usize]);
        }
        // `gather` with indices of the data's shape.
        let gv: Vec<f64> = (0..size).map(|k| ((k as u64 * 7 + seed) % dim as u64) as f64).collect();
        let gi = placeholder(h, &shape, "G", "int32");
        let g = call(h, "tvm.topi.gather", vec![a.clone(), Value::Int(axis as i64), gi.clone()], &[]);
        let got = run(h, &[(&a, &x), (&gi, &gv)], &g);
        for (k, o) in indices(&shape).iter().enumerate() {
            let mut src = o.clone();
            src[axis] = gv[k] as i64;
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
    }

    /// `tile` repeats the whole tensor, `repeat` each element; `full`,
    /// `full_like`, `arange`, `one_hot`, `shape` and `sequence_mask`
    /// make the values they define.
    #[test]
    fn tile_repeat_and_constructors_make_their_values(
        shape in dims(3),
        reps in prop::collection::vec(1i64..3, 1..4),
        axis_seed in 0usize..6,
        times in 1i64..4,
        (start, stop, step) in (-5i64..5, -5i64..9, prop_oneof![-3i64..0, 1i64..4]),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let n = shape.len();
        let a = placeholder(h, &shape, "A", "float32");
        let x = values(shape.iter().product(), seed);
        let t = call(h, "tvm.topi.tile", vec![a.clone(), ints(&reps)], &[]);
        let td = n.max(reps.len());
        let mut data = vec![1; td - n];
        data.extend_from_slice(&shape);
        let mut r = vec![1; td - reps.len()];
        r.extend_from_slice(&reps);
        let out_shape: Vec<i64> = data.iter().zip(&r).map(|(d, r)| d * r).collect();
        prop_assert_eq!(shape_of(&t), out_shape.clone());
        let got = run(h, &[(&a, &x)], &t);
        for (k, o) in indices(&out_shape).iter().enumerate() {
            let src: Vec<i64> = (0..n).map(|i| o[td - n + i] % shape[i]).collect();
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
        let axis = axis_seed % n;
        let rp = call(h, "tvm.topi.repeat", vec![a.clone(), Value::Int(times), Value::Int(axis as i64)], &[]);
        let mut rs = shape.clone();
        rs[axis] *= times;
        let got = run(h, &[(&a, &x)], &rp);
        for (k, o) in indices(&rs).iter().enumerate() {
            let mut src = o.clone();
            src[axis] /= times;
            prop_assert_eq!(got[k], x[flat(&shape, &src)]);
        }
        let f = call(h, "tvm.topi.full_like", vec![a.clone(), Value::Float(2.5)], &[]);
        // An argument the program does not read is left out: `tvm.build`
        // here writes nothing when one is passed.
        prop_assert!(run(h, &[], &f).iter().all(|&v| v == 2.5));
        let f = call(h, "tvm.topi.full", vec![ints(&shape), Value::str("int32"), Value::Float(-3.7)], &[]);
        prop_assert!(run(h, &[], &f).iter().all(|&v| v == -3.0));
        // `arange` counts as Python's `range` for integers.
        let expected: Vec<f64> = if step > 0 {
            (start..stop).step_by(step as usize).map(|v| v as f64).collect()
        } else {
            let mut v = Vec::new();
            let mut i = start;
            while i > stop {
                v.push(i as f64);
                i += step;
            }
            v
        };
        let ar = try_call(h, "tvm.topi.arange", vec![Value::Int(start), Value::Int(stop), Value::Int(step)], &[]);
        match ar {
            Ok(ar) if !expected.is_empty() => prop_assert_eq!(run(h, &[], &ar), expected),
            Ok(ar) => prop_assert_eq!(shape_of(&ar), vec![0]),
            Err(e) => {
                prop_assert!(expected.is_empty());
                prop_assert!(e.message.contains("elements"), "{}", e.message);
            }
        }
        let fl = call(h, "tvm.topi.arange", vec![Value::Float(0.5), Value::Float(3.0), Value::Float(0.75)], &[]);
        prop_assert_eq!(run(h, &[], &fl), vec![0.5, 1.25, 2.0, 2.75]);
        // One-hot of indices in [-1, 4] over depth 4 on axis `axis`.
        let ind = placeholder(h, &shape, "I", "int32");
        let iv: Vec<f64> = (0..x.len()).map(|k| ((k as u64 + seed) % 6) as f64 - 1.0).collect();
        let oh = call(h, "tvm.topi.one_hot", vec![ind.clone(), Value::Float(5.0), Value::Float(-1.0), Value::Int(4), Value::Int(axis as i64), Value::str("float32")], &[]);
        let mut os = shape.clone();
        os.insert(axis, 4);
        let got = run(h, &[(&ind, &iv)], &oh);
        for (k, o) in indices(&os).iter().enumerate() {
            let mut src = o.clone();
            let d = src.remove(axis);
            let expected = if iv[flat(&shape, &src)] as i64 == d { 5.0 } else { -1.0 };
            prop_assert_eq!(got[k], expected);
        }
        let sh = call(h, "tvm.topi.shape", vec![a.clone()], &[]);
        prop_assert_eq!(run(h, &[], &sh), shape.iter().map(|&d| d as f64).collect::<Vec<_>>());
        // Sequence mask on a [length, batch, ...] tensor.
        let mut ms = shape.clone();
        while ms.len() < 2 {
            ms.push(2);
        }
        let md = placeholder(h, &ms, "D", "float32");
        let mv = values(ms.iter().product(), seed);
        let len = placeholder(h, &[ms[1]], "L", "int32");
        let lv: Vec<f64> = (0..ms[1]).map(|b| ((b as u64 + seed) % 4) as f64).collect();
        let sm = call(h, "tvm.topi.sequence_mask", vec![md.clone(), len.clone(), Value::Float(-9.0)], &[]);
        let got = run(h, &[(&md, &mv), (&len, &lv)], &sm);
        for (k, o) in indices(&ms).iter().enumerate() {
            let expected = if (o[0] as f64) >= lv[o[1] as usize] { -9.0 } else { mv[k] };
            prop_assert_eq!(got[k], expected);
        }
    }

    /// `matmul` and `tensordot` sum products over the paired axes.
    #[test]
    fn matmul_and_tensordot_sum_the_products(
        (m, k, n) in (1i64..4, 1i64..4, 1i64..4),
        (ta, tb) in (any::<bool>(), any::<bool>()),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let ash = if ta { [k, m] } else { [m, k] };
        let bsh = if tb { [n, k] } else { [k, n] };
        let a = placeholder(h, &ash, "A", "float32");
        let b = placeholder(h, &bsh, "B", "float32");
        let (x, y) = (values(m * k, seed), values(k * n, seed + 1));
        let c = call(h, "tvm.topi.matmul", vec![a.clone(), b.clone(), Value::Bool(ta), Value::Bool(tb)], &[]);
        prop_assert_eq!(shape_of(&c), vec![m, n]);
        let got = run(h, &[(&a, &x), (&b, &y)], &c);
        let at = |i: i64, j: i64| if ta { x[(j * m + i) as usize] } else { x[(i * k + j) as usize] };
        let bt = |i: i64, j: i64| if tb { y[(j * k + i) as usize] } else { y[(i * n + j) as usize] };
        for i in 0..m {
            for j in 0..n {
                let e: f64 = (0..k).map(|r| at(i, r) * bt(r, j)).sum();
                prop_assert!((got[(i * n + j) as usize] - e).abs() < 1e-4);
            }
        }
        // tensordot over axes ([0], [1]) of A (m, k) and B (n, m).
        let a2 = placeholder(h, &[m, k], "A2", "float32");
        let b2 = placeholder(h, &[n, m], "B2", "float32");
        let y2 = values(n * m, seed + 2);
        let td = call(h, "tvm.topi.tensordot", vec![a2.clone(), b2.clone(), Value::tuple(vec![ints(&[0]), ints(&[1])])], &[]);
        prop_assert_eq!(shape_of(&td), vec![k, n]);
        let got = run(h, &[(&a2, &x), (&b2, &y2)], &td);
        for i in 0..k {
            for j in 0..n {
                let e: f64 = (0..m).map(|r| x[(r * k + i) as usize] * y2[(j * m + r) as usize]).sum();
                prop_assert!((got[(i * n + j) as usize] - e).abs() < 1e-4);
            }
        }
    }

    /// `layout_transform` from `NCHW` to `NCHW{f}c` and back: channel
    /// `C` sits at block `C / f`, lane `C % f`; padding lanes are zero.
    #[test]
    fn layout_transform_blocks_channels(
        (c, f) in (1i64..9, 1i64..5),
        (hh, w) in (1i64..3, 1i64..3),
        seed in 0u64..1000,
    ) {
        let h = &mut host();
        let a = placeholder(h, &[1, c, hh, w], "A", "float32");
        let x = values(c * hh * w, seed);
        let dst = format!("NCHW{f}c");
        let l = call(h, "tvm.topi.layout_transform", vec![a.clone(), Value::str("NCHW"), Value::str(&dst)], &[]);
        let blocks = (c + f - 1) / f;
        let ls = vec![1, blocks, hh, w, f];
        prop_assert_eq!(shape_of(&l), ls.clone());
        let got = run(h, &[(&a, &x)], &l);
        for (k, o) in indices(&ls).iter().enumerate() {
            let ch = o[1] * f + o[4];
            let expected = if ch < c { x[flat(&[1, c, hh, w], &[0, ch, o[2], o[3]])] } else { 0.0 };
            prop_assert_eq!(got[k], expected);
        }
        let b = placeholder(h, &ls, "B", "float32");
        let back = call(h, "tvm.topi.layout_transform", vec![b.clone(), Value::str(&dst), Value::str("NCHW")], &[]);
        prop_assert_eq!(shape_of(&back), vec![1, blocks * f, hh, w]);
        let got_back = run(h, &[(&b, &got)], &back);
        for (k, o) in indices(&[1, blocks * f, hh, w]).iter().enumerate() {
            let e = got[flat(&ls, &[0, o[1] / f, o[2], o[3], o[1] % f])];
            prop_assert_eq!(got_back[k], e);
        }
    }
}

/// An operator, its positional and keyword arguments, and a word its
/// error message must contain.
type HostileCase = (
    &'static str,
    Vec<Value>,
    Vec<(&'static str, Value)>,
    &'static str,
);

#[test]
fn hostile_arguments_are_errors() {
    let h = &mut host();
    let a = placeholder(h, &[2, 3, 4], "A", "float32");
    let i = placeholder(h, &[5], "I", "int32");
    let fi = placeholder(h, &[5], "F", "float32");
    let huge = 1i64 << 62;
    let cases: Vec<HostileCase> = vec![
        (
            "transpose",
            vec![a.clone(), ints(&[0, 0, 1])],
            vec![],
            "repeated axis",
        ),
        (
            "transpose",
            vec![a.clone(), ints(&[0, 1])],
            vec![],
            "name each axis once",
        ),
        (
            "transpose",
            vec![a.clone(), ints(&[0, 1, 3])],
            vec![],
            "out of range",
        ),
        ("transpose", vec![Value::Int(3)], vec![], "needs a tensor"),
        (
            "expand_dims",
            vec![a.clone(), Value::Int(5)],
            vec![],
            "out of range",
        ),
        (
            "expand_dims",
            vec![a.clone(), Value::Int(0), Value::Int(huge)],
            vec![],
            "num_newaxis",
        ),
        (
            "expand_dims",
            vec![a.clone(), Value::Int(0), Value::Int(-1)],
            vec![],
            "num_newaxis",
        ),
        ("squeeze", vec![a.clone(), Value::Int(1)], vec![], "size 1"),
        (
            "squeeze",
            vec![a.clone(), Value::Int(-4)],
            vec![],
            "out of range",
        ),
        (
            "concatenate",
            vec![Value::list(vec![])],
            vec![],
            "at least one",
        ),
        (
            "concatenate",
            vec![Value::list(vec![a.clone(), i.clone()])],
            vec![],
            "one rank",
        ),
        (
            "concatenate",
            vec![Value::list(vec![a.clone(), a.clone()]), Value::Int(3)],
            vec![],
            "out of range",
        ),
        ("concatenate", vec![a.clone()], vec![], "list or tuple"),
        (
            "stack",
            vec![Value::list(vec![a.clone(), a.clone()]), Value::Int(4)],
            vec![],
            "out of range",
        ),
        (
            "split",
            vec![a.clone(), Value::Int(4), Value::Int(1)],
            vec![],
            "must divide",
        ),
        (
            "split",
            vec![a.clone(), Value::Int(0)],
            vec![],
            "at least 1",
        ),
        (
            "split",
            vec![a.clone(), ints(&[2, 1]), Value::Int(1)],
            vec![],
            "sorted",
        ),
        (
            "split",
            vec![a.clone(), ints(&[5]), Value::Int(1)],
            vec![],
            "beyond",
        ),
        (
            "strided_slice",
            vec![a.clone(), ints(&[0]), ints(&[2])],
            vec![("strides", ints(&[0]))],
            "must not be zero",
        ),
        (
            "strided_slice",
            vec![a.clone(), ints(&[2]), ints(&[1])],
            vec![],
            "select nothing",
        ),
        (
            "strided_slice",
            vec![a.clone(), ints(&[0, 0, 0, 0]), ints(&[1, 1, 1, 1])],
            vec![],
            "4 values",
        ),
        (
            "strided_slice",
            vec![a.clone(), ints(&[0]), ints(&[1])],
            vec![("axes", ints(&[3]))],
            "out of range",
        ),
        (
            "strided_slice",
            vec![a.clone(), ints(&[0]), ints(&[1])],
            vec![("slice_mode", Value::str("middle"))],
            "slice_mode",
        ),
        (
            "strided_slice",
            vec![a.clone(), ints(&[i64::MIN]), ints(&[i64::MAX])],
            vec![("strides", ints(&[i64::MIN]))],
            "select nothing",
        ),
        (
            "broadcast_to",
            vec![a.clone(), ints(&[3, 4])],
            vec![],
            "not a broadcast",
        ),
        (
            "broadcast_to",
            vec![a.clone(), ints(&[2, 5, 4])],
            vec![],
            "broadcast",
        ),
        (
            "broadcast_to",
            vec![a.clone(), ints(&[huge, 2, 3, 4])],
            vec![],
            "sizes must be",
        ),
        (
            "broadcast_to",
            vec![a.clone(), ints(&[-1, 2, 3, 4])],
            vec![],
            "sizes must be",
        ),
        (
            "where",
            vec![i.clone(), a.clone(), i.clone()],
            vec![],
            "same dtype",
        ),
        (
            "where",
            vec![i.clone(), a.clone(), a.clone()],
            vec![],
            "broadcast",
        ),
        (
            "take",
            vec![a.clone(), fi.clone()],
            vec![],
            "integer tensor",
        ),
        (
            "take",
            vec![a.clone(), i.clone()],
            vec![("axis", Value::Int(3))],
            "out of range",
        ),
        (
            "take",
            vec![a.clone(), i.clone()],
            vec![("mode", Value::str("raise"))],
            "unknown mode",
        ),
        (
            "take",
            vec![a.clone(), i.clone()],
            vec![("axis", Value::Int(1)), ("batch_dims", Value::Int(1))],
            "should be equal",
        ),
        (
            "gather",
            vec![a.clone(), Value::Int(0), i.clone()],
            vec![],
            "same rank",
        ),
        (
            "gather",
            vec![i.clone(), Value::Int(0), fi.clone()],
            vec![],
            "integer tensor",
        ),
        (
            "full",
            vec![ints(&[huge, huge]), Value::str("float32"), Value::Int(0)],
            vec![],
            "sizes must be",
        ),
        (
            "full",
            vec![ints(&[2]), Value::str("int8"), Value::Int(300)],
            vec![],
            "does not fit",
        ),
        (
            "full",
            vec![ints(&[2]), Value::str("float99"), Value::Int(0)],
            vec![],
            "",
        ),
        ("tile", vec![a.clone(), ints(&[-1])], vec![], "reps"),
        (
            "tile",
            vec![a.clone(), ints(&[1 << 30, 1 << 30, 1 << 30])],
            vec![],
            "sizes must be",
        ),
        (
            "repeat",
            vec![a.clone(), Value::Int(0), Value::Int(0)],
            vec![],
            "repeats >= 1",
        ),
        (
            "repeat",
            vec![a.clone(), Value::Int(1 << 30), Value::Int(2)],
            vec![],
            "sizes must be",
        ),
        (
            "one_hot",
            vec![
                i.clone(),
                Value::Int(1),
                Value::Int(0),
                Value::Int(-3),
                Value::Int(-1),
                Value::str("int32"),
            ],
            vec![],
            "depth",
        ),
        (
            "one_hot",
            vec![
                i.clone(),
                Value::Int(1),
                Value::Int(0),
                Value::Int(3),
                Value::Int(5),
                Value::str("int32"),
            ],
            vec![],
            "out of range",
        ),
        (
            "arange",
            vec![Value::Int(0), Value::Int(10), Value::Int(0)],
            vec![],
            "zero",
        ),
        (
            "arange",
            vec![Value::Int(0), Value::Int(i64::MAX), Value::Int(1)],
            vec![],
            "int32",
        ),
        (
            "arange",
            vec![
                Value::Int(i64::MIN),
                Value::Int(i64::MAX),
                Value::Int(i64::MAX),
            ],
            vec![],
            "int32",
        ),
        (
            "arange",
            vec![Value::Float(0.0), Value::Float(f64::INFINITY)],
            vec![],
            "finite",
        ),
        ("matmul", vec![a.clone(), a.clone()], vec![], "2-D"),
        (
            "matmul",
            vec![
                placeholder(h, &[2, 3], "M", "float32"),
                placeholder(h, &[2, 3], "N", "float32"),
            ],
            vec![],
            "must agree",
        ),
        (
            "tensordot",
            vec![a.clone(), a.clone(), Value::Int(4)],
            vec![],
            "smaller rank",
        ),
        (
            "tensordot",
            vec![
                a.clone(),
                a.clone(),
                Value::tuple(vec![ints(&[0]), ints(&[1])]),
            ],
            vec![],
            "must agree",
        ),
        (
            "sequence_mask",
            vec![a.clone(), i.clone()],
            vec![("axis", Value::Int(2))],
            "either 0 or 1",
        ),
        (
            "layout_transform",
            vec![a.clone(), Value::str("NCH"), Value::str("NCHW")],
            vec![],
            "same primal axes",
        ),
        (
            "layout_transform",
            vec![a.clone(), Value::str("NC4"), Value::str("NCc")],
            vec![],
            "invalid layout",
        ),
        (
            "layout_transform",
            vec![a.clone(), Value::str("NCH"), Value::str("NCH99999999999c")],
            vec![],
            "invalid layout",
        ),
        (
            "layout_transform",
            vec![a.clone(), Value::str("NCHW"), Value::str("NCWH")],
            vec![],
            "4 axes",
        ),
        (
            "layout_transform",
            vec![a.clone(), Value::str("NCH"), Value::str("NC4h")],
            vec![],
            "missing axis",
        ),
    ];
    for (op, pos, kw, needle) in cases {
        let msg = fails(h, &format!("tvm.topi.{op}"), pos, &kw);
        assert!(
            msg.contains(needle),
            "{op}: `{msg}` does not mention `{needle}`"
        );
    }
}
