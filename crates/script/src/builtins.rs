//! Python's builtin functions that TE scripts use.

use crate::args::{Args, Spanned};
use crate::collections;
use crate::error::{Eval, Raised};
use crate::interp::Interpreter;
use crate::native::Native;
use crate::operators::{self, as_index, as_int, BinaryOp};
use crate::pyformat;
use crate::value::{script_value, ScriptValue, Value};
use arith::Expr;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::ErrorClass;
use tvm_api::{Class, Object};

/// The longest `range(...)` a script may build.
const MAX_RANGE_LEN: i64 = 1_000_000;

/// Runs the Python builtin `native`.
pub(crate) fn call(interp: &mut Interpreter, native: Native, args: Args) -> Eval<Value> {
    match native {
        Native::Print => print(interp, args),
        Native::Range => range(args),
        Native::Len => one_arg("len", args).and_then(|(v, span)| {
            let len = match &v {
                Value::Str(s) => Some(s.chars().count()),
                Value::Dict(_) | Value::MutableDict(_) | Value::Set(_) => {
                    collections::iterate(&v).map(|items| items.len())
                }
                Value::Host(_) if crate::pynumpy::as_array(&v).is_some() => {
                    crate::pynumpy::as_array(&v).map(crate::pynumpy::NdArray::len)
                }
                // Sequences, and the API's objects (the InferBound map).
                _ => v
                    .sequence()
                    .map(|items| items.len())
                    .or_else(|| tvm_api::len(&v).ok()),
            };
            match len {
                Some(len) => Ok(Value::Int(len as i64)),
                None => Err(Raised::python(
                    ErrorClass::TypeError,
                    span,
                    format!("object of type '{}' has no len()", v.type_name()),
                )),
            }
        }),
        Native::Tuple | Native::List => zero_or_one_arg(native.name(), args).and_then(|arg| {
            let items = match arg {
                None => Vec::new(),
                Some((v, span)) => collections::iterate(&v).ok_or_else(|| {
                    Raised::python(
                        ErrorClass::TypeError,
                        span,
                        format!("cannot make a {} of a {}", native.name(), v.type_name()),
                    )
                })?,
            };
            Ok(if native == Native::Tuple {
                Value::tuple(items)
            } else {
                Value::list(items)
            })
        }),
        Native::Int => int(args),
        Native::Abs => one_arg("abs", args).and_then(|(v, span)| match v {
            Value::Int(i) => i
                .checked_abs()
                .map(Value::Int)
                .ok_or_else(|| Raised::at(span, "integer overflow in abs")),
            Value::Float(f) => Ok(Value::Float(f.abs())),
            other => Err(Raised::at(
                span,
                format!("abs of a {} is not supported", other.type_name()),
            )),
        }),
        Native::Min | Native::Max => min_max(interp, native, args),
        Native::Isinstance => isinstance(args),
        Native::AnyOf | Native::AllOf => any_all(interp, native, args),
        Native::Zip => zip(args),
        Native::Enumerate => enumerate(args),
        Native::PytestRaises => one_arg("pytest.raises", args).and_then(|(v, span)| match v {
            Value::Object(Object::Class(Class::Error(class))) => {
                Ok(Value::host(ScriptValue::ExpectError(class)))
            }
            other => Err(Raised::at(
                span,
                format!(
                    "`pytest.raises` needs an exception class, not a {}",
                    other.type_name()
                ),
            )),
        }),
        Native::Builtin(b) => python_builtin(interp, b, args),
    }
}

/// `ValueError("...")`: an exception object of `class`.
pub(crate) fn exception(class: ErrorClass, args: Args) -> Eval<Value> {
    let (pos, _) = args.positional_only(class.name())?;
    let message = match &pos[..] {
        [] => String::new(),
        // `str(KeyError(k))` is `repr(k)`, as Python shows a key.
        [one] if class == ErrorClass::KeyError => pyformat::repr(&one.value),
        [one] => one.value.to_string(),
        many => Value::tuple(many.iter().map(|a| a.value.clone()).collect()).to_string(),
    };
    Ok(Value::Exception(class, Rc::from(message)))
}

fn int(args: Args) -> Eval<Value> {
    if args.positional.len() == 2 || args.keywords.iter().any(|(k, _)| k == "base") {
        return int_with_base(args);
    }
    let Some((v, span)) = zero_or_one_arg("int", args)? else {
        return Ok(Value::Int(0));
    };
    match v {
        Value::Int(_) => Ok(v),
        Value::Str(ref s) => s
            .trim()
            .replace('_', "")
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| {
                Raised::python(
                    ErrorClass::ValueError,
                    span,
                    format!(
                        "invalid literal for int() with base 10: {}",
                        pyformat::str_repr(s)
                    ),
                )
            }),
        Value::Bool(b) => Ok(Value::Int(i64::from(b))),
        Value::Float(f) if f.is_finite() && f.abs() < 9.0e18 => Ok(Value::Int(f.trunc() as i64)),
        Value::Index(e) => tvm_api::constant(&e)
            .map(Value::Int)
            .ok_or_else(|| Raised::at(span, format!("`{e}` is not a constant"))),
        other => Err(Raised::at(
            span,
            format!("cannot convert a {} to int", other.type_name()),
        )),
    }
}

fn zero_or_one_arg(name: &str, args: Args) -> Eval<Option<(Value, Range<usize>)>> {
    let (mut pos, span) = args.positional_only(name)?;
    match pos.len() {
        0 => Ok(None),
        1 => {
            let a = pos.remove(0);
            Ok(Some((a.value, a.span)))
        }
        n => Err(Raised::python(
            ErrorClass::TypeError,
            span,
            format!("`{name}` takes at most one argument ({n} given)"),
        )),
    }
}

