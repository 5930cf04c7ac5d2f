//! What the tests of TOPI's operators share: a host for programs that
//! pass no functions of their own, calls by dotted path, placeholders.
#![allow(dead_code)]

use tvm_api::{ApiError, Args, Host, Parameters, Session, Value};

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
