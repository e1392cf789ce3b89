"""combatlog: tabletop combat as an event-sourced state machine (see combatlog.events, .projections, .engine, .replays)."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("combatlog")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
