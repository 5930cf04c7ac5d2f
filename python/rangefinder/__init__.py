"""rangefinder: exactly which indices each part of a tensor program touches.

The arithmetic core, XLA's indexing maps and TVM's InferBound, from Python::

    >>> import rangefinder
    >>> rangefinder.simplify("(x * 16 + y) // 8", {"y": (0, 8)})
    'x * 2'
    >>> m = rangefinder.IndexingMap("(d0) -> (d0 floordiv 8), domain: d0 in [0, 31]")
    >>> m.evaluate([17])
    [2]

TVM's TE scripts run under CPython with ``import rangefinder.tvm as tvm``
(see :mod:`rangefinder.tvm`), and :func:`report` gives what
``rangefinder te --json`` prints for a schedule.
"""

from . import _native

from ._native import (
    Analyzer,
    ConstIntBound,
    Error,
    IndexMap,
    IndexingMap,
    IntervalSet,
    ModularSet,
    TVMError,
    __version__,
    simplify,
)
from ._native import te_report as _te_report
from . import hlo, tc

__all__ = [
    "Analyzer",
    "ConstIntBound",
    "Error",
    "IndexMap",
    "IndexingMap",
    "IntervalSet",
    "ModularSet",
    "Report",
    "TVMError",
    "hlo",
    "report",
    "report_text",
    "simplify",
    "tc",
    "truncdiv",
    "truncmod",
]


def truncdiv(a, b):
    """``a / b`` rounding toward zero (C's ``/``), as an expression."""
    return _native.truncating_division(a, b)


def truncmod(a, b):
    """The remainder of :func:`truncdiv`, with the sign of ``a`` (C's ``%``)."""
    return _native.truncating_division(a, b, True)


class Report(dict):
    """The report of a schedule: the dictionary ``rangefinder te --json``
    prints, which Jupyter shows as pictures.

    ``svg()`` (and ``_repr_svg_``) is the stage graph with each stage's
    IterVar graph and the region pictures of each stage computed at a loop
    (what ``rangefinder te --svg`` draws); ``html()`` is the page
    ``rangefinder te --html`` writes (``_repr_html_`` its body).
    """

    def __init__(self, native):
        super().__init__(native.data())
        self._native = native

    def svg(self, at=None):
        """The stage graph, every stage's IterVar graph and the region
        pictures, as SVG text. ``at`` chooses the iteration of the region
        pictures, ``{"i.outer": 3}``, as ``rangefinder te --at`` does."""
        return self._native.svg(at)

    def html(self, title="rangefinder te report", at=None):
        """The whole report as one self-contained HTML page."""
        return self._native.html(title, at=at)

    def _repr_svg_(self):
        return self.svg()

    def _repr_html_(self):
        return self._native.html(body_only=True)

    def __reduce__(self):
        # Pickled and deep-copied as the plain dictionary it always was:
        # the pictures need the schedule, which stays in this process.
        return (dict, (dict(self),))


def report(s, args=None, run=False, seed=0, max_steps=None):
    """The report of schedule ``s`` as ``rangefinder te --json`` prints it.

    ``args`` are the program's tensors (default: the inputs, then the
    outputs); ``run=True`` also runs the lowered program on random inputs
    (seeded by ``seed``) and checks it, as ``--run`` does, within
    ``max_steps`` loop iterations and stores (default 100,000,000; a program
    whose loops take more is refused before it runs). Ctrl-C stops a run.
    The result is a :class:`Report`: a ``dict`` that also draws itself.
    """
    return Report(_te_report(s, args, run, seed, max_steps))


def report_text(s, args=None, run=False, seed=0, max_steps=None):
    """The report of schedule ``s`` as ``rangefinder te`` prints it."""
    return _te_report(s, args, run, seed, max_steps).text()
