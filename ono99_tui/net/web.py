"""`ono99 web`: the table screen in a browser tab, with textual-serve.

Like serve-ssh: one process runs the table server on loopback (with a secret only the
tabs' children know) and, in front of it, textual-serve's web server; each browser tab gets
its own `ono99 join` process (net/child.py: its own process group, throwaway config and data
folders) that sits at those tables. The page hands out a one-use ticket for its websocket, so
a tab cannot be opened without the page (and, with a password, without passing the page's
password prompt). Every request must name this server in its Host (and a browser's Origin, if
sent, must be this server's): a page elsewhere cannot reach it through DNS rebinding. Each tab
keeps a random id in its sessionStorage, from which its seat token is made (with a secret
kept in the data folder): reloading the tab comes back to the same seat and hand, also after
a restart. Closing the tab ends its process group. Connections are counted per address from the
accept, must send their request's headers in time and take what they are sent in time (Doors,
Door): idle sockets, and clients that stop reading, cannot take the process's open files.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import html
import hmac
import ipaddress
import json
import logging
import re
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int
from yarl import URL

from ..text import visible
from .child import (CHOOSE_ENV, NAME_ENV, InnerTable, InputBucket, Resizes, Sandbox, check_name, duration, end_group,
                    join_argv, seat_key, start, watch_argv)
from .client import host_problem
from .guesses import Guesses
from .server import _address
from .zygote import Zygote, ZygoteSpec

log = logging.getLogger("ono99.web")

# the tab's id (kept across reloads of that tab only) goes on the websocket's address
TAB_ID_JS = """<script>(function () {
  var key = "ono99-tab", id = sessionStorage.getItem(key), settled = false;
  var el = document.getElementById("terminal"), base = el.dataset.sessionWebsocketUrl;
  function newId() {
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), function (b) {
      return (b < 16 ? "0" : "") + b.toString(16); }).join("");
    sessionStorage.setItem(key, id);
    el.dataset.sessionWebsocketUrl = base + "/" + id;
  }
  if (!id || !/^[0-9a-f]{32}$/.test(id)) {
    newId();
    settled = true;
  } else {
    el.dataset.sessionWebsocketUrl = base + "/" + id;
  }
  // A browser's "Duplicate tab" copies sessionStorage, id and all: the copy would take the first
  // tab's seat (and the first tab's reload take it back). A page that found an id asks the other
  // pages of this site whether one of them holds it, before it connects (textual.js connects on
  // load): if one answers, this is a copy, and it takes an id (a seat) of its own. Nobody answers
  // a reload (its page is gone). Two pages asking at once: the one with the larger number yields.
  var channel = window.BroadcastChannel ? new BroadcastChannel("ono99-tab") : null;
  var mine = Math.random(), connect = window.onload, loaded = null;
  function go() {
    if (settled) return;
    settled = true;
    if (loaded) connect.call(window, loaded);
  }
  if (channel) {
    channel.onmessage = function (e) {
      var m = e.data || {};
      if (m.id !== id) return;
      if (settled && typeof m.ask === "number") channel.postMessage({id: id, held: true});
      else if (!settled && (m.held || (typeof m.ask === "number" && m.ask < mine))) { newId(); go(); }
    };
  }
  if (!settled && channel && typeof connect === "function") {
    window.onload = function (e) { loaded = e; if (settled) connect.call(window, e); };
    channel.postMessage({id: id, ask: mine});
    setTimeout(go, 300);
  } else {
    settled = true;
  }
  // A tab comes back by itself when its connection is lost or the server restarts (close code
  // other than 1000, which is a game that ended here): it waits for the page to answer again,
  // 0.5 s doubling to 10 s, for 15 minutes, then reloads, and its seat id brings it back to its seat.
  var Native = window.WebSocket;
  // A tab refused (a name taken, too many tabs from one address...) or ended by the game is told
  // why in one line before its websocket closes: the page shows it where it said "Session ended."
  function Comeback(url, protocols) {
    var ws = protocols === undefined ? new Native(url) : new Native(url, protocols), why = "";
    ws.addEventListener("message", function (e) {
      if (typeof e.data !== "string" || e.data.indexOf('["ono99_ended"') !== 0) return;
      try { why = String(JSON.parse(e.data)[1] || ""); } catch (err) { why = ""; }
    });
    ws.addEventListener("close", function (e) {
      if (e.code !== 1000) comeBack(e.code === 1012 ? "The server is restarting." : "The connection was lost.");
      else if (why) document.querySelector(".closed-dialog .message").textContent = "Session ended: " + why;
    });
    return ws;
  }
  Comeback.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Comeback[k] = Native[k]; });
  window.WebSocket = Comeback;
  function comeBack(why) {
    var msg = document.querySelector(".closed-dialog .message"), delay = 500, since = Date.now();
    function retry() { setTimeout(attempt, delay); delay = Math.min(delay * 2, 10000); }
    function attempt() {
      if (Date.now() - since > 15 * 60 * 1000) {
        msg.textContent = why + " Gave up reconnecting: press Restart to try again.";
        return;
      }
      msg.textContent = why + " Reconnecting...";
      fetch(location.href, {method: "HEAD", cache: "no-store", credentials: "same-origin"}).then(
        function (r) { if (r.ok) location.reload(); else retry(); }, retry);
    }
    msg.textContent = why + " Reconnecting...";
    retry();
  }
})();</script>
"""
# The page's font is served here (textual-serve ships it in its static files), not from Google's
# font service its template names: a tab makes no request to a third party. And the closed dialog
# grows with a reason that wraps to a few lines (its box is 640x240 otherwise).
PAGE_CSS = """<style>
  @font-face { font-family: "Roboto Mono"; font-weight: 100 700; font-display: swap;
               src: url("STATIC/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }
  @font-face { font-family: "Roboto Mono"; font-style: italic; font-weight: 100 700; font-display: swap;
               src: url("STATIC/fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }
  .closed-dialog .intro { height: auto; min-height: 240px; max-width: calc(100vw - 64px); padding: 16px;
                          box-sizing: border-box; }
  .closed-dialog .message { overflow-wrap: anywhere; }
</style>
"""
THIRD_PARTY_FONT = re.compile(r"<link\b[^>]*\bhref=\"https://fonts\.(googleapis|gstatic)\.com/[^>]*>\s*")
RESTARTING = 1012  # a tab's websocket closed with this: the server is restarting (the page comes back)
TICKET_TTL = 60.0  # seconds a page has to open its websocket
KILL_GRACE = 2.0  # seconds from "quit" to SIGHUP, and from SIGHUP to SIGKILL
ERRORS_KEPT = 8192  # bytes of a tab's stderr kept (its last line is why it ended)
WHY_SHOWN = 400  # characters of that line a page shows
FILES_PER_TAB = 5  # a tab's process: its three pipes and pidfd here, its connection to the table server


@dataclass
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None  # as the browser sees it (behind a proxy); default: the request's own
    seat_key: Path | None = None  # the secret tab ids become seat tokens with (kept: seats outlive a restart)
    password: str | None = None  # the page asks for it (HTTP Basic; the user name becomes your name)
    max_tabs: int = 128  # tabs (child processes) at once: forked from the zygote, ~16 MiB each (docs/deploy.md)
    # HTTP connections, counted from the TCP accept (an open tab's websocket is one): past a cap a
    # connection is answered 503 and closed at once, so idle sockets cannot take the open files
    max_connections: int = 256  # in all (twice the tabs, as serve-ssh; fitted to ulimit -n at start)
    per_address: int = 16  # from one address (8 tabs, the table server's --per-address, and a browser's 6)
    header_timeout: float = 10.0  # a connection must send a request's headers this soon after its accept
    # or its last answer, else it is closed (slowloris; idle keep-alive); a tab's websocket is never cut
    write_timeout: float = 30.0  # what is sent to a connection must be taken (acknowledged, its window
    # open) within this, else it is dropped: a client that stops reading holds no slot and no buffers.
    # A slow reader is never cut by it: each byte it takes starts the time again
    idle_timeout: float = 30 * 60.0  # a tab with no key pressed this long is ended (as serve-ssh's sessions):
    # a page left open, or a script holding tabs open, keeps no process (nor a seat) for ever
    input_rate: float = 4096.0  # keystroke bytes a second a tab may send, on average...
    input_burst: int = 16384  # ...with bursts up to this many; the rest is dropped
    child_args: tuple[str, ...] = ()  # extra arguments for each `ono99 join` (tests)
    zygote: ZygoteSpec | None = None  # fork each tab's process from a warm one (net/zygote.py; cli.py names it)


WATCH_TABLE = re.compile(r"|[1-9][0-9]{0,5}")  # /?watch (the table being played) or /?watch=N


class Tab(AppService):
    """One browser tab: `ono99 join NAME` (net/child.py) in its own session and throwaway home."""

    def __init__(self, gate: "WebGate", name: str, token: str | None, address: str | None,
                 watch: str | None = None, **kw):
        super().__init__(gate.command, download_manager=gate.download_manager, **kw)
        self.gate, self.name, self.token, self.address = gate, name, token, address
        self.watch = watch  # "/?watch" ("") or "/?watch=N": a spectator's screen (`ono99 watch`), never a seat
        self.box = Sandbox("web")
        self._stopped = False
        self._closing: asyncio.TimerHandle | None = None  # the app said "exit": close the tab if it never ends

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        # textual-serve's own variables (its driver, the size), nothing else from the server's environment
        served = {k: v for k, v in super()._build_environment(width, height).items()
                  if k.startswith(("TEXTUAL", "TERM_PROGRAM")) or k in ("COLUMNS", "ROWS")}
        return self.box.env(self.gate.table, term="xterm-256color", token=self.token, address=self.address,
                            comeback="reload the page to come back to it" if self.gate.kept else None,
                            ONO99_GLYPHS="unicode", **served,
                            **({CHOOSE_ENV: "open the page as /?watch=N to choose one"} if self.watch is not None
                               else {NAME_ENV: "open the page as /?name=OTHER to take another name"}))

    def argv(self) -> list[str]:
        """`ono99`'s arguments for this tab's process: join (a seat) or watch (a spectator)."""
        if self.watch is not None:
            return watch_argv(self.gate.table, self.name, int(self.watch) if self.watch else None)
        return join_argv(self.gate.table, self.name, self.gate.config.child_args)

    async def _open_app_process(self, width: int = 80, height: int = 24):
        pipe = asyncio.subprocess.PIPE
        # (forked from the zygote, the child reads Textual's constants again: TEXTUAL_DRIVER makes it
        # a web driver's app, as a fresh process would be)
        self._process = await start(self.gate.zygote, self.argv(),
                                    self._build_environment(width, height), self.box.home, pipes=True,
                                    stdin=pipe, stdout=pipe, stderr=pipe)
        self._stdin = self._process.stdin
        return self._process

    async def run(self) -> None:
        """textual-serve's AppService.run (the app's packets to the tab), keeping the end of the
        app's stderr: when it ends with a refusal or a failure ("ono99: someone called 'Dup'
        already sits at this table; ..."), the tab is told that line before it closes, and the
        page shows it where it said only "Session ended." (TAB_ID_JS)."""
        process = self._process
        errors = bytearray()

        async def read_errors() -> None:
            while chunk := await process.stderr.read(4096):
                errors.extend(chunk)
                del errors[:-ERRORS_KEPT]

        reader = asyncio.create_task(read_errors())
        try:
            for _ in range(10):  # textual's prelude: the app started (else it wrote why on stderr and ended)
                line = await process.stdout.readline()
                if not line or line == b"__GANGLION__\n":
                    break
            while True:
                kind = await process.stdout.readexactly(1)
                size = int.from_bytes(await process.stdout.readexactly(4), "big")
                payload = await process.stdout.readexactly(size)
                if kind == b"D":
                    await self.on_data(payload)
                elif kind == b"M":
                    await self.on_meta(payload)
                elif kind == b"P":
                    await self.on_packed(payload)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            pass
        except asyncio.CancelledError:  # the tab closed first (stop): nobody to tell
            reader.cancel()
            raise
        if self._closing is not None:
            self._closing.cancel()  # (it ended in time: closed here, with why)
        try:  # (its stdout closed as it ended: the rest of its stderr follows)
            await asyncio.wait_for(reader, KILL_GRACE)
        except TimeoutError:
            pass
        text = errors.decode("utf-8", "replace").strip()
        why = ended_why(text)
        if text:
            if why is not None:
                log.info("ono99 web: a tab from %s ended: %s", self.address or "?", why)
            else:
                log.warning("ono99 web: a tab's process said on stderr:\n%s", text)
        try:
            if why:
                await self.remote_write_str(json.dumps(["ono99_ended", why]))
            await self.remote_close()  # the app ended (or never started): the page says "Session ended"
        except (ConnectionError, RuntimeError):  # (the tab had gone already)
            pass

    async def on_meta(self, data: bytes) -> None:
        # the app says it is ending: the tab closes once its process has (run(): with why it
        # ended, written after this), or KILL_GRACE later if it never does
        meta = json.loads(data)
        if isinstance(meta, dict) and meta.get("type") == "exit":
            if self._closing is None:
                self._closing = asyncio.get_running_loop().call_later(
                    KILL_GRACE, lambda: asyncio.ensure_future(self.remote_close()))
            return
        await super().on_meta(data)

    async def stop(self) -> None:
        """Ask the app to quit; if it has not within the grace, end its process group."""
        if self._stopped:  # (once: the tab's end and the server's may both ask)
            return
        self._stopped = True
        if self._closing is not None:
            self._closing.cancel()
        proc, task = self._process, self._task
        if task is not None:
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            if proc is not None and proc.returncode is None:
                await self.send_meta({"type": "quit"})
        if proc is not None:
            try:
                await asyncio.wait_for(proc.wait(), KILL_GRACE)
            except TimeoutError:
                pass
            await end_group(proc, KILL_GRACE)  # (and anything it left in its group)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if proc is not None and hasattr(proc, "close"):
            proc.close()  # (a forked child: the gate's ends of its pipes)
        self.box.remove()


class WebGate(Server):
    """textual-serve's server, with tickets, a password, names and a cap on tabs."""

    def __init__(self, config: WebConfig, table: InnerTable, kept: bool = True):
        super().__init__("ono99 join", host=config.host, port=config.port, title="O'NO 99",
                         public_url=config.public_url)
        self.config, self.table = config, table
        self.kept = kept  # the table server saves and resumes its games: a restart keeps the seats
        self.tabs: set[Tab] = set()
        self.guests = 0
        self.guesses = Guesses()
        self._tickets: dict[str, tuple[str, str | None, float]] = {}  # name, watch, good until
        self._secret = seat_key(config.seat_key)  # without a kept key: seat tokens hold for this run only
        self.names = served_names(config.host, config.public_url)
        self.zygote = Zygote(config.zygote) if config.zygote is not None else None
        self.stopping = False  # the server is stopping: tabs close with RESTARTING (their pages come back)

    async def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024, middlewares=[self._check_host])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws/{ticket}", self.handle_websocket, name="websocket"),
            web.get("/ws/{ticket}/{tab:[0-9a-f]{32}}", self.handle_websocket),
            web.static("/static", self.statics_path, name="static"),
        ])
        return app

    def seat_token(self, tab_id: str) -> str:
        """The seat token of a tab's id: only this server (its kept seat key) makes it."""
        mac = hmac.new(self._secret, f"web\0{tab_id}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    @web.middleware
    async def _check_host(self, request: web.Request, handler):
        """Only requests that name this server (Host), from its own pages (Origin, when a browser
        sends one): another site's page, its name pointed at this address (DNS rebinding), is refused."""
        if isinstance(request.protocol, Door):
            request.protocol.heard()  # (its headers came in time: from now on aiohttp's keep-alive timeout)
        if not self.names.allows(host_name(request.host)):
            raise web.HTTPMisdirectedRequest(
                text=f"ono99: this server does not answer to the name {shown(request.host)}; start it with "
                     "--public-url URL to be reached by another name")
        origin = request.headers.get("Origin")
        if origin is not None and not self.names.allows(origin_name(origin)):
            raise web.HTTPForbidden(text=f"ono99: a page from {shown(origin)} cannot use this server")
        return await handler(request)

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
        # wrong passwords, per address, as the table server counts them (behind a proxy every
        # player has the proxy's address: a guesser there holds up everyone for the minute)
        address = request.remote or "?"
        wait = self.guesses.wait(address) if self.config.password is not None else 0
        if wait:
            raise web.HTTPTooManyRequests(text=f"ono99: too many wrong passwords from {address}: "
                                               f"try again in {wait} s", headers={"Retry-After": str(wait)})
        user = self._user(request)
        if user is None:
            if request.headers.get("Authorization"):
                self.guesses.wrong(address)
            raise web.HTTPUnauthorized(text="ono99: this table needs its password",
                                       headers={"WWW-Authenticate": 'Basic realm="ono99", charset="UTF-8"'})
        if len(self.tabs) >= self.config.max_tabs:
            raise web.HTTPServiceUnavailable(text="ono99: server full, try again later")
        watch = request.query.get("watch")
        if watch is not None and not WATCH_TABLE.fullmatch(watch):
            raise web.HTTPBadRequest(text=f"ono99: watch=N takes a table's number, not {watch[:20]!r}")
        wanted = request.query.get("name", "").strip() or user
        if wanted:
            name = check_name(wanted)
            if name is None:
                from ..engine.game import NAME_RULE

                raise web.HTTPBadRequest(text=f"ono99: a name must be {NAME_RULE}, not {wanted!r}")
        else:
            self.guests += 1
            name = f"Guest {self.guests}"
        now = time.monotonic()
        for key in [k for k, (_, _, until) in self._tickets.items() if until < now]:
            del self._tickets[key]
        while len(self._tickets) >= 1000:  # pages loaded and never played: the oldest go
            del self._tickets[next(iter(self._tickets))]
        ticket = secrets.token_urlsafe(18)
        self._tickets[ticket] = (name, watch, now + TICKET_TTL)
        base = self.config.public_url or f"{request.scheme}://{request.host}"
        ws = base + str(request.app.router["websocket"].url_for(ticket=ticket))
        ws = ("wss:" if ws.startswith("https:") else "ws:") + ws.split(":", 1)[1]
        context = {"font_size": max(8, min(to_int(request.query.get("fontsize", "16"), 16), 48)),
                   "app_websocket_url": ws, "config": {"static": {"url": base + "/static/"}},
                   "application": {"name": "O'NO 99"}}
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        page = THIRD_PARTY_FONT.sub("", response.text)
        # the browser's tab (and a bookmark) names the game and who plays in it; the name is text
        title = f"<title>O'NO 99: {html.escape(name)}{' watching' if watch is not None else ''}</title>\n"
        response.text = page.replace("</head>", title + PAGE_CSS.replace("STATIC/", base + "/static/") + "</head>",
                                     1).replace("</body>", TAB_ID_JS + "</body>", 1)
        response.headers.update({"Cache-Control": "no-store", "X-Frame-Options": "DENY"})
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        name, watch, until = self._tickets.pop(request.match_info["ticket"], ("", None, 0.0))
        if until < time.monotonic():
            raise web.HTTPForbidden(text="ono99: open the game's page to play")
        if len(self.tabs) >= self.config.max_tabs:
            raise web.HTTPServiceUnavailable(text="ono99: server full, try again later")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=64 * 1024)
        width = max(20, min(to_int(request.query.get("width", "80"), 80), 500))
        height = max(10, min(to_int(request.query.get("height", "24"), 24), 200))
        await websocket.prepare(request)
        tab_id = request.match_info.get("tab")
        token = self.seat_token(tab_id) if tab_id else None
        tab = Tab(self, name, token, request.remote, watch, write_bytes=websocket.send_bytes,
                  write_str=websocket.send_str, close=lambda: self._close_tab(websocket))
        self.tabs.add(tab)
        try:
            await tab.start(width, height)
            await self._process_messages(websocket, tab)
        except asyncio.CancelledError:
            pass
        except ConnectionResetError:  # (aiohttp's "Cannot write to closing transport": the tab went
            pass                      # while it was being answered, a reload or a reset; a leave, as a close is)
        except Exception as exc:  # a tab's trouble is that tab's alone
            if not tab._stopped:  # (stopped by the server stopping as it started: its folder went under it)
                log.warning("ono99 web: a tab ended: %s", exc)
        finally:
            self.tabs.discard(tab)
            await tab.stop()  # the tab was closed (or its connection lost): its process goes
            await self._close_tab(websocket)
        return websocket

    async def _close_tab(self, websocket: web.WebSocketResponse) -> None:
        """1000: the game ended in this tab ("Session ended" stays); RESTARTING while the server
        stops, so the page waits for it and comes back to its seat (TAB_ID_JS)."""
        await websocket.close(code=RESTARTING if self.stopping else 1000)

    async def _process_messages(self, websocket: web.WebSocketResponse, tab: Tab) -> None:
        bucket = InputBucket(self.config.input_rate, self.config.input_burst)
        loop = asyncio.get_running_loop()
        idle_until = loop.time() + self.config.idle_timeout  # (a key starts it again; pings and resizes do not)
        resizes = Resizes(tab.set_terminal_size)  # (a window being dragged: where it stops, a few times a second)
        try:
            while True:
                try:
                    message = await websocket.receive(timeout=max(0.001, idle_until - loop.time()))
                except TimeoutError:  # no key for so long: the tab is ended, and told why
                    why = f"no key for {duration(self.config.idle_timeout)}: the session has ended"
                    log.info("ono99 web: a tab from %s ended: %s", tab.address or "?", why)
                    try:
                        await websocket.send_str(json.dumps(["ono99_ended", why]))
                    except (ConnectionError, RuntimeError):
                        pass
                    return
                if message.type in (web.WSMsgType.CLOSE, web.WSMsgType.CLOSING, web.WSMsgType.CLOSED,
                                    web.WSMsgType.ERROR):
                    return
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
                    idle_until = loop.time() + self.config.idle_timeout
                    data = bucket.take(data)  # typing faster than any person: the rest is dropped
                    if data:
                        await tab.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    resizes.change(max(20, min(to_int(str(data.get("width")), 80), 500)),
                                   max(10, min(to_int(str(data.get("height")), 24), 200)))
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await tab.blur()
                elif kind == "focus":
                    await tab.focus()
        finally:
            resizes.close()

    async def close(self) -> None:
        await asyncio.gather(*(tab.stop() for tab in list(self.tabs)), return_exceptions=True)
        if self.zygote is not None:
            await self.zygote.close()


