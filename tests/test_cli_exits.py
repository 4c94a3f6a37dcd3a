"""Every command exits cleanly on the inputs of issue 20 (items 8-11) and issue 19's smaller CLI
things: real `ono99` processes, a traceback is always a failure (tests/cli.py)."""

import json
import os
import random
import resource
import signal
import subprocess
import sys
import time

import pytest

from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.stats import record_game
from tests.cli import ono99
from tests.steps import mid_round_save

AGREE = '[dealer]\nfirst = "agree"\n'
WIDE = [SeatSpec("王小明"), SeatSpec("Zoë", "bot:easy"), SeatSpec("Bo", "bot:medium")]


def test_agree_rules_pass_check_and_simulate_and_compare_run(tmp_path):
    rules = tmp_path / "agree.toml"
    rules.write_text(AGREE)
    assert ono99("rules", "check", str(rules)).returncode == 0
    proc = ono99("simulate", "--bots", "easy,medium", "--games", "4", "--rules", str(rules))
    assert proc.returncode == 0, proc.stderr
    assert 'dealer.first = "agree"' in proc.stdout and "first seat deals first" in proc.stdout
    proc = ono99("rules", "compare", "standard", str(rules), "--games", "4", "--bots", "easy,easy")
    assert proc.returncode == 0, proc.stderr
    assert "first seat deals first" in proc.stdout


def test_records_into_proc_self_is_one_message_and_exit_2():
    proc = ono99("simulate", "--bots", "easy,medium", "--games", "2", "--records", "/proc/self")
    assert proc.returncode == 2
    assert proc.stderr.startswith("ono99: --records: cannot write") and proc.stderr.count("\n") == 1, proc.stderr


def test_records_on_a_full_disk_leave_no_half_written_file(tmp_path):
    """A file-size limit stands in for a full disk: the first record write fails mid-file."""
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    out = tmp_path / "records"
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", "simulate", "--bots", "easy,medium", "--games", "4",
                           "--records", str(out)], capture_output=True, text=True, preexec_fn=small_files, timeout=120)
    assert "Traceback" not in proc.stderr and proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "cannot write" in proc.stderr
    assert list(out.iterdir()) == []  # neither a 0-byte record nor a temp file


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "latin-1"},
                                 {"LC_ALL": "POSIX", "LANG": "", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
                                  "PYTHONIOENCODING": ""}],
                         ids=["latin-1", "posix"])
def test_non_ascii_names_on_a_stdout_that_is_not_utf8(tmp_path, env):
    g = Game([s.name for s in WIDE], DEFAULT, 5)
    rng = random.Random(5)
    while not g.over:
        g.play(rng.choice(g.legal_plays()))
    record = tmp_path / "wide.toml"
    record.write_text(Record.from_game(g, WIDE, {"name": "wide"}).to_toml())
    record_game(g, WIDE)
    run_env = {**os.environ, **env}
    for args in (["replay", str(record)], ["saves", "import", str(record)], ["saves", "list"], ["stats"]):
        proc = subprocess.run([sys.executable, "-m", "ono99_tui", *args], capture_output=True, env=run_env, timeout=120)
        err = proc.stderr.decode("ascii", "replace")
        assert proc.returncode == 0 and "Traceback" not in err, (args, err)
        if "import" not in args:  # (which names no player)
            assert b"\\u738b" in proc.stdout, args  # 王, which the stream cannot encode, escaped


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_a_huge_games_count_streams_in_bounded_memory():
    proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", "simulate", "--bots", "random,random", "--games",
                             "10000000", "--jobs", "2", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        peak = 0
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()  # still playing, not dead of MemoryError
            peak = max(peak, _rss_kb(proc.pid))
            time.sleep(0.2)
        assert peak < 200_000, f"{peak} KB after 6 s"  # (building every batch first: over 600 MB by then)
    finally:
        proc.kill()
        proc.wait()


