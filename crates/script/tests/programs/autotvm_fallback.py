# A tunable operator in the style of TOPI's x86 templates, run with AutoTVM's
# fallback configuration (no tuning log): the compute picks the split sizes
# when `cfg.is_fallback`, the schedule applies them. Run by both front ends
# (crates/script/tests/topi_modules.rs, python/tests/test_topi_modules.py).
import tvm
from tvm import autotvm, te
from tvm.autotvm.task.space import SplitEntity, OtherOptionEntity
from tvm.target.x86 import get_simd_32bit_lanes
from tvm.target.codegen import target_has_features


@autotvm.register_topi_compute("row_scale.x86")
def row_scale(cfg, data, scale):
    m, n = (int(d) for d in data.shape)
    cfg.define_split("tile_y", m, num_outputs=2)
    cfg.define_split("tile_x", n, num_outputs=3)
    cfg.define_knob("unroll", [True, False])
    # A policy's own arguments are taken; the fallback keeps the order.
    cfg.define_reorder("order", [m, n], policy="interval_all", interval=(0, 2))
    if cfg.is_fallback:
        cfg["tile_x"] = SplitEntity([-1, 2, get_simd_32bit_lanes()])
        cfg["unroll"] = OtherOptionEntity(True)
        # The configuration holds the entity itself: this turns unrolling off.
        cfg["unroll"].val = False
    cfg.add_flop(m * n)
    # Templates keep their own values on the configuration.
    cfg.rows = m
    return te.compute((m, n), lambda i, j: data[i, j] * scale[i], name="scaled", tag="row_scale")


# `autotvm.task` exports the decorators too.
@autotvm.task.register_topi_schedule("row_scale.x86")
def schedule_row_scale(cfg, outs):
    s = te.create_schedule([x.op for x in outs])
    out = outs[0]
    # The compute's operation carries its workload (TOPI's schedules read
    # `op.attrs["workload"]`): the task, then the arguments.
    workload = out.op.attrs["workload"]
    assert workload[0] == "row_scale.x86"
    assert workload[1][0] == "TENSOR" and list(workload[1][1]) == [6, 64]
    assert workload[1][2] == "float32" and list(workload[2][1]) == [6]
    assert cfg.rows == 6 and cfg.flop == 384
    # Iterating a configuration gives its knobs' names (TOPI asks
    # `"tile_ic" not in cfg`).
    assert "tile_x" in cfg and "tile_z" not in cfg
    assert list(cfg) == ["tile_y", "tile_x", "unroll", "order"]
    assert list(cfg["order"].perm) == [0, 1]
    y, x = s[out].op.axis
    yo, yi = cfg["tile_y"].apply(s, out, y)
    xo, xm, xi = cfg["tile_x"].apply(s, out, x)
    s[out].reorder(yo, xo, yi, xm, xi)
    s[out].vectorize(xi)
    if cfg["unroll"].val:
        s[out].unroll(xm)
    return s


data = te.placeholder((6, 64), name="data")
scale = te.placeholder((6,), name="scale")
with tvm.target.Target("llvm"):
    out = row_scale(data, scale)
    s = schedule_row_scale([out])
print(get_simd_32bit_lanes(), target_has_features("avx2"), target_has_features(["avx2", "fma"], tvm.target.Target("llvm -mcpu=haswell")))
with tvm.target.Target("llvm -mcpu=skylake-avx512"):
    print(get_simd_32bit_lanes(), target_has_features(["avx512bw", "avx512f"]))
try:
    schedule_row_scale([data])
except RuntimeError as e:
    print("RuntimeError:", e)
print(tvm.lower(s, [data, scale, out], simple_mode=True))
