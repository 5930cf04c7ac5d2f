//! What real TE programs use beyond tensors and schedules, called through
//! the protocol as a front end calls it: TOPI's helpers, `isinstance` with
//! TVM's classes, casts and typed constants, tag scopes and attributes,
//! targets. One test per capability; programs built with them are checked
//! by value (`te::check`) against their definitions.

use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;
use tvm_api::{ApiError, Args, ErrorClass, Host, Object, Parameters, Session, Value};

/// A front end whose functions are Rust closures that may call the API
/// back through the host.
struct TestHost {
    session: Session,
}

type Body = dyn Fn(&mut dyn Host, &[Value]) -> Result<Value, ApiError>;

struct Closure {
    params: Vec<&'static str>,
    varargs: bool,
    body: Rc<Body>,
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
    body: impl Fn(&mut dyn Host, &[Value]) -> Result<Value, ApiError> + 'static,
) -> Value {
    Value::host(Closure {
        params: params.to_vec(),
        varargs: false,
        body: Rc::new(body),
    })
}

fn varargs(body: impl Fn(&mut dyn Host, &[Value]) -> Result<Value, ApiError> + 'static) -> Value {
    Value::host(Closure {
        params: Vec::new(),
        varargs: true,
        body: Rc::new(body),
    })
}

impl Host for TestHost {
    fn call(&mut self, f: &Value, args: Vec<Value>) -> Result<Value, ApiError> {
        let body = f.as_host::<Closure>().expect("a closure").body.clone();
        body(self, &args)
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

fn host() -> TestHost {
    TestHost {
        session: Session::default(),
    }
}

fn call(
    h: &mut dyn Host,
    path: &str,
    pos: Vec<Value>,
    kw: &[(&str, Value)],
) -> Result<Value, ApiError> {
    let f = tvm_api::resolve(path).unwrap_or_else(|| panic!("{path} resolves"));
    tvm_api::call(
        h,
        &f,
        Args {
            positional: pos,
            keywords: kw
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        },
    )
}

fn ok(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)]) -> Value {
    call(h, path, pos, kw).unwrap_or_else(|e| panic!("{path}: {}", e.message))
}

fn method(h: &mut dyn Host, v: &Value, name: &str, pos: Vec<Value>) -> Value {
    let m = tvm_api::get_attr(v, name).unwrap_or_else(|e| panic!(".{name}: {}", e.message));
    tvm_api::call(h, &m, Args::positional(pos))
        .unwrap_or_else(|e| panic!(".{name}(): {}", e.message))
}

fn attr(v: &Value, name: &str) -> Value {
    tvm_api::get_attr(v, name).unwrap_or_else(|e| panic!(".{name}: {}", e.message))
}

fn tuple(items: &[Value]) -> Value {
    Value::tuple(items.to_vec())
}

fn placeholder(h: &mut dyn Host, dims: &[Value], name: &str, dtype: &str) -> Value {
    ok(
        h,
        "te.placeholder",
        vec![tuple(dims)],
        &[("name", Value::str(name)), ("dtype", Value::str(dtype))],
    )
}

fn tensor(v: &Value) -> te::Tensor {
    match v {
        Value::Object(Object::Tensor(t)) => t.clone(),
        other => panic!("not a tensor: {other}"),
    }
}

fn schedule(v: &Value) -> te::Schedule {
    match v {
        Value::Object(Object::Schedule(s)) => s.borrow().clone(),
        other => panic!("not a schedule: {other}"),
    }
}

fn is(v: &Value, class: &str) -> bool {
    let c = tvm_api::resolve(class).unwrap_or_else(|| panic!("{class} resolves"));
    tvm_api::isinstance(v, &c).expect("an API class")
}

/// `A[i] * 2.0` for a one-dimensional `A`.
fn double(a: &Value) -> Value {
    let a = a.clone();
    closure(&["i"], move |_, args| {
        let x = tvm_api::subscript(&a, &args[0])?;
        tvm_api::binary(tvm_api::BinaryOp::Mul, &x, &Value::Float(2.0))
    })
}

