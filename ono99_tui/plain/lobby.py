"""Waiting at a network table in lines: who sits where, and b (bots), s (start) or q (leave)."""

from __future__ import annotations

from . import words as W
from .console import Console, EndOfInput
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


LOBBY_PROMPT = "Type b to fill the empty seats with bots, s to start once every seat is taken, or q to leave."


class Lobby:
    def __init__(self, con: Console, inbox: Inbox, net: Network, hint: str):
        self.con, self.inbox, self.net, self.hint = con, inbox, net, hint

    def wait(self):
        """Until the game starts: the RemoteTable. Leave, EndOfInput or Lost on the way out."""
        waiting = None  # "table" after b, "start" after s: lines typed ahead wait for the answer
        shown = None
        while True:
            while self.inbox.other:
                kind, *rest = self.inbox.other.popleft()
                if kind == "started":
                    return rest[0]
                if kind == "lost":
                    raise Lost(*rest[:2])
                if kind == "table":
                    msg = rest[0]
                    lines = lobby_lines(msg["table"], msg.get("seat"), self.hint)
                    if lines != shown:
                        shown = lines
                        for line in lines:
                            self.con.say(line)
                        self.con.say(LOBBY_PROMPT)
                    if waiting == "table":
                        waiting = None
                elif kind == "error":
                    self.con.say(W.cap(rest[0].get("message", "refused")) + ".")
                    waiting = None
                elif kind == "notice":
                    self.con.say(rest[0].get("message", ""))
            if waiting is None and self.inbox.typed:
                line = self.inbox.typed.popleft()
                if line is None:
                    raise EndOfInput
                key = line.lower()
                if key == "q":
                    raise Leave
                if key == "b":
                    self.net.send({"type": "bots"})
                    waiting = "table"
                elif key == "s":
                    self.net.send({"type": "start"})
                    waiting = "start"
                elif key:
                    self.con.say("The game has not started: type b, s or q.")
                continue
            self.inbox.pump()


