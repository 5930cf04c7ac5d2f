#!/usr/bin/env python3
"""Runs TVM's own TE test functions, one at a time, under both front ends.

What it measures: how many of TVM v0.19.0's TE tests run unchanged under
``rangefinder te FILE.py`` (the embedded interpreter) and under
``python -m rangefinder.tvm FILE.py`` (CPython with the project's package),
and what stops the others.

The cases:

* every top-level ``def test_*`` function of ``tests/python/te/test_*.py``
  (19 files, 169 functions in v0.19.0). Each case is a temporary script:
  the test file's source with its ``if __name__ == "__main__":`` block
  removed, followed by ``if True:`` / ``FUNC(...)`` / a print of a marker.
  Test methods of classes are not cases (their fixtures need pytest).
  Marks do not stop a call: ``xfail`` and ``tvm.testing.requires_*``
  tests run like the others (the JSON lists each case's decorators).
* every ``gallery/`` script that uses TE (an attribute of ``te`` or
  ``tvm.te`` anywhere in its code), run unchanged as one case.

Parametrized tests: a function decorated with ``@pytest.mark.parametrize``
(stacked decorators give their product) or taking arguments defined at
module level by ``NAME = tvm.testing.parameter(...)`` or
``A, B = tvm.testing.parameters((a1, b1), ...)`` is called once per
parameter set, ``FUNC(name=<the value's source text>, ...)``, so the values
are evaluated by the front end under test, in the module they come from.
Each set is a case named ``FUNC[id]`` with pytest-like ids. Anything else
(fixtures, arguments without a literal list of values) is one case that
fails with the reason "parametrized" without being run. Besides the counts
per case, the summary counts per function (a function passes when all its
parameter sets pass), which is comparable to "N of 169".

Both front ends run the script, then bound and lower the schedule it
lowered last (else created last) and print the report; a script that
creates no schedule prints a note and exits 0. ``--run`` also runs that
lowered program and checks it against direct evaluation, as
scripts/te_programs.sh does: stricter than TVM's tests, which never run
most of their schedules (some read out of bounds or take billions of
steps on purpose).

A run passes when its exit code is 0. Otherwise it is

* crash: exit code 101 (a Rust panic), a ``PanicException``, a signal or
  the time-out;
* failed: exit code 1, any code other than 0/2/101, or exit code 2 where
  the error is a failed check of the test itself (``AssertionError``,
  ``DID NOT RAISE``, a numpy tolerance mismatch): the API exists but
  answers differently from TVM;
* refused: any other exit code 2 (an error raised for an API or a case
  rangefinder does not have).

A failure whose stdout holds the end-of-test marker ran the test function
to its end; what failed is the report of the last schedule the script
made. Its error line is prefixed ``[report]``.

Usage::

    python3 scripts/tvm_test_functions.py [--tvm-git DIR [--rev REV] | --tvm DIR]
        [--bin PATH] [--python PATH] [--timeout S] [--jobs N]
        [--filter SUBSTR] [--json OUT] [--no-gallery] [--keep-temp] [--list] [--run]

Without ``--tvm``/``--tvm-git`` the git mirror /work/.mirror/apache+tvm/repo
is used. Prints one line per case, a table per file, the totals and the most
common first error lines per front end. Exit code 1 when any run crashed,
else 0. Nothing of TVM is written into the repository: sources are read at
run time and the scripts live in a temporary directory.
"""

import argparse
import ast
import collections
import concurrent.futures
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MIRROR = "/work/.mirror/apache+tvm/repo"
DEFAULT_REV = "refs/tags/v0.19.0^{}"
TEST_DIR = "tests/python/te"
MARKER = "__tvm_test_functions_case_finished__"
FRONT_ENDS = ("te", "cpython")


# ---------------------------------------------------------------------------
# Reading TVM: a git directory at a revision, or a plain checkout.


