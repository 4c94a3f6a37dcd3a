"""Whose eyes are on the screen (table/viewer.py): the one place a front end asks whose hand may show."""

from ono99_tui.table.viewer import Viewer


def test_one_person_at_the_keyboard_always_sees_their_own_hand_and_log():
    eyes = Viewer([2])
    assert (eyes.seat, eyes.log_seat, eyes.shared) == (2, 2, False)
    eyes.after_change(current=0, round_ended=True)  # others move, rounds end: still their screen
    assert eyes.seat == 2 and not eyes.must_hand_over(2)


def test_nobody_at_the_keyboard_watches_public_information_only():
    eyes = Viewer([])
    assert (eyes.seat, eyes.log_seat) == (None, None)
    eyes.seated(0)  # a bot's seat is never "seated"
    assert eyes.seat is None


def test_hot_seat_shows_a_hand_only_while_its_owner_moves_after_taking_the_keyboard():
    eyes = Viewer([0, 1])
    assert eyes.seat is None and eyes.log_seat is None  # nobody's hand before anyone sits down
    assert eyes.must_hand_over(0)
    eyes.seated(0)
    assert eyes.seat == 0 and eyes.log_seat is None  # the log stays public at a shared keyboard
    eyes.after_change(current=0)  # first of two plays (Double Play): still Ann's turn
    assert eyes.seat == 0 and not eyes.must_hand_over(0)
    eyes.after_change(current=2)  # a bot moves next: Ann's hand goes at once
    assert eyes.seat is None
    assert not eyes.must_hand_over(2)  # a bot needs no keyboard
    assert eyes.must_hand_over(0)  # back to Ann: she takes the keyboard again
    eyes.seated(1)
    eyes.after_change(current=1, round_ended=True)  # Ben lost the round and deals... still hidden
    assert eyes.seat is None and eyes.must_hand_over(1)
    eyes.seated(0)
    eyes.leave()
    assert eyes.seat is None
