#!/usr/bin/env bash
# mypy, strict, over the layers that hold the engine: events, projections, engine, replays.
# The code installs as one namespace through setuptools' package-dir mapping, which mypy
# can't follow; a tree of links gives it the namespace as installed.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/combatlog"
for layer in events projections engine replays cli examples; do
    ln -s "$PWD/$layer" "$tree/combatlog/$layer"
done
ln -s "$PWD/api/__init__.py" "$tree/combatlog/__init__.py"
ln -s "$PWD/api/py.typed" "$tree/combatlog/py.typed"
cd "$tree"
MYPYPATH="$tree" mypy --config-file "$OLDPWD/pyproject.toml" -p combatlog.events -p combatlog.projections \
    -p combatlog.engine -p combatlog.replays "$@"
