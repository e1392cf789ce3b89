"""JSON Schema export of every event type and of the stored envelope."""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events import catalogue
from combatlog.events.envelope import Envelope


def json_schema() -> dict[str, Any]:
    """Return one JSON Schema document describing a stored line (an envelope of any event)."""
    schema = msgspec.json.schema(Envelope[catalogue.event_union()])  # type: ignore[misc]
    schema["title"] = "combatlog log line"
    schema["description"] = (
        "One sealed event of a combatlog log: seq, step, optional at, v, event (tagged by `type`), digest."
    )
    return schema
