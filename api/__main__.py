"""`python -m combatlog`: the command line."""

import os
import sys

# `python -m` puts the current folder first on the path: a plugin's module is never imported
# from whatever folder the command runs in (a `minid20.py` beside a log), only from the install
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]

from combatlog.cli.main import main  # noqa: E402

main()
