"""``tvm.tir.stmt_functor``: substitution in expressions."""

from ..._native import substitute as _substitute

__all__ = ["substitute"]


def substitute(node, vmap):
    """``node`` with each variable of ``vmap`` replaced by its value."""
    return _substitute(node, dict(vmap))
