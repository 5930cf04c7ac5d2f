//! Python's standard modules in scripts. `math`, `functools`,
//! `operator`'s binary operators, `itertools` and `pickle` of TVM objects
//! are computed here, `re` in [`crate::pyre`] and numpy's one-dimensional
//! arrays in [`crate::pynumpy`]; modules that need CPython (the rest of
//! numpy, `numbers`, `os`, `sys`, ...) import without error, so that a
//! script's header runs, and their first use says how to run the script
//! under CPython instead.

use crate::args::Args;
use crate::builtins::{Builtin, MathFunction};
use crate::collections;
use crate::error::{Eval, Raised};
use crate::interp::Interpreter;
use crate::native::Native;
use crate::operators::{self, as_int, BinaryOp};
use crate::value::{ScriptValue, Value};
use std::ops::Range;
use tvm_api::ErrorClass;

/// Modules whose functions are computed here (`collections` and `logging`
/// in part: see [`attribute`]).
const COMPUTED: &[&str] = &[
    "math",
    "functools",
    "operator",
    "itertools",
    "collections",
    "logging",
    "pickle",
    "re",
    "numpy",
];

/// What `collections`' names other than `namedtuple` are: a value whose
/// first use needs CPython.
pub(crate) const DEFERRED_COLLECTIONS: &str = "collections.cpython";

/// What `pickle`'s names other than `dumps` and `loads` are (files,
/// protocols, picklers): a value whose first use needs CPython.
const DEFERRED_PICKLE: &str = "pickle.cpython";

/// What numpy's names other than those [`crate::pynumpy`] computes are: a
/// value whose first use needs CPython.
const DEFERRED_NUMPY: &str = "numpy.cpython";

/// Modules that import but need CPython on first use.
const NEED_CPYTHON: &[&str] = &[
    DEFERRED_NUMPY,
    "numbers",
    "os",
    "os.path",
    "sys",
    "scipy",
    "random",
    "time",
    "typing",
    DEFERRED_COLLECTIONS,
    "json",
    DEFERRED_PICKLE,
    "tempfile",
    "timeit",
    "inspect",
    "traceback",
    "types",
    "copy",
];

/// The Python module `path`, if scripts may import it.
pub(crate) fn module(path: &str) -> Option<Value> {
    COMPUTED
        .iter()
        .chain(NEED_CPYTHON)
        .find(|m| **m == path)
        .map(|m| Value::host(ScriptValue::Module(m)))
}

/// Whether the module `path` is one that needs CPython.
pub(crate) fn needs_cpython(path: &str) -> bool {
    NEED_CPYTHON.contains(&path)
}

/// The error for using `what` (the script's text) from the module `path`,
/// which needs CPython.
pub(crate) fn needs_cpython_error(path: &str, what: &str, span: Range<usize>) -> Raised {
    let top = path.split('.').next().unwrap_or(path);
    let missing = if path.ends_with(".cpython") {
        format!("`rangefinder te`'s own interpreter has only part of the module `{top}`")
    } else {
        format!("the module `{top}` is not available in `rangefinder te`'s own interpreter")
    };
    Raised::at(
        span,
        format!(
            "`{what}` needs CPython: {missing}; run the script under CPython with \
             `python -m rangefinder.tvm FILE`"
        ),
    )
}

/// Fails when the module `path` needs CPython; the error points at `span`.
pub(crate) fn check_available(path: &str, span: &Range<usize>, interp: &Interpreter) -> Eval<()> {
    if needs_cpython(path) {
        return Err(needs_cpython_error(path, interp.text(span), span.clone()));
    }
    Ok(())
}

/// `module.name` for the computed modules.
pub(crate) fn attribute(path: &str, name: &str) -> Option<Value> {
    match (path, name) {
        ("math", "pi") => Some(Value::Float(std::f64::consts::PI)),
        ("math", "e") => Some(Value::Float(std::f64::consts::E)),
        ("math", "inf") => Some(Value::Float(f64::INFINITY)),
        ("math", "nan") => Some(Value::Float(f64::NAN)),
        ("re", flag) if crate::pyre::flag(flag).is_some() => {
            crate::pyre::flag(flag).map(Value::Int)
        }
        // What a pattern that does not compile raises (`re.error` derives
        // from `Exception`; here it is `Exception` itself).
        ("re", "error") => Some(Value::Object(tvm_api::Object::Class(
            tvm_api::Class::Error(ErrorClass::Exception),
        ))),
        ("logging", "DEBUG") => Some(Value::Int(10)),
        ("logging", "INFO") => Some(Value::Int(20)),
        ("logging", "WARNING") => Some(Value::Int(30)),
        ("logging", "ERROR") => Some(Value::Int(40)),
        ("collections", n) if n != "namedtuple" && !n.starts_with("__") => {
            Some(Value::host(ScriptValue::Module(DEFERRED_COLLECTIONS)))
        }
        ("numpy", n)
            if crate::pynumpy::NumpyFunction::named(n).is_none() && !n.starts_with("__") =>
        {
            Some(Value::host(ScriptValue::Module(DEFERRED_NUMPY)))
        }
        ("pickle", n) if !matches!(n, "dumps" | "loads") && !n.starts_with("__") => {
            Some(Value::host(ScriptValue::Module(DEFERRED_PICKLE)))
        }
        _ => Builtin::in_module(path, name)
            .map(|b| Value::host(ScriptValue::Builtin(Native::Builtin(b)))),
    }
}

