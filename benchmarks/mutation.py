"""Mutation testing of the code that guards players (issue 25): small deliberate bugs (mutants)
planted by mutmut in each module, each run against only the tests that matter for that module.
A mutant no test kills is a behaviour no test pins: kill it with a test, or explain in
docs/testing.md why it is equivalent (it cannot change what a player sees or keeps).

    python benchmarks/mutation.py                    # every group, one after another
    python benchmarks/mutation.py store-journal tui-bust-guard   # some groups
    python benchmarks/mutation.py --list             # the groups, their code and their tests
    python benchmarks/mutation.py --show             # also print each survivor's diff

Each group runs in a copy of the package and tests under --work (default: a folder in the
temporary directory, kept for `mutmut show NAME` / `mutmut browse` there), never in the
checkout: mutmut writes a mutants/ tree next to the code it mutates. Not part of the pytest
suite (it runs the suite's tests hundreds of times): one full run takes well under an hour on
two cores (docs/testing.md has the figures).

Prints, per group: mutants, killed, survived, no tests (code no selected test runs), timeouts,
and the wall time; the load average before and after. Exit 1 if a mutant survived.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Group:
    name: str
    path: str  # the module mutated, from the repository root
    tests: list[str]  # test files or node ids: only these run (stats collection and each mutant)
    only: list[str] = field(default_factory=list)  # functions ("f") or methods ("Class.m"); empty: all

    @property
    def module(self) -> str:
        return self.path.removesuffix(".py").replace("/", ".")

    def patterns(self) -> list[str]:
        """mutmut's names for the mutants of ``only`` (x_FUNC__mutmut_N, xǁCLASSǁMETHOD__mutmut_N)."""
        out = []
        for name in self.only:
            cls, _, fn = name.rpartition(".")
            out.append(f"{self.module}.xǁ{cls}ǁ{fn}__mutmut_*" if cls else f"{self.module}.x_{fn}__mutmut_*")
        return out


