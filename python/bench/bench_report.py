"""Time `rangefinder.report` on the 50-stage stencil chain built from Python.

    python bench/bench_report.py [--stages 50] [--repeat 30]

The program is the stencil chain `rangefinder te` is timed on: `S_k =
S_{k-1}[x, y] + S_{k-1}[x + 1, y] + S_{k-1}[x + 2, y + 1]`, the output
tiled 64x64 and every other stage computed at the tile loop. Prints the
median wall times, in milliseconds, of building the program from Python
and of `rangefinder.report(s)` (the report as `rangefinder te --json`
gives it) on the built schedule.
"""

import argparse
import statistics
import time

import rangefinder
from rangefinder.tvm import te


def build(stages):
    rows, cols = 1024 + 2 * stages, 1024 + stages
    prev = te.placeholder((rows, cols), name="S0")
    chain = []
    for k in range(1, stages + 1):
        p = prev
        prev = te.compute(
            (rows - 2 * k, cols - k),
            lambda x, y: p[x, y] + p[x + 1, y] + p[x + 2, y + 1],
            name=f"S{k}",
        )
        chain.append(prev)
    out = chain[-1]
    s = te.create_schedule(out.op)
    xo, yo, xi, yi = s[out].tile(out.op.axis[0], out.op.axis[1], 64, 64)
    for t in chain[:-1]:
        s[t].compute_at(s[out], yo)
    return s


def median_ms(f, repeat):
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stages", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    s = build(args.stages)
    build_ms = median_ms(lambda: build(args.stages), args.repeat)
    report_ms = median_ms(lambda: rangefinder.report(s), args.repeat)
    print(f"build {build_ms:.3f} ms, report {report_ms:.3f} ms ({args.stages} stages)")


if __name__ == "__main__":
    main()
