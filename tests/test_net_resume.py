"""A restarted table server resumes its tables: the manifest (DATA/server/tables.json) names
each live table, its save holds the game, and each player comes back with their seat token to
exactly their hand; the game plays on to its end and the record replays to the same result."""

import asyncio
import json
import logging
import random

from ono99_tui.engine.record import Record
from ono99_tui.net.manifest import manifest_path
from ono99_tui.net.server import Server, ServerConfig
from ono99_tui.store.saves import SaveStore

from .netplay import HOST, connect, play_randomly, run, serving, table_with, wait_for

RULES = {"scoring": {"tokens": 2, "extra_life": False}}


def is_state(m):
    return m["type"] == "state"


async def play_some(clients, seats, rng, plays: int) -> list[dict]:
    """Random legal plays by whoever is to move (bots move by themselves) until ``plays`` plays
    are made and a person is to move; each client's latest state."""
    states = [await wait_for(c, is_state) for c in clients]
    for c, first in zip(clients, states):
        c.view(first)  # the rules come with the first (full) state
    while True:
        view = clients[0].view(states[0])
        if view.over or (states[0]["seq"] >= plays and view.current in seats):  # (a bot would play on)
            return states
        if view.current in seats:
            i = seats.index(view.current)
            mine = clients[i].view(states[i])
            clients[i].send({"type": "play", "card": rng.choice(mine.legal_plays()), "seq": states[i]["seq"]})
        states = [await wait_for(c, lambda m, old=old: is_state(m) and m["seq"] > old["seq"])
                  for c, old in zip(clients, states)]


def test_a_restarted_server_resumes_its_tables_with_the_same_hands_and_the_game_plays_to_its_end():
    async def main():
        async with serving(save=True, resume=True, turn_timer=60) as server:
            table_id, clients, seats, tokens = await table_with(server, ["Ann", "Bob"], bots=1, rules=RULES)
            save_name = server.tables[table_id].save_name
            states = await play_some(clients, seats, random.Random(7), 12)
            before = server.tables[table_id].session.game
            game_id = server.tables[table_id].session.game_id
            plays_before = list(before.plays)
            hands = [tuple(s["view"]["hand"]) for s in states]
            seq = states[0]["seq"]
            assert not before.over and seq == len(plays_before) >= 12
        # closed (as on SIGTERM): the manifest names the table and its save, with the seats' tokens
        doc = json.loads(manifest_path().read_text())
        (entry,) = doc["tables"]
        assert entry["id"] == table_id and entry["save"] == save_name
        assert [s["token"] for s in entry["seats"]] == [tokens[0], tokens[1], None]
        assert [s["player"] for s in entry["seats"]] == ["human", "human", "bot:random"]

        async with serving(save=True, resume=True, turn_timer=60) as server:
            assert list(server.tables) == [table_id]
            assert server.tables[table_id].session.game_id == game_id  # the same game (counted once)
            back = [await connect(server, name, token=token) for name, token in zip(["Ann", "Bob"], tokens)]
            for client, seat, hand in zip(back, seats, hands):
                assert client.welcome["resumed"]
                state = await wait_for(client, lambda m: is_state(m) and m["full"])
                assert state["seat"] == seat and state["seq"] == seq and tuple(state["view"]["hand"]) == hand
                view = client.view(state)
                if view.my_turn:  # play on from here
                    client.send({"type": "play", "card": view.legal_plays()[0], "seq": state["seq"]})
            # a new table does not take the resumed one's number
            assert (await back[0].request({"type": "tables"}))["tables"][0]["id"] == table_id
            finals = await asyncio.gather(*(play_randomly(c, random.Random(i), s)
                                            for i, (c, s) in enumerate(zip(back, seats))))
            game = server.tables[table_id].session.game
            assert game.over and game.plays[:seq] == plays_before
            for last, _ in finals:
                assert last["view"]["winner"] == game.winner and last["seq"] == len(game.plays)
        # the save is the whole game, and replays (as `ono99 replay` does) to the same result
        record = Record.loads(SaveStore().path(save_name).read_text())
        again = record.replay()
        assert again.plays == game.plays and again.winner == game.winner and again.standings() == game.standings()
        assert record.meta["finished"] is True and record.game_id == game_id
        assert json.loads(manifest_path().read_text())["tables"] == []  # nothing left to resume
    run(main())


