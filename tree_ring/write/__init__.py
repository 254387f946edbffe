"""Every way a memory is written or corrected: the staged write pipeline, bulk
writes, the write verbs, forgetting and supersession, and what forgetting propagates.
"""
