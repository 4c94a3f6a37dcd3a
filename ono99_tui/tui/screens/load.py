"""Load: every save with its players, rules, round, scores and when it was last played.

The list fills in from a worker thread, so a folder of a thousand saves never
holds the screen up. Damaged saves are listed with the reason; they can be
deleted, never opened.
"""

from __future__ import annotations

import time
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option
from rich.text import Text

from ...store.saves import SaveError, SaveInfo, SaveStore, misnamed, name_for, restored_kept
from ...text import for_markup, visible
from ..messages import ResumeFailed, ResumeGame
from .notice import _Notice
from .save_as import NameScreen


def _safe(text: str) -> str:
    return for_markup(text)  # from a file: shown as text, never markup or escape sequences


def describe(info: SaveInfo) -> str:
    if info.damaged:
        bak = "\n  Its previous version (.bak) is kept: b puts it back." if info.has_bak else ""
        return f"[b]{_safe(visible(info.name))}[/b]  DAMAGED\n  {_safe(info.damaged)}{bak}"
    undo = ", undo used" if info.undo_used else ""
    journal = f"\n  Damaged journal: {_safe(info.set_aside)}" if info.set_aside else ""
    return (f"[b]{_safe(visible(info.name))}[/b]  {info.when}  {_safe(info.state)}{undo}\n"
            f"  {_safe(info.players)}; rules: {_safe(info.rules)}\n  {_safe(info.scores)}{journal}")


