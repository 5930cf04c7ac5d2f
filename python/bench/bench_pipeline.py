"""Time building, inferring and lowering a TE pipeline from Python.

    python bench/bench_pipeline.py [--stages 50] [--repeat 15]

The pipeline is a 2-d stencil chain, `S_k = S_{k-1}[x, y] + S_{k-1}[x + 1, y]
+ S_{k-1}[x + 2, y + 1]`, every stage computed at the output's 64x64 tile
loop, lowered with `tvm.lower` (as a TVM or Halide user would write it).
Prints the median wall time of one build + lower, in milliseconds.
"""

import argparse
import statistics
import time

import rangefinder.tvm as tvm
from rangefinder.tvm import te


def build_and_lower(stages, size=1024, tile=64):
    n = size + 2 * stages
    A = te.placeholder((n, n), name="A")
    prev = A
    chain = []
    for k in range(stages):
        extent = n - 2 * (k + 1)
        p = prev
        prev = te.compute(
            (extent, extent),
            lambda x, y: p[x, y] + p[x + 1, y] + p[x + 2, y + 1],
            name=f"S{k}",
        )
        chain.append(prev)
    out = chain[-1]
    s = te.create_schedule(out.op)
    xo, yo, xi, yi = s[out].tile(out.op.axis[0], out.op.axis[1], tile, tile)
    for t in chain[:-1]:
        s[t].compute_at(s[out], yo)
    return str(tvm.lower(s, [A, out], simple_mode=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stages", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        build_and_lower(args.stages)
        runs.append(time.perf_counter() - start)
    print(f"{args.stages} stages: median {statistics.median(runs) * 1e3:.2f} ms per build + lower "
          f"(best {min(runs) * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
