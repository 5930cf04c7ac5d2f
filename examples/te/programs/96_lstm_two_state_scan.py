# An LSTM layer as TVM's scan tutorial builds recurrences: the hidden and
# the cell state are the two states of one te.scan, stepped together.
# Each step computes the four gates from the step's input and the previous
# hidden state (a reduction over the hidden size), then the new cell and
# hidden state. Sizes of a small speech model: 16 steps, batch 4, 256
# inputs, 256 hidden units (the run uses 5 steps, batch 2, 6 inputs and 4
# hidden units).
import tvm
from tvm import te

for steps, batch, n_in, hidden in [(16, 4, 256, 256), (5, 2, 6, 4)]:
    X = te.placeholder((steps, batch, n_in), name="X")
    Wx = te.placeholder((4, hidden, n_in), name="Wx")
    Wh = te.placeholder((4, hidden, hidden), name="Wh")
    h_state = te.placeholder((steps, batch, hidden), name="h_state")
    c_state = te.placeholder((steps, batch, hidden), name="c_state")
    h_init = te.compute((1, batch, hidden), lambda _, b, j: 0.0, name="h_init")
    c_init = te.compute((1, batch, hidden), lambda _, b, j: 0.0, name="c_init")
    kx = te.reduce_axis((0, n_in), name="kx")
    kh = te.reduce_axis((0, hidden), name="kh")
    gx = te.compute(
        (steps, 4, batch, hidden),
        lambda t, g, b, j: te.sum(X[t, b, kx] * Wx[g, j, kx], axis=kx),
        name="gates_x",
    )
    gh = te.compute(
        (steps, 4, batch, hidden),
        lambda t, g, b, j: te.sum(h_state[t - 1, b, kh] * Wh[g, j, kh], axis=kh),
        name="gates_h",
    )
    gates = te.compute(
        (steps, 4, batch, hidden),
        lambda t, g, b, j: gx[t, g, b, j] + gh[t, g, b, j],
        name="gates",
    )
    c_next = te.compute(
        (steps, batch, hidden),
        lambda t, b, j: te.sigmoid(gates[t, 1, b, j]) * c_state[t - 1, b, j]
        + te.sigmoid(gates[t, 0, b, j]) * te.tanh(gates[t, 2, b, j]),
        name="c_next",
    )
    h_next = te.compute(
        (steps, batch, hidden),
        lambda t, b, j: te.sigmoid(gates[t, 3, b, j]) * te.tanh(c_next[t, b, j]),
        name="h_next",
    )
    h_scan, c_scan = te.scan(
        [h_init, c_init], [h_next, c_next], [h_state, c_state], inputs=[X], name="lstm"
    )
    s = te.create_schedule(h_scan.op)
    s[gates].compute_inline()
    print(tvm.lower(s, [X, Wx, Wh, h_scan, c_scan], simple_mode=True))
