//! Methods of Python's own values: `str`, `list`, `tuple`, `dict` and `set`
//! methods as CPython defines them (`",".join(...)`, `l.sort(key=...)`,
//! `d.setdefault(k, [])`).

use crate::args::{Args, Spanned};
use crate::budget;
use crate::builtins::{positional, type_error};
use crate::collections::{self, check_depth, check_hashable, dict_get, dict_set, py_eq, set_add};
use crate::error::{Eval, Raised};
use crate::interp::Interpreter;
use crate::operators::as_int;
use crate::pyformat;
use crate::value::{ScriptValue, Value};
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use tvm_api::ErrorClass;

const STR_METHODS: &[&str] = &[
    "join",
    "split",
    "rsplit",
    "startswith",
    "endswith",
    "replace",
    "upper",
    "lower",
    "strip",
    "lstrip",
    "rstrip",
    "find",
    "rfind",
    "index",
    "count",
    "format",
    "isdigit",
    "isalpha",
    "isalnum",
    "isupper",
    "islower",
    "zfill",
    "ljust",
    "rjust",
    "center",
    "capitalize",
    "title",
    "splitlines",
    "removeprefix",
    "removesuffix",
    "partition",
    "rpartition",
    "isspace",
    "rindex",
    "casefold",
    "swapcase",
];
const LIST_METHODS: &[&str] = &[
    "append", "extend", "insert", "pop", "remove", "index", "count", "sort", "reverse", "copy",
    "clear",
];
const TUPLE_METHODS: &[&str] = &["index", "count"];
const DICT_METHODS: &[&str] = &[
    "get",
    "items",
    "keys",
    "values",
    "update",
    "setdefault",
    "pop",
    "copy",
    "clear",
];
const SET_METHODS: &[&str] = &[
    "add",
    "update",
    "discard",
    "remove",
    "union",
    "intersection",
    "difference",
    "issubset",
    "issuperset",
    "copy",
    "clear",
];

/// The method `name` of a Python value, as the `&'static str` a
/// [`Value::Method`] holds; `None` when the value has no such method or is
/// not a Python container or string.
pub(crate) fn method_name(receiver: &Value, name: &str) -> Option<&'static str> {
    // `x.__getitem__(i)` is `x[i]` for whatever can be indexed (TOPI's
    // `conv` reads `filt.__getitem__(tuple(...))`).
    if name == "__getitem__"
        && (matches!(
            receiver,
            Value::Str(_)
                | Value::List(_)
                | Value::Tuple(_)
                | Value::Dict(_)
                | Value::MutableDict(_)
                | Value::Object(_)
        ) || crate::pynumpy::as_array(receiver).is_some())
    {
        return Some("__getitem__");
    }
    let table = match receiver {
        Value::Str(_) => STR_METHODS,
        Value::List(_) => LIST_METHODS,
        Value::Tuple(_) => TUPLE_METHODS,
        Value::Dict(_) | Value::MutableDict(_) => DICT_METHODS,
        Value::Set(_) => SET_METHODS,
        Value::Host(_) => match crate::value::script_value(receiver) {
            Some(ScriptValue::RePattern(_)) => crate::pyre::PATTERN_METHODS,
            Some(ScriptValue::ReMatch(_)) => crate::pyre::MATCH_METHODS,
            Some(ScriptValue::NdArray(_)) => crate::pynumpy::METHODS,
            _ => return None,
        },
        _ => return None,
    };
    table.iter().find(|m| **m == name).copied()
}

/// CPython's methods of `str`, `list`, `tuple`, `dict` and `set` that are
/// not computed here: asking for one is rangefinder's limit, not an
/// `AttributeError`.
const NOT_COMPUTED: &[&str] = &[
    "encode",
    "expandtabs",
    "format_map",
    "isascii",
    "isdecimal",
    "isidentifier",
    "isnumeric",
    "isprintable",
    "istitle",
    "maketrans",
    "translate",
    "fromkeys",
    "popitem",
    "difference_update",
    "intersection_update",
    "isdisjoint",
    "pop",
    "symmetric_difference",
    "symmetric_difference_update",
];

/// Whether `name` is a method CPython has on `receiver` that rangefinder
/// does not compute.
pub(crate) fn is_missing_method(receiver: &Value, name: &str) -> bool {
    matches!(
        receiver,
        Value::Str(_)
            | Value::List(_)
            | Value::Tuple(_)
            | Value::Dict(_)
            | Value::MutableDict(_)
            | Value::Set(_)
    ) && NOT_COMPUTED.contains(&name)
}

