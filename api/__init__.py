"""combatlog: tabletop combat as an event-sourced state machine.

See combatlog.events, .projections, .engine and .replays.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("combatlog")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
