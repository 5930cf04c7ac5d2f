//! Python's `re` module in scripts: what TOPI's operators ask of it
//! (`re.finditer("[^NC]", layout)` finds the spatial axes of a layout,
//! `re.compile("^NCHW[0-9]+c$").match(layout)` recognises a packed one),
//! and the rest of the module's everyday surface.
//!
//! Patterns are compiled by `regex-lite`, whose syntax is Python's for
//! everything but a few constructs: back references and look-arounds are
//! refused with a message that says to run the script under CPython, and
//! `$` matches only at the very end (Python's also matches before a final
//! newline). Positions are counted in characters, as Python counts them.

use crate::args::{Args, Spanned};
use crate::error::{Eval, Raised};
use crate::interp::Interpreter;
use crate::operators::as_int;
use crate::value::{script_value, ScriptValue, Value};
use std::ops::Range;
use std::rc::Rc;
use tvm_api::ErrorClass;

/// A function of the `re` module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReFunction {
    Compile,
    Match,
    Search,
    Fullmatch,
    Finditer,
    Findall,
    Sub,
    Split,
    Escape,
}

impl ReFunction {
    /// The function `re.name`, if the module has it here.
    pub(crate) fn named(name: &str) -> Option<ReFunction> {
        Some(match name {
            "compile" => ReFunction::Compile,
            "match" => ReFunction::Match,
            "search" => ReFunction::Search,
            "fullmatch" => ReFunction::Fullmatch,
            "finditer" => ReFunction::Finditer,
            "findall" => ReFunction::Findall,
            "sub" => ReFunction::Sub,
            "split" => ReFunction::Split,
            "escape" => ReFunction::Escape,
            _ => return None,
        })
    }

    /// The name a script uses.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReFunction::Compile => "re.compile",
            ReFunction::Match => "re.match",
            ReFunction::Search => "re.search",
            ReFunction::Fullmatch => "re.fullmatch",
            ReFunction::Finditer => "re.finditer",
            ReFunction::Findall => "re.findall",
            ReFunction::Sub => "re.sub",
            ReFunction::Split => "re.split",
            ReFunction::Escape => "re.escape",
        }
    }
}

/// The flags `re.I`, `re.M`, `re.S`, `re.X`, `re.A` and `re.U` (with
/// their long names), Python's values.
pub(crate) fn flag(name: &str) -> Option<i64> {
    Some(match name {
        "U" | "UNICODE" => UNICODE,
        "I" | "IGNORECASE" => IGNORECASE,
        "M" | "MULTILINE" => MULTILINE,
        "S" | "DOTALL" => DOTALL,
        "X" | "VERBOSE" => VERBOSE,
        "A" | "ASCII" => ASCII,
        "NOFLAG" => 0,
        _ => return None,
    })
}

const IGNORECASE: i64 = 2;
const MULTILINE: i64 = 8;
const DOTALL: i64 = 16;
const VERBOSE: i64 = 64;
const ASCII: i64 = 256;
/// What Python adds to the flags of a pattern of `str` not marked ASCII.
const UNICODE: i64 = 32;

/// A compiled pattern (`re.Pattern`).
pub(crate) struct Pattern {
    /// The pattern as the script wrote it.
    pub source: Rc<str>,
    /// Its flags.
    pub flags: i64,
    /// Matches anywhere (`search`, `finditer`, ...).
    anywhere: regex_lite::Regex,
    /// Matches at the start only (`match`).
    at_start: regex_lite::Regex,
    /// Matches the whole string only (`fullmatch`).
    whole: regex_lite::Regex,
}

/// One match (`re.Match`): where each group matched, in bytes of `string`.
pub(crate) struct Match {
    string: Rc<str>,
    groups: Vec<Option<(usize, usize)>>,
    pattern: Rc<Pattern>,
}

/// The largest pattern a script may compile, in characters.
const MAX_PATTERN: usize = 10_000;

impl Pattern {
    fn compile(source: Rc<str>, flags: i64, span: Range<usize>) -> Eval<Pattern> {
        if source.len() > MAX_PATTERN {
            return Err(error(
                span,
                format!("a pattern of more than {MAX_PATTERN} characters is too long for a script"),
            ));
        }
        if flags & !(IGNORECASE | MULTILINE | DOTALL | VERBOSE | ASCII | UNICODE) != 0 {
            return Err(Raised::python(
                ErrorClass::ValueError,
                span,
                format!("the flags {flags} are not ones `rangefinder te` knows (re.I, re.M, re.S, re.X, re.A)"),
            ));
        }
        let mut inline = String::new();
        for (bit, letter) in [
            (IGNORECASE, 'i'),
            (MULTILINE, 'm'),
            (DOTALL, 's'),
            (VERBOSE, 'x'),
        ] {
            if flags & bit != 0 {
                inline.push(letter);
            }
        }
        let body = python_syntax(&source);
        let prefix = if inline.is_empty() {
            String::new()
        } else {
            format!("(?{inline})")
        };
        let build = |text: String| {
            regex_lite::RegexBuilder::new(&text)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| {
                    let detail = e.to_string();
                    let needs_cpython =
                        ["look-around", "backreference", "look-behind", "look-ahead"]
                            .iter()
                            .any(|w| detail.contains(w));
                    let hint = if needs_cpython {
                        "; run the script under CPython with `python -m rangefinder.tvm FILE`"
                    } else {
                        ""
                    };
                    let first = detail.lines().last().unwrap_or(&detail).trim().to_owned();
                    // Python's `re.error` derives from `Exception` directly.
                    Raised::python(
                        ErrorClass::Exception,
                        span.clone(),
                        format!("the pattern {:?} does not compile: {first}{hint}", &*source),
                    )
                })
        };
        Ok(Pattern {
            anywhere: build(format!("{prefix}(?:{body})"))?,
            at_start: build(format!(r"{prefix}\A(?:{body})"))?,
            whole: build(format!(r"{prefix}\A(?:{body})\z"))?,
            source,
            flags: if flags & ASCII == 0 {
                flags | UNICODE
            } else {
                flags
            },
        })
    }

    /// The number of groups, not counting the whole match.
    fn group_count(&self) -> usize {
        self.anywhere.captures_len() - 1
    }

    /// The number of the group called `name`.
    fn group_named(&self, name: &str) -> Option<usize> {
        self.anywhere.capture_names().position(|n| n == Some(name))
    }
}