/// Whether `receiver.name(...)` is a method of this module.
pub(crate) fn is_python_method(receiver: &Value, name: &str) -> bool {
    method_name(receiver, name).is_some()
}

/// Calls the method `name` of a Python value.
pub(crate) fn call(
    interp: &mut Interpreter,
    receiver: &Value,
    name: &'static str,
    args: Args,
) -> Eval<Value> {
    if name == "__getitem__" {
        let (given, span) = args.positional_only("__getitem__")?;
        let [index] = &given[..] else {
            return Err(type_error(
                span,
                format!("__getitem__ expected 1 argument, got {}", given.len()),
            ));
        };
        return interp.subscript(receiver, &index.value, index.span.clone(), span);
    }
    match receiver {
        Value::Str(s) if name == "format" => str_format(interp, s, args),
        Value::Str(s) => str_method(s, name, args),
        Value::List(items) => list_method(interp, items, name, args),
        Value::Tuple(items) => sequence_method(items, "tuple", name, args),
        Value::Dict(_) | Value::MutableDict(_) => dict_method(receiver, name, args),
        Value::Set(items) => set_method(items, name, args),
        Value::Host(_) => match crate::value::script_value(receiver) {
            Some(ScriptValue::RePattern(p)) => crate::pyre::pattern_method(interp, p, name, args),
            Some(ScriptValue::ReMatch(m)) => crate::pyre::match_method(m, name, args),
            Some(ScriptValue::NdArray(a)) => crate::pynumpy::method(a, name, args),
            _ => Err(Raised::at(
                args.span,
                format!("a {} has no method `{name}`", receiver.type_name()),
            )),
        },
        other => Err(Raised::at(
            args.span,
            format!("a {} has no method `{name}`", other.type_name()),
        )),
    }
}

fn string_arg(a: &Spanned, what: &str) -> Eval<Rc<str>> {
    match &a.value {
        Value::Str(s) => Ok(s.clone()),
        other => Err(type_error(
            a.span.clone(),
            format!("{what} must be str, not {}", other.type_name()),
        )),
    }
}

fn optional_string(a: Option<&Spanned>, what: &str) -> Eval<Option<Rc<str>>> {
    match a {
        None => Ok(None),
        Some(Spanned {
            value: Value::None, ..
        }) => Ok(None),
        Some(a) => string_arg(a, what).map(Some),
    }
}

pub(crate) fn int_arg(a: &Spanned) -> Eval<i64> {
    as_int(&a.value).ok_or_else(|| {
        type_error(
            a.span.clone(),
            format!(
                "'{}' object cannot be interpreted as an integer",
                a.value.type_name()
            ),
        )
    })
}

/// The longest text a padding method may build.
const MAX_WIDTH: i64 = 10_000_000;

/// A padding width: negative is no padding, too wide is an error.
fn width_arg(a: &Spanned) -> Eval<usize> {
    let w = int_arg(a)?;
    if w > MAX_WIDTH {
        return Err(Raised::at(
            a.span.clone(),
            format!("a width over {MAX_WIDTH} characters is too wide for a script"),
        ));
    }
    Ok(usize::try_from(w).unwrap_or(0))
}

fn str_list(items: impl IntoIterator<Item = String>) -> Value {
    Value::list(items.into_iter().map(|s| Value::str(&s)).collect())
}

