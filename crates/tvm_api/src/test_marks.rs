//! The decorators of test files: pytest's marks (`pytest.mark.parametrize`,
//! `skip`, `skipif`, and any other mark, which changes nothing) and TVM's
//! requirement marks (`tvm.testing.requires_gpu`, `uses_gpu`...), so that
//! TVM's own test files run unchanged where no pytest collects them.
//!
//! A marked test called with arguments is the function itself. Called with
//! none (as `tvm.testing.main()` calls each test), it runs once per
//! parametrized case, with the case's values as keyword arguments, and not
//! at all when skipped. TVM's requirement marks leave the test as it is:
//! the program is lowered and run here whatever the machine has.

use crate::args::Args;
use crate::error::{ApiError, ApiResult, ArgRef, ErrorClass};
use crate::object::Object;
use crate::value::Value;
use crate::Host;
use std::rc::Rc;

/// `pytest.mark.<name>`, before or after it is given its arguments.
pub struct Mark {
    /// The mark's name (`parametrize`, `skip`, `gpu`...).
    pub name: Rc<str>,
    /// What the mark does to the test once it has its arguments; `None`
    /// while it has none (`@pytest.mark.gpu` decorates directly).
    effect: Option<Effect>,
}

/// What a mark with its arguments does to a test.
#[derive(Clone)]
enum Effect {
    /// Runs the test once per case: each case names its arguments.
    Cases(Vec<Vec<(String, Value)>>),
    /// Skips the test (`skip`, and `skipif` of a true condition).
    Skip,
    /// Nothing (a mark only pytest's selection reads).
    Nothing,
}

/// A test function with its marks.
pub struct MarkedTest {
    /// The function as written.
    function: Value,
    /// The parametrized cases, the product of every `parametrize`; empty
    /// when the test takes no parameters.
    cases: Vec<Vec<(String, Value)>>,
    /// Whether a mark skips the test.
    skip: bool,
}

/// `pytest.mark.<name>`.
pub fn pytest_mark(name: &str) -> Value {
    Value::Object(Object::Mark(Rc::new(Mark {
        name: Rc::from(name),
        effect: None,
    })))
}

/// Whether `v` is a function a mark may decorate.
fn is_function(v: &Value) -> bool {
    matches!(
        v,
        Value::Host(_) | Value::Object(Object::Tagged(..) | Object::MarkedTest(_))
    )
}

/// Calls a mark: `pytest.mark.parametrize("a,b", [(1, 2)])` gives the mark
/// its arguments; a mark with its arguments (or `@pytest.mark.skip` used
/// bare) called on a function marks the function.
pub(crate) fn call_mark(mark: &Rc<Mark>, args: Args) -> ApiResult<Value> {
    let bare_on_function = mark.effect.is_none()
        && args.keywords.is_empty()
        && args.positional.len() == 1
        && is_function(&args.positional[0])
        && !matches!(&*mark.name, "parametrize" | "skipif");
    if let Some(effect) = mark.effect.clone().or(if bare_on_function {
        Some(if &*mark.name == "skip" {
            Effect::Skip
        } else {
            Effect::Nothing
        })
    } else {
        None
    }) {
        let a = args.bind(&format!("pytest.mark.{}", mark.name), &["function"])?;
        let f = a.required("function")?;
        if !is_function(&f.value) {
            return Err(ApiError::type_error(format!(
                "`pytest.mark.{}` decorates a function, not a {}",
                mark.name,
                f.value.type_name()
            ))
            .at(ArgRef::Positional(0)));
        }
        return Ok(mark_test(f.value.clone(), effect));
    }
    let effect = match &*mark.name {
        "parametrize" => Effect::Cases(parametrize_cases(args)?),
        "skip" => Effect::Skip,
        "skipif" => {
            let condition = args
                .positional
                .first()
                .ok_or_else(|| ApiError::type_error("`pytest.mark.skipif` needs a condition"))?;
            if crate::truth(condition)? {
                Effect::Skip
            } else {
                Effect::Nothing
            }
        }
        _ => Effect::Nothing,
    };
    Ok(Value::Object(Object::Mark(Rc::new(Mark {
        name: mark.name.clone(),
        effect: Some(effect),
    }))))
}

/// The test `function` with one more mark.
fn mark_test(function: Value, effect: Effect) -> Value {
    let (function, mut cases, mut skip) = match &function {
        Value::Object(Object::MarkedTest(t)) => (t.function.clone(), t.cases.clone(), t.skip),
        _ => (function, Vec::new(), false),
    };
    match effect {
        Effect::Cases(new) if cases.is_empty() => cases = new,
        Effect::Cases(new) => {
            cases = cases
                .iter()
                .flat_map(|c| {
                    new.iter().map(move |n| {
                        let mut both = n.clone();
                        both.extend(c.iter().cloned());
                        both
                    })
                })
                .collect()
        }
        Effect::Skip => skip = true,
        Effect::Nothing => {}
    }
    Value::Object(Object::MarkedTest(Rc::new(MarkedTest {
        function,
        cases,
        skip,
    })))
}

