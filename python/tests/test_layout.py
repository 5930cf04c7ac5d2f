"""`rangefinder.IndexMap` and `transform_layout` against the `layout`
command, enumeration, and runs with and without layouts."""

import itertools
import json

import pytest

import rangefinder
from conftest import EXAMPLES, run_script
from rangefinder.tvm import te

CASES = [
    ("16,64,64,128", "lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4]", "11,37,23,101"),
    ("2,3", "lambda i, j: [j, i]", "1,2"),
    ("10", "lambda i: [i // 4, i % 4]", "9"),
]


@pytest.mark.parametrize("shape,text,index", CASES)
def test_index_map_matches_the_command(shape, text, index, cli):
    expected = json.loads(cli("layout", "--shape", shape, "--map", text, "--index", index, "--json").stdout)
    shape = [int(x) for x in shape.split(",")]
    index = [int(x) for x in index.split(",")]
    m = rangefinder.IndexMap(text)
    assert m.map_shape(shape) == expected["transformed_shape"]
    assert m.physical_shape(shape) == expected["physical_shape"]
    assert m.map_indices(index) == expected["transformed_index"]
    assert m.physical_index(shape, index) == expected["physical_index"]


def test_functions_and_text_agree():
    a = rangefinder.IndexMap(lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4])
    b = rangefinder.IndexMap("lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4]")
    for p in itertools.product(range(3), range(8)):
        assert a.map_indices(list(p)) == b.map_indices(list(p))
    assert a.axis_separators == b.axis_separators == [2]


def test_inverse_and_padding_by_enumeration():
    m = rangefinder.IndexMap(lambda i: [i // 4, i % 4])
    inv, pad = m.non_surjective_inverse([10])
    reached = {tuple(m.map_indices([i])) for i in range(10)}
    for t in itertools.product(range(3), range(4)):
        if t in reached:
            assert m.map_indices(inv.map_indices(list(t))) == list(t)
    assert pad is not None
    names = [v.strip() for v in str(inv).split(":")[0].replace("lambda", "").split(",")]
    for t in itertools.product(range(3), range(4)):
        expr = str(pad)
        an = rangefinder.Analyzer()
        for name, value in zip(names, t):
            an.bind(name, value)
        assert (an.simplify(expr) == "True") == (t not in reached)


def test_collisions_are_named():
    with pytest.raises(rangefinder.Error) as info:
        rangefinder.IndexMap("lambda i, j: [i + j]").check_injective([4, 4])
    assert "[0, 1]" in str(info.value) or "[1, 0]" in str(info.value)


def test_bad_lambda_points_into_the_text():
    with pytest.raises(rangefinder.Error) as info:
        rangefinder.IndexMap("lambda i, j: [i + , j]")
    assert info.value.line == 1


SCRIPTS = sorted((EXAMPLES / "layout").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_layout_examples_match_the_command(path, cli):
    target, printed = run_script(path)
    s, args = target
    # Runs of these (8M-element buffers) are checked by the command's tests.
    expected = json.loads(cli("te", path, "--json").stdout)
    assert rangefinder.report(s, args) == expected


def test_transform_layout_keeps_values():
    A = te.placeholder((6, 8), name="A")
    B = te.compute((6, 8), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((6, 8), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    axes = s[B].transform_layout(lambda i, j: [j // 4, i, te.AXIS_SEPARATOR, j % 4])
    assert [str(a) for a in axes] == ["j.outer", "i", "j.inner"]
    r = rangefinder.report(s, [A, C], run=True)
    assert r["check"]["out_of_bounds"] == 0 and r["check"]["max_abs_error"] == 0
