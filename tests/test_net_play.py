"""The table server end to end on loopback: protocol clients and server-side bots play
whole games, records replay to the same result, seats survive a dropped connection."""

import asyncio
import random

import pytest

from ono99_tui.engine.record import Record
from ono99_tui.net.client import Client, Disconnected, ServerError
from ono99_tui.net.protocol import VERSION

from .netplay import HOST, connect, play_randomly, run, serving, table_with, until, wait_for

SHORT = {"scoring": {"tokens": 1, "extra_life": False}}


def replays_to_same_result(server, table_id):
    session = server.tables[table_id].session
    game = session.game
    record = Record.loads(Record.from_game(game, session.seats).to_toml())
    again = record.replay()
    assert again.plays == game.plays and again.winner == game.winner and again.standings() == game.standings()
    return game


def test_clients_and_bots_play_whole_games_and_every_record_replays_to_the_same_result():
    """Several tables at once (R1-R9 applied by the server's sessions): three clients and a bot,
    two clients and two bots, a heads-up; each client sees the game end with the real winner."""
    async def main():
        async with serving() as server:
            layouts = [(["Ann", "Bob", "Cy"], 1, "medium"), (["Dee", "Eve"], 2, "easy"), (["Fay", "Gus"], 0, "random")]
            games = []
            for names, bots, level in layouts:
                table, clients, seats, _ = await table_with(server, names, bots, rules=SHORT, level=level)
                games.append((table, clients, seats))
            plays = [play_randomly(c, random.Random(i), seat)
                     for table, clients, seats in games for i, (c, seat) in enumerate(zip(clients, seats))]
            finals = await asyncio.gather(*plays)
            k = 0
            for table, clients, seats in games:
                game = replays_to_same_result(server, table)
                assert game.over
                for _ in clients:
                    last, _seen = finals[k]
                    k += 1
                    assert last["view"]["winner"] == game.winner and last["seq"] == len(game.plays)
    run(main())


def test_a_retried_play_is_acknowledged_once_and_a_stale_one_refused():
    async def main():
        async with serving() as server:
            table, (a, b), seats, _ = await table_with(server, ["Ann", "Bob"], rules=SHORT)
            state = await wait_for(a, lambda m: m["type"] == "state")
            view = a.view(state)
            mover = a if view.current == seats[0] else b
            if mover is b:
                state = await wait_for(b, lambda m: m["type"] == "state")
                view = b.view(state)
            card = view.legal_plays()[0]
            first = await mover.request({"type": "play", "card": card, "seq": state["seq"]})
            again = await mover.request({"type": "play", "card": card, "seq": state["seq"]})
            assert first["seq"] == again["seq"] == state["seq"] + 1 and again["duplicate"]
            assert len(server.tables[table].session.game.plays) == state["seq"] + 1
            with pytest.raises(ServerError) as stale:
                await mover.request({"type": "play", "card": card, "seq": state["seq"] - 1 + 5})
            assert stale.value.code == "stale"
    run(main())


def test_a_dropped_player_reconnects_to_exactly_their_hand_and_kicks_the_older_connection():
    async def main():
        async with serving() as server:
            table, (a, b), seats, tokens = await table_with(server, ["Ann", "Bob"], bots=1, rules=SHORT)
            await wait_for(a, lambda m: m["type"] == "state")
            await a.aclose()
            lobby = await wait_for(b, lambda m: m["type"] == "table" and not m["table"]["seats"][seats[0]]["connected"])
            assert lobby["table"]["seats"][seats[0]]["name"] == "Ann"
            back = await connect(server, "Ann", token=tokens[0])
            assert back.welcome["resumed"]
            state = await wait_for(back, lambda m: m["type"] == "state" and m["full"])
            game = server.tables[table].session.game
            assert tuple(state["view"]["hand"]) == tuple(game.hands[seats[0]]) and state["seat"] == seats[0]
            # the same token from somewhere else takes the seat; the older connection is told and closed
            again = await connect(server, "Ann", token=tokens[0])
            kicked = await wait_for(back, lambda m: m["type"] == "kicked")
            assert "somewhere else" in kicked["message"]
            with pytest.raises(Disconnected):
                while True:
                    await back.recv()
            state = await wait_for(again, lambda m: m["type"] == "state" and m["full"])
            assert tuple(state["view"]["hand"]) == tuple(server.tables[table].session.game.hands[seats[0]])
    run(main())


