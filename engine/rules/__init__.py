"""The bundled rule systems, one package each with the same files (`docs/rule-systems.md`).

The protocol they keep is `combatlog.engine.protocol`; the registry that finds them by name
is `combatlog.engine.registry`.
"""
