"""Shared helpers: the repository, the `rangefinder` command, and running
TVM scripts under CPython with their imports pointed at rangefinder.tvm."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def _binary():
    exe = os.environ.get("RANGEFINDER_BIN")
    if exe:
        return Path(exe)
    return REPO / "target" / "debug" / "rangefinder"


@pytest.fixture(scope="session")
def cli():
    """Runs the `rangefinder` command (built on first use) and returns its
    completed process."""
    exe = _binary()
    if not exe.exists():
        subprocess.run(["cargo", "build", "-q", "-p", "cli"], cwd=REPO, check=True)

    def run(*args, check=True):
        p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)
        if check and p.returncode not in (0, 1):
            raise AssertionError(f"rangefinder {' '.join(map(str, args))} exited {p.returncode}: {p.stderr}")
        return p

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    def run(*args):
        return json.loads(cli(*args, "--json").stdout)

    return run


_IMPORTS = [
    (re.compile(r"^(\s*)import tvm\s*$", re.M), r"\1import rangefinder.tvm as tvm"),
    (re.compile(r"^(\s*)import tvm\.([\w.]+)\s*$", re.M), r"\1import rangefinder.tvm.\2"),
    (re.compile(r"^(\s*)from tvm(\.[\w.]+)? import ", re.M), r"\1from rangefinder.tvm\2 import "),
]


def with_rangefinder_imports(source):
    """`source` with only its import lines changed to use rangefinder.tvm."""
    for pattern, replacement in _IMPORTS:
        source = pattern.sub(replacement, source)
    return source


def run_script(path, capsys=None):
    """Runs the TE script at `path` under CPython with its imports changed;
    returns the (schedule, args) it is about and what it printed."""
    import contextlib
    import io

    from rangefinder.tvm import session

    session().reset()
    source = with_rangefinder_imports(Path(path).read_text())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(path), "exec"), {"__name__": "__main__", "__file__": str(path)})
    return session().target(), out.getvalue()
