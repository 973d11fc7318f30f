"""The PEP 249 exception hierarchy and the mapping from the engine's error kinds.

Every exception the engine raises carries ``kind`` (the C API's error kind as a lower-case
name, e.g. ``"syntax"``, ``"binder"``; None for errors of the Python layer) and ``offset``
(the byte offset into the UTF-8 SQL text where the error is, None when the engine knows
no position). ``char_offset(sql)`` turns the byte offset into a str index.
"""


class Warning(Exception):  # noqa: A001 (PEP 249 name)
    """Important warnings (PEP 249). tessera raises none yet."""


class Error(Exception):
    """Base class of every tessera error (PEP 249)."""

    def __init__(self, message="", kind=None, offset=None):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.offset = offset

    def char_offset(self, sql):
        """The error's position as an index into the str `sql` (None when unknown)."""
        if self.offset is None:
            return None
        return len(sql.encode("utf-8")[: self.offset].decode("utf-8", errors="ignore"))


class InterfaceError(Error):
    """Errors of the Python interface rather than of the database."""


class DatabaseError(Error):
    """Errors of the database."""


class DataError(DatabaseError):
    """Problems with the data: a value out of range, a cast that cannot be done."""


class OperationalError(DatabaseError):
    """Errors of the database's operation: I/O, an interrupted statement, cannot open."""


class IntegrityError(DatabaseError):
    """A constraint was violated (NOT NULL)."""


class InternalError(DatabaseError):
    """An internal error of the engine (a bug or an environment failure)."""


class ProgrammingError(DatabaseError):
    """Errors in the SQL or its use: syntax, unknown table or column, type mismatch,
    wrong number of parameters, a closed connection or cursor."""


class NotSupportedError(DatabaseError):
    """What tessera does not support (yet)."""


# The C API's tessera_error_type values -> (kind name, exception class).
_KINDS = {
    1: ("syntax", ProgrammingError),
    2: ("binder", ProgrammingError),
    3: ("type", ProgrammingError),
    4: ("catalog", ProgrammingError),
    5: ("input", DataError),
    6: ("constraint", IntegrityError),
    7: ("conversion", DataError),
    8: ("unsupported", NotSupportedError),
    9: ("io", OperationalError),
    10: ("interrupted", OperationalError),
    11: ("internal", InternalError),
    12: ("parameter", ProgrammingError),
    13: ("transaction", OperationalError),
}


def _from_engine(kind, message, offset):
    """The exception for an engine error (called by the extension)."""
    name, cls = _KINDS.get(kind, ("unknown", DatabaseError))
    return cls(message, name, None if offset is None or offset < 0 else offset)
