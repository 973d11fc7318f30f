"""Tab completion in the interactive shell's line editor: keywords (in the case typed),
table and column names, function names and dot commands; several matches extend to their
common prefix or are listed.

Usage: tab_completion.py TESSERA

The shell runs on a pseudo-terminal with TERM=xterm, so the line editor is in raw mode.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pty_shell import PtyShell  # noqa: E402


def main():
    sh = PtyShell(sys.argv[1], term='xterm')
    out, read_until, send, fail = sh.out, sh.read_until, sh.send, sh.fail

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
        # Keywords in upper case, a unique column, `FR`, which extends to the common prefix
        # `FROM` of from, from_base64 and from_hex (so no space follows), and `cust`, which
        # extends to the common prefix `customer` of customers, customer_id and
        # customer_name, then the table.
        del out[:]
        send('SEL\tcustomer_n\tFR\t cust\ts\t;\r')
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
        send("SELECT split_pa\t('a-b', '-', 2) || 'q' AS m;\r")
        if not after('bq'):  # the result, not in the echoed input
            fail('split_pa did not complete to split_part')
        del out[:]
        send('.tab\t\r')
        if not after('customers'):
            fail('.tab did not complete to .tables')
        sh.quit('.quit\r')
        print('ok: keywords, tables, columns, functions and dot commands complete')
    finally:
        sh.close()


if __name__ == '__main__':
    main()
