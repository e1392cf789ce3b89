"""The web tracker: a Litestar app serving the game master's screen and the players' view.

Routes carry a capability token: `/gm/{token}` commands and sees everything,
`/play/{token}` only reads, redacted on the server (`combatlog.web.view`). Pages are HTML
rendered here and updated by htmx: a command posts a form and gets the new board back; a
page follows `/.../stream`, server-sent events whose `id:` is the log's seq, so a browser
that drops and reconnects sends `Last-Event-ID` and is sent the state as it now stands.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import msgspec
from jinja2 import Environment, PackageLoader, select_autoescape
from litestar import Litestar, Request, Response, get, post
from litestar.exceptions import HTTPException, NotFoundException, PermissionDeniedException
from litestar.params import FromPath
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from combatlog.engine import Refused
from combatlog.engine.commands import KINDS, Contribute, help_of
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import EncounterFileError, encounter_commands
from combatlog.engine.grammar import UsageError
from combatlog.engine.words import add_example, plainly
from combatlog.events import LogError, StepRedone, StepUndone
from combatlog.projections import PlayerView, SeatEntry
from combatlog.replays import open_log, views
from combatlog.replays.audit import Report, audit
from combatlog.replays.cursor import Cursor, envelopes
from combatlog.replays.encounters import start
from combatlog.replays.fair import check as check_fair
from combatlog.replays.transcript import transcript
from combatlog.replays.views import GM, TABLE, Seat, Viewer, viewed_envelopes
from combatlog.web import forms, mapview, security, statform, view
from combatlog.web.tables import Table, Tables

KEEPALIVE = 15.0  # seconds between comments on a quiet stream (proxies close silent connections)
MAX_FORM = 64 * 1024  # bytes of an uploaded encounter file
MAX_BODY = 256 * 1024  # bytes of any request's body (a form, an upload with its envelope)

_env = Environment(
    loader=PackageLoader("combatlog.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _html(template: str, status: int = 200, **context: Any) -> Response[str]:
    return Response(_env.get_template(template).render(**context), media_type="text/html", status_code=status)


@dataclass
class Line:
    seq: int
    text: str
    undone: bool
    step: int = 0


def _lines(table: Table, viewer: Viewer, last: int = 400) -> list[Line]:
    """The transcript as `viewer` may read it, newest last, the lines of undone steps marked
    (struck through, never removed)."""
    return _told(table, viewer)[-last:]


def _told(table: Table, viewer: Viewer) -> list[Line]:
    by_seq = {e.seq: e for e in envelopes(table.log)}
    undone: set[int] = set()
    for e in by_seq.values():
        if isinstance(e.event, StepUndone):
            undone.add(e.event.step)
        elif isinstance(e.event, StepRedone):
            undone.discard(e.event.step)
    told = list(transcript(table.log, viewer=viewer))
    return [Line(seq, text, by_seq[seq].step in undone, by_seq[seq].step) for seq, text in told if seq in by_seq]


@dataclass
class Step:
    """One step of the history as the game master's screen tells it."""

    step: int
    round: int
    lines: list[str]
    undone: bool
    rewind: bool  # later steps can be undone back to this one
    redo: bool  # undone, and redo can bring it back now
    correct: bool = False  # it counts, and an amendment can correct it


_ROUND = re.compile(r"^Round (\d+)\.")


def _history(table: Table, lines: list[Line], last: int = 25) -> list[Step]:
    """The latest steps in the transcript's words, newest first."""
    projection = table.session.projection
    undo, redo = set(projection.undo), set(projection.redo)
    newest_undoable = max(undo, default=0)
    steps: dict[int, Step] = {}
    round_now = 0
    for line in lines:
        found = _ROUND.match(line.text)
        if found:
            round_now = int(found[1])
        entry = steps.get(line.step)
        if entry is None:
            entry = steps[line.step] = Step(
                step=line.step,
                round=round_now,
                lines=[],
                undone=line.undone,
                rewind=line.step in undo and line.step < newest_undoable,
                redo=line.step in redo,
                correct=line.step in undo,
            )
        entry.lines.append(line.text.strip())
    return list(reversed(list(steps.values())[-last:]))


