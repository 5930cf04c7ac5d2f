"""``tvm.container``: the mapping ``InferBound`` returns."""

from .._native import Map

__all__ = ["Map"]