class GitTree:
    """Files of one revision of a git directory (bare or not)."""

    def __init__(self, git_dir, rev):
        self.git_dir = git_dir
        self.rev = rev
        self.label = f"{git_dir} at {rev}"

    def _git(self, *args):
        r = subprocess.run(["git", "-C", self.git_dir, *args], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"git {' '.join(args)} failed: {r.stderr.strip()}")
        return r.stdout

    def list(self, prefix):
        out = self._git("ls-tree", "-r", "--name-only", self.rev, "--", prefix)
        return sorted(line for line in out.splitlines() if line)

    def read(self, path):
        return self._git("show", f"{self.rev}:{path}")


class Checkout:
    """Files of a plain TVM checkout."""

    def __init__(self, root):
        self.root = root
        self.label = root

    def list(self, prefix):
        paths = []
        for d, _, files in os.walk(os.path.join(self.root, prefix)):
            for f in files:
                paths.append(os.path.relpath(os.path.join(d, f), self.root).replace(os.sep, "/"))
        return sorted(paths)

    def read(self, path):
        with open(os.path.join(self.root, path), encoding="utf-8") as f:
            return f.read()


# ---------------------------------------------------------------------------
# Cases.


class Case:
    """One script to run: a test function (with one parameter set) or a
    gallery script."""

    def __init__(self, path, function, param_id, script, marks=(), skip_reason=None):
        self.path = path  # path in the TVM tree
        self.function = function  # None for a gallery script
        self.param_id = param_id  # None when not parametrized
        self.script = script  # the text to run
        self.marks = list(marks)
        self.skip_reason = skip_reason  # set: not run, fails with this reason
        self.results = {}

    @property
    def group(self):
        return os.path.basename(self.path) if self.function else "gallery/*"

    @property
    def name(self):
        if self.function is None:
            return self.path
        name = f"{os.path.basename(self.path)}::{self.function}"
        return name + (f"[{self.param_id}]" if self.param_id is not None else "")

    def matches(self, needle):
        full = f"{self.path}::{self.function}[{self.param_id}]"
        return needle in self.name or needle in full


def dotted(node):
    """`a.b.c` of an attribute chain or call, else ''."""
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def is_main_guard(node):
    """`if __name__ == "__main__":` (either order)."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    consts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and consts == ["__main__"]


def value_id(node, argname, index):
    """pytest's id of one parameter value."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return str(node.value)
    return f"{argname}{index}"


class Unsupported(Exception):
    pass


def parametrize_sets(source, node):
    """The sets of `@pytest.mark.parametrize(names, values)`: a list of
    lists of (argname, source text, id)."""
    if len(node.args) < 2:
        raise Unsupported("parametrize without a list of values")
    names_node, values_node = node.args[0], node.args[1]
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",") if n.strip()]
    elif isinstance(names_node, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) for e in names_node.elts
    ):
        names = [e.value for e in names_node.elts]
    else:
        raise Unsupported("parametrize names are not literal")
    if not isinstance(values_node, (ast.List, ast.Tuple)):
        raise Unsupported("parametrize values are not a literal list")
    sets = []
    for i, elt in enumerate(values_node.elts):
        given_id = None
        if dotted(elt) == "pytest.param" and isinstance(elt, ast.Call):
            ids = [k.value for k in elt.keywords if k.arg == "id" and isinstance(k.value, ast.Constant)]
            given_id = str(ids[0].value) if ids else None
            values = list(elt.args)
        elif len(names) == 1:
            values = [elt]
        elif isinstance(elt, (ast.Tuple, ast.List)):
            values = elt.elts
        else:
            raise Unsupported("parametrize value is not a literal tuple")
        if len(values) != len(names):
            raise Unsupported("parametrize value does not match its names")
        one_set = [(n, ast.get_source_segment(source, v), value_id(v, n, i)) for n, v in zip(names, values)]
        if given_id is not None:
            # The id names the whole set: given to its first value, none to the rest.
            one_set = [(n, src, given_id if j == 0 else None) for j, (n, src, _) in enumerate(one_set)]
        sets.append(one_set)
    return sets


