//! `tvm.build` and the arrays it runs on: `tvm.nd.array`, `tvm.nd.empty`,
//! `tvm.cpu()`/`tvm.cuda()`, `.numpy()`, and
//! `tvm.testing.assert_allclose`. A built function runs the lowered
//! program with `tir`'s interpreter, whatever the target: rangefinder
//! generates no code.
//!
//! An [`NDArray`] holds a shape, a dtype and its values. Front ends convert
//! at one point each way: [`NDArray::from_value`] takes nested Python
//! lists (the Python package first turns a numpy array into
//! `array.tolist()`), and [`NDArray::to_value`] gives nested lists back
//! (which the Python package wraps with `numpy.array(..., dtype)`).

use crate::args::{Args, Given};
use crate::error::{error, type_error, ApiError, ApiResult, ErrorClass};
use crate::object::{Object, ScheduleRef};
use crate::value::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use tir::DataType;

/// An n-dimensional array of one dtype, as `tvm.nd.array` holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct NDArray {
    /// The extent of each dimension.
    pub shape: Vec<usize>,
    /// The element type.
    pub dtype: DataType,
    /// The values in row-major order.
    pub data: Vec<f64>,
}

/// A shared array: `f(a, b, c)` writes its outputs into the arrays given.
pub type NDArrayRef = Rc<RefCell<NDArray>>;

/// What `tvm.build(s, args)` returns: the schedule and its parameters;
/// or, for `tvm.build(func)` of a function in block form, the function.
#[derive(Clone)]
pub struct Built {
    program: BuiltProgram,
    /// The parameters in the order the function takes them: a tensor (its
    /// position in `args`) or a scalar variable given a value per call.
    params: Vec<BuiltParam>,
    name: String,
    /// The target it was built for, as text (`"llvm"`, `"cuda"`).
    target: String,
}

impl Built {
    /// The function's name (`f.entry_name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kind of target it was built for (`"llvm"`, `"cuda"`).
    pub(crate) fn target_kind(&self) -> &str {
        self.target.split_whitespace().next().unwrap_or("llvm")
    }

    /// The function as a saved module holds it ([`crate::module_file`]):
    /// its name, target, parameters and program.
    pub(crate) fn to_json(&self) -> ApiResult<serde_json::Value> {
        let BuiltProgram::Schedule(schedule, tensors) = &self.program else {
            return Err(ApiError::not_supported(
                "saving a module built from a TensorIR function is not supported by \
                 rangefinder: save one built from a schedule (`tvm.build(s, args)`)",
            ));
        };
        let mut sizes = Vec::new();
        let params: Vec<serde_json::Value> = self
            .params
            .iter()
            .map(|p| match p {
                BuiltParam::Tensor => serde_json::json!("tensor"),
                BuiltParam::Unused => serde_json::json!("unused"),
                BuiltParam::Scalar(v) => {
                    sizes.push(v.clone());
                    serde_json::json!({"size": sizes.len() - 1})
                }
                BuiltParam::Float(v, t) => {
                    sizes.push(v.clone());
                    serde_json::json!({"float": sizes.len() - 1, "dtype": t.name()})
                }
            })
            .collect();
        let program = te::save_json(&te::JsonObject::Function {
            schedule: Box::new(schedule.borrow().clone()),
            tensors: tensors.clone(),
            sizes,
        })
        .map_err(ApiError::te)?;
        let program: serde_json::Value = serde_json::from_str(&program)
            .map_err(|e| ApiError::tvm(format!("save_json wrote no JSON: {e}")))?;
        Ok(serde_json::json!({
            "name": self.name,
            "target": self.target,
            "params": params,
            "program": program,
        }))
    }

