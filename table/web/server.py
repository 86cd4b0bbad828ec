"""The table page's HTTP server: Starlette on uvicorn, in a thread of its own (in the page's server process,
:mod:`table.web.child`, or for ``cardtable history --web`` in the command's own).

Routes (docs/web.md): ``/`` (the page), ``/assets/NAME`` (its script and style, from the package, by name: no
request names a file), ``GET /api/state``, ``GET /api/frame.jpg``, ``GET /api/stream`` (server-sent events),
``POST /api/input`` (``Authorization: Bearer TOKEN``), ``GET /api/host`` (is this token the host's?),
``GET /api/games`` and ``GET /api/games/ID/replay`` (the journal's games).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from table.web.address import WebAddress, bind
from table.web.errors import BadInput, TableSilent, TooManyViewers, WebError
from table.web.feed import TableFeed, sse
from table.web.inputs import HostCommand, parse_host_command
from table.web.replay import ReplayError, list_games, replay_game
from table.web.security import RateLimiter, bearer, token_matches

ASSET_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}
MAX_INPUT_BYTES = 2048
KEEP_ALIVE_S = 15.0
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
]


def load_assets() -> dict[str, tuple[bytes, str]]:
    """The page's files (name -> (bytes, content type)), read once from the package."""
    out: dict[str, tuple[bytes, str]] = {}
    folder = resources.files("table.web") / "assets"
    for item in folder.iterdir():
        suffix = Path(item.name).suffix
        if item.is_file() and suffix in ASSET_TYPES:
            out[item.name] = (item.read_bytes(), ASSET_TYPES[suffix])
    return out


@dataclass
class WebSettings:
    """``inputs``: hands a host's command to the table (raises :class:`~table.web.errors.WebError` when no game
    is being refereed, :class:`~table.web.errors.TableSilent` when the table does not answer); None: no live
    table. ``fresh_frame``: asks for the camera's latest frame and waits until it is in the feed's frames (or
    there is none newer)."""

    token: str
    players: int = 0
    journal: Path | None = None
    inputs: Callable[[HostCommand], Awaitable[None]] | None = None
    fresh_frame: Callable[[], Awaitable[None]] | None = None
    input_rate: float = 5.0
    input_burst: int = 10


def _error(status: int, text: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers=headers)


