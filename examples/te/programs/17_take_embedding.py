# Embedding lookup of BERT-base (vocabulary 30522, hidden 768) for 128
# token ids, as topi.take with mode="clip": every id is clamped into the
# table before it is read. The run uses a table of 50 rows of 16.
import tvm
from tvm import te


def take_clip(table, indices):
    rows, hidden = table.shape
    (n,) = indices.shape
    return te.compute(
        (n, hidden),
        lambda i, j: table[te.min(te.max(indices[i], 0), rows - 1), j],
        name="T_take",
    )


for vocab, hidden, tokens in [(30522, 768, 128), (50, 16, 8)]:
    table = te.placeholder((vocab, hidden), name="embedding")
    ids = te.placeholder((tokens,), name="input_ids", dtype="int32")
    out = take_clip(table, ids)
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    jo, ji = s[out].split(j, factor=8)
    print(tvm.lower(s, [table, ids, out], simple_mode=True))
