"""The lobby without a screen: what a player asks to join (JoinPlan), which table that means
(choose_table, choose_watched, open_tables) and whether it can be reached at all (probe).

UI-free on purpose: `ono99 join` and `ono99 watch` (tui/join.py) and their checks before any
screen starts (cli.py) use it; nothing here needs a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text import alike, shorten
from .client import Client, ServerError, host_port, why_not
from .protocol import ProtocolError


@dataclass
class JoinPlan:
    host: str
    port: int
    name: str
    password: str | None = None
    table: int | None = None  # None: the one table waiting for players
    create: dict | None = None  # hosting: {"rules": ..., "seats": N}
    serve: object | None = None  # hosting: a ServerConfig to run in this process
    address_hint: str = ""  # hosting: what the others type to join
    password_flag: str | None = None  # hosting: "--password" or "--password-file FILE" (never the password)
    or_create: bool = False  # no table waiting: make one (and sit at it first)
    token: str | None = None  # come back to the seat this token holds, or sit with it as the seat's token
    comeback: str | None = None  # a seat token kept from an earlier join at this address (said in hello only)
    older: tuple[str, ...] = ()  # older kept tokens, said in hello in turn when comeback gets no seat back
    keep: bool = False  # remember the seat's token in the data folder (`ono99 join`: net/kept_seats.py)
    address: str | None = None  # a gateway's child: the address of the player it plays for (said in hello)
    back_hint: str | None = None  # a gateway's child: how its player comes back to a seat kept over a restart
    redial: bool = True  # a dropped connection dials back by itself (not a gateway's child: its gateway says)
    watch: bool = False  # `ono99 watch`: a spectator at the table (never a seat, never a hand)
    choose_hint: str = "choose one with --table N"  # a gateway's child: how its player names a table
    name_hint: str = "connect with another --name"  # a gateway's child: how its player takes another name
    where: str | None = None  # a gateway's child: the server as its player knows it ("this server")

    def told(self, exc: Exception) -> str:
        return told(exc, self.name_hint)


def told(exc: Exception, name_hint: str) -> str:
    """A refusal in this player's words: over SSH or on a web page there is no --name."""
    said = str(exc)
    if getattr(exc, "code", None) == "name_taken":
        said = said.replace("connect with another --name", name_hint)
    return said


NEW_TABLE = -1  # choose_table's answer when a table is to be made
# a line naming the tables to choose from names this many, each name cut to about this length
# (a server's own names are short; another's may be 2000 characters, in a thousand tables)
TABLES_NAMED, NAMED_LENGTH = 20, 40


async def choose_watched(client: Client, plan: JoinPlan) -> int:
    """The table to watch: the one being played (else the one waiting); ServerError ("choose")
    naming them when there are several, or saying there is none."""
    tables = (await client.request({"type": "tables"}))["tables"]
    # a game people are at, before one everyone left (away: its bots wait for them), before one waiting
    started = [t for t in tables if t["started"] and not t["over"]]
    playing = [t for t in started if _state(t) == "playing"]
    candidates = playing or started or [t for t in tables if not t["over"]]
    if len(candidates) == 1:
        return candidates[0]["id"]
    if not candidates:
        # (a gateway's child says "this server": its table server's loopback port means nothing to its player)
        where = getattr(plan, "where", None) or host_port(plan.host, plan.port)
        raise ServerError("choose", f"no table on {where} to watch")
    listed = "; ".join(f"{t['id']}: {shorten(t['name'], NAMED_LENGTH)} ({_state(t)}, "
                       f"{', '.join(shorten(s['name'], NAMED_LENGTH) for s in t['seats'] if s['name']) or 'nobody seated'})"
                       for t in candidates[:TABLES_NAMED])
    more = f" and {len(candidates) - TABLES_NAMED} more" if len(candidates) > TABLES_NAMED else ""
    raise ServerError("choose", f"several tables to watch ({listed}{more}): {plan.choose_hint}")


