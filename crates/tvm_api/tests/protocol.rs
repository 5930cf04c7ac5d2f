//! The protocol called from Rust through a test host, as a front end calls
//! it: functions, methods, attributes, operators and the errors' arguments.

use proptest::prelude::*;
use tvm_api::{
    ApiError, ArgRef, Args, BinaryOp, ErrorClass, Host, Object, Parameters, Session, Value,
};

/// A front end whose functions are Rust closures, held as host values.
struct ClosureHost {
    session: Session,
}

/// What a host function computes from its arguments.
type Body = Box<dyn Fn(&[Value]) -> Result<Value, ApiError>>;

/// A host function: its parameter names and its body.
struct Closure {
    params: Vec<&'static str>,
    varargs: bool,
    body: Body,
}

impl tvm_api::HostValue for Closure {
    fn type_name(&self) -> &'static str {
        "function"
    }
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<closure>")
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn closure(
    params: &[&'static str],
    body: impl Fn(&[Value]) -> Result<Value, ApiError> + 'static,
) -> Value {
    Value::host(Closure {
        params: params.to_vec(),
        varargs: false,
        body: Box::new(body),
    })
}

/// A function of `params` then `*args`.
fn varargs_closure(
    params: &[&'static str],
    body: impl Fn(&[Value]) -> Result<Value, ApiError> + 'static,
) -> Value {
    Value::host(Closure {
        params: params.to_vec(),
        varargs: true,
        body: Box::new(body),
    })
}

impl Host for ClosureHost {
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Result<Value, ApiError> {
        let c = f.as_host::<Closure>().expect("a closure");
        if !c.varargs && args.len() != c.params.len() {
            return Err(ApiError::type_error(format!(
                "takes {} arguments, {} given",
                c.params.len(),
                args.len()
            )));
        }
        (c.body)(&args)
    }
    fn parameters(&self, f: &Value) -> Option<Parameters> {
        f.as_host::<Closure>().map(|c| Parameters {
            names: c.params.iter().map(|p| (*p).to_owned()).collect(),
            varargs: c.varargs,
        })
    }
    fn session(&mut self) -> &mut Session {
        &mut self.session
    }
}

fn host() -> ClosureHost {
    ClosureHost {
        session: Session::default(),
    }
}

fn shape(dims: &[i64]) -> Value {
    Value::tuple(dims.iter().map(|d| Value::Int(*d)).collect())
}

fn call(
    h: &mut ClosureHost,
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

fn attr(v: &Value, name: &str) -> Value {
    tvm_api::get_attr(v, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn method(h: &mut ClosureHost, v: &Value, name: &str, pos: Vec<Value>) -> Result<Value, ApiError> {
    tvm_api::call_method(h, v, name, Args::positional(pos))
}

/// `A = placeholder((8, 6))`, `B = compute((8, 6), lambda i, j: A[i, j] + A[j, i])`.
fn pipeline(h: &mut ClosureHost) -> (Value, Value) {
    let a = call(
        h,
        "te.placeholder",
        vec![shape(&[8, 8])],
        &[("name", Value::str("A"))],
    )
    .unwrap();
    let a2 = a.clone();
    let body = closure(&["i", "j"], move |ix| {
        let x = tvm_api::subscript(&a2, &Value::tuple(vec![ix[0].clone(), ix[1].clone()]))?;
        let y = tvm_api::subscript(&a2, &Value::tuple(vec![ix[1].clone(), ix[0].clone()]))?;
        tvm_api::binary(BinaryOp::Add, &x, &y)
    });
    let b = call(
        h,
        "tvm.te.compute",
        vec![shape(&[8, 8]), body],
        &[("name", Value::str("B"))],
    )
    .unwrap();
    (a, b)
}

#[test]
fn compute_calls_the_host_function_and_names_axes_after_its_parameters() {
    let mut h = host();
    let (_, b) = pipeline(&mut h);
    assert_eq!(tvm_api::str(&b), "Tensor(shape=[8, 8], op.name=B)");
    let op = attr(&b, "op");
    let axes = attr(&op, "axis");
    let names: Vec<String> = tvm_api::iter(&axes)
        .unwrap()
        .iter()
        .map(|iv| tvm_api::str(&attr(iv, "var")))
        .collect();
    assert_eq!(names, ["i", "j"]);
    assert!(tvm_api::isinstance(&b, &tvm_api::resolve("te.Tensor").unwrap()).unwrap());
    assert!(!tvm_api::isinstance(&op, &tvm_api::resolve("te.Tensor").unwrap()).unwrap());
}

#[test]
fn a_schedule_is_split_bounded_and_lowered_through_methods() {
    let mut h = host();
    let (a, b) = pipeline(&mut h);
    let op = attr(&b, "op");
    let s = call(&mut h, "te.create_schedule", vec![op.clone()], &[]).unwrap();
    assert_eq!(h.session.schedules.len(), 1);
    let stage = tvm_api::subscript(&s, &b).unwrap();
    let axis0 = tvm_api::subscript(&attr(&op, "axis"), &Value::Int(0));
    // A list is the front end's to index; the API indexes TVM objects.
    assert!(axis0.is_err());
    let axis0 = tvm_api::iter(&attr(&op, "axis")).unwrap()[0].clone();
    let parts = method(&mut h, &stage, "split", vec![axis0, Value::Int(4)]).unwrap();
    let [xo, xi] = &tvm_api::iter(&parts).unwrap()[..] else {
        panic!("split gives two axes");
    };
    assert_eq!(tvm_api::str(&attr(xo, "var")), "i.outer");
    let bounds = call(&mut h, "tvm.te.schedule.InferBound", vec![s.clone()], &[]).unwrap();
    let range = tvm_api::subscript(&bounds, xi).unwrap();
    assert_eq!(tvm_api::str(&attr(&range, "extent")), "4");
    let text = call(&mut h, "tvm.lower", vec![s, Value::list(vec![a, b])], &[]).unwrap();
    assert!(tvm_api::str(&text).contains("i.outer"));
    assert_eq!(h.session.lowered.len(), 1);
    assert_eq!(h.session.lowered[0].args.len(), 2);
}

#[test]
fn errors_name_the_argument_they_are_about() {
    let mut h = host();
    let (_, b) = pipeline(&mut h);
    // A function of three indices for a 2-d shape: about `fcompute`.
    let three = closure(&["i", "j", "k"], |ix| Ok(ix[0].clone()));
    let e = call(&mut h, "te.compute", vec![shape(&[8, 8]), three], &[]).unwrap_err();
    assert_eq!(e.arg, Some(ArgRef::Positional(1)));
    assert_eq!(
        e.message,
        "the shape has 2 dimensions but the function takes 3 indices"
    );
    // A function of fewer indices makes a tensor of the leading
    // dimensions, as in TVM.
    let one = closure(&["i"], |ix| Ok(ix[0].clone()));
    let t = call(&mut h, "te.compute", vec![shape(&[8, 4]), one], &[]).unwrap();
    assert_eq!(tvm_api::repr(&attr(&t, "shape")), "[8]");
    // By keyword, an error names the keyword.
    let one = closure(&["i", "j", "k"], |ix| Ok(ix[0].clone()));
    let e = call(
        &mut h,
        "te.compute",
        vec![shape(&[8, 8])],
        &[("fcompute", one)],
    )
    .unwrap_err();
    assert_eq!(e.arg, Some(ArgRef::Keyword("fcompute".into())));
    // A dtype TVM does not know.
    let e = call(
        &mut h,
        "te.placeholder",
        vec![shape(&[4])],
        &[("dtype", Value::str("float7"))],
    )
    .unwrap_err();
    assert_eq!(e.arg, Some(ArgRef::Keyword("dtype".into())));
    assert_eq!(e.class, ErrorClass::TypeError);
    // An invalid schedule is a TVMError about the call.
    let op = attr(&b, "op");
    let s = call(&mut h, "te.create_schedule", vec![op.clone()], &[]).unwrap();
    let stage = tvm_api::subscript(&s, &b).unwrap();
    let axis0 = tvm_api::iter(&attr(&op, "axis")).unwrap()[0].clone();
    let e = method(&mut h, &stage, "split", vec![axis0.clone()]).unwrap_err();
    assert_eq!(e.arg, None);
    assert!(
        e.message
            .starts_with("`split` needs exactly one of `factor=`"),
        "{}",
        e.message
    );
    let e = method(&mut h, &stage, "split", vec![Value::Int(1), Value::Int(2)]).unwrap_err();
    assert_eq!(e.arg, Some(ArgRef::Positional(0)));
    method(&mut h, &stage, "compute_inline", vec![]).unwrap_err();
    let e = method(&mut h, &stage, "fuse", vec![axis0.clone(), axis0]).unwrap_err();
    assert_eq!(e.class, ErrorClass::TVMError);
    // A method rangefinder does not model is missing as an attribute (so
    // that `hasattr` answers), and says why.
    let e = tvm_api::get_attr(&stage, "env_threads").unwrap_err();
    assert_eq!(e.class, ErrorClass::AttributeError);
    assert!(
        e.message
            .starts_with("`env_threads`: this primitive is not supported"),
        "{}",
        e.message
    );
    // Attributes that do not exist say what exists.
    let e = tvm_api::get_attr(&b, "nope").unwrap_err();
    assert_eq!(e.class, ErrorClass::AttributeError);
    assert!(e.message.contains("it has .op, .shape"), "{}", e.message);
}

#[test]
fn an_error_raised_inside_the_host_function_passes_through_unchanged() {
    let mut h = host();
    let failing = closure(&["i"], |_| {
        Err(ApiError::new(ErrorClass::Host, "kept by the front end"))
    });
    let e = call(&mut h, "te.compute", vec![shape(&[4]), failing], &[]).unwrap_err();
    assert_eq!(e.class, ErrorClass::Host);
    assert_eq!(e.arg, None);
    assert_eq!(e.message, "kept by the front end");
}

#[test]
fn every_spelling_resolves_to_one_function() {
    for (a, b) in [
        ("te.compute", "tvm.compute"),
        ("tvm.te.compute", "te.compute"),
        ("tvm.schedule.InferBound", "tvm.te.schedule.InferBound"),
        ("tvm.tir.indexdiv", "tvm.tir.floordiv"),
        ("te.exp", "tvm.tir.exp"),
    ] {
        let (x, y) = (tvm_api::resolve(a).unwrap(), tvm_api::resolve(b).unwrap());
        assert!(tvm_api::equal(&x, &y), "{a} and {b}");
    }
    assert!(matches!(
        tvm_api::resolve("tvm.te"),
        Some(Value::Object(Object::Module("tvm.te")))
    ));
    assert!(tvm_api::resolve("tvm.tir.compute").is_none());
}

proptest! {
    /// PrimExpr arithmetic built through the protocol evaluates as Python's
    /// floor arithmetic on integers.
    #[test]
    fn primexpr_operators_agree_with_integer_arithmetic(
        x in -50i64..50,
        c in -20i64..20,
        op in prop::sample::select(vec![BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::FloorDiv, BinaryOp::Mod]),
    ) {
        prop_assume!(c != 0 || !matches!(op, BinaryOp::FloorDiv | BinaryOp::Mod));
        let var = arith::Var::new("x");
        let e = tvm_api::binary(op, &Value::Index(var.expr()), &Value::Int(c)).unwrap();
        let Value::Index(e) = e else { panic!("not a PrimExpr") };
        let want = match op {
            BinaryOp::Add => x + c,
            BinaryOp::Sub => x - c,
            BinaryOp::Mul => x * c,
            BinaryOp::FloorDiv => x.div_euclid(c) - if (x.rem_euclid(c) != 0) && c < 0 { 1 } else { 0 },
            _ => x - c * (x.div_euclid(c) - if (x.rem_euclid(c) != 0) && c < 0 { 1 } else { 0 }),
        };
        prop_assert_eq!(e.eval_with(&[(&var, x)]).unwrap(), want);
    }

    /// Binding by keyword gives each parameter the same value as binding by
    /// position, whatever prefix is positional.
    #[test]
    fn keywords_bind_as_positionals(n in 1usize..5, split in 0usize..5) {
        let params: Vec<&'static str> = ["a", "b", "c", "d", "e"][..n].to_vec();
        let split = split.min(n);
        let args = Args {
            positional: (0..split as i64).map(Value::Int).collect(),
            keywords: (split..n).map(|i| (params[i].to_owned(), Value::Int(i as i64))).collect(),
        };
        let bound = args.bind("f", &params).unwrap();
        for (i, p) in params.iter().enumerate() {
            prop_assert!(matches!(bound.get(p).map(|g| &g.value), Some(Value::Int(v)) if *v == i as i64));
        }
    }
}

/// `te.comm_reducer` of `(sum, product)` pairs called from Rust: the
/// combiner and identity are host functions called on symbolic operands
/// named after the combiner's parameters, and the reducer object returns a
/// tuple that `te.compute` makes two outputs of.
fn pair_reduction(h: &mut ClosureHost, rows: i64, cols: i64) -> (Value, Value, Value) {
    let combine = closure(&["x", "y"], |xy| {
        let (x, y) = (
            tvm_api::iter(&xy[0]).unwrap(),
            tvm_api::iter(&xy[1]).unwrap(),
        );
        Ok(Value::tuple(vec![
            tvm_api::binary(BinaryOp::Add, &x[0], &y[0])?,
            tvm_api::binary(BinaryOp::Mul, &x[1], &y[1])?,
        ]))
    });
    let identity = closure(&["t0", "t1"], |_| {
        Ok(Value::tuple(vec![Value::Float(0.0), Value::Float(1.0)]))
    });
    let reducer = call(
        h,
        "te.comm_reducer",
        vec![combine, identity],
        &[("name", Value::str("sum_prod"))],
    )
    .unwrap();
    let a = call(
        h,
        "te.placeholder",
        vec![shape(&[rows, cols])],
        &[("name", Value::str("A"))],
    )
    .unwrap();
    let k = call(
        h,
        "te.reduce_axis",
        vec![Value::tuple(vec![Value::Int(0), Value::Int(cols)])],
        &[("name", Value::str("k"))],
    )
    .unwrap();
    let (a2, k2) = (a.clone(), k.clone());
    let body = closure(&["i"], move |ix| {
        let x = tvm_api::subscript(&a2, &Value::tuple(vec![ix[0].clone(), k2.clone()]))?;
        let mut host = host();
        tvm_api::call(
            &mut host,
            &reducer,
            Args {
                positional: vec![Value::tuple(vec![x.clone(), x])],
                keywords: vec![("axis".into(), k2.clone())],
            },
        )
    });
    let outs = call(
        h,
        "te.compute",
        vec![shape(&[rows]), body],
        &[("name", Value::str("R"))],
    )
    .unwrap();
    let outs = tvm_api::iter(&outs).expect("a tuple of outputs");
    (a, outs[0].clone(), outs[1].clone())
}

fn tensor_of(v: &Value) -> te::Tensor {
    match v {
        Value::Object(Object::Tensor(t)) => t.clone(),
        other => panic!("not a tensor: {other}"),
    }
}

#[test]
fn a_tuple_reducer_gives_one_output_per_position() {
    let mut h = host();
    let (_, s, p) = pair_reduction(&mut h, 3, 4);
    assert_eq!(tvm_api::str(&attr(&s, "value_index")), "0");
    assert_eq!(tvm_api::str(&attr(&p, "value_index")), "1");
    let op = attr(&s, "op");
    assert_eq!(tvm_api::str(&attr(&op, "num_outputs")), "2");
    let second = method(&mut h, &op, "output", vec![Value::Int(1)]).unwrap();
    assert!(tvm_api::equal(&second, &p));
    let e = method(&mut h, &op, "output", vec![Value::Int(2)]).unwrap_err();
    assert_eq!(e.class, ErrorClass::IndexError);
    assert_eq!(e.arg, Some(ArgRef::Positional(0)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// The reduction, split and lowered, computes what the definitions
    /// give (sum and product of each row), whatever the shape and factor.
    #[test]
    fn a_tuple_reduction_split_anywhere_runs_as_defined(rows in 1i64..5, cols in 1i64..9, factor in 1i64..5) {
        let mut h = host();
        let (a, s_out, p_out) = pair_reduction(&mut h, rows, cols);
        let op = attr(&s_out, "op");
        let sched = call(&mut h, "te.create_schedule", vec![op.clone()], &[]).unwrap();
        let stage = tvm_api::subscript(&sched, &s_out).unwrap();
        let k = tvm_api::iter(&attr(&op, "reduce_axis")).unwrap()[0].clone();
        method(&mut h, &stage, "split", vec![k, Value::Int(factor)]).unwrap();
        let Value::Object(Object::Schedule(s)) = &sched else { panic!("a schedule") };
        let args = [tensor_of(&a), tensor_of(&s_out), tensor_of(&p_out)];
        let report = te::check(&s.borrow(), &args, &Default::default(), 3).unwrap();
        prop_assert!(report.is_clean(1e-5), "{report:?}");
    }
}

#[test]
fn python_values_print_as_cpython_and_exception_classes_follow_its_hierarchy() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let dict = Value::MutableDict(Rc::new(RefCell::new(vec![(
        Value::str("k"),
        Value::Float(0.1),
    )])));
    assert_eq!(tvm_api::str(&dict), "{'k': 0.1}");
    assert_eq!(tvm_api::len(&dict), Ok(1));
    let empty = Value::Set(Rc::new(RefCell::new(Vec::new())));
    assert_eq!(tvm_api::str(&empty), "set()");
    assert_eq!(tvm_api::truth(&empty), Ok(false));
    let list = Value::list(vec![Value::Float(1e16), Value::str("it's")]);
    if let Value::List(items) = &list {
        items.borrow_mut().push(list.clone());
    }
    assert_eq!(tvm_api::str(&list), "[1e+16, \"it's\", [...]]");
    let error = Value::Exception(ErrorClass::ValueError, Rc::from("bad"));
    assert_eq!(tvm_api::repr(&error), "ValueError('bad')");
    assert_eq!(tvm_api::str(&error), "bad");
    assert!(ErrorClass::LookupError.is_base_of(ErrorClass::KeyError));
    assert!(ErrorClass::RuntimeError.is_base_of(ErrorClass::NotSupported));
    assert!(!ErrorClass::KeyError.is_base_of(ErrorClass::IndexError));
    assert_eq!(
        ErrorClass::named("NotImplementedError"),
        Some(ErrorClass::NotSupported)
    );
}

#[test]
fn varargs_axes_take_tvms_names() {
    let mut h = host();
    let axis_names = |h: &mut ClosureHost, t: &Value| -> Vec<String> {
        let axes = attr(&attr(t, "op"), "axis");
        let _ = h;
        tvm_api::iter(&axes)
            .unwrap()
            .iter()
            .map(|iv| tvm_api::str(&attr(iv, "var")))
            .collect()
    };
    // `lambda n, *i` over three dimensions: `n`, then `i0, i1`.
    let f = varargs_closure(&["n"], |ix| Ok(ix[0].clone()));
    let t = call(&mut h, "te.compute", vec![shape(&[2, 3, 4]), f], &[]).unwrap();
    assert_eq!(axis_names(&mut h, &t), ["n", "i0", "i1"]);
    // `varargs_names` names the rest.
    let names = Value::list(vec![Value::str("yy"), Value::str("xx")]);
    let f = varargs_closure(&["n"], |ix| Ok(ix[0].clone()));
    let t = call(
        &mut h,
        "te.compute",
        vec![shape(&[2, 3, 4]), f],
        &[("varargs_names", names)],
    )
    .unwrap();
    assert_eq!(axis_names(&mut h, &t), ["n", "yy", "xx"]);
    // As many names as remaining dimensions, or TVM's RuntimeError.
    let f = varargs_closure(&[], |ix| Ok(ix[0].clone()));
    let e = call(
        &mut h,
        "te.compute",
        vec![shape(&[2, 3, 4]), f],
        &[("varargs_names", Value::list(vec![Value::str("a")]))],
    )
    .unwrap_err();
    assert_eq!(e.class, tvm_api::ErrorClass::RuntimeError);
    assert_eq!(e.arg, Some(ArgRef::Keyword("varargs_names".into())));
    assert!(
        e.message.contains("3 remaining dimensions"),
        "{}",
        e.message
    );
}
