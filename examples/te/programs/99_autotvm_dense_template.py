# A tunable dense operator written as TOPI writes its x86 templates, run
# with AutoTVM's fallback configuration (no tuning log): the compute sets
# the split sizes when cfg.is_fallback (the vector width from the
# target's CPU), the schedule applies them. BERT-base FFN shapes
# (128 x 768 -> 3072) are printed; the run uses 16 x 64 -> 48.
import tvm
from tvm import autotvm, te, topi
from tvm.autotvm.task.space import SplitEntity
from tvm.target.x86 import get_simd_32bit_lanes


@autotvm.register_topi_compute("dense_tiled.x86")
def dense_tiled(cfg, data, weight):
    m, k = (int(d) for d in data.shape)
    n = int(weight.shape[0])
    cfg.define_split("tile_y", m, num_outputs=2)
    cfg.define_split("tile_x", n, num_outputs=2)
    cfg.define_knob("unroll_k", [True, False])
    if cfg.is_fallback:
        cfg["tile_y"] = SplitEntity([-1, 8])
        cfg["tile_x"] = SplitEntity([-1, get_simd_32bit_lanes() * 2])
    return topi.nn.dense(data, weight)


@autotvm.register_topi_schedule("dense_tiled.x86")
def schedule_dense_tiled(cfg, outs):
    s = te.create_schedule([x.op for x in outs])
    C = outs[0]
    y, x = s[C].op.axis
    (kk,) = s[C].op.reduce_axis
    yo, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(yo, xo, kk, yi, xi)
    s[C].parallel(s[C].fuse(yo, xo))
    s[C].vectorize(xi)
    if cfg["unroll_k"].val:
        s[C].unroll(yi)
    return s


for target in ["llvm -mcpu=skylake-avx512", "llvm"]:
    for m, k, n in [(128, 768, 3072), (16, 64, 48)]:
        data = te.placeholder((m, k), name="data")
        weight = te.placeholder((n, k), name="weight")
        with tvm.target.Target(target):
            out = dense_tiled(data, weight)
            s = schedule_dense_tiled([out])
        print(target, out.op.name, out.op.tag)
print(tvm.lower(s, [data, weight, out], simple_mode=True))
