"""The replay and audit tool: rebuild any hand from its revealed seed and
the recorded decisions, and prove it was played fair (docs/replays.md)."""
