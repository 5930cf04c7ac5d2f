"""The corpus of real TE programs (examples/te/programs) runs unchanged
under CPython with `python -m rangefinder.tvm FILE --run`. A program may be
refused (exit code 2: an API rangefinder does not provide yet), but none
may crash (a panic, a signal) or give a wrong value (exit code 1: `--run`
found a mismatch or an out-of-bounds access; or a value check of the
script failed), and at least PROGRAMS_THAT_RUN must run clean."""

import functools
import subprocess
import sys

import pytest

from conftest import EXAMPLES

PROGRAMS = sorted((EXAMPLES / "te" / "programs").glob("*.py"))

# How many programs run clean today: a floor, raised as features land.
PROGRAMS_THAT_RUN = 106

VALUE_CHECKS = ("Not equal to tolerance", "Mismatched elements")


@functools.lru_cache(maxsize=None)
def outcome(path):
    """("clean" | "refused" | "failed", why) for one run of `path`."""
    p = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(path), "--run"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if p.returncode == 0:
        return "clean", ""
    if p.returncode == 1 and "run (seed" in p.stdout:
        return "failed", f"--run found a wrong value:\n{p.stdout}"
    if p.returncode < 0:
        return "failed", f"killed by signal {-p.returncode}:\n{p.stderr}"
    if "PanicException" in p.stderr or "panicked at" in p.stderr:
        return "failed", f"panicked:\n{p.stderr}"
    if any(m in p.stderr for m in VALUE_CHECKS):
        return "failed", f"a value check of the script failed:\n{p.stderr}"
    if p.returncode == 2:
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        return "refused", lines[-1] if lines else ""
    return "failed", f"exit code {p.returncode}:\n{p.stderr}"


def test_the_corpus_has_at_least_60_programs():
    assert len(PROGRAMS) >= 60


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_program_runs_or_is_refused_without_crash_or_wrong_value(path):
    verdict, why = outcome(path)
    assert verdict != "failed", why


def test_enough_programs_run_clean():
    verdicts = {p.name: outcome(p) for p in PROGRAMS}
    clean = sum(1 for v, _ in verdicts.values() if v == "clean")
    for name, (v, why) in verdicts.items():
        print(f"{v:8} {name}" + (f" | {why.splitlines()[-1]}" if why else ""))
    print(f"{clean}/{len(PROGRAMS)} run unchanged under CPython with --run clean")
    assert clean >= PROGRAMS_THAT_RUN, f"only {clean} programs run clean, fewer than {PROGRAMS_THAT_RUN}"
