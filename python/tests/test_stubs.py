"""The type stubs (`rangefinder/_native.pyi`) describe the native module
exactly: every public name and every public member of each class is in
both, so that type checkers and editors see what the module has."""

import ast
import inspect
from pathlib import Path

import rangefinder._native as native

STUBS = Path(native.__file__).resolve().parent / "_native.pyi"
if not STUBS.exists():  # an installed build without its sources beside
    STUBS = Path(__file__).resolve().parents[1] / "rangefinder" / "_native.pyi"


def _public(name):
    return not name.startswith("_")


def _stubbed():
    """Names at the top of the stubs, each with the members a class has."""
    tree = ast.parse(STUBS.read_text())
    out = {}

    def names(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [node.name]
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            return [node.target.id]
        if isinstance(node, ast.Assign):
            return [t.id for t in node.targets if isinstance(t, ast.Name)]
        return []

    for node in tree.body:
        for name in names(node):
            members = None
            if isinstance(node, ast.ClassDef):
                members = {m for n in node.body for m in names(n) if _public(m)}
            out[name] = members
    return out


def _raised_error():
    try:
        native.simplify("x +")
    except native.Error as e:
        return e
    raise AssertionError("`x +` parsed")


def _module():
    out = {}
    for name, value in vars(native).items():
        if not _public(name) or inspect.ismodule(value):
            continue
        members = None
        if inspect.isclass(value):
            members = {m for m in vars(value) if _public(m)}
            if value is native.Error:
                # Set on each error as it is raised, not on the class.
                members |= {m for m in vars(_raised_error()) if _public(m)}
        out[name] = members
    return out


def test_every_public_name_of_the_module_is_stubbed_and_no_other():
    stubbed = {n for n in _stubbed() if _public(n)}
    actual = set(_module())
    assert sorted(actual - stubbed) == [], "in the module, not in _native.pyi"
    assert sorted(stubbed - actual) == [], "in _native.pyi, not in the module"


def test_every_public_member_of_each_class_is_stubbed_and_no_other():
    stubbed = _stubbed()
    problems = []
    for name, members in _module().items():
        if members is None or stubbed.get(name) is None:
            continue
        missing = sorted(members - stubbed[name])
        extra = sorted(stubbed[name] - members)
        if missing:
            problems.append(f"{name}: not stubbed {missing}")
        if extra:
            problems.append(f"{name}: stubbed but absent {extra}")
    assert problems == []


def test_the_version_is_stubbed():
    assert "__version__" in _stubbed()


def _stub_parameters(fn):
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [x.arg for x in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return [x for x in names if x != "self"]


def _parameters(obj):
    prefix = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}
    return [
        prefix.get(p.kind.name, "") + p.name
        for p in inspect.signature(obj).parameters.values()
        if p.name != "self"
    ]


def _is_property(fn):
    return any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)


def test_every_stubbed_signature_names_the_parameters_the_module_takes():
    problems = []
    for node in ast.parse(STUBS.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            got = _parameters(getattr(native, node.name))
            if got != _stub_parameters(node):
                problems.append(f"{node.name}: takes {got}, stubbed {_stub_parameters(node)}")
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(native, node.name)
        for fn in node.body:
            if not isinstance(fn, ast.FunctionDef) or _is_property(fn):
                continue
            if fn.name.startswith("__") and fn.name != "__init__":
                continue  # operators: their parameters are positional only
            obj = cls if fn.name == "__init__" else getattr(cls, fn.name)
            got = _parameters(obj)
            if got != _stub_parameters(fn):
                problems.append(f"{node.name}.{fn.name}: takes {got}, stubbed {_stub_parameters(fn)}")
    assert problems == []
