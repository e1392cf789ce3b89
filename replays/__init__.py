"""combatlog.replays: stores, the replay cursor, audit, and transcripts of a saved log."""

# Opening logs means reading events of any rule system: the registry installs the resolvers
# that load a system when a log names one of its event types or its name.
import combatlog.engine.registry  # noqa: F401
from combatlog.replays.stores import JsonlLog, MemoryLog, SqliteLog, copy_log, open_log

__all__ = ["JsonlLog", "MemoryLog", "SqliteLog", "copy_log", "open_log"]