def test_an_absent_players_turns_are_played_by_a_bot_after_the_turn_timer():
    async def main():
        async with serving(turn_timer=0.01) as server:
            table, (a, b), seats, _ = await table_with(server, ["Ann", "Bob"], rules=SHORT)
            await b.aclose()
            last, seen = await play_randomly(a, random.Random(1), seats[0])
            assert last["view"]["over"]
            game = server.tables[table].session.game
            assert any(s == seats[1] for s, _ in game.plays)  # Bob's turns were played for him
            lobbies = [m for m in seen if m["type"] == "table"]
            assert lobbies and not lobbies[-1]["table"]["seats"][seats[1]]["connected"]
    run(main())


def test_wrong_password_and_other_protocol_versions_are_refused_with_a_clear_error():
    async def main():
        async with serving(password="s3cret") as server:
            with pytest.raises(ServerError, match="wrong password") as exc:
                await connect(server, "Ann", password="nope")
            assert exc.value.code == "auth"
            with pytest.raises(ServerError, match="needs a password"):
                await connect(server, "Ann")
            ok = await connect(server, "Ann", password="s3cret")
            assert ok.welcome["version"] == VERSION
            reader, writer = await asyncio.open_connection(HOST, server.port)
            writer.write(b'{"type":"hello","version":99,"name":"Old"}\n')
            raw = Client(reader, writer)
            reply = await raw.recv()
            assert reply["code"] == "version" and "version 1" in reply["message"] and "99" in reply["message"]
            with pytest.raises(Disconnected):
                await raw.recv()
    run(main())


def test_lobby_refusals_say_what_is_wrong():
    async def main():
        async with serving() as server:
            a = await connect(server, "Ann")
            for rules, words in [({"target": "high"}, "target"), ({"colour": 1}, "unknown key"),
                                 ("../../etc/passwd", "no rules preset"), ("standard.toml", "no rules preset")]:
                with pytest.raises(ServerError, match=words) as exc:
                    await a.request({"type": "create", "rules": rules})
                assert exc.value.code == "bad_rules"
            with pytest.raises(ServerError, match="seats must be 2 to 8"):
                await a.request({"type": "create", "seats": 9})
            with pytest.raises(ServerError, match="a table name is printable"):
                await a.request({"type": "create", "name": "a\nb"})
            table = (await a.request({"type": "create", "seats": 3, "rules": "points"}))["table"]
            assert table == 1  # (no refused create used a number up: the lobby counts from 1)
            with pytest.raises(ServerError, match="sit at a table first"):
                await a.request({"type": "start"})
            await a.request({"type": "sit", "table": table})
            # counted from 1, as the lobby shows them (it said "seat 1, 2")
            with pytest.raises(ServerError, match="seats 2, 3 are empty"):
                await a.request({"type": "start"})
            b = await connect(server, "Ann")
            with pytest.raises(ServerError, match="already sits"):
                await b.request({"type": "sit", "table": table})
            with pytest.raises(ServerError, match="unknown bot level"):
                await a.request({"type": "bots", "level": "genius"})
            assert (await a.request({"type": "bots", "level": "hard", "count": 1}))["added"] == 1
            listing = (await b.request({"type": "tables"}))["tables"]
            assert listing[0]["rules"] == "points" and [s["player"] for s in listing[0]["seats"]] == \
                ["human", "bot:hard", None]
            with pytest.raises(ServerError, match="no table 99"):
                await b.request({"type": "sit", "table": 99})
    run(main())