fn enumerate(args: Args) -> Eval<Value> {
    let a = args.bind("enumerate", &["iterable", "start"])?;
    let it = a.required("iterable")?;
    let items = collections::iterate_or_raise(&it.value, it.span.clone())?;
    let start = match a.get("start") {
        Some(s) => as_int(&s.value).ok_or_else(|| {
            Raised::python(
                ErrorClass::TypeError,
                s.span.clone(),
                "`start` must be an integer",
            )
        })?,
        None => 0,
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, v) in items.into_iter().enumerate() {
        let n = start
            .checked_add(i as i64)
            .ok_or_else(|| Raised::at(a.span.clone(), "integer overflow in enumerate"))?;
        out.push(Value::tuple(vec![Value::Int(n), v]));
    }
    Ok(Value::list(out))
}

fn one_arg(name: &str, args: Args) -> Eval<(Value, Range<usize>)> {
    let (mut pos, span) = args.positional_only(name)?;
    if pos.len() != 1 {
        return Err(Raised::at(
            span,
            format!("`{name}` takes exactly one argument"),
        ));
    }
    let a = pos.remove(0);
    Ok((a.value, a.span))
}

fn print(interp: &mut Interpreter, args: Args) -> Eval<Value> {
    let mut sep = " ".to_owned();
    let mut end = "\n".to_owned();
    for (name, a) in &args.keywords {
        let text = match &a.value {
            Value::None => None,
            Value::Str(s) => Some(s.to_string()),
            other => {
                return Err(Raised::python(
                    ErrorClass::TypeError,
                    a.span.clone(),
                    format!(
                        "`{name}` must be None or a string, not {}",
                        other.type_name()
                    ),
                ))
            }
        };
        match name.as_str() {
            "sep" => sep = text.unwrap_or_else(|| " ".to_owned()),
            "end" => end = text.unwrap_or_else(|| "\n".to_owned()),
            "flush" => {}
            _ => {
                return Err(Raised::at(
                    a.span.clone(),
                    format!("`print` takes no keyword argument `{name}` in rangefinder"),
                ))
            }
        }
    }
    let line: Vec<String> = args
        .positional
        .iter()
        .map(|a| interp.str_of(&a.value))
        .collect();
    interp.printed.push_str(&line.join(&sep));
    interp.printed.push_str(&end);
    Ok(Value::None)
}

fn range(args: Args) -> Eval<Value> {
    let (pos, span) = args.positional_only("range")?;
    let mut ints = Vec::new();
    for a in &pos {
        ints.push(as_int(&a.value).ok_or_else(|| {
            Raised::at(
                a.span.clone(),
                format!("`range` needs integers, not a {}", a.value.type_name()),
            )
        })?);
    }
    let (start, stop, step) = match ints[..] {
        [stop] => (0, stop, 1),
        [start, stop] => (start, stop, 1),
        [start, stop, step] => (start, stop, step),
        _ => return Err(Raised::at(span, "`range` takes one to three integers")),
    };
    if step == 0 {
        return Err(Raised::at(span, "`range` step must not be zero"));
    }
    // In 128 bits, so that no start, stop or step can overflow.
    let (start128, stop128, step128) = (i128::from(start), i128::from(stop), i128::from(step));
    let (distance, stride) = if step > 0 {
        (stop128 - start128, step128)
    } else {
        (start128 - stop128, -step128)
    };
    let len = (distance.max(0) + stride - 1) / stride;
    if len > i128::from(MAX_RANGE_LEN) {
        return Err(Raised::at(
            span,
            format!("`range` of {len} values is too long for a script"),
        ));
    }
    // Every value lies between start and stop, so it fits in 64 bits.
    let items = (0..len)
        .map(|k| Value::Int((start128 + k * step128) as i64))
        .collect();
    Ok(Value::tuple(items))
}

fn min_max(interp: &mut Interpreter, native: Native, args: Args) -> Eval<Value> {
    let name = native.name();
    let mut key = None;
    let mut default = None;
    for (k, v) in &args.keywords {
        match k.as_str() {
            "key" => key = Some(v.value.clone()),
            "default" => default = Some(v.value.clone()),
            _ => {
                return Err(Raised::python(
                    ErrorClass::TypeError,
                    v.span.clone(),
                    format!("`{name}` takes no keyword argument `{k}`"),
                ))
            }
        }
    }
    let (pos, span) = (args.positional, args.span);
    let values: Vec<Value> = match &pos[..] {
        [one] => collections::iterate(&one.value).ok_or_else(|| {
            Raised::at(
                one.span.clone(),
                format!("`{name}` of one argument needs an iterable"),
            )
        })?,
        many => many.iter().map(|a| a.value.clone()).collect(),
    };
    if let Some(key) = key.filter(|k| !matches!(k, Value::None)) {
        // With a key, the first item whose key is smallest (largest) wins.
        let mut best: Option<(Value, Value)> = None;
        for v in values {
            let k = interp.call_with(&key, vec![v.clone()], span.clone())?;
            let better = match &best {
                None => true,
                Some((bk, _)) => {
                    let ord = collections::py_cmp(&k, bk);
                    collections::check_depth(span.clone())?;
                    let ord = ord.ok_or_else(|| {
                        Raised::python(
                            ErrorClass::TypeError,
                            span.clone(),
                            format!(
                                "cannot compare a {} and a {} in `{name}`",
                                k.type_name(),
                                bk.type_name()
                            ),
                        )
                    })?;
                    if native == Native::Min {
                        ord == std::cmp::Ordering::Less
                    } else {
                        ord == std::cmp::Ordering::Greater
                    }
                }
            };
            if better {
                best = Some((k, v));
            }
        }
        return match (best, default) {
            (Some((_, v)), _) => Ok(v),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(Raised::python(
                ErrorClass::ValueError,
                span,
                format!("{name}() arg is an empty sequence"),
            )),
        };
    }
    let Some(first) = values.first().cloned() else {
        return match default {
            Some(d) => Ok(d),
            None => Err(Raised::python(
                ErrorClass::ValueError,
                span,
                format!("{name}() arg is an empty sequence"),
            )),
        };
    };
    let mut best = first;
    for v in &values[1..] {
        best = if let (Some(a), Some(b)) = (as_int(&best), as_int(v)) {
            Value::Int(if native == Native::Min {
                a.min(b)
            } else {
                a.max(b)
            })
        } else if let (Some(a), Some(b)) = (as_index(&best), as_index(v)) {
            Value::Index(if native == Native::Min {
                Expr::min(a, b)
            } else {
                Expr::max(a, b)
            })
        } else {
            let op = if native == Native::Min {
                arith::CmpOp::Lt
            } else {
                arith::CmpOp::Gt
            };
            match operators::compare(op, v, &best, span.clone())? {
                Value::Bool(true) => v.clone(),
                Value::Bool(false) => best,
                _ => return Err(Raised::at(span, format!("cannot compare in `{name}`"))),
            }
        };
    }
    Ok(best)
}

