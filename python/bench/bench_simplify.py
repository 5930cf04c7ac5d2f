"""Time simplification called from a Python loop over TVM's simplifier
corpus (`../shared/conformance/tvm/arith_simplify.batch`).

    python bench/bench_simplify.py [BATCH_FILE] [--repeat N]

Prints the median time per call over the corpus, in microseconds, two ways:
- `rangefinder.simplify(text, ranges)`: each call parses the text and the
  ranges, binds them, simplifies and prints the result;
- `Analyzer.simplify(expr)` on expressions built once with their ranges
  bound once, as TVM's `Analyzer.simplify` is called on built `PrimExpr`s.
"""

import argparse
import statistics
import time
from pathlib import Path

import rangefinder

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "tvm" / "arith_simplify.batch"


def cases(path):
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        expr, _, ranges = line.partition("|")
        spec = {}
        for r in ranges.split():
            name, _, span = r.partition("=")
            lo, _, hi = span.partition(":")
            spec[name] = (lo, hi)
        yield expr.strip(), spec or None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("batch", nargs="?", default=str(DEFAULT))
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    work = list(cases(args.batch))
    simplify = rangefinder.simplify
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for expr, spec in work:
            try:
                simplify(expr, spec)
            except rangefinder.Error:
                pass
        runs.append((time.perf_counter() - start) / len(work))
    print(f"rangefinder.simplify(text, ranges): {len(work)} cases, median "
          f"{statistics.median(runs) * 1e6:.2f} us per call (best {min(runs) * 1e6:.2f} us)")

    built = []
    for expr, spec in work:
        an = rangefinder.Analyzer()
        try:
            for name, r in (spec or {}).items():
                an.bind(name, r)
            built.append((an, an.parse(expr)))
        except rangefinder.Error:
            pass
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for an, e in built:
            try:
                an.simplify(e)
            except rangefinder.Error:
                pass
        runs.append((time.perf_counter() - start) / len(built))
    print(f"Analyzer.simplify(built expression): {len(built)} cases, median "
          f"{statistics.median(runs) * 1e6:.2f} us per call (best {min(runs) * 1e6:.2f} us)")


if __name__ == "__main__":
    main()
