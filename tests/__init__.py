"""combatlog tests."""
