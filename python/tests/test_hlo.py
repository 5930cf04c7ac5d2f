"""`rangefinder.hlo.analyze` gives the maps `rangefinder hlo --json` gives."""

import pytest

import rangefinder
from conftest import EXAMPLES

MODULES = sorted((EXAMPLES / "hlo").glob("*.hlo"))


def _as_json(result):
    return {
        "instruction": result["instruction"],
        "direction": result["direction"],
        "operands": [
            {
                "index": o["index"],
                "name": o["name"],
                "maps": [str(m) for m in o["maps"]],
                "unsupported": o["unsupported"],
            }
            for o in result["operands"]
        ],
    }


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
@pytest.mark.parametrize("flags", [(), ("--to-parameters",), ("--input-to-output",)], ids=["root", "params", "i2o"])
def test_analyze_matches_the_command(path, flags, cli, cli_json):
    p = cli("hlo", path, *flags, "--json", check=False)
    if p.returncode != 0:
        with pytest.raises(rangefinder.Error):
            rangefinder.hlo.analyze(path, to_parameters="--to-parameters" in flags,
                                    input_to_output="--input-to-output" in flags)
        return
    import json

    expected = json.loads(p.stdout)
    got = rangefinder.hlo.analyze(
        path, to_parameters="--to-parameters" in flags, input_to_output="--input-to-output" in flags
    )
    assert _as_json(got) == {k: expected[k] for k in ("instruction", "direction", "operands")} or \
        _subset(got, expected)


def _subset(got, expected):
    # The command may add fields (runtime variables, tuple elements); the
    # maps must agree.
    for o, e in zip(got["operands"], expected["operands"]):
        if [str(m) for m in o["maps"]] != [m if isinstance(m, str) else m["map"] for m in e["maps"]]:
            return False
    return True


def test_text_and_path_agree():
    path = MODULES[0]
    assert _as_json(rangefinder.hlo.analyze(path)) == _as_json(rangefinder.hlo.analyze(path.read_text()))


def test_bad_module_raises():
    with pytest.raises(rangefinder.Error):
        rangefinder.hlo.analyze("HloModule m\nENTRY e { ROOT r = f32[4] bogus( }")
