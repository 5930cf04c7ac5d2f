//! TensorIR functions in the embedded interpreter: `te.create_prim_func`,
//! `@T.prim_func` and `tvm.ir.assert_structural_equal` between them.

mod common;

const EXAMPLE: &str = include_str!("../../../examples/te/tensor_ir/prim_funcs.py");

#[test]
fn created_functions_equal_their_scripts() {
    let run = script::run(EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.printed.contains("T.block(\"S\")"), "{}", run.printed);
}

#[test]
fn a_different_region_or_value_is_a_structural_difference() {
    // The script's store reads `P[vi, vj + 3]` where the compute reads
    // `P[i, j + 2]`.
    let wrong = EXAMPLE
        .replace("P[vi, vj + 2]", "P[vi, vj + 3]")
        .replace("(56, 58)", "(56, 59)");
    let (_, _, message) = common::error_of(&wrong);
    assert!(
        message.starts_with("StructuralEqual check failed"),
        "{message}"
    );
    // A different reduction identity.
    let wrong = EXAMPLE.replace("T.min_value(\"float32\")", "T.float32(0)");
    let (_, _, message) = common::error_of(&wrong);
    assert!(message.contains("the store to `M`"), "{message}");
}

#[test]
fn unsupported_operations_and_scripts_say_so() {
    let (_, _, message) = common::error_of(
        "\
import tvm
from tvm import te
m = te.var('m')
X = te.placeholder((m, 4), name='X')
state = te.placeholder((m, 4), name='state')
init = te.compute((1, 4), lambda _, i: X[0, i], name='init')
update = te.compute((m, 4), lambda t, i: state[t - 1, i] + X[t, i], name='update')
scan = te.scan(init, update, state, inputs=[X])
te.create_prim_func([X, scan])
",
    );
    assert!(
        message.starts_with("Unsupported Operation: ScanOp."),
        "{message}"
    );
    // A function that does not parse is defined; its use raises.
    let (line, _, message) = common::error_of(
        "\
import tvm
from tvm.script import tir as T

@T.prim_func
def f(a: T.handle) -> None:
    A = T.match_buffer(a, (4,))
    for i in T.thread_binding(4, 'threadIdx.x'):
        A[i] = 0.0

g = f
tvm.ir.assert_structural_equal(f, g)
",
    );
    assert_eq!(line, 11);
    assert!(message.contains("a loop runs over"), "{message}");
}