def test_jobs_are_capped_at_the_cpus_and_the_batches():
    proc = ono99("simulate", "--bots", "easy,easy", "--games", "2", "--jobs", "1000", "--json")
    assert proc.returncode == 0, proc.stderr
    jobs = json.loads(proc.stdout)["jobs"]
    assert 1 <= jobs <= min(os.cpu_count() or 1, 2)


def test_replay_takes_a_saves_name_and_its_journal(private_dirs):
    store = SaveStore()
    acknowledged = mid_round_save(store)
    for spec in ("friday", str(store.path("friday"))):
        proc = ono99("replay", spec, "--json")
        assert proc.returncode == 0, proc.stderr
        plays = [e for e in json.loads(proc.stdout)["events"] if e["type"] == "play"]
        assert len(plays) == acknowledged  # the journal's plays too, not a round behind
    proc = ono99("replay", "no such save")
    assert proc.returncode == 2 and "no record file or save named" in proc.stderr


def test_rules_check_points_a_key_in_the_wrong_table_to_where_it_belongs(tmp_path):
    rules = tmp_path / "typo.toml"
    rules.write_text("[ninety_nine_card]\nhand_sise = 5\n")
    proc = ono99("rules", "check", str(rules))
    assert proc.returncode == 2 and 'did you mean "hand_size"' in proc.stderr and "top level" in proc.stderr


def test_simulate_says_when_levels_cannot_be_told_apart():
    proc = ono99("simulate", "--bots", "easy,medium", "--games", "20")
    assert proc.returncode == 0, proc.stderr
    assert "Cannot be told apart at 20 games: easy and medium" in proc.stdout
    # (easy, not hard, against random: as plain a difference, in a second rather than minutes of CPU)
    proc = ono99("simulate", "--bots", "random,easy", "--games", "40", "--json")
    assert json.loads(proc.stdout)["cannot_tell_apart"] == []  # easy beats random plainly (38 of 40)


def _like_a_shell() -> None:
    """In the child: Ctrl+C as an interactive shell starts a command (caught by default, not
    blocked), whatever the test process inherited or was left with by another test."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _signals_of(pid: int) -> str:
    """How a process treats signals (/proc), for a failure message."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return " ".join(ln.strip() for ln in fh if ln.startswith(("SigBlk", "SigIgn", "SigCgt")))
    except OSError:
        return "(gone)"


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


def _interrupt_simulation(bots: str, workers: int, settle: float) -> tuple[int, str]:
    """Start ``simulate --jobs 2`` as a user would, send Ctrl+C to its process group once
    ``workers`` workers exist and ``settle`` seconds more have passed; (exit code, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", "simulate", "--bots", bots, "--games",
                             "10000000", "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_like_a_shell)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < workers:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
        time.sleep(settle)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"no exit 60 s after Ctrl+C; {_signals_of(proc.pid)}") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, err.decode("utf-8", "replace")


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"), reason="reads /proc")
def test_ctrl_c_as_the_workers_start_neither_hangs_nor_prints_a_traceback():
    """A Ctrl+C that lands between a worker's fork and the line that makes it ignore Ctrl+C used
    to kill that worker mid-start (a traceback) or while it held the pool's task-queue lock, and
    the parent then waited for that lock for ever (10 of 20 tries; CI met it under load). The
    interrupt is sent the moment the first worker exists, several times."""
    for _ in range(8):
        code, text = _interrupt_simulation("medium,medium", workers=1, settle=0)
        assert code == 130 and text.strip() == "ono99: interrupted", text


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"), reason="reads /proc")
def test_ctrl_c_during_a_simulation_with_workers_is_one_line_no_traceback():
    """Ctrl+C reaches the whole process group: each worker used to print a KeyboardInterrupt
    traceback of its own under the parent's "interrupted". (Sent inside a game, where the
    interrupt used to land.)"""
    code, text = _interrupt_simulation("hard,hard", workers=2, settle=0.5)
    assert code == 130 and "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert text.strip() == "ono99: interrupted", text


def test_a_name_or_password_that_starts_with_a_dash_is_taken_as_given():
    from ono99_tui.cli import _dash_values, build_parser

    # (argparse's parser internals are what _dash_values reads: this fails if they move)
    assert _dash_values(build_parser(), ["join", "h", "--name", "-dash", "--password", "-pw"]) == \
        ["join", "h", "--name=-dash", "--password=-pw"]
    proc = ono99("join", "127.0.0.1:1", "--name", "-dash", "--password", "--x-")
    assert proc.returncode == 2 and proc.stderr.startswith("ono99: cannot connect to 127.0.0.1:1"), proc.stderr
    # a forgotten value before another option still says what is missing, not "a name --plain"
    proc = ono99("join", "127.0.0.1:1", "--name", "--plain")
    assert proc.returncode == 2 and "argument --name: expected one argument" in proc.stderr
    # and after "--" nothing is rewritten, nor is "--" ever taken as a value (argparse: a list)
    assert _dash_values(build_parser(), ["join", "--", "--name", "-x"]) == ["join", "--", "--name", "-x"]
    proc = ono99("join", "127.0.0.1:1", "--name", "--")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    # an option of another command is no option here: `serve -v` does not make join's "-v" one
    assert _dash_values(build_parser(), ["join", "h", "--name", "-v"]) == ["join", "h", "--name=-v"]
    assert _dash_values(build_parser(), ["host", "--name", "-v"]) == ["host", "--name=-v"]  # (host has no -v)


def test_the_game_screen_without_a_terminal_is_one_line_pointing_at_plain():
    """A stranger's find: `ono99` with its input piped (a script, a here-string) ran the screen
    blind: escape codes on stderr, keys read as garbage, a crash in a screen. One line instead."""
    for args in ([], ["--ascii"], ["host", "--port", "0", "--no-save"]):
        proc = ono99(*args, input="g\n1\n")
        assert proc.returncode == 2, proc.stderr[-500:]
        assert proc.stderr.strip().splitlines() == [
            "ono99: the game screen needs a terminal, and standard input and output are not one: add --plain "
            "for the game in lines of text (for pipes and screen readers)"]
    assert "\x1b[" not in proc.stderr and proc.stdout == ""


def test_host_with_v_says_where_the_servers_log_is_shown_and_other_unknown_options_stay_plain():
    """A stranger's find: `ono99 host -v` (serve and web have -v) said only "unrecognized
    arguments: -v". It now says where the server's log is shown; nothing else changes."""
    hint = " (ono99 host has no -v: ono99 serve -v or ono99 web -v show the server's log)"
    for args in (["host", "-v"], ["host", "--plain", "--verbose"], ["--plain", "host", "--port", "0", "-v"]):
        proc = ono99(*args)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.startswith("usage: ono99 host "), proc.stderr
        word = args[-1]
        assert proc.stderr.splitlines()[-1] == f"ono99 host: error: unrecognized arguments: {word}{hint}"
    for args in (["host", "--bogus"], ["serve", "--port", "0", "--bogus"], ["join", "h", "--name", "A", "-v"]):
        proc = ono99(*args)
        assert proc.returncode == 2 and "(ono99 host has no -v" not in proc.stderr, proc.stderr
        assert proc.stderr.splitlines()[-1] == f"ono99 {args[0]}: error: unrecognized arguments: {args[-1]}", \
            proc.stderr


