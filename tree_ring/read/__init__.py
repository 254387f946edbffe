"""Every way memory is read: recall and its ranking, the startup brief, the summary tree's reads."""
