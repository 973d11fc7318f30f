"""Connection and Cursor: PEP 249 (DB-API 2.0) over the extension tessera._tessera."""

import datetime
import re
import sys
import time
import weakref

from . import _tessera
from ._exceptions import InterfaceError, NotSupportedError, ProgrammingError

apilevel = "2.0"
# Threads may share the module, not connections (PEP 249 level 1). In practice a
# connection and its cursors may be used from several threads: each cursor has its own
# engine connection and calls on one are serialised, so nothing breaks, but there are no
# transactions to isolate them.
threadsafety = 1
paramstyle = "qmark"


# ---------------------------------------------------------------------------------------
# Type objects and constructors (PEP 249)


class DBAPITypeObject:
    """Compares equal to each of the type codes it stands for (``description[i][1]``)."""

    def __init__(self, *values):
        self.values = frozenset(values)

    def __eq__(self, other):
        return other in self.values

    def __ne__(self, other):
        return other not in self.values

    def __hash__(self):
        return hash(self.values)

    def __repr__(self):
        return "DBAPITypeObject(%s)" % ", ".join(sorted(self.values))


STRING = DBAPITypeObject("VARCHAR")
BINARY = DBAPITypeObject()  # tessera has no binary type
NUMBER = DBAPITypeObject("INTEGER", "BIGINT", "DOUBLE", "DECIMAL")
DATETIME = DBAPITypeObject("DATE", "TIMESTAMP", "TIME")
BOOLEAN = DBAPITypeObject("BOOLEAN")
ROWID = DBAPITypeObject()  # no row ids

Date = datetime.date
Time = datetime.time  # binds as TIME
Timestamp = datetime.datetime  # binds as TIMESTAMP (naive: its wall-clock time)


def DateFromTicks(ticks):
    return Date(*time.localtime(ticks)[:3])


def TimeFromTicks(ticks):
    return Time(*time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks):
    return Timestamp(*time.localtime(ticks)[:6])


def Binary(value):
    raise NotSupportedError("tessera has no binary type")


# ---------------------------------------------------------------------------------------
# Python objects as Arrow streams (register, replacement scans)


def _is_pandas_frame(obj):
    mod = type(obj).__module__
    return mod.startswith("pandas") and type(obj).__name__ == "DataFrame"


def _arrow_capsule(obj):
    """An Arrow C stream PyCapsule for `obj`: a pandas DataFrame, a pyarrow Table,
    RecordBatch or RecordBatchReader, a polars DataFrame, or anything with
    ``__arrow_c_stream__``."""
    mod = type(obj).__module__
    if _is_pandas_frame(obj):
        import pyarrow as pa

        obj = pa.Table.from_pandas(obj, preserve_index=False)
        mod = "pyarrow"
    if mod.startswith("pyarrow"):
        import pyarrow as pa

        if isinstance(obj, pa.RecordBatch):
            obj = pa.Table.from_batches([obj])
    if hasattr(obj, "__arrow_c_stream__"):
        return obj.__arrow_c_stream__()
    raise NotSupportedError(
        "register: %s.%s is not a pandas DataFrame, a pyarrow Table or an object with "
        "__arrow_c_stream__" % (mod, type(obj).__name__)
    )


def _is_scannable(obj):
    return _is_pandas_frame(obj) or hasattr(obj, "__arrow_c_stream__")


_MISSING_TABLE = re.compile(r'table "([^"]+)" does not exist')


# ---------------------------------------------------------------------------------------
# Connection


