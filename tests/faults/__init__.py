"""Operator-style fault tests: the table service as processes, killed, paused and cut off."""