/// Python's spellings that `regex-lite` writes otherwise: `\Z` (the very
/// end) is `\z`.
fn python_syntax(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('Z') => out.push_str(r"\z"),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn error(span: Range<usize>, message: String) -> Raised {
    Raised::at(span, message)
}

fn string_of(a: &Spanned, what: &str) -> Eval<Rc<str>> {
    match &a.value {
        Value::Str(s) => Ok(s.clone()),
        other => Err(Raised::python(
            ErrorClass::TypeError,
            a.span.clone(),
            format!("{what} must be str, not {}", other.type_name()),
        )),
    }
}

fn int_of(a: Option<&Spanned>, default: i64) -> Eval<i64> {
    a.map_or(Ok(default), crate::pymethods::int_arg)
}

/// The pattern an argument gives: a compiled one, or a string compiled
/// with `flags`.
fn pattern_of(a: &Spanned, flags: i64) -> Eval<Rc<Pattern>> {
    if let Some(ScriptValue::RePattern(p)) = script_value(&a.value) {
        if flags != 0 {
            return Err(Raised::python(
                ErrorClass::ValueError,
                a.span.clone(),
                "cannot process flags argument with a compiled pattern",
            ));
        }
        return Ok(p.clone());
    }
    let source = string_of(a, "the pattern")?;
    Ok(Rc::new(Pattern::compile(source, flags, a.span.clone())?))
}

/// Calls `re.function(...)`.
pub(crate) fn call(interp: &mut Interpreter, f: ReFunction, args: Args) -> Eval<Value> {
    let name = f.name();
    match f {
        ReFunction::Escape => {
            let a = args.bind(name, &["pattern"])?;
            let s = string_of(a.required("pattern")?, "the text")?;
            Ok(Value::str(&escape(&s)))
        }
        ReFunction::Compile => {
            let a = args.bind(name, &["pattern", "flags"])?;
            let flags = int_of(a.get("flags"), 0)?;
            Ok(pattern_value(pattern_of(a.required("pattern")?, flags)?))
        }
        ReFunction::Match | ReFunction::Search | ReFunction::Fullmatch => {
            let a = args.bind(name, &["pattern", "string", "flags"])?;
            let p = pattern_of(a.required("pattern")?, int_of(a.get("flags"), 0)?)?;
            let s = string_of(a.required("string")?, "the string")?;
            Ok(find(&p, f, s))
        }
        ReFunction::Finditer | ReFunction::Findall => {
            let a = args.bind(name, &["pattern", "string", "flags"])?;
            let p = pattern_of(a.required("pattern")?, int_of(a.get("flags"), 0)?)?;
            let s = string_of(a.required("string")?, "the string")?;
            Ok(if f == ReFunction::Finditer {
                finditer(&p, s)
            } else {
                findall(&p, &s)
            })
        }
        ReFunction::Sub => {
            let a = args.bind(name, &["pattern", "repl", "string", "count", "flags"])?;
            let p = pattern_of(a.required("pattern")?, int_of(a.get("flags"), 0)?)?;
            let s = string_of(a.required("string")?, "the string")?;
            let count = int_of(a.get("count"), 0)?;
            sub(interp, &p, a.required("repl")?, s, count)
        }
        ReFunction::Split => {
            let a = args.bind(name, &["pattern", "string", "maxsplit", "flags"])?;
            let p = pattern_of(a.required("pattern")?, int_of(a.get("flags"), 0)?)?;
            let s = string_of(a.required("string")?, "the string")?;
            Ok(split(&p, &s, int_of(a.get("maxsplit"), 0)?))
        }
    }
}

fn pattern_value(p: Rc<Pattern>) -> Value {
    Value::host(ScriptValue::RePattern(p))
}

fn match_value(m: Match) -> Value {
    Value::host(ScriptValue::ReMatch(Rc::new(m)))
}

fn captures_to_match(p: &Rc<Pattern>, s: &Rc<str>, c: &regex_lite::Captures<'_>) -> Match {
    Match {
        string: s.clone(),
        groups: (0..c.len())
            .map(|k| c.get(k).map(|m| (m.start(), m.end())))
            .collect(),
        pattern: p.clone(),
    }
}

/// `match`, `search` or `fullmatch`: a match or `None`.
fn find(p: &Rc<Pattern>, how: ReFunction, s: Rc<str>) -> Value {
    let regex = match how {
        ReFunction::Match => &p.at_start,
        ReFunction::Fullmatch => &p.whole,
        _ => &p.anywhere,
    };
    match regex.captures(&s) {
        Some(c) => {
            let m = captures_to_match(p, &s, &c);
            match_value(m)
        }
        None => Value::None,
    }
}

/// Every match, in order, as a list (a script iterates it as it would the
/// iterator).
fn finditer(p: &Rc<Pattern>, s: Rc<str>) -> Value {
    let matches: Vec<Match> = p
        .anywhere
        .captures_iter(&s)
        .map(|c| captures_to_match(p, &s, &c))
        .collect();
    Value::list(matches.into_iter().map(match_value).collect())
}

/// The matched text, or each match's one group, or a tuple of its groups.
fn findall(p: &Rc<Pattern>, s: &str) -> Value {
    let groups = p.group_count();
    let text = |c: &regex_lite::Captures<'_>, k: usize| {
        Value::str(c.get(k).map(|m| m.as_str()).unwrap_or(""))
    };
    Value::list(
        p.anywhere
            .captures_iter(s)
            .map(|c| match groups {
                0 => text(&c, 0),
                1 => text(&c, 1),
                _ => Value::tuple((1..=groups).map(|k| text(&c, k)).collect()),
            })
            .collect(),
    )
}

/// `re.split`: the pieces between matches, each group's text (or `None`)
/// between them.
fn split(p: &Rc<Pattern>, s: &str, maxsplit: i64) -> Value {
    let mut out = Vec::new();
    let mut last = 0;
    for (n, c) in p.anywhere.captures_iter(s).enumerate() {
        if maxsplit > 0 && n as i64 >= maxsplit {
            break;
        }
        let whole = c.get(0).expect("group 0 always matches");
        out.push(Value::str(&s[last..whole.start()]));
        for k in 1..c.len() {
            out.push(match c.get(k) {
                Some(m) => Value::str(m.as_str()),
                None => Value::None,
            });
        }
        last = whole.end();
    }
    out.push(Value::str(&s[last..]));
    Value::list(out)
}