def _state(table: dict) -> str:
    """A listed table's state (a server before `state` was sent: from `started`)."""
    state = table.get("state")
    if state in ("waiting", "playing", "away", "over"):
        return state
    return "playing" if table["started"] else "waiting"


def one_table(client: Client) -> bool:
    """Whether the server is a host's, holding one table (its welcome says so)."""
    return bool((client.welcome or {}).get("one_table"))


def host_table_refusal(tables: list, where: str, watcher: str = "ono99 watch") -> str:
    """Why a guest finds no seat at a host's server (ono99 host: one table, and it refuses
    --or-create), from that table's state, and what works instead: a full table waits for its
    start and can be watched; a game under way only takes its own players back; only a game
    that is over makes room for another, which the host starts. ``watcher``: as for
    check_named_table."""
    live = next((t for t in tables if not t["over"]), None)
    watch = f"watch it with {watcher} {where}, or "
    if live is None:
        return (f"the host's table on {where} (ono99 host, which holds one game) has no game waiting for "
                "players: ask the host to start another")
    if live["started"]:
        return (f"the game at the host's table on {where} (ono99 host, which holds one game) has started: only "
                f"its players come back to it; {watch}ask the host to start another once it is over")
    taken = len(live["seats"])
    return (f"the host's table on {where} (ono99 host, which holds one game) is full: its {taken} seats are "
            f"taken and its game has not started; {watch}ask the host to free a seat")


def waiting(tables: list) -> list:
    """Of a `tables` listing, the tables waiting for players: not started, a seat free."""
    return [t for t in tables if not t["started"] and any(s["player"] is None for s in t["seats"])]


async def table_instead(client: Client, plan: JoinPlan) -> int | None:
    """Where a join whose lobby table closed while it was away (a table nobody else sat at closes
    when its one player drops; a restart keeps none still waiting) sits instead, as the same join
    run again would: with --or-create the first table waiting, else a new one (NEW_TABLE); without,
    the one table waiting, if there is exactly one. None: nowhere (it named its --table)."""
    if plan.table is not None:
        return None
    open_ = [t["id"] for t in waiting((await client.request({"type": "tables"}))["tables"])]
    if plan.or_create:  # (two who waited together come back together: the first back makes it)
        return open_[0] if open_ else NEW_TABLE
    return open_[0] if len(open_) == 1 else None


async def open_tables(client: Client) -> list:
    """The ids of the tables waiting for players."""
    return [t["id"] for t in waiting((await client.request({"type": "tables"}))["tables"])]


async def choose_table(client: Client, plan: JoinPlan) -> int:
    """The one table waiting for players; ServerError (code "choose") when there is none or several."""
    tables = (await client.request({"type": "tables"}))["tables"]
    open_ = waiting(tables)
    if len(open_) == 1:
        return open_[0]["id"]
    if plan.or_create:  # (serve-ssh) never ask: the first table waiting, else a new one
        return open_[0]["id"] if open_ else NEW_TABLE
    if not open_:
        if one_table(client):
            raise ServerError("choose", host_table_refusal(tables, host_port(plan.host, plan.port)))
        how = "make one with --or-create, watch a game with ono99 watch, or ask the host to start one"
        raise ServerError("choose", f"no table on {host_port(plan.host, plan.port)} is waiting for players: {how}")
    free = [sum(s["player"] is None for s in t["seats"]) for t in open_]
    listed = "; ".join(f"{t['id']}: {shorten(t['name'], NAMED_LENGTH)} ({n} seat{'' if n == 1 else 's'} free)"
                       for t, n in zip(open_[:TABLES_NAMED], free))
    more = f" and {len(open_) - TABLES_NAMED} more" if len(open_) > TABLES_NAMED else ""
    raise ServerError("choose", f"several tables are waiting ({listed}{more}): choose one with --table N")


