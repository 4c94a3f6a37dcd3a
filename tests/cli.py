"""Run `ono99` as a user does: a subprocess; a traceback is always a failure."""

import subprocess
import sys


def ono99(*args, cwd=None, timeout=120, input=None):
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, input=input)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def on_a_pty(argv: list[str], env: dict | None = None, typed: bytes = b"") -> tuple[int, str]:
    """Run ``argv`` with a PTY as its terminal (as an SSH session's child, or a user at a
    terminal, runs it), ``typed`` written to it at once; (exit status, everything it wrote)."""
    import os
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # (the child: its output is the PTY's)
        if env is None:
            os.execv(argv[0], argv)
        os.execve(argv[0], argv, env)
    if typed:
        os.write(fd, typed)
    out = bytearray()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # (EIO: the child is gone and the PTY closed)
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")
