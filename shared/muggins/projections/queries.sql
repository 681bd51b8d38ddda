-- name: lock_checkpoint
SELECT position FROM checkpoints WHERE reader = $1 FOR UPDATE;

-- name: create_checkpoint
INSERT INTO checkpoints (reader, position) VALUES ($1, 0) ON CONFLICT (reader) DO NOTHING;

-- name: move_checkpoint
UPDATE checkpoints SET position = $2, updated_at = clock_timestamp() WHERE reader = $1;

-- name: load_documents
SELECT stream_id, table_id, game, version, position, state::text
  FROM table_views WHERE stream_id = ANY ($1);

-- name: save_documents
INSERT INTO table_views (stream_id, table_id, game, version, position, state, public_view, phase)
SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::bigint[],
                     $6::jsonb[], $7::jsonb[], $8::text[])
ON CONFLICT (stream_id) DO UPDATE
   SET version = excluded.version, position = excluded.position, state = excluded.state,
       public_view = excluded.public_view, phase = excluded.phase,
       updated_at = clock_timestamp();

-- name: forget_everything
DELETE FROM table_views;

-- name: reset_checkpoint
DELETE FROM checkpoints WHERE reader = $1;

-- name: table_view
SELECT game, version, public_view::text, phase FROM table_views
 WHERE table_id = $1 ORDER BY game DESC LIMIT 1;

-- name: playing
SELECT table_id, game, version, public_view::text FROM table_views
 WHERE phase IN ('playing', 'between-hands') ORDER BY updated_at DESC LIMIT $1;

-- name: open_tables
SELECT t.table_id, t.ruleset::text, count(*) FILTER (WHERE s.name IS NULL) AS free,
       count(*) AS seats
  FROM tables t JOIN seats s USING (table_id)
 WHERE t.game_number = 0
 GROUP BY t.table_id, t.ruleset::text, t.created_at
 ORDER BY t.created_at DESC LIMIT $1;
