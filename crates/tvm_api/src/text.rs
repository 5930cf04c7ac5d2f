//! Python's text forms of plain values: a string's `repr` and the
//! shortest text of a float, as CPython writes them. Front ends build
//! their formatting (format specs, `%`) on these.

/// A string literal as Python's `repr` writes it.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a float: the shortest digits that read back as the
/// same float, in fixed notation for decimal exponents -4 to 15 and in
/// scientific notation (`1e+16`, `1.5e-07`) otherwise.
pub fn float_repr(f: f64) -> String {
    if let Some(special) = non_finite(f, false) {
        return special;
    }
    let (digits, exp) = shortest_digits(f);
    let body = if (-4..16).contains(&exp) {
        fixed_from_digits(&digits, exp)
    } else {
        scientific_from_digits(&digits, exp, 'e')
    };
    if f.is_sign_negative() {
        format!("-{body}")
    } else {
        body
    }
}

/// `nan`, `inf` or `-inf` (upper case when `upper`), or `None` for a
/// finite `f`.
pub fn non_finite(f: f64, upper: bool) -> Option<String> {
    let text = if f.is_nan() {
        "nan"
    } else if f.is_infinite() {
        if f > 0.0 {
            "inf"
        } else {
            "-inf"
        }
    } else {
        return None;
    };
    Some(if upper {
        text.to_uppercase()
    } else {
        text.to_owned()
    })
}

/// The shortest round-trip decimal digits of `|f|` and the decimal exponent
/// of the first digit.
pub fn shortest_digits(f: f64) -> (String, i32) {
    let text = format!("{:e}", f.abs());
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    (mantissa.replace('.', ""), exp.parse().unwrap_or(0))
}

/// `digits` (the first at decimal exponent `exp`) in fixed notation.
pub fn fixed_from_digits(digits: &str, exp: i32) -> String {
    let n = digits.len() as i32;
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("0.{zeros}{digits}");
    }
    if n <= exp + 1 {
        let zeros = "0".repeat((exp + 1 - n) as usize);
        return format!("{digits}{zeros}.0");
    }
    let (int, frac) = digits.split_at((exp + 1) as usize);
    format!("{int}.{frac}")
}

/// `digits` (the first at decimal exponent `exp`) in scientific notation
/// with exponent letter `e`.
pub fn scientific_from_digits(digits: &str, exp: i32, e: char) -> String {
    let (first, rest) = digits.split_at(1);
    let dot = if rest.is_empty() { "" } else { "." };
    format!("{first}{dot}{rest}{}", exponent_text(exp, e))
}

/// `e+05`, `e-12`: Python writes at least two exponent digits.
pub fn exponent_text(exp: i32, e: char) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{e}{sign}{:02}", exp.unsigned_abs())
}