#[test]
fn topi_helpers_read_shapes_as_integers_and_inline_injective_stages_before_the_callback() {
    let h = &mut host();
    let n = ok(h, "te.var", vec![Value::str("n")], &[]);
    let a = placeholder(h, &[n.clone(), Value::Int(16)], "A", "float32");
    let shape = attr(&a, "shape");
    let consts = ok(
        h,
        "tvm.topi.utils.get_const_tuple",
        vec![shape.clone()],
        &[],
    );
    assert_eq!(tvm_api::repr(&consts), "(n, 16)");
    let sixteen = tvm_api::binary(tvm_api::BinaryOp::Mul, &n, &Value::Int(0)).unwrap();
    let sixteen = tvm_api::binary(tvm_api::BinaryOp::Add, &sixteen, &Value::Int(16)).unwrap();
    assert!(matches!(
        ok(h, "tvm.topi.utils.get_const_int", vec![sixteen], &[]),
        Value::Int(16)
    ));
    let e = call(h, "tvm.topi.utils.get_const_int", vec![n.clone()], &[]).unwrap_err();
    assert_eq!(
        (e.class, e.message.as_str()),
        (ErrorClass::ValueError, "Expect value to be constant int")
    );

    let tag =
        |name: &str| tvm_api::str(&tvm_api::resolve(&format!("tvm.topi.tag.{name}")).unwrap());
    assert_eq!(
        [
            "ELEMWISE",
            "BROADCAST",
            "INJECTIVE",
            "COMM_REDUCE",
            "COMM_REDUCE_IDX"
        ]
        .map(tag),
        [
            "elemwise",
            "broadcast",
            "injective",
            "comm_reduce",
            "comm_reduce_idx"
        ]
    );
    for (t, injective, broadcast) in [
        ("elemwise", true, true),
        ("broadcast,add", true, true),
        ("injective,pad", true, false),
        ("comm_reduce", false, false),
        ("", false, false),
    ] {
        let i = ok(h, "tvm.topi.tag.is_injective", vec![Value::str(t)], &[]);
        let b = ok(h, "tvm.topi.tag.is_broadcast", vec![Value::str(t)], &[]);
        assert_eq!(
            (tvm_api::truth(&i).unwrap(), tvm_api::truth(&b).unwrap()),
            (injective, broadcast),
            "{t}"
        );
    }

    // A -> pad (injective) -> B (broadcast) -> C (output, elemwise) and
    // D (reduction) reading B: traversal from C visits producers first
    // and inlines pad and B, not the output.
    let m = Value::Int(8);
    let a = placeholder(h, std::slice::from_ref(&m), "A", "float32");
    let pad = ok(
        h,
        "te.compute",
        vec![tuple(std::slice::from_ref(&m)), double(&a)],
        &[
            ("name", Value::str("pad")),
            ("tag", Value::str("injective,pad")),
        ],
    );
    let b = ok(
        h,
        "te.compute",
        vec![tuple(std::slice::from_ref(&m)), double(&pad)],
        &[("name", Value::str("B")), ("tag", Value::str("broadcast"))],
    );
    let c = ok(
        h,
        "te.compute",
        vec![tuple(std::slice::from_ref(&m)), double(&b)],
        &[("name", Value::str("C")), ("tag", Value::str("elemwise"))],
    );
    let s = ok(h, "te.create_schedule", vec![attr(&c, "op")], &[]);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = {
        let seen = seen.clone();
        closure(&["op"], move |_, args| {
            seen.borrow_mut()
                .push(tvm_api::str(&attr(&args[0], "name")));
            Ok(Value::None)
        })
    };
    ok(
        h,
        "tvm.topi.utils.traverse_inline",
        vec![s.clone(), attr(&c, "op"), record],
        &[],
    );
    assert_eq!(*seen.borrow(), ["pad", "B", "C"]);
    let sched = schedule(&s);
    let inlined = |t: &Value| sched.stage(tensor(t).op()).unwrap().attach() == &te::Attach::Inline;
    assert!(inlined(&pad) && inlined(&b) && !inlined(&c));
    let report = te::check(&sched, &[tensor(&a), tensor(&c)], &Default::default(), 3).unwrap();
    assert!(report.is_clean(0.0));
}

