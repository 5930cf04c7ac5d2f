//! The nesting limits, checked on the source text before parsing.
//!
//! The parser descends recursively: every bracket, f-string, prefix
//! operator, `not`, right operand of `**`, `await`, `yield`, starred or
//! `**` form, `:=`, conditional expression (`x if c else ...`) and lambda
//! body costs a few kilobytes of stack until the construct ends, and so does
//! every indented block. Deeply nested input would overflow the stack
//! during parsing, long before it means anything, so this scan measures,
//! token by token, how many of those constructs are open at once and
//! refuses the script past [`MAX_NESTING`] (or [`MAX_INDENTATION`]) with a
//! span. Flat chains (`1 + 1 + ...`, `a.b.c...`, `f(x)(x)...`,
//! `x[0][0]...`, `-1 - -1 - ...`) close each construct before the next
//! opens and have no limit.
//!
//! The scan errs on the side of counting: a construct is taken to end only
//! where the parser's recursion certainly returns (an operator that binds
//! more loosely, or a delimiter such as `,`, `:`, `=` or the end of the
//! line), so the parser never nests deeper than the count.

use std::ops::Range;

/// How deeply a script's expressions may nest: brackets, f-strings and
/// their fields, and the operators the parser recurses on (prefix `-`, `+`,
/// `~`, `not`, `await`, `**` chains, `*` and `**` forms, `yield`, `:=`,
/// conditional expressions and lambdas), counted together. CPython's parser
/// refuses more than 200 nested parentheses too.
pub const MAX_NESTING: usize = 200;

/// How many indented blocks may nest: CPython refuses 100 levels of
/// indentation.
pub const MAX_INDENTATION: usize = 99;

/// Where a script nests past a limit, or has a bracket or lambda the
/// parser would recover from by nesting on.
pub(crate) struct Refused {
    /// The token at fault.
    pub at: Range<usize>,
    why: Why,
}

/// Why the scan refuses a script.
enum Why {
    Nesting,
    Indentation,
    /// A closing bracket with no bracket open.
    Unmatched(u8),
    /// A closing bracket that does not match the open one.
    Mismatched {
        close: u8,
        open: u8,
    },
    /// A lambda with no `:` before its bracket or line ends.
    LambdaColon,
}

impl Refused {
    /// What is wrong and what to do about it.
    pub fn message(&self) -> String {
        let name = |c: u8| match c {
            b')' | b'(' => "parenthesis",
            b']' | b'[' => "bracket",
            _ => "brace",
        };
        match self.why {
            Why::Unmatched(c) => format!("syntax error: unmatched '{}'", c as char),
            Why::Mismatched { close, open } => format!(
                "syntax error: closing {} '{}' does not match opening {} '{}'",
                name(close),
                close as char,
                name(open),
                open as char
            ),
            Why::LambdaColon => "syntax error: expected ':' after the lambda's parameters".into(),
            Why::Indentation => format!(
                "more than {MAX_INDENTATION} nested indented blocks (CPython refuses 100 levels \
                 of indentation): move the inner blocks into functions"
            ),
            Why::Nesting => format!(
                "nesting deeper than {MAX_NESTING} levels (brackets, f-strings, prefix operators, \
                 `not`, `**` chains, conditional expressions, lambdas, `await`, `yield` and \
                 starred forms count): split the expression into named parts"
            ),
        }
    }
}

/// An open construct closes at an infix operator binding more loosely than
/// this (or at a delimiter).
type Closes = u8;
/// Closes only at the end of a statement (or of its bracket): `yield`,
/// whose value may be a tuple (`yield a, b`).
const AT_STATEMENT: Closes = 1;
/// Closes only at a delimiter (or the end of its bracket): a lambda or
/// conditional body, `:=`, a `*` or `**` form.
const AT_DELIMITER: Closes = 2;
/// Binding strengths of infix operators and delimiters, loosest first.
/// The end of a logical line, `;`, `=` and augmented assignments.
const STATEMENT: u8 = 0;
/// `,` and `:`.
const DELIMITER: u8 = 1;
const CONDITIONAL: u8 = 2;
const OR: u8 = 3;
const AND: u8 = 4;
/// `not x` ends at `and`, `or` and looser.
const NOT: Closes = 5;
const COMPARISON: u8 = 6;
const BIT_OR: u8 = 7;
const BIT_XOR: u8 = 8;
const BIT_AND: u8 = 9;
const SHIFT: u8 = 10;
const SUM: u8 = 11;
const PRODUCT: u8 = 12;
/// A prefix `-`, `+`, `~`, `await` or the right operand of `**` ends at any
/// binary operator but `**`.
const UNARY: Closes = 13;
const POWER: u8 = 14;

