# What TVM's own tests read back from schedules, reducers and expressions:
# a stage's loop records (iter_var_attrs), where stages and groups are
# attached, object hashes, a reducer combining values directly, the parts
# of a reduction, post_order_visit over an expression, and a built
# function with a scalar parameter.
import tvm
from tvm import te

m = te.size_var("m")
n = te.size_var("n")
A = te.placeholder((m, n), name="A", dtype="float")
T = te.compute((m, n), lambda i, j: A[i, j] * 2.0, name="T")
s = te.create_schedule(T.op)
xo, yo, xi, yi = s[T].tile(T.op.axis[0], T.op.axis[1], x_factor=4, y_factor=2)
s[T].vectorize(yi)
s[T].unroll(xi)
s[T].pragma(xo, "auto_unroll_max_step", 16)
attrs = s[T].iter_var_attrs
IV = tvm.te.schedule.IterVar
print(A.dtype, attrs[xi].iter_type == IV.Unrolled, attrs[yi].iter_type == IV.Vectorized)
print(attrs[xo].pragma_keys[0].value, attrs[xo].pragma_values[0], yo in attrs)
print(s[T].attach_type, T.__hash__() == T.op.output(0).__hash__())

x = te.compute((m, n), lambda i, j: A[i, j] + 1.0, name="x")
x1 = te.compute(x.shape, lambda *i: x(*i) + 1, name="x1")
x2 = te.compute(x.shape, lambda *i: x1(*i) + 2, name="x2")
s2 = te.create_schedule(x2.op)
g = s2.create_group(outputs=x1, inputs=x, include_inputs=True)
g.compute_at(s2[x2], x2.op.axis[1])
print(g.attach_stage == s2[x2], g.attach_ivar == x2.op.axis[1], g.attach_type, len(s2.groups))
s2[x2].compute_root()
print(s2[x2].attach_stage is None, s2[x2].attach_type)

mysum = te.comm_reducer(lambda a, b: a + b, lambda t: tvm.tir.const(0, dtype=t), name="mysum")
print(mysum(m, n), mysum(m, n, 3))
k = te.reduce_axis((0, n), name="k")
R = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="R")
red = R.op.body[0]
print([iv.var.name for iv in red.axis], red.axis[0].dom.extent, len(red.source))

kinds = []
def visit(node):
    if isinstance(node, tvm.tir.ProducerLoad):
        kinds.append("load")
    elif isinstance(node, tvm.tir.Call):
        kinds.append("call")
tvm.tir.stmt_functor.post_order_visit(te.compute((4,), lambda i: te.exp(A[i, 0]) + A[i, 1]).op.body[0], visit)
print(kinds)

v = te.var("v")
C = te.compute((4,), lambda i: i * v, name="C")
sc = te.create_schedule(C.op)
f = tvm.build(sc, [C, v], target="llvm")
c = tvm.nd.empty((4,), "int32", tvm.cpu(0))
f(c, 5)
print([int(e) for e in c.numpy()])