def test_a_lobby_table_left_with_only_bots_and_a_watcher_goes_at_once():
    async def main():
        async with serving() as server:
            a = await connect(server, "Ann")
            table = (await a.request({"type": "create", "seats": 3, "rules": SHORT}))["table"]
            await a.request({"type": "sit", "table": table})
            await a.request({"type": "bots", "level": "random"})
            watcher = await connect(server, "Wes")
            await watcher.request({"type": "watch", "table": table})
            # before the start, a table with bots and a watcher but no person seated goes at once
            # (issue 21: lobby tables left by their creator leaked); the watcher is told
            await a.request({"type": "stand"})
            told = await wait_for(watcher, lambda m: m["type"] == "notice")
            assert f"table {table} closed: nobody sits at it" in told["message"]
            b = await connect(server, "Bo")
            assert (await b.request({"type": "tables"}))["tables"] == []
    run(main())


def test_a_client_may_sit_with_a_token_of_its_own_if_long_and_unused():
    async def main():
        async with serving() as server:
            a = await connect(server, "Ann")
            table = (await a.request({"type": "create", "seats": 2}))["table"]
            with pytest.raises(ServerError, match="at least 22") as exc:
                await a.request({"type": "sit", "table": table, "token": "short"})
            assert exc.value.code == "bad_token"
            mine = "k" * 30
            assert (await a.request({"type": "sit", "table": table, "token": mine}))["token"] == mine
            b = await connect(server, "Bob")
            with pytest.raises(ServerError, match="already has a seat here, taken from another session"):
                await b.request({"type": "sit", "table": table, "token": mine})
            again = await connect(server, "Ann", token=mine)  # the token brings its owner back
            assert again.welcome["resumed"]
    run(main())


def test_once_the_timer_ran_out_the_stand_in_plays_at_once_until_the_player_is_back_and_gone_again():
    """The turn timer runs out once for an absent seat; its later turns are played at once (not
    after a timer each); once the player comes back and leaves again, the timer applies again."""
    async def main():
        async with serving(turn_timer=0.2) as server:
            table_id, (a, b), seats, tokens = await table_with(server, ["Ann", "Bob"],
                                                               rules={"scoring": {"tokens": 3, "extra_life": False}})
            table = server.tables[table_id]
            await b.aclose()
            game = lambda: table.session.game  # noqa: E731
            bobs = lambda: sum(s == seats[1] for s, _ in game().plays)  # noqa: E731
            phase = {"back": False}

            async def on_turn(client, msg, view):
                if not phase["back"] and bobs() >= 4:
                    # four of Bob's turns played for him, and the timer ran out only once
                    assert table.timeouts == 1 and seats[1] in table.stood_in
                    phase["back"] = True
                    back = await connect(server, "Bob", token=tokens[1])
                    await wait_for(back, lambda m: m["type"] == "state" and m["full"])
                    assert seats[1] not in table.stood_in
                    phase["at"] = bobs()
                    await back.aclose()
            last, _seen = await play_randomly(a, random.Random(3), seats[0], on_turn=on_turn)
            assert last["view"]["over"] and phase["back"]
            if bobs() > phase["at"]:  # Bob had a turn after leaving again: it waited for the timer again
                assert table.timeouts == 2
            assert bobs() > phase["at"], "the game ended before Bob's seat was tried again"
    run(main())


def test_a_table_nobody_is_at_waits_for_its_players_instead_of_being_played_out():
    async def main():
        async with serving(turn_timer=0.001) as server:
            table_id, (a, b), seats, tokens = await table_with(server, ["Ann", "Bob"], bots=1, rules=SHORT)
            table = server.tables[table_id]
            await wait_for(a, lambda m: m["type"] == "state")
            await a.aclose()
            await b.aclose()
            await until(lambda: all(s.conn is None for s in table.seats),
                        "both connections ended on the server too")
            # the bot plays up to a person's turn, then the table waits
            await until(lambda: table.session.current in seats, "a person's turn")
            seq = table.session.seq
            # many turn timers' worth of waiting went by above: none ran out, nothing was played
            assert table.timeouts == 0
            back = await connect(server, "Ann", token=tokens[0])
            state = await wait_for(back, lambda m: m["type"] == "state" and m["full"])
            assert state["seq"] == seq
            view = back.view(state)
            if view.my_turn:
                back.send({"type": "play", "card": view.legal_plays()[0], "seq": state["seq"]})
            last, _ = await play_randomly(back, random.Random(1), seats[0])  # and it plays on, Bob stood in for
            assert last["view"]["over"] and table.timeouts >= 1
    run(main())