fn isinstance(args: Args) -> Eval<Value> {
    let (pos, span) = args.positional_only("isinstance")?;
    let [value, ty] = &pos[..] else {
        return Err(Raised::at(span, "`isinstance` takes a value and a type"));
    };
    // A tuple of types: an instance of any of them.
    let types = match &ty.value {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    for t in &types {
        if instance_of(&value.value, t, ty.span.clone())? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// Whether `v` is an instance of the type value `ty`.
fn instance_of(v: &Value, ty: &Value, span: Range<usize>) -> Eval<bool> {
    let unsupported = |name: &str| {
        Err(Raised::at(
            span.clone(),
            format!("`isinstance` does not support the type `{name}`"),
        ))
    };
    let not_a_type = || {
        Err(Raised::python(
            ErrorClass::TypeError,
            span.clone(),
            "isinstance() arg 2 must be a type or tuple of types",
        ))
    };
    Ok(match ty {
        Value::Object(Object::Class(Class::Error(class))) => {
            matches!(v, Value::Exception(c, _) if class.is_base_of(*c))
        }
        Value::Object(Object::Class(_)) => tvm_api::isinstance(v, ty).unwrap_or(false),
        Value::Function(f) => return unsupported(f.name()),
        Value::Host(_) => match script_value(ty) {
            Some(ScriptValue::Builtin(Native::Int)) => matches!(v, Value::Int(_) | Value::Bool(_)),
            Some(ScriptValue::Builtin(Native::Tuple)) => matches!(v, Value::Tuple(_)),
            Some(ScriptValue::Builtin(Native::List)) => matches!(v, Value::List(_)),
            Some(ScriptValue::Builtin(Native::Builtin(b))) => match b {
                Builtin::Str => matches!(v, Value::Str(_)),
                Builtin::Float => matches!(v, Value::Float(_)),
                Builtin::Bool => matches!(v, Value::Bool(_)),
                Builtin::Dict => matches!(v, Value::Dict(_) | Value::MutableDict(_)),
                Builtin::Set => matches!(v, Value::Set(_)),
                Builtin::NoneType => matches!(v, Value::None),
                Builtin::FunctionType => {
                    matches!(script_value(v), Some(ScriptValue::Function(_)))
                }
                other => {
                    return Err(Raised::python(
                        ErrorClass::TypeError,
                        span,
                        format!("isinstance() arg 2 must be a type, not `{}`", other.name()),
                    ))
                }
            },
            Some(ScriptValue::Builtin(other)) => return unsupported(other.name()),
            _ => return not_a_type(),
        },
        _ => return not_a_type(),
    })
}

fn any_all(interp: &mut Interpreter, native: Native, args: Args) -> Eval<Value> {
    let (v, span) = one_arg(native.name(), args)?;
    let items = collections::iterate_or_raise(&v, span.clone())?;
    let want = native == Native::AnyOf;
    for item in &items {
        if interp.truthy(item, span.clone())? == want {
            return Ok(Value::Bool(want));
        }
    }
    Ok(Value::Bool(!want))
}

fn zip(args: Args) -> Eval<Value> {
    let (pos, _) = args.positional_only("zip")?;
    let mut columns = Vec::new();
    for a in &pos {
        columns.push(collections::iterate_or_raise(&a.value, a.span.clone())?);
    }
    let len = columns.iter().map(Vec::len).min().unwrap_or(0);
    let rows = (0..len).map(|i| Value::tuple(columns.iter().map(|c| c[i].clone()).collect()));
    Ok(Value::list(rows.collect()))
}

/// Python builtins and functions of Python's modules beyond the ones
/// [`Native`] names for TVM's own use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    Str,
    Float,
    Bool,
    Repr,
    Sorted,
    Reversed,
    Sum,
    Map,
    Filter,
    Set,
    Dict,
    Type,
    Callable,
    /// `staticmethod(f)`: `f` itself, as read from its class (instances,
    /// where the two would differ, are not made here).
    StaticMethod,
    Hasattr,
    Getattr,
    Issubclass,
    Round,
    Divmod,
    Format,
    Pow,
    Ord,
    Chr,
    /// The type of `None`, which `type(None)` returns.
    NoneType,
    /// The type of functions and lambdas, which `type(f)` returns.
    FunctionType,
    /// A function of `math` (`math.ceil`).
    Math(MathFunction),
    /// `functools.reduce`.
    Reduce,
    /// A binary operator of Python's `operator` module (`operator.mul`),
    /// as `a op b` computes it.
    Operator(BinaryOp),
    /// `pickle.dumps`.
    PickleDumps,
    /// `pickle.loads`.
    PickleLoads,
    /// `itertools.product`.
    Product,
    /// A function of Python's `re` module (`re.finditer`).
    Re(crate::pyre::ReFunction),
    /// A function of numpy computed here (`np.argsort`).
    Numpy(crate::pynumpy::NumpyFunction),
    /// `tvm.testing.main()` / `pytest.main(...)`: runs the module's test
    /// functions, as pytest collects them.
    TestMain,
    /// `tvm.testing.parameter(*values, ids=None, by_dict=None)`: the values
    /// a test taking the parameter runs with.
    TestParameter,
    /// `tvm.testing.parameters(*value_sets, ids=None)`: parameters that
    /// take their values together, one set per run.
    TestParameters,
    /// `@tvm.testing.fixture` and `@tvm.testing.fixture(cache_return_value=...)`:
    /// marks a function as a pytest fixture.
    TestFixture,
    /// `collections.namedtuple(name, fields)`: declares the type; making a
    /// value of it needs CPython (TOPI's modules declare workload types at
    /// their top and use them only on paths TE programs do not take).
    NamedTuple,
    /// `logging.getLogger(name)`: a logger.
    GetLogger,
    /// A logger's `debug`, `info`, `warning`, `error`, `setLevel`...: the
    /// interpreter keeps no log, so they do nothing.
    LogCall,
}

/// The functions of Python's `math` module the interpreter computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MathFunction {
    Ceil,
    Floor,
    Trunc,
    Sqrt,
    Prod,
    Log,
    Log2,
    Log10,
    Exp,
    Pow,
    Fabs,
    Gcd,
    Isclose,
}

impl Builtin {
    /// The name a script uses, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Str => "str",
            Builtin::Float => "float",
            Builtin::Bool => "bool",
            Builtin::Repr => "repr",
            Builtin::Sorted => "sorted",
            Builtin::Reversed => "reversed",
            Builtin::Sum => "sum",
            Builtin::Map => "map",
            Builtin::Filter => "filter",
            Builtin::Set => "set",
            Builtin::Dict => "dict",
            Builtin::Type => "type",
            Builtin::Callable => "callable",
            Builtin::StaticMethod => "staticmethod",
            Builtin::Hasattr => "hasattr",
            Builtin::Getattr => "getattr",
            Builtin::Issubclass => "issubclass",
            Builtin::Round => "round",
            Builtin::Divmod => "divmod",
            Builtin::Format => "format",
            Builtin::Pow => "pow",
            Builtin::Ord => "ord",
            Builtin::Chr => "chr",
            Builtin::NoneType => "NoneType",
            Builtin::FunctionType => "function",
            Builtin::Reduce => "functools.reduce",
            Builtin::Operator(op) => match op {
                BinaryOp::Add => "operator.add",
                BinaryOp::Sub => "operator.sub",
                BinaryOp::Mul => "operator.mul",
                BinaryOp::Div => "operator.truediv",
                BinaryOp::FloorDiv => "operator.floordiv",
                BinaryOp::Mod => "operator.mod",
                BinaryOp::Pow => "operator.pow",
            },
            Builtin::PickleDumps => "pickle.dumps",
            Builtin::PickleLoads => "pickle.loads",
            Builtin::Product => "itertools.product",
            Builtin::Re(f) => f.name(),
            Builtin::Numpy(f) => f.name(),
            Builtin::TestMain => "tvm.testing.main",
            Builtin::TestParameter => "tvm.testing.parameter",
            Builtin::TestParameters => "tvm.testing.parameters",
            Builtin::TestFixture => "tvm.testing.fixture",
            Builtin::NamedTuple => "collections.namedtuple",
            Builtin::GetLogger => "logging.getLogger",
            Builtin::LogCall => "logging.log",
            Builtin::Math(f) => match f {
                MathFunction::Ceil => "math.ceil",
                MathFunction::Floor => "math.floor",
                MathFunction::Trunc => "math.trunc",
                MathFunction::Sqrt => "math.sqrt",
                MathFunction::Prod => "math.prod",
                MathFunction::Log => "math.log",
                MathFunction::Log2 => "math.log2",
                MathFunction::Log10 => "math.log10",
                MathFunction::Exp => "math.exp",
                MathFunction::Pow => "math.pow",
                MathFunction::Fabs => "math.fabs",
                MathFunction::Gcd => "math.gcd",
                MathFunction::Isclose => "math.isclose",
            },
        }
    }

    /// The Python builtin called `name`, among these.
    pub fn named(name: &str) -> Option<Builtin> {
        Some(match name {
            "str" => Builtin::Str,
            "float" => Builtin::Float,
            "bool" => Builtin::Bool,
            "repr" => Builtin::Repr,
            "sorted" => Builtin::Sorted,
            "reversed" => Builtin::Reversed,
            "sum" => Builtin::Sum,
            "map" => Builtin::Map,
            "filter" => Builtin::Filter,
            "set" => Builtin::Set,
            "dict" => Builtin::Dict,
            "type" => Builtin::Type,
            "callable" => Builtin::Callable,
            "staticmethod" => Builtin::StaticMethod,
            "hasattr" => Builtin::Hasattr,
            "getattr" => Builtin::Getattr,
            "issubclass" => Builtin::Issubclass,
            "round" => Builtin::Round,
            "divmod" => Builtin::Divmod,
            "format" => Builtin::Format,
            "pow" => Builtin::Pow,
            "ord" => Builtin::Ord,
            "chr" => Builtin::Chr,
            _ => return None,
        })
    }

    /// The function `name` of the Python module `module` (`math`,
    /// `functools`, `itertools`).
    pub fn in_module(module: &str, name: &str) -> Option<Builtin> {
        use MathFunction as M;
        Some(match (module, name) {
            ("functools", "reduce") => Builtin::Reduce,
            ("operator", _) => Builtin::Operator(match name {
                "add" => BinaryOp::Add,
                "sub" => BinaryOp::Sub,
                "mul" => BinaryOp::Mul,
                "truediv" => BinaryOp::Div,
                "floordiv" => BinaryOp::FloorDiv,
                "mod" => BinaryOp::Mod,
                "pow" => BinaryOp::Pow,
                _ => return None,
            }),
            ("pickle", "dumps") => Builtin::PickleDumps,
            ("pickle", "loads") => Builtin::PickleLoads,
            ("itertools", "product") => Builtin::Product,
            ("re", _) => Builtin::Re(crate::pyre::ReFunction::named(name)?),
            ("numpy", _) => Builtin::Numpy(crate::pynumpy::NumpyFunction::named(name)?),
            ("collections", "namedtuple") => Builtin::NamedTuple,
            ("logging", "getLogger") => Builtin::GetLogger,
            (
                "logging",
                "debug" | "info" | "warning" | "warn" | "error" | "critical" | "exception"
                | "setLevel" | "basicConfig" | "addHandler" | "disable" | "log",
            ) => Builtin::LogCall,
            ("math", _) => Builtin::Math(match name {
                "ceil" => M::Ceil,
                "floor" => M::Floor,
                "trunc" => M::Trunc,
                "sqrt" => M::Sqrt,
                "prod" => M::Prod,
                "log" => M::Log,
                "log2" => M::Log2,
                "log10" => M::Log10,
                "exp" => M::Exp,
                "pow" => M::Pow,
                "fabs" => M::Fabs,
                "gcd" => M::Gcd,
                "isclose" => M::Isclose,
                _ => return None,
            }),
            _ => return None,
        })
    }
}