#[test]
fn isinstance_follows_tvms_classes_and_hierarchy() {
    let h = &mut host();
    let n = ok(h, "te.var", vec![Value::str("n")], &[]);
    let a = placeholder(h, &[n.clone(), Value::Int(4)], "A", "float32");
    let b = ok(
        h,
        "te.compute",
        vec![
            tuple(&[n.clone(), Value::Int(4)]),
            closure(&["i", "j"], {
                let a = a.clone();
                move |_, args| tvm_api::subscript(&a, &tuple(args))
            }),
        ],
        &[("name", Value::str("B"))],
    );
    let s = ok(h, "te.create_schedule", vec![attr(&b, "op")], &[]);
    let stage = tvm_api::subscript(&s, &b).unwrap();
    let axis = tvm_api::iter(&attr(&attr(&b, "op"), "axis")).unwrap()[0].clone();
    let element = tvm_api::subscript(&a, &tuple(&[Value::Int(0), Value::Int(0)])).unwrap();
    let sum = tvm_api::binary(tvm_api::BinaryOp::Add, &n, &Value::Int(1)).unwrap();
    let dim = tvm_api::iter(&attr(&a, "shape")).unwrap()[1].clone();
    let cases: &[(&Value, &[&str])] = &[
        (
            &n,
            &[
                "tvm.tir.Var",
                "tvm.tir.expr.Var",
                "tvm.tir.PrimExpr",
                "tvm.ir.PrimExpr",
                "tvm.runtime.Object",
            ],
        ),
        (
            &sum,
            &[
                "tvm.tir.PrimExpr",
                "tvm.tir.expr.PrimExpr",
                "tvm.runtime.ObjectRef",
            ],
        ),
        // A Python int stands for an IntImm, not for any other object.
        (
            &dim,
            &["tvm.tir.IntImm", "tvm.tir.expr.IntImm", "tvm.tir.PrimExpr"],
        ),
        // A float stands for a `FloatImm` (`tvm.tir.const(1.0)`), but is no
        // `PrimExpr`: TOPI makes a float default that is not a `PrimExpr`
        // (`pad_value=0.0`) a constant of the data's type.
        (&Value::Float(1.0), &["tvm.tir.FloatImm"]),
        (&element, &["tvm.tir.PrimExpr", "tvm.runtime.Object"]),
        (&a, &["te.Tensor", "te.tensor.Tensor", "tvm.runtime.Object"]),
        (
            &attr(&a, "op"),
            &[
                "te.PlaceholderOp",
                "te.tensor.PlaceholderOp",
                "te.operation.PlaceholderOp",
                "te.Operation",
            ],
        ),
        (
            &attr(&b, "op"),
            &["te.ComputeOp", "te.tensor.ComputeOp", "te.Operation"],
        ),
        (&axis, &["tvm.tir.IterVar", "tvm.runtime.Object"]),
        (&attr(&axis, "dom"), &["tvm.ir.Range"]),
        (&stage, &["te.schedule.Stage"]),
        (&s, &["te.schedule.Schedule"]),
    ];
    let all = [
        "tvm.tir.Var",
        "tvm.tir.SizeVar",
        "tvm.tir.IntImm",
        "tvm.tir.FloatImm",
        "tvm.tir.StringImm",
        "tvm.tir.Any",
        "tvm.tir.PrimExpr",
        "te.Tensor",
        "te.Operation",
        "te.ComputeOp",
        "te.PlaceholderOp",
        "tvm.tir.IterVar",
        "tvm.ir.Range",
        "te.schedule.Stage",
        "te.schedule.Schedule",
        "tvm.runtime.Object",
    ];
    for (value, classes) in cases {
        for class in all {
            // Every TVM object is a `tvm.runtime.Object`.
            let object = class == "tvm.runtime.Object"
                && matches!(value, Value::Index(_) | Value::Object(_));
            let expected = object
                || classes.iter().any(|c| {
                    tvm_api::resolve(c).map(|v| tvm_api::str(&v))
                        == tvm_api::resolve(class).map(|v| tvm_api::str(&v))
                });
            assert_eq!(is(value, class), expected, "isinstance({value}, {class})");
        }
    }
    // Plain Python values are not TVM objects.
    assert!(!is(&Value::str("x"), "tvm.runtime.Object"));
    assert!(!is(&Value::None, "tvm.tir.PrimExpr"));
}