/// What the scan is inside of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The module's text, outside any bracket.
    Module,
    /// Code in a bracket closed by this byte.
    Bracket(u8),
    /// Code in an f-string's replacement field (closed by `}`).
    Field,
    /// The literal text of an f-string (or t-string).
    Literal { quote: u8, triple: bool },
    /// The format spec of a replacement field (after its `:`).
    Spec,
}

/// One level of the scan.
struct Frame {
    kind: Kind,
    /// The open constructs, each with what closes it.
    open: Vec<Closes>,
    /// For each lambda whose parameters are being read, how many
    /// constructs were open at its `lambda`.
    lambdas: Vec<usize>,
    /// Whether the last token ended an operand (so that `-` is binary).
    operand: bool,
    /// Whether the last token was `is` (so that `not` is `is not`).
    after_is: bool,
}

impl Frame {
    /// Whether the scan is at a lambda's parameters (not in a default value).
    fn in_parameters(&self) -> bool {
        self.lambdas.last() == Some(&self.open.len())
    }

    fn new(kind: Kind) -> Frame {
        Frame {
            kind,
            open: Vec::new(),
            lambdas: Vec::new(),
            operand: false,
            after_is: false,
        }
    }
}

/// The scan's state: the frames and how many constructs are open in all.
struct Scan {
    frames: Vec<Frame>,
    depth: usize,
}

impl Scan {
    fn top(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    /// Opens a construct in the current frame; `Err` past the limit.
    fn push(&mut self, closes: Closes) -> Result<(), ()> {
        self.top().open.push(closes);
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(());
        }
        Ok(())
    }

    /// An infix operator binding with `strength`: the constructs it ends
    /// are closed (in a lambda's default value, only those it opened).
    fn infix(&mut self, strength: u8) {
        let frame = self.top();
        let before = frame.open.len();
        let floor = frame.lambdas.last().copied().unwrap_or(0);
        while frame.open.len() > floor && frame.open.last().is_some_and(|&c| c > strength) {
            frame.open.pop();
        }
        let closed = before - frame.open.len();
        self.depth -= closed;
    }

    /// A binary operator of `strength`, after an operand when `infix`. One
    /// without a left operand is an error the parser recovers from by
    /// parsing a right operand inside it: a construct that stays open.
    fn binary(&mut self, strength: u8, infix: bool) -> Result<(), ()> {
        if infix {
            self.infix(strength);
            Ok(())
        } else {
            self.push(AT_DELIMITER)
        }
    }

    /// Opens a frame; `Err` past the limit.
    fn enter(&mut self, kind: Kind) -> Result<(), ()> {
        self.frames.push(Frame::new(kind));
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(());
        }
        Ok(())
    }

    /// Closes the current frame (never the module's), with what is open
    /// in it.
    fn leave(&mut self) {
        if self.frames.len() > 1 {
            if let Some(frame) = self.frames.pop() {
                self.depth -= 1 + frame.open.len();
            }
        }
    }
}

