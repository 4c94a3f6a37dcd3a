"""The server's move handling, pinned where a planted bug once survived every network test
(issue 25): a retry is acknowledged as a duplicate only when it is the same seat's same card
at the same seq. Another seat resending that seq is refused as stale, and nothing is played."""

import asyncio
import random

import pytest

from ono99_tui.net.client import ServerError

from .netplay import play_randomly, run, serving, table_with, wait_for

SHORT = {"scoring": {"tokens": 1, "extra_life": False}}


def test_only_the_seat_that_made_a_play_gets_its_retry_acknowledged():
    async def main():
        async with serving() as server:
            table, clients, seats, _ = await table_with(server, ["Ann", "Bob"], rules=SHORT)
            states = [await wait_for(c, lambda m: m["type"] == "state") for c in clients]
            views = [c.view(s) for c, s in zip(clients, states)]
            k = next(i for i, v in enumerate(views) if v.my_turn)
            mover, other = clients[k], clients[1 - k]
            seq = states[k]["seq"]
            card = views[k].legal_plays()[0]
            session = server.tables[table].session
            assert (await mover.request({"type": "play", "card": card, "seq": seq}))["seq"] == seq + 1
            assert session.game.plays[seq] == (seats[k], card)

            # the other seat sends the very same play (its seq and card): not its play, refused
            with pytest.raises(ServerError) as refused:
                await other.request({"type": "play", "card": card, "seq": seq})
            assert refused.value.code == "stale"
            assert len(session.game.plays) == seq + 1

            # the seat that made it: a retry, acknowledged, played once
            again = await mover.request({"type": "play", "card": card, "seq": seq})
            assert again["duplicate"] and again["seq"] == seq + 1
            assert len(session.game.plays) == seq + 1
    run(main())


async def refusal(client, message) -> ServerError:
    with pytest.raises(ServerError) as refused:
        await client.request(message)
    return refused.value


def test_each_refused_play_says_which_refusal_and_why():
    """docs/protocol.md: a refused play comes back with a code a client can act on and a message
    a player can read -- not started, stale, not your turn, illegal, and the game over."""
    async def main():
        async with serving() as server:
            table, clients, seats, _ = await table_with(server, ["Ann", "Bob"], rules=SHORT, start=False)
            early = await refusal(clients[0], {"type": "play", "card": "5", "seq": 0})
            assert (early.code, str(early)) == ("not_started", "the game has not started")
            await clients[0].request({"type": "start"})
            states = [await wait_for(c, lambda m: m["type"] == "state") for c in clients]
            views = [c.view(s) for c, s in zip(clients, states)]
            k = next(i for i, v in enumerate(views) if v.my_turn)
            mover, other, seq = clients[k], clients[1 - k], states[k]["seq"]
            names = ("Ann", "Bob")

            stale = await refusal(mover, {"type": "play", "card": views[k].legal_plays()[0], "seq": seq + 5})
            assert (stale.code, str(stale)) == ("stale", f"that play was for move {seq + 6}, but the table is "
                                                         f"at move {seq + 1}")
            turn = await refusal(other, {"type": "play", "card": views[1 - k].hand[0], "seq": seq})
            assert (turn.code, str(turn)) == ("not_your_turn", f"it is {names[k]}'s turn, not {names[1 - k]}'s")
            not_held = next(c for c in ("2", "3", "4", "5", "6", "7", "8", "9", "hold", "reverse")
                            if c not in views[k].hand)
            illegal = await refusal(mover, {"type": "play", "card": not_held, "seq": seq})
            reason = server.tables[table].session.game.why_not(not_held)
            assert (illegal.code, str(illegal)) == ("illegal", f"{names[k]} cannot play {not_held}: {reason}")
            assert len(server.tables[table].session.game.plays) == seq  # none of them was played

            ok = await mover.request({"type": "play", "card": views[k].legal_plays()[0], "seq": seq})
            assert ok["type"] == "ok" and ok["seq"] == seq + 1 and "duplicate" not in ok
            again = await mover.request({"type": "play", "card": views[k].legal_plays()[0], "seq": seq})
            assert again["type"] == "ok" and again["duplicate"] is True

            await asyncio.gather(*(play_randomly(c, random.Random(i), s)
                                   for i, (c, s) in enumerate(zip(clients, seats))))
            game = server.tables[table].session.game
            assert game.over
            over = await refusal(clients[0], {"type": "play", "card": "5", "seq": len(game.plays)})
            assert (over.code, str(over)) == ("refused", "the game is over")
    run(main())


def test_a_bots_play_decided_before_the_table_moved_on_is_dropped():
    """The server's table loop submits a bot's (or a timed-out player's) play with the move it was
    decided at: if the table moved on meanwhile (an undo, the player came back and played), the
    play is dropped, never made at the new move."""
    async def main():
        async with serving() as server:
            table, clients, seats, _ = await table_with(server, ["Ann", "Bob"], rules=SHORT)
            states = [await wait_for(c, lambda m: m["type"] == "state") for c in clients]
            k = next(i for i, c in enumerate(clients) if c.view(states[i]).my_turn)
            session = server.tables[table].session
            seq = session.seq
            card = clients[k].view(states[k]).legal_plays()[0]
            await clients[k].request({"type": "play", "card": card, "seq": seq})
            now = session.game.current
            decided_before = session.game.hands[now][0]  # a card the player to move holds
            server._submit_quietly(session, now, decided_before, seq)  # decided at the old move
            assert session.seq == seq + 1 and session.game.current == now
            server._submit_quietly(session, now, session.game.legal_plays()[0], seq + 1)  # (the control)
            assert session.seq == seq + 2
    run(main())
