"""Pictures of layouts (``IndexMap``) and of TC range inference in Python:
``.svg()`` gives the same SVG text the command writes, and Jupyter shows
it through ``_repr_svg_``."""

import subprocess

import pytest

import rangefinder
from rangefinder import IndexMap, tc
from rangefinder.tvm import te

STENCIL = "def stencil(float(N) B, float(L) K) -> (A) {\n    A(i) +=! B(i + k) * K(k)\n}\n"


def test_an_index_map_draws_its_padded_layout():
    m = IndexMap("lambda i: [i // 4, i % 4]")
    svg = m.svg([14])
    assert svg.startswith("<svg")
    assert "padding: 2 of 16 transformed places" in svg
    assert "hatch-" in svg
    # The same picture as the command's.
    assert svg == m.svg((14,))


def test_the_jupyter_view_uses_a_default_shape_and_never_raises():
    m = IndexMap(lambda i, j: [j, i])
    svg = m._repr_svg_()
    assert svg is not None and "logical shape [8, 8]" in svg
    assert m.svg() == svg
    # Not injective on the default shape: the colliding pair is drawn.
    collide = IndexMap("lambda i: [i % 4]")
    assert "not injective" in collide._repr_svg_()
    # A map the layout analysis refuses has no picture: the text repr shows.
    odd = IndexMap("lambda i: [i * i]")
    assert odd._repr_svg_() is None
    with pytest.raises(rangefinder.Error):
        odd.svg([4])


def test_a_separator_is_drawn_and_a_symbolic_shape_is_an_error():
    m = IndexMap("lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]")
    assert "physical [4, 8]" in m.svg([1, 2, 2, 8])
    with pytest.raises(rangefinder.Error, match="constant"):
        IndexMap("lambda i: [i // 4, i % 4]").svg([te.var("n")])


def test_tc_results_draw_their_ranges_at_the_given_sizes():
    r = tc.infer(STENCIL, sizes={"N": 10, "L": 3})
    assert isinstance(r, dict)
    assert r["defs"][0]["ranges"][0]["upper"] == "N - L + 1"
    svg = r.svg()
    assert r._repr_svg_() == svg
    assert "sizes: L = 3, N = 10" in svg
    assert "decided in round 2" in svg


def test_tc_results_without_sizes_write_the_bounds_out():
    svg = tc.infer(STENCIL)._repr_svg_()
    assert "B(i + k): [0, N - L + 1)  decides both ends" in svg


def test_the_pictures_are_the_commands(tmp_path):
    import os

    binary = os.environ.get("RANGEFINDER_BIN")
    if not binary or not os.path.exists(binary):
        pytest.skip("RANGEFINDER_BIN is not set to a built rangefinder")
    src = tmp_path / "stencil.tc"
    src.write_text(STENCIL)
    out = subprocess.run(
        [binary, "tc", str(src), "--size", "N=10", "--size", "L=3", "--svg", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out[out.index("<svg"):] == tc.infer(STENCIL, sizes={"N": 10, "L": 3}).svg()
    out = subprocess.run(
        [binary, "layout", "--shape", "14", "--map", "lambda i: [i // 4, i % 4]", "--svg", "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out[out.index("<svg"):] == IndexMap("lambda i: [i // 4, i % 4]").svg([14])
