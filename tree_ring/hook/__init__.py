"""The hook adapter: a harness's payload in, at most one JSON document out."""
