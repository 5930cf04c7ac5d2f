//! Input outside the supported subset, and scripts that fail, give an error
//! with the line and column of the offending code and a message that says
//! what is supported. None of them panics.

/// Runs `source` and returns `(line, column, message)` of its error.
fn error_of(source: &str) -> (usize, usize, String) {
    match script::run(source) {
        Ok(_) => panic!("expected an error for:\n{source}"),
        Err(e) => (e.line, e.column, e.message),
    }
}

fn assert_error(source: &str, line: usize, column: usize, fragment: &str) {
    let (l, c, message) = error_of(source);
    assert_eq!((l, c), (line, column), "position of `{message}`");
    assert!(
        message.contains(fragment),
        "`{message}` should mention `{fragment}`"
    );
}

const PRELUDE: &str = "import tvm\nfrom tvm import te\n";

#[test]
fn unsupported_statements_point_at_the_statement() {
    assert_error(
        "class A(int):\n    pass\n",
        1,
        8,
        "a class with base classes",
    );
    assert_error(
        "import pytest\ndef f():\n    with pytest.raises(RuntimeError), pytest.raises(RuntimeError):\n        pass\n\nf()\n",
        3,
        5,
        "`with` supports one context: `pytest.raises(...)`, `te.tag_scope(...)` or a target",
    );
    assert_error(
        "x = 1\ntry:\n    y = 1 // 0\nexcept FloatingPointError:\n    pass\n",
        4,
        8,
        "name `FloatingPointError` is not defined",
    );
    assert_error(
        "match 1:\n    case 1:\n        pass\n",
        1,
        1,
        "`match` statement",
    );
}

#[test]
fn uncaught_python_exceptions_name_their_class() {
    assert_error("raise ValueError\n", 1, 1, "ValueError: ");
    assert_error(
        "def f(v):\n    raise ValueError(\"bad value %d\" % v)\nf(3)\n",
        2,
        5,
        "ValueError: bad value 3",
    );
    assert_error("d = {}\nd['k']\n", 2, 3, "KeyError: 'k'");
    assert_error(
        "l = [1]\nl[3] = 0\n",
        2,
        3,
        "IndexError: list assignment index out of range",
    );
    assert_error("y = 1 // 0\n", 1, 5, "ZeroDivisionError: division by zero");
    assert_error(
        "x = '%d' % 'a'\n",
        1,
        5,
        "TypeError: %d format: a real number is required, not str",
    );
    assert_error(
        "a, b = [1, 2, 3]\n",
        1,
        1,
        "ValueError: cannot unpack 3 values into 2 names",
    );
    // A Python exception is caught by its class and its bases only.
    assert_error(
        "try:\n    raise KeyError('k')\nexcept IndexError:\n    pass\n",
        2,
        5,
        "KeyError: 'k'",
    );
}

#[test]
fn python_methods_rangefinder_lacks_are_its_limit_not_attribute_errors() {
    // CPython has `str.encode`: no `except` may swallow its absence here.
    assert_error(
        "try:\n    b = 'x'.encode()\nexcept AttributeError:\n    b = None\n",
        2,
        9,
        "`str.encode` is not supported by rangefinder",
    );
    assert_error(
        "ok = hasattr('x', 'translate')\n",
        1,
        6,
        "`str.translate` is not supported",
    );
    // A method CPython lacks is an AttributeError, as in Python.
    let run = script::run("try:\n    'x'.nope\nexcept AttributeError as e:\n    print(e)\n")
        .expect("caught");
    assert_eq!(run.printed, "'str' object has no attribute 'nope'\n");
}

#[test]
fn a_loop_that_never_ends_is_stopped() {
    let (line, _, message) = error_of("while True:\n    pass\n");
    assert!(
        line <= 2 && message.contains("is a loop unbounded?"),
        "{message}"
    );
}

#[test]
fn unsupported_expressions_point_at_the_expression() {
    assert_error("y = [x := 1]\n", 1, 6, "`:=`");
    assert_error("y = 1 @ 2\n", 1, 5, "`@` is not supported");
    assert_error(
        "from tvm import te\nA = te.placeholder((4, 4), name='A')\nB = A[0, ::2]\n",
        3,
        10,
        "a slice of a tensor takes no step",
    );
    assert_error(
        "y = {1: 2}\nz = y[0:1]\n",
        2,
        7,
        "slices of a dict are not supported",
    );
}

#[test]
fn syntax_errors_have_positions() {
    let (line, column, message) = error_of("a = 1\nb = (2,\n");
    assert!(message.starts_with("syntax error"), "{message}");
    assert!(line >= 2, "line {line} column {column}");
    let (line, _, message) = error_of("x = 1\n  y = 2\n");
    assert_eq!(line, 2, "{message}");
}

