# L8's situation in a program: a symbolic extent split by 4, so the input's
# layout is padded when 4 does not divide n (the run gives n = 7). The
# padding is never read; the computed tensor is stored transposed and its
# stage iterates over the transformed axes, split again.
from tvm import te

n = te.var("n")
A = te.placeholder((n, 6), name="A")
B = te.compute((n, 6), lambda i, j: A[i, j] + 1, name="B")
s = te.create_schedule(B.op)
s[A].transform_layout(lambda i, j: [j, i // 4, te.AXIS_SEPARATOR, i % 4])
j, i = s[B].transform_layout(lambda i, j: [j, i])
io, ii = s[B].split(i, factor=2)
# expect: B[(((i.outer*2) + i.inner) + (j*n))]
# expect: A[((j*ceildiv(n, 4)) + floordiv(i.outer, 2)), ((floormod(i.outer, 2)*2) + i.inner)]
