"""JSON Schema export of every event type and of the stored envelope."""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events import catalogue
from combatlog.events.envelope import Envelope


def json_schema() -> dict[str, Any]:
    """Return one JSON Schema document describing a stored line (an envelope of any event)."""
    schema = msgspec.json.schema(Envelope[catalogue.event_union()])  # type: ignore[misc]
    schema = _short_names(schema)
    schema["title"] = "combatlog log line"
    schema["description"] = (
        "One sealed event of a combatlog log: seq, step, optional at, v, event (tagged by `type`), digest."
    )
    return schema


def _short_names(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its generic definitions named readably (`Envelope`, not the union spelled out)."""
    defs = schema.get("$defs", {})
    renames: dict[str, str] = {}
    for name in defs:
        if "[" in name or len(name) > 60:
            short = name.replace("[", "_").split("_", 1)[0] or "Definition"
            while short in defs or short in renames.values():
                short += "_"
            renames[name] = short
    if not renames:
        return schema
    text = msgspec.json.encode(schema).decode()
    for old, new in renames.items():
        text = text.replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"').replace(f'"{old}":', f'"{new}":')
    out: dict[str, Any] = msgspec.json.decode(text)
    return out
