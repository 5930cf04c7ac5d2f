# Shapes read the TOPI way: get_const_tuple turns a shape into Python
# integers where they are constant and keeps symbolic sizes (a te.var
# batch) as they are; isinstance against tvm.tir.IntImm and tvm.tir.Var
# decides which case applies, as TOPI's dense and batch_matmul checks do.
# BERT-base dense 768 -> 768 with a symbolic number of tokens.
import tvm
from tvm import te
from tvm.topi.utils import get_const_int, get_const_tuple

tokens = te.var("tokens")
hidden = 768
data = te.placeholder((tokens, hidden), name="data")
weight = te.placeholder((hidden, hidden), name="weight")

batch, in_dim = get_const_tuple(data.shape)
out_dim, red_dim = get_const_tuple(weight.shape)
assert isinstance(batch, tvm.tir.Var)
assert isinstance(in_dim, int) and in_dim == red_dim
assert isinstance(weight.shape[0], tvm.tir.IntImm)
assert get_const_int(weight.shape[1]) == 768

k = te.reduce_axis((0, in_dim), name="k")
out = te.compute(
    (batch, out_dim), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="T_dense"
)
for dim in out.shape:
    assert isinstance(dim, (tvm.tir.IntImm, tvm.tir.Var))
s = te.create_schedule(out.op)
i, j = s[out].op.axis
io, ii = s[out].split(i, factor=8)
jo, ji = s[out].split(j, factor=64)
s[out].reorder(io, jo, ii, ji)
print(tvm.lower(s, [data, weight, out], simple_mode=True))
