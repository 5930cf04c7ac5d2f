"""``tvm.te.schedule``: bound inference and the schedule's relations."""

from ..._native import Fuse, Schedule, Split, Stage
from ..._native import infer_bound as _infer_bound

__all__ = ["Fuse", "InferBound", "Schedule", "Split", "Stage"]


def InferBound(sch):
    """The range of every iteration variable of schedule ``sch``: a
    :class:`rangefinder.tvm.container.Map` from IterVar to Range."""
    return _infer_bound(sch)
