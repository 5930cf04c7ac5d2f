//! Randomly generated Python programs (format specs, `%` conversions,
//! slices, sorting, arithmetic on Python values) run under `rangefinder
//! te`'s interpreter and under CPython print the same lines. Without
//! `python3` on the machine the comparison is skipped with a note.

use std::io::Write;
use std::process::{Command, Stdio};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const INTS: &[&str] = &[
    "0", "1", "-1", "7", "42", "-255", "1234567", "-98765", "65", "10",
];
const FLOATS: &[&str] = &[
    "0.0",
    "-0.0",
    "0.5",
    "1.5",
    "2.5",
    "-2.5",
    "3.14159",
    "1e16",
    "1.5e-7",
    "123.456",
    "0.0001",
    "-1234567.891",
    "1e22",
    "0.125",
    "2.675",
    "99.995",
    "1e-5",
    "float('inf')",
    "float('nan')",
    "-float('inf')",
    "100.0",
];
const STRS: &[&str] = &["''", "'a'", "'conv2d'", "'it s'", "'NCHW'"];

/// A format spec for a value of kind `kind` (`i`, `f` or `s`).
fn spec(rng: &mut Rng, kind: char) -> String {
    let mut s = String::new();
    if rng.chance(30) {
        if rng.chance(50) {
            s.push(
                rng.pick(&["*", "_", "0", "x"])
                    .chars()
                    .next()
                    .unwrap_or('*'),
            );
        }
        let aligns: &[&str] = if kind == 's' {
            &["<", ">", "^"]
        } else {
            &["<", ">", "^", "="]
        };
        s.push_str(rng.pick(aligns));
    }
    if kind != 's' && rng.chance(30) {
        s.push_str(rng.pick(&["+", "-", " "]));
    }
    if kind != 's' && rng.chance(15) {
        s.push('#');
    }
    if kind != 's' && rng.chance(20) {
        s.push('0');
    }
    if rng.chance(50) {
        s.push_str(&rng.below(14).to_string());
    }
    if kind != 's' && rng.chance(15) {
        s.push_str(rng.pick(&[",", "_"]));
    }
    if kind != 'i' && rng.chance(60) {
        s.push('.');
        s.push_str(&rng.below(9).to_string());
    }
    let types: &[&str] = match kind {
        'i' => &[
            "", "d", "x", "X", "o", "b", "e", "f", "g", "%", "n", "E", "G",
        ],
        'f' => &["", "e", "E", "f", "F", "g", "G", "%", "n"],
        _ => &["", "s"],
    };
    s.push_str(rng.pick(types));
    s
}

fn percent_conversion(rng: &mut Rng, kind: char) -> String {
    let mut s = String::from("%");
    for flag in ["-", "+", " ", "#", "0"] {
        if rng.chance(15) {
            s.push_str(flag);
        }
    }
    if rng.chance(50) {
        s.push_str(&rng.below(12).to_string());
    }
    if rng.chance(40) {
        s.push('.');
        s.push_str(&rng.below(8).to_string());
    }
    let types: &[&str] = match kind {
        'i' => &["d", "i", "x", "X", "o", "e", "f", "g", "s", "r", "E", "G"],
        'f' => &["d", "e", "E", "f", "F", "g", "G", "s", "r"],
        _ => &["s", "r"],
    };
    s.push_str(rng.pick(types));
    s
}

fn value(rng: &mut Rng) -> (char, &'static str) {
    match rng.below(3) {
        0 => ('i', INTS[rng.below(INTS.len())]),
        1 => ('f', FLOATS[rng.below(FLOATS.len())]),
        _ => ('s', STRS[rng.below(STRS.len())]),
    }
}

fn bound(rng: &mut Rng) -> String {
    if rng.chance(30) {
        String::new()
    } else {
        (rng.below(17) as i64 - 8).to_string()
    }
}

