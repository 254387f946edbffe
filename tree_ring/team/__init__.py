"""The team ledger: memory shared through git, and how far a clone believes a line."""
