"""A table's own logic (seating, commands, next steps) on the in-memory store and keys:
no server, milliseconds (tests/contract holds the twins to the real parts)."""
