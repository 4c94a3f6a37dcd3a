"""Keys typed together reach the screen they were typed at, even when one of them opens another.

A paste, SSH or a fast typist brings several keys in one read, and Textual queues them all at
once. A key that opens a screen (Ctrl+S, ?, n on the menu) opens it as the app reads it when its
binding is a priority one; but the keys read with it then met a screen whose focus was not set
yet (Textual sets it when the screen first resumes), and were lost or went on to the app. Before
this, on a play-tester's terminal, Ctrl+S then "save1" opened Save as and played card 1 under
it; on the menu, "n" then "Aq" opened New game and quit.

Here a key that arrives while the screen on top has not yet resumed for the first time (nothing
focused, ``stack_updates`` still 0) waits, with every key after it, and they are handled in
order once that screen is ready: they act there, as they would have had they been typed a
moment later. Tab and Shift+Tab move the focus as they are read (priority bindings), so the
letters after a Tab go to the field it moved to, not the one it left.

A screen's priority key typed after letters meant for a text field (a name, then Ctrl+S to
start) waits, with every key after it, until the field has taken those letters: a priority
binding acts as the app reads it, ahead of the letters still queued for the field, and New game
started with the name the field held before (a play-tester's "Zed" and Ctrl+S started "You").
The keys after one that ends a field's typing (Enter, Escape, a screen's Ctrl+S that is not a
priority key) wait in the same way until the field and its screen have acted on it: they were
sent on to the field with it, and typed into a form that key had closed.

Every key that is not a field's own (a letter, or an editing key in a text field) waits likewise
until the focused widget and the screen have acted on it, and what that asked of the app (a
message: start the game, use the saved settings) is handled: a screen's binding acts when its
queue reaches the key, and the keys read with it went on meanwhile to the screen it was leaving
("?", Escape, "1" lost the 1 on Help; "Ann", Escape, Right, Enter (Save) and "g" at Settings
started a game as "You"). A Widget.focus() asked for (New game focuses its first name as it is
mounted) is waited for too. A question a key asks (_Notice's ``asked``) takes the keys read after
that key (``key_time``), not only those read after it came up.

A screen that is reading what its keys act on says so (``keys_wait``; Load reading its list back
after a delete) and the keys wait until it lets them go (``keys_may_go``): two deletes in one
read deleted, the second time, the save read first instead of the one that took the deleted
one's place.
"""

from __future__ import annotations

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Input

from .screens.notice import _Notice

# passes a screen may take to resume before its keys are handled anyway: a bound for a screen that
# never resumes, not a wait (a ready screen ends it at once). 20 was likely what, on a loaded
# machine, now and then let "n" and letters typed on the menu reach New game before its focus
READY_PASSES = 200

FOCUS_CALLBACK = "Widget.focus.<locals>.set_focus"  # (tests/test_textual_private.py checks it is Textual's)