/// `re.sub`: each match replaced by `repl`, a template (`\1`, `\g<name>`)
/// or a function of the match.
fn sub(
    interp: &mut Interpreter,
    p: &Rc<Pattern>,
    repl: &Spanned,
    s: Rc<str>,
    count: i64,
) -> Eval<Value> {
    let template = match &repl.value {
        Value::Str(t) => Some(parse_template(p, t, repl.span.clone())?),
        _ => None,
    };
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let found: Vec<Match> = p
        .anywhere
        .captures_iter(&s)
        .map(|c| captures_to_match(p, &s, &c))
        .collect();
    for (n, m) in found.into_iter().enumerate() {
        if count > 0 && n as i64 >= count {
            break;
        }
        let (start, end) = m.groups[0].expect("group 0 always matches");
        out.push_str(&s[last..start]);
        match &template {
            Some(pieces) => {
                for piece in pieces {
                    match piece {
                        Piece::Text(t) => out.push_str(t),
                        Piece::Group(k) => {
                            if let Some((a, b)) = m.groups[*k] {
                                out.push_str(&s[a..b]);
                            }
                        }
                    }
                }
            }
            None => {
                let args = Args {
                    positional: vec![Spanned {
                        value: match_value(m),
                        span: repl.span.clone(),
                    }],
                    keywords: Vec::new(),
                    span: repl.span.clone(),
                };
                match interp.call(&repl.value, args)? {
                    Value::Str(t) => out.push_str(&t),
                    other => {
                        return Err(Raised::python(
                            ErrorClass::TypeError,
                            repl.span.clone(),
                            format!("expected str instance, {} found", other.type_name()),
                        ))
                    }
                }
            }
        }
        last = end;
    }
    out.push_str(&s[last..]);
    Ok(Value::str(&out))
}

/// A piece of a replacement template.
enum Piece {
    Text(String),
    Group(usize),
}