class OnceAMinute:
    """What comes in floods (refusals, drops) is said one line a minute at most, with how many
    were not said since: ``due()`` is None while quiet, else the words to add to the line."""

    def __init__(self, what: str = ""):
        self.what, self._said, self._unsaid = what, -1e9, 0

    def due(self) -> str | None:
        now = time.monotonic()
        if now - self._said < 60:
            self._unsaid += 1
            return None
        more = f" ({self._unsaid} more{self.what} since the last said)" if self._unsaid else ""
        self._said, self._unsaid = now, 0
        return more


class QuietBadRequests(logging.LoggerAdapter):
    """aiohttp's server log (each request's handler logs through it), but a malformed request
    (a URL or a header over 8 KiB, anything that is not HTTP: anyone's to send, answered 400)
    is one short line a minute at most (-v), never a traceback each; anything else, a fault of
    this server's, is logged as aiohttp would, traceback and all."""

    def __init__(self, logger: logging.Logger | None = None):
        super().__init__(logger or logging.getLogger("aiohttp.server"), {})
        self._quiet = OnceAMinute()

    def exception(self, msg, *args, exc_info=True, **kwargs) -> None:
        if isinstance(exc_info, HttpProcessingError):
            self.refused(args[0] if args else None, exc_info)
            return
        super().exception(msg, *args, exc_info=exc_info, **kwargs)

    def refused(self, remote: str | None, exc: HttpProcessingError) -> None:
        more = self._quiet.due()
        if more is None:
            return
        what = (f"a request line or header over {exc.args[1]} bytes" if isinstance(exc, LineTooLong)
                else f"a malformed request ({type(exc).__name__})")
        log.info("ono99 web: answered 400 to %s from %s%s; said once a minute while they come",
                 what, remote or "?", more)


