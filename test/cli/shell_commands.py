"""The shell's dot commands for output and scripts: .output FILE / .output, .headers on|off,
.nullvalue TEXT, .bail on|off, .echo on|off, and errors in scripts naming their line (a
script on standard input: "near line N"; a .read file: "FILE:N"). .help lists them.

Usage: shell_commands.py TESSERA
"""
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what, detail=''):
    if not ok:
        failures.append(f'{what}\n{detail}')


def run(tessera, script, cwd):
    r = subprocess.run([tessera], input=script, capture_output=True, text=True, cwd=cwd, timeout=120)
    return r.returncode, r.stdout, r.stderr


def main():
    tessera = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix='tessera-shell-')

    # .output FILE writes results there; .output alone goes back to standard output.
    rc, out, err = run(tessera, ".mode csv\n.output out.csv\nSELECT 1 AS a, 'x' AS b;\n.output\nSELECT 2 AS c;\n", work)
    with open(os.path.join(work, 'out.csv')) as f:
        written = f.read()
    check(rc == 0 and written == 'a,b\n1,x\n', '.output FILE', f'rc {rc} file {written!r} err {err!r}')
    check(out == 'c\n2\n', '.output back to stdout', repr(out))

    # .output to a file that cannot be opened: an error, results stay on stdout.
    rc, out, err = run(tessera, ".output no/such/dir/f.txt\n", work)
    check(rc == 1 and "cannot open file 'no/such/dir/f.txt' for writing" in err, '.output bad path', err)

    # .headers off: no column names in csv and table mode.
    rc, out, err = run(tessera, ".mode csv\n.headers off\nSELECT 1 AS a, 2 AS b;\n.headers on\nSELECT 3 AS c;\n", work)
    check(out == '1,2\nc\n3\n', '.headers csv', repr(out))
    rc, out, err = run(tessera, ".headers off\nSELECT 42 AS answer;\n", work)
    check('answer' not in out and '42' in out and 'integer' not in out, '.headers table', out)
    rc, out, err = run(tessera, ".headers maybe\n", work)
    check(rc == 1 and 'usage: .headers on|off' in err, '.headers usage', err)

    # .nullvalue: what NULL prints as.
    rc, out, err = run(tessera, ".mode csv\n.nullvalue (null)\nSELECT NULL AS n, 1 AS i;\n", work)
    check(out == 'n,i\n(null),1\n', '.nullvalue csv', repr(out))
    rc, out, err = run(tessera, ".nullvalue ~\nSELECT NULL AS n;\n", work)
    check('│ ~ ' in out and 'NULL' not in out, '.nullvalue table', out)

    # Errors in a script name the line their statement starts on; the script stops (bail on).
    script = "SELECT 1 AS one;\n\nSELECT\n  nosuch\nFROM (SELECT 1 AS a) t;\nSELECT 2 AS two;\n"
    rc, out, err = run(tessera, ".mode csv\n" + script, work)
    check(rc == 1 and err.startswith('Error: near line 4:') and 'two' not in out, 'error line, bail on',
          f'rc {rc} out {out!r} err {err!r}')

    # .bail off: the script goes on after an error, and still exits with status 1.
    rc, out, err = run(tessera, ".mode csv\n.bail off\nSELECT nosuch;\nSELECT 2 AS two;\n", work)
    check(rc == 1 and 'near line 3:' in err and 'two\n2\n' in out, '.bail off', f'rc {rc} out {out!r} err {err!r}')

    # PREPARE / EXECUTE: the statement lives in the shell's connection, from line to line;
    # a wrong argument count is an error naming the line.
    script = (".mode csv\nPREPARE p AS SELECT $1 + 1 AS x, $2 AS y;\nEXECUTE p(41, 'a');\n"
              "EXECUTE p(1);\nDEALLOCATE p;\n")
    rc, out, err = run(tessera, ".bail off\n" + script, work)
    check(rc == 1 and 'x,y\n42,a\n' in out and 'near line 5:' in err and
          'Values were not provided for the following prepared statement parameters: 2' in err,
          'PREPARE / EXECUTE in the shell', f'rc {rc} out {out!r} err {err!r}')

    # .read FILE: errors name the file and its line.
    with open(os.path.join(work, 'inner.sql'), 'w') as f:
        f.write("SELECT 1 AS fine;\nSELECT 1 +;\n")
    rc, out, err = run(tessera, ".mode csv\n.read inner.sql\nSELECT 3 AS after;\n", work)
    check(rc == 1 and 'Error: inner.sql:2:' in err and 'after' not in out, '.read error line',
          f'rc {rc} out {out!r} err {err!r}')

    # .echo on: each command is printed before it runs.
    rc, out, err = run(tessera, ".mode csv\n.echo on\nSELECT 5 AS five;\n.mode json\n", work)
    check(out.startswith('SELECT 5 AS five\nfive\n5\n.mode json\n'), '.echo on', repr(out))

    # .help lists the commands.
    rc, out, err = run(tessera, ".help\n", work)
    for cmd in ('.output', '.headers', '.nullvalue', '.bail', '.echo', 'Tab completes'):
        check(cmd in out, f'.help lists {cmd}', out)

    if failures:
        for f in failures:
            print('FAIL:', f)
        sys.exit(1)
    print('ok: .output, .headers, .nullvalue, .bail, .echo, script line numbers, .help')


if __name__ == '__main__':
    main()
