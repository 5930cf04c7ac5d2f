"""``tvm.arith``: the analyzer, on expression objects."""

from rangefinder._native import Analyzer, ConstIntBound, IntervalSet, ModularSet

__all__ = ["Analyzer", "ConstIntBound", "IntervalSet", "ModularSet"]