#[test]
fn casts_limits_selects_and_element_modulo_build_typed_programs_that_run() {
    let h = &mut host();
    let a = placeholder(h, &[Value::Int(16)], "A", "float32");
    let idx = placeholder(h, &[Value::Int(16)], "I", "int32");
    // B[i] = Select(A[i] > 0, A[i], min_value) cast to float64, read
    // through T(I(i) % 16) with call syntax.
    let body = {
        let (a, idx) = (a.clone(), idx.clone());
        closure(&["i"], move |h, args| {
            let j = tvm_api::call(h, &idx, Args::positional(vec![args[0].clone()]))?;
            let j = tvm_api::binary(tvm_api::BinaryOp::Mod, &j, &Value::Int(16))?;
            let x = tvm_api::call(h, &a, Args::positional(vec![j]))?;
            let positive = tvm_api::compare(tvm_api::CmpOp::Gt, &x, &Value::Float(0.0))?;
            let low = call(h, "te.min_value", vec![Value::str("float32")], &[])?;
            let chosen = call(h, "tvm.tir.Select", vec![positive, x.clone(), low], &[])?;
            let wide = method(h, &chosen, "astype", vec![Value::str("float64")]);
            assert_eq!(tvm_api::str(&attr(&wide, "dtype")), "float64");
            Ok(wide)
        })
    };
    let b = ok(
        h,
        "te.compute",
        vec![tuple(&[Value::Int(16)]), body],
        &[("name", Value::str("B"))],
    );
    assert_eq!(tvm_api::str(&attr(&b, "dtype")), "float64");
    let s = ok(h, "te.create_schedule", vec![attr(&b, "op")], &[]);
    let report = te::check(
        &schedule(&s),
        &[tensor(&a), tensor(&idx), tensor(&b)],
        &Default::default(),
        5,
    )
    .unwrap();
    assert!(report.is_clean(0.0), "{report:?}");

    // Index expressions: astype to an integer type keeps an index, to a
    // float makes an element; equal, div and indexdiv/indexmod.
    let n = ok(h, "te.var", vec![Value::str("n")], &[]);
    assert!(matches!(
        method(h, &n, "astype", vec![Value::str("int32")]),
        Value::Index(_)
    ));
    assert_eq!(
        tvm_api::str(&attr(
            &method(h, &n, "astype", vec![Value::str("float32")]),
            "dtype"
        )),
        "float32"
    );
    assert_eq!(
        tvm_api::str(&method(h, &n, "equal", vec![Value::Int(0)])),
        "n == 0"
    );
    assert_eq!(
        tvm_api::str(&ok(
            h,
            "tvm.tir.indexdiv",
            vec![n.clone(), Value::Int(4)],
            &[]
        )),
        "n // 4"
    );
    assert_eq!(
        tvm_api::str(&ok(
            h,
            "tvm.tir.indexmod",
            vec![n.clone(), Value::Int(4)],
            &[]
        )),
        "n % 4"
    );
    assert_eq!(
        tvm_api::str(&attr(
            &ok(
                h,
                "tvm.tir.div",
                vec![Value::Float(1.0), Value::Float(2.0)],
                &[]
            ),
            "dtype"
        )),
        "float32"
    );
    assert_eq!(
        tvm_api::str(&attr(
            &ok(
                h,
                "tvm.tir.Cast",
                vec![Value::str("int8"), Value::Float(2.5)],
                &[]
            ),
            "dtype"
        )),
        "int8"
    );
    // A comparison of elements is a condition per element, never a Python
    // bool.
    let first = tvm_api::subscript(&a, &Value::Int(0)).unwrap();
    let cond = tvm_api::compare(tvm_api::CmpOp::Eq, &first, &first).unwrap();
    assert_eq!(tvm_api::str(&attr(&cond, "dtype")), "bool");
    assert_eq!(
        tvm_api::truth(&cond).unwrap_err().class,
        ErrorClass::ValueError
    );
    let e = call(
        h,
        "tvm.tir.Cast",
        vec![Value::str("float17"), Value::Int(1)],
        &[],
    )
    .unwrap_err();
    assert_eq!(e.arg, Some(tvm_api::ArgRef::Positional(0)));
}