    /// The function [`Built::to_json`] describes, or what is wrong with
    /// the description.
    pub(crate) fn from_json(j: &serde_json::Value) -> Result<Built, String> {
        let text = |key: &str| {
            j.get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("its function has no `{key}`"))
        };
        let (name, target) = (text("name")?, text("target")?);
        let program = j.get("program").ok_or("its function has no `program`")?;
        let te::JsonObject::Function {
            schedule,
            tensors,
            sizes,
        } = te::load_json(&program.to_string()).map_err(|e| e.message)?
        else {
            return Err("its `program` is not a function".to_owned());
        };
        let params = j
            .get("params")
            .and_then(serde_json::Value::as_array)
            .ok_or("its function has no `params`")?
            .iter()
            .map(|p| match p.as_str() {
                Some("tensor") => Ok(BuiltParam::Tensor),
                Some("unused") => Ok(BuiltParam::Unused),
                _ if p.get("float").is_some() => {
                    let var = p
                        .get("float")
                        .and_then(serde_json::Value::as_u64)
                        .and_then(|k| sizes.get(usize::try_from(k).ok()?));
                    let dtype = p
                        .get("dtype")
                        .and_then(serde_json::Value::as_str)
                        .and_then(|t| t.parse::<DataType>().ok())
                        .filter(|t| t.is_float());
                    match (var, dtype) {
                        (Some(v), Some(t)) => Ok(BuiltParam::Float(v.clone(), t)),
                        _ => Err(format!("the parameter {p} is not one a function takes")),
                    }
                }
                _ => p
                    .get("size")
                    .and_then(serde_json::Value::as_u64)
                    .and_then(|k| sizes.get(usize::try_from(k).ok()?))
                    .map(|v| BuiltParam::Scalar(v.clone()))
                    .ok_or_else(|| format!("the parameter {p} is not one a function takes")),
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Built {
            program: BuiltProgram::Schedule(Rc::new(RefCell::new(*schedule)), tensors),
            params,
            name,
            target,
        })
    }
}

/// What a built function runs.
#[derive(Clone)]
enum BuiltProgram {
    /// A schedule lowered for these argument tensors on each call.
    Schedule(ScheduleRef, Vec<te::Tensor>),
    /// A function in block form, as a program of the loop IR.
    Blocks(Rc<tir::PrimFunc>),
}

/// One parameter of a built function.
#[derive(Clone)]
pub(crate) enum BuiltParam {
    /// An array for the next tensor of [`Built::args`].
    Tensor,
    /// An integer for a variable of the program (`tvm.build(s, [A, B,
    /// n])`).
    Scalar(arith::Var),
    /// A number for a scalar parameter of a float type (`tvm.build(s, [A,
    /// D, bias])` with `bias = te.var("bias", dtype="float32")`).
    Float(arith::Var, DataType),
    /// An array for a tensor the lowered program has no buffer for (an
    /// input it never reads, an inlined tensor): taken, and left as it is.
    /// It keeps its place, so the arrays after it meet their own buffers.
    Unused,
}

impl NDArray {
    /// An array from a number or nested lists/tuples of numbers (all rows
    /// the same length), stored as `dtype` (`None`: float32 when any value
    /// is a float, else int32, as numpy infers).
    pub fn from_value(v: &Value, dtype: Option<DataType>) -> ApiResult<NDArray> {
        let mut shape = Vec::new();
        let mut probe = v.clone();
        while let Some(items) = probe.sequence() {
            shape.push(items.len());
            match items.first() {
                Some(first) => probe = first.clone(),
                None => break,
            }
        }
        let mut data = Vec::new();
        let mut any_float = false;
        flatten(v, &shape, &mut data, &mut any_float)?;
        let dtype = dtype.unwrap_or(if any_float {
            DataType::Float32
        } else {
            DataType::Int32
        });
        let data = data.into_iter().map(|x| round(x, dtype)).collect();
        Ok(NDArray { shape, dtype, data })
    }

    /// Nested lists of the values (Python ints for integer dtypes), what
    /// `.numpy()` gives in a front end without numpy.
    pub fn to_value(&self) -> Value {
        fn build(a: &NDArray, dim: usize, offset: usize) -> Value {
            if dim == a.shape.len() {
                let x = a.data[offset];
                return if a.dtype.is_float() {
                    Value::Float(x)
                } else {
                    Value::Int(x as i64)
                };
            }
            let stride: usize = a.shape[dim + 1..].iter().product();
            Value::list(
                (0..a.shape[dim])
                    .map(|i| build(a, dim + 1, offset + i * stride))
                    .collect(),
            )
        }
        build(self, 0, 0)
    }
}

