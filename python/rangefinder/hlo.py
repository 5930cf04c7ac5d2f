"""Indexing maps of HLO modules, as ``rangefinder hlo`` gives them."""

import json
import os

from ._native import hlo_analyze as _analyze

__all__ = ["analyze"]


def analyze(text_or_path, instruction=None, output=0, input_to_output=False, to_parameters=False, physical=False):
    """The indexing maps of one instruction of an HLO module.

    ``text_or_path`` is the module's text or a path to it. ``instruction``
    names the instruction (``NAME`` or ``COMPUTATION/NAME``; default: the
    entry computation's ROOT); ``input_to_output`` asks for input-to-output
    maps; ``to_parameters`` maps the whole computation to its parameters;
    ``physical`` maps physical positions instead of logical indices: each
    shape's dimensions in its layout's major-to-minor order, split by its
    tiles (``f32[1000,300]{1,0:T(8,128)}`` has positions ``[125, 3, 8, 128]``),
    with tile padding outside every map's domain.
    Returns what ``rangefinder hlo --json`` prints (``instruction``,
    ``direction``, ``warnings``, ``operands``), with each operand's ``maps``
    as :class:`rangefinder.IndexingMap` objects; ``details`` keeps their
    tuple elements, runtime variables and widening as the command gives them.
    An output-to-input map draws itself (``.svg(at=...)``, ``_repr_svg_`` in
    Jupyter) over the instruction's output and this operand's shape, as
    ``rangefinder hlo --svg`` does.
    """
    text = _read(text_or_path)
    report, maps = _analyze(text, instruction, output, input_to_output, to_parameters, physical)
    result = json.loads(report)
    for operand, objects in zip(result["operands"], maps):
        operand["maps"] = objects
    return result


def _read(text_or_path):
    if isinstance(text_or_path, os.PathLike):
        with open(text_or_path, encoding="utf-8-sig") as f:
            return f.read()
    if isinstance(text_or_path, str) and "\n" not in text_or_path and os.path.isfile(text_or_path):
        with open(text_or_path, encoding="utf-8-sig") as f:
            return f.read()
    return text_or_path
