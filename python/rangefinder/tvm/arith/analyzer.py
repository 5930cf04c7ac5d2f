"""``tvm.arith.analyzer``: the module TVM defines ``Analyzer`` in (TOPI
imports it from there)."""

from rangefinder._native import Analyzer

__all__ = ["Analyzer"]