class KeysInOrder:
    """A mixin for the App: keys wait for a new screen to be ready (see the module's docstring)."""

    KEY_BINDINGS = [Binding("tab", "focus_next", "Focus next", show=False, priority=True),
                    Binding("shift+tab", "focus_previous", "Focus previous", show=False, priority=True),
                    Binding("enter", "palette_enter", show=False, priority=True)]

    _held_keys: list[events.Key] | None = None
    _held_passes = 0
    _holding = False  # a command chosen in the palette has not run yet: every key waits for it

    def action_palette_enter(self) -> None:
        """Enter in the command palette (Ctrl+P), as it is read. The palette runs its command after
        it closes, by a message; the keys typed with the Enter went on to the palette meanwhile:
        "Enter x2 Enter" at Save as lost "x2", and the second Enter closed the palette a second
        time, which closed the table under it. Now they wait until the command has run, and go to
        what it opened."""
        palette = self.screen
        if not isinstance(palette, CommandPalette):
            raise SkipAction()
        self._holding = True
        self._held_passes = 0
        # The letters typed before the Enter ("help", Enter in one read ran the card reference, the
        # first command before the search had narrowed the list): the field takes them, then its
        # Changed messages queued behind them reach the palette, which starts its search
        # (_after_field); then the search's worker is waited for.
        field = palette.focused
        self._palette_wait = palette
        if isinstance(field, Input):
            self._after_field(field, palette, lambda: self._palette_searched(palette))
            self.call_after_refresh(self._palette_gone, palette, field)
        else:
            self._palette_searched(palette)

    _palette_wait = None  # the palette whose Enter waits for its search

    def _palette_gone(self, palette, field, passes: int = 0) -> None:
        """The palette or its field went away before the search was reached: Enter goes on."""
        if self._palette_wait is not palette:
            return
        if palette in self.screen_stack and field.is_attached and passes < 50 * READY_PASSES:
            self.call_after_refresh(self._palette_gone, palette, field, passes + 1)
            return
        self._palette_searched(palette)

    def _palette_searched(self, palette, passes: int = 0) -> None:
        if passes == 0:
            if self._palette_wait is not palette:  # (already gone on)
                return
            self._palette_wait = None
        if palette not in self.screen_stack:  # (closed meanwhile: nothing to choose)
            self._palette_done(palette)
            return
        group = getattr(palette, "_GATHER_COMMANDS_GROUP", None)
        searching = any(w.node is palette and w.group == group and not w.is_finished for w in self.workers)
        if searching and passes < 50 * READY_PASSES:
            self.call_after_refresh(self._palette_searched, palette, passes + 1)
            return
        palette._select_or_command()  # (Textual's own Enter; tests/test_keys_in_order.py fails if it moves)
        self.call_after_refresh(self._palette_done, palette)

    def _palette_done(self, palette) -> None:
        if palette in self.screen_stack and self._held_passes < READY_PASSES:  # (still choosing)
            self._held_passes += 1
            self.call_after_refresh(self._palette_done, palette)
            return
        self._holding = False  # (closed: its command was called after the close, before this)
        self._held_passes = 0
        if self._held_keys:
            self.call_after_refresh(self._handle_held_keys)

    def _screen_ready(self) -> bool:
        screen = self.screen
        if self._focus_asked or getattr(screen, "keys_wait", False):
            return False
        return screen.focused is not None or getattr(screen, "stack_updates", 1) > 0

    # -- a focus asked for before keys read with it ---------------------------------------------
    _focus_asked = 0  # Widget.focus() calls whose focus has not landed yet

    def call_later(self, callback, *args, **kwargs) -> bool:
        """Widget.focus() moves the focus by a callback queued on the app, behind the keys already
        read: keys typed together with "n" on the menu (New game focuses its first name as it is
        mounted) were handled first, "Zed", Tab, Tab, "X" named seat 2, then the focus went back
        to seat 1 and the next letter replaced "Zed". Keys now wait for such a focus to land."""
        if getattr(callback, "__qualname__", "") != FOCUS_CALLBACK:
            return super().call_later(callback, *args, **kwargs)
        self._focus_asked += 1

        def set_focus(*a, **k):
            try:
                return callback(*a, **k)
            finally:
                self._focus_asked -= 1

        if super().call_later(set_focus, *args, **kwargs):
            return True
        self._focus_asked -= 1
        return False

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if event.key == "escape" and getattr(self.screen, "keys_wait", False) and not self._holding:
                # (Escape leaves a screen still reading, a stuck disk's too: the keys typed before
                # it were for the list it leaves, and are dropped)
                self._held_keys = None
                await self._key(event)
                return
            if self._holding or self._held_keys or not self._screen_ready():
                if self._held_keys is None:
                    self._held_keys = []
                self._held_keys.append(event)
                if len(self._held_keys) == 1 and not self._holding:
                    self._held_passes = 0
                    self.call_after_refresh(self._handle_held_keys)
                return
            if self._behind_typing(event):
                self._held_keys = [event]
                self._wait_for_typing()
                return
            await self._key(event)
            return
        await super().on_event(event)

    key_time: float | None = None  # when the key handled last was read (Textual's clock)

    async def _key(self, event: events.Key) -> None:
        """Handle a key; when it ends what is typed in a text field (Enter, Escape, a screen's
        Ctrl+S), the keys after it wait until the field and the screen have acted on it."""
        self.key_time = event.time  # (a question this key asks takes the keys read after it: notice.py)
        screen = self.screen
        self._interrupted_by = screen if isinstance(screen, _Notice) and not screen.asked else None
        field = self.focused
        if isinstance(field, Input):  # (letters are the field's, in order; the keys that end them wait)
            field = field if self._ends_typing(event) or self._priority(event) is not None else None
        else:
            # Any other key waits for the screen to act on it: a screen's binding (Escape closing
            # Help, Enter on a list) acts when the screen's queue reaches it, and the keys read with
            # it went on meanwhile to the screen it was leaving ("?", Escape, "1": 1 was lost on Help)
            field = field or self.screen
        await super().on_event(event)
        if field is not None:
            self._wait_for_typing(field)

    _interrupted_by = None  # a notice that came up by itself, met by the key handled last

    async def _handle_held_keys(self) -> None:
        while self._held_keys and not self._holding:
            notice = self._interrupted_by
            if notice is not None and notice not in self.screen_stack:
                # The keys read with the one that answered a notice which came up by itself (Round
                # over, Game over, a hand-over) were typed at it, not at the screen it uncovered:
                # Enter, Enter on "Round over" played the new hand's card nobody had seen yet, and
                # "Enter 1" at a hand-over played the next player's card blind. They are dropped,
                # as keys typed before a notice came up are (notice.py).
                self._interrupted_by = None
                self._held_keys.clear()
                return
            if getattr(self.screen, "keys_wait", False):
                return  # (a screen reading what its keys act on: it lets them go, keys_may_go)
            if not self._screen_ready() and self._held_passes < READY_PASSES:
                self._held_passes += 1
                self.call_after_refresh(self._handle_held_keys)
                return
            self._held_passes = 0
            if not self._typed and self._behind_typing(self._held_keys[0]):
                self._wait_for_typing()
                return
            self._typed = False
            await self._key(self._held_keys.pop(0))

    def keys_may_go(self) -> None:
        """A screen whose ``keys_wait`` held the keys (Load, reading its list back) is ready."""
        if self._held_keys and not self._holding:
            self.call_later(self._handle_held_keys)

    # -- a screen's priority key behind letters queued for a text field ------------------------
    _typed = False  # the field has taken what was typed before the first held key: it acts now

    def _behind_typing(self, event: events.Key) -> bool:
        """Whether ``event`` is a priority key of the screen's (Ctrl+S in New game) while a text
        field has the focus: the letters typed before it may still be queued for the field."""
        active = self._priority(event)
        return isinstance(self.focused, Input) and active is not None and isinstance(active.node, Screen)

    def _priority(self, event: events.Key):
        """The priority binding ``event`` meets here (New game's Ctrl+S), else None: it acts as it
        is read, and what it asks of the app (start the game) is a message the keys after it wait behind."""
        active = self.screen.active_bindings.get(event.key)
        return active if active is not None and active.binding.priority else None

    def _ends_typing(self, event: events.Key) -> bool:
        """Whether ``event``, sent on to the focused text field, ends its typing: Enter (its submit),
        or a key it leaves to the screen above it (Escape, Settings' Ctrl+S). Every key read with it
        was sent on to the field as well, behind it: "2", Ctrl+S and "g" at Settings typed the g
        into the form Ctrl+S had closed, and Ctrl+S, "ab", Enter and "1" on a table saved "ab1"."""
        field = self.focused
        if not isinstance(field, Input) or event.is_printable or isinstance(self.screen, CommandPalette):
            return False  # (a letter is the field's; the palette's Enter waits by itself)
        if event.key == "enter":
            return True
        active = self.screen.active_bindings.get(event.key)
        # (a priority key acts as it is read, never sent on to the field: _behind_typing's)
        return active is not None and not active.binding.priority and active.node is not field

    def _wait_for_typing(self, field: Input | None = None) -> None:
        """The held keys wait for the focused field (or ``field``) to handle what is queued for it: a
        callback queued behind those keys, on the field itself, lets them go (or its going away)."""
        field = field or self.focused
        self._holding, self._waiting_on = True, field
        self._held_passes = 0
        self._after_field(field, self.screen, lambda: self._typing_done(field))
        self.call_after_refresh(self._field_gone, field)

    @staticmethod
    def _after_field(field, screen, then) -> None:
        """``then()`` once ``field`` has handled what is queued for it (the keys typed into it),
        and the messages those posted (Changed) have bubbled up to ``screen``: a callback queued
        behind them on the field, then again (behind the Changed messages the keys posted there),
        then on each container above it in turn, up to the screen."""
        chain = [field, field]
        for node in field.ancestors:
            chain.append(node)
            if node is screen:
                break

        def step(i: int = 0) -> None:
            if i == len(chain):
                then()
            else:
                chain[i].call_later(step, i + 1)

        step()

    def _typing_done(self, field) -> None:
        if not self._holding or self._waiting_on is not field:
            return
        self._holding, self._typed, self._waiting_on = False, True, None
        # (then behind what the screen on top now has queued, and what that posts to the app: a
        # dialog's answer runs on the screen under it, and Settings' Save told the app the new
        # settings by a message: "Ann", Escape, Right, Enter (Save), g started a game as "You")
        go_on = lambda: self.call_later(self._handle_held_keys)  # noqa: E731
        if not self.screen.call_later(go_on):
            go_on()

    _waiting_on = None

    def _field_gone(self, field) -> None:
        """The field was removed before it took its keys (its screen closed): the keys go on."""
        if not self._holding or self._waiting_on is not field:
            return
        if field.is_attached and self._held_passes < 50 * READY_PASSES:  # (a live field takes its keys first)
            self._held_passes += 1
            self.call_after_refresh(self._field_gone, field)
            return
        self._typing_done(field)
