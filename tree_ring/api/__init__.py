"""The library's front for its clients: one `Project` per opened project (`api/project.py`)."""