fn str_method(s: &Rc<str>, name: &'static str, args: Args) -> Eval<Value> {
    let text: &str = s;
    Ok(match name {
        "join" => {
            let (pos, _) = positional(args, name, 1, 1)?;
            let items = collections::iterate_or_raise(&pos[0].value, pos[0].span.clone())?;
            let mut parts = Vec::with_capacity(items.len());
            let mut len = 0usize;
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::Str(p) => {
                        len = len.saturating_add(p.len()).saturating_add(text.len());
                        budget::check_len(Some(len), "`join` would build", pos[0].span.clone())?;
                        parts.push(p.to_string())
                    }
                    other => {
                        return Err(type_error(
                            pos[0].span.clone(),
                            format!(
                                "sequence item {i}: expected str instance, {} found",
                                other.type_name()
                            ),
                        ))
                    }
                }
            }
            Value::str(&parts.join(text))
        }
        "split" | "rsplit" => {
            let a = args.bind(name, &["sep", "maxsplit"])?;
            let sep = optional_string(a.get("sep"), "sep")?;
            let max = match a.get("maxsplit") {
                Some(m) => int_arg(m)?,
                None => -1,
            };
            let max = usize::try_from(max).ok();
            let parts: Vec<String> = match (&sep, name == "split") {
                (Some(sep), _) if sep.is_empty() => {
                    return Err(Raised::python(
                        ErrorClass::ValueError,
                        a.span.clone(),
                        "empty separator",
                    ))
                }
                (Some(sep), true) => match max {
                    Some(m) => text.splitn(m + 1, &**sep).map(String::from).collect(),
                    None => text.split(&**sep).map(String::from).collect(),
                },
                (Some(sep), false) => {
                    let mut v: Vec<String> = match max {
                        Some(m) => text.rsplitn(m + 1, &**sep).map(String::from).collect(),
                        None => text.rsplit(&**sep).map(String::from).collect(),
                    };
                    v.reverse();
                    v
                }
                (None, forward) => split_whitespace(text, max, forward),
            };
            str_list(parts)
        }
        "startswith" | "endswith" => {
            let (pos, _) = positional(args, name, 1, 1)?;
            let candidates = match &pos[0].value {
                Value::Tuple(items) => items.to_vec(),
                other => vec![other.clone()],
            };
            let mut hit = false;
            for c in &candidates {
                let Value::Str(c) = c else {
                    return Err(type_error(
                        pos[0].span.clone(),
                        format!(
                            "{name} first arg must be str or a tuple of str, not {}",
                            c.type_name()
                        ),
                    ));
                };
                hit |= if name == "startswith" {
                    text.starts_with(&**c)
                } else {
                    text.ends_with(&**c)
                };
            }
            Value::Bool(hit)
        }
        "replace" => {
            let (pos, _) = positional(args, name, 2, 3)?;
            let old = string_arg(&pos[0], "replace() argument 1")?;
            let new = string_arg(&pos[1], "replace() argument 2")?;
            let count = match pos.get(2) {
                Some(c) => int_arg(c)?,
                None => -1,
            };
            // At most one replacement per character, and one more.
            let most = text.chars().count().saturating_add(1);
            let replaced = usize::try_from(count).map_or(most, |n| n.min(most));
            if new.len() > old.len() {
                let grows = replaced.saturating_mul(new.len() - old.len());
                budget::check_sum(
                    text.len(),
                    grows,
                    "`replace` may build",
                    pos[1].span.clone(),
                )?;
            }
            Value::str(&match usize::try_from(count) {
                Ok(n) => text.replacen(&*old, &new, n),
                Err(_) => text.replace(&*old, &new),
            })
        }
        "removeprefix" | "removesuffix" | "partition" | "rpartition" | "rindex" => {
            let (pos, span) = positional(args, name, 1, 1)?;
            let arg = string_arg(&pos[0], "must be str")?;
            let a: &str = &arg;
            match name {
                "removeprefix" => Value::str(text.strip_prefix(a).unwrap_or(text)),
                "removesuffix" => Value::str(text.strip_suffix(a).unwrap_or(text)),
                "rindex" => match text.rfind(a) {
                    Some(b) => Value::Int(text[..b].chars().count() as i64),
                    None => {
                        return Err(Raised::python(
                            ErrorClass::ValueError,
                            span,
                            "substring not found",
                        ))
                    }
                },
                _ => {
                    if a.is_empty() {
                        return Err(Raised::python(
                            ErrorClass::ValueError,
                            span,
                            "empty separator",
                        ));
                    }
                    let at = if name == "partition" {
                        text.find(a)
                    } else {
                        text.rfind(a)
                    };
                    let parts = match (at, name == "partition") {
                        (Some(b), _) => [&text[..b], a, &text[b + a.len()..]],
                        (None, true) => [text, "", ""],
                        (None, false) => ["", "", text],
                    };
                    Value::tuple(parts.iter().map(|p| Value::str(p)).collect())
                }
            }
        }
        "isspace" | "casefold" | "swapcase" => {
            positional(args, name, 0, 0)?;
            match name {
                "isspace" => Value::Bool(!text.is_empty() && text.chars().all(char::is_whitespace)),
                "casefold" => Value::str(&text.to_lowercase()),
                _ => Value::str(
                    &text
                        .chars()
                        .flat_map(|c| -> Vec<char> {
                            if c.is_uppercase() {
                                c.to_lowercase().collect()
                            } else {
                                c.to_uppercase().collect()
                            }
                        })
                        .collect::<String>(),
                ),
            }
        }
        "upper" | "lower" | "capitalize" | "title" | "isdigit" | "isalpha" | "isalnum"
        | "isupper" | "islower" | "splitlines" => {
            positional(args, name, 0, 0)?;
            match name {
                "upper" => Value::str(&text.to_uppercase()),
                "lower" => Value::str(&text.to_lowercase()),
                "capitalize" => {
                    let mut cs = text.chars();
                    let first: String = cs
                        .next()
                        .map(|c| c.to_uppercase().collect())
                        .unwrap_or_default();
                    Value::str(&format!("{first}{}", cs.as_str().to_lowercase()))
                }
                "title" => {
                    let mut out = String::new();
                    let mut prev_cased = false;
                    for c in text.chars() {
                        if prev_cased {
                            out.extend(c.to_lowercase());
                        } else {
                            out.extend(c.to_uppercase());
                        }
                        prev_cased = c.is_alphabetic();
                    }
                    Value::str(&out)
                }
                "isdigit" => {
                    Value::Bool(!text.is_empty() && text.chars().all(|c| c.is_ascii_digit()))
                }
                "isalpha" => Value::Bool(!text.is_empty() && text.chars().all(char::is_alphabetic)),
                "isalnum" => {
                    Value::Bool(!text.is_empty() && text.chars().all(char::is_alphanumeric))
                }
                "isupper" => Value::Bool(
                    text.chars().any(char::is_uppercase) && !text.chars().any(char::is_lowercase),
                ),
                "islower" => Value::Bool(
                    text.chars().any(char::is_lowercase) && !text.chars().any(char::is_uppercase),
                ),
                _ => str_list(text.lines().map(String::from)),
            }
        }
        "strip" | "lstrip" | "rstrip" => {
            let (pos, _) = positional(args, name, 0, 1)?;
            let chars = optional_string(pos.first(), "strip arg")?;
            let matches = |c: char| match &chars {
                Some(set) => set.contains(c),
                None => c.is_whitespace(),
            };
            Value::str(match name {
                "strip" => text.trim_matches(matches),
                "lstrip" => text.trim_start_matches(matches),
                _ => text.trim_end_matches(matches),
            })
        }
        "find" | "rfind" | "index" | "count" => {
            let (pos, span) = positional(args, name, 1, 1)?;
            let sub = string_arg(&pos[0], "must be str")?;
            if name == "count" {
                let n = if sub.is_empty() {
                    text.chars().count() + 1
                } else {
                    text.matches(&*sub).count()
                };
                return Ok(Value::Int(n as i64));
            }
            let at = if name == "rfind" {
                text.rfind(&*sub)
            } else {
                text.find(&*sub)
            };
            match at {
                // Python counts characters, not bytes.
                Some(b) => Value::Int(text[..b].chars().count() as i64),
                None if name == "index" => {
                    return Err(Raised::python(
                        ErrorClass::ValueError,
                        span,
                        "substring not found",
                    ))
                }
                None => Value::Int(-1),
            }
        }
        "zfill" => {
            let (pos, _) = positional(args, name, 1, 1)?;
            let width = width_arg(&pos[0])?;
            let len = text.chars().count();
            if len >= width {
                Value::Str(s.clone())
            } else {
                let zeros = "0".repeat(width - len);
                match text.strip_prefix(['+', '-']) {
                    Some(rest) => Value::str(&format!("{}{zeros}{rest}", &text[..1])),
                    None => Value::str(&format!("{zeros}{text}")),
                }
            }
        }
        "ljust" | "rjust" | "center" => {
            let (pos, span) = positional(args, name, 1, 2)?;
            let width = width_arg(&pos[0])?;
            let fill = match pos.get(1) {
                Some(f) => {
                    let f = string_arg(f, "fill character")?;
                    let mut cs = f.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => c,
                        _ => {
                            return Err(type_error(
                                span,
                                "The fill character must be exactly one character long",
                            ))
                        }
                    }
                }
                None => ' ',
            };
            let len = text.chars().count();
            let missing = width.saturating_sub(len);
            let fill_text = |n: usize| fill.to_string().repeat(n);
            Value::str(&match name {
                "ljust" => format!("{text}{}", fill_text(missing)),
                "rjust" => format!("{}{text}", fill_text(missing)),
                _ => {
                    // CPython puts the odd fill character on the left when
                    // the width is odd.
                    let left = missing / 2 + (missing & width & 1);
                    format!("{}{text}{}", fill_text(left), fill_text(missing - left))
                }
            })
        }
        _ => {
            return Err(Raised::at(
                args.span,
                format!("`str.{name}` is not supported"),
            ))
        }
    })
}

