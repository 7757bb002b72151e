#!/usr/bin/env python3
"""Drives `statctl watch` on a pseudo-terminal of ROWS x COLS.

usage: watch_tty.py ROWS COLS KEY STATCTL ARGS...
KEY is "q" (quit key) or "intr" (Ctrl-C through the terminal's ISIG).
Prints "status=N", "restored=yes|no", "widest=N", "frames=N", "full_clears=N",
"shows_value=yes|no" (the totals row of the stopped writer is on screen)
for the shell test to assert on.
"""

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time


def read_for(fd, seconds):
    data, end = b"", time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    return data


def main(argv):
    rows, cols, key, cmd = int(argv[1]), int(argv[2]), argv[3], argv[4:]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    before = termios.tcgetattr(slave)
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.execvp(cmd[0], cmd)
    out = read_for(master, 1.5)
    os.write(master, b"q" if key == "q" else before[6][termios.VINTR])
    out += read_for(master, 1.0)
    deadline, status = time.time() + 3, None
    while time.time() < deadline and status is None:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(raw)
        else:
            time.sleep(0.05)
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        status = "hung"
    after = termios.tcgetattr(slave)
    text = out.decode("utf-8", "replace")
    # Visible text of each drawn line: what comes before each clear-to-EOL.
    lines = [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seg).split("\n")[-1].strip("\r")
             for seg in text.split("\x1b[K")[:-1]]
    print("status=%s" % status)
    print("restored=%s" % ("yes" if after == before and text.rstrip().endswith("\x1b[?1049l") else "no"))
    print("widest=%d" % max([len(line) for line in lines] or [0]))
    print("frames=%d" % text.count("\x1b[H"))
    print("full_clears=%d" % text.count("\x1b[2J"))
    print("shows_value=%s" % ("yes" if any(re.match(r"^  all\.packets +500 ", line)
                                               for line in lines) else "no"))


if __name__ == "__main__":
    main(sys.argv)
