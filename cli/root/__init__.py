"""combatlog: tabletop combat as an event-sourced state machine (see combatlog.events, .projections, .engine, .replays)."""
