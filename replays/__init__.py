"""combatlog.replays: stores, the replay cursor, audit, and transcripts of a saved log."""

from combatlog.replays.stores import JsonlLog, MemoryLog, SqliteLog, copy_log, open_log

__all__ = ["JsonlLog", "MemoryLog", "SqliteLog", "copy_log", "open_log"]