def _gm_board(table: Table, message: str = "", error: str = "", base: str = "") -> str:
    state = table.session.state
    told = _told(table, GM)
    seats = [
        (seat, f"{base.rstrip('/')}/seat/{table.seat_token(seat)}", [state.combatants[c].name for c in seat.combatants])
        for seat in table.seats()
    ]
    return _env.get_template("gm_board.html").render(
        t=table,
        seats=seats,
        qr=_qr,
        seating=state.seating,
        queue=table.queue,
        screen=view.screen(state, GM, table.seq),
        turns=view.turns(state),
        legal=table.session.legal(),
        add_example=add_example(state),
        lines=told[-400:],
        map_svg=_map(table, GM, movable=True),
        fair=_fair(table, GM),
        odds=_odds(table, GM),
        places=_places(table),
        own_commands=_own_commands(table) if state.rules is not None else [],
        command_help=_command_help(table),
        stat_form=statform.form_of(table.session.rules.stats_type) if state.rules is not None else [],
        conditions=sorted({x.split(" (")[0] for r in view.screen(state, GM, table.seq).rows for x in r.conditions}),
        history=_history(table, told),
        message=message,
        error=error,
        sides=state.sides(),
        shown={side: (state.players or PlayerView()).hp_of(state, side) for side in state.sides()},
    )


def _player_board(table: Table) -> str:
    """The players' board as the log stands, rendered once per seq (and per change that isn't a
    step: odds worked out, a request answered) however many pages follow it."""
    seq = table.seq
    key = (seq, table.revision)
    kept = table.rendered.get("players")
    if kept is not None and kept[0] == key:
        return kept[1]
    page = _env.get_template("player_board.html").render(
        t=table,
        screen=view.screen(table.session.state, TABLE, seq),
        lines=_lines(table, TABLE, last=60),
        map_svg=_map(table, TABLE),
        odds=_odds(table, TABLE),
        fair=_fair(table, TABLE),
    )
    table.rendered["players"] = (key, page)
    return page


def _odds(table: Table, viewer: Viewer) -> dict[str, Any] | None:
    """The odds from this moment as `viewer`'s screen shows them (None: not shown there): the
    game master's always, once a study has said them (and a study of the latest step started);
    the players' only when the game master chose so, the sides and player characters they can
    see."""
    state = table.session.state
    keeper = table.odds()
    if keeper is None or state.rules is None or not state.combatants:
        return None
    players = state.players
    if not viewer.gm and (players is None or not players.odds):
        return None
    if state.phase != "end":
        keeper.want(table.seq)
    now = keeper.latest
    working = keeper.running()
    if not viewer.gm and now is not None:
        seen = views.seen(state, viewer, table.seq)
        sides = {c.side for c in seen.combatants}
        names = {c.name for c in seen.combatants}
        now = replace(now, sides=[s for s in now.sides if s[0] in sides], down=[d for d in now.down if d[0] in names])
    return {"now": now, "working": working}


def _fair(table: Table, viewer: Viewer) -> dict[str, Any] | None:
    """A fair encounter's dice as a screen shows them: the commitment from the start, the
    contributions, and once the seed is revealed whether every engine die `viewer` was shown
    follows from it (`replays.fair.check` over that viewer's own events); None otherwise."""
    fair = table.session.state.fair
    if fair is None:
        return None
    out: dict[str, Any] = {"commitment": fair.commitment, "contributions": len(fair.contributions)}
    if fair.seed is not None:
        key = f"fair {viewer.name}"
        kept = table.rendered.get(key)
        if kept is None or kept[0] != table.seq:
            report = check_fair(viewed_envelopes(envelopes(table.log), viewer, table.log))
            verdict = "verified" if report.clean and report.checked else "not verified"
            found = f"; {report.findings[0]}" if report.findings else ""
            kept = (table.seq, f"{verdict}: {report.checked} engine dice checked{found}")
            table.rendered[key] = kept
        out["verified"] = kept[1]
    return out


def _may_contribute(state: Any, seat: SeatEntry) -> bool:
    fair = state.fair
    return (
        fair is not None
        and state.phase in ("setup", "surprise")
        and not any(c.by == f"seat:{seat.id}" for c in fair.contributions)
    )


def _map(table: Table, viewer: Viewer, movable: bool | str = False) -> str:
    """The map `viewer` sees, as inline SVG (empty for a system without one)."""
    state = table.session.state
    if state.rules is None:
        return ""
    rules = table.session.rules
    return mapview.draw(rules.board(state), views.seen(state, viewer, table.seq), movable)


