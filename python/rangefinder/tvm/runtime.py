"""``tvm.runtime``: conversion of Python values to TVM objects."""

from ._object import api

#: Python ints become integer constants; TVM objects are returned as they are.
convert = api("tvm.runtime.convert")

__all__ = ["convert"]
