"""Hot seat at one keyboard, checked frame by frame on a PTY (issue 19, point 2): no frame ever
shows a hand to anyone but its owner, while they are to move and have taken the keyboard.
Ann and Ben with Cy (a medium bot), and Ann and Ben alone; over 100 hand-overs in all.
The long variant: benchmarks/hot_seat_frames.py."""

from __future__ import annotations

import time
from collections import Counter

from .hot_seat_frames import Watch, play_hot_seat, turns_ended, wrong_hands


async def test_no_frame_shows_a_hand_to_anyone_but_its_owner_at_their_turn(tmp_path):
    watch = Watch()
    deadline = time.monotonic() + 300  # a hang guard only (a loaded machine is slow)
    games = [
        await play_hot_seat(tmp_path, "trio", [("Ann", "human"), ("Ben", "human"), ("Cy", "bot:medium")],
                            seed=7, passes=55, watch=watch, deadline=deadline),
        await play_hot_seat(tmp_path, "duo", [("Ann", "human"), ("Ben", "human")],
                            seed=3, passes=50, watch=watch, deadline=deadline),
    ]
    ended = turns_ended(games)
    print(f"\n{watch.frames} frames checked; {ended} turns ended by a play of Ann's or Ben's, {watch.passes} "
          f"hand-overs (Pass to), {watch.plays} plays by key, {len(watch.shown)} frames showed a hand")
    kinds = Counter(b.split(":")[1].split("'s hand")[-1].strip() for b in watch.broken)
    assert not watch.broken, f"{len(watch.broken)} frames broke the rule ({dict(kinds)}); the first:\n" + watch.broken[0]
    assert not (wrong := wrong_hands(watch, games)), wrong[:3]
    assert watch.passes >= 100 and ended >= 100
    assert len(watch.shown) >= watch.passes  # the check looked at hands that were on screen
    assert sum(len(g.plays) for g in games) >= watch.plays


def test_the_private_textual_parts_the_table_draws_with_are_still_there():
    """game.py's _draw_now draws the table at once with Textual's private Screen._refresh_layout
    and Screen._dirty_widgets, and waits out App._batch_count: this fails if Textual moves them."""
    import inspect

    from textual.app import App
    from textual.screen import Screen

    assert list(inspect.signature(Screen._refresh_layout).parameters) == ["self", "size", "scroll"]
    assert isinstance(Screen()._dirty_widgets, set)
    assert App()._batch_count == 0
