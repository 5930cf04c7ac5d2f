"""``tvm.container``: the mapping ``InferBound`` returns."""

from ._object import tvm_class

Map = tvm_class("tvm.container.Map", doc="What ``InferBound`` returns: ``bounds[iv]`` is the Range of ``iv``.")

__all__ = ["Map"]