/// A program of `lines` random checks; every line prints one result or
/// the name of the exception it raised.
fn program(seed: u64, lines: usize) -> String {
    let mut rng = Rng(seed);
    let mut out = String::from(HEADER);
    for _ in 0..lines {
        let line = match rng.below(10) {
            7 => {
                let text = rng.pick(&[
                    "'a,b,,c'",
                    "'  x  y '",
                    "'xxaxx'",
                    "'a.b.c'",
                    "''",
                    "'AbC d'",
                ]);
                let arg = rng.pick(&["','", "'.'", "None", "'x'", "' '", "'b'"]);
                let n = rng.below(7) as i64 - 2;
                let call = match rng.below(9) {
                    0 => format!("split({arg}, {n})"),
                    1 => format!("rsplit({arg}, {n})"),
                    2 => format!("strip({arg})"),
                    3 => format!("replace('x', '-', {n})"),
                    4 => format!("find({arg})"),
                    5 => format!("center({}, '*')", n + 8),
                    6 => format!("zfill({})", n + 4),
                    7 => format!("startswith(({arg}, 'a'))"),
                    _ => format!("rjust({})", n + 6),
                };
                format!("show(lambda: {text}.{call})")
            }
            8 => {
                let len = rng.below(7);
                let (a, b) = (bound(&mut rng), bound(&mut rng));
                let (a, b) = (or_none(&a), or_none(&b));
                let step = rng.below(5) as i64 - 2;
                let m = rng.below(4);
                match rng.below(5) {
                    0 => format!("show(lambda: del_slice({len}, {a}, {b}, {step}))"),
                    1 => format!("show(lambda: set_slice({len}, {a}, {b}, {m}))"),
                    2 => format!("show(lambda: set_ext_slice({len}, {a}, {b}, {step}, {m}))"),
                    3 => format!("show(lambda: insert_at({len}, {}))", step * 3),
                    _ => format!("show(lambda: pop_at({len}, {}))", step * 2),
                }
            }
            9 => {
                let keys: Vec<String> = (0..rng.below(5))
                    .map(|_| rng.below(4).to_string())
                    .collect();
                let other: Vec<String> = (0..rng.below(4))
                    .map(|_| rng.below(4).to_string())
                    .collect();
                let (k, o) = (keys.join(", "), other.join(", "));
                match rng.below(4) {
                    0 => format!("show(lambda: sorted(set([{k}]) ^ set([{o}])))"),
                    1 => {
                        format!("show(lambda: dict(zip([{k}], [{k}])) == dict(zip([{o}], [{o}])))")
                    }
                    2 => format!("show(lambda: sorted({{x: x * 2 for x in [{k}]}}.items()))"),
                    _ => format!("show(lambda: [x in set([{o}]) for x in [{k}]])"),
                }
            }
            0 | 1 => {
                let (kind, v) = value(&mut rng);
                format!("show(lambda: format({v}, {:?}))", spec(&mut rng, kind))
            }
            2 => {
                let (kind, v) = value(&mut rng);
                format!(
                    "show(lambda: {:?} % ({v},))",
                    percent_conversion(&mut rng, kind)
                )
            }
            3 => {
                let (kind, v) = value(&mut rng);
                format!("show(lambda: f\"{{{v}:{}}}\")", spec(&mut rng, kind))
            }
            4 => {
                let len = rng.below(7);
                let seq = match rng.below(3) {
                    0 => format!("list(range({len}))"),
                    1 => format!("tuple(range({len}))"),
                    _ => format!("'abcdefg'[:{len}]"),
                };
                let step = if rng.chance(50) {
                    let s = rng.below(7) as i64 - 3;
                    format!(":{s}")
                } else {
                    String::new()
                };
                format!(
                    "show(lambda: {seq}[{}:{}{step}])",
                    bound(&mut rng),
                    bound(&mut rng)
                )
            }
            5 => {
                let n = rng.below(6);
                let items: Vec<String> = (0..n)
                    .map(|_| match rng.below(3) {
                        0 => INTS[rng.below(INTS.len())].to_owned(),
                        1 => format!("({}, {:?})", rng.below(3), rng.pick(&["a", "b"])),
                        _ => FLOATS[rng.below(5)].to_owned(),
                    })
                    .collect();
                let reverse = if rng.chance(50) { ", reverse=True" } else { "" };
                format!("show(lambda: sorted([{}]{reverse}))", items.join(", "))
            }
            _ => {
                let (a, b) = (INTS[rng.below(INTS.len())], INTS[rng.below(INTS.len())]);
                let op = rng.pick(&["//", "%", "<<", ">>", "&", "|", "^", "/"]);
                let op = if op == "<<" { ">>" } else { op };
                format!("show(lambda: (({a}) {op} ({b}), divmod({a}, {b}), round({a} / 7, 3)))")
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The helpers every generated program starts with.
const HEADER: &str = "\
def show(f):
    try:
        print(repr(f()))
    except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, OverflowError) as e:
        print(type(e).__name__)
def del_slice(n, a, b, c):
    l = list(range(n))
    del l[a:b:c]
    return l
def set_slice(n, a, b, m):
    l = list(range(n))
    l[a:b] = list(range(100, 100 + m))
    return l
def set_ext_slice(n, a, b, c, m):
    l = list(range(n))
    l[a:b:c] = list(range(100, 100 + m))
    return l
def insert_at(n, i):
    l = list(range(n))
    l.insert(i, 'i')
    return l
def pop_at(n, i):
    l = list(range(n))
    return (l.pop(i), l)
";

/// A slice bound's text, `None` when it is left out.
fn or_none(bound: &str) -> &str {
    if bound.is_empty() {
        "None"
    } else {
        bound
    }
}

fn cpython(source: &str) -> Option<String> {
    let mut child = Command::new("python3")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .expect("a stdin pipe")
        .write_all(source.as_bytes())
        .expect("python3 reads the program");
    let out = child.wait_with_output().expect("python3 runs");
    assert!(
        out.status.success(),
        "CPython failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn random_programs_print_what_cpython_prints() {
    for seed in [
        0x9e3779b97f4a7c15u64,
        0x2545f4914f6cdd1d,
        0x5851f42d4c957f2d,
        7,
        12345,
    ] {
        let source = program(seed, 1500);
        let Some(want) = cpython(&source) else {
            println!(
                "note: python3 is not on this machine; the comparison with CPython is skipped"
            );
            return;
        };
        let got = match script::run(&source) {
            Ok(run) => run.printed,
            Err(e) => panic!("seed {seed:#x}: {e}"),
        };
        let lines: Vec<&str> = source.lines().skip(HEADER.lines().count()).collect();
        for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
            assert_eq!(g, w, "seed {seed:#x}, check {i}: {}", lines[i]);
        }
        assert_eq!(got.lines().count(), want.lines().count(), "seed {seed:#x}");
    }
}
