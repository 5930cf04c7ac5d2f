//! Hybrid scripts (`@te.hybrid.script`): the function's source parses into
//! an operation whose body is its loops and stores; the operation reads
//! its tensor arguments whole, writes its outputs whole, and its loops
//! take a schedule. Each program's lowered form is run against the
//! definitions (`te::check`), the hybrid body itself run unscheduled as
//! the reference.

mod common;

const PRELUDE: &str = "import tvm\nfrom tvm import te\n";

/// Runs `body` and checks the program it lowered last against the
/// definitions; returns what it printed.
fn run_checked(body: &str) -> String {
    common::run_checked(&format!("{PRELUDE}{body}"), 7, 3, 1e-5)
}

/// The error `body` stops with: line, column and message.
fn error_of(body: &str) -> (usize, usize, String) {
    common::error_of(&format!("{PRELUDE}{body}"))
}

const OUTER_PRODUCT: &str = "\
@te.hybrid.script
def outer_product(n, m, a, b):
    \"\"\"A docstring is skipped.\"\"\"
    c = output_tensor((n, m), a.dtype)
    for i in range(n):
        for j in range(m):
            assert i < n and j < m, \"index out of range!\"
            c[i, j] = a[i] * b[j]
    return c

n = te.size_var(\"n\")
m = te.size_var(\"m\")
a = te.placeholder((n,), name=\"a\")
b = te.placeholder((m,), name=\"b\")
c = outer_product(n, m, a, b)
";

#[test]
fn a_hybrid_function_is_an_operation_whose_body_is_its_loops() {
    let printed = run_checked(&format!(
        "{OUTER_PRODUCT}
assert isinstance(c.op, te.HybridOp)
assert c.op.name == \"outer_product\"
assert [t.name for t in c.op.inputs] == [\"a\", \"b\"]
assert [iv.var.name for iv in c.op.axis] == [\"i\", \"j\"]
s = te.create_schedule(c.op)
print(tvm.lower(s, [a, b, c], simple_mode=True))
"
    ));
    assert_eq!(
        printed,
        "produce outer_product {
  for (i, 0, n) {
    for (j, 0, m) {
      outer_product[i, j] = (a[i]*b[j])
    }
  }
}
\n"
    );
}

#[test]
fn a_variable_of_the_body_is_a_buffer_of_the_block_that_holds_its_uses() {
    let printed = run_checked(
        "\
@te.hybrid.script
def fanout(n, a):
    three = 3.0
    b = output_tensor((a.shape[0] - 3,), a.dtype)
    for i in range(a.shape[0] - 3):
        sigma = 0.0
        for j in range(3):
            sigma += a[i + j]
        sigma = sigma / three
        b[i] = sigma
    return b

n = te.size_var(\"n\")
a = te.placeholder((n,), \"float32\", name=\"a\")
b = fanout(n, a)
s = te.create_schedule(b.op)
print(tvm.lower(s, [a, b], simple_mode=True))
",
    );
    // `three` is assigned once from a number: it stands for it, and the
    // division by it is a product, as TVM's parser writes it.
    assert_eq!(
        printed,
        "produce fanout {
  for (i, 0, (n - 3)) {
    // attr [sigma] storage_scope = \"global\"
    allocate sigma[float32 * 1]
    sigma[0] = 0.000000f
    for (j, 0, 3) {
      sigma[0] = (sigma[0] + a[(i + j)])
    }
    sigma[0] = (sigma[0]*0.333333f)
    fanout[i] = sigma[0]
  }
}
\n"
    );
}

#[test]
fn const_range_unrolls_and_names_are_found_where_the_function_was_defined() {
    let printed = run_checked(
        "\
constant_list = [[1, 2], [3, 8]]
const_value = 1

def make():
    n = 2
    @te.hybrid.script
    def add_something(a, b):
        c = output_tensor((n, 5), a.dtype)
        for i in const_range(n):
            for j in const_range(len(b[0])):
                if i < 1:
                    c[i, j] = a[i, j] + b[i][j] + constant_list[1][const_value]
                else:
                    c[i, j] = a[i, j] - b[i, j]
        return c
    return add_something

a = te.placeholder((2, 5), name=\"a\", dtype=\"int32\")
c = make()(a, [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])
s = te.create_schedule(c.op)
print(tvm.lower(s, [a, c], simple_mode=True))
",
    );
    assert!(
        printed.contains("add_something[0, 4] = ((a[0, 4] + 5) + 8)"),
        "{printed}"
    );
    assert!(
        printed.contains("add_something[1, 0] = (a[1, 0] - 5)"),
        "{printed}"
    );
    assert!(!printed.contains("for ("), "{printed}");
}

#[test]
fn outputs_of_several_shapes_feed_computes_and_other_hybrid_functions() {
    run_checked(
        "\
@te.hybrid.script
def kernel_a(a):
    b = output_tensor((16,), \"int32\")
    c = output_tensor((4, 4), \"int32\")
    for i in range(16):
        b[i] = a[i] + 2
        c[i // 4, i % 4] = a[i] + 1
    return b, c

@te.hybrid.script
def kernel_b(b, a):
    c = output_tensor((4, 4), \"int32\")
    for i in range(4):
        for j in range(4):
            c[i, j] = a[i * 4 + j] * b[i, j]
    return c

a = te.placeholder((16,), \"int32\", name=\"a\")
b, c = kernel_a(a)
assert (b.value_index, c.value_index) == (0, 1)
assert [int(x) for x in c.shape] == [4, 4]
d = kernel_b(c, b)
e = te.compute((4, 4), lambda i, j: d[i, j] + b[i * 4 + j], name=\"e\")
s = te.create_schedule(e.op)
tvm.lower(s, [a, e])
",
    );
}

#[test]
fn a_schedule_splits_fuses_reorders_and_annotates_the_hybrid_loops() {
    let base = "\
@te.hybrid.script
def outer(a, b):
    c = output_tensor((64, 60), a.dtype)
    for i in range(64):
        for j in range(60):
            c[i, j] = a[i] * b[j]
    return c

a = te.placeholder((64,), name=\"a\")
b = te.placeholder((60,), name=\"b\")
c = outer(a, b)
s = te.create_schedule(c.op)
i, j = c.op.axis
";
    let printed = run_checked(&format!(
        "{base}io, ii = s[c].split(i, 4)
s[c].parallel(ii)
jo, ji = s[c].split(j, 8)
s[c].vectorize(ji)
s[c].reorder(ii, io, jo, ji)
body = tvm.lower(s, [a, b, c])[\"main\"].body
assert isinstance(body, tvm.tir.AttrStmt)
assert body.body.loop_var.name == \"i.inner\"
assert body.body.kind == tvm.tir.ForKind.PARALLEL
print(body)
"
    ));
    // 60 is not a multiple of 8: the tail is guarded inside the loops.
    assert!(printed.starts_with("produce outer {\n  parallel (i.inner, 0, 4) {\n    for (i.outer, 0, 16) {\n      for (j.outer, 0, 8) {\n        vectorized (j.inner, 0, 8) {\n          if (likely((((j.outer*8) + j.inner) < 60))) {"), "{printed}");
    let fused = run_checked(&format!(
        "{base}s[c].fuse(i, j)
print(tvm.lower(s, [a, b, c], simple_mode=True))
"
    ));
    assert!(fused.contains("for (i.j.fused, 0, 3840)"), "{fused}");
    assert!(
        fused.contains("outer[floordiv(i.j.fused, 60), floormod(i.j.fused, 60)]"),
        "{fused}"
    );
    run_checked(&format!(
        "{base}s[c].bind(i, te.thread_axis(\"blockIdx.x\"))
s[c].bind(j, te.thread_axis(\"threadIdx.x\"))
tvm.lower(s, [a, b, c])
"
    ));
}

#[test]
fn loops_whose_ranges_depend_on_each_other_are_not_reordered() {
    let (_, _, msg) = error_of(
        "\
@te.hybrid.script
def triangle(a, b):
    c = output_tensor((10, 10), \"float32\")
    for i in range(10):
        for j in range(i, 10):
            c[i, j] = a[i] * b[j]
    return c

a = te.placeholder((10,), name=\"a\")
b = te.placeholder((10,), name=\"b\")
c = triangle(a, b)
s = te.create_schedule(c.op)
i, j = c.op.axis
s[c].reorder(j, i)
tvm.lower(s, [a, b, c])
",
    );
    assert!(
        msg.contains("depends on another loop: the loops cannot be reordered"),
        "{msg}"
    );
}

#[test]
fn a_call_of_another_hybrid_function_is_inlined() {
    let printed = run_checked(
        "\
@te.hybrid.script
def outer_product(n, m, a, b):
    c = output_tensor((n, m), a.dtype)
    for i in range(n):
        for j in range(m):
            c[i, j] = a[i] * b[j]
    return c

@te.hybrid.script
def foo(a, b):
    c = outer_product(10, 10, a, b)
    d = output_tensor(c.shape, c.dtype)
    for i in range(10):
        for j in range(10):
            d[i, j] = c[i, j] + i * j
    return d

a = te.placeholder((10,), name=\"a\")
b = te.placeholder((10,), name=\"b\")
d = foo(a, b)
s = te.create_schedule(d.op)
print(tvm.lower(s, [a, b, d], simple_mode=True))
",
    );
    assert!(
        printed.contains("allocate c[float32 * 10 * 10]"),
        "{printed}"
    );
    assert!(
        printed.contains("foo[i, j] = (c[i, j] + float32((i*j)))"),
        "{printed}"
    );
}

#[test]
fn hybrid_build_writes_the_scheduled_program_back_as_a_hybrid_script() {
    let printed = run_checked(&format!(
        "{OUTER_PRODUCT}
s = te.create_schedule(c.op)
xo, xi = s[c].split(c.op.axis[0], 3)
m2 = te.hybrid.build(s, [n, m, a, b], [c])
print(m2.name)
print(m2.source)
c2 = m2(n, m, a, b)
s = te.create_schedule(c2.op)
tvm.lower(s, [a, b, c2])
"
    ));
    assert_eq!(
        printed,
        "hybrid_func
def hybrid_func(n, m, a, b):
    outer_product = output_tensor((n, m), \"float32\")
    for i_outer in range(ceil_div(n, 3)):
        for i_inner in range(min(n, 3)):
            if likely((((i_outer * 3) + i_inner) < n)):
                for j in range(m):
                    outer_product[((i_outer * 3) + i_inner), j] = (a[((i_outer * 3) + i_inner)] * b[j])
    return outer_product

"
    );
}

#[test]
fn threads_bound_in_the_script_launch_as_a_gpu_block() {
    run_checked(
        "\
@te.hybrid.script
def share_vec_add(a, b):
    c = output_tensor((256,), \"float32\")
    shared = allocate((256,), \"float32\", \"shared\")
    for i in bind(\"threadIdx.x\", 256):
        shared[i] = a[i]
    local = allocate((256,), \"float32\", \"local\")
    for i in bind(\"threadIdx.x\", 256):
        local[i] = b[i]
    for i in bind(\"threadIdx.x\", 256):
        c[i] = shared[i] + local[i]
    return c

a = te.placeholder((256,), name=\"a\")
b = te.placeholder((256,), name=\"b\")
c = share_vec_add(a, b)
s = te.create_schedule(c.op)
tvm.lower(s, [a, b, c])
",
    );
}

#[test]
fn mistakes_in_a_hybrid_script_name_their_line() {
    let (_, _, msg) = error_of(
        "\
@te.hybrid.script
def f(a):
    c = output_tensor((4,), \"float32\")
    for i in range(4):
        c[i] = a[i] * undefined_name
    return c

a = te.placeholder((4,), name=\"a\")
f(a)
",
    );
    assert!(
        msg.contains("name `undefined_name` is not defined (line 7, hybrid function `f`)"),
        "{msg}"
    );
    let (_, _, msg) = error_of(
        "\
@te.hybrid.script
def g(a):
    c = output_tensor((4,), \"float32\")
    while True:
        pass
    return c

a = te.placeholder((4,), name=\"a\")
g(a)
",
    );
    assert!(
        msg.contains("this statement is not supported in a hybrid script"),
        "{msg}"
    );
    let (_, _, msg) = error_of(
        "\
@te.hybrid.script
def h(a):
    return a

a = te.placeholder((4,), name=\"a\")
h(a)
",
    );
    assert!(
        msg.contains("returns `a`, which is not one of its `output_tensor`s"),
        "{msg}"
    );
}

#[test]
fn a_script_that_accumulates_into_its_output_starts_from_zeros() {
    // As `output_tensor` is when the script runs as Python (TVM's tests
    // pass arrays of zeros to the built function).
    run_checked(
        "\
@te.hybrid.script
def sum_array(inputs):
    out = output_tensor((10,), inputs[0].dtype)
    n = len(inputs)
    for i in range(10):
        for j in const_range(n):
            out[i] += inputs[j][i]
    return out

inputs = [te.placeholder((10,), name=\"t%s\" % i) for i in range(3)]
out = sum_array(inputs)
assert len(out.op.inputs) == 3
s = te.create_schedule(out.op)
tvm.lower(s, inputs + [out])
",
    );
}

#[test]
fn a_store_at_an_index_read_at_run_time_scatters() {
    // TOPI's `invert_permutation` and `argwhere` hybrid scripts.
    let printed = run_checked(
        "\
@te.hybrid.script
def invert_permutation(data):
    result = output_tensor(data.shape, data.dtype)
    for ind in range(data.shape[0]):
        r_ind = data[ind]
        result[r_ind] = ind
    return result

@te.hybrid.script
def argwhere_2d(output_shape, condition):
    a = output_tensor(output_shape, \"int32\")
    valid_index = 0
    for i1 in range(condition.shape[0]):
        for i2 in range(condition.shape[1]):
            if condition[i1, i2] != 0:
                a[valid_index, 0] = i1
                a[valid_index, 1] = i2
                valid_index += 1
    return a

data = te.placeholder((5,), \"int32\", name=\"data\")
r = invert_permutation(data)
s = te.create_schedule(r.op)
print(tvm.lower(s, [data, r], simple_mode=True))
cond = te.placeholder((3, 4), \"int32\", name=\"cond\")
out = argwhere_2d((12, 2), cond)
s = te.create_schedule(out.op)
print(tvm.lower(s, [cond, out], simple_mode=True))
",
    );
    // The check runs the last program (random inputs are no permutation).
    assert!(
        printed.contains("let result_index0 = r_ind[0]\n"),
        "{printed}"
    );
    assert!(
        printed.contains("let a_index0 = valid_index[0]\n"),
        "{printed}"
    );
    let (_, _, msg) = error_of(
        "\
@te.hybrid.script
def f(data):
    result = output_tensor(data.shape, data.dtype)
    for ind in range(data.shape[0]):
        result[data[ind]] = 1.0
    return result

data = te.placeholder((5,), \"float32\", name=\"data\")
f(data)
",
    );
    assert!(
        msg.contains("an index must be an integer, found a float32 value"),
        "{msg}"
    );
}

/// TVM's hybrid intrinsics on integers and floats: `popcount` counts the
/// set bits (114514 has 11), `rsqrt` is `1 / sqrt`; the built function
/// computes them, and the program is checked against its definition.
#[test]
fn integer_and_float_intrinsics_of_hybrid_scripts_compute() {
    let printed = run_checked(
        "@te.hybrid.script\n\
         def bits(a, x):\n    b = output_tensor((2,), 'int32')\n    y = output_tensor((1,), 'float32')\n    \
         b[0] = popcount(a[0])\n    b[1] = popcount(a[1])\n    y[0] = rsqrt(x[0])\n    return b, y\n\
         a = te.placeholder((2,), dtype='int32', name='a')\n\
         x = te.placeholder((1,), name='x')\n\
         b, y = bits(a, x)\n\
         s = te.create_schedule([b.op])\n\
         f = tvm.build(s, [a, x, b, y])\n\
         tb = tvm.nd.array([0, 0], dtype='int32')\n\
         ty = tvm.nd.array([0.0])\n\
         f(tvm.nd.array([114514, 7], dtype='int32'), tvm.nd.array([4.0]), tb, ty)\n\
         print(tb, ty)\n",
    );
    assert!(printed.starts_with("[11, 3] [0.5]\n"), "{printed}");
}