GROUPS = [
    Group("store-journal", "ono99_tui/store/journal.py",
          ["tests/test_guards_store.py", "tests/test_journal_check.py",
           "tests/test_saves_faults.py::test_a_journal_from_before_the_last_write_is_ignored",
           "tests/test_saves_faults.py::test_a_line_cut_short_in_the_journal_loses_only_that_play"]),
    Group("store-lock", "ono99_tui/store/lock.py",
          ["tests/test_guards_store.py", "tests/test_guards_lock.py", "tests/test_store_races.py",
           "tests/test_store_links.py",
           "tests/test_saves.py::test_a_lock_held_by_a_live_process_keeps_others_out_and_a_stale_one_is_taken_over",
           "tests/test_saves_faults.py::test_only_one_of_many_simultaneous_openers_gets_the_lock"]),
    Group("store-atomic", "ono99_tui/store/atomic.py",
          ["tests/test_guards_atomic.py", "tests/test_store_links.py", "tests/test_crash_steps.py",
           "tests/test_saves.py"]),
    Group("table-redact", "ono99_tui/table/redact.py",
          ["tests/test_net_privacy.py", "tests/test_table_session.py", "tests/test_guards_table.py"]),
    Group("table-session", "ono99_tui/table/session.py",
          ["tests/test_table_session.py", "tests/test_guards_table.py", "tests/test_guards_net.py"],
          ["TableSession.submit", "TableSession.next_step", "TableSession.may_undo",
           "TableSession._last_play_this_round", "TableSession.undo", "TableSession.bot_job"]),
    Group("engine-legal", "ono99_tui/engine/legal.py",
          ["tests/test_guards_rules.py", "tests/test_rules_r4_r7.py", "tests/test_rules_r1_r3.py",
           "tests/test_engine_properties.py"]),
    Group("net-server-moves", "ono99_tui/net/server.py",
          ["tests/test_guards_net.py", "tests/test_net_play.py"],
          ["Server._on_play", "Server._submit_quietly"]),
    Group("tui-bust-guard", "ono99_tui/tui/screens/game.py",
          ["tests/test_guards_screen.py",
           "tests/test_table_screen.py::test_a_busting_card_asks_once_when_a_safe_card_exists",
           "tests/test_table_screen.py::test_a_card_keeps_its_number_and_a_drawn_card_takes_the_freed_slot",
           "tests/test_playtest_80x24.py::test_a_drawn_duplicate_goes_into_the_freed_slot_marked_new",
           "tests/test_guards_remote.py"],
          ["GameScreen._choose"]),
    Group("tui-hand-bust", "ono99_tui/tui/widgets/hand.py",
          ["tests/test_guards_screen.py",
           "tests/test_table_screen.py::test_a_busting_card_asks_once_when_a_safe_card_exists"],
          ["busts", "HandPane.has_safe_card", "HandPane.best_focus"]),
    Group("store-settings-edit", "ono99_tui/store/settings.py",
          ["tests/test_settings_files.py"],
          ["save_settings", "edit_settings_text"]),
    Group("store-toml-edit", "ono99_tui/store/toml_edit.py",
          ["tests/test_settings_files.py", "tests/test_toml_edit.py"]),
    Group("engine-round-end", "ono99_tui/engine/describe.py",
          ["tests/test_round_end_seats.py"],
          ["seats_at_round_end"]),
    Group("net-protocol", "ono99_tui/net/protocol.py",
          ["tests/test_net_protocol.py", "tests/test_guards_protocol.py",
           "tests/test_net_hostile_server.py::test_a_message_the_client_cannot_read_is_refused_as_it_is_read",
           "tests/test_net_hostile_server.py::test_what_a_real_server_sends_is_read",
           "tests/test_net_hostile_server.py::test_a_state_without_rules_before_any_with_them_is_refused_as_it_is_read",
           "tests/test_net_hostile_server.py::test_a_view_that_cannot_be_is_refused_by_view_from_dict_too",
           "tests/test_net_fuzz.py::test_junk_gets_one_error_each_to_its_sender_and_the_connection_stays_served"],
          ["encode", "decode", "parse", "_type_name", "_check_fields", "_name", "_check", "_seats", "_check_view",
           "view_from_dict", "LineBuffer.feed"]),
    Group("table-seats", "ono99_tui/table/seats.py",
          ["tests/test_guards_seats.py", "tests/test_table_session.py::test_seats_are_checked_in_one_place",
           "tests/test_table_session.py::test_bots_play_the_same_game_whichever_front_end_drives_them",
           "tests/test_hostile_inputs.py::test_a_player_named_like_a_bot_keeps_the_name_and_the_bots_take_others"]),
    Group("text-safety", "ono99_tui/text.py",
          ["tests/test_guards_text.py", "tests/test_hostile_inputs.py::test_visible_shows_control_characters_as_escapes",
           "tests/test_hostile_inputs.py::test_a_long_value_is_echoed_cut_short",
           "tests/test_markup_as_text.py::test_for_markup_keeps_any_text_as_is",
           "tests/test_markup_as_text.py::test_a_file_name_that_is_not_utf8_is_shown_as_escapes_of_its_width"],
          ["_escape", "shell_word", "counted", "visible", "shorten", "quoted", "for_markup", "sentence"]),
    Group("store-saves-names", "ono99_tui/store/saves.py",
          ["tests/test_guards_saves.py", "tests/test_saves.py", "tests/test_saves_faults.py", "tests/test_store_links.py",
           "tests/test_journal_check.py::test_a_damaged_save_offers_its_bak_and_saves_restore_puts_it_back",
           "tests/test_journal_check.py::test_saves_restore_reads_no_bak_through_a_link",
           "tests/test_journal_check.py::test_saves_restore_keeps_the_replaced_saves_journal_aside_and_leaves_a_save_that_checks",
           "tests/test_journal_check.py::test_saves_restore_with_any_bak_leaves_one_whole_save_and_names_real_things",
           "tests/test_journal_check.py::test_a_damaged_journal_is_not_offered_the_bak_that_holds_fewer_plays"],
          ["check_name", "_name_ok", "misnamed", "name_for", "restored_kept", "_regular",
           "SaveStore.path", "SaveStore.file_of", "SaveStore.restore", "SaveStore._same_game", "SaveStore.delete",
           "SaveStore._locked", "SaveStore.delete_owned"]),
]


def mutmut_config(group: Group) -> str:
    tests = ", ".join(json.dumps(t) for t in group.tests)
    return (f"\n[tool.mutmut]\nsource_paths = [\"ono99_tui\"]\nonly_mutate = [{json.dumps(group.path)}]\n"
            f"also_copy = [\"themes\"]\npytest_add_cli_args_test_selection = [{tests}]\n"
            "pytest_add_cli_args = [\"-p\", \"no:cacheprovider\", \"-p\", \"no:randomly\"]\n")