def test_a_file_name_that_starts_with_a_dash_is_said_to_have_been_read_as_an_option(tmp_path):
    # a stranger's `rules check -x.toml` was told "the following arguments are required: FILE"
    (tmp_path / "-x.toml").write_text("target = 50\n")
    for args, said in ((("rules", "check", "-x.toml"), "the following arguments are required: FILE"),
                       (("rules", "show", "-x.toml"), "unrecognized arguments: -x.toml")):
        proc = ono99(*args, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.splitlines()[-1].endswith(
            f"{said} (-x.toml starts with -, so it was read as an option: write it as ./-x.toml)"), proc.stderr
    assert ono99("rules", "check", "./-x.toml", cwd=tmp_path).returncode == 0
    proc = ono99("rules", "check", "--nonesuch", cwd=tmp_path)  # no such file: no hint
    assert proc.returncode == 2 and "starts with -" not in proc.stderr


def test_a_number_option_given_a_word_says_what_is_wanted_in_words():
    # argparse said Python's words: "argument --games: invalid int value: 'x'"; then its own usage
    # block of up to ten lines above "argument --web-per-address: 'lots' is not a whole number"
    for args, said in ((("simulate", "--bots", "easy,medium", "--games", "x"), "--games must be a whole number, got 'x'"),
                       (("serve", "--turn-timer", "soon"), "--turn-timer must be 0 to 86400 seconds, got 'soon'"),
                       (("serve", "--port", "x"), "--port must be a whole number from 0 to 65535, got 'x'"),
                       (("web", "--web-per-address", "lots"), "--web-per-address must be a whole number from 1 to 65535, "
                                                              "got 'lots'")):
        proc = ono99(*args)
        assert proc.returncode == 2 and proc.stdout == "" and proc.stderr == f"ono99: {said}\n", proc.stderr


def _number_options() -> list[tuple[list[str], str]]:
    """(the command's words, the option) for every option of every command that takes a number
    (its metavar says so: N, S, P or J)."""
    import argparse

    from ono99_tui.cli import build_parser

    found = []

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])
            elif action.option_strings and action.metavar in ("N", "S", "P", "J"):
                found.append((words, action.option_strings[-1]))

    walk(build_parser(), [])
    return found


def test_every_number_option_of_every_command_given_a_word_is_one_line_naming_it(capsys):
    """`ono99 serve --port x` and `ono99 web --web-per-address lots` printed argparse's usage block,
    the error last; every number option, of every command, now says in one line which option and
    what it takes, exit 2."""
    from ono99_tui.cli import main

    options = _number_options()
    assert len(options) >= 40 and (["web"], "--web-per-address") in options and (["join"], "--table") in options
    for words, option in options:
        for word, shown in (("lots", "'lots'"), ("1.5x", "'1.5x'"), ("", "''"), ("\x1b[2J", "'\\x1b[2J'")):
            with pytest.raises(SystemExit) as exited:
                main([*words, option, word])
            err = capsys.readouterr().err
            assert exited.value.code == 2 and err.count("\n") == 1 and "usage" not in err, (words, option, err)
            assert err.startswith(f"ono99: {option} must be ") and err.endswith(f", got {shown}\n"), err
            assert "whole number" in err or "seconds" in err or "table number" in err, err


def test_every_number_option_of_the_servers_and_their_clients_has_an_upper_bound_it_says(capsys):
    """`ono99 web --web-per-address 1000000000000` was taken (and --max-tables, --per-address,
    --lobby-timeout... had no upper bound either). Every number option of serve, serve-ssh, web,
    host, join and watch now has a range: past it, one line saying the range, exit 2; the most it
    says is taken."""
    import re

    from ono99_tui.cli import build_parser

    needs = {"join": ["h", "--name", "A"], "watch": ["h"]}
    options = [(w, o) for w, o in _number_options() if w[0] in ("serve", "serve-ssh", "web", "host", "join", "watch")]
    assert len(options) >= 30
    for words, option in options:
        command = [*words, *needs.get(words[0], [])]
        with pytest.raises(SystemExit) as exited:  # (read only: nothing is started)
            build_parser().parse_known_args([*command, option, "1000000000000"])
        err = capsys.readouterr().err
        assert exited.value.code == 2 and err.count("\n") == 1 and err.endswith(", got 1000000000000\n"), err
        if option == "--table":  # (a table number: the server gives them, up to 2**31 - 1)
            continue
        most = re.search(r" to (\d+)(?: seconds)?, got", err)
        assert most and int(most[1]) < 10**7, (option, err)
        args, _ = build_parser().parse_known_args([*command, option, most[1]])
        assert getattr(args, option[2:].replace("-", "_")) == int(most[1]), (option, err)
    proc = ono99("web", "--web-per-address", "1000000000000")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr == \
        "ono99: --web-per-address must be a whole number from 1 to 65535, got 1000000000000\n", proc.stderr


