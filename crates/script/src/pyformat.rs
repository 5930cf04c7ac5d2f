//! Python's text forms of values: `repr`, the shortest text of a float, the
//! format-spec mini-language (`format(v, spec)`, f-strings, `str.format`)
//! and `%` formatting, each as CPython writes them.

use crate::error::{Eval, Raised};
use crate::value::Value;
use std::ops::Range;
use tvm_api::ErrorClass;

/// Python's `repr(v)`.
pub(crate) use tvm_api::repr;

pub(crate) use tvm_api::text::{exponent_text, float_repr, non_finite, str_repr};

/// A parsed format specification:
/// `[[fill]align][sign][#][0][width][grouping][.precision][type]`.
#[derive(Clone, Debug, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse_spec(spec: &str) -> Result<Spec, String> {
    let c: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |ch: char| matches!(ch, '<' | '>' | '=' | '^');
    if c.len() >= 2 && is_align(c[1]) {
        s.fill = Some(c[0]);
        s.align = Some(c[1]);
        i = 2;
    } else if !c.is_empty() && is_align(c[0]) {
        s.align = Some(c[0]);
        i = 1;
    }
    if let Some(&ch @ ('+' | '-' | ' ')) = c.get(i) {
        s.sign = Some(ch);
        i += 1;
    }
    if c.get(i) == Some(&'z') {
        i += 1;
    }
    if c.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if c.get(i) == Some(&'0') {
        s.zero = true;
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while c.get(*i).is_some_and(|ch| ch.is_ascii_digit()) {
            *i += 1;
        }
        let text: String = c[start..*i].iter().collect();
        text.parse::<usize>().ok()
    };
    s.width = digits(&mut i).unwrap_or(0);
    if let Some(&ch @ (',' | '_')) = c.get(i) {
        s.grouping = Some(ch);
        i += 1;
    }
    if c.get(i) == Some(&'.') {
        i += 1;
        s.precision = Some(digits(&mut i).ok_or("Format specifier missing precision")?);
    }
    match &c[i..] {
        [] => {}
        [ty] => s.ty = Some(*ty),
        _ => return Err("Invalid format specifier".to_owned()),
    }
    Ok(s)
}

/// The widest padding and the longest precision a script may ask for.
const MAX_FORMAT_SIZE: usize = 10_000;

/// Refuses widths and precisions beyond [`MAX_FORMAT_SIZE`]: rangefinder's
/// limit, not a Python error, so no `except` catches it.
fn check_size(s: &Spec, span: Range<usize>) -> Eval<()> {
    if s.width > MAX_FORMAT_SIZE || s.precision.is_some_and(|p| p > MAX_FORMAT_SIZE) {
        return Err(Raised::at(
            span,
            format!("a format width or precision over {MAX_FORMAT_SIZE} is too large for a script"),
        ));
    }
    Ok(())
}

