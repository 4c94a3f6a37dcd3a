"""An entry point for a test zygote (tests/test_net_zygote.py): instead of `ono99 join`, a
child that says what it was given -- its environment, folder, descriptors, session, terminal,
a number from `random` -- on one line, leaves a process of its own in its group, and waits
for its terminal to go."""

import json
import os
import random
import subprocess
import sys


def main(argv: list[str]) -> int:
    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    with open("/proc/self/stat") as f:
        tty_nr = int(f.read().rsplit(")", 1)[1].split()[4])
    sleeper = subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    info = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "pid": os.getpid(), "ppid": os.getppid(),
            "sid": os.getsid(0), "pgid": os.getpgid(0), "fds": fds, "tty_nr": tty_nr,
            "tty": os.ttyname(0) if os.isatty(0) else None, "random": random.getrandbits(64),
            "sleeper": sleeper.pid}
    print("PROBE " + json.dumps(info) + " END", flush=True)
    sys.stdin.read()  # until the terminal hangs up
    return 0
