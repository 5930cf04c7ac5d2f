"""``tvm.te.schedule``: bound inference and the schedule's relations."""

from .._object import api, tvm_class, layer_getattr

Schedule = tvm_class("tvm.te.Schedule", doc="A schedule: ``s[C]`` gives the stage of ``C``.")
Stage = tvm_class("tvm.te.Stage", doc="One operation's schedule: ``s[C].split(...)``, ``compute_at``, ...")
Split = tvm_class("tvm.te.schedule.Split", doc="``parent = outer * factor + inner``.")
Fuse = tvm_class("tvm.te.schedule.Fuse", doc="``fused = outer * extent(inner) + inner``.")

#: The range of every iteration variable of a schedule: a
#: :class:`rangefinder.tvm.container.Map` from IterVar to Range.
InferBound = api("tvm.te.schedule.InferBound")
#: The loop statement of a schedule given its bounds (realize form).
ScheduleOps = api("tvm.te.schedule.ScheduleOps")
AutoInlineInjective = api("tvm.te.schedule.AutoInlineInjective")
AutoInlineElemWise = api("tvm.te.schedule.AutoInlineElemWise")
AutoInlineBroadcast = api("tvm.te.schedule.AutoInlineBroadcast")
#: Each operation the roots depend on, with the tensors it reads.
CreateReadGraph = api("tvm.te.schedule.CreateReadGraph")
PostDFSOrder = api("tvm.te.schedule.PostDFSOrder")

__all__ = [
    "AutoInlineBroadcast",
    "AutoInlineElemWise",
    "AutoInlineInjective",
    "CreateReadGraph",
    "Fuse",
    "InferBound",
    "PostDFSOrder",
    "Schedule",
    "ScheduleOps",
    "Split",
    "Stage",
]

#: Names this module does not define are the layer's.
__getattr__ = layer_getattr("tvm.te.schedule")