def _command_help(table: Table) -> list[tuple[str, str]]:
    """(its words, its help) of each command that makes sense now: each command type's own
    (`combatlog.engine.commands`), as `combatlog play`'s help gives them."""
    return [(KINDS[kind].usage, help_of(KINDS[kind])) for kind in table.session.legal() if kind in KINDS]


def _own_commands(table: Table) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The rule system's own commands as forms: (kind, help, [(word, how it is asked)])."""
    rules = table.session.rules
    out = []
    for kind, help_ in rules.commands.items():
        words = []
        for name in rules.command_words.get(kind, ()):
            if name == "actor":
                words.append(("actor", "combatant"))
            elif name == "*combatants":
                words.append(("combatants", "combatants"))
            elif name.startswith(("*", "...")):
                words.append((name.lstrip("*."), "words"))
            else:
                words.append((name, "word"))
        out.append((kind, help_, words))
    return out


def _places(table: Table) -> list[str]:
    """Where a combatant may be put on the map (a section's id; none for a grid: any x,y)."""
    state = table.session.state
    board = table.session.rules.board(state) if state.rules is not None else None
    return [s.id for s in board.sections] if board is not None and board.kind == "sections" else []


def _seat_board(table: Table, seat: SeatEntry, error: str = "") -> str:
    """A seat's page: its combatants' cards, their actions when the rules let them act, the
    fight as this seat sees it (`combatlog.replays.views`), and its requests' answers."""
    state = table.session.state
    viewer = Seat(combatants=frozenset(seat.combatants))
    screen = view.screen(state, viewer, table.seq)
    mine = [row for row in screen.rows if row.own]
    seating = state.seating
    return _env.get_template("seat_board.html").render(
        t=table,
        seat=seat,
        token=table.seat_token(seat),
        screen=screen,
        mine=mine,
        turns=[view.with_dice(table.session, turn) for turn in view.turns(state) if turn.id in seat.combatants],
        lines=_lines(table, viewer, last=40),
        answer=table.answers.get(seat.id, ""),
        map_svg=_map(table, Seat(combatants=frozenset(seat.combatants)), movable="own"),
        error=error,
        fair=_fair(table, Seat(combatants=frozenset(seat.combatants))),
        may_contribute=_may_contribute(state, seat),
        waiting=[r for r in table.queue if r.seat == seat.id],
        queued=seating is not None and seating.commands == "queue",
        may_undo=seating is not None and seating.undo and table.latest_by() == f"seat:{seat.id}",
    )


@functools.lru_cache(maxsize=256)
def _qr(url: str) -> str:
    """`url` as a QR code, an inline SVG (segno: pure Python)."""
    import segno

    return str(segno.make(url, error="m").svg_inline(scale=3, title=f"QR code of {url}", svgclass="qr", lineclass=None))


