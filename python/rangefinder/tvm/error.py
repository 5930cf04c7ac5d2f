"""``tvm.error``: the error TVM raises from schedules and lowering."""

from .._native import TVMError

__all__ = ["TVMError"]
