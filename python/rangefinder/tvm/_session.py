"""Which schedule a script is about: the one it lowered last, else the one
it created last (as ``rangefinder te`` decides)."""


class Session:
    """The schedules a script created and lowered, in order."""

    def __init__(self):
        self.created = []
        self.lowered_with = []

    def created_schedule(self, s):
        self.created.append(s)

    def lowered(self, s, args):
        self.lowered_with.append((s, args))

    def target(self):
        """``(schedule, args)`` the report is about, or None; ``args`` is
        None where the script named none."""
        if self.lowered_with:
            return self.lowered_with[-1]
        if self.created:
            return (self.created[-1], None)
        return None

    def reset(self):
        self.created.clear()
        self.lowered_with.clear()


_SESSION = Session()


def session():
    """The process-wide session of :mod:`rangefinder.tvm`."""
    return _SESSION
