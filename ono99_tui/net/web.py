"""`ono99 web`: the table screen in a browser tab, with textual-serve.

Like serve-ssh: one process runs the table server on loopback and, in front of it,
textual-serve's web server; each browser tab gets its own `ono99 join` process (in its own
process group, with throwaway config and data folders) that sits at those tables. The page
hands out a one-use ticket for its websocket, so a tab cannot be opened without the page
(and, with a password, without passing the page's password prompt). Each tab keeps a random
id in its sessionStorage, from which its seat token is made: reloading the tab comes back to
the same seat and hand. Closing the tab ends its process group.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

log = logging.getLogger("ono99.web")

# the tab's id (kept across reloads of that tab only) goes on the websocket's address
TAB_ID_JS = """<script>(function () {
  var key = "ono99-tab", id = sessionStorage.getItem(key);
  if (!id || !/^[0-9a-f]{32}$/.test(id)) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), function (b) {
      return (b < 16 ? "0" : "") + b.toString(16); }).join("");
    sessionStorage.setItem(key, id);
  }
  var el = document.getElementById("terminal");
  el.dataset.sessionWebsocketUrl += "/" + id;
})();</script>
"""
TICKET_TTL = 60.0  # seconds a page has to open its websocket
KILL_GRACE = 2.0  # seconds from "quit" to SIGHUP, and from SIGHUP to SIGKILL


@dataclass
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None  # as the browser sees it (behind a proxy); default: the request's own
    password: str | None = None  # the page asks for it (HTTP Basic; the user name becomes your name)
    max_tabs: int = 32
    input_rate: float = 4096.0  # keystroke bytes a second a tab may send, on average...
    input_burst: int = 16384  # ...with bursts up to this many; the rest is dropped
    child_args: tuple[str, ...] = ()  # extra arguments for each `ono99 join` (tests)


def check_name(name: str) -> str | None:
    """The name if a table would take it, else None."""
    from ..engine.game import GameSetupError, check_names

    try:
        check_names([name, name + "'"])
    except GameSetupError:
        return None
    return name


class Tab(AppService):
    """One browser tab: `ono99 join NAME` in its own session and throwaway home."""

    def __init__(self, gate: "WebGate", name: str, token: str | None, **kw):
        super().__init__(gate.command, download_manager=gate.download_manager, **kw)
        self.gate, self.name, self.token = gate, name, token
        self.home = tempfile.mkdtemp(prefix="ono99-web-")
        self._stopped = False

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        env = {k: v for k, v in super()._build_environment(width, height).items()
               if k.startswith(("TEXTUAL", "TERM_PROGRAM")) or k in ("COLUMNS", "ROWS")}
        home = self.home  # nothing from the server's environment but PATH
        env.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), HOME=home, TERM="xterm-256color",
                   LANG="C.UTF-8", ONO99_GLYPHS="unicode", ONO99_CONFIG_DIR=os.path.join(home, "config"),
                   ONO99_DATA_DIR=os.path.join(home, "data"))
        if self.token:
            env["ONO99_SEAT_TOKEN"] = self.token
        return env

    async def _open_app_process(self, width: int = 80, height: int = 24):
        args = [sys.executable, "-m", "ono99_tui", "join", f"127.0.0.1:{self.gate.table_port}",
                "--name", self.name, "--or-create", *self.gate.config.child_args]
        pipe = asyncio.subprocess.PIPE
        self._process = await asyncio.create_subprocess_exec(
            *args, stdin=pipe, stdout=pipe, stderr=pipe, env=self._build_environment(width, height),
            cwd=self.home, start_new_session=True)
        self._stdin = self._process.stdin
        return self._process

    async def run(self) -> None:
        await super().run()
        await self.remote_close()  # the app ended (or never started): the page says "Session ended"

    async def stop(self) -> None:
        """Ask the app to quit; if it has not within the grace, end its process group."""
        if self._stopped:  # (once: the tab's end and the server's may both ask)
            return
        self._stopped = True
        proc, task = self._process, self._task
        if task is not None:
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            if proc is not None and proc.returncode is None:
                await self.send_meta({"type": "quit"})
        if proc is not None:
            for sig in (None, signal.SIGHUP, signal.SIGKILL):
                if sig is not None:
                    kill_group(proc.pid, sig)
                try:
                    await asyncio.wait_for(proc.wait(), KILL_GRACE)
                    break
                except TimeoutError:
                    pass
            kill_group(proc.pid, signal.SIGKILL)  # anything it left in its group
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        shutil.rmtree(self.home, ignore_errors=True)


class WebGate(Server):
    """textual-serve's server, with tickets, a password, names and a cap on tabs."""

    def __init__(self, config: WebConfig, table_port: int):
        super().__init__("ono99 join", host=config.host, port=config.port, title="O'NO 99",
                         public_url=config.public_url)
        self.config, self.table_port = config, table_port
        self.tabs: set[Tab] = set()
        self.guests = 0
        self._tickets: dict[str, tuple[str, float]] = {}
        self._secret = secrets.token_bytes(32)  # seat tokens from tab ids hold for this run only

    async def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws/{ticket}", self.handle_websocket, name="websocket"),
            web.get("/ws/{ticket}/{tab:[0-9a-f]{32}}", self.handle_websocket),
            web.static("/static", self.statics_path, name="static"),
        ])
        return app

    def _user(self, request: web.Request) -> str | None:
        """The Basic-auth user name when the password matches ("" for none), else None."""
        if self.config.password is None:
            return ""
        kind, _, blob = request.headers.get("Authorization", "").partition(" ")
        try:
            user, _, given = base64.b64decode(blob, validate=True).decode("utf-8").partition(":")
        except ValueError:
            return None
        ok = kind.lower() == "basic" and hmac.compare_digest(given.encode(), self.config.password.encode())
        return user.strip() if ok else None

    async def handle_index(self, request: web.Request) -> web.Response:
        user = self._user(request)
        if user is None:
            raise web.HTTPUnauthorized(text="ono99: this table needs its password",
                                       headers={"WWW-Authenticate": 'Basic realm="ono99", charset="UTF-8"'})
        if len(self.tabs) >= self.config.max_tabs:
            raise web.HTTPServiceUnavailable(text="ono99: server full, try again later")
        wanted = request.query.get("name", "").strip() or user
        if wanted:
            name = check_name(wanted)
            if name is None:
                raise web.HTTPBadRequest(text=f"ono99: a name must be 1 to 23 printable characters, not {wanted!r}")
        else:
            self.guests += 1
            name = f"Guest {self.guests}"
        now = time.monotonic()
        for key in [k for k, (_, until) in self._tickets.items() if until < now]:
            del self._tickets[key]
        while len(self._tickets) >= 1000:  # pages loaded and never played: the oldest go
            del self._tickets[next(iter(self._tickets))]
        ticket = secrets.token_urlsafe(18)
        self._tickets[ticket] = (name, now + TICKET_TTL)
        base = self.config.public_url or f"{request.scheme}://{request.host}"
        ws = base + str(request.app.router["websocket"].url_for(ticket=ticket))
        ws = ("wss:" if ws.startswith("https:") else "ws:") + ws.split(":", 1)[1]
        context = {"font_size": max(8, min(to_int(request.query.get("fontsize", "16"), 16), 48)),
                   "app_websocket_url": ws, "config": {"static": {"url": base + "/static/"}},
                   "application": {"name": "O'NO 99"}}
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.text = response.text.replace("</body>", TAB_ID_JS + "</body>", 1)
        response.headers.update({"Cache-Control": "no-store", "X-Frame-Options": "DENY"})
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        name, until = self._tickets.pop(request.match_info["ticket"], ("", 0.0))
        if until < time.monotonic():
            raise web.HTTPForbidden(text="ono99: open the game's page to play")
        if len(self.tabs) >= self.config.max_tabs:
            raise web.HTTPServiceUnavailable(text="ono99: server full, try again later")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=64 * 1024)
        width = max(20, min(to_int(request.query.get("width", "80"), 80), 500))
        height = max(10, min(to_int(request.query.get("height", "24"), 24), 200))
        await websocket.prepare(request)
        tab_id = request.match_info.get("tab")
        token = None
        if tab_id:
            mac = hmac.new(self._secret, f"web\0{tab_id}".encode(), hashlib.sha256).digest()
            token = base64.urlsafe_b64encode(mac).decode().rstrip("=")
        tab = Tab(self, name, token, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                  close=websocket.close)
        self.tabs.add(tab)
        try:
            await tab.start(width, height)
            await self._process_messages(websocket, tab)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a tab's trouble is that tab's alone
            log.warning("ono99 web: a tab ended: %s", exc)
        finally:
            self.tabs.discard(tab)
            await tab.stop()  # the tab was closed (or its connection lost): its process goes
            await websocket.close()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, tab: Tab) -> None:
        cfg = self.config
        tokens, last = float(cfg.input_burst), time.monotonic()
        async for message in websocket:
            if message.type != web.WSMsgType.TEXT:
                continue
            try:
                envelope = message.json()
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None  # (["focus"] has no data)
            if kind == "stdin" and isinstance(data, str):
                now = time.monotonic()
                tokens = min(cfg.input_burst, tokens + (now - last) * cfg.input_rate)
                last = now
                data = data[:int(tokens)]  # typing faster than any person: the rest is dropped
                tokens -= len(data)
                if data:
                    await tab.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await tab.set_terminal_size(max(20, min(to_int(str(data.get("width")), 80), 500)),
                                            max(10, min(to_int(str(data.get("height")), 24), 200)))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await tab.blur()
            elif kind == "focus":
                await tab.focus()

    async def close(self) -> None:
        await asyncio.gather(*(tab.stop() for tab in list(self.tabs)), return_exceptions=True)


def kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def run(config: WebConfig, server_config, ready=None) -> None:
    """The table server on loopback and the web server in front of it, until SIGTERM/SIGINT."""
    from .server import Server as TableServer
    from .server import stop_on_signals

    server = TableServer(server_config)
    gate = WebGate(config, await server.start())
    runner = web.AppRunner(await gate._make_app(), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, config.host, config.port)
        await site.start()
        stop = stop_on_signals()  # before it is said to be ready: a SIGTERM then stops it cleanly
        if ready is not None:
            ready(runner.addresses[0][1])
        await stop.wait()
    finally:
        await gate.close()
        await runner.cleanup()
        await server.close()