def module_parameters(source, tree):
    """Module-level `tvm.testing.parameter(...)` / `parameters(...)`:
    {argname: [(source text, id), ...]}, and tuples of names that vary
    together as {name: (names, sets)}."""
    single, joint = {}, {}
    for stmt in tree.body:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        call, target = stmt.value, stmt.targets[0]
        fn = dotted(call)
        if fn.endswith("testing.parameter") and isinstance(target, ast.Name):
            name = target.id
            if call.keywords and call.keywords[0].arg == "by_dict" and isinstance(call.keywords[0].value, ast.Dict):
                d = call.keywords[0].value
                single[name] = [
                    (ast.get_source_segment(source, v), str(getattr(k, "value", f"{name}{i}")))
                    for i, (k, v) in enumerate(zip(d.keys, d.values))
                ]
            else:
                single[name] = [
                    (ast.get_source_segment(source, a), value_id(a, name, i)) for i, a in enumerate(call.args)
                ]
        elif fn.endswith("testing.parameters") and isinstance(target, ast.Tuple):
            names = [t.id for t in target.elts if isinstance(t, ast.Name)]
            sets = []
            for i, a in enumerate(call.args):
                if not isinstance(a, (ast.Tuple, ast.List)) or len(a.elts) != len(names):
                    sets = None
                    break
                sets.append([(n, ast.get_source_segment(source, v), f"{n}{i}") for n, v in zip(names, a.elts)])
            for n in names:
                joint[n] = (tuple(names), sets)
    return single, joint


def function_parameter_sets(source, tree, func):
    """The parameter sets a function is called with: [[]] when it takes
    no argument; raises Unsupported when they cannot be read."""
    axes = []  # each axis: a list of sets, each set a list of (name, src, id)
    covered = set()
    for dec in func.decorator_list:
        if dotted(dec).endswith("mark.parametrize") and isinstance(dec, ast.Call):
            sets = parametrize_sets(source, dec)
            axes.append(sets)
            covered.update(n for n, _, _ in sets[0] if sets)
        elif "parametrize" in dotted(dec):
            raise Unsupported(f"@{dotted(dec)}")
    args = func.args
    required = [a.arg for a in args.posonlyargs + args.args]
    required = required[: len(required) - len(args.defaults)]
    missing = [a for a in required if a not in covered]
    if missing:
        single, joint = module_parameters(source, tree)
        seen_joint = set()
        for name in missing:
            if name in single:
                axes.append([[(name, src, pid)] for src, pid in single[name]])
            elif name in joint:
                names, sets = joint[name]
                if sets is None:
                    raise Unsupported(f"tvm.testing.parameters of {name} is not a literal list")
                if names in seen_joint:
                    continue
                seen_joint.add(names)
                if not set(names) <= set(required):
                    raise Unsupported(f"{func.name} takes only some of {', '.join(names)}")
                axes.append(sets)
            else:
                raise Unsupported(f"argument `{name}` is a fixture")
    return [list(itertools.chain.from_iterable(p)) for p in itertools.product(*axes)]


def collect_test_cases(tree_reader):
    """The cases of every tests/python/te/test_*.py."""
    cases = []
    for path in tree_reader.list(TEST_DIR):
        base = os.path.basename(path)
        if os.path.dirname(path) != TEST_DIR or not (base.startswith("test_") and base.endswith(".py")):
            continue
        source = tree_reader.read(path)
        tree = ast.parse(source)
        lines = source.splitlines(keepends=True)
        for stmt in tree.body:
            if is_main_guard(stmt):
                for i in range(stmt.lineno - 1, stmt.end_lineno):
                    lines[i] = "\n"  # keeps line numbers of errors as in the file
        body = "".join(lines)
        if not body.endswith("\n"):
            body += "\n"
        # A redefined name runs its last definition, as pytest collects it.
        funcs = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test_"):
                funcs.pop(stmt.name, None)
                funcs[stmt.name] = stmt
        for func in funcs.values():
            marks = [dotted(d) for d in func.decorator_list]
            try:
                sets = function_parameter_sets(source, tree, func)
            except Unsupported as e:
                cases.append(Case(path, func.name, None, None, marks, f"parametrized: {e}"))
                continue
            for params in sets:
                call = ", ".join(f"{n}=({src})" for n, src, _ in params)
                script = f"{body}\n\nif True:\n    {func.name}({call})\n    print({MARKER!r})\n"
                pid = "-".join(i for _, _, i in params if i is not None) if params else None
                cases.append(Case(path, func.name, pid, script, marks))
    return cases