def create_app(tables: Tables, debug: bool = False) -> Litestar:
    """The app serving `tables`."""

    def gm(token: str) -> Table:
        table = tables.by_token(token, "gm")
        if table is None:
            raise NotFoundException("no encounter has this game master's link")
        table.sync()
        return table

    def players(token: str) -> Table:
        table = tables.by_token(token, "players")
        if table is None:
            raise NotFoundException("no encounter has this players' link")
        table.sync()
        return table

    @get("/", sync_to_thread=False)
    def index() -> Response[str]:
        return _html("index.html")

    @get("/home/{token:str}", sync_to_thread=False)
    def home(token: FromPath[str]) -> Response[str]:
        if tables.directory is None or token != tables.home_token:
            raise NotFoundException("no such page")
        return _html("home.html", tables=tables.all(), examples=_examples(), home=token, error="")

    @post("/home/{token:str}/new")
    async def new_encounter(token: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        if tables.directory is None or token != tables.home_token:
            raise NotFoundException("no such page")
        form = await request.form()
        try:
            upload = form.get("file")
            if upload is not None and getattr(upload, "filename", ""):
                raw = await upload.read()
                name = str(upload.filename)
                if len(raw) > MAX_FORM:
                    raise EncounterFileError(f"{name}: {len(raw)} bytes; an encounter file is at most {MAX_FORM}")
                data = _toml(raw, name)
            else:
                example = str(form.get("example", ""))
                path = _examples().get(example)
                if path is None:
                    raise EncounterFileError(f"example {example!r}: no such example; choose one of the list")
                name = path.name
                data = _toml(path.read_bytes(), name)
            commands = encounter_commands(data, name)
            target = tables.new_path(Path(name).stem)
            log = open_log(target)
            try:
                start(commands, log, name)
            except BaseException:
                log.close()
                target.unlink(missing_ok=True)
                raise
            log.close()
            table = tables.add(target)
        except (EncounterFileError, Refused, DiceError, LogError) as exc:
            return _html(
                "home.html", 422, tables=tables.all(), examples=_examples(), home=token, error=plainly(str(exc))
            )
        return Response(
            "", status_code=303, headers={"Location": f"/gm/{table.gm_token}", "HX-Redirect": f"/gm/{table.gm_token}"}
        )

    def seated(token: str) -> tuple[Table, SeatEntry]:
        found = tables.by_seat_token(token)
        if found is None:
            raise NotFoundException("no seat has this link (the game master may have given a new one)")
        return found

    @get("/gm/{token:str}", sync_to_thread=False)
    def gm_page(token: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        table = gm(token)
        return _html("gm.html", t=table, board=_gm_board(table, base=_base(request)))

    @get("/gm/{token:str}/board", sync_to_thread=False)
    def gm_board(token: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        return Response(_gm_board(gm(token), base=_base(request)), media_type="text/html")

    @get("/seat/{token:str}", sync_to_thread=False)
    def seat_page(token: FromPath[str]) -> Response[str]:
        table, seat = seated(token)
        return _html("seat.html", t=table, seat=seat, token=token, board=_seat_board(table, seat))

    @get("/seat/{token:str}/board", sync_to_thread=False)
    def seat_board(token: FromPath[str]) -> Response[str]:
        table, seat = seated(token)
        return Response(_seat_board(table, seat), media_type="text/html")

    @get("/seat/{token:str}/stream")
    async def seat_stream(token: FromPath[str], request: Request[Any, Any, Any]) -> ServerSentEvent:
        table, seat = seated(token)

        def render() -> str:
            now = table.seat_by_token(token)  # a link revoked while the page is open stops here
            if now is None:
                return "<p class='error'>This seat's link was closed by the game master.</p>"
            return _seat_board(table, now)

        return ServerSentEvent(_stream(table, request, render))

    @post("/seat/{token:str}/command", status_code=200)
    async def seat_command_route(token: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        table, seat = seated(token)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items()}
        targets = tuple(str(x) for x in form.getall("targets", []) if str(x))
        try:
            seen = _seen(fields.get("seq"))
            kind = fields.get("kind", "")
            if fields.get("roller") == "engine":  # "the engine rolls": whatever was typed in the dice box stays out
                fields.pop("dice", None)
            if kind == "contribute":  # the seat's own randomness in a fair encounter's dice
                order = Contribute(value=fields.get("value", "").strip())
                table.seat_execute(seat, order, seen)
                return Response(_seat_board(table, seat), media_type="text/html")
            if kind not in ("act", "end_turn", "undo", "move"):
                raise UsageError(f"command {kind[:40]!r}: a seat may act, end its turn or undo its own step")
            rules = table.session.rules
            if kind == "move":  # a token dragged on the seat's map: the system's own move action
                state = table.session.state
                actor = state.combatants.get(fields.get("combatant", ""))
                to = fields.get("to", "")
                try:
                    order = rules.move_to(state, actor, to) if actor is not None else None
                except ValueError:
                    order = None
                if order is None:
                    raise UsageError(f"this map can't move {fields.get('combatant', '')[:40]!r} to {to[:40]!r}")
            else:
                order = await anyio.to_thread.run_sync(forms.command_of, fields, targets, rules)
            table.seat_execute(seat, order, seen)
        except (Refused, DiceError, UsageError, LogError, ValueError, KeyError) as exc:
            text = plainly(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc))
            return Response(_seat_board(table, seat, error=text), media_type="text/html", status_code=422)
        return Response(_seat_board(table, seat), media_type="text/html")

    @post("/gm/{token:str}/command", status_code=200)
    async def command(token: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        table = gm(token)
        form = await request.form()
        fields = {k: str(v) for k, v in form.items()}
        targets = tuple(str(x) for x in form.getall("targets", []) if str(x))
        if fields.get("kind") == "seat":
            fields["combatants"] = ",".join(str(x) for x in form.getall("combatants", []) if str(x))
        try:
            if fields.get("kind") in ("accept", "refuse"):
                table.answer(int(fields.get("request", "0") or 0), fields["kind"] == "accept", fields.get("reason", ""))
                return Response(_gm_board(table, base=_base(request)), media_type="text/html")
            seen = _seen(fields.get("seq"))
            rules = table.session.rules if table.session.state.rules is not None else None
            # reading the form is the caller's work, not the table's: off the event loop, so
            # no page waits on it (each field is capped, and read in linear time)
            state = table.session.state
            order = await anyio.to_thread.run_sync(forms.command_of, fields, targets, rules, state)
            if fields.get("kind") == "amend":
                report = table.amend(
                    int(fields.get("step", "0") or 0),
                    dice=fields.get("dice", "").strip() or None,
                    command=fields.get("line", "").strip() or None,
                    seen=seen,
                )
                text = "\n".join(report.lines())
                return Response(_gm_board(table, message=text, base=_base(request)), media_type="text/html")
            if fields.get("kind") == "rewind":
                table.rewind(int(fields.get("step", "0") or 0), seen)
            elif fields.get("kind") == "redo_to":
                table.redo_to(int(fields.get("step", "0") or 0), seen)
            else:
                table.execute(order, seen)
        except (Refused, DiceError, UsageError, LogError, ValueError, KeyError) as exc:
            text = plainly(str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc))
            return _refused(table, text, fields.get("form", ""), _base(request))
        return Response(_gm_board(table, base=_base(request)), media_type="text/html")

    @get("/gm/{token:str}/at/{seq:int}", sync_to_thread=False)
    def at(token: FromPath[str], seq: FromPath[int]) -> Response[str]:
        table = gm(token)
        if not 0 <= seq <= table.seq:
            return _html("at.html", 422, error=f"seq {seq}: choose 0 to {table.seq}", t=table)
        cursor = table._cursor
        if not isinstance(cursor, Cursor) or cursor.last != table.seq:
            cursor = table._cursor = Cursor(table.log)
        state = cursor.at(seq).state
        before = max(seq - 1, 0)
        changed = (
            views.changed(views.seen(cursor.at(before).state, GM, before), views.seen(state, GM, seq)) if seq else []
        )
        told = [line for s, line in transcript(table.log, stop=seq) if s == seq]
        return _html(
            "at.html", t=table, seq=seq, screen=view.screen(state, GM, seq), changed=changed, told=told, error=""
        )

    @get("/gm/{token:str}/audit")
    async def audit_badge(token: FromPath[str]) -> Response[str]:
        table = gm(token)
        report = await _audit(table)
        head = table.log.head()
        digest = msgspec.json.decode(head[1]).get("digest", "") if head[1] else ""
        return _html("audit.html", t=table, report=report, digest=str(digest))

    @get("/gm/{token:str}/stream")
    async def gm_stream(token: FromPath[str], request: Request[Any, Any, Any]) -> ServerSentEvent:
        table = gm(token)
        base = _base(request)
        return ServerSentEvent(_stream(table, request, lambda: _gm_board(table, base=base)))

    @get("/play/{token:str}", sync_to_thread=False)
    def player_page(token: FromPath[str]) -> Response[str]:
        table = players(token)
        return _html("player.html", t=table, board=_player_board(table))

    @get("/play/{token:str}/board", sync_to_thread=False)
    def player_board(token: FromPath[str]) -> Response[str]:
        return Response(_player_board(players(token)), media_type="text/html")

    @get("/play/{token:str}/stream")
    async def player_stream(token: FromPath[str], request: Request[Any, Any, Any]) -> ServerSentEvent:
        table = players(token)
        return ServerSentEvent(_stream(table, request, lambda: _player_board(table)))

    async def startup() -> None:
        tables.start(asyncio.get_running_loop())

    async def shutdown() -> None:
        tables.close()

    static = resources.files("combatlog.web") / "static"
    files = {item.name: item for item in static.iterdir() if item.is_file()}

    @get("/static/{name:str}", sync_to_thread=False)
    def static_file(name: FromPath[str]) -> Response[bytes]:
        # only the package's own files, by exact name: no path is ever built from a request
        item = files.get(name)
        if item is None:
            raise NotFoundException("no such file")
        kind = _STATIC_TYPES.get(Path(name).suffix, "text/plain; charset=utf-8")
        return Response(item.read_bytes(), media_type=kind, headers={"Cache-Control": "public, max-age=3600"})

    async def same_origin(request: Request[Any, Any, Any]) -> None:
        if request.method == "POST" and not security.same_origin(request):
            raise PermissionDeniedException("a post from another site is refused: use this server's own pages")

    return Litestar(
        route_handlers=[
            index,
            home,
            new_encounter,
            gm_page,
            gm_board,
            command,
            at,
            audit_badge,
            gm_stream,
            seat_page,
            seat_board,
            seat_stream,
            seat_command_route,
            player_page,
            player_board,
            player_stream,
            static_file,
        ],
        on_startup=[startup],
        on_shutdown=[shutdown],
        before_request=same_origin,
        middleware=[security.secure_headers],
        exception_handlers={HTTPException: _http_error},
        request_max_body_size=MAX_BODY,
        debug=debug,
    )


_STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}


# the pages load only this server's scripts and styles (htmx's indicator style is off in
# base.html); an inline style attribute draws a health bar's width
def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[str]:
    # an error answered before any route (no such path) passes no middleware: the headers here too
    response = _html("error.html", exc.status_code, message=exc.detail)
    response.headers.update(security.SECURE_HEADERS)
    return response


async def _stream(table: Table, request: Request[Any, Any, Any], render: Any) -> AsyncIterator[ServerSentEventMessage]:
    """A page's live feed: the board as it stands whenever the log (or the queue of the seats'
    requests) moves past what the page has."""
    last = request.headers.get("last-event-id") or request.query_params.get("seen")
    try:
        sent = (int(last), table.revision) if last is not None else (-1, -1)
    except ValueError:
        sent = (-1, -1)
    while True:
        table.sync()
        now = (table.seq, table.revision)
        if now != sent:
            sent = now
            yield ServerSentEventMessage(data=render(), event="step", id=table.seq)
        elif not await table.wait_change(sent, KEEPALIVE):
            yield ServerSentEventMessage(comment="keep-alive", data=None)


async def _audit(table: Table) -> Report:
    if table.where == "memory:":
        return audit(table.log, workers=1)

    def run() -> Report:
        log = open_log(table.where, create=False)
        try:
            return audit(log, workers=1)
        finally:
            log.close()

    return await anyio.to_thread.run_sync(run)


def _seen(raw: Any) -> int | None:
    if raw is None or str(raw) == "":
        return None
    try:
        return int(str(raw))
    except ValueError:
        raise UsageError(f"seq {str(raw)[:20]!r}: the page's seq is a whole number; reload the page") from None


_FORM_ID = re.compile(r"^[a-z][a-z0-9-]{0,40}$")


def _refused(table: Table, text: str, form: str, base: str) -> Response[str]:
    """A refusal: beside the button of the form that sent it (the form keeps what was typed
    in it: only the message is swapped in), or at the top of the board for a form without a
    place of its own."""
    if _FORM_ID.match(form):
        fragment = _env.from_string('<span id="refusal">refused: {{ text }}</span>').render(text=text)
        return Response(
            fragment,
            media_type="text/html",
            status_code=422,
            headers={"HX-Retarget": f"#err-{form}", "HX-Reswap": "innerHTML"},
        )
    return Response(_gm_board(table, error=text, base=base), media_type="text/html", status_code=422)


def _base(request: Request[Any, Any, Any]) -> str:
    """This server as the request reached it (`http://192.168.1.20:8000`): a seat's link and
    its QR code use it, so a phone on the same network opens what the game master's screen shows."""
    return str(request.base_url).rstrip("/")


def _toml(raw: bytes, name: str) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EncounterFileError(f"{name}: not a TOML file ({exc})") from None


def _examples() -> dict[str, Path]:
    """The bundled example encounters, by file name."""
    root = resources.files("combatlog.examples")
    out = {}
    for item in sorted(root.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".toml"):
            out[item.name] = Path(str(item))
    return out