def test_saves_take_empty_names_as_nothing_and_export_to_dash_writes_standard_output(private_dirs, tmp_path):
    store = SaveStore()
    mid_round_save(store)
    for args in (("replay", ""), ("resume", ""), ("saves", "import", ""), ("saves", "export", "friday", "")):
        proc = ono99(*args, cwd=tmp_path, input="")
        assert proc.returncode == 2 and "an empty name names nothing: give a name" in proc.stderr, (args, proc)
    proc = ono99("saves", "export", "friday", "-", cwd=tmp_path)
    assert proc.returncode == 0 and not (tmp_path / "-").exists()
    assert Record.loads(proc.stdout, "-").names == store.load("friday").names


def test_saves_import_dash_reads_the_record_piped_to_it(private_dirs, tmp_path):
    # `saves export NAME - | ssh other ono99 saves import -` read a file named "-"
    from tests.cli import on_a_pty

    store = SaveStore()
    mid_round_save(store)
    record = ono99("saves", "export", "friday", "-", cwd=tmp_path).stdout
    proc = ono99("saves", "import", "-", cwd=tmp_path, input=record)
    assert proc.returncode == 0 and proc.stderr == "", proc
    assert proc.stdout == "Imported the record from standard input as 'friday 2' " \
                          "(a save named 'friday' already exists).\n"
    assert store.load("friday 2").names == store.load("friday").names and not (tmp_path / "-").exists()
    for piped, said in (("not a record\n", "ono99: standard input"),
                        ("x" * (8 * 1024 * 1024 + 1), "ono99: standard input: the record to import is too large")):
        proc = ono99("saves", "import", "-", cwd=tmp_path, input=piped)
        assert proc.returncode == 2 and proc.stderr.startswith(said) and len(proc.stderr.splitlines()) == 1, proc
    # typed at a terminal, it would wait for a record typed by hand: said at once instead
    status, said = on_a_pty([sys.executable, "-m", "ono99_tui", "saves", "import", "-"])
    assert status == 2 and "standard input is a terminal; pipe one in" in said, said
    assert sorted(store.names()) == ["friday", "friday 2"]
    closed = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "import", "-"], capture_output=True,
                            text=True, timeout=60, preexec_fn=lambda: os.close(0))  # (<&-: not "a terminal")
    assert closed.returncode == 2 and "standard input is closed" in closed.stderr, closed.stderr