class Doors:
    """The web gateway's connections, counted from the TCP accept, before a byte is read (as the
    table server and serve-ssh count theirs): at most ``per_address`` open at once from one address
    and ``max_connections`` in all. A play-tester's 1,100 half-sent requests from one machine took
    every open file of the process, and nobody else was served for minutes."""

    def __init__(self, config: WebConfig):
        self.config = config
        self.open = 0
        self.addresses: dict[str, int] = {}  # connections open per address (no entry at 0)
        self._refusals, self._drops = OnceAMinute(" refused"), OnceAMinute()

    def admit(self, address: str) -> str | None:
        """Count a connection from ``address``; else why it is refused."""
        n = self.addresses.get(address, 0)
        if self.open >= self.config.max_connections:
            why = "server full: too many connections, try again later"
        elif n >= self.config.per_address:
            why = f"too many connections from {address}: at most {self.config.per_address} at once"
        else:
            self.addresses[address] = n + 1
            self.open += 1
            return None
        self._say(why)
        return why

    def leave(self, address: str) -> None:
        self.open -= 1
        n = self.addresses.pop(address) - 1
        if n:
            self.addresses[address] = n

    def _say(self, why: str) -> None:
        more = self._refusals.due()  # (refusals come in floods: one line a minute, with -v)
        if more is None:
            return
        log.info("ono99 web: refused a connection: %s%s; said once a minute while they come", why, more)

    def dropped(self, address: str) -> None:
        """A connection from ``address`` was dropped: it took nothing of what it was sent for the write
        timeout (one line a minute at most, with -v, as refusals are)."""
        more = self._drops.due()
        if more is None:
            return
        log.info("ono99 web: dropped a connection from %s: it took nothing sent to it for %g s%s; said once a "
                 "minute while they come", address, self.config.write_timeout, more)


