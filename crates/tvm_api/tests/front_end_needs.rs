//! What the Python package relies on beyond the script interpreter: TVM's
//! exception classes (an `IndexError` for too many indices), the category
//! of `te`'s errors, the attributes of split and fuse relations, and
//! constant arithmetic that overflows refused.

use tvm_api::{
    call, call_function, get_attr, resolve, subscript, ApiError, Args, BinaryOp, ErrorClass, Host,
    Parameters, Session, Value,
};

/// A host whose one function is `lambda i: i`.
struct IdentityHost(Session);

impl Host for IdentityHost {
    fn call(&mut self, _f: &Value, args: Vec<Value>) -> Result<Value, ApiError> {
        Ok(args[0].clone())
    }
    fn parameters(&self, _f: &Value) -> Option<Parameters> {
        Some(Parameters {
            names: vec!["i".into()],
            varargs: false,
        })
    }
    fn session(&mut self) -> &mut Session {
        &mut self.0
    }
}

fn api(path: &str, positional: Vec<Value>, keywords: &[(&str, Value)]) -> Result<Value, ApiError> {
    call_function(&resolve(path).expect(path), positional, keywords)
}

fn method(
    receiver: &Value,
    name: &str,
    positional: Vec<Value>,
    keywords: &[(&str, Value)],
) -> Result<Value, ApiError> {
    call_function(&get_attr(receiver, name).expect(name), positional, keywords)
}

fn axis(tensor: &Value, i: usize) -> Value {
    let op = get_attr(tensor, "op").unwrap();
    let Value::List(axes) = get_attr(&op, "axis").unwrap() else {
        panic!("axis is a list")
    };
    let axis = axes.borrow()[i].clone();
    axis
}

/// `B = te.compute((n,), lambda i: i)` and its schedule.
fn compute_and_schedule(n: i64) -> (Value, Value) {
    let shape = Value::tuple(vec![Value::Int(n)]);
    let compute = resolve("te.compute").unwrap();
    let args = Args {
        positional: vec![shape, Value::None],
        keywords: vec![("name".into(), Value::str("B"))],
    };
    let b = call(&mut IdentityHost(Session::default()), &compute, args).unwrap();
    let s = api("te.create_schedule", vec![get_attr(&b, "op").unwrap()], &[]).unwrap();
    (b, s)
}

#[test]
fn too_many_indices_is_an_index_error() {
    let shape = Value::tuple(vec![Value::Int(4)]);
    let a = api("te.placeholder", vec![shape], &[("name", Value::str("A"))]).unwrap();
    let two = Value::tuple(vec![Value::Int(0), Value::Int(1)]);
    let e = subscript(&a, &two).expect_err("two indices of a 1-d tensor");
    assert_eq!(e.class, ErrorClass::IndexError);
    assert_eq!(e.message, "`A` has 1 dimensions but 2 indices were given");
}

#[test]
fn errors_of_te_keep_their_category() {
    let (a, s) = compute_and_schedule(8);
    let stage = subscript(&s, &a).unwrap();
    let other = compute_and_schedule(8).0;
    let e = method(
        &stage,
        "split",
        vec![axis(&other, 0)],
        &[("factor", Value::Int(2))],
    )
    .expect_err("an axis of another operation");
    assert_eq!(e.class, ErrorClass::TVMError);
    assert_eq!(e.kind, Some("invalid_schedule"));
    assert_eq!(ApiError::tvm("x").kind, None);
}

#[test]
fn relations_have_tvms_attributes() {
    let (a, s) = compute_and_schedule(10);
    let stage = subscript(&s, &a).unwrap();
    let parent = axis(&a, 0);
    let Value::Tuple(parts) = method(
        &stage,
        "split",
        vec![parent.clone()],
        &[("nparts", Value::Int(3))],
    )
    .unwrap() else {
        panic!("split gives a tuple")
    };
    let fused = method(&stage, "fuse", parts.to_vec(), &[]).unwrap();
    let Value::List(relations) = get_attr(&stage, "relations").unwrap() else {
        panic!("relations is a list")
    };
    let (split, fuse) = (relations.borrow()[0].clone(), relations.borrow()[1].clone());
    let same = |v: &Value, name: &str, expected: &Value| {
        assert!(
            tvm_api::equal(&get_attr(v, name).unwrap(), expected),
            "{name}"
        )
    };
    same(&split, "parent", &parent);
    same(&split, "outer", &parts[0]);
    same(&split, "inner", &parts[1]);
    assert!(matches!(get_attr(&split, "factor"), Ok(Value::None)));
    assert!(matches!(get_attr(&split, "nparts"), Ok(Value::Index(e)) if e.as_int() == Some(3)));
    same(&fuse, "outer", &parts[0]);
    same(&fuse, "inner", &parts[1]);
    same(&fuse, "fused", &fused);
    let e = get_attr(&split, "fused").expect_err("a split has no fused axis");
    assert_eq!(e.class, ErrorClass::AttributeError);
}

#[test]
fn constant_arithmetic_that_overflows_is_an_error() {
    let big = api("tvm.tir.const", vec![Value::Int(1 << 62)], &[]).unwrap();
    for op in [BinaryOp::Mul, BinaryOp::Add] {
        let e = tvm_api::binary(op, &big, &Value::Int(1 << 62)).expect_err("overflow");
        assert_eq!(e.class, ErrorClass::OverflowError);
    }
    // Within 64 bits, expressions are built as written.
    let ok = tvm_api::binary(BinaryOp::Mul, &big, &Value::Int(1)).unwrap();
    assert_eq!(tvm_api::str(&ok), "4611686018427387904 * 1");
}

#[test]
fn equality_of_non_constants_is_identity_and_not_negates() {
    let x = api("te.var", vec![Value::str("x")], &[]).unwrap();
    let y = api("te.var", vec![Value::str("y")], &[]).unwrap();
    let eq = |a: &Value, b: &Value| {
        tvm_api::truth(&tvm_api::compare(tvm_api::CmpOp::Eq, a, b).unwrap()).unwrap()
    };
    assert!(eq(&x, &x));
    assert!(!eq(&x, &y));
    let sum = |a: &Value, b: &Value| tvm_api::binary(BinaryOp::Add, a, b).unwrap();
    let e = sum(&x, &y);
    assert!(eq(&e, &e));
    // Two separately built `x + y` are different nodes, as in TVM.
    assert!(!eq(&e, &sum(&x, &y)));
    // Constants compare by value.
    assert!(eq(
        &Value::Int(3),
        &api("tvm.tir.const", vec![Value::Int(3)], &[]).unwrap()
    ));
    let lt = tvm_api::compare(tvm_api::CmpOp::Lt, &x, &y).unwrap();
    assert_eq!(
        tvm_api::truth(&lt).unwrap_err().class,
        ErrorClass::ValueError
    );
    let not = tvm_api::unary(tvm_api::UnaryOp::Not, &lt).unwrap();
    assert_eq!(tvm_api::str(&not), "not x < y");
    let e = tvm_api::unary(tvm_api::UnaryOp::Not, &x).unwrap_err();
    assert_eq!(e.class, ErrorClass::TypeError);
}