proptest! {
    /// `min_value` / `max_value` of every integer type are the ends of its
    /// range, and of the float types the largest finite values.
    #[test]
    fn limits_are_the_ends_of_each_types_range(t in 0usize..tir::DataType::ALL.len(), max in any::<bool>()) {
        let dt = tir::DataType::ALL[t];
        let f = if max { "te.max_value" } else { "te.min_value" };
        let v = tvm_api::call_function(&tvm_api::resolve(f).unwrap(), vec![Value::str(dt.name())], &[]).unwrap();
        let expected = match dt.int_range() {
            Some((lo, hi)) => (if max { hi } else { lo }).to_string(),
            None if dt == tir::DataType::Float32 => format!("{:?}", if max { f32::MAX } else { f32::MIN } as f64),
            None if dt == tir::DataType::Float16 => format!("{:?}", if max { 65504.0 } else { -65504.0 }),
            None => format!("{:?}", if max { f64::MAX } else { f64::MIN }),
        };
        let text = tvm_api::str(&v);
        prop_assert!(text.contains(&expected) || text.contains(&expected.replace(".0", "")), "{} gives {}", f, text);
        let dtype = tvm_api::get_attr(&v, "dtype").unwrap();
        prop_assert_eq!(tvm_api::str(&dtype), dt.name());
    }
}

