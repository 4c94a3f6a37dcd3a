"""Abuse against a live server: random bytes, malformed JSON, unknown types, oversized lines,
random valid-looking messages, out-of-turn, illegal, replayed and stale moves, floods. Each
gets an error to the sender only; the server stays up and a game at another table plays on
without noticing."""

import asyncio
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.net.client import Client, Disconnected
from ono99_tui.net.protocol import CLIENT_MESSAGES, MAX_LINE, VERSION

from .netplay import HOST, connect, play_randomly, run, serving, table_with, wait_for

SHORT = {"scoring": {"tokens": 1, "extra_life": False}}


async def raw(server):
    reader, writer = await asyncio.open_connection(HOST, server.port)
    return Client(reader, writer)


async def pinged(client) -> list[dict]:
    """Everything up to the answer to a fresh ping: proves the connection is still served."""
    client.writer.write(b'\n{"type":"ping","id":"alive"}\n')
    seen = []
    while True:
        msg = await client.recv()
        seen.append(msg)
        if msg.get("re") == "alive":
            return seen


def errors(messages):
    return [m["code"] for m in messages if m["type"] == "error"]


JUNK = [
    b"not json at all",
    b"{\"type\": ",
    b"[1, 2, 3]",
    b"\"hello\"",
    b"{\"no_type\": 1}",
    b"{\"type\": 42}",
    b"{\"type\": \"teleport\"}",
    b"{\"type\": \"ping\", \"id\": {\"x\": 1}}",
    b"{\"type\": \"sit\", \"table\": true}",
    b"{\"type\": \"sit\", \"table\": 1, \"seat\": 99999999999999}",
    b"{\"type\": \"play\", \"card\": \"5\"}",
    b"{\"type\": \"hello\", \"version\": 1, \"name\": \"x\", \"admin\": true}",
    b"[" * 5000 + b"]" * 5000,  # nesting too deep to parse, within the size limit
    b"{\"type\": \"ping\", \"id\": " + b"9" * 5000 + b"}",
    b"\xff\xfe\x00garbage",
    b"{\"type\": \"create\", \"rules\": {\"target\": 1e999}}",
]


def test_junk_gets_one_error_each_to_its_sender_and_the_connection_stays_served():
    async def main():
        async with serving(rate=1e9, burst=10**9) as server:
            before_hello = await raw(server)
            before_hello.writer.write(b'{"type":"tables"}\n')
            assert (await before_hello.recv())["code"] == "hello_first"
            c = await connect(server, "Mallory")
            for line in JUNK:
                c.writer.write(line + b"\n")
            c.writer.write(b"x" * (MAX_LINE + 10) + b"\n")  # oversized, in one piece
            c.writer.write(b"y" * (3 * MAX_LINE))  # oversized, arriving in pieces, ended later
            await asyncio.sleep(0)
            c.writer.write(b"yyy\n")
            seen = await pinged(c)
            codes = errors(seen)
            assert len(codes) == len(JUNK) + 2, codes
            assert codes.count("too_long") == 2 and "internal" not in codes
            assert {"bad_json", "bad_message", "unknown_type"} <= set(codes)
            unknown = next(m for m in seen if m.get("code") == "unknown_type")
            assert "teleport" in unknown["message"] and "ping" in unknown["message"]
    run(main())


def test_a_flood_is_refused_once_and_the_rest_dropped():
    async def main():
        async with serving(rate=0.001, burst=20) as server:  # no refill while the test runs
            c = await connect(server, "Flo")  # the hello is one of the 20
            c.writer.write(b'{"type":"ping"}\n' * 500)
            other = await connect(server, "Calm")
            assert (await other.request({"type": "ping"}))["type"] == "pong"  # nobody else notices
            seen = [await c.recv()]
            while seen[-1]["type"] != "error":
                seen.append(await c.recv())
            assert seen[-1]["code"] == "flood" and "at most" in seen[-1]["message"]
            assert [m["type"] for m in seen[:-1]] == ["pong"] * 19
    run(main())


async def bystanders(server):
    """A game at another table: it must end normally, its players never told of any error."""
    table, clients, seats, _ = await table_with(server, ["Ann", "Bob"], bots=1, rules=SHORT)
    results = await asyncio.gather(*(play_randomly(c, random.Random(i), s)
                                     for i, (c, s) in enumerate(zip(clients, seats))))
    for last, seen in results:
        assert last["view"]["over"] and not errors(seen)
    return table


def test_moves_out_of_turn_illegal_replayed_and_stale_are_refused_to_their_sender_only():
    async def main():
        async with serving() as server:
            calm = asyncio.create_task(bystanders(server))
            table, (a, b), seats, _ = await table_with(server, ["Eve", "Oz"], rules=SHORT)
            state = await wait_for(a, lambda m: m["type"] == "state")
            view = a.view(state)
            mover, idle = (a, b) if view.current == seats[0] else (b, a)
            if mover is b:
                state = await wait_for(b, lambda m: m["type"] == "state")
                view = b.view(state)
            seq = state["seq"]
            idle_state = await wait_for(idle, lambda m: m["type"] == "state")
            idle_hand = idle_state["view"]["hand"]
            refused = []
            for msg in [{"type": "play", "card": idle_hand[0], "seq": seq}]:
                try:
                    await idle.request(msg)
                except Exception as exc:
                    refused.append(exc.code)
            for msg in [{"type": "play", "card": "not-a-card", "seq": seq},
                        {"type": "play", "card": view.legal_plays()[0], "seq": seq + 7},
                        {"type": "play", "card": view.legal_plays()[0], "seq": -1}]:
                try:
                    await mover.request(msg)
                except Exception as exc:
                    refused.append(exc.code)
            assert refused == ["not_your_turn", "illegal", "stale", "stale"]
            played = await mover.request({"type": "play", "card": view.legal_plays()[0], "seq": seq})
            replay = await mover.request({"type": "play", "card": view.legal_plays()[0], "seq": seq})
            assert replay["duplicate"] and replay["seq"] == played["seq"] == seq + 1
            assert len(server.tables[table].session.game.plays) == seq + 1
            await calm
    run(main())


_value = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.integers(), st.text(max_size=30),
                   st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
_field = st.sampled_from(sorted({f for spec in CLIENT_MESSAGES.values() for f in spec} | {"id", "extra"}))
messages = st.builds(lambda kind, extra: {"type": kind, **extra},
                     st.sampled_from([*CLIENT_MESSAGES, "nope"]),
                     st.dictionaries(_field, _value, max_size=4))


@settings(max_examples=5, deadline=None)
@given(st.lists(st.one_of(messages.map(lambda m: json.dumps(m).encode()), st.binary(max_size=200)),
                min_size=20, max_size=80))
def test_random_messages_and_bytes_never_break_the_server_or_another_table(lines):
    async def main():
        async with serving() as server:
            calm = asyncio.create_task(bystanders(server))
            fuzzers = [await connect(server, f"Fuzz{i}") for i in range(2)]
            sneaky = await raw(server)  # never said hello
            for i, line in enumerate(lines):
                for c in (*fuzzers, sneaky):
                    c.writer.write(line.replace(b"\n", b" ") + b"\n")
            for c in (*fuzzers, sneaky):
                try:
                    seen = await pinged(c)
                except Disconnected:
                    continue  # e.g. a random hello with another version: refused and closed
                assert "internal" not in errors(seen)
            await calm
            assert (await (await connect(server, "After")).request({"type": "ping"}))["type"] == "pong"
    run(main())