def uses_te(source):
    """Whether the script's code (not its comments) uses `te.X`/`tvm.te.X`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and dotted(node.value) in ("te", "tvm.te"):
            return True
    return False


def collect_gallery_cases(tree_reader):
    cases = []
    for path in tree_reader.list("gallery"):
        if path.endswith(".py"):
            source = tree_reader.read(path)
            if uses_te(source):
                cases.append(Case(path, None, None, source))
    return cases


# ---------------------------------------------------------------------------
# Running and classifying.


def run_one(cmd, cwd, timeout):
    """(exit code or None on time-out, stdout, stderr, seconds)."""
    start = time.monotonic()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, ended on time-out
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        code = None
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - start


PANIC = re.compile(r"panicked at|PanicException")
# A failed check of the test itself, as CPython and `rangefinder te` word it.
TEST_CHECK = re.compile(
    r"AssertionError|\bassert\w* failed|DID NOT RAISE|Not equal to tolerance|Mismatched elements"
    r"|structural.?equal|StructuralEqual"
)
CARETS = re.compile(r"^\s*[~^]+\s*$")


def error_line(stderr, tmp):
    """The line that says what happened: the exception of a CPython
    traceback, a Rust panic's message, else the first line."""
    lines = [l.rstrip() for l in stderr.replace(tmp, "").splitlines() if l.strip()]
    if not lines:
        return ""
    for i, l in enumerate(lines):
        if PANIC.search(l):
            # `thread 'main' panicked at FILE:L:C:` then the message.
            if l.rstrip().endswith(":") and i + 1 < len(lines):
                return f"{l.strip()} {lines[i + 1].strip()}"
            return l.strip()
    tracebacks = [i for i, l in enumerate(lines) if l.startswith("Traceback (most recent call last)")]
    if tracebacks:
        # CPython: the exception is the first unindented line after the
        # frames of the last traceback.
        rest = [l for l in lines[tracebacks[-1] + 1 :] if not CARETS.match(l)]
        i = next((i for i, l in enumerate(rest) if not l.startswith(" ")), len(rest) - 1)
        exc = rest[i].strip()
        if exc.endswith(":") and i + 1 < len(rest):
            # A message that starts on its own line (numpy's tolerance).
            exc = f"{exc} {rest[i + 1].strip()}"
        elif exc == "AssertionError" and i > 0 and rest[i - 1].startswith("    "):
            # A bare `assert`: the source line the traceback quotes says which.
            exc += f" ({rest[i - 1].strip()})"
        return exc
    first = re.sub(r"\x1b\[[0-9;]*m", "", lines[0]).strip()
    if first == "Error:" and len(lines) > 1:
        first = f"Error: {lines[1].strip()}"
    return first


def classify(code, out, err, tmp, timeout):
    """(verdict, reason) of one run."""
    if code == 0:
        return "pass", ""
    if code is None:
        return "crash", f"timed out after {timeout:g} s"
    why = error_line(err, tmp)
    if code == 101 or code < 0 or code > 128 or PANIC.search(err):
        return "crash", why or f"exit code {code}"
    if MARKER in out:
        why = f"[report] {why}"
    if code == 2:
        if TEST_CHECK.search(why.replace("[report] ", "")):
            return "failed", why
        return "refused", why or "exit code 2"
    return "failed", why or f"exit code {code}"