def test_a_damaged_or_missing_manifest_or_save_is_a_warning_never_a_crash(caplog):
    async def start_and_close():
        server = Server(ServerConfig(host=HOST, port=0, save=True, resume=True))
        await server.start()
        tables = dict(server.tables)
        a = await connect(server, "Ann")  # the server serves
        assert (await a.request({"type": "tables"}))["tables"] == []
        await a.aclose()
        await server.close()
        return tables

    path = manifest_path()
    caplog.set_level(logging.WARNING, logger="ono99.server")
    assert run(start_and_close()) == {}  # no manifest yet: nothing to say
    assert not caplog.records
    path.parent.mkdir(parents=True, exist_ok=True)
    seat = {"name": "Ann", "player": "human", "token": "t" * 30}
    for text, words in [
        ("{not json", "not valid JSON"),
        ("[]", "not an ono99 server manifest"),
        (json.dumps({"format": "ono99-server-tables", "version": 1, "tables": [
            {"id": 1, "name": "T", "rules": "standard", "save": "no such save",
             "seats": [seat, {"name": "Bob", "player": "bot:easy", "token": None}]}]}), "no save named"),
        (json.dumps({"format": "ono99-server-tables", "version": 1, "tables": [
            {"id": 1, "name": "T", "rules": "standard", "save": "../../etc/passwd", "seats": [seat, seat]}]}),
         "save name"),
        (json.dumps({"format": "ono99-server-tables", "version": 1, "tables": [{"id": "x"}, 7]}), "skipped"),
    ]:
        caplog.clear()
        path.write_text(text)
        assert run(start_and_close()) == {}
        assert any(words in r.getMessage() for r in caplog.records), (words, [r.getMessage() for r in caplog.records])
        if text in ("{not json", "[]"):  # a damaged manifest is kept aside, not written over
            aside = path.with_name("tables.json.damaged")
            assert aside.read_text() == text and str(aside) in caplog.text
    path.unlink()
    path.mkdir()  # not even a file
    caplog.clear()
    assert run(start_and_close()) == {}
    assert any("folder" in r.getMessage() for r in caplog.records)


def test_a_second_server_on_the_same_data_folder_leaves_the_first_ones_tables_alone(caplog):
    async def main():
        async with serving(save=True, resume=True) as first:
            table_id, clients, seats, _ = await table_with(first, ["Ann", "Bob"])
            async with serving(save=True, resume=True) as second:
                assert second.tables == {}
                await table_with(second, ["Cy", "Dee"])  # it serves, and keeps nothing for a restart
            assert [t["id"] for t in json.loads(manifest_path().read_text())["tables"]] == [table_id]
    caplog.set_level(logging.WARNING, logger="ono99.server")
    run(main())
    assert any("another ono99 server" in r.getMessage() for r in caplog.records)


def test_a_table_whose_save_cannot_be_opened_now_stays_listed_and_a_later_start_resumes_it():
    """A stranger's find: a server's save made write-protected (chmod 444) was not resumed, and
    the server then wrote its manifest without that table: after chmod u+w the kept game never
    came back, and its players' seats were gone. Such a table now stays listed, the warning is
    kept for a host's screen too, and the next start resumes it."""
    import os

    async def main():
        async with serving(save=True, resume=True, turn_timer=60) as server:
            table_id, clients, seats, tokens = await table_with(server, ["Ann", "Bob"], bots=1, rules=RULES)
            save_name = server.tables[table_id].save_name
            await play_some(clients, seats, random.Random(3), 4)
        path = SaveStore().path(save_name)
        os.chmod(path, 0o444)
        async with serving(save=True, resume=True, turn_timer=60) as server:
            assert server.tables == {}
            (warning,) = server.start_warnings
            assert f"table {table_id}" in warning and "write-protected" in warning and "chmod u+w" in warning
            # a new table meanwhile takes another number, and the kept one stays listed
            other, _, _, _ = await table_with(server, ["Cy", "Dee"])
            assert other != table_id
        assert table_id in [t["id"] for t in json.loads(manifest_path().read_text())["tables"]]
        os.chmod(path, 0o644)
        async with serving(save=True, resume=True, turn_timer=60) as server:
            assert table_id in server.tables and server.start_warnings == []
            back = await connect(server, "Ann", token=tokens[0])
            assert back.welcome["resumed"]
    run(main())


