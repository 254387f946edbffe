"""The SQLite store: the connection and its error translation, the schema and its
migrations, moving rows in and out, the audit chain, the one liveness predicate, settings,
and every query the rest of the library runs, as named operations in the module of
what they read or write (`rows`, `tombstones`, `queue`, `census`, `ledger_rows`, ...).
Outside `store/`, only the search engines of `read/`, `govern/` and `tree/` write SQL
(`tests/test_sql_rooms.py`).

One handle rule. A use case, which opens its own transactions and may retry
them, takes the `Store` (`db.Store`: `store.write()`, `store.with_retry`). A step
that runs inside a transaction, or makes one read, takes the `Db` (`sql.Db`) it is
given, and never opens a transaction of its own. Every named store operation is
such a step: it takes a `Db`.
"""
