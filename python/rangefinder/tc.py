"""Tensor Comprehensions: range inference, as ``rangefinder tc`` gives it."""

import json

from ._native import tc_report as _report
from ._native import tc_svg as _svg

__all__ = ["InferredRanges", "infer"]


class InferredRanges(dict):
    """What :func:`infer` returns: the report as a ``dict`` (``defs``, ...),
    which also draws itself: :meth:`svg` gives the picture of each index
    variable's range on a number line with the bound each access imposes
    (the deciding access emphasised), and Jupyter shows it."""

    def __init__(self, report, source, sizes):
        super().__init__(report)
        self._source = source
        self._sizes = dict(sizes or {})

    def svg(self):
        """The picture as SVG text, at the sizes given to :func:`infer`."""
        return _svg(self._source, self._sizes)

    def _repr_svg_(self):
        return self.svg()


def infer(source, sizes=None, run=False, seed=0):
    """Infers the ranges of every definition of the TC ``source``.

    ``sizes`` binds size symbols (``{"N": 64}``, each at least 1), adding
    numeric values;
    ``run=True`` (sizes required) lowers each definition to TE, runs it on
    random inputs (seeded by ``seed``) and compares it with direct
    evaluation. Returns what ``rangefinder tc --json`` prints: ``defs``, each
    with ``ranges`` (half-open ``lower``/``upper`` expressions), ``outputs``
    (shapes) and ``diagnostics`` (errors, warnings and notes with their
    position; a read under a condition that narrows a range is a warning).
    Errors in the program are diagnostics, not exceptions; a size below 1
    raises ``rangefinder.Error``. The result is an :class:`InferredRanges`,
    a ``dict`` whose ``.svg()`` (and Jupyter view) draws the ranges.
    """
    report, _failed = _report(source, sizes, run, seed)
    return InferredRanges(json.loads(report), source, sizes)
