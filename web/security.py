"""What every response of the web tracker carries, and which posts it refuses: headers that
keep a capability link from leaking (no referrer) and scripts to the server's own, and a
same-origin check that refuses a post another site's page sends."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from litestar import Request

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURE_HEADERS = {
    "Referrer-Policy": "no-referrer",  # a capability link never leaves in a Referer header
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
}


_HEADERS = [(k.lower().encode(), v.encode()) for k, v in SECURE_HEADERS.items()]


def secure_headers(app: Any) -> Any:
    """ASGI middleware: every response (a page, a stream, a file, an error) carries SECURE_HEADERS."""

    async def middleware(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in _HEADERS if h[0] not in have)]
            await send(message)

        await app(scope, receive, send_with_headers)

    return middleware


def same_origin(request: Request[Any, Any, Any]) -> bool:
    """True unless the browser says the request comes from another site: its `Origin` names
    another host than this one's, or (with no `Origin`) `Sec-Fetch-Site` says cross-site."""
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        host = request.headers.get("host", "")
        return urlsplit(origin).netloc.lower() == host.lower()
    if origin == "null":
        return False
    return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


__all__ = ["CSP", "SECURE_HEADERS", "same_origin", "secure_headers"]