fn flatten(v: &Value, shape: &[usize], out: &mut Vec<f64>, any_float: &mut bool) -> ApiResult<()> {
    match (v.sequence(), shape.split_first()) {
        (Some(items), Some((&n, rest))) if items.len() == n => {
            for item in &items {
                flatten(item, rest, out, any_float)?;
            }
            Ok(())
        }
        (None, None) => {
            let x = match crate::objects::promote(v) {
                Value::Int(i) => i as f64,
                Value::Bool(b) => f64::from(u8::from(b)),
                Value::Float(f) => {
                    *any_float = true;
                    f
                }
                other => {
                    return Err(ApiError::type_error(format!(
                        "an array holds numbers, found a {}",
                        other.type_name()
                    )))
                }
            };
            out.push(x);
            Ok(())
        }
        _ => Err(ApiError::new(
            ErrorClass::ValueError,
            "the rows of an array must all have the same length",
        )),
    }
}

/// `x` as stored in `dtype`: rounded to float32, truncated and wrapped to
/// the integer type, as numpy's `astype` stores it.
fn round(x: f64, dtype: DataType) -> f64 {
    match dtype {
        DataType::Float16 | DataType::Float32 | DataType::Float64 => dtype.round(x),
        DataType::Bool => f64::from(u8::from(x != 0.0)),
        t => {
            let bits = t.bits();
            let (lo, _) = t.int_range().expect("an integer type");
            let v = x.trunc() as i128;
            let m = 1i128 << bits;
            let wrapped = (v - lo as i128).rem_euclid(m) + lo as i128;
            wrapped as f64
        }
    }
}

fn dtype_given(g: Option<&Given>) -> ApiResult<Option<DataType>> {
    g.filter(|g| !matches!(g.value, Value::None))
        .map(crate::casts::dtype_arg)
        .transpose()
}

/// `tvm.nd.array(values, device=None, dtype=None)`.
pub(crate) fn nd_array(args: Args) -> ApiResult<Value> {
    let a = args.bind("nd.array", &["arr", "device", "dtype", "mem_scope"])?;
    let arr = a.required("arr")?;
    let dtype = dtype_given(a.get("dtype"))?;
    let array = match &arr.value {
        Value::Object(Object::NDArray(x)) => {
            let x = x.borrow();
            NDArray::from_value(&x.to_value(), Some(dtype.unwrap_or(x.dtype)))
        }
        v => NDArray::from_value(v, dtype),
    }
    .map_err(|e| e.or_at(&arr.at))?;
    Ok(Value::Object(Object::NDArray(Rc::new(RefCell::new(array)))))
}

/// `tvm.nd.empty(shape, dtype="float32", device=None)`: zeros.
pub(crate) fn nd_empty(args: Args) -> ApiResult<Value> {
    let a = args.bind("nd.empty", &["shape", "dtype", "device", "mem_scope"])?;
    let s = a.required("shape")?;
    let items = s.value.sequence().unwrap_or_else(|| vec![s.value.clone()]);
    let mut shape = Vec::with_capacity(items.len());
    for v in items {
        match crate::operators::as_int(&v) {
            Some(d) if d >= 0 => shape.push(d as usize),
            _ => {
                return Err(type_error(
                    s.place(),
                    format!("an array's shape holds non-negative integers, found {v}"),
                ))
            }
        }
    }
    let dtype = dtype_given(a.get("dtype"))?.unwrap_or(DataType::Float32);
    let size = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d));
    let size = size
        .filter(|n| *n <= 1 << 28)
        .ok_or_else(|| error(ErrorClass::ValueError, s.place(), "the array is too large"))?;
    let array = NDArray {
        shape,
        dtype,
        data: vec![0.0; size],
    };
    Ok(Value::Object(Object::NDArray(Rc::new(RefCell::new(array)))))
}

