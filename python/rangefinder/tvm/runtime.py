"""``tvm.runtime``: conversion of Python values to TVM objects."""

from ._object import api, layer_getattr

#: Python ints become integer constants; TVM objects are returned as they are.
convert = api("tvm.runtime.convert")

__all__ = ["convert"]

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.runtime")
