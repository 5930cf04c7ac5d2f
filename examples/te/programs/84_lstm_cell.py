# One LSTM cell step in TE: the four gates from one matmul over the
# concatenated input and hidden state, then sigmoid / tanh and the new cell
# and hidden states, as TVM's LSTM examples build a recurrent step.
# Hidden size 1024, batch 64 (a GNMT-like layer); the run uses batch 2,
# hidden 8.
import tvm
from tvm import te

for batch, hidden in [(64, 1024), (2, 8)]:
    xh = te.placeholder((batch, 2 * hidden), name="xh")
    W = te.placeholder((4 * hidden, 2 * hidden), name="W")
    c_prev = te.placeholder((batch, hidden), name="c_prev")
    k = te.reduce_axis((0, 2 * hidden), name="k")
    gates = te.compute(
        (batch, 4 * hidden), lambda b, j: te.sum(xh[b, k] * W[j, k], axis=k), name="gates"
    )
    in_gate = te.compute((batch, hidden), lambda b, j: te.sigmoid(gates[b, j]), name="in_gate")
    forget = te.compute((batch, hidden), lambda b, j: te.sigmoid(gates[b, hidden + j]), name="forget_gate")
    cand = te.compute((batch, hidden), lambda b, j: te.tanh(gates[b, 2 * hidden + j]), name="candidate")
    out_gate = te.compute((batch, hidden), lambda b, j: te.sigmoid(gates[b, 3 * hidden + j]), name="out_gate")
    c_next = te.compute(
        (batch, hidden),
        lambda b, j: forget[b, j] * c_prev[b, j] + in_gate[b, j] * cand[b, j],
        name="c_next",
    )
    h_next = te.compute((batch, hidden), lambda b, j: out_gate[b, j] * te.tanh(c_next[b, j]), name="h_next")
    s = te.create_schedule(h_next.op)
    for gate in [in_gate, forget, cand, out_gate]:
        s[gate].compute_inline()
    b, j = s[h_next].op.axis
    s[c_next].compute_at(s[h_next], b)
    s[gates].compute_at(s[h_next], b)
    print(tvm.lower(s, [xh, W, c_prev, h_next], simple_mode=True))