class SecurityHeaders:
    """Adds the page's security headers to every response (pure ASGI, so streams are not buffered)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


class StreamEndpoint:
    """``GET /api/stream``: the feed as server-sent events (``hello``, then ``event``, ``state``, ``frame``)."""

    def __init__(self, feed: TableFeed) -> None:
        self.feed = feed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            viewer, hello = self.feed.add_viewer()
        except TooManyViewers as exc:
            await _error(503, str(exc), {"Retry-After": "5"})(scope, receive, send)
            return

        async def listen() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            viewer.close()

        listener = asyncio.create_task(listen())
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream"),
                        (b"cache-control", b"no-store"),
                        (b"x-accel-buffering", b"no"),
                    ],
                }
            )
            await send(
                {"type": "http.response.body", "body": b"retry: 1000\n\n" + sse("hello", hello), "more_body": True}
            )
            while not viewer.closed and not viewer.overflowed:
                try:
                    await asyncio.wait_for(viewer.wake.wait(), KEEP_ALIVE_S)
                except TimeoutError:
                    await send({"type": "http.response.body", "body": b": still here\n\n", "more_body": True})
                    continue
                viewer.wake.clear()
                if viewer.closed or viewer.overflowed:
                    break
                chunk = b"".join(viewer.drain())
                if chunk:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if viewer.overflowed and not viewer.closed:
                # too far behind: the page reconnects and gets the whole state again
                await send({"type": "http.response.body", "body": sse("resync", b"{}"), "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the viewer went away
        finally:
            listener.cancel()
            self.feed.remove_viewer(viewer)


def create_app(feed: TableFeed, settings: WebSettings) -> ASGIApp:
    assets = load_assets()
    input_limit = RateLimiter(settings.input_rate, settings.input_burst)
    replay_limit = RateLimiter(1.0, 5)
    replays: OrderedDict[int, bytes] = OrderedDict()

    def client(request: Request) -> str:
        return request.client.host if request.client else "?"

    def host_check(request: Request) -> JSONResponse | None:
        """None when the request carries the host's token, else the answer (401 without one, 403 wrong)."""
        wait = input_limit.allow(client(request))
        if wait:
            return _error(429, "too many requests; slow down", {"Retry-After": str(max(1, round(wait)))})
        given = bearer(request.headers.get("authorization"))
        if given is None:
            return _error(
                401, "the host's token is needed (Authorization: Bearer TOKEN)", {"WWW-Authenticate": "Bearer"}
            )
        if not token_matches(given, settings.token):
            return _error(403, "that is not the host's token")
        return None

    async def page(request: Request) -> Response:
        body, kind = assets["index.html"]
        return Response(body, media_type=kind, headers={"Cache-Control": "no-store"})

    async def asset(request: Request) -> Response:
        found = assets.get(request.path_params["name"])
        if found is None or found[1].startswith("text/html"):
            return _error(404, "no such asset")
        return Response(found[0], media_type=found[1], headers={"Cache-Control": "no-cache"})

    async def state(request: Request) -> Response:
        return Response(feed.snapshot(), media_type="application/json", headers={"Cache-Control": "no-store"})

    async def frame(request: Request) -> Response:
        seq_text = request.query_params.get("seq")
        seq = int(seq_text) if seq_text and seq_text.isdigit() else None
        encoded = feed.frames.get(seq) if seq is not None else None
        if encoded is None:
            if not feed.frames.has_camera:
                return _error(404, "no camera frame yet")
            if settings.fresh_frame is not None:
                await settings.fresh_frame()
            encoded = feed.frames.latest()
        if encoded is None:
            return _error(404, "no camera frame yet")
        return Response(
            encoded.jpeg,
            media_type="image/jpeg",
            headers={"Cache-Control": "no-store", "X-Frame-Seq": str(encoded.seq)},
        )

    async def host(request: Request) -> Response:
        refused = host_check(request)
        if refused is not None:
            return refused
        return JSONResponse({"host": True, "live": settings.inputs is not None})

    async def post_input(request: Request) -> Response:
        refused = host_check(request)
        if refused is not None:
            return refused
        if settings.inputs is None:
            return _error(409, "no live table: this server shows the journal's games only")
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error(415, "send the input as application/json")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_INPUT_BYTES:
            return _error(413, f"an input is at most {MAX_INPUT_BYTES} bytes")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_INPUT_BYTES:
                return _error(413, f"an input is at most {MAX_INPUT_BYTES} bytes")
        try:
            command = parse_host_command(body, settings.players)
        except BadInput as exc:
            return _error(400, str(exc))
        inp = command.to_input()
        try:
            await settings.inputs(command)
        except TableSilent as exc:
            return _error(503, str(exc), {"Retry-After": "1"})
        except WebError as exc:  # no game is being refereed at this moment
            return _error(409, str(exc))
        return JSONResponse({"accepted": inp.to_json()}, status_code=202)

    async def games(request: Request) -> Response:
        if settings.journal is None or not settings.journal.exists():
            return JSONResponse({"games": []})
        listed = await anyio.to_thread.run_sync(list_games, settings.journal)
        return JSONResponse({"games": listed}, headers={"Cache-Control": "no-store"})

    async def replay(request: Request) -> Response:
        game_id = int(request.path_params["game_id"])
        if game_id in replays:
            return Response(replays[game_id], media_type="application/json")
        wait = replay_limit.allow(client(request))
        if wait:
            return _error(429, "too many replays at once; try again", {"Retry-After": str(max(1, round(wait)))})
        if settings.journal is None or not settings.journal.exists():
            return _error(404, "no journal")
        journal = settings.journal
        try:
            data = await anyio.to_thread.run_sync(lambda: replay_game(journal, game_id))
        except ReplayError as exc:
            return _error(404 if "no game" in str(exc) else 422, str(exc))
        body = json.dumps(data, separators=(",", ":")).encode()
        if data["game"]["status"] != "open":  # a game still being played changes; a finished one does not
            replays[game_id] = body
            while len(replays) > 4:
                replays.popitem(last=False)
        return Response(body, media_type="application/json")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error(500, f"the server could not answer: {type(exc).__name__}")

    app = Starlette(
        routes=[
            Route("/", page, methods=["GET"]),
            Route("/assets/{name}", asset, methods=["GET"]),
            Route("/api/state", state, methods=["GET"]),
            Route("/api/frame.jpg", frame, methods=["GET"]),
            Route("/api/stream", StreamEndpoint(feed), methods=["GET"]),
            Route("/api/host", host, methods=["GET"]),
            Route("/api/input", post_input, methods=["POST"]),
            Route("/api/games", games, methods=["GET"]),
            Route("/api/games/{game_id:int}/replay", replay, methods=["GET"]),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    return SecurityHeaders(app)


class WebServer:
    """The server on ``address`` (or on ``sock``, already listening there), started in its own thread;
    ``stop()`` ends the streams and the server."""

    def __init__(
        self, feed: TableFeed, settings: WebSettings, address: WebAddress, *, sock: socket.socket | None = None
    ) -> None:
        self.feed = feed
        self.settings = settings
        self.socket = sock if sock is not None else bind(address)  # bind raises AddressError before anything starts
        self.address = WebAddress(address.host, int(self.socket.getsockname()[1]))
        config = uvicorn.Config(
            create_app(feed, settings),
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            server_header=False,
            limit_concurrency=feed.max_viewers + 50,
            h11_max_incomplete_event_size=16 * 1024,
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def watch_url(self) -> str:
        return f"http://{self.address.url_host}:{self.address.port}/"

    @property
    def host_url(self) -> str:
        return f"{self.watch_url}?token={self.settings.token}"

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=10)
        return self

    def _run(self) -> None:
        async def serve() -> None:
            self.feed.bind(asyncio.get_running_loop())
            self._ready.set()
            await self.server.serve(sockets=[self.socket])

        try:
            asyncio.run(serve())
        finally:
            self._ready.set()

    def stop(self) -> None:
        self.feed.end_streams()
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.socket.close()

    @property
    def stopped(self) -> bool:
        return self._thread is not None and not self._thread.is_alive()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