/// `tvm.build(s, args, target=None, name="default_function")`.
pub(crate) fn build(host: &mut dyn crate::Host, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "build",
        &[
            "inputs",
            "args",
            "target",
            "target_host",
            "runtime",
            "name",
            "binds",
        ],
    )?;
    let s = a.required("inputs")?;
    if let Value::Object(Object::TensorIr(crate::tensor_ir::TirObject::PrimFunc(f))) = &s.value {
        let func = tir::block::to_loop_ir(f);
        let params = f
            .all_params()
            .into_iter()
            .map(|p| match p {
                Ok(_) => BuiltParam::Tensor,
                Err(v) => BuiltParam::Scalar(v.clone()),
            })
            .collect();
        return Ok(Value::Object(Object::Built(Rc::new(Built {
            params,
            program: BuiltProgram::Blocks(Rc::new(func)),
            name: "main".to_owned(),
            target: target_text(host, a.get("target")),
        }))));
    }
    let Value::Object(Object::Schedule(schedule)) = &s.value else {
        return Err(type_error(
            s.place(),
            format!("`build` needs a schedule, found a {}", s.value.type_name()),
        ));
    };
    let list = a.required("args").map_err(|_| {
        type_error(
            s.place(),
            "`build` of a schedule needs its arguments (`tvm.build(s, [A, B, C])`)",
        )
    })?;
    let items = list.value.sequence().ok_or_else(|| {
        type_error(
            list.place(),
            "`build` needs its arguments as a list of tensors",
        )
    })?;
    let (tensors, params) = program_params(items, list)?;
    if let Some(t) = a.get("target") {
        match &t.value {
            Value::Str(text) => {
                crate::target::Target::parse(text).map_err(|e| e.at(t.at.clone()))?;
            }
            Value::None | Value::Object(Object::Target(_)) => {}
            other => {
                return Err(type_error(
                    t.place(),
                    format!(
                        "`target` must be a string or a Target, found a {}",
                        other.type_name()
                    ),
                ))
            }
        }
    }
    let name = match a.get("name").map(|g| &g.value) {
        Some(Value::Str(n)) => n.to_string(),
        _ => "default_function".to_owned(),
    };
    let args = schedule.borrow().program_args(tensors.clone());
    let mut listed = tensors.iter();
    let params: Vec<BuiltParam> = params
        .into_iter()
        .map(|p| match p {
            BuiltParam::Tensor => match listed.next() {
                Some(t) if !args.contains(t) => BuiltParam::Unused,
                _ => BuiltParam::Tensor,
            },
            other => other,
        })
        .collect();
    // Lowering now reports an invalid schedule where TVM does, at build.
    let lowering = match te::Lowering::new(&schedule.borrow(), &args) {
        Ok(l) => l,
        Err(e) => {
            host.session().failed_lowering = Some(schedule.clone());
            return Err(ApiError::tvm(e.message));
        }
    };
    // As TVM's build, which refuses a variable no argument binds.
    for (v, _) in lowering.program().float_params() {
        if !params
            .iter()
            .any(|p| matches!(p, BuiltParam::Float(w, _) if *w == v))
        {
            return Err(ApiError::tvm(format!(
                "Not all Vars are passed in api_args: `{v}` is not bound to any variables: \
                 list the scalar parameter among the arguments of `tvm.build`"
            )));
        }
    }
    Ok(Value::Object(Object::Built(Rc::new(Built {
        program: BuiltProgram::Schedule(schedule.clone(), args),
        params,
        name,
        target: target_text(host, a.get("target")),
    }))))
}

/// The target of `tvm.build(..., target=...)` as text: the one given, else
/// the current one, else `llvm` (TVM's default).
fn target_text(host: &mut dyn crate::Host, given: Option<&Given>) -> String {
    match given.map(|g| &g.value) {
        Some(Value::Str(text)) => text.to_string(),
        Some(Value::Object(Object::Target(t))) => t.to_string(),
        _ => host
            .session()
            .targets
            .last()
            .map_or_else(|| "llvm".to_owned(), |t| t.to_string()),
    }
}