#[test]
fn tag_scopes_tag_computes_as_context_and_decorator_and_refuse_nesting() {
    let h = &mut host();
    let a = placeholder(h, &[Value::Int(4)], "A", "float32");
    let scope = ok(h, "te.tag_scope", vec![Value::str("broadcast")], &[]);
    let entered = tvm_api::enter(h, &scope).expect("a context").unwrap();
    assert!(tvm_api::equal(&entered, &scope));
    let b = ok(
        h,
        "te.compute",
        vec![tuple(&[Value::Int(4)]), double(&a)],
        &[("name", Value::str("B"))],
    );
    // Another scope inside, or a tag= inside: TVM's errors.
    let inner = ok(h, "te.tag_scope", vec![Value::str("x")], &[]);
    let e = tvm_api::enter(h, &inner).unwrap().unwrap_err();
    assert_eq!(
        (e.class, e.message.as_str()),
        (
            ErrorClass::ValueError,
            "nested op_tag is not allowed for now"
        )
    );
    let e = call(
        h,
        "te.compute",
        vec![tuple(&[Value::Int(4)]), double(&a)],
        &[("tag", Value::str("y"))],
    )
    .unwrap_err();
    assert_eq!(e.message, "nested tag is not allowed for now");
    assert_eq!(e.arg, Some(tvm_api::ArgRef::Keyword("tag".into())));
    tvm_api::exit(h, &scope);
    assert_eq!(tvm_api::str(&attr(&attr(&b, "op"), "tag")), "broadcast");

    // As a decorator: each call of the function runs in the scope, which
    // is left even when the function fails.
    let relu = varargs({
        let a = a.clone();
        move |h, args| {
            if !args.is_empty() {
                return Err(ApiError::type_error("no arguments"));
            }
            call(
                h,
                "te.compute",
                vec![tuple(&[Value::Int(4)]), double(&a)],
                &[(
                    "attrs",
                    Value::Dict(Rc::from(vec![
                        (Value::str("k"), Value::Int(3)),
                        (
                            Value::str("w"),
                            Value::tuple(vec![Value::Int(1), Value::str("x"), a.clone()]),
                        ),
                    ])),
                )],
            )
        }
    });
    let scope = ok(
        h,
        "tvm.te.tag_scope",
        vec![],
        &[("tag", Value::str("elemwise"))],
    );
    let decorated = tvm_api::call(h, &scope, Args::positional(vec![relu])).unwrap();
    let c = tvm_api::call(h, &decorated, Args::positional(vec![])).unwrap();
    let op = attr(&c, "op");
    assert_eq!(tvm_api::str(&attr(&op, "tag")), "elemwise");
    let attrs = attr(&op, "attrs");
    assert!(matches!(
        tvm_api::subscript(&attrs, &Value::str("k")).unwrap(),
        Value::Int(3)
    ));
    let w = tvm_api::subscript(&attrs, &Value::str("w")).unwrap();
    assert!(tvm_api::equal(&tvm_api::iter(&w).unwrap()[2], &a));
    assert!(tvm_api::subscript(&attrs, &Value::str("missing")).is_err());
    assert!(tvm_api::call(h, &decorated, Args::positional(vec![Value::Int(1)])).is_err());
    // The failed call left its scope.
    let again = ok(h, "te.tag_scope", vec![Value::str("z")], &[]);
    tvm_api::enter(h, &again).unwrap().unwrap();
    tvm_api::exit(h, &again);
    let untagged = ok(
        h,
        "te.compute",
        vec![tuple(&[Value::Int(4)]), double(&a)],
        &[],
    );
    assert_eq!(tvm_api::str(&attr(&attr(&untagged, "op"), "tag")), "");
    assert_eq!(tvm_api::str(&attr(&attr(&a, "op"), "tag")), "");
}

#[test]
fn targets_parse_enter_and_are_current_inside_with() {
    let h = &mut host();
    let current = |h: &mut TestHost| ok(h, "tvm.target.Target.current", vec![], &[]);
    assert!(matches!(current(h), Value::None));
    let e = call(
        h,
        "tvm.target.Target.current",
        vec![],
        &[("allow_none", Value::Bool(false))],
    )
    .unwrap_err();
    assert_eq!(e.class, ErrorClass::TVMError);
    let cuda = ok(h, "tvm.target.Target", vec![Value::str("cuda")], &[]);
    let llvm = ok(
        h,
        "tvm.target.Target",
        vec![Value::str("llvm -mcpu=skylake-avx512")],
        &[],
    );
    tvm_api::enter(h, &cuda).unwrap().unwrap();
    assert_eq!(
        tvm_api::str(&attr(&attr(&current(h), "kind"), "name")),
        "cuda"
    );
    tvm_api::enter(h, &llvm).unwrap().unwrap();
    let inner = current(h);
    assert_eq!(tvm_api::str(&inner), "llvm -keys=cpu -mcpu=skylake-avx512");
    assert_eq!(tvm_api::repr(&attr(&inner, "keys")), "['cpu']");
    assert_eq!(tvm_api::str(&attr(&inner, "mcpu")), "skylake-avx512");
    tvm_api::exit(h, &llvm);
    assert!(matches!(
        attr(&current(h), "max_num_threads"),
        Value::Int(1024)
    ));
    tvm_api::exit(h, &cuda);
    assert!(matches!(current(h), Value::None));
    let arm = ok(h, "tvm.target.arm_cpu", vec![], &[]);
    assert_eq!(tvm_api::repr(&attr(&arm, "keys")), "['arm_cpu', 'cpu']");
    assert!(is(&arm, "tvm.target.Target"));
    let e = call(h, "tvm.target.Target", vec![Value::str("tpu")], &[]).unwrap_err();
    assert_eq!(
        (e.class, e.arg),
        (ErrorClass::ValueError, Some(tvm_api::ArgRef::Positional(0)))
    );
}

