"""``tvm.tir.stmt_functor``: substitution in expressions."""

from .._object import api, layer_getattr

#: ``node`` with each variable of ``vmap`` replaced by its value.
substitute = api("tvm.tir.stmt_functor.substitute")

__all__ = ["substitute"]

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.tir.stmt_functor")
