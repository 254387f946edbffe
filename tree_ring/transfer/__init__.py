"""Export to JSONL and import from it, the original Tree Ring's rows included."""
