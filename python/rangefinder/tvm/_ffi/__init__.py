"""``tvm._ffi``: TVM's foreign-function layer, where older programs take
``TVMError`` from (``tvm._ffi.base.TVMError``)."""

from . import base

__all__ = ["base"]
