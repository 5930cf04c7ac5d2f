"""`rangefinder.hlo.analyze` gives what `rangefinder hlo --json` gives, with
maps as IndexingMap objects."""

import json

import pytest

import rangefinder
from conftest import EXAMPLES

MODULES = sorted((EXAMPLES / "hlo").glob("*.hlo"))
FLAGS = [
    (),
    ("--to-parameters",),
    ("--input-to-output",),
    ("--to-parameters", "--input-to-output"),
    ("--physical", "--to-parameters"),
]


def _plain(result):
    out = dict(result)
    out["operands"] = [dict(o, maps=[str(m) for m in o["maps"]]) for o in result["operands"]]
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
@pytest.mark.parametrize("flags", FLAGS, ids=["root", "params", "i2o", "params-i2o", "physical-params"])
def test_analyze_matches_the_command(path, flags, cli):
    p = cli("hlo", path, *flags, "--json", check=False)
    kwargs = {
        "to_parameters": "--to-parameters" in flags,
        "input_to_output": "--input-to-output" in flags,
        "physical": "--physical" in flags,
    }
    if p.returncode != 0:
        with pytest.raises(rangefinder.Error):
            rangefinder.hlo.analyze(path, **kwargs)
        return
    got = rangefinder.hlo.analyze(path, **kwargs)
    assert _plain(got) == json.loads(p.stdout)
    for operand in got["operands"]:
        assert all(isinstance(m, rangefinder.IndexingMap) for m in operand["maps"])


def test_text_and_path_agree():
    path = MODULES[0]
    assert _plain(rangefinder.hlo.analyze(path)) == _plain(rangefinder.hlo.analyze(path.read_text()))


def test_a_file_with_a_byte_order_mark_reads_as_without(tmp_path):
    path = tmp_path / "bom.hlo"
    path.write_text("\ufeff" + MODULES[0].read_text(), encoding="utf-8")
    assert _plain(rangefinder.hlo.analyze(path)) == _plain(rangefinder.hlo.analyze(MODULES[0]))
    assert _plain(rangefinder.hlo.analyze(str(path))) == _plain(rangefinder.hlo.analyze(MODULES[0]))


def test_bad_module_raises_with_position():
    with pytest.raises(rangefinder.Error) as info:
        rangefinder.hlo.analyze("HloModule m\nENTRY e {\n  ROOT r = f32[4] bogus(\n}")
    assert info.value.line >= 1
    # The position is said once, before the message.
    position = f"{info.value.line}:{info.value.column}: "
    assert str(info.value).startswith(position)
    assert position not in str(info.value)[len(position):]


def test_physical_maps_tiled_positions():
    path = EXAMPLES / "hlo" / "tiled_transpose.hlo"
    logical = rangefinder.hlo.analyze(path, to_parameters=True)
    assert str(logical["operands"][0]["maps"][0]) == "(d0, d1) -> (d1, d0), domain: d0 in [0, 299], d1 in [0, 99]"
    physical = rangefinder.hlo.analyze(path, to_parameters=True, physical=True)
    (m,) = physical["operands"][0]["maps"]
    # The transpose and the change of layout cancel: every stored element
    # stays where it is, and the tile padding is outside the domain.
    assert str(m) == (
        "(d0, d1, d2, d3) -> (d0, d1, d2, d3), domain: d0 in [0, 12], d1 in [0, 2], d2 in [0, 7], "
        "d3 in [0, 127], d0 * 8 + d2 in [0, 99], d1 * 128 + d3 in [0, 299]"
    )
