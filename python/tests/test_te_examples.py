"""Every TE example runs under CPython through rangefinder.tvm, with only
its import lines changed, and gives what `rangefinder te` gives."""

import json
import sys

import pytest

import rangefinder
from conftest import EXAMPLES, run_script

SCRIPTS = sorted((EXAMPLES / "te").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_example_matches_the_command(path, cli):
    target, printed = run_script(path)
    assert target is not None, "the script created no schedule"
    s, args = target
    expected = cli("te", path, "--run")
    expected_json = json.loads(cli("te", path, "--run", "--json").stdout)
    assert printed + rangefinder.report_text(s, args, run=True) == expected.stdout
    assert rangefinder.report(s, args, run=True) == expected_json


@pytest.mark.parametrize("path", SCRIPTS[:3], ids=lambda p: p.name)
def test_module_runner_prints_what_the_command_prints(path, cli):
    import subprocess

    got = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(path), "--run"], capture_output=True, text=True
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout == cli("te", path, "--run").stdout


def test_examples_exist():
    assert len(SCRIPTS) >= 11