def test_a_connected_player_who_never_plays_does_not_hold_the_others_table_for_good():
    """A stranger's find: a player who sat, started and then did nothing (connected, so the turn
    timer for absent players never ran) froze the table for everyone else. After --move-timer a
    bot plays that one card, everyone is told, and the game goes on; the player keeps the seat."""
    async def main():
        async with serving(turn_timer=60, move_timer=0.2) as server:
            table, (a, b), seats, _ = await table_with(server, ["Ann", "Bob"], rules={"scoring": {"tokens": 1}})
            first = await wait_for(a, lambda m: m["type"] == "state")
            idle = first["view"]["current"]  # whoever is to move does nothing at all
            other = [a, b][1 - seats.index(idle)]
            told = await wait_for(other, lambda m: m["type"] == "notice" and "did not play within" in m["message"]
                                  or m["type"] == "state" and m["seq"] > first["seq"])
            name = server.tables[table].seats[idle].name
            # the notice comes before the play it explains, so a log reads that play as the bot's
            assert told["message"] == f"{name} did not play within 0.2 s: a bot plays this card for them."
            idler = [a, b][seats.index(idle)]  # (and the player it was about hears it as "you")
            own = await wait_for(idler, lambda m: m["type"] == "notice" and "did not play within" in m["message"])
            assert own["message"] == "You did not play within 0.2 s: a bot plays this card for you."
            after = await wait_for(other, lambda m: m["type"] == "state" and m["seq"] > first["seq"])
            assert [e["seat"] for e in after["events"] if e["type"] == "play"] == [idle]
            game = server.tables[table].session.game
            assert game.plays and game.plays[0][0] == idle and server.tables[table].seats[idle].conn is not None
    run(main())


def test_alone_with_bots_a_player_may_take_all_the_time_they_like():
    async def main():
        async with serving(turn_timer=60, move_timer=0.05, bot_delay=0) as server:
            table, (a,), seats, _ = await table_with(server, ["Ann"], bots=1, rules={"scoring": {"tokens": 1}})
            state = await wait_for(a, lambda m: m["type"] == "state" and m["view"]["current"] == seats[0])
            for _ in range(5):  # several move timers' worth of round trips: nothing is played for Ann
                await asyncio.sleep(0.05)
            assert server.tables[table].session.seq == state["seq"]
    run(main())


def test_a_join_coming_back_to_a_kept_seat_is_told_to_the_table_once():
    """A stranger's find: every `ono99 join` back to a kept seat showed the others "Bob is back",
    "Bob lost the connection...", "Bob is back": the check made before the screen opens (probe)
    came back to the seat and left again. It now only checks the server answers; the screen
    comes back, once."""
    from ono99_tui.net.lobby import JoinPlan, probe

    async def main():
        async with serving(turn_timer=60) as server:
            table, (ann, bob), seats, tokens = await table_with(server, ["Ann", "Bob"])
            await bob.aclose()
            await until(lambda: server.tables[table].seats[seats[1]].conn is None, "Bob gone")
            plan = JoinPlan(HOST, server.port, "Bob", table=table, comeback=tokens[1])
            await asyncio.get_running_loop().run_in_executor(None, probe, plan)
            assert plan.comeback == tokens[1]  # (the screen comes back with it)
            back = await connect(server, "Bob", token=tokens[1])  # the screen's own coming back
            assert back.welcome["resumed"] is True
            await back.request({"type": "tables"})  # (the server has handled Bob's coming back)
            ann.send({"type": "tables", "id": 99})  # answered after every table message before it
            seen = []
            while (msg := await ann.recv()).get("re") != 99:  # every seat change Ann was told of
                if msg["type"] == "table" and (not seen or seen[-1] != msg["table"]["seats"][seats[1]]["connected"]):
                    seen.append(msg["table"]["seats"][seats[1]]["connected"])  # (each change, once)
            # an empty seat, Bob sat, Bob left, Bob back: once, never "lost" again in between
            assert seen == [False, True, False, True], seen
    run(main())
