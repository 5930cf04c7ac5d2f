//! What the tests of TOPI's operators share: a host for programs that
//! pass no functions of their own, calls by dotted path, placeholders.
#![allow(dead_code)]

use tvm_api::{ApiError, Args, Host, Object, Parameters, Session, Value};

/// A host for programs that pass no functions of their own.
pub struct NoFunctions(pub Session);

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

pub fn host() -> NoFunctions {
    NoFunctions(Session::default())
}

pub fn attr(v: &Value, name: &str) -> Value {
    tvm_api::get_attr(v, name).unwrap_or_else(|e| panic!(".{name}: {}", e.message))
}

pub fn ints(items: &[i64]) -> Value {
    Value::tuple(items.iter().map(|&i| Value::Int(i)).collect())
}

pub fn try_call(
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

pub fn call(h: &mut dyn Host, path: &str, pos: Vec<Value>, kw: &[(&str, Value)]) -> Value {
    try_call(h, path, pos, kw).unwrap_or_else(|e| panic!("{path}: {}", e.message))
}

pub fn placeholder(h: &mut dyn Host, shape: &[i64], name: &str) -> Value {
    call(
        h,
        "te.placeholder",
        vec![ints(shape)],
        &[("name", Value::str(name))],
    )
}

/// Row-major strides of `shape`.
pub fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Builds `out` from `inputs` and runs it on `data` (one flat array per
/// input, float32), returning the output's elements.
pub fn run(h: &mut dyn Host, inputs: &[(&Value, &[f64])], out: &Value) -> Vec<f64> {
    let s = call(h, "te.create_schedule", vec![attr(out, "op")], &[]);
    run_schedule(h, &s, inputs, out)
}

/// Runs the program of schedule `s` on `data` (one flat float32 array
/// per input), returning the output's elements.
pub fn run_schedule(
    h: &mut dyn Host,
    s: &Value,
    inputs: &[(&Value, &[f64])],
    out: &Value,
) -> Vec<f64> {
    let mut args: Vec<Value> = inputs.iter().map(|(t, _)| (*t).clone()).collect();
    args.push(out.clone());
    let f = call(
        h,
        "tvm.build",
        vec![s.clone(), Value::list(args)],
        &[("target", Value::str("llvm"))],
    );
    let dev = call(h, "tvm.cpu", vec![Value::Int(0)], &[]);
    let mut arrays = Vec::new();
    for (t, data) in inputs {
        let flat = Value::list(data.iter().map(|&x| Value::Float(x)).collect());
        let shape = attr(t, "shape");
        let reshaped = call(
            h,
            "tvm.nd.empty",
            vec![shape, Value::str("float32"), dev.clone()],
            &[],
        );
        let Value::Object(Object::NDArray(a)) = &reshaped else {
            panic!("an array")
        };
        let flat =
            tvm_api::NDArray::from_value(&flat, Some(tir::DataType::Float32)).expect("numbers");
        a.borrow_mut().data = flat.data;
        arrays.push(reshaped);
    }
    let out_arr = call(
        h,
        "tvm.nd.empty",
        vec![attr(out, "shape"), Value::str("float32"), dev],
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
