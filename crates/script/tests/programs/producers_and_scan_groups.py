import tvm
from tvm import te

# ScheduleOps keeps TVM's statements before storage flattening: every
# computed tensor, the output too, is realized, and each realize and store
# names the tensor it produces.
h = te.size_var("h")
w = te.size_var("w")
X = te.placeholder((h, w), name="X")
Y = te.placeholder((h, w), name="Y")
P, Q = te.compute((h, w), lambda i, j: (X[i, j] + Y[i, j], X[i, j] - Y[i, j]), name="PQ")
R = te.compute((h, w), lambda i, j: P[i, j] * 0.5, name="R")
s = te.create_schedule(R.op)
ro, ri = s[R].split(R.op.axis[0], factor=4)
s[P.op].compute_at(s[R], ro)
bounds = te.schedule.InferBound(s.normalize())
stmt = te.schedule.ScheduleOps(s, bounds)
print(isinstance(stmt, tvm.tir.ProducerRealize), stmt.producer.name, stmt.producer == R)

seen = []


def visit(node):
    if isinstance(node, tvm.tir.ProducerRealize):
        seen.append("realize %s.v%d %s" % (node.producer.op.name, node.producer.value_index, node.bounds[0].extent))
    elif isinstance(node, tvm.tir.ProducerStore):
        seen.append("store %s" % node.producer.name)


tvm.tir.stmt_functor.post_order_visit(stmt, visit)
for line in seen:
    print(line)
assert stmt.producer.op.same_as(R.op)

# A scan's body is a group of the schedule, computed at the scan's update:
# its stages may be placed inside one another, never outside the group.
m = te.size_var("m")
n = te.size_var("n")
inp = te.placeholder((m, n), name="inp")
state = te.placeholder((m, n), name="state")
first = te.compute((1, n), lambda _, j: inp[0, j], name="first")
step1 = te.compute((m, n), lambda t, j: state[t - 1, j] + inp[t, j], name="step1")
step2 = te.compute((m, n), lambda t, j: step1[t, j] * 2.0, name="step2")
step3 = te.compute((m, n), lambda t, j: step2[t, j] - 1.0, name="step3")
running = te.scan(first, step3, state, inputs=[inp])
s = te.create_schedule(running.op)
body = s[step1].group
print(body is not None, s[step2].group == body, s[step3].group == body, s[first].group is None)
s[step1].compute_at(s[step2], step2.op.axis[1])
inner = s.create_group(outputs=step2, inputs=[state, inp])
print(inner.group == body, s[step1].group == inner, s[step2].group == inner)
inner.compute_at(s[step3], step3.op.axis[1])
print(inner.attach_stage == s[step3])
try:
    s[step2].compute_at(s[first], first.op.axis[0])
    print("placed outside its group")
except tvm.error.TVMError:
    print("refused outside the group")
print(tvm.lower(s, [inp, running], simple_mode=True))