def test_export_into_a_folder_that_is_not_there_is_refused_and_makes_none(private_dirs, tmp_path):
    # a stranger's mistyped folder was made, with every folder above it, without a word
    store = SaveStore()
    mid_round_save(store)
    proc = ono99("saves", "export", "friday", str(tmp_path / "ex" / "nodir" / "x.toml"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"ono99: cannot write {tmp_path / 'ex' / 'nodir' / 'x.toml'}: there is no folder " \
                          f"{tmp_path / 'ex' / 'nodir'}\n"
    assert not (tmp_path / "ex").exists()
    assert ono99("saves", "export", "friday", str(tmp_path / "x.toml")).returncode == 0
    assert Record.loads((tmp_path / "x.toml").read_text(), "x").names == store.load("friday").names


def test_server_times_that_are_not_numbers_of_seconds_are_refused_before_it_listens():
    # `serve --bot-delay nan` started; `host --bot-delay inf` left the bots' turns waiting for good;
    # `serve --bind ''` said "serving on  without --password" and listened
    for args, said in ((("serve", "--bot-delay", "nan"), "--bot-delay must be 0 to 60 seconds, got nan"),
                       (("host", "--plain", "--bot-delay", "inf"), "--bot-delay must be 0 to 60 seconds, got inf"),
                       (("serve", "--turn-timer", "nan"), "--turn-timer must be 0 to 86400 seconds, got nan"),
                       (("serve", "--turn-timer", "inf"), "--turn-timer must be 0 to 86400 seconds, got inf"),
                       (("serve", "--bind", ""), "--bind needs an address")):
        proc = ono99(*args, "--port", "0", timeout=60, input="")
        assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.startswith(f"ono99: {said}"), (args, proc)


def test_output_that_cannot_be_written_is_one_line_and_a_checker_keeps_its_status_when_its_reader_leaves(tmp_path):
    # `stats > /dev/full` and `stats >&-` ended in tracebacks (exit 1); `rules check ok.toml
    # bad.toml | true` exited 0, a bad file passed for good in a pipefail script
    import subprocess

    (tmp_path / "ok.toml").write_text("target = 50\n")
    (tmp_path / "bad.toml").write_text("targt = 50\n")
    run = [sys.executable, "-m", "ono99_tui"]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*run, "rules", "list"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr == "ono99: cannot write to standard output: No space left on device\n"
    proc = subprocess.run([*run, "rules", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=60, preexec_fn=lambda: os.close(1))  # (>&-)
    assert proc.returncode == 2 and proc.stderr.startswith("ono99: standard output is closed;"), proc.stderr
    for args, status in ((["rules", "check", "ok.toml", "bad.toml"], 2), (["rules", "show", "standard"], 0)):
        reader = subprocess.Popen([*run, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
        reader.stdout.close()  # (| true: the reader has gone before a word was read)
        err = reader.stderr.read().decode()
        assert reader.wait(60) == status and "Traceback" not in err and "BrokenPipe" not in err, (args, err)


def test_a_tilde_left_in_the_data_folder_variable_is_the_home_folder(tmp_path):
    # ONO99_DATA_DIR='~/d' made a folder named "~" in the current folder
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), ONO99_DATA_DIR="~/d", ONO99_CONFIG_DIR="~/c")
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "list"], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60)
    assert proc.returncode == 0 and f"No saved games in {home / 'd' / 'saves'}." in proc.stdout, proc
    assert not (tmp_path / "~").exists()


def test_replay_compact_without_json_is_refused_not_dropped(private_dirs):
    # `replay FILE --compact` printed the replay in words, --compact dropped in silence
    store = SaveStore()
    mid_round_save(store)
    proc = ono99("replay", "friday", "--compact")
    assert proc.returncode == 2 and proc.stdout == "" and "--compact goes with --json" in proc.stderr, proc
    assert ono99("replay", "friday", "--compact", "--json").returncode == 0


def test_a_word_a_command_does_not_take_shows_that_commands_usage(private_dirs):
    """`ono99 saves list extra` and `ono99 stats --json` printed ono99's own usage, which says
    nothing of the command that was given."""
    for words, usage in [(["saves", "list", "extra"], "usage: ono99 saves list"),
                         (["stats", "--json"], "usage: ono99 stats"),
                         (["rules", "show", "standard", "--x"], "usage: ono99 rules show")]:
        proc = ono99(*words)
        assert proc.returncode == 2 and proc.stderr.startswith(usage), proc.stderr
        assert proc.stderr.splitlines()[-1] == f"{usage[7:]}: error: unrecognized arguments: {words[-1]}"


def test_rules_compare_on_rules_for_fewer_seats_says_the_four_bots_are_its_default(private_dirs, tmp_path):
    """A play-tester never gave --bots and was told "--bots: 4 seats, but these rules deal to at
    most 2": which rules, and that four medium bots are the default, were left to guess."""
    tiny = tmp_path / "tiny.toml"
    tiny.write_text("hand_size = 8\n[deck]\nnumber_each = 1\nten = 2\nminus_ten = 2\nhold = 2\nreverse = 2\n"
                    "double_play = 2\nninety_nine = 0\n")
    proc = ono99("rules", "compare", "standard", str(tiny), "--games", "4")
    assert proc.returncode == 2 and proc.stderr == (
        f"ono99: --bots: 4 seats (four medium bots unless --bots says otherwise) but {tiny} deals to at most 2: "
        "give --bots with at most 2 levels\n"), proc.stderr
    proc = ono99("rules", "compare", "standard", str(tiny), "--games", "4", "--bots", "easy,easy,easy")
    assert proc.returncode == 2 and proc.stderr.startswith(f"ono99: --bots: 3 seats but {tiny} deals"), proc.stderr


def test_an_unknown_option_where_a_file_or_name_is_wanted_is_named_and_typed_words_are_shown_as_text():
    """A stranger's `ono99 rules check -rf` was told only "the following arguments are required:
    FILE", as though -rf had not been typed; and `ono99 stats ESC[31m...` echoed the ESC raw in
    "unrecognized arguments", where every other message shows it as \\x1b."""
    for args, said in ((("rules", "check", "-rf"), "rules check: error: the following arguments are required: FILE "
                        "(-rf is not an option of ono99 rules check)"),
                       (("saves", "delete", "-x"), "saves delete: error: the following arguments are required: NAME "
                        "(-x is not an option of ono99 saves delete)"),
                       (("--plain", "rules", "compare", "standard", "-q"), "rules compare: error: the following "
                        "arguments are required: B (-q is not an option of ono99 rules compare)")):
        proc = ono99(*args)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.splitlines()[-1] == f"ono99 {said}", proc.stderr
    proc = ono99("rules", "compare", "--games", "5")  # a known option: nothing added
    assert proc.returncode == 2 and "not an option" not in proc.stderr, proc.stderr
    proc = ono99("stats", "\x1b[31mred\x07")
    assert proc.returncode == 2 and "\x1b" not in proc.stderr and "\x07" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines()[-1] == "ono99 stats: error: unrecognized arguments: \\x1b[31mred\\x07"


def test_rules_show_a_save_exported_to_standard_output_and_help_on_a_full_disk_say_so_in_one_line(private_dirs):
    """`ono99 saves export NAME - > /dev/full` and `ono99 rules show > /dev/full` ended in
    tracebacks (exit 1); `ono99 --help > /dev/full` wrote nothing and exited 0."""
    mid_round_save(SaveStore())
    name = "friday"
    run = [sys.executable, "-m", "ono99_tui"]
    for args in (["saves", "export", name, "-"], ["rules", "show"], ["rules", "show", "points"], ["--help"],
                 ["--version"], ["saves", "export", "--help"]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([*run, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr == "ono99: cannot write to standard output: No space left on device\n", (args, proc.stderr)
    for args in (["saves", "export", name, "-"], ["--help"]):  # (| true: the reader gone is no error)
        reader = subprocess.Popen([*run, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        reader.stdout.close()
        err = reader.stderr.read().decode()
        assert reader.wait(60) == 0 and err == "", (args, err)


def test_a_checker_whose_messages_cannot_be_written_keeps_its_exit_status(tmp_path):
    """`ono99 rules check bad.toml 2>&1 | head -0` exited 0 (a bad file passed for good in a
    pipefail script), and `... 2> /dev/full` exited 1 with a traceback nobody could read."""
    (tmp_path / "ok.toml").write_text("target = 50\n")
    (tmp_path / "bad.toml").write_text("targt = 50\n")
    run = [sys.executable, "-m", "ono99_tui", "rules", "check"]
    for files, status in ((["bad.toml"], 2), (["ok.toml", "bad.toml"], 2), (["ok.toml"], 0)):
        reader = subprocess.Popen([*run, *files], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
        reader.stdout.close()  # (2>&1 | true: the reader has gone before a word was read)
        assert reader.wait(60) == status, files
        with open("/dev/full", "w") as full:
            proc = subprocess.run([*run, *files], stdout=subprocess.DEVNULL, stderr=full, cwd=tmp_path, timeout=60)
        assert proc.returncode == status, files


@pytest.mark.parametrize("words", [["join", "a" * 64 + ":7099", "--name", "Ann"], ["join", "a..b", "--name", "Ann"],
                                   ["join", ".x", "--name", "Ann", "--plain"], ["watch", "a" * 300],
                                   ["serve", "--bind", "a" * 64, "--port", "0"],
                                   ["serve-ssh", "--open", "--bind", "a..b", "--port", "0"]])
def test_a_host_name_the_resolver_cannot_encode_is_one_message(private_dirs, words):
    """`ono99 join` at a host name with a part over 63 characters, or an empty one (a..b, .x),
    ended in a traceback from the resolver's IDNA encoding ("label too long"), as did serve's --bind."""
    proc = ono99(*words, input="", timeout=60)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.endswith(": not a host name: each part between dots is 1 to 63 letters, digits or dashes\n")


def test_a_mistyped_command_is_told_the_command_it_likely_meant():
    """`ono99 save list`, `ono99 saves rm x` and `ono99 help` got argparse's list of choices and
    no word of which one was meant."""
    for words, typed, hint in ((["save", "list"], "save", "; did you mean ono99 saves?"),
                               (["simualte"], "simualte", "; did you mean ono99 simulate?"),
                               (["rules", "chek", "x"], "chek", "; did you mean ono99 rules check?"),
                               (["saves", "rm", "x"], "rm", "; did you mean ono99 saves delete?"),
                               (["saves", "LS"], "LS", "; did you mean ono99 saves list?"),
                               (["help"], "help", "; ono99 --help says what each does"),
                               (["rules", "help"], "help", "; ono99 rules --help says what each does")):
        proc = ono99(*words)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        last = proc.stderr.splitlines()[-1]
        assert f"invalid choice: '{typed}'" in last and last.endswith(hint), last
    proc = ono99("xyzzy")  # nothing like it: the list alone
    assert proc.returncode == 2 and proc.stderr.splitlines()[-1].endswith("'web', 'host')"), proc.stderr


def test_rules_check_dash_checks_the_rules_piped_in():
    # `cat house.toml | ono99 rules check -` said "-: cannot read the rules file: no such file"
    proc = ono99("rules", "check", "-", input="target = 50\n")
    assert proc.returncode == 0 and proc.stdout == "standard input: ok\n", proc
    proc = ono99("rules", "check", "-", input="target = 5\n")
    assert proc.returncode == 2 and proc.stderr == ("standard input: target: 5 is out of range; allowed: a whole "
                                                    "number from 10 to 999\n"), proc.stderr
    proc = ono99("rules", "check", "-", "-", input="")
    assert proc.returncode == 2 and proc.stderr == "ono99: rules check: - (standard input) can be given once\n"


def test_rules_and_ascii_given_before_a_command_are_used_by_it_or_refused_never_dropped(tmp_path):
    """`ono99 --rules points simulate ...` and `ono99 --rules points host` played standard rules,
    and `ono99 --ascii replay FILE` drew Unicode: the command's own option of that name set its
    default over the one given before it, and nothing was said. `ono99 --rules points stats`
    ignored it too."""
    proc = ono99("--rules", "points", "simulate", "--bots", "easy,easy", "--games", "2")
    assert proc.returncode == 0 and proc.stdout.startswith("2 games, 2 seats, rules: points,"), proc
    proc = ono99("--rules", "points", "simulate", "--bots", "easy,easy", "--games", "2", "--rules", "standard")
    assert proc.returncode == 0 and proc.stdout.startswith("2 games, 2 seats, rules: standard,"), proc  # (its own wins)
    for words in (["stats"], ["rules", "show"], ["join", "h", "--name", "A"], ["saves", "list"]):
        proc = ono99("--rules", "points", *words)
        command = " ".join(w for w in words if w in ("stats", "rules", "show", "join", "saves", "list"))
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert proc.stderr.splitlines()[-1] == (
            f"ono99 {command}: error: --rules is for a new game (ono99 {command} does not use it): ono99 --rules "
            "points, ono99 host --rules ..., ono99 simulate --rules ..."), proc.stderr
    record = tmp_path / "games"
    assert ono99("simulate", "--bots", "easy,easy", "--games", "2", "--records", str(record)).returncode == 0
    first = sorted(record.iterdir())[0]
    assert "->" in ono99("--ascii", "replay", str(first)).stdout
