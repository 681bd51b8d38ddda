-- name: register_key
INSERT INTO signing_keys (key_id, public_key) VALUES ($1, $2)
ON CONFLICT (key_id) DO NOTHING;

-- name: keys
SELECT key_id, public_key, first_used FROM signing_keys ORDER BY first_used, key_id;

-- name: store_head
SELECT position, global_chain FROM events ORDER BY position DESC LIMIT 1;

-- name: last_checkpoint_position
SELECT coalesce(max(position), 0) FROM signed_checkpoints;

-- name: save_checkpoint
INSERT INTO signed_checkpoints (position, global_chain, signed_at, key_id, signature)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (position) DO NOTHING
RETURNING position;

-- name: latest_checkpoint
SELECT position, global_chain, signed_at, key_id, signature
  FROM signed_checkpoints ORDER BY position DESC LIMIT 1;

-- name: checkpoint_at_or_after
SELECT position, global_chain, signed_at, key_id, signature
  FROM signed_checkpoints WHERE position >= $1 ORDER BY position LIMIT 1;

-- name: checkpoint_at_or_before
SELECT position, global_chain, signed_at, key_id, signature
  FROM signed_checkpoints WHERE position <= $1 ORDER BY position DESC LIMIT 1;

-- name: checkpoints_between
SELECT position, global_chain, signed_at, key_id, signature
  FROM signed_checkpoints WHERE position BETWEEN $1 AND $2 ORDER BY position LIMIT $3;
