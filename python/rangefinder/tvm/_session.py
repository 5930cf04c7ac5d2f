"""Which schedule a script is about: the one it lowered last, else the one
it created last (as ``rangefinder te`` decides). The API layer's session
records both."""

from .. import _native


class Session:
    """The schedules a script created and lowered."""

    def target(self):
        """``(schedule, args)`` the report is about, or None; ``args`` is
        None where the script lowered nothing."""
        return _native.session_target()

    def reset(self):
        """Forgets the schedules and lowerings made so far."""
        _native.session_reset()


_SESSION = Session()


def session():
    """The process-wide session of :mod:`rangefinder.tvm`."""
    return _SESSION
