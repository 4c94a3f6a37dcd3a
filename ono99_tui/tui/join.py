"""`ono99 join` and `ono99 host`: the table screen, driven through the protocol.

The app connects (and, hosting, first starts a server in its own event loop), sits at a
table, shows who is there until the game starts, then opens the same GameScreen a local
game uses, given a RemoteTable instead of a TableSession.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..net.client import Client, ServerError, host_port
from ..net.protocol import ProtocolError
from ..net.lobby import (NEW_TABLE, JoinPlan, cannot_connect, choose_table, choose_watched, connect_back,
                         host_again, host_leaving, kept_for_another, no_table_now, open_tables, table_instead)
from ..net.remote import RemoteTable
from ..text import display_width, visible
from .app import Ono99App


class _NoTableYet(Exception):
    """Back in the lobby before anyone made a table to sit at: dial again, a table may open."""


class LobbyChanged(Message, bubble=False):
    """The app to the screen on top: the table in the lobby changed (only the lobby shows it)."""

    def __init__(self, table: dict, seat: int | None, hint: str) -> None:
        super().__init__()
        self.table, self.seat, self.hint = table, seat, hint


class LobbyScreen(Screen):
    """Waiting at a table: who sits where and who is connected, until the game starts."""

    BINDINGS = [Binding("b", "bots", "Fill with bots"), Binding("s", "start", "Start"),
                Binding("escape", "app.quit", "Leave")]

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        yield Static("Connecting...", id="lobby", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        # connect once the lobby is up: the table screen may follow at once (coming back to a seat)
        self.call_after_refresh(self.app.start_connecting)

    def show(self, table: dict, seat: int | None, hint: str) -> None:
        text = Text()
        text.append(f"{visible(table['name'])}  (rules: {visible(table['rules'])})\n\n", style="bold")
        for i, s in enumerate(table["seats"]):
            if s["player"] is None:
                who, state = "(empty)", ""
            elif s["player"].startswith("bot:"):
                who, state = visible(s["name"]), f"bot ({s['player'][4:]})"
            else:
                who, state = visible(s["name"]), "connected" if s["connected"] else "away"
            you = "  <- you" if i == seat else ""
            pad = " " * max(0, 24 - display_width(who))  # by columns: a wide name (emoji, CJK) lines up too
            text.append(f"  {i + 1}. {who}{pad} {state}{you}\n")
        watching = table.get("watching") or []
        if watching:  # names are text (Text.append never reads markup)
            more = (table.get("watchers") or 0) - len(watching)
            text.append(f"\n  Watching: {', '.join(visible(n) for n in watching)}"
                        f"{f' and {more} more' if more > 0 else ''}\n")
        if self.app.plan.watch:
            text.append("\nWatching: the game shows here once it starts. Escape leaves.\n")
        else:
            text.append("\nB fills the empty seats with bots; S starts the game once every seat is taken.\n")
        if hint:
            text.append(hint + "\n")
        self.query_one("#lobby", Static).update(text)

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("bots", "start") and self.app.plan.watch:
            return False  # a spectator only watches
        return True

    def on_lobby_changed(self, message: LobbyChanged) -> None:
        if self.is_mounted:
            self.show(message.table, message.seat, message.hint)

    def on_screen_resume(self) -> None:
        if self.app.remote is not None:  # back from the table (Menu): leaving the table leaves ono99 join
            self.app.exit(return_code=0)

    def action_bots(self) -> None:
        self.app.lobby_request({"type": "bots"})

    def action_start(self) -> None:
        self.app.lobby_request({"type": "start"})


class JoinApp(Ono99App):
    def __init__(self, plan: JoinPlan, **kw):
        super().__init__(**kw)
        self.plan = plan
        self.failure: str | None = None  # why we stopped, for the command line
        self.client: Client | None = None
        self.remote: RemoteTable | None = None
        self.server = None
        self.seat: int | None = None
        self.table_id: int | None = None
        self.token: str | None = None  # the seat's token: a dropped connection dials back to it
        self._table: dict | None = None
        self._my_turn = False  # (turn alerts: the bell rings as the turn comes, not on every update)
        # the host left by the menu (not by quitting, a crash or a closed terminal): the table
        # closes for everyone rather than waiting for the host to come back
        self._closed_for_good = False
        self._leaving = False
        self.farewell: str | None = None  # a line for the terminal once the screen is gone

    def left_on_purpose(self) -> None:
        self._closed_for_good = True
        self._stand_up()

    def _stand_up(self) -> None:
        """A guest leaving on purpose (the menu, or quitting) says so while the connection is open:
        the others hear they left, not that the connection was lost. (A closed terminal or a
        signal says nothing: that is a lost connection.)"""
        if self.server is None and self.remote is not None:
            self.remote.leave()

    def get_default_screen(self) -> Screen:
        return LobbyScreen()

    def start_connecting(self) -> None:
        if self.client is None and self.failure is None:
            self.run_worker(self._connect(), exclusive=True, group="net")

    def fail(self, why: str) -> None:
        self.failure = why
        self.exit(return_code=2)

    async def _connect(self) -> None:
        plan = self.plan
        try:
            if plan.serve is not None:
                from ..net.server import Server

                self.server = Server(plan.serve)
                plan.port = await self.server.start()
                for warning in self.server.start_warnings:  # (a kept game not resumed: say why, on screen)
                    self.notify(visible(warning), severity="warning", timeout=30, markup=False)
                # the hint names the port the server got (with --port 0, the one it was given)
                plan.address_hint = plan.address_hint.replace("{port}", str(plan.port), 1)
            self.client = await connect_back(plan)
            note = self.client.password_note()
            if note:
                self.notify(visible(note), severity="warning", timeout=12, markup=False)
            if plan.watch:
                await self._start_watching()
                return
            if self.client.welcome.get("resumed"):
                self.token = plan.token or plan.comeback
                if plan.serve is not None:  # the host, back in the game it left (not a new table)
                    self.notify("Back in the game you left, kept since. --rules and --seats are for a new "
                                "table: close this one from the menu (Escape) to start one.", timeout=12,
                                markup=False)
                await self._wait_for_start()  # back in our seat: the server sends the table and the state
                return
            if plan.serve is not None:  # a game kept on this port, not the host's under this --name
                kept = kept_for_another(self.server, plan)
                if kept is not None:
                    self.fail(kept)
                    return
            if plan.create is not None:
                plan.table = (await self.client.request({"type": "create", **plan.create}))["table"]
            if plan.table is not None:
                candidates = [plan.table]
            elif plan.or_create:  # every table waiting, in turn (others may fill them first), then a new one
                candidates = [*await open_tables(self.client), NEW_TABLE]
            else:
                candidates = [await choose_table(self.client, plan)]
            for table in candidates:
                if table == NEW_TABLE:
                    table = (await self.client.request({"type": "create"}))["table"]
                sit = {"type": "sit", "table": table}
                if plan.token is not None:
                    sit["token"] = plan.token
                try:
                    reply = await self.client.request(sit)
                    break
                except ServerError as exc:
                    if table == candidates[-1] or exc.code not in ("table_full", "started", "no_table"):
                        raise
        except ServerError as exc:
            self.fail(plan.told(exc))
            return
        except (OSError, TimeoutError) as exc:
            self.fail(cannot_connect(plan, exc))
            return
        except ProtocolError as exc:  # (the server sent what this client cannot read: the line says so)
            self.fail(str(exc))
            return
        self.seat, self.table_id, self.token = reply["seat"], reply["table"], reply["token"]
        if plan.keep:
            from ..net.kept_seats import keep_token

            keep_token(plan.host, plan.port, plan.name, reply["token"])
        await self._wait_for_start()

    def _forget(self) -> None:
        """This seat's token, no longer kept: its game is over or its seat gone for good."""
        if self.plan.keep and self.token is not None:
            from ..net.kept_seats import forget_token

            forget_token(self.plan.host, self.plan.port, self.plan.name, self.token)

    async def _start_watching(self) -> None:
        plan = self.plan
        try:
            table = plan.table if plan.table is not None else await choose_watched(self.client, plan)
            await self.client.request({"type": "watch", "table": table})
        except (ServerError, ProtocolError) as exc:
            self.fail(str(exc))
            return
        self.seat, self.table_id = None, table
        await self._wait_for_start()

    async def _dial(self) -> Client:
        """A new connection back to our seat (its token) or to the table we watch."""
        plan = self.plan
        client = await Client.connect(plan.host, plan.port, plan.name, plan.password,
                                      token=None if plan.watch else self.token, address=plan.address)
        if plan.watch:
            try:
                reply = await client.request({"type": "watch", "table": self.table_id})
            except BaseException:
                client.close()
                raise
            watched = (self.remote.lobby or {}).get("game") if self.remote is not None else None
            if watched is not None and reply.get("game") not in (None, watched):
                # the server restarted without that game: the same table number is another game now
                client.close()
                raise ServerError("gone", f"the game you watched at table {self.table_id} is no longer on "
                                  "the server (it restarted without it)")
        return client

    def _seat_kept(self, why: str, kind: str) -> str:
        """Why the connection ended, and, when the server stopped mid-game, how to come back."""
        if kind == "gone" and self.remote is not None and not self.remote.over and not self.plan.watch:
            self._forget()
            if "no longer has" in why or "kept" in why or "ends here" in why:  # (it says so already)
                return why
            # (ono99 serve --no-save, or the host of ono99 host left)
            return f"{why}. This server keeps no table once it stops, so the game ends here (your seat is not kept)."
        if kind == "no_table" and self.remote is not None and not self.remote.over:
            return no_table_now(why, self.plan.keep)
        if kind in ("closing", "gave_up") and self.remote is not None and not self.remote.over \
                and not self.plan.watch:
            if self.plan.keep:
                return f"{why}. Your seat is kept: run the same ono99 join once the server is back."
            if self.plan.back_hint:  # (serve-ssh, web: the gateway knows how its players come back)
                return f"{why}; your seat is kept: {self.plan.back_hint}"
        return why

    async def _wait_for_start(self) -> None:
        while True:
            try:
                msg = await self.client.recv_or_ping()  # (a server stuck is noticed: Silent)
            except ProtocolError as exc:  # (dialling back would be answered the same)
                self.fail(str(exc))
                return
            except ConnectionError as exc:
                if self.plan.redial and self.plan.serve is None and self.table_id is not None \
                        and await self._rejoin_lobby(str(exc)):
                    continue
                if self.failure is None:
                    self.fail(f"the connection to the server ended: {exc}")
                return
            kind = msg["type"]
            if kind == "table":
                self._table = msg["table"]
                self.seat, self.table_id = msg["seat"], msg["table"]["id"]
                self._show_lobby()
            elif kind == "error":
                self.notify(msg["message"], severity="warning", timeout=8, markup=False)
            elif kind == "notice":
                # a watcher's table closed before its game started ("nobody sits at it"): the server
                # has let it go, and the empty lobby would be shown for good
                if self.plan.watch and not await self._still_listed():
                    self.fail(msg["message"])
                    return
                self.notify(msg["message"], timeout=8, markup=False)
            elif kind == "closing" and self.plan.redial and self.plan.serve is None and self.table_id is not None:
                if await self._rejoin_lobby(msg["message"]):  # (a restart: back once it listens)
                    continue
                return  # (it said why: "shutting down" alone would hide that the table is gone)
            elif kind in ("kicked", "closing"):
                self.fail(msg["message"])
                return
            elif kind == "state":
                try:
                    self._open_table(msg)
                except ProtocolError as exc:  # (a state for another seat than the one taken)
                    self.fail(str(exc))
                return

    async def _still_listed(self) -> bool:
        """Whether the server still lists the table we are at (True when it cannot say: the
        connection's own end is noticed by the next read)."""
        try:
            tables = (await self.client.request({"type": "tables"}))["tables"]
        except (ConnectionError, ServerError, ProtocolError):
            return True
        return any(t["id"] == self.table_id for t in tables)

    async def _rejoin_lobby(self, why: str) -> bool:
        """The connection dropped before the game started (which frees the seat): connect again
        with backoff and sit (or watch) at the same table. False (and self.failure) if that table
        is gone or started without us, or after the long wait."""
        import asyncio

        from ..net.remote import GIVE_UP_AFTER, backoff

        self.client.close()
        loop = asyncio.get_running_loop()
        start = loop.time()
        no_table = False  # back before anyone made a table: waiting for one to open
        for tries, delay in enumerate(backoff(), start=1):
            self._lobby_status(f"The table you waited at was closed while you were away, and no table is waiting "
                               f"for players: waiting for one to open (try {tries})" if no_table else
                               f"Reconnecting, try {tries}... ({why})")
            await asyncio.sleep(delay)
            try:
                client = await asyncio.wait_for(self._dial(), 10)
                if not self.plan.watch and not client.welcome.get("resumed"):
                    try:
                        sit = {"type": "sit", "table": self.table_id}
                        try:
                            reply = await client.request({**sit, "seat": self.seat})
                        except ServerError as exc:
                            instead = await table_instead(client, self.plan) if exc.code == "no_table" else None
                            if instead is not None:
                                if instead == NEW_TABLE:
                                    instead = (await client.request({"type": "create"}))["table"]
                                sit["table"] = self.table_id = instead
                                self.notify(f"The table you waited at was closed while you were away: you sit at "
                                            f"table {instead}.", timeout=10, markup=False)
                            elif exc.code == "no_table" and self.plan.table is None:
                                no_table = True  # (a restart keeps no table still waiting: one may open)
                                raise _NoTableYet from None
                            elif exc.code != "seat_taken":
                                raise
                            reply = await client.request(sit)
                    except BaseException:
                        client.close()
                        raise
                    self.seat, self.token = reply["seat"], reply["token"]
                    if self.plan.keep:
                        from ..net.kept_seats import keep_token

                        keep_token(self.plan.host, self.plan.port, self.plan.name, reply["token"])
            except ServerError as exc:
                if exc.code not in ("server_full", "flood"):
                    self.fail(f"the connection to the server ended ({why}) and the table is no longer "
                              f"there to sit at again: {exc}")
                    return False
            except ProtocolError as exc:  # (dialling again would be answered the same)
                self.fail(str(exc))
                return False
            except (OSError, TimeoutError, _NoTableYet):
                pass
            else:
                self.client = client
                self._lobby_status("")
                return True
            if loop.time() - start >= GIVE_UP_AFTER:
                self.fail(f"the connection to the server ended ({why}); gave up reconnecting after "
                          f"{round((loop.time() - start) / 60)} minutes")
                return False
        return False

    def _lobby_status(self, status: str) -> None:
        self._lobby_line = status
        self._show_lobby()

    _lobby_line = ""  # the lobby's "Reconnecting..." line while the connection is down

    def _show_lobby(self) -> None:
        if self._table is not None:
            hint = "\n".join(line for line in (self._lobby_line, self.plan.address_hint) if line)
            self.screen.post_message(LobbyChanged(self._table, self.seat, hint))

    def lobby_request(self, message: dict) -> None:
        if self.client is not None and self.remote is None:
            self.client.send(message)

    def _open_table(self, state: dict) -> None:
        from .screens.game import GameScreen
        from .setup import TableSetup

        remote = self.remote = RemoteTable(self.client, self.table_id, self.seat, state)
        remote.owner_closes = self.server is not None  # (on_unmount: after the host's server)
        remote.lobby = self._table
        remote.on_lost = self._lost
        if self.plan.redial and self.plan.serve is None and (self.token is not None or self.plan.watch):
            remote.redial = self._dial
        if self.seat is not None:
            remote.subscribe(self._turn_alert, self.seat)
            self._turn_alert(None)  # the game starts (or we are back) on our turn: that too is worth a bell
        setup = TableSetup(remote.seats, remote.view.rules, visible(self._table["rules"]) if self._table else "")
        remote.start()
        screen = GameScreen(setup, table=remote)
        if self.plan.watch:
            screen.pace = "skip"  # a live view: each round's end is in the log, no notice waits for a key
        self.push_screen(screen)

    def leaving_question(self) -> tuple[str, str, str] | None:
        """(title, body, the leave button) to ask before the table screen is left, or None to leave at once: the
        host's leaving closes the server, and with it the game of everyone else at the table; a
        guest's Escape (the footer says "Menu") must not end their own game without a word."""
        remote = self.remote
        if remote is None or remote.over or self._table is None:
            return None
        if self.plan.serve is None:  # a guest: a seat in a game others are playing
            if self.seat is None:
                return None  # watching: nobody waits for a watcher
            return ("Leave the table?", "Your seat is kept: the others go on, and your turns are played for "
                    "you until you join this table again.", "Leave")
        others = [s for i, s in enumerate(self._table["seats"]) if i != self.seat and s["player"] == "human"]
        if not others and not remote.watching:
            return None
        return ("Close the table?", "You are the host: leaving closes this table, and the game ends for "
                "everyone at it.", "Leave and close the table")

    def _turn_alert(self, update) -> None:
        """The bell (and a desktop notification where the terminal shows them) as our turn comes."""
        mine = self.remote is not None and self.remote.current == self.seat and self.remote.status is None
        if mine and not self._my_turn and self.settings.turn_alert:
            from .alerts import turn_alert

            turn_alert(self, "ono99: your turn", f"{self.remote.names[self.seat]}, it is your turn "
                       f"(total {self.remote.view.total}).")
        self._my_turn = mine

    def _lost(self, why: str, kind: str = "") -> None:
        if self.remote is not None and self.remote.over or self._leaving:
            return
        self.fail(self._seat_kept(why, kind))

    has_menu = False  # leaving the table ends the program: the table screen's Escape says Leave

    # nothing a player does here writes a file where this runs (it may be a server: serve-ssh)
    NO_FILES = ("Screenshot", "New game", "Quick game")

    def get_system_commands(self, screen):
        for command in super().get_system_commands(screen):
            if command.title not in self.NO_FILES:
                yield command

    def action_screenshot(self, *args, **kwargs) -> None:
        self.notify("Screenshots are off at a network table.", timeout=4)

    def deliver_screenshot(self, *args, **kwargs) -> None:
        self.action_screenshot()

    def on_game_screen_finished(self, message) -> None:
        message.prevent_default()  # never the local app's "Play again": a table's game is the server's
        self.exit(return_code=0)

    async def action_quit(self) -> None:
        self._stand_up()
        self.exit(return_code=0)

    async def on_unmount(self) -> None:
        self._leaving = True  # (what the connection says from now on is not news to this player)
        if self.remote is not None and self.remote.over or self.server is not None and (
                self._closed_for_good or self.remote is None):  # (a host's table not started: none kept)
            self._forget()  # nothing to come back to
        if self.server is not None:
            # the host's server closes first, telling everyone why: were the host's own connection
            # closed first, the guests would be told the host "lost the connection" and a bot plays
            # for them, which no bot does once the server has stopped
            message, kept = host_leaving(self.server.config, not self._closed_for_good, self.remote is not None)
            await self.server.close(message, kept)
            if kept and self.remote is not None and not self.remote.over and self.seat is not None:
                again = host_again(self.plan.port, self.plan.name, self.plan.password_flag)
                self.farewell = (f"Your game at table {self.table_id} is kept: {again}; your guests come "
                                 "back to their seats by themselves.")
        elif (self.remote is not None and not self.remote.over and self.seat is not None and self.plan.redial
              and not self.plan.watch):  # a guest who quit mid-game: said where the seat is (a gateway says its own)
            self.farewell = (f"You left table {self.table_id} on {host_port(self.plan.host, self.plan.port)}; your seat is "
                             "kept (a bot plays it after the turn timer): the same ono99 join brings you back to it.")
        elif (self.remote is not None and not self.remote.over and self.seat is not None and self.plan.back_hint
              and not self.plan.watch):  # (serve-ssh, web: the session ended on nothing said)
            self.farewell = (f"You left table {self.table_id}; your seat is kept (a bot plays it after the turn "
                             f"timer): {self.plan.back_hint}.")
        if self.remote is not None:
            self.remote.shut()
        elif self.client is not None:
            self.client.close()


def build_app(args, plan: JoinPlan) -> JoinApp:
    """The app for `ono99 join`/`ono99 host`, with the player's settings and --ascii."""
    import os

    from ..errors import UserError
    from ..store.settings import load_settings
    from .glyphs import choose_ascii

    settings, notices = load_settings()
    try:
        ascii = choose_ascii("ascii" if getattr(args, "ascii", False) else None, os.environ, settings.ascii)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return JoinApp(plan, ascii=ascii, settings=settings, notices=notices)