/// Python's `format(v, spec)`, which f-strings and `str.format` use.
pub(crate) fn format_value(v: &Value, spec: &str, span: Range<usize>) -> Eval<String> {
    let err = |m: String| Raised::python(ErrorClass::ValueError, span.clone(), m);
    if spec.is_empty() {
        return Ok(v.to_string());
    }
    let mut s = parse_spec(spec).map_err(err)?;
    check_size(&s, span.clone())?;
    if let Some(sep) = s.grouping {
        let ty = match (v, s.ty) {
            (Value::Str(_), None) => Some('s'),
            (_, ty) => ty,
        };
        let refused = matches!(
            (sep, ty),
            (',', Some('n' | 'x' | 'X' | 'o' | 'b' | 'c' | 's')) | ('_', Some('n' | 'c' | 's'))
        );
        if let Some(ty) = ty.filter(|_| refused) {
            return Err(err(format!("Cannot specify '{sep}' with '{ty}'.")));
        }
    }
    let unknown = |ty: char| {
        Raised::python(
            ErrorClass::ValueError,
            span.clone(),
            format!(
                "Unknown format code '{ty}' for object of type '{}'",
                v.type_name()
            ),
        )
    };
    match v {
        Value::Str(text) => {
            if let Some(ty) = s.ty.filter(|t| *t != 's') {
                return Err(unknown(ty));
            }
            if s.sign.is_some() {
                return Err(err("Sign not allowed in string format specifier".into()));
            }
            if s.align == Some('=') {
                return Err(err(
                    "'=' alignment not allowed in string format specifier".into()
                ));
            }
            if s.alternate {
                return Err(err(
                    "Alternate form (#) not allowed in string format specifier".into(),
                ));
            }
            if s.zero && s.fill.is_none() && s.align.is_none() {
                // `0` pads a string with zeros on the right.
                s.fill = Some('0');
                s.align = Some('<');
            }
            let body: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text.to_string(),
            };
            Ok(pad("", &body, &s, '<'))
        }
        Value::Int(_) | Value::Bool(_) => {
            let i = crate::operators::as_int(v).unwrap_or(0);
            let integer_type = matches!(s.ty, None | Some('d' | 'x' | 'X' | 'o' | 'b' | 'c' | 'n'));
            if integer_type && s.precision.is_some() {
                return Err(err(
                    "Precision not allowed in integer format specifier".into()
                ));
            }
            if s.ty == Some('c') && s.sign.is_some() {
                return Err(err(
                    "Sign not allowed with integer format specifier 'c'".into()
                ));
            }
            if s.ty == Some('c') && s.alternate {
                return Err(err(
                    "Alternate form (#) not allowed with integer format specifier 'c'".into(),
                ));
            }
            format_int(i, &s).map_err(&unknown)
        }
        Value::Float(f) => format_float(*f, &s).map_err(unknown),
        _ => Err(Raised::python(
            ErrorClass::TypeError,
            span,
            format!(
                "unsupported format string passed to {}.__format__",
                v.type_name()
            ),
        )),
    }
}

/// Formats an integer; `Err(type)` for a type code ints do not take.
fn format_int(i: i64, s: &Spec) -> Result<String, char> {
    let neg = i < 0;
    let magnitude = i.unsigned_abs();
    let (prefix, body) = match s.ty {
        None | Some('d') | Some('n') => ("", magnitude.to_string()),
        Some('x') => ("0x", format!("{magnitude:x}")),
        Some('X') => ("0X", format!("{magnitude:X}")),
        Some('o') => ("0o", format!("{magnitude:o}")),
        Some('b') => ("0b", format!("{magnitude:b}")),
        Some('c') => {
            let ch = u32::try_from(i).ok().and_then(char::from_u32).ok_or('c')?;
            return Ok(pad("", &ch.to_string(), s, '<'));
        }
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => return format_float(i as f64, s),
        Some(other) => return Err(other),
    };
    let prefix = if s.alternate { prefix } else { "" };
    let every = if matches!(s.ty, Some('x' | 'X' | 'o' | 'b')) {
        4
    } else {
        3
    };
    let sign = format!("{}{prefix}", sign_text(neg, s));
    let body = group_padded(&body, "", s, every, sign.chars().count());
    Ok(pad(&sign, &body, s, '>'))
}

/// Formats a float; `Err(type)` for a type code floats do not take.
fn format_float(f: f64, s: &Spec) -> Result<String, char> {
    let ty = s.ty;
    let upper = matches!(ty, Some('E' | 'F' | 'G'));
    let neg = f.is_sign_negative() && !f.is_nan();
    let x = f.abs();
    let body = if let Some(special) = non_finite(x, upper) {
        if ty == Some('%') {
            format!("{special}%")
        } else {
            special
        }
    } else {
        match ty {
            Some('f' | 'F') => fixed(x, s.precision.unwrap_or(6), s.alternate),
            Some('e' | 'E') => scientific(x, s.precision.unwrap_or(6), upper, s.alternate),
            Some('g' | 'G') => general(x, s.precision.unwrap_or(6), upper, s.alternate, false),
            Some('%') => format!(
                "{}%",
                fixed(x * 100.0, s.precision.unwrap_or(6), s.alternate)
            ),
            Some('n') => general(x, s.precision.unwrap_or(6), false, s.alternate, false),
            None => match s.precision {
                Some(p) => general(x, p, false, s.alternate, true),
                // `#` keeps the point even in `1.e+22`.
                None => match float_repr(x) {
                    r if s.alternate && !r.contains('.') => r.replacen('e', ".e", 1),
                    r => r,
                },
            },
            Some(other) => return Err(other),
        }
    };
    let sign = sign_text(neg, s);
    let body = match body.find(['.', 'e', 'E', '%']) {
        _ if !body.as_bytes()[0].is_ascii_digit() => body,
        Some(at) => group_padded(&body[..at], &body[at..], s, 3, sign.len()),
        None => group_padded(&body, "", s, 3, sign.len()),
    };
    Ok(pad(&sign, &body, s, '>'))
}

