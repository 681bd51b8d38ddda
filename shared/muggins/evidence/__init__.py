"""What lets anyone hold the site to its record: keys, checkpoints, receipts."""
