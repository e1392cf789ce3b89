"""combatlog.cli: the `combatlog` command line."""
