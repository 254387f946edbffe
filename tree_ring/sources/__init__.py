"""Memory from files the project already keeps: AGENTS.md guidance and Revolve outcomes."""