/// The tensors of a program's argument list, and the order of all its
/// parameters: tensors, and variables of the program that the function
/// takes as integers (TVM's scalar parameters).
pub(crate) fn program_params(
    items: Vec<Value>,
    list: &Given,
) -> ApiResult<(Vec<te::Tensor>, Vec<BuiltParam>)> {
    let mut tensors = Vec::new();
    let mut params = Vec::new();
    for v in items {
        match &v {
            Value::Index(e) if e.as_var().is_some() => {
                params.push(BuiltParam::Scalar(e.as_var().expect("a variable").clone()));
            }
            Value::Object(Object::Element(x)) if x.as_param().is_some() => {
                let (var, t) = x.as_param().expect("a parameter");
                params.push(BuiltParam::Float(var.clone(), t));
            }
            _ => {
                params.push(BuiltParam::Tensor);
                tensors.push(crate::objects::to_arg_tensor(&list.item(v))?);
            }
        }
    }
    Ok((tensors, params))
}

/// `f(a, b, c)` for a built function: runs the program on the arrays and
/// writes every parameter's final values back into its array.
pub(crate) fn call_built(host: &mut dyn crate::Host, f: &Built, args: Args) -> ApiResult<Value> {
    let given = args.positional_only(&f.name)?;
    if given.len() != f.params.len() {
        return Err(ApiError::type_error(format!(
            "`{}` takes {} arguments, {} given",
            f.name,
            f.params.len(),
            given.len()
        )));
    }
    let mut sizes: HashMap<arith::Var, i64> = HashMap::new();
    let mut floats: HashMap<arith::Var, f64> = HashMap::new();
    let mut arrays_given = Vec::with_capacity(f.params.len());
    for (g, p) in given.into_iter().zip(&f.params) {
        match p {
            BuiltParam::Tensor => arrays_given.push(g),
            BuiltParam::Unused => {}
            BuiltParam::Scalar(v) => {
                let n = crate::operators::as_int(&g.value).ok_or_else(|| {
                    type_error(
                        g.place(),
                        format!(
                            "`{}` takes an integer for `{}`, found a {}",
                            f.name,
                            v.name(),
                            g.value.type_name()
                        ),
                    )
                })?;
                sizes.insert(v.clone(), n);
            }
            BuiltParam::Float(v, t) => {
                let x = match crate::objects::promote(&g.value) {
                    Value::Float(x) => x,
                    Value::Int(i) => i as f64,
                    other => {
                        return Err(type_error(
                            g.place(),
                            format!(
                                "`{}` takes a number for its {t} parameter `{}`, found a {}",
                                f.name,
                                v.name(),
                                other.type_name()
                            ),
                        ))
                    }
                };
                floats.insert(v.clone(), x);
            }
        }
    }
    let given = arrays_given;
    let lowered;
    let func = match &f.program {
        BuiltProgram::Schedule(schedule, args) => {
            lowered = te::Lowering::new(&schedule.borrow(), args)
                .map_err(|e| ApiError::tvm(e.message))?;
            lowered.program()
        }
        BuiltProgram::Blocks(func) => func,
    };
    let bound = func.bind_float_params(&floats).map_err(|v| {
        ApiError::tvm(format!(
            "`{}` reads the scalar parameter `{v}`, which is not among its arguments: \
             list it in `tvm.build(s, [...])`",
            f.name
        ))
    })?;
    let func = &bound;
    let mut arrays = Vec::with_capacity(given.len());
    let mut inputs = HashMap::new();
    for (g, b) in given.iter().zip(&func.params) {
        let Value::Object(Object::NDArray(x)) = &g.value else {
            return Err(type_error(
                g.place(),
                format!("expected a tvm.nd.array, found a {}", g.value.type_name()),
            ));
        };
        let x_ref = x.borrow();
        if x_ref.shape.len() != b.shape().len() {
            return Err(error(
                ErrorClass::ValueError,
                g.place(),
                format!(
                    "`{}` has {} dimensions, the array {}",
                    b.name(),
                    b.shape().len(),
                    x_ref.shape.len()
                ),
            ));
        }
        for (d, (e, &n)) in b.shape().iter().zip(&x_ref.shape).enumerate() {
            let n = n as i64;
            let expected = match e.as_var() {
                Some(v) => *sizes.entry(v.clone()).or_insert(n),
                None => crate::objects::constant_value(e).unwrap_or(n),
            };
            if expected != n {
                return Err(error(
                    ErrorClass::ValueError,
                    g.place(),
                    format!(
                        "dimension {d} of `{}` is {expected}, the array's is {n}",
                        b.name()
                    ),
                ));
            }
        }
        let tensor = tir::Tensor::new(x_ref.shape.clone(), x_ref.data.clone()).map_err(|_| {
            ApiError::new(
                ErrorClass::ValueError,
                "the array's values do not fill its shape",
            )
        })?;
        inputs.insert(b.clone(), tensor);
        arrays.push(x.clone());
    }
    // The program's `call_packed` reaches the script's registered
    // functions; one that raised ends the run with its own error.
    let mut packed = crate::packed_funcs::ScriptPacked::new(host);
    let result = tir::Interpreter::new()
        .max_steps(1 << 30)
        .run_with_packed(func, &inputs, &sizes, &mut packed)
        .map_err(|e| {
            packed
                .raised
                .take()
                .unwrap_or_else(|| ApiError::tvm(format!("running `{}` failed: {e}", f.name)))
        })?;
    for (array, b) in arrays.iter().zip(&func.params) {
        if let Some(t) = result.tensor(b) {
            let mut a = array.borrow_mut();
            let dtype = a.dtype;
            a.data = t.data().iter().map(|x| round(*x, dtype)).collect();
        }
    }
    Ok(Value::None)
}

