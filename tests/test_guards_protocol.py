"""The table protocol's checks, pinned where planted bugs survived the network tests (issue 25):
what a hostile or broken peer may send, and the words each side answers it with. A server's
refusal goes on the wire to the client that sent the line; a client's is shown to its player
inside "HOST sent a message this ono99 cannot read (...)" (net/client.py)."""

from __future__ import annotations

import json

import pytest

from ono99_tui.net.protocol import (MAX_LINE, MAX_TEXT, WATCHERS_NAMED, LineBuffer, ProtocolError,
                                    decode, encode, parse, view_from_dict)

from .test_net_hostile_server import DROP, SESSION, VIEW, state, table, with_


def refusal(read, line) -> str:
    with pytest.raises(ProtocolError) as exc:
        read(line)
    return str(exc.value)


# -- what a server answers a client's line with -----------------------------------------
@pytest.mark.parametrize("line, said", [
    (b"\xff\xfe", "a line must be UTF-8 text"),
    (b"[" * 8000, "not JSON this server reads: nested too deep"),
    (b"[1]", 'a message is a JSON object like {"type": "ping"}'),
    (b'{"type": 3}', 'a message needs a "type" (a string)'),
    (b'{"type": "ping", "id": [1]}', '"id" must be a 32-bit integer or a string of at most 64 characters'),
    (b'{"type": "stand", "seat": 1}', "stand: unknown field 'seat' (fields: none)"),
    (b'{"type": "play"}', "play: missing 'card', 'seq'"),
    (b'{"type": "hello", "version": 1, "name": 7}', "hello: 'name' must be a string"),
    (b'{"type": "create", "rules": 7}', "create: 'rules' must be a string or an object"),
    (b'{"type": "sit", "table": 2147483648}', "sit: 'table' is out of range"),
    (b'{"type": "dance"}', "unknown message type 'dance'; types are hello, tables, create, sit, watch, stand, bots, start, play, undo, ping"),
])
def test_a_server_answers_a_bad_line_in_these_words(line, said):
    assert refusal(parse, line) == said


def test_a_line_that_is_not_json_is_answered_with_what_json_says_is_wrong():
    said = refusal(parse, b'{"type": "ping",}')
    assert said.startswith("not JSON: ") and "line 1 column 17" in said, said


@pytest.mark.parametrize("edge, inside", [(-2**31, True), (2**31 - 1, True), (-2**31 - 1, False), (2**31, False)])
def test_numbers_are_32_bit_in_a_field_and_in_an_id(edge, inside):
    for line in (b'{"type": "sit", "table": %d}' % edge, b'{"type": "ping", "id": %d}' % edge):
        if inside:
            message = parse(line)
            assert edge in message.values()
        else:
            with pytest.raises(ProtocolError, match="out of range|32-bit"):
                parse(line)


def test_text_and_ids_are_taken_up_to_their_limits_and_no_further():
    name = "n" * MAX_TEXT
    assert parse(json.dumps({"type": "hello", "version": 1, "name": name}).encode())["name"] == name
    with pytest.raises(ProtocolError, match="longer than"):
        parse(json.dumps({"type": "hello", "version": 1, "name": name + "n"}).encode())
    assert parse(json.dumps({"type": "ping", "id": "i" * 64}).encode())["id"] == "i" * 64
    with pytest.raises(ProtocolError, match="at most 64 characters"):
        parse(json.dumps({"type": "ping", "id": "i" * 65}).encode())


def test_a_line_of_exactly_the_limit_is_read_by_the_server_and_one_byte_more_is_not():
    line = json.dumps({"type": "ping", "id": "x"}).encode()
    line = line[:-1] + b" " * (MAX_LINE - len(line)) + b"}"
    assert len(line) == MAX_LINE and parse(line) == {"type": "ping", "id": "x"}
    with pytest.raises(ProtocolError) as exc:
        parse(line + b" ")
    assert exc.value.code == "too_long"


# -- the framing: lines as they come off a socket, in any chunks --------------------------
def test_a_line_whose_newline_comes_in_a_chunk_of_its_own_is_read_whole():
    buf = LineBuffer(limit=10)
    assert buf.feed(b"abc") == []
    assert buf.feed(b"\n") == [b"abc"]
    assert buf.feed(b"de") == [] and buf.feed(b"\nfg\n") == [b"de", b"fg"]


def test_a_line_of_exactly_the_limit_is_read_however_it_is_cut():
    whole = LineBuffer(limit=10)
    assert whole.feed(b"0123456789\n") == [b"0123456789"]
    pieces = LineBuffer(limit=10)
    assert pieces.feed(b"01234") == [] and pieces.feed(b"56789") == [] and pieces.feed(b"\nok\n") == [b"0123456789",
                                                                                                       b"ok"]
    assert LineBuffer(limit=10).feed(b"0123456789x\nok\n") == [None, b"ok"]


# -- what a client tells its player about a server's message ------------------------------
TWO = {**table(), "watchers": 2, "watching": ["Wendy", "Walt"]}