/// What `func.script()` prints parses back (`tvm.script.from_source`) as
/// the same function, for computes of the shapes TOPI's operators take:
/// padded convolutions, depthwise, pooling, softmax's reductions, layout
/// transforms with division and modulo, batched products, symbolic sizes.
#[test]
fn printed_functions_read_back_as_themselves() {
    let src = "\
import tvm
from tvm import te, topi

def roundtrip(args):
    f = te.create_prim_func(args)
    g = tvm.script.from_source(f.script())
    tvm.ir.assert_structural_equal(f, g)
    tvm.ir.assert_structural_equal(g, f)

# ResNet-50 stage 2: 3x3 convolution over a zero-padded input.
data = te.placeholder((1, 64, 56, 56), name='data')
kernel = te.placeholder((64, 64, 3, 3), name='kernel')
pad = te.compute((1, 64, 58, 58), lambda n, c, y, x: tvm.tir.if_then_else(
    tvm.tir.all(y >= 1, y < 57, x >= 1, x < 57), data[n, c, y - 1, x - 1], 0.0), name='pad')
rc = te.reduce_axis((0, 64), name='rc')
ry = te.reduce_axis((0, 3), name='ry')
rx = te.reduce_axis((0, 3), name='rx')
conv = te.compute((1, 64, 56, 56), lambda n, f, y, x: te.sum(
    pad[n, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]), name='conv')
roundtrip([data, kernel, conv])

# MobileNet depthwise 3x3 with stride 2.
dw_in = te.placeholder((1, 32, 112, 112), name='dw_in')
dw_w = te.placeholder((32, 1, 3, 3), name='dw_w')
di = te.reduce_axis((0, 3), name='di')
dj = te.reduce_axis((0, 3), name='dj')
dw = te.compute((1, 32, 55, 55), lambda b, c, i, j: te.sum(
    dw_in[b, c, i * 2 + di, j * 2 + dj] * dw_w[c, 0, di, dj], axis=[di, dj]), name='dw')
roundtrip([dw_in, dw_w, dw])

# TOPI's max pooling.
pool = topi.nn.pool2d(data, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'max')
roundtrip([data, pool])

# BERT softmax over rows of 128: max, exp-sum, divide.
logits = te.placeholder((12, 128, 128), name='logits')
k = te.reduce_axis((0, 128), name='k')
mx = te.compute((12, 128), lambda h, i: te.max(logits[h, i, k], axis=k), name='mx')
k2 = te.reduce_axis((0, 128), name='k2')
ex = te.compute((12, 128), lambda h, i: te.sum(te.exp(logits[h, i, k2] - mx[h, i]), axis=k2), name='ex')
sm = te.compute((12, 128, 128), lambda h, i, j: te.exp(logits[h, i, j] - mx[h, i]) / ex[h, i], name='sm')
roundtrip([logits, sm])

# NCHW to NCHW16c, then batched products with a symbolic batch.
x = te.placeholder((1, 64, 14, 14), name='x')
packed = te.compute((1, 4, 14, 14, 16), lambda n, co, h, w, ci: x[n, co * 16 + ci, h, w], name='packed')
unpacked = te.compute((1, 64, 14, 14), lambda n, c, h, w: packed[n, c // 16, h, w, c % 16], name='unpacked')
roundtrip([x, unpacked])
b = te.var('b')
lhs = te.placeholder((b, 64, 32), name='lhs')
rhs = te.placeholder((b, 32, 48), name='rhs')
kk = te.reduce_axis((0, 32), name='kk')
bmm = te.compute((b, 64, 48), lambda z, i, j: te.sum(lhs[z, i, kk] * rhs[z, kk, j], axis=kk), name='bmm')
roundtrip([lhs, rhs, bmm])

# A size passed as a scalar parameter: the rows of a slice.
rows = te.var('rows')
src = te.placeholder((rows + 3, 16), name='src')
sl = te.compute((rows, 16), lambda i, j: src[i + 2, j] * 2.0, name='sl')
roundtrip([src, rows, sl])
print('ok')
";
    let run = script::run(src).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.printed.ends_with("ok\n"), "{}", run.printed);
}

/// Malformed TVMScript and misuse of the TensorIR objects end in an error
/// that says what is wrong, never a panic.
#[test]
fn malformed_functions_are_errors() {
    let head = "import tvm\nfrom tvm import te, tir\nfrom tvm.script import tir as T\n";
    let cases: &[(&str, &str)] = &[
        (
            "@T.prim_func\ndef f(a: T.handle):\n    A = T.match_buffer(a, (4,))\n    for i in range(4):\n        with T.block('x'):\n            v, w = T.axis.remap('SS', [i])\n            A[v] = 0.0\nprint(f.script())\n",
            "one kind and one loop variable per block variable",
        ),
        (
            "@T.prim_func\ndef f(a: T.handle):\n    A = T.match_buffer(a, (4,))\n    with T.block('x'):\n        v = T.axis.remap('S', [3])\n        A[v] = 0.0\nprint(f.script())\n",
            "is not a loop variable",
        ),
        (
            "@T.prim_func\ndef f(A: T.Buffer((4, 4), 'float32')):\n    for i in range(4):\n        A[i] = 1.0\nprint(f.script())\n",
            "2 dimensions but 1 indices",
        ),
        (
            "@T.prim_func\ndef f(a: T.handle):\n    A = T.match_buffer(a, (-4,))\nprint(f.script())\n",
            "negative size",
        ),
        (
            "@T.prim_func\ndef f(a: T.handle):\n    A = T.match_buffer(a, (4,))\n    with T.init():\n        A[0] = 0.0\nprint(f.script())\n",
            "belongs in a block",
        ),
        ("tvm.script.from_source('def (:')\n", "does not parse"),
        ("tvm.script.from_source('x = 1')\n", "no function"),
        (
            "A = te.placeholder((4,), name='A')\nB = te.compute((4,), lambda i: A[i] + 1.0, name='B')\ns = tir.Schedule(te.create_prim_func([A, B]))\ns.split(None, [2, 2])\n",
            "transforms nothing",
        ),
        ("te.create_prim_func([1, 'a'])\n", "takes tensors"),
        (
            "@T.prim_func\ndef f(A: T.Buffer((4,), 'int32')):\n    for i in range(4):\n        with T.block('x'):\n            v = T.axis.spatial(4, i)\n            x: T.float32 = A[v]\n            A[v] = 0\nprint(f.script())\n",
            "`x` is declared float32 but its value is int32",
        ),
        (
            "@T.prim_func\ndef f(A: T.Buffer((4,), 'int32')):\n    for i in range(4):\n        with T.block('x'):\n            v = T.axis.spatial(4, i)\n            x: T.int32\n            A[v] = 0\nprint(f.script())\n",
            "`x` is declared without a value",
        ),
        (
            "@T.prim_func\ndef f(A: T.Buffer((4,), 'int32')):\n    for i in range(4):\n        with T.block('x'):\n            v = T.axis.spatial(4, i)\n            x: int = v\n            A[v] = x\nprint(f.script())\n",
            "annotated with its type",
        ),
        (
            "@T.prim_func\ndef f(A: T.Buffer((4,), 'int32')):\n    with T.LetStmt(1, 2) as x:\n        A[0] = x\nprint(f.script())\n",
            "`T.LetStmt` takes one value",
        ),
    ];
    for (body, expected) in cases {
        let (_, _, message) = common::error_of(&format!("{head}{body}"));
        assert!(message.contains(expected), "{body}\n{message}");
    }
}

/// A tuple reduction (`te.comm_reducer` over `(value, index)` pairs).
const ARGMIN: &str = "\
import tvm
from tvm import te
from tvm.script import tir as T

def combine(x, y):
    keep = x[0] <= y[0]
    return tvm.tir.Select(keep, x[0], y[0]), tvm.tir.Select(keep, x[1], y[1])

def identity(t0, t1):
    return te.max_value(t0), tvm.tir.const(-1, t1)

argmin = te.comm_reducer(combine, identity, name='argmin')
D = te.placeholder((6, 5), name='D')
J = te.placeholder((6, 5), name='J', dtype='int32')
r = te.reduce_axis((0, 5), name='r')
lo, at = te.compute((6,), lambda p: argmin((D[p, r], J[p, r]), axis=r), name='lo')
f = te.create_prim_func([D, J, lo, at])

@T.prim_func
def expected(D: T.Buffer((6, 5), 'float32'), J: T.Buffer((6, 5), 'int32'),
             lo_v0: T.Buffer((6,), 'float32'), lo_v1: T.Buffer((6,), 'int32')):
    T.func_attr({'global_symbol': 'main', 'tir.noalias': True})
    for p, r in T.grid(6, 5):
        with T.block('lo'):
            vp, vr = T.axis.remap('SR', [p, r])
            with T.init():
                lo_v0[vp] = T.max_value('float32')
                lo_v1[vp] = T.int32(-1)
            best: T.float32 = T.Select(lo_v0[vp] <= D[vp, vr], lo_v0[vp], D[vp, vr])
            at: T.int32 = T.Select(lo_v0[vp] <= D[vp, vr], lo_v1[vp], J[vp, vr])
            lo_v0[vp] = best
            lo_v1[vp] = at

tvm.ir.assert_structural_equal(f, expected)
";

/// A tuple reduction is one block whose update binds each combined value
/// to a `let` before storing: its printed text reads back as the same
/// function, a hand-written `@T.prim_func` with annotated assignments
/// (`best: T.float32 = ...`) equals it, and one whose `let` differs does
/// not.
#[test]
fn a_tuple_reduction_reads_back_and_equals_its_script() {
    let src = format!(
        "{ARGMIN}
text = f.script()
assert 'v_lo_v0: T.float32 = ' in text, text
assert 'lo_v1[v_p] = v_lo_v1' in text, text
g = tvm.script.from_source(text)
tvm.ir.assert_structural_equal(f, g)
tvm.ir.assert_structural_equal(g, f)
tvm.ir.assert_structural_equal(g, expected)
print('ok')
"
    );
    let run = script::run(&src).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.printed.ends_with("ok\n"), "{}", run.printed);
    // The index chosen from the new pair where the old one is kept.
    let wrong = ARGMIN.replace("lo_v1[vp], J[vp, vr]", "J[vp, vr], lo_v1[vp]");
    let (_, _, message) = common::error_of(&wrong);
    assert!(
        message.starts_with("StructuralEqual check failed: the `let` of"),
        "{message}"
    );
    // A `let` of another type.
    let wrong = ARGMIN.replace("at: T.int32", "at: T.int64");
    let (_, _, message) = common::error_of(&wrong);
    assert!(message.contains("is int32 against int64"), "{message}");
    // Stores of the new values without `let`s: each store would see the
    // one before it.
    let wrong = ARGMIN
        .replace(
            "            lo_v0[vp] = best\n            lo_v1[vp] = at\n",
            "",
        )
        .replace("best: T.float32 = ", "lo_v0[vp] = ")
        .replace("at: T.int32 = ", "lo_v1[vp] = ");
    let (_, _, message) = common::error_of(&wrong);
    assert!(
        message.contains("a `let` stands where the other side has a sequence"),
        "{message}"
    );
}

