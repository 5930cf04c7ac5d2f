"""The pytest plugin TVM's tests expect, loaded by ``tvm.testing.main()``:
a test that takes ``target`` runs for each target this machine runs
(``llvm``) unless it names its own with ``parametrize_targets``, and
``dev`` is the device of that target."""

import pytest


def _parametrizes_target(metafunc):
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",")]
        if "target" in names:
            return True
    return False


def _fixture_function(fixturedef):
    func = getattr(fixturedef, "func", None)
    # pytest 8.4 and later wrap the function the fixture was made from.
    return getattr(func, "_get_wrapped_function", lambda: func)()


def _parametrize_correlated(metafunc):
    """The fixtures of one ``tvm.testing.parameters`` call take their values
    together: one parametrization of all of them."""
    groups = {}
    info = getattr(metafunc.definition, "_fixtureinfo", None)
    for name, fixturedefs in getattr(info, "name2fixturedefs", {}).items():
        func = _fixture_function(fixturedefs[-1])
        if hasattr(func, "parametrize_group"):
            entry = groups.setdefault(func.parametrize_group, {"ids": func.parametrize_ids, "params": []})
            entry["params"].append((name, func.parametrize_values))
    for entry in groups.values():
        names = ",".join(name for name, _ in entry["params"])
        values = list(zip(*(values for _, values in entry["params"])))
        metafunc.parametrize(names, values, indirect=True, ids=entry["ids"])


def pytest_generate_tests(metafunc):
    _parametrize_correlated(metafunc)
    if "target" in metafunc.fixturenames and not _parametrizes_target(metafunc):
        metafunc.parametrize("target", ["llvm"], scope="session")


@pytest.fixture
def dev(target):
    """The device of ``target``."""
    import tvm

    return tvm.device(str(target))
