"""IndexingMap pictures: ``_repr_svg_`` for Jupyter and ``.svg(at=...)``,
the same SVG ``rangefinder hlo --svg`` and ``rangefinder map --svg`` write."""

import re

import pytest

import rangefinder
from conftest import EXAMPLES

GATHER = EXAMPLES / "hlo" / "x19_gather.hlo"


def _operand(path, k, **kwargs):
    return rangefinder.hlo.analyze(path, **kwargs)["operands"][k]["maps"][0]


def test_a_map_from_an_instruction_draws_the_commands_picture(cli, tmp_path):
    gather = _operand(GATHER, 0)
    out = tmp_path / "g.svg"
    cli("hlo", GATHER, "--svg", out, "--at", "d0=1,d1=1,d2=2")
    whole = out.read_text()
    mine = gather.svg(at=[1, 1, 2])
    assert mine.startswith("<svg") and mine.rstrip().endswith("</svg>")
    # The same output grid and operand grid, this operand alone.
    assert "input 0: operand f32[12,10]" in mine
    assert "input 1: indices" not in mine and "input 1: indices" in whole
    cells = lambda svg, grid: re.search(r'<g class="grid %s">.*?</g>' % grid, svg, re.S).group(0)
    assert cells(mine, "in0") == cells(whole, "in0")
    assert cells(mine, "out") == cells(whole, "out")
    assert "rt0 in [0, 9], rt1 in [0, 6]" in mine


def test_at_is_a_list_a_dict_or_a_string_and_defaults_to_the_middle():
    gather = _operand(GATHER, 0)
    a = gather.svg(at=[1, 1, 2])
    assert gather.svg(at={"d0": 1, "d1": 1, "d2": 2}) == a
    assert gather.svg(at="d0=1,d1=1,d2=2") == a
    default = gather._repr_svg_()
    assert default == gather.svg()
    assert "output element d = (2, 1, 2)" in default and "the middle element" in default
    assert "svg(at=...)" in default


@pytest.mark.parametrize(
    "at, says",
    [
        ("d7=1", "`d7` is not an axis"),
        ([9, 0, 0], "d0=9 is outside the output"),
        ({"d1": 3}, "d1=3 is outside the output"),
        ([1, 1], "has 2"),
        (2.5, "a list of indices"),
    ],
)
def test_a_bad_element_raises_rangefinder_error(at, says):
    with pytest.raises(rangefinder.Error, match=re.escape(says)):
        _operand(GATHER, 0).svg(at=at)


def test_a_map_alone_is_drawn_over_its_ranges(cli):
    text = "(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 5], s0 in [0, 2]"
    m = rangefinder.IndexingMap(text)
    svg = m.svg(at=[2])
    assert "input: [13]" in svg and "reads 3 elements" in svg
    # Read cells are blue: exactly d0 * 2 + s0 for s0 in [0, 2].
    blue = re.findall(r'<rect[^>]*fill="#0072b2"[^>]*><title>\[(\d+)\]', svg)
    assert sorted(int(b) for b in blue) == [4, 5, 6]
    # The command draws the same picture, but for the hint it names.
    p = cli("map", text, "--svg", "-", "--at", "d0=2")
    assert p.stdout.replace("--at d0=..", "svg(at=...)") == svg


def test_input_to_output_maps_are_drawn_over_their_ranges():
    m = _operand(EXAMPLES / "hlo" / "x01_broadcast.hlo", 0, input_to_output=True)
    svg = m._repr_svg_()
    assert "shapes from the ranges" in svg
