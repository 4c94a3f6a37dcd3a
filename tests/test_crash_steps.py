"""Every multi-file operation fails between each of its steps and nothing acknowledged is lost
(issue 20 item 6 and "Every multi-file operation crash-safe"): rename, delete, import, restore, the stats
update and the journal fold, each cut at step 0, 1, 2, ... until it runs through. The kill-based
run (SIGKILL at each step, before and after it) is benchmarks/crash_steps.py."""

import shutil

import pytest

from tests.steps import OPERATIONS, Faults, check, run, setup


@pytest.mark.parametrize("op", OPERATIONS)
def test_failing_at_every_step_loses_no_acknowledged_play(op, tmp_path):
    k = 0
    while True:
        folder = tmp_path / f"{op}-{k}"
        folder.mkdir()
        state = setup(op, folder)
        with Faults(at=k) as faults:
            try:
                run(op, folder)
            except Exception:  # noqa: BLE001 - the injected fault, as the operation reports it
                assert faults.fired
        assert check(state, folder) == [], f"{op} failed at step {k} of {faults.steps}"
        shutil.rmtree(folder)
        if not faults.fired:
            break  # ran through: every step was cut once
        k += 1
    assert k >= 3  # a real multi-step operation was walked through