fn fixed(x: f64, precision: usize, alternate: bool) -> String {
    let text = format!("{x:.precision$}");
    if alternate && precision == 0 {
        format!("{text}.")
    } else {
        text
    }
}

fn scientific(x: f64, precision: usize, upper: bool, alternate: bool) -> String {
    let text = format!("{x:.precision$e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let dot = if alternate && precision == 0 { "." } else { "" };
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mantissa}{dot}{}",
        exponent_text(exp.parse().unwrap_or(0), e)
    )
}

/// The `g` type; `no_type` is the float format with a precision and no
/// type, which keeps a digit after the point and switches to scientific
/// notation one exponent earlier.
fn general(x: f64, precision: usize, upper: bool, alternate: bool, no_type: bool) -> String {
    let p = precision.max(1);
    let exp = if x == 0.0 {
        0
    } else {
        let text = format!("{:.*e}", p - 1, x);
        text.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let limit = if no_type { p as i64 - 1 } else { p as i64 };
    let sci = exp < -4 || exp >= limit;
    let mut text = if sci {
        scientific(x, p - 1, upper, alternate)
    } else {
        fixed(x, (p as i64 - 1 - exp).max(0) as usize, alternate)
    };
    if !alternate {
        let (mantissa, rest) = match text.find(['e', 'E']) {
            Some(at) => text.split_at(at),
            None => (text.as_str(), ""),
        };
        let mut mantissa = mantissa.to_owned();
        if mantissa.contains('.') {
            while mantissa.ends_with('0') {
                mantissa.pop();
            }
            if mantissa.ends_with('.') {
                mantissa.pop();
            }
        }
        if no_type && !sci && !mantissa.contains('.') {
            mantissa.push_str(".0");
        }
        text = format!("{mantissa}{rest}");
    }
    text
}

fn sign_text(neg: bool, s: &Spec) -> String {
    match (neg, s.sign) {
        (true, _) => "-".to_owned(),
        (false, Some('+')) => "+".to_owned(),
        (false, Some(' ')) => " ".to_owned(),
        _ => String::new(),
    }
}

/// The integer digits `digits` grouped by the spec's separator, then
/// `rest`. Zero padding (the `0` flag) with a separator pads inside the
/// grouping, as CPython does (`format(100, "010_")` is `00_000_100`), to
/// the width left after `taken` characters of sign and prefix.
fn group_padded(digits: &str, rest: &str, s: &Spec, every: usize, taken: usize) -> String {
    if s.grouping.is_none() || fill_and_align(s, '>') != ('0', '=') {
        return format!("{}{rest}", group(digits, s.grouping, every));
    }
    let needed = s.width.saturating_sub(taken + rest.chars().count());
    let mut n = digits.len();
    while n + (n.max(1) - 1) / every < needed {
        n += 1;
    }
    let padded = format!("{}{digits}", "0".repeat(n - digits.len()));
    format!("{}{rest}", group(&padded, s.grouping, every))
}

/// The fill character and alignment a spec pads with: the `0` flag fills
/// with zeros unless a fill is given, and aligns after the sign unless an
/// alignment is given.
fn fill_and_align(s: &Spec, default: char) -> (char, char) {
    let fill = s.fill.unwrap_or(if s.zero { '0' } else { ' ' });
    let align = s.align.unwrap_or(if s.zero && default == '>' {
        '='
    } else {
        default
    });
    (fill, align)
}

/// Inserts `sep` every `every` digits from the right of `digits`.
fn group(digits: &str, sep: Option<char>, every: usize) -> String {
    let Some(sep) = sep else {
        return digits.to_owned();
    };
    let chars: Vec<char> = digits.chars().collect();
    let mut out = String::new();
    for (i, ch) in chars.iter().enumerate() {
        if i > 0 && (chars.len() - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(*ch);
    }
    out
}

/// Pads `sign` + `body` to the spec's width with its fill and alignment
/// (`default` when the spec names none); `=` pads between sign and digits.
fn pad(sign: &str, body: &str, s: &Spec, default: char) -> String {
    let (fill, align) = fill_and_align(s, default);
    let len = sign.chars().count() + body.chars().count();
    let missing = s.width.saturating_sub(len);
    let fill_text = |n: usize| fill.to_string().repeat(n);
    match align {
        '<' => format!("{sign}{body}{}", fill_text(missing)),
        '^' => format!(
            "{}{sign}{body}{}",
            fill_text(missing / 2),
            fill_text(missing - missing / 2)
        ),
        '=' => format!("{sign}{}{body}", fill_text(missing)),
        _ => format!("{}{sign}{body}", fill_text(missing)),
    }
}

/// `fmt % args`: printf-style formatting of a string.
pub(crate) fn percent(fmt: &str, args: &Value, span: Range<usize>) -> Eval<String> {
    let type_error = |m: String| Raised::python(ErrorClass::TypeError, span.clone(), m);
    let value_error = |m: String| Raised::python(ErrorClass::ValueError, span.clone(), m);
    let mapping = match args {
        Value::Dict(_) | Value::MutableDict(_) => Some(args),
        _ => None,
    };
    let positional: Vec<Value> = match args {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let mut next = 0;
    let mut used_mapping = false;
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut key = None;
        if chars.get(i) == Some(&'(') {
            let start = i + 1;
            let Some(len) = chars[start..].iter().position(|c| *c == ')') else {
                return Err(value_error("incomplete format key".into()));
            };
            key = Some(chars[start..start + len].iter().collect::<String>());
            i = start + len + 1;
        }
        let mut s = Spec::default();
        let mut left = false;
        while let Some(&flag @ ('-' | '+' | ' ' | '#' | '0')) = chars.get(i) {
            match flag {
                '-' => left = true,
                '+' => s.sign = Some('+'),
                ' ' if s.sign.is_none() => s.sign = Some(' '),
                '#' => s.alternate = true,
                '0' => s.zero = true,
                _ => {}
            }
            i += 1;
        }
        let number = |i: &mut usize| -> Eval<Option<usize>> {
            if chars.get(*i) == Some(&'*') {
                return Err(Raised::at(
                    span.clone(),
                    "`*` widths and precisions in `%` formats are not supported; write the number",
                ));
            }
            let start = *i;
            while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
                *i += 1;
            }
            let text: String = chars[start..*i].iter().collect();
            Ok(text.parse().ok())
        };
        s.width = number(&mut i)?.unwrap_or(0);
        if chars.get(i) == Some(&'.') {
            i += 1;
            s.precision = Some(number(&mut i)?.unwrap_or(0));
        }
        check_size(&s, span.clone())?;
        while matches!(chars.get(i), Some('h' | 'l' | 'L')) {
            i += 1;
        }
        let Some(&ty) = chars.get(i) else {
            return Err(value_error("incomplete format".into()));
        };
        i += 1;
        if ty == '%' {
            out.push('%');
            continue;
        }
        let value = match (&key, mapping) {
            (Some(k), Some(map)) => {
                used_mapping = true;
                crate::collections::dict_get(map, &Value::str(k), span.clone())?.ok_or_else(
                    || Raised::python(ErrorClass::KeyError, span.clone(), str_repr(k)),
                )?
            }
            (Some(_), None) => return Err(type_error("format requires a mapping".into())),
            (None, _) => {
                let v = positional
                    .get(next)
                    .cloned()
                    .ok_or_else(|| type_error("not enough arguments for format string".into()))?;
                next += 1;
                v
            }
        };
        if left {
            s.align = Some('<');
            s.zero = false;
        }
        let part = percent_one(ty, &value, &mut s)
            .map_err(|(class, m)| Raised::python(class, span.clone(), m))?;
        crate::budget::push_text(&mut out, &part, "`%` would build", span.clone())?;
    }
    if !used_mapping && next < positional.len() && !(mapping.is_some() && next == 0) {
        return Err(type_error(
            "not all arguments converted during string formatting".into(),
        ));
    }
    Ok(out)
}

/// One `%` conversion of `value`.
fn percent_one(ty: char, value: &Value, s: &mut Spec) -> Result<String, (ErrorClass, String)> {
    let type_error = |m: String| (ErrorClass::TypeError, m);
    match ty {
        's' | 'r' | 'a' => {
            let text = if ty == 's' {
                value.to_string()
            } else {
                repr(value)
            };
            let text: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text,
            };
            s.zero = false;
            s.sign = None;
            Ok(pad("", &text, s, '>'))
        }
        'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
            // The sign and the digits of the magnitude: a float's integer
            // part is written exactly, however large (Python's ints are).
            let (neg, prefix, digits) = match value {
                Value::Int(_) | Value::Bool(_) => {
                    let i = crate::operators::as_int(value).unwrap_or(0);
                    let m = i.unsigned_abs();
                    let (prefix, digits) = match ty {
                        'x' => ("0x", format!("{m:x}")),
                        'X' => ("0X", format!("{m:X}")),
                        'o' => ("0o", format!("{m:o}")),
                        _ => ("", m.to_string()),
                    };
                    (i < 0, prefix, digits)
                }
                Value::Float(f) if matches!(ty, 'd' | 'i' | 'u') => {
                    if f.is_nan() {
                        return Err((
                            ErrorClass::ValueError,
                            "cannot convert float NaN to integer".into(),
                        ));
                    }
                    if f.is_infinite() {
                        return Err((
                            ErrorClass::OverflowError,
                            "cannot convert float infinity to integer".into(),
                        ));
                    }
                    let t = f.trunc();
                    (t < 0.0, "", format!("{:.0}", t.abs()))
                }
                other => {
                    let needs = if matches!(ty, 'd' | 'i' | 'u') {
                        "a real number"
                    } else {
                        "an integer"
                    };
                    return Err(type_error(format!(
                        "%{ty} format: {needs} is required, not {}",
                        other.type_name()
                    )));
                }
            };
            let prefix = if s.alternate { prefix } else { "" };
            // `%.3d` pads the digits with zeros to the precision.
            let digits = match s.precision {
                Some(p) if p > digits.len() => format!("{}{digits}", "0".repeat(p - digits.len())),
                _ => digits,
            };
            Ok(pad(
                &format!("{}{prefix}", sign_text(neg, s)),
                &digits,
                s,
                '>',
            ))
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let f = match value {
                Value::Float(f) => *f,
                Value::Int(_) | Value::Bool(_) => {
                    crate::operators::as_int(value).unwrap_or(0) as f64
                }
                other => {
                    return Err(type_error(format!(
                        "must be real number, not {}",
                        other.type_name()
                    )))
                }
            };
            s.ty = Some(ty);
            if s.precision.is_none() {
                s.precision = Some(6);
            }
            format_float(f, s)
                .map_err(|c| type_error(format!("unsupported format character '{c}'")))
        }
        'c' => {
            let ch = match value {
                Value::Int(i) => u32::try_from(*i).ok().and_then(char::from_u32),
                Value::Str(t) if t.chars().count() == 1 => t.chars().next(),
                _ => None,
            }
            .ok_or_else(|| type_error("%c requires an int or a unicode character".into()))?;
            s.zero = false;
            Ok(pad("", &ch.to_string(), s, '>'))
        }
        other => Err((
            ErrorClass::ValueError,
            format!("unsupported format character '{other}'"),
        )),
    }
}