async def check_named_table(client: Client, plan: JoinPlan, watcher: str = "ono99 watch") -> None:
    """``--table N`` for a seat: ServerError, in words that say what to do instead, when there is
    no such table or it has no seat to sit at (started, over, full). Checked before any screen:
    sitting is refused there too, but only after the lobby has shown. ``watcher``: the command
    that watches the table in this front end's kind (lines: ``ono99 watch --plain``)."""
    tables = (await client.request({"type": "tables"}))["tables"]
    where = host_port(plan.host, plan.port)
    free = [str(t["id"]) for t in waiting(tables)]
    host = one_table(client)  # (a host's server: its one table's state says what works instead)
    instead = (f"; tables waiting for players: {', '.join(free[:20])}" if free
               else f"; {host_table_refusal(tables, where, watcher)}" if host
               else "; no table is waiting for players: --or-create (without --table) makes one")
    watch = f"; watch it with: {watcher} {where} --table {plan.table}"
    found = next((t for t in tables if t["id"] == plan.table), None)
    if found is not None and host and not free:  # the host's table itself: its state, once
        if found["over"] or found["started"] or not any(s["player"] is None for s in found["seats"]):
            code = "table_full" if not found["started"] and not found["over"] else "started"
            raise ServerError(code, host_table_refusal(tables, where, watcher))
    if found is None:
        raise ServerError("no_table", f"there is no table {plan.table} on {where}{instead}")
    if found["over"]:
        raise ServerError("started", f"the game at table {plan.table} on {where} is over{instead}")
    if found["started"]:
        if any(st["name"] and alike(st["name"]) == alike(plan.name) for st in found["seats"]):
            # (a player on a new terminal, or another data folder: told "only its players may come back")
            raise ServerError("started", f"{plan.name}'s seat at table {plan.table} on {where} is kept for the "
                              "ono99 that took it: come back with the same ono99 join from that machine and "
                              f"user (its data folder holds the seat's token, in seats.json){watch}")
        raise ServerError("started", f"the game at table {plan.table} on {where} has started: only its "
                          f"players may come back to it{watch}")
    if not any(s["player"] is None for s in found["seats"]):
        raise ServerError("table_full", f"table {plan.table} on {where} is full{watch}{instead}")


def host_again(port: int, name: str, password_flag: str | None) -> str:
    """How the host carries on a game it left kept: the same port and --name, and the password
    flag when there was one (named, never the password: a start without one does not resume it)."""
    flag = f", with {password_flag}" if password_flag else ""
    return f"run the same ono99 host (port {port}, --name {name}{flag}) to carry it on"


def kept_for_another(server, plan) -> str | None:
    """Hosting, and not back in a seat: when the server resumed a game this port keeps (a host's
    server makes no other table while it is not over), what to run instead, in words; None when
    there is no such game. The host's seat is found by the tokens kept on this machine: the
    name it was taken under (a host restarted under another --name finds no seat of its own)."""
    from .kept_seats import names_keeping

    table = next((t for t in server.tables.values() if not t.over), None)
    if table is None or not server.config.single_table:
        return None
    port = plan.port
    names = {s.token: s.name for s in table.seats if s.token is not None}
    kept = names_keeping(plan.host, port, names)
    # (the host sat first: its seat is the first of those kept here)
    order = [s.name for s in table.seats]
    kept.sort(key=lambda n: order.index(n) if n in order else len(order))
    if kept:
        return (f"a game kept for --name {kept[0]} is on port {port}: run ono99 host with --name {kept[0]} (and "
                f"--port {port}) to carry it on, or with another --port to start a new table")
    seated = ", ".join(s.name for s in table.seats if s.name)
    return (f"port {port} keeps a game started earlier (table {table.id}: {seated}), and no seat of it is kept on "
            f"this machine for --name {plan.name}: run ono99 host with another --port to start a new table")


