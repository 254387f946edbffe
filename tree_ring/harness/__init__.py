"""The agent harnesses: setup, receipts, the stop checkpoint and certification."""