/// The class name of a type value (`int`, `str`, `ValueError`), which
/// `print(type(x))` shows as `<class 'int'>`; `None` for functions.
pub(crate) fn class_name(n: Native) -> Option<&'static str> {
    Some(match n {
        Native::Int => "int",
        Native::Tuple => "tuple",
        Native::List => "list",
        Native::Builtin(
            b @ (Builtin::Str
            | Builtin::Float
            | Builtin::Bool
            | Builtin::Set
            | Builtin::Dict
            | Builtin::NoneType
            | Builtin::FunctionType),
        ) => b.name(),
        _ => return None,
    })
}

/// A Python `TypeError` at `span`.
pub(crate) fn type_error(span: Range<usize>, message: impl Into<String>) -> Raised {
    Raised::python(ErrorClass::TypeError, span, message)
}

/// The positional arguments of `name`, which takes `min..=max` of them.
pub(crate) fn positional(
    args: Args,
    name: &str,
    min: usize,
    max: usize,
) -> Eval<(Vec<Spanned>, Range<usize>)> {
    let (pos, span) = args.positional_only(name)?;
    if pos.len() < min || pos.len() > max {
        return Err(type_error(
            span,
            format!(
                "`{name}` takes {} arguments ({} given)",
                if min == max {
                    min.to_string()
                } else {
                    format!("{min} to {max}")
                },
                pos.len()
            ),
        ));
    }
    Ok((pos, span))
}

