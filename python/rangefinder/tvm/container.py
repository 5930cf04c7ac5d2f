"""``tvm.container``: the mapping ``InferBound`` returns."""

from ._object import tvm_class, layer_getattr

Map = tvm_class("tvm.container.Map", doc="What ``InferBound`` returns: ``bounds[iv]`` is the Range of ``iv``.")

__all__ = ["Map"]

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.container")
