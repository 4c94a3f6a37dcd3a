"""The server's move handling, pinned where a planted bug once survived every network test
(issue 25): a retry is acknowledged as a duplicate only when it is the same seat's same card
at the same seq. Another seat resending that seq is refused as stale, and nothing is played."""

import pytest

from ono99_tui.net.client import ServerError

from .netplay import run, serving, table_with, wait_for

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
