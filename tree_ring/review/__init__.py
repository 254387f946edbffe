"""A person's decisions: the review queue, the inbox, promotion and findings."""
