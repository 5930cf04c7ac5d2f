# A causal (lower-triangular) reduction with te.sum(..., where=...): the
# running attention mass of a GPT-2 style causal mask, summing only keys at
# or before each query. 12 heads x 1024 tokens; the run uses 2 x 16.
import tvm
from tvm import te

for heads, tokens in [(12, 1024), (2, 16)]:
    probs = te.placeholder((heads, tokens, tokens), name="probs")
    k = te.reduce_axis((0, tokens), name="k")
    mass = te.compute(
        (heads, tokens),
        lambda h, q: te.sum(probs[h, q, k], axis=k, where=k <= q),
        name="causal_mass",
    )
    s = te.create_schedule(mass.op)
    h, q = s[mass].op.axis
    qo, qi = s[mass].split(q, factor=8)
    print(tvm.lower(s, [probs, mass], simple_mode=True))