#[test]
fn failing_asserts_report_their_line_and_both_sides() {
    let src = format!("{PRELUDE}n = 3\nassert n + 1 == 5\n");
    assert_error(
        &src,
        4,
        1,
        "assertion failed: `n + 1 == 5` (left side: 4, right side: 5)",
    );
    let src = format!("{PRELUDE}assert False, \"custom\"\n");
    assert_error(&src, 3, 1, ": custom");
}

#[test]
fn names_modules_and_attributes_say_what_is_available() {
    assert_error(
        "import numpyy as np\n",
        1,
        8,
        "module `numpyy` is not available",
    );
    // `relay` imports (TOPI's modules import it at their top) and fails
    // where it is used; a module TVM programs do not import this way is
    // refused at its import.
    assert_error("from tvm import rpc\n", 1, 17, "has no `rpc`");
    assert_error(
        "A = te.placeholder((4,))\n",
        1,
        5,
        "add `from tvm import te`",
    );
    assert_error(
        &format!("{PRELUDE}x = tvm.rpc\n"),
        3,
        5,
        "`tvm.rpc` is not supported",
    );
    let src = format!("{PRELUDE}A = te.placeholder((4,), name=\"A\")\nA.foo\n");
    assert_error(&src, 4, 1, "no attribute `foo`");
}

#[test]
fn modules_that_need_cpython_fail_where_they_are_first_used() {
    let how = "run the script under CPython with `python -m rangefinder.tvm FILE`";
    let src = "import numpy as np\nimport tvm\nn = 4\nx = np.zeros(n)\n";
    assert_error(
        src,
        4,
        5,
        "`np.zeros(n)` needs CPython: `rangefinder te`'s own interpreter has only part of the \
         module `numpy`",
    );
    assert_error(src, 4, 5, how);
    // `re` is computed; a pattern beyond `regex-lite`'s syntax says how
    // to run it.
    assert_error(
        "import re\nm = re.match(r'(a)\\1', 'aa')\n",
        2,
        14,
        "backreferences are not supported; run the script under CPython",
    );
    assert_error(
        "import re\np = re.compile('x').match(3)\n",
        2,
        27,
        "the string must be str, not int",
    );
    // A pattern too large to compile is an error, not a long wait.
    assert_error(
        "import re\np = re.compile('(a{1000}){1000}')\n",
        2,
        16,
        "does not compile",
    );
    assert_error(
        "import numbers\nok = isinstance(1, numbers.Integral)\n",
        2,
        20,
        "`numbers.Integral` needs CPython",
    );
    assert_error(
        "import os\np = os.path.join('a', 'b')\n",
        2,
        5,
        "`os.path` needs CPython",
    );
    assert_error(
        "from numpy import zeros\nz = zeros(3)\n",
        2,
        5,
        "`zeros(3)` needs CPython",
    );
    assert_error(
        "import numpy as np\nx = np\ny = x.float32(1)\n",
        3,
        5,
        "`x.float32(1)` needs CPython",
    );
    // Importing alone, or a module never used, is no error.
    let run = script::run("import numpy as np\nimport re, numbers, os, sys\nprint('ok')\n")
        .expect("imports succeed");
    assert_eq!(run.printed, "ok\n");
}

#[test]
fn integer_overflow_and_division_by_zero_are_errors() {
    assert_error("x = 9223372036854775807\ny = x + 1\n", 2, 5, "overflow");
    assert_error("y = 7 // 0\n", 1, 5, "division by zero");
    assert_error(
        "y = 99999999999999999999\n",
        1,
        5,
        "does not fit in 64 bits",
    );
    assert_error("y = 2 ** 64\n", 1, 5, "overflow");
}

#[test]
fn runaway_scripts_are_stopped() {
    assert_error("def f(n):\n    return f(n)\n\nf(1)\n", 2, 12, "recursive");
    assert_error("for i in range(10000000):\n    pass\n", 1, 10, "too long");
}

#[test]
fn calls_with_wrong_arguments_name_the_parameter() {
    let src = format!("{PRELUDE}A = te.placeholder((4,), nme=\"A\")\n");
    assert_error(&src, 3, 26, "no parameter `nme`");
    let src = format!("{PRELUDE}A = te.placeholder(name=\"A\")\n");
    assert_error(&src, 3, 5, "needs the argument `shape`");
    let src = format!("{PRELUDE}f = lambda i: i\nf(1, 2)\n");
    assert_error(&src, 4, 1, "takes at most 1 arguments");
}

