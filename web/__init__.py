"""combatlog's web tracker (`combatlog serve`): the game master's screen and a live,
redacted players' view, over the same logs as the command line. Needs the `web` extra
(`pip install 'combatlog[web]'`: Litestar, uvicorn, Jinja2)."""

from __future__ import annotations

__all__ = ["create_app"]


def create_app(*args, **kwargs):  # type: ignore[no-untyped-def]
    """`combatlog.web.app.create_app`, imported on first use (the web extra is optional)."""
    from combatlog.web.app import create_app as make

    return make(*args, **kwargs)
