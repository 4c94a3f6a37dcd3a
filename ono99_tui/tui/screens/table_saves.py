"""The table screen's save: autosave after every play, Save as, undo, statistics at the end.

A mixin for GameScreen, which provides game, setup, viewer, humans, session,
undo_used, stats_recorded, logged, advance() and _human_may_play().
"""

from __future__ import annotations

from textual.widgets import Log


class SavesTable:
    def _open_save(self) -> None:
        from ...store.saves import SaveError, SaveStore
        from ...store.session import SaveSession

        store = SaveStore()
        try:
            name = self.save_name or store.new_name()
        except (SaveError, OSError) as exc:
            self.notify(f"Not saving: {exc}", severity="warning", timeout=10)
            return
        self.session = SaveSession(store, name, self.setup.seats, self.setup.rules_label, self.undo_used)
        message = self.session.open()
        if message:
            self.notify(message, severity="warning", timeout=12)
        self._autosave()

    def _autosave(self) -> None:
        if self.session is None:
            return
        warning = self.session.save(self.game)
        if warning:
            self.notify(warning, severity="warning", timeout=12)
        if self.game.over:
            self._record_stats()

    def _record_stats(self) -> None:
        if self.stats_recorded or self.session is None or self.session.read_only:
            return
        self.stats_recorded = True
        from ...store.stats import record_game

        try:
            record_game(self.game, self.setup.seats)
        except OSError as exc:
            self.notify(f"Statistics not updated: {exc.strerror or exc}", severity="warning")

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.close()

    def may_undo(self) -> bool:
        others_bots = all(s.is_bot for i, s in enumerate(self.setup.seats) if i != self.viewer)
        return (others_bots and len(self.humans) == 1 and self.app.settings.undo and not self.game.over
                and any(seat == self.viewer for seat, _ in self.game.plays))

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "undo":
            return self.may_undo()
        return True

    def action_undo(self) -> None:
        """Take back the human's last play; what the bots did after it is replayed by them afresh."""
        if not self.may_undo() or not self._human_may_play():
            self.notify("You can undo when it is your turn.", timeout=4)
            return
        from ...store.session import rebuild

        last = max(i for i, (seat, _) in enumerate(self.game.plays) if seat == self.viewer)
        self.game = rebuild(self.game, last)
        self.undo_used = True
        if self.session is not None:
            self.session.undo_used = True
        log = self.query_one("#log", Log)
        log.clear()
        self.logged = 0
        self._autosave()
        self.notify("Your last play is taken back (this save is marked: undo used).", timeout=5)
        self.advance()

    def action_save_as(self) -> None:
        from .save_as import SaveAsScreen

        self.app.push_screen(SaveAsScreen(self.session.name if self.session else ""), self._saved_as)

    def _saved_as(self, name: str | None) -> None:
        if not name:
            return
        from ...store.saves import SaveError, SaveStore
        from ...store.session import SaveSession

        if self.session is None:
            self.session = SaveSession(SaveStore(), name, self.setup.seats, self.setup.rules_label, self.undo_used)
        try:
            used = self.session.save_as(self.game, name)
        except SaveError as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        self.notify(f"Saved as {used!r}; later plays are saved there too.", timeout=5)