class Door(web.RequestHandler):
    """aiohttp's handler of one HTTP connection, counted by Doors from its accept, and closed if its
    first request's headers are not in within the header timeout (later ones: aiohttp's keep-alive
    timeout, the same). A request that reaches the app (an open tab's websocket) is never cut by
    that; but what is sent to it must be taken within the write timeout (the system's
    TCP_USER_TIMEOUT: data unacknowledged, or waiting on a window the client keeps shut), else the
    connection is dropped. A client that requested textual.js a dozen times in one go and read
    nothing held its connection, its slot of --web-per-address and megabytes of the server's
    buffers for good (aiohttp sends files with sendfile: no timeout of its own ever ran)."""

    def __init__(self, doors: Doors, manager: web.Server, **kw):
        super().__init__(manager, **kw)
        self.doors = doors
        self.counted: str | None = None
        self._late: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = _address(peer[0]) if peer else "?"  # (an IPv6 address counts by its /64)
        why = self.doors.admit(address)
        super().connection_made(transport)
        if why is not None:
            body = f"ono99: {why}\n".encode()
            transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                            b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            # the answer, then our end (FIN) before the close: the client reads why and an end of
            # file, even if the request it sent, unread, makes the close a reset
            transport.write_eof()
            self.force_close()
            return
        self.counted = address
        self._late = asyncio.get_running_loop().call_later(self.doors.config.header_timeout, self.force_close)
        write_timeout(transport, self.doors.config.write_timeout)

    def heard(self) -> None:
        if self._late is not None:
            self._late.cancel()
            self._late = None

    def connection_lost(self, exc: BaseException | None) -> None:
        self.heard()
        if self.counted is not None:
            if isinstance(exc, TimeoutError):  # (ETIMEDOUT: the write timeout, or a peer gone from the network)
                self.doors.dropped(self.counted)
            self.doors.leave(self.counted)
            self.counted = None
        super().connection_lost(exc)