/// `C = A + B` over a symbolic `n`, split by 4, built.
fn built_add(h: &mut TestHost) -> Value {
    let n = ok(h, "te.var", vec![Value::str("n")], &[]);
    let a = placeholder(h, std::slice::from_ref(&n), "A", "float32");
    let b = placeholder(h, std::slice::from_ref(&n), "B", "float32");
    let body = {
        let (a, b) = (a.clone(), b.clone());
        closure(&["i"], move |_, args| {
            let x = tvm_api::subscript(&a, &args[0])?;
            let y = tvm_api::subscript(&b, &args[0])?;
            tvm_api::binary(tvm_api::BinaryOp::Add, &x, &y)
        })
    };
    let c = ok(
        h,
        "te.compute",
        vec![tuple(&[n]), body],
        &[("name", Value::str("C"))],
    );
    let s = ok(h, "te.create_schedule", vec![attr(&c, "op")], &[]);
    let stage = tvm_api::subscript(&s, &c).unwrap();
    let axis = tvm_api::iter(&attr(&attr(&c, "op"), "axis")).unwrap()[0].clone();
    let split = attr(&stage, "split");
    tvm_api::call(
        h,
        &split,
        Args {
            positional: vec![axis],
            keywords: vec![("factor".into(), Value::Int(4))],
        },
    )
    .unwrap();
    ok(
        h,
        "tvm.build",
        vec![s, Value::list(vec![a, b, c])],
        &[("target", Value::str("llvm"))],
    )
}

proptest! {
    /// A built function computes what numpy would: `c = a + b` element by
    /// element, stored as float32, for any length (tails of the split
    /// included).
    #[test]
    fn a_built_function_runs_on_arrays(xs in prop::collection::vec((-1e3f64..1e3, -1e3f64..1e3), 0..11)) {
        let h = &mut host();
        let f = built_add(h);
        let dev = ok(h, "tvm.cpu", vec![Value::Int(0)], &[]);
        let list = |v: Vec<f64>| Value::list(v.into_iter().map(Value::Float).collect());
        let a = ok(h, "tvm.nd.array", vec![list(xs.iter().map(|x| x.0).collect()), dev.clone()], &[]);
        let b = ok(h, "tvm.nd.array", vec![list(xs.iter().map(|x| x.1).collect()), dev.clone()], &[]);
        let c = ok(h, "tvm.nd.empty", vec![tuple(&[Value::Int(xs.len() as i64)]), Value::str("float32"), dev], &[]);
        tvm_api::call(h, &f, Args::positional(vec![a, b, c.clone()])).unwrap();
        let expected: Vec<f64> = xs.iter().map(|(x, y)| ((*x as f32) + (*y as f32)) as f64).collect();
        let Value::Object(Object::NDArray(out)) = &c else { panic!("an array") };
        prop_assert_eq!(&out.borrow().data, &expected);
        prop_assert_eq!(tvm_api::repr(&attr(&c, "shape")), format!("({},)", xs.len()));
        let values = method(h, &c, "numpy", vec![]);
        ok(h, "tvm.testing.assert_allclose", vec![values, list(expected)], &[]);
    }
}

