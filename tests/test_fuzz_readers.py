"""Fuzz every file reader (issue 15): a hostile file is accepted or refused cleanly, never a
traceback, and reading never changes it. Sized for CI; ONO99_FUZZ_EXAMPLES=2000 (and
benchmarks/fuzz_inputs.py, which also catches hangs) for a long run.
"""

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import KINDS, READERS, _mutated, _typed, file_name, fresh, sample, structural

EXAMPLES = int(os.environ.get("ONO99_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def read(kind, folder, data: bytes):
    fresh(folder)
    path = folder / file_name(kind)
    path.write_bytes(data)
    outcome = READERS[kind](path)
    assert outcome in ("ok", "clean")
    if kind != "stats" or outcome == "clean":
        assert path.read_bytes() == data  # reading never changes (or loses) the file
    return outcome


@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(seed=st.integers(0, 2**32 - 1), typed=st.booleans())
def test_mutated_files_are_read_or_refused_cleanly(kind, seed, typed, tmp_path):
    rng = random.Random(seed)
    text = sample(kind)
    text = _typed(text, rng) if typed else _mutated(text, rng)
    read(kind, tmp_path / "case", text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(parts=st.lists(st.sampled_from(list("[]{}.=,\"'#\n ab1-_:\\") + ["\x1b", "\ufeff", "true", "[[rounds]]",
                                                                       "[rules]", "players", "name"]),
                      max_size=120))
def test_random_toml_like_text_is_read_or_refused_cleanly(kind, parts, tmp_path):
    text = "".join(parts)
    read(kind, tmp_path / "case", text.encode("utf-8", "surrogatepass"))


def _structural_cases():
    for kind in KINDS:
        for label, writer in structural(sample(kind), random.Random(1), big=False):
            yield pytest.param(kind, label, writer, id=f"{kind}-{label}")


@pytest.mark.parametrize("kind,label,writer", list(_structural_cases()))
def test_named_attacks_are_refused_cleanly(kind, label, writer, tmp_path):
    folder = tmp_path / "case"
    fresh(folder)
    path = folder / file_name(kind)
    writer(path)
    before = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    assert READERS[kind](path) in ("ok", "clean")
    if before is not None and kind != "stats":
        assert path.read_bytes() == before
