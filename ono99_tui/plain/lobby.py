"""Waiting at a network table in lines: who sits where, and b (bots), s (start), w (watch
another table instead: w lists them, w N watches table N; not on a host's server, which holds
one table) or q (leave)."""

from __future__ import annotations

import re

from . import words as W
from .console import KEYS_ONLY, Console, EndOfInput, KeysOnly
from .network import Inbox, Lost, Network
from .table import Leave


def lobby_lines(table: dict, seat: int | None, hint: str = "") -> list[str]:
    parts = []
    for i, s in enumerate(table["seats"]):
        if s["player"] is None:
            who = "empty"
        elif s["player"].startswith("bot:"):
            who = f"{s['name']}, {s['player'][4:]} bot"
        else:
            who = f"{s['name']}" + (", you" if i == seat else "") + ("" if s["connected"] else ", away")
        parts.append(f"seat {i + 1}, {who}")
    lines = [f"{table['name']}, rules {table['rules']}: " + "; ".join(parts) + "."]
    if hint:
        lines.append(hint)
    return lines


LOBBY_PROMPT = ("Type b to fill the empty seats with bots, s to start once every seat is taken, "
                "w to watch another table, or q to leave.")
# a host's server (ono99 host) holds one table: there is no other to watch
ONE_TABLE_PROMPT = "Type b to fill the empty seats with bots, s to start once every seat is taken, or q to leave."
WATCH_PROMPT = "You are watching: its plays are said once its game starts. Type q to leave."


def watch_list(tables: list[dict], mine: int | None) -> list[str]:
    """The other tables, one line each, and how to watch one."""
    lines = []
    for t in tables:
        if t["id"] == mine:
            continue
        who = [s["name"] for s in t["seats"] if s["player"] is not None]
        state = "over" if t.get("over") else "being played" if t["started"] else "waiting for players"
        name = t["name"] if t["name"] == f"Table {t['id']}" else f"{t['name']}, table {t['id']}"
        lines.append(f"{name}, rules {t['rules']}, {state}: "
                     + (W.and_list(who) if who else "nobody yet") + ".")
    if not lines:
        return ["No other table on this server to watch."]
    return lines + ["Type w and a table's number to watch its plays; you give up your seat here."]


class Lobby:
    def __init__(self, con: Console, inbox: Inbox, net: Network, hint: str):
        from ..net.lobby import one_table

        self.con, self.inbox, self.net, self.hint = con, inbox, net, hint
        # a host's server holds one table: w (watch another) is neither offered nor taken there
        self.one_table = net.client is not None and one_table(net.client)

    def wait(self, watching: bool = False):
        """Until the game starts: the RemoteTable (its seat None when watching; ``watching``: from
        the start, `ono99 watch --plain`). Leave, EndOfInput or Lost on the way out."""
        waiting = None  # "table" after b, "start" after s, "tables" after w: lines typed ahead wait
        shown = None
        mine = None  # this seat's table
        watch = None  # w N: the table to watch, once the list says it is there
        here = None  # the table this lobby shows
        closed = None  # a notice while watching, held until the list says whether our table is gone
        self.watching = watching
        while True:
            while self.inbox.other:
                kind, *rest = self.inbox.other.popleft()
                if kind == "started":
                    return rest[0]
                if kind == "lost":
                    raise Lost(*rest[:2])
                if kind == "table":
                    msg = rest[0]
                    here = msg["table"]["id"]
                    if msg.get("seat") is not None:
                        mine = here
                    if msg["table"]["started"]:
                        continue  # (back in a seat, or watching, at a game under way: it follows at once)
                    lines = lobby_lines(msg["table"], msg.get("seat"), "" if self.watching else self.hint)
                    if lines != shown:
                        shown = lines
                        for line in lines:
                            self.con.say(line)
                        self.con.say(WATCH_PROMPT if self.watching else ONE_TABLE_PROMPT if self.one_table
                                     else LOBBY_PROMPT)
                    if waiting == "table":
                        waiting = None
                elif kind == "tables":
                    waiting = None
                    tables = rest[0]["tables"]
                    if closed is not None:
                        if not any(t["id"] == here for t in tables):
                            raise Lost(closed or f"table {here} closed", "closed")  # (let go with its table)
                        self.con.say(closed)
                        closed = None
                    elif watch is None:
                        for line in watch_list(tables, mine):
                            self.con.say(line)
                    elif watch == mine or not any(t["id"] == watch for t in tables):
                        self.con.say(f"There is no other table {watch} to watch: type w for the list.")
                    else:
                        self.net.send({"type": "stand"})
                        self.net.send({"type": "watch", "table": watch})
                        self.watching = True
                        self.con.say(f"You give up your seat at table {mine} to watch table {watch}.")
                    watch = None
                elif kind == "error":
                    self.con.say(W.cap(rest[0].get("message", "refused")) + ".")
                    waiting = None
                elif kind == "notice" and self.watching and here is not None:
                    # a watched table that closed before its game ("nobody sits at it"): the server
                    # has let us go, and q would be waited for at a table that is gone; said once
                    # the list says which (the way out says it when it is gone)
                    closed = rest[0].get("message", "")
                    self.net.send({"type": "tables"})
                    waiting = "tables"
                elif kind == "notice":
                    self.con.say(rest[0].get("message", ""))
            if waiting is None and self.inbox.typed:
                line = self.inbox.typed.popleft()
                if line is None:
                    raise EndOfInput
                if isinstance(line, KeysOnly):
                    self.con.say(KEYS_ONLY)
                    continue
                key = line.lower()
                if key == "q":
                    raise Leave
                asked = re.fullmatch(r"w\s*(\d{1,9})?", key)
                if self.watching:
                    if key:
                        self.con.say("You are watching: type q to leave.")
                elif asked and self.one_table:
                    self.con.say("This server (ono99 host) holds one table: there is no other to watch.")
                elif asked:
                    watch = int(asked.group(1)) if asked.group(1) else None
                    self.net.send({"type": "tables"})
                    waiting = "tables"
                elif key == "b":
                    self.net.send({"type": "bots"})
                    waiting = "table"
                elif key == "s":
                    self.net.send({"type": "start"})
                    waiting = "start"
                elif key:
                    self.con.say(f"The game has not started: type {'b, s' if self.one_table else 'b, s, w'} or q.")
                continue
            self.inbox.pump()
