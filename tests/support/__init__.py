"""What tests share, so that no test imports another test module: the real
servers' fixtures (servers), waiting for conditions (waits), tables over the
service's API (tables), pages in the browser (pages), the replay tool
(replays), leagues for the leaderboard (leagues), reading source code
(source_code)."""
