"""Privacy over the wire (R3, R4: hands and the draw pile are secret). Every byte the server
sends to every client, over whole games with random house rules, is read back and checked:
no message holds another seat's hand, the pile's order or a card someone else drew, on any
path (states, full resumes, lobby listings, errors, acknowledgements, the closing notice)."""

import asyncio
import json
import os
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.engine.record import Record
from ono99_tui.net.client import Disconnected
from ono99_tui.net.protocol import view_from_dict

from .netplay import connect, run, serving
from .strategies import tables

EXAMPLES = int(os.environ.get("ONO99_NET_EXAMPLES", "10"))  # more: ONO99_NET_EXAMPLES=200
SECRET_KEYS = {"deck", "hands", "order", "draw"}  # engine fields that hold hidden cards


def history(game):
    """Hands and draw pile after every play (index = seq), and every round's dealt hands."""
    fresh = Record.from_game(game).new_game()
    hands, piles = [[list(h) for h in fresh.hands]], [list(fresh.draw)]
    for _, card in game.plays:
        fresh.play(card)
        hands.append([list(h) for h in fresh.hands])
        piles.append(list(fresh.draw))
    dealt = {e["round"]: e["hands"] for e in game.events if e["type"] == "deal"}
    return hands, piles, dealt


def walk(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, path + (i,))


def contains_run(haystack: list, needle: list) -> bool:
    k = len(needle)
    return any(haystack[i:i + k] == needle for i in range(len(haystack) - k + 1))


EXACT = ("hand", "discard", "played_this_round")


def check_stream(data: bytes, seat, game, hands, piles, dealt) -> int:
    """Every message one client received; returns how many were checked."""
    # the top of the draw pile, wherever it told something (cards not all alike)
    windows = {tuple(p[-5:]) for p in piles if len(set(p[-5:])) >= 3}
    windows = [list(w) for w in windows]
    lines = [line for line in data.split(b"\n") if line.strip()]
    rules = None
    for line in lines:
        msg = json.loads(line)
        for path, value in walk(msg):
            if path and isinstance(path[-1], str) and not {"rules", "rules_table"} & set(path):
                assert path[-1] not in SECRET_KEYS, (path, msg["type"])  # (the rules' [deck] is card counts)
            if path and path[-1] == "hand":
                # a hand only ever appears as this seat's own, in its view or its deal event
                assert msg["type"] == "state", msg["type"]
            if isinstance(value, list) and len(value) >= 5 and path[-1] not in EXACT \
                    and all(isinstance(c, str) for c in value):
                for window in windows:  # no run of the hidden pile's order (hand and discard are checked exactly)
                    assert not contains_run(value, window), (path, msg["type"])
        if msg["type"] != "state":
            continue
        view = view_from_dict(msg["view"], rules)
        rules = view.rules  # a full state carries the rules; the states after it leave them out
        assert msg["seat"] == seat
        assert list(view.hand) == (hands[msg["seq"]][seat] if seat is not None else [])
        for event in msg["events"]:
            if event["type"] == "deal":
                mine = seat is not None and seat in event["seats"]
                assert event.get("hand") == (dealt[event["round"]][seat] if mine else None)
            if event["type"] == "draw":
                assert ("card" in event) == (event["seat"] == seat), event
    return len(lines)


async def one_game(rules, n, seed, n_bots):
    async with serving(seed=seed % 1000, turn_timer=0.0) as server:
        rng = random.Random(seed)
        names = [f"P{i}" for i in range(n - n_bots)]
        clients = [await connect(server, name) for name in names]
        table = (await clients[0].request({"type": "create", "seats": n, "rules": rules.to_dict()}))["table"]
        seats = [(await c.request({"type": "sit", "table": table}))["seat"] for c in clients]
        if n_bots:
            await clients[0].request({"type": "bots", "level": "random"})
        watcher = await connect(server, "Watcher")
        await watcher.request({"type": "watch", "table": table})
        await clients[0].request({"type": "start"})

        async def player(client, seat):
            while True:
                try:
                    msg = await client.recv()
                except Disconnected:
                    return
                if msg["type"] != "state":
                    continue
                view = client.view(msg)
                if view.over:
                    return
                roll = rng.random()
                if roll < 0.05:  # the error and lobby paths, mid-game
                    client.send({"type": "play", "card": rng.choice(view.rules.deck), "seq": msg["seq"] + 1})
                    client.send({"type": "tables"})
                    client.send({"type": "bots"})
                if view.my_turn:
                    if roll < 0.1:  # an illegal card, if there is one this seat holds
                        bad = [c for c in view.hand if c not in view.legal_plays()]
                        if bad:
                            client.send({"type": "play", "card": bad[0], "seq": msg["seq"]})
                    client.send({"type": "play", "card": rng.choice(view.legal_plays()), "seq": msg["seq"]})
                elif roll < 0.1 and view.hand:
                    client.send({"type": "play", "card": view.hand[0], "seq": msg["seq"]})  # out of turn

        await asyncio.gather(*(player(c, s) for c, s in zip(clients, seats)))
        game = server.tables[table].session.game
        assert game.over
    # the server is closed: every client has everything it was ever sent
    for c in [*clients, watcher]:
        try:
            while True:
                await c.recv()
        except Disconnected:
            pass
    hands, piles, dealt = history(game)
    checked = 0
    for c, seat in [*zip(clients, seats), (watcher, None)]:
        checked += check_stream(bytes(c.received), seat, game, hands, piles, dealt)
    return checked


@settings(max_examples=EXAMPLES, deadline=None)
@given(tables(), st.integers(0, 2))
def test_no_message_to_any_client_holds_anything_its_seat_may_not_know(table_args, n_bots):
    rules, names, seed, _dealer = table_args
    n = min(len(names), 5)  # seven clients add messages, not paths: keep the run short
    n_bots = min(n_bots, n - 1)
    assert run(one_game(rules, n, seed, n_bots)) > 0