/// Runs a builtin of [`Builtin`].
fn python_builtin(interp: &mut Interpreter, b: Builtin, args: Args) -> Eval<Value> {
    let name = b.name();
    match b {
        Builtin::Str | Builtin::Repr | Builtin::Bool | Builtin::Float => {
            let Some((v, span)) = zero_or_one_arg(name, args)? else {
                return Ok(match b {
                    Builtin::Str => Value::str(""),
                    Builtin::Bool => Value::Bool(false),
                    Builtin::Float => Value::Float(0.0),
                    _ => return Err(type_error(0..0, "repr() takes exactly one argument")),
                });
            };
            Ok(match b {
                Builtin::Str => Value::str(&interp.str_of(&v)),
                Builtin::Repr => Value::str(&interp.repr_of(&v)),
                Builtin::Bool => Value::Bool(interp.truthy(&v, span)?),
                _ => Value::Float(float(&v, span)?),
            })
        }
        Builtin::Sorted => {
            let a = args.bind(name, &["iterable", "key", "reverse"])?;
            let it = a.required("iterable")?;
            let items = collections::iterate_or_raise(&it.value, it.span.clone())?;
            let reverse = match a.get("reverse") {
                Some(r) => interp.truthy(&r.value, r.span.clone())?,
                None => false,
            };
            let key = a.get("key").map(|k| k.value.clone());
            let sorted = crate::pymethods::sort_values(
                interp,
                items,
                key.as_ref(),
                reverse,
                a.span.clone(),
            )?;
            Ok(Value::list(sorted))
        }
        Builtin::Reversed => {
            let (v, span) = one_arg(name, args)?;
            match &v {
                Value::Tuple(_) | Value::List(_) | Value::Str(_) => {
                    let mut items = collections::iterate(&v).unwrap_or_default();
                    items.reverse();
                    Ok(Value::list(items))
                }
                other => Err(type_error(
                    span,
                    format!("'{}' object is not reversible", other.type_name()),
                )),
            }
        }
        Builtin::Sum => {
            let a = args.bind(name, &["iterable", "start"])?;
            let it = a.required("iterable")?;
            let items = collections::iterate_or_raise(&it.value, it.span.clone())?;
            let mut acc = a.get("start").map_or(Value::Int(0), |s| s.value.clone());
            if matches!(acc, Value::Str(_)) {
                return Err(type_error(
                    a.span.clone(),
                    "sum() can't sum strings [use ''.join(seq) instead]",
                ));
            }
            for item in items {
                acc = operators::binary(operators::BinaryOp::Add, &acc, &item, a.span.clone())?;
            }
            Ok(acc)
        }
        Builtin::Map => {
            let (pos, span) = args.positional_only(name)?;
            let Some((f, iterables)) = pos.split_first() else {
                return Err(type_error(span, "map() must have at least two arguments."));
            };
            if iterables.is_empty() {
                return Err(type_error(span, "map() must have at least two arguments."));
            }
            let columns = iterables
                .iter()
                .map(|a| collections::iterate_or_raise(&a.value, a.span.clone()))
                .collect::<Eval<Vec<_>>>()?;
            let len = columns.iter().map(Vec::len).min().unwrap_or(0);
            let mut out = Vec::with_capacity(len);
            for i in 0..len {
                let row = columns.iter().map(|c| c[i].clone()).collect();
                out.push(interp.call_with(&f.value, row, span.clone())?);
            }
            Ok(Value::list(out))
        }
        Builtin::Filter => {
            let (pos, span) = positional(args, name, 2, 2)?;
            let items = collections::iterate_or_raise(&pos[1].value, pos[1].span.clone())?;
            let mut out = Vec::new();
            for item in items {
                let keep = match &pos[0].value {
                    Value::None => item.clone(),
                    f => interp.call_with(f, vec![item.clone()], span.clone())?,
                };
                if interp.truthy(&keep, span.clone())? {
                    out.push(item);
                }
            }
            Ok(Value::list(out))
        }
        Builtin::Set => {
            let items = match zero_or_one_arg(name, args)? {
                Some((v, span)) => {
                    let items = collections::iterate_or_raise(&v, span.clone())?;
                    return collections::new_set(items, span);
                }
                None => Vec::new(),
            };
            collections::new_set(items, 0..0)
        }
        Builtin::Dict => {
            if args.positional.len() > 1 {
                return Err(type_error(args.span, "dict expected at most 1 argument"));
            }
            let mut pairs = match args.positional.first() {
                Some(a) => crate::pymethods::pairs_of(&a.value, a.span.clone())?,
                None => Vec::new(),
            };
            for (k, v) in args.keywords {
                pairs.push((Value::str(&k), v.value));
            }
            collections::new_dict(pairs, args.span)
        }
        Builtin::Type => {
            let (v, span) = one_arg(name, args)?;
            type_of(&v).ok_or_else(|| {
                Raised::at(
                    span,
                    format!("`type` of a {} is not supported", v.type_name()),
                )
            })
        }
        Builtin::StaticMethod => Ok(one_arg(name, args)?.0),
        Builtin::Callable => {
            let (v, _) = one_arg(name, args)?;
            Ok(Value::Bool(match &v {
                Value::Host(_) => matches!(
                    script_value(&v),
                    Some(ScriptValue::Function(_) | ScriptValue::Builtin(_))
                ),
                Value::Function(_) | Value::Method(..) => true,
                Value::Object(Object::Class(_)) => true,
                _ => tvm_api::isinstance(&v, &Value::Object(Object::Class(Class::Tensor)))
                    .unwrap_or(false),
            }))
        }
        Builtin::Hasattr | Builtin::Getattr => {
            let (pos, span) = if b == Builtin::Hasattr {
                positional(args, name, 2, 2)?
            } else {
                positional(args, name, 2, 3)?
            };
            let Value::Str(attr) = &pos[1].value else {
                return Err(type_error(
                    pos[1].span.clone(),
                    "attribute name must be string",
                ));
            };
            if crate::pymethods::is_missing_method(&pos[0].value, attr) {
                // CPython has it; rangefinder cannot say what it does.
                return interp.attribute(&pos[0].value, attr, span);
            }
            if let Some(path) = crate::native::module_path(&pos[0].value) {
                // A module that needs CPython cannot answer either way.
                crate::pymodules::check_available(path, &pos[0].span, interp)?;
            }
            match interp.attribute(&pos[0].value, attr, span.clone()) {
                Ok(v) if b == Builtin::Getattr => Ok(v),
                Ok(_) => Ok(Value::Bool(true)),
                Err(_) if b == Builtin::Hasattr => Ok(Value::Bool(false)),
                Err(e) => match pos.get(2) {
                    Some(default) => Ok(default.value.clone()),
                    None => Err(e),
                },
            }
        }
        Builtin::Issubclass => {
            let (pos, _) = positional(args, name, 2, 2)?;
            let classes = match &pos[1].value {
                Value::Tuple(items) => items.to_vec(),
                other => vec![other.clone()],
            };
            let Some(sub) = class_of(&pos[0].value) else {
                return Err(type_error(
                    pos[0].span.clone(),
                    "issubclass() arg 1 must be a class",
                ));
            };
            let mut answer = false;
            for c in &classes {
                let Some(base) = class_of(c) else {
                    return Err(type_error(
                        pos[1].span.clone(),
                        "issubclass() arg 2 must be a class or tuple of classes",
                    ));
                };
                answer |= match (sub, base) {
                    (AnyClass::Api(Class::Error(s)), AnyClass::Api(Class::Error(b))) => {
                        b.is_base_of(s)
                    }
                    (
                        AnyClass::Builtin(Native::Builtin(Builtin::Bool)),
                        AnyClass::Builtin(Native::Int),
                    ) => true,
                    (s, b) => s == b,
                };
            }
            Ok(Value::Bool(answer))
        }
        Builtin::Round => {
            let (pos, span) = positional(args, name, 1, 2)?;
            let digits = match pos.get(1).map(|a| &a.value) {
                None | Some(Value::None) => None,
                Some(v) => Some(as_int(v).ok_or_else(|| {
                    type_error(
                        pos[1].span.clone(),
                        format!(
                            "'{}' object cannot be interpreted as an integer",
                            v.type_name()
                        ),
                    )
                })?),
            };
            round(&pos[0], digits, span)
        }
        Builtin::Divmod => {
            let (pos, span) = positional(args, name, 2, 2)?;
            let (a, b) = (&pos[0].value, &pos[1].value);
            let q = operators::binary(operators::BinaryOp::FloorDiv, a, b, span.clone())?;
            let r = operators::binary(operators::BinaryOp::Mod, a, b, span)?;
            Ok(Value::tuple(vec![q, r]))
        }
        Builtin::Format => {
            let (pos, span) = positional(args, name, 1, 2)?;
            let spec = match pos.get(1).map(|a| &a.value) {
                None => String::new(),
                Some(Value::Str(s)) => s.to_string(),
                Some(other) => {
                    return Err(type_error(
                        span,
                        format!("format() argument 2 must be str, not {}", other.type_name()),
                    ))
                }
            };
            Ok(Value::str(&pyformat::format_value(
                &pos[0].value,
                &spec,
                span,
            )?))
        }
        Builtin::Pow => {
            let (pos, span) = positional(args, name, 2, 2)?;
            operators::binary(operators::BinaryOp::Pow, &pos[0].value, &pos[1].value, span)
        }
        Builtin::Ord => {
            let (v, span) = one_arg(name, args)?;
            match &v {
                Value::Str(s) if s.chars().count() == 1 => {
                    Ok(Value::Int(s.chars().next().map_or(0, |c| c as i64)))
                }
                other => Err(type_error(
                    span,
                    format!(
                        "ord() expected a character, but got a {}",
                        other.type_name()
                    ),
                )),
            }
        }
        Builtin::Chr => {
            let (v, span) = one_arg(name, args)?;
            as_int(&v)
                .and_then(|i| u32::try_from(i).ok())
                .and_then(char::from_u32)
                .map(|c| Value::str(c.encode_utf8(&mut [0; 4])))
                .ok_or_else(|| {
                    Raised::python(
                        ErrorClass::ValueError,
                        span,
                        "chr() arg not in range(0x110000)",
                    )
                })
        }
        Builtin::NoneType | Builtin::FunctionType => Err(type_error(
            args.span,
            format!("cannot create '{name}' instances"),
        )),
        Builtin::Math(f) => crate::pymodules::math(f, args),
        Builtin::Reduce => crate::pymodules::reduce(interp, args),
        Builtin::Operator(op) => {
            let (pos, span) = args.positional_only(name)?;
            match &pos[..] {
                [a, b] => operators::binary(op, &a.value, &b.value, span),
                _ => Err(type_error(
                    span,
                    format!("{name} expected 2 arguments, got {}", pos.len()),
                )),
            }
        }
        Builtin::PickleDumps => crate::pymodules::pickle_dumps(args),
        Builtin::PickleLoads => crate::pymodules::pickle_loads(args),
        Builtin::Product => crate::pymodules::product(args),
        Builtin::Re(f) => crate::pyre::call(interp, f, args),
        Builtin::Numpy(f) => crate::pynumpy::call(interp, f, args),
        Builtin::NamedTuple => crate::namedtuple::declare(args),
        // A logger is the `logging` module itself: its functions log alike.
        Builtin::GetLogger => Ok(Value::host(ScriptValue::Module("logging"))),
        Builtin::LogCall => Ok(Value::None),
        Builtin::TestMain => {
            // pytest's command-line arguments (`[__file__]`) select nothing
            // here: every test of the module runs.
            interp.run_test_functions(args.span)?;
            Ok(Value::Int(0))
        }
        Builtin::TestParameter => test_parameter(args),
        Builtin::TestParameters => test_parameters(interp, args),
        Builtin::TestFixture => {
            let a = args.bind("tvm.testing.fixture", &["func", "cache_return_value"])?;
            match a.get("func") {
                // The fixture's value is the same whether or not it is
                // cached: only pytest's runs would tell them apart.
                None => Ok(Value::host(ScriptValue::Builtin(Native::Builtin(
                    Builtin::TestFixture,
                )))),
                Some(f) => Ok(Value::host(ScriptValue::Fixture(f.value.clone()))),
            }
        }
    }
}