/// The first place `source` nests past [`MAX_NESTING`] or
/// [`MAX_INDENTATION`], if any, or has a closing bracket that matches none
/// or a lambda without `:` (syntax errors whose recovery in the parser
/// nests on).
pub(crate) fn refused(source: &str) -> Option<Refused> {
    let bytes = source.as_bytes();
    let mut scan = Scan {
        frames: vec![Frame::new(Kind::Module)],
        depth: 0,
    };
    let mut indents: Vec<usize> = Vec::new();
    let mut line_start = true;
    let mut i = 0;
    let expression = |at: Range<usize>| {
        Some(Refused {
            at,
            why: Why::Nesting,
        })
    };
    let no_colon = |at: usize| {
        Some(Refused {
            at: at..at + 1,
            why: Why::LambdaColon,
        })
    };
    while i < bytes.len() {
        let kind = scan.top().kind;
        if let Kind::Literal { quote, triple } = kind {
            match scan_literal(bytes, i, quote, triple, &mut scan) {
                Ok(next) => i = next,
                Err(at) => return expression(at..at + 1),
            }
            continue;
        }
        if kind == Kind::Spec {
            match bytes[i] {
                // A replacement field nested in the spec.
                b'{' => {
                    let entered = scan.enter(Kind::Field);
                    if entered.is_err() {
                        return expression(i..i + 1);
                    }
                }
                b'}' => scan.leave(),
                // An escape or a line continuation.
                b'\\' => i += 1,
                b'\n' | b'\r' | b'\'' | b'"' => {
                    // An unterminated spec: the f-string ends here too.
                    scan.leave();
                    continue;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        if line_start {
            // The indentation of a logical line at module level.
            let mut column = 0;
            let mut j = i;
            while j < bytes.len() {
                match bytes[j] {
                    b' ' => column += 1,
                    b'\t' => column = column / 8 * 8 + 8,
                    b'\x0c' => column = 0,
                    _ => break,
                }
                j += 1;
            }
            i = j;
            match bytes.get(j) {
                None | Some(b'\n' | b'\r' | b'#') => {}
                Some(_) => {
                    line_start = false;
                    while indents.last().is_some_and(|&top| top > column) {
                        indents.pop();
                    }
                    if indents.last().copied().unwrap_or(0) < column {
                        indents.push(column);
                        if indents.len() > MAX_INDENTATION {
                            return Some(Refused {
                                at: j..j + char_len(bytes, j),
                                why: Why::Indentation,
                            });
                        }
                    }
                }
            }
            if i >= bytes.len() {
                break;
            }
        }
        let c = bytes[i];
        let start = i;
        let operand_before = scan.top().operand;
        let after_is = std::mem::replace(&mut scan.top().after_is, false);
        let mut operand = false;
        match c {
            b' ' | b'\t' | b'\x0c' | b'\r' => {
                i += 1;
                continue;
            }
            b'\\' => {
                // A line continuation: the next line goes on this one.
                i += 1;
                if bytes.get(i) == Some(&b'\r') {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'\n') {
                    i += 1;
                }
                continue;
            }
            b'\n' => {
                if scan.frames.len() == 1 && !scan.top().lambdas.is_empty() {
                    return no_colon(i);
                }
                i += 1;
                if scan.frames.len() == 1 {
                    scan.infix(STATEMENT);
                    scan.top().lambdas.clear();
                    line_start = true;
                }
                scan.top().operand = false;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                operand = true;
            }
            b'0'..=b'9' => {
                i = skip_number(bytes, i);
                operand = true;
            }
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = skip_number(bytes, i);
                operand = true;
            }
            b'.' => {
                if bytes[i..].starts_with(b"...") {
                    i += 3;
                    operand = true;
                } else {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                let close = match c {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                if scan.enter(Kind::Bracket(close)).is_err() {
                    return expression(i..i + 1);
                }
                i += 1;
                continue;
            }
            b')' | b']' | b'}' => {
                if !scan.top().lambdas.is_empty() {
                    return no_colon(i);
                }
                let at = i..i + 1;
                i += 1;
                match scan.top().kind {
                    Kind::Bracket(close) if close == c => scan.leave(),
                    Kind::Bracket(close) => {
                        let open = match close {
                            b')' => b'(',
                            b']' => b'[',
                            _ => b'{',
                        };
                        let why = Why::Mismatched { close: c, open };
                        return Some(Refused { at, why });
                    }
                    // The end of a replacement field.
                    Kind::Field if c == b'}' => {
                        scan.leave();
                        continue;
                    }
                    _ => {
                        let why = Why::Unmatched(c);
                        return Some(Refused { at, why });
                    }
                }
                scan.top().operand = true;
                continue;
            }
            c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                let end = skip_word(bytes, i);
                let word = &bytes[i..end];
                if let Some(&q @ (b'\'' | b'"')) = bytes.get(end) {
                    if is_string_prefix(word) {
                        if word.iter().any(|b| matches!(b, b'f' | b'F' | b't' | b'T')) {
                            let triple = bytes[end..].starts_with(&[q, q, q]);
                            if scan.enter(Kind::Literal { quote: q, triple }).is_err() {
                                return expression(i..end + 1);
                            }
                            i = end + if triple { 3 } else { 1 };
                            continue;
                        }
                        i = skip_string(bytes, end);
                        scan.top().operand = true;
                        continue;
                    }
                }
                i = end;
                let result = match word {
                    b"not" if after_is => Ok(()),
                    b"not" if operand_before => {
                        scan.infix(COMPARISON);
                        Ok(())
                    }
                    b"not" => scan.push(NOT),
                    b"and" => scan.binary(AND, operand_before),
                    b"or" => scan.binary(OR, operand_before),
                    // A conditional expression's `else` part is open to the
                    // next delimiter; a statement's `if` is open to its `:`
                    // (`if if if ...` nests in the parser's recovery).
                    b"if" => {
                        if operand_before {
                            scan.infix(CONDITIONAL);
                        }
                        scan.push(AT_DELIMITER)
                    }
                    b"else" => scan.binary(CONDITIONAL, operand_before),
                    b"in" => scan.binary(COMPARISON, operand_before),
                    b"is" => {
                        scan.top().after_is = true;
                        scan.binary(COMPARISON, operand_before)
                    }
                    // The lambda is open from here (its parameters are
                    // parsed inside it) to the delimiter after its body.
                    b"lambda" => scan.push(AT_DELIMITER).map(|()| {
                        let frame = scan.top();
                        let open = frame.open.len();
                        frame.lambdas.push(open);
                    }),
                    b"await" => scan.push(UNARY),
                    b"yield" => scan.push(AT_STATEMENT),
                    // Other keywords close nothing: in its recovery from an
                    // error the parser may go on inside what is open.
                    b"for" | b"async" | b"return" | b"del" | b"assert" | b"raise" | b"global"
                    | b"nonlocal" | b"import" | b"as" | b"with" | b"while" | b"elif" | b"def"
                    | b"class" | b"try" | b"except" | b"finally" | b"pass" | b"break"
                    | b"continue" | b"from" => Ok(()),
                    _ => {
                        operand = true;
                        Ok(())
                    }
                };
                if result.is_err() {
                    return expression(start..end);
                }
            }
            _ => {
                let (len, action) = operator(&bytes[i..], operand_before);
                i += len;
                let result = match action {
                    Action::Infix(strength) => scan.binary(strength, operand_before),
                    Action::Power => {
                        scan.infix(POWER);
                        scan.push(UNARY)
                    }
                    // `*args` and `**kwargs` in a lambda's parameters.
                    Action::Prefix(AT_DELIMITER) if scan.top().in_parameters() => Ok(()),
                    Action::Prefix(closes) => scan.push(closes),
                    Action::Separator(strength) => {
                        // In a lambda's parameters, `,` and `=` end a default
                        // value, not the lambda.
                        let frame = scan.top();
                        if let Some(&open) = frame.lambdas.last() {
                            let closed = frame.open.len().saturating_sub(open);
                            frame.open.truncate(open);
                            scan.depth -= closed;
                        } else {
                            scan.infix(strength);
                        }
                        Ok(())
                    }
                    Action::Colon => {
                        let frame = scan.top();
                        if let Some(open) = frame.lambdas.pop() {
                            // A lambda's body: what its defaults opened is
                            // closed, the lambda stays open.
                            let closed = frame.open.len().saturating_sub(open);
                            frame.open.truncate(open);
                            scan.depth -= closed;
                            Ok(())
                        } else if frame.kind == Kind::Field {
                            let closed = frame.open.len();
                            frame.open.clear();
                            frame.kind = Kind::Spec;
                            scan.depth -= closed;
                            Ok(())
                        } else {
                            scan.infix(DELIMITER);
                            Ok(())
                        }
                    }
                    Action::Statement => {
                        if !scan.top().lambdas.is_empty() {
                            return no_colon(start);
                        }
                        scan.infix(STATEMENT);
                        scan.top().lambdas.clear();
                        Ok(())
                    }
                    Action::Nothing => Ok(()),
                };
                if result.is_err() {
                    return expression(start..i);
                }
            }
        }
        scan.top().operand = operand;
    }
    None
}

/// What an operator token does to the open constructs.
enum Action {
    /// A binary operator of this strength.
    Infix(u8),
    /// `**` between operands: closes what binds more loosely, and opens its
    /// right operand.
    Power,
    /// A prefix form opening a construct that closes like this.
    Prefix(Closes),
    /// `,` (a delimiter) or `=` (the end of a statement's part).
    Separator(u8),
    /// `:`.
    Colon,
    /// `;`, `->` and augmented assignments: everything closes.
    Statement,
    Nothing,
}

/// The length and action of the operator at the start of `rest`, which
/// follows an operand when `infix`.
fn operator(rest: &[u8], infix: bool) -> (usize, Action) {
    let starts = |s: &[u8]| rest.starts_with(s);
    for aug in [
        b"**=".as_slice(),
        b"//=",
        b">>=",
        b"<<=",
        b"+=",
        b"-=",
        b"*=",
        b"/=",
        b"%=",
        b"&=",
        b"|=",
        b"^=",
        b"@=",
        b"->",
    ] {
        if starts(aug) {
            return (aug.len(), Action::Statement);
        }
    }
    for (op, strength) in [
        (b"==".as_slice(), COMPARISON),
        (b"!=", COMPARISON),
        (b"<=", COMPARISON),
        (b">=", COMPARISON),
        (b"<>", COMPARISON),
        (b"<<", SHIFT),
        (b">>", SHIFT),
        (b"//", PRODUCT),
    ] {
        if starts(op) {
            return (2, Action::Infix(strength));
        }
    }
    if starts(b"**") {
        return (
            2,
            if infix {
                Action::Power
            } else {
                Action::Prefix(AT_DELIMITER)
            },
        );
    }
    if starts(b":=") {
        return (2, Action::Prefix(AT_DELIMITER));
    }
    let action = match rest[0] {
        b'<' | b'>' => Action::Infix(COMPARISON),
        b'|' => Action::Infix(BIT_OR),
        b'^' => Action::Infix(BIT_XOR),
        b'&' => Action::Infix(BIT_AND),
        b'+' | b'-' if infix => Action::Infix(SUM),
        b'+' | b'-' | b'~' => Action::Prefix(UNARY),
        b'*' | b'/' | b'%' | b'@' if infix => Action::Infix(PRODUCT),
        b'*' => Action::Prefix(AT_DELIMITER),
        b',' => Action::Separator(DELIMITER),
        b'=' => Action::Separator(STATEMENT),
        b':' => Action::Colon,
        b';' => Action::Statement,
        _ => Action::Nothing,
    };
    let len = if rest[0] < 0x80 { 1 } else { char_len(rest, 0) };
    (len, action)
}

/// Scans the literal text of an f-string from `i`: up to its end or its
/// next replacement field, whose frame is opened. `Err` with the field's
/// `{` past the limit.
fn scan_literal(
    bytes: &[u8],
    mut i: usize,
    quote: u8,
    triple: bool,
    scan: &mut Scan,
) -> Result<usize, usize> {
    while i < bytes.len() {
        match bytes[i] {
            // `\{` still opens a field; other escapes skip their character.
            b'\\' if matches!(bytes.get(i + 1), Some(b'{' | b'}')) => i += 1,
            b'\\' => i += 2,
            b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'}' if bytes.get(i + 1) == Some(&b'}') => i += 2,
            b'{' => {
                if scan.enter(Kind::Field).is_err() {
                    return Err(i);
                }
                return Ok(i + 1);
            }
            c if c == quote => {
                if !triple {
                    scan.leave();
                    scan.top().operand = true;
                    return Ok(i + 1);
                }
                if bytes[i..].starts_with(&[quote, quote, quote]) {
                    scan.leave();
                    scan.top().operand = true;
                    return Ok(i + 3);
                }
                i += 1;
            }
            b'\n' if !triple => {
                // Unterminated: the parser reports it.
                scan.leave();
                return Ok(i);
            }
            _ => i += 1,
        }
    }
    Ok(i)
}

/// Whether `word` (just before a quote) is a string prefix.
fn is_string_prefix(word: &[u8]) -> bool {
    word.len() <= 2
        && word
            .iter()
            .all(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f' | b't'))
}

/// The index just past the name or keyword starting at `start`.
fn skip_word(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len()
        && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric() || bytes[i] >= 0x80)
    {
        i += 1;
    }
    i
}

/// The index just past the number starting at `start`: digits, `_` and
/// `.`, a radix prefix with its digits, an exponent with its sign, an
/// imaginary `j`. A letter after it starts the next token (`1if` is `1 if`).
fn skip_number(bytes: &[u8], start: usize) -> usize {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let mut i = start;
    if at(i) == b'0' && matches!(at(i + 1) | 0x20, b'x' | b'o' | b'b') {
        i += 2;
        while at(i).is_ascii_hexdigit() || at(i) == b'_' {
            i += 1;
        }
        return i;
    }
    while at(i).is_ascii_digit() || matches!(at(i), b'_' | b'.') {
        i += 1;
    }
    if matches!(at(i) | 0x20, b'e') {
        let sign = usize::from(matches!(at(i + 1), b'+' | b'-'));
        if at(i + 1 + sign).is_ascii_digit() {
            i += 1 + sign;
            while at(i).is_ascii_digit() || at(i) == b'_' {
                i += 1;
            }
        }
    }
    if matches!(at(i) | 0x20, b'j') {
        i += 1;
    }
    i
}

/// The length in bytes of the character at `at`.
fn char_len(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(&b) if b >= 0xf0 => 4,
        Some(&b) if b >= 0xe0 => 3,
        Some(&b) if b >= 0xc0 => 2,
        _ => 1,
    }
}

/// The index just past the string literal starting at `start` (single or
/// triple quoted, with backslash escapes); the end of the text if unclosed.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let q = bytes[start];
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == q && bytes[start + 2] == q;
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            c if c == q => {
                if !triple {
                    return i + 1;
                }
                if bytes.len() >= i + 3 && bytes[i + 1] == q && bytes[i + 2] == q {
                    return i + 3;
                }
                i += 1;
            }
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}