def test_ono99_serve_stopped_by_sigterm_resumes_its_table_when_started_again():
    """The real process: SIGTERM saves and writes the manifest; the next `ono99 serve` on the same
    data folder has the table, and a token brings its player back to the same hand. A damaged
    manifest is one warning line on stderr, never a traceback."""
    import os
    import signal
    import subprocess
    import sys

    from ono99_tui.net.client import Client

    def serve():
        proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", "serve", "--port", "0", "--bot-delay", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONUNBUFFERED="1"))
        line = proc.stdout.readline()
        assert "listening on 127.0.0.1:" in line, line + proc.stderr.read()
        return proc, int(line.split("127.0.0.1:")[1].split()[0])

    def stop(proc) -> str:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        err = proc.stderr.read()
        assert "Traceback" not in err, err
        return err

    async def first(port):
        a, b = await Client.connect(HOST, port, "Ann"), await Client.connect(HOST, port, "Bob")
        table = (await a.request({"type": "create", "seats": 2, "rules": RULES}))["table"]
        tokens = [(await c.request({"type": "sit", "table": table}))["token"] for c in (a, b)]
        await a.request({"type": "start"})
        states = await play_some([a, b], [0, 1], random.Random(1), 3)
        return tokens, [s["view"]["hand"] for s in states], states[0]["seq"]

    async def second(port, tokens):
        back = await Client.connect(HOST, port, "Bob", token=tokens[1])
        assert back.welcome["resumed"]
        return await wait_for(back, lambda m: is_state(m) and m["full"])

    proc, port = serve()
    try:
        tokens, hands, seq = run(first(port))
    finally:
        stop(proc)
    proc, port = serve()
    try:
        state = run(second(port, tokens))
        assert state["seq"] == seq and state["view"]["hand"] == hands[1]
    finally:
        stop(proc)
    manifest_path().write_text("{damaged")
    proc, port = serve()
    err = stop(proc)
    assert err.count("\n") == 1 and err.startswith("ono99: warning: not resuming any table:") and "JSON" in err


def test_a_game_a_server_keeps_is_not_opened_locally_with_every_hand_showing():
    """A stranger's find: after `ono99 host` was killed, `ono99 resume` on the host's machine
    opened the kept network game as pass-and-play: "I am Bob" showed Bob's hand, and the plays
    made there reached the network game when the host came back. A game a server's manifest
    keeps goes on at that server only; once it is not kept it opens as any save."""
    from ono99_tui.net.manifest import kept_by, write_manifest
    from ono99_tui.tui.app import Ono99App

    from .cli import ono99

    async def main():
        async with serving(save=True, resume=True, turn_timer=60) as server:
            table_id, clients, seats, _ = await table_with(server, ["Ann", "Bob"], bots=1, rules=RULES)
            await play_some(clients, seats, random.Random(3), 4)
            return server.tables[table_id].save_name
    name = run(main())
    assert kept_by(name) == "ono99 serve"
    for args in (["resume", name], ["resume", name, "--plain"], ["replay", name]):
        proc = ono99(*args)
        assert proc.returncode == 2 and proc.stdout == "", (args, proc.stdout)
        assert f"{name!r} is being played at a network table that ono99 serve keeps" in proc.stderr
        assert "every player's hand would show" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1

    async def in_the_app():
        app = Ono99App()
        async with app.run_test(size=(80, 24)) as pilot:
            assert app.resume(name) is False
            await pilot.pause()
            assert any("ono99 serve keeps" in n.message for n in app._notifications)
            assert type(app.screen).__name__ != "GameScreen"
    asyncio.run(in_the_app())
    damaged = manifest_path().with_name("host-7901.json")  # a damaged manifest beside it: only read,
    damaged.write_text("{not json")                         # never set aside by a check (its server's job)
    assert kept_by(name) == "ono99 serve" and damaged.read_text() == "{not json"
    write_manifest(manifest_path(), [], 1)  # no longer kept (its server closed it): a save like any other
    assert kept_by(name) is None
    assert ono99("replay", name).returncode == 0