/// The values of an array argument or nested lists, for comparisons.
fn values(g: &Given) -> ApiResult<NDArray> {
    match &g.value {
        Value::Object(Object::NDArray(x)) => Ok(x.borrow().clone()),
        v => NDArray::from_value(v, Some(DataType::Float64)).map_err(|e| e.or_at(&g.at)),
    }
}

/// `tvm.testing.assert_allclose(actual, desired, rtol=1e-7, atol=0)`, with
/// numpy's message on failure.
pub(crate) fn assert_allclose(args: Args) -> ApiResult<Value> {
    let a = args.bind("assert_allclose", &["actual", "desired", "rtol", "atol"])?;
    let actual = values(a.required("actual")?)?;
    let desired = values(a.required("desired")?)?;
    let number = |name: &str, default: f64| -> ApiResult<f64> {
        match a.get(name) {
            None => Ok(default),
            Some(g) => match crate::objects::promote(&g.value) {
                Value::Float(f) => Ok(f),
                Value::Int(i) => Ok(i as f64),
                other => Err(type_error(
                    g.place(),
                    format!("`{name}` must be a number, found a {}", other.type_name()),
                )),
            },
        }
    };
    let (rtol, atol) = (number("rtol", 1e-7)?, number("atol", 0.0)?);
    if actual.shape != desired.shape && actual.data.len() != desired.data.len() {
        return Err(ApiError::new(
            ErrorClass::AssertionError,
            format!(
                "\nNot equal to tolerance rtol={}, atol={}\n\n(shapes {:?}, {:?} mismatch)",
                py_float(rtol),
                py_float(atol),
                actual.shape,
                desired.shape
            ),
        ));
    }
    let mut mismatched = 0usize;
    let (mut max_abs, mut max_rel) = (0f64, 0f64);
    for (x, y) in actual.data.iter().zip(&desired.data) {
        let diff = (x - y).abs();
        let close = diff <= atol + rtol * y.abs() || (x.is_nan() && y.is_nan());
        if !close {
            mismatched += 1;
        }
        max_abs = max_abs.max(diff);
        if *y != 0.0 {
            max_rel = max_rel.max(diff / y.abs());
        } else if diff > 0.0 {
            max_rel = f64::INFINITY;
        }
    }
    if mismatched == 0 {
        return Ok(Value::None);
    }
    let total = actual.data.len();
    let percent = 100.0 * mismatched as f64 / total as f64;
    Err(ApiError::new(
        ErrorClass::AssertionError,
        format!(
            "\nNot equal to tolerance rtol={}, atol={}\n\nMismatched elements: {mismatched} / {total} ({}%)\n\
             Max absolute difference: {}\nMax relative difference: {}",
            py_float(rtol),
            py_float(atol),
            format_percent(percent),
            py_float(max_abs),
            py_float(max_rel)
        ),
    ))
}