/// A `let` that does not end its scope prints as `with T.LetStmt(...) as
/// x:` (TVM's printer), which reads back; a scalar annotated with the
/// wrong type or without a value is an error that says so.
#[test]
fn lets_in_the_middle_of_a_scope_read_back() {
    let src = "\
import tvm
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((8,), 'float32'), B: T.Buffer((8,), 'float32'), C: T.Buffer((8,), 'int32')):
    for i in range(8):
        with T.block('B'):
            vi = T.axis.spatial(8, i)
            with T.LetStmt(A[vi] * T.float32(2)) as twice:
                B[vi] = twice + T.float32(1)
            j: T.int32 = (vi + 3) % 8
            C[vi] = j
            B[j] = A[j]

text = f.script()
assert 'with T.LetStmt(A[vi] * T.float32(2.0)) as twice:' in text, text
assert '            j: T.int32 = (vi + 3) % 8' in text, text
g = tvm.script.from_source(text)
tvm.ir.assert_structural_equal(f, g)
assert '            B[j] = A[j]' in text, text
print('ok')
";
    let run = script::run(src).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.printed.ends_with("ok\n"), "{}", run.printed);
}

/// A data-dependent index computed by an integer cast, as TOPI's resize
/// computes it; the sizes are `tir.Var`s of type int64.
const NEAREST: &str = "\
import tvm
from tvm import te, tir
oh = tir.Var('oh', 'int64')
A = te.placeholder((4, 128), name='A')
B = te.compute((4, oh), lambda n, i: A[n, te.max(te.min((te.round(128.0 / oh.astype('float32') * i.astype('float32'))).astype('int32'), 127), 0)], name='B')
";

