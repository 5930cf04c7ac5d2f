# A running sum over the sequence axis with te.scan, as in TVM's scan
# tutorial: an init stage for step 0 and an update stage that reads the
# previous step of the state. Sequence 128 x hidden 768 (BERT-base); the
# run uses 16 x 32. The update's hidden axis is split and bound to GPU
# threads.
import tvm
from tvm import te

for steps, width in [(128, 768), (16, 32)]:
    X = te.placeholder((steps, width), name="X")
    state = te.placeholder((steps, width), name="state")
    init = te.compute((1, width), lambda _, i: X[0, i], name="init")
    update = te.compute((steps, width), lambda t, i: state[t - 1, i] + X[t, i], name="update")
    scan = te.scan(init, update, state, inputs=[X], name="cumsum")
    s = te.create_schedule(scan.op)
    bx, tx = s[init].split(init.op.axis[1], factor=16)
    s[init].bind(bx, te.thread_axis("blockIdx.x"))
    s[init].bind(tx, te.thread_axis("threadIdx.x"))
    bx, tx = s[update].split(update.op.axis[1], factor=16)
    s[update].bind(bx, te.thread_axis("blockIdx.x"))
    s[update].bind(tx, te.thread_axis("threadIdx.x"))
    print(tvm.lower(s, [X, scan], simple_mode=True))
