"""``tvm._ffi.base``: the error TVM raises, as ``tvm.error.TVMError``."""

from ..._native import TVMError

__all__ = ["TVMError"]
