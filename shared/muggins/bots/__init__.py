"""Bots and self-play: the bots' levels, bots playing whole games, and a game told play by play."""