/// `float(v)`.
fn float(v: &Value, span: Range<usize>) -> Eval<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Str(s) => {
            let t = s.trim().to_ascii_lowercase();
            let parsed = match t.trim_start_matches(['+', '-']) {
                "inf" | "infinity" => Some(f64::INFINITY),
                "nan" => Some(f64::NAN),
                _ => t.replace('_', "").parse::<f64>().ok(),
            };
            let negative = t.starts_with('-')
                && matches!(t.trim_start_matches('-'), "inf" | "infinity" | "nan");
            parsed
                .map(|f| if negative { -f } else { f })
                .ok_or_else(|| {
                    Raised::python(
                        ErrorClass::ValueError,
                        span,
                        format!(
                            "could not convert string to float: {}",
                            pyformat::str_repr(s)
                        ),
                    )
                })
        }
        other => as_int(other).map(|i| i as f64).ok_or_else(|| {
            type_error(
                span,
                format!(
                    "float() argument must be a string or a real number, not '{}'",
                    other.type_name()
                ),
            )
        }),
    }
}

/// `round(x)` (to an int, ties to even) and `round(x, n)`.
fn round(x: &Spanned, digits: Option<i64>, span: Range<usize>) -> Eval<Value> {
    match (&x.value, digits) {
        (Value::Float(f), None) => {
            let r = f.round_ties_even();
            if !r.is_finite() || r.abs() >= 9.2e18 {
                return Err(Raised::python(
                    ErrorClass::ValueError,
                    span,
                    "cannot convert float to a 64-bit integer",
                ));
            }
            Ok(Value::Int(r as i64))
        }
        (Value::Float(f), Some(n)) => {
            if !f.is_finite() {
                return Ok(Value::Float(*f));
            }
            if n >= 0 {
                // The correctly rounded decimal text, as CPython rounds.
                let n = n.min(330) as usize;
                Ok(Value::Float(format!("{f:.n$}").parse().unwrap_or(*f)))
            } else {
                let scale = 10f64.powi(i32::try_from(n.unsigned_abs()).unwrap_or(400));
                if scale.is_infinite() {
                    return Ok(Value::Float(0.0f64.copysign(*f)));
                }
                Ok(Value::Float((f / scale).round_ties_even() * scale))
            }
        }
        (v, digits) => {
            let Some(i) = as_int(v) else {
                return Err(type_error(
                    x.span.clone(),
                    format!("type {} doesn't define __round__ method", v.type_name()),
                ));
            };
            match digits {
                Some(n) if n < 0 => {
                    let Some(scale) = u32::try_from(n.unsigned_abs())
                        .ok()
                        .and_then(|e| 10i128.checked_pow(e))
                    else {
                        return Ok(Value::Int(0));
                    };
                    let i = i128::from(i);
                    let (q, r) = (i.div_euclid(scale), i.rem_euclid(scale));
                    let up = 2 * r > scale || (2 * r == scale && q % 2 != 0);
                    let rounded = (q + i128::from(up)) * scale;
                    i64::try_from(rounded)
                        .map(Value::Int)
                        .map_err(|_| Raised::at(span, "integer overflow in round"))
                }
                _ => Ok(Value::Int(i)),
            }
        }
    }
}