/// The cases of `parametrize(argnames, argvalues, ids=..., indirect=...)`:
/// `argnames` a comma-separated string or a list of names; each value a
/// tuple of one value per name (a bare value when there is one name).
fn parametrize_cases(args: Args) -> ApiResult<Vec<Vec<(String, Value)>>> {
    let a = args.bind(
        "pytest.mark.parametrize",
        &["argnames", "argvalues", "indirect", "ids", "scope"],
    )?;
    let names_arg = a.required("argnames")?;
    let names: Vec<String> = match &names_arg.value {
        Value::Str(s) => s
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect(),
        other => other
            .sequence()
            .and_then(|items| {
                items
                    .into_iter()
                    .map(|v| match v {
                        Value::Str(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect()
            })
            .ok_or_else(|| {
                ApiError::type_error(
                    "`parametrize` needs its argument names as a string or a list of strings",
                )
                .at(ArgRef::Keyword("argnames".into()))
            })?,
    };
    let values_arg = a.required("argvalues")?;
    let values = values_arg.value.sequence().ok_or_else(|| {
        ApiError::type_error("`parametrize` needs its argument values as a list")
            .at(ArgRef::Keyword("argvalues".into()))
    })?;
    values
        .into_iter()
        .map(|case| {
            let items = if names.len() == 1 {
                vec![case]
            } else {
                case.sequence()
                    .filter(|items| items.len() == names.len())
                    .ok_or_else(|| {
                        ApiError::new(
                            ErrorClass::ValueError,
                            format!(
                                "a case of `parametrize` has not one value for each of the {} \
                                 names {}",
                                names.len(),
                                names.join(", ")
                            ),
                        )
                        .at(ArgRef::Keyword("argvalues".into()))
                    })?
            };
            Ok(names.iter().cloned().zip(items).collect())
        })
        .collect()
}

/// Calls the test's function with `args`, keywords included.
fn call_function(host: &mut dyn Host, function: &Value, args: Args) -> ApiResult<Value> {
    match function {
        Value::Host(_) => host.call_args(function, args),
        _ => crate::call(host, function, args),
    }
}

/// Calls a marked test: with arguments, the function; with none, once per
/// case (never when skipped).
pub(crate) fn call_marked(host: &mut dyn Host, test: &MarkedTest, args: Args) -> ApiResult<Value> {
    if !args.positional.is_empty() || !args.keywords.is_empty() {
        return call_function(host, &test.function, args);
    }
    if test.skip {
        return Ok(Value::None);
    }
    if test.cases.is_empty() {
        return call_function(host, &test.function, args);
    }
    for case in &test.cases {
        call_function(
            host,
            &test.function,
            Args {
                positional: Vec::new(),
                keywords: case.clone(),
            },
        )?;
    }
    Ok(Value::None)
}

/// `tvm.testing.requires_gpu`, `uses_gpu`, ...: the test unchanged, also
/// when the mark is first called with arguments (`requires_cuda_compute_version(8)`).
pub(crate) fn requirement(args: Args) -> ApiResult<Value> {
    match args.positional.as_slice() {
        [f] if args.keywords.is_empty() && is_function(f) => Ok(f.clone()),
        _ => Ok(Value::Function(crate::function::Function::Requirement)),
    }
}

/// `tvm.testing.parametrize_targets("llvm", "cuda")`: the mark
/// `parametrize("target", [...])`; used bare on a test, the test as it is
/// (it runs for the targets the program names itself).
pub(crate) fn parametrize_targets(args: Args) -> ApiResult<Value> {
    if let [f] = args.positional.as_slice() {
        if args.keywords.is_empty() && is_function(f) {
            return Ok(f.clone());
        }
    }
    if let Some((name, _)) = args.keywords.first() {
        return Err(ApiError::type_error(format!(
            "`parametrize_targets` takes target names, not `{name}=`"
        )));
    }
    let mut cases = Vec::with_capacity(args.positional.len());
    for (k, target) in args.positional.into_iter().enumerate() {
        if !matches!(target, Value::Str(_)) {
            return Err(ApiError::type_error(format!(
                "`parametrize_targets` takes target names such as \"llvm\", found a {}",
                target.type_name()
            ))
            .at(ArgRef::Positional(k)));
        }
        cases.push(vec![("target".to_string(), target)]);
    }
    Ok(Value::Object(Object::Mark(Rc::new(Mark {
        name: Rc::from("parametrize"),
        effect: Some(Effect::Cases(cases)),
    }))))
}