/// `str.split()` without a separator, as CPython splits: runs of
/// whitespace separate; after `max` splits the rest is one item, with its
/// whitespace on the far side kept.
fn split_whitespace(text: &str, max: Option<usize>, forward: bool) -> Vec<String> {
    let chars: Vec<char> = if forward {
        text.chars().collect()
    } else {
        text.chars().rev().collect()
    };
    let n = chars.len();
    let word = |from: usize, to: usize| -> String {
        if forward {
            chars[from..to].iter().collect()
        } else {
            chars[from..to].iter().rev().collect()
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    let mut left = max.unwrap_or(usize::MAX);
    while left > 0 {
        while i < n && chars[i].is_whitespace() {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        while i < n && !chars[i].is_whitespace() {
            i += 1;
        }
        out.push(word(start, i));
        left -= 1;
    }
    while i < n && chars[i].is_whitespace() {
        i += 1;
    }
    if i < n {
        out.push(word(i, n));
    }
    if !forward {
        out.reverse();
    }
    out
}

/// `fmt.format(*args, **kwargs)`.
fn str_format(interp: &mut Interpreter, fmt: &str, args: Args) -> Eval<Value> {
    let span = args.span.clone();
    let value_error = |m: String| Raised::python(ErrorClass::ValueError, span.clone(), m);
    let pieces = pyformat::parse_template(fmt).map_err(value_error)?;
    let mut out = String::new();
    let mut next = 0;
    let mut numbered = false;
    for piece in pieces {
        let field = match piece {
            pyformat::Piece::Text(t) => {
                budget::push_text(&mut out, &t, "`format` would build", span.clone())?;
                continue;
            }
            pyformat::Piece::Field(f) => f,
        };
        let mut value = match &field.name {
            pyformat::FieldName::Next | pyformat::FieldName::Index(_) => {
                let i = match field.name {
                    pyformat::FieldName::Index(i) => {
                        numbered = true;
                        i
                    }
                    _ => {
                        next += 1;
                        next - 1
                    }
                };
                if numbered && next > 0 {
                    return Err(value_error(
                        "cannot switch between automatic field numbering and manual field \
                         specification"
                            .into(),
                    ));
                }
                args.positional
                    .get(i)
                    .map(|a| a.value.clone())
                    .ok_or_else(|| {
                        Raised::python(
                            ErrorClass::IndexError,
                            span.clone(),
                            format!("Replacement index {i} out of range for positional args tuple"),
                        )
                    })?
            }
            pyformat::FieldName::Keyword(k) => args
                .keywords
                .iter()
                .find(|(name, _)| name == k)
                .map(|(_, a)| a.value.clone())
                .ok_or_else(|| {
                    Raised::python(ErrorClass::KeyError, span.clone(), pyformat::str_repr(k))
                })?,
        };
        for accessor in &field.accessors {
            value = match accessor {
                pyformat::Accessor::Attribute(name) => {
                    interp.attribute(&value, name, span.clone())?
                }
                pyformat::Accessor::Item(key) => {
                    interp.subscript(&value, key, span.clone(), span.clone())?
                }
            };
        }
        // A spec may itself hold replacement fields (`{:{width}}`).
        let spec = if field.spec.contains('{') {
            let inner = Args {
                positional: args.positional.clone(),
                keywords: args.keywords.clone(),
                span: span.clone(),
            };
            match str_format(interp, &field.spec, inner)? {
                Value::Str(s) => s.to_string(),
                _ => String::new(),
            }
        } else {
            field.spec.clone()
        };
        let part = pyformat::convert_and_format(&value, field.conversion, &spec, span.clone())?;
        budget::push_text(&mut out, &part, "`format` would build", span.clone())?;
    }
    Ok(Value::str(&out))
}

fn sequence_method(items: &[Value], type_name: &str, name: &str, args: Args) -> Eval<Value> {
    let (pos, span) = positional(args, name, 1, 1)?;
    let x = &pos[0].value;
    match name {
        "count" => {
            let n = items.iter().filter(|i| py_eq(i, x)).count();
            check_depth(span)?;
            Ok(Value::Int(n as i64))
        }
        _ => {
            let at = items.iter().position(|i| py_eq(i, x));
            check_depth(span.clone())?;
            match at {
                Some(i) => Ok(Value::Int(i as i64)),
                None => Err(Raised::python(
                    ErrorClass::ValueError,
                    span,
                    format!("{type_name}.index(x): x not in {type_name}"),
                )),
            }
        }
    }
}

fn list_method(
    interp: &mut Interpreter,
    items: &Rc<RefCell<Vec<Value>>>,
    name: &'static str,
    args: Args,
) -> Eval<Value> {
    match name {
        "append" => {
            let (mut pos, _) = positional(args, name, 1, 1)?;
            items.borrow_mut().push(pos.remove(0).value);
        }
        "extend" => {
            let (pos, _) = positional(args, name, 1, 1)?;
            let more = collections::iterate_or_raise(&pos[0].value, pos[0].span.clone())?;
            let len = items.borrow().len();
            budget::check_sum(len, more.len(), "`extend` would build", pos[0].span.clone())?;
            items.borrow_mut().extend(more);
        }
        "insert" => {
            let (mut pos, _) = positional(args, name, 2, 2)?;
            let i = int_arg(&pos[0])?;
            let value = pos.remove(1).value;
            let mut items = items.borrow_mut();
            let len = items.len() as i64;
            let at = if i < 0 { (i + len).max(0) } else { i.min(len) };
            items.insert(at as usize, value);
        }
        "pop" => {
            let (pos, span) = positional(args, name, 0, 1)?;
            let i = match pos.first() {
                Some(a) => int_arg(a)?,
                None => -1,
            };
            let mut items = items.borrow_mut();
            if items.is_empty() {
                return Err(Raised::python(
                    ErrorClass::IndexError,
                    span,
                    "pop from empty list",
                ));
            }
            let at = collections::position(i, items.len(), "pop", span)?;
            return Ok(items.remove(at));
        }
        "remove" => {
            let (pos, span) = positional(args, name, 1, 1)?;
            let at = items.borrow().iter().position(|i| py_eq(i, &pos[0].value));
            check_depth(span.clone())?;
            match at {
                Some(at) => {
                    items.borrow_mut().remove(at);
                }
                None => {
                    return Err(Raised::python(
                        ErrorClass::ValueError,
                        span,
                        "list.remove(x): x not in list",
                    ))
                }
            }
        }
        "index" | "count" => {
            let snapshot = items.borrow().clone();
            return sequence_method(&snapshot, "list", name, args);
        }
        "sort" => {
            let a = args.bind("sort", &["key", "reverse"])?;
            let key = a.get("key").map(|k| k.value.clone());
            let reverse = match a.get("reverse") {
                Some(r) => interp.truthy(&r.value, r.span.clone())?,
                None => false,
            };
            let snapshot = items.borrow().clone();
            let sorted = sort_values(interp, snapshot, key.as_ref(), reverse, a.span.clone())?;
            *items.borrow_mut() = sorted;
        }
        "reverse" => {
            positional(args, name, 0, 0)?;
            items.borrow_mut().reverse();
        }
        "copy" => {
            positional(args, name, 0, 0)?;
            return Ok(Value::list(items.borrow().clone()));
        }
        "clear" => {
            positional(args, name, 0, 0)?;
            items.borrow_mut().clear();
        }
        _ => {
            return Err(Raised::at(
                args.span,
                format!("`list.{name}` is not supported"),
            ))
        }
    }
    Ok(Value::None)
}

/// Sorts `values` as Python's `sorted` does: stable, by `key(v)` when a
/// key is given, `reverse` keeping equal items in their order.
pub(crate) fn sort_values(
    interp: &mut Interpreter,
    values: Vec<Value>,
    key: Option<&Value>,
    reverse: bool,
    span: Range<usize>,
) -> Eval<Vec<Value>> {
    let mut keyed = Vec::with_capacity(values.len());
    for v in values {
        let k = match key {
            Some(Value::None) | None => v.clone(),
            Some(f) => interp.call_with(f, vec![v.clone()], span.clone())?,
        };
        keyed.push((k, v));
    }
    let less = |a: &Value, b: &Value| -> Eval<bool> {
        let order = collections::py_cmp(a, b);
        check_depth(span.clone())?;
        match order {
            Some(o) => Ok(o == std::cmp::Ordering::Less),
            None => match (a, b) {
                // NaN compares false with every number, as in Python.
                (Value::Float(_), Value::Float(_) | Value::Int(_) | Value::Bool(_))
                | (Value::Int(_) | Value::Bool(_), Value::Float(_)) => Ok(false),
                _ => Err(type_error(
                    span.clone(),
                    format!(
                        "'<' not supported between instances of '{}' and '{}'",
                        a.type_name(),
                        b.type_name()
                    ),
                )),
            },
        }
    };
    let sorted = merge_sort(keyed, &|x, y| {
        if reverse {
            less(&y.0, &x.0)
        } else {
            less(&x.0, &y.0)
        }
    })?;
    Ok(sorted.into_iter().map(|(_, v)| v).collect())
}

/// A stable merge sort with a comparison that may fail (Rust's own sorts
/// need a total order, which Python values do not promise).
fn merge_sort<T: Clone>(items: Vec<T>, less: &dyn Fn(&T, &T) -> Eval<bool>) -> Eval<Vec<T>> {
    if items.len() <= 1 {
        return Ok(items);
    }
    let mut right = items;
    let left = right.drain(..right.len() / 2).collect();
    let left = merge_sort(left, less)?;
    let right = merge_sort(right, less)?;
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        // Take from the right only when it is strictly smaller: stable.
        if less(&right[j], &left[i])? {
            out.push(right[j].clone());
            j += 1;
        } else {
            out.push(left[i].clone());
            i += 1;
        }
    }
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    Ok(out)
}

fn dict_method(receiver: &Value, name: &'static str, args: Args) -> Eval<Value> {
    let pairs = collections::dict_pairs(receiver).unwrap_or_default();
    let mutable = match receiver {
        Value::MutableDict(d) => Some(d),
        _ => None,
    };
    let frozen = |span: Range<usize>| {
        Raised::python(
            ErrorClass::TypeError,
            span,
            format!("this dict is a TVM Map, which cannot change (`{name}`)"),
        )
    };
    Ok(match name {
        "get" => {
            let (pos, _) = positional(args, name, 1, 2)?;
            check_hashable(&pos[0].value, pos[0].span.clone())?;
            dict_get(receiver, &pos[0].value, pos[0].span.clone())?
                .or_else(|| pos.get(1).map(|d| d.value.clone()))
                .unwrap_or(Value::None)
        }
        "items" => {
            positional(args, name, 0, 0)?;
            Value::list(
                pairs
                    .into_iter()
                    .map(|(k, v)| Value::tuple(vec![k, v]))
                    .collect(),
            )
        }
        "keys" => {
            positional(args, name, 0, 0)?;
            Value::list(pairs.into_iter().map(|(k, _)| k).collect())
        }
        "values" => {
            positional(args, name, 0, 0)?;
            Value::list(pairs.into_iter().map(|(_, v)| v).collect())
        }
        "copy" => {
            positional(args, name, 0, 0)?;
            Value::MutableDict(Rc::new(RefCell::new(pairs)))
        }
        "update" => {
            let d = mutable.ok_or_else(|| frozen(args.span.clone()))?;
            let (pos, span) = (args.positional, args.span);
            if pos.len() > 1 {
                return Err(type_error(span, "update expected at most 1 argument"));
            }
            if let Some(other) = pos.first() {
                for (k, v) in pairs_of(&other.value, other.span.clone())? {
                    dict_set(d, k, v, other.span.clone())?;
                }
            }
            for (k, v) in args.keywords {
                dict_set(d, Value::str(&k), v.value, span.clone())?;
            }
            Value::None
        }
        "setdefault" => {
            let d = mutable.ok_or_else(|| frozen(args.span.clone()))?;
            let (pos, _) = positional(args, name, 1, 2)?;
            match dict_get(receiver, &pos[0].value, pos[0].span.clone())? {
                Some(v) => v,
                None => {
                    let v = pos.get(1).map_or(Value::None, |d| d.value.clone());
                    dict_set(d, pos[0].value.clone(), v.clone(), pos[0].span.clone())?;
                    v
                }
            }
        }
        "pop" => {
            let d = mutable.ok_or_else(|| frozen(args.span.clone()))?;
            let (pos, span) = positional(args, name, 1, 2)?;
            let at = d.borrow().iter().position(|(k, _)| py_eq(k, &pos[0].value));
            check_depth(span.clone())?;
            match (at, pos.get(1)) {
                (Some(at), _) => d.borrow_mut().remove(at).1,
                (None, Some(default)) => default.value.clone(),
                (None, None) => {
                    return Err(Raised::python(
                        ErrorClass::KeyError,
                        span,
                        pyformat::repr(&pos[0].value),
                    ))
                }
            }
        }
        "clear" => {
            let d = mutable.ok_or_else(|| frozen(args.span.clone()))?;
            positional(args, name, 0, 0)?;
            d.borrow_mut().clear();
            Value::None
        }
        _ => {
            return Err(Raised::at(
                args.span,
                format!("`dict.{name}` is not supported"),
            ))
        }
    })
}

/// The pairs `dict(x)` and `d.update(x)` take: a dict's items, or an
/// iterable of two-item sequences.
pub(crate) fn pairs_of(v: &Value, span: Range<usize>) -> Eval<Vec<(Value, Value)>> {
    if let Some(pairs) = collections::dict_pairs(v) {
        return Ok(pairs);
    }
    let mut out = Vec::new();
    for (i, item) in collections::iterate_or_raise(v, span.clone())?
        .into_iter()
        .enumerate()
    {
        match collections::iterate(&item).as_deref() {
            Some([k, v]) => out.push((k.clone(), v.clone())),
            Some(other) => {
                return Err(Raised::python(
                    ErrorClass::ValueError,
                    span,
                    format!(
                        "dictionary update sequence element #{i} has length {}; 2 is required",
                        other.len()
                    ),
                ))
            }
            None => {
                return Err(type_error(
                    span,
                    format!("cannot convert dictionary update sequence element #{i} to a sequence"),
                ))
            }
        }
    }
    Ok(out)
}

fn set_method(items: &Rc<RefCell<Vec<Value>>>, name: &'static str, args: Args) -> Eval<Value> {
    let (pos, span) = args.positional_only(name)?;
    let one = |pos: &[Spanned]| -> Eval<Spanned> {
        match pos {
            [a] => Ok(a.clone()),
            _ => Err(type_error(
                span.clone(),
                format!(
                    "`set.{name}` takes exactly one argument ({} given)",
                    pos.len()
                ),
            )),
        }
    };
    let others = |pos: &[Spanned]| -> Eval<Vec<Vec<Value>>> {
        pos.iter()
            .map(|a| collections::iterate_or_raise(&a.value, a.span.clone()))
            .collect()
    };
    let current = items.borrow().clone();
    Ok(match name {
        "add" => {
            let a = one(&pos)?;
            set_add(items, a.value, a.span)?;
            Value::None
        }
        "update" => {
            for more in others(&pos)? {
                for v in more {
                    set_add(items, v, span.clone())?;
                }
            }
            Value::None
        }
        "discard" | "remove" => {
            let a = one(&pos)?;
            let at = current.iter().position(|v| py_eq(v, &a.value));
            check_depth(a.span.clone())?;
            match at {
                Some(at) => {
                    items.borrow_mut().remove(at);
                }
                None if name == "remove" => {
                    return Err(Raised::python(
                        ErrorClass::KeyError,
                        a.span,
                        pyformat::repr(&a.value),
                    ))
                }
                None => {}
            }
            Value::None
        }
        "union" => {
            let mut all = current;
            for more in others(&pos)? {
                all.extend(more);
            }
            collections::new_set(all, span)?
        }
        "intersection" | "difference" => {
            let others = others(&pos)?;
            let keep: Vec<Value> = current
                .into_iter()
                .filter(|v| {
                    let everywhere = others.iter().all(|o| o.iter().any(|x| py_eq(x, v)));
                    let anywhere = others.iter().any(|o| o.iter().any(|x| py_eq(x, v)));
                    if name == "intersection" {
                        everywhere
                    } else {
                        !anywhere
                    }
                })
                .collect();
            check_depth(span.clone())?;
            collections::new_set(keep, span)?
        }
        "issubset" | "issuperset" => {
            let other = others(&[one(&pos)?])?.remove(0);
            let (small, big) = if name == "issubset" {
                (&current, &other)
            } else {
                (&other, &current)
            };
            let all = small.iter().all(|v| big.iter().any(|x| py_eq(x, v)));
            check_depth(span.clone())?;
            Value::Bool(all)
        }
        "copy" => collections::new_set(current, span)?,
        "clear" => {
            items.borrow_mut().clear();
            Value::None
        }
        _ => return Err(Raised::at(span, format!("`set.{name}` is not supported"))),
    })
}