class Connection:
    """A database (in memory, or a directory on disk) and the session over it.

    Made by :func:`tessera.connect`. ``execute``/``sql`` run a statement on a new cursor
    and return it, except inside a transaction: after ``BEGIN`` (or :meth:`begin`) they run
    on that transaction's cursor until ``COMMIT``/``ROLLBACK`` (or :meth:`commit` /
    :meth:`rollback`) ends it, as on a DuckDB connection. Outside a transaction every
    statement takes effect (and persists, for a database on disk) when it succeeds;
    ``commit`` then does nothing and ``rollback`` is an error (DuckDB's). Usable as a
    context manager (closes on exit).
    """

    def __init__(self, path=None, device="auto", threads=None, plan_cache=None):
        self._db = _tessera.Database(path, device, threads, plan_cache)
        self._admin = _tessera.Connection(self._db)  # register/unregister/interrupt
        self._cursors = weakref.WeakSet()
        self._tx = None  # the cursor whose engine connection holds the open transaction
        self.path = path

    # -- PEP 249 -----------------------------------------------------------------------

    def cursor(self):
        """A new Cursor (with its own engine connection to this database: SQL's PREPARE
        / EXECUTE, whose statements live in an engine connection, work within one cursor)."""
        self._check_open()
        cur = Cursor(self)
        self._cursors.add(cur)
        return cur

    def begin(self):
        """Starts a transaction (``BEGIN``): the statements of ``execute``/``sql`` that
        follow see its snapshot and take effect together at :meth:`commit`."""
        self.execute("BEGIN")
        return self

    def commit(self):
        """Commits the transaction ``BEGIN`` started on this connection; does nothing
        when none is open (statements outside one take effect at once)."""
        self._check_open()
        tx = self._open_transaction()
        if tx is not None:
            self._run(lambda cur: cur._execute("COMMIT", None, None), tx)
        return self

    def rollback(self):
        """Undoes the transaction ``BEGIN`` started on this connection; an error when
        none is open (as DuckDB)."""
        self._check_open()
        self._run(lambda cur: cur._execute("ROLLBACK", None, None))
        return self

    def _open_transaction(self):
        """The cursor of the transaction open on this connection, or None."""
        if self._tx is not None and (self._tx._conn.closed or not self._tx._conn.in_transaction()):
            self._tx = None
        return self._tx

    def _run(self, run, cur=None):
        """Calls run(cursor) on `cur`, by default the open transaction's cursor or else a
        new one; afterwards that cursor holds the connection's open transaction when it is
        inside one. Returns the cursor."""
        cur = cur or self._open_transaction() or self.cursor()
        try:
            run(cur)
        finally:
            try:
                self._tx = cur if not cur._conn.closed and cur._conn.in_transaction() else None
            except Exception:
                self._tx = None
        return cur


    def close(self):
        """Closes the connection and its cursors. Tables made by register() go with the
        database. Closing twice is allowed."""
        if self._db.closed:
            return
        for cur in list(self._cursors):
            cur.close()
        self._admin.close()
        self._db.close()

    @property
    def closed(self):
        return self._db.closed

    # -- shortcuts ---------------------------------------------------------------------

    def execute(self, sql, parameters=None):
        """Runs `sql` (with `parameters` for its ``?``/``$n`` placeholders) on a new
        cursor and returns the cursor. Names of tables that do not exist are looked up
        as Python variables of the caller (see :meth:`sql`)."""
        frame = sys._getframe(1)
        return self._run(lambda cur: cur._execute(sql, parameters, frame))

    def sql(self, sql, parameters=None):
        """As :meth:`execute`. A table name that the database does not know but that
        is a variable of the calling function (a pandas or polars DataFrame, a pyarrow
        Table, anything with ``__arrow_c_stream__``) is registered for this statement
        and dropped after it: ``con.sql("SELECT COUNT(*) FROM df")``."""
        frame = sys._getframe(1)
        return self._run(lambda cur: cur._execute(sql, parameters, frame))

    def executemany(self, sql, seq_of_parameters):
        """Runs `sql` once for each parameter sequence on a new cursor (the open
        transaction's, inside one); returns it."""
        return self._run(lambda cur: cur.executemany(sql, seq_of_parameters))

    # -- Python data -------------------------------------------------------------------

    def register(self, name, obj, replace=True):
        """Makes `obj` queryable as the table `name`: a pandas DataFrame, a pyarrow
        Table/RecordBatch/RecordBatchReader, a polars DataFrame, or any object with
        ``__arrow_c_stream__``.

        A temporary table: in memory only, never written to a database on disk, visible
        to every cursor of this connection, gone when the connection closes or at
        :meth:`unregister`. Its columns share the Arrow buffers of `obj` where tessera's
        layout is Arrow's (int32/int64/double/date32, decimal128 with p > 18, utf8
        strings and validity bitmaps): nothing is copied, and the buffers stay alive while
        the table needs them, also after `obj` itself is gone. Other types are converted
        column by column. A pandas DataFrame is copied (its numpy arrays can be changed in
        place). Later changes to `obj` are not seen; register it again (an existing
        registration of the name is replaced unless ``replace=False``).

        Arrow types: bool; int8/16/32 and uint8/16 -> INTEGER; int64, uint32/64 ->
        BIGINT; float, double -> DOUBLE; decimal128(p, s) -> DECIMAL(p, s); date32/64 ->
        DATE; utf8, large_utf8, utf8_view -> VARCHAR; dictionaries are decoded. Others
        raise NotSupportedError. Returns the number of rows."""
        self._check_open()
        if not isinstance(name, str) or not name:
            raise ProgrammingError("register: the name must be a non-empty str")
        return self._admin.register_arrow(name, _arrow_capsule(obj), replace, _is_pandas_frame(obj))

    def _register_for_statement(self, name, obj):
        """The replacement scan's registration: for one statement, so a pandas DataFrame
        is shared too."""
        return self._admin.register_arrow(name, _arrow_capsule(obj), False, False)

    def unregister(self, name):
        """Drops the table `name` made by :meth:`register`; returns False when there is
        none (a persistent table of that name is left alone)."""
        self._check_open()
        return self._admin.unregister(name)

    def interrupt(self):
        """Asks the statements running on this connection's cursors (in other threads)
        to stop; they raise OperationalError (kind "interrupted")."""
        for cur in list(self._cursors):
            cur._interrupt()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _check_open(self):
        if self._db.closed:
            raise ProgrammingError("the connection is closed")


