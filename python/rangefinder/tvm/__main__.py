"""``python -m rangefinder.tvm SCRIPT.py [--json] [--run] [--seed N] [--max-steps N]``.

Runs an unchanged TVM TE script under CPython with ``import tvm`` resolved
to :mod:`rangefinder.tvm`, then prints what ``rangefinder te SCRIPT.py``
prints for the schedule it lowered last (else created last). Exit codes as
the command's: 1 when ``--run`` finds a mismatch or an out-of-bounds access,
2 when the script fails.
"""

import argparse
import contextlib
import runpy
import sys
import traceback

from .. import _native
from . import install, session


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m rangefinder.tvm", description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a TE script in TVM's Python API")
    parser.add_argument("--json", action="store_true", help="JSON output")
    parser.add_argument("--run", action="store_true", help="run the lowered program and check it")
    parser.add_argument("--seed", type=int, default=0, help="seed for the random inputs")
    parser.add_argument(
        "--max-steps",
        type=int,
        default=None,
        metavar="N",
        help="the most loop iterations and stores the run may take (default 100,000,000)",
    )
    args = parser.parse_args(argv)

    install()
    session().reset()
    # With --json the script's own output goes to stderr, so stdout stays JSON.
    out = sys.stderr if args.json else sys.stdout
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(args.file, run_name="__main__")
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        return 2
    target = session().target()
    if target is None:
        # A script that only builds tensors is valid TVM: nothing to analyse.
        note = "the script creates no schedule: nothing to analyse (call `te.create_schedule(...)` to get bounds)"
        if args.json:
            import json

            print(json.dumps({"stages": [], "note": note}, indent=2))
        else:
            print(f"# {note}")
        return 0
    s, tensors = target
    try:
        report = _native.te_report(s, tensors, args.run, args.seed, args.max_steps)
    except _native.Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(report.json(pretty=True))
    else:
        sys.stdout.write(report.text())
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