@pytest.mark.parametrize("message, said", [
    (b"HTTP/1.1 400 Bad Request", "not JSON: Expecting value: line 1 column 1 (char 0)"),
    (b"[" * 8000, "not JSON this client reads: nested too deep"),
    (b"[1]", 'a message is a JSON object with a "type"'),
    (b'{"no": "type"}', 'a message is a JSON object with a "type"'),
    ({"type": "wat"}, "a message of unknown type 'wat'"),
    ({"type": "tables", "tables": "nope"}, "tables.tables: must be a list"),
    ({"type": "tables", "tables": [1]}, "tables.tables[0]: must be an object"),
    ({"type": "tables", "tables": [{"id": 1}]}, "tables.tables[0]: no 'name'"),
    ({"type": "table", "seat": 0}, "table: no 'table'"),
    ({"type": "table", "table": table(), "seat": "0"}, "table.seat: must be a seat number or null"),
    ({"type": "table", "seat": 0, "table": {**TWO, "watching": ["W"] * (WATCHERS_NAMED + 1)}},
     f"table.table.watching: must be a list of at most {WATCHERS_NAMED}"),
    (state(hand_sizes=[1]), "state.view.hand_sizes: must be a list of 2, one for each seat"),
    (state(round_plays=[[0]]), "state.view.round_plays[0]: must be a list of 2"),
    (state(round_plays=[[0, "zz"]]), "state.view.round_plays[0][1]: must be a card"),
    (with_(state(), events=[{"type": "tie", "seats": [1], "score": 3}]),
     "state.events[0] (tie).seats: must be a list of at least 2"),
    (with_(state(), events=[{"type": "play", "n": 1, "round": 1, "seat": 9, "card": "2", "total": 2}]),
     "state.events[0] (play).seat: must be a seat number"),
    (with_(state(), events=[{"type": "wat"}]),
     'state.events[0]: must be an object whose "type" is one of dealer, deal, play, double, draw, reshuffle, '
     "unseen_shuffled, round_lost, tokens, points, eliminated, tie, game_over"),
    (with_(state(), seat=1), "state: 'seat' is not its view's"),
    (with_(state(), view={k: v for k, v in VIEW.items() if k != "rules"}), "state: a full state without its rules"),
    (state(names=["Ann", "Ann"]), "view.names: player names must differ: Ann appears more than once"),
    (state(in_round=[0, 0]), "view: a seat in the round twice"),
])
def test_a_client_says_what_is_wrong_with_a_servers_message_in_these_words(message, said):
    assert refusal(decode, message if isinstance(message, bytes) else encode(message)) == said


def test_what_a_real_server_sends_with_lists_of_several_is_read():
    """Lists with a least or a most: two named watchers (of at most 12), a tie of two seats (at
    least 2), a high-card dealer's draws, each item checked as the list's kind."""
    listed = {"type": "table", "seat": 0, "table": {**TWO, "watching": ["W%d" % i for i in range(WATCHERS_NAMED)]}}
    for message in ({"type": "table", "table": TWO, "seat": 0}, listed,
                    with_(state(), events=[{"type": "tie", "seats": [0, 1], "score": 3},
                                           {"type": "dealer", "seat": 1, "method": "high-card",
                                            "draws": [[[0, "2"], [1, "2"]], [[0, "3"], [1, "9"]]]}])):
        assert decode(encode(message)) == json.loads(encode(message))


# -- a view read on its own (view_from_dict) --------------------------------------------
@pytest.mark.parametrize("change, said", [
    ({"rules": DROP}, "a view without rules, and no full state before it"),
    ({"hand": ["double"] * 3 + ["3"]}, "more cards than the table's deck holds"),  # (the deck has two)
    ({"hand_sizes": [4, len(SESSION.rules.deck) + 1]}, "more cards than the table's deck holds"),
    ({"draw_pile_size": len(SESSION.rules.deck) + 1}, "more cards than the table's deck holds"),
    ({"current": 0, "total": 95, "hand": ["99"] * 4}, "this seat is to move with no card it may play"),  # (R7.2)
])
def test_a_view_that_cannot_be_is_refused_in_these_words(change, said):
    view = {k: v for k, v in VIEW.items() if change.get(k) is not DROP}
    view.update({k: v for k, v in change.items() if v is not DROP})
    assert refusal(view_from_dict, view) == f"the server sent a view that cannot be read: {said}"


def test_a_view_holding_as_many_cards_as_the_deck_is_read():
    deck = len(SESSION.rules.deck)
    assert view_from_dict({**VIEW, "hand_sizes": [4, deck]}).hand_sizes == (4, deck)
    assert view_from_dict({**VIEW, "draw_pile_size": deck}).draw_pile_size == deck


def test_a_view_that_is_not_an_object_is_refused_not_a_crash():
    for data in ([1], "view", None, 5):
        assert refusal(view_from_dict, data) == "the server sent a view that cannot be read: view: must be an object"


def test_a_state_whose_names_are_not_a_list_is_said_to_be_that():
    """The view's names say how many seats there are, so they are checked first: a server sending
    names that are not a list was said to send a bad "seat" (a seat that was fine)."""
    assert refusal(decode, encode(state(names="AB"))) == "state.view.names: must be a list"
    assert refusal(view_from_dict, {**VIEW, "names": "AB"}) == ("the server sent a view that cannot be read: "
                                                               "view.names: must be a list")