fn value_error(span: Range<usize>, message: &str) -> Raised {
    Raised::python(ErrorClass::ValueError, span, message)
}

fn real(v: &Value, span: &Range<usize>) -> Eval<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        other => as_int(other).map(|i| i as f64).ok_or_else(|| {
            Raised::python(
                ErrorClass::TypeError,
                span.clone(),
                format!("must be real number, not {}", other.type_name()),
            )
        }),
    }
}

/// A float rounded towards `-inf` or `+inf` as an int, or an error when it
/// is not finite or does not fit in 64 bits.
fn float_to_int(f: f64, span: Range<usize>) -> Eval<Value> {
    if f.is_nan() {
        return Err(value_error(span, "cannot convert float NaN to integer"));
    }
    if !f.is_finite() || f.abs() >= 9.2e18 {
        return Err(Raised::python(
            ErrorClass::ValueError,
            span,
            "cannot convert float infinity (or a value beyond 64 bits) to integer",
        ));
    }
    Ok(Value::Int(f as i64))
}

/// `pickle.dumps(obj)` of a tensor, operation or schedule: as TVM pickles
/// them, the `tvm.ir.save_json` document.
pub(crate) fn pickle_dumps(args: Args) -> Eval<Value> {
    let a = args.bind("dumps", &["obj", "protocol"])?;
    let obj = a.required("obj")?;
    let text = tvm_api::save_json_text(&obj.value).map_err(|e| {
        // Python's words for what cannot be pickled, with the layer's
        // reason.
        Raised::python(
            ErrorClass::TypeError,
            obj.span.clone(),
            format!(
                "cannot pickle '{}' object: {}",
                obj.value.type_name(),
                e.message
            ),
        )
    })?;
    Ok(Value::host(ScriptValue::Pickled(std::rc::Rc::from(text))))
}

/// `pickle.loads(data)` of what [`pickle_dumps`] returned: a fresh object.
pub(crate) fn pickle_loads(args: Args) -> Eval<Value> {
    let a = args.bind("loads", &["data"])?;
    let data = a.required("data")?;
    let pickled = match &data.value {
        Value::Host(h) => match h.as_any().downcast_ref::<ScriptValue>() {
            Some(ScriptValue::Pickled(text)) => Some(text.clone()),
            _ => None,
        },
        _ => None,
    };
    let Some(text) = pickled else {
        return Err(Raised::python(
            ErrorClass::TypeError,
            data.span.clone(),
            format!(
                "`pickle.loads` reads what `pickle.dumps` returned here, not a {}",
                data.value.type_name()
            ),
        ));
    };
    tvm_api::load_json_text(&text).map_err(|e| Raised::api(data.span.clone(), e))
}

