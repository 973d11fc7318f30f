"""tessera: an embedded analytical SQL database (column store, vectorized CPU engine,
GPU kernels), with a PEP 249 (DB-API 2.0) interface and Arrow, pandas, polars and numpy
results.

    import tessera
    con = tessera.connect()                  # in memory; tessera.connect("db.tdb") on disk
    con.execute("CREATE TABLE t (id INTEGER, name VARCHAR)")
    con.execute("INSERT INTO t VALUES (?, ?)", [1, "one"])
    con.sql("SELECT * FROM t").fetchall()    # [(1, 'one')]

Guide: docs/PYTHON.md in the source repository.
"""

from . import _tessera
from ._dbapi import (
    BINARY,
    BOOLEAN,
    DATETIME,
    NUMBER,
    ROWID,
    STRING,
    Binary,
    Connection,
    Cursor,
    Date,
    DateFromTicks,
    DBAPITypeObject,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
    apilevel,
    paramstyle,
    threadsafety,
)
from ._exceptions import (
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)

__version__ = "0.1.0"
library_version = _tessera.library_version()


def connect(path=None, device="auto", threads=None, plan_cache=None):
    """Opens a database and returns a :class:`Connection`.

    path: a database directory (created if missing), or None / ":memory:" for an
    in-memory database. device: "auto" (the GPU where one can be used), "cpu" or "gpu"
    (fails where no GPU can be used). threads: worker threads (None or 0: all hardware
    threads). plan_cache: reuse plans of repeated SELECTs (default True).
    """
    return Connection(path, device, threads, plan_cache)


__all__ = [
    "connect",
    "Connection",
    "Cursor",
    "apilevel",
    "threadsafety",
    "paramstyle",
    "Warning",
    "Error",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
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
]