async def _a_private_game_kept(**config) -> tuple[int, str]:
    """Ann's game with a bot, started at a server of ``config`` that keeps its tables, then the
    server stopped: (the table, Ann's token). Its manifest marks it private, never the password."""
    config = {"save": True, "resume": True, "turn_timer": 60, **config}
    async with serving(**config) as server:
        ann = await connect(server, "Ann", password=config["password"])
        table_id = (await ann.request({"type": "create", "seats": 2, "rules": RULES}))["table"]
        token = (await ann.request({"type": "sit", "table": table_id}))["token"]
        await ann.request({"type": "bots", "level": "random"})
        await ann.request({"type": "start"})
    (entry,) = json.loads(manifest_path().read_text())["tables"]
    assert entry["password"] is True and config["password"] not in manifest_path().read_text()
    return table_id, token


def test_a_table_played_with_a_password_is_not_resumed_by_a_server_without_one():
    """A server restarted without --password resumed its private tables open to anyone. The
    manifest says a table was played with a password (never the password); such a table waits,
    listed, for a start that asks one again."""

    async def main():
        table_id, token = await _a_private_game_kept(password="open sesame")
        async with serving(save=True, resume=True, turn_timer=60) as server:
            assert server.tables == {}
            (warning,) = server.start_warnings
            assert f"table {table_id}" in warning and "played with a password" in warning, warning
        assert [t["id"] for t in json.loads(manifest_path().read_text())["tables"]] == [table_id]
        async with serving(save=True, resume=True, turn_timer=60, password="open sesame") as server:
            assert table_id in server.tables and server.start_warnings == []
            back = await connect(server, "Ann", token=token, password="open sesame")
            assert back.welcome["resumed"]
    run(main())


def test_a_gateways_private_table_is_not_resumed_by_one_that_lets_anyone_in():
    """`ono99 web --password` (or serve-ssh --authorized-keys) restarted without it resumed its
    tables open to anyone: a gateway's inner server always has a secret of its own, so its tables
    were never marked private. Now its closed door marks them, and a restart with the door open
    leaves them waiting, listed, naming the flag that resumes them."""

    async def main():
        door = {"gateway": True, "save": True, "resume": True, "turn_timer": 60}
        table_id, token = await _a_private_game_kept(**door, password="secret 1", door_closed=True,
                                                      door_flag="--authorized-keys FILE (not --open)")
        async with serving(**door, password="secret 2", door_flag="--authorized-keys FILE (not --open)") as server:
            assert server.tables == {}
            (warning,) = server.start_warnings
            assert f"table {table_id}" in warning and "--authorized-keys FILE (not --open)" in warning, warning
        async with serving(**door, password="secret 3", door_closed=True) as server:
            assert table_id in server.tables and server.start_warnings == []
            back = await connect(server, "Ann", token=token, password="secret 3")
            assert back.welcome["resumed"]
        # a door is a door: ono99 serve with a password resumes it too (the same data folder)
        async with serving(save=True, resume=True, turn_timer=60, password="pw") as server:
            assert table_id in server.tables and server.start_warnings == []
    run(main())


def test_web_and_serve_ssh_tell_their_table_server_whether_strangers_are_kept_out(monkeypatch, tmp_path):
    import asyncssh

    from ono99_tui import cli
    from ono99_tui.net import ssh, web

    told = []

    async def run_(gateway_config, server_config, ready=None):
        told.append((server_config.door_closed, server_config.door_flag))

    monkeypatch.setattr(web, "run", run_)
    monkeypatch.setattr(ssh, "run", run_)
    keys = tmp_path / "keys"
    keys.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    for argv, closed, flag in [(["web"], False, "--password"), (["web", "--password", "pw"], True, "--password"),
                               (["serve-ssh", "--open"], False, "--authorized-keys"),
                               (["serve-ssh", "--authorized-keys", str(keys)], True, "--authorized-keys")]:
        assert cli.main(argv) == 0
        assert told[-1][0] is closed and told[-1][1].startswith(flag), (argv, told[-1])
