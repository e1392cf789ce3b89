"""`python -m combatlog`: the command line."""

from combatlog.cli.main import main

main()