#[test]
fn index_dtype_override_widens_the_casts_of_data_dependent_indices() {
    let script = |override_arg: &str| {
        format!("{NEAREST}print(te.create_prim_func([A, B]{override_arg}).script())\n")
    };
    let plain = script::run(&script("")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        plain.printed.contains("T.Cast(\"int32\""),
        "{}",
        plain.printed
    );
    for widened in [", index_dtype_override='int64'", ", 'int64'"] {
        let run = script::run(&script(widened)).unwrap_or_else(|e| panic!("{e}"));
        assert!(run.printed.contains("T.Cast(\"int64\""), "{}", run.printed);
        assert!(!run.printed.contains("T.Cast(\"int32\""), "{}", run.printed);
    }
    let int32 = script::run(&script(", index_dtype_override='int32'")).unwrap();
    assert!(
        int32.printed.contains("T.Cast(\"int32\""),
        "{}",
        int32.printed
    );
    let (_, _, message) = common::error_of(&script(", index_dtype_override='float32'"));
    assert!(message.contains("`index_dtype_override` is"), "{message}");
}

#[test]
fn tir_var_and_size_var_are_constructors() {
    let run = script::run(
        "\
import tvm
from tvm import te, tir
n = tir.Var('n', 'int64')
m = tvm.tir.SizeVar('m', 'int32')
A = te.placeholder((n, m), name='A')
print(A.shape, isinstance(n, tir.Var))
",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(run.printed.trim(), "[n, m] True");
}

/// Outside a `@T.prim_func`, a type of `tvm.script.tir` called on a value
/// is a constant of that type and called on nothing a variable, as TVM's
/// `T.int32(8)` and `T.int32()` are; a split takes the constant as its
/// factor.
#[test]
fn script_types_make_constants_and_variables() {
    let run = common::run(
        "import tvm\nfrom tvm import te\nfrom tvm.script import tir as T\n\
         f = T.int32(8)\n\
         print(f, T.float32(0.5), T.int64(3), T.int8(3).dtype)\n\
         v = T.int32()\n\
         print(v.dtype, isinstance(v, tvm.tir.Var), T.float32().dtype)\n\
         A = te.placeholder((16,), name='A')\n\
         B = te.compute((16,), lambda i: A[i] + 1, name='B')\n\
         s = te.create_schedule(B.op)\n\
         xo, xi = s[B].split(B.op.axis[0], factor=f)\n\
         print(tvm.lower(s, [A, B], simple_mode=True))\n",
    );
    assert!(
        run.printed
            .starts_with("8 0.5 3 int8\nint32 True float32\n"),
        "{}",
        run.printed
    );
    assert!(
        run.printed.contains("for (i.inner, 0, 8)"),
        "{}",
        run.printed
    );
    let (_, _, message) =
        common::error_of("from tvm.script import tir as T\nx = T.int32('eight')\n");
    assert!(message.contains("needs an integer"), "{message}");
}
