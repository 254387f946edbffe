"""Who may believe what: the coordinator capability, the trust a new memory is
admitted with, and the contradictions that make a write wait.
"""