/// A replacement field of `str.format`: what to format and how.
pub(crate) struct Field {
    /// `None`: the next positional argument.
    pub name: FieldName,
    /// `[key]` and `.attr` lookups after the name.
    pub accessors: Vec<Accessor>,
    pub conversion: Option<char>,
    pub spec: String,
}

/// The first part of a replacement field.
pub(crate) enum FieldName {
    Next,
    Index(usize),
    Keyword(String),
}

/// `[key]` or `.name` after a field name.
pub(crate) enum Accessor {
    Item(Value),
    Attribute(String),
}

/// A `str.format` template: literal text and fields, in order.
pub(crate) enum Piece {
    Text(String),
    Field(Field),
}

/// Splits a `str.format` template into text and replacement fields.
pub(crate) fn parse_template(fmt: &str) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' if chars.get(i + 1) == Some(&'{') => {
                text.push('{');
                i += 2;
            }
            '}' if chars.get(i + 1) == Some(&'}') => {
                text.push('}');
                i += 2;
            }
            '}' => return Err("Single '}' encountered in format string".into()),
            '{' => {
                // The field runs to the matching `}` (a spec may hold `{}`).
                let mut depth = 1;
                let mut j = i + 1;
                while j < chars.len() && depth > 0 {
                    match chars[j] {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                if depth > 0 {
                    return Err("expected '}' before end of string".into());
                }
                let inner: String = chars[i + 1..j - 1].iter().collect();
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Field(parse_field(&inner)?));
                i = j;
            }
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn parse_field(inner: &str) -> Result<Field, String> {
    // The name ends at the first `!` or `:` outside brackets.
    let mut end = inner.len();
    let mut in_bracket = false;
    for (at, ch) in inner.char_indices() {
        match ch {
            '[' => in_bracket = true,
            ']' => in_bracket = false,
            '!' | ':' if !in_bracket => {
                end = at;
                break;
            }
            _ => {}
        }
    }
    let (head, rest) = inner.split_at(end);
    let (conversion, spec) = match rest.strip_prefix('!') {
        Some(r) => {
            let mut cs = r.chars();
            let conv = cs
                .next()
                .ok_or("end of string while looking for conversion specifier")?;
            if !matches!(conv, 'r' | 's' | 'a') {
                return Err(format!("Unknown conversion specifier {conv}"));
            }
            let after: String = cs.collect();
            let spec = match after.strip_prefix(':') {
                Some(s) => s.to_owned(),
                None if after.is_empty() => String::new(),
                None => return Err("expected ':' after conversion specifier".into()),
            };
            (Some(conv), spec)
        }
        None => (None, rest.strip_prefix(':').unwrap_or("").to_owned()),
    };
    let name_end = head.find(['.', '[']).unwrap_or(head.len());
    let (name, mut tail) = head.split_at(name_end);
    let name = if name.is_empty() {
        FieldName::Next
    } else if let Ok(i) = name.parse::<usize>() {
        FieldName::Index(i)
    } else {
        FieldName::Keyword(name.to_owned())
    };
    let mut accessors = Vec::new();
    while !tail.is_empty() {
        if let Some(r) = tail.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            accessors.push(Accessor::Attribute(r[..end].to_owned()));
            tail = &r[end..];
        } else if let Some(r) = tail.strip_prefix('[') {
            let end = r.find(']').ok_or("Missing ']' in format string")?;
            let key = &r[..end];
            accessors.push(Accessor::Item(match key.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::str(key),
            }));
            tail = &r[end + 1..];
        } else {
            return Err("Only '.' or '[' may follow ']' in format field specifier".into());
        }
    }
    Ok(Field {
        name,
        accessors,
        conversion,
        spec,
    })
}

/// Applies a field's conversion (`!r`, `!s`) and spec to `value`.
pub(crate) fn convert_and_format(
    value: &Value,
    conversion: Option<char>,
    spec: &str,
    span: Range<usize>,
) -> Eval<String> {
    match conversion {
        Some('r' | 'a') => format_value(&Value::str(&repr(value)), spec, span),
        Some(_) => format_value(&Value::str(&value.to_string()), spec, span),
        None => format_value(value, spec, span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (f, text) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
            (f64::INFINITY, "inf"),
            (123.456, "123.456"),
        ] {
            assert_eq!(float_repr(f), text);
        }
    }

    #[test]
    fn strings_repr_with_python_quotes() {
        assert_eq!(str_repr("a"), "'a'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'\"b\n"), "'a\\'\"b\\n'");
    }
}
