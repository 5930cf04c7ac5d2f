"""``tvm.tir.stmt_functor``: substitution in expressions."""

from .._object import api

#: ``node`` with each variable of ``vmap`` replaced by its value.
substitute = api("tvm.tir.stmt_functor.substitute")

__all__ = ["substitute"]
