"""Tab completion in the interactive shell's line editor: keywords (in the case typed),
table and column names, function names and dot commands; several matches extend to their
common prefix or are listed.

Usage: tab_completion.py TESSERA

The shell runs on a pseudo-terminal with TERM=xterm, so the line editor is in raw mode.
"""
import os
import pty
import select
import subprocess
import sys
import tempfile
import time


def main():
    tessera = sys.argv[1]
    master, slave = pty.openpty()
    home = tempfile.mkdtemp(prefix='tessera-tab-')
    env = dict(os.environ, TERM='xterm', HOME=home)
    proc = subprocess.Popen([tessera], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = bytearray()

    def read_until(text, timeout=30):
        deadline = time.monotonic() + timeout
        while text.encode() not in out:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([master], [], [], left)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    return False
                if not data:
                    return False
                out.extend(data)
        return True

    def send(keys):
        os.write(master, keys.encode())

    def fail(why):
        print('FAIL:', why)
        print('--- shell output ---')
        print(out.decode(errors='replace'))
        proc.kill()
        sys.exit(1)

    def after(text, timeout=30):
        # `text`, then the next prompt: the editor flushes input typed before its prompt.
        if not read_until(text, timeout):
            return False
        rest = out[out.index(text.encode()) + len(text):]
        del out[:]
        out.extend(rest)
        return read_until('tessera> ', timeout)

    try:
        if not read_until('tessera> '):
            fail('no prompt')
        del out[:]
        send('CREATE TABLE customers (customer_name VARCHAR, customer_id INTEGER);\r')
        if not after('CREATE TABLE\r\n'):
            fail('no prompt after CREATE')
        # Keywords in upper case, a unique column, and `cust`, which extends to the common
        # prefix `customer` of customers, customer_id and customer_name, then the table.
        del out[:]
        send('SEL\tcustomer_n\tFR\tcust\ts\t;\r')
        if not after('0 rows'):
            fail('completed SELECT customer_name FROM customers did not run')
        # Several matches that share no longer prefix: listed under the line.
        del out[:]
        send('SELECT customer_\t')
        if not read_until('customer_id  customer_name', 10):
            fail('the choices customer_id and customer_name were not listed')
        send('\x15')  # Ctrl-U: drop the line
        # A function name and a dot command.
        del out[:]
        send("SELECT regexp_full\t('ab', 'a.') AS m;\r")
        if not after('true'):
            fail('regexp_full did not complete to regexp_full_match')
        del out[:]
        send('.tab\t\r')
        if not after('customers'):
            fail('.tab did not complete to .tables')
        send('.quit\r')
        try:
            rc = proc.wait(30)
        except subprocess.TimeoutExpired:
            fail('.quit did not end the shell')
        if rc != 0:
            fail('exit status %d after .quit' % rc)
        print('ok: keywords, tables, columns, functions and dot commands complete')
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


if __name__ == '__main__':
    main()
