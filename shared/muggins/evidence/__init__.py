"""What lets anyone hold the site to its record: its signing key, signed
checkpoints of the whole store, and the receipts players keep."""