def write_timeout(transport: asyncio.BaseTransport, seconds: float) -> None:
    """Drop the connection when what is sent to it is not taken for ``seconds``: the system's
    TCP_USER_TIMEOUT, which counts data sent and not acknowledged, and data held back by a window
    the client keeps shut (it reads nothing), and covers the sendfile aiohttp serves files with
    and the bytes left to send after a close. A slow reader opens its window as it reads, and
    each time the time starts again. Where the system has no such option, there is none."""
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    sock = transport.get_extra_info("socket")
    if option is None or sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, option, max(1, round(seconds * 1000)))
    except OSError:
        pass


def fit_open_files(config: WebConfig, tables: int, tables_wanted: int | None = None) -> tuple[WebConfig, str | None]:
    """The gateway's caps made to fit the open-file limit (server.fit_gateway_files): the
    connections and the tabs' files beside the tables'. Past the limit the process could accept
    nobody, not even the tabs' own children at the table server."""
    from .server import fit_gateway_files

    connections, tabs, warning = fit_gateway_files(config.max_connections, config.max_tabs, FILES_PER_TAB, tables,
                                                   tables_wanted, "web", "tabs")
    return dataclasses.replace(config, max_tabs=tabs, max_connections=connections), warning


def ended_why(stderr: str) -> str | None:
    """Why a tab's `ono99` ended, for its page: the one-line refusal or failure it wrote last on
    its stderr ("ono99: WHY"), control characters shown as escapes; None for anything else (a
    traceback is the server's to log, not a stranger's to read)."""
    lines = stderr.splitlines()
    at = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].startswith("ono99: ")), None)
    if at is None or any(line.startswith(("Traceback", "  File ")) for line in lines[at:]):
        return None
    why = " ".join(line.strip() for line in lines[at:] if line.strip())[len("ono99: "):]
    why = visible(why)
    return why if len(why) <= WHY_SHOWN else why[:WHY_SHOWN - 3] + "..."


