"""Tensor Comprehensions: range inference, as ``rangefinder tc`` gives it."""

import json

from ._native import tc_report as _report

__all__ = ["infer"]


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
    raises ``rangefinder.Error``.
    """
    report, _failed = _report(source, sizes, run, seed)
    return json.loads(report)