def prepare(group: Group, work: Path) -> Path:
    """A copy of the package, themes and tests with this group's mutmut settings."""
    where = work / group.name
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for part in ("ono99_tui", "themes", "tests"):
        shutil.copytree(ROOT / part, where / part, ignore=ignore)
    text = (ROOT / "pyproject.toml").read_text()
    if "[tool.mutmut]" in text:
        raise SystemExit("pyproject.toml has a [tool.mutmut] table: this script writes its own per group")
    (where / "pyproject.toml").write_text(text + mutmut_config(group))
    return where


def results(group: Group, where: Path) -> dict[str, str]:
    """mutant name -> status (killed, survived, no tests, timeout, ...), this group's only."""
    from fnmatch import fnmatch

    from mutmut.stats import status_by_exit_code

    meta = json.loads((where / "mutants" / (group.path + ".meta")).read_text())
    patterns = group.patterns()
    return {k: status_by_exit_code[v] for k, v in meta["exit_code_by_key"].items()
            if not patterns or any(fnmatch(k, p) for p in patterns)}


def run_group(group: Group, work: Path, children: int) -> tuple[dict[str, str], float]:
    where = prepare(group, work)
    start = time.monotonic()
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children), *group.patterns()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "ONO99_"))}
    with open(where / "mutmut.log", "w") as out:
        code = subprocess.call(cmd, cwd=where, stdout=out, stderr=subprocess.STDOUT, env=env)
    took = time.monotonic() - start
    if code != 0:
        tail = (where / "mutmut.log").read_text(errors="replace")[-3000:]
        raise SystemExit(f"mutmut failed for {group.name} (exit {code}); {where / 'mutmut.log'} ends:\n{tail}")
    return results(group, where), took


def show(where: Path, name: str) -> str:
    return subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=where,
                          capture_output=True, text=True).stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("groups", nargs="*", help="group names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the groups and exit")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "ono99-mutation")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once")
    parser.add_argument("--show", action="store_true", help="print each survivor's diff")
    args = parser.parse_args(argv)
    if args.list:
        for g in GROUPS:
            print(f"{g.name}: {g.path}{' (' + ', '.join(g.only) + ')' if g.only else ''}")
            for t in g.tests:
                print(f"    {t}")
        return 0
    known = {g.name: g for g in GROUPS}
    unknown = [n for n in args.groups if n not in known]
    if unknown:
        print(f"unknown group(s) {', '.join(unknown)}; the groups: {', '.join(known)}", file=sys.stderr)
        return 2
    chosen = [known[n] for n in args.groups] or GROUPS
    print(f"load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}; work in {args.work}")
    rows, survivors = [], []
    for group in chosen:
        status, took = run_group(group, args.work, args.children)
        counts = {s: list(status.values()).count(s) for s in set(status.values())}
        rows.append((group, len(status), counts, took))
        survivors += [(group, k) for k, s in sorted(status.items()) if s not in ("killed", "timeout")]
        print(f"  {group.name}: {len(status)} mutants, {counts.get('killed', 0)} killed, "
              f"{counts.get('survived', 0)} survived, {took:.0f} s", flush=True)
    print()
    print(f"{'group':<18} {'module':<34} {'mutants':>7} {'killed':>7} {'survived':>8} {'no tests':>8} "
          f"{'timeout':>7} {'time':>7}")
    for group, n, counts, took in rows:
        print(f"{group.name:<18} {group.path.removeprefix('ono99_tui/'):<34} {n:>7} {counts.get('killed', 0):>7} "
              f"{counts.get('survived', 0):>8} {counts.get('no tests', 0):>8} {counts.get('timeout', 0):>7} "
              f"{took:>6.0f}s")
    total = sum(r[3] for r in rows)
    print(f"{'all':<18} {'':<34} {sum(r[1] for r in rows):>7} "
          f"{sum(r[2].get('killed', 0) for r in rows):>7} {sum(r[2].get('survived', 0) for r in rows):>8} "
          f"{sum(r[2].get('no tests', 0) for r in rows):>8} {sum(r[2].get('timeout', 0) for r in rows):>7} "
          f"{total:>6.0f}s")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if survivors:
        print("\nnot killed (see docs/testing.md for the ones explained as equivalent):")
        for group, name in survivors:
            print(f"  {name}")
            if args.show:
                print("    " + show(args.work / group.name, name).replace("\n", "\n    "))
    return 1 if any(r[2].get("survived") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