/// A function of `math`.
pub(crate) fn math(f: MathFunction, args: Args) -> Eval<Value> {
    let name = Builtin::Math(f).name();
    if f == MathFunction::Prod {
        let a = args.bind(name, &["iterable", "start"])?;
        let it = a.required("iterable")?;
        let items = collections::iterate_or_raise(&it.value, it.span.clone())?;
        let mut acc = a.get("start").map_or(Value::Int(1), |s| s.value.clone());
        for item in items {
            acc = operators::binary(BinaryOp::Mul, &acc, &item, a.span.clone())?;
        }
        return Ok(acc);
    }
    if f == MathFunction::Isclose {
        let a = args.bind(name, &["a", "b", "rel_tol", "abs_tol"])?;
        let x = real(&a.required("a")?.value, &a.span)?;
        let y = real(&a.required("b")?.value, &a.span)?;
        let rel = a
            .get("rel_tol")
            .map_or(Ok(1e-9), |v| real(&v.value, &v.span))?;
        let abs = a
            .get("abs_tol")
            .map_or(Ok(0.0), |v| real(&v.value, &v.span))?;
        let close = x == y || (x - y).abs() <= (rel * x.abs().max(y.abs())).max(abs);
        return Ok(Value::Bool(close));
    }
    let (pos, span) = args.positional_only(name)?;
    let arity = match f {
        MathFunction::Pow => 2..=2,
        MathFunction::Log => 1..=2,
        MathFunction::Gcd => 0..=usize::MAX,
        _ => 1..=1,
    };
    if !arity.contains(&pos.len()) {
        return Err(Raised::python(
            ErrorClass::TypeError,
            span,
            format!("`{name}` takes {:?} arguments ({} given)", arity, pos.len()),
        ));
    }
    match f {
        MathFunction::Ceil | MathFunction::Floor | MathFunction::Trunc => {
            if let Some(i) = as_int(&pos[0].value) {
                return Ok(Value::Int(i));
            }
            let x = real(&pos[0].value, &pos[0].span)?;
            let r = match f {
                MathFunction::Ceil => x.ceil(),
                MathFunction::Floor => x.floor(),
                _ => x.trunc(),
            };
            float_to_int(r, span)
        }
        MathFunction::Gcd => {
            let mut g: i64 = 0;
            for a in &pos {
                let i = as_int(&a.value).ok_or_else(|| {
                    Raised::python(
                        ErrorClass::TypeError,
                        a.span.clone(),
                        format!(
                            "'{}' object cannot be interpreted as an integer",
                            a.value.type_name()
                        ),
                    )
                })?;
                g = arith::num::gcd(g, i);
            }
            Ok(Value::Int(g))
        }
        _ => {
            let x = real(&pos[0].value, &pos[0].span)?;
            let domain = || value_error(span.clone(), "math domain error");
            let v = match f {
                MathFunction::Sqrt if x < 0.0 => return Err(domain()),
                MathFunction::Sqrt => x.sqrt(),
                MathFunction::Log | MathFunction::Log2 | MathFunction::Log10 if x <= 0.0 => {
                    return Err(domain())
                }
                MathFunction::Log2 => x.log2(),
                MathFunction::Log10 => x.log10(),
                MathFunction::Log => match pos.get(1) {
                    Some(b) => {
                        let base = real(&b.value, &b.span)?;
                        if base <= 0.0 || base == 1.0 {
                            return Err(domain());
                        }
                        x.ln() / base.ln()
                    }
                    None => x.ln(),
                },
                MathFunction::Exp => x.exp(),
                MathFunction::Fabs => x.abs(),
                MathFunction::Pow => x.powf(real(&pos[1].value, &pos[1].span)?),
                _ => unreachable!("handled above"),
            };
            if v.is_infinite() && x.is_finite() {
                return Err(Raised::python(
                    ErrorClass::ValueError,
                    span,
                    "math range error",
                ));
            }
            Ok(Value::Float(v))
        }
    }
}

/// `functools.reduce(f, iterable[, initial])`.
pub(crate) fn reduce(interp: &mut Interpreter, args: Args) -> Eval<Value> {
    let (pos, span) = args.positional_only("reduce")?;
    let (f, it, initial) = match &pos[..] {
        [f, it] => (f, it, None),
        [f, it, init] => (f, it, Some(init.value.clone())),
        _ => {
            return Err(Raised::python(
                ErrorClass::TypeError,
                span,
                "reduce expected 2 or 3 arguments",
            ))
        }
    };
    let mut items = collections::iterate_or_raise(&it.value, it.span.clone())?.into_iter();
    let Some(mut acc) = initial.or_else(|| items.next()) else {
        return Err(Raised::python(
            ErrorClass::TypeError,
            span,
            "reduce() of empty iterable with no initial value",
        ));
    };
    for item in items {
        acc = interp.call_with(&f.value, vec![acc, item], span.clone())?;
    }
    Ok(acc)
}

/// The longest product `itertools.product` may build.
const MAX_PRODUCT: usize = 1_000_000;

/// `itertools.product(*iterables, repeat=1)`, as a list of tuples.
pub(crate) fn product(args: Args) -> Eval<Value> {
    let mut repeat = 1;
    for (name, a) in &args.keywords {
        if name != "repeat" {
            return Err(Raised::python(
                ErrorClass::TypeError,
                a.span.clone(),
                format!("product() got an unexpected keyword argument '{name}'"),
            ));
        }
        repeat = as_int(&a.value)
            .and_then(|r| usize::try_from(r).ok())
            .ok_or_else(|| value_error(a.span.clone(), "repeat argument cannot be negative"))?;
    }
    let mut pools = Vec::new();
    for a in &args.positional {
        pools.push(collections::iterate_or_raise(&a.value, a.span.clone())?);
    }
    let pools: Vec<Vec<Value>> = (0..repeat).flat_map(|_| pools.iter().cloned()).collect();
    let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
    for pool in &pools {
        if rows.len().saturating_mul(pool.len()) > MAX_PRODUCT {
            return Err(Raised::at(
                args.span,
                format!("`itertools.product` of more than {MAX_PRODUCT} tuples is too long for a script"),
            ));
        }
        rows = rows
            .iter()
            .flat_map(|row| {
                pool.iter().map(move |v| {
                    let mut r = row.clone();
                    r.push(v.clone());
                    r
                })
            })
            .collect();
    }
    Ok(Value::list(rows.into_iter().map(Value::tuple).collect()))
}