/// A float as numpy's messages show it (`1e-07`, `0`, `0.5`).
fn py_float(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    if x.is_infinite() {
        return "inf".to_owned();
    }
    let text = format!("{x:e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        format!("{}", x)
    } else {
        format!(
            "{mantissa}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

fn format_percent(p: f64) -> String {
    let text = format!("{p:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What `f.time_evaluator(name, dev, number=10, repeat=1)` returns: called
/// with `f`'s arguments, it runs `f` `number` times per repeat and gives
/// the mean time of a run per repeat. The times are the interpreter's: a
/// built function here runs in rangefinder's interpreter, not on the
/// device.
pub struct TimeEvaluator {
    built: Rc<Built>,
    number: usize,
    repeat: usize,
}

/// What a time evaluator gives (TVM's `ProfileResult`): seconds per run,
/// one mean per repeat.
#[derive(Debug)]
pub struct TimeResult {
    /// The mean time of a run, in seconds, per repeat.
    pub results: Vec<f64>,
}

/// `f.time_evaluator(func_name, dev, number=10, repeat=1, ...)`.
pub(crate) fn time_evaluator(f: &Rc<Built>, args: Args) -> ApiResult<Value> {
    let a = args.bind(
        "time_evaluator",
        &[
            "func_name",
            "dev",
            "number",
            "repeat",
            "min_repeat_ms",
            "limit_zero_time_iterations",
            "cooldown_interval_ms",
            "repeats_to_cooldown",
            "cache_flush_bytes",
            "f_preproc",
        ],
    )?;
    let name = a.required("func_name")?;
    if !matches!(&name.value, Value::Str(n) if **n == *f.name) {
        return Err(type_error(
            name.place(),
            format!(
                "the built module has one function, `{}`; time it by that name (`f.entry_name`)",
                f.name
            ),
        ));
    }
    let count = |param: &str, default: i64| -> ApiResult<usize> {
        let Some(g) = a.get(param) else {
            return Ok(default as usize);
        };
        crate::operators::as_int(&g.value)
            .filter(|&n| n >= 1)
            .map(|n| n as usize)
            .ok_or_else(|| {
                type_error(
                    g.place(),
                    format!(
                        "`{param}` takes a positive integer, found {}",
                        crate::repr(&g.value)
                    ),
                )
            })
    };
    let (number, repeat) = (count("number", 10)?, count("repeat", 1)?);
    Ok(Value::Object(Object::TimeEvaluator(Rc::new(
        TimeEvaluator {
            built: f.clone(),
            number,
            repeat,
        },
    ))))
}

/// Calls a time evaluator: runs the function as timed.
pub(crate) fn call_time_evaluator(
    host: &mut dyn crate::Host,
    t: &TimeEvaluator,
    args: Args,
) -> ApiResult<Value> {
    let mut results = Vec::with_capacity(t.repeat);
    for _ in 0..t.repeat {
        let start = std::time::Instant::now();
        for _ in 0..t.number {
            call_built(host, &t.built, args.clone())?;
        }
        results.push(start.elapsed().as_secs_f64() / t.number as f64);
    }
    Ok(Value::Object(Object::TimeResult(Rc::new(TimeResult {
        results,
    }))))
}

/// An attribute of a profile result: `.mean`, `.median`, `.min`, `.max`,
/// `.std` (seconds) and `.results` (one mean per repeat).
pub(crate) fn time_result_attribute(r: &TimeResult, name: &str) -> Option<Value> {
    let n = r.results.len() as f64;
    let mean = r.results.iter().sum::<f64>() / n;
    let mut sorted = r.results.clone();
    sorted.sort_by(f64::total_cmp);
    Some(Value::Float(match name {
        "mean" => mean,
        "median" => {
            let k = sorted.len() / 2;
            if sorted.len() % 2 == 1 {
                sorted[k]
            } else {
                (sorted[k - 1] + sorted[k]) / 2.0
            }
        }
        "min" => sorted[0],
        "max" => sorted[sorted.len() - 1],
        "std" => (r.results.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt(),
        "results" => {
            return Some(Value::tuple(
                r.results.iter().map(|&x| Value::Float(x)).collect(),
            ))
        }
        _ => return None,
    }))
}