/// Python's replacement template: `\1`..`\99`, `\g<1>`, `\g<name>`, and the
/// escapes `\n`, `\t`, `\\`.
fn parse_template(p: &Pattern, t: &str, span: Range<usize>) -> Eval<Vec<Piece>> {
    let bad = |what: String| Raised::python(ErrorClass::ValueError, span.clone(), what);
    let group = |k: usize| {
        if k <= p.group_count() {
            Ok(Piece::Group(k))
        } else {
            Err(bad(format!("invalid group reference {k}")))
        }
    };
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        let piece = match chars.next() {
            Some(d) if d.is_ascii_digit() => {
                let mut k = d.to_digit(10).unwrap_or(0) as usize;
                if let Some(e) = chars.peek().and_then(|e| e.to_digit(10)) {
                    k = k * 10 + e as usize;
                    chars.next();
                }
                group(k)?
            }
            Some('g') => {
                if chars.next() != Some('<') {
                    return Err(bad("missing < in a \\g group reference".into()));
                }
                let name: String = chars.by_ref().take_while(|c| *c != '>').collect();
                match name.parse::<usize>() {
                    Ok(k) => group(k)?,
                    Err(_) => Piece::Group(
                        p.group_named(&name)
                            .ok_or_else(|| bad(format!("unknown group name '{name}'")))?,
                    ),
                }
            }
            Some('n') => {
                text.push('\n');
                continue;
            }
            Some('t') => {
                text.push('\t');
                continue;
            }
            Some('\\') => {
                text.push('\\');
                continue;
            }
            Some(other) if other.is_ascii_alphabetic() => {
                return Err(bad(format!("bad escape \\{other}")));
            }
            Some(other) => {
                text.push('\\');
                text.push(other);
                continue;
            }
            None => return Err(bad("bad escape (end of pattern)".into())),
        };
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(piece);
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// `re.escape`: the characters special in patterns escaped, as Python
/// escapes them.
fn escape(s: &str) -> String {
    const SPECIAL: &str = "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c";
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if SPECIAL.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The methods of patterns and matches.
pub(crate) const PATTERN_METHODS: &[&str] = &[
    "match",
    "search",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "split",
];
pub(crate) const MATCH_METHODS: &[&str] = &["group", "groups", "span", "start", "end", "groupdict"];

/// Calls the method `name` of a pattern.
pub(crate) fn pattern_method(
    interp: &mut Interpreter,
    p: &Rc<Pattern>,
    name: &'static str,
    args: Args,
) -> Eval<Value> {
    let f = ReFunction::named(name).expect("a pattern method is a function of the module");
    let mut args = args;
    args.positional.insert(
        0,
        Spanned {
            value: pattern_value(p.clone()),
            span: args.span.clone(),
        },
    );
    call(interp, f, args)
}

/// The group `g` (a number or a name) of `m`.
fn group_index(m: &Match, g: &Spanned) -> Eval<usize> {
    let k = match &g.value {
        Value::Str(name) => m.pattern.group_named(name),
        v => as_int(v).and_then(|k| usize::try_from(k).ok()),
    };
    k.filter(|k| *k < m.groups.len())
        .ok_or_else(|| Raised::python(ErrorClass::IndexError, g.span.clone(), "no such group"))
}

/// Where group `k` matched, in characters; `(-1, -1)` if it did not.
fn char_span(m: &Match, k: usize) -> (i64, i64) {
    match m.groups[k] {
        Some((a, b)) => {
            let a_chars = m.string[..a].chars().count();
            let len = m.string[a..b].chars().count();
            (a_chars as i64, (a_chars + len) as i64)
        }
        None => (-1, -1),
    }
}

fn group_text(m: &Match, k: usize) -> Value {
    match m.groups[k] {
        Some((a, b)) => Value::str(&m.string[a..b]),
        None => Value::None,
    }
}

/// Calls the method `name` of a match.
pub(crate) fn match_method(m: &Rc<Match>, name: &'static str, args: Args) -> Eval<Value> {
    match name {
        "group" => {
            let (groups, _) = args.positional_only("group")?;
            match &groups[..] {
                [] => Ok(group_text(m, 0)),
                [g] => Ok(group_text(m, group_index(m, g)?)),
                many => Ok(Value::tuple(
                    many.iter()
                        .map(|g| group_index(m, g).map(|k| group_text(m, k)))
                        .collect::<Eval<_>>()?,
                )),
            }
        }
        "groups" | "groupdict" => {
            let a = args.bind(name, &["default"])?;
            let default = a.get("default").map_or(Value::None, |d| d.value.clone());
            let group_or_default = |k: usize| match group_text(m, k) {
                Value::None => default.clone(),
                v => v,
            };
            if name == "groups" {
                return Ok(Value::tuple(
                    (1..m.groups.len()).map(group_or_default).collect(),
                ));
            }
            let pairs: Vec<(Value, Value)> = m
                .pattern
                .anywhere
                .capture_names()
                .enumerate()
                .filter_map(|(k, n)| n.map(|n| (k, n)))
                .map(|(k, n)| (Value::str(n), group_or_default(k)))
                .collect();
            Ok(Value::Dict(Rc::from(pairs)))
        }
        _ => {
            let a = args.bind(name, &["group"])?;
            let k = match a.get("group") {
                Some(g) => group_index(m, g)?,
                None => 0,
            };
            let (start, end) = char_span(m, k);
            Ok(match name {
                "start" => Value::Int(start),
                "end" => Value::Int(end),
                _ => Value::tuple(vec![Value::Int(start), Value::Int(end)]),
            })
        }
    }
}

/// `pattern.pattern`, `pattern.flags`, `pattern.groups`, `match.string`,
/// `match.re`, `match.lastindex`: the attributes that are not methods.
pub(crate) fn attribute(v: &ScriptValue, name: &str) -> Option<Value> {
    match (v, name) {
        (ScriptValue::RePattern(p), "pattern") => Some(Value::Str(p.source.clone())),
        (ScriptValue::RePattern(p), "flags") => Some(Value::Int(p.flags)),
        (ScriptValue::RePattern(p), "groups") => Some(Value::Int(p.group_count() as i64)),
        (ScriptValue::ReMatch(m), "string") => Some(Value::Str(m.string.clone())),
        (ScriptValue::ReMatch(m), "re") => Some(pattern_value(m.pattern.clone())),
        (ScriptValue::ReMatch(m), "lastindex") => Some(
            (1..m.groups.len())
                .filter(|k| m.groups[*k].is_some())
                .max_by_key(|k| m.groups[*k].map(|(_, e)| e))
                .map_or(Value::None, |k| Value::Int(k as i64)),
        ),
        _ => None,
    }
}

/// How a pattern and a match print (`repr`).
pub(crate) fn fmt(v: &ScriptValue, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match v {
        ScriptValue::RePattern(p) => write!(f, "re.compile({})", python_repr(&p.source)),
        ScriptValue::ReMatch(m) => {
            let (a, b) = char_span(m, 0);
            let text = match m.groups[0] {
                Some((s, e)) => &m.string[s..e],
                None => "",
            };
            write!(
                f,
                "<re.Match object; span=({a}, {b}), match={}>",
                python_repr(text)
            )
        }
        _ => Ok(()),
    }
}

fn python_repr(s: &str) -> String {
    crate::pyformat::repr(&Value::str(s))
}
