"""Ctrl-C in the interactive shell: SIGINT while a query runs stops that query, the shell
prints the "query interrupted" error, stays alive and answers the next statement.

Usage: ctrl_c.py TESSERA

The shell runs on a pseudo-terminal (so it is interactive) with TERM=dumb (plain line
input); the query is a cross join of 1,000,000 x 2,000 generated rows with a filter no pair
passes (2e9 pairs, which take far longer than the test waits); SIGINT is sent 0.5 s after
it starts. The build side is kept small because the cross join forms each probe chunk's
pairs at once. Then the same while the shell prints: the cross join's 2e9 pairs stream in
csv mode (the first rows must show up, as the result is not held back until complete),
SIGINT stops the query in the middle of printing, the shell answers the next statement.
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pty_shell import PtyShell  # noqa: E402


def main():
    sh = PtyShell(sys.argv[1], ["--threads", "2"])
    out, read_until, proc = sh.out, sh.read_until, sh.proc

    def fail(why):  # the output's end only: a streamed result is long
        del out[:-4000]
        sh.fail(why)

    def send(line):
        sh.send(line + "\n")

    try:
        if not read_until("tessera> ", 30):
            fail("no prompt")
        send("CREATE TABLE d AS SELECT * FROM (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) s(x);")
        send("CREATE TABLE k AS SELECT a.x * 100 + b.x * 10 + c.x AS v FROM d a, d b, d c;")
        send("CREATE TABLE m AS SELECT k.v * 1000 + l.v AS v FROM k, k l;")
        send("CREATE TABLE s AS SELECT v FROM m WHERE v < 2000;")
        send("SELECT COUNT(*) AS setup_rows FROM m;")
        if not read_until("1000000", 60):
            fail("setup did not finish")
        del out[:]
        send("SELECT COUNT(*) FROM m, s WHERE m.v + s.v < 0;")
        time.sleep(0.5)
        if proc.poll() is not None:
            fail("the shell exited before SIGINT")
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        if not read_until("interrupted", 30):
            fail("no 'interrupted' error within 30 s of SIGINT")
        took = time.monotonic() - sent
        if proc.poll() is not None:
            fail("the shell exited after SIGINT (status %s)" % proc.returncode)
        send("SELECT 6 * 7 AS answer;")
        if not read_until("42", 30):
            fail("no answer to the statement after the interrupt")

        # While printing a streamed result.
        del out[:]
        send(".mode csv")
        send("SELECT m.v AS a, s.v AS b FROM m, s WHERE m.v + s.v >= 0;")
        if not read_until("a,b\r\n0,", 30):
            fail("the streamed rows did not show up")
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        if not read_until("interrupted", 30):
            fail("no 'interrupted' error within 30 s of SIGINT while printing")
        took_printing = time.monotonic() - sent
        if proc.poll() is not None:
            fail("the shell exited after SIGINT while printing (status %s)" % proc.returncode)
        del out[:]
        send("SELECT 6 * 7 AS answer;")
        if not read_until("answer\r\n42", 30):
            fail("no answer to the statement after the interrupt while printing")
        sh.quit(".quit\n")
        print("ok: interrupted %.2f s after SIGINT (running) and %.2f s after SIGINT (printing); "
              "the next statements answered" % (took, took_printing))
    finally:
        sh.close()


if __name__ == "__main__":
    main()