class LoadScreen(Screen):
    # priority, and acted on as they are read, the list's own keys too (as on the menu): "r" then
    # "zzz" and Enter in one read lost the letters (they met the list under the Rename dialog,
    # not yet ready) and renamed nothing; the keys after one that opens a dialog now wait for it
    # (tui/key_order.py), and a Down typed before "r" or "d" has moved the list when they act
    BINDINGS = [
        Binding("enter", "open", "Open", show=True, priority=True),
        Binding("d", "delete", "Delete", priority=True),
        Binding("r", "rename", "Rename", priority=True),
        Binding("b", "restore", "Restore .bak", show=False, priority=True),  # offered by a damaged save's own line
        Binding("escape", "app.pop_screen", "Back", priority=True),
        *(Binding(key, f"list('{action}')", show=False, priority=True) for key, action in (
            ("up", "cursor_up"), ("down", "cursor_down"), ("home", "first"), ("end", "last"),
            ("pageup", "page_up"), ("pagedown", "page_down"))),
    ]

    async def action_list(self, action: str) -> None:
        await self.query_one("#saves", OptionList).run_action(action)

    def __init__(self, store: SaveStore | None = None):
        super().__init__()
        self.store = store or SaveStore()
        self.infos: list[SaveInfo] = []

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        yield OptionList(id="saves")
        yield Static("", id="load-note")
        yield Footer(show_command_palette=not self.app.ascii)

    @property
    def folder(self) -> str:
        """The saves folder as the player would type it: under the home folder, ``~/...``."""
        folder, home = Path(self.store.folder), Path.home()
        return f"~/{folder.relative_to(home)}" if folder.is_relative_to(home) and folder != home else str(folder)

    def on_mount(self) -> None:
        self.query_one("#saves").border_title = "Saved games"
        self.reload()

    _keep: str | None = None  # the save to highlight again once the list is read back
    # Keys wait (tui/key_order.py) while the list does not yet hold the line they would act on:
    # the newest save on a first read, the save to highlight again on a read-back. Two deletes in
    # one read deleted, the second time, the save read first instead of the one that took the
    # deleted one's place.
    keys_wait = False

    def _keys_go(self) -> None:
        if self.keys_wait:
            self.keys_wait = False
            may_go = getattr(self.app, "keys_may_go", None)
            if may_go is not None:
                may_go()

    def on_unmount(self) -> None:
        self._keys_go()

    def reload(self, keep: str | None = None) -> None:
        """Read the list again; ``keep``: the save to highlight in it (a renamed or restored one:
        the first line was highlighted instead, and the next d asked to delete another save)."""
        self._keep = keep
        self.keys_wait = True
        self.infos = []
        saves = self.query_one("#saves", OptionList)
        saves.clear_options()
        saves.focus()
        self._note(f"Reading the saves in {self.folder}...")
        self._read_saves()

    def _note(self, text: str) -> None:
        self.query_one("#load-note", Static).update(Text(text))

    @work(thread=True, exclusive=True, group="load-saves")
    def _read_saves(self) -> None:
        """Each save's line, posted in batches as they are read (newest first)."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        batch: list[SaveInfo] = []
        sent = time.monotonic()
        try:
            for info in self.store.infos():
                if worker.is_cancelled:
                    return
                batch.append(info)
                if time.monotonic() - sent > 0.1:
                    self.app.call_from_thread(self._add, batch, False)
                    batch, sent = [], time.monotonic()
        except SaveError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._add, batch, True)

    def _add(self, batch: list[SaveInfo], done: bool) -> None:
        saves = self.query_one("#saves", OptionList)
        first = not self.infos
        self.infos.extend(batch)
        saves.add_options(Option(describe(i), id=i.name) for i in batch)
        kept = next((n for n, i in enumerate(self.infos) if i.name == self._keep), None)
        if kept is not None:
            saves.highlighted, self._keep = kept, None
        elif first and self.infos:
            saves.highlighted = 0
        if done or (self.infos and self._keep is None):
            self._keys_go()
        if done:
            self._note(f"Enter open, d delete, r rename. Folder: {self.folder}" if self.infos
                       else f"No saved games yet: games are saved after every play, in {self.folder}")
        else:
            self._note(f"Reading the saves... {len(self.infos)} so far")

    def _failed(self, problem: str) -> None:
        self._note(problem)
        self._keys_go()

    def _current(self) -> SaveInfo | None:
        index = self.query_one("#saves", OptionList).highlighted
        return self.infos[index] if index is not None and index < len(self.infos) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        info = self._current()
        if info is None:
            return
        if info.damaged:
            bak = ", or b to put back its previous version (.bak)" if info.has_bak else ""
            self.query_one("#load-note", Static).update(
                f"[b]{_safe(info.name)} cannot be opened:[/b] {_safe(info.damaged)}. Press d to delete it{bak}.")
            self.app.bell()
            return
        self.app.post_message(ResumeGame(info.name, replace_screen=True))

    def on_resume_failed(self, message: ResumeFailed) -> None:
        self.reload()  # found damaged when opened: the list now says so

    def action_delete(self) -> None:
        info = self._current()
        if info is None:
            return

        def done(choice: str | None) -> None:
            if choice != "delete":
                return
            at = self.infos.index(info) if info in self.infos else 0
            after = [i.name for i in self.infos[at + 1:at + 2] + self.infos[max(0, at - 1):at]]
            try:
                self.store.delete(info.name)
                keep = after[0] if after else None  # the save that took its place
            except SaveError as exc:
                self.notify(str(exc), severity="error", markup=False)
                keep = info.name
            self.reload(keep=keep)

        self.app.push_screen(_Notice(f"Delete {visible(info.name)}?", "The save is removed from disk. This cannot be undone.",
                                     (("keep", "Keep it"), ("delete", "Delete")), asked=True), done)

    def action_restore(self) -> None:
        """A damaged save's previous version (.bak) put back; the damaged one is kept beside it."""
        info = self._current()
        if info is None or not info.damaged or not info.has_bak:
            return
        try:
            kept, journal = self.store.restore(info.name)
        except SaveError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.notify(f"{info.name!r} is back at its previous version{restored_kept(kept, journal)}.",
                    timeout=8, markup=False)
        self.reload(keep=info.name)

    def action_rename(self) -> None:
        info = self._current()
        if info is None:
            return

        def rename(name: str) -> str | None:
            if name == info.name:
                return None
            try:
                self.store.rename(info.name, name)
                problem = None
            except SaveError as exc:
                problem = str(exc)  # (shown in the dialog, which stays open for another name)
            self.reload(keep=info.name if problem else name)  # the list as it is now, behind the dialog
            return problem

        # a file named as no save is (b"bad\xff.toml", a newline in it): a save name like it is offered
        offered = name_for(info.name) if misnamed(info.name) else info.name
        self.app.push_screen(NameScreen(f"Rename {visible(info.name)}", offered, "Rename", act=rename))