#[test]
fn te_errors_point_at_the_call() {
    let src = format!(
        "{PRELUDE}A = te.placeholder((4, 4), name=\"A\")\n\
         B = te.compute((4, 4), lambda i, j: A[i, j] + 1, name=\"B\")\n\
         s = te.create_schedule(B.op)\n\
         xo, xi = s[B].split(B.op.axis[0], factor=2)\n\
         s[B].fuse(xo, B.op.axis[1])\n"
    );
    assert_error(&src, 7, 1, "only adjacent loops can be fused");
    let src = format!(
        "{PRELUDE}A = te.placeholder((4, 4), name=\"A\")\n\
         B = te.compute((4, 4), lambda i, j, k: A[i, i], name=\"B\")\n"
    );
    assert_error(
        &src,
        4,
        24,
        "the shape has 2 dimensions but the function takes 3",
    );
    let src = format!(
        "{PRELUDE}A = te.placeholder((4, 4), name=\"A\")\n\
         B = te.compute((4,), lambda i: A[i, i, i], name=\"B\")\n"
    );
    assert_error(&src, 4, 32, "has 2 dimensions but 3 indices");
    let schedule = format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\n\
         B = te.compute((4,), lambda i: A[i] + 1, name=\"B\")\n\
         s = te.create_schedule(B.op)\n"
    );
    let src = format!("{schedule}s[B].bind(B.op.axis[0], B.op.axis[0])\n");
    assert_error(&src, 6, 25, "`bind` needs a thread axis");
    let src = format!("{PRELUDE}tx = te.thread_axis(\"threadIdx.w\")\n");
    assert_error(&src, 3, 21, "unknown thread tag `threadIdx.w`");
    let src = format!("{schedule}s[B].set_scope(\"texture\")\n");
    assert_error(&src, 6, 16, "unknown storage scope `texture`");
    // The method is looked up before its arguments are evaluated, as in Python.
    let src = format!("{schedule}s[B].cache_stage(B.op.axis[0])\n");
    assert_error(&src, 6, 1, "`cache_stage`: unknown stage method");
    let src = format!("{schedule}s[B].storage_align(B.op.axis[0], 0, 1)\n");
    assert_error(&src, 6, 1, "the factor must be positive");
}

#[test]
fn symbolic_conditions_that_cannot_be_decided_are_errors() {
    let src = format!("{PRELUDE}n = te.var(\"n\")\nif n < 4:\n    pass\n");
    assert_error(&src, 4, 4, "cannot decide `n < 4`");
}

#[test]
fn columns_count_characters_not_bytes() {
    // `é` is two bytes in UTF-8 but one column.
    let (line, column, _) = error_of("s = \"é\"; y = 1 // 0\n");
    assert_eq!((line, column), (1, 14));
}

/// Long flat sums evaluate without recursion on their length; nesting past
/// the documented limit is an error at its position, never a stack overflow.
#[test]
fn long_sums_run_and_deep_nesting_is_a_clear_error() {
    let sum = format!("x = {}\nassert x == 50000\n", vec!["1"; 50_000].join(" + "));
    script::run(&sum).expect("a long flat sum runs");
    for deep in [
        format!("x = {}1", "-".repeat(43_000)),
        format!("x = {}1{}", "max(".repeat(5_000), ", 2)".repeat(5_000)),
        format!("x = {}1{}", "(".repeat(4_000), ")".repeat(4_000)),
    ] {
        let e = script::run(&deep).expect_err("too deep");
        assert!(
            e.message.contains("nesting deeper than 200"),
            "{}",
            e.message
        );
    }
}

/// Errors TVM raises at `tvm.lower` (an attachment to a stage that does
/// not read the tensor) or at definition (a reduction axis outside its
/// reduction) are exceptions the script catches where TVM raises them.
#[test]
fn tvm_errors_are_caught_where_tvm_raises_them() {
    let source = r#"
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
C = te.compute((8,), lambda i: B[i] * 2, name="C")
D = te.compute((8,), lambda i: A[i] * 3, name="D")
s = te.create_schedule([C.op, D.op])
s[B].compute_at(s[C], D.op.axis[0])
caught = 0
try:
    tvm.lower(s, [A, C, D])
except RuntimeError:
    caught += 1
s[B].compute_at(s[D], D.op.axis[0])
try:
    tvm.lower(s, [A, C, D])
except tvm.error.TVMError:
    caught += 1
k = te.reduce_axis((0, 8), name="k")
try:
    E = te.compute((8,), lambda i: A[k], name="E")
except tvm.error.TVMError as e:
    caught += 1
assert caught == 3
"#;
    script::run(source).expect("every error is caught");
    let e =
        script::run(&source.replace("except tvm.error.TVMError as e:", "except AssertionError:"))
            .expect_err("uncaught");
    assert!(
        e.message.contains("reduction axis `k` outside"),
        "{}",
        e.message
    );
}
