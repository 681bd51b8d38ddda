"""What tests share: waiting for conditions (no test imports another test module for these)."""
