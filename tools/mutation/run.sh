#!/usr/bin/env bash
# Mutation testing of the core with cosmic-ray: a session per module, run against that module's fast tests.
#
#   tools/mutation/run.sh                      every module in modules.txt
#   tools/mutation/run.sh replays/audit.py     one (or several) of them
#   MUTATION_RETRY=1 tools/mutation/run.sh ... run again only the mutants that survived last time
#                                              (after adding tests; the source must be unchanged)
#   MUTATION_MODULES=FILE, MUTATION_OUT=DIR    another module list, another folder for the sessions
#   MUTATION_TIMEOUT=SECONDS                   a mutant whose tests run longer is killed (default 30)
#
# cosmic-ray rewrites the module in place while a mutant's tests run: run this in a git
# worktree of your own, never in a tree someone is editing. One worker, at low priority.
# Sessions and reports go to tools/mutation/sessions/ (not committed). Each mutant runs its
# module's test files from modules.txt (missing ones are left out) with -x; `--assert=plain`
# and no faker/anyio plugins take pytest's start from ~2.5 s to ~0.5 s: pytest rewrites the
# asserts of the whole combatlog package (it is a pytest plugin) and can't cache them while
# cosmic-ray forbids bytecode files. A mutant's run is then ~1 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tools/mutation
out=${MUTATION_OUT:-$here/sessions}
modules=${MUTATION_MODULES:-$here/modules.txt}
mkdir -p "$out"
while IFS='|' read -r module tests; do
    module=$(echo "$module" | xargs)
    case "$module" in '' | \#*) continue ;; esac
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$module"; then continue; fi
    present=""
    for t in $tests; do [ -f "$t" ] && present="$present $t"; done
    name=$(echo "${module%.py}" | tr / _)
    cfg=$out/$name.toml
    db=$out/$name.sqlite
    command="python -m pytest -x -q -p no:cacheprovider -p no:faker -p no:anyio --assert=plain -o addopts= --no-header$present"
    cat >"$cfg" <<TOML
[cosmic-ray]
module-path = "$module"
timeout = ${MUTATION_TIMEOUT:-30}
excluded-modules = []
test-command = "$command"

[cosmic-ray.distributor]
name = "local"
TOML
    echo "== $module:$present"
    if ! $command >/dev/null 2>&1; then
        echo "the tests fail on the unmutated code: $command" >&2
        exit 1
    fi
    if [ ! -f "$db" ]; then
        cosmic-ray init "$cfg" "$db"
        python $here/filter.py "$db"
    elif [ -n "${MUTATION_RETRY:-}" ]; then
        python $here/report.py --retry "$db"
    fi
    start=$(date +%s)
    # cosmic-ray's test runs write no bytecode, but they read what a run by hand left: a
    # mutant's .pyc, of the same size and second as the restored source, would pass for it
    find events projections engine replays -name __pycache__ -type d -prune -exec rm -rf {} +
    nice -n 15 cosmic-ray exec "$cfg" "$db"
    echo "ran in $(($(date +%s) - start)) s"
    python $here/report.py "$db" | tee "$out/$name.txt"
done <"$modules"
