-- name: append
SELECT batch, first_position, current_version, recorded_at
  FROM append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);

-- name: append_guarded
-- As append, with each batch's guard (migration 0015): used when one has a guard.
SELECT batch, first_position, current_version, recorded_at
  FROM append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16);

-- name: read_stream
SELECT position, event_id, stream_id, stream_version, event_type, payload::text,
       audience, actor, correlation_id, causation_id, recorded_at, chain, global_chain
  FROM events
 WHERE stream_id = $1 AND stream_version > $2
 ORDER BY stream_version
 LIMIT $3;

-- name: read_all
SELECT position, event_id, stream_id, stream_version, event_type, payload::text,
       audience, actor, correlation_id, causation_id, recorded_at, chain, global_chain
  FROM events
 WHERE position > $1
 ORDER BY position
 LIMIT $2;

-- name: stream_version
SELECT coalesce(max(stream_version), 0) FROM events WHERE stream_id = $1;

-- name: head_position
SELECT coalesce(max(position), 0) FROM events;

-- name: get_checkpoint
SELECT position FROM checkpoints WHERE reader = $1;

-- name: set_checkpoint
INSERT INTO checkpoints (reader, position) VALUES ($1, $2)
ON CONFLICT (reader) DO UPDATE
   SET position = excluded.position, updated_at = clock_timestamp()
 WHERE checkpoints.position < excluded.position;

-- name: event_at_position
SELECT position, event_id, stream_id, stream_version, event_type, payload::text,
       audience, actor, correlation_id, causation_id, recorded_at, chain, global_chain
  FROM events
 WHERE position = $1;

-- name: stream_event
SELECT position, event_id, stream_id, stream_version, event_type, payload::text,
       audience, actor, correlation_id, causation_id, recorded_at, chain, global_chain
  FROM events
 WHERE stream_id = $1 AND stream_version = $2;

-- name: last_hand_end
SELECT position, event_id, stream_id, stream_version, event_type, payload::text,
       audience, actor, correlation_id, causation_id, recorded_at, chain, global_chain
  FROM events
 WHERE stream_id = $1 AND event_type IN ('HandEnded', 'GameEnded')
 ORDER BY stream_version DESC
 LIMIT 1;

-- name: chain_links
SELECT position, chain, global_chain
  FROM events
 WHERE position BETWEEN $1 AND $2
 ORDER BY position;

-- name: global_chains_at
SELECT position, global_chain FROM events WHERE position = ANY($1::bigint[]);

-- name: due_at
SELECT due_at FROM due WHERE key = $1;
