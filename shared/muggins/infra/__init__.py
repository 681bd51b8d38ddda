"""Plumbing every process shares: settings, logs, SQL files, embedded
servers, retries, background loops, the compiled engine's check."""