def run_case(case, front_end, cmd_prefix, extra_args, tmp_root, timeout):
    """Runs one case under one front end: its result as a dict."""
    if cmd_prefix is None:
        return {"verdict": "skipped", "exit": None, "reason": "front end not available", "seconds": 0.0}
    if case.skip_reason:
        return {"verdict": "failed", "exit": None, "reason": case.skip_reason, "seconds": 0.0}
    d = tempfile.mkdtemp(prefix=f"{front_end}-", dir=tmp_root)
    stem = os.path.splitext(os.path.basename(case.path))[0]
    # The tests' own file name, so that messages and __file__ look as in TVM.
    script = os.path.join(d, f"{stem}.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(case.script)
    code, out, err, secs = run_one([*cmd_prefix, script, *extra_args], d, timeout)
    verdict, reason = classify(code, out, err, d, timeout)
    return {"verdict": verdict, "exit": code, "reason": reason, "seconds": round(secs, 2)}


# ---------------------------------------------------------------------------
# Reporting.


def case_line(case):
    te, py = case.results["te"], case.results["cpython"]
    line = f"{case.name}  te={te['verdict']}  cpython={py['verdict']}"
    if te["reason"] and te["reason"] == py["reason"]:
        line += f"  {te['reason']}"
    else:
        if te["reason"]:
            line += f"  te: {te['reason']}"
        if py["reason"]:
            line += f"  |  cpython: {py['reason']}"
    return line


# Families of similar first error lines: (pattern, what they have in
# common). The pattern's first non-empty group is the particular (an API's
# name, an attribute), listed after the family's count.
FAMILIES = [
    (r"`([^`]+)` is not supported by rangefinder", "`NAME` is not supported by rangefinder"),
    (r"`([^`]+)` needs CPython: the module `numpy`", "numpy needs CPython (`rangefinder te` has no numpy)"),
    (r"module `([^`]+)` is not available", "module `NAME` is not available (import)"),
    (r"No module named '([^']+)'", "ModuleNotFoundError: No module named NAME"),
    (r"has no attribute `([^`]+)` that rangefinder supports|^AttributeError: (\w+)$|`s\.(\w+)`: unknown schedule method",
     "an attribute rangefinder's object does not have"),
    (r"`\.value` needs a constant, but the expression is", "`.value` needs a constant, but the expression is symbolic"),
    (r"assert_prim_expr_equal failed", "assert_prim_expr_equal failed: not provably equal"),
    (r"assertion failed: `([^`]*)`|AssertionError \(assert (.*)\)$", "a test assertion failed"),
    (r"failed: the program takes up to \d+ steps", "tvm.build run refused: over the step limit"),
    (r"Unsupported Operation: (\w+)\.", "create_prim_func: Unsupported Operation"),
]


def group_key(reason):
    """(family, particular) of a first error line; a line of no family is
    its own family, without `rangefinder te`'s `Error: ` prefix."""
    prefix = "[report] " if reason.startswith("[report] ") else ""
    text = reason[len(prefix):]
    text = re.sub(r"^Error: ", "", text)
    for pattern, label in FAMILIES:
        m = re.search(pattern, text)
        if m:
            detail = next((g for g in m.groups() if g), None)
            return prefix + label, detail
    return prefix + text[:200], None


def summarize(cases, out=sys.stdout):
    p = lambda *a: print(*a, file=out)

    def counts(sub):
        c = {fe: collections.Counter(x.results[fe]["verdict"] for x in sub) for fe in FRONT_ENDS}
        funcs = collections.OrderedDict()
        for x in sub:
            funcs.setdefault((x.path, x.function), []).append(x)
        fpass = {
            fe: sum(all(x.results[fe]["verdict"] == "pass" for x in xs) for xs in funcs.values())
            for fe in FRONT_ENDS
        }
        return c, len(funcs), fpass

    groups = collections.OrderedDict()
    for c in cases:
        groups.setdefault(c.group, []).append(c)
    header = (
        f"{'file':<52} {'cases':>5} {'funcs':>5} | {'te':>4} {'fn':>4} {'ref':>4} {'fail':>4} {'crsh':>4}"
        f" | {'py':>4} {'fn':>4} {'ref':>4} {'fail':>4} {'crsh':>4}"
    )
    p("")
    p("per file (te/py: cases passed; fn: functions all of whose parameter sets pass;")
    p("          ref: refused; fail: failed; crsh: crashes)")
    p(header)
    p("-" * len(header))

    def row(label, sub):
        c, nfunc, fpass = counts(sub)
        cols = []
        for fe in FRONT_ENDS:
            v = c[fe]
            cols.append(f"{v['pass']:>4} {fpass[fe]:>4} {v['refused']:>4} {v['failed']:>4} {v['crash']:>4}")
        p(f"{label:<52} {len(sub):>5} {nfunc:>5} | {cols[0]} | {cols[1]}")

    for g, sub in groups.items():
        row(g, sub)
    p("-" * len(header))
    tests = [c for c in cases if c.function]
    gallery = [c for c in cases if not c.function]
    for label, sub in (("test functions", tests), ("gallery scripts", gallery), ("all", cases)):
        if sub:
            row(label, sub)

    p("")
    measured = {fe: any(c.results[fe]["verdict"] != "skipped" for c in cases) for fe in FRONT_ENDS}
    for fe, title in (("te", "rangefinder te"), ("cpython", "CPython")):
        if not measured[fe]:
            p(f"note: {title} was not measured (its passes below are 0)")
    if tests:
        c, nfunc, fpass = counts(tests)
        p(
            f"test functions: {c['te']['pass']}/{len(tests)} cases pass under rangefinder te, "
            f"{c['cpython']['pass']}/{len(tests)} under CPython"
        )
        p(
            f"  per function (all parameter sets pass): {fpass['te']}/{nfunc} under rangefinder te, "
            f"{fpass['cpython']}/{nfunc} under CPython"
        )
    if gallery:
        c, _, _ = counts(gallery)
        p(
            f"gallery scripts: {c['te']['pass']}/{len(gallery)} pass under rangefinder te, "
            f"{c['cpython']['pass']}/{len(gallery)} under CPython"
        )
    crashes = sum(c.results[fe]["verdict"] == "crash" for c in cases for fe in FRONT_ENDS)
    reports = any(c.results[fe]["reason"].startswith("[report]") for c in cases for fe in FRONT_ENDS)
    p(f"crashes: {crashes} (runs of {len(cases)} cases x {len(FRONT_ENDS)} front ends)")
    if reports:
        by_fe = ", ".join(
            f"{fe} {sum(c.results[fe]['reason'].startswith('[report]') for c in cases)}" for fe in FRONT_ENDS
        )
        p(f"runs whose test function finished but whose schedule report failed ([report]): {by_fe}")

    for fe, title in (("te", "rangefinder te"), ("cpython", "CPython")):
        errs = collections.Counter()
        reasons = collections.defaultdict(collections.Counter)
        details = collections.defaultdict(collections.Counter)
        for c in cases:
            r = c.results[fe]
            if r["verdict"] not in ("pass", "skipped"):
                k, detail = group_key(r["reason"])
                errs[k] += 1
                reasons[k][r["reason"]] += 1
                if detail:
                    details[k][detail] += 1
        if errs:
            p("")
            p(f"most common first errors under {title} ({sum(errs.values())} failing cases, similar ones grouped):")
            for k, n in errs.most_common(15):
                if len(reasons[k]) == 1:
                    # One message: as it was printed.
                    p(f"  {n:>4}  {next(iter(reasons[k]))[:200]}")
                    continue
                p(f"  {n:>4}  {k}")
                if details[k]:
                    parts = [f"{d} x{m}" if m > 1 else d for d, m in details[k].most_common()]
                    p(f"        {'; '.join(parts)[:600]}")
                else:
                    p(f"        e.g. {reasons[k].most_common(1)[0][0][:200]}")
    return crashes


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Runs TVM's TE test functions one at a time under `rangefinder te` and under CPython.",
    )
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--tvm-git", metavar="DIR", help=f"a TVM git directory (default {DEFAULT_MIRROR})")
    src.add_argument("--tvm", metavar="DIR", help="a plain TVM checkout")
    ap.add_argument("--rev", default=DEFAULT_REV, help=f"revision read with --tvm-git (default {DEFAULT_REV})")
    ap.add_argument("--bin", help="the rangefinder binary (default target/release/rangefinder, else target/debug)")
    ap.add_argument("--python", help="a Python with the package (default target/python-venv/bin/python)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run (default 60)")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (default 2)")
    ap.add_argument("--filter", metavar="SUBSTR", help="only cases whose name contains SUBSTR")
    ap.add_argument("--json", metavar="OUT", help="write the per-case results to OUT")
    ap.add_argument("--no-gallery", action="store_true", help="only the test functions")
    ap.add_argument("--keep-temp", action="store_true", help="keep the temporary scripts (prints where)")
    ap.add_argument("--list", action="store_true", help="list the cases without running them")
    ap.add_argument(
        "--run",
        action="store_true",
        help="pass --run to both front ends: also run the last schedule's lowered program and check it",
    )
    args = ap.parse_args(argv)

    if args.tvm:
        reader = Checkout(args.tvm)
    else:
        reader = GitTree(args.tvm_git or DEFAULT_MIRROR, args.rev)

    cases = collect_test_cases(reader)
    if not args.no_gallery:
        cases += collect_gallery_cases(reader)
    if args.filter:
        cases = [c for c in cases if c.matches(args.filter)]
    if not cases:
        print("no case matches")
        return 2
    if args.list:
        for c in cases:
            print(c.name + (f"  (not run: {c.skip_reason})" if c.skip_reason else ""))
        return 0

    bin_path = os.path.abspath(args.bin) if args.bin else None
    if bin_path is None:
        for cand in ("target/release/rangefinder", "target/debug/rangefinder"):
            if os.access(os.path.join(ROOT, cand), os.X_OK):
                bin_path = os.path.join(ROOT, cand)
                break
    python = os.path.abspath(args.python) if args.python else os.path.join(ROOT, "target/python-venv/bin/python")
    prefixes = {"te": None, "cpython": None}
    if bin_path and os.access(bin_path, os.X_OK):
        prefixes["te"] = [bin_path, "te"]
    else:
        print(f"note: no rangefinder binary ({bin_path or 'target/{release,debug}/rangefinder'}); `te` is not measured")
    check = subprocess.run([python, "-c", "import rangefinder.tvm"], capture_output=True) if os.access(python, os.X_OK) else None
    if check is not None and check.returncode == 0:
        prefixes["cpython"] = [python, "-m", "rangefinder.tvm"]
    else:
        print(f"note: {python} cannot import rangefinder.tvm; CPython is not measured")
    if prefixes["te"] is None and prefixes["cpython"] is None:
        return 2

    print(f"TVM: {reader.label}; {len(cases)} cases")
    print(f"te: {' '.join(prefixes['te'] or ['-'])}; cpython: {' '.join(prefixes['cpython'] or ['-'])}")
    extra = ["--run"] if args.run else []
    print(f"timeout {args.timeout:g} s, {args.jobs} jobs{', with --run' if args.run else ''}")
    print("")

    tmp_root = tempfile.mkdtemp(prefix="tvm_test_functions-")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [
                {fe: pool.submit(run_case, c, fe, prefixes[fe], extra, tmp_root, args.timeout) for fe in FRONT_ENDS}
                for c in cases
            ]
            # One line per case, in order, as soon as both of its runs end.
            for c, fs in zip(cases, futures):
                for fe, fut in fs.items():
                    c.results[fe] = fut.result()
                print(case_line(c), flush=True)
    finally:
        if args.keep_temp:
            print(f"temporary scripts kept in {tmp_root}")
        else:
            shutil.rmtree(tmp_root, ignore_errors=True)

    crashes = summarize(cases)
    if args.json:
        rows = [
            {
                "name": c.name,
                "path": c.path,
                "function": c.function,
                "params": c.param_id,
                "marks": c.marks,
                **{fe: c.results[fe] for fe in FRONT_ENDS},
            }
            for c in cases
        ]
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"tvm": reader.label, "timeout": args.timeout, "run": args.run, "cases": rows}, f, indent=1)
            f.write("\n")
    return 1 if crashes else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `| head`
        sys.stderr.close()
        sys.exit(0)
