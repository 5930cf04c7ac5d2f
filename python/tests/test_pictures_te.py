"""The report of a schedule draws itself: `rangefinder.report(...)` is the
JSON dictionary with the stage graph and IterVar graphs as SVG (what
Jupyter shows) and the `rangefinder te --html` page."""

import json
import xml.etree.ElementTree as ET

import rangefinder

from conftest import EXAMPLES, run_script


def _ex6():
    (s, args), _ = run_script(EXAMPLES / "te" / "ex6_fuse_split.py")
    return rangefinder.report(s, args, run=True)


def test_the_report_is_still_the_json_dictionary():
    r = _ex6()
    assert isinstance(r, dict)
    assert [st["name"] for st in r["stages"]] == ["A", "B", "C"]
    # It serialises as before: the pictures are methods, not keys.
    assert json.loads(json.dumps(r)) == dict(r)


def test_the_report_pickles_and_copies_as_its_dictionary():
    import copy
    import pickle

    r = _ex6()
    assert pickle.loads(pickle.dumps(r)) == dict(r)
    assert copy.deepcopy(r) == dict(r)


def test_svg_is_the_stage_graph_and_the_iter_var_graphs():
    r = _ex6()
    svg = r.svg()
    assert svg == r._repr_svg_()
    root = ET.fromstring(svg)  # well-formed
    assert root.tag.endswith("svg")
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "Stage graph (producer above consumer)" in texts
    assert "IterVar graph of C (roots at the top, ranges [min, extent))" in texts
    for line in ["compute_at C.ci.cj.fused.outer", "split factor=4", "fuse", "[0, 16)"]:
        assert line in texts, line
    # Leaf variables are filled green (Okabe-Ito bluish green).
    assert 'fill="#009e73"' in svg
    # The same picture every time.
    assert _ex6().svg() == svg


def test_html_is_the_page_with_its_body_for_notebooks():
    r = _ex6()
    page = r.html()
    assert page.startswith("<!DOCTYPE html>")
    body = r._repr_html_()
    assert "<html" not in body and "<h2 id=\"stage-B\">Stage B</h2>" in body
    assert body in page
    assert 'id="work"' in body  # the run's work per stage


def test_html_matches_rangefinder_te_html(cli, tmp_path):
    path = EXAMPLES / "te" / "ex6_fuse_split.py"
    out = tmp_path / "ex6.html"
    cli("te", path, "--run", "--html", out)
    title = f"rangefinder te {path}"
    assert _ex6().html(title) == out.read_text()