class ServedNames:
    """The host names a request may give for this server."""

    def __init__(self, names: set[str], any_address: bool):
        self.names, self.any_address = names, any_address

    def allows(self, host: str | None) -> bool:
        if not host:
            return False
        if host in self.names:
            return True
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return False  # a name this server was not given: maybe another site's, pointed here
        return self.any_address  # (an address is not a name DNS rebinding can change)


LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}
HOST_PORT = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+|[0-9a-f:]+)(?::[0-9]{1,5})?")


def served_names(bind: str, public_url: str | None) -> ServedNames:
    """Loopback: its own names only. Every network (0.0.0.0, ::): any address, this machine's names,
    and --public-url's. One address: it, this machine's names and --public-url's."""
    names = set(LOOPBACK_NAMES)
    if public_url:
        names.add(host_name(URL(public_url).raw_host or ""))
    wildcard = bind in ("", "0.0.0.0", "::")
    try:
        loopback = bind == "localhost" or ipaddress.ip_address(bind).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        names.add(host_name(bind))
        for name in (socket.gethostname(), socket.getfqdn()):
            name = name.lower().rstrip(".")
            names.update((name, name.split(".")[0] + ".local"))
    names.discard("")
    return ServedNames(names, wildcard)


PUBLIC_URL_RULE = "http:// or https://, a host, and at most a port and a path (no user, query or fragment)"