/// `int(text, base)`: digits in base 2 to 36, or base 0 (the literal's own
/// prefix decides), with an optional sign, underscores and `0x`/`0o`/`0b`.
fn int_with_base(args: Args) -> Eval<Value> {
    let a = args.bind("int", &["x", "base"])?;
    let x = a.required("x")?;
    let b = a.required("base")?;
    let Value::Str(text) = &x.value else {
        return Err(type_error(
            x.span.clone(),
            "int() can't convert non-string with explicit base",
        ));
    };
    let base = as_int(&b.value)
        .filter(|b| *b == 0 || (2..=36).contains(b))
        .ok_or_else(|| {
            Raised::python(
                ErrorClass::ValueError,
                b.span.clone(),
                "int() base must be >= 2 and <= 36, or 0",
            )
        })?;
    let invalid = || {
        Raised::python(
            ErrorClass::ValueError,
            a.span.clone(),
            format!(
                "invalid literal for int() with base {base}: {}",
                pyformat::str_repr(text)
            ),
        )
    };
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = t.to_ascii_lowercase();
    let prefixed = [("0x", 16), ("0o", 8), ("0b", 2)]
        .into_iter()
        .find(|(p, b)| lower.starts_with(p) && (base == 0 || base == *b));
    let (digits, radix) = match prefixed {
        Some((p, b)) => (&lower[p.len()..], b),
        None if base == 0 => (lower.as_str(), 10),
        None => (lower.as_str(), base as u32 as i64),
    };
    let digits = digits.strip_prefix('_').unwrap_or(digits);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(invalid());
    }
    let magnitude =
        i128::from_str_radix(&digits.replace('_', ""), radix as u32).map_err(|_| invalid())?;
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value).map(Value::Int).map_err(|_| {
        Raised::at(
            a.span.clone(),
            "integer overflow: the result does not fit in 64 bits",
        )
    })
}