# ---------------------------------------------------------------------------------------
# Cursor


def _rowcount(result):
    if result.has_rows:
        return -1  # rows are streamed: not known when execute returns (DuckDB's -1 too)
    words = result.message.split()
    if len(words) >= 2 and words[-1].isdigit():
        return int(words[-1])
    return -1


class Cursor:
    """A cursor (PEP 249) with the result of its last statement.

    A statement that returns rows streams them: ``execute`` returns when its rows begin
    (a statement without rows has ended), and ``fetchone``/``fetchmany``/iteration pull
    rows from the running query as they are asked for (``fetchall`` takes all the rest);
    a result larger than memory can be read this way. Besides the DB-API methods:
    ``arrow()`` (pyarrow Table), ``df()`` (pandas), ``pl()`` (polars), ``fetchnumpy()``
    (dict of numpy arrays), ``fetch_record_batch()`` / ``to_arrow_reader()`` (a pyarrow
    RecordBatchReader reading the query as it goes) and ``__arrow_c_stream__`` (the Arrow
    PyCapsule interface: ``pyarrow.table(cur)``, ``polars.DataFrame(cur)``); each takes the
    rows not fetched yet (they are consumed). As in DuckDB, running another statement on
    the cursor closes the open result (the query stops), so does ``close()``, and
    ``rowcount`` is -1 for statements that return rows.
    """

    arraysize = 1

    def __init__(self, connection):
        self.connection = connection
        self._conn = _tessera.Connection(connection._db)
        self._result = None
        self._count_rows = None  # the fetchable rows of a statement without a result set
        self._prepared = None  # (sql, Statement) of the last parameterised statement
        self.description = None
        self.rowcount = -1

    # -- running statements ------------------------------------------------------------

    def execute(self, operation, parameters=None):
        """Runs one SQL statement (or several separated by ';' without parameters: the
        result is the last one's). `parameters`: a sequence of values for the ``?`` (or
        ``$1``, ``$2``...) placeholders: int, float, str, bool, None, decimal.Decimal
        (up to 18 digits), datetime.date, datetime.datetime (TIMESTAMP), datetime.time.
        Returns the cursor. Raises a subclass of
        tessera.Error; its ``offset`` is the byte offset of the error in `operation`."""
        self._execute(operation, parameters, sys._getframe(1))
        return self

    def executemany(self, operation, seq_of_parameters):
        """Runs `operation` once per parameter sequence (prepared once); ``rowcount`` is
        the total of the statements' counts."""
        self._check_open()
        total = 0
        result = None
        for params in seq_of_parameters:
            stmt = self._prepare(operation)
            stmt.bind(params)
            result = stmt.execute()
            n = _rowcount(result)
            total += max(n, 0)
        self._set_result(result)
        self.rowcount = total if result is not None else -1
        return self

    def _execute(self, operation, parameters, frame):
        self._check_open()
        if not isinstance(operation, str):
            raise ProgrammingError("the statement must be a str")
        registered = []
        try:
            while True:
                try:
                    if parameters is None:
                        result = self._conn.query(operation)
                    else:
                        stmt = self._prepare(operation)
                        stmt.bind(parameters)
                        result = stmt.execute()
                    break
                except ProgrammingError as e:
                    # Replacement scan: an unknown table named like a DataFrame variable.
                    m = _MISSING_TABLE.search(str(e)) if e.kind == "catalog" else None
                    name = m.group(1) if m else None
                    obj = _lookup(frame, name) if name and name not in registered else None
                    if obj is None:
                        raise
                    self.connection._register_for_statement(name, obj)
                    registered.append(name)
                    self._prepared = None
        finally:
            for name in registered:
                self.connection.unregister(name)
            del frame
        self._set_result(result)

    def _prepare(self, operation):
        if self._prepared is None or self._prepared[0] != operation:
            self._prepared = None
            self._prepared = (operation, self._conn.prepare(operation))
        return self._prepared[1]

    def _set_result(self, result):
        self._result = result
        self._count_rows = None
        if result is not None and not result.has_rows:
            # As DuckDB: a statement that changed rows (INSERT, UPDATE, DELETE, CREATE
            # TABLE AS, COPY) fetches one row, its count, in a column "Count"; any other
            # statement fetches no rows.
            n = _rowcount(result)
            self._count_rows = [(n,)] if n >= 0 else []
            self.description = [("Count", "BIGINT", None, None, None, None, True)] if n >= 0 else None
        elif result is None:
            self.description = None
        else:
            desc = []
            for name, type_name, (prec, scale) in zip(result.names, result.type_names, result.decimals):
                if type_name == "DECIMAL":
                    desc.append((name, type_name, None, None, prec, scale, True))
                else:
                    desc.append((name, type_name, None, None, None, None, True))
            self.description = desc
        self.rowcount = -1 if result is None else _rowcount(result)

    # -- fetching ----------------------------------------------------------------------

    def _rows(self):
        self._check_open()
        if self._result is None or not self._result.has_rows:
            raise ProgrammingError("no result set: the last statement returned no rows (or none was run)")
        return self._result

    def _take_count_rows(self, n):
        """Rows of a statement without a result set (_set_result), or None for one with."""
        self._check_open()
        if self._result is None or self._result.has_rows or self._count_rows is None:
            return None
        rows = self._count_rows if n < 0 else self._count_rows[:n]
        self._count_rows = self._count_rows[len(rows):]
        return rows

    def fetchone(self):
        """The next row as a tuple, or None when there are no more."""
        rows = self._take_count_rows(1)
        if rows is None:
            rows = self._rows().fetch(1)
        return rows[0] if rows else None

    def fetchmany(self, size=None):
        """Up to `size` (default ``arraysize``) further rows as a list of tuples."""
        n = self.arraysize if size is None else max(int(size), 0)
        rows = self._take_count_rows(n)
        return rows if rows is not None else self._rows().fetch(n)

    def fetchall(self):
        """All remaining rows as a list of tuples (a statement without rows: its count,
        as DuckDB; see _set_result)."""
        rows = self._take_count_rows(-1)
        return rows if rows is not None else self._rows().fetch(-1)

    def __iter__(self):
        return self

    def __next__(self):
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def arrow(self):
        """The rows not yet fetched as a pyarrow Table (through the Arrow C stream)."""
        import pyarrow as pa

        res = self._rows()
        reader = pa.RecordBatchReader._import_from_c_capsule(res.arrow_capsule())
        try:
            return reader.read_all()
        except BaseException:
            res.raise_stream_error()  # KeyboardInterrupt (Ctrl-C while it waited), the query's error
            raise

    def fetch_record_batch(self, rows_per_batch=1000000):
        """The rows not yet fetched as a pyarrow RecordBatchReader that pulls them from the
        query as it is read, in batches of up to `rows_per_batch` rows (at least one
        chunk of the engine's, up to 2048 rows). Closing it or running another statement
        on the cursor stops the query."""
        import pyarrow as pa

        res = self._rows()
        return _Reader(res, pa.RecordBatchReader._import_from_c_capsule(res.arrow_capsule(int(rows_per_batch))))

    def to_arrow_reader(self, batch_size=1000000):
        """As :meth:`fetch_record_batch` (DuckDB's newer name)."""
        return self.fetch_record_batch(batch_size)

    fetch_arrow_table = arrow

    def df(self):
        """The rows not yet fetched as a pandas DataFrame (through pyarrow)."""
        return self.arrow().to_pandas()

    fetchdf = df

    def pl(self):
        """The rows not yet fetched as a polars DataFrame (through Arrow)."""
        import polars

        return polars.from_arrow(self.arrow())

    def fetchnumpy(self):
        """The rows not yet fetched as a dict {column name: numpy array}. Columns with
        NULLs are numpy masked arrays. DECIMAL gives object arrays of Decimal, DATE
        datetime64[D], VARCHAR object arrays of str."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        table = self.arrow()
        out = {}
        for name, col in zip(table.column_names, table.columns):
            t = col.type
            if col.null_count == 0:
                out[name] = col.to_numpy()
                continue
            mask = col.is_null().to_numpy()
            if pa.types.is_integer(t) or pa.types.is_floating(t):
                col = pc.fill_null(col, pa.scalar(0, t))
            elif pa.types.is_boolean(t):
                col = pc.fill_null(col, False)
            elif pa.types.is_date32(t):
                col = pc.fill_null(col, pa.scalar(0, t))
            out[name] = np.ma.masked_array(col.to_numpy(), mask=mask)
        return out

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule interface: the rows not yet fetched as an Arrow C stream
        that pulls them from the query as it is read (they are consumed).
        `requested_schema` is ignored."""
        return self._rows().arrow_capsule()

    # -- the rest of PEP 249 -----------------------------------------------------------

    def close(self):
        """Closes the cursor (closing twice is allowed)."""
        self._result = None
        self._prepared = None
        self._conn.close()

    @property
    def closed(self):
        return self._conn.closed

    def setinputsizes(self, sizes):
        """Does nothing (PEP 249)."""

    def setoutputsize(self, size, column=None):
        """Does nothing (PEP 249)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _interrupt(self):
        self._conn.interrupt()

    def _check_open(self):
        if self._conn.closed or self.connection.closed:
            raise ProgrammingError("the cursor is closed")


class _Reader:
    """A pyarrow RecordBatchReader's reading methods over a streamed result; an error of the
    query becomes the tessera exception (a Ctrl-C while it waited: the KeyboardInterrupt)
    instead of pyarrow's OSError. Keeps the result (and so its query) alive."""

    def __init__(self, result, reader):
        self._result = result
        self._reader = reader
        self.schema = reader.schema

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except BaseException:
            self._result.raise_stream_error()
            raise

    def read_next_batch(self):
        return self._call(self._reader.read_next_batch)

    def read_all(self):
        return self._call(self._reader.read_all)

    def read_pandas(self, **options):
        return self._call(self._reader.read_pandas, **options)

    def __iter__(self):
        while True:
            try:
                yield self.read_next_batch()
            except StopIteration:
                return

    def close(self):
        self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __arrow_c_stream__(self, requested_schema=None):
        return self._reader.__arrow_c_stream__(requested_schema)


def _lookup(frame, name):
    """The DataFrame-like variable `name` of `frame` (locals, then globals), or None."""
    if frame is None:
        return None
    for scope in (frame.f_locals, frame.f_globals):
        obj = scope.get(name)
        if obj is not None and _is_scannable(obj):
            return obj
    return None


__all__ = [
    "apilevel",
    "threadsafety",
    "paramstyle",
    "Connection",
    "Cursor",
    "DBAPITypeObject",
    "STRING",
    "BINARY",
    "NUMBER",
    "DATETIME",
    "BOOLEAN",
    "ROWID",
    "Date",
    "Time",
    "Timestamp",
    "DateFromTicks",
    "TimeFromTicks",
    "TimestampFromTicks",
    "Binary",
    "InterfaceError",
]