def public_url(text: str) -> str:
    """--public-url as the pages build their websocket address on it (no final /), or ValueError
    saying what is allowed: `http://` alone was taken, and every tab's websocket went to `ws:/ws/...`."""
    try:
        url = URL(text.strip())
    except ValueError:
        url = None
    if (url is None or url.scheme not in ("http", "https") or not url.raw_host or url.user is not None
            or url.password is not None or url.raw_query_string or url.raw_fragment or "?" in text or "#" in text
            or any(c.isspace() or not c.isprintable() for c in text.strip()) or not HOST_PORT.fullmatch(url.raw_authority)
            # (http://host:0/ and http://a..b/ were taken: an address no browser can open)
            or url.explicit_port == 0 or host_problem(url.raw_host) is not None):
        raise ValueError(f"--public-url must be {PUBLIC_URL_RULE}, not {text!r}")
    return str(url).rstrip("/")


def host_name(value: str | None) -> str:
    """The name in a Host header (or a bind address): lower case, no port, no brackets, no final dot."""
    found = HOST_PORT.fullmatch((value or "").strip().lower())
    return found.group(1).strip("[]").rstrip(".") if found else ""  # (anything else names nothing)


def origin_name(origin: str) -> str | None:
    try:
        url = URL(origin)
    except ValueError:
        return None
    if url.scheme not in ("http", "https"):
        return None  # ("null": a sandboxed frame or a file)
    return host_name(url.raw_host)