/// `type(v)`: the type value of a Python value or a TE object.
fn type_of(v: &Value) -> Option<Value> {
    let builtin = |n: Native| Some(Value::host(ScriptValue::Builtin(n)));
    let api = |c: Class| Some(Value::Object(Object::Class(c)));
    match v {
        Value::None => builtin(Native::Builtin(Builtin::NoneType)),
        Value::Bool(_) => builtin(Native::Builtin(Builtin::Bool)),
        Value::Int(_) => builtin(Native::Int),
        Value::Float(_) => builtin(Native::Builtin(Builtin::Float)),
        Value::Str(_) => builtin(Native::Builtin(Builtin::Str)),
        Value::Tuple(_) => builtin(Native::Tuple),
        Value::List(_) => builtin(Native::List),
        Value::Dict(_) | Value::MutableDict(_) => builtin(Native::Builtin(Builtin::Dict)),
        Value::Set(_) => builtin(Native::Builtin(Builtin::Set)),
        Value::Host(_) if matches!(script_value(v), Some(ScriptValue::Function(_))) => {
            builtin(Native::Builtin(Builtin::FunctionType))
        }
        Value::Exception(class, _) => api(Class::Error(*class)),
        Value::Index(e) if e.as_var().is_some() => api(Class::Var),
        _ => [Class::Tensor, Class::IterVar]
            .into_iter()
            .find(|c| tvm_api::isinstance(v, &Value::Object(Object::Class(*c))) == Some(true))
            .and_then(api),
    }
}

/// A class value: one of the API's or a Python builtin type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AnyClass {
    Api(Class),
    Builtin(Native),
}

fn class_of(v: &Value) -> Option<AnyClass> {
    match v {
        Value::Object(Object::Class(c)) => Some(AnyClass::Api(*c)),
        _ => match script_value(v) {
            Some(ScriptValue::Builtin(n)) => Some(AnyClass::Builtin(*n)),
            _ => None,
        },
    }
}

/// `tvm.testing.parameter(*values, ids=None, by_dict=None)`.
fn test_parameter(args: Args) -> Eval<Value> {
    let span = args.span.clone();
    let mut values: Vec<Value> = args.positional.into_iter().map(|a| a.value).collect();
    for (name, arg) in args.keywords {
        match name.as_str() {
            "ids" => {}
            "by_dict" => {
                if !values.is_empty() {
                    return Err(Raised::python(
                        ErrorClass::RuntimeError,
                        arg.span,
                        "Use of the by_dict parameter cannot be used alongside positional arguments",
                    ));
                }
                values = collections::dict_pairs(&arg.value)
                    .ok_or_else(|| {
                        type_error(arg.span.clone(), "`by_dict` needs a dict of id: value")
                    })?
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect();
            }
            other => {
                return Err(type_error(
                    arg.span,
                    format!("tvm.testing.parameter() got an unexpected keyword argument '{other}'"),
                ))
            }
        }
    }
    if values.is_empty() {
        return Err(type_error(
            span,
            "`tvm.testing.parameter` needs at least one value",
        ));
    }
    Ok(Value::host(ScriptValue::Parameter(
        crate::value::Parameter {
            values,
            group: None,
        },
    )))
}

/// `a, b = tvm.testing.parameters((1, 2), (3, 4))`: one parameter per
/// position of the sets, all of one group.
fn test_parameters(interp: &mut Interpreter, args: Args) -> Eval<Value> {
    let span = args.span.clone();
    if let Some((name, arg)) = args.keywords.iter().find(|(n, _)| n != "ids") {
        return Err(type_error(
            arg.span.clone(),
            format!("tvm.testing.parameters() got an unexpected keyword argument '{name}'"),
        ));
    }
    let mut sets = Vec::new();
    for a in args.positional {
        let items = a.value.sequence().ok_or_else(|| {
            type_error(
                a.span.clone(),
                "each set of `tvm.testing.parameters` is a tuple of values",
            )
        })?;
        sets.push((items, a.span));
    }
    let width = sets.first().map_or(0, |(items, _)| items.len());
    if let Some((_, at)) = sets.iter().find(|(items, _)| items.len() != width) {
        return Err(type_error(
            at.clone(),
            "every set of `tvm.testing.parameters` has the same number of values",
        ));
    }
    if sets.is_empty() || width == 0 {
        return Err(type_error(
            span,
            "`tvm.testing.parameters` needs at least one set of values",
        ));
    }
    let group = interp.next_parameter_group();
    let params = (0..width)
        .map(|k| {
            Value::host(ScriptValue::Parameter(crate::value::Parameter {
                values: sets.iter().map(|(items, _)| items[k].clone()).collect(),
                group: Some(group),
            }))
        })
        .collect();
    Ok(Value::tuple(params))
}
