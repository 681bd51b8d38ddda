"""What tests share, so that no test imports another test module: the real
servers' fixtures (servers), the service (service), clients (clients),
processes (processes), scripted players (scripted_players), the store
watched (store_watch), waiting for conditions (waits), tables over the
service's API (tables), the real Chromium (browser), pages in it (pages),
the replay tool (replays), leagues for the leaderboard (leagues), reading
source code (source_code), deploy/dev.py as a module (dev_script)."""