#[test]
fn built_functions_check_their_arrays_and_assert_allclose_fails_as_numpy_does() {
    let h = &mut host();
    let f = built_add(h);
    let a = ok(
        h,
        "tvm.nd.array",
        vec![Value::list(vec![Value::Float(1.0); 3])],
        &[],
    );
    let b = ok(
        h,
        "tvm.nd.array",
        vec![Value::list(vec![Value::Float(1.0); 4])],
        &[],
    );
    let e = tvm_api::call(h, &f, Args::positional(vec![a.clone(), b, a.clone()])).unwrap_err();
    assert_eq!(e.message, "dimension 0 of `B` is 3, the array's is 4");
    assert_eq!(e.arg, Some(tvm_api::ArgRef::Positional(1)));
    let e = tvm_api::call(h, &f, Args::positional(vec![a.clone()])).unwrap_err();
    assert_eq!(
        e.message,
        "`myadd` takes 3 arguments, 1 given".replace("myadd", "default_function")
    );

    let actual = Value::list(vec![
        Value::Float(1.0),
        Value::Float(2.0),
        Value::Float(3.0),
        Value::Float(4.0),
    ]);
    let desired = Value::list(vec![
        Value::Float(1.0),
        Value::Float(2.5),
        Value::Float(3.0),
        Value::Float(4.0),
    ]);
    let e = call(
        h,
        "tvm.testing.assert_allclose",
        vec![actual, desired],
        &[("rtol", Value::Float(1e-5))],
    )
    .unwrap_err();
    assert_eq!(e.class, ErrorClass::AssertionError);
    assert_eq!(
        e.message,
        "\nNot equal to tolerance rtol=1e-05, atol=0\n\nMismatched elements: 1 / 4 (25%)\n\
         Max absolute difference: 0.5\nMax relative difference: 0.2"
    );
    let ints = ok(
        h,
        "tvm.nd.array",
        vec![Value::list(vec![Value::Int(300), Value::Int(-1)])],
        &[("dtype", Value::str("int8"))],
    );
    assert_eq!(tvm_api::str(&method(h, &ints, "numpy", vec![])), "[44, -1]");
}

#[test]
fn lowered_programs_are_walked_children_first_by_post_order_visit() {
    let h = &mut host();
    let a = placeholder(h, &[Value::Int(6)], "A", "float32");
    let b = ok(
        h,
        "te.compute",
        vec![tuple(&[Value::Int(6)]), double(&a)],
        &[("name", Value::str("B"))],
    );
    let s = ok(h, "te.create_schedule", vec![attr(&b, "op")], &[]);
    let m = ok(
        h,
        "tvm.lower",
        vec![s, Value::list(vec![a, b])],
        &[("simple_mode", Value::Bool(true))],
    );
    let main = tvm_api::subscript(&m, &Value::str("main")).unwrap();
    assert!(tvm_api::subscript(&m, &Value::str("other")).is_err());
    let seen = Rc::new(RefCell::new(Vec::new()));
    let record = {
        let seen = seen.clone();
        closure(&["node"], move |_, args| {
            let node = &args[0];
            let text = if is(node, "tvm.tir.For") {
                format!("For {} {}", attr(node, "loop_var"), attr(node, "extent"))
            } else if is(node, "tvm.tir.BufferStore") {
                format!("BufferStore {}", attr(&attr(node, "buffer"), "name"))
            } else {
                node.type_name().to_owned()
            };
            seen.borrow_mut().push(text);
            Ok(Value::None)
        })
    };
    ok(
        h,
        "tvm.tir.stmt_functor.post_order_visit",
        vec![attr(&main, "body"), record],
        &[],
    );
    let seen = seen.borrow();
    assert_eq!(
        seen[..2],
        ["BufferStore B".to_owned(), "For i 6".to_owned()]
    );
    // Printing the module prints the lowered program.
    assert!(tvm_api::str(&m).contains("for (i, 0, 6)"));
}
