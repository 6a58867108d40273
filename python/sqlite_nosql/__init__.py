"""sqlite_nosql: the nosql SQLite extension, packaged for Python.

The layout follows sqlite-vec's Python package: loadable_path() for any
host that takes a path (it has no ".so" suffix, SQLite adds it), load(conn)
for a sqlite3.Connection. The shared object beside this file is the
stripped release build; it finds the CRoaring library shipped beside it
(libroaring.so.0, $ORIGIN rpath), so no system package is needed.
"""

import os

__version__ = "@VERSION@"

__all__ = ["__version__", "loadable_path", "load"]


def loadable_path():
    """Return the path of the bundled extension without its file suffix."""
    return os.path.normpath(os.path.join(os.path.dirname(__file__), "nosql"))


def load(conn):
    """Load the extension into conn, a sqlite3.Connection.

    Extension loading is enabled for the load only and disabled again
    afterwards, also when the load fails.
    """
    if not hasattr(conn, "enable_load_extension") or not hasattr(conn, "load_extension"):
        raise RuntimeError(
            "sqlite_nosql.load: this Python's sqlite3 module cannot load "
            "extensions (it was built without --enable-loadable-sqlite-extensions, "
            "as pyenv builds are by default); use a Python whose "
            "sqlite3.Connection has enable_load_extension, such as Debian's "
            "/usr/bin/python3, or rebuild it with "
            "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions"
        )
    conn.enable_load_extension(True)
    try:
        conn.load_extension(loadable_path())
    finally:
        conn.enable_load_extension(False)
