"""The safe reader every file goes through (issue 15 items 6, 12, 13)."""

import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.store.readfile import MAX_DEPTH, ReadError, load_toml, parse_toml, read_text, toml_depth


def test_reads_a_regular_file(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text("a = 1\n", encoding="utf-8")
    assert read_text(path, "rules file") == "a = 1\n"
    assert load_toml(path, "rules file") == {"a": 1}


def test_a_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbftarget = 50\n")
    assert load_toml(path, "rules file") == {"target": 50}


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    result = {}

    def attempt():
        try:
            read_text(fifo, "rules file")
        except ReadError as exc:
            result["error"] = str(exc)

    reader = threading.Thread(target=attempt, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the thread so the test run can end, then fail
        with open(fifo, "w"):
            pass
        pytest.fail("reading a FIFO blocked")
    assert result["error"] == f"{fifo}: cannot read the rules file: it is a named pipe (FIFO), not a regular file"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(device):
    with pytest.raises(ReadError, match="character device, not a regular file"):
        read_text(device, "settings")


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(ReadError, match="it is a folder"):
        read_text(tmp_path, "theme")


def test_a_missing_file_says_so_and_is_marked_missing(tmp_path):
    with pytest.raises(ReadError) as info:
        read_text(tmp_path / "none.toml", "settings")
    assert info.value.missing
    assert "no such file" in str(info.value)


def test_a_file_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "big.toml"
    path.write_bytes(b"a = 1\n" * 400)
    with pytest.raises(ReadError, match=r"too large \(2 KB; at most 1 KB\)"):
        read_text(path, "rules file", limit=1024)


def test_not_utf8_is_refused(tmp_path):
    path = tmp_path / "bin.toml"
    path.write_bytes(b"a = '\xff'\n")
    with pytest.raises(ReadError, match="not a UTF-8 text file"):
        read_text(path, "record")


@pytest.mark.parametrize("text", [
    "a = " + "[" * 1000 + "]" * 1000,
    "a = " + "{a=" * 1000 + "1" + "}" * 1000,
    "[" + ".".join(["a"] * 100_000) + "]",
    ".".join(["a"] * 100_000) + " = 1",
])
def test_deep_nesting_is_a_clean_error_and_fast(text):
    with pytest.raises(ReadError, match="nested too deeply"):
        parse_toml(text, "x.toml", "rules file")


def test_brackets_in_strings_and_comments_do_not_count():
    text = 'a = "[[[[{{{{"\nb = """\n[[[[[[\n"""\nc = \'[[[[\' # [[[[[[[[[[\nd = [1.5, 2.5]\n'
    assert toml_depth(text) <= 3
    parse_toml(text.replace("[[[[{{{{", "[" * 50), "x", "rules file")


def test_invalid_toml_names_the_file():
    with pytest.raises(ReadError, match=r"^x.toml: the record is not valid TOML"):
        parse_toml("a = ", "x.toml", "record")


# Every string either parses or raises ReadError: never anything else.
@settings(max_examples=int(os.environ.get("ONO99_FUZZ_EXAMPLES", "150")), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]{}.=,\"'#\n ab1\\")), max_size=200))
def test_parse_toml_never_raises_anything_else(text):
    try:
        doc = parse_toml(text, "x", "file")
    except ReadError:
        return
    assert isinstance(doc, dict)
    assert toml_depth(text) <= MAX_DEPTH
