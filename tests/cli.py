"""Run `ono99` as a user does: a subprocess; a traceback is always a failure."""

import subprocess
import sys


def ono99(*args, cwd=None, timeout=120, input=None):
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, input=input)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc
