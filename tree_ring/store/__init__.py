"""The SQLite store: the connection and its error translation, the schema and its
migrations, moving rows in and out, the audit chain, the one liveness predicate, settings.
"""
