"""The interactive shell on a pseudo-terminal, for the shell tests (ctrl_c.py,
tab_completion.py): start it, type into it, wait for its output."""
import os
import pty
import select
import subprocess
import sys
import tempfile
import time


class PtyShell:
    def __init__(self, tessera, args=(), term='dumb'):
        self.master, slave = pty.openpty()
        home = tempfile.mkdtemp(prefix='tessera-pty-')
        env = dict(os.environ, TERM=term, HOME=home)
        self.proc = subprocess.Popen([tessera, *args], stdin=slave, stdout=slave, stderr=slave,
                                     env=env, close_fds=True)
        os.close(slave)
        self.out = bytearray()  # what the shell wrote and the test has not dropped

    def read_until(self, text, timeout=30):
        """Reads until `text` was written; False on timeout or end of output."""
        deadline = time.monotonic() + timeout
        while text.encode() not in self.out:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                self.out.extend(data)
        return True

    def send(self, keys):
        os.write(self.master, keys.encode())

    def fail(self, why):
        print('FAIL:', why)
        print('--- shell output ---')
        print(self.out.decode(errors='replace'))
        self.proc.kill()
        sys.exit(1)

    def quit(self, command):
        """Sends `command` (.quit and its line end); fails unless the shell exits with 0."""
        self.send(command)
        try:
            rc = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.fail('.quit did not end the shell')
        if rc != 0:
            self.fail('exit status %d after .quit' % rc)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        os.close(self.master)
