"""combatlog.cli: the `combatlog` command line."""

# the commands that live in modules of their own register on the app when the package loads
from combatlog.cli import amend as _amend  # noqa: F401
from combatlog.cli import fork as _fork  # noqa: F401
from combatlog.cli import main as _main  # noqa: F401
from combatlog.cli import play as _play  # noqa: F401
from combatlog.cli import rulesets as _rulesets  # noqa: F401
from combatlog.cli import serve as _serve  # noqa: F401
from combatlog.cli import simulate as _simulate  # noqa: F401
from combatlog.cli import trust as _trust  # noqa: F401