def host_leaving(config, keep: bool, started: bool = True) -> tuple[str, bool]:
    """What the host's server tells its players as the host leaves, and whether it keeps the table
    (the host quit, or the terminal closed, with a port to come back to; not when the host
    closed the table on purpose). ``started``: whether its game had started; a table still
    waiting for players is kept by no server (its guests were told "the game is kept" of a game
    that never was, and waited for it). The server still keeps what it kept (True): a game kept
    from before and not resumed now (its save write-protected, say) stays for a later start."""
    if not keep:
        return "the host closed the table; the game ends here", False
    if config.save and config.resume:
        return ("the host left; the game is kept until the host starts ono99 host again" if started else
                "the host left before the game started"), True
    return "the host left", False


def no_table_now(why: str, keep: bool) -> str:
    """A seat dialling back met a server with no such table now (kind "no_table"): what is known,
    and (its token being kept here) that the same ono99 join brings it back if the game does."""
    kept = (" Your seat is still kept on this machine: if its game comes back to that server, the same "
            "ono99 join brings you back to it.") if keep else ""
    return f"the connection to the server ended, and {why}.{kept}"


async def connect_back(plan, timeout: float | None = None) -> Client:
    """Connect and say hello with the plan's token; without one, with each kept token in turn
    (``comeback``, then ``older``) until the server gives a seat back, which becomes
    ``comeback``. When none does, ``comeback`` becomes None and the last connection is returned,
    seated nowhere: the tokens stay kept (net/kept_seats.py says why). For JoinPlan and the
    plain front end's Plan alike."""
    kw = {} if timeout is None else {"timeout": timeout}
    tokens = [plan.token] if plan.token else [t for t in (plan.comeback, *plan.older) if t] or [None]
    for i, token in enumerate(tokens):
        client = await Client.connect(plan.host, plan.port, plan.name, plan.password, token=token,
                                      address=plan.address, **kw)
        if client.welcome.get("resumed") or i == len(tokens) - 1:
            break
        await client.aclose()
    if not plan.token:
        plan.comeback = token if client.welcome.get("resumed") else None
        plan.older = ()
    return client


def cannot_connect(plan, exc: BaseException) -> str:
    """The one line for a dial that failed (both front ends, before and after the screen opens)."""
    return f"cannot connect to {getattr(plan, 'where', None) or host_port(plan.host, plan.port)}: {why_not(exc)}"


def probe(plan: JoinPlan, timeout: float = 10.0) -> None:
    """Before the screen starts: can we connect, say hello and find the table? Raises UserError
    with one clear line if not (the terminal is still a plain terminal then)."""
    import asyncio

    from ..errors import UserError

    async def check():
        if (plan.comeback or plan.older) and not plan.token and not plan.watch:
            # a seat kept here: the screen comes back to it (trying each kept token). Coming back
            # here too, then leaving, told the others "Bob is back", "Bob lost the connection",
            # "Bob is back" at every join: this only checks the server answers (address, password)
            client = await Client.connect(plan.host, plan.port, plan.name, plan.password, address=plan.address,
                                          timeout=timeout)
            await client.aclose()
            return
        client = await connect_back(plan, timeout)
        try:
            if plan.watch:  # (before the screen: a wrong --table is one line on a plain terminal)
                plan.table = plan.table if plan.table is not None else await choose_watched(client, plan)
                await client.request({"type": "watch", "table": plan.table})
            elif plan.table is None and not client.welcome.get("resumed"):
                # only checked: the screen chooses again. Written into plan.table it read as a
                # --table named, and a restart that closed it ended the join instead of waiting
                await choose_table(client, plan)
            elif not client.welcome.get("resumed") and plan.token is None:
                await check_named_table(client, plan)
        finally:
            await client.aclose()

    try:
        asyncio.run(asyncio.wait_for(check(), timeout))
    except ServerError as exc:
        raise UserError(plan.told(exc)) from None
    except (OSError, TimeoutError) as exc:  # (Disconnected is a ConnectionError)
        raise UserError(cannot_connect(plan, exc)) from None
    except ProtocolError as exc:  # (the server sent what this client cannot read: the line says so)
        raise UserError(str(exc)) from None