def shown(text: str) -> str:
    return repr(text[:80])


async def run(config: WebConfig, server_config, ready=None) -> None:
    """The table server on loopback and the web server in front of it, until SIGTERM/SIGINT."""
    from .server import Server as TableServer
    from .server import stop_on_signals
    from .ssh import closing_message

    # only this process's children know the password: no other local user reaches the table server
    server_config.host, server_config.port = "127.0.0.1", 0
    server_config.password = InnerTable.new_secret()
    server_config.gateway = True  # its players are counted by the address each child names
    server = TableServer(server_config)
    kept = bool(server_config.save and server_config.resume)
    table = InnerTable(await server.start(), server_config.password)
    # (server_config keeps the caps asked for; the server's own are fitted to the files it has)
    config, warning = fit_open_files(config, server.config.max_tables, server_config.max_tables)
    if warning:
        log.warning("%s", warning)
    gate = WebGate(config, table, kept)
    if gate.zygote is not None:
        gate.zygote.start()  # (until it is ready, tabs get a fresh process)
    # aiohttp's default keep-alive is an hour: an idle connection goes after the header timeout
    handler = dict(access_log=None, logger=QuietBadRequests(), keepalive_timeout=config.header_timeout)
    runner = web.AppRunner(await gate._make_app(), handle_signals=False, **handler)
    await runner.setup()
    doors, listener = Doors(config), None
    try:
        # (not web.TCPSite: each connection's handler is a Door, counted from its accept)
        listener = await asyncio.get_running_loop().create_server(
            lambda: Door(doors, runner.server, loop=asyncio.get_running_loop(), **handler), config.host, config.port)
        stop = stop_on_signals()  # before it is said to be ready: a SIGTERM then stops it cleanly
        if ready is not None:
            ready(listener.sockets[0].getsockname()[1])
        await stop.wait()
    finally:
        # the table server first: each tab's `ono99 join` is told why, and saves are closed
        gate.stopping = True
        await server.close(closing_message(kept))
        await gate.close()
        if listener is not None:
            listener.close()
        await runner.cleanup()
