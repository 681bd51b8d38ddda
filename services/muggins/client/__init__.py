"""The web client: pages and their static files (no build step)."""
