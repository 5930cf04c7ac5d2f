"""``tvm.tir.ir_builder``: statements built by emitting calls."""

from .._object import api

#: A builder: ``ib.emit(call)`` adds a call, ``ib.get()`` the statement.
create = api("tvm.tir.ir_builder.create")

__all__ = ["create"]
